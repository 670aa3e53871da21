#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# features.sh - an incompatible feature this version does not know
# makes every reader refuse, writing nothing: incompat bit 40 set on an
# image by tests/corrupt/gaze-corrupt, then fsck.gaze in every mode
# (exit 8, the bit named), gazectl ls and extract (exit 1).  An unknown
# compat feature: fsck.gaze refuses it too (a checker must know what it
# verifies, as e2fsck does), gazectl ls reads the image.  mkfs.gaze's
# refusal of unknown features is in tests/mkfs/options.sh.
. "$(dirname "$0")/lib.sh"

CORRUPT=$GAZE_BUILDDIR/tests/corrupt/gaze-corrupt
GAZECTL=$GAZE_BUILDDIR/gazectl/gazectl
[ -x "$CORRUPT" ] || fail "$CORRUPT is not built"
IMG=$T/img
mkimage "$IMG"
"$CORRUPT" "$IMG" sb-incompat-unknown >"$T/inject" 2>&1 ||
	fail "gaze-corrupt sb-incompat-unknown: $(cat "$T/inject")"
sum=$(sha "$IMG")
for m in -fn -p -fy; do
	fsck $m "$IMG"
	expect_rc 8 "fsck.gaze $m with incompat bit 40 set"
	expect_err "unsupported incompatible features"
	expect_err "incompat_bit40"
	[ "$(sha "$IMG")" = "$sum" ] || fail "fsck.gaze $m changed the image"
	pass "fsck.gaze $m refuses the unknown incompat feature"
done
for cmd in "ls" "extract"; do
	rm -rf "$T/x"
	if [ "$cmd" = extract ]; then
		"$GAZECTL" extract "$IMG" "$T/x" >"$T/out" 2>"$T/err"
	else
		"$GAZECTL" ls "$IMG" >"$T/out" 2>"$T/err"
	fi
	rc=$?
	[ $rc -eq 1 ] || fail "gazectl $cmd exited $rc, expected 1"
	grep -q incompat_bit40 "$T/err" || fail "gazectl $cmd does not name the feature: $(cat "$T/err")"
	pass "gazectl $cmd refuses the unknown incompat feature"
done
[ "$(sha "$IMG")" = "$sum" ] || fail "a refusal changed the image"

mkimage "$IMG"
"$CORRUPT" "$IMG" sb-compat-unknown >"$T/inject" 2>&1 ||
	fail "gaze-corrupt sb-compat-unknown: $(cat "$T/inject")"
sum=$(sha "$IMG")
for m in -fn -fy; do
	fsck $m "$IMG"
	expect_rc 8 "fsck.gaze $m with compat bit 40 set"
	expect_err "unsupported features"
	expect_err "compat_bit40"
	[ "$(sha "$IMG")" = "$sum" ] || fail "fsck.gaze $m changed the image"
	pass "fsck.gaze $m refuses the unknown compat feature"
done
"$GAZECTL" ls "$IMG" >"$T/out" 2>"$T/err" ||
	fail "gazectl ls refused an unknown compat feature: $(cat "$T/err")"
pass "gazectl ls reads an image with an unknown compat feature"
finish
