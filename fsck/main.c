// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the fsck.gaze command line.
 *
 *   fsck.gaze [-n|-p|-a|-y] [-f] [-v] [-C[FD]] [--json] DEVICE|IMAGE
 *
 * Exit status is the fsck(8) bitmask: 0 clean, 1 errors fixed, 4 errors
 * left, 8 operational error, 16 usage error, 32 interrupted.
 *
 * Refusals come first and write nothing: a device mounted read-write is
 * never checked; one mounted read-only only with -n; an image another
 * program holds locked (mkfs.gaze, a repair; gaze_dev_lock) not at all.  -n opens the
 * device read-only, so nothing can be written.  Without -f, a
 * filesystem whose last checkpoint is a clean unmount is reported clean
 * after reading only the superblocks and checkpoints.  After a repair
 * the filesystem is checked again, and whatever is still wrong is
 * reported (exit 4 on top of 1).
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
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
};

static void
usage(FILE *out)
{
	fputs("Usage: fsck.gaze [-n|-p|-a|-y] [-f] [-v] [-C[FD]] [--json] DEVICE|IMAGE\n"
	      "Check and repair a GAZE filesystem.\n\n"
	      "  -n, --no          check only, open read-only, never write\n"
	      "  -p, -a, --preen   fix what is safe without asking; exit 4 if more is wrong\n"
	      "  -y, --yes         fix everything that can be fixed\n"
	      "  -f, --force       check even if the filesystem was cleanly unmounted\n"
	      "  -v, --verbose     say more\n"
	      "  -C[FD]            show progress (on standard error)\n"
	      "      --json        print the result as JSON on standard output\n"
	      "  -h, --help        this help\n"
	      "  -V, --version     print the version\n\n"
	      "Exit status: 0 clean, 1 errors fixed, 4 errors left uncorrected,\n"
	      "8 operational error, 16 usage error, 32 interrupted.\n", out);
}

static int
usage_error(const char *msg)
{
	fprintf(stderr, "fsck.gaze: %s\nTry 'fsck.gaze --help'.\n", msg);
	return FSCK_EXIT_USAGE;
}

static int
parse_args(int argc, char **argv, struct main_opts *m)
{
	static const struct option lo[] = {
		{ "no", no_argument, NULL, 'n' },
		{ "preen", no_argument, NULL, 'p' },
		{ "yes", no_argument, NULL, 'y' },
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(m, 0, sizeof(*m));
	m->o.mode = FSCK_MODE_CHECK;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":npayfvC::hV", lo, NULL)) != -1) {
		switch (c) {
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
			if (optarg && strspn(optarg, "0123456789") !=
			    strlen(optarg))
				return usage_error("-C takes a file descriptor number");
			m->o.progress = true;
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
		case ':':
			return usage_error("an option is missing its argument");
		default:
			return usage_error("unknown option");
		}
	}
	if (m->nmodes & (m->nmodes - 1))
		return usage_error("only one of -n, -p/-a and -y may be given");
	if (optind >= argc)
		return usage_error("no device or image given");
	if (optind + 1 < argc)
		return usage_error("only one device or image may be given");
	m->device = argv[optind];
	if (m->o.json)
		m->o.progress = false;
	else if (!m->o.progress && isatty(STDERR_FILENO) &&
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


static void
on_signal(int sig)
{
	(void)sig;
	/* nothing is committed before the final checkpoint */
	_exit(FSCK_EXIT_CANCELED);
}

static void
print_json(struct fsck *f, const char *dev, int status, u64 remaining)
{
	struct gaze_json j;
	char uuid[GAZE_UUID_STR_LEN];
	size_t i;

	gaze_json_init(&j, stdout, true);
	gaze_json_obj_begin(&j, NULL);
	gaze_json_str(&j, "device", dev);
	if (!gaze_uuid_is_null(f->uuid)) {
		gaze_uuid_unparse(f->uuid, uuid);
		gaze_json_str(&j, "uuid", uuid);
	}
	gaze_json_str(&j, "mode", f->o.mode == FSCK_MODE_CHECK ? "check" :
		      f->o.mode == FSCK_MODE_PREEN ? "preen" : "repair");
	gaze_json_str(&j, "result", status & (FSCK_EXIT_ERROR |
					      FSCK_EXIT_CANCELED) ? "error" :
		      status & FSCK_EXIT_UNCORRECTED ? "errors" :
		      status & FSCK_EXIT_FIXED ? "fixed" : "clean");
	gaze_json_u64(&j, "exit_code", (u64)status);
	gaze_json_u64(&j, "checkpoint_seq", f->cp_seq);
	gaze_json_bool(&j, "checkpoint_fallback", f->cp_fallback);
	gaze_json_u64(&j, "problems", f->problems);
	gaze_json_u64(&j, "problems_unsafe", f->unsafe);
	gaze_json_u64(&j, "fixes", f->fixed);
	gaze_json_u64(&j, "problems_remaining", remaining);
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
	gaze_json_arr_begin(&j, "messages");
	for (i = 0; i < f->nr_msgs; i++)
		gaze_json_str(&j, NULL, f->msgs[i]);
	gaze_json_arr_end(&j);
	gaze_json_obj_end(&j);
	gaze_json_finish(&j);
}

static void
print_summary(struct fsck *f, const char *dev)
{
	fprintf(f->o.out, "%s: %llu inodes (%llu directories, %llu files, %llu symlinks, %llu other), %llu of %llu blocks in use\n",
		dev, (unsigned long long)f->st.inodes,
		(unsigned long long)f->st.dirs,
		(unsigned long long)f->st.files,
		(unsigned long long)f->st.symlinks,
		(unsigned long long)f->st.others,
		(unsigned long long)f->st.valid_blocks,
		(unsigned long long)le64_to_cpu(f->sb.user_blocks));
}

/*
 * Like a journal replay before e2fsck: a filesystem not cleanly unmounted
 * may hold nodes fsync wrote after its last checkpoint; the core replays
 * them and commits (format.md section 17) before the check, so the check
 * and any repair start from what a mount would see.  A replay that fails
 * leaves the image as it was; the repair then opens without recovery.
 * With -n nothing is replayed; it says how many nodes await replay.
 */
static bool
replay(struct gaze_dev *dev, const char *name, const struct fsck_opts *o)
{
	struct gaze_fs *fs;
	u32 nodes = 0, pending;
	int ret;

	if (gaze_fs_open(dev, GAZE_FS_RDONLY, &fs))
		return false;	/* the check says why */
	pending = fs->rf_pending;
	gaze_fs_close(fs);
	if (!pending)
		return false;
	if (o->mode == FSCK_MODE_CHECK) {
		if (!o->json)
			fprintf(o->out, "%s: %u nodes written by fsync after the last checkpoint await replay (the next read-write mount, or fsck.gaze -p/-y, replays them; -n checks the checkpoint)\n",
				name, pending);
		return false;
	}
	ret = gaze_fs_replay(dev, &nodes);
	if (ret) {
		fprintf(stderr, "fsck.gaze: %s: replaying the nodes fsync wrote after the last checkpoint failed: %s; checking the checkpoint without them\n",
			name, strerror(-ret));
		return false;
	}
	if (nodes && !o->json)
		fprintf(o->out, "%s: replayed %u nodes written by fsync after the last checkpoint\n",
			name, nodes);
	return nodes != 0;
}

/* checks again after a repair, quietly; problems still found */
static u64
recheck(struct gaze_dev *dev, const char *name, const struct fsck_opts *o)
{
	struct fsck_opts q = *o;
	struct fsck g;
	FILE *null = fopen("/dev/null", "we");
	u64 n;

	q.mode = FSCK_MODE_CHECK;
	q.progress = false;
	q.verbose = false;
	q.json = false;
	q.out = null ? null : stderr;
	fsck_init(&g, dev, name, &q);
	n = fsck_check(&g) ? 1 : g.problems + (g.fatal ? 1 : 0);
	fsck_fini(&g);
	if (null)
		fclose(null);
	return n;
}

int
main(int argc, char **argv)
{
	struct gaze_dev_open_opts oo = { 0 };
	struct main_opts m;
	struct gaze_dev *dev = NULL;
	struct fsck f;
	char where[PATH_MAX] = "";
	u64 remaining = 0;
	int ret, status = FSCK_EXIT_OK, mstate;
	bool clean_exit = false, replayed = false;

	ret = parse_args(argc, argv, &m);
	if (ret)
		return ret;
	m.o.out = m.o.json ? stderr : stdout;
	if (m.o.json)
		m.o.out = stdout;	/* messages are collected, not printed */

	mstate = mount_state(m.device, where, sizeof(where));
	if (mstate < 0) {
		fprintf(stderr, "fsck.gaze: %s: cannot tell whether it is mounted: %s\n",
			m.device, strerror(-mstate));
		return FSCK_EXIT_ERROR;
	}
	if (mstate == 2) {
		fprintf(stderr, "fsck.gaze: %s: is mounted read-write on %s; will not check it\n",
			m.device, where[0] ? where : "(unknown)");
		return FSCK_EXIT_ERROR;
	}
	if (mstate == 1 && m.o.mode != FSCK_MODE_CHECK) {
		fprintf(stderr, "fsck.gaze: %s: is mounted read-only on %s; only -n is allowed\n",
			m.device, where[0] ? where : "(unknown)");
		return FSCK_EXIT_ERROR;
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	oo.rdonly = m.o.mode == FSCK_MODE_CHECK;
	oo.excl = !oo.rdonly;
	/* an image: not while mkfs.gaze or another repair writes it */
	oo.lock = true;
	oo.zone_blocks = gaze_probe_image_zone_blocks(m.device);
	ret = gaze_dev_open(m.device, &oo, &dev);
	if (ret == -EWOULDBLOCK) {
		fprintf(stderr, "fsck.gaze: %s: in use: another program (mkfs.gaze, fsck.gaze%s) holds its lock; not checking it\n",
			m.device, oo.rdonly ? " -p/-y" : " or gazectl");
		return FSCK_EXIT_ERROR;
	}
	if (ret) {
		fprintf(stderr, "fsck.gaze: %s: cannot open%s: %s\n", m.device,
			oo.rdonly ? "" : " for writing", strerror(-ret));
		return FSCK_EXIT_ERROR;
	}

	replayed = replay(dev, m.device, &m.o);
	fsck_init(&f, dev, m.device, &m.o);
	if (!m.o.force) {
		ret = fsck_is_clean(&f);
		if (ret == 1) {
			clean_exit = true;
			if (!m.o.json)
				fprintf(f.o.out, "%s: clean (checkpoint %llu, cleanly unmounted); use -f to check anyway\n",
					m.device, (unsigned long long)f.cp_seq);
			goto out;
		}
	}
	ret = fsck_check(&f);
	if (ret < 0) {
		fprintf(stderr, "fsck.gaze: %s: %s\n", m.device, strerror(-ret));
		status = FSCK_EXIT_ERROR;
		goto out;
	}
	/* stopped before any check could count a problem: not a GAZE
	 * filesystem, a feature it cannot read, a device too small */
	if (f.fatal && (gaze_uuid_is_null(f.uuid) || !f.problems)) {
		status = FSCK_EXIT_ERROR;
		goto out;
	}
	if (!f.problems)
		goto out;
	if (m.o.mode == FSCK_MODE_CHECK || f.fatal) {
		status = FSCK_EXIT_UNCORRECTED;
		goto out;
	}
	if (m.o.mode == FSCK_MODE_PREEN && f.unsafe) {
		if (!m.o.json)
			fprintf(f.o.out, "%s: UNEXPECTED INCONSISTENCY; run fsck.gaze manually (without -p or -a)\n",
				m.device);
		status = FSCK_EXIT_UNCORRECTED;
		goto out;
	}
	ret = fsck_repair(&f);
	if (ret) {
		status = FSCK_EXIT_UNCORRECTED | FSCK_EXIT_ERROR;
		goto out;
	}
	status = FSCK_EXIT_FIXED;
	remaining = recheck(dev, m.device, &m.o);
	if (remaining) {
		if (!m.o.json)
			fprintf(f.o.out, "%s: %llu problems remain after the repair\n",
				m.device, (unsigned long long)remaining);
		status |= FSCK_EXIT_UNCORRECTED;
	}
	if (!m.o.json)
		fprintf(f.o.out, "%s: ***** FILESYSTEM WAS MODIFIED *****\n",
			m.device);
out:
	if (replayed && !(status & FSCK_EXIT_ERROR))
		status |= FSCK_EXIT_FIXED;
	if (m.o.json)
		print_json(&f, m.device, status, remaining);
	else if (!clean_exit && !(status & FSCK_EXIT_ERROR))
		print_summary(&f, m.device);
	if (!m.o.json && status == FSCK_EXIT_UNCORRECTED && f.problems)
		fprintf(f.o.out, "%s: %llu problems found%s\n", m.device,
			(unsigned long long)f.problems,
			m.o.mode == FSCK_MODE_CHECK ? " (nothing changed: -n)" :
			"");
	fsck_fini(&f);
	gaze_dev_close(dev);
	return status;
}
