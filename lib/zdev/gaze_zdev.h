/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gaze_zdev.h - zone devices for the userspace tools and tests.
 *
 * Why: the shared core talks to storage only through struct gaze_dev_ops
 * (kernel/core/gaze_dev.h).  Userspace needs three hosts for that table:
 *
 *   emu.c   a test emulator (RAM or file backed) that enforces NVMe ZNS
 *           zone rules strictly and models power cuts, so crash and stress
 *           tests can run without hardware;
 *   file.c  regular files and regular block devices with emulated zones
 *           (GAZE_ZM_EMULATED), which still enforce a write pointer on
 *           every zone reset in this session so sequential-write bugs show
 *           up on plain images too;
 *   zbd.c   real zoned block devices (ZNS, host-managed SMR) via libzbd.
 *
 * gaze_dev_open() picks the right one for a path; gaze_dev_close() closes
 * any of them, the emulator included.  Every function returns 0 or a
 * negative errno unless it says otherwise.
 *
 * Thread safety: every backend may be used from many threads at once.
 */
#ifndef GAZE_ZDEV_H
#define GAZE_ZDEV_H

#include "gaze_env.h"
#include "gaze_dev.h"
#include "gaze_format.h"	/* GAZE_ZM_* */

/* ---------------------------------------------------------------- */
/* Test emulator (emu.c).                                            */
/*                                                                   */
/* Model: GAZE_ZM_HOST_MANAGED, logical block size 4096.             */
/* Zone rules (NVMe ZNS):                                            */
/*  - writes to a sequential zone must start at its write pointer,   */
/*    stay inside the zone and not pass its capacity, else -EIO;     */
/*    writing the last block of the capacity makes the zone FULL;    */
/*    a write to a FULL zone is -EIO;                                */
/*  - the first write to an EMPTY or CLOSED zone opens it implicitly; */
/*    when max_open zones are already open, the least recently       */
/*    written implicitly open zone is closed first; a write that     */
/*    would need more than max_active active (open + closed) zones   */
/*    fails with -EIO;                                               */
/*  - reads never fail for zone reasons: blocks past a sequential    */
/*    zone's write pointer (and past its capacity) read as zeros;    */
/*  - reset (-> EMPTY, data dropped) and finish (-> FULL) of a       */
/*    conventional zone are -EIO; a request past the device is       */
/*    -EINVAL;                                                       */
/*  - writes may span zones only when every zone touched is          */
/*    conventional.                                                  */
/* ---------------------------------------------------------------- */
struct gaze_emu_opts {
	u32	nr_zones;
	u32	zone_blocks;	/* zone size, 4 KiB blocks */
	u32	zone_cap;	/* writable blocks, <= zone_blocks; 0 = size */
	u32	nr_conv;	/* leading conventional zones */
	u32	max_open;	/* 0 = unlimited */
	u32	max_active;	/* 0 = unlimited */
	/*
	 * NULL: RAM, a zone's memory is mapped on its first write and
	 * unmapped on reset (a 1 TiB emulator costs only what is written).
	 * Otherwise a file, created or extended sparse; data lives in the
	 * file, zone state in memory only (reopening is not supported).
	 */
	const char *backing;
	bool	no_append;	/* ops->append = NULL */
};

int gaze_emu_create(const struct gaze_emu_opts *o, struct gaze_dev **out);

/*
 * Power cut.  flush makes every completed write durable; zone reset and
 * finish are durable when they return.  A cut keeps, in each sequential
 * zone, a prefix of the writes made since the last flush: its length is
 * drawn from seed, uniformly in a range whose mean is keep_pct% of the
 * unflushed blocks (100: keep all, 50: uniform over [0, all], 0: keep
 * none).  Dropped blocks read back as zeros and the write pointer moves
 * back.  In conventional zones each block written since the last flush
 * is independently kept (probability keep_pct%) or reverted to its
 * content at the last flush.  Afterwards, as after a controller reset,
 * no zone is open: open zones holding data are CLOSED, without data
 * EMPTY; zones made FULL by writing whose tail was dropped are CLOSED.
 * The same seed on the same history gives the same result.
 */
void gaze_emu_power_cut(struct gaze_dev *d, u64 seed, unsigned int keep_pct);

/* Successful operations only; writes do not include appends. */
struct gaze_emu_stats {
	u64	reads, writes, appends, resets, finishes, flushes;
	u64	blocks_read, blocks_written;	/* written includes appends */
};
void gaze_emu_stats(struct gaze_dev *d, struct gaze_emu_stats *s);

/*
 * Fault injection: the nth_write-th following write or append (1-based)
 * and the nth_read-th following read fail with -EIO, changing nothing;
 * each fires once.  0 disables.
 */
void gaze_emu_fail_after(struct gaze_dev *d, u64 nth_write, u64 nth_read);

/* ---------------------------------------------------------------- */
/* Opening a path (open.c, file.c, zbd.c).                           */
/* ---------------------------------------------------------------- */
struct gaze_dev_open_opts {
	u32	zone_blocks;	/* emulated zones: size in blocks, 0 = default */
	bool	rdonly;		/* write, reset and finish fail with -EROFS */
	bool	excl;		/* block devices: O_EXCL, -EBUSY when in use */
	bool	direct;		/* O_DIRECT where possible (always on zoned) */
	u32	max_open;	/* emulated: limit to enforce and report (0 =
				 * none); zoned: may only lower the device's */
	bool	lock;		/* regular files: gaze_dev_lock() on the
				 * descriptor, shared when rdonly, else
				 * exclusive; -EWOULDBLOCK when held */
};

/*
 * Opens a zoned block device (libzbd), a regular block device or a
 * regular file (emulated zones, see file.c).  Other file types: -ENOTBLK.
 */
int gaze_dev_open(const char *path, const struct gaze_dev_open_opts *o,
		  struct gaze_dev **out);
void gaze_dev_close(struct gaze_dev *d);	/* any backend; NULL is a no-op */

/*
 * Image files have no O_EXCL: two programs writing one image at once
 * leave a filesystem neither of them made.  So the tools that write an
 * image (mkfs.gaze for its whole run, fsck.gaze -p/-y) hold an exclusive
 * flock(2) on it and the readers (fsck.gaze -n, gazectl) a shared one,
 * never waiting.  Returns 0, -EWOULDBLOCK when another process holds a
 * conflicting lock, or another negative errno.  A filesystem that cannot
 * lock (ENOLCK, EOPNOTSUPP: some NFS and FUSE mounts) counts as success:
 * the lock is a safety net, not a requirement.
 */
int gaze_dev_lock(int fd, bool excl);

/*
 * The geometry the file backend gives a regular file or disk of bytes
 * bytes with o's zone size and open-zone limit, without opening
 * anything: mkfs.gaze -s computes the layout of an image before it
 * creates or resizes the file.  Fills the geometry fields of *d (not
 * ops, lbs or priv).  -EINVAL when bytes cannot hold one zone.
 */
int gaze_zdev_file_geometry(u64 bytes, const struct gaze_dev_open_opts *o,
			    struct gaze_dev *d);

/*
 * Default emulated zone size for a device of the given size: 256 MiB from
 * 64 GiB up, 64 MiB from 4 GiB up, else the largest power of two giving at
 * least 32 zones, clamped to [1 MiB, 16 MiB].  In 4 KiB blocks.
 */
u32 gaze_zdev_default_zone_blocks(u64 bytes);

/* "host-managed zoned", "emulated zones", or "unknown" */
const char *gaze_zdev_model_name(u32 model);

#endif /* GAZE_ZDEV_H */
