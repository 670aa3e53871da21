// SPDX-License-Identifier: GPL-2.0
/*
 * ident.c - gazectl probe, label and uuid: what identifies a filesystem.
 *
 * Why: udev, mount, fsck and fstab find filesystems by type, label and
 * uuid through libblkid, which does not know GAZE; gazectl probe --export
 * gives udev the same properties libblkid would (udev/64-gaze.rules makes
 * the /dev/disk/by-uuid and by-label links from them).  gazectl label and
 * gazectl uuid change them offline, as tune2fs -L/-U do, and gazectl
 * features turns features on and off as tune2fs -O does (the work is in
 * lib/util/ident.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "gaze_util.h"
#include "gaze_core.h"
#include "gaze_zdev.h"
#include "gazectl.h"

/* the superblock of an image or device, or a message and NULL */
static struct gaze_super *
id_read(const char *path, u32 *copy, bool quiet)
{
	struct gaze_super *sb = malloc(GAZE_BLOCK_SIZE);
	int ret;

	if (!sb) {
		if (!quiet)
			fprintf(stderr, "gazectl: %s\n", strerror(ENOMEM));
		return NULL;
	}
	ret = gaze_probe_super(path, sb, copy);
	if (ret <= 0) {
		if (!quiet)
			fprintf(stderr, "gazectl: %s: %s\n", path,
				ret ? strerror(-ret) :
				"not a GAZE filesystem (no valid superblock)");
		free(sb);
		return NULL;
	}
	return sb;
}

int
gaze_cmd_probe(const struct gaze_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "export", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char uuid[GAZE_UUID_STR_LEN];
	bool export = false;
	struct gaze_super *sb;
	u32 copy;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "eh", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			export = true;
			break;
		case 'h':
			gaze_cmd_help(cmd, stdout);
			return GAZE_EXIT_OK;
		default:
			return gaze_cmd_usage_error(cmd, "bad option");
		}
	}
	ret = gaze_cmd_nargs(cmd, argc, optind);
	if (ret)
		return ret;
	/* udev runs it on every device blkid did not know: not GAZE, or
	 * not readable (no medium), is exit 1 without a word */
	sb = id_read(argv[optind], &copy, true);
	if (!sb)
		return GAZE_EXIT_FAIL;
	if (export) {
		gaze_probe_udev_export(stdout, sb);
	} else {
		gaze_uuid_unparse(sb->hdr.uuid, uuid);
		printf("type: gaze\n");
		printf("version: %u\n", le16_to_cpu(sb->hdr.hdr_version));
		printf("uuid: %s\n", uuid);
		printf("label: ");
		gaze_quote_fput(stdout, sb->label,
				strnlen(sb->label, sizeof(sb->label)));
		printf("\nsuperblock: copy %u%s\n", copy,
		       copy ? " (copy 0 does not verify: run fsck.gaze)" : "");
	}
	free(sb);
	return fflush(stdout) ? GAZE_EXIT_FAIL : GAZE_EXIT_OK;
}

/*
 * After a change on a block device: a "change" uevent, so udev probes it
 * again and moves the by-label / by-uuid links.  udev's own watch (a
 * change event when a device written to is closed) misses a write that
 * closes while udev still handles the previous event, e.g. gazectl uuid
 * right after gazectl label.  Best effort: nothing to do for images, and
 * without udev or sysfs nothing listens.
 */
static void
id_udev_change(const char *path)
{
	char sys[64];
	struct stat st;
	int fd;

	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		return;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/uevent",
		 major(st.st_rdev), minor(st.st_rdev));
	fd = open(sys, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "change", 6) != 6) {
		/* nothing listens, or not allowed: the watch may still see it */
	}
	close(fd);
}

/*
 * Refuses a mounted device; opens it read-write, exclusively and locked,
 * and changes what is asked.
 */
static int
id_set(const char *path, const char *label, const u8 *uuid,
       const char *features)
{
	struct gaze_dev_open_opts oo = {
		.excl = true,
		.lock = true,	/* not while mkfs, fsck or gazectl has it */
	};
	char where[4096];
	struct gaze_super *sb;
	struct gaze_dev *dev;
	const char *why = NULL;
	u64 cleared = 0;
	int ret;

	sb = id_read(path, NULL, false);
	if (!sb)
		return GAZE_EXIT_FAIL;
	free(sb);
	ret = gaze_mount_check(path, where, sizeof(where));
	if (ret < 0) {
		fprintf(stderr, "gazectl: %s: cannot tell whether it is mounted: %s\n",
			path, strerror(-ret));
		return GAZE_EXIT_FAIL;
	}
	if (ret) {
		fprintf(stderr, "gazectl: %s: is mounted on %s; unmount it first\n",
			path, where[0] ? where : "(unknown)");
		return GAZE_EXIT_FAIL;
	}
	/* images: the zone size mkfs chose is only in the superblock */
	oo.zone_blocks = gaze_probe_image_zone_blocks(path, NULL, NULL);
	ret = gaze_dev_open(path, &oo, &dev);
	if (ret) {
		fprintf(stderr, "gazectl: %s: %s\n", path,
			ret == -EWOULDBLOCK ?
			"in use: mkfs.gaze, fsck.gaze or gazectl holds its lock" :
			ret == -EBUSY ? "in use (mounted or opened exclusively)" :
			strerror(-ret));
		return GAZE_EXIT_FAIL;
	}
	if (features)
		ret = gaze_features_set(dev, features, &cleared, &why);
	else
		ret = gaze_ident_set(dev, label, uuid, &why);
	gaze_dev_close(dev);
	if (ret == -EUCLEAN) {
		fprintf(stderr, "gazectl: %s: %s; run fsck.gaze first\n", path,
			why ? why : "the filesystem is not clean");
		return GAZE_EXIT_FAIL;
	}
	if ((ret == -EPERM || ret == -EINVAL) && features && why) {
		fprintf(stderr, "gazectl: %s: %s\n", path, why);
		return GAZE_EXIT_FAIL;
	}
	if (ret) {
		if (why)
			fprintf(stderr, "gazectl: %s: %s: %s\n", path, why,
				strerror(-ret));
		else
			fprintf(stderr, "gazectl: %s: %s\n", path,
				strerror(-ret));
		return GAZE_EXIT_FAIL;
	}
	if (cleared)
		printf("%llu stale summary entries cleared\n",
		       (unsigned long long)cleared);
	id_udev_change(path);
	return fflush(stdout) ? GAZE_EXIT_FAIL : GAZE_EXIT_OK;
}

/*
 * label and uuid take -h only, and no option after the image: a label
 * may start with '-'
 */
static int
id_opts(const struct gaze_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (opt == 'h') {
			gaze_cmd_help(cmd, stdout);
			return -1;
		}
		return gaze_cmd_usage_error(cmd, "bad option");
	}
	return gaze_cmd_nargs(cmd, argc, optind);
}

int
gaze_cmd_label(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct gaze_super *sb;
	const char *path;
	int ret;

	ret = id_opts(cmd, argc, argv);
	if (ret)
		return ret < 0 ? GAZE_EXIT_OK : ret;
	path = argv[optind];
	if (optind + 1 < argc) {
		const char *label = argv[optind + 1];

		if (strlen(label) >= GAZE_LABEL_MAX)
			return gaze_cmd_usage_error(cmd,
				"the label is %zu bytes long; at most %d are allowed",
				strlen(label), GAZE_LABEL_MAX - 1);
		return id_set(path, label, NULL, NULL);
	}
	sb = id_read(path, NULL, false);
	if (!sb)
		return GAZE_EXIT_FAIL;
	gaze_quote_fput(stdout, sb->label,
			strnlen(sb->label, sizeof(sb->label)));
	putchar('\n');
	free(sb);
	return fflush(stdout) ? GAZE_EXIT_FAIL : GAZE_EXIT_OK;
}

int
gaze_cmd_uuid(const struct gaze_cmd *cmd, int argc, char **argv)
{
	char buf[GAZE_UUID_STR_LEN];
	struct gaze_super *sb;
	const char *path;
	u8 uuid[16];
	int ret;

	ret = id_opts(cmd, argc, argv);
	if (ret)
		return ret < 0 ? GAZE_EXIT_OK : ret;
	path = argv[optind];
	if (optind + 1 < argc) {
		const char *arg = argv[optind + 1];

		if (!strcmp(arg, "random"))
			gaze_uuid_generate(uuid);
		else if (gaze_uuid_parse(arg, uuid))
			return gaze_cmd_usage_error(cmd,
				"'%s' is not a UUID (or 'random')", arg);
		if (gaze_uuid_is_null(uuid))
			return gaze_cmd_usage_error(cmd,
				"the null UUID names no filesystem");
		return id_set(path, NULL, uuid, NULL);
	}
	sb = id_read(path, NULL, false);
	if (!sb)
		return GAZE_EXIT_FAIL;
	gaze_uuid_unparse(sb->hdr.uuid, buf);
	printf("%s\n", buf);
	free(sb);
	return fflush(stdout) ? GAZE_EXIT_FAIL : GAZE_EXIT_OK;
}

int
gaze_cmd_features(const struct gaze_cmd *cmd, int argc, char **argv)
{
	char buf[512];
	struct gaze_super *sb;
	const char *path, *bad = NULL;
	u64 m[3] = { 0, 0, 0 };
	int ret;

	ret = id_opts(cmd, argc, argv);
	if (ret)
		return ret < 0 ? GAZE_EXIT_OK : ret;
	path = argv[optind];
	if (optind + 1 < argc) {
		const char *list = argv[optind + 1];

		/* names first: a misspelt one is a usage error */
		if (gaze_fmt_feature_parse(list, &m[0], &m[1], &m[2], &bad) ==
		    -EINVAL) {
			gaze_fmt_feature_known(buf, sizeof(buf));
			return gaze_cmd_usage_error(cmd,
				"unknown feature '%.*s' (known: %s)",
				(int)strcspn(bad, ","), bad, buf);
		}
		return id_set(path, NULL, NULL, list);
	}
	sb = id_read(path, NULL, false);
	if (!sb)
		return GAZE_EXIT_FAIL;
	gaze_fmt_feature_string(le64_to_cpu(sb->feature_compat),
				le64_to_cpu(sb->feature_ro_compat),
				le64_to_cpu(sb->feature_incompat), buf,
				sizeof(buf));
	printf("%s\n", buf);
	free(sb);
	return fflush(stdout) ? GAZE_EXIT_FAIL : GAZE_EXIT_OK;
}
