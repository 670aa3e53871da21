// SPDX-License-Identifier: GPL-2.0
/*
 * posixutil.c - system calls the guest's shell tools do not offer, for
 * tests/vm/guest/kmod-posix.sh:
 *   posixutil rename OLD NEW [noreplace|exchange|whiteout]   renameat2
 *   posixutil pwrite FILE OFFSET STRING
 *   posixutil append FILE STRING                 O_APPEND write
 *   posixutil mmapwrite FILE OFFSET STRING       MAP_SHARED store + msync
 *   posixutil fsync FILE
 *   posixutil getxattr PATH NAME                 value on stdout
 *   posixutil listxattr PATH                     names, one a line
 *   posixutil setxattr PATH NAME VALUE [create|replace]
 *   posixutil rmxattr PATH NAME
 *   posixutil seekdir DIR       readdir, then seekdir to every telldir
 *                               position: the rest must repeat exactly
 * Exit 0, or 1 with "posixutil: what: ERRNO_NAME (message)" on stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

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
	fprintf(stderr, "usage: see tests/vm/posixutil.c\n");
	return 2;
}
