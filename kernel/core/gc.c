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
 * Victims: FULL main zones with at least one invalid block.  Log heads,
 * OPEN, FREE and PREFREE zones never qualify, nor anything outside the
 * main area.  Greedy takes the fewest valid blocks; cost-benefit takes
 * the highest (1 - u) * (age + 1) / (1 + u), u the valid ratio and age
 * the seconds since the zone's last write (zinfo.mtime).
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
 * may use the reserved zones that user data may not.  Foreground GC runs
 * at consistent points of namespace operations (gaze_gc_balance: before
 * each chunk of a file write and after every modifying operation), never
 * from inside an allocation, and fs->gc_active stops any re-entry.
 *
 * Locking: fs->lock, held by the caller, protects everything here.
 */
#include "gaze_core.h"

/* free zones foreground GC keeps above the user floor (space.c) */
#define GC_FG_SLACK		2u
/* once started, foreground GC frees this many zones more than needed, so
 * that several victims share the two checkpoints that free them */
#define GC_FG_BATCH		2u
/* foreground GC gives up after this many victims in a row gained nothing */
#define GC_FG_STRIKES		3u

static u32
gc_cap(const struct gaze_fs *fs)
{
	return le32_to_cpu(fs->sb.zone_cap);
}

u64
gaze_gc_cb_score(u32 valid, u32 cap, u64 age)
{
	u64 u;

	if (!cap || valid >= cap)
		return 0;
	u = (u64)valid * 1024 / cap;		/* valid ratio, 1/1024 */
	/* (1 - u) * (age + 1) / (1 + u), scaled by 1024 */
	return (1024 - u) * (min_t(u64, age, 1ull << 32) + 1) * 1024 /
	       (1024 + u);
}

static bool
gc_eligible(const struct gaze_zone_use *u, u32 cap)
{
	return u->state == GAZE_ZS_FULL && !u->log_head && u->valid < cap;
}

int
gaze_gc_select(struct gaze_fs *fs, int policy, u32 *zone)
{
	u32 start = fs->lay.main_zone_start, end = start +
		    fs->lay.main_zone_count, cap = gc_cap(fs), z;
	u64 now = gaze_fs_age(fs), best = 0, score, age;
	struct gaze_zone_use u;
	bool found = false;

	if (policy == GAZE_GC_POLICY_DEFAULT)
		policy = (int)le32_to_cpu(fs->sb.victim_policy);
	if (policy != GAZE_GC_GREEDY && policy != GAZE_GC_COST_BENEFIT)
		return -EINVAL;
	for (z = start; z < end; z++) {
		if (gaze_space_zone_use(fs, z, &u) || !gc_eligible(&u, cap) ||
		    gaze_gcp_zone_busy(fs, z))
			continue;
		if (policy == GAZE_GC_GREEDY) {
			score = cap - u.valid;		/* invalid blocks */
		} else {
			age = now > u.mtime ? now - u.mtime : 0;
			score = gaze_gc_cb_score(u.valid, cap, age);
		}
		if (!found || score > best) {
			found = true;
			best = score;
			*zone = z;
		}
	}
	return found ? 0 : -ENOENT;
}

/* ---------------------------------------------------------------- */
/* Moving blocks                                                     */
/* ---------------------------------------------------------------- */

/* node nid whatever its type (its magic read from the block); ref held */
int
gaze_gc_node_get(struct gaze_fs *fs, u32 nid, void *tmp, struct gaze_mbuf **mbp)
{
	struct gaze_mbuf *mb;
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
	ret = gaze_block_read(fs, addr, tmp);
	if (ret)
		return ret;
	return gaze_node_get(fs, nid,
			     le32_to_cpu(((struct gaze_mhdr *)tmp)->magic), mbp);
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
gaze_gc_zone(struct gaze_fs *fs, u32 zone)
{
	u32 zb = le32_to_cpu(fs->sb.zone_blocks), cap = gc_cap(fs), off;
	u64 t0 = gaze_time_ns(), addr;
	u64 moved = fs->gc.data_moved + fs->gc.nodes_moved;
	struct gaze_zone_use u;
	struct gaze_summary sum;
	u8 *blk, *tmp;
	bool valid;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	ret = gaze_gc_victim_check(fs, zone, &u);
	if (ret)
		return ret;
	blk = gaze_alloc(2 * GAZE_BLOCK_SIZE);
	if (!blk)
		return -ENOMEM;
	tmp = blk + GAZE_BLOCK_SIZE;
	for (off = 0; off < cap; off++) {
		ret = gaze_space_zone_use(fs, zone, &u);
		if (ret || !u.valid)
			break;
		addr = (u64)zone * zb + off;
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
	}
	gaze_free(blk);
	if (ret)
		goto out;
	ret = gaze_fs_flush_dirty(fs);
	if (ret)
		goto out;
	ret = gaze_space_zone_use(fs, zone, &u);
	if (!ret && (u.valid || u.state != GAZE_ZS_PREFREE)) {
		gaze_err("gc: zone %u still has %u valid blocks after moving",
			 zone, u.valid);
		ret = -EFSCORRUPTED;
	}
	if (!ret) {
		fs->gc.zones_reclaimed++;
		gaze_gc_count_cp(fs, 1, fs->gc.data_moved + fs->gc.nodes_moved -
			    moved);
	}
out:
	gaze_gc_account_zone(fs, gaze_time_ns() - t0, !ret);
	return ret;
}

/* ---------------------------------------------------------------- */
/* When to collect                                                   */
/* ---------------------------------------------------------------- */

/* the GC's own writes for a victim fit in the free zones (any class) */
static bool
gc_room_for(struct gaze_fs *fs, u32 zone)
{
	struct gaze_zone_use u;

	if (gaze_space_zone_use(fs, zone, &u))
		return false;
	/* every moved block, plus as many owner nodes in the worst case */
	return (u64)gaze_space_free_zones(fs) * gc_cap(fs) >= 2ull * u.valid + 8;
}

/* a checkpoint written to move PREFREE zones on towards FREE */
static int
gc_checkpoint(struct gaze_fs *fs)
{
	u64 t0 = gaze_time_ns();
	int ret;

	ret = gaze_cp_write(fs, 0);
	fs->gc.checkpoints++;
	fs->gc.time_ns += gaze_time_ns() - t0;
	return ret;
}

/*
 * One victim with at most max_valid valid blocks: select, check room,
 * move.  -ENOENT / -ENOSPC: none possible now.
 */
static int
gc_one(struct gaze_fs *fs, int policy, u32 max_valid)
{
	struct gaze_zone_use u;
	u32 zone;
	int ret;

	ret = gaze_gc_select(fs, policy, &zone);
	if (ret)
		return ret;
	ret = gaze_space_zone_use(fs, zone, &u);
	if (ret)
		return ret;
	if (u.valid > max_valid)
		return -ENOENT;
	if (!gc_room_for(fs, zone))
		return -ENOSPC;
	return gaze_gc_zone(fs, zone);
}

/* zones that are free or will be after their checkpoints */
static u32
gc_avail(struct gaze_fs *fs)
{
	return gaze_space_free_zones(fs) + gaze_space_nr_prefree(fs);
}

int
gaze_gc_balance(struct gaze_fs *fs, u64 need_blocks)
{
	u32 want = gaze_space_user_floor(fs) + GC_FG_SLACK +
		   (u32)min_t(u64, DIV_ROUND_UP(need_blocks, gc_cap(fs)),
			      fs->lay.main_zone_count);
	u32 rounds = 4 * fs->lay.main_zone_count + 8, strikes = 0, before;
	bool can_gc = true;
	int ret = 0;

	if ((fs->flags & GAZE_FS_RDONLY) || fs->gc_active ||
	    gaze_space_free_zones(fs) >= want)
		return 0;
	fs->gc_active = true;
	fs->gc.fg_runs++;
	want += GC_FG_BATCH;
	while (rounds-- && gaze_space_free_zones(fs) < want) {
		if (can_gc && gc_avail(fs) < want) {
			before = gc_avail(fs);
			ret = gc_one(fs, fs->gc_policy, gc_cap(fs));
			if (!ret) {
				fs->gc.zones_fg++;
				/* victims too full to pay for their move */
				strikes = gc_avail(fs) > before ? 0 : strikes + 1;
				can_gc = strikes < GC_FG_STRIKES;
				continue;
			}
			if (ret != -ENOENT && ret != -ENOSPC)
				break;
			ret = 0;
			can_gc = false;
		}
		if (!gaze_space_nr_prefree(fs))
			break;			/* nothing more to gain */
		ret = gc_checkpoint(fs);
		if (ret)
			break;
	}
	fs->gc_active = false;
	return ret;
}

int
gaze_gc_background(struct gaze_fs *fs, u32 low_pct, u32 high_pct,
		   bool force, bool *more)
{
	u64 main = fs->lay.main_zone_count;
	u64 nfree, pending;
	int ret = 0;

	*more = false;
	if ((fs->flags & GAZE_FS_RDONLY) || fs->gc_active)
		return 0;
	nfree = gaze_space_free_zones(fs);
	pending = gaze_space_nr_prefree(fs);
	if (!force && (nfree + pending) * 100 >= low_pct * main) {
		/* enough space: only settle what is waiting */
		if (pending)
			ret = gc_checkpoint(fs);
		return ret;
	}
	fs->gc_active = true;
	/* only victims worth it: a quarter of the zone or more is gained */
	ret = gc_one(fs, fs->gc_policy, gc_cap(fs) * 3 / 4);
	if (!ret) {
		fs->gc.bg_runs++;
		*more = (gaze_space_free_zones(fs) +
			 gaze_space_nr_prefree(fs)) * 100 < high_pct * main;
	} else if (ret == -ENOENT || ret == -ENOSPC) {
		ret = 0;
	}
	if (!ret && gaze_space_nr_prefree(fs))
		ret = gc_checkpoint(fs);
	fs->gc_active = false;
	return ret;
}

int
gaze_gc_settle(struct gaze_fs *fs)
{
	int i, ret = 0;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	/* a PREFREE zone is FREE at the second commit since it emptied */
	for (i = 0; i < 2 && gaze_space_nr_prefree(fs) && !ret; i++)
		ret = gc_checkpoint(fs);
	return ret;
}
