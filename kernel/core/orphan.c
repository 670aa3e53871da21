// SPDX-License-Identifier: GPL-2.0
/*
 * orphan.c - inodes that lost their last name while still in use.
 *
 * Why: POSIX lets a process keep reading and writing a file after its
 * last name is gone (unlink, or rename over it); the space comes back at
 * the last close.  The kernel knows when that is, the core does not, so a
 * caller that still uses an inode says so (GAZE_NS_IN_USE) and the core,
 * instead of freeing it at nlink 0, marks it GAZE_IF_ORPHAN and keeps its
 * number on an in-memory list.  gaze_ns_orphan_evict() frees it at the
 * last close.  Every checkpoint records the list (cp head nr_orphans /
 * orphan_ofs, slots in the payload stream), so an orphan committed by a
 * checkpoint and not freed before a crash or an unclean shutdown is freed
 * when the filesystem is next opened read-write.
 *
 * Only non-directories become orphans: a removed directory is empty, the
 * VFS refuses new entries in it, and the core frees it at once.
 *
 * O_TMPFILE files are born orphans (gaze_ns_tmpfile: nlink 0, listed), so
 * one never linked is freed like an unlinked open file; linkat(2) gives
 * one its first name (gaze_ns_link_flags with GAZE_NS_LINK_ORPHAN, which
 * takes it off the list: gaze_orphan_adopt).
 *
 * The list is a plain array (orphans are few: open files that were
 * deleted); a checkpoint records at most GAZE_ORPHANS_MAX of them.  More
 * stay correct while mounted, but those past the cap are not in the
 * checkpoint: a crash leaks their space until fsck.
 *
 * Locking: fs->lock, held by the caller, except for the entry point
 * gaze_ns_orphan_evict() which takes it.
 */
#include "gaze_core.h"

static int
orphan_find(const struct gaze_fs *fs, u32 ino)
{
	u32 i;

	for (i = 0; i < fs->nr_orphans; i++)
		if (fs->orphans[i] == ino)
			return (int)i;
	return -1;
}

static int
orphan_list_add(struct gaze_fs *fs, u32 ino)
{
	u32 *n;
	u32 cap;

	if (orphan_find(fs, ino) >= 0)
		return 0;
	if (fs->nr_orphans == fs->orphan_cap) {
		cap = fs->orphan_cap ? fs->orphan_cap * 2 : 16;
		n = gaze_alloc((size_t)cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		if (fs->nr_orphans)
			memcpy(n, fs->orphans,
			       (size_t)fs->nr_orphans * sizeof(*n));
		gaze_free(fs->orphans);
		fs->orphans = n;
		fs->orphan_cap = cap;
	}
	if (fs->nr_orphans == GAZE_ORPHANS_MAX)
		gaze_warn("more than %u open unlinked files: the checkpoint records only the first %u",
			  GAZE_ORPHANS_MAX, GAZE_ORPHANS_MAX);
	fs->orphans[fs->nr_orphans++] = ino;
	fs->rf_need_cp = true;	/* the list is the checkpoint's alone */
	return 0;
}

static void
orphan_list_del(struct gaze_fs *fs, u32 ino)
{
	int i = orphan_find(fs, ino);

	if (i < 0)
		return;
	fs->orphans[i] = fs->orphans[--fs->nr_orphans];
	fs->rf_need_cp = true;
}

void
gaze_orphans_destroy(struct gaze_fs *fs)
{
	gaze_free(fs->orphans);
	fs->orphans = NULL;
	fs->nr_orphans = 0;
	fs->orphan_cap = 0;
}

int
gaze_inode_drop(struct gaze_fs *fs, struct gaze_mbuf *imb, bool in_use,
		struct gaze_attr *last)
{
	struct gaze_inode *in = imb->data;
	int err;

	if (last)
		gaze_inode_to_attr(in, last);
	if (in->nlink) {
		gaze_mbuf_put(fs, imb);
		return 0;
	}
	if (!in_use || GAZE_S_ISDIR(le16_to_cpu(in->mode))) {
		if (last)	/* freed: the orphan flag goes with it */
			last->flags &= ~GAZE_IF_ORPHAN;
		orphan_list_del(fs, imb->id);
		return gaze_inode_evict(fs, imb);
	}
	err = orphan_list_add(fs, imb->id);
	if (err) {
		/* cannot track it: keep the inode, as linked, rather than
		 * free it under its user; the caller reports the error */
		gaze_mbuf_put(fs, imb);
		return err;
	}
	in->flags = cpu_to_le32(le32_to_cpu(in->flags) | GAZE_IF_ORPHAN);
	if (last)
		last->flags |= GAZE_IF_ORPHAN;
	gaze_mbuf_dirty(fs, imb);
	gaze_mbuf_put(fs, imb);
	return 0;
}

void
gaze_orphan_adopt(struct gaze_fs *fs, struct gaze_mbuf *imb)
{
	struct gaze_inode *in = imb->data;

	orphan_list_del(fs, imb->id);
	in->flags = cpu_to_le32(le32_to_cpu(in->flags) & ~GAZE_IF_ORPHAN);
	gaze_mbuf_dirty(fs, imb);
}

/* frees orphan ino if it still is one (flag set, no links) */
static int
orphan_evict(struct gaze_fs *fs, u32 ino)
{
	struct gaze_mbuf *imb;
	struct gaze_inode *in;
	int err;

	orphan_list_del(fs, ino);
	err = gaze_inode_get(fs, ino, &imb);
	if (err)
		return err;
	in = imb->data;
	if (!(le32_to_cpu(in->flags) & GAZE_IF_ORPHAN)) {
		/* a number reused since: not ours to free */
		gaze_mbuf_put(fs, imb);
		return -ENOENT;
	}
	if (in->nlink) {
		/* linked again: just no longer an orphan */
		in->flags = cpu_to_le32(le32_to_cpu(in->flags) &
					~GAZE_IF_ORPHAN);
		gaze_mbuf_dirty(fs, imb);
		gaze_mbuf_put(fs, imb);
		return 0;
	}
	return gaze_inode_evict(fs, imb);
}

int
gaze_ns_orphan_evict(struct gaze_fs *fs, u32 ino)
{
	int err;

	mutex_lock(&fs->lock);
	if (fs->flags & GAZE_FS_RDONLY)
		err = -EROFS;
	else if (orphan_find(fs, ino) < 0)
		err = -ENOENT;
	else
		err = orphan_evict(fs, ino);
	return gaze_ns_leave(fs, NULL, true, err);
}

u32
gaze_orphans_fill(struct gaze_fs *fs, __le64 *slots)
{
	u32 i, n = min_t(u32, fs->nr_orphans, GAZE_ORPHANS_MAX);

	for (i = 0; i < n; i++)
		slots[i] = cpu_to_le64(fs->orphans[i]);
	return n;
}

int
gaze_orphans_load(struct gaze_fs *fs)
{
	u32 nr = le32_to_cpu(fs->cp.nr_orphans);
	u32 ofs = le32_to_cpu(fs->cp.orphan_ofs);
	u32 pblocks = le32_to_cpu(fs->cp.pack_blocks) - 2;
	u32 max_nid = le32_to_cpu(fs->sb.max_nid);
	u32 first, last, i, s;
	const struct gaze_cp_payload *pb;
	u8 *pay;
	u64 v;
	int ret = 0;

	if (!nr)
		return 0;
	if (nr > GAZE_ORPHANS_MAX ||
	    (u64)ofs + nr > (u64)pblocks * GAZE_ADDRS_PER_BLOCK) {
		gaze_err("checkpoint %llu: orphan list does not fit the payload",
			 (unsigned long long)fs->cp_seq);
		return -EFSCORRUPTED;
	}
	first = ofs / GAZE_ADDRS_PER_BLOCK;
	last = (ofs + nr - 1) / GAZE_ADDRS_PER_BLOCK;
	pay = gaze_alloc((size_t)(last - first + 1) * GAZE_BLOCK_SIZE);
	if (!pay)
		return -ENOMEM;
	ret = fs->dev->ops->read(fs->dev, le64_to_cpu(fs->cp.hdr.blkaddr) + 1 +
				 first, last - first + 1, pay);
	for (i = 0; !ret && i < nr; i++) {
		s = ofs + i;
		pb = (const void *)(pay + (size_t)(s / GAZE_ADDRS_PER_BLOCK -
						   first) * GAZE_BLOCK_SIZE);
		v = le64_to_cpu(pb->slot[s % GAZE_ADDRS_PER_BLOCK]);
		if (v <= GAZE_ROOT_INO || v >= max_nid) {
			gaze_err("checkpoint %llu: orphan %llu is not an inode number",
				 (unsigned long long)fs->cp_seq,
				 (unsigned long long)v);
			ret = -EFSCORRUPTED;
			break;
		}
		ret = orphan_list_add(fs, (u32)v);
	}
	gaze_free(pay);
	if (ret)
		gaze_orphans_destroy(fs);
	return ret;
}

int
gaze_orphans_recover(struct gaze_fs *fs)
{
	u32 n = fs->nr_orphans, i, ino, freed = 0;
	u32 *list;
	int err;

	if (!n)
		return 0;
	list = gaze_alloc((size_t)n * sizeof(*list));
	if (!list)
		return -ENOMEM;
	mutex_lock(&fs->lock);
	memcpy(list, fs->orphans, (size_t)n * sizeof(*list));
	for (i = 0; i < n; i++) {
		ino = list[i];
		err = orphan_evict(fs, ino);
		if (!err) {
			freed++;
		} else if (err != -ENOENT) {
			/*
			 * Keep it listed (retried at the next mount) rather
			 * than refuse the mount: its space stays in use.
			 */
			gaze_err("freeing orphan inode %u failed: %d", ino,
				 err);
			orphan_list_add(fs, ino);
		}
	}
	if (freed)
		gaze_info("freed %u orphan inode%s", freed,
			  freed == 1 ? "" : "s");
	mutex_unlock(&fs->lock);
	gaze_free(list);
	return (int)freed;
}
