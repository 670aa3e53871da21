// SPDX-License-Identifier: GPL-2.0
/*
 * file.c - regular files through the page cache, and symlinks.
 *
 * The page cache holds file data; the core maps the blocks that fill a
 * folio (gaze_file_map; the read itself runs without the core's lock,
 * and an inline file is copied by gaze_file_read) and is called to write
 * back the
 * dirty bytes of a folio, clipped to i_size (gaze_file_write, which
 * extends the core's size).  Readahead and writeback work on runs of
 * folios (mpage over gaze_file_map; gaze_file_write_vec), so large
 * files move in large I/Os, and random dirty pages leave together.
 * Folios are single pages (no large folios).  i_size in the VFS may be
 * ahead of the core's until writeback.
 *
 * Times: the VFS keeps a regular file's mtime/ctime (file_update_time on
 * write and page_mkwrite); the core stamps the wall clock on each
 * gaze_file_write, so writeback puts the VFS times back afterwards.
 *
 * fsync: writes and waits for the range, then gaze_fs_fsync: the dirty
 * nodes go to their log marked for roll-forward (a checkpoint only when
 * recovery could not replay what changed; see core/recover.c).
 *
 * fallocate: mode 0 / KEEP_SIZE, PUNCH_HOLE | KEEP_SIZE, ZERO_RANGE
 * [| KEEP_SIZE], COLLAPSE_RANGE and INSERT_RANGE (see gaze_file_fallocate
 * for what "allocate" can promise on a log-structured filesystem: a
 * space check and the size, no reservation; and what collapse and insert
 * cost: the blocks after the range are copied); other modes
 * -EOPNOTSUPP.
 *
 * gaze_shutdown: GAZE_IOC_SHUTDOWN (uapi/gaze_ioctl.h, dispatched by
 * ioctl.c).
 *
 * O_DIRECT: see gaze_direct_IO.  SEEK_DATA / SEEK_HOLE: gaze_seek_data_hole.
 * Not yet: large folios.
 *
 * Buffered reads: gaze_read_iter (readfast.c) copies short reads from a
 * cached page without a folio reference, else generic_file_read_iter.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/writeback.h>
#include <linux/uio.h>
#include <linux/slab.h>
#include <linux/mpage.h>
#include <linux/buffer_head.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/swap.h>
#include "gaze_kern.h"
#include "gaze_ioctl.h"

static inline struct gaze_fs *gaze_ifs(struct inode *inode)
{
	return GAZE_FS(inode->i_sb);
}

/*
 * Fills a locked page: bytes past i_size read as zero.  The core maps the
 * block (under its lock, no I/O once the map is cached) and the block is
 * read after, without the lock, as readahead reads: a block the garbage
 * collector moves meanwhile keeps its bytes at the old address until two
 * checkpoints have passed.  An inline file is copied from its inode.  An
 * inode whose last link is gone is an orphan in the core until its last
 * reference, so it still reads and writes.
 */
static int gaze_fill_page_cluster(struct inode *inode, struct page *page);

static int gaze_fill_page(struct inode *inode, struct page *page)
{
	loff_t pos = page_offset(page), isize = i_size_read(inode);
	size_t want = 0;
	unsigned int nofs;
	void *kaddr;
	s64 n = 0;
	u64 addr;
	u32 nr;
	int ret;

	if (pos < isize)
		want = min_t(loff_t, PAGE_SIZE, isize - pos);
	if (want) {
		nofs = gaze_nofs_begin();
		ret = gaze_file_map(gaze_ifs(inode), inode->i_ino,
				    pos >> GAZE_BLOCK_SHIFT, 1, &addr, &nr);
		gaze_nofs_end(nofs);
		if (ret && ret != -ENODATA)
			return gaze_error(inode->i_sb, ret, "read");
	}
	if (want && !ret && addr == GAZE_MAP_ENCODED)
		return gaze_fill_page_cluster(inode, page);
	kaddr = kmap_local_page(page);
	if (want && !ret && GAZE_MAP_DATA(addr)) {
		ret = gaze_bdev_read(inode->i_sb->s_bdev, addr, 1, kaddr);
		if (ret) {
			kunmap_local(kaddr);
			return ret;
		}
		n = want;
	} else if (want && ret == -ENODATA) {	/* inline */
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

	/* on an error the folio stays !uptodate: the reader gets -EIO */
	ret = gaze_fill_page(folio->mapping->host, &folio->page);
	if (!ret)
		folio_mark_uptodate(folio);
	folio_unlock(folio);
	return ret;
}

/*
 * Readahead: the core maps runs of consecutive blocks (gaze_file_map) and
 * mpage builds large bios from them, read asynchronously; holes and the
 * part past EOF are zeroed by mpage.  An inline file (data inside the
 * inode) goes through gaze_read_folio instead.
 *
 * Blocks are read without fs->lock held: a block the garbage collector
 * moves meanwhile still holds the same bytes at its old address until
 * the zone is reset, which takes two checkpoints after the move.
 */
static int gaze_get_block(struct inode *inode, sector_t iblock,
			  struct buffer_head *bh, int create)
{
	u32 max = bh->b_size >> inode->i_blkbits, nr;
	unsigned int nofs;
	u64 addr;
	int ret;

	if (WARN_ON_ONCE(create))
		return -EIO;
	if (!max)
		max = 1;
	nofs = gaze_nofs_begin();
	ret = gaze_file_map(gaze_ifs(inode), inode->i_ino, iblock, max, &addr,
			    &nr);
	gaze_nofs_end(nofs);
	if (ret)
		return ret;
	if (WARN_ON_ONCE(addr == GAZE_MAP_ENCODED))
		return -EIO;	/* gaze_reads_through_core() said no */
	if (GAZE_MAP_DATA(addr))	/* else zeros */
		map_bh(bh, inode->i_sb, addr);
	bh->b_size = (size_t)nr << inode->i_blkbits;
	return 0;
}

/*
 * Files read folio by folio through gaze_fill_page: inline ones, and
 * those with compressed clusters (GAZE_ATTR_CLUSTERS), which mpage
 * cannot read from an address
 */
static bool gaze_reads_through_core(struct inode *inode)
{
	unsigned int nofs;
	u64 addr;
	u32 nr;
	int ret;

	if (READ_ONCE(GAZE_I(inode)->flags) & GAZE_ATTR_CLUSTERS)
		return true;
	nofs = gaze_nofs_begin();
	ret = gaze_file_map(gaze_ifs(inode), inode->i_ino, 0, 1, &addr, &nr);
	gaze_nofs_end(nofs);
	return ret == -ENODATA;
}

/*
 * Files with compressed clusters are read a cluster at a time (readahead
 * once per cluster, not once per folio), without fs->lock across the
 * device reads: the core maps (gaze_file_map_cluster for a packed
 * cluster, gaze_file_map for the runs of a plain one), the blocks are
 * read and a stream decoded here.  A stream that does not check (moved
 * and its zone reused meanwhile: the checksum says so) or a mapping that
 * changed under the reader is read again through the core
 * (gaze_file_read), under its lock.
 */
struct gaze_cl_read {
	u64	first;		/* byte offset of the cluster in buf */
	u32	bytes;		/* bytes per cluster */
	s64	got;		/* bytes read into buf; < 0 none yet */
	u8	*buf;		/* bytes */
	u8	*stream;	/* bytes: a packed cluster's stream */
	u64	*addrs;		/* GAZE_CLUSTER_MAX_BLOCKS: its blocks */
};

static void gaze_cl_read_exit(struct gaze_cl_read *cr)
{
	kvfree(cr->buf);
	cr->buf = NULL;
}

/* n blocks at addrs into buf, consecutive addresses in one request */
static int gaze_read_addrs(struct block_device *bdev, const u64 *addrs, u32 n,
			   u8 *buf)
{
	u32 i = 0, j;
	int ret;

	while (i < n) {
		for (j = i + 1; j < n && addrs[j] == addrs[j - 1] + 1; j++)
			;
		ret = gaze_bdev_read(bdev, addrs[i], j - i,
				     buf + ((size_t)i << GAZE_BLOCK_SHIFT));
		if (ret)
			return ret;
		i = j;
	}
	return 0;
}

/* a packed cluster: its stream read and decoded; -ENODATA if not packed */
static int gaze_cl_read_packed(struct inode *inode, struct gaze_cl_read *cr,
			       u64 len)
{
	u32 n, nvalid;
	size_t raw;
	int ret;

	ret = gaze_file_map_cluster(gaze_ifs(inode), inode->i_ino,
				    cr->first >> GAZE_BLOCK_SHIFT, cr->addrs, &n,
				    &nvalid);
	if (!ret)
		ret = gaze_read_addrs(inode->i_sb->s_bdev, cr->addrs, n,
				      cr->stream);
	if (ret)
		return ret;
	raw = (size_t)nvalid << GAZE_BLOCK_SHIFT;
	ret = gaze_cluster_decode(cr->stream, n << GAZE_BLOCK_SHIFT, cr->buf,
				  raw, NULL);
	if (!ret && len > raw)
		memset(cr->buf + raw, 0, len - raw);	/* a hole after it */
	return ret ? -EAGAIN : 0;
}

/* a plain cluster: its runs read, holes zeroed; -EAGAIN if one is packed */
static int gaze_cl_read_plain(struct inode *inode, struct gaze_cl_read *cr,
			      u64 len)
{
	u32 nb = DIV_ROUND_UP(len, GAZE_BLOCK_SIZE), b = 0, nr;
	u64 fblk = cr->first >> GAZE_BLOCK_SHIFT, addr;
	u8 *p;
	int ret;

	while (b < nb) {
		ret = gaze_file_map(gaze_ifs(inode), inode->i_ino, fblk + b,
				    nb - b, &addr, &nr);
		if (ret)
			return ret;
		if (addr == GAZE_MAP_ENCODED || !nr)
			return -EAGAIN;		/* packed meanwhile */
		nr = min(nr, nb - b);
		p = cr->buf + ((size_t)b << GAZE_BLOCK_SHIFT);
		if (GAZE_MAP_DATA(addr))
			ret = gaze_bdev_read(inode->i_sb->s_bdev, addr, nr, p);
		else
			memset(p, 0, (size_t)nr << GAZE_BLOCK_SHIFT);
		if (ret)
			return ret;
		b += nr;
	}
	return 0;
}

/* len bytes of the cluster at cr->first into cr->buf: bytes, or -errno */
static s64 gaze_cl_load(struct inode *inode, struct gaze_cl_read *cr, u64 len)
{
	unsigned int nofs = gaze_nofs_begin();
	s64 got = len;
	int ret;

	ret = gaze_cl_read_packed(inode, cr, len);
	if (ret == -ENODATA)
		ret = gaze_cl_read_plain(inode, cr, len);
	if (ret == -EAGAIN || ret == -EFSCORRUPTED)
		got = gaze_file_read(gaze_ifs(inode), inode->i_ino, cr->buf,
				     len, cr->first);
	else if (ret)
		got = ret;
	gaze_nofs_end(nofs);
	return got;
}

static int gaze_cluster_fill(struct inode *inode, struct gaze_cl_read *cr,
			     struct folio *folio)
{
	loff_t pos = folio_pos(folio), isize = i_size_read(inode);
	u64 first = pos & ~((u64)cr->bytes - 1), off;
	size_t n = 0;
	void *kaddr;

	if (pos < isize && (cr->got < 0 || cr->first != first)) {
		cr->first = first;
		cr->got = gaze_cl_load(inode, cr,
				       min_t(u64, cr->bytes, isize - first));
		if (cr->got < 0)
			return gaze_error(inode->i_sb, (int)cr->got, "read");
	}
	off = pos - first;
	if (pos < isize && cr->got > (s64)off)
		n = min_t(u64, PAGE_SIZE, cr->got - off);
	kaddr = kmap_local_folio(folio, 0);
	memcpy(kaddr, cr->buf + off, n);
	memset(kaddr + n, 0, PAGE_SIZE - n);
	kunmap_local(kaddr);
	flush_dcache_folio(folio);
	return 0;
}

/* bytes per compressed cluster of the file; 0 if it has none */
static u32 gaze_cluster_bytes(struct inode *inode)
{
	unsigned int nofs = gaze_nofs_begin();
	struct gaze_attr a;
	int ret;

	ret = gaze_ns_getattr(gaze_ifs(inode), inode->i_ino, &a);
	gaze_nofs_end(nofs);
	if (ret || !a.compress_log_cluster ||
	    (a.flags & GAZE_IF_INLINE_DATA))
		return 0;
	return GAZE_BLOCK_SIZE << a.compress_log_cluster;
}

/* buffers for clusters of bytes bytes */
static int gaze_cl_read_alloc(struct gaze_cl_read *cr, u32 bytes)
{
	cr->got = -1;
	cr->bytes = bytes;
	cr->buf = kvmalloc(2 * (size_t)cr->bytes + GAZE_CLUSTER_MAX_BLOCKS *
			   sizeof(*cr->addrs), GFP_NOFS);
	if (!cr->buf)
		return -ENOMEM;
	cr->stream = cr->buf + cr->bytes;
	cr->addrs = (u64 *)(cr->stream + cr->bytes);
	return 0;
}

/* buffers for the file's clusters; -ENODATA when it has none (inline) */
static int gaze_cl_read_init(struct inode *inode, struct gaze_cl_read *cr)
{
	u32 bytes = gaze_cluster_bytes(inode);

	return bytes ? gaze_cl_read_alloc(cr, bytes) : -ENODATA;
}

/*
 * Readahead of a file with compressed clusters.  The window grows to
 * whole clusters (readahead_expand; a window that ended inside a cluster
 * would have the next one read and decode it again), and its clusters
 * are read and decoded on several CPUs (gaze_par_run, cmpwq.c), each by
 * one runner, which fills and unlocks that cluster's folios.  A runner
 * without its buffers reads its folios one by one (gaze_read_folio).
 */
struct gaze_ra_job {
	struct inode	*inode;
	struct folio	**folios;	/* the window's, in index order */
	u32		nr;
	u32		bytes;		/* per cluster */
	loff_t		pos;		/* of folios[0] */
	loff_t		first;		/* of the cluster holding pos */
};

static void *gaze_ra_get(void *arg)
{
	struct gaze_ra_job *job = arg;
	struct gaze_cl_read *cr = kzalloc(sizeof(*cr), GFP_NOFS);

	if (cr && gaze_cl_read_alloc(cr, job->bytes)) {
		kfree(cr);
		cr = NULL;
	}
	return cr;
}

static void gaze_ra_put(void *arg, void *state)
{
	struct gaze_cl_read *cr = state;

	if (cr)
		gaze_cl_read_exit(cr);
	kfree(cr);
}

/* the folio filled and unlocked; on an error it stays !uptodate (-EIO) */
static void gaze_ra_fill(struct inode *inode, struct gaze_cl_read *cr,
			 struct folio *folio)
{
	if (!cr) {
		gaze_read_folio(NULL, folio);
		return;
	}
	if (!gaze_cluster_fill(inode, cr, folio))
		folio_mark_uptodate(folio);
	folio_unlock(folio);
}

/* cluster i of the window: the folios it holds */
static void gaze_ra_one(void *arg, void *state, u32 i)
{
	struct gaze_ra_job *job = arg;
	loff_t start = job->first + (loff_t)i * job->bytes;
	loff_t end = start + job->bytes;
	u32 j = 0, last;

	if (start > job->pos)
		j = (start - job->pos) >> PAGE_SHIFT;
	last = min_t(loff_t, job->nr, (end - job->pos) >> PAGE_SHIFT);
	for (; j < last; j++)
		gaze_ra_fill(job->inode, state, job->folios[j]);
}

static const struct gaze_par_ops gaze_ra_ops = {
	.get = gaze_ra_get,
	.run = gaze_ra_one,
	.put = gaze_ra_put,
};

static void gaze_ra_expand(struct readahead_control *rac, u32 bytes)
{
	loff_t isize = i_size_read(rac->mapping->host);
	loff_t start = round_down(readahead_pos(rac), bytes);
	loff_t end = readahead_pos(rac) + readahead_length(rac);

	end = min(round_up(end, bytes), round_up(isize, PAGE_SIZE));
	if (end > start)
		readahead_expand(rac, start, end - start);
}

static void gaze_ra_clusters(struct readahead_control *rac, u32 bytes)
{
	struct inode *inode = rac->mapping->host;
	struct gaze_ra_job job = { .inode = inode, .bytes = bytes };
	struct folio *folio;
	u32 n;

	gaze_ra_expand(rac, bytes);
	job.folios = kmalloc_array(readahead_count(rac), sizeof(*job.folios),
				   GFP_NOFS | __GFP_NOWARN);
	if (!job.folios) {
		while ((folio = readahead_folio(rac)) != NULL)
			gaze_read_folio(NULL, folio);
		return;
	}
	job.pos = readahead_pos(rac);
	job.first = round_down(job.pos, bytes);
	while ((folio = readahead_folio(rac)) != NULL)
		job.folios[job.nr++] = folio;
	if (job.nr) {
		n = DIV_ROUND_UP(job.pos + ((loff_t)job.nr << PAGE_SHIFT) -
				 job.first, bytes);
		n = gaze_par_run(GAZE_SB(inode->i_sb), &gaze_ra_ops, &job, n);
		atomic64_add(n, &GAZE_SB(inode->i_sb)->cmp_rd_parallel);
	}
	kfree(job.folios);
}

static void gaze_readahead(struct readahead_control *rac)
{
	struct inode *inode = rac->mapping->host;
	struct folio *folio;
	u32 bytes;

	if (!gaze_reads_through_core(inode)) {
		mpage_readahead(rac, gaze_get_block);
		return;
	}
	bytes = gaze_cluster_bytes(inode);
	if (bytes) {
		gaze_ra_clusters(rac, bytes);
		return;
	}
	while ((folio = readahead_folio(rac)) != NULL)	/* inline */
		gaze_read_folio(NULL, folio);
}

/*
 * After one page of a decoded cluster: its other pages that are not
 * cached, or cached and not uptodate, from the same decoding.  Never
 * waits: a folio locked elsewhere (a readahead window of its own, a
 * writer) or one the allocator cannot give at once is left alone.
 */
static void gaze_cluster_fill_rest(struct inode *inode, struct gaze_cl_read *cr,
				   pgoff_t done)
{
	pgoff_t index = cr->first >> PAGE_SHIFT, end;
	struct folio *folio;

	if (cr->got <= 0)
		return;
	end = index + DIV_ROUND_UP(cr->got, PAGE_SIZE);
	for (; index < end; index++) {
		if (index == done)
			continue;
		folio = gaze_grab_folio_nowait(inode->i_mapping, index);
		if (!folio)
			continue;
		if (!folio_test_uptodate(folio) &&
		    !gaze_cluster_fill(inode, cr, folio))
			folio_mark_uptodate(folio);
		folio_unlock(folio);
		folio_put(folio);
	}
}

/*
 * One page of a packed cluster (read_folio): the whole cluster is read
 * and decoded, so the pages of it that are not cached are filled too
 */
static int gaze_fill_page_cluster(struct inode *inode, struct page *page)
{
	struct gaze_cl_read cr = { 0 };
	int ret;

	ret = gaze_cl_read_init(inode, &cr);
	if (ret)
		return ret == -ENODATA ? -EIO : ret;
	ret = gaze_cluster_fill(inode, &cr, page_folio(page));
	if (!ret)
		gaze_cluster_fill_rest(inode, &cr, page->index);
	gaze_cl_read_exit(&cr);
	return ret;
}

/*
 * O_DIRECT.  Reads go straight from the device into the caller's buffer
 * (the VFS has written back the range first), mapped by gaze_get_block.
 * Writes return 0 here, which makes the VFS write the range through the
 * page cache, write it back and invalidate it before returning: on a
 * zoned device every write goes to a log head anyway, and this keeps one
 * write path.  Inline files and files with compressed clusters are read
 * through the page cache too (as btrfs does with compressed extents).
 *
 * Both directions require what a read from the device requires: file
 * offset, length and buffer aligned to the device's logical block size
 * (gaze_dio_align, reported by statx as STATX_DIOALIGN), else EINVAL, so
 * a program that probes with a write learns what reads accept too.
 */
unsigned int gaze_dio_align(struct inode *inode)
{
	return bdev_logical_block_size(inode->i_sb->s_bdev);
}

static ssize_t gaze_direct_IO(struct kiocb *iocb, struct iov_iter *iter)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	unsigned int mask = gaze_dio_align(inode) - 1;

	if ((iocb->ki_pos | iov_iter_alignment(iter)) & mask)
		return -EINVAL;
	if (iov_iter_rw(iter) == WRITE || gaze_reads_through_core(inode))
		return 0;
	return blockdev_direct_IO(iocb, inode, iter, gaze_get_block);
}

/* writes a locked dirty folio's bytes below i_size; unlocks it */
/*
 * A write the core refused with ENOSPC (or ENOMEM) stays dirty, and
 * only data integrity writeback reports it, to the mapping for fsync,
 * once gaze_writepages has waited for the reclaims in flight and tried
 * again (gaze_resv_enospc_wait).  Background writeback reports nothing:
 * the pages are written later, and whoever waits for them meets the
 * error if it still holds then: a refusal that only reflects a reclaim
 * in flight must not fail an fsync whose data the next try writes.
 */
static void gaze_wb_refused(struct writeback_control *wbc,
			    struct address_space *mapping, int ret,
			    int *refused)
{
	if (refused)
		*refused = ret;
	else if (wbc->sync_mode == WB_SYNC_ALL)
		mapping_set_error(mapping, ret);
}

static int gaze_write_folio(struct folio *folio,
			    struct writeback_control *wbc, bool *wrote,
			    int *refused)
{
	struct inode *inode = folio->mapping->host;
	loff_t pos = folio_pos(folio), isize = i_size_read(inode);
	unsigned int nofs;
	size_t len;
	void *kaddr;
	s64 n;
	int ret = 0;

	/* beyond EOF (truncate in progress): drop */
	if (pos >= isize) {
		gaze_resv_release(folio);
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
		if (ret == -ENOSPC || ret == -ENOMEM) {
			/* keep the data; a later writeback may succeed */
			folio_redirty_for_writepage(wbc, folio);
			gaze_wb_refused(wbc, folio->mapping, ret, refused);
			ret = 0;
		} else {
			mapping_set_error(folio->mapping, ret);
			gaze_resv_release(folio);	/* lost for good */
		}
		folio_unlock(folio);
		return ret;
	}
	if (wrote)
		*wrote = true;
	gaze_wbc_account(wbc, folio, len);
	gaze_resv_release(folio);	/* the block is allocated now */
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
	ret = gaze_ns_setattr(gaze_ifs(inode), inode->i_ino, &a,
			      GAZE_SET_MTIME | GAZE_SET_CTIME);
	if (!ret)
		ret = gaze_ns_getattr(gaze_ifs(inode), inode->i_ino, &a);
	gaze_nofs_end(nofs);
	if (ret) {
		/* the data is written; its times are not (errors= says
		 * what happens next) */
		ret = gaze_error(inode->i_sb, ret, "writeback: file times");
		mapping_set_error(inode->i_mapping, ret);
		return;
	}
	spin_lock(&inode->i_lock);
	inode->i_blocks = a.blocks << (GAZE_BLOCK_SHIFT - 9);
	spin_unlock(&inode->i_lock);
}

static int gaze_writepage(struct page *page, struct writeback_control *wbc)
{
	struct inode *inode = page->mapping->host;
	bool wrote = false;
	int ret;

	ret = gaze_write_folio(page_folio(page), wbc, &wrote, NULL);
	if (wrote)
		gaze_put_times(inode);
	return ret;
}

/*
 * Batched writeback: up to GAZE_WB_MAX dirty folios, in ascending index
 * order but not necessarily consecutive, go to the core in one call
 * (gaze_file_write_vec), which puts them in consecutive log blocks: one
 * device write per zone touched, straight from the folios (no copy), so
 * random writes leave as large sequential writes.  The folios stay
 * locked until the call returns (taken in index order, as
 * write_cache_pages gives them; a range_cyclic wrap starts a new batch),
 * so a failed batch can be redirtied.  The part of the EOF folio past
 * i_size is zeroed in place first, as block_write_full_page does.  Files
 * that still fit inline go page by page (gaze_write_folio).
 */
#define GAZE_WB_MAX	256

struct gaze_wb {
	struct inode	*inode;
	struct writeback_control *wbc;
	u32		nr;
	struct folio	*folios[GAZE_WB_MAX];
	u64		fblks[GAZE_WB_MAX];
	void		*bufs[GAZE_WB_MAX];
	bool		taken[GAZE_WB_MAX];	/* the plug ends writeback */
	struct gaze_defer defer;
	bool		wrote;
	int		refused;	/* -ENOSPC/-ENOMEM: kept dirty */
};

/*
 * The folios are locked and under writeback (started before the core
 * call, since the plug may end it for those it took: bdev.c).
 */
static void gaze_wb_done(struct gaze_wb *wb, int ret)
{
	u32 i;

	for (i = 0; i < wb->nr; i++) {
		struct folio *folio = wb->folios[i];

		if (!ret) {
			gaze_wbc_account(wb->wbc, folio, folio_size(folio));
			gaze_resv_release(folio);	/* allocated now */
		}
		else if (ret == -ENOSPC || ret == -ENOMEM)
			folio_redirty_for_writepage(wb->wbc, folio);
		else
			gaze_resv_release(folio);	/* lost for good */
		folio_unlock(folio);
		if (!wb->taken[i])
			folio_end_writeback(folio);
	}
	wb->nr = 0;
}

static int gaze_wb_flush(struct gaze_wb *wb)
{
	struct inode *inode = wb->inode;
	struct gaze_sb_info *sbi = GAZE_SB(inode->i_sb);
	struct gaze_cluster_enc *enc;
	unsigned int nofs;
	loff_t end;
	int ret;
	u32 i, nenc;

	if (!wb->nr)
		return 0;
	end = (loff_t)(wb->fblks[wb->nr - 1] + 1) << PAGE_SHIFT;
	end = min_t(loff_t, end, i_size_read(inode));
	/* room was made when the batch began (gaze_wb_add) */
	for (i = 0; i < wb->nr; i++)
		folio_start_writeback(wb->folios[i]);
	/* what the write reads, read before it takes fs->lock */
	nofs = gaze_nofs_begin();
	gaze_file_map_warm(gaze_ifs(inode), inode->i_ino, wb->fblks, wb->nr);
	gaze_nofs_end(nofs);
	/* clusters compressed on several CPUs before fs->lock (cmpwq.c) */
	nenc = gaze_cmp_batch(inode, wb->fblks, wb->bufs, wb->nr, end, &enc);
	wb->defer.nr = wb->nr;
	gaze_bdev_defer_begin(sbi->dev, &wb->defer);
	nofs = gaze_nofs_begin();
	ret = gaze_file_write_vec_enc(gaze_ifs(inode), inode->i_ino, wb->fblks,
				      wb->nr, wb->bufs, end, enc, nenc);
	gaze_nofs_end(nofs);
	gaze_bdev_defer_end(sbi->dev, &wb->defer);
	gaze_cmp_batch_end(sbi, enc, nenc);
	if (ret) {
		ret = gaze_error(inode->i_sb, ret, "writeback");
		gaze_wb_done(wb, ret);
		if (ret == -ENOSPC || ret == -ENOMEM) {
			/* kept dirty: a later writeback may succeed */
			gaze_wb_refused(wb->wbc, inode->i_mapping, ret,
					&wb->refused);
			return 0;
		}
		mapping_set_error(inode->i_mapping, ret);
		return ret;
	}
	wb->wrote = true;
	gaze_wb_done(wb, 0);
	return 0;
}

/*
 * Room for a whole batch before it is gathered (resv.c gaze_resv_wb_room),
 * with no folio locked: a run of the baseline's foreground GC there moves
 * zones, minutes on zones of a gigabyte, and a writer or another
 * writeback of this very folio (the flusher beside an fsync of the same
 * file) must not wait for it on the folio lock.  write_cache_pages
 * handed the folio locked, its dirty bit cleared for I/O, and holds a
 * reference.  Relocked, it is written unless truncation took it
 * meanwhile (false, unlocked): after any writeback of it that began
 * meanwhile, with its dirty bit cleared again if a writer dirtied it
 * (the write then carries that data too, and the reservation the page
 * still holds is spent once).
 */
static bool gaze_wb_room_unlocked(struct folio *folio,
				  struct writeback_control *wbc,
				  struct inode *inode)
{
	struct address_space *mapping = folio->mapping;

	folio_unlock(folio);
	gaze_resv_wb_room(GAZE_SB(inode->i_sb),
			  (u32)clamp_t(long, wbc->nr_to_write, 1, GAZE_WB_MAX));
	folio_lock(folio);
	if (folio->mapping != mapping) {
		folio_unlock(folio);
		return false;
	}
	folio_wait_writeback(folio);
	if (folio_test_dirty(folio))
		folio_clear_dirty_for_io(folio);
	return true;
}

static int gaze_wb_add(struct folio *folio, struct writeback_control *wbc,
		       void *data)
{
	struct gaze_wb *wb = data;
	struct inode *inode = wb->inode;
	bool room = false;
	loff_t pos, isize;
	size_t len;
	int ret;

	if (wb->nr && (wb->nr == GAZE_WB_MAX ||
		       folio->index <= wb->fblks[wb->nr - 1])) {
		ret = gaze_wb_flush(wb);
		if (ret) {
			folio_unlock(folio);
			return ret;
		}
	}
again:
	pos = folio_pos(folio);
	isize = i_size_read(inode);
	if (pos >= isize || isize <= GAZE_INLINE_SIZE ||
	    folio_test_highmem(folio)) {
		ret = gaze_wb_flush(wb);
		if (ret) {
			folio_unlock(folio);
			return ret;
		}
		return gaze_write_folio(folio, wbc, &wb->wrote, &wb->refused);
	}
	/* room when a batch begins; the size may have changed meanwhile */
	if (!wb->nr && !room) {
		if (!gaze_wb_room_unlocked(folio, wbc, inode))
			return 0;
		room = true;
		goto again;
	}
	len = min_t(loff_t, PAGE_SIZE, isize - pos);
	if (len < PAGE_SIZE)
		folio_zero_segment(folio, len, PAGE_SIZE);
	wb->folios[wb->nr] = folio;
	wb->fblks[wb->nr] = folio->index;
	wb->bufs[wb->nr++] = folio_address(folio);
	return 0;
}

static int gaze_writepages(struct address_space *mapping,
			   struct writeback_control *wbc)
{
	struct gaze_sb_info *sbi = GAZE_SB(mapping->host->i_sb);
	struct gaze_enospc_wait ew = { 0 };
	struct gaze_wb *wb;
	int ret, ret2;

	wb = kzalloc(sizeof(*wb), GFP_NOFS);
	if (!wb)
		return -ENOMEM;
	/* a deferred write failed since the last writeback: repair first */
	ret = gaze_lost_recover(mapping->host->i_sb);
	if (ret) {
		kfree(wb);
		return ret;
	}
	wb->inode = mapping->host;
	wb->wbc = wbc;
	wb->defer.wbc = wbc;
	wb->defer.bufs = wb->bufs;
	wb->defer.folios = wb->folios;
	wb->defer.taken = wb->taken;
	if (wbc->sync_mode == WB_SYNC_ALL)
		gaze_drain_mapping(mapping->host);	/* it waits for them */
again:
	wb->refused = 0;
	ret = gaze_write_cache_folios(mapping, wbc, gaze_wb_add, wb);
	ret2 = gaze_wb_flush(wb);
	if (!ret)
		ret = ret2;
	/* refused pages stay dirty (gaze_wb_refused): once more after GC */
	if (wb->refused && !ret && wbc->sync_mode == WB_SYNC_ALL) {
		if (gaze_resv_enospc_wait(sbi, &ew))
			goto again;
		mapping_set_error(mapping, wb->refused);
	}
	if (wb->wrote)
		gaze_put_times(mapping->host);
	/* data integrity writeback waits next: nothing may stay deferred */
	if (wbc->sync_mode == WB_SYNC_ALL) {
		ret2 = gaze_bdev_drain(sbi->dev);
		if (!ret)
			ret = ret2;
	}
	kfree(wb);
	/* the error reached the mapping; the filesystem goes on */
	if (ret == -EIO)
		gaze_lost_recover(mapping->host->i_sb);
	return ret;
}

static int gaze_write_begin(struct file *file, struct address_space *mapping,
			    loff_t pos, unsigned int len,
			    gaze_aop_page_t **pagep, void **fsdata)
{
	struct inode *inode = mapping->host;
	unsigned int from = pos & (PAGE_SIZE - 1);
	struct page *page;
	void *held;
	int ret;

again:
	/* selective blocking (resv.c): reserve before the page is locked */
	ret = gaze_resv_write_begin(mapping, pos >> PAGE_SHIFT, &held);
	if (ret)
		return ret;
	page = grab_cache_page_write_begin(mapping, pos >> PAGE_SHIFT);
	if (!page) {
		gaze_resv_drop(inode, pos >> PAGE_SHIFT, &held);
		return -ENOMEM;
	}
	if (gaze_resv_attach(page_folio(page), &held)) {
		unlock_page(page);
		put_page(page);
		goto again;
	}
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
	*pagep = gaze_to_aop_page(page);
	return 0;
}

static int gaze_write_end(struct file *file, struct address_space *mapping,
			  loff_t pos, unsigned int len, unsigned int copied,
			  gaze_aop_page_t *aop_page, void *fsdata)
{
	struct page *page = gaze_from_aop_page(aop_page);
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
	if (!PageDirty(page))
		gaze_resv_release(page_folio(page));	/* nothing copied */
	unlock_page(page);
	put_page(page);
	return copied;
}

/*
 * Swap files are refused.  Swap I/O goes straight to the device at the
 * blocks swapon mapped, bypassing the filesystem: it would overwrite in
 * place blocks that a log never rewrites (a sequential zone refuses the
 * write) and that GC moves elsewhere (the next swap-out would then land
 * on another file's data).  F2FS refuses them in its LFS mode, which
 * zoned devices need, for the same reason.
 */
static int gaze_swap_activate(struct swap_info_struct *sis,
			      struct file *file, sector_t *span)
{
	pr_warn_ratelimited("gaze: %s: swapon %pD: swap files are not supported (GC moves file blocks, swap writes in place)\n",
			    file_inode(file)->i_sb->s_id, file);
	return -EINVAL;
}

const struct address_space_operations gaze_aops = {
	.read_folio	= gaze_read_folio,
	.readahead	= gaze_readahead,
	.direct_IO	= gaze_direct_IO,
	.writepage	= gaze_writepage,
	.writepages	= gaze_writepages,
	.write_begin	= gaze_write_begin,
	.write_end	= gaze_write_end,
	.dirty_folio	= filemap_dirty_folio,
	/* reserved pages carry folio private (resv.c) */
	.invalidate_folio = gaze_invalidate_folio,
	.release_folio	= gaze_release_folio,
	/* both tell the read fast path a folio left (readfast.c) */
	.free_folio	= gaze_free_folio,
	.migrate_folio	= gaze_migrate_folio,
	.swap_activate	= gaze_swap_activate,
};

static int gaze_fsync(struct file *file, loff_t start, loff_t end,
		      int datasync)
{
	struct inode *inode = file_inode(file);
	unsigned int nofs;
	int ret;

	/* what is not on disk will not get there (as on ext4 and XFS) */
	if (READ_ONCE(GAZE_SB(inode->i_sb)->shut_down))
		return -EIO;
	ret = file_write_and_wait_range(file, start, end);
	if (ret || sb_rdonly(inode->i_sb))
		return ret;
	/* times lazytime kept in memory (the VFS marked the inode dirty
	 * for them): to the core (gaze_write_inode), then to the disk */
	if (!datasync) {
		ret = sync_inode_metadata(inode, 1);
		if (ret)
			return ret;
	}
	/* another file's data write failed since: the nodes wait for that */
	ret = gaze_lost_recover(inode->i_sb);
	if (ret)
		return ret;
	/* this file's nodes alone when the rest cannot roll forward */
	nofs = gaze_nofs_begin();
	ret = gaze_fs_fsync_ino(gaze_ifs(inode), inode->i_ino);
	gaze_nofs_end(nofs);
	if (ret)
		return gaze_error(inode->i_sb, ret, "fsync");
	/* the rest left a backlog: the GC thread checkpoints it in steps */
	if (READ_ONCE(gaze_ifs(inode)->cp_wanted))
		gaze_bggc_kick(GAZE_SB(inode->i_sb));
	return 0;
}

/* COLLAPSE_RANGE / INSERT_RANGE: the checks the core makes too, early */
static int gaze_shift_check(struct inode *inode, int mode, loff_t off,
			    loff_t len)
{
	loff_t size = i_size_read(inode);

	if ((off | len) & (GAZE_BLOCK_SIZE - 1))
		return -EINVAL;
	if (mode & FALLOC_FL_COLLAPSE_RANGE)
		return off + len >= size ? -EINVAL : 0;
	if (off >= size)
		return -EINVAL;
	return inode_newsize_ok(inode, size + len);
}

/*
 * The core works on what it holds, so dirty pages from the range to the
 * end (they carry the size too) go to it first; then the cached range is
 * dropped (partial pages zeroed in place) under the invalidate lock, so
 * no fault maps old data back in, and the core changes the blocks.
 * Collapse and insert move everything after off: all of it is dropped,
 * and the size follows the core's either way.
 */
static long gaze_fallocate(struct file *file, int mode, loff_t off,
			   loff_t len)
{
	struct inode *inode = file_inode(file);
	struct address_space *mapping = inode->i_mapping;
	bool zero = mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE);
	bool shift = mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE);
	loff_t end = off + len, old;
	struct gaze_attr a;
	unsigned int nofs;
	int ret;

	BUILD_BUG_ON(GAZE_FALLOC_KEEP_SIZE != FALLOC_FL_KEEP_SIZE);
	BUILD_BUG_ON(GAZE_FALLOC_PUNCH_HOLE != FALLOC_FL_PUNCH_HOLE);
	BUILD_BUG_ON(GAZE_FALLOC_ZERO_RANGE != FALLOC_FL_ZERO_RANGE);
	BUILD_BUG_ON(GAZE_FALLOC_COLLAPSE_RANGE != FALLOC_FL_COLLAPSE_RANGE);
	BUILD_BUG_ON(GAZE_FALLOC_INSERT_RANGE != FALLOC_FL_INSERT_RANGE);
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
		     FALLOC_FL_ZERO_RANGE | FALLOC_FL_COLLAPSE_RANGE |
		     FALLOC_FL_INSERT_RANGE))
		return -EOPNOTSUPP;
	inode_lock(inode);
	if (shift)
		ret = gaze_shift_check(inode, mode, off, len);
	else if (!(mode & FALLOC_FL_KEEP_SIZE) && end > i_size_read(inode))
		ret = inode_newsize_ok(inode, end);
	else
		ret = 0;
	if (ret)
		goto out_unlock;
	ret = file_modified(file);
	if (ret)
		goto out_unlock;
	if (shift)
		inode_dio_wait(inode);
	old = i_size_read(inode);
	filemap_invalidate_lock(mapping);
	if (!(mode & FALLOC_FL_KEEP_SIZE) && !shift)
		gaze_zero_eof_tail(inode, end);
	ret = filemap_write_and_wait_range(mapping, off, LLONG_MAX);
	if (ret)
		goto out_inval;
	if (zero)
		truncate_pagecache_range(inode, off, end - 1);
	else if (shift)
		truncate_pagecache(inode, off);
	nofs = gaze_nofs_begin();
	/* what the cut frees, read before the core takes fs->lock */
	if (zero || (mode & FALLOC_FL_COLLAPSE_RANGE))
		gaze_file_range_warm(gaze_ifs(inode), inode->i_ino,
				     off >> GAZE_BLOCK_SHIFT,
				     DIV_ROUND_UP(end, GAZE_BLOCK_SIZE), false);
	/* and the blocks it zeroes in part */
	if (zero)
		gaze_file_edges_warm(gaze_ifs(inode), inode->i_ino, off, end);
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
	if (a.size > old || shift)
		i_size_write(inode, a.size);
	/*
	 * The core set mtime and ctime when it changed anything: take its
	 * times, so what fsync makes durable is what stat showed (one
	 * truth; file_modified's own are not written back over them)
	 */
	gaze_set_mtime(inode, (struct timespec64){ a.mtime, a.mtime_nsec });
	gaze_set_ctime(inode, (struct timespec64){ a.ctime, a.ctime_nsec });
out_inval:
	filemap_invalidate_unlock(mapping);
out_unlock:
	inode_unlock(inode);
	return ret;
}

/*
 * A shared writable mapping dirties a page here (page_mkwrite): it takes
 * the page's reservation as write_begin does (resv.c), before the page
 * lock; -ENOSPC is SIGBUS for the store.  Writeback write-protects the
 * page again, so the next store reserves anew.
 */
static vm_fault_t gaze_page_mkwrite(struct vm_fault *vmf)
{
	struct folio *folio = page_folio(vmf->page);
	struct inode *inode = file_inode(vmf->vma->vm_file);
	vm_fault_t ret = VM_FAULT_LOCKED;
	void *held;
	int err;

	sb_start_pagefault(inode->i_sb);
	file_update_time(vmf->vma->vm_file);
	err = gaze_resv_write_begin(inode->i_mapping, folio->index, &held);
	if (err) {
		ret = vmf_error(err);
		goto out;
	}
	folio_lock(folio);
	if (folio->mapping != inode->i_mapping ||
	    folio_pos(folio) >= i_size_read(inode)) {
		/* truncated meanwhile: let the fault start over */
		folio_unlock(folio);
		gaze_resv_drop(inode, folio->index, &held);
		ret = VM_FAULT_NOPAGE;
		goto out;
	}
	if (gaze_resv_attach(folio, &held)) {
		folio_unlock(folio);
		ret = VM_FAULT_NOPAGE;	/* cleaned meanwhile: fault again */
		goto out;
	}
	folio_mark_dirty(folio);
	folio_wait_stable(folio);
out:
	sb_end_pagefault(inode->i_sb);
	return ret;
}

static const struct vm_operations_struct gaze_file_vm_ops = {
	.fault		= filemap_fault,
	.map_pages	= filemap_map_pages,
	.page_mkwrite	= gaze_page_mkwrite,
};

static int gaze_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	file_accessed(file);
	vma->vm_ops = &gaze_file_vm_ops;
	return 0;
}

int gaze_shutdown(struct super_block *sb, u32 how)
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
		ret = gaze_bdev_freeze(sb->s_bdev);
		if (ret)
			return ret;
		gaze_bdev_thaw(sb->s_bdev);
	}
	fs = GAZE_FS(sb);
	nofs = gaze_nofs_begin();
	mutex_lock(&fs->lock);
	if (how == GAZE_SHUTDOWN_LOGFLUSH && !(fs->flags & GAZE_FS_RDONLY))
		ret = gaze_cp_write(fs, 0);
	fs->flags |= GAZE_FS_RDONLY;
	mutex_unlock(&fs->lock);
	gaze_nofs_end(nofs);
	WRITE_ONCE(GAZE_SB(sb)->shut_down, true);
	sb->s_flags |= SB_RDONLY;
	pr_info("gaze: %s: shut down (%s)%s\n", sb->s_id,
		how == GAZE_SHUTDOWN_DEFAULT ? "data and checkpoint written" :
		how == GAZE_SHUTDOWN_LOGFLUSH ? "checkpoint written" :
		"nothing written", ret ? "; the checkpoint failed" : "");
	return ret;
}

/*
 * The run of blocks at @fblk, up to @eof, for the walks below: @addr 0 is
 * a hole, GAZE_MAP_UNWRITTEN preallocated blocks.  -ENODATA: the file is
 * inline (all data, no blocks).  A failed map is reported as a
 * filesystem error named after @what.
 */
static int gaze_map_run(struct inode *inode, u64 fblk, u64 eof, u64 *addr,
			u32 *nr, const char *what)
{
	unsigned int nofs = gaze_nofs_begin();
	int ret;

	ret = gaze_file_map(gaze_ifs(inode), inode->i_ino, fblk,
			    min_t(u64, eof - fblk, U32_MAX), addr, nr);
	gaze_nofs_end(nofs);
	if (ret == -ENODATA)
		return ret;
	if (ret)
		return gaze_error(inode->i_sb, ret, what);
	return *nr ? 0 : -EIO;
}

/*
 * SEEK_DATA / SEEK_HOLE from the core's block map.  Dirty pages are
 * written back first, so data not yet in the core is not taken for a
 * hole; every mapped block is data, and a preallocated one (fallocate,
 * not written since) is a hole, as ext4 and XFS treat unwritten extents
 * with nothing cached.  An inline file is all data.
 */
static loff_t gaze_seek_data_hole(struct file *file, loff_t off, int whence)
{
	struct inode *inode = file_inode(file);
	bool data = whence == SEEK_DATA;
	loff_t isize, pos = -1;
	u64 fblk, end, addr;
	u32 nr;
	int ret;

	inode_lock_shared(inode);
	isize = i_size_read(inode);
	if (off < 0 || off >= isize) {
		inode_unlock_shared(inode);
		return -ENXIO;
	}
	ret = filemap_write_and_wait(inode->i_mapping);
	fblk = off >> GAZE_BLOCK_SHIFT;
	end = DIV_ROUND_UP(isize, GAZE_BLOCK_SIZE);
	while (!ret && fblk < end) {
		ret = gaze_map_run(inode, fblk, end, &addr, &nr, "seek");
		if (ret == -ENODATA) {		/* inline: all data */
			ret = 0;
			pos = data ? off : isize;
			break;
		}
		if (ret)
			break;
		if (GAZE_MAP_DATA(addr) == data) {
			pos = max_t(loff_t, off, (loff_t)fblk << GAZE_BLOCK_SHIFT);
			break;
		}
		fblk += nr;
	}
	inode_unlock_shared(inode);
	if (ret)
		return ret;
	if (pos < 0 || (!data && pos > isize))	/* no data, or the EOF hole */
		pos = data ? -ENXIO : isize;
	if (pos < 0)
		return pos;
	return vfs_setpos(file, pos, inode->i_sb->s_maxbytes);
}

/*
 * A shared mapping may write into the EOF folio past i_size (the fault
 * maps the whole page); those bytes are not file data, and the device
 * holds zeros there (writeback never writes past the size, and the core
 * zeroes a cut block's tail).  Before the size grows to `to` (truncate
 * up, a write past EOF, an extending fallocate), the cached EOF folio's
 * tail is zeroed, so the bytes that become file data read as zeros
 * (generic/363).  Called with i_rwsem held, before the size changes; a
 * folio under writeback is waited for (its bytes are stable).
 */
void gaze_zero_eof_tail(struct inode *inode, loff_t to)
{
	loff_t size = i_size_read(inode);
	struct folio *folio;

	if (to <= size || !offset_in_page(size))
		return;
	folio = __filemap_get_folio(inode->i_mapping, size >> PAGE_SHIFT,
				    FGP_LOCK, 0);
	if (IS_ERR_OR_NULL(folio))
		return;		/* not cached: the device's zeros are read */
	folio_wait_writeback(folio);
	if (folio_test_uptodate(folio))
		folio_zero_segment(folio, offset_in_folio(folio, size),
				   folio_size(folio));
	folio_unlock(folio);
	folio_put(folio);
}

/* generic_file_write_iter, with the EOF folio's tail zeroed first when
 * the write starts past the size (gaze_zero_eof_tail) */
static ssize_t gaze_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret;

	inode_lock(inode);
	ret = generic_write_checks(iocb, from);
	if (ret > 0) {
		gaze_zero_eof_tail(inode, iocb->ki_pos);
		ret = __generic_file_write_iter(iocb, from);
	}
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
}

static loff_t gaze_file_llseek(struct file *file, loff_t off, int whence)
{
	if (whence == SEEK_DATA || whence == SEEK_HOLE)
		return gaze_seek_data_hole(file, off, whence);
	return generic_file_llseek(file, off, whence);
}

const struct file_operations gaze_file_operations = {
	.llseek		= gaze_file_llseek,
	.read_iter	= gaze_read_iter,
	.write_iter	= gaze_file_write_iter,
	.mmap		= gaze_file_mmap,
	.open		= generic_file_open,
	.fsync		= gaze_fsync,
	.fallocate	= gaze_fallocate,
	.splice_read	= gaze_splice_read,
	.splice_write	= iter_file_splice_write,
	.unlocked_ioctl	= gaze_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/*
 * FIEMAP from the core's block map.  Pages dirty or under writeback over
 * a hole (their blocks have no place yet: a log writes each block where
 * it stands at writeback) are DELALLOC | UNKNOWN extents at physical 0,
 * as ext4, XFS and F2FS report delayed allocation; FIEMAP_FLAG_SYNC
 * writes them back first (fiemap_prep), and then every extent has its
 * place.  A dirty page over a mapped block shows that block.  GAZE
 * maps block by block, so each run of consecutive device blocks is one
 * extent, flagged MERGED as block-mapped filesystems do; physical
 * offsets are bytes from the start of the device.  A file kept in its
 * inode is one DATA_INLINE | NOT_ALIGNED extent at physical 0.  Blocks
 * fallocate preallocated have space reserved but no place yet (a zoned
 * log writes each block where its log stands when it is written): they
 * are UNWRITTEN | UNKNOWN extents at physical 0, and are reported past
 * EOF too (KEEP_SIZE), so the walk goes to the end of the block map.
 */
/*
 * one extent: a run of device blocks, MERGED; or compressed clusters,
 * ENCODED at physical 0 (their streams live in blocks of their own)
 */
/* a pseudo address for the walk: no block of the map has it */
#define GAZE_FIEMAP_DELALLOC	GAZE_NULL_ADDR

static int gaze_fiemap_fill(struct fiemap_extent_info *fi, u64 fblk, u64 addr,
			    u64 nr, u32 flags)
{
	if (addr == GAZE_FIEMAP_DELALLOC)
		return fiemap_fill_next_extent(fi, fblk << GAZE_BLOCK_SHIFT, 0,
					       nr << GAZE_BLOCK_SHIFT,
					       flags | FIEMAP_EXTENT_DELALLOC |
					       FIEMAP_EXTENT_UNKNOWN);
	if (addr == GAZE_MAP_ENCODED)
		return fiemap_fill_next_extent(fi, fblk << GAZE_BLOCK_SHIFT, 0,
					       nr << GAZE_BLOCK_SHIFT,
					       flags | FIEMAP_EXTENT_ENCODED);
	if (addr == GAZE_MAP_UNWRITTEN)
		return fiemap_fill_next_extent(fi, fblk << GAZE_BLOCK_SHIFT, 0,
					       nr << GAZE_BLOCK_SHIFT,
					       flags | FIEMAP_EXTENT_UNWRITTEN |
					       FIEMAP_EXTENT_UNKNOWN);
	return fiemap_fill_next_extent(fi, fblk << GAZE_BLOCK_SHIFT,
				       addr << GAZE_BLOCK_SHIFT,
				       nr << GAZE_BLOCK_SHIFT,
				       flags | FIEMAP_EXTENT_MERGED);
}

/* page index is dirty, or under writeback */
static bool gaze_page_delalloc(struct address_space *mapping, pgoff_t index)
{
	return xa_get_mark(&mapping->i_pages, index, PAGECACHE_TAG_DIRTY) ||
	       xa_get_mark(&mapping->i_pages, index, PAGECACHE_TAG_WRITEBACK);
}

/*
 * The first run of delayed-allocation pages in hole [fblk, fblk + nr):
 * its start and length, or false when there is none
 */
static bool gaze_delalloc_run(struct address_space *mapping, u64 fblk, u64 nr,
			      u64 *start, u64 *len)
{
	pgoff_t last = (pgoff_t)min_t(u64, fblk + nr - 1, ULONG_MAX);
	pgoff_t first = ULONG_MAX, i;
	xa_mark_t tags[2] = { PAGECACHE_TAG_DIRTY, PAGECACHE_TAG_WRITEBACK };
	u32 t;

	if (fblk > ULONG_MAX)
		return false;
	for (t = 0; t < ARRAY_SIZE(tags); t++) {
		XA_STATE(xas, &mapping->i_pages, (pgoff_t)fblk);
		void *e;

		rcu_read_lock();
		e = xas_find_marked(&xas, last, tags[t]);
		if (e && !xa_is_value(e))
			first = min_t(pgoff_t, first, xas.xa_index);
		rcu_read_unlock();
	}
	if (first == ULONG_MAX || first > last)
		return false;
	for (i = first; i < last && gaze_page_delalloc(mapping, i + 1); i++)
		;
	*start = first;
	*len = (u64)i - first + 1;
	return true;
}

struct gaze_fiemap_walk {
	struct fiemap_extent_info	*fi;
	u64	p_fblk, p_addr, p_nr;	/* the extent not yet filled */
	u64	end;			/* first block past the range */
	bool	past;			/* an extent starts at end or after */
};

/* run [fblk, fblk + nr) at addr joins the walk; 1: the array is full */
static int gaze_fiemap_add(struct gaze_fiemap_walk *w, u64 fblk, u64 addr,
			   u64 nr)
{
	int ret;

	if (fblk >= w->end) {
		w->past = true;	/* so the last one filled is not LAST */
		return 0;
	}
	if (w->p_nr) {
		ret = gaze_fiemap_fill(w->fi, w->p_fblk, w->p_addr, w->p_nr,
				       0);
		if (ret)
			return ret;
	}
	w->p_fblk = fblk;
	w->p_addr = addr;
	w->p_nr = nr;
	return 0;
}

/* the delayed-allocation runs of hole [fblk, fblk + nr) */
static int gaze_fiemap_hole(struct inode *inode, struct gaze_fiemap_walk *w,
			    u64 fblk, u64 nr)
{
	u64 s, len, end = fblk + nr;
	int ret;

	while (!w->past && fblk < end &&
	       gaze_delalloc_run(inode->i_mapping, fblk, end - fblk, &s,
				 &len)) {
		ret = gaze_fiemap_add(w, s, GAZE_FIEMAP_DELALLOC, len);
		if (ret)
			return ret;
		fblk = s + len;
	}
	return 0;
}

static int gaze_fiemap_walk(struct inode *inode, struct fiemap_extent_info *fi,
			    u64 fblk, u64 end)
{
	struct gaze_fiemap_walk w = { .fi = fi, .end = end };
	u64 addr;
	u32 nr;
	int ret = 0;

	while (fblk < GAZE_BMAP_MAX_BLOCKS && !w.past) {
		ret = gaze_map_run(inode, fblk, GAZE_BMAP_MAX_BLOCKS, &addr,
				   &nr, "fiemap");
		if (ret == -ENODATA && i_size_read(inode) <= GAZE_INLINE_SIZE)
			return fiemap_fill_next_extent(fi, 0, 0,
				i_size_read(inode), FIEMAP_EXTENT_DATA_INLINE |
				FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_LAST);
		if (ret == -ENODATA) {
			/* too big to stay inline: written back to blocks */
			addr = 0;
			nr = GAZE_BMAP_MAX_BLOCKS - fblk;
		} else if (ret) {
			return ret;
		}
		if (addr)
			ret = gaze_fiemap_add(&w, fblk, addr, nr);
		else
			ret = gaze_fiemap_hole(inode, &w, fblk, nr);
		if (ret)
			return ret;
		fblk += nr;
	}
	if (!w.p_nr)
		return 0;
	return gaze_fiemap_fill(fi, w.p_fblk, w.p_addr, w.p_nr,
				w.past ? 0 : FIEMAP_EXTENT_LAST);
}

/*
 * FIEMAP_FLAG_XATTR: where the xattrs are.  Those in the inode are one
 * DATA_INLINE | NOT_ALIGNED extent at logical 0, at their bytes in the
 * inode's block; an xattr node is one block at logical 4096.  A block
 * with changes not yet written has no place yet: UNKNOWN | DELALLOC at
 * physical 0, as for data.  The range asked is ignored, as on ext4.
 */
static int gaze_fiemap_xattr(struct inode *inode,
			     struct fiemap_extent_info *fi)
{
	struct gaze_xattr_place p;
	unsigned int nofs;
	u32 flags;
	int ret;

	nofs = gaze_nofs_begin();
	ret = gaze_xattr_place(gaze_ifs(inode), inode->i_ino, &p);
	gaze_nofs_end(nofs);
	if (ret)
		return gaze_error(inode->i_sb, ret, "fiemap");
	if (p.inline_used) {
		flags = FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED;
		if (!p.inode_addr)
			flags |= FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC;
		if (!p.node)
			flags |= FIEMAP_EXTENT_LAST;
		ret = fiemap_fill_next_extent(fi, 0, p.inode_addr ?
			(p.inode_addr << GAZE_BLOCK_SHIFT) +
			offsetof(struct gaze_inode, i_xattr) : 0,
			p.inline_used, flags);
		if (ret)
			return ret;
	}
	if (!p.node)
		return 0;
	flags = FIEMAP_EXTENT_LAST;
	if (!p.node_addr)
		flags |= FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC;
	return fiemap_fill_next_extent(fi, GAZE_BLOCK_SIZE,
				       p.node_addr << GAZE_BLOCK_SHIFT,
				       GAZE_BLOCK_SIZE, flags);
}

static int gaze_fiemap(struct inode *inode, struct fiemap_extent_info *fi,
		       u64 start, u64 len)
{
	int ret;

	ret = fiemap_prep(inode, fi, start, &len, FIEMAP_FLAG_XATTR);
	if (ret)
		return ret;
	if (fi->fi_flags & FIEMAP_FLAG_XATTR) {
		ret = gaze_fiemap_xattr(inode, fi);
		return ret == 1 ? 0 : ret;
	}
	inode_lock_shared(inode);
	ret = gaze_fiemap_walk(inode, fi, start >> GAZE_BLOCK_SHIFT,
			       DIV_ROUND_UP(start + len, GAZE_BLOCK_SIZE));
	inode_unlock_shared(inode);
	return ret == 1 ? 0 : ret;	/* 1: the caller's array is full */
}

const struct inode_operations gaze_file_inode_operations = {
	.fiemap		= gaze_fiemap,
	.setattr	= gaze_setattr,
	.getattr	= gaze_getattr,
	.fileattr_get	= gaze_fileattr_get,
	.fileattr_set	= gaze_fileattr_set,
	.listxattr	= gaze_listxattr,
	GAZE_IOP_ACL,
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
	GAZE_IOP_ACL,
};
