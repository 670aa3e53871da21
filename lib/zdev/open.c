// SPDX-License-Identifier: GPL-2.0
/*
 * open.c - from a path to the right backend, and back.
 *
 * Why: every tool (mkfs, fsck, gazectl, tests) takes a path and must do
 * the same thing with it: a zoned block device is driven natively
 * (zbd.c), a regular block device or an image file gets emulated zones
 * (file.c), anything else is refused with a clear message.  Keeping that
 * decision and the default emulated zone size here means all tools agree.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <libzbd/zbd.h>

#include "zdev_int.h"

#define ZDEV_MIB_BLOCKS		(1u << 20 >> 12)	/* blocks per MiB */
#define ZDEV_GIB		(1ull << 30)

u32
gaze_zdev_default_zone_blocks(u64 bytes)
{
	u32 zb = 16 * ZDEV_MIB_BLOCKS;

	if (bytes >= 64 * ZDEV_GIB)
		return 256 * ZDEV_MIB_BLOCKS;
	if (bytes >= 4 * ZDEV_GIB)
		return 64 * ZDEV_MIB_BLOCKS;
	/* largest power of two (<= 16 MiB) giving at least 32 zones */
	while (zb > ZDEV_MIB_BLOCKS &&
	       bytes / ((u64)zb * GAZE_ZDEV_BLOCK) < 32)
		zb >>= 1;
	return zb;
}

const char *
gaze_zdev_model_name(u32 model)
{
	switch (model) {
	case GAZE_ZM_HOST_MANAGED:
		return "host-managed zoned";
	case GAZE_ZM_EMULATED:
		return "emulated zones";
	default:
		return "unknown";
	}
}

/*
 * The kernel's name of block device st (/dev/dm-0 for /dev/mapper/x):
 * libzbd finds a device's zone model in sysfs by the base name of the
 * path, which for a node that is not a link to the kernel's (device-
 * mapper without udev, a node made by mknod) names nothing, so such a
 * zoned device looked like a regular one.  path itself when the kernel's
 * node is missing.
 */
static const char *
zdev_kernel_name(const char *path, const struct stat *st, char *buf,
		 size_t len)
{
	char sys[64], link[PATH_MAX];
	const char *base;
	struct stat kst;
	ssize_t n;

	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u",
		 major(st->st_rdev), minor(st->st_rdev));
	n = readlink(sys, link, sizeof(link) - 1);
	if (n <= 0)
		return path;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if ((size_t)snprintf(buf, len, "/dev/%s", base) >= len ||
	    stat(buf, &kst) || !S_ISBLK(kst.st_mode) ||
	    kst.st_rdev != st->st_rdev)
		return path;
	return buf;
}

static int
zdev_open_blkdev(const char *upath, const struct stat *st,
		 const struct gaze_dev_open_opts *o, struct gaze_dev **out)
{
	char kname[PATH_MAX];
	const char *path = zdev_kernel_name(upath, st, kname, sizeof(kname));
	int zoned = zbd_device_is_zoned(path);

	if (zoned < 0) {
		gaze_err("%s: cannot tell whether it is zoned: %s", path,
			 strerror(-zoned));
		return zoned;
	}
	if (zoned)
		return gaze_zdev_zbd_open(path, o, out);
	return gaze_zdev_file_open(path, true, o, out);
}

int
gaze_dev_open(const char *path, const struct gaze_dev_open_opts *o,
	      struct gaze_dev **out)
{
	static const struct gaze_dev_open_opts none;
	struct stat st;

	if (!o)
		o = &none;
	if (stat(path, &st) < 0) {
		int ret = -errno;

		gaze_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	if (S_ISBLK(st.st_mode))
		return zdev_open_blkdev(path, &st, o, out);
	if (S_ISREG(st.st_mode))
		return gaze_zdev_file_open(path, false, o, out);
	gaze_err("%s: not a block device or regular file", path);
	return -ENOTBLK;
}

int
gaze_dev_lock(int fd, bool excl)
{
	if (!flock(fd, (excl ? LOCK_EX : LOCK_SH) | LOCK_NB))
		return 0;
	if (errno == ENOLCK || errno == EOPNOTSUPP)
		return 0;
	return -errno;	/* EWOULDBLOCK: somebody else holds it */
}

void
gaze_dev_close(struct gaze_dev *d)
{
	struct gaze_zdev_priv *p;

	if (!d)
		return;
	p = d->priv;
	p->destroy(d);
}
