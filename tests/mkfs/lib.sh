# SPDX-License-Identifier: GPL-2.0
# lib.sh - sourced by the mkfs.gaze tests (tests/mkfs/*.sh).
#
# Environment (set by make check): GAZE_BUILDDIR, GAZE_SRCDIR.  Run by hand:
#   GAZE_BUILDDIR=$PWD/build sh tests/mkfs/options.sh
: "${GAZE_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${GAZE_BUILDDIR:=$GAZE_SRCDIR/build}"
MKFS="$GAZE_BUILDDIR/mkfs/mkfs.gaze"
SBDUMP="$GAZE_BUILDDIR/tests/mkfs/sbdump"
GAZECTL="$GAZE_BUILDDIR/gazectl/gazectl"
TEST_KIND=mkfs
NEED="$MKFS $SBDUMP"
. "$(dirname "$0")/../common.sh"

# mkfs ARGS...: runs mkfs.gaze with stdin from /dev/null; $rc, $T/out, $T/err
mkfs()
{
	"$MKFS" "$@" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	return 0
}

# mkfs_in INPUT ARGS...: same, with INPUT (a string) on stdin via a pipe
mkfs_in()
{
	local input=$1
	shift
	printf '%s' "$input" | "$MKFS" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	return 0
}

# mkfs_yes ARGS...: `yes |` as fstests does
mkfs_yes()
{
	yes 2>/dev/null | "$MKFS" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	return 0
}

expect_rc()
{
	[ "$rc" -eq "$1" ] || fail "${2:-mkfs.gaze}: exit status $rc, expected $1"
}

expect_out()
{
	grep -q -e "$1" "$T/out" || fail "stdout lacks '$1'"
}

expect_err()
{
	grep -q -e "$1" "$T/err" || fail "stderr lacks '$1'"
}

# usage error: exit 2, the hint, and one message line before it
expect_usage()
{
	expect_rc 2 "$1"
	expect_err "Try 'mkfs.gaze --help'."
	[ "$(wc -l <"$T/err")" -eq 2 ] || fail "$1: usage error is not exactly two lines"
	[ -s "$T/out" ] && fail "$1: usage error wrote to stdout"
	pass "$1: usage error (exit 2)"
}

# sparse image of SIZE
mkimg()
{
	rm -f "$1"
	truncate -s "$2" "$1" || fail "cannot create $1"
}

# sb IMAGE FIELD: a superblock field (both copies verified by sbdump)
sb()
{
	"$SBDUMP" "$1" >"$T/sb" 2>"$T/sb.err" ||
		fail "sbdump $1: $(cat "$T/sb.err")"
	sed -n "s/^$2=//p" "$T/sb"
}

expect_sb()
{
	local v
	v=$(sb "$1" "$2")
	[ "$v" = "$3" ] || fail "superblock $2 is '$v', expected '$3'"
}

sha()
{
	sha256sum "$1" | cut -d' ' -f1
}

# is_gaze IMAGE: a valid GAZE superblock (and, with gazectl, a readable root)
is_gaze()
{
	"$SBDUMP" "$1" >/dev/null 2>"$T/sb.err" ||
		fail "$1 is not a valid GAZE image: $(cat "$T/sb.err")"
	if [ -x "$GAZECTL" ]; then
		"$GAZECTL" ls "$1" / >"$T/ls" 2>&1 ||
			fail "gazectl ls $1: $(cat "$T/ls")"
	fi
}

# is_untouched IMAGE SHA: the image's content did not change
is_untouched()
{
	[ "$(sha "$1")" = "$2" ] || fail "$1 was modified by a refused run"
}

