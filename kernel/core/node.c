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
	mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, nid, 0);
	if (mb)
		gaze_mbuf_forget(fs, mb);
	return 0;
}

static int
node_verify(struct gaze_fs *fs, const void *blk, u32 magic, u64 addr,
	    const char **why)
{
	switch (magic) {
	case GAZE_MAGIC_INODE:
		return gaze_fmt_inode_verify(blk, &fs->sb, addr, why);
	case GAZE_MAGIC_DNODE:
		return gaze_fmt_dnode_verify(blk, &fs->sb, addr, why);
	case GAZE_MAGIC_INODE_IND:
		return gaze_fmt_ind_verify(blk, &fs->sb, addr, why);
	case GAZE_MAGIC_XATTR:
		return gaze_fmt_xattr_verify(blk, &fs->sb, addr, why);
	}
	*why = "not a node magic";
	return -EINVAL;
}

int
gaze_node_get(struct gaze_fs *fs, u32 nid, u32 magic, struct gaze_mbuf **mbp)
{
	const struct gaze_mhdr *h;
	struct gaze_mbuf *mb;
	const char *why = NULL;
	u64 addr;
	int ret;

	if (nid <= GAZE_NID_RESERVED || nid >= le32_to_cpu(fs->sb.max_nid)) {
		gaze_err("nid %u is out of range", nid);
		return -EFSCORRUPTED;
	}
	mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, nid, 0);
	if (mb) {
		h = mb->data;
		if (le32_to_cpu(h->magic) != magic) {
			gaze_err("node %u is not of the expected type",
				 nid);
			gaze_mbuf_put(fs, mb);
			return -EFSCORRUPTED;
		}
		*mbp = mb;
		return 0;
	}
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
	ret = gaze_mbuf_read(fs, GAZE_MB_NODE, nid, 0, addr, &mb);
	if (ret)
		return ret;
	ret = node_verify(fs, mb->data, magic, addr, &why);
	h = mb->data;
	if (!ret && le32_to_cpu(h->nid) != nid) {
		why = "header names another nid";
		ret = -EFSCORRUPTED;
	}
	if (!ret && le64_to_cpu(h->seq) > fs->cp_seq + 1) {
		why = "node is newer than the checkpoint";
		ret = -EFSCORRUPTED;
	}
	if (ret) {
		gaze_err("node %u at %llu: %s", nid,
			 (unsigned long long)addr, why ? why : "bad block");
		gaze_mbuf_forget(fs, mb);
		return ret;
	}
	*mbp = mb;
	return 0;
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
	gaze_mbuf_dirty(fs, mb);
	*mbp = mb;
	return 0;
}

static int
node_log_type(const struct gaze_mbuf *mb)
{
	const struct gaze_inode *in = mb->data;

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

int
gaze_node_write(struct gaze_fs *fs, struct gaze_mbuf *mb)
{
	struct gaze_mhdr *h = mb->data;
	u32 nid = mb->id;
	u64 old, addr;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	if (!(mb->flags & GAZE_MBF_DIRTY))
		return 0;
	ret = gaze_imap_get(fs, nid, &old);
	if (ret)
		return ret;
	ret = gaze_block_alloc(fs, node_log_type(mb), nid, 0, GAZE_SUM_NODE,
			       &addr);
	if (ret)
		return ret;
	h->blkaddr = cpu_to_le64(addr);
	h->seq = cpu_to_le64(fs->cp_seq + 1);
	memcpy(h->uuid, fs->uuid, sizeof(h->uuid));
	h->hdr_version = cpu_to_le16(GAZE_FORMAT_VERSION);
	h->nid = cpu_to_le32(nid);
	h->next = 0;
	gaze_fmt_csum_set(mb->data);
	ret = gaze_block_write(fs, addr, mb->data);
	if (ret)
		goto out_unalloc;
	ret = gaze_imap_set(fs, nid, addr);
	if (ret)
		goto out_unalloc;
	if (GAZE_ADDR_IS_REAL(old)) {
		ret = gaze_block_invalidate(fs, old);
		if (ret)
			return ret;
	}
	mb->blkaddr = addr;
	gaze_mbuf_clean(fs, mb);
	return 0;

out_unalloc:
	gaze_block_invalidate(fs, addr);
	return ret;
}

static int
node_flush_one(struct gaze_fs *fs, struct gaze_mbuf *mb, void *arg)
{
	(void)arg;
	return gaze_node_write(fs, mb);
}

int
gaze_nodes_flush(struct gaze_fs *fs)
{
	if (fs->flags & GAZE_FS_RDONLY)
		return 0;
	return gaze_cache_for_each_dirty(fs, GAZE_MB_NODE, node_flush_one,
					 NULL);
}
