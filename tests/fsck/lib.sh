# SPDX-License-Identifier: GPL-2.0
# lib.sh - sourced by the fsck.gaze tests (tests/fsck/*.sh).
#
# Environment (set by make check): GAZE_BUILDDIR, GAZE_SRCDIR.  Run by hand:
#   GAZE_BUILDDIR=$PWD/build sh tests/fsck/clean.sh
: "${GAZE_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${GAZE_BUILDDIR:=$GAZE_SRCDIR/build}"
FSCK="$GAZE_BUILDDIR/fsck/fsck.gaze"
MKFS="$GAZE_BUILDDIR/mkfs/mkfs.gaze"
POKE="$GAZE_BUILDDIR/tests/fsck/poke"
GAZECTL="$GAZE_BUILDDIR/gazectl/gazectl"
TEST_KIND=fsck
NEED="$FSCK $MKFS $POKE"
. "$(dirname "$0")/../common.sh"

# fsck ARGS...: runs fsck.gaze; $rc, $T/out, $T/err
fsck()
{
	"$FSCK" "$@" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	return 0
}

expect_rc()
{
	[ "$rc" -eq "$1" ] || fail "${2:-fsck.gaze}: exit status $rc, expected $1"
}

expect_out()
{
	grep -q -e "$1" "$T/out" || fail "stdout lacks '$1'"
}

expect_err()
{
	grep -q -e "$1" "$T/err" || fail "stderr lacks '$1'"
}

sha()
{
	sha256sum "$1" | cut -d' ' -f1
}

# a small tree with every file type, hard links, a hashed directory, a
# file mapped through direct and indirect nodes, xattrs when possible
mktree()
{
	local d=$1 i
	mkdir -p "$d/a/b/c" "$d/many" "$d/empty"
	echo hello >"$d/file"
	printf 'x%.0s' $(seq 1 5000) >"$d/a/five-k"
	head -c 7000000 /dev/urandom >"$d/a/b/big"
	ln "$d/file" "$d/a/b/c/hard"
	ln -s file "$d/sym"
	ln -s "$(printf 'p%.0s' $(seq 1 3800))" "$d/longsym"
	mkfifo "$d/fifo"
	for i in $(seq 1 700); do : >"$d/many/entry-number-$i"; done
	setfattr -n user.test -v value "$d/file" 2>/dev/null || true
	truncate -s 20M "$d/a/sparse"
}

# mkimage IMAGE [MKFS ARGS...]: a fresh 256 MiB image
mkimage()
{
	local img=$1
	shift
	rm -f "$img"
	"$MKFS" -q -s 256M "$@" "$img" >"$T/mkfs.out" 2>&1 ||
		fail "mkfs.gaze $*: $(cat "$T/mkfs.out")"
}

# ino IMAGE PATH: inode number of PATH inside the image
ino()
{
	"$GAZECTL" ls -d --json "$1" "$2" |
		sed -n 's/^\[{"ino":\([0-9]*\),.*/\1/p'
}

# JSON checks of the object in $T/out (python3; see need_python)
HAVE_PYTHON=false
command -v python3 >/dev/null 2>&1 && HAVE_PYTHON=true

need_python()
{
	$HAVE_PYTHON && return 0
	echo "SKIP: $TEST_NAME: python3 is needed to parse --json"
	exit 77
}

# json_is KEY VALUE...: each top-level KEY is VALUE (strings as they
# are, anything else as JSON writes it: 4, null, true)
json_is()
{
	python3 - "$T/out" "$@" <<'EOF' || fail "--json: $*"
import json, sys
d = json.load(open(sys.argv[1]))
a = sys.argv[2:]
for k, v in zip(a[::2], a[1::2]):
    x = d.get(k, '<missing>')
    s = x if isinstance(x, str) else json.dumps(x)
    if s != v:
        sys.exit('"%s" is %s, not %s' % (k, s, v))
EOF
}

# json_has KEY TEXT: the top-level string KEY contains TEXT
json_has()
{
	python3 - "$T/out" "$1" "$2" <<'EOF' || fail "--json: $1 lacks '$2'"
import json, sys
d = json.load(open(sys.argv[1]))
v = d.get(sys.argv[2])
if not isinstance(v, str) or sys.argv[3] not in v:
    sys.exit('"%s" is %r' % (sys.argv[2], v))
EOF
}

