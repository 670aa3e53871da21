#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod-posix.sh - runs INSIDE the test guest (tests/vm/run-guest.sh):
# POSIX semantics of gaze.ko on the emulated NVMe ZNS namespace.  Every
# data operation is mirrored on a tmpfs reference tree and compared;
# then umount + mount and everything is checked again (sha256sum of the
# files, stat of the attributes, names, xattrs).
# Environment: GAZE_BUILDDIR, KO (the gaze.ko to load).  TAP on stdout.
set -u
B=$GAZE_BUILDDIR
KO=${KO:-$B/kmod-posix/gaze.ko}
MKFS=$B/mkfs/mkfs.gaze
RTUTIL=$B/tests/roundtrip/rtutil
PU=$B/tests/vm/posixutil
. "$GAZE_SRCDIR/tests/vm/guest/lib.sh"
M=/tmp/gz/mnt
R=/tmp/gz/ref
mkdir -p $M $R
# must succeed
must() { run "$@"; [ $rc -eq 0 ] || fail "$* (exit $rc)"; }
# must fail with errno name $1 (posixutil prints it)
must_err() {
	e=$1
	shift
	run "$@"
	[ $rc -ne 0 ] && grep -q "$e" $W/err || fail "$* should fail with $e (exit $rc)"
}
# same bytes in the mount and the reference
same() { cmp "$M/$1" "$R/$1" >$W/out 2>&1 || fail "$1 differs from the reference"; }
# both trees: run a command with %P replaced by each root
both() {
	for root in $M $R; do
		cmdline=$(echo "$*" | sed "s|%P|$root|g")
		run sh -c "$cmdline"
		[ $rc -eq 0 ] || fail "$cmdline (exit $rc)"
	done
}

for f in "$KO" "$MKFS" "$RTUTIL" "$PU"; do
	[ -x "$f" ] || [ -f "$f" ] || fail "$f is not built"
done
modprobe -a libcrc32c lz4_compress zstd_compress
must insmod "$KO"
gz_device nvme
must "$MKFS" -f $D
must mount -t gaze $D $M
ok "mkfs.gaze and mount -t gaze on $D"

# ---- files: create, write, read, pwrite, O_APPEND ------------------
both 'echo hello > %P/hello && cat %P/hello > /dev/null'
same hello
head -c 3000000 /dev/urandom >$W/rand
both "cp $W/rand %P/rand"
same rand
ok "create, write, read (3 MB random file)"
both "$PU pwrite %P/rand 12345 PWRITTEN && $PU pwrite %P/hello 2 XY && $PU pwrite %P/new 100000 tail"
same rand
same hello
same new
ok "pwrite inside, at the start and past EOF (hole)"
both "$PU append %P/hello appended1 && $PU append %P/hello appended2"
same hello
ok "O_APPEND"

# ---- truncate and holes --------------------------------------------
both "cp $W/rand %P/tr && truncate -s 1000001 %P/tr && truncate -s 2500000 %P/tr && $PU pwrite %P/tr 2400000 after"
same tr
both "truncate -s 4095 %P/new && truncate -s 3 %P/hello"
same new
same hello
ok "truncate down and up (the tail reads zero)"
# truncate(2) by path passes no times (ftruncate does): a new size must
# set mtime and ctime all the same, dirty pages or not, and not a same size
echo "dirty data" >$M/trt
touch -d '2001-01-01 00:00:00' $M/trt
sync
echo more >>$M/trt
touch -m -d '2001-01-01 00:00:00' $M/trt
t0=$(stat -c '%Y %Z' $M/trt)
must python3 -c 'import os, sys; os.truncate(sys.argv[1], 4)' $M/trt
t1=$(stat -c '%Y %Z' $M/trt)
must python3 -c 'import os, sys; os.truncate(sys.argv[1], 100000)' $M/trt
t2=$(stat -c '%Y' $M/trt)
touch -m -d '2001-01-01 00:00:00' $M/trt
must python3 -c 'import os, sys; os.truncate(sys.argv[1], 100000)' $M/trt
t3=$(stat -c '%Y' $M/trt)
[ "${t0%% *}" = 978307200 ] && [ "${t1%% *}" -gt 978307200 ] &&
	[ "${t1#* }" -ge "${t0#* }" ] && [ "$t2" -gt 978307200 ] &&
	[ "$t3" = 978307200 ] ||
	fail "times around truncate(2): $t0 -> $t1 (down) -> $t2 (up), same size: $t3"
ok "truncate(2) by path sets mtime and ctime when the size changes (also over dirty pages), not for the same size"
both "$PU pwrite %P/sparse 104857600 end"
same sparse
[ "$(stat -c %s $M/sparse)" = 104857603 ] || fail "sparse size"
[ "$(stat -c %b $M/sparse)" -lt 64 ] || fail "100 MiB hole allocated: $(stat -c %b $M/sparse) blocks"
ok "100 MiB hole reads zero and allocates nothing ($(stat -c %b $M/sparse) blocks)"
# st_blocks counts dirty pages over holes before writeback, as delayed
# allocation does elsewhere: du is the same before and after a sync
# (fstests generic/422); overwrites, inline files and appends too
head -c 65536 /dev/urandom >$M/da_hole && truncate -s 131072 $M/da_hole
head -c 65536 /dev/urandom >$M/da_over
printf 'tiny' >$M/da_tiny
sync
head -c 65536 /dev/urandom | dd of=$M/da_hole bs=64k seek=1 conv=notrunc status=none
head -c 65536 /dev/urandom | dd of=$M/da_over bs=64k conv=notrunc status=none
head -c 200000 /dev/urandom >>$M/da_tiny
head -c 300000 /dev/urandom >$M/da_new
b0=$(stat -c %b $M/da_hole $M/da_over $M/da_tiny $M/da_new | tr '\n' ' ')
sync
b1=$(stat -c %b $M/da_hole $M/da_over $M/da_tiny $M/da_new | tr '\n' ' ')
[ "$b0" = "$b1" ] && [ "${b1%% *}" = 256 ] ||
	fail "st_blocks before writeback '$b0', after '$b1' (hole, overwrite, inline grown, new)"
ok "st_blocks counts dirty pages over holes before writeback ($b1)"

# ---- directories ----------------------------------------------------
both 'mkdir -p %P/d1/d2/d3 %P/e1 && echo x > %P/d1/d2/f'
run rmdir $M/d1
[ $rc -ne 0 ] || fail "rmdir of a non-empty directory succeeded"
must rmdir $M/e1
[ ! -e $M/e1 ] || fail "e1 still there"
rmdir $R/e1
[ "$(stat -c %h $M/d1)" = 3 ] && [ "$(stat -c %h $M/d1/d2)" = 3 ] ||
	fail "directory link counts: d1 $(stat -c %h $M/d1) d2 $(stat -c %h $M/d1/d2)"
ok "mkdir, rmdir (non-empty refused), link counts"

# ---- rename -----------------------------------------------------------
both 'echo one > %P/r1 && echo two > %P/r2 && mv -f %P/r1 %P/r2'
same r2
[ ! -e $M/r1 ] || fail "r1 still exists"
ok "rename over an existing file"
both 'mv %P/r2 %P/d1/d2/r2 && mv %P/d1/d2/d3 %P/d3moved'
same d1/d2/r2
[ "$(stat -c %h $M/d1/d2)" = 2 ] && [ -d $M/d3moved ] || fail "link count after moving a directory"
[ "$(cd $M/d3moved/.. && pwd -P)" = "$M" ] || fail "'..' of a moved directory"
ok "rename across directories (file and directory, '..' follows)"
must_err EINVAL $PU rename $M/d1 $M/d1/d2/inside
both 'mkdir %P/empty && mkdir %P/full && touch %P/full/x'
must_err ENOTEMPTY $PU rename $M/d3moved $M/full
must $PU rename $M/d3moved $M/empty
$PU rename $R/d3moved $R/empty
[ -d $M/empty ] && [ ! -e $M/d3moved ] || fail "directory over an empty directory"
must_err EISDIR $PU rename $M/hello $M/full
must_err ENOTDIR $PU rename $M/full $M/hello
ok "directory over an empty directory; ENOTEMPTY, EISDIR, ENOTDIR"
both 'echo A > %P/na && echo B > %P/nb'
must_err EEXIST $PU rename $M/na $M/nb noreplace
must $PU rename $M/na $M/nc noreplace
$PU rename $R/na $R/nc noreplace
same nb
same nc
ok "RENAME_NOREPLACE"
must $PU rename $M/nb $M/full exchange
$PU rename $R/nb $R/full exchange
[ -d $M/nb ] && [ -f $M/full ] && [ -f $M/nb/x ] || fail "exchange of a file and a directory"
same full
must $PU rename $M/nc $M/d1/d2/r2 exchange
$PU rename $R/nc $R/d1/d2/r2 exchange
same nc
same d1/d2/r2
must_err ENOENT $PU rename $M/nc $M/missing exchange
ok "RENAME_EXCHANGE (file/dir, across directories)"
must $PU rename $M/nc $M/wo whiteout
mv $R/nc $R/wo
same wo
[ "$(stat -c '%F %t:%T %a %h' $M/nc)" = "character special file 0:0 0 1" ] ||
	fail "whiteout: $(stat -c '%F %t:%T %a %h' $M/nc)"
both 'echo X > %P/wx && echo Y > %P/wy'
must $PU rename $M/wx $M/wy whiteout
mv $R/wx $R/wy
same wy
[ -c $M/wx ] || fail "whiteout over an existing name"
ok "RENAME_WHITEOUT leaves a 0:0 character device"

# ---- hard links and symlinks -----------------------------------------
both 'ln %P/rand %P/d1/randlink && ln -s ../rand %P/d1/sym && ln -s /nonexistent/target %P/dangling'
[ "$(stat -c %h $M/rand)" = 2 ] || fail "nlink after link"
[ "$(stat -c %i $M/rand)" = "$(stat -c %i $M/d1/randlink)" ] || fail "hard link inode"
[ "$(readlink $M/d1/sym)" = ../rand ] || fail "readlink"
cmp $M/d1/sym $R/rand >/dev/null || fail "reading through a symlink"
long=$(head -c 3000 /dev/zero | tr '\0' 'L')
both "ln -s /$long %P/longsym"
[ "$(readlink $M/longsym)" = "/$long" ] || fail "3001-byte symlink target"
ok "hard links, symlinks (short, 3001 bytes, dangling)"
both 'echo gone > %P/unl && ln %P/unl %P/unl2 && rm %P/unl'
[ "$(stat -c %h $M/unl2)" = 1 ] || fail "nlink after unlink"
same unl2
ok "unlink of one of two names"

# ---- readdir ---------------------------------------------------------
mkdir $M/big
(cd $M/big && seq 1 5000 | sed 's/^/entry-with-a-longer-name-/' | xargs touch) ||
	fail "creating 5000 files"
[ "$(ls $M/big | wc -l)" = 5000 ] || fail "ls of 5000 entries: $(ls $M/big | wc -l)"
[ "$(ls $M/big | sort -u | wc -l)" = 5000 ] || fail "duplicate names in readdir"
ok "readdir of 5000 entries"
mkdir $M/small
(cd $M/small && seq 1 300 | xargs touch) || fail "creating 300 files"
must $PU seekdir $M/small
[ "$(cat $W/out)" = 302 ] || fail "seekdir: $(cat $W/out) entries"
ok "telldir/seekdir resume exactly (302 entries)"

# ---- attributes ------------------------------------------------------
both 'echo m > %P/attr && chmod 4751 %P/attr && chown 1234:5678 %P/attr && touch -d @1500000000.123456789 %P/attr'
st() { stat -c '%a %u %g %s %Y %y %X' "$1"; }
[ "$(st $M/attr)" = "$(st $R/attr)" ] || fail "attributes: $(st $M/attr) vs $(st $R/attr)"
touch -m -d @1600000000.987654321 $M/d1
[ "$(stat -c %Y $M/d1)" = 1600000000 ] && stat -c %y $M/d1 | grep -q '\.987654321 ' ||
	fail "directory mtime: $(stat -c %y $M/d1)"
ok "chmod, chown, utimensat with nanoseconds"

# ---- xattrs ------------------------------------------------------------
must "$RTUTIL" xattr $M/attr user.colour blue
must "$RTUTIL" xattr $M/attr trusted.secret s3cr3t
must "$RTUTIL" xattr $M/attr security.label lbl
must "$RTUTIL" xattr $M/d1 user.dir yes
must "$RTUTIL" xattr $M/attr user.empty ""
must $PU getxattr $M/attr user.colour
[ "$(cat $W/out)" = blue ] || fail "getxattr user.colour: $(cat $W/out)"
must_err EEXIST $PU setxattr $M/attr user.colour red create
must_err ENODATA $PU setxattr $M/attr user.nothere red replace
must $PU setxattr $M/attr user.colour green replace
must $PU setxattr $M/attr user.tmp t create
must $PU rmxattr $M/attr user.tmp
must_err ENODATA $PU getxattr $M/attr user.tmp
must_err ENODATA $PU rmxattr $M/attr user.tmp
must $PU listxattr $M/attr
sort $W/out >$W/xl
printf 'security.label\ntrusted.secret\nuser.colour\nuser.empty\n' >$W/xw
cmp -s $W/xl $W/xw || fail "listxattr: $(tr '\n' ' ' <$W/xl)"
ok "xattrs: user, trusted, security; create/replace/remove; list"

# ---- mmap, fsync, > 4 GiB ---------------------------------------------
both 'head -c 8192 /dev/zero > %P/mm'
both "$PU mmapwrite %P/mm 4090 MMAP-SPANS-A-PAGE-BOUNDARY"
same mm
ok "shared writable mmap"
# fstests generic/363: mmap's bytes past EOF are not data once it grows
for how in truncate pwrite pwritein falloc; do
	for st in clean dirty; do
		must $PU eofmmap $M/eof-$how-$st $how $st
	done
done
ok "bytes written through mmap past EOF read as zeros after truncate up, pwrite past EOF and an extending fallocate"
must $PU fsync $M/rand
must $PU fsync $M/d1
ok "fsync of a file and a directory"
must $PU pwrite $M/huge 5368709120 FIVEGIB
must $PU pwrite $M/huge 4294967293 ABCDEF
[ "$(stat -c %s $M/huge)" = 5368709127 ] || fail "size of huge: $(stat -c %s $M/huge)"
checkhuge() {
	[ "$(dd if=$M/huge bs=1 skip=5368709120 count=7 2>/dev/null)" = FIVEGIB ] ||
		fail "reading at 5 GiB $1"
	[ "$(dd if=$M/huge bs=1 skip=4294967293 count=6 2>/dev/null)" = ABCDEF ] ||
		fail "reading across 4 GiB $1"
	[ "$(dd if=$M/huge bs=4096 skip=300000 count=1 2>/dev/null | tr -d '\0' | wc -c)" = 0 ] ||
		fail "the hole in huge is not zero $1"
}
checkhuge ""
ok "a sparse file over 4 GiB"

# ---- orphans: unlink or rename over an open file --------------------------
must $PU orphan $M/orph 2000
ok "open, unlink, write/read through the fd, close: $(cat $W/out)"
both "cp $W/rand %P/ro_new && echo new > %P/ro_src"
must $PU renameopen $M/ro_src $M/ro_new
msg=$(cat $W/out)
mv $R/ro_src $R/ro_new
same ro_new
ok "rename over an open file: readable until close, then freed ($msg)"
must $PU tmpfile $M 1000 -
ok "O_TMPFILE: nlink 0, space held while open, freed at close ($(cat $W/out))"
must $PU tmpfile $M 300 $M/tmp_named
cp $M/tmp_named $R/tmp_named
same tmp_named
must $PU tmpfile $M 1 excl
ok "O_TMPFILE + linkat names it (kept across the remount below); O_EXCL ones cannot be linked"
head -c 8000000 /dev/urandom >$W/held
cp $W/held $M/held
sync
f0=$(stat -f -c %f $M)
exec 3<$M/held
must rm $M/held
sync
echo 3 >/proc/sys/vm/drop_caches
cmp - $W/held <&3 >$W/out 2>&1 || fail "an orphan reads differently after sync + drop_caches"
run mount -o remount,ro $M
[ $rc -ne 0 ] || fail "remount read-only with an open unlinked file succeeded"
f1=$(stat -f -c %f $M)
exec 3<&-
f2=$(stat -f -c %f $M)
[ "$f1" -lt $((f0 + 1000)) ] && [ "$f2" -ge $((f0 + 1900)) ] ||
	fail "orphan space: $f0 before, $f1 open, $f2 closed"
ok "an orphan survives sync and drop_caches, is freed at close (free $f0 -> $f1 -> $f2)"

# ---- fallocate -------------------------------------------------------------
both "cp $W/rand %P/fa"
sync
b0=$(stat -c %b $M/fa)
both "$PU fallocate %P/fa punch 10000 200000"
same fa
b1=$(stat -c %b $M/fa)
[ "$b1" -le $((b0 - 47 * 8)) ] || fail "punch freed too little: $b0 -> $b1 sectors"
[ "$(stat -c %s $M/fa)" = 3000000 ] || fail "punch changed the size"
ok "PUNCH_HOLE zeroes the range and frees its blocks ($b0 -> $b1 sectors)"
must $PU fallocate $M/fa zero 2990000 100000
$PU fallocate $R/fa punch 2990000 100000 && truncate -s 3090000 $R/fa
same fa
must $PU fallocate $M/fa zerokeep 100 5000000
$PU fallocate $R/fa punch 100 5000000
same fa
ok "ZERO_RANGE (growing the file, and with KEEP_SIZE)"
both "$PU fallocate %P/fa alloc 0 5000000 && $PU fallocate %P/fa keep 6000000 100000"
same fa
[ "$(stat -c %s $M/fa)" = 5000000 ] || fail "size after allocate: $(stat -c %s $M/fa)"
must_err ENOSPC $PU fallocate $M/fa alloc 0 $(( ($(stat -f -c %f $M) + 1000) * 4096 ))
[ "$(stat -c %s $M/fa)" = 5000000 ] || fail "a failed allocate changed the size"
ok "allocate: size, KEEP_SIZE, ENOSPC"
# preallocation reserves: all but 16 MiB of the free space goes to one
# KEEP_SIZE range, another file fills the rest, then 8 MiB written into
# the range (past EOF, fsync) must still find room
sync
f0=$(stat -f -c %f $M)
pn=$((f0 - 4096))
must $PU fallocate $M/pa keep 0 $((pn * 4096))
f1=$(stat -f -c %f $M)
[ "$(stat -c %s $M/pa)" = 0 ] && [ "$(stat -c %b $M/pa)" -ge $((pn * 8)) ] &&
	[ "$f1" -le $((f0 - pn)) ] ||
	fail "preallocated $pn blocks: size $(stat -c %s $M/pa), st_blocks $(stat -c %b $M/pa), free $f0 -> $f1"
must $PU fiemap $M/pa
[ "$(cat $W/out)" = "0 0 $((pn * 4096)) 803" ] ||
	fail "fiemap of a preallocated range: $(cat $W/out) (want one UNWRITTEN | UNKNOWN | LAST extent past EOF)"
dd if=/dev/zero of=$M/filler bs=1M status=none 2>/dev/null &&
	fail "filling the rest did not meet ENOSPC"
sync
f2=$(stat -f -c %f $M)
head -c 8388608 /dev/urandom >$W/pa8
must dd if=$W/pa8 of=$M/pa bs=1M seek=4 conv=notrunc,fsync status=none
{ head -c 4194304 /dev/zero; cat $W/pa8; } >$R/pa
same pa
must "$PU" seek $M/pa data 0
[ "$(cat $W/out)" = 4194304 ] || fail "SEEK_DATA over the preallocated blocks: $(cat $W/out)"
must "$PU" seek $M/pa hole 4194304
[ "$(cat $W/out)" = 12582912 ] || fail "SEEK_HOLE after the written part: $(cat $W/out)"
rm $M/filler
must truncate -s 12582912 $M/pa
sync
f3=$(stat -f -c %f $M)
[ "$f3" -ge $((f0 - 3072 - 64)) ] ||
	fail "truncate to the same size left the preallocation past EOF: free $f0 -> $f3"
ok "preallocation reserves: $pn blocks counted in st_blocks and statfs (free $f0 -> $f1), UNWRITTEN in FIEMAP, written in full after another file filled the rest (free $f2), a hole to SEEK_DATA, freed past EOF by truncate (free $f3)"
# collapse and insert range (tmpfs has neither: the reference is cut and
# padded with head/tail)
dd if=/dev/urandom of=$R/sh bs=4096 count=300 status=none
truncate -s 1300000 $R/sh
cp $R/sh $M/sh
must $PU fallocate $M/sh punch 409600 204800
$PU fallocate $R/sh punch 409600 204800
cat $M/sh >/dev/null
must $PU fallocate $M/sh collapse 102400 65536
{ head -c 102400 $R/sh; tail -c +$((102400 + 65536 + 1)) $R/sh; } >$R/sh.t
mv $R/sh.t $R/sh
same sh
must $PU fallocate $M/sh insert 8192 20480
{ head -c 8192 $R/sh; head -c 20480 /dev/zero; tail -c +$((8192 + 1)) $R/sh; } >$R/sh.t
mv $R/sh.t $R/sh
same sh
[ "$(stat -c %s $M/sh)" = "$(stat -c %s $R/sh)" ] || fail "size after collapse and insert"
sync
echo 3 >/proc/sys/vm/drop_caches
same sh
must_err EINVAL $PU fallocate $M/sh collapse 100 4096
must_err EINVAL $PU fallocate $M/sh collapse 4096 $(stat -c %s $M/sh)
must_err EINVAL $PU fallocate $M/sh insert $(( ($(stat -c %s $M/sh) + 4095) / 4096 * 4096 )) 4096
same sh
ok "COLLAPSE_RANGE and INSERT_RANGE (a file with a hole; from the page cache and after drop_caches); unaligned or past the EOF: EINVAL"

# ---- O_DIRECT: reads and writes take the same alignment ---------------------
LBS=$(cat /sys/block/${D#/dev/}/queue/logical_block_size)
must "$PU" dioalign $M/rand
[ "$(cat $W/out)" = "$LBS $LBS" ] || fail "STATX_DIOALIGN: $(cat $W/out), device block $LBS"
must "$PU" dio $M/dio write 0 $((LBS * 4))
must "$PU" dio $M/dio read $LBS $((LBS * 2))
must "$PU" dio $M/dio write $((LBS * 2)) $LBS
[ "$(stat -c %s $M/dio)" = $((LBS * 4)) ] || fail "O_DIRECT write size"
if [ "$LBS" -gt 512 ]; then
	for rw in read write; do
		must_err EINVAL "$PU" dio $M/dio $rw $((LBS - 512)) 512
		must_err EINVAL "$PU" dio $M/dio $rw 0 512
	done
fi
cmp -n $((LBS * 4)) $M/dio /dev/zero >/dev/null 2>&1 && fail "O_DIRECT write lost"
ok "O_DIRECT: STATX_DIOALIGN $LBS/$LBS; aligned reads and writes work, 512-byte ones are EINVAL both ways"

# ---- POSIX ACLs -------------------------------------------------------------
both "umask 027 && echo u > %P/um && mkdir %P/umd"
[ "$(stat -c %a $M/um) $(stat -c %a $M/umd)" = "640 750" ] ||
	fail "umask: $(stat -c %a $M/um) $(stat -c %a $M/umd)"
ok "the umask applies (no default ACL)"
both "echo secret > %P/acl && chmod 000 %P/acl"
both "$PU setacl %P/acl access u::6,u:1000:4,g::0,m::4,o::0"
must $PU getacl $M/acl access
[ "$(cat $W/out)" = "u::6,u:1000:4,g::0,m::4,o::0" ] || fail "getacl: $(cat $W/out)"
[ "$(stat -c %a $M/acl)" = 640 ] || fail "mode after setacl: $(stat -c %a $M/acl)"
must $PU asuser 1000 100 $M/acl
must_err EACCES $PU asuser 1001 100 $M/acl
ok "an access ACL is stored, sets the mode and is enforced (user 1000 reads mode 000 file)"
must chmod 600 $M/acl
chmod 600 $R/acl
must_err EACCES $PU asuser 1000 100 $M/acl
must $PU getacl $M/acl access
[ "$(cat $W/out)" = "$($PU getacl $R/acl access)" ] ||
	fail "ACL after chmod: $(cat $W/out) vs $($PU getacl $R/acl access)"
must chmod 640 $M/acl
chmod 640 $R/acl
must $PU asuser 1000 100 $M/acl
ok "chmod rewrites the ACL mask"
both "mkdir %P/dacl && $PU setacl %P/dacl default u::7,u:1000:5,g::5,m::7,o::0"
both "umask 022 && echo x > %P/dacl/f && mkdir %P/dacl/sub && mknod %P/dacl/fifo p"
for p in dacl/f dacl/sub dacl/fifo; do
	for t in access default; do
		[ $p != dacl/sub ] && [ $t = default ] && continue
		a=$($PU getacl $M/$p $t 2>&1)
		b=$($PU getacl $R/$p $t 2>&1)
		[ "$a" = "$b" ] || fail "inherited $t ACL of $p: $a (tmpfs: $b)"
	done
	[ "$(stat -c %a $M/$p)" = "$(stat -c %a $R/$p)" ] ||
		fail "mode of $p: $(stat -c %a $M/$p) (tmpfs: $(stat -c %a $R/$p))"
done
must $PU asuser 1000 100 $M/dacl/f
ok "a default ACL is inherited by files, directories and fifos like on tmpfs"
must $PU listxattr $M/acl
grep -q '^system.posix_acl_access$' $W/out || fail "listxattr does not show the ACL"
must $PU rmxattr $M/acl system.posix_acl_access
must_err ENODATA $PU getacl $M/acl access
ok "the ACL is listed and can be removed"
both "$PU setacl %P/acl access u::6,u:1000:4,g::0,m::4,o::0"
getacls() {
	for p in acl dacl dacl/f dacl/sub; do
		echo "$p $($PU getacl $M/$p access 2>&1) $($PU getacl $M/$p default 2>&1) $(stat -c %a $M/$p)"
	done
}
getacls >$W/acl.before

# ---- SEEK_DATA / SEEK_HOLE -------------------------------------------------
seekis() {
	must "$PU" seek $1 $2 $3
	[ "$(cat $W/out)" = "$4" ] || fail "seek $2 from $3 in $1: $(cat $W/out), not $4"
}
# sparse: a 100 MiB hole, then 3 bytes
seekis $M/sparse data 0 104857600
seekis $M/sparse hole 0 0
seekis $M/sparse hole 104857600 104857603
seekis $M/sparse data 104857601 104857601
must_err ENXIO "$PU" seek $M/sparse data 104857603
must_err ENXIO "$PU" seek $M/sparse hole 104857603
# dirty pages not yet written back are data; so is an inline file
both "$PU pwrite %P/seekf 1048576 x && $PU pwrite %P/seekf 3145728 y"
seekis $M/seekf data 0 1048576
seekis $M/seekf hole 1048576 1052672
seekis $M/seekf data 1052672 3145728
seekis $M/seekf hole 3145728 3145729
seekis $M/hello data 0 0
seekis $M/hello hole 0 $(stat -c %s $M/hello)
ok "SEEK_DATA / SEEK_HOLE: holes, data, EOF, unwritten dirty pages, inline files"

# ---- FIEMAP: each extent's device blocks hold the file's bytes ---------------
head -c 24576 /dev/urandom >$W/fm
dd if=$W/fm of=$M/fm bs=4096 count=4 status=none
sync
dd if=$W/fm of=$M/fm bs=4096 skip=4 seek=100 count=2 conv=notrunc status=none
must $PU fiemap $M/fm
cp $W/out $W/fm.map
nb=0
last=0
while read -r lo ph len fl; do
	dd if=$D of=$W/fm.dev bs=4096 skip=$((ph / 4096)) count=$((len / 4096)) iflag=direct status=none ||
		fail "reading the device at $ph"
	dd if=$M/fm of=$W/fm.file bs=4096 skip=$((lo / 4096)) count=$((len / 4096)) status=none
	cmp -s $W/fm.dev $W/fm.file ||
		fail "fiemap: the device at $ph does not hold the file's bytes at $lo ($(cat $W/fm.map))"
	[ $((0x$fl & 0x1000)) -ne 0 ] || fail "fiemap: extent at $lo not MERGED ($fl)"
	nb=$((nb + len / 4096))
	last=$fl
done <$W/fm.map
[ $nb = 6 ] && [ $((0x$last & 1)) = 1 ] ||
	fail "fiemap: $nb blocks mapped (want 6), last flags $last: $(cat $W/fm.map)"
[ "$(head -1 $W/fm.map | cut -d' ' -f1)" = 0 ] &&
	[ "$(tail -1 $W/fm.map | cut -d' ' -f1)" -ge 409600 ] ||
	fail "fiemap: logical offsets $(cat $W/fm.map)"
must $PU fiemap $M/fm 0 4096
[ "$(wc -l <$W/out)" = 1 ] && [ $((0x$(cut -d' ' -f4 $W/out) & 1)) = 0 ] ||
	fail "fiemap of the first block: $(cat $W/out) (one extent, not LAST)"
echo inline >$M/fmi
must $PU fiemap $M/fmi
[ "$(wc -l <$W/out)" = 1 ] && [ $((0x$(cut -d' ' -f4 $W/out) & 0x201)) = $((0x201)) ] ||
	fail "fiemap of an inline file: $(cat $W/out) (one DATA_INLINE | LAST extent)"
truncate -s 1G $M/fmh
must $PU fiemap $M/fmh
[ ! -s $W/out ] || fail "fiemap of a hole: $(cat $W/out)"
# FIEMAP_FLAG_XATTR (fstests generic/425): xattrs kept in the inode are
# one DATA_INLINE extent in the inode's block, then a node of their own
touch $M/fmx
must setfattr -n user.small -v gazeinlinexattr $M/fmx
sync
must $PU fiemapx $M/fmx
read -r lo ph len fl <$W/out
[ "$(wc -l <$W/out)" = 1 ] && [ $((0x$fl & 0x201)) = $((0x201)) ] ||
	fail "fiemap of inline xattrs: $(cat $W/out) (one DATA_INLINE | LAST extent)"
dd if=$D bs=4096 skip=$((ph / 4096)) count=1 iflag=direct status=none |
	grep -aq gazeinlinexattr || fail "fiemap of inline xattrs: the block at $ph does not hold them"
i=0
while [ $i -lt 100 ]; do
	must setfattr -n user.big$i -v gazenodexattr$i $M/fmx
	i=$((i + 1))
done
sync
must $PU fiemapx $M/fmx
tail -1 $W/out >$W/out.last
read -r lo ph len fl <$W/out.last
[ "$(wc -l <$W/out)" -le 2 ] && [ "$len" = 4096 ] && [ $((0x$fl & 0x201)) = 1 ] ||
	fail "fiemap of an xattr node: $(cat $W/out) (last: one block, LAST, not inline)"
n=$(dd if=$D bs=4096 skip=$((ph / 4096)) count=1 iflag=direct status=none | tr '\0' '\n' | grep -ac gazenodexattr)
[ "$n" -ge 50 ] || fail "fiemap of an xattr node: the block at $ph holds $n of the 100 values"
ok "FIEMAP_FLAG_XATTR: inline xattrs in the inode's block, then an xattr node of its own"
# delayed allocation: pages dirty over holes have no place until
# writeback; FIEMAP without FIEMAP_FLAG_SYNC (filefrag -v) says so, as
# fstests' _require_scratch_delalloc asks; a block written back before
# them is mapped.  Tried three times: writeback may come first.
da=0
for try in 1 2 3; do
	rm -f $M/fmd
	dd if=$W/fm of=$M/fmd bs=4096 count=2 status=none && sync $M/fmd &&
	dd if=$W/fm of=$M/fmd bs=4096 skip=2 seek=10 count=3 conv=notrunc status=none ||
		fail "writing fmd"
	head -c 65536 /dev/urandom >$M/fmn	# new, too big to stay inline
	filefrag -v $M/fmn >$W/out.n 2>&1
	filefrag -v $M/fmd >$W/out 2>&1
	grep -q '^ *1: *10\.\. *12: .*delalloc' $W/out &&
		grep -q '^ *0: *0\.\. *1: *[1-9]' $W/out &&
		grep -q '^ *0: *0\.\. *15: .*delalloc' $W/out.n && { da=1; break; }
done
[ $da = 1 ] || fail "filefrag -v of dirty pages over a hole: no delalloc extent at 10..12 after a mapped one, or at 0..15 of a new file: $(cat $W/out $W/out.n)"
sync
filefrag -v $M/fmd >$W/out 2>&1
! grep -q delalloc $W/out && grep -q '^ *1: *10\.\. *12: *[1-9]' $W/out ||
	fail "filefrag -v after sync: $(cat $W/out)"
dd if=$M/fmd of=$W/fmd.a bs=4096 skip=10 count=3 status=none
dd if=$W/fm of=$W/fmd.b bs=4096 skip=2 count=3 status=none
cmp -s $W/fmd.a $W/fmd.b || fail "fmd's blocks 10..12 read back different"
rm -f $M/fm $M/fmi $M/fmh $M/fmd $M/fmn
ok "FIEMAP: $(wc -l <$W/fm.map) extents, the device holds the file's bytes at each (synced and dirty data), LAST, inline, holes, delalloc before writeback"

# ---- swap files: refused with a clear message, nothing changed --------------
head -c 8388608 /dev/urandom >$W/swp
must cp $W/swp $M/swp
chmod 600 $M/swp
sync
must mkswap $M/swp
cp $M/swp $W/swp.mk
dmesg -c >/dev/null
run swapon $M/swp
[ $rc -ne 0 ] || { swapoff $M/swp; fail "swapon of a file on gaze succeeded"; }
grep -q "$M/swp" /proc/swaps && fail "the file is in /proc/swaps: $(cat /proc/swaps)"
dmesg | grep -q "swapon .*swp: swap files are not supported" ||
	fail "no message saying why swapon failed: $(cat $W/err) $(dmesg | tail -3)"
cmp -s $M/swp $W/swp.mk || fail "the file changed when swapon was refused"
ok "swapon of a file is refused (exit $rc) with the reason in the kernel log, the file unchanged"

# ---- chattr: FS_IOC_GETFLAGS / SETFLAGS ------------------------------------
# must fail with "Operation not permitted" (shell tools)
must_eperm() {
	run sh -c "$*"
	[ $rc -ne 0 ] && grep -q 'Operation not permitted' $W/err ||
		fail "$* should fail with EPERM (exit $rc)"
}
echo frozen >$M/imm
mkdir $M/immdir
echo inside >$M/immdir/f
must chattr +i $M/imm $M/immdir
must lsattr -d $M/imm $M/immdir
[ "$(grep -c '^----i-' $W/out)" = 2 ] || fail "lsattr after chattr +i: $(cat $W/out)"
must_eperm "echo x >$M/imm"
must_eperm "echo x >>$M/imm"
must_eperm "truncate -s 0 $M/imm"
must_eperm "rm -f $M/imm"
must_eperm "mv $M/imm $M/imm2"
must_eperm "ln $M/imm $M/imm2"
must_eperm "chmod 600 $M/imm"
must_eperm "touch $M/immdir/new"
must_eperm "rm -f $M/immdir/f"
[ "$(cat $M/imm)" = frozen ] && [ "$(cat $M/immdir/f)" = inside ] || fail "immutable contents"
must chattr -i $M/imm $M/immdir
must rm $M/imm
must touch $M/immdir/new
ok "chattr +i: writes, truncate, unlink, rename, link, chmod, creating in the directory refused; -i undoes it"
echo one >$M/flagged
must chattr +a $M/flagged
must sh -c "echo two >>$M/flagged"
must_eperm "echo x >$M/flagged"
must_eperm "truncate -s 0 $M/flagged"
must_eperm "rm -f $M/flagged"
[ "$(cat $M/flagged)" = "$(printf 'one\ntwo')" ] || fail "append-only contents"
must chattr +dA $M/flagged
must lsattr $M/flagged
grep -q '^-----adA' $W/out || fail "lsattr of +a +d +A: $(cat $W/out)"
# statx reports them too, and which ones the filesystem supports
must "$PU" attrs $M/flagged
[ "$(cat $W/out)" = "ad aid" ] || fail "statx attributes of +a +d: $(cat $W/out), not 'ad aid'"
must "$PU" attrs $M/rand
[ "$(cat $W/out)" = "- aid" ] || fail "statx attributes of a plain file: $(cat $W/out), not '- aid'"
run chattr +c $M/rand
grep -q 'Operation not supported' $W/err || fail "chattr +c should be EOPNOTSUPP: $(cat $W/err)"
ok "chattr +a: appends only; +d +A kept and +a +d in statx's attributes; an unsupported flag (+c) is EOPNOTSUPP"

# ---- NFS export: file handles ------------------------------------------
mkdir -p $M/exp/sub/deep
echo "handle data" >$M/exp/f
must "$PU" handle $M/exp/f $W/h.f
must "$PU" handle $M/exp/sub/deep $W/h.deep
hino=$(stat -c %i $M/exp/f)
sync
echo 2 >/proc/sys/vm/drop_caches	# no dentry or inode left cached
must "$PU" byhandle $M $W/h.f
[ "$(cat $W/out)" = "handle data" ] || fail "open_by_handle_at of a file: '$(cat $W/out)'"
must "$PU" byhandle $M $W/h.deep
[ -z "$(grep -v '^\.\.*$' $W/out)" ] || fail "open_by_handle_at of an empty directory lists: $(cat $W/out)"
must umount $M
must mount -t gaze $D $M
must "$PU" byhandle $M $W/h.f
[ "$(cat $W/out)" = "handle data" ] || fail "open_by_handle_at after a remount: '$(cat $W/out)'"
rm $M/exp/f
must_err ESTALE "$PU" byhandle $M $W/h.f
# the number reused by a new file (after a remount: a new generation seed)
reused=no
for i in $(seq 1 64); do
	echo new >$M/exp/n$i
	[ "$(stat -c %i $M/exp/n$i)" = "$hino" ] && { reused=n$i; break; }
done
must_err ESTALE "$PU" byhandle $M $W/h.f
rm -f $M/exp/n*
# a live file's handle with another generation (FILEID_INO32_GEN: the
# inode number, then the generation, after the 8-byte header)
echo live >$M/exp/g
must "$PU" handle $M/exp/g $W/h.g
must "$PU" byhandle $M $W/h.g
b=$(od -An -tu1 -j12 -N1 $W/h.g | tr -d ' ')
printf "$(printf '\\%03o' $(( (b + 1) % 256 )))" |
	dd of=$W/h.g bs=1 seek=12 conv=notrunc status=none
must_err ESTALE "$PU" byhandle $M $W/h.g
# unlinked while open: still opens by handle (as on ext4 and XFS)
echo orphan >$M/exp/o
must "$PU" handle $M/exp/o $W/h.o
exec 3<$M/exp/o
rm $M/exp/o
must "$PU" byhandle $M $W/h.o
[ "$(cat $W/out)" = orphan ] || fail "open_by_handle_at of an unlinked open file: '$(cat $W/out)'"
exec 3<&-
ok "NFS export: open_by_handle_at of a file and a directory with nothing cached and after a remount, and of a file unlinked while open; ESTALE once the file is gone (inode $hino reused: $reused) and for a live file's handle with another generation"

# ---- persistence ---------------------------------------------------------
# what snap records of each name but big/* and huge, a few processes in
# all (one per file costs a third of a second under TCG)
snap_of() {
	(cd $M && find . -path ./big -prune -o ! -path ./huge "$@" -print0 |
		LC_ALL=C sort -z)
}
snap() {
	(snap_of -type f | (cd $M && xargs -0r stat -c '%n F %a %u %g %s %h %Y')
	snap_of -type f | (cd $M && xargs -0r sha256sum)
	snap_of -type l | (cd $M && xargs -0r stat -c '%n L %N')
	snap_of ! -type f ! -type l | (cd $M && xargs -0r stat -c '%n %F %a %h')
	echo "big $(ls $M/big | wc -l) $(ls $M/big | sha256sum | cut -c1-16)"
	echo "attr $(stat -c %y $M/attr)"
	echo "huge $(stat -c %s $M/huge)"
	for x in user.colour trusted.secret security.label user.empty; do
		echo "$x=$($PU getxattr $M/attr $x)"
	done
	echo "user.dir=$($PU getxattr $M/d1 user.dir)"
	lsattr $M/flagged
	) >"$1" 2>&1
}
snap $W/before
umount $M || fail "umount"
must mount -t gaze $D $M
snap $W/after
if ! cmp -s $W/before $W/after; then
	diff $W/before $W/after | head -20 | sed 's/^/# /'
	fail "state differs after umount + mount"
fi
for f in hello rand new tr sparse r2 nb nc wo wy full d1/d2/r2 unl2 mm attr ro_new fa; do
	[ -f $R/$f ] && same $f
done
checkhuge "after remount"
getacls >$W/acl.after
cmp -s $W/acl.before $W/acl.after || fail "ACLs differ after remount: $(cat $W/acl.after)"
[ "$(stat -c %h $M/d1/d2)" = 2 ] && [ "$(stat -c %h $M/rand)" = 2 ] ||
	fail "link counts after remount"
[ "$(dd if=$M/mm bs=1 skip=4090 count=26 2>/dev/null)" = MMAP-SPANS-A-PAGE-BOUNDARY ] ||
	fail "mmap data after remount"
ok "everything survives umount + mount ($(wc -l <$W/before) checks)"

# removal after remount, then once more
must rm -rf $M/big $M/d1 $M/huge
must umount $M
must mount -t gaze $D $M
[ ! -e $M/big ] && [ ! -e $M/d1 ] && [ -f $M/rand ] || fail "removal did not persist"
[ "$(stat -c %h $M/rand)" = 1 ] || fail "nlink of rand after removing its link"
ok "rm -rf persists"
must mount -o remount,noacl $M
grep -q "$M gaze .*noacl" /proc/mounts || fail "noacl not shown: $(grep $M /proc/mounts)"
must_err EOPNOTSUPP $PU setacl $M/rand access u::6,g::4,o::4
must mount -o remount,acl $M
must $PU setacl $M/rand access u::6,g::4,o::4
ok "mount options noacl / acl"

# ---- GAZE_IOC_SHUTDOWN: a crash on demand -----------------------------------
echo kept >$M/sd_def
must $PU shutdown $M default
must_err EROFS $PU pwrite $M/sd_x 0 x
# fsync after a shutdown: EIO, as on ext4 and XFS (fstests generic/623)
must_err "Input/output error" $PU fsync $M/sd_def
run mount -o remount,rw $M
[ $rc -ne 0 ] || fail "a shut down filesystem was remounted read-write"
must umount $M
must mount -t gaze $D $M
[ "$(cat $M/sd_def)" = kept ] || fail "shutdown default lost data"
ok "shutdown (default) writes data and a checkpoint, then refuses writes (EROFS), fsync (EIO) and remount rw"
echo pagecache >$M/sd_log
must $PU shutdown $M logflush
must umount $M
must mount -t gaze $D $M
[ -f $M/sd_log ] && [ "$(stat -c %s $M/sd_log)" = 0 ] ||
	fail "shutdown logflush: sd_log $(stat -c %s $M/sd_log 2>&1)"
ok "shutdown logflush: the checkpoint has the new file, its unwritten data is lost"
# lazytime (fstests generic/622): an atime kept only in memory reaches
# the disk with the next change of the inode (chmod), and with fsync
echo lazy >$M/lz1
echo lazy >$M/lz2
sync
must umount $M
must mount -t gaze -o lazytime,strictatime $D $M
sleep 1.1
cat $M/lz1 $M/lz2 >/dev/null
x1=$(stat -c %X $M/lz1)
x2=$(stat -c %X $M/lz2)
must chmod 600 $M/lz1
must $PU fsync $M/lz2
must $PU shutdown $M logflush
must umount $M
must mount -t gaze $D $M
[ "$(stat -c %X $M/lz1)" = "$x1" ] && [ "$(stat -c %X $M/lz2)" = "$x2" ] ||
	fail "lazytime atime after a shutdown: $(stat -c %X $M/lz1) $(stat -c %X $M/lz2), want $x1 (chmod) $x2 (fsync)"
ok "lazytime: an atime kept in memory is on disk after a chmod of the inode, and after fsync"
head -c 4000000 /dev/urandom >$M/sd_orph
sync
f0=$(stat -f -c %f $M)
exec 3<$M/sd_orph
must rm $M/sd_orph
sync
echo lost >$M/sd_lost
must $PU shutdown $M nologflush
exec 3<&-
must umount $M
must mount -t gaze $D $M
f1=$(stat -f -c %f $M)
[ ! -e $M/sd_lost ] || fail "shutdown nologflush kept a file created after the last checkpoint"
[ "$f1" -ge $((f0 + 900)) ] ||
	fail "the open orphan was not freed at the mount after a shutdown ($f0 -> $f1)"
ok "shutdown nologflush acts as a crash: an open unlinked file is freed at the next mount ($f0 -> $f1)"
# the same crash, then a read-only mount: it frees the orphan too (as
# ext4 and XFS do), so fsck finds nothing left (fstests generic/417)
head -c 4000000 /dev/urandom >$M/sd_orph
sync
f0=$(stat -f -c %f $M)
exec 3<$M/sd_orph
must rm $M/sd_orph
must $PU shutdown $M logflush
exec 3<&-
must umount $M
must mount -t gaze -o ro $D $M
f1=$(stat -f -c %f $M)
must umount $M
run $B/fsck/fsck.gaze -fn $D
[ $rc -eq 0 ] || fail "fsck.gaze -fn after a read-only mount of a crash with an orphan: exit $rc $(cat $W/out)"
[ "$f1" -ge $((f0 + 900)) ] ||
	fail "the read-only mount did not free the orphan ($f0 -> $f1)"
must mount -t gaze $D $M
ok "a read-only mount after a crash frees an open unlinked file; fsck -fn is clean ($f0 -> $f1)"

# ---- fsync without a checkpoint: roll-forward at the next mount ------------
dnew() { dmesg | tail -n +$((d0 + 1)); }	# kernel messages since d0
head -c 3000000 /dev/urandom >$M/rf
sync
head -c 3000000 /dev/urandom >$W/rf.new
must dd if=$W/rf.new of=$M/rf bs=1M count=1 conv=notrunc,fsync status=none
must dd if=$W/rf.new of=$M/rf bs=1M skip=2 seek=2 conv=notrunc,fsync status=none
echo 0123456789 >>$M/rf
must $PU fsync $M/rf
cat $M/rf >$W/rf.want
echo unsynced | dd of=$M/rf bs=1 seek=1100000 conv=notrunc status=none
must $PU shutdown $M nologflush
must umount $M
d0=$(dmesg | wc -l)
must mount -t gaze $D $M
cmp -s $M/rf $W/rf.want || fail "roll-forward: $M/rf differs from its content at the last fsync"
dnew | grep -q "roll-forward: replayed" || fail "roll-forward: the mount replayed nothing"
ok "fsync without a checkpoint: overwrites and an append come back at the next mount ($(dnew | grep -o 'replayed [0-9]* nodes'))"
must $B/gazectl/gazectl info --json $M
rp=$(tr -d ' \n' <$W/out | grep -o '"replayed_nodes":[0-9]*' | cut -d: -f2)
[ -n "$rp" ] && [ "$rp" -gt 0 ] || fail "gazectl info: replayed_nodes '$rp' after a replay"
must dd if=$W/rf.new of=$M/rf bs=4k count=1 seek=50 conv=notrunc,fsync status=none
must $B/gazectl/gazectl info --json $M
rf=$(tr -d ' \n' <$W/out | grep -o '"rollforward":[0-9]*' | cut -d: -f2)
[ -n "$rf" ] && [ "$rf" -ge 1 ] || fail "gazectl info: fsync rollforward '$rf' after an fsync"
ok "gazectl info counts the mount's replay ($rp nodes) and fsyncs by roll-forward ($rf)"
# fsck.gaze -p replays such a chain before it checks, as a mount would
must dd if=$W/rf.new of=$M/rf bs=4k count=3 seek=100 conv=notrunc,fsync status=none
cat $M/rf >$W/rf.want
must $PU shutdown $M nologflush
must umount $M
run $B/fsck/fsck.gaze -p $D
[ $rc -eq 1 ] && grep -q "replayed [0-9]* nodes" $W/out ||
	fail "fsck.gaze -p after an fsync and a crash: exit $rc, $(cat $W/out $W/err)"
run $B/fsck/fsck.gaze -fn $D
[ $rc -eq 0 ] || fail "fsck.gaze -fn after the replay: exit $rc $(cat $W/out)"
d0=$(dmesg | wc -l)
must mount -t gaze $D $M
cmp -s $M/rf $W/rf.want || fail "fsck's replay: $M/rf differs from its content at the last fsync"
dnew | grep -q "roll-forward: replayed" && fail "the mount replayed again after fsck did"
ok "fsck.gaze -p replays the fsync'd nodes (exit 1), -fn then finds it clean, the mount finds the data"
# fsync of one file beside an unlink of an open file elsewhere (the
# orphan list is the checkpoint's alone): that file's nodes alone, no
# checkpoint; a crash keeps it and brings back the file whose unlink was
# not synced
cpseq() { must $B/gazectl/gazectl info --json $M; tr -d ' \n' <$W/out | grep -o '"cp_seq":[0-9]*' | cut -d: -f2; }
# a crash (shutdown nologflush) and umount, fsck.gaze -fn clean after
# WHAT ($1), and the mount again (d0: the kernel messages before it)
crash_fsck_mount()
{
	must $PU shutdown $M nologflush
	must umount $M
	run $B/fsck/fsck.gaze -fn $D
	[ $rc -eq 0 ] || fail "fsck.gaze -fn after $1: exit $rc $(cat $W/out)"
	d0=$(dmesg | wc -l)
	must mount -t gaze $D $M
}
mkdir -p $M/rfd
echo 1 >$M/rfd/old1
sync
c0=$(cpseq)
exec 3<$M/rfd/old1
rm $M/rfd/old1
must dd if=$W/rf.new of=$M/rf bs=4k count=5 seek=200 conv=notrunc,fsync status=none
must dd if=$W/rf.new of=$M/rf bs=4k count=1 seek=700 conv=notrunc,fsync status=none
c1=$(cpseq)
exec 3<&-
must $B/gazectl/gazectl counters --json $M
one=$(tr -d ' \n' <$W/out | grep -o '"fsyncs_one_file":[0-9]*' | cut -d: -f2)
[ "${one:-0}" -ge 2 ] || fail "gazectl counters: fsyncs_one_file is '$one' after two one-file fsyncs ($(cat $W/out))"
cat $M/rf >$W/rf.want
crash_fsck_mount "a crash following one-file fsyncs"
cmp -s $M/rf $W/rf.want || fail "one-file fsync: $M/rf is not as its last fsync left it"
[ "$c1" = "$c0" ] || fail "one-file fsync beside an unlink took checkpoints ($c0 -> $c1)"
[ "$(cat $M/rfd/old1 2>/dev/null)" = 1 ] || fail "an unsynced unlink survived the crash"
dnew | grep -q "roll-forward: replayed" || fail "one-file fsync: the mount replayed nothing"
ok "fsync of one file beside an unlink of an open file: no checkpoint (seq $c0), $one counted by gazectl counters, after a crash the file as fsync left it, the unlinked file back, fsck -fn clean"
# fsync_namespace (mkfs's default): a new file's fsync, and a rename
# followed by the directory's fsync, roll forward with no checkpoint; a
# crash keeps both names and the data
sync
c0=$(cpseq)
mkdir $M/nsd
head -c 20000 /dev/urandom >$W/ns.want
cp $W/ns.want $M/nsd/new
must $PU fsync $M/nsd/new
echo moved >$M/nsd/tmp
must $PU fsync $M/nsd/tmp
mv $M/nsd/tmp $M/nsd/renamed
must $PU fsync $M/nsd
c1=$(cpseq)
echo unsynced >$M/nsd/late
crash_fsck_mount "a crash following namespace fsyncs"
[ "$c1" = "$c0" ] || fail "fsync of a new file and of a directory took checkpoints ($c0 -> $c1)"
cmp -s $M/nsd/new $W/ns.want || fail "a new file fsync'd is not back after a crash"
[ "$(cat $M/nsd/renamed 2>/dev/null)" = moved ] && [ ! -e $M/nsd/tmp ] ||
	fail "a rename followed by the directory's fsync is not back after a crash"
[ ! -e $M/nsd/late ] || fail "an unsynced create survived the crash"
dnew | grep -q "roll-forward: replayed" || fail "namespace fsyncs: the mount replayed nothing"
ok "fsync_namespace: a new file's fsync and a rename with the directory's fsync took no checkpoint (seq $c0); after a crash both names and the data are back, an unsynced create gone, fsck -fn clean"
# a read-only mount on a writable device replays first (as ext4 does)
must dd if=$W/rf.new of=$M/rf bs=4k count=2 seek=300 conv=notrunc,fsync status=none
cat $M/rf >$W/rf.want
must $PU shutdown $M nologflush
must umount $M
d0=$(dmesg | wc -l)
must mount -t gaze -o ro $D $M
cmp -s $M/rf $W/rf.want || fail "read-only mount after a crash: $M/rf is not as fsync left it"
dnew | grep -q "replayed [0-9]* nodes.*before the read-only mount" ||
	fail "the read-only mount did not replay"
must mount -o remount,rw $M
cmp -s $M/rf $W/rf.want || fail "remount rw changed $M/rf"
ok "a read-only mount replays the fsync'd nodes first; remount rw sees the same"
must umount $M

# ---- a data write the device fails (device-mapper error target) ---------------
# The data is lost and fsync says so, once; the filesystem stays
# read-write and consistent, and writes work again when the device does
# (fstests generic/441).  Before, the failed deferred write stopped every
# later write and the next fsync remounted read-only.
export DM_DISABLE_UDEV=1
modprobe dm_mod 2>/dev/null
sz=$(blockdev --getsz $D)
dmt() { dmsetup suspend --nolockfs gzerr && dmsetup load gzerr --table "0 $sz $1" &&
	dmsetup resume gzerr; }
must dmsetup create gzerr --table "0 $sz linear $D 0"
dmsetup mknodes >/dev/null 2>&1
DE=/dev/mapper/gzerr
must "$MKFS" -f $DE
must mount -t gaze $DE $M
head -c 1048576 /dev/urandom >$W/eio.a
must cp $W/eio.a $M/a
sync
must dmt "error"
head -c 1048576 /dev/urandom >$W/eio.b
run dd if=$W/eio.b of=$M/b bs=1M conv=fsync status=none
e1=$rc
must dmt "linear $D 0"
head -c 1048576 /dev/urandom >$W/eio.c
run dd if=$W/eio.c of=$M/c bs=1M conv=fsync status=none
e2=$rc
grep -q "^$DE $M gaze rw" /proc/mounts || fail "not read-write after a failed data write: $(grep $M /proc/mounts)"
[ $e1 -ne 0 ] && [ $e2 -eq 0 ] ||
	fail "fsync: exit $e1 while the device failed writes (want an error), $e2 after (want 0)"
must umount $M
run $B/fsck/fsck.gaze -fn $DE
[ $rc -eq 0 ] || fail "fsck.gaze -fn after a failed data write: exit $rc $(cat $W/out)"
must mount -t gaze $DE $M
cmp -s $M/a $W/eio.a && cmp -s $M/c $W/eio.c || fail "files written before and after the failure differ"
[ "$(stat -c %s $M/b)" = 1048576 ] || fail "the file whose data was lost: size $(stat -c %s $M/b)"
must umount $M
must dmsetup remove gzerr
ok "a failed data write: fsync reports EIO, the filesystem stays read-write, fsck -fn is clean, later writes and earlier files are intact"
must rmmod gaze
ok "umount, rmmod"
echo "1..$n"
exit 0
