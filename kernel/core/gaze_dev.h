/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gaze_dev.h - the zone device as the shared core sees it: an ops table
 * handed to the core by its host (the module's bio layer, or one of the
 * userspace backends in lib/zdev/).  Units are 4 KiB filesystem blocks;
 * zone numbers are absolute.  Every op returns 0 or a negative errno.
 */
#ifndef GAZE_DEV_H
#define GAZE_DEV_H

#include "gaze_env.h"

/* gaze_zone.type */
#define GAZE_ZT_CONV		1	/* conventional: random writes allowed */
#define GAZE_ZT_SEQ		2	/* sequential write required */

/* gaze_zone.cond */
#define GAZE_ZC_EMPTY		1
#define GAZE_ZC_IMP_OPEN	2
#define GAZE_ZC_EXP_OPEN	3
#define GAZE_ZC_CLOSED		4
#define GAZE_ZC_FULL		5
#define GAZE_ZC_READONLY	6
#define GAZE_ZC_OFFLINE		7
#define GAZE_ZC_NOT_WP		8	/* conventional zone */

struct gaze_zone {
	u64	start;		/* first block */
	u64	len;		/* zone size in blocks */
	u64	cap;		/* writable blocks */
	u64	wp;		/* write pointer (absolute block); start+len if n/a */
	u8	type;		/* GAZE_ZT_* */
	u8	cond;		/* GAZE_ZC_* */
};

struct gaze_dev;

struct gaze_dev_ops {
	int (*read)(struct gaze_dev *d, u64 blk, u32 nr, void *buf);
	/* sequential zones: blk must equal the zone's write pointer */
	int (*write)(struct gaze_dev *d, u64 blk, u32 nr, const void *buf);
	/* optional (NULL if unsupported): writes at the wp, returns where */
	int (*append)(struct gaze_dev *d, u32 zone, u32 nr, const void *buf,
		      u64 *blk);
	/* fills up to nr zones starting at zone; returns count or -errno */
	int (*report)(struct gaze_dev *d, u32 zone, u32 nr,
		      struct gaze_zone *z);
	int (*reset)(struct gaze_dev *d, u32 zone, u32 nr);
	int (*finish)(struct gaze_dev *d, u32 zone);
	int (*flush)(struct gaze_dev *d);
};

struct gaze_dev {
	const struct gaze_dev_ops *ops;
	u64	nr_blocks;	/* whole device, in 4 KiB blocks */
	u32	zone_blocks;	/* zone size */
	u32	zone_cap;	/* smallest capacity among sequential zones */
	u32	nr_zones;	/* whole zones on the device */
	u32	nr_conv;	/* conventional zones */
	u32	max_open;	/* 0 = no limit */
	u32	max_active;	/* 0 = no limit */
	u32	model;		/* GAZE_ZM_* (gaze_format.h) */
	u32	lbs;		/* logical block size of the device, bytes */
	void	*priv;		/* backend state */
};

#endif /* GAZE_DEV_H */
