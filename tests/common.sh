# SPDX-License-Identifier: GPL-2.0
# common.sh - the part every shell test library shares (tests/*/lib.sh
# source it): the tree's locations, a scratch directory removed at exit,
# and the TAP helpers.  Before sourcing, a lib.sh sets TEST_KIND (the
# scratch directory's prefix, gaze-KIND-TEST.XXXXXX) and NEED (the
# programs the tests run; exit 99 when one is not built).
#
# Sets GAZE_SRCDIR, GAZE_BUILDDIR (from make check, else this tree and
# its build/), TEST_NAME, T; defines
#   fail MSG    "FAIL: TEST: MSG" with $T/out and $T/err, exit 1
#   pass MSG    "ok N - MSG"
#   finish      the TAP plan, exit 0
set -u

: "${GAZE_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${GAZE_BUILDDIR:=$GAZE_SRCDIR/build}"
TEST_NAME=$(basename "$0" .sh)

for _p in ${NEED:-}; do
	[ -x "$_p" ] || { echo "$TEST_NAME: $_p not built" >&2; exit 99; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/gaze-$TEST_KIND-$TEST_NAME.XXXXXX") ||
	{ echo "$TEST_NAME: cannot make a temp dir" >&2; exit 99; }
trap 'rm -rf "$T"' EXIT
unset GAZE_TEST_MOUNTINFO

NCHECKS=0

fail()
{
	echo "FAIL: $TEST_NAME: $*" >&2
	if [ -s "$T/out" ]; then echo "--- stdout:" >&2; cat "$T/out" >&2; fi
	if [ -s "$T/err" ]; then echo "--- stderr:" >&2; cat "$T/err" >&2; fi
	exit 1
}

pass()
{
	NCHECKS=$((NCHECKS + 1))
	echo "ok $NCHECKS - $*"
}

finish()
{
	echo "1..$NCHECKS"
	exit 0
}
