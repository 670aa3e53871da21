/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mkfs.h - what the files of mkfs.gaze share.
 *
 *   main.c     options, safety checks, the format itself
 *   summary.c  the report printed after (or instead of, with -n) formatting
 *   populate.c -d: the copy of a tree, and the estimate of what it takes
 */
#ifndef GAZE_MKFS_H
#define GAZE_MKFS_H

#include <stdbool.h>

#include "gaze_core.h"
#include "populate.h"

#define MKFS_PROG	"mkfs.gaze"

/* exit status (mkfs(8)) */
#define MKFS_EXIT_OK	0
#define MKFS_EXIT_FAIL	1
#define MKFS_EXIT_USAGE	2

struct mkfs_summary {
	const char			*device;
	const struct gaze_mkfs_params	*params;
	const struct gaze_layout	*layout;
	bool				dry_run;
	int				verbose;	/* 0, 1 (-v), 2 (-vv) */
	const char			*root_dir;	/* -n -d: the tree */
	const struct gaze_tree_estimate	*tree;		/* and its estimate */
};

void gaze_mkfs_summary_print(const struct mkfs_summary *s);

#endif /* GAZE_MKFS_H */
