#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-fsx.sh - runs INSIDE the test guest (tests/vm/run-guest.sh) on the
# device named by DEV (nvme | nullb | virtio), made by mkfs.gaze with
# $MKFS_OPTS (none by default):
#  1. mkfs, mount, four gazefsx exercisers at once, each on its own
#     directory (NOPS operations, every read compared with its model, the
#     files read whole at the end), umount, fsck.gaze -fn;
#  2. ROUNDS crash rounds: mount, gazefsx crash (random operations with
#     syncs, then GAZE_IOC_SHUTDOWN nologflush: nothing more reaches the
#     device), umount, mount, gazefsx verify (every byte synced and not
#     changed since reads back), umount, fsck.gaze -fn.
# The kernel log must show no gaze error.  TAP out.
set -u
B=$GAZE_BUILDDIR
KO=$B/${KMOD:-kmod-fsx}/gaze.ko
MKFS=$B/mkfs/mkfs.gaze
FSCK=$B/fsck/fsck.gaze
FSX=$B/tests/vm/gazefsx
NOPS=${NOPS:-3000}
ROUNDS=${ROUNDS:-6}
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
mkdir -p $M

[ -x "$FSX" ] || fail "$FSX not built"
gz_insmod "$KO"
gz_device "$DEV"

fsck_clean() # what
{
	run "$FSCK" -fn $D
	[ $rc -eq 0 ] || fail "fsck.gaze -fn after $1: exit $rc"
}

# shellcheck disable=SC2086 # MKFS_OPTS: words for mkfs.gaze
run "$MKFS" -f ${MKFS_OPTS:-} $D
[ $rc -eq 0 ] || fail "mkfs.gaze ${MKFS_OPTS:-} $D: exit $rc"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount $D"
p=0
pids=
while [ $p -lt 4 ]; do
	mkdir $M/p$p
	"$FSX" run $M/p$p $NOPS $p >$W/fsx$p 2>&1 &
	pids="$pids $!"
	p=$((p + 1))
done
p=0
for pid in $pids; do
	if ! wait $pid; then
		sed 's/^/# /' $W/fsx$p
		fail "$DEV: exerciser $p found a mismatch or an error"
	fi
	p=$((p + 1))
done
packed=
case " ${MKFS_OPTS:-} " in
*" --compression "*)
	# the exercisers' data repeats: clusters must have been packed
	run "$B/gazectl/gazectl" info --json $M
	lg=$(tr -d ' \n' <$W/out |
	     sed -n 's/.*"logical_blocks":\([0-9]*\),"physical_blocks":\([0-9]*\).*/\1 \2/p')
	[ -n "$lg" ] && [ "${lg% *}" -gt "${lg#* }" ] ||
		fail "no packed clusters after the exercisers ('$lg')"
	packed="; compressed clusters hold ${lg% *} blocks of data in ${lg#* }" ;;
esac
ok "$DEV (I/O scheduler ${SCHED:-as booted}${MKFS_OPTS:+, mkfs $MKFS_OPTS}): four exercisers at once, $NOPS operations each, every read equal to the model$packed"
run umount $M
[ $rc -eq 0 ] || fail "umount"
fsck_clean "the exercisers"
ok "$DEV: fsck.gaze -fn clean after the exercisers"

r=1
while [ $r -le $ROUNDS ]; do
	ops=$((100 + (r * 7919) % 1400))
	run mount -t gaze $D $M
	[ $rc -eq 0 ] || fail "round $r: mount"
	mkdir -p $M/c
	run "$FSX" crash $M/c $ops $((1000 + r)) $W/state
	[ $rc -eq 0 ] || fail "round $r: gazefsx crash"
	run umount $M
	[ $rc -eq 0 ] || fail "round $r: umount after the shutdown"
	d0=$(dmesg | wc -l)
	run mount -t gaze $D $M
	[ $rc -eq 0 ] || fail "round $r: mount after the shutdown"
	run "$FSX" verify $M/c $W/state
	[ $rc -eq 0 ] || fail "round $r: synced data lost"
	v=$(cat $W/out)
	rf=$(dmesg | tail -n +$((d0 + 1)) | grep -o "replayed [0-9]* nodes" ||
	     echo "no roll-forward")
	run umount $M
	[ $rc -eq 0 ] || fail "round $r: umount"
	fsck_clean "crash round $r"
	ok "$DEV: crash round $r: shutdown after $ops operations; ${v#gazefsx: }; mount: $rf; fsck clean"
	r=$((r + 1))
done
dmesg | grep -E "gaze.*(error|corrupt)" >$W/out && fail "gaze errors in the kernel log"
echo "1..$n"
