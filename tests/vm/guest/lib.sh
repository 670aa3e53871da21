# SPDX-License-Identifier: GPL-2.0
# lib.sh - sourced by the guest scripts (tests/vm/guest/*.sh), which run
# inside the test guest.  TAP helpers and device set-up.
#   ok MSG / fail MSG    TAP lines; fail prints the last command's output
#                        and the kernel's last messages, then exits 1
#   run CMD...           runs CMD; $rc, output in $W/out and $W/err
#   gz_share WORD...     the cases this run takes ($GAZE_VM_SHARE=K/N)
#   gz_insmod KO         loads gaze.ko from the build tree (and libcrc32c)
#   gz_device NAME       nvme | nullb | virtio: loads the driver, waits for
#                        the device and sets D to its path; with $SCHED
#                        set (none, mq-deadline), gives the device that
#                        I/O scheduler and checks it took
set -u
W=/tmp/gz
n=0
mkdir -p $W

# each ok line says how long its step took when that was 5 s or more
# (a TAP comment), so a slow CI run shows where the time went
gz_t0=$(cut -d. -f1 /proc/uptime)
ok() {
	n=$((n + 1))
	echo "ok $n - $*"
	gz_t1=$(cut -d. -f1 /proc/uptime)
	[ $((gz_t1 - gz_t0)) -lt 5 ] || echo "#   ($((gz_t1 - gz_t0)) s)"
	gz_t0=$gz_t1
}
fail() {
	echo "not ok $((n + 1)) - $*"
	for f in $W/out $W/err; do [ -s $f ] && sed 's/^/# /' $f; done
	dmesg | tail -15 | sed 's/^/# dmesg: /'
	exit 1
}
run() { "$@" </dev/null >$W/out 2>$W/err; rc=$?; }
# gz_share WORD...: the words (cases) this run takes.  With
# GAZE_VM_SHARE=K/N, every Nth from the Kth (0-based); unset, all.
# scripts/test-all.sh gives the 6.1 and 6.12 passes complementary
# shares of the case lists (0/2 and 1/2), so CI covers every case once
gz_share()
{
	[ -n "${GAZE_VM_SHARE:-}" ] || { echo "$*"; return; }
	gz_k=${GAZE_VM_SHARE%/*} gz_n=${GAZE_VM_SHARE#*/} gz_i=0 gz_out=
	for gz_w in "$@"; do
		[ $((gz_i % gz_n)) -eq "$gz_k" ] && gz_out="$gz_out $gz_w"
		gz_i=$((gz_i + 1))
	done
	echo "$gz_out"
}

gz_insmod()
{
	[ -f "$1" ] || fail "$1 not built"
	modprobe -a libcrc32c lz4_compress zstd_compress
	run insmod "$1"
	[ $rc -eq 0 ] || fail "insmod $1"
}

gz_device()
{
	case $1 in
	nvme)
		modprobe nvme
		D=/dev/nvme0n1 ;;
	nullb)
		modprobe null_blk nr_devices=1 zoned=1 zone_size=16 \
			zone_nr_conv=4 gb=1 memory_backed=1 bs=4096
		D=/dev/nullb0 ;;
	virtio)
		modprobe virtio_blk
		D=/dev/vda ;;
	*) fail "unknown device kind $1" ;;
	esac
	i=0
	while [ ! -b $D ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -b $D ] || fail "$D did not appear"
	[ -n "${SCHED:-}" ] || return 0
	q=/sys/block/${D#/dev/}/queue/scheduler
	echo "$SCHED" >$q 2>/dev/null
	grep -q "\[$SCHED\]" $q || fail "$D: scheduler $SCHED not taken: $(cat $q)"
}
