/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gaze_util.h - helpers the userspace tools share (libgazeutil).
 *
 * Why: mkfs.gaze, fsck.gaze and gazectl parse the same size syntax, print
 * sizes the same way, refuse mounted devices and existing filesystems by
 * the same rules, and speak JSON; one copy keeps their behaviour equal.
 * Nothing here is used by the shared core (kernel/core/).
 *
 * Every function returns 0 or a negative errno unless it says otherwise.
 */
#ifndef GAZE_UTIL_H
#define GAZE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* ---------------------------------------------------------------- */
/* size.c                                                            */
/* ---------------------------------------------------------------- */
/*
 * "4096", "64M", "1G", "1.5G", "2TiB", "8KB": a number followed by an
 * optional binary suffix K, M, G, T, P, E (powers of 1024, either case)
 * and an optional "iB" or "B".  A fraction is allowed with a suffix and
 * must give a whole number of bytes.  -EINVAL on garbage or an empty
 * string, -ERANGE when the value does not fit in 64 bits.
 */
int gaze_size_parse(const char *s, uint64_t *bytes);
/* "1.00 GiB", "512.00 KiB", "4096 B"; returns buf */
char *gaze_size_human(uint64_t bytes, char *buf, size_t len);
#define GAZE_SIZE_HUMAN_LEN	32
/*
 * Unsigned decimal in [lo, hi]: -EINVAL on garbage (sign, suffix,
 * empty), -ERANGE outside the range.
 */
int gaze_uint_parse(const char *s, uint64_t lo, uint64_t hi, uint64_t *val);

/* ---------------------------------------------------------------- */
/* mount.c                                                           */
/* ---------------------------------------------------------------- */
/*
 * Is path (a block device or an image file) mounted?  Reads
 * /proc/self/mountinfo (or the file named by GAZE_TEST_MOUNTINFO): a
 * block device matches by device number or by source path; a file by
 * its source path, or through a loop device whose backing file it is
 * (/sys/block/loop<N>/loop/backing_file) when that loop device is
 * mounted.  Returns 1 (mounted; the mount point goes to where, if not
 * NULL), 0 (not mounted) or a negative errno.
 */
int gaze_mount_check(const char *path, char *where, size_t len);

/* ---------------------------------------------------------------- */
/* probe.c                                                           */
/* ---------------------------------------------------------------- */
/*
 * libblkid probe (filesystem superblocks and partition tables) of path.
 * Returns 1 with the type name ("ext4", "gpt", "dos", ...) in type and
 * *ptable (if not NULL) telling a partition table from a filesystem, 0
 * if nothing was found, or a negative errno.  Conflicting signatures
 * count as found, named "multiple signatures".
 */
int gaze_probe_blkid(const char *path, char *type, size_t len, bool *ptable);
/*
 * Does the 4 KiB block at byte offset off of path start with the GAZE
 * superblock magic?  Returns 1, 0 or a negative errno.  A block past the
 * end of the file is 0.
 */
int gaze_probe_gaze_at(const char *path, uint64_t off);
/* same, for a block already read */
bool gaze_probe_gaze_block(const void *block);
/*
 * The zone size recorded in a GAZE superblock at path (copy 0, or copy 1
 * found at the start of the second zone), whatever zone model it was
 * made for: an image of emulated zones, or a copy of a zoned device's
 * blocks, read with emulated zones of the size it was made with; 0 when
 * none verifies.  For gaze_dev_open_opts.zone_blocks.  Optional:
 * *nr_zones (copy 0's zone count, 0 when copy 0 is bad) and *bytes (the
 * size of the file or device).
 */
uint32_t gaze_probe_image_zone_blocks(const char *path, uint32_t *nr_zones,
				      uint64_t *bytes);
/*
 * The superblock of the GAZE filesystem on path: copy 0 when it
 * verifies; copy 1 only when block 0 carries the GAZE magic but does not
 * verify, or is all zeros (a checkpoint zone reset by a switch that a
 * crash cut short); anything else at block 0 is not GAZE, as for a
 * libblkid prober.  sb: GAZE_BLOCK_SIZE bytes.
 * Returns 1 (*copy: the copy read, if copy is not NULL), 0 (not a GAZE
 * filesystem) or a negative errno (open or read error).
 */
struct gaze_super;
int gaze_probe_super(const char *path, struct gaze_super *sb,
		     uint32_t *copy);
/*
 * What udev's blkid builtin would import for sb if libblkid knew GAZE,
 * as KEY=value lines for IMPORT{program}: ID_FS_LABEL and
 * ID_FS_LABEL_ENC (when the label is not empty), ID_FS_UUID,
 * ID_FS_UUID_ENC, ID_FS_VERSION, ID_FS_TYPE=gaze and
 * ID_FS_USAGE=filesystem.  The label loses trailing white space, as
 * libblkid's labels do; the plain values go through
 * blkid_safe_string(), the _ENC ones through blkid_encode_string(), as
 * the builtin does; a value that udev's parser would strip or unquote is
 * written in double quotes.
 */
void gaze_probe_udev_export(FILE *f, const struct gaze_super *sb);
/* the label as libblkid reports labels (trailing white space dropped)
 * into buf (len bytes, NUL-terminated); its length */
size_t gaze_probe_label(const struct gaze_super *sb, char *buf, size_t len);

/* ---------------------------------------------------------------- */
/* ident.c                                                           */
/* ---------------------------------------------------------------- */
/*
 * Changes the label (label not NULL: at most 63 bytes, "" clears it)
 * and the uuid users see (uuid not NULL, not the null uuid) of the
 * unmounted filesystem on dev, opened read-write and locked by the
 * caller, which has checked the mount table.  Emulated zones: both
 * superblock copies rewritten in place; a zoned device: both checkpoint
 * zones written anew through the core.  A uuid other than the one the
 * metadata headers carry sets the incompat feature meta_uuid.  Returns
 * 0; -EUCLEAN (*why says why) when fsck.gaze has something to do first:
 * superblock copies that are bad or differ, damaged or unreadable
 * checkpoints, a checkpoint asking for fsck, nodes awaiting roll-forward
 * (a last checkpoint that is not a clean unmount is accepted when none
 * do); -EOPNOTSUPP / -EROFS (*why) for features this version does not
 * know; -ENAMETOOLONG, -EINVAL for bad arguments; another negative errno
 * from the device (*why set once writing began).
 */
struct gaze_dev;
int gaze_ident_set(struct gaze_dev *dev, const char *label,
		   const uint8_t *uuid, const char **why);
/*
 * Changes the feature masks of the unmounted filesystem on dev, under the
 * same conditions, by list ("a,^b", as mkfs.gaze -O): compression may go
 * on, lazy_summary on or off (off first clears and commits the summary
 * entries it left stale: *cleared counts them); any other change is
 * -EPERM, an unknown or unsupported name -EINVAL, with *why saying which
 * (static storage).  Other errors as gaze_ident_set.
 */
int gaze_features_set(struct gaze_dev *dev, const char *list,
		      uint64_t *cleared, const char **why);

/* ---------------------------------------------------------------- */
/* uuid.c                                                            */
/* ---------------------------------------------------------------- */
#define GAZE_UUID_STR_LEN	37	/* 36 characters and the NUL */
int gaze_uuid_parse(const char *s, uint8_t uuid[16]);	/* -EINVAL */
void gaze_uuid_unparse(const uint8_t uuid[16], char *buf);	/* lower case */
void gaze_uuid_generate(uint8_t uuid[16]);		/* random (v4) */
bool gaze_uuid_is_null(const uint8_t uuid[16]);
/* len bytes from getrandom(2), falling back to /dev/urandom */
int gaze_random_bytes(void *buf, size_t len);

/* ---------------------------------------------------------------- */
/* text.c - UTF-8 and names quoted for terminals.                    */
/* ---------------------------------------------------------------- */
/*
 * Length of the UTF-8 sequence at s (at most n bytes), 0 when the bytes
 * there are not one (overlong forms, surrogates and code points beyond
 * U+10FFFF are not); its code point to *cp when cp is not NULL.
 */
size_t gaze_utf8_len(const void *s, size_t n, uint32_t *cp);
bool gaze_utf8_valid(const void *s, size_t n);
/*
 * Not printable, whatever the locale: C0 and C1 controls, DEL, U+2028,
 * U+2029 and the bidirectional controls.
 */
bool gaze_char_printable(uint32_t cp);
/* does s (n bytes) hold a byte that is not a printable UTF-8 character? */
bool gaze_quote_needed(const char *s, size_t n);
/*
 * s (n bytes) for human output: itself when !gaze_quote_needed(),
 * otherwise one shell word in GNU ls's shell-escape style that bash
 * reads back as the same bytes ('a'$'\n''b').  Into buf like
 * snprintf(3): NUL-terminated when size > 0, and the length it needs
 * (without the NUL) returned.  At most GAZE_QUOTE_MAX(n) bytes with the
 * NUL.
 */
size_t gaze_quote(char *buf, size_t size, const char *s, size_t n);
#define GAZE_QUOTE_MAX(n)	(7 * (size_t)(n) + 1)
/* the same, written to f */
void gaze_quote_fput(FILE *f, const char *s, size_t n);
/* the same for a NUL-terminated s, malloc'd; NULL when out of memory */
char *gaze_quote_dup(const char *s);

/* ---------------------------------------------------------------- */
/* json.c - a streaming JSON writer.                                 */
/*                                                                   */
/* Nesting is tracked so commas come out right; keys are given to   */
/* the value calls inside objects (NULL inside arrays).  Output is   */
/* indented two spaces per level when pretty is set.  Strings are    */
/* escaped per RFC 8259, and the characters gaze_char_printable()    */
/* refuses as \uXXXX.  A string that is not valid UTF-8 is written   */
/* with U+FFFD for each byte that is not, and, inside an object, an  */
/* extra member KEY_hex right after it holds its bytes in hex (two   */
/* lower-case digits a byte), so the bytes are never lost and never  */
/* look like a UTF-8 string's; inside an array only the U+FFFD form  */
/* is written.                                                       */
/* ---------------------------------------------------------------- */
#define GAZE_JSON_MAX_DEPTH	32

struct gaze_json {
	FILE	*f;
	bool	pretty;
	int	depth;
	bool	first[GAZE_JSON_MAX_DEPTH];	/* nothing written at level yet */
	bool	is_obj[GAZE_JSON_MAX_DEPTH];
	int	error;				/* first misuse, -EINVAL */
};

void gaze_json_init(struct gaze_json *j, FILE *f, bool pretty);
void gaze_json_obj_begin(struct gaze_json *j, const char *key);
void gaze_json_obj_end(struct gaze_json *j);
void gaze_json_arr_begin(struct gaze_json *j, const char *key);
void gaze_json_arr_end(struct gaze_json *j);
void gaze_json_str(struct gaze_json *j, const char *key, const char *val);
/* string of exactly len bytes (may contain NUL) */
void gaze_json_strn(struct gaze_json *j, const char *key, const char *val,
		    size_t len);
void gaze_json_u64(struct gaze_json *j, const char *key, uint64_t val);
void gaze_json_s64(struct gaze_json *j, const char *key, int64_t val);
void gaze_json_double(struct gaze_json *j, const char *key, double val);
void gaze_json_bool(struct gaze_json *j, const char *key, bool val);
void gaze_json_null(struct gaze_json *j, const char *key);
/* ends the document (newline); 0 or -EINVAL if begin/end did not pair */
int gaze_json_finish(struct gaze_json *j);

/* ---------------------------------------------------------------- */
/* io.c                                                              */
/* ---------------------------------------------------------------- */
/* all of buf to fd (write(2), retried on EINTR and short writes) */
int gaze_write_all(int fd, const void *buf, size_t len);
/* all of buf to fd at off (pwrite(2), retried likewise) */
int gaze_pwrite_all(int fd, const void *buf, size_t len, off_t off);
/* up to len bytes at off; the bytes read (short only at end of file) */
ssize_t gaze_pread_full(int fd, void *buf, size_t len, off_t off);
/*
 * "PROG: PATH: REASON" or, with fmt, "PROG: PATH: FMT: REASON" and a
 * newline on stderr: the one message shape of the tree walkers.  PATH
 * is quoted with gaze_quote(); names in fmt's arguments are the
 * caller's to quote.
 */
void gaze_vwarn_path(const char *prog, const char *path, const char *reason,
		     const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/* ---------------------------------------------------------------- */
/* walk.c - what mkfs.gaze -d and gazectl extract need to walk a     */
/* directory tree of any depth: the current path, a stack of         */
/* directory descriptors kept under a budget, a table of inodes seen */
/* (hard links) and the names of an xattr list.                      */
/* ---------------------------------------------------------------- */

/* a path that grows and shrinks by one component at a time */
struct gaze_pathbuf {
	char	*path;		/* NUL-terminated */
	size_t	len, cap;
};

/*
 * path = base without trailing slashes (a lone "/" stays); -ENOMEM.
 * Free with gaze_pathbuf_free() even when it failed.
 */
int gaze_pathbuf_init(struct gaze_pathbuf *pb, const char *base);
/* path += "/" name (len bytes); *old gets the length to cut back to */
int gaze_pathbuf_add(struct gaze_pathbuf *pb, const char *name, size_t len,
		     size_t *old);
void gaze_pathbuf_cut(struct gaze_pathbuf *pb, size_t len);
/*
 * A path naming entry name of directory dirfd for the path-based calls
 * (lsetxattr and friends: symlinks and special files cannot be opened
 * for them): the whole path while it is shorter than PATH_MAX, else one
 * through /proc/self/fd written into buf.
 */
const char *gaze_pathbuf_xpath(const struct gaze_pathbuf *pb, int dirfd,
			       const char *name, char *buf, size_t size);
void gaze_pathbuf_free(struct gaze_pathbuf *pb);

/*
 * The directories from the root of a walk to the current one.  At most
 * maxfds descriptors are held: a push beyond that closes the shallowest
 * open one, which the pop of its child reopens through ".." (checked by
 * device and inode).
 */
#define GAZE_DIRSTACK_MAX_FDS	128

struct gaze_dirlevel {
	int	fd;		/* -1 while closed to save descriptors */
	dev_t	dev;
	ino_t	ino;
	size_t	pathlen;	/* the walk's path length at this level */
};

struct gaze_dirstack {
	struct gaze_dirlevel	*lv;
	uint32_t		depth, cap;	/* lv[0..depth) in use */
	uint32_t		nclosed;	/* lv[0..nclosed) have fd -1 */
	uint32_t		maxfds;
};

/* empty; maxfds = max_fds, or fewer when RLIMIT_NOFILE is low */
void gaze_dirstack_init(struct gaze_dirstack *ds, uint32_t max_fds);
/* fd (st: its fstat) becomes the top; -ENOMEM leaves fd to the caller */
int gaze_dirstack_push(struct gaze_dirstack *ds, int fd,
		       const struct stat *st, size_t pathlen);
/*
 * Closes the top.  When its parent had been closed it is reopened
 * through ".." with O_RDONLY | O_DIRECTORY | O_CLOEXEC | oflags;
 * -ESTALE (and the parent left closed) when that is not the directory
 * it was.
 */
int gaze_dirstack_pop(struct gaze_dirstack *ds, int oflags);
/* frees the levels; pop them all first */
void gaze_dirstack_free(struct gaze_dirstack *ds);

/* inodes by (dev, ino): embed a node in what the caller keeps */
struct gaze_inode_node {
	struct gaze_inode_node	*next;
	dev_t			dev;
	ino_t			ino;
};

struct gaze_inode_table {
	struct gaze_inode_node	**tab;		/* NULL while empty */
	uint32_t		mask, count;
};

struct gaze_inode_node *gaze_inode_table_find(const struct gaze_inode_table *t,
					      dev_t dev, ino_t ino);
/* n->dev and n->ino set by the caller; -ENOMEM (n not added) */
int gaze_inode_table_add(struct gaze_inode_table *t, struct gaze_inode_node *n);
/* release (may be NULL) is called on every node; the table ends empty */
void gaze_inode_table_free(struct gaze_inode_table *t,
			   void (*release)(struct gaze_inode_node *n));
/* every node n; b is a uint32_t bucket index */
#define gaze_inode_table_for_each(t, b, n)				\
	for ((b) = 0; (t)->tab && (b) <= (t)->mask; (b)++)		\
		for ((n) = (t)->tab[b]; (n); (n) = (n)->next)

/*
 * The names of a list as llistxattr(2) returns it (NUL-terminated names
 * back to back, len bytes), empty names skipped: the first after prev,
 * or the first of all when prev is NULL; NULL at the end.
 */
const char *gaze_xname_next(const char *list, size_t len, const char *prev);
#define gaze_xname_for_each(n, list, len)				\
	for ((n) = gaze_xname_next((list), (len), NULL); (n);		\
	     (n) = gaze_xname_next((list), (len), (n)))

#endif /* GAZE_UTIL_H */
