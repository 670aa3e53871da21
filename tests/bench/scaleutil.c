// SPDX-License-Identifier: GPL-2.0
/*
 * scaleutil.c - the namespace phases of tests/bench/vm-scale.sh, one
 * process per phase (under TCG a fork costs more than the call measured).
 *
 *   scaleutil create DIR PROCS SECONDS
 *	PROCS processes, each in its own directory DIR/pK (made first),
 *	create empty files f0, f1, ... from a common start for SECONDS;
 *	then one syncfs.  Prints "creates N secs S sync_s S per_sec R",
 *	R = N / (SECONDS + the syncfs's time).
 *
 *   scaleutil mkfiles DIR N
 *	N empty files DIR/dK/fI, 1,000 per subdirectory; then syncfs.
 *
 *   scaleutil lat DIR N SEED
 *	Visits the N files of mkfiles in a random order (SEED): stat() on
 *	the even ones, open() and close() on the odd ones, each timed on
 *	its own (drop the caches first: every call then reads the inode).
 *	Prints "stat p50_us X p99_us X max_us X" and the same for "open".
 *
 * Exit 0, or 1 with a message naming the file and the error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PER_DIR	1000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "scaleutil: %s %s: %s\n", what, path, strerror(errno));
	return 1;
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

/* one creating process: files in DIR until END; writes its count to FD */
static void create_child(const char *dir, int go, int wfd, double secs)
{
	char path[4200], c;
	long n = 0;
	double end;
	int fd;

	if (read(go, &c, 1) != 1)
		_exit(1);
	end = now() + secs;
	while (now() < end) {
		snprintf(path, sizeof(path), "%s/f%ld", dir, n);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			_exit(fail("create", path));
		close(fd);
		n++;
	}
	if (write(wfd, &n, sizeof(n)) != sizeof(n))
		_exit(1);
	_exit(0);
}

static int do_create(const char *dir, int procs, double secs)
{
	int go[2], res[2], i, st, bad = 0;
	long total = 0, n;
	char sub[4096];
	double s, e;

	if (pipe(go) || pipe(res))
		return fail("pipe", dir);
	for (i = 0; i < procs; i++) {
		snprintf(sub, sizeof(sub), "%s/p%d", dir, i);
		if (mkdir(sub, 0755) && errno != EEXIST)
			return fail("mkdir", sub);
		if (fork() == 0) {
			close(go[1]);
			create_child(sub, go[0], res[1], secs);
		}
	}
	close(go[0]);
	for (i = 0; i < procs; i++)
		if (write(go[1], "g", 1) != 1)
			return fail("start", dir);
	for (i = 0; i < procs; i++) {
		wait(&st);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	close(res[1]);
	while (read(res[0], &n, sizeof(n)) == sizeof(n))
		total += n;
	if (bad) {
		fprintf(stderr, "scaleutil: a creating process failed\n");
		return 1;
	}
	s = now();
	if (sync_dir(dir))
		return 1;
	e = now();
	printf("creates %ld secs %.3f sync_s %.3f per_sec %.1f\n", total, secs,
	       e - s, total / (secs + e - s));
	return 0;
}

static void name_of(char *buf, size_t len, const char *dir, long i)
{
	snprintf(buf, len, "%s/d%ld/f%ld", dir, i / PER_DIR, i);
}

static int do_mkfiles(const char *dir, long n)
{
	char path[4096];
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		if (i % PER_DIR == 0) {
			snprintf(path, sizeof(path), "%s/d%ld", dir,
				 i / PER_DIR);
			if (mkdir(path, 0755) && errno != EEXIST)
				return fail("mkdir", path);
		}
		name_of(path, sizeof(path), dir, i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			return fail("create", path);
		close(fd);
	}
	return sync_dir(dir);
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

static int do_lat(const char *dir, long n, unsigned int seed)
{
	double *ls = calloc(n, sizeof(double)), *lo = calloc(n, sizeof(double));
	long *order = calloc(n, sizeof(long));
	long i, j, t, ns = 0, no = 0;
	char path[4096];
	struct stat st;
	double s;
	int fd;

	if (!ls || !lo || !order)
		return fail("calloc", dir);
	srandom(seed);
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = random() % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
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
	if (argc == 5 && !strcmp(argv[1], "create"))
		return do_create(argv[2], atoi(argv[3]), atof(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "mkfiles"))
		return do_mkfiles(argv[2], atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "lat"))
		return do_lat(argv[2], atol(argv[3]), atoi(argv[4]));
	fprintf(stderr,
		"usage: scaleutil create DIR PROCS SECONDS\n"
		"       scaleutil mkfiles DIR N\n"
		"       scaleutil lat DIR N SEED\n");
	return 2;
}
