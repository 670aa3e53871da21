#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-corrupt.sh - runs INSIDE the test guest (tests/vm/run-guest.sh):
# loads gaze.ko and runs tests/corrupt/matrix.sh with MATRIX_MOUNT=1 on
# a set of kinds, its scratch space on an ext4 file system on the virtio
# disk (the tree carries user xattrs, which this kernel's tmpfs lacks).
# The matrix's own TAP lines are the result.  GAZE_VM_SHARE=K/N takes
# every Nth kind from the Kth (gz_share).
set -u
B=$GAZE_BUILDDIR
KO=$B/${KMOD:-kmod-corrupt}/gaze.ko
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"

[ -f "$KO" ] || fail "$KO not built"
modprobe -a libcrc32c lz4_compress zstd_compress
modprobe loop
modprobe ext4
run insmod "$KO"
[ $rc -eq 0 ] || fail "insmod $KO"
gz_device virtio
run mkfs.ext4 -q -F -b 4096 -I 512 $D
[ $rc -eq 0 ] || fail "mkfs.ext4 $D"
mkdir -p /tmp/scratch
run mount -t ext4 $D /tmp/scratch
[ $rc -eq 0 ] || fail "mount $D"
TMPDIR=/tmp/scratch MATRIX_MOUNT=1 GAZE_BUILDDIR=$B \
MATRIX_KINDS=$(gz_share sb-primary-crc cp-log-behind orphan-live \
	imap-garbage zinfo-valid-low usage-bit-unowned summary-owner \
	inode-size-small inode-addr-dup dnode-crc dirent-reclen dirent-free-ino \
	unreachable dir-loop xattr-node-crc) \
	sh "$GAZE_SRCDIR/tests/corrupt/matrix.sh"
rc=$?
umount /tmp/scratch
# case-sensitive: "debug" (a kernel named 6.1.192-gazedebug) is no bug
dmesg | grep -E "gaze.*(BUG:|Oops)" && exit 1
exit $rc
