#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-mount.sh - runs INSIDE the test guest (tests/vm/run-guest.sh):
# gaze.ko on a real block device.  insmod; mounting the device before
# mkfs fails with one clear message; mkfs.gaze; mount; /proc/mounts shows
# the options; files and directories (small and 5 MiB, written with dd and
# cat) survive umount + mount (sha256sum); O_DIRECT reads and writes;
# fstrim resets the zones a deleted file left FREE; ro refuses writes,
# remount rw and ro work; cgroup writeback charges the cgroup that
# dirtied the data; an unknown option is refused and named; df is sane; rmmod.
#   DEV=nvme    the emulated NVMe ZNS namespace (nvme0n1)
#   DEV=nullb   null_blk zoned with conventional zones (nullb0)
#   DEV=virtio  a regular virtio disk (vda): emulated zones
# Environment: GAZE_BUILDDIR (gaze.ko in $GAZE_BUILDDIR/kmod).  TAP out.
set -u
B=$GAZE_BUILDDIR
KO=$B/kmod/gaze.ko
MKFS=$B/mkfs/mkfs.gaze
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
mkdir -p $M
# the kernel messages since the last mark
mark() { dmesg >$W/dmesg.0; }
newmsg() { dmesg | tail -n +$(($(wc -l <$W/dmesg.0) + 1)); }
mounted() { grep -q " $M gaze " /proc/mounts; }

[ -f "$KO" ] || fail "$KO not built"
# insmod does not load dependencies
modprobe -a libcrc32c lz4_compress zstd_compress
run insmod "$KO"
[ $rc -eq 0 ] || fail "insmod $KO"
grep -qw gaze /proc/filesystems || fail "gaze not in /proc/filesystems"
ok "insmod gaze.ko registers the filesystem"

gz_device ${DEV:-nvme}
i=0
while [ ! -b $D ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b $D ] || fail "$D did not appear"
NAME=${D#/dev/}
ok "$D: $(cat /sys/block/$NAME/queue/zoned), $(($(cat /sys/block/$NAME/size) / 2048)) MiB"

# --- not a GAZE device (zeroed / fresh) ------------------------------
mark
run mount -t gaze $D $M
[ $rc -ne 0 ] || fail "mounting $D before mkfs succeeded"
mounted && fail "$D is mounted after a failed mount"
newmsg >$W/msg
grep -q "gaze: $NAME: not a GAZE filesystem (bad magic)" $W/msg ||
	{ cat $W/msg >>$W/err; fail "no clear message for a non-GAZE device"; }
[ "$(grep -c 'gaze:' $W/msg)" -eq 1 ] ||
	{ cat $W/msg >>$W/err; fail "more than one message for a non-GAZE device"; }
ok "non-GAZE $D refused: $(grep 'gaze:' $W/msg | sed 's/^\[[^]]*\] //')"

# --- mkfs + mount ----------------------------------------------------
if [ "${DEV:-nvme}" = virtio ]; then
	run "$MKFS" -z 16M $D
else
	run "$MKFS" $D
fi
[ $rc -eq 0 ] || fail "mkfs.gaze $D: exit $rc"
ok "mkfs.gaze $D"

run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount -t gaze $D: exit $rc"
mounted || fail "$M not in /proc/mounts"
OPTS=$(grep " $M gaze " /proc/mounts | cut -d' ' -f4)
case ,$OPTS, in
*,rw,*errors=remount-ro*background_gc=on*,discard,*) ;;
*) fail "/proc/mounts options: $OPTS" ;;
esac
ok "mounted; /proc/mounts: $OPTS"

# --- files -----------------------------------------------------------
dd if=/dev/urandom of=$W/big bs=1M count=5 status=none
dd if=/dev/urandom of=$W/odd bs=1000 count=77 status=none
mkdir -p $M/d1/d2 $M/empty || fail "mkdir"
echo "hello gaze" >$M/small || fail "writing a small file"
cat $W/big >$M/d1/big.cat || fail "cat of 5 MiB"
dd if=$W/big of=$M/d1/d2/big.dd bs=64k status=none || fail "dd of 5 MiB"
dd if=$W/odd of=$M/d1/odd bs=1000 status=none || fail "dd of 77000 bytes"
i=0
while [ $i -lt 20 ]; do echo "file $i" >$M/d1/d2/f$i || fail "f$i"; i=$((i + 1)); done
(cd $M && find . -type f | sort | xargs sha256sum) >$W/sums || fail "sha256sum"
(cd $M && find . | sort) >$W/tree
cmp -s $M/d1/big.cat $W/big || fail "5 MiB file (cat) reads back different"
cmp -s $M/d1/d2/big.dd $W/big || fail "5 MiB file (dd) reads back different"
ok "wrote $(wc -l <$W/sums) files in $(grep -c . $W/tree) entries"
sync || fail "sync"
run umount $M
[ $rc -eq 0 ] || fail "umount: exit $rc"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount again: exit $rc"
(cd $M && find . | sort) >$W/tree2
cmp -s $W/tree $W/tree2 || { diff $W/tree $W/tree2 >$W/out; fail "tree differs after remount"; }
(cd $M && sha256sum -c $W/sums) >$W/out 2>&1 || fail "content differs after umount + mount"
cmp -s $M/d1/big.cat $W/big || fail "5 MiB file differs after remount"
ok "content survives umount + mount (sha256sum)"

# --- O_DIRECT: reads from the device, writes through the page cache ---
run dd if=$M/d1/big.cat of=$W/big.direct bs=256k iflag=direct
[ $rc -eq 0 ] || fail "O_DIRECT read: exit $rc"
cmp -s $W/big.direct $W/big || fail "O_DIRECT read differs"
run dd if=$W/big of=$M/direct bs=128k oflag=direct
[ $rc -eq 0 ] || fail "O_DIRECT write: exit $rc"
run dd if=$M/direct of=$W/big.direct bs=4k iflag=direct
cmp -s $W/big.direct $W/big || fail "O_DIRECT write + read back differs"
printf 'tail' >>$M/direct
run dd if=$M/direct of=$W/big.direct bs=1M iflag=direct
[ $rc -eq 0 ] && [ "$(stat -c %s $W/big.direct)" -eq $((5 * 1048576 + 4)) ] ||
	fail "O_DIRECT read of a file with a partial last block"
rm -f $M/direct
ok "O_DIRECT reads and writes (dd iflag/oflag=direct) match"

# --- df --------------------------------------------------------------
df -k $M >$W/df 2>&1 || fail "df"
set -- $(tail -1 $W/df)
SIZE=$2 USED=$3 AVAIL=$4
DEVK=$(($(cat /sys/block/$NAME/size) / 2))
[ "$SIZE" -gt 0 ] && [ "$SIZE" -le "$DEVK" ] || fail "df size $SIZE KiB (device $DEVK KiB)"
[ "$USED" -ge 10240 ] || fail "df used $USED KiB after writing 10 MiB"
[ "$AVAIL" -le "$SIZE" ] && [ $((USED + AVAIL)) -le "$SIZE" ] ||
	fail "df used $USED + avail $AVAIL > size $SIZE"
df -i $M >$W/dfi 2>&1 || fail "df -i"
set -- $(tail -1 $W/dfi)
[ "$2" -gt 0 ] && [ "$3" -ge 25 ] && [ "$4" -lt "$2" ] || fail "df -i: $(tail -1 $W/dfi)"
ok "df: size $SIZE KiB, used $USED, avail $AVAIL; inodes $2, used $3"

# --- zoned: no write bio is split ------------------------------------
# before 6.10 the parts of a split write can reach a zone out of order
# with the none scheduler (Zone Invalid Write on a ZNS namespace): GAZE's
# write bios fit the queue whole.  The block layer's block_split
# tracepoint counts splits of writes to this device.
if [ "$(cat /sys/block/$NAME/queue/zoned)" != none ]; then
	T=/sys/kernel/tracing
	[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
	[ -w $T/events/block/block_split/enable ] || fail "no block_split tracepoint in $T"
	DEVNO=$(sed 's/:/,/' /sys/block/$NAME/dev)
	echo 0 >$T/tracing_on && : >$T/trace &&
		echo 1 >$T/events/block/block_split/enable && echo 1 >$T/tracing_on ||
		fail "enabling block_split"
	head -c $((24 * 1048576)) /dev/urandom >$W/split
	cp $W/split $M/split && sync || fail "writing 24 MiB"
	echo 0 >$T/tracing_on
	echo 0 >$T/events/block/block_split/enable
	grep -E "block_split: $DEVNO [A-Z]*W" $T/trace >$W/out
	[ ! -s $W/out ] || fail "$(wc -l <$W/out) write bios split (max_segments $(cat /sys/block/$NAME/queue/max_segments), max_sectors_kb $(cat /sys/block/$NAME/queue/max_sectors_kb))"
	cmp -s $M/split $W/split || fail "24 MiB file reads back different"
	rm -f $M/split
	ok "no write bio split (max_segments $(cat /sys/block/$NAME/queue/max_segments), max_sectors_kb $(cat /sys/block/$NAME/queue/max_sectors_kb), scheduler $(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$NAME/queue/scheduler))"
fi

# --- fstrim ----------------------------------------------------------
# a file of three zones' data, deleted; two checkpoints make its zones
# FREE, still written on the device until fstrim resets (zoned) or
# discards (emulated zones) them.  The contents are checked below.
ZMB=$(($(cat /sys/block/$NAME/queue/chunk_sectors) / 2048))
[ "$ZMB" -gt 0 ] || ZMB=16	# virtio: mkfs -z 16M
empty() { blkzone report $D 2>/dev/null | grep -c '(em)'; }
dd if=/dev/zero of=$M/trimme bs=1M count=$((3 * ZMB)) status=none ||
	fail "writing $((3 * ZMB)) MiB"
sync && rm $M/trimme && sync && touch $M/t1 && sync && touch $M/t2 &&
	sync && rm $M/t1 $M/t2 || fail "rm and syncs"
E0=$(empty)
DEVB=$(($(cat /sys/block/$NAME/size) * 512))
run fstrim -v $M
if [ "$(cat /sys/block/$NAME/queue/zoned)" = none ] &&
   [ "$(cat /sys/block/$NAME/queue/discard_max_bytes)" -eq 0 ]; then
	[ $rc -ne 0 ] && grep -q "not supported" $W/err ||
		fail "fstrim on a disk without discard: exit $rc"
	TRIM="not supported: the disk does not discard"
else
	[ $rc -eq 0 ] || fail "fstrim: exit $rc"
	B=$(sed -n 's/.*(\([0-9]*\) bytes) trimmed.*/\1/p' $W/out)
	[ -n "$B" ] && [ "$B" -gt 0 ] && [ "$B" -le "$DEVB" ] ||
		fail "fstrim -v: $(cat $W/out)"
	TRIM="$B bytes trimmed"
	if [ "$(cat /sys/block/$NAME/queue/zoned)" != none ]; then
		E1=$(empty)
		[ "$E1" -gt "$E0" ] || fail "fstrim emptied no zone ($E0 empty before, $E1 after)"
		TRIM="$TRIM, empty zones $E0 -> $E1"
	fi
	run fstrim -o $DEVB $M
	[ $rc -ne 0 ] || fail "fstrim starting past the device succeeded"
fi
(cd $M && sha256sum -c $W/sums) >$W/out 2>&1 || fail "content differs after fstrim"
ok "fstrim: $TRIM"

# --- ro, remount -----------------------------------------------------
run umount $M
[ $rc -eq 0 ] || fail "umount"
run mount -t gaze -o ro $D $M
[ $rc -eq 0 ] || fail "mount -o ro: exit $rc"
grep " $M gaze " /proc/mounts | grep -q " ro," || fail "not ro in /proc/mounts"
run touch $M/new
[ $rc -ne 0 ] && grep -q "Read-only file system" $W/err || fail "touch on a ro mount: exit $rc"
run sh -c "echo x >>$M/small"
[ $rc -ne 0 ] || fail "append on a ro mount succeeded"
(cd $M && sha256sum -c $W/sums) >$W/out 2>&1 || fail "content differs on the ro mount"
ok "ro mount reads everything and refuses writes (EROFS)"
run mount -o remount,rw $M
[ $rc -eq 0 ] || fail "remount,rw: exit $rc"
grep " $M gaze " /proc/mounts | grep -q " rw," || fail "not rw after remount,rw"
echo "after remount" >$M/new || fail "writing after remount,rw"
cat $W/big >$M/big2 || fail "5 MiB after remount,rw"
ok "remount,rw: writes work"
run mount -o remount,ro $M
[ $rc -eq 0 ] || fail "remount,ro: exit $rc"
run touch $M/new2
[ $rc -ne 0 ] || fail "touch after remount,ro succeeded"
run mount -o remount,rw,errors=continue,background_gc=off,nodiscard $M
[ $rc -eq 0 ] || fail "remount,rw with options: exit $rc"
OPTS=$(grep " $M gaze " /proc/mounts | cut -d' ' -f4)
case ,$OPTS, in
*,rw,*errors=continue*background_gc=off*,nodiscard,*) ;;
*) fail "/proc/mounts after remount with options: $OPTS" ;;
esac
ok "remount,ro then remount,rw with options: $OPTS"
run umount $M
[ $rc -eq 0 ] || fail "umount"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount after remounts"
[ "$(cat $M/new)" = "after remount" ] || fail "file written after remount,rw lost"
cmp -s $M/big2 $W/big || fail "5 MiB file written after remount,rw differs"
(cd $M && sha256sum -c $W/sums) >$W/out 2>&1 || fail "content differs after remounts"
run umount $M
[ $rc -eq 0 ] || fail "umount"
ok "writes made after remount,rw persist"

# --- cgroup writeback (fstests generic/563) ---------------------------
# Data a task in one cgroup dirtied is charged to that cgroup when the
# root cgroup's sync writes it back, not to the flusher; and stat of a
# file with dirty pages whose map is not in memory (after a mount) reads
# nothing from the device, and st_blocks stays the same over writeback.
CG=/sys/fs/cgroup
mountpoint -q $CG || mount -t cgroup2 none $CG || fail "mount cgroup2"
echo +io >$CG/cgroup.subtree_control 2>/dev/null
grep -qw io $CG/cgroup.subtree_control || fail "cgroup2 has no io controller"
mkdir -p $CG/gza $CG/gzb || fail "mkdir cgroups"
DEVNO=$((0x$(stat -L -c %t $D))):$((0x$(stat -L -c %T $D)))
# cgio CGROUP KEY: KEY's count for $D in the cgroup's io.stat (0: none)
cgio() {
	v=$(sed -n "s/^$DEVNO .* $2=\([0-9]*\).*/\1/p" $CG/$1/io.stat)
	echo ${v:-0}
}
dd if=/dev/urandom of=$W/cg bs=1M count=16 status=none
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount for cgroup writeback"
cp $W/cg $M/cg && sync || fail "writing the 16 MiB file"
run umount $M
[ $rc -eq 0 ] || fail "umount"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount for cgroup writeback"
run sh -c "echo \$\$ >$CG/gza/cgroup.procs && exec dd if=$W/cg of=$M/cg bs=4k conv=notrunc status=none"
[ $rc -eq 0 ] || fail "overwrite in cgroup gza: exit $rc $(cat $W/err)"
run sh -c "echo \$\$ >$CG/gzb/cgroup.procs && exec stat -c %b $M/cg"
[ $rc -eq 0 ] || fail "stat in cgroup gzb: exit $rc"
b0=$(cat $W/out)
sync
wa=$(cgio gza wbytes) rb=$(cgio gzb rbytes) wb=$(cgio gzb wbytes)
[ $wa -ge $((15 * 1048576)) ] ||
	fail "16 MiB dirtied in cgroup gza, synced from the root cgroup: gza charged $wa bytes written"
[ $rb -eq 0 ] && [ $wb -eq 0 ] ||
	fail "stat in cgroup gzb of a file with dirty pages: gzb charged $rb bytes read, $wb written"
b1=$(stat -c %b $M/cg)
[ "$b0" = "$b1" ] || fail "st_blocks $b0 with the overwrite dirty, $b1 after writeback"
cmp -s $M/cg $W/cg || fail "the overwritten file differs"
run umount $M
[ $rc -eq 0 ] || fail "umount"
rmdir $CG/gza $CG/gzb
ok "cgroup writeback: gza charged $wa bytes for its 16 MiB, stat in gzb read nothing, st_blocks $b1 before and after"

# --- mount options ---------------------------------------------------
mark
run mount -t gaze -o bogus_opt=1 $D $M
[ $rc -ne 0 ] || fail "an unknown option was accepted"
mounted && fail "mounted with an unknown option"
newmsg | grep -q 'gaze: unknown mount option "bogus_opt"' ||
	{ newmsg >>$W/err; fail "dmesg does not name the unknown option"; }
run mount -t gaze -o errors=sometimes $D $M
[ $rc -ne 0 ] || fail "errors=sometimes was accepted"
ok "unknown option and bad value refused"
run mount -t gaze -o errors=panic,background_gc=off,nodiscard $D $M
[ $rc -eq 0 ] || fail "mount with options: exit $rc"
OPTS=$(grep " $M gaze " /proc/mounts | cut -d' ' -f4)
case ,$OPTS, in
*,rw,*errors=panic*background_gc=off*,nodiscard,*) ;;
*) fail "/proc/mounts options: $OPTS" ;;
esac
(cd $M && sha256sum -c $W/sums) >$W/out 2>&1 || fail "content with options"
run umount $M
[ $rc -eq 0 ] || fail "umount"
ok "options shown: $OPTS"

run rmmod gaze
[ $rc -eq 0 ] || fail "rmmod gaze: exit $rc"
grep -qw gaze /proc/filesystems && fail "gaze still registered after rmmod"
ok "rmmod gaze"
echo "1..$n"
exit 0
