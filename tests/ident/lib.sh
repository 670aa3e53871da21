# SPDX-License-Identifier: GPL-2.0
# lib.sh - sourced by the identity tests (tests/ident/*.sh): gazectl
# probe, label and uuid on image files.
#
# Environment (set by make check): GAZE_BUILDDIR, GAZE_SRCDIR.  Run by hand:
#   GAZE_BUILDDIR=$PWD/build sh tests/ident/label.sh
: "${GAZE_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${GAZE_BUILDDIR:=$GAZE_SRCDIR/build}"
MKFS="$GAZE_BUILDDIR/mkfs/mkfs.gaze"
FSCK="$GAZE_BUILDDIR/fsck/fsck.gaze"
GAZECTL="$GAZE_BUILDDIR/gazectl/gazectl"
IDENTUTIL="$GAZE_BUILDDIR/tests/ident/identutil"
TEST_KIND=ident
NEED="$MKFS $FSCK $GAZECTL $IDENTUTIL"
. "$(dirname "$0")/../common.sh"

# gz ARGS...: runs gazectl; $rc, $T/out, $T/err
gz()
{
	"$GAZECTL" "$@" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	return 0
}

expect_rc()
{
	[ "$rc" -eq "$1" ] || fail "${2:-gazectl}: exit status $rc, expected $1"
}

expect_err()
{
	grep -q -e "$1" "$T/err" || fail "stderr lacks '$1'"
}

# mkimage IMAGE [mkfs.gaze options...]: a 256 MiB image (16 MiB zones)
mkimage()
{
	local img=$1
	shift
	rm -f "$img"
	"$MKFS" -q -s 256M -z 16M "$@" "$img" >"$T/mkfs.out" 2>&1 ||
		fail "mkfs.gaze $*: $(cat "$T/mkfs.out")"
}

sha()
{
	sha256sum "$1" | cut -d' ' -f1
}

# fsck_clean IMAGE: fsck.gaze -fn finds nothing
fsck_clean()
{
	"$FSCK" -fn "$1" >"$T/fsck.out" 2>&1 ||
		fail "fsck.gaze -fn $1: exit $?: $(cat "$T/fsck.out")"
}
