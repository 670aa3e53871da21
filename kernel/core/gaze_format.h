/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gaze_format.h - the GAZE on-disk format.  This file is the contract
 * between the kernel module and every userspace tool; both compile it.
 * doc/format.md is the prose version of this file and must be kept in step.
 *
 * OVERVIEW
 *
 * The device is an array of zones.  Every zone is written strictly
 * sequentially from its start (or its last reset), so the same format works
 * on NVMe ZNS namespaces without conventional zones, host-managed SMR, and
 * on regular devices / image files where zones are emulated.  The unit of
 * allocation and I/O is a 4096-byte block; a "block address" (blkaddr) is a
 * device block number in 4 KiB units.  Address 0 is the primary superblock
 * and is used to mean "no block" (a hole) everywhere else.
 *
 *   zone 0, 1       checkpoint zones.  Block 0 of each holds a superblock
 *                   copy (zone 0 = primary, zone 1 = secondary); the rest
 *                   of the zone is an append-only log of checkpoint packs.
 *                   The active zone alternates; a zone is reset (and its
 *                   superblock rewritten first) only when the other zone
 *                   holds a complete checkpoint, so two generations exist.
 *   meta zones      a ring of zones holding "table blocks" (inode map, zone
 *                   info, usage bitmaps, block summaries) and the table
 *                   index blocks that point at them.  Liveness here is
 *                   defined by the two newest checkpoints, not by bitmaps.
 *   main zones      the logs: data and node blocks by temperature.  Each
 *                   valid block is counted in the zone's valid count, its
 *                   bit in the usage bitmap, and has a summary entry that
 *                   names its owner, so GC can move it.
 *
 * A checkpoint pack = header block, payload blocks, trailer block, written
 * contiguously in a checkpoint zone.  It is valid when header and trailer
 * agree on seq and length and every block verifies.  The newest valid pack
 * of the two zones is the mount point; roll-forward then replays the node
 * blocks each node log wrote after the checkpoint (chained by hdr.next),
 * up to the log's last GAZE_NF_FSYNC_END (doc/format.md section 17).
 *
 * Every metadata block starts with struct gaze_mhdr: magic, crc32c,
 * location, fs uuid (the superblock's meta_uuid once the uuid users see
 * was changed: feature meta_uuid), checkpoint sequence.  The crc covers
 * the whole block with the crc field taken as zero.  File data blocks
 * carry no header.
 *
 * Nodes: inodes, direct nodes, indirect nodes and xattr blocks are "nodes",
 * named by a 32-bit node id (nid).  The inode map (imap table) translates
 * nid -> blkaddr, so moving a node only changes one imap entry.  Inode
 * numbers are nids.  nid 0 is invalid, nid 1 is reserved, the root
 * directory is nid 2.
 *
 * Feature masks: unknown incompat -> refuse to mount; unknown ro_compat ->
 * read-only mount only; unknown compat -> ignore.
 *
 * All integers are little-endian; no bitfields, enums, bool, long or
 * pointers; padding is explicit; reserved bytes are written as zero and
 * verified as zero.
 */
#ifndef GAZE_FORMAT_H
#define GAZE_FORMAT_H

#include "gaze_env.h"

#define GAZE_BLOCK_SHIFT	12
#define GAZE_BLOCK_SIZE		(1u << GAZE_BLOCK_SHIFT)
#define GAZE_NULL_ADDR		0ull			/* hole / absent */
#define GAZE_ADDR_PREALLOC	0xfffffffffffffffeull	/* fallocated, reads as zero */
#define GAZE_ADDR_IS_REAL(a)	((a) != 0 && (a) < 0xfffffffffffff000ull)
/* slot 0 of a compressed cluster: its stream fills the next n slots */
#define GAZE_ADDR_CLUSTER_BASE	0xfffffffffffff000ull
#define GAZE_ADDR_CLUSTER(n)	(GAZE_ADDR_CLUSTER_BASE + (n))	/* n 1..255 */
#define GAZE_ADDR_IS_CLUSTER(a)	((a) > GAZE_ADDR_CLUSTER_BASE && \
				 (a) < GAZE_ADDR_CLUSTER_BASE + 0x100)
#define GAZE_ADDR_CLUSTER_NR(a)	((u32)((a) - GAZE_ADDR_CLUSTER_BASE))
/* last slot of a compressed cluster holding fewer blocks: how many */
#define GAZE_ADDR_CLEN(nv)	(GAZE_ADDR_CLUSTER_BASE + 0x100 + (nv))
#define GAZE_ADDR_IS_CLEN(a)	((a) > GAZE_ADDR_CLUSTER_BASE + 0x100 && \
				 (a) < GAZE_ADDR_CLUSTER_BASE + 0x200)
#define GAZE_ADDR_CLEN_NR(a)	((u32)((a) - GAZE_ADDR_CLUSTER_BASE - 0x100))

#define GAZE_NID_INVALID	0u
#define GAZE_NID_RESERVED	1u
#define GAZE_ROOT_INO		2u

#define GAZE_FORMAT_VERSION	1

/* Magic numbers: ASCII, one per block type (read as little-endian u32). */
#define GAZE_MAGIC_SB		0x455a4147u	/* "GAZE" */
#define GAZE_MAGIC_CP_HEAD	0x48504347u	/* "GCPH" */
#define GAZE_MAGIC_CP_PAYLOAD	0x50504347u	/* "GCPP" */
#define GAZE_MAGIC_CP_TRAIL	0x54504347u	/* "GCPT" */
#define GAZE_MAGIC_TINDEX	0x58495447u	/* "GTIX" table index block */
#define GAZE_MAGIC_IMAP		0x50414d49u	/* "IMAP" */
#define GAZE_MAGIC_ZINFO	0x464e495au	/* "ZINF" */
#define GAZE_MAGIC_USAGE	0x45475355u	/* "USGE" */
#define GAZE_MAGIC_SUMMARY	0x4d4d5553u	/* "SUMM" */
#define GAZE_MAGIC_INODE	0x444f4e49u	/* "INOD" */
#define GAZE_MAGIC_DNODE	0x444f4e44u	/* "DNOD" direct node */
#define GAZE_MAGIC_INODE_IND	0x444e4e49u	/* "INND" indirect node */
#define GAZE_MAGIC_XATTR	0x52545841u	/* "AXTR" xattr block */
#define GAZE_MAGIC_DIR_BUCKET	0x4b435544u	/* "DUCK" dir bucket block */
#define GAZE_MAGIC_DIR_INDEX	0x58444944u	/* "DIDX" dir hash index */
#define GAZE_MAGIC_CLUSTER	0x4c435a47u	/* "GZCL" compressed cluster */

/*
 * Common metadata block header (64 bytes).  Field use by block type:
 *   nid    node blocks: the node's own nid; table blocks: table id
 *   ino    node and directory blocks: owning inode; 0 elsewhere
 *   index  dnode/indirect/double-indirect: first file block it covers;
 *          table blocks: table block number; dir blocks: logical block in
 *          the directory; cp payload: block number in the pack;
 *          superblock: copy number (0 or 1)
 *   flags  GAZE_NF_*
 *   next   node blocks: address the log will write next (roll-forward
 *          chain), 0 if unknown; 0 elsewhere
 */
struct gaze_mhdr {
	__le32	magic;
	__le32	crc;
	__le64	blkaddr;
	__u8	uuid[16];	/* superblock: the fs uuid; elsewhere the
				 * metadata uuid (gaze_sb_meta_uuid) */
	__le64	seq;		/* checkpoint seq this block belongs to */
	__le32	nid;
	__le32	ino;
	__le32	index;
	__le16	flags;
	__le16	hdr_version;	/* GAZE_FORMAT_VERSION */
	__le64	next;
};

/* gaze_mhdr.flags */
#define GAZE_NF_FSYNC		0x0001	/* node written by fsync: roll forward */
#define GAZE_NF_DENTRY		0x0002	/* fsync'd inode whose dentry must be recovered */
#define GAZE_NF_FSYNC_END	0x0004	/* last node of one fsync in its log */
#define GAZE_NF_ALL		0x0007

/* ---------------------------------------------------------------- */
/* Feature masks: table of (mask, bit, name, default-on, supported). */
/* Numbers never change; new features are appended.  "Supported":    */
/* this version reads and writes what the feature means (1: and     */
/* mkfs.gaze may set it; 2: only a tool sets it on an existing       */
/* filesystem, mkfs.gaze refuses it); the masks every reader checks  */
/* (the module, fsck.gaze, gazectl) and the list mkfs.gaze offers    */
/* come from this one table.                                         */
/* ---------------------------------------------------------------- */
#define GAZE_FEATURES(X)						\
	X(INCOMPAT, 0, inline_data, 1, 1) /* small files/dirs in inode */ \
	X(INCOMPAT, 1, compression, 0, 1) /* files may hold compressed \
					     clusters */		\
	X(COMPAT,   0, lost_found, 1, 1)  /* mkfs created /lost+found */ \
	X(INCOMPAT, 2, meta_uuid, 0, 2)   /* block headers carry        \
					     meta_uuid, not the uuid    \
					     users see (gazectl uuid)  */ \
	X(RO_COMPAT, 0, prealloc, 1, 1)	  /* fallocate reserves space:   \
					     PREALLOC slots, counted in \
					     cp prealloc_blocks */	\
	X(COMPAT,   1, lazy_summary, 1, 1) /* the summary entry of a    \
					     block that is not valid may \
					     be stale (not cleared) */	\
	X(INCOMPAT, 3, fsync_namespace, 1, 1) /* an fsync chain may hold \
					     new inodes and directory   \
					     changes (format.md s. 17) */

#define GAZE_FEATURE_INCOMPAT_INLINE_DATA	(1ull << 0)
#define GAZE_FEATURE_INCOMPAT_COMPRESSION	(1ull << 1)
#define GAZE_FEATURE_INCOMPAT_META_UUID		(1ull << 2)
#define GAZE_FEATURE_INCOMPAT_FSYNC_NAMESPACE	(1ull << 3)
#define GAZE_FEATURE_COMPAT_LOST_FOUND		(1ull << 0)
#define GAZE_FEATURE_COMPAT_LAZY_SUMMARY	(1ull << 1)
#define GAZE_FEATURE_RO_COMPAT_PREALLOC		(1ull << 0)

/* the supported bits of one mask, from the table */
#define GAZE_FEAT_IS_COMPAT_COMPAT		1
#define GAZE_FEAT_IS_COMPAT_RO_COMPAT		0
#define GAZE_FEAT_IS_COMPAT_INCOMPAT		0
#define GAZE_FEAT_IS_RO_COMPAT_COMPAT		0
#define GAZE_FEAT_IS_RO_COMPAT_RO_COMPAT	1
#define GAZE_FEAT_IS_RO_COMPAT_INCOMPAT		0
#define GAZE_FEAT_IS_INCOMPAT_COMPAT		0
#define GAZE_FEAT_IS_INCOMPAT_RO_COMPAT		0
#define GAZE_FEAT_IS_INCOMPAT_INCOMPAT		1
#define GAZE_FEAT_SUPP_COMPAT(m, b, n, d, s)				\
	| (GAZE_FEAT_IS_COMPAT_##m && (s) ? 1ull << (b) : 0ull)
#define GAZE_FEAT_SUPP_RO_COMPAT(m, b, n, d, s)				\
	| (GAZE_FEAT_IS_RO_COMPAT_##m && (s) ? 1ull << (b) : 0ull)
#define GAZE_FEAT_SUPP_INCOMPAT(m, b, n, d, s)				\
	| (GAZE_FEAT_IS_INCOMPAT_##m && (s) ? 1ull << (b) : 0ull)
#define GAZE_FEATURE_COMPAT_SUPP					\
	(0ull GAZE_FEATURES(GAZE_FEAT_SUPP_COMPAT))
#define GAZE_FEATURE_RO_COMPAT_SUPP					\
	(0ull GAZE_FEATURES(GAZE_FEAT_SUPP_RO_COMPAT))
#define GAZE_FEATURE_INCOMPAT_SUPP					\
	(0ull GAZE_FEATURES(GAZE_FEAT_SUPP_INCOMPAT))

/* ---------------------------------------------------------------- */
/* Superblock (block 0 of zone 0 and of zone 1).                    */
/* ---------------------------------------------------------------- */

/* gaze_super.zone_model */
#define GAZE_ZM_HOST_MANAGED	1	/* real zoned device (ZNS, SMR) */
#define GAZE_ZM_EMULATED	2	/* regular device or file, zones emulated */

/* gaze_super.victim_policy */
#define GAZE_GC_GREEDY		0
#define GAZE_GC_COST_BENEFIT	1

/* Compression algorithms: numbers never change. */
#define GAZE_COMPRESS_ALGOS(X)	\
	X(0, none)		\
	X(1, lz4)		\
	X(2, zstd)		\
	X(3, gzip)
#define GAZE_COMPRESS_NONE	0
#define GAZE_COMPRESS_LZ4	1
#define GAZE_COMPRESS_ZSTD	2
#define GAZE_COMPRESS_GZIP	3
#define GAZE_COMPRESS_MAX	3

#define GAZE_LABEL_MAX		64
#define GAZE_MAX_LOGS		8	/* main-area logs a checkpoint tracks */

struct gaze_super {
	struct gaze_mhdr hdr;		/* nid=0 ino=0 index=copy (0/1) */
	__le64	feature_compat;
	__le64	feature_ro_compat;
	__le64	feature_incompat;
	__le32	block_size;		/* 4096 */
	__le32	zone_model;		/* GAZE_ZM_* */
	__le64	total_blocks;		/* device size in blocks at mkfs */
	__le32	zone_blocks;		/* zone size in blocks */
	__le32	zone_cap;		/* writable blocks per zone (<= size) */
	__le32	nr_zones;		/* zones used by the filesystem */
	__le32	nr_conv_zones;		/* conventional zones seen at mkfs */
	__le32	max_open;		/* device limits seen at mkfs, 0 = none */
	__le32	max_active;
	__le32	cp_zone_start;		/* always 0 in version 1 */
	__le32	cp_zone_count;		/* always 2 */
	__le32	meta_zone_start;
	__le32	meta_zone_count;
	__le32	main_zone_start;
	__le32	main_zone_count;
	__le32	ovp_zones;		/* main zones not advertised to users */
	__le32	reserved_zones;		/* zones kept free for GC (part of ovp) */
	__le32	ovp_percent;		/* as requested at mkfs */
	__le32	nr_logs;		/* main-area logs (2..GAZE_MAX_LOGS) */
	__le32	max_nid;		/* nids are < max_nid */
	__le32	root_ino;
	__le64	user_blocks;		/* capacity advertised to users */
	/* table geometry (derived, recorded so both sides can verify) */
	__le32	usage_blocks_per_zone;	/* bitmap blocks per main zone */
	__le32	summary_blocks_per_zone;/* summary blocks per main zone */
	__le32	table_blocks[4];	/* max table blocks, by GAZE_TABLE_* */
	__le32	table_index_blocks[4];	/* max index blocks, by GAZE_TABLE_* */
	/* GAZE GC defaults read by the module at mount */
	__le64	gc_pool_blocks;		/* GC page pool size, in blocks */
	__le32	dirty_limit_pct;	/* dirty-memory cap, % of RAM (1..90) */
	__le32	gc_queue_depth;		/* bounded queue depth between stages */
	__le32	victim_policy;		/* GAZE_GC_* */
	__le32	bg_gc_low_pct;		/* bg GC starts below this % free */
	__le32	bg_gc_high_pct;		/* bg GC stops above this % free */
	/* compression defaults (feature "compression") */
	__u8	compress_algo;		/* GAZE_COMPRESS_* */
	__u8	compress_level;
	__u8	compress_log_cluster;	/* log2 of blocks per cluster (2..8) */
	__u8	pad0;
	__le32	dir_hash_seed[4];	/* siphash key for directory hashes */
	__le64	mkfs_time;		/* seconds since the epoch */
	char	label[GAZE_LABEL_MAX];	/* NUL padded */
	char	mkfs_version[32];	/* NUL padded "gaze-x.y" */
	/*
	 * With incompat feature meta_uuid: the uuid every other metadata
	 * block's header carries (the one mkfs wrote), while hdr.uuid is
	 * the filesystem uuid users see, changed since by gazectl uuid.
	 * Without it: zero, and the headers carry hdr.uuid.
	 */
	__u8	meta_uuid[16];
	__u8	reserved[3704];
};

/* ---------------------------------------------------------------- */
/* Tables in the meta area: 2-level radix (checkpoint -> index       */
/* blocks -> table blocks).  Index entries of 0 mean "all zero".     */
/* ---------------------------------------------------------------- */
#define GAZE_TABLE_IMAP		0	/* nid -> blkaddr */
#define GAZE_TABLE_ZINFO	1	/* per main zone: valid count, log, mtime */
#define GAZE_TABLE_USAGE	2	/* per main zone: valid bitmap chunks */
#define GAZE_TABLE_SUMMARY	3	/* per main block: owner */
#define GAZE_NR_TABLES		4

#define GAZE_BODY_SIZE		(GAZE_BLOCK_SIZE - sizeof(struct gaze_mhdr))
#define GAZE_ADDRS_PER_BLOCK	(GAZE_BODY_SIZE / 8)		/* 504 */

struct gaze_tindex {			/* hdr.nid = table id, hdr.index = n */
	struct gaze_mhdr hdr;
	__le64	addr[GAZE_ADDRS_PER_BLOCK];
};

#define GAZE_IMAP_PER_BLOCK	GAZE_ADDRS_PER_BLOCK		/* 504 */
struct gaze_imap_block {
	struct gaze_mhdr hdr;
	__le64	addr[GAZE_IMAP_PER_BLOCK];	/* 0 = free nid */
};

/* gaze_zinfo.log: which log last wrote the zone */
#define GAZE_LOGS(X)			\
	X(0, data_hot)			\
	X(1, data_warm)			\
	X(2, data_cold)			\
	X(3, node_hot)			\
	X(4, node_warm)			\
	X(5, node_cold)
#define GAZE_LOG_DATA_HOT	0
#define GAZE_LOG_DATA_WARM	1
#define GAZE_LOG_DATA_COLD	2
#define GAZE_LOG_NODE_HOT	3
#define GAZE_LOG_NODE_WARM	4
#define GAZE_LOG_NODE_COLD	5
#define GAZE_NR_LOG_TYPES	6

/* gaze_zinfo.state */
#define GAZE_ZS_FREE		0	/* empty, may be allocated */
#define GAZE_ZS_OPEN		1	/* a log head is in it */
#define GAZE_ZS_FULL		2	/* written to capacity (or finished) */
#define GAZE_ZS_PREFREE		3	/* emptied; FREE after two more cps */

struct gaze_zinfo {
	__le32	valid;			/* valid blocks in the zone */
	__u8	state;			/* GAZE_ZS_* */
	__u8	log;			/* GAZE_LOG_* */
	__le16	flags;			/* zero in version 1 */
	__le64	mtime;			/* fs age (s) at last write, for cost-benefit */
};
#define GAZE_ZINFO_PER_BLOCK	(GAZE_BODY_SIZE / sizeof(struct gaze_zinfo))	/* 252 */
struct gaze_zinfo_block {
	struct gaze_mhdr hdr;
	struct gaze_zinfo z[GAZE_ZINFO_PER_BLOCK];
};

#define GAZE_USAGE_BITS_PER_BLOCK	(GAZE_BODY_SIZE * 8)	/* 32256 */
struct gaze_usage_block {		/* bit i = block (chunk*BITS + i) of zone */
	struct gaze_mhdr hdr;
	__u8	bits[GAZE_BODY_SIZE];
};

/* gaze_summary.type */
#define GAZE_SUM_NONE		0
#define GAZE_SUM_DATA		1	/* data block: owner node + slot */
#define GAZE_SUM_NODE		2	/* node block: nid = its own nid */
struct gaze_summary {
	__le32	nid;			/* owning node (inode or dnode) */
	__le16	ofs;			/* slot in the owner's address array */
	__u8	type;			/* GAZE_SUM_* */
	__u8	flags;			/* zero in version 1 */
};
#define GAZE_SUMMARY_PER_BLOCK	(GAZE_BODY_SIZE / sizeof(struct gaze_summary))	/* 504 */
struct gaze_summary_block {
	struct gaze_mhdr hdr;
	struct gaze_summary s[GAZE_SUMMARY_PER_BLOCK];
};

/* ---------------------------------------------------------------- */
/* Checkpoint pack: head, payload blocks, trailer.                   */
/* ---------------------------------------------------------------- */

/* gaze_cp_head.flags */
#define GAZE_CP_UMOUNT		0x0001	/* written by a clean unmount */
#define GAZE_CP_FSCK_NEEDED	0x0002	/* an error was seen; run fsck */
#define GAZE_CP_ORPHANS		0x0004	/* orphan list is non-empty */
#define GAZE_CP_MKFS		0x0008	/* the first checkpoint, by mkfs */
#define GAZE_CP_FLAGS_ALL	0x000f

struct gaze_log_head {
	__le32	zone;			/* absolute zone number, ~0 = none */
	__le32	offset;			/* next block to write within zone */
	__le32	type;			/* GAZE_LOG_* it serves */
	__le32	pad;
};

struct gaze_table_root {
	__le32	nr_index;		/* index blocks in use */
	__le32	payload_ofs;		/* first slot in payload le64 stream */
};

struct gaze_cp_head {			/* hdr.seq = checkpoint seq */
	struct gaze_mhdr hdr;
	__le32	pack_blocks;		/* head + payload + trailer */
	__le32	flags;			/* GAZE_CP_* */
	__le64	elapsed;		/* fs age in seconds */
	__le64	valid_blocks;		/* valid main-area blocks */
	__le64	valid_nodes;
	__le32	valid_inodes;
	__le32	next_nid;		/* allocation hint */
	__le32	free_zones;		/* main zones in state FREE */
	__le32	nr_orphans;
	__le32	orphan_ofs;		/* first slot in payload stream */
	__le32	nr_logs;
	struct gaze_log_head logs[GAZE_MAX_LOGS];
	__le32	meta_head_zone;		/* meta ring: next write position */
	__le32	meta_head_offset;
	__le32	meta_tail_zone;		/* oldest meta zone still in use */
	__le32	mount_count;
	struct gaze_table_root tables[GAZE_NR_TABLES];
	__le64	compr_logical_blocks;	/* persistent compression ratio = */
	__le64	compr_physical_blocks;	/*   logical / physical */
	__le64	gc_zones_reclaimed;	/* lifetime GC counters */
	__le64	gc_blocks_moved;
	__le64	prealloc_blocks;	/* slots holding GAZE_ADDR_PREALLOC
					 * (ro_compat prealloc) */
	__u8	reserved[3760];
};

struct gaze_cp_payload {		/* hdr.index = block number in pack */
	struct gaze_mhdr hdr;
	__le64	slot[GAZE_ADDRS_PER_BLOCK];
};

struct gaze_cp_trailer {
	struct gaze_mhdr hdr;		/* same seq as the head */
	__le32	pack_blocks;
	__le32	head_crc;		/* crc field of the head block */
	__u8	reserved[GAZE_BODY_SIZE - 8];
};

/* ---------------------------------------------------------------- */
/* Nodes: inode, direct node, indirect node, xattr block.            */
/* ---------------------------------------------------------------- */

/* gaze_inode.flags */
#define GAZE_IF_INLINE_DATA	0x0001	/* file data / symlink in i_inline */
#define GAZE_IF_INLINE_DENTRY	0x0002	/* dir entries in i_inline */
#define GAZE_IF_COMPRESS	0x0004	/* new writes are compressed */
#define GAZE_IF_APPEND		0x0008
#define GAZE_IF_IMMUTABLE	0x0010
#define GAZE_IF_NOATIME		0x0020
#define GAZE_IF_NODUMP		0x0040
#define GAZE_IF_SYNC		0x0080
#define GAZE_IF_ORPHAN		0x0100	/* on the orphan list */
#define GAZE_IF_DIR_HASHED	0x0200	/* dir uses bucket/index blocks */
/* compress_algo/level (or none) were set on this inode itself (gazectl
 * set, chattr +c/-c), not taken from its directory when it was made */
#define GAZE_IF_COMPRESS_LOCAL	0x0400
#define GAZE_IF_ALL		0x07ff

#define GAZE_INLINE_XATTR_SIZE	256
#define GAZE_NR_DIRECT_NODES	2
#define GAZE_NR_INDIRECT_NODES	2
#define GAZE_NR_DINDIRECT_NODES	1
#define GAZE_NR_INODE_NIDS	5
#define GAZE_INODE_CORE_SIZE	256	/* header + fixed fields */
#define GAZE_INLINE_SIZE	(GAZE_BLOCK_SIZE - GAZE_INODE_CORE_SIZE - \
				 GAZE_INLINE_XATTR_SIZE)	/* 3584 */
#define GAZE_ADDRS_PER_INODE	(GAZE_INLINE_SIZE / 8)		/* 448 */
#define GAZE_ADDRS_PER_DNODE	GAZE_ADDRS_PER_BLOCK		/* 504 */
#define GAZE_NIDS_PER_INDIRECT	(GAZE_BODY_SIZE / 4)		/* 1008 */

struct gaze_inode {			/* hdr.nid = hdr.ino = inode number */
	struct gaze_mhdr hdr;
	__le16	mode;			/* S_IF* | permission bits */
	__le16	pad0;
	__le32	uid;
	__le32	gid;
	__le32	nlink;
	__le64	size;			/* bytes */
	__le64	blocks;			/* 4 KiB blocks held (data+nodes) */
	__le64	atime;
	__le64	mtime;
	__le64	ctime;
	__le64	crtime;
	__le32	atime_nsec;
	__le32	mtime_nsec;
	__le32	ctime_nsec;
	__le32	crtime_nsec;
	__le32	flags;			/* GAZE_IF_* */
	__le32	generation;
	__le32	parent;			/* a directory holding a link to it */
	__le32	xattr_nid;		/* xattr block node, 0 = none */
	__le32	rdev_major;
	__le32	rdev_minor;
	__le32	nids[GAZE_NR_INODE_NIDS];	/* 2 direct, 2 indirect, 1 dind */
	__le32	dir_nbuckets;		/* hashed dirs: bucket blocks in use */
	__le32	dir_nentries;		/* dirs: entries excluding . and .. */
	__u8	dir_depth;		/* hashed dirs: global depth */
	__u8	compress_algo;		/* GAZE_COMPRESS_*; dirs: inherited */
	__u8	compress_level;
	__u8	compress_log_cluster;
	__le64	compr_blocks;		/* blocks saved by compression */
	__le16	inline_xattr_used;	/* bytes used in i_xattr */
	__le16	inline_used;		/* bytes used in i_inline (data/dentries) */
	__u8	reserved[44];
	__u8	i_xattr[GAZE_INLINE_XATTR_SIZE];
	union {
		__le64	addr[GAZE_ADDRS_PER_INODE];	/* block map */
		__u8	data[GAZE_INLINE_SIZE];		/* inline data/dentries */
	} i;
};

struct gaze_dnode {			/* direct node: hdr.nid, hdr.ino */
	struct gaze_mhdr hdr;
	__le64	addr[GAZE_ADDRS_PER_DNODE];
};

struct gaze_inode_ind {			/* indirect / double indirect node */
	struct gaze_mhdr hdr;
	__le32	nid[GAZE_NIDS_PER_INDIRECT];
};

/*
 * Extended attributes.  An entry is 4-byte aligned:
 *   u8 index (GAZE_XATTR_*), u8 name_len, le16 value_len, name, value, pad.
 * A region (i_xattr in the inode, or the body of an xattr block) holds
 * entries back to back; its used length is recorded beside it, so no
 * terminator is needed.  Names are unique per (index, name).
 */
#define GAZE_XATTR_INDEXES(X)			\
	X(1, user, "user.")			\
	X(2, trusted, "trusted.")		\
	X(3, security, "security.")		\
	X(4, posix_acl_access, "system.posix_acl_access")	\
	X(5, posix_acl_default, "system.posix_acl_default")
#define GAZE_XATTR_USER		1
#define GAZE_XATTR_TRUSTED	2
#define GAZE_XATTR_SECURITY	3
#define GAZE_XATTR_ACL_ACCESS	4
#define GAZE_XATTR_ACL_DEFAULT	5
#define GAZE_XATTR_INDEX_MAX	5

struct gaze_xattr_entry {
	__u8	index;
	__u8	name_len;
	__le16	value_len;
	/* name[name_len], value[value_len], pad to 4 */
};

struct gaze_xattr_block {		/* hdr.nid = xattr nid, hdr.ino = owner */
	struct gaze_mhdr hdr;
	__le32	used;			/* bytes used in body */
	__le32	pad;
	__u8	body[GAZE_BODY_SIZE - 8];
};

/* ---------------------------------------------------------------- */
/* Directories.                                                      */
/*                                                                   */
/* Small directories keep entries in the inode (GAZE_IF_INLINE_DENTRY)*/
/* as a packed array of gaze_dirent.  Larger ones are extendible     */
/* hash tables (GAZE_IF_DIR_HASHED): name hash h (64-bit siphash-2-4 */
/* keyed by the superblock's dir_hash_seed).  With global depth D,   */
/* slot = h >> (64 - D) of the hash index gives a bucket number b;   */
/* bucket b lives at directory logical block GAZE_DIR_BUCKET_BASE+b. */
/* The hash index is at logical blocks [0, GAZE_DIR_INDEX_BLOCKS),   */
/* GAZE_DIR_INDEX_PER_BLOCK slots each, and is absent when D == 0    */
/* (bucket 0 is then the only bucket).  Buckets split by local depth; */
/* a bucket holds a contiguous hash range, so readdir walks buckets  */
/* in index order and entries in hash order; the readdir cookie is   */
/* h >> 1 (values 0 and 1 are '.' and '..', smaller hashes use 2).    */
/* A bucket that cannot split (D at maximum) chains overflow buckets. */
/* ---------------------------------------------------------------- */
#define GAZE_DIR_INDEX_BLOCKS	1024u
#define GAZE_DIR_INDEX_PER_BLOCK (GAZE_BODY_SIZE / 4)	/* 1008 */
#define GAZE_DIR_MAX_DEPTH	19u
#define GAZE_DIR_BUCKET_BASE	GAZE_DIR_INDEX_BLOCKS
#define GAZE_NAME_MAX		255

struct gaze_dirent {			/* 8-byte aligned, followed by name */
	__le64	hash;
	__le32	ino;
	__le16	rec_len;		/* 16 + name_len rounded up to 8 */
	__u8	name_len;
	__u8	file_type;		/* DT_* values */
	/* char name[name_len]; pad to 8 with zeros */
};
#define GAZE_DIRENT_LEN(namelen) ((16u + (namelen) + 7u) & ~7u)

struct gaze_dir_index {			/* hdr.ino = dir, hdr.index = lblk */
	struct gaze_mhdr hdr;
	__le32	bucket[GAZE_DIR_INDEX_PER_BLOCK];
};

struct gaze_dir_bucket {		/* hdr.ino = dir, hdr.index = lblk */
	struct gaze_mhdr hdr;
	__le32	nr_entries;
	__le16	used;			/* bytes used in entries[] */
	__u8	local_depth;
	__u8	pad;
	__le32	overflow;		/* next overflow bucket number, 0 = none */
	__le32	reserved;
	__u8	entries[GAZE_BODY_SIZE - 16];	/* sorted by hash */
};
#define GAZE_DIR_BUCKET_SPACE	(GAZE_BODY_SIZE - 16)

/* Inline dentry area header at the start of gaze_inode.i.data. */
#define GAZE_INLINE_DENTRY_SPACE GAZE_INLINE_SIZE

/* ---------------------------------------------------------------- */
/* Compressed clusters (incompat feature "compression").             */
/* A cluster is 2^compress_log_cluster logical blocks, aligned.  A   */
/* compressed one holds GAZE_ADDR_CLUSTER(n) in its first address    */
/* slot, the n blocks of its stream in the next n slots (n < blocks  */
/* per cluster), 0 in the rest.  The stream starts with               */
/* gaze_cluster_hdr; the payload follows, then zeros to the block end.*/
/* ---------------------------------------------------------------- */
#define GAZE_CLUSTER_VERSION	1
#define GAZE_CLUSTER_LOG_MIN	2
#define GAZE_CLUSTER_LOG_MAX	8

struct gaze_cluster_hdr {
	__le32	magic;			/* GAZE_MAGIC_CLUSTER */
	__le32	crc;			/* crc32c of header (crc 0) + payload */
	__le32	clen;			/* payload bytes after the header */
	__le32	rawlen;			/* uncompressed bytes: the cluster */
	__u8	algo;			/* GAZE_COMPRESS_*, not none */
	__u8	level;			/* level used (informative) */
	__u8	version;		/* GAZE_CLUSTER_VERSION */
	__u8	flags;			/* zero */
	__le32	reserved[3];
};

/* ---------------------------------------------------------------- */
/* Static asserts: every on-disk struct size and key offsets are pinned. */
#define GAZE_ASSERT_SIZE(t, n) _Static_assert(sizeof(t) == (n), #t " size")
GAZE_ASSERT_SIZE(struct gaze_mhdr, 64);
GAZE_ASSERT_SIZE(struct gaze_super, 4096);
GAZE_ASSERT_SIZE(struct gaze_tindex, 4096);
GAZE_ASSERT_SIZE(struct gaze_imap_block, 4096);
GAZE_ASSERT_SIZE(struct gaze_zinfo, 16);
GAZE_ASSERT_SIZE(struct gaze_zinfo_block, 4096);
GAZE_ASSERT_SIZE(struct gaze_usage_block, 4096);
GAZE_ASSERT_SIZE(struct gaze_summary, 8);
GAZE_ASSERT_SIZE(struct gaze_summary_block, 4096);
GAZE_ASSERT_SIZE(struct gaze_log_head, 16);
GAZE_ASSERT_SIZE(struct gaze_cp_head, 4096);
GAZE_ASSERT_SIZE(struct gaze_cp_payload, 4096);
GAZE_ASSERT_SIZE(struct gaze_cp_trailer, 4096);
GAZE_ASSERT_SIZE(struct gaze_inode, 4096);
GAZE_ASSERT_SIZE(struct gaze_dnode, 4096);
GAZE_ASSERT_SIZE(struct gaze_inode_ind, 4096);
GAZE_ASSERT_SIZE(struct gaze_xattr_entry, 4);
GAZE_ASSERT_SIZE(struct gaze_xattr_block, 4096);
GAZE_ASSERT_SIZE(struct gaze_dirent, 16);
GAZE_ASSERT_SIZE(struct gaze_dir_index, 4096);
GAZE_ASSERT_SIZE(struct gaze_dir_bucket, 4096);
GAZE_ASSERT_SIZE(struct gaze_cluster_hdr, 32);
_Static_assert(__builtin_offsetof(struct gaze_inode, i_xattr) ==
	       GAZE_INODE_CORE_SIZE, "inode core");
_Static_assert(__builtin_offsetof(struct gaze_inode, i) ==
	       GAZE_INODE_CORE_SIZE + GAZE_INLINE_XATTR_SIZE, "inode inline");
_Static_assert(__builtin_offsetof(struct gaze_super, feature_compat) == 64,
	       "super features");
_Static_assert(__builtin_offsetof(struct gaze_super, label) == 280,
	       "super label");
_Static_assert(__builtin_offsetof(struct gaze_super, meta_uuid) == 376,
	       "super meta_uuid");

#endif /* GAZE_FORMAT_H */
