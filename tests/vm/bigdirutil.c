// SPDX-License-Identifier: GPL-2.0
/*
 * bigdirutil.c - the tree of tests/vm/kmod-bigdir.sh: one directory of N
 * names that are hard links to F files, made on the host, checked in the
 * guest through the mounted filesystem.
 *
 *   bigdirutil mktree DIR N F       DIR/fNN (F files), DIR/big/<name i>
 *                                   a hard link to file i % F
 *   bigdirutil change DIR N F K0 K1 for j in [K0, K1): unlink removed(j),
 *                                   create the new empty file n<j>
 *   bigdirutil check DIR N F K S [nordir]
 *                                   the tree after changes [0, K):
 *                                   readdir finds every name exactly once
 *                                   with the right inode, telldir/seekdir
 *                                   positions come back to the same name
 *                                   (not with nordir), S random present
 *                                   names and S absent ones stat right,
 *                                   link counts follow
 *
 * removed(j) = (j * 7919 + 13) % N, all distinct (gcd(7919, N) must be 1).
 * Lines starting with "# " report counts and times (never checked here
 * against a limit); exit status 0 when everything matched, 1 otherwise,
 * 2 on a usage error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NSAVED	16

static unsigned int n, nf;
static char *dir;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* the first names: e<id>-<0..28 letters> */
static int
name_of(char *buf, size_t sz, unsigned int id)
{
	return snprintf(buf, sz, "e%07u-%.*s", id, (int)((id * 7u) % 29u),
			"abcdefghijklmnopqrstuvwxyz012");
}

static int
new_name_of(char *buf, size_t sz, unsigned int j)
{
	return snprintf(buf, sz, "n%07u", j);
}

static unsigned int
removed(unsigned int j)
{
	return (unsigned int)(((uint64_t)j * 7919u + 13u) % n);
}

static int
mktree(void)
{
	char path[4096], tgt[4096];
	unsigned int i;
	double t;
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return perror(dir), 1;
	snprintf(path, sizeof(path), "%s/big", dir);
	if (mkdir(path, 0755))
		return perror(path), 1;
	for (i = 0; i < nf; i++) {
		snprintf(path, sizeof(path), "%s/f%02u", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || dprintf(fd, "bigdir file %u\n", i) < 0 ||
		    close(fd))
			return perror(path), 1;
	}
	t = now_s();
	for (i = 0; i < n; i++) {
		snprintf(tgt, sizeof(tgt), "%s/f%02u", dir, i % nf);
		snprintf(path, sizeof(path), "%s/big/", dir);
		name_of(path + strlen(path), sizeof(path) - strlen(path), i);
		if (link(tgt, path))
			return perror(path), 1;
	}
	printf("# mktree: %u hard links to %u files in %.2f s\n", n, nf,
	       now_s() - t);
	return 0;
}

static int
change(unsigned int k0, unsigned int k1)
{
	char path[4096], *p;
	unsigned int j;
	double t = now_s();
	int fd;

	snprintf(path, sizeof(path), "%s/big/", dir);
	p = path + strlen(path);
	for (j = k0; j < k1; j++) {
		name_of(p, sizeof(path) - (p - path), removed(j));
		if (unlink(path))
			return perror(path), 1;
		new_name_of(p, sizeof(path) - (p - path), j);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0 || close(fd))
			return perror(path), 1;
	}
	t = now_s() - t;
	printf("# change: %u names unlinked and %u files created in %.2f s "
	       "(%.0f us per pair)\n", k1 - k0, k1 - k0, t,
	       k1 > k0 ? t * 1e6 / (k1 - k0) : 0.0);
	return 0;
}

/* id of a name: 0..n-1 first names, n + j new ones; -1 unknown */
static long
id_of(const char *name)
{
	char buf[64], *end;
	unsigned long v;

	if (name[0] != 'e' && name[0] != 'n')
		return -1;
	v = strtoul(name + 1, &end, 10);
	if (end != name + 8)
		return -1;
	if (name[0] == 'e') {
		if (v >= n)
			return -1;
		name_of(buf, sizeof(buf), (unsigned int)v);
		return strcmp(buf, name) ? -1 : (long)v;
	}
	new_name_of(buf, sizeof(buf), (unsigned int)v);
	return strcmp(buf, name) ? -1 : (long)(n + v);
}

static int
check(unsigned int k, unsigned int sample, int rdir)
{
	unsigned long long count = 0, unknown = 0, dup = 0, miss = 0, wrong = 0;
	unsigned long long bad_stat = 0, bad_abs = 0, bad_nlink = 0, bad_seek = 0;
	char path[4096], *p, saved_name[NSAVED][256];
	unsigned int i, j, *links;
	long saved_pos[NSAVED], id;
	unsigned char *seen, *gone;
	unsigned int nsaved = 0, dots = 0;
	ino_t *fino;
	struct dirent *de;
	struct stat st;
	double t, tl;
	DIR *d;

	seen = calloc(n + k, 1);
	gone = calloc(n, 1);
	fino = calloc(nf, sizeof(*fino));
	links = calloc(nf, sizeof(*links));
	if (!seen || !gone || !fino || !links)
		return perror("calloc"), 1;
	for (j = 0; j < k; j++)
		gone[removed(j)] = 1;
	for (i = 0; i < nf; i++) {
		snprintf(path, sizeof(path), "%s/f%02u", dir, i);
		if (lstat(path, &st))
			return perror(path), 1;
		fino[i] = st.st_ino;
	}

	if (!rdir)
		goto stat_sample;
	snprintf(path, sizeof(path), "%s/big", dir);
	d = opendir(path);
	if (!d)
		return perror(path), 1;
	t = now_s();
	for (;;) {
		long pos = telldir(d);

		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) {
			dots++;
			continue;
		}
		count++;
		if (nsaved < NSAVED && count % (n / NSAVED + 1) == 0) {
			saved_pos[nsaved] = pos;
			snprintf(saved_name[nsaved++], sizeof(saved_name[0]), "%s",
				 de->d_name);
		}
		id = id_of(de->d_name);
		if (id < 0 || (id < n && gone[id]) || id >= (long)(n + k)) {
			if (unknown++ < 5)
				printf("# readdir: unexpected name %s\n",
				       de->d_name);
			continue;
		}
		if (seen[id]++) {
			if (dup++ < 5)
				printf("# readdir: %s twice\n", de->d_name);
		}
		if (id < n ? (de->d_ino != fino[id % nf] ||
			      (de->d_type != DT_REG &&
			       de->d_type != DT_UNKNOWN)) :
		    (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)) {
			if (wrong++ < 5)
				printf("# readdir: %s: ino %llu type %u\n",
				       de->d_name,
				       (unsigned long long)de->d_ino,
				       de->d_type);
		}
	}
	t = now_s() - t;
	if (errno)
		return perror("readdir"), 1;
	for (id = 0; id < (long)(n + k); id++)
		if ((id >= n || !gone[id]) && !seen[id])
			if (miss++ < 5)
				printf("# readdir: missing id %ld\n", id);
	printf("# readdir: %llu entries (want %u) in %.2f s (%.2f us each); "
	       "%llu missing, %llu twice, %llu unknown, %llu wrong\n", count,
	       n, t, count ? t * 1e6 / count : 0.0, miss, dup, unknown, wrong);

	/* telldir positions taken during the walk lead back to their name */
	for (i = 0; i < nsaved; i++) {
		seekdir(d, saved_pos[i]);
		de = readdir(d);
		if (!de || strcmp(de->d_name, saved_name[i])) {
			if (bad_seek++ < 3)
				printf("# seekdir(%ld): %s, want %s\n",
				       saved_pos[i], de ? de->d_name : "(end)",
				       saved_name[i]);
		}
	}
	printf("# seekdir: %u saved positions, %llu wrong\n", nsaved,
	       bad_seek);
	closedir(d);
	if (count != n || dots != 2)
		bad_seek++;		/* counted as a failure below */

stat_sample:
	/* a sample of names: stat gives the right inode; absent names fail */
	snprintf(path, sizeof(path), "%s/big/", dir);
	p = path + strlen(path);
	tl = now_s();
	for (i = 0; i < sample; i++) {
		id = (long)(rnd() % (n + k));
		if (id < n)
			name_of(p, sizeof(path) - (p - path), (unsigned int)id);
		else
			new_name_of(p, sizeof(path) - (p - path),
				    (unsigned int)(id - n));
		if (id < n && gone[id]) {
			if (lstat(path, &st) == 0 || errno != ENOENT)
				bad_stat++;
			continue;
		}
		if (lstat(path, &st) || !S_ISREG(st.st_mode) ||
		    (id < n && st.st_ino != fino[id % nf]) ||
		    (id >= n && st.st_nlink != 1)) {
			if (bad_stat++ < 5)
				printf("# stat %s: %s\n", p, strerror(errno));
		}
	}
	tl = now_s() - tl;
	printf("# stat: %u sampled names in %.2f s (%.1f us each), %llu wrong\n",
	       sample, tl, sample ? tl * 1e6 / sample : 0.0, bad_stat);
	tl = now_s();
	for (i = 0; i < sample; i++) {
		if (i & 1)
			snprintf(p, sizeof(path) - (p - path), "x%llu",
				 (unsigned long long)rnd());
		else
			snprintf(p, sizeof(path) - (p - path), "e%07u-!",
				 (unsigned int)(rnd() % n));
		if (lstat(path, &st) == 0 || errno != ENOENT)
			bad_abs++;
	}
	tl = now_s() - tl;
	printf("# stat: %u absent names in %.2f s (%.1f us each), %llu wrong\n",
	       sample, tl, sample ? tl * 1e6 / sample : 0.0, bad_abs);

	for (id = 0; id < n; id++)
		links[id % nf] += !gone[id];
	for (i = 0; i < nf; i++) {
		snprintf(path, sizeof(path), "%s/f%02u", dir, i);
		if (lstat(path, &st) || st.st_nlink != links[i] + 1) {
			if (bad_nlink++ < 3)
				printf("# %s: nlink %lu, want %u\n", path,
				       (unsigned long)st.st_nlink,
				       links[i] + 1);
		}
	}
	printf("# nlink: %u files, %llu wrong\n", nf, bad_nlink);
	free(seen);
	free(gone);
	free(fino);
	free(links);
	return miss || dup || unknown || wrong || bad_seek || bad_stat ||
	       bad_abs || bad_nlink;
}

static unsigned int
arg(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end || v > 100000000ul) {
		fprintf(stderr, "bigdirutil: bad number %s\n", s);
		exit(2);
	}
	return (unsigned int)v;
}

int
main(int argc, char **argv)
{
	if (argc < 5)
		goto usage;
	dir = argv[2];
	n = arg(argv[3]);
	nf = arg(argv[4]);
	if (n < 1 || nf < 1 || nf > 99 || n % 7919 == 0)
		goto usage;
	if (!strcmp(argv[1], "mktree") && argc == 5)
		return mktree();
	if (!strcmp(argv[1], "change") && argc == 7 &&
	    arg(argv[5]) <= arg(argv[6]) && arg(argv[6]) <= n)
		return change(arg(argv[5]), arg(argv[6]));
	if (!strcmp(argv[1], "check") && arg(argv[5]) <= n &&
	    (argc == 7 || (argc == 8 && !strcmp(argv[7], "nordir"))))
		return check(arg(argv[5]), arg(argv[6]), argc == 7);
usage:
	fprintf(stderr, "usage: bigdirutil mktree DIR N F | change DIR N F K0 K1 | "
		"check DIR N F K SAMPLE [nordir]\n");
	return 2;
}
