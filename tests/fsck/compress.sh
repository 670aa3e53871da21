#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# compress.sh - fsck.gaze and gazectl on compressed clusters.  An image
# made by mkfs.gaze --compression from a tree of text, random data,
# zeros and small files (every algorithm) checks clean and extracts
# equal to the tree; then each kind of cluster damage of
# tests/corrupt/gaze-corrupt on a fresh copy:
#   cluster-stream  a flipped payload byte: fsck -n finds it (GZ0129),
#                   gazectl cat of that file fails, -y drops the cluster
#                   (it reads as zeros), every other file is unchanged,
#                   a second -n is clean;
#   cluster-marker  a marker whose stream would fill the cluster: the same;
#   compr-blocks    an inode's saved-blocks counter: GZ0130, -fp fixes it;
#   cp-compr        the checkpoint's ratio counters: GZ0309, -fp fixes it.
. "$(dirname "$0")/lib.sh"

CORRUPT=$GAZE_BUILDDIR/tests/corrupt/gaze-corrupt
GAZECTL=$GAZE_BUILDDIR/gazectl/gazectl
[ -x "$CORRUPT" ] || fail "$CORRUPT is not built"
S=$T/tree
mkdir -p "$S/d"
cat "$GAZE_SRCDIR"/kernel/core/*.c >"$S/text"
head -c 300000 /dev/urandom >"$S/random"
head -c 500000 /dev/zero >"$S/zeros"
cp "$GAZE_SRCDIR/kernel/core/gaze_format.h" "$S/d/header"
cp "$GAZE_SRCDIR/README.md" "$S/d/readme"
echo small >"$S/d/small"

for alg in lz4 zstd:5 gzip:9; do
	mkimage "$T/img" --compression "$alg" --cluster-size 32K -d "$S"
	fsck -fn "$T/img"
	expect_rc 0 "fsck.gaze -fn ($alg)"
	rm -rf "$T/x"
	"$GAZECTL" extract "$T/img" "$T/x" >"$T/out" 2>&1 ||
		fail "gazectl extract ($alg): $(cat "$T/out")"
	diff -r -x lost+found "$S" "$T/x" >"$T/out" 2>&1 ||
		fail "extract differs ($alg): $(cat "$T/out")"
	used=$("$GAZECTL" stat --json "$T/img" /text |
	       sed -n 's/^ *"blocks": \([0-9]*\),$/\1/p')
	size=$(stat -c %s "$S/text")
	[ -n "$used" ] && [ "$used" -lt $((size / 4096 * 3 / 4)) ] ||
		fail "$alg: /text takes ${used:-?} blocks for $size bytes"
	pass "--compression $alg: clean, extracts equal, /text in $used blocks for $((size / 4096 + 1))"
done

# damage, on the last image (gzip:9)
cp "$T/img" "$T/base"
for k in cluster-stream cluster-marker; do
	cp "$T/base" "$T/img"
	"$CORRUPT" "$T/img" "$k" >"$T/inject" 2>&1 ||
		fail "gaze-corrupt $k: $(cat "$T/inject")"
	target=$(sed -n 's/^target: \([^ ]*\) .*/\1/p' "$T/inject")
	fsck -fn "$T/img"
	expect_rc 4 "fsck.gaze -fn after $k"
	expect_out "GZ0129"
	"$GAZECTL" cat "$T/img" "$target" >/dev/null 2>&1 &&
		fail "$k: gazectl cat $target read a damaged cluster"
	fsck -fy "$T/img"
	expect_rc 1 "fsck.gaze -fy after $k"
	fsck -fn "$T/img"
	expect_rc 0 "fsck.gaze -fn after the repair of $k"
	rm -rf "$T/x"
	"$GAZECTL" extract "$T/img" "$T/x" >"$T/out" 2>&1 ||
		fail "gazectl extract after $k: $(cat "$T/out")"
	for f in text random zeros d/header d/readme d/small; do
		[ "/$f" = "$target" ] && continue
		cmp -s "$S/$f" "$T/x/$f" || fail "$k: /$f changed by the repair"
	done
	cmp -s "$S${target}" "$T/x${target}" &&
		fail "$k: $target reads as before though a cluster was dropped"
	pass "$k: found (GZ0129), the file unreadable there, -y drops the cluster, the rest unchanged, clean after"
done
for k in compr-blocks:GZ0130 cp-compr:GZ0309; do
	cp "$T/base" "$T/img"
	"$CORRUPT" "$T/img" "${k%%:*}" >"$T/inject" 2>&1 ||
		fail "gaze-corrupt ${k%%:*}: $(cat "$T/inject")"
	fsck -fn "$T/img"
	expect_rc 4 "fsck.gaze -fn after ${k%%:*}"
	expect_out "${k#*:}"
	fsck -f -p "$T/img"
	expect_rc 1 "fsck.gaze -fp after ${k%%:*}"
	fsck -fn "$T/img"
	expect_rc 0 "fsck.gaze -fn after the repair of ${k%%:*}"
	pass "${k%%:*}: found (${k#*:}) and fixed by -fp"
done
finish
