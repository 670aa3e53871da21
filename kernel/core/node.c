// SPDX-License-Identifier: GPL-2.0
/*
 * node.c - node ids and node blocks (inodes, direct/indirect nodes,
 * xattr blocks).
 *
 * Why: nodes are the metadata that moves most often, so they are named by
 * a nid and found through the imap instead of by address.  Rewriting a
 * node appends it to a node log and changes one imap entry; nothing that
 * points at the node has to change.  This file hands out nids, reads and
 * verifies node blocks through the cache, and writes dirty nodes to the
 * log that suits them (directories hot, xattrs cold, the rest warm).
 *
 * A nid handed out by gaze_nid_alloc() is marked GAZE_ADDR_PREALLOC in
 * the in-memory imap at once, so it cannot be handed out twice before its
 * node is written.  Nodes are flushed before the tables at a checkpoint,
 * so the imap written to disk holds real addresses; a nid still
 * preallocated then (its node never created) is written as free (see
 * table.c).
 *
 * Locking: fs->lock, held by the caller, protects everything here.
 */
#include "gaze_core.h"

#define NODE_FIRST_NID	3u	/* 0 invalid, 1 reserved, 2 root */

int
gaze_nid_alloc(struct gaze_fs *fs, u32 *nid)
{
	u32 max_nid = le32_to_cpu(fs->sb.max_nid);
	u32 span = max_nid - NODE_FIRST_NID, n, k, i;
	struct gaze_mbuf *mb = NULL;
	const struct gaze_imap_block *ib;
	int ret;

	/* the new node will need a main-area block of its own */
	ret = gaze_space_user_check(fs, 1);
	if (ret)
		return ret;
	n = fs->next_nid;
	if (n < NODE_FIRST_NID || n >= max_nid)
		n = NODE_FIRST_NID;
	/* one imap block at a time: scan its entries from n onwards */
	for (k = 0; k < span; ) {
		u32 blk = n / GAZE_IMAP_PER_BLOCK;

		ret = gaze_table_get(fs, GAZE_TABLE_IMAP, blk, &mb);
		if (ret)
			return ret;
		ib = mb->data;
		for (i = n % GAZE_IMAP_PER_BLOCK;
		     i < GAZE_IMAP_PER_BLOCK && k < span; i++, k++, n++) {
			if (n >= max_nid)
				break;
			if (!ib->addr[i])
				goto found;
		}
		gaze_mbuf_put(fs, mb);
		if (n >= max_nid)
			n = NODE_FIRST_NID;
	}
	return -ENOSPC;

found:
	gaze_mbuf_put(fs, mb);
	ret = gaze_imap_set(fs, n, GAZE_ADDR_PREALLOC);
	if (ret)
		return ret;
	*nid = n;
	fs->next_nid = n + 1 < max_nid ? n + 1 : NODE_FIRST_NID;
	return 0;
}

/* imap entry of a nid about to change hands: checks writability, range */
static int
node_nid_addr(struct gaze_fs *fs, u32 nid, u64 *addr)
{
	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	if (nid <= GAZE_NID_RESERVED || nid >= le32_to_cpu(fs->sb.max_nid))
		return -EINVAL;
	return gaze_imap_get(fs, nid, addr);
}

void
gaze_rf_ino_touch(struct gaze_fs *fs, u32 ino)
{
	struct gaze_mbuf *mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, ino, 0);

	/* one the cache does not hold counts as touched when it is read */
	if (mb) {
		mb->rf_seq = fs->rf_epoch;
		gaze_mbuf_put(fs, mb);
	}
}

int
gaze_nid_claim(struct gaze_fs *fs, u32 nid)
{
	u64 addr;
	int ret;

	ret = node_nid_addr(fs, nid, &addr);
	if (ret)
		return ret;
	if (addr)
		return -EEXIST;
	fs->rf_need_cp = true;
	return gaze_imap_set(fs, nid, GAZE_ADDR_PREALLOC);
}

int
gaze_nid_free(struct gaze_fs *fs, u32 nid)
{
	struct gaze_mbuf *mb;
	u64 addr;
	int ret;

	ret = node_nid_addr(fs, nid, &addr);
	if (ret)
		return ret;
	if (!addr) {
		gaze_err("freeing nid %u which is not in use", nid);
		return -EFSCORRUPTED;
	}
	if (GAZE_ADDR_IS_REAL(addr)) {
		ret = gaze_block_invalidate(fs, addr);
		if (ret)
			return ret;
	}
	ret = gaze_imap_set(fs, nid, 0);
	if (ret)
		return ret;
	fs->rf_need_cp = true;		/* roll-forward replays no frees */
	mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, nid, 0);
	if (mb) {
		/* nor can its inode's fsync alone */
		gaze_rf_ino_touch(fs, le32_to_cpu(((struct gaze_mhdr *)
						   mb->data)->ino));
		gaze_mbuf_forget(fs, mb);
	} else {
		fs->rf_ino_off = true;	/* whose it was is not known */
	}
	return 0;
}


/* the checks of a node block just read for nid; *why set on failure */
int
gaze_node_check(struct gaze_fs *fs, const void *blk, u32 nid, u32 magic,
		u64 addr, const char **why)
{
	const struct gaze_mhdr *h = blk;
	int ret;

	ret = gaze_fmt_node_verify(blk, &fs->sb, magic, addr, why);
	if (!ret && le32_to_cpu(h->nid) != nid) {
		*why = "header names another nid";
		ret = -EFSCORRUPTED;
	}
	if (!ret && le64_to_cpu(h->seq) > fs->cp_seq + 1) {
		*why = "node is newer than the checkpoint";
		ret = -EFSCORRUPTED;
	}
	return ret;
}

/*
 * Node readahead.  A sequential read walks a file's dnodes in order, and
 * the node log wrote them in order, so a dnode missing from the cache
 * usually has its next siblings in the blocks right after it: they come
 * in with it, in one device read, instead of one synchronous read each
 * as the walk reaches them.  Only the run of consecutive addresses from
 * nids[0] is read (never a seek); a sibling that fails its checks is
 * dropped quietly, to be read and reported when it is really needed.
 */
static u32
node_ra_run(struct gaze_fs *fs, const __le32 *nids, u32 n, u64 *first)
{
	struct gaze_mbuf *mb;
	u64 addr;
	u32 i, nid;

	n = min_t(u32, n, GAZE_NODE_RA_MAX);
	for (i = 0; i < n; i++) {
		nid = le32_to_cpu(nids[i]);
		if (nid <= GAZE_NID_RESERVED ||
		    nid >= le32_to_cpu(fs->sb.max_nid))
			break;
		mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, nid, 0);
		if (mb) {
			gaze_mbuf_put(fs, mb);
			break;
		}
		if (gaze_imap_get(fs, nid, &addr) || !GAZE_ADDR_IS_REAL(addr))
			break;
		if (!i)
			*first = addr;
		else if (addr != *first + i)
			break;
	}
	return i;
}

/*
 * a node block read into mb: kept when it checks as node nid at addr;
 * else *why (why may be NULL) says what failed
 */
static int
node_keep(struct gaze_fs *fs, struct gaze_mbuf *mb, u32 nid, u32 magic,
	  u64 addr, const char **why)
{
	const char *w = NULL;
	int ret;

	ret = gaze_node_check(fs, mb->data, nid, magic, addr, why ? why : &w);
	if (ret) {
		gaze_mbuf_forget(fs, mb);
		return ret;
	}
	mb->blkaddr = addr;
	gaze_mbuf_put(fs, mb);
	return 0;
}

int
gaze_node_insert(struct gaze_fs *fs, u32 nid, u32 magic, u64 addr,
		 const void *data, const char **why)
{
	struct gaze_mbuf *mb;
	int ret;

	ret = gaze_mbuf_create(fs, GAZE_MB_NODE, nid, 0, &mb);
	if (ret)
		return ret;
	memcpy(mb->data, data, GAZE_BLOCK_SIZE);
	return node_keep(fs, mb, nid, magic, addr, why);
}

void
gaze_node_readahead(struct gaze_fs *fs, const __le32 *nids, u32 n,
		    u32 magic)
{
	struct gaze_mbuf *mbs[GAZE_NODE_RA_MAX];
	void *bufs[GAZE_NODE_RA_MAX];
	const u8 *run;
	u64 first = 0;
	u32 i, nr, got;
	int ret;

	nr = node_ra_run(fs, nids, n, &first);
	if (nr < 2)
		return;		/* cached, or nothing to gain over one read */
	/* a read-only operation reads the run without fs->lock */
	ret = gaze_miss_run(fs, le32_to_cpu(nids[0]), first, &nr,
			    (const void **)&run);
	if (ret < 0)
		return;		/* named: fetched before the next try */
	if (run) {
		for (i = 0; i < nr; i++)
			gaze_node_insert(fs, le32_to_cpu(nids[i]), magic,
					 first + i,
					 run + ((size_t)i << GAZE_BLOCK_SHIFT),
					 NULL);
		return;
	}
	for (got = 0; got < nr; got++) {
		if (gaze_mbuf_create(fs, GAZE_MB_NODE,
				     le32_to_cpu(nids[got]), 0, &mbs[got]))
			break;
		bufs[got] = mbs[got]->data;
	}
	ret = got ? gaze_blocks_readv(fs, first, got, bufs) : 0;
	for (i = 0; i < got; i++) {
		if (ret)
			gaze_mbuf_forget(fs, mbs[i]);
		else
			node_keep(fs, mbs[i], le32_to_cpu(nids[i]), magic,
				  first + i, NULL);
	}
}

int
gaze_node_get_cached(struct gaze_fs *fs, u32 nid, u32 magic,
		     struct gaze_mbuf **mbp)
{
	const struct gaze_mhdr *h;
	struct gaze_mbuf *mb;

	if (nid <= GAZE_NID_RESERVED || nid >= le32_to_cpu(fs->sb.max_nid)) {
		gaze_err("nid %u is out of range", nid);
		return -EFSCORRUPTED;
	}
	mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, nid, 0);
	if (!mb)
		return -EAGAIN;
	if (mb->flags & GAZE_MBF_AROUND) {	/* a read-around paid off */
		mb->flags &= ~GAZE_MBF_AROUND;
		gaze_stat_inc(fs, GAZE_STAT_AROUND_USED);
		if (fs->around_credit < GAZE_AROUND_CREDIT)
			fs->around_credit++;
	}
	h = mb->data;
	if (le32_to_cpu(h->magic) != magic) {
		gaze_err("node %u is not of the expected type", nid);
		gaze_mbuf_put(fs, mb);
		return -EFSCORRUPTED;
	}
	*mbp = mb;
	return 0;
}

int
gaze_inode_insert_live(struct gaze_fs *fs, u64 addr, const void *blk,
		       u32 mbflags)
{
	const struct gaze_mhdr *h = blk;
	struct gaze_miss *m = fs->miss, probe;
	u32 nid = le32_to_cpu(h->nid);
	struct gaze_mbuf *mb;
	u64 at;
	int ret;

	if (le32_to_cpu(h->magic) != GAZE_MAGIC_INODE ||
	    nid <= GAZE_NID_RESERVED || nid >= le32_to_cpu(fs->sb.max_nid))
		return -EINVAL;
	gaze_miss_init(&probe);
	fs->miss = &probe;
	ret = gaze_imap_get(fs, nid, &at);
	fs->miss = m;
	gaze_miss_exit(&probe);
	if (!ret && at != addr)
		ret = -ESTALE;
	if (!ret)
		ret = gaze_mbuf_create(fs, GAZE_MB_NODE, nid, 0, &mb);
	if (ret)
		return ret;
	memcpy(mb->data, blk, GAZE_BLOCK_SIZE);
	mb->flags |= mbflags;
	return node_keep(fs, mb, nid, GAZE_MAGIC_INODE, addr, NULL);
}

/*
 * Whether a cold read of inode nid takes a window: while the inodes
 * windows brought in are asked for (credit left), always; else one
 * inode in GAZE_AROUND_PROBE, the same one on every try of an operation
 * (a hash of its number, so that no stride in a workload's order can
 * always or never meet it), to notice when neighbours are asked for
 * again
 */
static bool
node_around_on(const struct gaze_fs *fs, u32 nid)
{
	return fs->around_credit ||
	       ((nid * 0x9e3779b1u) >> 16) % GAZE_AROUND_PROBE == 0;
}

/*
 * Inode read-around, in a read-only operation (fs->miss set): an inode
 * read from the device comes with the aligned window of
 * GAZE_INODE_AROUND blocks around it, in one read without fs->lock, and
 * every block there that is a live inode is cached too (as ext4 reads
 * the inode table around an inode).  Inodes made together are written
 * together, so a stat of each file of a directory after a cache drop
 * (a build, a backup, `git status`), which looks its names up without a
 * readdir, reads a window instead of every inode alone.  Where the
 * neighbours are not asked for (a stat of scattered files) a window
 * costs a larger read and the checks of blocks nobody wants, so windows
 * are taken only while they pay off (node_around_on).  The window stays
 * inside what the zone has written (gaze_space_read_end) and inside the
 * zone.  -GAZE_EMISS: the window is named, to be fetched
 * before the next try; 0: inserted, or nothing to gain (the caller
 * reads the inode as usual, so a block that fails its checks is read and
 * reported the usual way).
 */
static int
node_inode_around(struct gaze_fs *fs, u32 nid, u64 addr)
{
	u64 zone_start = addr - addr % fs->dev->zone_blocks;
	u64 first = max(addr & ~(u64)(GAZE_INODE_AROUND - 1), zone_start);
	u64 end = min(first + GAZE_INODE_AROUND,
		      gaze_space_read_end(fs, addr));
	const u8 *run;
	u32 nr, i;
	int ret;

	if (!fs->miss || end <= first + 1 || !node_around_on(fs, nid))
		return 0;
	nr = (u32)(end - first);
	ret = gaze_miss_run(fs, nid, first, &nr, (const void **)&run);
	if (ret <= 0 || !run)
		return ret;
	if (fs->around_credit)
		fs->around_credit--;
	gaze_stat_inc(fs, GAZE_STAT_AROUND);
	for (i = 0; i < nr; i++) {
		const u8 *blk = run + ((size_t)i << GAZE_BLOCK_SHIFT);

		if (first + i == addr)
			gaze_node_insert(fs, nid, GAZE_MAGIC_INODE, addr, blk,
					 NULL);
		else
			gaze_inode_insert_live(fs, first + i, blk,
					       GAZE_MBF_AROUND);
	}
	return 0;
}

int
gaze_node_get(struct gaze_fs *fs, u32 nid, u32 magic, struct gaze_mbuf **mbp)
{
	struct gaze_mbuf *mb;
	u64 addr;
	int ret;

	ret = gaze_node_get_cached(fs, nid, magic, mbp);
	if (ret != -EAGAIN)
		return ret;
	ret = gaze_imap_get(fs, nid, &addr);
	if (ret)
		return ret;
	if (!addr)
		return -ENOENT;
	if (!GAZE_ADDR_IS_REAL(addr)) {
		gaze_err("node %u has no block (imap %llx)", nid,
			 (unsigned long long)addr);
		return -EFSCORRUPTED;
	}
	if (magic == GAZE_MAGIC_INODE) {
		ret = node_inode_around(fs, nid, addr);
		if (ret)
			return ret;
	}
	ret = gaze_mbuf_read(fs, GAZE_MB_NODE, nid, 0, addr, magic, &mb);
	if (ret)
		return ret;
	*mbp = mb;
	return 0;
}

int
gaze_node_buf_verify(struct gaze_fs *fs, const struct gaze_mbuf *mb,
		     u32 expect, const char **why)
{
	return gaze_node_check(fs, mb->data, mb->id, expect, mb->blkaddr, why);
}

int
gaze_node_get_ref(struct gaze_fs *fs, u32 nid, u32 magic,
		  struct gaze_mbuf **mbp)
{
	int ret = gaze_node_get(fs, nid, magic, mbp);

	if (ret == -ENOENT) {
		gaze_err("node %u is pointed at but free", nid);
		ret = -EFSCORRUPTED;
	}
	return ret;
}

int
gaze_node_new(struct gaze_fs *fs, u32 nid, u32 ino, u32 magic, u32 index,
	      struct gaze_mbuf **mbp)
{
	struct gaze_mbuf *mb;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	if (nid <= GAZE_NID_RESERVED || nid >= le32_to_cpu(fs->sb.max_nid))
		return -EINVAL;
	ret = gaze_mbuf_create(fs, GAZE_MB_NODE, nid, 0, &mb);
	if (ret)
		return ret;
	gaze_fmt_hdr_init(mb->data, magic, fs->uuid, 0, fs->cp_seq + 1, nid,
			  ino, index);
	if (magic == GAZE_MAGIC_INODE) {
		/* its entry is replayed only with fsync_namespace, from the
		 * directory's blocks and nodes in the chain */
		if (gaze_sb_fsync_ns(&fs->sb))
			fs->rf_ns = true;
		else
			fs->rf_need_cp = true;
	} else
		gaze_rf_ino_touch(fs, ino);	/* a new nid: not replayed */
	gaze_mbuf_dirty(fs, mb);
	*mbp = mb;
	return 0;
}

int
gaze_node_log_type(const void *blk)
{
	const struct gaze_inode *in = blk;

	switch (le32_to_cpu(in->hdr.magic)) {
	case GAZE_MAGIC_INODE:
		if ((le16_to_cpu(in->mode) & 0170000) == 0040000)
			return GAZE_LOG_NODE_HOT;
		return GAZE_LOG_NODE_WARM;
	case GAZE_MAGIC_XATTR:
		return GAZE_LOG_NODE_COLD;
	}
	return GAZE_LOG_NODE_WARM;
}

/*
 * The header of a node about to be written at addr, and its crc: next
 * is the block its log writes after it (the roll-forward chain), flags
 * GAZE_NF_* (0 outside fsync).
 */
static void
node_seal(struct gaze_fs *fs, struct gaze_mbuf *mb, u64 addr, u64 next,
	  u16 flags)
{
	struct gaze_mhdr *h = mb->data;

	h->blkaddr = cpu_to_le64(addr);
	h->seq = cpu_to_le64(fs->cp_seq + 1);
	memcpy(h->uuid, fs->uuid, sizeof(h->uuid));
	h->hdr_version = cpu_to_le16(GAZE_FORMAT_VERSION);
	h->nid = cpu_to_le32(mb->id);
	h->flags = cpu_to_le16(flags);
	h->next = cpu_to_le64(next);
	gaze_fmt_csum_set(mb->data);
}

/*
 * Flushing many nodes: dirty nodes are gathered per log type, up to
 * NODE_BATCH each (held by a reference), given consecutive blocks of
 * their log and written in runs (gaze_blocks_write_runs), so a
 * checkpoint after 100,000 new files makes a few hundred device writes
 * instead of 100,000.  Nodes name each other by nid (the imap), so they
 * may be written in any order.  Only once the whole batch is on the
 * device does each imap entry move to its new block; on an error every
 * block of the batch is given back and the nodes stay dirty.
 */
#define NODE_BATCH	64

struct node_batch {
	u32			n;
	struct gaze_mbuf	*mb[NODE_BATCH];
	u64			addr[NODE_BATCH];
	void			*bufs[NODE_BATCH];
};

/* points the imap at the batch's written blocks and cleans the nodes */
static int
node_batch_commit(struct gaze_fs *fs, struct node_batch *b)
{
	u64 old;
	u32 i;
	int ret = 0;

	for (i = 0; i < b->n && !ret; i++) {
		struct gaze_mbuf *mb = b->mb[i];

		ret = gaze_imap_get(fs, mb->id, &old);
		if (!ret)
			ret = gaze_imap_set(fs, mb->id, b->addr[i]);
		if (ret)
			break;
		if (GAZE_ADDR_IS_REAL(old))
			ret = gaze_block_invalidate(fs, old);
		mb->blkaddr = b->addr[i];
		gaze_mbuf_clean(fs, mb);
	}
	/* nodes whose imap entry did not move: their new blocks are free */
	for (; i < b->n; i++)
		if (b->mb[i]->blkaddr != b->addr[i])
			gaze_block_invalidate(fs, b->addr[i]);
	return ret;
}

/*
 * The block after the batch's last one in its log: where the chain goes
 * on.  Outside fsync a full zone is not followed by opening the next one
 * (a checkpoint must not take a free zone for it): the chain ends, and
 * the next fsync takes a checkpoint instead (GAZE_RF_BROKEN).
 */
static u64
node_batch_next(struct gaze_fs *fs, int type, u16 flags)
{
	u32 li = (u32)gaze_log_of_type(fs, type);
	u64 next = gaze_log_peek(fs, type, flags & GAZE_NF_FSYNC);

	if (!next)
		fs->rf_log[li] |= GAZE_RF_BROKEN;
	if (!(flags & GAZE_NF_FSYNC))
		fs->rf_log[li] |= GAZE_RF_TAIL | GAZE_RF_UNMARKED;
	return next;
}

static int
node_batch_write(struct gaze_fs *fs, struct node_batch *b, int type,
		 u16 flags)
{
	u32 i, got;
	int ret = 0, wret = 0;
	u64 next = 0;

	for (got = 0; got < b->n && !ret; got++) {
		ret = gaze_block_alloc(fs, type, b->mb[got]->id, 0,
				       GAZE_SUM_NODE, &b->addr[got]);
		if (ret)
			break;
	}
	if (got)
		next = node_batch_next(fs, type, flags);
	for (i = 0; i < got; i++) {
		bool last = i + 1 == got;

		node_seal(fs, b->mb[i], b->addr[i],
			  last ? next : b->addr[i + 1],
			  last ? flags : flags & ~GAZE_NF_FSYNC_END);
		b->bufs[i] = b->mb[i]->data;
	}
	/* blocks taken at a log head are written even when not all were */
	if (got)
		wret = gaze_blocks_write_runs(fs, b->addr, got, b->bufs);
	if (!ret)
		ret = wret;
	if (ret) {
		for (i = 0; i < got; i++)
			gaze_block_invalidate(fs, b->addr[i]);
	} else {
		ret = node_batch_commit(fs, b);
	}
	for (i = 0; i < b->n; i++)
		gaze_mbuf_put(fs, b->mb[i]);
	b->n = 0;
	return ret;
}

int
gaze_node_write(struct gaze_fs *fs, struct gaze_mbuf *mb)
{
	struct node_batch *b;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	if (!(mb->flags & GAZE_MBF_DIRTY))
		return 0;
	b = gaze_alloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	mb->ref++;
	b->mb[0] = mb;
	b->n = 1;
	ret = node_batch_write(fs, b, gaze_node_log_type(mb->data), 0);
	gaze_free(b);
	return ret;
}

struct node_flush {
	struct node_batch	b[GAZE_NR_LOG_TYPES];
	u32			*budget;	/* or NULL: no bound */
};

static int
node_flush_one(struct gaze_fs *fs, struct gaze_mbuf *mb, void *arg)
{
	struct node_flush *nf = arg;
	int type = gaze_node_log_type(mb->data);
	struct node_batch *b = &nf->b[type];
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	if (nf->budget) {
		if (!*nf->budget)
			return 1;	/* stop the walk; write what we have */
		(*nf->budget)--;
	}
	if (b->n == NODE_BATCH) {
		ret = node_batch_write(fs, b, type, 0);
		if (ret)
			return ret;
	}
	mb->ref++;		/* the batch's, until it is written */
	b->mb[b->n++] = mb;
	return 0;
}

int
gaze_nodes_flush_some(struct gaze_fs *fs, u32 *budget)
{
	struct node_flush *nf;
	int ret, r, t;

	if (fs->flags & GAZE_FS_RDONLY)
		return 0;
	nf = gaze_zalloc(sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	nf->budget = budget;
	ret = gaze_cache_for_each_dirty(fs, GAZE_MB_NODE, node_flush_one, nf);
	if (ret > 0)
		ret = 0;	/* the budget ran out */
	for (t = 0; t < GAZE_NR_LOG_TYPES; t++) {
		if (!nf->b[t].n)
			continue;
		if (ret) {
			/* an earlier batch failed: drop the rest unwritten */
			while (nf->b[t].n)
				gaze_mbuf_put(fs, nf->b[t].mb[--nf->b[t].n]);
			continue;
		}
		r = node_batch_write(fs, &nf->b[t], t, 0);
		if (r)
			ret = r;
	}
	gaze_free(nf);
	return ret;
}

int
gaze_nodes_flush(struct gaze_fs *fs)
{
	return gaze_nodes_flush_some(fs, NULL);
}

/*
 * fsync without a checkpoint (fs.c gaze_fs_fsync).  Every dirty node goes
 * to the one physical log they all map to (node_fsync_type), marked
 * GAZE_NF_FSYNC, the last
 * one also GAZE_NF_FSYNC_END: recovery replays a log's chain only up to
 * its last end mark, so an fsync cut short by a crash is dropped whole.
 */
struct node_fsync_scan {
	struct gaze_fs	*fs;
	u32		ino;		/* this inode's nodes; 0: all */
	u32		n;		/* nodes found */
	int		li;		/* -2: no node yet; -1: several logs */
};

/*
 * The log an fsync writes node blk to: its own, or with fsync_namespace
 * the warm node log for every node, so that a create's directory inode
 * (hot) and new inode (warm) are one run of one chain
 */
static int
node_fsync_type(struct gaze_fs *fs, const void *blk)
{
	if (gaze_sb_fsync_ns(&fs->sb))
		return GAZE_LOG_NODE_WARM;
	return gaze_node_log_type(blk);
}

/* whether mb is one of the nodes an fsync of ino (0: all) writes */
static bool
node_fsync_wants(const struct gaze_mbuf *mb, u32 ino)
{
	return !ino ||
	       le32_to_cpu(((const struct gaze_mhdr *)mb->data)->ino) == ino;
}

static int
node_fsync_scan_one(struct gaze_fs *fs, struct gaze_mbuf *mb, void *arg)
{
	struct node_fsync_scan *s = arg;
	int li;

	if (!node_fsync_wants(mb, s->ino))
		return 0;
	li = gaze_log_of_type(fs, node_fsync_type(fs, mb->data));
	s->n++;
	if (s->li == -2)
		s->li = li;
	else if (s->li != li)
		s->li = -1;
	return 0;
}

int
gaze_nodes_fsync_log(struct gaze_fs *fs, u32 ino, u32 *nr)
{
	struct node_fsync_scan s = { .fs = fs, .ino = ino, .li = -2 };
	int ret;

	ret = gaze_cache_for_each_dirty(fs, GAZE_MB_NODE, node_fsync_scan_one,
					&s);
	if (nr)
		*nr = s.n;
	return ret ? -1 : s.li;
}

struct node_fsync {
	struct node_batch	b;
	u32			li;
	u32			ino;	/* as in node_fsync_scan */
	int			type;	/* of the first node: all share li */
	u32			written;
};

static int
node_fsync_one(struct gaze_fs *fs, struct gaze_mbuf *mb, void *arg)
{
	struct node_fsync *nf = arg;
	int type = node_fsync_type(fs, mb->data);
	int ret;

	if (!node_fsync_wants(mb, nf->ino))
		return 0;
	if (WARN_ON((u32)gaze_log_of_type(fs, type) != nf->li))
		return -EINVAL;
	if (nf->type < 0)
		nf->type = type;
	if (nf->b.n == NODE_BATCH) {
		ret = node_batch_write(fs, &nf->b, nf->type, GAZE_NF_FSYNC);
		if (ret)
			return ret;
	}
	mb->ref++;		/* the batch's, until it is written */
	nf->b.mb[nf->b.n++] = mb;
	nf->written++;
	return 0;
}

int
gaze_nodes_fsync(struct gaze_fs *fs, u32 li, u32 ino)
{
	struct node_fsync *nf;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	nf = gaze_zalloc(sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	nf->li = li;
	nf->ino = ino;
	nf->type = -1;
	ret = gaze_cache_for_each_dirty(fs, GAZE_MB_NODE, node_fsync_one, nf);
	if (!ret && nf->b.n)
		ret = node_batch_write(fs, &nf->b, nf->type,
				       GAZE_NF_FSYNC | GAZE_NF_FSYNC_END);
	while (nf->b.n)		/* an earlier batch failed */
		gaze_mbuf_put(fs, nf->b.mb[--nf->b.n]);
	if (!ret) {
		fs->rf_log[li] &= (u8)~GAZE_RF_TAIL;
		fs->rf_blocks += nf->written;
	}
	gaze_free(nf);
	return ret;
}
