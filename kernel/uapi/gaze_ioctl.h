/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gaze_ioctl.h - the ioctls of a mounted GAZE filesystem (userspace API).
 *
 * Issued on any open file or directory of the filesystem (gazectl opens
 * the mount point).  Installed as <gaze/gaze_ioctl.h>.
 *
 * Versioning rules, the same for every ioctl:
 *   - each argument struct starts with `version` and `flags`; the caller
 *     sets version to GAZE_IOC_VERSION (today 1).  A kernel that does not
 *     know the version fails with EINVAL, so a tool can fall back.
 *   - flags the kernel does not know, and any reserved field that is not
 *     zero on input, fail with EINVAL: new meanings can be given to them
 *     later without old kernels silently ignoring them.
 *   - the structs have fixed sizes (checked by the _IOWR size) and only
 *     grow by using reserved fields; a larger change is a new ioctl
 *     number.
 * Counters are totals since mount (or since the last reset); times are
 * nanoseconds.
 */
#ifndef GAZE_IOCTL_H
#define GAZE_IOCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define GAZE_IOC_VERSION	1
#define GAZE_IOC_MAGIC		0xb7

/* ---- GAZE_IOC_INFO: geometry, features, options, space ---------------- */
#define GAZE_INFO_BG_OFF	0
#define GAZE_INFO_BG_ON		1
#define GAZE_INFO_BG_SYNC	2

/* gaze_ioc_info.read_fallback[]: why a read took the normal path */
#define GAZE_RF_LONG		0	/* longer than 256 bytes, crosses a page, O_DIRECT */
#define GAZE_RF_MISS		1	/* page not cached or not uptodate */
#define GAZE_RF_EOF		2	/* reaches past i_size */
#define GAZE_RF_RACE		3	/* the page changed under the copy */
#define GAZE_RF_FAULT		4	/* a copy faulted */
#define GAZE_RF_OTHER		5	/* large or highmem folio */
#define GAZE_RF_REASONS		6

struct gaze_ioc_info {
	__u32	version;		/* in: GAZE_IOC_VERSION */
	__u32	flags;			/* in: 0 */
	__u64	reserved_in[2];		/* in: 0 */
	/* geometry */
	__u32	block_size;
	__u32	zone_blocks;		/* blocks per zone (zone size) */
	__u32	zone_cap;		/* writable blocks per zone */
	__u32	nr_zones;		/* zones the filesystem uses */
	__u32	main_zone_start, main_zone_count;
	__u32	reserved_zones;		/* GC reserve (not for users) */
	__u32	nr_logs;
	__u32	max_open, max_active;	/* device limits, 0 = none */
	__u32	zoned;			/* 1 = a zoned device, 0 = emulated */
	__u32	pad0;
	/* format */
	__u64	feature_compat, feature_ro_compat, feature_incompat;
	__u8	uuid[16];
	char	label[64];		/* NUL padded */
	__u64	cp_seq;			/* last committed checkpoint */
	/* options */
	__u32	errors;			/* 0 continue, 1 remount-ro, 2 panic */
	__u32	background_gc;		/* GAZE_INFO_BG_* */
	__u32	discard;
	__u32	victim_policy;		/* 0 greedy, 1 cost-benefit */
	/* space, in blocks */
	__u64	user_blocks;		/* advertised capacity */
	__u64	valid_blocks;		/* live data and metadata */
	__u64	free_now;		/* writable without reclaim */
	__u64	freeable;		/* invalid blocks GC can reclaim */
	__u64	reserved_blocks;	/* the GC reserve */
	__u64	unusable;		/* freed, waiting for a checkpoint */
	__u32	free_zones, full_zones, open_zones, prefree_zones;
	__u64	valid_inodes;
	/* fsync since the mount (or remount read-write); older modules
	 * leave these 0 (they were reserved_out) */
	__u64	fsyncs_rollforward;	/* made durable without a checkpoint */
	__u64	fsyncs_checkpoint;	/* that wrote a checkpoint */
	__u64	replayed_nodes;		/* nodes the mount rolled forward */
	/* reads without a folio reference (read_fastpath=on): the switch
	 * now, reads served, and reads sent to the normal path by reason
	 * (GAZE_RF_*); older modules leave these 0 (they were reserved_out) */
	__u32	read_fastpath;		/* 0 off, 1 on */
	__u32	pad1;
	__u64	read_fast_hits;
	__u64	read_fallback[GAZE_RF_REASONS];
	/* compression (older modules leave these 0; they were
	 * reserved_out): blocks of data in compressed clusters and the
	 * blocks they take (ratio = logical / physical), and the
	 * filesystem's default for new files */
	__u64	compr_logical_blocks;
	__u64	compr_physical_blocks;
	__u8	compress_algo;		/* GAZE_COMPRESS_* of the format */
	__u8	compress_level;		/* 0: the algorithm's default */
	__u8	compress_log_cluster;	/* log2 blocks per cluster */
	/* writeback's compression on several CPUs: the tunable
	 * compress_cpu_pct, the CPUs it gives, and the clusters the module
	 * stored as it encoded them outside the filesystem lock (older
	 * modules leave these 0; they were padding and reserved_out) */
	__u8	compress_cpu_pct;
	__u32	compress_cpus;
	__u64	compr_parallel_clusters;
	/* clusters readahead read and decoded on the workqueue, next to
	 * the reading thread (older modules leave it 0: it was
	 * reserved_out) */
	__u64	compr_parallel_decoded;
};

/* ---- GAZE_IOC_GC_STATS: garbage collector counters ---------------------- */
#define GAZE_GC_STATS_RESET	0x1	/* zero the counters after reading */
#define GAZE_GC_STAGES		4	/* preread, read, prewrite, write */
#define GAZE_GC_HIST		32	/* reclaim time histogram, log2 us */
#define GAZE_GC_FREED		4	/* reclaims by share of a zone freed */

struct gaze_ioc_gc_stage {
	__u64	busy_ns;		/* working */
	__u64	wait_ns;		/* waiting for input or queue room */
	__u64	items;			/* blocks that went through */
	__u32	qdepth_max;		/* deepest its input queue got */
	__u32	pad;
};

struct gaze_ioc_gc_stats {
	__u32	version;		/* in: GAZE_IOC_VERSION */
	__u32	flags;			/* in: GAZE_GC_STATS_* */
	__u64	reserved_in[2];
	__u64	zones_reclaimed;
	__u64	zones_foreground;	/* reclaimed for want of space */
	__u64	blocks_moved;		/* valid blocks GC rewrote */
	__u64	blocks_user;		/* blocks written for users */
	__u64	reclaim_ns_total, reclaim_ns_max;	/* per reclaimed zone */
	/* reclaims by duration: bucket i counts [2^i, 2^(i+1)) us */
	__u64	reclaim_hist[GAZE_GC_HIST];
	struct gaze_ioc_gc_stage stage[GAZE_GC_STAGES];
	__u64	pool_blocks;		/* GC page pool size (0: no pool) */
	__u64	pool_used_max;
	__u64	writers_blocked, blocked_ns_total, blocked_ns_max;
	__u64	reserved_now;		/* blocks reserved by writers */
	__u32	pipeline;		/* mechanisms in use now (0/1) */
	__u32	pool;
	__u32	selective_blocking;
	__u32	pad;
	/* GC pages: time taking them (pool pop or page allocation), time
	 * spent inserting them into / removing them from the page cache
	 * (gc_pool=0 only), pages handed to GC */
	__u64	pool_alloc_ns, pool_cache_ns;
	__u64	pages_gc;
	__u64	pool_used;		/* pool pages in use now */
	/* blocks the pipeline's read stage read across gaps between the
	 * blocks it copies, to join them into one request (older modules
	 * leave it 0: it was reserved_out) */
	__u64	gap_blocks;
	/* reclaims by what they freed (the zone's capacity less the blocks
	 * they rewrote): < 1/8, < 1/4, < 1/2 and >= 1/2 of a zone; all of
	 * them, and those for writers short of space (foreground); and
	 * the foreground picks that found only victims below their least
	 * gain and moved nothing (older modules leave these 0) */
	__u64	freed[GAZE_GC_FREED];
	__u64	freed_fg[GAZE_GC_FREED];
	__u64	fg_declined;
	/* zones the baseline mover reclaimed (under fs->lock, a zone at a
	 * time), whatever the switches: the rest went through the stages */
	__u64	zones_mover;
	/* the longest time the baseline's foreground GC (a run inside an
	 * operation, or one step of a stepped run) or a background step
	 * held the filesystem's lock in one go; other tasks' writeback
	 * waits that long (older modules leave it 0: it was reserved_out) */
	__u64	gc_hold_ns_max;
};

/* ---- GAZE_IOC_TUNE: list, read and set tunables --------------------------- */
#define GAZE_TUNE_SET		0x1	/* set name = value (CAP_SYS_ADMIN) */
#define GAZE_TUNE_BY_INDEX	0x2	/* read entry `index` (ENOENT past end) */
#define GAZE_TUNE_NAME_MAX	32
#define GAZE_TUNE_HELP_MAX	96

struct gaze_ioc_tune {
	__u32	version;		/* in: GAZE_IOC_VERSION */
	__u32	flags;			/* in: GAZE_TUNE_* */
	__u32	index;			/* in: with GAZE_TUNE_BY_INDEX */
	__u32	pad;
	char	name[GAZE_TUNE_NAME_MAX];	/* in (by name) / out */
	__u64	value;			/* in with SET / out: current */
	__u64	min, max;		/* out: accepted range */
	char	help[GAZE_TUNE_HELP_MAX];	/* out: meaning, unit */
	__u64	reserved[4];
};

/* ---- GAZE_IOC_GC: reclaim now ------------------------------------------- */
#define GAZE_GC_ZONE		0x1	/* reclaim `zone`, not the best victim */
#define GAZE_GC_SYNC		0x2	/* checkpoint after, so the zone can be reused */

struct gaze_ioc_gc {
	__u32	version;		/* in: GAZE_IOC_VERSION */
	__u32	flags;			/* in: GAZE_GC_* */
	__u32	zone;			/* in with GAZE_GC_ZONE; out: the victim */
	__u32	pad;
	__u64	reserved_in[2];
	__u64	blocks_moved;		/* out */
	__u64	ns;			/* out: how long the reclaim took */
	__u64	reserved_out[4];
};

/*
 * ---- GAZE_IOC_SHUTDOWN: take the filesystem down as a crash would -------
 * The argument is a __u32 saying what is written first:
 *   GAZE_SHUTDOWN_DEFAULT     dirty data and a checkpoint (like sync)
 *   GAZE_SHUTDOWN_LOGFLUSH    a checkpoint only: dirty page-cache data is
 *                             lost
 *   GAZE_SHUTDOWN_NOLOGFLUSH  nothing: the device keeps the last checkpoint
 *                             and what fsync wrote after it
 * Afterwards the filesystem is read-only and nothing more is written to
 * the device, not even at unmount; the next mount starts from the last
 * checkpoint and replays what fsync wrote after it.  CAP_SYS_ADMIN.  The
 * number is the one XFS, ext4 and f2fs use ('X', 125), so
 * `xfs_io -x -c shutdown` works; it is not versioned.
 */
#define GAZE_IOC_SHUTDOWN	_IOR('X', 125, __u32)
#define GAZE_SHUTDOWN_DEFAULT		0
#define GAZE_SHUTDOWN_LOGFLUSH		1
#define GAZE_SHUTDOWN_NOLOGFLUSH	2

/* ---- GAZE_IOC_COMPRESS: how a file or directory compresses ------------- */
#define GAZE_COMPRESS_SET	0x1	/* in: set algo and level; else only read */
/* out, in flags: where the value comes from (as zfs get's SOURCE) */
#define GAZE_COMPRESS_SOURCE	0x100	/* the module reports GAZE_COMPRESS_LOCAL */
#define GAZE_COMPRESS_LOCAL	0x200	/* set on this inode (gazectl set,
					 * chattr +c/-c); else inherited from
					 * its directory (or for the root, the
					 * mkfs default or compress=) */

struct gaze_ioc_compress {
	__u32	version;		/* in: GAZE_IOC_VERSION */
	__u32	flags;			/* in: GAZE_COMPRESS_SET or 0;
					 * out: GAZE_COMPRESS_SOURCE and
					 * GAZE_COMPRESS_LOCAL if set */
	__u8	algo;			/* in (SET) and out: GAZE_COMPRESS_* of
					 * the format for new writes; 0 none */
	__u8	level;			/* in (SET) and out: 0 the default */
	__u8	log_cluster;		/* out: log2 blocks per cluster, 0 none */
	__u8	pad0[5];		/* in: 0 */
	__u64	compr_blocks;		/* out: blocks its clusters save */
	__u64	reserved[4];		/* in: 0 */
};

/* ---- GAZE_IOC_COUNTERS: event counters, an array that grows ------------ */
/*
 * counters[GAZE_CTR_*], totals since the mount (or remount read-write).
 * The kernel fills the first `nr` (out) and zeroes the rest; a counter
 * added later takes the next index, so a tool reads the ones it knows,
 * and learns from `nr` which ones the running kernel has.
 */
#define GAZE_CTR_CHECKPOINTS	0	/* checkpoints committed */
#define GAZE_CTR_CP_FSYNC	1	/* fsyncs that wrote a checkpoint */
#define GAZE_CTR_CP_BACKLOG	2	/* checkpoints the GC thread wrote for
					 * what one-file fsyncs left behind */
#define GAZE_CTR_FSYNC_ROLLFWD	3	/* fsyncs made durable without a
					 * checkpoint (roll-forward) */
#define GAZE_CTR_FSYNC_ONE_FILE	4	/* of them, one file's nodes alone */
#define GAZE_CTR_AROUND_WINDOWS	5	/* inode read-around windows read */
#define GAZE_CTR_AROUND_USED	6	/* inodes a window brought in that
					 * were then asked for */
#define GAZE_CTR_GC_WRITES_UNLOCKED 7	/* GC write-stage batches written
					 * without the filesystem lock */
#define GAZE_CTR_GC_WRITES_CP	8	/* of them committed by a checkpoint
					 * that came first */
#define GAZE_CTR_GC_WRITE_WAITS	9	/* allocations that waited for one */
#define GAZE_CTR_GC_COLD_READS	10	/* blocks the GC's preread and
					 * prewrite stages read without the
					 * filesystem lock */
#define GAZE_CTR_GC_HANDOFFS	11	/* foreground GC runs whose batch a
					 * writer left to the GC thread */
#define GAZE_CTR_NR		12	/* this header's counters */
#define GAZE_CTR_MAX		64	/* room in the struct */

struct gaze_ioc_counters {
	__u32	version;		/* in: GAZE_IOC_VERSION */
	__u32	flags;			/* in: 0 */
	__u64	reserved_in[2];		/* in: 0 */
	__u32	nr;			/* out: counters filled */
	__u32	pad;
	__u64	counters[GAZE_CTR_MAX];	/* out */
};

#define GAZE_IOC_INFO		_IOWR(GAZE_IOC_MAGIC, 1, struct gaze_ioc_info)
#define GAZE_IOC_GC_STATS	_IOWR(GAZE_IOC_MAGIC, 2, struct gaze_ioc_gc_stats)
#define GAZE_IOC_TUNE		_IOWR(GAZE_IOC_MAGIC, 3, struct gaze_ioc_tune)
#define GAZE_IOC_GC		_IOWR(GAZE_IOC_MAGIC, 4, struct gaze_ioc_gc)
#define GAZE_IOC_COMPRESS	_IOWR(GAZE_IOC_MAGIC, 5, struct gaze_ioc_compress)
#define GAZE_IOC_COUNTERS	_IOWR(GAZE_IOC_MAGIC, 6, struct gaze_ioc_counters)

#endif /* GAZE_IOCTL_H */
