#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gc-bench.sh - runs INSIDE the guest for tests/bench/vm-gc.sh: garbage
# collection benchmarks of issue 5 on the emulated NVMe ZNS namespace
# (/dev/nvme0n1), F2FS (zoned, metadata on /dev/vda) as the reference.
# Prints machine-readable lines the host script turns into tables:
#   RESULT a zone=MIB config=NAME secs=S moved=BLOCKS valid_pct=P ksecs=S
#   RESULT a zone=MIB config=NAME na=1          (tunable not in the module)
#   RESULT b config=NAME mibs=X iops=X p99_us=X max_us=X gc_zones=N ...
#   RESULT c config=NAME zone=MIB alloc_ns=N cache_ns=N pages=N | na=1
#              (gc_pool=1: all-on or pipe+pool; gc_pool=0: pipeline)
#   RESULT d zone=MIB copy_mib=N copy_secs=S | gc_config=NAME gc_mib=X ...
#   RESULT r ...  as RESULT a, for the reclaims c or d run without a
#   RESULT ga ... geom=NAME  as RESULT a, for vm-gc.sh g (GEOM set)
# and comments ("# ...") about what it did.  Environment:
#   BENCHES    which of a b c d to run here (a, c, d share one device)
#   ZONE_MIB   the namespace's zone size (a, c, d)
#   CONFIGS    GAZE configurations for a, NAME:PIPELINE:POOL:SELBLOCK
#              separated by spaces (default: the five of the ablation)
#   NO_F2FS    1: leave F2FS out
#   FIO_SECS   b: seconds of random writes measured per filesystem
#   FIO_RAMP   b: seconds of 4 KiB random writes before (not measured),
#              after the file was overwritten once in 64 KiB blocks
#   FIO_PCT    b: file size in % of each filesystem's available space
#   GEOM       a geometry's name (vm-gc.sh g): a's lines become RESULT ga
#   ZCAP_MIB   the zones' capacity when below ZONE_MIB
# Needs GAZE_BUILDDIR (gaze.ko in kmod/, mkfs.gaze, gazectl,
# tests/bench/f2fs-gcrange), mkfs.f2fs, fio, python3, blkzone.
set -u
. "$GAZE_SRCDIR/tests/bench/guest/lib.sh"
B=$GAZE_BUILDDIR
MKFS=$B/mkfs/mkfs.gaze
CTL=$B/gazectl/gazectl
GCR=$B/tests/bench/f2fs-gcrange
BENCHES=${BENCHES:-a}
ZONE_MIB=${ZONE_MIB:-256}
CONFIGS=${CONFIGS:-"baseline:0:0:0 all-on:1:1:1 pipeline:1:0:0 pool:0:1:0 selblock:0:0:1"}
NO_F2FS=${NO_F2FS:-0}
FIO_SECS=${FIO_SECS:-60}
FIO_RAMP=${FIO_RAMP:-15}
FIO_PCT=${FIO_PCT:-70}
W=/tmp/gcb
M=$W/mnt
Z=/dev/nvme0n1
V=/dev/vda
mkdir -p $M

calc() { echo "$*" | bc -l; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
has() { case " $BENCHES " in *" $1 "*) return 0 ;; esac; return 1; }

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
ZBLK=$((${ZCAP_MIB:-$ZONE_MIB} * 256))
A=a GTAG=
[ -n "${GEOM:-}" ] && A=ga GTAG=" geom=$GEOM"
DEVMIB=$(($(cat /sys/block/nvme0n1/size) / 2048))
say "$Z: $DEVMIB MiB, zone $(($(cat /sys/block/nvme0n1/queue/chunk_sectors) / 2048)) MiB, scheduler $(cat /sys/block/nvme0n1/queue/scheduler)"
head -c 1048576 /dev/urandom >$W/src || die "source file"
warm_ram

# --- GAZE configurations ----------------------------------------------
# set_config P Q S: sets the three issue-5 switches on the mounted $M.
# A key the module does not know is fine when it should be 0 (the
# baseline GC has none of them); when it should be 1, returns 1 and NA
# names it.
set_config()
{
	NA=
	run "$CTL" tune $M
	[ $rc -eq 0 ] || die "gazectl tune (list)"
	cp $W/out $W/tunables
	set -- gc_pipeline "$1" gc_pool "$2" selective_blocking "$3"
	while [ $# -gt 0 ]; do
		if grep -q "^$1 " $W/tunables; then
			run "$CTL" tune $M "$1=$2"
			[ $rc -eq 0 ] || die "gazectl tune $1=$2"
		elif [ "$2" != 0 ]; then
			NA="$NA $1"
		fi
		shift 2
	done
	[ -z "$NA" ]
}

gaze_mount() # P Q S
{
	run mount -t gaze -o background_gc=off $Z $M
	[ $rc -eq 0 ] || die "mount gaze"
	set_config "$@"
}

# files of 1 MiB filling one zone and an eighth of the next: the first
# data zone ends up full
NF=$((ZONE_MIB + ZONE_MIB / 8))
fill()
{
	python3 -c "
import os, sys
d = open('$W/src', 'rb').read()
for i in range($NF):
    with open('$M/f%d' % i, 'wb') as f:
        f.write(d)
    if i % 64 == 63:
        os.sync()
" || die "filling $M"
	sync
	# 60% deleted, evenly: of every five files, the 2nd, 3rd and 5th
	python3 -c "
import os
for i in range($NF):
    if i % 5 in (1, 2, 4):
        os.unlink('$M/f%d' % i)
" || die "deleting"
	sync
}

# gaze_pick: on the unmounted device, the full data zone whose valid
# share is nearest 40%: sets ZN, ZVALID
gaze_pick()
{
	run "$CTL" dump zones --json $Z
	[ $rc -eq 0 ] || die "gazectl dump zones"
	set -- $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
cap = d["zone_cap"]
best = None
for z in d["zones"]:
    if z["class"] != "main" or z["state"] != "full":
        continue
    if not (z["log"] or "").startswith("data"):
        continue
    k = abs(z["valid"] / cap - 0.4)
    if best is None or k < best[0]:
        best = (k, z["zone"], z["valid"])
if best:
    print(best[1], best[2])
' $W/out)
	[ $# -eq 2 ] || die "no full data zone to reclaim"
	ZN=$1
	ZVALID=$2
}

# gaze_reclaim BENCH NAME P Q S: mkfs, fill, delete, reclaim the zone;
# prints RESULT BENCH zone=... config=NAME ...; GCSTATS holds gc-stats
gaze_reclaim()
{
	bench=$1
	name=$2
	shift 2
	blkzone reset $Z
	run "$MKFS" -f -q $Z
	[ $rc -eq 0 ] || die "mkfs.gaze"
	if ! gaze_mount "$@"; then
		umount $M
		echo "RESULT $bench zone=$ZONE_MIB$GTAG config=$name na=1 missing=$(echo $NA | tr ' ' ,)"
		return 1
	fi
	fill
	umount $M || die "umount"
	gaze_pick
	gaze_mount "$@" || die "tunables vanished"
	drop
	run "$CTL" gc-stats --reset $M
	s=$(now)
	run "$CTL" gc --zone $ZN --wait $M
	[ $rc -eq 0 ] || die "gazectl gc --zone $ZN --wait"
	sync -f $M
	e=$(now)
	out=$(cat $W/out)
	moved=$(echo "$out" | sed -n 's/.*: \([0-9]*\) blocks moved.*/\1/p')
	ksecs=$(echo "$out" | sed -n 's/.* in \([0-9.]*\) s.*/\1/p')
	say "$name: $out"
	run "$CTL" gc-stats --json $M
	GCSTATS=$(cat $W/out)
	echo "STATS $bench zone=$ZONE_MIB config=$name $GCSTATS"
	echo "RESULT $bench zone=$ZONE_MIB$GTAG config=$name secs=$(calc "$e - $s") moved=$moved valid_pct=$(calc "100 * $ZVALID / $ZBLK") ksecs=${ksecs:-0}"
	umount $M || die "umount"
	return 0
}

# --- F2FS -------------------------------------------------------------
f2fs_mkfs()
{
	f2fs_zoned_sched $Z
	blkzone reset $Z
	dd if=/dev/zero of=$V bs=1M count=4 status=none
	run mkfs.f2fs -f -m -c $Z $V
	if [ $rc -ne 0 ] && [ -n "${GEOM:-}" ]; then
		# few large zones: mkfs.f2fs refuses some geometries
		say "mkfs.f2fs refuses this geometry: $(grep -m1 'Error:' $W/out)"
		return 1
	fi
	[ $rc -eq 0 ] || die "mkfs.f2fs"
	grep -E 'Device\[|segment0|main' $W/out | sed 's/^/# mkfs.f2fs: /'
}

# f2fs_sections: per section of the main area: "index start_block valid
# type blocks usable current" (type: majority segment type of the
# segments with valid blocks, 0-2 hot, warm, cold data; usable: on the
# ZNS namespace; current: none, or the log whose current segment lies in
# it and the blocks it has left there, e.g. COLD-data:437)
f2fs_sections()
{
	python3 -c '
import re, struct, sys
sb = open(sys.argv[1], "rb")
sb.seek(1024)
b = sb.read(256)
bps = 1 << struct.unpack_from("<I", b, 20)[0]
spsec = struct.unpack_from("<I", b, 24)[0]
main = struct.unpack_from("<I", b, 92)[0]
vblocks = int(open("/sys/block/vda/size").read()) // 8
segs = [tuple(map(int, m)) for m in
        re.findall(r"(\d+)\|(\d+)", open(sys.argv[2]).read())]
cur = {}
for line in open(sys.argv[3]):
    m = re.match(r"\s*- (HOT|WARM|COLD)\s+(data|node):\s*(\d+)\s+\d+\s+\d+\s+(\d+)", line)
    if m:
        seg, off = int(m.group(3)), int(m.group(4))
        left = spsec * bps - ((seg % spsec) * bps + off)
        cur[seg // spsec] = "%s-%s:%d" % (m.group(1), m.group(2), left)
for s in range(len(segs) // spsec):
    part = segs[s * spsec:(s + 1) * spsec]
    start = main + s * spsec * bps
    valid = sum(v for t, v in part)
    types = [t for t, v in part if v]
    t = max(set(types), key=types.count) if types else -1
    print(s, start, valid, t, spsec * bps, int(start >= vblocks),
          cur.get(s, "none"))
' $V /proc/fs/f2fs/vda/segment_info /sys/kernel/debug/f2fs/status
}

# f2fs_pick: the data section on the namespace whose valid share is
# nearest 40%: "index start valid blocks current"
f2fs_pick()
{
	f2fs_sections >$W/secs || die "reading F2FS's segment_info"
	python3 -c '
import sys
best = None
for l in open(sys.argv[1]):
    w = l.split()
    s, start, valid, t, blocks, usable = map(int, w[:6])
    if t not in (0, 1, 2) or valid == 0 or not usable:
        continue
    k = abs(valid / blocks - 0.4)
    if best is None or k < best[0]:
        best = (k, s, start, valid, blocks, w[6])
if best:
    print(*best[1:])
' $W/secs
}

# f2fs_show: the sections holding data and F2FS's logs, into the log
f2fs_show()
{
	awk '$3 > 0 || $7 != "none"' $W/secs | sed 's/^/# section: /'
	grep -E '^ *- (HOT|WARM|COLD)|GC calls|Try to move' /sys/kernel/debug/f2fs/status | sed 's/^/# status: /'
}

f2fs_reclaim() # BENCH
{
	bench=$1
	if ! f2fs_mkfs; then
		echo "RESULT $bench zone=$ZONE_MIB$GTAG config=f2fs na=1 missing=$(grep -m1 'Error:' $W/out | sed 's/.*Error: *//; s/[^A-Za-z0-9]/_/g')"
		return 0
	fi
	run mount -t f2fs -o background_gc=off $V $M
	[ $rc -eq 0 ] || die "mount f2fs"
	fill
	run umount $M
	run mount -t f2fs -o background_gc=off $V $M
	[ $rc -eq 0 ] || die "mount f2fs again"
	grep -q debugfs /proc/mounts || mount -t debugfs none /sys/kernel/debug
	set -- $(f2fs_pick)
	[ $# -eq 5 ] || {
		f2fs_show
		die "no F2FS data section to collect"
	}
	# F2FS does not collect a section holding a current segment: a
	# filler file of that log's temperature (cold by its extension) one
	# block longer than what is left moves the log on, then it goes
	if [ "$5" != none ]; then
		f2fs_show
		case $5 in
		COLD-data:*) filler=$M/filler.gz ;;
		WARM-data:*) filler=$M/filler ;;
		*) die "section $1 is the current section of $5" ;;
		esac
		head -c $(((${5#*:} + 1) * 4096)) /dev/zero >$filler && sync &&
			rm $filler && sync || die "writing $filler"
		say "f2fs: section $1 was current ($5): filled and deleted $filler"
		set -- $(f2fs_pick)
		[ $# -eq 5 ] && [ "$5" = none ] || {
			# with few large sections F2FS's foreground GC has
			# already moved the fill into its cold log during the
			# fill, and the log stays in that section: no row
			f2fs_show
			say "f2fs: the picked section is still current ($*): no F2FS row"
			echo "RESULT $bench zone=$ZONE_MIB$GTAG config=f2fs na=1 missing=a_section_F2FS_may_collect_(the_fill_is_in_its_current_cold_section)"
			umount $M || die "umount f2fs"
			return 0
		}
	fi
	sec=$1 start=$2 valid=$3 blocks=$4
	drop
	s=$(now)
	run "$GCR" $M $start $((blocks - 1))
	[ $rc -eq 0 ] || die "f2fs-gcrange $M $start $((blocks - 1))"
	sync -f $M
	e=$(now)
	f2fs_sections >$W/secs2
	after=$(awk -v s=$sec '$1 == s { print $3 }' $W/secs2)
	say "f2fs: section $sec (block $start, type $(awk -v s=$sec '$1 == s { print $4 }' $W/secs)) held $valid valid blocks, ${after:-?} after GC"
	echo "RESULT $bench zone=$ZONE_MIB$GTAG config=f2fs secs=$(calc "$e - $s") moved=$valid valid_pct=$(calc "100 * $valid / $blocks") ksecs=0"
	umount $M || die "umount f2fs"
}

# --- d: the device's own copy rate --------------------------------------
# COPY_MIB: the valid data of a 40% zone; zone 0 gets it with direct I/O
# (untimed), then one dd copies it into zone 1 (1 MiB direct reads and
# writes in turn), timed
bench_d_copy()
{
	COPY_MIB=$((ZONE_MIB * 2 / 5))
	blkzone reset $Z
	dd if=/dev/urandom of=$Z bs=1M count=$COPY_MIB oflag=direct status=none ||
		die "seeding zone 0"
	drop
	s=$(now)
	dd if=$Z of=$Z bs=1M count=$COPY_MIB seek=$ZONE_MIB iflag=direct \
		oflag=direct status=none || die "copying zone 0 to zone 1"
	e=$(now)
	cs=$(calc "$e - $s")
	# and each half alone: read zone 0, write zone 2 from memory
	s=$(now)
	dd if=$Z of=/dev/null bs=1M count=$COPY_MIB iflag=direct status=none ||
		die "reading zone 0"
	e=$(now)
	rs=$(calc "$e - $s")
	dd if=$Z of=$W/copy bs=1M count=$COPY_MIB status=none || die "zone 0 to memory"
	s=$(now)
	dd if=$W/copy of=$Z bs=1M seek=$((2 * ZONE_MIB)) oflag=direct status=none ||
		die "writing zone 2"
	e=$(now)
	rm -f $W/copy
	echo "RESULT d zone=$ZONE_MIB copy_mib=$COPY_MIB copy_secs=$cs read_secs=$rs write_secs=$(calc "$e - $s")"
	blkzone reset $Z
}

# prints RESULT c lines from a STATS json (pool_alloc_ns, pool_cache_ns,
# pages_gc: absent from modules before the GC page pool)
bench_c_line() # NAME JSON
{
	echo "$2" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
keys = ("pool_alloc_ns", "pool_cache_ns", "pages_gc")
if all(k in d for k in keys):
    print("RESULT c config=%s zone=%s alloc_ns=%d cache_ns=%d pages=%d" %
          (sys.argv[1], sys.argv[2], d["pool_alloc_ns"], d["pool_cache_ns"],
           d["pages_gc"]))
else:
    print("RESULT c config=%s zone=%s na=1 missing=%s" % (sys.argv[1],
          sys.argv[2], ",".join(k for k in keys if k not in d)))
' "$1" $ZONE_MIB
}

# --- b: fio random writes -------------------------------------------------
fio_run() # NAME
{
	run fio --name=gc --filename=$M/fio.dat --size=${FIO_MIB}m \
		--rw=randwrite --bs=4k --ioengine=psync --fallocate=none \
		--ramp_time=$FIO_RAMP --runtime=$FIO_SECS --time_based \
		--randrepeat=1 --norandommap \
		--random_generator=tausworthe64 --end_fsync=1 \
		--output-format=json --output=$W/fio.json
	[ $rc -eq 0 ] || return 1
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["write"]
c = j["clat_ns"]
p = c.get("percentile", {})
p99 = p.get("99.000000", 0)
print("mibs=%.3f iops=%.1f p99_us=%.1f max_us=%.1f mean_us=%.2f mib=%.1f" % (
    j["bw_bytes"] / 1048576, j["iops"], p99 / 1000, c["max"] / 1000,
    c["mean"] / 1000, j["io_bytes"] / 1048576))
' $W/fio.json
}

# the file of b: FIO_PCT% of the filesystem's available blocks when empty,
# or of F2FS's (SAME_MIB) when that is smaller, so that every filesystem
# in the run gets the same workload
fio_size()
{
	local avail=$(($(stat -f -c '%a' $M) / 256))

	[ -n "$SAME_MIB" ] && [ "$SAME_MIB" -lt "$avail" ] && avail=$SAME_MIB
	FIO_MIB=$((avail * FIO_PCT / 100))
	FIO_OF=$avail
}

# b_one NAME: fio on the mounted $M, RESULT line (or the error)
b_one()
{
	name=$1
	fio_size
	say "b: $name: file $FIO_MIB MiB ($FIO_PCT% of $FIO_OF MiB; $(($(stat -f -c '%a' $M) / 256)) MiB available), written once with 64 KiB random writes, then ${FIO_RAMP}s + ${FIO_SECS}s measured of 4 KiB random writes"
	# preconditioning: the file laid out, then overwritten once at
	# random in 64 KiB blocks, so that every zone holds some invalid
	# data and the free zones are used up before the measured part
	run fio --name=pre --filename=$M/fio.dat --size=${FIO_MIB}m \
		--rw=randwrite --bs=64k --ioengine=psync --fallocate=none \
		--io_size=${FIO_MIB}m --randrepeat=0 --end_fsync=1
	if [ $rc -ne 0 ]; then
		echo "RESULT b config=$name error=$(tail -1 $W/err | tr ' ' _)"
		return 1
	fi
	[ $name = f2fs ] || "$CTL" gc-stats --reset $M >/dev/null
	if ! r=$(fio_run $name); then
		echo "RESULT b config=$name error=$(tail -1 $W/err | tr ' ' _)"
		sed 's/^/#   /' $W/err | tail -5
		return 1
	fi
	g=
	if [ $name != f2fs ]; then
		run "$CTL" gc-stats --json $M
		echo "STATS b config=$name $(cat $W/out)"
		g=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print("gc_zones=%d gc_fg=%d gc_moved=%d writers_blocked=%d" % (d["zones_reclaimed"], d["zones_foreground"], d["blocks_moved"], d["writers_blocked"]))' <$W/out)
	fi
	echo "RESULT b config=$name size_mib=$FIO_MIB $r $g"
}

bench_b()
{
	# buffered, but written back as it goes: the page cache would
	# otherwise absorb the whole run and the collectors would idle
	echo $((8 << 20)) >/proc/sys/vm/dirty_background_bytes
	echo $((32 << 20)) >/proc/sys/vm/dirty_bytes
	# F2FS reserves more of the device than GAZE: its available space
	# bounds the file for everybody
	SAME_MIB=
	if [ "$NO_F2FS" != 1 ]; then
		sched=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/${Z#/dev/}/queue/scheduler)
		f2fs_mkfs
		run mount -t f2fs $V $M
		[ $rc -eq 0 ] || die "mount f2fs"
		SAME_MIB=$(($(stat -f -c '%a' $M) / 256))
		umount $M || die "umount f2fs"
		echo $sched >/sys/block/${Z#/dev/}/queue/scheduler
		say "b: F2FS has $SAME_MIB MiB available: the file size for all"
	fi
	# all-on-gap0: all on, but the read stage reads run by run
	# (gc_read_gap=0), to show what joining short runs is worth
	for c in baseline:0:0:0 all-on:1:1:1 all-on-gap0:1:1:1; do
		IFS=: read -r name p q sb <<-EOF
		$c
		EOF
		blkzone reset $Z
		run "$MKFS" -f -q $Z
		[ $rc -eq 0 ] || die "mkfs.gaze"
		run mount -t gaze -o background_gc=on $Z $M
		[ $rc -eq 0 ] || die "mount gaze"
		ok=0
		set_config $p $q $sb && ok=1
		if [ $ok = 1 ] && [ $name = all-on-gap0 ]; then
			if grep -q "^gc_read_gap " $W/tunables; then
				run "$CTL" tune $M gc_read_gap=0
				[ $rc -eq 0 ] || die "gazectl tune gc_read_gap=0"
			else
				NA=gc_read_gap
				ok=0
			fi
		fi
		if [ $ok = 0 ]; then
			umount $M
			echo "RESULT b config=$name na=1 missing=$(echo $NA | tr ' ' ,)"
			continue
		fi
		b_one $name
		umount $M || die "umount"
	done
	[ "$NO_F2FS" = 1 ] && return
	f2fs_mkfs
	run mount -t f2fs $V $M
	[ $rc -eq 0 ] || die "mount f2fs"
	b_one f2fs
	umount $M || die "umount f2fs"
}

# --- main -------------------------------------------------------------------
has d && bench_d_copy
if has a; then
	for c in $CONFIGS; do
		IFS=: read -r name p q sb <<-EOF
		$c
		EOF
		gaze_reclaim $A $name $p $q $sb || continue
		case $name in
		all-on) has d && echo "RESULT d zone=$ZONE_MIB gc_config=all-on gc_mib=$(calc "$moved / 256") gc_secs=$ksecs" ;;
		baseline) has d && echo "RESULT d zone=$ZONE_MIB gc_config=baseline gc_mib=$(calc "$moved / 256") gc_secs=$ksecs" ;;
		esac
		# c: the pool's counters run in the pipelined GC only, so
		# gc_pool=1 against 0 there: all-on (selective blocking does
		# not matter to a lone reclaim) against the pipeline alone
		case $name in
		all-on|pipeline) has c && bench_c_line $name "$GCSTATS" ;;
		esac
	done
	[ "$NO_F2FS" = 1 ] || f2fs_reclaim $A
else
	# c and d alone: only the reclaims they need
	if has c; then
		for c in pipe+pool:1:1:0 pipeline:1:0:0; do
			IFS=: read -r name p q sb <<-EOF
			$c
			EOF
			if gaze_reclaim r $name $p $q $sb; then
				bench_c_line $name "$GCSTATS"
			else
				echo "RESULT c config=$name zone=$ZONE_MIB na=1 missing=$(echo $NA | tr ' ' ,)"
			fi
		done
	fi
	if has d; then
		for c in all-on:1:1:1 baseline:0:0:0; do
			IFS=: read -r name p q sb <<-EOF
			$c
			EOF
			gaze_reclaim r $name $p $q $sb || continue
			echo "RESULT d zone=$ZONE_MIB gc_config=$name gc_mib=$(calc "$moved / 256") gc_secs=$ksecs"
		done
	fi
fi
has b && bench_b
say "done"
