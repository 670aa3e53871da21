// SPDX-License-Identifier: GPL-2.0
/*
 * test_regress.c - regression tests for core bugs found by gaze-stress
 * and the fuzz harnesses (tests/stress, tests/fuzz), one function each,
 * on the ZNS emulator.  TAP output; exit status 1 on any failure.
 */
#define _GNU_SOURCE
#include "gaze_core.h"
#include "gaze_zdev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"

static struct gaze_dev *
dev_new_conv(u32 zones, u32 conv)
{
	struct gaze_emu_opts o;
	struct gaze_dev *d = NULL;

	memset(&o, 0, sizeof(o));
	o.nr_zones = zones;
	o.nr_conv = conv;
	o.zone_blocks = 256;		/* 1 MiB */
	if (gaze_emu_create(&o, &d)) {
		printf("Bail out! gaze_emu_create failed\n");
		exit(1);
	}
	return d;
}

static struct gaze_dev *
dev_new(u32 zones)
{
	return dev_new_conv(zones, 0);
}

static struct gaze_attr
attr_of(u32 mode)
{
	struct gaze_attr a;

	memset(&a, 0, sizeof(a));
	a.mode = mode;
	a.atime = a.mtime = a.ctime = a.crtime = 1700000000;
	return a;
}

static struct gaze_fs *
fs_new_uuid(struct gaze_dev *d, bool inline_data, u8 uuid0)
{
	struct gaze_mkfs_params p;
	struct gaze_attr root = attr_of(040755);
	struct gaze_fs *fs = NULL;
	int err;

	memset(&p, 0, sizeof(p));
	p.geo.nr_blocks = d->nr_blocks;
	p.geo.zone_blocks = d->zone_blocks;
	p.geo.zone_cap = d->zone_cap;
	p.geo.nr_zones = d->nr_zones;
	p.geo.nr_conv = d->nr_conv;
	p.geo.max_open = d->max_open;
	p.geo.max_active = d->max_active;
	p.geo.model = d->model;
	gaze_fmt_feature_defaults(&p.feature_compat, &p.feature_ro_compat,
				  &p.feature_incompat);
	if (!inline_data)
		p.feature_incompat &= ~GAZE_FEATURE_INCOMPAT_INLINE_DATA;
	p.dirty_limit_pct = 20;
	p.uuid[0] = uuid0;
	p.dir_hash_seed[0] = 0x1234;
	p.mkfs_time = 1700000000;
	strcpy(p.version, "gaze-test");
	err = gaze_fs_format(d, &p, &root, &fs);
	if (err) {
		printf("Bail out! gaze_fs_format: %d\n", err);
		exit(1);
	}
	return fs;
}

static struct gaze_fs *
fs_new(struct gaze_dev *d, bool inline_data)
{
	return fs_new_uuid(d, inline_data, 0x5a);
}

/* frees the instance without writing anything (as after a power cut) */
static void
fs_abandon(struct gaze_fs *fs)
{
	fs->flags |= GAZE_FS_RDONLY;
	gaze_fs_close(fs);
}

/*
 * inode.c gaze_inode_write: a write past EOF that fails on its first
 * block (-ENOSPC) used to set the size to the write's offset anyway.
 */
static void
test_enospc_write_keeps_size(void)
{
	struct gaze_dev *d = dev_new(24);
	struct gaze_fs *fs = fs_new(d, false);
	struct gaze_attr a = attr_of(0100644), st;
	static u8 blk[65536];
	u32 fa, fb;
	u64 off = 0;
	s64 r = 0;
	int err;

	memset(blk, 0xab, sizeof(blk));
	err = gaze_ns_mknod(fs, GAZE_ROOT_INO, "a", 1, &a, &fa);
	err = err ? err : gaze_ns_mknod(fs, GAZE_ROOT_INO, "b", 1, &a, &fb);
	tap_ok(!err, "two files created: %d", err);
	/* fill the filesystem with b */
	while (off < (64ull << 20)) {
		r = gaze_file_write(fs, fb, blk, sizeof(blk), off);
		if (r <= 0)
			break;
		off += r;
	}
	tap_ok(r == -ENOSPC, "filling: -ENOSPC after %llu bytes (%lld)",
	       (unsigned long long)off, (long long)r);
	r = gaze_file_write(fs, fa, blk, 100, 7040);
	tap_ok(r == -ENOSPC, "partial-block write past EOF: -ENOSPC (%lld)",
	       (long long)r);
	err = gaze_ns_getattr(fs, fa, &st);
	tap_ok(!err && st.size == 0, "size still 0 (%llu)",
	       (unsigned long long)st.size);
	r = gaze_file_write(fs, fa, blk, 4096, 8192);
	err = gaze_ns_getattr(fs, fa, &st);
	tap_ok(r == -ENOSPC && !err && st.size == 0,
	       "whole-block write past EOF: %lld, size %llu", (long long)r,
	       (unsigned long long)st.size);
	fs_abandon(fs);
	gaze_dev_close(d);
}

/*
 * namei.c gaze_ns_leave: a writeback failure in gaze_fs_balance after a
 * completed operation used to be returned as the operation's result, so
 * a caller saw unlink fail although the name was gone.
 */
static void
test_balance_error_not_op_result(void)
{
	struct gaze_dev *d = dev_new(32);
	struct gaze_fs *fs = fs_new(d, true);
	struct gaze_attr a = attr_of(0100644);
	u32 ino, got;
	u8 dt;
	int err;

	err = gaze_ns_mknod(fs, GAZE_ROOT_INO, "x", 1, &a, &ino);
	err = err ? err : gaze_fs_sync(fs);
	tap_ok(!err, "file created and checkpointed: %d", err);
	fs->cache_limit = 0;		/* every operation's balance flushes */
	gaze_emu_fail_after(d, 1, 0);	/* and its first write fails */
	err = gaze_ns_unlink(fs, GAZE_ROOT_INO, "x", 1);
	tap_ok(err == 0, "unlink succeeds although writeback failed: %d", err);
	err = gaze_ns_lookup(fs, GAZE_ROOT_INO, "x", 1, &got, &dt);
	tap_ok(err == -ENOENT, "the name is gone: %d", err);
	fs_abandon(fs);
	gaze_dev_close(d);
}

/*
 * fs.c fs_rf_possible: the first fsync of a mount after a clean unmount
 * was made durable by roll-forward, but recovery follows no chain after
 * a checkpoint with GAZE_CP_UMOUNT (format.md section 17): a crash then
 * lost what that fsync had returned for.  It commits a checkpoint now;
 * later fsyncs of the mount roll forward again.
 */
static void
test_fsync_after_clean_unmount(void)
{
	struct gaze_dev *d = dev_new(24);
	struct gaze_fs *fs = fs_new(d, true);
	struct gaze_attr a = attr_of(0100644);
	char buf[16] = "";
	u32 ino;
	s64 r;
	int err;

	err = gaze_ns_mknod(fs, GAZE_ROOT_INO, "f", 1, &a, &ino);
	tap_ok(!err, "file created: %d", err);
	err = gaze_fs_close(fs);		/* clean unmount */
	fs = NULL;
	err = err ? err : gaze_fs_open(d, 0, &fs);
	tap_ok(!err, "reopened after a clean unmount: %d", err);
	if (err)
		return;
	r = gaze_file_write(fs, ino, "first fsync", 11, 0);
	err = r == 11 ? gaze_fs_fsync(fs) : -EIO;
	tap_ok(!err && fs->stat[GAZE_STAT_FSYNC_CP] == 1 && !fs->stat[GAZE_STAT_FSYNC_RF],
	       "the first fsync after a clean unmount commits a checkpoint (%d)",
	       err);
	r = gaze_file_write(fs, ino, "later fsync", 11, 0);
	err = r == 11 ? gaze_fs_fsync(fs) : -EIO;
	tap_ok(!err && fs->stat[GAZE_STAT_FSYNC_RF] == 1,
	       "the next one rolls forward (%d)", err);
	fs_abandon(fs);				/* crash */
	fs = NULL;
	err = gaze_fs_open(d, 0, &fs);
	r = err ? err : gaze_file_read(fs, ino, buf, 11, 0);
	tap_ok(r == 11 && !memcmp(buf, "later fsync", 11),
	       "after a crash both fsyncs' data is there (%lld: %.11s)",
	       (long long)r, buf);
	if (!err)
		gaze_fs_close(fs);
	gaze_dev_close(d);
}

/*
 * checkpoint.c gaze_cp_walk_zone: mkfs cannot reset a conventional
 * checkpoint zone, so the packs of the filesystem made there before stay
 * behind the new one's.  With sequence numbers above the new ones they
 * were taken for a damaged newest pack (fsck: GZ0012 "filesystem uuid
 * mismatch", found by mkfs -s in the guest on null_blk).  A head of
 * another filesystem is the end of the log.
 */
static void
test_cp_earlier_fs_in_conv_zone(void)
{
	struct gaze_dev *d = dev_new_conv(24, 4);
	struct gaze_fs *fs = fs_new_uuid(d, true, 0x11);
	struct gaze_attr a = attr_of(0100644);
	char name[8];
	u32 ino, i;
	int err = 0;

	for (i = 0; i < 6 && !err; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		err = gaze_ns_mknod(fs, GAZE_ROOT_INO, name, strlen(name),
				    &a, &ino);
		err = err ? err : gaze_fs_close(fs);
		fs = NULL;
		err = err ? err : gaze_fs_open(d, 0, &fs);
	}
	tap_ok(!err && fs->cp_seq > 3,
	       "the first filesystem committed checkpoints up to seq %llu (%d)",
	       fs ? (unsigned long long)fs->cp_seq : 0ULL, err);
	if (fs)
		gaze_fs_close(fs);
	fs = fs_new_uuid(d, true, 0x22);	/* mkfs over it */
	err = gaze_fs_close(fs);
	fs = NULL;
	err = err ? err : gaze_fs_open(d, 0, &fs);
	tap_ok(!err && !fs->cp_damaged,
	       "the new filesystem opens with no damaged checkpoint (%d, %u)",
	       err, fs ? fs->cp_damaged : 0);
	if (fs)
		gaze_fs_close(fs);
	gaze_dev_close(d);
}

/*
 * namei.c gaze_file_dirty_blocks (stat's count of dirty pages over
 * holes): it used to read the file's map nodes, under fs->lock, charged
 * to whoever ran stat (fstests generic/563).  It reads nothing now: under
 * a node not in the cache, blocks below the inode's size count as
 * mapped and those past it as holes; with the nodes cached it is exact.
 */
static void
test_dirty_blocks_no_reads(void)
{
	struct gaze_dev *d = dev_new(24);
	struct gaze_fs *fs = fs_new(d, false);
	struct gaze_attr a = attr_of(0100644);
	struct gaze_emu_stats s0, s1;
	static u8 blk[4096];
	/* the whole file, and 100 blocks past its end */
	const u64 runs[4] = { 0, 2000, 2100, 100 };
	u64 blocks, holes, fblk, addr;
	u32 ino, nr;
	s64 r = 0;
	int err;

	memset(blk, 0x3c, sizeof(blk));
	err = gaze_ns_mknod(fs, GAZE_ROOT_INO, "sparse", 6, &a, &ino);
	/* blocks 0-999 and 1500-1999: a hole of 500 under map nodes */
	for (fblk = 0; fblk < 2000 && !err && r >= 0; fblk++)
		if (fblk < 1000 || fblk >= 1500)
			r = gaze_file_write(fs, ino, blk, sizeof(blk),
					    fblk * sizeof(blk));
	tap_ok(!err && r == sizeof(blk), "a sparse file of 1500 blocks: %d %lld",
	       err, (long long)r);
	err = gaze_fs_close(fs);
	fs = NULL;
	err = err ? err : gaze_fs_open(d, 0, &fs);	/* a cold cache */
	if (err) {
		tap_ok(0, "reopen: %d", err);
		gaze_dev_close(d);
		return;
	}
	/* the inode is read at lookup, as the module's iget reads it */
	err = gaze_ns_getattr(fs, ino, &a);
	gaze_emu_stats(d, &s0);
	err = err ? err : gaze_file_dirty_blocks(fs, ino, runs, 2,
						 2000 * sizeof(blk), &blocks,
						 &holes);
	gaze_emu_stats(d, &s1);
	tap_ok(!err && s1.reads == s0.reads,
	       "after a mount: no device read (%llu) (%d)",
	       (unsigned long long)(s1.reads - s0.reads), err);
	tap_ok(holes == 100 && blocks > 1500,
	       "after a mount: %llu holes (want 100: the 500 under nodes not in the cache count as mapped), %llu blocks",
	       (unsigned long long)holes, (unsigned long long)blocks);
	for (fblk = 0; fblk < 2000 && !err; fblk += nr)
		err = gaze_file_map(fs, ino, fblk, 2000 - fblk, &addr, &nr);
	gaze_emu_stats(d, &s0);
	err = err ? err : gaze_file_dirty_blocks(fs, ino, runs, 2,
						 2000 * sizeof(blk), &blocks,
						 &holes);
	gaze_emu_stats(d, &s1);
	tap_ok(!err && s1.reads == s0.reads && holes == 600,
	       "map nodes cached: %llu holes (want 600), %llu reads (%d)",
	       (unsigned long long)holes,
	       (unsigned long long)(s1.reads - s0.reads), err);
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

int
main(void)
{
	test_dirty_blocks_no_reads();
	test_enospc_write_keeps_size();
	test_balance_error_not_op_result();
	test_fsync_after_clean_unmount();
	test_cp_earlier_fs_in_conv_zone();
	return tap_done();
}
