/* SPDX-License-Identifier: GPL-2.0 */
/*
 * populate.h - mkfs.gaze -d DIR: copy a directory tree into a new
 * filesystem through the shared core's namespace operations.
 */
#ifndef GAZE_MKFS_POPULATE_H
#define GAZE_MKFS_POPULATE_H

struct gaze_fs;

/*
 * Copies the tree under srcdir into fs, whose root directory must exist.
 * The root takes srcdir's mode, owner, times and xattrs; entries that
 * already exist in the new filesystem as directories (lost+found) are
 * merged.  Symlinks are never followed and mount points are crossed.
 *
 * verbose: 0 silent, 1 a summary line, 2 also every path copied.
 * Errors are reported on stderr as "mkfs.gaze: PATH: reason"; returns 0
 * or a negative errno.
 */
int gaze_populate(struct gaze_fs *fs, const char *srcdir, int verbose);

#endif /* GAZE_MKFS_POPULATE_H */
