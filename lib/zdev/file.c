// SPDX-License-Identifier: GPL-2.0
/*
 * file.c - emulated zones on a regular file or a regular block device
 * (GAZE_ZM_EMULATED).
 *
 * Why: GAZE must run on any disk and on image files, where nothing keeps
 * write pointers across opens.  So a zone starts each session as
 * conventional (GAZE_ZT_CONV, NOT_WP: random writes allowed); once it is
 * reset in this session the backend tracks and enforces a write pointer
 * for it (GAZE_ZT_SEQ), with the same rules as the emulator (zsm.c), so a
 * filesystem bug that writes off the write pointer fails on a laptop's
 * image file just as it would on a ZNS drive.  nr_conv is reported as 0:
 * no zone is conventional once the filesystem has reset it.
 *
 * Geometry: zones of zone_blocks from offset 0; the tail that does not
 * fill a zone is unused and outside nr_blocks.  Reset punches a hole (one
 * fallocate over the whole range, so resetting thousands of zones costs
 * one call) or issues BLKDISCARD on a block device; blocks past a reset
 * zone's write pointer read as zeros without touching the disk, so
 * discard not zeroing does not matter.
 *
 * An image file opened with o->lock is flock(2)ed on the backend's own
 * descriptor (gaze_dev_lock), so the lock lasts exactly as long as the
 * device is open; block devices have O_EXCL instead.
 *
 * Locking: fdev.lock protects the zone state machine.  Writes to
 * sequential zones hold it across the pwrite so check, write and wp
 * advance are one step; reads and writes to conventional zones do their
 * I/O unlocked.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zdev_int.h"

struct fdev {
	struct gaze_zdev_priv base;	/* first: gaze_dev.priv points here */
	struct gaze_dev dev;
	int	fd;
	bool	blkdev;
	bool	rdonly;
	bool	direct;
	struct mutex lock;		/* protects zsm */
	struct gaze_zsm zsm;
};

static int
fdev_io(struct fdev *f, bool write, void *buf, u64 blk, u32 nr)
{
	return gaze_zdev_pio(f->fd, write, buf, (size_t)nr * GAZE_ZDEV_BLOCK,
			     blk * GAZE_ZDEV_BLOCK, f->direct);
}

static int
fdev_read(struct gaze_dev *d, u64 blk, u32 nr, void *buf)
{
	struct fdev *f = d->priv;
	u32 zb = d->zone_blocks;
	u8 *p = buf;
	int ret;

	ret = gaze_zsm_range(&f->zsm, blk, nr);
	while (!ret && nr) {
		u32 off = blk % zb;
		u32 n = min(nr, zb - off);
		u32 valid, k;

		mutex_lock(&f->lock);
		valid = gaze_zsm_valid(&f->zsm, blk / zb);
		mutex_unlock(&f->lock);
		k = off < valid ? min(n, valid - off) : 0;
		ret = k ? fdev_io(f, false, p, blk, k) : 0;
		memset(p + (size_t)k * GAZE_ZDEV_BLOCK, 0,
		       (size_t)(n - k) * GAZE_ZDEV_BLOCK);
		blk += n;
		nr -= n;
		p += (size_t)n * GAZE_ZDEV_BLOCK;
	}
	return ret;
}

static int
fdev_write(struct gaze_dev *d, u64 blk, u32 nr, const void *buf)
{
	struct fdev *f = d->priv;
	bool seq;
	int ret;

	if (f->rdonly)
		return -EROFS;
	ret = gaze_zsm_range(&f->zsm, blk, nr);
	if (ret || !nr)
		return ret;
	mutex_lock(&f->lock);
	ret = gaze_zsm_write_prep(&f->zsm, blk, nr);
	seq = f->zsm.zones[blk / d->zone_blocks].type == GAZE_ZT_SEQ;
	if (ret || !seq) {
		mutex_unlock(&f->lock);
		return ret ? ret : fdev_io(f, true, (void *)buf, blk, nr);
	}
	ret = fdev_io(f, true, (void *)buf, blk, nr);
	if (!ret)
		gaze_zsm_write_done(&f->zsm, blk, nr);
	mutex_unlock(&f->lock);
	return ret;
}

static int
fdev_report(struct gaze_dev *d, u32 zone, u32 nr, struct gaze_zone *z)
{
	struct fdev *f = d->priv;
	u32 i;

	if (zone >= d->nr_zones)
		return -EINVAL;
	nr = min(nr, d->nr_zones - zone);
	mutex_lock(&f->lock);
	for (i = 0; i < nr; i++)
		gaze_zsm_report(&f->zsm, zone + i, &z[i]);
	mutex_unlock(&f->lock);
	return nr;
}

/* Drops the data of a block range: hole in a file, discard on a disk. */
static int
fdev_discard(struct fdev *f, u64 start, u64 len)
{
	int ret;

	if (f->blkdev) {
		u64 range[2] = { start, len };

		ret = ioctl(f->fd, BLKDISCARD, range);
	} else {
		ret = fallocate(f->fd, FALLOC_FL_PUNCH_HOLE |
				FALLOC_FL_KEEP_SIZE, (off_t)start, (off_t)len);
	}
	if (ret < 0 && errno != EOPNOTSUPP)
		return -errno;
	return 0;
}

static int
fdev_reset(struct gaze_dev *d, u32 zone, u32 nr)
{
	struct fdev *f = d->priv;
	u64 zone_bytes = (u64)d->zone_blocks * GAZE_ZDEV_BLOCK;
	u32 i;
	int ret;

	if (f->rdonly)
		return -EROFS;
	if (zone >= d->nr_zones || nr > d->nr_zones - zone)
		return -EINVAL;
	if (!nr)
		return 0;
	mutex_lock(&f->lock);
	ret = fdev_discard(f, zone * zone_bytes, nr * zone_bytes);
	if (ret) {
		gaze_err("zdev: discarding zones %u-%u: %s", zone,
			 zone + nr - 1, strerror(-ret));
		goto out_unlock;
	}
	for (i = zone; i < zone + nr; i++) {
		gaze_zsm_make_seq(&f->zsm, i);
		gaze_zsm_reset(&f->zsm, i);
	}
out_unlock:
	mutex_unlock(&f->lock);
	return ret;
}

static int
fdev_finish(struct gaze_dev *d, u32 zone)
{
	struct fdev *f = d->priv;
	int ret;

	if (f->rdonly)
		return -EROFS;
	if (zone >= d->nr_zones)
		return -EINVAL;
	mutex_lock(&f->lock);
	ret = gaze_zsm_finish(&f->zsm, zone);
	mutex_unlock(&f->lock);
	return ret;
}

static int
fdev_flush(struct gaze_dev *d)
{
	struct fdev *f = d->priv;

	if (fdatasync(f->fd) < 0)
		return -errno;
	return 0;
}

static const struct gaze_dev_ops fdev_ops = {
	.read	= fdev_read,
	.write	= fdev_write,
	.report	= fdev_report,
	.reset	= fdev_reset,
	.finish	= fdev_finish,
	.flush	= fdev_flush,
};

static void
fdev_destroy(struct gaze_dev *d)
{
	struct fdev *f = d->priv;

	close(f->fd);
	gaze_zsm_destroy(&f->zsm);
	mutex_destroy(&f->lock);
	gaze_free(f);
}

static int
fdev_open_fd(const char *path, bool blkdev, const struct gaze_dev_open_opts *o,
	     bool *direct)
{
	int flags = O_CLOEXEC | (o->rdonly ? O_RDONLY : O_RDWR);
	int fd;

	if (blkdev && o->excl)
		flags |= O_EXCL;
	*direct = o->direct;
	fd = open(path, flags | (o->direct ? O_DIRECT : 0));
	if (fd < 0 && o->direct && errno == EINVAL) {
		*direct = false;	/* filesystem without O_DIRECT */
		fd = open(path, flags);
	}
	if (fd < 0) {
		int ret = -errno;

		gaze_err("%s: cannot open: %s%s", path, strerror(-ret),
			 ret == -EBUSY ? " (mounted or in use?)" : "");
		return ret;
	}
	return fd;
}

/* Size in bytes and logical block size of the open file or disk. */
static int
fdev_size(struct fdev *f, const char *path, u64 *bytes)
{
	struct stat st;
	int lbs;

	f->dev.lbs = GAZE_ZDEV_BLOCK;
	if (!f->blkdev) {
		if (fstat(f->fd, &st) < 0)
			return -errno;
		*bytes = st.st_size;
		return 0;
	}
	if (ioctl(f->fd, BLKGETSIZE64, bytes) < 0 ||
	    ioctl(f->fd, BLKSSZGET, &lbs) < 0)
		return -errno;
	if (lbs <= 0 || lbs > (int)GAZE_ZDEV_BLOCK) {
		gaze_err("%s: logical block size %d is not supported", path,
			 lbs);
		return -EINVAL;
	}
	f->dev.lbs = lbs;
	return 0;
}

int
gaze_zdev_file_geometry(u64 bytes, const struct gaze_dev_open_opts *o,
			struct gaze_dev *d)
{
	u64 nr_zones;

	d->zone_blocks = o->zone_blocks ? o->zone_blocks :
			 gaze_zdev_default_zone_blocks(bytes);
	nr_zones = bytes / ((u64)d->zone_blocks * GAZE_ZDEV_BLOCK);
	if (!nr_zones || nr_zones > UINT32_MAX)
		return -EINVAL;
	d->nr_zones = nr_zones;
	d->nr_blocks = nr_zones * d->zone_blocks;
	d->zone_cap = d->zone_blocks;
	d->nr_conv = 0;
	d->max_open = o->max_open;
	d->max_active = 0;
	d->model = GAZE_ZM_EMULATED;
	return 0;
}

static int
fdev_geometry(struct fdev *f, const char *path,
	      const struct gaze_dev_open_opts *o)
{
	struct gaze_dev *d = &f->dev;
	u64 bytes;
	int ret;

	ret = fdev_size(f, path, &bytes);
	if (ret)
		return ret;
	ret = gaze_zdev_file_geometry(bytes, o, d);
	if (ret) {
		gaze_err("%s: %llu bytes cannot hold whole zones of %u blocks",
			 path, (unsigned long long)bytes, d->zone_blocks);
		return ret;
	}
	return gaze_zsm_init(&f->zsm, d->nr_zones, d->zone_blocks,
			     d->zone_blocks, d->nr_zones, o->max_open, 0);
}

int
gaze_zdev_file_open(const char *path, bool blkdev,
		    const struct gaze_dev_open_opts *o, struct gaze_dev **out)
{
	struct fdev *f;
	int ret;

	f = gaze_zalloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->blkdev = blkdev;
	f->rdonly = o->rdonly;
	f->fd = fdev_open_fd(path, blkdev, o, &f->direct);
	if (f->fd < 0) {
		ret = f->fd;
		goto out_free;
	}
	/* block devices have O_EXCL (and udev takes shared locks on them) */
	if (!blkdev && o->lock) {
		ret = gaze_dev_lock(f->fd, !o->rdonly);
		if (ret)
			goto out_close;
	}
	ret = fdev_geometry(f, path, o);
	if (ret)
		goto out_close;
	mutex_init(&f->lock);
	f->base.destroy = fdev_destroy;
	f->dev.ops = &fdev_ops;
	f->dev.priv = f;
	*out = &f->dev;
	return 0;
out_close:
	close(f->fd);
out_free:
	gaze_free(f);
	return ret;
}
