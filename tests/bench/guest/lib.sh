# SPDX-License-Identifier: GPL-2.0
# lib.sh - sourced by the benchmark guest scripts (tests/bench/guest/).
#
# warm_ram: writes most of the guest's free memory once, through a
# tmpfs that is unmounted again.  QEMU backs guest RAM with host memory
# on first touch: a host page fault and a zeroed page per guest page, on
# a host that also runs the other vCPU and QEMU's I/O thread.  Without
# this, whichever filesystem first fills the page cache with fresh pages
# pays that for both (measured: 256 MiB written with dd took 1.3-1.5 s
# into untouched memory and 0.7-0.8 s into touched memory, for GAZE and
# for F2FS alike), and the order of the runs decides the ratio.
warm_ram()
{
	_mib=$(awk '/^MemFree:/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
	mkdir -p /tmp/.warm-ram
	if mount -t tmpfs -o size=${_mib}m warm /tmp/.warm-ram; then
		head -c $((_mib * 1048576)) /dev/zero \
			>/tmp/.warm-ram/fill 2>/dev/null
		umount /tmp/.warm-ram
	fi
	echo "# guest memory touched once: $_mib MiB"
}

# f2fs_zoned_sched DEV: F2FS writes a zone from several contexts and
# relies on the mq-deadline scheduler to keep them in write-pointer order
# (Debian 12's 6.1 kernel gives NVMe ZNS namespaces "none", and F2FS
# then fails with Zone Invalid Write): selects it, as an F2FS user must,
# or fails.  GAZE works with any scheduler.
f2fs_zoned_sched()
{
	_q=/sys/block/${1#/dev/}/queue/scheduler
	echo mq-deadline >"$_q" 2>/dev/null
	grep -q '\[mq-deadline\]' "$_q" || {
		echo "# FAILED: cannot select mq-deadline for $1 ($(cat "$_q")): F2FS would fail"
		exit 1
	}
}

# bench_devices KO: loads gaze.ko (KO), the F2FS, ext4, NVMe, virtio and
# device-mapper drivers, and waits for /dev/nvme0n1 and /dev/vda
bench_devices()
{
	modprobe -a libcrc32c lz4_compress zstd_compress
	insmod "$1" || { echo "# FAILED: insmod $1"; exit 1; }
	modprobe f2fs || { echo "# FAILED: no f2fs module"; exit 1; }
	modprobe ext4
	modprobe nvme
	modprobe virtio_blk
	modprobe dm-mod
	_i=0
	while { [ ! -b /dev/nvme0n1 ] || [ ! -b /dev/vda ]; } && [ $_i -lt 100 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
}

# the guest scripts' helpers; $W is the caller's work directory (out, err)
say() { echo "# $*"; }
die()
{
	echo "# FAILED: $*"
	for f in $W/out $W/err; do [ -s $f ] && sed 's/^/#   /' $f | tail -20; done
	dmesg | tail -10 | sed 's/^/# dmesg: /'
	exit 1
}
run() { "$@" </dev/null >$W/out 2>$W/err; rc=$?; }
now() { date +%s.%N; }
