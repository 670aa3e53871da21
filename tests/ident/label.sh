#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# label.sh - gazectl label and gazectl uuid on images (both superblock
# copies rewritten in place): label round trips (spaces, non-ASCII, 63
# bytes, empty, a leading '-'), too long a label refused untouched; the
# uuid changed, random, back to the original (the feature meta_uuid set,
# then cleared), bad uuids refused; after each change fsck.gaze -fn is
# clean, gazectl ls -lR lists what it listed before and gazectl extract
# gives back the tree.  Refused, the image untouched: a mounted image
# (GAZE_TEST_MOUNTINFO, a stand-in mount table), an image another
# program holds locked, nodes awaiting roll-forward and a checkpoint
# asking for fsck (accepted after fsck.gaze -p or -y), a bad superblock
# copy (accepted after fsck.gaze -y), a file that is not GAZE.  A crash
# with nothing to roll forward is accepted.
. "$(dirname "$0")/lib.sh"

IMG=$T/img
U0=0b5d7a8e-1c2f-4d3e-9a4b-5c6d7e8f9a0b
U1=c0ffee00-1122-4344-9566-778899aabbcc
TREE=$T/tree
mkdir -p "$TREE/a/b" "$TREE/empty"
echo hello >"$TREE/a/file"
head -c 300000 /dev/urandom >"$TREE/a/b/big"
ln "$TREE/a/file" "$TREE/a/hard"
ln -s a/file "$TREE/sym"
mkimage "$IMG" -O ^lost_found -L orig -U $U0 -d "$TREE"
"$GAZECTL" ls -lR "$IMG" >"$T/ls.before" 2>&1 || fail "gazectl ls -lR"

# intact IMAGE WHAT: fsck clean, the same listing, the tree extracted
intact()
{
	fsck_clean "$1"
	"$GAZECTL" ls -lR "$1" >"$T/ls.after" 2>&1 ||
		fail "$2: gazectl ls -lR: $(cat "$T/ls.after")"
	cmp -s "$T/ls.before" "$T/ls.after" ||
		fail "$2: gazectl ls -lR differs: $(diff "$T/ls.before" "$T/ls.after")"
	rm -rf "$T/x"
	"$GAZECTL" extract "$1" "$T/x" >"$T/x.out" 2>&1 ||
		fail "$2: gazectl extract: $(cat "$T/x.out")"
	diff -r "$TREE" "$T/x" >"$T/x.diff" 2>&1 ||
		fail "$2: extracted tree differs: $(cat "$T/x.diff")"
}

# super_has IMAGE REGEX: both copies' dump super text has a matching line
super_has()
{
	"$GAZECTL" dump super "$1" >"$T/super" 2>&1 || fail "dump super"
	[ "$(grep -c -e "$2" "$T/super")" -eq 2 ] ||
		fail "dump super: not two lines matching '$2': $(cat "$T/super")"
}

# --- label ---------------------------------------------------------
gz label "$IMG"
expect_rc 0 "label"
[ "$(cat "$T/out")" = orig ] || fail "label prints '$(cat "$T/out")'"
pass "label prints the label mkfs.gaze -L gave"

for L in "new label ü" "$(printf 'é%.0s' $(seq 31))x" "-dash" ""; do
	gz label "$IMG" "$L"
	expect_rc 0 "label '$L'"
	[ -s "$T/out" ] || [ -s "$T/err" ] && fail "label '$L' was not silent"
	gz label "$IMG"
	[ "$(cat "$T/out")" = "$L" ] || fail "label '$L' reads back '$(cat "$T/out")'"
	super_has "$IMG" "^  label: "
	intact "$IMG" "label '$L'"
done
grep -q "^  same_as_primary: yes" "$T/super" || fail "the copies differ"
pass "labels with spaces and non-ASCII, 63 bytes, a leading '-', empty: round trip, fsck clean, tree intact"

gz label "$IMG" keep
sum=$(sha "$IMG")
gz label "$IMG" "$(printf 'x%.0s' $(seq 64))"
expect_rc 2 "a 64-byte label"
expect_err "at most 63"
gz label "$IMG" a b
expect_rc 2 "label with two labels"
[ "$(sha "$IMG")" = "$sum" ] || fail "a refused label changed the image"
pass "a 64-byte label and extra arguments: usage errors, image untouched"

# --- uuid ----------------------------------------------------------
gz uuid "$IMG"
[ "$(cat "$T/out")" = $U0 ] || fail "uuid prints '$(cat "$T/out")'"
gz uuid "$IMG" $U1
expect_rc 0 "uuid $U1"
gz uuid "$IMG"
[ "$(cat "$T/out")" = $U1 ] || fail "uuid reads back '$(cat "$T/out")'"
super_has "$IMG" "features: .*meta_uuid"
super_has "$IMG" "meta_uuid: $U0"
intact "$IMG" "uuid $U1"
pass "uuid changed: the feature meta_uuid keeps the uuid mkfs gave, fsck clean, tree intact"

gz uuid "$IMG" random
expect_rc 0 "uuid random"
gz uuid "$IMG"
R=$(cat "$T/out")
case $R in
$U0|$U1) fail "uuid random gave $R" ;;
????????-????-4???-????-????????????) ;;
*) fail "uuid random gave '$R'" ;;
esac
super_has "$IMG" "meta_uuid: $U0"
intact "$IMG" "uuid random"
pass "uuid random: a new version 4 uuid, meta_uuid unchanged"

gz uuid "$IMG" $U0
expect_rc 0 "uuid back to $U0"
super_has "$IMG" "meta_uuid: 00000000-0000-0000-0000-000000000000"
grep -q "features: .*meta_uuid" "$T/super" && fail "meta_uuid still set"
intact "$IMG" "uuid back"
pass "uuid back to the original: the feature meta_uuid cleared"

sum=$(sha "$IMG")
for u in nonsense 0b5d7a8e1c2f4d3e9a4b5c6d7e8f9a0b \
	00000000-0000-0000-0000-000000000000; do
	gz uuid "$IMG" $u
	expect_rc 2 "uuid $u"
done
[ "$(sha "$IMG")" = "$sum" ] || fail "a refused uuid changed the image"
pass "not a uuid, the null uuid: usage errors, image untouched"

# --- refusals --------------------------------------------------------
sum=$(sha "$IMG")
cat >"$T/mountinfo" <<EOM
29 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 29 7:0 / /mnt/gaze rw,relatime shared:9 - gaze $IMG rw
EOM
GAZE_TEST_MOUNTINFO=$T/mountinfo gz label "$IMG" mounted
expect_rc 1 "label on a mounted image"
expect_err "is mounted on /mnt/gaze; unmount it first"
GAZE_TEST_MOUNTINFO=$T/mountinfo gz uuid "$IMG" random
expect_rc 1 "uuid on a mounted image"
expect_err "is mounted on /mnt/gaze"
GAZE_TEST_MOUNTINFO=$T/mountinfo gz label "$IMG"
expect_rc 0 "printing the label of a mounted image"
[ "$(sha "$IMG")" = "$sum" ] || fail "a mounted image was changed"
pass "mounted: label and uuid refused, image untouched; printing works"

if command -v flock >/dev/null 2>&1; then
	flock -x -o "$IMG" "$GAZECTL" label "$IMG" locked </dev/null \
		>"$T/out" 2>"$T/err"
	rc=$?
	expect_rc 1 "label under another program's lock"
	expect_err "in use"
	[ "$(sha "$IMG")" = "$sum" ] || fail "a locked image was changed"
	pass "locked by another program: refused, image untouched"
fi

"$IDENTUTIL" fsync "$IMG" || fail "identutil fsync"
sum=$(sha "$IMG")
gz label "$IMG" unclean
expect_rc 1 "label with nodes awaiting roll-forward"
expect_err "roll-forward; run fsck.gaze first"
[ "$(sha "$IMG")" = "$sum" ] || fail "an unclean image was changed"
"$FSCK" -p "$IMG" >"$T/fsck.out" 2>&1
[ $? -le 1 ] || fail "fsck.gaze -p: $(cat "$T/fsck.out")"
grep -q "replayed 1 nodes" "$T/fsck.out" || fail "fsck.gaze -p replayed nothing"
gz label "$IMG" replayed
expect_rc 0 "label after fsck.gaze -p"
[ "$("$GAZECTL" cat "$IMG" /late)" = "written after the checkpoint" ] ||
	fail "the fsync'd file after the label change"
fsck_clean "$IMG"
pass "nodes awaiting roll-forward: refused (run fsck.gaze first); after fsck.gaze -p, changed, the fsync'd data there"

"$IDENTUTIL" fsck-needed "$IMG" || fail "identutil fsck-needed"
sum=$(sha "$IMG")
gz uuid "$IMG" $U1
expect_rc 1 "uuid with a checkpoint asking for fsck"
expect_err "asks for fsck; run fsck.gaze first"
[ "$(sha "$IMG")" = "$sum" ] || fail "an image asking for fsck was changed"
"$FSCK" -y "$IMG" >"$T/fsck.out" 2>&1
[ $? -le 1 ] || fail "fsck.gaze -y: $(cat "$T/fsck.out")"
gz uuid "$IMG" $U1
expect_rc 0 "uuid after fsck.gaze -y"
fsck_clean "$IMG"
pass "a checkpoint asking for fsck: refused; after fsck.gaze -y, changed"

"$IDENTUTIL" unclean "$IMG" || fail "identutil unclean"
gz label "$IMG" crashed
expect_rc 0 "label after a crash with nothing to roll forward"
fsck_clean "$IMG"
pass "not cleanly unmounted, nothing to roll forward: changed"

printf 'X' | dd of="$IMG" bs=1 seek=1000 conv=notrunc status=none
sum=$(sha "$IMG")
gz label "$IMG" badcopy
expect_rc 1 "label with a bad superblock copy"
expect_err "superblock copy 0 does not verify; run fsck.gaze first"
[ "$(sha "$IMG")" = "$sum" ] || fail "an image with a bad copy was changed"
"$FSCK" -y "$IMG" >"$T/fsck.out" 2>&1
[ $? -le 1 ] || fail "fsck.gaze -y: $(cat "$T/fsck.out")"
gz label "$IMG" fixed
expect_rc 0 "label after fsck.gaze -y"
fsck_clean "$IMG"
pass "a bad superblock copy: refused; after fsck.gaze -y, changed"

truncate -s 64M "$T/zeros"
gz label "$T/zeros" x
expect_rc 1 "label on zeros"
expect_err "not a GAZE filesystem"
gz uuid "$T/zeros"
expect_rc 1 "uuid of zeros"
expect_err "not a GAZE filesystem"
[ -s "$T/zeros" ] && [ -z "$(tr -d '\0' <"$T/zeros" | head -c 1)" ] ||
	fail "zeros were written"
pass "not GAZE: exit 1, nothing written"
finish
