#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Refusals that -f cannot override: mounted device, too small, a geometry
# the format cannot use, bad operands.  Each exits 1 with one line naming
# the device, and leaves the image byte for byte as it was.
. "${GAZE_SRCDIR:-$(dirname "$0")/../..}/tests/mkfs/lib.sh"

IMG=$T/img

# expect_refused WHAT PATTERN: exit 1, one stderr line with the pattern
expect_refused()
{
	expect_rc 1 "$1"
	expect_err "^mkfs.gaze: .*$2"
	[ "$(grep -c '^mkfs.gaze: ' "$T/err")" -eq 1 ] ||
		fail "$1: expected one 'mkfs.gaze:' line"
	[ -s "$T/out" ] && fail "$1: refusal wrote to stdout"
	is_untouched "$IMG" "$sum"
	pass "$1: refused (exit 1), image untouched"
}

# a mounted image: refused always, even with -f
mkimg "$IMG" 32M
printf 'x' | dd of="$IMG" bs=1 seek=100000 conv=notrunc 2>/dev/null
sum=$(sha "$IMG")
cat >"$T/mountinfo" <<EOM
22 1 0:21 / /proc rw,nosuid - proc proc rw
29 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 29 7:0 / /mnt/gaze rw,relatime shared:9 - gaze $IMG rw
EOM
GAZE_TEST_MOUNTINFO=$T/mountinfo mkfs "$IMG"
expect_refused "mounted" "$IMG: is mounted on /mnt/gaze; will not make a filesystem here"
GAZE_TEST_MOUNTINFO=$T/mountinfo mkfs -f "$IMG"
expect_refused "mounted, -f" "is mounted"
GAZE_TEST_MOUNTINFO=$T/mountinfo mkfs_yes "$IMG"
expect_refused "mounted, yes |" "is mounted"
GAZE_TEST_MOUNTINFO=$T/mountinfo mkfs -n "$IMG"
expect_refused "mounted, -n" "is mounted"
# listed through a symlink / relative path still matches
ln -s "$IMG" "$T/link"
GAZE_TEST_MOUNTINFO=$T/mountinfo mkfs -f "$T/link"
expect_refused "mounted, via symlink" "is mounted"
# not mounted when the table does not list it
sed -i '$d' "$T/mountinfo"
GAZE_TEST_MOUNTINFO=$T/mountinfo mkfs -n "$IMG"
expect_rc 0 "not listed in mountinfo"
pass "unlisted image is not mounted"

# too small
mkimg "$IMG" 8M
sum=$(sha "$IMG")
mkfs "$IMG"
expect_refused "8 MiB device" "too small"
mkfs -f -z 1M "$IMG"
expect_refused "8 MiB device, 1 MiB zones" "too small"
mkimg "$IMG" 100K
sum=$(sha "$IMG")
mkfs -f "$IMG"
expect_refused "100 KiB device" "device too small: 100.00 KiB cannot hold one zone"
mkimg "$IMG" 0
sum=$(sha "$IMG")
mkfs -f "$IMG"
expect_refused "empty file" "device too small"

# too few open zones
mkimg "$IMG" 32M
sum=$(sha "$IMG")
mkfs -f --max-open 3 "$IMG"
expect_refused "--max-open 3" "3 open zones"
mkfs -f --max-open 1 "$IMG"
expect_refused "--max-open 1" "open zone"

# too few zones for the logs and the GC reserve: 11 zones leave 7 data
# zones, fewer than the 8 the format needs
mkimg "$IMG" 11M
sum=$(sha "$IMG")
mkfs -f -z 1M "$IMG"
expect_refused "too few data zones" "device too small"

# -s refuses to shrink without -f
mkimg "$IMG" 32M
sum=$(sha "$IMG")
mkfs -s 16M "$IMG"
expect_refused "-s shrink without -f" "will not shrink"
[ "$(stat -c %s "$IMG")" -eq 33554432 ] || fail "-s shrank the image"
# -s with a size too small for the format: the image keeps its size
mkfs -f -s 8M "$IMG"
expect_refused "-s too small" "too small"
[ "$(stat -c %s "$IMG")" -eq 33554432 ] || fail "refused -s resized the image"
# ... and a new image is not left behind
mkfs -s 8M "$T/never"
expect_rc 1 "-s too small, new file"
[ -e "$T/never" ] && fail "refused -s left $T/never behind"
pass "-s too small creates nothing"

# operands that are not devices
mkfs "$T/missing"
expect_rc 1 "missing device"
expect_err "^mkfs.gaze: $T/missing: No such file or directory"
pass "missing device"
mkfs -f "$T"
expect_rc 1 "directory as device"
expect_err "not a block device or regular file"
pass "directory as device"
mkfs -f -d "$T/missing-dir" "$IMG"
expect_refused "-d missing dir" "No such file or directory"
mkfs -f -d "$IMG" "$IMG"
expect_refused "-d not a directory" "not a directory"

finish
