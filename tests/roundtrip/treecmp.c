// SPDX-License-Identifier: GPL-2.0
/*
 * treecmp.c - compare two directory trees, metadata included.
 *
 * Why: the mkfs.gaze -d round trip (tree -> image -> gazectl extract ->
 * tree) must be exact, and diff -r sees neither owners, modes, ns times,
 * xattrs, hard-link structure nor holes.  Every difference is printed,
 * one line each as "PATH: what: A-value != B-value"; exit 0 when the
 * trees are the same, 1 when they differ, 2 on usage or I/O errors.
 *
 * Compared: entry names, type, mode (all 12 bits), uid, gid, size (not
 * for directories, whose size is the filesystem's business), content
 * byte for byte, symlink target, rdev, mtime and atime to the ns, link
 * count of non-directories and which names share an inode, xattr names
 * and values, and allocation: the SEEK_DATA/SEEK_HOLE maps must be equal
 * (--sparse=blocks compares st_blocks within 64 KiB + 1% instead,
 * --sparse=none not at all).  Each entry is lstat'ed before it is read
 * and files and directories are opened with O_NOATIME, so comparing does
 * not change the atimes it compares.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#define BUF_SIZE	(1u << 20)
#define XATTR_MAX	(64u << 10)
#define MAX_RANGES	4096

enum { SPARSE_MAP, SPARSE_BLOCKS, SPARSE_NONE };

struct range {
	off_t	start, end;
};

struct link_ent {		/* inode -> first path seen */
	struct link_ent	*next;
	dev_t		dev;
	ino_t		ino;
	char		*path;
};

struct side {
	const char	*root;
	char		path[PATH_MAX * 2];	/* root + rel */
	struct link_ent	*links[4096];
	char		*xlist, *xval;
	struct range	*map;
	int		nmap;
};

static struct side A, B;
static char *bufa, *bufb;
static unsigned long ndiff;
static int sparse_mode = SPARSE_MAP;
static bool check_atime = true;
static bool failed;

static void __attribute__((format(printf, 2, 3)))
diff(const char *rel, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", rel);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	ndiff++;
}

static void
oops(const char *path, const char *what)
{
	fprintf(stderr, "treecmp: %s: %s: %s\n", path, what, strerror(errno));
	failed = true;
}

static void
side_path(struct side *s, const char *rel)
{
	snprintf(s->path, sizeof(s->path), "%s%s", s->root,
		 strcmp(rel, "/") ? rel : "");
}

/* dst = a "/" b; trees deeper than PATH_MAX are not supported */
static void
join(char *dst, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la + lb + 2 > size) {
		fprintf(stderr, "treecmp: %s/%s: path too long\n", a, b);
		exit(2);
	}
	memcpy(dst, a, la);
	dst[la] = '/';
	memcpy(dst + la + 1, b, lb + 1);
}

static int
open_noatime(const char *path, int flags)
{
	int fd = open(path, flags | O_NOATIME | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == EPERM)
		fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

/* ---------------------------------------------------------------- */
/* hard links                                                        */
/* ---------------------------------------------------------------- */

static const char *
link_first(struct side *s, const struct stat *st, const char *rel)
{
	unsigned int h = (unsigned int)((st->st_ino * 2654435761u) ^
					st->st_dev) % 4096;
	struct link_ent *l;

	for (l = s->links[h]; l; l = l->next)
		if (l->ino == st->st_ino && l->dev == st->st_dev)
			return l->path;
	l = malloc(sizeof(*l));
	if (!l || !(l->path = strdup(rel))) {
		fprintf(stderr, "treecmp: out of memory\n");
		exit(2);
	}
	l->dev = st->st_dev;
	l->ino = st->st_ino;
	l->next = s->links[h];
	s->links[h] = l;
	return l->path;
}

/* ---------------------------------------------------------------- */
/* xattrs                                                            */
/* ---------------------------------------------------------------- */

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sorted names of s->path's xattrs into names[]; count or -1 */
static int
xattr_names(struct side *s, char **names, int max)
{
	ssize_t len = llistxattr(s->path, s->xlist, XATTR_MAX);
	char *n;
	int count = 0;

	if (len < 0) {
		if (errno == ENOTSUP)
			return 0;
		oops(s->path, "llistxattr");
		return -1;
	}
	for (n = s->xlist; n < s->xlist + len && count < max;
	     n += strlen(n) + 1)
		if (*n)
			names[count++] = n;
	if (count > 1)
		qsort(names, count, sizeof(*names), str_cmp);
	return count;
}

static void
cmp_xattrs(const char *rel)
{
	char *na[512], *nb[512];
	ssize_t la, lb;
	int ca, cb, i = 0, j = 0, r;

	ca = xattr_names(&A, na, 512);
	cb = xattr_names(&B, nb, 512);
	if (ca < 0 || cb < 0)
		return;
	while (i < ca || j < cb) {
		r = i == ca ? 1 : j == cb ? -1 : strcmp(na[i], nb[j]);
		if (r < 0) {
			diff(rel, "xattr %s: only in A", na[i++]);
			continue;
		}
		if (r > 0) {
			diff(rel, "xattr %s: only in B", nb[j++]);
			continue;
		}
		la = lgetxattr(A.path, na[i], A.xval, XATTR_MAX);
		lb = lgetxattr(B.path, nb[j], B.xval, XATTR_MAX);
		if (la < 0 || lb < 0) {
			oops(la < 0 ? A.path : B.path, "lgetxattr");
		} else if (la != lb) {
			diff(rel, "xattr %s: value length %zd != %zd", na[i],
			     la, lb);
		} else if (memcmp(A.xval, B.xval, la)) {
			diff(rel, "xattr %s: values differ", na[i]);
		}
		i++;
		j++;
	}
}

/* ---------------------------------------------------------------- */
/* file content and allocation                                       */
/* ---------------------------------------------------------------- */

/* data ranges of fd below size; -1 when unknown (no SEEK_DATA) */
static int
data_map(int fd, off_t size, struct range *map)
{
	off_t off = 0, data, hole;
	int n = 0;

	while (off < size) {
		data = lseek(fd, off, SEEK_DATA);
		if (data < 0) {
			if (errno == ENXIO)
				break;
			return -1;
		}
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return -1;
		if (hole > size)
			hole = size;
		if (n == MAX_RANGES) {		/* too fragmented: merge */
			map[n - 1].end = hole;
		} else {
			map[n].start = data;
			map[n].end = hole;
			n++;
		}
		off = hole;
	}
	return n;
}

static const char *
map_string(const struct range *m, int n, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && used + 48 < len; i++)
		used += snprintf(buf + used, len - used, "%s[%lld,%lld)",
				 i ? " " : "", (long long)m[i].start,
				 (long long)m[i].end);
	if (i < n)
		snprintf(buf + used, len - used, " ...");
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}

static bool
cmp_bytes(int fa, int fb, off_t start, off_t end, const char *rel)
{
	ssize_t ra, rb;
	size_t want, k;

	while (start < end) {
		want = end - start < BUF_SIZE ? end - start : BUF_SIZE;
		ra = pread(fa, bufa, want, start);
		rb = pread(fb, bufb, want, start);
		if (ra < 0 || rb < 0) {
			oops(ra < 0 ? A.path : B.path, "read");
			return false;
		}
		if (ra != rb || ra == 0) {
			diff(rel, "content: short read at %lld",
			     (long long)start);
			return false;
		}
		if (memcmp(bufa, bufb, ra)) {
			for (k = 0; k < (size_t)ra && bufa[k] == bufb[k]; k++)
				;
			diff(rel, "content differs at byte %lld",
			     (long long)(start + k));
			return false;
		}
		start += ra;
	}
	return true;
}

static void
cmp_file(const char *rel, const struct stat *sa, const struct stat *sb)
{
	struct range *u = NULL;
	char ma[512], mb[512];
	int fa, fb, na, nb, i, j, nu = 0;
	bool same_map;
	off_t lo, hi;
	long long da, db, tol;

	fa = open_noatime(A.path, O_RDONLY);
	if (fa < 0) {
		oops(A.path, "open");
		return;
	}
	fb = open_noatime(B.path, O_RDONLY);
	if (fb < 0) {
		oops(B.path, "open");
		close(fa);
		return;
	}
	na = data_map(fa, sa->st_size, A.map);
	nb = data_map(fb, sb->st_size, B.map);
	same_map = na == nb && na >= 0 &&
		   !memcmp(A.map, B.map, na * sizeof(*A.map));

	if (sparse_mode == SPARSE_MAP && na >= 0 && nb >= 0 && !same_map)
		diff(rel, "allocation: A data %s != B data %s",
		     map_string(A.map, na, ma, sizeof(ma)),
		     map_string(B.map, nb, mb, sizeof(mb)));
	if (sparse_mode == SPARSE_BLOCKS) {
		da = (long long)sa->st_blocks * 512;
		db = (long long)sb->st_blocks * 512;
		tol = 65536 + da / 100;
		if (da - db > tol || db - da > tol)
			diff(rel, "allocated bytes %lld != %lld", da, db);
	}

	if (sa->st_size != sb->st_size)
		goto out_close;		/* already reported */
	if (na < 0 || nb < 0) {
		cmp_bytes(fa, fb, 0, sa->st_size, rel);
		goto out_close;
	}
	/* holes read zero on both sides: compare the union of data */
	u = malloc(sizeof(*u) * (na + nb + 1));
	if (!u) {
		fprintf(stderr, "treecmp: out of memory\n");
		exit(2);
	}
	for (i = 0, j = 0; i < na || j < nb;) {
		const struct range *r;

		if (j == nb || (i < na && A.map[i].start <= B.map[j].start))
			r = &A.map[i++];
		else
			r = &B.map[j++];
		if (nu && r->start <= u[nu - 1].end) {
			if (r->end > u[nu - 1].end)
				u[nu - 1].end = r->end;
		} else {
			u[nu++] = *r;
		}
	}
	for (i = 0; i < nu; i++) {
		lo = u[i].start;
		hi = u[i].end;
		if (!cmp_bytes(fa, fb, lo, hi, rel))
			break;
	}
	free(u);
out_close:
	close(fa);
	close(fb);
}

/* ---------------------------------------------------------------- */
/* entries                                                           */
/* ---------------------------------------------------------------- */

static const char *
type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symlink";
	case S_IFCHR: return "char device";
	case S_IFBLK: return "block device";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	}
	return "unknown";
}

static void cmp_dir(const char *rel);

static void
cmp_time(const char *rel, const char *what, const struct timespec *a,
	 const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec || a->tv_nsec != b->tv_nsec)
		diff(rel, "%s %lld.%09ld != %lld.%09ld", what,
		     (long long)a->tv_sec, a->tv_nsec, (long long)b->tv_sec,
		     b->tv_nsec);
}

/* A.path and B.path name the entry; sa/sb were taken before any read */
static void
cmp_entry(const char *rel, const struct stat *sa, const struct stat *sb)
{
	char ta[PATH_MAX + 1], tb[PATH_MAX + 1];
	const char *fa, *fb;
	ssize_t la, lb;

	if ((sa->st_mode & S_IFMT) != (sb->st_mode & S_IFMT)) {
		diff(rel, "type %s != %s", type_name(sa->st_mode),
		     type_name(sb->st_mode));
		return;
	}
	if ((sa->st_mode & 07777) != (sb->st_mode & 07777))
		diff(rel, "mode %04o != %04o", sa->st_mode & 07777,
		     sb->st_mode & 07777);
	if (sa->st_uid != sb->st_uid)
		diff(rel, "uid %u != %u", sa->st_uid, sb->st_uid);
	if (sa->st_gid != sb->st_gid)
		diff(rel, "gid %u != %u", sa->st_gid, sb->st_gid);
	if (!S_ISDIR(sa->st_mode) && sa->st_size != sb->st_size)
		diff(rel, "size %lld != %lld", (long long)sa->st_size,
		     (long long)sb->st_size);
	if ((S_ISCHR(sa->st_mode) || S_ISBLK(sa->st_mode)) &&
	    sa->st_rdev != sb->st_rdev)
		diff(rel, "rdev %u:%u != %u:%u", major(sa->st_rdev),
		     minor(sa->st_rdev), major(sb->st_rdev),
		     minor(sb->st_rdev));
	cmp_time(rel, "mtime", &sa->st_mtim, &sb->st_mtim);
	if (check_atime)
		cmp_time(rel, "atime", &sa->st_atim, &sb->st_atim);
	if (!S_ISDIR(sa->st_mode)) {
		if (sa->st_nlink != sb->st_nlink)
			diff(rel, "nlink %lu != %lu",
			     (unsigned long)sa->st_nlink,
			     (unsigned long)sb->st_nlink);
		if (sa->st_nlink > 1 || sb->st_nlink > 1) {
			fa = link_first(&A, sa, rel);
			fb = link_first(&B, sb, rel);
			if (strcmp(fa, fb))
				diff(rel, "hard link: same inode as %s != %s",
				     fa, fb);
		}
	}
	cmp_xattrs(rel);

	if (S_ISLNK(sa->st_mode)) {
		la = readlink(A.path, ta, PATH_MAX);
		lb = readlink(B.path, tb, PATH_MAX);
		if (la < 0 || lb < 0) {
			oops(la < 0 ? A.path : B.path, "readlink");
			return;
		}
		if (la != lb || memcmp(ta, tb, la))
			diff(rel, "symlink target '%.*s' != '%.*s'", (int)la,
			     ta, (int)lb, tb);
	} else if (S_ISREG(sa->st_mode)) {
		/* a second name of an inode already compared: nothing new */
		if (sa->st_nlink > 1 && strcmp(link_first(&A, sa, rel), rel))
			return;
		cmp_file(rel, sa, sb);
	} else if (S_ISDIR(sa->st_mode)) {
		cmp_dir(rel);
	}
}

/* sorted names of directory path (without . and ..); count or -1 */
static int
list_dir(const char *path, char ***namesp)
{
	char **names = NULL, **n;
	struct dirent *de;
	int count = 0, cap = 0, fd;
	DIR *d;

	fd = open_noatime(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || !(d = fdopendir(fd))) {
		oops(path, "opendir");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (count == cap) {
			cap = cap ? cap * 2 : 64;
			n = realloc(names, cap * sizeof(*names));
			if (!n) {
				fprintf(stderr, "treecmp: out of memory\n");
				exit(2);
			}
			names = n;
		}
		names[count] = strdup(de->d_name);
		if (!names[count]) {
			fprintf(stderr, "treecmp: out of memory\n");
			exit(2);
		}
		count++;
	}
	closedir(d);
	if (count > 1)
		qsort(names, count, sizeof(*names), str_cmp);
	*namesp = names;
	return count;
}

static void
cmp_dir(const char *rel)
{
	char **na = NULL, **nb = NULL, *sub;
	struct stat *sta, *stb;
	int ca, cb, i = 0, j = 0, k, r;
	size_t rl = strlen(rel);
	char aroot[PATH_MAX * 2];

	snprintf(aroot, sizeof(aroot), "%s", A.path);
	ca = list_dir(A.path, &na);
	cb = list_dir(B.path, &nb);
	if (ca < 0 || cb < 0)
		goto out_free;
	/* stat every entry before reading any of them */
	sta = calloc(ca + 1, sizeof(*sta));
	stb = calloc(cb + 1, sizeof(*stb));
	if (!sta || !stb) {
		fprintf(stderr, "treecmp: out of memory\n");
		exit(2);
	}
	for (k = 0; k < ca; k++) {
		join(A.path, sizeof(A.path), aroot, na[k]);
		if (lstat(A.path, &sta[k]))
			oops(A.path, "lstat");
	}
	side_path(&B, rel);
	snprintf(aroot, sizeof(aroot), "%s", B.path);
	for (k = 0; k < cb; k++) {
		join(B.path, sizeof(B.path), aroot, nb[k]);
		if (lstat(B.path, &stb[k]))
			oops(B.path, "lstat");
	}

	while (i < ca || j < cb) {
		r = i == ca ? 1 : j == cb ? -1 : strcmp(na[i], nb[j]);
		sub = malloc(rl + strlen(r <= 0 ? na[i] : nb[j]) + 2);
		if (!sub) {
			fprintf(stderr, "treecmp: out of memory\n");
			exit(2);
		}
		sprintf(sub, "%s%s%s", rl > 1 ? rel : "", "/",
			r <= 0 ? na[i] : nb[j]);
		if (r < 0) {
			diff(sub, "only in A");
			i++;
		} else if (r > 0) {
			diff(sub, "only in B");
			j++;
		} else {
			side_path(&A, sub);
			side_path(&B, sub);
			cmp_entry(sub, &sta[i], &stb[j]);
			i++;
			j++;
		}
		free(sub);
	}
	free(sta);
	free(stb);
out_free:
	for (k = 0; k < ca; k++)
		free(na[k]);
	for (k = 0; k < cb; k++)
		free(nb[k]);
	free(na);
	free(nb);
}

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: treecmp [--sparse=map|blocks|none] [--no-atime] TREE_A TREE_B\n"
"Compare two trees: names, type, mode, owner, size, content, symlink\n"
"targets, rdev, mtime/atime (ns), hard links, xattrs and allocation.\n"
"Prints one line per difference; exit 0 same, 1 different, 2 error.\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sparse", required_argument, NULL, 's' },
		{ "no-atime", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct stat sa, sb;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (!strcmp(optarg, "map"))
				sparse_mode = SPARSE_MAP;
			else if (!strcmp(optarg, "blocks"))
				sparse_mode = SPARSE_BLOCKS;
			else if (!strcmp(optarg, "none"))
				sparse_mode = SPARSE_NONE;
			else {
				usage(stderr);
				return 2;
			}
			break;
		case 'a':
			check_atime = false;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	A.root = argv[optind];
	B.root = argv[optind + 1];
	bufa = malloc(BUF_SIZE);
	bufb = malloc(BUF_SIZE);
	A.xlist = malloc(XATTR_MAX);
	A.xval = malloc(XATTR_MAX);
	B.xlist = malloc(XATTR_MAX);
	B.xval = malloc(XATTR_MAX);
	A.map = malloc(sizeof(*A.map) * MAX_RANGES);
	B.map = malloc(sizeof(*B.map) * MAX_RANGES);
	if (!bufa || !bufb || !A.xlist || !A.xval || !B.xlist || !B.xval ||
	    !A.map || !B.map) {
		fprintf(stderr, "treecmp: out of memory\n");
		return 2;
	}
	if (stat(A.root, &sa)) {
		oops(A.root, "stat");
		return 2;
	}
	if (stat(B.root, &sb)) {
		oops(B.root, "stat");
		return 2;
	}
	side_path(&A, "/");
	side_path(&B, "/");
	cmp_entry("/", &sa, &sb);
	if (ndiff)
		printf("treecmp: %lu difference%s\n", ndiff,
		       ndiff == 1 ? "" : "s");
	if (failed)
		return 2;
	return ndiff ? 1 : 0;
}
