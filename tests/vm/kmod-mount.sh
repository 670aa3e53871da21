#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-mount.sh - make check test: builds gaze.ko (in a copy of kernel/
# under $GAZE_BUILDDIR/kmod) and boots the test guest three times, running
# guest/kmod-mount.sh: mount, files, remount and options, bad devices,
# rmmod, on an NVMe ZNS namespace (zone capacity < zone size, open/active
# limits), null_blk zoned with conventional zones, and a regular virtio
# disk (emulated zones).  Exits 77 (skip) when QEMU, a kernel image or the
# kernel headers are not installed.
. "$(dirname "$0")/lib.sh"
vm_init kmod-mount
vm_kmod "$BUILD/kmod"
G=$HERE/guest/kmod-mount.sh
vm_guest zns "$G" -z 1024 -Z 16 -C 12 -N zoned.max_open=14,zoned.max_active=14 -e DEV=nvme
# CI's two kernel passes (scripts/test-all.sh) share the other two
# kinds: null_blk (the none scheduler on a zoned device, which only 6.1
# leaves unordered) on 6.1, the regular disk on 6.12
vm_share 0 nullb && vm_guest nullb "$G" -e DEV=nullb
vm_share 1 virtio && vm_guest virtio "$G" -d 512 -e DEV=virtio
exit $vm_fail
