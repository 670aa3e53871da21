// SPDX-License-Identifier: GPL-2.0
/*
 * space.c - main-area zones, the logs that fill them, and the meta ring.
 *
 * Why: on a zoned device space is handed out a zone at a time and every
 * zone is written strictly in order, so allocation is "take the next
 * block of a log's open zone" and freeing is bookkeeping only: a block
 * stops being valid, and a zone whose last valid block goes away can be
 * reset and reused once no checkpoint that might be mounted refers to it.
 * This file owns that bookkeeping in memory (a few bytes per zone, so it
 * scales to large devices) and mirrors every change into the zinfo,
 * usage and summary tables, which the checkpoint persists.
 *
 * Log types and physical logs.  The six GAZE_LOG_* temperatures are
 * mapped onto the sb.nr_logs physical logs (one open zone each):
 *
 *   nr_logs  data hot  data warm  data cold  node hot  node warm  node cold
 *     2         0         0          0          1         1          1
 *     3         0         0          1          2         2          2
 *     4         0         0          1          2         2          3
 *     5         0         1          2          3         3          4
 *     6+        0         1          2          3         4          5
 *
 * A checkpoint's log head records, as its type, the lowest GAZE_LOG_*
 * type served by that physical log; zinfo.log of a zone is the same.
 *
 * Zone states: FREE -> OPEN (a log head is in it) -> FULL (written to
 * capacity) -> PREFREE (no valid block left) -> FREE once TWO checkpoints
 * have committed since it was emptied: a mount may fall back to the
 * checkpoint before the newest one, and that one may still reference
 * the zone's blocks.  A PREFREE zone found at mount counts one commit
 * (the mounted checkpoint already has it empty).  A FREE zone is reset
 * lazily, when a log opens it and the device reports it is not empty.
 *
 * The meta ring.  Table and index blocks are appended at the ring head.
 * A block is "live" while the tables reference it (table.c keeps the
 * per-zone live counts exact).  A ring zone may be reset only when
 * neither the state being built nor the two newest checkpoints reference
 * anything in it: live[] counts the former, snap[] and prev[] are copies
 * of live[] taken when each of the last two checkpoints committed.  The
 * ring is used in order, the head stepping over zones still in use; the
 * zones right after the head up to the first one in use (the tail,
 * recorded in the checkpoint) are free, so every zone in use lies
 * between the tail and the head; after a mount the previous checkpoint's
 * usage is not known, so every zone from tail to head counts as used by
 * it.  When little room is left ahead of the head, the live blocks of
 * the tail zone are marked dirty so the checkpoint rewrites them at the
 * head (gaze_meta_prepare); a checkpoint bigger than what is free even
 * so reuses the zones only the checkpoint before last holds
 * (space_meta_drop_prev).
 *
 * Locking: fs->lock, held by the caller, protects everything here.
 */
#include "gaze_core.h"

#define SPACE_NO_ZONE	0xffffffffu
#define SPACE_REPORT_BATCH	64u
/* free zones user data never takes: GC's destination zones (cold data
 * and a node log) plus one for the checkpoints that free its victims */
#define SPACE_USER_FLOOR	3u

struct space_zone {		/* in-memory state of a main zone */
	u32	valid;
	u8	state;		/* GAZE_ZS_* */
	u8	log;		/* GAZE_LOG_* */
	u8	cps;		/* PREFREE: checkpoints committed since */
	u8	pad;
	u64	mtime;
};

struct space_log {
	u32	zone;		/* absolute zone, SPACE_NO_ZONE = none */
	u32	offset;		/* next block in the zone */
};

struct gaze_space {		/* every field: fs->lock; valid_blocks is
				 * also read without it (statfs), so once
				 * the instance is open it is written with
				 * WRITE_ONCE */
	struct space_zone *zones;	/* main_count entries */
	u32	main_start, main_count;
	u32	zone_blocks, zone_cap;
	u32	nr_free;		/* zones in state FREE */
	u32	nr_prefree;		/* zones in state PREFREE */
	u32	alloc_hint;		/* main index of the last zone opened */
	u64	valid_blocks;
	u64	valid_nodes;
	bool	zinfo_lost;		/* read-only: entries read as zeros */
	u32	nr_logs;
	struct space_log logs[GAZE_MAX_LOGS];
	/* meta ring */
	u32	meta_start, meta_count;
	u32	meta_head;		/* absolute zone */
	u32	meta_off;
	u32	*live, *snap, *prev;	/* meta_count entries each */
	u8	*rf_zone;		/* roll-forward: main zones free at
					 * the checkpoint it claimed blocks
					 * in (main_count entries, or NULL) */
	/* file data writeback in progress (gaze_space_wb_begin) */
	bool	wb;
	u32	wb_over;
	/*
	 * Snapshots for gaze_resv_get, which runs without fs->lock: written
	 * (WRITE_ONCE) by gaze_space_publish under fs->lock, read with
	 * READ_ONCE under fs->resv_lock.  See "Write reservations" below.
	 */
	u64	pub_user_free;
	u64	pub_phys;
	u64	pub_wb;		/* pub_phys below this: writeback wants room
				 * (the GC's wb level above the floor) */
	u64	pub_room;	/* pub_phys without the in-flight GC's gain,
				 * less the zones its jobs may still open */
	u64	pub_fg;		/* pub_room below this: the core's own
				 * foreground GC would run (fg level) */
};

static const u8 space_log_map[GAZE_MAX_LOGS + 1][GAZE_NR_LOG_TYPES] = {
	[2] = { 0, 0, 0, 1, 1, 1 },
	[3] = { 0, 0, 1, 2, 2, 2 },
	[4] = { 0, 0, 1, 2, 2, 3 },
	[5] = { 0, 1, 2, 3, 3, 4 },
	[6] = { 0, 1, 2, 3, 4, 5 },
	[7] = { 0, 1, 2, 3, 4, 5 },
	[8] = { 0, 1, 2, 3, 4, 5 },
};

int
gaze_log_of_type(const struct gaze_fs *fs, int type)
{
	u32 n = le32_to_cpu(fs->sb.nr_logs);

	if (n < 2 || n > GAZE_MAX_LOGS)
		n = 2;
	if (type < 0 || type >= GAZE_NR_LOG_TYPES) {
		WARN_ON(1);
		type = GAZE_LOG_DATA_WARM;
	}
	return space_log_map[n][type];
}

/* the lowest GAZE_LOG_* type served by physical log li */
static u32
space_log_type(const struct gaze_fs *fs, u32 li)
{
	int t;

	for (t = 0; t < GAZE_NR_LOG_TYPES; t++)
		if ((u32)gaze_log_of_type(fs, t) == li)
			return (u32)t;
	return 0;
}

static u64
space_zone_addr(const struct gaze_space *sp, u32 zone)
{
	return (u64)zone * sp->zone_blocks;
}

/* sets a zone's state, keeping nr_prefree (nr_free is the caller's) */
static void
space_set_state(struct gaze_space *sp, u32 zi, u8 state)
{
	if (sp->zones[zi].state == GAZE_ZS_PREFREE)
		sp->nr_prefree--;
	if (state == GAZE_ZS_PREFREE)
		sp->nr_prefree++;
	sp->zones[zi].state = state;
}

/* ---------------------------------------------------------------- */
/* Device helpers                                                    */
/* ---------------------------------------------------------------- */

int
gaze_zone_report(struct gaze_fs *fs, u32 zone, struct gaze_zone *z)
{
	int ret;

	ret = fs->dev->ops->report(fs->dev, zone, 1, z);
	if (ret < 0)
		return ret;
	return ret == 1 ? 0 : -EIO;
}

/* makes an unused zone writable from its start: resets it if needed */
static int
space_zone_prepare(struct gaze_fs *fs, u32 zone)
{
	struct gaze_zone z;
	int ret;

	ret = gaze_zone_report(fs, zone, &z);
	if (ret)
		return ret;
	if (z.type != GAZE_ZT_SEQ || z.cond == GAZE_ZC_EMPTY)
		return 0;
	gaze_fs_zone_reset_note(fs);
	ret = fs->dev->ops->reset(fs->dev, zone, 1);
	if (ret)
		gaze_err("reset of zone %u failed: %d", zone, ret);
	return ret;
}

static int space_zinfo_update(struct gaze_fs *fs, u32 zi);

/* log li leaves its zone for good: full, or prefree when it is empty */
static void
space_log_give_up(struct gaze_fs *fs, u32 li)
{
	struct gaze_space *sp = fs->space;
	u32 zi = sp->logs[li].zone - sp->main_start;

	sp->logs[li].zone = SPACE_NO_ZONE;
	sp->logs[li].offset = 0;
	space_set_state(sp, zi, sp->zones[zi].valid ? GAZE_ZS_FULL :
			GAZE_ZS_PREFREE);
	space_zinfo_update(fs, zi);
	gaze_space_publish(fs);
}

/*
 * A write at a log head (or the meta ring head) failed: the device's
 * write pointer is now behind the head, so every later write there would
 * fail too.  The zone is given up: finished on the device (so it holds no
 * active slot), marked full, and the next allocation opens a new one.
 */
static void
space_write_failed(struct gaze_fs *fs, u64 addr)
{
	struct gaze_space *sp = fs->space;
	u32 zone = (u32)(addr / sp->zone_blocks), i;

	if (zone == sp->meta_head &&
	    addr == space_zone_addr(sp, zone) + sp->meta_off - 1) {
		sp->meta_off = sp->zone_cap;
		goto out_finish;
	}
	for (i = 0; i < sp->nr_logs; i++) {
		if (sp->logs[i].zone != zone ||
		    addr != space_zone_addr(sp, zone) + sp->logs[i].offset - 1)
			continue;
		space_log_give_up(fs, i);
		goto out_finish;
	}
	return;
out_finish:
	gaze_warn("write to zone %u failed; the zone is closed", zone);
	if (fs->dev->ops->finish)
		fs->dev->ops->finish(fs->dev, zone);
}

void
gaze_space_zone_lost(struct gaze_fs *fs, u32 zone)
{
	struct gaze_space *sp = fs->space;
	bool found = false;
	u32 i;

	for (i = 0; i < sp->nr_logs; i++) {
		if (sp->logs[i].zone != zone)
			continue;
		space_log_give_up(fs, i);
		found = true;
	}
	if (!found)
		return;
	gaze_warn("writes to zone %u were lost; the zone is closed", zone);
	if (fs->dev->ops->finish)
		fs->dev->ops->finish(fs->dev, zone);
}

int
gaze_block_write(struct gaze_fs *fs, u64 addr, const void *buf)
{
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	ret = fs->dev->ops->write(fs->dev, addr, 1, buf);
	if (ret)
		space_write_failed(fs, addr);
	return ret;
}

int
gaze_block_read(struct gaze_fs *fs, u64 addr, void *buf)
{
	return fs->dev->ops->read(fs->dev, addr, 1, buf);
}

int
gaze_block_read_staged(struct gaze_fs *fs, u64 addr, void *buf)
{
	struct gaze_staged *st;
	bool fresh;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(fs->staged); i++) {
		st = &fs->staged[i];
		if (!st->buf || st->addr != addr)
			continue;
		fresh = st->reset_seq == fs->reset_seq;
		if (fresh)
			memcpy(buf, st->buf, GAZE_BLOCK_SIZE);
		gaze_free(st->buf);
		st->buf = NULL;
		if (fresh)
			return 0;
	}
	return gaze_block_read(fs, addr, buf);
}

/* ---------------------------------------------------------------- */
/* Table mirrors                                                     */
/* ---------------------------------------------------------------- */

/* the zinfo table block of main zone index zi; ref held */
static int
space_zinfo_get(struct gaze_fs *fs, u32 zi, struct gaze_mbuf **mbp)
{
	return gaze_table_get(fs, GAZE_TABLE_ZINFO, zi / GAZE_ZINFO_PER_BLOCK,
			      mbp);
}

static void
space_zinfo_store(struct gaze_fs *fs, struct gaze_mbuf *mb, u32 zi)
{
	struct gaze_space *sp = fs->space;
	struct gaze_zinfo_block *zb = mb->data;
	struct gaze_zinfo *z = &zb->z[zi % GAZE_ZINFO_PER_BLOCK];

	z->valid = cpu_to_le32(sp->zones[zi].valid);
	z->state = sp->zones[zi].state;
	z->log = sp->zones[zi].log;
	z->flags = 0;
	z->mtime = cpu_to_le64(sp->zones[zi].mtime);
	gaze_table_dirty(fs, mb);
}

/* stores zone zi's in-memory state into the table; errors are returned */
static int
space_zinfo_update(struct gaze_fs *fs, u32 zi)
{
	struct gaze_mbuf *mb;
	int ret;

	ret = space_zinfo_get(fs, zi, &mb);
	if (ret)
		return ret;
	space_zinfo_store(fs, mb, zi);
	gaze_mbuf_put(fs, mb);
	return 0;
}

/* the table blocks that describe one main block */
struct space_blk_refs {
	struct gaze_mbuf	*umb;	/* usage bitmap */
	struct gaze_mbuf	*smb;	/* summary */
	struct gaze_mbuf	*zmb;	/* zinfo of its zone */
};

/* the usage table block holding block off of main zone index zi */
static int
space_usage_get(struct gaze_fs *fs, u32 zi, u32 off, struct gaze_mbuf **mbp)
{
	return gaze_table_get(fs, GAZE_TABLE_USAGE,
			      zi * le32_to_cpu(fs->sb.usage_blocks_per_zone) +
			      off / GAZE_USAGE_BITS_PER_BLOCK, mbp);
}

/* the summary table block holding block off of main zone index zi */
static int
space_summary_get(struct gaze_fs *fs, u32 zi, u32 off,
		  struct gaze_mbuf **mbp)
{
	return gaze_table_get(fs, GAZE_TABLE_SUMMARY,
			      zi * le32_to_cpu(fs->sb.summary_blocks_per_zone) +
			      off / GAZE_SUMMARY_PER_BLOCK, mbp);
}

/*
 * Usage, summary and zinfo table blocks of block off of main zone index
 * zi, all taken first so an update cannot fail half way; refs held.
 */
static int
space_blk_refs_get(struct gaze_fs *fs, u32 zi, u32 off,
		   struct space_blk_refs *r)
{
	int ret;

	ret = space_usage_get(fs, zi, off, &r->umb);
	if (ret)
		return ret;
	ret = space_summary_get(fs, zi, off, &r->smb);
	if (ret)
		goto out_put_usage;
	ret = space_zinfo_get(fs, zi, &r->zmb);
	if (ret)
		goto out_put_summary;
	return 0;

out_put_summary:
	gaze_mbuf_put(fs, r->smb);
out_put_usage:
	gaze_mbuf_put(fs, r->umb);
	return ret;
}

static void
space_blk_refs_put(struct gaze_fs *fs, struct space_blk_refs *r)
{
	gaze_mbuf_put(fs, r->zmb);
	gaze_mbuf_put(fs, r->smb);
	gaze_mbuf_put(fs, r->umb);
}

/* the byte of the usage bitmap holding block off's bit; *mask the bit */
static u8 *
space_usage_bit(struct gaze_mbuf *umb, u32 off, u8 *mask)
{
	struct gaze_usage_block *ub = umb->data;
	u32 bit = off % GAZE_USAGE_BITS_PER_BLOCK;

	*mask = (u8)(1u << (bit % 8));
	return &ub->bits[bit / 8];
}

/* the summary entry of block off */
static struct gaze_summary *
space_summary(struct gaze_mbuf *smb, u32 off)
{
	struct gaze_summary_block *sb = smb->data;

	return &sb->s[off % GAZE_SUMMARY_PER_BLOCK];
}

/* ---------------------------------------------------------------- */
/* Init                                                              */
/* ---------------------------------------------------------------- */

static bool
space_meta_used(const struct gaze_space *sp, u32 zone)
{
	u32 r = zone - sp->meta_start;

	return sp->live[r] || sp->snap[r] || sp->prev[r];
}

static u32
space_meta_next(const struct gaze_space *sp, u32 zone)
{
	return zone + 1 < sp->meta_start + sp->meta_count ? zone + 1 :
							     sp->meta_start;
}

static bool
space_is_log_head(const struct gaze_space *sp, u32 zone)
{
	u32 i;

	for (i = 0; i < sp->nr_logs; i++)
		if (sp->logs[i].zone == zone)
			return true;
	return false;
}

/*
 * A zone-info block that cannot be read, at open: a repair rebuilds
 * every zone's entry from the tree (gaze_repair_zone_set) before
 * anything allocates, and a read-only open allocates nothing (files are
 * found through the imap and nodes, not the zone entries), so both go on
 * from zeros (FREE zones; the space figures are unknown until fsck.gaze
 * repairs it).  A read-write open fails: it would allocate from them.
 */
static int
space_zinfo_lost(struct gaze_fs *fs, u32 zi, struct gaze_mbuf **mbp)
{
	u32 first = zi - zi % GAZE_ZINFO_PER_BLOCK;

	if (fs->flags & GAZE_FS_REPAIR)
		return gaze_repair_table_block(fs, GAZE_TABLE_ZINFO,
					       zi / GAZE_ZINFO_PER_BLOCK, mbp);
	if (!(fs->flags & GAZE_FS_RDONLY))
		return -EFSCORRUPTED;
	fs->space->zinfo_lost = true;
	gaze_warn("zone info of main zones %u-%u cannot be read: read-only, space figures unknown; run fsck.gaze",
		  first, min_t(u32, first + GAZE_ZINFO_PER_BLOCK,
			       fs->lay.main_zone_count) - 1);
	return gaze_mbuf_create(fs, GAZE_MB_TABLE, GAZE_TABLE_ZINFO,
				zi / GAZE_ZINFO_PER_BLOCK, mbp);
}

static int
space_load_zones(struct gaze_fs *fs)
{
	struct gaze_space *sp = fs->space;
	const struct gaze_zinfo_block *zb;
	const struct gaze_zinfo *z;
	struct gaze_mbuf *mb = NULL;
	u32 zi;
	int ret;

	for (zi = 0; zi < sp->main_count; zi++) {
		if (zi % GAZE_ZINFO_PER_BLOCK == 0) {
			gaze_mbuf_put(fs, mb);
			mb = NULL;
			ret = gaze_table_absent(fs, GAZE_TABLE_ZINFO,
						zi / GAZE_ZINFO_PER_BLOCK);
			/* an unreadable index block: space_zinfo_lost */
			if (ret < 0 && !gaze_err_damaged(ret))
				return ret;
			if (ret > 0) {
				/* zeros: free, empty zones, as sp->zones
				 * starts (the zones of a new device) */
				zi += GAZE_ZINFO_PER_BLOCK - 1;
				continue;
			}
			ret = space_zinfo_get(fs, zi, &mb);
			if (gaze_err_damaged(ret))
				ret = space_zinfo_lost(fs, zi, &mb);
			if (ret)
				return ret;
		}
		zb = mb->data;
		z = &zb->z[zi % GAZE_ZINFO_PER_BLOCK];
		sp->zones[zi].valid = le32_to_cpu(z->valid);
		sp->zones[zi].state = z->state;
		sp->zones[zi].log = z->log;
		sp->zones[zi].mtime = le64_to_cpu(z->mtime);
		if (z->state > GAZE_ZS_PREFREE ||
		    sp->zones[zi].valid > sp->zone_cap ||
		    (z->state == GAZE_ZS_FREE && sp->zones[zi].valid)) {
			gaze_err("zinfo of zone %u is inconsistent",
				 sp->main_start + zi);
			gaze_mbuf_put(fs, mb);
			return -EFSCORRUPTED;
		}
		sp->valid_blocks += sp->zones[zi].valid;
	}
	gaze_mbuf_put(fs, mb);
	return 0;
}

/* states the last checkpoint left that need settling now that it is
 * committed: PREFREE zones are free; OPEN zones without a log are full */
static int
space_settle_zones(struct gaze_fs *fs)
{
	struct gaze_space *sp = fs->space;
	bool rw = !(fs->flags & GAZE_FS_RDONLY);
	struct space_zone *z;
	u32 zi;
	int ret;

	for (zi = 0; zi < sp->main_count; zi++) {
		z = &sp->zones[zi];
		if (z->state == GAZE_ZS_PREFREE) {
			if (z->valid) {
				gaze_err("zone %u is PREFREE with %u valid blocks",
					 sp->main_start + zi, z->valid);
				return -EFSCORRUPTED;
			}
			z->cps = 1;	/* the mounted checkpoint */
			continue;
		} else if (z->state == GAZE_ZS_OPEN &&
			   !space_is_log_head(sp, sp->main_start + zi)) {
			z->state = z->valid ? GAZE_ZS_FULL : GAZE_ZS_FREE;
		} else {
			continue;
		}
		if (rw) {
			ret = space_zinfo_update(fs, zi);
			if (ret)
				return ret;
		}
	}
	for (zi = 0; zi < sp->main_count; zi++) {
		if (sp->zones[zi].state == GAZE_ZS_FREE)
			sp->nr_free++;
		else if (sp->zones[zi].state == GAZE_ZS_PREFREE)
			sp->nr_prefree++;
	}
	return 0;
}

static int
space_load_logs(struct gaze_fs *fs)
{
	struct gaze_space *sp = fs->space;
	const struct gaze_cp_head *cp = &fs->cp;
	u32 i, zone, off;

	if (le32_to_cpu(cp->nr_logs) != sp->nr_logs) {
		gaze_err("checkpoint has %u logs, superblock %u",
			 le32_to_cpu(cp->nr_logs), sp->nr_logs);
		return -EFSCORRUPTED;
	}
	for (i = 0; i < sp->nr_logs; i++) {
		zone = le32_to_cpu(cp->logs[i].zone);
		off = le32_to_cpu(cp->logs[i].offset);
		sp->logs[i].zone = SPACE_NO_ZONE;
		if (zone == SPACE_NO_ZONE)
			continue;
		/* zone entries rebuilt from zeros (space_zinfo_lost)
		 * follow the checkpoint's log heads */
		if ((fs->flags & (GAZE_FS_REPAIR | GAZE_FS_RDONLY)) &&
		    zone >= sp->main_start &&
		    zone - sp->main_start < sp->main_count &&
		    off <= sp->zone_cap &&
		    sp->zones[zone - sp->main_start].state == GAZE_ZS_FREE &&
		    !sp->zones[zone - sp->main_start].valid)
			sp->zones[zone - sp->main_start].state = GAZE_ZS_OPEN;
		if (zone < sp->main_start ||
		    zone - sp->main_start >= sp->main_count ||
		    off > sp->zone_cap ||
		    sp->zones[zone - sp->main_start].state != GAZE_ZS_OPEN) {
			gaze_err("log %u head (zone %u offset %u) is invalid",
				 i, zone, off);
			return -EFSCORRUPTED;
		}
		sp->logs[i].zone = zone;
		sp->logs[i].offset = off;
		sp->alloc_hint = zone - sp->main_start;
	}
	return 0;
}

static int
space_load_meta(struct gaze_fs *fs)
{
	struct gaze_space *sp = fs->space;
	const struct gaze_cp_head *cp = &fs->cp;
	u32 head = le32_to_cpu(cp->meta_head_zone);
	u32 tail = le32_to_cpu(cp->meta_tail_zone);
	u32 z;
	int ret;

	if (head < sp->meta_start || head - sp->meta_start >= sp->meta_count ||
	    tail < sp->meta_start || tail - sp->meta_start >= sp->meta_count ||
	    le32_to_cpu(cp->meta_head_offset) > sp->zone_cap) {
		gaze_err("meta ring head/tail out of range");
		return -EFSCORRUPTED;
	}
	sp->meta_head = head;
	sp->meta_off = le32_to_cpu(cp->meta_head_offset);
	ret = gaze_tables_count_meta(fs);
	if (ret)
		return ret;
	memcpy(sp->snap, sp->live, sp->meta_count * sizeof(u32));
	/* the previous checkpoint's blocks lie somewhere in [tail, head] */
	for (z = tail;; z = space_meta_next(sp, z)) {
		sp->prev[z - sp->meta_start] = 1;
		if (z == head)
			break;
	}
	return 0;
}

/*
 * Brings a log head in line with the device's write pointer: blocks
 * written after the checkpoint (then lost to a crash) are skipped, since
 * a sequential zone can only be written at its write pointer.
 */
static int
space_sync_head(struct gaze_fs *fs, const struct gaze_zone *z, u32 zone,
		u32 *off)
{
	struct gaze_space *sp = fs->space;
	u64 wp;

	if (z->type != GAZE_ZT_SEQ)
		return 0;
	if (z->cond == GAZE_ZC_FULL)
		wp = sp->zone_cap;
	else
		wp = z->wp - z->start;
	if (wp < *off) {
		gaze_err("zone %u write pointer %llu is behind the checkpoint's %u",
			 zone, (unsigned long long)wp, *off);
		return -EFSCORRUPTED;
	}
	if (wp > *off) {
		gaze_warn("zone %u: skipping %llu blocks written after the checkpoint",
			  zone, (unsigned long long)(wp - *off));
		*off = (u32)min_t(u64, wp, sp->zone_cap);
	}
	return 0;
}

/*
 * A zone the device holds open or closed that no head will write again
 * would keep an active slot for good: an unused one is reset, a used one
 * (the filesystem counts it full) is finished.
 */
static int
space_sync_idle(struct gaze_fs *fs, const struct gaze_zone *z, u32 zone,
		bool unused)
{
	if (z->type != GAZE_ZT_SEQ || z->cond == GAZE_ZC_EMPTY ||
	    z->cond == GAZE_ZC_FULL || zone == fs->space->meta_head ||
	    space_is_log_head(fs->space, zone))
		return 0;
	if (unused) {
		gaze_fs_zone_reset_note(fs);
		return fs->dev->ops->reset(fs->dev, zone, 1);
	}
	gaze_warn("zone %u: finishing a full zone the device holds open",
		  zone);
	return fs->dev->ops->finish ? fs->dev->ops->finish(fs->dev, zone) : 0;
}

/*
 * Read-write mounts only: one pass over the zone report to resync log
 * and meta heads with the write pointers, and to reset unused zones and
 * finish used ones a crash left open (space_sync_idle).
 */
static int
space_sync_device(struct gaze_fs *fs)
{
	struct gaze_space *sp = fs->space;
	struct gaze_zone *rep;
	u32 first = sp->meta_start, end = sp->main_start + sp->main_count;
	u32 zone, i, l;
	int n, ret = 0;
	bool unused;

	rep = gaze_alloc(SPACE_REPORT_BATCH * sizeof(*rep));
	if (!rep)
		return -ENOMEM;
	for (zone = first; zone < end; zone += (u32)n) {
		n = fs->dev->ops->report(fs->dev, zone,
					 min(SPACE_REPORT_BATCH, end - zone),
					 rep);
		if (n <= 0) {
			ret = n ? n : -EIO;
			goto out_free;
		}
		for (i = 0; i < (u32)n; i++) {
			u32 zn = zone + i;
			struct gaze_zone *z = &rep[i];

			if (zn == sp->meta_head) {
				ret = space_sync_head(fs, z, zn, &sp->meta_off);
				if (ret)
					goto out_free;
				continue;
			}
			if (zn < sp->main_start) {
				unused = !space_meta_used(sp, zn);
			} else {
				unused = sp->zones[zn - sp->main_start].state ==
					 GAZE_ZS_FREE;
				for (l = 0; l < sp->nr_logs; l++) {
					if (sp->logs[l].zone != zn)
						continue;
					ret = space_sync_head(fs, z, zn,
							&sp->logs[l].offset);
					if (ret)
						goto out_free;
				}
			}
			ret = space_sync_idle(fs, z, zn, unused);
			if (ret)
				goto out_free;
		}
	}
out_free:
	gaze_free(rep);
	return ret;
}

int
gaze_space_init(struct gaze_fs *fs)
{
	struct gaze_space *sp;
	u32 i;
	int ret = -ENOMEM;

	sp = gaze_zalloc(sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	fs->space = sp;
	sp->main_start = fs->lay.main_zone_start;
	sp->main_count = fs->lay.main_zone_count;
	sp->meta_start = fs->lay.meta_zone_start;
	sp->meta_count = fs->lay.meta_zone_count;
	sp->zone_blocks = le32_to_cpu(fs->sb.zone_blocks);
	sp->zone_cap = le32_to_cpu(fs->sb.zone_cap);
	sp->nr_logs = fs->lay.nr_logs;
	if (sp->nr_logs < 2 || sp->nr_logs > GAZE_MAX_LOGS || !sp->meta_count) {
		ret = -EFSCORRUPTED;
		goto out_destroy;
	}
	sp->zones = gaze_zalloc((size_t)sp->main_count * sizeof(*sp->zones));
	sp->live = gaze_zalloc(sp->meta_count * sizeof(u32));
	sp->snap = gaze_zalloc(sp->meta_count * sizeof(u32));
	sp->prev = gaze_zalloc(sp->meta_count * sizeof(u32));
	if (!sp->zones || !sp->live || !sp->snap || !sp->prev)
		goto out_destroy;
	for (i = 0; i < GAZE_MAX_LOGS; i++)
		sp->logs[i].zone = SPACE_NO_ZONE;
	sp->alloc_hint = sp->main_count - 1;
	sp->meta_head = sp->meta_start;

	if (!fs->cp_seq) {		/* format: everything empty */
		sp->nr_free = sp->main_count;
		gaze_space_publish(fs);
		return 0;
	}
	ret = space_load_zones(fs);
	if (ret)
		goto out_destroy;
	ret = space_load_logs(fs);
	if (ret)
		goto out_destroy;
	ret = space_settle_zones(fs);
	if (ret)
		goto out_destroy;
	if (sp->valid_blocks != le64_to_cpu(fs->cp.valid_blocks) &&
	    !sp->zinfo_lost)
		gaze_warn("zinfo counts %llu valid blocks, checkpoint %llu",
			  (unsigned long long)sp->valid_blocks,
			  (unsigned long long)le64_to_cpu(fs->cp.valid_blocks));
	sp->valid_nodes = le64_to_cpu(fs->cp.valid_nodes);
	ret = space_load_meta(fs);
	if (ret)
		goto out_destroy;
	if (!(fs->flags & GAZE_FS_RDONLY)) {
		/* before the sync resets zones the chains may lie in */
		ret = gaze_recover(fs);
		if (ret)
			goto out_destroy;
		ret = space_sync_device(fs);
		if (ret)
			goto out_destroy;
	} else {
		gaze_recover(fs);	/* counts fs->rf_pending only */
	}
	gaze_space_publish(fs);
	return 0;

out_destroy:
	gaze_space_destroy(fs);
	return ret;
}

void
gaze_space_destroy(struct gaze_fs *fs)
{
	struct gaze_space *sp = fs->space;

	if (!sp)
		return;
	gaze_free(sp->rf_zone);
	gaze_free(sp->zones);
	gaze_free(sp->live);
	gaze_free(sp->snap);
	gaze_free(sp->prev);
	gaze_free(sp);
	fs->space = NULL;
}

/* ---------------------------------------------------------------- */
/* Main area                                                         */
/* ---------------------------------------------------------------- */

/* opens a new zone for physical log li */
static int
space_open_zone(struct gaze_fs *fs, u32 li, bool user)
{
	struct gaze_space *sp = fs->space;
	struct gaze_mbuf *mb;
	u32 k, zi = 0;
	int ret;

	/*
	 * User data leaves the last zones to metadata writeback and GC
	 * (gc.c collects before they are reached).  Not all of
	 * reserved_zones: open log heads would keep user_blocks out of
	 * reach on small devices; what one GC pass and its checkpoints
	 * need is enough.
	 */
	if (!sp->nr_free || (user && sp->nr_free <= gaze_space_user_floor(fs)))
		return -ENOSPC;
	for (k = 1; k <= sp->main_count; k++) {
		zi = (sp->alloc_hint + k) % sp->main_count;
		if (sp->zones[zi].state == GAZE_ZS_FREE)
			break;
	}
	if (k > sp->main_count || WARN_ON(sp->zones[zi].valid))
		return -ENOSPC;
	ret = space_zinfo_get(fs, zi, &mb);
	if (ret)
		return ret;
	ret = space_zone_prepare(fs, sp->main_start + zi);
	if (ret)
		goto out_put;
	space_set_state(sp, zi, GAZE_ZS_OPEN);
	sp->zones[zi].cps = 0;
	sp->zones[zi].log = (u8)space_log_type(fs, li);
	sp->zones[zi].mtime = gaze_fs_age(fs);
	space_zinfo_store(fs, mb, zi);
	sp->nr_free--;
	sp->alloc_hint = zi;
	sp->logs[li].zone = sp->main_start + zi;
	sp->logs[li].offset = 0;
	gaze_space_publish(fs);
out_put:
	gaze_mbuf_put(fs, mb);
	return ret;
}

/* closes log li's zone if it is full */
static int
space_close_full(struct gaze_fs *fs, u32 li)
{
	struct gaze_space *sp = fs->space;
	struct space_log *lg = &sp->logs[li];
	u32 zi;

	if (lg->zone == SPACE_NO_ZONE || lg->offset < sp->zone_cap)
		return 0;
	zi = lg->zone - sp->main_start;
	space_set_state(sp, zi, sp->zones[zi].valid ? GAZE_ZS_FULL :
			GAZE_ZS_PREFREE);
	lg->zone = SPACE_NO_ZONE;
	lg->offset = 0;
	return space_zinfo_update(fs, zi);
}

/*
 * User blocks in use (fs->lock, or none: each count is read once): valid
 * blocks, new nodes and directory blocks dirty in the cache, and blocks
 * fallocate preallocated (slots
 * holding GAZE_ADDR_PREALLOC, counted in the checkpoint's
 * prealloc_blocks: they own no block yet but are promised one)
 */
static u64
space_used(struct gaze_fs *fs)
{
	return READ_ONCE(fs->space->valid_blocks) +
	       gaze_cache_nr_dirty_new(fs) +
	       le64_to_cpu(READ_ONCE(fs->cp.prealloc_blocks));
}

void
gaze_space_slot_changed(struct gaze_fs *fs, u64 old, u64 new)
{
	u64 n = le64_to_cpu(fs->cp.prealloc_blocks);

	if (old == GAZE_ADDR_PREALLOC && n)	/* 0: a damaged count,
						 * fsck's GZ0310 fixes it */
		n--;
	if (new == GAZE_ADDR_PREALLOC)
		n++;
	WRITE_ONCE(fs->cp.prealloc_blocks, cpu_to_le64(n));
}

/*
 * Write reservations (selective blocking; the module's resv.c takes and
 * releases them around the page cache).  A buffered write is accepted
 * into memory only with a reservation per page, so its writeback never
 * meets ENOSPC.  Two rules, checked by gaze_resv_get against snapshots:
 *
 *  logical:  the reserved blocks, plus the nodes they may need
 *            (space_resv_need), fit in the free user blocks (user_blocks
 *            minus valid blocks minus dirty new nodes/directory blocks,
 *            as gaze_space_free_blocks).  Else -ENOSPC: the write fails.
 *            An overwrite of a mapped block is exempt (it frees the old
 *            block).  Every other consumer of user blocks (new inodes,
 *            nodes, directory blocks: gaze_space_user_check) keeps off
 *            the reserved ones; writeback of file data (between
 *            gaze_space_wb_begin/end) spends them, and may go over
 *            user_blocks by the blocks it overwrites in that call, which
 *            are counted twice only until the call ends.
 *  physical: the reserved blocks fit in what can be written without
 *            waiting for a reclaim: FREE and PREFREE zones above the user
 *            floor (PREFREE needs only GC's checkpoints), the room left
 *            in the user data log's zone, and what in-flight GC jobs will
 *            free (fs->gcp_gain).  Else -EAGAIN: the writer waits for GC
 *            and retries.  Writeback itself still runs foreground GC, so
 *            this rule only paces writers; it is never needed for
 *            correctness.
 *
 * gaze_resv_get runs under fs->resv_lock without fs->lock: the counts it
 * needs are published by gaze_space_publish (WRITE_ONCE) from every path
 * under fs->lock that lowers them (allocation, invalidation, zone state
 * changes, new dirty nodes in cache.c, checkpoints, gcpipe begin/end).
 * A value read just before a publish can be too high by what one
 * namespace operation (serialised by fs->lock) takes; RESV_META_SLACK
 * covers that, as it covers the indirect nodes of a new file.
 */
/* one node block per this many reserved pages, and a constant slack */
#define RESV_NODE_SPAN		64u
#define RESV_META_SLACK		16u

static u64
space_resv_need(u64 r)
{
	return r ? r + DIV_ROUND_UP(r, RESV_NODE_SPAN) + RESV_META_SLACK : 0;
}

/* blocks that in-flight GC jobs will free; fs->lock */
static u64
space_gcp_gain(struct gaze_fs *fs, u64 *pinned_prefree)
{
	struct gaze_space *sp = fs->space;
	u64 gain = 0;
	u32 i, zi;

	*pinned_prefree = 0;
	for (i = 0; i < GAZE_GCP_MAX_JOBS_; i++) {
		if (fs->gcp_zone[i] == GAZE_GCP_NONE ||
		    fs->gcp_zone[i] < sp->main_start ||
		    fs->gcp_zone[i] - sp->main_start >= sp->main_count)
			continue;
		gain += fs->gcp_gain[i];
		/* an emptied pinned zone is PREFREE already: count it once */
		zi = fs->gcp_zone[i] - sp->main_start;
		if (sp->zones[zi].state == GAZE_ZS_PREFREE)
			(*pinned_prefree)++;
	}
	return gain;
}

/* blocks in the zones of a count beyond the floor */
static u64
space_zones_above(u64 zones, u32 floor, const struct gaze_space *sp)
{
	return zones > floor ? (zones - floor) * sp->zone_cap : 0;
}

void
gaze_space_publish(struct gaze_fs *fs)
{
	struct gaze_space *sp = fs->space;
	u64 head = 0, gain, pinned, zones, jz;
	struct gaze_gc_levels lv;
	u32 floor, li;

	if (!sp || !fs->cache)
		return;
	WRITE_ONCE(sp->pub_user_free, gaze_space_free_blocks(fs));

	gain = space_gcp_gain(fs, &pinned);
	zones = (u64)sp->nr_free + sp->nr_prefree;
	floor = gaze_space_user_floor(fs);
	li = (u32)gaze_log_of_type(fs, GAZE_LOG_DATA_WARM);
	if (sp->logs[li].zone != SPACE_NO_ZONE &&
	    sp->logs[li].offset < sp->zone_cap)
		head = sp->zone_cap - sp->logs[li].offset;
	/*
	 * The room as the core counts it (PREFREE zones, pinned or not),
	 * less the FREE zones the jobs in flight may still open for what
	 * they move: what writes may take without the core's own GC
	 */
	jz = gaze_gc_jobs_zones(fs);
	WRITE_ONCE(sp->pub_room, space_zones_above(zones > jz ? zones - jz : 0,
						   floor, sp) + head);
	/* an emptied zone a job still pins is in its gain: count it once */
	zones = zones > pinned ? zones - pinned : 0;
	WRITE_ONCE(sp->pub_phys, space_zones_above(zones, floor, sp) + head +
		   gain);
	gaze_gc_levels(fs, 0, 0, &lv);
	WRITE_ONCE(sp->pub_wb, space_zones_above(lv.wb, floor, sp));
	WRITE_ONCE(sp->pub_fg, space_zones_above(lv.fg, floor, sp));
}

bool
gaze_space_wb_short(struct gaze_fs *fs, u64 nr)
{
	return READ_ONCE(fs->space->pub_phys) <
	       READ_ONCE(fs->space->pub_wb) + nr;
}

bool
gaze_space_fg_short(struct gaze_fs *fs, u64 nr)
{
	return READ_ONCE(fs->space->pub_room) <
	       READ_ONCE(fs->space->pub_fg) + nr;
}

/*
 * Starts only while no reclaim is in flight (one job at a time keeps the
 * pipeline's stages on one victim, and its gain already counts in the
 * wb test), and waits only where the core's own foreground GC would run
 * beside the jobs: see resv.c gaze_resv_wb_room.
 */
enum gaze_wb_step
gaze_wb_room_step(struct gaze_fs *fs, u64 nr, bool in_flight, bool may_start)
{
	if (!in_flight && may_start && gaze_space_wb_short(fs, nr))
		return GAZE_WB_START;
	if (in_flight && gaze_space_fg_short(fs, nr))
		return GAZE_WB_WAIT;
	return GAZE_WB_GO;
}

bool
gaze_wb_room_busy(int err)
{
	return err == -EAGAIN || err == -EBUSY || err == -ENOSPC;
}

void
gaze_space_wb_begin(struct gaze_fs *fs, u32 over)
{
	fs->space->wb = true;
	fs->space->wb_over = over;
}

void
gaze_space_wb_end(struct gaze_fs *fs)
{
	fs->space->wb = false;
	fs->space->wb_over = 0;
	gaze_space_publish(fs);
}

static int
space_resv_get(struct gaze_fs *fs, u32 nr, bool overwrite, bool physical)
{
	struct gaze_space *sp = fs->space;
	u64 want = fs->resv_blocks + nr;

	if (!overwrite &&
	    space_resv_need(want) > READ_ONCE(sp->pub_user_free))
		return -ENOSPC;
	if (physical && want > READ_ONCE(sp->pub_phys))
		return -EAGAIN;
	WRITE_ONCE(fs->resv_blocks, want);
	return 0;
}

int
gaze_resv_get(struct gaze_fs *fs, u32 nr, bool overwrite)
{
	return space_resv_get(fs, nr, overwrite, true);
}

int
gaze_resv_get_logical(struct gaze_fs *fs, u32 nr, bool overwrite)
{
	return space_resv_get(fs, nr, overwrite, false);
}

void
gaze_resv_put(struct gaze_fs *fs, u32 nr)
{
	u64 r = fs->resv_blocks;

	if (WARN_ON(nr > r))
		nr = (u32)r;
	WRITE_ONCE(fs->resv_blocks, r - nr);
}

void
gaze_resv_snapshot(struct gaze_fs *fs, u64 *user_free, u64 *phys)
{
	*user_free = READ_ONCE(fs->space->pub_user_free);
	*phys = READ_ONCE(fs->space->pub_phys);
}

/*
 * Space classes.  User data (gaze_data_write) and every new object the
 * namespace creates (gaze_space_user_check) must fit in user_blocks
 * together with the new nodes and directory blocks already promised in
 * the cache, and may not open one of the reserved zones.  Writeback of
 * metadata at flush and checkpoint time (gaze_block_alloc) is not
 * limited by user_blocks and may use the reserve, so a full filesystem
 * can always write its checkpoint.
 */
int
gaze_space_user_check(struct gaze_fs *fs, u32 nblocks)
{
	struct gaze_space *sp = fs->space;
	u64 used = space_used(fs);
	u64 limit = le64_to_cpu(fs->sb.user_blocks);

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	/* see "Write reservations": writeback spends them, the rest keeps
	 * off them */
	if (sp->wb)
		limit += sp->wb_over;
	else
		used += space_resv_need(READ_ONCE(fs->resv_blocks));
	if (used + nblocks > limit)
		return -ENOSPC;
	return 0;
}

/*
 * Block off of main zone index zi becomes valid, owned by (owner_nid,
 * ofs): its usage bit, summary entry and counts (r: its table blocks;
 * the caller stores the zinfo entry).  -EFSCORRUPTED, changing nothing,
 * if it is valid already.
 */
static int
space_mark_valid(struct gaze_fs *fs, struct space_blk_refs *r, u32 zi,
		 u32 off, u32 owner_nid, u16 ofs, u8 sum_type)
{
	struct gaze_space *sp = fs->space;
	struct gaze_summary *s;
	u8 *bits, mask;

	bits = space_usage_bit(r->umb, off, &mask);
	if (*bits & mask)
		return -EFSCORRUPTED;
	*bits |= mask;
	gaze_table_dirty(fs, r->umb);
	s = space_summary(r->smb, off);
	s->nid = cpu_to_le32(owner_nid);
	s->ofs = cpu_to_le16(ofs);
	s->type = sum_type;
	s->flags = 0;
	gaze_table_dirty(fs, r->smb);
	sp->zones[zi].valid++;
	sp->zones[zi].mtime = gaze_fs_age(fs);
	WRITE_ONCE(sp->valid_blocks, sp->valid_blocks + 1);
	if (sum_type == GAZE_SUM_NODE)
		sp->valid_nodes++;
	return 0;
}

static int space_alloc(struct gaze_fs *fs, int type, u32 owner_nid, u16 ofs,
		       u8 sum_type, u64 *addr, bool user);

int
gaze_block_alloc(struct gaze_fs *fs, int type, u32 owner_nid, u16 ofs,
		 u8 sum_type, u64 *addr)
{
	return space_alloc(fs, type, owner_nid, ofs, sum_type, addr, false);
}

static int
space_alloc(struct gaze_fs *fs, int type, u32 owner_nid, u16 ofs,
	    u8 sum_type, u64 *addr, bool user)
{
	struct gaze_space *sp = fs->space;
	struct space_blk_refs r;
	struct space_log *lg;
	u32 li, zi, off;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	if (user) {
		ret = gaze_space_user_check(fs, 1);
		if (ret)
			return ret;
	}
	li = (u32)gaze_log_of_type(fs, type);
	lg = &sp->logs[li];
	gaze_gcp_log_wait(fs, li);
	ret = space_close_full(fs, li);
	if (ret)
		return ret;
	if (lg->zone == SPACE_NO_ZONE) {
		ret = space_open_zone(fs, li, user);
		if (ret)
			return ret;
	}
	zi = lg->zone - sp->main_start;
	off = lg->offset;

	ret = space_blk_refs_get(fs, zi, off, &r);
	if (ret)
		return ret;

	ret = space_mark_valid(fs, &r, zi, off, owner_nid, ofs, sum_type);
	if (WARN_ON(ret)) {
		gaze_err("block %llu is already valid",
			 (unsigned long long)(space_zone_addr(sp, lg->zone) +
					      off));
		goto out_put;
	}
	space_zinfo_store(fs, r.zmb, zi);
	lg->offset++;
	*addr = space_zone_addr(sp, lg->zone) + off;
	gaze_space_publish(fs);

out_put:
	space_blk_refs_put(fs, &r);
	return ret;
}

/*
 * Roll-forward (recover.c): block addr, written after the mounted
 * checkpoint, is referenced by a recovered node and becomes valid with
 * the given owner.  It must lie in a log head zone or in a zone the
 * checkpoint has free (opened after it); such a zone becomes FULL (the
 * mount finishes it on the device if it is still open there), and stays
 * open to later claims while the replay runs (sp->rf_zone).
 */
int
gaze_block_claim(struct gaze_fs *fs, u64 addr, u32 owner_nid, u16 ofs,
		 u8 sum_type, int type)
{
	struct gaze_space *sp = fs->space;
	struct space_blk_refs r;
	struct space_zone *z;
	u64 zone = addr / sp->zone_blocks;
	u32 zi, li, off = (u32)(addr % sp->zone_blocks);
	int ret;

	if (zone < sp->main_start || zone - sp->main_start >= sp->main_count ||
	    off >= sp->zone_cap) {
		gaze_err("roll-forward: block %llu is outside the main area",
			 (unsigned long long)addr);
		return -EFSCORRUPTED;
	}
	zi = (u32)(zone - sp->main_start);
	z = &sp->zones[zi];
	if (!sp->rf_zone) {
		sp->rf_zone = gaze_zalloc(sp->main_count);
		if (!sp->rf_zone)
			return -ENOMEM;
	}
	if (z->state != GAZE_ZS_FREE && !sp->rf_zone[zi] &&
	    !(z->state == GAZE_ZS_OPEN && space_is_log_head(sp, (u32)zone))) {
		gaze_err("roll-forward: block %llu lies in zone %llu, which the checkpoint has in use",
			 (unsigned long long)addr, (unsigned long long)zone);
		return -EFSCORRUPTED;
	}
	ret = space_blk_refs_get(fs, zi, off, &r);
	if (ret)
		return ret;
	ret = space_mark_valid(fs, &r, zi, off, owner_nid, ofs, sum_type);
	if (ret) {
		gaze_err("roll-forward: block %llu is referenced twice",
			 (unsigned long long)addr);
		goto out_put;
	}
	if (z->state == GAZE_ZS_FREE) {
		sp->rf_zone[zi] = 1;
		li = (u32)gaze_log_of_type(fs, type);
		z->log = (u8)space_log_type(fs, li);
		z->cps = 0;
		sp->nr_free--;
	}
	if (sp->rf_zone[zi])	/* FREE, or PREFREE after a replaced block */
		space_set_state(sp, zi, GAZE_ZS_FULL);
	space_zinfo_store(fs, r.zmb, zi);
	/*
	 * A log head goes on after the blocks replayed in its zone: on a
	 * sequential zone the write pointer is past them anyway, but a
	 * device with emulated zones reports none, and the head would
	 * write over them
	 */
	for (li = 0; li < sp->nr_logs; li++)
		if (sp->logs[li].zone == zone && sp->logs[li].offset <= off)
			sp->logs[li].offset = off + 1;
out_put:
	space_blk_refs_put(fs, &r);
	return ret;
}

/*
 * The address the next block of log type `type` will get.  With open, a
 * log whose zone is full (or that has none) opens its next zone now (else
 * the answer is 0), so the last node written in a zone can name where
 * its log continues (the roll-forward chain, format.md section 17).
 * 0: no room; the chain ends there.
 */
u64
gaze_log_peek(struct gaze_fs *fs, int type, bool open)
{
	struct gaze_space *sp = fs->space;
	u32 li = (u32)gaze_log_of_type(fs, type);
	struct space_log *lg = &sp->logs[li];

	if (!open)
		return lg->zone == SPACE_NO_ZONE || lg->offset >= sp->zone_cap ?
		       0 : space_zone_addr(sp, lg->zone) + lg->offset;
	if (space_close_full(fs, li))
		return 0;
	if (lg->zone == SPACE_NO_ZONE && space_open_zone(fs, li, false))
		return 0;
	return space_zone_addr(sp, lg->zone) + lg->offset;
}

/* the next block of physical log li as the checkpoint records it; 0 if
 * it has no zone or its zone is full */
u64
gaze_log_cp_start(struct gaze_fs *fs, u32 li)
{
	struct gaze_space *sp = fs->space;
	u32 zone = le32_to_cpu(fs->cp.logs[li].zone);
	u32 off = le32_to_cpu(fs->cp.logs[li].offset);

	if (li >= sp->nr_logs || zone == SPACE_NO_ZONE || off >= sp->zone_cap)
		return 0;
	return space_zone_addr(sp, zone) + off;
}

int
gaze_block_invalidate(struct gaze_fs *fs, u64 addr)
{
	struct gaze_space *sp = fs->space;
	struct space_blk_refs r;
	struct gaze_summary *s;
	struct space_zone *z;
	u64 zone = addr / sp->zone_blocks;
	u32 zi, off = (u32)(addr % sp->zone_blocks);
	u8 *bits, mask;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	if (zone < sp->main_start || zone - sp->main_start >= sp->main_count ||
	    off >= sp->zone_cap) {
		gaze_err("invalidating block %llu outside the main area",
			 (unsigned long long)addr);
		WARN_ON(1);
		return -EFSCORRUPTED;
	}
	zi = (u32)(zone - sp->main_start);
	z = &sp->zones[zi];
	ret = space_blk_refs_get(fs, zi, off, &r);
	if (ret)
		return ret;

	/*
	 * No warning here: the address comes from a block map, and damage
	 * on disk (a usage bit cleared, a zone's valid count too low) gets
	 * here without any bug of ours; the caller reports the error
	 * (errors=), a WARN would only flood the log with stack traces.
	 */
	bits = space_usage_bit(r.umb, off, &mask);
	if (!(*bits & mask) || !z->valid) {
		gaze_err("invalidating block %llu which is not valid",
			 (unsigned long long)addr);
		ret = -EFSCORRUPTED;
		goto out_put;
	}
	*bits &= (u8)~mask;
	gaze_table_dirty(fs, r.umb);

	s = space_summary(r.smb, off);
	if (s->type == GAZE_SUM_NODE && sp->valid_nodes)
		sp->valid_nodes--;
	/*
	 * With lazy_summary the entry stays as it was: the usage bit is
	 * the truth, and clearing the entry would dirty a summary block at
	 * every overwrite's old address, which random overwrites spread
	 * over every summary block of the file (format.md section 16).
	 */
	if (!gaze_sb_lazy_summary(&fs->sb)) {
		memset(s, 0, sizeof(*s));
		gaze_table_dirty(fs, r.smb);
	}

	z->valid--;
	WRITE_ONCE(sp->valid_blocks, sp->valid_blocks - 1);
	if (!z->valid && (z->state == GAZE_ZS_FULL ||
			  (z->state == GAZE_ZS_OPEN &&
			   !space_is_log_head(sp, (u32)zone))))
		space_set_state(sp, zi, GAZE_ZS_PREFREE);
	space_zinfo_store(fs, r.zmb, zi);
	gaze_space_publish(fs);

out_put:
	space_blk_refs_put(fs, &r);
	return ret;
}

int
gaze_data_write(struct gaze_fs *fs, int type, u32 owner_nid, u16 ofs,
		const void *buf, u64 *addr)
{
	int ret;

	ret = space_alloc(fs, type, owner_nid, ofs, GAZE_SUM_DATA, addr, true);
	if (ret)
		return ret;
	fs->gc.user_blocks++;
	ret = gaze_block_write(fs, *addr, buf);
	if (ret)
		gaze_block_invalidate(fs, *addr);
	return ret;
}

int
gaze_data_alloc(struct gaze_fs *fs, int type, u32 owner_nid, u16 ofs,
		u64 *addr)
{
	int ret;

	ret = space_alloc(fs, type, owner_nid, ofs, GAZE_SUM_DATA, addr, true);
	if (!ret)
		fs->gc.user_blocks++;
	return ret;
}

int
gaze_blocks_write(struct gaze_fs *fs, u64 addr, u32 nr, const void *buf)
{
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	ret = fs->dev->ops->write(fs->dev, addr, nr, buf);
	if (ret)
		space_write_failed(fs, addr + nr - 1);
	return ret;
}

bool
gaze_blocks_run_on(const struct gaze_fs *fs, u64 prev, u64 next)
{
	return next == prev + 1 && next % fs->dev->zone_blocks != 0;
}

int
gaze_blocks_write_runs_dev(struct gaze_fs *fs, const u64 *addrs, u32 nr,
			   void *const *bufs, u64 *fail)
{
	u32 i, start = 0;
	int ret = 0;

	for (i = 1; i <= nr && !ret; i++) {
		if (i < nr && gaze_blocks_run_on(fs, addrs[i - 1], addrs[i]))
			continue;
		ret = gaze_blocks_writev_dev(fs, addrs[start], i - start,
					     bufs + start);
		if (ret)
			*fail = addrs[i - 1];
		start = i;
	}
	return ret;
}

int
gaze_blocks_write_runs(struct gaze_fs *fs, const u64 *addrs, u32 nr,
		       void *const *bufs)
{
	u64 fail = 0;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	ret = gaze_blocks_write_runs_dev(fs, addrs, nr, bufs, &fail);
	/* the run's end is what a log head is compared with */
	if (ret)
		space_write_failed(fs, fail);
	return ret;
}

int
gaze_blocks_readv(struct gaze_fs *fs, u64 addr, u32 nr, void *const *bufs)
{
	u32 i;
	int ret = 0;

	if (fs->dev->ops->readv)
		return fs->dev->ops->readv(fs->dev, addr, nr, bufs);
	for (i = 0; i < nr && !ret; i++)
		ret = fs->dev->ops->read(fs->dev, addr + i, 1, bufs[i]);
	return ret;
}

int
gaze_blocks_writev_dev(struct gaze_fs *fs, u64 addr, u32 nr,
		       void *const *bufs)
{
	u32 i;
	int ret = 0;

	if (!fs->dev->ops->writev) {
		for (i = 0; i < nr && !ret; i++)
			ret = fs->dev->ops->write(fs->dev, addr + i, 1,
						  bufs[i]);
	} else {
		ret = fs->dev->ops->writev(fs->dev, addr, nr, bufs);
	}
	return ret;
}

void
gaze_space_write_failed(struct gaze_fs *fs, u64 addr)
{
	space_write_failed(fs, addr);
}

int
gaze_blocks_writev(struct gaze_fs *fs, u64 addr, u32 nr, void *const *bufs)
{
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	ret = gaze_blocks_writev_dev(fs, addr, nr, bufs);
	/* the run's end is what a log head is compared with */
	if (ret)
		space_write_failed(fs, addr + nr - 1);
	return ret;
}

u64
gaze_space_free_blocks(struct gaze_fs *fs)
{
	u64 user = le64_to_cpu(fs->sb.user_blocks);
	u64 used = space_used(fs);

	return used < user ? user - used : 0;
}

u64
gaze_space_avail_blocks(u64 free)
{
	/* n + GAZE_MAP_NODES(n) <= free for n = free - GAZE_MAP_NODES(free) */
	return free > GAZE_MAP_NODES(free) ? free - GAZE_MAP_NODES(free) : 0;
}

int
gaze_space_zone_stat(struct gaze_fs *fs, u32 zone, u32 *valid, u32 *state)
{
	struct gaze_space *sp = fs->space;
	u32 zi = zone - sp->main_start;

	if (zone < sp->main_start || zi >= sp->main_count)
		return -EINVAL;
	*valid = sp->zones[zi].valid;
	*state = sp->zones[zi].state;
	return 0;
}

u64
gaze_space_read_end(struct gaze_fs *fs, u64 addr)
{
	struct gaze_space *sp = fs->space;
	u64 zone = addr / sp->zone_blocks;
	u64 base = zone * sp->zone_blocks;
	u32 i;

	if (zone < sp->main_start || zone - sp->main_start >= sp->main_count)
		return addr + 1;
	for (i = 0; i < sp->nr_logs; i++)
		if (sp->logs[i].zone == zone)
			return max(addr + 1, base + sp->logs[i].offset);
	if (sp->zones[zone - sp->main_start].state == GAZE_ZS_FULL)
		return base + sp->zone_cap;
	return addr + 1;
}

u32
gaze_space_free_zones(struct gaze_fs *fs)
{
	return fs->space->nr_free;
}

u32
gaze_space_user_floor(struct gaze_fs *fs)
{
	return min_t(u32, SPACE_USER_FLOOR,
		     le32_to_cpu(fs->sb.reserved_zones));
}

/* ---------------------------------------------------------------- */
/* FITRIM                                                            */
/* ---------------------------------------------------------------- */

/* zones looked at per gaze_space_trim call when none is FREE */
#define SPACE_TRIM_BATCH	256u

int
gaze_space_trim_init(struct gaze_fs *fs, u64 start, u64 len, u64 minlen,
		     struct gaze_trim *t)
{
	struct gaze_space *sp = fs->space;
	u64 dev_bytes = fs->dev->nr_blocks << GAZE_BLOCK_SHIFT;
	u64 end, zb = sp->zone_blocks;

	memset(t, 0, sizeof(*t));
	if (start >= dev_bytes || len < GAZE_BLOCK_SIZE ||
	    minlen > ((u64)sp->zone_cap << GAZE_BLOCK_SHIFT))
		return -EINVAL;
	end = len > dev_bytes - start ? dev_bytes : start + len;
	t->start = DIV_ROUND_UP(start, GAZE_BLOCK_SIZE);
	t->end = end >> GAZE_BLOCK_SHIFT;
	/* the first main zone that starts at t->start or after */
	if (t->start > (u64)sp->main_start * zb)
		t->next = (u32)min_t(u64, DIV_ROUND_UP(t->start, zb) -
				     sp->main_start, sp->main_count);
	return 0;
}

/*
 * FREE main zone zi, if the device holds data there: a sequential zone of
 * a zoned device is reset, any other zone discarded (gaze_dev_ops.discard,
 * or a reset without it).  fs->lock.
 */
static int
space_trim_zone(struct gaze_fs *fs, struct gaze_trim *t, u32 zi)
{
	const struct gaze_dev_ops *ops = fs->dev->ops;
	u32 zone = fs->space->main_start + zi;
	struct gaze_zone z;
	int ret;

	ret = gaze_zone_report(fs, zone, &z);
	if (ret)
		return ret;
	if (z.type == GAZE_ZT_SEQ && z.cond == GAZE_ZC_EMPTY)
		goto trimmed;
	gaze_fs_zone_reset_note(fs);
	if (ops->discard && (fs->dev->model == GAZE_ZM_EMULATED ||
			     z.type != GAZE_ZT_SEQ))
		ret = ops->discard(fs->dev, zone);
	else if (z.type == GAZE_ZT_SEQ)
		ret = ops->reset(fs->dev, zone, 1);
	else
		return 0;		/* nothing this device can do */
	if (ret == -EOPNOTSUPP)
		return 0;
	if (ret) {
		gaze_err("trim of zone %u failed: %d", zone, ret);
		return ret;
	}
	t->zones_reset++;
trimmed:
	t->trimmed += z.cap;
	return 0;
}

/* one FREE zone's report, and its reset or discard, per call */
int
gaze_space_trim(struct gaze_fs *fs, struct gaze_trim *t)
{
	struct gaze_space *sp = fs->space;
	u64 zb = sp->zone_blocks;
	u32 looked, zi;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	for (looked = 0; looked < SPACE_TRIM_BATCH; looked++) {
		zi = t->next;
		if (zi >= sp->main_count ||
		    ((u64)sp->main_start + zi + 1) * zb > t->end)
			return 1;
		t->next++;
		if (sp->zones[zi].state == GAZE_ZS_FREE)
			return space_trim_zone(fs, t, zi);
	}
	return 0;
}

/* a summary block's entries lie in one usage block */
_Static_assert(GAZE_USAGE_BITS_PER_BLOCK % GAZE_SUMMARY_PER_BLOCK == 0,
	       "summary block spans two usage blocks");

/* clears the entries of blocks [off, end) that are not valid; how many */
static u32
space_scrub_run(struct gaze_mbuf *smb, struct gaze_mbuf *umb, u32 off,
		u32 end)
{
	struct gaze_summary *s;
	u32 n = 0;
	u8 *bits, mask;

	for (; off < end; off++) {
		bits = space_usage_bit(umb, off, &mask);
		s = space_summary(smb, off);
		if (!(*bits & mask) && !gaze_fmt_is_zero(s, sizeof(*s))) {
			memset(s, 0, sizeof(*s));
			n++;
		}
	}
	return n;
}

int
gaze_space_summary_scrub(struct gaze_fs *fs, u32 *next, u64 *cleared)
{
	struct gaze_space *sp = fs->space;
	u32 spz = le32_to_cpu(fs->sb.summary_blocks_per_zone);
	u32 zi = *next, off, end, n;
	struct gaze_mbuf *smb, *umb;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	if (zi >= sp->main_count)
		return 1;
	for (off = 0; off < sp->zone_cap; off = end) {
		end = min_t(u32, off + GAZE_SUMMARY_PER_BLOCK, sp->zone_cap);
		/* never written: all zero, nothing to clear */
		ret = gaze_table_absent(fs, GAZE_TABLE_SUMMARY,
					zi * spz + off / GAZE_SUMMARY_PER_BLOCK);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		ret = space_summary_get(fs, zi, off, &smb);
		if (ret)
			return ret;
		ret = space_usage_get(fs, zi, off, &umb);
		if (ret) {
			gaze_mbuf_put(fs, smb);
			return ret;
		}
		n = space_scrub_run(smb, umb, off, end);
		if (n)
			gaze_table_dirty(fs, smb);
		*cleared += n;
		gaze_mbuf_put(fs, umb);
		gaze_mbuf_put(fs, smb);
	}
	(*next)++;
	return 0;
}

/* ---------------------------------------------------------------- */
/* What the garbage collector (gc.c) needs to see                    */
/* ---------------------------------------------------------------- */

int
gaze_space_zone_use(struct gaze_fs *fs, u32 zone, struct gaze_zone_use *u)
{
	struct gaze_space *sp = fs->space;
	u32 zi = zone - sp->main_start;

	if (zone < sp->main_start || zi >= sp->main_count)
		return -EINVAL;
	u->valid = sp->zones[zi].valid;
	u->state = sp->zones[zi].state;
	u->log = sp->zones[zi].log;
	u->mtime = sp->zones[zi].mtime;
	u->log_head = space_is_log_head(sp, zone);
	return 0;
}

int
gaze_space_block_owner(struct gaze_fs *fs, u64 addr, bool *valid,
		       struct gaze_summary *sum)
{
	struct gaze_space *sp = fs->space;
	u64 zone = addr / sp->zone_blocks;
	u32 off = (u32)(addr % sp->zone_blocks);
	struct space_blk_refs r;
	u8 *bits, mask;
	int ret;

	if (zone < sp->main_start || zone - sp->main_start >= sp->main_count ||
	    off >= sp->zone_cap)
		return -EINVAL;
	ret = space_blk_refs_get(fs, (u32)(zone - sp->main_start), off, &r);
	if (ret)
		return ret;
	bits = space_usage_bit(r.umb, off, &mask);
	*valid = *bits & mask;
	memcpy(sum, space_summary(r.smb, off), sizeof(*sum));
	space_blk_refs_put(fs, &r);
	return 0;
}

int
gaze_space_next_valid(struct gaze_fs *fs, u32 zone, u32 *off,
		      struct gaze_summary *sum)
{
	struct gaze_space *sp = fs->space;
	u32 zi = zone - sp->main_start, o = *off, cur = (u32)-1;
	struct gaze_mbuf *umb = NULL, *smb;
	const u8 *bits;
	u8 mask;
	int ret = -ENOENT;

	if (zone < sp->main_start || zi >= sp->main_count)
		return -EINVAL;
	for (; o < sp->zone_cap; o++) {
		if (o / GAZE_USAGE_BITS_PER_BLOCK != cur) {
			if (umb)
				gaze_mbuf_put(fs, umb);
			umb = NULL;
			ret = space_usage_get(fs, zi, o, &umb);
			if (ret)
				goto out;
			ret = -ENOENT;
			cur = o / GAZE_USAGE_BITS_PER_BLOCK;
		}
		bits = space_usage_bit(umb, o, &mask);
		/* a byte with no valid block is passed whole */
		if (mask == 1 && !*bits) {
			o += 7;
			continue;
		}
		if (*bits & mask)
			break;
	}
	if (o >= sp->zone_cap)
		goto out;
	ret = space_summary_get(fs, zi, o, &smb);
	if (ret)
		goto out;
	memcpy(sum, space_summary(smb, o), sizeof(*sum));
	gaze_mbuf_put(fs, smb);
	*off = o;
out:
	if (umb)
		gaze_mbuf_put(fs, umb);
	if (ret == -ENOENT)
		*off = sp->zone_cap;
	return ret;
}

u32
gaze_space_nr_prefree(struct gaze_fs *fs)
{
	return fs->space->nr_prefree;
}

u32
gaze_space_log_room(struct gaze_fs *fs, int type)
{
	struct gaze_space *sp = fs->space;
	const struct space_log *lg = &sp->logs[gaze_log_of_type(fs, type)];

	if (lg->zone == SPACE_NO_ZONE || lg->offset >= sp->zone_cap)
		return 0;
	return sp->zone_cap - lg->offset;
}

void
gaze_space_valid_counts(struct gaze_fs *fs, u64 *blocks, u64 *nodes)
{
	*blocks = fs->space->valid_blocks;
	*nodes = fs->space->valid_nodes;
}

/* ---------------------------------------------------------------- */
/* Meta ring                                                         */
/* ---------------------------------------------------------------- */

void
gaze_meta_ref(struct gaze_fs *fs, u64 addr, int delta)
{
	struct gaze_space *sp = fs->space;
	u64 zone = addr / sp->zone_blocks;
	u32 r;

	if (WARN_ON(zone < sp->meta_start ||
		    zone - sp->meta_start >= sp->meta_count))
		return;
	r = (u32)(zone - sp->meta_start);
	if (delta < 0 && WARN_ON(sp->live[r] < (u32)-delta)) {
		sp->live[r] = 0;
		return;
	}
	sp->live[r] += delta;
}

int
gaze_meta_alloc(struct gaze_fs *fs, u64 *addr)
{
	struct gaze_space *sp = fs->space;
	u32 next;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	if (sp->meta_off >= sp->zone_cap) {
		/* the next free zone; one still in use is stepped over */
		next = space_meta_next(sp, sp->meta_head);
		while (next != sp->meta_head && space_meta_used(sp, next))
			next = space_meta_next(sp, next);
		if (next == sp->meta_head) {
			gaze_err("the meta ring is full");
			return -ENOSPC;
		}
		ret = space_zone_prepare(fs, next);
		if (ret)
			return ret;
		sp->meta_head = next;
		sp->meta_off = 0;
	}
	*addr = space_zone_addr(sp, sp->meta_head) + sp->meta_off++;
	sp->live[sp->meta_head - sp->meta_start]++;
	return 0;
}

/* free zones right after the head and the first zone in use after them */
static u32
space_meta_free_run(const struct gaze_space *sp, u32 *tail)
{
	u32 z = space_meta_next(sp, sp->meta_head), n = 0;

	while (z != sp->meta_head && !space_meta_used(sp, z)) {
		n++;
		z = space_meta_next(sp, z);
	}
	*tail = z;
	return n;
}

static u64
space_meta_needed(struct gaze_fs *fs)
{
	/* every dirty table block, its index block, and a little slack */
	return (u64)gaze_cache_nr_dirty(fs, GAZE_MB_TABLE) +
	       gaze_cache_nr_dirty(fs, GAZE_MB_TINDEX) + GAZE_NR_TABLES;
}

/*
 * The last resort of a short ring: give up the zones that only the
 * checkpoint before last still holds (no live block, none in the newest
 * checkpoint).  The ring is sized for two copies of the tables, but a
 * checkpoint that rewrites most of them (removing a big tree) while
 * sparse zones pin the ring can need more than what two checkpoints
 * leave free.  Crash consistency does not depend on those zones: the
 * newest checkpoint is complete on the device before the next one is
 * written, and a torn write of the next one falls back to the newest,
 * never to the one before it.  What is given up is only the older
 * fallback for a newest checkpoint that later goes bad on the media.
 * Returns how many zones it freed.
 */
static u32
space_meta_drop_prev(struct gaze_space *sp)
{
	u32 r, n = 0;

	for (r = 0; r < sp->meta_count; r++) {
		if (sp->live[r] || sp->snap[r] || !sp->prev[r])
			continue;
		sp->prev[r] = 0;
		n++;
	}
	return n;
}

/*
 * Room for the next checkpoint: the rest of the head zone and every free
 * zone (gaze_meta_alloc steps over zones in use); *nfree: the free zones
 * right after the head, up to *tail.
 */
static u64
space_meta_avail(const struct gaze_space *sp, u32 *tail, u32 *nfree)
{
	u32 r, n = 0;

	*nfree = space_meta_free_run(sp, tail);
	for (r = 0; r < sp->meta_count; r++)
		if (r + sp->meta_start != sp->meta_head &&
		    !space_meta_used(sp, r + sp->meta_start))
			n++;
	return (u64)(sp->zone_cap - min(sp->meta_off, sp->zone_cap)) +
	       (u64)n * sp->zone_cap;
}

/*
 * Keeps the ring moving and dense; *need grows by what it moves.  The
 * old rule: when fewer than two free zones follow the head, or less than
 * twice what this checkpoint needs is free, the tail zone's live blocks
 * are rewritten at the head if they fit, so the zone comes free after
 * the next commits.  That alone let zones holding a few live blocks each
 * pin most of a small-zoned ring, until a checkpoint rewriting most of
 * the tables (removing a big directory) found no room.  So, under that
 * pressure or as long as what would be left free after this checkpoint
 * is less than a next one rewriting every live block could need (all
 * live blocks and a zone), the tail zone and the zones at most half live
 * are rewritten first, in ring order, up to this checkpoint's own size
 * plus a zone (at most RING_COMPACT_SLACK blocks): the metadata written
 * stays proportional to what changed.  With zones bigger than that, the
 * old rule still moves a dense tail zone that did not fit.  (Applying it
 * on small zones too, after the compaction, made three of ten
 * tests/ns/test_bigdir runs with 1-2 MiB zones fail again.)
 */
#define RING_COMPACT_SLACK	1024u

static int
space_meta_move(struct gaze_fs *fs, u32 zone, u64 *need)
{
	int ret = gaze_tables_relocate_zone(fs, zone);

	if (!ret)
		*need = space_meta_needed(fs);
	return ret;
}

static int
space_meta_compact(struct gaze_fs *fs, u32 tail, u32 nfree, u64 avail,
		   u64 *need)
{
	struct gaze_space *sp = fs->space;
	bool moving = nfree < 2 || avail < 2 * *need;
	u64 live = 0, cap = avail;
	u32 r, z, tl;
	int ret;

	for (r = 0; r < sp->meta_count; r++)
		live += sp->live[r];
	if (!moving && avail >= *need + live + sp->zone_cap)
		return 0;
	r = min_t(u32, sp->zone_cap, RING_COMPACT_SLACK);
	if (*need + r < avail)
		cap = 2 * *need + r;
	for (z = tail; z != sp->meta_head; z = space_meta_next(sp, z)) {
		tl = sp->live[z - sp->meta_start];
		if (!tl || *need + tl > cap ||
		    (z != tail && tl > sp->zone_cap / 2))
			continue;
		ret = space_meta_move(fs, z, need);
		if (ret)
			return ret;
	}
	/* a zone bigger than the slack: the old rule moves a dense tail */
	tl = sp->live[tail - sp->meta_start];
	if (sp->zone_cap > RING_COMPACT_SLACK && moving && tl &&
	    *need + tl <= avail)
		return space_meta_move(fs, tail, need);
	return 0;
}

bool
gaze_meta_pressed(struct gaze_fs *fs)
{
	struct gaze_space *sp = fs->space;
	u64 need = space_meta_needed(fs);
	u32 tail, nfree;

	if (need < sp->zone_cap / 4)
		return false;	/* cheap answer for the common case */
	return 2 * need > space_meta_avail(sp, &tail, &nfree);
}

int
gaze_meta_prepare(struct gaze_fs *fs)
{
	struct gaze_space *sp = fs->space;
	u32 tail, nfree, dropped;
	u64 avail = space_meta_avail(sp, &tail, &nfree);
	u64 need = space_meta_needed(fs);
	int ret;

	if (tail != sp->meta_head) {
		ret = space_meta_compact(fs, tail, nfree, avail, &need);
		if (ret)
			return ret;
	}
	if (need > avail) {
		dropped = space_meta_drop_prev(sp);
		if (dropped) {
			avail = space_meta_avail(sp, &tail, &nfree);
			gaze_info("meta ring short (%llu blocks needed): %u zones only the checkpoint before last held are reused, now %llu free",
				  (unsigned long long)need, dropped,
				  (unsigned long long)avail);
		}
	}
	if (need > avail) {
		gaze_err("the meta ring has %llu blocks free, the checkpoint needs %llu",
			 (unsigned long long)avail, (unsigned long long)need);
		return -ENOSPC;
	}
	return 0;
}

void
gaze_space_fill_cp(struct gaze_fs *fs, struct gaze_cp_head *cp)
{
	struct gaze_space *sp = fs->space;
	u32 i, tail;

	cp->nr_logs = cpu_to_le32(sp->nr_logs);
	for (i = 0; i < GAZE_MAX_LOGS; i++) {
		memset(&cp->logs[i], 0, sizeof(cp->logs[i]));
		if (i >= sp->nr_logs)
			continue;
		cp->logs[i].zone = cpu_to_le32(sp->logs[i].zone);
		cp->logs[i].offset = cpu_to_le32(sp->logs[i].zone ==
						 SPACE_NO_ZONE ? 0 :
						 sp->logs[i].offset);
		cp->logs[i].type = cpu_to_le32(space_log_type(fs, i));
	}
	cp->free_zones = cpu_to_le32(sp->nr_free);
	cp->valid_blocks = cpu_to_le64(sp->valid_blocks);
	cp->valid_nodes = cpu_to_le64(sp->valid_nodes);
	cp->meta_head_zone = cpu_to_le32(sp->meta_head);
	cp->meta_head_offset = cpu_to_le32(sp->meta_off);
	space_meta_free_run(sp, &tail);
	cp->meta_tail_zone = cpu_to_le32(tail);
}

int
gaze_space_cp_committed(struct gaze_fs *fs)
{
	struct gaze_space *sp = fs->space;
	u32 zi, *t;
	int ret, err = 0;

	t = sp->prev;
	sp->prev = sp->snap;
	sp->snap = t;
	memcpy(sp->snap, sp->live, sp->meta_count * sizeof(u32));

	for (zi = 0; zi < sp->main_count; zi++) {
		if (sp->zones[zi].state != GAZE_ZS_PREFREE)
			continue;
		/* a zone a GC job still reads from stays until it ends */
		if (++sp->zones[zi].cps < 2 ||
		    gaze_gcp_zone_busy(fs, sp->main_start + zi))
			continue;
		space_set_state(sp, zi, GAZE_ZS_FREE);
		sp->nr_free++;
		ret = space_zinfo_update(fs, zi);
		if (ret && !err)
			err = ret;
	}
	gaze_space_publish(fs);
	return err;
}
