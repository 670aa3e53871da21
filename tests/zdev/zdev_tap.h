/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zdev_tap.h - the data-pattern and zone helpers the lib/zdev tests
 * share, and the TAP helpers of all tests (../tap.h).  Why: each test is
 * one small program printing TAP; a shared pattern lets every test check
 * block contents the same way.
 */
#ifndef GAZE_ZDEV_TAP_H
#define GAZE_ZDEV_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gaze_zdev.h"
#include "../tap.h"

#define BS 4096u

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

/* writes pattern tag to blocks [blk, blk + nr) of d, through buf */
static inline int
pat_write(void *buf, struct gaze_dev *d, u64 blk, u32 nr, u64 tag)
{
	pat_fill(buf, blk, nr, tag);
	return d->ops->write(d, blk, nr, buf);
}

/* do blocks [blk, blk + nr) of d read (into buf) as pattern tag? */
static inline int
pat_read(void *buf, struct gaze_dev *d, u64 blk, u32 nr, u64 tag)
{
	return !d->ops->read(d, blk, nr, buf) && pat_check(buf, blk, nr, tag);
}

/* do blocks [blk, blk + nr) of d read (into buf) as zeros? */
static inline int
zero_read(void *buf, struct gaze_dev *d, u64 blk, u32 nr)
{
	return !d->ops->read(d, blk, nr, buf) && is_zero(buf, (size_t)nr * BS);
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
