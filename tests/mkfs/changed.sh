#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkfs.gaze -d on a tree that changes during the copy.  The test build
# (tests/mkfs/mkfs.gaze-hooks, GAZE_TEST_CHANGE=NAME:ACTION, see
# mkfs/populate.c) makes the change at the worst moment, so no race is
# needed: an entry that vanishes is skipped, a file that shrinks is
# copied as it then is, one that grows up to the size it had when
# stat'ed; each prints one warning naming the path, the run succeeds and
# the filesystem is clean.
. "${GAZE_SRCDIR:-$(dirname "$0")/../..}/tests/mkfs/lib.sh"

HOOKS=$GAZE_BUILDDIR/tests/mkfs/mkfs.gaze-hooks
FSCK=$GAZE_BUILDDIR/fsck/fsck.gaze
[ -x "$HOOKS" ] || { echo "$TEST_NAME: $HOOKS not built" >&2; exit 99; }
[ -x "$GAZECTL" ] || { echo "SKIP: no gazectl"; exit 77; }
IMG=$T/img
S=$T/src

# the source, made anew for each run (the hooks change it)
mktree()
{
	rm -rf "$S"
	mkdir -p "$S/dir" "$S/empty-dir"
	head -c 8000 /dev/urandom >"$S/small"		# one read
	head -c 2097152 /dev/urandom >"$S/large"	# ranges
	cp "$S/small" "$T/small.orig"
	cp "$S/large" "$T/large.orig"
	echo keep >"$S/dir/keep"
	ln -s small "$S/link"
}

# change NAME:ACTION: mkfs.gaze-hooks -d with that change; one warning
change()
{
	mktree
	mkimg "$IMG" 64M
	GAZE_TEST_CHANGE=$1 "$HOOKS" -q -d "$S" "$IMG" </dev/null \
		>"$T/out" 2>"$T/err"
	rc=$?
	expect_rc 0 "$1"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "$1: not exactly one warning"
	"$FSCK" -fn "$IMG" >"$T/fsck" 2>&1 ||
		fail "$1: fsck.gaze -fn: $(cat "$T/fsck")"
	"$GAZECTL" cat "$IMG" /dir/keep | grep -q keep ||
		fail "$1: the rest of the tree was not copied"
}

# absent PATH: not in the image
absent()
{
	"$GAZECTL" stat "$IMG" "$1" >/dev/null 2>&1 && fail "$1 was copied"
	return 0
}

# size PATH: its size in the image
size()
{
	"$GAZECTL" stat --json "$IMG" "$1" |
		sed -n 's/.*"size": *\([0-9]*\).*/\1/p'
}

for e in small large empty-dir link; do
	change "$e:gone"
	expect_err "^mkfs.gaze: $S/$e: vanished during the copy; skipped\$"
	absent "/$e"
	pass "$e gone before its stat: skipped with a warning"
done
for e in small large empty-dir link; do
	change "$e:vanish"
	expect_err "^mkfs.gaze: $S/$e: vanished during the copy; skipped\$"
	absent "/$e"
	pass "$e gone after its stat: skipped with a warning"
done

change "small:shrink=100"
expect_err "^mkfs.gaze: $S/small: shrank from 8000 to 100 bytes during the copy; copied as 100 bytes\$"
[ "$(size /small)" = 100 ] || fail "/small is $(size /small) bytes"
"$GAZECTL" cat "$IMG" /small | cmp -s - "$S/small" || fail "/small differs"
pass "a small file that shrank: copied as it is"

change "large:shrink=5000"
expect_err "^mkfs.gaze: $S/large: shrank from 2097152 to 5000 bytes during the copy; copied as 5000 bytes\$"
[ "$(size /large)" = 5000 ] || fail "/large is $(size /large) bytes"
"$GAZECTL" cat "$IMG" /large | cmp -s - "$S/large" || fail "/large differs"
pass "a large file that shrank: copied as it is"

change "small:grow=10"
expect_err "^mkfs.gaze: $S/small: grew from 8000 to 8010 bytes during the copy; copied its first 8000 bytes\$"
"$GAZECTL" cat "$IMG" /small | cmp -s - "$T/small.orig" || fail "/small differs"
pass "a small file that grew: its first 8000 bytes"

change "large:grow=4096"
expect_err "^mkfs.gaze: $S/large: grew from 2097152 to 2101248 bytes during the copy; copied its first 2097152 bytes\$"
"$GAZECTL" cat "$IMG" /large | cmp -s - "$T/large.orig" || fail "/large differs"
pass "a large file that grew: its first 2 MiB"

finish
