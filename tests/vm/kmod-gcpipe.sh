#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-gcpipe.sh - make check test: builds gaze.ko (in a copy of kernel/
# under $GAZE_BUILDDIR/kmod-gcpipe) and boots one guest running
# guest/kmod-gcpipe.sh on a small emulated NVMe ZNS namespace (64 MiB,
# 2 MiB zones): the pipelined GC (gc_pipeline=1) with the GC page pool and
# with pages through the page cache (gc_pool=1, 0) reclaims zones while
# files are overwritten, truncated, punched and deleted, checked with
# read and mmap against a model, after umount (fsck) and a new mount;
# gc-stats shows the stages and the pool; freeze, remount-ro, lazy umount
# and GAZE_IOC_SHUTDOWN during a reclaim are clean.  Exits 77 (skip) when
# QEMU, a kernel image or the kernel headers are not installed.
. "$(dirname "$0")/lib.sh"
vm_init kmod-gcpipe
vm_kmod "$BUILD/kmod-gcpipe"
vm_guest zns "$HERE/guest/kmod-gcpipe.sh" -z 64 -Z 2 -e KMOD=kmod-gcpipe
exit $vm_fail
