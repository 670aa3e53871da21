#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# roundtrip.sh - mkfs.gaze -d round trip: a varied tree goes into an image
# through the shared core, comes back out with "gazectl extract", and
# treecmp must find no difference (content, holes, hard links, symlinks,
# devices, fifos, sockets, modes, owners, ns atime/mtime, xattrs, ACLs).
# Then spot checks of "gazectl cat / ls / stat" (ctime preserved), the
# reader's errors and exit codes, and mkfs's ENOSPC message (one line,
# tests/mkfs/full.sh checks the rest).
#
# Needs root (chown, mknod, trusted. xattrs) and a scratch filesystem
# with sparse files, SEEK_HOLE and xattrs (ext4, xfs, btrfs, tmpfs):
# $TMPDIR or /tmp.  Uses GAZE_BUILDDIR (set by make check).
set -eu

: "${GAZE_BUILDDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
MKFS=$GAZE_BUILDDIR/mkfs/mkfs.gaze
GAZECTL=$GAZE_BUILDDIR/gazectl/gazectl
TREECMP=$GAZE_BUILDDIR/tests/roundtrip/treecmp
RTUTIL=$GAZE_BUILDDIR/tests/roundtrip/rtutil

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (chown, mknod, trusted.* xattrs)"
	exit 77
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/gaze-roundtrip.XXXXXX")
trap 'rm -rf "$W"' EXIT
T=$W/tree
IMG=$W/img
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

ok() {
	echo "ok: $*"
}

# runs "$@", expects exit status $1 (shifted), keeps stderr in $W/err
expect_rc() {
	want=$1
	shift
	set +e
	"$@" >"$W/stdout" 2>"$W/err"
	rc=$?
	set -e
	if [ "$rc" != "$want" ]; then
		fail "$* exited $rc, expected $want: $(cat "$W/err")"
		return 1
	fi
	return 0
}

# ------------------------------------------------------------------
# The tree.  Timestamps are set last, deepest first, because creating
# an entry changes its directory's times.
# ------------------------------------------------------------------
mkdir "$T"

# nested directories, 8 deep
mkdir -p "$T/deep/1/2/3/4/5/6/7/8"
echo leaf >"$T/deep/1/2/3/4/5/6/7/8/leaf"
# a chain 200 deep: more levels than the tools keep descriptors for
# (they run under ulimit -n 64 below, which leaves them 16)
c=$T/chain
i=0
while [ $i -lt 200 ]; do
	c=$c/c$i
	i=$((i + 1))
done
mkdir -p "$c"
echo bottom >"$c/file"
ln "$c/file" "$T/chain/bottom-link"
# mkfs makes lost+found; having it in the tree makes populate merge it
mkdir -m 700 "$T/lost+found"

# regular files around the 3584-byte inline limit and larger
F=$T/files
mkdir "$F"
: >"$F/empty"
printf x >"$F/one"
for n in 3583 3584 3585 4096 1048576 10485760; do
	head -c $n /dev/urandom >"$F/r$n"
done
# allocated zeros stay allocated (the source's allocation is mirrored)
dd if=/dev/zero of="$F/zeros64k" bs=64k count=1 status=none
# sparse: 6 GiB, data at 0, 1 GiB and 5 GiB + 123
printf start | dd of="$F/sparse6g" conv=notrunc status=none
printf one-gig | dd of="$F/sparse6g" bs=1 seek=1073741824 conv=notrunc \
	status=none
printf five-gig-plus-123 | dd of="$F/sparse6g" bs=1 \
	seek=$((5 * 1073741824 + 123)) conv=notrunc status=none
truncate -s 6G "$F/sparse6g"
# holes at both ends; nothing but a hole
printf middle | dd of="$F/midhole" bs=1 seek=1048576 conv=notrunc \
	status=none
truncate -s 2M "$F/midhole"
truncate -s 1G "$F/allhole"

# a directory with 5000 entries
mkdir "$T/big"
i=0
while [ $i -lt 5000 ]; do
	: >"$T/big/entry-$i"
	i=$((i + 1))
done

# hard links across directories (one inode with 3 names, one with 2)
mkdir -p "$T/links/sub"
ln "$F/one" "$T/links/one-again"
ln "$F/one" "$T/deep/1/one-deep"
echo pair >"$T/links/p1"
ln "$T/links/p1" "$T/links/sub/p2"

# symlinks: short, 3000-byte, 4095-byte (the limit), dangling
S=$T/sym
mkdir "$S"
ln -s ../files/one "$S/short"
long3000=$(printf '%03000d' 0 | tr 0 a)
ln -s "$long3000" "$S/long3000"
long4095=$(printf '%04095d' 0 | tr 0 b)
ln -s "$long4095" "$S/long4095"
ln -s /nonexistent/target "$S/dangling"

# devices, fifo, socket
D=$T/dev
mkdir "$D"
mknod "$D/null" c 1 3
mknod "$D/loop0" b 7 0
mknod "$D/bigdev" c 4095 1048575
mkfifo "$D/fifo"
"$RTUTIL" socket "$D/sock"

# modes
M=$T/modes
mkdir "$M"
echo suid >"$M/suid"
chmod 4755 "$M/suid"
echo sgid >"$M/sgid"
chmod 2711 "$M/sgid"
echo none >"$M/none"
chmod 0000 "$M/none"
mkdir "$M/sticky" "$M/setgid-dir" "$M/readonly-dir"
chmod 1777 "$M/sticky"
chmod 2775 "$M/setgid-dir"
echo inside >"$M/readonly-dir/file"
chmod 0555 "$M/readonly-dir"

# odd owners
O=$T/owners
mkdir "$O"
echo owned >"$O/file"
mkfifo "$O/fifo"
ln -s file "$O/link"
chown 1234:5678 "$O" "$O/file" "$O/fifo" "$F/r3583"
chown -h 1234:5678 "$O/link"
chown 4000000000:4000000001 "$M/none"

# names
N=$T/names
mkdir "$N"
: >"$N/with space"
: >"$N/ファイル é"
: >"$N/$(printf '%0255d' 0 | tr 0 n)"
: >"$N/new
line"
: >"$N/-dash"
: >"$N/.hidden"

# xattrs (rtutil: no attr/acl package needed)
"$RTUTIL" xattr "$F/one" user.small hello
"$RTUTIL" xattr "$F/one" user.empty ""
"$RTUTIL" xattr "$F/one" trusted.t trusted-value
"$RTUTIL" xattr "$F/one" security.gaze-test label
"$RTUTIL" xattr-pattern "$F/r3585" user.big 3072
"$RTUTIL" xattr "$F/r3585" user.x y
"$RTUTIL" xattr "$T/deep/1" user.dir yes
"$RTUTIL" xattr "$S/short" trusted.sym yes
"$RTUTIL" xattr "$D/fifo" trusted.fifo yes
"$RTUTIL" xattr "$T" user.root root-value
# POSIX ACLs, stored raw; set after chmod, they define the group bits
A=$T/acl
mkdir "$A" "$A/dir"
echo acl >"$A/file"
"$RTUTIL" acl "$A/file" access
"$RTUTIL" acl "$A/dir" access
"$RTUTIL" acl "$A/dir" default

# times, with nanoseconds; atime differs from mtime.  Symlinks get an
# atime in the future: reading a symlink (mkfs must) updates an atime
# that is not newer than its ctime under relatime, and O_NOATIME does
# not exist for readlink.
future=$(($(date +%s) + 7200))
k=0
find "$T" -depth ! -type d -print | while IFS= read -r p; do
	[ -e "$p" ] || [ -L "$p" ] || continue	# the name with a newline
	k=$((k + 1))
	if [ -L "$p" ]; then
		touch -h -a -d "@$future.$k" "$p"
	else
		touch -h -a -d "@$((1500000000 + k)).$((k * 7919))" "$p"
	fi
	touch -h -m -d "@$((1600000000 + k)).$((123456789 - k))" "$p"
done
touch -d @1550000000.111111111 "$N/new
line"
k=0
find "$T" -depth -type d -print | while IFS= read -r p; do
	k=$((k + 1))
	touch -a -d "@$((1400000000 + k)).$((k * 104729))" "$p"
	touch -m -d "@$((1450000000 + k)).$((987654321 - k))" "$p"
done

# ------------------------------------------------------------------
# Round trip
# ------------------------------------------------------------------
truncate -s 1G "$IMG"
if ! (ulimit -n 64 && "$MKFS" -f -d "$T" "$IMG") >"$W/mkfs.out" 2>&1; then
	cat "$W/mkfs.out"
	echo "FAIL: mkfs.gaze -d"
	exit 1
fi
ok "mkfs.gaze -f -d TREE IMAGE"
sum_before=$(md5sum <"$IMG")

if ! (ulimit -n 64 && "$GAZECTL" extract "$IMG" "$W/out"); then
	echo "FAIL: gazectl extract"
	exit 1
fi
ok "gazectl extract IMAGE OUT"

if "$TREECMP" "$T" "$W/out"; then
	ok "treecmp TREE OUT: no differences"
else
	fail "treecmp TREE OUT found differences (above)"
fi

# ------------------------------------------------------------------
# Spot checks (they read the source: after treecmp, which checks atime)
# ------------------------------------------------------------------
for p in files/r10485760 files/r3584 files/midhole files/one; do
	if "$GAZECTL" cat "$IMG" "/$p" | cmp -s - "$T/$p"; then
		ok "gazectl cat /$p"
	else
		fail "gazectl cat /$p differs from the source"
	fi
done

"$GAZECTL" ls --json "$IMG" /owners >"$W/ls.json"
for want in '"name":"file"' '"uid":1234' '"gid":5678' '"type":"fifo"' \
	    '"target":"file"' '"mtime_nsec":'; do
	grep -qF "$want" "$W/ls.json" || fail "ls --json /owners lacks $want"
done
[ "$(grep -o '"ino":' "$W/ls.json" | wc -l)" = 3 ] ||
	fail "ls --json /owners: expected 3 entries"
ok "gazectl ls --json"

n=$("$GAZECTL" ls "$IMG" /big | wc -l)
[ "$n" = 5000 ] || fail "gazectl ls /big: $n entries, expected 5000"
"$GAZECTL" ls -l "$IMG" /sym | grep -qF -- '-> ../files/one' ||
	fail "gazectl ls -l /sym lacks the symlink target"
"$GAZECTL" ls -lR "$IMG" / >/dev/null || fail "gazectl ls -lR /"
ok "gazectl ls, ls -l, ls -lR"

# ctime cannot be extracted: compare the image's with the source's
for p in files/r4096 files/one links/p1 sym/short dev/null deep/1 acl/dir; do
	"$GAZECTL" stat --json "$IMG" "/$p" >"$W/stat.json"
	sec=$(sed -n 's/.*"ctime_sec": *\([0-9]*\).*/\1/p' "$W/stat.json")
	nsec=$(sed -n 's/.*"ctime_nsec": *\([0-9]*\).*/\1/p' "$W/stat.json")
	got=$(printf '%s.%09d' "$sec" "$nsec")
	src=$(stat -c %.9Z "$T/$p")
	[ "$got" = "$src" ] ||
		fail "ctime of /$p: image $got, source $src"
done
"$GAZECTL" stat "$IMG" /files/one | grep -q '^ Xattr: user.small (5 bytes)' ||
	fail "gazectl stat /files/one does not list user.small"
ok "gazectl stat: ctime preserved"

# extract of one file, into a directory that does not exist yet
"$GAZECTL" extract "$IMG" "$W/single" /files/r1048576
cmp -s "$W/single/r1048576" "$T/files/r1048576" ||
	fail "extract of one file"
ok "gazectl extract IMAGE DEST /files/r1048576"

# the reader never writes
[ "$(md5sum <"$IMG")" = "$sum_before" ] || fail "the reader changed the image"
ok "image unchanged by the reader"

# ------------------------------------------------------------------
# Errors and exit codes
# ------------------------------------------------------------------
head -c 1M /dev/zero >"$W/zeros"
if expect_rc 1 "$GAZECTL" ls "$W/zeros"; then
	grep -q 'not a GAZE filesystem (bad magic)' "$W/err" ||
		fail "bad magic message: $(cat "$W/err")"
fi
if expect_rc 1 "$GAZECTL" cat "$IMG" /no/such/file; then
	grep -q 'No such file or directory' "$W/err" ||
		fail "missing path message: $(cat "$W/err")"
fi
expect_rc 1 "$GAZECTL" cat "$IMG" /files || true
expect_rc 1 "$GAZECTL" extract "$IMG" "$W/out" || true
expect_rc 2 "$GAZECTL" ls || true
expect_rc 2 "$GAZECTL" ls -Z "$IMG" || true
expect_rc 2 "$GAZECTL" no-such-command || true
expect_rc 2 "$GAZECTL" stat "$IMG" || true
expect_rc 0 "$GAZECTL" help || true
expect_rc 0 "$GAZECTL" help extract || true
expect_rc 0 "$GAZECTL" ls --help || true
expect_rc 0 "$GAZECTL" --version || true
ok "reader errors and exit codes"

# not enough space: 3 x 24 MiB into a 64 MiB image
mkdir "$W/toobig"
for n in 1 2 3; do
	head -c 24M /dev/urandom >"$W/toobig/f$n"
done
truncate -s 64M "$W/small.img"
if expect_rc 1 "$MKFS" -f -z 1M -d "$W/toobig" "$W/small.img"; then
	grep -q "^mkfs.gaze: $W/toobig does not fit: the tree needs about 72\.[0-9]* MiB, the filesystem has .* usable\$" \
		"$W/err" || fail "ENOSPC message: $(cat "$W/err")"
	[ "$(wc -l <"$W/err")" = 1 ] ||
		fail "ENOSPC: more than one line: $(cat "$W/err")"
fi
ok "mkfs.gaze -d: not enough space"

if [ $failures -ne 0 ]; then
	echo "$failures check(s) failed"
	exit 1
fi
echo "PASS: round trip"
