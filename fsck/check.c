// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - the checks of fsck.gaze.
 *
 * Why it reads the device itself instead of opening the filesystem
 * through the core: the core refuses what it cannot use (a bad table
 * block, an inconsistent zone), and a checker must go on and say what
 * else is wrong.  It still uses the core's block verifiers
 * (kernel/core/format.c) and layout function, so "valid" means the same
 * thing here as at mount.
 *
 * Order: superblocks; checkpoint packs (newest valid one, noting a newer
 * invalid one); the four tables; pass 1, every node in imap order (read
 * ahead sequentially): each inode and the map, xattr and directory
 * blocks it owns, every main-area block claimed in an ownership bitmap
 * and its summary entry compared; pass 2, the namespace from the root
 * (entries, hashes, types, '..'), unreachable inodes, link counts;
 * pass 3, the usage bitmaps, zone counts and states and the checkpoint's
 * counters against what the tree owns.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsck.h"

#define BIT_TEST(map, i)	((map)[(i) >> 3] & (1u << ((i) & 7)))
#define BIT_SET(map, i)		((map)[(i) >> 3] |= (u8)(1u << ((i) & 7)))
#define BIT_CLR(map, i)		((map)[(i) >> 3] &= (u8)~(1u << ((i) & 7)))

static void *
fsck_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 64;
	p = realloc(arr, *cap * size);
	if (!p) {
		fprintf(stderr, "fsck.gaze: out of memory\n");
		exit(FSCK_EXIT_ERROR);
	}
	return p;
}

static void
fsck_add_slot(struct fsck *f, u32 ino, u32 node, u32 ofs, u32 what)
{
	f->slots = fsck_grow(f->slots, &f->cap_slots, f->nr_slots,
			     sizeof(*f->slots));
	f->slots[f->nr_slots++] = (struct fsck_slot){ .node = node,
		.ofs = ofs, .ino = ino, .what = what };
}

static void
fsck_add_ent(struct fsck *f, u32 dir, const char *name, u32 len, u32 ino,
	     u8 dtype, u8 action)
{
	struct fsck_ent *e;

	f->ents = fsck_grow(f->ents, &f->cap_ents, f->nr_ents,
			    sizeof(*f->ents));
	e = &f->ents[f->nr_ents++];
	memset(e, 0, sizeof(*e));
	e->dir = dir;
	e->ino = ino;
	e->dtype = dtype;
	e->action = action;
	e->len = (u16)len;
	memcpy(e->name, name, len);
}

static struct fsck_ifix *
fsck_ifix_get(struct fsck *f, u32 ino)
{
	struct fsck_ifix *x;

	if (nid_has(f, ino, NF_FIXINO)) {
		size_t i;

		for (i = f->nr_ifix; i-- > 0;)
			if (f->ifix[i].ino == ino)
				return &f->ifix[i];
	}
	f->ifix = fsck_grow(f->ifix, &f->cap_ifix, f->nr_ifix,
			    sizeof(*f->ifix));
	x = &f->ifix[f->nr_ifix++];
	memset(x, 0, sizeof(*x));
	x->ino = ino;
	x->size = ~0ull;
	x->blocks = ~0ull;
	x->nentries = ~0u;
	x->compr = ~0ull;
	nid_flags_set(f, ino, NF_FIXINO);
	return x;
}

/* ---------------------------------------------------------------- */
/* Set-up                                                            */
/* ---------------------------------------------------------------- */

void
fsck_init(struct fsck *f, struct gaze_dev *dev, const char *name,
	  const struct fsck_opts *o)
{
	memset(f, 0, sizeof(*f));
	f->dev = dev;
	f->name = name;
	f->o = *o;
	if (!f->o.out)
		f->o.out = stdout;
	f->prog_last = -1;
}

void
fsck_fini(struct fsck *f)
{
	u32 t, i, j;

	fsck_scan_stop(f->scan);	/* its thread may still be reading */
	for (t = 0; t < GAZE_NR_TABLES; t++) {
		for (i = 0; f->tib[t] && i < f->tib_n[t]; i++) {
			struct fsck_tib *tb = f->tib[t][i];

			if (!tb)
				continue;
			for (j = 0; tb->over && j < GAZE_ADDRS_PER_BLOCK; j++)
				free(tb->over[j]);
			free(tb->over);
			free(tb);
		}
		free(f->tib[t]);
		f->tib[t] = NULL;
	}
	for (i = 0; f->tc && i < FSCK_TCACHE; i++)
		free(f->tc[i].data);
	free(f->tc);
	f->tc = NULL;

	fsck_msgs_free(f);
	free(f->zones);
	free(f->nid);
	free(f->nf[0]);		/* one allocation for all */
	for (i = 0; i < FSCK_NR_NF; i++)
		f->nf[i] = NULL;
	for (i = 0; f->owned && i < f->lay.main_zone_count; i++)
		free(f->owned[i]);
	free(f->owned);
	f->owned = NULL;
	free(f->dirs);
	free(f->zinfo_raw);
	f->zinfo_raw = NULL;
	free(f->xl);
	free(f->log_need);
	free(f->slots);
	free(f->ents);
	free(f->ifix);
	free(f->sumfix);
	while (f->nr_salv)
		free(f->salv[--f->nr_salv].blk);
	free(f->salv);
	free(f->orphans);
	f->msgs = NULL;
	f->nr_msgs = 0;
}

int
fsck_read(struct fsck *f, u64 addr, void *buf)
{
	return f->dev->ops->read(f->dev, addr, 1, buf);
}

/* ---------------------------------------------------------------- */
/* Superblocks                                                       */
/* ---------------------------------------------------------------- */

static bool
super_bodies_equal(const struct gaze_super *a, const struct gaze_super *b)
{
	return !memcmp((const u8 *)a + sizeof(a->hdr),
		       (const u8 *)b + sizeof(b->hdr),
		       sizeof(*a) - sizeof(a->hdr)) &&
	       !memcmp(a->hdr.uuid, b->hdr.uuid, sizeof(a->hdr.uuid));
}

static void
super_gc_fields(struct fsck *f)
{
	const struct gaze_super *sb = &f->sb;
	u64 pool = le64_to_cpu(sb->gc_pool_blocks);
	u32 dl = le32_to_cpu(sb->dirty_limit_pct);
	u32 qd = le32_to_cpu(sb->gc_queue_depth);
	u32 lo = le32_to_cpu(sb->bg_gc_low_pct);
	u32 hi = le32_to_cpu(sb->bg_gc_high_pct);

	if (pool < 256 || pool > 1048576)
		fsck_problem(f, PR_sb_gc_pool_range, "superblock: gc_pool_blocks %llu out of range 256..1048576",
			     (unsigned long long)pool);
	if (dl < 1 || dl > 90)
		fsck_problem(f, PR_sb_dirty_limit_range, "superblock: dirty_limit_pct %u out of range 1..90", dl);
	if (qd < 1 || qd > 4096)
		fsck_problem(f, PR_sb_gc_queue_range, "superblock: gc_queue_depth %u out of range 1..4096", qd);
	if (le32_to_cpu(sb->victim_policy) > GAZE_GC_COST_BENEFIT)
		fsck_problem(f, PR_sb_victim_policy, "superblock: unknown victim_policy %u",
			     le32_to_cpu(sb->victim_policy));
	if (lo > 100 || hi > 100 || lo > hi)
		fsck_problem(f, PR_sb_bg_gc_thresholds, "superblock: background GC thresholds %u%%..%u%% are invalid",
			     lo, hi);
}

/*
 * A kernel may ignore a compat feature it does not know, and read a
 * ro_compat one; a checker may not: what a feature means is what it
 * would have to verify (lazy_summary, for one, leaves summary entries a
 * check without it calls stale), so any unknown bit, in any mask, stops
 * the check (exit 8), as e2fsck does.  True when one is set.
 */
static bool
unknown_features(struct fsck *f)
{
	u64 c = le64_to_cpu(f->sb.feature_compat) & ~GAZE_FEATURE_COMPAT_SUPP;
	u64 r = le64_to_cpu(f->sb.feature_ro_compat) &
		~GAZE_FEATURE_RO_COMPAT_SUPP;
	u64 i = le64_to_cpu(f->sb.feature_incompat) &
		~GAZE_FEATURE_INCOMPAT_SUPP;
	char names[128];

	if (!(c | r | i))
		return false;
	gaze_fmt_feature_string(c, r, i, names, sizeof(names));
	fsck_fail(f, "unsupported %sfeatures: %s (compat 0x%llx, ro_compat 0x%llx, incompat 0x%llx); this version cannot check it: use a newer fsck.gaze",
		  i ? "incompatible " : "", names, (unsigned long long)c,
		  (unsigned long long)r, (unsigned long long)i);
	f->fatal = true;
	return true;
}

/*
 * The filesystem must fit its device.  A device smaller than the
 * superblock says (a truncated image, a shrunk partition or namespace)
 * has lost the zones past its end, and a device with another zone size
 * puts every address elsewhere: the check stops, and no mode can repair
 * either (the device must be given back its size or geometry).  A larger
 * device is fine, as it is for e2fsck: the zones past the filesystem are
 * not used.
 */
static bool
check_geometry(struct fsck *f)
{
	u32 zb = le32_to_cpu(f->sb.zone_blocks);
	u32 cap = le32_to_cpu(f->sb.zone_cap);
	u32 nz = le32_to_cpu(f->sb.nr_zones);
	u32 have = f->dev->nr_zones;
	u64 want = le64_to_cpu(f->sb.total_blocks);

	if (zb != f->dev->zone_blocks || cap > f->dev->zone_cap) {
		fsck_problem(f, PR_device_zone_size, "the device's zones are %u blocks (%u usable), the superblock's %u (%u usable): not the device the filesystem was made on, or its zones were changed; no mode can repair this",
			     f->dev->zone_blocks, f->dev->zone_cap, zb, cap);
		return false;
	}
	if (nz > have || want > f->dev->nr_blocks) {
		fsck_problem(f, PR_device_too_small, "the device is smaller than the filesystem: it holds %u of the %u zones the superblock records (%llu of %llu MiB); the rest is missing, and no mode can repair this (give the device back its full size)",
			     min(have, nz), nz,
			     (unsigned long long)(f->dev->nr_blocks *
						  GAZE_BLOCK_SIZE >> 20),
			     (unsigned long long)(want * GAZE_BLOCK_SIZE >> 20));
		return false;
	}
	if (nz < have)
		fsck_info(f, "the device has %u zones past the filesystem's %u; they are not used",
			  have - nz, nz);
	return true;
}

static int
check_supers(struct fsck *f)
{
	struct gaze_super *s[2];
	const char *why[2] = { NULL, NULL };
	u64 addr[2] = { 0, f->dev->zone_blocks };
	int ok[2], c, ret = 0;

	s[0] = malloc(GAZE_BLOCK_SIZE);
	s[1] = malloc(GAZE_BLOCK_SIZE);
	if (!s[0] || !s[1]) {
		ret = -ENOMEM;
		goto out;
	}
	for (c = 0; c < 2; c++) {
		ok[c] = !f->dev->ops->read(f->dev, addr[c], 1, s[c]) &&
			!gaze_fmt_super_verify(s[c], addr[c], &why[c]);
		/* the second copy sits at the superblock's zone size */
		if (!c && ok[0] && le32_to_cpu(s[0]->zone_blocks) !=
		    f->dev->zone_blocks)
			addr[1] = le32_to_cpu(s[0]->zone_blocks);
	}
	if (!ok[0] && !ok[1]) {
		fsck_fail(f, "no valid superblock (copy 0: %s; copy 1: %s)",
			  why[0] ? why[0] : "read error",
			  why[1] ? why[1] : "read error");
		f->fatal = true;
		goto out;
	}
	f->sb_copy = ok[0] ? 0 : 1;
	memcpy(&f->sb, s[f->sb_copy], sizeof(f->sb));
	memcpy(f->uuid, gaze_sb_meta_uuid(&f->sb), sizeof(f->uuid));
	for (c = 0; c < 2; c++) {
		if (ok[c])
			continue;
		f->sb_bad[c] = true;
		f->sb_fix = true;
		fsck_problem(f, PR_sb_copy_invalid, "superblock copy %d is invalid: %s", c,
			     why[c] ? why[c] : "read error");
	}
	if (ok[0] && ok[1] && !super_bodies_equal(s[0], s[1])) {
		f->sb_bad[1] = true;
		f->sb_fix = true;
		fsck_problem(f, PR_sb_copies_differ, "superblock copies differ");
	}
	if (unknown_features(f))
		goto out;
	if (!check_geometry(f)) {
		f->fatal = true;
		goto out;
	}
	ret = gaze_layout_from_super(&f->sb, &f->lay, &why[0]);
	if (ret) {
		fsck_problem(f, PR_sb_layout_invalid, "superblock: invalid layout: %s",
			     why[0] ? why[0] : "invalid");
		f->fatal = true;
		ret = 0;
		goto out;
	}
	super_gc_fields(f);
out:
	free(s[0]);
	free(s[1]);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Checkpoints                                                       */
/* ---------------------------------------------------------------- */

struct cp_mark {
	bool	have;
	u64	seq;
	u32	zone, off;
	struct gaze_cp_head head;
};

struct cp_best {
	struct fsck *f;
	bool	have;
	u64	seq;
	u32	zone, off;
	struct gaze_cp_head head;
	struct cp_mark prev;	/* the valid pack before the newest */
	u32	damaged;	/* damaged stretches in the zones */
	u64	bad_seq;	/* highest seq claimed by a damaged pack */
	u32	bad_zone, bad_off;
	const char *bad_why;
};

static void
cp_mark_set(struct cp_mark *m, u64 seq, u32 zone, u32 off,
	    const struct gaze_cp_head *head)
{
	m->have = true;
	m->seq = seq;
	m->zone = zone;
	m->off = off;
	memcpy(&m->head, head, sizeof(m->head));
}

/* the newest valid pack, and what damage there is (gaze_cp_walk_zone) */
static int
cp_seen(void *arg, const struct gaze_cp_seen *s)
{
	struct cp_best *b = arg;

	if (s->err) {
		b->damaged++;
		fsck_info(b->f, "checkpoint zone %u block %u: damaged (%s), %u blocks passed over",
			  s->zone, s->off, s->why, s->nblocks);
		if (s->seq >= b->bad_seq) {
			b->bad_seq = s->seq;
			b->bad_zone = s->zone;
			b->bad_off = s->off;
			b->bad_why = s->why;
		}
		return 0;
	}
	if (b->have && s->seq <= b->seq) {
		if (!b->prev.have || s->seq > b->prev.seq)
			cp_mark_set(&b->prev, s->seq, s->zone, s->off, s->head);
		return 0;
	}
	if (b->have)
		cp_mark_set(&b->prev, b->seq, b->zone, b->off, &b->head);
	b->have = true;
	b->seq = s->seq;
	b->zone = s->zone;
	b->off = s->off;
	memcpy(&b->head, s->head, sizeof(b->head));
	return 0;
}

static int
read_zones(struct fsck *f)
{
	u32 n = f->lay.nr_zones, z;
	int got;

	f->zones = calloc(n, sizeof(*f->zones));
	if (!f->zones)
		return -ENOMEM;
	for (z = 0; z < n; z += (u32)got) {
		got = f->dev->ops->report(f->dev, z, min(256u, n - z),
					  f->zones + z);
		if (got <= 0)
			return got ? got : -EIO;
	}
	return 0;
}

static int
check_checkpoint(struct fsck *f)
{
	u32 start = le32_to_cpu(f->sb.cp_zone_start);
	struct gaze_cp_zone_end end;
	struct cp_best b = { 0 };
	u8 *buf;
	u32 c;
	int ret = 0;

	buf = malloc((size_t)gaze_cp_max_pack(&f->sb) * GAZE_BLOCK_SIZE);
	if (!buf)
		return -ENOMEM;
	b.f = f;
	for (c = 0; c < 2; c++) {
		ret = gaze_cp_walk_zone(f->dev, &f->sb, start + c, buf,
					cp_seen, &b, &end);
		if (ret)
			goto out;
	}
	if (!b.have) {
		fsck_problem(f, PR_cp_none_valid, "no valid checkpoint found");
		f->fatal = true;
		goto out;
	}
	if (f->o.cp_prev) {
		/* -b 1: the checkpoint before the newest, as asked */
		if (!b.prev.have) {
			fsck_fail(f, "-b 1: there is no valid checkpoint before the newest (seq %llu)",
				  (unsigned long long)b.seq);
			f->fatal = true;
			goto out;
		}
		fsck_note(f, "%s: using checkpoint seq %llu at zone %u block %u, the one before the newest (seq %llu), as -b 1 asks; a repair makes it the newest, dropping what only the newer one recorded",
			  f->name, (unsigned long long)b.prev.seq, b.prev.zone,
			  b.prev.off, (unsigned long long)b.seq);
		b.seq = b.prev.seq;
		b.zone = b.prev.zone;
		b.off = b.prev.off;
		memcpy(&b.head, &b.prev.head, sizeof(b.head));
		b.bad_seq = 0;
		/* -p/-y: the repair commits the roll-back, problems or not */
		if (f->o.mode != FSCK_MODE_CHECK)
			fsck_problem(f, PR_cp_rollback,
				     "the newest checkpoint is to be dropped for the one before it (-b 1)");
	}
	memcpy(&f->cp, &b.head, sizeof(f->cp));
	f->cp_seq = b.seq;
	f->cp_zone = b.zone;
	f->cp_off = b.off;
	f->cp_damaged = b.damaged;
	if (b.bad_seq > b.seq) {
		f->cp_fallback = true;
		fsck_problem(f, PR_cp_newer_invalid,
			     "checkpoint pack at zone %u block %u (seq %llu) is invalid (%s); using the previous checkpoint, seq %llu",
			     b.bad_zone, b.bad_off,
			     (unsigned long long)b.bad_seq, b.bad_why,
			     (unsigned long long)b.seq);
	} else if (b.damaged) {
		/* an older pack, or one whose sequence is unknown: the
		 * newest valid one is used either way; the next checkpoint
		 * (a repair, or the next mount's) leaves the damage behind */
		fsck_problem(f, PR_cp_damaged_passed,
			     "%u damaged checkpoint pack%s passed over (the newest valid one, seq %llu, is used)",
			     b.damaged, b.damaged == 1 ? "" : "s",
			     (unsigned long long)b.seq);
	}
	fsck_info(f, "checkpoint seq %llu at zone %u block %u%s",
		  (unsigned long long)b.seq, b.zone, b.off,
		  (le32_to_cpu(f->cp.flags) & GAZE_CP_UMOUNT) ?
		  " (clean unmount)" : "");
	if (le32_to_cpu(f->cp.flags) & GAZE_CP_FSCK_NEEDED)
		fsck_problem(f, PR_cp_fsck_needed, "the checkpoint asks for a check (an error was seen while mounted)");
out:
	free(buf);
	return ret;
}

int
fsck_is_clean(struct fsck *f)
{
	int ret;

	ret = check_supers(f);
	if (ret || f->fatal)
		return ret;
	ret = read_zones(f);
	if (ret)
		return ret;
	ret = check_checkpoint(f);
	if (ret || f->fatal)
		return ret;
	return !f->problems &&
	       (le32_to_cpu(f->cp.flags) & GAZE_CP_UMOUNT) &&
	       !(le32_to_cpu(f->cp.flags) & (GAZE_CP_FSCK_NEEDED |
					     GAZE_CP_ORPHANS));
}

/* ---------------------------------------------------------------- */
/* Tables                                                            */
/* ---------------------------------------------------------------- */

static const char *const table_name[GAZE_NR_TABLES] = {
	"imap", "zinfo", "usage", "summary",
};

static int
load_payload(struct fsck *f, __le64 **payp, u32 *nslots)
{
	u32 pb = le32_to_cpu(f->cp.pack_blocks) - 2;
	__le64 *pay;
	u8 *raw;
	u32 k;
	int ret;

	*nslots = pb * GAZE_ADDRS_PER_BLOCK;
	raw = malloc((size_t)max(pb, 1u) * GAZE_BLOCK_SIZE);
	pay = malloc((size_t)max(*nslots, 1u) * sizeof(*pay));
	if (!raw || !pay) {
		free(raw);
		free(pay);
		return -ENOMEM;
	}
	ret = pb ? f->dev->ops->read(f->dev, le64_to_cpu(f->cp.hdr.blkaddr) + 1,
				     pb, raw) : 0;
	for (k = 0; !ret && k < pb; k++)
		memcpy(pay + (size_t)k * GAZE_ADDRS_PER_BLOCK,
		       ((struct gaze_cp_payload *)(raw + (size_t)k *
						   GAZE_BLOCK_SIZE))->slot,
		       GAZE_ADDRS_PER_BLOCK * sizeof(*pay));
	free(raw);
	if (ret) {
		free(pay);
		return ret;
	}
	*payp = pay;
	return 0;
}

static struct fsck_tib *
tib_of(const struct fsck *f, u32 t, u32 n)
{
	u32 i = n / GAZE_ADDRS_PER_BLOCK;

	if (n >= f->tbl_n[t] || !f->tib[t] || i >= f->tib_n[t])
		return NULL;
	return f->tib[t][i];
}

u64
fsck_tbl_addr(const struct fsck *f, u32 t, u32 n)
{
	const struct fsck_tib *tb = tib_of(f, t, n);

	return tb ? tb->addr[n % GAZE_ADDRS_PER_BLOCK] : 0;
}

bool
fsck_tbl_bad(const struct fsck *f, u32 t, u32 n)
{
	const struct fsck_tib *tb = tib_of(f, t, n);

	return tb && BIT_TEST(tb->bad, n % GAZE_ADDRS_PER_BLOCK);
}

u32
fsck_tbl_next(const struct fsck *f, u32 t, u32 n, u32 end)
{
	u32 stop = min(end, f->tbl_n[t]), j;
	const struct fsck_tib *tb;

	while (n < stop) {
		tb = tib_of(f, t, n);
		if (!tb) {
			/* the whole index block is absent */
			n = (n / GAZE_ADDRS_PER_BLOCK + 1) *
			    GAZE_ADDRS_PER_BLOCK;
			continue;
		}
		j = n % GAZE_ADDRS_PER_BLOCK;
		if (tb->addr[j] || BIT_TEST(tb->bad, j))
			return n;
		n++;
	}
	return end;
}

/* the tib of table t's index block i, made when missing; NULL: no memory */
static struct fsck_tib *
tib_make(struct fsck *f, u32 t, u32 i)
{
	if (!f->tib[t][i])
		f->tib[t][i] = calloc(1, sizeof(struct fsck_tib));
	return f->tib[t][i];
}

static void
tbl_set_bad(struct fsck *f, u32 t, u32 n)
{
	struct fsck_tib *tb = tib_make(f, t, n / GAZE_ADDRS_PER_BLOCK);

	if (!tb) {
		fprintf(stderr, "fsck.gaze: out of memory\n");
		exit(FSCK_EXIT_ERROR);
	}
	BIT_SET(tb->bad, n % GAZE_ADDRS_PER_BLOCK);
}

/* the imap entries of an unreadable imap block n (imap_rebuild), or NULL */
static u64 *
imap_over(const struct fsck *f, u32 n)
{
	const struct fsck_tib *tb = tib_of(f, GAZE_TABLE_IMAP, n);

	return tb && tb->over ? tb->over[n % GAZE_ADDRS_PER_BLOCK] : NULL;
}

/* table block n of table t through the cache; NULL when absent */
static const void *
tbl_block(struct fsck *f, u32 t, u32 n)
{
	struct fsck_tcache *c, *victim;
	int i, l = f->tc_last[t];
	u64 addr = fsck_tbl_addr(f, t, n);

	if (!addr)
		return NULL;
	if (l >= 0 && f->tc[l].stamp && f->tc[l].t == t && f->tc[l].n == n)
		return f->tc[l].data;
	victim = &f->tc[0];
	for (i = 0; i < FSCK_TCACHE; i++) {
		c = &f->tc[i];
		if (c->stamp && c->t == t && c->n == n) {
			c->stamp = ++f->tc_clock;
			f->tc_last[t] = i;
			return c->data;
		}
		if (c->stamp < victim->stamp)
			victim = c;
	}
	if (!victim->data)
		victim->data = malloc(GAZE_BLOCK_SIZE);
	if (!victim->data || fsck_read(f, addr, victim->data)) {
		victim->stamp = 0;
		return NULL;
	}
	victim->t = t;
	victim->n = n;
	victim->stamp = ++f->tc_clock;
	f->tc_last[t] = (int)(victim - f->tc);
	return victim->data;
}

static void *
load_table_block(struct fsck *f, u32 t, u32 n, u64 addr, bool index)
{
	const char *why = NULL;
	void *blk = malloc(GAZE_BLOCK_SIZE);
	int ret;

	if (!blk)
		return NULL;
	ret = fsck_read(f, addr, blk);
	if (!ret)
		ret = gaze_fmt_table_verify(blk, t, n, &f->sb, addr, &why);
	if (!ret && le32_to_cpu(((struct gaze_mhdr *)blk)->magic) !=
	    (index ? GAZE_MAGIC_TINDEX : 0) && index) {
		why = "not an index block";
		ret = -EFSCORRUPTED;
	}
	if (!ret && !index && le32_to_cpu(((struct gaze_mhdr *)blk)->magic) ==
	    GAZE_MAGIC_TINDEX) {
		why = "an index block where a table block belongs";
		ret = -EFSCORRUPTED;
	}
	if (!ret && le64_to_cpu(((struct gaze_mhdr *)blk)->seq) > f->cp_seq) {
		why = "block is newer than the checkpoint";
		ret = -EFSCORRUPTED;
	}
	if (ret) {
		fsck_problem(f, PR_table_block_invalid, "%s %s block %u at %llu is invalid: %s",
			     table_name[t], index ? "index" : "table", n,
			     (unsigned long long)addr, why ? why : "read error");
		f->tbl_bad = true;
		if (!index) {
			tbl_set_bad(f, t, n);
			/* bad imap entries only: the others are still used */
			if (t == GAZE_TABLE_IMAP && ret == -EFSCORRUPTED &&
			    why && !strncmp(why, "imap:", 5))
				return blk;
		}
		free(blk);
		return NULL;
	}
	return blk;
}

/*
 * Index block i of table t is unreadable, so are the addresses of its
 * table blocks: each counts as stored and bad.  Imap blocks under it are
 * handled like unreadable imap blocks: their entries are rebuilt from
 * the nodes (imap_rebuild) and the repair writes every one of them
 * again, under a new index block (gaze_repair_table_block).  Other
 * tables: the repair rewrites the space tables of every zone under it.
 */
static void
tindex_lost(struct fsck *f, u32 t, u32 i)
{
	u32 n, end = min((i + 1) * GAZE_ADDRS_PER_BLOCK, f->tbl_n[t]);

	for (n = i * GAZE_ADDRS_PER_BLOCK; n < end; n++)
		tbl_set_bad(f, t, n);
}

static int
load_tables(struct fsck *f)
{
	__le64 *pay;
	u32 nslots, t, i, j, n;
	void *ib;
	int ret;

	ret = load_payload(f, &pay, &nslots);
	if (ret)
		return ret;
	f->tc = calloc(FSCK_TCACHE, sizeof(*f->tc));
	if (!f->tc) {
		ret = -ENOMEM;
		goto out;
	}
	for (t = 0; t < GAZE_NR_TABLES; t++) {
		u32 ofs = le32_to_cpu(f->cp.tables[t].payload_ofs);
		u32 nidx = le32_to_cpu(f->cp.tables[t].nr_index);

		f->tbl_n[t] = le32_to_cpu(f->sb.table_blocks[t]);
		f->tib_n[t] = max_t(u32, DIV_ROUND_UP(f->tbl_n[t],
						      GAZE_ADDRS_PER_BLOCK), 1);
		if (t == GAZE_TABLE_ZINFO) {
			f->zinfo_raw = calloc(max(f->tbl_n[t], 1u), sizeof(u64));
			if (!f->zinfo_raw) {
				ret = -ENOMEM;
				goto out;
			}
		}
		f->tib[t] = calloc(f->tib_n[t], sizeof(*f->tib[t]));
		f->tc_last[t] = -1;
		if (!f->tib[t]) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < nidx && ofs + i < nslots; i++) {
			u64 a = le64_to_cpu(pay[ofs + i]);
			const struct gaze_tindex *ti;
			struct fsck_tib *tb = NULL;

			if (!a)
				continue;
			/* past the table: read and verified, nothing kept */
			if (i < f->tib_n[t] && !(tb = tib_make(f, t, i))) {
				ret = -ENOMEM;
				goto out;
			}
			ib = load_table_block(f, t, i, a, true);
			if (!ib) {
				tindex_lost(f, t, i);
				continue;
			}
			ti = ib;
			for (j = 0; j < GAZE_ADDRS_PER_BLOCK; j++) {
				u64 ta = le64_to_cpu(ti->addr[j]);
				void *blk;

				n = i * GAZE_ADDRS_PER_BLOCK + j;
				if (!ta || n >= f->tbl_n[t])
					continue;
				if (t == GAZE_TABLE_ZINFO && f->zinfo_raw)
					f->zinfo_raw[n] = ta;
				blk = load_table_block(f, t, n, ta, false);
				if (blk)
					tb->addr[j] = ta;
				free(blk);
			}
			free(ib);
		}
	}
	/* the orphan list */
	f->nr_orphans = le32_to_cpu(f->cp.nr_orphans);
	if (f->nr_orphans) {
		u32 o = le32_to_cpu(f->cp.orphan_ofs);

		f->orphans = calloc(f->nr_orphans, sizeof(u32));
		if (!f->orphans) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < f->nr_orphans && o + i < nslots; i++)
			f->orphans[i] = (u32)le64_to_cpu(pay[o + i]);
	}
out:
	free(pay);
	return ret;
}

u64
fsck_imap_get(struct fsck *f, u32 nid)
{
	const struct gaze_imap_block *b;
	u32 n = nid / GAZE_IMAP_PER_BLOCK;

	if (n >= f->tbl_n[GAZE_TABLE_IMAP])
		return 0;
	u64 a, zb = le32_to_cpu(f->sb.zone_blocks), *over = imap_over(f, n);

	if (over)
		return over[nid % GAZE_IMAP_PER_BLOCK];
	b = tbl_block(f, GAZE_TABLE_IMAP, n);
	a = b ? le64_to_cpu(b->addr[nid % GAZE_IMAP_PER_BLOCK]) : 0;
	/* an entry outside the main area names no node */
	if (a && (a < (u64)f->lay.main_zone_start * zb ||
		  a >= (u64)(f->lay.main_zone_start + f->lay.main_zone_count) * zb ||
		  a % zb >= le32_to_cpu(f->sb.zone_cap)))
		return 0;
	return a;
}

const struct gaze_summary *
fsck_summary_get(struct fsck *f, u32 zi, u32 off)
{
	static const struct gaze_summary zero;
	const struct gaze_summary_block *b;
	u32 n = zi * f->lay.summary_blocks_per_zone +
		off / GAZE_SUMMARY_PER_BLOCK;

	b = tbl_block(f, GAZE_TABLE_SUMMARY, n);
	return b ? &b->s[off % GAZE_SUMMARY_PER_BLOCK] : &zero;
}

const struct gaze_zinfo *
fsck_zinfo_get(struct fsck *f, u32 zi)
{
	static const struct gaze_zinfo zero;
	const struct gaze_zinfo_block *b;

	b = tbl_block(f, GAZE_TABLE_ZINFO,
		      zi / GAZE_ZINFO_PER_BLOCK);
	return b ? &b->z[zi % GAZE_ZINFO_PER_BLOCK] : &zero;
}

/* ---------------------------------------------------------------- */
/* Block ownership                                                   */
/* ---------------------------------------------------------------- */

u32
fsck_owned_count(const struct fsck *f, u32 zi)
{
	u32 bytes = DIV_ROUND_UP(le32_to_cpu(f->sb.zone_cap), 8), i, n = 0;
	const u8 *b = f->owned[zi];

	for (i = 0; b && i < bytes; i++)
		n += (u32)__builtin_popcount(b[i]);
	return n;
}

/* the log whose head is in zone, or -1 */
int
fsck_log_of_zone(const struct fsck *f, u32 zone)
{
	u32 i;

	for (i = 0; i < f->lay.nr_logs && i < GAZE_MAX_LOGS; i++)
		if (le32_to_cpu(f->cp.logs[i].zone) == zone)
			return (int)i;
	return -1;
}

/* does node nid (as the imap has it) hold addr in slot ofs? */
static bool
summary_owner_points(struct fsck *f, u32 nid, u32 ofs, u64 addr)
{
	struct gaze_dnode *dn;
	u64 a = nid > GAZE_NID_RESERVED ? fsck_imap_get(f, nid) : 0;
	bool yes = false;
	u32 magic;

	if (!a)
		return false;
	dn = malloc(sizeof(*dn));
	if (!dn || fsck_read(f, a, dn) ||
	    gaze_fmt_hdr_verify(dn, le32_to_cpu(dn->hdr.magic), f->uuid, a,
				NULL))
		goto out;
	magic = le32_to_cpu(dn->hdr.magic);
	if (magic == GAZE_MAGIC_INODE) {
		struct gaze_inode *in = (void *)dn;

		yes = ofs < GAZE_ADDRS_PER_INODE &&
		      !(le32_to_cpu(in->flags) & (GAZE_IF_INLINE_DATA |
						  GAZE_IF_INLINE_DENTRY)) &&
		      le64_to_cpu(in->i.addr[ofs]) == addr;
	} else if (magic == GAZE_MAGIC_DNODE) {
		yes = ofs < GAZE_ADDRS_PER_DNODE &&
		      le64_to_cpu(dn->addr[ofs]) == addr;
	}
out:
	free(dn);
	return yes;
}

/*
 * Claims main block addr for (type, owner, ofs).  Returns false when the
 * pointer must be dropped: outside the main area, past the device's
 * write pointer, or already owned.
 */
static bool
blk_claim(struct fsck *f, u64 addr, u8 type, u32 owner, u16 ofs, u32 ino)
{
	u32 zb = le32_to_cpu(f->sb.zone_blocks);
	u32 cap = le32_to_cpu(f->sb.zone_cap);
	const struct gaze_summary *s;
	const struct gaze_zone *z;
	u64 idx, zone;
	u32 off, zi;
	u8 *ob;
	int li;

	if (addr < f->main_first || addr - f->main_first >= f->main_blocks ||
	    addr % zb >= cap) {
		fsck_problem(f, PR_blk_outside_main, "inode %u: node %u points at block %llu outside the main area",
			     ino, owner, (unsigned long long)addr);
		return false;
	}
	idx = addr - f->main_first;
	zone = addr / zb;
	off = (u32)(addr % zb);
	zi = (u32)(idx / zb);
	z = &f->zones[zone];
	if (z->type == GAZE_ZT_SEQ && z->cond != GAZE_ZC_FULL &&
	    addr >= z->wp) {
		fsck_problem(f, PR_blk_past_wp, "inode %u: block %llu (node %u slot %u) lies past the write pointer of zone %llu: its data was never written",
			     ino, (unsigned long long)addr, owner, ofs,
			     (unsigned long long)zone);
		return false;
	}
	s = fsck_summary_get(f, zi, off);
	if (type == GAZE_SUM_DATA && s->type == GAZE_SUM_DATA &&
	    le32_to_cpu(s->nid) != owner &&
	    summary_owner_points(f, le32_to_cpu(s->nid), le16_to_cpu(s->ofs),
				 addr)) {
		fsck_problem(f, PR_blk_other_owner, "inode %u: block %llu (node %u slot %u) belongs to node %u",
			     ino, (unsigned long long)addr, owner, ofs,
			     le32_to_cpu(s->nid));
		return false;
	}
	if (fsck_owned(f, zi, off)) {
		fsck_problem(f, PR_blk_used_twice, "inode %u: block %llu (node %u slot %u) is already used by another owner",
			     ino, (unsigned long long)addr, owner, ofs);
		return false;
	}
	ob = f->owned[zi];
	if (!ob) {
		/* whole words, for pass 3 */
		ob = calloc(ALIGN(DIV_ROUND_UP(cap, 8), 8u), 1);
		if (!ob) {
			fprintf(stderr, "fsck.gaze: out of memory\n");
			exit(FSCK_EXIT_ERROR);
		}
		f->owned[zi] = ob;
	}
	BIT_SET(ob, off);
	li = fsck_log_of_zone(f, (u32)zone);
	if (li >= 0 && off >= le32_to_cpu(f->cp.logs[li].offset) &&
	    off + 1 > f->log_need[li])
		f->log_need[li] = off + 1;
	s = fsck_summary_get(f, zi, off);	/* the cache may have moved */
	if (s->type != type || le32_to_cpu(s->nid) != owner ||
	    le16_to_cpu(s->ofs) != ofs) {
		f->space_bad = true;
		f->sumfix = fsck_grow(f->sumfix, &f->cap_sumfix, f->nr_sumfix,
				      sizeof(*f->sumfix));
		f->sumfix[f->nr_sumfix++] = (struct fsck_sumfix){ .addr = addr,
			.s = { .nid = cpu_to_le32(owner),
			       .ofs = cpu_to_le16(ofs), .type = type } };
		fsck_problem(f, PR_summary_mismatch, "block %llu: summary says %s nid %u slot %u, the tree says %s nid %u slot %u",
			     (unsigned long long)addr,
			     s->type == GAZE_SUM_NODE ? "node" :
			     s->type == GAZE_SUM_DATA ? "data" : "none",
			     le32_to_cpu(s->nid), le16_to_cpu(s->ofs),
			     type == GAZE_SUM_NODE ? "node" : "data", owner, ofs);
	}
	return true;
}

/* ---------------------------------------------------------------- */
/* Pass 1: nodes                                                     */
/* ---------------------------------------------------------------- */

struct iwalk {
	u32	ino;
	u32	flags;
	u16	mode;
	u64	blocks;		/* blocks counted (data + child nodes) */
	u64	maxf;		/* 1 + highest mapped file block */
	u8	*buf[4];	/* per level */
	u32	clog;		/* log2 blocks per cluster; 0: none */
	u64	compr;		/* blocks packed clusters save */
	/* the packed cluster being walked (cl_n 0: none): its slots */
	u64	cl_first;
	u32	cl_n, cl_nvalid;	/* nvalid 0: no length marker */
	bool	cl_bad;
	u64	cl_addr[256];		/* claimed data blocks in its slots */
	u32	cl_owner[256];		/* 0: the slot was not seen */
	u16	cl_slot[256];
};

/* a block blk_claim gave an owner goes back (its slot is being cleared) */
static void
blk_unclaim(struct fsck *f, struct iwalk *w, u64 addr)
{
	u64 idx = addr - f->main_first;
	u32 zb = le32_to_cpu(f->sb.zone_blocks);

	if (f->owned[idx / zb])
		BIT_CLR(f->owned[idx / zb], (u32)(addr % zb));
	w->blocks--;
	f->st.data_blocks--;
}

/* every slot of the packed cluster in w is cleared by the repair */
static void
cluster_drop(struct fsck *f, struct iwalk *w)
{
	u32 k;

	for (k = 0; k < 1u << w->clog; k++) {
		if (!w->cl_owner[k])
			continue;
		if (w->cl_addr[k])
			blk_unclaim(f, w, w->cl_addr[k]);
		fsck_add_slot(f, w->ino, w->cl_owner[k], w->cl_slot[k],
			      SLOT_ADDR);
	}
}

/*
 * The packed cluster in w is walked: its stream is read and decoded.  A
 * cluster that does not decode loses its slots (the repair clears them:
 * the file reads zeros there).
 */
static void
cluster_finish(struct fsck *f, struct iwalk *w)
{
	u32 n = w->cl_n, k, nblk = 1u << w->clog;
	u32 nvalid = w->cl_nvalid ? w->cl_nvalid : nblk;
	const char *why = "a stream block is missing";
	u8 *stream, *raw;
	int err = -EFSCORRUPTED;

	w->cl_n = 0;
	stream = malloc((size_t)n << GAZE_BLOCK_SHIFT);
	raw = malloc((size_t)nblk << GAZE_BLOCK_SHIFT);
	if (!stream || !raw) {
		why = "out of memory";
		goto out;
	}
	if (w->cl_bad) {
		why = "a slot holds what the cluster has no room for";
		goto out;
	}
	if (n >= nvalid) {
		why = "its stream is not shorter than its data";
		goto out;
	}
	for (k = 0; k < n; k++)
		if (!w->cl_addr[k + 1] ||	/* missing, or not claimed */
		    fsck_read(f, w->cl_addr[k + 1],
			      stream + ((size_t)k << GAZE_BLOCK_SHIFT)))
			goto out;
	err = gaze_cluster_decode(stream, n << GAZE_BLOCK_SHIFT, raw,
				  nvalid << GAZE_BLOCK_SHIFT, &why);
	if (!err) {
		w->compr += nvalid - n;
		f->compr_logical += nvalid;
		f->compr_physical += n;
	}
out:
	if (err) {
		fsck_problem(f, PR_cluster_bad, "inode %u: compressed cluster at block %llu: %s (node %u slot %u)",
			     w->ino, (unsigned long long)w->cl_first, why,
			     w->cl_owner[0], w->cl_slot[0]);
		cluster_drop(f, w);
	}
	free(stream);
	free(raw);
}

/*
 * slot fblk (owner, slot; holding a, not 0) seen while a packed cluster
 * is walked; true when it is the cluster's length marker
 */
static bool
cluster_slot(struct fsck *f, struct iwalk *w, u32 owner, u32 slot, u64 fblk,
	     u64 a)
{
	u64 k = fblk - w->cl_first, nblk = 1ull << w->clog;

	if (fblk >= w->cl_first + nblk) {
		cluster_finish(f, w);
		return false;
	}
	w->cl_owner[k] = owner;
	w->cl_slot[k] = (u16)slot;
	if (k == nblk - 1 && GAZE_ADDR_IS_CLEN(a)) {
		w->cl_nvalid = GAZE_ADDR_CLEN_NR(a);
		if (w->cl_nvalid >= nblk)
			w->cl_bad = true;
		return true;
	}
	if (k > w->cl_n || !GAZE_ADDR_IS_REAL(a))
		w->cl_bad = true;
	/* a marker out of place: counted bad already */
	return GAZE_ADDR_IS_CLUSTER(a) || GAZE_ADDR_IS_CLEN(a);
}

/* slot 0 of a packed cluster, at file block fblk */
static void
cluster_start(struct fsck *f, struct iwalk *w, u32 owner, u32 slot, u64 fblk,
	      u64 a)
{
	u32 n = GAZE_ADDR_CLUSTER_NR(a);
	const char *why = NULL;

	if (!w->clog)
		why = "in a file without compressed clusters";
	else if (fblk & ((1ull << w->clog) - 1))
		why = "not at the start of a cluster";
	else if (n >= 1u << w->clog)
		why = "its stream is not shorter than the cluster";
	if (why) {
		fsck_problem(f, PR_cluster_bad, "inode %u: compressed cluster marker at block %llu %s (node %u slot %u)",
			     w->ino, (unsigned long long)fblk, why, owner,
			     slot);
		fsck_add_slot(f, w->ino, owner, slot, SLOT_ADDR);
		return;
	}
	memset(w->cl_addr, 0, sizeof(w->cl_addr));
	memset(w->cl_owner, 0, sizeof(w->cl_owner));
	w->cl_first = fblk;
	w->cl_n = n;
	w->cl_nvalid = 0;
	w->cl_owner[0] = owner;
	w->cl_slot[0] = (u16)slot;
	w->cl_bad = false;
	w->maxf = max(w->maxf, fblk + 1);
}

static void
walk_addrs(struct fsck *f, struct iwalk *w, u32 owner, const __le64 *addr,
	   u32 n, u64 first)
{
	u32 i;

	for (i = 0; i < n; i++) {
		u64 a = le64_to_cpu(addr[i]);

		if (!a)
			continue;
		if (a == GAZE_ADDR_PREALLOC) {
			/* a file's may lie past its size (KEEP_SIZE) */
			if (!GAZE_S_ISREG(w->mode))
				w->maxf = max(w->maxf, first + i + 1);
			w->blocks++;	/* st_blocks counts it */
			f->prealloc++;
			continue;
		}
		if (w->cl_n && cluster_slot(f, w, owner, i, first + i, a))
			continue;
		if (GAZE_ADDR_IS_CLUSTER(a)) {
			cluster_start(f, w, owner, i, first + i, a);
			continue;
		}
		if (!GAZE_ADDR_IS_REAL(a)) {
			fsck_problem(f, PR_blk_addr_invalid, "inode %u: invalid block address %#llx (node %u slot %u)",
				     w->ino, (unsigned long long)a, owner, i);
			fsck_add_slot(f, w->ino, owner, i, SLOT_ADDR);
			continue;
		}
		if (!blk_claim(f, a, GAZE_SUM_DATA, owner, (u16)i, w->ino)) {
			fsck_add_slot(f, w->ino, owner, i, SLOT_ADDR);
			continue;
		}
		if (w->cl_n && first + i - w->cl_first < 1ull << w->clog)
			w->cl_addr[first + i - w->cl_first] = a;
		w->blocks++;
		w->maxf = max(w->maxf, first + i + 1);
		if (GAZE_S_ISDIR(w->mode))
			f->st.dir_blocks++;
		else
			f->st.data_blocks++;
	}
}


static bool
xattrs_ok(const u8 *p, u32 used)
{
	const struct gaze_xattr_entry *e;
	u32 pos = 0, len, i;

	while (pos < used) {
		if (used - pos < sizeof(*e))
			return false;
		e = (const void *)(p + pos);
		len = ALIGN((u32)sizeof(*e) + e->name_len +
			    le16_to_cpu(e->value_len), 4u);
		if (!e->index || e->index > GAZE_XATTR_INDEX_MAX ||
		    (!e->name_len && e->index < GAZE_XATTR_ACL_ACCESS) ||
		    len > used - pos)
			return false;
		for (i = 0; i < e->name_len; i++)
			if (!((const u8 *)(e + 1))[i])
				return false;
		pos += len;
	}
	return true;
}

/*
 * A node whose header is sound (checksum, magic, place) but whose fields
 * do not verify: fixes the fields that can be fixed without guessing
 * (the node's identity from where it was reached, unknown flag bits,
 * pointers out of range, a broken xattr region), in blk.  True when the
 * result verifies; the caller records it for the repair.
 */
static bool
node_salvage(struct fsck *f, void *blk, u32 magic, u64 addr, u32 nid,
	     u32 ino, u64 first)
{
	struct gaze_mhdr *h = blk;
	u32 max_nid = le32_to_cpu(f->sb.max_nid);
	u32 i;

	if (gaze_fmt_hdr_verify(blk, magic, f->uuid, addr, NULL))
		return false;
	h->nid = cpu_to_le32(nid);
	h->ino = cpu_to_le32(ino);
	if (magic != GAZE_MAGIC_INODE && magic != GAZE_MAGIC_XATTR)
		h->index = cpu_to_le32((u32)first);
	if (magic == GAZE_MAGIC_INODE) {
		struct gaze_inode *in = blk;
		u32 fl = le32_to_cpu(in->flags) & GAZE_IF_ALL;
		u16 mode = le16_to_cpu(in->mode);

		if (!GAZE_S_ISDIR(mode))
			fl &= ~(GAZE_IF_INLINE_DENTRY | GAZE_IF_DIR_HASHED);
		if (!GAZE_S_ISREG(mode) && !GAZE_S_ISLNK(mode))
			fl &= ~GAZE_IF_INLINE_DATA;
		if (!GAZE_S_ISREG(mode) && !GAZE_S_ISDIR(mode))
			fl &= ~GAZE_IF_COMPRESS_LOCAL;
		if ((fl & GAZE_IF_INLINE_DENTRY) && (fl & GAZE_IF_DIR_HASHED))
			return false;
		if (gaze_fmt_compress_max_level(in->compress_algo) < 0 ||
		    in->compress_level >
		    gaze_fmt_compress_max_level(in->compress_algo) ||
		    (fl & GAZE_IF_COMPRESS)) {
			fl &= ~(GAZE_IF_COMPRESS | GAZE_IF_COMPRESS_LOCAL);
			in->compress_algo = 0;
			in->compress_level = 0;
			in->compress_log_cluster = 0;
		}
		in->flags = cpu_to_le32(fl);
		in->pad0 = 0;
		memset(in->reserved, 0, sizeof(in->reserved));
		for (i = 0; i < GAZE_NR_INODE_NIDS; i++)
			if (le32_to_cpu(in->nids[i]) >= max_nid)
				in->nids[i] = 0;
		if (le32_to_cpu(in->xattr_nid) >= max_nid)
			in->xattr_nid = 0;
		if (le32_to_cpu(in->parent) >= max_nid)
			in->parent = 0;
		if (le16_to_cpu(in->inline_xattr_used) > GAZE_INLINE_XATTR_SIZE ||
		    !xattrs_ok(in->i_xattr,
			       le16_to_cpu(in->inline_xattr_used))) {
			in->inline_xattr_used = 0;
			memset(in->i_xattr, 0, sizeof(in->i_xattr));
		}
		if (in->dir_depth > GAZE_DIR_MAX_DEPTH)
			return false;
	} else if (magic == GAZE_MAGIC_INODE_IND) {
		struct gaze_inode_ind *in = blk;

		for (i = 0; i < GAZE_NIDS_PER_INDIRECT; i++)
			if (le32_to_cpu(in->nid[i]) >= max_nid)
				in->nid[i] = 0;
	} else if (magic == GAZE_MAGIC_XATTR) {
		struct gaze_xattr_block *xb = blk;

		xb->pad = 0;
		if (le32_to_cpu(xb->used) > sizeof(xb->body) ||
		    !xattrs_ok(xb->body, le32_to_cpu(xb->used))) {
			xb->used = 0;
			memset(xb->body, 0, sizeof(xb->body));
		}
	}
	gaze_fmt_csum_set(blk);
	return !gaze_fmt_node_verify(blk, &f->sb, magic, addr, NULL);
}

static void
salvage_add(struct fsck *f, u32 nid, u64 addr, const void *blk)
{
	struct fsck_salvage *s;

	f->salv = fsck_grow(f->salv, &f->cap_salv, f->nr_salv,
			    sizeof(*f->salv));
	s = &f->salv[f->nr_salv];
	s->blk = malloc(GAZE_BLOCK_SIZE);
	if (!s->blk)
		return;
	memcpy(s->blk, blk, GAZE_BLOCK_SIZE);
	s->nid = nid;
	s->addr = addr;
	f->nr_salv++;
}

/*
 * Reads child node nid of inode w->ino, expected magic and first file
 * block; on success claims its block and returns the buffer (level lvl).
 * NULL: the pointer is bad and was reported.
 */
static void *
claim_child(struct fsck *f, struct iwalk *w, u32 nid, u32 magic, u64 first,
	    int lvl, const char *what)
{
	const struct gaze_mhdr *h;
	const char *why = NULL;
	void *blk = w->buf[lvl];
	u64 addr;
	int ret;

	if (nid <= GAZE_ROOT_INO || nid >= f->nid_end ||
	    nid_kind(&f->nid[nid]) != FK_NODE) {
		fsck_problem(f, PR_node_ref_bad, "inode %u: %s node %u is %s",
			     w->ino, what, nid,
			     nid < f->nid_end && nid_kind(&f->nid[nid]) == FK_CHILD ?
			     "used twice" :
			     nid < f->nid_end && nid_kind(&f->nid[nid]) == FK_INODE ?
			     "an inode" : "not in use");
		return NULL;
	}
	addr = fsck_imap_get(f, nid);
	ret = fsck_read(f, addr, blk);
	if (ret) {
		why = "read error";
		goto bad;
	}
	h = blk;
	if (le32_to_cpu(h->magic) != magic) {
		fsck_problem(f, PR_node_wrong_type, "inode %u: %s node %u at %llu has the wrong type",
			     w->ino, what, nid, (unsigned long long)addr);
		return NULL;
	}
	ret = gaze_fmt_node_verify(blk, &f->sb, magic, addr, &why);
	if (!ret && (le32_to_cpu(h->nid) != nid ||
		     le32_to_cpu(h->ino) != w->ino)) {
		why = "header names another node or owner";
		ret = -EFSCORRUPTED;
	}
	if (!ret && magic != GAZE_MAGIC_XATTR && le32_to_cpu(h->index) != first) {
		why = "covers other file blocks than its position";
		ret = -EFSCORRUPTED;
	}
	if (ret == -EFSCORRUPTED && le64_to_cpu(h->seq) <= f->cp_seq &&
	    node_salvage(f, blk, magic, addr, nid, w->ino, first)) {
		fsck_problem(f, PR_node_salvaged, "inode %u: %s node %u at %llu: %s; fixed in place",
			     w->ino, what, nid, (unsigned long long)addr, why);
		salvage_add(f, nid, addr, blk);
		ret = 0;
	}
	if (!ret && le64_to_cpu(h->seq) > f->cp_seq) {
		why = "newer than the checkpoint";
		ret = -EFSCORRUPTED;
	}
	if (ret)
		goto bad;
	if (!blk_claim(f, addr, GAZE_SUM_NODE, nid, 0, w->ino))
		goto bad_quiet;
	nid_kind_set(&f->nid[nid], FK_CHILD);
	f->valid_nodes++;
	f->st.nodes++;
	w->blocks++;
	return blk;
bad:
	fsck_problem(f, PR_node_invalid, "inode %u: %s node %u at %llu is invalid: %s",
		     w->ino, what, nid, (unsigned long long)addr, why);
bad_quiet:
	nid_kind_set(&f->nid[nid], FK_BAD);
	return NULL;
}

static void walk_ind(struct fsck *f, struct iwalk *w, u32 parent, u32 slot,
		     u32 nid, u64 first, int lvl, int height);

/* node nid at level lvl of a subtree of `height` levels (1 = dnode) */
static void
walk_node(struct fsck *f, struct iwalk *w, u32 parent, u32 slot, u32 nid,
	  u64 first, int lvl, int height)
{
	struct gaze_dnode *dn;

	if (height > 1) {
		walk_ind(f, w, parent, slot, nid, first, lvl, height);
		return;
	}
	dn = claim_child(f, w, nid, GAZE_MAGIC_DNODE, first, lvl, "direct");
	if (!dn) {
		fsck_add_slot(f, w->ino, parent, slot, SLOT_NID);
		return;
	}
	walk_addrs(f, w, nid, dn->addr, GAZE_ADDRS_PER_DNODE, first);
}

static void
walk_ind(struct fsck *f, struct iwalk *w, u32 parent, u32 slot, u32 nid,
	 u64 first, int lvl, int height)
{
	struct gaze_inode_ind *in;
	u64 span = GAZE_ADDRS_PER_DNODE;
	u32 i, c;

	in = claim_child(f, w, nid, GAZE_MAGIC_INODE_IND, first, lvl,
			 "indirect");
	if (!in) {
		fsck_add_slot(f, w->ino, parent, slot, SLOT_NID);
		return;
	}
	if (height == 3)
		span *= GAZE_NIDS_PER_INDIRECT;
	for (i = 0; i < GAZE_NIDS_PER_INDIRECT; i++) {
		c = le32_to_cpu(in->nid[i]);
		if (!c)
			continue;
		walk_node(f, w, nid, i, c, first + i * span, lvl + 1,
			  height - 1);
	}
}

/* xattr entries of both regions: (index, name) unique */
static bool
xattr_names_unique(const u8 *a, u32 alen, const u8 *b, u32 blen)
{
	const struct gaze_xattr_entry *e, *g;
	const u8 *regs[2] = { a, b };
	u32 lens[2] = { alen, blen };
	u32 r, p, r2, p2;

	for (r = 0; r < 2; r++) {
		for (p = 0; p < lens[r];
		     p += ALIGN((u32)sizeof(*e) + e->name_len +
				le16_to_cpu(e->value_len), 4u)) {
			e = (const void *)(regs[r] + p);
			for (r2 = r; r2 < 2; r2++) {
				p2 = r2 == r ? p + ALIGN((u32)sizeof(*e) +
					e->name_len + le16_to_cpu(e->value_len),
					4u) : 0;
				for (; p2 < lens[r2];
				     p2 += ALIGN((u32)sizeof(*g) + g->name_len +
						 le16_to_cpu(g->value_len), 4u)) {
					g = (const void *)(regs[r2] + p2);
					if (e->index == g->index &&
					    e->name_len == g->name_len &&
					    !memcmp(e + 1, g + 1, e->name_len))
						return false;
				}
			}
		}
	}
	return true;
}

static void
check_inode_xattrs(struct fsck *f, struct iwalk *w,
		   const struct gaze_inode *in)
{
	u32 xnid = le32_to_cpu(in->xattr_nid);
	struct gaze_xattr_block *xb = NULL;

	if (xnid) {
		xb = claim_child(f, w, xnid, GAZE_MAGIC_XATTR, 0, 1, "xattr");
		if (!xb)
			fsck_add_slot(f, w->ino, w->ino, 0, SLOT_XATTR);
	}
	if (!xattr_names_unique(in->i_xattr,
				le16_to_cpu(in->inline_xattr_used),
				xb ? xb->body : NULL,
				xb ? le32_to_cpu(xb->used) : 0)) {
		fsck_problem(f, PR_xattr_name_dup, "inode %u: an extended attribute name appears twice",
			     w->ino);
		fsck_add_slot(f, w->ino, w->ino, 0, SLOT_IXATTR);
	}
}

static void
check_inode_size(struct fsck *f, struct iwalk *w,
		 const struct gaze_inode *in)
{
	u64 size = le64_to_cpu(in->size);
	u32 used = le16_to_cpu(in->inline_used);
	bool inl = w->flags & GAZE_IF_INLINE_DATA;

	if (GAZE_S_ISREG(w->mode)) {
		if (inl && size != used) {
			fsck_problem(f, PR_inline_size_bad, "inode %u: size %llu, inline data %u bytes",
				     w->ino, (unsigned long long)size, used);
			fsck_ifix_get(f, w->ino)->size = used;
		} else if (!inl && w->maxf > DIV_ROUND_UP(size, GAZE_BLOCK_SIZE)) {
			fsck_problem(f, PR_blocks_past_size, "inode %u: blocks mapped past its size %llu",
				     w->ino, (unsigned long long)size);
			fsck_ifix_get(f, w->ino)->size =
				w->maxf * GAZE_BLOCK_SIZE;
		}
	} else if (GAZE_S_ISLNK(w->mode)) {
		if ((inl && size != used) || !size || size > GAZE_SYMLINK_MAX ||
		    (!inl && w->maxf != 1)) {
			fsck_problem(f, PR_symlink_size_bad, "inode %u: symlink of size %llu does not match its target",
				     w->ino, (unsigned long long)size);
			if (inl && used)
				fsck_ifix_get(f, w->ino)->size = used;
		}
	} else if (!GAZE_S_ISDIR(w->mode) && w->maxf) {
		fsck_problem(f, PR_special_has_blocks, "inode %u: a special file with data blocks",
			     w->ino);
	}
}

struct fsck_dir *
fsck_dir_find(struct fsck *f, u32 ino)
{
	size_t lo = 0, hi = f->nr_dirs, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (f->dirs[mid].ino == ino)
			return &f->dirs[mid];
		if (f->dirs[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct fsck_xlink *
fsck_xlink_find(struct fsck *f, u32 ino)
{
	size_t lo = 0, hi = f->nr_xl, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (f->xl[mid].ino == ino)
			return &f->xl[mid];
		if (f->xl[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void
xlink_add(struct fsck *f, u32 ino, u32 nlink, u32 found)
{
	size_t lo = 0, hi = f->nr_xl, mid;

	/* in order: pass 1 appends (nid order), pass 2 rarely inserts */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (f->xl[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	f->xl = fsck_grow(f->xl, &f->cap_xl, f->nr_xl, sizeof(*f->xl));
	memmove(&f->xl[lo + 1], &f->xl[lo], (f->nr_xl - lo) * sizeof(*f->xl));
	f->xl[lo] = (struct fsck_xlink){ ino, nlink, found };
	f->nr_xl++;
	nid_links_set(&f->nid[ino], FSCK_XLINK);
}

/* pass 1, in nid order: directories get an entry, others a count */
static void
links_init(struct fsck *f, u32 nid, const struct gaze_inode *in)
{
	u32 nlink = le32_to_cpu(in->nlink);

	if (GAZE_S_ISDIR(le16_to_cpu(in->mode))) {
		f->dirs = fsck_grow(f->dirs, &f->cap_dirs, f->nr_dirs,
				    sizeof(*f->dirs));
		f->dirs[f->nr_dirs++] = (struct fsck_dir){ .ino = nid,
			.nlink = nlink, .parent = le32_to_cpu(in->parent) };
		return;
	}
	if (nlink >= FSCK_XLINK)
		xlink_add(f, nid, nlink, 0);
	else
		nid_links_set(&f->nid[nid], nlink);
}

/* nlink of an inode as stored (for messages) */
static u32
disk_nlink(struct fsck *f, u32 ino)
{
	struct gaze_inode *in = malloc(sizeof(*in));
	u32 n = 0;

	if (in && !fsck_read(f, fsck_imap_get(f, ino), in))
		n = le32_to_cpu(in->nlink);
	free(in);
	return n;
}

/* pass 2: one more link found to non-directory ino */
static void
link_found(struct fsck *f, u32 ino)
{
	struct fsck_nid *n = &f->nid[ino];
	struct fsck_xlink *x;

	if (nid_links(n) == FSCK_XLINK) {
		x = fsck_xlink_find(f, ino);
		if (x)
			x->found++;
	} else if (!nid_links(n)) {
		u32 d = disk_nlink(f, ino);

		xlink_add(f, ino, d, d + 1);
	} else {
		nid_links_set(n, nid_links(n) - 1);
	}
}

static void
check_inode(struct fsck *f, u32 nid, u64 addr, const struct gaze_inode *in,
	    struct iwalk *w)
{
	u32 flags = le32_to_cpu(in->flags), k;
	u16 mode = le16_to_cpu(in->mode);
	static const u64 first[GAZE_NR_INODE_NIDS] = {
		GAZE_ADDRS_PER_INODE,
		GAZE_ADDRS_PER_INODE + GAZE_ADDRS_PER_DNODE,
		GAZE_ADDRS_PER_INODE + 2 * GAZE_ADDRS_PER_DNODE,
		GAZE_ADDRS_PER_INODE + 2 * GAZE_ADDRS_PER_DNODE +
			(u64)GAZE_NIDS_PER_INDIRECT * GAZE_ADDRS_PER_DNODE,
		GAZE_ADDRS_PER_INODE + 2 * GAZE_ADDRS_PER_DNODE +
			2ull * GAZE_NIDS_PER_INDIRECT * GAZE_ADDRS_PER_DNODE,
	};
	static const int height[GAZE_NR_INODE_NIDS] = { 1, 1, 2, 2, 3 };
	struct fsck_nid *n = &f->nid[nid];
	size_t nslots = f->nr_slots;

	nid_kind_set(n, FK_INODE);
	nid_type_set(n, GAZE_MODE_DTYPE(mode));
	if (!blk_claim(f, addr, GAZE_SUM_NODE, nid, 0, nid)) {
		nid_kind_set(n, FK_BAD);
		return;
	}
	links_init(f, nid, in);
	f->valid_inodes++;
	f->valid_nodes++;
	f->st.inodes++;
	if (GAZE_S_ISDIR(mode))
		f->st.dirs++;
	else if (GAZE_S_ISREG(mode))
		f->st.files++;
	else if (GAZE_S_ISLNK(mode))
		f->st.symlinks++;
	else
		f->st.others++;
	w->ino = nid;
	w->flags = flags;
	w->mode = mode;
	w->clog = (le64_to_cpu(f->sb.feature_incompat) &
		   GAZE_FEATURE_INCOMPAT_COMPRESSION) ?
		  in->compress_log_cluster : 0;
	w->compr = 0;
	w->cl_n = 0;
	if (in->compress_log_cluster && !w->clog)
		fsck_problem(f, PR_compress_no_feature, "inode %u: compression settings without the compression feature",
			     nid);
	w->blocks = 0;
	w->maxf = 0;
	if ((flags & (GAZE_IF_INLINE_DATA | GAZE_IF_INLINE_DENTRY)) &&
	    !(le64_to_cpu(f->sb.feature_incompat) &
	      GAZE_FEATURE_INCOMPAT_INLINE_DATA))
		fsck_problem(f, PR_inline_no_feature, "inode %u: inline content without the inline_data feature",
			     nid);
	if (GAZE_S_ISDIR(mode) && !(flags & (GAZE_IF_INLINE_DENTRY |
					     GAZE_IF_DIR_HASHED))) {
		fsck_problem(f, PR_dir_format_bad, "directory %u is neither inline nor hashed",
			     nid);
		nid_flags_set(f, nid, NF_DIRBAD);
	}
	if (!(flags & (GAZE_IF_INLINE_DATA | GAZE_IF_INLINE_DENTRY))) {
		walk_addrs(f, w, nid, in->i.addr, GAZE_ADDRS_PER_INODE, 0);
		for (k = 0; k < GAZE_NR_INODE_NIDS; k++) {
			u32 c = le32_to_cpu(in->nids[k]);

			if (c)
				walk_node(f, w, nid, k, c, first[k], 1,
					  height[k]);
		}
	} else {
		for (k = 0; k < GAZE_NR_INODE_NIDS; k++)
			if (in->nids[k]) {
				fsck_problem(f, PR_inline_has_nodes, "inode %u: inline inode with map nodes",
					     nid);
				fsck_add_slot(f, nid, nid, k, SLOT_NID);
			}
	}
	if (w->cl_n)
		cluster_finish(f, w);
	if (w->compr != le64_to_cpu(in->compr_blocks)) {
		fsck_problem(f, PR_compr_count, "inode %u: blocks saved by compression %llu, counted %llu",
			     nid, (unsigned long long)le64_to_cpu(in->compr_blocks),
			     (unsigned long long)w->compr);
		fsck_ifix_get(f, nid)->compr = w->compr;
	}
	check_inode_xattrs(f, w, in);
	if (w->blocks != le64_to_cpu(in->blocks))
		fsck_problem(f, PR_inode_block_count, "inode %u: block count %llu, counted %llu",
			     nid, (unsigned long long)le64_to_cpu(in->blocks),
			     (unsigned long long)w->blocks);
	/* the count the repair leaves (bad pointers are cleared) */
	if (w->blocks != le64_to_cpu(in->blocks) || f->nr_slots != nslots)
		fsck_ifix_get(f, nid)->blocks = w->blocks;
	check_inode_size(f, w, in);
	if ((flags & GAZE_IF_ORPHAN) && !nid_has(f, nid, NF_ORPHAN_LIST)) {
		fsck_problem(f, PR_orphan_unlisted, "inode %u is marked orphan but not on the orphan list",
			     nid);
		fsck_ifix_get(f, nid)->clear_orphan = true;
	}
}

/*
 * Whether the summary entry of block off of main zone zi may name a live
 * block.  With lazy_summary the entries of blocks that are no longer
 * valid are left as they were, so only a block the usage bitmap marks
 * valid counts; an absent usage block reads as zeros.  When the usage
 * block cannot be read, every entry counts, as without the feature.
 */
static bool
summary_may_be_live(struct fsck *f, u32 zi, u32 off)
{
	u32 n = zi * f->lay.usage_blocks_per_zone +
		off / GAZE_USAGE_BITS_PER_BLOCK;
	const struct gaze_usage_block *ub;

	if (!gaze_sb_lazy_summary(&f->sb))
		return true;
	if (!fsck_tbl_addr(f, GAZE_TABLE_USAGE, n))
		return fsck_tbl_bad(f, GAZE_TABLE_USAGE, n);
	ub = tbl_block(f, GAZE_TABLE_USAGE, n);
	if (!ub)
		return true;
	off %= GAZE_USAGE_BITS_PER_BLOCK;
	return ub->bits[off / 8] & (1u << (off % 8));
}

/*
 * Entries of imap blocks that cannot be read: every valid node block's
 * summary names its nid, so the newest block whose header carries that
 * nid is taken as the node (the repair writes the block again).
 */
static int
imap_rebuild(struct fsck *f)
{
	u32 zb = le32_to_cpu(f->sb.zone_blocks);
	u32 cap = le32_to_cpu(f->sb.zone_cap);
	u32 spz = f->lay.summary_blocks_per_zone;
	u32 nb = f->tbl_n[GAZE_TABLE_IMAP], b, zi, off, nid, n = 0, sn, end;
	u32 ns = f->tbl_n[GAZE_TABLE_SUMMARY];
	struct fsck_tib *tb;
	struct gaze_mhdr *h, *o;
	u8 *blk;
	u64 addr, *slot;

	for (b = fsck_tbl_next(f, GAZE_TABLE_IMAP, 0, nb); b < nb;
	     b = fsck_tbl_next(f, GAZE_TABLE_IMAP, b + 1, nb)) {
		if (!fsck_tbl_bad(f, GAZE_TABLE_IMAP, b) ||
		    fsck_tbl_addr(f, GAZE_TABLE_IMAP, b))
			continue;
		tb = tib_of(f, GAZE_TABLE_IMAP, b);
		if (!tb->over)
			tb->over = calloc(GAZE_ADDRS_PER_BLOCK, sizeof(u64 *));
		if (!tb->over)
			return -ENOMEM;
		tb->over[b % GAZE_ADDRS_PER_BLOCK] =
			calloc(GAZE_IMAP_PER_BLOCK, sizeof(u64));
		if (!tb->over[b % GAZE_ADDRS_PER_BLOCK])
			return -ENOMEM;
		n++;
	}
	if (!n)
		return 0;
	blk = malloc(2 * GAZE_BLOCK_SIZE);
	if (!blk)
		return -ENOMEM;
	h = (void *)blk;
	o = (void *)(blk + GAZE_BLOCK_SIZE);
	/* node blocks are named by the stored summary blocks only */
	for (sn = fsck_tbl_next(f, GAZE_TABLE_SUMMARY, 0, ns); sn < ns;
	     sn = fsck_tbl_next(f, GAZE_TABLE_SUMMARY, sn + 1, ns)) {
		zi = sn / spz;
		off = (sn % spz) * GAZE_SUMMARY_PER_BLOCK;
		end = min(off + GAZE_SUMMARY_PER_BLOCK, cap);
		if (zi >= f->lay.main_zone_count)
			break;
		for (; off < end; off++) {
			const struct gaze_summary *s = fsck_summary_get(f, zi, off);
			u32 magic;

			if (s->type != GAZE_SUM_NODE)
				continue;
			nid = le32_to_cpu(s->nid);
			b = nid / GAZE_IMAP_PER_BLOCK;
			if (b >= nb || !imap_over(f, b) ||
			    nid <= GAZE_NID_RESERVED ||
			    !summary_may_be_live(f, zi, off))
				continue;
			addr = (u64)(f->lay.main_zone_start + zi) * zb + off;
			if (fsck_read(f, addr, h))
				continue;
			magic = le32_to_cpu(h->magic);
			if ((magic != GAZE_MAGIC_INODE && magic != GAZE_MAGIC_DNODE &&
			     magic != GAZE_MAGIC_INODE_IND &&
			     magic != GAZE_MAGIC_XATTR) ||
			    gaze_fmt_hdr_verify(h, magic, f->uuid, addr, NULL) ||
			    le32_to_cpu(h->nid) != nid ||
			    le64_to_cpu(h->seq) > f->cp_seq)
				continue;
			slot = &imap_over(f, b)[nid % GAZE_IMAP_PER_BLOCK];
			if (*slot && !fsck_read(f, *slot, o) &&
			    le64_to_cpu(o->seq) >= le64_to_cpu(h->seq))
				continue;
			*slot = addr;
		}
	}
	free(blk);
	fsck_problem(f, PR_imap_unreadable, "%u unreadable imap blocks: node addresses taken from the summaries",
		     n);
	return 0;
}

/* a directory inode that verifies once its inline entries are ignored */
static bool
inline_dir_ok(struct fsck *f, u32 nid, u64 addr, const struct gaze_inode *in)
{
	struct gaze_inode *c;
	bool ok;

	if (!(le32_to_cpu(in->flags) & GAZE_IF_INLINE_DENTRY) ||
	    le32_to_cpu(in->hdr.nid) != nid)
		return false;
	c = malloc(sizeof(*c));
	if (!c)
		return false;
	memcpy(c, in, sizeof(*c));
	c->inline_used = 0;
	memset(c->i.data, 0, sizeof(c->i.data));
	gaze_fmt_csum_set(c);
	ok = !gaze_fmt_inode_verify(c, &f->sb, addr, NULL);
	free(c);
	return ok;
}

static int
pass1(struct fsck *f)
{
	struct iwalk w = { 0 };
	struct fsck_scan *scan = NULL;
	const struct fsck_scan_ent *e;
	u32 nid, i, b, end, last = 0;
	u32 max_nid = le32_to_cpu(f->sb.max_nid);
	u32 nb = f->tbl_n[GAZE_TABLE_IMAP];
	size_t nfb;
	const char *why;
	u64 addr;
	int ret = 0;

	/* nid range in use (the stored imap blocks only), and kinds */
	for (b = fsck_tbl_next(f, GAZE_TABLE_IMAP, 0, nb); b < nb;
	     b = fsck_tbl_next(f, GAZE_TABLE_IMAP, b + 1, nb)) {
		if (!fsck_tbl_addr(f, GAZE_TABLE_IMAP, b) && !imap_over(f, b))
			continue;
		nid = max(b * GAZE_IMAP_PER_BLOCK, (u32)GAZE_ROOT_INO);
		end = (u32)min_t(u64, (u64)(b + 1) * GAZE_IMAP_PER_BLOCK,
				 max_nid);
		for (; nid < end; nid++)
			if (fsck_imap_get(f, nid))
				last = nid;
	}
	f->nid_end = last + 1;
	f->nid = calloc(f->nid_end + 1, sizeof(*f->nid));
	/*
	 * The flag bitmaps in one allocation: large enough to be mapped
	 * on its own, so the pages of flags nobody gets are never touched
	 * (calloc of a small chunk may clear reused heap memory).
	 */
	nfb = ALIGN(f->nid_end / 8 + 1, (size_t)64);
	f->nf[0] = calloc(FSCK_NR_NF, nfb);
	if (!f->nf[0])
		ret = -ENOMEM;
	for (i = 1; f->nf[0] && i < FSCK_NR_NF; i++)
		f->nf[i] = f->nf[0] + i * nfb;
	for (i = 0; i < 4; i++)
		w.buf[i] = malloc(GAZE_BLOCK_SIZE);
	if (ret || !f->nid || !w.buf[0] || !w.buf[1] || !w.buf[2] ||
	    !w.buf[3]) {
		ret = -ENOMEM;
		goto out;
	}
	for (nid = GAZE_ROOT_INO; nid < f->nid_end; nid++)
		if (fsck_imap_get(f, nid))
			nid_kind_set(&f->nid[nid], FK_NODE);
	if (fsck_imap_get(f, GAZE_NID_RESERVED))
		fsck_problem(f, PR_imap_reserved_nid, "imap: the reserved nid 1 is in use");
	for (i = 0; i < f->nr_orphans; i++) {
		u32 o = f->orphans[i];

		if (o <= GAZE_ROOT_INO || o >= f->nid_end ||
		    nid_kind(&f->nid[o]) != FK_NODE) {
			fsck_problem(f, PR_orphan_list_bad_ino, "orphan list: %u is not an inode in use",
				     o);
			continue;
		}
		nid_flags_set(f, o, NF_ORPHAN_LIST);
	}
	if (!!f->nr_orphans != !!(le32_to_cpu(f->cp.flags) & GAZE_CP_ORPHANS))
		fsck_problem(f, PR_cp_orphan_flag, "checkpoint: orphan flag does not match the list");

	f->prog_last = -1;
	ret = fsck_scan_start(f, &scan);
	if (ret)
		goto out;
	while ((e = fsck_scan_next(scan))) {
		const struct gaze_inode *in = e->blk;

		nid = e->nid;
		addr = e->addr;
		fsck_progress(f, "pass 1: nodes", nid, f->nid_end - 1);
		/* claimed as a child since the batch was described? */
		if (nid_kind(&f->nid[nid]) != FK_NODE)
			continue;
		if (e->err) {
			ret = e->err;
			goto out;
		}
		if (!e->inode)
			continue;		/* a child node: claimed later */
		why = e->why;
		ret = e->ret;
		if (ret == -EFSCORRUPTED && why && !strncmp(why, "dirent:", 7) &&
		    inline_dir_ok(f, nid, addr, in)) {
			fsck_problem(f, PR_inline_dir_bad, "directory %u: inline entries are invalid: %s",
				     nid, why);
			nid_flags_set(f, nid, NF_DIRBAD);
			ret = 0;
		}
		if (ret == -EFSCORRUPTED &&
		    le64_to_cpu(in->hdr.seq) <= f->cp_seq) {
			memcpy(w.buf[0], in, GAZE_BLOCK_SIZE);
			if (node_salvage(f, w.buf[0], GAZE_MAGIC_INODE, addr,
					 nid, nid, 0)) {
				fsck_problem(f, PR_inode_salvaged, "inode %u at %llu: %s; fixed in place",
					     nid, (unsigned long long)addr, why);
				salvage_add(f, nid, addr, w.buf[0]);
				check_inode(f, nid, addr,
					    (struct gaze_inode *)w.buf[0], &w);
				ret = 0;
				continue;
			}
		}
		if (ret) {
			fsck_problem(f, PR_inode_invalid, "inode %u at %llu is invalid: %s",
				     nid, (unsigned long long)addr, why);
			nid_kind_set(&f->nid[nid], FK_BAD);
			ret = 0;
			continue;
		}
		/* the walk reads other blocks into w.buf[1..3]; the scan
		 * keeps this one until the next fsck_scan_next */
		check_inode(f, nid, addr, in, &w);
	}
	fsck_scan_stop(scan);
	scan = NULL;
	fsck_progress(f, "pass 1: nodes", 1, 1);
	if (f->nid_end <= GAZE_ROOT_INO || nid_kind(&f->nid[GAZE_ROOT_INO]) != FK_INODE ||
	    !nid_isdir(&f->nid[GAZE_ROOT_INO])) {
		fsck_problem(f, PR_root_missing, "the root directory (inode 2) is missing or invalid");
		f->fatal = true;
	}
	for (nid = GAZE_ROOT_INO; nid < f->nid_end; nid++) {
		if (nid_kind(&f->nid[nid]) != FK_NODE)
			continue;
		fsck_problem(f, PR_node_unowned, "node %u at %llu is not used by any inode",
			     nid, (unsigned long long)fsck_imap_get(f, nid));
		nid_kind_set(&f->nid[nid], FK_BAD);
	}
out:
	fsck_scan_stop(scan);
	for (i = 0; i < 4; i++)
		free(w.buf[i]);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Directories                                                       */
/* ---------------------------------------------------------------- */

struct dwalk {
	u32	dir;
	bool	report;
	bool	bad;
	u32	count;
	struct gaze_inode *in;
	u8	*blk;		/* dir block */
	u8	*nb;		/* map node */
	u32	nb_nid;
	u64	key[2];
	fsck_dirent_fn fn;
	void	*ctx;
};

static void
dir_bad(struct fsck *f, struct dwalk *d, enum fsck_pr pr, const char *fmt,
	u64 a, u64 b)
{
	d->bad = true;
	if (!d->report)
		return;
	nid_flags_set(f, d->dir, NF_DIRBAD);
	fsck_problem(f, pr, fmt, (unsigned long long)d->dir,
		     (unsigned long long)a, (unsigned long long)b);
}

/* file block fblk of the directory: 0 for a hole or a bad path */
static u64
dir_bmap(struct fsck *f, struct dwalk *d, u64 fblk)
{
	const __le32 *nids = d->in->nids;
	u32 nid;

	if (fblk < GAZE_ADDRS_PER_INODE)
		return le64_to_cpu(d->in->i.addr[fblk]);
	fblk -= GAZE_ADDRS_PER_INODE;
	if (fblk >= 2 * GAZE_ADDRS_PER_DNODE)
		return 0;
	nid = le32_to_cpu(nids[fblk / GAZE_ADDRS_PER_DNODE]);
	if (!nid || nid >= f->nid_end || nid_kind(&f->nid[nid]) != FK_CHILD)
		return 0;
	if (d->nb_nid != nid) {
		if (fsck_read(f, fsck_imap_get(f, nid), d->nb))
			return 0;
		d->nb_nid = nid;
	}
	return le64_to_cpu(((struct gaze_dnode *)d->nb)->addr[fblk %
							GAZE_ADDRS_PER_DNODE]);
}

/* generic: indirect levels for large directories */
static u64
dir_bmap_full(struct fsck *f, struct dwalk *d, u64 fblk)
{
	u64 base = GAZE_ADDRS_PER_INODE + 2 * GAZE_ADDRS_PER_DNODE;
	u64 span = (u64)GAZE_NIDS_PER_INDIRECT * GAZE_ADDRS_PER_DNODE;
	struct gaze_inode_ind *ind;
	u32 nid, k, c;
	u64 r;

	if (fblk < base)
		return dir_bmap(f, d, fblk);
	r = fblk - base;
	k = (u32)(r / span);
	if (k >= GAZE_NR_INDIRECT_NODES)
		return 0;
	nid = le32_to_cpu(d->in->nids[GAZE_NR_DIRECT_NODES + k]);
	if (!nid || nid >= f->nid_end || nid_kind(&f->nid[nid]) != FK_CHILD)
		return 0;
	if (fsck_read(f, fsck_imap_get(f, nid), d->nb))
		return 0;
	d->nb_nid = 0;
	ind = (struct gaze_inode_ind *)d->nb;
	r %= span;
	c = le32_to_cpu(ind->nid[r / GAZE_ADDRS_PER_DNODE]);
	if (!c || c >= f->nid_end || nid_kind(&f->nid[c]) != FK_CHILD)
		return 0;
	if (fsck_read(f, fsck_imap_get(f, c), d->nb))
		return 0;
	return le64_to_cpu(((struct gaze_dnode *)d->nb)->addr[r %
							GAZE_ADDRS_PER_DNODE]);
}

/* the structure of one entry (what the block verifier checks) */
static bool
dirent_sane(const struct fsck *f, const struct gaze_dirent *de, u32 room)
{
	u32 nl = de->name_len;

	(void)f;
	return nl && le16_to_cpu(de->rec_len) == GAZE_DIRENT_LEN(nl) &&
	       GAZE_DIRENT_LEN(nl) <= room;
}

/* a name that may be stored: no '/' or NUL, not . or .. */
static bool
dirent_name_ok(const struct gaze_dirent *de)
{
	const u8 *name = (const u8 *)(de + 1);
	u32 nl = de->name_len, i;

	for (i = 0; i < nl; i++)
		if (name[i] == '/' || !name[i])
			return false;
	if (name[0] == '.' && (nl == 1 || (nl == 2 && name[1] == '.')))
		return false;
	return true;
}

/* entries of one region (inline area or bucket); sorted by hash */
static void
dir_entries(struct fsck *f, struct dwalk *d, const u8 *p, u32 used,
	    u32 depth, u64 prefix, bool *stop)
{
	const struct gaze_dirent *de, *prev = NULL;
	u32 key[4], pos, i;
	u64 h;

	for (i = 0; i < 4; i++)
		key[i] = le32_to_cpu(f->sb.dir_hash_seed[i]);
	for (pos = 0; pos + sizeof(*de) <= used && !*stop;
	     pos += le16_to_cpu(de->rec_len)) {
		const char *name;

		de = (const void *)(p + pos);
		name = (const char *)(de + 1);
		if (!dirent_sane(f, de, used - pos)) {
			dir_bad(f, d, PR_dirent_malformed, "directory %llu: malformed entry at byte %llu of a block (%llu)",
				pos, 0);
			break;
		}
		if (!dirent_name_ok(de)) {
			dir_bad(f, d, PR_dirent_name_bad, "directory %llu: entry with an invalid name at byte %llu (%llu)",
				pos, 0);
			continue;
		}
		h = gaze_siphash(key, name, de->name_len);
		if (h != le64_to_cpu(de->hash)) {
			dir_bad(f, d, PR_dirent_hash_bad, "directory %llu: entry hash %#llx does not match its name (%#llx)",
				le64_to_cpu(de->hash), h);
			continue;
		}
		if (depth && (h >> (64 - depth)) != prefix) {
			dir_bad(f, d, PR_dirent_wrong_bucket, "directory %llu: entry with hash %#llx is in the wrong bucket (prefix %#llx)",
				h, prefix);
			continue;
		}
		if (prev && le64_to_cpu(prev->hash) > h)
			dir_bad(f, d, PR_dirent_unsorted, "directory %llu: entries not sorted by hash (%#llx after %#llx)",
				h, le64_to_cpu(prev->hash));
		if (prev && prev->hash == de->hash &&
		    prev->name_len == de->name_len &&
		    !memcmp(prev + 1, name, de->name_len)) {
			dir_bad(f, d, PR_dirent_duplicate, "directory %llu: duplicate entry (hash %#llx, %llu)",
				h, 0);
			continue;
		}
		prev = de;
		d->count++;
		if (d->fn && d->fn(f, d->ctx, name, de->name_len,
				   le32_to_cpu(de->ino), de->file_type))
			*stop = true;
	}
}

static int
dir_read_block(struct fsck *f, struct dwalk *d, u64 lblk, u32 magic)
{
	const struct gaze_mhdr *h = (const void *)d->blk;
	const char *why = NULL;
	u64 addr = dir_bmap_full(f, d, lblk);
	int ret;

	if (!GAZE_ADDR_IS_REAL(addr)) {
		dir_bad(f, d, PR_dir_block_missing, "directory %llu: block %llu is missing (%#llx)",
			lblk, addr);
		return -EFSCORRUPTED;
	}
	ret = fsck_read(f, addr, d->blk);
	if (!ret)
		ret = magic == GAZE_MAGIC_DIR_BUCKET ?
		      gaze_fmt_dir_bucket_verify((void *)d->blk, &f->sb, addr,
						 &why) :
		      gaze_fmt_dir_index_verify((void *)d->blk, &f->sb, addr,
						&why);
	if (!ret && (le32_to_cpu(h->ino) != d->dir ||
		     le32_to_cpu(h->index) != lblk)) {
		why = "header names another directory or block";
		ret = -EFSCORRUPTED;
	}
	if (!ret && le64_to_cpu(h->seq) > f->cp_seq) {
		why = "newer than the checkpoint";
		ret = -EFSCORRUPTED;
	}
	if (ret) {
		d->bad = true;
		if (d->report) {
			nid_flags_set(f, d->dir, NF_DIRBAD);
			fsck_problem(f, PR_dir_block_invalid, "directory %u: block %llu at %llu is invalid: %s",
				     d->dir, (unsigned long long)lblk,
				     (unsigned long long)addr,
				     why ? why : "read error");
		}
		return -EFSCORRUPTED;
	}
	return 0;
}

/* a bucket and its overflow chain */
static void
dir_chain(struct fsck *f, struct dwalk *d, u32 b, u32 nb, u8 *seen,
	  u32 depth, u64 prefix, bool *stop)
{
	struct gaze_dir_bucket *bk = (void *)d->blk;
	u32 first = 1;

	while (!*stop) {
		if (b >= nb || BIT_TEST(seen, b)) {
			dir_bad(f, d, PR_dir_bucket_link, "directory %llu: bucket %llu is out of range or linked twice (of %llu)",
				b, nb);
			return;
		}
		BIT_SET(seen, b);
		if (dir_read_block(f, d, GAZE_DIR_BUCKET_BASE + (u64)b,
				   GAZE_MAGIC_DIR_BUCKET))
			return;
		if (bk->local_depth != depth && !first)
			dir_bad(f, d, PR_dir_overflow_depth, "directory %llu: overflow bucket %llu has another depth (%llu)",
				b, bk->local_depth);
		first = 0;
		dir_entries(f, d, bk->entries, le16_to_cpu(bk->used), depth,
			    prefix, stop);
		b = le32_to_cpu(bk->overflow);
		if (!b)
			return;
	}
}

static void
dir_hashed(struct fsck *f, struct dwalk *d, bool *stop)
{
	struct gaze_inode *in = d->in;
	u32 D = in->dir_depth, nb = le32_to_cpu(in->dir_nbuckets);
	struct gaze_dir_index *di;
	u8 *seen, *ib;
	u64 nslots = 1ull << D, s, cur = ~0ull;
	u32 b, L, i;

	if (!nb || nb > (1u << 24)) {
		dir_bad(f, d, PR_dir_bucket_count, "directory %llu: %llu buckets (%llu)", nb, 0);
		return;
	}
	seen = calloc(DIV_ROUND_UP(nb, 8), 1);
	ib = malloc(GAZE_BLOCK_SIZE);
	if (!seen || !ib)
		goto out;
	if (!D) {
		dir_chain(f, d, 0, nb, seen, 0, 0, stop);
		goto leak;
	}
	for (s = 0; s < nslots && !*stop;) {
		if (s / GAZE_DIR_INDEX_PER_BLOCK != cur) {
			cur = s / GAZE_DIR_INDEX_PER_BLOCK;
			if (dir_read_block(f, d, cur, GAZE_MAGIC_DIR_INDEX))
				goto out;
			memcpy(ib, d->blk, GAZE_BLOCK_SIZE);
		}
		di = (void *)ib;
		b = le32_to_cpu(di->bucket[s % GAZE_DIR_INDEX_PER_BLOCK]);
		if (b >= nb || BIT_TEST(seen, b)) {
			dir_bad(f, d, PR_dir_index_slot, "directory %llu: index slot %llu names bad or repeated bucket %llu",
				s, b);
			s++;
			continue;
		}
		if (dir_read_block(f, d, GAZE_DIR_BUCKET_BASE + (u64)b,
				   GAZE_MAGIC_DIR_BUCKET)) {
			BIT_SET(seen, b);
			s++;
			continue;
		}
		L = ((struct gaze_dir_bucket *)d->blk)->local_depth;
		if (L > D || s % (1ull << (D - L))) {
			dir_bad(f, d, PR_dir_bucket_depth, "directory %llu: bucket %llu has local depth %llu that does not fit its slots",
				b, L);
			BIT_SET(seen, b);
			s++;
			continue;
		}
		for (i = 1; i < (1u << (D - L)); i++) {
			u64 t = s + i;

			if (t / GAZE_DIR_INDEX_PER_BLOCK != cur)
				break;	/* checked when that block is read */
			if (le32_to_cpu(di->bucket[t % GAZE_DIR_INDEX_PER_BLOCK]) != b) {
				dir_bad(f, d, PR_dir_index_gap, "directory %llu: index slots of bucket %llu are not contiguous (slot %llu)",
					b, t);
				break;
			}
		}
		dir_chain(f, d, b, nb, seen, L, s >> (D - L), stop);
		s += 1ull << (D - L);
	}
leak:
	for (b = 0; b < nb && !*stop && !d->bad; b++)
		if (!BIT_TEST(seen, b))
			dir_bad(f, d, PR_dir_bucket_unreachable, "directory %llu: bucket %llu is not reachable from the index (%llu)",
				b, 0);
out:
	free(seen);
	free(ib);
}

int
fsck_dir_walk(struct fsck *f, u32 dir, fsck_dirent_fn fn, void *ctx,
	      bool report)
{
	struct dwalk d = { .dir = dir, .report = report, .fn = fn, .ctx = ctx };
	u32 flags;
	bool stop = false;
	int ret = -ENOMEM;

	d.in = malloc(GAZE_BLOCK_SIZE);
	d.blk = malloc(GAZE_BLOCK_SIZE);
	d.nb = malloc(GAZE_BLOCK_SIZE);
	if (!d.in || !d.blk || !d.nb)
		goto out;
	ret = fsck_read(f, fsck_imap_get(f, dir), d.in);
	if (ret)
		goto out;
	flags = le32_to_cpu(d.in->flags);
	if (flags & GAZE_IF_INLINE_DENTRY)
		dir_entries(f, &d, d.in->i.data, le16_to_cpu(d.in->inline_used),
			    0, 0, &stop);
	else if (flags & GAZE_IF_DIR_HASHED)
		dir_hashed(f, &d, &stop);
	if (report && !stop && d.count != le32_to_cpu(d.in->dir_nentries)) {
		fsck_problem(f, PR_dir_nentries, "directory %u: %u entries, dir_nentries says %u",
			     dir, d.count, le32_to_cpu(d.in->dir_nentries));
		fsck_ifix_get(f, dir)->nentries = d.count;
	}
	ret = d.bad ? -EFSCORRUPTED : 0;
out:
	free(d.in);
	free(d.blk);
	free(d.nb);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Pass 2: namespace                                                 */
/* ---------------------------------------------------------------- */

struct bfs {
	u32	*q;
	size_t	head, tail, cap;
	u32	dir;
};

static void
bfs_push(struct bfs *b, u32 ino)
{
	b->q = fsck_grow(b->q, &b->cap, b->tail, sizeof(*b->q));
	b->q[b->tail++] = ino;
}

static int
ns_entry(struct fsck *f, void *ctx, const char *name, u32 len, u32 ino,
	 u8 dtype)
{
	struct bfs *b = ctx;
	struct fsck_nid *t;
	u32 dir = b->dir;

	if (ino <= GAZE_NID_RESERVED || ino >= f->nid_end ||
	    nid_kind(&f->nid[ino]) != FK_INODE) {
		fsck_problem(f, PR_dirent_bad_ino, "directory %u: entry '%.*s' points at %u, which is not a valid inode",
			     dir, (int)len, name, ino);
		fsck_add_ent(f, dir, name, len, ino, dtype, ENT_DROP);
		return 0;
	}
	t = &f->nid[ino];
	if (nid_isdir(t)) {
		struct fsck_dir *td = fsck_dir_find(f, ino);
		struct fsck_dir *dd = fsck_dir_find(f, dir);

		if (nid_has(f, ino, NF_REACHED) || ino == GAZE_ROOT_INO ||
		    !td) {
			fsck_problem(f, PR_dir_hard_link, "directory %u: entry '%.*s' is a second link to directory %u",
				     dir, (int)len, name, ino);
			fsck_add_ent(f, dir, name, len, ino, dtype, ENT_DROP);
			return 0;
		}
		nid_flags_set(f, ino, NF_REACHED);
		td->found = dir;
		if (dd)
			dd->subdirs++;
		bfs_push(b, ino);
	} else {
		nid_flags_set(f, ino, NF_REACHED);
		link_found(f, ino);
	}
	if (dtype != nid_type(t)) {
		fsck_problem(f, PR_dirent_type, "directory %u: entry '%.*s' has file type %u, inode %u is type %u",
			     dir, (int)len, name, dtype, ino, nid_type(t));
		fsck_add_ent(f, dir, name, len, ino, (u8)nid_type(t),
			     ENT_TYPE);
	}
	return 0;
}

static int
ns_bfs(struct fsck *f, struct bfs *b, u32 start)
{
	int ret;

	bfs_push(b, start);
	nid_flags_set(f, start, NF_REACHED);
	while (b->head < b->tail) {
		b->dir = b->q[b->head++];
		fsck_progress(f, "pass 2: directories", b->head,
			      f->st.dirs ? f->st.dirs : 1);
		ret = fsck_dir_walk(f, b->dir, ns_entry, b, true);
		if (ret && ret != -EFSCORRUPTED)
			return ret;
	}
	return 0;
}

/* the topmost unreachable directory above dir, following parents */
static u32
ns_top(struct fsck *f, u32 dir)
{
	u32 top = dir, p, steps = 0;
	struct fsck_dir *d;

	for (;;) {
		d = fsck_dir_find(f, top);
		p = d ? d->parent : 0;
		if (p <= GAZE_NID_RESERVED || p >= f->nid_end || p == top ||
		    nid_kind(&f->nid[p]) != FK_INODE ||
		    !nid_isdir(&f->nid[p]) ||
		    nid_has(f, p, NF_REACHED) || ++steps > 4096)
			return top;
		top = p;
		if (top == dir)
			return dir;
	}
}

static int
pass2(struct fsck *f)
{
	struct bfs b = { 0 };
	struct fsck_nid *n;
	struct fsck_dir *d;
	struct fsck_xlink *x;
	u32 nid, top;
	int ret;

	f->prog_last = -1;
	ret = ns_bfs(f, &b, GAZE_ROOT_INO);
	if (ret)
		goto out;
	d = fsck_dir_find(f, GAZE_ROOT_INO);
	if (d && d->parent != GAZE_ROOT_INO)
		fsck_problem(f, PR_root_parent, "the root directory's parent is %u, not itself",
			     d->parent);
	if (d)
		d->found = GAZE_ROOT_INO;
	/* orphans to release: unlinked, on the list */
	for (nid = GAZE_ROOT_INO + 1; nid < f->nid_end; nid++) {
		n = &f->nid[nid];
		if (nid_kind(n) != FK_INODE || nid_has(f, nid, NF_REACHED))
			continue;
		d = nid_isdir(n) ? fsck_dir_find(f, nid) : NULL;
		if (nid_has(f, nid, NF_ORPHAN_LIST) &&
		    (d ? !d->nlink : !nid_links(n))) {
			nid_flags_set(f, nid, NF_EVICT | NF_REACHED);
			fsck_problem(f, PR_orphan_release, "orphan inode %u: to be released",
				     nid);
		}
	}
	/* linked inodes on the orphan list: taken off it */
	for (nid = GAZE_ROOT_INO; nid < f->nid_end; nid++) {
		n = &f->nid[nid];
		if (nid_kind(n) != FK_INODE || nid_has(f, nid, NF_EVICT) ||
		    !nid_has(f, nid, NF_ORPHAN_LIST) ||
		    !nid_has(f, nid, NF_REACHED))
			continue;
		fsck_problem(f, PR_orphan_linked, "inode %u is on the orphan list but still linked",
			     nid);
		fsck_ifix_get(f, nid)->clear_orphan = true;
	}
	/* unreachable directories, from the top of each lost subtree */
	for (nid = GAZE_ROOT_INO + 1; nid < f->nid_end; nid++) {
		n = &f->nid[nid];
		if (nid_kind(n) != FK_INODE || nid_has(f, nid, NF_REACHED) ||
		    !nid_isdir(n))
			continue;
		top = ns_top(f, nid);
		nid_flags_set(f, top, NF_LOST);
		fsck_problem(f, PR_dir_unreachable, "directory %u is not reachable from the root",
			     top);
		b.head = b.tail = 0;
		ret = ns_bfs(f, &b, top);
		if (ret)
			goto out;
	}
	for (nid = GAZE_ROOT_INO + 1; nid < f->nid_end; nid++) {
		n = &f->nid[nid];
		if (nid_kind(n) != FK_INODE || nid_has(f, nid, NF_REACHED))
			continue;
		nid_flags_set(f, nid, NF_LOST | NF_REACHED);
		fsck_problem(f, PR_inode_unlinked, "inode %u (%s) is not linked from any directory",
			     nid, nid_type(n) == GAZE_MODE_DTYPE(GAZE_S_IFREG) ?
			     "file" : nid_type(n) == GAZE_MODE_DTYPE(GAZE_S_IFLNK) ?
			     "symlink" : "special file");
	}
	/* link counts and parents */
	for (nid = GAZE_ROOT_INO; nid < f->nid_end; nid++) {
		u32 want, have;

		n = &f->nid[nid];
		if (nid_kind(n) != FK_INODE ||
		    nid_has(f, nid, NF_EVICT | NF_LOST))
			continue;
		if (nid_isdir(n)) {
			d = fsck_dir_find(f, nid);
			if (!d)
				continue;
			want = 2 + d->subdirs;
			have = d->nlink;
			if (d->parent != d->found)
				fsck_problem(f, PR_dir_dotdot, "directory %u: '..' is %u, but it is linked from %u",
					     nid, d->parent, d->found);
		} else if (nid_links(n) == FSCK_XLINK) {
			x = fsck_xlink_find(f, nid);
			if (!x)
				continue;
			want = x->found;
			have = x->nlink;
		} else {
			if (!nid_links(n))
				continue;
			have = disk_nlink(f, nid);
			want = have - nid_links(n);
		}
		if (have != want)
			fsck_problem(f, PR_inode_nlink, "inode %u: link count %u, counted %u",
				     nid, have, want);
	}
out:
	free(b.q);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Pass 3: space                                                     */
/* ---------------------------------------------------------------- */

/*
 * Zone zi's usage bits against the blocks the tree owns there, a byte at
 * a time; live gets both (a block either owns or marks valid).  Usage
 * blocks that are absent read as zeros, and a zone the tree claims
 * nothing in has no bitmap, so an empty zone costs a few lookups.
 * Returns false when nothing is live (live is then not written).
 */
static bool
pass3_usage(struct fsck *f, u32 zi, u8 *live, u32 *owned, u32 *missing,
	    u32 *extra)
{
	u32 cap = le32_to_cpu(f->sb.zone_cap);
	u32 upz = f->lay.usage_blocks_per_zone;
	const u8 *ob = f->owned[zi];
	const struct gaze_usage_block *ub;
	u32 k, j, first, n, o, u, m;

	if (!ob && fsck_tbl_next(f, GAZE_TABLE_USAGE, zi * upz,
				 (zi + 1) * upz) == (zi + 1) * upz)
		return false;
	memset(live, 0, DIV_ROUND_UP(cap, 8));
	for (k = 0; k < upz; k++) {
		first = k * GAZE_USAGE_BITS_PER_BLOCK;	/* a whole byte */
		if (first >= cap)
			break;
		n = min_t(u32, GAZE_USAGE_BITS_PER_BLOCK, cap - first);
		ub = tbl_block(f, GAZE_TABLE_USAGE, zi * upz + k);
		if (!ub && !ob)
			continue;
		for (j = 0; j < DIV_ROUND_UP(n, 8); j++) {
			m = n - j * 8 >= 8 ? 0xffu : (1u << (n - j * 8)) - 1;
			o = ob ? ob[first / 8 + j] : 0;
			u = ub ? ub->bits[j] & m : 0;
			live[first / 8 + j] = (u8)(o | u);
			*owned += (u32)__builtin_popcount(o);
			*missing += (u32)__builtin_popcount(o & ~u);
			*extra += (u32)__builtin_popcount(u & ~o);
		}
	}
	return true;
}

/* summary entries of blocks that are neither owned nor valid (live
 * NULL: no block is): only the stored summary blocks can name an owner */
static u32
pass3_stale(struct fsck *f, u32 zi, const u8 *live)
{
	u32 cap = le32_to_cpu(f->sb.zone_cap);
	u32 spz = f->lay.summary_blocks_per_zone;
	u32 first = zi * spz, last = first + spz;
	const struct gaze_summary_block *sb;
	u32 n, off, end, stale = 0;

	for (n = fsck_tbl_next(f, GAZE_TABLE_SUMMARY, first, last); n < last;
	     n = fsck_tbl_next(f, GAZE_TABLE_SUMMARY, n + 1, last)) {
		off = (n - first) * GAZE_SUMMARY_PER_BLOCK;
		if (off >= cap)
			break;
		end = min(off + GAZE_SUMMARY_PER_BLOCK, cap);
		sb = tbl_block(f, GAZE_TABLE_SUMMARY, n);
		for (; sb && off < end; off++)
			if ((!live || !BIT_TEST(live, off)) &&
			    sb->s[off % GAZE_SUMMARY_PER_BLOCK].type !=
			    GAZE_SUM_NONE)
				stale++;
	}
	return stale;
}

static void
pass3_zone(struct fsck *f, u32 zi, u32 *nfree, u8 *live)
{
	u32 zone = f->lay.main_zone_start + zi;
	const struct gaze_zinfo zc = *fsck_zinfo_get(f, zi), *z = &zc;
	u32 owned = 0, extra = 0, missing = 0, stale;
	int li = fsck_log_of_zone(f, zone);

	if (!pass3_usage(f, zi, live, &owned, &missing, &extra))
		live = NULL;
	/* with lazy_summary, entries of blocks not valid may be stale */
	stale = gaze_sb_lazy_summary(&f->sb) ? 0 : pass3_stale(f, zi, live);
	f->st.valid_blocks += owned;
	if (missing || extra) {
		f->space_bad = true;
		fsck_problem(f, PR_zone_usage_bitmap, "zone %u: usage bitmap has %u referenced blocks clear and %u unreferenced blocks set",
			     zone, missing, extra);
	}
	if (stale) {
		f->space_bad = true;
		fsck_problem(f, PR_zone_summary_stale, "zone %u: %u summary entries name owners of blocks that are not valid",
			     zone, stale);
	}
	if (le32_to_cpu(z->valid) != owned) {
		f->space_bad = true;
		fsck_problem(f, PR_zone_valid_count, "zone %u: valid count %u, counted %u",
			     zone, le32_to_cpu(z->valid), owned);
	}
	if (z->state == GAZE_ZS_FREE)
		(*nfree)++;
	if (li >= 0 && z->state != GAZE_ZS_OPEN)
		fsck_problem(f, PR_zone_log_head_state, "zone %u: head of log %d but in state %u, not OPEN",
			     zone, li, z->state);
	if (li < 0 && z->state == GAZE_ZS_OPEN) {
		f->space_bad = true;
		fsck_problem(f, PR_zone_open_no_log, "zone %u is OPEN but no log writes there",
			     zone);
	}
	if (owned && (z->state == GAZE_ZS_FREE || z->state == GAZE_ZS_PREFREE)) {
		f->space_bad = true;
		fsck_problem(f, PR_zone_free_in_use, "zone %u is %s but holds %u referenced blocks",
			     zone, z->state == GAZE_ZS_FREE ? "FREE" : "PREFREE",
			     owned);
	}
	if (li >= 0 && f->log_need[li] > le32_to_cpu(f->cp.logs[li].offset)) {
		f->space_bad = true;
		fsck_problem(f, PR_zone_past_log_head, "zone %u: referenced blocks lie past the head of log %d (offset %u, needs %u)",
			     zone, li, le32_to_cpu(f->cp.logs[li].offset),
			     f->log_need[li]);
	}
	if (li >= 0 && f->zones[zone].type == GAZE_ZT_SEQ &&
	    f->zones[zone].cond != GAZE_ZC_FULL &&
	    f->zones[zone].wp - f->zones[zone].start <
	    le32_to_cpu(f->cp.logs[li].offset))
		fsck_problem(f, PR_zone_wp_behind, "zone %u: the device write pointer is behind the head of log %d",
			     zone, li);
}

static int
pass3(struct fsck *f)
{
	u32 zi, nfree = 0;
	u8 *live = malloc(DIV_ROUND_UP(le32_to_cpu(f->sb.zone_cap), 8));

	if (!live)
		return -ENOMEM;
	for (zi = 0; zi < f->lay.main_zone_count; zi++) {
		fsck_progress(f, "pass 3: zones", zi + 1,
			      f->lay.main_zone_count);
		pass3_zone(f, zi, &nfree, live);
	}
	free(live);
	if (le64_to_cpu(f->cp.valid_blocks) != f->st.valid_blocks ||
	    le64_to_cpu(f->cp.valid_nodes) != f->valid_nodes ||
	    le32_to_cpu(f->cp.valid_inodes) != f->valid_inodes ||
	    le32_to_cpu(f->cp.free_zones) != nfree) {
		f->cp_counts_bad = true;
		fsck_problem(f, PR_cp_counters, "checkpoint counters (valid blocks %llu, nodes %llu, inodes %u, free zones %u) differ from the counted %llu, %llu, %llu, %u",
			     (unsigned long long)le64_to_cpu(f->cp.valid_blocks),
			     (unsigned long long)le64_to_cpu(f->cp.valid_nodes),
			     le32_to_cpu(f->cp.valid_inodes),
			     le32_to_cpu(f->cp.free_zones),
			     (unsigned long long)f->st.valid_blocks,
			     (unsigned long long)f->valid_nodes,
			     (unsigned long long)f->valid_inodes, nfree);
	}
	if (le64_to_cpu(f->cp.prealloc_blocks) != f->prealloc) {
		f->cp_counts_bad = true;
		fsck_problem(f, PR_cp_prealloc, "checkpoint counts %llu preallocated blocks, the files hold %llu",
			     (unsigned long long)le64_to_cpu(f->cp.prealloc_blocks),
			     (unsigned long long)f->prealloc);
	}
	if (le64_to_cpu(f->cp.compr_logical_blocks) != f->compr_logical ||
	    le64_to_cpu(f->cp.compr_physical_blocks) != f->compr_physical) {
		f->cp_counts_bad = true;
		fsck_problem(f, PR_cp_compr_counters, "checkpoint compression counters (%llu logical, %llu physical blocks) differ from the counted %llu, %llu",
			     (unsigned long long)le64_to_cpu(f->cp.compr_logical_blocks),
			     (unsigned long long)le64_to_cpu(f->cp.compr_physical_blocks),
			     (unsigned long long)f->compr_logical,
			     (unsigned long long)f->compr_physical);
	}
	return 0;
}

int
fsck_check(struct fsck *f)
{
	int ret;

	if (!f->cp_seq) {
		ret = fsck_is_clean(f);
		if (ret < 0 || f->fatal)
			return ret < 0 ? ret : 0;
	}
	ret = load_tables(f);
	if (ret)
		return ret;
	f->main_first = (u64)f->lay.main_zone_start *
			le32_to_cpu(f->sb.zone_blocks);
	f->main_blocks = (u64)f->lay.main_zone_count *
			 le32_to_cpu(f->sb.zone_blocks);
	f->owned = calloc(max(f->lay.main_zone_count, 1u), sizeof(*f->owned));
	f->log_need = calloc(GAZE_MAX_LOGS, sizeof(u32));
	if (!f->owned || !f->log_need)
		return -ENOMEM;
	ret = imap_rebuild(f);
	if (ret)
		return ret;
	ret = pass1(f);
	if (ret || f->fatal)
		return ret;
	ret = pass2(f);
	if (ret)
		return ret;
	return pass3(f);
}
