#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod-hostile.sh - make check test: gaze.ko on hostile images.  Every
# kind of tests/corrupt/gaze-corrupt (gaze-corrupt --list, the kinds
# whose damage keeps a valid checksum included) damages a small
# populated image, and the damaged image itself, NOT repaired, is
# mounted by gaze.ko through a loop device and used: mounted read-write
# with errors=remount-ro and with errors=continue and read-only, the
# whole tree listed, every file read, xattrs read, stat, then written
# (create, append, overwrite, truncate, chmod, setxattr, mkdir, rename,
# unlink, on the damaged object itself where the injector names one),
# synced and unmounted; fsck.gaze -fn after every read-write umount.
# Refusals and I/O errors are expected; an oops, BUG, WARNING, hang,
# failed umount, a read-write mount left writable after an error under
# errors=remount-ro, or a crash of fsck.gaze is not.  One guest boot for
# all kinds; the guest side (guest/kmod-hostile.sh) prints one TAP line
# per kind saying what happened.
#
# This side builds the module (own copy) and the image: a tree like the
# corruption matrix's (tests/corrupt/matrix.sh: inline, direct-node and
# indirect-node files, nested and hashed directories, symlinks, hard
# links, inline and node xattrs), smaller (its big files sparse, its big
# directory mostly hard links) so the guest reads little, and a text file
# in compressed clusters, made by mkfs.gaze -O compression -d into a 64
# MiB image with 1 MiB zones and checked clean by fsck.gaze -fn.
#   HOSTILE_KINDS  space separated subset of the kinds (default: all,
#                  plus "none", the undamaged image, first)
#   HOSTILE_SEED   gaze-corrupt's SEED (default 1)
# Exits 77 (skip) when QEMU, a kernel image or the kernel headers are
# missing.
. "$(dirname "$0")/lib.sh"
vm_init kmod-hostile
vm_kmod "$BUILD/kmod-hostile"

MKFS=$BUILD/mkfs/mkfs.gaze
FSCK=$BUILD/fsck/fsck.gaze
RTUTIL=$BUILD/tests/roundtrip/rtutil
HU=$BUILD/tests/vm/hostileutil
for b in "$MKFS" "$FSCK" "$RTUTIL" "$HU" "$BUILD/tests/corrupt/gaze-corrupt"; do
	[ -x "$b" ] || { echo "not ok - $b is not built"; exit 1; }
done

T=$OUT/tree
mkdir -p "$T/d1/d2/d3" "$T/big" "$T/x" || exit 99
: >"$T/empty"
printf x >"$T/one"
head -c 2000 /dev/urandom >"$T/inline2000"
head -c 5000 /dev/urandom >"$T/r5000"
head -c 100000 /dev/urandom >"$T/r100k"
# sparse: blocks mapped by the inode, by a direct node and (past 448 +
# 2 * 504 blocks) by an indirect node's direct node, little data to read
for f in "$T/r7m:0 1792 6100" "$T/d1/r2500k:0 1792 2400"; do
	for k in ${f#*:}; do
		head -c 40000 /dev/urandom |
			dd of="${f%%:*}" bs=1k seek="$k" iflag=fullblock \
				conv=notrunc status=none
	done
done
truncate -s 7000000 "$T/r7m"
truncate -s 2500000 "$T/d1/r2500k"
printf mid | dd of="$T/sparse" bs=1 seek=300000 conv=notrunc status=none
truncate -s 1M "$T/sparse"
head -c 700 /dev/urandom >"$T/d1/small"
head -c 9000 /dev/urandom >"$T/d1/d2/nine"
head -c 12000 /dev/urandom >"$T/d1/d2/d3/twelve"
echo deep >"$T/d1/d2/d3/deep"
# a hashed directory of several buckets: 104 names of 60 bytes, most of
# them hard links (a cold lookup of a new inode is slow under TCG)
pad=$(printf '%050d' 0 | tr 0 n)
for i in $(seq 0 7); do echo "$i" >"$T/big/file-$i-$pad"; done
for i in $(seq 0 95); do
	ln "$T/big/file-$((i % 8))-$pad" "$T/big/entry-$(printf %03d $i)-$pad"
done
ln -s r100k "$T/sym-short"
ln -s "$(printf '%0300d' 0 | tr 0 s)" "$T/sym-long"
ln "$T/r5000" "$T/d1/r5000-link"
ln "$T/r5000" "$T/d1/d2/r5000-link2"
ln "$T/d1/small" "$T/x/small-link"
head -c 20000 /dev/urandom >"$T/x/xsmall"
head -c 20000 /dev/urandom >"$T/x/xbig"
# text, stored in compressed clusters (the image has -O compression):
# the cluster kinds of gaze-corrupt damage them
for i in $(seq 1 3000); do echo "line $i of a file that compresses well"; done \
	>"$T/x/text"
"$RTUTIL" xattr "$T/x/xsmall" user.a hello &&
"$RTUTIL" xattr "$T/x/xsmall" user.b world &&
"$RTUTIL" xattr-pattern "$T/x/xbig" user.big 3000 &&
"$RTUTIL" xattr "$T/x/xbig" user.c see &&
"$RTUTIL" xattr "$T/d1" user.dir yes || exit 99
"$HU" sums "$T" >"$OUT/tree.sums" || exit 99

if ! "$MKFS" -q -s 64M -z 1M -O compression -d "$T" "$OUT/base.img" \
	>"$OUT/mkfs.out" 2>&1; then
	echo "not ok - mkfs.gaze -d:"
	sed 's/^/# /' "$OUT/mkfs.out"
	exit 1
fi
if ! "$FSCK" -fn "$OUT/base.img" >"$OUT/fsck.out" 2>&1; then
	echo "not ok - fsck.gaze -fn of the fresh image:"
	sed 's/^/# /' "$OUT/fsck.out"
	exit 1
fi
echo "ok - image made ($(du -k "$OUT/base.img" | cut -f1) KiB used of 64 MiB) and clean"

vm_guest hostile "$HERE/guest/kmod-hostile.sh" -t 900 -e KMOD=kmod-hostile \
	-e HOSTILE_BASE="$OUT/base.img" -e HOSTILE_SUMS="$OUT/tree.sums" \
	-e HOSTILE_KINDS="${HOSTILE_KINDS:-}" -e HOSTILE_SEED="${HOSTILE_SEED:-1}" \
	-e GAZE_VM_SHARE="${GAZE_VM_SHARE:-}"
exit $vm_fail
