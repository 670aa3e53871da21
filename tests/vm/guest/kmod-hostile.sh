#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-hostile.sh - runs INSIDE the test guest (tests/vm/run-guest.sh):
# gaze.ko on damaged, unrepaired images (tests/vm/kmod-hostile.sh made
# the image).  For each kind of gaze-corrupt (and "none", the undamaged
# image, first: there every operation must succeed and every file read
# as its source), the image is damaged once, and the damaged image is
# mounted up to three times through a loop device by tests/vm/hostileutil
# ("use", which says what it does):
#   remount-ro   a fresh copy, read-write with errors=remount-ro
#   continue     a fresh copy, read-write with errors=continue (only
#                where the remount-ro mount met an error: otherwise the
#                two behave alike, and the line says "as remount-ro")
#   ro           the damaged image on a read-only loop device, -o ro
# each time listed, stat'ed, read (files, symlinks, xattrs) and, when
# read-write, written (create, append, overwrite, truncate, chmod,
# setxattr, link, mkdir, rename, unlink, rmdir, then rename and remove
# the damaged object itself: the injector's "target:", /d1/d2/nine
# where it names none), synced, read again and unmounted; fsck.gaze -fn
# after each read-write one.
#
# Accepted: a refused mount, any operation failing with an errno.
# Failures: an operation that does not return within $OPT s (ended by
# SIGALRM, named); one that does not even return to SIGKILL: the
# watchdog reports it after $HANG s, dumps the blocked tasks and powers
# the guest off; a failed umount; a kernel line of the kinds
# run-guest.sh rejects (BUG, WARNING, oops, lockups, hung tasks);
# EIO/EUCLEAN under errors=remount-ro with the mount still writable;
# after the switch to read-only, a create that does not fail with EROFS
# or an untouched file that no longer reads as before; fsck.gaze -fn
# exiting with anything but 0, 4 or 8 (>= 128: it crashed); and for
# "none" anything short of everything working.
#
# One TAP line per kind: "KIND: remount-ro: rw|ro|refused:ERRNO
# OP:ERRNO*N... [->ro] fsck:RC; continue: ...; ro: ..." (OP:ERRNO*N: N
# entries failed so; content*N: N files read whole but not as the
# source; gone*N: N source files not found), a "# KIND: ..." line before
# it says what the injector did, "# refused: ..." the kernel's reason.
# Environment: GAZE_BUILDDIR, GAZE_SRCDIR, KMOD (module dir),
# HOSTILE_BASE (the image), HOSTILE_SUMS (hostileutil sums of the source
# tree), HOSTILE_KINDS (default: none + gaze-corrupt --list),
# GAZE_VM_SHARE (K/N: every Nth of those from the Kth), HOSTILE_SEED.
set -u
B=$GAZE_BUILDDIR
KO=$B/${KMOD:-kmod-hostile}/gaze.ko
FSCK=$B/fsck/fsck.gaze
CORRUPT=$B/tests/corrupt/gaze-corrupt
HU=$B/tests/vm/hostileutil
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
SEED=${HOSTILE_SEED:-1}
OPT=60		# seconds one operation may take (hostileutil's alarm)
HANG=100	# the watchdog's limit (the hung task detector's is 120)
M=$W/mnt
mkdir -p $M
export HOSTILE_CUR=$W/cur HOSTILE_OPT=$OPT

# what runs now, for the watchdog: "START-SECONDS LABEL" or "- idle"
# (hostileutil writes it too, before each of its operations)
busy() { read -r up _ </proc/uptime; echo "${up%.*} $*" >$W/cur; }
idle() { echo "- idle" >$W/cur; }

watchdog()
{
	while sleep 5; do
		read -r t0 what <$W/cur 2>/dev/null || continue
		[ "$t0" != - ] || continue
		read -r now _ </proc/uptime
		now=${now%.*}
		[ $((now - t0)) -ge $HANG ] || continue
		echo "not ok - $what: no return in $((now - t0)) s, not even to SIGKILL (a hang in the kernel); blocked tasks:"
		echo w >/proc/sysrq-trigger
		sleep 3
		# nothing can unmount it now, and guest-init.sh's way out
		# syncs first, which may hang too: report and power off
		echo "GZ_EXIT_CODE=1"
		echo o >/proc/sysrq-trigger
		sleep 60
	done
}

# phase MODE: one mount of the damaged image by hostileutil
phase()
{
	img=$W/dmg
	if [ "$1" != ro ]; then
		img=$W/img
		cp --sparse=always $W/dmg $img || fail "cp"
	fi
	"$HU" use $img $M "$1" "$T" "$HOSTILE_SUMS" "$kind" >$W/use.out 2>&1
	rc=$?
	idle
	line=$(head -n 1 $W/use.out)
	if [ $rc -ne 0 ]; then
		if [ $rc -eq 142 ]; then
			read -r _ what <$W/cur
			bad="$bad; ${what#"$kind: "}: no return in $OPT s"
		else
			bad="$bad; $1: hostileutil exit $rc: $(tail -n 2 $W/use.out)"
		fi
		line="${line:+$line }(stopped)"
		umount -l $M 2>/dev/null
		losetup -D
	fi
	while IFS= read -r l; do
		case $l in
		"BAD "*) bad="$bad; ${l#BAD }" ;;
		"REASON "*) echo "# $kind: $1: refused: ${l#REASON }" ;;
		"KMSG "*) echo "# $kind: $1: kernel: ${l#KMSG }" ;;
		esac
	done <$W/use.out
	case $line in
	rw*)
		busy "$kind: $1: fsck.gaze -fn"
		"$FSCK" -fn $img >$W/fsck.out 2>&1
		rc=$?
		idle
		line="$line fsck:$rc"
		case $rc in
		0 | 4 | 8) ;;
		*)	bad="$bad; $1: fsck.gaze -fn exit $rc"
			tail -n 5 $W/fsck.out | sed 's/^/# fsck: /' ;;
		esac ;;
	esac
	summary="$summary; $1: $line"
}

[ -f "$KO" ] || fail "$KO not built"
[ -x "$HU" ] || fail "$HU not built"
modprobe -a libcrc32c lz4_compress zstd_compress
modprobe loop
run insmod "$KO"
[ $rc -eq 0 ] || fail "insmod $KO"
cp --sparse=always "$HOSTILE_BASE" $W/base || fail "copying the image"
kinds=${HOSTILE_KINDS:-}
[ -n "$kinds" ] || kinds="none $("$CORRUPT" --list | awk '{ print $1 }')"
kinds=$(gz_share $kinds)
total=0
for k in $kinds; do total=$((total + 1)); done
echo "1..$total"
echo "# seed $SEED (HOSTILE_SEED), operations bounded at $OPT s"
read -r t_start _ </proc/uptime
idle
watchdog &
WD=$!
trap 'kill $WD 2>/dev/null' EXIT
nfail=0
for kind in $kinds; do
	cp --sparse=always $W/base $W/dmg
	T=
	if [ "$kind" != none ]; then
		busy "$kind: gaze-corrupt"
		"$CORRUPT" $W/dmg "$kind" "$SEED" >$W/inject.out 2>&1
		rc=$?
		idle
		if [ $rc -ne 0 ]; then
			n=$((n + 1))
			nfail=$((nfail + 1))
			echo "not ok $n - $kind: gaze-corrupt exit $rc"
			sed 's/^/# /' $W/inject.out
			continue
		fi
		while IFS= read -r l; do
			case $l in
			"$kind: "*) echo "# $l" | cut -c1-200 ;;
			"target: "*)
				T=${l#target: }
				T=${T% (ino *)} ;;
			esac
		done <$W/inject.out
	fi
	[ -n "$T" ] || T=/d1/d2/nine
	summary=
	bad=
	phase remount-ro
	# errors=continue differs from errors=remount-ro only after an
	# error: where the first mount refused or met none, the second
	# would repeat it (the undamaged image runs it anyway)
	case "$summary" in
	"; remount-ro: refused:"* | "; remount-ro: rw fsck:"[0-9]*)
		[ "$kind" = none ] || summary="$summary; continue: as remount-ro" ;;
	*)	;;
	esac
	case "$summary" in
	*"continue: as remount-ro") ;;
	*)	phase continue ;;
	esac
	phase ro
	summary=${summary#; }
	if [ "$kind" = none ]; then
		case "$summary" in
		"remount-ro: rw fsck:0; continue: rw fsck:0; ro: ro") ;;
		*) bad="$bad; the undamaged image must work throughout" ;;
		esac
	fi
	n=$((n + 1))
	if [ -n "$bad" ]; then
		nfail=$((nfail + 1))
		echo "not ok $n - $kind: $summary"
		echo "# $kind: FAILED:${bad#;}"
	else
		echo "ok $n - $kind: $summary"
	fi
done
kill $WD 2>/dev/null
read -r t_end _ </proc/uptime
echo "# $total kinds in $(( ${t_end%.*} - ${t_start%.*} )) s"
rmmod gaze || { echo "# rmmod gaze failed"; nfail=$((nfail + 1)); }
[ $nfail -eq 0 ] || { echo "# $nfail of $total kinds failed"; exit 1; }
exit 0
