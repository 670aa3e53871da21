# SPDX-License-Identifier: GPL-2.0
# kver.sh - sourced by run-guest.sh and lib.sh: which of the Debian
# kernels in /boot the test guest boots, and so which headers gaze.ko is
# built against (a module built for one kernel does not load in another).
#
#   GAZE_KVER unset        the newest 6.1.* in /boot (Debian 12's own
#                          kernel), else the newest kernel there
#   GAZE_KVER=VERSION      /boot/vmlinuz-VERSION, else the newest
#                          VERSION.* or VERSION-* there: GAZE_KVER=6.12
#                          picks 6.12.107+deb12-amd64, GAZE_KVER=6.1 the
#                          6.1 kernel (never a 6.12)
#
# A debug kernel tests/vm/debug-kernel.sh installed (RELEASE-gazedebug)
# is booted only when GAZE_KVER names it whole.
#
# gaze_kver prints the full version; status 1 when GAZE_KVER is unset and
# /boot has no kernel at all, 2 when the kernel GAZE_KVER names is not
# installed.

# the newest /boot/vmlinuz-PREFIX.* or -PREFIX-*, by version order
gaze_kver_newest()
{
	(cd /boot 2>/dev/null && ls -d vmlinuz-"$1".* vmlinuz-"$1"-* 2>/dev/null) |
		sed 's/^vmlinuz-//' | grep -v -- '-gazedebug$' | sort -V | tail -1
}

gaze_kver()
{
	local want=${GAZE_KVER:-} v

	if [ -z "$want" ]; then
		v=$(gaze_kver_newest 6.1)
		[ -n "$v" ] || v=$( (cd /boot 2>/dev/null && ls -d vmlinuz-* 2>/dev/null) |
			sed 's/^vmlinuz-//' | grep -v -- '-gazedebug$' |
			sort -V | tail -1)
		[ -n "$v" ] || return 1
	elif [ -e "/boot/vmlinuz-$want" ]; then
		v=$want
	else
		v=$(gaze_kver_newest "$want")
		[ -n "$v" ] || return 2
	fi
	echo "$v"
}

# the kernel release a build tree (headers) is for, as modules built
# there record it (vermagic); empty when it cannot tell
gaze_kdir_release()
{
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
		"$1/include/generated/utsrelease.h" 2>/dev/null
}

# gaze_vmlinux KVER OUT: /boot/vmlinuz-KVER's xz-compressed kernel
# uncompressed into OUT (it boots through PVH in half the time under
# TCG); status 1, and no OUT, when it is not an xz bzImage
gaze_vmlinux()
{
	local off

	off=$(LC_ALL=C grep -aboP '\xfd7zXZ\x00' "/boot/vmlinuz-$1" | head -1 | cut -d: -f1)
	# xz's status alone: it stops reading at the stream's end, and under
	# pipefail tail's SIGPIPE would fail a pipeline
	if [ -n "$off" ] &&
	   xz -dc --single-stream < <(tail -c +$((off + 1)) "/boot/vmlinuz-$1") \
		>"$2.tmp.$$" 2>/dev/null; then
		mv "$2.tmp.$$" "$2"
		return 0
	fi
	rm -f "$2.tmp.$$"
	return 1
}
