#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-bigdir.sh - runs INSIDE the test guest (tests/vm/run-guest.sh):
# gaze.ko on an image whose directory big/ holds $N names (hard links to
# 20 files, made by tests/vm/kmod-bigdir.sh with mkfs.gaze -d), attached
# through a loop device on a copy in the guest's memory (a regular block
# device: emulated zones).  Mount; stat of 4000 random present and 4000
# absent names, link counts; unlink 2000 names and create 2000 files in
# the directory; umount, mount; bigdirutil check: readdir finds every
# name once with the right inode, telldir/seekdir positions return to
# their name, the stat sample and link counts again; umount; fsck.gaze
# -fn.  One readdir of the million names only: under TCG it takes about
# a minute.  The "# " lines carry the times.
# Environment: GAZE_BUILDDIR (gaze.ko in $GAZE_BUILDDIR/$KMOD), IMG, N.
# TAP out.
set -u
B=$GAZE_BUILDDIR
KO=$B/${KMOD:-kmod-bigdir}/gaze.ko
U=$B/tests/vm/bigdirutil
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
K=2000
S=4000
mkdir -p $M

# bigdirutil with its report on the console; $1 names the step
util()
{
	what=$1
	shift
	t0=$(date +%s.%N)
	run "$U" "$@"
	t1=$(date +%s.%N)
	sed -n 's/^# /# /p' $W/out
	[ $rc -eq 0 ] || fail "$what (exit $rc)"
	ok "$what ($(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s)"
}

mnt()
{
	t0=$(date +%s.%N)
	run mount -t gaze $LOOP $M
	[ $rc -eq 0 ] || fail "mount $LOOP ($1)"
	ok "mount ($1, $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s)"
}

umnt()
{
	t0=$(date +%s.%N)
	run umount $M
	[ $rc -eq 0 ] || fail "umount ($1)"
	ok "umount ($1, $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s)"
}

[ -f "$KO" ] || fail "$KO not built"
[ -f "$IMG" ] || fail "$IMG missing"
modprobe -a libcrc32c lz4_compress zstd_compress
modprobe loop
run insmod "$KO"
[ $rc -eq 0 ] || fail "insmod $KO"
# the image into the guest's memory: the out dir's 9p share costs a
# round trip per block read
t0=$(date +%s.%N)
run cp --sparse=always "$IMG" $W/bigdir.img
[ $rc -eq 0 ] || fail "copying $IMG into the guest"
ok "image copied into the guest ($(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s)"
run losetup -f --show $W/bigdir.img
[ $rc -eq 0 ] || fail "losetup $W/bigdir.img"
LOOP=$(cat $W/out)
ok "image on $LOOP"

mnt "as made by mkfs.gaze -d"
util "stat and link counts of $N names" check $M $N 20 0 $S nordir
util "unlink $K names, create $K files" change $M $N 20 0 $K
umnt "after the changes"
mnt "again"
util "after umount + mount: readdir, seekdir, stat and link counts" \
	check $M $N 20 $K $S
umnt "at the end"
run losetup -d $LOOP
[ $rc -eq 0 ] || fail "losetup -d $LOOP"
t0=$(date +%s.%N)
run "$B/fsck/fsck.gaze" -fn $W/bigdir.img
sed 's/^/# /' $W/out
[ $rc -eq 0 ] || fail "fsck.gaze -fn (exit $rc)"
ok "fsck.gaze -fn clean ($(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s)"
dmesg | grep -E "gaze.*(error|corrupt|BUG)" >$W/out && fail "kernel reported gaze errors"
echo "1..$n"
