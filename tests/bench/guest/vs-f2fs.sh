#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vs-f2fs.sh - runs INSIDE the guest for tests/bench/vm-f2fs.sh: the
# workloads on one filesystem, FS_ONLY=gaze (the ZNS namespace alone) or
# FS_ONLY=f2fs (-m, with the smallest conventional device mkfs.f2fs
# accepts: a dm-linear prefix of /dev/vda, grown a zone at a time, since
# F2FS's main area starts there and a larger one would take a share of
# F2FS's data off the namespace; and the mq-deadline scheduler on the
# namespace, which F2FS needs on zoned devices and Debian's 6.1 kernel
# does not select: lib.sh f2fs_zoned_sched; GAZE keeps the default
# "none").  Prints "# FS PHASE SECONDS" lines and
# the MiB written to each device.  Phases: sequential write and read
# with 1 MiB I/O, create / stat / unlink of SMALL_N files of SMALL_SIZE
# bytes (tests/bench/smallfiles; stat also of every 16th file in a
# random order, after a cache drop), fio 4 KiB random overwrite of the big
# file, then 2048 of them each followed by fsync, delete of the big file.
set -u
. "$GAZE_SRCDIR/tests/bench/guest/lib.sh"
B=$GAZE_BUILDDIR
W=/tmp/bench
M=$W/mnt
mkdir -p $M $W/src
bench_devices "$B/kmod/gaze.ko"
Z=/dev/nvme0n1
# inputs in tmpfs, so reading them costs the same for both
SEQ_MIB=$((ZNS_MIB / 8))
[ $SEQ_MIB -le 256 ] || SEQ_MIB=256
head -c $((SEQ_MIB * 1048576)) /dev/urandom >$W/src/big
SF=$B/tests/bench/smallfiles
warm_ram

# t NAME CMD...: runs CMD, records its wall time under $FS/NAME
t()
{
	name=$1
	shift
	s=$(now)
	"$@" >$W/out 2>&1 || { echo "# $FS $name failed:"; sed 's/^/# /' $W/out; exit 1; }
	e=$(now)
	echo "$name $(echo "$e - $s" | bc -l)" >>$W/times.$FS
}
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

workload()
{
	: >$W/times.$FS
	t seq_write dd if=$W/src/big of=$M/big bs=1M conv=fsync
	drop
	t seq_read dd if=$M/big of=/dev/null bs=1M
	mkdir $M/small
	t small_create "$SF" create $M/small "$SMALL_N" "$SMALL_SIZE"
	drop
	t small_stat "$SF" stat $M/small "$SMALL_N" "$SMALL_SIZE"
	# every 16th file in a random order: an inode's neighbours go unused
	drop
	t small_stat_sparse "$SF" sparse $M/small "$SMALL_N" 16
	# random 4 KiB overwrites of the big file, 2x its size in total
	t rand_overwrite fio --name=rw --filename=$M/big --rw=randwrite \
		--bs=4k --size=${SEQ_MIB}m --io_size=$((SEQ_MIB * 2))m \
		--ioengine=psync --end_fsync=1 --randrepeat=1 --random_generator=lfsr
	# a database's pattern: 2048 random 4 KiB overwrites, each fsync'd
	t fsync_4k fio --name=fs --filename=$M/big --rw=randwrite \
		--bs=4k --size=${SEQ_MIB}m --io_size=8m --ioengine=psync \
		--fsync=1 --randrepeat=1 --random_generator=lfsr
	t small_unlink "$SF" unlink $M/small "$SMALL_N" "$SMALL_SIZE"
	t delete_big sh -c "rm $M/big && sync"
}

# wsec DEV: sectors written to DEV so far
wsec() { awk '{ print $7 }' /sys/block/$1/stat; }
# written FS: MiB each device took during FS's run
written()
{
	echo "# $1 wrote $((($(wsec nvme0n1) - z0) / 2048)) MiB to the namespace, $((($(wsec vda) - v0) / 2048)) MiB to the conventional device"
}

run_gaze()
{
	FS=gaze
	z0=$(wsec nvme0n1) v0=$(wsec vda)
	"$B/mkfs/mkfs.gaze" -f $Z >$W/out 2>&1 || { cat $W/out; exit 1; }
	mount -t gaze $Z $M || exit 1
	workload
	umount $M || exit 1
	written gaze
	sed 's/^/# gaze /' $W/times.gaze
}

run_f2fs()
{
	FS=f2fs
	z0=$(wsec nvme0n1) v0=$(wsec vda)
	C=/dev/mapper/f2conv
	vda_mib=$(($(cat /sys/block/vda/size) / 2048))
	conv=$ZONE_MIB
	f2fs_zoned_sched $Z
	while :; do
		dmsetup create f2conv \
			--table "0 $((conv * 2048)) linear /dev/vda 0" || exit 1
		dmsetup mknodes f2conv	# no udev in the guest
		blkzone reset $Z
		mkfs.f2fs -f -m -c $Z $C >$W/out 2>&1 && break
		dmsetup remove f2conv
		conv=$((conv + ZONE_MIB))
		[ $conv -le $vda_mib ] || { cat $W/out; exit 1; }
	done
	echo "# f2fs: conventional device $conv MiB (the smallest mkfs.f2fs accepts)"
	mount -t f2fs $C $M || { dmesg | tail; exit 1; }
	workload
	umount $M || exit 1
	dmsetup remove f2conv
	written f2fs
	sed 's/^/# f2fs /' $W/times.f2fs
}

# one filesystem per guest: a run leaves the guest's
# memory in a state that slows the next one's sequential read by up to
# 40%, whichever filesystem comes second; the host prints the table
case ${FS_ONLY:-} in
gaze) run_gaze ;;
f2fs) run_f2fs ;;
*) echo "vs-f2fs: FS_ONLY must be gaze or f2fs"; exit 2 ;;
esac
