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
# written.  Each zone holds two files, so most
# overwrites leave zones half valid: only GC can reclaim them.  Every 16th
# overwrite compares a file with its source, and at the end every file is
# compared before and after umount + mount.
# No write may fail (ENOSPC would mean GC did not keep up), and the
# kernel log must show no gaze error.
# Environment: GAZE_BUILDDIR (gaze.ko in $GAZE_BUILDDIR/$KMOD).  TAP out.
set -u
B=$GAZE_BUILDDIR
KO=$B/${KMOD:-kmod-gc}/gaze.ko
MKFS=$B/mkfs/mkfs.gaze
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
mkdir -p $M

[ -f "$KO" ] || fail "$KO not built"
modprobe libcrc32c
run insmod "$KO"
[ $rc -eq 0 ] || fail "insmod $KO"
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
		! ps | grep -q '[g]aze_gc' || fail "a GC thread runs with background_gc=off"
	else
		ps | grep -q '[g]aze_gc' || fail "no GC thread with background_gc=$1"
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
	while [ $written -le $((5 * DEVMB * 1024)) ]; do
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
	dmesg | grep 'gaze' | grep -v 'module verification' |
		grep -iE 'error|corrupt|failed|warn' >$W/err &&
		fail "gaze errors in the kernel log"
	ok "background_gc=$1: no gaze error in the kernel log"
}

phase on
phase off
run rmmod gaze
[ $rc -eq 0 ] || fail "rmmod gaze"
ok "rmmod gaze"
echo "1..$n"
