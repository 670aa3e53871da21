/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_image.h - the compact image form the whole-image harness reads and
 * img2seed writes: a 16-byte header, then one record per non-zero block.
 */
#ifndef GAZE_FUZZ_IMAGE_H
#define GAZE_FUZZ_IMAGE_H

#define FZ_MAGIC	0x495a4647u	/* "GFZI" */
#define FZ_ZONE_BLOCKS	256u		/* 1 MiB zones */
#define FZ_MAX_ZONES	64u
#define FZ_BLOCK	4096u

struct fz_head {
	unsigned int	magic;		/* little-endian, like the records */
	unsigned int	nr_zones;	/* image size / 1 MiB */
	unsigned int	zero[2];
};

struct fz_rec {
	unsigned int	blk;		/* block number in the image */
	/* FZ_BLOCK bytes follow */
};

#endif
