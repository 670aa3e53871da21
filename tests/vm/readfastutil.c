// SPDX-License-Identifier: GPL-2.0
/*
 * readfastutil - the read fast path's torture and benchmark helper, run
 * inside the test guest (tests/vm/guest/kmod-readfast.sh,
 * tests/bench/guest/vm-readfast.sh).
 *
 *   readfastutil torture FILE SECONDS READERS SEED
 *	One writer thread and READERS reader threads (one fd each) on FILE.
 *	The writer runs numbered operations k = 1, 2, ...: buffered
 *	overwrites and extending writes, O_DIRECT writes, truncate down,
 *	truncate up, punch hole (all page aligned, within NPAGES pages),
 *	and POSIX_FADV_DONTNEED now and then.  Every byte a write puts at
 *	offset o says which operation wrote it: stamp(k, o), never 0.
 *	Before operation k the writer records what it will do (ops[k %
 *	RING]) and publishes started = k; afterwards it sets lastdef[page]
 *	for every page it defined (version, and whether it zeroed it) and
 *	then done = k.  A reader takes d = done, L = lastdef[p], does a
 *	short pread (1..64 bytes inside page p, at a random offset), then
 *	s = started; each byte it got must be what L defined there, or what
 *	an operation in (d, s] (one that overlapped the read) wrote or
 *	zeroed there.  Anything else - a byte of an older version, of
 *	another offset, of another file, zeros nobody wrote - is a
 *	violation: printed, counted, exit 1.
 *
 *   readfastutil bench FILE THREADS SECONDS SIZE PAGES
 *	THREADS threads, one fd each, pread SIZE bytes at offsets spread
 *	over the first PAGES pages of FILE (PAGES = 1: the same page, the
 *	seed's test) for SECONDS; prints "reads_per_sec N".
 *
 *   readfastutil cold FILE SECONDS
 *	the cold-cache control: POSIX_FADV_DONTNEED, then one 16-byte pread,
 *	in a loop; prints "reads_per_sec N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PG	4096
#define NPAGES	64
#define RING	4096
#define MAXLEN	64

struct op {
	uint32_t	wlo, whi;	/* pages written [wlo, whi) */
	uint32_t	zlo, zhi;	/* pages zeroed [zlo, zhi) */
};

static const char *path;
static int seconds, nreaders;
static struct op ops[RING];
static _Atomic uint64_t started, done, lastdef[NPAGES];	/* k << 1 | zero */
static _Atomic int stop;
static _Atomic uint64_t nreads, nviol, nwops;

static uint8_t stamp(uint64_t k, uint64_t o)
{
	return (uint8_t)(1 + (k * 97 + o * 13 + (o >> 12) * 53) % 251);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(uint8_t *buf, uint64_t k, uint32_t lo, uint32_t hi)
{
	uint64_t o;

	for (o = (uint64_t)lo * PG; o < (uint64_t)hi * PG; o++)
		buf[o - (uint64_t)lo * PG] = stamp(k, o);
}

static void *writer(void *arg)
{
	uint64_t seed = (uintptr_t)arg, k = 0;
	uint32_t size = 0, p, n, i;	/* in pages */
	uint8_t *buf;
	int fd, dfd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	dfd = open(path, O_RDWR | O_DIRECT);
	if (fd < 0 || dfd < 0)
		die("open (writer)");
	if (posix_memalign((void **)&buf, PG, NPAGES * PG))
		die("posix_memalign");
	while (!atomic_load(&stop)) {
		unsigned int what = rnd(&seed) % 12;
		struct op *op;

		if (what == 11) {
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			continue;
		}
		k++;
		op = &ops[k % RING];
		memset(op, 0, sizeof(*op));
		p = rnd(&seed) % NPAGES;
		n = 1 + rnd(&seed) % 4;
		if (p + n > NPAGES)
			n = NPAGES - p;
		if (what < 6) {			/* write, buffered or direct */
			op->wlo = p;
			op->whi = p + n;
			if (p > size) {
				op->zlo = size;
				op->zhi = p;
			}
		} else if (what < 8) {		/* truncate down */
			p = size ? rnd(&seed) % (size + 1) : 0;
			op->zlo = p;
			op->zhi = NPAGES;
		} else if (what < 9) {		/* truncate up */
			if (p < size)
				p = size + (NPAGES - size) / 2;
			op->zlo = size;
			op->zhi = p;
		} else {			/* punch */
			if (p + n > size) {
				k--;
				continue;
			}
			op->zlo = p;
			op->zhi = p + n;
		}
		atomic_store(&started, k);
		if (what < 6) {
			fill(buf, k, p, p + n);
			if (pwrite(what < 4 ? fd : dfd, buf, (size_t)n * PG,
				   (off_t)p * PG) != (ssize_t)n * PG)
				die("pwrite");
			if (p + n > size)
				size = p + n;
		} else if (what < 9) {
			if (ftruncate(fd, (off_t)p * PG))
				die("ftruncate");
			size = p;
		} else if (fallocate(fd, FALLOC_FL_PUNCH_HOLE |
				     FALLOC_FL_KEEP_SIZE, (off_t)p * PG,
				     (off_t)n * PG)) {
			die("fallocate punch");
		}
		for (i = op->zlo; i < op->zhi; i++)
			atomic_store(&lastdef[i], k << 1 | 1);
		for (i = op->wlo; i < op->whi; i++)
			atomic_store(&lastdef[i], k << 1);
		atomic_store(&done, k);
		atomic_fetch_add(&nwops, 1);
	}
	close(fd);
	close(dfd);
	free(buf);
	return NULL;
}

/* may byte b at offset o (page p) come from operation k? */
static int from_op(uint64_t k, uint32_t p, uint64_t o, uint8_t b)
{
	const struct op *op = &ops[k % RING];

	if (p >= op->wlo && p < op->whi && b == stamp(k, o))
		return 1;
	return p >= op->zlo && p < op->zhi && b == 0;
}

static int byte_ok(uint64_t L, uint64_t d, uint64_t s, uint32_t p,
		   uint64_t o, uint8_t b)
{
	uint64_t k;

	if (L & 1 ? b == 0 : b == stamp(L >> 1, o))
		return 1;
	if (!L && b == 0)
		return 1;	/* never defined: a hole */
	if (s - d >= RING / 2)
		return 1;	/* the ring wrapped: cannot tell */
	for (k = d + 1; k <= s; k++)
		if (from_op(k, p, o, b))
			return 1;
	return 0;
}

static void *reader(void *arg)
{
	uint64_t seed = (uintptr_t)arg, reads = 0, viol = 0;
	uint8_t buf[MAXLEN];
	int fd, i;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open (reader)");
	while (!atomic_load(&stop)) {
		uint32_t p = rnd(&seed) % NPAGES;
		size_t len = 1 + rnd(&seed) % (rnd(&seed) % 4 ? 16 : MAXLEN);
		uint64_t off = rnd(&seed) % (PG - len + 1), L, d, s;
		uint64_t pos = (uint64_t)p * PG + off;
		ssize_t n;

		d = atomic_load(&done);
		L = atomic_load(&lastdef[p]);
		n = pread(fd, buf, len, (off_t)pos);
		s = atomic_load(&started);
		if (n < 0)
			die("pread");
		reads++;
		for (i = 0; i < n; i++) {
			if (byte_ok(L, d, s, p, pos + i, buf[i]))
				continue;
			viol++;
			if (viol <= 5)
				fprintf(stderr,
					"VIOLATION: offset %llu byte 0x%02x: page %u last defined by op %llu (%s, byte 0x%02x), ops %llu..%llu overlapped the read\n",
					(unsigned long long)(pos + i), buf[i],
					p, (unsigned long long)(L >> 1),
					L & 1 ? "zeroed" : "written",
					L & 1 ? 0 : stamp(L >> 1, pos + i),
					(unsigned long long)d + 1,
					(unsigned long long)s);
			break;
		}
	}
	atomic_fetch_add(&nreads, reads);
	atomic_fetch_add(&nviol, viol);
	close(fd);
	return NULL;
}

static int torture(int argc, char **argv)
{
	pthread_t w, r[64];
	uint64_t seed;
	int i;

	if (argc != 6)
		return 2;
	path = argv[2];
	seconds = atoi(argv[3]);
	nreaders = atoi(argv[4]);
	seed = strtoull(argv[5], NULL, 0) * 2654435761ULL + 1;
	if (nreaders < 1 || nreaders > 64)
		return 2;
	if (pthread_create(&w, NULL, writer, (void *)(uintptr_t)seed))
		die("pthread_create");
	usleep(100000);		/* the file exists */
	for (i = 0; i < nreaders; i++)
		if (pthread_create(&r[i], NULL, reader,
				   (void *)(uintptr_t)(seed + 77 * (i + 1))))
			die("pthread_create");
	sleep(seconds);
	atomic_store(&stop, 1);
	pthread_join(w, NULL);
	for (i = 0; i < nreaders; i++)
		pthread_join(r[i], NULL);
	printf("readfastutil: %llu reads, %llu writer operations, %llu violations\n",
	       (unsigned long long)nreads, (unsigned long long)nwops,
	       (unsigned long long)nviol);
	return nviol ? 1 : 0;
}

struct bench {
	pthread_t	t;
	size_t		size;
	uint32_t	pages;
	uint64_t	reads;
};

static void *bench_thread(void *arg)
{
	struct bench *b = arg;
	uint64_t seed = (uintptr_t)b | 1, reads = 0;
	char buf[PG];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die("open (bench)");
	while (!atomic_load(&stop)) {
		off_t pos = (off_t)(b->pages > 1 ? rnd(&seed) % b->pages : 0) *
			    PG;

		if (pread(fd, buf, b->size, pos) != (ssize_t)b->size)
			die("pread (bench)");
		reads++;
	}
	b->reads = reads;
	close(fd);
	return NULL;
}

static int bench(int argc, char **argv)
{
	struct bench b[256];
	uint64_t total = 0;
	int i, n;
	double t0;

	if (argc != 7)
		return 2;
	path = argv[2];
	n = atoi(argv[3]);
	seconds = atoi(argv[4]);
	if (n < 1 || n > 256)
		return 2;
	for (i = 0; i < n; i++) {
		b[i].size = strtoul(argv[5], NULL, 0);
		b[i].pages = strtoul(argv[6], NULL, 0);
		if (b[i].size < 1 || b[i].size > PG || b[i].pages < 1)
			return 2;
	}
	t0 = now();
	for (i = 0; i < n; i++)
		if (pthread_create(&b[i].t, NULL, bench_thread, &b[i]))
			die("pthread_create");
	sleep(seconds);
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++) {
		pthread_join(b[i].t, NULL);
		total += b[i].reads;
	}
	printf("reads_per_sec %.0f\n", total / (now() - t0));
	return 0;
}

static int cold(int argc, char **argv)
{
	uint64_t reads = 0;
	char buf[16];
	double t0, t;
	int fd;

	if (argc != 4)
		return 2;
	fd = open(argv[2], O_RDONLY);
	if (fd < 0)
		die("open (cold)");
	t0 = now();
	do {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (pread(fd, buf, sizeof(buf), 0) != sizeof(buf))
			die("pread (cold)");
		reads++;
		t = now();
	} while (t - t0 < atoi(argv[3]));
	printf("reads_per_sec %.0f\n", reads / (t - t0));
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	if (argc > 1 && !strcmp(argv[1], "torture"))
		ret = torture(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "bench"))
		ret = bench(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "cold"))
		ret = cold(argc, argv);
	if (ret == 2)
		fprintf(stderr, "usage: readfastutil torture FILE SECONDS READERS SEED\n"
			"       readfastutil bench FILE THREADS SECONDS SIZE PAGES\n"
			"       readfastutil cold FILE SECONDS\n");
	return ret;
}
