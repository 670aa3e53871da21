#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Image files are locked (flock(2), never waiting): mkfs.gaze holds an
# exclusive lock for its whole run (a dry run a shared one), fsck.gaze
# -p/-y an exclusive one, fsck.gaze -n and gazectl shared ones.  While
# another process holds a conflicting lock they refuse, exit with their
# failure status, and write nothing.  flock(1) from util-linux holds the
# lock here: "flock -o" keeps it in flock itself, not in the child.
. "${GAZE_SRCDIR:-$(dirname "$0")/../..}/tests/mkfs/lib.sh"

command -v flock >/dev/null 2>&1 || { echo "SKIP: no flock(1)"; exit 77; }
FSCK=$GAZE_BUILDDIR/fsck/fsck.gaze
IMG=$T/img

# held MODE CMD...: runs CMD while another process holds a MODE lock
held()
{
	local mode=$1
	shift
	flock "$mode" -o "$IMG" "$@" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
}

expect_busy()
{
	expect_rc "$1" "$2"
	expect_err "$3: $IMG: in use"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "$2: not exactly one line"
	is_untouched "$IMG" "$sum"
	pass "$2: refused, image untouched"
}

mkimg "$IMG" 32M
mkfs -q "$IMG"
expect_rc 0 "format"
sum=$(sha "$IMG")

# mkfs.gaze: refused under either lock, -n only under an exclusive one
held -x "$MKFS" -f "$IMG"
expect_busy 1 "mkfs under an exclusive lock" "mkfs.gaze"
held -s "$MKFS" -f "$IMG"
expect_busy 1 "mkfs under a shared lock" "mkfs.gaze"
held -x "$MKFS" -n "$IMG"
expect_busy 1 "mkfs -n under an exclusive lock" "mkfs.gaze"
held -s "$MKFS" -n "$IMG"
expect_rc 0 "mkfs -n under a shared lock"
is_untouched "$IMG" "$sum"
pass "mkfs -n beside a reader"
mkdir "$T/tree"
echo data >"$T/tree/file"
held -x "$MKFS" -f -s 64M -d "$T/tree" "$IMG"
expect_busy 1 "mkfs -s -d under an exclusive lock" "mkfs.gaze"
[ "$(stat -c %s "$IMG")" -eq 33554432 ] || fail "the refused -s resized the image"

# fsck.gaze: a repair under either lock, a check under an exclusive one
held -x "$FSCK" -fy "$IMG"
expect_busy 8 "fsck -y under an exclusive lock" "fsck.gaze"
held -s "$FSCK" -fp "$IMG"
expect_busy 8 "fsck -p under a shared lock" "fsck.gaze"
held -x "$FSCK" -fn "$IMG"
expect_busy 8 "fsck -n under an exclusive lock" "fsck.gaze"
held -s "$FSCK" -fn "$IMG"
expect_rc 0 "fsck -n under a shared lock"
pass "fsck -n beside a reader"

# gazectl reads beside readers, not beside a writer
if [ -x "$GAZECTL" ]; then
	held -x "$GAZECTL" ls "$IMG" /
	expect_busy 1 "gazectl ls under an exclusive lock" "gazectl"
	held -s "$GAZECTL" ls "$IMG" /
	expect_rc 0 "gazectl ls under a shared lock"
	pass "gazectl beside a reader"
fi

# mkfs.gaze holds its lock while it works: the test build runs a repair
# and a second mkfs in the middle of its copy (GAZE_TEST_CHANGE run=)
HOOKS=$GAZE_BUILDDIR/tests/mkfs/mkfs.gaze-hooks
if [ -x "$HOOKS" ]; then
	GAZE_TEST_CHANGE="file:run=$FSCK -fy $IMG >$T/inner 2>&1; echo \$? >$T/inner.rc; $MKFS -f $IMG >>$T/inner 2>&1; echo \$? >>$T/inner.rc" \
		"$HOOKS" -f -d "$T/tree" "$IMG" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	expect_rc 0 "mkfs -d with a repair and a mkfs started inside"
	[ "$(tr '\n' ' ' <"$T/inner.rc")" = "8 1 " ] ||
		fail "inside mkfs: fsck -fy and mkfs exited $(tr '\n' ' ' <"$T/inner.rc")"
	grep -q "^fsck.gaze: $IMG: in use" "$T/inner" ||
		fail "inside mkfs: $(cat "$T/inner")"
	grep -q "^mkfs.gaze: $IMG: in use" "$T/inner" ||
		fail "inside mkfs: $(cat "$T/inner")"
	is_gaze "$IMG"
	pass "fsck -y and mkfs refused while mkfs -d runs"
fi

# the lock ends with the run
mkfs -f -d "$T/tree" "$IMG"
expect_rc 0 "mkfs -d once the lock is free"
is_gaze "$IMG"
flock -n -x "$IMG" true || fail "mkfs.gaze left the image locked"
pass "the lock ends with the run"

finish
