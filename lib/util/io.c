// SPDX-License-Identifier: GPL-2.0
/*
 * io.c - whole reads and writes, and the error message of the tree
 * walkers.
 *
 * Why: read(2) and write(2) may do less than asked or be interrupted;
 * every tool that copies data must loop the same way.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "gaze_util.h"

int
gaze_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int
gaze_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = pwrite(fd, p, len, off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

ssize_t
gaze_pread_full(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, p + done, len - done, off + done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

void
gaze_vwarn_path(const char *prog, const char *path, const char *reason,
		const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	gaze_quote_fput(stderr, path, strlen(path));
	fputs(": ", stderr);
	if (fmt) {
		vfprintf(stderr, fmt, ap);
		fputs(": ", stderr);
	}
	fprintf(stderr, "%s\n", reason);
}
