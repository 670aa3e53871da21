// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - what is on a device already?
 *
 * Why: mkfs must not overwrite somebody's filesystem or partition table by
 * accident.  libblkid knows every other filesystem and partition table;
 * it does not know GAZE, so the GAZE superblock magic is checked here too.
 */
#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gaze_util.h"
#include "gaze_core.h"

int
gaze_probe_blkid(const char *path, char *type, size_t len, bool *ptable)
{
	const char *val = NULL;
	blkid_probe pr;
	int ret;

	if (type && len)
		type[0] = '\0';
	if (ptable)
		*ptable = false;
	errno = 0;
	pr = blkid_new_probe_from_filename(path);
	if (!pr)
		return errno ? -errno : -EIO;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);

	ret = blkid_do_safeprobe(pr);
	if (ret == 1) {
		ret = 0;			/* nothing found */
	} else if (ret == -2) {
		if (type)
			snprintf(type, len, "multiple signatures");
		ret = 1;
	} else if (ret < 0) {
		ret = errno ? -errno : -EIO;
	} else {
		if (blkid_probe_lookup_value(pr, "TYPE", &val, NULL)) {
			if (!blkid_probe_lookup_value(pr, "PTTYPE", &val,
						      NULL)) {
				if (ptable)
					*ptable = true;
			} else {
				val = "unknown";
			}
		}
		if (type)
			snprintf(type, len, "%s", val);
		ret = 1;
	}
	blkid_free_probe(pr);
	return ret;
}

bool
gaze_probe_gaze_block(const void *block)
{
	const struct gaze_mhdr *h = block;

	return le32_to_cpu(h->magic) == GAZE_MAGIC_SB;
}

int
gaze_probe_gaze_at(const char *path, uint64_t off)
{
	void *buf;
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(GAZE_BLOCK_SIZE);
	if (!buf) {
		ret = -ENOMEM;
		goto out_close;
	}
	n = pread(fd, buf, GAZE_BLOCK_SIZE, (off_t)off);
	if (n < 0)
		ret = -errno;
	else if (n < (ssize_t)GAZE_BLOCK_SIZE)
		ret = 0;
	else
		ret = gaze_probe_gaze_block(buf);
	free(buf);
out_close:
	close(fd);
	return ret;
}

static bool
probe_super_at(int fd, void *blk, u32 zone_blocks)
{
	const struct gaze_super *sb = blk;

	return gaze_pread_full(fd, blk, GAZE_BLOCK_SIZE,
			       (off_t)zone_blocks * GAZE_BLOCK_SIZE) ==
	       GAZE_BLOCK_SIZE &&
	       !gaze_fmt_super_verify(sb, zone_blocks, NULL) &&
	       (!zone_blocks || le32_to_cpu(sb->zone_blocks) == zone_blocks);
}

uint32_t
gaze_probe_image_zone_blocks(const char *path, uint32_t *nr_zones,
			     uint64_t *bytes)
{
	struct gaze_super *sb = malloc(GAZE_BLOCK_SIZE);
	u32 zb = 0, z;
	off_t end;
	int fd;

	if (nr_zones)
		*nr_zones = 0;
	if (bytes)
		*bytes = 0;
	if (!sb)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	end = lseek(fd, 0, SEEK_END);
	if (bytes)
		*bytes = end > 0 ? (u64)end : 0;
	if (probe_super_at(fd, sb, 0)) {
		zb = le32_to_cpu(sb->zone_blocks);
		if (nr_zones)
			*nr_zones = le32_to_cpu(sb->nr_zones);
		goto out_close;
	}
	/* copy 0 damaged: copy 1 is at the start of the second zone */
	for (z = GAZE_MIN_ZONE_BLOCKS; z && z <= (1u << 22); z <<= 1)
		if (probe_super_at(fd, sb, z)) {
			zb = z;
			break;
		}
out_close:
	close(fd);
out:
	free(sb);
	return zb;
}
