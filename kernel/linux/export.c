// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - NFS export and open_by_handle_at(2).
 *
 * A handle is the VFS default: the inode number and its generation
 * (FILEID_INO32_GEN, with the parent's for FILEID_INO32_GEN_PARENT).
 * The core gives each new inode the next of a per-instance counter
 * seeded from the clock at open (gaze_fs.next_generation), so a number
 * freed and reused, across remounts too, no longer matches the old
 * file's handles.  A handle comes from outside: whatever it names that
 * is not a live inode of that generation is -ESTALE, never a filesystem
 * error; a file unlinked but still open is live (the core keeps it as
 * an orphan until the last close).  '..' is the inode's parent field (gaze_ns_lookup).
 */
#include <linux/exportfs.h>
#include "gaze_kern.h"

static struct inode *gaze_nfs_get_inode(struct super_block *sb, u64 ino,
					u32 gen)
{
	struct inode *inode;
	struct gaze_attr a;
	unsigned int nofs;
	int ret;

	if (ino < GAZE_ROOT_INO || ino > U32_MAX)
		return ERR_PTR(-ESTALE);
	/* the core first: a free or damaged number is stale, not an error */
	nofs = gaze_nofs_begin();
	ret = gaze_ns_getattr(GAZE_FS(sb), (u32)ino, &a);
	gaze_nofs_end(nofs);
	if (ret)
		return ERR_PTR(ret == -ENOMEM ? -ENOMEM : -ESTALE);
	/* an unlinked file still open (an orphan) opens, as on ext4/XFS */
	if (gen && a.generation != gen)
		return ERR_PTR(-ESTALE);
	inode = gaze_iget(sb, (u32)ino);
	if (IS_ERR(inode))
		return ERR_PTR(PTR_ERR(inode) == -ENOMEM ? -ENOMEM : -ESTALE);
	/* freed and reused between the two reads */
	if (gen && inode->i_generation != gen) {
		iput(inode);
		return ERR_PTR(-ESTALE);
	}
	return inode;
}

static struct dentry *gaze_fh_to_dentry(struct super_block *sb,
					struct fid *fid, int fh_len,
					int fh_type)
{
	return generic_fh_to_dentry(sb, fid, fh_len, fh_type,
				    gaze_nfs_get_inode);
}

static struct dentry *gaze_fh_to_parent(struct super_block *sb,
					struct fid *fid, int fh_len,
					int fh_type)
{
	return generic_fh_to_parent(sb, fid, fh_len, fh_type,
				    gaze_nfs_get_inode);
}

static struct dentry *gaze_get_parent(struct dentry *child)
{
	struct inode *dir = d_inode(child);
	unsigned int nofs;
	u32 ino;
	int ret;

	nofs = gaze_nofs_begin();
	ret = gaze_ns_lookup(GAZE_FS(dir->i_sb), dir->i_ino, "..", 2, &ino,
			     NULL);
	gaze_nofs_end(nofs);
	if (ret)
		return ERR_PTR(ret == -ENOMEM ? -ENOMEM : -ESTALE);
	return d_obtain_alias(gaze_nfs_get_inode(dir->i_sb, ino, 0));
}

const struct export_operations gaze_export_ops = {
	.encode_fh	= GAZE_ENCODE_FH,
	.fh_to_dentry	= gaze_fh_to_dentry,
	.fh_to_parent	= gaze_fh_to_parent,
	.get_parent	= gaze_get_parent,
};
