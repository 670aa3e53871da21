// SPDX-License-Identifier: GPL-2.0
/*
 * test_open.c - path dispatch, errors and the default zone size table.
 *
 * Why: every tool opens devices through gaze_dev_open(); wrong paths must
 * give clear errors, and the default emulated zone size decides the
 * geometry mkfs writes, so the table is pinned here.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "zdev_tap.h"

#define MIB	(1ull << 20)
#define GIB	(1ull << 30)

static void
test_errors(void)
{
	struct gaze_dev *d = NULL;
	char path[] = "/tmp/gaze-open-XXXXXX";
	int fd, ret;

	ret = gaze_dev_open("/dev/null", NULL, &d);
	tap_ok(ret == -ENOTBLK && !d, "/dev/null (character device): -ENOTBLK (%d)",
	       ret);
	ret = gaze_dev_open("/tmp", NULL, &d);
	tap_ok(ret == -ENOTBLK && !d, "directory: -ENOTBLK");
	ret = gaze_dev_open("/nonexistent/gaze", NULL, &d);
	tap_ok(ret == -ENOENT && !d, "missing path: -ENOENT");

	fd = mkstemp(path);
	if (fd < 0) {
		tap_skip("mkstemp");
		return;
	}
	ret = ftruncate(fd, 512 * 1024);
	close(fd);
	ret = ret ? -errno : gaze_dev_open(path, NULL, &d);
	tap_ok(ret == -EINVAL && !d, "file smaller than one zone: -EINVAL");
	ret = truncate(path, 4 * MIB) ? -errno : gaze_dev_open(path, NULL, &d);
	tap_ok(ret == 0 && d && d->nr_zones == 4 && d->zone_blocks == 256,
	       "4 MiB file: 4 zones of the 1 MiB minimum");
	gaze_dev_close(d);
	unlink(path);
	gaze_dev_close(NULL);
	tap_ok(1, "gaze_dev_close(NULL) is a no-op");
}

static void
test_default_zone_size(void)
{
	static const struct {
		u64 bytes;
		u32 mib;
	} t[] = {
		{ 4096 * GIB, 256 }, { 64 * GIB, 256 }, { 64 * GIB - 1, 64 },
		{ 4 * GIB, 64 }, { 4 * GIB - 1, 16 }, { 512 * MIB, 16 },
		{ 512 * MIB - 1, 8 }, { 256 * MIB, 8 }, { 64 * MIB, 2 },
		{ 33 * MIB, 1 }, { 32 * MIB, 1 }, { 16 * MIB, 1 }, { 0, 1 },
	};
	unsigned int i;
	int ok = 1;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		u32 got = gaze_zdev_default_zone_blocks(t[i].bytes);

		if (got != t[i].mib * 256) {
			printf("# %llu bytes: %u blocks, want %u\n",
			       (unsigned long long)t[i].bytes, got,
			       t[i].mib * 256);
			ok = 0;
		}
	}
	tap_ok(ok, "default zone size table (%u cases)", i);
}

static void
test_names(void)
{
	tap_ok(!strcmp(gaze_zdev_model_name(GAZE_ZM_HOST_MANAGED),
		       "host-managed zoned") &&
	       !strcmp(gaze_zdev_model_name(GAZE_ZM_EMULATED), "emulated zones") &&
	       !strcmp(gaze_zdev_model_name(99), "unknown"), "model names");
}

/*
 * Optional, destructive: GAZE_ZDEV_TEST_BLKDEV=/dev/loopN (a regular block
 * device of at least 8 MiB whose contents may be lost) exercises the
 * block-device half of file.c: size ioctls, BLKDISCARD reset, O_EXCL.
 */
static void
test_blkdev(void)
{
	struct gaze_dev_open_opts o = { .zone_blocks = 256, .excl = true,
					.direct = true };
	const char *dev = getenv("GAZE_ZDEV_TEST_BLKDEV");
	struct gaze_dev *d = NULL, *d2 = NULL;
	struct gaze_zone z;
	u8 *b;

	if (!dev) {
		tap_skip("set GAZE_ZDEV_TEST_BLKDEV=/dev/loopN to test a block device");
		return;
	}
	if (!tap_ok(gaze_dev_open(dev, &o, &d) == 0, "open %s", dev))
		return;
	tap_ok(d->nr_zones >= 8 && d->model == GAZE_ZM_EMULATED &&
	       d->lbs >= 512 && d->lbs <= BS,
	       "emulated zones: %u zones, lbs %u", d->nr_zones, d->lbs);
	tap_ok(gaze_dev_open(dev, &o, &d2) == -EBUSY && !d2,
	       "second exclusive open -EBUSY");
	b = malloc(2 * BS);
	pat_fill(b, 256, 2, 1);
	tap_ok(d->ops->reset(d, 1, 2) == 0, "reset (BLKDISCARD)");
	z = zone_of(d, 1);
	tap_ok(z.type == GAZE_ZT_SEQ && z.cond == GAZE_ZC_EMPTY,
	       "reset zone sequential EMPTY");
	tap_ok(d->ops->write(d, 257, 1, b) == -EIO &&
	       d->ops->write(d, 256, 2, b) == 0, "write pointer enforced");
	memset(b, 0, 2 * BS);
	tap_ok(d->ops->read(d, 256, 2, b) == 0 && pat_check(b, 256, 2, 1) &&
	       d->ops->flush(d) == 0, "read back, flush");
	free(b);
	gaze_dev_close(d);
}

int
main(void)
{
	test_errors();
	test_blkdev();
	test_default_zone_size();
	test_names();
	return tap_done();
}
