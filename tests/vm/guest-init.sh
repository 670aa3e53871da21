#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test guest.  Kernel command line: gz.cmd=SCRIPT (host
# path), gz.out=DIR (host directory shared read-write as tag "out").
# Mounts the host's / read-only over 9p, tmpfs on the scratch paths, the
# out dir at its host path, then runs SCRIPT with that root (moved onto
# / in a mount namespace of its own, not chrooted), prints
# GZ_EXIT_CODE=rc and powers off.  With gz.root=ram the root is already
# in this initramfs, under /newroot (tests/bench/vm-bundle.sh), and an
# out dir that cannot be mounted is only a warning: the results are on
# the console.
export PATH=/bin
if [ "${1:-}" = --enter ]; then
	# --enter ROOT OUTD SCRIPT: PID 1's child, in a mount namespace of
	# its own (below): ROOT moved onto / as switch_root does, so that
	# the script's root is its namespace's root.  A chrooted process may
	# not create a user namespace (EPERM), which fstests' idmapped mount
	# tests and unshare -U need.
	# (a bind of ROOT onto itself: only a mount can move, and with
	# gz.root=ram ROOT is a directory)
	mount --rbind "$2" "$2" && cd "$2" && mount --move . / || exit 96
	exec chroot . /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root TERM=dumb GZ_OUT="$3" /bin/sh -c \
		"cd \"\$GZ_OUT\" && set -a && { [ ! -f .gz-env ] || . ./.gz-env; } && set +a && exec /bin/sh \"$4\""
fi
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do
	insmod "/mods/$m" || echo "gz: insmod $m failed"
done
CMD=
OUTD=
ROOT=host
ENVB=
for a in $(cat /proc/cmdline); do
	case "$a" in
	gz.cmd=*) CMD=${a#gz.cmd=} ;;
	gz.out=*) OUTD=${a#gz.out=} ;;
	gz.root=*) ROOT=${a#gz.root=} ;;
	gz.env=*) ENVB=${a#gz.env=} ;;
	esac
done
finish() {
	echo "GZ_EXIT_CODE=$1"
	sync
	poweroff -f
	sleep 5
	echo o >/proc/sysrq-trigger
}
R=/newroot
if [ "$ROOT" != ram ] && ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro host $R; then
	echo "gz: mounting the host root over 9p failed"
	finish 99
fi
mount -t proc proc $R/proc
mount -t sysfs sys $R/sys
mount -t devtmpfs dev $R/dev
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
for d in tmp run var/tmp root; do
	[ -d $R/$d ] && mount -t tmpfs tmpfs $R/$d
done
# extra read-only shares (run-guest.sh -x: gz.xN=DIR), then the out dir
# on top, so it stays writable when it lies inside one of them
for a in $(cat /proc/cmdline); do
	case "$a" in
	gz.x[0-9]*=*)
		tag=${a%%=*}
		tag=${tag#gz.}
		dir=${a#*=}
		mkdir -p "$R$dir" 2>/dev/null
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro "$tag" "$R$dir" ||
			{ echo "gz: mounting $dir failed"; finish 99; }
		;;
	esac
done
mkdir -p "$R$OUTD" 2>/dev/null
if [ -n "$ENVB" ]; then
	# no out dir share (run-guest.sh GAZE_VM_OUTSHARE=0): SCRIPT's
	# environment came base64-encoded on the command line
	echo "$ENVB" | base64 -d >"$R$OUTD/.gz-env" || finish 99
elif ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out "$R$OUTD"; then
	echo "gz: mounting the out dir failed"
	[ "$ROOT" = ram ] || finish 99
fi
[ -n "$CMD" ] || { echo "gz: no gz.cmd"; finish 98; }
# the host's run-guest.sh reads this line: from here on, a kernel
# complaint is the test's, not the boot's
echo "gz: starting $CMD"
unshare -m --propagation private /init --enter $R "$OUTD" "$CMD" \
	</dev/console >/dev/console 2>&1
rc=$?
umount "$R$OUTD" 2>/dev/null
finish $rc
