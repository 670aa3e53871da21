#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-gc.sh - make check test: builds gaze.ko (in a copy of kernel/
# under $GAZE_BUILDDIR/kmod-gc) and boots one guest running
# guest/kmod-gc.sh on a small emulated NVMe ZNS namespace (64 MiB, 2 MiB
# zones): files holding ~65% of the capacity are overwritten until more
# than five times the device was written, with content checks as it goes
# and after a remount, once with background_gc=on and once with
# background_gc=off (foreground GC only).  Exits 77 (skip) when QEMU, a
# kernel image or the kernel headers are not installed.
. "$(dirname "$0")/lib.sh"
vm_init kmod-gc
vm_kmod "$BUILD/kmod-gc"
vm_guest zns "$HERE/guest/kmod-gc.sh" -z 64 -Z 2 -e KMOD=kmod-gc \
	-e GC_WRITE_X="${GC_WRITE_X:-5}"
exit $vm_fail
