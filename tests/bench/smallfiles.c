// SPDX-License-Identifier: GPL-2.0
/*
 * smallfiles.c - the small-file phases of tests/bench/vm-f2fs.sh, one
 * process per phase instead of one per file (under TCG a fork costs more
 * than the filesystem call being measured).
 *
 *   smallfiles create DIR N SIZE   N files of SIZE bytes, 1,000 per
 *                                  subdirectory d0, d1, ... of DIR, each
 *                                  with its own content; then syncfs
 *   smallfiles stat DIR N SIZE     stat every file, checking its size
 *   smallfiles unlink DIR N SIZE   unlink every file and subdirectory;
 *                                  then syncfs
 *
 * Exit 0, or 1 with a message naming the file and the error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PER_DIR	1000

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "smallfiles: %s %s: %s\n", what, path,
		strerror(errno));
	return 1;
}

static void name_of(char *buf, size_t len, const char *dir, long i)
{
	snprintf(buf, len, "%s/d%ld/f%ld", dir, i / PER_DIR, i);
}

static int do_create(const char *dir, long n, long size, char *data)
{
	char path[4096];
	long i, k;
	int fd;

	for (i = 0; i < n; i++) {
		if (i % PER_DIR == 0) {
			snprintf(path, sizeof(path), "%s/d%ld", dir,
				 i / PER_DIR);
			if (mkdir(path, 0755) && errno != EEXIST)
				return fail("mkdir", path);
		}
		name_of(path, sizeof(path), dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return fail("create", path);
		for (k = 0; k < 8 && k < size; k++)
			data[k] = (char)(i >> (8 * k));
		if (write(fd, data, (size_t)size) != size) {
			close(fd);
			return fail("write", path);
		}
		if (close(fd))
			return fail("close", path);
	}
	return 0;
}

static int do_stat(const char *dir, long n, long size)
{
	char path[4096];
	struct stat st;
	long i;

	for (i = 0; i < n; i++) {
		name_of(path, sizeof(path), dir, i);
		if (stat(path, &st))
			return fail("stat", path);
		if (st.st_size != size) {
			errno = EINVAL;
			return fail("size of", path);
		}
	}
	return 0;
}

static int do_unlink(const char *dir, long n)
{
	char path[4096];
	long i;

	for (i = 0; i < n; i++) {
		name_of(path, sizeof(path), dir, i);
		if (unlink(path))
			return fail("unlink", path);
		if (i % PER_DIR == PER_DIR - 1 || i == n - 1) {
			snprintf(path, sizeof(path), "%s/d%ld", dir,
				 i / PER_DIR);
			if (rmdir(path))
				return fail("rmdir", path);
		}
	}
	return 0;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return fail("open", dir);
	if (syncfs(fd)) {
		close(fd);
		return fail("syncfs", dir);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	long n, size;
	char *data;
	int ret;

	if (argc != 5) {
		fprintf(stderr,
			"usage: smallfiles create|stat|unlink DIR N SIZE\n");
		return 2;
	}
	n = strtol(argv[3], NULL, 10);
	size = strtol(argv[4], NULL, 10);
	if (n < 0 || size < 0 || size > 1 << 20) {
		fprintf(stderr, "smallfiles: bad N or SIZE\n");
		return 2;
	}
	data = malloc((size_t)size + 1);
	if (!data)
		return 1;
	memset(data, 'g', (size_t)size);
	if (!strcmp(argv[1], "create"))
		ret = do_create(argv[2], n, size, data) ?: sync_dir(argv[2]);
	else if (!strcmp(argv[1], "stat"))
		ret = do_stat(argv[2], n, size);
	else if (!strcmp(argv[1], "unlink"))
		ret = do_unlink(argv[2], n) ?: sync_dir(argv[2]);
	else
		ret = 2;
	free(data);
	return ret;
}
