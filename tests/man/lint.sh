#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh - every man page under $GAZE_SRCDIR/man must be lint-clean:
# `mandoc -Tlint -W warning` prints nothing for it.  Exit status follows
# the automake test protocol: 0 pass, 1 fail, 77 skip (no mandoc), 99
# hard error (no pages found).
set -u

srcdir=${GAZE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
mandir=$srcdir/man

if ! command -v mandoc >/dev/null 2>&1; then
	echo "SKIP: mandoc not installed (Debian package: mandoc)"
	exit 77
fi

pages=$(find "$mandir" -type f -name '*.[1-9]' 2>/dev/null | sort)
if [ -z "$pages" ]; then
	echo "ERROR: no man pages found under $mandir"
	exit 99
fi

status=0
for page in $pages; do
	out=$(mandoc -Tlint -W warning "$page" 2>&1)
	rc=$?
	name=${page#"$srcdir"/}
	if [ -n "$out" ] || [ $rc -ne 0 ]; then
		echo "FAIL: $name (mandoc exit $rc)"
		printf '%s\n' "$out"
		status=1
	else
		echo "ok: $name"
	fi
done
exit $status
