#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-compress.sh - make check test: builds gaze.ko (in a copy of
# kernel/ under $GAZE_BUILDDIR/kmod-compress) and boots two guests on an
# emulated ZNS namespace: guest/kmod-compress.sh (a text tree through
# zstd:3, edits of packed clusters through the page cache, O_DIRECT,
# FIEMAP, chattr +c/-c, fsck, gazectl cat), and guest/kmod-fsx.sh with
# --compression lz4 --cluster-size 16K (the model-checked exercisers and
# the crash rounds on compressed files: its data repeats, so clusters
# pack) on zones of 8 MiB with 6 MiB of capacity, at most 12 open.
# Exits 77 (skip) when QEMU, a kernel image or the kernel headers are not
# installed.
. "$(dirname "$0")/lib.sh"
vm_init kmod-compress
vm_kmod "$BUILD/kmod-compress"
vm_guest zns "$HERE/guest/kmod-compress.sh" -z 512 -Z 16 \
	-e DEV=nvme -e KMOD=kmod-compress
vm_guest zns-fsx "$HERE/guest/kmod-fsx.sh" -z 256 -Z 8 -C 6 \
	-N zoned.max_open=12,zoned.max_active=12 -e DEV=nvme -e KMOD=kmod-compress -e SCHED=mq-deadline \
	-e NOPS=1500 -e ROUNDS=3 \
	-e "MKFS_OPTS=--compression lz4 --cluster-size 16K"
exit $vm_fail
