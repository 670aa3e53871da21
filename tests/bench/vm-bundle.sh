#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-bundle.sh OUT.tar.xz - the benchmark guest as one self-contained
# archive, for a machine with more cores than this one that is not a
# Debian 12 host: no QEMU, no /boot kernel, no f2fs-tools of its own (a
# many-core machine lent for a few minutes; the archive must stay small
# enough to travel there: Debian's fio alone pulls in 80 MiB of
# libraries (ceph's, ICU's), so it is not included).  It holds:
#   vmlinux             the guest kernel ($GAZE_KVER, as tests/vm/kver.sh
#                       picks it), uncompressed
#   initramfs.cpio.gz   the usual /init (tests/vm/guest-init.sh) and,
#                       under /newroot, the whole root the guest scripts
#                       need: busybox, kmod and the kernel modules they
#                       load, bash, mkfs.ext4, mkfs.f2fs, dmsetup,
#                       blkzone, GAZE's tools and gaze.ko under
#                       /gz/build, the guest scripts under /gz/src (the
#                       guest boots with gz.root=ram: no 9p root)
#   qemu/               qemu-system-x86_64 with its shared libraries, its
#                       TCG module and firmware, started through the
#                       bundled ld.so by qemu/run
# Unpack it anywhere (tar -xJf, or python3's tarfile) and point
# GAZE_VM_BUNDLE at the directory: tests/vm/run-guest.sh then boots it,
# and tests/bench/vm-readfast.sh runs its benchmark in it.
#
# Needs what the VM tests need (tests/vm/lib.sh) and a configured build
# tree (GAZE_BUILDDIR, default build/).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export GAZE_SRCDIR=$SRC
export GAZE_BUILDDIR=${GAZE_BUILDDIR:-$SRC/build}
[ $# -eq 1 ] || { sed -n 4,24p "$0"; exit 2; }
DEST=$(readlink -f "$1")
set +eu
. "$SRC/tests/vm/lib.sh"
vm_init bench-bundle
vm_kmod "$OUT/kmod" || exit 1
set -eu
make -C "$BUILD" mkfs/mkfs.gaze fsck/fsck.gaze gazectl/gazectl \
	tests/vm/readfastutil tests/bench/smallfiles >"$OUT/helper.log" 2>&1 ||
	{ echo "vm-bundle: building the helpers failed ($OUT/helper.log)"; exit 1; }
B=$OUT/bundle
R=$B/root
rm -rf "$B"
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,lib64,lib/x86_64-linux-gnu,etc} \
	"$R"/{dev,proc,sys,tmp,run,var/tmp,root} "$R/gz/build/kmod" "$B/qemu/lib"

# libs ROOT LIBDIR ELF...: the shared libraries the ELFs load, copied
# to ROOT at the paths ldd names (LIBDIR: all into one directory)
libs()
{
	local root=$1 dir=$2 f l
	shift 2
	for f; do
		ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
	done | sort -u | while read -r l; do
		if [ -n "$dir" ]; then
			cp -L "$l" "$root/$dir/"
		else
			mkdir -p "$root$(dirname "$l")"
			cp -L "$l" "$root$l"
		fi
	done
}

# the guest's programs: busybox applets, then real tools over them
cp /bin/busybox "$R/bin/busybox"
for a in $(/bin/busybox --list-full); do
	[ "$a" = bin/busybox ] || ln -sf /bin/busybox "$R/$a"
done
ELFS=()
for p in dash bash kmod mke2fs mkfs.f2fs dmsetup blkzone; do
	f=$(command -v "$p") || { echo "vm-bundle: $p is not installed"; exit 1; }
	f=$(readlink -f "$f")
	rm -f "$R/usr/sbin/$p"	# never cp through a link to /bin/busybox
	cp "$f" "$R/usr/sbin/$p"
	ELFS+=("$f")
done
for l in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -sf kmod "$R/usr/sbin/$l"
done
for l in mkfs.ext4 mkfs.ext2; do ln -sf mke2fs "$R/usr/sbin/$l"; done
# /bin/sh is dash, as on Debian: busybox's sh runs its own applets
# before the PATH's programs (its modprobe, not kmod's)
ln -sf /usr/sbin/dash "$R/bin/sh"
cp /etc/mke2fs.conf "$R/etc/"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$R/etc/passwd"
printf 'root:x:0:\n' >"$R/etc/group"
for p in mkfs/mkfs.gaze fsck/fsck.gaze gazectl/gazectl \
	 tests/vm/readfastutil tests/bench/smallfiles; do
	mkdir -p "$R/gz/build/$(dirname $p)"
	cp "$BUILD/$p" "$R/gz/build/$p"
	ELFS+=("$BUILD/$p")
done
ln -s /gz/build/mkfs/mkfs.gaze "$R/usr/sbin/mkfs.gaze"
ln -s /gz/build/fsck/fsck.gaze "$R/usr/sbin/fsck.gaze"
ln -s /gz/build/gazectl/gazectl "$R/usr/sbin/gazectl"
strip --strip-debug -o "$R/gz/build/kmod/gaze.ko" "$OUT/kmod/gaze.ko"
libs "$R" "" "${ELFS[@]}"
mkdir -p "$R/gz/src/tests/bench"
cp -r "$SRC/tests/bench/guest" "$R/gz/src/tests/bench/"

# the kernel modules the guest scripts load, and modules.dep for them;
# all of crypto/ and lib/ too, for the soft dependencies --show-depends
# does not list (libcrc32c needs the crc32c transform's module)
MD=/lib/modules/$VM_KVER
mkdir -p "$R$MD/kernel/arch/x86"
cp -r "$MD/kernel/crypto" "$MD/kernel/lib" "$R$MD/kernel/"
cp -r "$MD/kernel/arch/x86/crypto" "$R$MD/kernel/arch/x86/"
for m in libcrc32c lz4_compress zstd_compress f2fs ext4 nvme virtio_blk \
	 dm-mod null_blk; do
	modprobe -S "$VM_KVER" --show-depends "$m"
done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r m; do
	mkdir -p "$R$(dirname "$m")"
	cp -n "$m" "$R$m"
done
cp "$MD"/modules.builtin "$MD"/modules.builtin.modinfo "$MD"/modules.order "$R$MD/"
depmod -b "$R" "$VM_KVER"

# the kernel, uncompressed (PVH boots it in half the time under TCG)
gaze_vmlinux "$VM_KVER" "$B/vmlinux" ||
	{ echo "vm-bundle: /boot/vmlinuz-$VM_KVER is not xz-compressed"; exit 1; }

# the initramfs: the usual one, plus the root under /newroot
"$HERE/mkinitramfs.sh" "$B/base.cpio.gz" "$VM_KVER"
T=$B/initramfs
mkdir -p "$T"
(cd "$T" && gzip -dc "$B/base.cpio.gz" | cpio -id --quiet)
rm "$B/base.cpio.gz"
rmdir "$T/newroot"
mv "$R" "$T/newroot"
(cd "$T" && find . | cpio -o -H newc --quiet | gzip -6) >"$B/initramfs.cpio.gz"
rm -rf "$T"

# QEMU, its libraries, its TCG accelerator module and its firmware
Q=$(readlink -f "$(command -v qemu-system-x86_64)")
QM=/usr/lib/x86_64-linux-gnu/qemu
cp "$Q" "$B/qemu/qemu-system-x86_64"
mkdir -p "$B/qemu/modules" "$B/qemu/share"
cp "$QM/accel-tcg-x86_64.so" "$B/qemu/modules/"
libs "$B/qemu" lib "$Q" "$QM/accel-tcg-x86_64.so"
cp -L /usr/share/qemu/{pvh.bin,linuxboot_dma.bin,linuxboot.bin,kvmvapic.bin,multiboot_dma.bin} \
	/usr/share/seabios/bios-256k.bin "$B/qemu/share/"
cat >"$B/qemu/run" <<'EOF'
#!/bin/sh
# qemu-system-x86_64 from this bundle, with its own ld.so and libraries
d=$(dirname "$(readlink -f "$0")")
export QEMU_MODULE_DIR="$d/modules"
exec "$d/lib/ld-linux-x86-64.so.2" --library-path "$d/lib" \
	"$d/qemu-system-x86_64" -L "$d/share" "$@"
EOF
chmod +x "$B/qemu/run"
echo "$VM_KVER" >"$B/kver"
rm -f "$DEST"
tar -C "$B" -cJf "$DEST" vmlinux initramfs.cpio.gz qemu kver
echo "vm-bundle: $DEST ($(du -h "$DEST" | cut -f1); kernel $VM_KVER)"
