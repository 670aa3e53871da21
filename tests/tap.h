/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the TAP helpers every C test program shares: numbered
 * "ok N - desc" / "not ok N - desc" lines (flushed, so that a crash or a
 * fork loses none), "# ..." diagnostics, skips, and the plan printed at
 * the end by tap_done(), whose return value is the exit status: non-zero
 * when anything failed.
 */
#ifndef GAZE_TEST_TAP_H
#define GAZE_TEST_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count;
static int tap_failed;

/* one test: passes when cond is non-zero; returns cond */
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
	fflush(stdout);
	return cond;
}

/*
 * A step a test depends on that must succeed (a setup write, a sync):
 * a failure is reported with where and what, and fails the program.
 * Returns the step's result.
 */
static inline int
tap_must_(long r, const char *what, const char *file, int line)
{
	if (r) {
		printf("# %s:%d: %s returned %ld\n", file, line, what, r);
		fflush(stdout);
		tap_failed++;
	}
	return (int)r;
}
#define TAP_MUST(e) tap_must_((long)(e), #e, __FILE__, __LINE__)

/* a test that cannot run here: counted as passed */
static inline void
tap_skip(const char *why)
{
	printf("ok %d - # SKIP %s\n", ++tap_count, why);
}

__attribute__((format(printf, 1, 2)))
static inline void
tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* prints the plan; returns the exit status of the test program */
static inline int
tap_done(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* GAZE_TEST_TAP_H */
