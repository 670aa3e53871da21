// SPDX-License-Identifier: GPL-2.0
/*
 * zbd.c - real zoned block devices (NVMe ZNS, host-managed and host-aware
 * SMR) through libzbd.
 *
 * Why: on a real zoned device the device itself enforces the zone rules
 * and keeps the write pointers, so this backend only translates: bytes to
 * 4 KiB blocks, libzbd zone types and conditions to GAZE_Z*, and buffers
 * to 4096-aligned bounce buffers for O_DIRECT (always used: the page cache
 * would reorder writes within a zone).  Host-aware devices are driven as
 * host-managed.  There is no append: userspace has no zone-append command
 * on a raw block device.
 *
 * Locking: none needed; the kernel serialises nothing for us, and the
 * filesystem above issues at most one writer per zone.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <libzbd/zbd.h>
#include <stdlib.h>
#include <unistd.h>

#include "zdev_int.h"

#define ZBD_REPORT_CHUNK	4096u	/* zones per zbd_report_zones call */

struct zbdev {
	struct gaze_zdev_priv base;	/* first: gaze_dev.priv points here */
	struct gaze_dev dev;
	int	fd;
	bool	rdonly;
	u64	zone_bytes;
};

/* libzbd returns -errno from some calls and -1 with errno from others. */
static int
zbd_err(int ret)
{
	if (ret == -1)
		return errno ? -errno : -EIO;
	return ret < 0 ? ret : -EIO;
}

static int
zbdev_read(struct gaze_dev *d, u64 blk, u32 nr, void *buf)
{
	struct zbdev *z = d->priv;

	if (blk > d->nr_blocks || nr > d->nr_blocks - blk)
		return -EINVAL;
	return gaze_zdev_pio(z->fd, false, buf, (size_t)nr * GAZE_ZDEV_BLOCK,
			     blk * GAZE_ZDEV_BLOCK, true);
}

static int
zbdev_write(struct gaze_dev *d, u64 blk, u32 nr, const void *buf)
{
	struct zbdev *z = d->priv;

	if (z->rdonly)
		return -EROFS;
	if (blk > d->nr_blocks || nr > d->nr_blocks - blk)
		return -EINVAL;
	return gaze_zdev_pio(z->fd, true, (void *)buf,
			     (size_t)nr * GAZE_ZDEV_BLOCK,
			     blk * GAZE_ZDEV_BLOCK, true);
}

static u8
zbdev_cond(unsigned int cond)
{
	static const u8 map[][2] = {
		{ ZBD_ZONE_COND_NOT_WP,		GAZE_ZC_NOT_WP },
		{ ZBD_ZONE_COND_EMPTY,		GAZE_ZC_EMPTY },
		{ ZBD_ZONE_COND_IMP_OPEN,	GAZE_ZC_IMP_OPEN },
		{ ZBD_ZONE_COND_EXP_OPEN,	GAZE_ZC_EXP_OPEN },
		{ ZBD_ZONE_COND_CLOSED,		GAZE_ZC_CLOSED },
		{ ZBD_ZONE_COND_FULL,		GAZE_ZC_FULL },
		{ ZBD_ZONE_COND_READONLY,	GAZE_ZC_READONLY },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (map[i][0] == cond)
			return map[i][1];
	return GAZE_ZC_OFFLINE;
}

static void
zbdev_zone(const struct zbd_zone *in, struct gaze_zone *out)
{
	out->start = in->start / GAZE_ZDEV_BLOCK;
	out->len = in->len / GAZE_ZDEV_BLOCK;
	out->cap = in->capacity / GAZE_ZDEV_BLOCK;
	out->type = zbd_zone_cnv(in) ? GAZE_ZT_CONV : GAZE_ZT_SEQ;
	out->cond = zbdev_cond(in->cond);
	if (out->type == GAZE_ZT_CONV || out->cond == GAZE_ZC_FULL)
		out->wp = out->start + out->len;
	else
		out->wp = in->wp / GAZE_ZDEV_BLOCK;
}

static int
zbdev_report(struct gaze_dev *d, u32 zone, u32 nr, struct gaze_zone *out)
{
	struct zbdev *z = d->priv;
	struct zbd_zone *buf;
	u32 done = 0;
	int ret = 0;

	if (zone >= d->nr_zones)
		return -EINVAL;
	nr = min(nr, d->nr_zones - zone);
	buf = gaze_alloc(sizeof(*buf) * min(nr, ZBD_REPORT_CHUNK) + 1);
	if (!buf)
		return -ENOMEM;
	while (done < nr) {
		unsigned int i, n = min(nr - done, ZBD_REPORT_CHUNK);

		errno = 0;
		ret = zbd_report_zones(z->fd, (zone + done) * z->zone_bytes,
				       (u64)n * z->zone_bytes, ZBD_RO_ALL,
				       buf, &n);
		if (ret) {
			ret = zbd_err(ret);
			break;
		}
		if (!n)
			break;
		for (i = 0; i < n; i++)
			zbdev_zone(&buf[i], &out[done + i]);
		done += n;
	}
	gaze_free(buf);
	return ret ? ret : (int)done;
}

static int
zbdev_zone_op(struct gaze_dev *d, enum zbd_zone_op op, u32 zone, u32 nr)
{
	struct zbdev *z = d->priv;
	int ret;

	if (z->rdonly)
		return -EROFS;
	if (zone >= d->nr_zones || nr > d->nr_zones - zone)
		return -EINVAL;
	if (!nr)
		return 0;
	errno = 0;
	ret = zbd_zones_operation(z->fd, op, zone * z->zone_bytes,
				  nr * z->zone_bytes);
	return ret ? zbd_err(ret) : 0;
}

static int
zbdev_reset(struct gaze_dev *d, u32 zone, u32 nr)
{
	return zbdev_zone_op(d, ZBD_OP_RESET, zone, nr);
}

static int
zbdev_finish(struct gaze_dev *d, u32 zone)
{
	return zbdev_zone_op(d, ZBD_OP_FINISH, zone, 1);
}

static int
zbdev_flush(struct gaze_dev *d)
{
	struct zbdev *z = d->priv;

	if (fsync(z->fd) < 0)
		return -errno;
	return 0;
}

static const struct gaze_dev_ops zbdev_ops = {
	.read	= zbdev_read,
	.write	= zbdev_write,
	.report	= zbdev_report,
	.reset	= zbdev_reset,
	.finish	= zbdev_finish,
	.flush	= zbdev_flush,
};

static void
zbdev_destroy(struct gaze_dev *d)
{
	struct zbdev *z = d->priv;

	zbd_close(z->fd);
	gaze_free(z);
}

/* nr_conv and the smallest sequential zone capacity, from a full report. */
static int
zbdev_scan(struct zbdev *z, const char *path)
{
	struct zbd_zone *zones = NULL;
	unsigned int i, nr = 0;
	u64 cap = 0;
	int ret;

	errno = 0;
	ret = zbd_list_zones(z->fd, 0, 0, ZBD_RO_ALL, &zones, &nr);
	if (ret)
		return zbd_err(ret);
	z->dev.nr_conv = 0;
	for (i = 0; i < nr; i++) {
		if (zbd_zone_cnv(&zones[i]))
			z->dev.nr_conv++;
		else if (!cap || zones[i].capacity < cap)
			cap = zones[i].capacity;
	}
	free(zones);
	if (cap % GAZE_ZDEV_BLOCK) {
		gaze_err("%s: zone capacity %llu is not a multiple of 4 KiB",
			 path, (unsigned long long)cap);
		return -EINVAL;
	}
	z->dev.zone_cap = cap ? cap / GAZE_ZDEV_BLOCK : z->dev.zone_blocks;
	return 0;
}

/* 0 and -1 (unknown) both mean "no limit we know of". */
static u32
zbdev_limit(unsigned int dev_max, u32 want)
{
	u32 lim = dev_max == (unsigned int)-1 ? 0 : dev_max;

	if (want && (!lim || want < lim))
		return want;
	return lim;
}

static int
zbdev_geometry(struct zbdev *z, const char *path, const struct zbd_info *info,
	       const struct gaze_dev_open_opts *o)
{
	struct gaze_dev *d = &z->dev;

	if (!info->zone_size || info->zone_size % GAZE_ZDEV_BLOCK ||
	    info->lblock_size > GAZE_ZDEV_BLOCK) {
		gaze_err("%s: zone size %llu, block size %u: need 4 KiB multiples",
			 path, info->zone_size, info->lblock_size);
		return -EINVAL;
	}
	z->zone_bytes = info->zone_size;
	d->zone_blocks = info->zone_size / GAZE_ZDEV_BLOCK;
	d->nr_zones = info->nr_zones;
	d->nr_blocks = (u64)d->nr_zones * d->zone_blocks;
	d->max_open = zbdev_limit(info->max_nr_open_zones, o->max_open);
	d->max_active = zbdev_limit(info->max_nr_active_zones, 0);
	if (d->max_active && d->max_open > d->max_active)
		d->max_open = d->max_active;
	d->model = GAZE_ZM_HOST_MANAGED;
	d->lbs = info->lblock_size;
	return zbdev_scan(z, path);
}

int
gaze_zdev_zbd_open(const char *path, const struct gaze_dev_open_opts *o,
		   struct gaze_dev **out)
{
	int flags = (o->rdonly ? O_RDONLY : O_RDWR) | O_DIRECT | O_CLOEXEC;
	struct zbd_info info;
	struct zbdev *z;
	int ret;

	if (o->excl)
		flags |= O_EXCL;
	z = gaze_zalloc(sizeof(*z));
	if (!z)
		return -ENOMEM;
	z->rdonly = o->rdonly;
	errno = 0;
	z->fd = zbd_open(path, flags, &info);
	if (z->fd < 0) {
		ret = zbd_err(z->fd);
		gaze_err("%s: cannot open zoned device: %s%s", path,
			 strerror(-ret), ret == -EBUSY ? " (mounted or in use?)" : "");
		goto out_free;
	}
	ret = zbdev_geometry(z, path, &info, o);
	if (ret)
		goto out_close;
	z->base.destroy = zbdev_destroy;
	z->dev.ops = &zbdev_ops;
	z->dev.priv = z;
	*out = &z->dev;
	return 0;
out_close:
	zbd_close(z->fd);
out_free:
	gaze_free(z);
	return ret;
}
