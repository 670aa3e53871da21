/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zdev_int.h - what the backends in lib/zdev/ share and nobody else sees.
 *
 * Why: the emulator and the emulated-zone file backend must apply exactly
 * the same zone rules, so the zone state machine lives here once (zsm.c);
 * the file and zbd backends share the pread/pwrite loop with O_DIRECT
 * bounce buffers (io.c); and gaze_dev_close() needs a way to find each
 * backend's destructor without widening struct gaze_dev_ops.
 */
#ifndef GAZE_ZDEV_INT_H
#define GAZE_ZDEV_INT_H

#include "gaze_zdev.h"

#define GAZE_ZDEV_BLOCK		4096u

/*
 * First member of every backend's private struct (gaze_dev.priv points to
 * it).  destroy releases everything, the struct gaze_dev included.
 */
struct gaze_zdev_priv {
	void	(*destroy)(struct gaze_dev *d);
};

/* ---------------------------------------------------------------- */
/* zsm.c - zone state machine.  Not locked: callers hold their own   */
/* device lock around every call.                                    */
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

/* ---------------------------------------------------------------- */
/* io.c                                                              */
/* ---------------------------------------------------------------- */
/*
 * Whole-buffer pread/pwrite: retries short transfers and EINTR; with
 * direct set and a buffer not 4096-aligned, goes through an aligned
 * bounce buffer.  Reaching end of file is -EIO.
 */
int gaze_zdev_pio(int fd, bool write, void *buf, size_t len, u64 off,
		  bool direct);

/* ---------------------------------------------------------------- */
/* Backend constructors (open.c dispatches).                         */
/* ---------------------------------------------------------------- */
int gaze_zdev_file_open(const char *path, bool blkdev,
			const struct gaze_dev_open_opts *o,
			struct gaze_dev **out);
int gaze_zdev_zbd_open(const char *path, const struct gaze_dev_open_opts *o,
		       struct gaze_dev **out);

#endif /* GAZE_ZDEV_INT_H */
