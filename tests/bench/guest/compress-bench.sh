#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# compress-bench.sh - runs INSIDE a benchmark guest (tests/bench/
# vm-compress.sh): transparent compression on a real corpus.  CORPUS (a
# tar file) and TREE (a directory, or a tar of one) are copied to tmpfs
# first, so the host's 9p share is not what is timed.  For each configuration in
# CONFIGS (off, or a --compression value) on GAZE, and then F2FS with its
# own compression (lz4 and zstd, compress_extension=*) as the reference
# row:
#   write   cp of the tar + sync (MB/s of data)
#   read    cat of it after drop_caches (MB/s)
#   dev     MiB the devices wrote during the write (/sys/block/*/stat):
#           what compression saves the flash (F2FS's compression keeps
#           the blocks it saves reserved, so its st_blocks do not shrink)
#   ratio   the file's data / the space it takes (st_blocks), and the
#           tree's the same way (gazectl compress-stats on GAZE)
#   rw      random 4 KiB buffered overwrites of the tar (RW_MIB, default
#           16, fio) and the sync after them (MB/s)
#   w1cpu   on GAZE with compression: the tar written again (cp + sync)
#           with compress_cpu_pct=1, writeback compressing on one CPU;
#   r1cpu   and read (cat after drop_caches) at compress_cpu_pct=1,
#           readahead decoding on one CPU; rw1cpu: rw on that copy;
#           cpus: how many the default (75%) gives in this guest
#   gc      on GAZE: the tar written again as two files 1 MiB each in
#           turn, round after round until they take 2.5 zones' capacity
#           on the device (large zones hold many compressed tars), one
#           deleted, one zone reclaimed (gazectl gc): seconds and blocks
#           moved (compressed data moves as it is stored)
# Prints "# cb NAME key=value ..." lines.
set -u
B=$GAZE_BUILDDIR
KO=$B/kmod/gaze.ko
MKFS=$B/mkfs/mkfs.gaze
CTL=$B/gazectl/gazectl
. "$GAZE_SRCDIR/tests/bench/guest/lib.sh"
W=/tmp/cb
M=$W/mnt
mkdir -p $W $M
Z=/dev/nvme0n1
V=/dev/vda
say() { echo "# $*"; }
die() { echo "# FAILED: $*"; exit 1; }
now() { cut -d' ' -f1 /proc/uptime; }
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
# sectors written to the namespace and the virtio disk (F2FS keeps data on
# its first device, the virtio disk, while it has room)
devw() { cat /sys/block/nvme0n1/stat /sys/block/vda/stat |
	 awk '{ s += $7 } END { print s }'; }

bench_devices "$KO"
mkdir -p $W/src
cp "$CORPUS" $W/src/corpus.tar || die "copy $CORPUS"
if [ -f "$TREE" ]; then		# a tar of the tree (vm-compress.sh)
	mkdir -p $W/src/tree && tar -C $W/src/tree -xf "$TREE" ||
		die "extract $TREE"
else
	cp -r "$TREE" $W/src/tree || die "copy $TREE"
fi
TARMB=$(( $(stat -c %s $W/src/corpus.tar) / 1048576 ))
say "corpus: $(basename "$CORPUS"), $TARMB MiB; tree: $(find $W/src/tree -type f | wc -l) files, $(du -sm --apparent-size $W/src/tree | cut -f1) MiB; $(nproc) vCPUs"
warm_ram

# measure FS-NAME DEV: the tar and the tree on what is mounted at $M
measure()
{
	d0=$(devw $2)
	t0=$(now)
	cp $W/src/corpus.tar $M/ && sync || die "$1: write"
	t1=$(now)
	d1=$(devw $2)
	sync
	echo 3 >/proc/sys/vm/drop_caches
	t2=$(now)
	cat $M/corpus.tar >/dev/null || die "$1: read"
	t3=$(now)
	cmp -s $M/corpus.tar $W/src/corpus.tar || die "$1: corpus reads back different"
	blocks=$(stat -c %b $M/corpus.tar)
	size=$(stat -c %s $M/corpus.tar)
	cp -r $W/src/tree $M/tree && sync || die "$1: tree"
	tl=$(find $M/tree -type f -printf '%s %b\n' |
	     awk '{ l += $1; p += $2 * 512 } END { printf "%.3f", p ? l / p : 0 }')
	rw=$(randw $M/corpus.tar) || die "$1: random overwrites"
	echo "# cb $1 write=$(calc "$TARMB / ($t1 - $t0)") read=$(calc "$TARMB / ($t3 - $t2)") dev_mib=$(calc "($d1 - $d0) / 2048") ratio=$(calc "$size / ($blocks * 512)") tree_ratio=$tl rw=$rw"
}

# random 4 KiB buffered overwrites of FILE, RW_MIB (default 16) in all,
# and the final sync: MB/s (on compressed data each rewrites part of a
# cluster, which writeback merges with the rest of it)
randw()
{
	sync
	echo 3 >/proc/sys/vm/drop_caches
	t0=$(now)
	fio --name=rw --filename=$1 --rw=randwrite --bs=4k --ioengine=psync \
	    --io_size=${RW_MIB:-16}m --randrepeat=1 --norandommap \
	    --buffer_compress_percentage=60 --refill_buffers \
	    --output=/dev/null >/dev/null 2>&1 || return 1
	sync
	t1=$(now)
	calc "${RW_MIB:-16} / ($t1 - $t0)"
}

for cfg in $CONFIGS; do
	name=gaze-$cfg
	blkzone reset $Z
	if [ "$cfg" = off ]; then
		"$MKFS" -q -f $Z || die "mkfs.gaze"
	else
		"$MKFS" -q -f --compression "$cfg" $Z || die "mkfs.gaze --compression $cfg"
	fi
	mount -t gaze $Z $M || die "mount gaze ($cfg)"
	measure "$name" $Z
	"$CTL" compress-stats $M | sed "s/^/# $name: /"
	if [ "$cfg" != off ]; then
		# writeback's compression on one CPU, the same tar again
		cpus=$("$CTL" info $M | sed -n 's/^compressing on: *up to \([0-9]*\) CPUs.*/\1/p')
		rm -rf $M/tree $M/corpus.tar
		sync
		"$CTL" tune $M compress_cpu_pct=1 >/dev/null || die "$name: tune"
		t0=$(now)
		cp $W/src/corpus.tar $M/c1 && sync || die "$name: write at 1 CPU"
		t1=$(now)
		echo 3 >/proc/sys/vm/drop_caches
		t2=$(now)
		cat $M/c1 >/dev/null || die "$name: read at 1 CPU"
		t3=$(now)
		cmp -s $M/c1 $W/src/corpus.tar || die "$name: the 1-CPU copy differs"
		rw1=$(randw $M/c1) || die "$name: random overwrites at 1 CPU"
		"$CTL" tune $M compress_cpu_pct=75 >/dev/null
		rm $M/c1
		echo "# cb $name w1cpu=$(calc "$TARMB / ($t1 - $t0)") r1cpu=$(calc "$TARMB / ($t3 - $t2)") rw1cpu=$rw1 cpus=$cpus"
	fi
	# the tar again as two files written 1 MiB each in turn (fsync), so
	# each zone holds half of each; one goes, the victim zone is
	# reclaimed: its half of the other is moved as it is stored.  Round
	# after round of the tar, until the two take 2.5 zones' capacity on
	# the device (at least one round; at most half of the room df gave
	# before them), so that compressed data fills whole zones however
	# large they are
	rm -rf $M/tree $M/corpus.tar
	sync
	zcap=$("$CTL" info --json $M | tr -d ' \n' |
	       sed -n 's/.*"zone_cap":\([0-9]*\).*/\1/p')
	want=$(( ${zcap:-0} * 5 / 2 * 4096 ))
	room=$(( $(df -B1 --output=avail $M | tail -1) / 2 ))
	rounds=0
	phys=0
	while [ $rounds -eq 0 ] ||
	      { [ $phys -lt $want ] && [ $((phys + phys / rounds)) -le $room ]; }; do
		i=0
		while [ $i -lt $TARMB ]; do
			o=$((rounds * TARMB + i))
			for f in a b; do
				dd if=$W/src/corpus.tar of=$M/$f bs=1M skip=$i \
				   seek=$o count=1 conv=notrunc,fsync status=none ||
					die "$name: dd"
			done
			i=$((i + 1))
		done
		rounds=$((rounds + 1))
		phys=$(( ($(stat -c %b $M/a) + $(stat -c %b $M/b)) * 512 ))
	done
	say "$name: GC input: $rounds rounds of the tar in each of two files, $((phys >> 20)) MiB on the device, zones of $(( ${zcap:-0} / 256 )) MiB capacity"
	rm $M/b
	sync
	"$CTL" gc-stats --json $M >$W/g0
	t0=$(now)
	"$CTL" gc $M >$W/gc.out 2>&1 || say "$name: gazectl gc: $(cat $W/gc.out)"
	t1=$(now)
	"$CTL" gc-stats --json $M >$W/g1
	# the loop wrote the tar's whole MiB (TARMB of them) each round
	[ "$(stat -c %s $M/a)" -eq $((rounds * TARMB << 20)) ] ||
		die "$name: the file's size after GC is not $rounds tars"
	r=0
	while [ $r -lt $rounds ]; do
		cmp -s -i $((r * TARMB << 20)):0 -n $((TARMB << 20)) $M/a \
		    $W/src/corpus.tar ||
			die "$name: round $r of the file reads back different after GC"
		r=$((r + 1))
	done

	m0=$(tr -d ' \n' <$W/g0 | sed -n 's/.*"blocks_moved":\([0-9]*\).*/\1/p')
	m1=$(tr -d ' \n' <$W/g1 | sed -n 's/.*"blocks_moved":\([0-9]*\).*/\1/p')
	moved=$(( ${m1:-0} - ${m0:-0} ))
	# 0 moved: no zone to reclaim (the file fits the open zones); say
	# so in words, with what gazectl gc answered
	[ $moved -gt 0 ] ||
		say "$name: GC moved nothing, no victim zone (gazectl gc: $(tr '\n' ' ' <$W/gc.out))"
	echo "# cb $name gc_secs=$(calc "$t1 - $t0") gc_moved=$moved"
	umount $M || die "umount ($cfg)"
done

# F2FS with its own compression: the zoned namespace (mq-deadline, as
# F2FS needs it there) with metadata on the virtio disk
for alg in ${F2FS_ALGS:-lz4 zstd}; do
	f2fs_zoned_sched $Z
	blkzone reset $Z
	dd if=/dev/zero of=$V bs=1M count=4 status=none
	if ! mkfs.f2fs -f -m -O extra_attr,compression -c $Z $V >$W/f2fs.out 2>&1; then
		# F2FS's own limit on few zones: no F2FS rows, said so
		grep -q "not sufficient" $W/f2fs.out ||
			die "mkfs.f2fs: $(tail -3 $W/f2fs.out)"
		say "no F2FS rows: mkfs.f2fs refuses this namespace ($(grep -m1 "not sufficient" $W/f2fs.out | tr -s '\t ' ' '))"
		break
	fi
	mount -t f2fs -o compress_algorithm=$alg,compress_extension='*' $V $M ||
		die "mount f2fs compress_algorithm=$alg"
	measure f2fs-$alg $Z
	umount $M
done
echo "# cb done"
