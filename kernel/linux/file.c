// SPDX-License-Identifier: GPL-2.0
/*
 * file.c - regular files through the page cache, and symlinks.
 *
 * The page cache holds file data; the core is called to fill a folio
 * (gaze_file_read, zeroes past EOF and in holes) and to write back the
 * dirty bytes of a folio, clipped to i_size (gaze_file_write, which
 * extends the core's size).  Folios are single pages (no large folios).
 * i_size in the VFS may be ahead of the core's until writeback.
 *
 * Times: the VFS keeps a regular file's mtime/ctime (file_update_time on
 * write and page_mkwrite); the core stamps the wall clock on each
 * gaze_file_write, so writeback puts the VFS times back afterwards.
 *
 * fsync: writes and waits for the range, then takes a checkpoint.
 *
 * fallocate: mode 0 / KEEP_SIZE, PUNCH_HOLE | KEEP_SIZE and ZERO_RANGE
 * [| KEEP_SIZE] (see gaze_file_fallocate for what "allocate" can promise
 * on a log-structured filesystem: a space check and the size, no
 * reservation); other modes -EOPNOTSUPP.
 *
 * ioctl: GAZE_IOC_SHUTDOWN (gaze_kern.h), on files and directories.
 *
 * Not yet: O_DIRECT, large folios.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/writeback.h>
#include <linux/uio.h>
#include <linux/slab.h>
#include <linux/falloc.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include "gaze_kern.h"

static inline struct gaze_fs *gaze_ifs(struct inode *inode)
{
	return GAZE_FS(inode->i_sb);
}

/*
 * Fills a locked page from the core: bytes past i_size read as zero.
 * An inode whose last link is gone is an orphan in the core until its
 * last reference, so it still reads and writes.
 */
static int gaze_fill_page(struct inode *inode, struct page *page)
{
	loff_t pos = page_offset(page), isize = i_size_read(inode);
	size_t want = 0;
	unsigned int nofs;
	void *kaddr;
	s64 n = 0;

	if (pos < isize)
		want = min_t(loff_t, PAGE_SIZE, isize - pos);
	kaddr = kmap_local_page(page);
	if (want) {
		nofs = gaze_nofs_begin();
		n = gaze_file_read(gaze_ifs(inode), inode->i_ino, kaddr, want,
				   pos);
		gaze_nofs_end(nofs);
		if (n < 0) {
			kunmap_local(kaddr);
			return gaze_error(inode->i_sb, (int)n, "read");
		}
	}
	memset(kaddr + n, 0, PAGE_SIZE - n);
	kunmap_local(kaddr);
	flush_dcache_page(page);
	return 0;
}

static int gaze_read_folio(struct file *file, struct folio *folio)
{
	int ret;

	ret = gaze_fill_page(folio->mapping->host, &folio->page);
	if (!ret)
		folio_mark_uptodate(folio);
	else
		folio_set_error(folio);
	folio_unlock(folio);
	return ret;
}

/* writes a locked dirty page's bytes below i_size; unlocks it */
static int gaze_write_page(struct page *page, struct writeback_control *wbc,
			   void *data)
{
	struct folio *folio = page_folio(page);
	struct inode *inode = folio->mapping->host;
	loff_t pos = folio_pos(folio), isize = i_size_read(inode);
	bool *wrote = data;
	unsigned int nofs;
	size_t len;
	void *kaddr;
	s64 n;
	int ret = 0;

	/* beyond EOF (truncate in progress): drop */
	if (pos >= isize) {
		folio_unlock(folio);
		return 0;
	}
	len = min_t(loff_t, PAGE_SIZE, isize - pos);
	kaddr = kmap_local_folio(folio, 0);
	nofs = gaze_nofs_begin();
	n = gaze_file_write(gaze_ifs(inode), inode->i_ino, kaddr, len, pos);
	gaze_nofs_end(nofs);
	kunmap_local(kaddr);
	if (n != (s64)len) {
		ret = n < 0 ? (int)n : -EIO;
		ret = gaze_error(inode->i_sb, ret, "writeback");
		mapping_set_error(folio->mapping, ret);
		if (ret == -ENOSPC || ret == -ENOMEM) {
			/* keep the data; a later writeback may succeed */
			folio_redirty_for_writepage(wbc, folio);
			ret = 0;
		}
		folio_unlock(folio);
		return ret;
	}
	if (wrote)
		*wrote = true;
	folio_start_writeback(folio);
	folio_unlock(folio);
	folio_end_writeback(folio);
	return 0;
}

/*
 * The core stamped its clock on the inode: put the VFS times back, and
 * take the block count the writes changed (stat's st_blocks).
 */
static void gaze_put_times(struct inode *inode)
{
	struct gaze_attr a = { 0 };
	unsigned int nofs;
	int ret;

	gaze_inode_times_to_attr(inode, &a);
	nofs = gaze_nofs_begin();
	gaze_ns_setattr(gaze_ifs(inode), inode->i_ino, &a,
			GAZE_SET_MTIME | GAZE_SET_CTIME);
	ret = gaze_ns_getattr(gaze_ifs(inode), inode->i_ino, &a);
	gaze_nofs_end(nofs);
	if (ret)
		return;
	spin_lock(&inode->i_lock);
	inode->i_blocks = a.blocks << (GAZE_BLOCK_SHIFT - 9);
	spin_unlock(&inode->i_lock);
}

static int gaze_writepage(struct page *page, struct writeback_control *wbc)
{
	struct inode *inode = page->mapping->host;
	bool wrote = false;
	int ret;

	ret = gaze_write_page(page, wbc, &wrote);
	if (wrote)
		gaze_put_times(inode);
	return ret;
}

static int gaze_writepages(struct address_space *mapping,
			   struct writeback_control *wbc)
{
	bool wrote = false;
	int ret;

	ret = write_cache_pages(mapping, wbc, gaze_write_page, &wrote);
	if (wrote)
		gaze_put_times(mapping->host);
	return ret;
}

static int gaze_write_begin(struct file *file, struct address_space *mapping,
			    loff_t pos, unsigned int len, struct page **pagep,
			    void **fsdata)
{
	struct inode *inode = mapping->host;
	unsigned int from = pos & (PAGE_SIZE - 1);
	struct page *page;
	int ret;

	page = grab_cache_page_write_begin(mapping, pos >> PAGE_SHIFT);
	if (!page)
		return -ENOMEM;
	if (!PageUptodate(page) && len != PAGE_SIZE) {
		if (page_offset(page) >= i_size_read(inode)) {
			/* nothing on disk: zero around the write */
			zero_user_segments(page, 0, from, from + len,
					   PAGE_SIZE);
		} else {
			ret = gaze_fill_page(inode, page);
			if (ret) {
				unlock_page(page);
				put_page(page);
				return ret;
			}
			SetPageUptodate(page);
		}
	}
	*pagep = page;
	return 0;
}

static int gaze_write_end(struct file *file, struct address_space *mapping,
			  loff_t pos, unsigned int len, unsigned int copied,
			  struct page *page, void *fsdata)
{
	struct inode *inode = mapping->host;

	if (!PageUptodate(page)) {
		/* short copy into a page never read: let the caller retry */
		if (copied < len) {
			copied = 0;
			goto out;
		}
		SetPageUptodate(page);
	}
	if (pos + copied > i_size_read(inode)) {
		i_size_write(inode, pos + copied);
		mark_inode_dirty(inode);
	}
	set_page_dirty(page);
out:
	unlock_page(page);
	put_page(page);
	return copied;
}

const struct address_space_operations gaze_aops = {
	.read_folio	= gaze_read_folio,
	.writepage	= gaze_writepage,
	.writepages	= gaze_writepages,
	.write_begin	= gaze_write_begin,
	.write_end	= gaze_write_end,
	.dirty_folio	= filemap_dirty_folio,
};

static int gaze_fsync(struct file *file, loff_t start, loff_t end,
		      int datasync)
{
	struct inode *inode = file_inode(file);
	unsigned int nofs;
	int ret;

	ret = file_write_and_wait_range(file, start, end);
	if (ret || sb_rdonly(inode->i_sb))
		return ret;
	nofs = gaze_nofs_begin();
	ret = gaze_fs_sync(gaze_ifs(inode));
	gaze_nofs_end(nofs);
	return ret ? gaze_error(inode->i_sb, ret, "fsync") : 0;
}

/*
 * The core works on what it holds, so dirty pages from the range to the
 * end (they carry the size too) go to it first; then the cached range is
 * dropped (partial pages zeroed in place) under the invalidate lock, so
 * no fault maps old data back in, and the core changes the blocks.
 */
static long gaze_fallocate(struct file *file, int mode, loff_t off,
			   loff_t len)
{
	struct inode *inode = file_inode(file);
	struct address_space *mapping = inode->i_mapping;
	bool zero = mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE);
	loff_t end = off + len, old;
	struct gaze_attr a;
	unsigned int nofs;
	int ret;

	BUILD_BUG_ON(GAZE_FALLOC_KEEP_SIZE != FALLOC_FL_KEEP_SIZE);
	BUILD_BUG_ON(GAZE_FALLOC_PUNCH_HOLE != FALLOC_FL_PUNCH_HOLE);
	BUILD_BUG_ON(GAZE_FALLOC_ZERO_RANGE != FALLOC_FL_ZERO_RANGE);
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
		     FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;
	inode_lock(inode);
	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > i_size_read(inode)) {
		ret = inode_newsize_ok(inode, end);
		if (ret)
			goto out_unlock;
	}
	ret = file_modified(file);
	if (ret)
		goto out_unlock;
	old = i_size_read(inode);
	filemap_invalidate_lock(mapping);
	ret = filemap_write_and_wait_range(mapping, off, LLONG_MAX);
	if (ret)
		goto out_inval;
	if (zero)
		truncate_pagecache_range(inode, off, end - 1);
	nofs = gaze_nofs_begin();
	ret = gaze_file_fallocate(gaze_ifs(inode), inode->i_ino, mode, off,
				  len);
	if (!ret)
		ret = gaze_ns_getattr(gaze_ifs(inode), inode->i_ino, &a);
	gaze_nofs_end(nofs);
	if (ret) {
		ret = gaze_error(inode->i_sb, ret, "fallocate");
		goto out_inval;
	}
	inode->i_blocks = a.blocks << (GAZE_BLOCK_SHIFT - 9);
	if (a.size > old)
		i_size_write(inode, a.size);
	if (zero || a.size > old) {
		inode->i_mtime = inode->i_ctime = current_time(inode);
		mark_inode_dirty(inode);
	}
out_inval:
	filemap_invalidate_unlock(mapping);
out_unlock:
	inode_unlock(inode);
	return ret;
}

static int gaze_shutdown(struct super_block *sb, u32 how)
{
	struct gaze_fs *fs;
	unsigned int nofs;
	int ret = 0;

	if (how > GAZE_SHUTDOWN_NOLOGFLUSH)
		return -EINVAL;
	if (sb_rdonly(sb))
		return 0;
	if (how == GAZE_SHUTDOWN_DEFAULT) {
		/* freezing writes back every dirty page and checkpoints */
		ret = freeze_bdev(sb->s_bdev);
		if (ret)
			return ret;
		thaw_bdev(sb->s_bdev);
	}
	fs = GAZE_FS(sb);
	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	if (how == GAZE_SHUTDOWN_LOGFLUSH && !(fs->flags & GAZE_FS_RDONLY))
		ret = gaze_cp_write(fs, 0);
	fs->flags |= GAZE_FS_RDONLY;
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
	sb->s_flags |= SB_RDONLY;
	pr_info("gaze: %s: shut down (%s)%s\n", sb->s_id,
		how == GAZE_SHUTDOWN_DEFAULT ? "data and checkpoint written" :
		how == GAZE_SHUTDOWN_LOGFLUSH ? "checkpoint written" :
		"nothing written", ret ? "; the checkpoint failed" : "");
	return ret;
}

long gaze_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	u32 how;

	switch (cmd) {
	case GAZE_IOC_SHUTDOWN:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		if (get_user(how, (u32 __user *)arg))
			return -EFAULT;
		return gaze_shutdown(file_inode(file)->i_sb, how);
	default:
		return -ENOTTY;
	}
}

const struct file_operations gaze_file_operations = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.write_iter	= generic_file_write_iter,
	.mmap		= generic_file_mmap,
	.open		= generic_file_open,
	.fsync		= gaze_fsync,
	.fallocate	= gaze_fallocate,
	.unlocked_ioctl	= gaze_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.splice_read	= generic_file_splice_read,
	.splice_write	= iter_file_splice_write,
};

const struct inode_operations gaze_file_inode_operations = {
	.setattr	= gaze_setattr,
	.getattr	= gaze_getattr,
	.listxattr	= gaze_listxattr,
	.get_acl	= gaze_get_acl,
	.set_acl	= gaze_set_acl,
};

/* ---------------------------------------------------------------- */
/* symlinks and special files                                        */
/* ---------------------------------------------------------------- */

static const char *gaze_get_link(struct dentry *dentry, struct inode *inode,
				 struct delayed_call *done)
{
	unsigned int nofs;
	char *buf;
	int n;

	if (!dentry)
		return ERR_PTR(-ECHILD);	/* RCU walk: the core sleeps */
	buf = kmalloc(GAZE_SYMLINK_MAX + 1, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	nofs = gaze_nofs_begin();
	n = gaze_ns_readlink(gaze_ifs(inode), inode->i_ino, buf,
			     GAZE_SYMLINK_MAX);
	gaze_nofs_end(nofs);
	if (n <= 0) {
		kfree(buf);
		return ERR_PTR(n ? gaze_error(inode->i_sb, n, "readlink") :
			       -EUCLEAN);
	}
	buf[n] = 0;
	set_delayed_call(done, kfree_link, buf);
	return buf;
}

const struct inode_operations gaze_symlink_inode_operations = {
	.get_link	= gaze_get_link,
	.setattr	= gaze_setattr,
	.getattr	= gaze_getattr,
	.listxattr	= gaze_listxattr,
};

const struct inode_operations gaze_special_inode_operations = {
	.setattr	= gaze_setattr,
	.getattr	= gaze_getattr,
	.listxattr	= gaze_listxattr,
	.get_acl	= gaze_get_acl,
	.set_acl	= gaze_set_acl,
};
