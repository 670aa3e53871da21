#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT KVER - a tiny initramfs for the test guest: static
# busybox, the virtio/9p modules needed to mount the host's root over 9p
# (in dependency order), and guest-init.sh as /init.
set -euo pipefail
OUT=$1
KVER=$2
HERE=$(dirname "$(readlink -f "$0")")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T"/{bin,dev,proc,sys,newroot,mods}
cp /bin/busybox "$T/bin/busybox"
for m in virtio_pci 9pnet_virtio 9p; do
	modprobe -S "$KVER" --show-depends "$m"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' >"$T/order.full"
: >"$T/mods/order"
while read -r m; do
	cp "$m" "$T/mods/"
	basename "$m" >>"$T/mods/order"
done <"$T/order.full"
rm "$T/order.full"
cp "$HERE/guest-init.sh" "$T/init"
chmod +x "$T/init"
(cd "$T" && find . | cpio -o -H newc --quiet | gzip -1) >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
