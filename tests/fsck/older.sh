#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# older.sh - fsck.gaze -b 1 checks, and with -y rolls back to, the
# checkpoint before the newest (which the two-generation rule keeps
# whole), like e2fsck -b with a backup superblock: the newest
# checkpoint's counters damaged with a valid checksum
# (tests/corrupt/gaze-corrupt cp-valid-inodes) are a problem for -fn,
# -fn -b 1 finds the previous checkpoint clean and writes nothing, -fy
# -b 1 commits the roll-back (exit 1) with no pack of the dropped
# checkpoint left, and the tree is all there; -b 2 is a usage error.
. "$(dirname "$0")/lib.sh"

CORRUPT=$GAZE_BUILDDIR/tests/corrupt/gaze-corrupt
GAZECTL=$GAZE_BUILDDIR/gazectl/gazectl
[ -x "$CORRUPT" ] || fail "$CORRUPT is not built"
IMG=$T/img
mkimage "$IMG"
"$GAZECTL" ls -R "$IMG" >"$T/before" 2>&1 || fail "gazectl ls -R on a fresh image"
"$CORRUPT" "$IMG" cp-valid-inodes >"$T/inject" 2>&1 ||
	fail "gaze-corrupt cp-valid-inodes: $(cat "$T/inject")"
newest=$("$GAZECTL" dump cp --json "$IMG" | python3 -c 'import json,sys; print(json.load(sys.stdin)["current_seq"])')
sum=$(sha "$IMG")

fsck -b 2 "$IMG"
expect_rc 16 "-b 2"
expect_err "takes 0"
pass "-b 2 is a usage error"

fsck -fn "$IMG"
expect_rc 4 "-fn on the damaged newest checkpoint"
pass "the newest checkpoint's damage is found"

fsck -fn -b 1 "$IMG"
expect_rc 0 "-fn -b 1"
expect_out "the one before the newest (seq $newest)"
[ "$(sha "$IMG")" = "$sum" ] || fail "-fn -b 1 wrote to the image"
pass "-fn -b 1 checks the previous checkpoint, clean, nothing written"

fsck -fy -b 1 "$IMG"
expect_rc 1 "-fy -b 1"
expect_out "GZ0017 cp_rollback"
fsck -fn "$IMG"
expect_rc 0 "-fn after the roll-back"
"$GAZECTL" dump cp --json "$IMG" | python3 -c '
import json, sys
d = json.load(sys.stdin)
seqs = [p["seq"] for z in d["zones"] for p in z["packs"]]
assert int(sys.argv[1]) not in seqs, seqs
assert d["current_seq"] > int(sys.argv[1]), d["current_seq"]
' "$newest" || fail "a pack of the dropped checkpoint $newest is left"
"$GAZECTL" ls -R "$IMG" >"$T/after" 2>&1 || fail "gazectl ls -R after the roll-back"
cmp -s "$T/before" "$T/after" || fail "the tree differs after the roll-back"
pass "-fy -b 1 rolls back: clean, the dropped checkpoint gone, the tree intact"
finish
