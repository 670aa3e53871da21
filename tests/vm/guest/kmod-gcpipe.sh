#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-gcpipe.sh - runs INSIDE the test guest (tests/vm/run-guest.sh): the
# pipelined GC and the GC page pool of gaze.ko on the emulated NVMe ZNS
# namespace (nvme0n1, 64 MiB, 2 MiB zones).
#
# Twice, with gc_pool=1 and with gc_pool=0 (gc_pipeline=1 both times):
#  (a) gcpipe_model.py overwrites, truncates, punches holes in, deletes
#      and recreates 16 files of up to 1 MiB (each block a pattern of
#      file, generation and offset; the model in a state file), checking
#      files with read() and mmap after dropping the caches, while this
#      script reclaims zones with `gazectl gc --wait` in a loop; after
#      umount, fsck.gaze -fn must be clean and, after a new mount, every
#      file must hold its latest content;
#  (b) gc-stats: blocks went through all four stages, and the pool
#      counters match the switch (page-cache time only with gc_pool=0);
# then (c) fsfreeze, remount read-only, umount (lazy) and GAZE_IOC_SHUTDOWN
# issued while reclaims run: nothing hangs, fsck.gaze -fn is clean; the
# background thread (sync) reclaims through the pipeline and an umount
# stops it cleanly; the pool shrinks and grows online; and a few
# reclaims with gc_pipeline=1 and 0 print their times (figures only).
# The kernel log must show no gaze error, and no WARNING/BUG (run-guest).
# Environment: GAZE_BUILDDIR (gaze.ko in $GAZE_BUILDDIR/$KMOD).  TAP out.
set -u
B=$GAZE_BUILDDIR
KO=$B/${KMOD:-kmod-gcpipe}/gaze.ko
MKFS=$B/mkfs/mkfs.gaze
GAZECTL=$B/gazectl/gazectl
FSCK=$B/fsck/fsck.gaze
MODEL="python3 $GAZE_SRCDIR/tests/vm/guest/gcpipe_model.py"
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
S=$W/model.json
mkdir -p $M

gz_insmod "$KO"
gz_device nvme
ok "$D: $(cat /sys/block/${D#/dev/}/queue/zoned), zone $(($(cat /sys/block/${D#/dev/}/queue/chunk_sectors) / 2048)) MiB"

# a JSON field of gc-stats (the last run's $W/out)
stat_get() # python expression on d
{
	python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" <$W/out
}

gcstats()
{
	run "$GAZECTL" gc-stats --json $M
	[ $rc -eq 0 ] || fail "gazectl gc-stats --json: exit $rc"
}

fresh() # mount options
{
	run "$MKFS" -f $D
	[ $rc -eq 0 ] || fail "mkfs.gaze $D: exit $rc"
	run mount -t gaze -o "$1" $D $M
	[ $rc -eq 0 ] || fail "mount -o $1: exit $rc"
}

fsck_clean() # what
{
	run "$FSCK" -f -n $D
	[ $rc -eq 0 ] || fail "fsck.gaze -fn after $1: exit $rc"
}

phase() # gc_pool value
{
	pool=$1
	if [ $pool -eq 1 ]; then
		fresh background_gc=off
	else
		fresh background_gc=off,gc_pool=off
		grep " $M gaze " /proc/mounts | grep -q "gc_pool=off" ||
			fail "gc_pool=off not in /proc/mounts"
		run "$GAZECTL" tune $M
		grep -q '^gc_pool  *0 ' $W/out || fail "mount -o gc_pool=off: tune shows $(grep gc_pool $W/out)"
	fi
	run "$GAZECTL" tune $M gc_pipeline=1 gc_pool=$pool gc_queue_depth=2
	[ $rc -eq 0 ] || fail "tune gc_pipeline=1 gc_pool=$pool"
	n_thr=$(ps | grep -c '[g]aze_gcp_')
	[ "$n_thr" -eq 4 ] || fail "$n_thr gaze_gcp_* threads, not 4"
	run "$GAZECTL" gc-stats --reset $M
	[ $rc -eq 0 ] || fail "gc-stats --reset"
	rm -f $W/model.rc
	($MODEL mutate $M $S 400 $((7 + pool)) >$W/model.out 2>&1
	 echo $? >$W/model.rc) &
	gcs=0 gcok=0
	while [ ! -e $W/model.rc ]; do
		"$GAZECTL" gc --wait $M >$W/gc.out 2>&1
		grc=$?
		gcs=$((gcs + 1))
		if [ $grc -eq 0 ]; then
			grep -q 'reclaimed zone' $W/gc.out && gcok=$((gcok + 1))
		elif ! grep -qE 'No space|Device or resource busy' $W/gc.out
		then
			cat $W/gc.out >$W/out
			fail "gazectl gc --wait during the mutations: exit $grc"
		fi
	done
	wait
	mrc=$(cat $W/model.rc)
	cat $W/model.out >$W/out
	[ $mrc -eq 0 ] || fail "gc_pool=$pool: mutations / checks during GC: exit $mrc"
	[ $gcok -gt 0 ] || fail "gc_pool=$pool: no zone reclaimed in $gcs tries"
	ok "gc_pool=$pool: 400 overwrites, truncates, punches and deletes, read and mmap checks, $gcok of $gcs gc --wait reclaimed a zone"
	# a few more reclaims now that files hold their final content,
	# from a cold cache (drop_caches runs the metadata cache's
	# shrinker): preread and prewrite read what they miss without
	# fs->lock
	sync
	echo 3 >/proc/sys/vm/drop_caches
	i=0
	while [ $i -lt 4 ]; do
		"$GAZECTL" gc --wait $M >/dev/null 2>&1
		i=$((i + 1))
	done
	gcstats
	st=$(stat_get 'd["zones_reclaimed"], min(s["blocks"] for s in d["stages"]), d["pool_blocks"], d["pages_gc"], d["pool_used_max"], d["pool_cache_ns"], int(d["pipeline"]), int(d["pool"]), d["stages"][1]["blocks"], d["gap_blocks"]') ||
		fail "gc-stats --json does not parse"
	set -- $st
	[ "$1" -gt 0 ] || fail "gc_pool=$pool: no zone reclaimed ($st)"
	[ "$2" -gt 0 ] || fail "gc_pool=$pool: a stage saw no block ($st)"
	[ "$3" -ge 64 ] && [ "$4" -gt 0 ] ||
		fail "gc_pool=$pool: pool size / pages ($st)"
	[ "$7" -eq 1 ] && [ "$8" -eq "$pool" ] ||
		fail "gc_pool=$pool: switches in gc-stats ($st)"
	if [ "$pool" -eq 1 ]; then
		[ "$5" -gt 0 ] && [ "$5" -le "$3" ] && [ "$6" -eq 0 ] ||
			fail "gc_pool=1: pool use / page-cache time ($st)"
	else
		[ "$6" -gt 0 ] || fail "gc_pool=0: no page-cache time ($st)"
	fi
	[ "$4" -ge "$9" ] || fail "gc_pool=$pool: fewer pages than blocks read ($st)"
	ok "gc_pool=$pool: gc-stats: zones, pages, pool blocks, used max, cache ns, pipeline, pool, blocks read, gap blocks read = $st"
	# the write stage wrote its batches without fs->lock
	run "$GAZECTL" counters --json $M
	[ $rc -eq 0 ] || fail "gazectl counters --json: exit $rc"
	ct=$(stat_get 'd["gc_writes_unlocked"], d["checkpoints"], d["gc_writes_committed_by_checkpoint"], d["gc_write_waits"], d["gc_cold_reads_unlocked"]') ||
		fail "counters --json does not parse"
	set -- $ct
	[ "$1" -gt 0 ] && [ "$2" -gt 0 ] ||
		fail "gc_pool=$pool: no batch written unlocked, or no checkpoint ($ct)"
	[ "$5" -gt 0 ] ||
		fail "gc_pool=$pool: reclaims after drop_caches read nothing without the lock ($ct)"
	run "$GAZECTL" counters $M
	grep -q "^gc_writes_unlocked  *[1-9]" $W/out ||
		fail "gazectl counters: no gc_writes_unlocked line"
	ok "gc_pool=$pool: counters: batches written without the lock, checkpoints, committed by a checkpoint, waits, cold reads without the lock = $ct"
	run "$GAZECTL" gc-stats $M
	grep -q '^stage write' $W/out && grep -q '^GC pages' $W/out ||
		fail "gc-stats text lacks the stage or pool lines"
	# --watch repeats until interrupted (waits up to 60 s for a second report)
	"$GAZECTL" gc-stats --json --watch 1 $M >$W/watch.out 2>&1 &
	wpid=$!
	i=0
	while [ "$(grep -c '"pool_blocks"' $W/watch.out)" -lt 2 ] && [ $i -lt 60 ]; do
		sleep 1
		i=$((i + 1))
	done
	kill $wpid
	wait $wpid
	[ "$(grep -c '"pool_blocks"' $W/watch.out)" -ge 2 ] ||
		{ cat $W/watch.out >$W/out; fail "gc-stats --watch 1: no second report"; }
	run "$GAZECTL" tune $M
	for key in gc_pipeline gc_pool gc_pool_blocks gc_queue_depth \
		gc_read_gap selective_blocking dirty_limit_pct; do
		grep -q "^$key " $W/out || fail "tune list lacks $key"
	done
	run "$GAZECTL" tune $M gc_queue_depth=65
	[ $rc -eq 2 ] && grep -q 'out of range 1..64' $W/err ||
		fail "gc_queue_depth=65: exit $rc"
	run "$GAZECTL" tune $M gc_read_gap=17
	[ $rc -eq 2 ] && grep -q 'out of range 0..16' $W/err ||
		fail "gc_read_gap=17: exit $rc"
	run umount $M
	[ $rc -eq 0 ] || fail "umount after the mutations"
	fsck_clean "the mutations with gc_pool=$pool"
	run mount -t gaze $D $M
	[ $rc -eq 0 ] || fail "mount after the mutations"
	run $MODEL verify $M $S
	[ $rc -eq 0 ] || fail "gc_pool=$pool: content after umount + mount"
	ok "gc_pool=$pool: fsck.gaze -fn clean, every file holds its latest content after a new mount"
	run umount $M
	[ $rc -eq 0 ] || fail "umount"
}

phase 1
phase 0

# --- (c) freeze, remount-ro, umount, shutdown while a reclaim runs ---------
# fills zones with half-valid data: 1 MiB files, every other one rewritten
fill()
{
	i=0
	while [ $i -lt 16 ]; do
		dd if=/dev/urandom of=$M/h$i bs=1M count=1 status=none ||
			fail "fill h$i"
		i=$((i + 1))
	done
	sync -f $M
	i=0
	while [ $i -lt 16 ]; do
		dd if=/dev/urandom of=$M/h$i bs=1M count=1 conv=notrunc \
			seek=0 status=none || fail "rewrite h$i"
		i=$((i + 2))
	done
	sync -f $M
}

# reclaims back to back until $W/stop; each exit status in $W/gcloop
gc_loop()
{
	rm -f $W/stop $W/gcloop $W/gcloop.out
	while [ ! -e $W/stop ]; do
		"$GAZECTL" gc --wait $M >>$W/gcloop.out 2>&1
		echo $? >>$W/gcloop
	done &
	gpid=$!
	sleep 0.3
}

gc_loop_end()
{
	touch $W/stop
	wait $gpid
	nrec=$(grep -c 'reclaimed zone' $W/gcloop.out)
}

fresh background_gc=off
fill
gc_loop
run fsfreeze -f $M
frc=$rc
sleep 0.5
run fsfreeze -u $M
[ $frc -eq 0 ] && [ $rc -eq 0 ] || fail "fsfreeze -f / -u during gc: $frc / $rc"
gc_loop_end
! grep -qv '^0$' $W/gcloop ||
	{ cat $W/gcloop.out >$W/out; fail "gc --wait across a freeze failed"; }
ok "fsfreeze while reclaims run back to back: freeze and thaw succeed, $nrec reclaims, all succeeded"

fill
gc_loop
run mount -o remount,ro $M
rorc=$rc
gc_loop_end
if [ $rorc -eq 0 ]; then
	run mount -o remount,rw $M
	[ $rc -eq 0 ] || fail "remount rw after remount ro"
fi
# the only failure allowed: the filesystem was read-only (EROFS)
bad=$(grep -v '^[01]$' $W/gcloop; grep 'gazectl:' $W/gcloop.out | grep -v 'Read-only')
[ -z "$bad" ] || { cat $W/gcloop.out >$W/out; fail "gc --wait across remount-ro"; }
ok "remount-ro while reclaims run back to back: remount exit $rorc, $nrec reclaims, no hang"

fill
gc_loop
run umount -l $M
[ $rc -eq 0 ] || fail "umount -l during a reclaim"
gc_loop_end
# after the detach, gazectl finds no GAZE filesystem at $M (exit 1)
bad=$(grep -v '^[01]$' $W/gcloop; grep 'gazectl:' $W/gcloop.out | grep -v 'not on a mounted GAZE')
[ -z "$bad" ] || { cat $W/gcloop.out >$W/out; fail "gc --wait across a lazy umount"; }
i=0
while grep -q '^gaze ' /proc/modules && [ "$(cat /sys/module/gaze/refcnt)" != 0 ] &&
	[ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(cat /sys/module/gaze/refcnt)" = 0 ] || fail "the filesystem is still held after a lazy umount"
fsck_clean "a lazy umount during a reclaim"
ok "lazy umount while reclaims run back to back: $nrec reclaims, the superblock went away, fsck clean"

run mount -t gaze -o background_gc=off $D $M
[ $rc -eq 0 ] || fail "mount for the shutdown check"
fill
gc_loop
run $MODEL shutdown $M 2
[ $rc -eq 0 ] || fail "GAZE_IOC_SHUTDOWN during a reclaim"
gc_loop_end
bad=$(grep -v '^[01]$' $W/gcloop; grep 'gazectl:' $W/gcloop.out | grep -v 'Read-only')
[ -z "$bad" ] || { cat $W/gcloop.out >$W/out; fail "gc --wait across a shutdown"; }
run umount $M
[ $rc -eq 0 ] || fail "umount after shutdown"
fsck_clean "a shutdown during a reclaim"
ok "GAZE_IOC_SHUTDOWN (no log flush) while reclaims run back to back: $nrec reclaims, umount, fsck clean"

run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount after the shutdown"
run umount $M
[ $rc -eq 0 ] || fail "umount"
fsck_clean "mounting after the shutdown"

# the background thread through the pipeline: sync mode below 100% free
fresh background_gc=off
fill
md5sum $M/h* >$W/h.md5
run "$GAZECTL" gc-stats --reset $M
run "$GAZECTL" tune $M bg_gc_high_pct=100 bg_gc_low_pct=100 background_gc=sync
[ $rc -eq 0 ] || fail "tune background_gc=sync"
i=0
while [ $i -lt 120 ]; do
	gcstats
	[ "$(stat_get 'd["zones_reclaimed"] > 0 and d["stages"][3]["blocks"] > 0')" = True ] && break
	sleep 1
	i=$((i + 1))
done
[ $i -lt 120 ] || fail "background GC (sync) reclaimed nothing through the pipeline in 120 s: $(cat $W/out)"
bgz=$(stat_get 'd["zones_reclaimed"]')
run umount $M
[ $rc -eq 0 ] || fail "umount with background GC running"
fsck_clean "background GC through the pipeline"
run mount -t gaze -o background_gc=off $D $M
[ $rc -eq 0 ] || fail "mount after background GC"
md5sum $M/h* | cmp -s - $W/h.md5 || fail "files changed by background GC"
run umount $M
ok "background GC (sync) through the pipeline: $bgz zones, umount while it runs, fsck clean, files intact"

# figures only (no timed assertion): one zone with and without the pipeline
fresh background_gc=off
fill
# the pool resized online: a reclaim through 64 pages reuses them
run "$GAZECTL" tune $M gc_pool_blocks=64
[ $rc -eq 0 ] || fail "tune gc_pool_blocks=64"
run "$GAZECTL" tune $M gc_pool_blocks=63
[ $rc -eq 2 ] && grep -q 'out of range 64' $W/err || fail "gc_pool_blocks=63 accepted: exit $rc"
run "$GAZECTL" gc-stats --reset $M
run "$GAZECTL" gc --wait $M
[ $rc -eq 0 ] || fail "gc --wait with a 64-page pool: exit $rc"
gcstats
st=$(stat_get 'd["pool_blocks"], d["pool_used_max"], d["pages_gc"], d["stages"][1]["blocks"]') ||
	fail "gc-stats --json does not parse"
set -- $st
[ "$1" -eq 64 ] && [ "$2" -gt 0 ] && [ "$2" -le 64 ] && [ "$3" -gt 0 ] &&
	[ "$3" -eq "$4" ] || fail "pool of 64: size, used max, pages, blocks read = $st"
run "$GAZECTL" tune $M gc_pool_blocks=2048
gcstats
[ "$(stat_get 'd["pool_blocks"]')" -eq 2048 ] || fail "the pool did not grow to 2048"
ok "gc_pool_blocks shrinks and grows online; a reclaim with a 64-page pool: size, used max, pages, blocks read = $st"
for p in 1 0 1 0; do
	run "$GAZECTL" tune $M gc_pipeline=$p
	run "$GAZECTL" gc --wait $M
	[ $rc -eq 0 ] || fail "gc --wait with gc_pipeline=$p: exit $rc"
	echo "# gc_pipeline=$p: $(cat $W/out)"
done
run umount $M
[ $rc -eq 0 ] || fail "umount after the figures"
fsck_clean "the pipeline on/off reclaims"
ok "gazectl gc --wait with gc_pipeline=1 and 0 alternately, fsck clean"
dmesg | grep 'gaze' | grep -v 'module verification' | grep -v 'shut down' |
	grep -iE 'error|corrupt|failed|warn' >$W/err &&
	fail "gaze errors in the kernel log"
ok "no gaze error in the kernel log"
run rmmod gaze
[ $rc -eq 0 ] || fail "rmmod gaze"
ok "rmmod gaze"
echo "1..$n"
