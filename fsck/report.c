// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - what fsck.gaze tells: the problem table (problem.h), the
 * lines of the transcript, operational errors and progress.
 *
 * Every line goes through fsck_vmsg: printed on f->o.out, or with --json
 * kept for the "messages" and "problems_list" arrays, so the JSON holds
 * exactly the transcript a run without --json prints.
 *
 * Progress follows e2fsck's -C: on a file descriptor other than 0 one
 * line "pass current max device" per step (what fsck(8) and front ends
 * read); on 0 a completion bar on standard output, over all three passes
 * (pass 1 the first 70%, pass 2 up to 90%, pass 3 the rest, as e2fsck
 * weighs its passes), cleared before any other line is printed.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsck.h"

const struct fsck_problem_desc fsck_problems[FSCK_NR_PROBLEMS] = {
#define FSCK_PR_DESC(n, nm, ps, pr) \
	[PR_##nm] = { .num = n, .pass = ps, .preen = pr, .name = #nm },
	FSCK_PROBLEMS(FSCK_PR_DESC)
#undef FSCK_PR_DESC
};

/* a number outside its pass's hundred would mislead whoever reads it */
#define FSCK_PR_PASS(num, nm, ps, pr) \
	_Static_assert((num) / 100 == (ps) && (num) > 0 && (num) < 10000, \
		       "problem " #nm ": number not in its pass's hundred");
FSCK_PROBLEMS(FSCK_PR_PASS)
#undef FSCK_PR_PASS

/* never called: a number used twice is a duplicate case, a build error */
static inline void __attribute__((unused))
fsck_problem_numbers_unique(int n)
{
	switch (n) {
#define FSCK_PR_CASE(num, nm, ps, pr)	case num:
	FSCK_PROBLEMS(FSCK_PR_CASE)
#undef FSCK_PR_CASE
		break;
	}
}

static void
msg_keep(struct fsck *f, const char *text, int pr)
{
	struct fsck_msg *m;
	size_t cap;

	if (f->nr_msgs >= FSCK_MAX_MSGS) {
		f->msgs_dropped++;
		return;
	}
	if (f->nr_msgs == f->cap_msgs) {
		cap = f->cap_msgs ? f->cap_msgs * 2 : 64;
		m = realloc(f->msgs, cap * sizeof(*m));
		if (!m)
			goto drop;
		f->msgs = m;
		f->cap_msgs = cap;
	}
	m = &f->msgs[f->nr_msgs];
	m->text = strdup(text);
	if (!m->text)
		goto drop;
	m->pr = pr;
	f->nr_msgs++;
	return;
drop:
	f->msgs_dropped++;
}

static void
fsck_vmsg(struct fsck *f, int pr, const char *fmt, va_list ap)
{
	char buf[600];
	int n = 0;

	if (pr >= 0)
		n = snprintf(buf, sizeof(buf), "[GZ%04u %s] ",
			     fsck_problems[pr].num, fsck_problems[pr].name);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	if (f->o.json) {
		msg_keep(f, buf, pr);
		return;
	}
	fsck_progress_end(f);
	fprintf(f->o.out, "%s\n", buf);
}

void
fsck_problem(struct fsck *f, enum fsck_pr pr, const char *fmt, ...)
{
	va_list ap;

	f->problems++;
	if (!fsck_problems[pr].preen)
		f->unsafe++;
	va_start(ap, fmt);
	fsck_vmsg(f, (int)pr, fmt, ap);
	va_end(ap);
}

void
fsck_note(struct fsck *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fsck_vmsg(f, -1, fmt, ap);
	va_end(ap);
}

void
fsck_info(struct fsck *f, const char *fmt, ...)
{
	va_list ap;

	if (!f->o.verbose)
		return;
	va_start(ap, fmt);
	fsck_vmsg(f, -1, fmt, ap);
	va_end(ap);
}

/* the first operational error is the one --json gives as "error" */
void
fsck_fail(struct fsck *f, const char *fmt, ...)
{
	char buf[sizeof(f->error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fsck_progress_end(f);
	fflush(f->o.out);
	fprintf(stderr, "fsck.gaze: %s: %s\n", f->name, buf);
	if (!f->failed)
		memcpy(f->error, buf, sizeof(buf));
	f->failed = true;
}

void
fsck_msgs_free(struct fsck *f)
{
	size_t i;

	for (i = 0; i < f->nr_msgs; i++)
		free(f->msgs[i].text);
	free(f->msgs);
	f->msgs = NULL;
	f->nr_msgs = 0;
	f->cap_msgs = 0;
}

/* ---------------------------------------------------------------- */
/* Progress                                                          */
/* ---------------------------------------------------------------- */

/* where each pass's share of the bar ends, in percent */
static const unsigned int pass_end[4] = { 0, 70, 90, 100 };

static int
bar_width(const struct fsck *f)
{
	int w = 66 - (int)strlen(f->name);

	return w < 10 ? 10 : w;
}

static u64
tick_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 8 + (u64)ts.tv_nsec / 125000000;
}

/* e2fsck's bar: "device: |=====      / 41.7%" */
static void
progress_bar(struct fsck *f, unsigned int permille)
{
	static const char spin[4] = { '|', '/', '-', '\\' };
	char bar[128];
	int w = bar_width(f), fill;
	u64 tick = tick_now();

	/* a screen needs no more than 8 updates a second */
	if (tick == f->prog_tick && permille && permille != 1000)
		return;
	f->prog_tick = tick;
	fill = (int)((permille * (unsigned int)w + 500) / 1000);
	memset(bar, '=', sizeof(bar));
	printf("%s: |%.*s%*s%c %4.1f%%  \r", f->name, fill, bar, w - fill, "",
	       permille == 1000 ? '|' : spin[f->prog_spin++ & 3],
	       permille / 10.0);
	fflush(stdout);
	f->prog_shown = true;
}

/*
 * fsck(8)'s protocol, as e2fsck writes it.  A phase keeps the max of its
 * first step (pass 1 ends with 1 of 1), so a reader's fraction only grows.
 */
static void
progress_line(struct fsck *f, unsigned int pass, u64 done, u64 total)
{
	char buf[64 + PATH_MAX];
	ssize_t n, off = 0;
	int len;

	if (total != f->prog_max)
		done = done * f->prog_max / total;
	len = snprintf(buf, sizeof(buf), "%u %llu %llu %s\n", pass,
		       (unsigned long long)done,
		       (unsigned long long)f->prog_max, f->name);
	if (len < 0 || (size_t)len >= sizeof(buf))
		return;
	while (off < len) {
		n = write(f->o.progress_fd, buf + off, (size_t)(len - off));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* the reader went away: stop, keep checking */
			f->o.progress = false;
			return;
		}
		off += n;
	}
}

void
fsck_progress(struct fsck *f, const char *phase, u64 done, u64 total)
{
	unsigned int pass, permille;

	if (f->o.poll)
		f->o.poll(f);
	if (!f->o.progress || f->o.progress_hidden || !total)
		return;
	/* called for every node: the name is parsed once per phase */
	if (phase != f->prog_phase) {
		f->prog_phase = phase;
		f->prog_last = -1;
		if (sscanf(phase, "pass %u", &pass) != 1 || pass > 3)
			pass = 0;
		f->prog_pass = pass;
		f->prog_max = total;
	}
	pass = f->prog_pass;
	if (!pass)
		return;
	done = min(done, total);
	permille = (unsigned int)(done * 1000 / total);
	if ((int)permille == f->prog_last)
		return;
	f->prog_last = (int)permille;
	if (f->o.progress_fd > 0) {
		progress_line(f, pass, done, total);
		return;
	}
	progress_bar(f, pass_end[pass - 1] * 10 +
		     (pass_end[pass] - pass_end[pass - 1]) * permille / 100);
}

void
fsck_progress_end(struct fsck *f)
{
	if (!f->prog_shown)
		return;
	f->prog_shown = false;
	printf("\r%*s\r", (int)strlen(f->name) + bar_width(f) + 14, "");
	fflush(stdout);
}
