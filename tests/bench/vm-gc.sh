#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-gc.sh [a|b|c|d|all ...] [options] - the garbage-collection
# benchmarks of issue 5, each in QEMU guests (tests/vm/run-guest.sh) on an
# emulated NVMe ZNS namespace, with F2FS (zoned, metadata on a 4K-sector
# virtio disk) as the reference.  Prints ratios measured in the same run.
#   a  reclaim of one zone holding 40% valid data (1 MiB files, 60%
#      deleted evenly, background GC off, caches dropped), timed from
#      `gazectl gc --zone Z --wait` to the following syncfs, for every GAZE
#      configuration (all three issue-5 mechanisms on, the baseline with
#      all off, each alone) and for F2FS collecting one section of the
#      same fill through F2FS_IOC_GARBAGE_COLLECT_RANGE; one guest per
#      zone size (--zone-mib, default 256 and 1024)
#   b  fio, one job, 4 KiB buffered random writes (written back as they
#      go: vm.dirty_bytes 32 MiB) at uniformly random offsets (fio
#      norandommap: blocks are rewritten at random, not once per pass,
#      so victims hold valid data) over one file of --fio-pct of the
#      available space (F2FS's, which is smaller, when F2FS runs: the
#      same file for every filesystem), overwritten once in 64 KiB
#      random blocks first so that GC runs from the start, for
#      --fio-secs: GAZE all-on, all-on with gc_read_gap=0 (the read stage
#      reading run by run) and the baseline (background GC on) and F2FS:
#      MiB/s, IOPS, p99 and max latency
#   c  GC page allocation and cache insertion cost per GC'd page
#      (gc-stats pool_alloc_ns, pool_cache_ns, pages_gc), gc_pool=1 vs 0
#      with the pipeline on (the counters run in the pipelined GC only),
#      one reclaim of the first --zone-mib size
#   d  GC efficiency: MiB moved per second by the reclaim of (a) (all-on;
#      baseline too) over the namespace's own copy rate (the same amount
#      copied by one dd with 1 MiB direct reads and writes from a zone
#      into an empty zone, in the same guest before mkfs)
#   g  every zone geometry of --geom (one guest each for a and b):
#      (a) the reclaim of one zone ~40% valid as above, and (b) random
#      4 KiB buffered overwrites of a file of --fio-pct of the space
#      (the smaller of GAZE's and F2FS's), written sequentially first,
#      until --passes times the usable space is written or --g-secs
#      pass, then sync (counted), with fsync every N writes for each N
#      of --fsyncs (0: none); for --g-configs (default: all five) and
#      F2FS; MiB/s, write amplification (what the namespace and F2FS's
#      metadata disk wrote / what fio wrote) and the GC's figures, in
#      one table (tests/bench/guest/geom-bench.sh)
# Configurations or counters the running module does not have (gazectl
# tune refuses unknown keys) are reported as "n/a (not in this module)".
# Options:
#   --zone-mib N      zone size for a/c/d (repeatable; default 256 1024)
#   --zones N         zones per namespace for a/c/d (default 64: GAZE
#                     keeps 8 zones of GC reserve; F2FS reserves ~28
#                     sections and garbage-collects on every write when
#                     its free sections come near that)
#   --configs LIST    GAZE configurations for a, comma-separated among
#                     all-on,baseline,pipeline,pool,selblock (default all)
#   --no-f2fs         leave F2FS out
#   --fio-mib N       namespace size for b (default 1024)
#   --fio-zone-mib N  zone size for b (default 16)
#   --fio-secs N      seconds of random writes measured per filesystem
#                     (default 60), after --fio-ramp N unmeasured (15)
#   --fio-pct N       file size, % of the available space (default 70)
#   --mem SIZE        guest memory (default 2G)
#   --geom LIST       g: comma-separated NxMIB[cCAP] geometries (default
#                     16x256,64x256,32x1024,16x2048,64x256c192: N zones
#                     of MIB MiB, capacity CAP MiB when below the size)
#   --g-configs LIST  g: GAZE configurations (default all five)
#   --fsyncs LIST     g: fsync every N writes, comma-separated (default
#                     0,256; 0: none)
#   --passes N        g: usable space written per run, at most (default 2)
#   --g-secs N        g: seconds of overwrites per run, at most (default
#                     300)
#   --g-jobs N        g: N fio jobs, each overwriting its own file of
#                     1/N of the size (default 1); the table names the
#                     geometry NxMIB/Nj
#   --g-no-a          g: leave out the single reclaims
#   --g-sync-probe S  g: while the overwrites run, a sync(1) every S
#                     seconds, timed (RESULT's sync_probe_max_s: the
#                     longest, - when none ran; sync waits in an
#                     uninterruptible sleep for the writeback it starts,
#                     and past 120 s the kernel reports a hung task);
#                     default off.  The syncs change the run: its MiB/s
#                     (which counts a probe sync under way when fio
#                     ends) compares only with runs probed alike
#   --report          boot nothing: print the tables again from the
#                     consoles of the last run (vm-out/bench-gc/*/)
# Not part of make check: the guests run under TCG, so absolute figures
# are far below a real machine's; the ratios are what this reports.
# Needs a configured and built tree (GAZE_BUILDDIR, default build/),
# kernel headers, QEMU, f2fs-tools, fio, python3 (scripts/setup-deps.sh).
# Exit: 0, 1 when a guest failed, 2 on a usage error.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export GAZE_SRCDIR=$SRC
export GAZE_BUILDDIR=${GAZE_BUILDDIR:-$SRC/build}
ZONES_A=() NZ=64 CONFIGS_SEL= NO_F2FS=0 FIO_MIB=1024 FIO_ZONE=16
FIO_SECS=60 FIO_RAMP=15 FIO_PCT=70 MEM=2G SEL=() REPORT=0
GEOMS=16x256,64x256,32x1024,16x2048,64x256c192 G_CONFIGS= FSYNCS=0,256
PASSES=2 G_SECS=300 G_NO_A=0 G_JOBS=1 G_SYNC_PROBE=0
usage() { sed -n '4,/^# Exit/p' "$0" | sed 's/^# \?//'; exit "${1:-2}"; }
num() { [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -gt 0 ] || { echo "vm-gc: $1: '$2' is not a positive number" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	a|b|c|d|g) SEL+=("$1") ;;
	--geom) GEOMS=${2:-}; shift ;;
	--g-configs) G_CONFIGS=${2:-}; shift ;;
	--fsyncs) FSYNCS=${2:-}; shift ;;
	--passes) num "$1" "${2:-}"; PASSES=$2; shift ;;
	--g-secs) num "$1" "${2:-}"; G_SECS=$2; shift ;;
	--g-jobs) num "$1" "${2:-}"; G_JOBS=$2; shift ;;
	--g-no-a) G_NO_A=1 ;;
	--g-sync-probe) num "$1" "${2:-}"; G_SYNC_PROBE=$2; shift ;;
	all) SEL+=(a b c d) ;;
	--zone-mib) num "$1" "${2:-}"; ZONES_A+=("$2"); shift ;;
	--zones) num "$1" "${2:-}"; NZ=$2; shift ;;
	--configs) CONFIGS_SEL=${2:-}; shift ;;
	--no-f2fs) NO_F2FS=1 ;;
	--fio-mib) num "$1" "${2:-}"; FIO_MIB=$2; shift ;;
	--fio-zone-mib) num "$1" "${2:-}"; FIO_ZONE=$2; shift ;;
	--fio-secs) num "$1" "${2:-}"; FIO_SECS=$2; shift ;;
	--fio-ramp) num "$1" "${2:-}"; FIO_RAMP=$2; shift ;;
	--fio-pct) num "$1" "${2:-}"; FIO_PCT=$2; shift ;;
	--mem) MEM=${2:-}; shift ;;
	--report) REPORT=1 ;;
	-h|--help) usage 0 ;;
	*) echo "vm-gc: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done
[ ${#SEL[@]} -gt 0 ] || SEL=(a b c d)
[ ${#ZONES_A[@]} -gt 0 ] || ZONES_A=(256 1024)
has() { [[ " ${SEL[*]} " == *" $1 "* ]]; }

ALLCONF="all-on:1:1:1 baseline:0:0:0 pipeline:1:0:0 pool:0:1:0 selblock:0:0:1"
CONFIGS=
if [ -n "$CONFIGS_SEL" ]; then
	# the baseline is always run: the ratios need it
	for c in baseline ${CONFIGS_SEL//,/ }; do
		d=$(tr ' ' '\n' <<<"$ALLCONF" | grep "^$c:") ||
			{ echo "vm-gc: unknown configuration '$c'" >&2; exit 2; }
		[[ " $CONFIGS " == *" $d "* ]] || CONFIGS="$CONFIGS $d"
	done
else
	CONFIGS="baseline:0:0:0 all-on:1:1:1 pipeline:1:0:0 pool:0:1:0 selblock:0:0:1"
fi
CONFIGS=${CONFIGS# }
# g: the same names; every configuration unless --g-configs
G_CONF=
for c in ${G_CONFIGS//,/ }; do
	d=$(tr ' ' '\n' <<<"$ALLCONF" | grep "^$c:") ||
		{ echo "vm-gc: unknown configuration '$c'" >&2; exit 2; }
	G_CONF="$G_CONF $d"
done
[ -n "$G_CONFIGS" ] || G_CONF=$ALLCONF
G_CONF=${G_CONF# }
for g in ${GEOMS//,/ }; do
	[[ $g =~ ^[0-9]+x[0-9]+(c[0-9]+)?$ ]] ||
		{ echo "vm-gc: --geom: '$g' is not NxMIB[cCAP]" >&2; exit 2; }
done

tables()
{
	python3 - "$1" <<'EOF'
import sys

rows = []
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] != "RESULT":
        continue
    d = {"bench": w[1]}
    for kv in w[2:]:
        k, _, v = kv.partition("=")
        d[k] = v
    rows.append(d)

NA = "n/a (not in this module)"

def f(x):
    return float(x)

# a: one table per zone size
for zone in sorted({r["zone"] for r in rows if r["bench"] == "a"}, key=int):
    a = [r for r in rows if r["bench"] == "a" and r["zone"] == zone]
    by = {r["config"]: r for r in a}
    def per_mib(r):
        return f(r["secs"]) / (int(r["moved"]) / 256) if int(r["moved"]) else None
    base = by.get("baseline")
    fz = by.get("f2fs")
    print("a. reclaim of one %s MiB zone with ~40%% valid data "
          "(time: gc + syncfs; ratios on seconds per MiB moved)" % zone)
    print("   %-10s %9s %9s %7s %10s %8s %8s" % ("config", "seconds", "moved_MiB",
          "valid%", "kernel_s", "vs_base", "vs_f2fs"))
    for r in a:
        if "na" in r:
            print("   %-10s %s (missing %s)" % (r["config"],
                  NA if r["config"] != "f2fs" else "n/a",
                  r.get("missing", "").replace("_", " ")))
            continue
        t = per_mib(r)
        vb = "%.3f" % (t / per_mib(base)) if base and "na" not in base and t else "-"
        vf = "%.3f" % (t / per_mib(fz)) if fz and "na" not in fz and t else "-"
        print("   %-10s %9.3f %9.1f %7.1f %10s %8s %8s" % (r["config"], f(r["secs"]),
              int(r["moved"]) / 256, f(r["valid_pct"]),
              r.get("ksecs", "0") if r["config"] != "f2fs" else "-", vb, vf))
    print("   target: all-on <= 0.34x baseline and below 1.0x F2FS")
    print()

b = [r for r in rows if r["bench"] == "b"]
if b:
    by = {r["config"]: r for r in b}
    print("b. fio 4 KiB buffered random writes, one job (GC running throughout)")
    print("   %-12s %8s %10s %10s %11s %8s %8s %9s %9s" % ("config", "MiB/s",
          "IOPS", "p99_us", "max_us", "gc_zones", "tput/bl", "tput/f2", "p99/f2"))
    ok = lambda r: r and "mibs" in r
    base = by.get("baseline") if ok(by.get("baseline")) else None
    fz = by.get("f2fs") if ok(by.get("f2fs")) else None
    for r in b:
        if "na" in r:
            print("   %-10s %s (missing %s)" % (r["config"], NA, r.get("missing", "")))
            continue
        if "mibs" not in r:
            print("   %-10s failed: %s" % (r["config"], r.get("error", "?")))
            continue
        rb = "%.3f" % (f(r["mibs"]) / f(base["mibs"])) if base else "-"
        rf = "%.3f" % (f(r["mibs"]) / f(fz["mibs"])) if fz else "-"
        pf = "%.3f" % (f(r["p99_us"]) / f(fz["p99_us"])) if fz and f(fz["p99_us"]) else "-"
        print("   %-12s %8.2f %10.1f %10.1f %11.1f %8s %8s %8s %9s" % (r["config"],
              f(r["mibs"]), f(r["iops"]), f(r["p99_us"]), f(r["max_us"]),
              r.get("gc_zones", "-"), rb, rf, pf))
    print()

c = [r for r in rows if r["bench"] == "c" and ("pages" in r or "na" in r)]
if c:
    print("c. GC page allocation and cache insertion per GC'd page (one reclaim)")
    print("   %-10s %8s %10s %10s %14s %14s" % ("config", "pages", "alloc_ns",
          "cache_ns", "alloc_ms/GiB", "cache_ms/GiB"))
    vals = {}
    for r in c:
        if "na" in r:
            print("   %-10s %s (missing %s)" % (r["config"], NA, r.get("missing", "")))
            continue
        p = int(r["pages"])
        kind = "page cache" if r["config"] == "pipeline" else "pool"
        if not p:
            print("   %-10s no GC'd page counted" % r["config"])
            continue
        al = int(r["alloc_ns"]) / p
        ca = int(r["cache_ns"]) / p
        vals[kind] = (al, ca)
        print("   %-10s %8d %10.1f %10.1f %14.2f %14.2f  (%s)" % (r["config"], p, al, ca,
              al * 262144 / 1e6, ca * 262144 / 1e6, kind))
    if "pool" in vals and "page cache" in vals:
        pc = vals["page cache"]
        po = vals["pool"]
        print("   pool/page cache: alloc %s, cache insertion %s, both %s" % (
              "%.3f" % (po[0] / pc[0]) if pc[0] else "-",
              "%.3f" % (po[1] / pc[1]) if pc[1] else "-",
              "%.3f" % ((po[0] + po[1]) / (pc[0] + pc[1])) if pc[0] + pc[1] else "-"))
    print("   (ns per GC'd page; ms per 1 GiB of zone = 262144 pages; gc_pool=1")
    print("   vs 0 with the pipeline on: the counters run in the pipelined GC only)")
    print()

g = [r for r in rows if r["bench"] == "g"]
ga = [r for r in rows if r["bench"] == "ga"]
if g or ga:
    print("g. every geometry: (a) one reclaim of a zone ~40% valid, seconds per")
    print("   MiB moved; (b) 4 KiB random overwrites at the file size shown,")
    print("   MiB/s over fio + the final sync, fsync every N writes (0: none);")
    print("   WA: what the devices wrote / what fio wrote; hold_s: the longest")
    print("   the baseline mover or a GC step held the fs lock in one go;")
    print("   fsync_s: the longest fsync")
    order = ["all-on", "pipeline", "pool", "selblock", "baseline", "f2fs"]
    geoms = []
    for r in ga + g:
        if r["geom"] not in geoms:
            geoms.append(r["geom"])
    print("   %-12s %-9s %8s %7s %7s %6s %8s %7s %7s %6s %9s %6s %6s %7s" % ("geometry",
          "config", "a_s/MiB", "a/base", "a/f2fs", "fsync", "MiB/s",
          "x_base", "x_f2fs", "WA", "WA/base", "zones", "hold_s", "fsync_s"))
    for geo in geoms:
        am = {r["config"]: r for r in ga if r["geom"] == geo and "secs" in r}
        def spm(r):
            return f(r["secs"]) / (int(r["moved"]) / 256) if r and int(r["moved"]) else None
        fsyncs = sorted({r["fsync"] for r in g if r["geom"] == geo}, key=int) or ["-"]
        for fs in fsyncs:
            bm = {r["config"]: r for r in g if r["geom"] == geo and
                  r["fsync"] == fs and "mibs" in r}
            for c in order:
                a = am.get(c)
                b = bm.get(c)
                if not a and not b:
                    continue
                ta, tb, tf = spm(a), spm(am.get("baseline")), spm(am.get("f2fs"))
                ab = "%.3f" % (ta / tb) if ta and tb else "-"
                af = "%.3f" % (ta / tf) if ta and tf else "-"
                bb = bm.get("baseline")
                bf = bm.get("f2fs")
                xb = "%.3f" % (f(b["mibs"]) / f(bb["mibs"])) if b and bb else "-"
                xf = "%.3f" % (f(b["mibs"]) / f(bf["mibs"])) if b and bf else "-"
                wb = "%.3f" % (f(b["wa"]) / f(bb["wa"])) if b and bb and f(bb["wa"]) else "-"
                print("   %-12s %-9s %8s %7s %7s %6s %8s %7s %7s %6s %9s %6s %6s %7s" % (
                      geo, c, "%.4f" % ta if ta else "-", ab, af, fs,
                      "%.2f" % f(b["mibs"]) if b else "-", xb, xf,
                      "%.2f" % f(b["wa"]) if b else "-", wb,
                      b.get("gc_zones", "-") if b else "-",
                      b.get("hold_s", "-") if b else "-",
                      "%.1f" % (f(b["fsync_max_ms"]) / 1000)
                      if b and "fsync_max_ms" in b and fs != "0" else "-"))
    for r in ga + g:
        if "na" in r:
            print("   %s %s: not run (%s)" % (r["geom"], r["config"],
                  r.get("missing", "").replace("_", " ")))
    print("   targets: all-on never below the baseline; in (b) >= 1.95x the")
    print("   baseline and above F2FS where GC is the bottleneck; WA <= 1.1x")
    print("   the baseline's")
    print()

d = [r for r in rows if r["bench"] == "d"]
if d:
    cp = [r for r in d if "copy_mib" in r]
    print("d. GC efficiency: MiB/s moved by the reclaim / the device's copy rate")
    if cp:
        cr = int(cp[0]["copy_mib"]) / f(cp[0]["copy_secs"])
        n = int(cp[0]["copy_mib"])
        print("   device copy: %d MiB in %.3f s = %.2f MiB/s (1 MiB direct I/O, zone %s MiB;"
              " read alone %.2f MiB/s, write alone %.2f MiB/s)" % (
              n, f(cp[0]["copy_secs"]), cr, cp[0]["zone"],
              n / f(cp[0]["read_secs"]), n / f(cp[0]["write_secs"])))
        for r in d:
            if "gc_config" not in r:
                continue
            gs = f(r["gc_secs"])
            if not gs:
                continue
            g = f(r["gc_mib"]) / gs
            print("   GC %-9s %.1f MiB in %.3f s = %.2f MiB/s, efficiency %.3f (aim >= 0.7)" % (
                  r["gc_config"], f(r["gc_mib"]), gs, g, g / cr))
        if not any(r.get("gc_config") == "all-on" for r in d):
            print("   GC all-on   %s" % NA)
    print()
EOF
}

if [ "$REPORT" = 1 ]; then
	OUT=$GAZE_BUILDDIR/vm-out/bench-gc
	cat "$OUT"/*/console.log 2>/dev/null | tr -d '\r' |
		grep -aE '^(RESULT|STATS) ' >"$OUT/results.report" ||
		{ echo "vm-gc: no results under $OUT" >&2; exit 1; }
	tables "$OUT/results.report"
	exit 0
fi

command -v mkfs.f2fs >/dev/null || { echo "vm-gc: mkfs.f2fs missing (apt-get install f2fs-tools)"; exit 1; }
command -v fio >/dev/null || { echo "vm-gc: fio missing (apt-get install fio)"; exit 1; }
command -v python3 >/dev/null || { echo "vm-gc: python3 missing"; exit 1; }
. "$SRC/tests/vm/lib.sh"
vm_init bench-gc
for p in mkfs/mkfs.gaze gazectl/gazectl; do
	[ -x "$BUILD/$p" ] || { echo "vm-gc: $BUILD/$p is not built"; exit 1; }
done
make -C "$BUILD" tests/bench/f2fs-gcrange >"$OUT/helper.log" 2>&1 ||
	{ echo "vm-gc: building tests/bench/f2fs-gcrange failed ($OUT/helper.log)"; exit 1; }
vm_kmod "$BUILD/kmod" || exit 1
RESULTS=$OUT/results
: >"$RESULTS"
fail=0

# guest NAME BENCHES ZNS_MIB ZONE_MIB VDA_MIB [env...]
guest()
{
	local name=$1 benches=$2 zns=$3 zone=$4 vda=$5 rc s
	shift 5
	echo "# guest $name: benchmarks '$benches', ${zns} MiB namespace, ${zone} MiB zones"
	s=$(date +%s)
	for try in 1 2; do
		"$HERE/run-guest.sh" -o "$OUT/$name" -t 3000 -m "$MEM" \
			-e GAZE_BUILDDIR="$BUILD" -e GAZE_SRCDIR="$SRC" \
			-e BENCHES="$benches" -e ZONE_MIB="$zone" \
			-e NO_F2FS="$NO_F2FS" -e CONFIGS="$CONFIGS" "$@" \
			-x "$SRC" -x "$BUILD" -z "$zns" -Z "$zone" -d "$vda" \
			-b 4096 "$SRC/tests/bench/guest/${GUEST_SCRIPT:-gc-bench.sh}"
		rc=$?
		# TCG on a loaded host sometimes fails the guest kernel's
		# timer check at boot: one more try when it never started
		[ $rc -eq 125 ] && [ $try -eq 1 ] &&
			! grep -qa '^# /dev/nvme0n1: ' "$OUT/$name/console.log" ||
			break
		mv "$OUT/$name/console.log" "$OUT/$name/console.log.1"
		echo "# guest $name: the guest kernel did not come up (console.log.1), once more"
	done
	tr -d '\r' <"$OUT/$name/console.log" | grep -a '^# ' | sed 's/^/  /'
	tr -d '\r' <"$OUT/$name/console.log" |
		grep -aE '^(RESULT|STATS) ' >>"$RESULTS"
	echo "# guest $name: exit $rc after $(($(date +%s) - s)) s (console: $OUT/$name/console.log)"
	[ $rc -eq 0 ] || fail=1
}

# F2FS in zoned mode keeps its metadata on the conventional disk, from
# the first offset congruent to the disk's size modulo the zone size: the
# disk gets a whole number of zones, at least 64 MiB more than one
vda() { echo $((($1 + 64 + $1 - 1) / $1 * $1)); }
first=${ZONES_A[0]}
for z in "${ZONES_A[@]}"; do
	b=
	has a && b=a
	if [ "$z" = "$first" ]; then
		has c && b="$b c"
		has d && b="$b d"
	fi
	b=${b# }
	[ -n "$b" ] || continue
	guest "zone$z" "$b" $((z * NZ)) "$z" "$(vda "$z")"
done
if has b; then
	guest fio b "$FIO_MIB" "$FIO_ZONE" "$(vda "$FIO_ZONE")" \
		-e FIO_SECS="$FIO_SECS" -e FIO_RAMP="$FIO_RAMP" -e FIO_PCT="$FIO_PCT"
fi
if has g; then
	for geo in ${GEOMS//,/ }; do
		nz=${geo%%x*} zmib=${geo#*x} cap=
		case $zmib in *c*) cap=${zmib#*c} zmib=${zmib%c*} ;; esac
		capo=()
		[ -n "$cap" ] && capo=(-C "$cap" -e ZCAP_MIB="$cap")
		if [ $G_NO_A = 0 ]; then
			CONFIGS=$G_CONF guest "ga-$geo" a $((nz * zmib)) "$zmib" \
				"$(vda "$zmib")" -e GEOM="$geo" "${capo[@]}"
		fi
		nrun=$(( ($(wc -w <<<"$G_CONF") + 1) * $(wc -w <<<"${FSYNCS//,/ }") ))
		gname=$geo
		[ "$G_JOBS" -gt 1 ] && gname=$geo/${G_JOBS}j
		GUEST_SCRIPT=geom-bench.sh guest "g-${gname/\//-}" g $((nz * zmib)) \
			"$zmib" "$(vda "$zmib")" -e GEOM="$gname" -e JOBS="$G_JOBS" \
			-t $((nrun * (G_SECS + 900) + 600)) \
			-e CONFIGS="$G_CONF" -e FSYNCS="${FSYNCS//,/ }" \
			-e FIO_PCT="$FIO_PCT" -e PASSES="$PASSES" \
			-e FIO_SECS="$G_SECS" -e SYNC_PROBE="$G_SYNC_PROBE" \
			-N zoned.max_open=14,zoned.max_active=14 \
			"${capo[@]}"
	done
fi

echo
tables "$RESULTS"
exit $fail
