// SPDX-License-Identifier: GPL-2.0
/*
 * gazefsx.c - a model-checked random file exerciser for the guest
 * (tests/vm/guest/kmod-fsx.sh), in the spirit of fsx.
 *
 *   gazefsx run DIR NOPS SEED
 *        NFILES files in DIR, NOPS random operations: pwrite, truncate up
 *        and down, punch hole, zero range, allocate (with and without
 *        KEEP_SIZE: preallocation), stores through a shared
 *        writable mmap (with and without msync), fsync, fdatasync,
 *        syncfs, reads through read() and through mmap, and small
 *        files created and removed beside them (not modelled: they
 *        make the next fsync one of a file's nodes alone).  Every read is
 *        compared with an in-memory model of each file; at the end every
 *        file is read whole and compared.
 *   gazefsx crash DIR NOPS SEED STATE
 *        the same operations, then GAZE_IOC_SHUTDOWN (nologflush: the
 *        filesystem stops as if the power failed) and writes to STATE
 *        what must survive: each file's content as of its last fsync,
 *        fdatasync or syncfs, and which bytes changed after it.
 *   gazefsx verify DIR STATE
 *        after umount + mount: every byte synced and not changed since
 *        must read back; a file whose size did not change after its sync
 *        must have that size, and one not changed at all after its
 *        fsync or syncfs the mtime it had then.
 * Exit 0; 1 with "gazefsx: ..." on stderr at the first mismatch or
 * unexpected error (the operation log's tail is printed); 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gaze_ioctl.h"

#define NFILES		4
#define MAXSZ		(2u << 20)	/* bytes a file may reach */
#define MAXLEN		(96u << 10)	/* bytes one operation touches */
#define LOGN		16

struct file {
	int		fd;
	uint64_t	size;		/* model */
	uint8_t		*cur;		/* model content, MAXSZ */
	/* as of the last sync, and what changed since */
	uint64_t	dsize;
	uint8_t		*dur;
	uint8_t		*dirty;		/* per byte, below MAXSZ */
	int		resized;	/* size changed since the sync */
	/* mtime as of the last fsync or syncfs (mt_ok; not fdatasync),
	 * and whether an operation may have changed it since */
	int		mt_ok, touched;
	struct timespec	dmtime;
};

static struct file F[NFILES];
static uint64_t rs;
static char logbuf[LOGN][96];
static unsigned long nop;
static const char *dir;
static int paranoid;		/* GAZEFSX_PARANOID=1: all files after each op */

static uint64_t
rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static void __attribute__((format(printf, 1, 2)))
oplog(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(logbuf[nop % LOGN], sizeof(logbuf[0]), fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	unsigned long i;
	va_list ap;

	fprintf(stderr, "gazefsx: op %lu: ", nop);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	for (i = nop >= LOGN ? nop - LOGN + 1 : 0; i <= nop; i++)
		fprintf(stderr, "gazefsx:   %lu: %s\n", i, logbuf[i % LOGN]);
	exit(1);
}

static void
mark(struct file *f, uint64_t a, uint64_t b)
{
	if (b > MAXSZ)
		b = MAXSZ;
	if (a < b)
		memset(f->dirty + a, 1, b - a);
}

static void
do_sync(struct file *f, int meta)
{
	struct stat st;

	memcpy(f->dur, f->cur, f->size);
	f->dsize = f->size;
	memset(f->dirty, 0, MAXSZ);
	f->resized = 0;
	f->touched = 0;
	f->mt_ok = meta;
	if (meta) {
		if (fstat(f->fd, &st))
			die("fstat: %s", strerror(errno));
		f->dmtime = st.st_mtim;
	}
}

static void
compare(struct file *f, int i, const uint8_t *got, uint64_t off,
	uint64_t len, const char *how)
{
	uint64_t k;

	if (!memcmp(got, f->cur + off, len))
		return;
	for (k = 0; k < len && got[k] == f->cur[off + k]; k++)
		;
	die("file %d: %s of %llu+%llu: byte %llu is %02x, model %02x", i,
	    how, (unsigned long long)off, (unsigned long long)len,
	    (unsigned long long)(off + k), got[k], f->cur[off + k]);
}

static void
op_write(int i, uint64_t off, uint64_t len)
{
	struct file *f = &F[i];
	uint8_t *p = f->cur + off;
	uint64_t k, seed = rnd();
	ssize_t n;

	oplog("write f%d %llu+%llu", i, (unsigned long long)off,
	      (unsigned long long)len);
	f->touched = 1;
	if (off > f->size)		/* the gap reads as zeros */
		memset(f->cur + f->size, 0, off - f->size);
	for (k = 0; k < len; k++)
		p[k] = (uint8_t)(seed >> (8 * (k % 7))) + (uint8_t)k;
	n = pwrite(f->fd, p, len, off);
	if (n != (ssize_t)len)
		die("pwrite f%d: %zd (%s)", i, n, strerror(errno));
	mark(f, off, off + len);
	if (off + len > f->size) {
		mark(f, f->size, off);
		f->size = off + len;
		f->resized = 1;
	}
}

static void
op_truncate(int i, uint64_t size)
{
	struct file *f = &F[i];

	oplog("truncate f%d %llu (was %llu)", i, (unsigned long long)size,
	      (unsigned long long)f->size);
	f->touched = 1;
	if (ftruncate(f->fd, size))
		die("ftruncate f%d: %s", i, strerror(errno));
	if (size > f->size) {
		memset(f->cur + f->size, 0, size - f->size);
		mark(f, f->size, size);
	} else {
		mark(f, size, f->size);
	}
	if (size != f->size)
		f->resized = 1;
	f->size = size;
}

static void
op_fallocate(int i, int mode, uint64_t off, uint64_t len)
{
	struct file *f = &F[i];
	uint64_t end = off + len;

	oplog("%s%s f%d %llu+%llu", mode & FALLOC_FL_PUNCH_HOLE ? "punch" :
	      mode & FALLOC_FL_ZERO_RANGE ? "zero" : "allocate",
	      mode & FALLOC_FL_KEEP_SIZE ? " keep" : "", i,
	      (unsigned long long)off, (unsigned long long)len);
	f->touched = 1;
	if (fallocate(f->fd, mode, off, len))
		die("fallocate f%d: %s", i, strerror(errno));
	if (off < f->size &&
	    (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))) {
		if (end > f->size)
			end = f->size;
		memset(f->cur + off, 0, end - off);
		mark(f, off, end);
	}
	if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > f->size) {
		memset(f->cur + f->size, 0, off + len - f->size);
		mark(f, f->size, off + len);
		f->size = off + len;
		f->resized = 1;
	}
}

static void
op_mmap(int i, uint64_t off, uint64_t len, int write, int sync)
{
	struct file *f = &F[i];
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t base = off & ~(uint64_t)(pg - 1), k, seed = rnd();
	uint8_t *m;

	if (off + len > f->size)
		len = f->size > off ? f->size - off : 0;
	if (!len)
		return;
	oplog("mmap %s f%d %llu+%llu%s", write ? "store" : "load", i,
	      (unsigned long long)off, (unsigned long long)len,
	      sync ? " msync" : "");
	m = mmap(NULL, off + len - base, write ? PROT_READ | PROT_WRITE :
		 PROT_READ, MAP_SHARED, f->fd, base);
	if (m == MAP_FAILED)
		die("mmap f%d: %s", i, strerror(errno));
	if (write) {
		f->touched = 1;
		for (k = 0; k < len; k++)
			f->cur[off + k] = (uint8_t)(seed >> (8 * (k % 5))) ^
					  (uint8_t)k;
		memcpy(m + (off - base), f->cur + off, len);
		mark(f, off, off + len);
		if (sync && msync(m, off + len - base, MS_SYNC))
			die("msync f%d: %s", i, strerror(errno));
	} else {
		compare(f, i, m + (off - base), off, len, "mmap load");
	}
	munmap(m, off + len - base);
}

static void
op_read(int i, uint64_t off, uint64_t len)
{
	struct file *f = &F[i];
	static uint8_t buf[MAXLEN + 16];
	uint64_t want;
	ssize_t n;

	oplog("read f%d %llu+%llu", i, (unsigned long long)off,
	      (unsigned long long)len);
	n = pread(f->fd, buf, len, off);
	want = off >= f->size ? 0 : off + len > f->size ? f->size - off : len;
	if (n != (ssize_t)want)
		die("pread f%d %llu+%llu: %zd, model %llu", i,
		    (unsigned long long)off, (unsigned long long)len, n,
		    (unsigned long long)want);
	compare(f, i, buf, off, want, "read");
}

static void
op_sync(int i, int how)
{
	int d, k;

	oplog("%s f%d", how == 0 ? "fsync" : how == 1 ? "fdatasync" :
	      "syncfs", i);
	if (how == 2) {
		d = open(dir, O_RDONLY | O_DIRECTORY);
		if (d < 0 || syncfs(d))
			die("syncfs: %s", strerror(errno));
		close(d);
		for (k = 0; k < NFILES; k++)
			do_sync(&F[k], 1);
		return;
	}
	if ((how ? fdatasync(F[i].fd) : fsync(F[i].fd)))
		die("fsync f%d: %s", i, strerror(errno));
	do_sync(&F[i], !how);
}

/*
 * A namespace change beside the model's files: a small file created, and
 * now and then an older one removed.  The next fsync of a model file
 * then meets directory changes the whole state cannot roll forward
 * with, and GAZE writes that file's nodes alone; crash mode checks the
 * result.  These files are not part of the model.
 */
static void
op_noise(void)
{
	static unsigned int made;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/noise%u", dir, made);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, path, 16) != 16 || close(fd))
		die("noise file %s: %s", path, strerror(errno));
	if (made % 4 == 3) {
		snprintf(path, sizeof(path), "%s/noise%u", dir, made - 3);
		if (unlink(path))
			die("unlink %s: %s", path, strerror(errno));
	}
	made++;
}

static void
one_op(void)
{
	uint64_t r = rnd(), off, len;
	int i = (int)(r % NFILES), op = (int)((r >> 8) % 100);
	struct file *f = &F[i];

	len = 1 + rnd() % ((r >> 16) % 4 ? 4096 * 2 : MAXLEN);
	off = rnd() % (f->size + (MAXSZ - f->size) / 8 + 1);
	if (off + len > MAXSZ)
		off = MAXSZ - len;
	if (op < 30)
		op_write(i, off, len);
	else if (op < 36)
		op_truncate(i, rnd() % MAXSZ / ((r >> 24) % 2 ? 1 : 8));
	else if (op < 41)
		op_fallocate(i, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			     off, len);
	else if (op < 44)
		op_fallocate(i, FALLOC_FL_ZERO_RANGE |
			     ((r >> 28) % 2 ? FALLOC_FL_KEEP_SIZE : 0), off, len);
	else if (op < 47)
		op_fallocate(i, (r >> 28) % 2 ? FALLOC_FL_KEEP_SIZE : 0, off,
			     len);
	else if (op < 54)
		op_mmap(i, off, len, 1, (r >> 30) % 2);
	else if (op < 62)
		op_mmap(i, off, len, 0, 0);
	else if (op < 93)
		op_read(i, off, len);
	else if (op < 95)
		op_noise();
	else
		op_sync(i, (int)((r >> 32) % 3));
}

/* a fallocate of some mode on file i, then fsync */
static void
last_falloc(int i)
{
	static const int modes[] = {
		0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_ZERO_RANGE,
		FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	};
	uint64_t off = rnd() % (MAXSZ / 2), len = 1 + rnd() % MAXLEN;

	op_fallocate(i, modes[rnd() % 4], off, len);
	op_sync(i, 0);
}

static void
open_all(int create)
{
	char path[4096];
	struct stat st;
	int i;

	for (i = 0; i < NFILES; i++) {
		struct file *f = &F[i];

		snprintf(path, sizeof(path), "%s/fsx%d", dir, i);
		f->fd = open(path, O_RDWR | (create ? O_CREAT | O_TRUNC : 0),
			     0644);
		if (f->fd < 0)
			die("open %s: %s", path, strerror(errno));
		f->cur = calloc(1, MAXSZ);
		f->dur = calloc(1, MAXSZ);
		f->dirty = calloc(1, MAXSZ);
		if (!f->cur || !f->dur || !f->dirty)
			die("out of memory");
		if (fstat(f->fd, &st))
			die("fstat: %s", strerror(errno));
		f->size = (uint64_t)st.st_size;
	}
}

static void
check_all(void)
{
	static uint8_t buf[MAXSZ];
	ssize_t n;
	int i;

	for (i = 0; i < NFILES; i++) {
		n = pread(F[i].fd, buf, MAXSZ, 0);
		if (n != (ssize_t)F[i].size)
			die("file %d: read whole: %zd, model %llu", i, n,
			    (unsigned long long)F[i].size);
		compare(&F[i], i, buf, 0, F[i].size, "final read");
	}
}

static int
exercise(unsigned long nops, int crash, const char *state)
{
	unsigned int v = GAZE_SHUTDOWN_NOLOGFLUSH;
	FILE *out;
	int i, d;

	open_all(1);
	for (i = 0; i < NFILES; i++)
		do_sync(&F[i], 0);	/* empty; not yet synced, though */
	for (i = 0; i < NFILES; i++)
		F[i].resized = 1;	/* may vanish: created, never synced */
	for (nop = 0; nop < nops; nop++) {
		one_op();
		if (paranoid)
			check_all();
	}
	if (!crash) {
		check_all();
		return 0;
	}
	/* half the files end with a fallocate and an fsync: the crash must
	 * keep the mtime that fallocate set (stat showed it before) */
	for (i = 0; i < NFILES; i++)
		if (rnd() % 2)
			last_falloc(i);
	d = open(dir, O_RDONLY | O_DIRECTORY);
	if (d < 0 || ioctl(d, GAZE_IOC_SHUTDOWN, &v))
		die("GAZE_IOC_SHUTDOWN: %s", strerror(errno));
	close(d);
	out = fopen(state, "w");
	if (!out)
		die("%s: %s", state, strerror(errno));
	for (i = 0; i < NFILES; i++) {
		fwrite(&F[i].dsize, sizeof(F[i].dsize), 1, out);
		fwrite(&F[i].resized, sizeof(F[i].resized), 1, out);
		F[i].mt_ok &= !F[i].touched;
		fwrite(&F[i].mt_ok, sizeof(F[i].mt_ok), 1, out);
		fwrite(&F[i].dmtime, sizeof(F[i].dmtime), 1, out);
		fwrite(F[i].dur, 1, F[i].dsize, out);
		fwrite(F[i].dirty, 1, F[i].dsize, out);
	}
	if (fclose(out))
		die("%s: %s", state, strerror(errno));
	return 0;
}

static int
verify(const char *state)
{
	static uint8_t buf[MAXSZ];
	uint64_t k, checked = 0;
	int mtimes = 0;
	char path[4096];
	struct stat st;
	FILE *in;
	int i, fd;

	in = fopen(state, "r");
	if (!in)
		die("%s: %s", state, strerror(errno));
	for (i = 0; i < NFILES; i++) {
		struct file *f = &F[i];

		f->dur = calloc(1, MAXSZ);
		f->dirty = calloc(1, MAXSZ);
		if (fread(&f->dsize, sizeof(f->dsize), 1, in) != 1 ||
		    fread(&f->resized, sizeof(f->resized), 1, in) != 1 ||
		    fread(&f->mt_ok, sizeof(f->mt_ok), 1, in) != 1 ||
		    fread(&f->dmtime, sizeof(f->dmtime), 1, in) != 1 ||
		    f->dsize > MAXSZ ||
		    fread(f->dur, 1, f->dsize, in) != f->dsize ||
		    fread(f->dirty, 1, f->dsize, in) != f->dsize)
			die("%s: truncated state", state);
		snprintf(path, sizeof(path), "%s/fsx%d", dir, i);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			if (errno == ENOENT && f->resized && !f->dsize)
				continue;	/* never synced */
			die("open %s: %s", path, strerror(errno));
		}
		if (fstat(fd, &st))
			die("fstat: %s", strerror(errno));
		if (!f->resized && (uint64_t)st.st_size != f->dsize)
			die("file %d: size %llu after the crash, synced %llu",
			    i, (unsigned long long)st.st_size,
			    (unsigned long long)f->dsize);
		if (f->mt_ok && (st.st_mtim.tv_sec != f->dmtime.tv_sec ||
				 st.st_mtim.tv_nsec != f->dmtime.tv_nsec))
			die("file %d: mtime %lld.%09ld after the crash, %lld.%09ld when fsync'd (unchanged since)",
			    i, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			    (long long)f->dmtime.tv_sec, f->dmtime.tv_nsec);
		if (f->mt_ok)
			mtimes++;
		memset(buf, 0, sizeof(buf));
		if (pread(fd, buf, MAXSZ, 0) < 0)
			die("read %s: %s", path, strerror(errno));
		for (k = 0; k < f->dsize; k++) {
			if (f->dirty[k])
				continue;
			if (k >= (uint64_t)st.st_size || buf[k] != f->dur[k])
				die("file %d: synced byte %llu is %02x (size %llu), was %02x",
				    i, (unsigned long long)k, buf[k],
				    (unsigned long long)st.st_size, f->dur[k]);
			checked++;
		}
		close(fd);
	}
	fclose(in);
	printf("gazefsx: %llu synced bytes and %d fsync'd mtimes verified\n",
	       (unsigned long long)checked, mtimes);
	return 0;
}

static int
usage(void)
{
	fprintf(stderr, "usage: gazefsx run DIR NOPS SEED\n"
		"       gazefsx crash DIR NOPS SEED STATE\n"
		"       gazefsx verify DIR STATE\n");
	return 2;
}

int
main(int argc, char **argv)
{
	if (argc < 4)
		return usage();
	dir = argv[2];
	paranoid = getenv("GAZEFSX_PARANOID") != NULL;
	if (!strcmp(argv[1], "verify") && argc == 4)
		return verify(argv[3]);
	if (argc < 5)
		return usage();
	rs = strtoull(argv[4], NULL, 0) * 0x9e3779b97f4a7c15ull + 1;
	if (!strcmp(argv[1], "run") && argc == 5)
		return exercise(strtoul(argv[3], NULL, 0), 0, NULL);
	if (!strcmp(argv[1], "crash") && argc == 6)
		return exercise(strtoul(argv[3], NULL, 0), 1, argv[5]);
	return usage();
}
