/* SPDX-License-Identifier: GPL-2.0 */
/*
 * problem.h - every problem fsck.gaze reports, in one table, like
 * e2fsck's problem.h and bcachefs's sb-errors table: a stable number
 * (printed as GZnnnn), a name, the pass that finds it and whether -p
 * may fix it.  fsck_problem() takes its preen rule from here, so a call
 * site cannot disagree with the table, and the transcript and --json
 * name each problem the same way ("[GZ0225 inode_nlink] ...").
 *
 * The number is an interface (scripts and bug reports quote it): an
 * entry is never renumbered or reused.  A new problem gets the next free
 * number in the hundred of its pass; one that is no longer reported
 * stays in the table.  The hundreds are the passes of check.c:
 *
 *   GZ00nn  superblocks, checkpoint, tables (before pass 1)
 *   GZ01nn  pass 1: nodes, inodes and the blocks they own
 *   GZ02nn  pass 2: directories and the namespace
 *   GZ03nn  pass 3: usage bitmaps, zones, checkpoint counters
 *   GZ04nn  found while repairing
 *
 * X(number, name, pass, preen): preen is 1 when -p may fix the problem
 * without asking (the same rule as the man page's list under -p).
 */
#ifndef GAZE_FSCK_PROBLEM_H
#define GAZE_FSCK_PROBLEM_H

#define FSCK_PROBLEMS(X)						\
	X(1,   sb_gc_pool_range,	0, 0)				\
	X(2,   sb_dirty_limit_range,	0, 0)				\
	X(3,   sb_gc_queue_range,	0, 0)				\
	X(4,   sb_victim_policy,	0, 0)				\
	X(5,   sb_bg_gc_thresholds,	0, 0)				\
	X(6,   sb_copy_invalid,		0, 0)				\
	X(7,   sb_copies_differ,	0, 0)				\
	X(8,   device_too_small,	0, 0)				\
	X(9,   device_zone_size,	0, 0)				\
	X(10,  sb_layout_invalid,	0, 0)				\
	X(11,  cp_none_valid,		0, 0)				\
	X(12,  cp_newer_invalid,	0, 1)				\
	X(13,  cp_fsck_needed,		0, 1)				\
	X(14,  table_block_invalid,	0, 0)				\
	X(15,  imap_unreadable,		0, 0)				\
	X(16,  cp_damaged_passed,	0, 1)				\
	X(17,  cp_rollback,		0, 0)				\
	X(100, blk_outside_main,	1, 0)				\
	X(101, blk_past_wp,		1, 0)				\
	X(102, blk_other_owner,		1, 0)				\
	X(103, blk_used_twice,		1, 0)				\
	X(104, summary_mismatch,	1, 1)				\
	X(105, compress_no_feature,	1, 0)				\
	X(106, blk_addr_invalid,	1, 0)				\
	X(107, node_ref_bad,		1, 0)				\
	X(108, node_wrong_type,		1, 0)				\
	X(109, node_salvaged,		1, 0)				\
	X(110, node_invalid,		1, 0)				\
	X(111, xattr_name_dup,		1, 0)				\
	X(112, inline_size_bad,		1, 0)				\
	X(113, blocks_past_size,	1, 0)				\
	X(114, symlink_size_bad,	1, 0)				\
	X(115, special_has_blocks,	1, 0)				\
	X(116, inline_no_feature,	1, 0)				\
	X(117, dir_format_bad,		1, 0)				\
	X(118, inline_has_nodes,	1, 0)				\
	X(119, inode_block_count,	1, 1)				\
	X(120, orphan_unlisted,		1, 1)				\
	X(121, imap_reserved_nid,	1, 0)				\
	X(122, orphan_list_bad_ino,	1, 1)				\
	X(123, cp_orphan_flag,		1, 1)				\
	X(124, inline_dir_bad,		1, 0)				\
	X(125, inode_salvaged,		1, 0)				\
	X(126, inode_invalid,		1, 0)				\
	X(127, root_missing,		1, 0)				\
	X(128, node_unowned,		1, 0)				\
	X(129, cluster_bad,		1, 0)				\
	X(130, compr_count,		1, 1)				\
	X(200, dirent_malformed,	2, 0)				\
	X(201, dirent_name_bad,		2, 0)				\
	X(202, dirent_hash_bad,		2, 0)				\
	X(203, dirent_wrong_bucket,	2, 0)				\
	X(204, dirent_unsorted,		2, 0)				\
	X(205, dirent_duplicate,	2, 0)				\
	X(206, dir_block_missing,	2, 0)				\
	X(207, dir_block_invalid,	2, 0)				\
	X(208, dir_bucket_link,		2, 0)				\
	X(209, dir_overflow_depth,	2, 0)				\
	X(210, dir_bucket_count,	2, 0)				\
	X(211, dir_index_slot,		2, 0)				\
	X(212, dir_bucket_depth,	2, 0)				\
	X(213, dir_index_gap,		2, 0)				\
	X(214, dir_bucket_unreachable,	2, 0)				\
	X(215, dir_nentries,		2, 1)				\
	X(216, dirent_bad_ino,		2, 0)				\
	X(217, dir_hard_link,		2, 0)				\
	X(218, dirent_type,		2, 1)				\
	X(219, root_parent,		2, 1)				\
	X(220, orphan_release,		2, 1)				\
	X(221, orphan_linked,		2, 1)				\
	X(222, dir_unreachable,		2, 0)				\
	X(223, inode_unlinked,		2, 0)				\
	X(224, dir_dotdot,		2, 1)				\
	X(225, inode_nlink,		2, 1)				\
	X(300, zone_usage_bitmap,	3, 1)				\
	X(301, zone_summary_stale,	3, 1)				\
	X(302, zone_valid_count,	3, 1)				\
	X(303, zone_log_head_state,	3, 0)				\
	X(304, zone_open_no_log,	3, 1)				\
	X(305, zone_free_in_use,	3, 1)				\
	X(306, zone_past_log_head,	3, 1)				\
	X(307, zone_wp_behind,		3, 0)				\
	X(308, cp_counters,		3, 1)				\
	X(309, cp_compr_counters,	3, 1)				\
	X(310, cp_prealloc,		3, 1)				\
	X(401, lost_found_not_dir,	4, 0)

/* PR_name: the index of a problem in fsck_problems[] */
enum fsck_pr {
#define FSCK_PR_ENUM(num, name, pass, preen)	PR_##name,
	FSCK_PROBLEMS(FSCK_PR_ENUM)
#undef FSCK_PR_ENUM
	FSCK_NR_PROBLEMS
};

struct fsck_problem_desc {
	unsigned short	num;	/* GZnnnn */
	unsigned char	pass;
	unsigned char	preen;	/* -p may fix it */
	const char	*name;
};

extern const struct fsck_problem_desc fsck_problems[FSCK_NR_PROBLEMS];

#endif /* GAZE_FSCK_PROBLEM_H */
