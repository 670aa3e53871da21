#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkfs-format.sh - how long mkfs.gaze takes to format a 1 TiB sparse image
# with emulated zones, and how much memory it needs (target: under 2 s and
# 64 MiB).  Not part of make check: the figures depend on the machine.
#
# Usage: tests/bench/mkfs-format.sh [BUILDDIR] [SIZE] [RUNS]
#   BUILDDIR  default build/   SIZE  default 1T   RUNS  default 3
# Needs /usr/bin/time (Debian package "time").
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$SRC/build}
SIZE=${2:-1T}
RUNS=${3:-3}
MKFS=$BUILD/mkfs/mkfs.gaze

[ -x "$MKFS" ] || { echo "mkfs-format: $MKFS not built" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "mkfs-format: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }

DIR=$(mktemp -d "${TMPDIR:-/tmp}/gaze-bench.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
IMG=$DIR/bench.img

echo "mkfs.gaze: format a $SIZE sparse image (emulated zones), $RUNS runs"
"$MKFS" -q -n -s "$SIZE" "$IMG" >/dev/null
"$MKFS" -n -s "$SIZE" "$IMG" | sed -n 's/^\(Size\|Zones\|Metadata zones\|Data zones\):/  &/p'

best_s=""
worst_kb=0
for run in $(seq 1 "$RUNS"); do
	rm -f "$IMG"
	truncate -s "$SIZE" "$IMG"
	t0=$(date +%s%N)
	/usr/bin/time -v -o "$DIR/time" "$MKFS" -q -f "$IMG" </dev/null
	t1=$(date +%s%N)
	kb=$(sed -n 's/^\tMaximum resident set size (kbytes): //p' "$DIR/time")
	user=$(sed -n 's/^\tUser time (seconds): //p' "$DIR/time")
	sys=$(sed -n 's/^\tSystem time (seconds): //p' "$DIR/time")
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	used=$(du -k "$IMG" | cut -f1)
	printf '  run %d: %6.3f s wall (%s user, %s sys), peak RSS %6.1f MiB, image uses %d KiB\n' \
		"$run" "$secs" "$user" "$sys" "$(echo "$kb" | awk '{ print $1 / 1024 }')" "$used"
	if [ -z "$best_s" ] || awk -v a="$secs" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
		best_s=$secs
	fi
	[ "$kb" -gt "$worst_kb" ] && worst_kb=$kb
done

peak_mib=$(echo "$worst_kb" | awk '{ printf "%.1f", $1 / 1024 }')
echo "result: best ${best_s} s, peak RSS ${peak_mib} MiB (target: < 2 s, < 64 MiB)"
if awk -v s="$best_s" -v k="$worst_kb" 'BEGIN { exit !(s < 2 && k < 65536) }'; then
	echo "within target"
else
	echo "OUTSIDE TARGET"
	exit 1
fi
