// SPDX-License-Identifier: GPL-2.0
/*
 * reader.c - gazectl ls, cat, extract, stat: a read-only reader for
 * unmounted GAZE images.
 *
 * Why: tests must prove that mkfs.gaze -d round-trips a tree byte for
 * byte, metadata included, without a kernel; and an admin wants to look
 * into an image.  Everything goes through the shared core (the code the
 * module runs) opened with GAZE_FS_RDONLY on a device opened read-only,
 * so nothing here can write to the image.
 *
 * extract mirrors mkfs/populate.c: holes found with gaze_file_bmap stay
 * holes, hard links are recreated from the image's inode numbers, and a
 * directory's attributes are applied after its children (creating them
 * changes its times).  Descriptors: at most GAZE_DIRSTACK_MAX_FDS
 * directory levels are held; deeper ones close the shallowest, reopened
 * through ".." on the way back up (lib/util/walk.c).
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "gaze_core.h"
#include "gaze_zdev.h"
#include "gaze_util.h"
#include "gazectl.h"

#define RD_BUF_SIZE	(1u << 20)
#define RD_XATTR_MAX	(64u << 10)
#define RD_LINK_MAX	4096		/* symlink target bytes + NUL */

struct rd_img {
	const char	*name;
	struct gaze_dev	*dev;
	struct gaze_fs	*fs;
};

struct rd_ent {			/* a directory entry as read */
	u32	ino;
	u8	dtype;
	u16	len;
	char	*name;
};

struct rd_dir {
	struct rd_ent	*ents;
	u32		count, cap;
	int		err;
};

#define rd_help_opt { "help", no_argument, NULL, 'h' }

/* an option every command takes (-h) or none takes: the exit status */
static int
rd_opt_other(const struct gaze_cmd *cmd, int opt)
{
	if (opt == 'h') {
		gaze_cmd_help(cmd, stdout);
		return GAZE_EXIT_OK;
	}
	return gaze_cmd_usage_error(cmd, "bad option");
}

/* ---------------------------------------------------------------- */
/* Opening an image and resolving paths                              */
/* ---------------------------------------------------------------- */

static const char *
rd_strerror(int err)
{
	if (err == -EFSBADCRC)
		return "bad checksum in metadata (run fsck.gaze)";
	if (err == -EFSCORRUPTED)
		return "filesystem is corrupted (run fsck.gaze)";
	return strerror(-err);
}

static int
rd_open(struct rd_img *img, const char *name)
{
	struct gaze_dev_open_opts o = {
		.rdonly = true,
		.lock = true,	/* not while mkfs or a repair writes it */
	};
	struct gaze_super *sb;
	ssize_t n;
	int fd, ret;

	memset(img, 0, sizeof(*img));
	img->name = name;
	sb = malloc(GAZE_BLOCK_SIZE);
	if (!sb) {
		fprintf(stderr, "gazectl: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "gazectl: %s: %s\n", name, strerror(-ret));
		goto out_free;
	}
	n = pread(fd, sb, GAZE_BLOCK_SIZE, 0);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret) {
		fprintf(stderr, "gazectl: %s: %s\n", name, strerror(-ret));
		goto out_free;
	}
	if (n < (ssize_t)GAZE_BLOCK_SIZE || !gaze_probe_gaze_block(sb)) {
		fprintf(stderr, "gazectl: %s: not a GAZE filesystem (bad magic)\n",
			name);
		ret = -EINVAL;
		goto out_free;
	}
	/* images: the zone size mkfs chose is only in the superblock */
	o.zone_blocks = gaze_probe_image_zone_blocks(name, NULL, NULL);
	ret = gaze_dev_open(name, &o, &img->dev);
	if (ret) {
		fprintf(stderr, "gazectl: %s: %s\n", name,
			ret == -EWOULDBLOCK ?
			"in use: mkfs.gaze or fsck.gaze -p/-y is writing it" :
			strerror(-ret));
		goto out_free;
	}
	ret = gaze_fs_open(img->dev, GAZE_FS_RDONLY, &img->fs);
	if (ret) {
		fprintf(stderr, "gazectl: %s: cannot open the filesystem: %s\n",
			name, rd_strerror(ret));
		gaze_dev_close(img->dev);
		img->dev = NULL;
	}
out_free:
	free(sb);
	return ret;
}

static void
rd_close(struct rd_img *img)
{
	if (img->fs)
		gaze_fs_close(img->fs);
	gaze_dev_close(img->dev);
	img->fs = NULL;
	img->dev = NULL;
}

/*
 * A name, path or symlink target for human output: quoted when it holds
 * bytes a terminal must not see raw (lib/util/text.c).
 */
static void
rd_put(FILE *f, const char *s)
{
	gaze_quote_fput(f, s, strlen(s));
}

static void
rd_err(struct rd_img *img, const char *path, int err)
{
	fprintf(stderr, "gazectl: %s: ", img->name);
	rd_put(stderr, path);
	fprintf(stderr, ": %s\n", rd_strerror(err));
}

/*
 * Walks path from the root with gaze_ns_lookup; ".." goes back one
 * component; symlinks are not followed.  *ino gets the inode.
 */
static int
rd_resolve(struct rd_img *img, const char *path, u32 *ino)
{
	u32 stack[256], depth = 0, cur = GAZE_ROOT_INO, next;
	const char *p = path, *e;
	u8 dtype = DT_DIR;
	int ret;

	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchrnul(p, '/');
		if (e - p == 1 && p[0] == '.') {
			p = e;
			continue;
		}
		if (dtype != DT_DIR)
			return -ENOTDIR;
		if (e - p == 2 && p[0] == '.' && p[1] == '.') {
			if (depth)
				cur = stack[--depth];
			p = e;
			continue;
		}
		if (e - p > GAZE_NAME_MAX)
			return -ENAMETOOLONG;
		ret = gaze_ns_lookup(img->fs, cur, p, e - p, &next, &dtype);
		if (ret)
			return ret;
		if (depth < ARRAY_SIZE(stack))
			stack[depth++] = cur;
		else
			return -ELOOP;
		cur = next;
		p = e;
	}
	/* "file/" names a directory or nothing */
	if (p > path && p[-1] == '/' && dtype != DT_DIR && cur != GAZE_ROOT_INO)
		return -ENOTDIR;
	*ino = cur;
	return 0;
}

/* rd_resolve and the attributes of what path names */
static int
rd_lookup(struct rd_img *img, const char *path, u32 *ino, struct gaze_attr *a)
{
	int ret = rd_resolve(img, path, ino);

	return ret ? ret : gaze_ns_getattr(img->fs, *ino, a);
}

/*
 * A buffer of size bytes to *buf, then the image opened; messages
 * printed.  Nothing is left to free when it fails.
 */
static int
rd_open_buf(struct rd_img *img, const char *name, size_t size, char **buf)
{
	int ret;

	*buf = malloc(size);
	if (!*buf) {
		fprintf(stderr, "gazectl: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = rd_open(img, name);
	if (ret)
		free(*buf);
	return ret;
}

static int
rd_filldir(void *ctx, const char *name, u32 len, u32 ino, u8 dtype,
	   u64 cookie)
{
	struct rd_dir *d = ctx;
	struct rd_ent *e;

	(void)cookie;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (d->count == d->cap) {
		u32 cap = d->cap ? d->cap * 2 : 64;

		e = realloc(d->ents, cap * sizeof(*e));
		if (!e)
			goto out_nomem;
		d->ents = e;
		d->cap = cap;
	}
	e = &d->ents[d->count];
	e->name = malloc(len + 1);
	if (!e->name)
		goto out_nomem;
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	e->len = len;
	e->ino = ino;
	e->dtype = dtype;
	d->count++;
	return 0;

out_nomem:
	d->err = -ENOMEM;
	return 1;
}

static void
rd_dir_free(struct rd_dir *d)
{
	u32 i;

	for (i = 0; i < d->count; i++)
		free(d->ents[i].name);
	free(d->ents);
	memset(d, 0, sizeof(*d));
}

/* all entries but '.' and '..', in readdir order */
static int
rd_dir_read(struct rd_img *img, u32 ino, struct rd_dir *d)
{
	u64 pos = 0;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = gaze_ns_readdir(img->fs, ino, &pos, rd_filldir, d);
	if (!ret)
		ret = d->err;
	if (ret)
		rd_dir_free(d);
	return ret;
}

static int
rd_ent_cmp(const void *a, const void *b)
{
	const struct rd_ent *x = a, *y = b;
	int r = memcmp(x->name, y->name, min(x->len, y->len));

	return r ? r : (int)x->len - (int)y->len;
}

/* symlink target into buf (RD_LINK_MAX), NUL-terminated; length */
static int
rd_readlink(struct rd_img *img, u32 ino, char *buf)
{
	int ret = gaze_ns_readlink(img->fs, ino, buf, RD_LINK_MAX - 1);

	if (ret < 0)
		return ret;
	if (ret > RD_LINK_MAX - 1)
		ret = RD_LINK_MAX - 1;
	buf[ret] = '\0';
	return ret;
}

/* ---------------------------------------------------------------- */
/* Formatting                                                        */
/* ---------------------------------------------------------------- */

static const char *
rd_type_name(u32 mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:	return "file";
	case S_IFDIR:	return "dir";
	case S_IFLNK:	return "symlink";
	case S_IFCHR:	return "chr";
	case S_IFBLK:	return "blk";
	case S_IFIFO:	return "fifo";
	case S_IFSOCK:	return "sock";
	}
	return "unknown";
}

static const char *
rd_type_long(u32 mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:	return "regular file";
	case S_IFDIR:	return "directory";
	case S_IFLNK:	return "symbolic link";
	case S_IFCHR:	return "character special file";
	case S_IFBLK:	return "block special file";
	case S_IFIFO:	return "fifo";
	case S_IFSOCK:	return "socket";
	}
	return "unknown";
}

/* "drwxr-sr-t" into s[11] */
static void
rd_mode_string(u32 mode, char *s)
{
	static const char types[] = "?pc?d?b?-?l?s???";
	int i;

	s[0] = types[(mode >> 12) & 0xf];
	for (i = 0; i < 9; i++)
		s[1 + i] = mode & (0400 >> i) ? "rwx"[i % 3] : '-';
	if (mode & S_ISUID)
		s[3] = s[3] == 'x' ? 's' : 'S';
	if (mode & S_ISGID)
		s[6] = s[6] == 'x' ? 's' : 'S';
	if (mode & S_ISVTX)
		s[9] = s[9] == 'x' ? 't' : 'T';
	s[10] = '\0';
}

/* "2024-05-01 12:00:00.123456789 +0000" */
static char *
rd_time_string(s64 sec, u32 nsec, char *buf, size_t len)
{
	time_t t = sec;
	struct tm tm;
	char date[32], zone[8];

	if (!localtime_r(&t, &tm)) {
		snprintf(buf, len, "%lld.%09u", (long long)sec, nsec);
		return buf;
	}
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, len, "%s.%09u %s", date, nsec, zone);
	return buf;
}

/* "zstd:3", "lz4", "none": how new writes to the file compress */
static const char *
rd_compress(const struct gaze_attr *a)
{
	static char buf[32];

	if (!(a->flags & GAZE_IF_COMPRESS))
		return "none";
	if (!a->compress_level)
		return gaze_fmt_compress_name(a->compress_algo);
	snprintf(buf, sizeof(buf), "%s:%u",
		 gaze_fmt_compress_name(a->compress_algo), a->compress_level);
	return buf;
}

/* the fields ls --json and stat --json both write, in this order */
static void
rd_json_inode(struct gaze_json *j, const struct gaze_attr *a)
{
	gaze_json_str(j, "type", rd_type_name(a->mode));
	gaze_json_u64(j, "mode", a->mode);
	gaze_json_u64(j, "nlink", a->nlink);
	gaze_json_u64(j, "uid", a->uid);
	gaze_json_u64(j, "gid", a->gid);
	gaze_json_u64(j, "size", a->size);
	gaze_json_u64(j, "blocks", a->blocks);
}

static void
rd_json_times(struct gaze_json *j, const struct gaze_attr *a)
{
	gaze_json_s64(j, "atime_sec", a->atime);
	gaze_json_u64(j, "atime_nsec", a->atime_nsec);
	gaze_json_s64(j, "mtime_sec", a->mtime);
	gaze_json_u64(j, "mtime_nsec", a->mtime_nsec);
	gaze_json_s64(j, "ctime_sec", a->ctime);
	gaze_json_u64(j, "ctime_nsec", a->ctime_nsec);
}

/* ---------------------------------------------------------------- */
/* ls                                                                */
/* ---------------------------------------------------------------- */

struct ls_opts {
	bool long_fmt, recursive, dir_itself, json;
	struct gaze_json j;
	int errors;
};

/* symlink target into target (RD_LINK_MAX); errors reported, counted */
static int
ls_readlink(struct rd_img *img, struct ls_opts *o, const char *path,
	    const struct gaze_attr *a, char *target)
{
	int n = rd_readlink(img, a->ino, target);

	if (n < 0) {
		rd_err(img, path, n);
		o->errors++;
	}
	return n;
}

static void
ls_json_entry(struct rd_img *img, struct ls_opts *o, const char *path,
	      const char *name, const struct gaze_attr *a)
{
	char target[RD_LINK_MAX];
	struct gaze_json *j = &o->j;
	int n;

	gaze_json_obj_begin(j, NULL);
	gaze_json_u64(j, "ino", a->ino);
	gaze_json_str(j, "name", name);
	gaze_json_str(j, "path", path);
	rd_json_inode(j, a);
	rd_json_times(j, a);
	gaze_json_u64(j, "rdev_major", a->rdev_major);
	gaze_json_u64(j, "rdev_minor", a->rdev_minor);
	n = S_ISLNK(a->mode) ? ls_readlink(img, o, path, a, target) : -1;
	if (n >= 0)
		gaze_json_strn(j, "target", target, n);
	else
		gaze_json_null(j, "target");
	gaze_json_obj_end(j);
}

static void
ls_entry(struct rd_img *img, struct ls_opts *o, const char *path,
	 const char *name, const struct gaze_attr *a)
{
	char mode[11], tbuf[64], target[RD_LINK_MAX];

	if (o->json) {
		ls_json_entry(img, o, path, name, a);
		return;
	}
	if (!o->long_fmt) {
		rd_put(stdout, name);
		putchar('\n');
		return;
	}
	rd_mode_string(a->mode, mode);
	printf("%s %3u %5u %5u ", mode, a->nlink, a->uid, a->gid);
	if (S_ISCHR(a->mode) || S_ISBLK(a->mode))
		printf("%4u, %4u", a->rdev_major, a->rdev_minor);
	else
		printf("%10llu", (unsigned long long)a->size);
	printf(" %s ", rd_time_string(a->mtime, a->mtime_nsec, tbuf,
				      sizeof(tbuf)));
	rd_put(stdout, name);
	if (S_ISLNK(a->mode) && ls_readlink(img, o, path, a, target) >= 0) {
		fputs(" -> ", stdout);
		rd_put(stdout, target);
	}
	putchar('\n');
}

/* "/a" + "b" -> "/a/b" (malloc'd) */
static char *
rd_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *p = malloc(dl + nl + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	if (!dl || dir[dl - 1] != '/')
		p[dl++] = '/';
	memcpy(p + dl, name, nl + 1);
	return p;
}

/*
 * The entries of directory ino, then with -R its subdirectories.  An
 * entry or subdirectory that cannot be read is reported, counted in
 * o->errors and skipped; only running out of memory stops the listing.
 */
static int
ls_dir(struct rd_img *img, struct ls_opts *o, u32 ino, const char *path,
       bool heading, bool *first)
{
	struct gaze_attr a;
	struct rd_dir d;
	char *sub;
	u32 i;
	int ret, err;

	ret = rd_dir_read(img, ino, &d);
	if (ret) {
		rd_err(img, path, ret);
		o->errors++;
		return ret == -ENOMEM ? ret : 0;
	}
	if (d.count > 1)
		qsort(d.ents, d.count, sizeof(*d.ents), rd_ent_cmp);
	if (heading && !o->json) {
		fputs(*first ? "" : "\n", stdout);
		rd_put(stdout, path);
		fputs(":\n", stdout);
		*first = false;
	}
	for (i = 0; i < d.count; i++) {
		if (!o->long_fmt && !o->json) {
			rd_put(stdout, d.ents[i].name);
			putchar('\n');
			continue;
		}
		sub = rd_join(path, d.ents[i].name);
		if (!sub) {
			ret = -ENOMEM;
			break;
		}
		err = gaze_ns_getattr(img->fs, d.ents[i].ino, &a);
		if (err) {
			rd_err(img, sub, err);
			o->errors++;
		} else {
			ls_entry(img, o, sub, d.ents[i].name, &a);
		}
		free(sub);
	}
	for (i = 0; o->recursive && !ret && i < d.count; i++) {
		if (d.ents[i].dtype != DT_DIR)
			continue;
		sub = rd_join(path, d.ents[i].name);
		if (!sub) {
			ret = -ENOMEM;
			break;
		}
		ret = ls_dir(img, o, d.ents[i].ino, sub, true, first);
		free(sub);
	}
	rd_dir_free(&d);
	return ret;
}

int
gaze_cmd_ls(const struct gaze_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "long", no_argument, NULL, 'l' },
		{ "recursive", no_argument, NULL, 'R' },
		{ "directory", no_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		rd_help_opt,
		{ NULL, 0, NULL, 0 }
	};
	struct ls_opts o = { 0 };
	struct rd_img img;
	struct gaze_attr a;
	const char *path, *name;
	bool first = true;
	u32 ino;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "lRdh", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': o.long_fmt = true; break;
		case 'R': o.recursive = true; break;
		case 'd': o.dir_itself = true; break;
		case 'j': o.json = true; break;
		default:
			return rd_opt_other(cmd, opt);
		}
	}
	ret = gaze_cmd_nargs(cmd, argc, optind);
	if (ret)
		return ret;
	path = optind + 1 < argc ? argv[optind + 1] : "/";
	if (rd_open(&img, argv[optind]))
		return GAZE_EXIT_FAIL;
	ret = rd_lookup(&img, path, &ino, &a);
	if (ret) {
		rd_err(&img, path, ret);
		rd_close(&img);
		return GAZE_EXIT_FAIL;
	}
	if (o.json) {
		gaze_json_init(&o.j, stdout, false);
		gaze_json_arr_begin(&o.j, NULL);
	}
	if (S_ISDIR(a.mode) && !o.dir_itself) {
		ret = ls_dir(&img, &o, ino, path, o.recursive, &first);
	} else {
		name = strrchr(path, '/');
		name = name && name[1] ? name + 1 : path;
		ls_entry(&img, &o, path, name, &a);
	}
	if (o.json) {
		gaze_json_arr_end(&o.j);
		gaze_json_finish(&o.j);
	}
	if (ret) {
		rd_err(&img, path, ret);
		o.errors++;
	}
	rd_close(&img);
	if (fflush(stdout)) {
		fprintf(stderr, "gazectl: standard output: %s\n",
			strerror(errno));
		return GAZE_EXIT_FAIL;
	}
	return o.errors ? GAZE_EXIT_FAIL : GAZE_EXIT_OK;
}

/* ---------------------------------------------------------------- */
/* cat                                                               */
/* ---------------------------------------------------------------- */

int
gaze_cmd_cat(const struct gaze_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		rd_help_opt,
		{ NULL, 0, NULL, 0 }
	};
	struct rd_img img;
	struct gaze_attr a;
	const char *path;
	char *buf;
	u64 off = 0;
	s64 n;
	u32 ino;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return rd_opt_other(cmd, opt);
	ret = gaze_cmd_nargs(cmd, argc, optind);
	if (ret)
		return ret;
	path = argv[optind + 1];
	if (rd_open_buf(&img, argv[optind], RD_BUF_SIZE, &buf))
		return GAZE_EXIT_FAIL;
	ret = rd_lookup(&img, path, &ino, &a);
	if (!ret && S_ISDIR(a.mode))
		ret = -EISDIR;
	if (ret)
		goto out_err;
	if (!S_ISREG(a.mode)) {
		fprintf(stderr, "gazectl: %s: ", img.name);
		rd_put(stderr, path);
		fputs(": not a regular file\n", stderr);
		ret = -EINVAL;
		goto out_close;
	}
	while (off < a.size) {
		n = gaze_file_read(img.fs, ino, buf,
				   min_t(u64, RD_BUF_SIZE, a.size - off), off);
		if (n < 0) {
			ret = (int)n;
			goto out_err;
		}
		if (n == 0)
			break;
		ret = gaze_write_all(STDOUT_FILENO, buf, n);
		if (ret) {
			fprintf(stderr, "gazectl: standard output: %s\n",
				strerror(-ret));
			goto out_close;
		}
		off += n;
	}
	goto out_close;

out_err:
	rd_err(&img, path, ret);
out_close:
	rd_close(&img);
	free(buf);
	return ret ? GAZE_EXIT_FAIL : GAZE_EXIT_OK;
}

/* ---------------------------------------------------------------- */
/* stat                                                              */
/* ---------------------------------------------------------------- */

static void
stat_json(struct rd_img *img, const char *path, const struct gaze_attr *a,
	  const char *target, int tlen, const char *xl, int xlen)
{
	struct gaze_json j;
	const char *n;
	unsigned int i;
	int v;

	gaze_json_init(&j, stdout, true);
	gaze_json_obj_begin(&j, NULL);
	gaze_json_str(&j, "path", path);
	gaze_json_u64(&j, "ino", a->ino);
	rd_json_inode(&j, a);
	gaze_json_u64(&j, "rdev_major", a->rdev_major);
	gaze_json_u64(&j, "rdev_minor", a->rdev_minor);
	gaze_json_u64(&j, "flags", a->flags & GAZE_IF_ALL);
	gaze_json_arr_begin(&j, "flag_names");
	for (i = 0; i < GAZE_CTL_NR_INODE_FLAGS; i++)
		if (a->flags & (1u << i))
			gaze_json_str(&j, NULL, gaze_ctl_inode_flags[i]);
	gaze_json_arr_end(&j);
	gaze_json_str(&j, "compression", rd_compress(a));
	gaze_json_u64(&j, "compr_saved_blocks", a->compr_blocks);
	gaze_json_u64(&j, "generation", a->generation);
	rd_json_times(&j, a);
	gaze_json_s64(&j, "crtime_sec", a->crtime);
	gaze_json_u64(&j, "crtime_nsec", a->crtime_nsec);
	if (tlen >= 0)
		gaze_json_strn(&j, "target", target, tlen);
	else
		gaze_json_null(&j, "target");
	gaze_json_arr_begin(&j, "xattrs");
	gaze_xname_for_each(n, xl, xlen) {
		v = gaze_xattr_get(img->fs, a->ino, n, NULL, 0);
		gaze_json_obj_begin(&j, NULL);
		gaze_json_str(&j, "name", n);
		gaze_json_s64(&j, "size", v);
		gaze_json_obj_end(&j);
	}
	gaze_json_arr_end(&j);
	gaze_json_obj_end(&j);
	gaze_json_finish(&j);
}

static void
stat_time(const char *label, s64 sec, u32 nsec)
{
	char tbuf[64];

	printf("%s: %s (%lld.%09u)\n", label,
	       rd_time_string(sec, nsec, tbuf, sizeof(tbuf)), (long long)sec,
	       nsec);
}

static void
stat_text(struct rd_img *img, const char *path, const struct gaze_attr *a,
	  const char *target, int tlen, const char *xl, int xlen)
{
	char mode[11];
	const char *n;
	unsigned int i;
	bool any = false;

	rd_mode_string(a->mode, mode);
	fputs("  File: ", stdout);
	rd_put(stdout, path);
	if (tlen >= 0) {
		fputs(" -> ", stdout);
		gaze_quote_fput(stdout, target, tlen);
	}
	putchar('\n');
	printf("  Type: %s\n", rd_type_long(a->mode));
	printf(" Inode: %-12u Links: %u\n", a->ino, a->nlink);
	printf("  Mode: %04o (%s)  Uid: %u  Gid: %u\n", a->mode & 07777,
	       mode, a->uid, a->gid);
	printf("  Size: %-12llu Blocks: %llu (4 KiB)\n",
	       (unsigned long long)a->size, (unsigned long long)a->blocks);
	printf("  Rdev: %u:%u\n", a->rdev_major, a->rdev_minor);
	printf(" Flags: 0x%x (", a->flags & GAZE_IF_ALL);
	for (i = 0; i < GAZE_CTL_NR_INODE_FLAGS; i++) {
		if (a->flags & (1u << i)) {
			printf("%s%s", any ? "," : "", gaze_ctl_inode_flags[i]);
			any = true;
		}
	}
	printf(")\n");
	if (a->compress_log_cluster)
		printf("Compression: %s for new writes, clusters of %u KiB, %llu blocks saved\n",
		       rd_compress(a), 4u << a->compress_log_cluster,
		       (unsigned long long)a->compr_blocks);
	printf("Generation: %u\n", a->generation);
	stat_time("Access", a->atime, a->atime_nsec);
	stat_time("Modify", a->mtime, a->mtime_nsec);
	stat_time("Change", a->ctime, a->ctime_nsec);
	stat_time(" Birth", a->crtime, a->crtime_nsec);
	gaze_xname_for_each(n, xl, xlen) {
		fputs(" Xattr: ", stdout);
		rd_put(stdout, n);
		printf(" (%d bytes)\n",
		       gaze_xattr_get(img->fs, a->ino, n, NULL, 0));
	}
}

int
gaze_cmd_stat(const struct gaze_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		rd_help_opt,
		{ NULL, 0, NULL, 0 }
	};
	char target[RD_LINK_MAX], *xl;
	struct rd_img img;
	struct gaze_attr a;
	const char *path;
	bool json = false;
	int opt, ret, tlen = -1, xlen;
	u32 ino;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		default:
			return rd_opt_other(cmd, opt);
		}
	}
	ret = gaze_cmd_nargs(cmd, argc, optind);
	if (ret)
		return ret;
	path = argv[optind + 1];
	if (rd_open_buf(&img, argv[optind], RD_XATTR_MAX, &xl))
		return GAZE_EXIT_FAIL;
	ret = rd_lookup(&img, path, &ino, &a);
	if (!ret && S_ISLNK(a.mode)) {
		tlen = rd_readlink(&img, ino, target);
		if (tlen < 0)
			ret = tlen;
	}
	xlen = 0;
	if (!ret) {
		xlen = gaze_xattr_list(img.fs, ino, xl, RD_XATTR_MAX);
		if (xlen < 0)
			ret = xlen;
	}
	if (ret) {
		rd_err(&img, path, ret);
		goto out_close;
	}
	if (json)
		stat_json(&img, path, &a, target, tlen, xl, xlen);
	else
		stat_text(&img, path, &a, target, tlen, xl, xlen);
out_close:
	rd_close(&img);
	free(xl);
	return ret ? GAZE_EXIT_FAIL : GAZE_EXIT_OK;
}

/* ---------------------------------------------------------------- */
/* extract                                                           */
/* ---------------------------------------------------------------- */

struct xt_link {		/* first extracted name of an inode */
	struct gaze_inode_node node;	/* dev 0, ino: the image's inode */
	char		*rel;		/* path below DESTDIR */
};

struct xt_ctx {
	struct rd_img	*img;
	int		verbose;
	int		rootfd;		/* DESTDIR, for linkat */
	struct gaze_pathbuf pb;		/* DESTDIR/... of the current entry */
	size_t		rootlen;
	const char	*ipath;		/* PATH in the image, for messages */
	char		*buf;		/* RD_BUF_SIZE */
	char		*xlist, *xval;	/* RD_XATTR_MAX */
	char		target[RD_LINK_MAX];
	struct gaze_dirstack ds;	/* the directories being extracted */
	struct gaze_inode_table links;	/* struct xt_link */
	u32		cluster;	/* blocks per compressed cluster */
	u32		failed;		/* entries skipped or left incomplete */
	bool		stop;		/* the walk cannot go on (xt_stop) */
};

static int
xt_fail(struct xt_ctx *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
xt_fail(struct xt_ctx *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gaze_vwarn_path("gazectl", c->pb.path, rd_strerror(err), fmt, ap);
	va_end(ap);
	return err;
}

/* xt_fail for "WHAT NAME" with a name from the image, quoted */
static int
xt_fail_name(struct xt_ctx *c, int err, const char *what, const char *name)
{
	char *q = gaze_quote_dup(name);

	xt_fail(c, err, "%s %s", what, q ? q : "(name)");
	free(q);
	return err;
}

/*
 * Whether a failed entry ends the whole extraction.  Why so few: like
 * tar or debugfs rdump, extract is how files get off a damaged image,
 * so an inode, directory or block that cannot be read, or a file that
 * cannot be created, costs that entry only.  Running out of memory, or
 * losing track of where the directory stack is (xt_pop), leaves nothing
 * sound to go on with.
 */
static bool
xt_stop(struct xt_ctx *c, int err)
{
	if (err == -ENOMEM)
		c->stop = true;
	return c->stop;
}

/* hard links: image inode -> path below DESTDIR of its first name */
static struct xt_link *
xt_link_find(struct xt_ctx *c, u32 ino)
{
	struct gaze_inode_node *n = gaze_inode_table_find(&c->links, 0, ino);

	return n ? container_of(n, struct xt_link, node) : NULL;
}

static int
xt_link_add(struct xt_ctx *c, u32 ino)
{
	struct xt_link *l;

	l = malloc(sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->rel = strdup(c->pb.path + c->rootlen + 1);
	if (!l->rel) {
		free(l);
		return -ENOMEM;
	}
	l->node.dev = 0;
	l->node.ino = ino;
	if (gaze_inode_table_add(&c->links, &l->node)) {
		free(l->rel);
		free(l);
		return -ENOMEM;
	}
	return 0;
}

static void
xt_link_release(struct gaze_inode_node *n)
{
	struct xt_link *l = container_of(n, struct xt_link, node);

	free(l->rel);
	free(l);
}

/*
 * linkat(rootfd, rel, dirfd, name) for a rel of any length: a prefix of
 * at most PATH_MAX - 1 bytes at a time is opened with O_PATH.
 */
static int
xt_linkat(int rootfd, const char *rel, int dirfd, const char *name)
{
	char part[PATH_MAX];
	const char *cut;
	int fd = rootfd, nfd, ret;

	while (strlen(rel) >= PATH_MAX) {
		memcpy(part, rel, PATH_MAX - 1);
		part[PATH_MAX - 1] = '\0';
		cut = strrchr(part, '/');
		if (!cut || cut == part) {
			ret = -ENAMETOOLONG;
			goto out_close;
		}
		part[cut - part] = '\0';
		nfd = openat(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			     O_CLOEXEC);
		if (nfd < 0) {
			ret = -errno;
			goto out_close;
		}
		if (fd != rootfd)
			close(fd);
		fd = nfd;
		rel += cut - part + 1;
	}
	ret = linkat(fd, rel, dirfd, name, 0) ? -errno : 0;
out_close:
	if (fd != rootfd)
		close(fd);
	return ret;
}

static int
xt_xattrs(struct xt_ctx *c, u32 ino, int fd, int dirfd, const char *name)
{
	const char *n, *path = NULL;
	int len, vlen, r;

	len = gaze_xattr_list(c->img->fs, ino, c->xlist, RD_XATTR_MAX);
	if (len < 0)
		return xt_fail(c, len, "listing xattrs in the image");
	gaze_xname_for_each(n, c->xlist, len) {
		vlen = gaze_xattr_get(c->img->fs, ino, n, c->xval,
				      RD_XATTR_MAX);
		if (vlen < 0)
			return xt_fail_name(c, vlen, "reading xattr", n);
		if (fd >= 0) {
			r = fsetxattr(fd, n, c->xval, vlen, 0);
		} else {
			if (!path)
				path = gaze_pathbuf_xpath(&c->pb, dirfd, name,
							  c->buf, RD_BUF_SIZE);
			r = lsetxattr(path, n, c->xval, vlen, 0);
		}
		if (r)
			return xt_fail_name(c, -errno, "setting xattr", n);
	}
	return 0;
}

/* owner, mode, xattrs, times: in this order (chown clears setuid) */
static int
xt_attrs(struct xt_ctx *c, const struct gaze_attr *a, int fd, int dirfd,
	 const char *name)
{
	struct timespec ts[2] = {
		{ .tv_sec = a->atime, .tv_nsec = a->atime_nsec },
		{ .tv_sec = a->mtime, .tv_nsec = a->mtime_nsec },
	};
	int ret;

	if (fd >= 0 ? fchown(fd, a->uid, a->gid) :
	    fchownat(dirfd, name, a->uid, a->gid, AT_SYMLINK_NOFOLLOW))
		return xt_fail(c, -errno, "setting owner");
	if (!S_ISLNK(a->mode) &&
	    (fd >= 0 ? fchmod(fd, a->mode & 07777) :
	     fchmodat(dirfd, name, a->mode & 07777, 0)))
		return xt_fail(c, -errno, "setting mode");
	ret = xt_xattrs(c, a->ino, fd, dirfd, name);
	if (ret)
		return ret;
	if (fd >= 0 ? futimens(fd, ts) :
	    utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW))
		return xt_fail(c, -errno, "setting times");
	return 0;
}

/* copies bytes [start, end) of the image file to fd */
static int
xt_copy(struct xt_ctx *c, u32 ino, int fd, u64 start, u64 end)
{
	s64 n;
	int ret;

	while (start < end) {
		n = gaze_file_read(c->img->fs, ino, c->buf,
				   min_t(u64, RD_BUF_SIZE, end - start), start);
		if (n < 0)
			return xt_fail(c, (int)n, "reading from the image");
		if (n == 0)
			return xt_fail(c, -EIO, "reading from the image");
		ret = gaze_pwrite_all(fd, c->buf, n, start);
		if (ret)
			return xt_fail(c, ret, "writing");
		start += n;
	}
	return 0;
}

/*
 * Data runs found with gaze_file_bmap are copied; holes are skipped.  A
 * block that cannot be mapped (a damaged node) ends the copy, after the
 * run before it: the caller reports the file as not whole.
 */
static int
xt_data(struct xt_ctx *c, const struct gaze_attr *a, int fd)
{
	u64 nblk = DIV_ROUND_UP(a->size, GAZE_BLOCK_SIZE), b, run = 0;
	u64 addr, data_end = 0;
	bool in_run = false;
	int ret;

	if (a->flags & GAZE_IF_INLINE_DATA || !nblk)
		return a->size ? xt_copy(c, a->ino, fd, 0, a->size) : 0;

	for (b = 0; b <= nblk; b++) {
		bool data = false;

		if (b < nblk && b < data_end) {
			data = true;
		} else if (b < nblk) {
			ret = gaze_file_bmap(c->img->fs, a->ino, b, &addr);
			if (ret) {
				/* keep what could be read before it */
				if (in_run)
					xt_copy(c, a->ino, fd,
						run * GAZE_BLOCK_SIZE,
						b * GAZE_BLOCK_SIZE);
				return xt_fail(c, ret, "mapping block %llu",
					       (unsigned long long)b);
			}
			if (GAZE_ADDR_IS_CLUSTER(addr)) {
				/* the whole cluster holds data */
				data_end = b + c->cluster;
				data = true;
			} else {
				data = GAZE_ADDR_IS_REAL(addr);
			}
		}
		if (data && !in_run) {
			run = b;
			in_run = true;
		} else if (!data && in_run) {
			ret = xt_copy(c, a->ino, fd, run * GAZE_BLOCK_SIZE,
				      min_t(u64, b * GAZE_BLOCK_SIZE,
					    a->size));
			if (ret)
				return ret;
			in_run = false;
		}
	}
	return 0;
}

static int
xt_file(struct xt_ctx *c, int dirfd, const char *name,
	const struct gaze_attr *a)
{
	int fd, ret;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0)
		return xt_fail(c, -errno, "creating");
	ret = xt_data(c, a, fd);
	if (ret)
		goto out_close;
	if (ftruncate(fd, a->size)) {
		ret = xt_fail(c, -errno, "setting size");
		goto out_close;
	}
	ret = xt_attrs(c, a, fd, -1, NULL);
out_close:
	close(fd);
	return ret;
}

static int
xt_push(struct xt_ctx *c, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	return gaze_dirstack_push(&c->ds, fd, &st, c->pb.len);
}

static int
xt_pop(struct xt_ctx *c)
{
	int ret = gaze_dirstack_pop(&c->ds, 0);

	if (ret) {
		gaze_pathbuf_cut(&c->pb, c->ds.lv[c->ds.depth - 1].pathlen);
		ret = xt_fail(c, ret, "directory moved during extraction");
		c->stop = true;
	}
	return ret;
}

static int xt_dir(struct xt_ctx *c, u32 ino);

static int
xt_entry(struct xt_ctx *c, int dirfd, const struct rd_ent *e)
{
	struct gaze_attr a;
	struct xt_link *l;
	int fd, ret, n;

	ret = gaze_ns_getattr(c->img->fs, e->ino, &a);
	if (ret)
		return xt_fail(c, ret, "reading the inode");
	if (c->verbose) {
		rd_put(stdout, c->pb.path);
		putchar('\n');
	}

	if (!S_ISDIR(a.mode) && a.nlink > 1) {
		l = xt_link_find(c, e->ino);
		if (l) {
			ret = xt_linkat(c->rootfd, l->rel, dirfd, e->name);
			if (ret)
				return xt_fail_name(c, ret, "linking to",
						    l->rel);
			return 0;
		}
	}

	switch (a.mode & S_IFMT) {
	case S_IFDIR:
		if (mkdirat(dirfd, e->name, 0700))
			return xt_fail(c, -errno, "creating directory");
		fd = openat(dirfd, e->name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return xt_fail(c, -errno, NULL);
		ret = xt_push(c, fd);
		if (ret) {
			close(fd);
			return xt_fail(c, ret, NULL);
		}
		ret = xt_dir(c, e->ino);
		if (!ret)
			ret = xt_attrs(c, &a, c->ds.lv[c->ds.depth - 1].fd, -1,
				       NULL);
		if (ret) {
			xt_pop(c);
			return ret;
		}
		return xt_pop(c);
	case S_IFREG:
		ret = xt_file(c, dirfd, e->name, &a);
		break;
	case S_IFLNK:
		n = rd_readlink(c->img, e->ino, c->target);
		if (n < 0)
			return xt_fail(c, n, "reading the symlink");
		if (symlinkat(c->target, dirfd, e->name))
			return xt_fail(c, -errno, "creating symlink");
		ret = xt_attrs(c, &a, -1, dirfd, e->name);
		break;
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		if (mknodat(dirfd, e->name, (a.mode & S_IFMT) | 0600,
			    makedev(a.rdev_major, a.rdev_minor)))
			return xt_fail(c, -errno, "creating %s",
				       rd_type_long(a.mode));
		ret = xt_attrs(c, &a, -1, dirfd, e->name);
		break;
	default:
		return xt_fail(c, -EFSCORRUPTED, "file type 0%o",
			       a.mode & S_IFMT);
	}
	if (!ret && !S_ISDIR(a.mode) && a.nlink > 1) {
		ret = xt_link_add(c, e->ino);
		if (ret)
			ret = xt_fail(c, ret, NULL);
	}
	return ret;
}

/*
 * Extracts the entries of image directory ino into the top of c->ds.
 * An entry that fails has said why (xt_fail) and is counted in
 * c->failed; the others go on.  Returns an error only when the
 * directory itself cannot be read, or when the walk must stop.
 */
static int
xt_dir(struct xt_ctx *c, u32 ino)
{
	u32 level = c->ds.depth - 1, i;
	struct rd_dir d;
	size_t old;
	int ret;

	ret = rd_dir_read(c->img, ino, &d);
	if (ret) {
		xt_stop(c, ret);
		return xt_fail(c, ret, "reading the directory in the image");
	}
	for (i = 0; i < d.count; i++) {
		ret = gaze_pathbuf_add(&c->pb, d.ents[i].name, d.ents[i].len,
				       &old);
		if (ret) {
			xt_stop(c, ret);
			ret = xt_fail(c, ret, NULL);
			break;
		}
		ret = xt_entry(c, c->ds.lv[level].fd, &d.ents[i]);
		gaze_pathbuf_cut(&c->pb, old);
		if (ret && xt_stop(c, ret))
			break;
		if (ret)
			c->failed++;
		ret = 0;
	}
	rd_dir_free(&d);
	return ret;
}

/* DESTDIR: created, or an existing empty directory */
static int
xt_destdir(const char *dest)
{
	struct dirent *de;
	DIR *dir;
	int fd;

	if (!mkdir(dest, 0700))
		goto out_open;
	if (errno != EEXIST) {
		fprintf(stderr, "gazectl: %s: %s\n", dest, strerror(errno));
		return -errno;
	}
	dir = opendir(dest);
	if (!dir) {
		fprintf(stderr, "gazectl: %s: %s\n", dest, strerror(errno));
		return -errno;
	}
	while ((de = readdir(dir))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			closedir(dir);
			fprintf(stderr, "gazectl: %s: destination is not empty\n",
				dest);
			return -ENOTEMPTY;
		}
	}
	closedir(dir);
out_open:
	fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "gazectl: %s: %s\n", dest, strerror(errno));
		return -errno;
	}
	return fd;
}

int
gaze_cmd_extract(const struct gaze_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		rd_help_opt,
		{ NULL, 0, NULL, 0 }
	};
	struct xt_ctx c = { 0 };
	struct rd_img img;
	struct gaze_attr a;
	struct rd_ent e;
	const char *dest, *base;
	size_t old;
	int opt, ret;
	u32 ino;

	while ((opt = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'v': c.verbose = 1; break;
		default:
			return rd_opt_other(cmd, opt);
		}
	}
	ret = gaze_cmd_nargs(cmd, argc, optind);
	if (ret)
		return ret;
	dest = argv[optind + 1];
	c.ipath = optind + 2 < argc ? argv[optind + 2] : "/";
	c.img = &img;
	c.rootfd = -1;

	if (rd_open(&img, argv[optind]))
		return GAZE_EXIT_FAIL;
	ret = rd_lookup(&img, c.ipath, &ino, &a);
	if (ret) {
		rd_err(&img, c.ipath, ret);
		goto out_close;
	}
	c.cluster = 1u << img.fs->sb.compress_log_cluster;
	gaze_dirstack_init(&c.ds, GAZE_DIRSTACK_MAX_FDS);
	ret = gaze_pathbuf_init(&c.pb, dest);
	c.buf = malloc(RD_BUF_SIZE);
	c.xlist = malloc(RD_XATTR_MAX);
	c.xval = malloc(RD_XATTR_MAX);
	if (ret || !c.buf || !c.xlist || !c.xval) {
		fprintf(stderr, "gazectl: %s\n", strerror(ENOMEM));
		ret = -ENOMEM;
		goto out_free;
	}
	c.rootlen = c.pb.len;

	ret = xt_destdir(dest);
	if (ret < 0)
		goto out_free;
	c.rootfd = ret;
	ret = xt_push(&c, dup(c.rootfd));
	if (ret) {
		fprintf(stderr, "gazectl: %s: %s\n", dest, strerror(-ret));
		goto out_free;
	}

	if (S_ISDIR(a.mode)) {
		ret = xt_dir(&c, ino);
		if (!ret)
			ret = xt_attrs(&c, &a, c.ds.lv[0].fd, -1, NULL);
	} else {
		base = strrchr(c.ipath, '/');
		base = base ? base + 1 : c.ipath;
		e.ino = ino;
		e.len = strlen(base);
		e.name = (char *)base;
		e.dtype = 0;
		ret = gaze_pathbuf_add(&c.pb, base, e.len, &old);
		if (!ret)
			ret = xt_entry(&c, c.ds.lv[0].fd, &e);
	}
	if (ret && !xt_stop(&c, ret))
		c.failed++;
	if (c.failed && !c.stop)
		fprintf(stderr, "gazectl: %u entr%s not extracted, or not whole\n",
			c.failed, c.failed == 1 ? "y" : "ies");

out_free:
	while (c.ds.depth)
		xt_pop(&c);
	if (c.rootfd >= 0)
		close(c.rootfd);
	gaze_inode_table_free(&c.links, xt_link_release);
	gaze_dirstack_free(&c.ds);
	free(c.xval);
	free(c.xlist);
	free(c.buf);
	gaze_pathbuf_free(&c.pb);
out_close:
	rd_close(&img);
	if (fflush(stdout))
		ret = -errno;
	return ret || c.failed ? GAZE_EXIT_FAIL : GAZE_EXIT_OK;
}
