/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fixture.h - what the core's GC tests (and test_bigdir) share: an
 * emulated ZNS device of ZB-block zones (mkdev; mkdev_zb for other
 * sizes), a formatted instance, reopen and crash, and file contents
 * derived from (file, generation, block) so that every block
 * read back can be checked against a model.  Header-only; each test
 * includes it once.
 */
#ifndef GAZE_TEST_FIXTURE_H
#define GAZE_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaze_core.h"
#include "gaze_zdev.h"

#ifndef ZB
#define ZB	256u		/* zone size in blocks: 1 MiB zones */
#endif
#define BS	GAZE_BLOCK_SIZE

static u64 rng_state = 0x2545f4914f6cdd1dull;

static inline u64
rnd(void)
{
	u64 x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

static inline struct gaze_dev *
mkdev_zb(u32 nr_zones, u32 zone_blocks)
{
	struct gaze_emu_opts o;
	struct gaze_dev *d = NULL;

	memset(&o, 0, sizeof(o));
	o.nr_zones = nr_zones;
	o.zone_blocks = zone_blocks;
	if (gaze_emu_create(&o, &d)) {
		printf("Bail out! gaze_emu_create failed\n");
		exit(1);
	}
	return d;
}

static inline struct gaze_dev *
mkdev(u32 nr_zones)
{
	return mkdev_zb(nr_zones, ZB);
}

/* the parameters format() uses; a test may change them first */
static inline void
format_params(struct gaze_dev *d, u32 nr_logs, u32 policy,
	      struct gaze_mkfs_params *pp)
{
	struct gaze_mkfs_params p;
	int i;

	memset(&p, 0, sizeof(p));
	p.geo.nr_blocks = d->nr_blocks;
	p.geo.zone_blocks = d->zone_blocks;
	p.geo.zone_cap = d->zone_cap;
	p.geo.nr_zones = d->nr_zones;
	p.geo.model = d->model;
	p.nr_logs = nr_logs;
	p.victim_policy = policy;
	gaze_fmt_feature_defaults(&p.feature_compat, &p.feature_ro_compat,
				  &p.feature_incompat);
	for (i = 0; i < 16; i++)
		p.uuid[i] = (u8)(0x30 + i);
	p.dir_hash_seed[0] = 0x11111111;
	p.mkfs_time = 1700000000;
	strcpy(p.version, "gaze-test");
	*pp = p;
}

static inline struct gaze_fs *
format_with(struct gaze_dev *d, struct gaze_mkfs_params *p)
{
	struct gaze_attr root;
	struct gaze_fs *fs = NULL;
	int err;

	memset(&root, 0, sizeof(root));
	root.mode = 040755;
	root.nlink = 2;
	err = gaze_fs_format(d, p, &root, &fs);
	if (err) {
		printf("Bail out! format: %d\n", err);
		exit(1);
	}
	return fs;
}

static inline struct gaze_fs *
format(struct gaze_dev *d, u32 nr_logs, u32 policy)
{
	struct gaze_mkfs_params p;

	format_params(d, nr_logs, policy, &p);
	return format_with(d, &p);
}

static inline struct gaze_fs *
reopen(struct gaze_fs *fs)
{
	struct gaze_dev *d = fs->dev;
	int err = gaze_fs_close(fs);

	if (err)
		printf("# close: %d\n", err);
	fs = NULL;
	err = gaze_fs_open(d, 0, &fs);
	if (err) {
		printf("Bail out! open: %d\n", err);
		exit(1);
	}
	return fs;
}

/* simulated crash: drop the instance without writing anything */
static inline void
crash(struct gaze_fs *fs)
{
	fs->flags |= GAZE_FS_RDONLY;
	gaze_fs_close(fs);
}

/* gaze_gc_zone under fs->lock, as the module calls it */
static inline int
gc_zone_locked(struct gaze_fs *fs, u32 zone)
{
	int r;

	mutex_lock(&fs->lock);
	r = gaze_gc_zone(fs, zone);
	mutex_unlock(&fs->lock);
	return r;
}

/* block contents of (file, generation, block) */
static inline void
fill(void *buf, u32 file, u32 gen, u64 blk)
{
	u64 *w = buf, x = ((u64)file << 40) ^ ((u64)gen << 20) ^ blk;
	u32 i;

	for (i = 0; i < BS / 8; i++) {
		x += 0x9e3779b97f4a7c15ull;
		w[i] = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
	}
}

static inline int
create(struct gaze_fs *fs, u32 dir, const char *name, u32 mode, u32 *ino)
{
	struct gaze_attr a;

	memset(&a, 0, sizeof(a));
	a.mode = mode;
	a.nlink = GAZE_S_ISDIR(mode) ? 2 : 1;
	return gaze_ns_mknod(fs, dir, name, (u32)strlen(name), &a, ino);
}

/* writes blocks [b0, b0 + n) of a file with generation gen */
static inline int
put(struct gaze_fs *fs, u32 ino, u32 file, u32 gen, u64 b0, u32 n)
{
	u8 *buf = malloc((size_t)n * BS);
	s64 r;
	u32 i;

	for (i = 0; i < n; i++)
		fill(buf + (size_t)i * BS, file, gen, b0 + i);
	r = gaze_file_write(fs, ino, buf, (u64)n * BS, b0 * BS);
	free(buf);
	if (r != (s64)n * BS) {
		printf("# write ino %u blocks %llu+%u: %lld\n", ino,
		       (unsigned long long)b0, n, (long long)r);
		return r < 0 ? (int)r : -EAGAIN;	/* short write */
	}
	return 0;
}

/* 0 if block blk of the file holds gen */
static inline int
check_block(struct gaze_fs *fs, u32 ino, u32 file, u32 gen, u64 blk,
	    u8 *buf, u8 *want)
{
	s64 r = gaze_file_read(fs, ino, buf, BS, blk * BS);

	if (r != BS)
		return -EIO;
	fill(want, file, gen, blk);
	return memcmp(buf, want, BS) ? -EILSEQ : 0;
}

static inline int
zone_state(struct gaze_fs *fs, u32 zone, u32 *valid)
{
	u32 v, s;

	if (gaze_space_zone_stat(fs, zone, &v, &s))
		return -1;
	if (valid)
		*valid = v;
	return (int)s;
}

/* zone of a file's block */
static inline u32
zone_of(struct gaze_fs *fs, u32 ino, u64 blk)
{
	u64 a = 0;

	gaze_file_bmap(fs, ino, blk, &a);
	return (u32)(a / ZB);
}

/* blocks [b0, b0+n) of the file hold gen (gen 0: zeros) */
static inline int
check_range(struct gaze_fs *fs, u32 ino, u32 file, u32 gen, u64 b0, u32 n)
{
	u8 *buf = malloc(BS), *want = malloc(BS);
	int bad = 0;
	u32 i;

	for (i = 0; i < n && !bad; i++) {
		if (gen) {
			bad = !!check_block(fs, ino, file, gen, b0 + i, buf,
					    want);
		} else {
			memset(want, 0, BS);
			bad = gaze_file_read(fs, ino, buf, BS, (b0 + i) * BS) !=
			      BS || memcmp(buf, want, BS);
		}
		if (bad)
			printf("# file %u block %llu: not generation %u\n",
			       file, (unsigned long long)(b0 + i), gen);
	}
	free(buf);
	free(want);
	return bad;
}

typedef void (*hook_fn)(struct gaze_fs *fs, int stage, void *arg);

static u64 gap_total;	/* gap blocks pipe_zone's read stage read */

/*
 * One staged job on `zone` (or the victim for `why` when GAZE_GCP_ANY),
 * its stages in turn, fs->lock taken as the module's threads take it;
 * hook(stage) runs unlocked after stages 1-3, and as 4 between the
 * write stage's device write and its commit (when it has copies in
 * flight).  *victim: the zone.
 */
static inline int
pipe_zone(struct gaze_fs *fs, int why, u32 zone, hook_fn hook, void *arg,
	  u32 *victim)
{
	struct gaze_gcp_batch *b = calloc(1, sizeof(*b));
	u8 *pages = malloc((size_t)GAZE_GCP_BATCH * BS);
	struct gaze_gcp_job job;
	int ret, end;
	u32 i;

	b->gap = malloc(BS);
	b->gap_max = GAZE_GCP_GAP;
	mutex_lock(&fs->lock);
	ret = gaze_gcp_begin(fs, zone, why, &job);
	mutex_unlock(&fs->lock);
	if (ret)
		goto out;
	if (victim)
		*victim = job.zone;
	while (!ret) {
		/* as the module: cold blocks read without fs->lock */
		mutex_lock(&fs->lock);
		ret = gaze_gcp_preread_unlocked(fs, &job, b, GAZE_GCP_BATCH);
		mutex_unlock(&fs->lock);
		if (ret || !b->nr)
			break;
		for (i = 0; i < b->nr; i++)
			b->ent[i].buf = b->ent[i].act == GAZE_GCP_NODE ? NULL :
					pages + (size_t)i * BS;
		if (hook)
			hook(fs, 1, arg);
		gaze_gcp_read(fs, b);
		gap_total += b->gap_blocks;
		if (hook)
			hook(fs, 2, arg);
		mutex_lock(&fs->lock);
		ret = gaze_gcp_prewrite_unlocked(fs, b);
		mutex_unlock(&fs->lock);
		if (hook)
			hook(fs, 3, arg);
		if (ret)
			break;
		/* the module's write stage: the device write unlocked */
		mutex_lock(&fs->lock);
		ret = gaze_gcp_write_begin(fs, b);
		mutex_unlock(&fs->lock);
		gaze_gcp_write_io(fs, b);
		if (hook && b->move)
			hook(fs, 4, arg);
		mutex_lock(&fs->lock);
		ret = ret ? ret : gaze_gcp_write_end(fs, b);
		mutex_unlock(&fs->lock);
		if (job.scanned)
			break;
	}
	mutex_lock(&fs->lock);
	end = gaze_gcp_end(fs, &job);
	mutex_unlock(&fs->lock);
	ret = end;
out:
	free(pages);
	free(b->gap);
	free(b);
	return ret;
}

#endif /* GAZE_TEST_FIXTURE_H */
