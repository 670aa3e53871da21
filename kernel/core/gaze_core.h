/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gaze_core.h - API of the shared core (the .c files in kernel/core/).
 *
 * The same files build into gaze.ko and into libgazecore (userspace).
 * Files and what they own:
 *   format.c      block headers, crc, per-type verifiers, features, super
 *                 encode/decode                               (gaze_fmt_*)
 *   layout.c      zone layout and space maths for a geometry   (gaze_layout_*)
 *   hash.c        siphash-2-4 for directory names              (gaze_siphash)
 *   cache.c       metadata block cache                         (gaze_mbuf_*)
 *   table.c       2-level meta tables: imap, zinfo, usage, summary (gaze_table_*)
 *   space.c       main-area zones, logs, block alloc/invalidate,
 *                 meta ring                                    (gaze_space_*, gaze_block_*)
 *   node.c        nid allocation, node get/new/flush           (gaze_nid_*, gaze_node_*)
 *   checkpoint.c  checkpoint write and discovery               (gaze_cp_*)
 *   fs.c          format / open / close of an instance         (gaze_fs_*)
 *   orphan.c      inodes unlinked while in use: list, checkpoint
 *                 slots, eviction at last close and at open    (gaze_orphan*)
 *   compress.c    compressed clusters: stream codec, cluster I/O
 *                                                              (gaze_cluster_*)
 *   inode.c bmap.c dir.c xattr.c namei.c
 *                 namespace: the operations tools and the module share
 *                                                              (gaze_ns_*, gaze_file_*,
 *                                                               gaze_xattr_*, gaze_dir_*)
 *
 * Locking (version 1): every entry point below gaze_fs_* takes fs->lock
 * (a mutex) for its whole duration unless it says otherwise; the core's
 * internal functions (gaze_mbuf_*, gaze_table_*, gaze_node_*, gaze_block_*)
 * expect the caller to hold it.  The module replaces this coarse rule with
 * finer ones when it needs to, writing the new rule here.
 *
 * Read-only lookups read metadata without fs->lock: gaze_ns_lookup,
 * gaze_ns_getattr, gaze_ns_readlink, gaze_file_read, gaze_file_map,
 * gaze_file_map_cluster, gaze_file_cluster_room, gaze_file_cluster_slots,
 * gaze_file_bmap, gaze_file_dirty_blocks, gaze_xattr_get, gaze_xattr_list and
 * gaze_ns_readdir run under fs->lock until they need a block the cache
 * does not hold, then drop it, read that block and start again (struct
 * gaze_miss, cache.c), so a cold lookup's device reads do not hold up
 * every other operation.
 */
#ifndef GAZE_CORE_H
#define GAZE_CORE_H

#include "gaze_env.h"
#include "gaze_format.h"
#include "gaze_dev.h"

/* ---------------------------------------------------------------- */
/* format.c                                                          */
/* ---------------------------------------------------------------- */

/* crc of a 4 KiB metadata block: standard crc32c (init ~0, final xor ~0)
 * of the whole block with gaze_mhdr.crc taken as zero. */
u32 gaze_fmt_block_crc(const void *blk);
void gaze_fmt_hdr_init(void *blk, u32 magic, const u8 uuid[16], u64 blkaddr,
		       u64 seq, u32 nid, u32 ino, u32 index);
void gaze_fmt_csum_set(void *blk);		/* fill hdr.crc */
/* every byte of p[0..len) is zero (an unwritten block, a reserved field) */
bool gaze_fmt_is_zero(const void *p, size_t len);
/*
 * Header check: magic, crc, uuid, location (blkaddr), hdr_version.
 * Returns 0, -EFSBADCRC (crc mismatch) or -EFSCORRUPTED; *why (if not
 * NULL) gets a static string naming the failed check.
 */
int gaze_fmt_hdr_verify(const void *blk, u32 magic, const u8 uuid[16],
			u64 blkaddr, const char **why);
/*
 * The uuid the headers of every metadata block but the superblock carry
 * and are checked against: sb->meta_uuid with the incompat feature
 * meta_uuid (the uuid users see, sb->hdr.uuid, was changed after mkfs),
 * else sb->hdr.uuid.
 */
static inline const u8 *gaze_sb_meta_uuid(const struct gaze_super *sb)
{
	if (le64_to_cpu(sb->feature_incompat) &
	    GAZE_FEATURE_INCOMPAT_META_UUID)
		return sb->meta_uuid;
	return sb->hdr.uuid;
}
/*
 * With the compat feature lazy_summary, the summary entry of a block
 * that is not valid may be stale: only the usage bit says whether the
 * block is valid (format.md section 16).
 */
static inline bool gaze_sb_lazy_summary(const struct gaze_super *sb)
{
	return le64_to_cpu(sb->feature_compat) &
	       GAZE_FEATURE_COMPAT_LAZY_SUMMARY;
}
/*
 * With the incompat feature fsync_namespace, an fsync chain may hold new
 * inodes and the directory changes that name them (format.md section
 * 17): a create, link, rename or mkdir rolls forward like a file's nodes.
 */
static inline bool gaze_sb_fsync_ns(const struct gaze_super *sb)
{
	return le64_to_cpu(sb->feature_incompat) &
	       GAZE_FEATURE_INCOMPAT_FSYNC_NAMESPACE;
}
/* a verifier's verdict on a block that was read: it does not verify */
static inline bool gaze_err_damaged(int err)
{
	return err == -EFSCORRUPTED || err == -EFSBADCRC;
}
/* Type verifiers: header check plus every field of the body. */
int gaze_fmt_super_verify(const struct gaze_super *sb, u64 blkaddr,
			  const char **why);
int gaze_fmt_cp_head_verify(const struct gaze_cp_head *cp,
			    const struct gaze_super *sb, u64 blkaddr,
			    const char **why);
/* the verifier of a node block of magic `magic` (inode, direct node,
 * indirect node, xattr node): the one dispatch for the core and fsck */
int gaze_fmt_node_verify(const void *blk, const struct gaze_super *sb,
			 u32 magic, u64 blkaddr, const char **why);
int gaze_fmt_inode_verify(const struct gaze_inode *in,
			  const struct gaze_super *sb, u64 blkaddr,
			  const char **why);
int gaze_fmt_dnode_verify(const struct gaze_dnode *dn,
			  const struct gaze_super *sb, u64 blkaddr,
			  const char **why);
int gaze_fmt_ind_verify(const struct gaze_inode_ind *in,
			const struct gaze_super *sb, u64 blkaddr,
			const char **why);
int gaze_fmt_xattr_verify(const struct gaze_xattr_block *xb,
			  const struct gaze_super *sb, u64 blkaddr,
			  const char **why);
int gaze_fmt_dir_bucket_verify(const struct gaze_dir_bucket *b,
			       const struct gaze_super *sb, u64 blkaddr,
			       const char **why);
int gaze_fmt_dir_index_verify(const struct gaze_dir_index *di,
			      const struct gaze_super *sb, u64 blkaddr,
			      const char **why);
/* table and index blocks (hdr.nid = table id) */
int gaze_fmt_table_verify(const void *blk, u32 table, u32 index,
			  const struct gaze_super *sb, u64 blkaddr,
			  const char **why);

/* features */
const char *gaze_fmt_feature_name(int mask /* 0 compat 1 ro 2 incompat */,
				  int bit);
/* "a,b,^c": sets/clears bits starting from *compat etc.; -EINVAL and
 * *bad = offending name on an unknown feature, -EOPNOTSUPP on setting
 * one this version does not support (the feature table's column),
 * -EPERM on setting one only a tool sets on an existing filesystem
 * (supported column 2: meta_uuid) */
int gaze_fmt_feature_parse(const char *list, u64 *compat, u64 *ro_compat,
			   u64 *incompat, const char **bad);
void gaze_fmt_feature_defaults(u64 *compat, u64 *ro_compat, u64 *incompat);
/* "a, b, c": the names of the features this version supports and
 * mkfs.gaze may set */
void gaze_fmt_feature_known(char *buf, size_t len);
/* writes "a,b,c" of the set bits into buf */
void gaze_fmt_feature_string(u64 compat, u64 ro_compat, u64 incompat,
			     char *buf, size_t len);
const char *gaze_fmt_compress_name(int algo);
int gaze_fmt_compress_parse(const char *name, u8 *algo, u8 *level);
/* highest level of a GAZE_COMPRESS_* algorithm (0: only its default);
 * -1 for an unknown one */
int gaze_fmt_compress_max_level(u32 algo);

/* ---------------------------------------------------------------- */
/* layout.c                                                          */
/* ---------------------------------------------------------------- */
struct gaze_geometry {		/* what the device reported */
	u64	nr_blocks;
	u32	zone_blocks;
	u32	zone_cap;
	u32	nr_zones;
	u32	nr_conv;
	u32	max_open;	/* 0 = unlimited */
	u32	max_active;
	u32	model;		/* GAZE_ZM_* */
};

struct gaze_mkfs_params {
	struct gaze_geometry geo;
	u32	ovp_percent;		/* 0 = automatic */
	u64	gc_pool_blocks;		/* 0 = automatic */
	u32	dirty_limit_pct;	/* default 20 */
	u32	gc_queue_depth;		/* 0 = default */
	u32	victim_policy;		/* GAZE_GC_* */
	u32	nr_logs;		/* 0 = as many as the device allows */
	u64	feature_compat, feature_ro_compat, feature_incompat;
	u8	compress_algo, compress_level, compress_log_cluster;
	u8	uuid[16];
	u32	dir_hash_seed[4];
	u64	mkfs_time;
	char	label[GAZE_LABEL_MAX];
	char	version[32];
};

struct gaze_layout {
	u32	nr_zones;		/* zones the fs uses */
	u32	cp_zone_start, cp_zone_count;
	u32	meta_zone_start, meta_zone_count;
	u32	main_zone_start, main_zone_count;
	u32	ovp_zones, reserved_zones, ovp_percent;
	u32	nr_logs;
	u32	max_nid;
	u64	user_blocks;
	u32	usage_blocks_per_zone, summary_blocks_per_zone;
	u32	table_blocks[GAZE_NR_TABLES];
	u32	table_index_blocks[GAZE_NR_TABLES];
	u64	gc_pool_blocks;
	u32	dirty_limit_pct, gc_queue_depth, bg_gc_low_pct, bg_gc_high_pct;
};

/* limits checked by gaze_layout_compute */
#define GAZE_MIN_MAIN_ZONES	8
#define GAZE_MIN_ZONE_BLOCKS	256		/* 1 MiB */
#define GAZE_MIN_OPEN_ZONES	4		/* cp + meta + 2 logs */
#define GAZE_DEFAULT_DIRTY_PCT	20
#define GAZE_DEFAULT_QDEPTH	64

/*
 * Computes the layout for a geometry and parameters.  Returns 0, or
 * -EINVAL / -ENOSPC with *why set to a one-line human reason.
 */
int gaze_layout_compute(const struct gaze_mkfs_params *p,
			struct gaze_layout *l, const char **why);
/* builds the superblock image (copy 0 at block 0 of zone 0, copy 1 at
 * block 0 of zone 1: pass copy and blkaddr); crc filled in */
void gaze_fmt_super_build(struct gaze_super *sb,
			  const struct gaze_mkfs_params *p,
			  const struct gaze_layout *l, u32 copy, u64 blkaddr);
/* recomputes the layout from a superblock (used by verify and mount) */
int gaze_layout_from_super(const struct gaze_super *sb, struct gaze_layout *l,
			   const char **why);

/* ---------------------------------------------------------------- */
/* hash.c                                                            */
/* ---------------------------------------------------------------- */
u64 gaze_siphash(const u32 key[4], const void *data, size_t len);

/* ---------------------------------------------------------------- */
/* The filesystem instance.                                          */
/* ---------------------------------------------------------------- */
#define GAZE_MB_NODE	1	/* id = nid */
#define GAZE_MB_TABLE	2	/* id = table, idx = table block */
#define GAZE_MB_TINDEX	3	/* id = table, idx = index block */
#define GAZE_MB_FBLK	4	/* id = ino, idx = logical block (dir blocks) */

#define GAZE_MBF_DIRTY	0x1
#define GAZE_MBF_AROUND	0x2	/* a node an inode's read-around brought in,
				 * not asked for yet (node.c) */

struct gaze_mbuf {
	u32	type, id;
	u64	idx;
	u64	blkaddr;		/* where it was read from, 0 = new */
	void	*data;			/* GAZE_BLOCK_SIZE bytes */
	int	ref;
	u32	flags;
	/*
	 * Inodes: fs->rf_epoch while an operation that roll-forward of
	 * this inode alone cannot replay (a link count or parent change,
	 * a node claimed or freed) touched it since the checkpoint or the
	 * last fsync of the whole state; set when the buffer is made or
	 * read, so an inode
	 * the cache forgot counts as touched (fs.c fs_rf_ino_possible).
	 * fs->lock, as every field here.
	 */
	u32	rf_seq;
	struct list_head hash;		/* cache hash chain */
	struct list_head list;		/* lru or dirty list */
};

struct gaze_cache;		/* cache.c private */
struct gaze_miss;		/* cache.c: a read-only operation's miss */
struct gaze_space;		/* space.c private */
struct gaze_tables;		/* table.c private */
struct gaze_cluster_enc;	/* compress.c: a cluster encoded outside the lock */

#define GAZE_FS_RDONLY		0x1	/* gaze_fs_open flag */
/*
 * gaze_fs_open flag: load the checkpoint's orphan list but do not free
 * the orphans (a remount read-write while some may still be open); each
 * is freed by gaze_ns_orphan_evict, or at the next open without it.
 */
#define GAZE_FS_KEEP_ORPHANS	0x2
/*
 * gaze_fs_open flag: read-write without roll-forward (fsck.gaze's repair
 * after a failed replay); the chain is dropped by the next checkpoint.
 */
#define GAZE_FS_NO_RECOVERY	0x4
/*
 * gaze_fs_open flag: an offline repair (fsck.gaze -y); a table index
 * block that cannot be read does not fail the open: the table blocks
 * under it are lost and the repair writes them all again, under a new
 * index block (gaze_repair_table_block).
 */
#define GAZE_FS_REPAIR		0x8
/*
 * gaze_fs_open flag: the checkpoint before the newest valid one (which
 * the two-generation rule keeps whole: nothing it references is reused
 * until a newer checkpoint than the newest commits).  Read-only, or a
 * repair, whose first checkpoint then supersedes the newer packs.  A
 * read-only open falls back to it by itself when the newest one's tables
 * cannot be read.
 */
#define GAZE_FS_CP_PREV		0x10

/* orphans one checkpoint records (two payload blocks of slots) */
#define GAZE_ORPHANS_MAX	((u32)(2 * GAZE_ADDRS_PER_BLOCK))

/* garbage collector counters (gc.c), for gazectl gc-stats; fs->lock */
struct gaze_gc_stats {
	u64	zones_reclaimed;	/* zones GC emptied (now PREFREE) */
	u64	zones_fg;		/* ... of them by foreground GC */
	u64	data_moved;		/* data and directory blocks moved */
	u64	nodes_moved;		/* node blocks re-dirtied to move */
	u64	fg_runs;		/* foreground rounds (gaze_gc_balance) */
	u64	bg_runs;		/* background steps that moved a zone */
	u64	checkpoints;		/* checkpoints GC wrote to free zones */
	u64	time_ns;		/* time spent in gaze_gc_zone + cps */
	u64	zone_ns_total;		/* gaze_gc_zone calls that emptied a zone */
	u64	zone_ns_max;		/* ... the longest of them */
	/* gaze_gc_zone durations: [i] counts [2^i, 2^(i+1)) microseconds */
	u64	hist[32];
	u64	user_blocks;		/* file data blocks written for users */
	/* reclaims by what they freed (zone capacity less the blocks they
	 * rewrote): < 1/8, < 1/4, < 1/2, >= 1/2 of the zone; all, and those
	 * for writers short of space (foreground) */
	u64	freed_hist[4];
	u64	freed_fg_hist[4];
	u64	fg_declined;		/* foreground picks that found only
					 * victims below their minimum gain */
	u64	zones_mover;		/* zones the baseline mover (gc.c)
					 * reclaimed, not the staged GC */
	u64	last_runs;		/* reclaims taken as GAZE_GC_LAST */
	/* least blocks a GAZE_GC_FG / GAZE_GC_LAST reclaim freed (0: none
	 * yet): at least gaze_gc_min_gain's, the tests check */
	u64	freed_min_fg, freed_min_last;
	/* the longest hold of fs->lock by the baseline's foreground GC in
	 * one go (a whole run inside an operation, or one step of a
	 * stepped run) or by a background step */
	u64	hold_ns_max;
};

#define GAZE_GCP_MAX_JOBS_	4	/* = GAZE_GCP_MAX_JOBS */
#define GAZE_GCP_NONE		((u32)-1)

/* a foreground GC run, a step at a time (gaze_gc_fg_start) */
struct gaze_gc_fg_run {
	u32	want;		/* FREE zones the run is after */
	u32	enough;		/* FREE zones the writer keeps for itself
				 * when it hands off (gaze_gc_fg_handoff):
				 * want without the batch, so one zone of
				 * slack above what the core's own balance
				 * in the write asks for, which would move
				 * a whole zone in one hold of fs->lock */
	u32	need;		/* zones the write needs beyond its log */
	u32	strikes;	/* victims in a row that gained nothing */
	u32	rounds;		/* steps left */
	u32	before;		/* FREE + PREFREE zones when the zone
				 * being moved was picked */
	bool	can_gc;
};

/* a zone being moved a chunk at a time (gaze_gc_move_step) */
struct gaze_gc_mover {
	u32	zone;		/* 0: none */
	u32	off;		/* next block of the zone to look at */
	int	why;		/* GAZE_GC_* it counts as */
	u64	t0;		/* when it began (ns) */
	u64	moved0;		/* gc.data_moved + nodes_moved then */
};

/*
 * Event counters since open (fs->stat[]), for GAZE_IOC_COUNTERS
 * (`gazectl counters`); the module maps each to its GAZE_CTR_* index.
 */
enum {
	GAZE_STAT_CP,		/* checkpoints committed */
	GAZE_STAT_CP_BACKLOG,	/* of them for the one-file fsyncs'
				 * backlog (gaze_fs_cp_backlog) */
	GAZE_STAT_AROUND,	/* inode read-around windows read */
	GAZE_STAT_AROUND_USED,	/* inodes a window brought in, then
				 * asked for */
	GAZE_STAT_GCW,		/* GC write-stage batches written without
				 * fs->lock */
	GAZE_STAT_GCW_CP,	/* of them committed by a checkpoint */
	GAZE_STAT_GCW_WAIT,	/* allocations that waited for one */
	GAZE_STAT_FSYNC_RF,	/* fsyncs made durable without a
				 * checkpoint (roll-forward) */
	GAZE_STAT_FSYNC_ONE,	/* of them wrote one inode's nodes alone */
	GAZE_STAT_FSYNC_CP,	/* fsyncs that took a checkpoint */
	GAZE_STAT_GC_HANDOFF,	/* foreground runs whose batch a writer
				 * left to the GC thread
				 * (gaze_gc_fg_handoff) */
	GAZE_STAT_GC_COLD,	/* GC preread/prewrite misses read
				 * without fs->lock */
	GAZE_STAT_NR
};

struct gaze_fs;
static inline void gaze_stat_inc(struct gaze_fs *fs, int i);

struct gaze_fs {
	struct gaze_dev		*dev;
	struct gaze_super	sb;		/* raw, as verified at open */
	struct gaze_layout	lay;
	u8			uuid[16];	/* metadata uuid: what block
						 * headers carry (gaze_sb_meta_uuid);
						 * users see sb.hdr.uuid */
	u32			flags;		/* GAZE_FS_* */
	u64			cp_seq;		/* last committed checkpoint */
	/* last committed head (raw); between commits fs->lock also keeps
	 * its running counters here: compr_*_blocks, gc_*, prealloc_blocks */
	/* fs->lock; statfs reads cp.prealloc_blocks without it, so that
	 * one is written with WRITE_ONCE (gaze_space_slot_changed) */
	struct gaze_cp_head	cp;
	u32			cp_zone;	/* zone holding it */
	u32			cp_offset;	/* block offset of next pack */
	u32			cp_damaged;	/* damaged packs the open
						 * skipped (gaze_cp_find) */
	u32			next_nid;
	/*
	 * The next inode's generation (NFS file handles carry it): seeded
	 * from the clock at open, so a number reused after a remount gets
	 * another generation than the handles of its old file; fs->lock.
	 */
	u32			next_generation;
	u64			valid_inodes;	/* fs->lock; statfs reads
						 * it without: WRITE_ONCE */
	struct gaze_cache	*cache;
	struct gaze_tables	*tables;
	struct gaze_space	*space;
	struct mutex		lock;		/* see top of file */
	size_t			cache_limit;	/* bytes of clean+dirty mbufs */
	/*
	 * Inode read-around (node.c): one credit back for each inode it
	 * brought in that was then asked for, one spent on each window
	 * read; with none left, only one cold inode in GAZE_AROUND_PROBE
	 * (by a hash of its number) takes a window.  fs->lock.
	 */
	u32			around_credit;
	struct gaze_gc_stats	gc;		/* gc.c; fs->lock */
	bool			gc_active;	/* in GC: no re-entry */
	struct gaze_gc_mover	gc_mv;		/* the baseline's move in
						 * progress, a chunk per
						 * step (gcpolicy.c); zone 0:
						 * none.  fs->lock; the
						 * module's writers read
						 * .zone without it, as a
						 * hint (resv.c
						 * gaze_resv_gc_busy) */
	/*
	 * The rest of a writer's foreground run, the batch beyond the fg
	 * level, handed to the background collector
	 * (gaze_gc_fg_handoff; gaze_gc_background steps it first);
	 * gc_fg_rest_on: one is waiting.  fs->lock.
	 */
	struct gaze_gc_fg_run	gc_fg_rest;
	bool			gc_fg_rest_on;
	u32			gc_move_chunk;	/* valid blocks per mover
						 * step; 0: the default
						 * (tests set it lower) */
	int			gc_policy;	/* GAZE_GC_*, or _POLICY_DEFAULT */
	bool			gc_fg_stepped;	/* the caller makes room
						 * before each operation:
						 * its own balance takes
						 * only what it cannot go
						 * on without
						 * (gaze_gc_balance).  Set
						 * once after open, before
						 * any operation; then
						 * only read */
	u32			*orphans;	/* orphan.c: inode numbers */
	u32			nr_orphans, orphan_cap;
	/* gcpipe.c: zones pinned by in-flight jobs (GAZE_GCP_NONE: free
	 * slot) and what they will free; fs->lock */
	u32			gcp_zone[GAZE_GCP_MAX_JOBS_];
	u32			gcp_gain[GAZE_GCP_MAX_JOBS_];
	/*
	 * The GC write stage's copies on their way to the device without
	 * fs->lock (gcpipe.c, gaze_gcp_write_begin to _end).  gcw: that
	 * move, allocated and not yet committed (its owners still point
	 * at the old blocks), or NULL; fs->lock.  gcw_lock: held by the
	 * thread writing the copies from the allocation (taken under
	 * fs->lock) to the end of the device write (made without
	 * fs->lock); whoever needs that write on the device first (the
	 * next allocation in the same log, gaze_gcp_settle) takes and
	 * drops it under fs->lock.  Order: fs->lock, then gcw_lock; the
	 * writing thread takes nothing while it holds gcw_lock alone.
	 */
	struct gaze_gcp_move	*gcw;
	struct mutex		gcw_lock;
	/* write reservations (space.c): blocks promised to dirty data;
	 * resv_lock */
	spinlock_t		resv_lock;
	u64			resv_blocks;
	/*
	 * Roll-forward (fs.c gaze_fs_fsync, node.c, recover.c); fs->lock.
	 * All but rf_epoch are reset when a checkpoint commits.
	 *  rf_need_cp: an operation since the checkpoint changed what
	 *	roll-forward does not replay (a freed node, the orphan list;
	 *	without fsync_namespace also the namespace, directory blocks,
	 *	a new inode): fsync takes a checkpoint, or writes one file's
	 *	nodes alone (fs.c fs_rf_ino_possible).
	 *  rf_log[li]: GAZE_RF_* of physical log li since the checkpoint.
	 *  rf_blocks: nodes written by fsync since the checkpoint.
	 */
	bool			rf_need_cp;
	/*  rf_ino_off: a node of an inode the cache did not hold was
	 *	freed: no fsync of one inode alone until the checkpoint */
	bool			rf_ino_off;
	/*  rf_epoch: what struct gaze_mbuf rf_seq counts from: bumped by
	 *	every checkpoint and every fsync that wrote the whole dirty
	 *	state (the chain then holds all the cache does, as a
	 *	checkpoint would), so one file may go alone after either */
	u32			rf_epoch;
	/*  rf_ns: with fsync_namespace, a namespace change (a new inode,
	 *	a directory block or inode dirtied) since the checkpoint or
	 *	the last fsync of the whole state: an fsync of a file that may
	 *	go alone does, rather than write others' changes (fs.c) */
	bool			rf_ns;
	/*  cp_wanted: fsyncs of one file alone left dirty blocks past
	 *	GAZE_RF_BACKLOG; the module reads it without the lock
	 *	(READ_ONCE) to wake its thread for gaze_fs_cp_backlog */
	bool			cp_wanted;
	u8			rf_log[GAZE_MAX_LOGS];
	u32			rf_blocks;
	u32			rf_recovered;	/* nodes replayed at mount */
	/* the mount's compress=ALG: new files in directories that do not
	 * compress take it (GAZE_COMPRESS_NONE: none); fs->lock */
	u8			mnt_compress_algo, mnt_compress_level;
	u32			rf_pending;	/* read-only open: nodes
						 * a read-write one would
						 * replay */
	/* GAZE_STAT_*: written under fs->lock; the module reads them
	 * without it, each once (figures, not a snapshot) */
	u64			stat[GAZE_STAT_NR];
	/*
	 * Zone resets (and discards) since open: a block read without
	 * fs->lock is the block its address named when the read was asked
	 * for if no zone was reset meanwhile, since a block the filesystem
	 * points at is not written again before a reset (struct
	 * gaze_miss); fs->lock.
	 */
	u64			reset_seq;
	struct gaze_miss	*miss;		/* the read-only operation
						 * that holds fs->lock,
						 * or NULL; fs->lock */
	/*
	 * File data blocks a cut will zero in part, read without fs->lock
	 * (gaze_file_edges_warm); the cut takes one in place of its read
	 * when it is still at the same address with reset_seq unchanged,
	 * as a miss's fetched block.  buf NULL: empty.  fs->lock.
	 */
	struct gaze_staged {
		u64	addr, reset_seq;
		void	*buf;
	}			staged[2];
};

/* one more event of counter i (GAZE_STAT_*); fs->lock */
static inline void
gaze_stat_inc(struct gaze_fs *fs, int i)
{
	WRITE_ONCE(fs->stat[i], fs->stat[i] + 1);
}

/* the data block at addr into buf: a staged copy (fs->staged), else
 * read; fs->lock */
int gaze_block_read_staged(struct gaze_fs *fs, u64 addr, void *buf);

/* a zone is reset or discarded (fs->lock): see fs->reset_seq */
static inline void gaze_fs_zone_reset_note(struct gaze_fs *fs)
{
	fs->reset_seq++;
}

/* fs->rf_log[] bits */
#define GAZE_RF_TAIL	0x01	/* nodes written after the log's last
				 * fsync end mark */
#define GAZE_RF_BROKEN	0x02	/* a node was written whose next block
				 * was not known: the chain ends there */
#define GAZE_RF_UNMARKED 0x04	/* a node was written without
					 * GAZE_NF_FSYNC since the checkpoint
					 * (sticky until the next one) */

/* ---------------------------------------------------------------- */
/* cache.c: caller holds fs->lock                                    */
/* ---------------------------------------------------------------- */
/*
 * Metadata read without fs->lock, for the read-only operations named at
 * the top of this file.  Each runs its body as
 *
 *	gaze_miss_init(&m);
 *	do
 *		err = body(fs, &m, ...);	(fs->lock held inside, with
 *						 fs->miss = &m)
 *	while (gaze_miss_fetch(fs, &m, err));
 *	gaze_miss_exit(&m);
 *
 * (GAZE_MISS_RUN below).
 *
 * With fs->miss set, a cache miss that would read a block names it in m
 * and fails with -GAZE_EMISS instead, before anything is inserted; the
 * body has changed nothing (it only reads) and returns the error after
 * dropping fs->lock.  gaze_miss_fetch then reads the block, without the
 * lock, into m's buffer, and the body runs again: the same miss now
 * takes the fetched block, provided it is still at the same address and
 * fs->reset_seq did not move (a block the filesystem points at is not
 * written again until its zone is reset, so the bytes read are the bytes
 * that address held when the miss was named).  Anything else names a miss again; the fetched block
 * stays for its own miss (a best-effort path, such as node readahead,
 * may name a miss and go on without it).  Node readahead names its run
 * of siblings the same way (gaze_miss_run), so the fetch reads the whole
 * run in one request and the next try inserts it.  After
 * GAZE_MISS_TRIES fetches, or when a fetch fails, the body runs once
 * more with misses read under the lock as before (so it always ends,
 * and a device error is met and reported where it always was).
 */
#define GAZE_EMISS		4090	/* never leaves the core */
#define GAZE_MISS_TRIES		16

struct gaze_miss_key {
	u32	type, id;	/* a block's cache key, */
	u64	idx;
	u64	blkaddr;	/* its address */
	u64	reset_seq;	/* and fs->reset_seq when it was named */
	u32	nr;		/* blocks from blkaddr: 1, or a node
				 * readahead run (the first is this key's) */
};

struct gaze_miss {
	struct gaze_miss_key	want;	/* the last miss named */
	struct gaze_miss_key	got;	/* the blocks in buf, if have */
	void	*buf;		/* cap blocks */
	u32	cap;
	bool	have;		/* buf holds got, not yet used */
	bool	nowait;		/* misses are named (else read) */
	u32	tries;
};

void gaze_miss_init(struct gaze_miss *m);
/*
 * ret = body, again while it names a miss: body calls the operation with
 * &m (a struct gaze_miss this declares), as in
 *	GAZE_MISS_RUN(fs, m, err, ns_lookup(fs, &m, dir, ...));
 */
#define GAZE_MISS_RUN(fs, m, ret, body)				\
	do {							\
		struct gaze_miss m;				\
								\
		gaze_miss_init(&m);				\
		do						\
			(ret) = (body);				\
		while (gaze_miss_fetch((fs), &m, (ret)));	\
		gaze_miss_exit(&m);				\
	} while (0)
/*
 * Node readahead of *nr blocks from first, the first node nid, in a
 * read-only operation: 1 and *data: the run was fetched (*nr may shrink
 * to what was); -GAZE_EMISS: the run is named, read before the next try
 * (skip it now); 0: read it under the lock as usual
 */
int gaze_miss_run(struct gaze_fs *fs, u32 nid, u64 first, u32 *nr,
		  const void **data);
/* after a body: true if it named a miss, now fetched; run it again */
bool gaze_miss_fetch(struct gaze_fs *fs, struct gaze_miss *m, s64 err);
/* block blkaddr, cached as (type, id, idx) once checked, into buf: with
 * fs->miss set, the block a miss fetched or -GAZE_EMISS once it is
 * named; else read here */
int gaze_miss_read(struct gaze_fs *fs, u32 type, u32 id, u64 idx,
		   u64 blkaddr, void *buf);
void gaze_miss_exit(struct gaze_miss *m);

int gaze_cache_init(struct gaze_fs *fs);
void gaze_cache_destroy(struct gaze_fs *fs);
struct gaze_mbuf *gaze_mbuf_lookup(struct gaze_fs *fs, u32 type, u32 id,
				   u64 idx);
/* new zeroed buffer (replacing none: -EEXIST if present), ref held */
int gaze_mbuf_create(struct gaze_fs *fs, u32 type, u32 id, u64 idx,
		     struct gaze_mbuf **mbp);
/*
 * Lookup, else read from blkaddr (0: zeroed, nothing to verify) and
 * insert; ref held.  A block read from the device is verified by its
 * type's verifier before anyone sees it (as XFS's buffer ops do), so no
 * read path can forget to: GAZE_MB_NODE gaze_node_check for node `id`
 * of magic `expect`, GAZE_MB_TINDEX and GAZE_MB_TABLE the table's
 * (table `id`, block `idx`), GAZE_MB_FBLK a directory block of magic
 * `expect` for inode `id`, block `idx`.  A block that fails is dropped
 * and -EFSCORRUPTED / -EFSBADCRC returned, with the reason logged.
 */
int gaze_mbuf_read(struct gaze_fs *fs, u32 type, u32 id, u64 idx,
		   u64 blkaddr, u32 expect, struct gaze_mbuf **mbp);
/* an offline repair's read of a block it replaces or fixes whole (fsck),
 * without the verifier; only on a GAZE_FS_REPAIR instance (-EPERM) */
int gaze_mbuf_read_unverified(struct gaze_fs *fs, u32 type, u32 id, u64 idx,
			      u64 blkaddr, struct gaze_mbuf **mbp);
/* the verifiers gaze_mbuf_read runs (node.c, table.c, dir.c): 0, or the
 * error with *why */
int gaze_node_buf_verify(struct gaze_fs *fs, const struct gaze_mbuf *mb,
			 u32 expect, const char **why);
int gaze_tindex_buf_verify(struct gaze_fs *fs, const struct gaze_mbuf *mb,
			   u32 expect, const char **why);
int gaze_table_buf_verify(struct gaze_fs *fs, const struct gaze_mbuf *mb,
			  u32 expect, const char **why);
int gaze_dir_buf_verify(struct gaze_fs *fs, const struct gaze_mbuf *mb,
			u32 expect, const char **why);
void gaze_mbuf_dirty(struct gaze_fs *fs, struct gaze_mbuf *mb);
void gaze_mbuf_put(struct gaze_fs *fs, struct gaze_mbuf *mb);
/* drop from cache (deleted object); the caller's ref is consumed */
void gaze_mbuf_forget(struct gaze_fs *fs, struct gaze_mbuf *mb);
/* calls fn for each dirty buffer of a type (the buffer may be cleaned) */
int gaze_cache_for_each_dirty(struct gaze_fs *fs, u32 type,
			      int (*fn)(struct gaze_fs *, struct gaze_mbuf *,
					void *), void *arg);
/* true when the cache holds more than fs->cache_limit bytes */
bool gaze_cache_over_limit(struct gaze_fs *fs);
/* evict clean unreferenced buffers down to the limit */
void gaze_cache_shrink(struct gaze_fs *fs);
/* evict up to nr clean unreferenced buffers, oldest first; how many went */
u64 gaze_cache_trim(struct gaze_fs *fs, u64 nr);
/* buffers held, clean or dirty; readable without fs->lock (a snapshot) */
u64 gaze_cache_nr_bufs(struct gaze_fs *fs);
/* clears GAZE_MBF_DIRTY after the buffer was written (or is moot) */
void gaze_mbuf_clean(struct gaze_fs *fs, struct gaze_mbuf *mb);
/* dirty buffers of a type, and bytes the cache holds now */
u32 gaze_cache_nr_dirty(struct gaze_fs *fs, u32 type);
/* dirty nodes and directory blocks that were never written: each will
 * take a new main-area block at the next flush; any context (read once) */
u32 gaze_cache_nr_dirty_new(struct gaze_fs *fs);
size_t gaze_cache_bytes(struct gaze_fs *fs);

/* ---------------------------------------------------------------- */
/* table.c                                                           */
/* ---------------------------------------------------------------- */
int gaze_tables_init(struct gaze_fs *fs);	/* from fs->cp */
void gaze_tables_destroy(struct gaze_fs *fs);
/* table block holding entry; ref held.  Absent blocks read as zero. */
int gaze_table_get(struct gaze_fs *fs, u32 table, u32 block,
		   struct gaze_mbuf **mbp);
/*
 * Whether a table block reads as zeros without a buffer: neither cached
 * nor stored under its index block (whose own buffer is made only when
 * it is stored).  1: absent, 0: present, or -errno.  Lets a walk over a
 * table that is mostly empty (zone info of a large, new device) skip
 * the empty parts without filling the cache with zeros.
 */
int gaze_table_absent(struct gaze_fs *fs, u32 table, u32 block);
/* marks the block (and its index block) dirty for the next checkpoint */
void gaze_table_dirty(struct gaze_fs *fs, struct gaze_mbuf *mb);
/*
 * Repair only: index block i of `table` starts again from zeros (dirty)
 * when it cannot be read, so every table block under it reads as absent
 * and the caller must rewrite them all.  1: renewed; 0: it reads fine.
 */
int gaze_table_index_renew(struct gaze_fs *fs, u32 table, u32 i);
/* imap helpers */
int gaze_imap_get(struct gaze_fs *fs, u32 nid, u64 *addr);
int gaze_imap_set(struct gaze_fs *fs, u32 nid, u64 addr);
/* writes dirty table and index blocks to the meta ring and fills the
 * checkpoint's table roots and payload; see checkpoint.c */
int gaze_tables_flush(struct gaze_fs *fs, struct gaze_cp_head *cp,
		      __le64 *payload, u32 *nslots, u32 max_slots);
/* mount: counts every referenced table/index block with gaze_meta_ref */
int gaze_tables_count_meta(struct gaze_fs *fs);
/* marks dirty every table/index block stored in meta zone `zone` */
int gaze_tables_relocate_zone(struct gaze_fs *fs, u32 zone);

/* ---------------------------------------------------------------- */
/* space.c                                                           */
/* ---------------------------------------------------------------- */
int gaze_space_init(struct gaze_fs *fs);	/* from fs->cp + tables */
void gaze_space_destroy(struct gaze_fs *fs);
/* physical log used for a GAZE_LOG_* type given sb.nr_logs */
int gaze_log_of_type(const struct gaze_fs *fs, int type);
/*
 * Reserves the next block of a log (opening a new zone when needed) and
 * records the owner: valid bit, zone valid count, summary entry.  The
 * caller writes the block there at once with gaze_block_write.
 */
int gaze_block_alloc(struct gaze_fs *fs, int type, u32 owner_nid, u16 ofs,
		     u8 sum_type, u64 *addr);
int gaze_block_write(struct gaze_fs *fs, u64 addr, const void *buf);
int gaze_block_read(struct gaze_fs *fs, u64 addr, void *buf);
/* reports the one zone `zone`; -EIO if the device reports none */
int gaze_zone_report(struct gaze_fs *fs, u32 zone, struct gaze_zone *z);
/* clears the valid bit and count of a main-area block */
int gaze_block_invalidate(struct gaze_fs *fs, u64 addr);
/* roll-forward: makes a block written after the checkpoint valid */
int gaze_block_claim(struct gaze_fs *fs, u64 addr, u32 owner_nid, u16 ofs,
		     u8 sum_type, int type);
/* where log type `type` writes next; 0 if its zone is full (or it has
 * none) and open is false or no zone can be opened */
u64 gaze_log_peek(struct gaze_fs *fs, int type, bool open);
/* the next block of physical log li as the mounted/last checkpoint
 * records it; 0 if it had no zone or a full one */
u64 gaze_log_cp_start(struct gaze_fs *fs, u32 li);
/* convenience: alloc + write for file data */
int gaze_data_write(struct gaze_fs *fs, int type, u32 owner_nid, u16 ofs,
		    const void *buf, u64 *addr);
/*
 * user-class data allocation without the write: the caller writes a run
 * of consecutive allocations at once with gaze_blocks_write, before
 * allocating anything else in that log (zone write order)
 */
int gaze_data_alloc(struct gaze_fs *fs, int type, u32 owner_nid, u16 ofs,
		    u64 *addr);
/* writes nr consecutive blocks at addr (a run at a log head) */
int gaze_blocks_write(struct gaze_fs *fs, u64 addr, u32 nr, const void *buf);
/* meta ring: next block for a table/index block written at checkpoint */
int gaze_meta_alloc(struct gaze_fs *fs, u64 *addr);
/* free user blocks (for statfs and ENOSPC): user_blocks less the valid
 * ones, the new ones dirty in the cache and the preallocated ones.
 * fs->lock, or none (statfs): each count is read once, so a figure taken
 * while they change, exact once they settle */
u64 gaze_space_free_blocks(struct gaze_fs *fs);
/*
 * Of free blocks, those a file's data can fill: less GAZE_MAP_NODES of
 * them.
 * statfs's f_bavail, so that writing or fallocating what df calls
 * available fits.
 */
u64 gaze_space_avail_blocks(u64 free);
/* fs->lock: a map slot changed from old to new; fs->cp.prealloc_blocks
 * follows the GAZE_ADDR_PREALLOC ones (gaze_bmap_set, roll-forward) */
void gaze_space_slot_changed(struct gaze_fs *fs, u64 old, u64 new);
/* map nodes (and the two indirect ones) that n data blocks may need */
#define GAZE_MAP_NODES(n)	(DIV_ROUND_UP((u64)(n), GAZE_ADDRS_PER_DNODE) + 2)
/* -ENOSPC unless nblocks more user blocks fit (see space.c "classes");
 * called before creating new nodes and directory blocks */
int gaze_space_user_check(struct gaze_fs *fs, u32 nblocks);
/* fills the checkpoint's log heads, counters and meta ring fields */
void gaze_space_fill_cp(struct gaze_fs *fs, struct gaze_cp_head *cp);
/* a table/index block at addr gains (+1) or loses (-1) a reference */
void gaze_meta_ref(struct gaze_fs *fs, u64 addr, int delta);
/* fs->lock: the dirty table blocks would take more than half of what the
 * meta ring has free; a checkpoint now keeps the next one small enough */
bool gaze_meta_pressed(struct gaze_fs *fs);
/* before gaze_tables_flush: room check, ring compaction; -ENOSPC */
int gaze_meta_prepare(struct gaze_fs *fs);
/* after a pack is durable: meta snapshots; PREFREE zones become FREE
 * at the second commit since they were emptied */
int gaze_space_cp_committed(struct gaze_fs *fs);
/* in-memory state of main zone `zone` (absolute): GAZE_ZS_*, valid */
int gaze_space_zone_stat(struct gaze_fs *fs, u32 zone, u32 *valid,
			 u32 *state);
u32 gaze_space_free_zones(struct gaze_fs *fs);
/*
 * The end of what a read may take from addr on in addr's zone without
 * going past what was written: a log's zone up to the log's next block,
 * a full zone up to its capacity, anything else only addr's own block
 */
u64 gaze_space_read_end(struct gaze_fs *fs, u64 addr);
/*
 * FITRIM: the FREE main zones that lie wholly in blocks [start, end)
 * are reset or discarded (gaze_dev_ops.discard) when the device still
 * holds data in them.  gaze_space_trim_init checks the request (-EINVAL:
 * start past the device, len under a block, minlen over a zone's
 * capacity; bytes); each gaze_space_trim call (fs->lock) goes on from
 * t->next and returns after one FREE zone (its report, and its reset or
 * discard) or a batch of other zones: 1 when the range is done, 0 to call
 * again (the module drops fs->lock in between), or -errno.  t->trimmed: blocks of the
 * FREE zones in the range, trimmed now or already empty.
 */
struct gaze_trim {
	u64	start, end;	/* blocks */
	u32	next;		/* main zone index */
	u64	trimmed;	/* blocks */
	u32	zones_reset;	/* device operations issued */
};
int gaze_space_trim_init(struct gaze_fs *fs, u64 start, u64 len, u64 minlen,
			 struct gaze_trim *t);
int gaze_space_trim(struct gaze_fs *fs, struct gaze_trim *t);
/*
 * Turning lazy_summary off (gazectl features ^lazy_summary): without it a
 * summary entry may name an owner only for a valid block (fsck.gaze
 * pass 3), so the entries it left on blocks that are no longer valid are
 * cleared.  One main zone per call, from *next (fs->lock; the caller
 * balances the cache between calls): 1 when every zone is done, 0 to
 * call again, or -errno; *cleared counts the entries cleared.
 */
int gaze_space_summary_scrub(struct gaze_fs *fs, u32 *next, u64 *cleared);
/* free zones user data never opens (the writeback class and GC may):
 * min(3, reserved_zones) */
u32 gaze_space_user_floor(struct gaze_fs *fs);
/* GC's view of a main zone (gc.c): counts, state, age, log head */
struct gaze_zone_use {
	u32	valid;
	u32	state;			/* GAZE_ZS_* */
	u32	log;			/* GAZE_LOG_* */
	bool	log_head;		/* a log is writing into it now */
	u64	mtime;			/* fs age (s) of its last write */
};
int gaze_space_zone_use(struct gaze_fs *fs, u32 zone, struct gaze_zone_use *u);
/*
 * Writes to main zone `zone` (absolute) were lost after the core counted
 * them (gaze_data_lost): a log writing there gives the zone up (full, or
 * prefree when empty; finished on the device) and opens a new one.
 */
void gaze_space_zone_lost(struct gaze_fs *fs, u32 zone);
/* usage bit and summary entry of main block addr */
int gaze_space_block_owner(struct gaze_fs *fs, u64 addr, bool *valid,
			   struct gaze_summary *sum);
/*
 * The first valid block of main zone `zone` (absolute) at offset *off or
 * after: *off and its summary entry; -ENOENT (and *off = zone capacity)
 * when there is none.  Bytes of the usage bitmap with no valid block are
 * passed whole, and only a valid block's summary is looked up.
 */
int gaze_space_next_valid(struct gaze_fs *fs, u32 zone, u32 *off,
			  struct gaze_summary *sum);
/* zones waiting in PREFREE for their checkpoints */
u32 gaze_space_nr_prefree(struct gaze_fs *fs);
/* blocks left in the open zone of the log for GAZE_LOG_* type */
u32 gaze_space_log_room(struct gaze_fs *fs, int type);
/* valid blocks in the main area, and how many of them are nodes */
void gaze_space_valid_counts(struct gaze_fs *fs, u64 *blocks, u64 *nodes);

/* ---------------------------------------------------------------- */
/* node.c                                                            */
/* ---------------------------------------------------------------- */
int gaze_nid_alloc(struct gaze_fs *fs, u32 *nid);
/* marks a specific free nid in use (the root at format); -EEXIST */
int gaze_nid_claim(struct gaze_fs *fs, u32 nid);
/* frees the nid and invalidates its block */
int gaze_nid_free(struct gaze_fs *fs, u32 nid);
/* cached or read + verified against magic (GAZE_MAGIC_INODE/DNODE/
 * INODE_IND/XATTR); ref held.  -ENOENT if the nid has no block.  An
 * inode read by a read-only operation brings in the inodes around it
 * (GAZE_INODE_AROUND blocks, node.c). */
#define GAZE_INODE_AROUND	16
#define GAZE_AROUND_CREDIT	64	/* at open, and at most */
#define GAZE_AROUND_PROBE	16
int gaze_node_get(struct gaze_fs *fs, u32 nid, u32 magic,
		  struct gaze_mbuf **mbp);
/* gaze_node_get without I/O: -EAGAIN when the node is not in the cache */
int gaze_node_get_cached(struct gaze_fs *fs, u32 nid, u32 magic,
			 struct gaze_mbuf **mbp);
/* gaze_node_get for a nid another node points at (a direct or indirect
 * node of a file, an xattr node): a free nid there is damage, so
 * -EFSCORRUPTED where gaze_node_get says -ENOENT */
int gaze_node_get_ref(struct gaze_fs *fs, u32 nid, u32 magic,
		      struct gaze_mbuf **mbp);
/*
 * A node block read outside the cache (data, at addr), inserted as node
 * nid when it checks (gaze_node_check for magic); -EEXIST if nid is
 * cached, or the check's error with *why (why may be NULL) saying what
 * failed (nothing inserted, nothing logged)
 */
int gaze_node_insert(struct gaze_fs *fs, u32 nid, u32 magic, u64 addr,
		     const void *data, const char **why);
/*
 * A block read outside the cache from addr, inserted (with mbflags) when
 * it is an inode the imap still places at addr and it checks; the imap
 * is looked at, never read (fs->miss points at a probe of its own
 * meanwhile, so a miss skips the block: -GAZE_EMISS).  0 inserted, else
 * why not (-EINVAL not an inode, -ESTALE moved, -EEXIST cached).
 */
int gaze_inode_insert_live(struct gaze_fs *fs, u64 addr, const void *blk,
			   u32 mbflags);
/* reads nids[0] with the siblings after it that lie in the blocks right
 * after it on the device (up to GAZE_NODE_RA_MAX), in one read, into the
 * cache; advisory: does nothing if nids[0] is cached, drops what fails */
#define GAZE_NODE_RA_MAX	16
void gaze_node_readahead(struct gaze_fs *fs, const __le32 *nids, u32 n,
			 u32 magic);
/* new zeroed node with its header set, dirty, ref held */
int gaze_node_new(struct gaze_fs *fs, u32 nid, u32 ino, u32 magic, u32 index,
		  struct gaze_mbuf **mbp);
/* writes one dirty node to its log (type from the owner); updates imap */
int gaze_node_write(struct gaze_fs *fs, struct gaze_mbuf *mb);
int gaze_nodes_flush(struct gaze_fs *fs);
/*
 * gaze_nodes_flush of at most *budget nodes, the longest dirty first;
 * *budget is lowered by the nodes taken.  budget NULL: all.
 */
int gaze_nodes_flush_some(struct gaze_fs *fs, u32 *budget);
/* the GAZE_LOG_* type a node block is written to */
int gaze_node_log_type(const void *blk);
/* checks a node block read at addr for nid (magic, crc, nid, seq) */
int gaze_node_check(struct gaze_fs *fs, const void *blk, u32 nid, u32 magic,
		    u64 addr, const char **why);
/*
 * fsync without a checkpoint: the physical node log all dirty nodes of
 * inode ino (0: of every inode) go to, or -1 when they go to several (or
 * none is dirty: -2); *nr (unless NULL) gets how many they are
 */
int gaze_nodes_fsync_log(struct gaze_fs *fs, u32 ino, u32 *nr);
/* writes every dirty node of inode ino (0: of every inode) with
 * GAZE_NF_FSYNC, the last with GAZE_NF_FSYNC_END; all must go to
 * physical log li */
int gaze_nodes_fsync(struct gaze_fs *fs, u32 li, u32 ino);
/* inode ino, if cached, was touched by what roll-forward of it alone
 * cannot replay (struct gaze_mbuf rf_seq) */
void gaze_rf_ino_touch(struct gaze_fs *fs, u32 ino);

/* recover.c: roll-forward of fsync'd nodes at a read-write mount, from
 * gaze_space_init before the device is synced; sets fs->rf_recovered
 * (read-only: only counts them in fs->rf_pending) */
int gaze_recover(struct gaze_fs *fs);
/* ---------------------------------------------------------------- */
/* checkpoint.c, fs.c                                                */
/* ---------------------------------------------------------------- */
/* writes dir blocks, nodes, tables, then the pack; flags GAZE_CP_* */
int __must_check gaze_cp_write(struct gaze_fs *fs, u32 flags);
/*
 * Finds the newest valid pack in the two checkpoint zones (with
 * GAZE_FS_CP_PREV: the valid one before it); damaged packs are skipped,
 * counted in fs->cp_damaged and warned about, and never hide the packs
 * after them.
 */
int gaze_cp_find(struct gaze_fs *fs);
/* a checkpoint pack, or a damaged stretch, met by gaze_cp_walk_zone */
struct gaze_cp_seen {
	u32	zone, off;	/* where it begins (block in the zone) */
	u32	nblocks;	/* a pack's blocks; damage: up to the next
				 * valid pack, or the end of the written part */
	u64	seq;		/* a pack's; damage: what its head claims,
				 * if newer than the last valid pack, else 0 */
	int	err;		/* 0: a valid pack; -EFSCORRUPTED/-EFSBADCRC */
	const char *why;	/* err: what is wrong */
	/* a valid pack: its head, its other blocks right after it in
	 * memory; valid only during the call */
	const struct gaze_cp_head *head;
};
typedef int (*gaze_cp_seen_fn)(void *arg, const struct gaze_cp_seen *s);
struct gaze_cp_zone_end {
	u32	next;		/* where a next pack would go (zone_cap: not
				 * in this zone) */
	u32	valid;		/* valid packs met */
	u32	damaged;	/* damaged stretches met */
	bool	damage_after;	/* damage after the last valid pack */
};
/*
 * THE walk of one checkpoint zone's packs, for the core, fsck.gaze and
 * gazectl: calls fn for each valid pack and each damaged stretch in
 * order (a non-zero return stops the walk with it).  The log ends at a
 * stale pack (not newer than the one before it: the zone's contents
 * before its last reset) or, outside sequential zones, at a block that
 * is no pack head with no newer pack within a pack's length after it;
 * damage is walked past to the next valid, newer pack.  buf:
 * gaze_cp_max_pack() blocks.  0, or a device error.
 */
int gaze_cp_walk_zone(struct gaze_dev *dev, const struct gaze_super *sb,
		      u32 zone, u8 *buf, gaze_cp_seen_fn fn, void *arg,
		      struct gaze_cp_zone_end *end);
/* blocks a checkpoint pack may take at most (head, payload, trailer) */
u32 gaze_cp_max_pack(const struct gaze_super *sb);
/* payload blocks and trailer (rest: the pack after its head) of a pack
 * whose head verified; fsck shares it.  0 or -EFSCORRUPTED/-EFSBADCRC */
int gaze_cp_verify_pack(const struct gaze_super *sb,
			const struct gaze_cp_head *head, const u8 *rest,
			u64 blkaddr, const char **why);
/* writes two checkpoints, each in a freshly reset checkpoint zone (with
 * its superblock copy), so that no damaged pack is left in either
 * (fsck.gaze's repair); fs->lock held */
int gaze_cp_renew_zones(struct gaze_fs *fs);
/* finishes a partly written sequential checkpoint zone (not the active
 * one): keeps it out of the device's active-zone count */
int gaze_cp_zone_finish(struct gaze_fs *fs, u32 zone);
/* keeps memory bounded: writes the oldest dirty nodes (then dir blocks)
 * a batch at a time once they fill half the cache, flushes them all when
 * the cache is over its limit, and checkpoints when dirty table blocks
 * keep it over; called by namespace ops (fs->lock held) at their end */
int gaze_fs_balance(struct gaze_fs *fs);
/*
 * Before the checkpoint that settles PREFREE zones (the background GC's,
 * which nobody waits for): writes the dirty nodes, then directory blocks,
 * a write-behind batch per hold of fs->lock, which it takes itself, so
 * that the checkpoint's own hold writes only what was dirtied since
 * rather than up to half the cache while every operation waits.  At most
 * as many batches as were dirty at the start, so writers that dirty as
 * fast cannot keep it going; nothing when no zone is PREFREE.
 */
void gaze_fs_cp_steps(struct gaze_fs *fs);
/* writes dirty directory blocks, then dirty nodes (fs->lock held) */
int gaze_fs_flush_dirty(struct gaze_fs *fs);
/* seconds since mkfs by the wall clock; 0 if the clock is behind */
u64 gaze_fs_age(const struct gaze_fs *fs);

/*
 * Format: resets the zones it uses (and verifies they are empty), writes
 * both superblock copies, creates the root directory (attributes from
 * root, and /lost+found if the feature is on), writes the first
 * checkpoint and returns the instance open read-write.
 */
struct gaze_attr;
int gaze_fs_format(struct gaze_dev *dev, const struct gaze_mkfs_params *p,
		   const struct gaze_attr *root, struct gaze_fs **fsp);
int gaze_fs_open(struct gaze_dev *dev, u32 flags, struct gaze_fs **fsp);
/* read-write: final checkpoint with GAZE_CP_UMOUNT; then frees */
int gaze_fs_close(struct gaze_fs *fs);
/*
 * A checkpoint now.  The dirty nodes and directory blocks go out first a
 * batch per hold of fs->lock, as for gaze_fs_cp_steps, so that other
 * tasks' operations run between the batches; the checkpoint's own hold
 * writes what was dirtied meanwhile, the tables and the checkpoint.
 */
int __must_check gaze_fs_sync(struct gaze_fs *fs);
/*
 * Makes everything written to the core so far durable: the dirty nodes
 * go to their log marked for roll-forward, without a checkpoint, when
 * recovery can replay them (format.md section 17); else a checkpoint.
 */
int __must_check gaze_fs_fsync(struct gaze_fs *fs);
/*
 * fsync of inode ino: as gaze_fs_fsync, and when the whole dirty state
 * cannot roll forward, the dirty nodes of ino alone may (fs.c
 * fs_rf_ino_possible): what other operations changed is then left to
 * the next checkpoint, as on any filesystem.  ino 0: gaze_fs_fsync.
 */
int __must_check gaze_fs_fsync_ino(struct gaze_fs *fs, u32 ino);
/*
 * Dirty nodes and directory blocks that fsyncs of one file alone let
 * pile up (the other changes wait for a checkpoint): past
 * GAZE_RF_BACKLOG (64 MiB) the background thread is asked for one
 * (fs->cp_wanted, gaze_fs_cp_backlog), which it writes in steps; past
 * GAZE_RF_BACKLOG_MAX (no thread, or one that cannot keep up) the fsync
 * takes it itself.
 */
#define GAZE_RF_BACKLOG		16384u
#define GAZE_RF_BACKLOG_MAX	(4 * GAZE_RF_BACKLOG)
/*
 * When fsyncs of one file alone left a backlog of dirty nodes and
 * directory blocks (fs->cp_wanted): writes them in steps, as
 * gaze_fs_sync, then a checkpoint; else nothing.  Returns the
 * checkpoint's error.  For a background thread; takes fs->lock.
 */
int gaze_fs_cp_backlog(struct gaze_fs *fs);
/*
 * Recovery without a read-write mount: replays a roll-forward chain left
 * by a crash and, unless flags has GAZE_FS_KEEP_ORPHANS, frees the
 * orphans on the checkpoint's list (opens the device read-write,
 * commits a checkpoint without marking the filesystem clean).  fsck.gaze
 * -p/-y keeps the orphans (it reports them itself); a read-only mount
 * of a writable device frees them, as ext4 and XFS do.  *nodes: how many
 * nodes were replayed.
 */
int gaze_fs_replay(struct gaze_dev *dev, u32 flags, u32 *nodes);

/* ---------------------------------------------------------------- */
/* gcpolicy.c: when to collect and which zone, for every collector;  */
/* gc.c: the baseline mover.  Caller holds fs->lock.                 */
/* ---------------------------------------------------------------- */
#define GAZE_GC_POLICY_DEFAULT	(-1)	/* the superblock's victim_policy */
/* why a victim is wanted (gaze_gc_pick; gcpolicy.c explains each) */
#define GAZE_GC_FG		0	/* writers short of zones: greedy,
					 * at least 1/8 of the zone freed */
#define GAZE_GC_LAST		1	/* no other way on: greedy, 1/64 */
#define GAZE_GC_BG		2	/* ahead of need: the policy, 1/4 */
#define GAZE_GC_USER		3	/* asked for: the policy, any gain */
/* GC thresholds in zones for the geometry and the data now */
struct gaze_gc_levels {
	u32	floor;		/* FREE zones user data never opens */
	u32	headroom;	/* zones the data could leave FREE beyond
				 * floor + 1 */
	u32	fg;		/* foreground GC below fg + the write's need */
	u32	fg_batch;	/* ... and then on up to this many more */
	u32	wb;		/* FREE + PREFREE below: writeback reclaims
				 * ahead through the pipeline (module) */
	u32	bg_low, bg_high;	/* background GC, FREE + PREFREE */
};
/* low_pct / high_pct: the background thresholds in % of the main area */
void gaze_gc_levels(struct gaze_fs *fs, u32 low_pct, u32 high_pct,
		    struct gaze_gc_levels *lv);
/*
 * The victim for `why` (GAZE_GC_*): a FULL main zone, not a log head,
 * not pinned, freeing at least gaze_gc_min_gain, that fits
 * (gaze_gc_room).  -ENOENT: none worth it; -ENOSPC: the best does not
 * fit now.
 */
int gaze_gc_pick(struct gaze_fs *fs, int why, u32 *zone);
u32 gaze_gc_min_gain(const struct gaze_fs *fs, int why);
/* blocks moving `valid` blocks may write at the worst (owner nodes too) */
u64 gaze_gc_cost(struct gaze_fs *fs, u32 valid);
/*
 * 0 if moving `valid` more blocks fits beside the jobs in flight: the
 * data in the cold data log's open zone and FREE zones, the owner nodes
 * in the node logs' open zones and FREE zones, counted by whole zones,
 * since each log opens zones of its own
 */
int gaze_gc_room(struct gaze_fs *fs, u32 valid);
/* FREE zones the staged jobs in flight may still open (0 when none) */
u64 gaze_gc_jobs_zones(struct gaze_fs *fs);
/*
 * The best victim by policy (GAZE_GC_GREEDY: fewest valid blocks;
 * GAZE_GC_COST_BENEFIT: highest (1 - u) * age / (1 + u)) among all
 * candidates, whatever they gain; -ENOENT when none.
 */
int gaze_gc_select(struct gaze_fs *fs, int policy, u32 *zone);
/* cost-benefit score of a zone (higher is a better victim) */
u64 gaze_gc_cb_score(u32 valid, u32 cap, u64 age);
/* reclaims for GAZE_GC_FG and GAZE_GC_LAST are foreground GC */
static inline bool
gaze_gc_why_fg(int why)
{
	return why == GAZE_GC_FG || why == GAZE_GC_LAST;
}
/* counts a reclaim for `why` that rewrote `moved` blocks (freed
 * histograms, least freed) */
void gaze_gc_count_freed(struct gaze_fs *fs, u64 moved, int why);
/*
 * Moves every valid block out of FULL zone `zone` (data to the cold data
 * log, nodes re-dirtied), then flushes: the zone ends PREFREE.  An owner
 * slot that does not point at the block gives -EFSCORRUPTED.  why: the
 * GAZE_GC_* it is counted as.  gaze_gc_zone: the same, for GAZE_GC_USER.
 */
int gaze_gc_move(struct gaze_fs *fs, u32 zone, int why);
int gaze_gc_zone(struct gaze_fs *fs, u32 zone);
/*
 * The same move a chunk at a time, so that the module can let go of
 * fs->lock between chunks (a 1 GiB zone moved block by block held it
 * for minutes on a slow device).  gaze_gc_move_begin checks the victim
 * and fills *mv; gaze_gc_move_step moves at most `budget` valid blocks
 * from where the last step stopped, and sets *done when the zone is
 * empty (flushed, PREFREE, counted) or on an error; mv->zone is 0 then.
 * Between steps, with fs->lock dropped, blocks of the zone may be
 * overwritten (each block is checked when its turn comes) and
 * checkpoints written (the moved blocks' owners already point at their
 * new places); fs->gc_mv's zone counts as busy (gaze_gcp_zone_busy),
 * so no other collector picks it.
 */
int gaze_gc_move_begin(struct gaze_fs *fs, struct gaze_gc_mover *mv,
		       u32 zone, int why);
int gaze_gc_move_step(struct gaze_fs *fs, struct gaze_gc_mover *mv,
		      u32 budget, bool *done);
/* a chunk (fs->gc_move_chunk) of the move in progress in fs->gc_mv: 0
 * when the zone is done, 1 when more is left, or an error */
int gaze_gc_mv_step(struct gaze_fs *fs);
/*
 * Foreground GC: while FREE zones are below the fg level plus the zones
 * need_blocks takes beyond its log's open zone, reclaims GAZE_GC_FG
 * victims (GAZE_GC_LAST ones when a writer has no other way on) and
 * writes the checkpoints that turn PREFREE zones FREE, until fg_batch
 * above that or nothing more can be gained.  With fs->gc_fg_stepped
 * (the module, which makes room before the operation: the pipeline, or
 * this policy a step at a time, gaze_gc_fg_start below), only until
 * FREE zones are above the floor by what the write needs: the whole
 * run holds fs->lock.
 * Called by namespace operations at consistent points, never from
 * inside an allocation; returns 0 or a hard error (not -ENOSPC: the
 * allocation that follows decides that).
 */
int gaze_gc_balance(struct gaze_fs *fs, u64 need_blocks);
/*
 * The same for metadata about to be written back (dirty nodes and
 * directory blocks, which may open the floor's zones): GC only while
 * writing them would leave fewer FREE zones than the floor.
 */
int gaze_gc_balance_meta(struct gaze_fs *fs, u64 meta_blocks);
/*
 * The same a step at a time, for a caller that lets go of fs->lock
 * between steps (the module, so that no task waits on it for more than
 * one zone's move): start says whether a run is wanted; each step moves
 * one victim or writes one checkpoint (the caller sets fs->gc_active
 * around it), *done when the run is over.
 */
bool gaze_gc_fg_start(struct gaze_fs *fs, u64 need_blocks,
		      struct gaze_gc_fg_run *r);
/*
 * fs->lock: after writeback's room steps (gaze_wb_room_step) for a batch
 * of nr blocks, with reclaims still in flight (in_flight) and the room
 * still short of the fg level, starts the run the core's balance in the
 * write would make (fs->gc_fg_stepped: FREE zones above the floor by the
 * batch's need, no batch), for the caller to step with gaze_gc_fg_step
 * while letting go of fs->lock between steps, so that the stages of the
 * jobs in flight are not kept from the lock for a whole zone's move.
 */
bool gaze_wb_room_rest(struct gaze_fs *fs, u64 nr, bool in_flight,
		       struct gaze_gc_fg_run *r);
int gaze_gc_fg_step(struct gaze_fs *fs, struct gaze_gc_fg_run *r,
		    bool *done);
/*
 * After gaze_gc_fg_start (fs->lock): splits run r in two.  The writer
 * keeps the run up to the fg level (r->want becomes r->enough); the
 * whole run, when it goes on for a batch beyond that, waits in
 * fs->gc_fg_rest for the background collector (gaze_gc_background),
 * which the caller wakes.  Nothing is handed over when a step would
 * find nothing to move (no zone half moved, no victim that frees what a
 * foreground reclaim must).
 * For a writer that does not wait for GC to go on writing (selective
 * blocking) and has a background collector.
 */
void gaze_gc_fg_handoff(struct gaze_fs *fs, struct gaze_gc_fg_run *r);
/* gaze_gc_bg_wanted / gaze_gc_background flags */
#define GAZE_GC_BG_GOING	0x1	/* a step ran: go on below bg_high */
#define GAZE_GC_BG_URGENT	0x2	/* the percentages as set, not capped
					 * by the data's headroom (sync) */
#define GAZE_GC_BG_FORCE	0x4	/* a step whatever the levels */
/* FREE + PREFREE zones are below bg_low (GOING: below bg_high) */
bool gaze_gc_bg_wanted(struct gaze_fs *fs, u32 low_pct, u32 high_pct,
		       u32 flags);
/*
 * One background step: a step of the writer's run waiting in
 * fs->gc_fg_rest if one is; else, if gaze_gc_bg_wanted (or FORCE),
 * reclaims one GAZE_GC_BG victim and, when PREFREE zones are waiting,
 * writes a checkpoint.  *more: another step would still help.  0 or an
 * error.
 */
int gaze_gc_background(struct gaze_fs *fs, u32 low_pct, u32 high_pct,
		       u32 flags, bool *more);
/* writes the checkpoints that turn every PREFREE zone FREE (two) */
int gaze_gc_settle(struct gaze_fs *fs);
/* gc.c internals gcpipe.c shares: owner node nid whatever its type (tmp:
 * a scratch block; ref held); is an owner node a directory's; verify a
 * directory block and re-dirty its cached copy (*done); lifetime
 * counters for the checkpoint; time of one reclaim */
int gaze_gc_node_get(struct gaze_fs *fs, u32 nid, void *tmp,
		     struct gaze_mbuf **mbp);
int gaze_gc_owner_is_dir(struct gaze_fs *fs, struct gaze_mbuf *owner,
			 bool *dir);
/* zone can be collected now: FULL, not a log head (-EINVAL), not pinned
 * by a staged job (-EBUSY); *u gets its use */
int gaze_gc_victim_check(struct gaze_fs *fs, u32 zone,
			 struct gaze_zone_use *u);
/* block slots of an owner node (inode or direct node; 0 for others) */
u32 gaze_gc_owner_slots(const struct gaze_mbuf *owner);
int gaze_gc_dir_block(struct gaze_fs *fs, u64 addr, void *blk, bool *done);
void gaze_gc_count_cp(struct gaze_fs *fs, u64 zones, u64 moved);
void gaze_gc_account_zone(struct gaze_fs *fs, u64 ns, bool done);

/* ---------------------------------------------------------------- */
/* gcpipe.c: reclaiming a zone in four stages (the pipelined GC).    */
/* A job walks one victim zone in batches; each batch goes through   */
/* the stages in order.  The module runs each stage on its own       */
/* thread with bounded queues between them; tests run them in turn.  */
/* Locking: preread, prewrite, write, begin and end need fs->lock;   */
/* gaze_gcp_read must be called WITHOUT it (it only reads blocks).   */
/* ---------------------------------------------------------------- */
#define GAZE_GCP_BATCH		64	/* blocks per batch, at most */
/*
 * The read stage reads across a gap of up to gaze_gcp_batch.gap_max
 * (at most GAZE_GCP_GAP) blocks that are not copied (invalid, or nodes)
 * into the batch's scratch block, so one request covers many short
 * runs: on a victim half valid at random, runs average two blocks, and
 * a synchronous request per run costs far more than the few extra
 * blocks it moves.  One request spans at most GAZE_GCP_SPAN blocks.
 */
#define GAZE_GCP_GAP		16
#define GAZE_GCP_SPAN		128
#define GAZE_GCP_MAX_JOBS	GAZE_GCP_MAX_JOBS_ /* victims in flight at once */

/* gaze_gcp_ent.act: what the later stages do with the block */
#define GAZE_GCP_SKIP		0	/* nothing (no longer valid, done) */
#define GAZE_GCP_NODE		1	/* node: re-dirtied by prewrite */
#define GAZE_GCP_DATA		2	/* file data: copy, move the slot */
#define GAZE_GCP_DIR		3	/* uncached directory block: copy with
					 * its header renewed, move the slot */

struct gaze_gcp_ent {
	u64			addr;	/* the block in the victim */
	struct gaze_summary	sum;	/* its owner, as preread saw it */
	u8			act;	/* GAZE_GCP_* */
	void			*buf;	/* GAZE_BLOCK_SIZE, the caller's page */
};

struct gaze_gcp_job {
	u32	zone;			/* the victim (absolute zone) */
	u32	cursor;			/* next block offset preread scans */
	u32	valid0;			/* valid blocks when it began */
	u32	slot;			/* index in fs->gcp_zone[] */
	u64	t0;			/* gaze_time_ns() at begin */
	u64	moved;			/* blocks the job rewrote */
	int	err;			/* first error; later stages skip */
	bool	scanned;		/* preread reached the zone's end */
	int	why;			/* GAZE_GC_*: FG, LAST count in zones_fg */
};

struct gaze_gcp_batch {
	struct list_head	link;	/* the caller's queues */
	struct gaze_gcp_job	*job;
	u32			nr;	/* entries in ent[] */
	int			err;	/* the read stage's error */
	u32			nbuf;	/* entries that need a buffer (read) */
	void			*gap;	/* GAZE_BLOCK_SIZE scratch the read
					 * stage reads gaps into, or NULL:
					 * no gap reads; the caller's, and
					 * only the read stage's meanwhile */
	u32			gap_max; /* longest gap read (blocks) */
	u64			gap_blocks; /* gap blocks read (stats) */
	struct gaze_gcp_move	*move;	/* the write stage's, begin to end */
	/* a try of preread or prewrite that named a miss (fs->miss, see
	 * gaze_gcp_preread_unlocked): where the next try goes on */
	bool			pr_more; /* preread: keep the entries */
	u32			pw_next; /* prewrite: first entry left */
	struct gaze_gcp_ent	ent[GAZE_GCP_BATCH];
};

/*
 * Starts a job on `zone` (FULL, not a log head), or on the best victim
 * for `why` when zone is GAZE_GCP_ANY (gaze_gc_pick); either way it must
 * fit (gaze_gc_room, -ENOSPC).  The zone is
 * pinned: no victim selection picks it again and it does not become
 * FREE, even if it empties, until gaze_gcp_end; its invalid blocks count
 * in gaze_gcp_gain.  -ENOENT: no victim; -EBUSY: GAZE_GCP_MAX_JOBS in
 * flight or the zone is already being collected.
 */
#define GAZE_GCP_ANY		((u32)-1)
int gaze_gcp_begin(struct gaze_fs *fs, u32 zone, int why,
		   struct gaze_gcp_job *job);
/* the valid blocks the jobs in flight may still move; *jobs: how many */
u64 gaze_gcp_pending_valid(struct gaze_fs *fs, u32 *jobs);
/*
 * Stage 1, preread: scans from job->cursor for up to `max` (at most
 * GAZE_GCP_BATCH) valid blocks, filling addr, sum and act (NODE or
 * DATA; buf left to the caller).  batch->nbuf counts entries needing a
 * buffer (act != NODE).  batch->nr == 0 and job->scanned: the zone is done.
 */
int gaze_gcp_preread(struct gaze_fs *fs, struct gaze_gcp_job *job,
		     struct gaze_gcp_batch *b, u32 max);
/* Stage 2, read (NO fs->lock): reads every entry with act != NODE,
 * runs of consecutive blocks in one device request each; with b->gap
 * set and a device with readv, runs no more than b->gap_max blocks
 * apart share one request (see GAZE_GCP_GAP) */
int gaze_gcp_read(struct gaze_fs *fs, struct gaze_gcp_batch *b);
/*
 * Stage 3, prewrite: checks each entry against the current state (still
 * valid, same owner; the owner's slot or the imap points at it: otherwise
 * SKIP, the block was overwritten, truncated, punched or deleted in the
 * meantime and is never brought back), verifies owners and directory
 * blocks, loads the owner nodes into the cache, re-dirties nodes and
 * cached directory blocks (their flush moves them), and marks the rest
 * DATA or DIR.
 */
int gaze_gcp_prewrite(struct gaze_fs *fs, struct gaze_gcp_batch *b);
/*
 * The two with their cold reads made without fs->lock (held on entry and
 * on return, let go meanwhile): each try runs with fs->miss set, so a
 * table block or owner node that is not cached is named and the try
 * stops (-GAZE_EMISS) before it changes anything for that entry; the
 * block is then read with the lock let go (gaze_miss_fetch) and the
 * stage goes on from the entry it stopped at (b->pr_more, b->pw_next),
 * taking the block if it is still the one named (same address, no zone
 * reset meanwhile).  Entries already done stay done: everything they
 * decided is checked again by the write stage, as when the stages run
 * apart.  -EROFS: the filesystem went read-only meanwhile.
 */
int gaze_gcp_preread_unlocked(struct gaze_fs *fs, struct gaze_gcp_job *job,
			      struct gaze_gcp_batch *b, u32 max);
int gaze_gcp_prewrite_unlocked(struct gaze_fs *fs, struct gaze_gcp_batch *b);
/*
 * Stage 4, write: for the DATA/DIR entries whose block is STILL valid
 * with the same owner slot, allocates destinations in the cold data log,
 * writes them in runs with one device request each, then checks each
 * entry again and points its slot at the copy and invalidates the old
 * block (a copy whose block was overwritten meanwhile is invalidated).
 * Returns the first error (also in job->err).
 *
 * In three steps, so that the device write needs no fs->lock:
 *   begin (fs->lock)  check, allocate, take fs->gcw_lock;
 *   io    (NO lock)   write the copies, drop fs->gcw_lock;
 *   end   (fs->lock)  the commit above, unless a checkpoint or an
 *                     allocation in that log already made it
 *                     (gaze_gcp_settle).
 * Between begin and end the copies are valid blocks no owner points at;
 * their zones count as busy (no victim selection picks them), every
 * checkpoint commits the move first, and the next allocation in the
 * same log waits for the write.  The same thread runs io right after
 * begin: nothing that may settle can run between them in that thread.
 * gaze_gcp_write is the three in one hold.
 */
int gaze_gcp_write(struct gaze_fs *fs, struct gaze_gcp_batch *b);
int gaze_gcp_write_begin(struct gaze_fs *fs, struct gaze_gcp_batch *b);
void gaze_gcp_write_io(struct gaze_fs *fs, struct gaze_gcp_batch *b);
int gaze_gcp_write_end(struct gaze_fs *fs, struct gaze_gcp_batch *b);
/* fs->lock: commits the move in flight, if any, after its write ends */
void gaze_gcp_settle(struct gaze_fs *fs);
/* fs->lock: before an allocation in log li, waits for a move's write
 * in flight there (zones take their writes in order) */
void gaze_gcp_log_wait(struct gaze_fs *fs, u32 li);
/*
 * Ends a job (after its last batch, or on error): flushes the re-dirtied
 * nodes and directory blocks, checks the zone is empty (PREFREE), counts
 * it and its time in fs->gc, and unpins it.  Returns job->err or the
 * flush's error.
 */
int gaze_gcp_end(struct gaze_fs *fs, struct gaze_gcp_job *job);
/* blocks that in-flight jobs will free: sum of (cap - valid0) */
u64 gaze_gcp_gain(struct gaze_fs *fs);
/* is `zone` pinned by a job, or where a move's copies are in flight?
 * (space.c keeps it PREFREE; select skips) */
bool gaze_gcp_zone_busy(const struct gaze_fs *fs, u32 zone);
/* vectored block I/O: the device's readv/writev when it has them, else
 * block by block; bufs[i] is one GAZE_BLOCK_SIZE block.  One request
 * never crosses a zone boundary: a run of allocated blocks goes on from
 * prev to next only if gaze_blocks_run_on (next follows prev in the
 * same zone; a log may open the zone right after a full one). */
int gaze_blocks_readv(struct gaze_fs *fs, u64 addr, u32 nr, void *const *bufs);
int gaze_blocks_writev(struct gaze_fs *fs, u64 addr, u32 nr,
		       void *const *bufs);
/* the device's part alone, for a caller without fs->lock: a failure
 * must then be handed to gaze_space_write_failed (the run's last block)
 * under fs->lock */
int gaze_blocks_writev_dev(struct gaze_fs *fs, u64 addr, u32 nr,
			   void *const *bufs);
void gaze_space_write_failed(struct gaze_fs *fs, u64 addr);
bool gaze_blocks_run_on(const struct gaze_fs *fs, u64 prev, u64 next);
/* writes allocated blocks addrs[0..nr) from bufs in such runs */
int gaze_blocks_write_runs(struct gaze_fs *fs, const u64 *addrs, u32 nr,
			   void *const *bufs);
/* the same with the device's part alone (no fs->lock needed): on a
 * failure *fail is the failed run's last block, for
 * gaze_space_write_failed under fs->lock */
int gaze_blocks_write_runs_dev(struct gaze_fs *fs, const u64 *addrs, u32 nr,
			       void *const *bufs, u64 *fail);

/* ---------------------------------------------------------------- */
/* Write reservations (space.c), for selective blocking: buffered     */
/* data accepted into memory is promised a block, so writeback never */
/* meets ENOSPC.  Caller holds fs->resv_lock (a spinlock: these are  */
/* called from write_begin without fs->lock); the counts they read   */
/* from fs->lock's state are READ_ONCE snapshots, see space.c.       */
/* ---------------------------------------------------------------- */
/*
 * Reserves nr blocks for dirty data: 0, -ENOSPC (the filesystem is full
 * even after every possible reclaim: the write fails) or -EAGAIN (space
 * exists but only once GC frees it: wait and retry).  `overwrite`: the
 * blocks replace blocks the file already has (no logical growth).
 */
int gaze_resv_get(struct gaze_fs *fs, u32 nr, bool overwrite);
/* gives back reservations (written back, truncated, or dropped) */
void gaze_resv_put(struct gaze_fs *fs, u32 nr);
/* gaze_resv_get without the physical rule (-ENOSPC only): for a writer
 * that waited long enough; writeback's foreground GC finds the room */
int gaze_resv_get_logical(struct gaze_fs *fs, u32 nr, bool overwrite);
/* the published counts the rules use (free user blocks, blocks writable
 * without waiting for GC); any context */
void gaze_resv_snapshot(struct gaze_fs *fs, u64 *user_free, u64 *phys);
/* any context: the blocks writable without waiting for GC are fewer than
 * nr beyond the GC's wb level (gaze_gc_levels): writeback should reclaim
 * ahead, through the pipeline */
bool gaze_space_wb_short(struct gaze_fs *fs, u64 nr);
/* any context: without the gain of the jobs in flight, the FREE and
 * PREFREE zones and the data log's open zone hold fewer than nr blocks
 * beyond the GC's fg level: a write of nr blocks now would run the
 * core's own foreground GC (the baseline mover under fs->lock) */
bool gaze_space_fg_short(struct gaze_fs *fs, u64 nr);
/*
 * Writeback's room, one step (any context): what a writeback batch of nr
 * blocks does next with the pipeline on (the module's resv.c
 * gaze_resv_wb_room, and tests/core/test_geom.c as a model of it).
 * in_flight: a reclaim is in flight; may_start: the batch may start one
 * (fewer than GAZE_WB_ROOM_JOBS started, and the last start was not
 * refused: gaze_wb_room_busy).
 *   GAZE_WB_START  start a reclaim nobody waits for, then step again
 *   GAZE_WB_WAIT   wait for the jobs in flight to make room, then again
 *   GAZE_WB_GO     write
 */
enum gaze_wb_step { GAZE_WB_GO, GAZE_WB_START, GAZE_WB_WAIT };
#define GAZE_WB_ROOM_JOBS	8	/* reclaims one batch starts */
enum gaze_wb_step gaze_wb_room_step(struct gaze_fs *fs, u64 nr,
				    bool in_flight, bool may_start);
/* a reclaim start refused for now (busy, or no room beside the jobs in
 * flight): the batch may still wait; any other error ends the steps */
bool gaze_wb_room_busy(int err);
/*
 * fs->lock: refreshes those counts.  space.c calls it wherever they
 * change; gcpipe.c calls it after changing fs->gcp_zone/gcp_gain (begin
 * and end of a job).
 */
void gaze_space_publish(struct gaze_fs *fs);
/* fs->lock: file data writeback (namei.c gaze_file_write*) spends the
 * reservations; `over` blocks of it replace mapped blocks */
void gaze_space_wb_begin(struct gaze_fs *fs, u32 over);
void gaze_space_wb_end(struct gaze_fs *fs);

/* ---------------------------------------------------------------- */
/* Namespace (inode.c bmap.c dir.c xattr.c namei.c)                  */
/* Entry points take fs->lock.                                       */
/* ---------------------------------------------------------------- */
struct gaze_attr {
	u32	ino;
	u32	mode;
	u32	uid, gid;
	u32	nlink;
	u64	size;
	u64	blocks;			/* 4 KiB blocks */
	s64	atime, mtime, ctime, crtime;
	u32	atime_nsec, mtime_nsec, ctime_nsec, crtime_nsec;
	u32	rdev_major, rdev_minor;
	u32	flags;			/* GAZE_IF_*, GAZE_ATTR_CLUSTERS */
	u32	generation;
	/* read only: how new writes compress (GAZE_COMPRESS_*), the
	 * cluster size, and the blocks compression saves */
	u8	compress_algo, compress_level, compress_log_cluster;
	u64	compr_blocks;
};
/* in gaze_attr.flags only: the file has clusters (compress_log_cluster) */
#define GAZE_ATTR_CLUSTERS	0x80000000u

/* gaze_ns_setattr mask */
#define GAZE_SET_MODE	0x01
#define GAZE_SET_UID	0x02
#define GAZE_SET_GID	0x04
#define GAZE_SET_SIZE	0x08
#define GAZE_SET_ATIME	0x10
#define GAZE_SET_MTIME	0x20
#define GAZE_SET_CTIME	0x40
#define GAZE_SET_CRTIME	0x80
/* the flags a user may change (chattr); the others stay the core's */
#define GAZE_SET_FLAGS	0x100
#define GAZE_IF_USER	(GAZE_IF_APPEND | GAZE_IF_IMMUTABLE | GAZE_IF_NOATIME | \
			 GAZE_IF_NODUMP | GAZE_IF_SYNC)
/* GAZE_SET_FLAGS also turns GAZE_IF_COMPRESS on or off (chattr +c) */

typedef int (*gaze_filldir_t)(void *ctx, const char *name, u32 len, u32 ino,
			      u8 dtype, u64 cookie);

/* creates the root (and lost+found) during format */
int __must_check gaze_ns_init_root(struct gaze_fs *fs, const struct gaze_attr *root);
int gaze_ns_lookup(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
		   u32 *ino, u8 *dtype);
/* regular, dir, chr, blk, fifo, sock: a->mode gives the type; a->ino is
 * ignored; times and owners are taken from a.  *ino gets the new inode. */
int __must_check gaze_ns_mknod(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
		  const struct gaze_attr *a, u32 *ino);
int __must_check gaze_ns_symlink(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
		    const char *target, u32 tlen, const struct gaze_attr *a,
		    u32 *ino);
/*
 * gaze_ns_mknod, or gaze_ns_symlink when target is not NULL (a
 * NUL-terminated string; a->mode's type is then ignored), that also
 * gives, from the same hold of fs->lock, the new inode's attributes
 * (out[0], out[0].ino its number) and its directory's after the change
 * (out[1]): the module needs no getattr of either after a create.
 */
int __must_check gaze_ns_create(struct gaze_fs *fs, u32 dir, const char *name,
				u32 len, const struct gaze_attr *a,
				const char *target, struct gaze_attr out[2]);
int __must_check gaze_ns_link(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
		 u32 ino);
/*
 * What a link, unlink or rename did to the inodes it touched, taken in the
 * same hold of fs->lock as the change, so that the module needs no getattr
 * after it.  Slots by role: the (old) directory, the inode linked, unlinked
 * or moved, the new directory and the inode replaced or exchanged.  A slot
 * the operation did not touch has ino 0.  A bit of freed says the core
 * freed that slot's inode (its attributes are its last ones, nlink 0): its
 * number may soon name another inode.
 */
enum {
	GAZE_OUT_DIR,		/* link, unlink: the directory; rename: old */
	GAZE_OUT_INODE,		/* the inode linked, unlinked or moved */
	GAZE_OUT_NDIR,		/* rename: the new directory */
	GAZE_OUT_NINODE,	/* rename: the inode replaced or exchanged */
	GAZE_OUT_NR
};

struct gaze_ns_out {
	struct gaze_attr	a[GAZE_OUT_NR];
	u32			freed;	/* bit (1 << slot) */
};

/*
 * gaze_ns_link with flags.  GAZE_NS_LINK_ORPHAN: an orphan (nlink 0,
 * GAZE_IF_ORPHAN) may be given a name, and stops being one; without it,
 * and for an inode with no links that is not an orphan, -ENOENT.  The
 * module passes it for linkat(2) of an O_TMPFILE file (the VFS refuses
 * the unlinked files that may not get a name back, I_LINKABLE).  out:
 * NULL, or filled on success as struct gaze_ns_out says (here and in
 * gaze_ns_unlink_flags and gaze_ns_rename).
 */
#define GAZE_NS_LINK_ORPHAN	0x200
int __must_check gaze_ns_link_flags(struct gaze_fs *fs, u32 dir, const char *name,
		       u32 len, u32 ino, u32 flags, struct gaze_ns_out *out);
/*
 * open(O_TMPFILE): a regular file (a->mode, -EINVAL for another type)
 * with no name, its parent dir, created an orphan: nlink 0, on the orphan
 * list, freed by gaze_ns_orphan_evict (last close) or at the next
 * read-write open after a crash, unless gaze_ns_link_flags names it.
 */
int __must_check gaze_ns_tmpfile(struct gaze_fs *fs, u32 dir,
		    const struct gaze_attr *a, u32 *ino);
/* unlink a non-directory, or remove an empty directory */
int __must_check gaze_ns_unlink(struct gaze_fs *fs, u32 dir, const char *name, u32 len);
/*
 * gaze_ns_unlink with flags.  GAZE_NS_IN_USE: the caller still uses the
 * inode (open file); a non-directory whose last link goes is not freed
 * but becomes an orphan (GAZE_IF_ORPHAN, recorded in every checkpoint)
 * until gaze_ns_orphan_evict, or until the next read-write open after a
 * crash.  Its data stays readable and writable by number meanwhile.
 */
#define GAZE_NS_IN_USE		0x100
int __must_check gaze_ns_unlink_flags(struct gaze_fs *fs, u32 dir, const char *name,
			 u32 len, u32 flags, struct gaze_ns_out *out);
/* frees orphan ino (last close); -ENOENT if it is not an orphan */
int __must_check gaze_ns_orphan_evict(struct gaze_fs *fs, u32 ino);
/*
 * rename(2)/renameat2(2): moves olddir/oname to newdir/nname.  flags:
 * GAZE_RENAME_NOREPLACE (-EEXIST if nname exists), GAZE_RENAME_EXCHANGE
 * (swaps two existing names, which may be of different types); the
 * values are the kernel's RENAME_* ones.  Without EXCHANGE an existing
 * nname is replaced: a non-directory by a non-directory, an empty
 * directory by a directory (-EISDIR, -ENOTDIR, -ENOTEMPTY otherwise);
 * the replaced inode loses a link and is freed at 0.  A directory moved
 * to another parent gets inode.parent ('..') updated and both parents'
 * nlink adjusted; moving one into its own subtree gives -EINVAL.  Two
 * names of the same inode: nothing happens, 0 (and out's slots are all
 * untouched).  Both directories get mtime and ctime, moved inodes ctime.
 */
#define GAZE_RENAME_NOREPLACE	1
#define GAZE_RENAME_EXCHANGE	2
/*
 * GAZE_RENAME_WHITEOUT (with or without NOREPLACE, not with EXCHANGE):
 * after the move, oname becomes a whiteout, a character device 0:0 with
 * the moved inode's owner and mode 0 permissions (overlayfs).
 */
#define GAZE_RENAME_WHITEOUT	4
/*
 * Not a kernel flag: the caller still uses the replaced inode (an open
 * file), so at nlink 0 it becomes an orphan (see gaze_ns_unlink_flags).
 */
#define GAZE_RENAME_IN_USE	GAZE_NS_IN_USE
int __must_check gaze_ns_rename(struct gaze_fs *fs, u32 olddir, const char *oname,
		   u32 olen, u32 newdir, const char *nname, u32 nlen,
		   u32 flags, struct gaze_ns_out *out);
/* *pos: 0 starts ('.' then '..' then entries in cookie order); fn returns
 * non-zero to stop; *pos is left at the next position.
 * fn gets each entry's own position as cookie ('.' 0, '..' 1, then
 * max(2, hash >> 1)); resuming at cookie + 1 continues after it.  The
 * entry fn is called with counts as emitted whatever fn returns, and a
 * stop takes effect only before an entry with a different cookie (a
 * collision group is never split).  The end leaves *pos at
 * 0x7fffffffffffffff. */
int gaze_ns_readdir(struct gaze_fs *fs, u32 dir, u64 *pos,
		    gaze_filldir_t fn, void *ctx);
/*
 * Inode readahead, as readdir's caller lists entries that are about to be
 * looked up and stat'ed (F2FS's readdir reads their inodes ahead too):
 * the inode blocks of inos[0..n) that the cache lacks are read without
 * fs->lock, each run of consecutive addresses in one request, and
 * inserted.  Best effort: a block that moved meanwhile, or fails its
 * checks, is left to be read when it is needed.  How many were inserted.
 */
u32 gaze_ns_prefetch_inodes(struct gaze_fs *fs, const u32 *inos, u32 n);
int gaze_ns_getattr(struct gaze_fs *fs, u32 ino, struct gaze_attr *a);
int __must_check gaze_ns_setattr(struct gaze_fs *fs, u32 ino, const struct gaze_attr *a,
		    u32 mask);
/* returns bytes or -errno; reads past EOF return 0; holes read zero */
s64 gaze_file_read(struct gaze_fs *fs, u32 ino, void *buf, u64 len, u64 off);
/* returns bytes or -errno; extends size; all-zero whole blocks are still
 * written (use holes by not writing them) */
s64 __must_check gaze_file_write(struct gaze_fs *fs, u32 ino, const void *buf, u64 len,
		    u64 off);
/* a size not above the old one also frees the blocks preallocated past
 * it (fallocate KEEP_SIZE), as ext4 and XFS do */
int __must_check gaze_file_truncate(struct gaze_fs *fs, u32 ino, u64 size);
/*
 * gaze_file_truncate for truncate(2) in the module, whose size can be
 * ahead of the core's while written pages are dirty: trim says the
 * size did not grow in the caller's view, so preallocated blocks past it
 * are freed whatever the core's size
 */
int __must_check gaze_file_truncate_trim(struct gaze_fs *fs, u32 ino,
					 u64 size, bool trim);
/*
 * Writeback of whole blocks: nr blocks from buf (contiguous) become file
 * blocks fblk..fblk+nr-1, written to consecutive log blocks with as few
 * device writes as the zones allow; the size becomes at least `size`
 * (bytes, within the last block).  An inline file is converted first.
 * Returns 0 or -errno; on error no block of the call is mapped.
 */
int __must_check gaze_file_write_blocks(struct gaze_fs *fs, u32 ino, u64 fblk, u32 nr,
			   const void *buf, u64 size);
/*
 * The same for scattered blocks: bufs[i] (one block each; page-aligned
 * ones go to the device without a copy) becomes file block fblks[i]; the
 * fblks ascend strictly (-EINVAL otherwise).  All nr blocks still go to
 * consecutive log blocks, so random writeback is one device write per
 * zone it touches.  Returns 0 or -errno; on error none is mapped.
 */
int __must_check gaze_file_write_vec(struct gaze_fs *fs, u32 ino, const u64 *fblks,
			u32 nr, void *const *bufs, u64 size);
/* the same with clusters encoded by the caller (gaze_cluster_plan) */
int __must_check gaze_file_write_vec_enc(struct gaze_fs *fs, u32 ino,
			const u64 *fblks, u32 nr, void *const *bufs, u64 size,
			struct gaze_cluster_enc *enc, u32 nenc);
/*
 * Brings what a write of the nr ascending blocks fblks will read into
 * the cache (the block-map nodes it walks, and the table blocks of the
 * blocks it replaces), reading them without fs->lock (struct gaze_miss),
 * so the write need not read them under it: best effort, it goes on
 * while each run of GAZE_MISS_TRIES fetches gets further, and never reads
 * under the lock.
 */
void gaze_file_map_warm(struct gaze_fs *fs, u32 ino, const u64 *fblks,
			u32 nr);
/*
 * The same for a cut of file blocks [from, to) (truncate, punch hole,
 * zero range, freeing an orphan): the map nodes over it and the table
 * blocks of those nodes and of the blocks mapped there; self: also the
 * table block of the inode's own node (it is freed too).  At most 2^18
 * blocks from `from` are looked at.
 */
void gaze_file_range_warm(struct gaze_fs *fs, u32 ino, u64 from, u64 to,
			  bool self);
/*
 * Before a cut that zeroes bytes [off, end) of a file (a truncate to off
 * with end U64_MAX, a punch hole or zero range): the data blocks it
 * rewrites in part, at most two, read without fs->lock into
 * fs->staged[], so that the cut reads none of them under it.  Best
 * effort, like the warm-ups above; never reads under the lock.  A cut
 * with off aligned and end aligned or U64_MAX cuts no block in part,
 * whatever the size: then it returns without taking the lock.
 */
void gaze_file_edges_warm(struct gaze_fs *fs, u32 ino, u64 off, u64 end);
/*
 * The run of file blocks from fblk that is mapped to consecutive device
 * blocks (*addr, *nr <= max), or a hole (*addr 0, *nr blocks of it up to
 * max or the next mapped block).  -ENODATA for an inline file, whose
 * data is in the inode.
 */
int gaze_file_map(struct gaze_fs *fs, u32 ino, u64 fblk, u32 max, u64 *addr,
		  u32 *nr);
/*
 * stat(2) of a file with dirty pages: *blocks is its block count now and
 * *holes how many blocks of the runs (runs[2i] the first block, runs[2i +
 * 1] how many; ascending) hold neither a block nor a preallocation
 * (gaze_bmap_range's count, the rule writeback's allowance uses): the
 * blocks writeback of dirty pages there adds, which st_blocks counts at
 * once, as delayed allocation does on ext4, XFS and btrfs.  Pages of
 * packed clusters count whole until they are encoded again.  An inline
 * file adds none while size (the caller's) fits inline, else each block
 * listed (block 0, which its bytes in the inode become, only when
 * listed: it is, unless a write far past them leaves page 0 clean).
 * One map walk per run: a file written in order costs its map nodes,
 * not its pages.  Nothing is read from the device (stat stays cheap, and
 * is not charged the map's reads): under a map node that is not in the
 * cache, dirty pages below the inode's size count as overwrites and
 * those past it as holes, so there st_blocks is an estimate until
 * writeback, as btrfs's count of all delalloc bytes is.
 */
int gaze_file_dirty_blocks(struct gaze_fs *fs, u32 ino, const u64 *runs,
			   u32 nruns, u64 size, u64 *blocks, u64 *holes);
/*
 * The packed cluster holding fblk (GAZE_MAP_ENCODED from gaze_file_map):
 * its data blocks (*nvalid) and the device addresses of its *n stream
 * blocks (addrs: GAZE_CLUSTER_MAX_BLOCKS), for a reader that reads and
 * decodes them without the lock (gaze_cluster_decode; a stream moved and
 * overwritten meanwhile fails its checksum: read it again through
 * gaze_file_read).  -ENODATA when that cluster is not packed.
 */
int gaze_file_map_cluster(struct gaze_fs *fs, u32 ino, u64 fblk, u64 *addrs,
			  u32 *n, u32 *nvalid);
/*
 * How many blocks the cluster holding fblk may still grow by when it is
 * stored again: its size in blocks less those it holds now (the stream's
 * when packed, the mapped and preallocated slots when plain).  0 for a
 * plain cluster with every slot mapped; the cluster's size for one never
 * written or still inline.  *room = 0 for a file without clusters.
 */
int gaze_file_cluster_room(struct gaze_fs *fs, u32 ino, u64 fblk, u32 *room);
/*
 * fallocate(2) of a regular file; mode bits are the kernel's FALLOC_FL_*
 * values.  0 / KEEP_SIZE ("allocate"): with the ro_compat feature
 * prealloc, every hole among the blocks the range touches becomes
 * GAZE_ADDR_PREALLOC: no place yet (a log writes each block where it
 * stands), but counted as used (inode blocks, cp prealloc_blocks), so
 * later writes there find room; -ENOSPC before anything changes when
 * they do not fit.  Past the size with KEEP_SIZE too; truncate (to any
 * size not above the old one) frees them there.  Without the feature,
 * and in files with clusters, the holes only have to fit now.  Without
 * KEEP_SIZE the size grows to cover the range.  PUNCH_HOLE (with
 * KEEP_SIZE, as the kernel requires): whole blocks in the range become
 * holes (their space is freed), partial blocks get zeroes; never past
 * the size.  ZERO_RANGE [| KEEP_SIZE]: the same on the range, then (with
 * preallocation) its blocks are preallocated again, as an allocate of
 * the range; without KEEP_SIZE the size grows to cover it.
 * COLLAPSE_RANGE (alone): the
 * whole blocks [off, off + len), ending before the size, go and what
 * follows moves down by len; INSERT_RANGE (alone): a hole of len is
 * opened at off, below the size, and what follows moves up.  Both copy
 * the moved blocks through the log (holes stay holes, preallocated
 * blocks stay preallocated), so they need that
 * much free space first (-ENOSPC), and take time in the file's length
 * after off; -EINVAL for an unaligned or out-of-range request.
 * Anything else: -EOPNOTSUPP.  Sets mtime and ctime when it changes
 * anything.
 */
#define GAZE_FALLOC_KEEP_SIZE		0x01
#define GAZE_FALLOC_PUNCH_HOLE		0x02
#define GAZE_FALLOC_COLLAPSE_RANGE	0x08
#define GAZE_FALLOC_ZERO_RANGE		0x10
#define GAZE_FALLOC_INSERT_RANGE	0x20
int __must_check gaze_file_fallocate(struct gaze_fs *fs, u32 ino, u32 mode, u64 off,
			u64 len);
/* gaze_cluster_set_prop on inode ino (gazectl set compression=) */
int __must_check gaze_ns_set_compress(struct gaze_fs *fs, u32 ino, u8 algo,
				      u8 level);
/* data block address of a file block (0 = hole), for tools and fsck */
int gaze_file_bmap(struct gaze_fs *fs, u32 ino, u64 fblk, u64 *addr);
int gaze_ns_readlink(struct gaze_fs *fs, u32 ino, char *buf, u32 buflen);
/* full names ("user.x", "system.posix_acl_access"); flags 1 = create
 * only, 2 = replace only (XATTR_CREATE/REPLACE values) */
int gaze_xattr_set(struct gaze_fs *fs, u32 ino, const char *name,
		   const void *val, u32 len, int flags);
/* returns value length or -errno; buf NULL/size 0 asks for the length */
int gaze_xattr_get(struct gaze_fs *fs, u32 ino, const char *name, void *buf,
		   u32 size);
/* NUL-separated names; returns total length or -errno (-ERANGE) */
int gaze_xattr_list(struct gaze_fs *fs, u32 ino, char *buf, u32 size);
int gaze_xattr_remove(struct gaze_fs *fs, u32 ino, const char *name);
/*
 * Where inode ino keeps its xattrs (FIEMAP_FLAG_XATTR): the bytes used in
 * the inode (its i_xattr area) and whether it has an xattr node.  An
 * address is the block's on the device, 0 while the block has changes
 * not yet written (its next place is not known before it is written).
 */
struct gaze_xattr_place {
	u32	inline_used;	/* bytes of i_xattr in use */
	bool	node;		/* an xattr node of its own */
	u64	inode_addr;
	u64	node_addr;
};
int gaze_xattr_place(struct gaze_fs *fs, u32 ino, struct gaze_xattr_place *p);
/* checkpoint hook: writes dirty directory blocks (GAZE_MB_FBLK) */
int gaze_dir_flush(struct gaze_fs *fs);
/* gaze_dir_flush of at most *budget blocks, as gaze_nodes_flush_some */
int gaze_dir_flush_some(struct gaze_fs *fs, u32 *budget);

/*
 * Namespace internals, shared by inode.c bmap.c dir.c xattr.c namei.c
 * (and fsck).  The caller holds fs->lock; none of these take it.
 */
#define GAZE_S_IFMT	0170000
#define GAZE_S_IFSOCK	0140000
#define GAZE_S_IFLNK	0120000
#define GAZE_S_IFREG	0100000
#define GAZE_S_IFBLK	0060000
#define GAZE_S_IFDIR	0040000
#define GAZE_S_IFCHR	0020000
#define GAZE_S_IFIFO	0010000
#define GAZE_S_ISDIR(m)	(((m) & GAZE_S_IFMT) == GAZE_S_IFDIR)
#define GAZE_S_ISREG(m)	(((m) & GAZE_S_IFMT) == GAZE_S_IFREG)
#define GAZE_S_ISLNK(m)	(((m) & GAZE_S_IFMT) == GAZE_S_IFLNK)
/* DT_* value of a mode (DT_REG 8, DT_DIR 4, ...) */
#define GAZE_MODE_DTYPE(m)	((u8)(((m) >> 12) & 15))
#define GAZE_SYMLINK_MAX	4095	/* target bytes, like PATH_MAX - 1 */

/* file blocks one inode can map: 448 + 2*504 + 2*1008*504 + 1008^2*504 */
#define GAZE_BMAP_MAX_BLOCKS	((u64)GAZE_ADDRS_PER_INODE + \
	(u64)GAZE_NR_DIRECT_NODES * GAZE_ADDRS_PER_DNODE + \
	(u64)GAZE_NR_INDIRECT_NODES * GAZE_NIDS_PER_INDIRECT * \
	GAZE_ADDRS_PER_DNODE + (u64)GAZE_NIDS_PER_INDIRECT * \
	GAZE_NIDS_PER_INDIRECT * GAZE_ADDRS_PER_DNODE)

/* inode.c */
int gaze_inode_get(struct gaze_fs *fs, u32 ino, struct gaze_mbuf **mbp);
/* new inode (nid 0: allocate one) from a, nlink from a; dirty, ref held */
int gaze_inode_create(struct gaze_fs *fs, u32 nid, const struct gaze_attr *a,
		      u32 parent, struct gaze_mbuf **mbp);
/* frees data, nodes, dir blocks, xattr node and the nid; consumes ref */
int gaze_inode_evict(struct gaze_fs *fs, struct gaze_mbuf *imb);
void gaze_inode_to_attr(const struct gaze_inode *in, struct gaze_attr *a);
/* sets ctime (and mtime if mtime) to the wall clock; dirties */
void gaze_inode_touch(struct gaze_fs *fs, struct gaze_mbuf *imb, bool mtime);
s64 gaze_inode_read(struct gaze_fs *fs, struct gaze_mbuf *imb, void *buf,
		    u64 len, u64 off);
s64 gaze_inode_write(struct gaze_fs *fs, struct gaze_mbuf *imb,
		     const void *buf, u64 len, u64 off);
int gaze_inode_write_blocks(struct gaze_fs *fs, struct gaze_mbuf *imb,
			    u64 fblk, u32 nr, const void *buf, u64 size);
/*
 * block i is fblks[i], or fblk + i when fblks is NULL.  A file with
 * clusters (compress_log_cluster) writes whole clusters (compress.c).
 */
int gaze_inode_write_vec(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
			 const u64 *fblks, u32 nr, void *const *bufs,
			 u64 size, struct gaze_cluster_enc *enc, u32 nenc);
int gaze_inode_truncate(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 size);
/* trim: free the blocks past size even when it grows (see
 * gaze_file_truncate_trim) */
int gaze_inode_truncate_trim(struct gaze_fs *fs, struct gaze_mbuf *imb,
			     u64 size, bool trim);
/*
 * The file blocks a zero of [off, end) in a file of size rewrites in
 * part, the rest of each kept: the block holding off when off is not
 * aligned, and the block holding end when end is not aligned and below
 * the size (at the size the block's tail is past the EOF, so it is cut
 * as a whole), once when they are the same block.  A truncate to off is
 * the zero of [off, size).  Puts them in fblk in file order and returns
 * how many (0-2).  gaze_inode_zero, the truncate and the warm-up of
 * their reads (gaze_file_edges_warm) follow this one rule.
 */
u32 gaze_zero_edges(u64 size, u64 off, u64 end, u64 fblk[2]);
/* bytes [off, end) below the size become zero (whole blocks: holes) */
int gaze_inode_zero(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 off,
		    u64 end);
/* gaze_file_fallocate on a held inode */
int gaze_inode_fallocate(struct gaze_fs *fs, struct gaze_mbuf *imb, u32 mode,
			 u64 off, u64 len);
/* gaze_inode_write_vec's block writer: no clusters, size untouched */
int gaze_inode_write_plain(struct gaze_fs *fs, struct gaze_mbuf *imb,
			   u64 fblk, const u64 *fblks, u32 nr,
			   void *const *bufs);
/* frees a node's nid and drops its cached buffer; consumes the ref */
int gaze_ns_node_free(struct gaze_fs *fs, struct gaze_mbuf *mb);

/* compress.c: compressed clusters (see the top of compress.c) */
/* gaze_compress level for a format level (0: the algorithm's default) */
int gaze_cluster_level(u8 algo, u8 level);
/* raw (rawlen bytes) into a stream at out: 0 and *len, -E2BIG when the
 * stream would not fit in cap bytes */
int gaze_cluster_encode(u8 algo, u8 level, const void *raw, u32 rawlen,
			void *out, u32 cap, u32 *len);
/* the stream's header and checksum (-EFSBADCRC), for rawlen bytes */
int gaze_cluster_check(const void *stream, u32 len, u32 rawlen,
		       const char **why);
/* check, then decompress to exactly rawlen bytes; *why on a failure */
int gaze_cluster_decode(const void *stream, u32 len, void *raw, u32 rawlen,
			const char **why);
/* the block map clears slot fblk, which held old: a packed cluster goes */
int gaze_cluster_unpacked(struct gaze_fs *fs, struct gaze_mbuf *imb,
			  u64 fblk, u64 old);

/*
 * Compression outside the filesystem lock, on any CPUs.  A writer plans
 * the clusters a batch of blocks covers (gaze_cluster_plan), encodes
 * each anywhere, concurrently, and hands the plan to
 * gaze_file_write_vec_enc.  A cluster the batch holds whole is encoded
 * from the batch (gaze_cluster_enc_run, no filesystem state).  One it
 * holds only part of (GAZE_PLAN_PARTIAL) is merged first
 * (gaze_cluster_enc_merge): the cluster's map is read under fs->lock,
 * its blocks without it, the batch's blocks laid over them, and the
 * whole encoded; the plan keeps the map it read (base) and
 * fs->reset_seq then.  The core stores an encoding only while it still
 * matches the cluster (first block, data blocks, the inode's algorithm
 * and level) and, for a merged one, while the cluster's map is still
 * base and no zone was reset since (a block the map points at is not
 * written again until its zone is reset), so the blocks merged are the
 * ones the core would have loaded; it then neither reads nor encodes
 * the cluster under its lock.  Otherwise it loads and encodes under its
 * lock as it would without a plan.
 */
struct gaze_cluster_enc {
	u64	first;		/* the cluster's first file block */
	u32	nvalid;		/* its data blocks below the size */
	u8	algo, level;	/* the inode's setting the plan was made for */
	bool	used;		/* set by the core: stored as encoded here */
	void *const *blocks;	/* the batch's bufs of it: nb */
	const u64 *fblks;	/* their file blocks */
	u32	nb;		/* < nvalid: the batch holds part of it */
	u32	nblk;		/* blocks per cluster */
	int	err;		/* after run: 0, -E2BIG (saves no block), -errno */
	u32	len;		/* stream bytes */
	u8	*stream;	/* nvalid - 1 blocks, gaze_cluster_enc_free */
	u64	*base;		/* merged: the nblk slots read (or NULL) */
	u64	base_seq;	/* and fs->reset_seq then */
};
#define GAZE_PLAN_PARTIAL	0x1	/* plan clusters held in part too */
static inline bool gaze_cluster_enc_partial(const struct gaze_cluster_enc *e)
{
	return e->nb < e->nvalid;
}
/*
 * The clusters of log_cluster blocks that the batch (ascending fblks,
 * bufs; size as given to the write) holds every data block of (with
 * GAZE_PLAN_PARTIAL: or some of, of clusters of 2 or more data blocks),
 * up to max, in ascending order; 0 when algo is GAZE_COMPRESS_NONE or
 * log_cluster 0.
 */
u32 gaze_cluster_plan(u8 log_cluster, u8 algo, u8 level, const u64 *fblks,
		      void *const *bufs, u32 nr, u64 size, u32 flags,
		      struct gaze_cluster_enc *enc, u32 max);
/* encodes e (e->err), a whole one; scratch: e->nvalid blocks */
void gaze_cluster_enc_run(struct gaze_cluster_enc *e, void *scratch);
/*
 * encodes e of inode ino, merged first when partial (takes fs->lock for
 * the map, reads without it); scratch: 2 * e->nblk blocks
 */
void gaze_cluster_enc_merge(struct gaze_fs *fs, u32 ino,
			    struct gaze_cluster_enc *e, void *scratch);
void gaze_cluster_enc_free(struct gaze_cluster_enc *enc, u32 n);
/*
 * The nblk slots of the cluster of inode ino at first as the block map
 * holds them, and fs->reset_seq (reads metadata without fs->lock, as
 * gaze_file_map); -ENODATA for an inline file, -ESTALE when the file's
 * clusters are not of nblk blocks.
 */
int gaze_file_cluster_slots(struct gaze_fs *fs, u32 ino, u64 first, u32 nblk,
			    u64 *slots, u64 *seq);

/* one cluster of a held inode being read or rewritten */
struct gaze_cluster {
	u64	first;		/* its first file block */
	u32	nblk;		/* blocks per cluster */
	bool	loaded;		/* buf holds its content */
	bool	packed;		/* stored compressed (when loaded) */
	u32	n, nvalid;	/* packed: stream blocks, data blocks */
	u64	dirty[4];	/* blocks to store when stored plain */
	u8	*buf;		/* nblk blocks */
	/* an encoding of buf made outside the lock, or NULL (below) */
	struct gaze_cluster_enc *enc;
};
/* buffer for the cluster holding fblk; gaze_cluster_end frees it */
int gaze_cluster_begin(struct gaze_mbuf *imb, u64 fblk,
		       struct gaze_cluster *c);
void gaze_cluster_end(struct gaze_cluster *c);
void gaze_cluster_move(struct gaze_cluster *c, u64 fblk);
/* reads (and unpacks) the cluster into c->buf; holes read as zeros */
int gaze_cluster_load(struct gaze_fs *fs, struct gaze_mbuf *imb,
		      struct gaze_cluster *c);
/*
 * Before nb blocks of a batch are copied into c: drops c->enc when it was
 * merged over a map that has changed, then loads c unless the batch
 * holds all of it or c->enc stores it packed without c->buf (size as
 * for gaze_cluster_store).
 */
int gaze_cluster_prepare(struct gaze_fs *fs, struct gaze_mbuf *imb,
			 struct gaze_cluster *c, u32 nb, u64 size);
/*
 * Stores c->buf for a file of size bytes: packed when may_pack, the file
 * compresses, the cluster lies below size and the stream saves a block;
 * else plain: the dirty blocks, or every block below size when it was
 * packed.
 */
int gaze_cluster_store(struct gaze_fs *fs, struct gaze_mbuf *imb,
		       struct gaze_cluster *c, u64 size, bool may_pack);
/* blocks in the largest cluster */
#define GAZE_CLUSTER_MAX_BLOCKS	(1u << GAZE_CLUSTER_LOG_MAX)
/* gaze_file_map_cluster on a held inode */
int gaze_cluster_map(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		     u64 *addrs, u32 *n, u32 *nvalid);
/* gaze_file_cluster_slots on a held inode */
int gaze_cluster_slots(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 first,
		       u32 nblk, u64 *slots);
/* gaze_file_cluster_room on a held inode (inl: its data is inline) */
int gaze_cluster_room(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		      bool inl, u32 *room);
/* is the cluster holding fblk packed (false for a file without them) */
int gaze_cluster_is_packed(struct gaze_fs *fs, struct gaze_mbuf *imb,
			   u64 fblk, bool *packed);
/* stores the packed cluster holding fblk plain, for a file of size */
int gaze_cluster_expand(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
			u64 size);
/* a new inode of mode under dir (NULL: the root) takes its setting */
void gaze_cluster_inherit(const struct gaze_fs *fs,
			  const struct gaze_inode *dir, struct gaze_inode *in,
			  u32 mode);
/*
 * sets the compression of a file or directory (algo NONE: off) for new
 * writes and new children; -EOPNOTSUPP without the feature
 */
int gaze_cluster_set_prop(struct gaze_fs *fs, struct gaze_mbuf *imb, u8 algo,
			  u8 level);
/* the compress flag (chattr +c): on takes the filesystem's default */
int gaze_cluster_set_flag(struct gaze_fs *fs, struct gaze_mbuf *imb, bool on);
/* the mount option compress=ALG[:LEVEL] (NONE: compress=no); takes
 * fs->lock; -EOPNOTSUPP without the feature */
int gaze_fs_set_compress(struct gaze_fs *fs, u8 algo, u8 level);

/* bmap.c */
/*
 * Finds the slot holding the address of file block fblk: *owner is the
 * inode's own buffer (no extra ref) or a dnode (ref held), *ofs the slot
 * in its address array.  Without create, a missing node gives 0 and
 * *owner NULL (a hole).  Release with gaze_bmap_release.
 */
int gaze_bmap_slot(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		   bool create, struct gaze_mbuf **owner, u32 *ofs);
void gaze_bmap_release(struct gaze_fs *fs, struct gaze_mbuf *imb,
		       struct gaze_mbuf *owner);
__le64 *gaze_bmap_addrs(struct gaze_mbuf *owner);
/* stores addr in the slot, dirties the owner, invalidates the old real
 * address and keeps inode.blocks right */
int gaze_bmap_set(struct gaze_fs *fs, struct gaze_mbuf *imb,
		  struct gaze_mbuf *owner, u32 ofs, u64 addr);
int gaze_bmap_lookup(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		     u64 *addr);
/*
 * File data the device failed to write after the core mapped it: the
 * module defers writeback's data writes on zoned devices and learns of a
 * failure only when the bio completes.  Blocks [addr, addr + nr) hold
 * nothing: each file slot still pointing at one becomes a hole (the data
 * is lost, as a failed writeback loses it on any filesystem; fsync
 * reports it), and each log writing in their zones gives the zone up
 * (the device's write pointer is behind the log's head).  Caller holds
 * fs->lock and no node was written since the failure.  *lost: the slots
 * cleared.
 */
int gaze_data_lost(struct gaze_fs *fs, u64 addr, u32 nr, u32 *lost);
/*
 * The run of file blocks from fblk (at most max) mapped to consecutive
 * device blocks (*addr the first), or a hole (*addr GAZE_NULL_ADDR), or
 * packed clusters (*addr GAZE_MAP_ENCODED: data with no address of its
 * own, read through gaze_inode_read), or preallocated slots (*addr
 * GAZE_MAP_UNWRITTEN: read as zeros, like a hole, but reserved); another
 * address that is not a real one counts as hole.  Missing nodes are skipped whole.  An error on fblk itself is returned; one past the run
 * only ends it.
 */
#define GAZE_MAP_ENCODED	GAZE_ADDR_CLUSTER_BASE
/* a run of preallocated slots (fallocate): no block yet, reads as zeros */
#define GAZE_MAP_UNWRITTEN	GAZE_ADDR_PREALLOC
/* a run that holds data (blocks or packed clusters), not zeros */
#define GAZE_MAP_DATA(a)	((a) != GAZE_NULL_ADDR && (a) != GAZE_MAP_UNWRITTEN)
/* a slot value inode.blocks counts: a block, or one preallocated */
#define GAZE_ADDR_COUNTED(a)	(GAZE_ADDR_IS_REAL(a) || (a) == GAZE_ADDR_PREALLOC)
int gaze_bmap_run(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk, u64 max,
		  u64 *addr, u64 *nr);
/* frees data blocks >= from and nodes wholly beyond it */
int gaze_bmap_truncate(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from);
/* holes in [from, to) become GAZE_ADDR_PREALLOC */
int gaze_bmap_prealloc(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from,
		       u64 to);
/* counts mapped blocks in [from, to), preallocated ones included, into
 * *mapped; clear: unmaps them */
int gaze_bmap_range(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from, u64 to,
		    bool clear, u64 *mapped);
/* gaze_bmap_range's count without I/O: the blocks under map nodes that
 * are not in the cache go to *unknown instead */
int gaze_bmap_range_cached(struct gaze_fs *fs, struct gaze_mbuf *imb,
			   u64 from, u64 to, u64 *mapped, u64 *unknown);
/*
 * Brings into the cache what unmapping file blocks [*pos, to) reads: the
 * map's nodes over the range, the table block of each node and of each
 * block mapped there.  *pos moves past each node window done, so a call
 * that returned -GAZE_EMISS (a miss named, struct gaze_miss) goes on
 * from there; other lookup errors are left to the operation itself.
 */
int gaze_bmap_warm(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 *pos,
		   u64 to);
/* the table block of block addr (any address: not a real one is
 * nothing) into the cache; -GAZE_EMISS when that named a miss, else 0 */
int gaze_bmap_warm_owner(struct gaze_fs *fs, u64 addr);

/* dir.c */
int gaze_name_check(const char *name, u32 len);
u64 gaze_dir_hash(struct gaze_fs *fs, const char *name, u32 len);
int gaze_dir_init(struct gaze_fs *fs, struct gaze_mbuf *dmb);
int gaze_dir_lookup(struct gaze_fs *fs, struct gaze_mbuf *dmb,
		    const char *name, u32 len, u32 *ino, u8 *dtype);
int gaze_dir_add(struct gaze_fs *fs, struct gaze_mbuf *dmb, const char *name,
		 u32 len, u32 ino, u8 dtype);
int gaze_dir_remove(struct gaze_fs *fs, struct gaze_mbuf *dmb,
		    const char *name, u32 len);
/* points the existing entry name at ino/dtype in place (rename over an
 * existing name, exchange): no allocation, the cookie is unchanged */
int gaze_dir_set(struct gaze_fs *fs, struct gaze_mbuf *dmb, const char *name,
		 u32 len, u32 ino, u8 dtype);
int gaze_dir_iterate(struct gaze_fs *fs, struct gaze_mbuf *dmb, u64 *pos,
		     gaze_filldir_t fn, void *ctx);
/* drops the directory's cached blocks (before its blocks are freed) */
void gaze_dir_forget(struct gaze_fs *fs, struct gaze_mbuf *dmb);

/* orphan.c */
/*
 * After a link count change: an inode with links is just released; at
 * nlink 0 it is freed, or, when in_use and not a directory, becomes an
 * orphan.  Consumes the ref.  *last (last may be NULL): the attributes
 * as the drop leaves them; on success, nlink 0 without GAZE_IF_ORPHAN
 * there means the inode was freed.
 */
int gaze_inode_drop(struct gaze_fs *fs, struct gaze_mbuf *imb, bool in_use,
		    struct gaze_attr *last);
/* an orphan got a name (nlink 0 -> 1 by the caller): off the list, flag
 * cleared; dirties */
void gaze_orphan_adopt(struct gaze_fs *fs, struct gaze_mbuf *imb);
/* checkpoint: writes up to GAZE_ORPHANS_MAX inode numbers, returns how many */
u32 gaze_orphans_fill(struct gaze_fs *fs, __le64 *slots);
/* open: reads the committed checkpoint's list into memory */
int gaze_orphans_load(struct gaze_fs *fs);
/* open read-write: frees every listed orphan (takes fs->lock) and
 * returns how many it freed; one that cannot be freed (I/O error,
 * corruption) is logged and stays listed */
int gaze_orphans_recover(struct gaze_fs *fs);
void gaze_orphans_destroy(struct gaze_fs *fs);

/* xattr.c */
/* frees the inode's xattr node (if any) */
int gaze_xattr_drop(struct gaze_fs *fs, struct gaze_mbuf *imb);

/*
 * namei.c: framing of the entry points (namei.c, xattr.c), which unlike
 * the internals above take and drop fs->lock.  gaze_ns_enter takes the
 * lock, refuses a modifying operation (rw) on a read-only instance with
 * -EROFS and gets inode ino (ref held); on error nothing is held.
 * gaze_ns_leave drops mb (if any), calls gaze_fs_balance after a
 * successful modifying operation, drops the lock and returns the result.
 */
int gaze_ns_enter(struct gaze_fs *fs, u32 ino, bool rw,
		  struct gaze_mbuf **imbp);
/* gaze_ns_enter for a read-only operation that reads its misses
 * without fs->lock (struct gaze_miss); gaze_ns_leave ends it */
int gaze_ns_enter_ro(struct gaze_fs *fs, struct gaze_miss *m, u32 ino,
		     struct gaze_mbuf **imbp);
int gaze_ns_leave(struct gaze_fs *fs, struct gaze_mbuf *mb, bool rw, int err);

/* ---------------------------------------------------------------- */
/* repair.c: offline repair (fsck.gaze); fs->lock held, read-write   */
/* ---------------------------------------------------------------- */
/* table block for rewriting: as stored, or zeroed when the stored block
 * or its index block does not verify (a renewed index block: the caller
 * rewrites every table block under it); ref held */
int gaze_repair_table_block(struct gaze_fs *fs, u32 table, u32 block,
			    struct gaze_mbuf **mbp);
/*
 * Sets main zone zi (counted from main_zone_start): usage bits (bit i of
 * bits = block i of the zone), summaries (zone_cap entries), valid count,
 * state and log; only table blocks that change are dirtied.  The space
 * state in memory is stale until gaze_repair_space_reload().
 */
int gaze_repair_zone_set(struct gaze_fs *fs, u32 zi, const u8 *bits,
			 const struct gaze_summary *sums, u32 valid, u8 state,
			 u8 log);
/* reloads the space state from the tables, as a mount does, with the
 * checkpoint counters and log heads (moved forward only; log_offset may
 * be NULL) the repair counted */
int gaze_repair_space_reload(struct gaze_fs *fs, u64 valid_blocks,
			     u64 valid_nodes, const u32 *log_offset);

#endif /* GAZE_CORE_H */
