#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# -n computes and prints everything and writes nothing.
. "${GAZE_SRCDIR:-$(dirname "$0")/../..}/tests/mkfs/lib.sh"

IMG=$T/img

mkimg "$IMG" 32M
printf 'data' | dd of="$IMG" bs=1 seek=5000000 conv=notrunc 2>/dev/null
sum=$(sha "$IMG")
mkfs -n -L dry "$IMG"
expect_rc 0 "-n"
expect_out "dry run: nothing written"
expect_out "Usable capacity:"
expect_out "Label: *dry"
is_untouched "$IMG" "$sum"
pass "-n on an image writes nothing"

# the same layout as a real format
mkfs -n -z 2M -o 7 "$IMG"
grep -v -e '^mkfs.gaze' -e '^UUID:' "$T/out" >"$T/dry"
mkfs -f -z 2M -o 7 "$IMG"
expect_rc 0 "format after -n"
grep -v -e '^mkfs.gaze' -e '^UUID:' "$T/out" >"$T/real"
cmp -s "$T/dry" "$T/real" || fail "dry run and format print different layouts"
pass "-n prints the layout the format uses"

# over an existing GAZE: still nothing written
sum=$(sha "$IMG")
mkfs -n "$IMG"
expect_rc 0 "-n over GAZE"
is_untouched "$IMG" "$sum"
pass "-n over GAZE writes nothing"

# with -s: the image is neither created nor resized, and the stand-in
# used for the geometry is removed
mkdir "$T/tmp"
TMPDIR=$T/tmp mkfs -n -s 1G "$T/new"
expect_rc 0 "-n -s new"
expect_out "1.00 GiB"
[ -e "$T/new" ] && fail "-n -s created the image"
TMPDIR=$T/tmp mkfs -n -f -s 64M "$IMG"
expect_rc 0 "-n -s resize"
expect_out "64.00 MiB"
[ "$(stat -c %s "$IMG")" -eq 33554432 ] || fail "-n -s resized the image"
is_untouched "$IMG" "$sum"
[ -z "$(ls -A "$T/tmp")" ] || fail "stand-in left in TMPDIR"
pass "-n -s creates and resizes nothing"

finish
