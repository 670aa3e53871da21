#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkfs.gaze -d with a tree that does not fit.  A failed copy must not
# leave anything that looks like a filesystem: one line naming the cause
# in words (never a raw errno), exit 1, no valid superblock for sbdump,
# fsck.gaze or gazectl, and a later mkfs.gaze without -f does not find
# "a gaze file system" to refuse.  An image the run created is removed.
# Small sparse images; the trees are about 72 MiB of data and 3000 empty
# files.
. "${GAZE_SRCDIR:-$(dirname "$0")/../..}/tests/mkfs/lib.sh"

FSCK=$GAZE_BUILDDIR/fsck/fsck.gaze
IMG=$T/img

# expect_nofit WHAT: one error line "DIR does not fit: ..." and no errno
expect_nofit()
{
	expect_rc 1 "$1"
	expect_err "^mkfs.gaze: $TREE does not fit: the tree needs about .*, the filesystem has .* usable\$"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "$1: not exactly one line"
	grep -q -e '-28' -e 'checkpoint' "$T/err" &&
		fail "$1: raw errno or checkpoint message"
	pass "$1: one line naming the cause, exit 1"
}

# expect_no_fs WHAT: nothing recognises a filesystem on $IMG any more
expect_no_fs()
{
	"$SBDUMP" "$IMG" >/dev/null 2>&1 &&
		fail "$1: sbdump still finds a superblock"
	"$FSCK" -fn "$IMG" >"$T/fsck" 2>&1
	frc=$?
	[ "$frc" -eq 8 ] || fail "$1: fsck.gaze -fn exit $frc, expected 8: $(cat "$T/fsck")"
	grep -q 'no valid superblock' "$T/fsck" ||
		fail "$1: fsck.gaze: $(cat "$T/fsck")"
	if [ -x "$GAZECTL" ]; then
		"$GAZECTL" ls "$IMG" / >/dev/null 2>&1 &&
			fail "$1: gazectl ls still reads a filesystem"
	fi
	# nothing to refuse: no -f needed, and the format is clean
	mkfs -n "$IMG"
	expect_rc 0 "$1: mkfs -n after"
	grep -q 'contains' "$T/err" && fail "$1: mkfs -n still finds: $(cat "$T/err")"
	pass "$1: no superblock for sbdump, fsck.gaze, gazectl or mkfs"
}

# 1. data: three 24 MiB files (allocated zeros) into 64 MiB
TREE=$T/data
mkdir "$TREE"
for n in 1 2 3; do
	head -c 24M /dev/zero >"$TREE/f$n" || fail "cannot make the tree"
done
mkimg "$IMG" 64M
mkfs -d "$TREE" "$IMG"
expect_nofit "72 MiB into 64 MiB"
expect_err "the tree needs about 72\.[0-9]* MiB"
expect_no_fs "72 MiB into 64 MiB"
[ "$(du -k "$IMG" | cut -f1)" -le 64 ] ||
	fail "the failed image still holds $(du -k "$IMG" | cut -f1) KiB"
pass "the failed image is sparse again"

# over an existing filesystem (-f): the old one is gone too, not kept
mkfs -q "$IMG"
expect_rc 0 "format"
is_gaze "$IMG"
mkfs -f -q -d "$TREE" "$IMG"
expect_nofit "72 MiB over an existing filesystem, -q"
expect_no_fs "72 MiB over an existing filesystem"

# 2. inodes: 3000 empty files into 16 MiB (one node block each)
TREE=$T/many
mkdir "$TREE"
(cd "$TREE" && seq 1 3000 | xargs touch) || fail "cannot make the tree"
mkimg "$IMG" 16M
mkfs -d "$TREE" "$IMG"
expect_nofit "3000 files into 16 MiB"
expect_no_fs "3000 files into 16 MiB"

# -vv names the file that did not fit, on one more line
mkfs -f -vv -d "$TREE" "$IMG"
expect_rc 1 "-vv"
expect_err "^mkfs.gaze: out of space while copying $TREE/"
expect_err "^mkfs.gaze: $TREE does not fit: "
pass "-vv: the path that did not fit"

# 3. -s creating the image: a failed run removes it again
mkfs -s 16M -d "$TREE" "$T/new"
expect_nofit "-s new image"
[ -e "$T/new" ] && fail "the failed run left $T/new behind"
pass "-s: the image the failed run created is removed"
# ... but an image that existed stays (erased), with its new size
mkimg "$IMG" 8M
mkfs -s 16M -d "$TREE" "$IMG"
expect_nofit "-s resized image"
[ "$(stat -c %s "$IMG")" -eq 16777216 ] || fail "-s: size $(stat -c %s "$IMG")"
expect_no_fs "-s resized image"

finish
