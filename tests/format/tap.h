/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the few TAP helpers the format unit tests share: numbered
 * "ok N - desc" / "not ok N - desc" lines, a plan printed at the end,
 * and an exit status that is non-zero when anything failed.
 */
#ifndef GAZE_TEST_TAP_H
#define GAZE_TEST_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count;
static int tap_failed;

__attribute__((format(printf, 2, 3)))
static inline int
tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return cond;
}

static inline void
tap_diag(const char *msg)
{
	printf("# %s\n", msg);
}

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* GAZE_TEST_TAP_H */
