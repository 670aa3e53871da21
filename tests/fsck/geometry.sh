#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# geometry.sh - a device smaller than the filesystem it holds (a 128 MiB
# image cut to 64 MiB with truncate, to one block less, to less than one
# zone) is an error in every mode, -y included: exit 4, one problem
# "[GZ0008 device_too_small]" and the closing count on stdout, nothing on
# stderr, the image untouched, --json "result": "errors".  A device
# larger than the filesystem is fine, as for e2fsck: exit 0, -v says how
# many zones are not used.
. "$(dirname "$0")/lib.sh"

# the tree of the report that found it, when the system has it
SRC=/usr/include/linux
if [ ! -d "$SRC" ]; then
	mktree "$T/tree"
	SRC=$T/tree
fi
FULL=$T/full
"$MKFS" -q -s 128M -d "$SRC" "$FULL" >"$T/mkfs.out" 2>&1 ||
	fail "mkfs.gaze: $(cat "$T/mkfs.out")"
fsck -fn "$FULL"
expect_rc 0 "fsck.gaze -fn (the whole image)"

IMG=$T/img
# cut_to SIZE WHAT: the image cut to SIZE is refused in every mode
cut_to()
{
	local size=$1 what=$2 sum m
	cp "$FULL" "$IMG"
	truncate -s "$size" "$IMG"
	sum=$(sha "$IMG")
	for m in "" -n -fn -p -a -fp -y -fy -fyv; do
		fsck $m "$IMG"
		expect_rc 4 "fsck.gaze $m (cut to $size)"
		expect_out "^\[GZ0008 device_too_small\] the device is smaller than the filesystem: $what"
		[ "$(grep -c '^\[GZ' "$T/out")" -eq 1 ] ||
			fail "$m (cut to $size): not exactly one problem"
		expect_out "^$IMG: 1 problem found, 0 fixed, 1 left"
		[ -s "$T/err" ] && fail "$m (cut to $size): stderr not empty"
		[ "$(sha "$IMG")" = "$sum" ] || fail "$m (cut to $size) wrote"
	done
	pass "cut to $size: exit 4 in every mode, one GZ0008 line, nothing written"
	$HAVE_PYTHON || return 0
	fsck -fy --json "$IMG"
	expect_rc 4 "fsck.gaze -fy --json (cut to $size)"
	json_is result errors exit_code 4 problems 1 problems_fixed 0 \
		problems_remaining 1
	python3 - "$T/out" <<'PY' || fail "--json problems_list (cut to $size)"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["problems_list"]
assert len(p) == 1 and p[0]["code"] == "GZ0008" and \
    p[0]["name"] == "device_too_small" and p[0]["preen"] is False, p
PY
	pass "cut to $size: --json says errors, GZ0008 device_too_small"
}

cut_to 64M "it holds 16 of the 32 zones the superblock records (64 of 128 MiB)"
cut_to $((128 * 1024 * 1024 - 4096)) "it holds 31 of the 32 zones"
cut_to 1M "1048576 bytes, less than one zone of 4 MiB"

# larger: fine, like e2fsck; the zones past the filesystem are not used
cp "$FULL" "$IMG"
truncate -s 200M "$IMG"
fsck -fn "$IMG"
expect_rc 0 "fsck.gaze -fn (grown to 200 MiB)"
[ -s "$T/err" ] && fail "grown: stderr not empty"
fsck -fnv "$IMG"
expect_rc 0 "fsck.gaze -fnv (grown to 200 MiB)"
expect_out "the device has 18 zones past the filesystem's 32; they are not used"
fsck -fy "$IMG"
expect_rc 0 "fsck.gaze -fy (grown to 200 MiB)"
pass "a larger device is fine: exit 0, -v names the unused zones"
finish
