// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - gazectl: command table, dispatch and help.
 *
 * Why a table: every command's name, summary, usage and argument count
 * live in one row, so dispatch, "gazectl help", "gazectl CMD --help" and
 * the man page (written from "gazectl help") cannot drift apart.  Rows
 * may hold a sub-table, so later command groups ("gazectl gc stats ...")
 * plug in without changing the dispatcher.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gazectl.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static int cmd_help(const struct gaze_cmd *cmd, int argc, char **argv);

#define IMAGE_NOTE \
	"\n" \
	"IMAGE is a device or image file holding an unmounted GAZE filesystem;\n" \
	"it is opened read-only and never written.  PATH is a path inside the\n" \
	"filesystem ('/' is its root, a leading '/' is optional); symbolic\n" \
	"links in it are not followed.\n" \
	NAMES_NOTE

/* names come from the image: what a terminal or a script gets (text.c) */
#define NAMES_NOTE \
	"\n" \
	"Names, paths, symlink targets and labels that hold control characters\n" \
	"or bytes that are not UTF-8 are printed quoted as GNU ls does\n" \
	"('a'$'\\n''b'); in JSON a string that is not UTF-8 has U+FFFD for\n" \
	"each bad byte and a KEY_hex member with its bytes in hex.\n"

#define MNT_NOTE \
	"\n" \
	"MNT is the mount point of a GAZE filesystem, or any file in it.\n"
#define DUMP_NOTE \
	"\n" \
	"IMAGE is opened read-only and never written.\n" \
	NAMES_NOTE \
	"\n" \
	"      --json       print one JSON object with the same fields\n"

static const struct gaze_cmd gaze_dump_cmds[] = {
	{
		.name = "super",
		.fn = gaze_cmd_dump_super,
		.summary = "show both superblock copies field by field",
		.usage = "[--json] IMAGE",
		.help =
"Show the primary superblock (block 0) and the secondary copy (block 0\n"
"of the second checkpoint zone): the verifier's verdict, whether the\n"
"secondary matches the primary, the block header and every field.\n"
"Works on an image too damaged to open.\n"
DUMP_NOTE,
		.min_args = 1, .max_args = 1,
	},
	{
		.name = "cp",
		.fn = gaze_cmd_dump_cp,
		.summary = "show the checkpoint packs of both checkpoint zones",
		.usage = "[--json] IMAGE",
		.help =
"Walk both checkpoint zones and show every pack found: position, seq,\n"
"size, verdict and which pack is current (the newest valid one); for\n"
"valid packs the flags, counters, log heads, table roots and the orphan\n"
"list.  The walk of a zone stops at the first invalid pack.  Exit 1\n"
"when no valid pack exists.\n"
DUMP_NOTE,
		.min_args = 1, .max_args = 1,
	},
	{
		.name = "zones",
		.fn = gaze_cmd_dump_zones,
		.summary = "show the zone table",
		.usage = "[--json] IMAGE",
		.help =
"One row per zone: class (checkpoint, meta, main), the filesystem's\n"
"state of it, the log (temperature) that wrote it, valid blocks, the\n"
"write pointer as the filesystem sees it (fs_wp, blocks from the zone\n"
"start) and the device's condition and write pointer (dev_wp, '-' for\n"
"zones without one, e.g. emulated zones on an image file).\n"
DUMP_NOTE,
		.min_args = 1, .max_args = 1,
	},
	{
		.name = "inode",
		.fn = gaze_cmd_dump_inode,
		.summary = "show an inode, its block map and node tree",
		.usage = "[--json] IMAGE INO|PATH",
		.help =
"Show inode INO (a number) or the inode PATH names (symlinks are not\n"
"followed; a name made of digits needs a leading '/'): its block\n"
"address and verdict, header, every field, the\n"
"block map as runs 'file blocks -> device blocks', and the tree of\n"
"direct, indirect and double indirect nodes.\n"
DUMP_NOTE,
		.min_args = 2, .max_args = 2,
	},
	{
		.name = "dir",
		.fn = gaze_cmd_dump_dir,
		.summary = "show the raw entries of a directory",
		.usage = "[--json] IMAGE INO|PATH",
		.help =
"Show a directory's format (inline or hashed), its buckets, and every\n"
"stored entry in storage order: bucket, name hash, readdir cookie,\n"
"inode, type and name.  '.' and '..' are not stored ('..' is the\n"
"parent field).\n"
DUMP_NOTE,
		.min_args = 2, .max_args = 2,
	},
	{
		.name = "usage",
		.fn = gaze_cmd_dump_usage,
		.summary = "show space usage by zone state and log",
		.usage = "[--json] IMAGE",
		.help =
"Sum the main-area zones by state (free, open, full, prefree) and by\n"
"log: zones, valid blocks, invalid blocks (written but no longer\n"
"valid) and free blocks (not yet written); then the checkpoint's\n"
"counters and the capacity.\n"
DUMP_NOTE,
		.min_args = 1, .max_args = 1,
	},
	{
		.name = "block",
		.fn = gaze_cmd_dump_block,
		.summary = "decode one block",
		.usage = "[--json] IMAGE ADDR",
		.help =
"Show where block ADDR (4 KiB units from the device start) lies, and\n"
"for a main-area block its usage bit and summary entry (marked stale\n"
"when the block is not valid but the entry, which lazy_summary leaves\n"
"as it was, still names an owner); decode its\n"
"metadata header (stored and computed crc) and summarise its body by\n"
"type with the verifier's verdict.  Blocks without a header are\n"
"reported as zeros or as file data.\n"
DUMP_NOTE,
		.min_args = 2, .max_args = 2,
	},
	{ .name = NULL }
};

static const struct gaze_cmd gaze_cmds[] = {
	{
		.name = "help",
		.fn = cmd_help,
		.summary = "show help for gazectl or one of its commands",
		.usage = "[COMMAND...]",
		.help = "Without COMMAND, print the usage of every command.\n",
		.min_args = 0, .max_args = -1,
	},
	{
		.name = "ls",
		.fn = gaze_cmd_ls,
		.summary = "list a directory of an unmounted filesystem image",
		.usage = "[-l] [-R] [-d] [--json] IMAGE [PATH]",
		.help =
"List the entries of directory PATH (default /), sorted bytewise and\n"
"without '.' and '..', or PATH itself when it is not a directory.  An\n"
"entry or directory that cannot be read is reported and skipped, and\n"
"the exit status is then 1.\n"
IMAGE_NOTE
"\n"
"  -l, --long       mode, links, uid, gid, size, mtime with nanoseconds,\n"
"                   name, and '-> TARGET' for symbolic links\n"
"  -R, --recursive  list subdirectories too, each under a 'PATH:' line\n"
"  -d, --directory  show a directory itself, not its entries\n"
"      --json       print one JSON array with an object per entry: ino,\n"
"                   name, path, type (file, dir, symlink, chr, blk, fifo,\n"
"                   sock), mode (st_mode as a number), nlink, uid, gid,\n"
"                   size, blocks (4 KiB blocks held), atime_sec,\n"
"                   atime_nsec, mtime_sec, mtime_nsec, ctime_sec,\n"
"                   ctime_nsec, rdev_major, rdev_minor, and target (the\n"
"                   symlink target, null for other types); name_hex,\n"
"                   path_hex, target_hex when those are not UTF-8\n",
		.min_args = 1, .max_args = 2,
	},
	{
		.name = "cat",
		.fn = gaze_cmd_cat,
		.summary = "write a file of an unmounted filesystem image to stdout",
		.usage = "IMAGE PATH",
		.help =
"Write the contents of the regular file PATH to standard output; holes\n"
"read as zeros.\n"
IMAGE_NOTE,
		.min_args = 2, .max_args = 2,
	},
	{
		.name = "extract",
		.fn = gaze_cmd_extract,
		.summary = "copy a tree out of an unmounted filesystem image",
		.usage = "[-v] IMAGE DESTDIR [PATH]",
		.help =
"Recreate the tree at PATH (default /) under DESTDIR, which must be an\n"
"empty directory or not exist (it is then created).  Copied: regular\n"
"files (holes stay holes), directories, hard links (as links),\n"
"symbolic links, character and block devices, FIFOs and sockets, with\n"
"all mode bits, owner, group, xattrs and atime and mtime to the\n"
"nanosecond; ctime cannot be set and is the time of extraction.  When\n"
"PATH is a directory DESTDIR takes its attributes, otherwise PATH is\n"
"extracted as DESTDIR/NAME.  Owners, device nodes and trusted. and\n"
"security. xattrs need root.\n"
"\n"
"An entry that cannot be read from the image or created under DESTDIR\n"
"is reported with its path and the reason, and the rest of the tree is\n"
"still extracted; a file whose data cannot all be read keeps what came\n"
"before the error.  The exit status is then 1, after a count of those\n"
"entries.\n"
IMAGE_NOTE
"\n"
"  -v, --verbose    print each path as it is extracted\n",
		.min_args = 2, .max_args = 3,
	},
	{
		.name = "stat",
		.fn = gaze_cmd_stat,
		.summary = "show every inode field of a path in an unmounted image",
		.usage = "[--json] IMAGE PATH",
		.help =
"Show the inode of PATH: number, type, mode, links, uid, gid, size,\n"
"blocks, device numbers, inode flags, generation, access, modify,\n"
"change and birth times with nanoseconds, the symlink target, and the\n"
"name and size of every xattr.\n"
IMAGE_NOTE
"\n"
"      --json       print one JSON object with the same fields\n",
		.min_args = 2, .max_args = 2,
	},
	{
		.name = "probe",
		.fn = gaze_cmd_probe,
		.summary = "tell whether a device holds GAZE: type, uuid, label",
		.usage = "[--export] DEVICE",
		.help =
"Read the superblock of DEVICE (or an image file) and print the type,\n"
"format version, uuid and label, mounted or not.  Copy 0 of the\n"
"superblock decides; copy 1 is looked for only when block 0 has the\n"
"GAZE magic but does not verify, or is all zeros (as after a crash in a\n"
"checkpoint zone switch).  Exit 0 for a GAZE filesystem, 1 without any\n"
"message for anything else, a device that cannot be read included.\n"
"\n"
"      --export     print what libblkid would give udev, for udev's\n"
"                   IMPORT{program} (udev/64-gaze.rules): ID_FS_TYPE=gaze,\n"
"                   ID_FS_USAGE=filesystem, ID_FS_VERSION, ID_FS_UUID,\n"
"                   ID_FS_UUID_ENC, and ID_FS_LABEL, ID_FS_LABEL_ENC when\n"
"                   the label is not empty, escaped as blkid escapes them\n",
		.min_args = 1, .max_args = 1,
	},
	{
		.name = "label",
		.fn = gaze_cmd_label,
		.summary = "show the label of a filesystem, or change it offline",
		.usage = "IMAGE|DEVICE [NEW]",
		.help =
"Without NEW, print the label.  With NEW (at most 63 bytes; '' clears\n"
"it), change it: the filesystem must not be mounted and must be clean\n"
"(last unmounted cleanly; otherwise run fsck.gaze first).  On an image\n"
"or a regular device both superblock copies are rewritten in place; on\n"
"a zoned device both checkpoint zones are written anew.  No option is\n"
"read after IMAGE, so NEW may start with '-'.\n"
NAMES_NOTE,
		.min_args = 1, .max_args = 2,
	},
	{
		.name = "uuid",
		.fn = gaze_cmd_uuid,
		.summary = "show the UUID of a filesystem, or change it offline",
		.usage = "IMAGE|DEVICE [NEW|random]",
		.help =
"Without NEW, print the filesystem UUID.  With NEW (a UUID, or 'random'\n"
"for a new random one), change it, under the same conditions as label.\n"
"The metadata blocks keep the UUID they were written with: the first\n"
"change records it in the superblock and sets the incompatible feature\n"
"meta_uuid, which kernels and tools older than it refuse; changing the\n"
"UUID back to the original clears the feature.\n",
		.min_args = 1, .max_args = 2,
	},
	{
		.name = "features",
		.fn = gaze_cmd_features,
		.summary = "show the features of a filesystem, or change them offline",
		.usage = "IMAGE|DEVICE [[^]NAME[,[^]NAME...]]",
		.help =
"Without a list, print the features set in the superblock, comma-\n"
"separated.  With one, as tune2fs -O takes it (NAME turns a feature on,\n"
"^NAME off), change them under the same conditions as label.  Two can\n"
"change on an existing filesystem:\n"
"  compression   on only: new writes may compress from then on (mount\n"
"                with compress=ALG, chattr +c, gazectl set); it cannot\n"
"                go off, since files may hold compressed clusters\n"
"  lazy_summary  on or off; off first clears and commits the summary\n"
"                entries of blocks that are no longer valid (for an\n"
"                fsck.gaze older than the feature), and prints how many\n"
"The others are chosen by mkfs.gaze, or follow the UUID (meta_uuid).\n"
"An unknown name is a usage error; a change not allowed changes\n"
"nothing and fails.\n",
		.min_args = 1, .max_args = 2,
	},
	{
		.name = "info",
		.fn = gaze_cmd_info,
		.summary = "show geometry, features, options and space of a mounted filesystem",
		.usage = "[--json] MNT",
		.help =
"Show the geometry (zones, capacity, logs, GC reserve), the feature\n"
"masks, the mount options and where the space is: valid, free now,\n"
"freeable by the garbage collector, the GC reserve, and space freed but\n"
"waiting for checkpoints before it can be reused.\n"
MNT_NOTE
"\n"
"      --json       print one JSON object (space in 4 KiB blocks)\n",
		.min_args = 1, .max_args = 1,
	},
	{
		.name = "set",
		.fn = gaze_cmd_set,
		.summary = "set how files and directories compress",
		.usage = "compression=ALG[:LEVEL]|none PATH...",
		.help =
"Set the compression of each PATH on a mounted GAZE filesystem with the\n"
"compression feature, as zfs set and btrfs property set do: new writes to\n"
"a file, and new files and directories in a directory, use ALG (lz4,\n"
"zstd[:1-19], gzip[:1-9], on = lz4) or none.  Data already written stays\n"
"as it is.  Needs ownership of PATH (or CAP_FOWNER), as chattr does.\n",
		.min_args = 2, .max_args = 1024,
	},
	{
		.name = "get",
		.fn = gaze_cmd_get,
		.summary = "show how files and directories compress",
		.usage = "[--json] PATH...",
		.help =
"For each PATH on a mounted GAZE filesystem: the compression new writes\n"
"use, its source as zfs get shows it (local: set on PATH itself by\n"
"gazectl set or chattr; inherited: taken from its directory when it was\n"
"made; default: a root never set), and the space its compressed\n"
"clusters save.\n"
"\n"
"      --json       print a JSON array (bytes)\n",
		.min_args = 1, .max_args = 1024,
	},
	{
		.name = "compress-stats",
		.fn = gaze_cmd_compress_stats,
		.summary = "show how well files, trees and the filesystem compress",
		.usage = "[--json] PATH...",
		.help =
"For each PATH (a file or a directory tree on a mounted GAZE\n"
"filesystem, not crossing into other filesystems): its regular files,\n"
"their data (apparent size) and the space they take (st_blocks), and the\n"
"ratio of the two.  Then, for the whole filesystem, the data held in\n"
"compressed clusters and the blocks those take: the compression ratio\n"
"the checkpoint keeps across mounts, and the default new files take.\n"
"Holes count as data, as du --apparent-size counts them.\n"
"\n"
"      --json       print one JSON object (bytes)\n",
		.min_args = 1, .max_args = 1024,
	},
	{
		.name = "gc-stats",
		.fn = gaze_cmd_gc_stats,
		.summary = "show the garbage collector's counters",
		.usage = "[--json] [--watch SECONDS] [--reset] MNT",
		.help =
"Show what the garbage collector did since mount (or the last reset):\n"
"zones reclaimed, blocks moved, GC write amplification, reclaim time\n"
"(count, mean, p50, p99, max), per-stage busy and waiting time and\n"
"queue depth, page pool size and use, writers blocked, reservations.\n"
MNT_NOTE
"\n"
"      --json           one JSON object per report, on one line\n"
"      --watch SECONDS  report again every SECONDS until interrupted\n"
"      --reset          zero the counters after reading them (needs\n"
"                       CAP_SYS_ADMIN)\n",
		.min_args = 1, .max_args = 1,
	},
	{
		.name = "counters",
		.fn = gaze_cmd_counters,
		.summary = "show the filesystem's event counters",
		.usage = "[--json] MNT",
		.help =
"Show what happened since mount (or remount read-write), one counter a\n"
"line: checkpoints (all, for fsyncs, for the one-file fsyncs' backlog),\n"
"fsyncs made durable without a checkpoint (and those of one file alone),\n"
"inode read-around windows and the inodes they brought in that were used,\n"
"and the garbage collector's batches written without the filesystem lock.\n"
"A counter this gazectl does not know is shown as counter_N.\n"
MNT_NOTE
"\n"
"      --json       print one JSON object\n",
		.min_args = 1, .max_args = 1,
	},
	{
		.name = "tune",
		.fn = gaze_cmd_tune,
		.summary = "list or set the tunables of a mounted filesystem",
		.usage = "MNT [KEY=VALUE...]",
		.help =
"Without KEY=VALUE, list every tunable with its value, accepted range\n"
"and meaning.  With them, set each in order (needs CAP_SYS_ADMIN); an\n"
"unknown key or an out-of-range value is refused and stops the list.\n"
"Values are numbers; on, off, sync, greedy and cost-benefit are\n"
"accepted as 1, 0, 2, 0 and 1.\n"
MNT_NOTE,
		.min_args = 1, .max_args = -1,
	},
	{
		.name = "gc",
		.fn = gaze_cmd_gc,
		.summary = "reclaim a zone now",
		.usage = "[--zone N] [--wait] MNT",
		.help =
"Reclaim the best victim zone (or zone N): move its valid blocks and\n"
"leave it to be reset.  Needs CAP_SYS_ADMIN.\n"
MNT_NOTE
"\n"
"  -z, --zone N     reclaim zone N (a full main-area zone)\n"
"  -w, --wait       also write checkpoints until the zone is free for\n"
"                   reuse, and print how long it all took\n",
		.min_args = 1, .max_args = 1,
	},
	{
		.name = "dump",
		.summary = "show on-disk structures of an unmounted image",
		.usage = "COMMAND [--json] IMAGE [ARG]",
		.help =
"Decode the raw structures of an unmounted image, read-only.\n",
		.sub = gaze_dump_cmds,
	},
	{ .name = NULL }
};

static const struct gaze_cmd gaze_root = {
	.name = "gazectl",
	.summary = "inspect and control GAZE filesystems",
	.usage = "[-h|--help] [-V|--version] COMMAND [ARGS...]",
	.sub = gaze_cmds,
};

/* names of the commands being run or described, for messages */
static const struct gaze_cmd *cmd_stack[8];
static int cmd_depth;
static char cmd_path_buf[256];

const char *
gaze_cmd_path(const struct gaze_cmd *cmd)
{
	size_t len = 0;
	int i;

	cmd_path_buf[0] = '\0';
	for (i = 0; i < cmd_depth; i++) {
		len += snprintf(cmd_path_buf + len, sizeof(cmd_path_buf) - len,
				"%s%s", i ? " " : "", cmd_stack[i]->name);
		if (len >= sizeof(cmd_path_buf))
			break;
		if (cmd_stack[i] == cmd)
			break;
	}
	return cmd_path_buf;
}

static void
cmd_push(const struct gaze_cmd *cmd)
{
	if (cmd_depth < (int)(sizeof(cmd_stack) / sizeof(cmd_stack[0])))
		cmd_stack[cmd_depth++] = cmd;
}

static const struct gaze_cmd *
cmd_find(const struct gaze_cmd *table, const char *name)
{
	for (; table && table->name; table++)
		if (!strcmp(table->name, name))
			return table;
	return NULL;
}

static void
cmd_list(const struct gaze_cmd *group, FILE *f)
{
	const struct gaze_cmd *c;

	for (c = group->sub; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
}

void
gaze_cmd_help(const struct gaze_cmd *cmd, FILE *f)
{
	fprintf(f, "Usage: %s %s\n\n", gaze_cmd_path(cmd), cmd->usage);
	if (cmd->summary && cmd->fn)
		fprintf(f, "%c%s.\n\n", cmd->summary[0] & ~0x20,
			cmd->summary + 1);
	if (cmd->help)
		fprintf(f, "%s", cmd->help);
	if (cmd->sub) {
		fprintf(f, "\nCommands:\n");
		cmd_list(cmd, f);
		fprintf(f, "\nRun '%s help COMMAND' or '%s COMMAND --help' for "
			"details.\n", cmd_stack[0]->name, gaze_cmd_path(cmd));
	}
	fprintf(f, "\nExit status: 0 success, 1 failure, 2 usage error.\n");
}

int
gaze_cmd_usage_error(const struct gaze_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", gaze_cmd_path(cmd));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nUsage: %s %s\nTry '%s --help'.\n",
		gaze_cmd_path(cmd), cmd->usage, gaze_cmd_path(cmd));
	return GAZE_EXIT_USAGE;
}

int
gaze_cmd_nargs(const struct gaze_cmd *cmd, int argc, int optind)
{
	int n = argc - optind;

	if (n < cmd->min_args)
		return gaze_cmd_usage_error(cmd, "missing argument");
	if (cmd->max_args >= 0 && n > cmd->max_args)
		return gaze_cmd_usage_error(cmd, "too many arguments");
	return 0;
}

/* the whole manual: the root's help, then every command's */
static void
help_all(const struct gaze_cmd *group, FILE *f)
{
	const struct gaze_cmd *c;

	for (c = group->sub; c->name; c++) {
		cmd_push(c);
		fprintf(f, "\n");
		if (c->sub) {
			help_all(c, f);
		} else {
			fprintf(f, "%s %s\n", gaze_cmd_path(c), c->usage);
			fprintf(f, "    %c%s.\n\n", c->summary[0] & ~0x20,
				c->summary + 1);
			if (c->help) {
				const char *p = c->help, *nl;

				while (*p) {
					nl = strchrnul(p, '\n');
					if (nl > p)
						fprintf(f, "    %.*s", (int)(nl - p), p);
					fputc('\n', f);
					p = *nl ? nl + 1 : nl;
				}
			}
		}
		cmd_depth--;
	}
}

static void
help_root(FILE *f)
{
	fprintf(f,
"Usage: gazectl %s\n"
"\n"
"gazectl inspects and controls GAZE filesystems, the log-structured\n"
"filesystem for zoned storage.\n"
"\n"
"Options:\n"
"  -h, --help       show this help and exit\n"
"  -V, --version    show the version and exit\n"
"\n"
"Every command also takes -h/--help.\n"
"\n"
"Commands:\n", gaze_root.usage);
	cmd_list(&gaze_root, f);
	fprintf(f,
"\n"
"Exit status: 0 success, 1 failure, 2 usage error.\n"
"\n"
"Commands in detail:\n");
	help_all(&gaze_root, f);
}

static int
cmd_help(const struct gaze_cmd *cmd, int argc, char **argv)
{
	const struct gaze_cmd *group = &gaze_root, *c = NULL;
	int i;

	cmd_depth = 1;		/* describe from the root, not from "help" */
	if (argc > 1 && (!strcmp(argv[1], "-h") ||
			 !strcmp(argv[1], "--help"))) {
		cmd_push(cmd);
		gaze_cmd_help(cmd, stdout);
		return GAZE_EXIT_OK;
	}
	if (argc < 2) {
		help_root(stdout);
		return GAZE_EXIT_OK;
	}
	for (i = 1; i < argc; i++) {
		c = cmd_find(group->sub, argv[i]);
		if (!c) {
			fprintf(stderr, "gazectl: unknown command '%s'. See 'gazectl help'.\n",
				argv[i]);
			return GAZE_EXIT_USAGE;
		}
		cmd_push(c);
		if (!c->sub)
			break;
		group = c;
	}
	if (i < argc - 1) {
		fprintf(stderr, "gazectl: '%s' has no subcommands.\n",
			gaze_cmd_path(c));
		return GAZE_EXIT_USAGE;
	}
	gaze_cmd_help(c, stdout);
	return GAZE_EXIT_OK;
}

/* argv[0] is the group's name; runs the command named by argv[1] */
static int
dispatch(const struct gaze_cmd *group, int argc, char **argv)
{
	const struct gaze_cmd *c;

	if (argc < 2) {
		if (group == &gaze_root) {
			fprintf(stderr, "gazectl: missing command. See 'gazectl help'.\n");
		} else {
			fprintf(stderr, "%s: missing command.\n",
				gaze_cmd_path(group));
			gaze_cmd_help(group, stderr);
		}
		return GAZE_EXIT_USAGE;
	}
	c = cmd_find(group->sub, argv[1]);
	if (!c) {
		fprintf(stderr, "%s: unknown command '%s'. See 'gazectl help'.\n",
			gaze_cmd_path(group), argv[1]);
		return GAZE_EXIT_USAGE;
	}
	cmd_push(c);
	if (c->sub) {
		if (argc > 2 && (!strcmp(argv[2], "-h") ||
				 !strcmp(argv[2], "--help"))) {
			gaze_cmd_help(c, stdout);
			return GAZE_EXIT_OK;
		}
		return dispatch(c, argc - 1, argv + 1);
	}
	/* the handler parses its own options: getopt starts afresh */
	optind = 0;
	return c->fn(c, argc - 1, argv + 1);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	cmd_push(&gaze_root);
	/* "+": stop at the command name, its options are its own */
	while ((opt = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			help_root(stdout);
			return GAZE_EXIT_OK;
		case 'V':
			printf("gazectl (GAZE) %s\n", PACKAGE_VERSION);
			return GAZE_EXIT_OK;
		default:
			fprintf(stderr, "Try 'gazectl --help'.\n");
			return GAZE_EXIT_USAGE;
		}
	}
	return dispatch(&gaze_root, argc - optind + 1, argv + optind - 1);
}
