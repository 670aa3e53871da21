// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the fsck.gaze command line.
 *
 *   fsck.gaze [-n|-p|-a|-y] [-f] [-v] [-C [FD]] [--json] DEVICE|IMAGE
 *
 * Exit status is the fsck(8) bitmask: 0 clean, 1 errors fixed, 4 errors
 * left, 8 operational error, 16 usage error, 32 interrupted.
 *
 * Refusals come first and write nothing: a device mounted read-write is
 * never checked; one mounted read-only only with -n; an image another
 * program holds locked (mkfs.gaze, a repair; gaze_dev_lock) not at all.
 * -n (and no mode at
 * all: fsck.gaze never asks questions) opens the device read-only, so
 * nothing can be written.  Without -f, a filesystem whose last
 * checkpoint is a clean unmount is reported clean after reading only
 * the superblocks and checkpoints.  After a repair the filesystem is
 * checked again, and whatever is still wrong is reported (exit 4 on top
 * of 1).
 *
 * Signals: SIGINT and SIGTERM end the run at the next progress point of
 * the check (exit 32, plus 1 when a replay or repair was committed); the
 * writes of a replay or a repair hold them until the commit, so a run
 * never stops half way through a repair.  A second signal while nothing
 * is being written ends the run at once.  SIGUSR1 and SIGUSR2 show and
 * hide progress, as for e2fsck.
 *
 * --json prints one object on standard output whatever happens, usage
 * errors included once --json was seen; its counts are those of the
 * transcript a run without --json prints (report.c keeps the lines).
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsck.h"
#include "gaze_zdev.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

struct main_opts {
	struct fsck_opts	o;
	const char		*device;
	int			nmodes;
	bool			progress_given;	/* -C */
};

/* one run per process: the signal path reports it from anywhere */
struct run {
	struct main_opts	m;
	struct fsck		f;
	struct gaze_dev		*dev;
	int			status;
	u64			remaining;	/* after a repair */
	bool			remaining_known;
	bool			checked;	/* a verdict on the filesystem */
	bool			clean_exit;	/* the fast clean exit */
	bool			repaired;
	const char		*stage;		/* for an interruption */
};

static struct run run;

static volatile sig_atomic_t stop_sig;	/* SIGINT or SIGTERM seen */
static volatile sig_atomic_t holding;	/* writes: a stop waits for them */
static volatile sig_atomic_t committed;	/* FSCK_EXIT_FIXED once durable */
static volatile sig_atomic_t prog_sig;	/* SIGUSR1/SIGUSR2 not yet applied */
static const char *test_signal_at;	/* GAZE_TEST_FSCK_SIGNAL, read once */

/* for a second signal: its message, and the JSON object but its end */
static char quick_msg[PATH_MAX + 128];
static size_t quick_msg_len;
static char quick_json[PATH_MAX * 6 + 128];
static size_t quick_json_len;

static void
usage(FILE *out)
{
	fputs("Usage: fsck.gaze [-n|-p|-a|-y] [-f] [-v] [-C [FD]] [--json] DEVICE|IMAGE\n"
	      "Check and repair a GAZE filesystem.\n\n"
	      "  -n, --no          check only, open read-only, never write (the default)\n"
	      "  -p, -a, --preen   fix what is safe without asking; exit 4 if more is wrong\n"
	      "  -y, --yes         fix everything that can be fixed\n"
	      "  -f, --force       check even if the filesystem was cleanly unmounted\n"
	      "  -b, --checkpoint-back N\n"
	      "                    1: check (and with -y repair from) the checkpoint\n"
	      "                    before the newest; 0: the newest (the default)\n"
	      "  -v, --verbose     say more\n"
	      "  -C [FD]           progress: 0 (the default) a bar on standard output,\n"
	      "                    FD > 0 fsck(8)'s lines \"pass current max device\"\n"
	      "      --json        print the result as JSON on standard output\n"
	      "  -h, --help        this help\n"
	      "  -V, --version     print the version\n\n"
	      "Exit status: 0 clean, 1 errors fixed, 4 errors left uncorrected,\n"
	      "8 operational error, 16 usage error, 32 interrupted.\n", out);
}

static const char *
mode_name(int mode)
{
	return mode == FSCK_MODE_CHECK ? "check" :
	       mode == FSCK_MODE_PREEN ? "preen" : "repair";
}

static const char *
result_name(int status)
{
	if (status & FSCK_EXIT_CANCELED)
		return "interrupted";
	if (status & (FSCK_EXIT_ERROR | FSCK_EXIT_USAGE))
		return "error";
	if (status & FSCK_EXIT_UNCORRECTED)
		return "errors";
	return status & FSCK_EXIT_FIXED ? "fixed" : "clean";
}

static void
print_json(struct run *r)
{
	struct fsck *f = &r->f;
	struct gaze_json j;
	char uuid[GAZE_UUID_STR_LEN];
	u64 fixed = 0;
	size_t i;

	if (r->repaired && r->remaining_known && f->problems > r->remaining)
		fixed = f->problems - r->remaining;
	gaze_json_init(&j, stdout, true);
	gaze_json_obj_begin(&j, NULL);
	if (r->m.device)
		gaze_json_str(&j, "device", r->m.device);
	else
		gaze_json_null(&j, "device");
	if (!gaze_uuid_is_null(f->uuid)) {
		/* the uuid users see (f->uuid: the one headers carry) */
		gaze_uuid_unparse(f->sb.hdr.uuid, uuid);
		gaze_json_str(&j, "uuid", uuid);
	}
	gaze_json_str(&j, "mode", mode_name(r->m.o.mode));
	gaze_json_str(&j, "result", result_name(r->status));
	gaze_json_u64(&j, "exit_code", (u64)r->status);
	if (f->error[0])
		gaze_json_str(&j, "error", f->error);
	gaze_json_u64(&j, "checkpoint_seq", f->cp_seq);
	gaze_json_bool(&j, "checkpoint_fallback", f->cp_fallback);
	gaze_json_u64(&j, "problems", f->problems);
	gaze_json_u64(&j, "problems_unsafe", f->unsafe);
	gaze_json_u64(&j, "problems_fixed", fixed);
	if (!r->repaired)
		gaze_json_u64(&j, "problems_remaining", f->problems);
	else if (r->remaining_known)
		gaze_json_u64(&j, "problems_remaining", r->remaining);
	else
		gaze_json_null(&j, "problems_remaining");
	gaze_json_u64(&j, "fixes", f->fixed);
	gaze_json_obj_begin(&j, "counts");
	gaze_json_u64(&j, "inodes", f->st.inodes);
	gaze_json_u64(&j, "directories", f->st.dirs);
	gaze_json_u64(&j, "regular_files", f->st.files);
	gaze_json_u64(&j, "symlinks", f->st.symlinks);
	gaze_json_u64(&j, "special_files", f->st.others);
	gaze_json_u64(&j, "map_and_xattr_nodes", f->st.nodes);
	gaze_json_u64(&j, "data_blocks", f->st.data_blocks);
	gaze_json_u64(&j, "directory_blocks", f->st.dir_blocks);
	gaze_json_u64(&j, "valid_blocks", f->st.valid_blocks);
	gaze_json_obj_end(&j);
	gaze_json_arr_begin(&j, "problems_list");
	for (i = 0; i < f->nr_msgs; i++) {
		const struct fsck_msg *m = &f->msgs[i];
		const struct fsck_problem_desc *d;
		char code[8];

		if (m->pr < 0)
			continue;
		d = &fsck_problems[m->pr];
		snprintf(code, sizeof(code), "GZ%04u", d->num);
		gaze_json_obj_begin(&j, NULL);
		gaze_json_str(&j, "code", code);
		gaze_json_str(&j, "name", d->name);
		gaze_json_u64(&j, "pass", d->pass);
		gaze_json_bool(&j, "preen", d->preen);
		gaze_json_str(&j, "message", strstr(m->text, "] ") + 2);
		gaze_json_obj_end(&j);
	}
	gaze_json_arr_end(&j);
	gaze_json_arr_begin(&j, "messages");
	for (i = 0; i < f->nr_msgs; i++)
		gaze_json_str(&j, NULL, f->msgs[i].text);
	gaze_json_arr_end(&j);
	gaze_json_u64(&j, "messages_dropped", f->msgs_dropped);
	gaze_json_obj_end(&j);
	gaze_json_finish(&j);
	fflush(stdout);
}

static void
print_summary(struct fsck *f, const char *dev)
{
	fsck_note(f, "%s: %llu inodes (%llu directories, %llu files, %llu symlinks, %llu other), %llu of %llu blocks in use",
		  dev, (unsigned long long)f->st.inodes,
		  (unsigned long long)f->st.dirs,
		  (unsigned long long)f->st.files,
		  (unsigned long long)f->st.symlinks,
		  (unsigned long long)f->st.others,
		  (unsigned long long)f->st.valid_blocks,
		  (unsigned long long)le64_to_cpu(f->sb.user_blocks));
}

/* the last line of a run that found problems: the counts --json gives */
static void
print_counts(struct run *r)
{
	struct fsck *f = &r->f;
	unsigned long long found = f->problems, fixed = 0;

	if (!found)
		return;
	if (!r->repaired) {
		fsck_note(f, "%s: %llu problem%s found, 0 fixed, %llu left%s",
			  r->m.device, found, found == 1 ? "" : "s", found,
			  r->m.o.mode == FSCK_MODE_CHECK ?
			  " (check only: nothing changed)" : "");
		return;
	}
	if (!r->remaining_known) {
		fsck_note(f, "%s: %llu problem%s found; the check after the repair did not finish",
			  r->m.device, found, found == 1 ? "" : "s");
		return;
	}
	if (found > r->remaining)
		fixed = found - r->remaining;
	fsck_note(f, "%s: %llu problem%s found, %llu fixed, %llu left",
		  r->m.device, found, found == 1 ? "" : "s", fixed,
		  (unsigned long long)r->remaining);
}

/* the end of every run: the report, and the exit status */
static void __attribute__((noreturn))
finish(struct run *r)
{
	struct fsck *f = &r->f;

	holding = 1;	/* a second signal would cut the report short */
	fsck_progress_end(f);
	r->status |= committed;
	if (r->checked && !r->clean_exit && !f->fatal &&
	    !(r->status & FSCK_EXIT_ERROR))
		print_summary(f, r->m.device);
	print_counts(r);
	if (r->m.o.json)
		print_json(r);
	fflush(stdout);
	fsck_fini(f);
	gaze_dev_close(r->dev);
	exit(r->status);
}

/*
 * One line on stderr, naming what was wrong, and with --json anywhere on
 * the command line the JSON object too.
 */
static int __attribute__((format(printf, 2, 3)))
usage_error(struct run *r, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fsck.gaze: %s; try 'fsck.gaze --help'\n", buf);
	if (r->m.o.json) {
		snprintf(r->f.error, sizeof(r->f.error), "%s", buf);
		r->status = FSCK_EXIT_USAGE;
		print_json(r);
	}
	return FSCK_EXIT_USAGE;
}

static const struct option long_opts[] = {
	{ "no", no_argument, NULL, 'n' },
	{ "preen", no_argument, NULL, 'p' },
	{ "yes", no_argument, NULL, 'y' },
	{ "force", no_argument, NULL, 'f' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "json", no_argument, NULL, 'J' },
	{ "checkpoint-back", required_argument, NULL, 'b' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

/*
 * getopt says '?' for an unknown, an ambiguous and a long option given
 * an argument alike; optopt is 0 for the first two when they are long,
 * and a long option always ends its argument, so argv[optind - 1] is it.
 */
static int
bad_option(struct run *r, const char *arg)
{
	const struct option *o;
	size_t len = strcspn(arg, "=");
	bool lng = arg[0] == '-' && arg[1] == '-';
	int n = 0;

	if (optopt && lng && arg[len])
		return usage_error(r, "option '%.*s' takes no argument",
				   (int)len, arg);
	if (optopt)
		return usage_error(r, "unknown option '-%c'", optopt);
	for (o = long_opts; lng && o->name; o++)
		if (len > 2 && !strncmp(o->name, arg + 2, len - 2))
			n++;
	return usage_error(r, "%s option '%.*s'",
			   n > 1 ? "ambiguous" : "unknown", (int)len, arg);
}

/* an fd for -C: digits, a leading '-' for progress held until SIGUSR1 */
static bool
is_fd_arg(const char *s)
{
	if (*s == '-')
		s++;
	return *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 10;
}

/*
 * -C takes its fd attached (-C3) or as the next argument (-C 3), as
 * fsck(8) and e2fsck write it; -C alone, before a device, means 0.
 */
static int
progress_arg(struct run *r, int argc, char **argv)
{
	struct main_opts *m = &r->m;
	const char *a = optarg;
	int fd;

	if (!a && optind < argc && is_fd_arg(argv[optind]))
		a = argv[optind++];
	if (a && !is_fd_arg(a))
		return usage_error(r, "-C takes a file descriptor number, not '%s'", a);
	fd = a ? atoi(a) : 0;
	m->o.progress = true;
	m->o.progress_hidden = fd < 0;
	m->o.progress_fd = abs(fd);
	m->progress_given = true;
	if (m->o.progress_fd > 0 && fcntl(m->o.progress_fd, F_GETFD) < 0)
		return usage_error(r, "-C %s: file descriptor %d is not open",
				   a, m->o.progress_fd);
	return 0;
}

static void
json_asked(struct run *r, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			r->m.o.json = true;
}

static int
parse_args(struct run *r, int argc, char **argv)
{
	struct main_opts *m = &r->m;
	int c, ret;

	m->o.mode = FSCK_MODE_CHECK;
	json_asked(r, argc, argv);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "npayfvb:C::hV", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'b':
			/* only the two generations a mount may fall back to */
			if (strcmp(optarg, "0") && strcmp(optarg, "1"))
				return usage_error(r, "-b takes 0 (the newest checkpoint) or 1 (the one before it), not '%s'",
						   optarg);
			m->o.cp_prev = optarg[0] == '1';
			break;
		case 'n':
			m->o.mode = FSCK_MODE_CHECK;
			m->nmodes |= 1;
			break;
		case 'p':
		case 'a':
			m->o.mode = FSCK_MODE_PREEN;
			m->nmodes |= 2;
			break;
		case 'y':
			m->o.mode = FSCK_MODE_YES;
			m->nmodes |= 4;
			break;
		case 'f':
			m->o.force = true;
			break;
		case 'v':
			m->o.verbose = true;
			break;
		case 'C':
			ret = progress_arg(r, argc, argv);
			if (ret)
				return ret;
			break;
		case 'J':
			m->o.json = true;
			break;
		case 'h':
			usage(stdout);
			exit(FSCK_EXIT_OK);
		case 'V':
			printf("fsck.gaze (gaze) %s\n", PACKAGE_VERSION);
			exit(FSCK_EXIT_OK);
		default:
			return bad_option(r, argv[optind - 1]);
		}
	}
	if (m->nmodes & (m->nmodes - 1))
		return usage_error(r, "only one of -n, -p/-a and -y may be given");
	if (optind >= argc)
		return usage_error(r, "no device or image given");
	if (optind + 1 < argc)
		return usage_error(r, "only one device or image may be given, not '%s' too",
				   argv[optind + 1]);
	m->device = argv[optind];
	/* a bar on standard output would break the JSON there */
	if (m->o.json && m->o.progress && !m->o.progress_fd)
		m->o.progress = false;
	if (!m->progress_given && !m->o.json && isatty(STDERR_FILENO) &&
	    isatty(STDOUT_FILENO))
		m->o.progress = true;
	return 0;
}
/*
 * Mount state: 0 not mounted, 1 mounted read-only, 2 read-write, or a
 * negative errno.  gaze_mount_check finds the mount; its options come
 * from the same table (field 6 of mountinfo, "ro" or "rw" first).
 */
static int
mount_state(const char *dev, char *where, size_t len)
{
	const char *path = getenv("GAZE_TEST_MOUNTINFO");
	char *line = NULL, mp[PATH_MAX], opts[256];
	size_t cap = 0;
	int ret, state = 2;
	FILE *fp;

	ret = gaze_mount_check(dev, where, len);
	if (ret <= 0)
		return ret;
	fp = fopen(path && *path ? path : "/proc/self/mountinfo", "re");
	if (!fp)
		return 2;
	while (getline(&line, &cap, fp) > 0) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s %255s", mp, opts) != 2)
			continue;
		if (strcmp(mp, where))
			continue;
		state = (!strncmp(opts, "ro", 2) &&
			 (opts[2] == ',' || !opts[2])) ? 1 : 2;
	}
	free(line);
	fclose(fp);
	return state;
}


/* ---------------------------------------------------------------- */
/* Signals                                                           */
/* ---------------------------------------------------------------- */

static void
put(int fd, const char *s, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, s, len);
		if (n <= 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/*
 * The first SIGINT or SIGTERM is only noted: the run stops at the next
 * progress point, with its report.  A second one ends it here, unless a
 * replay or repair is writing (holding): then the writes finish first,
 * and the filesystem is left as the commit made it.
 */
static void
on_stop(int sig)
{
	int code = FSCK_EXIT_CANCELED | committed;
	char tail[64];
	int n;

	if (!stop_sig || holding) {
		if (!stop_sig)
			stop_sig = sig;
		return;
	}
	put(STDERR_FILENO, quick_msg, quick_msg_len);
	if (quick_json_len) {
		/* snprintf is not async-signal-safe; two digits are enough */
		memcpy(tail, "\"exit_code\": ", 13);
		n = 13;
		tail[n++] = (char)('0' + code / 10);
		tail[n++] = (char)('0' + code % 10);
		memcpy(tail + n, "\n}\n", 3);
		n += 3;
		put(STDOUT_FILENO, quick_json, quick_json_len);
		put(STDOUT_FILENO, tail, (size_t)n);
	}
	_exit(code);
}

static void
on_progress_signal(int sig)
{
	prog_sig = sig;
}

/* what a second signal prints: made here, as a handler cannot format */
static void
quick_init(struct run *r)
{
	struct gaze_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int n;

	n = snprintf(quick_msg, sizeof(quick_msg),
		     "fsck.gaze: %s: interrupted again; stopped at once\n",
		     r->m.device);
	quick_msg_len = n > 0 && (size_t)n < sizeof(quick_msg) ? (size_t)n : 0;
	if (!r->m.o.json)
		return;
	mem = open_memstream(&buf, &len);
	if (!mem)
		return;
	gaze_json_init(&j, mem, true);
	gaze_json_obj_begin(&j, NULL);
	gaze_json_str(&j, "device", r->m.device);
	gaze_json_str(&j, "mode", mode_name(r->m.o.mode));
	gaze_json_str(&j, "result", "interrupted");
	gaze_json_str(&j, "error", "interrupted again: stopped at once, without counts");
	fclose(mem);
	/* the writer puts the separator before the next key: add it */
	if (buf && len + 4 < sizeof(quick_json)) {
		memcpy(quick_json, buf, len);
		memcpy(quick_json + len, ",\n  ", 4);
		quick_json_len = len + 4;
	}
	free(buf);
}

static void
signals_init(struct run *r)
{
	struct sigaction sa;

	quick_init(r);
	test_signal_at = getenv("GAZE_TEST_FSCK_SIGNAL");
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* reads and writes go on after a handler; the flag is polled */
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_progress_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
}

/*
 * Before a replay or repair writes: SIGINT and SIGTERM wait (blocked
 * here, and only noted by the handler should another thread take one)
 * until the commit, so no interruption lands between two of its writes.
 */
static void
hold_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	holding = 1;
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void
release_signals(const sigset_t *old, bool durable)
{
	if (durable)
		committed = FSCK_EXIT_FIXED;
	pthread_sigmask(SIG_SETMASK, old, NULL);	/* a pending one runs */
	holding = 0;
}

/*
 * Tests: GAZE_TEST_FSCK_SIGNAL=STAGE[:N] sends the process N signals
 * (SIGINT, then SIGTERM) once, at STAGE: "check" (the first progress
 * point), "replay" or "repair" (once its writes are held), "recheck".
 */
static void
test_signal(const char *stage)
{
	const char *e = test_signal_at;
	size_t n = strlen(stage);
	int i, count = 1;

	if (!e || strncmp(e, stage, n) || (e[n] && e[n] != ':'))
		return;
	if (e[n] == ':')
		count = atoi(e + n + 1);
	test_signal_at = NULL;
	for (i = 0; i < count; i++)
		kill(getpid(), i ? SIGTERM : SIGINT);
}

static void __attribute__((noreturn))
stop_run(struct fsck *cur)
{
	struct run *r = &run;

	/* cur may be recheck's own instance: its node scan's thread must
	 * stop before finish closes the device under it */
	fsck_scan_stop(cur->scan);
	fsck_progress_end(cur);
	fsck_fail(&r->f, "interrupted by %s %s; %s",
		  stop_sig == SIGTERM ? "SIGTERM" : "SIGINT", r->stage,
		  r->repaired ? "the repair was committed first" :
		  committed ? "only the replay of the nodes fsync wrote was committed" :
		  "nothing was changed");
	r->status |= FSCK_EXIT_CANCELED;
	finish(r);
}

static void
stop_if_asked(void)
{
	if (stop_sig && !holding)
		stop_run(&run.f);
}

/* SIGUSR1 shows progress (a bar when no -C asked for lines), SIGUSR2
 * hides it, as e2fsck does */
static void
apply_progress_signal(struct fsck *f)
{
	int sig = prog_sig;

	prog_sig = 0;
	if (sig == SIGUSR2) {
		fsck_progress_end(f);
		f->o.progress_hidden = true;
		return;
	}
	if (!f->o.progress && !f->o.json) {
		f->o.progress = true;
		f->o.progress_fd = 0;
	}
	f->o.progress_hidden = false;
}

/* fsck_opts.poll: at every progress point of a check */
static void
poll_run(struct fsck *f)
{
	if (prog_sig)
		apply_progress_signal(f);
	test_signal("check");
	if (stop_sig && !holding)
		stop_run(f);
}

/* ---------------------------------------------------------------- */
/* The run                                                           */
/* ---------------------------------------------------------------- */

static void
refuse_mounted(struct run *r)
{
	char where[PATH_MAX] = "";
	int mstate;

	mstate = mount_state(r->m.device, where, sizeof(where));
	if (mstate == -ENOENT) {
		fsck_fail(&r->f, "cannot open: %s", strerror(ENOENT));
	} else if (mstate < 0) {
		fsck_fail(&r->f, "cannot tell whether it is mounted: %s",
			  strerror(-mstate));
	} else if (mstate == 2) {
		fsck_fail(&r->f, "is mounted read-write on %s; will not check it",
			  where[0] ? where : "(unknown)");
	} else if (mstate == 1 && r->m.o.mode != FSCK_MODE_CHECK) {
		fsck_fail(&r->f, "is mounted read-only on %s; only -n is allowed",
			  where[0] ? where : "(unknown)");
	} else {
		return;
	}
	r->status = FSCK_EXIT_ERROR;
	finish(r);
}

/*
 * An image cut to less than one zone cannot be opened as zones: it is
 * the same fault as a device short of some zones (check_geometry).
 */
static void
too_small(struct run *r, u32 zb, u32 nr_zones, u64 bytes)
{
	u64 zbytes = (u64)zb * GAZE_BLOCK_SIZE;

	fsck_problem(&r->f, PR_device_too_small, "the device is smaller than the filesystem: %llu bytes, less than one zone of %llu MiB, where the superblock records %u zones (%llu MiB); no mode can repair this (give the device back its full size)",
		     (unsigned long long)bytes,
		     (unsigned long long)(zbytes >> 20), nr_zones,
		     (unsigned long long)(nr_zones * zbytes >> 20));
	r->f.fatal = true;
	r->status = FSCK_EXIT_UNCORRECTED;
	finish(r);
}

static void
open_device(struct run *r)
{
	struct gaze_dev_open_opts oo = { 0 };
	u32 nr_zones;
	u64 bytes;
	int ret;

	oo.rdonly = r->m.o.mode == FSCK_MODE_CHECK;
	oo.excl = !oo.rdonly;
	/* an image: not while mkfs.gaze or another repair writes it */
	oo.lock = true;
	/* images keep their zone size only in the superblock; with the
	 * zone count and the device size, for a device too small to open */
	oo.zone_blocks = gaze_probe_image_zone_blocks(r->m.device, &nr_zones,
						      &bytes);
	if (oo.zone_blocks && nr_zones &&
	    bytes < (u64)oo.zone_blocks * GAZE_BLOCK_SIZE)
		too_small(r, oo.zone_blocks, nr_zones, bytes);
	ret = gaze_dev_open(r->m.device, &oo, &r->dev);
	if (ret == -EWOULDBLOCK) {
		r->dev = NULL;
		fsck_fail(&r->f, "in use: another program (mkfs.gaze, fsck.gaze%s) holds its lock; not checking it",
			  oo.rdonly ? " -p/-y" : " or gazectl");
		r->status = FSCK_EXIT_ERROR;
		finish(r);
	}
	if (ret) {
		r->dev = NULL;
		fsck_fail(&r->f, "cannot open%s: %s",
			  oo.rdonly ? "" : " for writing", strerror(-ret));
		r->status = FSCK_EXIT_ERROR;
		finish(r);
	}
	r->f.dev = r->dev;
}

/*
 * Like a journal replay before e2fsck: a filesystem not cleanly unmounted
 * may hold nodes fsync wrote after its last checkpoint; the core replays
 * them and commits (format.md section 17) before the check, so the check
 * and any repair start from what a mount would see.  A replay that fails
 * leaves the image as it was; the repair then opens without recovery.
 * With -n nothing is replayed; it says how many nodes await replay.
 */
static void
replay(struct run *r)
{
	struct fsck *f = &r->f;
	struct gaze_fs *fs;
	u32 nodes = 0, pending;
	sigset_t old;
	int ret, level = gaze_log_level;

	/* the check says why a filesystem does not open, once */
	gaze_log_level = 0;
	ret = gaze_fs_open(r->dev, GAZE_FS_RDONLY, &fs);
	gaze_log_level = level;
	if (ret)
		return;
	pending = fs->rf_pending;
	gaze_fs_close(fs);
	if (!pending)
		return;
	if (r->m.o.cp_prev) {
		fsck_note(f, "%s: %u nodes written by fsync after the newest checkpoint are not replayed (-b 1)",
			  r->m.device, pending);
		return;
	}
	if (r->m.o.mode == FSCK_MODE_CHECK) {
		fsck_note(f, "%s: %u nodes written by fsync after the last checkpoint await replay (the next read-write mount, or fsck.gaze -p/-y, replays them; -n checks the checkpoint)",
			  r->m.device, pending);
		return;
	}
	hold_signals(&old);
	test_signal("replay");
	ret = gaze_fs_replay(r->dev, GAZE_FS_KEEP_ORPHANS, &nodes);
	release_signals(&old, !ret && nodes);
	if (ret) {
		fprintf(stderr, "fsck.gaze: %s: replaying the nodes fsync wrote after the last checkpoint failed: %s; checking the checkpoint without them\n",
			r->m.device, strerror(-ret));
		return;
	}
	if (nodes)
		fsck_note(f, "%s: replayed %u nodes written by fsync after the last checkpoint",
			  r->m.device, nodes);
}

/* checks again after a repair, quietly; problems still found */
static u64
recheck(struct run *r)
{
	struct fsck_opts q = r->m.o;
	struct fsck g;
	FILE *null = fopen("/dev/null", "we");
	u64 n;

	q.mode = FSCK_MODE_CHECK;
	q.cp_prev = false;	/* after a repair, its checkpoint is newest */
	q.progress = false;
	q.verbose = false;
	q.json = false;
	q.out = null ? null : stderr;
	fsck_init(&g, r->dev, r->m.device, &q);
	n = fsck_check(&g) ? 1 : g.problems + (g.fatal ? 1 : 0);
	fsck_fini(&g);
	if (null)
		fclose(null);
	return n;
}

/* after the check: the exit status it leads to, or 0 to repair */
static int
verdict(struct run *r)
{
	struct fsck *f = &r->f;

	if (f->failed)
		return FSCK_EXIT_ERROR;
	if (!f->problems)
		return f->fatal ? FSCK_EXIT_ERROR : FSCK_EXIT_OK;
	if (r->m.o.mode == FSCK_MODE_CHECK || f->fatal)
		return FSCK_EXIT_UNCORRECTED;
	if (r->m.o.mode == FSCK_MODE_PREEN && f->unsafe) {
		fsck_note(f, "%s: UNEXPECTED INCONSISTENCY; run fsck.gaze manually (without -p or -a)",
			  r->m.device);
		return FSCK_EXIT_UNCORRECTED;
	}
	return 0;
}

static void
check(struct run *r)
{
	struct fsck *f = &r->f;
	int ret;

	r->stage = "during the check";
	stop_if_asked();
	if (!r->m.o.force && !r->m.o.cp_prev) {
		ret = fsck_is_clean(f);
		if (ret == 1) {
			r->checked = true;
			r->clean_exit = true;
			fsck_note(f, "%s: clean (checkpoint %llu, cleanly unmounted); use -f to check anyway",
				  r->m.device, (unsigned long long)f->cp_seq);
			finish(r);
		}
		if (ret < 0 || f->fatal || f->failed)
			goto out;
	}
	ret = fsck_check(f);
out:
	fsck_progress_end(f);
	if (ret < 0) {
		fsck_fail(f, "%s", strerror(-ret));
		r->status = FSCK_EXIT_ERROR;
		finish(r);
	}
	r->checked = true;
}

static void
repair(struct run *r)
{
	struct fsck *f = &r->f;
	sigset_t old;
	int ret;

	r->stage = "before the repair";
	stop_if_asked();
	hold_signals(&old);
	test_signal("repair");
	ret = fsck_repair(f);
	release_signals(&old, !ret);
	if (ret) {
		r->status = FSCK_EXIT_UNCORRECTED | FSCK_EXIT_ERROR;
		finish(r);
	}
	r->repaired = true;
	r->status = FSCK_EXIT_FIXED;
	fsck_note(f, "%s: ***** FILESYSTEM WAS MODIFIED *****", r->m.device);
	r->stage = "during the check after the repair";
	stop_if_asked();
	test_signal("recheck");
	r->remaining = recheck(r);
	r->remaining_known = true;
	if (r->remaining)
		r->status |= FSCK_EXIT_UNCORRECTED;
}

int
main(int argc, char **argv)
{
	struct run *r = &run;
	int ret;

	r->m.o.out = stdout;	/* with --json, lines are kept instead */
	fsck_init(&r->f, NULL, "fsck.gaze", &r->m.o);
	ret = parse_args(r, argc, argv);
	if (ret)
		return ret;
	r->m.o.poll = poll_run;
	fsck_init(&r->f, NULL, r->m.device, &r->m.o);
	signals_init(r);
	r->stage = "before the check";

	refuse_mounted(r);
	open_device(r);
	replay(r);
	check(r);
	r->status = verdict(r);
	if (r->status || !r->f.problems)
		finish(r);
	repair(r);
	finish(r);
}
