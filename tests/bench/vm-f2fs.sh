#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-f2fs.sh [ZNS_MIB [ZONE_MIB]] - GAZE against F2FS (zoned mode) on the
# same emulated NVMe ZNS namespace (default 2048 MiB, 16 MiB zones), in
# one QEMU guest, one workload after the other: sequential write and read
# with 1 MiB I/O (ZNS_MIB/8, at most 256 MiB), create, stat and unlink of
# SMALL_N small files (environment, default 100000, of SMALL_SIZE bytes,
# default 4096), 4 KiB random overwrite with fio, delete.  Prints each
# phase's time for both and the ratio GAZE/F2FS (below 1: GAZE is
# faster).
#
# F2FS cannot keep its metadata on a ZNS namespace without conventional
# zones, so it gets a small regular virtio disk for that (mkfs.f2fs -m -c);
# GAZE uses the ZNS namespace alone.  Not part of make check: the guest
# runs under TCG, so absolute figures are far below a real machine's;
# ratios measured in the same run are what this reports.
#
# Needs a configured and built tree (GAZE_BUILDDIR, default build/),
# kernel headers, QEMU, f2fs-tools and fio (scripts/setup-deps.sh).
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export GAZE_SRCDIR=$SRC
export GAZE_BUILDDIR=${GAZE_BUILDDIR:-$SRC/build}
ZNS=${1:-2048}
ZONE=${2:-16}
SMALL_N=${SMALL_N:-100000}
SMALL_SIZE=${SMALL_SIZE:-4096}
command -v mkfs.f2fs >/dev/null || { echo "vm-f2fs: mkfs.f2fs missing (apt-get install f2fs-tools)"; exit 1; }
command -v fio >/dev/null || { echo "vm-f2fs: fio missing (apt-get install fio)"; exit 1; }
. "$SRC/tests/vm/lib.sh"
vm_init bench-f2fs
vm_kmod "$BUILD/kmod" || exit 1
make -C "$BUILD" tests/bench/smallfiles >"$OUT/helper.log" 2>&1 ||
	{ echo "vm-f2fs: building tests/bench/smallfiles failed ($OUT/helper.log)"; exit 1; }
"$HERE/run-guest.sh" -o "$OUT/run" -t 3600 -m 2G \
	-e GAZE_BUILDDIR="$BUILD" -e GAZE_SRCDIR="$SRC" -e ZNS_MIB="$ZNS" \
	-e SMALL_N="$SMALL_N" -e SMALL_SIZE="$SMALL_SIZE" \
	-x "$SRC" -x "$BUILD" -z "$ZNS" -Z "$ZONE" -d 256 -b 4096 \
	"$SRC/tests/bench/guest/vs-f2fs.sh"
rc=$?
grep -E '^(#|phase|  )' "$OUT/run/console.log" | tr -d '\r'
[ $rc -eq 0 ] || { echo "vm-f2fs: guest exit $rc (console: $OUT/run/console.log)"; exit 1; }
