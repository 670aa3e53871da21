/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gaze_kern.h - kernel-only glue between the VFS / block layer and the
 * shared core.  Everything filesystem-specific the module does goes
 * through the core's API (kernel/core/gaze_core.h); these files only
 * translate.
 *
 *   bdev.c   struct gaze_dev_ops on a block device: bios for I/O,
 *            blkdev_report_zones / blkdev_zone_mgmt on zoned devices,
 *            emulated zones (write pointers kept in memory after reset)
 *            on regular devices                       (gaze_bdev_*)
 *   super.c  file_system_type, mount options, fill_super, statfs,
 *            sync_fs, put_super, remount, show_options (gaze_super_*)
 *   inode.c  VFS inodes <-> core inodes: iget, setattr/getattr,
 *            evict (gaze_iget, gaze_setattr, ...)
 *   namei.c  directory inode_operations, readdir       (gaze_dir_*)
 *   file.c   address_space_operations and file_operations for
 *            regular files and symlinks                (gaze_file_*)
 *   xattr.c  xattr handlers (user, trusted, security, POSIX ACLs)
 *   gc.c     background garbage collection thread    (gaze_bggc_*)
 *   gcpipe.c the pipelined GC's stage threads and the GC page pool
 *            (gaze_gcp_* in the module, on the core's staged GC API)
 *   resv.c   selective blocking: write reservations of buffered
 *            writes, blocked-writer counters         (gaze_resv_*)
 *   ioctl.c  GAZE_IOC_* (info, gc-stats, tune, gc) for gazectl
 *   compat.h every difference between the kernels the module builds
 *            for (6.1, 6.12), as small inline wrappers and types
 *
 * Locking: the core serialises itself with fs->lock (a mutex taken by
 * every core entry point).  The glue never holds fs->lock across a call
 * back into the VFS, and calls the core only from process context.  Core
 * calls made from writeback or with VFS locks held run inside
 * memalloc_nofs_save() so reclaim cannot recurse into the filesystem.
 */
#ifndef GAZE_KERN_H
#define GAZE_KERN_H

#include <linux/fs.h>
#include <linux/blkdev.h>
#include <linux/sched/mm.h>
#include "compat.h"
#include "gaze_core.h"
#include "gaze_ioctl.h"

#define GAZE_SUPER_MAGIC	0x455a4147	/* "GAZE" little-endian */

/* errors= mount option */
#define GAZE_ERRORS_CONTINUE	0
#define GAZE_ERRORS_RO		1
#define GAZE_ERRORS_PANIC	2

/* background_gc= mount option (gc.c) */
#define GAZE_BGGC_OFF		0
#define GAZE_BGGC_ON		1
#define GAZE_BGGC_SYNC		2

struct gaze_mount_opts {
	unsigned int	errors;		/* GAZE_ERRORS_* */
	unsigned int	background_gc;	/* GAZE_BGGC_* */
	bool		discard;
	bool		noacl;		/* mount option noacl */
	unsigned int	gc_pipeline;	/* gc_pipeline=on|off (gcpipe.c) */
	unsigned int	gc_pool;	/* gc_pool=on|off */
	bool		selective_blocking;	/* selective_blocking=on|off */
	unsigned int	dirty_limit;	/* dirty_limit=PCT, 0 = superblock's */
	bool		read_fastpath;	/* read_fastpath=on|off (readfast.c) */
	/* compress=ALG[:LEVEL]|no: GAZE_COMPRESS_* and level (none: no) */
	u8		compress_algo, compress_level;
};

/* the read fast path's counters, per CPU (readfast.c); GAZE_RF_* */
struct gaze_rf_stats {
	u64		hits;
	u64		fallback[GAZE_RF_REASONS];
};

struct gaze_sb_info {
	struct gaze_fs		*fs;	/* the core instance */
	struct gaze_dev		*dev;	/* bdev.c */
	struct super_block	*sb;
	struct gaze_mount_opts	opts;
	/*
	 * Instances replaced by a remount ro->rw: a reader that fetched
	 * GAZE_FS(sb) just before the swap may still use one, so they are
	 * freed only at unmount (super.c).
	 */
	struct list_head	retired;
	bool			error_logged;	/* gaze_error said it once */
	/* GAZE_IOC_SHUTDOWN ran: fsync is -EIO, no remount read-write.
	 * Set once (WRITE_ONCE), read without a lock (READ_ONCE) */
	bool			shut_down;
	/* clean metadata blocks back under memory pressure (super.c) */
	struct shrinker		*shrinker;	/* NULL: none (compat.h) */
	/*
	 * background GC thread (gc.c); started and stopped under s_umount.
	 * gc_kick (WRITE_ONCE/READ_ONCE): a step is wanted now; set by
	 * gaze_bggc_kick before waking gc_wait, cleared by the thread.
	 */
	struct task_struct	*gc_thread;
	wait_queue_head_t	gc_wait;
	bool			gc_kick;
	/*
	 * Background GC thresholds (% of main zones free or prefree), 0 =
	 * the superblock's; set by GAZE_IOC_TUNE, read with READ_ONCE.
	 */
	unsigned int		gc_low_pct, gc_high_pct;
	struct mutex		tune_lock;	/* serialises tunable changes */
	/*
	 * Pipelined GC (gcpipe.c): its state, and the switches gc_pipeline
	 * (0: the baseline gaze_gc_zone under fs->lock), gc_pool (0: GC
	 * pages go through a private page cache) and the depth of the
	 * queues between stages; tunables, read with READ_ONCE.
	 */
	struct gaze_gcp		*gcp;
	unsigned int		gc_pipeline, gc_pool, gc_queue_depth;
	unsigned int		gc_read_gap;	/* gaze_gcp_batch.gap_max */
	/*
	 * Selective blocking (resv.c).  gc_running: reclaims in progress
	 * (whoever reclaims brackets it with gaze_gc_running_begin/end);
	 * gc_progress: woken when a reclaim ends or reservations are given
	 * back.  selective, dirty_pct: tunables, READ_ONCE.  The blocked
	 * writer counters: blocked_lock.
	 */
	wait_queue_head_t	gc_progress;
	atomic_t		gc_running;
	bool			selective;
	unsigned int		dirty_pct, sb_dirty_pct;
	spinlock_t		blocked_lock;
	u64			writers_blocked;
	u64			blocked_ns_total, blocked_ns_max;
	/*
	 * Reads without a folio reference (readfast.c): the switch
	 * (mount option and tunable, READ_ONCE) and per-CPU counters,
	 * summed by gaze_rf_stats_sum for GAZE_IOC_INFO.
	 */
	unsigned int		read_fastpath;
	struct gaze_rf_stats __percpu *rf_stats;
	/*
	 * Compression and decoding on several CPUs (cmpwq.c): the unbound
	 * workqueue (NULL without the compression feature), the tunable
	 * compress_cpu_pct and the CPUs it gives, changed together under
	 * tune_lock and read with READ_ONCE; clusters stored as encoded
	 * outside fs->lock, and clusters readahead's workqueue items read
	 * and decoded (both atomic).
	 */
	struct workqueue_struct	*cmp_wq;
	unsigned int		cmp_pct, cmp_cpus;
	atomic64_t		cmp_parallel;
	atomic64_t		cmp_rd_parallel;
};

/*
 * Wrap every core call made with VFS locks held (i_rwsem, page locks)
 * or from writeback: allocations inside then cannot recurse into
 * filesystem reclaim.
 *
 *	unsigned int nofs = gaze_nofs_begin();
 *	ret = gaze_ns_xxx(GAZE_FS(sb), ...);
 *	gaze_nofs_end(nofs);
 */
static inline unsigned int gaze_nofs_begin(void)
{
	return memalloc_nofs_save();
}

static inline void gaze_nofs_end(unsigned int flags)
{
	memalloc_nofs_restore(flags);
}

static inline struct gaze_sb_info *GAZE_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct gaze_fs *GAZE_FS(struct super_block *sb)
{
	return GAZE_SB(sb)->fs;
}

/*
 * The module's in-memory inode (super.c allocates it): the VFS inode and
 * what the VFS has no field for.
 * flags: the core's GAZE_IF_* flags as last read or set
 *	(gaze_attr_to_inode, gaze_fileattr_set, under i_rwsem or before the
 *	inode is live); getattr reads them without a lock, for the statx
 *	attributes that have no S_* inode flag (nodump).
 */
struct gaze_inode_info {
	struct inode	vfs;
	u32		flags;
	/* the core's compress_log_cluster: 0, or set once and never
	 * changed (WRITE_ONCE at each attr load, READ_ONCE) */
	u8		cl_log;
	/* files with clusters: cluster index -> pages on its write
	 * reservation (xa_mk_value counts, under the xarray's lock; resv.c) */
	struct xarray	resv_cl;
};

static inline struct gaze_inode_info *GAZE_I(struct inode *inode)
{
	return container_of(inode, struct gaze_inode_info, vfs);
}

/* bdev.c */
/*
 * Zoned devices: geometry from the zone report.  Regular devices: zones
 * emulated with the size recorded in the superblock (block 0), so a
 * device without a GAZE superblock fails here (-EINVAL, message logged).
 */
int gaze_bdev_open(struct block_device *bdev, struct gaze_dev **devp);
void gaze_bdev_close(struct gaze_dev *dev);
/* mount option discard: emulated zone resets discard (default on) */
void gaze_bdev_set_discard(struct gaze_dev *dev, bool on);
/* FITRIM can do something: zones to reset, or a disk that discards */
bool gaze_bdev_can_trim(struct gaze_dev *dev);
/* reads nr 4 KiB blocks at blk straight from the device */
int gaze_bdev_read(struct block_device *bdev, u64 blk, u32 nr, void *buf);
/*
 * Writeback's batch of folios (file.c): between begin and end, a writev
 * by this task of some of bufs (in order) may be deferred to the plug on
 * zoned devices; taken[i] then says the plug ends folios[i]'s writeback
 * (the caller started it before the core call) and holds a reference.
 * On every device, each write this task makes in between is charged to
 * wbc's cgroup (cgroup writeback: SB_I_CGROUPWB).
 */
struct gaze_defer {
	struct list_head	list;	/* on the plug, under its lock */
	struct task_struct	*task;
	struct writeback_control *wbc;	/* its cgroup pays for the writes */
	void *const		*bufs;
	struct folio		**folios;
	bool			*taken;
	u32			nr;
	u32			pos;	/* first index not yet matched */
};
void gaze_bdev_defer_begin(struct gaze_dev *dev, struct gaze_defer *df);
void gaze_bdev_defer_end(struct gaze_dev *dev, struct gaze_defer *df);
/* submits deferred data and waits for it; its error stays until
 * gaze_bdev_lost_take */
int gaze_bdev_drain(struct gaze_dev *dev);
/*
 * A deferred data write failed: its blocks (*blk, *nr), and the plug's
 * error is cleared (true); false when none is waiting.  Only under
 * fs->lock (gaze_lost_recover).  gaze_bdev_set_error sets it again.
 */
bool gaze_bdev_lost_take(struct gaze_dev *dev, u64 *blk, u32 *nr);
bool gaze_bdev_lost_pending(struct gaze_dev *dev);	/* no lock */
void gaze_bdev_set_error(struct gaze_dev *dev, int err);

/* inode.c */
struct inode *gaze_iget(struct super_block *sb, u32 ino);
struct inode *gaze_iget_attr(struct super_block *sb, u32 ino,
			     const struct gaze_attr *a);
void gaze_drain_mapping(struct inode *inode);
void gaze_attr_to_inode(struct inode *inode, const struct gaze_attr *a);
void gaze_inode_times_to_attr(const struct inode *inode, struct gaze_attr *a);
int gaze_setattr(gaze_idmap_t *idmap, struct dentry *dentry,
		 struct iattr *attr);
int gaze_getattr(gaze_idmap_t *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags);
/* FS_IOC_GETFLAGS / SETFLAGS: append, immutable, noatime, nodump, sync */
void gaze_refresh_flags(struct inode *inode);
int gaze_fileattr_get(struct dentry *dentry, struct fileattr *fa);
int gaze_fileattr_set(gaze_idmap_t *idmap, struct dentry *dentry,
		      struct fileattr *fa);
/* super_operations.evict_inode: frees an orphan at its last reference */
void gaze_evict_inode(struct inode *inode);
/* maps a core error to what the VFS should see, handling errors= */
int gaze_error(struct super_block *sb, int err, const char *what);
/* after a failed deferred data write: its blocks become holes (bdev.c) */
int gaze_lost_recover(struct super_block *sb);

/* namei.c, file.c, xattr.c */
extern const struct inode_operations gaze_dir_inode_operations;
extern const struct file_operations gaze_dir_operations;
extern const struct inode_operations gaze_file_inode_operations;
extern const struct file_operations gaze_file_operations;
extern const struct address_space_operations gaze_aops;

/* export.c: NFS export and open_by_handle_at */
extern const struct export_operations gaze_export_ops;

/* cmpwq.c: clusters compressed and decoded on several CPUs */
#define GAZE_CMP_PCT_DEFAULT	75	/* % of online CPUs (compress_cpu_pct) */
struct gaze_par_ops {
	void *(*get)(void *arg);		/* a runner's state; NULL: none */
	void (*run)(void *arg, void *state, u32 i);	/* state may be NULL */
	void (*put)(void *arg, void *state);
};
u32 gaze_par_run(struct gaze_sb_info *sbi, const struct gaze_par_ops *ops,
		 void *arg, u32 n);
u32 gaze_cmp_batch(struct inode *inode, const u64 *fblks, void *const *bufs,
		   u32 nr, loff_t end, struct gaze_cluster_enc **encp);
void gaze_cmp_batch_end(struct gaze_sb_info *sbi,
			struct gaze_cluster_enc *enc, u32 n);
int gaze_cmp_set_pct(struct gaze_sb_info *sbi, unsigned int pct);
int gaze_cmp_init(struct gaze_sb_info *sbi);
void gaze_cmp_exit(struct gaze_sb_info *sbi);

/* readfast.c: reads without a folio reference (read_fastpath=on) */
ssize_t gaze_read_iter(struct kiocb *iocb, struct iov_iter *to);
void gaze_free_folio(struct folio *folio);
int gaze_migrate_folio(struct address_space *mapping, struct folio *dst,
		       struct folio *src, enum migrate_mode mode);
int gaze_rf_init(struct gaze_sb_info *sbi);
void gaze_rf_exit(struct gaze_sb_info *sbi);
void gaze_rf_stats_sum(struct gaze_sb_info *sbi, struct gaze_rf_stats *sum);
extern const struct inode_operations gaze_symlink_inode_operations;
extern const struct inode_operations gaze_special_inode_operations;
extern const struct xattr_handler *gaze_xattr_handlers[];
/* listxattr for every inode type: the names the caller may see */
ssize_t gaze_listxattr(struct dentry *dentry, char *buffer, size_t size);
/*
 * POSIX ACLs (xattr.c): inode_operations get_acl (get_inode_acl since
 * 6.2) / set_acl; GAZE_IOP_ACL (compat.h) fills them in
 */
struct posix_acl *gaze_get_acl(struct inode *inode, int type, bool rcu);
int gaze_set_acl(gaze_idmap_t *idmap, gaze_acl_target_t *target,
		 struct posix_acl *acl, int type);
/* before a create: the mode and ACLs a new inode in dir gets (umask
 * applied when dir has no default ACL); release both with
 * posix_acl_release */
int gaze_acl_prepare(struct inode *dir, umode_t *mode,
		     struct posix_acl **dacl, struct posix_acl **acl);
/* after it: stores them on the new inode */
int gaze_acl_init(struct inode *inode, struct posix_acl *dacl,
		  struct posix_acl *acl);

/*
 * file.c: GAZE_IOC_SHUTDOWN (uapi/gaze_ioctl.h) - takes the filesystem
 * down as a crash would after writing what `how` says; then it is
 * read-only and nothing more reaches the device, not even at unmount.
 */
int gaze_shutdown(struct super_block *sb, u32 how);
/* file.c: the O_DIRECT alignment (offset, length, buffer) in bytes */
unsigned int gaze_dio_align(struct inode *inode);
/* file.c: zeroes the cached EOF folio past i_size before it grows to `to` */
void gaze_zero_eof_tail(struct inode *inode, loff_t to);

/* gc.c: background GC thread; start is a no-op when the option is off
 * or it runs already; the caller starts it only on a read-write instance */
int gaze_bggc_start(struct gaze_sb_info *sbi);
void gaze_bggc_stop(struct gaze_sb_info *sbi);
void gaze_bggc_kick(struct gaze_sb_info *sbi);
/* the thresholds in effect (sbi's if set, else the superblock's) */
void gaze_bggc_thresholds(struct gaze_sb_info *sbi, unsigned int *low,
			  unsigned int *high);
/*
 * gcpipe.c: the pipelined GC.  init/exit at mount/put_super (page pool,
 * defaults from the superblock); start/stop the stage threads on a
 * read-write instance (stop waits for the jobs in flight).
 */
struct gaze_gcp;
struct gaze_gcp_mjob;
struct gaze_ioc_gc_stats;
int gaze_gcp_init(struct gaze_sb_info *sbi);
void gaze_gcp_exit(struct gaze_sb_info *sbi);
int gaze_gcp_start(struct gaze_sb_info *sbi);
void gaze_gcp_stop(struct gaze_sb_info *sbi);
/* gc_pipeline is on and the threads run */
bool gaze_gcp_active(struct gaze_sb_info *sbi);
/*
 * Reclaims `zone` (or the victim gaze_gc_pick gives for `why`, GAZE_GC_*:
 * GAZE_GCP_ANY) through the pipeline and waits for it: the zone ends
 * PREFREE.  The caller holds write access (sb_start_write), or is
 * writeback (which a freeze waits for), and not fs->lock.  GAZE_GC_FG and
 * GAZE_GC_LAST count as foreground GC.  -ENOENT: no victim worth it;
 * -ENOSPC: it does not fit now; -EBUSY: too many jobs or the zone is
 * being collected; -EAGAIN: the pipeline is not running.
 */
int gaze_gcp_reclaim(struct gaze_sb_info *sbi, u32 zone, int why,
		     u32 *victim, u64 *moved);
/* the same, nobody waiting: the job frees itself at its end */
int gaze_gcp_reclaim_async(struct gaze_sb_info *sbi, u32 zone, int why);
/* waits until no job is in flight */
void gaze_gcp_drain(struct gaze_sb_info *sbi);
/* the same in two halves: submit with fs->lock held, wait without it */
struct gaze_gcp_mjob *gaze_gcp_submit(struct gaze_sb_info *sbi,
				      struct gaze_fs *fs, u32 zone, int why);
int gaze_gcp_wait(struct gaze_sb_info *sbi, struct gaze_gcp_mjob *j,
		  u32 *victim, u64 *moved);
/* stage counters and pool figures for GAZE_IOC_GC_STATS */
void gaze_gcp_stats(struct gaze_sb_info *sbi, struct gaze_ioc_gc_stats *st,
		    bool reset);
int gaze_gcp_set_pool_blocks(struct gaze_sb_info *sbi, u64 v);
u64 gaze_gcp_pool_blocks(struct gaze_sb_info *sbi);

/* ioctl.c: the GAZE_IOC_* ioctls (uapi/gaze_ioctl.h) */
long gaze_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

/* resv.c: selective blocking (write reservations for buffered writes) */
struct gaze_ioc_gc_stats;
/* fill_super, once sbi->fs and sbi->opts are set */
void gaze_resv_init(struct gaze_sb_info *sbi);
/*
 * write_begin: before the page is locked, waits as the mode says and
 * takes a reservation into *held when the page needs one (-ENOSPC: the
 * write fails); with the page locked, gaze_resv_attach marks it (or gives
 * *held back if it was reserved meanwhile; -EAGAIN: unlock, put and start
 * over); gaze_resv_drop gives *held back on an error in between.
 */
int gaze_resv_write_begin(struct address_space *mapping, pgoff_t index,
			  void **held);
int gaze_resv_attach(struct folio *folio, void **held);
void gaze_resv_drop(struct inode *inode, pgoff_t index, void **held);
/* evict_inode, after the page cache is gone: the cluster holds are too */
void gaze_resv_evict(struct inode *inode);
/* writeback of nr blocks, no fs->lock: room first, through the pipeline
 * when the free zones run low, else by the baseline's foreground GC a
 * zone per fs->lock hold (resv.c) */
void gaze_resv_wb_room(struct gaze_sb_info *sbi, u32 nr);
/* data integrity writeback met ENOSPC (again): true after waiting for
 * the reclaims in flight, when another try may succeed; w counts the
 * tries, and the rounds that only waited for a reclaim in flight */
struct gaze_enospc_wait {
	unsigned int tries;
	unsigned int waits;
};
bool gaze_resv_enospc_wait(struct gaze_sb_info *sbi,
			   struct gaze_enospc_wait *w);
/* the page's reservation, if any, is given back (page locked) */
void gaze_resv_release(struct folio *folio);
void gaze_invalidate_folio(struct folio *folio, size_t offset, size_t len);
bool gaze_release_folio(struct folio *folio, gfp_t gfp);
/* brackets every reclaim (foreground or background) */
void gaze_gc_running_begin(struct gaze_sb_info *sbi);
void gaze_gc_running_end(struct gaze_sb_info *sbi);
/* tunables "selective_blocking" (0/1) and "dirty_limit_pct" (1..90):
 * -ENOENT for other names, -ERANGE out of range */
int gaze_resv_tune(struct gaze_sb_info *sbi, const char *name, u64 *val,
		   bool set);
/* writers_blocked, blocked_ns_total/max, reserved_now, selective_blocking */
void gaze_resv_stats(struct gaze_sb_info *sbi, struct gaze_ioc_gc_stats *st,
		     bool reset);

/* super.c */
int gaze_super_init(void);
void gaze_super_exit(void);

#endif /* GAZE_KERN_H */
