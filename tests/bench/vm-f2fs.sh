#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-f2fs.sh [ZNS_MIB [ZONE_MIB]] - GAZE against F2FS (zoned mode) on the
# same emulated NVMe ZNS namespace (default 2048 MiB, 16 MiB zones), in
# two QEMU guests, one workload after the other: sequential write and read
# with 1 MiB I/O (ZNS_MIB/8, at most 256 MiB), create, stat and unlink of
# SMALL_N small files (environment, default 100000, of SMALL_SIZE bytes,
# default 4096; stat also of every 16th file in a random order), 4 KiB random overwrite with fio (then 2048 more, each
# followed by fsync), delete.  Prints each
# phase's time for both and the ratio GAZE/F2FS (below 1: GAZE is
# faster).  Each filesystem runs in a guest of its own, booted fresh.
# FSES="gaze" runs only GAZE's guest (to compare two modules; the F2FS
# column is then empty).
#
# F2FS cannot keep its metadata on a ZNS namespace without conventional
# zones, so it gets a regular device for that (mkfs.f2fs -m -c): the
# smallest prefix of a virtio disk, in whole zones, that mkfs.f2fs
# accepts (48 MiB for 2 GiB), since F2FS's main area starts there and a
# larger one would take F2FS data off the namespace.  GAZE uses the ZNS
# namespace alone.  Each guest's memory is touched once before its run
# (tests/bench/guest/lib.sh: QEMU's first touch of a guest page costs the
# host extra work).  Not
# part of make check: the guest runs under TCG, so absolute figures are
# far below a real machine's; ratios measured in the same run are what
# this reports.
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
# one guest per filesystem, each booted fresh on a new namespace image
for fs in ${FSES:-gaze f2fs}; do
	"$HERE/run-guest.sh" -o "$OUT/$fs" -t 3600 -m 2G \
		-e GAZE_BUILDDIR="$BUILD" -e GAZE_SRCDIR="$SRC" \
		-e ZNS_MIB="$ZNS" -e SMALL_N="$SMALL_N" \
		-e SMALL_SIZE="$SMALL_SIZE" -e ZONE_MIB="$ZONE" -e FS_ONLY=$fs \
		-x "$SRC" -x "$BUILD" -z "$ZNS" -Z "$ZONE" -d 256 -b 4096 \
		"$SRC/tests/bench/guest/vs-f2fs.sh"
	rc=$?
	tr -d '\r' <"$OUT/$fs/console.log" | grep -aE '^# ' | tee "$OUT/$fs.times"
	[ $rc -eq 0 ] || { echo "vm-f2fs: $fs guest exit $rc (console: $OUT/$fs/console.log)"; exit 1; }
done
SEQ_MIB=$((ZNS / 8))
[ $SEQ_MIB -le 256 ] || SEQ_MIB=256
echo "# GAZE vs F2FS (zoned), ${ZNS} MiB ZNS, ${SEQ_MIB} MiB file, $SMALL_N x $SMALL_SIZE-byte files"
printf 'phase %-16s %10s %10s %8s\n' name gaze_s f2fs_s ratio
grep -E '^# gaze [a-z0-9_]+ [0-9.]+$' "$OUT/gaze.times" | while read -r _ _ name g; do
	f=$(grep -sE "^# f2fs $name " "$OUT/f2fs.times" | cut -d' ' -f4)
	if [ -z "$f" ] && [ -n "${FSES:-}" ]; then
		printf '  %-22s %10.3f %10s %8s\n' "$name" "$g" - -
		continue
	fi
	[ -n "$f" ] || { echo "vm-f2fs: no f2fs time for $name"; exit 1; }
	printf '  %-22s %10.3f %10.3f %8.2f\n' "$name" "$g" "$f" \
		"$(echo "$g / $f" | bc -l)"
done
