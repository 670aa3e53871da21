// SPDX-License-Identifier: GPL-2.0
/*
 * resvutil.c - guest helper of tests/vm/kmod-resv.sh: fill-to-full while
 * GC runs, with a model of every byte write() accepted.
 *
 *   resvutil stress DIR MODEL FILLERS OVERWRITERS OPS SEED
 *     FILLERS threads create files of up to 1 MiB until ENOSPC, then
 *     delete one of theirs now and then and go on (so the filesystem
 *     stays full); OVERWRITERS threads own four 1 MiB files each and
 *     pwrite 4..64 KiB into them at random, sometimes recreating one
 *     whole.  Each thread does OPS operations.  write() may fail with
 *     ENOSPC (only there: the model keeps what was accepted); any other
 *     write error, and ANY error of fsync() or close(), fails the run.
 *     Then the model is written to MODEL (text).
 *   resvutil verify MODEL
 *     every file in the model holds exactly the accepted bytes.
 *
 * Block contents name (thread, file, block, generation), so a block
 * from the wrong place or time is caught.  Prints counts on stdout, one
 * line per problem on stderr; exit 0 / 1 (problem) / 2 (usage).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define BLK		4096u
#define FBLKS		256u		/* blocks per file at most */
#define MAXF		512		/* files per thread */
#define OWFILES		4

struct file {
	char		path[256];
	int		live;
	uint32_t	nblk;		/* size in blocks (whole blocks only) */
	uint32_t	gen[FBLKS];	/* generation per block */
};

struct thr {
	pthread_t	t;
	int		id, filler;
	const char	*dir;
	long		ops;
	uint64_t	rnd;
	struct file	*f;
	int		nf;
	long		enospc, writes, fsyncs, bad;
};

static uint64_t
xs(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static void
fill(unsigned char *b, int id, int fi, uint32_t blk, uint32_t gen)
{
	uint64_t x = ((uint64_t)id << 48) ^ ((uint64_t)fi << 32) ^
		     ((uint64_t)blk << 16) ^ gen ^ 0x9e3779b97f4a7c15ull;
	uint32_t i;

	for (i = 0; i < BLK; i += 8) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		memcpy(b + i, &x, 8);
	}
}

static void
problem(struct thr *t, const char *what, const char *path, int err)
{
	fprintf(stderr, "thread %d: %s %s: %s\n", t->id, what, path,
		strerror(err));
	t->bad++;
}

/*
 * writes blocks [b0, b0+n) of file fi with generation gen; updates the
 * model for the whole blocks write() accepted.  Returns 0, or 1 on ENOSPC.
 */
static int
put(struct thr *t, int fd, int fi, uint32_t b0, uint32_t n, uint32_t gen)
{
	static __thread unsigned char buf[16 * BLK];
	struct file *f = &t->f[fi];
	uint32_t i, done = 0;
	ssize_t r;

	for (i = 0; i < n; i++)
		fill(buf + (size_t)i * BLK, t->id, fi, b0 + i, gen);
	while (done < n * BLK) {
		r = pwrite(fd, buf + done, n * BLK - done,
			   (off_t)b0 * BLK + done);
		if (r < 0) {
			if (errno == ENOSPC) {
				t->enospc++;
				break;
			}
			problem(t, "write", f->path, errno);
			break;
		}
		done += (uint32_t)r;
	}
	t->writes++;
	for (i = 0; i < done / BLK; i++) {
		f->gen[b0 + i] = gen;
		if (b0 + i + 1 > f->nblk)
			f->nblk = b0 + i + 1;
	}
	if (done % BLK) {
		/* block-aligned writes stop at a page (write_begin) */
		fprintf(stderr, "thread %d: %s: write accepted %u bytes (not whole blocks)\n",
			t->id, f->path, done);
		t->bad++;
	}
	return done < n * BLK;
}

static int
do_close(struct thr *t, int fd, const char *path, int sync)
{
	int ret = 0;

	if (sync) {
		t->fsyncs++;
		if (fsync(fd)) {
			problem(t, "fsync", path, errno);
			ret = -1;
		}
	}
	if (close(fd)) {
		problem(t, "close", path, errno);
		ret = -1;
	}
	return ret;
}

/* creates file fi with nblk blocks (as many as are accepted) */
static int
create(struct thr *t, int fi, uint32_t nblk, uint32_t gen)
{
	struct file *f = &t->f[fi];
	int fd, full = 0;
	uint32_t b, n;

	snprintf(f->path, sizeof(f->path), "%s/t%d_%d", t->dir, t->id, fi);
	fd = open(f->path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0) {
		if (errno == ENOSPC) {
			t->enospc++;
			f->live = 0;
			return 1;
		}
		problem(t, "open", f->path, errno);
		return -1;
	}
	f->live = 1;
	f->nblk = 0;
	for (b = 0; b < nblk && !full; b += n) {
		n = nblk - b < 16 ? nblk - b : 16;
		full = put(t, fd, fi, b, n, gen);
	}
	do_close(t, fd, f->path, xs(&t->rnd) % 4 == 0);
	return full;
}

static void
drop(struct thr *t, int fi)
{
	struct file *f = &t->f[fi];

	if (unlink(f->path))
		problem(t, "unlink", f->path, errno);
	f->live = 0;
}

static void
filler(struct thr *t)
{
	long op;
	int fi, k;

	for (op = 0; op < t->ops && t->nf < MAXF; op++) {
		if (create(t, t->nf, 16 + (uint32_t)(xs(&t->rnd) % (FBLKS - 15)),
			   (uint32_t)op + 1) > 0 ||
		    xs(&t->rnd) % 8 == 0) {
			/* full (or churn): delete one of ours */
			for (k = 0; k < 8; k++) {
				fi = (int)(xs(&t->rnd) % (uint64_t)(t->nf + 1));
				if (fi <= t->nf && t->f[fi].live &&
				    fi != t->nf) {
					drop(t, fi);
					break;
				}
			}
		}
		t->nf++;
	}
}

static void
overwriter(struct thr *t)
{
	uint32_t b0, n, gen = 1;
	long op;
	int fi, fd;

	for (fi = 0; fi < OWFILES; fi++)
		create(t, fi, FBLKS, gen);
	t->nf = OWFILES;
	for (op = 0; op < t->ops; op++) {
		fi = (int)(xs(&t->rnd) % OWFILES);
		gen++;
		if (xs(&t->rnd) % 16 == 0 || !t->f[fi].live) {
			create(t, fi, FBLKS, gen);
			continue;
		}
		if (!t->f[fi].nblk)
			continue;
		n = 1 + (uint32_t)(xs(&t->rnd) % 16);
		b0 = (uint32_t)(xs(&t->rnd) % t->f[fi].nblk);
		if (b0 + n > t->f[fi].nblk)
			n = t->f[fi].nblk - b0;
		fd = open(t->f[fi].path, O_WRONLY);
		if (fd < 0) {
			problem(t, "open", t->f[fi].path, errno);
			continue;
		}
		put(t, fd, fi, b0, n, gen);
		do_close(t, fd, t->f[fi].path, xs(&t->rnd) % 8 == 0);
	}
}

static void *
run_thread(void *arg)
{
	struct thr *t = arg;

	if (t->filler)
		filler(t);
	else
		overwriter(t);
	return NULL;
}

static int
stress(char **av)
{
	const char *dir = av[0], *model = av[1];
	int nfill = atoi(av[2]), now = atoi(av[3]), nt = nfill + now, i, j;
	long ops = atol(av[4]), enospc = 0, writes = 0, fsyncs = 0, bad = 0;
	uint64_t seed = strtoull(av[5], NULL, 0);
	struct thr *t = calloc((size_t)nt, sizeof(*t));
	uint32_t b;
	FILE *m;

	if (!t || nt < 1)
		return 2;
	for (i = 0; i < nt; i++) {
		t[i].id = i;
		t[i].filler = i < nfill;
		t[i].dir = dir;
		t[i].ops = ops;
		t[i].rnd = seed * 0x9e3779b97f4a7c15ull + (uint64_t)i + 1;
		t[i].f = calloc(MAXF + 1, sizeof(struct file));
		if (!t[i].f || pthread_create(&t[i].t, NULL, run_thread, &t[i]))
			return 2;
	}
	for (i = 0; i < nt; i++)
		pthread_join(t[i].t, NULL);
	m = fopen(model, "w");
	if (!m)
		return 2;
	for (i = 0; i < nt; i++) {
		enospc += t[i].enospc;
		writes += t[i].writes;
		fsyncs += t[i].fsyncs;
		bad += t[i].bad;
		for (j = 0; j <= MAXF; j++) {
			struct file *f = &t[i].f[j];

			if (!f->live)
				continue;
			fprintf(m, "%s %d %d %u", f->path, i, j, f->nblk);
			for (b = 0; b < f->nblk; b++)
				fprintf(m, " %u", f->gen[b]);
			fprintf(m, "\n");
		}
	}
	if (fclose(m))
		return 2;
	printf("writes %ld enospc %ld fsyncs %ld problems %ld\n", writes,
	       enospc, fsyncs, bad);
	return bad ? 1 : 0;
}

static int
verify(const char *model)
{
	unsigned char want[BLK], got[BLK];
	char path[256];
	long files = 0, blocks = 0, bad = 0;
	int id, fi, fd;
	uint32_t nblk, b, gen;
	struct stat st;
	FILE *m = fopen(model, "r");

	if (!m)
		return 2;
	while (fscanf(m, "%255s %d %d %u", path, &id, &fi, &nblk) == 4) {
		files++;
		fd = open(path, O_RDONLY);
		if (fd < 0 || fstat(fd, &st)) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			bad++;
			for (b = 0; b < nblk; b++)
				if (fscanf(m, "%u", &gen) != 1)
					return 2;
			continue;
		}
		if (st.st_size != (off_t)nblk * BLK) {
			fprintf(stderr, "%s: size %lld, accepted %u blocks\n",
				path, (long long)st.st_size, nblk);
			bad++;
		}
		for (b = 0; b < nblk; b++) {
			if (fscanf(m, "%u", &gen) != 1)
				return 2;
			fill(want, id, fi, b, gen);
			if (pread(fd, got, BLK, (off_t)b * BLK) != BLK ||
			    memcmp(got, want, BLK)) {
				fprintf(stderr, "%s: block %u is not generation %u\n",
					path, b, gen);
				bad++;
			}
			blocks++;
		}
		close(fd);
	}
	fclose(m);
	printf("verified %ld files, %ld blocks, %ld problems\n", files,
	       blocks, bad);
	return bad ? 1 : 0;
}

int
main(int argc, char **argv)
{
	if (argc == 8 && !strcmp(argv[1], "stress"))
		return stress(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "verify"))
		return verify(argv[2]);
	fprintf(stderr, "usage: resvutil stress DIR MODEL FILLERS OVERWRITERS OPS SEED\n"
		"       resvutil verify MODEL\n");
	return 2;
}
