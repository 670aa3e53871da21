// SPDX-License-Identifier: GPL-2.0
/*
 * repair.c - fixes what check.c found, through the shared core.
 *
 * Order, chosen so that an interrupted repair leaves the filesystem no
 * worse than it found it:
 *
 *   0. a bad superblock copy is rewritten from the good one (emulated
 *      zones only: a sequential zone cannot be rewritten in place);
 *   1. the filesystem is opened read-write; everything below goes to new
 *      places in the log and becomes durable only with the one checkpoint
 *      written at the end (the cache limit is lifted so no checkpoint is
 *      written half way);
 *   2. space: node ids that hold no valid node are freed in the imap; the
 *      usage bitmaps, summaries and zone entries are rewritten from what
 *      the tree owns and the space state is reloaded from them, so every
 *      later allocation and free works on exact tables;
 *   3. the tree: bad pointers cleared, inode fields fixed, bad directory
 *      entries dropped or retyped, broken directories rebuilt from their
 *      good entries, link counts and '..' set, orphans released, lost
 *      inodes linked into /lost+found (created if missing);
 *   4. the final checkpoint (clean unmount, no fsck-needed flag).
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsck.h"

#define LOST_FOUND	"lost+found"

static int
repair_supers(struct fsck *f)
{
	struct gaze_super *sb;
	u64 addr;
	int c, ret = 0;

	if (f->dev->model != GAZE_ZM_EMULATED) {
		/* a sequential zone is not written in place: both
		 * checkpoint zones are written anew, each starting with a
		 * fresh superblock copy (gaze_cp_renew_zones, at the end) */
		f->cp_renew = true;
		return 0;
	}
	sb = malloc(sizeof(*sb));
	if (!sb)
		return -ENOMEM;
	for (c = 0; c < 2 && !ret; c++) {
		if (!f->sb_bad[c])
			continue;
		addr = (u64)c * le32_to_cpu(f->sb.zone_blocks);
		memcpy(sb, &f->sb, sizeof(*sb));
		sb->hdr.index = cpu_to_le32(c);
		sb->hdr.blkaddr = cpu_to_le64(addr);
		gaze_fmt_csum_set(sb);
		ret = f->dev->ops->write(f->dev, addr, 1, sb);
		if (!ret)
			f->fixed++;
	}
	if (!ret)
		ret = f->dev->ops->flush(f->dev);
	free(sb);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Space                                                             */
/* ---------------------------------------------------------------- */

static int
sumfix_cmp(const void *a, const void *b)
{
	const struct fsck_sumfix *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static u8
zone_state(struct fsck *f, u32 zi, u32 owned)
{
	u32 zone = f->lay.main_zone_start + zi;
	u8 st = fsck_zinfo_get(f, zi)->state;

	if (fsck_log_of_zone(f, zone) >= 0)
		return GAZE_ZS_OPEN;
	if (owned)
		return GAZE_ZS_FULL;
	if (st == GAZE_ZS_FULL || st == GAZE_ZS_OPEN)
		return GAZE_ZS_PREFREE;
	return st;
}

/*
 * Whether zone zi's tables already say what the rebuild would write: no
 * block owned, no usage or summary block stored (they read as zeros),
 * none invalid, and the zone entry's count, state, log and flags as
 * gaze_repair_zone_set would set them.  Such zones (every empty zone of
 * a large device) are not touched: rewriting them would change nothing
 * but would bring each of their table blocks into the core's cache.
 */
static bool
zone_unchanged(struct fsck *f, u32 zi, const struct gaze_zinfo *z)
{
	u32 upz = f->lay.usage_blocks_per_zone;
	u32 spz = f->lay.summary_blocks_per_zone;

	if (f->owned[zi] || z->valid || z->flags ||
	    z->log >= GAZE_NR_LOG_TYPES || z->state != zone_state(f, zi, 0) ||
	    fsck_tbl_bad(f, GAZE_TABLE_ZINFO, zi / GAZE_ZINFO_PER_BLOCK))
		return false;
	return fsck_tbl_next(f, GAZE_TABLE_USAGE, zi * upz, (zi + 1) * upz) ==
	       (zi + 1) * upz &&
	       fsck_tbl_next(f, GAZE_TABLE_SUMMARY, zi * spz, (zi + 1) * spz) ==
	       (zi + 1) * spz;
}

static int
repair_space(struct fsck *f, struct gaze_fs *fs)
{
	u32 zb = le32_to_cpu(f->sb.zone_blocks);
	u32 cap = le32_to_cpu(f->sb.zone_cap);
	struct gaze_summary *sums;
	size_t fx = 0;
	u64 valid = 0;
	u8 *bits;
	u32 zi, off, nid, owned, b, nb = f->tbl_n[GAZE_TABLE_IMAP];
	int ret = 0;

	/* imap blocks that did not verify: rewritten from what was used */
	for (b = fsck_tbl_next(f, GAZE_TABLE_IMAP, 0, nb); b < nb;
	     b = fsck_tbl_next(f, GAZE_TABLE_IMAP, b + 1, nb)) {
		struct gaze_imap_block *ib;
		struct gaze_mbuf *mb;
		u32 i;

		if (!fsck_tbl_bad(f, GAZE_TABLE_IMAP, b))
			continue;
		ret = gaze_repair_table_block(fs, GAZE_TABLE_IMAP, b, &mb);
		if (ret)
			return ret;
		ib = mb->data;
		for (i = 0; i < GAZE_IMAP_PER_BLOCK; i++) {
			nid = b * GAZE_IMAP_PER_BLOCK + i;
			ib->addr[i] = 0;
			if (nid > GAZE_NID_RESERVED && nid < f->nid_end &&
			    nid_kind(&f->nid[nid]) != FK_BAD &&
			    nid_kind(&f->nid[nid]) != FK_FREE)
				ib->addr[i] = cpu_to_le64(fsck_imap_get(f, nid));
		}
		gaze_table_dirty(fs, mb);
		gaze_mbuf_put(fs, mb);
		f->fixed++;
	}
	/* node ids without a valid node */
	for (nid = GAZE_ROOT_INO; nid < f->nid_end; nid++) {
		if (nid_kind(&f->nid[nid]) != FK_BAD || !fsck_imap_get(f, nid) ||
		    fsck_tbl_bad(f, GAZE_TABLE_IMAP, nid / GAZE_IMAP_PER_BLOCK))
			continue;
		ret = gaze_imap_set(fs, nid, 0);
		if (ret)
			return ret;
		f->fixed++;
	}
	sums = calloc(cap, sizeof(*sums));
	bits = calloc(DIV_ROUND_UP(cap, 8) + 8, 1);
	if (!sums || !bits) {
		ret = -ENOMEM;
		goto out;
	}
	if (f->nr_sumfix)
		qsort(f->sumfix, f->nr_sumfix, sizeof(*f->sumfix), sumfix_cmp);
	for (zi = 0; zi < f->lay.main_zone_count; zi++) {
		u64 zaddr = f->main_first + (u64)zi * zb;
		const struct gaze_zinfo zc = *fsck_zinfo_get(f, zi), *z = &zc;

		if (zone_unchanged(f, zi, z))
			continue;
		memset(bits, 0, DIV_ROUND_UP(cap, 8) + 8);
		owned = 0;
		for (off = 0; off < cap; off++) {
			if (!fsck_owned(f, zi, off)) {
				memset(&sums[off], 0, sizeof(sums[off]));
				continue;
			}
			owned++;
			bits[off >> 3] |= (u8)(1u << (off & 7));
			while (fx < f->nr_sumfix && f->sumfix[fx].addr < zaddr + off)
				fx++;
			if (fx < f->nr_sumfix && f->sumfix[fx].addr == zaddr + off)
				sums[off] = f->sumfix[fx].s;
			else
				sums[off] = *fsck_summary_get(f, zi, off);
		}
		valid += owned;
		ret = gaze_repair_zone_set(fs, zi, bits, sums, owned,
					   zone_state(f, zi, owned),
					   z->log < GAZE_NR_LOG_TYPES ? z->log : 0);
		if (ret)
			goto out;
	}
	ret = gaze_repair_space_reload(fs, valid, f->valid_nodes, f->log_need);
	if (!ret)
		f->fixed++;
out:
	free(sums);
	free(bits);
	return ret;
}

/* ---------------------------------------------------------------- */
/* The tree                                                          */
/* ---------------------------------------------------------------- */

static int
repair_slot(struct fsck *f, struct gaze_fs *fs, const struct fsck_slot *s)
{
	struct gaze_mbuf *mb;
	struct gaze_inode *in;
	u32 magic;
	int ret;

	if (s->ino >= f->nid_end || nid_kind(&f->nid[s->ino]) != FK_INODE ||
	    s->node >= f->nid_end ||
	    (s->node != s->ino && nid_kind(&f->nid[s->node]) != FK_CHILD))
		return 0;		/* the owner itself is gone */
	if (s->node == s->ino)
		magic = GAZE_MAGIC_INODE;
	else if (s->what == SLOT_ADDR)
		magic = GAZE_MAGIC_DNODE;
	else
		magic = GAZE_MAGIC_INODE_IND;
	ret = gaze_node_get(fs, s->node, magic, &mb);
	if (ret)
		return ret;
	in = mb->data;
	switch (s->what) {
	case SLOT_ADDR:
		gaze_bmap_addrs(mb)[s->ofs] = 0;
		break;
	case SLOT_NID:
		if (magic == GAZE_MAGIC_INODE)
			in->nids[s->ofs] = 0;
		else
			((struct gaze_inode_ind *)mb->data)->nid[s->ofs] = 0;
		break;
	case SLOT_XATTR:
		in->xattr_nid = 0;
		break;
	case SLOT_IXATTR:
		in->inline_xattr_used = 0;
		memset(in->i_xattr, 0, sizeof(in->i_xattr));
		break;
	}
	gaze_mbuf_dirty(fs, mb);
	gaze_mbuf_put(fs, mb);
	f->fixed++;
	return 0;
}

static int
repair_ifix(struct fsck *f, struct gaze_fs *fs, const struct fsck_ifix *x)
{
	struct gaze_mbuf *mb;
	struct gaze_inode *in;
	bool dirty = false;
	int ret;

	if (nid_kind(&f->nid[x->ino]) != FK_INODE || nid_has(f, x->ino, NF_EVICT))
		return 0;
	ret = gaze_inode_get(fs, x->ino, &mb);
	if (ret)
		return ret;
	in = mb->data;
	if (x->blocks != ~0ull && le64_to_cpu(in->blocks) != x->blocks) {
		in->blocks = cpu_to_le64(x->blocks);
		dirty = true;
	}
	if (x->size != ~0ull && le64_to_cpu(in->size) != x->size) {
		in->size = cpu_to_le64(x->size);
		dirty = true;
	}
	if (x->nentries != ~0u && !nid_has(f, x->ino, NF_DIRBAD) &&
	    le32_to_cpu(in->dir_nentries) != x->nentries) {
		in->dir_nentries = cpu_to_le32(x->nentries);
		dirty = true;
	}
	if (x->compr != ~0ull && le64_to_cpu(in->compr_blocks) != x->compr) {
		in->compr_blocks = cpu_to_le64(x->compr);
		dirty = true;
	}
	if (x->clear_orphan && (le32_to_cpu(in->flags) & GAZE_IF_ORPHAN)) {
		in->flags = cpu_to_le32(le32_to_cpu(in->flags) &
					~GAZE_IF_ORPHAN);
		dirty = true;
	}
	if (dirty) {
		gaze_mbuf_dirty(fs, mb);
		f->fixed++;
	}
	gaze_mbuf_put(fs, mb);
	return 0;
}

static int
repair_ent(struct fsck *f, struct gaze_fs *fs, const struct fsck_ent *e)
{
	struct gaze_mbuf *dmb;
	int ret;

	if (nid_kind(&f->nid[e->dir]) != FK_INODE || nid_has(f, e->dir, NF_DIRBAD))
		return 0;
	ret = gaze_inode_get(fs, e->dir, &dmb);
	if (ret)
		return ret;
	if (e->action == ENT_DROP)
		ret = gaze_dir_remove(fs, dmb, e->name, e->len);
	else
		ret = gaze_dir_set(fs, dmb, e->name, e->len, e->ino, e->dtype);
	gaze_mbuf_put(fs, dmb);
	if (!ret)
		f->fixed++;
	return ret;
}

/* directory rebuild: the entries worth keeping */
struct keep {
	struct fsck_ent	*e;
	size_t		n, cap;
	u32		dir;
};

static int
keep_entry(struct fsck *f, void *ctx, const char *name, u32 len, u32 ino,
	   u8 dtype)
{
	struct keep *k = ctx;
	struct fsck_nid *t;
	struct fsck_ent *e;

	(void)dtype;
	if (ino <= GAZE_NID_RESERVED || ino >= f->nid_end)
		return 0;
	t = &f->nid[ino];
	if (nid_kind(t) != FK_INODE || nid_has(f, ino, NF_EVICT))
		return 0;
	if (nid_isdir(t)) {
		struct fsck_dir *d = fsck_dir_find(f, ino);

		if (!d || d->found != k->dir || nid_has(f, ino, NF_SEEN) ||
		    ino == GAZE_ROOT_INO)
			return 0;
		nid_flags_set(f, ino, NF_SEEN);
	}
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		e = realloc(k->e, k->cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		k->e = e;
	}
	e = &k->e[k->n++];
	memcpy(e->name, name, len);
	e->len = (u16)len;
	e->ino = ino;
	e->dtype = (u8)nid_type(t);
	return 0;
}

static int
repair_rebuild_dir(struct fsck *f, struct gaze_fs *fs, u32 dir)
{
	struct keep k = { .dir = dir };
	struct gaze_mbuf *dmb;
	struct gaze_inode *in;
	size_t i;
	int ret;

	fsck_dir_walk(f, dir, keep_entry, &k, false);
	for (i = 0; i < k.n; i++)
		nid_flags_clear(f, k.e[i].ino, NF_SEEN);
	ret = gaze_inode_get(fs, dir, &dmb);
	if (ret)
		goto out;
	gaze_dir_forget(fs, dmb);
	in = dmb->data;
	if (le32_to_cpu(in->flags) & GAZE_IF_DIR_HASHED) {
		ret = gaze_bmap_truncate(fs, dmb, 0);
		if (ret)
			goto out_put;
	}
	in->flags = cpu_to_le32(le32_to_cpu(in->flags) &
				~(GAZE_IF_INLINE_DENTRY | GAZE_IF_DIR_HASHED |
				  GAZE_IF_INLINE_DATA));
	memset(in->i.data, 0, sizeof(in->i.data));
	gaze_mbuf_dirty(fs, dmb);
	ret = gaze_dir_init(fs, dmb);
	for (i = 0; !ret && i < k.n; i++)
		ret = gaze_dir_add(fs, dmb, k.e[i].name, k.e[i].len,
				   k.e[i].ino, k.e[i].dtype);
	if (!ret)
		f->fixed++;
out_put:
	gaze_mbuf_put(fs, dmb);
out:
	free(k.e);
	return ret;
}

/* nlink and '..' as the namespace pass counted them */
static int
repair_links(struct fsck *f, struct gaze_fs *fs, u32 nid)
{
	struct fsck_nid *n = &f->nid[nid];
	struct fsck_xlink *x = NULL;
	struct fsck_dir *d = NULL;
	struct gaze_mbuf *mb;
	struct gaze_inode *in;
	u32 want, parent;
	int ret;

	if (nid_kind(n) != FK_INODE || nid_has(f, nid, NF_EVICT))
		return 0;
	if (nid_isdir(n)) {
		d = fsck_dir_find(f, nid);
		if (!d)
			return 0;
		want = 2 + d->subdirs;
		parent = nid_has(f, nid, NF_LOST) ? d->parent : d->found;
		if (d->nlink == want && d->parent == parent)
			return 0;
	} else if (nid_links(n) == FSCK_XLINK) {
		x = fsck_xlink_find(f, nid);
		if (!x || x->nlink == x->found)
			return 0;
	} else if (!nid_links(n)) {
		return 0;
	}
	ret = gaze_inode_get(fs, nid, &mb);
	if (ret)
		return ret;
	in = mb->data;
	if (d) {
		in->nlink = cpu_to_le32(want);
		in->parent = cpu_to_le32(parent);
		d->nlink = want;
	} else if (x) {
		in->nlink = cpu_to_le32(x->found);
		x->nlink = x->found;
	} else {
		in->nlink = cpu_to_le32(le32_to_cpu(in->nlink) - nid_links(n));
		nid_links_set(n, 0);
	}
	gaze_mbuf_dirty(fs, mb);
	gaze_mbuf_put(fs, mb);
	f->fixed++;
	return 0;
}

static int
repair_evict(struct fsck *f, struct gaze_fs *fs, u32 nid)
{
	struct gaze_mbuf *mb;
	int ret;

	ret = gaze_inode_get(fs, nid, &mb);
	if (ret)
		return ret;
	ret = gaze_inode_evict(fs, mb);
	if (!ret)
		f->fixed++;
	return ret;
}

/* lost+found, created in the root if missing; fs->lock not held */
static int
repair_lost_found(struct fsck *f, struct gaze_fs *fs, u32 *lf)
{
	struct gaze_attr a;
	s64 sec;
	u32 nsec;
	u8 dtype;
	int ret;

	ret = gaze_ns_lookup(fs, GAZE_ROOT_INO, LOST_FOUND,
			     sizeof(LOST_FOUND) - 1, lf, &dtype);
	if (!ret && dtype == GAZE_MODE_DTYPE(GAZE_S_IFDIR))
		return 0;
	if (!ret) {
		fsck_problem(f, PR_lost_found_not_dir, "/%s is not a directory; lost inodes stay unlinked",
			     LOST_FOUND);
		return -ENOTDIR;
	}
	if (ret != -ENOENT)
		return ret;
	memset(&a, 0, sizeof(a));
	gaze_wallclock(&sec, &nsec);
	a.mode = GAZE_S_IFDIR | 0700;
	a.nlink = 2;
	a.atime = a.mtime = a.ctime = a.crtime = sec;
	ret = gaze_ns_mknod(fs, GAZE_ROOT_INO, LOST_FOUND,
			    sizeof(LOST_FOUND) - 1, &a, lf);
	if (!ret)
		fsck_info(f, "created /%s (inode %u)", LOST_FOUND, *lf);
	return ret;
}

/* links nid into lost+found as "#nid" (fs->lock held) */
static int
repair_reconnect(struct fsck *f, struct gaze_fs *fs, struct gaze_mbuf *lfmb,
		 u32 lf, u32 nid)
{
	struct fsck_nid *n = &f->nid[nid];
	struct gaze_mbuf *mb, *pmb;
	struct gaze_inode *in;
	char name[32];
	int len, k, ret;

	for (k = 0;; k++) {
		len = k ? snprintf(name, sizeof(name), "#%u.%d", nid, k) :
			  snprintf(name, sizeof(name), "#%u", nid);
		ret = gaze_dir_add(fs, lfmb, name, (u32)len, nid,
				   (u8)nid_type(n));
		if (ret != -EEXIST || k > 100)
			break;
	}
	if (ret)
		return ret;
	ret = gaze_inode_get(fs, nid, &mb);
	if (ret)
		return ret;
	in = mb->data;
	if (nid_isdir(n)) {
		in->parent = cpu_to_le32(lf);
		ret = gaze_inode_get(fs, lf, &pmb);
		if (!ret) {
			struct gaze_inode *lin = pmb->data;

			lin->nlink = cpu_to_le32(le32_to_cpu(lin->nlink) + 1);
			gaze_mbuf_dirty(fs, pmb);
			gaze_mbuf_put(fs, pmb);
		}
	} else {
		in->nlink = cpu_to_le32(le32_to_cpu(in->nlink) + 1);
	}
	gaze_mbuf_dirty(fs, mb);
	gaze_mbuf_put(fs, mb);
	fsck_info(f, "inode %u linked as /%s/%s", nid, LOST_FOUND, name);
	f->fixed++;
	return ret;
}

/*
 * A directory whose inline entries are broken does not verify, so the
 * core would refuse to read it: its block goes into the cache as it is
 * with the entries wiped (the rebuild adds the good ones back).
 */
static int
repair_preload_dir(struct fsck *f, struct gaze_fs *fs, u32 nid)
{
	struct gaze_mbuf *mb;
	struct gaze_inode *in;
	u64 addr = fsck_imap_get(f, nid);
	int ret;

	ret = gaze_inode_get(fs, nid, &mb);
	if (!ret) {
		gaze_mbuf_put(fs, mb);
		return 0;
	}
	ret = gaze_mbuf_read_unverified(fs, GAZE_MB_NODE, nid, 0, addr, &mb);
	if (ret)
		return ret;
	in = mb->data;
	if (le32_to_cpu(in->flags) & GAZE_IF_INLINE_DENTRY) {
		in->inline_used = 0;
		memset(in->i.data, 0, sizeof(in->i.data));
	}
	gaze_mbuf_dirty(fs, mb);
	gaze_mbuf_put(fs, mb);
	return 0;
}

/* a node whose fields check.c fixed: its copy replaces it in the cache */
static int
repair_salvaged(struct fsck *f, struct gaze_fs *fs,
		const struct fsck_salvage *sv)
{
	struct gaze_mbuf *mb;
	int ret;

	if (sv->nid >= f->nid_end || nid_kind(&f->nid[sv->nid]) == FK_BAD)
		return 0;
	mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, sv->nid, 0);
	if (!mb) {
		ret = gaze_mbuf_read_unverified(fs, GAZE_MB_NODE, sv->nid, 0,
						sv->addr, &mb);
		if (ret)
			return ret;
	}
	memcpy(mb->data, sv->blk, GAZE_BLOCK_SIZE);
	gaze_mbuf_dirty(fs, mb);
	gaze_mbuf_put(fs, mb);
	f->fixed++;
	return 0;
}

static int
repair_tree(struct fsck *f, struct gaze_fs *fs)
{
	struct gaze_mbuf *lfmb = NULL;
	bool lost = false;
	size_t i;
	u32 nid, lf = 0;
	int ret = 0;

	mutex_lock(&fs->lock);
	for (i = 0; !ret && i < f->nr_salv; i++)
		ret = repair_salvaged(f, fs, &f->salv[i]);
	for (nid = GAZE_ROOT_INO; !ret && nid < f->nid_end; nid++)
		if (nid_kind(&f->nid[nid]) == FK_INODE &&
		    nid_has(f, nid, NF_DIRBAD))
			ret = repair_preload_dir(f, fs, nid);
	for (i = 0; !ret && i < f->nr_slots; i++)
		ret = repair_slot(f, fs, &f->slots[i]);
	for (i = 0; !ret && i < f->nr_ifix; i++)
		ret = repair_ifix(f, fs, &f->ifix[i]);
	for (i = 0; !ret && i < f->nr_ents; i++)
		ret = repair_ent(f, fs, &f->ents[i]);
	for (nid = GAZE_ROOT_INO; !ret && nid < f->nid_end; nid++)
		if (nid_kind(&f->nid[nid]) == FK_INODE &&
		    nid_has(f, nid, NF_DIRBAD))
			ret = repair_rebuild_dir(f, fs, nid);
	for (nid = GAZE_ROOT_INO; !ret && nid < f->nid_end; nid++)
		ret = repair_links(f, fs, nid);
	for (nid = GAZE_ROOT_INO; !ret && nid < f->nid_end; nid++) {
		if (nid_kind(&f->nid[nid]) != FK_INODE)
			continue;
		if (nid_has(f, nid, NF_EVICT))
			ret = repair_evict(f, fs, nid);
		else if (nid_has(f, nid, NF_LOST))
			lost = true;
	}
	if (!ret)
		ret = gaze_fs_flush_dirty(fs);
	mutex_unlock(&fs->lock);
	if (ret || !lost)
		return ret;

	ret = repair_lost_found(f, fs, &lf);
	if (ret)
		return ret == -ENOTDIR ? 0 : ret;
	mutex_lock(&fs->lock);
	ret = gaze_inode_get(fs, lf, &lfmb);
	for (nid = GAZE_ROOT_INO + 1; !ret && nid < f->nid_end; nid++)
		if (nid_kind(&f->nid[nid]) == FK_INODE && nid != lf &&
		    nid_has(f, nid, NF_LOST))
			ret = repair_reconnect(f, fs, lfmb, lf, nid);
	if (lfmb)
		gaze_mbuf_put(fs, lfmb);
	mutex_unlock(&fs->lock);
	return ret;
}

/*
 * Zone entries the core refuses at open (an invalid zinfo block, a FREE
 * or PREFREE zone with valid blocks, a log head not OPEN) cannot be fixed
 * through it.  On emulated zones the zinfo block is rewritten in place
 * with the counted values: it then says what the tree says, which is no
 * worse for any checkpoint that uses it.  Zoned devices: left as is.
 */
static int
repair_zinfo_raw(struct fsck *f)
{
	struct gaze_zinfo_block *zb;
	u32 n, i, zi, owned, main = f->lay.main_zone_count;
	bool bad, refuse;
	u64 addr, seq;
	int ret = 0;

	if (f->dev->model != GAZE_ZM_EMULATED || !f->zinfo_raw)
		return 0;
	zb = malloc(sizeof(*zb));
	if (!zb)
		return -ENOMEM;
	for (n = 0; n < f->tbl_n[GAZE_TABLE_ZINFO] && !ret; n++) {
		addr = f->zinfo_raw[n];
		if (!addr)
			continue;
		bad = !fsck_tbl_addr(f, GAZE_TABLE_ZINFO, n);
		refuse = bad;
		for (i = 0; i < GAZE_ZINFO_PER_BLOCK && !refuse; i++) {
			const struct gaze_zinfo *z;

			zi = n * GAZE_ZINFO_PER_BLOCK + i;
			if (zi >= main)
				break;
			z = fsck_zinfo_get(f, zi);
			if ((z->valid && (z->state == GAZE_ZS_FREE ||
					  z->state == GAZE_ZS_PREFREE)) ||
			    (fsck_log_of_zone(f, f->lay.main_zone_start + zi) >= 0 &&
			     z->state != GAZE_ZS_OPEN))
				refuse = true;
		}
		if (!refuse)
			continue;
		ret = fsck_read(f, addr, zb);
		if (ret)
			break;
		seq = le64_to_cpu(zb->hdr.seq);
		if (bad || seq > f->cp_seq)
			seq = f->cp_seq;
		for (i = 0; i < GAZE_ZINFO_PER_BLOCK; i++) {
			struct gaze_zinfo *z = &zb->z[i];

			zi = n * GAZE_ZINFO_PER_BLOCK + i;
			if (zi >= main) {
				memset(z, 0, sizeof(*z));
				continue;
			}
			owned = fsck_owned_count(f, zi);
			z->state = zone_state(f, zi, owned);
			z->valid = cpu_to_le32(owned);
			if (z->log >= GAZE_NR_LOG_TYPES)
				z->log = 0;
			z->flags = 0;
		}
		gaze_fmt_hdr_init(zb, GAZE_MAGIC_ZINFO, f->uuid, addr, seq,
				  GAZE_TABLE_ZINFO, 0, n);
		gaze_fmt_csum_set(zb);
		ret = f->dev->ops->write(f->dev, addr, 1, zb);
		if (!ret)
			f->fixed++;
	}
	if (!ret)
		ret = f->dev->ops->flush(f->dev);
	free(zb);
	return ret;
}

int
fsck_repair(struct fsck *f)
{
	struct gaze_fs *fs = NULL;
	int ret, ret2;

	if (f->sb_fix) {
		ret = repair_supers(f);
		if (ret)
			return ret;
	}
	ret = repair_zinfo_raw(f);
	if (ret)
		return ret;
	/* main.c replayed any roll-forward chain already, or it failed */
	ret = gaze_fs_open(f->dev, GAZE_FS_NO_RECOVERY | GAZE_FS_REPAIR |
			   (f->o.cp_prev ? GAZE_FS_CP_PREV : 0), &fs);
	if (ret) {
		fsck_fail(f, "the filesystem cannot be opened for repair: %s",
			  ret == -EFSCORRUPTED ? "structure too damaged" :
			  ret == -EFSBADCRC ? "bad checksum" : strerror(-ret));
		return ret;
	}
	fs->cache_limit = (size_t)-1;
	mutex_lock(&fs->lock);
	ret = repair_space(f, fs);
	if (!ret) {
		fs->valid_inodes = f->valid_inodes;
		/* the compression counters as pass 1 counted them */
		fs->cp.compr_logical_blocks = cpu_to_le64(f->compr_logical);
		fs->cp.compr_physical_blocks = cpu_to_le64(f->compr_physical);
		fs->cp.prealloc_blocks = cpu_to_le64(f->prealloc);
	}
	mutex_unlock(&fs->lock);
	if (!ret)
		ret = repair_tree(f, fs);
	if (ret) {
		/* nothing is committed: the previous checkpoint stays */
		fsck_fail(f, "repair failed: %s; nothing was committed",
			  strerror(ret < 0 ? -ret : ret));
		fs->flags |= GAZE_FS_RDONLY;
		gaze_fs_close(fs);
		return ret;
	}
	fs->cp.flags = cpu_to_le32(le32_to_cpu(fs->cp.flags) &
				   ~GAZE_CP_FSCK_NEEDED);
	/* after a roll-back (-b 1) no pack of the dropped checkpoint may
	 * stay: a mount must never fall back to it */
	if (f->cp_damaged || f->cp_renew || f->o.cp_prev) {
		/* both checkpoint zones written anew, superblock copies
		 * included: no damage left */
		mutex_lock(&fs->lock);
		ret = gaze_cp_renew_zones(fs);
		mutex_unlock(&fs->lock);
		if (ret) {
			fprintf(stderr, "fsck.gaze: %s: rewriting the checkpoint zones failed: %s\n",
				f->name, strerror(-ret));
			gaze_fs_close(fs);
			return ret;
		}
	}
	ret2 = gaze_fs_close(fs);
	if (!ret2)
		f->fixed++;
	return ret2;
}
