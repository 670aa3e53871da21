#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh SECONDS [OUTDIR] - runs each harness built by build.sh in OUTDIR
# (default: build-fuzz) for SECONDS on its corpus: the seeds build.sh made,
# plus tests/fuzz/corpus/<harness>/ (kept small: seeds and inputs of past
# findings).  New corpus entries go to OUTDIR/corpus/<harness>/, crash
# inputs to OUTDIR/artifacts/.  Exit 1 on any crash, sanitizer report,
# timeout (20 s for one input) or leak.  Prints executions per harness.
set -u
SECS=${1:?usage: run.sh SECONDS [OUTDIR]}
OUT=${2:-build-fuzz}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
rc=0
total=0
for h in fuzz_format fuzz_image fuzz_dir fuzz_cluster; do
	bin=$OUT/$h
	[ -x "$bin" ] || { echo "run.sh: $bin not built (build.sh)" >&2; exit 1; }
	mkdir -p "$OUT/corpus/$h" "$OUT/artifacts"
	dirs="$OUT/corpus/$h"
	for d in "$OUT/seed/$h" "$SRC/tests/fuzz/corpus/$h"; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	case $h in
	fuzz_format) max=4098 ;;
	fuzz_dir) max=4096 ;;
	fuzz_cluster) max=70000 ;;
	*) max=400000 ;;
	esac
	log=$OUT/$h.log
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2560 \
		-max_len=$max -len_control=0 -print_final_stats=1 \
		-artifact_prefix="$OUT/artifacts/$h-" $dirs >"$log" 2>&1
	st=$?
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	total=$((total + ${n:-0}))
	if [ $st -ne 0 ]; then
		echo "run.sh: $h FAILED (exit $st); log $log:" >&2
		grep -v '^gaze:' "$log" | grep -A30 -E 'ERROR|SUMMARY|deadly|crash' \
			| head -60 >&2
		rc=1
	else
		echo "run.sh: $h ok: ${n:-?} executions in $SECS s"
	fi
done
echo "run.sh: $total executions in all"
exit $rc
