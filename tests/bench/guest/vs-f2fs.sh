#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vs-f2fs.sh - runs INSIDE the guest for tests/bench/vm-f2fs.sh: the same
# workloads on GAZE (the ZNS namespace alone) and on F2FS (-m, metadata
# on /dev/vda), then a table of times and ratios.  Phases: sequential
# write and read with 1 MiB I/O, create / stat / unlink of SMALL_N files
# of SMALL_SIZE bytes (tests/bench/smallfiles), fio 4 KiB random
# overwrite of the big file, delete of the big file.
set -u
B=$GAZE_BUILDDIR
W=/tmp/bench
M=$W/mnt
mkdir -p $M $W/src
modprobe libcrc32c
insmod "$B/kmod/gaze.ko" || { echo "insmod failed"; exit 1; }
modprobe f2fs || { echo "no f2fs module"; exit 1; }
modprobe nvme
modprobe virtio_blk
i=0
while { [ ! -b /dev/nvme0n1 ] || [ ! -b /dev/vda ]; } && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
Z=/dev/nvme0n1
# inputs in tmpfs, so reading them costs the same for both
SEQ_MIB=$((ZNS_MIB / 8))
[ $SEQ_MIB -le 256 ] || SEQ_MIB=256
head -c $((SEQ_MIB * 1048576)) /dev/urandom >$W/src/big
SF=$B/tests/bench/smallfiles

now() { date +%s.%N; }
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
	# random 4 KiB overwrites of the big file, 2x its size in total
	t rand_overwrite fio --name=rw --filename=$M/big --rw=randwrite \
		--bs=4k --size=${SEQ_MIB}m --io_size=$((SEQ_MIB * 2))m \
		--ioengine=psync --end_fsync=1 --randrepeat=1 --random_generator=lfsr
	t small_unlink "$SF" unlink $M/small "$SMALL_N" "$SMALL_SIZE"
	t delete_big sh -c "rm $M/big && sync"
}

FS=gaze
"$B/mkfs/mkfs.gaze" -f $Z >$W/out 2>&1 || { cat $W/out; exit 1; }
mount -t gaze $Z $M || exit 1
workload
umount $M || exit 1
sed 's/^/# gaze /' $W/times.gaze

FS=f2fs
blkzone reset $Z
mkfs.f2fs -f -m -c $Z /dev/vda >$W/out 2>&1 || { cat $W/out; exit 1; }
mount -t f2fs /dev/vda $M || { dmesg | tail; exit 1; }
workload
umount $M || exit 1

echo "# GAZE vs F2FS (zoned), ${ZNS_MIB} MiB ZNS, ${SEQ_MIB} MiB file, $SMALL_N x $SMALL_SIZE-byte files"
printf 'phase %-16s %10s %10s %8s\n' name gaze_s f2fs_s ratio
while read -r name g; do
	f=$(grep "^$name " $W/times.f2fs | cut -d' ' -f2)
	printf '  %-22s %10.3f %10.3f %8.2f\n' "$name" "$g" "$f" "$(echo "$g / $f" | bc -l)"
done <$W/times.gaze
