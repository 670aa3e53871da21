#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-fsx.sh - make check test: builds gaze.ko (in a copy of kernel/
# under $GAZE_BUILDDIR/kmod-fsx) and boots one guest per device kind
# (emulated NVMe ZNS namespace with the mq-deadline I/O scheduler,
# null_blk zoned with none, a regular virtio disk),
# each running guest/kmod-fsx.sh: four model-checked random exercisers
# at once (tests/vm/gazefsx.c: pwrite, truncate, punch, zero range,
# shared mmap stores and loads, fsync/fdatasync/syncfs, every read
# compared), then crash rounds: random operations, GAZE_IOC_SHUTDOWN as a
# power failure at a random point, umount, mount, and every synced byte
# verified; fsck.gaze -fn after every umount.  Exits 77 (skip) when QEMU,
# a kernel image or the kernel headers are not installed.
. "$(dirname "$0")/lib.sh"
vm_init kmod-fsx
vm_kmod "$BUILD/kmod-fsx"
G=$HERE/guest/kmod-fsx.sh
vm_guest zns "$G" -z 256 -Z 8 -N zoned.max_open=12,zoned.max_active=12 \
	-e DEV=nvme -e KMOD=kmod-fsx -e SCHED=mq-deadline
# both I/O schedulers a zoned device may have: mq-deadline (what F2FS
# needs on 6.1) on the namespace, none on null_blk
# fewer operations on the other two (null_blk is the slowest under TCG);
# CI's two kernel passes share them (GAZE_VM_SHARE, as kmod-mount.sh):
# null_blk with none on 6.1, whose zoned layer does not order writes
# itself (6.12 plugs them per zone), the regular disk on 6.12
vm_share 0 nullb &&
vm_guest nullb "$G" -e DEV=nullb -e KMOD=kmod-fsx -e NOPS=1200 -e ROUNDS=3 \
	-e SCHED=none
vm_share 1 virtio &&
vm_guest virtio "$G" -d 512 -e DEV=virtio -e KMOD=kmod-fsx -e NOPS=1500 \
	-e ROUNDS=3
exit $vm_fail
