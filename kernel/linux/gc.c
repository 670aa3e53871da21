// SPDX-License-Identifier: GPL-2.0
/*
 * gc.c - the background garbage collection thread (mount option
 * background_gc=on|off|sync).
 *
 * The collecting itself is the shared core's (kernel/core/gc.c): the
 * foreground part runs inside namespace operations whatever this option
 * says; this thread only reclaims zones ahead of need, one zone per step
 * under fs->lock, so writers wait at most one zone move, and only zones
 * at least a quarter invalid (gaze_gc_background).
 *
 * Thresholds: the superblock's bg_gc_low_pct / bg_gc_high_pct (mkfs
 * defaults 20 / 40) of the main-area zones that are FREE or PREFREE,
 * capped by what the data leaves (gaze_gc_levels: on few zones, or a
 * full device, the background never chases space that cannot exist):
 *   on    a step collects when free space is below low, and keeps going
 *         (every GAZE_BGGC_BUSY_MS) until it is above high; otherwise the
 *         thread sleeps GAZE_BGGC_IDLE_MS and only writes the checkpoint
 *         that turns waiting PREFREE zones FREE;
 *   sync  collects whenever free space is below high, taken as set (not
 *         capped by the headroom: the administrator asked for free
 *         space ahead, at some write amplification), with no pause
 *         between steps (until above high);
 *   off   no thread; foreground GC alone.
 * In every mode, the steps of a run a writer handed over (selective
 * blocking with the pipeline off: gaze_gc_fg_handoff) follow each other
 * without a pause: writers wait for that room.
 * Victims are GAZE_GC_BG ones (the victim policy, a quarter of the zone
 * freed at least; gcpolicy.c).
 *
 * Lifetime: started at the end of a read-write fill_super and after a
 * remount to read-write; stopped (kthread_stop waits for the step in
 * progress) before put_super closes the instance and before a remount
 * read-only, so the thread never runs on a read-only or retired
 * instance.  It takes sb_start_write_trylock around a step, so a frozen
 * filesystem is left alone.
 *
 * With gc_pipeline=1 (gcpipe.c) a step decides under fs->lock as the
 * core's gaze_gc_background does (gaze_gc_bg_wanted, GAZE_GC_BG
 * victims that fit), submits up to GAZE_BGGC_JOBS victims to the
 * pipeline, releases fs->lock while the stage threads move them, and
 * retakes it for the checkpoint that moves the PREFREE zones on towards
 * FREE (the core's step with low = 0, which only settles).  Writers thus
 * wait for one batch, not one zone.
 */
#include <linux/kthread.h>
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include "gaze_kern.h"

#define GAZE_BGGC_IDLE_MS	5000
#define GAZE_BGGC_BUSY_MS	50
#define GAZE_BGGC_ERROR_MS	30000
#define GAZE_BGGC_JOBS		2	/* zones in the pipeline per step */

static unsigned int gaze_bggc_pct(u32 v, unsigned int def)
{
	return v && v <= 100 ? v : def;
}

void gaze_bggc_thresholds(struct gaze_sb_info *sbi, unsigned int *low,
			  unsigned int *high)
{
	struct gaze_fs *fs = READ_ONCE(sbi->fs);
	unsigned int l = READ_ONCE(sbi->gc_low_pct);
	unsigned int h = READ_ONCE(sbi->gc_high_pct);

	*low = l ? l : gaze_bggc_pct(le32_to_cpu(fs->sb.bg_gc_low_pct), 20);
	*high = h ? h : gaze_bggc_pct(le32_to_cpu(fs->sb.bg_gc_high_pct), 40);
	if (*high < *low)
		*high = *low;
}

/* a pipelined step (write access held, fs->lock not): 0 or an error;
 * bgf: GAZE_GC_BG_URGENT for sync */
static int gaze_bggc_pipe_step(struct gaze_sb_info *sbi, struct gaze_fs *fs,
			       unsigned int low, unsigned int high, u32 bgf,
			       bool *more)
{
	struct gaze_gcp_mjob *j[GAZE_BGGC_JOBS];
	unsigned int nofs, n = 0, i;
	bool unused;
	int ret = 0, r;

	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	if ((fs->flags & GAZE_FS_RDONLY) || fs->gc_active)
		goto settle;
	while (n < GAZE_BGGC_JOBS &&
	       gaze_gc_bg_wanted(fs, low, high,
				 bgf | (n ? GAZE_GC_BG_GOING : 0))) {
		j[n] = gaze_gcp_submit(sbi, fs, GAZE_GCP_ANY, GAZE_GC_BG);
		if (IS_ERR(j[n]))
			break;
		n++;
	}
	mutex_unlock(&fs->lock);
	for (i = 0; i < n; i++) {
		r = gaze_gcp_wait(sbi, j[i], NULL, NULL);
		if (r && r != -ENOENT && r != -EBUSY && !ret)
			ret = r;
	}
	mutex_lock(&fs->lock);
	if (n && !ret) {
		fs->gc.bg_runs += n;
		*more = gaze_gc_bg_wanted(fs, low, high,
					  bgf | GAZE_GC_BG_GOING);
	}
settle:
	/* low = 0: the core's step only writes the settling checkpoint */
	if (!ret)
		ret = gaze_gc_background(fs, 0, high, 0, &unused);
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
	return ret;
}

/* one step; returns the sleep before the next, in ms */
static unsigned int gaze_bggc_step(struct gaze_sb_info *sbi)
{
	struct super_block *sb = sbi->sb;
	struct gaze_fs *fs = READ_ONCE(sbi->fs);
	unsigned int low, high, nofs;
	bool sync = sbi->opts.background_gc == GAZE_BGGC_SYNC, more = false;
	bool rest = false;
	int ret;

	gaze_bggc_thresholds(sbi, &low, &high);
	if (!sb_start_write_trylock(sb))
		return GAZE_BGGC_IDLE_MS;
	/* the settling checkpoint below then writes little in its hold */
	nofs = gaze_nofs_begin();
	gaze_fs_cp_steps(fs);
	/* and what fsyncs of one file alone left for a checkpoint */
	ret = gaze_fs_cp_backlog(fs);
	gaze_nofs_end(nofs);
	if (ret)
		goto out;
	if (gaze_gcp_active(sbi)) {
		ret = gaze_bggc_pipe_step(sbi, fs, sync ? high : low, high,
					  sync ? GAZE_GC_BG_URGENT : 0, &more);
	} else {
		nofs = gaze_nofs_begin();
		mutex_lock(&fs->lock);
		rest = fs->gc_fg_rest_on;
		gaze_gc_running_begin(sbi);
		ret = gaze_gc_background(fs, sync ? high : low, high,
					 sync ? GAZE_GC_BG_URGENT : 0, &more);
		gaze_gc_running_end(sbi);
		mutex_unlock(&fs->lock);
		gaze_nofs_end(nofs);
	}
out:
	sb_end_write(sb);
	if (ret) {
		/*
		 * Corruption follows errors=.  A device error does not: a
		 * failed reclaim leaves every block where it was (a failed
		 * read changes nothing; a failed write closes its zone and
		 * frees the copies; nodes stay dirty), so the collector waits
		 * and tries again, as after ENOSPC; a device that stays bad
		 * fails the writes users make, and those follow errors=.
		 */
		ret = ret == -EIO ? ret : gaze_error(sb, ret, "background gc");
		if (ret != -EUCLEAN)
			pr_warn_ratelimited("gaze: %s: background gc: %d; retrying later\n",
					    sb->s_id, ret);
		return GAZE_BGGC_ERROR_MS;
	}
	if (!more)
		return GAZE_BGGC_IDLE_MS;
	/*
	 * A run a writer handed over (gaze_gc_fg_handoff) is foreground
	 * work that writers wait for: its steps follow each other without
	 * the background's pause (fs->lock is let go between them, and
	 * waiters get it, as between a writer's own steps)
	 */
	return sync || rest ? 0 : GAZE_BGGC_BUSY_MS;
}

static int gaze_bggc_thread(void *data)
{
	struct gaze_sb_info *sbi = data;
	unsigned int ms = GAZE_BGGC_IDLE_MS;

	set_freezable();
	while (!kthread_should_stop()) {
		if (ms)
			wait_event_freezable_timeout(sbi->gc_wait,
						     kthread_should_stop() ||
						     READ_ONCE(sbi->gc_kick),
						     msecs_to_jiffies(ms));
		else
			cond_resched();
		if (kthread_should_stop())
			break;
		WRITE_ONCE(sbi->gc_kick, false);
		ms = gaze_bggc_step(sbi);
	}
	return 0;
}

/* the caller knows the instance is read-write (sb flags may lag) */
int gaze_bggc_start(struct gaze_sb_info *sbi)
{
	struct task_struct *t;

	if (sbi->gc_thread || sbi->opts.background_gc == GAZE_BGGC_OFF)
		return 0;
	t = kthread_run(gaze_bggc_thread, sbi, "gaze_gc-%s", sbi->sb->s_id);
	if (IS_ERR(t)) {
		pr_err("gaze: %s: cannot start the GC thread: %ld\n",
		       sbi->sb->s_id, PTR_ERR(t));
		return PTR_ERR(t);
	}
	sbi->gc_thread = t;
	return 0;
}

/*
 * A step now rather than after the idle sleep (writers short of room,
 * writeback finding the free zones low); it collects only below the low
 * threshold, as any step.  No-op without the thread.
 */
void gaze_bggc_kick(struct gaze_sb_info *sbi)
{
	WRITE_ONCE(sbi->gc_kick, true);
	wake_up(&sbi->gc_wait);
}

void gaze_bggc_stop(struct gaze_sb_info *sbi)
{
	if (!sbi->gc_thread)
		return;
	kthread_stop(sbi->gc_thread);
	sbi->gc_thread = NULL;
}
