#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# -n computes and prints everything and writes nothing.
. "${GAZE_SRCDIR:-$(dirname "$0")/../..}/tests/mkfs/lib.sh"

IMG=$T/img

mkimg "$IMG" 32M
printf 'data' | dd of="$IMG" bs=1 seek=5000000 conv=notrunc 2>/dev/null
sum=$(sha "$IMG")
mkfs -n -L dry "$IMG"
expect_rc 0 "-n"
expect_out "dry run: nothing written"
expect_out "Usable capacity:"
expect_out "Label: *dry"
is_untouched "$IMG" "$sum"
pass "-n on an image writes nothing"

# the same layout as a real format
mkfs -n -z 2M -o 7 "$IMG"
grep -v -e '^mkfs.gaze' -e '^UUID:' "$T/out" >"$T/dry"
mkfs -f -z 2M -o 7 "$IMG"
expect_rc 0 "format after -n"
grep -v -e '^mkfs.gaze' -e '^UUID:' "$T/out" >"$T/real"
cmp -s "$T/dry" "$T/real" || fail "dry run and format print different layouts"
pass "-n prints the layout the format uses"

# over an existing GAZE: still nothing written
sum=$(sha "$IMG")
mkfs -n "$IMG"
expect_rc 0 "-n over GAZE"
is_untouched "$IMG" "$sum"
pass "-n over GAZE writes nothing"

# with -s: the image is neither created nor resized, and no file is
# made anywhere else either (the layout of the size needs none)
mkdir "$T/tmp"
TMPDIR=$T/tmp mkfs -n -s 1G "$T/new"
expect_rc 0 "-n -s new"
expect_out "1.00 GiB"
[ -e "$T/new" ] && fail "-n -s created the image"
TMPDIR=$T/tmp mkfs -n -f -s 64M "$IMG"
expect_rc 0 "-n -s resize"
expect_out "64.00 MiB"
[ "$(stat -c %s "$IMG")" -eq 33554432 ] || fail "-n -s resized the image"
is_untouched "$IMG" "$sum"
[ -z "$(ls -A "$T/tmp")" ] || fail "a file was left in TMPDIR"
pass "-n -s creates and resizes nothing"

# -s: no file anywhere but the image, also when the run is refused
ls -A "$T" | grep -v -e '^out$' -e '^err$' >"$T/ls.before"
TMPDIR=$T/tmp mkfs -s 8M "$T/new"
expect_rc 1 "-s too small"
[ -e "$T/new" ] && fail "refused -s created the image"
TMPDIR=$T/tmp mkfs -s 32M "$T/new"
expect_rc 0 "-s new"
[ "$(stat -c %s "$T/new")" -eq 33554432 ] || fail "-s: wrong size"
[ -z "$(ls -A "$T/tmp")" ] || fail "a file was left in TMPDIR"
rm -f "$T/new"
ls -A "$T" | grep -v -e '^out$' -e '^err$' -e '^ls\.' >"$T/ls.after"
grep -v '^ls\.' "$T/ls.before" | cmp -s - "$T/ls.after" ||
	fail "a file was left beside the image: $(cat "$T/ls.after")"
pass "-s makes no file but the image"

# -n -d: the estimate, and exit 1 when the tree would not fit
D=$T/tree
mkdir -p "$D/sub" "$D/big"
head -c 3000 /dev/urandom >"$D/inline"
head -c 40000 /dev/urandom >"$D/sub/file"
head -c 8M /dev/zero >"$D/sub/eight-mib"
truncate -s 1G "$D/sparse"
printf data | dd of="$D/sparse" bs=1 seek=500000000 conv=notrunc 2>/dev/null
ln -s inline "$D/link"
ln "$D/sub/file" "$D/hard"
(cd "$D/big" && seq -f 'entry-with-a-longer-name-%g' 1 600 | xargs touch)
mkimg "$IMG" 64M
sum=$(sha "$IMG")
mkfs -n -d "$D" "$IMG"
expect_rc 0 "-n -d, fits"
expect_out "^Tree (-d): *$D\$"
expect_out "the tree needs about .* of 44.00 MiB usable ([0-9]* blocks, [0-9]*%)\$"
expect_out " 609 inodes: 604 files (1 inline), 4 directories,"
expect_out " 1 symlinks, 0 other; 1 more hard links"
[ -s "$T/err" ] && fail "-n -d, fits: wrote to stderr"
is_untouched "$IMG" "$sum"
pass "-n -d: the estimate, nothing written"

# the estimate against what the copy takes (fsck's blocks in use)
est=$(sed -n 's/.*usable (\([0-9]*\) blocks.*/\1/p' "$T/out")
mkfs -q -d "$D" "$IMG"
expect_rc 0 "-d"
used=$("$GAZE_BUILDDIR/fsck/fsck.gaze" -fn "$IMG" |
	sed -n 's/.*, \([0-9]*\) of [0-9]* blocks in use/\1/p')
[ -n "$est" ] && [ -n "$used" ] || fail "no figures: estimate '$est', used '$used'"
[ $((est * 100)) -ge $((used * 97)) ] && [ $((est * 100)) -le $((used * 103)) ] ||
	fail "estimate $est blocks, the copy took $used"
pass "-n -d estimates $est blocks, the copy took $used"

mkimg "$IMG" 16M
sum=$(sha "$IMG")
mkfs -n -d "$D" "$IMG"
expect_rc 1 "-n -d, does not fit"
expect_out "the tree needs about .* of 7.00 MiB usable ([0-9]* blocks): does not fit\$"
expect_err "^mkfs.gaze: $D does not fit: the tree needs about .*, the filesystem has 7.00 MiB usable\$"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "-n -d, does not fit: not one line"
is_untouched "$IMG" "$sum"
mkfs -n -q -d "$D" "$IMG"
expect_rc 1 "-n -q -d, does not fit"
[ -s "$T/out" ] && fail "-n -q -d wrote to stdout"
expect_err "does not fit"
TMPDIR=$T/tmp mkfs -n -s 16M -d "$D" "$T/new"
expect_rc 1 "-n -s -d, does not fit"
[ -e "$T/new" ] && fail "-n -s -d created the image"
pass "-n -d: a tree that would not fit exits 1, writes nothing"

finish
