#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# contract.sh - the shared core (kernel/core/) may include nothing but its
# own headers: gaze_env.h is the whole environment it gets, so the same
# files build in the kernel and in userspace.  Also rejects
# "#ifdef __KERNEL__" in the core and checks that the core file lists of
# the two builds (kernel/core/Makefile.inc, kernel/Kbuild) agree.
set -u
src=${GAZE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
core=$src/kernel/core
fail=0
n=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }

for f in "$core"/*.c "$core"/*.h; do
	base=$(basename "$f")
	other=$(grep -E '^[[:space:]]*#[[:space:]]*include' "$f" |
		grep -vE '#[[:space:]]*include[[:space:]]+"gaze_(env|format|core|dev)\.h"')
	if [ -n "$other" ]; then
		bad "$base includes only the contract: $other"
	else
		ok "$base includes only the contract"
	fi
	if grep -qE '__KERNEL__|#[[:space:]]*include[[:space:]]*<' "$f"; then
		bad "$base has no __KERNEL__ conditionals or system headers"
	else
		ok "$base has no __KERNEL__ conditionals or system headers"
	fi
done

am=$(grep -oE 'kernel/core/[a-z_]+\.c' "$core/Makefile.inc" | sed 's|kernel/core/||; s|\.c$||' | sort)
kb=$(grep -oE 'core/[a-z_]+\.o' "$src/kernel/Kbuild" | sed 's|core/||; s|\.o$||' | sort)
fs=$(cd "$core" && ls *.c | sed 's|\.c$||' | sort)
if [ "$am" = "$kb" ] && [ "$am" = "$fs" ]; then
	ok "core file lists agree (Makefile.inc, Kbuild, directory)"
else
	bad "core file lists differ: Makefile.inc [$(echo $am)] Kbuild [$(echo $kb)] dir [$(echo $fs)]"
fi
echo "1..$n"
exit $fail
