/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsck.h - the checker and repairer of GAZE, as a library: a struct fsck
 * context works on an open zone device (any lib/zdev backend, the RAM
 * emulator included, so a fuzz harness can run it on an image in memory).
 *
 *   check.c   reads the superblocks, the newest valid checkpoint, the
 *             four tables and every node, then checks ownership of every
 *             main-area block, zone states, the namespace and link counts
 *             (fsck_check);
 *   repair.c  fixes what check found through the shared core, opened
 *             read-write: space tables rebuilt from the tree, bad nodes
 *             and entries dropped, lost inodes reconnected, counts fixed,
 *             and one new checkpoint at the end (fsck_repair);
 *   readahead.c  the node scan of pass 1, on two threads (see there);
 *   report.c  the transcript: problems from the table in problem.h,
 *             notes, operational errors, the --json message list and
 *             the progress bar or fsck(8)'s progress lines;
 *   main.c    the fsck.gaze command line.
 *
 * Memory follows what is used, not the device size: one byte per node
 * id up to the highest in use (struct fsck_nid), one bit per block of
 * the main zones the tree claims blocks in (struct fsck.owned), the
 * addresses of the table blocks under each stored index block (struct
 * fsck_tib; absent index blocks cost a NULL pointer), and flags and
 * link counts for the few node ids that need them.  Per zone there is a
 * pointer and the device's zone report, nothing per block.
 */
#ifndef GAZE_FSCK_H
#define GAZE_FSCK_H

#include <stdbool.h>
#include <stdio.h>

#include "gaze_core.h"
#include "gaze_util.h"
#include "problem.h"

/* fsck(8) exit bits */
#define FSCK_EXIT_OK		0
#define FSCK_EXIT_FIXED		1
#define FSCK_EXIT_REBOOT	2
#define FSCK_EXIT_UNCORRECTED	4
#define FSCK_EXIT_ERROR		8
#define FSCK_EXIT_USAGE		16
#define FSCK_EXIT_CANCELED	32

#define FSCK_MODE_CHECK		0	/* -n: never write */
#define FSCK_MODE_PREEN		1	/* -p/-a: safe fixes only */
#define FSCK_MODE_YES		2	/* -y: fix all it can */

/* per node id state (check.c) */
#define FK_FREE		0	/* no imap entry */
#define FK_NODE		1	/* imap entry, not an inode, not yet claimed */
#define FK_INODE	2
#define FK_CHILD	3	/* map / xattr node claimed by an inode */
#define FK_BAD		4	/* unreadable or invalid: dropped on repair */

/*
 * Per node id flags: one bitmap each (struct fsck.nf), so the flags most
 * node ids never get (all but NF_REACHED on a healthy filesystem) cost
 * no memory: a bitmap's pages that are never written stay unallocated.
 */
#define NF_REACHED	0x01	/* linked from the tree */
#define NF_ORPHAN_LIST	0x02	/* on the checkpoint's orphan list */
#define NF_DIRBAD	0x04	/* directory must be rebuilt */
#define NF_LOST		0x08	/* to reconnect into lost+found */
#define NF_EVICT	0x10	/* orphan to release */
#define NF_FIXINO	0x20	/* inode fields to fix (fsck_ifix) */
#define NF_SEEN		0x40	/* scratch */
#define FSCK_NR_NF	7

/*
 * One byte per node id up to the highest in use (a million files: 1 MiB):
 *   bits 0-2  kind, FK_*;
 *   bits 3-5  file type of an inode, as an index into fsck_dtypes;
 *   bits 6-7  link count of a non-directory inode: nlink on disk minus
 *             links found, 0-2; FSCK_XLINK (3): the counts are in f->xl
 *             (nlink of 3 or more, or more links found than nlink), like
 *             e2fsck's icount keeps only the inodes that need more.
 */
struct fsck_nid {
	u8	kt;
};
#define FSCK_XLINK	3u

static inline u32 nid_kind(const struct fsck_nid *n)
{
	return n->kt & 7u;
}

static inline void nid_kind_set(struct fsck_nid *n, u32 k)
{
	n->kt = (u8)((n->kt & ~7u) | k);
}

/* DT_* of the valid inode file types (0: none) */
static const u8 fsck_dtypes[8] = { 0, 1, 2, 4, 6, 8, 10, 12 };

static inline u32 nid_type(const struct fsck_nid *n)	/* DT_* */
{
	return fsck_dtypes[(n->kt >> 3) & 7u];
}

static inline void nid_type_set(struct fsck_nid *n, u32 dtype)
{
	u32 i;

	for (i = 7; i > 0 && fsck_dtypes[i] != dtype; i--)
		;
	n->kt = (u8)((n->kt & ~0x38u) | (i << 3));
}

static inline bool nid_isdir(const struct fsck_nid *n)
{
	return nid_type(n) == GAZE_MODE_DTYPE(GAZE_S_IFDIR);
}

static inline u32 nid_links(const struct fsck_nid *n)
{
	return n->kt >> 6;
}

static inline void nid_links_set(struct fsck_nid *n, u32 v)
{
	n->kt = (u8)((n->kt & 0x3fu) | (v << 6));
}

/* directories (few): sorted by inode number */
struct fsck_dir {
	u32	ino;
	u32	nlink;		/* on disk */
	u32	parent;		/* on disk */
	u32	found;		/* the directory that links it */
	u32	subdirs;	/* subdirectories found */
};

/* link counts that do not fit fsck_nid (sorted by ino) */
struct fsck_xlink {
	u32	ino;
	u32	nlink;		/* on disk */
	u32	found;
};

/* a slot that must be cleared (bad pointer) */
#define SLOT_ADDR	1	/* addr[ofs] of node `node` */
#define SLOT_NID	2	/* nids[ofs] of inode / nid[ofs] of indirect */
#define SLOT_XATTR	3	/* xattr_nid of inode */
#define SLOT_IXATTR	4	/* inline xattr region of inode */
struct fsck_slot {
	u32	node;
	u32	ofs;
	u32	ino;
	u32	what;
};

/* a directory entry to drop or retype */
#define ENT_DROP	1
#define ENT_TYPE	2
struct fsck_ent {
	u32	dir;
	u32	ino;
	u8	dtype;
	u8	action;
	u16	len;
	char	name[GAZE_NAME_MAX + 1];
};

/* a summary entry the tree disagrees with */
struct fsck_sumfix {
	u64			addr;
	struct gaze_summary	s;
};

/* a node rewritten from a repaired copy (fields fixed, checksum new) */
struct fsck_salvage {
	u32	nid;
	u64	addr;
	u8	*blk;
};

/* inode fields to fix */
struct fsck_ifix {
	u32	ino;
	u64	size;		/* new size, or ~0 */
	u64	blocks;		/* counted blocks */
	u32	nentries;	/* dirs: entries counted, or ~0 */
	u64	compr;		/* blocks packed clusters save, or ~0 */
	bool	clear_orphan;
};

/*
 * The table blocks under one stored table index block (allocated only for
 * index blocks the checkpoint names: the tables of an empty filesystem
 * cost a NULL pointer per 504 table blocks).
 */
struct fsck_tib {
	u64	addr[GAZE_ADDRS_PER_BLOCK];	/* blocks that verified;
						 * 0: absent, or bad */
	u8	bad[DIV_ROUND_UP(GAZE_ADDRS_PER_BLOCK, 8)];
					/* stored but unreadable or invalid
					 * (imap: or with invalid entries,
					 * still used), or under a lost
					 * index block: all of them */
	u64	**over;			/* imap: entries of unreadable
					 * blocks, found through the
					 * summaries (imap_rebuild) */
};

#define FSCK_TCACHE	16	/* table blocks kept in memory */
struct fsck_tcache {
	u32	t, n;
	u64	stamp;		/* 0 = empty */
	u8	*data;
};

struct fsck;

struct fsck_opts {
	int	mode;		/* FSCK_MODE_* */
	bool	force;		/* -f */
	bool	verbose;	/* -v */
	bool	progress;	/* -C or a tty */
	int	progress_fd;	/* with progress: 0 a bar on stdout, else
				 * fsck(8)'s lines "pass cur max device" */
	bool	progress_hidden; /* -C -fd: until SIGUSR1 */
	bool	json;
	bool	cp_prev;	/* -b 1: the checkpoint before the newest */
	FILE	*out;		/* messages (stdout) */
	/* called at every progress point (the checks' loops): main.c ends
	 * the run there after SIGINT/SIGTERM and shows or hides progress
	 * on SIGUSR1/SIGUSR2; may not return */
	void	(*poll)(struct fsck *f);
};

/* a line of the transcript, kept for --json */
struct fsck_msg {
	char	*text;		/* as printed */
	int	pr;		/* PR_* of a problem, -1 for other lines */
};

struct fsck_stats {
	u64	inodes, dirs, files, symlinks, others;
	u64	nodes, data_blocks, dir_blocks;
	u64	valid_blocks;
};

struct fsck {
	struct fsck_opts	o;
	struct gaze_dev		*dev;
	const char		*name;
	/* pass 1's node scan while it runs (its worker thread reads dev):
	 * fsck_fini stops it first, when a signal ends the run mid-scan */
	struct fsck_scan	*scan;
	struct gaze_super	sb;		/* copy in use */
	struct gaze_layout	lay;
	u8			uuid[16];	/* what headers carry:
						 * gaze_sb_meta_uuid() */
	int			sb_copy;	/* copy in use (0/1) */
	bool			sb_fix;		/* rewrite superblock copies */
	bool			sb_bad[2];

	/* the checkpoint in use */
	struct gaze_cp_head	cp;
	u64			cp_seq;
	u32			cp_zone, cp_off;
	bool			cp_fallback;	/* a newer pack was invalid */
	u32			cp_damaged;	/* damaged packs passed over:
						 * -y rewrites both zones */
	bool			cp_renew;	/* -y on a zoned device: a bad
						 * superblock copy is rewritten
						 * with both zones */
	u32			*orphans;
	u32			nr_orphans;

	/* tables: block addresses per index block (fsck_tbl_addr: 0 =
	 * absent or invalid, reads as zeros), read on demand through a
	 * small cache */
	struct fsck_tib		**tib[GAZE_NR_TABLES]; /* NULL: absent */
	u32			tib_n[GAZE_NR_TABLES];
	u32			tbl_n[GAZE_NR_TABLES];
	bool			tbl_bad;
	u64			*zinfo_raw;	/* zinfo block addresses,
						 * invalid ones included */
	struct fsck_tcache	*tc;
	u64			tc_clock;
	int			tc_last[GAZE_NR_TABLES];

	/* device zones (write pointers) for the main area */
	struct gaze_zone	*zones;		/* lay.nr_zones entries */

	/* nodes */
	struct fsck_nid		*nid;
	u8			*nf[FSCK_NR_NF];	/* NF_* bitmaps */
	u32			nid_end;	/* 1 + highest nid in the imap */
	struct fsck_dir		*dirs;
	size_t			nr_dirs, cap_dirs;
	struct fsck_xlink	*xl;
	size_t			nr_xl, cap_xl;
	/* main-area ownership: per main zone, 1 bit per block, allocated
	 * at the zone's first claim (fsck_owned) */
	u8			**owned;
	u64			main_first;	/* first main block address */
	u64			main_blocks;	/* main_count * zone_blocks */
	u32			*log_need;	/* per log: offset to reach */

	/* what repair needs */
	struct fsck_slot	*slots;
	size_t			nr_slots, cap_slots;
	struct fsck_ent		*ents;
	size_t			nr_ents, cap_ents;
	struct fsck_ifix	*ifix;
	size_t			nr_ifix, cap_ifix;
	struct fsck_sumfix	*sumfix;
	size_t			nr_sumfix, cap_sumfix;
	struct fsck_salvage	*salv;
	size_t			nr_salv, cap_salv;

	/* results */
	u64			problems;	/* everything found */
	u64			unsafe;		/* of those, not safe for -p */
	bool			space_bad;	/* space tables need a rebuild */
	bool			cp_counts_bad;
	bool			fatal;		/* cannot check further */
	u64			fixed;
	struct fsck_stats	st;
	u64			valid_nodes, valid_inodes;
	/* blocks in packed clusters: logical (their data), physical */
	u64			compr_logical, compr_physical;
	u64			prealloc;	/* GAZE_ADDR_PREALLOC slots */

	/* an operational error (exit 8): cannot check; its message */
	bool			failed;
	char			error[256];

	/* messages kept for --json (the first FSCK_MAX_MSGS) */
	struct fsck_msg		*msgs;
	size_t			nr_msgs, cap_msgs;
	u64			msgs_dropped;

	/* progress (report.c); prog_last -1 starts a phase afresh */
	int			prog_last;	/* permille last shown */
	const char		*prog_phase;
	unsigned int		prog_pass;	/* of prog_phase, 0 none */
	u64			prog_max;	/* its first total */
	bool			prog_shown;	/* a bar is on the screen */
	u32			prog_spin;
	u64			prog_tick;	/* 1/8 s of the last bar */
};
#define FSCK_MAX_MSGS	10000

/* has node id nid any of the NF_* flags in mask? */
static inline bool nid_has(const struct fsck *f, u32 nid, u32 mask)
{
	u32 i;

	for (i = 0; i < FSCK_NR_NF; i++)
		if ((mask & (1u << i)) &&
		    (f->nf[i][nid >> 3] & (1u << (nid & 7))))
			return true;
	return false;
}

static inline void nid_flags_set(struct fsck *f, u32 nid, u32 mask)
{
	u32 i;

	for (i = 0; i < FSCK_NR_NF; i++)
		if (mask & (1u << i))
			f->nf[i][nid >> 3] |= (u8)(1u << (nid & 7));
}

static inline void nid_flags_clear(struct fsck *f, u32 nid, u32 mask)
{
	u32 i;

	for (i = 0; i < FSCK_NR_NF; i++)
		if (mask & (1u << i))
			f->nf[i][nid >> 3] &= (u8)~(1u << (nid & 7));
}

void fsck_init(struct fsck *f, struct gaze_dev *dev, const char *name,
	       const struct fsck_opts *o);
void fsck_fini(struct fsck *f);
/* reads and checks; 0 or -errno (an operational error, f->fatal for a
 * filesystem that cannot be checked further) */
int fsck_check(struct fsck *f);
/* quick look: superblock and checkpoint only; 1 if cleanly unmounted */
int fsck_is_clean(struct fsck *f);
/* after fsck_check: fixes through the core; 0 or -errno */
int fsck_repair(struct fsck *f);

/*
 * report.c: a problem from the table (counted, unsafe for -p unless the
 * table says preen, printed "[GZnnnn name] message"); a note (a line of
 * the transcript); a detail shown with -v; an operational error (stderr,
 * and kept in f->error for --json; f->failed).
 */
void fsck_problem(struct fsck *f, enum fsck_pr pr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void fsck_note(struct fsck *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fsck_info(struct fsck *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fsck_fail(struct fsck *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fsck_msgs_free(struct fsck *f);
/* clears a progress bar from the screen, before other output */
void fsck_progress_end(struct fsck *f);

/* check.c helpers shared with repair.c */
int fsck_read(struct fsck *f, u64 addr, void *buf);
/* directory entries as read (good ones only); fn returns non-zero to
 * stop; returns 0, or -EFSCORRUPTED when part of the dir is unreadable */
typedef int (*fsck_dirent_fn)(struct fsck *f, void *ctx, const char *name,
			      u32 len, u32 ino, u8 dtype);
int fsck_dir_walk(struct fsck *f, u32 dir, fsck_dirent_fn fn, void *ctx,
		  bool report);
/*
 * Table block n of table t: its address when it verified (0: absent or
 * invalid); whether it is stored but invalid (imap: or holds invalid
 * entries; every block under a lost index block); the first block in
 * [n, end) that is stored, valid or not (end when none): loops over
 * stored blocks skip a whole absent index block at once.
 */
u64 fsck_tbl_addr(const struct fsck *f, u32 t, u32 n);
bool fsck_tbl_bad(const struct fsck *f, u32 t, u32 n);
u32 fsck_tbl_next(const struct fsck *f, u32 t, u32 n, u32 end);
/* block off of main zone zi claimed by the tree; blocks claimed in it */
static inline bool fsck_owned(const struct fsck *f, u32 zi, u32 off)
{
	const u8 *b = f->owned[zi];

	return b && (b[off >> 3] & (1u << (off & 7)));
}
u32 fsck_owned_count(const struct fsck *f, u32 zi);
/* table lookups through the cache: a returned pointer is valid until
 * the next lookup */
u64 fsck_imap_get(struct fsck *f, u32 nid);
const struct gaze_summary *fsck_summary_get(struct fsck *f, u32 zi, u32 off);
const struct gaze_zinfo *fsck_zinfo_get(struct fsck *f, u32 zi);
int fsck_log_of_zone(const struct fsck *f, u32 zone);
struct fsck_dir *fsck_dir_find(struct fsck *f, u32 ino);

struct fsck_xlink *fsck_xlink_find(struct fsck *f, u32 ino);
/*
 * readahead.c: the node scan of pass 1 (every FK_NODE nid in order, its
 * block read and, when it is an inode, verified on its own on one of two
 * threads).  An entry and its block stay valid until the next call.
 */
struct fsck_scan_ent {
	u32		nid;
	u64		addr;		/* from the imap */
	const void	*blk;		/* NULL when err */
	int		err;		/* read error */
	bool		inode;		/* an inode: ret, why valid */
	int		ret;		/* verify, nid, seq checks */
	const char	*why;
};
struct fsck_scan;
/* one scan at a time: f->scan */
int fsck_scan_start(struct fsck *f, struct fsck_scan **sp);
/* the next entry, NULL at the end */
const struct fsck_scan_ent *fsck_scan_next(struct fsck_scan *s);
void fsck_scan_stop(struct fsck_scan *s);
/*
 * report.c: done of total in a phase whose name starts "pass N"
 * (1 to 3, fsck(8)'s pass number); other phases only poll
 */
void fsck_progress(struct fsck *f, const char *phase, u64 done, u64 total);

#endif /* GAZE_FSCK_H */
