// SPDX-License-Identifier: GPL-2.0
/*
 * f2fs-gcrange.c - for tests/bench/guest/gc-bench.sh: asks a mounted F2FS
 * to garbage-collect the sections of a block range, through the
 * F2FS_IOC_GARBAGE_COLLECT_RANGE ioctl (f2fs_io of Debian 12 has no
 * command for it):
 *   f2fs-gcrange [--async] MNT START LEN
 * START and LEN are in 4 KiB blocks of the filesystem's address space
 * (START within the main area); the kernel collects every section from
 * the one holding START up to START + LEN.  By default the collection is
 * synchronous (foreground GC, the ioctl returns when the valid blocks are
 * moved); --async asks for background-style GC.
 * Exit 0, 1 when the ioctl fails ("f2fs-gcrange: MNT: message"), 2 on a
 * usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* the kernel's struct f2fs_gc_range and ioctl number (fs/f2fs/f2fs.h) */
struct gcr_range {
	uint32_t sync;
	uint64_t start;
	uint64_t len;
};

#define GCR_IOC_GC_RANGE	_IOW(0xf5, 11, struct gcr_range)

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: f2fs-gcrange [--async] MNT START LEN\n"
"Garbage-collect the F2FS sections holding blocks START..START+LEN\n"
"(4 KiB blocks) of the filesystem mounted at MNT.\n"
"  -a, --async    background-style GC instead of foreground (sync)\n"
"  -h, --help     print this help and exit\n");
}

static int
parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "async", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct gcr_range r;
	int opt, fd;

	memset(&r, 0, sizeof(r));
	r.sync = 1;
	while ((opt = getopt_long(argc, argv, "ah", opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			r.sync = 0;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 3 || parse_u64(argv[optind + 1], &r.start) ||
	    parse_u64(argv[optind + 2], &r.len)) {
		usage(stderr);
		return 2;
	}
	fd = open(argv[optind], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		fprintf(stderr, "f2fs-gcrange: %s: %s\n", argv[optind],
			strerror(errno));
		return 1;
	}
	if (ioctl(fd, GCR_IOC_GC_RANGE, &r)) {
		fprintf(stderr, "f2fs-gcrange: %s: %s\n", argv[optind],
			strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}
