// SPDX-License-Identifier: GPL-2.0
/*
 * gcpipe.c - reclaiming a zone in four stages (the pipelined GC).
 *
 * Why: reclaiming a large zone is mostly software work (finding what is
 * valid, checking owners, allocating, updating indexes) interleaved with
 * device reads and writes.  Done block by block under fs->lock, as the
 * baseline (gc.c) does, none of it overlaps and every writer waits for
 * the whole zone.  Here a job walks its victim in batches of up to
 * GAZE_GCP_BATCH blocks, and each batch passes four stages:
 *
 *   preread   (fs->lock)  scan the usage bitmap from the job's cursor:
 *                         the valid blocks and their summaries (owners);
 *   read      (no lock)   read the blocks that will be copied, runs of
 *                         consecutive blocks in one request each;
 *   prewrite  (fs->lock)  check each block against the state now, verify
 *                         owners and directory blocks, load owner nodes
 *                         into the cache, re-dirty nodes and cached
 *                         directory blocks (the flush moves them);
 *   write     (fs->lock)  check again, allocate destinations in the cold
 *                         data log;
 *             (no lock)   write them in runs;
 *             (fs->lock)  check again, move the slots, invalidate the
 *                         old blocks (gaze_gcp_write_begin, _io, _end).
 *
 * The module runs each stage on its own thread, so while one batch is
 * written the next is read and a third is scanned; the lock is held only
 * for CPU work.  Tests run them in turn.
 *
 * What makes it safe to let go of fs->lock between stages:
 *  - The victim is pinned (fs->gcp_zone[]) from begin to end: selection
 *    skips it and space.c keeps it PREFREE even when users empty it, so
 *    it is never reset and rewritten while a batch holds blocks read from
 *    it.  A block address in a pinned zone therefore means one content.
 *  - Every later stage re-checks what it acts on, and the write stage
 *    does it under the same lock hold as the move: the block is still
 *    valid, with the same summary, and the owner's slot still points at
 *    it.  A block overwritten, truncated, punched or deleted meanwhile no
 *    longer passes (its slot points elsewhere or it is invalid) and is
 *    dropped: GC never brings it back.  A directory block that got
 *    cached meanwhile is re-dirtied instead of copied, since the cached
 *    copy may be newer.
 *  - Between stages the filesystem is consistent: nothing is allocated
 *    before the write stage.  Inside it, between the allocation and the
 *    commit, the copies are valid blocks that no owner points at yet
 *    (fs->gcw).  No checkpoint records that: gaze_cp_write commits the
 *    move first (gaze_gcp_settle), after its device write has ended.
 *    Their zones count as busy, so no collector takes them as a victim
 *    and meets blocks whose owners disown them.  The next allocation in
 *    the cold data log waits for the write, so the zone still takes its
 *    writes in order.
 *
 * Locking: as noted per stage; fs->gcp_zone[] and fs->gcp_gain[] are
 * protected by fs->lock.
 */
#include "gaze_core.h"

/*
 * The write stage's move, from gaze_gcp_write_begin to its commit:
 * entries b->ent[idx[i]] got destinations naddr[i] (allocated, valid,
 * their summaries naming the old owner slot), written from bufs[i].
 * The owners are looked up again at the commit.
 */
struct gaze_gcp_move {
	struct gaze_gcp_batch	*b;
	u64			naddr[GAZE_GCP_BATCH];
	void			*bufs[GAZE_GCP_BATCH];
	u32			idx[GAZE_GCP_BATCH];
	u32			n;
	u32			zone_lo, zone_hi; /* zones of naddr[] */
	int			io_err;		/* the device write's */
	u64			io_fail;	/* end of the run that failed */
	u8			tmp[GAZE_BLOCK_SIZE];
};

/* is `zone` where the write in flight (fs->gcw) puts its copies? */
static bool
gcp_gcw_zone(const struct gaze_fs *fs, u32 zone)
{
	const struct gaze_gcp_move *m = fs->gcw;

	return m && zone >= m->zone_lo && zone <= m->zone_hi;
}

static u32
gcp_cap(const struct gaze_fs *fs)
{
	return le32_to_cpu(fs->sb.zone_cap);
}

bool
gaze_gcp_zone_busy(const struct gaze_fs *fs, u32 zone)
{
	u32 i;

	if (fs->gc_mv.zone && fs->gc_mv.zone == zone)
		return true;	/* the baseline mover is on it */
	if (gcp_gcw_zone(fs, zone))
		return true;	/* copies in flight: owners not pointed yet */
	for (i = 0; i < GAZE_GCP_MAX_JOBS; i++)
		if (fs->gcp_zone[i] == zone)
			return true;
	return false;
}

u64
gaze_gcp_gain(struct gaze_fs *fs)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < GAZE_GCP_MAX_JOBS; i++)
		if (fs->gcp_zone[i] != GAZE_GCP_NONE)
			sum += fs->gcp_gain[i];
	return sum;
}

/* what in-flight jobs may still move (their valid0, an upper bound) */
u64
gaze_gcp_pending_valid(struct gaze_fs *fs, u32 *jobs)
{
	u64 sum = 0;
	u32 i;

	*jobs = 0;
	for (i = 0; i < GAZE_GCP_MAX_JOBS; i++)
		if (fs->gcp_zone[i] != GAZE_GCP_NONE) {
			sum += gcp_cap(fs) - fs->gcp_gain[i];
			(*jobs)++;
		}
	return sum;
}

int
gaze_gcp_begin(struct gaze_fs *fs, u32 zone, int why,
	       struct gaze_gcp_job *job)
{
	struct gaze_zone_use u;
	u32 i, slot = GAZE_GCP_NONE;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	for (i = 0; i < GAZE_GCP_MAX_JOBS; i++)
		if (fs->gcp_zone[i] == GAZE_GCP_NONE) {
			slot = i;
			break;
		}
	if (slot == GAZE_GCP_NONE)
		return -EBUSY;
	if (zone == GAZE_GCP_ANY) {
		ret = gaze_gc_pick(fs, why, &zone);
		if (ret)
			return ret;
	}
	ret = gaze_gc_victim_check(fs, zone, &u);
	if (ret)
		return ret;
	/* room for it besides what jobs already in flight may still write */
	ret = gaze_gc_room(fs, u.valid);
	if (ret)
		return ret;
	memset(job, 0, sizeof(*job));
	job->why = why;
	job->zone = zone;
	job->valid0 = u.valid;
	job->slot = slot;
	job->t0 = gaze_time_ns();
	fs->gcp_zone[slot] = zone;
	fs->gcp_gain[slot] = gcp_cap(fs) - min(u.valid, gcp_cap(fs));
	gaze_space_publish(fs);		/* the gain, for write reservations */
	return 0;
}

/* ---------------------------------------------------------------- */
/* Stage 1: preread                                                  */
/* ---------------------------------------------------------------- */

int
gaze_gcp_preread(struct gaze_fs *fs, struct gaze_gcp_job *job,
		 struct gaze_gcp_batch *b, u32 max)
{
	u32 zb = le32_to_cpu(fs->sb.zone_blocks), cap = gcp_cap(fs);
	struct gaze_gcp_ent *e;
	struct gaze_zone_use u;
	struct gaze_summary sum;
	u64 addr;
	int ret = 0;

	b->job = job;
	if (!b->pr_more) {
		b->nr = 0;
		b->nbuf = 0;
	}
	b->pr_more = false;
	if (max > GAZE_GCP_BATCH)
		max = GAZE_GCP_BATCH;
	if (job->err)
		return job->err;
	ret = gaze_space_zone_use(fs, job->zone, &u);
	if (ret || !u.valid) {
		job->scanned = true;	/* emptied by users: nothing left */
		goto out;
	}
	for (; job->cursor < cap && b->nr < max; job->cursor++) {
		ret = gaze_space_next_valid(fs, job->zone, &job->cursor, &sum);
		if (ret == -ENOENT) {
			ret = 0;
			break;
		}
		if (ret == -GAZE_EMISS) {	/* the cursor stays */
			b->pr_more = true;
			return ret;
		}
		if (ret)
			goto out;
		addr = (u64)job->zone * zb + job->cursor;
		e = &b->ent[b->nr++];
		e->addr = addr;
		e->sum = sum;
		if (sum.type == GAZE_SUM_NODE) {
			e->act = GAZE_GCP_NODE;
		} else if (sum.type == GAZE_SUM_DATA) {
			e->act = GAZE_GCP_DATA;
			b->nbuf++;
		} else {
			gaze_err("gc: valid block %llu has summary type %u",
				 (unsigned long long)addr, sum.type);
			ret = -EFSCORRUPTED;
			goto out;
		}
	}
	if (job->cursor >= cap)
		job->scanned = true;
out:
	if (ret && !job->err)
		job->err = ret;
	return ret;
}

/* ---------------------------------------------------------------- */
/* Stage 2: read (no fs->lock)                                       */
/* ---------------------------------------------------------------- */

/* the gap blocks that join block `next` to the request of n blocks
 * ending at `end` (next > end), or 0 when it starts a request of its own */
static u32
gcp_gap(const struct gaze_fs *fs, const struct gaze_gcp_batch *b, u64 end,
	u64 next, u32 n)
{
	if (!b->gap || !fs->dev->ops->readv || next <= end ||
	    next - end > min_t(u32, b->gap_max, GAZE_GCP_GAP) ||
	    n + (next - end) + 1 > GAZE_GCP_SPAN)
		return 0;
	return (u32)(next - end);
}

int
gaze_gcp_read(struct gaze_fs *fs, struct gaze_gcp_batch *b)
{
	void *bufs[GAZE_GCP_SPAN];
	u64 first = 0;
	u32 i, g, n = 0;
	int ret = 0;

	b->err = 0;
	b->gap_blocks = 0;
	for (i = 0; i <= b->nr && !ret; i++) {
		const struct gaze_gcp_ent *e = i < b->nr ? &b->ent[i] : NULL;

		if (e && e->act == GAZE_GCP_NODE)
			continue;
		if (n && e && e->addr != first + n) {
			/* a short gap is read into the scratch block */
			g = gcp_gap(fs, b, first + n, e->addr, n);
			for (; g; g--) {
				bufs[n++] = b->gap;
				b->gap_blocks++;
			}
		}
		if (n && (!e || e->addr != first + n || n == GAZE_GCP_SPAN)) {
			ret = gaze_blocks_readv(fs, first, n, bufs);
			n = 0;
		}
		if (!e)
			break;
		if (!n)
			first = e->addr;
		bufs[n++] = e->buf;
	}
	b->err = ret;		/* prewrite hands it to the job, locked */
	return ret;
}

/* ---------------------------------------------------------------- */
/* Stage 3: prewrite                                                 */
/* ---------------------------------------------------------------- */

/* the entry's block is valid with the summary preread saw */
static int
gcp_still_valid(struct gaze_fs *fs, const struct gaze_gcp_ent *e, bool *ok)
{
	struct gaze_summary sum;
	bool valid;
	int ret;

	ret = gaze_space_block_owner(fs, e->addr, &valid, &sum);
	if (ret)
		return ret;
	*ok = valid && sum.type == e->sum.type && sum.nid == e->sum.nid &&
	      sum.ofs == e->sum.ofs;
	return 0;
}

/* node entry: still the imap's block of that nid -> dirty the node */
static int
gcp_node(struct gaze_fs *fs, struct gaze_gcp_ent *e)
{
	u32 nid = le32_to_cpu(e->sum.nid);
	struct gaze_mbuf *mb;
	u64 cur;
	int ret;

	e->act = GAZE_GCP_SKIP;
	ret = gaze_imap_get(fs, nid, &cur);
	if (ret || cur != e->addr)
		return ret;	/* moved meanwhile: nothing to do */
	ret = gaze_gc_node_get(fs, nid, e->buf, &mb);
	if (ret)
		return ret;
	gaze_mbuf_dirty(fs, mb);
	gaze_mbuf_put(fs, mb);
	fs->gc.nodes_moved++;
	return 0;
}

/*
 * Owner of a data entry, slot checked: *owner (ref held) and the slot
 * array, or *owner NULL when the slot no longer points at the block.
 */
static int
gcp_owner(struct gaze_fs *fs, const struct gaze_gcp_ent *e, void *tmp,
	  struct gaze_mbuf **owner, __le64 **addrs)
{
	u32 nid = le32_to_cpu(e->sum.nid), ofs = le16_to_cpu(e->sum.ofs);
	struct gaze_mbuf *mb;
	int ret;

	*owner = NULL;
	ret = gaze_gc_node_get(fs, nid, tmp, &mb);
	if (ret)
		return ret;
	if (ofs >= gaze_gc_owner_slots(mb)) {
		gaze_err("gc: block %llu: owner %u has no slot %u",
			 (unsigned long long)e->addr, nid, ofs);
		gaze_mbuf_put(fs, mb);
		return -EFSCORRUPTED;
	}
	*addrs = gaze_bmap_addrs(mb);
	if (le64_to_cpu((*addrs)[ofs]) != e->addr) {
		gaze_mbuf_put(fs, mb);	/* overwritten, punched, truncated */
		return 0;
	}
	*owner = mb;
	return 0;
}

/* data entry: classify as DATA (file), DIR (uncached dir block) or done */
static int
gcp_data(struct gaze_fs *fs, struct gaze_gcp_ent *e, void *tmp)
{
	struct gaze_mbuf *owner;
	__le64 *addrs;
	bool dir, done = false;
	int ret;

	ret = gcp_owner(fs, e, tmp, &owner, &addrs);
	if (ret || !owner) {
		e->act = GAZE_GCP_SKIP;
		return ret;
	}
	ret = gaze_gc_owner_is_dir(fs, owner, &dir);
	if (!ret && dir) {
		ret = gaze_gc_dir_block(fs, e->addr, e->buf, &done);
		e->act = done ? GAZE_GCP_SKIP : GAZE_GCP_DIR;
	}
	gaze_mbuf_put(fs, owner);
	if (ret)
		e->act = GAZE_GCP_SKIP;
	return ret;
}

int
gaze_gcp_prewrite(struct gaze_fs *fs, struct gaze_gcp_batch *b)
{
	struct gaze_gcp_job *job = b->job;
	u8 *tmp = NULL;
	bool ok;
	u32 i;
	int ret = 0;

	if (b->err && !job->err)
		job->err = b->err;
	if (job->err) {
		b->pw_next = 0;
		return job->err;
	}
	tmp = gaze_alloc(GAZE_BLOCK_SIZE);
	if (!tmp) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = b->pw_next; i < b->nr && !ret; i++) {
		struct gaze_gcp_ent *e = &b->ent[i];
		u8 act = e->act;

		ret = gcp_still_valid(fs, e, &ok);
		if (ret || !ok) {
			e->act = GAZE_GCP_SKIP;
		} else if (e->act == GAZE_GCP_NODE) {
			/* nodes carry no buffer: borrow the scratch block */
			e->buf = tmp;
			ret = gcp_node(fs, e);
			e->buf = NULL;
		} else {
			ret = gcp_data(fs, e, tmp);
		}
		if (ret == -GAZE_EMISS) {
			/* a miss comes before any change for the entry:
			 * the next try does it again */
			e->act = act;
			b->pw_next = i;
			goto out_free;
		}
	}
out:
	b->pw_next = 0;
	if (ret && !job->err)
		job->err = ret;
out_free:
	gaze_free(tmp);
	return ret;
}

/*
 * After a try of preread or prewrite with fs->miss = m: whether it named
 * a miss, which is then read with fs->lock let go.  A try that got
 * further than the last one starts the count of tries again: the count
 * (GAZE_MISS_TRIES) bounds tries that make no progress, not a batch of
 * 64 owners that are each read once.
 */
static bool
gcp_fetch(struct gaze_fs *fs, struct gaze_miss *m, int ret, bool progress)
{
	fs->miss = NULL;
	if (ret != -GAZE_EMISS)
		return false;
	if (progress)
		m->tries = 0;
	mutex_unlock(&fs->lock);
	gaze_miss_fetch(fs, m, ret);
	mutex_lock(&fs->lock);
	gaze_stat_inc(fs, GAZE_STAT_GC_COLD);
	return true;
}

/* where stage 1 (pre) or 3 stands: preread's cursor and entries,
 * prewrite's next entry */
static u32
gcp_at(const struct gaze_gcp_job *job, const struct gaze_gcp_batch *b,
       bool pre)
{
	return pre ? job->cursor + b->nr : b->pw_next;
}

/*
 * Stage 1 (pre) or 3 with fs->miss set, a miss fetched after each try
 * that names one; a try moved gcp_at on: progress, for gcp_fetch
 */
static int
gcp_run_unlocked(struct gaze_fs *fs, struct gaze_gcp_job *job,
		 struct gaze_gcp_batch *b, u32 max, bool pre)
{
	struct gaze_miss m;
	u32 at, last = gcp_at(job, b, pre);
	int ret;

	gaze_miss_init(&m);
	for (;;) {
		if (fs->flags & GAZE_FS_RDONLY) {
			b->pr_more = false;
			b->pw_next = 0;
			ret = -EROFS;
			break;
		}
		fs->miss = &m;
		ret = pre ? gaze_gcp_preread(fs, job, b, max) :
			    gaze_gcp_prewrite(fs, b);
		at = gcp_at(job, b, pre);
		if (!gcp_fetch(fs, &m, ret, at != last))
			break;
		last = at;
	}
	gaze_miss_exit(&m);
	return ret;
}

int
gaze_gcp_preread_unlocked(struct gaze_fs *fs, struct gaze_gcp_job *job,
			  struct gaze_gcp_batch *b, u32 max)
{
	return gcp_run_unlocked(fs, job, b, max, true);
}

int
gaze_gcp_prewrite_unlocked(struct gaze_fs *fs, struct gaze_gcp_batch *b)
{
	return gcp_run_unlocked(fs, b->job, b, 0, false);
}

/* ---------------------------------------------------------------- */
/* Stage 4: write                                                    */
/* ---------------------------------------------------------------- */

/*
 * Re-checks entry e under the lock of the move: *owner (ref held) when
 * its block is still valid, same owner, slot pointing at it, and (for a
 * directory block) not cached now -- a cached one is re-dirtied here.
 */
static int
gcp_recheck(struct gaze_fs *fs, struct gaze_gcp_ent *e, void *tmp,
	    struct gaze_mbuf **owner, __le64 **addrs)
{
	const struct gaze_mhdr *h = e->buf;
	struct gaze_mbuf *mb;
	bool ok;
	int ret;

	*owner = NULL;
	ret = gcp_still_valid(fs, e, &ok);
	if (ret || !ok)
		return ret;
	if (e->act == GAZE_GCP_DIR) {
		mb = gaze_mbuf_lookup(fs, GAZE_MB_FBLK, le32_to_cpu(h->ino),
				      le32_to_cpu(h->index));
		if (mb) {
			gaze_mbuf_dirty(fs, mb);
			gaze_mbuf_put(fs, mb);
			return 0;
		}
	}
	return gcp_owner(fs, e, tmp, owner, addrs);
}

static int
gcp_alloc(struct gaze_fs *fs, struct gaze_gcp_batch *b,
	  struct gaze_gcp_move *m)
{
	struct gaze_gcp_ent *e;
	struct gaze_mbuf *owner;
	struct gaze_mhdr *h;
	__le64 *slots;
	u32 i, k;
	int ret = 0;

	for (i = 0; i < b->nr && !ret; i++) {
		e = &b->ent[i];
		if (e->act != GAZE_GCP_DATA && e->act != GAZE_GCP_DIR)
			continue;
		k = m->n;
		ret = gcp_recheck(fs, e, m->tmp, &owner, &slots);
		if (ret || !owner)
			continue;
		gaze_mbuf_put(fs, owner);
		ret = gaze_block_alloc(fs, GAZE_LOG_DATA_COLD,
				       le32_to_cpu(e->sum.nid),
				       le16_to_cpu(e->sum.ofs), GAZE_SUM_DATA,
				       &m->naddr[k]);
		if (ret)
			break;
		if (e->act == GAZE_GCP_DIR) {
			h = e->buf;
			h->blkaddr = cpu_to_le64(m->naddr[k]);
			h->seq = cpu_to_le64(fs->cp_seq + 1);
			gaze_fmt_csum_set(e->buf);
		}
		m->bufs[k] = e->buf;
		m->idx[k] = i;
		m->n++;
	}
	return ret;
}

int
gaze_gcp_write_begin(struct gaze_fs *fs, struct gaze_gcp_batch *b)
{
	struct gaze_gcp_job *job = b->job;
	struct gaze_gcp_move *m;
	u32 zb = fs->dev->zone_blocks;
	int ret;

	b->move = NULL;
	if (job->err)
		return job->err;
	gaze_gcp_settle(fs);	/* one move in flight at a time */
	m = gaze_zalloc(sizeof(*m));
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	m->b = b;
	ret = gcp_alloc(fs, b, m);
	if (ret || !m->n) {
		while (m->n)
			gaze_block_invalidate(fs, m->naddr[--m->n]);
		gaze_free(m);
		goto out;
	}
	m->zone_lo = (u32)(m->naddr[0] / zb);
	m->zone_hi = (u32)(m->naddr[m->n - 1] / zb);
	mutex_lock(&fs->gcw_lock);
	fs->gcw = m;
	b->move = m;
	gaze_stat_inc(fs, GAZE_STAT_GCW);
out:
	if (ret && !job->err)
		job->err = ret;
	return ret;
}

void
gaze_gcp_write_io(struct gaze_fs *fs, struct gaze_gcp_batch *b)
{
	struct gaze_gcp_move *m = b->move;

	if (!m)
		return;
	m->io_err = gaze_blocks_write_runs_dev(fs, m->naddr, m->n, m->bufs,
					       &m->io_fail);
	mutex_unlock(&fs->gcw_lock);
}

/* points the owners' slots at the copies the device now has */
static void
gcp_commit(struct gaze_fs *fs, struct gaze_gcp_move *m)
{
	struct gaze_gcp_job *job = m->b->job;
	struct gaze_gcp_ent *e;
	struct gaze_mbuf *owner;
	__le64 *slots;
	u32 i;
	int ret = m->io_err, err;

	if (ret)
		gaze_space_write_failed(fs, m->io_fail);
	for (i = 0; i < m->n; i++) {
		e = &m->b->ent[m->idx[i]];
		owner = NULL;
		if (!ret) {
			/* checked again: the lock was let go for the write */
			err = gcp_recheck(fs, e, m->tmp, &owner, &slots);
			if (err)
				ret = err;
		}
		if (!owner) {
			gaze_block_invalidate(fs, m->naddr[i]);
			continue;
		}
		slots[le16_to_cpu(e->sum.ofs)] = cpu_to_le64(m->naddr[i]);
		gaze_mbuf_dirty(fs, owner);
		gaze_mbuf_put(fs, owner);
		err = gaze_block_invalidate(fs, e->addr);
		if (err && !ret)
			ret = err;
		fs->gc.data_moved++;
		job->moved++;
	}
	if (ret && !job->err)
		job->err = ret;
}

void
gaze_gcp_settle(struct gaze_fs *fs)
{
	struct gaze_gcp_move *m = fs->gcw;

	if (!m)
		return;
	/* the device write ends without fs->lock: wait for it */
	mutex_lock(&fs->gcw_lock);
	mutex_unlock(&fs->gcw_lock);
	fs->gcw = NULL;
	gcp_commit(fs, m);
}

void
gaze_gcp_log_wait(struct gaze_fs *fs, u32 li)
{
	const struct gaze_gcp_move *m = fs->gcw;

	if (!m || !m->n ||
	    (u32)gaze_log_of_type(fs, GAZE_LOG_DATA_COLD) != li)
		return;
	/* the zone takes its writes in order: this one first */
	if (!mutex_trylock(&fs->gcw_lock)) {
		gaze_stat_inc(fs, GAZE_STAT_GCW_WAIT);
		mutex_lock(&fs->gcw_lock);
	}
	mutex_unlock(&fs->gcw_lock);
}

int
gaze_gcp_write_end(struct gaze_fs *fs, struct gaze_gcp_batch *b)
{
	struct gaze_gcp_move *m = b->move;
	struct gaze_gcp_job *job = b->job;

	if (!m)
		return job->err;
	b->move = NULL;
	if (fs->gcw == m)
		gaze_gcp_settle(fs);
	gaze_free(m);
	return job->err;
}

int
gaze_gcp_write(struct gaze_fs *fs, struct gaze_gcp_batch *b)
{
	int ret;

	ret = gaze_gcp_write_begin(fs, b);
	if (ret)
		return ret;
	gaze_gcp_write_io(fs, b);
	return gaze_gcp_write_end(fs, b);
}

int
gaze_gcp_end(struct gaze_fs *fs, struct gaze_gcp_job *job)
{
	struct gaze_zone_use u = { 0 };
	u64 moved = job->moved;
	int ret = job->err;

	if (!ret)
		ret = gaze_fs_flush_dirty(fs);
	if (!ret)
		ret = gaze_space_zone_use(fs, job->zone, &u);
	if (!ret && (u.valid || u.state != GAZE_ZS_PREFREE)) {
		/* something became valid here that preread passed: not GC's */
		gaze_err("gc: zone %u still has %u valid blocks after moving",
			 job->zone, u.valid);
		ret = -EFSCORRUPTED;
	}
	if (!ret) {
		fs->gc.zones_reclaimed++;
		if (gaze_gc_why_fg(job->why))
			fs->gc.zones_fg++;
		gaze_gc_count_cp(fs, 1, moved);
		gaze_gc_count_freed(fs, moved, job->why);
	}
	gaze_gc_account_zone(fs, gaze_time_ns() - job->t0, !ret);
	fs->gcp_zone[job->slot] = GAZE_GCP_NONE;
	fs->gcp_gain[job->slot] = 0;
	gaze_space_publish(fs);
	if (!job->err)
		job->err = ret;
	return ret;
}
