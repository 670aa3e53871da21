// SPDX-License-Identifier: GPL-2.0
/*
 * test_file.c - emulated zones on a regular (sparse) file.
 *
 * Why: image files are where most people first run mkfs.gaze and where
 * most tests run; the backend must give the documented geometry, leave
 * zones conventional until they are reset, then enforce a write pointer,
 * and reset a whole 1 TiB image in one cheap call.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zdev_tap.h"

static char dir[] = "/tmp/gaze-zdev-XXXXXX";
static char path[256];
static u8 buf[1024 * BS], rbuf[1024 * BS];
/* pattern I/O through these buffers */
#define wr(d, blk, nr, tag)		pat_write(buf, d, blk, nr, tag)
#define rd_check(d, blk, nr, tag)	pat_read(rbuf, d, blk, nr, tag)
#define rd_zero(d, blk, nr)		zero_read(rbuf, d, blk, nr)

static int
mkfile(const char *name, u64 bytes)
{
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)bytes) < 0) {
		int ret = -errno;

		close(fd);
		unlink(path);
		return ret;
	}
	close(fd);
	return 0;
}

/* what the file itself holds at a block, bypassing the backend */
static int
file_zero(u64 blk, u32 nr)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, rbuf, (size_t)nr * BS, (off_t)(blk * BS));
	close(fd);
	return n == (ssize_t)(nr * BS) && is_zero(rbuf, (size_t)nr * BS);
}

static void
test_geometry_and_conv(void)
{
	struct gaze_dev *d = NULL;
	struct gaze_zone z;
	u32 zb;

	mkfile("img", (64ull << 20) + 100 * 1024);	/* + a partial zone */
	tap_ok(gaze_dev_open(path, NULL, &d) == 0, "open 64 MiB sparse file");
	if (!d)
		return;
	zb = d->zone_blocks;
	tap_ok(zb == 512 && d->nr_zones == 32 && d->nr_blocks == 32 * 512 &&
	       d->zone_cap == zb && d->nr_conv == 0 && d->max_open == 0 &&
	       d->model == GAZE_ZM_EMULATED && d->ops->append == NULL,
	       "default geometry: 32 zones of 2 MiB, tail unused, emulated");
	z = zone_of(d, 5);
	tap_ok(z.type == GAZE_ZT_CONV && z.cond == GAZE_ZC_NOT_WP &&
	       z.start == 5 * zb && z.len == zb && z.cap == zb &&
	       z.wp == 6 * zb, "zones start conventional NOT_WP");
	tap_ok(wr(d, 5 * zb + 7, 1, 1) == 0 && wr(d, 5 * zb + 2, 1, 2) == 0 &&
	       rd_check(d, 5 * zb + 7, 1, 1) && rd_check(d, 5 * zb + 2, 1, 2),
	       "random writes to a NOT_WP zone");
	tap_ok(wr(d, 6 * zb - 2, 4, 3) == 0 && rd_check(d, 6 * zb - 2, 4, 3),
	       "write spanning two NOT_WP zones");
	tap_ok(d->ops->read(d, d->nr_blocks, 1, rbuf) == -EINVAL &&
	       wr(d, d->nr_blocks - 1, 2, 0) == -EINVAL,
	       "I/O past the last whole zone -EINVAL");
	tap_ok(d->ops->finish(d, 5) == -EIO, "finish of a NOT_WP zone -EIO");
	tap_ok(d->ops->flush(d) == 0, "flush");
	gaze_dev_close(d);
}

static void
test_reset_enforces(void)
{
	struct gaze_dev_open_opts o = { .zone_blocks = 256, .max_open = 2 };
	struct gaze_dev *d = NULL;
	struct gaze_zone z;
	struct stat st1, st2;
	u32 zb = 256;

	mkfile("img2", 16ull << 20);	/* 16 zones of 1 MiB */
	tap_ok(gaze_dev_open(path, &o, &d) == 0 && d->nr_zones == 16 &&
	       d->max_open == 2, "open with zone_blocks=256, max_open=2");
	if (!d)
		return;
	wr(d, 3 * zb, zb, 1);
	wr(d, 4 * zb, zb, 1);
	stat(path, &st1);
	tap_ok(d->ops->reset(d, 3, 3) == 0, "reset zones 3-5");
	stat(path, &st2);
	z = zone_of(d, 3);
	tap_ok(z.type == GAZE_ZT_SEQ && z.cond == GAZE_ZC_EMPTY &&
	       z.wp == 3 * zb, "reset zone becomes sequential EMPTY");
	tap_ok(zone_of(d, 2).type == GAZE_ZT_CONV &&
	       zone_of(d, 6).type == GAZE_ZT_CONV, "neighbours stay NOT_WP");
	tap_ok(rd_zero(d, 3 * zb, 2 * zb) && file_zero(3 * zb, 2 * zb) &&
	       st2.st_blocks + 2 * zb * 8 <= st1.st_blocks,
	       "reset punched a hole: data gone from the file (%lld -> %lld sectors)",
	       (long long)st1.st_blocks, (long long)st2.st_blocks);
	tap_ok(wr(d, 3 * zb + 1, 1, 1) == -EIO, "write off the wp -EIO");
	tap_ok(wr(d, 3 * zb, 10, 2) == 0 && zone_of(d, 3).cond == GAZE_ZC_IMP_OPEN &&
	       zone_of(d, 3).wp == 3 * zb + 10, "write at wp opens and advances");
	tap_ok(wr(d, 3 * zb + 5, 1, 2) == -EIO, "overwrite behind wp -EIO");
	tap_ok(rd_check(d, 3 * zb, 10, 2) && rd_zero(d, 3 * zb + 10, 1),
	       "data to wp, zeros after");
	tap_ok(wr(d, 3 * zb + 10, zb - 9, 2) == -EIO,
	       "write past the zone end -EIO");
	tap_ok(wr(d, 3 * zb + 10, zb - 10, 2) == 0 &&
	       zone_of(d, 3).cond == GAZE_ZC_FULL, "filled zone FULL");
	tap_ok(wr(d, 4 * zb, 1, 3) == 0 && wr(d, 5 * zb, 1, 3) == 0,
	       "two open zones");
	d->ops->reset(d, 3, 1);
	tap_ok(wr(d, 3 * zb, 1, 4) == 0 && zone_of(d, 4).cond == GAZE_ZC_CLOSED,
	       "max_open=2 enforced: third open closes the LRU zone");
	tap_ok(d->ops->finish(d, 5) == 0 && zone_of(d, 5).cond == GAZE_ZC_FULL &&
	       wr(d, 5 * zb + 1, 1, 3) == -EIO, "finish");
	tap_ok(d->ops->reset(d, 14, 3) == -EINVAL, "reset past end -EINVAL");
	gaze_dev_close(d);

	/* a new session forgets write pointers: zones are NOT_WP again */
	d = NULL;
	gaze_dev_open(path, NULL, &d);
	tap_ok(d && zone_of(d, 3).type == GAZE_ZT_CONV &&
	       rd_check(d, 3 * zb, 1, 4),
	       "reopened: zones NOT_WP again, data still there");
	gaze_dev_close(d);
}

static void
test_rdonly_direct(void)
{
	struct gaze_dev_open_opts ro = { .zone_blocks = 256, .rdonly = true };
	struct gaze_dev_open_opts dio = { .zone_blocks = 256, .direct = true };
	struct gaze_dev *d = NULL;
	u8 *odd = buf + 1;	/* deliberately misaligned */

	mkfile("img3", 8ull << 20);
	tap_ok(gaze_dev_open(path, &dio, &d) == 0, "open O_DIRECT");
	if (d) {
		pat_fill(rbuf, 10, 3, 5);
		memcpy(odd, rbuf, 3 * BS);
		tap_ok(d->ops->write(d, 10, 3, odd) == 0,
		       "O_DIRECT write from a misaligned buffer");
		memset(odd, 0, 3 * BS);
		tap_ok(d->ops->read(d, 10, 3, odd) == 0 &&
		       (memcpy(rbuf, odd, 3 * BS), pat_check(rbuf, 10, 3, 5)),
		       "O_DIRECT read into a misaligned buffer");
		gaze_dev_close(d);
	}
	d = NULL;
	tap_ok(gaze_dev_open(path, &ro, &d) == 0, "open read-only");
	if (!d)
		return;
	tap_ok(wr(d, 0, 1, 1) == -EROFS, "read-only: write -EROFS");
	tap_ok(d->ops->reset(d, 0, 1) == -EROFS, "read-only: reset -EROFS");
	tap_ok(d->ops->finish(d, 0) == -EROFS, "read-only: finish -EROFS");
	tap_ok(rd_check(d, 10, 3, 5), "read-only: read ok");
	gaze_dev_close(d);
}

static void
test_1tib_reset(void)
{
	struct gaze_dev *d = NULL;
	struct stat st;
	double t0, t1;
	int ok = 1, ret;
	u32 i, zb;

	ret = mkfile("big", 1ull << 40);
	if (ret) {
		tap_skip("cannot create a 1 TiB sparse file here");
		return;
	}
	tap_ok(gaze_dev_open(path, NULL, &d) == 0 && d->nr_zones == 4096 &&
	       d->zone_blocks == 65536, "1 TiB file: 4096 zones of 256 MiB");
	if (!d)
		goto out_unlink;
	zb = d->zone_blocks;
	for (i = 0; i < 4096; i += 512)
		ok &= wr(d, (u64)i * zb + 100, 16, i) == 0;
	tap_ok(ok, "scattered writes to NOT_WP zones");
	t0 = now_ms();
	ret = d->ops->reset(d, 0, 4096);
	t1 = now_ms();
	printf("# reset of all 4096 zones of a 1 TiB sparse file: %.3f ms\n",
	       t1 - t0);
	tap_ok(ret == 0, "reset of all 4096 zones (%.3f ms)", t1 - t0);
	stat(path, &st);
	ok = st.st_blocks == 0;
	for (i = 0; i < 4096; i += 512)
		ok &= rd_zero(d, (u64)i * zb + 100, 16) &&
		      zone_of(d, i).cond == GAZE_ZC_EMPTY;
	tap_ok(ok, "all zones EMPTY, data gone, file fully sparse");
	tap_ok(wr(d, 4095ull * zb, 1, 1) == 0 &&
	       wr(d, 4095ull * zb + 2, 1, 1) == -EIO,
	       "write pointer enforced on the last zone");
	gaze_dev_close(d);
out_unlink:
	unlink(path);
}

int
main(void)
{
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_geometry_and_conv();
	test_reset_enforces();
	test_rdonly_direct();
	test_1tib_reset();
	snprintf(path, sizeof(path), "%s/img", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/img2", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/img3", dir);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
