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
# warm-up run each), timed with /usr/bin/time -v for elapsed seconds and
# peak RSS.  Prints every run, the medians, and the GAZE/ext4 ratios.
#
# Environment: GAZE_BUILDDIR (default: the tree this script is in),
# BENCH_DIR (scratch space, default $TMPDIR or /tmp; about 5 GiB per
# million files for each image), BENCH_RUNS (default 3),
# BENCH_IMAGE_SIZE (default: 12 KiB per file, at least 2G),
# BENCH_KEEP=1 to keep the scratch directory.
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
truncate -s "$SIZE" "$W/gaze.img"
"$MKFS" -q -f -d "$T" "$W/gaze.img"
echo "mke2fs -t ext4 -d ($SIZE) ..."
truncate -s "$SIZE" "$W/ext4.img"
mke2fs -q -F -t ext4 -N $((N + N / 50 + 4096)) -d "$T" "$W/ext4.img"
rm -rf "$T"

# run NAME CMD...: elapsed seconds and max RSS (KiB) into $W/NAME.runs
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
		END { printf "%.2f %d\n", $s, $m }
	' "$W/time" >>"$W/$name.runs"
	echo "  $name: $(tail -n1 "$W/$name.runs" | awk '{ printf "%s s, %d MiB", $1, $2 / 1024 }')"
}

echo "Warm-up (page cache) ..."
cat "$W/gaze.img" "$W/ext4.img" >/dev/null 2>&1 || true
"$FSCK" -fn "$W/gaze.img" >/dev/null
e2fsck -fn "$W/ext4.img" >/dev/null 2>&1 || true
for i in $(seq 1 "$RUNS"); do
	echo "Run $i:"
	run gaze "$FSCK" -fn "$W/gaze.img"
	run ext4 e2fsck -fn "$W/ext4.img"
done

median()
{
	sort -n -k"$2" "$1" | awk -v k="$2" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'
}
gt=$(median "$W/gaze.runs" 1)
gm=$(median "$W/gaze.runs" 2)
et=$(median "$W/ext4.runs" 1)
em=$(median "$W/ext4.runs" 2)
echo
echo "files: $N, image size: $SIZE, runs: $RUNS (medians)"
printf 'fsck.gaze -fn: %8.2f s  %8d KiB max RSS\n' "$gt" "$gm"
printf 'e2fsck -fn:    %8.2f s  %8d KiB max RSS\n' "$et" "$em"
perl -e 'printf "ratio gaze/ext4: time %.2f, max RSS %.2f\n", $ARGV[0] / ($ARGV[1] || 0.01), $ARGV[2] / ($ARGV[3] || 1)' \
	"$gt" "$et" "$gm" "$em"
