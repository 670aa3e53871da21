// SPDX-License-Identifier: GPL-2.0
/*
 * cmpwq.c - writeback's clusters compressed on several CPUs.
 *
 * gaze_wb_flush (file.c) gives each batch of a compressing file to
 * gaze_cmp_batch before the core call.  The clusters the batch holds
 * whole (gaze_cluster_plan) are encoded by work items on the
 * filesystem's unbound workqueue, outside fs->lock, while the flusher
 * waits; the core then stores them as they are
 * (gaze_file_write_vec_enc).  A cluster that is not whole in the batch,
 * an encoding that failed (no memory) or one that no longer matches the
 * inode's setting is encoded by the core under its lock, as without
 * this file.
 *
 * CPU share (compress_cpu_pct, a tunable, as ZFS's zio_taskq_batch_pct):
 * the workqueue runs at most cmp_cpus items at once, the rounded-up
 * share of the online CPUs, so the filesystem's writeback compresses on
 * at most that many CPUs together; a batch queues no more items than
 * that.  Each item takes clusters from the batch's shared counter until
 * none are left, so a batch finishes with its items even if some of
 * them start late.
 */
#include <linux/workqueue.h>
#include <linux/sched/mm.h>
#include "gaze_kern.h"

struct gaze_cmp_item {
	struct work_struct	work;
	struct gaze_cmp_job	*job;
};

struct gaze_cmp_job {
	struct gaze_cluster_enc	*enc;
	u32			n;
	size_t			scratch;	/* bytes per item */
	atomic_t		next;		/* next enc[] to encode */
	atomic_t		running;	/* items not finished */
	struct completion	done;
	struct gaze_cmp_item	items[];
};

static void gaze_cmp_work(struct work_struct *work)
{
	struct gaze_cmp_item *it = container_of(work, struct gaze_cmp_item,
						work);
	struct gaze_cmp_job *job = it->job;
	unsigned int nofs = memalloc_nofs_save();
	void *scratch = kvmalloc(job->scratch, GFP_NOFS);
	int i;

	/* without scratch, what is left stays -EAGAIN: the core encodes */
	while (scratch && (i = atomic_inc_return(&job->next) - 1) < job->n)
		gaze_cluster_enc_run(&job->enc[i], scratch);
	kvfree(scratch);
	memalloc_nofs_restore(nofs);
	if (atomic_dec_and_test(&job->running))
		complete(&job->done);
}

static unsigned int gaze_cmp_cpus(unsigned int pct)
{
	return max(1u, DIV_ROUND_UP(num_online_cpus() * pct, 100));
}

/*
 * Encodes the whole clusters of the batch; returns their plan (*encp,
 * gaze_cmp_batch_end frees it) or 0 when there is none or no memory.
 */
u32 gaze_cmp_batch(struct inode *inode, const u64 *fblks, void *const *bufs,
		   u32 nr, loff_t end, struct gaze_cluster_enc **encp)
{
	struct gaze_sb_info *sbi = GAZE_SB(inode->i_sb);
	struct gaze_cluster_enc *enc;
	struct gaze_cmp_job *job;
	unsigned int nofs, k, i;
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
	enc = kmalloc_array(nr, sizeof(*enc), GFP_NOFS);
	if (!enc)
		return 0;
	n = gaze_cluster_plan(a.compress_log_cluster, a.compress_algo,
			      a.compress_level, fblks, bufs, nr, end, enc, nr);
	k = min_t(u32, n, READ_ONCE(sbi->cmp_cpus));
	job = n ? kzalloc(struct_size(job, items, k), GFP_NOFS) : NULL;
	if (!job) {
		kfree(enc);
		return 0;
	}
	job->enc = enc;
	job->n = n;
	job->scratch = (size_t)GAZE_BLOCK_SIZE << a.compress_log_cluster;
	atomic_set(&job->running, k);
	init_completion(&job->done);
	for (i = 0; i < k; i++) {
		job->items[i].job = job;
		INIT_WORK(&job->items[i].work, gaze_cmp_work);
		queue_work(sbi->cmp_wq, &job->items[i].work);
	}
	wait_for_completion(&job->done);
	kfree(job);
	*encp = enc;
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
