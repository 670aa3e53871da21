#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# geom-bench.sh - runs INSIDE the guest for tests/bench/vm-gc.sh g: random
# 4 KiB buffered overwrites at FIO_PCT% of the space on one zone geometry
# (the namespace /dev/nvme0n1 as the host made it), for every GAZE
# configuration in CONFIGS and for F2FS (zoned, metadata on /dev/vda,
# mq-deadline on the namespace), each with fsync every FSYNC writes (0:
# none) for each value in FSYNCS.  Each run: mkfs, mount (background GC
# on), a file of FIO_PCT% of the smaller of GAZE's and F2FS's available
# space written sequentially, then random overwrites until PASSES times
# the usable space is written or FIO_SECS pass, whichever comes first,
# then sync.  With JOBS > 1, JOBS fio jobs each write their own file of
# 1/JOBS of that size (laid down together, so their blocks share
# zones), and the overwrites are shared out between them.  Prints
#   RESULT g geom=NAME config=NAME fsync=N mibs=X wa=X mib=N secs=S
#            sync_s=S gc_zones=N gc_fg=N gc_mover=N freed=a/b/c/d
#            declined=N blocked_s=S p99_us=X max_us=X
# (mibs: MiB written / (fio's time + the final sync's); wa: what the
# devices wrote, namespace and F2FS's metadata disk, / what fio wrote)
# and "# ..." comments.  Environment: GEOM (a name for the table),
# CONFIGS (NAME:PIPELINE:POOL:SELBLOCK ...), FSYNCS, FIO_PCT, PASSES,
# FIO_SECS, JOBS, NO_F2FS, SYNC_PROBE (seconds between timed syncs
# while fio runs, 0: none; RESULT gains sync_probe_max_s and
# sync_probes; - when none ran); GAZE_BUILDDIR (gaze.ko in kmod/, mkfs.gaze,
# gazectl).
set -u
. "$GAZE_SRCDIR/tests/bench/guest/lib.sh"
B=$GAZE_BUILDDIR
MKFS=$B/mkfs/mkfs.gaze
CTL=$B/gazectl/gazectl
GEOM=${GEOM:-?}
CONFIGS=${CONFIGS:-"all-on:1:1:1 baseline:0:0:0"}
FSYNCS=${FSYNCS:-0}
FIO_PCT=${FIO_PCT:-70}
PASSES=${PASSES:-2}
FIO_SECS=${FIO_SECS:-300}
JOBS=${JOBS:-1}
NO_F2FS=${NO_F2FS:-0}
SYNC_PROBE=${SYNC_PROBE:-0}
W=/tmp/geom
M=$W/mnt
Z=/dev/nvme0n1
V=/dev/vda
mkdir -p $M

calc() { echo "$*" | bc -l; }
wsec() { awk '{ print $7 }' /sys/block/$1/stat; }

# sync_probe FILE: a sync(1) every SYNC_PROBE s until FILE.stop exists,
# each one's seconds appended to FILE (a sync under way when fio ends is
# waited for and counted)
sync_probe()
{
	while :; do
		t=0
		while [ $t -lt "$SYNC_PROBE" ] && [ ! -e "$1.stop" ]; do
			sleep 1
			t=$((t + 1))
		done
		[ -e "$1.stop" ] && break
		# timed where it runs: the wait below polls once a second
		( a=$(now); sync; b=$(now); calc "$b - $a" >>"$1" ) &
		sp_sync=$!
		t=0
		while kill -0 $sp_sync 2>/dev/null; do
			sleep 1
			t=$((t + 1))
			[ $t -eq 60 ] && probe_stacks
		done
		wait $sp_sync
	done
}

# what a sync that has waited 60 s waits for: the kernel stacks of the
# tasks in D state, the flusher threads and GAZE's GC thread, and the
# zones as `gazectl info` sees them
probe_stacks()
{
	echo "# probe: $(timeout 10 "$CTL" info --json $M 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); z=d["zones"]; b=d["space_blocks"]; print("zones free", z["free"], "prefree", z["prefree"], "full", z["full"], "blocks free_now", b["free_now"], "freeable", b["freeable"])' 2>/dev/null)"
	echo "# probe: $(timeout 10 "$CTL" gc-stats --json $M 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print("reclaimed", d["zones_reclaimed"], "moved", d["blocks_moved"], "reserved", d.get("reserved_now"), "blocked", d.get("writers_blocked"))' 2>/dev/null)"
	for d in /proc/[0-9]*; do
		st=$(awk '{ print $3 }' "$d/stat" 2>/dev/null) || continue
		c=$(cat "$d/comm" 2>/dev/null) || continue
		case "$st:$c" in
		D:*|*:kworker*flush*|*:gaze_gc*) ;;
		*) continue ;;
		esac
		echo "# probe: ${d#/proc/} $c $st $(tr '\n' '<' <"$d/stack" 2>/dev/null)"
	done
}

modprobe -a libcrc32c lz4_compress zstd_compress
insmod "$B/kmod/gaze.ko" || die "insmod gaze.ko"
modprobe f2fs || die "no f2fs module"
modprobe nvme
modprobe virtio_blk
i=0
while { [ ! -b $Z ] || [ ! -b $V ]; } && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -b $Z ] && [ -b $V ] || die "$Z or $V did not appear"
SCHED0=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/nvme0n1/queue/scheduler)
say "$GEOM: $Z $(($(cat /sys/block/nvme0n1/size) / 2048)) MiB, $(cat /sys/block/nvme0n1/queue/nr_zones) zones of $(($(cat /sys/block/nvme0n1/queue/chunk_sectors) / 2048)) MiB, scheduler $SCHED0"
warm_ram
# buffered, but written back as it goes: the page cache would otherwise
# absorb the run and the collectors would idle
echo $((8 << 20)) >/proc/sys/vm/dirty_background_bytes
echo $((32 << 20)) >/proc/sys/vm/dirty_bytes

gaze_up() # P Q S
{
	echo $SCHED0 >/sys/block/nvme0n1/queue/scheduler
	blkzone reset $Z
	run "$MKFS" -f -q $Z
	[ $rc -eq 0 ] || die "mkfs.gaze"
	run mount -t gaze -o background_gc=on $Z $M
	[ $rc -eq 0 ] || die "mount gaze"
	run "$CTL" tune $M gc_pipeline=$1 gc_pool=$2 selective_blocking=$3
	[ $rc -eq 0 ] || die "gazectl tune"
}

# F2FS up on $M; 1 (and F2_NO says why) when mkfs.f2fs refuses the
# geometry, which it does for few large zones ("Device size is not
# sufficient": its reserved and overprovisioned sections do not fit)
f2fs_up()
{
	f2fs_zoned_sched $Z
	blkzone reset $Z
	dd if=/dev/zero of=$V bs=1M count=4 status=none
	run mkfs.f2fs -f -m -c $Z $V
	if [ $rc -ne 0 ]; then
		F2_NO=$(grep -m1 'Error:' $W/out | sed 's/.*Error: *//; s/[^A-Za-z0-9]/_/g')
		say "mkfs.f2fs refuses this geometry: $(grep -m1 'Error:' $W/out)"
		return 1
	fi
	run mount -t f2fs $V $M
	[ $rc -eq 0 ] || die "mount f2fs"
}

avail_mib() { echo $(($(stat -f -c '%a' $M) / 256)); }

# the file size for every filesystem in the run
F2_NO=
if [ "$NO_F2FS" != 1 ] && f2fs_up; then
	F2_MIB=$(avail_mib)
	umount $M || die "umount f2fs"
fi
gaze_up 1 1 1
GZ_MIB=$(avail_mib)
umount $M || die "umount gaze"
SAME=$GZ_MIB
[ -n "${F2_MIB:-}" ] && [ "$F2_MIB" -lt "$SAME" ] && SAME=$F2_MIB
FILE=$((SAME * FIO_PCT / 100 / JOBS))
IO=$((SAME * PASSES / JOBS))
say "$GEOM: available GAZE ${GZ_MIB} MiB, F2FS ${F2_MIB:-n/a} MiB: $JOBS file(s) of $FILE MiB ($FIO_PCT% of $SAME in all), then up to $IO MiB of 4 KiB overwrites per job or ${FIO_SECS} s"
# every job its own file, f.0 f.1 ...; one report for them all
FILES="--directory=$M --filename_format=f.\$jobnum --numjobs=$JOBS --group_reporting"

one() # NAME FSYNC (mounted)
{
	name=$1
	fs=$2
	run fio --name=fill $FILES --size=${FILE}m --rw=write \
		--bs=1m --ioengine=psync --end_fsync=1
	[ $rc -eq 0 ] || die "$name: fill"
	[ $name = f2fs ] || "$CTL" gc-stats --reset $M >/dev/null
	z0=$(wsec nvme0n1) v0=$(wsec vda)
	s=$(now)
	sp=
	: >$W/probe
	rm -f $W/probe.stop
	if [ "$SYNC_PROBE" -gt 0 ]; then
		sync_probe $W/probe &
		sp=$!
	fi
	run fio --name=g $FILES --size=${FILE}m --rw=randwrite \
		--bs=4k --ioengine=psync --norandommap \
		--random_generator=tausworthe64 --io_size=${IO}m \
		--runtime=$FIO_SECS --fsync=$fs --output-format=json \
		--output=$W/fio.json
	frc=$rc
	if [ -n "$sp" ]; then
		touch $W/probe.stop
		wait $sp
	fi
	m=$(now)
	sync
	e=$(now)
	[ $frc -eq 0 ] || die "$name fsync=$fs: fio"
	z1=$(wsec nvme0n1) v1=$(wsec vda)
	r=$(python3 -c '
import json, sys
j0 = json.load(open(sys.argv[1]))["jobs"][0]
j = j0["write"]
c = j["clat_ns"]
p99 = c.get("percentile", {}).get("99.000000", 0)
fsync_max = j0.get("sync", {}).get("lat_ns", {}).get("max", 0)
fio_s = j0.get("job_runtime", 0) / 1000
mib = j["io_bytes"] / 1048576
secs = float(sys.argv[3]) - float(sys.argv[2])
dev = (int(sys.argv[4]) * 512) / 1048576
print("mibs=%.3f wa=%.3f mib=%.1f secs=%.1f sync_s=%.1f p99_us=%.1f max_us=%.1f fsync_max_ms=%.1f fio_s=%.1f" % (
    mib / secs, dev / mib if mib else 0, mib, secs,
    float(sys.argv[3]) - float(sys.argv[5]), p99 / 1000, c["max"] / 1000,
    fsync_max / 1e6, fio_s))
' $W/fio.json $s $e $((z1 - z0 + v1 - v0)) $m)
	g= ho=
	if [ $name != f2fs ]; then
		run "$CTL" gc-stats --json $M
		echo "STATS g geom=$GEOM config=$name fsync=$fs $(cat $W/out)"
		g=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
f = d["reclaims_by_freed"]
print("gc_zones=%d gc_fg=%d gc_mover=%d freed=%d/%d/%d/%d declined=%d blocked_s=%.1f gc_wa=%.3f hold_s=%.1f" % (
    d["zones_reclaimed"], d["zones_foreground"], d["zones_mover"],
    f["lt_1_8"], f["lt_1_4"], f["lt_1_2"], f["ge_1_2"], d["fg_declined"],
    d["blocked_ns_total"] / 1e9, d["write_amplification"],
    d.get("gc_hold_ns_max", 0) / 1e9))' <$W/out)
		run "$CTL" counters --json $M
		ho=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("gc_runs_handed_off", "n/a"))' <$W/out 2>/dev/null) || ho=n/a
	fi
	pr=
	if [ "$SYNC_PROBE" -gt 0 ]; then
		pmax=$(sort -g $W/probe | tail -1)
		pr=" sync_probes=$(wc -l <$W/probe) sync_probe_max_s=${pmax:--}"
	fi
	echo "RESULT g geom=$GEOM config=$name fsync=$fs $r $g${ho:+ handoffs=$ho}$pr"
}

for fs in $FSYNCS; do
	for c in $CONFIGS; do
		IFS=: read -r name p q sb <<-EOF
		$c
		EOF
		gaze_up $p $q $sb
		one $name $fs
		umount $M || die "umount gaze"
	done
	if [ "$NO_F2FS" != 1 ]; then
		if f2fs_up; then
			one f2fs $fs
			umount $M || die "umount f2fs"
		else
			echo "RESULT g geom=$GEOM config=f2fs fsync=$fs na=1 missing=$F2_NO"
		fi
	fi
done
# a hung-task report's stack is below the console's log level: from the
# kernel's ring, for the report
dmesg | grep -A 30 "blocked for more than" | sed 's/^/HUNG /'
say "done"
