#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh OUTDIR - builds the libFuzzer harnesses with clang straight from
# the core sources (no libtool): OUTDIR/fuzz_format, OUTDIR/fuzz_image,
# OUTDIR/fuzz_dir, OUTDIR/fuzz_cluster,
# OUTDIR/img2seed.  When mkfs.gaze is found ($MKFS_GAZE, or
# $GAZE_BUILDDIR/mkfs/mkfs.gaze) it also makes the seed corpora in
# OUTDIR/seed/<harness>/ from a small image made with mkfs.gaze -d.
# Needs clang with libFuzzer (Debian: clang, libclang-rt-14-dev) and
# libzbd.  Exit 1 when anything is missing or fails.
set -eu
OUT=${1:?usage: build.sh OUTDIR}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CC=${CLANG:-clang}
mkdir -p "$OUT/obj" "$OUT/seed/fuzz_format" "$OUT/seed/fuzz_image"
OUT=$(cd "$OUT" && pwd)

command -v "$CC" >/dev/null 2>&1 || {
	echo "build.sh: $CC not found (install clang)" >&2; exit 1; }
INC="-I$SRC/lib/env -I$SRC/kernel/core -I$SRC/lib/zdev -I$SRC/tests/fuzz"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CFLAGS="-g -O1 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
-Wno-missing-field-initializers -pthread -DPACKAGE_VERSION=\"fuzz\""

# libFuzzer present?
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ return 0; }\n' \
	>"$OUT/obj/probe.c"
"$CC" -fsanitize=fuzzer "$OUT/obj/probe.c" -o "$OUT/obj/probe" 2>/dev/null || {
	echo "build.sh: $CC -fsanitize=fuzzer does not link (install libclang-rt-14-dev)" >&2
	exit 1; }

objs=
for f in "$SRC"/kernel/core/*.c "$SRC"/lib/env/env.c "$SRC"/lib/zdev/*.c; do
	o="$OUT/obj/$(basename "$(dirname "$f")")_$(basename "$f" .c).o"
	# shellcheck disable=SC2086
	"$CC" $CFLAGS $SAN -fsanitize=fuzzer-no-link $INC -c "$f" -o "$o"
	objs="$objs $o"
done
for h in fuzz_format fuzz_image fuzz_dir fuzz_cluster; do
	# shellcheck disable=SC2086
	"$CC" $CFLAGS $SAN -fsanitize=fuzzer $INC "$SRC/tests/fuzz/$h.c" \
		$objs -lzbd -llz4 -lzstd -lz -o "$OUT/$h"
done
"$CC" -O1 -Wall -I"$SRC/tests/fuzz" "$SRC/tests/fuzz/img2seed.c" \
	-o "$OUT/img2seed"
# shellcheck disable=SC2086
"$CC" $CFLAGS $SAN $INC "$SRC/tests/fuzz/clusterseed.c" $objs -lzbd -llz4 \
	-lzstd -lz -o "$OUT/clusterseed"
mkdir -p "$OUT/seed/fuzz_cluster"
"$OUT/clusterseed" "$OUT/seed/fuzz_cluster"

MKFS=${MKFS_GAZE:-${GAZE_BUILDDIR:-}/mkfs/mkfs.gaze}
if [ -x "$MKFS" ]; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	mkdir -p "$t/tree/dir/sub" "$t/tree/big"
	echo hello >"$t/tree/hello.txt"
	printf 'x%.0s' $(seq 1 6000) >"$t/tree/dir/six-k"
	head -c 20000 /dev/zero | tr '\0' 'z' >"$t/tree/dir/sub/twenty-k"
	i=0
	while [ $i -lt 40 ]; do	# enough entries for a hashed directory
		echo $i >"$t/tree/big/entry-with-a-longer-name-$i"
		i=$((i + 1))
	done
	ln -s hello.txt "$t/tree/link"
	# a hashed directory: many names, all hard links to one inode
	mkdir "$t/tree/hashed"
	echo linked >"$t/tree/hashed/target"
	i=0
	while [ $i -lt 150 ]; do
		ln "$t/tree/hashed/target" \
		   "$t/tree/hashed/a-rather-long-name-for-a-link-number-$i"
		i=$((i + 1))
	done
	# sparse files reaching a direct node and an indirect node
	printf 'dnode' | dd of="$t/tree/sparse-dnode" bs=4096 seek=600 \
		conv=notrunc status=none
	printf 'ind' | dd of="$t/tree/sparse-ind" bs=4096 seek=300000 \
		conv=notrunc status=none
	ln "$t/tree/hello.txt" "$t/tree/dir/hardlink"
	setfattr -n user.test -v value "$t/tree/hello.txt" 2>/dev/null || :
	"$MKFS" -q -f -s 16M -z 1M -d "$t/tree" "$t/img"
	"$OUT/img2seed" "$t/img" "$OUT/seed/fuzz_image/mkfs-d" \
		"$OUT/seed/fuzz_format" >/dev/null
	"$MKFS" -q -f -s 16M -z 1M --compression zstd --cluster-size 16K \
		-d "$t/tree" "$t/img3"
	"$OUT/img2seed" "$t/img3" "$OUT/seed/fuzz_image/mkfs-d-compressed" \
		>/dev/null
	"$MKFS" -q -f -s 16M -z 1M "$t/img2"
	"$OUT/img2seed" "$t/img2" "$OUT/seed/fuzz_image/mkfs-empty" >/dev/null
else
	echo "build.sh: no mkfs.gaze (set GAZE_BUILDDIR or MKFS_GAZE): no image seeds" >&2
fi
echo "build.sh: harnesses in $OUT"
