#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-geom.sh - make check test: builds gaze.ko (in a copy of kernel/
# under $GAZE_BUILDDIR/kmod-geom) and boots one guest running
# guest/kmod-geom.sh on an emulated NVMe ZNS namespace of 16 zones of
# 256 MiB (max open/active 14), the geometry on which the collector once
# looped: mkfs and mount defaults, a file of 70% of the usable space,
# random 4 KiB buffered overwrites of 1.5 times the usable space with
# every mechanism on, gc-stats polled as it runs.  Exits 77 (skip) when
# QEMU, a kernel image or the kernel headers are not installed.
. "$(dirname "$0")/lib.sh"
vm_init kmod-geom
vm_kmod "$BUILD/kmod-geom"
vm_guest zns "$HERE/guest/kmod-geom.sh" -z 4096 -Z 256 -t 1200 \
	-N zoned.max_open=14,zoned.max_active=14 -e KMOD=kmod-geom \
	-e GEOM_IO_PCT="${GEOM_IO_PCT:-150}"
exit $vm_fail
