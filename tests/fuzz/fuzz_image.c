// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_image.c - libFuzzer harness: a whole small image, mutated, opened
 * read-only and walked.
 *
 * Input: the compact image form of fuzz_image.h (seeds come from
 * mkfs.gaze -d through img2seed, see build.sh).  Every block that starts
 * with a GAZE metadata magic gets its crc recomputed, so mutations reach
 * the code behind the checksums.  The blocks are written into a RAM ZNS
 * emulator of the image's size (each zone up to its last non-zero block),
 * then gaze_fs_open(GAZE_FS_RDONLY) and, if that succeeds, a walk of the
 * whole namespace: readdir, lookup, getattr, read, readlink, xattr list
 * and get, with bounded depth, entries and bytes so that a corrupt image
 * (a directory cycle, a huge size) cannot make the harness itself loop.
 * Errors are fine; a crash, a sanitizer report or a hang is a finding.
 */
#include "gaze_core.h"
#include "gaze_zdev.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_image.h"

#define WALK_MAX_DEPTH	12
#define WALK_MAX_INODES	2000
#define WALK_MAX_ENTS	256
#define READ_MAX	(256u << 10)

static const u32 meta_magics[] = {
	GAZE_MAGIC_SB, GAZE_MAGIC_CP_HEAD, GAZE_MAGIC_CP_PAYLOAD,
	GAZE_MAGIC_CP_TRAIL, GAZE_MAGIC_TINDEX, GAZE_MAGIC_IMAP,
	GAZE_MAGIC_ZINFO, GAZE_MAGIC_USAGE, GAZE_MAGIC_SUMMARY,
	GAZE_MAGIC_INODE, GAZE_MAGIC_DNODE, GAZE_MAGIC_INODE_IND,
	GAZE_MAGIC_XATTR, GAZE_MAGIC_DIR_BUCKET, GAZE_MAGIC_DIR_INDEX,
};

struct walk {
	struct gaze_fs *fs;
	u32	seen[WALK_MAX_INODES];
	u32	nseen;
	u8	*buf;
};

struct ents {
	char	name[WALK_MAX_ENTS][256];
	u32	ino[WALK_MAX_ENTS];
	u32	n;
};

static int
ents_fill(void *ctx, const char *name, u32 len, u32 ino, u8 dt, u64 cookie)
{
	struct ents *e = ctx;

	(void)dt;
	(void)cookie;
	if (e->n >= WALK_MAX_ENTS)
		return 1;
	if (len > 255)
		__builtin_trap();	/* readdir must never hand out more */
	memcpy(e->name[e->n], name, len);
	e->name[e->n][len] = 0;
	e->ino[e->n++] = ino;
	return 0;
}

static bool
walk_seen(struct walk *w, u32 ino)
{
	u32 i;

	for (i = 0; i < w->nseen; i++)
		if (w->seen[i] == ino)
			return true;
	if (w->nseen < WALK_MAX_INODES)
		w->seen[w->nseen++] = ino;
	return false;
}

static void
walk_inode(struct walk *w, u32 ino, int depth)
{
	struct gaze_fs *fs = w->fs;
	struct gaze_attr a;
	struct ents *e;
	char list[4096];
	u64 pos, off;
	int len, p, i;

	if (depth > WALK_MAX_DEPTH || w->nseen >= WALK_MAX_INODES ||
	    walk_seen(w, ino))
		return;
	if (gaze_ns_getattr(fs, ino, &a))
		return;
	len = gaze_xattr_list(fs, ino, list, sizeof(list));
	for (p = 0; len > 0 && p < len; p += strlen(list + p) + 1) {
		if (!memchr(list + p, 0, len - p))
			__builtin_trap();	/* unterminated name */
		gaze_xattr_get(fs, ino, list + p, w->buf, 65536);
	}
	if (GAZE_S_ISREG(a.mode)) {
		for (off = 0; off < a.size && off < READ_MAX; off += 65536)
			gaze_file_read(fs, ino, w->buf, 65536, off);
		if (a.size > 100)
			gaze_file_read(fs, ino, w->buf, 100, a.size - 100);
		return;
	}
	if (GAZE_S_ISLNK(a.mode)) {
		gaze_ns_readlink(fs, ino, (char *)w->buf, GAZE_SYMLINK_MAX + 1);
		return;
	}
	if (!GAZE_S_ISDIR(a.mode))
		return;
	e = malloc(sizeof(*e));
	if (!e)
		return;
	e->n = 0;
	pos = 0;
	gaze_ns_readdir(fs, ino, &pos, ents_fill, e);
	for (i = 0; i < (int)e->n; i++) {
		u32 got;
		u8 dt;

		if (!strcmp(e->name[i], ".") || !strcmp(e->name[i], ".."))
			continue;
		gaze_ns_lookup(fs, ino, e->name[i], strlen(e->name[i]), &got,
			       &dt);
		walk_inode(w, e->ino[i], depth + 1);
	}
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 *blocks[FZ_MAX_ZONES * FZ_ZONE_BLOCKS];
	static u8 zero[FZ_BLOCK];
	struct gaze_emu_opts eo;
	struct gaze_dev *dev = NULL;
	struct gaze_fs *fs = NULL;
	struct fz_head h;
	struct walk *w;
	u32 nblk, z, b, last, k;
	size_t pos;
	int err;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	if (h.magic != FZ_MAGIC || h.nr_zones < 16 || h.nr_zones > FZ_MAX_ZONES)
		return 0;
	nblk = h.nr_zones * FZ_ZONE_BLOCKS;
	memset(blocks, 0, sizeof(blocks));
	for (pos = sizeof(h); pos + 4 + FZ_BLOCK <= size; pos += 4 + FZ_BLOCK) {
		u32 bn;
		u8 *blk;

		memcpy(&bn, data + pos, 4);
		if (bn >= nblk)
			continue;
		blk = malloc(FZ_BLOCK);
		if (!blk)
			goto out;
		memcpy(blk, data + pos + 4, FZ_BLOCK);
		for (k = 0; k < ARRAY_SIZE(meta_magics); k++)
			if (le32_to_cpu(((struct gaze_mhdr *)blk)->magic) ==
			    meta_magics[k])
				gaze_fmt_csum_set(blk);
		free(blocks[bn]);
		blocks[bn] = blk;
	}
	memset(&eo, 0, sizeof(eo));
	eo.nr_zones = h.nr_zones;
	eo.zone_blocks = FZ_ZONE_BLOCKS;
	if (gaze_emu_create(&eo, &dev))
		goto out;
	for (z = 0; z < h.nr_zones; z++) {
		last = 0;
		for (b = 0; b < FZ_ZONE_BLOCKS; b++)
			if (blocks[z * FZ_ZONE_BLOCKS + b])
				last = b + 1;
		for (b = 0; b < last; b++) {
			u8 *blk = blocks[z * FZ_ZONE_BLOCKS + b];

			if (dev->ops->write(dev, (u64)z * FZ_ZONE_BLOCKS + b, 1,
					    blk ? blk : zero))
				__builtin_trap();	/* harness bug */
		}
	}
	err = gaze_fs_open(dev, GAZE_FS_RDONLY, &fs);
	if (!err) {
		w = calloc(1, sizeof(*w));
		if (w) {
			w->fs = fs;
			w->buf = malloc(65536);
			if (w->buf)
				walk_inode(w, GAZE_ROOT_INO, 0);
			if (getenv("GAZE_FUZZ_VERBOSE"))
				fprintf(stderr, "fuzz_image: walked %u inodes\n",
					w->nseen);
			free(w->buf);
			free(w);
		}
		gaze_fs_close(fs);
	} else if (getenv("GAZE_FUZZ_VERBOSE")) {
		fprintf(stderr, "fuzz_image: open: %d\n", err);
	}
out:
	gaze_dev_close(dev);
	for (b = 0; b < nblk; b++) {
		free(blocks[b]);
		blocks[b] = NULL;
	}
	return 0;
}
