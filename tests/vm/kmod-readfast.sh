#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-readfast.sh - make check test: builds gaze.ko (in a copy of
# kernel/ under $GAZE_BUILDDIR/kmod-readfast) and boots one guest (2
# vCPUs, an emulated ZNS namespace) running guest/kmod-readfast.sh: the
# read_fastpath switch and counters, then a torture of short preads
# against truncate, extend, punch, overwrite, O_DIRECT writes,
# drop_caches and compaction with every byte's version checked (zero
# violations), the same with the race window widened (zero violations),
# then with the re-validation switched off too, which must be caught
# (tests/vm/readfastutil.c).  Exits 77 (skip) when QEMU,
# a kernel image or the kernel headers are not installed.
# RF_SECS, RF_WIDE_SECS, RF_BAD_SECS: seconds of each torture (default
# 15, 10, 15).
. "$(dirname "$0")/lib.sh"
vm_init kmod-readfast
vm_kmod "$BUILD/kmod-readfast"
vm_guest zns "$HERE/guest/kmod-readfast.sh" -z 256 -Z 8 \
	-e DEV=nvme -e KMOD=kmod-readfast -e SECS="${RF_SECS:-15}" \
	-e WIDE_SECS="${RF_WIDE_SECS:-10}" -e BAD_SECS="${RF_BAD_SECS:-15}"
exit $vm_fail
