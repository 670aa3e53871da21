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
	/*
	 * optional (NULL: the core goes block by block): nr consecutive
	 * blocks from/to nr separate GAZE_BLOCK_SIZE buffers (the GC's
	 * pages), one request; writev follows write's zone rules
	 */
	int (*readv)(struct gaze_dev *d, u64 blk, u32 nr, void *const *bufs);
	int (*writev)(struct gaze_dev *d, u64 blk, u32 nr, void *const *bufs);
	/*
	 * optional: the data of a conventional zone, or of any zone of an
	 * emulated device, is not needed any more (FITRIM; a zoned device's
	 * sequential zones are reset instead): its blocks are discarded, and
	 * an emulated zone is then empty and sequential as after a reset.
	 * -EOPNOTSUPP when the device cannot discard.  NULL: sequential
	 * zones are reset, conventional ones left alone.
	 */
	int (*discard)(struct gaze_dev *d, u32 zone);
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

/* ---------------------------------------------------------------- */
/* zsm.c - the ZNS zone rules, for backends that emulate zones: the  */
/* userspace emulator and file backend, and the module on regular    */
/* disks.  Not locked: callers hold their device lock around calls.  */
/* ---------------------------------------------------------------- */
struct gaze_zsm_zone {
	struct list_head lru;	/* on gaze_zsm.open_lru while IMP_OPEN */
	u32	wp;		/* blocks holding data, from the zone start */
	u8	type;		/* GAZE_ZT_* */
	u8	cond;		/* GAZE_ZC_* */
	u8	finished;	/* FULL by finish rather than by writing */
	u8	pad;
};

struct gaze_zsm {
	struct gaze_zsm_zone *zones;
	struct list_head open_lru;	/* IMP_OPEN, least recently written first */
	u32	nr_zones;
	u32	zone_blocks;
	u32	zone_cap;		/* capacity of sequential zones */
	u32	max_open;		/* 0 = no limit */
	u32	max_active;		/* 0 = no limit */
	u32	nr_open;		/* IMP_OPEN zones */
	u32	nr_active;		/* IMP_OPEN + CLOSED zones */
};

/* Zones [0, nr_conv) conventional (NOT_WP), the rest sequential EMPTY. */
int gaze_zsm_init(struct gaze_zsm *m, u32 nr_zones, u32 zone_blocks,
		  u32 zone_cap, u32 nr_conv, u32 max_open, u32 max_active);
void gaze_zsm_destroy(struct gaze_zsm *m);
/* -EINVAL unless [blk, blk + nr) lies inside the zones */
int gaze_zsm_range(const struct gaze_zsm *m, u64 blk, u64 nr);
/* Checks a write and opens its zone; -EIO on a zone rule violation. */
int gaze_zsm_write_prep(struct gaze_zsm *m, u64 blk, u32 nr);
/* Advances the write pointer after a successful write_prep + write. */
void gaze_zsm_write_done(struct gaze_zsm *m, u64 blk, u32 nr);
/* Blocks readable from the zone start (the rest reads as zeros). */
u32 gaze_zsm_valid(const struct gaze_zsm *m, u32 zone);
int gaze_zsm_reset(struct gaze_zsm *m, u32 zone);
int gaze_zsm_finish(struct gaze_zsm *m, u32 zone);
/* Turns a conventional zone into an EMPTY sequential one. */
void gaze_zsm_make_seq(struct gaze_zsm *m, u32 zone);
void gaze_zsm_report(const struct gaze_zsm *m, u32 zone, struct gaze_zone *z);
/* Power loss: the zone keeps wp blocks (<= current), nothing stays open. */
void gaze_zsm_cut(struct gaze_zsm *m, u32 zone, u32 wp);

#endif /* GAZE_DEV_H */
