#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gaze-stress under ThreadSanitizer (a build configured --enable-tsan;
# make check runs this only there): 8 worker threads and 2 readers that
# call the core outside the harness's lock while the staged GC's read
# stage runs outside it too, with power cuts and reopens; then the same
# with compressed clusters, mostly writes and fsyncs (roll-forward).
# TSan reports data races and lock-order inversions (its deadlock
# detector) in the core, the emulator and the harness; any report, or a
# model mismatch, fails the test.  About 80 s.
set -u
B=${GAZE_BUILDDIR:-.}
S=$B/tests/stress/gaze-stress
[ -x "$S" ] || { echo "gaze-stress not built: $S" >&2; exit 99; }
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1 detect_deadlocks=1}"
LOG=${TMPDIR:-/tmp}/stress-tsan.$$
rc=0
one()
{
	"$S" "$@" >"$LOG" 2>&1
	r=$?
	cat "$LOG"
	if [ $r -ne 0 ] || grep -q 'ThreadSanitizer' "$LOG"; then
		echo "stress-tsan: FAILED: gaze-stress $* (exit $r)"
		rc=1
	fi
	grep -q 'reads outside the lock' "$LOG" || {
		echo "stress-tsan: gaze-stress $*: no summary line"
		rc=1
	}
}
one --threads 8 --readers 2 --time 30
one --threads 8 --readers 2 --time 15 --compression zstd --fsync-mix --device-size 64M
rm -f "$LOG"
exit $rc
