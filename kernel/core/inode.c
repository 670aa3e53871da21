// SPDX-License-Identifier: GPL-2.0
/*
 * inode.c - inode allocation, attributes and file data I/O.
 *
 * Why: the kernel module and the userspace tools (mkfs, fsck repair, the
 * image builders) must create and fill inodes identically, so the rules
 * live here once: how struct gaze_attr maps onto struct gaze_inode, when a
 * regular file keeps its bytes inline in the inode and when it moves to
 * a block map, and how a partial block is rewritten.
 *
 * Inline data (incompat feature inline_data): a regular file that has only
 * ever been written inside the first GAZE_INLINE_SIZE bytes keeps them in
 * i.data with GAZE_IF_INLINE_DATA set and inline_used == size.  Bytes past
 * inline_used are always zero.  The first write or truncate beyond the
 * area converts the file for good: block 0 is written from the inline
 * bytes, the area (which is also the addr[] array) is zeroed and the flag
 * cleared.
 *
 * Invariant for mapped files: bytes past i_size inside the last block are
 * zero on disk, so extending a file never exposes old data (truncate
 * zeroes the tail of the block it cuts).
 *
 * All functions expect fs->lock held.
 */
#include "gaze_core.h"


int
gaze_ns_node_free(struct gaze_fs *fs, struct gaze_mbuf *mb)
{
	u32 nid = mb->id;

	gaze_mbuf_forget(fs, mb);
	return gaze_nid_free(fs, nid);
}

int
gaze_inode_get(struct gaze_fs *fs, u32 ino, struct gaze_mbuf **mbp)
{
	if (ino <= GAZE_NID_RESERVED ||
	    ino >= le32_to_cpu(fs->sb.max_nid))
		return -ENOENT;
	return gaze_node_get(fs, ino, GAZE_MAGIC_INODE, mbp);
}

/* settings a new inode takes from its parent directory */
static int
inode_inherit(struct gaze_fs *fs, u32 nid, u32 parent, struct gaze_inode *in,
	      u32 mode)
{
	struct gaze_mbuf *dmb;
	int err;

	if (!(le64_to_cpu(fs->sb.feature_incompat) &
	      GAZE_FEATURE_INCOMPAT_COMPRESSION))
		return 0;		/* nothing to take */
	if (parent == nid) {		/* the root */
		gaze_cluster_inherit(fs, NULL, in, mode);
		return 0;
	}
	err = gaze_inode_get(fs, parent, &dmb);
	if (err)
		return err;
	gaze_cluster_inherit(fs, dmb->data, in, mode);
	gaze_mbuf_put(fs, dmb);
	return 0;
}

int
gaze_inode_create(struct gaze_fs *fs, u32 nid, const struct gaze_attr *a,
		  u32 parent, struct gaze_mbuf **mbp)
{
	struct gaze_inode *in;
	struct gaze_mbuf *mb;
	bool own_nid = !nid;
	u32 flags = 0;
	int err;

	if (own_nid) {
		err = gaze_nid_alloc(fs, &nid);
		if (err)
			return err;
	}
	err = gaze_node_new(fs, nid, nid, GAZE_MAGIC_INODE, 0, &mb);
	if (err)
		goto out_nid;
	in = mb->data;
	in->mode = cpu_to_le16((u16)a->mode);
	in->uid = cpu_to_le32(a->uid);
	in->gid = cpu_to_le32(a->gid);
	in->nlink = cpu_to_le32(a->nlink);
	in->atime = cpu_to_le64((u64)a->atime);
	in->mtime = cpu_to_le64((u64)a->mtime);
	in->ctime = cpu_to_le64((u64)a->ctime);
	in->crtime = cpu_to_le64((u64)a->crtime);
	in->atime_nsec = cpu_to_le32(a->atime_nsec);
	in->mtime_nsec = cpu_to_le32(a->mtime_nsec);
	in->ctime_nsec = cpu_to_le32(a->ctime_nsec);
	in->crtime_nsec = cpu_to_le32(a->crtime_nsec);
	WRITE_ONCE(fs->valid_inodes, fs->valid_inodes + 1);
	in->generation = cpu_to_le32(fs->next_generation++);
	in->parent = cpu_to_le32(parent);
	if ((a->mode & GAZE_S_IFMT) == GAZE_S_IFCHR ||
	    (a->mode & GAZE_S_IFMT) == GAZE_S_IFBLK) {
		in->rdev_major = cpu_to_le32(a->rdev_major);
		in->rdev_minor = cpu_to_le32(a->rdev_minor);
	}
	if (GAZE_S_ISREG(a->mode) &&
	    (le64_to_cpu(fs->sb.feature_incompat) &
	     GAZE_FEATURE_INCOMPAT_INLINE_DATA))
		flags |= GAZE_IF_INLINE_DATA;
	in->flags = cpu_to_le32(flags);
	err = inode_inherit(fs, nid, parent, in, a->mode);
	if (err)
		goto out_node;
	gaze_mbuf_dirty(fs, mb);
	if (GAZE_S_ISDIR(a->mode)) {
		err = gaze_dir_init(fs, mb);
		if (err)
			goto out_node;
	}
	*mbp = mb;
	return 0;

out_node:
	WRITE_ONCE(fs->valid_inodes, fs->valid_inodes - 1);
	gaze_ns_node_free(fs, mb);
	return err;
out_nid:
	if (own_nid)
		gaze_nid_free(fs, nid);
	return err;
}

int
gaze_inode_evict(struct gaze_fs *fs, struct gaze_mbuf *imb)
{
	struct gaze_inode *in = imb->data;
	int err, e;

	if (GAZE_S_ISDIR(le16_to_cpu(in->mode)))
		gaze_dir_forget(fs, imb);
	err = gaze_bmap_truncate(fs, imb, 0);
	e = gaze_xattr_drop(fs, imb);
	if (e && !err)
		err = e;
	e = gaze_ns_node_free(fs, imb);
	if (e && !err)
		err = e;
	if (fs->valid_inodes)
		WRITE_ONCE(fs->valid_inodes, fs->valid_inodes - 1);
	return err;
}

void
gaze_inode_to_attr(const struct gaze_inode *in, struct gaze_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = le32_to_cpu(in->hdr.nid);
	a->mode = le16_to_cpu(in->mode);
	a->uid = le32_to_cpu(in->uid);
	a->gid = le32_to_cpu(in->gid);
	a->nlink = le32_to_cpu(in->nlink);
	a->size = le64_to_cpu(in->size);
	a->blocks = le64_to_cpu(in->blocks);
	a->atime = (s64)le64_to_cpu(in->atime);
	a->mtime = (s64)le64_to_cpu(in->mtime);
	a->ctime = (s64)le64_to_cpu(in->ctime);
	a->crtime = (s64)le64_to_cpu(in->crtime);
	a->atime_nsec = le32_to_cpu(in->atime_nsec);
	a->mtime_nsec = le32_to_cpu(in->mtime_nsec);
	a->ctime_nsec = le32_to_cpu(in->ctime_nsec);
	a->crtime_nsec = le32_to_cpu(in->crtime_nsec);
	a->rdev_major = le32_to_cpu(in->rdev_major);
	a->rdev_minor = le32_to_cpu(in->rdev_minor);
	a->flags = le32_to_cpu(in->flags);
	if (in->compress_log_cluster)
		a->flags |= GAZE_ATTR_CLUSTERS;
	a->compress_algo = in->compress_algo;
	a->compress_level = in->compress_level;
	a->compress_log_cluster = in->compress_log_cluster;
	a->compr_blocks = le64_to_cpu(in->compr_blocks);
	a->generation = le32_to_cpu(in->generation);
}

void
gaze_inode_touch(struct gaze_fs *fs, struct gaze_mbuf *imb, bool mtime)
{
	struct gaze_inode *in = imb->data;
	s64 sec;
	u32 nsec;

	gaze_wallclock(&sec, &nsec);
	in->ctime = cpu_to_le64((u64)sec);
	in->ctime_nsec = cpu_to_le32(nsec);
	if (mtime) {
		in->mtime = in->ctime;
		in->mtime_nsec = in->ctime_nsec;
	}
	gaze_mbuf_dirty(fs, imb);
}

/* writes one whole block of file data at fblk */
static int
inode_write_block(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		  const void *data)
{
	struct gaze_mbuf *owner;
	u64 addr;
	u32 ofs;
	int err;

	err = gaze_bmap_slot(fs, imb, fblk, true, &owner, &ofs);
	if (err)
		return err;
	err = gaze_data_write(fs, GAZE_LOG_DATA_WARM, owner->id, (u16)ofs,
			      data, &addr);
	if (!err)
		err = gaze_bmap_set(fs, imb, owner, ofs, addr);
	gaze_bmap_release(fs, imb, owner);
	return err;
}

/* moves inline bytes to block 0 and clears the inline flag */
static int
inode_inline_convert(struct gaze_fs *fs, struct gaze_mbuf *imb)
{
	struct gaze_inode *in = imb->data;
	u32 used = le16_to_cpu(in->inline_used);
	u8 *buf;
	int err = 0;

	if (used > GAZE_INLINE_SIZE)
		return -EFSCORRUPTED;
	buf = gaze_zalloc(GAZE_BLOCK_SIZE);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, in->i.data, used);
	memset(in->i.data, 0, GAZE_INLINE_SIZE);
	in->flags = cpu_to_le32(le32_to_cpu(in->flags) & ~GAZE_IF_INLINE_DATA);
	in->inline_used = 0;
	gaze_mbuf_dirty(fs, imb);
	if (used) {
		err = inode_write_block(fs, imb, 0, buf);
		if (err) {
			/* nothing was mapped: put the bytes back */
			memset(in->i.data, 0, GAZE_INLINE_SIZE);
			memcpy(in->i.data, buf, used);
			in->flags = cpu_to_le32(le32_to_cpu(in->flags) |
						GAZE_IF_INLINE_DATA);
			in->inline_used = cpu_to_le16((u16)used);
		}
	}
	gaze_free(buf);
	return err;
}

/* length of the step at pos (to the end of its block); *boff: offset in it */
static u64
inode_step(u64 pos, u64 left, u32 *boff)
{
	*boff = (u32)(pos & (GAZE_BLOCK_SIZE - 1));
	return min_t(u64, GAZE_BLOCK_SIZE - *boff, left);
}

/* the buffer for partial blocks, allocated on first use */
static int
inode_bounce(u8 **bounce)
{
	if (!*bounce)
		*bounce = gaze_alloc(GAZE_BLOCK_SIZE);
	return *bounce ? 0 : -ENOMEM;
}

/* bytes per cluster of a file with clusters; 1 for any other file */
static u64
inode_cluster_bytes(const struct gaze_inode *in)
{
	if (!in->compress_log_cluster)
		return 1;
	return (u64)GAZE_BLOCK_SIZE << in->compress_log_cluster;
}

/* reads block addr into buf; a hole reads as zeros */
static int
inode_block_load(struct gaze_fs *fs, u64 addr, u8 *buf)
{
	if (GAZE_ADDR_IS_REAL(addr))
		return gaze_block_read(fs, addr, buf);
	memset(buf, 0, GAZE_BLOCK_SIZE);
	return 0;
}

/* len bytes at off, below the size, through the block map */
static s64
inode_read_plain(struct gaze_fs *fs, struct gaze_mbuf *imb, u8 *dst, u64 len,
		 u64 off)
{
	u64 pos, addr, n, done = 0;
	u8 *bounce = NULL;
	u32 boff;
	int err = 0;

	for (pos = off; done < len; pos += n, done += n) {
		n = inode_step(pos, len - done, &boff);
		err = gaze_bmap_lookup(fs, imb, pos >> GAZE_BLOCK_SHIFT, &addr);
		if (err)
			break;
		if (!GAZE_ADDR_IS_REAL(addr)) {
			memset(dst + done, 0, n);
			continue;
		}
		if (n == GAZE_BLOCK_SIZE) {
			err = gaze_block_read(fs, addr, dst + done);
			if (err)
				break;
			continue;
		}
		err = inode_bounce(&bounce);
		if (err)
			break;
		err = gaze_block_read(fs, addr, bounce);
		if (err)
			break;
		memcpy(dst + done, bounce + boff, n);
	}
	gaze_free(bounce);
	/* a miss is never a short read: the caller reads it and starts again */
	if (err && (!done || err == -GAZE_EMISS))
		return err;
	return (s64)done;
}

/* inode_read_plain for a file with clusters: a packed one is unpacked */
static s64
inode_read_clusters(struct gaze_fs *fs, struct gaze_mbuf *imb, u8 *dst,
		    u64 len, u64 off)
{
	struct gaze_cluster c = { 0 };
	u64 pos, n, cpos, done = 0;
	bool packed;
	s64 got;
	int err = 0;

	for (pos = off; done < len; pos += n, done += n) {
		cpos = pos >> GAZE_BLOCK_SHIFT;
		err = gaze_cluster_is_packed(fs, imb, cpos, &packed);
		if (err)
			break;
		if (!c.buf)
			err = gaze_cluster_begin(imb, cpos, &c);
		if (err)
			break;
		gaze_cluster_move(&c, cpos);
		n = min(len - done,
			((c.first + c.nblk) << GAZE_BLOCK_SHIFT) - pos);
		if (!packed) {
			got = inode_read_plain(fs, imb, dst + done, n, pos);
			if (got < 0)
				err = (int)got;
			if (got != (s64)n) {
				done += got > 0 ? got : 0;
				break;
			}
			continue;
		}
		err = gaze_cluster_load(fs, imb, &c);
		if (err)
			break;
		memcpy(dst + done, c.buf + (pos - (c.first << GAZE_BLOCK_SHIFT)),
		       n);
	}
	gaze_cluster_end(&c);
	/* as in inode_read_plain: a miss is never a short read */
	if (err && (!done || err == -GAZE_EMISS))
		return err;
	return (s64)done;
}

s64
gaze_inode_read(struct gaze_fs *fs, struct gaze_mbuf *imb, void *buf,
		u64 len, u64 off)
{
	struct gaze_inode *in = imb->data;
	u64 size = le64_to_cpu(in->size);

	if (off >= size || !len)
		return 0;
	len = min(len, size - off);
	if (le32_to_cpu(in->flags) & GAZE_IF_INLINE_DATA) {
		if (off + len > GAZE_INLINE_SIZE)
			return -EFSCORRUPTED;
		memcpy(buf, in->i.data + off, len);
		return (s64)len;
	}
	if (in->compress_log_cluster)
		return inode_read_clusters(fs, imb, buf, len, off);
	return inode_read_plain(fs, imb, buf, len, off);
}

/*
 * gaze_inode_write for a file with clusters: each cluster touched is
 * loaded (unless the write covers it), updated and stored
 */
static s64
inode_write_clusters(struct gaze_fs *fs, struct gaze_mbuf *imb,
		     const u8 *src, u64 len, u64 off)
{
	struct gaze_inode *in = imb->data;
	u64 size = max(le64_to_cpu(in->size), off + len), pos, n, cofs;
	u64 k, kend, done = 0;
	struct gaze_cluster c = { 0 };
	int err = 0;

	for (pos = off; done < len && !err; pos += n, done += n) {
		if (!c.buf)
			err = gaze_cluster_begin(imb, pos >> GAZE_BLOCK_SHIFT,
						 &c);
		if (err)
			break;
		gaze_cluster_move(&c, pos >> GAZE_BLOCK_SHIFT);
		cofs = pos - (c.first << GAZE_BLOCK_SHIFT);
		n = min(len - done, ((u64)c.nblk << GAZE_BLOCK_SHIFT) - cofs);
		if (n < (u64)c.nblk << GAZE_BLOCK_SHIFT)
			err = gaze_cluster_load(fs, imb, &c);
		if (err)
			break;
		memcpy(c.buf + cofs, src + done, n);
		kend = DIV_ROUND_UP(cofs + n, GAZE_BLOCK_SIZE);
		for (k = cofs >> GAZE_BLOCK_SHIFT; k < kend; k++)
			c.dirty[k / 64] |= 1ull << (k % 64);
		err = gaze_cluster_store(fs, imb, &c, size, true);
		if (err)
			break;
	}
	gaze_cluster_end(&c);
	if (done && off + done > le64_to_cpu(in->size)) {
		in->size = cpu_to_le64(off + done);
		gaze_mbuf_dirty(fs, imb);
	}
	if (err && !done)
		return err;
	return (s64)done;
}

s64
gaze_inode_write(struct gaze_fs *fs, struct gaze_mbuf *imb,
		 const void *buf, u64 len, u64 off)
{
	struct gaze_inode *in = imb->data;
	u64 size = le64_to_cpu(in->size), end, pos, addr, n, done = 0;
	const u8 *src = buf;
	u8 *bounce = NULL;
	u32 boff;
	int err = 0;

	if (!len)
		return 0;
	end = off + len;
	if (end < off || end > GAZE_BMAP_MAX_BLOCKS << GAZE_BLOCK_SHIFT)
		return -EFBIG;
	if (le32_to_cpu(in->flags) & GAZE_IF_INLINE_DATA) {
		if (end <= GAZE_INLINE_SIZE) {
			memcpy(in->i.data + off, src, len);
			if (end > size) {
				in->size = cpu_to_le64(end);
				in->inline_used = cpu_to_le16((u16)end);
			}
			gaze_mbuf_dirty(fs, imb);
			return (s64)len;
		}
		err = inode_inline_convert(fs, imb);
		if (err)
			return err;
	}
	if (in->compress_log_cluster)
		return inode_write_clusters(fs, imb, src, len, off);
	for (pos = off; done < len; pos += n, done += n) {
		n = inode_step(pos, len - done, &boff);
		if (n == GAZE_BLOCK_SIZE) {
			err = inode_write_block(fs, imb,
						pos >> GAZE_BLOCK_SHIFT,
						src + done);
			if (err)
				break;
			continue;
		}
		err = inode_bounce(&bounce);
		if (err)
			break;
		err = gaze_bmap_lookup(fs, imb, pos >> GAZE_BLOCK_SHIFT, &addr);
		if (err)
			break;
		err = inode_block_load(fs, addr, bounce);
		if (err)
			break;
		memcpy(bounce + boff, src + done, n);
		err = inode_write_block(fs, imb, pos >> GAZE_BLOCK_SHIFT,
					bounce);
		if (err)
			break;
	}
	gaze_free(bounce);
	/* nothing written (e.g. -ENOSPC on the first block): size stays */
	if (done && off + done > size) {
		in->size = cpu_to_le64(off + done);
		gaze_mbuf_dirty(fs, imb);
	}
	if (err && !done)
		return err;
	return (s64)done;
}

/* file block i of a vectored write: fblks[i], or fblk + i when none */
static inline u64
inode_vec_blk(u64 fblk, const u64 *fblks, u32 i)
{
	return fblks ? fblks[i] : fblk + i;
}

/*
 * allocates blocks for the nr file blocks; on error frees what it took.
 * Blocks taken at a log head must still be written before they are
 * freed: the device's write pointer would stay behind the head and every
 * later write there would fail.
 */
static int
inode_alloc_run(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		const u64 *fblks, u32 nr, u64 *addrs, void *const *bufs)
{
	struct gaze_mbuf *owner;
	u32 i, ofs, got;
	int err = 0;

	for (i = 0; i < nr && !err; i++) {
		err = gaze_bmap_slot(fs, imb, inode_vec_blk(fblk, fblks, i),
				     true, &owner, &ofs);
		if (err)
			break;
		err = gaze_data_alloc(fs, GAZE_LOG_DATA_WARM, owner->id,
				      (u16)ofs, &addrs[i]);
		gaze_bmap_release(fs, imb, owner);
	}
	if (err) {
		for (got = 0; got < nr && addrs[got]; got++)
			;
		if (got)
			gaze_blocks_write_runs(fs, addrs, got, bufs);
		while (got-- > 0)
			gaze_block_invalidate(fs, addrs[got]);
	}
	return err;
}

/* the checks of gaze_inode_write_vec: ascending blocks, size inside */
static int
inode_vec_check(u64 fblk, const u64 *fblks, u32 nr, u64 size)
{
	u64 last = inode_vec_blk(fblk, fblks, nr - 1);
	u32 i;

	if (fblks) {
		for (i = 1; i < nr; i++)
			if (fblks[i] <= fblks[i - 1])
				return -EINVAL;
	} else if (fblk + nr < fblk) {
		return -EFBIG;
	}
	if (last >= GAZE_BMAP_MAX_BLOCKS ||
	    size > (last + 1) << GAZE_BLOCK_SHIFT)
		return -EFBIG;
	return 0;
}

int
gaze_inode_write_plain(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		       const u64 *fblks, u32 nr, void *const *bufs)
{
	struct gaze_mbuf *owner;
	u64 *addrs;
	u32 i, ofs;
	int err;

	addrs = gaze_zalloc(sizeof(*addrs) * nr);
	if (!addrs)
		return -ENOMEM;
	err = inode_alloc_run(fs, imb, fblk, fblks, nr, addrs, bufs);
	if (err)
		goto out;
	err = gaze_blocks_write_runs(fs, addrs, nr, bufs);
	if (err) {
		for (i = 0; i < nr; i++)
			gaze_block_invalidate(fs, addrs[i]);
		goto out;
	}
	for (i = 0; i < nr; i++) {
		err = gaze_bmap_slot(fs, imb, inode_vec_blk(fblk, fblks, i),
				     true, &owner, &ofs);
		if (err)
			break;
		err = gaze_bmap_set(fs, imb, owner, ofs, addrs[i]);
		gaze_bmap_release(fs, imb, owner);
		if (err)
			break;
	}
	if (err) {
		/* slots already set own their blocks; free the rest */
		for (; i < nr; i++)
			gaze_block_invalidate(fs, addrs[i]);
	}
out:
	gaze_free(addrs);
	return err;
}

/* gaze_inode_write_vec for a file with clusters: cluster by cluster */
static int
inode_write_vec_clusters(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
			 const u64 *fblks, u32 nr, void *const *bufs,
			 u64 size, struct gaze_cluster_enc *enc, u32 nenc)
{
	struct gaze_cluster c = { 0 };
	u32 i = 0, j, k, e = 0;
	u64 b;
	int err;

	err = gaze_cluster_begin(imb, inode_vec_blk(fblk, fblks, 0), &c);
	while (!err && i < nr) {
		gaze_cluster_move(&c, inode_vec_blk(fblk, fblks, i));
		while (e < nenc && enc[e].first < c.first)
			e++;
		c.enc = e < nenc && enc[e].first == c.first ? &enc[e] : NULL;
		for (j = i; j < nr; j++)
			if (inode_vec_blk(fblk, fblks, j) >= c.first + c.nblk)
				break;
		err = gaze_cluster_prepare(fs, imb, &c, j - i, size);
		for (; !err && i < j; i++) {
			b = inode_vec_blk(fblk, fblks, i);
			k = (u32)(b - c.first);
			memcpy(c.buf + ((size_t)k << GAZE_BLOCK_SHIFT), bufs[i],
			       GAZE_BLOCK_SIZE);
			c.dirty[k / 64] |= 1ull << (k % 64);
		}
		if (!err)
			err = gaze_cluster_store(fs, imb, &c, size, true);
	}
	gaze_cluster_end(&c);
	return err;
}

int
gaze_inode_write_vec(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		     const u64 *fblks, u32 nr, void *const *bufs, u64 size,
		     struct gaze_cluster_enc *enc, u32 nenc)
{
	struct gaze_inode *in = imb->data;
	int err;

	if (!nr)
		return 0;
	err = inode_vec_check(fblk, fblks, nr, size);
	if (err)
		return err;
	if (le32_to_cpu(in->flags) & GAZE_IF_INLINE_DATA) {
		err = inode_inline_convert(fs, imb);
		if (err)
			return err;
	}
	if (in->compress_log_cluster)
		err = inode_write_vec_clusters(fs, imb, fblk, fblks, nr, bufs,
					       max(size, le64_to_cpu(in->size)),
					       enc, nenc);
	else
		err = gaze_inode_write_plain(fs, imb, fblk, fblks, nr, bufs);
	if (!err && size > le64_to_cpu(in->size)) {
		in->size = cpu_to_le64(size);
		gaze_mbuf_dirty(fs, imb);
	}
	return err;
}

int
gaze_inode_write_blocks(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
			u32 nr, const void *buf, u64 size)
{
	void **bufs;
	u32 i;
	int err;

	if (!nr)
		return 0;
	bufs = gaze_alloc(sizeof(*bufs) * nr);
	if (!bufs)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		bufs[i] = (u8 *)buf + (size_t)i * GAZE_BLOCK_SIZE;
	err = gaze_inode_write_vec(fs, imb, fblk, NULL, nr, bufs, size, NULL,
				   0);
	gaze_free(bufs);
	return err;
}

u32
gaze_zero_edges(u64 size, u64 off, u64 end, u64 fblk[2])
{
	const u64 mask = GAZE_BLOCK_SIZE - 1;
	u32 n = 0;

	end = min(end, size);
	if (off >= end)
		return 0;
	if (off & mask)
		fblk[n++] = off >> GAZE_BLOCK_SHIFT;
	if ((end & mask) && end < size &&
	    !(n && fblk[0] == end >> GAZE_BLOCK_SHIFT))
		fblk[n++] = end >> GAZE_BLOCK_SHIFT;
	return n;
}

/* zeroes bytes [off, end) inside one mapped block (a hole stays) */
static int
inode_zero_partial(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 off,
		   u64 end)
{
	u64 fblk = off >> GAZE_BLOCK_SHIFT, addr;
	u8 *buf;
	int err;

	err = gaze_bmap_lookup(fs, imb, fblk, &addr);
	if (err || !GAZE_ADDR_IS_REAL(addr))
		return err;
	buf = gaze_alloc(GAZE_BLOCK_SIZE);
	if (!buf)
		return -ENOMEM;
	err = gaze_block_read_staged(fs, addr, buf);
	if (!err) {
		memset(buf + (off & (GAZE_BLOCK_SIZE - 1)), 0, end - off);
		err = inode_write_block(fs, imb, fblk, buf);
	}
	gaze_free(buf);
	return err;
}

int
gaze_inode_truncate(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 size)
{
	return gaze_inode_truncate_trim(fs, imb, size, false);
}

/*
 * The first file block the map loses when the size becomes size: the one
 * after the EOF, or the end of the cluster holding it when that cluster
 * is packed.  A packed cluster's data all lies below the EOF here (a cut
 * into its data expanded it first), so its one slot past the EOF that
 * is not 0 is its length marker; a cut there would lose the marker and
 * leave the cluster counted with the wrong length.  This happens when the
 * size is kept (the module trims what fallocate put past it) or grows
 * past what the core has (the page cache held the rest).
 */
static int
inode_trunc_from(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 size,
		 u64 *from)
{
	const struct gaze_inode *in = imb->data;
	u64 cmask = (1ull << in->compress_log_cluster) - 1;
	bool packed;
	int err;

	*from = DIV_ROUND_UP(size, GAZE_BLOCK_SIZE);
	if (!(*from & cmask))
		return 0;
	err = gaze_cluster_is_packed(fs, imb, *from, &packed);
	if (!err && packed)
		*from = (*from | cmask) + 1;
	return err;
}

int
gaze_inode_truncate_trim(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 size,
			 bool trim)
{
	struct gaze_inode *in = imb->data;
	u64 old = le64_to_cpu(in->size), from, fblk[2];
	int err;

	if (size > GAZE_BMAP_MAX_BLOCKS << GAZE_BLOCK_SHIFT)
		return -EFBIG;
	if (le32_to_cpu(in->flags) & GAZE_IF_INLINE_DATA) {
		if (size <= GAZE_INLINE_SIZE) {
			if (size < old && old <= GAZE_INLINE_SIZE)
				memset(in->i.data + size, 0, old - size);
			in->size = cpu_to_le64(size);
			in->inline_used = cpu_to_le16((u16)size);
			gaze_mbuf_dirty(fs, imb);
			return 0;
		}
		err = inode_inline_convert(fs, imb);
		if (err)
			return err;
	}
	if (size < old && (size & (inode_cluster_bytes(in) - 1))) {
		/* a packed cluster the new EOF cuts becomes plain */
		err = gaze_cluster_expand(fs, imb, size >> GAZE_BLOCK_SHIFT,
					  size);
		if (err)
			return err;
	}
	/* the tail of the block the new EOF cuts */
	if (gaze_zero_edges(old, size, old, fblk)) {
		err = inode_zero_partial(fs, imb, size,
					 (fblk[0] + 1) << GAZE_BLOCK_SHIFT);
		if (err)
			return err;
	}
	if (size <= old || trim) {
		/* and blocks preallocated past the size (KEEP_SIZE) */
		err = inode_trunc_from(fs, imb, size, &from);
		if (!err)
			err = gaze_bmap_truncate(fs, imb, from);
		if (err)
			return err;
	}
	in->size = cpu_to_le64(size);
	gaze_mbuf_dirty(fs, imb);
	return 0;
}

/*
 * Bytes [off, end) below the size read as zero afterwards: whole blocks
 * become holes, partial ones are rewritten.  The block holding the size
 * counts as whole when the range reaches the size (its tail is zero).
 */
int
gaze_inode_zero(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 off, u64 end)
{
	struct gaze_inode *in = imb->data;
	u64 size = le64_to_cpu(in->size), first, last, mapped, fblk[2], lo, hi;
	u32 n, i;
	int err = 0;

	end = min(end, size);
	if (off >= end)
		return 0;
	if (le32_to_cpu(in->flags) & GAZE_IF_INLINE_DATA) {
		if (end > GAZE_INLINE_SIZE)
			return -EFSCORRUPTED;
		memset(in->i.data + off, 0, end - off);
		gaze_mbuf_dirty(fs, imb);
		return 0;
	}
	if (off & (inode_cluster_bytes(in) - 1)) {
		/* packed clusters the range cuts into become plain */
		err = gaze_cluster_expand(fs, imb, off >> GAZE_BLOCK_SHIFT,
					  size);
		if (err)
			return err;
	}
	if ((end & (inode_cluster_bytes(in) - 1)) && end < size) {
		err = gaze_cluster_expand(fs, imb, end >> GAZE_BLOCK_SHIFT,
					  size);
		if (err)
			return err;
	}
	/* the blocks cut in part: their bytes in [off, end), to the block's
	 * end at the size */
	n = gaze_zero_edges(size, off, end, fblk);
	for (i = 0; i < n && !err; i++) {
		lo = max(off, fblk[i] << GAZE_BLOCK_SHIFT);
		hi = (fblk[i] + 1) << GAZE_BLOCK_SHIFT;
		if (end < size)
			hi = min(hi, end);
		err = inode_zero_partial(fs, imb, lo, hi);
	}
	/* and the whole ones, the block holding the size included */
	first = DIV_ROUND_UP(off, GAZE_BLOCK_SIZE);
	last = end == size ? DIV_ROUND_UP(end, GAZE_BLOCK_SIZE) :
	       end >> GAZE_BLOCK_SHIFT;
	if (!err && first < last)
		err = gaze_bmap_range(fs, imb, first, last, true, &mapped);
	return err;
}

/*
 * Does fallocate reserve blocks in this file?  With the ro_compat
 * feature prealloc, in a file without clusters (a cluster is stored as a
 * whole, so a reservation per block would not say what it needs).
 */
static bool
inode_prealloc_on(struct gaze_fs *fs, const struct gaze_inode *in)
{
	return (le64_to_cpu(fs->sb.feature_ro_compat) &
		GAZE_FEATURE_RO_COMPAT_PREALLOC) && !in->compress_log_cluster;
}

/*
 * mode 0 / KEEP_SIZE and ZERO_RANGE: every block the range touches that
 * has none gets a preallocated one (GAZE_ADDR_PREALLOC, counted as used
 * space until written or freed); without preallocation the holes must
 * only fit now.  See gaze_core.h.  First the check, so that -ENOSPC
 * comes before anything changed: *n blocks are missing.
 */
static int
inode_prealloc_check(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 off,
		     u64 end, u64 *n)
{
	struct gaze_inode *in = imb->data;
	u64 first = off >> GAZE_BLOCK_SHIFT;
	u64 last = DIV_ROUND_UP(end, GAZE_BLOCK_SIZE), have = 0;
	int err;

	*n = 0;
	if (le32_to_cpu(in->flags) & GAZE_IF_INLINE_DATA) {
		if (end <= GAZE_INLINE_SIZE)
			return 0;
	} else {
		err = gaze_bmap_range(fs, imb, first, last, false, &have);
		if (err)
			return err;
	}
	*n = last - first - have;
	if (*n > gaze_space_free_blocks(fs))
		return -ENOSPC;
	if (!inode_prealloc_on(fs, in) || !*n)
		return 0;
	return gaze_space_user_check(fs, (u32)min_t(u64, *n + GAZE_MAP_NODES(*n),
						    0xffffffffu));
}

/* then the slots: holes in the blocks [off, end) touches */
static int
inode_prealloc(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 off, u64 end)
{
	struct gaze_inode *in = imb->data;
	int err;

	if (le32_to_cpu(in->flags) & GAZE_IF_INLINE_DATA) {
		if (end <= GAZE_INLINE_SIZE)
			return 0;
		err = inode_inline_convert(fs, imb);
		if (err)
			return err;
	}
	err = gaze_bmap_prealloc(fs, imb, off >> GAZE_BLOCK_SHIFT,
				 DIV_ROUND_UP(end, GAZE_BLOCK_SIZE));
	gaze_space_publish(fs);
	return err;
}

/* COLLAPSE_RANGE and INSERT_RANGE copy this many blocks a step (the
 * bits of a u64: the step's holes) */
#define INODE_SHIFT_CHUNK	64u

/*
 * The holes among n blocks from src (bit i: src + i), and the
 * preallocated blocks (*unw); none in a file with clusters, whose blocks
 * are copied as data (its map is not one of holes)
 */
static int
inode_holes(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 src, u32 n,
	    u64 *holes, u64 *unw)
{
	const struct gaze_inode *in = imb->data;
	u64 addr, run;
	u32 i = 0;
	int err;

	*holes = *unw = 0;
	while (!in->compress_log_cluster && i < n) {
		err = gaze_bmap_run(fs, imb, src + i, n - i, &addr, &run);
		if (err)
			return err;
		for (; run && i < n; run--, i++) {
			if (addr == GAZE_NULL_ADDR)
				*holes |= 1ull << i;
			else if (addr == GAZE_MAP_UNWRITTEN)
				*unw |= 1ull << i;
		}
	}
	return 0;
}

/* what block i of a step is: 0 data, 1 a hole, 2 preallocated */
static u32
inode_kind(u64 holes, u64 unw, u32 i)
{
	return ((holes >> i) & 1) | (((unw >> i) & 1) << 1);
}

/*
 * n blocks of the file from src to dst, through buf, never past the
 * size; holes stay holes and preallocated blocks stay preallocated.
 * Content and map are taken before anything is written, since dst may
 * overlap src.
 */
static int
inode_copy_blocks(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 src,
		  u64 dst, u32 n, u8 *buf)
{
	const struct gaze_inode *in = imb->data;
	u64 size = le64_to_cpu(in->size), holes, unw, b, e;
	u32 i, j, kind;
	s64 r;
	int err;

	r = gaze_inode_read(fs, imb, buf, (u64)n << GAZE_BLOCK_SHIFT,
			    src << GAZE_BLOCK_SHIFT);
	if (r < 0)
		return (int)r;
	memset(buf + r, 0, ((size_t)n << GAZE_BLOCK_SHIFT) - (size_t)r);
	err = inode_holes(fs, imb, src, n, &holes, &unw);
	for (i = 0; !err && i < n; i = j) {
		kind = inode_kind(holes, unw, i);
		for (j = i + 1; j < n; j++)	/* a run of one kind */
			if (inode_kind(holes, unw, j) != kind)
				break;
		b = (dst + i) << GAZE_BLOCK_SHIFT;
		e = min(size, (dst + j) << GAZE_BLOCK_SHIFT);
		if (b >= e)
			break;
		if (kind) {
			err = gaze_inode_zero(fs, imb, b, e);
			if (!err && kind == 2)
				err = gaze_bmap_prealloc(fs, imb, dst + i,
					DIV_ROUND_UP(e, GAZE_BLOCK_SIZE));
			continue;
		}
		r = gaze_inode_write(fs, imb,
				     buf + ((size_t)i << GAZE_BLOCK_SHIFT),
				     e - b, b);
		if (r != (s64)(e - b))
			err = r < 0 ? (int)r : -EIO;
	}
	return err;
}

/*
 * Blocks [from, from + nr) to [to, to + nr), a step at a time: ascending
 * when moving down (collapse), descending when moving up (insert), so no
 * block is overwritten before it is copied; the collector gets its
 * chance between steps, as between two writes.
 */
static int
inode_shift(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from, u64 to,
	    u64 nr)
{
	u8 *buf = gaze_alloc((size_t)INODE_SHIFT_CHUNK << GAZE_BLOCK_SHIFT);
	u64 done = 0, s;
	u32 n;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (!err && done < nr) {
		n = (u32)min_t(u64, INODE_SHIFT_CHUNK, nr - done);
		s = to < from ? done : nr - done - n;
		err = gaze_gc_balance(fs, 2 * (u64)n);
		if (!err)
			err = inode_copy_blocks(fs, imb, from + s, to + s, n,
						buf);
		done += n;
	}
	gaze_free(buf);
	return err;
}

/* COLLAPSE_RANGE / INSERT_RANGE: see gaze_core.h */
static int
inode_collapse_insert(struct gaze_fs *fs, struct gaze_mbuf *imb, u32 mode,
		      u64 off, u64 len)
{
	struct gaze_inode *in = imb->data;
	u64 size = le64_to_cpu(in->size);
	u64 b = off >> GAZE_BLOCK_SHIFT, l = len >> GAZE_BLOCK_SHIFT;
	u64 eof = DIV_ROUND_UP(size, GAZE_BLOCK_SIZE);
	bool collapse = mode & GAZE_FALLOC_COLLAPSE_RANGE;
	int err;

	if (mode & ~(GAZE_FALLOC_COLLAPSE_RANGE | GAZE_FALLOC_INSERT_RANGE) ||
	    mode == (GAZE_FALLOC_COLLAPSE_RANGE | GAZE_FALLOC_INSERT_RANGE))
		return -EINVAL;
	if (!len || ((off | len) & (GAZE_BLOCK_SIZE - 1)) ||
	    off + len < off || (collapse ? off + len >= size : off >= size))
		return -EINVAL;
	if (!collapse &&
	    size + len > GAZE_BMAP_MAX_BLOCKS << GAZE_BLOCK_SHIFT)
		return -EFBIG;
	/* every block after the range is written again first */
	if (eof - b > gaze_space_free_blocks(fs))
		return -ENOSPC;
	if (collapse) {
		err = inode_shift(fs, imb, b + l, b, eof - b - l);
		return err ? err : gaze_inode_truncate(fs, imb, size - len);
	}
	err = gaze_inode_truncate(fs, imb, size + len);
	if (!err)
		err = inode_shift(fs, imb, b, b + l, eof - b);
	return err ? err : gaze_inode_zero(fs, imb, off, off + len);
}

int
gaze_inode_fallocate(struct gaze_fs *fs, struct gaze_mbuf *imb, u32 mode,
		     u64 off, u64 len)
{
	struct gaze_inode *in = imb->data;
	bool keep = mode & GAZE_FALLOC_KEEP_SIZE, pre, alloc;
	u64 end = off + len, missing = 0;
	int err = 0;

	if (mode & (GAZE_FALLOC_COLLAPSE_RANGE | GAZE_FALLOC_INSERT_RANGE))
		return inode_collapse_insert(fs, imb, mode, off, len);
	if (mode & ~(GAZE_FALLOC_KEEP_SIZE | GAZE_FALLOC_PUNCH_HOLE |
		     GAZE_FALLOC_ZERO_RANGE))
		return -EOPNOTSUPP;
	if ((mode & GAZE_FALLOC_PUNCH_HOLE) &&
	    (!keep || (mode & GAZE_FALLOC_ZERO_RANGE)))
		return -EOPNOTSUPP;
	if (!len || end < off)
		return -EINVAL;
	if (end > GAZE_BMAP_MAX_BLOCKS << GAZE_BLOCK_SHIFT)
		return -EFBIG;
	/* a zeroed range stays allocated, as on ext4 and XFS */
	pre = inode_prealloc_on(fs, in);
	alloc = !(mode & GAZE_FALLOC_PUNCH_HOLE) &&
		(!(mode & GAZE_FALLOC_ZERO_RANGE) || pre);
	if (alloc)
		err = inode_prealloc_check(fs, imb, off, end, &missing);
	if (!err && (mode & (GAZE_FALLOC_PUNCH_HOLE | GAZE_FALLOC_ZERO_RANGE)))
		err = gaze_inode_zero(fs, imb, off, end);
	if (!err && alloc && pre && (missing || (mode & GAZE_FALLOC_ZERO_RANGE)))
		err = inode_prealloc(fs, imb, off, end);
	if (!err && !keep && end > le64_to_cpu(in->size))
		err = gaze_inode_truncate(fs, imb, end);
	return err;
}
