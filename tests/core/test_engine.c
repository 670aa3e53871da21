// SPDX-License-Identifier: GPL-2.0
/*
 * test_engine.c - unit tests of the core engine (cache.c, table.c,
 * space.c, node.c, checkpoint.c, fs.c) on the ZNS emulator.
 *
 * Why: these files decide what survives a crash, so they are tested the
 * way they fail: reopen after every change, torn checkpoint packs after
 * power cuts, corrupted packs, a meta ring and checkpoint zones that wrap
 * many times on tiny zones, a full device, and a read-only mount that
 * must not write a single block.  Deterministic: fixed seeds, no clocks
 * in assertions.  TAP on stdout, non-zero exit on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gaze_core.h"
#include "gaze_zdev.h"
#include "../tap.h"

#define ZB	256u		/* small zones: 1 MiB, capacity 256 blocks */
/* a main-area address to store in a test dnode (verifiers check the area) */
#define VADDR(fs, i)	((u64)(fs)->lay.main_zone_start * ZB + (i))

/* ---------------------------------------------------------------- */
/* Helpers                                                           */
/* ---------------------------------------------------------------- */

static u32 next_max_active;	/* open/active limit of the next mkdev */

static struct gaze_dev *
mkdev(u32 nr_zones, u32 zone_blocks, u32 cap, u32 nr_conv)
{
	struct gaze_emu_opts o;
	struct gaze_dev *d = NULL;

	memset(&o, 0, sizeof(o));
	o.max_open = o.max_active = next_max_active;
	next_max_active = 0;
	o.nr_zones = nr_zones;
	o.zone_blocks = zone_blocks;
	o.zone_cap = cap;
	o.nr_conv = nr_conv;
	if (gaze_emu_create(&o, &d))
		return NULL;
	return d;
}

static void
mkparams(const struct gaze_dev *d, struct gaze_mkfs_params *p, u32 nr_logs)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->geo.nr_blocks = d->nr_blocks;
	p->geo.zone_blocks = d->zone_blocks;
	p->geo.zone_cap = d->zone_cap;
	p->geo.nr_zones = d->nr_zones;
	p->geo.nr_conv = d->nr_conv;
	p->geo.max_open = d->max_open;
	p->geo.max_active = d->max_active;
	p->geo.model = d->model;
	p->nr_logs = nr_logs;
	gaze_fmt_feature_defaults(&p->feature_compat, &p->feature_ro_compat,
				  &p->feature_incompat);
	for (i = 0; i < 16; i++)
		p->uuid[i] = (u8)(0x40 + i * 7);
	for (i = 0; i < 4; i++)
		p->dir_hash_seed[i] = 0x1234567u * (u32)(i + 1);
	p->mkfs_time = 1700000000;
	strcpy(p->label, "engine");
	strcpy(p->version, "gaze-test");
}

static void
mkroot(struct gaze_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->mode = 040755;
	a->nlink = 2;
	a->atime = a->mtime = a->ctime = a->crtime = 1700000000;
}

static struct gaze_fs *
format(struct gaze_dev *d, u32 nr_logs)
{
	struct gaze_mkfs_params p;
	struct gaze_attr root;
	struct gaze_fs *fs = NULL;
	int ret;

	mkparams(d, &p, nr_logs);
	mkroot(&root);
	ret = gaze_fs_format(d, &p, &root, &fs);
	if (ret) {
		printf("# format failed: %d\n", ret);
		return NULL;
	}
	return fs;
}

static struct gaze_fs *
reopen(struct gaze_fs *fs, u32 flags)
{
	struct gaze_dev *d = fs->dev;
	struct gaze_fs *nfs = NULL;
	int ret;

	ret = gaze_fs_close(fs);
	if (ret)
		printf("# close failed: %d\n", ret);
	ret = gaze_fs_open(d, flags, &nfs);
	if (ret) {
		printf("# open failed: %d\n", ret);
		return NULL;
	}
	return nfs;
}

/* simulated crash: drop the instance without writing anything */
static void
crash(struct gaze_fs *fs)
{
	fs->flags |= GAZE_FS_RDONLY;
	gaze_fs_close(fs);
}

static void
pattern(void *buf, u64 seed)
{
	u64 *w = buf;
	u32 i;

	for (i = 0; i < GAZE_BLOCK_SIZE / 8; i++)
		w[i] = seed * 0x9e3779b97f4a7c15ull + i;
}

static bool
usage_bit(struct gaze_fs *fs, u64 addr)
{
	u32 zb = le32_to_cpu(fs->sb.zone_blocks);
	u32 zi = (u32)(addr / zb) - fs->lay.main_zone_start;
	u32 off = (u32)(addr % zb);
	struct gaze_mbuf *mb;
	const struct gaze_usage_block *ub;
	bool set;

	if (gaze_table_get(fs, GAZE_TABLE_USAGE,
			   zi * fs->lay.usage_blocks_per_zone +
			   off / GAZE_USAGE_BITS_PER_BLOCK, &mb))
		return false;
	ub = mb->data;
	off %= GAZE_USAGE_BITS_PER_BLOCK;
	set = ub->bits[off / 8] & (1u << (off % 8));
	gaze_mbuf_put(fs, mb);
	return set;
}

static int
summary_of(struct gaze_fs *fs, u64 addr, struct gaze_summary *s)
{
	u32 zb = le32_to_cpu(fs->sb.zone_blocks);
	u32 zi = (u32)(addr / zb) - fs->lay.main_zone_start;
	u32 off = (u32)(addr % zb);
	struct gaze_mbuf *mb;
	const struct gaze_summary_block *sb;
	int ret;

	ret = gaze_table_get(fs, GAZE_TABLE_SUMMARY,
			     zi * fs->lay.summary_blocks_per_zone +
			     off / GAZE_SUMMARY_PER_BLOCK, &mb);
	if (ret)
		return ret;
	sb = mb->data;
	*s = sb->s[off % GAZE_SUMMARY_PER_BLOCK];
	gaze_mbuf_put(fs, mb);
	return 0;
}

/* a direct node owned by the root, with addr[slot] = val */
static int
make_dnode(struct gaze_fs *fs, u32 *nid, u32 slot, u64 val)
{
	struct gaze_mbuf *mb;
	struct gaze_dnode *dn;
	int ret;

	ret = gaze_nid_alloc(fs, nid);
	if (ret)
		return ret;
	ret = gaze_node_new(fs, *nid, GAZE_ROOT_INO, GAZE_MAGIC_DNODE, 0, &mb);
	if (ret)
		return ret;
	dn = mb->data;
	dn->addr[slot] = cpu_to_le64(val);
	gaze_mbuf_put(fs, mb);
	return 0;
}

static u64
dnode_slot(struct gaze_fs *fs, u32 nid, u32 slot, int *err)
{
	struct gaze_mbuf *mb;
	u64 v;

	*err = gaze_node_get(fs, nid, GAZE_MAGIC_DNODE, &mb);
	if (*err)
		return 0;
	v = le64_to_cpu(((struct gaze_dnode *)mb->data)->addr[slot]);
	gaze_mbuf_put(fs, mb);
	return v;
}

/* ---------------------------------------------------------------- */
/* A device wrapper whose flushes can be made to fail                */
/* ---------------------------------------------------------------- */
struct fdev {
	struct gaze_dev d;
	struct gaze_dev *real;
	int fail_flush;		/* the n-th flush from now fails; 0 off */
};

static struct gaze_dev *
fdev_real(struct gaze_dev *d)
{
	return ((struct fdev *)d->priv)->real;
}

static int
fdev_read(struct gaze_dev *d, u64 blk, u32 nr, void *buf)
{
	struct gaze_dev *r = fdev_real(d);

	return r->ops->read(r, blk, nr, buf);
}

static int
fdev_write(struct gaze_dev *d, u64 blk, u32 nr, const void *buf)
{
	struct gaze_dev *r = fdev_real(d);

	return r->ops->write(r, blk, nr, buf);
}

static int
fdev_report(struct gaze_dev *d, u32 zone, u32 nr, struct gaze_zone *z)
{
	struct gaze_dev *r = fdev_real(d);

	return r->ops->report(r, zone, nr, z);
}

static int
fdev_reset(struct gaze_dev *d, u32 zone, u32 nr)
{
	struct gaze_dev *r = fdev_real(d);

	return r->ops->reset(r, zone, nr);
}

static int
fdev_finish(struct gaze_dev *d, u32 zone)
{
	struct gaze_dev *r = fdev_real(d);

	return r->ops->finish(r, zone);
}

static int
fdev_flush(struct gaze_dev *d)
{
	struct fdev *f = d->priv;

	if (f->fail_flush && !--f->fail_flush)
		return -EIO;
	return f->real->ops->flush(f->real);
}

static const struct gaze_dev_ops fdev_ops = {
	.read = fdev_read, .write = fdev_write, .report = fdev_report,
	.reset = fdev_reset, .finish = fdev_finish, .flush = fdev_flush,
};

static struct fdev *
fdev_wrap(struct gaze_dev *real)
{
	struct fdev *f = calloc(1, sizeof(*f));

	f->d = *real;
	f->d.ops = &fdev_ops;
	f->d.priv = f;
	f->real = real;
	return f;
}

/* ---------------------------------------------------------------- */
/* Tests                                                             */
/* ---------------------------------------------------------------- */

static void
test_format_reopen(void)
{
	struct gaze_dev *d = mkdev(64, ZB, ZB, 0);
	struct gaze_fs *fs = format(d, 0);
	struct gaze_super *sb;
	const char *why;
	struct gaze_layout lay;
	u64 addr;

	if (!tap_ok(fs != NULL, "format a 64-zone device"))
		return;
	tap_ok(fs->cp_seq == 1, "mkfs writes checkpoint 1 (seq %llu)",
	       (unsigned long long)fs->cp_seq);
	tap_ok(!gaze_imap_get(fs, GAZE_ROOT_INO,
			      &addr) && GAZE_ADDR_IS_REAL(addr),
	       "root inode has a block after format");
	tap_ok(gaze_nid_claim(fs, GAZE_ROOT_INO) == -EEXIST,
	       "nid 2 is taken by the root");
	lay = fs->lay;
	fs = reopen(fs, 0);
	if (!tap_ok(fs != NULL, "reopen after close"))
		return;
	tap_ok(fs->cp_seq == 2, "close wrote checkpoint 2 (seq %llu)",
	       (unsigned long long)fs->cp_seq);
	tap_ok(le32_to_cpu(fs->cp.flags) & GAZE_CP_UMOUNT,
	       "last checkpoint is marked clean unmount");
	tap_ok(!memcmp(&lay, &fs->lay, sizeof(lay)), "layout is the same");
	tap_ok(fs->lay.main_zone_start + fs->lay.main_zone_count == 64 &&
	       fs->lay.meta_zone_start == 2, "geometry: meta at 2, main to the end");
	tap_ok(le32_to_cpu(fs->cp.mount_count) == 1,
	       "read-write open counts a mount");

	sb = malloc(GAZE_BLOCK_SIZE);
	tap_ok(!d->ops->read(d, 0, 1, sb) && !gaze_fmt_super_verify(sb, 0,
								    &why),
	       "superblock copy 0 verifies");
	tap_ok(!d->ops->read(d, ZB, 1, sb) && !gaze_fmt_super_verify(sb, ZB,
								     &why) &&
	       le32_to_cpu(sb->hdr.index) == 1, "superblock copy 1 verifies");
	free(sb);
	fs = reopen(fs, 0);
	tap_ok(fs && fs->cp_seq == 3 && le32_to_cpu(fs->cp.mount_count) == 2,
	       "second reopen: seq 3, mount count 2");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

static void
test_nodes(void)
{
	struct gaze_dev *d = mkdev(64, ZB, ZB, 0);
	struct gaze_fs *fs = format(d, 0);
	u32 nids[40], pre, i, valid, state;
	u64 a0, a1, old, seq;
	u8 *buf;
	int err, bad = 0;
	struct gaze_mbuf *mb;

	if (!tap_ok(fs != NULL, "nodes: format"))
		return;
	for (i = 0; i < 40; i++) {
		if (make_dnode(fs, &nids[i], i % 504, 0)) {
			bad++;
			break;
		}
		if (nids[i] == GAZE_ROOT_INO || nids[i] < 3)
			bad++;
		if (i && nids[i] == nids[i - 1])
			bad++;
	}
	tap_ok(!bad, "40 nids allocated, distinct, never 0..2");
	tap_ok(!gaze_nid_alloc(fs, &pre),
	       "allocate a nid that is never written");
	tap_ok(!gaze_imap_get(fs, pre, &a0) && a0 == GAZE_ADDR_PREALLOC,
	       "it is PREALLOC in memory");
	fs = reopen(fs, 0);
	if (!tap_ok(fs != NULL, "nodes: reopen"))
		return;
	for (i = 0, bad = 0; i < 40; i++)
		if (dnode_slot(fs, nids[i], i % 504, &err) != 0 || err)
			bad++;
	tap_ok(!bad, "all 40 nodes read back and verify after reopen");
	tap_ok(!gaze_imap_get(fs, pre, &a0) && a0 == 0,
	       "a preallocated nid that was never written is free on disk");
	tap_ok(gaze_node_get(fs, nids[0], GAZE_MAGIC_INODE, &mb) ==
	       -EFSCORRUPTED, "reading a dnode as an inode is refused");

	/* rewrite: the node moves, its old block is invalidated */
	gaze_imap_get(fs, nids[1], &old);
	err = gaze_node_get(fs, nids[1], GAZE_MAGIC_DNODE, &mb);
	if (!err) {
		((struct gaze_dnode *)mb->data)->addr[7] = cpu_to_le64(old);
		gaze_mbuf_dirty(fs, mb);
		err = gaze_node_write(fs, mb);
		gaze_mbuf_put(fs, mb);
	}
	gaze_imap_get(fs, nids[1], &a1);
	tap_ok(!err && a1 != old && GAZE_ADDR_IS_REAL(a1),
	       "rewritten node moved");
	tap_ok(!usage_bit(fs, old) && usage_bit(fs, a1),
	       "old block invalid, new block valid");
	/* free */
	tap_ok(!gaze_nid_free(fs, nids[2]), "free a nid");
	tap_ok(gaze_node_get(fs, nids[2], GAZE_MAGIC_DNODE, &mb) == -ENOENT,
	       "freed node is gone");
	fs = reopen(fs, 0);
	if (!tap_ok(fs != NULL, "nodes: reopen 2"))
		return;
	tap_ok(dnode_slot(fs, nids[1], 7, &err) == old && !err,
	       "rewritten contents persist");
	tap_ok(gaze_node_get(fs, nids[2], GAZE_MAGIC_DNODE, &mb) == -ENOENT,
	       "freed nid stays free after reopen");
	gaze_imap_get(fs, nids[1], &a1);
	gaze_space_zone_stat(fs, (u32)(a1 / ZB), &valid, &state);
	tap_ok(valid > 0 && usage_bit(fs, a1), "node block counted as valid");

	/* cache pressure: many nodes with a tiny cache, balance writes */
	fs->cache_limit = 64 * 1024;
	for (i = 0, bad = 0; i < 300; i++) {
		u32 n;

		if (make_dnode(fs, &n, 3, VADDR(fs, i))) {
			bad++;
			break;
		}
		if (i == 0)
			pre = n;
		if (gaze_fs_balance(fs))
			bad++;
	}
	tap_ok(!bad && gaze_cache_bytes(fs) <= 64 * 1024 + 8192,
	       "balance keeps the cache near its limit (%zu bytes)",
	       gaze_cache_bytes(fs));
	fs = reopen(fs, 0);
	for (i = 0, bad = 0; fs && i < 300; i++)
		if (dnode_slot(fs, pre + i, 3, &err) != VADDR(fs, i) || err)
			bad++;
	tap_ok(fs && !bad, "300 nodes written under cache pressure read back");
	if (!fs)
		goto out;
	/* data blocks dirty only tables: balance has to checkpoint */
	fs->cache_limit = 64 * 1024;
	seq = fs->cp_seq;
	buf = calloc(1, GAZE_BLOCK_SIZE);
	for (i = 0, bad = 0; i < 2000; i++) {
		u64 a;

		if (gaze_data_write(fs, (int)(i % 3), 7, 0, buf, &a) ||
		    gaze_fs_balance(fs))
			bad++;
	}
	free(buf);
	tap_ok(!bad && fs->cp_seq > seq && gaze_cache_bytes(fs) <= 64 * 1024,
	       "balance checkpoints when dirty tables exceed the limit (%llu checkpoints)",
	       (unsigned long long)(fs->cp_seq - seq));
out:
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

struct blk_rec {
	u64	addr;
	u32	owner;
	u16	ofs;
	u8	type;
	u8	live;
};

static void
test_alloc(void)
{
	struct gaze_dev *d = mkdev(64, ZB, ZB, 0);
	struct gaze_fs *fs = format(d, 0);
	struct blk_rec *r;
	u32 n = 0, i, t, bad = 0, zones_used = 0, cnt[64] = { 0 };
	u32 valid, state;
	struct gaze_summary s;
	u8 *buf = malloc(GAZE_BLOCK_SIZE), *rb = malloc(GAZE_BLOCK_SIZE);
	int ret;

	if (!tap_ok(fs != NULL, "alloc: format"))
		return;
	r = calloc(6 * 600, sizeof(*r));
	for (i = 0; i < 600; i++) {
		for (t = 0; t < 6; t++) {
			struct blk_rec *b = &r[n];

			b->owner = 100 + t;
			b->ofs = (u16)(i % 504);
			b->type = (u8)t;
			pattern(buf, n);
			ret = gaze_data_write(fs, (int)t, b->owner, b->ofs, buf,
					      &b->addr);
			if (ret) {
				bad++;
				break;
			}
			b->live = 1;
			n++;
		}
	}
	tap_ok(!bad && n == 3600, "3600 data blocks over 6 logs");
	/* blocks of one log are consecutive inside a zone */
	for (t = 0, bad = 0; t < 6; t++) {
		u64 prev = 0;

		for (i = t; i < n; i += 6) {
			if (prev && r[i].addr / ZB == prev / ZB &&
			    r[i].addr != prev + 1)
				bad++;
			prev = r[i].addr;
		}
	}
	tap_ok(!bad, "each log writes its zone in order");
	for (i = 0; i < n; i++)
		cnt[r[i].addr / ZB]++;
	for (i = 0; i < 64; i++)
		zones_used += cnt[i] ? 1 : 0;
	tap_ok(zones_used >= 15, "blocks spread over %u zones", zones_used);
	fs = reopen(fs, 0);
	if (!tap_ok(fs != NULL, "alloc: reopen"))
		goto out;
	for (i = 0, bad = 0; i < n; i++) {
		if (!usage_bit(fs, r[i].addr))
			bad++;
		if (summary_of(fs, r[i].addr, &s) || s.type != GAZE_SUM_DATA ||
		    le32_to_cpu(s.nid) != r[i].owner ||
		    le16_to_cpu(s.ofs) != r[i].ofs)
			bad++;
		pattern(buf, i);
		if (gaze_block_read(fs, r[i].addr, rb) ||
		    memcmp(buf, rb, GAZE_BLOCK_SIZE))
			bad++;
	}
	tap_ok(!bad, "bitmaps, summaries and data read back after reopen");
	for (i = fs->lay.main_zone_start, bad = 0; i < 64; i++) {
		gaze_space_zone_stat(fs, i, &valid, &state);
		/* data zones: exactly our blocks; node zones hold the root */
		/* (the root's directory blocks share the hot data log) */
		if (cnt[i] && (valid < cnt[i] || valid > cnt[i] + 4))
			bad++;
		if (cnt[i] == ZB && state != GAZE_ZS_FULL)
			bad++;
	}
	tap_ok(!bad, "zone valid counts and states match after reopen");

	/* invalidate every block of one full zone */
	for (t = fs->lay.main_zone_start; t < 64 && cnt[t] != ZB; t++)
		;
	for (i = 0, bad = 0; i < n; i++) {
		if (r[i].addr / ZB != t)
			continue;
		if (gaze_block_invalidate(fs, r[i].addr))
			bad++;
		r[i].live = 0;
	}
	gaze_space_zone_stat(fs, t, &valid, &state);
	tap_ok(!bad && valid == 0 && state == GAZE_ZS_PREFREE,
	       "emptied full zone %u is PREFREE", t);
	i = gaze_space_free_zones(fs);
	printf("# a WARNING is expected next\n");
	fflush(stdout);
	tap_ok(gaze_block_invalidate(fs, (u64)t * ZB) == -EFSCORRUPTED,
	       "invalidating an invalid block is refused");
	tap_ok(!gaze_fs_sync(fs), "checkpoint");
	gaze_space_zone_stat(fs, t, &valid, &state);
	tap_ok(state == GAZE_ZS_PREFREE && gaze_space_free_zones(fs) == i,
	       "the zone is still PREFREE after one checkpoint");
	tap_ok(!gaze_fs_sync(fs), "second checkpoint");
	gaze_space_zone_stat(fs, t, &valid, &state);
	tap_ok(state == GAZE_ZS_FREE && gaze_space_free_zones(fs) == i + 1,
	       "the zone is FREE after the second checkpoint");
	fs = reopen(fs, 0);
	gaze_space_zone_stat(fs, t, &valid, &state);
	tap_ok(fs && state == GAZE_ZS_FREE && valid == 0 && !usage_bit(fs,
								       (u64)t * ZB),
	       "and stays FREE after reopen");
	gaze_fs_close(fs);
out:
	free(r);
	free(buf);
	free(rb);
	gaze_dev_close(d);
}

static void
test_log_map(void)
{
	static const int want2[6] = { 0, 0, 0, 1, 1, 1 };
	static const int want4[6] = { 0, 0, 1, 2, 2, 3 };
	struct gaze_dev *d = mkdev(64, ZB, ZB, 0);
	struct gaze_fs *fs = format(d, 2);
	u64 a, b;
	int t, bad = 0;
	u8 *buf = calloc(1, GAZE_BLOCK_SIZE);

	if (!tap_ok(fs != NULL, "2 logs: format"))
		return;
	for (t = 0; t < 6; t++)
		bad += gaze_log_of_type(fs, t) != want2[t];
	tap_ok(!bad, "2 logs: data types -> 0, node types -> 1");
	gaze_data_write(fs, GAZE_LOG_DATA_HOT, 5, 0, buf, &a);
	gaze_data_write(fs, GAZE_LOG_DATA_COLD, 5, 1, buf, &b);
	tap_ok(b == a + 1, "hot and cold data share the log");
	fs = reopen(fs, 0);
	tap_ok(fs && usage_bit(fs, a) && usage_bit(fs, b), "2 logs: reopen");
	gaze_fs_close(fs);
	gaze_dev_close(d);

	d = mkdev(64, ZB, ZB, 0);
	fs = format(d, 4);
	if (!tap_ok(fs != NULL, "4 logs: format"))
		return;
	for (t = 0, bad = 0; t < 6; t++)
		bad += gaze_log_of_type(fs, t) != want4[t];
	tap_ok(!bad, "4 logs: hot/warm merged, cold separate");
	gaze_fs_close(fs);
	gaze_dev_close(d);
	free(buf);
}

/*
 * Many checkpoints with changing tables on small zones: the checkpoint
 * zones switch and the meta ring wraps several times; a few table blocks
 * are written once at the start and must survive (relocation).
 */
static void
test_wrap(void)
{
	struct gaze_dev *d = mkdev(64, ZB, ZB, 0);
	struct gaze_fs *fs = format(d, 0);
	enum { LIVE = 1500, ITER = 400 };
	struct blk_rec *r = calloc(LIVE, sizeof(*r));
	u32 cold[4], i, k, head, wraps = 0, switches = 0, bad = 0, cpz;
	u8 *buf = calloc(1, GAZE_BLOCK_SIZE);
	u64 seq;
	int err;

	if (!tap_ok(fs != NULL, "wrap: format"))
		return;
	/* cold imap entries far apart: blocks rewritten only once */
	for (i = 0; i < 4; i++) {
		fs->next_nid = 3 + i * 3000;
		make_dnode(fs, &cold[i], 9, VADDR(fs, 42 + i));
	}
	fs->next_nid = 12000;
	head = le32_to_cpu(fs->cp.meta_head_zone);
	cpz = fs->cp_zone;
	for (k = 0; k < ITER && !bad; k++) {
		for (i = 0; i < 60; i++) {
			struct blk_rec *b = &r[(k * 60 + i) % LIVE];

			if (b->live && gaze_block_invalidate(fs, b->addr))
				bad++;
			b->owner = 50 + k;
			b->ofs = (u16)i;
			if (gaze_data_write(fs, (int)(i % 6), b->owner, b->ofs,
					    buf, &b->addr))
				bad++;
			b->live = 1;
		}
		if (gaze_fs_sync(fs)) {
			bad++;
			break;
		}
		if (le32_to_cpu(fs->cp.meta_head_zone) < head)
			wraps++;
		head = le32_to_cpu(fs->cp.meta_head_zone);
		if (fs->cp_zone != cpz)
			switches++;
		cpz = fs->cp_zone;
	}
	tap_ok(!bad, "%u checkpoints with 60 block moves each", k);
	tap_ok(wraps >= 2, "meta ring wrapped %u times (%u meta zones)", wraps,
	       fs->lay.meta_zone_count);
	tap_ok(switches >= 2, "checkpoint zone switched %u times", switches);
	seq = fs->cp_seq;
	fs = reopen(fs, 0);
	if (!tap_ok(fs != NULL && fs->cp_seq == seq + 1, "wrap: reopen"))
		goto out;
	for (i = 0, bad = 0; i < 4; i++)
		if (dnode_slot(fs, cold[i], 9, &err) != VADDR(fs, 42 + i) || err)
			bad++;
	tap_ok(!bad, "table blocks written once survive the wraps");
	for (i = 0, bad = 0; i < LIVE; i++) {
		struct gaze_summary s;

		if (!r[i].live)
			continue;
		if (!usage_bit(fs, r[i].addr) || summary_of(fs, r[i].addr, &s) ||
		    le32_to_cpu(s.nid) != r[i].owner)
			bad++;
	}
	tap_ok(!bad, "live blocks' bitmap and summaries intact after reopen");
	gaze_fs_close(fs);
out:
	free(r);
	free(buf);
	gaze_dev_close(d);
}

/* checkpoint zones conventional so a pack can be corrupted in place */
static void
test_corrupt_pack(void)
{
	struct gaze_dev *d = mkdev(64, ZB, ZB, 2);
	struct gaze_fs *fs = format(d, 0);
	u8 *blk = malloc(GAZE_BLOCK_SIZE);
	u64 seq, at;
	u32 nid, i, sw, n;
	int err;

	if (!tap_ok(fs != NULL, "corrupt: format with conventional cp zones"))
		return;
	/* enough checkpoints to switch zones at least once */
	for (i = 0, n = 0; i < 200; i++) {
		sw = fs->cp_zone;
		if (gaze_fs_sync(fs))
			break;
		n += fs->cp_zone != sw;
	}
	tap_ok(i == 200 && n >= 2, "200 checkpoints, zone switched %u times",
	       n);
	make_dnode(fs, &nid, 1, VADDR(fs, 77));
	TAP_MUST(gaze_fs_sync(fs));
	seq = fs->cp_seq;
	gaze_fs_close(fs);		/* writes seq + 1 */

	/* flip a byte in the newest pack's head */
	fs = NULL;
	gaze_fs_open(d, GAZE_FS_RDONLY, &fs);
	at = le64_to_cpu(fs->cp.hdr.blkaddr);
	tap_ok(fs->cp_seq == seq + 1, "newest pack is seq %llu",
	       (unsigned long long)fs->cp_seq);
	gaze_fs_close(fs);
	d->ops->read(d, at, 1, blk);
	blk[100] ^= 0x20;
	d->ops->write(d, at, 1, blk);
	fs = NULL;
	err = gaze_fs_open(d, 0, &fs);
	tap_ok(!err && fs->cp_seq == seq,
	       "corrupted newest pack: previous checkpoint %llu mounted",
	       (unsigned long long)seq);
	if (err)
		goto out;
	tap_ok(dnode_slot(fs, nid, 1, &err) == VADDR(fs, 77) && !err,
	       "its contents are there");
	fs = reopen(fs, 0);
	tap_ok(fs && fs->cp_seq == seq + 1, "the next checkpoint replaces it");

	/* corrupt the trailer this time */
	at = le64_to_cpu(fs->cp.hdr.blkaddr) + le32_to_cpu(fs->cp.pack_blocks) - 1;
	gaze_fs_close(fs);		/* seq + 2 */
	fs = NULL;
	gaze_fs_open(d, GAZE_FS_RDONLY, &fs);
	at = le64_to_cpu(fs->cp.hdr.blkaddr) + le32_to_cpu(fs->cp.pack_blocks) - 1;
	gaze_fs_close(fs);
	d->ops->read(d, at, 1, blk);
	blk[4000] ^= 1;
	d->ops->write(d, at, 1, blk);
	fs = NULL;
	err = gaze_fs_open(d, GAZE_FS_RDONLY, &fs);
	tap_ok(!err && fs->cp_seq == seq + 1, "corrupted trailer: falls back");
	gaze_fs_close(fs);

	/*
	 * An older pack's head zeroed, and then its trailer broken, with
	 * the newest pack after it in the same zone: the walk goes past
	 * the damage (a scan that stopped there found nothing newer and,
	 * with the damage in the first pack of the zone, no checkpoint).
	 */
	fs = NULL;
	gaze_fs_open(d, 0, &fs);
	TAP_MUST(gaze_fs_sync(fs));
	at = le64_to_cpu(fs->cp.hdr.blkaddr);	/* an older pack from now */
	seq = fs->cp_seq;
	TAP_MUST(gaze_fs_sync(fs));
	gaze_fs_close(fs);			/* seq + 2, same zone */
	memset(blk, 0, GAZE_BLOCK_SIZE);
	d->ops->write(d, at, 1, blk);
	fs = NULL;
	err = gaze_fs_open(d, GAZE_FS_RDONLY, &fs);
	tap_ok(!err && fs->cp_seq == seq + 2 && fs->cp_damaged == 1,
	       "older pack's head zeroed: the newest (%llu) is found past it",
	       (unsigned long long)seq + 2);
	if (!err)
		gaze_fs_close(fs);

	/* superblock copy 0 broken: copy 1 is used */
	d->ops->read(d, 0, 1, blk);
	blk[200] ^= 1;
	d->ops->write(d, 0, 1, blk);
	fs = NULL;
	err = gaze_fs_open(d, GAZE_FS_RDONLY, &fs);
	tap_ok(!err, "bad superblock copy 0: mounted from copy 1");
	gaze_fs_close(fs);
	blk[200] ^= 1;
	d->ops->write(d, 0, 1, blk);
out:
	free(blk);
	gaze_dev_close(d);
}

static void
test_torn_pack(void)
{
	static const unsigned int keep[] = { 10, 30, 50, 70, 90 };
	u32 torn = 0, newer = 0, bad = 0, s, k;

	for (k = 0; k < ARRAY_SIZE(keep); k++) {
		for (s = 0; s < 4; s++) {
			struct gaze_dev *d = mkdev(64, ZB, ZB, 0);
			struct fdev *f = fdev_wrap(d);
			struct gaze_fs *fs = format(&f->d, 0);
			u32 a, b;
			u64 seq;
			int err, ret;

			if (!fs) {
				bad++;
				goto next;
			}
			make_dnode(fs, &a, 0, VADDR(fs, 11));
			TAP_MUST(gaze_fs_sync(fs));
			seq = fs->cp_seq;
			make_dnode(fs, &b, 0, VADDR(fs, 22));
			f->fail_flush = 2;	/* the flush after the pack */
			ret = gaze_fs_sync(fs);
			crash(fs);
			if (ret != -EIO) {
				printf("# sync returned %d\n", ret);
				bad++;
			}
			gaze_emu_power_cut(d, 1000 * k + s, keep[k]);
			fs = NULL;
			err = gaze_fs_open(d, 0, &fs);
			if (err || (fs->cp_seq != seq && fs->cp_seq != seq + 1)) {
				printf("# open: %d\n", err);
				bad++;
				goto next_close;
			}
			if (dnode_slot(fs, a, 0, &err) != VADDR(fs, 11) || err) {
				printf("# node a: %d\n", err);
				bad++;
			}
			if (fs->cp_seq == seq) {
				torn++;
				if (gaze_node_get(fs, b, GAZE_MAGIC_DNODE,
						  &(struct gaze_mbuf *){ 0 }) !=
				    -ENOENT)
					bad++;
			} else {
				newer++;
				if (dnode_slot(fs, b, 0, &err) != VADDR(fs, 22) || err)
					bad++;
			}
			/* the recovered fs takes new checkpoints */
			make_dnode(fs, &b, 0, VADDR(fs, 33));
			fs = reopen(fs, 0);
			if (!fs || dnode_slot(fs, b, 0, &err) != VADDR(fs, 33) ||
			    err) {
				printf("# after recovery: %d\n", err);
				bad++;
			}
next_close:
			gaze_fs_close(fs);
next:
			free(f);
			gaze_dev_close(d);
		}
	}
	tap_ok(!bad,
	       "power cut during checkpoint: previous or complete pack mounted (%u torn, %u complete)",
	       torn, newer);
	tap_ok(torn > 0, "some cuts tore the pack");
}

/* the pack write fails right after a checkpoint zone switch, twice */
static void
test_cp_write_fail(void)
{
	struct gaze_dev *d = mkdev(64, ZB, ZB, 0);
	struct gaze_fs *fs = format(d, 0);
	u64 seq;
	u32 zone, i;
	int r1, r2, err;

	if (!tap_ok(fs != NULL, "cp failure: format"))
		return;
	for (i = 0; i < 500; i++) {
		if (fs->cp_offset + le32_to_cpu(fs->cp.pack_blocks) > ZB)
			break;
		TAP_MUST(gaze_fs_sync(fs));
	}
	seq = fs->cp_seq;
	zone = fs->cp_zone;
	gaze_emu_fail_after(d, 2, 0);	/* superblock copy, then the pack */
	r1 = gaze_fs_sync(fs);
	gaze_emu_fail_after(d, 2, 0);
	r2 = gaze_fs_sync(fs);
	tap_ok(r1 == -EIO && r2 == -EIO && fs->cp_seq == seq,
	       "pack write after a zone switch fails twice");
	crash(fs);
	gaze_emu_power_cut(d, 7, 100);
	fs = NULL;
	err = gaze_fs_open(d, 0, &fs);
	tap_ok(!err && fs->cp_seq == seq && fs->cp_zone == zone,
	       "the committed checkpoint survives the failed switches");
	if (err)
		goto out;
	tap_ok(!gaze_fs_sync(fs) && fs->cp_zone != zone,
	       "the switch then succeeds");
	fs = reopen(fs, 0);
	tap_ok(fs && fs->cp_seq == seq + 2, "and reopens at seq %llu",
	       (unsigned long long)(fs ? fs->cp_seq : 0));
	gaze_fs_close(fs);
out:
	gaze_dev_close(d);
}

/*
 * A device with 8 open/active zones (6 logs + meta + checkpoint): many
 * checkpoints, zone switches and crashes must never need a ninth.
 */
static void
test_active_limit(void)
{
	struct gaze_dev *d;
	struct gaze_fs *fs;
	u8 *buf = calloc(1, GAZE_BLOCK_SIZE);
	u32 k, i, bad = 0;
	u64 addr;

	next_max_active = 8;
	d = mkdev(64, ZB, ZB, 0);
	fs = format(d, 0);
	if (!tap_ok(fs != NULL && fs->lay.nr_logs == 6,
		    "active limit 8: format with 6 logs"))
		goto out;
	for (k = 0; k < 300 && fs; k++) {
		for (i = 0; i < 30; i++)
			if (gaze_data_write(fs, (int)(i % 6), 9, 0, buf, &addr) ||
			    gaze_block_invalidate(fs, addr))
				bad++;
		if (gaze_fs_sync(fs))
			bad++;
		if (k % 50 == 49) {
			crash(fs);
			gaze_emu_power_cut(d, k, 50);
			fs = NULL;
			if (gaze_fs_open(d, 0, &fs))
				bad++;
		}
	}
	tap_ok(fs && !bad,
	       "300 checkpoints and 6 crashes within 8 active zones");
	gaze_fs_close(fs);
out:
	free(buf);
	gaze_dev_close(d);
}

static void
test_enospc(void)
{
	struct gaze_dev *d = mkdev(64, ZB, ZB, 0);
	struct gaze_fs *fs = format(d, 0);
	u8 *buf = calloc(1, GAZE_BLOCK_SIZE);
	u64 n = 0, addr, user, valid;
	int ret;

	if (!tap_ok(fs != NULL, "enospc: format"))
		return;
	user = le64_to_cpu(fs->sb.user_blocks);
	while (!(ret = gaze_data_write(fs, (int)(n % 3), 9, 0, buf, &addr)))
		n++;
	tap_ok(ret == -ENOSPC,
	       "writing until full ends in ENOSPC after %llu blocks (user %llu)",
	       (unsigned long long)n, (unsigned long long)user);
	tap_ok(n + 2 * ZB * 6 >= user && n <= user,
	       "most of the user capacity was usable");
	tap_ok(gaze_space_free_zones(fs) <= le32_to_cpu(fs->sb.reserved_zones) ||
	       gaze_space_free_blocks(fs) == 0, "reserve or capacity reached");
	tap_ok(!gaze_fs_sync(fs), "checkpoint still works when full");
	valid = le64_to_cpu(fs->cp.valid_blocks);
	fs = reopen(fs, 0);
	tap_ok(fs && le64_to_cpu(fs->cp.valid_blocks) == valid,
	       "reopen of a full filesystem");
	gaze_fs_close(fs);
	free(buf);
	gaze_dev_close(d);
}

static void
test_rdonly(void)
{
	struct gaze_dev *d = mkdev(64, ZB, ZB, 0);
	struct gaze_fs *fs = format(d, 0);
	struct gaze_emu_stats a, b;
	struct gaze_mbuf *mb;
	u32 nid;
	u64 addr;
	int err, bad = 0;
	u8 *buf = calloc(1, GAZE_BLOCK_SIZE);

	if (!tap_ok(fs != NULL, "rdonly: format"))
		return;
	make_dnode(fs, &nid, 0, VADDR(fs, 5));
	gaze_data_write(fs, 0, nid, 0, buf, &addr);
	gaze_fs_close(fs);
	gaze_emu_stats(d, &a);
	fs = NULL;
	err = gaze_fs_open(d, GAZE_FS_RDONLY, &fs);
	if (!tap_ok(!err, "read-only open"))
		goto out;
	if (dnode_slot(fs, nid, 0, &err) != VADDR(fs, 5) || err)
		bad++;
	if (gaze_node_new(fs, 900, 2, GAZE_MAGIC_DNODE, 0, &mb) != -EROFS)
		bad++;
	if (gaze_nid_alloc(fs, &nid) != -EROFS)
		bad++;
	if (gaze_data_write(fs, 0, 3, 0, buf, &addr) != -EROFS)
		bad++;
	if (gaze_block_invalidate(fs, addr) != -EROFS)
		bad++;
	if (gaze_cp_write(fs, 0) != -EROFS)
		bad++;
	if (gaze_fs_sync(fs) && gaze_fs_sync(fs) != -EROFS)
		bad++;
	tap_ok(!bad, "write paths return EROFS");
	gaze_fs_close(fs);
	gaze_emu_stats(d, &b);
	tap_ok(a.writes == b.writes && a.appends == b.appends &&
	       a.resets == b.resets && a.finishes == b.finishes &&
	       a.flushes == b.flushes && a.blocks_written == b.blocks_written,
	       "read-only open/use/close wrote nothing (reads %llu)",
	       (unsigned long long)(b.reads - a.reads));
out:
	free(buf);
	gaze_dev_close(d);
}

static void
set_feature(struct gaze_dev *d, int ro, u64 bit)
{
	struct gaze_super *sb = malloc(GAZE_BLOCK_SIZE);
	u32 c;

	for (c = 0; c < 2; c++) {
		d->ops->read(d, (u64)c * ZB, 1, sb);
		if (ro)
			sb->feature_ro_compat = cpu_to_le64(
				le64_to_cpu(sb->feature_ro_compat) ^ bit);
		else
			sb->feature_incompat = cpu_to_le64(
				le64_to_cpu(sb->feature_incompat) ^ bit);
		gaze_fmt_csum_set(sb);
		d->ops->write(d, (u64)c * ZB, 1, sb);
	}
	free(sb);
}

static void
test_features(void)
{
	struct gaze_dev *d = mkdev(64, ZB, ZB, 2);
	struct gaze_fs *fs = format(d, 0);

	if (!tap_ok(fs != NULL, "features: format"))
		return;
	gaze_fs_close(fs);
	set_feature(d, 0, 1ull << 40);
	fs = NULL;
	tap_ok(gaze_fs_open(d, 0, &fs) == -EOPNOTSUPP,
	       "unknown incompat feature refused");
	tap_ok(gaze_fs_open(d, GAZE_FS_RDONLY, &fs) == -EOPNOTSUPP,
	       "unknown incompat feature refused read-only too");
	set_feature(d, 0, 1ull << 40);
	set_feature(d, 1, 1ull << 5);
	tap_ok(gaze_fs_open(d, 0, &fs) == -EROFS,
	       "unknown ro_compat feature: read-write refused");
	tap_ok(gaze_fs_open(d, GAZE_FS_RDONLY, &fs) == 0,
	       "unknown ro_compat feature: read-only allowed");
	gaze_fs_close(fs);
	set_feature(d, 1, 1ull << 5);
	fs = NULL;
	tap_ok(gaze_fs_open(d, 0, &fs) == 0, "features restored: mounts");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

static void
test_geometry_mismatch(void)
{
	struct gaze_dev *d = mkdev(64, ZB, ZB, 0);
	struct gaze_mkfs_params p;
	struct gaze_attr root;
	struct gaze_fs *fs = NULL;

	mkparams(d, &p, 0);
	mkroot(&root);
	p.geo.zone_blocks = 512;
	tap_ok(gaze_fs_format(d, &p, &root, &fs) == -EINVAL,
	       "format refuses a geometry that is not the device's");
	mkparams(d, &p, 0);
	p.geo.nr_zones = 8;
	p.geo.nr_blocks = 8 * ZB;
	tap_ok(gaze_fs_format(d, &p, &root, &fs) == -ENOSPC,
	       "format reports the layout's error (too small)");
	gaze_dev_close(d);
}

/* the 1 TiB format runs in a child so its peak RSS can be measured */
static void
test_big(void)
{
	struct rusage ru;
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct gaze_dev *d = mkdev(4096, 65536, 49152, 0);
		struct gaze_fs *fs;
		struct timespec t0, t1;
		struct mallinfo2 mi;
		int ret;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		fs = format(d, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!fs)
			_exit(1);
		mi = mallinfo2();
		printf("# 1 TiB (4096 x 256 MiB zones, cap 192 MiB): format %.6f s, heap in use %zu KiB\n",
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		       (mi.uordblks + mi.hblkhd) / 1024);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		fs = reopen(fs, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("# 1 TiB: close + open %.6f s\n",
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		ret = fs ? gaze_fs_close(fs) : 1;
		gaze_dev_close(d);
		fflush(stdout);
		_exit(ret ? 1 : 0);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) {
		tap_ok(0, "1 TiB format (fork)");
		return;
	}
	printf("# 1 TiB: child peak RSS %ld KiB\n", ru.ru_maxrss);
	tap_ok(WIFEXITED(status) && !WEXITSTATUS(status),
	       "1 TiB device formats, closes and reopens");
}

/*
 * The module raises the cache limit after mount (a share of RAM): the
 * hash grows with the buffers, lookups stay right across the growth,
 * and gaze_cache_trim (its shrinker) evicts exactly clean buffers.
 */
static void
test_cache_grow(void)
{
	struct gaze_dev *d = mkdev(256, 1024, 1024, 0);
	struct gaze_fs *fs = format(d, 0);
	const u32 n = 17000;
#define GADDR(fs, i)	((u64)(fs)->lay.main_zone_start * 1024 + (i))
	u32 first = 0, i, nid, bad = 0;
	u64 before, freed;
	int err;

	if (!tap_ok(fs != NULL, "cache grow: format"))
		return;
	fs->cache_limit = 512u << 20;
	for (i = 0; i < n && !bad; i++) {
		if (make_dnode(fs, &nid, 5, GADDR(fs, i)))
			bad++;
		if (!i)
			first = nid;
		else if (nid != first + i)
			bad++;
	}
	tap_ok(!bad && gaze_cache_nr_bufs(fs) > n,
	       "%u new nodes stay cached (%llu buffers)", n,
	       (unsigned long long)gaze_cache_nr_bufs(fs));
	for (i = 0; i < n; i++)
		if (dnode_slot(fs, first + i, 5, &err) != GADDR(fs, i) ||
		    err)
			bad++;
	tap_ok(!bad, "every node found after the hash grew");
	gaze_cache_trim(fs, n + 1000);
	tap_ok(gaze_cache_nr_bufs(fs) >= n, "trim leaves dirty buffers alone");
	tap_ok(!gaze_fs_sync(fs), "checkpoint cleans them");
	before = gaze_cache_nr_bufs(fs);
	freed = gaze_cache_trim(fs, 5000);
	tap_ok(freed == 5000 && gaze_cache_nr_bufs(fs) == before - 5000,
	       "trim of 5000 clean buffers frees 5000 (%llu)",
	       (unsigned long long)freed);
	for (i = 0; i < n; i++)
		if (dnode_slot(fs, first + i, 5, &err) != GADDR(fs, i) ||
		    err)
			bad++;
	tap_ok(!bad, "evicted nodes read back from the device (%u bad, err %d)",
	       bad, err);
	gaze_fs_close(fs);
	gaze_dev_close(d);
#undef GADDR
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	gaze_log_level = getenv("GAZE_TEST_VERBOSE") ? GAZE_LOG_DEBUG :
			 GAZE_LOG_ERR - 1;
	test_big();
	test_format_reopen();
	test_nodes();
	test_alloc();
	test_log_map();
	test_wrap();
	test_corrupt_pack();
	test_torn_pack();
	test_cp_write_fail();
	test_active_limit();
	test_enospc();
	test_rdonly();
	test_features();
	test_geometry_mismatch();
	test_cache_grow();
	return tap_done();
}
