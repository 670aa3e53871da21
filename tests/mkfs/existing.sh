#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An existing filesystem or partition table (libblkid) or GAZE superblock:
# refused without -f, unless the answer to "Proceed anyway? (y/N)" on
# standard input is yes; -f overrides; refusals write nothing.
. "${GAZE_SRCDIR:-$(dirname "$0")/../..}/tests/mkfs/lib.sh"

IMG=$T/img

# check_existing NAME SETUP-FUNCTION "contains ..."
check_existing()
{
	name=$1
	setup=$2
	what=$3

	mkimg "$IMG" 32M
	$setup
	sum=$(sha "$IMG")

	mkfs "$IMG"
	expect_rc 1 "$name, no input"
	expect_err "^mkfs.gaze: $IMG: contains $what; not overwriting it"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "$name: no input: not one line"
	is_untouched "$IMG" "$sum"
	pass "$name: refused with no input, untouched"

	mkfs_in "n
" "$IMG"
	expect_rc 1 "$name, echo n"
	expect_err "^mkfs.gaze: $IMG contains $what$"
	expect_err "Proceed anyway? (y/N)"
	is_untouched "$IMG" "$sum"
	pass "$name: 'n' refuses, untouched"

	mkfs_in "" "$IMG"
	expect_rc 1 "$name, EOF"
	is_untouched "$IMG" "$sum"
	pass "$name: end of input refuses, untouched"

	mkfs_in "yesss
" "$IMG"
	expect_rc 1 "$name, garbage answer"
	is_untouched "$IMG" "$sum"
	pass "$name: other answers refuse, untouched"

	mkfs -n "$IMG"
	expect_rc 0 "$name, dry run"
	expect_err "contains $what"
	is_untouched "$IMG" "$sum"
	pass "$name: dry run reports it, untouched"

	mkfs_yes "$IMG"
	expect_rc 0 "$name, yes |"
	is_gaze "$IMG"
	pass "$name: yes | proceeds"

	$setup
	mkfs_in "y
" "$IMG"
	expect_rc 0 "$name, echo y"
	is_gaze "$IMG"
	pass "$name: 'y' proceeds"

	$setup
	mkfs -f "$IMG"
	expect_rc 0 "$name, -f"
	is_gaze "$IMG"
	pass "$name: -f proceeds"
}

setup_ext4()
{
	dd if=/dev/zero of="$IMG" bs=1M count=1 conv=notrunc 2>/dev/null
	mke2fs -F -q -t ext4 "$IMG" >/dev/null 2>&1 || fail "mke2fs failed"
}

setup_gpt()
{
	dd if=/dev/zero of="$IMG" bs=1M count=1 conv=notrunc 2>/dev/null
	printf 'label: gpt\n,16M,L\n' | sfdisk -q "$IMG" >/dev/null 2>&1 ||
		fail "sfdisk failed"
}

setup_gaze()
{
	"$MKFS" -f -q "$IMG" </dev/null || fail "first format failed"
}

PATH=$PATH:/sbin:/usr/sbin
command -v mke2fs >/dev/null || { echo "mke2fs missing (e2fsprogs)" >&2; exit 99; }
command -v sfdisk >/dev/null || { echo "sfdisk missing (fdisk)" >&2; exit 99; }

check_existing ext4 setup_ext4 "a ext4 file system"
check_existing gpt setup_gpt "a gpt partition table"
check_existing gaze setup_gaze "a gaze file system"

# a GAZE image whose primary superblock is gone still has the copy in zone 1
mkimg "$IMG" 32M
setup_gaze
dd if=/dev/zero of="$IMG" bs=4096 count=1 conv=notrunc 2>/dev/null
sum=$(sha "$IMG")
mkfs "$IMG"
expect_rc 1 "secondary superblock only"
expect_err "contains a gaze file system"
is_untouched "$IMG" "$sum"
pass "secondary superblock alone is detected"

# reformatting over GAZE gives a new, valid filesystem
mkfs -f -L again "$IMG"
expect_rc 0 "reformat"
expect_sb "$IMG" label again
pass "reformat over GAZE with -f"

finish
