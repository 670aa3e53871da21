#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-ident.sh - runs INSIDE the test guest (tests/vm/run-guest.sh):
# finding GAZE by UUID and label with udev, and gazectl label / uuid on
# real devices.  systemd-udevd runs with udev/64-gaze.rules in
# /run/udev/rules.d; an NVMe ZNS namespace (nvme0n1: label and uuid
# changes write both checkpoint zones anew) and a virtio disk (vda:
# emulated zones, rewritten in place) get mkfs.gaze -L/-U.  Checked: the
# /dev/disk/by-uuid and by-label links, ID_FS_* in the udev database,
# lsblk -f; mount through the links; after gazectl label and uuid the
# links follow (udev's watch), fsck.gaze -fn is clean, the module mounts
# the filesystem with its files, reports the new uuid and label (gazectl
# info); a mounted device is refused.  And what util-linux 2.38 and
# systemd 252 make of the rule without libblkid support, as
# doc/design.md ("Finding a filesystem") tells it: blkid -U, findfs,
# mount UUID= and LABEL= (fstab too) work through the links; fsck(8)
# runs fsck.gaze for fstab lines naming a link, with -A and with -t
# gaze, and fsck.ext2 otherwise; systemd's fstab generator mounts
# through the link and systemd-fsck checks like fsck(8).  Every such
# command's result is also printed as a "# seen:" line.
# Environment: GAZE_BUILDDIR, GAZE_SRCDIR, KMOD (the module's build dir).
set -u
B=$GAZE_BUILDDIR
KO=$KMOD/gaze.ko
MKFS=$B/mkfs/mkfs.gaze
FSCK=$B/fsck/fsck.gaze
GAZECTL=$B/gazectl/gazectl
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
mkdir -p $M
# fsck(8) finds its helpers on PATH too
PATH=$B/fsck:$PATH
# the guest runs chrooted into the host's root: udevd and udevadm would
# ignore every request
SYSTEMD_IGNORE_CHROOT=1
export PATH SYSTEMD_IGNORE_CHROOT
U1=0b5d7a8e-1c2f-4d3e-9a4b-5c6d7e8f9a0b
U2=c0ffee00-1122-4344-9566-778899aabbcc
U3=11111111-2222-4333-8444-555555555555

# seen NAME CMD...: runs CMD, prints what came of it
seen()
{
	local name=$1
	shift
	run "$@"
	echo "# seen: $name: exit $rc: $(head -c 400 $W/out | tr '\n' ' ')$(head -c 400 $W/err | tr '\n' ' ')"
}
settle() { udevadm settle -t 60; }
dev_of() { readlink -f "$1" 2>/dev/null; }
# link LINK DEV: LINK leads to DEV within 20 s (udev's watch turns the
# close of a device written to into a change event, asynchronously:
# settle alone may come before it); link LINK "": LINK is gone
link()
{
	local i=0
	while [ $i -lt 200 ]; do
		settle
		if [ -n "$2" ]; then
			[ "$(dev_of "$1")" = "$2" ] && return 0
		else
			[ -e "$1" ] || return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	ls -l /dev/disk/by-uuid /dev/disk/by-label >$W/out 2>&1
	return 1
}
umount_q() { umount $M 2>/dev/null; }

gz_insmod "$KO"
gz_device nvme
Z=$D
gz_device virtio
V=$D
ok "gaze.ko loaded; $Z ($(cat /sys/block/nvme0n1/queue/zoned)) and $V"

mkdir -p /run/udev/rules.d
sed "s|@sbindir@/gazectl|$GAZECTL|" "$GAZE_SRCDIR/udev/64-gaze.rules.in" \
	>/run/udev/rules.d/64-gaze.rules
run /lib/systemd/systemd-udevd --daemon
[ $rc -eq 0 ] || fail "systemd-udevd --daemon"
udevadm trigger --action=add --subsystem-match=block
settle
ok "systemd-udevd runs with 64-gaze.rules ($(udevadm --version))"

run "$MKFS" -L "zns data" -U $U1 $Z
[ $rc -eq 0 ] || fail "mkfs.gaze $Z"
run "$MKFS" -z 16M -L "vd data ü" -U $U2 $V
[ $rc -eq 0 ] || fail "mkfs.gaze $V"
link /dev/disk/by-uuid/$U1 $Z &&
	link '/dev/disk/by-label/zns\x20data' $Z &&
	link /dev/disk/by-uuid/$U2 $V &&
	link '/dev/disk/by-label/vd\x20data\x20ü' $V ||
	fail "by-uuid / by-label links after mkfs.gaze"
ok "mkfs.gaze: /dev/disk/by-uuid and by-label links to both (udev's watch saw the writes)"
udevadm info --query=property --name=$Z >$W/out
grep -qx ID_FS_TYPE=gaze $W/out && grep -qx ID_FS_USAGE=filesystem $W/out &&
	grep -qx ID_FS_UUID=$U1 $W/out && grep -qx 'ID_FS_LABEL_ENC=zns\\x20data' $W/out ||
	fail "udev database of $Z"
ok "udev database: ID_FS_TYPE=gaze, ID_FS_UUID, ID_FS_LABEL_ENC"
run lsblk -n -o FSTYPE,UUID,LABEL $Z
[ "$(cat $W/out)" = "gaze   $U1 zns data" ] ||
	grep -q "^gaze *$U1 *zns data" $W/out || fail "lsblk -f $Z: $(cat $W/out)"
ok "lsblk: $(cat $W/out)"

run mount -t gaze /dev/disk/by-uuid/$U1 $M
[ $rc -eq 0 ] || fail "mount -t gaze /dev/disk/by-uuid/$U1"
echo "kept across changes" >$M/keep || fail "writing a file"
umount $M || fail "umount"
run mount -t gaze '/dev/disk/by-label/vd\x20data\x20ü' $M
[ $rc -eq 0 ] || fail "mount -t gaze by-label"
umount $M || fail "umount"
ok "mount -t gaze through the by-uuid and by-label links"

# --- what util-linux and systemd do with only the rule -----------------
# (util-linux 2.38 trusts the udev links: libblkid verifies a link by
# probing only when built with CONFIG_BLKID_VERIFY_UDEV, which it is not)
seen "blkid $Z" blkid $Z
[ $rc -eq 2 ] || fail "blkid knows GAZE now: 64-gaze.rules is no longer needed"
seen "blkid -U" blkid -U $U1
[ "$(cat $W/out)" = $Z ] || fail "blkid -U through the by-uuid link"
seen "findfs UUID= (root)" findfs UUID=$U1
[ "$(cat $W/out)" = $Z ] || fail "findfs UUID= through the by-uuid link"
seen "findfs LABEL= (root)" findfs "LABEL=zns data"
[ "$(cat $W/out)" = $Z ] || fail "findfs LABEL= through the by-label link"
seen "findfs UUID= (uid 65534)" setpriv --reuid=65534 --regid=65534 \
	--clear-groups findfs UUID=$U1
seen "mount -t gaze UUID=" mount -t gaze UUID=$U1 $M
[ $rc -eq 0 ] || fail "mount -t gaze UUID="
umount_q
dmesg -C
seen "mount UUID= (no -t)" mount UUID=$U1 $M
[ $rc -eq 0 ] || fail "mount UUID= without -t"
echo "# seen: kernel lines of that mount not from gaze (other types tried first): $(dmesg | grep -vc 'gaze:'); /proc/filesystems: $(grep -v nodev /proc/filesystems | tr -s '\t\n' '  ')"
umount_q
echo "UUID=$U1 $M gaze defaults 0 2" >$W/fstab.tag
echo "/dev/disk/by-uuid/$U1 $M gaze defaults 0 2" >$W/fstab.path
echo "UUID=$U1 $M auto defaults 0 2" >$W/fstab.auto
for f in tag path auto; do
	seen "mount -T fstab.$f $M" mount -T $W/fstab.$f $M
	[ $rc -eq 0 ] || fail "mount with fstab.$f: $(cat $W/fstab.$f)"
	umount_q
done
ok "blkid -U, findfs and mount UUID=/LABEL= (fstab too, type gaze or auto) resolve through the links"

# checker fsck(8) picks: $1 expected (fsck.gaze or fsck.ext2), then the
# environment and arguments
picks()
{
	local want=$1
	shift
	seen "fsck $*" env "$@"
	grep -q "$want " $W/out || fail "fsck $*: runs not $want: $(cat $W/out)"
}
picks fsck.gaze LIBMOUNT_FSTAB=$W/fstab.path fsck -N /dev/disk/by-uuid/$U1
picks fsck.gaze LIBMOUNT_FSTAB=$W/fstab.tag fsck -A -N
picks fsck.gaze LIBMOUNT_FSTAB=$W/fstab.path fsck -A -N
picks fsck.gaze LIBMOUNT_FSTAB=/dev/null fsck -t gaze -N UUID=$U1
ok "fsck(8) runs fsck.gaze for fstab lines naming the link, for fsck -A, and with -t gaze"
# without libblkid knowing the type, fsck(8) falls back to ext2
picks fsck.ext2 LIBMOUNT_FSTAB=/dev/null fsck -N $Z
picks fsck.ext2 LIBMOUNT_FSTAB=/dev/null fsck -N UUID=$U1
picks fsck.ext2 LIBMOUNT_FSTAB=$W/fstab.tag fsck -N /dev/disk/by-uuid/$U1
ok "fsck(8) without -t runs fsck.ext2 for a device no fstab line names by path (a UUID= line does not match)"
GEN=/lib/systemd/system-generators/systemd-fstab-generator
if [ -x $GEN ]; then
	mkdir -p $W/gen
	run env SYSTEMD_FSTAB=$W/fstab.tag SYSTEMD_LOG_LEVEL=err $GEN $W/gen $W/gen $W/gen
	u=$(ls $W/gen/*.mount 2>/dev/null | head -1)
	echo "# seen: systemd-fstab-generator, fstab UUID=: exit $rc: $(grep -h -e '^What=' -e '^Requires=' "${u:-/dev/null}" | tr '\n' ' ')"
	grep -qx "What=/dev/disk/by-uuid/$U1" "${u:-/dev/null}" ||
		fail "systemd-fstab-generator: no What=/dev/disk/by-uuid/..."
	ok "systemd-fstab-generator mounts UUID= lines through the by-uuid link"
fi
if [ -x /lib/systemd/systemd-fsck ]; then
	seen "systemd-fsck by-uuid (fstab UUID= gaze)" \
		env LIBMOUNT_FSTAB=$W/fstab.tag /lib/systemd/systemd-fsck /dev/disk/by-uuid/$U1
	seen "systemd-fsck by-uuid (fstab by-uuid gaze)" \
		env LIBMOUNT_FSTAB=$W/fstab.path /lib/systemd/systemd-fsck /dev/disk/by-uuid/$U1
	grep -q "clean (checkpoint" $W/out || fail "systemd-fsck did not run fsck.gaze"
	ok "systemd-fsck runs fsck.gaze for a line naming the link (a UUID= line gets fsck.ext2, which fails, and the error is ignored)"
fi

# --- gazectl label / uuid on the zoned device -------------------------
run "$GAZECTL" label $Z renamed
[ $rc -eq 0 ] || fail "gazectl label $Z"
run "$GAZECTL" uuid $Z $U3
[ $rc -eq 0 ] || fail "gazectl uuid $Z"
link /dev/disk/by-label/renamed $Z && link /dev/disk/by-uuid/$U3 $Z &&
	link '/dev/disk/by-label/zns\x20data' "" &&
	link /dev/disk/by-uuid/$U1 "" ||
	fail "links after gazectl label and uuid on $Z"
ok "gazectl label and uuid on $Z: the links follow, the old ones are gone"
run "$FSCK" -fn $Z
[ $rc -eq 0 ] || fail "fsck.gaze -fn $Z after the changes"
run mount -t gaze /dev/disk/by-uuid/$U3 $M
[ $rc -eq 0 ] || fail "mount after the uuid change"
[ "$(cat $M/keep)" = "kept across changes" ] || fail "file after the changes"
run "$GAZECTL" info $M
grep -q "uuid: *$U3" $W/out && grep -q "label: *renamed" $W/out ||
	fail "gazectl info after the changes"
ok "fsck.gaze -fn clean; the module mounts it (headers checked against meta_uuid), gazectl info: uuid $U3, label renamed"
echo more >$M/more || fail "writing after the change"
run "$GAZECTL" label $Z while-mounted
[ $rc -eq 1 ] && grep -q "is mounted on $M" $W/err ||
	fail "gazectl label on a mounted device: exit $rc"
ok "gazectl label on the mounted device refused: $(cat $W/err)"
umount $M || fail "umount"
run "$FSCK" -fn $Z
[ $rc -eq 0 ] || fail "fsck.gaze -fn after writing with meta_uuid"
run "$GAZECTL" uuid $Z $U1
[ $rc -eq 0 ] || fail "gazectl uuid back"
"$GAZECTL" dump super $Z | grep -q "features: .*meta_uuid" &&
	fail "meta_uuid still set after the uuid went back"
run mount -t gaze $Z $M
[ $rc -eq 0 ] && [ "$(cat $M/more)" = more ] || fail "mount after the uuid went back"
umount $M || fail "umount"
ok "writes under meta_uuid, then the uuid back: feature cleared, files there"

# --- emulated zones: in place ---------------------------------------
run "$GAZECTL" label $V "vd new"
[ $rc -eq 0 ] || fail "gazectl label $V"
run "$GAZECTL" uuid $V random
[ $rc -eq 0 ] || fail "gazectl uuid $V random"
NEWU=$("$GAZECTL" uuid $V)
link '/dev/disk/by-label/vd\x20new' $V && link /dev/disk/by-uuid/$NEWU $V &&
	link /dev/disk/by-uuid/$U2 "" ||
	fail "links after gazectl label and uuid on $V"
run "$FSCK" -fn $V
[ $rc -eq 0 ] || fail "fsck.gaze -fn $V"
run mount -t gaze LABEL="vd new" $M
echo "# seen: mount -t gaze LABEL= after the change: exit $rc"
umount_q
run mount -t gaze /dev/disk/by-uuid/$NEWU $M
[ $rc -eq 0 ] || fail "mount $V after the changes"
umount $M || fail "umount"
ok "$V (emulated zones, in place): links follow, fsck clean, mounts"
echo "1..$n"
