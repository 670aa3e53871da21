// SPDX-License-Identifier: GPL-2.0
/*
 * inode.c - VFS inodes over core inodes.
 *
 * The core is the source of truth for attributes: gaze_iget fills a VFS
 * inode from gaze_ns_getattr, and gaze_setattr writes a change through to
 * the core at once (no dirty inode state is kept for it).  Error policy
 * (errors= mount option) lives here too: gaze_error.
 */
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/uidgid.h>
#include <linux/posix_acl.h>
#include <linux/fileattr.h>
#include "gaze_kern.h"

/*
 * chattr flags: the core keeps GAZE_IF_USER in the inode, the VFS acts on
 * S_APPEND, S_IMMUTABLE (refuses writes, truncation, renames, links,
 * xattr and attribute changes), S_NOATIME and S_SYNC (every write is
 * followed by an fsync).  NODUMP is only kept.
 */
static const struct {
	u32 gaze, fs;
	unsigned int s;
} gaze_flag_map[] = {
	{ GAZE_IF_APPEND,	FS_APPEND_FL,		S_APPEND },
	{ GAZE_IF_IMMUTABLE,	FS_IMMUTABLE_FL,	S_IMMUTABLE },
	{ GAZE_IF_NOATIME,	FS_NOATIME_FL,		S_NOATIME },
	{ GAZE_IF_NODUMP,	FS_NODUMP_FL,		0 },
	{ GAZE_IF_SYNC,		FS_SYNC_FL,		S_SYNC },
	{ GAZE_IF_COMPRESS,	FS_COMPR_FL,		0 },
};

static void gaze_flags_to_inode(struct inode *inode,
				const struct gaze_attr *a)
{
	u32 flags = a->flags;
	unsigned int s = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gaze_flag_map); i++)
		if (flags & gaze_flag_map[i].gaze)
			s |= gaze_flag_map[i].s;
	inode_set_flags(inode, s, S_APPEND | S_IMMUTABLE | S_NOATIME | S_SYNC);
	WRITE_ONCE(GAZE_I(inode)->flags, flags);
	WRITE_ONCE(GAZE_I(inode)->cl_log, a->compress_log_cluster);
}

void gaze_attr_to_inode(struct inode *inode, const struct gaze_attr *a)
{
	inode->i_mode = a->mode;
	i_uid_write(inode, a->uid);
	i_gid_write(inode, a->gid);
	set_nlink(inode, a->nlink);
	i_size_write(inode, a->size);
	inode->i_blocks = a->blocks << (GAZE_BLOCK_SHIFT - 9);
	gaze_set_atime(inode, (struct timespec64){ a->atime, a->atime_nsec });
	gaze_set_mtime(inode, (struct timespec64){ a->mtime, a->mtime_nsec });
	gaze_set_ctime(inode, (struct timespec64){ a->ctime, a->ctime_nsec });
	inode->i_generation = a->generation;
	gaze_flags_to_inode(inode, a);
}

/* the VFS inode's three times, for a gaze_ns_setattr() */
void gaze_inode_times_to_attr(const struct inode *inode, struct gaze_attr *a)
{
	struct timespec64 at = gaze_atime(inode), mt = gaze_mtime(inode);
	struct timespec64 ct = gaze_ctime(inode);

	a->atime = at.tv_sec;
	a->atime_nsec = at.tv_nsec;
	a->mtime = mt.tv_sec;
	a->mtime_nsec = mt.tv_nsec;
	a->ctime = ct.tv_sec;
	a->ctime_nsec = ct.tv_nsec;
}

static void gaze_set_ops(struct inode *inode, const struct gaze_attr *a)
{
	switch (inode->i_mode & S_IFMT) {
	case S_IFDIR:
		inode->i_op = &gaze_dir_inode_operations;
		inode->i_fop = &gaze_dir_operations;
		break;
	case S_IFREG:
		inode->i_op = &gaze_file_inode_operations;
		inode->i_fop = &gaze_file_operations;
		inode->i_mapping->a_ops = &gaze_aops;
		break;
	case S_IFLNK:
		inode->i_op = &gaze_symlink_inode_operations;
		inode->i_mapping->a_ops = &gaze_aops;
		inode_nohighmem(inode);
		break;
	default:
		inode->i_op = &gaze_special_inode_operations;
		init_special_inode(inode, inode->i_mode,
				   MKDEV(a->rdev_major, a->rdev_minor));
		break;
	}
}

/*
 * The VFS inode of core inode ino.  a: its attributes when the caller has
 * them from the core already (a create), else NULL and they are read.
 * One still cached under that number is returned as it is (after a
 * create it cannot be: a freed number leaves the hash, gaze_ns_apply).
 */
struct inode *gaze_iget_attr(struct super_block *sb, u32 ino,
			     const struct gaze_attr *a)
{
	struct gaze_attr got;
	struct inode *inode;
	unsigned int nofs;
	int ret;

	inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;
	if (!a) {
		nofs = gaze_nofs_begin();
		ret = gaze_ns_getattr(GAZE_FS(sb), ino, &got);
		gaze_nofs_end(nofs);
		if (ret) {
			iget_failed(inode);
			if (ret != -ENOENT && ret != -ENOMEM)
				ret = gaze_error(sb, ret, "reading an inode");
			return ERR_PTR(ret);
		}
		a = &got;
	}
	gaze_attr_to_inode(inode, a);
	gaze_set_ops(inode, a);
	unlock_new_inode(inode);
	return inode;
}

struct inode *gaze_iget(struct super_block *sb, u32 ino)
{
	return gaze_iget_attr(sb, ino, NULL);
}

/* re-reads what the core computed (blocks, times it touched) */
static void gaze_refresh(struct inode *inode, bool size)
{
	struct gaze_attr a;
	unsigned int nofs = gaze_nofs_begin();
	int ret;

	ret = gaze_ns_getattr(GAZE_FS(inode->i_sb), inode->i_ino, &a);
	gaze_nofs_end(nofs);
	if (ret)
		return;
	if (size) {
		gaze_attr_to_inode(inode, &a);
		return;
	}
	inode->i_blocks = a.blocks << (GAZE_BLOCK_SHIFT - 9);
}

/* the flags the core now has (a compression change: GAZE_ATTR_CLUSTERS) */
void gaze_refresh_flags(struct inode *inode)
{
	struct gaze_attr a;
	unsigned int nofs = gaze_nofs_begin();
	int ret;

	ret = gaze_ns_getattr(GAZE_FS(inode->i_sb), inode->i_ino, &a);
	gaze_nofs_end(nofs);
	if (!ret)
		gaze_flags_to_inode(inode, &a);
}

int gaze_fileattr_get(struct dentry *dentry, struct fileattr *fa)
{
	struct inode *inode = d_inode(dentry);
	struct gaze_attr a;
	unsigned int nofs;
	u32 fl = 0;
	size_t i;
	int ret;

	nofs = gaze_nofs_begin();
	ret = gaze_ns_getattr(GAZE_FS(inode->i_sb), inode->i_ino, &a);
	gaze_nofs_end(nofs);
	if (ret)
		return gaze_error(inode->i_sb, ret, "getflags");
	for (i = 0; i < ARRAY_SIZE(gaze_flag_map); i++)
		if (a.flags & gaze_flag_map[i].gaze)
			fl |= gaze_flag_map[i].fs;
	fileattr_fill_flags(fa, fl);
	return 0;
}

/* the VFS checked ownership and CAP_LINUX_IMMUTABLE, and holds i_rwsem */
int gaze_fileattr_set(gaze_idmap_t *idmap, struct dentry *dentry,
		      struct fileattr *fa)
{
	struct inode *inode = d_inode(dentry);
	struct gaze_attr a = { 0 };
	unsigned int nofs;
	u32 known = 0;
	size_t i;
	int ret;

	if (fileattr_has_fsx(fa))
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(gaze_flag_map); i++) {
		known |= gaze_flag_map[i].fs;
		if (fa->flags & gaze_flag_map[i].fs)
			a.flags |= gaze_flag_map[i].gaze;
	}
	if (fa->flags & ~known)
		return -EOPNOTSUPP;
	if (sb_rdonly(inode->i_sb))
		return -EROFS;
	if (!inode->i_nlink && S_ISDIR(inode->i_mode))
		return -ESTALE;		/* see gaze_setattr */
	gaze_set_ctime_current(inode);
	gaze_inode_times_to_attr(inode, &a);
	nofs = gaze_nofs_begin();
	ret = gaze_ns_setattr(GAZE_FS(inode->i_sb), inode->i_ino, &a,
			      GAZE_SET_FLAGS | GAZE_SET_CTIME);
	gaze_nofs_end(nofs);
	if (ret == -EOPNOTSUPP || ret == -EINVAL)
		return ret;	/* +c without the compression feature */
	if (!ret) {
		nofs = gaze_nofs_begin();
		ret = gaze_ns_getattr(GAZE_FS(inode->i_sb), inode->i_ino, &a);
		gaze_nofs_end(nofs);
	}
	if (ret) {
		gaze_refresh(inode, true);
		return gaze_error(inode->i_sb, ret, "setflags");
	}
	gaze_flags_to_inode(inode, &a);
	return 0;
}

int gaze_setattr(gaze_idmap_t *idmap, struct dentry *dentry,
		 struct iattr *attr)
{
	struct inode *inode = d_inode(dentry);
	struct gaze_fs *fs = GAZE_FS(inode->i_sb);
	unsigned int valid = attr->ia_valid, nofs;
	struct gaze_attr a = { 0 };
	u32 mask = 0;
	int ret;

	ret = setattr_prepare(idmap, dentry, attr);
	if (ret)
		return ret;
	if (sb_rdonly(inode->i_sb))
		return -EROFS;
	/*
	 * A file whose last name went is an orphan in the core until its
	 * last reference (gaze_evict_inode) and can still be changed; a
	 * removed directory is freed by the core at once and its number
	 * may already belong to a new inode: never write through it.
	 */
	if (!inode->i_nlink && S_ISDIR(inode->i_mode))
		return -ESTALE;

	/* the same size too: it frees blocks fallocate(KEEP_SIZE) put past it */
	if (valid & ATTR_SIZE) {
		loff_t old = i_size_read(inode);

		/* truncate(2) passes no times: a new size sets them, as the
		 * write paths do (ftruncate(2) passes them itself) */
		if (attr->ia_size != old &&
		    !(valid & (ATTR_MTIME | ATTR_CTIME))) {
			attr->ia_mtime = current_time(inode);
			attr->ia_ctime = attr->ia_mtime;
			attr->ia_valid |= ATTR_MTIME | ATTR_CTIME;
			valid = attr->ia_valid;
		}

		inode_dio_wait(inode);
		/*
		 * Shrinking: drop the page cache first (waiting for writeback
		 * of what goes), so nothing past the new size reaches the core
		 * after it cut the file.
		 */
		if (attr->ia_size < old) {
			gaze_drain_mapping(inode);
			truncate_setsize(inode, attr->ia_size);
		}
		/* growing: mmap's bytes past the old size are not data */
		gaze_zero_eof_tail(inode, attr->ia_size);
		nofs = gaze_nofs_begin();
		/* what the cut frees, read before the core takes fs->lock */
		if (attr->ia_size <= old)
			gaze_file_range_warm(fs, inode->i_ino,
					     DIV_ROUND_UP(attr->ia_size,
							  GAZE_BLOCK_SIZE),
					     U64_MAX, false);
		/* and the block the new size cuts, which the core zeroes */
		if (attr->ia_size < old)
			gaze_file_edges_warm(fs, inode->i_ino, attr->ia_size,
					     U64_MAX);
		ret = gaze_file_truncate_trim(fs, inode->i_ino, attr->ia_size,
					      attr->ia_size <= old);
		gaze_nofs_end(nofs);
		if (ret) {
			gaze_refresh(inode, true);
			return gaze_error(inode->i_sb, ret, "truncate");
		}
		if (attr->ia_size >= old)
			truncate_setsize(inode, attr->ia_size);
	}

	setattr_copy(idmap, inode, attr);
	if (valid & ATTR_MODE)
		mask |= GAZE_SET_MODE;
	if (valid & ATTR_UID)
		mask |= GAZE_SET_UID;
	if (valid & ATTR_GID)
		mask |= GAZE_SET_GID;
	if (valid & ATTR_ATIME)
		mask |= GAZE_SET_ATIME;
	if (valid & ATTR_MTIME)
		mask |= GAZE_SET_MTIME;
	if (valid & ATTR_CTIME)
		mask |= GAZE_SET_CTIME;
	if (mask) {
		/* a change of the inode takes the times the VFS holds with
		 * it, those lazytime kept in memory too (generic/622) */
		mask |= GAZE_SET_ATIME | GAZE_SET_MTIME | GAZE_SET_CTIME;
		a.ino = inode->i_ino;
		a.mode = inode->i_mode;
		a.uid = i_uid_read(inode);
		a.gid = i_gid_read(inode);
		gaze_inode_times_to_attr(inode, &a);
		nofs = gaze_nofs_begin();
		ret = gaze_ns_setattr(fs, inode->i_ino, &a, mask);
		gaze_nofs_end(nofs);
		if (ret) {
			/* the core did not take it: show what it has */
			gaze_refresh(inode, true);
			return gaze_error(inode->i_sb, ret, "setattr");
		}
	}
	if (valid & ATTR_SIZE)
		gaze_refresh(inode, false);
	/* the access ACL's owner, group and other entries follow a chmod */
	if ((valid & ATTR_MODE) && !S_ISLNK(inode->i_mode))
		return gaze_posix_acl_chmod(idmap, dentry, inode->i_mode);
	return 0;
}

#define GAZE_DIRTY_RUNS		16

struct gaze_dirty_walk {
	struct inode	*inode;
	u64		runs[2 * GAZE_DIRTY_RUNS];	/* first, count */
	u32		n;			/* runs filled */
	u64		blocks, holes;
};

/* the core's count for the runs gathered (one fs->lock hold) */
static int gaze_dirty_flush(struct gaze_dirty_walk *w)
{
	unsigned int nofs;
	u64 h = 0;
	int ret;

	if (!w->n)
		return 0;
	nofs = gaze_nofs_begin();
	ret = gaze_file_dirty_blocks(GAZE_FS(w->inode->i_sb), w->inode->i_ino,
				     w->runs, w->n, i_size_read(w->inode),
				     &w->blocks, &h);
	gaze_nofs_end(nofs);
	w->holes += h;
	w->n = 0;
	return ret;
}

/* page index joins the last run or starts one; true: the runs are full */
static bool gaze_dirty_add(struct gaze_dirty_walk *w, u64 index)
{
	u64 *r;

	if (w->n) {
		r = &w->runs[2 * (w->n - 1)];
		if (index == r[0] + r[1]) {
			r[1]++;
			return false;
		}
	}
	r = &w->runs[2 * w->n++];
	r[0] = index;
	r[1] = 1;
	return w->n == GAZE_DIRTY_RUNS;
}

/*
 * st_blocks of a regular file with pages not yet written to the core:
 * its blocks plus the holes under pages that are dirty, or under
 * writeback and not yet handed to the core (a page the core has mapped
 * is no hole any more, so no page counts twice), as delayed allocation
 * shows on ext4, XFS and btrfs: du gives the same before and after
 * writeback (fstests generic/422).  A clean file costs one tag test;
 * else the walk visits the dirty pages' tags and asks the core once per
 * GAZE_DIRTY_RUNS runs of consecutive pages, which walks the map by run.
 * On an error the writeback-time count stands.
 */
static void gaze_getattr_blocks(struct inode *inode, struct kstat *stat)
{
	struct address_space *mapping = inode->i_mapping;
	static const xa_mark_t tags[2] = { PAGECACHE_TAG_DIRTY,
					   PAGECACHE_TAG_WRITEBACK };
	struct gaze_dirty_walk w = { .inode = inode };
	struct folio *folio;
	int ret = 0;
	u32 t;

	if (!S_ISREG(inode->i_mode) ||
	    (!mapping_tagged(mapping, PAGECACHE_TAG_DIRTY) &&
	     !mapping_tagged(mapping, PAGECACHE_TAG_WRITEBACK)))
		return;
	for (t = 0; t < ARRAY_SIZE(tags) && !ret; t++) {
		XA_STATE(xas, &mapping->i_pages, 0);

		rcu_read_lock();
		xas_for_each_marked(&xas, folio, ULONG_MAX, tags[t]) {
			if (xas_retry(&xas, folio) || xa_is_value(folio))
				continue;
			/* dirty again while under writeback: counted once */
			if (t && xas_get_mark(&xas, PAGECACHE_TAG_DIRTY))
				continue;
			if (!gaze_dirty_add(&w, xas.xa_index))
				continue;
			xas_pause(&xas);
			rcu_read_unlock();
			ret = gaze_dirty_flush(&w);
			cond_resched();
			rcu_read_lock();
			if (ret)
				break;
		}
		rcu_read_unlock();
		/* the second walk restarts at 0: its runs ascend anew */
		if (!ret)
			ret = gaze_dirty_flush(&w);
	}
	if (!ret)
		stat->blocks = (w.blocks + w.holes) << (GAZE_BLOCK_SHIFT - 9);
}

int gaze_getattr(gaze_idmap_t *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);

	gaze_fillattr(idmap, request_mask, inode, stat);
	stat->blksize = GAZE_BLOCK_SIZE;
	gaze_getattr_blocks(inode, stat);
	if (IS_APPEND(inode))
		stat->attributes |= STATX_ATTR_APPEND;
	if (IS_IMMUTABLE(inode))
		stat->attributes |= STATX_ATTR_IMMUTABLE;
	if (READ_ONCE(GAZE_I(inode)->flags) & GAZE_IF_NODUMP)
		stat->attributes |= STATX_ATTR_NODUMP;
	stat->attributes_mask |= STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE |
				 STATX_ATTR_NODUMP;
	if ((request_mask & STATX_DIOALIGN) && S_ISREG(inode->i_mode)) {
		stat->dio_mem_align = gaze_dio_align(inode);
		stat->dio_offset_align = stat->dio_mem_align;
		stat->result_mask |= STATX_DIOALIGN;
	}
	return 0;
}

/*
 * The last reference to an inode went.  One without links is an orphan
 * in the core (unlink and rename-over pass GAZE_NS_IN_USE for every
 * non-directory): free it now.  Its cached pages are dropped unwritten.
 * On a read-only instance (ro remount, errors=remount-ro) it stays on
 * the orphan list, which every checkpoint records, and is freed at the
 * next read-write mount.
 */
/* folios of inode in the plug (bdev.c) are written now, not waited for */
void gaze_drain_mapping(struct inode *inode)
{
	if (mapping_tagged(inode->i_mapping, PAGECACHE_TAG_WRITEBACK))
		gaze_bdev_drain(GAZE_SB(inode->i_sb)->dev);
}

void gaze_evict_inode(struct inode *inode)
{
	unsigned int nofs;
	int ret;

	gaze_drain_mapping(inode);
	truncate_inode_pages_final(&inode->i_data);
	gaze_resv_evict(inode);
	if (!inode->i_nlink && !S_ISDIR(inode->i_mode) &&
	    !is_bad_inode(inode) && !sb_rdonly(inode->i_sb)) {
		nofs = gaze_nofs_begin();
		gaze_file_range_warm(GAZE_FS(inode->i_sb), inode->i_ino, 0,
				     U64_MAX, true);
		ret = gaze_ns_orphan_evict(GAZE_FS(inode->i_sb), inode->i_ino);
		gaze_nofs_end(nofs);
		if (ret && ret != -ENOENT && ret != -EROFS)
			gaze_error(inode->i_sb, ret, "freeing an orphan");
	}
	clear_inode(inode);
}

/*
 * A deferred data write failed (bdev.c): its pages were reported to
 * their mappings (fsync returns the error) and the plug refuses every
 * write since.  Under fs->lock, so that no node is written in between,
 * the core makes the lost blocks holes and leaves their zone
 * (gaze_data_lost), then writes flow again: a failed data write loses
 * that data, as on ext4 or XFS, not the filesystem (fstests generic/441).
 * Called where no core lock is held: writeback, fsync, sync; costs a
 * load when nothing failed.  0 when nothing was lost or it is repaired;
 * an error goes through errors=.
 */
int gaze_lost_recover(struct super_block *sb)
{
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	struct gaze_fs *fs = READ_ONCE(sbi->fs);
	unsigned int nofs;
	u32 nr, lost = 0;
	u64 blk;
	int ret = 0;

	if (!gaze_bdev_lost_pending(sbi->dev))
		return 0;
	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	/* a read-only instance changes nothing: the plug stays refused */
	if (!(fs->flags & GAZE_FS_RDONLY) &&
	    gaze_bdev_lost_take(sbi->dev, &blk, &nr)) {
		ret = gaze_data_lost(fs, blk, nr, &lost);
		if (ret)
			gaze_bdev_set_error(sbi->dev, ret);
	}
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
	return ret ? gaze_error(sb, ret, "recovering from a failed data write") :
		     0;
}

/*
 * Maps a core error for the VFS.  Corruption and I/O errors are logged
 * once per mount and handled per errors=: continue, remount read-only
 * (the core instance stops writing too; the last checkpoint stays what
 * the disk holds), or panic.  Other errors (ENOENT, ENOSPC, ...) pass.
 */
int gaze_error(struct super_block *sb, int err, const char *what)
{
	struct gaze_sb_info *sbi = GAZE_SB(sb);
	struct gaze_fs *fs;

	if (err == -EBADMSG)
		err = -EUCLEAN;
	if (err != -EUCLEAN && err != -EIO)
		return err;
	if (sbi->opts.errors == GAZE_ERRORS_PANIC)
		panic("gaze: %s: %s: %s (%d)\n", sb->s_id, what,
		      err == -EIO ? "I/O error" : "corrupt metadata", err);
	if (!sbi->error_logged) {
		sbi->error_logged = true;
		pr_err("gaze: %s: %s: %s (%d)%s\n", sb->s_id, what,
		       err == -EIO ? "I/O error" : "corrupt metadata", err,
		       sbi->opts.errors == GAZE_ERRORS_RO && !sb_rdonly(sb) ?
		       "; remounting read-only" : "");
	}
	if (sbi->opts.errors == GAZE_ERRORS_RO && !sb_rdonly(sb)) {
		fs = READ_ONCE(sbi->fs);
		WRITE_ONCE(fs->flags, fs->flags | GAZE_FS_RDONLY);
		sb->s_flags |= SB_RDONLY;
	}
	return err;
}
