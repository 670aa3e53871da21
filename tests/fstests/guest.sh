#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh - runs INSIDE the test guest (tests/vm/run-guest.sh), started
# by tests/fstests/run.sh: prepares what fstests expects of a machine
# (its users and groups, /dev/fd, a writable copy of the fstests tree,
# mkfs.gaze and fsck.gaze where mkfs -t and fsck -t look) and runs
# fstests' ./check on two NVMe namespaces (zoned unless run.sh -r).
# Environment: GAZE_BUILDDIR, KO, FSTESTS_DIR, GZ_FSTYP (gaze or ext4),
# GZ_TESTS (tests or -g groups for ./check), GZ_EXCLUDE (a file of tests
# to leave out, "#" comments allowed), GZ_OUT (results go there).
set -u
B=$GAZE_BUILDDIR
FSTYP=${GZ_FSTYP:-gaze}
log() { echo "fstests-guest: $*"; }
die() { echo "fstests-guest: $*"; exit 1; }

modprobe -a libcrc32c lz4_compress zstd_compress
insmod "$KO" || die "insmod $KO"
[ "$FSTYP" = gaze ] || modprobe "$FSTYP" || die "modprobe $FSTYP"
modprobe nvme
i=0
while { [ ! -b /dev/nvme0n1 ] || [ ! -b /dev/nvme0n2 ]; } && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -b /dev/nvme0n2 ] || die "the two NVMe namespaces did not appear"
# modules fstests loads or probes (absent ones only cost a notrun);
# scsi_debug is not among them: fstests loads it with its own options
# (a loaded one fails that), and its disks need sd_mod
for m in loop dm_mod dm_flakey dm_log_writes dm_snapshot dm_delay \
	 dm_thin_pool dm_error dm_dust sd_mod overlay; do
	modprobe $m 2>/dev/null
done

# mkfs -t gaze and fsck -t gaze find mkfs.gaze and fsck.gaze on PATH
# (GZ_SBIN: copies run.sh made, so a rebuild on the host meanwhile
# changes nothing under a running test)
S=${GZ_SBIN:-/tmp/gz-sbin}
if [ -z "${GZ_SBIN:-}" ]; then
	mkdir -p $S
	ln -sf "$B/mkfs/mkfs.gaze" $S/mkfs.gaze
	ln -sf "$B/fsck/fsck.gaze" $S/fsck.gaze
	ln -sf "$B/gazectl/gazectl" $S/gazectl
fi
export PATH=$S:$PATH

# /dev/fd and friends (devtmpfs has no links), a hostname
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for n in 0:stdin 1:stdout 2:stderr; do
	[ -e /dev/${n#*:} ] || ln -s /proc/self/fd/${n%%:*} /dev/${n#*:}
done
hostname gaze-fstests 2>/dev/null
# the loopback interface (locktest, 131 and friends, talks over TCP)
ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null

# fstests' users and groups, over the read-only host /etc
E=/tmp/gz-etc
mkdir -p $E
cp /etc/passwd /etc/group $E/
grep -q '^fsgqa:' $E/group || cat >>$E/group <<'EOG'
fsgqa:x:1500:
fsgqa2:x:1501:
EOG
grep -q '^fsgqa:' $E/passwd || cat >>$E/passwd <<'EOP'
fsgqa:x:1500:1500:fstests:/tmp/fsgqa:/bin/bash
fsgqa2:x:1501:1501:fstests:/tmp/fsgqa2:/bin/bash
123456-fsgqa:x:1502:1500:fstests:/tmp/fsgqa3:/bin/bash
EOP
# shadow entries too: su(1)'s pam_unix refuses an account whose
# password is shadowed ("x") when shadow has no line for it, and fstests'
# _require_user runs "su fsgqa" ("fsgqa cannot execute commands")
cp /etc/shadow $E/shadow 2>/dev/null || : >$E/shadow
chmod 640 $E/shadow
grep -q '^fsgqa:' $E/shadow || cat >>$E/shadow <<'EOS'
fsgqa:*:19000:0:99999:7:::
fsgqa2:*:19000:0:99999:7:::
123456-fsgqa:*:19000:0:99999:7:::
EOS
mkdir -p /tmp/fsgqa /tmp/fsgqa2 /tmp/fsgqa3
chown 1500:1500 /tmp/fsgqa /tmp/fsgqa3
chown 1501:1501 /tmp/fsgqa2
mount --bind $E/passwd /etc/passwd || die "bind-mounting /etc/passwd"
mount --bind $E/group /etc/group || die "bind-mounting /etc/group"
mount --bind $E/shadow /etc/shadow || die "bind-mounting /etc/shadow"

# cgroup2 where fstests looks for it, for the tests that put a writer
# in a cgroup and read its io accounting (generic/563)
if [ ! -f /sys/fs/cgroup/cgroup.subtree_control ]; then
	mkdir -p /sys/fs/cgroup
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null ||
		log "no cgroup2: the cgroup tests will not run"
fi

# a writable fstests tree: an overlay on the read-only share, else a copy
F=/tmp/fstests
mkdir -p $F /tmp/gz-ovl/u /tmp/gz-ovl/w
if ! mount -t overlay -o "lowerdir=$FSTESTS_DIR,upperdir=/tmp/gz-ovl/u,workdir=/tmp/gz-ovl/w" \
	overlay $F 2>/dev/null; then
	log "no overlay on $FSTESTS_DIR: copying it"
	cp -a "$FSTESTS_DIR/." $F/ || die "copying $FSTESTS_DIR"
fi

# device-mapper without udev creates its own nodes
export DM_DISABLE_UDEV=1
# and no udevd runs to answer fstests' "udevadm wait /dev/mapper/X",
# which would wait for ever: a udevadm first on PATH waits for the node
# itself (10 s at most) and takes "settle" as done; the rest goes to the
# real one
U=/tmp/gz-bin
mkdir -p $U
cat >$U/udevadm <<'EOU'
#!/bin/sh
case $1 in
settle) dmsetup mknodes >/dev/null 2>&1; exit 0 ;;
wait)
	shift
	gone=0
	[ "$1" = --removed ] && { gone=1; shift; }
	i=0
	while [ $i -lt 100 ]; do
		dmsetup mknodes >/dev/null 2>&1
		if [ $gone -eq 1 ]; then [ -e "$1" ] || exit 0
		else [ -e "$1" ] && exit 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	exit 1 ;;
esac
exec /usr/bin/udevadm "$@"
EOU
chmod +x $U/udevadm
export PATH=$U:$PATH
mkdir -p /tmp/test /tmp/scratch
export FSTYP TEST_DEV=/dev/nvme0n1 TEST_DIR=/tmp/test \
	SCRATCH_DEV=/dev/nvme0n2 SCRATCH_MNT=/tmp/scratch \
	RESULT_BASE=$GZ_OUT/results
case $FSTYP in
gaze) export MKFS_OPTIONS=${MKFS_OPTIONS:--f}; FORCE= ;;
*) FORCE=-F ;;	# ext4: mke2fs asks before it overwrites
esac
mkfs -t $FSTYP $FORCE ${MKFS_OPTIONS:-} $TEST_DEV >/tmp/gz-mkfs.log 2>&1 ||
	{ cat /tmp/gz-mkfs.log; die "mkfs -t $FSTYP $TEST_DEV"; }
log "$FSTYP on $TEST_DEV and $SCRATCH_DEV ($(($(cat /sys/block/nvme0n1/size) / 2048)) MiB each, zoned: $(cat /sys/block/nvme0n1/queue/zoned)), kernel $(uname -r)"
XF=
[ -n "${GZ_EXCLUDE:-}" ] && XF="-E $GZ_EXCLUDE"
cd $F || die "cd $F"
start=$(date +%s)
# its report also goes to a file: the console mixes it with the kernel's
# shellcheck disable=SC2086
{ ./check $XF $GZ_TESTS; echo "check-exit=$?"; } 2>&1 | tee "$GZ_OUT/check.out"
rc=$(sed -n 's/^check-exit=//p' "$GZ_OUT/check.out")
log "check exited $rc after $(($(date +%s) - start)) s"
exit 0
