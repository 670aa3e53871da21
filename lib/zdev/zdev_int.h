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
