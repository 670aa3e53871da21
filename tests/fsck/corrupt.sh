#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# corrupt.sh - hand-made corruptions (tests/fsck/poke rewrites one block
# with a valid checksum, or breaks one): each is found by -n (exit 4,
# nothing written), -p fixes the safe ones (exit 1) and refuses the
# others (exit 4, nothing written), -y repairs (exit 1), and a second -n
# is clean (exit 0).  -n says the same with pass 1 on one thread
# (GAZE_FSCK_ONE_THREAD=1) as on two.  Files that were not damaged keep their content.
. "$(dirname "$0")/lib.sh"

mktree "$T/tree"
BASE=$T/base
mkimage "$BASE" -d "$T/tree"
IMG=$T/img
cp "$BASE" "$IMG"
FILE=$(ino "$BASE" /file)
A=$(ino "$BASE" /a)
C=$(ino "$BASE" /a/b/c)
BIG=$(ino "$BASE" /a/b/big)
MANY=$(ino "$BASE" /many)
FIVEK=$(ino "$BASE" /a/five-k)
[ -n "$FILE" ] && [ -n "$BIG" ] && [ -n "$MANY" ] || fail "inode numbers"
DATA=$("$POKE" "$BASE" data "$BIG") || fail "poke data"

# case NAME PREEN_RC WHAT-TO-GREP POKE-ARGS...
case_()
{
	local name=$1 prc=$2 msg=$3 sum
	shift 3
	cp "$BASE" "$IMG"
	"$POKE" "$IMG" "$@" || fail "$name: poke $*"
	sum=$(sha "$IMG")
	fsck -fn "$IMG"
	expect_rc 4 "$name: -fn"
	expect_out "$msg"
	[ "$(sha "$IMG")" = "$sum" ] || fail "$name: -n wrote"
	# pass 1 on two threads says exactly what one thread says
	cat "$T/out" "$T/err" >"$T/two"
	export GAZE_FSCK_ONE_THREAD=1
	fsck -fn "$IMG"
	unset GAZE_FSCK_ONE_THREAD
	cat "$T/out" "$T/err" >"$T/one"
	cmp -s "$T/one" "$T/two" || fail "$name: -fn differs on one thread"
	fsck -fp "$IMG"
	expect_rc "$prc" "$name: -fp"
	if [ "$prc" -eq 4 ]; then
		expect_out "UNEXPECTED INCONSISTENCY"
		[ "$(sha "$IMG")" = "$sum" ] || fail "$name: refused -p wrote"
		fsck -fy "$IMG"
		expect_rc 1 "$name: -fy"
		expect_out "FILESYSTEM WAS MODIFIED"
	fi
	fsck -fn "$IMG"
	expect_rc 0 "$name: -fn after the repair"
	fsck -fy "$IMG"
	expect_rc 0 "$name: -fy after the repair"
	pass "$name: found, -p exit $prc, repaired, clean afterwards"
}

case_ "wrong link count" 1 "link count 7" inode "$FILE" nlink 7
case_ "wrong block count" 1 "block count 5" inode "$BIG" blocks 5
case_ "wrong '..'" 1 "'..' is" inode "$C" parent "$FILE"
case_ "usage bit cleared" 1 "usage bitmap" usage-flip "$DATA"
case_ "summary entry lost" 1 "summary says none" summary-zero "$DATA"
case_ "zone valid count" 1 "valid count 99" zinfo-valid 0 99
case_ "entry file type" 1 "has file type 2" dirent-type 2 file 2
case_ "size below mapped blocks" 4 "mapped past its size" inode "$BIG" size 10
case_ "entry to a free inode" 4 "not a valid inode" dirent-ino 2 file 60000
case_ "file inode checksum" 4 "checksum mismatch" badcrc "$FIVEK"
case_ "entry dropped: file unlinked" 4 "not linked from any directory" \
	dirent-drop "$A" five-k
case_ "directory inode checksum" 4 "not reachable from the root" badcrc "$A"
case_ "hashed directory inode checksum" 4 "checksum mismatch" badcrc "$MANY"
DNODE=$("$POKE" "$BASE" child "$BIG" 0) || fail "poke child"
case_ "direct node checksum" 4 "direct node $DNODE" badcrc "$DNODE"
IND=$("$POKE" "$BASE" child "$BIG" 2) || fail "poke child"
case_ "indirect node checksum" 4 "indirect node $IND" badcrc "$IND"
BUCKET=$("$POKE" "$BASE" fblk "$MANY" 1024) || fail "poke fblk"
case_ "directory bucket checksum" 4 "block 1024 at" blk-flip "$BUCKET"
case_ "data block used twice" 4 "belongs to node" slot "$FIVEK" 1 "$DATA"
case_ "block outside the main area" 4 "outside the main area" \
	slot "$FIVEK" 1 5

# what a repair keeps: the lost directory's tree is in lost+found, with
# its files' content intact
cp "$BASE" "$IMG"
"$POKE" "$IMG" badcrc "$A" || fail "poke"
fsck -fy "$IMG"
expect_rc 1 "-fy (lost directory)"
"$GAZECTL" ls -R "$IMG" / >"$T/ls" 2>&1 || fail "gazectl ls after repair"
grep -q "^/lost+found/#" "$T/ls" || fail "nothing reconnected in lost+found"
B=$(ino "$BASE" /a/b)
"$GAZECTL" cat "$IMG" "/lost+found/#$B/big" >"$T/big" ||
	fail "cat the reconnected file"
cmp -s "$T/big" "$T/tree/a/b/big" || fail "reconnected file content differs"
"$GAZECTL" cat "$IMG" /file >"$T/f" && cmp -s "$T/f" "$T/tree/file" ||
	fail "an undamaged file changed"
pass "lost subtree reconnected under /lost+found with its data"

# no lost+found: created by the repair
mkimage "$BASE" -O ^lost_found -d "$T/tree"
cp "$BASE" "$IMG"
"$POKE" "$IMG" dirent-drop 2 fifo || fail "poke"
fsck -fy "$IMG"
expect_rc 1 "-fy (no lost+found)"
[ -n "$(ino "$IMG" /lost+found)" ] || fail "lost+found not created"
fsck -fn "$IMG"
expect_rc 0 "-fn after creating lost+found"
pass "lost+found created when missing"
finish
