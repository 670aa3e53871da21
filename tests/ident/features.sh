#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# features.sh - gazectl features on images (tune2fs -O for GAZE): the
# list printed; lazy_summary turned off after overwrites left stale
# summary entries (they are counted and cleared, gazectl dump block marks
# them stale before and none after, and fsck.gaze -fn, which checks for
# stale entries once the feature is off, is clean), then on
# again; compression turned on (gazectl ls and cat still read every
# file); refused, the image untouched: ^compression, a feature only
# mkfs.gaze sets, meta_uuid, a mounted image; an unknown name is a usage
# error (exit 2); a list that changes nothing writes nothing.
. "$(dirname "$0")/lib.sh"

IMG=$T/img
TREE=$T/tree
mkdir -p "$TREE/a"
echo hello >"$TREE/a/file"
head -c 200000 /dev/urandom >"$TREE/a/big"
mkimage "$IMG" -d "$TREE"

# gazectl features lists LIST for the image, fsck.gaze finds it clean
# and /a/file reads; WHAT names the step in a failure
features_are()
{
	gz features "$IMG"
	[ "$(cat "$T/out")" = "$1" ] || fail "$2: $(cat "$T/out")"
	fsck_clean "$IMG"
	"$GAZECTL" cat "$IMG" /a/file | grep -q hello || fail "/a/file $2"
}

gz features "$IMG"
expect_rc 0 "gazectl features"
[ "$(cat "$T/out")" = "lost_found,lazy_summary,prealloc,inline_data,fsync_namespace" ] ||
	fail "default features: $(cat "$T/out")"
gz features --help
expect_rc 0 "gazectl features --help"
grep -q "lazy_summary" "$T/out" || fail "features --help says nothing of lazy_summary"
pass "gazectl features lists the mkfs defaults; --help"

# stale IMAGE: summary entries gazectl dump block marks stale among the
# first 16 blocks of each 16 MiB zone (the logs start there)
stale()
{
	local z a n=0

	for z in $(seq 0 15); do
		for a in $(seq $((z * 4096)) $((z * 4096 + 15))); do
			"$GAZECTL" dump block "$1" "$a" 2>/dev/null |
				grep -q '^  stale: yes$' && n=$((n + 1))
		done
	done
	echo $n
}

"$IDENTUTIL" overwrite "$IMG" || fail "identutil overwrite"
fsck_clean "$IMG"
s0=$(stale "$IMG")
[ "$s0" -gt 0 ] || fail "gazectl dump block shows no stale entry after the overwrites"
gz features "$IMG" ^lazy_summary
expect_rc 0 "features ^lazy_summary"
n=$(sed -n 's/^\([0-9]*\) stale summary entries cleared$/\1/p' "$T/out")
[ -n "$n" ] && [ "$n" -ge 64 ] ||
	fail "^lazy_summary: expected 64 or more entries cleared: $(cat "$T/out")"
gz features "$IMG"
[ "$(cat "$T/out")" = "lost_found,prealloc,inline_data,fsync_namespace" ] ||
	fail "after ^lazy_summary: $(cat "$T/out")"
fsck_clean "$IMG"
[ "$("$GAZECTL" cat "$IMG" /ow | head -c 3)" = eee ] ||
	fail "/ow after ^lazy_summary"
"$GAZECTL" cat "$IMG" /a/big | cmp -s - "$TREE/a/big" ||
	fail "/a/big after ^lazy_summary"
s1=$(stale "$IMG")
[ "$s1" = 0 ] || fail "gazectl dump block still shows $s1 stale entries"
pass "^lazy_summary after overwrites: $n stale entries cleared ($s0 of them marked stale by gazectl dump block, none after), fsck.gaze -fn clean, the files read"

gz features "$IMG" lazy_summary,compression
expect_rc 0 "features lazy_summary,compression"
[ ! -s "$T/out" ] || fail "turning features on printed: $(cat "$T/out")"
features_are "lost_found,lazy_summary,prealloc,inline_data,compression,fsync_namespace" \
	"after lazy_summary,compression"
pass "lazy_summary and compression turned on; fsck.gaze clean, files read"

gz features "$IMG" ^fsync_namespace
expect_rc 0 "features ^fsync_namespace"
features_are "lost_found,lazy_summary,prealloc,inline_data,compression" \
	"after ^fsync_namespace"
gz features "$IMG" fsync_namespace
expect_rc 0 "features fsync_namespace"
features_are "lost_found,lazy_summary,prealloc,inline_data,compression,fsync_namespace" \
	"after fsync_namespace"
pass "fsync_namespace turned off and on again; fsck.gaze clean, files read"

sum=$(sha "$IMG")
for bad in ^compression ^inline_data ^prealloc ^lost_found meta_uuid \
	lazy_summary,^compression; do
	gz features "$IMG" "$bad"
	expect_rc 1 "features $bad"
	[ -s "$T/err" ] || fail "features $bad: no message"
done
expect_err "cannot be turned off: files may hold compressed clusters"
gz features "$IMG" ^inline_data
expect_err "inline_data is chosen by mkfs.gaze"
gz features "$IMG" compression
expect_rc 0 "features compression when it is on"
gz features "$IMG" bogus
expect_rc 2 "features bogus"
expect_err "unknown feature 'bogus'"
cat >"$T/mountinfo" <<EOM
29 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 29 7:0 / /mnt/gaze rw,relatime shared:9 - gaze $IMG rw
EOM
GAZE_TEST_MOUNTINFO=$T/mountinfo gz features "$IMG" ^lazy_summary
expect_rc 1 "features on a mounted image"
expect_err "is mounted on /mnt/gaze"
[ "$(sha "$IMG")" = "$sum" ] || fail "a refused change or no change wrote the image"
pass "refused, the image untouched: ^compression, mkfs-only features, meta_uuid, mounted; unknown name: exit 2; no change: nothing written"
finish
