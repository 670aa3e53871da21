// SPDX-License-Identifier: GPL-2.0
/*
 * test_batch.c - the module's large-I/O calls into the core on the
 * emulator: gaze_file_write_blocks (batched writeback: runs written with
 * one device write, across zone boundaries, over existing blocks, from an
 * inline file, sizes), gaze_file_write_vec (scattered blocks to
 * consecutive log blocks) and gaze_file_map (runs of consecutive blocks,
 * holes, inline files, node readahead on a cold cache), each checked against gaze_file_read and an
 * in-memory model, before and after close + open.  TAP output.
 */
#define _GNU_SOURCE
#include "gaze_core.h"
#include "gaze_zdev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"

#define BS	GAZE_BLOCK_SIZE
#define FILE_BLOCKS	3000		/* > one 1024-block zone */

static u8 model[FILE_BLOCKS * BS];
static u64 model_size;

static struct gaze_dev *
dev_new(void)
{
	struct gaze_emu_opts o;
	struct gaze_dev *d = NULL;

	memset(&o, 0, sizeof(o));
	o.nr_zones = 64;
	o.zone_blocks = 1024;
	if (gaze_emu_create(&o, &d)) {
		printf("Bail out! gaze_emu_create failed\n");
		exit(1);
	}
	return d;
}

static struct gaze_fs *
fs_new(struct gaze_dev *d)
{
	static const struct gaze_attr root = { .mode = 040755 };
	struct gaze_mkfs_params p;
	struct gaze_fs *fs = NULL;

	memset(&p, 0, sizeof(p));
	p.geo.nr_blocks = d->nr_blocks;
	p.geo.zone_blocks = d->zone_blocks;
	p.geo.zone_cap = d->zone_cap;
	p.geo.nr_zones = d->nr_zones;
	p.geo.max_open = d->max_open;
	p.geo.max_active = d->max_active;
	p.geo.model = d->model;
	gaze_fmt_feature_defaults(&p.feature_compat, &p.feature_ro_compat,
				  &p.feature_incompat);
	p.dirty_limit_pct = 20;
	p.uuid[0] = 7;
	p.dir_hash_seed[0] = 1;
	p.mkfs_time = 1700000000;
	strcpy(p.version, "gaze-test");
	if (gaze_fs_format(d, &p, &root, &fs)) {
		printf("Bail out! gaze_fs_format failed\n");
		exit(1);
	}
	return fs;
}

static void
fill(u8 *p, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed * 131 + i * 7 + (i >> 12));
}

/* writes blocks [fblk, fblk+nr) with pattern seed, size at least size */
static int
wblocks(struct gaze_fs *fs, u32 ino, u64 fblk, u32 nr, u32 seed, u64 size)
{
	u8 *buf = malloc((size_t)nr * BS);
	int err;

	fill(buf, (size_t)nr * BS, seed);
	err = gaze_file_write_blocks(fs, ino, fblk, nr, buf, size);
	if (!err) {
		memcpy(model + fblk * BS, buf, (size_t)nr * BS);
		if (size > model_size)
			model_size = size;
	}
	free(buf);
	return err;
}

static int
compare(struct gaze_fs *fs, u32 ino, const char *what)
{
	static u8 got[FILE_BLOCKS * BS];
	struct gaze_attr a;
	s64 n;

	if (gaze_ns_getattr(fs, ino, &a))
		return tap_ok(0, "%s: getattr", what);
	if (!tap_ok(a.size == model_size, "%s: size %llu (want %llu)", what,
		    (unsigned long long)a.size,
		    (unsigned long long)model_size))
		return 0;
	n = gaze_file_read(fs, ino, got, model_size, 0);
	return tap_ok(n == (s64)model_size && !memcmp(got, model, model_size),
		      "%s: content matches the model", what);
}

/* walks the file with gaze_file_map and checks every run */
static void
check_map(struct gaze_fs *fs, u32 ino, const char *what)
{
	u64 fblk = 0, addr, want, nblocks = (model_size + BS - 1) / BS;
	u32 nr, runs = 0, max_run = 0, bad = 0, i;
	int err = 0;

	while (fblk < nblocks) {
		err = gaze_file_map(fs, ino, fblk, 256, &addr, &nr);
		if (err || !nr)
			break;
		for (i = 0; i < nr; i++) {
			if (gaze_file_bmap(fs, ino, fblk + i, &want) ||
			    want != (addr ? addr + i : 0))
				bad++;
		}
		if (nr > max_run)
			max_run = nr;
		runs++;
		fblk += nr;
	}
	tap_ok(!err && fblk >= nblocks && !bad,
	       "%s: gaze_file_map covers %llu blocks in %u runs (longest %u), "
	       "all agree with gaze_file_bmap", what,
	       (unsigned long long)nblocks, runs, max_run);
}

/*
 * A sparse file with one block in the inode, in a direct node, under an
 * indirect node and under the double indirect one: gaze_file_map walks
 * from 0 to past the last in 8 runs (holes skip missing nodes whole),
 * each agreeing with gaze_file_bmap at both ends.
 */
static void
test_sparse_map(struct gaze_fs *fs)
{
	const u64 dind = (u64)GAZE_ADDRS_PER_INODE +
		GAZE_NR_DIRECT_NODES * (u64)GAZE_ADDRS_PER_DNODE +
		GAZE_NR_INDIRECT_NODES * (u64)GAZE_NIDS_PER_INDIRECT *
		GAZE_ADDRS_PER_DNODE;
	const u64 at[4] = { 3, GAZE_ADDRS_PER_INODE + GAZE_ADDRS_PER_DNODE + 7,
			    dind - 5000, dind + 3 * (u64)GAZE_NIDS_PER_INDIRECT *
			    GAZE_ADDRS_PER_DNODE + 77 };
	struct gaze_attr a = { .mode = 0100644 };
	u64 fblk = 0, addr, want, first, last;
	u8 blk[BS];
	u32 ino, nr, runs = 0, bad = 0, i;
	int err = 0;

	fill(blk, BS, 11);
	TAP_MUST(gaze_ns_mknod(fs, GAZE_ROOT_INO, "sparse", 6, &a, &ino));
	for (i = 0; i < 4; i++)
		TAP_MUST(gaze_file_write_blocks(fs, ino, at[i], 1, blk,
						(at[i] + 1) * BS));
	while (fblk <= at[3] && !err) {
		err = gaze_file_map(fs, ino, fblk, 0xffffffffu, &addr, &nr);
		if (err || !nr)
			break;
		for (i = 0; i < 2; i++) {
			first = i ? fblk + nr - 1 : fblk;
			if (gaze_file_bmap(fs, ino, first, &want) ||
			    want != (addr ? addr + (first - fblk) : 0))
				bad++;
		}
		last = fblk + nr;
		if (last <= at[3] &&
		    (gaze_file_bmap(fs, ino, last, &want) || !want == !addr))
			bad++;		/* the run must end where it changes */
		runs++;
		fblk = last;
	}
	tap_ok(!err && fblk == at[3] + 1 && runs == 8 && !bad,
	       "a sparse file over every level of the map: %u runs to block %llu, %u disagree (%d)",
	       runs, (unsigned long long)fblk, bad, err);
}

/* scattered blocks fblks[0..nr) with pattern seed, size at least size */
static int
wvec(struct gaze_fs *fs, u32 ino, const u64 *fblks, u32 nr, u32 seed,
     u64 size)
{
	u8 *buf = aligned_alloc(BS, (size_t)nr * BS);
	void **bufs = calloc(nr, sizeof(*bufs));
	u32 i;
	int err;

	fill(buf, (size_t)nr * BS, seed);
	for (i = 0; i < nr; i++)
		bufs[i] = buf + (size_t)i * BS;
	err = gaze_file_write_vec(fs, ino, fblks, nr, bufs, size);
	if (!err) {
		for (i = 0; i < nr; i++)
			memcpy(model + fblks[i] * BS, bufs[i], BS);
		if (size > model_size)
			model_size = size;
	}
	free(bufs);
	free(buf);
	return err;
}

/* scattered writeback: random blocks land in consecutive log blocks */
static void
test_vec(struct gaze_fs *fs, struct gaze_dev *d, u32 ino)
{
	static u64 fblks[600];
	struct gaze_emu_stats st0, st1;
	u64 prev = 0, addr, bad = 0, breaks = 0;
	void *one[2];
	u8 blk[BS];
	u32 i, n = 0;
	int err;

	/* every 4th block of 0..2399 (600 blocks) */
	for (i = 0; i < 2400 && n < 600; i += 4)
		fblks[n++] = i;
	gaze_emu_stats(d, &st0);
	err = wvec(fs, ino, fblks, n, 11, 0);
	gaze_emu_stats(d, &st1);
	tap_ok(!err, "600 scattered blocks in one call (%d)", err);
	tap_ok(st1.writes - st0.writes <= 2,
	       "... took %llu device writes", (unsigned long long)
	       (st1.writes - st0.writes));
	for (i = 0; i < n; i++) {
		if (gaze_file_bmap(fs, ino, fblks[i], &addr) || !addr)
			bad++;
		else if (i && addr != prev + 1)
			breaks++;
		prev = addr;
	}
	tap_ok(!bad && breaks <= 1, "... to consecutive log blocks "
	       "(%llu unmapped, %llu breaks)", (unsigned long long)bad,
	       (unsigned long long)breaks);
	compare(fs, ino, "after the scattered write");
	check_map(fs, ino, "after the scattered write");

	/* growing the file from a scattered batch, partial last block */
	fblks[0] = 5;
	fblks[1] = 2700;
	err = wvec(fs, ino, fblks, 2, 12, 2700 * BS + 10);
	tap_ok(!err, "a scattered batch grows the file past a hole (%d)",
	       err);
	compare(fs, ino, "after growing");

	/* bad arguments: not ascending, repeated, size past the last */
	memset(blk, 0, sizeof(blk));
	one[0] = blk;
	one[1] = blk;
	fblks[0] = 9;
	fblks[1] = 8;
	tap_ok(gaze_file_write_vec(fs, ino, fblks, 2, one, 0) == -EINVAL,
	       "blocks out of order are refused");
	fblks[1] = 9;
	tap_ok(gaze_file_write_vec(fs, ino, fblks, 2, one, 0) == -EINVAL,
	       "a repeated block is refused");
	tap_ok(gaze_file_write_vec(fs, ino, fblks, 1, one, 11 * BS) ==
	       -EFBIG, "a size past the last block is refused");
	tap_ok(gaze_file_write_vec(fs, ino, NULL, 1, one, 0) == -EINVAL,
	       "no block list is refused");
	compare(fs, ino, "after the refused calls");
}

/*
 * Node readahead (gaze_node_readahead): a file of RA_BLOCKS blocks has
 * RA_DNODES dnodes; read in order from a cold cache, its map must take
 * far fewer device reads than one per dnode, and a failed readahead read
 * must lose nothing (the dnode is then read alone).
 */
#define RA_BLOCKS	12000u
#define RA_IN		((u32)GAZE_ADDRS_PER_INODE)	/* blocks the inode maps */
#define RA_DN		((u32)GAZE_ADDRS_PER_DNODE)	/* ... each dnode */
#define RA_DNODES	((u32)GAZE_NR_DIRECT_NODES + (RA_BLOCKS - RA_IN - \
			 GAZE_NR_DIRECT_NODES * RA_DN + RA_DN - 1) / RA_DN)

/* maps the whole file in runs; returns the device reads it took, or -1 */
static s64
ra_map_all(struct gaze_fs **fsp, struct gaze_dev *d, u32 ino, u64 a_first,
	   u64 fail_read)
{
	struct gaze_emu_stats st0, st1;
	u64 fblk = 0, addr, end;
	u32 nr;

	/* close + open: a cold cache */
	if (gaze_fs_close(*fsp)) {
		*fsp = NULL;
		return -1;
	}
	*fsp = NULL;
	if (gaze_fs_open(d, 0, fsp))
		return -1;
	gaze_emu_stats(d, &st0);
	if (fail_read)
		gaze_emu_fail_after(d, 0, fail_read);
	while (fblk < RA_BLOCKS) {
		/* runs end at dnode boundaries, so a lookup that needs a
		 * dnode is a run's first and its failure fails the call */
		end = fblk < RA_IN ? RA_IN :
		      RA_IN + ((fblk - RA_IN) / RA_DN + 1) * RA_DN;
		if (gaze_file_map(*fsp, ino, fblk, (u32)min(end - fblk, (u64)256),
				  &addr, &nr) || !nr ||
		    addr != a_first + fblk)
			return -1;
		fblk += nr;
	}
	gaze_emu_stats(d, &st1);
	return (s64)(st1.reads - st0.reads);
}

static void
test_readahead(void)
{
	struct gaze_attr a = { .mode = 0100644 };
	struct gaze_dev *d = dev_new();
	struct gaze_fs *fs = fs_new(d);
	u64 a_first = 0, a_last = 0;
	u8 *buf = malloc((size_t)1000 * BS);
	u32 ino = 0, i, ok;
	s64 reads;
	int err = 0;

	fill(buf, (size_t)1000 * BS, 9);
	err = gaze_ns_mknod(fs, GAZE_ROOT_INO, "ra", 2, &a, &ino);
	for (i = 0; i < RA_BLOCKS && !err; i += 1000)
		err = gaze_file_write_blocks(fs, ino, i, 1000, buf,
					     (u64)(i + 1000) * BS);
	free(buf);
	err = err ? err : gaze_fs_sync(fs);
	gaze_file_bmap(fs, ino, 0, &a_first);
	gaze_file_bmap(fs, ino, RA_BLOCKS - 1, &a_last);
	if (!tap_ok(!err && a_last == a_first + RA_BLOCKS - 1,
		    "readahead: a %u-block file in consecutive blocks (%d)",
		    RA_BLOCKS, err)) {
		gaze_fs_close(fs);
		gaze_dev_close(d);
		return;
	}
	reads = ra_map_all(&fs, d, ino, a_first, 0);
	tap_ok(reads >= 0 && reads < RA_DNODES / 2,
	       "mapping it from a cold cache takes %lld device reads for %u dnodes",
	       (long long)reads, RA_DNODES);
	/*
	 * Fail each of those reads in turn: a read the map needs fails it
	 * (-EIO), a failed readahead run must not: its dnodes are read
	 * again one by one and the map still comes out right.
	 */
	for (i = 1, ok = 0; reads > 0 && i <= (u64)reads; i++) {
		if (ra_map_all(&fs, d, ino, a_first, i) >= 0)
			ok++;
		gaze_emu_fail_after(d, 0, 0);
		if (!fs)
			break;
	}
	tap_ok(ok >= 1 && fs, "a failed readahead read loses nothing (%u of %lld failed reads absorbed)",
	       ok, (long long)reads);
	tap_ok(fs && !gaze_fs_close(fs), "readahead: close");
	gaze_dev_close(d);
}

int
main(void)
{
	struct gaze_attr a = { .mode = 0100644 };
	struct gaze_emu_stats st0, st1;
	struct gaze_dev *d = dev_new();
	struct gaze_fs *fs = fs_new(d);
	u64 addr, a0, a1;
	u32 ino, ino2, nr;
	u8 small[100];
	int err;

	tap_ok(!gaze_ns_mknod(fs, GAZE_ROOT_INO, "f", 1, &a, &ino),
	       "create f");

	/* one big run: one device write per zone touched */
	gaze_emu_stats(d, &st0);
	err = wblocks(fs, ino, 0, 256, 1, 256 * BS);
	gaze_emu_stats(d, &st1);
	tap_ok(!err, "256 blocks in one call");
	tap_ok(st1.writes - st0.writes <= 2,
	       "... took %llu device writes", (unsigned long long)
	       (st1.writes - st0.writes));
	compare(fs, ino, "after 256 blocks");
	check_map(fs, ino, "after 256 blocks");
	gaze_file_bmap(fs, ino, 0, &a0);
	gaze_file_bmap(fs, ino, 255, &a1);
	tap_ok(a1 == a0 + 255, "256 blocks are consecutive on the device");

	/* across zone boundaries, with a partial last block */
	err = wblocks(fs, ino, 256, 2000, 2, 2256 * BS - 1000);
	tap_ok(!err, "2000 more blocks across zones, size not block aligned");
	compare(fs, ino, "after 2256 blocks");
	check_map(fs, ino, "after 2256 blocks");

	/* overwrite in the middle: size unchanged, old blocks freed */
	err = wblocks(fs, ino, 100, 50, 3, 150 * BS);
	tap_ok(!err && model_size == 2256 * BS - 1000,
	       "overwrite 50 blocks in the middle keeps the size");
	compare(fs, ino, "after the overwrite");

	/* a hole, then blocks past it */
	err = wblocks(fs, ino, 2500, 10, 4, 2510 * BS);
	tap_ok(!err, "10 blocks after a hole");
	compare(fs, ino, "with a hole");
	err = gaze_file_map(fs, ino, 2300, 256, &addr, &nr);
	tap_ok(!err && addr == 0 && nr == 200,
	       "gaze_file_map reports the hole 2300..2499 (%d, %llu, %u)",
	       err, (unsigned long long)addr, nr);

	/* bad arguments */
	tap_ok(gaze_file_write_blocks(fs, ino, 0, 1, model, 2 * BS) == -EFBIG,
	       "a size past the last block is refused");

	/* inline file: map says ENODATA; write_blocks converts */
	tap_ok(!gaze_ns_mknod(fs, GAZE_ROOT_INO, "g", 1, &a, &ino2),
	       "create g");
	memset(small, 'x', sizeof(small));
	tap_ok(gaze_file_write(fs, ino2, small, sizeof(small), 0) == 100,
	       "write 100 bytes inline");
	tap_ok(gaze_file_map(fs, ino2, 0, 1, &addr, &nr) == -ENODATA,
	       "gaze_file_map on an inline file gives -ENODATA");
	{
		u8 blk[2 * BS], got[2 * BS];

		fill(blk, sizeof(blk), 9);
		tap_ok(!gaze_file_write_blocks(fs, ino2, 0, 2, blk, 2 * BS),
		       "write_blocks on an inline file");
		tap_ok(gaze_file_read(fs, ino2, got, sizeof(got), 0) ==
		       (s64)sizeof(got) && !memcmp(got, blk, sizeof(got)),
		       "... which now reads back the blocks");
		tap_ok(!gaze_file_map(fs, ino2, 0, 4, &addr, &nr) && addr &&
		       nr == 2, "... and maps as 2 blocks");
	}

	/* a failed device write maps nothing and loses nothing */
	gaze_emu_fail_after(d, 1, 0);
	err = wblocks(fs, ino, 10, 40, 5, 50 * BS);
	tap_ok(err == -EIO, "a failed device write is reported (%d)", err);
	compare(fs, ino, "after the failed write");
	err = wblocks(fs, ino, 10, 40, 6, 50 * BS);
	tap_ok(!err, "the next batch goes to a new zone and succeeds (%d)",
	       err);
	compare(fs, ino, "after the retry");

	test_vec(fs, d, ino);
	test_sparse_map(fs);

	/* durable: close, open, compare again */
	tap_ok(!gaze_fs_close(fs), "close");
	fs = NULL;
	tap_ok(!gaze_fs_open(d, 0, &fs), "open");
	compare(fs, ino, "after close + open");
	check_map(fs, ino, "after close + open");
	tap_ok(!gaze_fs_close(fs), "close again");
	gaze_dev_close(d);
	test_readahead();
	return tap_done();
}
