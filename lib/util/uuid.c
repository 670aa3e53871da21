// SPDX-License-Identifier: GPL-2.0
/*
 * uuid.c - UUIDs and random bytes for the tools.
 *
 * Why: filesystem UUIDs and directory hash seeds must be unpredictable and
 * parsed the same way everywhere (libuuid's syntax, which blkid prints).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <uuid/uuid.h>
#ifdef HAVE_SYS_RANDOM_H
#include <sys/random.h>
#endif

#include "gaze_util.h"

int
gaze_uuid_parse(const char *s, uint8_t uuid[16])
{
	uuid_t u;

	if (!s || strlen(s) != 36 || uuid_parse(s, u))
		return -EINVAL;
	memcpy(uuid, u, 16);
	return 0;
}

void
gaze_uuid_unparse(const uint8_t uuid[16], char *buf)
{
	uuid_unparse_lower(uuid, buf);
}

void
gaze_uuid_generate(uint8_t uuid[16])
{
	uuid_t u;

	uuid_generate_random(u);
	memcpy(uuid, u, 16);
}

bool
gaze_uuid_is_null(const uint8_t uuid[16])
{
	return uuid_is_null(uuid);
}

static int
urandom_read(uint8_t *p, size_t len)
{
	int fd, ret = 0;

	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	close(fd);
	return ret;
}

int
gaze_random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;

#ifdef HAVE_GETRANDOM
	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return urandom_read(p, len);
		p += n;
		len -= (size_t)n;
	}
	return 0;
#else
	return urandom_read(p, len);
#endif
}
