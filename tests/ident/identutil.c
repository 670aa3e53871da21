// SPDX-License-Identifier: GPL-2.0
/*
 * identutil.c - leaves an image in a state gazectl label and uuid must
 * refuse, or one whose summary entries gazectl features must clear,
 * through the shared core:
 *
 *   identutil unclean IMAGE      a checkpoint without the clean-unmount
 *                                flag is the newest (a crash after sync)
 *   identutil fsync IMAGE        the same, and then a file written and
 *                                fsync'd: nodes await roll-forward
 *   identutil fsck-needed IMAGE  the newest checkpoint is a clean
 *                                unmount that asks for fsck
 *   identutil overwrite IMAGE    /ow (64 KiB) written, then written
 *                                again 4 times with a checkpoint after
 *                                each, and a clean unmount: the old
 *                                blocks' summary entries left stale
 *                                when the image has lazy_summary
 *
 * Exit 0 on success, 1 on failure, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gaze_core.h"
#include "gaze_zdev.h"
#include "gaze_util.h"

/* identutil overwrite */
static int
overwrite(struct gaze_fs *fs)
{
	static u8 buf[65536];
	struct gaze_attr a;
	u32 ino;
	int r, ret;

	memset(&a, 0, sizeof(a));
	a.mode = 0100644;
	a.nlink = 1;
	ret = gaze_ns_mknod(fs, GAZE_ROOT_INO, "ow", 2, &a, &ino);
	for (r = 0; r < 5 && !ret; r++) {
		memset(buf, 'a' + r, sizeof(buf));
		if (gaze_file_write(fs, ino, buf, sizeof(buf), 0) !=
		    (s64)sizeof(buf))
			ret = -EIO;
		if (!ret)
			ret = gaze_fs_sync(fs);
	}
	return ret;
}

int
main(int argc, char **argv)
{
	struct gaze_dev_open_opts oo = { 0 };
	struct gaze_dev *dev = NULL;
	struct gaze_fs *fs = NULL;
	static const char data[] = "written after the checkpoint\n";
	struct gaze_attr a;
	bool unclean, fsync;
	u32 ino;
	int ret;

	if (argc != 3 || (strcmp(argv[1], "unclean") &&
			  strcmp(argv[1], "fsync") &&
			  strcmp(argv[1], "fsck-needed") &&
			  strcmp(argv[1], "overwrite"))) {
		fprintf(stderr, "usage: identutil unclean|fsync|fsck-needed|overwrite IMAGE\n");
		return 2;
	}
	fsync = !strcmp(argv[1], "fsync");
	unclean = fsync || !strcmp(argv[1], "unclean");
	oo.zone_blocks = gaze_probe_image_zone_blocks(argv[2], NULL, NULL);
	ret = gaze_dev_open(argv[2], &oo, &dev);
	if (!ret)
		ret = gaze_fs_open(dev, 0, &fs);
	if (ret) {
		fprintf(stderr, "identutil: %s: cannot open: %d\n", argv[2], ret);
		gaze_dev_close(dev);
		return 1;
	}
	if (!strcmp(argv[1], "overwrite")) {
		ret = overwrite(fs);
		if (ret)
			fs->flags |= GAZE_FS_RDONLY;
		if (gaze_fs_close(fs) && !ret)
			ret = -EIO;
	} else if (unclean) {
		memset(&a, 0, sizeof(a));
		a.mode = 0100644;
		a.nlink = 1;
		/* /late (fsync) or /crash (unclean) */
		ret = gaze_ns_mknod(fs, GAZE_ROOT_INO, fsync ? "late" : "crash",
				    fsync ? 4 : 5, &a, &ino);
		if (!ret)
			ret = gaze_fs_sync(fs);
		if (!ret && fsync && gaze_file_write(fs, ino, data,
						     sizeof(data) - 1, 0) !=
				     (s64)sizeof(data) - 1)
			ret = -EIO;
		if (!ret && fsync)
			ret = gaze_fs_fsync(fs);
		if (!ret && fsync && !fs->stat[GAZE_STAT_FSYNC_RF])
			ret = -EAGAIN;	/* checkpointed, not rolled */
		fs->flags |= GAZE_FS_RDONLY;	/* no unmount checkpoint */
		gaze_fs_close(fs);
	} else {
		fs->cp.flags = cpu_to_le32(le32_to_cpu(fs->cp.flags) |
					   GAZE_CP_FSCK_NEEDED);
		ret = gaze_fs_close(fs);
	}
	gaze_dev_close(dev);
	if (ret) {
		fprintf(stderr, "identutil: %s: %d\n", argv[2], ret);
		return 1;
	}
	return 0;
}
