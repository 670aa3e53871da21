#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-compress.sh - runs INSIDE the test guest (tests/vm/run-guest.sh):
# transparent compression through gaze.ko.
#  1. mkfs.gaze --compression zstd:3; the root and new files show 'c' in
#     lsattr; a copy of /usr/include/linux (text) reads back equal, before
#     and after dropping the caches (every page decompressed) and after a
#     remount; du (st_blocks) is below the apparent size; O_DIRECT reads
#     of a compressed file return the same bytes; FIEMAP (filefrag) calls
#     the data encoded;
#  2. edits of packed clusters through the page cache: a 100-byte
#     overwrite, truncate into a cluster, punch hole, an appended tail,
#     a truncate to the same size;
#     compared with a copy kept on tmpfs;
#  3. chattr -c on a file: new writes are plain (st_blocks grows by the
#     size written), the old data still reads; chattr +c on a directory
#     of a filesystem without the feature: EOPNOTSUPP, nothing changed;
#  4. umount, fsck.gaze -fn clean; gazectl cat of a compressed file;
#     gazectl compress-stats (text, --json against du) and info: the
#     filesystem's ratio, the same after remounts;
#  5. the mount option compress=ALG[:LEVEL]|no: new files in a directory
#     without compression take it, others keep their directory's;
#     remount changes it; refused without the feature;
#  6. (after 1) writeback compresses whole clusters on several CPUs:
#     gazectl info shows the CPUs (compress_cpu_pct of those online) and
#     the clusters compressed there; gazectl tune compress_cpu_pct=1;
#     readahead decodes on one CPU at compress_cpu_pct=1 and on a
#     second one at 100 (gazectl info's count of those clusters);
#     one-page rewrites of packed clusters are merged with the rest of
#     their cluster and compressed outside the lock (the same count);
#     a 100-byte write into an uncached page caches its whole cluster;
#  7. a filesystem made without the feature gets it offline with
#     gazectl features compression: compress=lz4 then mounts and new
#     files compress; ^compression refused;
#  8. one-page rewrites of packed clusters on a full filesystem: each is
#     refused at write() with ENOSPC or kept (fsync, drop_caches,
#     remount), never accepted and lost at writeback;
# TAP out.
set -u
B=$GAZE_BUILDDIR
KO=$B/${KMOD:-kmod-compress}/gaze.ko
MKFS=$B/mkfs/mkfs.gaze
FSCK=$B/fsck/fsck.gaze
CTL=$B/gazectl/gazectl
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
T=/tmp/gz/copy
mkdir -p $M $T

gz_insmod "$KO"
gz_device "$DEV"

dropc() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# 1. a tree of text
run "$MKFS" -f --compression zstd:3 $D
[ $rc -eq 0 ] || fail "mkfs.gaze --compression zstd:3 $D: exit $rc"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount $D"
lsattr -d $M >$W/out 2>&1
grep -q -- '-c-' $W/out || grep -q 'c' $W/out || fail "lsattr -d $M shows no c: $(cat $W/out)"
cp -r /usr/include/linux $M/inc || fail "cp -r /usr/include/linux"
lsattr $M/inc/fs.h >$W/out 2>&1
grep -q '^[^ ]*c' $W/out || fail "a new file does not show c: $(cat $W/out)"
ok "mkfs --compression zstd:3: the root and new files show c (lsattr)"
run diff -r /usr/include/linux $M/inc
[ $rc -eq 0 ] || fail "the copy differs before a cache drop"
dropc
run diff -r /usr/include/linux $M/inc
[ $rc -eq 0 ] || fail "the copy differs after drop_caches"
app=$(du -s --apparent-size -k $M/inc | cut -f1)
phys=$(du -s -k $M/inc | cut -f1)
[ "$phys" -lt "$app" ] || fail "du: $phys KiB used for $app KiB of data"
ok "/usr/include/linux reads back equal from the page cache and after drop_caches; du $phys KiB for $app KiB apparent"
run "$CTL" compress-stats $M/inc
[ $rc -eq 0 ] || fail "gazectl compress-stats $M/inc: exit $rc"
grep -q "^$M/inc: [0-9]* files, .* ratio [0-9.]*x" $W/out ||
	fail "gazectl compress-stats: $(cat $W/out)"
grep -q "^filesystem (compressed clusters, default zstd:3): .* ratio" $W/out ||
	fail "gazectl compress-stats: no filesystem line: $(cat $W/out)"
cs=$(cat $W/out)
run "$CTL" compress-stats --json $M/inc
lb=$(tr -d ' \n' <$W/out | sed -n 's/.*"paths":\[{[^}]*"logical_bytes":\([0-9]*\),"physical_bytes":\([0-9]*\)}.*/\1 \2/p')
want=$(find $M/inc -type f -printf '%s %b\n' |
       awk '{ l += $1; p += $2 * 512 } END { print l, p }')
[ "$lb" = "$want" ] ||
	fail "compress-stats --json paths: '$lb', the files' sizes and st_blocks: $want"
run "$CTL" info $M
grep -q "^compression: *default zstd:3, clusters of 64 KiB;" $W/out ||
	fail "gazectl info: no compression line: $(cat $W/out)"
fsratio=$(sed -n 's/^compression:.*ratio \([0-9.]*\)x$/\1/p' $W/out)
ok "gazectl compress-stats (text, and --json as the files' sizes and st_blocks add up) and info: filesystem ratio ${fsratio}x; $(echo "$cs" | head -1)"
# writeback compresses whole clusters on several CPUs (cmpwq.c)
ncpu=$(nproc)
want=$(( (ncpu * 75 + 99) / 100 ))
pc=$(sed -n 's/^compressing on: *up to \([0-9]*\) CPUs (compress_cpu_pct 75); \([0-9]*\) clusters.*/\1 \2/p' $W/out)
[ "${pc% *}" = "$want" ] && [ "${pc#* }" -gt 0 ] ||
	fail "gazectl info after the copy: '$pc' (CPUs, clusters), expected $want CPUs of $ncpu and clusters > 0: $(cat $W/out)"
p0=${pc#* }
run "$CTL" tune $M compress_cpu_pct=0
[ $rc -ne 0 ] || fail "gazectl tune compress_cpu_pct=0 accepted"
run "$CTL" tune $M compress_cpu_pct=1
[ $rc -eq 0 ] || fail "gazectl tune compress_cpu_pct=1: $(cat $W/err)"
cat /usr/include/linux/*.h /usr/include/linux/*.h >$T/big
cp $T/big $M/big && sync || fail "write of a text file at compress_cpu_pct=1"
run "$CTL" info $M
pc=$(sed -n 's/^compressing on: *up to \([0-9]*\) CPUs (compress_cpu_pct 1); \([0-9]*\) clusters.*/\1 \2/p' $W/out)
[ "${pc% *}" = 1 ] && [ "${pc#* }" -gt "$p0" ] ||
	fail "gazectl info at compress_cpu_pct=1: '$pc': $(cat $W/out)"
# readahead decodes a window's clusters on as many CPUs (cmpwq.c)
rd_dec() {
	"$CTL" info $M |
		sed -n 's/^decoding on: *up to [0-9]* CPUs; \([0-9]*\) clusters read ahead by a second CPU.*/\1/p'
}
d0=$(rd_dec)
dropc
cmp $T/big $M/big || fail "the file written at compress_cpu_pct=1 differs, read at 1"
d1=$(rd_dec)
[ -n "$d0" ] && [ "$d1" = "$d0" ] ||
	fail "readahead at compress_cpu_pct=1: clusters decoded by a second CPU '$d0' -> '$d1'"
run "$CTL" tune $M compress_cpu_pct=100
dropc
cmp $T/big $M/big || fail "the file written at compress_cpu_pct=1 differs"
d2=$(rd_dec)
if [ "$ncpu" -ge 2 ]; then
	[ "$d2" -gt "$d1" ] ||
		fail "readahead on $ncpu CPUs: no cluster decoded by a second CPU ($d1 -> $d2)"
fi
ok "writeback compresses on up to $want of $ncpu CPUs ($p0 clusters for the copy); compress_cpu_pct=1 gives 1 (then ${pc#* } clusters), 0 refused; the file reads back equal, read ahead on 1 CPU and then on $ncpu ($((d2 - d1)) clusters decoded by a second CPU)"
f=$M/inc/fs.h
run dd if=$f of=$W/direct bs=4096 iflag=direct
[ $rc -eq 0 ] || fail "O_DIRECT read of a compressed file"
cmp -n "$(stat -c %s $f)" $W/direct $f >/dev/null ||
	fail "O_DIRECT read returns other bytes"
filefrag -v $f >$W/out 2>&1
grep -q encoded $W/out || fail "filefrag does not call fs.h encoded: $(cat $W/out)"
ok "O_DIRECT reads of a compressed file return its bytes; FIEMAP says encoded"

# one-page rewrites of packed clusters: writeback merges each with the
# rest of its cluster outside fs->lock (gaze_cluster_enc_merge)
wb_enc() {
	"$CTL" info $M |
		sed -n 's/^compressing on: .*; \([0-9]*\) clusters compressed there.*/\1/p'
}
cp $T/big $T/y
cp $T/y $M/y && sync || fail "copy of a text file"
dropc
e0=$(wb_enc)
for k in 1 3 5 7 9 11 13 15; do
	dd if=/usr/include/linux/fs.h of=$T/y bs=4096 count=1 seek=$((k * 16 + k % 16)) conv=notrunc status=none
	dd if=/usr/include/linux/fs.h of=$M/y bs=4096 count=1 seek=$((k * 16 + k % 16)) conv=notrunc status=none
done
sync
e1=$(wb_enc)
[ -n "$e0" ] && [ "$e1" -ge $((e0 + 8)) ] ||
	fail "8 one-page rewrites of packed clusters: clusters compressed outside the lock '$e0' -> '$e1'"
dropc
cmp $T/y $M/y >/dev/null || fail "the file with 8 rewritten pages differs after drop_caches"
ok "8 one-page rewrites of packed clusters are merged and compressed outside the lock ($e0 -> $e1 clusters) and read back equal"
# a 100-byte write into a page that is not cached reads it (read_folio):
# the cluster's other pages come from the same decoding
dropc
printf 'a hundred bytes, more or less, written into the middle of one page of a packed cluster ........\n' >$T/h
dd if=$T/h of=$T/y bs=1 seek=$((40 * 65536 + 5 * 4096 + 7)) conv=notrunc status=none
dd if=$T/h of=$M/y bs=1 seek=$((40 * 65536 + 5 * 4096 + 7)) conv=notrunc status=none
pages=$(fincore -nb -o PAGES $M/y | tr -d ' ')
[ "${pages:-0}" -ge 16 ] ||
	fail "a 100-byte write into a packed cluster left $pages pages cached, not the cluster's 16: $(fincore $M/y)"
sync
dropc
cmp $T/y $M/y >/dev/null || fail "the file differs after the 100-byte write"
ok "a 100-byte write into an uncached page of a packed cluster caches the cluster's $pages pages from one decoding; reads back equal"

# 2. edits through the page cache, against a copy on tmpfs
cat /usr/include/linux/*.h | head -c 1000000 >$T/x
cp $T/x $M/x
dropc
printf 'hello, packed cluster world, a hundred bytes of new text go here and there and everywhere .......\n' >$T/h
dd if=$T/h of=$T/x bs=1 seek=70000 conv=notrunc 2>/dev/null
dd if=$T/h of=$M/x bs=1 seek=70000 conv=notrunc 2>/dev/null
truncate -s 300000 $T/x $M/x
fallocate -p -o 100000 -l 20000 $T/x
fallocate -p -o 100000 -l 20000 $M/x || fail "punch hole in a compressed file"
cat /usr/include/linux/if*.h | head -c 200000 >$T/tail
cat $T/tail >>$T/x
cat $T/tail >>$M/x
cmp $T/x $M/x >/dev/null || fail "edited file differs (in the page cache)"
# written back, then ftruncate to the same size: the trim past the EOF
# must keep the packed tail cluster's length marker (fsck in 4 counts)
sync
truncate -s "$(stat -c %s $M/x)" $M/x
dropc
cmp $T/x $M/x >/dev/null || fail "edited file differs after drop_caches"
ok "a 100-byte overwrite, truncate into a cluster, punch hole, an append and a truncate to the same size read back equal"

# 3. chattr -c
chattr -c $M/x || fail "chattr -c"
b0=$(stat -c %b $M/x)
cat /usr/include/linux/*.h | head -c 262144 >$W/plain
dd if=$W/plain of=$M/x bs=65536 seek=20 conv=notrunc 2>/dev/null
dd if=$W/plain of=$T/x bs=65536 seek=20 conv=notrunc 2>/dev/null
dropc
b1=$(stat -c %b $M/x)
[ $((b1 - b0)) -ge 512 ] || fail "chattr -c: 256 KiB written plain took $(((b1 - b0) / 8)) blocks"
cmp $T/x $M/x >/dev/null || fail "file differs after chattr -c and a write"
ok "chattr -c: 256 KiB of new writes take $(((b1 - b0) / 8)) blocks; the older packed data still reads"
run umount $M
[ $rc -eq 0 ] || fail "umount"

# 4. fsck, gazectl cat
run "$FSCK" -fn $D
[ $rc -eq 0 ] || fail "fsck.gaze -fn after compressed writes: exit $rc"
"$CTL" cat $D /x >$W/cat 2>$W/err || fail "gazectl cat /x"
cmp $W/cat $T/x >/dev/null || fail "gazectl cat /x differs"
ok "fsck.gaze -fn clean; gazectl cat reads the compressed file"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "remount"
run "$CTL" info $M
r1=$(sed -n 's/^compression:.*ratio \([0-9.]*\)x$/\1/p' $W/out)
run umount $M
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "remount"
run "$CTL" info $M
r2=$(sed -n 's/^compression:.*ratio \([0-9.]*\)x$/\1/p' $W/out)
[ -n "$r1" ] && [ "$r1" = "$r2" ] || fail "the ratio changed across a remount: $r1, $r2"
run diff -r /usr/include/linux $M/inc
[ $rc -eq 0 ] || fail "the copy differs after a remount"
cmp $T/x $M/x >/dev/null || fail "x differs after a remount"
run umount $M
ok "after a remount both read back equal; the filesystem ratio ${r2}x is kept across remounts"

# the mount option: a directory without compression takes compress=
run "$MKFS" -f -O compression $D
[ $rc -eq 0 ] || fail "mkfs.gaze -O compression $D"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount (-O compression)"
mkdir $M/plain $M/inherit
chattr -c $M/plain || fail "chattr -c on a directory"
run umount $M
run mount -t gaze -o compress=zstd:5 $D $M
[ $rc -eq 0 ] || fail "mount -o compress=zstd:5"
grep -q " $M gaze .*compress=zstd:5" /proc/mounts ||
	fail "/proc/mounts does not show compress=zstd:5: $(grep " $M " /proc/mounts)"
cp /usr/include/linux/fs.h $M/plain/f
cp /usr/include/linux/fs.h $M/inherit/f
run mount -o remount,compress=no $M
[ $rc -eq 0 ] || fail "remount,compress=no"
grep " $M gaze " /proc/mounts | grep -q compress= &&
	fail "/proc/mounts still shows compress= after compress=no"
cp /usr/include/linux/fs.h $M/plain/g
run mount -o remount,compress=xz $M
[ $rc -ne 0 ] || fail "remount,compress=xz accepted"
# gazectl set/get: a directory's own setting, passed to new files
run "$CTL" set compression=gzip:9 $M/plain
[ $rc -eq 0 ] || fail "gazectl set compression=gzip:9: $(cat $W/err)"
cp /usr/include/linux/fs.h $M/plain/h
run "$CTL" get $M/plain $M/plain/h $M/inherit $M
grep -q "^$M/plain  *gzip:9  *local" $W/out &&
grep -q "^$M/plain/h  *gzip:9  *inherited" $W/out &&
grep -q "^$M/inherit  *lz4  *inherited" $W/out &&
grep -q "^$M  *lz4  *default" $W/out ||
	fail "gazectl get: $(cat $W/out)"
# the source is recorded, not guessed: a file set to its directory's
# value is local; one made before its directory changed stays inherited
cp /usr/include/linux/fs.h $M/plain/k
run "$CTL" set compression=gzip:9 $M/plain/k
run "$CTL" set compression=zstd:2 $M/plain
run umount $M
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "remount after gazectl set"
run "$CTL" get --json $M/plain/k $M/plain/h $M/plain
tr -d ' \n' <$W/out >$W/one
grep -q '"path":"[^"]*/plain/k","compression":"gzip:9","source":"local"' $W/one &&
grep -q '"path":"[^"]*/plain/h","compression":"gzip:9","source":"inherited"' $W/one &&
grep -q '"path":"[^"]*/plain","compression":"zstd:2","source":"local"' $W/one ||
	fail "gazectl get after a remount: $(cat $W/out)"
run "$CTL" set compression=xz $M/plain
[ $rc -eq 2 ] || fail "gazectl set compression=xz: exit $rc, expected 2"
run "$CTL" set compression=none $M/plain/h
run "$CTL" get --json $M/plain/h
grep -q '"compression": "none"' $W/out || fail "set compression=none: $(cat $W/out)"
run umount $M
for p in plain/f:zstd:5 inherit/f:lz4 plain/g:none plain/h:none; do
	c=$("$CTL" stat --json $D /${p%%:*} |
	    sed -n 's/^ *"compression": "\(.*\)",$/\1/p')
	[ "$c" = "${p#*:}" ] || fail "/${p%%:*} compresses with '$c', expected ${p#*:}"
done
run "$FSCK" -fn $D
[ $rc -eq 0 ] || fail "fsck.gaze -fn after gazectl set: exit $rc"
ok "compress=zstd:5 (shown in /proc/mounts) goes to new files in a directory without compression; one that compresses (lz4) keeps its own; remount,compress=no stops it; compress=xz refused; gazectl set/get compression= (local, inherited, default, none), the source kept across a remount; fsck clean"

# chattr +c and compress= without the feature
run "$MKFS" -f $D
[ $rc -eq 0 ] || fail "mkfs.gaze $D"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount (no compression)"
mkdir $M/d
run chattr +c $M/d
[ $rc -ne 0 ] || fail "chattr +c succeeded without the compression feature"
grep -q 'Operation not supported' $W/err || fail "chattr +c: $(cat $W/err)"
echo data >$M/d/f || fail "the filesystem is not writable after the refusal"
run "$CTL" set compression=lz4 $M/d
[ $rc -eq 1 ] && grep -q "no compression feature" $W/err ||
	fail "gazectl set without the feature: exit $rc: $(cat $W/err)"
run mount -o remount,compress=lz4 $M
[ $rc -ne 0 ] || fail "remount,compress=lz4 accepted without the feature"
run umount $M
run mount -t gaze -o compress=lz4 $D $M
[ $rc -ne 0 ] || fail "mount -o compress=lz4 accepted without the feature"
dmesg | tail -5 | grep -q "has no compression feature" ||
	fail "no message for compress= without the feature"
run "$FSCK" -fn $D
[ $rc -eq 0 ] || fail "fsck after the refused chattr +c"
ok "chattr +c without the feature: Operation not supported, the filesystem unharmed; compress= refused with a message"

# 7. the feature turned on later, offline (gazectl features)
run "$CTL" features $D ^compression
[ $rc -eq 0 ] || fail "gazectl features ^compression (already off): exit $rc: $(cat $W/err)"
run "$CTL" features $D compression
[ $rc -eq 0 ] || fail "gazectl features compression: exit $rc: $(cat $W/err)"
"$CTL" features $D | grep -q compression || fail "gazectl features does not list compression"
run mount -t gaze -o compress=lz4 $D $M
[ $rc -eq 0 ] || fail "mount -o compress=lz4 after gazectl features compression: $(cat $W/err)"
[ "$(cat $M/d/f)" = data ] || fail "the file written before the change"
cp -r /usr/include/linux $M/inc2 || fail "cp -r into the filesystem"
run "$CTL" get $M/inc2/fs.h
grep -q lz4 $W/out || fail "a new file does not compress: $(cat $W/out)"
dropc
run diff -r /usr/include/linux $M/inc2
[ $rc -eq 0 ] || fail "the copy differs after drop_caches"
app=$(du -s --apparent-size -k $M/inc2 | cut -f1)
use=$(du -s -k $M/inc2 | cut -f1)
[ "$use" -lt "$app" ] || fail "du $use KiB, apparent $app KiB: nothing saved"
run umount $M
run "$CTL" features $D ^compression
[ $rc -eq 1 ] && grep -q "cannot be turned off" $W/err ||
	fail "gazectl features ^compression: exit $rc: $(cat $W/err)"
run "$FSCK" -fn $D
[ $rc -eq 0 ] || fail "fsck after compression was turned on: $(cat $W/out)"
ok "gazectl features compression on the unmounted device: then compress=lz4 mounts, new files compress (du $use of $app KiB), the old file reads, fsck clean; ^compression refused"
# 8. rewrites of packed clusters on a full filesystem: a page of random
# data makes its cluster's stream grow by a block or two, so a write is
# either refused at write() (ENOSPC) or written back by fsync; none may
# be accepted and then lost
run "$MKFS" -f --compression zstd:1 $D
[ $rc -eq 0 ] || fail "mkfs.gaze --compression zstd:1 $D"
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "mount (zstd:1)"
cat /usr/include/linux/*.h /usr/include/linux/*.h | head -c 8388608 >$T/p
cp $T/p $M/p || fail "writing a text file of 8 MiB"
head -c 262144 /dev/urandom >$M/spare || fail "writing 256 KiB of random data"
mkdir $M/raw && chattr -c $M/raw || fail "a directory without compression"
sync
dd if=/dev/urandom of=$M/fill bs=1M 2>/dev/null && fail "1 GiB of random data fit in 512 MiB"
sync
dd if=/dev/urandom of=$M/raw/fill bs=4k 2>/dev/null && fail "random data fit without end"
sync
rm $M/spare && sync
python3 - "$M/p" "$T/p" >$W/out 2>&1 <<'PYEOF' || fail "rewriting packed clusters on a full filesystem"
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
exp = bytearray(open(sys.argv[2], "rb").read())
took = refused = 0
for c in range(len(exp) // 65536):
    buf = os.urandom(4096)
    try:
        n = os.pwrite(fd, buf, c * 65536)
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise
        refused += 1
        continue
    exp[c * 65536:c * 65536 + n] = buf[:n]
    took += 1
os.fsync(fd)
os.close(fd)
open(sys.argv[2], "wb").write(exp)
print(took, refused)
PYEOF
set -- $(cat $W/out)
[ "$1" -gt 0 ] && [ "$2" -gt 0 ] ||
	fail "rewrites taken $1, refused $2: the filesystem was not at its edge"
dropc
cmp $T/p $M/p >/dev/null || fail "the rewritten file differs after fsync and drop_caches"
run umount $M
run mount -t gaze $D $M
[ $rc -eq 0 ] || fail "remount after the rewrites"
cmp $T/p $M/p >/dev/null || fail "the rewritten file differs after a remount"
run umount $M
run "$FSCK" -fn $D
[ $rc -eq 0 ] || fail "fsck.gaze -fn after rewrites on a full filesystem: exit $rc"
ok "a full filesystem: of $(($1 + $2)) one-page rewrites of packed clusters $1 were taken and kept (fsync, drop_caches, remount), $2 refused with ENOSPC at write(); fsck clean"

dmesg | grep -E "gaze.*(error|corrupt)" >$W/out && fail "gaze errors in the kernel log"
echo "1..$n"
