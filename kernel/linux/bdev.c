// SPDX-License-Identifier: GPL-2.0
/*
 * bdev.c - struct gaze_dev_ops on a block device.
 *
 * readv/writev (the GC's pages, one bio per BIO_MAX_VECS blocks) follow
 * the same rules as read/write; the GC's reads run without fs->lock.  On
 * a zoned device no write bio is larger than the queue takes whole
 * (gaze_write_max_blocks), so the block layer never splits one.
 *
 * I/O is synchronous: the core issues one request at a time, so writes to
 * a sequential zone reach the device in write-pointer order without zone
 * append or a zone write lock of our own.  One exception, on zoned
 * devices: file data that writeback hands over in its own page-cache
 * folios (gaze_bdev_defer_begin) may wait in the plug (struct gaze_plug)
 * for the next contiguous blocks, so many small files leave as one bio.
 * A plug that is full, or that the next such blocks do not continue, is
 * sent without waiting (the next one is built while it is in flight; at
 * most one is, and sending waits for it first).  Every other request on
 * the device (a read only when it overlaps a plugged or sent block)
 * first submits the plug and waits for both, so the core still sees its
 * writes in order, and a delayed work submits what is left.  Each 4 KiB
 * block of the caller's buffer is added to the bio as its own page when
 * it is page aligned (kmalloc'd or vmalloc'd); an unaligned block goes
 * through a bounce page.
 *
 * Zoned devices (host-managed, e.g. NVMe ZNS, null_blk zoned, SMR): zone
 * report, reset and finish are the block layer's.  Regular devices get
 * emulated zones the way userspace's lib/zdev/file.c does it: the zone
 * size is the one the superblock records, every zone reports as
 * conventional (random writes allowed) until it is reset in this mount,
 * reset discards the zone, and from then on a write pointer kept in
 * memory is enforced and blocks past it read as zeros.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/vmalloc.h>
#include <linux/highmem.h>
#include <linux/pagemap.h>
#include "gaze_kern.h"

#define GAZE_SECT_SHIFT		(GAZE_BLOCK_SHIFT - SECTOR_SHIFT)

/*
 * Deferred writeback data (zoned devices).  The folios stay under
 * writeback, with a reference, until the bio is submitted and completes
 * (gaze_plug_submit).  A failed one makes every later write and flush
 * fail (err), so no node or checkpoint can point at the lost blocks,
 * until gaze_lost_recover (inode.c) has made them holes in the core
 * under fs->lock and cleared err (gaze_bdev_lost_take).
 */
struct gaze_plug {
	struct mutex		lock;	/* protects all below; may be taken
					 * under fs->lock, never around it */
	struct bio		*bio;	/* being built, or NULL */
	struct folio		*folios[BIO_MAX_VECS];
	u32			nr;	/* folios in bio */
	u64			next;	/* block after the bio's last */
	/*
	 * The bio sent before it, in flight until gaze_plug_wait (at most
	 * one: every write waits for it).  Set under lock by
	 * gaze_plug_send; then only end_io writes flight_status and ends
	 * the folios' writeback, and complete(flight_done) orders those
	 * before the waiter's reads (wait_for_completion), which, under
	 * lock, drops the folios' references and clears flight.
	 */
	struct bio		*flight;
	struct folio		*flight_folios[BIO_MAX_VECS];
	u32			flight_nr;
	u64			flight_next;
	blk_status_t		flight_status;
	struct completion	flight_done;
	int			err;	/* sticky, until taken */
	u64			lost;	/* the failed bio's first block */
	u32			lost_nr;	/* and its length; also read
						 * without the lock (a hint:
						 * gaze_bdev_lost_pending) */
	struct list_head	defers;	/* struct gaze_defer, one per writer,
					 * on every kind of device */
	struct cgroup_subsys_state *blkcg;	/* bio's (wbc_init_bio) */
	struct delayed_work	work;	/* submits a plug left waiting */
};

struct gaze_bdev {
	struct gaze_dev		dev;
	struct block_device	*bdev;
	bool			zoned;
	bool			discard;	/* emulated reset discards */
	struct mutex		lock;	/* protects zsm */
	struct gaze_zsm		zsm;	/* emulated zones (core/zsm.c) */
	struct gaze_plug	plug;	/* zoned devices only */
};

static inline struct gaze_bdev *GAZE_BDEV(struct gaze_dev *d)
{
	return d->priv;
}

static struct page *gaze_buf_page(const void *p)
{
	if (is_vmalloc_addr(p))
		return vmalloc_to_page(p);
	return virt_to_page(p);
}

/*
 * Blocks one write bio may carry without the block layer splitting it.
 * On a zoned device, before 6.10's zone write plugging, the parts of a
 * split write can reach the device out of order when no scheduler
 * orders them (none is the default for NVMe): a ZNS namespace then
 * fails the later part with Zone Invalid Write and the writeback is
 * lost.  GAZE keeps one write in flight per zone (the core's writes are
 * synchronous and ordered by fs->lock, and each waits for the plug's one
 * bio in flight under the plug's lock), so a bio
 * the block layer never splits keeps every zone's writes in order,
 * whatever the scheduler.  Read each time: max_sectors_kb can change.
 */
static u32 gaze_write_max_blocks(struct block_device *bdev)
{
	struct request_queue *q = bdev_get_queue(bdev);
	u32 n;

	if (!bdev_is_zoned(bdev))
		return BIO_MAX_VECS;
	n = min_t(u32, queue_max_sectors(q) >> GAZE_SECT_SHIFT,
		  queue_max_segments(q));
	return clamp_t(u32, n, 1, BIO_MAX_VECS);
}

/*
 * one synchronous bio per BIO_MAX_VECS blocks (writes: see above); wbc:
 * writeback's, whose cgroup the bios are charged to, or NULL
 */
static int gaze_bdev_rw(struct block_device *bdev, blk_opf_t opf, u64 blk,
			u32 nr, void *buf, struct writeback_control *wbc)
{
	bool write = op_is_write(opf & REQ_OP_MASK);
	u32 max = write ? gaze_write_max_blocks(bdev) : BIO_MAX_VECS;
	u8 *p = buf;
	int ret = 0;

	while (nr && !ret) {
		u32 n = min_t(u32, nr, max);
		struct page *bounce[BIO_MAX_VECS / 32 + 1];
		u8 *bp[BIO_MAX_VECS / 32 + 1];
		u32 nb = 0, i;
		struct bio *bio;

		/* at most a few bounce pages per bio: cap n accordingly */
		bio = bio_alloc(bdev, n, opf, GFP_NOIO);
		bio->bi_iter.bi_sector = blk << GAZE_SECT_SHIFT;
		if (wbc)
			wbc_init_bio(wbc, bio);
		for (i = 0; i < n; i++) {
			u8 *b = p + (size_t)i * GAZE_BLOCK_SIZE;
			struct page *pg;

			if (offset_in_page(b)) {
				if (nb == ARRAY_SIZE(bounce)) {
					n = i;
					break;
				}
				pg = alloc_page(GFP_NOIO);
				if (!pg) {
					n = i;
					break;
				}
				if (write)
					memcpy(page_address(pg), b,
					       GAZE_BLOCK_SIZE);
				bounce[nb] = pg;
				bp[nb++] = b;
			} else {
				pg = gaze_buf_page(b);
			}
			if (bio_add_page(bio, pg, GAZE_BLOCK_SIZE, 0) !=
			    GAZE_BLOCK_SIZE) {
				if (pg != gaze_buf_page(b)) {
					__free_page(pg);
					nb--;
				}
				n = i;
				break;
			}
		}
		if (!n) {
			bio_put(bio);
			return -ENOMEM;
		}
		ret = submit_bio_wait(bio);
		bio_put(bio);
		for (i = 0; i < nb; i++) {
			if (!write && !ret)
				memcpy(bp[i], page_address(bounce[i]),
				       GAZE_BLOCK_SIZE);
			__free_page(bounce[i]);
		}
		blk += n;
		nr -= n;
		p += (size_t)n * GAZE_BLOCK_SIZE;
	}
	return ret;
}

int gaze_bdev_read(struct block_device *bdev, u64 blk, u32 nr, void *buf)
{
	return gaze_bdev_rw(bdev, REQ_OP_READ, blk, nr, buf, NULL);
}

/*
 * Vectored: nr consecutive blocks from/to nr separate page-aligned
 * buffers (the GC's pages), one synchronous bio per BIO_MAX_VECS blocks.
 * A buffer that is not one whole page goes block by block.
 */
static int gaze_bdev_rwv(struct block_device *bdev, blk_opf_t opf, u64 blk,
			 u32 nr, void *const *bufs,
			 struct writeback_control *wbc)
{
	u32 max = op_is_write(opf & REQ_OP_MASK) ?
		  gaze_write_max_blocks(bdev) : BIO_MAX_VECS;
	u32 i, n;
	int ret = 0;

	for (i = 0; i < nr; i++)
		if (offset_in_page(bufs[i]) || PAGE_SIZE != GAZE_BLOCK_SIZE)
			goto slow;
	while (nr && !ret) {
		struct bio *bio;

		n = min_t(u32, nr, max);
		bio = bio_alloc(bdev, n, opf, GFP_NOIO);
		bio->bi_iter.bi_sector = blk << GAZE_SECT_SHIFT;
		if (wbc)
			wbc_init_bio(wbc, bio);
		for (i = 0; i < n; i++) {
			if (bio_add_page(bio, gaze_buf_page(bufs[i]),
					 GAZE_BLOCK_SIZE, 0) !=
			    GAZE_BLOCK_SIZE)
				break;
		}
		n = i;
		if (!n) {
			bio_put(bio);
			return -EIO;
		}
		ret = submit_bio_wait(bio);
		bio_put(bio);
		blk += n;
		nr -= n;
		bufs += n;
	}
	return ret;
slow:
	for (i = 0; i < nr && !ret; i++)
		ret = gaze_bdev_rw(bdev, opf, blk + i, 1, bufs[i], wbc);
	return ret;
}

static int gaze_bdev_range(struct gaze_dev *d, u64 blk, u32 nr)
{
	if (blk > d->nr_blocks || nr > d->nr_blocks - blk)
		return -EIO;
	return 0;
}

/* ---------------------------------------------------------------- */
/* the plug: deferred writeback data (zoned devices)                 */
/* ---------------------------------------------------------------- */

#define GAZE_PLUG_DELAY		msecs_to_jiffies(20)

/* the sent bio has completed: the device holds its blocks, or failed */
static void gaze_plug_end_io(struct bio *bio)
{
	struct gaze_plug *p = bio->bi_private;
	u32 i;

	p->flight_status = bio->bi_status;
	for (i = 0; i < p->flight_nr; i++) {
		struct folio *folio = p->flight_folios[i];

		if (bio->bi_status)
			mapping_set_error(folio->mapping, -EIO);
		folio_end_writeback(folio);
	}
	complete(&p->flight_done);
}

/*
 * waits for the bio in flight, if any; a failure becomes the sticky
 * error, with its blocks as the lost range; plug->lock held
 */
static int gaze_plug_wait(struct gaze_bdev *b)
{
	struct gaze_plug *p = &b->plug;
	int ret;
	u32 i;

	if (!p->flight)
		return p->err;
	wait_for_completion(&p->flight_done);
	ret = blk_status_to_errno(p->flight_status);
	bio_put(p->flight);
	p->flight = NULL;
	for (i = 0; i < p->flight_nr; i++)
		folio_put(p->flight_folios[i]);
	if (ret && !p->err) {
		p->lost = p->flight_next - p->flight_nr;
		WRITE_ONCE(p->lost_nr, p->flight_nr);
		pr_err("gaze: %pg: deferred data write failed: %d; writes wait until its blocks are made holes\n",
		       b->bdev, ret);
		p->err = ret;
	}
	p->flight_nr = 0;
	return p->err;
}

/*
 * sends the bio being built without waiting for it, after the one in
 * flight (so each zone still gets its writes in order, whatever the
 * scheduler); plug->lock held
 */
static int gaze_plug_send(struct gaze_bdev *b)
{
	struct gaze_plug *p = &b->plug;
	int ret = gaze_plug_wait(b);

	if (!p->bio)
		return ret;
	p->flight = p->bio;
	p->bio = NULL;
	memcpy(p->flight_folios, p->folios, p->nr * sizeof(*p->folios));
	p->flight_nr = p->nr;
	p->flight_next = p->next;
	p->nr = 0;
	reinit_completion(&p->flight_done);
	p->flight->bi_private = p;
	p->flight->bi_end_io = gaze_plug_end_io;
	submit_bio(p->flight);
	return ret;
}

/* sends the bio being built, waits for it and the one before; lock held */
static int gaze_plug_submit(struct gaze_bdev *b)
{
	gaze_plug_send(b);
	return gaze_plug_wait(b);
}

static int gaze_plug_drain(struct gaze_bdev *b)
{
	int ret;

	if (!b->zoned)
		return 0;
	mutex_lock(&b->plug.lock);
	ret = gaze_plug_submit(b);
	mutex_unlock(&b->plug.lock);
	return ret;
}

/* before a read: only one that overlaps the plug's blocks must wait */
static void gaze_plug_drain_read(struct gaze_bdev *b, u64 blk, u32 nr)
{
	struct gaze_plug *p = &b->plug;

	if (!b->zoned)
		return;
	mutex_lock(&p->lock);
	if (p->bio && blk < p->next && blk + nr > p->next - p->nr)
		gaze_plug_submit(b);
	else if (p->flight && blk < p->flight_next &&
		 blk + nr > p->flight_next - p->flight_nr)
		gaze_plug_wait(b);
	mutex_unlock(&p->lock);
}

int gaze_bdev_drain(struct gaze_dev *dev)
{
	return gaze_plug_drain(GAZE_BDEV(dev));
}

bool gaze_bdev_lost_pending(struct gaze_dev *dev)
{
	return READ_ONCE(GAZE_BDEV(dev)->plug.lost_nr) != 0;
}

bool gaze_bdev_lost_take(struct gaze_dev *dev, u64 *blk, u32 *nr)
{
	struct gaze_plug *p = &GAZE_BDEV(dev)->plug;
	bool lost;

	mutex_lock(&p->lock);
	lost = p->err && p->lost_nr;
	if (lost) {
		*blk = p->lost;
		*nr = p->lost_nr;
		p->err = 0;
		WRITE_ONCE(p->lost_nr, 0);
	}
	mutex_unlock(&p->lock);
	return lost;
}

void gaze_bdev_set_error(struct gaze_dev *dev, int err)
{
	struct gaze_plug *p = &GAZE_BDEV(dev)->plug;

	mutex_lock(&p->lock);
	if (!p->err)
		p->err = err;
	mutex_unlock(&p->lock);
}

static void gaze_plug_work(struct work_struct *w)
{
	struct gaze_plug *p = container_of(to_delayed_work(w),
					   struct gaze_plug, work);

	gaze_plug_drain(container_of(p, struct gaze_bdev, plug));
}

void gaze_bdev_defer_begin(struct gaze_dev *dev, struct gaze_defer *df)
{
	struct gaze_bdev *b = GAZE_BDEV(dev);

	df->task = current;
	df->pos = 0;
	memset(df->taken, 0, df->nr * sizeof(*df->taken));
	mutex_lock(&b->plug.lock);
	list_add(&df->list, &b->plug.defers);
	mutex_unlock(&b->plug.lock);
}

void gaze_bdev_defer_end(struct gaze_dev *dev, struct gaze_defer *df)
{
	struct gaze_bdev *b = GAZE_BDEV(dev);

	mutex_lock(&b->plug.lock);
	list_del(&df->list);
	mutex_unlock(&b->plug.lock);
}

/*
 * Cgroup writeback: every write this task makes inside its writeback
 * batch (its data, the clusters compressed from it) is charged to the
 * cgroup that dirtied the pages (wbc), not to the flusher's.  NULL
 * outside writeback.  An empty list is read without the lock (the GC's
 * and the checkpoint's writes, with no writeback running): only this
 * task's own entry matters, and this task added it before its writes.
 */
static struct writeback_control *gaze_defer_wbc(struct gaze_bdev *b)
{
	struct writeback_control *wbc = NULL;
	struct gaze_defer *df;

	if (list_empty_careful(&b->plug.defers))
		return NULL;
	mutex_lock(&b->plug.lock);
	list_for_each_entry(df, &b->plug.defers, list) {
		if (df->task == current) {
			wbc = df->wbc;
			break;
		}
	}
	mutex_unlock(&b->plug.lock);
	return wbc;
}

/* index in this task's writeback batch of bufs[0..nr), or -1 */
static int gaze_plug_match(struct gaze_plug *p, void *const *bufs, u32 nr,
			   struct gaze_defer **dfp)
{
	struct gaze_defer *df;
	u32 j, k;

	list_for_each_entry(df, &p->defers, list) {
		if (df->task != current)
			continue;
		for (j = df->pos; j + nr <= df->nr; j++) {
			if (df->bufs[j] != bufs[0])
				continue;
			for (k = 1; k < nr; k++)
				if (df->bufs[j + k] != bufs[k])
					return -1;
			*dfp = df;
			return j;
		}
		return -1;
	}
	return -1;
}

/*
 * writev of writeback's own folios: added to the plug (1), or not theirs
 * (0: write it now, after the plug), or the plug failed (< 0).
 */
static int gaze_plug_take(struct gaze_bdev *b, u64 blk, u32 nr,
			  void *const *bufs)
{
	struct gaze_plug *p = &b->plug;
	struct cgroup_subsys_state *blkcg;
	struct gaze_defer *df;
	int j, ret = 0;
	u32 k, max;

	if (!b->zoned || PAGE_SIZE != GAZE_BLOCK_SIZE)
		return 0;
	max = gaze_write_max_blocks(b->bdev);
	if (nr > max)
		return 0;
	mutex_lock(&p->lock);
	j = gaze_plug_match(p, bufs, nr, &df);
	if (j < 0)
		goto out_unlock;
	/* one bio, one cgroup to charge it to */
	blkcg = gaze_wbc_blkcg(df->wbc);
	/* the next bio is built while this one is in flight */
	if (p->bio && (blk != p->next || p->nr + nr > max ||
		       blkcg != p->blkcg))
		ret = gaze_plug_send(b);
	if (!ret)
		ret = p->err;
	if (ret)
		goto out_unlock;
	if (!p->bio) {
		p->bio = bio_alloc(b->bdev, BIO_MAX_VECS,
				   REQ_OP_WRITE | REQ_SYNC, GFP_NOIO);
		p->bio->bi_iter.bi_sector = blk << GAZE_SECT_SHIFT;
		if (df->wbc)
			wbc_init_bio(df->wbc, p->bio);
		p->blkcg = blkcg;
	}
	for (k = 0; k < nr; k++) {
		struct folio *folio = df->folios[j + k];

		/* the bio has room for BIO_MAX_VECS pages (checked above) */
		__bio_add_page(p->bio, virt_to_page(bufs[k]), GAZE_BLOCK_SIZE,
			       0);
		folio_get(folio);
		p->folios[p->nr++] = folio;
		df->taken[j + k] = true;
	}
	df->pos = j + nr;
	p->next = blk + nr;
	mod_delayed_work(system_wq, &p->work, GAZE_PLUG_DELAY);
	ret = 1;
out_unlock:
	mutex_unlock(&p->lock);
	return ret;
}

static void gaze_plug_init(struct gaze_bdev *b)
{
	mutex_init(&b->plug.lock);
	init_completion(&b->plug.flight_done);
	INIT_LIST_HEAD(&b->plug.defers);
	INIT_DELAYED_WORK(&b->plug.work, gaze_plug_work);
}

static void gaze_plug_destroy(struct gaze_bdev *b)
{
	/* nothing adds to the plug any more: stop the work, then empty it */
	cancel_delayed_work_sync(&b->plug.work);
	gaze_plug_drain(b);
	mutex_destroy(&b->plug.lock);
}

/* ---------------------------------------------------------------- */
/* host-managed zoned devices                                        */
/* ---------------------------------------------------------------- */

/* every request on a zoned device first drains the plug (see the top) */
static int gaze_zbd_read(struct gaze_dev *d, u64 blk, u32 nr, void *buf)
{
	int ret = gaze_bdev_range(d, blk, nr);

	if (ret)
		return ret;
	gaze_plug_drain_read(GAZE_BDEV(d), blk, nr);
	return gaze_bdev_read(GAZE_BDEV(d)->bdev, blk, nr, buf);
}

static int gaze_zbd_write(struct gaze_dev *d, u64 blk, u32 nr,
			  const void *buf)
{
	int ret = gaze_bdev_range(d, blk, nr);

	if (!ret)
		ret = gaze_plug_drain(GAZE_BDEV(d));
	if (ret)
		return ret;
	return gaze_bdev_rw(GAZE_BDEV(d)->bdev, REQ_OP_WRITE | REQ_SYNC, blk,
			    nr, (void *)buf, gaze_defer_wbc(GAZE_BDEV(d)));
}

static int gaze_zbd_readv(struct gaze_dev *d, u64 blk, u32 nr,
			  void *const *bufs)
{
	int ret = gaze_bdev_range(d, blk, nr);

	if (ret)
		return ret;
	gaze_plug_drain_read(GAZE_BDEV(d), blk, nr);
	return gaze_bdev_rwv(GAZE_BDEV(d)->bdev, REQ_OP_READ, blk, nr, bufs,
			     NULL);
}

static int gaze_zbd_writev(struct gaze_dev *d, u64 blk, u32 nr,
			   void *const *bufs)
{
	int ret = gaze_bdev_range(d, blk, nr);

	if (!ret)
		ret = gaze_plug_take(GAZE_BDEV(d), blk, nr, bufs);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = gaze_plug_drain(GAZE_BDEV(d));
	if (ret)
		return ret;
	return gaze_bdev_rwv(GAZE_BDEV(d)->bdev, REQ_OP_WRITE | REQ_SYNC, blk,
			     nr, bufs, gaze_defer_wbc(GAZE_BDEV(d)));
}

static u8 gaze_zbd_cond(u8 cond)
{
	switch (cond) {
	case BLK_ZONE_COND_NOT_WP:	return GAZE_ZC_NOT_WP;
	case BLK_ZONE_COND_EMPTY:	return GAZE_ZC_EMPTY;
	case BLK_ZONE_COND_IMP_OPEN:	return GAZE_ZC_IMP_OPEN;
	case BLK_ZONE_COND_EXP_OPEN:	return GAZE_ZC_EXP_OPEN;
	case BLK_ZONE_COND_CLOSED:	return GAZE_ZC_CLOSED;
	case BLK_ZONE_COND_FULL:	return GAZE_ZC_FULL;
	case BLK_ZONE_COND_READONLY:	return GAZE_ZC_READONLY;
	default:			return GAZE_ZC_OFFLINE;
	}
}

struct gaze_report_ctx {
	struct gaze_zone	*out;
	u32			nr;
};

static int gaze_zbd_report_cb(struct blk_zone *bz, unsigned int idx,
			      void *data)
{
	struct gaze_report_ctx *c = data;
	struct gaze_zone *z;

	if (idx >= c->nr)
		return -EINVAL;
	z = &c->out[idx];
	z->start = bz->start >> GAZE_SECT_SHIFT;
	z->len = bz->len >> GAZE_SECT_SHIFT;
	z->cap = bz->capacity >> GAZE_SECT_SHIFT;
	z->type = bz->type == BLK_ZONE_TYPE_CONVENTIONAL ? GAZE_ZT_CONV :
							    GAZE_ZT_SEQ;
	z->cond = gaze_zbd_cond(bz->cond);
	if (z->type == GAZE_ZT_CONV || z->cond == GAZE_ZC_FULL)
		z->wp = z->start + z->len;
	else
		z->wp = bz->wp >> GAZE_SECT_SHIFT;
	return 0;
}

static int gaze_zbd_report(struct gaze_dev *d, u32 zone, u32 nr,
			   struct gaze_zone *z)
{
	struct gaze_report_ctx c = { .out = z };
	int ret;

	if (zone >= d->nr_zones)
		return -EINVAL;
	c.nr = min(nr, d->nr_zones - zone);
	if (!c.nr)
		return 0;
	gaze_plug_drain(GAZE_BDEV(d));	/* write pointers include it */
	ret = blkdev_report_zones(GAZE_BDEV(d)->bdev,
				  (sector_t)zone * d->zone_blocks <<
				  GAZE_SECT_SHIFT, c.nr, gaze_zbd_report_cb, &c);
	return ret ? ret : -EIO;
}

static int gaze_zbd_mgmt(struct gaze_dev *d, enum req_op op, u32 zone, u32 nr)
{
	sector_t zs = (sector_t)d->zone_blocks << GAZE_SECT_SHIFT;
	int ret;

	if (zone >= d->nr_zones || nr > d->nr_zones - zone)
		return -EINVAL;
	if (!nr)
		return 0;
	ret = gaze_plug_drain(GAZE_BDEV(d));
	if (ret)
		return ret;
	return gaze_zone_mgmt(GAZE_BDEV(d)->bdev, op, zone * zs, nr * zs);
}

static int gaze_zbd_reset(struct gaze_dev *d, u32 zone, u32 nr)
{
	return gaze_zbd_mgmt(d, REQ_OP_ZONE_RESET, zone, nr);
}

/* FITRIM of a conventional zone (the core resets sequential ones) */
static int gaze_zbd_discard(struct gaze_dev *d, u32 zone)
{
	struct block_device *bdev = GAZE_BDEV(d)->bdev;
	sector_t zs = (sector_t)d->zone_blocks << GAZE_SECT_SHIFT;

	if (zone >= d->nr_zones)
		return -EINVAL;
	if (!bdev_max_discard_sectors(bdev))
		return -EOPNOTSUPP;
	return blkdev_issue_discard(bdev, zone * zs, zs, GFP_NOIO);
}

static int gaze_zbd_finish(struct gaze_dev *d, u32 zone)
{
	return gaze_zbd_mgmt(d, REQ_OP_ZONE_FINISH, zone, 1);
}

static int gaze_bdev_flush(struct gaze_dev *d)
{
	int ret = gaze_plug_drain(GAZE_BDEV(d));

	return ret ? ret : blkdev_issue_flush(GAZE_BDEV(d)->bdev);
}

static const struct gaze_dev_ops gaze_zbd_ops = {
	.read	= gaze_zbd_read,
	.write	= gaze_zbd_write,
	.readv	= gaze_zbd_readv,
	.writev	= gaze_zbd_writev,
	.report	= gaze_zbd_report,
	.reset	= gaze_zbd_reset,
	.finish	= gaze_zbd_finish,
	.flush	= gaze_bdev_flush,
	.discard = gaze_zbd_discard,
};

struct gaze_geo_ctx {
	u32	nr_conv;
	u64	min_cap;	/* sectors */
	bool	bad_cap;
};

static int gaze_zbd_geo_cb(struct blk_zone *bz, unsigned int idx, void *data)
{
	struct gaze_geo_ctx *c = data;

	if (bz->type == BLK_ZONE_TYPE_CONVENTIONAL) {
		c->nr_conv++;
		return 0;
	}
	if (bz->capacity & ((1 << GAZE_SECT_SHIFT) - 1))
		c->bad_cap = true;
	if (!c->min_cap || bz->capacity < c->min_cap)
		c->min_cap = bz->capacity;
	return 0;
}

static int gaze_zbd_setup(struct gaze_bdev *b)
{
	struct gaze_dev *d = &b->dev;
	struct block_device *bdev = b->bdev;
	sector_t zs = bdev_zone_sectors(bdev);
	struct gaze_geo_ctx c = { 0 };
	int ret;

	if (!zs || zs & ((1 << GAZE_SECT_SHIFT) - 1)) {
		pr_err("gaze: %pg: zone size of %llu sectors is not a multiple of 4 KiB\n",
		       bdev, (unsigned long long)zs);
		return -EINVAL;
	}
	d->zone_blocks = zs >> GAZE_SECT_SHIFT;
	d->nr_zones = bdev_nr_zones(bdev);
	d->nr_blocks = (u64)d->nr_zones * d->zone_blocks;
	ret = blkdev_report_zones(bdev, 0, d->nr_zones, gaze_zbd_geo_cb, &c);
	if (ret < 0) {
		pr_err("gaze: %pg: zone report failed: %d\n", bdev, ret);
		return ret;
	}
	if (c.bad_cap) {
		pr_err("gaze: %pg: zone capacity is not a multiple of 4 KiB\n",
		       bdev);
		return -EINVAL;
	}
	d->nr_conv = c.nr_conv;
	d->zone_cap = c.min_cap ? c.min_cap >> GAZE_SECT_SHIFT :
				  d->zone_blocks;
	d->max_open = bdev_max_open_zones(bdev);
	d->max_active = bdev_max_active_zones(bdev);
	d->model = GAZE_ZM_HOST_MANAGED;
	d->ops = &gaze_zbd_ops;
	return 0;
}

/* ---------------------------------------------------------------- */
/* regular devices: emulated zones                                   */
/* ---------------------------------------------------------------- */

static int gaze_emu_read(struct gaze_dev *d, u64 blk, u32 nr, void *buf)
{
	struct gaze_bdev *b = GAZE_BDEV(d);
	u32 zb = d->zone_blocks;
	u8 *p = buf;
	int ret;

	ret = gaze_bdev_range(d, blk, nr);
	while (!ret && nr) {
		u32 off = blk % zb, n = min(nr, zb - off), valid, k;

		mutex_lock(&b->lock);
		valid = gaze_zsm_valid(&b->zsm, blk / zb);
		mutex_unlock(&b->lock);
		k = off < valid ? min(n, valid - off) : 0;
		if (k)
			ret = gaze_bdev_read(b->bdev, blk, k, p);
		memset(p + (size_t)k * GAZE_BLOCK_SIZE, 0,
		       (size_t)(n - k) * GAZE_BLOCK_SIZE);
		blk += n;
		nr -= n;
		p += (size_t)n * GAZE_BLOCK_SIZE;
	}
	return ret;
}

/* write and writev: the zone rules as a ZNS drive keeps them
 * (core/zsm.c), then one contiguous buffer or a block per page */
static int gaze_emu_do_write(struct gaze_dev *d, u64 blk, u32 nr,
			     const void *buf, void *const *bufs)
{
	struct gaze_bdev *b = GAZE_BDEV(d);
	struct writeback_control *wbc;
	bool seq;
	int ret;

	ret = gaze_bdev_range(d, blk, nr);
	if (ret || !nr)
		return ret;
	wbc = gaze_defer_wbc(b);
	mutex_lock(&b->lock);
	ret = gaze_zsm_write_prep(&b->zsm, blk, nr);
	seq = b->zsm.zones[blk / d->zone_blocks].type == GAZE_ZT_SEQ;
	if (ret) {
		mutex_unlock(&b->lock);
		pr_err_ratelimited("gaze: %pg: write of %u blocks at %llu breaks the zone rules of zone %llu\n",
				   b->bdev, nr, (unsigned long long)blk,
				   (unsigned long long)(blk / d->zone_blocks));
		return ret;
	}
	if (bufs)
		ret = gaze_bdev_rwv(b->bdev, REQ_OP_WRITE | REQ_SYNC, blk, nr,
				    bufs, wbc);
	else
		ret = gaze_bdev_rw(b->bdev, REQ_OP_WRITE | REQ_SYNC, blk, nr,
				   (void *)buf, wbc);
	if (!ret && seq)
		gaze_zsm_write_done(&b->zsm, blk, nr);
	mutex_unlock(&b->lock);
	return ret;
}

static int gaze_emu_write(struct gaze_dev *d, u64 blk, u32 nr,
			  const void *buf)
{
	return gaze_emu_do_write(d, blk, nr, buf, NULL);
}

/* blocks past the emulated write pointer read as zeros, as in read */
static int gaze_emu_readv(struct gaze_dev *d, u64 blk, u32 nr,
			  void *const *bufs)
{
	struct gaze_bdev *b = GAZE_BDEV(d);
	u32 zb = d->zone_blocks, off, valid, i;
	int ret;

	ret = gaze_bdev_range(d, blk, nr);
	if (ret || !nr)
		return ret;
	off = blk % zb;
	mutex_lock(&b->lock);
	valid = gaze_zsm_valid(&b->zsm, blk / zb);
	mutex_unlock(&b->lock);
	if (off + nr <= zb && off + nr <= valid)
		return gaze_bdev_rwv(b->bdev, REQ_OP_READ, blk, nr, bufs,
				     NULL);
	for (i = 0; i < nr && !ret; i++)
		ret = gaze_emu_read(d, blk + i, 1, bufs[i]);
	return ret;
}

static int gaze_emu_writev(struct gaze_dev *d, u64 blk, u32 nr,
			   void *const *bufs)
{
	return gaze_emu_do_write(d, blk, nr, NULL, bufs);
}

static int gaze_emu_report(struct gaze_dev *d, u32 zone, u32 nr,
			   struct gaze_zone *out)
{
	struct gaze_bdev *b = GAZE_BDEV(d);
	u32 i;

	if (zone >= d->nr_zones)
		return -EINVAL;
	nr = min(nr, d->nr_zones - zone);
	mutex_lock(&b->lock);
	for (i = 0; i < nr; i++)
		gaze_zsm_report(&b->zsm, zone + i, &out[i]);
	mutex_unlock(&b->lock);
	return nr;
}

/*
 * zones [zone, zone + nr) become empty and sequential; with discard, their
 * blocks are discarded first (when the disk can)
 */
static int gaze_emu_clear(struct gaze_dev *d, u32 zone, u32 nr, bool discard)
{
	struct gaze_bdev *b = GAZE_BDEV(d);
	sector_t zs = (sector_t)d->zone_blocks << GAZE_SECT_SHIFT;
	u32 i;
	int ret;

	if (zone >= d->nr_zones || nr > d->nr_zones - zone)
		return -EINVAL;
	if (!nr)
		return 0;
	mutex_lock(&b->lock);
	ret = 0;
	if (discard && bdev_max_discard_sectors(b->bdev))
		ret = blkdev_issue_discard(b->bdev, zone * zs, nr * zs,
					   GFP_NOIO);
	if (ret == -EOPNOTSUPP)
		ret = 0;
	if (!ret) {
		for (i = zone; i < zone + nr; i++) {
			gaze_zsm_make_seq(&b->zsm, i);
			gaze_zsm_reset(&b->zsm, i);
		}
	} else {
		pr_err("gaze: %pg: discarding zones %u-%u: %d\n", b->bdev,
		       zone, zone + nr - 1, ret);
	}
	mutex_unlock(&b->lock);
	return ret;
}

static int gaze_emu_reset(struct gaze_dev *d, u32 zone, u32 nr)
{
	return gaze_emu_clear(d, zone, nr, GAZE_BDEV(d)->discard);
}

/*
 * FITRIM: the zone's blocks are discarded whatever the discard mount
 * option says (it is about resets; fstrim is asked for)
 */
static int gaze_emu_discard(struct gaze_dev *d, u32 zone)
{
	if (!bdev_max_discard_sectors(GAZE_BDEV(d)->bdev))
		return -EOPNOTSUPP;
	return gaze_emu_clear(d, zone, 1, true);
}

static int gaze_emu_finish(struct gaze_dev *d, u32 zone)
{
	struct gaze_bdev *b = GAZE_BDEV(d);
	int ret;

	if (zone >= d->nr_zones)
		return -EINVAL;
	mutex_lock(&b->lock);
	ret = gaze_zsm_finish(&b->zsm, zone);
	mutex_unlock(&b->lock);
	return ret;
}

static const struct gaze_dev_ops gaze_emu_ops = {
	.read	= gaze_emu_read,
	.write	= gaze_emu_write,
	.readv	= gaze_emu_readv,
	.writev	= gaze_emu_writev,
	.report	= gaze_emu_report,
	.reset	= gaze_emu_reset,
	.finish	= gaze_emu_finish,
	.flush	= gaze_bdev_flush,
	.discard = gaze_emu_discard,
};

static int gaze_emu_setup(struct gaze_bdev *b)
{
	struct gaze_dev *d = &b->dev;
	struct gaze_super *sb;
	u64 blocks = bdev_nr_sectors(b->bdev) >> GAZE_SECT_SHIFT;
	u32 zb;
	int ret;

	sb = kmalloc(GAZE_BLOCK_SIZE, GFP_KERNEL);
	if (!sb)
		return -ENOMEM;
	ret = blocks ? gaze_bdev_read(b->bdev, 0, 1, sb) : -EINVAL;
	if (ret) {
		pr_err("gaze: %pg: cannot read the superblock: %d\n", b->bdev,
		       ret);
		goto out;
	}
	if (le32_to_cpu(sb->hdr.magic) != GAZE_MAGIC_SB) {
		pr_err("gaze: %pg: not a GAZE filesystem (bad magic)\n",
		       b->bdev);
		ret = -EINVAL;
		goto out;
	}
	zb = le32_to_cpu(sb->zone_blocks);
	if (zb < GAZE_MIN_ZONE_BLOCKS || zb > blocks / 2) {
		pr_err("gaze: %pg: corrupt superblock (zone size of %u blocks on a device of %llu blocks)\n",
		       b->bdev, zb, (unsigned long long)blocks);
		ret = -EUCLEAN;
		goto out;
	}
	d->zone_blocks = zb;
	d->zone_cap = zb;
	d->nr_zones = div_u64(blocks, zb);
	d->nr_blocks = (u64)d->nr_zones * zb;
	d->nr_conv = 0;
	d->max_open = 0;
	d->max_active = 0;
	d->model = GAZE_ZM_EMULATED;
	d->ops = &gaze_emu_ops;
	/* every zone conventional until this mount resets it */
	ret = gaze_zsm_init(&b->zsm, d->nr_zones, zb, zb, d->nr_zones, 0, 0);
out:
	kfree(sb);
	return ret;
}

int gaze_bdev_open(struct block_device *bdev, struct gaze_dev **devp)
{
	unsigned int lbs = bdev_logical_block_size(bdev);
	struct gaze_bdev *b;
	int ret;

	if (lbs > GAZE_BLOCK_SIZE) {
		pr_err("gaze: %pg: logical block size %u is over %u\n", bdev,
		       lbs, GAZE_BLOCK_SIZE);
		return -EINVAL;
	}
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->bdev = bdev;
	b->dev.priv = b;
	b->dev.lbs = lbs;
	mutex_init(&b->lock);
	gaze_plug_init(b);
	b->zoned = bdev_is_zoned(bdev);
	if (b->zoned && !bdev_zone_sectors(bdev)) {
		pr_err("gaze: %pg: host-aware zoned device without zone size\n",
		       bdev);
		ret = -EINVAL;
		goto out_free;
	}
	ret = b->zoned ? gaze_zbd_setup(b) : gaze_emu_setup(b);
	if (ret)
		goto out_free;
	*devp = &b->dev;
	return 0;

out_free:
	gaze_zsm_destroy(&b->zsm);
	mutex_destroy(&b->plug.lock);
	mutex_destroy(&b->lock);
	kfree(b);
	return ret;
}

void gaze_bdev_set_discard(struct gaze_dev *dev, bool on)
{
	GAZE_BDEV(dev)->discard = on;
}

bool gaze_bdev_can_trim(struct gaze_dev *dev)
{
	struct gaze_bdev *b = GAZE_BDEV(dev);

	return b->zoned || bdev_max_discard_sectors(b->bdev);
}

void gaze_bdev_close(struct gaze_dev *dev)
{
	struct gaze_bdev *b;

	if (!dev)
		return;
	b = GAZE_BDEV(dev);
	gaze_plug_destroy(b);
	gaze_zsm_destroy(&b->zsm);
	mutex_destroy(&b->lock);
	kfree(b);
}
