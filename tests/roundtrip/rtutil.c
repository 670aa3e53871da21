// SPDX-License-Identifier: GPL-2.0
/*
 * rtutil.c - makes the parts of the round-trip test tree that coreutils
 * cannot, so the test needs neither the attr nor the acl package:
 *
 *   rtutil xattr PATH NAME VALUE       lsetxattr, VALUE as given ("" ok)
 *   rtutil xattr-pattern PATH NAME N   lsetxattr, N bytes (i * 7 + 3) & 255
 *   rtutil acl PATH access|default     a POSIX ACL, raw:
 *                                      user::rwx user:1234:r-x group::r-x
 *                                      mask::r-x other::r--
 *   rtutil socket PATH                 a unix socket bound at PATH
 *
 * Exit 0, or 1 with a message.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

/* the kernel's posix_acl_xattr format (include/uapi/linux/posix_acl_xattr.h) */
struct acl_entry {
	uint16_t	tag, perm;
	uint32_t	id;
};

static int
fail(const char *path, const char *what)
{
	fprintf(stderr, "rtutil: %s: %s: %s\n", path, what, strerror(errno));
	return 1;
}

static int
set_acl(const char *path, const char *kind)
{
	static const struct { uint16_t tag, perm; uint32_t id; } e[] = {
		{ 0x01, 7, 0xffffffff },	/* ACL_USER_OBJ rwx */
		{ 0x02, 5, 1234 },		/* ACL_USER 1234 r-x */
		{ 0x04, 5, 0xffffffff },	/* ACL_GROUP_OBJ r-x */
		{ 0x10, 5, 0xffffffff },	/* ACL_MASK r-x */
		{ 0x20, 4, 0xffffffff },	/* ACL_OTHER r-- */
	};
	unsigned char buf[4 + sizeof(e) / sizeof(e[0]) * 8];
	uint32_t version = htole32(2);
	const char *name;
	size_t i;

	if (!strcmp(kind, "access"))
		name = "system.posix_acl_access";
	else if (!strcmp(kind, "default"))
		name = "system.posix_acl_default";
	else {
		fprintf(stderr, "rtutil: acl: access or default\n");
		return 1;
	}
	memcpy(buf, &version, 4);
	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		struct acl_entry a = {
			.tag = htole16(e[i].tag),
			.perm = htole16(e[i].perm),
			.id = htole32(e[i].id),
		};

		memcpy(buf + 4 + i * 8, &a, 8);
	}
	if (lsetxattr(path, name, buf, sizeof(buf), 0))
		return fail(path, name);
	return 0;
}

static int
make_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char *dup1 = strdup(path), *dup2 = strdup(path);
	int fd, ret = 1;

	if (!dup1 || !dup2)
		goto out_free;
	/* sun_path is short: bind the base name from inside its directory */
	if (chdir(dirname(dup1)))
		goto out_err;
	if (strlen(basename(dup2)) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		goto out_err;
	}
	strcpy(sa.sun_path, basename(dup2));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		goto out_err;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		goto out_err;
	}
	close(fd);
	ret = 0;
	goto out_free;
out_err:
	ret = fail(path, "socket");
out_free:
	free(dup1);
	free(dup2);
	return ret;
}

int
main(int argc, char **argv)
{
	unsigned char *val;
	unsigned long n, i;

	if (argc == 5 && !strcmp(argv[1], "xattr")) {
		if (lsetxattr(argv[2], argv[3], argv[4], strlen(argv[4]), 0))
			return fail(argv[2], argv[3]);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "xattr-pattern")) {
		n = strtoul(argv[4], NULL, 0);
		val = malloc(n + 1);
		if (!val)
			return fail(argv[2], "malloc");
		for (i = 0; i < n; i++)
			val[i] = (unsigned char)((i * 7 + 3) & 255);
		if (lsetxattr(argv[2], argv[3], val, n, 0)) {
			free(val);
			return fail(argv[2], argv[3]);
		}
		free(val);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "acl"))
		return set_acl(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "socket"))
		return make_socket(argv[2]);
	fprintf(stderr,
		"Usage: rtutil xattr PATH NAME VALUE | xattr-pattern PATH NAME N |\n"
		"              acl PATH access|default | socket PATH\n");
	return 1;
}
