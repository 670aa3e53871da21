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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

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

/*
 * Whether case i (0-based) of a long case list runs here: with
 * GAZE_TEST_SHARE=K/N, every Nth case from the Kth; unset, all.
 * scripts/test-all.sh gives two builds complementary shares (0/2 and
 * 1/2), so CI runs each case once; a case left out is only a "#" line,
 * neither passed nor skipped.
 */
static inline bool
tap_share(unsigned int i)
{
	const char *s = getenv("GAZE_TEST_SHARE");
	unsigned long k, n;
	char *end;

	if (!s || !*s)
		return true;
	k = strtoul(s, &end, 10);
	if (*end != '/' || !(n = strtoul(end + 1, &end, 10)) || *end || k >= n) {
		printf("# GAZE_TEST_SHARE=%s is not K/N with K < N: every case runs\n",
		       s);
		return true;
	}
	if (i % n == k)
		return true;
	printf("# case %u left to the other shares (GAZE_TEST_SHARE=%s)\n",
	       i, s);
	return false;
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
