/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gazectl.h - the command table of gazectl and what its files share.
 *
 * A command is a row of a table: name, handler, one-line summary, usage,
 * help text, and the number of positional arguments it takes (checked by
 * the handler after its option parsing with gaze_cmd_nargs()).  A row
 * with a sub-table and no handler is a command group ("gazectl GROUP
 * CMD ..."); help and dispatch walk the tables recursively.
 *
 * Exit status of every handler: 0 success, 1 failure, 2 usage error.
 */
#ifndef GAZE_GAZECTL_H
#define GAZE_GAZECTL_H

#define GAZE_EXIT_OK	0
#define GAZE_EXIT_FAIL	1
#define GAZE_EXIT_USAGE	2

struct gaze_cmd;
typedef int (*gaze_cmd_fn)(const struct gaze_cmd *cmd, int argc, char **argv);

struct gaze_cmd {
	const char		*name;
	gaze_cmd_fn		fn;		/* NULL for a group */
	const char		*summary;	/* one line, no period */
	const char		*usage;		/* arguments after the name */
	const char		*help;		/* options and details */
	int			min_args;	/* positional arguments */
	int			max_args;	/* -1: no limit */
	const struct gaze_cmd	*sub;		/* group: NULL-name terminated */
};

/* full name of cmd as typed ("gazectl ls"), for messages */
const char *gaze_cmd_path(const struct gaze_cmd *cmd);
/* prints the usage and help of one command to f */
void gaze_cmd_help(const struct gaze_cmd *cmd, FILE *f);
/*
 * After getopt: checks argc - optind against the command's limits.
 * Returns 0, or prints the usage to stderr and returns GAZE_EXIT_USAGE.
 */
int gaze_cmd_nargs(const struct gaze_cmd *cmd, int argc, int optind);
/* "gazectl ls: MESSAGE" + "Try 'gazectl ls --help'."; GAZE_EXIT_USAGE */
int gaze_cmd_usage_error(const struct gaze_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* GAZE_IF_* by bit (inspect.c): dump inode, stat and ls show them */
#define GAZE_CTL_NR_INODE_FLAGS	11
extern const char *const gaze_ctl_inode_flags[GAZE_CTL_NR_INODE_FLAGS];

/* reader.c: the read-only image reader */
int gaze_cmd_ls(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_cat(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_extract(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_stat(const struct gaze_cmd *cmd, int argc, char **argv);

/* ctl.c: commands on a mounted filesystem (ioctls) */
int gaze_cmd_compress_stats(const struct gaze_cmd *cmd, int argc,
			    char **argv);
int gaze_cmd_set(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_get(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_info(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_gc_stats(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_counters(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_tune(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_gc(const struct gaze_cmd *cmd, int argc, char **argv);
/* ident.c: what identifies a filesystem (probe for udev, label, uuid) */
int gaze_cmd_probe(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_label(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_uuid(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_features(const struct gaze_cmd *cmd, int argc, char **argv);
/* inspect.c: gazectl dump ... (raw on-disk structures, read-only) */
int gaze_cmd_dump_super(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_dump_cp(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_dump_zones(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_dump_inode(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_dump_dir(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_dump_usage(const struct gaze_cmd *cmd, int argc, char **argv);
int gaze_cmd_dump_block(const struct gaze_cmd *cmd, int argc, char **argv);

#endif /* GAZE_GAZECTL_H */
