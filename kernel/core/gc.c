// SPDX-License-Identifier: GPL-2.0
/*
 * gc.c - the baseline garbage collector.
 *
 * Why: the device is append-only, so an overwritten or deleted block only
 * stops being valid; its zone can be reused once every block still valid
 * in it has been copied elsewhere.  This file does that copying in the
 * simplest correct way, one zone at a time under fs->lock, so that the
 * pipelined collector of the module has a reference to be compared with.
 *
 * Which zone, and when, is gcpolicy.c's (the same rules for this mover
 * and the staged one); this file moves a zone it is given.
 *
 * Moving a zone (gaze_gc_zone), for each valid block found in the usage
 * bitmap, its summary names the owner:
 *  - a node block (GAZE_SUM_NODE): the imap must point at it; the node is
 *    loaded and marked dirty, so the flush below writes it to its node
 *    log and moves the imap entry (invalidating the old block);
 *  - a data block (GAZE_SUM_DATA): the owner (inode or dnode) slot must
 *    hold this address, else the filesystem is corrupt (-EFSCORRUPTED,
 *    nothing is guessed).  File data is copied to the cold data log and
 *    the slot updated.  A directory block is either cached (then it is
 *    marked dirty and the flush rewrites it) or copied to the cold data
 *    log with its header's address and crc renewed.
 * Then dirty directory blocks and nodes are flushed, and the zone, now
 * without a valid block, is PREFREE.  It becomes FREE only after two more
 * checkpoints (space.c), since a mount may fall back to the previous one.
 *
 * Space: GC writes through gaze_block_alloc, the writeback class, which
 * may use the reserved zones that user data may not.
 *
 * Locking: fs->lock, held by the caller, protects everything here.
 */
#include "gaze_core.h"

static u32
gc_cap(const struct gaze_fs *fs)
{
	return le32_to_cpu(fs->sb.zone_cap);
}

/* ---------------------------------------------------------------- */
/* Moving blocks                                                     */
/* ---------------------------------------------------------------- */

/*
 * node nid whatever its type (its magic read from the block, which is
 * then cached as it is: one read); ref held.  With fs->miss set (the
 * staged GC's prewrite) an uncached node is named, -GAZE_EMISS.
 */
int
gaze_gc_node_get(struct gaze_fs *fs, u32 nid, void *tmp, struct gaze_mbuf **mbp)
{
	const char *why = NULL;
	struct gaze_mbuf *mb;
	u32 magic;
	u64 addr;
	int ret;

	mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, nid, 0);
	if (mb) {
		*mbp = mb;
		return 0;
	}
	ret = gaze_imap_get(fs, nid, &addr);
	if (ret)
		return ret;
	if (!GAZE_ADDR_IS_REAL(addr)) {
		gaze_err("gc: owner node %u has no block", nid);
		return -EFSCORRUPTED;
	}
	ret = gaze_miss_read(fs, GAZE_MB_NODE, nid, 0, addr, tmp);
	if (ret)
		return ret;
	magic = le32_to_cpu(((struct gaze_mhdr *)tmp)->magic);
	ret = gaze_node_insert(fs, nid, magic, addr, tmp, &why);
	/* -EEXIST: cached meanwhile, and that copy is the one used */
	if (ret && ret != -EEXIST) {
		gaze_err("gc: node %u at %llu: %s", nid,
			 (unsigned long long)addr, why ? why : "bad block");
		return ret;
	}
	return gaze_node_get(fs, nid, magic, mbp);
}

static int
gc_move_node(struct gaze_fs *fs, u64 addr, u32 nid, const void *blk)
{
	const struct gaze_mhdr *h = blk;
	struct gaze_mbuf *mb;
	u64 cur;
	int ret;

	ret = gaze_imap_get(fs, nid, &cur);
	if (ret)
		return ret;
	if (cur != addr || le32_to_cpu(h->nid) != nid) {
		gaze_err("gc: node block %llu names nid %u, whose imap entry is %llx",
			 (unsigned long long)addr, nid, (unsigned long long)cur);
		return -EFSCORRUPTED;
	}
	ret = gaze_node_get(fs, nid, le32_to_cpu(h->magic), &mb);
	if (ret)
		return ret;
	gaze_mbuf_dirty(fs, mb);
	gaze_mbuf_put(fs, mb);
	fs->gc.nodes_moved++;
	return 0;
}

u32
gaze_gc_owner_slots(const struct gaze_mbuf *owner)
{
	u32 magic = le32_to_cpu(((const struct gaze_mhdr *)owner->data)->magic);

	return magic == GAZE_MAGIC_INODE ? GAZE_ADDRS_PER_INODE :
	       magic == GAZE_MAGIC_DNODE ? GAZE_ADDRS_PER_DNODE : 0;
}

/* is the inode owning node `owner` a directory? */
int
gaze_gc_owner_is_dir(struct gaze_fs *fs, struct gaze_mbuf *owner, bool *dir)
{
	const struct gaze_inode *in = owner->data;
	struct gaze_mbuf *imb;
	int ret;

	if (le32_to_cpu(in->hdr.magic) != GAZE_MAGIC_INODE) {
		ret = gaze_inode_get(fs, le32_to_cpu(in->hdr.ino), &imb);
		if (ret)
			return ret;
		in = imb->data;
		*dir = GAZE_S_ISDIR(le16_to_cpu(in->mode));
		gaze_mbuf_put(fs, imb);
		return 0;
	}
	*dir = GAZE_S_ISDIR(le16_to_cpu(in->mode));
	return 0;
}

/*
 * Directory block at addr (contents in blk): a cached copy is re-dirtied
 * (the flush moves it); otherwise the header is renewed for its new place.
 * *done: nothing left to write here.
 */
int
gaze_gc_dir_block(struct gaze_fs *fs, u64 addr, void *blk, bool *done)
{
	struct gaze_mhdr *h = blk;
	u32 magic = le32_to_cpu(h->magic), lblk = le32_to_cpu(h->index);
	const char *why = NULL;
	struct gaze_mbuf *mb;
	int ret;

	if (magic == GAZE_MAGIC_DIR_INDEX)
		ret = gaze_fmt_dir_index_verify(blk, &fs->sb, addr, &why);
	else
		ret = gaze_fmt_dir_bucket_verify(blk, &fs->sb, addr, &why);
	if (ret) {
		gaze_err("gc: directory block %llu: %s",
			 (unsigned long long)addr, why ? why : "bad");
		return ret;
	}
	mb = gaze_mbuf_lookup(fs, GAZE_MB_FBLK, le32_to_cpu(h->ino), lblk);
	*done = mb != NULL;
	if (mb) {
		gaze_mbuf_dirty(fs, mb);
		gaze_mbuf_put(fs, mb);
	}
	return 0;
}

static int
gc_move_data(struct gaze_fs *fs, u64 addr, const struct gaze_summary *sum,
	     void *blk, void *tmp)
{
	u32 nid = le32_to_cpu(sum->nid), ofs = le16_to_cpu(sum->ofs);
	struct gaze_mbuf *owner;
	struct gaze_mhdr *h;
	bool dir, done = false;
	__le64 *addrs;
	u32 nslots;
	u64 naddr;
	int ret;

	ret = gaze_gc_node_get(fs, nid, tmp, &owner);
	if (ret)
		return ret;
	nslots = gaze_gc_owner_slots(owner);
	addrs = nslots ? gaze_bmap_addrs(owner) : NULL;
	if (ofs >= nslots || le64_to_cpu(addrs[ofs]) != addr) {
		gaze_err("gc: block %llu: owner %u slot %u does not point at it",
			 (unsigned long long)addr, nid, ofs);
		ret = -EFSCORRUPTED;
		goto out_put;
	}
	ret = gaze_gc_owner_is_dir(fs, owner, &dir);
	if (!ret && dir)
		ret = gaze_gc_dir_block(fs, addr, blk, &done);
	if (ret || done)
		goto out_put;
	ret = gaze_block_alloc(fs, GAZE_LOG_DATA_COLD, nid, (u16)ofs,
			       GAZE_SUM_DATA, &naddr);
	if (ret)
		goto out_put;
	if (dir) {
		h = blk;
		h->blkaddr = cpu_to_le64(naddr);
		h->seq = cpu_to_le64(fs->cp_seq + 1);
		gaze_fmt_csum_set(blk);
	}
	ret = gaze_block_write(fs, naddr, blk);
	if (ret) {
		gaze_block_invalidate(fs, naddr);
		goto out_put;
	}
	addrs[ofs] = cpu_to_le64(naddr);
	gaze_mbuf_dirty(fs, owner);
	ret = gaze_block_invalidate(fs, addr);
out_put:
	gaze_mbuf_put(fs, owner);
	if (!ret)
		fs->gc.data_moved++;
	return ret;
}

/* persists the lifetime counters in the next checkpoint head */
void
gaze_gc_count_cp(struct gaze_fs *fs, u64 zones, u64 moved)
{
	fs->cp.gc_zones_reclaimed =
		cpu_to_le64(le64_to_cpu(fs->cp.gc_zones_reclaimed) + zones);
	fs->cp.gc_blocks_moved =
		cpu_to_le64(le64_to_cpu(fs->cp.gc_blocks_moved) + moved);
}

/* time of one gaze_gc_zone: total, and max + histogram when it worked */
void
gaze_gc_account_zone(struct gaze_fs *fs, u64 ns, bool done)
{
	u64 us = ns / 1000;
	u32 b = 0;

	fs->gc.time_ns += ns;
	if (!done)
		return;
	fs->gc.zone_ns_total += ns;
	if (ns > fs->gc.zone_ns_max)
		fs->gc.zone_ns_max = ns;
	while (us > 1 && b < ARRAY_SIZE(fs->gc.hist) - 1) {
		us >>= 1;
		b++;
	}
	fs->gc.hist[b]++;
}

int
gaze_gc_victim_check(struct gaze_fs *fs, u32 zone, struct gaze_zone_use *u)
{
	int ret;

	if (gaze_gcp_zone_busy(fs, zone))
		return -EBUSY;		/* a pipelined job has it */
	ret = gaze_space_zone_use(fs, zone, u);
	if (ret)
		return ret;
	if (u->state != GAZE_ZS_FULL || u->log_head)
		return -EINVAL;
	return 0;
}

int
gaze_gc_move_begin(struct gaze_fs *fs, struct gaze_gc_mover *mv, u32 zone,
		   int why)
{
	struct gaze_zone_use u;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	ret = gaze_gc_victim_check(fs, zone, &u);
	if (ret)
		return ret;
	mv->zone = zone;
	mv->off = 0;
	mv->why = why;
	mv->t0 = gaze_time_ns();
	mv->moved0 = fs->gc.data_moved + fs->gc.nodes_moved;
	return 0;
}

/* moves the valid blocks from mv->off on, at most budget; *empty: no
 * valid block is left in the zone */
static int
gc_move_blocks(struct gaze_fs *fs, struct gaze_gc_mover *mv, u32 budget,
	       bool *empty)
{
	u32 zb = le32_to_cpu(fs->sb.zone_blocks), cap = gc_cap(fs), n = 0;
	struct gaze_zone_use u;
	struct gaze_summary sum;
	u8 *blk, *tmp;
	bool valid;
	u64 addr;
	int ret = 0;

	*empty = false;
	blk = gaze_alloc(2 * GAZE_BLOCK_SIZE);
	if (!blk)
		return -ENOMEM;
	tmp = blk + GAZE_BLOCK_SIZE;
	for (; mv->off < cap && n < budget; mv->off++) {
		ret = gaze_space_zone_use(fs, mv->zone, &u);
		if (ret)
			break;
		if (!u.valid) {
			*empty = true;
			break;
		}
		addr = (u64)mv->zone * zb + mv->off;
		ret = gaze_space_block_owner(fs, addr, &valid, &sum);
		if (ret)
			break;
		if (!valid)
			continue;
		ret = gaze_block_read(fs, addr, blk);
		if (ret)
			break;
		if (sum.type == GAZE_SUM_NODE) {
			ret = gc_move_node(fs, addr, le32_to_cpu(sum.nid), blk);
		} else if (sum.type == GAZE_SUM_DATA) {
			ret = gc_move_data(fs, addr, &sum, blk, tmp);
		} else {
			gaze_err("gc: valid block %llu has summary type %u",
				 (unsigned long long)addr, sum.type);
			ret = -EFSCORRUPTED;
		}
		if (ret)
			break;
		n++;
	}
	gaze_free(blk);
	if (!ret && mv->off >= cap)
		*empty = true;
	return ret;
}

/* the zone is empty: flushed, checked PREFREE, counted */
static int
gc_move_finish(struct gaze_fs *fs, struct gaze_gc_mover *mv)
{
	struct gaze_zone_use u;
	u64 moved;
	int ret;

	ret = gaze_fs_flush_dirty(fs);
	if (ret)
		return ret;
	ret = gaze_space_zone_use(fs, mv->zone, &u);
	if (!ret && (u.valid || u.state != GAZE_ZS_PREFREE)) {
		gaze_err("gc: zone %u still has %u valid blocks after moving",
			 mv->zone, u.valid);
		ret = -EFSCORRUPTED;
	}
	if (ret)
		return ret;
	moved = fs->gc.data_moved + fs->gc.nodes_moved - mv->moved0;
	fs->gc.zones_reclaimed++;
	fs->gc.zones_mover++;
	if (gaze_gc_why_fg(mv->why))
		fs->gc.zones_fg++;
	gaze_gc_count_cp(fs, 1, moved);
	gaze_gc_count_freed(fs, moved, mv->why);
	return 0;
}

int
gaze_gc_move_step(struct gaze_fs *fs, struct gaze_gc_mover *mv, u32 budget,
		  bool *done)
{
	bool empty = false;
	int ret;

	*done = false;
	if (fs->flags & GAZE_FS_RDONLY)
		ret = -EROFS;
	else
		ret = gc_move_blocks(fs, mv, budget, &empty);
	if (!ret && !empty)
		return 0;
	if (!ret)
		ret = gc_move_finish(fs, mv);
	gaze_gc_account_zone(fs, gaze_time_ns() - mv->t0, !ret);
	mv->zone = 0;
	*done = true;
	return ret;
}

int
gaze_gc_move(struct gaze_fs *fs, u32 zone, int why)
{
	struct gaze_gc_mover mv;
	bool done = false;
	int ret;

	ret = gaze_gc_move_begin(fs, &mv, zone, why);
	while (!ret && !done)
		ret = gaze_gc_move_step(fs, &mv, ~0u, &done);
	return ret;
}

int
gaze_gc_zone(struct gaze_fs *fs, u32 zone)
{
	return gaze_gc_move(fs, zone, GAZE_GC_USER);
}
