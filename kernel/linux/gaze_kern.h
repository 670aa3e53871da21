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
#include "gaze_core.h"

#define GAZE_SUPER_MAGIC	0x455a4147	/* "GAZE" little-endian */

/* errors= mount option */
#define GAZE_ERRORS_CONTINUE	0
#define GAZE_ERRORS_RO		1
#define GAZE_ERRORS_PANIC	2

struct gaze_mount_opts {
	unsigned int	errors;		/* GAZE_ERRORS_* */
	bool		background_gc;
	bool		discard;
	bool		noacl;		/* mount option noacl */
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
/* reads nr 4 KiB blocks at blk straight from the device */
int gaze_bdev_read(struct block_device *bdev, u64 blk, u32 nr, void *buf);

/* inode.c */
struct inode *gaze_iget(struct super_block *sb, u32 ino);
void gaze_attr_to_inode(struct inode *inode, const struct gaze_attr *a);
void gaze_inode_times_to_attr(const struct inode *inode, struct gaze_attr *a);
int gaze_setattr(struct user_namespace *mnt_userns, struct dentry *dentry,
		 struct iattr *attr);
int gaze_getattr(struct user_namespace *mnt_userns, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags);
/* super_operations.evict_inode: frees an orphan at its last reference */
void gaze_evict_inode(struct inode *inode);
/* maps a core error to what the VFS should see, handling errors= */
int gaze_error(struct super_block *sb, int err, const char *what);

/* namei.c, file.c, xattr.c */
extern const struct inode_operations gaze_dir_inode_operations;
extern const struct file_operations gaze_dir_operations;
extern const struct inode_operations gaze_file_inode_operations;
extern const struct file_operations gaze_file_operations;
extern const struct address_space_operations gaze_aops;
extern const struct inode_operations gaze_symlink_inode_operations;
extern const struct inode_operations gaze_special_inode_operations;
extern const struct xattr_handler *gaze_xattr_handlers[];
/* listxattr for every inode type: the names the caller may see */
ssize_t gaze_listxattr(struct dentry *dentry, char *buffer, size_t size);
/* POSIX ACLs (xattr.c): inode_operations get_acl / set_acl */
struct posix_acl *gaze_get_acl(struct inode *inode, int type, bool rcu);
int gaze_set_acl(struct user_namespace *mnt_userns, struct inode *inode,
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
 * GAZE_IOC_SHUTDOWN (file.c): takes the filesystem down as a crash
 * would, for tests and for fencing a failing device.  The argument (a
 * __u32 read from user memory) says what is written first:
 *   GAZE_SHUTDOWN_DEFAULT     dirty data and a checkpoint (like sync)
 *   GAZE_SHUTDOWN_LOGFLUSH    a checkpoint only: dirty page-cache data
 *                             is lost
 *   GAZE_SHUTDOWN_NOLOGFLUSH  nothing: the device keeps the last
 *                             checkpoint
 * Afterwards the filesystem is read-only and nothing more is written to
 * the device, not even at unmount; the next mount starts from the last
 * checkpoint (freeing its orphans).  CAP_SYS_ADMIN.  The number is the
 * one XFS, ext4 and f2fs use ('X', 125), so xfs_io -x -c shutdown works.
 */
#define GAZE_IOC_SHUTDOWN		_IOR('X', 125, __u32)
#define GAZE_SHUTDOWN_DEFAULT		0
#define GAZE_SHUTDOWN_LOGFLUSH		1
#define GAZE_SHUTDOWN_NOLOGFLUSH	2
long gaze_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* super.c */
int gaze_super_init(void);
void gaze_super_exit(void);

#endif /* GAZE_KERN_H */
