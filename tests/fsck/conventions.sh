#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# conventions.sh - what fsck.gaze shares with e2fsck and fsck(8):
#   - an unknown, ambiguous or misused option is named in one line on
#     stderr, exit 16; with --json the object says so too;
#   - -C FD, -CFD and -C alone: fsck(8)'s lines "pass cur max device" on
#     FD (passes 1 to 3 in order, cur never past max, each pass ending
#     at max), a completion bar on stdout for 0, nothing for a negative
#     FD until SIGUSR1, a closed FD a usage error;
#   - no mode option checks only (as -n): exit 4 on a damaged image and
#     not a byte written;
#   - problems carry their table code ("[GZ0225 inode_nlink]") in the
#     transcript and --json, and the JSON counts are the transcript's:
#     as many problems as "[GZ" lines, found, fixed and left as the
#     closing line says, with -n, -p and -y.
. "$(dirname "$0")/lib.sh"

IMG=$T/img
mktree "$T/tree"
mkimage "$IMG" -d "$T/tree"

# usage errors: the option named, one line, exit 16
usage_err()	# WHAT ARGS...
{
	local what=$1
	shift
	fsck "$@"
	expect_rc 16 "fsck.gaze $*"
	expect_err "^fsck.gaze: $what; try 'fsck.gaze --help'$"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "$*: not one line on stderr"
	[ -s "$T/out" ] && fail "$*: a usage error wrote to stdout"
	pass "'$*': $what, exit 16"
}
usage_err "unknown option '--foo'" --foo "$IMG"
usage_err "unknown option '--foo'" -n --foo=bar "$IMG"
usage_err "unknown option '-Q'" -fQ "$IMG"
usage_err "ambiguous option '--ver'" --ver "$IMG"
usage_err "option '--json' takes no argument" --json=yes "$IMG"
usage_err "-C takes a file descriptor number, not 'x'" -Cx "$IMG"
usage_err "-C 57: file descriptor 57 is not open" -C 57 "$IMG"
usage_err "no device or image given" -n
if $HAVE_PYTHON; then
	fsck --json --foo "$IMG"
	expect_rc 16 "fsck.gaze --json --foo"
	json_is result error exit_code 16 device null
	json_has error "unknown option '--foo'"
	pass "a usage error with --json: the JSON object names the option"
fi

# -C: fsck(8)'s progress lines, in every spelling
progress_ok()	# FILE
{
	awk -v dev="$IMG" '
	NF != 4 || $4 != dev || $1 !~ /^[123]$/ || $2 > $3 { bad = 1 }
	$1 < pass { bad = 1 }
	$1 != pass { if (pass && !done) bad = 1; pass = $1; done = 0 }
	{ done = ($2 == $3) }
	END { exit bad || pass != 3 || !done }' "$1" ||
		fail "progress lines: $(head -n 3 "$1")"
}
fsck -f -C 3 "$IMG" 3>"$T/prog"
expect_rc 0 "fsck.gaze -f -C 3"
progress_ok "$T/prog"
[ "$(grep -c '^1 ' "$T/prog")" -gt 100 ] || fail "-C 3: few pass 1 lines"
grep -q '|' "$T/out" && fail "-C 3 drew a bar on stdout"
cp "$T/prog" "$T/prog.sep"
fsck -fC3 "$IMG" 3>"$T/prog"
expect_rc 0 "fsck.gaze -fC3"
cmp -s "$T/prog" "$T/prog.sep" || fail "-C3 and -C 3 differ"
fsck "$IMG" -f -C 3 3>"$T/prog"
expect_rc 0 "fsck.gaze IMAGE -f -C 3"
cmp -s "$T/prog" "$T/prog.sep" || fail "-C 3 after the image differs"
pass "-C 3, -C3, -C 3 after the image: fsck(8)'s lines, passes 1-3"
fsck -f -C -3 "$IMG" 3>"$T/prog"
expect_rc 0 "fsck.gaze -f -C -3"
[ -s "$T/prog" ] && fail "-C -3 wrote progress before SIGUSR1"
pass "-C -3: no progress until SIGUSR1"
for c in "-C 0" "-C0" "-C"; do
	fsck -f $c "$IMG"
	expect_rc 0 "fsck.gaze -f $c"
	grep -q "$IMG: |=*  *.*%" "$T/out" || fail "$c: no bar on stdout"
	tr '\r' '\n' <"$T/out" | grep -q "100.0%" || fail "$c: no 100%"
	tail -n 1 "$T/out" | grep -q "^$IMG: .* inodes" ||
		fail "$c: the summary is not the last line"
done
pass "-C 0, -C0, -C: a completion bar on stdout, cleared before the summary"
if $HAVE_PYTHON; then
	fsck -f -C 0 --json "$IMG" 3>"$T/prog"
	json_is result clean
	fsck -f -C 3 --json "$IMG" 3>"$T/prog"
	json_is result clean
	progress_ok "$T/prog"
	pass "--json: no bar with -C 0 (the JSON parses), lines with -C 3"
fi

# no mode option (-f only, as the image was cleanly unmounted): check
# only, nothing written
NLINK=$(ino "$IMG" /file)
"$POKE" "$IMG" inode "$NLINK" nlink 9 || fail "poke"
sum=$(sha "$IMG")
fsck -f "$IMG"
expect_rc 4 "fsck.gaze -f without a mode (damaged)"
expect_out "^\[GZ0225 inode_nlink\] inode $NLINK: link count 9, counted 2$"
expect_out "^$IMG: 1 problem found, 0 fixed, 1 left (check only: nothing changed)$"
[ "$(sha "$IMG")" = "$sum" ] || fail "a run without a mode wrote"
pass "no mode option: checks only (exit 4, nothing written)"

# the JSON counts are the transcript's, with the table's codes
"$POKE" "$IMG" inode "$(ino "$IMG" /a/five-k)" blocks 77 || fail "poke"
BIG=$(ino "$IMG" /a/b/big)
"$POKE" "$IMG" inode "$BIG" size 1 || fail "poke"
agree()	# MODE: the text run and the --json run of a copy agree
{
	local m=$1 a b
	cp "$IMG" "$T/a"
	cp "$IMG" "$T/b"
	fsck -f"$m" "$T/a"
	a=$rc
	sed "s|$T/a|IMG|g" "$T/out" >"$T/text"
	fsck -f"$m" --json "$T/b"
	b=$rc
	[ "$a" -eq "$b" ] || fail "-f$m: exit $a, with --json $b"
	sed -i "s|$T/b|IMG|g" "$T/out"
	python3 - "$T/out" "$T/text" "$a" <<'PY' || fail "-f$m: --json disagrees with the transcript"
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()
assert d["exit_code"] == int(sys.argv[3]), d["exit_code"]
# the transcript, line for line (the inode summary included)
assert d["messages"] == text, (d["messages"], text)
gz = [l for l in text if l.startswith("[GZ")]
assert d["problems"] == len(gz) == len(d["problems_list"]) > 0, d
for l, p in zip(gz, d["problems_list"]):
    assert l == "[%s %s] %s" % (p["code"], p["name"], p["message"]), (l, p)
m = [re.match(r"IMG: (\d+) problems? found, (\d+) fixed, (\d+) left", l)
     for l in text]
m = [x for x in m if x]
assert len(m) == 1, text
found, fixed, left = map(int, m[0].groups())
assert (found, fixed, left) == (d["problems"], d["problems_fixed"],
                                d["problems_remaining"]), (m[0].groups(), d)
unsafe = sum(1 for p in d["problems_list"] if not p["preen"])
assert d["problems_unsafe"] == unsafe, d
PY
	pass "-f$m: --json has the transcript's lines, codes and counts (exit $a)"
}
if $HAVE_PYTHON; then
	agree n
	agree p
	agree y
fi
finish
