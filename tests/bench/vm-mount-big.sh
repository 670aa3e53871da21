#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-mount-big.sh - the module's mount on a large, empty device (not part
# of make check): in a QEMU guest (tests/vm/run-guest.sh) with a sparse
# virtio disk of BENCH_SIZE_MB (default 15 TiB), mkfs.gaze (emulated
# zones of BENCH_ZONE, default 256M) then BENCH_RUNS (default 3) times:
# caches dropped, mount -t gaze timed, the memory the mount holds
# (Slab + VmallocUsed + PageTables + Percpu before and after, from
# /proc/meminfo; the buffer and page cache it read are reclaimable and
# listed apart), umount.  The same for ext4 (mkfs.ext4 -q, lazy inode
# tables, so the kernel's own init thread is stopped by "noinit_itable")
# as the baseline, and the ratios.  Mount cost should follow what is
# used, not the device size (issue 19, "Scale").
#
# Environment: GAZE_BUILDDIR (default build/), GAZE_KVER (guest kernel),
# BENCH_SIZE_MB, BENCH_ZONE, BENCH_RUNS.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export GAZE_BUILDDIR=${GAZE_BUILDDIR:-$SRC/build}
. "$SRC/tests/vm/lib.sh"
vm_init bench-mount-big
for p in mkfs/mkfs.gaze; do
	[ -x "$BUILD/$p" ] || { echo "vm-mount-big: $BUILD/$p is not built"; exit 1; }
done
vm_kmod "$BUILD/kmod-bench" || exit 1
"$HERE/run-guest.sh" -o "$OUT/g" -t 1800 -m 2G \
	-e GAZE_BUILDDIR="$BUILD" -e GAZE_SRCDIR="$SRC" \
	-e KMOD="$BUILD/kmod-bench" -e ZONE="${BENCH_ZONE:-256M}" \
	-e RUNS="${BENCH_RUNS:-3}" -x "$SRC" -x "$BUILD" \
	-d "${BENCH_SIZE_MB:-15728640}" -b 4096 \
	"$SRC/tests/bench/guest/mount-big.sh"
rc=$?
tr -d '\r' <"$OUT/g/console.log" | grep -aE '^(# |RESULT )' | tee "$OUT/results"
# medians and GAZE/ext4 ratios
awk '$1 == "RESULT" { t[$2] = t[$2] " " $6; h[$2] = h[$2] " " $8 }
function med(list,   a, n, i, j, x) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			x = a[j]; a[j] = a[j - 1]; a[j - 1] = x
		}
	return a[int((n + 1) / 2)]
}
END {
	if (!("gaze" in t) || !("ext4" in t)) exit 1
	tg = med(t["gaze"]); te = med(t["ext4"])
	hg = med(h["gaze"]); he = med(h["ext4"])
	printf "median mount: gaze %d ms, ext4 %d ms, ratio %.2f\n", tg, te, tg / te
	printf "median held memory: gaze %d KiB, ext4 %d KiB, ratio %.2f\n", hg, he, hg / he
}' "$OUT/results" || { echo "vm-mount-big: no results"; rc=1; }
exit $rc
