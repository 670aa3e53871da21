#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [options] [TEST...] - runs fstests (xfstests) against GAZE in the
# project's QEMU guest (tests/vm/run-guest.sh, 6.1 or GAZE_KVER): two
# zoned NVMe namespaces, TEST_DEV=/dev/nvme0n1 and SCRATCH_DEV=/dev/nvme0n2,
# FSTYP=gaze; mkfs -t gaze and fsck -t gaze (which fstests calls with -n)
# find this build's mkfs.gaze and fsck.gaze.  Not part of make check: it
# takes hours for a whole group under emulation.
#
#   FSTESTS_DIR  an fstests tree (required).  fstests is not part of
#                GAZE; get it from https://github.com/kdave/xfstests
#                (or git://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git).
#                run.sh builds it (make) when it is not built.  Building
#                and running it needs, on Debian 12:
#                  apt-get install xfslibs-dev uuid-dev libtool-bin
#                  e2fsprogs automake gcc libuuid1 quota attr acl make
#                  libacl1-dev libaio-dev xfsprogs libgdbm-dev gawk fio
#                  dbench uuid-runtime python3 sqlite3 liburing-dev bc
#                  psmisc
#   TEST...      tests or ./check arguments (default: the sample, every
#                tenth test of the generic quick group, and generic/366);
#                e.g. "-- -g quick" (after "--": ./check's options) or
#                generic/001 generic/366
#   -f FSTYP     the filesystem: gaze (default), or ext4 to measure the
#                same tests on a filesystem fstests knows well (ext4
#                cannot use zoned devices: -r is implied)
#   -r           regular (not zoned) namespaces (gaze then emulates zones)
#   -x FILE      exclude the tests listed in FILE (one a line, "#" starts
#                a comment; default tests/fstests/exclude-gaze, for gaze
#                only)
#   -X           exclude nothing
#   -t SECS      wall-clock limit of the guest (default 7200)
#   -z MB        size of each namespace (default 2048)
#   -Z MIB       zone size (default 32)
#   -o DIR       output (default $GAZE_BUILDDIR/fstests-out): DIR/results
#                holds fstests' results (check.log, per-test .full, .bad,
#                .dmesg), DIR/summary the counts, DIR/console.log the guest
# Environment: GAZE_BUILDDIR (default build/, configured and built),
# GAZE_KVER (guest kernel; its headers build gaze.ko).
# Exit: 0 when no test failed, 1 when one did, 2 on set-up errors.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
usage() { sed -n 4,41p "$0"; exit 2; }
EXCL=default TMO=7200 ZMB=2048 ZONE=32 OUTD= FSTYP=gaze REGULAR=
while getopts f:rx:Xt:z:Z:o:h opt; do
	case $opt in
	f) FSTYP=$OPTARG ;; r) REGULAR=-r ;;
	x) EXCL=$(readlink -f "$OPTARG") ;; X) EXCL= ;;
	t) TMO=$OPTARG ;; z) ZMB=$OPTARG ;; Z) ZONE=$OPTARG ;;
	o) OUTD=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
case $FSTYP in
gaze) [ "$EXCL" != default ] || EXCL=$SRC/tests/fstests/exclude-gaze ;;
ext4) REGULAR=-r; [ "$EXCL" != default ] || EXCL= ;;
*) echo "run.sh: -f $FSTYP: gaze or ext4" >&2; usage ;;
esac
[ -n "${FSTESTS_DIR:-}" ] || { echo "run.sh: set FSTESTS_DIR to an fstests tree" >&2; usage; }
FSTESTS_DIR=$(readlink -f "$FSTESTS_DIR")
[ -x "$FSTESTS_DIR/check" ] || { echo "run.sh: $FSTESTS_DIR has no ./check" >&2; exit 2; }
if [ ! -x "$FSTESTS_DIR/ltp/fsstress" ] || [ ! -x "$FSTESTS_DIR/src/godown" ]; then
	echo "run.sh: building fstests in $FSTESTS_DIR"
	make -C "$FSTESTS_DIR" -j"$(nproc)" >"$FSTESTS_DIR/build.log" 2>&1 ||
		{ echo "run.sh: make in $FSTESTS_DIR failed ($FSTESTS_DIR/build.log; packages: see run.sh -h)" >&2; exit 2; }
fi
if [ $# -eq 0 ]; then
	# the default sample: every tenth test of generic/quick, and 366
	set -- $(cd "$FSTESTS_DIR" &&
		for f in tests/generic/[0-9][0-9][0-9]; do
			grep -q '_begin_fstest.*\bquick\b' "$f" && echo "${f#tests/}"
		done | awk 'NR % 10 == 1 || $0 == "generic/366"')
fi
export GAZE_SRCDIR=$SRC
export GAZE_BUILDDIR=${GAZE_BUILDDIR:-$SRC/build}
. "$SRC/tests/vm/lib.sh"
vm_init fstests
for p in mkfs/mkfs.gaze fsck/fsck.gaze gazectl/gazectl; do
	[ -x "$BUILD/$p" ] || { echo "run.sh: $BUILD/$p is not built" >&2; exit 2; }
done
[ -n "$OUTD" ] || OUTD=$BUILD/fstests-out
rm -rf "$OUTD"
mkdir -p "$OUTD" && OUTD=$(readlink -f "$OUTD")
# the module's copy is the run's own: runs at once do not share one
vm_kmod "$OUTD/kmod" || exit 2
# the guest runs copies: a rebuild on the host cannot pull them away
mkdir -p "$OUTD/sbin"
cp "$BUILD/mkfs/mkfs.gaze" "$BUILD/fsck/fsck.gaze" "$BUILD/gazectl/gazectl" \
	"$OUTD/kmod/gaze.ko" "$OUTD/sbin/" || exit 2
ENVS=(-e GAZE_BUILDDIR="$BUILD" -e GAZE_SRCDIR="$SRC" -e KO="$OUTD/sbin/gaze.ko"
      -e GZ_SBIN="$OUTD/sbin"
      -e FSTESTS_DIR="$FSTESTS_DIR" -e GZ_FSTYP="$FSTYP" -e "GZ_TESTS=$*")
if [ -n "$EXCL" ]; then
	grep -o '^[^#[:space:]]\+' "$EXCL" >"$OUTD/exclude" 2>/dev/null || :
	ENVS+=(-e GZ_EXCLUDE="$OUTD/exclude")
fi
echo "run.sh: fstests $(git -C "$FSTESTS_DIR" describe --always 2>/dev/null) on $FSTYP, $# argument(s), output in $OUTD"
start=$(date +%s)
"$SRC/tests/vm/run-guest.sh" -o "$OUTD" -t "$TMO" -m 3G -z "$ZMB" -y "$ZMB" -Z "$ZONE" $REGULAR \
	-x "$SRC" -x "$BUILD" -x "$FSTESTS_DIR" "${ENVS[@]}" "$SRC/tests/fstests/guest.sh"
grc=$?
secs=$(($(date +%s) - start))
LOG=$OUTD/results/check.log
{
	echo "fstests $(git -C "$FSTESTS_DIR" rev-parse --short HEAD 2>/dev/null), FSTYP=$FSTYP, kernel ${GAZE_KVER:-newest}, ${ZMB} MiB namespaces, $([ -n "$REGULAR" ] && echo "not zoned" || echo "${ZONE} MiB zones"), guest exit $grc, ${secs} s"
	sed -n '/^Ran:\|^Not run:\|^Failures:\|^Failed \|^Passed /p' "$OUTD/check.out" 2>/dev/null
	# per test: notrun files, .out.bad / fsck failures, the rest passed
	R=$OUTD/results
	tests=$(sed -n 's/^\([a-z0-9]*\/[0-9][0-9]*\) .*/\1/p' "$OUTD/check.out" 2>/dev/null | sort -u)
	pass=0 fail=0 notrun=0 inc=0 expunged=0
	for t in $tests; do
		if grep -qE "^$t +\[expunged\]" "$OUTD/check.out"; then
			expunged=$((expunged + 1))	# in the exclude file
		elif ! grep -qE "^$t +[^ ]" "$OUTD/check.out"; then
			# no verdict: the guest stopped during this test
			inc=$((inc + 1))
			echo "  incomplete: $t"
		elif [ -f "$R/$t.notrun" ]; then
			notrun=$((notrun + 1))
			echo "  not run: $t: $(cat "$R/$t.notrun")"
		elif grep -qE "^$t .*(output mismatch|\[failed|inconsistent)" "$OUTD/check.out" ||
		     [ -f "$R/$t.out.bad" ] || [ -f "$R/$t.dmesg" ]; then
			fail=$((fail + 1))
			echo "  failed: $t"
		else
			pass=$((pass + 1))
		fi
	done
	echo "passed $pass, failed $fail, not run $notrun, incomplete $inc, excluded $expunged"
} >"$OUTD/summary"
cat "$OUTD/summary"
[ -s "$LOG" ] || echo "run.sh: no $LOG (console: $OUTD/console.log)"
grep -q '^Failures:' "$OUTD/check.out" 2>/dev/null && exit 1
if ! grep -qE '^[a-z0-9]+/[0-9]+ ' "$OUTD/check.out" 2>/dev/null; then
	echo "run.sh: fstests ran no test (console: $OUTD/console.log)" >&2
	exit 1
fi
[ "$grc" -eq 0 ] || exit 1
exit 0
