#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# main-job.sh - the main job: build GAZE; format a 2 GiB sparse image
# populated from a small generated sample tree, show the layout mkfs chose
# and list it; then boot a QEMU guest with an emulated NVMe ZNS namespace
# (no conventional zones), format it, mount it with gaze.ko, run a
# workload, remount and verify (scripts/main-job-guest.sh).  GC
# statistics and fsck join when those land.
#
# Works from a fresh Debian 12 checkout: installs what it needs first.
# Environment: GAZE_JOB_DIR (default build/main-job) holds the image.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$SRC/build
JOB=${GAZE_JOB_DIR:-$BUILD/main-job}

step()
{
	echo
	echo "==> $*"
}

step "dependencies"
bash "$SRC/scripts/setup-deps.sh"

step "build (out of tree, $BUILD)"
if [ ! -x "$SRC/configure" ]; then
	(cd "$SRC" && ./autogen.sh)
fi
mkdir -p "$BUILD"
if [ ! -f "$BUILD/Makefile" ]; then
	(cd "$BUILD" && "$SRC/configure" --enable-werror)
fi
make -C "$BUILD" -j"$(nproc)"

step "sample tree"
rm -rf "$JOB"
mkdir -p "$JOB/tree"
T=$JOB/tree
mkdir -p "$T/etc/gaze" "$T/docs/papers" "$T/data/logs" "$T/empty"
cp "$SRC/README.md" "$T/docs/README.md"
cp "$SRC/kernel/core/gaze_format.h" "$T/docs/gaze_format.h"
printf 'zone_gc=pipelined\npool=page\nblocking=selective\n' >"$T/etc/gaze/gaze.conf"
for i in $(seq 1 200); do
	printf 'log line %d\n' "$i" >>"$T/data/logs/app.log"
done
for i in $(seq 1 12); do
	printf 'file %d\n' "$i" >"$T/data/file-$i.txt"
done
head -c 3M /dev/urandom >"$T/data/random.bin"
truncate -s 64M "$T/data/sparse.img"
printf 'tail' | dd of="$T/data/sparse.img" bs=1 seek=$((32 << 20)) \
	conv=notrunc status=none
ln -s ../docs/README.md "$T/etc/readme-link"
ln "$T/data/file-1.txt" "$T/data/hardlink-to-file-1.txt"
mkfifo "$T/data/fifo"
chmod 0700 "$T/etc/gaze"
chmod 0600 "$T/etc/gaze/gaze.conf"
echo "$(find "$T" | wc -l) entries, $(du -sh --apparent-size "$T" | cut -f1) apparent, $(du -sh "$T" | cut -f1) on disk"

step "mkfs.gaze on a 2 GiB sparse image"
IMG=$JOB/gaze.img
"$BUILD/mkfs/mkfs.gaze" -f -s 2G -L main-job -d "$T" "$IMG" </dev/null
ls -ls "$IMG"

step "contents"
if [ -x "$BUILD/gazectl/gazectl" ]; then
	"$BUILD/gazectl/gazectl" ls -l -R "$IMG"
else
	echo "gazectl not built; superblock magic:"
	od -A d -t x1 -N 4 "$IMG"
fi

step "kernel module (built in $BUILD/kmod-main)"
rm -rf "$BUILD/kmod-main"
cp -r "$SRC/kernel" "$BUILD/kmod-main"
env -u MAKEFLAGS make -C "$BUILD/kmod-main" >"$BUILD/kmod-main.log" 2>&1 ||
	{ tail -20 "$BUILD/kmod-main.log"; exit 1; }
echo "built $BUILD/kmod-main/gaze.ko"

step "QEMU guest: 2 GiB NVMe ZNS namespace, 64 MiB zones (capacity 48 MiB), max open 14"
VMOUT=$BUILD/vm-out/main-job
rm -rf "$VMOUT"
"$SRC/tests/vm/run-guest.sh" -o "$VMOUT" -t 900 -x "$SRC" -x "$BUILD" \
	-z 2048 -Z 64 -C 48 -N zoned.max_open=14,zoned.max_active=14 \
	-e KO="$BUILD/kmod-main/gaze.ko" -e MKFS="$BUILD/mkfs/mkfs.gaze" \
	-e GAZECTL="$BUILD/gazectl/gazectl" -e FSCK="$BUILD/fsck/fsck.gaze" \
	-e TREE="$T" \
	"$SRC/scripts/main-job-guest.sh" || rc=$?
tr -d '\r' <"$VMOUT/console.log" | sed -n '/^==> guest/,$p' | grep -v '^GZ_EXIT_CODE'
if [ "${rc:-0}" -ne 0 ]; then
	echo "main job: the guest failed (exit ${rc}); console: $VMOUT/console.log"
	exit 1
fi

echo
echo "main job: OK (image $IMG; guest console $VMOUT/console.log)"
