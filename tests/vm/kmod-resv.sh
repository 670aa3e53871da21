#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-resv.sh - make check test: builds gaze.ko (in a copy of kernel/
# under $GAZE_BUILDDIR/kmod-resv) and boots one guest running
# guest/kmod-resv.sh on a small emulated NVMe ZNS namespace (64 MiB, 2 MiB
# zones): threads fill the filesystem to full while others overwrite, with
# background GC on, once with selective_blocking=on and the GC pipeline
# off (writers hand a foreground run's batch to the GC thread), once
# with selective_blocking=off, then on again with the pipeline and more
# threads (six fillers, three overwriters); every
# write() that succeeded must read back after umount + mount, and only
# write() may fail (ENOSPC), never fsync, close or writeback.  Exits 77
# (skip) when QEMU, a kernel image or the kernel headers are not installed.
. "$(dirname "$0")/lib.sh"
vm_init kmod-resv
[ -x "$BUILD/tests/vm/resvutil" ] ||
	{ echo "not ok - $BUILD/tests/vm/resvutil is not built"; exit 1; }
vm_kmod "$BUILD/kmod-resv"
vm_guest zns "$HERE/guest/kmod-resv.sh" -z 64 -Z 2 -e KMOD=kmod-resv
exit $vm_fail
