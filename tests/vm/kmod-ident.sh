#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-ident.sh - make check test: builds gaze.ko (in a copy of kernel/
# under $GAZE_BUILDDIR/kmod-ident) and boots the test guest once with an
# NVMe ZNS namespace and a virtio disk, running guest/kmod-ident.sh:
# systemd-udevd with udev/64-gaze.rules gives GAZE its /dev/disk/by-uuid
# and by-label links, gazectl label and uuid change them on the zoned
# device (checkpoint zones written anew) and the regular one (in place),
# and the module mounts what they leave.  Exits 77 (skip) when QEMU, a
# kernel image or the kernel headers are not installed.
. "$(dirname "$0")/lib.sh"
vm_init kmod-ident
vm_kmod "$BUILD/kmod-ident"
vm_guest ident "$HERE/guest/kmod-ident.sh" -z 512 -Z 16 -d 512 \
	-e KMOD="$BUILD/kmod-ident"
exit $vm_fail
