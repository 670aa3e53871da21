#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mounted.sh - mkfs.gaze refuses a really mounted device, whatever the
# options: an ext4 image attached to a loop device and mounted; mkfs.gaze
# on the loop device and on the backing image file (with -f, and with
# `yes |`) must exit 1 naming the mount point, and leave the data alone.
# Needs root and loop devices (CI has both); exits 77 (skip) without them.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "$TEST_NAME: needs root (skipped)"; exit 77; }
command -v losetup >/dev/null && command -v mke2fs >/dev/null ||
	{ echo "$TEST_NAME: needs losetup and mke2fs (skipped)"; exit 77; }

IMG=$T/ext4.img
MNT=$T/mnt
mkimg "$IMG" 64M
mke2fs -q -F -t ext4 "$IMG" || fail "mke2fs"
LOOP=$(losetup -f --show "$IMG" 2>/dev/null) ||
	{ echo "$TEST_NAME: no loop device (skipped)"; exit 77; }
mkdir "$MNT"
if ! mount "$LOOP" "$MNT" 2>/dev/null; then
	losetup -d "$LOOP"
	echo "$TEST_NAME: cannot mount ext4 here (skipped)"
	exit 77
fi
trap 'umount "$MNT" 2>/dev/null; losetup -d "$LOOP" 2>/dev/null; rm -rf "$T"' EXIT
echo data >"$MNT/keep" && sync
before=$(sha256sum <"$LOOP" | cut -d' ' -f1)

for target in "$LOOP" "$IMG"; do
	mkfs -f "$target"
	expect_rc 1 "mkfs.gaze -f $target while mounted"
	expect_err "is mounted on $MNT"
	pass "-f on mounted $target refused"
	mkfs_yes "$target"
	expect_rc 1 "yes | mkfs.gaze $target while mounted"
	pass "yes | on mounted $target refused"
	mkfs -n "$target"
	expect_rc 1 "mkfs.gaze -n $target while mounted"
	pass "-n on mounted $target refused"
done

after=$(sha256sum <"$LOOP" | cut -d' ' -f1)
[ "$before" = "$after" ] || fail "the mounted device changed"
[ "$(cat "$MNT/keep")" = data ] || fail "the mounted filesystem lost a file"
pass "mounted device untouched"
echo "1..$NCHECKS"
