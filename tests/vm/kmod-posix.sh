#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-posix.sh - make check test: builds gaze.ko (in a copy of kernel/
# under $GAZE_BUILDDIR/kmod-posix) and boots the test guest on an NVMe ZNS
# namespace (zone capacity < zone size, open/active limits) to run
# guest/kmod-posix.sh: POSIX semantics through the VFS, checked again
# after umount + mount.  Exits 77 (skip) when QEMU, a kernel image or the
# kernel headers are not installed.
. "$(dirname "$0")/lib.sh"
vm_init kmod-posix
for p in mkfs/mkfs.gaze tests/roundtrip/rtutil tests/vm/posixutil; do
	[ -x "$BUILD/$p" ] || { echo "not ok - $BUILD/$p is not built"; exit 1; }
done
vm_kmod "$BUILD/kmod-posix"
vm_guest zns "$HERE/guest/kmod-posix.sh" -e KO="$BUILD/kmod-posix/gaze.ko" \
	-z 1024 -Z 16 -C 12 -N zoned.max_open=14,zoned.max_active=14
exit $vm_fail
