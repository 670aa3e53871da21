// SPDX-License-Identifier: GPL-2.0
/*
 * img2seed.c - turns an image made by mkfs.gaze -z 1M into the compact
 * input of fuzz_image (fuzz_image.h): only the non-zero blocks.
 *
 *   img2seed IMAGE OUT [DIR]
 *
 * With DIR, also writes each metadata block as a fuzz_format seed
 * (selector byte, table byte, then the block) named DIR/<magic>-<n>.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_image.h"

/* fuzz_format selectors by magic (see fuzz_format.c) */
static const struct { unsigned int magic; int sel, table; } fmt_sel[] = {
	{ 0x455a4147u, 0, 0 }, { 0x48504347u, 1, 0 }, { 0x444f4e49u, 2, 0 },
	{ 0x444f4e44u, 3, 0 }, { 0x444e4e49u, 4, 0 }, { 0x52545841u, 5, 0 },
	{ 0x4b435544u, 6, 0 }, { 0x58444944u, 7, 0 }, { 0x50414d49u, 8, 0 },
	{ 0x464e495au, 8, 1 }, { 0x45475355u, 8, 2 }, { 0x4d4d5553u, 8, 3 },
};

static void
fmt_seed(const char *dir, const unsigned char *blk)
{
	static unsigned int count[sizeof(fmt_sel) / sizeof(fmt_sel[0])];
	unsigned int magic, i;
	unsigned char sel[2];
	char path[4096];
	FILE *f;

	memcpy(&magic, blk, 4);
	for (i = 0; i < sizeof(fmt_sel) / sizeof(fmt_sel[0]); i++) {
		if (fmt_sel[i].magic != magic || count[i] >= 3)
			continue;
		snprintf(path, sizeof(path), "%s/%08x-%u", dir, magic,
			 count[i]++);
		f = fopen(path, "wb");
		if (!f)
			return;
		sel[0] = (unsigned char)fmt_sel[i].sel;
		sel[1] = (unsigned char)fmt_sel[i].table;
		fwrite(sel, 2, 1, f);
		fwrite(blk, FZ_BLOCK, 1, f);
		fclose(f);
	}
}

int
main(int argc, char **argv)
{
	static unsigned char blk[FZ_BLOCK], zero[FZ_BLOCK];
	struct fz_head h;
	FILE *in, *out;
	unsigned int n = 0, kept = 0;
	long size;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: img2seed IMAGE OUT [DIR]\n");
		return 2;
	}
	in = fopen(argv[1], "rb");
	out = fopen(argv[2], "wb");
	if (!in || !out) {
		perror("img2seed");
		return 1;
	}
	fseek(in, 0, SEEK_END);
	size = ftell(in);
	rewind(in);
	memset(&h, 0, sizeof(h));
	h.magic = FZ_MAGIC;
	h.nr_zones = (unsigned int)(size / (FZ_ZONE_BLOCKS * FZ_BLOCK));
	if (h.nr_zones > FZ_MAX_ZONES) {
		fprintf(stderr, "img2seed: image larger than %u MiB\n",
			FZ_MAX_ZONES);
		return 1;
	}
	fwrite(&h, sizeof(h), 1, out);
	while (fread(blk, FZ_BLOCK, 1, in) == 1) {
		if (memcmp(blk, zero, FZ_BLOCK)) {
			fwrite(&n, sizeof(n), 1, out);
			fwrite(blk, FZ_BLOCK, 1, out);
			kept++;
			if (argc == 4)
				fmt_seed(argv[3], blk);
		}
		n++;
	}
	if (fclose(out)) {
		perror("img2seed");
		return 1;
	}
	fclose(in);
	printf("img2seed: %u of %u blocks\n", kept, n);
	return 0;
}
