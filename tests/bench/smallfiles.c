// SPDX-License-Identifier: GPL-2.0
/*
 * smallfiles.c - the small-file phases of tests/bench/vm-f2fs.sh and
 * tests/bench/vm-scale.sh, one process per phase instead of one per file
 * (under TCG a fork costs more than the filesystem call being measured).
 *
 *   smallfiles create DIR N SIZE   N files of SIZE bytes, 1,000 per
 *                                  subdirectory d0, d1, ... of DIR, each
 *                                  with its own content; then syncfs
 *   smallfiles stat DIR N SIZE     stat every file, checking its size
 *   smallfiles unlink DIR N SIZE   unlink every file and subdirectory;
 *                                  then syncfs
 *   smallfiles pcreate DIR PROCS SECONDS
 *	PROCS processes, each in its own directory DIR/pK (made first),
 *	create empty files f0, f1, ... from a common start for SECONDS;
 *	then one syncfs.  Prints "creates N secs S longest_s L sync_s S
 *	per_sec R": S from the start until the last process ended (SECONDS,
 *	or more when a create was still running at the end), L the longest
 *	single create, R = N / (S + the syncfs's time).
 *   smallfiles pchange DIR PROCS SECONDS
 *	As pcreate, but each process runs cycles of create fN, link fN lN,
 *	rename lN rN, unlink fN, unlink rN: five namespace changes, four
 *	of them on an inode and a directory the VFS already has.  Prints
 *	"changes N secs S longest_s L sync_s S per_sec R" (N counts each
 *	change, L is the longest cycle).
 *   smallfiles pfsync DIR PROCS SECONDS
 *	As pcreate, but each new file gets 4 KiB and an fsync before its
 *	close (a mail spool, a package manager unpacking, an editor's save
 *	to a new name): each create is durable when it returns.  Prints
 *	"fsyncs N secs S longest_s L sync_s S per_sec R".
 *   smallfiles lat DIR N SEED
 *	Visits the N files of create in a random order (SEED): stat() on
 *	the even ones, open() and close() on the odd ones, each timed on
 *	its own (drop the caches first: every call then reads the inode).
 *	Prints "stat p50_us X p99_us X max_us X" and the same for "open".
 *   smallfiles sparse DIR N STRIDE
 *	stat() on every STRIDE-th of the N files of create, in a random
 *	order (seed 1), checking that each exists; the caller times it.
 *	After a cache drop every call reads its inode, and readahead that
 *	brings an inode's neighbours in gains nothing: its cost shows.
 *
 * Exit 0, or 1 with a message naming the file and the error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PER_DIR	1000

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "smallfiles: %s %s: %s\n", what, path,
		strerror(errno));
	return 1;
}

static void name_of(char *buf, size_t len, const char *dir, long i)
{
	snprintf(buf, len, "%s/d%ld/f%ld", dir, i / PER_DIR, i);
}

static int do_create(const char *dir, long n, long size, char *data)
{
	char path[4096];
	long i, k;
	int fd;

	for (i = 0; i < n; i++) {
		if (i % PER_DIR == 0) {
			snprintf(path, sizeof(path), "%s/d%ld", dir,
				 i / PER_DIR);
			if (mkdir(path, 0755) && errno != EEXIST)
				return fail("mkdir", path);
		}
		name_of(path, sizeof(path), dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return fail("create", path);
		for (k = 0; k < 8 && k < size; k++)
			data[k] = (char)(i >> (8 * k));
		if (write(fd, data, (size_t)size) != size) {
			close(fd);
			return fail("write", path);
		}
		if (close(fd))
			return fail("close", path);
	}
	return 0;
}

static int do_stat(const char *dir, long n, long size)
{
	char path[4096];
	struct stat st;
	long i;

	for (i = 0; i < n; i++) {
		name_of(path, sizeof(path), dir, i);
		if (stat(path, &st))
			return fail("stat", path);
		if (st.st_size != size) {
			errno = EINVAL;
			return fail("size of", path);
		}
	}
	return 0;
}

static int do_unlink(const char *dir, long n)
{
	char path[4096];
	long i;

	for (i = 0; i < n; i++) {
		name_of(path, sizeof(path), dir, i);
		if (unlink(path))
			return fail("unlink", path);
		if (i % PER_DIR == PER_DIR - 1 || i == n - 1) {
			snprintf(path, sizeof(path), "%s/d%ld", dir,
				 i / PER_DIR);
			if (rmdir(path))
				return fail("rmdir", path);
		}
	}
	return 0;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return fail("open", dir);
	if (syncfs(fd)) {
		close(fd);
		return fail("syncfs", dir);
	}
	close(fd);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* pcreate's step: a new empty file DIR/fN; 0, or the error's message */
static int create_one(const char *dir, long n)
{
	char f[4200];
	int fd;

	snprintf(f, sizeof(f), "%s/f%ld", dir, n);
	fd = open(f, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return fail("create", f);
	close(fd);
	return 0;
}

/* pfsync's step: DIR/fN made with 4 KiB and fsync'd before its close */
static int fsync_one(const char *dir, long n)
{
	char f[4200], data[4096];
	int fd;

	snprintf(f, sizeof(f), "%s/f%ld", dir, n);
	memset(data, 'a' + (int)(n % 26), sizeof(data));
	fd = open(f, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return fail("create", f);
	if (write(fd, data, sizeof(data)) != (ssize_t)sizeof(data)) {
		close(fd);
		return fail("write", f);
	}
	if (fsync(fd)) {
		close(fd);
		return fail("fsync", f);
	}
	if (close(fd))
		return fail("close", f);
	return 0;
}

/* pchange's step on number n: 0, or the failing call's message */
static int change_cycle(const char *dir, long n)
{
	char f[4200], l[4200], r[4200];

	if (create_one(dir, n))
		return 1;
	snprintf(f, sizeof(f), "%s/f%ld", dir, n);
	snprintf(l, sizeof(l), "%s/l%ld", dir, n);
	snprintf(r, sizeof(r), "%s/r%ld", dir, n);
	if (link(f, l))
		return fail("link", l);
	if (rename(l, r))
		return fail("rename", r);
	if (unlink(f))
		return fail("unlink", f);
	if (unlink(r))
		return fail("unlink", r);
	return 0;
}

/* what pcreate, pchange and pfsync run */
enum pmode { P_CREATE, P_CHANGE, P_FSYNC };

/* what a child of pcreate, pchange or pfsync reports */
struct child_result {
	long	n;
	double	longest;
};

/* the time now; *longest keeps the longest step since the last call */
static double step_time(double last, double *longest)
{
	double t = now();

	if (t - last > *longest)
		*longest = t - last;
	return t;
}

/*
 * Creates, change cycles or fsync'd creates (mode) until secs have
 * passed; writes the count and its longest step (seconds) to wfd.
 */
static void create_child(const char *dir, int go, int wfd, double secs,
			 enum pmode mode)
{
	int (*step)(const char *, long) = mode == P_CHANGE ? change_cycle :
					  mode == P_FSYNC ? fsync_one :
					  create_one;
	double end, t, longest = 0;
	struct child_result r;
	long n = 0;
	char c;

	if (read(go, &c, 1) != 1)
		_exit(1);
	t = now();
	end = t + secs;
	while (t < end) {
		if (step(dir, n))
			_exit(1);
		n++;
		t = step_time(t, &longest);
	}
	if (mode == P_CHANGE)
		n *= 5;
	r.n = n;
	r.longest = longest;
	/* one write: below PIPE_BUF, so children's results never mix */
	if (write(wfd, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

static int do_pcreate(const char *dir, int procs, double secs,
		      enum pmode mode)
{
	int go[2], res[2], i, st, bad = 0;
	double longest = 0, start;
	struct child_result r;
	long total = 0;
	pid_t pid;
	char sub[4096];
	double s, e;

	if (pipe(go) || pipe(res))
		return fail("pipe", dir);
	for (i = 0; i < procs; i++) {
		snprintf(sub, sizeof(sub), "%s/p%d", dir, i);
		if (mkdir(sub, 0755) && errno != EEXIST)
			return fail("mkdir", sub);
		pid = fork();
		if (pid < 0)
			return fail("fork", sub);
		if (pid == 0) {
			close(go[1]);
			create_child(sub, go[0], res[1], secs, mode);
		}
	}
	close(go[0]);
	start = now();
	for (i = 0; i < procs; i++)
		if (write(go[1], "g", 1) != 1)
			return fail("start", dir);
	for (i = 0; i < procs; i++) {
		wait(&st);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	close(res[1]);
	while (read(res[0], &r, sizeof(r)) == sizeof(r)) {
		total += r.n;
		if (r.longest > longest)
			longest = r.longest;
	}
	if (bad) {
		fprintf(stderr, "smallfiles: a creating process failed\n");
		return 1;
	}
	s = now();
	if (sync_dir(dir))
		return 1;
	e = now();
	printf("%s %ld secs %.3f longest_s %.3f sync_s %.3f per_sec %.1f\n",
	       mode == P_CHANGE ? "changes" : mode == P_FSYNC ? "fsyncs" :
	       "creates", total, s - start, longest,
	       e - s, total / (e - start));
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, long n)
{
	if (!n) {
		printf("%s p50_us 0 p99_us 0 max_us 0\n", what);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	printf("%s p50_us %.1f p99_us %.1f max_us %.1f\n", what,
	       v[n / 2] * 1e6, v[(n * 99) / 100] * 1e6, v[n - 1] * 1e6);
}

/* 0, step, 2 * step, ... below n in a random order (seed): n / step */
static long *shuffled(long n, long step, unsigned int seed)
{
	long *order = calloc(n / step + 1, sizeof(long));
	long i, j, t, k = 0;

	if (!order)
		return NULL;
	for (i = 0; i < n; i += step)
		order[k++] = i;
	srandom(seed);
	for (i = k - 1; i > 0; i--) {
		j = random() % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	return order;
}

static int do_sparse(const char *dir, long n, long stride)
{
	long *order = shuffled(n, stride, 1);
	char path[4096];
	struct stat st;
	long i;

	if (!order)
		return fail("calloc", dir);
	for (i = 0; i < (n + stride - 1) / stride; i++) {
		name_of(path, sizeof(path), dir, order[i]);
		if (stat(path, &st)) {
			free(order);
			return fail("stat", path);
		}
	}
	free(order);
	return 0;
}

static int do_lat(const char *dir, long n, unsigned int seed)
{
	double *ls = calloc(n, sizeof(double)), *lo = calloc(n, sizeof(double));
	long *order = shuffled(n, 1, seed);
	long i, ns = 0, no = 0;
	char path[4096];
	struct stat st;
	double s;
	int fd;

	if (!ls || !lo || !order)
		return fail("calloc", dir);
	for (i = 0; i < n; i++) {
		name_of(path, sizeof(path), dir, order[i]);
		s = now();
		if (order[i] % 2 == 0) {
			if (stat(path, &st))
				return fail("stat", path);
			ls[ns++] = now() - s;
			continue;
		}
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return fail("open", path);
		close(fd);
		lo[no++] = now() - s;
	}
	report("stat", ls, ns);
	report("open", lo, no);
	free(ls);
	free(lo);
	free(order);
	return 0;
}

int main(int argc, char **argv)
{
	long n, size;
	char *data;
	int ret;

	if (argc == 5 && !strcmp(argv[1], "pcreate") && atoi(argv[3]) > 0)
		return do_pcreate(argv[2], atoi(argv[3]), atof(argv[4]),
				  P_CREATE);
	if (argc == 5 && !strcmp(argv[1], "pchange") && atoi(argv[3]) > 0)
		return do_pcreate(argv[2], atoi(argv[3]), atof(argv[4]),
				  P_CHANGE);
	if (argc == 5 && !strcmp(argv[1], "pfsync") && atoi(argv[3]) > 0)
		return do_pcreate(argv[2], atoi(argv[3]), atof(argv[4]),
				  P_FSYNC);
	if (argc == 5 && !strcmp(argv[1], "lat") && atol(argv[3]) > 0)
		return do_lat(argv[2], atol(argv[3]), atoi(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "sparse") && atol(argv[3]) > 0 &&
	    atol(argv[4]) > 0)
		return do_sparse(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc != 5) {
		fprintf(stderr,
			"usage: smallfiles create|stat|unlink DIR N SIZE\n"
			"       smallfiles pcreate|pchange|pfsync DIR PROCS SECONDS\n"
			"       smallfiles lat DIR N SEED\n"
			"       smallfiles sparse DIR N STRIDE\n");
		return 2;
	}
	n = strtol(argv[3], NULL, 10);
	size = strtol(argv[4], NULL, 10);
	if (n < 0 || size < 0 || size > 1 << 20) {
		fprintf(stderr, "smallfiles: bad N or SIZE\n");
		return 2;
	}
	data = malloc((size_t)size + 1);
	if (!data)
		return 1;
	memset(data, 'g', (size_t)size);
	if (!strcmp(argv[1], "create"))
		ret = do_create(argv[2], n, size, data) ?: sync_dir(argv[2]);
	else if (!strcmp(argv[1], "stat"))
		ret = do_stat(argv[2], n, size);
	else if (!strcmp(argv[1], "unlink"))
		ret = do_unlink(argv[2], n) ?: sync_dir(argv[2]);
	else
		ret = 2;
	free(data);
	return ret;
}
