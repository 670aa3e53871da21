#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-bigdir.sh - make check test: one directory of 1,000,000 names in
# gaze.ko.  On the host, tests/vm/bigdirutil makes a tree whose directory
# big/ holds the names as hard links to 20 files (50,000 links each, under
# ext4's 65,000), mkfs.gaze -d copies it into an image (emulated 16 MiB
# zones) and fsck.gaze -fn checks the image.  The guest
# (guest/kmod-bigdir.sh) mounts a copy of the image through a loop device
# and checks stat of a sample of present and absent names and the link
# counts; unlinks 2000 names and creates 2000 files; unmounts, mounts and
# checks readdir (every name once, right inode), telldir/seekdir, the
# stat sample and link counts; runs fsck.gaze -fn on the result.  Times are printed as "# " lines,
# never checked.  $GAZE_BIGDIR_VM_ENTRIES asks for another number of
# names.  Exits 77 (skip) when QEMU, a kernel image or the kernel headers
# are missing.
. "$(dirname "$0")/lib.sh"
vm_init kmod-bigdir
vm_kmod "$BUILD/kmod-bigdir"

N=${GAZE_BIGDIR_VM_ENTRIES:-1000000}
U=$BUILD/tests/vm/bigdirutil
# beside the guest's out dir, not in it: the guest reads it through the
# host-root share (9p cache=loose); through the out share (no cache), a
# 6.12 guest copied it at about 1 MB/s (263 s against 5 s on 6.1)
IMG=$OUT/bigdir.img
mkdir -p "$OUT/bigdir" || exit 1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gaze-bigdir.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
t0=$(date +%s)

fsck_img()
{
	if "$BUILD/fsck/fsck.gaze" -fn "$IMG" >"$TMP/fsck.out" 2>&1; then
		echo "ok - fsck.gaze -fn clean $1: $(tail -1 "$TMP/fsck.out")"
	else
		echo "not ok - fsck.gaze -fn $1:"
		sed 's/^/# /' "$TMP/fsck.out" | head -20
		vm_fail=1
	fi
}

if ! "$U" mktree "$TMP/tree" "$N" 20 >"$TMP/mktree.out" 2>&1; then
	echo "not ok - bigdirutil mktree $N:"
	sed 's/^/# /' "$TMP/mktree.out" | head
	exit 1
fi
cat "$TMP/mktree.out"
t1=$(date +%s)
if ! "$BUILD/mkfs/mkfs.gaze" -q -z 16M -s 512M -d "$TMP/tree" "$IMG" \
	>"$TMP/mkfs.out" 2>&1; then
	echo "not ok - mkfs.gaze -d of $N names:"
	sed 's/^/# /' "$TMP/mkfs.out" | head
	exit 1
fi
t2=$(date +%s)
echo "ok - mkfs.gaze -d: $N names in one directory ($((t2 - t1)) s)"
rm -rf "$TMP/tree"
fsck_img "after mkfs"

vm_guest bigdir "$HERE/guest/kmod-bigdir.sh" -e KMOD=kmod-bigdir \
	-e IMG="$IMG" -e N="$N"
t3=$(date +%s)
rm -f "$IMG"
echo "# host tree + mkfs $((t2 - t0)) s, guest $((t3 - t2)) s"
exit $vm_fail
