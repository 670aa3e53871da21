#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-scale.sh [VCPUS] - how GAZE and F2FS (zoned) scale with jobs and
# queue depth on the same emulated NVMe ZNS namespace (ZNS_MIB, default
# 2048, in ZONE_MIB zones, default 32, of ZONE_CAP_MIB capacity, default
# the zone size), each in a guest of its own with
# VCPUS vCPUs (default 2), booted fresh: the rows of issue 15's
# benchmark (tests/bench/guest/scale-bench.sh says how each is run),
# with N = VCPUS jobs (JOBS overrides):
#   (a) randread   4 KiB O_DIRECT random reads, qd1 and qd32 (IOPS)
#   (b) randwrite  4 KiB buffered random overwrites, 1 and N jobs on
#                  files of their own, final fsync counted (MiB/s)
#   (c) create     empty-file creates, 1 and N processes in directories
#                  of their own, final syncfs counted (creates/s)
#   (g) nschange   cycles of create, link, rename, unlink, unlink, 1 and
#                  N processes in directories of their own, final syncfs
#                  counted (changes/s)
#   (d) stat, open p99 latency (us) of uncached files while a writer
#                  streams and GC runs
#   (e) seqwrite, seqread  1 MiB sequential, 1 and N jobs (MiB/s)
#   (f) coldstat   lookup and stat of uncached files, 1 process and N in
#                  directories of their own (files/s)
#   (k) fsynccreate  new files of 4 KiB, each fsync'd before its close,
#                  1 and N processes in directories of their own
#                  (files/s); only when PHASES names it
#   (s) synccreate creates by N processes while another fsyncs every
#                  0.2 s: creates/s, the longest create and the longest
#                  fsync (ms); only when PHASES names it
#   (y) synclat    stat, open p99 and max latency (us) of uncached files
#                  beside bursts of creates, each followed by a syncfs;
#                  only when PHASES names it
# PHASES (e.g. "f d") runs only those phases, in that order; FSES="gaze"
# boots only GAZE's guest (to compare two modules: its rows then say
# "missing" for F2FS).
# Prints both filesystems' figures, each one's gain (N jobs / 1 job,
# qd32 / qd1) and GAZE / F2FS at N jobs (for latency: GAZE's p99 / F2FS's,
# below 1 is better), and whether each row meets issue 15's targets: a
# gain at least F2FS's and an absolute figure at least F2FS's, a p99 at
# most F2FS's.  SECS (default 10) is each timed phase's length.  Not part
# of make check: the guest runs under TCG, so absolute figures are far
# below a real machine's; ratios measured in the same run are the
# result.  Run it unchanged with more vCPUs on a bigger machine.
#
# Needs a configured and built tree (GAZE_BUILDDIR, default build/),
# kernel headers, QEMU, f2fs-tools and fio (scripts/setup-deps.sh).
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export GAZE_SRCDIR=$SRC
export GAZE_BUILDDIR=${GAZE_BUILDDIR:-$SRC/build}
VCPUS=${1:-2}
JOBS=${JOBS:-$VCPUS}
ZNS=${ZNS_MIB:-2048}
ZONE=${ZONE_MIB:-32}
CAP=${ZONE_CAP_MIB:-$ZONE}
SECS=${SECS:-10}
command -v mkfs.f2fs >/dev/null || { echo "vm-scale: mkfs.f2fs missing (apt-get install f2fs-tools)"; exit 1; }
command -v fio >/dev/null || { echo "vm-scale: fio missing (apt-get install fio)"; exit 1; }
. "$SRC/tests/vm/lib.sh"
vm_init bench-scale
vm_kmod "$BUILD/kmod" || exit 1
make -C "$BUILD" tests/bench/smallfiles gazectl/gazectl >"$OUT/helper.log" 2>&1 ||
	{ echo "vm-scale: building the helpers failed ($OUT/helper.log)"; exit 1; }
for fs in ${FSES:-gaze f2fs}; do
	GAZE_VM_SMP=$VCPUS "$HERE/run-guest.sh" -o "$OUT/$fs" -t 3600 -m 2G \
		-e GAZE_BUILDDIR="$BUILD" -e GAZE_SRCDIR="$SRC" \
		-e FS_ONLY=$fs -e SECS="$SECS" -e JOBS="$JOBS" \
		-e AGE_SECS="${AGE_SECS:-30}" -e NFILES="${NFILES:-6000}" \
		-e NSTAT="${NSTAT:-3000}" -e PHASES="${PHASES:-a b c g e f d}" \
		-x "$SRC" -x "$BUILD" -z "$ZNS" -Z "$ZONE" -C "$CAP" -d 512 -b 4096 \
		"$SRC/tests/bench/guest/scale-bench.sh"
	rc=$?
	tr -d '\r' <"$OUT/$fs/console.log" | grep -aE '^# ' | tee "$OUT/$fs.figures"
	[ $rc -eq 0 ] || { echo "vm-scale: $fs guest exit $rc (console: $OUT/$fs/console.log)"; exit 1; }
done
fig() { [ -f "$OUT/$1.figures" ] || return 0; awk -v k="$1 $2 $3" '$1 == "#" && $2 == "sc" && ($3" "$4" "$5) == k { print $6 }' "$OUT/$1.figures"; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && [ "$2" != 0 ] && echo "$1 / $2" | bc -l || echo 0; }
echo "# GAZE and F2FS (zoned), ${ZNS} MiB ZNS in ${ZONE} MiB zones (capacity $CAP MiB), $VCPUS vCPUs, N = $JOBS, $SECS s phases (kernel $VM_KVER)"
printf '%-10s %-9s %10s %10s %10s %10s %7s %7s %7s %s\n' row unit gaze_1 \
	gaze_N f2fs_1 f2fs_N gz_gain f2_gain gz/f2 target
row()	# TEST V1 VN UNIT
{
	g1=$(fig gaze $1 $2) gn=$(fig gaze $1 $3)
	f1=$(fig f2fs $1 $2) fn=$(fig f2fs $1 $3)
	gg=$(ratio "$gn" "$g1") fg=$(ratio "$fn" "$f1") gf=$(ratio "$gn" "$fn")
	if [ -z "$gn" ] || [ -z "$fn" ]; then
		t=missing
	elif [ "$(echo "$gg >= $fg && $gf >= 1" | bc -l)" = 1 ]; then
		t=met
	else
		t="not met"
	fi
	printf '%-10s %-9s %10s %10s %10s %10s %7.2f %7.2f %7.2f %s\n' \
		"$1" "$4" "${g1:--}" "${gn:--}" "${f1:--}" "${fn:--}" \
		"$gg" "$fg" "$gf" "$t"
}
row randread qd1 qd32 IOPS
row randwrite j1 j$JOBS MiB/s
row create p1 p$JOBS files/s
row nschange p1 p$JOBS changes/s
row seqwrite j1 j$JOBS MiB/s
row seqread j1 j$JOBS MiB/s
row coldstat j1 j$JOBS files/s
[ -z "$(fig gaze fsynccreate p1)$(fig f2fs fsynccreate p1)" ] ||
	row fsynccreate p1 p$JOBS files/s
for l in stat open; do
	g=$(fig gaze $l p99) f=$(fig f2fs $l p99)
	r=$(ratio "$g" "$f")
	t="not met"
	[ -n "$g" ] && [ -n "$f" ] || t=missing
	[ "$t" = missing ] || [ "$(echo "$r <= 1" | bc -l)" != 1 ] || t=met
	printf '%-10s %-9s %10s %10s %10s %10s %7s %7s %7.2f %s\n' "$l" \
		"p99 us" - "${g:--}" - "${f:--}" - - "$r" "$t"
done
# (y): latency beside synced bursts (lower is better)
for l in stat_p99 stat_max open_p99 open_max; do
	g=$(fig gaze synclat $l) f=$(fig f2fs synclat $l)
	[ -n "$g$f" ] || continue
	r=$(ratio "$g" "$f")
	t=missing
	[ -z "$g" ] || [ -z "$f" ] || { t="not met"; [ "$(echo "$r <= 1" | bc -l)" != 1 ] || t=met; }
	printf '%-10s %-9s %10s %10s %10s %10s %7s %7s %7.2f %s\n' synclat \
		"${l%_*} ${l#*_} us" - "${g:--}" - "${f:--}" - - "$r" "$t"
done
# (s): the rate, then the longest create and fsync (lower is better)
g=$(fig gaze synccreate p$JOBS) f=$(fig f2fs synccreate p$JOBS)
if [ -n "$g$f" ]; then
	r=$(ratio "$g" "$f")
	t=missing
	[ -z "$g" ] || [ -z "$f" ] || { t="not met"; [ "$(echo "$r >= 1" | bc -l)" != 1 ] || t=met; }
	printf '%-10s %-9s %10s %10s %10s %10s %7s %7s %7.2f %s\n' synccreate \
		files/s - "${g:--}" - "${f:--}" - - "$r" "$t"
	for l in longest_ms fsync_ms; do
		g=$(fig gaze synccreate $l) f=$(fig f2fs synccreate $l)
		r=$(ratio "$g" "$f")
		t=missing
		[ -z "$g" ] || [ -z "$f" ] || { t="not met"; [ "$(echo "$r <= 1" | bc -l)" != 1 ] || t=met; }
		printf '%-10s %-9s %10s %10s %10s %10s %7s %7s %7.2f %s\n' \
			synccreate "${l%_ms} ms" - "${g:--}" - "${f:--}" - - "$r" "$t"
	done
fi
