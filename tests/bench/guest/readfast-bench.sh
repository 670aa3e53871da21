#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# readfast-bench.sh - runs INSIDE the guest for tests/bench/vm-readfast.sh:
# GAZE on the ZNS namespace (read_fastpath on, then off), ext4 on the
# virtio disk past its first 64 MiB, F2FS zoned on the namespace (reset)
# with its metadata on the virtio disk's first 64 MiB and mq-deadline.
# For each: a 1-page and a 4 MiB file, read once into the cache, then
# tests/vm/readfastutil bench / cold, each figure the median of REPS
# runs; on GAZE the runs with read_fastpath on and off alternate, so a
# drift in the host's load (other guests) hits both alike.  Prints
# "# rf FS LOAD THREADS R" lines (reads/s).
set -u
. "$GAZE_SRCDIR/tests/bench/guest/lib.sh"
B=$GAZE_BUILDDIR
RF=$B/tests/vm/readfastutil
CTL=$B/gazectl/gazectl
W=/tmp/bench
M=$W/mnt
mkdir -p $M
bench_devices "$B/kmod/gaze.ko"
Z=/dev/nvme0n1
warm_ram
echo "# $(nproc) vCPUs, threads: $THREADS, $SECS s per run, median of ${REPS:-3}"

files()
{
	head -c 4096 /dev/urandom >$M/hot
	head -c 4194304 /dev/urandom >$M/many
	sync
	cat $M/hot $M/many >/dev/null
}

REPS=${REPS:-3}

# one LOAD THREADS: reads/s of one run
one()
{
	case $1 in
	hot16)	"$RF" bench $M/hot $2 $SECS 16 1 ;;
	hot4k)	"$RF" bench $M/hot $2 $SECS 4096 1 ;;
	many16)	"$RF" bench $M/many $2 $SECS 16 1024 ;;
	cold16)	"$RF" cold $M/hot $SECS ;;
	esac | sed -n 's/^reads_per_sec //p'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# runs FS...: every load at every thread count, REPS runs each; with
# two names (gaze-on gaze-off) the switch alternates between runs
runs()
{
	for load in hot16 hot4k many16 cold16; do
		thr=$THREADS
		[ $load = cold16 ] && thr=1
		for t in $thr; do
			for fs in "$@"; do : >$W/r.$fs; done
			i=0
			while [ $i -lt $REPS ]; do
				for fs in "$@"; do
					case $fs in
					gaze-on) "$CTL" tune $M read_fastpath=1 >/dev/null ;;
					gaze-off) "$CTL" tune $M read_fastpath=0 >/dev/null ;;
					esac
					one $load $t >>$W/r.$fs
				done
				i=$((i + 1))
			done
			for fs in "$@"; do
				echo "# rf $fs $load $t $(median <$W/r.$fs) (runs: $(tr '\n' ' ' <$W/r.$fs))"
			done
		done
	done
}

# GAZE
"$B/mkfs/mkfs.gaze" -f $Z >$W/out 2>&1 || { sed 's/^/# /' $W/out; exit 1; }
mount -t gaze $Z $M || { echo "# FAILED: mount gaze"; exit 1; }
files
"$CTL" tune $M read_fastpath=1 >/dev/null || exit 1
runs gaze-on gaze-off
"$CTL" info $M | sed -n 's/^read fast path: */# gaze counters: /p'
umount $M

# ext4 on the virtio disk past the first 64 MiB
dmsetup create ext --table "0 $(($(cat /sys/block/vda/size) - 131072)) linear /dev/vda 131072" || exit 1
dmsetup mknodes ext
mkfs.ext4 -q -F /dev/mapper/ext || exit 1
mount -t ext4 /dev/mapper/ext $M || exit 1
files
runs ext4
umount $M
dmsetup remove ext

# F2FS zoned: the namespace, metadata on the first 64 MiB of the disk
f2fs_zoned_sched $Z
dmsetup create f2conv --table "0 131072 linear /dev/vda 0" || exit 1
dmsetup mknodes f2conv
blkzone reset $Z
mkfs.f2fs -f -m -c $Z /dev/mapper/f2conv >$W/out 2>&1 ||
	{ sed 's/^/# /' $W/out; echo "# FAILED: mkfs.f2fs"; exit 1; }
mount -t f2fs /dev/mapper/f2conv $M || { dmesg | tail | sed 's/^/# /'; exit 1; }
files
runs f2fs
umount $M
dmsetup remove f2conv
echo "# done"
