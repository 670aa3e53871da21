#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh [options] SCRIPT - boots a Debian kernel under QEMU (TCG;
# this project's hosts cannot run stock kernels under KVM), shares the
# host's / read-only over 9p so the guest runs the build tree's binaries
# unchanged, runs SCRIPT (a host path, with /bin/sh) and exits with its
# status.
#   -o DIR    out dir, shared read-write at the same path (not under /tmp)
#   -t SECS   wall-clock limit (default 600)      -m MEM  (default 2G)
#   -z MB     NVMe controller with a zoned namespace of MB (nsid 1)
#   -Z MIB    zone size (default 16)   -C MIB  zone capacity (default = size)
#   -N PROPS  extra nvme-ns properties, e.g. zoned.max_open=6
#   -y MB     a second zoned namespace of MB (nsid 2, same geometry)
#   -r        the namespaces of -z and -y are regular (not zoned)
#   -d MB     a regular virtio disk of MB (/dev/vda in the guest)
#   -b BYTES  logical/physical block size of that disk (default 512)
#   -e N=V    environment for SCRIPT (repeatable)
#   -x DIR    also share DIR read-only at its own path, mounted after the
#             guest's tmpfs mounts, so trees under /tmp stay visible
# Exit: SCRIPT's status; 124 timeout; 125 the guest never reported one
# (panic); 126 SCRIPT passed but the console shows an oops, BUG, WARNING,
# lockup or hung task; 2 usage, or no such kernel.  The console log is
# left in DIR/console.log.  The kernel: $GAZE_KVER, default the newest
# 6.1 in /boot (tests/vm/kver.sh).  $GAZE_VM_TIMEOUT_SCALE (a whole
# number, default 1) multiplies -t, for hosts whose cores other work
# keeps busy.  $GAZE_VM_SMP: vCPUs (default 2; the tests are written
# for 2, benchmarks take more).  $GAZE_VM_BUNDLE=DIR: boot the
# self-contained guest tests/bench/vm-bundle.sh made (DIR/vmlinux,
# DIR/initramfs.cpio.gz holding the guest's whole root, DIR/qemu)
# instead of /boot's kernel over the host's root: SCRIPT is then a path
# in that root, and -x is not available; GAZE_VM_OUTSHARE=0 then
# leaves out the out dir's 9p share too (for hosts whose sandbox QEMU's
# 9p server does not work in: the results are on the console).
set -uo pipefail
HERE=$(dirname "$(readlink -f "$0")")
OUTD= TMO=600 MEM=2G ZNS=0 ZNS2=0 DISK=0 DLBS=512 ZSZ=16 ZCAP= PROPS= ENVS=() XDIRS=()
ZONED=1
while getopts o:t:m:z:Z:C:N:e:x:d:b:y:r opt; do
	case $opt in
	o) OUTD=$OPTARG ;; t) TMO=$OPTARG ;; m) MEM=$OPTARG ;;
	z) ZNS=$OPTARG ;; Z) ZSZ=$OPTARG ;; C) ZCAP=$OPTARG ;;
	N) PROPS=,$OPTARG ;; e) ENVS+=("$OPTARG") ;; d) DISK=$OPTARG ;;
	b) DLBS=$OPTARG ;; y) ZNS2=$OPTARG ;; r) ZONED=0 ;;
	x) XDIRS+=("$(readlink -f "$OPTARG")") ;;
	*) sed -n 4,28p "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] && [ -n "$OUTD" ] || { sed -n 4,28p "$0"; exit 2; }
case ${GAZE_VM_TIMEOUT_SCALE:-1} in
''|*[!0-9]*|0) echo "run-guest: GAZE_VM_TIMEOUT_SCALE=$GAZE_VM_TIMEOUT_SCALE: not a whole number > 0" >&2; exit 2 ;;
esac
TMO=$((TMO * ${GAZE_VM_TIMEOUT_SCALE:-1}))
BOOT_TMO=$((180 * ${GAZE_VM_TIMEOUT_SCALE:-1}))
[ "$BOOT_TMO" -lt "$TMO" ] || BOOT_TMO=$TMO
BUNDLE=${GAZE_VM_BUNDLE:-}
if [ -n "$BUNDLE" ]; then
	SCRIPT=$1
	[ ${#XDIRS[@]} -eq 0 ] || { echo "run-guest: -x with GAZE_VM_BUNDLE" >&2; exit 2; }
else
	SCRIPT=$(readlink -f "$1")
fi
mkdir -p "$OUTD" && OUTD=$(readlink -f "$OUTD")
for d in "$OUTD" "${XDIRS[@]}"; do
	case $d in
	*[[:space:]]*) echo "run-guest: $d: paths with spaces are not supported" >&2; exit 2 ;;
	esac
done
LOG=$OUTD/console.log
OUTSHARE=(-virtfs "local,path=$OUTD,mount_tag=out,security_model=none,multidevs=remap")
if [ -n "$BUNDLE" ]; then
	KERNEL=$BUNDLE/vmlinux INITRD=$BUNDLE/initramfs.cpio.gz
	[ -s "$KERNEL" ] && [ -s "$INITRD" ] ||
		{ echo "run-guest: GAZE_VM_BUNDLE=$BUNDLE: no vmlinux and initramfs.cpio.gz there" >&2; exit 2; }
	QEMU=$BUNDLE/qemu/run
	ROOTSHARE=() ROOTARG=gz.root=ram
	[ "${GAZE_VM_OUTSHARE:-1}" != 0 ] || OUTSHARE=()
else
	QEMU=qemu-system-x86_64
	ROOTSHARE=(-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap)
	ROOTARG=
	. "$HERE/kver.sh"
	KVER=$(gaze_kver)
	case $? in
	1) echo "run-guest: no kernel in /boot (apt-get install linux-image-amd64)" >&2; exit 2 ;;
	2) echo "run-guest: GAZE_KVER=$GAZE_KVER: no such kernel in /boot" >&2; exit 2 ;;
	esac
	CACHE=${GAZE_VM_CACHE:-$(dirname "$OUTD")/vm-cache}
	mkdir -p "$CACHE"

	# the uncompressed kernel boots through PVH in half the time under TCG
	KERNEL=$CACHE/vmlinux-$KVER
	[ -s "$KERNEL" ] || gaze_vmlinux "$KVER" "$KERNEL" ||
		KERNEL=/boot/vmlinuz-$KVER
	INITRD=$CACHE/initramfs-$KVER.cpio.gz
	if [ ! -s "$INITRD" ] || [ "$HERE/guest-init.sh" -nt "$INITRD" ]; then
		"$HERE/mkinitramfs.sh" "$INITRD" "$KVER" || exit 2
	fi
fi

# a fresh copy of each device for every boot
make_images()
{
	if [ "$ZNS" -gt 0 ]; then
		rm -f "$OUTD/zns.img"
		truncate -s "${ZNS}M" "$OUTD/zns.img"
	fi
	if [ "$ZNS2" -gt 0 ]; then
		rm -f "$OUTD/zns2.img"
		truncate -s "${ZNS2}M" "$OUTD/zns2.img"
	fi
	if [ "$DISK" -gt 0 ]; then
		rm -f "$OUTD/disk.img"
		truncate -s "${DISK}M" "$OUTD/disk.img"
	fi
}

: >"$OUTD/.gz-env"
for e in "${ENVS[@]}"; do
	printf '%s=%q\n' "${e%%=*}" "${e#*=}" >>"$OUTD/.gz-env"
done
DEV=()
NSPROPS="zoned=true,zoned.zone_size=${ZSZ}M,zoned.zone_capacity=${ZCAP:-$ZSZ}M$PROPS"
[ "$ZONED" -eq 1 ] || NSPROPS="zoned=false${PROPS}"
if [ "$ZNS" -gt 0 ]; then
	DEV=(-device nvme,id=nvme0,serial=gazezns0
	     -drive "file=$OUTD/zns.img,id=zns0,format=raw,if=none,cache=unsafe"
	     -device "nvme-ns,drive=zns0,bus=nvme0,nsid=1,logical_block_size=4096,physical_block_size=4096,$NSPROPS")
	if [ "$ZNS2" -gt 0 ]; then
		DEV+=(-drive "file=$OUTD/zns2.img,id=zns1,format=raw,if=none,cache=unsafe"
		      -device "nvme-ns,drive=zns1,bus=nvme0,nsid=2,logical_block_size=4096,physical_block_size=4096,$NSPROPS")
	fi
fi
if [ "$DISK" -gt 0 ]; then
	DEV+=(-drive "file=$OUTD/disk.img,id=disk0,if=none,format=raw,cache=unsafe"
	      -device "virtio-blk-pci,drive=disk0,logical_block_size=$DLBS,physical_block_size=$DLBS")
fi
SHARES=()
XARGS=
i=0
for d in "${XDIRS[@]}"; do
	SHARES+=(-virtfs "local,path=$d,mount_tag=x$i,security_model=none,readonly=on,multidevs=remap")
	XARGS="$XARGS gz.x$i=$d"
	i=$((i + 1))
done
# norandmaps: every process maps ld.so and libc at the same addresses,
# so TCG reuses the code it translated for the last process instead of
# translating it again (TCG keys its translations by virtual address):
# a dynamically linked program starts about twice as fast, and the
# tests' shell loops start thousands of them.  Guest userspace only; the
# kernel and gaze.ko are not affected.
# without the out share, SCRIPT's environment travels on the command line
[ "${#OUTSHARE[@]}" -gt 0 ] || ROOTARG="$ROOTARG gz.env=$(base64 -w0 "$OUTD/.gz-env")"
APPEND="console=ttyS0,115200 panic=-1 oops=panic quiet loglevel=5 tsc=reliable mitigations=off norandmaps gz.cmd=$SCRIPT gz.out=$OUTD $ROOTARG$XARGS"
PAT='Kernel panic|BUG:|Oops:|WARNING:|general protection fault|Call Trace:|blocked for more than|soft lockup|hard LOCKUP|RCU stall'
# A kernel that dies while it boots, before SCRIPT starts (no "gz:
# starting" line; gaze.ko is not loaded yet), is the emulator's failure,
# not the test's: 6.12 under multi-threaded TCG sometimes takes an int3
# from its own boot-time code patching (Oops: int3 in a static branch).
# So is QEMU itself dying of a signal before SCRIPT starts (a crash of
# the emulator, not of anything under test).
# That boot is kept as console.bootfail-N.log and the guest is booted
# again, at most twice.  So is a guest that has not started SCRIPT
# after 180 s (a boot takes 3 to 20 s), scaled like -t, so a hung boot
# does not spend the whole -t limit.  Whatever
# happens after SCRIPT starts counts.
attempt=1
while :; do
	make_images
	timeout -k 5 "$TMO" "$QEMU" -accel tcg,thread=multi \
		-cpu qemu64,+rdrand -smp "${GAZE_VM_SMP:-2}" -m "$MEM" -nodefaults -display none \
		-no-reboot -serial stdio -monitor none \
		-kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND" \
		"${ROOTSHARE[@]}" "${OUTSHARE[@]}" \
		"${SHARES[@]}" "${DEV[@]}" </dev/null >"$LOG" 2>&1 &
	qpid=$!
	boot_hung=0
	w=0
	while kill -0 $qpid 2>/dev/null && ! grep -qa 'gz: starting ' "$LOG"; do
		if [ $w -ge "$BOOT_TMO" ]; then
			boot_hung=1
			kill $qpid 2>/dev/null
			break
		fi
		sleep 1
		w=$((w + 1))
	done
	wait $qpid
	QRC=$?
	if [ $boot_hung -eq 1 ]; then
		QRC=124
		[ "$attempt" -lt 3 ] || break
		why="the guest did not reach the script within ${BOOT_TMO}s"
	elif [ "$QRC" -gt 128 ] && [ "$QRC" -ne 137 ] && [ "$attempt" -lt 3 ] &&
	     ! grep -qa 'gz: starting ' "$LOG"; then
		why="QEMU died of signal $((QRC - 128)) while the guest booted, before the script started"
	else
		[ "$QRC" -ne 124 ] && [ "$QRC" -ne 137 ] && [ "$attempt" -lt 3 ] &&
			! grep -qa 'gz: starting ' "$LOG" && grep -qaE "$PAT" "$LOG" ||
			break
		why="the kernel failed while booting, before the script started"
	fi
	cp "$LOG" "$OUTD/console.bootfail-$attempt.log"
	echo "run-guest: $why; booting again (console: $OUTD/console.bootfail-$attempt.log):" >&2
	{ grep -aE "$PAT" "$LOG" || tail -5 "$LOG"; } | head -5 >&2
	attempt=$((attempt + 1))
done
rm -f "$OUTD/zns.img" "$OUTD/zns2.img" "$OUTD/disk.img"
if [ "$QRC" -eq 124 ] || [ "$QRC" -eq 137 ]; then
	if [ "$boot_hung" -eq 1 ]; then
		echo "run-guest: the guest did not reach the script within ${BOOT_TMO}s, $attempt times (console: $LOG)" >&2
	else
		echo "run-guest: timed out after ${TMO}s (console: $LOG); its last lines:" >&2
	fi
	tail -40 "$LOG" | sed 's/^/run-guest: | /' >&2
	exit 124
fi
RC=$(grep -aoE 'GZ_EXIT_CODE=[0-9]+' "$LOG" | tail -1 | cut -d= -f2)
if [ -z "$RC" ]; then
	echo "run-guest: the guest never reported an exit code (console: $LOG)" >&2
	tail -30 "$LOG" >&2
	exit 125
fi
if grep -qaE "$PAT" "$LOG"; then
	echo "run-guest: the kernel complained (console: $LOG):" >&2
	grep -aE "$PAT" "$LOG" | head -5 >&2
	[ "$RC" -ne 0 ] || exit 126
fi
exit "$RC"
