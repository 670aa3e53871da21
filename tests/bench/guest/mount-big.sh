#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mount-big.sh - runs INSIDE the guest for tests/bench/vm-mount-big.sh:
# mount time and held memory of GAZE and ext4 on the empty /dev/vda.
set -u
B=$GAZE_BUILDDIR
M=/tmp/mnt
mkdir -p $M
modprobe -a libcrc32c lz4_compress zstd_compress 2>/dev/null
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
gz_device virtio
insmod "$KMOD/gaze.ko" || { echo "# FAILED: insmod"; exit 1; }
modprobe ext4 2>/dev/null
echo "# /dev/vda: $(($(blockdev --getsize64 $D) >> 30)) GiB"

# held KiB: slab, vmalloc, page tables and per-cpu areas
held()
{
	awk '/^(Slab|VmallocUsed|PageTables|Percpu):/ { s += $2 }
	     END { print s }' /proc/meminfo
}
cached()
{
	awk '/^(Buffers|Cached):/ { s += $2 } END { print s }' /proc/meminfo
}
now_ms()
{
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}0" | sed 's/^0*//'
}

# bench FS OPTS: RUNS mounts
bench()
{
	fs=$1 opts=$2
	for i in $(seq 1 "$RUNS"); do
		sync
		echo 3 >/proc/sys/vm/drop_caches
		sleep 1
		h0=$(held) c0=$(cached)
		t0=$(date +%s%N)
		mount -t $fs -o "$opts" $D $M || { echo "# FAILED: mount $fs"; exit 1; }
		t1=$(date +%s%N)
		h1=$(held) c1=$(cached)
		ms=$(( (t1 - t0) / 1000000 ))
		echo "RESULT $fs run $i mount_ms $ms held_kib $((h1 - h0)) cache_kib $((c1 - c0))"
		umount $M || { echo "# FAILED: umount $fs"; exit 1; }
	done
}

t0=$(date +%s)
"$B/mkfs/mkfs.gaze" -f -q -z "$ZONE" $D || { echo "# FAILED: mkfs.gaze"; exit 1; }
echo "# mkfs.gaze -z $ZONE: $(( $(date +%s) - t0 )) s"
bench gaze defaults
t0=$(date +%s)
mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 $D ||
	{ echo "# FAILED: mkfs.ext4"; exit 1; }
echo "# mkfs.ext4: $(( $(date +%s) - t0 )) s"
bench ext4 noinit_itable
exit 0
