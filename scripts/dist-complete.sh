#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dist-complete.sh SRCDIR DISTDIR - run by make dist (dist-hook): every
# file git tracks in SRCDIR must be in the release tree DISTDIR, so that
# a test, benchmark or source added without its EXTRA_DIST line fails
# make dist (and CI's distcheck) at once.  Outside a git checkout (a
# build from the tarball itself) there is nothing to compare with.
set -u
src=$1 dist=$2

# the files a release leaves out on purpose
skip() {
	case $1 in
	.gitignore | */.gitignore) return 0 ;;
	esac
	return 1
}

if ! command -v git >/dev/null 2>&1 ||
   ! git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	exit 0
fi
missing=0
list=$(git -C "$src" ls-files) || exit 1
for f in $list; do
	skip "$f" && continue
	# a file deleted in the work tree but not yet in git's index
	[ -e "$src/$f" ] || continue
	if [ ! -e "$dist/$f" ]; then
		echo "dist-complete: $f is tracked by git but not in the release (add it to EXTRA_DIST or a _SOURCES list)" >&2
		missing=$((missing + 1))
	fi
done
[ "$missing" -eq 0 ] || {
	echo "dist-complete: $missing tracked file(s) missing from $dist" >&2
	exit 1
}
