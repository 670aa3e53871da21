#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-resv.sh - runs INSIDE the test guest (tests/vm/run-guest.sh):
# selective blocking of gaze.ko on the emulated NVMe ZNS namespace
# (nvme0n1, 64 MiB, 2 MiB zones), background GC on.  For
# selective_blocking=on with the GC pipeline off (the writer steps the
# baseline's foreground GC only to the fg level and hands the batch to
# the GC thread), then selective_blocking=off, with the pipeline on
# (the default): three threads fill the filesystem
# to full (creating files until ENOSPC, deleting one of theirs now and
# then, and going on) while two others overwrite and recreate their own
# files, so GC runs all along (tests/vm/resvutil.c keeps a model of
# every block write() accepted); then selective_blocking=on once more
# with six fillers and three overwriters, whose directory grows while
# the filesystem is full (the checkpoints, and the fsyncs of new files
# that take them, must then need no new node).  write() may fail with ENOSPC; nothing
# else may fail: not fsync, not close, not writeback (no gaze error in
# the kernel log).  The filesystem must have been full (ENOSPC seen) and
# GC must have reclaimed zones.  After syncfs, umount and mount every
# accepted block reads back, and fsck.gaze -fn finds the filesystem
# clean.  Environment: GAZE_BUILDDIR (gaze.ko in $GAZE_BUILDDIR/$KMOD).
# TAP out.
set -u
B=$GAZE_BUILDDIR
KO=$B/${KMOD:-kmod-resv}/gaze.ko
MKFS=$B/mkfs/mkfs.gaze
GAZECTL=$B/gazectl/gazectl
FSCK=$B/fsck/fsck.gaze
RU=$B/tests/vm/resvutil
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
mkdir -p $M

for f in "$KO" "$MKFS" "$GAZECTL" "$FSCK" "$RU"; do
	[ -f "$f" ] || fail "$f is not built"
done
modprobe -a libcrc32c lz4_compress zstd_compress
run insmod "$KO"
[ $rc -eq 0 ] || fail "insmod $KO"
gz_device nvme
ok "$D: $(cat /sys/block/${D#/dev/}/queue/zoned), $(($(cat /sys/block/${D#/dev/}/size) / 2048)) MiB"

phase() # on|off seed [fillers overwriters [gc_pipeline]]
{
	sel=$1
	fil=${3:-3}
	ovw=${4:-2}
	pipe=${5:-on}
	lbl="selective_blocking=$sel, gc_pipeline=$pipe, $fil+$ovw threads"
	dmesg -c >/dev/null
	run "$MKFS" -f $D
	[ $rc -eq 0 ] || fail "mkfs.gaze $D: exit $rc"
	run mount -t gaze -o background_gc=on,selective_blocking=$sel,gc_pipeline=$pipe $D $M
	[ $rc -eq 0 ] || fail "mount -o selective_blocking=$sel: exit $rc"
	grep " $M gaze " /proc/mounts | grep -q "selective_blocking=$sel" ||
		fail "selective_blocking=$sel not in /proc/mounts"
	mkdir $M/d || fail "mkdir"
	run "$RU" stress $M/d $W/model $fil $ovw 120 $2
	cat $W/out | sed "s/^/# $lbl: /"
	if [ $rc -ne 0 ]; then
		dmesg | grep gaze | tail -20 | sed 's/^/# dmesg: /'
		fail "$lbl: stress: exit $rc (an error other than ENOSPC at write)"
	fi
	set -- $(cat $W/out)
	[ "$4" -gt 0 ] || fail "$lbl: the filesystem never filled up (no ENOSPC)"
	ok "$lbl: filled to full under GC, $2 writes, $4 refused with ENOSPC at write(), no fsync/close error"
	run sync -f $M
	[ $rc -eq 0 ] || fail "$lbl: syncfs"
	run "$GAZECTL" gc-stats --json $M
	[ $rc -eq 0 ] || fail "gazectl gc-stats"
	st=$(python3 -c 'import json,sys; d=json.load(sys.stdin)
print(d["zones_reclaimed"], d["blocks_moved"], d.get("writers_blocked", "n/a"), d.get("blocked_ns_total", "n/a"), d.get("blocked_ns_max", "n/a"), d.get("reserved_now", "n/a"))' <$W/out) ||
		fail "gc-stats --json does not parse"
	set -- $st
	[ "$1" -gt 0 ] || fail "$lbl: GC reclaimed no zone"
	echo "# $lbl: zones_reclaimed $1 blocks_moved $2 writers_blocked $3 blocked_ns_total $4 blocked_ns_max $5 reserved_now $6"
	run "$GAZECTL" counters --json $M
	[ $rc -eq 0 ] || fail "gazectl counters"
	ho=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["gc_runs_handed_off"])' <$W/out) ||
		fail "gazectl counters --json: no gc_runs_handed_off"
	echo "# $lbl: foreground runs handed to the GC thread: $ho"
	[ "$6" = n/a ] || [ $sel = off ] || [ "$6" -eq 0 ] ||
		fail "$lbl: $6 blocks still reserved after syncfs"
	ok "$lbl: GC reclaimed $1 zones meanwhile"
	run umount $M
	[ $rc -eq 0 ] || fail "umount"
	run mount -t gaze $D $M
	[ $rc -eq 0 ] || fail "remount"
	run "$RU" verify $W/model
	cat $W/out | sed "s/^/# /"
	[ $rc -eq 0 ] || fail "$lbl: accepted data lost or wrong after umount + mount"
	ok "$lbl: every accepted block reads back after umount + mount"
	run umount $M
	[ $rc -eq 0 ] || fail "umount"
	run "$FSCK" -f -n $D
	[ $rc -eq 0 ] || fail "fsck.gaze -fn: exit $rc"
	ok "$lbl: fsck.gaze -fn finds the filesystem clean"
	dmesg | grep 'gaze' | grep -v 'module verification' |
		grep -iE 'writeback|error|corrupt|failed|warn' >$W/err &&
		fail "$lbl: gaze errors in the kernel log"
	ok "$lbl: no writeback or other gaze error in the kernel log"
}

phase on 1 3 2 off
phase off 2
phase on 3 6 3
run rmmod gaze
[ $rc -eq 0 ] || fail "rmmod gaze"
ok "rmmod gaze"
echo "1..$n"
