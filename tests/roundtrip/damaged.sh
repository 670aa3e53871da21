#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# damaged.sh - "gazectl extract" and "gazectl ls -R" on a damaged image
# go on past what cannot be read.  An image made by mkfs.gaze -d gets a
# bad checksum in three inode blocks (tests/fsck/poke badcrc): a file in
# the middle of a directory, a file listed last in a directory that has
# a subdirectory, and a whole directory; and in the direct node of a
# large file.  extract must report each on stderr (path and why), exit
# 1, and still extract every other file byte for byte (symlinks and hard
# links too), and of the large file the blocks before the bad node; ls
# -R and ls -lR must name the bad inodes, exit 1, and list everything
# after them.  On the undamaged image both exit 0 and say nothing on
# stderr.
#
# Needs no root: the tree belongs to whoever runs the test, so extract's
# chown gives files back to their owner.  Uses GAZE_BUILDDIR (make check).
set -u

: "${GAZE_BUILDDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
MKFS=$GAZE_BUILDDIR/mkfs/mkfs.gaze
GAZECTL=$GAZE_BUILDDIR/gazectl/gazectl
POKE=$GAZE_BUILDDIR/tests/fsck/poke

W=$(mktemp -d "${TMPDIR:-/tmp}/gaze-damaged.XXXXXX") || exit 99
trap 'rm -rf "$W"' EXIT
T=$W/tree
n=0
nfail=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n - $*"; }

# check "description" command...: passes when the command succeeds
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}

# ino PATH: the image's inode number of PATH
ino() {
	"$GAZECTL" stat "$IMG" "$1" | sed -n 's/^ Inode: *\([0-9]*\) .*/\1/p'
}

# ------------------------------------------------------------------
# The tree: files inline (< 3584 bytes) and in blocks, before and after
# the damaged ones in their directories, a symlink, a hard link and
# directories after the damaged directory.
# ------------------------------------------------------------------
mkdir -p "$T/a" "$T/m-lost/sub" "$T/z/deeper" || exit 99
i=0
while [ $i -lt 12 ]; do
	head -c $((i * 1500 + 1)) /dev/urandom >"$T/a/f$i" || exit 99
	head -c $((i * 700 + 3)) /dev/urandom >"$T/z/deeper/g$i" || exit 99
	i=$((i + 1))
done
head -c 50000 /dev/urandom >"$T/a/m-victim" || exit 99
echo after >"$T/a/n-after" || exit 99
echo last >"$T/z/zz-bad" || exit 99
# 489 blocks: 448 mapped by the inode, the rest by a direct node
head -c 2000000 /dev/urandom >"$T/a/big" || exit 99
head -c 9000 /dev/urandom >"$T/m-lost/inside" || exit 99
echo gone >"$T/m-lost/sub/too" || exit 99
echo top >"$T/top" || exit 99
ln "$T/a/f5" "$T/z/f5-link" || exit 99
ln -s ../a/f3 "$T/z/to-f3" || exit 99

IMG=$W/img
"$MKFS" -q -s 128M -d "$T" "$IMG" || exit 99

# --- the undamaged image: exit 0, nothing on stderr -------------------
"$GAZECTL" extract "$IMG" "$W/clean" 2>"$W/err"
rc=$?
check "extract of the undamaged image exits 0 (got $rc)" [ $rc = 0 ]
check "extract of the undamaged image is silent on stderr" [ ! -s "$W/err" ]
"$GAZECTL" ls -R "$IMG" >/dev/null 2>"$W/err"
rc=$?
check "ls -R of the undamaged image exits 0 (got $rc)" [ $rc = 0 ]

# --- damage -----------------------------------------------------------
VICTIM=$(ino /a/m-victim)
LAST=$(ino /z/zz-bad)
LOSTDIR=$(ino /m-lost)
if [ -z "$VICTIM" ] || [ -z "$LAST" ] || [ -z "$LOSTDIR" ]; then
	echo "ERROR: no inode numbers from gazectl stat"
	exit 99
fi
DNODE=$("$POKE" "$IMG" child "$(ino /a/big)" 0)
case $DNODE in
''|0|*[!0-9]*)
	echo "ERROR: /a/big has no direct node ($DNODE)"
	exit 99
esac
for i in "$VICTIM" "$LAST" "$LOSTDIR" "$DNODE"; do
	"$POKE" "$IMG" badcrc "$i" >/dev/null || exit 99
done
echo "# damaged: /a/m-victim (inode $VICTIM), /z/zz-bad (inode $LAST)," \
	"/m-lost (inode $LOSTDIR), /a/big's direct node $DNODE"

# --- extract ------------------------------------------------------------
OUT=$W/out
"$GAZECTL" extract "$IMG" "$OUT" >"$W/xt.out" 2>"$W/xt.err"
rc=$?
sed 's/^/# stderr: /' "$W/xt.err"
check "extract of the damaged image exits 1 (got $rc)" [ $rc = 1 ]
check "extract names the damaged file and why" \
	grep -q "^gazectl: $OUT/a/m-victim: reading the inode: bad checksum" \
	"$W/xt.err"
check "extract names the damaged last file and why" \
	grep -q "^gazectl: $OUT/z/zz-bad: reading the inode: bad checksum" \
	"$W/xt.err"
check "extract names the damaged directory and why" \
	grep -q "^gazectl: $OUT/m-lost: reading the inode: bad checksum" \
	"$W/xt.err"
check "extract names the file it could not read whole and why" \
	grep -q "^gazectl: $OUT/a/big: mapping block 448: bad checksum" \
	"$W/xt.err"
check "extract counts the four entries it skipped or left incomplete" \
	grep -qx "gazectl: 4 entries not extracted, or not whole" "$W/xt.err"
check "extract names nothing else" \
	[ "$(grep -c "^gazectl: $OUT/" "$W/xt.err")" = 4 ]

# every other file, byte for byte
missing=0
differ=0
total=0
(cd "$T" && find . -type f ! -path ./a/m-victim ! -path ./z/zz-bad \
	! -path ./a/big ! -path './m-lost/*') \
	>"$W/files" || exit 99
while IFS= read -r f; do
	total=$((total + 1))
	if [ ! -f "$OUT/$f" ]; then
		missing=$((missing + 1))
		echo "# missing: $f"
	elif ! cmp -s "$T/$f" "$OUT/$f"; then
		differ=$((differ + 1))
		echo "# differs: $f"
	fi
done <"$W/files"
check "all $total other files extracted ($missing missing)" [ $missing = 0 ]
check "all $total other files byte-identical ($differ differ)" [ $differ = 0 ]
check "the damaged files are not extracted" \
	[ ! -e "$OUT/a/m-victim" ] && [ ! -e "$OUT/z/zz-bad" ]
check "the damaged directory is not extracted" [ ! -e "$OUT/m-lost" ]
check "the large file keeps the 448 blocks before its bad node" \
	cmp -s -n $((448 * 4096)) "$T/a/big" "$OUT/a/big"
check "the symlink after the damage is extracted" \
	[ "$(readlink "$OUT/z/to-f3")" = ../a/f3 ]
check "the hard link is a link" \
	[ "$(stat -c %i "$OUT/a/f5")" = "$(stat -c %i "$OUT/z/f5-link")" ]
check "a file's mode and mtime are kept after the damage" \
	[ "$(stat -c '%a %Y' "$T/z/deeper/g11")" = \
	  "$(stat -c '%a %Y' "$OUT/z/deeper/g11")" ]

# --- extract of the damaged file alone ---------------------------------
"$GAZECTL" extract "$IMG" "$W/one" /a/m-victim >/dev/null 2>"$W/err"
rc=$?
check "extract of the damaged file alone exits 1 (got $rc)" [ $rc = 1 ]
check "and says why" grep -q "^gazectl: $IMG: /a/m-victim: bad checksum" "$W/err"

# --- ls -R and ls -lR ----------------------------------------------------
"$GAZECTL" ls -R "$IMG" >"$W/ls.out" 2>"$W/ls.err"
rc=$?
check "ls -R of the damaged image exits 1 (got $rc)" [ $rc = 1 ]
check "ls -R names the unreadable directory" \
	grep -q "^gazectl: $IMG: /m-lost: bad checksum" "$W/ls.err"
check "ls -R lists the directories after it" \
	grep -qx "/z/deeper:" "$W/ls.out"
check "ls -R lists their entries" grep -qx "g11" "$W/ls.out"

"$GAZECTL" ls -lR "$IMG" >"$W/ll.out" 2>"$W/ll.err"
rc=$?
check "ls -lR of the damaged image exits 1 (got $rc)" [ $rc = 1 ]
check "ls -lR names the unreadable files" \
	grep -q "^gazectl: $IMG: /a/m-victim: bad checksum" "$W/ll.err" &&
	grep -q "^gazectl: $IMG: /z/zz-bad: bad checksum" "$W/ll.err"
check "ls -lR names the unreadable directory" \
	grep -q "^gazectl: $IMG: /m-lost: bad checksum" "$W/ll.err"
check "ls -lR lists the subdirectory of a directory whose last entry is bad" \
	grep -qx "/z/deeper:" "$W/ll.out"
check "ls -lR lists the entries after the damaged file" \
	grep -q " n-after$" "$W/ll.out"

echo "1..$n"
if [ "$nfail" != 0 ]; then
	echo "# $nfail failed"
	exit 1
fi
exit 0
