#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fsck-1m.sh [N] - time "fsck.gaze -fn" against "e2fsck -fn" on images of
# the same tree of N files (default 1,000,000; not part of make check).
#
# The tree: N regular files, 1,000 per directory, sizes uniform in
# 0..2 KiB with random content (small files, the case where a checker's
# per-inode cost shows).  The GAZE image is made with "mkfs.gaze -d", the
# ext4 one with "mke2fs -t ext4 -d" (inode count sized for the tree),
# both sparse images of the same size.  Each checker runs BENCH_RUNS
# times (alternating, the images in the page cache after a first
# warm-up run each), timed with /usr/bin/time -v for elapsed seconds,
# CPU seconds (user + system) and peak RSS.  Prints every run, the
# medians, and the GAZE/ext4 ratios.  On a machine shared with other
# work the elapsed times follow the load (printed before the runs);
# CPU seconds do not, but fsck.gaze spreads its work over two threads,
# which only elapsed time rewards.
#
# Environment: GAZE_BUILDDIR (default: the tree this script is in),
# BENCH_DIR (scratch space, default $TMPDIR or /tmp; about 5 GiB per
# million files for each image), BENCH_RUNS (default 3),
# BENCH_IMAGE_SIZE (default: 12 KiB per file, at least 2G),
# BENCH_KEEP=1 to keep the scratch directory, BENCH_IMAGES=DIR to time
# the gaze.img and ext4.img that a BENCH_KEEP=1 run left in DIR instead
# of building new ones (N is then only printed).
set -eu

: "${GAZE_BUILDDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
FSCK=$GAZE_BUILDDIR/fsck/fsck.gaze
MKFS=$GAZE_BUILDDIR/mkfs/mkfs.gaze
N=${1:-1000000}
RUNS=${BENCH_RUNS:-3}

case $N in
''|*[!0-9]*) echo "usage: fsck-1m.sh [NUMBER-OF-FILES]" >&2; exit 2 ;;
esac
for tool in /usr/bin/time perl mke2fs e2fsck; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "fsck-1m.sh: $tool is needed" >&2
		exit 1
	}
done
for p in "$FSCK" "$MKFS"; do
	[ -x "$p" ] || { echo "fsck-1m.sh: no $p (build first)" >&2; exit 1; }
done
MB=$(( (N * 12 + 1023) / 1024 ))
[ "$MB" -ge 2048 ] || MB=2048
SIZE=${BENCH_IMAGE_SIZE:-${MB}M}

W=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gaze-fsck-bench.XXXXXX")
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$W"' EXIT
T=$W/tree
GIMG=$W/gaze.img
EIMG=$W/ext4.img
if [ -n "${BENCH_IMAGES:-}" ]; then
	GIMG=$BENCH_IMAGES/gaze.img
	EIMG=$BENCH_IMAGES/ext4.img
	for i in "$GIMG" "$EIMG"; do
		[ -f "$i" ] || { echo "fsck-1m.sh: no $i" >&2; exit 1; }
	done
	SIZE=$(du -h --apparent-size "$GIMG" | cut -f1)
else

echo "Building the tree ($N files) in $T ..."
	perl -e '
	use strict;
	my ($root, $n) = @ARGV;
	my $pool = "";
	open(my $r, "<", "/dev/urandom") or die "urandom: $!";
	read($r, $pool, 1 << 20) == (1 << 20) or die "urandom: short read";
	close($r);
	srand(42);
	mkdir $root or die "$root: $!";
	for (my $i = 0; $i < $n; $i++) {
		my $d = sprintf("%s/d%05d", $root, int($i / 1000));
		mkdir $d if $i % 1000 == 0;
		my $len = int(rand(2049));
		open(my $f, ">", "$d/file$i") or die "$d/file$i: $!";
		print $f substr($pool, int(rand(length($pool) - $len)), $len);
		close($f);
	}
' "$T" "$N"

	echo "mkfs.gaze -d ($SIZE) ..."
	truncate -s "$SIZE" "$GIMG"
	"$MKFS" -q -f -d "$T" "$GIMG"
	echo "mke2fs -t ext4 -d ($SIZE) ..."
	truncate -s "$SIZE" "$EIMG"
	mke2fs -q -F -t ext4 -N $((N + N / 50 + 4096)) -d "$T" "$EIMG"
	rm -rf "$T"
fi

# run NAME CMD...: elapsed seconds, max RSS (KiB) and CPU seconds into
# $W/NAME.runs
run()
{
	local name=$1 rc
	shift
	set +e
	/usr/bin/time -v "$@" >"$W/out" 2>"$W/time"
	rc=$?
	set -e
	if [ "$rc" -ne 0 ]; then
		echo "$name exited $rc:" >&2
		tail -20 "$W/out" "$W/time" >&2
		exit 1
	fi
	perl -ne '
		if (/Elapsed \(wall clock\) time .*: (?:(\d+):)?(\d+):([\d.]+)/) {
			$s = ($1 // 0) * 3600 + $2 * 60 + $3;
		}
		$m = $1 if /Maximum resident set size \(kbytes\): (\d+)/;
		$c += $1 if /(?:User|System) time \(seconds\): ([\d.]+)/;
		END { printf "%.2f %d %.2f\n", $s, $m, $c }
	' "$W/time" >>"$W/$name.runs"
	echo "  $name: $(tail -n1 "$W/$name.runs" | awk '{ printf "%s s, %d KiB, %s s CPU", $1, $2, $3 }')"
}

# each checker once: what it reads comes into the page cache (a cat of
# the sparse images would fill the cache with their holes)
echo "Warm-up (page cache) ..."
"$FSCK" -fn "$GIMG" >/dev/null
e2fsck -fn "$EIMG" >/dev/null 2>&1 || true
echo "Load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), CPUs: $(nproc)"
for i in $(seq 1 "$RUNS"); do
	echo "Run $i:"
	run gaze "$FSCK" -fn "$GIMG"
	run ext4 e2fsck -fn "$EIMG"
done

median()
{
	sort -n -k"$2" "$1" | awk -v k="$2" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'
}
gt=$(median "$W/gaze.runs" 1)
gm=$(median "$W/gaze.runs" 2)
gc=$(median "$W/gaze.runs" 3)
et=$(median "$W/ext4.runs" 1)
em=$(median "$W/ext4.runs" 2)
ec=$(median "$W/ext4.runs" 3)
echo
echo "files: $N, image size: $SIZE, runs: $RUNS (medians)"
printf 'fsck.gaze -fn: %8.2f s  %8d KiB max RSS  %6.2f s CPU\n' "$gt" "$gm" "$gc"
printf 'e2fsck -fn:    %8.2f s  %8d KiB max RSS  %6.2f s CPU\n' "$et" "$em" "$ec"
perl -e 'printf "ratio gaze/ext4: time %.2f, max RSS %.2f, CPU %.2f\n", $ARGV[0] / ($ARGV[1] || 0.01), $ARGV[2] / ($ARGV[3] || 1), $ARGV[4] / ($ARGV[5] || 0.01)' \
	"$gt" "$et" "$gm" "$em" "$gc" "$ec"
