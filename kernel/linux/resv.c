// SPDX-License-Identifier: GPL-2.0
/*
 * resv.c - selective blocking: buffered writes keep being accepted while
 * GC runs, against write reservations (the core's gaze_resv_get, rules in
 * kernel/core/space.c "Write reservations").
 *
 * selective_blocking=1 (default).  write_begin reserves one block for a
 * page that is neither dirty nor reserved yet (in a file with compressed
 * clusters, a hold on its cluster: below, gaze_resv_cl_*), before the
 * data is copied:
 *   0        the page is marked reserved (folio private = GAZE_RESV_*);
 *   -ENOSPC  the write fails at write() (nothing was copied);
 *   -EAGAIN  the space exists only once GC frees it: the writer counts as
 *            blocked, kicks the GC thread (gaze_bggc_kick), runs a
 *            reclaim itself when none is in flight (sbi->gc_running ==
 *            0; through the pipeline when gc_pipeline is on, else the
 *            baseline foreground GC), and waits on sbi->gc_progress (with
 *            a timeout) before retrying.  When a round made no room and
 *            no GC is under way, it writes back what the reservations
 *            hold (gaze_resv_gc_idle).  After GAZE_RESV_MAX_ROUNDS it
 *            takes the reservation on the logical rule alone: writeback
 *            runs foreground GC too, so the data is still safe.
 * Dirty cap: while the reserved pages exceed dirty_limit_pct of RAM, the
 * writer writes back its own file, then asks the flusher for the others,
 * and waits (counted as blocked) until under the cap.
 *
 * An overwrite (the page's block is mapped on disk, or preallocated by
 * fallocate, maybe past EOF) does not grow the filesystem, so it passes
 * the logical rule; anything else (holes, inline files) reserves as new.
 * Asking the core whether a block is mapped takes fs->lock, which
 * writeback holds across its device writes, so it is asked only when the
 * page would fail the logical rule as new (gaze_resv_get_page): both
 * kinds count the same in
 * fs->resv_blocks, and the answer matters only near a full filesystem.
 * A shared writable mapping reserves the same way in page_mkwrite
 * (file.c).
 *
 * The reservation is given back exactly once, by whoever clears the mark:
 * writeback of the page succeeded or failed for good (file.c, calling
 * gaze_resv_release with the page locked), the page was invalidated
 * whole (truncate, punch, eviction: invalidate_folio), or a clean
 * reserved page is reclaimed (release_folio).  Migration moves the mark
 * with the page (filemap_migrate_folio).
 *
 * selective_blocking=0 (the baseline): a writer waits, counted as
 * blocked, as long as any reclaim runs (sbi->gc_running > 0), like
 * F2FS's writers wait for its GC; then it reserves on the logical rule
 * alone (as F2FS counts a block at write_begin): no pacing by GC
 * progress (-EAGAIN) and no dirty cap.  Without that logical
 * reservation the fill-to-full test (tests/vm/kmod-resv.sh) sees
 * accepted writes fail with ENOSPC at fsync.
 *
 * Locking and deadlocks: a writer waits holding i_rwsem (and freeze
 * protection) only: never a page lock, never fs->lock, never
 * fs->resv_lock.  Writeback needs page locks and fs->lock, never
 * i_rwsem, so it always progresses while writers wait; GC needs fs->lock
 * only.  The reservation is taken before the page is locked and attached
 * once it is; if the page turned out to be reserved already it is given
 * back.  fs->resv_lock is a spinlock held only around gaze_resv_get/put.
 * The waits have timeouts and are killable, and a frozen filesystem
 * (no GC step runs) is left after GAZE_RESV_MAX_ROUNDS.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/wait.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include "gaze_kern.h"
#include "gaze_ioctl.h"

/* folio->private of a page holding a reservation */
#define GAZE_RESV_NEW		((void *)1UL)
#define GAZE_RESV_OVER		((void *)2UL)
/* a page of a file with clusters: its cluster holds the blocks */
#define GAZE_RESV_CL		((void *)3UL)

#define GAZE_RESV_WAIT		(HZ / 20)
#define GAZE_RESV_MAX_ROUNDS	200	/* x GAZE_RESV_WAIT: 10 s */
#define GAZE_RESV_DEF_PCT	20

void gaze_resv_init(struct gaze_sb_info *sbi)
{
	u32 pct = le32_to_cpu(sbi->fs->sb.dirty_limit_pct);

	init_waitqueue_head(&sbi->gc_progress);
	init_waitqueue_head(&sbi->gc_wait);
	atomic_set(&sbi->gc_running, 0);
	spin_lock_init(&sbi->blocked_lock);
	sbi->sb_dirty_pct = pct >= 1 && pct <= 90 ? pct : GAZE_RESV_DEF_PCT;
	sbi->selective = sbi->opts.selective_blocking;
	sbi->dirty_pct = sbi->opts.dirty_limit ? sbi->opts.dirty_limit :
			 sbi->sb_dirty_pct;
}

static bool gaze_resv_marked(struct folio *folio)
{
	void *p = folio_get_private(folio);

	return p == GAZE_RESV_NEW || p == GAZE_RESV_OVER || p == GAZE_RESV_CL;
}

/*
 * Files with compressed clusters.  Writeback stores a whole cluster, and
 * rewriting a packed one can take up to all of the cluster's blocks
 * (incompressible data where compressible data was), so a block per
 * dirtied page would not cover it.  Instead the cluster holds the
 * reservation: while any of its pages is marked GAZE_RESV_CL (dirty, or
 * about to be), the cluster holds its size in blocks, taken by the page
 * that finds no hold on it and given back with the last mark.  A count
 * per cluster lives in the inode (gi->resv_cl, an xarray of counts
 * under its own lock): the hold outlives a store of the cluster while
 * other pages of it are still marked, so a store that finds its cluster
 * smaller cannot hand the blocks it freed to another writer before the
 * cluster is stored again.
 *
 * The hold is taken as new, which needs the whole cluster free on the
 * logical rule; as an overwrite (no logical check) only when the cluster
 * cannot grow (gaze_file_cluster_room: a plain cluster with every slot
 * mapped).  A packed cluster is thus refused near a full filesystem even
 * where the data would compress again, as ZFS counts a write at its
 * uncompressed size; before refusing, the writer writes back its own
 * file once or twice, which gives back holds of clusters already dirty.
 * The dirty cap counts the holds too.  The cluster size is the inode's
 * (gi->cl_log), which the core sets once and never changes, so a mark
 * is given back to the cluster it was taken for.
 */
static u32 gaze_resv_cl_log(struct inode *inode)
{
	return READ_ONCE(GAZE_I(inode)->cl_log);
}

/* one more page on cluster cl's hold, if it has one */
static bool gaze_resv_cl_ref(struct xarray *xa, unsigned long cl)
{
	void *v;

	xa_lock(xa);
	v = xa_load(xa, cl);
	if (v)
		__xa_store(xa, cl, xa_mk_value(xa_to_value(v) + 1),
			   GFP_NOWAIT);
	xa_unlock(xa);
	return v != NULL;
}

/*
 * The caller took the cluster's blocks: they become its hold (0), or a
 * hold appeared meanwhile and the page joined it (1: give them back)
 */
static int gaze_resv_cl_hold(struct xarray *xa, unsigned long cl)
{
	int ret;

	for (;;) {
		ret = xa_insert(xa, cl, xa_mk_value(1), GFP_NOFS);
		if (ret != -EBUSY)
			return ret;
		if (gaze_resv_cl_ref(xa, cl))
			return 1;
	}
}

/* one page less on cluster cl's hold: true when it was the last */
static bool gaze_resv_cl_unref(struct xarray *xa, unsigned long cl)
{
	unsigned long n = 0;
	void *v;

	xa_lock(xa);
	v = xa_load(xa, cl);
	if (v)
		n = xa_to_value(v);
	if (n > 1)
		__xa_store(xa, cl, xa_mk_value(n - 1), GFP_NOWAIT);
	else if (n)
		__xa_erase(xa, cl);
	xa_unlock(xa);
	WARN_ON_ONCE(!n);
	return n == 1;
}

static void gaze_resv_put_sb(struct gaze_sb_info *sbi, u32 nr);

/* gives back page index's part of its cluster's hold */
static void gaze_resv_cl_drop(struct inode *inode, pgoff_t index)
{
	u32 log = gaze_resv_cl_log(inode);

	if (gaze_resv_cl_unref(&GAZE_I(inode)->resv_cl, index >> log))
		gaze_resv_put_sb(GAZE_SB(inode->i_sb), 1u << log);
}

/* evict, after the page cache is gone: every hold went with its pages */
void gaze_resv_evict(struct inode *inode)
{
	WARN_ON_ONCE(!xa_empty(&GAZE_I(inode)->resv_cl));
	xa_destroy(&GAZE_I(inode)->resv_cl);
}

static void gaze_resv_put_sb(struct gaze_sb_info *sbi, u32 nr)
{
	struct gaze_fs *fs = READ_ONCE(sbi->fs);

	spin_lock(&fs->resv_lock);
	gaze_resv_put(fs, nr);
	spin_unlock(&fs->resv_lock);
	if (wq_has_sleeper(&sbi->gc_progress))
		wake_up_all(&sbi->gc_progress);
}

/* the folio is locked (or being freed): gives its reservation back */
void gaze_resv_release(struct folio *folio)
{
	struct inode *inode = folio->mapping ? folio->mapping->host : NULL;

	if (!inode || !gaze_resv_marked(folio))
		return;
	if (folio_detach_private(folio) == GAZE_RESV_CL)
		gaze_resv_cl_drop(inode, folio->index);
	else
		gaze_resv_put_sb(GAZE_SB(inode->i_sb), 1);
}

void gaze_invalidate_folio(struct folio *folio, size_t offset, size_t len)
{
	if (offset == 0 && len == folio_size(folio))
		gaze_resv_release(folio);
}

bool gaze_release_folio(struct folio *folio, gfp_t gfp)
{
	if (folio_test_dirty(folio) || folio_test_writeback(folio))
		return false;
	gaze_resv_release(folio);
	return !folio_test_private(folio);
}

static void gaze_resv_account(struct gaze_sb_info *sbi, u64 ns)
{
	spin_lock(&sbi->blocked_lock);
	sbi->writers_blocked++;
	sbi->blocked_ns_total += ns;
	if (ns > sbi->blocked_ns_max)
		sbi->blocked_ns_max = ns;
	spin_unlock(&sbi->blocked_lock);
}

void gaze_gc_running_begin(struct gaze_sb_info *sbi)
{
	atomic_inc(&sbi->gc_running);
}

void gaze_gc_running_end(struct gaze_sb_info *sbi)
{
	atomic_dec(&sbi->gc_running);
	wake_up_all(&sbi->gc_progress);	/* done, and zones may be free */
}

/* the baseline: writes wait while GC runs */
static int gaze_resv_wait_gc(struct gaze_sb_info *sbi)
{
	u64 t0;
	long left;

	if (!atomic_read(&sbi->gc_running))
		return 0;
	t0 = ktime_get_ns();
	do {
		left = wait_event_killable_timeout(sbi->gc_progress,
				!atomic_read(&sbi->gc_running),
				GAZE_RESV_WAIT);
		if (left < 0)
			break;
	} while (atomic_read(&sbi->gc_running));
	gaze_resv_account(sbi, ktime_get_ns() - t0);
	return left < 0 ? (int)left : 0;
}

static u64 gaze_resv_cap(struct gaze_sb_info *sbi)
{
	return (u64)totalram_pages() * READ_ONCE(sbi->dirty_pct) / 100;
}

static bool gaze_resv_over_cap(struct gaze_sb_info *sbi, struct gaze_fs *fs)
{
	return READ_ONCE(fs->resv_blocks) >= gaze_resv_cap(sbi);
}

/*
 * Does page index of the inode replace a block already on disk (cl: can
 * its cluster not grow)?
 */
static bool gaze_resv_overwrite(struct inode *inode, pgoff_t index, bool cl)
{
	unsigned int nofs;
	u64 addr;
	u32 nr;
	int ret;

	nofs = gaze_nofs_begin();
	if (cl)
		ret = gaze_file_cluster_room(GAZE_FS(inode->i_sb),
					     inode->i_ino, index, &nr);
	else
		ret = gaze_file_map(GAZE_FS(inode->i_sb), inode->i_ino, index,
				    1, &addr, &nr);
	gaze_nofs_end(nofs);
	if (cl)
		return !ret && !nr;
	return !ret && nr && addr != GAZE_NULL_ADDR;
}

/*
 * Foreground GC asked for the blocks the reservations need beyond the
 * free zones (the log room and in-flight gain count too); fs->lock.
 */
static u64 gaze_resv_need(struct gaze_fs *fs)
{
	u64 uf, phys, zones, have, extra, need;
	u32 floor = gaze_space_user_floor(fs);

	gaze_resv_snapshot(fs, &uf, &phys);
	zones = (u64)gaze_space_free_zones(fs) + gaze_space_nr_prefree(fs);
	have = zones > floor ? (zones - floor) * le32_to_cpu(fs->sb.zone_cap) :
	       0;
	extra = phys > have ? phys - have : 0;	/* log room + gain */
	need = READ_ONCE(fs->resv_blocks) + 1;
	return need > extra ? need - extra : 1;
}

/*
 * The baseline's foreground GC (gcpolicy.c) a victim or a checkpoint per
 * hold of fs->lock, so that no task waits on the lock for more than one
 * zone's move (on zones of a gigabyte a whole run took minutes, and the
 * hung-task detector fired).  Writers wait while it runs when selective
 * blocking is off (gc_running).  Errors are left to the core's own
 * balance in the write that follows, which meets them again.  rest:
 * need is a writeback batch's blocks, and the run is the rest of its
 * room after the pipeline's reclaims (gaze_wb_room_rest).
 *
 * With selective blocking on, the pipeline off and a GC thread, the
 * writer steps only up to the fg level; the batch beyond it is the GC
 * thread's, while writers go on (gaze_gc_fg_handoff).  Stepped by the
 * writer, the batch would keep one fsync waiting for several zones'
 * moves (minutes at 32 x 1 GiB under TCG).  The baseline (selective
 * blocking off) keeps the whole run in the writer: its writers wait for
 * GC anyway.
 *
 * gc_thread is read without s_umount: a thread stopped after this read
 * leaves the batch in fs->gc_fg_rest unstepped, which costs nothing
 * (the next writer's run starts from the zones as they are then).
 */
static bool gaze_resv_may_hand_off(struct gaze_sb_info *sbi)
{
	return READ_ONCE(sbi->selective) && READ_ONCE(sbi->gc_thread) &&
	       !gaze_gcp_active(sbi);
}

static void gaze_resv_fg_steps(struct gaze_sb_info *sbi, struct gaze_fs *fs,
			       u64 need, bool rest)
{
	struct gaze_gc_fg_run r;
	unsigned int nofs;
	bool done = false;
	bool start;
	int ret = 0;

	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	if (rest)
		start = gaze_wb_room_rest(fs, need,
					  atomic_read(&sbi->gc_running), &r);
	else
		start = gaze_gc_fg_start(fs, need, &r);
	if (!start)
		goto out_unlock;
	if (!rest && gaze_resv_may_hand_off(sbi)) {
		gaze_gc_fg_handoff(fs, &r);
		if (fs->gc_fg_rest_on)
			gaze_bggc_kick(sbi);	/* beside this writer */
	}
	gaze_gc_running_begin(sbi);
	for (;;) {
		fs->gc_active = true;
		ret = gaze_gc_fg_step(fs, &r, &done);
		fs->gc_active = false;
		gaze_space_publish(fs);
		if (ret || done)
			break;
		mutex_unlock(&fs->lock);
		wake_up_all(&sbi->gc_progress);
		cond_resched();
		mutex_lock(&fs->lock);
	}
	gaze_gc_running_end(sbi);
out_unlock:
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
}

/*
 * A reclaim now, in the writer (no page lock held), when none runs: the
 * best foreground victim through the pipeline when it runs (fs->lock is
 * held per batch only, so other writers' writeback goes on; the emptied
 * zone counts for the physical rule as soon as it is PREFREE), else, or
 * when no victim is worth a pipelined move, the baseline's foreground GC
 * a step at a time (which settles PREFREE zones and, when nothing else
 * lets writers on, takes a GAZE_GC_LAST victim).
 */
static void gaze_resv_reclaim(struct gaze_sb_info *sbi, struct gaze_fs *fs)
{
	u64 need;
	int ret;

	gaze_bggc_kick(sbi);
	if (atomic_read(&sbi->gc_running))
		return;
	if (gaze_gcp_active(sbi)) {
		ret = gaze_gcp_reclaim(sbi, GAZE_GCP_ANY, GAZE_GC_FG, NULL,
				       NULL);
		if (ret != -ENOENT && ret != -EAGAIN && ret != -ENOSPC)
			return;		/* done, busy, or its error logged */
	}
	mutex_lock(&fs->lock);
	need = gaze_resv_need(fs);
	mutex_unlock(&fs->lock);
	gaze_resv_fg_steps(sbi, fs, need, false);
}

/*
 * Writeback room, before a batch's blocks go to the core (whose own
 * foreground GC is the baseline mover under fs->lock, while every other
 * writeback and GC stage waits).  Without the pipeline: the baseline's
 * foreground GC a step at a time (gaze_resv_fg_steps).  With it, the
 * core's gaze_wb_room_step decides, on two levels (gcpolicy.c
 * gaze_gc_levels, published by space.c):
 *  - when no reclaim is in flight and the room counting the gain of the
 *    jobs in flight is short of the GC's wb level (gaze_space_wb_short),
 *    it kicks the GC thread and starts a reclaim of the best foreground
 *    victim that nobody waits for (gcpipe.c gaze_gcp_reclaim_async),
 *    at most GAZE_WB_ROOM_JOBS for one batch;
 *  - it waits only while the room without their gain, less the zones
 *    they may still open, is short of the fg level, where the core's
 *    own foreground GC would start (gaze_space_fg_short), and reclaims
 *    are in flight: until they make that room or end (30 s at most).
 *    So the pipeline moves while writeback writes, and the core's mover
 *    does not run beside jobs in flight (it would hold fs->lock, which
 *    their stages need).  A victim not worth a move (-ENOENT) ends it.
 *  - when the wait runs out with jobs still in flight, what they did
 *    not make the baseline's foreground GC moves a step at a time, as
 *    much as the core's balance in the write would (gaze_wb_room_rest),
 *    so that the stages are not kept from fs->lock for a whole zone.
 * Called when a writeback batch begins (file.c gaze_wb_room_unlocked),
 * with no folio locked, so that neither writers nor another writeback
 * of the pages the batch would gather (the flusher beside an fsync of
 * the same file) wait here on a folio lock; on 1 GiB zones the
 * baseline's run here lasts minutes.
 */
#define GAZE_WB_ROOM_WAITS	600	/* x GAZE_RESV_WAIT: 30 s */

/* the steps of gaze_resv_wb_room with the pipeline on */
static void gaze_resv_wb_pipelined(struct gaze_sb_info *sbi,
				   struct gaze_fs *fs, u32 nr)
{
	unsigned int jobs = 0, waits = 0;
	bool may_start = true;
	int ret;

	for (;;) {
		switch (gaze_wb_room_step(fs, nr,
					  atomic_read(&sbi->gc_running),
					  may_start &&
					  jobs < GAZE_WB_ROOM_JOBS)) {
		case GAZE_WB_START:
			jobs++;
			gaze_bggc_kick(sbi);
			ret = gaze_gcp_reclaim_async(sbi, GAZE_GCP_ANY,
						     GAZE_GC_FG);
			/* started: its gain counts now; refused: may wait */
			if (ret && !gaze_wb_room_busy(ret))
				return;	/* nothing worth it, or an error */
			may_start = !ret;
			break;
		case GAZE_WB_WAIT:
			if (waits++ >= GAZE_WB_ROOM_WAITS)
				return;
			may_start = true;
			wait_event_timeout(sbi->gc_progress,
					   gaze_wb_room_step(fs, nr,
						atomic_read(&sbi->gc_running),
						false) != GAZE_WB_WAIT,
					   GAZE_RESV_WAIT);
			break;
		default:
			return;
		}
	}
}

void gaze_resv_wb_room(struct gaze_sb_info *sbi, u32 nr)
{
	struct gaze_fs *fs = READ_ONCE(sbi->fs);

	if (!gaze_gcp_active(sbi)) {
		gaze_resv_fg_steps(sbi, fs, (u64)nr + 2, false);
		return;
	}
	/*
	 * When the wait runs out with reclaims still in flight and the room
	 * short (with the page pool off one reclaim of a 2 GiB zone takes
	 * minutes), the core's balance in the write would move what is
	 * missing in one hold of fs->lock while the stages of those jobs
	 * wait for the lock (237 s at 16 x 2 GiB, doc/testing.md).  It is
	 * moved here a step at a time, and the core's balance then has
	 * nothing left to do.  With no job in flight no stage waits, and
	 * the core decides (gaze_wb_room_rest).
	 */
	gaze_resv_wb_pipelined(sbi, fs, nr);
	/* the published room first, without the lock: most batches go on */
	if (gaze_space_fg_short(fs, nr))
		gaze_resv_fg_steps(sbi, fs, nr, true);
}

/*
 * Writeback's ENOSPC while reclaims run is often their timing, not a full
 * filesystem: the pages hold reservations on the logical rule, and the
 * zones the core lacks are the ones a job in flight is emptying (its
 * victim is pinned, so the core's own foreground GC cannot take it), or
 * PREFREE ones the next checkpoints settle.  Data integrity writeback
 * (file.c gaze_writepages) kicks the GC, makes room as writeback does,
 * waits for the reclaims in flight and tries again.  A round that ends
 * with no reclaim in flight is a try (GAZE_WB_ENOSPC_TRIES of them: the
 * space is not coming); a round that ends with one still running only
 * waited for it, however slow the machine, up to GAZE_WB_ENOSPC_WAITS
 * rounds (60 s) in all.
 */
#define GAZE_WB_ENOSPC_TRIES	40
#define GAZE_WB_ENOSPC_WAITS	1200	/* x GAZE_RESV_WAIT */

bool gaze_resv_enospc_wait(struct gaze_sb_info *sbi,
			   struct gaze_enospc_wait *w)
{
	if (w->tries >= GAZE_WB_ENOSPC_TRIES ||
	    w->waits >= GAZE_WB_ENOSPC_WAITS)
		return false;
	gaze_bggc_kick(sbi);
	gaze_resv_wb_room(sbi, 1);
	wait_event_timeout(sbi->gc_progress, !atomic_read(&sbi->gc_running),
			   GAZE_RESV_WAIT);
	if (atomic_read(&sbi->gc_running))
		w->waits++;
	else
		w->tries++;
	return true;
}

/*
 * Writes back what the reservations hold: the writer's own file, then
 * the others through the flusher when that was not enough.  cap: for
 * the dirty cap, the others while still over it.  Else for a writer the
 * physical rule refuses while GC cannot make the room
 * (gaze_resv_gc_idle), the others when its file had no dirty page: the
 * pages' room is counted by that rule, so their writeback proceeds, and
 * it turns reservations into written blocks, fills the open zones and
 * invalidates what overwrites replace, so GC has victims again (as
 * btrfs flushes delalloc for a reservation ticket).
 */
static void gaze_resv_flush(struct gaze_sb_info *sbi, struct inode *inode,
			    bool cap)
{
	bool own = mapping_tagged(inode->i_mapping, PAGECACHE_TAG_DIRTY);

	filemap_fdatawrite(inode->i_mapping);
	if (cap ? gaze_resv_over_cap(sbi, READ_ONCE(sbi->fs)) : !own)
		try_to_writeback_inodes_sb(inode->i_sb, WB_REASON_FS_FREE_SPACE);
}

/*
 * GC under way: a reclaim in flight or a step running, or a zone the
 * baseline's mover has half moved (hints, read without fs->lock).  A
 * batch waiting for the GC thread is not: a writer short of a
 * reservation hands one off at each retry, whether victims are left or
 * not, and each zone it empties grows the room, which the caller sees.
 */
static bool gaze_resv_gc_busy(struct gaze_sb_info *sbi, struct gaze_fs *fs)
{
	return atomic_read(&sbi->gc_running) || READ_ONCE(fs->gc_mv.zone);
}

/*
 * The physical rule refused a writer again after a round of reclaim and
 * wait: is GC out of ways to make the room?  Yes when reservations are
 * held, the published room did not grow since the last round (*seen;
 * U64_MAX on the first) and no GC is under way.  Then the room is taken
 * by the reservations themselves: their pages are new data for the free
 * zones, or their garbage sits in the logs' open zones, which are no
 * victims until they fill, and they fill only when those pages are
 * written.  GC waits for writeback then, and dirty pages below the
 * flusher's thresholds are not written back by anyone else.
 */
static bool gaze_resv_gc_idle(struct gaze_sb_info *sbi, struct gaze_fs *fs,
			      u64 *seen)
{
	u64 uf, phys;
	bool idle;

	gaze_resv_snapshot(fs, &uf, &phys);
	idle = *seen != U64_MAX && phys <= *seen &&
	       READ_ONCE(fs->resv_blocks) && !gaze_resv_gc_busy(sbi, fs);
	*seen = phys;
	return idle;
}

/* may the writer go on?  (the wait condition) */
static bool gaze_resv_may_go(struct gaze_sb_info *sbi, struct gaze_fs *fs,
			     bool cap, u32 nr)
{
	u64 uf, phys;

	if (cap)
		return !gaze_resv_over_cap(sbi, fs);
	gaze_resv_snapshot(fs, &uf, &phys);
	return READ_ONCE(fs->resv_blocks) + nr <= phys;
}

/*
 * One try at a reservation of nr blocks for page index (cl: for its
 * cluster), under the physical rule too when physical: as new first, as
 * an overwrite only if that is refused on the logical rule and the block
 * is mapped (the cluster cannot grow).  *over: what it took (set only on
 * success).
 */
static int gaze_resv_get_page(struct inode *inode, pgoff_t index, u32 nr,
			      bool cl, bool physical, void **over)
{
	struct gaze_fs *fs = GAZE_FS(inode->i_sb);
	bool ow = false;
	int ret;

	for (;;) {
		spin_lock(&fs->resv_lock);
		ret = physical ? gaze_resv_get(fs, nr, ow) :
		      gaze_resv_get_logical(fs, nr, ow);
		spin_unlock(&fs->resv_lock);
		if (ret != -ENOSPC || ow ||
		    !gaze_resv_overwrite(inode, index, cl))
			break;
		ow = true;
	}
	if (!ret)
		*over = cl ? GAZE_RESV_CL : ow ? GAZE_RESV_OVER : GAZE_RESV_NEW;
	return ret;
}

/*
 * A cluster's hold refused on the logical rule: the holds of the file's
 * other dirty clusters may be what fills it.  Writes the file back (no
 * page lock held, i_rwsem is: writeback never takes it), once per try,
 * while any reservation is outstanding.
 */
#define GAZE_RESV_CL_FLUSHES	2

static bool gaze_resv_cl_flush(struct inode *inode, unsigned int *tries)
{
	if (*tries >= GAZE_RESV_CL_FLUSHES ||
	    !READ_ONCE(GAZE_FS(inode->i_sb)->resv_blocks))
		return false;
	(*tries)++;
	filemap_write_and_wait(inode->i_mapping);
	return true;
}

/*
 * Takes a reservation of nr blocks for page index (cl: for its cluster;
 * no page lock held; may wait).  *over is what it took: GAZE_RESV_NEW,
 * GAZE_RESV_OVER or GAZE_RESV_CL.
 */
static int gaze_resv_take(struct inode *inode, pgoff_t index, u32 nr,
			  bool cl, void **over)
{
	struct gaze_sb_info *sbi = GAZE_SB(inode->i_sb);
	struct gaze_fs *fs;
	unsigned int rounds = 0, flushes = 0;
	u64 t0 = 0, seen = U64_MAX;
	long left;
	bool cap;
	int ret;

	for (;;) {
		fs = READ_ONCE(sbi->fs);
		cap = gaze_resv_over_cap(sbi, fs);
		if (!cap || rounds >= GAZE_RESV_MAX_ROUNDS) {
			ret = gaze_resv_get_page(inode, index, nr, cl,
						 rounds < GAZE_RESV_MAX_ROUNDS,
						 over);
			if (ret == -ENOSPC && cl &&
			    gaze_resv_cl_flush(inode, &flushes))
				continue;
			if (ret != -EAGAIN)
				break;
		}
		if (!t0)
			t0 = ktime_get_ns();
		if (cap) {
			gaze_resv_flush(sbi, inode, true);
		} else {
			gaze_resv_reclaim(sbi, fs);
			if (gaze_resv_gc_idle(sbi, fs, &seen))
				gaze_resv_flush(sbi, inode, false);
		}
		left = wait_event_killable_timeout(sbi->gc_progress,
				gaze_resv_may_go(sbi, fs, cap, nr),
				GAZE_RESV_WAIT);
		if (left < 0) {
			ret = (int)left;
			break;
		}
		rounds++;
	}
	if (t0)
		gaze_resv_account(sbi, ktime_get_ns() - t0);
	return ret;
}

/* write_begin, before the page is locked: a reservation to take? */
static bool gaze_resv_wanted(struct address_space *mapping, pgoff_t index)
{
	struct folio *folio = gaze_get_folio(mapping, index);
	bool want;

	if (!folio)
		return true;
	want = !folio_test_dirty(folio) && !gaze_resv_marked(folio);
	folio_put(folio);
	return want;
}

/* page index of a file with clusters: a hold on its cluster */
static int gaze_resv_cl_begin(struct inode *inode, pgoff_t index,
			      bool selective, void **held)
{
	struct xarray *xa = &GAZE_I(inode)->resv_cl;
	u32 log = gaze_resv_cl_log(inode);
	unsigned int flushes = 0;
	int ret;

	if (gaze_resv_cl_ref(xa, index >> log)) {
		*held = GAZE_RESV_CL;
		return 0;
	}
	if (selective) {
		ret = gaze_resv_take(inode, index, 1u << log, true, held);
	} else {
		do {
			ret = gaze_resv_get_page(inode, index, 1u << log, true,
						 false, held);
		} while (ret == -ENOSPC && gaze_resv_cl_flush(inode, &flushes));
	}
	if (ret)
		return ret;
	ret = gaze_resv_cl_hold(xa, index >> log);
	if (ret) {
		/* joined a hold made meanwhile, or no memory for one */
		gaze_resv_put_sb(GAZE_SB(inode->i_sb), 1u << log);
		if (ret < 0)
			*held = NULL;
	}
	return ret < 0 ? ret : 0;
}

int gaze_resv_write_begin(struct address_space *mapping, pgoff_t index,
			  void **held)
{
	struct inode *inode = mapping->host;
	struct gaze_sb_info *sbi = GAZE_SB(inode->i_sb);
	bool selective = READ_ONCE(sbi->selective);
	int ret;

	*held = NULL;
	if (!selective) {
		ret = gaze_resv_wait_gc(sbi);
		if (ret)
			return ret;
	}
	if (!gaze_resv_wanted(mapping, index))
		return 0;
	if (gaze_resv_cl_log(inode))
		return gaze_resv_cl_begin(inode, index, selective, held);
	if (!selective)
		/* the logical rule only (as F2FS counts a block at
		 * write_begin), no pacing by GC progress nor dirty cap */
		return gaze_resv_get_page(inode, index, 1, false, false, held);
	return gaze_resv_take(inode, index, 1, false, held);
}

/* gives back *held, the reservation taken for page index */
static void gaze_resv_put_held(struct inode *inode, pgoff_t index,
			       void *held)
{
	if (held == GAZE_RESV_CL)
		gaze_resv_cl_drop(inode, index);
	else if (held)
		gaze_resv_put_sb(GAZE_SB(inode->i_sb), 1);
}

int gaze_resv_attach(struct folio *folio, void **held)
{
	struct inode *inode = folio->mapping->host;

	if (*held) {
		if (!gaze_resv_marked(folio) && !folio_test_private(folio))
			folio_attach_private(folio, *held);
		else
			gaze_resv_put_held(inode, folio->index, *held);
		*held = NULL;
		return 0;
	}
	/* cleaned by writeback since the look: reserve again */
	if (!folio_test_dirty(folio) && !gaze_resv_marked(folio))
		return -EAGAIN;
	return 0;
}

void gaze_resv_drop(struct inode *inode, pgoff_t index, void **held)
{
	gaze_resv_put_held(inode, index, *held);
	*held = NULL;
}

int gaze_resv_tune(struct gaze_sb_info *sbi, const char *name, u64 *val,
		   bool set)
{
	if (!strcmp(name, "selective_blocking")) {
		if (!set) {
			*val = READ_ONCE(sbi->selective);
			return 0;
		}
		if (*val > 1)
			return -ERANGE;
		WRITE_ONCE(sbi->selective, (bool)*val);
		/* writers waiting for GC under the baseline may go */
		wake_up_all(&sbi->gc_progress);
		return 0;
	}
	if (!strcmp(name, "dirty_limit_pct")) {
		if (!set) {
			*val = READ_ONCE(sbi->dirty_pct);
			return 0;
		}
		if (*val < 1 || *val > 90)
			return -ERANGE;
		WRITE_ONCE(sbi->dirty_pct, (unsigned int)*val);
		wake_up_all(&sbi->gc_progress);
		return 0;
	}
	return -ENOENT;
}

void gaze_resv_stats(struct gaze_sb_info *sbi, struct gaze_ioc_gc_stats *st,
		     bool reset)
{
	struct gaze_fs *fs = READ_ONCE(sbi->fs);

	spin_lock(&sbi->blocked_lock);
	st->writers_blocked = sbi->writers_blocked;
	st->blocked_ns_total = sbi->blocked_ns_total;
	st->blocked_ns_max = sbi->blocked_ns_max;
	if (reset) {
		sbi->writers_blocked = 0;
		sbi->blocked_ns_total = 0;
		sbi->blocked_ns_max = 0;
	}
	spin_unlock(&sbi->blocked_lock);
	st->reserved_now = READ_ONCE(fs->resv_blocks);
	st->selective_blocking = READ_ONCE(sbi->selective);
}
