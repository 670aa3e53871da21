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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
/* json.c - a streaming JSON writer.                                 */
/*                                                                   */
/* Nesting is tracked so commas come out right; keys are given to   */
/* the value calls inside objects (NULL inside arrays).  Output is   */
/* indented two spaces per level when pretty is set.  Strings are    */
/* escaped per RFC 8259; bytes that are not valid UTF-8 are written   */
/* as \u00XX so the output always parses.                            */
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

#endif /* GAZE_UTIL_H */
