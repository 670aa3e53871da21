// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - the four metadata tables (imap, zinfo, usage, summary).
 *
 * Why: a log-structured filesystem cannot update metadata in place, so
 * each table is a 2-level radix that is copied on write: the checkpoint
 * payload lists the addresses of the table's index blocks, each index
 * block (struct gaze_tindex) lists up to 504 table blocks, and a zero
 * address anywhere means "all zeros" so an empty table costs nothing on
 * disk.  Between checkpoints changed table blocks sit dirty in the cache;
 * gaze_tables_flush() writes them to the meta ring, then the index blocks
 * whose slots changed, and hands the new roots to the checkpoint.  A
 * checkpoint therefore writes only what changed since the previous one,
 * and a crash leaves the previous checkpoint's blocks untouched.
 *
 * The meta ring's liveness counters (space.c) are kept exact here: every
 * address that stops being referenced by an index slot or a root is
 * released with gaze_meta_ref(-1), every new one is counted by
 * gaze_meta_alloc().
 *
 * Locking: fs->lock, held by the caller, protects everything here.
 */
#include "gaze_core.h"

struct gaze_tables {
	/*
	 * Per table: index block addresses as of the last flush (what the
	 * next checkpoint's payload will list), sized by the superblock's
	 * table_index_blocks.  fs->lock.
	 */
	u64	*iaddr[GAZE_NR_TABLES];
	u32	nr_iblocks[GAZE_NR_TABLES];
};

static const u32 table_magic[GAZE_NR_TABLES] = {
	[GAZE_TABLE_IMAP]	= GAZE_MAGIC_IMAP,
	[GAZE_TABLE_ZINFO]	= GAZE_MAGIC_ZINFO,
	[GAZE_TABLE_USAGE]	= GAZE_MAGIC_USAGE,
	[GAZE_TABLE_SUMMARY]	= GAZE_MAGIC_SUMMARY,
};

static const char *const table_name[GAZE_NR_TABLES] = {
	"imap", "zinfo", "usage", "summary",
};

static bool
table_addr_in_meta(const struct gaze_fs *fs, u64 addr)
{
	u64 zb = fs->lay.meta_zone_start;
	u64 ze = zb + fs->lay.meta_zone_count;
	u64 zblocks = le32_to_cpu(fs->sb.zone_blocks);

	return addr >= zb * zblocks && addr < ze * zblocks &&
	       addr % zblocks < le32_to_cpu(fs->sb.zone_cap);
}

int
gaze_tindex_buf_verify(struct gaze_fs *fs, const struct gaze_mbuf *mb,
		       u32 expect, const char **why)
{
	const struct gaze_tindex *ti = mb->data;
	int ret;

	(void)expect;
	ret = gaze_fmt_hdr_verify(ti, GAZE_MAGIC_TINDEX, fs->uuid,
				  mb->blkaddr, why);
	if (!ret && (le32_to_cpu(ti->hdr.nid) != mb->id ||
		     le32_to_cpu(ti->hdr.index) != mb->idx)) {
		*why = "index block names another table or position";
		ret = -EFSCORRUPTED;
	}
	if (!ret && le64_to_cpu(ti->hdr.seq) > fs->cp_seq + 1) {
		*why = "index block is newer than the checkpoint";
		ret = -EFSCORRUPTED;
	}
	return ret;
}

int
gaze_table_buf_verify(struct gaze_fs *fs, const struct gaze_mbuf *mb,
		      u32 expect, const char **why)
{
	(void)expect;
	return gaze_fmt_table_verify(mb->data, mb->id, (u32)mb->idx, &fs->sb,
				     mb->blkaddr, why);
}

int
gaze_tables_init(struct gaze_fs *fs)
{
	struct gaze_tables *tb;
	const struct gaze_cp_head *cp = &fs->cp;
	u32 t, pblocks = 0, nslots = 0, need = 0;
	__le64 *pay = NULL;
	int ret = -ENOMEM;

	tb = gaze_zalloc(sizeof(*tb));
	if (!tb)
		return -ENOMEM;
	fs->tables = tb;
	for (t = 0; t < GAZE_NR_TABLES; t++) {
		tb->nr_iblocks[t] = le32_to_cpu(fs->sb.table_index_blocks[t]);
		tb->iaddr[t] = gaze_zalloc(max_t(size_t, 1,
					   tb->nr_iblocks[t] * sizeof(u64)));
		if (!tb->iaddr[t])
			goto out_destroy;
		if (le32_to_cpu(cp->tables[t].nr_index) > tb->nr_iblocks[t]) {
			gaze_err("checkpoint %llu: %s has %u index blocks, at most %u",
				 (unsigned long long)fs->cp_seq, table_name[t],
				 le32_to_cpu(cp->tables[t].nr_index),
				 tb->nr_iblocks[t]);
			ret = -EFSCORRUPTED;
			goto out_destroy;
		}
		need = max(need, le32_to_cpu(cp->tables[t].payload_ofs) +
			   le32_to_cpu(cp->tables[t].nr_index));
	}
	if (!need)
		return 0;			/* every table is empty */

	/* payload blocks follow the head; cp_find has verified them */
	if (le32_to_cpu(cp->pack_blocks) >= 2)
		pblocks = le32_to_cpu(cp->pack_blocks) - 2;
	nslots = pblocks * GAZE_ADDRS_PER_BLOCK;
	if (need > nslots) {
		gaze_err("checkpoint %llu: table roots point past the payload",
			 (unsigned long long)fs->cp_seq);
		ret = -EFSCORRUPTED;
		goto out_destroy;
	}
	pay = gaze_alloc((size_t)pblocks * GAZE_BLOCK_SIZE);
	if (!pay)
		goto out_destroy;
	ret = fs->dev->ops->read(fs->dev, le64_to_cpu(cp->hdr.blkaddr) + 1,
				 pblocks, pay);
	if (ret)
		goto out_free;
	for (t = 0; t < GAZE_NR_TABLES; t++) {
		u32 ofs = le32_to_cpu(cp->tables[t].payload_ofs);
		u32 n = le32_to_cpu(cp->tables[t].nr_index);
		u32 i;

		for (i = 0; i < n; i++) {
			u32 s = ofs + i;
			const struct gaze_cp_payload *pb =
				(const void *)((u8 *)pay +
					       (size_t)(s / GAZE_ADDRS_PER_BLOCK) *
					       GAZE_BLOCK_SIZE);
			u64 a = le64_to_cpu(pb->slot[s % GAZE_ADDRS_PER_BLOCK]);

			if (a && !table_addr_in_meta(fs, a)) {
				gaze_err("%s index block %u address %llu is outside the meta area",
					 table_name[t], i,
					 (unsigned long long)a);
				/* a repair rewrites every block under it */
				if (!(fs->flags & GAZE_FS_REPAIR)) {
					ret = -EFSCORRUPTED;
					goto out_free;
				}
				a = 0;
			}
			tb->iaddr[t][i] = a;
		}
	}
	gaze_free(pay);
	return 0;

out_free:
	gaze_free(pay);
out_destroy:
	gaze_tables_destroy(fs);
	return ret;
}

void
gaze_tables_destroy(struct gaze_fs *fs)
{
	struct gaze_tables *tb = fs->tables;
	u32 t;

	if (!tb)
		return;
	for (t = 0; t < GAZE_NR_TABLES; t++)
		gaze_free(tb->iaddr[t]);
	gaze_free(tb);
	fs->tables = NULL;
}

/* index block i of table t; ref held */
static int
table_index_get(struct gaze_fs *fs, u32 t, u32 i, struct gaze_mbuf **mbp)
{
	struct gaze_tables *tb = fs->tables;
	struct gaze_mbuf *mb;
	u64 addr;
	int ret;

	mb = gaze_mbuf_lookup(fs, GAZE_MB_TINDEX, t, i);
	if (mb)
		goto out;
	addr = tb->iaddr[t][i];
	ret = gaze_mbuf_read(fs, GAZE_MB_TINDEX, t, i, addr, 0, &mb);
	if (ret)
		return ret;
out:
	*mbp = mb;
	return 0;
}

int
gaze_table_index_renew(struct gaze_fs *fs, u32 table, u32 i)
{
	struct gaze_mbuf *mb;
	int ret;

	if (table >= GAZE_NR_TABLES || i >= fs->tables->nr_iblocks[table])
		return -EINVAL;
	ret = table_index_get(fs, table, i, &mb);
	if (!ret) {
		gaze_mbuf_put(fs, mb);
		return 0;
	}
	if (!gaze_err_damaged(ret))
		return ret;
	ret = gaze_mbuf_create(fs, GAZE_MB_TINDEX, table, i, &mb);
	if (ret)
		return ret;
	gaze_mbuf_dirty(fs, mb);
	gaze_mbuf_put(fs, mb);
	return 1;
}

int
gaze_table_get(struct gaze_fs *fs, u32 table, u32 block,
	       struct gaze_mbuf **mbp)
{
	struct gaze_mbuf *imb, *mb;
	const struct gaze_tindex *ti;
	u64 addr;
	int ret;

	if (table >= GAZE_NR_TABLES ||
	    block >= le32_to_cpu(fs->sb.table_blocks[table])) {
		gaze_err("table %u block %u is out of range", table,
			 block);
		WARN_ON(1);
		return -EINVAL;
	}
	mb = gaze_mbuf_lookup(fs, GAZE_MB_TABLE, table, block);
	if (mb)
		goto out;
	ret = table_index_get(fs, table, block / GAZE_ADDRS_PER_BLOCK, &imb);
	if (ret)
		return ret;
	ti = imb->data;
	addr = le64_to_cpu(ti->addr[block % GAZE_ADDRS_PER_BLOCK]);
	gaze_mbuf_put(fs, imb);
	if (addr && !table_addr_in_meta(fs, addr)) {
		gaze_err("%s block %u address %llu is outside the meta area",
			 table_name[table], block, (unsigned long long)addr);
		return -EFSCORRUPTED;
	}
	ret = gaze_mbuf_read(fs, GAZE_MB_TABLE, table, block, addr, 0, &mb);
	if (ret)
		return ret;
out:
	*mbp = mb;
	return 0;
}

int
gaze_table_absent(struct gaze_fs *fs, u32 table, u32 block)
{
	struct gaze_mbuf *mb;
	u32 i = block / GAZE_ADDRS_PER_BLOCK;
	int ret;

	if (table >= GAZE_NR_TABLES ||
	    block >= le32_to_cpu(fs->sb.table_blocks[table]))
		return -EINVAL;
	mb = gaze_mbuf_lookup(fs, GAZE_MB_TABLE, table, block);
	if (mb) {
		gaze_mbuf_put(fs, mb);
		return 0;
	}
	/* an index block neither stored nor cached: no buffer is made */
	mb = gaze_mbuf_lookup(fs, GAZE_MB_TINDEX, table, i);
	if (!mb && !fs->tables->iaddr[table][i])
		return 1;
	if (!mb) {
		ret = table_index_get(fs, table, i, &mb);
		if (ret)
			return ret;
	}
	ret = !((const struct gaze_tindex *)mb->data)->addr[block %
							 GAZE_ADDRS_PER_BLOCK];
	gaze_mbuf_put(fs, mb);
	return ret;
}

void
gaze_table_dirty(struct gaze_fs *fs, struct gaze_mbuf *mb)
{
	struct gaze_mbuf *imb;

	if (mb->flags & GAZE_MBF_DIRTY)
		return;
	gaze_mbuf_dirty(fs, mb);
	/*
	 * Its index slot changes when it is flushed.  Dirtying the index
	 * block now keeps the count of blocks the next checkpoint writes
	 * visible (gaze_meta_prepare); if it cannot be read now, the flush
	 * reads and dirties it, and reports the error there.
	 */
	if (!table_index_get(fs, mb->id, (u32)(mb->idx / GAZE_ADDRS_PER_BLOCK),
			     &imb)) {
		gaze_mbuf_dirty(fs, imb);
		gaze_mbuf_put(fs, imb);
	}
}

/* the imap block holding nid's entry; ref held */
static int
table_imap_block(struct gaze_fs *fs, u32 nid, struct gaze_mbuf **mbp)
{
	if (nid >= le32_to_cpu(fs->sb.max_nid))
		return -EINVAL;
	return gaze_table_get(fs, GAZE_TABLE_IMAP, nid / GAZE_IMAP_PER_BLOCK,
			      mbp);
}

int
gaze_imap_get(struct gaze_fs *fs, u32 nid, u64 *addr)
{
	struct gaze_mbuf *mb;
	const struct gaze_imap_block *ib;
	int ret;

	ret = table_imap_block(fs, nid, &mb);
	if (ret)
		return ret;
	ib = mb->data;
	*addr = le64_to_cpu(ib->addr[nid % GAZE_IMAP_PER_BLOCK]);
	gaze_mbuf_put(fs, mb);
	return 0;
}

int
gaze_imap_set(struct gaze_fs *fs, u32 nid, u64 addr)
{
	struct gaze_mbuf *mb;
	struct gaze_imap_block *ib;
	int ret;

	ret = table_imap_block(fs, nid, &mb);
	if (ret)
		return ret;
	ib = mb->data;
	if (le64_to_cpu(ib->addr[nid % GAZE_IMAP_PER_BLOCK]) != addr) {
		ib->addr[nid % GAZE_IMAP_PER_BLOCK] = cpu_to_le64(addr);
		gaze_table_dirty(fs, mb);
	}
	gaze_mbuf_put(fs, mb);
	return 0;
}

/*
 * The image of an imap block as it goes to disk: nids preallocated but
 * never written hold no node, so they are written as free.  Returns
 * NULL when the block can go out as it is.
 */
static void *
table_imap_image(const void *data, int *err)
{
	const struct gaze_imap_block *ib = data;
	struct gaze_imap_block *copy;
	u32 i;

	*err = 0;
	for (i = 0; i < GAZE_IMAP_PER_BLOCK; i++)
		if (le64_to_cpu(ib->addr[i]) == GAZE_ADDR_PREALLOC)
			break;
	if (i == GAZE_IMAP_PER_BLOCK)
		return NULL;
	copy = gaze_alloc(GAZE_BLOCK_SIZE);
	if (!copy) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(copy, data, GAZE_BLOCK_SIZE);
	for (; i < GAZE_IMAP_PER_BLOCK; i++)
		if (le64_to_cpu(copy->addr[i]) == GAZE_ADDR_PREALLOC)
			copy->addr[i] = 0;
	return copy;
}

/* writes one table or index block to the meta ring; *addr gets where */
static int
table_write_block(struct gaze_fs *fs, struct gaze_mbuf *mb, u32 magic, u32 t,
		  u32 index, u64 seq, u64 *addr)
{
	void *img = NULL;
	int ret;

	if (magic == GAZE_MAGIC_IMAP) {
		img = table_imap_image(mb->data, &ret);
		if (ret)
			return ret;
	}
	ret = gaze_meta_alloc(fs, addr);
	if (ret)
		goto out_free;
	gaze_fmt_hdr_init(mb->data, magic, fs->uuid, *addr, seq, t, 0, index);
	gaze_fmt_csum_set(mb->data);
	if (img) {
		memcpy(img, mb->data, sizeof(struct gaze_mhdr));
		gaze_fmt_csum_set(img);
	}
	ret = gaze_block_write(fs, *addr, img ? img : mb->data);
	if (ret) {
		/* the ring position is lost; the block is never referenced */
		gaze_meta_ref(fs, *addr, -1);
		goto out_free;
	}
	mb->blkaddr = *addr;
	gaze_mbuf_clean(fs, mb);
out_free:
	gaze_free(img);
	return ret;
}

static int
table_flush_one(struct gaze_fs *fs, struct gaze_mbuf *mb, void *arg)
{
	u64 seq = *(u64 *)arg, addr, old;
	struct gaze_mbuf *imb;
	struct gaze_tindex *ti;
	u32 t = mb->id, block = (u32)mb->idx;
	u32 slot = block % GAZE_ADDRS_PER_BLOCK;
	int ret;

	/* hold the index block first: it must not fail after the write */
	ret = table_index_get(fs, t, block / GAZE_ADDRS_PER_BLOCK, &imb);
	if (ret)
		return ret;
	ret = table_write_block(fs, mb, table_magic[t], t, block, seq, &addr);
	if (ret)
		goto out_put;
	ti = imb->data;
	old = le64_to_cpu(ti->addr[slot]);
	ti->addr[slot] = cpu_to_le64(addr);
	gaze_mbuf_dirty(fs, imb);
	if (old)
		gaze_meta_ref(fs, old, -1);
out_put:
	gaze_mbuf_put(fs, imb);
	return ret;
}

static int
table_flush_index(struct gaze_fs *fs, struct gaze_mbuf *mb, void *arg)
{
	struct gaze_tables *tb = fs->tables;
	u64 seq = *(u64 *)arg, addr, old;
	u32 t = mb->id, i = (u32)mb->idx;
	int ret;

	ret = table_write_block(fs, mb, GAZE_MAGIC_TINDEX, t, i, seq, &addr);
	if (ret)
		return ret;
	old = tb->iaddr[t][i];
	tb->iaddr[t][i] = addr;
	if (old)
		gaze_meta_ref(fs, old, -1);
	return 0;
}

int
gaze_tables_flush(struct gaze_fs *fs, struct gaze_cp_head *cp,
		  __le64 *payload, u32 *nslots, u32 max_slots)
{
	struct gaze_tables *tb = fs->tables;
	u64 seq = le64_to_cpu(cp->hdr.seq);
	u32 t, i, n;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	ret = gaze_cache_for_each_dirty(fs, GAZE_MB_TABLE, table_flush_one,
					&seq);
	if (ret)
		return ret;
	ret = gaze_cache_for_each_dirty(fs, GAZE_MB_TINDEX, table_flush_index,
					&seq);
	if (ret)
		return ret;
	for (t = 0; t < GAZE_NR_TABLES; t++) {
		n = 0;
		for (i = 0; i < tb->nr_iblocks[t]; i++)
			if (tb->iaddr[t][i])
				n = i + 1;
		if (*nslots + n > max_slots)
			return -ENOSPC;
		cp->tables[t].nr_index = cpu_to_le32(n);
		cp->tables[t].payload_ofs = cpu_to_le32(*nslots);
		for (i = 0; i < n; i++)
			payload[(*nslots)++] = cpu_to_le64(tb->iaddr[t][i]);
	}
	return 0;
}

/*
 * Calls fn for every table and index block the tables reference now:
 * index blocks from the in-memory roots, table blocks from the index
 * blocks (cached or read).  fn gets the block's address, whether it is an
 * index block, its table and its number.
 */
static int
table_walk(struct gaze_fs *fs,
	   int (*fn)(struct gaze_fs *, u64, bool, u32, u32, void *), void *arg)
{
	struct gaze_tables *tb = fs->tables;
	struct gaze_mbuf *imb;
	const struct gaze_tindex *ti;
	u32 t, i, s, nblocks;
	u64 a;
	int ret;

	for (t = 0; t < GAZE_NR_TABLES; t++) {
		nblocks = le32_to_cpu(fs->sb.table_blocks[t]);
		for (i = 0; i < tb->nr_iblocks[t]; i++) {
			if (!tb->iaddr[t][i])
				continue;
			ret = fn(fs, tb->iaddr[t][i], true, t, i, arg);
			if (ret)
				return ret;
			ret = table_index_get(fs, t, i, &imb);
			/* its table blocks are lost: a repair writes them
			 * anew, a read-only instance writes nothing */
			if (gaze_err_damaged(ret) &&
			    (fs->flags & (GAZE_FS_REPAIR | GAZE_FS_RDONLY)))
				continue;
			if (ret)
				return ret;
			ti = imb->data;
			for (s = 0; s < GAZE_ADDRS_PER_BLOCK; s++) {
				a = le64_to_cpu(ti->addr[s]);
				if (!a)
					continue;
				if (i * GAZE_ADDRS_PER_BLOCK + s >= nblocks ||
				    !table_addr_in_meta(fs, a)) {
					gaze_err("%s index block %u slot %u is invalid",
						 table_name[t], i, s);
					gaze_mbuf_put(fs, imb);
					return -EFSCORRUPTED;
				}
				ret = fn(fs, a, false, t,
					 i * GAZE_ADDRS_PER_BLOCK + s, arg);
				if (ret)
					break;
			}
			gaze_mbuf_put(fs, imb);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int
table_count_one(struct gaze_fs *fs, u64 addr, bool index, u32 t, u32 n,
		void *arg)
{
	(void)index;
	(void)t;
	(void)n;
	(void)arg;
	gaze_meta_ref(fs, addr, 1);
	return 0;
}

int
gaze_tables_count_meta(struct gaze_fs *fs)
{
	return table_walk(fs, table_count_one, NULL);
}

static int
table_relocate_one(struct gaze_fs *fs, u64 addr, bool index, u32 t, u32 n,
		   void *arg)
{
	u64 zone = *(u32 *)arg;
	u64 zblocks = le32_to_cpu(fs->sb.zone_blocks);
	struct gaze_mbuf *mb;
	int ret;

	if (addr / zblocks != zone)
		return 0;
	if (index)
		ret = table_index_get(fs, t, n, &mb);
	else
		ret = gaze_table_get(fs, t, n, &mb);
	if (ret)
		return ret;
	if (index)
		gaze_mbuf_dirty(fs, mb);
	else
		gaze_table_dirty(fs, mb);
	gaze_mbuf_put(fs, mb);
	return 0;
}

int
gaze_tables_relocate_zone(struct gaze_fs *fs, u32 zone)
{
	return table_walk(fs, table_relocate_one, &zone);
}
