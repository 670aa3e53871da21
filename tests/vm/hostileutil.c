// SPDX-License-Identifier: GPL-2.0
/*
 * hostileutil.c - guest helper of tests/vm/kmod-hostile.sh: one mount of
 * a (damaged) image, used as a whole, in one process.
 *
 *   hostileutil sums DIR
 *     "HASH /PATH" for every regular file under DIR (FNV-1a 64 of the
 *     contents): the source tree's, made on the host, for "use".
 *   hostileutil use IMAGE MNT MODE TARGET SUMS LABEL
 *     MODE: remount-ro | continue | ro.  Attaches IMAGE to a free loop
 *     device (read-only for ro), mounts it as gaze at MNT (read-write
 *     with errors=MODE, or read-only), then uses it:
 *       reads   list (opendir/readdir of every directory, ls -R),
 *               stat (lstat of every entry), read (every regular file,
 *               to its end), readlink (every symlink), xattr (llistxattr
 *               and lgetxattr of every entry)
 *       writes  (read-write mounts) create, append, overwrite (block
 *               500: a direct node's range), truncate, chmod, setxattr,
 *               link, mkdir, rename, unlink, rmdir, rename-target and
 *               unlink-target (TARGET itself, removed recursively),
 *               syncfs, then the reads again (list2, ...)
 *     umounts and detaches.  The errno of every failed operation is
 *     recorded; one line on stdout sums the mount up:
 *       "rw|ro|refused:ERRNO OP:ERRNO*COUNT ... [->ro]"
 *     (COUNT: how many entries failed so when more than one; content*N:
 *     files read to their end whose bytes are not the source's; gone*N:
 *     source files the walk did not find).  Then zero or more lines
 *       "BAD what"    a failure of the rules (kmod-hostile.sh)
 *       "REASON text" the kernel's message for a refused mount
 *       "KMSG line"   a kernel line that must never appear (BUG,
 *                     WARNING, oops, lockups, hung tasks)
 *     Before each operation "SECONDS LABEL: MODE: OP" goes to the file
 *     $HOSTILE_CUR (the script's watchdog reads it) and an alarm of
 *     $HOSTILE_OPT seconds (default 60) is set: an operation that does
 *     not return ends the process by SIGALRM (exit 142), the file naming
 *     it.  Exit 0, or 2 on usage or set-up errors.
 *
 * The rules checked here: umount succeeds; with errors=remount-ro an
 * operation that failed with EIO or EUCLEAN leaves the mount read-only;
 * once read-only (by the error), a create fails with EROFS and every
 * file that read as its source before the writes, and that they did
 * not touch, reads the same again, its cached pages dropped; on a
 * read-only mount a create fails with EROFS.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>

#define MAXE	4096		/* entries of a walk */
#define MAXOPS	64

/* ---------------------------------------------------------------- */
/* Results                                                           */
/* ---------------------------------------------------------------- */

struct opres {
	char	name[24];
	int	err[8];		/* distinct errnos, in order of appearance */
	int	cnt[8];
	int	n;
};

static struct opres ops[MAXOPS];
static int nops;
static char bad[4096];
static int any_eio;		/* an operation failed with EIO/EUCLEAN */
static const char *cur_file, *label, *mode;
static unsigned int opt_s = 60;

static const char *
ename(int e)
{
	static char buf[16];

	switch (e) {
	case EIO: return "EIO";
	case EUCLEAN: return "EUCLEAN";
	case EROFS: return "EROFS";
	case ENOENT: return "ENOENT";
	case ESTALE: return "ESTALE";
	case ENOSPC: return "ENOSPC";
	case EINVAL: return "EINVAL";
	case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case ENOTEMPTY: return "ENOTEMPTY";
	case EBADMSG: return "EBADMSG";
	case ELOOP: return "ELOOP";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOMEM: return "ENOMEM";
	case EMLINK: return "EMLINK";
	case EOVERFLOW: return "EOVERFLOW";
	case EFBIG: return "EFBIG";
	case ERANGE: return "ERANGE";
	case ENODATA: return "ENODATA";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EBUSY: return "EBUSY";
	case E2BIG: return "E2BIG";
	case EXDEV: return "EXDEV";
	case EFAULT: return "EFAULT";
	case ENXIO: return "ENXIO";
	case ENODEV: return "ENODEV";
	case ENOTBLK: return "ENOTBLK";
	case EAGAIN: return "EAGAIN";
	case EINTR: return "EINTR";
	}
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

static void __attribute__((format(printf, 1, 2)))
addbad(const char *fmt, ...)
{
	size_t l = strlen(bad);
	va_list ap;

	if (l + 2 >= sizeof(bad))
		return;
	if (l)
		bad[l++] = ';', bad[l++] = ' ';
	va_start(ap, fmt);
	vsnprintf(bad + l, sizeof(bad) - l, fmt, ap);
	va_end(ap);
}

static struct opres *
opget(const char *name)
{
	int i;

	for (i = 0; i < nops; i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	if (nops == MAXOPS)
		return &ops[MAXOPS - 1];
	snprintf(ops[nops].name, sizeof(ops[nops].name), "%s", name);
	return &ops[nops++];
}

/* OP failed with E (one more entry) */
static void
fail_op(const char *name, int e)
{
	struct opres *o = opget(name);
	int i;

	if (e == EIO || e == EUCLEAN || e == EBADMSG)
		any_eio = 1;
	for (i = 0; i < o->n; i++)
		if (o->err[i] == e) {
			o->cnt[i]++;
			return;
		}
	if (o->n < 8) {
		o->err[o->n] = e;
		o->cnt[o->n++] = 1;
	}
}

/* a counter (content, gone): shown as NAME*N */
static int ncontent, ngone;

/* ---------------------------------------------------------------- */
/* The current operation, for the watchdog and the alarm             */
/* ---------------------------------------------------------------- */

static int times;		/* $HOSTILE_TIMES: each operation's time */

static void
step(const char *op)
{
	static char last[32];
	static double t0;
	char buf[256];
	double up = 0;
	FILE *f;
	int fd, l;

	alarm(0);
	f = fopen("/proc/uptime", "r");
	if (f) {
		if (fscanf(f, "%lf", &up) != 1)
			up = 0;
		fclose(f);
	}
	if (times && last[0])
		fprintf(stderr, "TIME %s %.2f\n", last, up - t0);
	snprintf(last, sizeof(last), "%s", op ? op : "");
	t0 = up;
	if (!cur_file)
		return;
	if (op)
		l = snprintf(buf, sizeof(buf), "%ld %s: %s: %s\n", (long)up,
			     label, mode, op);
	else
		l = snprintf(buf, sizeof(buf), "- idle\n");
	fd = open(cur_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, buf, l) != l)
			l = 0;
		close(fd);
	}
	if (op)
		alarm(opt_s);
}

/* ---------------------------------------------------------------- */
/* Contents                                                          */
/* ---------------------------------------------------------------- */

#define FNV_INIT	0xcbf29ce484222325ull

static uint64_t
fnv(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static char rbuf[1 << 16];

/* hash of the file's contents; 0 and errno on failure */
static int
hash_file(int dfd, const char *path, uint64_t *h, int uncached)
{
	int fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return errno;
	/* its cached pages dropped: read from the device (drop_caches
	 * would drop the guest's cached binaries too, and cost seconds) */
	if (uncached)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	*h = FNV_INIT;
	while ((n = read(fd, rbuf, sizeof(rbuf))) > 0)
		*h = fnv(*h, (unsigned char *)rbuf, n);
	e = n < 0 ? errno : 0;
	close(fd);
	return e;
}

/* ---------------------------------------------------------------- */
/* The walk                                                          */
/* ---------------------------------------------------------------- */

struct ent {
	char		*path;		/* relative to the mount, "/a/b" */
	mode_t		mode;
	ino_t		ino;
	int		stat_ok;
	int		read_ok;	/* read to its end */
	uint64_t	hash;
};

struct walk {
	struct ent	e[MAXE];
	int		n;
	ino_t		dirs[MAXE];	/* directories visited */
	int		ndirs;
};

static struct walk w1, w2;
static const char *mnt;

static void
walk_free(struct walk *w)
{
	int i;

	for (i = 0; i < w->n; i++)
		free(w->e[i].path);
	w->n = 0;
	w->ndirs = 0;
}

static char *
full(const char *rel)
{
	static char buf[2][PATH_MAX + 8];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s%s", mnt, rel);
	return buf[k];
}

/* list and stat: every directory read, every entry lstat'ed */
static void
walk_dir(struct walk *w, const char *rel, int depth, const char *lop,
	 const char *sop)
{
	char p[PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int i;

	dir = opendir(rel[0] ? full(rel) : mnt);
	if (!dir) {
		fail_op(lop, errno);
		return;
	}
	for (;;) {
		errno = 0;
		d = readdir(dir);
		if (!d) {
			if (errno)
				fail_op(lop, errno);
			break;
		}
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (w->n == MAXE)
			break;
		snprintf(p, sizeof(p), "%s/%s", rel, d->d_name);
		if (lstat(full(p), &st)) {
			fail_op(sop, errno);
			continue;
		}
		w->e[w->n].path = strdup(p);
		w->e[w->n].mode = st.st_mode;
		w->e[w->n].ino = st.st_ino;
		w->e[w->n].stat_ok = 1;
		w->e[w->n].read_ok = 0;
		w->n++;
		if (!S_ISDIR(st.st_mode) || depth > 40)
			continue;
		for (i = 0; i < w->ndirs; i++)	/* a cycle: once is enough */
			if (w->dirs[i] == st.st_ino)
				break;
		if (i < w->ndirs || w->ndirs == MAXE)
			continue;
		w->dirs[w->ndirs++] = st.st_ino;
		walk_dir(w, p, depth + 1, lop, sop);
	}
	closedir(dir);
}

static void
do_reads(struct walk *w, const char *sfx)
{
	char lop[24], sop[24], rop[24], kop[24], xop[24];
	char names[4096], val[8192], *nm;
	struct stat st;
	ssize_t n, m;
	int i, e;

	snprintf(lop, sizeof(lop), "list%s", sfx);
	snprintf(sop, sizeof(sop), "stat%s", sfx);
	snprintf(rop, sizeof(rop), "read%s", sfx);
	snprintf(kop, sizeof(kop), "readlink%s", sfx);
	snprintf(xop, sizeof(xop), "xattr%s", sfx);
	walk_free(w);
	step(lop);
	if (lstat(mnt, &st))
		fail_op(sop, errno);
	else
		w->dirs[w->ndirs++] = st.st_ino;
	walk_dir(w, "", 0, lop, sop);
	step(rop);
	for (i = 0; i < w->n; i++) {
		if (!S_ISREG(w->e[i].mode))
			continue;
		e = hash_file(AT_FDCWD, full(w->e[i].path), &w->e[i].hash, 0);
		if (e)
			fail_op(rop, e);
		else
			w->e[i].read_ok = 1;
	}
	step(kop);
	for (i = 0; i < w->n; i++)
		if (S_ISLNK(w->e[i].mode) &&
		    readlink(full(w->e[i].path), val, sizeof(val)) < 0)
			fail_op(kop, errno);
	step(xop);
	for (i = -1; i < w->n; i++) {
		const char *p = i < 0 ? mnt : full(w->e[i].path);

		n = llistxattr(p, names, sizeof(names));
		if (n < 0) {
			fail_op(xop, errno);
			continue;
		}
		for (nm = names; nm < names + n; nm += strlen(nm) + 1) {
			m = lgetxattr(p, nm, val, sizeof(val));
			if (m < 0)
				fail_op(xop, errno);
		}
	}
	step(NULL);
}

/* the source's sums: compare the first read with them */
struct sum {
	uint64_t	h;
	char		*path;
};
static struct sum *sums;
static int nsums;

static void
load_sums(const char *file)
{
	char line[PATH_MAX + 32], *sp;
	FILE *f = fopen(file, "r");

	if (!f) {
		fprintf(stderr, "hostileutil: %s: %s\n", file, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		sums = realloc(sums, (nsums + 1) * sizeof(*sums));
		if (!sums)
			exit(2);
		sums[nsums].h = strtoull(line, NULL, 16);
		sums[nsums].path = strdup(sp + 1);
		nsums++;
	}
	fclose(f);
}

static struct sum *
sum_of(const char *path)
{
	int i;

	for (i = 0; i < nsums; i++)
		if (!strcmp(sums[i].path, path))
			return &sums[i];
	return NULL;
}

static struct ent *
ent_of(struct walk *w, const char *path)
{
	int i;

	for (i = 0; i < w->n; i++)
		if (!strcmp(w->e[i].path, path))
			return &w->e[i];
	return NULL;
}

static void
compare_source(struct walk *w)
{
	struct ent *e;
	int i;

	for (i = 0; i < nsums; i++) {
		e = ent_of(w, sums[i].path);
		if (!e)
			ngone++;
		else if (e->read_ok && e->hash != sums[i].h)
			ncontent++;
	}
}

/* ---------------------------------------------------------------- */
/* The writes                                                        */
/* ---------------------------------------------------------------- */

static char payload[9000];

/* one operation: its result recorded under NAME */
static int
rec(const char *name, int ret)
{
	if (ret < 0)
		fail_op(name, errno);
	return ret;
}

static int
write_file(const char *path, int flags, off_t off, size_t len)
{
	int fd = open(path, flags | O_WRONLY | O_CLOEXEC, 0644);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = off < 0 ? write(fd, payload, len) : pwrite(fd, payload, len, off);
	e = errno;
	if (close(fd) && n >= 0) {
		e = errno;
		n = -1;
	}
	errno = e;
	return n == (ssize_t)len ? 0 : -1;
}

/* rm -rf, errors ignored but the first one returned */
static int
remove_tree(const char *path, int depth)
{
	char p[PATH_MAX];
	struct dirent *d;
	struct stat st;
	int ret = 0, e = 0;
	DIR *dir;

	if (lstat(path, &st))
		return -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	dir = depth < 40 ? opendir(path) : NULL;
	if (dir) {
		while ((errno = 0, d = readdir(dir))) {
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			snprintf(p, sizeof(p), "%s/%s", path, d->d_name);
			if (remove_tree(p, depth + 1) && !e)
				e = errno;
		}
		if (errno && !e)
			e = errno;
		closedir(dir);
	}
	ret = rmdir(path);
	if (ret && e)
		errno = e;
	return ret;
}

static char tgt[PATH_MAX], fil[PATH_MAX], tdir[PATH_MAX], chg[PATH_MAX];
static ino_t touched[MAXE];
static int ntouched;

static void
do_writes(void)
{
	char a[PATH_MAX + 16], b[PATH_MAX + 16];
	struct stat st;
	int fd, ok;

	snprintf(fil, sizeof(fil), "/r5000");
	snprintf(chg, sizeof(chg), "/r5000");
	snprintf(tdir, sizeof(tdir), "%s", tgt);
	*strrchr(tdir, '/') = 0;
	if (!lstat(full(tgt), &st)) {
		if (S_ISREG(st.st_mode))
			snprintf(fil, sizeof(fil), "%s", tgt);
		if (S_ISDIR(st.st_mode))
			snprintf(tdir, sizeof(tdir), "%s", tgt);
		if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
			snprintf(chg, sizeof(chg), "%s", tgt);
	}
	if (!strcmp(tgt, "/"))
		tdir[0] = 0;
	if (!lstat(full(fil), &st))
		touched[ntouched++] = st.st_ino;

	snprintf(a, sizeof(a), "%s/hostile-new", tdir);
	step("create");
	rec("create", write_file(full(a), O_CREAT | O_EXCL, -1, sizeof(payload)));
	step("append");
	rec("append", write_file(full(fil), O_APPEND, -1, 9));
	step("overwrite");
	rec("overwrite", write_file(full(fil), 0, 500 * 4096, 4096));
	step("truncate");
	rec("truncate", truncate(full(fil), 3000));
	step("chmod");
	rec("chmod", chmod(full(chg), 0600));
	step("setxattr");
	rec("setxattr", lsetxattr(full(chg), "user.hostile", "1", 1, 0));
	step("link");
	snprintf(b, sizeof(b), "%s/hostile-link", tdir);
	rec("link", link(full(fil), full(b)));
	step("mkdir");
	snprintf(b, sizeof(b), "%s/hostile-dir", tdir);
	rec("mkdir", mkdir(full(b), 0755));
	step("rename");
	snprintf(b, sizeof(b), "%s/hostile-dir/moved", tdir);
	rec("rename", rename(full(a), full(b)));
	step("unlink");
	ok = rec("unlink", unlink(full(b)));
	snprintf(b, sizeof(b), "%s/hostile-link", tdir);
	if (!ok)
		rec("unlink", unlink(full(b)));
	step("rmdir");
	snprintf(b, sizeof(b), "%s/hostile-dir", tdir);
	rec("rmdir", rmdir(full(b)));
	if (strcmp(tgt, "/")) {
		step("rename-target");
		snprintf(b, sizeof(b), "%s-moved", tgt);
		if (rec("rename-target", rename(full(tgt), full(b))) < 0)
			snprintf(b, sizeof(b), "%s", tgt);
		step("unlink-target");
		rec("unlink-target", remove_tree(full(b), 0));
	}
	step("syncfs");
	fd = open(mnt, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || syncfs(fd))
		fail_op("syncfs", errno);
	if (fd >= 0)
		close(fd);
	step(NULL);
}

/* ---------------------------------------------------------------- */
/* Loop devices, mount, the kernel's log                             */
/* ---------------------------------------------------------------- */

static int
loop_attach(const char *img, int ro, char *dev, size_t len)
{
	int ctl, n, fd, lfd;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -1;
	for (int tries = 0; tries < 10; tries++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0)
			break;
		snprintf(dev, len, "/dev/loop%d", n);
		fd = open(img, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		lfd = open(dev, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		if (fd < 0 || lfd < 0) {
			if (fd >= 0)
				close(fd);
			if (lfd >= 0)
				close(lfd);
			usleep(100000);
			continue;
		}
		if (!ioctl(lfd, LOOP_SET_FD, fd)) {
			struct loop_info64 li = { 0 };

			li.lo_flags = LO_FLAGS_AUTOCLEAR |
				      (ro ? LO_FLAGS_READ_ONLY : 0);
			ioctl(lfd, LOOP_SET_STATUS64, &li);
			close(fd);
			close(ctl);
			return lfd;
		}
		close(fd);
		close(lfd);
		if (errno != EBUSY)
			break;
	}
	close(ctl);
	return -1;
}

static const char *kpat[] = {
	"BUG:", "Oops:", "WARNING:", "general protection fault",
	"Call Trace:", "blocked for more than", "soft lockup", "hard LOCKUP",
	"RCU stall", "Kernel panic", NULL
};

static char *klog;
static int klen;

/* the kernel's messages since the last call (they are cleared) */
static void
klog_take(void)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */

	if (size < 4096)
		size = 1 << 20;
	free(klog);
	klog = malloc(size + 1);
	klen = klog ? klogctl(4, klog, size) : -1;	/* READ_CLEAR */
	if (klen < 0)
		klen = 0;
	if (klog)
		klog[klen] = 0;
}

/* KMSG lines for what must never appear; the last gaze line in REASON */
static void
klog_scan(char *reason, size_t rlen)
{
	char *l, *nl, *s;
	int i;

	for (l = klog; l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = 0;
		else
			nl = l + strlen(l);
		s = strstr(l, "] ");
		s = s ? s + 2 : l;
		for (i = 0; kpat[i]; i++)
			if (strstr(s, kpat[i])) {
				printf("KMSG %s\n", s);
				addbad("the kernel said '%.80s'", s);
				break;
			}
		if (reason && !strncmp(s, "gaze: ", 6))
			snprintf(reason, rlen, "%s", s + 6);
	}
}

static int
is_ro(void)
{
	struct statvfs v;

	return !statvfs(mnt, &v) && (v.f_flag & ST_RDONLY);
}

/* read-only after the error: writes refused, untouched files the same */
static void
ro_checks(void)
{
	char a[PATH_MAX + 16];
	size_t tl = strlen(tgt);
	int i, j, fd, e0;
	struct ent *s;
	uint64_t h;

	step("ro-create");
	snprintf(a, sizeof(a), "%s/hostile-ro", mnt);
	fd = open(a, O_CREAT | O_WRONLY | O_EXCL, 0644);
	e0 = errno;
	if (fd >= 0) {
		close(fd);
		addbad("%s: read-only after an error, but a create worked", mode);
	} else if (e0 != EROFS) {
		addbad("%s: read-only after an error, a create gave %s", mode,
		       ename(e0));
	}
	step("ro-read");
	sync();
	/* the files of w1 that read as their source, read again */
	for (i = 0; i < w1.n; i++) {
		struct sum *src;

		s = &w1.e[i];
		if (!S_ISREG(s->mode) || !s->read_ok)
			continue;
		src = sum_of(s->path);
		if (!src || src->h != s->hash)
			continue;
		for (j = 0; j < ntouched; j++)
			if (touched[j] == s->ino)
				break;
		if (j < ntouched)
			continue;
		if (!strncmp(s->path, tgt, tl) &&
		    (s->path[tl] == 0 || s->path[tl] == '/'))
			continue;
		e0 = hash_file(AT_FDCWD, full(s->path), &h, 1);
		if (e0 || h != s->hash)
			addbad("%s: read-only after an error, %s %s", mode,
			       s->path, e0 ? ename(e0) : "reads otherwise");
	}
	step(NULL);
}

static void
print_summary(const char *state)
{
	int i, j;

	printf("%s", state);
	for (i = 0; i < nops; i++) {
		printf(" %s:", ops[i].name);
		for (j = 0; j < ops[i].n; j++) {
			printf("%s%s", j ? "," : "", ename(ops[i].err[j]));
			if (ops[i].cnt[j] > 1)
				printf("*%d", ops[i].cnt[j]);
		}
	}
	if (ncontent)
		printf(" content*%d", ncontent);
	if (ngone)
		printf(" gone*%d", ngone);
}

static int
use(int argc, char **argv)
{
	char dev[64], reason[512] = "", opts[64];
	const char *img = argv[2];
	int lfd, ro, rw_now;
	struct stat st;

	mnt = argv[3];
	mode = argv[4];
	snprintf(tgt, sizeof(tgt), "%s", argv[5]);
	load_sums(argv[6]);
	label = argv[7];
	(void)argc;
	ro = !strcmp(mode, "ro");
	if (!ro && strcmp(mode, "remount-ro") && strcmp(mode, "continue")) {
		fprintf(stderr, "hostileutil: mode %s?\n", mode);
		return 2;
	}
	if (tgt[0] != '/' || stat(mnt, &st)) {
		fprintf(stderr, "hostileutil: bad target or mount point\n");
		return 2;
	}
	klog_take();
	klog_scan(NULL, 0);		/* anything since the last mount */

	lfd = loop_attach(img, ro, dev, sizeof(dev));
	if (lfd < 0) {
		fprintf(stderr, "hostileutil: loop device for %s: %s\n", img,
			strerror(errno));
		return 2;
	}
	snprintf(opts, sizeof(opts), "errors=%s", mode);
	step("mount");
	if (mount(dev, mnt, "gaze", ro ? MS_RDONLY : 0, ro ? NULL : opts)) {
		int e = errno;

		step(NULL);
		close(lfd);		/* autoclear detaches it */
		klog_take();
		klog_scan(reason, sizeof(reason));
		printf("refused:%s\n", ename(e));
		if (reason[0])
			printf("REASON %s\n", reason);
		if (bad[0])
			printf("BAD %s\n", bad);
		return 0;
	}
	step(NULL);
	rw_now = !is_ro();
	if (ro && rw_now)
		addbad("mounted read-only, but statvfs says read-write");
	do_reads(&w1, "");
	compare_source(&w1);
	if (rw_now) {
		do_writes();
		do_reads(&w2, "2");
	} else {
		int fd;
		char a[PATH_MAX + 16];

		step("ro-create");
		snprintf(a, sizeof(a), "%s/hostile-ro", mnt);
		fd = open(a, O_CREAT | O_WRONLY | O_EXCL, 0644);
		if (fd >= 0) {
			close(fd);
			addbad("%s: a create on a read-only mount worked", mode);
		} else if (errno != EROFS) {
			addbad("%s: a create on a read-only mount gave %s",
			       mode, ename(errno));
		}
		step(NULL);
	}
	if (rw_now && is_ro()) {
		ro_checks();
	} else if (rw_now && any_eio && !strcmp(mode, "remount-ro")) {
		addbad("%s: EIO/EUCLEAN and still read-write", mode);
	}
	print_summary(rw_now ? "rw" : "ro");
	if (rw_now && is_ro())
		printf(" ->ro");
	printf("\n");
	step("umount");
	if (umount2(mnt, 0)) {
		addbad("%s: umount: %s", mode, strerror(errno));
		umount2(mnt, MNT_DETACH);
	}
	step(NULL);
	close(lfd);
	klog_take();
	klog_scan(NULL, 0);
	if (bad[0])
		printf("BAD %s\n", bad);
	return 0;
}

/* ---------------------------------------------------------------- */

static void
sums_dir(const char *root, const char *rel)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct dirent *d;
	struct stat st;
	uint64_t h;
	DIR *dir;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	dir = opendir(p);
	if (!dir) {
		perror(p);
		exit(1);
	}
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(q, sizeof(q), "%s/%s", rel, d->d_name);
		snprintf(p, sizeof(p), "%s%s", root, q);
		if (lstat(p, &st)) {
			perror(p);
			exit(1);
		}
		if (S_ISDIR(st.st_mode))
			sums_dir(root, q);
		else if (S_ISREG(st.st_mode)) {
			if (hash_file(AT_FDCWD, p, &h, 0)) {
				perror(p);
				exit(1);
			}
			printf("%016llx %s\n", (unsigned long long)h, q);
		}
	}
	closedir(dir);
}

int
main(int argc, char **argv)
{
	const char *s;
	size_t i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (char)('a' + i % 26);
	cur_file = getenv("HOSTILE_CUR");
	times = !!getenv("HOSTILE_TIMES");
	s = getenv("HOSTILE_OPT");
	if (s && atoi(s) > 0)
		opt_s = atoi(s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "sums")) {
		sums_dir(argv[2], "");
		return 0;
	}
	if (argc == 8 && !strcmp(argv[1], "use"))
		return use(argc, argv);
	fprintf(stderr, "usage: hostileutil sums DIR\n"
		"       hostileutil use IMAGE MNT remount-ro|continue|ro TARGET SUMS LABEL\n");
	return 2;
}
