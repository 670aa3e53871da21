// SPDX-License-Identifier: GPL-2.0
/*
 * populate.c - mkfs.gaze -d DIR: copy a directory tree into the new
 * filesystem.
 *
 * Why here and why this way: everything goes through the shared core's
 * namespace operations (gaze_ns_*, gaze_file_*, gaze_xattr_*), the same
 * code the module runs, so an image built by mkfs is one the kernel would
 * have built from the same calls.  The walk mirrors the source exactly:
 *
 *  - regular files keep their allocation, not their zeros: only the
 *    ranges SEEK_DATA/SEEK_HOLE report as data are written, zeros inside
 *    a data range included, so sparse stays sparse and allocated zeros
 *    stay allocated;
 *  - hard links are found by (st_dev, st_ino) for non-directories with
 *    st_nlink > 1; later names are linked to the first inode;
 *  - times (ns), owners, all mode bits and xattrs are copied; ctime is
 *    set to the source's (GAZE_SET_CTIME), as archivers restore it;
 *  - a directory's attributes are set after its children are created,
 *    because creating a child updates the parent's mtime and ctime, and
 *    a hard-linked inode's ctime is set again after its last link.
 *
 * Compressing files: the whole clusters of each buffer are compressed on
 * every online CPU (gaze_cluster_plan/_enc_run, the same functions the
 * module's writeback runs on its workqueue) and stored by one core call
 * (gaze_file_write_vec_enc).
 *
 * Speed: one statx-like fstatat per entry, small files (not sparse, up to
 * the 1 MiB buffer) read in one read() without lseek, directories listed
 * with getdents64 into one buffer and visited in inode order (the order
 * the source filesystem lays inodes out), O_NOATIME so the source is not
 * modified.  Descriptors: one per directory level, at most
 * GAZE_DIRSTACK_MAX_FDS held; deeper levels close the shallowest one,
 * which is reopened through ".." of its child (and checked by dev/ino)
 * on the way back up (lib/util/walk.c).
 *
 * The source is live: an entry can vanish between the listing and its
 * copy, and a file can shrink or grow while it is read.  One such file
 * must not fail a copy of a million, nor be copied wrong in silence: a
 * vanished entry is skipped, a file that shrank gets the size it ended
 * with (not zeros up to the old size), one that grew keeps the size it
 * had when stat'ed (the estimate and the hard-link table were made from
 * that), and each gets a warning naming it.  A test build
 * (-DGAZE_TEST_HOOKS, tests/mkfs/mkfs.gaze-hooks) makes such changes on
 * cue, so tests/mkfs/changed.sh can check this without races.
 *
 * The estimate (gaze_populate_estimate: mkfs.gaze -n -d, and the message
 * when a copy runs out of space) walks the tree the same way, with the
 * same listing and descriptor stack, but only stats.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "gaze_core.h"
#include "gaze_util.h"
#include "populate.h"

#define POP_BUF_SIZE	(1u << 20)	/* data and symlink buffer */
#define POP_DENTS_SIZE	(64u << 10)	/* getdents64 buffer */
#define POP_XATTR_MAX	(64u << 10)	/* XATTR_SIZE_MAX / list max */

struct pop_link {		/* an inode seen with st_nlink > 1 */
	struct gaze_inode_node node;	/* by source (st_dev, st_ino) */
	u32		gino;		/* its inode in the new filesystem */
	u32		names;		/* names made so far */
	struct gaze_attr attr;		/* restored after the last link */
};

struct pop_ent {		/* one directory entry */
	ino_t		ino;
	u32		name;		/* offset in the names arena */
	u16		len;
};

struct pop_ctx {
	struct gaze_fs	*fs;
	const char	*srcdir;
	int		verbose;
	bool		quiet;		/* no error messages (estimate) */
	bool		noatime;	/* O_NOATIME allowed */
	s64		now;		/* crtime of every inode made */
	u32		now_nsec;

	struct gaze_pathbuf pb;		/* current source path, for messages */
	char		*buf;		/* POP_BUF_SIZE */
	char		*dents;		/* POP_DENTS_SIZE */
	char		*xlist;		/* POP_XATTR_MAX */
	char		*xval;		/* POP_XATTR_MAX */

	struct gaze_dirstack ds;	/* the directories being copied */
	struct gaze_inode_table links;	/* struct pop_link */

	u64		nfiles, ndirs, nsyms, nspecial, nhard, bytes;

	struct gaze_tree_estimate *est;	/* estimating, not copying */
	bool		inline_data;	/* estimate: feature inline_data */
#ifdef GAZE_TEST_HOOKS
	char		*hook_name;	/* GAZE_TEST_CHANGE=NAME:ACTION */
	const char	*hook_action;
#endif
};

/* ---------------------------------------------------------------- */
/* Messages                                                          */
/* ---------------------------------------------------------------- */

static int
pop_fail(struct pop_ctx *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * err is a negative errno; returns it.  fmt may be NULL.  A full new
 * filesystem is left to the caller to explain (with -vv the path that
 * did not fit is named).
 */
static int
pop_fail(struct pop_ctx *c, int err, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet)
		return err;
	if (err == -ENOSPC && !c->est) {
		if (c->verbose > 1)
			fprintf(stderr, "mkfs.gaze: out of space while copying %s\n",
				c->pb.path);
		return err;
	}
	va_start(ap, fmt);
	gaze_vwarn_path("mkfs.gaze", c->pb.len ? c->pb.path : "/",
			strerror(-err), fmt, ap);
	va_end(ap);
	return err;
}

/* "mkfs.gaze: PATH: what" on stderr, a message of its own (no errno) */
static void __attribute__((format(printf, 2, 3)))
pop_warn(struct pop_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet)
		return;
	fprintf(stderr, "mkfs.gaze: %s: ", c->pb.len ? c->pb.path : "/");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* an entry listed but gone when it was to be copied: skipped */
static int
pop_vanished(struct pop_ctx *c)
{
	pop_warn(c, "vanished during the copy; skipped");
	return 0;
}

/* ---------------------------------------------------------------- */
/* Test hooks (test build only)                                      */
/* ---------------------------------------------------------------- */
#ifdef GAZE_TEST_HOOKS
/*
 * GAZE_TEST_CHANGE=NAME:ACTION changes the first entry called NAME in
 * the source, once, as if another program did it at the worst moment:
 *   gone       unlinks it before it is stat'ed,
 *   vanish     unlinks it after it was stat'ed, before it is opened,
 *   shrink=N   truncates it to N bytes after it was stat'ed,
 *   grow=N     appends N bytes after it was stat'ed,
 *   run=CMD    runs CMD (sh -c) after it was stat'ed: another program
 *              at work on the image while mkfs holds it.
 */
static void
pop_hook_init(struct pop_ctx *c)
{
	const char *v = getenv("GAZE_TEST_CHANGE");
	char *colon;

	if (!v || !(c->hook_name = strdup(v)))
		return;
	colon = strchr(c->hook_name, ':');
	if (!colon) {
		free(c->hook_name);
		c->hook_name = NULL;
		return;
	}
	*colon = '\0';
	c->hook_action = colon + 1;
}

/* a file or an empty directory */
static void
pop_hook_unlink(int dirfd, const char *name)
{
	if (unlinkat(dirfd, name, 0) && errno == EISDIR)
		unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* changes name to a size, or grows it by n bytes */
static void
pop_hook_resize(int dirfd, const char *name, bool grow, u64 n)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC |
			(grow ? O_APPEND : 0));

	if (fd < 0)
		return;
	if (!grow && ftruncate(fd, (off_t)n))
		perror("mkfs.gaze: GAZE_TEST_CHANGE shrink");
	for (; grow && n; n--)
		if (write(fd, "+", 1) != 1)
			break;
	close(fd);
}

/* stated: called after the entry's stat, else just before it */
static void
pop_hook(struct pop_ctx *c, int dirfd, const char *name, bool stated)
{
	const char *a = c->hook_action;
	unsigned long long n;

	if (!c->hook_name || strcmp(name, c->hook_name))
		return;
	if (!stated) {
		if (strcmp(a, "gone"))
			return;
		pop_hook_unlink(dirfd, name);
	} else if (!strcmp(a, "vanish")) {
		pop_hook_unlink(dirfd, name);
	} else if (sscanf(a, "shrink=%llu", &n) == 1) {
		pop_hook_resize(dirfd, name, false, n);
	} else if (sscanf(a, "grow=%llu", &n) == 1) {
		pop_hook_resize(dirfd, name, true, n);
	} else if (!strncmp(a, "run=", 4)) {
		if (system(a + 4) == -1)
			perror("mkfs.gaze: GAZE_TEST_CHANGE run");
	} else {
		return;
	}
	free(c->hook_name);	/* once */
	c->hook_name = NULL;
}

static void
pop_hook_free(struct pop_ctx *c)
{
	free(c->hook_name);
}
#else
static inline void pop_hook_init(struct pop_ctx *c) { (void)c; }
static inline void
pop_hook(struct pop_ctx *c, int dirfd, const char *name, bool stated)
{
	(void)c; (void)dirfd; (void)name; (void)stated;
}
static inline void pop_hook_free(struct pop_ctx *c) { (void)c; }
#endif

/* ---------------------------------------------------------------- */
/* Attributes                                                        */
/* ---------------------------------------------------------------- */

#define POP_SET_ALL	(GAZE_SET_MODE | GAZE_SET_UID | GAZE_SET_GID | \
			 GAZE_SET_ATIME | GAZE_SET_MTIME | GAZE_SET_CTIME)

static void
pop_attr(struct pop_ctx *c, const struct stat *st, struct gaze_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->mode = st->st_mode;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->nlink = 1;
	a->atime = st->st_atim.tv_sec;
	a->atime_nsec = st->st_atim.tv_nsec;
	a->mtime = st->st_mtim.tv_sec;
	a->mtime_nsec = st->st_mtim.tv_nsec;
	a->ctime = st->st_ctim.tv_sec;
	a->ctime_nsec = st->st_ctim.tv_nsec;
	a->crtime = c->now;
	a->crtime_nsec = c->now_nsec;
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
		a->rdev_major = major(st->st_rdev);
		a->rdev_minor = minor(st->st_rdev);
	}
}

static int
pop_setattr(struct pop_ctx *c, u32 ino, const struct gaze_attr *a)
{
	int ret = gaze_ns_setattr(c->fs, ino, a, POP_SET_ALL);

	if (ret)
		return pop_fail(c, ret, "setting attributes");
	return 0;
}

/* the xattrs of one inode: in the inode, and the rest in one node */
#define POP_XATTR_ROOM	(GAZE_INLINE_XATTR_SIZE + GAZE_BODY_SIZE - 8)

/*
 * Bytes an xattr takes in GAZE (struct gaze_xattr_entry: the namespace
 * prefix becomes an index byte, padded to 4); 0 for a namespace GAZE
 * does not store (mkfs skips those).
 */
static u32
pop_xattr_len(const char *name, size_t vlen)
{
	static const char *const pfx[] = { "user.", "trusted.", "security." };
	size_t i, nlen = strlen(name);

	if (!strncmp(name, "system.posix_acl_", 17))
		return ALIGN(sizeof(struct gaze_xattr_entry) + vlen, 4);
	for (i = 0; i < ARRAY_SIZE(pfx); i++) {
		size_t plen = strlen(pfx[i]);

		if (!strncmp(name, pfx[i], plen))
			return ALIGN(sizeof(struct gaze_xattr_entry) +
				     nlen - plen + vlen, 4);
	}
	return 0;
}

/*
 * Copies the xattrs of the entry: through fd when it is >= 0, else by
 * path (no symlink following).  *copied tells whether any was set.
 */
static int
pop_xattrs(struct pop_ctx *c, int fd, int dirfd, const char *name, u32 ino,
	   bool *copied)
{
	const char *n, *path = NULL;
	ssize_t len, vlen;
	u32 total = 0;
	int ret;

	if (fd >= 0) {
		len = flistxattr(fd, c->xlist, POP_XATTR_MAX);
	} else {
		path = gaze_pathbuf_xpath(&c->pb, dirfd, name, c->buf,
					  POP_BUF_SIZE);
		len = llistxattr(path, c->xlist, POP_XATTR_MAX);
	}
	if (len < 0) {
		if (errno == ENOTSUP)
			return 0;	/* source filesystem has none */
		if (errno == ENOENT)
			return 0;	/* removed since it was copied */
		return pop_fail(c, -errno, "listing xattrs");
	}
	gaze_xname_for_each(n, c->xlist, len) {
		if (fd >= 0)
			vlen = fgetxattr(fd, n, c->xval, POP_XATTR_MAX);
		else
			vlen = lgetxattr(path, n, c->xval, POP_XATTR_MAX);
		if (vlen < 0) {
			if (errno == ENODATA)
				continue;	/* removed meanwhile */
			return pop_fail(c, -errno, "reading xattr %s", n);
		}
		total += pop_xattr_len(n, vlen);
		ret = gaze_xattr_set(c->fs, ino, n, c->xval, (u32)vlen, 0);
		if (ret == -EOPNOTSUPP) {
			fprintf(stderr,
				"mkfs.gaze: %s: xattr %s: namespace not supported by GAZE, skipped\n",
				c->pb.path, n);
			continue;
		}
		if (ret == -ENOSPC && total > POP_XATTR_ROOM) {
			pop_warn(c, "xattr %s: no room: the xattrs of one inode must fit in %u bytes",
				 n, (unsigned int)POP_XATTR_ROOM);
			return -EFBIG;	/* reported; not a full filesystem */
		}
		if (ret)
			return pop_fail(c, ret, "setting xattr %s", n);
		*copied = true;
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Hard links                                                        */
/* ---------------------------------------------------------------- */

static struct pop_link *
pop_link_find(struct pop_ctx *c, dev_t dev, ino_t ino)
{
	struct gaze_inode_node *n = gaze_inode_table_find(&c->links, dev, ino);

	return n ? container_of(n, struct pop_link, node) : NULL;
}

static int
pop_link_add(struct pop_ctx *c, const struct stat *st, u32 gino,
	     const struct gaze_attr *a)
{
	struct pop_link *l;

	l = malloc(sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->node.dev = st->st_dev;
	l->node.ino = st->st_ino;
	l->gino = gino;
	l->names = 1;
	l->attr = *a;
	if (gaze_inode_table_add(&c->links, &l->node)) {
		free(l);
		return -ENOMEM;
	}
	return 0;
}

/* linking changed the inodes' ctime: set it back */
static int
pop_links_finish(struct pop_ctx *c)
{
	struct gaze_inode_node *n;
	struct pop_link *l;
	u32 i;
	int ret;

	gaze_inode_table_for_each(&c->links, i, n) {
		l = container_of(n, struct pop_link, node);
		if (l->names < 2)
			continue;
		ret = gaze_ns_setattr(c->fs, l->gino, &l->attr, POP_SET_ALL);
		if (ret) {
			fprintf(stderr,
				"mkfs.gaze: inode %u: setting attributes: %s\n",
				l->gino, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void
pop_link_release(struct gaze_inode_node *n)
{
	free(container_of(n, struct pop_link, node));
}

/* ---------------------------------------------------------------- */
/* Regular files                                                     */
/* ---------------------------------------------------------------- */

#define POP_BUF_BLOCKS	(POP_BUF_SIZE / GAZE_BLOCK_SIZE)

/* clusters of one buffer being compressed: each thread takes the next */
struct pop_enc {
	struct gaze_cluster_enc	enc[POP_BUF_BLOCKS];
	u32			n;
	u32			next;		/* atomic */
	size_t			scratch;	/* bytes per thread */
};

static void *
pop_enc_worker(void *arg)
{
	struct pop_enc *pe = arg;
	void *scratch = malloc(pe->scratch);
	u32 i;

	/* without scratch, what is left stays unencoded: the core encodes */
	while (scratch &&
	       (i = __atomic_fetch_add(&pe->next, 1, __ATOMIC_RELAXED)) < pe->n)
		gaze_cluster_enc_run(&pe->enc[i], scratch);
	free(scratch);
	return NULL;
}

/* encodes pe's plan on up to every online CPU, this thread included */
static void
pop_enc_run(struct pop_enc *pe)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t t[64];
	u32 nt = (u32)min_t(long, min_t(long, cpus, 64), pe->n), i, started;

	for (started = 0, i = 1; i < nt; i++)
		if (!pthread_create(&t[started], NULL, pop_enc_worker, pe))
			started++;
	pop_enc_worker(pe);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
}

/*
 * A buffer of a compressing file, block-aligned and past the inline
 * size, with its whole clusters compressed on several CPUs: 0 done,
 * 1 not such a buffer (the caller writes it), -errno
 */
static int
pop_write_enc(struct pop_ctx *c, u32 ino, char *buf, u64 len, u64 off)
{
	u32 nr = (u32)DIV_ROUND_UP(len, GAZE_BLOCK_SIZE), i;
	u64 fblks[POP_BUF_BLOCKS];
	void *bufs[POP_BUF_BLOCKS];
	struct gaze_attr a;
	struct pop_enc *pe;
	int ret;

	if ((off & (GAZE_BLOCK_SIZE - 1)) || len > POP_BUF_SIZE ||
	    off + len <= GAZE_INLINE_SIZE || buf != c->buf ||
	    gaze_ns_getattr(c->fs, ino, &a) || !(a.flags & GAZE_IF_COMPRESS) ||
	    !a.compress_log_cluster || a.compress_algo == GAZE_COMPRESS_NONE)
		return 1;
	pe = calloc(1, sizeof(*pe));
	if (!pe)
		return -ENOMEM;
	/* the last block's tail, past the data, reads as zeros */
	memset(buf + len, 0, (size_t)nr * GAZE_BLOCK_SIZE - len);
	for (i = 0; i < nr; i++) {
		fblks[i] = (off >> GAZE_BLOCK_SHIFT) + i;
		bufs[i] = buf + (size_t)i * GAZE_BLOCK_SIZE;
	}
	pe->scratch = (size_t)GAZE_BLOCK_SIZE << a.compress_log_cluster;
	pe->n = gaze_cluster_plan(a.compress_log_cluster, a.compress_algo,
				  a.compress_level, fblks, bufs, nr, off + len, 0,
				  pe->enc, POP_BUF_BLOCKS);
	pop_enc_run(pe);
	ret = gaze_file_write_vec_enc(c->fs, ino, fblks, nr, bufs, off + len,
				      pe->enc, pe->n);
	gaze_cluster_enc_free(pe->enc, pe->n);
	free(pe);
	return ret;
}

static int
pop_write(struct pop_ctx *c, u32 ino, const char *buf, u64 len, u64 off)
{
	s64 n;
	int ret;

	ret = pop_write_enc(c, ino, (char *)buf, len, off);
	if (ret < 0)
		return pop_fail(c, ret, "writing");
	if (!ret) {
		c->bytes += len;
		return 0;
	}

	while (len) {
		n = gaze_file_write(c->fs, ino, buf, len, off);
		if (n < 0)
			return pop_fail(c, (int)n, "writing");
		if (n == 0)
			return pop_fail(c, -EIO, "writing");
		buf += n;
		off += n;
		len -= n;
		c->bytes += n;
	}
	return 0;
}

/* copies [start, end) of the source; *wend gets the end of what exists */
static int
pop_copy_range(struct pop_ctx *c, int fd, u32 ino, u64 start, u64 end,
	       u64 *wend)
{
	ssize_t n;
	int ret;

	while (start < end) {
		n = gaze_pread_full(fd, c->buf, min_t(u64, end - start, POP_BUF_SIZE),
			      start);
		if (n < 0)
			return pop_fail(c, (int)n, "reading");
		if (n == 0)
			break;		/* shrank meanwhile */
		ret = pop_write(c, ino, c->buf, n, start);
		if (ret)
			return ret;
		start += n;
		*wend = start;
	}
	return 0;
}

/*
 * The file changed size while it was copied (scanned: its size when
 * stat'ed).  A file that shrank ends at its new size, one that grew at
 * the scanned size; *size gets the size the copy ends with.
 */
static void
pop_file_changed(struct pop_ctx *c, int fd, u64 scanned, u64 *size)
{
	struct stat now;

	if (fstat(fd, &now) < 0)
		return;
	if ((u64)now.st_size < scanned) {
		pop_warn(c, "shrank from %llu to %llu bytes during the copy; copied as %llu bytes",
			 (unsigned long long)scanned,
			 (unsigned long long)now.st_size,
			 (unsigned long long)now.st_size);
		*size = now.st_size;
	} else if ((u64)now.st_size > scanned) {
		pop_warn(c, "grew from %llu to %llu bytes during the copy; copied its first %llu bytes",
			 (unsigned long long)scanned,
			 (unsigned long long)now.st_size,
			 (unsigned long long)scanned);
	}
}

/* not sparse and fits the buffer: one read, no lseek */
static bool
pop_file_small(const struct stat *st)
{
	return (u64)st->st_size < POP_BUF_SIZE &&
	       (u64)st->st_blocks * 512 >= (u64)st->st_size;
}

static int
pop_file_data(struct pop_ctx *c, int fd, const struct stat *st, u32 ino)
{
	u64 size = st->st_size, wend = 0, off = 0;
	off_t data, hole;
	ssize_t n;
	int ret;

	if (pop_file_small(st)) {
		/* one byte more than expected tells that it grew */
		n = gaze_pread_full(fd, c->buf, size + 1, 0);
		if (n < 0)
			return pop_fail(c, (int)n, "reading");
		wend = min_t(u64, n, size);
		if (wend) {
			ret = pop_write(c, ino, c->buf, wend, 0);
			if (ret)
				return ret;
		}
		if ((u64)n != size)
			pop_file_changed(c, fd, size, &size);
		goto out_size;
	}

	while (off < size) {
		data = lseek(fd, off, SEEK_DATA);
		if (data < 0) {
			if (errno == ENXIO)
				break;		/* only a hole is left */
			if (errno != EINVAL && errno != EOPNOTSUPP)
				return pop_fail(c, -errno, "SEEK_DATA");
			data = off;		/* no hole support: all data */
			hole = size;
		} else {
			hole = lseek(fd, data, SEEK_HOLE);
			if (hole < 0)
				return pop_fail(c, -errno, "SEEK_HOLE");
		}
		if ((u64)data >= size)
			break;
		if ((u64)hole > size)
			hole = size;
		ret = pop_copy_range(c, fd, ino, data, hole, &wend);
		if (ret)
			return ret;
		off = hole;
	}
	/* did it change meanwhile?  One fstat, next to a large copy */
	pop_file_changed(c, fd, st->st_size, &size);

out_size:
	if (wend != size) {
		ret = gaze_file_truncate(c->fs, ino, size);
		if (ret)
			return pop_fail(c, ret, "setting size");
	}
	return 0;
}

static int
pop_open_file(struct pop_ctx *c, int dirfd, const char *name)
{
	int flags = O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC;
	int fd;

	if (c->noatime) {
		fd = openat(dirfd, name, flags | O_NOATIME);
		if (fd >= 0 || errno != EPERM)
			return fd < 0 ? -errno : fd;
		c->noatime = false;	/* not the owner and not root */
	}
	fd = openat(dirfd, name, flags);
	return fd < 0 ? -errno : fd;
}

/* ---------------------------------------------------------------- */
/* The walk                                                          */
/* ---------------------------------------------------------------- */

static int pop_dir(struct pop_ctx *c, int dirfd, u32 dino);

static int
pop_ent_cmp(const void *a, const void *b)
{
	const struct pop_ent *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/*
 * Lists a directory into *entsp (sorted by inode) and *namesp (names,
 * NUL-terminated, at pop_ent.name).  Caller frees both.
 */
static int
pop_list(struct pop_ctx *c, int fd, struct pop_ent **entsp, char **namesp,
	 u32 *countp)
{
	struct pop_ent *ents = NULL, *e;
	char *names = NULL, *p;
	size_t ncap = 0, nlen = 0;
	u32 count = 0, cap = 0;
	ssize_t n, pos;
	int ret;

	for (;;) {
		n = getdents64(fd, c->dents, POP_DENTS_SIZE);
		if (n < 0) {
			ret = pop_fail(c, -errno, "reading directory");
			goto out_free;
		}
		if (n == 0)
			break;
		for (pos = 0; pos < n; pos += ((struct dirent64 *)
					       (c->dents + pos))->d_reclen) {
			struct dirent64 *d = (void *)(c->dents + pos);
			size_t len = strlen(d->d_name);

			if (d->d_name[0] == '.' && (len == 1 ||
			    (len == 2 && d->d_name[1] == '.')))
				continue;
			if (count == cap) {
				cap = cap ? cap * 2 : 64;
				e = realloc(ents, cap * sizeof(*ents));
				if (!e)
					goto out_nomem;
				ents = e;
			}
			if (nlen + len + 1 > ncap) {
				ncap = max_t(size_t, ncap * 2, 4096);
				if (ncap < nlen + len + 1)
					ncap = nlen + len + 1;
				p = realloc(names, ncap);
				if (!p)
					goto out_nomem;
				names = p;
			}
			ents[count].ino = d->d_ino;
			ents[count].name = nlen;
			ents[count].len = len;
			memcpy(names + nlen, d->d_name, len + 1);
			nlen += len + 1;
			count++;
		}
	}
	if (count > 1)
		qsort(ents, count, sizeof(*ents), pop_ent_cmp);
	*entsp = ents;
	*namesp = names;
	*countp = count;
	return 0;

out_nomem:
	ret = pop_fail(c, -ENOMEM, NULL);
out_free:
	free(ents);
	free(names);
	return ret;
}

/* pushes a directory level, closing the shallowest fd when over budget */
static int
pop_push(struct pop_ctx *c, int fd, const struct stat *st)
{
	return gaze_dirstack_push(&c->ds, fd, st, c->pb.len);
}

/* pops the top level; reopens its parent through ".." if it was closed */
static int
pop_pop(struct pop_ctx *c)
{
	int ret = gaze_dirstack_pop(&c->ds, c->noatime ? O_NOATIME : 0);

	if (ret) {
		gaze_pathbuf_cut(&c->pb, c->ds.lv[c->ds.depth - 1].pathlen);
		ret = pop_fail(c, ret, "directory moved during the copy");
	}
	return ret;
}

/* opens a source directory; O_NOATIME dropped where it is refused */
static int
pop_open_dir(struct pop_ctx *c, int dirfd, const char *name)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd;

	fd = openat(dirfd, name, flags | (c->noatime ? O_NOATIME : 0));
	if (fd < 0 && errno == EPERM && c->noatime) {
		c->noatime = false;
		fd = openat(dirfd, name, flags);
	}
	return fd < 0 ? -errno : fd;
}

static int
pop_one_dir(struct pop_ctx *c, int dirfd, u32 dino, const char *name,
	    u16 len, const struct stat *st, struct gaze_attr *a)
{
	bool dummy = false;
	u32 ino;
	u8 dtype;
	int fd, ret;

	/* opened first: one that vanished is skipped before it is made */
	fd = pop_open_dir(c, dirfd, name);
	if (fd == -ENOENT)
		return pop_vanished(c);
	if (fd < 0)
		return pop_fail(c, fd, NULL);
	ret = gaze_ns_mknod(c->fs, dino, name, len, a, &ino);
	if (ret == -EEXIST) {
		/* made by mkfs itself (lost+found): merge */
		ret = gaze_ns_lookup(c->fs, dino, name, len, &ino, &dtype);
		if (!ret && dtype != DT_DIR)
			ret = -EEXIST;
	}
	if (ret) {
		close(fd);
		return pop_fail(c, ret, "creating directory");
	}
	c->ndirs++;

	ret = pop_xattrs(c, fd, dirfd, name, ino, &dummy);
	if (ret) {
		close(fd);
		return ret;
	}
	ret = pop_push(c, fd, st);
	if (ret) {
		close(fd);
		return pop_fail(c, ret, NULL);
	}
	ret = pop_dir(c, fd, ino);
	/* c->ds.lv may move and fd may be closed: pop by level, not by fd */
	if (ret) {
		pop_pop(c);
		return ret;
	}
	ret = pop_pop(c);
	if (ret)
		return ret;
	return pop_setattr(c, ino, a);
}

static int
pop_entry(struct pop_ctx *c, int dirfd, u32 dino, const char *name, u16 len)
{
	struct gaze_attr a;
	struct pop_link *l;
	struct stat st;
	bool set = false;
	ssize_t tlen;
	int fd = -1, ret;
	u32 ino;

	pop_hook(c, dirfd, name, false);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return pop_vanished(c);
		return pop_fail(c, -errno, NULL);
	}
	pop_hook(c, dirfd, name, true);
	if (c->verbose > 1)
		printf("%s\n", c->pb.path);
	pop_attr(c, &st, &a);

	if (S_ISDIR(st.st_mode))
		return pop_one_dir(c, dirfd, dino, name, len, &st, &a);

	if (st.st_nlink > 1) {
		l = pop_link_find(c, st.st_dev, st.st_ino);
		if (l) {
			ret = gaze_ns_link(c->fs, dino, name, len, l->gino);
			if (ret)
				return pop_fail(c, ret, "linking");
			l->names++;
			c->nhard++;
			return 0;
		}
	}

	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		if (st.st_size > 0) {
			fd = pop_open_file(c, dirfd, name);
			if (fd == -ENOENT)
				return pop_vanished(c);
			if (fd < 0)
				return pop_fail(c, fd, NULL);
		}
		ret = gaze_ns_mknod(c->fs, dino, name, len, &a, &ino);
		if (ret) {
			ret = pop_fail(c, ret, "creating file");
			goto out_close;
		}
		if (fd >= 0) {
			ret = pop_file_data(c, fd, &st, ino);
			if (ret)
				goto out_close;
			set = true;
		}
		c->nfiles++;
		break;
	case S_IFLNK:
		tlen = readlinkat(dirfd, name, c->buf, POP_BUF_SIZE);
		if (tlen < 0 && errno == ENOENT)
			return pop_vanished(c);
		if (tlen < 0)
			return pop_fail(c, -errno, "reading symlink");
		if (tlen >= PATH_MAX)
			return pop_fail(c, -ENAMETOOLONG, "symlink target");
		c->buf[tlen] = '\0';
		ret = gaze_ns_symlink(c->fs, dino, name, len, c->buf, tlen,
				      &a, &ino);
		if (ret)
			return pop_fail(c, ret, "creating symlink");
		c->nsyms++;
		break;
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		ret = gaze_ns_mknod(c->fs, dino, name, len, &a, &ino);
		if (ret)
			return pop_fail(c, ret, "creating special file");
		c->nspecial++;
		break;
	default:
		fprintf(stderr, "mkfs.gaze: %s: unknown file type 0%o, skipped\n",
			c->pb.path, st.st_mode & S_IFMT);
		return 0;
	}

	ret = pop_xattrs(c, fd, dirfd, name, ino, &set);
	if (ret)
		goto out_close;
	if (set) {
		ret = pop_setattr(c, ino, &a);
		if (ret)
			goto out_close;
	}
	if (st.st_nlink > 1) {
		ret = pop_link_add(c, &st, ino, &a);
		if (ret)
			ret = pop_fail(c, ret, NULL);
	}
out_close:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* copies the entries of a directory; dirfd is the top of c->ds */
static int
pop_dir(struct pop_ctx *c, int dirfd, u32 dino)
{
	struct pop_ent *ents = NULL;
	char *names = NULL;
	size_t old;
	u32 i, count = 0, level = c->ds.depth - 1;
	int ret;

	ret = pop_list(c, dirfd, &ents, &names, &count);
	if (ret)
		return ret;
	for (i = 0; i < count; i++) {
		ret = gaze_pathbuf_add(&c->pb, names + ents[i].name, ents[i].len, &old);
		if (ret) {
			ret = pop_fail(c, ret, NULL);
			break;
		}
		/* a deeper level may have closed and reopened our fd */
		ret = pop_entry(c, c->ds.lv[level].fd, dino, names + ents[i].name,
				ents[i].len);
		if (ret)
			break;
		gaze_pathbuf_cut(&c->pb, old);
	}
	free(ents);
	free(names);
	return ret;
}

/* buffers, path and descriptor stack of a walk of c->srcdir */
static int
pop_init(struct pop_ctx *c)
{
	int ret;

	gaze_dirstack_init(&c->ds, GAZE_DIRSTACK_MAX_FDS);
	ret = gaze_pathbuf_init(&c->pb, c->srcdir);
	c->buf = malloc(POP_BUF_SIZE);
	c->dents = malloc(POP_DENTS_SIZE);
	c->xlist = malloc(POP_XATTR_MAX);
	c->xval = malloc(POP_XATTR_MAX);
	if (ret || !c->buf || !c->dents || !c->xlist || !c->xval) {
		if (!c->quiet)
			fprintf(stderr, "mkfs.gaze: %s: %s\n", c->srcdir,
				strerror(ENOMEM));
		return -ENOMEM;
	}
	/* "/" gives "//x" otherwise (and "dir/" "dir//x": pathbuf_init) */
	if (c->pb.len == 1 && c->pb.path[0] == '/')
		c->pb.len = 0;
	pop_hook_init(c);
	return 0;
}

static void
pop_fini(struct pop_ctx *c)
{
	gaze_inode_table_free(&c->links, pop_link_release);
	while (c->ds.depth)
		pop_pop(c);
	gaze_dirstack_free(&c->ds);
	pop_hook_free(c);
	free(c->xval);
	free(c->xlist);
	free(c->dents);
	free(c->buf);
	gaze_pathbuf_free(&c->pb);
}

/* opens c->srcdir, the root of the walk; its descriptor or -errno */
static int
pop_open_root(struct pop_ctx *c, struct stat *st)
{
	int fd, ret;

	fd = open(c->srcdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM) {
		c->noatime = false;
		fd = open(c->srcdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0) {
		ret = -errno;
		if (!c->quiet)
			fprintf(stderr, "mkfs.gaze: %s: %s\n", c->srcdir,
				strerror(-ret));
		return ret;
	}
	if (fstat(fd, st)) {
		ret = pop_fail(c, -errno, NULL);
		close(fd);
		return ret;
	}
	return fd;
}

int
gaze_populate(struct gaze_fs *fs, const char *srcdir, int verbose)
{
	struct pop_ctx c = {
		.fs = fs, .srcdir = srcdir, .verbose = verbose,
		.noatime = true,
	};
	struct gaze_attr a;
	struct stat st;
	bool dummy = false;
	int fd, ret;

	gaze_wallclock(&c.now, &c.now_nsec);
	ret = pop_init(&c);
	if (ret)
		goto out;
	fd = pop_open_root(&c, &st);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	pop_attr(&c, &st, &a);
	ret = pop_xattrs(&c, fd, -1, NULL, GAZE_ROOT_INO, &dummy);
	if (ret) {
		close(fd);
		goto out;
	}
	ret = pop_push(&c, fd, &st);
	if (ret) {
		ret = pop_fail(&c, ret, NULL);
		close(fd);
		goto out;
	}
	ret = pop_dir(&c, fd, GAZE_ROOT_INO);
	pop_pop(&c);
	if (ret)
		goto out;
	ret = pop_links_finish(&c);
	if (ret)
		goto out;
	if (!c.pb.len)
		strcpy(c.pb.path, "/");
	ret = pop_setattr(&c, GAZE_ROOT_INO, &a);
	if (ret)
		goto out;
	if (verbose)
		printf("Copied %llu files (%llu MiB), %llu directories, %llu symlinks, %llu special files, %llu hard links from %s\n",
		       (unsigned long long)c.nfiles,
		       (unsigned long long)(c.bytes >> 20),
		       (unsigned long long)c.ndirs,
		       (unsigned long long)c.nsyms,
		       (unsigned long long)c.nspecial,
		       (unsigned long long)c.nhard, srcdir);
out:
	pop_fini(&c);
	return ret;
}

/* ---------------------------------------------------------------- */
/* The estimate                                                      */
/* ---------------------------------------------------------------- */

/*
 * Block-map nodes for logical blocks [lo, hi) of one inode.  The inode
 * maps the first GAZE_ADDRS_PER_INODE blocks itself; each direct node
 * maps GAZE_ADDRS_PER_DNODE more: the inode's own two, then those of its
 * two indirect nodes (GAZE_NIDS_PER_INDIRECT each), then those below the
 * double-indirect node.
 */
static u64
est_map_nodes(u64 lo, u64 hi)
{
	u64 d0, d1, i0, i1, n;

	lo = max_t(u64, lo, GAZE_ADDRS_PER_INODE);
	if (hi <= lo)
		return 0;
	d0 = (lo - GAZE_ADDRS_PER_INODE) / GAZE_ADDRS_PER_DNODE;
	d1 = (hi - 1 - GAZE_ADDRS_PER_INODE) / GAZE_ADDRS_PER_DNODE;
	n = d1 - d0 + 1;
	if (d1 < GAZE_NR_DIRECT_NODES)
		return n;
	d0 = max_t(u64, d0, GAZE_NR_DIRECT_NODES);
	i0 = (d0 - GAZE_NR_DIRECT_NODES) / GAZE_NIDS_PER_INDIRECT;
	i1 = (d1 - GAZE_NR_DIRECT_NODES) / GAZE_NIDS_PER_INDIRECT;
	n += i1 - i0 + 1;
	if (i1 >= GAZE_NR_INDIRECT_NODES)
		n++;			/* the double-indirect node */
	return n;
}

/* a directory whose entries take bytes: inline, or hashed blocks */
static void
est_dir(struct pop_ctx *c, u64 bytes)
{
	struct gaze_tree_estimate *e = c->est;
	u64 buckets, slots = 1, index = 0;

	if (c->inline_data && bytes <= GAZE_INLINE_DENTRY_SPACE)
		return;
	/* splitting leaves buckets about 70% full on average */
	buckets = max_t(u64, 1, DIV_ROUND_UP(bytes * 10,
					     GAZE_DIR_BUCKET_SPACE * 7));
	if (buckets > 1) {
		/* uneven splits: the global depth runs a level deeper */
		while (slots < buckets)
			slots <<= 1;
		slots <<= 1;
		index = DIV_ROUND_UP(slots, GAZE_DIR_INDEX_PER_BLOCK);
	}
	e->dir_blocks += buckets + index;
	e->map_nodes += est_map_nodes(0, index) +
			est_map_nodes(GAZE_DIR_BUCKET_BASE,
				      GAZE_DIR_BUCKET_BASE + buckets);
}

/* a regular file: copied by its data ranges (gaze_populate) */
static void
est_file(struct pop_ctx *c, const struct stat *st)
{
	struct gaze_tree_estimate *e = c->est;
	u64 size = st->st_size, alloc = (u64)st->st_blocks * 512;
	u64 bytes, blocks, last;

	e->files++;
	if (!size)
		return;
	if (c->inline_data && size <= GAZE_INLINE_SIZE) {
		e->inline_files++;
		e->data_bytes += size;
		return;
	}
	bytes = min(size, alloc);
	blocks = DIV_ROUND_UP(bytes, GAZE_BLOCK_SIZE);
	e->data_bytes += bytes;
	e->data_blocks += blocks;
	e->map_nodes += est_map_nodes(0, blocks);
	/* a sparse file's data may lie anywhere: its end needs nodes too */
	last = DIV_ROUND_UP(size, GAZE_BLOCK_SIZE);
	if (blocks && blocks < last)
		e->map_nodes += est_map_nodes(last - 1, last);
}

/* xattrs beyond the room in the inode take a node; errors: none */
static void
est_xattrs(struct pop_ctx *c, const char *path)
{
	ssize_t len, vlen;
	const char *n;
	u32 total = 0;

	len = llistxattr(path, c->xlist, POP_XATTR_MAX);
	if (len <= 0)
		return;		/* the copy reports what goes wrong */
	gaze_xname_for_each(n, c->xlist, len) {
		vlen = lgetxattr(path, n, NULL, 0);
		if (vlen >= 0)
			total += pop_xattr_len(n, vlen);
	}
	if (total > GAZE_INLINE_XATTR_SIZE)
		c->est->xattr_nodes++;
}

static int est_walk(struct pop_ctx *c, int dirfd, u64 *dir_bytes);

static int
est_subdir(struct pop_ctx *c, int dirfd, const char *name,
	   const struct stat *st)
{
	u64 bytes = 0;
	int fd, ret;

	fd = pop_open_dir(c, dirfd, name);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return pop_fail(c, fd, NULL);
	ret = pop_push(c, fd, st);
	if (ret) {
		close(fd);
		return pop_fail(c, ret, NULL);
	}
	ret = est_walk(c, fd, &bytes);
	if (ret) {
		pop_pop(c);
		return ret;
	}
	ret = pop_pop(c);
	if (!ret)
		est_dir(c, bytes);
	return ret;
}

static int
est_entry(struct pop_ctx *c, int dirfd, const char *name)
{
	struct gaze_tree_estimate *e = c->est;
	struct gaze_attr none = { 0 };
	struct stat st;
	int ret;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		return pop_fail(c, -errno, NULL);
	}
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		if (pop_link_find(c, st.st_dev, st.st_ino)) {
			e->hardlinks++;
			return 0;
		}
		if (pop_link_add(c, &st, 0, &none))
			return pop_fail(c, -ENOMEM, NULL);
	}
	e->inodes++;
	est_xattrs(c, gaze_pathbuf_xpath(&c->pb, dirfd, name, c->buf,
					 POP_BUF_SIZE));
	switch (st.st_mode & S_IFMT) {
	case S_IFDIR:
		e->dirs++;
		ret = est_subdir(c, dirfd, name, &st);
		if (ret)
			return ret;
		break;
	case S_IFREG:
		est_file(c, &st);
		break;
	case S_IFLNK:
		e->symlinks++;
		if (!c->inline_data || (u64)st.st_size > GAZE_INLINE_SIZE)
			e->data_blocks++;
		break;
	default:
		e->special++;
		break;
	}
	return 0;
}

/* the entries of a directory (the top of c->ds); *dir_bytes: theirs */
static int
est_walk(struct pop_ctx *c, int dirfd, u64 *dir_bytes)
{
	struct pop_ent *ents = NULL;
	char *names = NULL;
	size_t old;
	u32 i, count = 0, level = c->ds.depth - 1;
	int ret;

	ret = pop_list(c, dirfd, &ents, &names, &count);
	if (ret)
		return ret;
	for (i = 0; i < count; i++) {
		ret = gaze_pathbuf_add(&c->pb, names + ents[i].name,
				       ents[i].len, &old);
		if (ret) {
			ret = pop_fail(c, ret, NULL);
			break;
		}
		*dir_bytes += GAZE_DIRENT_LEN(ents[i].len);
		ret = est_entry(c, c->ds.lv[level].fd, names + ents[i].name);
		if (ret)
			break;
		gaze_pathbuf_cut(&c->pb, old);
	}
	free(ents);
	free(names);
	return ret;
}

int
gaze_populate_estimate(const char *srcdir, uint64_t feature_compat,
		       uint64_t feature_incompat, bool quiet,
		       struct gaze_tree_estimate *e)
{
	struct pop_ctx c = {
		.srcdir = srcdir, .verbose = quiet ? 0 : 1, .quiet = quiet,
		.noatime = true, .est = e,
		.inline_data = feature_incompat &
			       GAZE_FEATURE_INCOMPAT_INLINE_DATA,
	};
	struct stat st, lf;
	u64 bytes = 0;
	int fd, ret;

	memset(e, 0, sizeof(*e));
	ret = pop_init(&c);
	if (ret)
		goto out;
	fd = pop_open_root(&c, &st);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	e->inodes++;
	e->dirs++;
	est_xattrs(&c, srcdir);
	/* the lost+found mkfs makes, unless the tree brings one */
	if ((feature_compat & GAZE_FEATURE_COMPAT_LOST_FOUND) &&
	    fstatat(fd, "lost+found", &lf, AT_SYMLINK_NOFOLLOW)) {
		e->inodes++;
		e->dirs++;
		bytes += GAZE_DIRENT_LEN(strlen("lost+found"));
	}
	ret = pop_push(&c, fd, &st);
	if (ret) {
		ret = pop_fail(&c, ret, NULL);
		close(fd);
		goto out;
	}
	ret = est_walk(&c, fd, &bytes);
	pop_pop(&c);
	if (!ret)
		est_dir(&c, bytes);
out:
	pop_fini(&c);
	return ret;
}
