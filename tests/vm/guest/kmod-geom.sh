#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-geom.sh - runs INSIDE the test guest (tests/vm/run-guest.sh): the
# garbage collector on few, large zones (16 x 256 MiB, nvme0n1), where
# it once reclaimed zone after zone that it had just filled, 96% valid,
# in the foreground, moving 90 times what the workload wrote.
#   1. mkfs.gaze and mount with their defaults: 3 logs, 1.75 GiB usable;
#   2. a file of 70% of df's available space, written sequentially in
#      4 KiB blocks by fio with a checksum in every block;
#   3. 4 KiB buffered random overwrites (fio, uniformly random offsets,
#      every block checksummed) of 1.5 times the usable space (GEOM_IO_PCT,
#      default 150), then sync;
#      meanwhile the gc-stats ioctl is called every second and must
#      answer within one (GC never holds it up), and every 5 s the
#      filesystem is frozen for a second, during which the device's
#      count of written sectors must not move (the GC thread stops, and
#      reclaims writeback left in flight end, before the freeze; on 16
#      zones writeback seldom leaves one in flight, so this rarely meets
#      one);
#   4. gc-stats: zones were reclaimed, none in the foreground freed less
#      than an eighth of a zone (the least a foreground reclaim may), and
#      write amplification stays below WA_MAX (the userspace test
#      measures 2.4 for the core's greedy collector on 16 zones at 70%);
#   5. umount, fsck.gaze -fn clean, mount, fio reads every block back and
#      checks its header and checksum (a block GC damaged or put in the
#      wrong place fails; a stale but intact version would not: the
#      model-checked GC tests, kmod-gc and kmod-gcpipe, cover that).
# A hung task or warning in the kernel log fails the run (run-guest.sh).
# Environment: GAZE_BUILDDIR (gaze.ko in $GAZE_BUILDDIR/$KMOD).  TAP out.
set -u
B=$GAZE_BUILDDIR
KO=$B/${KMOD:-kmod-geom}/gaze.ko
MKFS=$B/mkfs/mkfs.gaze
GAZECTL=$B/gazectl/gazectl
FSCK=$B/fsck/fsck.gaze
WA_MAX=3.5
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
mkdir -p $M

command -v fio >/dev/null || fail "fio is not installed"
gz_insmod "$KO"
gz_device nvme
ZMB=$(($(cat /sys/block/nvme0n1/queue/chunk_sectors) / 2048))
NZ=$(cat /sys/block/nvme0n1/queue/nr_zones)
ok "$D: $NZ zones of $ZMB MiB"

run "$MKFS" -f $D
[ $rc -eq 0 ] || fail "mkfs.gaze $D"
grep -q 'Data zones: *12 (zones 4-15), 3 logs' $W/out ||
	fail "mkfs.gaze did not pick 3 logs for 12 data zones"
grep -q '^Note: 16 zones of 256.00 MiB leave 44% of the device usable' \
	$W/out || fail "mkfs.gaze did not say how little is usable"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount"
AVAIL=$(df -k --output=avail $M | tail -1)
MIB=$((AVAIL * 70 / 100 / 1024))
USABLE=$((AVAIL / 1024))
ok "mkfs and mount defaults: 3 logs, $USABLE MiB available"

FIO="fio --name=g --filename=$M/f --size=${MIB}M --bs=4k --verify=crc32c \
--ioengine=psync --output-format=terse --terse-version=3"
run $FIO --rw=write --do_verify=0
[ $rc -eq 0 ] || fail "fio sequential fill of $MIB MiB"
sync
run "$GAZECTL" gc-stats --reset $M
[ $rc -eq 0 ] || fail "gc-stats --reset"

# GAZE_IOC_GC_STATS every second while the overwrites and their GC run,
# timed around the ioctl alone (a gazectl started from the 9p share
# would time the guest's exec under load); gazectl answers the same way
cat >$W/poll.py <<'EOP'
import fcntl, os, struct, sys, time
size = 648
req = (3 << 30) | (size << 16) | (0xb7 << 8) | 2	# _IOWR(0xb7, 2, 648)
fd = os.open(sys.argv[1], os.O_RDONLY)
slow = n = 0
while not os.path.exists(sys.argv[2]):
	buf = bytearray(size)
	struct.pack_into("<I", buf, 0, 1)		# version
	t0 = time.monotonic()
	fcntl.ioctl(fd, req, buf)
	slow = max(slow, time.monotonic() - t0)
	n += 1
	time.sleep(1)
print(n, int(slow * 1000))
EOP
python3 $W/poll.py $M $W/stop >$W/poll 2>&1 &
POLL=$!
# and every few seconds a freeze: between fsfreeze -f and -u nothing may
# reach the device
STAT=/sys/block/$(basename $D)/stat
(
	nf=0 bad=0
	while [ ! -e $W/stop ]; do
		sleep 5
		[ -e $W/stop ] && break
		fsfreeze -f $M || { bad=$((bad + 1)); continue; }
		w0=$(awk '{ print $7 }' $STAT)
		sleep 1
		w1=$(awk '{ print $7 }' $STAT)
		fsfreeze -u $M || bad=$((bad + 1))
		nf=$((nf + 1))
		[ "$w0" = "$w1" ] || { bad=$((bad + 1));
			echo "written while frozen: sectors $w0 -> $w1"; }
	done
	echo "$nf $bad"
) >$W/freeze 2>&1 &
FREEZE=$!
IO=$((USABLE * ${GEOM_IO_PCT:-150} / 100))
t0=$(date +%s)
$FIO --rw=randwrite --norandommap --random_generator=tausworthe64 \
	--io_size=${IO}M --do_verify=0 </dev/null >$W/out 2>$W/err
rc=$?
sync
t1=$(date +%s)
touch $W/stop
wait $POLL
wait $FREEZE
[ $rc -eq 0 ] || fail "fio random overwrites"
read NF BADF <<EOF_F
$(tail -1 $W/freeze)
EOF_F
[ "${NF:-0}" -gt 0 ] && [ "${BADF:-1}" -eq 0 ] ||
	fail "fsfreeze during the overwrites: $(cat $W/freeze)"
KIBS=$(cut -d';' -f48 $W/out)
read POLLS SLOW <$W/poll || fail "GAZE_IOC_GC_STATS failed: $(cat $W/poll)"
[ "$SLOW" -lt 1000 ] ||
	fail "GAZE_IOC_GC_STATS took $SLOW ms while GC ran"
ok "$IO MiB of random 4 KiB overwrites in $((t1 - t0)) s with the sync ($KIBS KiB/s during fio); gc-stats answered $POLLS times, slowest $SLOW ms; frozen $NF times, nothing written while frozen"

run "$GAZECTL" gc-stats --json $M
[ $rc -eq 0 ] || fail "gc-stats --json"
cp $W/out $W/stats
get() { python3 -c "import json,sys; d=json.load(open('$W/stats')); print($1)"; }
Z=$(get 'd["zones_reclaimed"]')
WA=$(get '"%.3f" % d["write_amplification"]')
SMALL=$(get 'd["fg_reclaims_by_freed"]["lt_1_8"]')
MOVER=$(get 'd["zones_mover"]')
FREED=$(get '" ".join("%s=%d" % kv for kv in d["reclaims_by_freed"].items())')
DECL=$(get 'd["fg_declined"]')
HOLD=$(get 'd["gc_hold_ns_max"]')
[ "$Z" -gt 0 ] || fail "no zone was reclaimed: $(cat $W/stats)"
[ "$SMALL" -eq 0 ] ||
	fail "$SMALL foreground reclaims freed less than 1/8 zone: $(cat $W/stats)"
python3 -c "import sys; sys.exit(0 if $WA <= $WA_MAX else 1)" ||
	fail "write amplification $WA above $WA_MAX: $(cat $W/stats)"
[ "$MOVER" -eq 0 ] || [ "$HOLD" -gt 0 ] ||
	fail "the baseline mover reclaimed $MOVER zones, but gc_hold_ns_max is 0"
ok "gc-stats: $Z zones reclaimed ($MOVER by the baseline mover), freed $FREED, $DECL declined, WA $WA (at most $WA_MAX); GC held the lock $((HOLD / 1000000)) ms at most in one go"

run umount $M
[ $rc -eq 0 ] || fail "umount"
run "$FSCK" -fn $D
[ $rc -eq 0 ] || fail "fsck.gaze -fn after the overwrites: exit $rc"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount again"
echo 3 >/proc/sys/vm/drop_caches
run $FIO --rw=read --do_verify=1
[ $rc -eq 0 ] || fail "fio: a block's checksum is wrong after a new mount"
run umount $M
[ $rc -eq 0 ] || fail "umount at the end"
ok "fsck.gaze clean; every block checksummed right after a new mount"
echo "1..$n"
