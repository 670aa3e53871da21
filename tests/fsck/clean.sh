#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# clean.sh - fresh and populated images are clean (exit 0) with -n and
# -fn, -p and -y change nothing on a clean image, -n never writes (the
# image's sha256 is unchanged even when the image is corrupt), --json
# gives a parseable result, a fast "clean" exit needs no -f, fsck(8)
# -t gaze dispatches to fsck.gaze with its options and exit status, and
# an empty 15 TiB image is checked and repaired in little memory.
. "$(dirname "$0")/lib.sh"

IMG=$T/img
mkimage "$IMG"
for opts in -n -fn "-fn -v" "-f -n -C" "-fn --json"; do
	fsck $opts "$IMG"
	expect_rc 0 "fsck.gaze $opts (fresh image)"
	pass "fresh image clean with $opts"
done
fsck -n "$IMG"
expect_out "clean"
pass "without -f a cleanly unmounted filesystem is a fast clean exit"
fsck -fn --json "$IMG"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["result"]=="clean" and d["exit_code"]==0 and d["counts"]["inodes"]==2, d' \
		"$T/out" || fail "--json output"
	pass "--json result parses and says clean with 2 inodes"
fi

mktree "$T/tree"
mkimage "$IMG" -d "$T/tree"
sum=$(sha "$IMG")
fsck -fn "$IMG"
expect_rc 0 "fsck.gaze -fn (populated)"
expect_out "inodes"
pass "populated image clean with -fn"
for opts in -fp -fa -fy; do
	fsck $opts "$IMG"
	expect_rc 0 "fsck.gaze $opts (populated, clean)"
	[ "$(sha "$IMG")" = "$sum" ] || fail "$opts changed a clean image"
	pass "$opts on a clean image: exit 0, nothing written"
done

# without inline data every directory is hashed from the start
mkimage "$IMG" -O ^inline_data -d "$T/tree"
fsck -fn "$IMG"
expect_rc 0 "fsck.gaze -fn (no inline_data)"
pass "populated image without inline_data clean"

# -n on a damaged image: found, nothing written
mkimage "$IMG" -d "$T/tree"
"$POKE" "$IMG" inode "$(ino "$IMG" /file)" nlink 9 || fail "poke"
sum=$(sha "$IMG")
fsck -fn "$IMG"
expect_rc 4 "fsck.gaze -fn (bad link count)"
expect_out "link count 9"
[ "$(sha "$IMG")" = "$sum" ] || fail "-n modified the image"
pass "-n reports (exit 4) and leaves the image byte for byte"

# fsck(8) (util-linux) finds fsck.gaze by its name, hands it the options
# and returns its exit status: what boot-time checking relies on
UFSCK=
for p in /usr/sbin/fsck /sbin/fsck; do
	[ -x "$p" ] && UFSCK=$p && break
done
if [ -n "$UFSCK" ]; then
	ufsck()
	{
		PATH="$GAZE_BUILDDIR/fsck:$PATH" "$UFSCK" "$@" </dev/null \
			>"$T/out" 2>"$T/err"
		rc=$?
	}
	ufsck -t gaze -f -n "$IMG"
	expect_rc 4 "fsck -t gaze -f -n (bad link count)"
	expect_out "link count 9"
	ufsck -t gaze -f -y "$IMG"
	expect_rc 1 "fsck -t gaze -f -y (bad link count)"
	ufsck -t gaze -f -n "$IMG"
	expect_rc 0 "fsck -t gaze -f -n after the repair"
	ufsck -t gaze -p "$IMG"
	expect_rc 0 "fsck -t gaze -p (clean)"
	pass "fsck -t gaze runs fsck.gaze: -f -n exit 4, -f -y exit 1, then clean"
else
	echo "# no fsck(8) here: fsck -t gaze not tried (not counted)"
fi

# A large device costs what is used, not its size: an empty 15 TiB image
# (256 MiB zones) is checked and repaired within 128 MiB of address
# space.  Before, fsck.gaze reserved about 600 MiB there (a bit per
# block, a table address per table block) and took 40 s for pass 3, and
# a repair read every zone's table blocks into the core's cache (2.2 GiB
# at 1 TiB).  Sanitizer builds reserve terabytes of shadow memory: not
# tried there.
BIG=$T/big
if ! "$MKFS" -q -s 15T -z 256M "$BIG" >"$T/mkfs.out" 2>&1; then
	echo "# no 15 TiB sparse file in ${TMPDIR:-/tmp}: the large image is not tried (not counted)"
elif grep -qE '__(a|t|m)san_init' "$FSCK"; then
	echo "# sanitizer build: the large image is not tried (not counted)"
else
	limited()
	{
		(ulimit -v 131072 && exec "$FSCK" "$@") </dev/null \
			>"$T/out" 2>"$T/err"
		rc=$?
	}
	limited -fn "$BIG"
	expect_rc 0 "fsck.gaze -fn (empty 15 TiB image, 128 MiB address space)"
	"$POKE" "$BIG" inode "$(ino "$BIG" /lost+found)" nlink 9 || fail "poke"
	limited -fy "$BIG"
	expect_rc 1 "fsck.gaze -fy (15 TiB image, bad link count)"
	limited -fn "$BIG"
	expect_rc 0 "fsck.gaze -fn (15 TiB image, after the repair)"
	pass "empty 15 TiB image: checked and repaired in 128 MiB of address space"
fi
rm -f "$BIG"
finish
