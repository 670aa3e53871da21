#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bounded gaze-stress for make check: a fixed seed single-threaded (exactly
# reproducible), the same seed with threads on a small device that fills up
# (ENOSPC paths: there is no GC yet), then one random seed with zone
# open/active limits (printed
# by gaze-stress; replay it with --seed), and one with mostly writes and
# fsyncs (--fsync-mix: roll-forward under power cuts), and two with
# compression, one on zones of capacity below their size.  About 70 s
# in all.
set -u
B=${GAZE_BUILDDIR:-.}
S=$B/tests/stress/gaze-stress
[ -x "$S" ] || { echo "gaze-stress not built: $S" >&2; exit 99; }
rc=0
"$S" --seed 20261130 --threads 1 --time 8 || rc=1
"$S" --seed 20261130 --threads 4 --time 8 --device-size 40M || rc=1
"$S" --threads 3 --time 10 --zone-size 2M --device-size 256M --max-open 6 || rc=1
# mostly writes and fsyncs: power cuts land on roll-forward chains
"$S" --threads 2 --time 8 --fsync-mix --device-size 64M || rc=1
# fsck.gaze -fn after every recovery must find the filesystem clean
F=$B/fsck/fsck.gaze
[ -x "$F" ] || { echo "fsck.gaze not built: $F" >&2; exit 99; }
"$S" --threads 2 --time 12 --fsck "$F" || rc=1
# zones whose capacity is below their size, as on ZNS drives: fsyncs,
# GC and power cuts near the capacity's end, fsck after every recovery
"$S" --threads 2 --time 10 --zone-size 2M --zone-cap 1536K --device-size 96M --fsync-mix --fsck "$F" || rc=1
# compressed clusters: packed, rewritten, cut by truncate and punch,
# through power cuts and roll-forward, fsck after every recovery
"$S" --threads 2 --time 10 --compression zstd --fsck "$F" || rc=1
"$S" --seed 20261202 --threads 1 --time 6 --compression lz4 --fsync-mix || rc=1
exit $rc
