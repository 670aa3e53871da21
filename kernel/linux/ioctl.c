// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl.c - the GAZE ioctls (uapi/gaze_ioctl.h) on files and directories
 * of a mounted filesystem: INFO, GC_STATS, TUNE, GC and SHUTDOWN.
 *
 * Every handler copies the argument in, checks version, flags and
 * reserved fields (unknown ones are refused with -EINVAL so they can be
 * given a meaning later), fills the answer and copies it back.
 *
 * Locking: INFO and GC_STATS read core state without fs->lock (figures a
 * reclaim may be changing, so that they answer at once while the
 * baseline mover holds the lock for a zone; a GC_STATS reset takes it);
 * TUNE changes a tunable
 * under sbi->tune_lock (readers of a tunable read it once with
 * READ_ONCE and tolerate a change between two reads).
 *
 * GC: with gc_pipeline=1 (and the pipeline's threads running) a reclaim
 * goes through the stage threads (gcpipe.c) and fs->lock is only held
 * per batch; with 0 the baseline mover moves the zone under fs->lock,
 * letting go of it between chunks of 2048 blocks.  Both take the victim
 * gcpolicy.c gives for GAZE_GC_USER.  Either holds write access
 * (mnt_want_write_file) for the
 * whole reclaim, so a freeze waits for it and a remount read-only is
 * refused (EBUSY) while it runs.
 *
 * FITRIM (fstrim(8)) resets or discards the FREE zones in its range a
 * zone at a time, taking fs->lock for each (gaze_space_trim), with
 * write access held as GC holds it.
 */
#include <linux/capability.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/mount.h>
#include <linux/fs.h>
#include "gaze_kern.h"
#include "gaze_ioctl.h"

static bool gaze_ioc_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/*
 * A request that changes the device (GC, FITRIM): CAP_SYS_ADMIN and write
 * access, which a freeze waits for; mnt_drop_write_file when done
 */
static int gaze_ioc_admin_write(struct file *filp)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (sb_rdonly(file_inode(filp)->i_sb))
		return -EROFS;
	return mnt_want_write_file(filp);
}

/* version, flags against the known ones, reserved input words */
static int gaze_ioc_check(u32 version, u32 flags, u32 known,
			  const void *rsv, size_t rsv_len)
{
	if (version != GAZE_IOC_VERSION)
		return -EINVAL;
	if (flags & ~known)
		return -EINVAL;
	if (rsv && !gaze_ioc_zero(rsv, rsv_len))
		return -EINVAL;
	return 0;
}

/* ---------------------------------------------------------------- */
/* INFO                                                              */
/* ---------------------------------------------------------------- */

/*
 * Space figures from the zone table, read without fs->lock: each zone's
 * count and state as one of the last operations left them (the table
 * lives as long as the mount, which the caller's open file keeps).
 */
static void gaze_info_space(struct gaze_fs *fs, struct gaze_ioc_info *in)
{
	const struct gaze_layout *l = &fs->lay;
	u32 cap = fs->dev->zone_cap, z, valid, state;
	struct gaze_zone rep;

	for (z = l->main_zone_start;
	     z < l->main_zone_start + l->main_zone_count; z++) {
		if (gaze_space_zone_stat(fs, z, &valid, &state))
			continue;
		in->valid_blocks += valid;
		switch (state) {
		case GAZE_ZS_FREE:
			in->free_zones++;
			in->free_now += cap;
			break;
		case GAZE_ZS_OPEN:
			in->open_zones++;
			if (!gaze_zone_report(fs, z, &rep) &&
			    rep.wp >= rep.start && rep.wp - rep.start < cap) {
				in->free_now += cap - (rep.wp - rep.start);
				in->freeable += rep.wp - rep.start - valid;
			}
			break;
		case GAZE_ZS_FULL:
			in->full_zones++;
			in->freeable += cap - valid;
			break;
		case GAZE_ZS_PREFREE:
			in->prefree_zones++;
			in->unusable += cap;
			break;
		}
	}
	in->reserved_blocks = (u64)l->reserved_zones * cap;
	in->valid_inodes = fs->valid_inodes;
	in->cp_seq = fs->cp_seq;
	in->fsyncs_rollforward = READ_ONCE(fs->stat[GAZE_STAT_FSYNC_RF]);
	in->fsyncs_checkpoint = READ_ONCE(fs->stat[GAZE_STAT_FSYNC_CP]);
	in->replayed_nodes = fs->rf_recovered;
	/* no fs->lock: two counters a write may be between (64-bit loads) */
	in->compr_logical_blocks =
		le64_to_cpu(READ_ONCE(fs->cp.compr_logical_blocks));
	in->compr_physical_blocks =
		le64_to_cpu(READ_ONCE(fs->cp.compr_physical_blocks));
	in->compress_algo = fs->sb.compress_algo;
	in->compress_level = fs->sb.compress_level;
	in->compress_log_cluster = fs->sb.compress_log_cluster;
}

static void gaze_info_cmp(struct gaze_sb_info *sbi, struct gaze_ioc_info *in)
{
	in->compress_cpu_pct = READ_ONCE(sbi->cmp_pct);
	in->compress_cpus = READ_ONCE(sbi->cmp_cpus);
	in->compr_parallel_clusters = atomic64_read(&sbi->cmp_parallel);
	in->compr_parallel_decoded = atomic64_read(&sbi->cmp_rd_parallel);
}

static void gaze_info_readfast(struct gaze_sb_info *sbi,
			       struct gaze_ioc_info *in)
{
	struct gaze_rf_stats sum;

	BUILD_BUG_ON(sizeof(in->read_fallback) != sizeof(sum.fallback));
	gaze_rf_stats_sum(sbi, &sum);
	in->read_fastpath = READ_ONCE(sbi->read_fastpath);
	in->read_fast_hits = sum.hits;
	memcpy(in->read_fallback, sum.fallback, sizeof(sum.fallback));
}

static void gaze_info_fill(struct gaze_sb_info *sbi, struct gaze_fs *fs,
			   struct gaze_ioc_info *in)
{
	const struct gaze_super *s = &fs->sb;
	const struct gaze_layout *l = &fs->lay;

	in->block_size = GAZE_BLOCK_SIZE;
	in->zone_blocks = fs->dev->zone_blocks;
	in->zone_cap = fs->dev->zone_cap;
	in->nr_zones = l->nr_zones;
	in->main_zone_start = l->main_zone_start;
	in->main_zone_count = l->main_zone_count;
	in->reserved_zones = l->reserved_zones;
	in->nr_logs = le32_to_cpu(s->nr_logs);
	in->max_open = fs->dev->max_open;
	in->max_active = fs->dev->max_active;
	in->zoned = fs->dev->model == GAZE_ZM_HOST_MANAGED;
	in->feature_compat = le64_to_cpu(s->feature_compat);
	in->feature_ro_compat = le64_to_cpu(s->feature_ro_compat);
	in->feature_incompat = le64_to_cpu(s->feature_incompat);
	/* the filesystem uuid users see, not the metadata uuid */
	memcpy(in->uuid, s->hdr.uuid, sizeof(in->uuid));
	BUILD_BUG_ON(sizeof(in->label) < GAZE_LABEL_MAX);
	memcpy(in->label, s->label, GAZE_LABEL_MAX);
	in->errors = sbi->opts.errors;
	in->background_gc = sbi->opts.background_gc;
	in->discard = sbi->opts.discard;
	in->victim_policy = fs->gc_policy == GAZE_GC_POLICY_DEFAULT ?
			    le32_to_cpu(s->victim_policy) : (u32)fs->gc_policy;
	in->user_blocks = le64_to_cpu(s->user_blocks);
	gaze_info_space(fs, in);
	gaze_info_readfast(sbi, in);
	gaze_info_cmp(sbi, in);
}

static long gaze_ioc_info(struct super_block *sb, void __user *arg)
{
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	struct gaze_fs *fs = GAZE_FS(sb);
	struct gaze_ioc_info *in;
	long ret;

	in = kmalloc(sizeof(*in), GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(in, arg, sizeof(*in)))
		goto out;
	ret = gaze_ioc_check(in->version, in->flags, 0, in->reserved_in,
			     sizeof(in->reserved_in));
	if (ret)
		goto out;
	memset(in, 0, sizeof(*in));
	in->version = GAZE_IOC_VERSION;
	/* no fs->lock, as for GC_STATS: answers while a reclaim holds it */
	gaze_info_fill(sbi, fs, in);
	ret = copy_to_user(arg, in, sizeof(*in)) ? -EFAULT : 0;
out:
	kfree(in);
	return ret;
}

/* ---------------------------------------------------------------- */
/* COUNTERS                                                          */
/* ---------------------------------------------------------------- */

/* the core's counter (GAZE_STAT_*) behind each GAZE_CTR_* that has one */
static const s8 gaze_ctr_stat[GAZE_CTR_NR] = {
	[GAZE_CTR_CHECKPOINTS]		= GAZE_STAT_CP,
	[GAZE_CTR_CP_FSYNC]		= GAZE_STAT_FSYNC_CP,
	[GAZE_CTR_CP_BACKLOG]		= GAZE_STAT_CP_BACKLOG,
	[GAZE_CTR_FSYNC_ROLLFWD]	= GAZE_STAT_FSYNC_RF,
	[GAZE_CTR_FSYNC_ONE_FILE]	= GAZE_STAT_FSYNC_ONE,
	[GAZE_CTR_AROUND_WINDOWS]	= GAZE_STAT_AROUND,
	[GAZE_CTR_AROUND_USED]		= GAZE_STAT_AROUND_USED,
	[GAZE_CTR_GC_WRITES_UNLOCKED]	= GAZE_STAT_GCW,
	[GAZE_CTR_GC_WRITES_CP]		= GAZE_STAT_GCW_CP,
	[GAZE_CTR_GC_WRITE_WAITS]	= GAZE_STAT_GCW_WAIT,
	[GAZE_CTR_GC_COLD_READS]	= GAZE_STAT_GC_COLD,
	[GAZE_CTR_GC_HANDOFFS]		= GAZE_STAT_GC_HANDOFF,
};

static long gaze_ioc_counters(struct super_block *sb, void __user *arg)
{
	struct gaze_fs *fs = GAZE_FS(sb);
	struct gaze_ioc_counters *c;
	long ret;
	int i;

	BUILD_BUG_ON(GAZE_CTR_NR > GAZE_CTR_MAX);
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(c, arg, sizeof(*c)))
		goto out;
	ret = gaze_ioc_check(c->version, c->flags, 0, c->reserved_in,
			     sizeof(c->reserved_in));
	if (ret)
		goto out;
	memset(c, 0, sizeof(*c));
	c->version = GAZE_IOC_VERSION;
	c->nr = GAZE_CTR_NR;
	/* no fs->lock, as for INFO: each counter read once */
	for (i = 0; i < GAZE_CTR_NR; i++)
		if (gaze_ctr_stat[i] >= 0)
			c->counters[i] = READ_ONCE(fs->stat[gaze_ctr_stat[i]]);
	ret = copy_to_user(arg, c, sizeof(*c)) ? -EFAULT : 0;
out:
	kfree(c);
	return ret;
}

/* ---------------------------------------------------------------- */
/* TUNE                                                              */
/* ---------------------------------------------------------------- */

struct gaze_tunable {
	const char	*name;
	u64		min, max;
	const char	*help;
	u64		(*get)(struct gaze_sb_info *sbi);
	int		(*set)(struct gaze_sb_info *sbi, u64 v);
};

static u64 gaze_tget_bg(struct gaze_sb_info *sbi)
{
	return READ_ONCE(sbi->opts.background_gc);
}

/* restarts the thread with the new mode (s_umount, as mount does) */
static int gaze_tset_bg(struct gaze_sb_info *sbi, u64 v)
{
	struct super_block *sb = sbi->sb;
	int ret = 0;

	down_write(&sb->s_umount);
	gaze_bggc_stop(sbi);
	WRITE_ONCE(sbi->opts.background_gc, (unsigned int)v);
	if (!sb_rdonly(sb))
		ret = gaze_bggc_start(sbi);
	up_write(&sb->s_umount);
	return ret;
}

static u64 gaze_tget_policy(struct gaze_sb_info *sbi)
{
	struct gaze_fs *fs = READ_ONCE(sbi->fs);
	int p = READ_ONCE(fs->gc_policy);

	return p == GAZE_GC_POLICY_DEFAULT ? le32_to_cpu(fs->sb.victim_policy) :
	       (u64)p;
}

static int gaze_tset_policy(struct gaze_sb_info *sbi, u64 v)
{
	struct gaze_fs *fs = READ_ONCE(sbi->fs);

	mutex_lock(&fs->lock);
	fs->gc_policy = (int)v;
	mutex_unlock(&fs->lock);
	return 0;
}

static u64 gaze_tget_low(struct gaze_sb_info *sbi)
{
	unsigned int low, high;

	gaze_bggc_thresholds(sbi, &low, &high);
	return low;
}

static u64 gaze_tget_high(struct gaze_sb_info *sbi)
{
	unsigned int low, high;

	gaze_bggc_thresholds(sbi, &low, &high);
	return high;
}

static int gaze_tset_low(struct gaze_sb_info *sbi, u64 v)
{
	if (v > gaze_tget_high(sbi))
		return -ERANGE;
	WRITE_ONCE(sbi->gc_low_pct, (unsigned int)v);
	return 0;
}

static int gaze_tset_high(struct gaze_sb_info *sbi, u64 v)
{
	if (v < gaze_tget_low(sbi))
		return -ERANGE;
	WRITE_ONCE(sbi->gc_high_pct, (unsigned int)v);
	return 0;
}

static u64 gaze_tget_pipeline(struct gaze_sb_info *sbi)
{
	return READ_ONCE(sbi->gc_pipeline);
}

static int gaze_tset_pipeline(struct gaze_sb_info *sbi, u64 v)
{
	WRITE_ONCE(sbi->gc_pipeline, (unsigned int)v);
	return 0;
}

static u64 gaze_tget_pool(struct gaze_sb_info *sbi)
{
	return READ_ONCE(sbi->gc_pool);
}

static int gaze_tset_pool(struct gaze_sb_info *sbi, u64 v)
{
	WRITE_ONCE(sbi->gc_pool, (unsigned int)v);
	return 0;
}

static u64 gaze_tget_depth(struct gaze_sb_info *sbi)
{
	return READ_ONCE(sbi->gc_queue_depth);
}

static int gaze_tset_depth(struct gaze_sb_info *sbi, u64 v)
{
	WRITE_ONCE(sbi->gc_queue_depth, (unsigned int)v);
	return 0;
}

static u64 gaze_tget_gap(struct gaze_sb_info *sbi)
{
	return READ_ONCE(sbi->gc_read_gap);
}

static int gaze_tset_gap(struct gaze_sb_info *sbi, u64 v)
{
	WRITE_ONCE(sbi->gc_read_gap, (unsigned int)v);
	return 0;
}

static u64 gaze_tget_readfast(struct gaze_sb_info *sbi)
{
	return READ_ONCE(sbi->read_fastpath);
}

/* readers see it at their next read (readfast.c) */
static int gaze_tset_readfast(struct gaze_sb_info *sbi, u64 v)
{
	WRITE_ONCE(sbi->read_fastpath, (unsigned int)v);
	return 0;
}

/* selective blocking's tunables belong to resv.c */
static u64 gaze_tget_resv(struct gaze_sb_info *sbi, const char *name)
{
	u64 v = 0;

	return gaze_resv_tune(sbi, name, &v, false) ? 0 : v;
}

static u64 gaze_tget_sel(struct gaze_sb_info *sbi)
{
	return gaze_tget_resv(sbi, "selective_blocking");
}

static int gaze_tset_sel(struct gaze_sb_info *sbi, u64 v)
{
	return gaze_resv_tune(sbi, "selective_blocking", &v, true);
}

static u64 gaze_tget_dirty(struct gaze_sb_info *sbi)
{
	return gaze_tget_resv(sbi, "dirty_limit_pct");
}

static int gaze_tset_dirty(struct gaze_sb_info *sbi, u64 v)
{
	return gaze_resv_tune(sbi, "dirty_limit_pct", &v, true);
}

static u64 gaze_tget_cmp_pct(struct gaze_sb_info *sbi)
{
	return READ_ONCE(sbi->cmp_pct);
}

static int gaze_tset_cmp_pct(struct gaze_sb_info *sbi, u64 v)
{
	return gaze_cmp_set_pct(sbi, (unsigned int)v);
}

static const struct gaze_tunable gaze_tunables[] = {
	{ "background_gc", 0, 2,
	  "background GC thread: 0 off, 1 on, 2 sync (reclaim whenever idle)",
	  gaze_tget_bg, gaze_tset_bg },
	{ "victim_policy", 0, 1,
	  "victim choice: 0 greedy (fewest valid), 1 cost-benefit (age)",
	  gaze_tget_policy, gaze_tset_policy },
	{ "bg_gc_low_pct", 1, 100,
	  "background GC starts below this % of free main zones",
	  gaze_tget_low, gaze_tset_low },
	{ "bg_gc_high_pct", 1, 100,
	  "background GC stops at this % of free main zones",
	  gaze_tget_high, gaze_tset_high },
	{ "gc_pipeline", 0, 1,
	  "GC in four stage threads (1) or the baseline zone move under the lock (0)",
	  gaze_tget_pipeline, gaze_tset_pipeline },
	{ "gc_pool", 0, 1,
	  "GC pages from the page pool (1) or through a private page cache (0)",
	  gaze_tget_pool, gaze_tset_pool },
	{ "gc_pool_blocks", GAZE_GCP_BATCH, 1048576,
	  "GC page pool size, in 4 KiB blocks (shrinks as pages come back)",
	  gaze_gcp_pool_blocks, gaze_gcp_set_pool_blocks },
	{ "gc_queue_depth", 1, 64,
	  "batches of 64 blocks each queue between two GC stages holds",
	  gaze_tget_depth, gaze_tset_depth },
	{ "gc_read_gap", 0, GAZE_GCP_GAP,
	  "blocks between two runs GC still reads in one request (0: run by run)",
	  gaze_tget_gap, gaze_tset_gap },
	{ "selective_blocking", 0, 1,
	  "selective blocking: writers wait for GC only when their reservation fails (1)",
	  gaze_tget_sel, gaze_tset_sel },
	{ "dirty_limit_pct", 1, 90,
	  "dirty file data the filesystem accepts, in % of RAM",
	  gaze_tget_dirty, gaze_tset_dirty },
	{ "read_fastpath", 0, 1,
	  "short cached reads copied without a folio reference (1)",
	  gaze_tget_readfast, gaze_tset_readfast },
	{ "compress_cpu_pct", 1, 100,
	  "% of online CPUs (rounded up) writeback compresses on at once",
	  gaze_tget_cmp_pct, gaze_tset_cmp_pct },
};

static void gaze_tune_fill(struct gaze_sb_info *sbi,
			   const struct gaze_tunable *tb,
			   struct gaze_ioc_tune *t)
{
	strscpy(t->name, tb->name, sizeof(t->name));
	strscpy(t->help, tb->help, sizeof(t->help));
	t->min = tb->min;
	t->max = tb->max;
	t->value = tb->get(sbi);
}

static const struct gaze_tunable *gaze_tune_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gaze_tunables); i++)
		if (!strcmp(gaze_tunables[i].name, name))
			return &gaze_tunables[i];
	return NULL;
}

static long gaze_ioc_tune(struct super_block *sb, void __user *arg)
{
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	const struct gaze_tunable *tb;
	struct gaze_ioc_tune t;
	long ret;

	if (copy_from_user(&t, arg, sizeof(t)))
		return -EFAULT;
	ret = gaze_ioc_check(t.version, t.flags,
			     GAZE_TUNE_SET | GAZE_TUNE_BY_INDEX, t.reserved,
			     sizeof(t.reserved));
	if (ret)
		return ret;
	if ((t.flags & GAZE_TUNE_SET) && (t.flags & GAZE_TUNE_BY_INDEX))
		return -EINVAL;
	if (t.flags & GAZE_TUNE_BY_INDEX) {
		if (t.index >= ARRAY_SIZE(gaze_tunables))
			return -ENOENT;
		tb = &gaze_tunables[t.index];
	} else {
		if (!memchr(t.name, 0, sizeof(t.name)))
			return -EINVAL;
		tb = gaze_tune_find(t.name);
		if (!tb)
			return -ENOENT;
	}
	mutex_lock(&sbi->tune_lock);
	if (t.flags & GAZE_TUNE_SET) {
		ret = -EPERM;
		if (!capable(CAP_SYS_ADMIN))
			goto out;
		ret = -ERANGE;
		if (t.value < tb->min || t.value > tb->max)
			goto out;
		ret = tb->set(sbi, t.value);
		if (ret)
			goto out;
	}
	gaze_tune_fill(sbi, tb, &t);
out:
	mutex_unlock(&sbi->tune_lock);
	if (!ret && copy_to_user(arg, &t, sizeof(t)))
		ret = -EFAULT;
	return ret;
}

/* ---------------------------------------------------------------- */
/* GC_STATS and GC                                                   */
/* ---------------------------------------------------------------- */

/*
 * Read without fs->lock unless resetting: plain loads of counters that
 * fs->lock holders update, each at most one reclaim old and none torn
 * on the 64-bit kernels GAZE supports; the figures need not agree with
 * each other to the block.
 */
static void gaze_gc_stats_fill(struct gaze_fs *fs, struct gaze_ioc_gc_stats *s)
{
	const struct gaze_gc_stats *g = &fs->gc;
	int i;

	s->zones_reclaimed = g->zones_reclaimed;
	s->zones_foreground = g->zones_fg;
	s->blocks_moved = g->data_moved + g->nodes_moved;
	s->blocks_user = g->user_blocks;
	s->reclaim_ns_total = g->zone_ns_total;
	s->reclaim_ns_max = g->zone_ns_max;
	BUILD_BUG_ON(ARRAY_SIZE(g->hist) != GAZE_GC_HIST);
	for (i = 0; i < GAZE_GC_HIST; i++)
		s->reclaim_hist[i] = g->hist[i];
	BUILD_BUG_ON(ARRAY_SIZE(g->freed_hist) != GAZE_GC_FREED);
	for (i = 0; i < GAZE_GC_FREED; i++) {
		s->freed[i] = g->freed_hist[i];
		s->freed_fg[i] = g->freed_fg_hist[i];
	}
	s->fg_declined = g->fg_declined;
	s->zones_mover = g->zones_mover;
	s->gc_hold_ns_max = g->hold_ns_max;
	BUILD_BUG_ON(sizeof(*s) != 648);
}

static long gaze_ioc_gc_stats(struct super_block *sb, void __user *arg)
{
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	struct gaze_fs *fs = GAZE_FS(sb);
	struct gaze_ioc_gc_stats *s;
	u32 flags;
	long ret;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(s, arg, sizeof(*s)))
		goto out;
	ret = gaze_ioc_check(s->version, s->flags, GAZE_GC_STATS_RESET,
			     s->reserved_in, sizeof(s->reserved_in));
	if (ret)
		goto out;
	flags = s->flags;
	ret = -EPERM;
	if ((flags & GAZE_GC_STATS_RESET) && !capable(CAP_SYS_ADMIN))
		goto out;
	memset(s, 0, sizeof(*s));
	s->version = GAZE_IOC_VERSION;
	s->flags = flags;
	if (flags & GAZE_GC_STATS_RESET) {
		mutex_lock(&fs->lock);
		gaze_gc_stats_fill(fs, s);
		memset(&fs->gc, 0, sizeof(fs->gc));
		mutex_unlock(&fs->lock);
	} else {
		/* no fs->lock: answers at once while a reclaim holds it */
		gaze_gc_stats_fill(fs, s);
	}
	gaze_gcp_stats(sbi, s, flags & GAZE_GC_STATS_RESET);
	gaze_resv_stats(sbi, s, flags & GAZE_GC_STATS_RESET);
	ret = copy_to_user(arg, s, sizeof(*s)) ? -EFAULT : 0;
out:
	kfree(s);
	return ret;
}

/*
 * The victim: `zone` when given (a FULL main zone that fits), else the
 * one gaze_gc_pick gives for GAZE_GC_USER: the same rules whichever
 * collector moves it.  -ENODATA: nothing to reclaim now.
 */
static int gaze_ioc_gc_victim(struct gaze_fs *fs, struct gaze_ioc_gc *g)
{
	u32 valid, state;
	int ret;

	if (g->flags & GAZE_GC_ZONE) {
		if (gaze_space_zone_stat(fs, g->zone, &valid, &state) ||
		    state != GAZE_ZS_FULL)
			return -EINVAL;
		return gaze_gc_room(fs, valid);
	}
	ret = gaze_gc_pick(fs, GAZE_GC_USER, &g->zone);
	return ret == -ENOENT || ret == -ENOSPC ? -ENODATA : ret;
}

/*
 * The core's move in progress (fs->gc_mv) to its end, a chunk per hold
 * of fs->lock (held on entry and on return), so that writers and the
 * GC thread get the lock between chunks.  Another task may take a
 * chunk on meanwhile; it is the same move.
 */
static int gaze_gc_now_finish(struct gaze_sb_info *sbi, struct gaze_fs *fs)
{
	int ret = 0;

	while (fs->gc_mv.zone) {
		ret = gaze_gc_mv_step(fs);
		gaze_space_publish(fs);
		if (ret <= 0)
			break;
		mutex_unlock(&fs->lock);
		wake_up_all(&sbi->gc_progress);
		cond_resched();
		mutex_lock(&fs->lock);
	}
	return ret < 0 ? ret : 0;
}

/* baseline: reclaims one zone through the core's mover */
static int gaze_gc_now(struct gaze_sb_info *sbi, struct gaze_fs *fs,
		       struct gaze_ioc_gc *g)
{
	u64 moved = fs->gc.data_moved + fs->gc.nodes_moved;
	int ret;

	gaze_gc_running_begin(sbi);
	/* one move at a time: one another task began goes first */
	ret = gaze_gc_now_finish(sbi, fs);
	if (!ret)
		ret = gaze_ioc_gc_victim(fs, g);
	if (!ret)
		ret = gaze_gc_move_begin(fs, &fs->gc_mv, g->zone,
					 GAZE_GC_USER);
	if (!ret)
		ret = gaze_gc_now_finish(sbi, fs);
	gaze_gc_running_end(sbi);
	if (!ret)
		g->blocks_moved = fs->gc.data_moved + fs->gc.nodes_moved -
				  moved;
	return ret;
}

/* pipelined: the same through the stage threads; fs->lock not held */
static int gaze_gc_pipelined(struct gaze_sb_info *sbi, struct gaze_fs *fs,
			     struct gaze_ioc_gc *g)
{
	struct gaze_gcp_mjob *j;
	unsigned int nofs;
	u64 moved = 0;
	int ret;

	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	ret = gaze_ioc_gc_victim(fs, g);
	if (!ret) {
		j = gaze_gcp_submit(sbi, fs, g->zone, GAZE_GC_USER);
		ret = IS_ERR(j) ? PTR_ERR(j) : 0;
	}
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
	if (ret)
		return ret == -ENOENT && !(g->flags & GAZE_GC_ZONE) ?
		       -ENODATA : ret;
	ret = gaze_gcp_wait(sbi, j, &g->zone, &moved);
	g->blocks_moved = moved;
	return ret;
}

static long gaze_ioc_gc(struct file *filp, void __user *arg)
{
	struct super_block *sb = file_inode(filp)->i_sb;
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	struct gaze_fs *fs;
	struct gaze_ioc_gc g;
	unsigned int nofs;
	u64 start;
	long ret;

	if (copy_from_user(&g, arg, sizeof(g)))
		return -EFAULT;
	ret = gaze_ioc_check(g.version, g.flags, GAZE_GC_ZONE | GAZE_GC_SYNC,
			     g.reserved_in, sizeof(g.reserved_in));
	if (ret)
		return ret;
	/* write access for the whole reclaim: freeze waits for it */
	ret = gaze_ioc_admin_write(filp);
	if (ret)
		return ret;
	fs = READ_ONCE(sbi->fs);
	memset(g.reserved_out, 0, sizeof(g.reserved_out));
	start = ktime_get_ns();
	ret = -EAGAIN;
	if (gaze_gcp_active(sbi))
		ret = gaze_gc_pipelined(sbi, fs, &g);
	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	if (ret == -EAGAIN)	/* gc_pipeline=0, or its threads are gone */
		ret = gaze_gc_now(sbi, fs, &g);
	if (!ret && (g.flags & GAZE_GC_SYNC))
		ret = gaze_gc_settle(fs);
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
	mnt_drop_write_file(filp);
	if (ret)
		return gaze_error(sb, ret, "gc");
	g.ns = ktime_get_ns() - start;
	return copy_to_user(arg, &g, sizeof(g)) ? -EFAULT : 0;
}

/* ---------------------------------------------------------------- */
/* COMPRESS                                                          */
/* ---------------------------------------------------------------- */

/* sets (GAZE_COMPRESS_SET: as chattr, by the owner) and reads it */
static long gaze_ioc_compress(struct file *filp, void __user *arg)
{
	struct inode *inode = file_inode(filp);
	struct gaze_ioc_compress c;
	struct gaze_attr a;
	unsigned int nofs;
	long ret;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	ret = gaze_ioc_check(c.version, c.flags, GAZE_COMPRESS_SET,
			     c.reserved, sizeof(c.reserved));
	if (!ret && (!gaze_ioc_zero(c.pad0, sizeof(c.pad0)) || c.log_cluster ||
		     c.compr_blocks))
		ret = -EINVAL;
	if (ret)
		return ret;
	if (c.flags & GAZE_COMPRESS_SET) {
		if (!file_owner_or_capable(filp))
			return -EPERM;
		ret = mnt_want_write_file(filp);
		if (ret)
			return ret;
		inode_lock(inode);
		nofs = gaze_nofs_begin();
		ret = gaze_ns_set_compress(GAZE_FS(inode->i_sb), inode->i_ino,
					   c.algo, c.level);
		gaze_nofs_end(nofs);
		if (!ret)
			gaze_refresh_flags(inode);
		inode_unlock(inode);
		mnt_drop_write_file(filp);
		if (ret)
			return ret;	/* EINVAL, EOPNOTSUPP: nothing changed */
	}
	nofs = gaze_nofs_begin();
	ret = gaze_ns_getattr(GAZE_FS(inode->i_sb), inode->i_ino, &a);
	gaze_nofs_end(nofs);
	if (ret)
		return gaze_error(inode->i_sb, ret, "compress");
	c.flags = GAZE_COMPRESS_SOURCE;
	if (a.flags & GAZE_IF_COMPRESS_LOCAL)
		c.flags |= GAZE_COMPRESS_LOCAL;
	c.algo = (a.flags & GAZE_IF_COMPRESS) ? a.compress_algo : 0;
	c.level = (a.flags & GAZE_IF_COMPRESS) ? a.compress_level : 0;
	c.log_cluster = a.compress_log_cluster;
	c.compr_blocks = a.compr_blocks;
	return copy_to_user(arg, &c, sizeof(c)) ? -EFAULT : 0;
}

/* ---------------------------------------------------------------- */
/* FITRIM                                                            */
/* ---------------------------------------------------------------- */

static int gaze_trim_run(struct gaze_fs *fs, struct gaze_trim *t)
{
	unsigned int nofs;
	int ret;

	do {
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
		nofs = gaze_nofs_begin();
		mutex_lock(&fs->lock);
		ret = gaze_space_trim(fs, t);
		mutex_unlock(&fs->lock);
		gaze_nofs_end(nofs);
	} while (!ret);
	return ret < 0 ? ret : 0;
}

static long gaze_ioc_fitrim(struct file *filp, void __user *arg)
{
	struct super_block *sb = file_inode(filp)->i_sb;
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	struct fstrim_range r;
	struct gaze_trim t;
	struct gaze_fs *fs;
	long ret;

	ret = gaze_ioc_admin_write(filp);
	if (ret)
		return ret;
	fs = READ_ONCE(sbi->fs);
	if (!gaze_bdev_can_trim(sbi->dev))
		ret = -EOPNOTSUPP;
	else if (copy_from_user(&r, arg, sizeof(r)))
		ret = -EFAULT;
	else
		ret = gaze_space_trim_init(fs, r.start, r.len, r.minlen, &t);
	if (ret) {		/* the request's: nothing was done */
		mnt_drop_write_file(filp);
		return ret;
	}
	ret = gaze_trim_run(fs, &t);
	mnt_drop_write_file(filp);
	if (ret == -EROFS)	/* shut down meanwhile */
		return -EIO;
	if (ret)
		return ret == -EINTR ? ret : gaze_error(sb, ret, "trim");
	r.len = t.trimmed << GAZE_BLOCK_SHIFT;
	return copy_to_user(arg, &r, sizeof(r)) ? -EFAULT : 0;
}

/* ---------------------------------------------------------------- */
/* dispatch                                                          */
/* ---------------------------------------------------------------- */

long gaze_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct super_block *sb = file_inode(filp)->i_sb;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case GAZE_IOC_INFO:
		return gaze_ioc_info(sb, uarg);
	case GAZE_IOC_TUNE:
		return gaze_ioc_tune(sb, uarg);
	case GAZE_IOC_GC_STATS:
		return gaze_ioc_gc_stats(sb, uarg);
	case GAZE_IOC_GC:
		return gaze_ioc_gc(filp, uarg);
	case GAZE_IOC_COMPRESS:
		return gaze_ioc_compress(filp, uarg);
	case GAZE_IOC_COUNTERS:
		return gaze_ioc_counters(sb, uarg);
	case FITRIM:
		return gaze_ioc_fitrim(filp, uarg);
	case GAZE_IOC_SHUTDOWN: {
		u32 how;

		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		if (get_user(how, (u32 __user *)uarg))
			return -EFAULT;
		return gaze_shutdown(sb, how);
	}
	default:
		return -ENOTTY;
	}
}
