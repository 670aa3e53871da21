#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# probe.sh - gazectl probe, what udev/64-gaze.rules imports: the exact
# --export lines for a label and UUID given to mkfs.gaze (spaces and
# non-ASCII in the label, their _ENC escapes); the label lines checked
# against what this system's libblkid gives udev for an ext4 filesystem
# with the same label, once udev's import parser has read ours (skipped
# without mke2fs and blkid); no label, no label lines; the human form;
# anything that is not GAZE exits 1 without a word; a bad or zeroed copy
# 0 is found through copy 1, other data at block 0 is not GAZE; a
# changed UUID is what the probe reports; and the generated rule runs
# the gazectl that make install puts in sbindir.
. "$(dirname "$0")/lib.sh"

IMG=$T/img
U=0b5d7a8e-1c2f-4d3e-9a4b-5c6d7e8f9a0b

mkimage "$IMG" -L "my data ü" -U $U
gz probe --export "$IMG"
expect_rc 0 "probe --export"
[ -s "$T/err" ] && fail "probe --export wrote to stderr"
cat >"$T/want" <<EOF
ID_FS_LABEL=my_data_ü
ID_FS_LABEL_ENC=my\\x20data\\x20ü
ID_FS_UUID=$U
ID_FS_UUID_ENC=$U
ID_FS_VERSION=1
ID_FS_TYPE=gaze
ID_FS_USAGE=filesystem
EOF
cmp -s "$T/out" "$T/want" ||
	fail "probe --export: $(diff "$T/want" "$T/out")"
pass "probe --export: type, usage, version, uuid, label and their _ENC forms"

gz probe "$IMG"
expect_rc 0 "probe"
grep -qx "type: gaze" "$T/out" && grep -qx "uuid: $U" "$T/out" &&
	grep -qx "label: my data ü" "$T/out" &&
	grep -qx "superblock: copy 0" "$T/out" || fail "probe: human output"
pass "probe: the same for people"

# the value udev's IMPORT{program} stores: strip, one pair of quotes off
udev_parse()
{
	sed -e "s/^\([^=]*\)=\"\(.*\)\"\$/\1=\2/" -e "s/^\([^=]*\)='\(.*\)'\$/\1=\2/"
}

# labels of at most 16 bytes (ext4's limit) that escaping must get right
LABELS="my data ü|lead  trail  | x|'quoted|\"both\"|a\"b\\c|tab$(printf '\t')x|ünï €|dollar\$x|a/b|$(printf 'bad\377\376x')|$(printf 'new\nline')"
if command -v mke2fs >/dev/null 2>&1 && command -v blkid >/dev/null 2>&1; then
	n=0
	old_ifs=$IFS
	IFS='|'
	for L in $LABELS; do
		IFS=$old_ifs
		n=$((n + 1))
		truncate -s 8M "$T/ext4"
		mke2fs -q -F -t ext4 -L "$L" "$T/ext4" >/dev/null 2>&1 ||
			fail "mke2fs -L label $n"
		blkid -p -o udev "$T/ext4" | grep '^ID_FS_LABEL' >"$T/want"
		"$MKFS" -q -f -s 256M -z 16M -L "$L" "$IMG" >/dev/null 2>&1 ||
			fail "mkfs.gaze -L label $n"
		"$GAZECTL" probe --export "$IMG" | grep '^ID_FS_LABEL' |
			udev_parse >"$T/got"
		cmp -s "$T/want" "$T/got" ||
			fail "label $n: blkid gives udev $(cat "$T/want"), we $(cat "$T/got")"
		IFS='|'
	done
	IFS=$old_ifs
	pass "$n labels: ID_FS_LABEL and ID_FS_LABEL_ENC as libblkid gives them for ext4"
else
	echo "# no mke2fs or blkid: labels not compared with libblkid's"
fi

# as udev's parser reads them: quotes where it would strip or unquote
mkimage "$IMG" -L "'quoted  " -U $U
gz probe --export "$IMG"
grep -qx "ID_FS_LABEL=\"'quoted\"" "$T/out" &&
	grep -qx 'ID_FS_LABEL_ENC=\\x27quoted' "$T/out" ||
	fail "a label starting with a quote"
pass "a label starting with a quote is quoted for udev's parser, trailing spaces dropped"

L63=$(printf 'é%.0s' $(seq 31))x
mkimage "$IMG" -L "$L63"
gz probe --export "$IMG"
grep -qx "ID_FS_LABEL=$L63" "$T/out" &&
	grep -qx "ID_FS_LABEL_ENC=$L63" "$T/out" || fail "a 63-byte label"
pass "a 63-byte UTF-8 label is exported whole"

for L in "" "   "; do
	mkimage "$IMG" -L "$L"
	gz probe --export "$IMG"
	expect_rc 0 "probe --export, label '$L'"
	grep -q LABEL "$T/out" && fail "label '$L' exported"
	grep -q '^ID_FS_UUID_ENC=' "$T/out" || fail "no uuid for label '$L'"
done
pass "an empty or blank label: no label lines (no by-label link)"

# not GAZE: exit 1, nothing on stdout or stderr
truncate -s 64M "$T/zeros"
head -c 1048576 /dev/urandom >"$T/random"
: >"$T/empty"
mkdir "$T/dir"
truncate -s 8M "$T/ext4b"
if command -v mke2fs >/dev/null 2>&1; then
	mke2fs -q -F -t ext4 "$T/ext4b" >/dev/null 2>&1 || fail "mke2fs"
fi
for f in zeros random empty dir ext4b missing; do
	for o in --export ""; do
		gz probe $o "$T/$f"
		expect_rc 1 "probe $o $f"
		[ -s "$T/out" ] || [ -s "$T/err" ] &&
			fail "probe $o $f was not silent"
	done
done
pass "zeros, random data, an empty file, a directory, ext4, a missing file: exit 1, silent"

# copy 0 damaged, then zeroed (a checkpoint zone switch cut short):
# copy 1; other data at block 0: not GAZE
mkimage "$IMG" -L lbl -U $U
printf 'X' | dd of="$IMG" bs=1 seek=1000 conv=notrunc status=none
gz probe "$IMG"
expect_rc 0 "probe, copy 0 damaged"
grep -qx "uuid: $U" "$T/out" && grep -q "^superblock: copy 1" "$T/out" ||
	fail "copy 0 damaged: not found through copy 1"
dd if=/dev/zero of="$IMG" bs=4096 count=1 conv=notrunc status=none
gz probe --export "$IMG"
expect_rc 0 "probe, copy 0 zeroed"
grep -qx "ID_FS_UUID=$U" "$T/out" || fail "copy 0 zeroed: not found"
head -c 4096 /dev/urandom | dd of="$IMG" bs=4096 count=1 conv=notrunc status=none
gz probe --export "$IMG"
expect_rc 1 "probe, other data at block 0"
pass "copy 0 bad or zeroed: copy 1 answers; other data at block 0: not GAZE"

# a changed uuid is the one reported
mkimage "$IMG" -L lbl -U $U
"$GAZECTL" uuid "$IMG" 11111111-2222-4333-8444-555555555555 ||
	fail "gazectl uuid"
gz probe --export "$IMG"
grep -qx "ID_FS_UUID=11111111-2222-4333-8444-555555555555" "$T/out" ||
	fail "probe after gazectl uuid"
pass "after gazectl uuid the probe reports the new uuid"

gz probe
expect_rc 2 "probe without a device"
gz probe "$IMG" "$IMG"
expect_rc 2 "probe with two devices"
gz probe --bogus "$IMG"
expect_rc 2 "probe --bogus"
pass "usage errors: exit 2"

RULE=$GAZE_BUILDDIR/udev/64-gaze.rules
[ -f "$RULE" ] || fail "$RULE not built"
grep -q 'IMPORT{program}="/[^"]*/gazectl probe --export \$devnode"' "$RULE" ||
	fail "$RULE does not run gazectl probe --export by its absolute path"
grep -q '@' "$RULE" && fail "$RULE has an unsubstituted @...@"
pass "the generated udev rule runs $(sed -n 's/^IMPORT{program}="\([^ ]*\) .*/\1/p' "$RULE")"
finish
