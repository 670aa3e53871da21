// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - what is on a device already?
 *
 * Why: mkfs must not overwrite somebody's filesystem or partition table by
 * accident.  libblkid knows every other filesystem and partition table;
 * it does not know GAZE, so the GAZE superblock magic is checked here too.
 * And udev, mount and fsck find filesystems by type, label and uuid
 * through libblkid: until it knows GAZE, gazectl probe gives udev what
 * libblkid would (udev/64-gaze.rules; doc/design.md, "Finding a
 * filesystem").
 */
#include <blkid.h>
#include <ctype.h>
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

/*
 * Like a libblkid superblock prober, copy 0 decides.  Copy 1 is looked
 * for only when block 0 carries the GAZE magic but does not verify, or
 * is all zeros: a checkpoint zone is reset before its superblock copy is
 * written again (format.md section 7), so a crash there leaves block 0
 * empty, and a mount then uses copy 1.  It is looked for at the zone
 * size copy 0 records, then at every power of two the scan of
 * gaze_probe_image_zone_blocks() tries (a zoned device's zone size is a
 * power of two).  Anything else at block 0 is not GAZE.
 */
int
gaze_probe_super(const char *path, struct gaze_super *sb, uint32_t *copy)
{
	u32 zb = 0, z;
	ssize_t n;
	int fd, ret = 0;

	if (copy)
		*copy = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = gaze_pread_full(fd, sb, GAZE_BLOCK_SIZE, 0);
	if (n < 0) {
		ret = (int)n;
		goto out;
	}
	if (n < (ssize_t)GAZE_BLOCK_SIZE)
		goto out;
	if (gaze_probe_gaze_block(sb)) {
		if (!gaze_fmt_super_verify(sb, 0, NULL)) {
			ret = 1;
			goto out;
		}
		zb = le32_to_cpu(sb->zone_blocks);
	} else if (!gaze_fmt_is_zero(sb, GAZE_BLOCK_SIZE)) {
		goto out;
	}
	if (zb >= GAZE_MIN_ZONE_BLOCKS && probe_super_at(fd, sb, zb)) {
		ret = 1;
	} else {
		for (z = GAZE_MIN_ZONE_BLOCKS; z && z <= (1u << 22); z <<= 1) {
			if (probe_super_at(fd, sb, z)) {
				ret = 1;
				break;
			}
		}
	}
	if (ret && copy)
		*copy = 1;
out:
	close(fd);
	return ret;
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

size_t
gaze_probe_label(const struct gaze_super *sb, char *buf, size_t len)
{
	size_t n = strnlen(sb->label, sizeof(sb->label));

	/* libblkid drops trailing white space (blkid_probe_set_label) */
	while (n && isspace((unsigned char)sb->label[n - 1]))
		n--;
	if (len) {
		if (n >= len)
			n = len - 1;
		memcpy(buf, sb->label, n);
		buf[n] = '\0';
	}
	return n;
}

/* KEY=value, in double quotes when udev's parser would change it */
static void
udev_put(FILE *f, const char *key, const char *val)
{
	size_t n = strlen(val);
	bool quote = n && (val[0] == '"' || val[0] == '\'' ||
			   isspace((unsigned char)val[0]) ||
			   isspace((unsigned char)val[n - 1]));

	fprintf(f, quote ? "%s=\"%s\"\n" : "%s=%s\n", key, val);
}

/* ID_FS_<key> (blkid_safe_string) and ID_FS_<key>_ENC */
static void
udev_put_pair(FILE *f, const char *key, const char *val)
{
	char k[32], out[4 * GAZE_LABEL_MAX + 8];

	if (blkid_safe_string(val, out, sizeof(out)))
		out[0] = '\0';
	snprintf(k, sizeof(k), "ID_FS_%s", key);
	if (out[0])
		udev_put(f, k, out);
	if (blkid_encode_string(val, out, sizeof(out)))
		out[0] = '\0';
	snprintf(k, sizeof(k), "ID_FS_%s_ENC", key);
	if (out[0])
		udev_put(f, k, out);
}

void
gaze_probe_udev_export(FILE *f, const struct gaze_super *sb)
{
	char label[GAZE_LABEL_MAX], uuid[GAZE_UUID_STR_LEN];

	if (gaze_probe_label(sb, label, sizeof(label)))
		udev_put_pair(f, "LABEL", label);
	gaze_uuid_unparse(sb->hdr.uuid, uuid);
	udev_put_pair(f, "UUID", uuid);
	fprintf(f, "ID_FS_VERSION=%u\n", le16_to_cpu(sb->hdr.hdr_version));
	fprintf(f, "ID_FS_TYPE=gaze\n");
	fprintf(f, "ID_FS_USAGE=filesystem\n");
}
