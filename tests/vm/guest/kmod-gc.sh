#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-gc.sh - runs INSIDE the test guest (tests/vm/run-guest.sh): garbage
# collection of gaze.ko on the emulated NVMe ZNS namespace (nvme0n1).
# For background_gc=on and then off: mkfs, mount, create files of 1 MiB
# (half a zone) holding ~65% of the user capacity (df), then overwrite
# randomly chosen ones (alternately truncating with cat and in place with
# dd conv=notrunc; syncfs every 4th, whose error would fail the test)
# from four random sources until more than 5x the device has been
# written (GC_WRITE_X, default 5).  Each zone holds two files, so most
# overwrites leave zones half valid: only GC can reclaim them.  Every 16th
# overwrite compares a file with its source, and at the end every file is
# compared before and after umount + mount.
# No write may fail (ENOSPC would mean GC did not keep up), gc-stats must
# show the reclaims, and the kernel log must show no gaze error.  Then
# gazectl info, tune, gc and gc-stats through the module's ioctls.
# Environment: GAZE_BUILDDIR (gaze.ko in $GAZE_BUILDDIR/$KMOD).  TAP out.
set -u
B=$GAZE_BUILDDIR
KO=$B/${KMOD:-kmod-gc}/gaze.ko
MKFS=$B/mkfs/mkfs.gaze
GAZECTL=$B/gazectl/gazectl
FSCK=$B/fsck/fsck.gaze
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
mkdir -p $M

gz_insmod "$KO"
gz_device nvme
DEVMB=$(($(cat /sys/block/${D#/dev/}/size) / 2048))
ok "$D: $(cat /sys/block/${D#/dev/}/queue/zoned), $DEVMB MiB, zone $(($(cat /sys/block/${D#/dev/}/queue/chunk_sectors) / 2048)) MiB"

k=0
while [ $k -lt 4 ]; do
	dd if=/dev/urandom of=$W/src$k bs=1M count=1 status=none ||
		fail "source $k"
	k=$((k + 1))
done

# expected source of file i: variable s_i
verify() # i
{
	eval "k=\$s_$1"
	cmp -s $W/src$k $M/f$1 || fail "f$1 differs from source $k ($2)"
}

verify_all() # what
{
	i=0
	while [ $i -lt $NF ]; do verify $i "$1"; i=$((i + 1)); done
}

phase() # background_gc value
{
	run "$MKFS" -f $D
	[ $rc -eq 0 ] || fail "mkfs.gaze $D: exit $rc"
	run mount -t gaze -o background_gc=$1 $D $M
	[ $rc -eq 0 ] || fail "mount -o background_gc=$1: exit $rc"
	grep " $M gaze " /proc/mounts | grep -q "background_gc=$1" ||
		fail "background_gc=$1 not in /proc/mounts"
	if [ $1 = off ]; then
		! ps | grep -q '[g]aze_gc-' || fail "a GC thread runs with background_gc=off"
	else
		ps | grep -q '[g]aze_gc-' || fail "no GC thread with background_gc=$1"
	fi
	USERMB=$(($(stat -f -c '%b' $M) * 4 / 1024))
	NF=$((USERMB * 65 / 100))
	i=0
	while [ $i -lt $NF ]; do
		k=$((i % 4))
		dd if=$W/src$k of=$M/f$i bs=1M conv=fsync status=none ||
			fail "creating f$i"
		eval "s_$i=$k"
		i=$((i + 1))
	done
	ok "background_gc=$1: $NF files of 1 MiB on $USERMB MiB ($DEVMB MiB device)"
	written=$((NF * 1024))
	r=0
	x=12345
	while [ $written -le $((${GC_WRITE_X:-5} * DEVMB * 1024)) ]; do
		x=$(((x * 1103515245 + 12345) % 2147483648))
		i=$(((x / 65536) % NF))
		k=$(((r + i) % 4))
		if [ $((r % 2)) -eq 0 ]; then
			cat $W/src$k >$M/f$i || fail "overwrite $r (cat f$i)"
		else
			dd if=$W/src$k of=$M/f$i bs=256k conv=notrunc \
				status=none || fail "overwrite $r (dd f$i)"
		fi
		eval "s_$i=$k"
		written=$((written + 1024))
		if [ $((r % 4)) -eq 3 ]; then
			sync -f $M || fail "syncfs after overwrite $r"
		fi
		[ $((r % 16)) -eq 15 ] && verify $(((r * 5) % NF)) "overwrite $r"
		r=$((r + 1))
	done
	written=$((written / 1024))
	sync -f $M || fail "syncfs after overwrite $r"
	run "$GAZECTL" gc-stats --json $M
	[ $rc -eq 0 ] || fail "gazectl gc-stats"
	zr=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["zones_reclaimed"], d["blocks_moved"], d["blocks_user"], d["zones_foreground"])' <$W/out) ||
		fail "gc-stats --json does not parse"
	set -- $1 $zr
	[ "$2" -gt 0 ] && [ "$3" -gt 0 ] && [ "$4" -gt 0 ] ||
		fail "gc-stats: zones_reclaimed $2, blocks_moved $3, blocks_user $4"
	[ "$1" = on ] || [ "$5" -gt 0 ] ||
		fail "background_gc=off but no zone reclaimed in the foreground"
	ok "background_gc=$1: gc-stats: $2 zones reclaimed ($5 in the foreground), $3 blocks moved, $4 user blocks"
	df -k $M | tail -1 | sed 's/^/# df: /'
	ok "background_gc=$1: $r overwrites, $written MiB written ($((written / DEVMB))x the device), no error"
	verify_all "after $r overwrites"
	ok "background_gc=$1: every file matches its source"
	run umount $M
	[ $rc -eq 0 ] || fail "umount"
	run mount -t gaze $D $M
	[ $rc -eq 0 ] || fail "remount"
	verify_all "after remount"
	ok "background_gc=$1: and after umount + mount"
	run umount $M
	[ $rc -eq 0 ] || fail "umount"
	run "$FSCK" -f -n $D
	[ $rc -eq 0 ] || fail "fsck.gaze -fn after umount: exit $rc"
	ok "background_gc=$1: fsck.gaze -fn finds the filesystem clean"
	dmesg | grep 'gaze' | grep -v 'module verification' |
		grep -iE 'error|corrupt|failed|warn' >$W/err &&
		fail "gaze errors in the kernel log"
	ok "background_gc=$1: no gaze error in the kernel log"
}

phase on
phase off

# --- gazectl info / tune / gc / gc-stats through the ioctls --------------
run "$MKFS" -f $D
[ $rc -eq 0 ] || fail "mkfs for the gazectl checks"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount for the gazectl checks"
run "$GAZECTL" info --json $M
[ $rc -eq 0 ] || fail "gazectl info"
python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["space_blocks"]
assert d["block_size"] == 4096 and d["zoned"] and d["background_gc"] == "on", d
assert s["capacity"] > 0 and s["free_now"] > 0 and s["valid"] > 0, s
assert d["zones"]["free"] + d["zones"]["open"] + d["zones"]["full"] + d["zones"]["prefree"] == d["main_zone_count"], d' <$W/out >$W/err 2>&1 ||
	fail "gazectl info --json fields"
ok "gazectl info --json: geometry, options and space add up"
run "$GAZECTL" tune $M
[ $rc -eq 0 ] || fail "gazectl tune (list)"
for key in background_gc victim_policy bg_gc_low_pct bg_gc_high_pct; do
	grep -q "^$key " $W/out || fail "tune list lacks $key"
done
run "$GAZECTL" tune $M victim_policy=cost-benefit bg_gc_high_pct=50
[ $rc -eq 0 ] || fail "tune victim_policy=cost-benefit"
run "$GAZECTL" info $M
grep -q 'victim_policy=cost-benefit' $W/out || fail "info does not show the new policy"
run "$GAZECTL" tune $M bg_gc_low_pct=60
[ $rc -eq 2 ] && grep -q 'out of range' $W/err || fail "low above high: exit $rc"
run "$GAZECTL" tune $M no_such_key=1
[ $rc -eq 2 ] && grep -q "unknown tunable 'no_such_key'" $W/err || fail "unknown key: exit $rc"
run "$GAZECTL" tune $M victim_policy=7
[ $rc -eq 2 ] && grep -q 'out of range 0..1' $W/err || fail "out of range: exit $rc"
run setpriv --reuid=1000 --regid=1000 --clear-groups "$GAZECTL" tune $M victim_policy=0
[ $rc -eq 1 ] && grep -q 'CAP_SYS_ADMIN' $W/err || fail "non-root tune: exit $rc"
ok "gazectl tune: list, set, and refusals (range, unknown key, no CAP_SYS_ADMIN)"
run "$GAZECTL" tune $M background_gc=off
[ $rc -eq 0 ] && ! pgrep -f "gaze_gc-" >/dev/null || fail "background_gc=off leaves a GC thread"
run "$GAZECTL" tune $M background_gc=on
[ $rc -eq 0 ] && pgrep -f "gaze_gc-" >/dev/null || fail "background_gc=on starts no GC thread"
ok "gazectl tune background_gc stops and starts the GC thread"
# zones half valid: six 1 MiB files (two per 2 MiB zone), every other
# one rewritten, then reclaim on demand
i=0
while [ $i -lt 6 ]; do
	cat $W/src$((i % 4)) >$M/g$i || fail "write g$i"
	i=$((i + 1))
done
sync -f $M
for i in 0 2 4; do
	cat $W/src$(((i + 1) % 4)) >$M/g$i || fail "rewrite g$i"
done
sync -f $M
run "$GAZECTL" gc-stats --reset $M
[ $rc -eq 0 ] || fail "gc-stats --reset"
run "$GAZECTL" gc --wait $M
[ $rc -eq 0 ] && grep -q 'reclaimed zone' $W/out || fail "gazectl gc --wait: exit $rc"
cat $W/out | sed 's/^/# /'
run "$GAZECTL" gc-stats --json $M
python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["zones_reclaimed"] == 1, d' <$W/out >$W/err 2>&1 ||
	fail "gc-stats after one gc: $(cat $W/out)"
run "$GAZECTL" gc --zone 0 $M
[ $rc -eq 1 ] && grep -q 'cannot be reclaimed' $W/err || fail "gc --zone 0 (checkpoint zone): exit $rc"
ok "gazectl gc --wait reclaims one zone, gc-stats counts it, a checkpoint zone is refused"
i=0
while [ $i -lt 6 ]; do
	k=$((i % 2 ? i % 4 : (i + 1) % 4))
	cmp -s $M/g$i $W/src$k || fail "g$i differs after gc"
	i=$((i + 1))
done
ok "files read back after the reclaim"
# freeze with the GC thread in sync mode: writes wait, the thread skips
run "$GAZECTL" tune $M background_gc=sync
[ $rc -eq 0 ] || fail "tune background_gc=sync"
run fsfreeze -f $M
[ $rc -eq 0 ] || fail "fsfreeze -f: exit $rc"
(cat $W/src1 >$M/frozen; echo done >$W/frozen.done) &
sleep 2
[ -e $W/frozen.done ] && fail "a write finished on a frozen filesystem"
run fsfreeze -u $M
[ $rc -eq 0 ] || fail "fsfreeze -u: exit $rc"
wait
[ -e $W/frozen.done ] && cmp -s $M/frozen $W/src1 || fail "the write held by the freeze did not complete"
ok "fsfreeze holds writes and thaws with background_gc=sync"
run umount $M
[ $rc -eq 0 ] || fail "umount after the gazectl checks"
run "$FSCK" -f -n $D
[ $rc -eq 0 ] || fail "fsck.gaze -fn after the gazectl checks: exit $rc"
ok "fsck.gaze -fn clean after gc, tune and freeze"
run rmmod gaze
[ $rc -eq 0 ] || fail "rmmod gaze"
ok "rmmod gaze"
echo "1..$n"
