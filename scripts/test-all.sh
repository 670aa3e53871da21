#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-all.sh - the whole test suite, from a fresh Debian 12 checkout:
#   1. install the dependencies (scripts/setup-deps.sh)
#   2. autogen; build/ with --enable-werror; make; make check
#   3. build-k612/: the VM tests of step 2 again, booting Debian 12's
#      6.12 kernel with a gaze.ko built for it (GAZE_KVER=6.12; the
#      case lists of kmod-corrupt and kmod-hostile are shared out
#      between steps 2 and 3, and kmod-bigdir, kmod-geom and kmod-gc
#      are lighter here)
#   4. build-asan/ with --enable-werror --enable-asan --enable-ubsan
#      --disable-fuzz-tests; make; make check (the VM tests, which boot
#      guests, run in steps 2 and 3 only: GAZE_VM_TESTS=skip here and
#      in step 6; the fuzzers, sanitized whatever the build, in step 2
#      only; test_geom's geometries are shared out between steps 2 and
#      4, GAZE_TEST_SHARE)
#   5. build-tsan/ with --enable-werror --enable-tsan --disable-fuzz-tests;
#      make; tests/stress/stress-tsan.sh alone (gaze-stress, 8 workers and
#      2 readers outside its lock, under ThreadSanitizer)
#   6. make distcheck (from build/; configured --disable-long-tests:
#      the tarball builds everything and runs every test but the long
#      ones steps 2 and 4 ran)
#   7. the shared core built into gaze.ko by Kbuild (W=1) against the
#      Debian 12 kernel headers of 6.1 and of 6.12; any warning fails
#      (the VM tests of steps 2 and 3 build it so: their logs are
#      checked, and it is built here only where they did not)
# Every step runs even when an earlier one failed (except where it needs
# the earlier one).  The last line is "N passed, N failed": test results
# summed over the four builds' test-suite.log (PASS and XFAIL passed; FAIL,
# ERROR and XPASS failed), with each failed step that is not a test run
# (configure, make, distcheck) counted as one more failure.  Exit status
# 0 only when nothing failed.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
JOBS=$(nproc 2>/dev/null || echo 2)
STEP_FAILED=0
declare -a RESULTS=()

log()
{
	echo
	echo "==> $*"
}

# step NAME COMMAND...: runs it, records PASS/FAIL
step()
{
	local name=$1 t0=$SECONDS
	shift
	log "$name"
	if "$@"; then
		RESULTS+=("PASS  $name ($((SECONDS - t0)) s)")
		return 0
	fi
	RESULTS+=("FAIL  $name ($((SECONDS - t0)) s)")
	return 1
}

# nontest_step: a failure here counts as one failed item
nontest_step()
{
	step "$@" && return 0
	STEP_FAILED=$((STEP_FAILED + 1))
	return 1
}

configure_in()
{
	local dir=$1
	shift
	mkdir -p "$SRC/$dir" && (cd "$SRC/$dir" && "$SRC/configure" "$@")
}

check_in()
{
	local dir=$1
	shift
	rm -f "$SRC/$dir/test-suite.log" "$SRC/$dir/test-times"
	make -C "$SRC/$dir" -j"$JOBS" check "$@"
	local rc=$?
	if [ ! -f "$SRC/$dir/test-suite.log" ]; then
		# the tests did not even run (a check program failed to build)
		STEP_FAILED=$((STEP_FAILED + 1))
		[ $rc -ne 0 ] || rc=1
	elif [ $rc -ne 0 ]; then
		# the failed tests' logs, for CI transcripts
		sed -n '/^\(FAIL\|ERROR\|XPASS\): /,/^\(PASS\|FAIL\|ERROR\|SKIP\|XFAIL\|XPASS\): /p' \
			"$SRC/$dir/test-suite.log" | head -400
	fi
	return $rc
}

# sum KEY over the test-suite.log files given
count()
{
	local key=$1 n=0 v f
	shift
	for f in "$@"; do
		[ -f "$f" ] || continue
		v=$(sed -n "s/^# $key: *\([0-9]*\)$/\1/p" "$f" | head -1)
		n=$((n + ${v:-0}))
	done
	echo "$n"
}

nontest_step "dependencies" bash "$SRC/scripts/setup-deps.sh"
nontest_step "autogen" sh -c "cd '$SRC' && ./autogen.sh"

# regular build
rm -f "$SRC/build/test-suite.log" "$SRC/build-asan/test-suite.log" \
	"$SRC/build-k612/test-suite.log" "$SRC/build-tsan/test-suite.log"
if nontest_step "configure (build/, --enable-werror)" \
	configure_in build --enable-werror &&
   nontest_step "make (build/)" make -C "$SRC/build" -j"$JOBS"; then
	# the VM tests' case lists (kmod-corrupt's and kmod-hostile's
	# damage kinds) are shared out between the two kernels' passes:
	# even-numbered cases here, odd ones on 6.12 (GAZE_VM_SHARE,
	# tests/vm/guest/lib.sh gz_share); `make check-vm` runs them whole.
	# kmod-geom overwrites the usable space once instead of 1.5 times
	# (GEOM_IO_PCT; at 70% full the collector reclaims from about 0.3 on): its
	# longest test, and CI stays under 45 minutes
	# test_geom's geometries likewise (GAZE_TEST_SHARE, tests/tap.h
	# tap_share): the even ones, both of 64 zones among them, here; the
	# odd ones in build-asan/, where they run about 1.4x slower
	GAZE_VM_SHARE=0/2 GEOM_IO_PCT=100 GAZE_TEST_SHARE=0/2 \
		step "make check (build/)" check_in build
fi

# the VM tests again, on Debian 12's other kernel series (6.12): a build
# of their own, so each build's test-suite.log counts its tests once
VM_TESTS=$(sed -n 's|^TESTS += \(tests/vm/[^ ]*\)$|\1|p' "$SRC/tests/vm/Makefile.inc")
if nontest_step "configure (build-k612/, --enable-werror --disable-long-tests --disable-fuzz-tests)" \
	configure_in build-k612 --enable-werror --disable-long-tests \
		--disable-fuzz-tests &&
   nontest_step "make (build-k612/)" make -C "$SRC/build-k612" -j"$JOBS"; then
	# the other half of the case lists, and the data-scale tests
	# lighter (their kernel paths are the same at any size; `make
	# check-vm GAZE_KVER=6.12` runs them whole): a quarter of
	# kmod-bigdir's million names, kmod-geom's overwrites of 50% of the
	# space instead of 150%, kmod-gc writing twice the device instead
	# of 5; CI stays under 45 minutes
	GAZE_KVER=6.12 GAZE_VM_SHARE=1/2 GAZE_BIGDIR_VM_ENTRIES=250000 \
	GEOM_IO_PCT=50 GC_WRITE_X=2 \
		step "make check, the VM tests on 6.12 (build-k612/)" \
		check_in build-k612 TESTS="$(echo $VM_TESTS)"
fi

# sanitizer build
if nontest_step "configure (build-asan/, --enable-werror --enable-asan --enable-ubsan --disable-fuzz-tests)" \
	configure_in build-asan --enable-werror --enable-asan --enable-ubsan \
		--disable-fuzz-tests &&
   nontest_step "make (build-asan/)" make -C "$SRC/build-asan" -j"$JOBS"; then
	# the VM tests ran in build/ (tests/vm/lib.sh), and so did the
	# other half of test_geom's geometries
	GAZE_VM_TESTS=skip GAZE_TEST_SHARE=1/2 \
		step "make check (build-asan/)" check_in build-asan
fi

# ThreadSanitizer: gaze-stress with 8 workers and readers that call the
# core outside the harness's lock (tests/stress/stress-tsan.sh), alone:
# the rest of the suite ran sanitized in build-asan/
if nontest_step "configure (build-tsan/, --enable-werror --enable-tsan --disable-fuzz-tests)" \
	configure_in build-tsan --enable-werror --enable-tsan \
		--disable-fuzz-tests &&
   nontest_step "make (build-tsan/)" make -C "$SRC/build-tsan" -j"$JOBS"; then
	step "make check, gaze-stress under TSan (build-tsan/)" \
		check_in build-tsan TESTS=tests/stress/stress-tsan.sh \
		check_PROGRAMS=tests/stress/gaze-stress
fi

# release tarball: make dist fails when a file git tracks is not in it
# (scripts/dist-complete.sh); distcheck builds it out of tree, installs
# and uninstalls it, and runs one quick test of each test folder from
# it (DIST_TESTS; every test ran from these same sources in build/ and
# build-asan/ above, and the tarball holds each folder's whole harness)
DIST_TESTS="tests/format/test_format tests/zdev/test_emu
	tests/core/test_engine tests/core/contract.sh tests/ns/test_ns
	tests/man/lint.sh tests/mkfs/options.sh tests/fsck/clean.sh
	tests/inspect/names.sh tests/ident/probe.sh tests/roundtrip/damaged.sh"
if [ -f "$SRC/build/Makefile" ]; then
	GAZE_VM_TESTS=skip nontest_step "make distcheck (build/)" \
		make -C "$SRC/build" -j"$JOBS" distcheck \
		TESTS="$(echo $DIST_TESTS)"
else
	RESULTS+=("FAIL  make distcheck (build/ not configured)")
	STEP_FAILED=$((STEP_FAILED + 1))
fi

# the same core files, compiled by Kbuild into the module for each
# kernel series Debian 12 ships (kernel/linux/compat.h); warnings are
# errors here too.  The VM tests of steps 2 and 3 built it already, W=1,
# failing on any warning (tests/vm/lib.sh vm_kmod_build): their build's
# log is checked again here; where they did not build it (the VM tests
# skipped), it is built here, in a copy, so the source tree stays clean
kmod_warnings()
{
	grep -qE ':[0-9]+(:[0-9]+)?: warning:|^WARNING:' "$1" && {
		echo "kernel build has warnings ($1)" >&2
		return 0
	}
	return 1
}
kmod_build()
{
	local series=$1 bdir=$2 dir log kdir shared
	shared=$(ls -d "$SRC/$bdir"/kmod-shared-"$series".*[0-9]-amd64 2>/dev/null |
		sort -V | tail -1)
	if [ -n "$shared" ] && [ -f "$shared/gaze.ko" ] && [ -f "$shared.log" ] &&
	   [ -z "$(find "$SRC/kernel" -newer "$shared/gaze.ko" -print -quit)" ]; then
		echo "built by the VM tests: $shared/gaze.ko ($shared.log)"
		kmod_warnings "$shared.log" && return 1
		return 0
	fi
	dir="$SRC/$bdir/kmod-w1-$series"
	kdir=$(ls -d /usr/src/linux-headers-"$series".*[0-9]-amd64 2>/dev/null |
		sort -V | tail -1)
	if [ -z "$kdir" ]; then
		echo "no linux-headers-$series.*-amd64 in /usr/src (scripts/setup-deps.sh installs them)" >&2
		return 1
	fi
	rm -rf "$dir" && mkdir -p "$dir" && cp -r "$SRC/kernel/." "$dir/" || return 1
	log="$dir/build.log"
	make -C "$dir" KDIR="$kdir" 2>&1 | tee "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	kmod_warnings "$log" && return 1
	test -f "$dir/gaze.ko"
}
nontest_step "kernel module build (Kbuild, W=1, 6.1 headers)" kmod_build 6.1 build
nontest_step "kernel module build (Kbuild, W=1, 6.12 headers)" kmod_build 6.12 build-k612

LOGS=("$SRC/build/test-suite.log" "$SRC/build-k612/test-suite.log"
      "$SRC/build-asan/test-suite.log" "$SRC/build-tsan/test-suite.log")
PASSED=$(( $(count PASS "${LOGS[@]}") + $(count XFAIL "${LOGS[@]}") ))
FAILED=$(( $(count FAIL "${LOGS[@]}") + $(count ERROR "${LOGS[@]}") + \
	   $(count XPASS "${LOGS[@]}") + STEP_FAILED ))
SKIPPED=$(count SKIP "${LOGS[@]}")

echo
echo "==> results"
for r in "${RESULTS[@]}"; do
	echo "  $r"
done
for f in "${LOGS[@]}"; do
	[ -f "$f" ] && echo "  $(basename "$(dirname "$f")"): $(count PASS "$f") pass, $(count FAIL "$f") fail, $(count ERROR "$f") error, $(count SKIP "$f") skip"
done
[ "$SKIPPED" -gt 0 ] && echo "  ($SKIPPED skipped)"
for d in build build-k612 build-asan build-tsan; do
	[ -s "$SRC/$d/test-times" ] || continue
	echo "  slowest tests in $d/ (s):"
	sort -rn "$SRC/$d/test-times" | head -12 | sed 's/^/    /'
done
for r in "${RESULTS[@]}"; do
	case $r in FAIL*) [ "$FAILED" -gt 0 ] || FAILED=1 ;; esac
done
echo "  total: $SECONDS s"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
