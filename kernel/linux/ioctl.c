// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl.c - the GAZE ioctls (uapi/gaze_ioctl.h) on files and directories
 * of a mounted filesystem: INFO, GC_STATS, TUNE and GC.
 *
 * Every handler copies the argument in, checks version, flags and
 * reserved fields (unknown ones are refused with -EINVAL so they can be
 * given a meaning later), fills the answer and copies it back.
 *
 * Locking: INFO reads core state under fs->lock; TUNE changes a tunable
 * under sbi->tune_lock (readers of a tunable read it once with
 * READ_ONCE and tolerate a change between two reads).
 */
#include <linux/capability.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include "gaze_kern.h"
#include "gaze_ioctl.h"

static bool gaze_ioc_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
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

/* space figures from the zone table (fs->lock held) */
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
	memcpy(in->uuid, fs->uuid, sizeof(in->uuid));
	BUILD_BUG_ON(sizeof(in->label) < GAZE_LABEL_MAX);
	memcpy(in->label, s->label, GAZE_LABEL_MAX);
	in->errors = sbi->opts.errors;
	in->background_gc = sbi->opts.background_gc;
	in->discard = sbi->opts.discard;
	in->victim_policy = le32_to_cpu(s->victim_policy);
	in->user_blocks = le64_to_cpu(s->user_blocks);
	gaze_info_space(fs, in);
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
	mutex_lock(&fs->lock);
	gaze_info_fill(sbi, fs, in);
	mutex_unlock(&fs->lock);
	ret = copy_to_user(arg, in, sizeof(*in)) ? -EFAULT : 0;
out:
	kfree(in);
	return ret;
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
	default:
		return -ENOTTY;
	}
}
