#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-compress.sh - transparent compression on a real corpus, in QEMU
# guests (tests/bench/guest/compress-bench.sh), with 1 vCPU and with
# VCPUS (default 2):
#   corpus  the Linux source tar of Debian's linux-source-6.1 package
#           (its first CORPUS_MB MiB, default 64; CORPUS_MB=all: the
#           whole tar, 1.3 GB), else a tar of
#           /usr/include and /usr/share/doc cut the same way;
#   tree    /usr/include/linux as files (TREE overrides);
#   rows    GAZE with compression off, lz4, zstd:1, zstd:3, gzip:6
#           (CONFIGS overrides), then F2FS with its lz4 and zstd, the
#           reference, on the same namespace in the same guest.
# For each row: write and read MB/s, MiB the device wrote, the tar's and
# the tree's ratio (data / st_blocks), and on GAZE the reclaim of one
# zone after half the tree was deleted.  Next to GAZE's ratio: what the
# command-line tools (lz4 -1, zstd -1/-3, gzip -6) make of the same tar
# cut into clusters of the same size (64 KiB), in bytes, and rounded to
# GAZE's rule (a cluster's stream with its 32-byte header, in whole 4 KiB
# blocks, kept only when it saves a block).  Not part of make check: TCG
# figures are far below a real machine's; ratios are the result.
#
# The namespace (ZNS_MIB) and the guest's memory grow with the corpus
# and the tree (both are copied to the guest's tmpfs).  ONE_GUEST=1 boots
# only the VCPUS guest (for a large corpus: the 1-vCPU columns are then
# "-"; the same guest still compresses and decodes on 1 CPU for the
# w1cpu and r1cpu lines).  ZONE_MIB (default 16) and ZONE_CAP_MIB
# (default the zone size) set the namespace's zones, for the edges: few
# large zones, capacity below the size.
#
# Needs a configured and built tree (GAZE_BUILDDIR, default build/),
# kernel headers, QEMU, f2fs-tools and the lz4, zstd and gzip commands.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export GAZE_SRCDIR=$SRC
export GAZE_BUILDDIR=${GAZE_BUILDDIR:-$SRC/build}
VCPUS=${VCPUS:-2}
CORPUS_MB=${CORPUS_MB:-64}
CONFIGS=${CONFIGS:-off lz4 zstd:1 zstd:3 gzip:6}
TREE=${TREE:-/usr/include/linux}
for c in lz4 zstd gzip mkfs.f2fs bc; do
	command -v $c >/dev/null || { echo "vm-compress: $c missing"; exit 1; }
done
. "$SRC/tests/vm/lib.sh"
vm_init bench-compress
vm_kmod "$BUILD/kmod" || exit 1
make -C "$BUILD" gazectl/gazectl mkfs/mkfs.gaze >"$OUT/helper.log" 2>&1 ||
	{ echo "vm-compress: building the tools failed ($OUT/helper.log)"; exit 1; }

# the corpus
C=$OUT/corpus.tar
LS=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null | head -1)
if [ -n "$LS" ]; then
	if [ "$CORPUS_MB" = all ]; then
		xz -dc "$LS" >"$C"
		CORPUS_MB=$(( $(stat -c %s "$C") >> 20 ))
		what="linux-source-6.1.tar (all of it, $CORPUS_MB MiB)"
	else
		xz -dc "$LS" | head -c $((CORPUS_MB << 20)) >"$C"
		what="linux-source-6.1.tar (first $CORPUS_MB MiB)"
	fi
else
	tar -cf - /usr/include /usr/share/doc 2>/dev/null |
		head -c $((CORPUS_MB << 20)) >"$C"
	what="tar of /usr/include and /usr/share/doc (first $CORPUS_MB MiB; apt-get install linux-source-6.1 for the kernel tree)"
fi
echo "# corpus: $what"

# the tools on 64 KiB pieces: bytes, and blocks under GAZE's rule
P=$OUT/pieces
rm -rf "$P"
mkdir -p "$P"
split -b 65536 -a 5 "$C" "$P/p"
# a tool's output bytes for every piece, one per line, in glob order
tool_sizes()
{
	local f
	for f in "$P"/p*; do $1 <"$f" | wc -c; done
}
# the ratio in bytes and under GAZE's rule, from the pieces' sizes
tool_ratio()
{
	paste "$OUT/piece.sizes" "$1" | awk '{
		n = $1; c = $2; raw += n; out += (c < n ? c : n)
		nv = int((n + 4095) / 4096); cb = int((c + 32 + 4095) / 4096)
		rb += nv; ob += (cb < nv ? cb : nv)
	} END { printf "%.4f %.4f\n", raw / out, rb / ob }'
}
stat -c %s "$P"/p* >"$OUT/piece.sizes"
declare -A TOOL
declare -A TOOLCMD=([lz4]="lz4 -1 -c" [zstd:1]="zstd -1 -c -q"
		    [zstd:3]="zstd -3 -c -q" [gzip:6]="gzip -6 -c")
for k in "${!TOOLCMD[@]}"; do	# the four at once, on the host's cores
	tool_sizes "${TOOLCMD[$k]}" >"$OUT/tool.${k/:/-}" &
done
wait
for k in "${!TOOLCMD[@]}"; do
	TOOL[$k]=$(tool_ratio "$OUT/tool.${k/:/-}")
done
rm -rf "$P"

# room for the rows: the tar and the tree, or the tar twice (GC), with
# the collector's margin; memory for both copies in tmpfs
TREE_MB=$(du -sm --apparent-size "$TREE" | cut -f1)
# a large tree goes to the guest as one tar: 9p copies many small files
# slowly (78,000 files of the kernel tree took 8 minutes)
GTREE=$TREE
if [ "$(find "$TREE" -type f | wc -l)" -gt 5000 ]; then
	GTREE=$OUT/tree.tar
	tar -C "$TREE" -cf "$GTREE" . ||
		{ echo "vm-compress: tar of $TREE failed"; exit 1; }
fi
ZNS_MIB=${ZNS_MIB:-$(( 2 * (CORPUS_MB + TREE_MB) + 1024 ))}
[ "$ZNS_MIB" -ge 2048 ] || ZNS_MIB=2048
MEM_MIB=$(( 3072 + CORPUS_MB + 2 * TREE_MB ))
SECS=$(( 3600 + 8 * (CORPUS_MB + TREE_MB) ))
ZONE=${ZONE_MIB:-16}
CAP=${ZONE_CAP_MIB:-$ZONE}
echo "# namespace $ZNS_MIB MiB of $ZONE MiB zones (capacity $CAP MiB); guest memory $MEM_MIB MiB; tree $TREE_MB MiB"
GUESTS="1 $VCPUS"
[ "${ONE_GUEST:-0}" = 1 ] && GUESTS=$VCPUS
rm -f "$OUT"/cb*.figures
for n in $GUESTS; do
	GAZE_VM_SMP=$n "$HERE/run-guest.sh" -o "$OUT/cb$n" -t $SECS -m ${MEM_MIB}M \
		-e GAZE_BUILDDIR="$BUILD" -e GAZE_SRCDIR="$SRC" \
		-e CORPUS="$C" -e TREE="$GTREE" -e CONFIGS="$CONFIGS" \
		-e RW_MIB="${RW_MIB:-16}" -e F2FS_ALGS="${F2FS_ALGS:-lz4 zstd}" \
		-x "$SRC" -x "$BUILD" -z $ZNS_MIB -Z $ZONE -C $CAP -d 1024 -b 4096 \
		"$SRC/tests/bench/guest/compress-bench.sh"
	rc=$?
	tr -d '\r' <"$OUT/cb$n/console.log" | grep -a '^# ' >"$OUT/cb$n.figures"
	[ $rc -eq 0 ] || { cat "$OUT/cb$n.figures"; echo "vm-compress: guest ($n vCPU) exit $rc (console: $OUT/cb$n/console.log)"; exit 1; }
	[ $n -eq "$VCPUS" ] && break
done
# the columns that do not depend on the vCPUs come from the 1-vCPU guest
# when it ran
R=cb1
[ -f "$OUT/cb1.figures" ] || R=cb$VCPUS
grep -v '^# cb ' "$OUT/$R.figures"

val() { [ -f "$OUT/$1.figures" ] || return 0; awk -v n="$2" -v k="$3" '$2 == "cb" && $3 == n { for (i = 4; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }' "$OUT/$1.figures" | head -1; }
div() { [ -n "$1" ] && [ -n "$2" ] && [ "$2" != 0 ] && printf '%.2f' "$(echo "$1 / $2" | bc -l)" || echo -; }
echo "# compression, kernel $VM_KVER, corpus $CORPUS_MB MiB; write/read MB/s with 1 and $VCPUS vCPUs"
printf '%-12s %7s %7s %7s %7s %7s %6s %6s %6s %6s %6s %7s %6s\n' row \
	"w/1" "w/$VCPUS" "r/1" "r/$VCPUS" dev_MiB ratio tools tblk "vs" tree gc_s moved
rows=""
for c in $CONFIGS; do rows="$rows gaze-$c"; done
for a in ${F2FS_ALGS:-lz4 zstd}; do rows="$rows f2fs-$a"; done
for r in $rows; do
	k=${r#gaze-}
	t=${TOOL[$k]:-}
	tb=${t#* }
	ratio=$(val $R "$r" ratio)
	printf '%-12s %7s %7s %7s %7s %7s %6s %6s %6s %6s %6s %7s %6s\n' "$r" \
		"$(val cb1 "$r" write)" "$(val cb$VCPUS "$r" write)" \
		"$(val cb1 "$r" read)" "$(val cb$VCPUS "$r" read)" \
		"$(val $R "$r" dev_mib)" "$ratio" \
		"$( [ -n "$t" ] && printf '%.2f' "${t% *}" || echo -)" \
		"$( [ -n "$t" ] && printf '%.2f' "$tb" || echo -)" \
		"$( [ -n "$t" ] && div "$ratio" "$tb" || echo -)" \
		"$(val $R "$r" tree_ratio)" "$(val $R "$r" gc_secs)" \
		"$(val $R "$r" gc_moved)"
done
echo "# ratio: the tar's data / its st_blocks; tools: the command-line tool's ratio on 64 KiB pieces in bytes, tblk: rounded to GAZE's rule; vs: ratio / tblk"
off=$(val cb1 gaze-off write)
for c in $CONFIGS; do
	[ "$c" = off ] && continue
	echo "# gaze-$c write vs off: 1 vCPU $(div "$(val cb1 "gaze-$c" write)" "$off"), $VCPUS vCPUs $(div "$(val cb$VCPUS "gaze-$c" write)" "$(val cb$VCPUS gaze-off write)"); $VCPUS vCPUs vs 1: $(div "$(val cb$VCPUS "gaze-$c" write)" "$(val cb1 "gaze-$c" write)")"
	echo "# gaze-$c with $VCPUS vCPUs, writeback compressing on $(val cb$VCPUS "gaze-$c" cpus) CPUs vs on 1 (compress_cpu_pct=1), same guest: $(val cb$VCPUS "gaze-$c" write) vs $(val cb$VCPUS "gaze-$c" w1cpu) MB/s, $(div "$(val cb$VCPUS "gaze-$c" write)" "$(val cb$VCPUS "gaze-$c" w1cpu)")x"
	echo "# gaze-$c with $VCPUS vCPUs, random 4 KiB overwrites (writeback merging partial clusters on $(val cb$VCPUS "gaze-$c" cpus) CPUs vs on 1), same guest: $(val cb$VCPUS "gaze-$c" rw) vs $(val cb$VCPUS "gaze-$c" rw1cpu) MB/s, $(div "$(val cb$VCPUS "gaze-$c" rw)" "$(val cb$VCPUS "gaze-$c" rw1cpu)")x"
	echo "# gaze-$c with $VCPUS vCPUs, readahead decoding on $(val cb$VCPUS "gaze-$c" cpus) CPUs vs on 1 (compress_cpu_pct=1), same guest: $(val cb$VCPUS "gaze-$c" read) vs $(val cb$VCPUS "gaze-$c" r1cpu) MB/s, $(div "$(val cb$VCPUS "gaze-$c" read)" "$(val cb$VCPUS "gaze-$c" r1cpu)")x"
done
echo "# random 4 KiB buffered overwrites of the tar (${RW_MIB:-16} MiB, fio, and the sync), MB/s, 1 vCPU / $VCPUS vCPUs:"
for r in $rows; do
	echo "#   $r: $(val cb1 "$r" rw) / $(val cb$VCPUS "$r" rw)"
done
