// SPDX-License-Identifier: GPL-2.0
/*
 * cmpwq.c - clusters compressed and decoded on several CPUs.
 *
 * gaze_par_run runs one job's numbered pieces on the filesystem's
 * unbound workqueue and on the calling thread together: each runner
 * takes pieces from the job's shared counter until none are left, so a
 * job finishes with its runners even if some of them start late, and a
 * runner that could not get its state still finishes its pieces (the
 * job's run callback is told so).  Two jobs use it:
 *
 * - writeback (gaze_cmp_batch): gaze_wb_flush (file.c) gives each batch
 *   of a compressing file to it before the core call.  The clusters the
 *   batch touches (gaze_cluster_plan) are encoded outside fs->lock, those
 *   it holds only part of merged first with what the cluster holds on
 *   the device (gaze_cluster_enc_merge); the core then stores them as
 *   they are (gaze_file_write_vec_enc).  An encoding that failed (no
 *   memory), one that no longer matches the inode's setting, or one
 *   merged over a cluster that has changed since is redone by the core
 *   under its lock, as without this file.
 * - readahead of a file with compressed clusters (file.c): the window's
 *   clusters are read and decoded, each by one runner, which fills and
 *   unlocks that cluster's folios.
 *
 * CPU share (compress_cpu_pct, a tunable, as ZFS's zio_taskq_batch_pct):
 * a job has at most cmp_cpus runners, the rounded-up share of the online
 * CPUs, the caller included, and the workqueue runs at most cmp_cpus
 * items at once, so the filesystem's compression work of one caller
 * takes at most that many CPUs.
 */
#include <linux/workqueue.h>
#include <linux/sched/mm.h>
#include "gaze_kern.h"

struct gaze_par_item {
	struct work_struct	work;
	struct gaze_par_job	*job;
};

struct gaze_par_job {
	const struct gaze_par_ops *ops;
	void			*arg;
	u32			n;
	atomic_t		next;		/* next piece to run */
	atomic_t		running;	/* queued items not finished */
	atomic_t		by_wq;		/* pieces the items ran */
	struct completion	done;
	struct gaze_par_item	items[];
};

/* one runner: pieces from the shared counter until none are left */
static u32 gaze_par_loop(struct gaze_par_job *job)
{
	unsigned int nofs = memalloc_nofs_save();
	void *state = job->ops->get(job->arg);
	u32 i, ran = 0;

	while ((i = atomic_inc_return(&job->next) - 1) < job->n) {
		job->ops->run(job->arg, state, i);
		ran++;
	}
	job->ops->put(job->arg, state);
	memalloc_nofs_restore(nofs);
	return ran;
}

static void gaze_par_work(struct work_struct *work)
{
	struct gaze_par_item *it = container_of(work, struct gaze_par_item,
						work);
	struct gaze_par_job *job = it->job;

	atomic_add(gaze_par_loop(job), &job->by_wq);
	if (atomic_dec_and_test(&job->running))
		complete(&job->done);
}

/*
 * Runs ops->run(arg, state, i) once for every i < n, on the caller and up
 * to cmp_cpus - 1 workqueue items; returns how many pieces the items ran.
 * Without the workqueue or the memory for the items, the caller runs
 * them all.
 */
u32 gaze_par_run(struct gaze_sb_info *sbi, const struct gaze_par_ops *ops,
		 void *arg, u32 n)
{
	u32 k = min_t(u32, n, READ_ONCE(sbi->cmp_cpus)), i, by_wq;
	struct gaze_par_job *job = NULL;

	if (k > 1 && sbi->cmp_wq)
		job = kzalloc(struct_size(job, items, k - 1), GFP_NOFS);
	if (!job) {
		struct gaze_par_job one = { .ops = ops, .arg = arg, .n = n };

		gaze_par_loop(&one);
		return 0;
	}
	job->ops = ops;
	job->arg = arg;
	job->n = n;
	atomic_set(&job->running, k - 1);
	init_completion(&job->done);
	for (i = 0; i < k - 1; i++) {
		job->items[i].job = job;
		INIT_WORK(&job->items[i].work, gaze_par_work);
		queue_work(sbi->cmp_wq, &job->items[i].work);
	}
	gaze_par_loop(job);
	wait_for_completion(&job->done);
	by_wq = atomic_read(&job->by_wq);
	kfree(job);
	return by_wq;
}

static unsigned int gaze_cmp_cpus(unsigned int pct)
{
	return max(1u, DIV_ROUND_UP(num_online_cpus() * pct, 100));
}

/* writeback's job: enc[i] encoded with a scratch buffer of the runner's */
struct gaze_cmp_job {
	struct gaze_fs		*fs;
	u32			ino;
	struct gaze_cluster_enc	*enc;
	size_t			scratch;	/* bytes per runner */
};

static void *gaze_cmp_get(void *arg)
{
	struct gaze_cmp_job *job = arg;

	return kvmalloc(job->scratch, GFP_NOFS);
}

/* without scratch, the cluster stays -EAGAIN: the core encodes it */
static void gaze_cmp_one(void *arg, void *scratch, u32 i)
{
	struct gaze_cmp_job *job = arg;

	if (scratch)
		gaze_cluster_enc_merge(job->fs, job->ino, &job->enc[i],
				       scratch);
}

static void gaze_cmp_put(void *arg, void *scratch)
{
	kvfree(scratch);
}

static const struct gaze_par_ops gaze_cmp_ops = {
	.get = gaze_cmp_get,
	.run = gaze_cmp_one,
	.put = gaze_cmp_put,
};

/*
 * Encodes the whole clusters of the batch; returns their plan (*encp,
 * gaze_cmp_batch_end frees it) or 0 when there is none or no memory.
 */
u32 gaze_cmp_batch(struct inode *inode, const u64 *fblks, void *const *bufs,
		   u32 nr, loff_t end, struct gaze_cluster_enc **encp)
{
	struct gaze_sb_info *sbi = GAZE_SB(inode->i_sb);
	struct gaze_cmp_job job;
	unsigned int nofs;
	struct gaze_attr a;
	u32 n;
	int ret;

	*encp = NULL;
	if (!sbi->cmp_wq || !(READ_ONCE(GAZE_I(inode)->flags) &
			      GAZE_IF_COMPRESS))
		return 0;
	nofs = gaze_nofs_begin();
	ret = gaze_ns_getattr(GAZE_FS(inode->i_sb), inode->i_ino, &a);
	gaze_nofs_end(nofs);
	if (ret || !(a.flags & GAZE_IF_COMPRESS) || !a.compress_log_cluster)
		return 0;
	job.enc = kmalloc_array(nr, sizeof(*job.enc), GFP_NOFS);
	if (!job.enc)
		return 0;
	/* the core stores for the larger of end and its own size */
	n = gaze_cluster_plan(a.compress_log_cluster, a.compress_algo,
			      a.compress_level, fblks, bufs, nr,
			      max_t(u64, end, a.size), GAZE_PLAN_PARTIAL,
			      job.enc, nr);
	if (!n) {
		kfree(job.enc);
		return 0;
	}
	job.fs = GAZE_FS(inode->i_sb);
	job.ino = inode->i_ino;
	/* a merge reads a stream beside the cluster it decodes it into */
	job.scratch = (size_t)2 * GAZE_BLOCK_SIZE << a.compress_log_cluster;
	gaze_par_run(sbi, &gaze_cmp_ops, &job, n);
	*encp = job.enc;
	return n;
}

/* after the core call: counts what it stored as encoded here, frees */
void gaze_cmp_batch_end(struct gaze_sb_info *sbi,
			struct gaze_cluster_enc *enc, u32 n)
{
	u32 i, used = 0;

	if (!enc)
		return;
	for (i = 0; i < n; i++)
		used += enc[i].used;
	atomic64_add(used, &sbi->cmp_parallel);
	gaze_cluster_enc_free(enc, n);
	kfree(enc);
}

/* the tunable; changes the running workqueue's limit at once */
int gaze_cmp_set_pct(struct gaze_sb_info *sbi, unsigned int pct)
{
	WRITE_ONCE(sbi->cmp_pct, pct);
	WRITE_ONCE(sbi->cmp_cpus, gaze_cmp_cpus(pct));
	if (sbi->cmp_wq)
		workqueue_set_max_active(sbi->cmp_wq, sbi->cmp_cpus);
	return 0;
}

/* at mount: the workqueue, for a filesystem with the compression feature */
int gaze_cmp_init(struct gaze_sb_info *sbi)
{
	sbi->cmp_pct = GAZE_CMP_PCT_DEFAULT;
	sbi->cmp_cpus = gaze_cmp_cpus(sbi->cmp_pct);
	if (!(le64_to_cpu(sbi->fs->sb.feature_incompat) &
	      GAZE_FEATURE_INCOMPAT_COMPRESSION))
		return 0;
	sbi->cmp_wq = alloc_workqueue("gaze-cmp/%s",
				      WQ_UNBOUND | WQ_MEM_RECLAIM,
				      sbi->cmp_cpus, sbi->sb->s_id);
	return sbi->cmp_wq ? 0 : -ENOMEM;
}

void gaze_cmp_exit(struct gaze_sb_info *sbi)
{
	if (sbi->cmp_wq)
		destroy_workqueue(sbi->cmp_wq);
	sbi->cmp_wq = NULL;
}
