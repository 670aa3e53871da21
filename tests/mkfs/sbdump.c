// SPDX-License-Identifier: GPL-2.0
/*
 * sbdump.c - print the superblock of an image as key=value lines, for the
 * mkfs tests.
 *
 * Why: the tests must see each mkfs option's effect in the image itself,
 * not only in mkfs's own summary; reading the superblock through the
 * shared core's verifier also proves mkfs wrote one the core accepts.
 * Both copies are read and verified; they must agree except for the
 * fields that name the copy (hdr.index, hdr.blkaddr, crc).
 *
 * Usage: sbdump IMAGE      exit 0 both copies valid, 1 otherwise
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gaze_core.h"
#include "gaze_util.h"

static int
read_block(int fd, u64 blk, void *buf)
{
	ssize_t n = pread(fd, buf, GAZE_BLOCK_SIZE, (off_t)(blk * GAZE_BLOCK_SIZE));

	return n == (ssize_t)GAZE_BLOCK_SIZE ? 0 : -1;
}

static void
print_str(const char *key, const char *s, size_t max)
{
	printf("%s=%.*s\n", key, (int)strnlen(s, max), s);
}

static void
dump(const struct gaze_super *sb)
{
	char uuid[GAZE_UUID_STR_LEN], feat[256];
	int t;

	gaze_uuid_unparse(sb->hdr.uuid, uuid);
	printf("uuid=%s\n", uuid);
	print_str("label", sb->label, sizeof(sb->label));
	print_str("mkfs_version", sb->mkfs_version, sizeof(sb->mkfs_version));
	gaze_fmt_feature_string(le64_to_cpu(sb->feature_compat),
				le64_to_cpu(sb->feature_ro_compat),
				le64_to_cpu(sb->feature_incompat), feat,
				sizeof(feat));
	printf("features=%s\n", feat);
	printf("zone_model=%u\n", le32_to_cpu(sb->zone_model));
	printf("total_blocks=%" PRIu64 "\n", le64_to_cpu(sb->total_blocks));
	printf("zone_blocks=%u\n", le32_to_cpu(sb->zone_blocks));
	printf("zone_cap=%u\n", le32_to_cpu(sb->zone_cap));
	printf("nr_zones=%u\n", le32_to_cpu(sb->nr_zones));
	printf("max_open=%u\n", le32_to_cpu(sb->max_open));
	printf("max_active=%u\n", le32_to_cpu(sb->max_active));
	printf("meta_zone_count=%u\n", le32_to_cpu(sb->meta_zone_count));
	printf("main_zone_count=%u\n", le32_to_cpu(sb->main_zone_count));
	printf("ovp_zones=%u\n", le32_to_cpu(sb->ovp_zones));
	printf("reserved_zones=%u\n", le32_to_cpu(sb->reserved_zones));
	printf("ovp_percent=%u\n", le32_to_cpu(sb->ovp_percent));
	printf("nr_logs=%u\n", le32_to_cpu(sb->nr_logs));
	printf("user_blocks=%" PRIu64 "\n", le64_to_cpu(sb->user_blocks));
	printf("gc_pool_blocks=%" PRIu64 "\n", le64_to_cpu(sb->gc_pool_blocks));
	printf("dirty_limit_pct=%u\n", le32_to_cpu(sb->dirty_limit_pct));
	printf("gc_queue_depth=%u\n", le32_to_cpu(sb->gc_queue_depth));
	printf("compress_algo=%u\n", sb->compress_algo);
	printf("compress_level=%u\n", sb->compress_level);
	printf("compress_log_cluster=%u\n", sb->compress_log_cluster);
	printf("mkfs_time=%" PRIu64 "\n", le64_to_cpu(sb->mkfs_time));
	for (t = 0; t < GAZE_NR_TABLES; t++)
		printf("table%d_blocks=%u\n", t,
		       le32_to_cpu(sb->table_blocks[t]));
}

int
main(int argc, char **argv)
{
	struct gaze_super *sb0 = NULL, *sb1 = NULL;
	const char *why = NULL;
	int fd, ret = 1;
	u64 zb;

	if (argc != 2) {
		fprintf(stderr, "usage: sbdump IMAGE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	sb0 = malloc(GAZE_BLOCK_SIZE);
	sb1 = malloc(GAZE_BLOCK_SIZE);
	if (!sb0 || !sb1)
		goto out_free;
	if (read_block(fd, 0, sb0)) {
		fprintf(stderr, "sbdump: %s: cannot read block 0\n", argv[1]);
		goto out_free;
	}
	if (gaze_fmt_super_verify(sb0, 0, &why)) {
		fprintf(stderr, "sbdump: %s: primary superblock: %s\n", argv[1],
			why ? why : "invalid");
		goto out_free;
	}
	zb = le32_to_cpu(sb0->zone_blocks);
	if (read_block(fd, zb, sb1)) {
		fprintf(stderr, "sbdump: %s: cannot read block %" PRIu64 "\n",
			argv[1], zb);
		goto out_free;
	}
	why = NULL;
	if (gaze_fmt_super_verify(sb1, zb, &why)) {
		fprintf(stderr, "sbdump: %s: secondary superblock: %s\n",
			argv[1], why ? why : "invalid");
		goto out_free;
	}
	/* the copies differ only in their headers */
	if (memcmp((char *)sb0 + sizeof(sb0->hdr), (char *)sb1 +
		   sizeof(sb1->hdr), GAZE_BLOCK_SIZE - sizeof(sb0->hdr)) ||
	    memcmp(sb0->hdr.uuid, sb1->hdr.uuid, sizeof(sb0->hdr.uuid))) {
		fprintf(stderr, "sbdump: %s: superblock copies differ\n",
			argv[1]);
		goto out_free;
	}
	dump(sb0);
	ret = 0;
out_free:
	free(sb0);
	free(sb1);
	close(fd);
	return ret;
}
