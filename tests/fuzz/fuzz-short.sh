#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check: builds the fuzz harnesses with clang + libFuzzer (build.sh)
# and runs each for 25 s (run.sh; GAZE_FUZZ_SECONDS overrides).  Fails, rather than skips, when clang
# or libFuzzer is missing: scripts/setup-deps.sh installs them.
set -u
B=${GAZE_BUILDDIR:-.}
S=${GAZE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=$B/tests/fuzz/out
GAZE_BUILDDIR=$B sh "$S/tests/fuzz/build.sh" "$OUT" || exit 1
sh "$S/tests/fuzz/run.sh" "${GAZE_FUZZ_SECONDS:-25}" "$OUT"
