#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# setup-deps.sh - install every package GAZE needs to build and test on
# Debian 12.  Does nothing when everything is already installed; otherwise
# runs apt-get as root (directly, or through sudo).
set -euo pipefail

PKGS=(
	build-essential autoconf automake libtool pkg-config
	libblkid-dev uuid-dev libzbd-dev
	zlib1g-dev liblz4-dev libzstd-dev
	e2fsprogs fdisk time mandoc
	linux-headers-amd64
	qemu-system-x86 linux-image-amd64 busybox-static cpio kmod xz-utils
	clang libclang-rt-14-dev attr
	f2fs-tools fio bc dmsetup
)

# Debian 12's 6.12 kernel too: gaze.ko is built against both
# (scripts/test-all.sh) and the VM tests boot it with GAZE_KVER=6.12.
# Its packages carry the point release in their names; take the one
# installed, else the newest the archive has (updating the lists once).
k612_installed()
{
	dpkg-query -W -f='${Package} ${Status}\n' 'linux-headers-6.12.*+deb12-amd64' \
		2>/dev/null | sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb12-amd64\) install ok installed$/\1/p' |
		sort -V | tail -1 || true	# no such package: dpkg-query fails
}
k612_available()
{
	apt-cache pkgnames linux-headers-6.12. 2>/dev/null |
		sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb12-amd64\)$/\1/p' |
		sort -V | tail -1 || true
}
UPDATED=0
K612=$(k612_installed)
[ -n "$K612" ] || K612=$(k612_available)
if [ -z "$K612" ] && [ "$(id -u)" -eq 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get update -q && UPDATED=1
	K612=$(k612_available)
fi
if [ -z "$K612" ]; then
	echo "setup-deps: no linux-headers-6.12.*+deb12-amd64 in the package lists" >&2
	exit 1
fi
# the kernel itself from either image package (signed or -unsigned)
[ -e "/boot/vmlinuz-$K612" ] || PKGS+=("linux-image-$K612-unsigned")
PKGS+=("linux-headers-$K612")

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	     grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "setup-deps: all ${#PKGS[@]} packages already installed"
	exit 0
fi

echo "setup-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
	SUDO=()
elif command -v sudo >/dev/null 2>&1; then
	SUDO=(sudo)
else
	echo "setup-deps: need root (or sudo) to install: ${missing[*]}" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
[ "$UPDATED" -eq 1 ] ||
	"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${missing[@]}"
