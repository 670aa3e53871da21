#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scale-bench.sh - runs INSIDE the guest for tests/bench/vm-scale.sh: one
# filesystem (FS_ONLY: gaze, or f2fs zoned with its metadata on the
# smallest prefix of /dev/vda mkfs.f2fs accepts and mq-deadline) on the
# namespace /dev/nvme0n1, N = JOBS jobs (default: the vCPUs), SECS
# seconds per timed phase (default 10):
#   (a) 4 KiB O_DIRECT random reads of a 256 MiB file, iodepth 1 and 32
#       (libaio): IOPS
#   (b) 4 KiB buffered random overwrites, 1 job on one 64 MiB file and N
#       jobs on N such files, each with a final fsync: MiB/s over fio's
#       time and the sync after it (vm.dirty_bytes 32 MiB and
#       dirty_background_bytes 8 MiB for the whole run, so writeback runs
#       as they write)
#   (c) empty-file creates, 1 and N processes in separate directories,
#       then syncfs (tests/bench/smallfiles pcreate): creates/s
#   (e) sequential 1 MiB writes (a final fsync) and, after dropping the
#       caches, buffered reads of 256 MiB: 1 job, and N jobs on 256/N MiB
#       each: MiB/s
#   (d) stat and open latency of uncached files while one writer
#       streams and GC runs: a file of 45% of the free space written,
#       then 4 KiB random overwrites for AGE_SECS (default 30), NFILES
#       (default 6000) empty files made, caches dropped; then a
#       sequential 1 MiB writer loops over a second file of 35% of the
#       free space while tests/bench/smallfiles lat stats half the files
#       and opens the other half in a random order: p50/p99/max us
#   (f) stat of uncached files: NSTAT (default 3000) empty files in each
#       of N directories, caches dropped, then find -type f -printf %s
#       (a readdir, and a lookup and a stat per file) over one directory,
#       and over all N at once by N processes: files/s
#   (g) namespace changes, 1 and N processes in separate directories:
#       cycles of create, link, rename, unlink, unlink (tests/bench/
#       smallfiles pchange), then syncfs: changes/s
#   (k) new files of 4 KiB, each fsync'd before its close, 1 and N
#       processes in separate directories, then syncfs (tests/bench/
#       smallfiles pfsync): files/s, and on GAZE the checkpoints taken
#   (s) empty-file creates by N processes in separate directories while
#       another appends 4 KiB to a file and fsyncs it every 0.2 s (a
#       mail or database server beside other work): the fsyncs after
#       creates commit what the creates dirtied; creates/s, the longest
#       create (ms) and the longest fsync (ms)
#   (y) stat and open latency of uncached files (tests/bench/smallfiles
#       lat over NFILES files, caches dropped) while another process
#       loops: empty-file creates for 2 s, then syncfs: the latency of
#       lookups beside a sync with much to write; p99 and max us
# PHASES (default "a b c g e f d") picks and orders the phases; (k), (s)
# and (y) run only when named.
# Prints "# sc FS TEST VARIANT VALUE" lines and "# ..." comments.
set -u
. "$GAZE_SRCDIR/tests/bench/guest/lib.sh"
B=$GAZE_BUILDDIR
SF=$B/tests/bench/smallfiles
CTL=$B/gazectl/gazectl
FS=${FS_ONLY:-}
SECS=${SECS:-10}
AGE_SECS=${AGE_SECS:-30}
NFILES=${NFILES:-6000}
NSTAT=${NSTAT:-3000}
PHASES=${PHASES:-a b c g e f d}
JOBS=${JOBS:-$(nproc)}
W=/tmp/scale
M=$W/mnt
Z=/dev/nvme0n1
mkdir -p $M

drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
fig() { echo "# sc $FS $*"; }
avail_mib() { df -m --output=avail $M | tail -1 | tr -d ' '; }
# fio_json FIELD: a figure from $W/fio.json, summed over its jobs
fio_json()
{
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"]
d, k = sys.argv[2].split(".")
print("%.1f" % sum(x[d][k] for x in j))' $W/fio.json "$1"
}
# timed_mib MIB CMD...: runs CMD, then sync; MiB/s over both
timed_mib()
{
	_mib=$1
	shift
	_s=$(now)
	run "$@"
	[ $rc -eq 0 ] || die "$*"
	sync
	_e=$(now)
	echo "$_mib / ($_e - $_s)" | bc -l | xargs printf '%.1f'
}

bench_devices "$B/kmod/gaze.ko"
[ -b $Z ] || die "$Z did not appear"
warm_ram
# buffered, but written back as it goes (as tests/bench/guest/geom-bench.sh):
# otherwise (b)'s overwrites of files that fit in memory measure the
# page cache, and writeback only the final fsync
echo $((8 << 20)) >/proc/sys/vm/dirty_background_bytes
echo $((32 << 20)) >/proc/sys/vm/dirty_bytes
say "$FS: $(nproc) vCPUs, N = $JOBS jobs, $SECS s per phase, $Z $(($(cat /sys/block/nvme0n1/size) / 2048)) MiB in $(cat /sys/block/nvme0n1/queue/nr_zones) zones"

up()
{
	case $FS in
	gaze)
		blkzone reset $Z
		run "$B/mkfs/mkfs.gaze" -f -q $Z
		[ $rc -eq 0 ] || die "mkfs.gaze"
		run mount -t gaze $Z $M
		[ $rc -eq 0 ] || die "mount gaze"
		;;
	f2fs)
		f2fs_zoned_sched $Z
		vda_mib=$(($(cat /sys/block/vda/size) / 2048))
		zmib=$(($(cat /sys/block/nvme0n1/queue/chunk_sectors) / 2048))
		conv=$zmib
		while :; do
			run dmsetup create f2conv \
				--table "0 $((conv * 2048)) linear /dev/vda 0"
			[ $rc -eq 0 ] || die "dmsetup"
			dmsetup mknodes f2conv	# no udev in the guest
			blkzone reset $Z
			run mkfs.f2fs -f -m -c $Z /dev/mapper/f2conv
			[ $rc -eq 0 ] && break
			dmsetup remove f2conv
			conv=$((conv + zmib))
			[ $conv -le $vda_mib ] || die "mkfs.f2fs"
		done
		say "f2fs: conventional device $conv MiB (the smallest mkfs.f2fs accepts)"
		run mount -t f2fs /dev/mapper/f2conv $M
		[ $rc -eq 0 ] || die "mount f2fs"
		;;
	*)
		die "FS_ONLY must be gaze or f2fs"
		;;
	esac
}

# (a) O_DIRECT random reads at iodepth 1 and 32
phase_a()
{
	run fio --name=fill --filename=$M/rr --size=256m --rw=write --bs=1m \
		--ioengine=psync --end_fsync=1
	[ $rc -eq 0 ] || die "fill rr"
	for qd in 1 32; do
		run fio --name=rr --filename=$M/rr --size=256m --rw=randread \
			--bs=4k --direct=1 --ioengine=libaio --iodepth=$qd \
			--runtime=$SECS --time_based --norandommap \
			--output-format=json --output=$W/fio.json
		[ $rc -eq 0 ] || die "randread qd$qd"
		fig randread qd$qd "$(fio_json read.iops)"
	done
	rm -f $M/rr
	sync
}

# (b) buffered random overwrites, 1 and N jobs on their own files
phase_b()
{
	for n in 1 $JOBS; do
		run fio --name=f --directory=$M --nrfiles=1 --numjobs=$n \
			--size=64m --rw=write --bs=1m --ioengine=psync \
			--end_fsync=1
		[ $rc -eq 0 ] || die "fill rw"
		_s=$(now)
		run fio --name=f --directory=$M --nrfiles=1 --numjobs=$n \
			--size=64m --rw=randwrite --bs=4k --ioengine=psync \
			--runtime=$SECS --time_based --norandommap \
			--end_fsync=1 --output-format=json --output=$W/fio.json
		[ $rc -eq 0 ] || die "randwrite $n jobs"
		sync
		_e=$(now)
		_kib=$(fio_json write.io_kbytes)
		fig randwrite j$n "$(echo "$_kib / 1024 / ($_e - $_s)" | bc -l | xargs printf '%.2f')"
		rm -f $M/f.*
		sync
	done
}

# GAZE's checkpoint sequence number (0 on F2FS): the log says how many
# checkpoints a phase made
cp_seq()
{
	[ "$FS" = gaze ] || { echo 0; return; }
	"$CTL" info --json $M | tr -d ' \n' |
		sed -n 's/.*"cp_seq":\([0-9]*\).*/\1/p'
}

# (c) and (g): smallfiles MODE (pcreate or pchange) by 1 and N processes
# in directories of their own (DIR1, DIRN), then syncfs; the figure is
# ROW p1 and p$JOBS
ns_phase()
{
	local mode=$1 row=$2 dir=$3 cp0

	for n in 1 $JOBS; do
		mkdir $M/$dir$n
		cp0=$(cp_seq)
		run "$SF" $mode $M/$dir$n $n $SECS
		[ $rc -eq 0 ] || die "$row $n"
		fig $row p$n "$(sed -n 's/.* per_sec //p' $W/out)"
		say "$FS $row $n: $(cat $W/out) checkpoints $(($(cp_seq) - cp0))"
		rm -rf $M/$dir$n
		sync
	done
}

# (c) empty-file creates
phase_c()
{
	ns_phase pcreate create c
}

# (g) namespace changes: create, link, rename, unlink, unlink
phase_g()
{
	ns_phase pchange nschange g
}

# (k) new files of 4 KiB, each fsync'd before its close
phase_k()
{
	ns_phase pfsync fsynccreate k
}

# (s) creates beside a process that fsyncs every 0.2 s
phase_s()
{
	local cp0 sp

	mkdir $M/s
	cp0=$(cp_seq)
	(
		i=0 longest=0
		while [ ! -e $W/s.stop ]; do
			t0=$(date +%s%N)
			dd if=/dev/zero of=$M/s.log bs=4k count=1 seek=$i \
				conv=fsync,notrunc status=none || exit 1
			t=$((($(date +%s%N) - t0) / 1000000))
			[ $t -le $longest ] || longest=$t
			i=$((i + 1))
			sleep 0.2
		done
		echo "fsyncs $i longest_ms $longest"
	) >$W/s.fsync 2>&1 &
	sp=$!
	run "$SF" pcreate $M/s $JOBS $SECS
	touch $W/s.stop
	wait $sp || { cat $W/s.fsync; die "fsyncer"; }
	rm -f $W/s.stop
	[ $rc -eq 0 ] || die "synccreate"
	fig synccreate p$JOBS "$(sed -n 's/.* per_sec //p' $W/out)"
	fig synccreate longest_ms "$(awk '{ for (i = 1; i < NF; i++) if ($i == "longest_s") printf "%.0f", $(i + 1) * 1000 }' $W/out)"
	fig synccreate fsync_ms "$(awk '{ print $4 }' $W/s.fsync)"
	say "$FS synccreate $JOBS: $(cat $W/out), $(cat $W/s.fsync), checkpoints $(($(cp_seq) - cp0))"
	rm -rf $M/s $M/s.log
	sync
}

# (y) cold stat and open latency beside bursts of creates, each synced
phase_y()
{
	local cp0 sp

	mkdir $M/t
	run "$SF" create $M/t $NFILES 0
	[ $rc -eq 0 ] || die "mkfiles"
	drop
	cp0=$(cp_seq)
	(
		i=0
		while [ ! -e $W/y.stop ]; do
			mkdir $M/y$i && "$SF" pcreate $M/y$i 1 2 >>$W/y.bursts || exit 1
			i=$((i + 1))
		done
	) >$W/y.err 2>&1 &
	sp=$!
	sleep 3
	run "$SF" lat $M/t $NFILES 1
	touch $W/y.stop
	wait $sp || { cat $W/y.err; die "bursts"; }
	rm -f $W/y.stop
	[ $rc -eq 0 ] || die "lat"
	for l in stat open; do
		fig synclat ${l}_p99 "$(awk -v l=$l '$1 == l { print $5 }' $W/out)"
		fig synclat ${l}_max "$(awk -v l=$l '$1 == l { print $7 }' $W/out)"
	done
	say "$FS synclat: $(tr '\n' ' ' <$W/out), bursts: $(awk '{ n += $2; s += $8 } END { printf "%d creates, syncfs %.2f s in all", n, s }' $W/y.bursts) over $(wc -l <$W/y.bursts) bursts, checkpoints $(($(cp_seq) - cp0))"
	rm -rf $M/t $M/y* $W/y.bursts
	sync
}

# (e) sequential write and read, 1 and N jobs, 256 MiB in all
phase_e()
{
	for n in 1 $JOBS; do
		each=$((256 / n))
		r=$(timed_mib $((each * n)) fio --name=s --directory=$M \
			--numjobs=$n --size=${each}m --rw=write --bs=1m \
			--ioengine=psync --end_fsync=1)
		case $r in *FAILED*) echo "$r"; exit 1 ;; esac
		fig seqwrite j$n "$r"
		drop
		r=$(timed_mib $((each * n)) fio --name=s --directory=$M \
			--numjobs=$n --size=${each}m --rw=read --bs=1m \
			--ioengine=psync)
		case $r in *FAILED*) echo "$r"; exit 1 ;; esac
		fig seqread j$n "$r"
		rm -f $M/s.*
		sync
	done
}

# (f) stat of uncached files, 1 process, and N in directories of their own
phase_f()
{
	for i in $(seq 1 $JOBS); do
		mkdir $M/s$i
		run "$SF" create $M/s$i $NSTAT 0
		[ $rc -eq 0 ] || die "coldstat files"
	done
	for n in 1 $JOBS; do
		drop
		_s=$(now)
		for i in $(seq 1 $n); do
			find $M/s$i -type f -printf '%s\n' >$W/find.$i 2>&1 &
		done
		wait
		_e=$(now)
		for i in $(seq 1 $n); do
			[ "$(wc -l <$W/find.$i)" -eq $NSTAT ] ||
				die "coldstat find $i: $(head -3 $W/find.$i)"
		done
		fig coldstat j$n "$(echo "$n * $NSTAT / ($_e - $_s)" | bc -l | xargs printf '%.0f')"
	done
	rm -rf $M/s*
	sync
}

# gaze_gc: zones reclaimed so far (0 on F2FS)
gaze_gc()
{
	if [ $FS = gaze ]; then
		"$CTL" gc-stats --json $M | python3 -c '
import json, sys
print(json.load(sys.stdin)["zones_reclaimed"])'
	else
		awk '/GC calls:/ { print $3; exit }' /sys/kernel/debug/f2fs/status 2>/dev/null || echo 0
	fi
}

# (d) stat/open latency of uncached files while a writer streams and
# GC runs
phase_d()
{
	av=$(avail_mib)
	a=$((av * 45 / 100))
	run fio --name=age --filename=$M/age --size=${a}m --rw=write --bs=1m \
		--ioengine=psync --end_fsync=1
	[ $rc -eq 0 ] || die "fill age"
	run fio --name=age --filename=$M/age --size=${a}m --rw=randwrite \
		--bs=4k --ioengine=psync --norandommap --runtime=$AGE_SECS \
		--time_based --end_fsync=1
	[ $rc -eq 0 ] || die "age"
	mkdir $M/t
	run "$SF" create $M/t $NFILES 0
	[ $rc -eq 0 ] || die "mkfiles"
	av=$(avail_mib)
	b=$((av * 35 / 100))
	say "$FS latency: aged file $a MiB, $NFILES files, stream file $b MiB, free before $av MiB"
	drop
	g0=$(gaze_gc)
	fio --name=stream --filename=$M/stream --size=${b}m --rw=write \
		--bs=1m --ioengine=psync --time_based --runtime=3600 \
		</dev/null >$W/stream.out 2>&1 &
	sp=$!
	sleep 3
	run "$SF" lat $M/t $NFILES 1
	lrc=$rc
	cp $W/out $W/lat
	kill $sp
	wait $sp
	g1=$(gaze_gc)
	[ $lrc -eq 0 ] || { cp $W/lat $W/out; die "lat"; }
	fig stat p99 "$(awk '$1 == "stat" { print $5 }' $W/lat)"
	fig open p99 "$(awk '$1 == "open" { print $5 }' $W/lat)"
	say "$FS latency: $(tr '\n' ' ' <$W/lat), GC during it: $((g1 - g0)) ($([ $FS = gaze ] && echo zones reclaimed || echo F2FS GC calls))"
}

mount -t debugfs none /sys/kernel/debug 2>/dev/null
up
for p in $PHASES; do
	phase_$p
done
umount $M || die "umount"
[ $FS = f2fs ] && dmsetup remove f2conv
say "done"
