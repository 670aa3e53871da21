#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# signal.sh - SIGINT and SIGTERM end fsck.gaze with "interrupted", the
# report so far and exit 32 (fsck(8)'s "canceled by user request"),
# never in the middle of a repair's writes:
#   - a real SIGTERM in pass 1 (fsck.gaze blocked on a full progress
#     pipe, so the signal lands mid-check): exit 32, nothing written even
#     with -y;
#   - GAZE_TEST_FSCK_SIGNAL (the process signals itself at a stage):
#     during the check (exit 32, --json "interrupted"), twice (the
#     second ends it at once), at the start of a repair, once and twice
#     (the repair still completes and commits: exit 33, a check after it
#     is clean), and before the check that follows a repair;
#   - SIGUSR2 stops the progress lines of -C, and the check goes on.
. "$(dirname "$0")/lib.sh"

# a long name: the progress lines outgrow a pipe's 64 KiB in pass 1
LONG=$T/image-with-a-long-name-$(printf 'x%.0s' $(seq 1 200))
mktree "$T/tree"
mkimage "$LONG" -d "$T/tree"
cp "$LONG" "$T/clean"
FILE=$(ino "$LONG" /file)
"$POKE" "$LONG" inode "$FILE" nlink 9 || fail "poke"
cp "$LONG" "$T/damaged"
sum=$(sha "$LONG")

# through_fifo SIGNAL ARGS...: fsck.gaze ARGS -C 3 on a FIFO; after its
# first progress line SIGNAL, then the rest of the FIFO is read
through_fifo()
{
	local sig=$1 pid drain line
	shift
	rm -f "$T/fifo"
	mkfifo "$T/fifo" || fail "mkfifo"
	"$FSCK" "$@" -C 3 "$LONG" 3>"$T/fifo" </dev/null >"$T/out" \
		2>"$T/err" &
	pid=$!
	exec 4<"$T/fifo"
	read -r line <&4 || fail "no progress line"
	kill -"$sig" "$pid"
	cat <&4 >"$T/prog" &
	drain=$!
	wait "$pid"
	rc=$?
	wait "$drain"
	exec 4<&-
}

through_fifo TERM -fy
expect_rc 32 "SIGTERM in pass 1 of -fy"
expect_err "interrupted by SIGTERM during the check; nothing was changed"
[ "$(sha "$LONG")" = "$sum" ] || fail "SIGTERM in pass 1 of -fy wrote"
pass "SIGTERM in pass 1: exit 32, 'interrupted', nothing written by -y"
through_fifo INT -fn
expect_rc 32 "SIGINT in pass 1 of -fn"
expect_err "interrupted by SIGINT during the check; nothing was changed"
pass "SIGINT in pass 1: exit 32"

cp "$T/clean" "$LONG"
through_fifo USR2 -fn
expect_rc 0 "SIGUSR2 in pass 1 of -fn"
full=$("$FSCK" -fn -C 3 "$T/clean" 3>&1 >/dev/null | wc -l)
got=$(wc -l <"$T/prog")
cp "$T/damaged" "$LONG"
[ "$got" -lt "$((full / 2))" ] ||
	fail "SIGUSR2: $got progress lines of $full"
pass "SIGUSR2 stops the progress lines ($got of $full), the check goes on"

# sig STAGE[:N] ARGS...: fsck.gaze ARGS signalling itself at STAGE
sig()
{
	local at=$1
	shift
	GAZE_TEST_FSCK_SIGNAL=$at fsck "$@"
}

sig check -fn "$LONG"
expect_rc 32 "SIGINT during -fn"
expect_err "interrupted by SIGINT during the check; nothing was changed"
grep -q " inodes (" "$T/out" && fail "an interrupted check printed a summary"
pass "SIGINT during the check: exit 32, no summary"
if $HAVE_PYTHON; then
	sig check -fy --json "$LONG"
	expect_rc 32 "SIGINT during -fy --json"
	json_is result interrupted exit_code 32 problems_fixed 0
	json_has error "interrupted by SIGINT during the check"
	pass "SIGINT with --json: result interrupted, exit_code 32"
	sig check:2 -fn --json "$LONG"
	expect_rc 32 "SIGINT + SIGTERM during -fn --json"
	json_is result interrupted exit_code 32
	pass "a second signal: stopped at once, still a JSON object"
fi
sig check:2 -fn "$LONG"
expect_rc 32 "SIGINT + SIGTERM during -fn"
expect_err "interrupted again; stopped at once"
[ "$(sha "$LONG")" = "$sum" ] || fail "an interrupted check wrote"
pass "a second signal ends the run at once: exit 32"

for at in repair repair:2; do
	cp "$T/damaged" "$LONG"
	sig "$at" -fy "$LONG"
	expect_rc 33 "signal(s) at the start of the repair ($at)"
	expect_out "FILESYSTEM WAS MODIFIED"
	expect_err "the repair was committed first"
	fsck -fn "$LONG"
	expect_rc 0 "-fn after a repair that was signalled ($at)"
	pass "$at: the repair completes and commits (exit 33), then clean"
done
cp "$T/damaged" "$LONG"
sig recheck -fy "$LONG"
expect_rc 33 "SIGINT before the check after the repair"
expect_out "1 problem found; the check after the repair did not finish"
fsck -fn "$LONG"
expect_rc 0 "-fn after the interrupted check after a repair"
pass "SIGINT after the repair: exit 33, the count of what is left unknown"
if $HAVE_PYTHON; then
	cp "$T/damaged" "$LONG"
	sig recheck -fy --json "$LONG"
	expect_rc 33 "SIGINT before the check after the repair (--json)"
	json_is result interrupted problems 1 problems_remaining null
	pass "--json: problems_remaining null when the check after it stopped"
fi
finish
