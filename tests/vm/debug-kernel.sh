#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - a debug guest kernel for the VM tests, and the VM
# tests run on it.  Debian's kernels have no lockdep and no KASAN; this
# builds one from Debian's own linux-source-6.1 with
#   PROVE_LOCKING (lockdep: lock order, locks held across sleeps, RCU),
#   KASAN (out-of-bounds and use-after-free, generic, inline),
#   DEBUG_ATOMIC_SLEEP, DEBUG_LIST, DEBUG_SG, DEBUG_VM, UBSAN_BOUNDS,
#   DEBUG_OBJECTS_WORK and _TIMERS, DETECT_HUNG_TASK,
# on x86_64_defconfig and kvm_guest.config plus what the guests use (NVMe
# with zones, virtio, 9p, device-mapper with flakey and error targets,
# loop, ext4, crc32c, lz4, zstd, zlib built in; null_blk a module, since
# the tests give it parameters), with no debug info (build time).  Its
# release is VERSION-gazedebug, installed as /boot/vmlinuz-RELEASE and
# /lib/modules/RELEASE (with build/ for gaze.ko); tests/vm/kver.sh never
# picks it unless GAZE_KVER names it.
#
#   tests/vm/debug-kernel.sh build        configure, build, install (root;
#                                         about 35 minutes on 2 cores)
#   tests/vm/debug-kernel.sh check [TESTS...]
#                                         run the VM tests (default: every
#                                         tests/vm/kmod-*.sh) on it through
#                                         make check in $GAZE_BUILDDIR
#   tests/vm/debug-kernel.sh release      print the release it installs
#                                         (or the newest one in /boot)
#
# Environment: GAZE_DEBUG_KSRC (default /var/tmp/gaze-debug-kernel), the
# tree it builds in; GAZE_BUILDDIR (default build/) for check; JOBS
# (default nproc).  A kernel splat (lockdep, KASAN, a warning) fails the
# test that set it off, as in every VM test.  Exit 0, 1 on failure, 2 on
# a usage error.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
KSRC=${GAZE_DEBUG_KSRC:-/var/tmp/gaze-debug-kernel}
JOBS=${JOBS:-$(nproc)}
TARBALL=/usr/src/linux-source-6.1.tar.xz

usage() { sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \?//'; exit "${1:-2}"; }

tree()
{
	if [ ! -f "$TARBALL" ]; then
		echo "debug-kernel: installing linux-source-6.1"
		apt-get install -y linux-source-6.1 >/dev/null
	fi
	if [ ! -f "$KSRC/Makefile" ]; then
		mkdir -p "$KSRC"
		tar -xf "$TARBALL" -C "$KSRC" --strip-components=1
	fi
}

configure()
{
	local c=(scripts/config --file .config)

	make -s x86_64_defconfig
	make -s kvm_guest.config
	"${c[@]}" --set-str LOCALVERSION -gazedebug --disable LOCALVERSION_AUTO
	# the build's time: no debug info, none of what a guest lacks
	"${c[@]}" --enable DEBUG_INFO_NONE --disable DEBUG_INFO \
		--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		--disable DRM --disable SOUND --disable USB_SUPPORT \
		--disable WLAN --disable WIRELESS --disable CFG80211 \
		--disable NFS_FS --disable NFSD --disable CIFS --disable HID --disable AGP \
		--disable ETHERNET --disable FB --disable INPUT_MOUSE \
		--disable INPUT_JOYSTICK --disable INPUT_TABLET \
		--disable INPUT_TOUCHSCREEN --disable PCCARD --disable ATA \
		--disable SCSI_LOWLEVEL --disable MACINTOSH_DRIVERS \
		--disable FIRMWARE_EDID --disable KVM --disable XEN \
		--disable HYPERV --disable SECURITY_SELINUX \
		--disable AUDIT --disable BPF_SYSCALL --disable DEBUG_KERNEL_DC
	# what the guests use (the compression libraries have no prompt:
	# the crypto algorithms select them)
	"${c[@]}" --enable MODULES --enable MODULE_UNLOAD \
		--enable BLK_DEV_ZONED --enable NVME_CORE --enable BLK_DEV_NVME \
		--module BLK_DEV_NULL_BLK --enable BLK_DEV_LOOP \
		--enable VIRTIO_PCI --enable VIRTIO_BLK --enable NET_9P \
		--enable NETWORK_FILESYSTEMS --enable NET_9P_VIRTIO --enable 9P_FS --enable 9P_FS_POSIX_ACL \
		--enable MD --enable BLK_DEV_DM --enable DM_FLAKEY \
		--enable DM_ZERO --enable DM_DELAY --enable EXT4_FS \
		--enable EXT4_FS_POSIX_ACL --enable TMPFS --enable TMPFS_POSIX_ACL \
		--enable FS_POSIX_ACL --enable EXPORTFS --enable COMPACTION \
		--enable MIGRATION --enable CRYPTO_CRC32C --enable LIBCRC32C \
		--enable CRYPTO_LZ4 --enable CRYPTO_ZSTD --enable CRYPTO_DEFLATE \
		--enable DEVTMPFS --enable DEVTMPFS_MOUNT --enable BLK_DEV_INITRD
	# the checks
	"${c[@]}" --enable DEBUG_KERNEL --enable PROVE_LOCKING \
		--enable PROVE_RCU --enable DEBUG_ATOMIC_SLEEP \
		--enable DEBUG_LIST --enable DEBUG_SG --enable DEBUG_VM \
		--enable DEBUG_OBJECTS --enable DEBUG_OBJECTS_WORK \
		--enable DEBUG_OBJECTS_TIMERS --enable DETECT_HUNG_TASK \
		--enable KASAN --enable KASAN_GENERIC --enable KASAN_INLINE \
		--enable UBSAN --enable UBSAN_BOUNDS --disable UBSAN_SANITIZE_ALL
	make -s olddefconfig
	# what olddefconfig may have dropped for want of a dependency
	local want
	for want in PROVE_LOCKING KASAN BLK_DEV_ZONED BLK_DEV_NVME 9P_FS \
		    DM_FLAKEY DEBUG_ATOMIC_SLEEP LIBCRC32C LZ4_COMPRESS \
		    ZSTD_COMPRESS ZLIB_DEFLATE; do
		grep -q "^CONFIG_$want=y" .config || {
			echo "debug-kernel: CONFIG_$want did not stay on" >&2
			rm .config
			exit 1
		}
	done
	grep -q '^CONFIG_BLK_DEV_NULL_BLK=m' .config || {
		echo "debug-kernel: null_blk is not a module" >&2
		rm .config
		exit 1
	}
	cp .config .config.gaze
}

build()
{
	local rel

	[ "$(id -u)" = 0 ] || { echo "debug-kernel: build installs into /boot: run as root" >&2; exit 1; }
	tree
	cd "$KSRC"
	# .config.gaze: the configuration made and checked here
	[ -f .config.gaze ] && cmp -s .config .config.gaze || configure
	make -s -j"$JOBS" bzImage modules
	rel=$(make -s kernelrelease)
	make -s modules_install
	cp arch/x86/boot/bzImage "/boot/vmlinuz-$rel"
	cp .config "/boot/config-$rel"
	cp System.map "/boot/System.map-$rel"
	# modules_install points build/ at this tree, for gaze.ko
	echo "debug-kernel: installed $rel"
}

# the tree's release, else the newest one installed
release()
{
	local r

	if [ -f "$KSRC/include/config/kernel.release" ]; then
		cat "$KSRC/include/config/kernel.release"
		return
	fi
	r=$(cd /boot && ls -d vmlinuz-*-gazedebug 2>/dev/null |
		sed 's/^vmlinuz-//' | sort -V | tail -1)
	[ -n "$r" ] || { echo "debug-kernel: not built yet ($KSRC)" >&2; exit 1; }
	echo "$r"
}

check()
{
	local rel b=${GAZE_BUILDDIR:-$SRC/build} tests=("$@") t

	rel=$(release)
	[ -e "/boot/vmlinuz-$rel" ] ||
		{ echo "debug-kernel: /boot/vmlinuz-$rel missing: run build" >&2; exit 1; }
	if [ ${#tests[@]} = 0 ]; then
		for t in "$SRC"/tests/vm/kmod-*.sh; do
			tests+=("tests/vm/$(basename "$t")")
		done
	fi
	# the debug kernel is several times slower under emulation
	GAZE_KVER=$rel GAZE_VM_TIMEOUT_SCALE=${GAZE_VM_TIMEOUT_SCALE:-4} \
		make -C "$b" check TESTS="${tests[*]}"
}

case ${1:-} in
build) build ;;
check) shift; check "$@" ;;
release) release ;;
-h|--help) usage 0 ;;
*) usage ;;
esac
