#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dump.sh - gazectl dump super/cp/zones/inode/dir/usage/block on a fresh
# mkfs.gaze image and on a mkfs.gaze -d image of a tree made here: the
# fields must match what is known to have been put in (geometry given to
# mkfs, sizes and block counts of files written, directory entry names,
# inode numbers from gazectl stat), every --json output must parse, and
# the text and JSON forms must agree on a few values.  Also --help,
# usage errors (exit 2) and missing objects (exit 1); and on an image
# damaged by every tests/corrupt/gaze-corrupt kind, every dump exits 0 or
# 1 (never crashes) and its JSON parses.
#
# Needs python3 (JSON parsing); skips (77) without it.
set -u

: "${GAZE_BUILDDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
MKFS=$GAZE_BUILDDIR/mkfs/mkfs.gaze
RTUTIL=$GAZE_BUILDDIR/tests/roundtrip/rtutil
GAZECTL=$GAZE_BUILDDIR/gazectl/gazectl

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is needed to parse the JSON output"
	exit 77
fi

# the interpreter itself, not a wrapper script (pyenv shims cost 0.3 s a call)
PY=$(python3 -c 'import sys; print(sys.executable)') || exit 99

W=$(mktemp -d "${TMPDIR:-/tmp}/gaze-dump.XXXXXX") || exit 99
trap 'rm -rf "$W"' EXIT
n=0
nfail=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n - $*"; }

# check "description" test-args...
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}

# j IMAGE-ARGS... -- PYTHON-EXPR: evaluates the expression with the
# parsed JSON of "gazectl dump ARGS --json" as d; prints the value
j() {
	args=
	while [ "$1" != -- ]; do
		args="$args $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	"$GAZECTL" dump $args --json >"$W/j.json" 2>"$W/j.err" || {
		echo "ERROR: gazectl dump$args exited $?: $(cat "$W/j.err")" >&2
		echo "<error>"
		return 1
	}
	"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" \
		"$W/j.json" 2>"$W/py.err" || {
		echo "ERROR: $1: $(cat "$W/py.err")" >&2
		echo "<error>"
	}
}

eq() {		# eq "description" got want
	if [ "$2" = "$3" ]; then
		ok "$1 ($2)"
	else
		bad "$1: got '$2', want '$3'"
	fi
}

# ------------------------------------------------------------------
T=$W/tree
mkdir -p "$T/big" "$T/small/sub" || exit 99
head -c 10000 /dev/urandom >"$T/f10k"
head -c 3000000 /dev/urandom >"$T/f3m"
printf hello >"$T/small/tiny"
head -c 7000000 /dev/urandom >"$T/f7m"
ln "$T/f10k" "$T/small/f10k-link"
"$RTUTIL" xattr "$T/f3m" user.a hello || exit 99
"$RTUTIL" xattr-pattern "$T/small/tiny" user.big 3000 || exit 99
ln -s f10k "$T/link"
i=0
while [ $i -lt 300 ]; do
	: >"$T/big/name-$i"
	i=$((i + 1))
done

EMPTY=$W/empty.img
IMG=$W/tree.img
"$MKFS" -q -s 64M -z 1M "$EMPTY" || exit 99
"$MKFS" -q -s 64M -z 2M -L dumptest -d "$T" "$IMG" || exit 99

# --- every subcommand's JSON parses, on both images -----------------
for img in "$EMPTY" "$IMG"; do
	for c in super cp zones usage "inode / " "dir / " "block 0"; do
		set -- $c
		sub=$1
		shift
		if "$GAZECTL" dump "$sub" --json "$img" "$@" >"$W/out.json" 2>"$W/err" &&
		   "$PY" -m json.tool "$W/out.json" >/dev/null; then
			ok "dump $sub --json parses ($(basename "$img"))"
		else
			bad "dump $sub --json on $(basename "$img"): $(head -c 300 "$W/err")"
		fi
	done
done

# --- super -----------------------------------------------------------
eq "super: primary verifies" "$(j super "$IMG" -- "d['primary']['verify']")" ok
eq "super: secondary verifies" "$(j super "$IMG" -- "d['secondary']['verify']")" ok
eq "super: copies agree" "$(j super "$IMG" -- "d['secondary']['same_as_primary']")" True
eq "super: zone_blocks from -z 2M" "$(j super "$IMG" -- "d['primary']['zone_blocks']")" 512
eq "super: nr_zones of 64M / 2M" "$(j super "$IMG" -- "d['primary']['nr_zones']")" 32
eq "super: label from -L" "$(j super "$IMG" -- "d['primary']['label']")" dumptest
eq "super: secondary at block 512" "$(j super "$IMG" -- "d['secondary']['block']")" 512
eq "super: text form agrees" \
	"$("$GAZECTL" dump super "$IMG" | sed -n 's/^  zone_blocks: //p' | head -n 1)" 512

# --- cp --------------------------------------------------------------
eq "cp: exactly one current pack" \
	"$(j cp "$IMG" -- "sum(p['current'] for z in d['zones'] for p in z['packs'])")" 1
eq "cp: current pack has the newest seq" \
	"$(j cp "$IMG" -- "[p['seq'] for z in d['zones'] for p in z['packs'] if p['current']][0] == d['current_seq']")" True
eq "cp: fresh image's first pack is flagged mkfs" \
	"$(j cp "$EMPTY" -- "'mkfs' in d['zones'][0]['packs'][0]['flags']")" True
eq "cp: fresh image counts at least root and lost+found" \
	"$(j cp "$EMPTY" -- "[p['valid_inodes'] for z in d['zones'] for p in z['packs'] if p['current']][0] >= 2")" True

# --- zones -----------------------------------------------------------
eq "zones: one row per zone" "$(j zones "$IMG" -- "len(d['zones'])")" 32
eq "zones: zone 0 is a checkpoint zone" "$(j zones "$IMG" -- "d['zones'][0]['class']")" checkpoint
eq "zones: last zone is main" "$(j zones "$IMG" -- "d['zones'][-1]['class']")" main
eq "zones: valid blocks sum to the checkpoint's count" \
	"$(j zones "$IMG" -- "sum(z['valid'] or 0 for z in d['zones'])")" \
	"$(j cp "$IMG" -- "[p['valid_blocks'] for z in d['zones'] for p in z['packs'] if p['current']][0]")"

# --- usage -----------------------------------------------------------
eq "usage: main valid equals checkpoint valid_blocks" \
	"$(j usage "$IMG" -- "d['main_total']['valid'] == d['checkpoint']['valid_blocks']")" True
eq "usage: zones add up" \
	"$(j usage "$IMG" -- "sum(v['zones'] for v in d['main_by_state'].values()) == d['capacity']['main_zones']")" True
eq "usage: fresh image has no invalid blocks" \
	"$(j usage "$EMPTY" -- "d['main_total']['invalid']")" 0

# --- inode -----------------------------------------------------------
eq "inode /: a directory" "$(j inode "$IMG" / -- "d['type']")" dir
eq "inode /: ino 2" "$(j inode "$IMG" / -- "d['ino']")" 2
eq "inode 2 is /" "$(j inode "$IMG" 2 -- "d['ino'] == 2 and d['type'] == 'dir'")" True
eq "inode /f10k: size" "$(j inode "$IMG" /f10k -- "d['size']")" 10000
eq "inode /f10k: 3 blocks mapped" "$(j inode "$IMG" /f10k -- "d['mapped_blocks']")" 3
eq "inode /f10k: verifies" "$(j inode "$IMG" /f10k -- "d['verify']")" ok
F3M_BLOCKS=$(( (3000000 + 4095) / 4096 ))
eq "inode /f3m: size" "$(j inode "$IMG" /f3m -- "d['size']")" 3000000
eq "inode /f3m: every block mapped" "$(j inode "$IMG" /f3m -- "d['mapped_blocks']")" $F3M_BLOCKS
eq "inode /f3m: blocks = data + one direct node" \
	"$(j inode "$IMG" /f3m -- "d['blocks']")" $((F3M_BLOCKS + 1))
eq "inode /f3m: node tree is one dnode from block 448" \
	"$(j inode "$IMG" /f3m -- "[(t['kind'], t['first_fblk'], t['verify']) for t in d['node_tree']]")" \
	"[('dnode', 448, 'ok')]"
F7M_BLOCKS=$(( (7000000 + 4095) / 4096 ))
eq "inode /f7m: every block mapped" "$(j inode "$IMG" /f7m -- "d['mapped_blocks']")" $F7M_BLOCKS
eq "inode /f7m: two dnodes, an indirect node and its dnode" \
	"$(j inode "$IMG" /f7m -- "[(t['kind'], t['depth'], t['first_fblk']) for t in d['node_tree']]")" \
	"[('dnode', 1, 448), ('dnode', 1, 952), ('indirect', 1, 1456), ('dnode', 2, 1456)]"
eq "inode /f7m: blocks = data + 4 nodes" "$(j inode "$IMG" /f7m -- "d['blocks']")" $((F7M_BLOCKS + 4))
eq "inode /f10k: two links" "$(j inode "$IMG" /f10k -- "d['nlink']")" 2
eq "inode /small/tiny: an xattr node (3000-byte value)" \
	"$(j inode "$IMG" /small/tiny -- "d['xattr_nid'] > 0 and d['xattr_block'] > 0")" True
eq "inode /f3m: inline xattrs in use" \
	"$(j inode "$IMG" /f3m -- "d['inline_xattr_used'] > 0")" True
eq "inode /f3m: map runs cover the file" \
	"$(j inode "$IMG" /f3m -- "sum(r['count'] for r in d['block_map'])")" $F3M_BLOCKS
eq "inode /small/tiny: inline, size 5" \
	"$(j inode "$IMG" /small/tiny -- "('inline_data' in d['flags'], d['size'])")" "(True, 5)"
STATINO=$("$GAZECTL" stat --json "$IMG" /f10k | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["ino"])')
eq "inode /f10k: ino matches gazectl stat" "$(j inode "$IMG" /f10k -- "d['ino']")" "$STATINO"

# --- dir -------------------------------------------------------------
eq "dir /big: hashed" "$(j dir "$IMG" /big -- "d['format']")" hashed
eq "dir /big: 300 entries" "$(j dir "$IMG" /big -- "len(d['entries'])")" 300
eq "dir /big: the names put in" \
	"$(j dir "$IMG" /big -- "sorted(e['name'] for e in d['entries']) == sorted('name-%d' % i for i in range(300))")" True
eq "dir /big: cookies are max(2, hash >> 1)" \
	"$(j dir "$IMG" /big -- "all(e['cookie'] == max(2, e['hash'] >> 1) for e in d['entries'])")" True
eq "dir /big: entries sorted by hash within buckets" \
	"$(j dir "$IMG" /big -- "all(a['hash'] <= b['hash'] for a, b in zip(d['entries'], d['entries'][1:]) if a['bucket'] == b['bucket'])")" True
eq "dir /small: inline with f10k-link, sub and tiny" \
	"$(j dir "$IMG" /small -- "(d['format'], sorted((e['name'], e['type']) for e in d['entries']))")" \
	"('inline', [('f10k-link', 'file'), ('sub', 'dir'), ('tiny', 'file')])"
eq "dir /small: the link's entry has /f10k's inode" \
	"$(j dir "$IMG" /small -- "[e['ino'] for e in d['entries'] if e['name'] == 'f10k-link'][0]")" \
	"$(j inode "$IMG" /f10k -- "d['ino']")"
eq "dir / of a fresh image holds lost+found" \
	"$(j dir "$EMPTY" / -- "[e['name'] for e in d['entries']]")" "['lost+found']"

# --- block -----------------------------------------------------------
IADDR=$(j inode "$IMG" /f10k -- "d['block']")
DADDR=$(j inode "$IMG" /f10k -- "d['block_map'][0]['addr']")
eq "block (inode of /f10k): decoded as an inode" \
	"$(j block "$IMG" "$IADDR" -- "(d['kind'], d['verify'], d['inode']['size'])")" "('inode', 'ok', 10000)"
eq "block (inode of /f10k): summary names it as a node of itself" \
	"$(j block "$IMG" "$IADDR" -- "(d['summary']['type'], d['summary']['nid'])")" "('node', $STATINO)"
eq "block (data of /f10k): owner and slot" \
	"$(j block "$IMG" "$DADDR" -- "(d['summary']['type'], d['summary']['nid'], d['summary']['ofs'], d['valid_bit'])")" \
	"('data', $STATINO, 0, True)"
eq "block 0: the primary superblock" \
	"$(j block "$IMG" 0 -- "(d['kind'], d['verify'], d['area'])")" "('superblock', 'ok', 'checkpoint')"

# --- errors and help -------------------------------------------------
"$GAZECTL" dump inode --help >"$W/help" 2>&1
check "dump inode --help exits 0 and shows the usage" \
	grep -q "Usage: gazectl dump inode" "$W/help"
"$GAZECTL" dump zones >/dev/null 2>&1
eq "dump zones without IMAGE is a usage error" $? 2
"$GAZECTL" dump inode "$IMG" /no/such >/dev/null 2>"$W/err"
eq "dump inode of a missing path fails" $? 1
"$GAZECTL" dump block "$IMG" 99999999 >/dev/null 2>&1
eq "dump block past the device fails" $? 1

# --- damaged images: every dump exits 0 or 1, never crashes, and what
# it prints with --json parses (tests/corrupt/gaze-corrupt kinds) ------
CORRUPT=$GAZE_BUILDDIR/tests/corrupt/gaze-corrupt
DAMAGED=$W/damaged.img
mkdir "$W/dmg" || exit 99
KINDS=$("$CORRUPT" --list | awk '{ print $1 }')
for k in $KINDS; do
	cp --sparse=always "$IMG" "$DAMAGED"
	if ! "$CORRUPT" "$DAMAGED" "$k" 1 >/dev/null 2>&1; then
		echo skip >"$W/dmg/$k.skip"
		continue
	fi
	: >"$W/dmg/$k.msg"
	i=0
	for c in super cp zones usage "inode /f3m" "inode /small/tiny" \
		 "dir /big" "dir /small" "block 0" "block $IADDR"; do
		set -- $c
		sub=$1
		shift
		i=$((i + 1))
		"$GAZECTL" dump "$sub" --json "$DAMAGED" "$@" \
			>"$W/dmg/$k.$i.json" 2>"$W/d.err"
		rc=$?
		if [ $rc -gt 1 ]; then
			echo "; dump $c exited $rc: $(head -c 200 "$W/d.err")" \
				>>"$W/dmg/$k.msg"
		elif [ $rc = 1 ]; then
			rm -f "$W/dmg/$k.$i.json"	# nothing promised
		fi
	done
done
# one interpreter for every JSON output
"$PY" - "$W/dmg" <<'PYEOF'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    try:
        json.load(open(f))
    except ValueError as e:
        kind = os.path.basename(f).split('.')[0]
        with open(os.path.join(sys.argv[1], kind + '.msg'), 'a') as m:
            m.write('; %s: JSON does not parse (%s)\n' % (os.path.basename(f), e))
PYEOF
for k in $KINDS; do
	if [ -e "$W/dmg/$k.skip" ]; then
		n=$((n + 1))
		echo "ok $n - dumps of a $k image # SKIP no candidate in this tree"
	elif [ -s "$W/dmg/$k.msg" ]; then
		bad "dumps of a $k image$(tr -d '\n' <"$W/dmg/$k.msg")"
	else
		ok "dumps of a $k image exit 0 or 1 with valid JSON"
	fi
done

echo "1..$n"
if [ "$nfail" != 0 ]; then
	echo "# $nfail failed"
	exit 1
fi
exit 0
