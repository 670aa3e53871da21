/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zdev_tap.h - the few TAP and data-pattern helpers the lib/zdev tests
 * share.  Why: each test is one small program printing TAP; a shared
 * pattern lets every test check block contents the same way.
 */
#ifndef GAZE_ZDEV_TAP_H
#define GAZE_ZDEV_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gaze_zdev.h"

#define BS 4096u

static int tap_n, tap_failed;

static inline __attribute__((format(printf, 2, 3))) int
tap_ok(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failed++;
	return ok;
}

static inline void
tap_skip(const char *why)
{
	printf("ok %d - # SKIP %s\n", ++tap_n, why);
}

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* Block blk of pattern tag: every u64 is tag ^ blk ^ index. */
static inline void
pat_fill(void *buf, u64 blk, u32 nr, u64 tag)
{
	u64 *p = buf;
	u32 i, j;

	for (i = 0; i < nr; i++)
		for (j = 0; j < BS / 8; j++)
			p[(size_t)i * (BS / 8) + j] = tag ^ ((blk + i) << 16) ^ j;
}

static inline int
pat_check(const void *buf, u64 blk, u32 nr, u64 tag)
{
	const u64 *p = buf;
	u32 i, j;

	for (i = 0; i < nr; i++)
		for (j = 0; j < BS / 8; j++)
			if (p[(size_t)i * (BS / 8) + j] !=
			    (tag ^ ((blk + i) << 16) ^ j))
				return 0;
	return 1;
}

static inline int
is_zero(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

static inline double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline struct gaze_zone
zone_of(struct gaze_dev *d, u32 zone)
{
	struct gaze_zone z;

	memset(&z, 0, sizeof(z));
	if (d->ops->report(d, zone, 1, &z) != 1)
		z.cond = 0;
	return z;
}

#endif /* GAZE_ZDEV_TAP_H */
