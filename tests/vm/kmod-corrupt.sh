#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-corrupt.sh - make check test: the corruption matrix
# (tests/corrupt/matrix.sh) run in a guest with MATRIX_MOUNT=1: after
# fsck.gaze -fy repaired each damage, the image is mounted read-only by
# gaze.ko (a loop device: a regular block device with emulated zones)
# and the mounted tree is compared with the source under the kind's
# policy.  One kind per structure family (superblock, checkpoint,
# orphans, imap, zone info, usage, summary, inodes, nodes, directories,
# xattrs), so it fits the CI budget; the whole matrix runs outside the
# guest through gazectl extract (tests/corrupt/matrix.sh).  Exits 77
# (skip) when QEMU, a kernel image or the kernel headers are missing.
. "$(dirname "$0")/lib.sh"
vm_init kmod-corrupt
vm_kmod "$BUILD/kmod-corrupt"
vm_guest matrix "$HERE/guest/kmod-corrupt.sh" -d 256 -e KMOD=kmod-corrupt \
	-e GAZE_VM_SHARE="${GAZE_VM_SHARE:-}"
exit $vm_fail
