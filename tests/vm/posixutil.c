// SPDX-License-Identifier: GPL-2.0
/*
 * posixutil.c - system calls the guest's shell tools do not offer, for
 * tests/vm/guest/kmod-posix.sh:
 *   posixutil rename OLD NEW [noreplace|exchange|whiteout]   renameat2
 *   posixutil pwrite FILE OFFSET STRING
 *   posixutil append FILE STRING                 O_APPEND write
 *   posixutil mmapwrite FILE OFFSET STRING       MAP_SHARED store + msync
 *   posixutil eofmmap FILE truncate|pwrite|pwritein|falloc clean|dirty
 *                  bytes a shared mapping wrote past EOF must not become
 *                  data when the size grows (see eofmmap_cmd)
 *   posixutil fsync FILE
 *   posixutil getxattr PATH NAME                 value on stdout
 *   posixutil listxattr PATH                     names, one a line
 *   posixutil setxattr PATH NAME VALUE [create|replace]
 *   posixutil rmxattr PATH NAME
 *   posixutil seekdir DIR       readdir, then seekdir to every telldir
 *                               position: the rest must repeat exactly
 *   posixutil orphan FILE NBLOCKS
 *                  creates FILE with NBLOCKS 4 KiB blocks, unlinks it while
 *                  open, writes and reads through the descriptor (fsync
 *                  in between), and checks with statfs that the space is
 *                  held until close and free after it
 *   posixutil tmpfile DIR NBLOCKS NAME|-|excl
 *                  open(DIR, O_TMPFILE), writes NBLOCKS 4 KiB blocks (nlink
 *                  must be 0 and the space held), then: NAME: linkat(2)
 *                  names it (nlink 1), the name reads back the same
 *                  bytes; -: close, the space must come back; excl:
 *                  opened O_EXCL too, so linkat must fail with ENOENT
 *   posixutil renameopen OLD NEW
 *                  opens NEW, renames OLD over it, reads the old NEW
 *                  through the descriptor, and checks that its space
 *                  comes back at close
 *   posixutil fallocate FILE alloc|keep|punch|zero|zerokeep|collapse|insert OFF LEN
 *   posixutil setacl PATH access|default SPEC
 *   posixutil getacl PATH access|default
 *                  a POSIX ACL as the raw system.posix_acl_* xattr; SPEC
 *                  is "u::6,u:1000:4,g::0,m::4,o::0" (tag:id:octal perm,
 *                  in the kernel's order), getacl prints the same form
 *   posixutil asuser UID GID PATH   open(PATH, O_RDONLY) as UID/GID (no
 *                  supplementary groups)
 *   posixutil shutdown PATH default|logflush|nologflush
 *                  the GAZE_IOC_SHUTDOWN ioctl (kernel/uapi/gaze_ioctl.h)
 *   posixutil dio FILE read|write OFF LEN
 *                  one O_DIRECT pread/pwrite of LEN bytes at OFF from a
 *                  page-aligned buffer (the write: bytes 0x5a)
 *   posixutil fiemap FILE [START LEN]
 *                  FS_IOC_FIEMAP (FIEMAP_FLAG_SYNC): one line per extent,
 *                  "LOGICAL PHYSICAL LENGTH FLAGS" (bytes; flags in hex)
 *   posixutil fiemapx FILE     the same with FIEMAP_FLAG_XATTR: where the
 *                  file's xattrs are
 *   posixutil dioalign FILE    statx STATX_DIOALIGN: "MEM OFFSET"
 *   posixutil attrs FILE       statx: the attributes set, then the ones
 *                  the filesystem supports, each a list of a i d c
 *                  (append, immutable, nodump, compressed) or "-"
 *   posixutil seek FILE data|hole OFF   lseek SEEK_DATA / SEEK_HOLE: the
 *                  offset on stdout (ENXIO: none)
 *   posixutil handle PATH OUT  name_to_handle_at: the handle into OUT
 *   posixutil byhandle MNT HANDLE   open_by_handle_at(O_RDONLY) on the
 *                  mount MNT: a file's first 64 bytes, or for a directory
 *                  its entries, on stdout
 * Exit 0, or 1 with "posixutil: what: ERRNO_NAME (message)" on stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <grp.h>
#include <unistd.h>

#include "gaze_ioctl.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE	1
#define RENAME_EXCHANGE		2
#define RENAME_WHITEOUT		4
#endif

static const char *
errname(int e)
{
	switch (e) {
	case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case ENOTEMPTY: return "ENOTEMPTY";
	case EISDIR: return "EISDIR";
	case ENOTDIR: return "ENOTDIR";
	case ENODATA: return "ENODATA";
	case ERANGE: return "ERANGE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case EXDEV: return "EXDEV";
	case ENOSPC: return "ENOSPC";
	case EACCES: return "EACCES";
	case EROFS: return "EROFS";
	case ESTALE: return "ESTALE";
	case ENXIO: return "ENXIO";
	default: return "errno";
	}
}

static int
fail(const char *what)
{
	int e = errno;

	fprintf(stderr, "posixutil: %s: %s (%s)\n", what, errname(e),
		strerror(e));
	return 1;
}

#define HANDLE_MAX	128

/* the bytes [from, to) of fd must all be zero; 0 or 1 with a message */
static int
zeros_check(int fd, long from, long to, const char *when)
{
	char buf[8192];
	ssize_t n = pread(fd, buf, (size_t)(to - from), from);
	long i;

	if (n != to - from)
		return fail("pread");
	for (i = 0; i < n; i++)
		if (buf[i]) {
			fprintf(stderr, "posixutil: eofmmap: byte %ld is 0x%02x %s, want 0 (mmap's bytes past the old EOF became data)\n",
				from + i, (unsigned char)buf[i], when);
			return 1;
		}
	return 0;
}

/*
 * eofmmap FILE truncate|pwrite|pwritein|falloc clean|dirty (fstests
 * generic/363): a 100-byte file (fsync'd first when clean), 3,996 bytes
 * written through a shared mapping past its EOF in the same page, then
 * the size grown by ftruncate to 8192, a pwrite at 6000 (pwritein: at
 * 200, in the EOF page) or fallocate(0, 8192): the bytes from 100 to the
 * write (or 4096) must read as zeros, from the cache and, after fsync
 * and a cache drop, from the device.
 */
static int
eofmmap_cmd(char **argv)
{
	const char *how = argv[3];
	long to = 4096;
	char a[100];
	char *p;
	int fd, ret;

	memset(a, 'A', sizeof(a));
	fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail(argv[2]);
	if (pwrite(fd, a, sizeof(a), 0) != (ssize_t)sizeof(a))
		return fail("pwrite");
	if (!strcmp(argv[4], "clean") && fsync(fd))
		return fail("fsync");
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	memset(p + 100, 0x6d, 4096 - 100);
	munmap(p, 4096);
	if (!strcmp(how, "truncate"))
		ret = ftruncate(fd, 8192);
	else if (!strcmp(how, "pwrite"))
		ret = pwrite(fd, "Z", 1, 6000) == 1 ? 0 : -1;
	else if (!strcmp(how, "pwritein")) {
		ret = pwrite(fd, "Z", 1, 200) == 1 ? 0 : -1;
		to = 200;
	} else if (!strcmp(how, "falloc"))
		ret = fallocate(fd, 0, 0, 8192);
	else {
		fprintf(stderr, "posixutil: eofmmap: %s?\n", how);
		return 2;
	}
	if (ret)
		return fail(how);
	if (zeros_check(fd, 100, to, "in the cache"))
		return 1;
	if (fsync(fd))
		return fail("fsync");
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		return fail("fadvise");
	if (zeros_check(fd, 100, to, "from the device"))
		return 1;
	return close(fd) ? fail("close") : 0;
}

static int
handle_cmd(const char *path, const char *out)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + HANDLE_MAX];
	} h;
	int mnt, fd;

	h.fh.handle_bytes = HANDLE_MAX;
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt, 0))
		return fail("name_to_handle_at");
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, &h, sizeof(h.fh) + h.fh.handle_bytes) < 0)
		return fail(out);
	close(fd);
	return 0;
}

static int
byhandle_cmd(const char *mnt, const char *in)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + HANDLE_MAX];
	} h;
	struct dirent *de;
	char data[65];
	int mfd, fd;
	ssize_t n;
	DIR *d;

	fd = open(in, O_RDONLY);
	if (fd < 0 || read(fd, &h, sizeof(h)) < (ssize_t)sizeof(h.fh))
		return fail(in);
	close(fd);
	mfd = open(mnt, O_RDONLY | O_DIRECTORY);
	if (mfd < 0)
		return fail(mnt);
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
	if (fd < 0)
		return fail("open_by_handle_at");
	d = fdopendir(dup(fd));
	if (d) {
		while ((de = readdir(d)))
			printf("%s\n", de->d_name);
		closedir(d);
	} else {
		n = read(fd, data, 64);
		if (n < 0)
			return fail("read");
		data[n] = 0;
		printf("%s\n", data);
	}
	close(fd);
	close(mfd);
	return 0;
}

static int
seekdir_check(const char *path)
{
	static long pos[8192];
	static char names[8192][256];
	struct dirent *de;
	DIR *d = opendir(path);
	int n = 0, i, j;

	if (!d)
		return fail(path);
	for (;;) {
		long p = telldir(d);

		de = readdir(d);
		if (!de)
			break;
		if (n == 8192) {
			fprintf(stderr, "posixutil: too many entries\n");
			return 1;
		}
		pos[n] = p;
		snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	}
	for (i = 0; i < n; i += 1 + n / 50) {
		seekdir(d, pos[i]);
		for (j = i; j < n; j++) {
			de = readdir(d);
			if (!de || strcmp(de->d_name, names[j])) {
				fprintf(stderr, "posixutil: seekdir to entry %d "
					"(%s): got %s at %d\n", i, names[i],
					de ? de->d_name : "end", j);
				return 1;
			}
		}
		if (readdir(d)) {
			fprintf(stderr, "posixutil: extra entries after seekdir\n");
			return 1;
		}
	}
	closedir(d);
	printf("%d\n", n);
	return 0;
}

/* free blocks of the filesystem holding path's directory */
static unsigned long long
free_blocks(const char *path)
{
	char dir[4096], *slash;
	struct statvfs st;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	if (statvfs(slash ? dir : ".", &st))
		return 0;
	return (unsigned long long)st.f_bfree * st.f_frsize / 4096;
}

static int
bad(const char *what)
{
	fprintf(stderr, "posixutil: %s\n", what);
	return 1;
}

/* the rest of tmpfile_check once the file is written: name it or not */
static int
tmpfile_end(int fd, const char *dir, const char *name, const char *a,
	    size_t len, unsigned long long f1)
{
	char fdpath[64], *b = malloc(len);
	unsigned long long f2;
	struct stat st;
	int rfd;

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	if (!strcmp(name, "excl")) {
		char target[4200];

		snprintf(target, sizeof(target), "%s/excl-must-fail", dir);
		if (!linkat(AT_FDCWD, fdpath, AT_FDCWD, target,
			    AT_SYMLINK_FOLLOW))
			return bad("linkat of an O_EXCL tmpfile succeeded");
		if (errno != ENOENT)
			return fail("linkat of an O_EXCL tmpfile (not ENOENT)");
	} else if (strcmp(name, "-")) {
		if (linkat(AT_FDCWD, fdpath, AT_FDCWD, name, AT_SYMLINK_FOLLOW))
			return fail("linkat");
		if (fstat(fd, &st) || st.st_nlink != 1)
			return bad("nlink after linkat is not 1");
	}
	if (close(fd))
		return fail("close");
	f2 = free_blocks(dir);	/* dir: "DIR/." */
	printf("free blocks: %llu written, %llu closed\n", f1, f2);
	if (strcmp(name, "-") && strcmp(name, "excl")) {
		rfd = open(name, O_RDONLY);
		if (rfd < 0)
			return fail(name);
		if (!b || pread(rfd, b, len, 0) != (ssize_t)len ||
		    memcmp(a, b, len))
			return bad("the linked tmpfile reads differently");
		close(rfd);
	} else if (f2 < f1 + len / 4096) {
		return bad("the space of an unnamed tmpfile did not come back at close");
	}
	free(b);
	return 0;
}

static int
tmpfile_check(const char *dir, long nblk, const char *name)
{
	size_t len = (size_t)nblk * 4096, i;
	char *a = malloc(len), probe[4096];
	int fd, excl = !strcmp(name, "excl") ? O_EXCL : 0;
	unsigned long long f0, f1;
	struct stat st;

	if (!a || nblk <= 0)
		return bad("tmpfile: bad size");
	snprintf(probe, sizeof(probe), "%s/.", dir);
	for (i = 0; i < len; i++)
		a[i] = (char)(i * 13 + (i >> 12));
	f0 = free_blocks(probe);
	fd = open(dir, O_TMPFILE | O_RDWR | excl, 0640);
	if (fd < 0)
		return fail("open O_TMPFILE");
	if (fstat(fd, &st) || st.st_nlink != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_mode & 07777) != (0640 & ~umask(0)))
		return bad("a new tmpfile is not a regular file with nlink 0 and the mode asked for");
	if (pwrite(fd, a, len, 0) != (ssize_t)len || fsync(fd))
		return fail("write");
	f1 = free_blocks(probe);
	if (f1 + (unsigned long long)nblk / 2 > f0)
		return bad("the tmpfile's data took no space");
	return tmpfile_end(fd, probe, name, a, len, f1);
}

static int
fiemap_cmd(int argc, char **argv)
{
	const unsigned int max = 256;
	struct fiemap *fm = calloc(1, sizeof(*fm) +
				   max * sizeof(struct fiemap_extent));
	unsigned int i;
	int fd;

	if (!fm)
		return bad("fiemap: out of memory");
	fd = open(argv[2], O_RDONLY);
	if (fd < 0)
		return fail(argv[2]);
	fm->fm_start = argc > 4 ? strtoull(argv[3], NULL, 0) : 0;
	fm->fm_length = argc > 4 ? strtoull(argv[4], NULL, 0) : ~0ull;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	if (!strcmp(argv[1], "fiemapx"))
		fm->fm_flags |= FIEMAP_FLAG_XATTR;
	fm->fm_extent_count = max;
	if (ioctl(fd, FS_IOC_FIEMAP, fm))
		return fail("FS_IOC_FIEMAP");
	for (i = 0; i < fm->fm_mapped_extents; i++)
		printf("%llu %llu %llu %x\n",
		       (unsigned long long)fm->fm_extents[i].fe_logical,
		       (unsigned long long)fm->fm_extents[i].fe_physical,
		       (unsigned long long)fm->fm_extents[i].fe_length,
		       fm->fm_extents[i].fe_flags);
	close(fd);
	free(fm);
	return 0;
}

static int
orphan_check(const char *path, long nblk)
{
	size_t len = (size_t)nblk * 4096;
	char *a = malloc(len + 4096), *b = malloc(len + 4096);
	unsigned long long f1, f2, f3;
	struct stat st;
	size_t i;
	int fd;

	if (!a || !b || nblk <= 0)
		return bad("orphan: bad size");
	for (i = 0; i < len + 4096; i++)
		a[i] = (char)(i * 7 + (i >> 12));
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail(path);
	if (pwrite(fd, a, len, 0) != (ssize_t)len || fsync(fd))
		return fail("write");
	f1 = free_blocks(path);
	if (unlink(path))
		return fail("unlink");
	if (access(path, F_OK) == 0 || errno != ENOENT)
		return bad("the name is still there");
	if (fstat(fd, &st) || st.st_nlink != 0)
		return bad("nlink of the open unlinked file is not 0");
	if (pwrite(fd, a + len, 4096, (off_t)len) != 4096 || fsync(fd))
		return fail("write after unlink");
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		return fail("fadvise");
	if (pread(fd, b, len + 4096, 0) != (ssize_t)(len + 4096) ||
	    memcmp(a, b, len + 4096))
		return bad("data read through the descriptor differs");
	f2 = free_blocks(path);
	if (f2 + nblk / 2 > f1 + nblk)
		return bad("space came back before the last close");
	if (close(fd))
		return fail("close");
	f3 = free_blocks(path);
	printf("free blocks: %llu written, %llu unlinked+open, %llu closed\n",
	       f1, f2, f3);
	if (f3 < f2 + (unsigned long long)nblk)
		return bad("space did not come back at the last close");
	free(a);
	free(b);
	return 0;
}

static int
renameopen_check(const char *old, const char *new)
{
	static char a[1 << 20], b[1 << 20];
	unsigned long long f1, f2;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(new, O_RDONLY);
	if (fd < 0)
		return fail(new);
	n = pread(fd, a, sizeof(a), 0);
	if (n <= 0)
		return fail("read");
	if (fsync(fd))
		return fail("fsync");
	f1 = free_blocks(new);
	if (rename(old, new))
		return fail("rename");
	if (fstat(fd, &st) || st.st_nlink != 0)
		return bad("nlink of the replaced open file is not 0");
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (pread(fd, b, sizeof(b), 0) != n || memcmp(a, b, (size_t)n))
		return bad("the replaced file reads differently");
	if (close(fd))
		return fail("close");
	f2 = free_blocks(new);
	printf("free blocks: %llu before, %llu after close\n", f1, f2);
	if (f2 < f1 + (unsigned long long)n / 4096)
		return bad("the replaced file's space did not come back");
	return 0;
}

static int
fallocate_cmd(char **argv)
{
	static const struct { const char *name; int mode; } m[] = {
		{ "alloc", 0 },
		{ "keep", FALLOC_FL_KEEP_SIZE },
		{ "punch", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE },
		{ "zero", FALLOC_FL_ZERO_RANGE },
		{ "zerokeep", FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE },
		{ "collapse", FALLOC_FL_COLLAPSE_RANGE },
		{ "insert", FALLOC_FL_INSERT_RANGE },
	};
	unsigned int i;
	int fd;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strcmp(argv[3], m[i].name))
			break;
	if (i == sizeof(m) / sizeof(m[0]))
		return bad("fallocate: unknown mode");
	fd = open(argv[2], O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return fail(argv[2]);
	if (fallocate(fd, m[i].mode, strtoll(argv[4], NULL, 0),
		      strtoll(argv[5], NULL, 0)))
		return fail("fallocate");
	return close(fd) ? fail("close") : 0;
}

/* the VFS xattr form of a POSIX ACL (include/uapi/linux/posix_acl_xattr.h) */
struct acl_ent {
	unsigned short	tag, perm;
	unsigned int	id;
};

static const struct { char c; unsigned short tag; } acl_tags[] = {
	{ 'u', 0x01 }, { 'U', 0x02 }, { 'g', 0x04 }, { 'G', 0x08 },
	{ 'm', 0x10 }, { 'o', 0x20 },
};

static const char *
acl_name(const char *type)
{
	return !strcmp(type, "default") ? "system.posix_acl_default" :
	       "system.posix_acl_access";
}

static int
setacl_cmd(const char *path, const char *type, const char *spec)
{
	char buf[4 + 64 * sizeof(struct acl_ent)], *p, *tok, *save, *copy;
	struct acl_ent e;
	unsigned int i, n = 0, id;
	char t;

	copy = strdup(spec);
	memset(buf, 0, sizeof(buf));
	buf[0] = 2;			/* version 2, little-endian */
	for (tok = strtok_r(copy, ",", &save); tok && n < 64;
	     tok = strtok_r(NULL, ",", &save)) {
		t = tok[0];
		p = strchr(tok, ':');
		if (!p || !strchr(p + 1, ':'))
			return bad("setacl: bad entry");
		id = p[1] == ':' ? 0xffffffffu : (unsigned int)strtoul(p + 1,
								      NULL, 0);
		if (p[1] != ':')
			t = (char)(t - 'a' + 'A');	/* named user/group */
		for (i = 0; i < sizeof(acl_tags) / sizeof(acl_tags[0]); i++)
			if (acl_tags[i].c == t)
				break;
		if (i == sizeof(acl_tags) / sizeof(acl_tags[0]))
			return bad("setacl: bad tag");
		e.tag = acl_tags[i].tag;
		e.perm = (unsigned short)strtoul(strrchr(tok, ':') + 1, NULL, 8);
		e.id = id;
		memcpy(buf + 4 + n++ * sizeof(e), &e, sizeof(e));
	}
	free(copy);
	if (lsetxattr(path, acl_name(type), buf, 4 + n * sizeof(e), 0))
		return fail("setxattr");
	return 0;
}

static int
getacl_cmd(const char *path, const char *type)
{
	char buf[4 + 64 * sizeof(struct acl_ent)];
	struct acl_ent e;
	ssize_t len;
	unsigned int i, k;
	char t;

	len = lgetxattr(path, acl_name(type), buf, sizeof(buf));
	if (len < 0)
		return fail("getxattr");
	for (k = 0; 4 + (k + 1) * sizeof(e) <= (size_t)len; k++) {
		memcpy(&e, buf + 4 + k * sizeof(e), sizeof(e));
		t = '?';
		for (i = 0; i < sizeof(acl_tags) / sizeof(acl_tags[0]); i++)
			if (acl_tags[i].tag == e.tag)
				t = acl_tags[i].c;
		if (t == 'U' || t == 'G')
			printf("%s%c:%u:%o", k ? "," : "", t - 'A' + 'a', e.id,
			       e.perm);
		else
			printf("%s%c::%o", k ? "," : "", t, e.perm);
	}
	printf("\n");
	return 0;
}

static int
asuser_cmd(char **argv)
{
	int fd;

	if (setgroups(0, NULL) || setresgid(atoi(argv[3]), atoi(argv[3]),
					    atoi(argv[3])) ||
	    setresuid(atoi(argv[2]), atoi(argv[2]), atoi(argv[2])))
		return fail("setuid");
	fd = open(argv[4], O_RDONLY);
	if (fd < 0)
		return fail("open");
	close(fd);
	printf("OK\n");
	return 0;
}


static int
shutdown_cmd(const char *path, const char *how)
{
	unsigned int v = !strcmp(how, "logflush") ? 1 :
			 !strcmp(how, "nologflush") ? 2 : 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return fail(path);
	if (ioctl(fd, GAZE_IOC_SHUTDOWN, &v))
		return fail("GAZE_IOC_SHUTDOWN");
	close(fd);
	return 0;
}

static int
dio_cmd(char **argv)
{
	bool wr = !strcmp(argv[3], "write");
	off_t off = strtoll(argv[4], NULL, 0);
	size_t len = strtoull(argv[5], NULL, 0);
	void *buf;
	ssize_t n;
	int fd;

	if (posix_memalign(&buf, 4096, len ? len : 1))
		return fail("posix_memalign");
	memset(buf, 0x5a, len);
	fd = open(argv[2], (wr ? O_WRONLY | O_CREAT : O_RDONLY) | O_DIRECT,
		  0644);
	if (fd < 0)
		return fail(argv[2]);
	n = wr ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
	if (n < 0)
		return fail(wr ? "O_DIRECT pwrite" : "O_DIRECT pread");
	close(fd);
	free(buf);
	return 0;
}

static int
dioalign_cmd(const char *path)
{
#ifdef STATX_DIOALIGN
	struct statx st;

	if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &st))
		return fail("statx");
	if (!(st.stx_mask & STATX_DIOALIGN)) {
		fprintf(stderr, "posixutil: statx: no STATX_DIOALIGN\n");
		return 1;
	}
	printf("%u %u\n", st.stx_dio_mem_align, st.stx_dio_offset_align);
	return 0;
#else
	(void)path;
	fprintf(stderr, "posixutil: built without STATX_DIOALIGN\n");
	return 1;
#endif
}

static void
attr_letters(unsigned long long v)
{
	static const struct {
		unsigned long long	bit;
		char			c;
	} m[] = {
		{ STATX_ATTR_APPEND, 'a' }, { STATX_ATTR_IMMUTABLE, 'i' },
		{ STATX_ATTR_NODUMP, 'd' }, { STATX_ATTR_COMPRESSED, 'c' },
	};
	bool any = false;
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (v & m[i].bit) {
			putchar(m[i].c);
			any = true;
		}
	if (!any)
		putchar('-');
}

static int
attrs_cmd(const char *path)
{
	struct statx st;

	if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &st))
		return fail("statx");
	attr_letters(st.stx_attributes);
	putchar(' ');
	attr_letters(st.stx_attributes_mask);
	putchar('\n');
	return 0;
}

int
main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	unsigned int flags = 0;
	char buf[65536];
	ssize_t n;
	int fd;

	if (!strcmp(cmd, "rename") && argc >= 4) {
		if (argc > 4 && !strcmp(argv[4], "noreplace"))
			flags = RENAME_NOREPLACE;
		else if (argc > 4 && !strcmp(argv[4], "exchange"))
			flags = RENAME_EXCHANGE;
		else if (argc > 4 && !strcmp(argv[4], "whiteout"))
			flags = RENAME_WHITEOUT;
		if (syscall(SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD, argv[3],
			    flags))
			return fail("renameat2");
		return 0;
	}
	if ((!strcmp(cmd, "pwrite") && argc == 5) ||
	    (!strcmp(cmd, "append") && argc == 4)) {
		int app = cmd[0] == 'a';
		const char *s = argv[app ? 3 : 4];

		fd = open(argv[2], O_WRONLY | O_CREAT | (app ? O_APPEND : 0),
			  0644);
		if (fd < 0)
			return fail(argv[2]);
		if (app)
			n = write(fd, s, strlen(s));
		else
			n = pwrite(fd, s, strlen(s), strtoll(argv[3], NULL, 0));
		if (n != (ssize_t)strlen(s) || close(fd))
			return fail("write");
		return 0;
	}
	if (!strcmp(cmd, "mmapwrite") && argc == 5) {
		long long off = strtoll(argv[3], NULL, 0);
		long pg = sysconf(_SC_PAGESIZE);
		long long base = off & ~(long long)(pg - 1);
		size_t len = strlen(argv[4]) + (size_t)(off - base);
		char *p;

		fd = open(argv[2], O_RDWR);
		if (fd < 0)
			return fail(argv[2]);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 base);
		if (p == MAP_FAILED)
			return fail("mmap");
		memcpy(p + (off - base), argv[4], strlen(argv[4]));
		if (msync(p, len, MS_SYNC))
			return fail("msync");
		munmap(p, len);
		close(fd);
		return 0;
	}
	if (!strcmp(cmd, "eofmmap") && argc == 5)
		return eofmmap_cmd(argv);
	if (!strcmp(cmd, "fsync") && argc == 3) {
		fd = open(argv[2], O_RDONLY);
		if (fd < 0)
			return fail(argv[2]);
		if (fsync(fd))
			return fail("fsync");
		close(fd);
		return 0;
	}
	if (!strcmp(cmd, "getxattr") && argc == 4) {
		n = lgetxattr(argv[2], argv[3], buf, sizeof(buf));
		if (n < 0)
			return fail("getxattr");
		fwrite(buf, 1, (size_t)n, stdout);
		printf("\n");
		return 0;
	}
	if (!strcmp(cmd, "listxattr") && argc == 3) {
		char *p;

		n = llistxattr(argv[2], buf, sizeof(buf));
		if (n < 0)
			return fail("listxattr");
		for (p = buf; p < buf + n; p += strlen(p) + 1)
			printf("%s\n", p);
		return 0;
	}
	if (!strcmp(cmd, "setxattr") && argc >= 5) {
		if (argc > 5)
			flags = !strcmp(argv[5], "create") ? XATTR_CREATE :
				XATTR_REPLACE;
		if (lsetxattr(argv[2], argv[3], argv[4], strlen(argv[4]),
			      (int)flags))
			return fail("setxattr");
		return 0;
	}
	if (!strcmp(cmd, "rmxattr") && argc == 4) {
		if (lremovexattr(argv[2], argv[3]))
			return fail("removexattr");
		return 0;
	}
	if (!strcmp(cmd, "seekdir") && argc == 3)
		return seekdir_check(argv[2]);
	if (!strcmp(cmd, "orphan") && argc == 4)
		return orphan_check(argv[2], strtol(argv[3], NULL, 0));
	if (!strcmp(cmd, "tmpfile") && argc == 5)
		return tmpfile_check(argv[2], strtol(argv[3], NULL, 0),
				     argv[4]);
	if (!strcmp(cmd, "renameopen") && argc == 4)
		return renameopen_check(argv[2], argv[3]);
	if (!strcmp(cmd, "fallocate") && argc == 6)
		return fallocate_cmd(argv);
	if (!strcmp(cmd, "setacl") && argc == 5)
		return setacl_cmd(argv[2], argv[3], argv[4]);
	if (!strcmp(cmd, "getacl") && argc == 4)
		return getacl_cmd(argv[2], argv[3]);
	if (!strcmp(cmd, "asuser") && argc == 5)
		return asuser_cmd(argv);
	if (!strcmp(cmd, "shutdown") && argc == 4)
		return shutdown_cmd(argv[2], argv[3]);
	if (!strcmp(cmd, "dio") && argc == 6)
		return dio_cmd(argv);
	if ((!strcmp(cmd, "fiemap") && (argc == 3 || argc == 5)) ||
	    (!strcmp(cmd, "fiemapx") && argc == 3))
		return fiemap_cmd(argc, argv);
	if (!strcmp(cmd, "attrs") && argc == 3)
		return attrs_cmd(argv[2]);
	if (!strcmp(cmd, "dioalign") && argc == 3)
		return dioalign_cmd(argv[2]);
	if (!strcmp(cmd, "seek") && argc == 5) {
		off_t o;

		fd = open(argv[2], O_RDONLY);
		if (fd < 0)
			return fail(argv[2]);
		o = lseek(fd, strtoll(argv[4], NULL, 0),
			  !strcmp(argv[3], "data") ? SEEK_DATA : SEEK_HOLE);
		if (o < 0)
			return fail("lseek");
		printf("%lld\n", (long long)o);
		close(fd);
		return 0;
	}
	if (!strcmp(cmd, "handle") && argc == 4)
		return handle_cmd(argv[2], argv[3]);
	if (!strcmp(cmd, "byhandle") && argc == 4)
		return byhandle_cmd(argv[2], argv[3]);
	fprintf(stderr, "usage: see tests/vm/posixutil.c\n");
	return 2;
}
