#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-readfast.sh [VCPUS] - the read fast path (kernel/linux/readfast.c)
# against the normal page cache path, ext4 and F2FS, in one QEMU guest
# with VCPUS vCPUs (default 2): N threads, one fd each, pread of cached
# data for SECS seconds (environment, default 5) per run, each figure the
# median of REPS runs (default 3; GAZE's on and off runs alternate):
#   hot16    16 bytes of one cached page (the seed's test)
#   hot4k    4 KiB of that page (longer than the fast path takes: the
#            cost of trying it)
#   many16   16 bytes at random pages of a 4 MiB cached file
#   cold16   1 thread: POSIX_FADV_DONTNEED, then 16 bytes (every read a
#            miss: the fast path's fallback cost on a cold cache)
# at 1, 2, ... VCPUS threads (THREADS, environment, overrides: e.g.
# THREADS="1 2 4 8"), on GAZE with read_fastpath on and off (gazectl
# tune), ext4 (on a virtio disk) and F2FS (zoned: the ZNS namespace with
# the mq-deadline scheduler 6.1 needs, metadata on a slice of the virtio
# disk), all in the same guest.  Prints reads/s and the ratios gaze-on /
# gaze-off, gaze-on / ext4, gaze-on / f2fs.  Not part of make check: TCG
# figures are far below a real machine's; the ratios are the result.
#
# Needs a configured and built tree (GAZE_BUILDDIR, default build/),
# kernel headers, QEMU and f2fs-tools.  Or, on a machine with none of
# these (a many-core machine lent for minutes), GAZE_VM_BUNDLE=DIR: the
# unpacked archive tests/bench/vm-bundle.sh made here, which holds the
# kernel, QEMU, the tools and gaze.ko; the figures go to
# ${GAZE_BUNDLE_OUT:-vm-out}/rf.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export GAZE_SRCDIR=$SRC
export GAZE_BUILDDIR=${GAZE_BUILDDIR:-$SRC/build}
VCPUS=${1:-2}
SECS=${SECS:-5}
if [ -z "${THREADS:-}" ]; then
	THREADS=1
	t=2
	while [ $t -le "$VCPUS" ]; do THREADS="$THREADS $t"; t=$((t * 2)); done
	case " $THREADS " in *" $VCPUS "*) ;; *) THREADS="$THREADS $VCPUS" ;; esac
fi
if [ -n "${GAZE_VM_BUNDLE:-}" ]; then
	# the guest's root is the bundle's: its build tree and scripts
	HERE=$SRC/tests/vm
	OUT=$(mkdir -p "${GAZE_BUNDLE_OUT:-vm-out}" && cd "${GAZE_BUNDLE_OUT:-vm-out}" && pwd)
	VM_KVER=$(cat "$GAZE_VM_BUNDLE/kver")
	GB=/gz/build GS=/gz/src SHARES=()
else
	command -v mkfs.f2fs >/dev/null || { echo "vm-readfast: mkfs.f2fs missing (apt-get install f2fs-tools)"; exit 1; }
	. "$SRC/tests/vm/lib.sh"
	vm_init bench-readfast
	vm_kmod "$BUILD/kmod" || exit 1
	make -C "$BUILD" tests/vm/readfastutil gazectl/gazectl >"$OUT/helper.log" 2>&1 ||
		{ echo "vm-readfast: building the helpers failed ($OUT/helper.log)"; exit 1; }
	GB=$BUILD GS=$SRC SHARES=(-x "$SRC" -x "$BUILD")
fi
# guest memory: the page cache holds little, but every vCPU costs some
MEM=$((2048 + VCPUS * 64))M
GAZE_VM_SMP=$VCPUS "$HERE/run-guest.sh" -o "$OUT/rf" -t 3600 -m $MEM \
	-e GAZE_BUILDDIR="$GB" -e GAZE_SRCDIR="$GS" -e SECS="$SECS" -e REPS="${REPS:-3}" \
	-e THREADS="$THREADS" "${SHARES[@]}" -z 512 -Z 16 -d 1024 \
	-b 4096 "$GS/tests/bench/guest/readfast-bench.sh"
rc=$?
tr -d '\r' <"$OUT/rf/console.log" | grep -aE '^# ' | tee "$OUT/rf.figures"
[ $rc -eq 0 ] || { echo "vm-readfast: guest exit $rc (console: $OUT/rf/console.log)"; exit 1; }
echo "# read fast path, $VCPUS vCPUs (kernel $VM_KVER), reads/s, median of ${REPS:-3} runs of ${SECS} s"
printf '%-8s %3s %12s %12s %12s %12s %8s %8s %8s\n' load thr gaze-on \
	gaze-off ext4 f2fs on/off on/ext4 on/f2fs
fig() { awk -v k="$1 $2 $3" '$1 == "#" && $2 == "rf" && ($3" "$4" "$5) == k { print $6 }' "$OUT/rf.figures"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print (a != "" && b + 0 != 0) ? a / b : 0 }'; }
for load in hot16 hot4k many16 cold16; do
	thr=$THREADS
	[ $load = cold16 ] && thr=1
	for t in $thr; do
		on=$(fig gaze-on $load $t) off=$(fig gaze-off $load $t)
		e=$(fig ext4 $load $t) f=$(fig f2fs $load $t)
		printf '%-8s %3s %12s %12s %12s %12s %8.2f %8.2f %8.2f\n' \
			$load $t "${on:--}" "${off:--}" "${e:--}" "${f:--}" \
			"$(ratio "$on" "$off")" "$(ratio "$on" "$e")" \
			"$(ratio "$on" "$f")"
	done
done
