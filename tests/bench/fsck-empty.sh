#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fsck-empty.sh - time "fsck.gaze -fn" on an empty 15 TiB image against
# "e2fsck -fn" on an empty ext4 image of the same size (not part of make
# check): a checker's cost on a large device should follow what is used,
# not the device size.
#
# The GAZE image is "mkfs.gaze -q -s SIZE -z ZONE" (256 MiB zones by
# default), the ext4 one "mkfs.ext4 -q -F" on a file truncated to SIZE;
# both are sparse (GAZE writes a few blocks, ext4 about 1.3 GiB of
# metadata at 15 TiB).  Each checker runs BENCH_RUNS times (alternating,
# after a warm-up run each that brings what it reads into the page
# cache), timed with /usr/bin/time -v for elapsed seconds, CPU seconds
# (user + system) and peak RSS (elapsed from date +%s%N around it, to
# the millisecond, since an empty GAZE image takes a few).  The core's open path (what the module's
# mount runs, gaze_fs_open) is timed the same way through "gazectl ls",
# which opens the image read-only and lists the root.  Prints every run,
# the medians and the GAZE/ext4 ratios.
#
# Environment: GAZE_BUILDDIR (default: the tree this script is in),
# BENCH_DIR (scratch space, default $TMPDIR or /tmp; it must hold 15 TiB
# sparse files and about 1.5 GiB of written blocks), BENCH_SIZE (default
# 15T), BENCH_ZONE (default 256M), BENCH_RUNS (default 3), BENCH_KEEP=1
# to keep the scratch directory.
set -eu

: "${GAZE_BUILDDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
FSCK=$GAZE_BUILDDIR/fsck/fsck.gaze
MKFS=$GAZE_BUILDDIR/mkfs/mkfs.gaze
GAZECTL=$GAZE_BUILDDIR/gazectl/gazectl
SIZE=${BENCH_SIZE:-15T}
ZONE=${BENCH_ZONE:-256M}
RUNS=${BENCH_RUNS:-3}

for tool in /usr/bin/time perl mkfs.ext4 e2fsck truncate; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "fsck-empty.sh: $tool is needed" >&2
		exit 1
	}
done
for p in "$FSCK" "$MKFS" "$GAZECTL"; do
	[ -x "$p" ] || { echo "fsck-empty.sh: no $p (build first)" >&2; exit 1; }
done

W=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gaze-fsck-empty.XXXXXX")
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$W"' EXIT
GIMG=$W/gaze.img
EIMG=$W/ext4.img

echo "mkfs.gaze -s $SIZE -z $ZONE ..."
"$MKFS" -q -s "$SIZE" -z "$ZONE" "$GIMG"
echo "mkfs.ext4 ($SIZE) ..."
truncate -s "$SIZE" "$EIMG"
mkfs.ext4 -q -F "$EIMG"
echo "written: gaze $(du -k "$GIMG" | cut -f1) KiB, ext4 $(du -k "$EIMG" | cut -f1) KiB"

# run NAME CMD...: elapsed seconds, max RSS (KiB) and CPU seconds into
# $W/NAME.runs
run()
{
	local name=$1 rc t0 t1
	shift
	set +e
	t0=$(date +%s%N)
	/usr/bin/time -v "$@" >"$W/out" 2>"$W/time"
	rc=$?
	t1=$(date +%s%N)
	set -e
	if [ "$rc" -ne 0 ]; then
		echo "$name exited $rc:" >&2
		tail -20 "$W/out" "$W/time" >&2
		exit 1
	fi
	perl -ne '
		BEGIN { $s = ($ARGV[1] - $ARGV[0]) / 1e9; splice(@ARGV, 0, 2) }
		$m = $1 if /Maximum resident set size \(kbytes\): (\d+)/;
		$c += $1 if /(?:User|System) time \(seconds\): ([\d.]+)/;
		END { printf "%.3f %d %.2f\n", $s, $m, $c }
	' "$t0" "$t1" "$W/time" >>"$W/$name.runs"
	echo "  $name: $(tail -n1 "$W/$name.runs" | awk '{ printf "%s s, %d KiB, %s s CPU", $1, $2, $3 }')"
}

echo "Warm-up (page cache) ..."
"$FSCK" -fn "$GIMG" >/dev/null
e2fsck -fn "$EIMG" >/dev/null 2>&1 || true
echo "Load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), CPUs: $(nproc)"
for i in $(seq 1 "$RUNS"); do
	echo "Run $i:"
	run gaze "$FSCK" -fn "$GIMG"
	run ext4 e2fsck -fn "$EIMG"
	run open "$GAZECTL" ls "$GIMG"
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
ot=$(median "$W/open.runs" 1)
om=$(median "$W/open.runs" 2)
echo
echo "empty images of $SIZE (GAZE zones of $ZONE), runs: $RUNS (medians)"
printf 'fsck.gaze -fn: %8.3f s  %8d KiB max RSS  %6.2f s CPU\n' "$gt" "$gm" "$gc"
printf 'e2fsck -fn:    %8.3f s  %8d KiB max RSS  %6.2f s CPU\n' "$et" "$em" "$ec"
printf 'core open (gazectl ls): %.3f s  %d KiB max RSS\n' "$ot" "$om"
perl -e 'printf "ratio gaze/ext4: time %.4f, max RSS %.3f, CPU %.4f\n", $ARGV[0] / ($ARGV[1] || 0.001), $ARGV[2] / ($ARGV[3] || 1), $ARGV[4] / ($ARGV[5] || 0.01)' \
	"$gt" "$et" "$gm" "$em" "$gc" "$ec"
