#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# main-job-guest.sh - the guest half of scripts/main-job.sh (runs inside
# the QEMU guest): load gaze.ko, format the emulated NVMe ZNS namespace
# from the sample tree, mount it, run a workload that makes the garbage
# collector work, show gazectl info and gc-stats, remount and verify,
# check it with fsck.gaze.  Environment: KO, MKFS, GAZECTL, FSCK, TREE.
set -eu
step() { echo; echo "==> $*"; }

step "guest: $(uname -r), loading gaze.ko"
modprobe -a libcrc32c lz4_compress zstd_compress
insmod "$KO"
modprobe nvme
i=0
while [ ! -b /dev/nvme0n1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
D=/dev/nvme0n1
echo "$D: $(cat /sys/block/nvme0n1/queue/zoned), $(cat /sys/block/nvme0n1/queue/nr_zones) zones," \
	"max open $(cat /sys/block/nvme0n1/queue/max_open_zones)"

step "mkfs.gaze -d TREE $D"
"$MKFS" -L main-job -d "$TREE" "$D" </dev/null

step "mount -t gaze $D /mnt"
mkdir -p /mnt
mount -t gaze "$D" /mnt
grep " /mnt " /proc/mounts
df -h /mnt

step "workload: copies, a 256 MiB file, 4 overwrites of a 64 MiB file, 2000 small files"
W=/tmp/work
mkdir -p $W
cp -a /mnt/data /mnt/data-copy
dd if=/dev/urandom of=$W/big bs=1M count=256 status=none
t0=$(date +%s.%N)
cp $W/big /mnt/big
sync
t1=$(date +%s.%N)
echo "256 MiB copied and synced in $(echo "$t1 $t0" | awk '{printf "%.2f", $1 - $2}') s"
for r in 1 2 3 4; do
	dd if=/dev/urandom of=/mnt/churn bs=1M count=64 conv=fsync status=none
done
mkdir /mnt/small
for i in $(seq 1 2000); do echo "small file $i" >/mnt/small/f$i; done
step "overwrite the 256 MiB file 8 times in place (2 GiB through a 960 MiB filesystem)"
for r in 1 2 3 4 5 6 7 8; do
	dd if=$W/big of=/mnt/big bs=1M conv=notrunc status=none
	sync
done
cmp $W/big /mnt/big
sha256sum /mnt/big /mnt/churn /mnt/small/f1999 >$W/sums
sync
df -h /mnt
df -i /mnt

step "gazectl info /mnt"
"$GAZECTL" info /mnt

step "gazectl gc --wait /mnt (one zone on demand)"
"$GAZECTL" gc --wait /mnt

step "gazectl gc-stats /mnt"
"$GAZECTL" gc-stats /mnt

step "umount, mount again, verify"
umount /mnt
mount -t gaze "$D" /mnt
sha256sum -c $W/sums
[ "$(ls /mnt/small | wc -l)" -eq 2000 ]
(cd /mnt/data && find . -type f -exec sha256sum {} + | sort -k2) >$W/a
(cd /mnt/data-copy && find . -type f -exec sha256sum {} + | sort -k2) >$W/b
cmp -s $W/a $W/b
echo "copied tree identical ($(wc -l <$W/a) files)"
umount /mnt

step "fsck.gaze -f -n $D"
"$FSCK" -f -n "$D" >$W/fsck.out	# not a tty: no progress lines
cat $W/fsck.out

step "gazectl ls -l $D (unmounted, read-only)"
"$GAZECTL" ls -l "$D"
rmmod gaze
echo
echo "guest: OK"
