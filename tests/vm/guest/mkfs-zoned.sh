#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkfs-zoned.sh - runs INSIDE the test guest (tests/vm/run-guest.sh):
# mkfs.gaze and the reader on real zoned block devices through libzbd.
#   DEV=nvme   the emulated NVMe ZNS namespace (nvme0n1)
#   DEV=nullb  null_blk zoned, with conventional zones
#   EXPECT=refuse-open  the namespace allows too few open zones: mkfs must
#              refuse, exit 1, and leave every zone as it was
# Environment: GAZE_BUILDDIR, GAZE_SRCDIR.  TAP on stdout.
set -u
B=$GAZE_BUILDDIR
MKFS=$B/mkfs/mkfs.gaze
CTL=$B/gazectl/gazectl
TREECMP=$B/tests/roundtrip/treecmp
RTUTIL=$B/tests/roundtrip/rtutil
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"

gz_device ${DEV:-nvme}
Q=/sys/block/${D#/dev/}/queue
[ "$(cat $Q/zoned)" = host-managed ] || fail "$D is not host-managed"
ok "$D is host-managed: $(cat $Q/nr_zones) zones, max open $(cat $Q/max_open_zones)"
NZ=$(cat $Q/nr_zones)
ZSECT=$(cat $Q/chunk_sectors)
LAST=$(( (NZ - 1) * ZSECT ))

if [ "${EXPECT:-}" = refuse-open ]; then
	dd if=/dev/urandom of=$D bs=64k count=4 seek=$((LAST * 512 / 65536)) \
		oflag=direct status=none || fail "writing junk"
	blkzone report $D >$W/before
	run "$MKFS" $D
	[ $rc -eq 1 ] || fail "mkfs on a device with too few open zones: exit $rc, expected 1"
	grep -q "open zones" $W/err || fail "the refusal does not name the open-zone limit"
	ok "refused: $(head -1 $W/err)"
	blkzone report $D >$W/after
	cmp -s $W/before $W/after || fail "zones changed after a refusal"
	ok "no zone touched"
	echo "1..$n"
	exit 0
fi

# junk in the last zone: mkfs must reset every zone it uses and check it
dd if=/dev/urandom of=$D bs=64k count=4 seek=$((LAST * 512 / 65536)) \
	oflag=direct status=none || fail "writing junk into the last zone"
run "$MKFS" $D
[ $rc -eq 0 ] || fail "mkfs.gaze $D: exit $rc"
grep -q "host-managed" $W/out || fail "summary does not say host-managed"
ok "mkfs.gaze $D"
blkzone report -o $LAST -c 1 $D >$W/last
grep -q "wptr 0x000000 " $W/last || grep -q "wptr 0x0 " $W/last ||
	grep -qE "cond: *1\(em\)" $W/last || fail "last zone not reset: $(cat $W/last)"
ok "junk zone reset"
run "$CTL" ls $D
[ $rc -eq 0 ] && grep -qx "lost+found" $W/out || fail "gazectl ls $D"
ok "gazectl ls reads the new filesystem"

run "$MKFS" $D
[ $rc -eq 1 ] || fail "reformat without -f: exit $rc, expected 1"
ok "existing GAZE refused without -f"

# a small varied tree, populated and extracted through libzbd
T=$W/tree
mkdir -p $T/a/b/c $T/empty
head -c 100000 /dev/urandom >$T/a/rand
head -c 5000 /dev/urandom >$T/a/b/five
printf 'short\n' >$T/a/b/c/small
: >$T/zero
ln $T/a/rand $T/a/b/hard
ln -s ../rand $T/a/b/sym
mkfifo $T/fifo
truncate -s 3G $T/sparse
printf 'tail' | dd of=$T/sparse bs=1 seek=2000000000 conv=notrunc status=none
chown 1234:5678 $T/a/b/five
chmod 4755 $T/a/rand
"$RTUTIL" xattr $T/a/b/five trusted.colour blue || fail "rtutil xattr"
touch -d @1500000000.123456789 $T/a/b/c/small
# mkfs makes lost+found; readlink moves a symlink's atime unless it is in
# the future (relatime), so the comparison stays exact
mkdir -m 0700 $T/lost+found
touch -h -a -d @4000000000.5 $T/a/b/sym
run "$MKFS" -f -d $T $D
[ $rc -eq 0 ] || fail "mkfs.gaze -f -d: exit $rc"
ok "mkfs.gaze -f -d on $D"
mkdir -p $W/x
run "$CTL" extract $D $W/x/out
[ $rc -eq 0 ] || fail "gazectl extract: exit $rc"
run "$TREECMP" $T $W/x/out
[ $rc -eq 0 ] || fail "round trip differs"
ok "round trip through $D is exact"

# -s on a block device: the filesystem takes its first whole zones only
ZB=$(($(cat $Q/chunk_sectors) * 512))
run "$MKFS" -f -s $((ZB * 20 + 4096)) $D
[ $rc -eq 0 ] || fail "mkfs.gaze -s on $D: exit $rc"
grep -Eq '^Zones: +20 x' $W/out || fail "mkfs -s $((ZB * 20 + 4096)): not 20 zones"
run "$CTL" ls $D /
[ $rc -eq 0 ] || fail "gazectl ls after mkfs -s: exit $rc"
run "$B/fsck/fsck.gaze" -n $D
[ $rc -eq 0 ] || fail "fsck.gaze -n after mkfs -s: exit $rc"
run "$MKFS" -f -s $(($(cat $Q/../size) * 512 + ZB)) $D
[ $rc -ne 0 ] && grep -q 'larger than the device' $W/err ||
	fail "mkfs -s larger than $D should be refused (exit $rc)"
ok "mkfs.gaze -s on $D: 20 whole zones; larger than the device refused"
echo "1..$n"
