#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# refuse.sh - usage errors exit 16 writing nothing, with one line on
# stderr; a device mounted read-write is refused (exit 8) in every mode;
# mounted read-only only -n runs (through GAZE_TEST_MOUNTINFO, a
# stand-in mount table); files that are not GAZE give exit 8.  With
# --json each refusal still prints its JSON object.
. "$(dirname "$0")/lib.sh"

IMG=$T/img
mkimage "$IMG"
sum=$(sha "$IMG")

for args in "" "-n -y $IMG" "-p -y $IMG" "-Q $IMG" "$IMG $IMG" "-Cx $IMG"; do
	fsck $args
	expect_rc 16 "fsck.gaze $args"
	expect_err "; try 'fsck.gaze --help'$"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$args': not one line on stderr"
	[ -s "$T/out" ] && fail "usage error wrote to stdout"
	pass "usage error: '$args' exits 16"
done
fsck --help
expect_rc 0 "--help"
expect_out "Usage: fsck.gaze"
fsck --version
expect_rc 0 "--version"
expect_out "fsck.gaze"
pass "--help and --version"

cat >"$T/mountinfo" <<EOM
29 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 29 7:0 / /mnt/gaze rw,relatime shared:9 - gaze $IMG rw
EOM
for m in -n -fn -p -y; do
	GAZE_TEST_MOUNTINFO=$T/mountinfo fsck $m "$IMG"
	expect_rc 8 "fsck.gaze $m on a read-write mount"
	expect_err "is mounted read-write on /mnt/gaze"
	pass "read-write mount refused with $m"
done
if $HAVE_PYTHON; then
	GAZE_TEST_MOUNTINFO=$T/mountinfo fsck -fy --json "$IMG"
	expect_rc 8 "fsck.gaze -fy --json on a read-write mount"
	json_is result error exit_code 8
	json_has error "is mounted read-write on /mnt/gaze"
	pass "read-write mount refused with --json: a JSON object says why"
fi
sed -i 's|/mnt/gaze rw,relatime|/mnt/gaze ro,relatime|' "$T/mountinfo"
for m in -p -y -fy; do
	GAZE_TEST_MOUNTINFO=$T/mountinfo fsck $m "$IMG"
	expect_rc 8 "fsck.gaze $m on a read-only mount"
	expect_err "only -n is allowed"
	pass "read-only mount refused with $m"
done
GAZE_TEST_MOUNTINFO=$T/mountinfo fsck -fn "$IMG"
expect_rc 0 "fsck.gaze -fn on a read-only mount"
pass "read-only mount checked with -n"
[ "$(sha "$IMG")" = "$sum" ] || fail "a refused run modified the image"
pass "image untouched by refused runs"

truncate -s 64M "$T/zero"
fsck -fn "$T/zero"
expect_rc 8 "fsck.gaze on zeros"
expect_err "no valid superblock"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "zeros: not one line on stderr"
pass "not a GAZE filesystem: exit 8"
fsck -fn "$T/missing"
expect_rc 8 "fsck.gaze on a missing file"
pass "missing device: exit 8"
if $HAVE_PYTHON; then
	fsck -fn --json "$T/zero"
	expect_rc 8 "fsck.gaze --json on zeros"
	json_is result error exit_code 8 problems 0
	json_has error "no valid superblock"
	pass "not a GAZE filesystem with --json: a JSON object says why"
	fsck -fn --json "$T/missing"
	expect_rc 8 "fsck.gaze --json on a missing file"
	json_is result error exit_code 8 device "$T/missing"
	json_has error "cannot open"
	pass "missing device with --json: a JSON object says why"
fi
finish
