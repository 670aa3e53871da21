// SPDX-License-Identifier: GPL-2.0
/*
 * namei.c - directory inode_operations and file_operations.
 *
 * Every namespace decision (link counts, '..', which times change, which
 * errors) is the core's (kernel/core/namei.c); this file translates VFS
 * calls into core calls and then refreshes the VFS inodes the core
 * changed (nlink, ctime, mtime; size and blocks of directories) with
 * gaze_ns_getattr.
 *
 * Orphans: unlink and rename over a non-directory pass GAZE_NS_IN_USE,
 * since the dentry being removed still holds the inode; the core keeps
 * it (nlink 0, on the orphan list) until gaze_evict_inode (inode.c)
 * frees it at the last reference.  A removed directory is freed at once.
 *
 * RENAME_WHITEOUT: the core leaves a 0:0 character device at the old
 * name (overlayfs upper layers).
 *
 * POSIX ACLs: a new inode gets the directory's default ACL, or the
 * umask (gaze_acl_prepare / gaze_acl_init in xattr.c).
 *
 * O_TMPFILE: the core creates the file an orphan; linkat(2) names it
 * (gaze_tmpfile, gaze_link).
 *
 * readdir: ctx->pos is the core's cookie ('.' 0, '..' 1, then
 * max(2, hash >> 1)).  Entries are gathered into a buffer under the core
 * lock and passed to dir_emit() after it is dropped, because dir_emit
 * copies to user memory and may fault (possibly into this filesystem).
 */
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/xattr.h>
#include <linux/posix_acl.h>
#include "gaze_kern.h"

#define GAZE_DIR_POS_END	0x7fffffffffffffffLL

static inline struct gaze_fs *gaze_ifs(struct inode *inode)
{
	return GAZE_FS(inode->i_sb);
}

/*
 * Re-reads what a namespace change did to an inode.  Directories take
 * everything the core keeps about their contents; other inodes only
 * nlink and ctime, since their size and mtime may be ahead of the core
 * in the page cache.  An inode the core no longer has lost its last link.
 */
static void gaze_ns_apply(struct inode *inode, int ret,
			  const struct gaze_attr *a)
{
	if (ret == -ENOENT) {
		/*
		 * The core freed it and may hand its number to a new inode:
		 * keep this one (still open, perhaps) out of iget's sight.
		 */
		clear_nlink(inode);
		remove_inode_hash(inode);
		return;
	}
	if (ret)
		return;
	set_nlink(inode, a->nlink);
	gaze_set_ctime(inode, (struct timespec64){ a->ctime, a->ctime_nsec });
	if (S_ISDIR(inode->i_mode)) {
		gaze_set_mtime(inode,
			       (struct timespec64){ a->mtime, a->mtime_nsec });
		i_size_write(inode, a->size);
		inode->i_blocks = a->blocks << (GAZE_BLOCK_SHIFT - 9);
	}
}

/*
 * Applies slot of what a link, unlink or rename did (the core took it
 * from the same hold of its lock as the change) to inode, the VFS inode
 * that held that role.  An untouched slot changes nothing.
 */
static void gaze_ns_out_apply(struct inode *inode,
			      const struct gaze_ns_out *out, int slot)
{
	const struct gaze_attr *a = &out->a[slot];

	/* a slot the change did not fill has ino 0 */
	if (!inode || !a->ino)
		return;
	/* the VFS's locks keep the names on the inodes the core changed */
	if (WARN_ON_ONCE(a->ino != inode->i_ino))
		return;
	gaze_ns_apply(inode, out->freed & (1u << slot) ? -ENOENT : 0, a);
}

static struct dentry *gaze_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	struct inode *inode = NULL;
	unsigned int nofs;
	u32 ino;
	int ret;

	if (dentry->d_name.len > GAZE_NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	nofs = gaze_nofs_begin();
	ret = gaze_ns_lookup(gaze_ifs(dir), dir->i_ino, dentry->d_name.name,
			     dentry->d_name.len, &ino, NULL);
	gaze_nofs_end(nofs);
	if (!ret) {
		inode = gaze_iget(dir->i_sb, ino);
		/*
		 * The name is there and its inode is not (the directory
		 * lock keeps an unlink out): damage, not a negative dentry
		 */
		if (inode == ERR_PTR(-ENOENT)) {
			pr_err_ratelimited("gaze: %s: directory %lu: '%pd' names free inode %u\n",
					   dir->i_sb->s_id, dir->i_ino, dentry,
					   ino);
			return ERR_PTR(gaze_error(dir->i_sb, -EUCLEAN,
						  "lookup"));
		}
	} else if (ret != -ENOENT) {
		return ERR_PTR(gaze_error(dir->i_sb, ret, "lookup"));
	}
	return d_splice_alias(inode, dentry);
}

/*
 * Attributes of a new inode: the caller's fs ids (through the mount's
 * idmapping), inode_init_owner() rules for setgid directories, and the
 * current time for every timestamp.
 */
static void gaze_new_attr(gaze_idmap_t *idmap, struct inode *dir,
			  umode_t mode, dev_t rdev, struct gaze_attr *a)
{
	struct user_namespace *fs_userns = i_user_ns(dir);
	struct timespec64 now = current_time(dir);
	kuid_t uid = mapped_fsuid(idmap, fs_userns);
	kgid_t gid;

	if (dir->i_mode & S_ISGID) {
		gid = dir->i_gid;
		if (S_ISDIR(mode))
			mode |= S_ISGID;
		else if ((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
			 !vfsgid_in_group_p(i_gid_into_vfsgid(idmap, dir)) &&
			 !capable_wrt_inode_uidgid(idmap, dir, CAP_FSETID))
			mode &= ~S_ISGID;
	} else {
		gid = mapped_fsgid(idmap, fs_userns);
	}
	memset(a, 0, sizeof(*a));
	a->mode = mode;
	a->uid = from_kuid(fs_userns, uid);
	a->gid = from_kgid(fs_userns, gid);
	a->atime = a->mtime = a->ctime = a->crtime = now.tv_sec;
	a->atime_nsec = a->mtime_nsec = a->ctime_nsec = a->crtime_nsec =
		now.tv_nsec;
	a->rdev_major = MAJOR(rdev);
	a->rdev_minor = MINOR(rdev);
}

/*
 * The attributes of a new inode, and with acl the umask or the
 * directory's default ACL (gaze_acl_prepare; released by the caller)
 */
static int gaze_new_begin(gaze_idmap_t *idmap, struct inode *dir,
			  umode_t mode, dev_t rdev, bool acl,
			  struct gaze_attr *a, struct posix_acl **dacl,
			  struct posix_acl **aclp)
{
	umode_t m;
	int ret;

	if (!uid_valid(mapped_fsuid(idmap, i_user_ns(dir))) ||
	    !gid_valid(mapped_fsgid(idmap, i_user_ns(dir))))
		return -EOVERFLOW;
	gaze_new_attr(idmap, dir, mode, rdev, a);
	if (!acl)
		return 0;
	m = a->mode;
	ret = gaze_acl_prepare(dir, &m, dacl, aclp);
	if (ret)
		return ret;
	a->mode = m;
	return 0;
}

/*
 * The VFS inode of new core inode ino, with the ACLs it was created
 * with; a: its attributes when the create gave them, else NULL (read)
 */
static struct inode *gaze_new_inode(struct inode *dir, u32 ino,
				    const struct gaze_attr *a,
				    struct posix_acl *dacl,
				    struct posix_acl *acl)
{
	struct inode *inode = gaze_iget_attr(dir->i_sb, ino, a);
	int ret;

	if (IS_ERR(inode))
		return inode;
	ret = gaze_acl_init(inode, dacl, acl);
	if (!ret)
		return inode;
	iput(inode);
	return ERR_PTR(ret);
}

/*
 * Removes the name of a new inode that could not be set up (its ACL), so
 * that no name stays without the ACL it was created with.  Its own frame:
 * the create path does not carry the struct.
 */
static noinline void gaze_new_undo(struct inode *dir, struct dentry *dentry)
{
	struct gaze_ns_out out;
	unsigned int nofs;
	int err;

	nofs = gaze_nofs_begin();
	err = gaze_ns_unlink_flags(gaze_ifs(dir), dir->i_ino,
				   dentry->d_name.name, dentry->d_name.len, 0,
				   &out);
	gaze_nofs_end(nofs);
	/* the name stays only on an I/O error or corruption, which
	 * errors= then handles */
	if (err)
		gaze_error(dir->i_sb, err, "create: undoing a file whose ACL failed");
	else
		gaze_ns_out_apply(dir, &out, GAZE_OUT_DIR);
}

/* creates any inode type (a symlink when target is set) */
static int gaze_new(gaze_idmap_t *idmap, struct inode *dir,
		    struct dentry *dentry, umode_t mode, dev_t rdev,
		    const char *target)
{
	struct posix_acl *dacl = NULL, *acl = NULL;
	struct gaze_fs *fs = gaze_ifs(dir);
	struct gaze_attr a, out[2];
	struct inode *inode;
	unsigned int nofs;
	int ret;

	ret = gaze_new_begin(idmap, dir, mode, rdev, !target, &a, &dacl, &acl);
	if (ret)
		return ret;
	nofs = gaze_nofs_begin();
	/* the new inode's and dir's attributes come back with it */
	ret = gaze_ns_create(fs, dir->i_ino, dentry->d_name.name,
			     dentry->d_name.len, &a, target, out);
	gaze_nofs_end(nofs);
	if (ret) {
		ret = gaze_error(dir->i_sb, ret, "create");
		goto out_acl;
	}
	gaze_ns_apply(dir, 0, &out[1]);
	inode = gaze_new_inode(dir, out[0].ino, &out[0], dacl, acl);
	if (IS_ERR(inode)) {
		/* never leave a name without the ACL it was created with */
		ret = PTR_ERR(inode);
		gaze_new_undo(dir, dentry);
		goto out_acl;
	}
	d_instantiate(dentry, inode);
out_acl:
	posix_acl_release(dacl);
	posix_acl_release(acl);
	return ret;
}

static int gaze_create(gaze_idmap_t *idmap, struct inode *dir,
		       struct dentry *dentry, umode_t mode, bool excl)
{
	return gaze_new(idmap, dir, dentry, S_IFREG | (mode & 07777), 0,
			NULL);
}

static int gaze_mkdir(gaze_idmap_t *idmap, struct inode *dir,
		      struct dentry *dentry, umode_t mode)
{
	return gaze_new(idmap, dir, dentry, S_IFDIR | (mode & 07777), 0,
			NULL);
}

static int gaze_mknod(gaze_idmap_t *idmap, struct inode *dir,
		      struct dentry *dentry, umode_t mode, dev_t rdev)
{
	return gaze_new(idmap, dir, dentry, mode, rdev, NULL);
}

static int gaze_symlink(gaze_idmap_t *idmap, struct inode *dir,
			struct dentry *dentry, const char *target)
{
	if (strlen(target) > GAZE_SYMLINK_MAX)
		return -ENAMETOOLONG;
	return gaze_new(idmap, dir, dentry, S_IFLNK | 0777, 0, target);
}

/*
 * open(O_TMPFILE).  The core creates the file an orphan (nlink 0, on the
 * orphan list); d_tmpfile() drops the one link the VFS expects a new
 * inode to have, so it gets that first.  linkat(2) may name it later
 * (gaze_link); otherwise its last close frees it (gaze_evict_inode), or
 * the next read-write mount after a crash.
 */
static int gaze_tmpfile(gaze_idmap_t *idmap, struct inode *dir,
			struct file *file, umode_t mode)
{
	struct posix_acl *dacl = NULL, *acl = NULL;
	struct gaze_attr a;
	struct inode *inode;
	unsigned int nofs;
	u32 ino;
	int ret;

	ret = gaze_new_begin(idmap, dir, S_IFREG | (mode & 07777), 0, true,
			     &a, &dacl, &acl);
	if (ret)
		return ret;
	nofs = gaze_nofs_begin();
	ret = gaze_ns_tmpfile(gaze_ifs(dir), dir->i_ino, &a, &ino);
	gaze_nofs_end(nofs);
	if (ret) {
		ret = gaze_error(dir->i_sb, ret, "tmpfile");
		goto out_acl;
	}
	inode = gaze_new_inode(dir, ino, NULL, dacl, acl); /* iput frees it */
	if (IS_ERR(inode)) {
		ret = PTR_ERR(inode);
		goto out_acl;
	}
	set_nlink(inode, 1);
	d_tmpfile(file, inode);
	ret = finish_open_simple(file, 0);
out_acl:
	posix_acl_release(dacl);
	posix_acl_release(acl);
	return ret;
}

/*
 * The VFS refuses a name for an inode without links unless it is an
 * O_TMPFILE one (I_LINKABLE), so the core may adopt an orphan here.
 */
static int gaze_link(struct dentry *old_dentry, struct inode *dir,
		     struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	struct gaze_ns_out out;
	unsigned int nofs;
	int ret;

	nofs = gaze_nofs_begin();
	ret = gaze_ns_link_flags(gaze_ifs(dir), dir->i_ino,
				 dentry->d_name.name, dentry->d_name.len,
				 inode->i_ino, GAZE_NS_LINK_ORPHAN, &out);
	gaze_nofs_end(nofs);
	if (ret)
		return gaze_error(dir->i_sb, ret, "link");
	gaze_ns_out_apply(dir, &out, GAZE_OUT_DIR);
	gaze_ns_out_apply(inode, &out, GAZE_OUT_INODE);
	ihold(inode);
	d_instantiate(dentry, inode);
	return 0;
}

/* unlink and rmdir: the core tells files and directories apart */
static int gaze_unlink(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	struct gaze_ns_out out;
	unsigned int nofs;
	int ret;

	nofs = gaze_nofs_begin();
	ret = gaze_ns_unlink_flags(gaze_ifs(dir), dir->i_ino,
				   dentry->d_name.name, dentry->d_name.len,
				   S_ISDIR(inode->i_mode) ? 0 : GAZE_NS_IN_USE,
				   &out);
	gaze_nofs_end(nofs);
	if (ret)
		return gaze_error(dir->i_sb, ret, "unlink");
	gaze_ns_out_apply(dir, &out, GAZE_OUT_DIR);
	gaze_ns_out_apply(inode, &out, GAZE_OUT_INODE);
	if (!inode->i_nlink)
		gaze_set_ctime(inode, gaze_ctime(dir));
	return 0;
}

static int gaze_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	int ret;

	ret = gaze_unlink(dir, dentry);
	if (!ret) {
		clear_nlink(inode);
		i_size_write(inode, 0);
	}
	return ret;
}

static int gaze_rename(gaze_idmap_t *idmap,
		       struct inode *old_dir, struct dentry *old_dentry,
		       struct inode *new_dir, struct dentry *new_dentry,
		       unsigned int flags)
{
	struct inode *old_inode = d_inode(old_dentry);
	struct inode *new_inode = d_inode(new_dentry);
	struct gaze_ns_out out;
	unsigned int nofs;
	u32 cflags = flags;
	int ret;

	BUILD_BUG_ON(GAZE_RENAME_NOREPLACE != RENAME_NOREPLACE);
	BUILD_BUG_ON(GAZE_RENAME_EXCHANGE != RENAME_EXCHANGE);
	BUILD_BUG_ON(GAZE_RENAME_WHITEOUT != RENAME_WHITEOUT);
	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	/* a replaced file may still be open: it becomes an orphan */
	if (new_inode && !S_ISDIR(new_inode->i_mode))
		cflags |= GAZE_RENAME_IN_USE;
	nofs = gaze_nofs_begin();
	ret = gaze_ns_rename(gaze_ifs(old_dir), old_dir->i_ino,
			     old_dentry->d_name.name, old_dentry->d_name.len,
			     new_dir->i_ino, new_dentry->d_name.name,
			     new_dentry->d_name.len, cflags, &out);
	gaze_nofs_end(nofs);
	if (ret)
		return gaze_error(old_dir->i_sb, ret, "rename");
	gaze_ns_out_apply(old_dir, &out, GAZE_OUT_DIR);
	gaze_ns_out_apply(new_dir, &out, GAZE_OUT_NDIR);
	gaze_ns_out_apply(old_inode, &out, GAZE_OUT_INODE);
	gaze_ns_out_apply(new_inode, &out, GAZE_OUT_NINODE);
	if (new_inode && !new_inode->i_nlink && S_ISDIR(new_inode->i_mode))
		i_size_write(new_inode, 0);
	return 0;
}

const struct inode_operations gaze_dir_inode_operations = {
	.lookup		= gaze_lookup,
	.create		= gaze_create,
	.mkdir		= gaze_mkdir,
	.mknod		= gaze_mknod,
	.symlink	= gaze_symlink,
	.link		= gaze_link,
	.unlink		= gaze_unlink,
	.rmdir		= gaze_rmdir,
	.rename		= gaze_rename,
	.tmpfile	= gaze_tmpfile,
	.setattr	= gaze_setattr,
	.getattr	= gaze_getattr,
	.fileattr_get	= gaze_fileattr_get,
	.fileattr_set	= gaze_fileattr_set,
	.listxattr	= gaze_listxattr,
	GAZE_IOP_ACL,
};

/* ---------------------------------------------------------------- */
/* readdir                                                           */
/* ---------------------------------------------------------------- */

#define GAZE_RD_BUF	(16 * 1024)
/* room kept for the rest of a hash-collision group after a stop */
#define GAZE_RD_SLACK	(8 * (sizeof(struct gaze_rd_ent) + GAZE_NAME_MAX + 1))

struct gaze_rd_ent {
	u64	cookie;
	u32	ino;
	u8	dtype;
	u8	len;		/* name follows; 255 at most */
};

struct gaze_rd {
	char	*buf;
	size_t	used;
	bool	overflow;	/* an entry did not fit: resume at it */
	u64	resume;
};

static int gaze_rd_fill(void *ctx, const char *name, u32 len, u32 ino,
			u8 dtype, u64 cookie)
{
	struct gaze_rd *rd = ctx;
	struct gaze_rd_ent *e;
	size_t need = ALIGN(sizeof(*e) + len, 8);

	if (rd->overflow)
		return 1;
	if (len > GAZE_NAME_MAX || rd->used + need > GAZE_RD_BUF) {
		rd->overflow = true;
		rd->resume = cookie;
		return 1;
	}
	e = (struct gaze_rd_ent *)(rd->buf + rd->used);
	e->cookie = cookie;
	e->ino = ino;
	e->dtype = dtype;
	e->len = len;
	memcpy(e + 1, name, len);
	rd->used += need;
	/* stop asking once the buffer is nearly full */
	return rd->used + GAZE_RD_SLACK > GAZE_RD_BUF;
}

/*
 * The inodes of the entries gathered, read ahead into the core's cache
 * without fs->lock (gaze_ns_prefetch_inodes): a listing is usually
 * followed by a lookup and stat of each entry (ls -l, find, du), which
 * then find their inodes cached, as F2FS's readdir reads them ahead
 */
static void gaze_rd_prefetch(struct inode *dir, struct gaze_rd *rd)
{
	struct gaze_rd_ent *e;
	unsigned int nofs;
	u32 *inos, n = 0;
	size_t off;

	inos = kmalloc_array(GAZE_RD_BUF / sizeof(*e), sizeof(*inos),
			     GFP_KERNEL);
	if (!inos)
		return;
	for (off = 0; off < rd->used; off += ALIGN(sizeof(*e) + e->len, 8)) {
		e = (struct gaze_rd_ent *)(rd->buf + off);
		if (e->cookie >= 2)	/* not '.' or '..' */
			inos[n++] = e->ino;
	}
	nofs = gaze_nofs_begin();
	gaze_ns_prefetch_inodes(gaze_ifs(dir), inos, n);
	gaze_nofs_end(nofs);
	kfree(inos);
}

static int gaze_iterate(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct gaze_rd rd;
	struct gaze_rd_ent *e;
	unsigned int nofs;
	size_t off;
	u64 pos;
	int ret = 0;

	if (ctx->pos >= GAZE_DIR_POS_END)
		return 0;
	rd.buf = kmalloc(GAZE_RD_BUF, GFP_KERNEL);
	if (!rd.buf)
		return -ENOMEM;
	while (ctx->pos < GAZE_DIR_POS_END) {
		rd.used = 0;
		rd.overflow = false;
		pos = ctx->pos;
		nofs = gaze_nofs_begin();
		ret = gaze_ns_readdir(gaze_ifs(dir), dir->i_ino, &pos,
				      gaze_rd_fill, &rd);
		gaze_nofs_end(nofs);
		if (ret) {
			ret = gaze_error(dir->i_sb, ret, "readdir");
			break;
		}
		if (rd.overflow)
			pos = rd.resume;
		if (!rd.used && pos <= ctx->pos && pos < GAZE_DIR_POS_END) {
			ret = -EFSCORRUPTED;	/* no progress */
			break;
		}
		gaze_rd_prefetch(dir, &rd);
		for (off = 0; off < rd.used;
		     off += ALIGN(sizeof(*e) + e->len, 8)) {
			e = (struct gaze_rd_ent *)(rd.buf + off);
			ctx->pos = e->cookie;
			/* a full user buffer: resume at this entry's cookie */
			if (!dir_emit(ctx, (const char *)(e + 1), e->len,
				      e->ino, e->dtype))
				goto out;
		}
		ctx->pos = pos;
	}
out:
	kfree(rd.buf);
	return ret;
}

/* seekdir/telldir use the whole 63-bit cookie space */
static loff_t gaze_dir_llseek(struct file *file, loff_t offset, int whence)
{
	return generic_file_llseek_size(file, offset, whence,
					GAZE_DIR_POS_END,
					i_size_read(file_inode(file)));
}

static int gaze_dir_fsync(struct file *file, loff_t start, loff_t end,
			  int datasync)
{
	struct super_block *sb = file_inode(file)->i_sb;
	unsigned int nofs;
	int ret;

	if (sb_rdonly(sb))
		return 0;
	nofs = gaze_nofs_begin();
	/* with fsync_namespace, the directory's changes may roll forward */
	if (gaze_sb_fsync_ns(&GAZE_FS(sb)->sb))
		ret = gaze_fs_fsync(GAZE_FS(sb));
	else
		ret = gaze_fs_sync(GAZE_FS(sb));
	gaze_nofs_end(nofs);
	return ret ? gaze_error(sb, ret, "fsync") : 0;
}

const struct file_operations gaze_dir_operations = {
	.llseek		= gaze_dir_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= gaze_iterate,
	.fsync		= gaze_dir_fsync,
	.unlocked_ioctl	= gaze_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};
