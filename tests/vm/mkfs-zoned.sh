#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkfs-zoned.sh - make check test: boots the test guest three times and
# runs guest/mkfs-zoned.sh against real zoned block devices: an NVMe ZNS
# namespace with zone capacity < zone size and open/active limits,
# null_blk zoned with conventional zones, and a namespace whose open-zone
# limit GAZE cannot work with.  Exits 77 (skip) when QEMU or a kernel
# image is not installed; CI installs both (scripts/setup-deps.sh).
set -u
SRC=${GAZE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GAZE_BUILDDIR:-$SRC/build}
HERE=$SRC/tests/vm
command -v qemu-system-x86_64 >/dev/null || { echo "mkfs-zoned: no QEMU (skipped)"; exit 77; }
ls /boot/vmlinuz-* >/dev/null 2>&1 || { echo "mkfs-zoned: no kernel image (skipped)"; exit 77; }
[ -x /bin/busybox ] || { echo "mkfs-zoned: no busybox-static (skipped)"; exit 77; }

OUT=$BUILD/vm-out/mkfs-zoned
rm -rf "$OUT"
mkdir -p "$OUT"
fail=0
guest()
{
	local name=$1 rc
	shift
	echo "# $name"
	"$HERE/run-guest.sh" -o "$OUT/$name" -t 300 \
		-e GAZE_BUILDDIR="$BUILD" -e GAZE_SRCDIR="$SRC" \
		-x "$SRC" -x "$BUILD" "$@" \
		"$HERE/guest/mkfs-zoned.sh"
	rc=$?
	sed -n 's/^\(\(not \)\?ok [0-9]* - .*\|# .*\|1\.\.[0-9]*\)\r\?$/  \1/p' "$OUT/$name/console.log"
	if [ $rc -ne 0 ]; then
		echo "not ok - $name: guest exit $rc (console: $OUT/$name/console.log)"
		fail=1
	else
		echo "ok - $name"
	fi
}
guest zns -z 1024 -Z 16 -C 12 -N zoned.max_open=12,zoned.max_active=12 -e DEV=nvme
guest nullb -e DEV=nullb
guest zns-open3 -z 256 -Z 16 -N zoned.max_open=3,zoned.max_active=3 -e DEV=nvme -e EXPECT=refuse-open
exit $fail
