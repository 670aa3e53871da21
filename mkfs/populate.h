/* SPDX-License-Identifier: GPL-2.0 */
/*
 * populate.h - mkfs.gaze -d DIR: copy a directory tree into a new
 * filesystem through the shared core's namespace operations, and
 * estimate beforehand what the copy will take.
 */
#ifndef GAZE_MKFS_POPULATE_H
#define GAZE_MKFS_POPULATE_H

#include <stdbool.h>
#include <stdint.h>

struct gaze_fs;

/*
 * Copies the tree under srcdir into fs, whose root directory must exist.
 * The root takes srcdir's mode, owner, times and xattrs; entries that
 * already exist in the new filesystem as directories (lost+found) are
 * merged.  Symlinks are never followed and mount points are crossed.
 *
 * The tree may change while it is copied: an entry that vanishes between
 * the listing and the copy is skipped, a file that shrinks is copied as
 * it then is and one that grows up to the size it had when it was
 * stat'ed; each prints a warning naming the path, and the copy goes on.
 *
 * verbose: 0 silent, 1 a summary line, 2 also every path copied.
 * Returns 0; -ENOSPC, with nothing printed, when the new filesystem is
 * full (the caller says so in words, gaze_populate_estimate() helps);
 * or another negative errno, reported on stderr as
 * "mkfs.gaze: PATH: reason".
 */
int gaze_populate(struct gaze_fs *fs, const char *srcdir, int verbose);

/*
 * What copying a tree will take in a new filesystem, in 4 KiB blocks of
 * the main area (all of them count against its usable capacity).  An
 * estimate, from one walk of stat calls (and xattr lists): sparse files
 * are counted by their allocated size, hashed directories at the bucket
 * fill extendible hashing averages (about 70%).
 */
struct gaze_tree_estimate {
	uint64_t	inodes;		/* one node block each */
	uint64_t	files, dirs, symlinks, special, hardlinks;
	uint64_t	inline_files;	/* data kept in the inode */
	uint64_t	data_bytes;	/* file data (allocated) */
	uint64_t	data_blocks;	/* file data and long symlink targets */
	uint64_t	dir_blocks;	/* buckets and index blocks */
	uint64_t	map_nodes;	/* direct and indirect block-map nodes */
	uint64_t	xattr_nodes;	/* xattrs beyond the inode's room */
};

static inline uint64_t
gaze_tree_estimate_blocks(const struct gaze_tree_estimate *e)
{
	return e->inodes + e->data_blocks + e->dir_blocks + e->map_nodes +
	       e->xattr_nodes;
}

/* node ids the tree takes: inodes, map and xattr nodes */
static inline uint64_t
gaze_tree_estimate_nids(const struct gaze_tree_estimate *e)
{
	return e->inodes + e->map_nodes + e->xattr_nodes;
}

/*
 * Walks srcdir as gaze_populate() would copy it into a filesystem with
 * the given feature bits (inline_data, lost_found) and fills *e.  quiet:
 * print nothing (for the message after a failed copy); else errors are
 * reported as gaze_populate() reports them.  Returns 0 or a negative
 * errno.
 */
int gaze_populate_estimate(const char *srcdir, uint64_t feature_compat,
			   uint64_t feature_incompat, bool quiet,
			   struct gaze_tree_estimate *e);

#endif /* GAZE_MKFS_POPULATE_H */
