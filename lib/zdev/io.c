// SPDX-License-Identifier: GPL-2.0
/*
 * io.c - the one pread/pwrite loop of the file and zbd backends.
 *
 * Why: pread/pwrite may transfer less than asked or be interrupted, and
 * O_DIRECT (always used on zoned devices) rejects buffers that are not
 * aligned; callers of gaze_dev_ops pass any buffer.  Doing this once here
 * keeps both backends small and the error handling identical.
 */
#include <stdlib.h>
#include <unistd.h>

#include "zdev_int.h"

#define ZDEV_BOUNCE_MAX		(1u << 20)	/* bounce in 1 MiB pieces */

static int
zdev_pio_plain(int fd, bool write, char *buf, size_t len, u64 off)
{
	while (len) {
		ssize_t n;

		if (write)
			n = pwrite(fd, buf, len, (off_t)off);
		else
			n = pread(fd, buf, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;	/* end of file / device */
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

static int
zdev_pio_bounce(int fd, bool write, char *buf, size_t len, u64 off)
{
	size_t blen = min_t(size_t, len, ZDEV_BOUNCE_MAX);
	void *bounce;
	int ret = 0;

	if (posix_memalign(&bounce, GAZE_ZDEV_BLOCK, blen))
		return -ENOMEM;
	while (len) {
		size_t n = min(len, blen);

		if (write)
			memcpy(bounce, buf, n);
		ret = zdev_pio_plain(fd, write, bounce, n, off);
		if (ret)
			break;
		if (!write)
			memcpy(buf, bounce, n);
		buf += n;
		len -= n;
		off += n;
	}
	free(bounce);
	return ret;
}

int
gaze_zdev_pio(int fd, bool write, void *buf, size_t len, u64 off, bool direct)
{
	if (direct && ((uintptr_t)buf & (GAZE_ZDEV_BLOCK - 1)))
		return zdev_pio_bounce(fd, write, buf, len, off);
	return zdev_pio_plain(fd, write, buf, len, off);
}
