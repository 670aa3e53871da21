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
	# Debian 12's 6.12 kernel too: gaze.ko is built against both
	# (scripts/test-all.sh) and the VM tests boot it with GAZE_KVER=6.12
	linux-image-6.12.107+deb12-amd64-unsigned
	linux-headers-6.12.107+deb12-amd64
	clang libclang-rt-14-dev attr
	f2fs-tools fio bc
)

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
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${missing[@]}"
