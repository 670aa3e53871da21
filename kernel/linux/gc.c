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
 * Thresholds, in percent of the main-area zones that are FREE or PREFREE
 * (superblock bg_gc_low_pct / bg_gc_high_pct, mkfs defaults 20 / 40):
 *   on    a step collects when free space is below low, and keeps going
 *         (every GAZE_BGGC_BUSY_MS) until it is above high; otherwise the
 *         thread sleeps GAZE_BGGC_IDLE_MS and only writes the checkpoint
 *         that turns waiting PREFREE zones FREE;
 *   sync  collects whenever free space is below high, with no pause
 *         between steps (until above high);
 *   off   no thread; foreground GC alone.
 *
 * Lifetime: started at the end of a read-write fill_super and after a
 * remount to read-write; stopped (kthread_stop waits for the step in
 * progress) before put_super closes the instance and before a remount
 * read-only, so the thread never runs on a read-only or retired
 * instance.  It takes sb_start_write_trylock around a step, so a frozen
 * filesystem is left alone.
 */
#include <linux/kthread.h>
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include "gaze_kern.h"

#define GAZE_BGGC_IDLE_MS	5000
#define GAZE_BGGC_BUSY_MS	50
#define GAZE_BGGC_ERROR_MS	30000

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

/* one step; returns the sleep before the next, in ms */
static unsigned int gaze_bggc_step(struct gaze_sb_info *sbi)
{
	struct super_block *sb = sbi->sb;
	struct gaze_fs *fs = READ_ONCE(sbi->fs);
	unsigned int low, high, nofs;
	bool sync = sbi->opts.background_gc == GAZE_BGGC_SYNC, more = false;
	int ret;

	gaze_bggc_thresholds(sbi, &low, &high);
	if (!sb_start_write_trylock(sb))
		return GAZE_BGGC_IDLE_MS;
	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	ret = gaze_gc_background(fs, sync ? high : low, high, false, &more);
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
	sb_end_write(sb);
	if (ret) {
		/* I/O errors and corruption follow errors=; others wait */
		ret = gaze_error(sb, ret, "background gc");
		if (ret != -EUCLEAN && ret != -EIO)
			pr_warn_ratelimited("gaze: %s: background gc: %d; retrying later\n",
					    sb->s_id, ret);
		return GAZE_BGGC_ERROR_MS;
	}
	if (!more)
		return GAZE_BGGC_IDLE_MS;
	return sync ? 0 : GAZE_BGGC_BUSY_MS;
}

static int gaze_bggc_thread(void *data)
{
	struct gaze_sb_info *sbi = data;
	unsigned int ms = GAZE_BGGC_IDLE_MS;

	set_freezable();
	while (!kthread_should_stop()) {
		if (ms)
			wait_event_freezable_timeout(sbi->gc_wait,
						     kthread_should_stop(),
						     msecs_to_jiffies(ms));
		else
			cond_resched();
		if (kthread_should_stop())
			break;
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
	init_waitqueue_head(&sbi->gc_wait);
	t = kthread_run(gaze_bggc_thread, sbi, "gaze_gc-%s", sbi->sb->s_id);
	if (IS_ERR(t)) {
		pr_err("gaze: %s: cannot start the GC thread: %ld\n",
		       sbi->sb->s_id, PTR_ERR(t));
		return PTR_ERR(t);
	}
	sbi->gc_thread = t;
	return 0;
}

void gaze_bggc_stop(struct gaze_sb_info *sbi)
{
	if (!sbi->gc_thread)
		return;
	kthread_stop(sbi->gc_thread);
	sbi->gc_thread = NULL;
}
