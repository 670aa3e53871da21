#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# matrix.sh - the fsck corruption matrix.  A populated image (mkfs.gaze
# -d of a small varied tree built here: files of several sizes, inline
# and with direct nodes, nested and hashed directories, symlinks, hard
# links, inline and node xattrs) is damaged by every kind of
# tests/corrupt/gaze-corrupt in turn, on a fresh copy each time:
#
#   inject                 gaze-corrupt IMAGE KIND SEED exits 0
#   fsck.gaze -fn          exits 4 (errors left uncorrected)
#   fsck.gaze -fy          exits 1 (errors corrected)
#   fsck.gaze -fn          exits 0 (clean)
#   compare                gazectl extract of the repaired image against
#                          the source tree (content, type, mode, symlink
#                          targets), see "policies" below; with
#                          MATRIX_MOUNT=1 (in the guest) the image is
#                          mounted read-only by gaze.ko instead
#
# One TAP line per kind and step.  fsck.gaze missing from the build is a
# failure, not a skip.  Exit 8 or a crash (>= 128) is never accepted.
#
# Policies (the 3rd column of the kind table below), for files that are
# missing or differ after the repair:
#   keep    nothing may be lost: every file of the tree is back with the
#           same content; a file missing at its path is accepted only
#           when a file with the same content is in /lost+found
#           (reconnected)
#   target  by design the damaged object cannot be rebuilt (its only
#           copy is gone): the target (printed by gaze-corrupt) and
#           anything under it may be missing or differ, when fsck's -y
#           transcript names the target's inode number or name;
#           everything else as under keep
#   dir     the damage takes a directory block or record region with it:
#           files in the target's directory may be missing (or appear
#           in /lost+found), everything else as under keep
#   detect  a known limit of this version: fsck.gaze finds the damage
#           (-n exit 4) but cannot rebuild it yet; -y must say so (exit
#           4, never a crash or 8) and a second -n must still exit 4
#   any     the newest checkpoint itself is damaged; falling back to the
#           previous one may lose what only the newest recorded, so
#           missing files are accepted, but present files must match
#           (mkfs.gaze -d commits once at its end, so for the image made
#           here the previous checkpoint is the empty filesystem and the
#           whole tree goes: these kinds test detection and a clean
#           result, not salvage)
#
# Environment: GAZE_BUILDDIR (set by make check), MATRIX_KINDS (space
# separated subset, default all), MATRIX_SEED (default 1).  Needs root
# only for nothing; xattrs need a TMPDIR that supports user xattrs.
set -u

: "${GAZE_BUILDDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
MKFS=$GAZE_BUILDDIR/mkfs/mkfs.gaze
FSCK=$GAZE_BUILDDIR/fsck/fsck.gaze
GAZECTL=$GAZE_BUILDDIR/gazectl/gazectl
CORRUPT=$GAZE_BUILDDIR/tests/corrupt/gaze-corrupt
RTUTIL=$GAZE_BUILDDIR/tests/roundtrip/rtutil
SEED=${MATRIX_SEED:-1}

# kind         policy   why the policy (when not keep)
KINDS='
sb-primary-crc       keep
sb-secondary-crc     keep
sb-primary-geometry  keep
sb-copies-differ     keep
sb-secondary-magic   keep
cp-head-crc          any     newest pack invalid: previous checkpoint
cp-trailer-mismatch  any     newest pack invalid: previous checkpoint
cp-table-root        any     newest pack invalid: previous checkpoint
cp-tindex-addr       keep
cp-log-past-wp       any     the head verifier rejects the pack: previous checkpoint
cp-log-behind        keep
cp-valid-blocks      keep
cp-prealloc          keep
cp-valid-inodes      keep
cp-free-zones        keep
cp-flags             any     the head verifier rejects the pack: previous checkpoint
cp-payload-crc       any     newest pack invalid: previous checkpoint
orphan-live          keep
orphan-count         keep
orphan-free          keep
imap-garbage         target  the inode block is no longer reachable
imap-freed-nid       keep
imap-range           target  the inode block is no longer reachable
imap-crc             any     a whole imap block (504 nids) is unreadable
tindex-crc           keep
zinfo-tindex-zero    keep
cp-old-head-zero     keep
zinfo-valid-high     keep
zinfo-valid-low      keep
zinfo-free-owned     keep
zinfo-log            keep
usage-bit-owned      keep
usage-bit-unowned    keep
summary-owner        keep
summary-ofs          keep
summary-type         keep
inode-mode           target  the file type is gone
inode-nlink-high     keep
inode-nlink-low      keep
inode-nlink-zero     keep
inode-size-small     target  the true size is not recorded elsewhere
inode-size-inline    keep
inode-addr-range     target  the block address is lost
inode-addr-meta      target  the block address is lost
inode-addr-dup       target  one of the two owners loses the block
inode-blocks         keep
inode-flags          keep
inode-dirflag-file   keep
inode-inline-used    target  the inline length is not recorded elsewhere
inode-crc            target  the inode block is unreadable
inode-nid-bad        target  the direct node (its addresses) is lost
dir-parent           keep
dir-nentries         keep
dnode-ino            keep
dnode-addr           target  the block address is lost
dnode-crc            target  the direct node is unreadable
ind-ino              keep
ind-nid              target  the direct node (504 addresses) is lost
dirent-namelen       dir     the record region cannot be parsed
dirent-reclen        dir     the record region cannot be parsed
dirent-slash         target  the name is invalid: renamed or dropped
dirent-hash          keep
dirent-bucket        keep
dirent-free-ino      target  the entry is dropped; the inode is orphaned
dirent-ftype         keep
dirent-dup           keep
dirent-crc           dir     a bucket block is unreadable
unreachable          keep
dir-loop             target  the directory is reconnected
xattr-inline-len     keep
xattr-inline-used    keep
xattr-index          keep
xattr-node-len       keep
xattr-node-used      keep
xattr-node-crc       keep
xattr-nid-free       keep
'

W=$(mktemp -d "${TMPDIR:-/tmp}/gaze-matrix.XXXXXX") || exit 99
trap 'rm -rf "$W"' EXIT
n=0
nfail=0

tap() {		# tap OK|FAIL "description" [detail...]
	n=$((n + 1))
	if [ "$1" = OK ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		nfail=$((nfail + 1))
		shift 2
		for l in "$@"; do
			printf '%s\n' "$l" | sed 's/^/# /'
		done
	fi
}

for b in "$MKFS" "$GAZECTL" "$CORRUPT" "$RTUTIL" "$FSCK"; do
	if [ ! -x "$b" ]; then
		echo "1..1"
		echo "not ok 1 - $b is not built"
		exit 1
	fi
done

# ------------------------------------------------------------------
# The tree
# ------------------------------------------------------------------
T=$W/tree
mkdir -p "$T/d1/d2/d3" "$T/big" "$T/x" || exit 99
: >"$T/empty"
printf x >"$T/one"
head -c 2000 /dev/urandom >"$T/inline2000"
head -c 5000 /dev/urandom >"$T/r5000"
head -c 100000 /dev/urandom >"$T/r100k"
head -c 3000000 /dev/urandom >"$T/r3m"
head -c 2500000 /dev/urandom >"$T/d1/r2500k"
head -c 7000000 /dev/urandom >"$T/r7m"
printf mid | dd of="$T/sparse" bs=1 seek=300000 conv=notrunc status=none
truncate -s 1M "$T/sparse"
head -c 700 /dev/urandom >"$T/d1/small"
head -c 9000 /dev/urandom >"$T/d1/d2/nine"
head -c 12000 /dev/urandom >"$T/d1/d2/d3/twelve"
echo deep >"$T/d1/d2/d3/deep"
i=0
while [ $i -lt 600 ]; do
	echo "$i" >"$T/big/entry-$i"
	i=$((i + 1))
done
ln -s r100k "$T/sym-short"
ln -s "$(printf '%0300d' 0 | tr 0 s)" "$T/sym-long"
ln "$T/r5000" "$T/d1/r5000-link"
ln "$T/r5000" "$T/d1/d2/r5000-link2"
ln "$T/d1/small" "$T/x/small-link"
head -c 20000 /dev/urandom >"$T/x/xsmall"
head -c 20000 /dev/urandom >"$T/x/xbig"
"$RTUTIL" xattr "$T/x/xsmall" user.a hello || exit 99
"$RTUTIL" xattr "$T/x/xsmall" user.b world || exit 99
"$RTUTIL" xattr-pattern "$T/x/xbig" user.big 3000 || exit 99
"$RTUTIL" xattr "$T/x/xbig" user.c see || exit 99
"$RTUTIL" xattr "$T/d1" user.dir yes || exit 99

BASE=$W/base
if ! "$MKFS" -q -s 64M -z 1M -d "$T" "$BASE" >"$W/mkfs.out" 2>&1; then
	echo "1..1"
	echo "not ok 1 - mkfs.gaze -d"
	sed 's/^/# /' "$W/mkfs.out"
	exit 1
fi

# ------------------------------------------------------------------
# Comparison of the extracted tree with the source
# ------------------------------------------------------------------

# which source paths may be missing/differ: prints 1 if allowed
allowed() {	# path policy target
	case $2 in
	keep)	return 1 ;;
	any)	return 0 ;;
	target)	[ -n "$3" ] || return 1
		case "/$1" in "$3" | "$3"/*) return 0 ;; esac
		return 1 ;;
	dir)	[ -n "$3" ] || return 1
		d=${3%/*}
		[ -d "$T$3" ] && d=$3
		case "/$1" in "$d"/*) return 0 ;; esac
		return 1 ;;
	esac
	return 1
}

# "TYPE MODE SHA256-OR-LINK-TARGET PATH" for every entry of a tree
# (the tree's names have no blanks; fsck's lost+found names neither)
listing() {
	(cd "$1" && find . -mindepth 1 -type l -printf 'l %m %l %p\n' &&
	 find . -mindepth 1 ! -type l ! -type f -printf '%y %m - %p\n' &&
	 find . -mindepth 1 -type f -printf 'm %m %p\n' &&
	 find . -mindepth 1 -type f -exec sha256sum {} + |
		awk '{ print "h", $1, $2 }') |
	awk '$1 == "m" { m[$3] = $2; next }
	     $1 == "h" { h[$3] = $2; next }
	     { print }
	     END { for (p in m) print "f", m[p], h[p], p }' |
	sed 's| \./| |' | sort -k4
}

# the differences, "PATH: problem" (no ./), reconnected files (same
# content anywhere under lost+found) not counted
differences() {
	listing "$T" >"$W/src.lst"
	listing "$W/out" >"$W/out.lst"
	awk 'FNR == NR { t[$4] = $1; m[$4] = $2; x[$4] = $3
			 if ($4 ~ /^lost\+found\//) { lf[$3] = 1; nlf++ }; next }
	     {
		p = $4
		if (!(p in t)) {
			if ($1 == "f" && ($3 in lf)) next
			if ($1 == "d" && nlf) next
			print p ": missing"; next
		}
		if (t[p] != $1) { print p ": type " $1 " != " t[p]; next }
		if ($1 == "f" && x[p] != $3) { print p ": content differs"; next }
		if ($1 == "l" && x[p] != $3) { print p ": symlink target differs"; next }
		if ($1 != "l" && m[p] != $2) print p ": mode " $2 " != " m[p]
	     }' "$W/out.lst" "$W/src.lst"
}

compare() {	# policy target ino -> problems on stdout
	differences | while IFS= read -r line; do
		p=${line%%: *}
		if allowed "$p" "$1" "$2"; then
			if [ "$1" = target ] && ! grep -qwF -e "$3" \
			   -e "${2##*/}" "$W/fsck-y.out"; then
				echo "/$line (fsck -y did not name ino $3 or ${2##*/})"
			else
				echo "/$line" >>"$W/allowed.out"
			fi
			continue
		fi
		echo "/$line"
	done
}

# ------------------------------------------------------------------
# The matrix
# ------------------------------------------------------------------
list=${MATRIX_KINDS:-$(printf '%s\n' "$KINDS" | awk 'NF { print $1 }')}
# damage the read-only path goes around before any repair: gazectl
# extracts the whole tree from the damaged image (one bad block never
# makes the rest unreadable: a checkpoint scan goes past a damaged pack,
# a read-only open reads files without the zone info)
READABLE='cp-old-head-zero zinfo-tindex-zero'
readable() { case " $READABLE " in *" $1 "*) return 0 ;; esac; return 1; }
total=1
for k in $list; do
	total=$((total + 5))
	readable "$k" && total=$((total + 1))
done
echo "1..$total"
echo "# seed $SEED (MATRIX_SEED), image made from $T"

# the injector replays: same kind and seed, same bytes
for c in 1 2; do
	cp --sparse=always "$BASE" "$W/det$c"
	"$CORRUPT" "$W/det$c" dirent-dup "$SEED" >"$W/det$c.out" 2>&1
done
if cmp -s "$W/det1" "$W/det2" && ! cmp -s "$W/det1" "$BASE" &&
   cmp -s "$W/det1.out" "$W/det2.out"; then
	tap OK "gaze-corrupt dirent-dup $SEED twice: the same damage"
else
	tap FAIL "gaze-corrupt dirent-dup $SEED twice: the same damage" \
		"$(cat "$W/det1.out" "$W/det2.out")"
fi
rm -f "$W/det1" "$W/det2"

# The repaired image as a tree in $W/out: gazectl extract, or with
# MATRIX_MOUNT=1 (tests/vm/kmod-corrupt.sh, in the guest) mounted
# read-only by gaze.ko through a loop device
if [ -n "${MATRIX_MOUNT:-}" ]; then
	how="mount -t gaze -o ro"
else
	how="gazectl extract"
fi
open_repaired() {
	if [ -z "${MATRIX_MOUNT:-}" ]; then
		"$GAZECTL" extract "$IMG" "$W/out" >"$W/extract.out" 2>&1
		return
	fi
	mkdir -p "$W/out"
	LOOP=$(losetup -f --show "$IMG" 2>"$W/extract.out") &&
		mount -t gaze -o ro "$LOOP" "$W/out" >>"$W/extract.out" 2>&1 &&
		return 0
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	dmesg | tail -n 5 >>"$W/extract.out"
	return 1
}
close_repaired() {
	[ -n "${MATRIX_MOUNT:-}" ] || return 0
	umount "$W/out" && losetup -d "$LOOP"
}

# a fsck run; "$1" the expected exit status, the rest its arguments
run_fsck() {	# want label outfile args...
	want=$1 label=$2 out=$3
	shift 3
	"$FSCK" "$@" >"$out" 2>&1
	rc=$?
	if [ "$rc" = "$want" ]; then
		tap OK "$label (exit $rc)"
		return 0
	fi
	tap FAIL "$label exited $rc, expected $want" "$(tail -n 15 "$out")"
	return 1
}

for k in $list; do
	policy=$(printf '%s\n' "$KINDS" | awk -v k="$k" '$1 == k { print $2 }')
	[ -n "$policy" ] || policy=keep
	IMG=$W/img
	rm -f "$IMG"
	cp --sparse=always "$BASE" "$IMG"
	if ! "$CORRUPT" "$IMG" "$k" "$SEED" >"$W/inject.out" 2>&1; then
		tap FAIL "$k: inject" "$(cat "$W/inject.out")"
		for s in "fsck -n" "fsck -y" "fsck -n again" "compare"; do
			tap FAIL "$k: $s (not run: injection failed)"
		done
		continue
	fi
	tap OK "$k: inject: $(grep "^$k:" "$W/inject.out" | head -n 1 | cut -c1-150)"
	tline=$(sed -n 's/^target: \(.*\) (ino \([0-9]*\))$/\2 \1/p' "$W/inject.out")
	tino=${tline%% *}
	tpath=${tline#* }
	if readable "$k"; then
		rm -rf "$W/out"
		if ! "$GAZECTL" extract "$IMG" "$W/out" >"$W/extract.out" 2>&1; then
			tap FAIL "$k: gazectl extract before the repair failed" \
				"$(tail -n 5 "$W/extract.out")"
		else
			: >"$W/allowed.out"
			compare keep "" "" >"$W/cmp.out"
			if [ -s "$W/cmp.out" ]; then
				tap FAIL "$k: the whole tree readable before the repair" \
					"$(head -n 10 "$W/cmp.out")"
			else
				tap OK "$k: the whole tree readable before the repair"
			fi
		fi
	fi
	run_fsck 4 "$k: fsck.gaze -fn finds it" "$W/fsck-n.out" -fn "$IMG"
	if [ "$policy" = detect ]; then
		# a known limit: -y must say it cannot repair (exit 4, not a
		# crash or 8) and leave the damage findable, nothing worse
		run_fsck 4 "$k: fsck.gaze -fy reports it cannot repair it" \
			"$W/fsck-y.out" -fy "$IMG"
		run_fsck 4 "$k: fsck.gaze -fn still finds it, nothing worse" \
			"$W/fsck-n2.out" -fn "$IMG"
		continue
	fi
	run_fsck 1 "$k: fsck.gaze -fy repairs it" "$W/fsck-y.out" -fy "$IMG"
	if ! run_fsck 0 "$k: fsck.gaze -fn is clean after repair" \
	     "$W/fsck-n2.out" -fn "$IMG"; then
		tap FAIL "$k: compare (not run: image not clean)"
		continue
	fi
	rm -rf "$W/out"
	if ! open_repaired; then
		tap FAIL "$k: compare: $how failed" \
			"$(tail -n 5 "$W/extract.out")"
		continue
	fi
	: >"$W/allowed.out"
	compare "$policy" "$tpath" "$tino" >"$W/cmp.out"
	close_repaired
	if [ -s "$W/cmp.out" ]; then
		tap FAIL "$k: compare ($policy)" "$(head -n 10 "$W/cmp.out")"
	else
		tap OK "$k: compare ($policy)"
	fi
	# what the policy let go, for the record
	if [ -s "$W/allowed.out" ]; then
		echo "# $k: lost by design ($(wc -l <"$W/allowed.out") entries):"
		head -n 5 "$W/allowed.out" | sed 's/^/#   /'
	fi
done

[ "$nfail" = 0 ] || { echo "# $nfail failed"; exit 1; }
exit 0
