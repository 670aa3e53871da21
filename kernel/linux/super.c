// SPDX-License-Identifier: GPL-2.0
/*
 * super.c - the "gaze" file_system_type: mount options (fs_context API),
 * fill_super on top of the core's gaze_fs_open, statfs, sync_fs,
 * put_super, remount and show_options.
 *
 * Mount options:
 *   ro / rw                       generic
 *   errors=remount-ro|panic|continue
 *                                 what a metadata error does (default
 *                                 remount-ro; see gaze_error in inode.c)
 *   background_gc=on|off|sync     the background GC thread (gc.c):
 *                                 on (default) collects below the
 *                                 superblock's bg_gc_low_pct, sync below
 *                                 bg_gc_high_pct without pausing, off
 *                                 leaves only the foreground GC that
 *                                 writes run when free zones run short
 *   gc_pipeline=on|off            GC through the four stage threads
 *                                 (default on; gcpipe.c) or the baseline
 *                                 zone move under fs->lock
 *   gc_pool=on|off                GC pages from the page pool (default
 *                                 on) or through a private page cache
 *                                 (both also tunables: GAZE_IOC_TUNE)
 *   acl / noacl                   POSIX ACLs (default acl; see xattr.c)
 *   discard / nodiscard           on regular devices (emulated zones),
 *                                 whether a zone reset discards the zone;
 *                                 zoned devices always reset their zones
 *   selective_blocking=on|off     buffered writes go on during GC against
 *                                 write reservations (on, default) or wait
 *                                 while GC runs (off); see resv.c
 *   dirty_limit=PCT               cap on reserved (dirty) pages, % of RAM
 *                                 (1..90; default the superblock's
 *                                 dirty_limit_pct)
 *   read_fastpath=on|off          short buffered reads from a cached page
 *                                 without a folio reference (default on;
 *                                 readfast.c; also a tunable)
 *   compress=ALG[:LEVEL]|no       new files in directories that do not
 *                                 compress take ALG (lz4, zstd[:1-19],
 *                                 gzip[:1-9]; needs the compression
 *                                 feature); no (default): they inherit
 *
 * Remount: rw -> ro writes a clean checkpoint and makes the core instance
 * read-only in place; ro -> rw opens a new read-write instance on the same
 * device and retires the old one (freed at unmount, since a lookup that
 * fetched GAZE_FS(sb) just before the swap may still be using it).
 */
#include <linux/module.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/statfs.h>
#include <linux/seq_file.h>
#include <linux/xattr.h>
#include <linux/slab.h>
#include "gaze_kern.h"

struct gaze_retired {
	struct list_head	list;
	struct gaze_fs		*fs;
};

/* the reason of a failed mount, one line per errno the core returns */
static const char *gaze_mount_reason(int err)
{
	switch (err) {
	case -EUCLEAN:
	case -EBADMSG:
		return "corrupt filesystem";
	case -EOPNOTSUPP:
		return "unsupported feature";
	case -EROFS:
		return "read-only mount required";
	case -EINVAL:
		return "invalid geometry or superblock";
	case -ENOMEM:
		return "out of memory";
	case -EIO:
		return "I/O error";
	default:
		return "error";
	}
}

static int gaze_map_mount_err(int err)
{
	return err == -EBADMSG ? -EUCLEAN : err;
}

static void gaze_free_retired(struct gaze_sb_info *sbi)
{
	struct gaze_retired *r, *n;

	list_for_each_entry_safe(r, n, &sbi->retired, list) {
		list_del(&r->list);
		gaze_fs_close(r->fs);	/* read-only: nothing is written */
		kfree(r);
	}
}

static void gaze_put_super(struct super_block *sb)
{
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	unsigned int nofs;
	int ret;

	if (sbi->shrinker)
		gaze_shrinker_destroy(sbi->shrinker);
	gaze_bggc_stop(sbi);
	/* the pipeline's jobs end (releasing their zones) before the close */
	gaze_gcp_exit(sbi);
	nofs = gaze_nofs_begin();
	ret = gaze_fs_close(sbi->fs);
	if (ret)
		pr_err("gaze: %s: final checkpoint failed: %d\n", sb->s_id,
		       ret);
	gaze_free_retired(sbi);
	gaze_nofs_end(nofs);
	gaze_bdev_close(sbi->dev);
	sb->s_fs_info = NULL;
	gaze_cmp_exit(sbi);
	gaze_rf_exit(sbi);
	kfree(sbi);
}

/*
 * The core's metadata cache (inode, node and table blocks): up to 1/4 of
 * RAM, at least the core's default, at most 4 GiB, and a shrinker gives
 * clean blocks back under memory pressure.  Writeback of many small files
 * needs each file's inode again after the whole batch was created, and
 * unlink needs it once more: with the core's 32 MiB, every file cost a
 * synchronous read at each step.
 */
static void gaze_cache_size(struct gaze_fs *fs)
{
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	fs->cache_limit = clamp_t(u64, ram / 4, fs->cache_limit, 4ULL << 30);
}

/*
 * What the module sets on each core instance it opens: the cache size,
 * and that writeback and waiting writers make room before they call the
 * core (resv.c: reclaims through the pipeline, or the baseline's
 * foreground GC a step at a time, letting go of fs->lock between
 * steps), so that the core's own balance inside an operation, which
 * holds fs->lock for its whole run, takes only what the operation
 * cannot go on without (its full run, to the fg level and a batch
 * above, moves up to three zones in one hold: minutes on zones of a
 * gigabyte).
 */
static void gaze_fs_setup(struct gaze_fs *fs)
{
	gaze_cache_size(fs);
	fs->gc_fg_stepped = true;
}

static unsigned long gaze_shrink_count(struct shrinker *sh,
				       struct shrink_control *sc)
{
	struct gaze_sb_info *sbi = gaze_shrinker_private(sh);

	return gaze_cache_nr_bufs(READ_ONCE(sbi->fs));
}

/*
 * Never from inside the core (its allocations are GFP_NOFS) and never
 * waiting for fs->lock: a busy filesystem is simply skipped this round.
 */
static unsigned long gaze_shrink_scan(struct shrinker *sh,
				      struct shrink_control *sc)
{
	struct gaze_sb_info *sbi = gaze_shrinker_private(sh);
	struct gaze_fs *fs = READ_ONCE(sbi->fs);
	unsigned long freed;

	if (!(sc->gfp_mask & __GFP_FS) || !mutex_trylock(&fs->lock))
		return SHRINK_STOP;
	freed = gaze_cache_trim(fs, sc->nr_to_scan);
	mutex_unlock(&fs->lock);
	return freed;
}

static void gaze_shrinker_start(struct gaze_sb_info *sbi)
{
	/* without it the cache only keeps to its limit */
	sbi->shrinker = gaze_shrinker_create(gaze_shrink_count,
					     gaze_shrink_scan, sbi,
					     sbi->sb->s_id);
}

static int gaze_sync_fs(struct super_block *sb, int wait)
{
	unsigned int nofs;
	int ret;

	/* syncfs: every inode's data went out (WB_SYNC_NONE) just before */
	ret = gaze_bdev_drain(GAZE_SB(sb)->dev);
	if (ret == -EIO && !sb_rdonly(sb))
		ret = gaze_lost_recover(sb);	/* the data's error is reported */
	if (ret)
		return gaze_error(sb, ret, "sync");
	if (!wait || sb_rdonly(sb))
		return 0;
	nofs = gaze_nofs_begin();
	ret = gaze_fs_sync(GAZE_FS(sb));
	gaze_nofs_end(nofs);
	return ret ? gaze_error(sb, ret, "sync") : 0;
}

static int gaze_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct super_block *sb = dentry->d_sb;
	struct gaze_fs *fs = GAZE_FS(sb);
	u64 files, used, bfree;

	/*
	 * No fs->lock: df and every gazectl command (which checks the
	 * filesystem type with fstatfs first) answer at once while a
	 * reclaim or a checkpoint holds it; each count is read once
	 */
	bfree = gaze_space_free_blocks(fs);
	used = READ_ONCE(fs->valid_inodes);
	/* blocks promised to dirty pages (resv.c) are not free */
	bfree -= min_t(u64, bfree, READ_ONCE(fs->resv_blocks));
	files = le32_to_cpu(fs->sb.max_nid) - (GAZE_ROOT_INO + 1);

	buf->f_type = GAZE_SUPER_MAGIC;
	buf->f_bsize = GAZE_BLOCK_SIZE;
	buf->f_frsize = GAZE_BLOCK_SIZE;
	buf->f_blocks = le64_to_cpu(fs->sb.user_blocks);
	buf->f_bfree = bfree;
	buf->f_bavail = gaze_space_avail_blocks(bfree);
	buf->f_files = files;
	buf->f_ffree = used < files ? files - used : 0;
	buf->f_namelen = 255;
	buf->f_fsid = uuid_to_fsid(fs->sb.hdr.uuid);	/* the one users see */
	return 0;
}

static int gaze_show_options(struct seq_file *seq, struct dentry *root)
{
	struct gaze_mount_opts *o = &GAZE_SB(root->d_sb)->opts;
	static const char * const errs[] = {
		[GAZE_ERRORS_CONTINUE]	= "continue",
		[GAZE_ERRORS_RO]	= "remount-ro",
		[GAZE_ERRORS_PANIC]	= "panic",
	};

	static const char * const bggc[] = {
		[GAZE_BGGC_OFF]		= "off",
		[GAZE_BGGC_ON]		= "on",
		[GAZE_BGGC_SYNC]	= "sync",
	};

	seq_printf(seq, ",errors=%s", errs[o->errors]);
	seq_printf(seq, ",background_gc=%s", bggc[o->background_gc]);
	seq_puts(seq, o->discard ? ",discard" : ",nodiscard");
	if (!READ_ONCE(GAZE_SB(root->d_sb)->gc_pipeline))
		seq_puts(seq, ",gc_pipeline=off");
	if (!READ_ONCE(GAZE_SB(root->d_sb)->gc_pool))
		seq_puts(seq, ",gc_pool=off");
	if (o->noacl)
		seq_puts(seq, ",noacl");
	seq_printf(seq, ",selective_blocking=%s",
		   o->selective_blocking ? "on" : "off");
	if (o->dirty_limit)
		seq_printf(seq, ",dirty_limit=%u", o->dirty_limit);
	seq_printf(seq, ",read_fastpath=%s",
		   READ_ONCE(GAZE_SB(root->d_sb)->read_fastpath) ? "on" : "off");
	if (o->compress_algo && o->compress_level)
		seq_printf(seq, ",compress=%s:%u",
			   gaze_fmt_compress_name(o->compress_algo),
			   o->compress_level);
	else if (o->compress_algo)
		seq_printf(seq, ",compress=%s",
			   gaze_fmt_compress_name(o->compress_algo));
	return 0;
}

/*
 * Pushes the times the VFS changed without a setattr (file_update_time,
 * touch_atime) to the core.  Everything else is written through at once.
 */
static int gaze_write_inode(struct inode *inode, struct writeback_control *wbc)
{
	struct gaze_attr a = { 0 };
	unsigned int nofs;
	int ret;

	if (!inode->i_nlink || sb_rdonly(inode->i_sb))
		return 0;
	gaze_inode_times_to_attr(inode, &a);
	nofs = gaze_nofs_begin();
	ret = gaze_ns_setattr(GAZE_FS(inode->i_sb), inode->i_ino, &a,
			      GAZE_SET_ATIME | GAZE_SET_MTIME |
			      GAZE_SET_CTIME);
	gaze_nofs_end(nofs);
	if (ret == -ENOENT || ret == -EROFS)
		return 0;
	return ret ? gaze_error(inode->i_sb, ret, "write_inode") : 0;
}

/*
 * freeze: the VFS has written back every dirty page and called sync_fs
 * (a checkpoint) before this; the GC thread is stopped so nothing moves
 * while frozen, and started again at thaw.  Reclaims writeback started
 * without waiting for them (resv.c) may still be moving: they end, and
 * a checkpoint records what they moved.  Called with s_umount held.
 */
static int gaze_freeze_fs(struct super_block *sb)
{
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	unsigned int nofs;
	int ret;

	gaze_bggc_stop(sbi);
	gaze_gcp_drain(sbi);
	nofs = gaze_nofs_begin();
	ret = gaze_fs_sync(sbi->fs);
	gaze_nofs_end(nofs);
	if (ret) {
		gaze_bggc_start(sbi);
		return gaze_error(sb, ret, "freeze");
	}
	return 0;
}

static int gaze_unfreeze_fs(struct super_block *sb)
{
	if (!sb_rdonly(sb))
		gaze_bggc_start(GAZE_SB(sb));
	return 0;
}

static struct kmem_cache *gaze_inode_cachep;

static struct inode *gaze_alloc_inode(struct super_block *sb)
{
	struct gaze_inode_info *gi;

	gi = alloc_inode_sb(sb, gaze_inode_cachep, GFP_KERNEL);
	if (!gi)
		return NULL;
	gi->flags = 0;
	gi->cl_log = 0;
	xa_init(&gi->resv_cl);
	return &gi->vfs;
}

/* after an RCU grace period (the VFS's free_inode) */
static void gaze_free_inode(struct inode *inode)
{
	kmem_cache_free(gaze_inode_cachep, GAZE_I(inode));
}

static void gaze_inode_once(void *p)
{
	struct gaze_inode_info *gi = p;

	inode_init_once(&gi->vfs);
}

static const struct super_operations gaze_sops = {
	.alloc_inode	= gaze_alloc_inode,
	.free_inode	= gaze_free_inode,
	.write_inode	= gaze_write_inode,
	.evict_inode	= gaze_evict_inode,
	.put_super	= gaze_put_super,
	.sync_fs	= gaze_sync_fs,
	.freeze_fs	= gaze_freeze_fs,
	.unfreeze_fs	= gaze_unfreeze_fs,
	.statfs		= gaze_statfs,
	.show_options	= gaze_show_options,
};

/* ---------------------------------------------------------------- */
/* mount options                                                     */
/* ---------------------------------------------------------------- */

enum { Opt_errors, Opt_background_gc, Opt_discard, Opt_acl, Opt_gc_pipeline,
       Opt_gc_pool, Opt_selective_blocking, Opt_dirty_limit,
       Opt_read_fastpath, Opt_compress };

static const struct constant_table gaze_param_onoff[] = {
	{ "off",	0 },
	{ "on",		1 },
	{}
};

static const struct constant_table gaze_param_errors[] = {
	{ "continue",	GAZE_ERRORS_CONTINUE },
	{ "panic",	GAZE_ERRORS_PANIC },
	{ "remount-ro",	GAZE_ERRORS_RO },
	{}
};

static const struct constant_table gaze_param_bggc[] = {
	{ "off",	GAZE_BGGC_OFF },
	{ "on",		GAZE_BGGC_ON },
	{ "sync",	GAZE_BGGC_SYNC },
	{}
};

static const struct fs_parameter_spec gaze_param_specs[] = {
	fsparam_enum("errors", Opt_errors, gaze_param_errors),
	fsparam_enum("background_gc", Opt_background_gc, gaze_param_bggc),
	fsparam_flag_no("discard", Opt_discard),
	fsparam_flag_no("acl", Opt_acl),
	fsparam_enum("gc_pipeline", Opt_gc_pipeline, gaze_param_onoff),
	fsparam_enum("gc_pool", Opt_gc_pool, gaze_param_onoff),
	fsparam_enum("selective_blocking", Opt_selective_blocking,
		     gaze_param_onoff),
	fsparam_u32("dirty_limit", Opt_dirty_limit),
	fsparam_enum("read_fastpath", Opt_read_fastpath, gaze_param_onoff),
	fsparam_string("compress", Opt_compress),
	{}
};

static int gaze_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct gaze_mount_opts *o = fc->fs_private;
	struct fs_parse_result r;
	int opt;

	if (!strcmp(param->key, "source"))
		return -ENOPARAM;	/* the VFS takes the device name */
	opt = fs_parse(fc, gaze_param_specs, param, &r);
	if (opt == -ENOPARAM)
		return invalfc(fc, "unknown mount option \"%s\"", param->key);
	if (opt < 0)
		return opt;
	switch (opt) {
	case Opt_errors:
		o->errors = r.uint_32;
		break;
	case Opt_background_gc:
		o->background_gc = r.uint_32;
		break;
	case Opt_discard:
		o->discard = !r.negated;
		break;
	case Opt_acl:
		o->noacl = r.negated;
		break;
	case Opt_gc_pipeline:
		o->gc_pipeline = r.uint_32;
		break;
	case Opt_gc_pool:
		o->gc_pool = r.uint_32;
		break;
	case Opt_selective_blocking:
		o->selective_blocking = r.uint_32;
		break;
	case Opt_read_fastpath:
		o->read_fastpath = r.uint_32;
		break;
	case Opt_dirty_limit:
		if (r.uint_32 < 1 || r.uint_32 > 90)
			return invalfc(fc, "dirty_limit must be 1..90");
		o->dirty_limit = r.uint_32;
		break;
	case Opt_compress:
		if (gaze_fmt_compress_parse(param->string, &o->compress_algo,
					    &o->compress_level))
			return invalfc(fc, "compress=%s: not lz4, zstd[:1-19], gzip[:1-9] or no",
				       param->string);
		break;
	}
	return 0;
}

/* the mount's compress= to the core instance */
static int gaze_apply_compress(struct super_block *sb, struct gaze_fs *fs,
			       const struct gaze_mount_opts *o)
{
	int ret = gaze_fs_set_compress(fs, o->compress_algo,
				       o->compress_level);

	if (ret == -EOPNOTSUPP)
		pr_err("gaze: %s: compress=: the filesystem has no compression feature (gazectl features DEVICE compression turns it on, unmounted)\n",
		       sb->s_id);
	return ret ? -EINVAL : 0;
}

static int gaze_check_super(struct super_block *sb, struct gaze_dev *dev)
{
	struct gaze_mhdr *h;
	u32 magic0, magic1 = 0;
	int ret;

	/* emulated zones: bdev.c read block 0 and checked it already */
	if (dev->model != GAZE_ZM_HOST_MANAGED)
		return 0;
	h = kmalloc(GAZE_BLOCK_SIZE, GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	ret = dev->ops->read(dev, 0, 1, h);
	magic0 = ret ? 0 : le32_to_cpu(h->magic);
	if (magic0 != GAZE_MAGIC_SB && dev->nr_zones > 1 &&
	    !dev->ops->read(dev, dev->zone_blocks, 1, h))
		magic1 = le32_to_cpu(h->magic);
	kfree(h);
	if (magic0 != GAZE_MAGIC_SB && magic1 != GAZE_MAGIC_SB) {
		if (ret)
			pr_err("gaze: %s: cannot read the superblock: %d\n",
			       sb->s_id, ret);
		else
			pr_err("gaze: %s: not a GAZE filesystem (bad magic)\n",
			       sb->s_id);
		return ret ? ret : -EINVAL;
	}
	return 0;
}

/*
 * A read-only mount of a filesystem not cleanly unmounted, on a device
 * that is writable, first replays what fsync wrote after the last
 * checkpoint and frees the orphans of the crash (files unlinked while
 * open), as ext4 replays its journal and its orphan list and XFS its
 * log and unlinked lists: what it shows is what a read-write mount
 * would, a later remount read-write (which opens the device again)
 * changes nothing under the page cache, and no orphan is left for fsck
 * after a read-only mount (fstests generic/417).
 */
static int gaze_ro_replay(struct super_block *sb, struct gaze_sb_info *sbi)
{
	u32 nodes = 0;
	int ret;

	if (!sbi->fs->rf_pending && !sbi->fs->nr_orphans)
		return 0;
	if (bdev_read_only(sb->s_bdev)) {
		pr_warn("gaze: %s: read-only device: %u nodes written by fsync after the last checkpoint are not replayed, %u orphans not freed\n",
			sb->s_id, sbi->fs->rf_pending, sbi->fs->nr_orphans);
		return 0;
	}
	gaze_fs_close(sbi->fs);		/* read-only: writes nothing */
	sbi->fs = NULL;
	ret = gaze_fs_replay(sbi->dev, 0, &nodes);
	if (ret)
		return ret;
	if (nodes)
		pr_info("gaze: %s: roll-forward: replayed %u nodes written by fsync after the last checkpoint (before the read-only mount)\n",
			sb->s_id, nodes);
	return gaze_fs_open(sbi->dev, GAZE_FS_RDONLY, &sbi->fs);
}

static int gaze_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct gaze_mount_opts *o = fc->fs_private;
	struct gaze_sb_info *sbi;
	struct inode *root;
	unsigned int nofs;
	u64 maxbytes;
	int ret;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sbi->sb = sb;
	sbi->opts = *o;
	INIT_LIST_HEAD(&sbi->retired);
	mutex_init(&sbi->tune_lock);
	sbi->read_fastpath = o->read_fastpath;
	ret = gaze_rf_init(sbi);
	if (ret)
		goto out_free;
	if (!sb_set_blocksize(sb, GAZE_BLOCK_SIZE)) {
		pr_err("gaze: %s: cannot use a block size of %u\n", sb->s_id,
		       GAZE_BLOCK_SIZE);
		ret = -EINVAL;
		goto out_free;
	}
	ret = gaze_bdev_open(sb->s_bdev, &sbi->dev);
	if (ret)
		goto out_free;
	gaze_bdev_set_discard(sbi->dev, o->discard);
	ret = gaze_check_super(sb, sbi->dev);
	if (ret)
		goto out_bdev;
	nofs = gaze_nofs_begin();
	ret = gaze_fs_open(sbi->dev, sb_rdonly(sb) ? GAZE_FS_RDONLY : 0,
			   &sbi->fs);
	if (!ret && sb_rdonly(sb))
		ret = gaze_ro_replay(sb, sbi);
	else if (!ret && sbi->fs->rf_recovered)
		pr_info("gaze: %s: roll-forward: replayed %u nodes written by fsync after the last checkpoint\n",
			sb->s_id, sbi->fs->rf_recovered);
	gaze_nofs_end(nofs);
	if (ret) {
		ret = gaze_map_mount_err(ret);
		pr_err("gaze: %s: cannot mount: %s (%d)\n", sb->s_id,
		       gaze_mount_reason(ret), ret);
		goto out_bdev;
	}
	ret = gaze_apply_compress(sb, sbi->fs, o);
	if (!ret)
		ret = gaze_cmp_init(sbi);
	if (ret)
		goto out_fs;
	gaze_fs_setup(sbi->fs);
	sb->s_fs_info = sbi;
	gaze_resv_init(sbi);
	sb->s_magic = GAZE_SUPER_MAGIC;
	sb->s_op = &gaze_sops;
	sb->s_export_op = &gaze_export_ops;
	sb->s_xattr = gaze_xattr_handlers;
	/* writeback charges each cgroup for what it dirtied (bdev.c) */
	sb->s_iflags |= SB_I_CGROUPWB;
	if (!o->noacl)
		sb->s_flags |= SB_POSIXACL;
	maxbytes = GAZE_BMAP_MAX_BLOCKS << GAZE_BLOCK_SHIFT;
	sb->s_maxbytes = min_t(u64, maxbytes, MAX_LFS_FILESIZE);
	sb->s_time_gran = 1;
	sb->s_time_min = S64_MIN;
	sb->s_time_max = S64_MAX;
	/* the filesystem uuid users see (blkid, /dev/disk/by-uuid) */
	memcpy(&sb->s_uuid, sbi->fs->sb.hdr.uuid, sizeof(sb->s_uuid));

	root = gaze_iget(sb, GAZE_ROOT_INO);
	if (IS_ERR(root)) {
		ret = PTR_ERR(root);
		pr_err("gaze: %s: cannot read the root directory: %d\n",
		       sb->s_id, ret);
		goto out_fs;
	}
	if (!S_ISDIR(root->i_mode)) {
		pr_err("gaze: %s: corrupt filesystem: the root is not a directory\n",
		       sb->s_id);
		iput(root);
		ret = -EUCLEAN;
		goto out_fs;
	}
	sb->s_root = d_make_root(root);
	if (!sb->s_root) {
		ret = -ENOMEM;
		goto out_fs;
	}
	ret = gaze_gcp_init(sbi);	/* takes opts.gc_pipeline, gc_pool */
	if (ret) {
		pr_err("gaze: %s: cannot allocate the GC page pool: %d\n",
		       sb->s_id, ret);
		goto out_root;
	}
	/* without the threads, foreground GC still frees space */
	if (!sb_rdonly(sb)) {
		gaze_gcp_start(sbi);
		gaze_bggc_start(sbi);
	}
	gaze_shrinker_start(sbi);
	return 0;

out_root:
	dput(sb->s_root);
	sb->s_root = NULL;
out_fs:
	/* inodes are gone (iput above); nothing was changed: just free */
	sbi->fs->flags |= GAZE_FS_RDONLY;
	gaze_fs_close(sbi->fs);
	sb->s_fs_info = NULL;
out_bdev:
	gaze_bdev_close(sbi->dev);
out_free:
	gaze_cmp_exit(sbi);
	gaze_rf_exit(sbi);
	kfree(sbi);
	return ret;
}

static int gaze_get_tree(struct fs_context *fc)
{
	return get_tree_bdev(fc, gaze_fill_super);
}

static int gaze_remount_ro(struct super_block *sb)
{
	struct gaze_fs *fs = GAZE_FS(sb);
	int ret = 0;

	mutex_lock(&fs->lock);
	if (!(fs->flags & GAZE_FS_RDONLY)) {
		ret = gaze_cp_write(fs, GAZE_CP_UMOUNT);
		if (!ret)
			fs->flags |= GAZE_FS_RDONLY;
	}
	mutex_unlock(&fs->lock);
	return ret;
}

static int gaze_remount_rw(struct super_block *sb)
{
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	struct gaze_retired *r;
	struct gaze_fs *nfs;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	/* open files may be orphans: they are freed at their last close */
	ret = gaze_fs_open(sbi->dev, GAZE_FS_KEEP_ORPHANS, &nfs);
	if (ret) {
		kfree(r);
		ret = gaze_map_mount_err(ret);
		pr_err("gaze: %s: cannot remount read-write: %s (%d)\n",
		       sb->s_id, gaze_mount_reason(ret), ret);
		return ret;
	}
	gaze_fs_setup(nfs);
	gaze_fs_set_compress(nfs, sbi->opts.compress_algo,
			     sbi->opts.compress_level);
	r->fs = sbi->fs;
	list_add(&r->list, &sbi->retired);
	WRITE_ONCE(sbi->fs, nfs);
	return 0;
}

static int gaze_reconfigure(struct fs_context *fc)
{
	struct super_block *sb = fc->root->d_sb;
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	struct gaze_mount_opts *o = fc->fs_private;
	bool want_ro = fc->sb_flags & SB_RDONLY;
	unsigned int nofs;
	int ret = 0;

	if (!want_ro && sb_rdonly(sb) && READ_ONCE(sbi->shut_down)) {
		pr_err("gaze: %s: shut down: unmount it before mounting read-write\n",
		       sb->s_id);
		return -EIO;
	}
	ret = gaze_apply_compress(sb, GAZE_FS(sb), o);
	if (ret)
		return ret;
	sync_filesystem(sb);
	/* the threads are restarted below with the new options, if wanted */
	gaze_bggc_stop(sbi);
	gaze_gcp_stop(sbi);
	nofs = gaze_nofs_begin();
	if (want_ro && !sb_rdonly(sb))
		ret = gaze_remount_ro(sb);
	else if (!want_ro && sb_rdonly(sb))
		ret = gaze_remount_rw(sb);
	gaze_nofs_end(nofs);
	if (ret) {
		if (!sb_rdonly(sb)) {
			gaze_gcp_start(sbi);
			gaze_bggc_start(sbi);
		}
		return ret;
	}
	sbi->opts = *o;
	/* checked above; again for an instance a ro -> rw remount made */
	gaze_fs_set_compress(GAZE_FS(sb), o->compress_algo, o->compress_level);
	WRITE_ONCE(sbi->gc_pipeline, o->gc_pipeline);
	WRITE_ONCE(sbi->gc_pool, o->gc_pool);
	WRITE_ONCE(sbi->read_fastpath, o->read_fastpath);
	sbi->error_logged = false;
	WRITE_ONCE(sbi->selective, o->selective_blocking);
	WRITE_ONCE(sbi->dirty_pct, o->dirty_limit ? o->dirty_limit :
		   sbi->sb_dirty_pct);
	sb->s_flags = (sb->s_flags & ~SB_POSIXACL) |
		      (o->noacl ? 0 : SB_POSIXACL);
	gaze_bdev_set_discard(sbi->dev, o->discard);
	if (!want_ro) {
		gaze_gcp_start(sbi);
		gaze_bggc_start(sbi);
	}
	return 0;
}

static void gaze_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations gaze_context_ops = {
	.free		= gaze_free_fc,
	.parse_param	= gaze_parse_param,
	.get_tree	= gaze_get_tree,
	.reconfigure	= gaze_reconfigure,
};

static int gaze_init_fs_context(struct fs_context *fc)
{
	struct gaze_mount_opts *o;

	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	if (fc->purpose == FS_CONTEXT_FOR_RECONFIGURE) {
		*o = GAZE_SB(fc->root->d_sb)->opts;
		/* the switches as tuned since */
		o->gc_pipeline = READ_ONCE(GAZE_SB(fc->root->d_sb)->gc_pipeline);
		o->gc_pool = READ_ONCE(GAZE_SB(fc->root->d_sb)->gc_pool);
		o->read_fastpath =
			READ_ONCE(GAZE_SB(fc->root->d_sb)->read_fastpath);
	} else {
		o->errors = GAZE_ERRORS_RO;
		o->background_gc = GAZE_BGGC_ON;
		o->discard = true;
		o->gc_pipeline = 1;
		o->gc_pool = 1;
		o->selective_blocking = true;
		o->read_fastpath = true;
	}
	fc->fs_private = o;
	fc->ops = &gaze_context_ops;
	return 0;
}

static struct file_system_type gaze_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "gaze",
	.init_fs_context	= gaze_init_fs_context,
	.parameters		= gaze_param_specs,
	.kill_sb		= kill_block_super,
	/* idmapped mounts: every inode operation maps ids through the
	 * mount's idmapping (gaze_new_attr, setattr_prepare/copy,
	 * generic_fillattr, the ACL helpers) */
	.fs_flags		= FS_REQUIRES_DEV | FS_ALLOW_IDMAP,
};
MODULE_ALIAS_FS("gaze");

int gaze_super_init(void)
{
	int ret;

	gaze_inode_cachep = kmem_cache_create("gaze_inode",
					      sizeof(struct gaze_inode_info), 0,
					      SLAB_RECLAIM_ACCOUNT |
					      SLAB_ACCOUNT, gaze_inode_once);
	if (!gaze_inode_cachep)
		return -ENOMEM;
	ret = register_filesystem(&gaze_fs_type);
	if (ret)
		kmem_cache_destroy(gaze_inode_cachep);
	return ret;
}

void gaze_super_exit(void)
{
	unregister_filesystem(&gaze_fs_type);
	rcu_barrier();		/* inodes freed after a grace period */
	kmem_cache_destroy(gaze_inode_cachep);
}
