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
 * Speed: one statx-like fstatat per entry, small files (not sparse, up to
 * the 1 MiB buffer) read in one read() without lseek, directories listed
 * with getdents64 into one buffer and visited in inode order (the order
 * the source filesystem lays inodes out), O_NOATIME so the source is not
 * modified.  Descriptors: one per directory level, at most
 * GAZE_DIRSTACK_MAX_FDS held; deeper levels close the shallowest one,
 * which is reopened through ".." of its child (and checked by dev/ino)
 * on the way back up (lib/util/walk.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
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
};

/* ---------------------------------------------------------------- */
/* Messages                                                          */
/* ---------------------------------------------------------------- */

static int
pop_fail(struct pop_ctx *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* err is a negative errno; returns it.  fmt may be NULL. */
static int
pop_fail(struct pop_ctx *c, int err, const char *fmt, ...)
{
	va_list ap;

	if (err == -ENOSPC) {
		fprintf(stderr,
			"mkfs.gaze: not enough space in the new filesystem for %s\n",
			c->srcdir);
		if (c->verbose)
			fprintf(stderr, "mkfs.gaze: (while copying %s)\n",
				c->pb.path);
		return err;
	}
	va_start(ap, fmt);
	gaze_vwarn_path("mkfs.gaze", c->pb.len ? c->pb.path : "/",
			strerror(-err), fmt, ap);
	va_end(ap);
	return err;
}

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
		ret = gaze_xattr_set(c->fs, ino, n, c->xval, (u32)vlen, 0);
		if (ret == -EOPNOTSUPP) {
			fprintf(stderr,
				"mkfs.gaze: %s: xattr %s: namespace not supported by GAZE, skipped\n",
				c->pb.path, n);
			continue;
		}
		if (ret == -ENOSPC) {
			fprintf(stderr,
				"mkfs.gaze: %s: xattr %s: no room: the xattrs of one inode must fit in %u bytes (or the new filesystem is full)\n",
				c->pb.path, n,
				(unsigned int)(GAZE_INLINE_XATTR_SIZE +
					       GAZE_BODY_SIZE - 8));
			return ret;
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

static int
pop_write(struct pop_ctx *c, u32 ino, const char *buf, u64 len, u64 off)
{
	s64 n;

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

static int
pop_file_data(struct pop_ctx *c, int fd, const struct stat *st, u32 ino)
{
	u64 size = st->st_size, wend = 0, off = 0;
	off_t data, hole;
	ssize_t n;
	int ret;

	/* not sparse and fits the buffer: one read, no lseek */
	if (size <= POP_BUF_SIZE && (u64)st->st_blocks * 512 >= size) {
		n = gaze_pread_full(fd, c->buf, size, 0);
		if (n < 0)
			return pop_fail(c, (int)n, "reading");
		if (n) {
			ret = pop_write(c, ino, c->buf, n, 0);
			if (ret)
				return ret;
		}
		wend = n;
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

out_size:
	if (wend < size) {
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

static int
pop_one_dir(struct pop_ctx *c, int dirfd, u32 dino, const char *name,
	    u16 len, const struct stat *st, struct gaze_attr *a)
{
	bool dummy = false;
	u32 ino;
	u8 dtype;
	int fd, ret;

	ret = gaze_ns_mknod(c->fs, dino, name, len, a, &ino);
	if (ret == -EEXIST) {
		/* made by mkfs itself (lost+found): merge */
		ret = gaze_ns_lookup(c->fs, dino, name, len, &ino, &dtype);
		if (!ret && dtype != DT_DIR)
			ret = -EEXIST;
	}
	if (ret)
		return pop_fail(c, ret, "creating directory");
	c->ndirs++;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC | (c->noatime ? O_NOATIME : 0));
	if (fd < 0 && errno == EPERM && c->noatime) {
		c->noatime = false;
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
	}
	if (fd < 0)
		return pop_fail(c, -errno, NULL);
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

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;	/* removed meanwhile */
		return pop_fail(c, -errno, NULL);
	}
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
	gaze_dirstack_init(&c.ds, GAZE_DIRSTACK_MAX_FDS);
	ret = gaze_pathbuf_init(&c.pb, srcdir);
	c.buf = malloc(POP_BUF_SIZE);
	c.dents = malloc(POP_DENTS_SIZE);
	c.xlist = malloc(POP_XATTR_MAX);
	c.xval = malloc(POP_XATTR_MAX);
	if (ret || !c.buf || !c.dents || !c.xlist || !c.xval) {
		fprintf(stderr, "mkfs.gaze: %s: %s\n", srcdir,
			strerror(ENOMEM));
		ret = -ENOMEM;
		goto out_free;
	}
	/* "/" gives "//x" otherwise (and "dir/" "dir//x": pathbuf_init) */
	if (c.pb.len == 1 && c.pb.path[0] == '/')
		c.pb.len = 0;

	fd = open(srcdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM) {
		c.noatime = false;
		fd = open(srcdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "mkfs.gaze: %s: %s\n", srcdir, strerror(-ret));
		goto out_free;
	}
	if (fstat(fd, &st)) {
		ret = pop_fail(&c, -errno, NULL);
		close(fd);
		goto out_free;
	}
	pop_attr(&c, &st, &a);
	ret = pop_xattrs(&c, fd, -1, NULL, GAZE_ROOT_INO, &dummy);
	if (ret) {
		close(fd);
		goto out_free;
	}
	ret = pop_push(&c, fd, &st);
	if (ret) {
		ret = pop_fail(&c, ret, NULL);
		close(fd);
		goto out_free;
	}
	ret = pop_dir(&c, fd, GAZE_ROOT_INO);
	pop_pop(&c);
	if (ret)
		goto out_links;
	ret = pop_links_finish(&c);
	if (ret)
		goto out_links;
	if (!c.pb.len)
		strcpy(c.pb.path, "/");
	ret = pop_setattr(&c, GAZE_ROOT_INO, &a);
	if (ret)
		goto out_links;
	if (verbose)
		printf("Copied %llu files (%llu MiB), %llu directories, %llu symlinks, %llu special files, %llu hard links from %s\n",
		       (unsigned long long)c.nfiles,
		       (unsigned long long)(c.bytes >> 20),
		       (unsigned long long)c.ndirs,
		       (unsigned long long)c.nsyms,
		       (unsigned long long)c.nspecial,
		       (unsigned long long)c.nhard, srcdir);

out_links:
	gaze_inode_table_free(&c.links, pop_link_release);
out_free:
	while (c.ds.depth)
		pop_pop(&c);
	gaze_dirstack_free(&c.ds);
	free(c.xval);
	free(c.xlist);
	free(c.dents);
	free(c.buf);
	gaze_pathbuf_free(&c.pb);
	return ret;
}
