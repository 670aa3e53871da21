# SPDX-License-Identifier: GPL-2.0
# lib.sh - sourced by the host side of the VM tests (tests/vm/*.sh).
#
#   vm_init NAME      set SRC, BUILD, HERE, OUT and VM_KVER, the kernel the
#                     guest boots (tests/vm/kver.sh: $GAZE_KVER, else the
#                     one $KDIR is for, else the newest 6.1), exported as
#                     GAZE_KVER for run-guest.sh; exit 77 (skip) when QEMU,
#                     busybox-static or any kernel image is missing, 99
#                     when the kernel GAZE_KVER names is not installed
#   vm_kmod DIR       gaze.ko for VM_KVER into DIR, built from a copy of
#                     kernel/ (never in the source tree) once for all VM
#                     tests; exit 77 without kernel headers (99 when
#                     GAZE_KVER or KDIR named them), 1 on a build failure
#                     or any compiler/modpost warning
#   vm_share K NAME   true when this pass boots guest NAME, which belongs
#                     to share K of GAZE_VM_SHARE=K/N (unset: every
#                     guest runs); else prints a "#" line saying so
#   vm_guest NAME SCRIPT [run-guest options]
#                     boot a guest running SCRIPT; prints its TAP lines and
#                     "ok"/"not ok" with its wall seconds; sets
#                     vm_fail=1 on failure
set -u

vm_init()
{
	VM_NAME=$1
	SRC=${GAZE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
	BUILD=${GAZE_BUILDDIR:-$SRC/build}
	SRC=$(cd "$SRC" && pwd)
	BUILD=$(cd "$BUILD" && pwd)
	HERE=$SRC/tests/vm
	# scripts/test-all.sh boots guests in build/ only, not again for the
	# sanitizer build and distcheck (the guest tests the module, which is
	# the same in all three)
	[ "${GAZE_VM_TESTS:-run}" = skip ] &&
		{ echo "$VM_NAME: GAZE_VM_TESTS=skip (skipped)"; exit 77; }
	command -v qemu-system-x86_64 >/dev/null ||
		{ echo "$VM_NAME: no QEMU (skipped)"; exit 77; }
	. "$HERE/kver.sh"
	# headers given (configure --with-linux): boot the kernel they are for
	if [ -z "${GAZE_KVER:-}" ] && [ -n "${KDIR:-}" ]; then
		GAZE_KVER=$(gaze_kdir_release "$KDIR")
	fi
	VM_KVER_NAMED=${GAZE_KVER:+1}
	VM_KVER=$(gaze_kver)
	case $? in
	1)	echo "$VM_NAME: no kernel image (skipped)"; exit 77 ;;
	2)	echo "$VM_NAME: GAZE_KVER=$GAZE_KVER: no such kernel in /boot (apt-get install linux-image-$GAZE_KVER, or see scripts/setup-deps.sh)"
		exit 99 ;;
	esac
	export GAZE_KVER=$VM_KVER
	[ -x /bin/busybox ] ||
		{ echo "$VM_NAME: no busybox-static (skipped)"; exit 77; }
	OUT=$BUILD/vm-out/$VM_NAME
	rm -rf "$OUT"
	mkdir -p "$OUT"
	vm_fail=0
}

# vm_kmod_build KDIR DIR: gaze.ko from a copy of kernel/ in DIR; warnings
# fail.  Output in DIR.log.
vm_kmod_build()
{
	local kdir=$1 k=$2 log=$2.log

	rm -rf "$k"
	cp -r "$SRC/kernel" "$k" || return 1
	# a make of its own: make check's jobserver is not Kbuild's business;
	# on every CPU, since the other VM tests wait for it (one job took
	# 50 s of a CI run's make check with the second CPU idle)
	if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -j"$(nproc 2>/dev/null || echo 2)" -C "$k" KDIR="$kdir" \
		>"$log" 2>&1; then
		echo "not ok - building gaze.ko failed ($log):"
		tail -20 "$log"
		return 1
	fi
	if grep -qE ':[0-9]+(:[0-9]+)?: warning:|^WARNING:' "$log"; then
		echo "not ok - gaze.ko builds with warnings ($log):"
		grep -E -A3 ':[0-9]+(:[0-9]+)?: warning:|^WARNING:' "$log" | head -20
		return 1
	fi
}

# The module is built once per kernel and source state and shared by the
# VM tests (make check runs them in parallel: the first one builds under
# a lock, the others wait and reuse it); DIR gets a copy of gaze.ko.  A
# source file newer than the shared gaze.ko rebuilds it.
vm_kmod()
{
	local k=$1 kver=$VM_KVER kdir krel shared t0=$SECONDS

	kdir=${KDIR:-$(ls -d /lib/modules/"$kver"/build /usr/src/linux-headers-"$kver" 2>/dev/null | head -1)}
	if [ -z "$kdir" ] || [ ! -e "$kdir/Makefile" ]; then
		if [ -n "$VM_KVER_NAMED" ] || [ -n "${KDIR:-}" ]; then
			echo "$VM_NAME: no kernel headers for $kver in ${kdir:-/usr/src} (apt-get install linux-headers-$kver)"
			exit 99
		fi
		echo "$VM_NAME: no kernel headers for $kver (skipped)"
		exit 77
	fi
	# a module built for another kernel would not load in the guest
	krel=$(gaze_kdir_release "$kdir")
	if [ -n "$krel" ] && [ "$krel" != "$kver" ]; then
		echo "not ok - $kdir is for $krel, the guest boots $kver (set GAZE_KVER=$krel, or KDIR)"
		exit 99
	fi
	shared=$BUILD/kmod-shared-$kver
	(
		flock 9 || exit 1
		if [ -f "$shared/gaze.ko" ] &&
		   [ -z "$(find "$SRC/kernel" -newer "$shared/gaze.ko" -print -quit)" ]; then
			exit 0
		fi
		vm_kmod_build "$kdir" "$shared"
	) 9>"$shared.lock" || exit 1
	rm -rf "$k"
	mkdir -p "$k" && cp "$shared/gaze.ko" "$k/gaze.ko" || exit 1
	echo "ok - gaze.ko for $kver from $kdir ($shared; $((SECONDS - t0)) s)"
}

vm_share()
{
	[ -n "${GAZE_VM_SHARE:-}" ] || return 0
	[ "${GAZE_VM_SHARE%/*}" = "$1" ] && return 0
	echo "# $2: booted by the pass with GAZE_VM_SHARE=$1/${GAZE_VM_SHARE#*/}, not this one ($GAZE_VM_SHARE)"
	return 1
}

vm_guest()
{
	local name=$1 script=$2 rc t0=$SECONDS
	shift 2
	echo "# $name (kernel $VM_KVER)"
	"$HERE/run-guest.sh" -o "$OUT/$name" -t 900 \
		-e GAZE_BUILDDIR="$BUILD" -e GAZE_SRCDIR="$SRC" \
		-x "$SRC" -x "$BUILD" "$@" "$script"
	rc=$?
	sed -n 's/^\(\(not \)\?ok [0-9]* - .*\|# .*\|1\.\.[0-9]*\)\r\?$/  \1/p' \
		"$OUT/$name/console.log"
	if [ $rc -ne 0 ]; then
		echo "not ok - $name: guest exit $rc after $((SECONDS - t0)) s (console: $OUT/$name/console.log)"
		vm_fail=1
	else
		echo "ok - $name ($((SECONDS - t0)) s)"
	fi
}
