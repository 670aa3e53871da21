#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkfs-populate.sh - time "mkfs.gaze -d" against "mke2fs -d" on the same
# tree (not part of make check).
#
# The tree: 50,000 regular files in 2,550 directories (50 top-level
# directories of 50 subdirectories, 20 files in each leaf directory);
# 95% of the files are 0-16 KiB, 5% 100 KiB-1 MiB (about 1.7 GiB), random
# content.  Both tools write a sparse image of the same size; each runs
# 3 times (alternating, image recreated each time, the tree in the page
# cache), timed with /usr/bin/time for elapsed seconds and peak RSS.
# Prints every run, the medians, and the GAZE/ext4 ratio of the medians.
#
# Environment: GAZE_BUILDDIR (default: the tree this script is in),
# BENCH_DIR (scratch space, default $TMPDIR or /tmp; needs ~2 GiB plus
# the images' written data), BENCH_FILES (default 50000), BENCH_RUNS
# (default 3), BENCH_IMAGE_SIZE (default 8G), BENCH_KEEP=1 to keep the
# scratch directory.
set -eu

: "${GAZE_BUILDDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
MKFS=$GAZE_BUILDDIR/mkfs/mkfs.gaze
FILES=${BENCH_FILES:-50000}
RUNS=${BENCH_RUNS:-3}
SIZE=${BENCH_IMAGE_SIZE:-8G}

for tool in /usr/bin/time perl mke2fs; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "mkfs-populate.sh: $tool is needed" >&2
		exit 1
	}
done
[ -x "$MKFS" ] || { echo "mkfs-populate.sh: no $MKFS (build first)" >&2; exit 1; }

W=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gaze-bench.XXXXXX")
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$W"' EXIT
T=$W/tree

echo "Building the tree ($FILES files) in $T ..."
perl -e '
	use strict;
	my ($root, $nfiles) = @ARGV;
	my $pool = "";
	open(my $r, "<", "/dev/urandom") or die "urandom: $!";
	read($r, $pool, 2 << 20) == (2 << 20) or die "urandom: short read";
	close($r);
	srand(42);
	my ($top, $sub) = (50, 50);
	my $per = int(($nfiles + $top * $sub - 1) / ($top * $sub));
	my $n = 0;
	mkdir $root or die "$root: $!";
	for my $i (0 .. $top - 1) {
		mkdir "$root/d$i" or die "$!";
		for my $j (0 .. $sub - 1) {
			my $d = "$root/d$i/s$j";
			mkdir $d or die "$d: $!";
			for my $k (0 .. $per - 1) {
				last if $n >= $nfiles;
				my $size = rand() < 0.05 ?
					102400 + int(rand(1048576 - 102400)) :
					int(rand(16385));
				open(my $f, ">", "$d/f$k") or die "$d/f$k: $!";
				binmode $f;
				my $left = $size;
				while ($left > 0) {
					my $len = $left < 65536 ? $left : 65536;
					my $off = int(rand(length($pool) - $len));
					print $f substr($pool, $off, $len);
					$left -= $len;
				}
				close($f) or die "$d/f$k: $!";
				$n++;
			}
		}
	}
' "$T" "$FILES"
nfiles=$(find "$T" -type f | wc -l)
ndirs=$(find "$T" -type d | wc -l)
bytes=$(du -sb "$T" | cut -f1)
echo "Tree: $nfiles files, $ndirs directories, $((bytes >> 20)) MiB (du)"
# read it once so both tools start from the same page cache
tar -cf - -C "$T" . | cat >/dev/null
sync

# run NAME CMD...: one timed run, appends "elapsed maxrss_kib user sys"
# to $W/NAME
run() {
	name=$1
	shift
	rm -f "$W/img"
	truncate -s "$SIZE" "$W/img"
	sync
	/usr/bin/time -f "%e %M %U %S" -o "$W/time.out" "$@" >"$W/tool.out" 2>&1 || {
		cat "$W/tool.out" >&2
		echo "mkfs-populate.sh: $name failed" >&2
		exit 1
	}
	cat "$W/time.out" >>"$W/$name"
	printf '  %-6s run: %6s s  peak RSS %7s KiB  (user %s s, sys %s s)\n' \
		"$name" $(cat "$W/time.out")
}

echo "Timing ($RUNS runs each, $SIZE sparse images):"
i=0
while [ $i -lt "$RUNS" ]; do
	run gaze "$MKFS" -q -f -d "$T" "$W/img"
	run ext4 mke2fs -q -F -t ext4 -d "$T" "$W/img"
	i=$((i + 1))
done

# median of column $2 in file $1
median() {
	sort -n -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
		END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

g=$(median "$W/gaze" 1)
e=$(median "$W/ext4" 1)
gr=$(median "$W/gaze" 2)
er=$(median "$W/ext4" 2)
gc=$(awk '{ print $3 + $4 }' "$W/gaze" >"$W/gaze.cpu"; median "$W/gaze.cpu" 1)
ec=$(awk '{ print $3 + $4 }' "$W/ext4" >"$W/ext4.cpu"; median "$W/ext4.cpu" 1)
echo "Median: mkfs.gaze -d $g s ($gc s CPU, $gr KiB peak RSS)," \
	"mke2fs -d $e s ($ec s CPU, $er KiB peak RSS)"
awk -v g="$g" -v e="$e" 'BEGIN {
	if (e > 0)
		printf "Ratio GAZE/ext4 (elapsed): %.2f\n", g / e
}'
awk -v g="$gc" -v e="$ec" 'BEGIN {
	if (e > 0)
		printf "Ratio GAZE/ext4 (CPU): %.2f\n", g / e
}'
