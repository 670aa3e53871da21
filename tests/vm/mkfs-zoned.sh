#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkfs-zoned.sh - make check test: boots the test guest three times and
# runs guest/mkfs-zoned.sh against real zoned block devices: an NVMe ZNS
# namespace with zone capacity < zone size and open/active limits,
# null_blk zoned with conventional zones, and a namespace whose open-zone
# limit GAZE cannot work with.  Exits 77 (skip) when QEMU or a kernel
# image is not installed; CI installs both (scripts/setup-deps.sh).
. "$(dirname "$0")/lib.sh"
vm_init mkfs-zoned
G=$HERE/guest/mkfs-zoned.sh
vm_guest zns "$G" -z 1024 -Z 16 -C 12 -N zoned.max_open=12,zoned.max_active=12 -e DEV=nvme
vm_guest nullb "$G" -e DEV=nullb
vm_guest zns-open3 "$G" -z 256 -Z 16 -N zoned.max_open=3,zoned.max_active=3 -e DEV=nvme -e EXPECT=refuse-open
exit $vm_fail
