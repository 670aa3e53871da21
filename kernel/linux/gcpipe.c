// SPDX-License-Identifier: GPL-2.0
/*
 * gcpipe.c - the pipelined garbage collector's threads and the GC page
 * pool (the core's staged GC API: gaze_gcp_* in core/gcpipe.c).
 *
 * Four kernel threads per read-write mount, gaze_gcp_<stage>-<dev>:
 *
 *   preread   takes a begun job, calls gaze_gcp_preread under fs->lock
 *             for a batch of up to GAZE_GCP_BATCH valid blocks (table
 *             blocks it does not find cached read with the lock let
 *             go: gaze_gcp_preread_unlocked), then
 *             gives the batch's data entries pages from the pool (waiting
 *             when it is empty: the pool bounds the blocks in flight)
 *   read      gaze_gcp_read WITHOUT fs->lock (device reads only)
 *   prewrite  gaze_gcp_prewrite under fs->lock, owner nodes and table
 *             blocks it does not find cached read with the lock let go
 *             (gaze_gcp_prewrite_unlocked)
 *   write     gaze_gcp_write_begin and _end under fs->lock, the device
 *             write between them without it; after a job's last batch
 *             also gaze_gcp_end; then the pages go back to the pool
 *
 * Between two stages a bounded FIFO of batches (gc_queue_depth, 1..64):
 * a stage waits for input, and for room in the next queue.  The batches
 * of consecutive jobs (up to GAZE_GCP_MAX_JOBS zones) follow each other
 * through the stages, so the stages of different batches and zones
 * overlap.  A job whose error is set (job->err by the core, gj->err
 * here: a failed read, the submitter killed, the filesystem shut down)
 * drains: later stages pass its batches on without calling the core,
 * and gaze_gcp_end returns the error.
 *
 * The page pool: gc_pool_blocks pages allocated at mount (superblock
 * gc_pool_blocks, 0: GAZE_GCP_POOL_DEFAULT) kept on a free stack (a plain
 * array of struct page *), never in the page cache.  gc_pool=0 instead
 * gives every block a new page inserted into a private address_space
 * (index = block address) and removed after the write: the page-cache
 * based GC the pool is compared with.  The time both take is counted.
 *
 * Locking: gcp->lock (spinlock) protects the job list, the queues, the
 * counters of jobs and batches, the pool's free stack and the
 * statistics; it is never held across a core call or a sleep.  fs->lock
 * is taken by the stages as said above, never with gcp->lock held.
 * gcp->resize (mutex) serialises pool resizing.
 *
 * Lifetime: gaze_gcp_init at fill_super (pool, private inode) and
 * gaze_gcp_exit at put_super; gaze_gcp_start / gaze_gcp_stop start and
 * stop the threads on read-write instances (with the background GC
 * thread).  Jobs are submitted by callers holding write access
 * (sb_start_write), or by writeback (gaze_gcp_reclaim_async, whose jobs
 * nobody waits for), so freeze_fs waits for those still in flight
 * (gaze_gcp_drain) and nothing is written while frozen; stop refuses
 * new jobs and waits for those in flight.
 */
#include <linux/kthread.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/timekeeping.h>
#include "gaze_kern.h"
#include "gaze_ioctl.h"

#define GAZE_GCP_STAGES		4
#define GAZE_GCP_DEPTH_DEF	4
#define GAZE_GCP_POOL_DEFAULT	1024		/* 4 MiB */
#define GAZE_GCP_POOL_MAX	1048576		/* 4 GiB, as mkfs.gaze --gc-pool */

static const char *const gaze_gcp_stage_name[GAZE_GCP_STAGES] = {
	"preread", "read", "prewrite", "write"
};

/* a job as the module tracks it */
struct gaze_gcp_mjob {
	struct gaze_gcp_job	job;	/* the core's; fs->lock */
	struct gaze_fs		*fs;
	struct list_head	link;	/* gcp->jobs until fully fed */
	u32			inflight; /* batches past preread; gcp->lock */
	bool			fed;	/* preread is done with it; gcp->lock */
	int			err;	/* our first error; gcp->lock */
	int			ret;	/* gaze_gcp_end's result */
	bool			detached; /* nobody waits: freed at its end */
	struct completion	done;
};

/* a batch and the pages of its entries */
struct gaze_gcp_mbatch {
	struct gaze_gcp_batch	b;
	struct page		*pg[GAZE_GCP_BATCH];
	bool			cached[GAZE_GCP_BATCH];
	bool			from_pool;
};

struct gaze_gcp_stage {
	u64	busy_ns, wait_ns, items;
	u32	qdepth_max;
};

struct gaze_gcp {
	struct gaze_sb_info	*sbi;
	spinlock_t		lock;
	wait_queue_head_t	wq;	/* any change below */
	struct list_head	jobs;	/* preread's input */
	u32			njobs;	/* begun and not ended */
	bool			stopping;
	bool			running;
	struct list_head	q[GAZE_GCP_STAGES - 1];	/* inputs of 1..3 */
	u32			qlen[GAZE_GCP_STAGES - 1];
	struct task_struct	*thr[GAZE_GCP_STAGES];
	struct gaze_gcp_stage	st[GAZE_GCP_STAGES];
	/* pool: free stack pages[0..nfree), nr pages owned, want target */
	struct mutex		resize;
	struct page		**pages;
	u32			cap, nfree, nr, want;
	u64			used_max, alloc_ns, cache_ns, pages_gc;
	/* gc_pool=0: the private mapping */
	struct inode		*inode;
	/* the read stage's scratch block for gaps (its thread only) */
	struct page		*gap;
	u64			gap_blocks;	/* gap blocks read; lock */
};

struct gaze_gcp_thread_arg {
	struct gaze_gcp		*gcp;
	int			stage;
};

static inline u64 gaze_gcp_now(void)
{
	return ktime_get_ns();
}

/* ---------------------------------------------------------------- */
/* page pool                                                         */
/* ---------------------------------------------------------------- */

/* grows the free stack's array to hold n pages (resize mutex held) */
static int gaze_gcp_pool_array(struct gaze_gcp *g, u32 n)
{
	struct page **na, **old;

	if (n <= g->cap)
		return 0;
	na = kvcalloc(n, sizeof(*na), GFP_KERNEL);
	if (!na)
		return -ENOMEM;
	spin_lock(&g->lock);
	memcpy(na, g->pages, g->nfree * sizeof(*na));
	old = g->pages;
	g->pages = na;
	g->cap = n;
	spin_unlock(&g->lock);
	kvfree(old);
	return 0;
}

/* pool size to n pages: allocates now, frees idle ones now, the rest as
 * they come back */
static int gaze_gcp_pool_resize(struct gaze_gcp *g, u32 n)
{
	struct page *pg;
	int ret = 0;

	mutex_lock(&g->resize);
	ret = gaze_gcp_pool_array(g, n);
	if (ret)
		goto out;
	spin_lock(&g->lock);
	g->want = n;
	while (g->nr < n) {
		spin_unlock(&g->lock);
		pg = alloc_page(GFP_KERNEL);
		spin_lock(&g->lock);
		if (!pg) {
			ret = -ENOMEM;
			break;
		}
		g->pages[g->nfree++] = pg;
		g->nr++;
	}
	while (g->nr > g->want && g->nfree) {
		pg = g->pages[--g->nfree];
		g->nr--;
		spin_unlock(&g->lock);
		__free_page(pg);
		spin_lock(&g->lock);
	}
	if (ret)
		g->want = g->nr;
	spin_unlock(&g->lock);
	wake_up_all(&g->wq);
out:
	mutex_unlock(&g->resize);
	return ret;
}

static bool gaze_gcp_pool_avail(struct gaze_gcp *g)
{
	bool ok;

	spin_lock(&g->lock);
	ok = g->nfree > 0;
	spin_unlock(&g->lock);
	return ok;
}

/* one page from the pool, waiting for one (counted as waiting) */
static struct page *gaze_gcp_pool_get(struct gaze_gcp *g, u64 *wait)
{
	struct page *pg = NULL;
	u64 t;

	for (;;) {
		t = gaze_gcp_now();
		spin_lock(&g->lock);
		if (g->nfree) {
			pg = g->pages[--g->nfree];
			if (g->nr - g->nfree > g->used_max)
				g->used_max = g->nr - g->nfree;
			g->alloc_ns += gaze_gcp_now() - t;
			g->pages_gc++;
		}
		spin_unlock(&g->lock);
		if (pg)
			return pg;
		wait_event(g->wq, gaze_gcp_pool_avail(g));
		*wait += gaze_gcp_now() - t;
	}
}

static void gaze_gcp_pool_put(struct gaze_gcp *g, struct page *pg)
{
	spin_lock(&g->lock);
	if (g->nr > g->want || g->nfree >= g->cap) {
		g->nr--;
		spin_unlock(&g->lock);
		__free_page(pg);
		return;
	}
	g->pages[g->nfree++] = pg;
	spin_unlock(&g->lock);
}

/* gc_pool=0: a fresh page in the private page cache at index addr */
static struct page *gaze_gcp_cache_get(struct gaze_gcp *g, u64 addr,
				       bool *cached)
{
	struct address_space *m = g->inode->i_mapping;
	struct folio *folio;
	struct page *pg;
	u64 t0, t1, t2;

	t0 = gaze_gcp_now();
	pg = alloc_page(GFP_NOFS);
	t1 = gaze_gcp_now();
	*cached = false;
	if (!pg)
		goto out;
	folio = page_folio(pg);
	if (!filemap_add_folio(m, folio, (pgoff_t)addr, GFP_NOFS)) {
		folio_unlock(folio);
		*cached = true;
	}
out:
	t2 = gaze_gcp_now();
	spin_lock(&g->lock);
	g->alloc_ns += t1 - t0;
	g->cache_ns += t2 - t1;
	if (pg)
		g->pages_gc++;
	spin_unlock(&g->lock);
	return pg;
}

static void gaze_gcp_cache_put(struct gaze_gcp *g, struct page *pg,
			       bool cached)
{
	struct address_space *m = g->inode->i_mapping;
	u64 t0 = gaze_gcp_now();

	if (cached) {
		lock_page(pg);
		if (pg->mapping == m)
			gaze_remove_folio(m, page_folio(pg));
		unlock_page(pg);
	}
	put_page(pg);
	spin_lock(&g->lock);
	g->cache_ns += gaze_gcp_now() - t0;
	spin_unlock(&g->lock);
}

/* pages for the entries that are read (act != NODE); -ENOMEM */
static int gaze_gcp_bufs_get(struct gaze_gcp *g, struct gaze_gcp_mbatch *mb,
			     u64 *wait)
{
	u32 i;

	mb->from_pool = READ_ONCE(g->sbi->gc_pool);
	for (i = 0; i < mb->b.nr; i++) {
		struct gaze_gcp_ent *e = &mb->b.ent[i];

		if (e->act == GAZE_GCP_NODE)
			continue;
		if (mb->from_pool)
			mb->pg[i] = gaze_gcp_pool_get(g, wait);
		else
			mb->pg[i] = gaze_gcp_cache_get(g, e->addr,
						       &mb->cached[i]);
		if (!mb->pg[i])
			return -ENOMEM;
		e->buf = page_address(mb->pg[i]);
	}
	return 0;
}

static void gaze_gcp_bufs_put(struct gaze_gcp *g, struct gaze_gcp_mbatch *mb)
{
	u32 i;

	for (i = 0; i < GAZE_GCP_BATCH; i++) {
		if (!mb->pg[i])
			continue;
		if (mb->from_pool)
			gaze_gcp_pool_put(g, mb->pg[i]);
		else
			gaze_gcp_cache_put(g, mb->pg[i], mb->cached[i]);
		mb->pg[i] = NULL;
	}
	wake_up_all(&g->wq);
}

/* ---------------------------------------------------------------- */
/* queues                                                            */
/* ---------------------------------------------------------------- */

static void gaze_gcp_account(struct gaze_gcp *g, int s, u64 busy, u64 wait,
			     u64 items)
{
	spin_lock(&g->lock);
	g->st[s].busy_ns += busy;
	g->st[s].wait_ns += wait;
	g->st[s].items += items;
	spin_unlock(&g->lock);
}

/* input of stage s (1..3) has a batch, or the thread should stop */
static bool gaze_gcp_has_input(struct gaze_gcp *g, int s)
{
	bool ok;

	spin_lock(&g->lock);
	ok = !list_empty(&g->q[s - 1]);
	spin_unlock(&g->lock);
	return ok || kthread_should_stop();
}

/* next batch for stage s, NULL when stopping with nothing queued */
static struct gaze_gcp_mbatch *gaze_gcp_pop(struct gaze_gcp *g, int s,
					    u64 *wait)
{
	struct gaze_gcp_batch *b = NULL;
	u64 t = gaze_gcp_now();

	for (;;) {
		spin_lock(&g->lock);
		if (!list_empty(&g->q[s - 1])) {
			b = list_first_entry(&g->q[s - 1],
					     struct gaze_gcp_batch, link);
			list_del(&b->link);
			g->qlen[s - 1]--;
		}
		spin_unlock(&g->lock);
		if (b)
			break;
		if (kthread_should_stop())
			break;
		wait_event_interruptible(g->wq, gaze_gcp_has_input(g, s));
	}
	*wait += gaze_gcp_now() - t;
	if (b)
		wake_up_all(&g->wq);	/* room for the stage before */
	return b ? container_of(b, struct gaze_gcp_mbatch, b) : NULL;
}

static u32 gaze_gcp_depth(struct gaze_gcp *g)
{
	u32 d = READ_ONCE(g->sbi->gc_queue_depth);

	return d ? d : GAZE_GCP_DEPTH_DEF;
}

static bool gaze_gcp_has_room(struct gaze_gcp *g, int s)
{
	bool ok;

	spin_lock(&g->lock);
	ok = g->qlen[s] < gaze_gcp_depth(g);
	spin_unlock(&g->lock);
	return ok;
}

/* hands a batch from stage s to stage s + 1, waiting for room */
static void gaze_gcp_push(struct gaze_gcp *g, int s,
			  struct gaze_gcp_mbatch *mb, u64 *wait)
{
	u64 t = gaze_gcp_now();

	for (;;) {
		spin_lock(&g->lock);
		if (g->qlen[s] < gaze_gcp_depth(g)) {
			list_add_tail(&mb->b.link, &g->q[s]);
			g->qlen[s]++;
			if (g->qlen[s] > g->st[s + 1].qdepth_max)
				g->st[s + 1].qdepth_max = g->qlen[s];
			spin_unlock(&g->lock);
			break;
		}
		spin_unlock(&g->lock);
		wait_event(g->wq, gaze_gcp_has_room(g, s));
	}
	*wait += gaze_gcp_now() - t;
	wake_up_all(&g->wq);
}

/* ---------------------------------------------------------------- */
/* jobs                                                              */
/* ---------------------------------------------------------------- */

static struct gaze_gcp_mjob *MJOB(struct gaze_gcp_batch *b)
{
	return container_of(b->job, struct gaze_gcp_mjob, job);
}

static void gaze_gcp_set_err(struct gaze_gcp *g, struct gaze_gcp_mjob *j,
			     int err)
{
	spin_lock(&g->lock);
	if (!j->err)
		j->err = err;
	spin_unlock(&g->lock);
}

/* the job's batches should be skipped (fs->lock held for job.err) */
static bool gaze_gcp_failed(struct gaze_gcp *g, struct gaze_gcp_mjob *j)
{
	bool bad;

	spin_lock(&g->lock);
	bad = j->err != 0;
	spin_unlock(&g->lock);
	return bad || READ_ONCE(j->job.err);
}

/* after the last batch (fs->lock held): end, count, tell the waiter */
static void gaze_gcp_job_end(struct gaze_gcp *g, struct gaze_gcp_mjob *j)
{
	struct gaze_sb_info *sbi = g->sbi;
	int err;

	spin_lock(&g->lock);
	err = j->err;
	spin_unlock(&g->lock);
	if (err && !j->job.err)
		j->job.err = err;
	j->ret = gaze_gcp_end(j->fs, &j->job);
	spin_lock(&g->lock);
	g->njobs--;
	spin_unlock(&g->lock);
	if (j->detached) {
		if (j->ret && j->ret != -ENOENT && j->ret != -EBUSY)
			pr_warn_ratelimited("gaze: %s: gc of zone %u: %d\n",
					    sbi->sb->s_id, j->job.zone, j->ret);
		kfree(j);
	} else {
		complete(&j->done);	/* j may be gone after this */
	}
	gaze_gc_running_end(sbi);	/* wakes gc_progress */
	wake_up_all(&g->wq);
}

/* ---------------------------------------------------------------- */
/* the stages                                                        */
/* ---------------------------------------------------------------- */

static bool gaze_gcp_has_job(struct gaze_gcp *g)
{
	bool ok;

	spin_lock(&g->lock);
	ok = !list_empty(&g->jobs);
	spin_unlock(&g->lock);
	return ok || kthread_should_stop();
}

/* stage 1: one batch of the oldest job still being scanned */
static void gaze_gcp_preread_one(struct gaze_gcp *g, struct gaze_gcp_mjob *j,
				 u64 *wait)
{
	struct gaze_gcp_mbatch *mb;
	struct gaze_fs *fs = j->fs;
	unsigned int nofs;
	bool done, last;
	u64 t0;
	int ret;

	mb = kzalloc(sizeof(*mb), GFP_NOFS);
	t0 = gaze_gcp_now();
	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	if (!mb)
		ret = -ENOMEM;
	else if (fs->flags & GAZE_FS_RDONLY)
		ret = -EROFS;
	else if (gaze_gcp_failed(g, j))
		ret = 0;		/* drain: feed nothing more */
	else
		ret = gaze_gcp_preread_unlocked(fs, &j->job, &mb->b,
						GAZE_GCP_BATCH);
	if (ret && !j->job.err)
		j->job.err = ret;
	done = ret || gaze_gcp_failed(g, j) || !mb->b.nr || j->job.scanned;
	spin_lock(&g->lock);
	if (mb && mb->b.nr && !ret)
		j->inflight++;
	if (done) {
		j->fed = true;
		list_del_init(&j->link);
	}
	last = j->fed && !j->inflight;
	spin_unlock(&g->lock);
	if (last)
		gaze_gcp_job_end(g, j);
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
	if (!mb)
		return;
	if (ret || !mb->b.nr || last) {
		gaze_gcp_account(g, 0, gaze_gcp_now() - t0, 0, 0);
		kfree(mb);
		return;
	}
	mb->b.job = &j->job;
	ret = gaze_gcp_bufs_get(g, mb, wait);
	if (ret)
		gaze_gcp_set_err(g, j, ret);
	gaze_gcp_account(g, 0, gaze_gcp_now() - t0 - *wait, 0, mb->b.nr);
	gaze_gcp_push(g, 0, mb, wait);
}

static int gaze_gcp_preread_thread(struct gaze_gcp *g)
{
	struct gaze_gcp_mjob *j;
	u64 wait;

	while (!kthread_should_stop()) {
		spin_lock(&g->lock);
		j = list_first_entry_or_null(&g->jobs, struct gaze_gcp_mjob,
					     link);
		spin_unlock(&g->lock);
		if (!j) {
			wait_event_interruptible(g->wq, gaze_gcp_has_job(g));
			continue;	/* idle time is not counted */
		}
		wait = 0;
		gaze_gcp_preread_one(g, j, &wait);
		gaze_gcp_account(g, 0, 0, wait, 0);
	}
	return 0;
}

/*
 * The write stage, fs->lock held on entry and on return: the copies go
 * to the device with the lock let go (gaze_gcp_write_begin, _io, _end
 * in the core), so the namespace and writeback wait only for the
 * checks and the commit around it.
 */
static int gaze_gcp_write_unlocked(struct gaze_fs *fs,
				   struct gaze_gcp_batch *b)
{
	int ret;

	ret = gaze_gcp_write_begin(fs, b);
	if (ret || !b->move)
		return ret;
	mutex_unlock(&fs->lock);
	gaze_gcp_write_io(fs, b);
	mutex_lock(&fs->lock);
	return gaze_gcp_write_end(fs, b);
}

/* stages 2..4 on one batch; returns the time it worked.  *written: the
 * batch left the write stage (and its job may have ended: do not touch
 * the job after this) */
static u64 gaze_gcp_stage_run(struct gaze_gcp *g, int s,
			      struct gaze_gcp_mbatch *mb, bool *written)
{
	struct gaze_gcp_mjob *j = MJOB(&mb->b);
	struct gaze_fs *fs = j->fs;
	u64 t0 = gaze_gcp_now();
	unsigned int nofs;
	bool last;
	int ret = 0;

	*written = false;
	if (s == 1) {
		mb->b.gap = page_address(g->gap);
		mb->b.gap_max = READ_ONCE(g->sbi->gc_read_gap);
		if (!gaze_gcp_failed(g, j))
			ret = gaze_gcp_read(fs, &mb->b);
		mb->b.gap = NULL;
		if (ret)
			gaze_gcp_set_err(g, j, ret);
		spin_lock(&g->lock);
		g->gap_blocks += mb->b.gap_blocks;
		spin_unlock(&g->lock);
		return gaze_gcp_now() - t0;
	}
	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	if (fs->flags & GAZE_FS_RDONLY)
		gaze_gcp_set_err(g, j, -EROFS);
	if (!gaze_gcp_failed(g, j)) {
		if (s == 2)
			ret = gaze_gcp_prewrite_unlocked(fs, &mb->b);
		else
			ret = gaze_gcp_write_unlocked(fs, &mb->b);
		if (ret)
			gaze_gcp_set_err(g, j, ret);
	}
	if (s == 3) {
		spin_lock(&g->lock);
		j->inflight--;
		last = j->fed && !j->inflight;
		spin_unlock(&g->lock);
		if (last)
			gaze_gcp_job_end(g, j);
		*written = true;
	}
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
	return gaze_gcp_now() - t0;
}

static u32 gaze_gcp_items(int s, struct gaze_gcp_mbatch *mb)
{
	return s == 1 ? mb->b.nbuf : mb->b.nr;
}

static int gaze_gcp_stage_thread(struct gaze_gcp *g, int s)
{
	struct gaze_gcp_mbatch *mb;
	bool written, active;
	u64 wait, busy;
	u32 n;

	for (;;) {
		wait = 0;
		/* waiting for the first batch after idling is not counted */
		spin_lock(&g->lock);
		active = g->njobs > 0;
		spin_unlock(&g->lock);
		mb = gaze_gcp_pop(g, s, &wait);
		if (!mb)
			break;
		if (!active)
			wait = 0;
		n = gaze_gcp_items(s, mb);
		busy = gaze_gcp_stage_run(g, s, mb, &written);
		if (written) {
			gaze_gcp_bufs_put(g, mb);
			kfree(mb);
			wake_up_all(&g->sbi->gc_progress);
		} else {
			gaze_gcp_push(g, s, mb, &wait);
		}
		gaze_gcp_account(g, s, busy, wait, n);
	}
	return 0;
}

static int gaze_gcp_thread(void *data)
{
	struct gaze_gcp_thread_arg *a = data;
	struct gaze_gcp *g = a->gcp;
	int s = a->stage;

	kfree(a);
	if (!s)
		return gaze_gcp_preread_thread(g);
	return gaze_gcp_stage_thread(g, s);
}

/* ---------------------------------------------------------------- */
/* submitting and waiting                                            */
/* ---------------------------------------------------------------- */

struct gaze_gcp_mjob *gaze_gcp_submit(struct gaze_sb_info *sbi,
				      struct gaze_fs *fs, u32 zone, int why)
{
	struct gaze_gcp *g = sbi->gcp;
	struct gaze_gcp_mjob *j;
	int ret;

	lockdep_assert_held(&fs->lock);
	if (!g)
		return ERR_PTR(-EAGAIN);
	j = kzalloc(sizeof(*j), GFP_NOFS);
	if (!j)
		return ERR_PTR(-ENOMEM);
	spin_lock(&g->lock);
	if (g->stopping || !g->running) {
		spin_unlock(&g->lock);
		kfree(j);
		return ERR_PTR(-EAGAIN);
	}
	g->njobs++;		/* stop waits for it from here on */
	spin_unlock(&g->lock);
	ret = gaze_gcp_begin(fs, zone, why, &j->job);
	if (ret) {
		spin_lock(&g->lock);
		g->njobs--;
		spin_unlock(&g->lock);
		wake_up_all(&g->wq);
		kfree(j);
		return ERR_PTR(ret);
	}
	j->fs = fs;
	init_completion(&j->done);
	gaze_gc_running_begin(sbi);
	spin_lock(&g->lock);
	list_add_tail(&j->link, &g->jobs);
	if (g->njobs > g->st[0].qdepth_max)
		g->st[0].qdepth_max = g->njobs;
	spin_unlock(&g->lock);
	wake_up_all(&g->wq);
	return j;
}

int gaze_gcp_wait(struct gaze_sb_info *sbi, struct gaze_gcp_mjob *j,
		  u32 *victim, u64 *moved)
{
	int ret;

	if (wait_for_completion_killable(&j->done)) {
		gaze_gcp_set_err(sbi->gcp, j, -EINTR);
		wait_for_completion(&j->done);
	}
	ret = j->ret;
	if (victim)
		*victim = j->job.zone;
	if (moved)
		*moved = j->job.moved;
	kfree(j);
	return ret;
}

/*
 * Takes fs->lock and submits.  detached: nobody waits for the job, which
 * frees itself at its end and only logs an error (gaze_gcp_job_end);
 * the flag is set under fs->lock, which gaze_gcp_job_end holds, so the
 * job cannot end first, and the caller must not touch it afterwards.
 */
static struct gaze_gcp_mjob *gaze_gcp_submit_one(struct gaze_sb_info *sbi,
						 u32 zone, int why,
						 bool detached)
{
	struct gaze_fs *fs = READ_ONCE(sbi->fs);
	struct gaze_gcp_mjob *j;
	unsigned int nofs;

	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	j = gaze_gcp_submit(sbi, fs, zone, why);
	if (!IS_ERR(j))
		j->detached = detached;
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
	return j;
}

int gaze_gcp_reclaim(struct gaze_sb_info *sbi, u32 zone, int why,
		     u32 *victim, u64 *moved)
{
	struct gaze_gcp_mjob *j = gaze_gcp_submit_one(sbi, zone, why, false);

	if (IS_ERR(j))
		return PTR_ERR(j);
	return gaze_gcp_wait(sbi, j, victim, moved);
}

/* writeback reclaiming ahead (resv.c) */
int gaze_gcp_reclaim_async(struct gaze_sb_info *sbi, u32 zone, int why)
{
	return PTR_ERR_OR_ZERO(gaze_gcp_submit_one(sbi, zone, why, true));
}

static bool gaze_gcp_idle(struct gaze_gcp *g)
{
	bool ok;

	spin_lock(&g->lock);
	ok = !g->njobs;
	spin_unlock(&g->lock);
	return ok;
}

/* waits until no job is in flight (freeze; new ones are the caller's
 * to prevent) */
void gaze_gcp_drain(struct gaze_sb_info *sbi)
{
	struct gaze_gcp *g = sbi->gcp;

	if (g)
		wait_event(g->wq, gaze_gcp_idle(g));
}

bool gaze_gcp_active(struct gaze_sb_info *sbi)
{
	struct gaze_gcp *g = sbi->gcp;
	bool ok;

	if (!g || !READ_ONCE(sbi->gc_pipeline))
		return false;
	spin_lock(&g->lock);
	ok = g->running && !g->stopping;
	spin_unlock(&g->lock);
	return ok;
}

/* ---------------------------------------------------------------- */
/* tunables and statistics                                           */
/* ---------------------------------------------------------------- */

int gaze_gcp_set_pool_blocks(struct gaze_sb_info *sbi, u64 v)
{
	if (!sbi->gcp)
		return -EAGAIN;
	return gaze_gcp_pool_resize(sbi->gcp, (u32)v);
}

u64 gaze_gcp_pool_blocks(struct gaze_sb_info *sbi)
{
	struct gaze_gcp *g = sbi->gcp;
	u64 n;

	if (!g)
		return 0;
	spin_lock(&g->lock);
	n = g->want;
	spin_unlock(&g->lock);
	return n;
}

void gaze_gcp_stats(struct gaze_sb_info *sbi, struct gaze_ioc_gc_stats *st,
		    bool reset)
{
	struct gaze_gcp *g = sbi->gcp;
	int i;

	st->pipeline = READ_ONCE(sbi->gc_pipeline);
	st->pool = READ_ONCE(sbi->gc_pool);
	if (!g)
		return;
	spin_lock(&g->lock);
	for (i = 0; i < GAZE_GCP_STAGES; i++) {
		st->stage[i].busy_ns = g->st[i].busy_ns;
		st->stage[i].wait_ns = g->st[i].wait_ns;
		st->stage[i].items = g->st[i].items;
		st->stage[i].qdepth_max = g->st[i].qdepth_max;
	}
	st->pool_blocks = g->nr;
	st->pool_used_max = g->used_max;
	st->pool_used = g->nr - g->nfree;
	st->pool_alloc_ns = g->alloc_ns;
	st->pool_cache_ns = g->cache_ns;
	st->pages_gc = g->pages_gc;
	st->gap_blocks = g->gap_blocks;
	if (reset) {
		g->gap_blocks = 0;
		memset(g->st, 0, sizeof(g->st));
		g->used_max = g->nr - g->nfree;
		g->alloc_ns = 0;
		g->cache_ns = 0;
		g->pages_gc = 0;
	}
	spin_unlock(&g->lock);
}

/* ---------------------------------------------------------------- */
/* lifetime                                                          */
/* ---------------------------------------------------------------- */

static const struct address_space_operations gaze_gcp_aops = {
	.dirty_folio	= noop_dirty_folio,
};

int gaze_gcp_init(struct gaze_sb_info *sbi)
{
	struct gaze_fs *fs = sbi->fs;
	u64 want = le64_to_cpu(fs->sb.gc_pool_blocks);
	u32 depth = le32_to_cpu(fs->sb.gc_queue_depth);
	struct gaze_gcp *g;
	struct inode *inode;
	int i, ret;

	sbi->gc_pipeline = sbi->opts.gc_pipeline;
	sbi->gc_read_gap = GAZE_GCP_GAP;
	sbi->gc_pool = sbi->opts.gc_pool;
	sbi->gc_queue_depth = depth >= 1 && depth <= 64 ? depth :
			      GAZE_GCP_DEPTH_DEF;
	if (!want)
		want = GAZE_GCP_POOL_DEFAULT;
	want = clamp_t(u64, want, GAZE_GCP_BATCH, GAZE_GCP_POOL_MAX);
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->gap = alloc_page(GFP_KERNEL);
	if (!g->gap) {
		kfree(g);
		return -ENOMEM;
	}
	g->sbi = sbi;
	spin_lock_init(&g->lock);
	init_waitqueue_head(&g->wq);
	INIT_LIST_HEAD(&g->jobs);
	for (i = 0; i < GAZE_GCP_STAGES - 1; i++)
		INIT_LIST_HEAD(&g->q[i]);
	mutex_init(&g->resize);
	inode = new_inode(sbi->sb);
	if (!inode) {
		__free_page(g->gap);
		kfree(g);
		return -ENOMEM;
	}
	/* never hashed, never linked to the namespace; nlink stays 1 */
	inode->i_ino = 0;
	inode->i_mode = S_IFREG;
	inode->i_mapping->a_ops = &gaze_gcp_aops;
	mapping_set_gfp_mask(inode->i_mapping, GFP_NOFS);
	g->inode = inode;
	sbi->gcp = g;
	ret = gaze_gcp_pool_resize(g, (u32)want);
	if (ret) {
		gaze_gcp_exit(sbi);
		return ret;
	}
	return 0;
}

void gaze_gcp_exit(struct gaze_sb_info *sbi)
{
	struct gaze_gcp *g = sbi->gcp;

	if (!g)
		return;
	gaze_gcp_stop(sbi);
	/* every page is back: no job is left */
	WARN_ON(g->nfree != g->nr);
	while (g->nfree)
		__free_page(g->pages[--g->nfree]);
	kvfree(g->pages);
	iput(g->inode);
	__free_page(g->gap);
	sbi->gcp = NULL;
	kfree(g);
}

int gaze_gcp_start(struct gaze_sb_info *sbi)
{
	struct gaze_gcp *g = sbi->gcp;
	struct gaze_gcp_thread_arg *a;
	struct task_struct *t;
	int i;

	if (!g || g->running)
		return 0;
	for (i = 0; i < GAZE_GCP_STAGES; i++) {
		a = kmalloc(sizeof(*a), GFP_KERNEL);
		if (!a)
			goto fail;
		a->gcp = g;
		a->stage = i;
		t = kthread_run(gaze_gcp_thread, a, "gaze_gcp_%s-%s",
				gaze_gcp_stage_name[i], sbi->sb->s_id);
		if (IS_ERR(t)) {
			kfree(a);
			goto fail;
		}
		g->thr[i] = t;
	}
	spin_lock(&g->lock);
	g->running = true;
	g->stopping = false;
	spin_unlock(&g->lock);
	return 0;
fail:
	pr_err("gaze: %s: cannot start the GC pipeline threads; the baseline GC is used\n",
	       sbi->sb->s_id);
	while (i--) {
		kthread_stop(g->thr[i]);
		g->thr[i] = NULL;
	}
	return -ENOMEM;
}

void gaze_gcp_stop(struct gaze_sb_info *sbi)
{
	struct gaze_gcp *g = sbi->gcp;
	int i;

	if (!g)
		return;
	spin_lock(&g->lock);
	g->stopping = true;
	spin_unlock(&g->lock);
	/* jobs in flight finish (or drain on errors) and release their pins */
	wait_event(g->wq, gaze_gcp_idle(g));
	for (i = 0; i < GAZE_GCP_STAGES; i++) {
		if (g->thr[i])
			kthread_stop(g->thr[i]);
		g->thr[i] = NULL;
	}
	spin_lock(&g->lock);
	g->running = false;
	spin_unlock(&g->lock);
}
