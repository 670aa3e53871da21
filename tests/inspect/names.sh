#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# names.sh - names that are not printable UTF-8, in gazectl's output.  A
# tree of hostile names (newline, escape sequences, C1 controls, bytes
# that are not UTF-8, and the UTF-8 name those bytes used to be printed
# as) goes into an image with mkfs.gaze -d; then:
#
#  - human output (ls, ls -l, ls -R, stat, dump dir, dump super, extract
#    -v, error messages) holds no control character but the newline
#    ending each row, and only valid UTF-8; one row per entry; printable
#    names are printed as they are, the others quoted in GNU ls's
#    shell-escape style, which bash reads back as the exact name;
#  - JSON output (ls, ls -R, stat, dump dir, dump super, fsck.gaze) parses;
#    a UTF-8 name is a plain string, a name that is not UTF-8 has U+FFFD
#    for its bad bytes and a NAME_hex member with its bytes, so every name
#    is recovered exactly and no two names look alike;
#  - extract recreates every name exactly.
#
# Needs python3; the bash read-back checks skip without bash.
set -u

: "${GAZE_BUILDDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
MKFS=$GAZE_BUILDDIR/mkfs/mkfs.gaze
GAZECTL=$GAZE_BUILDDIR/gazectl/gazectl
FSCK=$GAZE_BUILDDIR/fsck/fsck.gaze

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is needed to check the output"
	exit 77
fi
PY=$(python3 -c 'import sys; print(sys.executable)') || exit 99

W=$(mktemp -d "${TMPDIR:-/tmp}/gaze-names.XXXXXX") || exit 99
trap 'rm -rf "$W"' EXIT
T=$W/tree
n=0
nfail=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n - $*"; }

check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}

# clean FILE: no control byte but newline, valid UTF-8, no C1 control,
# bidirectional control or line separator
clean() {
	"$PY" - "$1" <<'PYEOF'
import sys
b = open(sys.argv[1], 'rb').read()
bad = [c for c in b if c < 0x20 and c != 0x0a or c == 0x7f]
try:
    s = b.decode('utf-8')
except UnicodeDecodeError as e:
    sys.exit('not UTF-8: %s' % e)
bad += [c for c in s if 0x80 <= ord(c) < 0xa0 or ord(c) in
        (0x061c, 0x200e, 0x200f, 0x2028, 0x2029) or
        0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069]
if bad:
    sys.exit('control characters: %r' % bad)
PYEOF
}

# ------------------------------------------------------------------
mkdir "$T" || exit 99
for nm in 'a\nb' '\033[31mred' 'bad\377\376utf8' 'bad\303\277\303\276utf8' \
	  "it's\\t" 'plain name' 'caf\303\251' '\302\233c1' 'rlo\342\200\256txt' \
	  'cr\r' 'del\177'; do
	# shellcheck disable=SC2059
	f=$(printf "$nm.")
	: >"$T/${f%.}" || exit 99
done
d=$(printf '\033]0;owned\007dir.')
mkdir "$T/${d%.}" || exit 99
f=$(printf 'in\377side\n.')
echo x >"$T/${d%.}/${f%.}" || exit 99
t=$(printf 'tgt\033[2J\377.')
ln -s "${t%.}" "$T/lnk" || exit 99
L=$(printf 'lab\377\033el')
# the names as python sees them (bytes, hex), for the JSON checks
NAMES=$W/names.hex
"$PY" -c '
import os, sys
for n in sorted(os.listdir(sys.argv[1].encode())):
    print(n.hex())' "$T" >"$NAMES" || exit 99

IMG=$W/img
"$MKFS" -q -s 128M -L "$L" -O ^lost_found -d "$T" "$IMG" || exit 99
NENT=$(wc -l <"$NAMES")

# --- human output -------------------------------------------------------
"$GAZECTL" ls "$IMG" >"$W/ls" 2>&1
check "ls exits 0" [ $? = 0 ]
check "ls prints no control character and only UTF-8" clean "$W/ls"
check "ls prints one row per entry ($NENT)" [ "$(wc -l <"$W/ls")" = "$NENT" ]
check "ls prints printable names as they are" \
	grep -qx "plain name" "$W/ls"
check "ls prints UTF-8 names as they are" \
	grep -qx "$(printf 'caf\303\251')" "$W/ls"
check "ls prints the UTF-8 name ÿþ as it is" \
	grep -qx "$(printf 'bad\303\277\303\276utf8')" "$W/ls"
check "ls quotes a newline" grep -qxF "'a'\$'\\n''b'" "$W/ls"
check "ls quotes bytes that are not UTF-8" \
	grep -qxF "'bad'\$'\\377\\376''utf8'" "$W/ls"
check "ls quotes an escape sequence" grep -qxF "\$'\\033''[31mred'" "$W/ls"
check "ls quotes a quote next to a tab" grep -qxF "'it'\\''s'\$'\\t'" "$W/ls"

# each command with @ for the image, DEST for a new directory
for c in "ls -l @" "ls -R @" "ls -lR @" "stat @ /lnk" "dump dir @ /" \
	 "dump super @" "extract -v @ DEST"; do
	# shellcheck disable=SC2046
	"$GAZECTL" $(echo "$c" | sed "s|@|$IMG|; s|DEST|$W/xv|") >"$W/out" 2>&1
	rc=$?
	if [ $rc = 0 ] && clean "$W/out"; then
		ok "$c: exit 0, no control character, only UTF-8"
	else
		bad "$c exited $rc or printed what a terminal must not see"
	fi
done
"$GAZECTL" ls -l "$IMG" >"$W/ll" 2>&1
check "ls -l prints one row per entry" [ "$(wc -l <"$W/ll")" = "$NENT" ]
check "ls -l quotes the symlink target" \
	grep -qF "lnk -> 'tgt'\$'\\033''[2J'\$'\\377'" "$W/ll"
"$GAZECTL" dump super "$IMG" >"$W/super"
check "dump super quotes the label" \
	grep -qxF "  label: 'lab'\$'\\377\\033''el'" "$W/super"

# error messages name the path quoted
"$GAZECTL" stat "$IMG" "$(printf '/no\033[2Jsuch')" >/dev/null 2>"$W/err"
check "stat of a missing hostile path exits 1" [ $? = 1 ]
check "its message quotes the path" clean "$W/err"
check "its message names the path" \
	grep -qF "'/no'\$'\\033''[2Jsuch': " "$W/err"

# bash reads the quoted names back as the exact bytes
if command -v bash >/dev/null 2>&1; then
	# shellcheck disable=SC2016
	# a quoted name holds a $'...' part; the others are the name
	# shellcheck disable=SC2016
	bash -c 'while IFS= read -r l; do
		case $l in
		*"\$'\''"*) eval "printf %s $l" ;;
		*) printf %s "$l" ;;
		esac | od -An -tx1 | tr -d " \n"
		echo
	done' <"$W/ls" | sort >"$W/ls.hex"
	sort "$NAMES" >"$W/names.sorted"
	check "bash reads every name ls prints back to its bytes" \
		cmp -s "$W/ls.hex" "$W/names.sorted"
else
	n=$((n + 1))
	echo "ok $n - # SKIP bash is needed to read the names back"
fi

# --- JSON ------------------------------------------------------------------
"$GAZECTL" ls --json "$IMG" >"$W/ls.json"
check "ls --json exits 0" [ $? = 0 ]
"$PY" - "$W/ls.json" "$NAMES" >"$W/py.out" 2>&1 <<'PYEOF'
import json, sys
raw = open(sys.argv[1], 'rb').read()
assert all(c >= 0x20 for c in raw[:-1]), 'raw control byte in the JSON'
d = json.loads(raw.decode('utf-8'))
want = sorted(bytes.fromhex(l.strip()) for l in open(sys.argv[2]))

def name(e, k):
    if k + '_hex' in e:
        b = bytes.fromhex(e[k + '_hex'])
        assert e[k] == b.decode('utf-8', 'replace'), e
        try:
            b.decode('utf-8')
            raise AssertionError('%s_hex for a UTF-8 name: %r' % (k, e))
        except UnicodeDecodeError:
            pass
        return b
    return e[k].encode('utf-8')

got = sorted(name(e, 'name') for e in d)
assert got == want, (got, want)
for e in d:
    assert name(e, 'path') == b'/' + name(e, 'name'), e
bad = [e for e in d if e['name'].startswith('bad')]
assert len(bad) == 2 and bad[0]['name'] != bad[1]['name'], bad
assert len([e for e in bad if 'name_hex' in e]) == 1, bad
lnk = [e for e in d if e['name'] == 'lnk'][0]
assert lnk['target'] == 'tgt\x1b[2J\ufffd', lnk
assert bytes.fromhex(lnk['target_hex']) == b'tgt\x1b[2J\xff', lnk
PYEOF
check "ls --json: every name and symlink target recovered exactly" \
	[ $? = 0 ]
sed 's/^/# /' "$W/py.out"

"$GAZECTL" ls -R --json "$IMG" >"$W/lsr.json"
check "ls -R --json exits 0" [ $? = 0 ]
check "ls -R --json: the path through a hostile directory is exact" \
	"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = [bytes.fromhex(e["path_hex"]) for e in d if "path_hex" in e]
assert b"/\x1b]0;owned\x07dir/in\xffside\n" in p, p' "$W/lsr.json"

"$GAZECTL" dump dir --json "$IMG" / >"$W/dir.json"
check "dump dir --json: the names recovered exactly" \
	"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted(bytes.fromhex(e["name_hex"]) if "name_hex" in e
             else e["name"].encode() for e in d["entries"])
want = sorted(bytes.fromhex(l.strip()) for l in open(sys.argv[2]))
assert got == want, (got, want)' "$W/dir.json" "$NAMES"

"$GAZECTL" stat --json "$IMG" /lnk >"$W/stat.json"
check "stat --json: target_hex holds the target" \
	"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert bytes.fromhex(d["target_hex"]) == b"tgt\x1b[2J\xff", d' "$W/stat.json"

"$GAZECTL" dump super --json "$IMG" >"$W/super.json"
check "dump super --json: label_hex holds the label" \
	"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert bytes.fromhex(d["primary"]["label_hex"]) == b"lab\xff\x1bel", d' \
	"$W/super.json"

"$FSCK" -fn --json "$IMG" >"$W/fsck.json"
check "fsck.gaze --json on the image parses and says clean" \
	"$PY" -c '
import json, sys
assert json.load(open(sys.argv[1]))["result"] == "clean"' "$W/fsck.json"

# --- extract ------------------------------------------------------------------
"$GAZECTL" extract "$IMG" "$W/x" 2>"$W/err"
check "extract exits 0" [ $? = 0 ]
check "extract recreates every name exactly" "$PY" -c '
import os, sys
def walk(top):
    out = []
    for root, dirs, files in os.walk(top):
        for n in dirs + files:
            out.append(os.path.relpath(os.path.join(root, n), top))
    return sorted(out)
a, b = walk(sys.argv[1].encode()), walk(sys.argv[2].encode())
assert a == b, (a, b)
assert os.readlink(os.path.join(sys.argv[2].encode(), b"lnk")) == \
    b"tgt\x1b[2J\xff"' "$T" "$W/x"

echo "1..$n"
if [ "$nfail" != 0 ]; then
	echo "# $nfail failed"
	exit 1
fi
exit 0
