// SPDX-License-Identifier: GPL-2.0
/*
 * test_orphan.c - files that lose their last name while in use
 * (orphan.c), and RENAME_WHITEOUT, on an emulated zoned device.
 *
 * Unlink (or rename over) with GAZE_NS_IN_USE keeps the inode and its
 * data until gaze_ns_orphan_evict; a checkpoint records the orphan list,
 * so a power cut between the unlink and the last close frees the space
 * at the next read-write open (free block counts are checked), and a
 * read-only open leaves orphans alone.  O_TMPFILE files (gaze_ns_tmpfile)
 * are born orphans and linkat (GAZE_NS_LINK_ORPHAN) names them.  TAP output; exit status 1 on any
 * failure.
 */
#define _GNU_SOURCE
#include "gaze_core.h"
#include "gaze_zdev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"

#define NBLK	200		/* data blocks of the test files */

static struct gaze_dev *
dev_new(void)
{
	struct gaze_emu_opts o;
	struct gaze_dev *d = NULL;

	memset(&o, 0, sizeof(o));
	o.nr_zones = 64;
	o.zone_blocks = 1024;		/* 4 MiB */
	if (gaze_emu_create(&o, &d)) {
		printf("Bail out! gaze_emu_create failed\n");
		exit(1);
	}
	return d;
}

static const struct gaze_attr root_attr = {
	.mode = 040755, .atime = 1700000000, .mtime = 1700000000,
	.ctime = 1700000000, .crtime = 1700000000,
};

static struct gaze_fs *
fs_new(struct gaze_dev *d)
{
	struct gaze_mkfs_params p;
	struct gaze_fs *fs = NULL;

	memset(&p, 0, sizeof(p));
	p.geo.nr_blocks = d->nr_blocks;
	p.geo.zone_blocks = d->zone_blocks;
	p.geo.zone_cap = d->zone_cap;
	p.geo.nr_zones = d->nr_zones;
	p.geo.nr_conv = d->nr_conv;
	p.geo.max_open = d->max_open;
	p.geo.max_active = d->max_active;
	p.geo.model = d->model;
	gaze_fmt_feature_defaults(&p.feature_compat, &p.feature_ro_compat,
				  &p.feature_incompat);
	p.dirty_limit_pct = 20;
	p.uuid[0] = 0x4f;
	p.mkfs_time = 1700000000;
	strcpy(p.version, "gaze-test");
	if (gaze_fs_format(d, &p, &root_attr, &fs)) {
		printf("Bail out! gaze_fs_format failed\n");
		exit(1);
	}
	return fs;
}

static struct gaze_fs *
fs_open(struct gaze_dev *d, u32 flags)
{
	struct gaze_fs *fs = NULL;
	int err = gaze_fs_open(d, flags, &fs);

	if (err) {
		printf("Bail out! gaze_fs_open: %d\n", err);
		exit(1);
	}
	return fs;
}

/* no final checkpoint, and what was not flushed is lost */
static void
power_cut(struct gaze_fs *fs, struct gaze_dev *d, u64 seed)
{
	fs->flags |= GAZE_FS_RDONLY;
	gaze_fs_close(fs);
	gaze_emu_power_cut(d, seed, 0);
}

static u32
mkfile(struct gaze_fs *fs, const char *name)
{
	struct gaze_attr a;
	u32 ino = 0;
	int err;

	memset(&a, 0, sizeof(a));
	a.mode = 0100644;
	a.uid = 1000;
	a.gid = 100;
	err = gaze_ns_mknod(fs, GAZE_ROOT_INO, name, (u32)strlen(name), &a,
			    &ino);
	if (err)
		tap_diag("mknod %s: %d", name, err);
	return ino;
}

static void
pattern(u8 *buf, u32 seed, u64 len)
{
	u64 i;

	for (i = 0; i < len; i++)
		buf[i] = (u8)(seed * 31 + i * 7 + (i >> 12));
}

/* writes NBLK blocks of pattern seed; true on success */
static bool
fill(struct gaze_fs *fs, u32 ino, u32 seed)
{
	u64 len = (u64)NBLK * GAZE_BLOCK_SIZE;
	u8 *buf = malloc(len);
	s64 n;

	pattern(buf, seed, len);
	n = gaze_file_write(fs, ino, buf, len, 0);
	free(buf);
	return n == (s64)len;
}

static bool
check(struct gaze_fs *fs, u32 ino, u32 seed)
{
	u64 len = (u64)NBLK * GAZE_BLOCK_SIZE;
	u8 *buf = malloc(len), *want = malloc(len);
	bool ok;

	pattern(want, seed, len);
	ok = gaze_file_read(fs, ino, buf, len, 0) == (s64)len &&
	     !memcmp(buf, want, len);
	free(buf);
	free(want);
	return ok;
}

static int
unlink_in_use(struct gaze_fs *fs, const char *name)
{
	return gaze_ns_unlink_flags(fs, GAZE_ROOT_INO, name,
				    (u32)strlen(name), GAZE_NS_IN_USE, NULL);
}

static void
test_unlink_open(void)
{
	struct gaze_dev *d = dev_new();
	struct gaze_fs *fs = fs_new(d);
	struct gaze_attr a;
	u64 free0, free1, free2;
	u32 ino, x;
	u8 blk[GAZE_BLOCK_SIZE];

	ino = mkfile(fs, "f");
	free0 = gaze_space_free_blocks(fs);
	tap_ok(ino && fill(fs, ino, 1), "write %u blocks", NBLK);
	free1 = gaze_space_free_blocks(fs);
	tap_ok(!unlink_in_use(fs, "f"), "unlink while in use");
	tap_ok(gaze_ns_lookup(fs, GAZE_ROOT_INO, "f", 1, &x, NULL) == -ENOENT,
	       "the name is gone");
	tap_ok(!gaze_ns_getattr(fs, ino, &a) && a.nlink == 0 &&
	       (a.flags & GAZE_IF_ORPHAN), "the inode stays, nlink 0, orphan");
	tap_ok(fs->nr_orphans == 1, "one orphan listed");
	tap_ok(check(fs, ino, 1), "its data still reads back");
	tap_ok(gaze_space_free_blocks(fs) == free1, "no space freed yet");
	memset(blk, 0xab, sizeof(blk));
	tap_ok(gaze_file_write(fs, ino, blk, sizeof(blk),
			       (u64)NBLK * GAZE_BLOCK_SIZE) == sizeof(blk),
	       "an orphan can still be written");
	tap_ok(gaze_ns_link(fs, GAZE_ROOT_INO, "g", 1, ino) == -ENOENT,
	       "an orphan cannot be linked again");
	tap_ok(gaze_ns_orphan_evict(fs, GAZE_ROOT_INO) == -ENOENT,
	       "evicting a non-orphan: -ENOENT");
	tap_ok(!gaze_ns_orphan_evict(fs, ino), "last close evicts it");
	free2 = gaze_space_free_blocks(fs);
	tap_ok(gaze_ns_getattr(fs, ino, &a) == -ENOENT && fs->nr_orphans == 0,
	       "the inode is gone");
	tap_ok(free2 >= free0 && free2 >= free1 + NBLK,
	       "space is back (free %llu -> %llu -> %llu)",
	       (unsigned long long)free0, (unsigned long long)free1,
	       (unsigned long long)free2);
	tap_ok(gaze_ns_orphan_evict(fs, ino) == -ENOENT,
	       "a second evict: -ENOENT");

	/* without the flag the last unlink frees at once */
	ino = mkfile(fs, "h");
	free0 = gaze_space_free_blocks(fs);
	fill(fs, ino, 2);
	tap_ok(!gaze_ns_unlink(fs, GAZE_ROOT_INO, "h", 1) &&
	       gaze_ns_getattr(fs, ino, &a) == -ENOENT &&
	       gaze_space_free_blocks(fs) >= free0 && !fs->nr_orphans,
	       "plain unlink frees at once");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

static void
test_power_cut(void)
{
	struct gaze_dev *d = dev_new();
	struct gaze_fs *fs = fs_new(d);
	struct gaze_attr a;
	u64 free0, free1;
	u32 ino, keep;

	ino = mkfile(fs, "f");
	keep = mkfile(fs, "keep");
	TAP_MUST(gaze_fs_sync(fs));
	free0 = gaze_space_free_blocks(fs);
	tap_ok(fill(fs, ino, 3) && fill(fs, keep, 4), "write two files");
	tap_ok(!unlink_in_use(fs, "f"), "unlink f while in use");
	tap_ok(!gaze_fs_sync(fs) && le32_to_cpu(fs->cp.nr_orphans) == 1 &&
	       (le32_to_cpu(fs->cp.flags) & GAZE_CP_ORPHANS),
	       "the checkpoint records one orphan");
	free1 = gaze_space_free_blocks(fs);
	power_cut(fs, d, 1);

	fs = fs_open(d, GAZE_FS_RDONLY);
	tap_ok(!gaze_ns_getattr(fs, ino, &a) && a.nlink == 0 &&
	       check(fs, ino, 3) && fs->nr_orphans == 1,
	       "a read-only open keeps the orphan");
	gaze_fs_close(fs);

	fs = fs_open(d, GAZE_FS_KEEP_ORPHANS);
	tap_ok(fs->nr_orphans == 1 && !gaze_ns_getattr(fs, ino, &a),
	       "an open that keeps orphans lists it");
	power_cut(fs, d, 2);

	fs = fs_open(d, 0);
	tap_ok(gaze_ns_getattr(fs, ino, &a) == -ENOENT && !fs->nr_orphans,
	       "a read-write open frees it");
	tap_ok(gaze_space_free_blocks(fs) >= free1 + NBLK &&
	       gaze_space_free_blocks(fs) + NBLK + 8 >= free0,
	       "its blocks are free again (%llu, were %llu)",
	       (unsigned long long)gaze_space_free_blocks(fs),
	       (unsigned long long)free1);
	tap_ok(check(fs, keep, 4), "the other file is intact");
	tap_ok(!gaze_fs_sync(fs) && !fs->cp.nr_orphans &&
	       !(le32_to_cpu(fs->cp.flags) & GAZE_CP_ORPHANS),
	       "the next checkpoint has no orphans");
	power_cut(fs, d, 3);
	fs = fs_open(d, 0);
	tap_ok(gaze_ns_getattr(fs, ino, &a) == -ENOENT && check(fs, keep, 4),
	       "and stays so after another power cut");

	/* a clean close with an orphan still open: freed at the next open */
	ino = mkfile(fs, "g");
	fill(fs, ino, 5);
	unlink_in_use(fs, "g");
	gaze_fs_close(fs);
	fs = fs_open(d, 0);
	tap_ok(gaze_ns_getattr(fs, ino, &a) == -ENOENT && !fs->nr_orphans,
	       "an orphan left at close is freed at the next open");

	/* power cut before any checkpoint saw the unlink: file comes back */
	ino = mkfile(fs, "u");
	fill(fs, ino, 6);
	TAP_MUST(gaze_fs_sync(fs));
	unlink_in_use(fs, "u");
	power_cut(fs, d, 4);
	fs = fs_open(d, 0);
	tap_ok(!gaze_ns_lookup(fs, GAZE_ROOT_INO, "u", 1, &keep, NULL) &&
	       keep == ino && check(fs, ino, 6),
	       "an unlink no checkpoint saw is undone whole");

	/*
	 * recovery without a read-write mount (gaze_fs_replay): fsck keeps
	 * the orphan for its own report, a read-only mount frees it
	 */
	ino = mkfile(fs, "r");
	fill(fs, ino, 7);
	unlink_in_use(fs, "r");
	TAP_MUST(gaze_fs_sync(fs));
	free1 = gaze_space_free_blocks(fs);
	power_cut(fs, d, 5);
	{
		u32 nodes = 1;

		tap_ok(gaze_fs_replay(d, GAZE_FS_RDONLY, &nodes) == -EINVAL,
		       "gaze_fs_replay: an unknown flag is -EINVAL");
		tap_ok(!gaze_fs_replay(d, GAZE_FS_KEEP_ORPHANS, &nodes) &&
		       !nodes, "a replay that keeps orphans");
		fs = fs_open(d, GAZE_FS_RDONLY);
		tap_ok(fs->nr_orphans == 1 && !gaze_ns_getattr(fs, ino, &a),
		       "leaves the orphan listed");
		gaze_fs_close(fs);
		tap_ok(!gaze_fs_replay(d, 0, &nodes), "a replay that frees orphans");
	}
	fs = fs_open(d, GAZE_FS_RDONLY);
	tap_ok(!fs->nr_orphans && gaze_ns_getattr(fs, ino, &a) == -ENOENT &&
	       gaze_space_free_blocks(fs) >= free1 + NBLK,
	       "commits the release: a read-only open finds no orphan, the space free (%llu, were %llu)",
	       (unsigned long long)gaze_space_free_blocks(fs),
	       (unsigned long long)free1);
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

static void
test_rename_over(void)
{
	struct gaze_dev *d = dev_new();
	struct gaze_fs *fs = fs_new(d);
	struct gaze_attr a;
	u32 src, dst, x;
	u64 free1;

	src = mkfile(fs, "src");
	dst = mkfile(fs, "dst");
	fill(fs, src, 7);
	fill(fs, dst, 8);
	free1 = gaze_space_free_blocks(fs);
	tap_ok(!gaze_ns_rename(fs, GAZE_ROOT_INO, "src", 3, GAZE_ROOT_INO,
			       "dst", 3, GAZE_RENAME_IN_USE, NULL),
	       "rename over a file in use");
	tap_ok(!gaze_ns_lookup(fs, GAZE_ROOT_INO, "dst", 3, &x, NULL) &&
	       x == src && check(fs, src, 7), "dst is the moved file");
	tap_ok(!gaze_ns_getattr(fs, dst, &a) && !a.nlink &&
	       (a.flags & GAZE_IF_ORPHAN) && check(fs, dst, 8),
	       "the replaced file is an orphan with its data");
	TAP_MUST(gaze_fs_sync(fs));
	power_cut(fs, d, 5);
	fs = fs_open(d, 0);
	tap_ok(gaze_ns_getattr(fs, dst, &a) == -ENOENT &&
	       gaze_space_free_blocks(fs) >= free1 + NBLK && check(fs, src, 7),
	       "after a power cut the replaced file is freed");
	tap_ok(gaze_ns_rename(fs, GAZE_ROOT_INO, "dst", 3, GAZE_ROOT_INO,
			      "z", 1, 0x80, NULL) == -EINVAL,
	       "unknown rename flag: -EINVAL");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

/* more orphans than a checkpoint records: the first GAZE_ORPHANS_MAX */
static void
test_many(void)
{
	struct gaze_dev *d = dev_new();
	struct gaze_fs *fs = fs_new(d);
	u32 n = GAZE_ORPHANS_MAX + 5, i, gone = 0, *inos;
	struct gaze_attr a;
	char name[32];
	bool ok = true;

	inos = calloc(n, sizeof(*inos));
	for (i = 0; i < n && ok; i++) {
		snprintf(name, sizeof(name), "o%u", i);
		inos[i] = mkfile(fs, name);
		ok = inos[i] && !unlink_in_use(fs, name);
	}
	tap_ok(ok && fs->nr_orphans == n, "%u orphans", n);
	tap_ok(!gaze_fs_sync(fs) &&
	       le32_to_cpu(fs->cp.nr_orphans) == GAZE_ORPHANS_MAX,
	       "a checkpoint records %u of them", GAZE_ORPHANS_MAX);
	power_cut(fs, d, 6);
	fs = fs_open(d, 0);
	for (i = 0; i < n; i++)
		gone += gaze_ns_getattr(fs, inos[i], &a) == -ENOENT;
	tap_ok(gone == GAZE_ORPHANS_MAX, "%u freed at open", gone);
	gaze_fs_close(fs);
	gaze_dev_close(d);
	free(inos);
}

static void
test_whiteout(void)
{
	struct gaze_dev *d = dev_new();
	struct gaze_fs *fs = fs_new(d);
	struct gaze_attr a;
	u32 f, t, x, w;
	u8 dt;

	f = mkfile(fs, "a");
	t = mkfile(fs, "t");
	tap_ok(!gaze_ns_rename(fs, GAZE_ROOT_INO, "a", 1, GAZE_ROOT_INO, "b",
			       1, GAZE_RENAME_WHITEOUT, NULL),
	       "rename with whiteout");
	tap_ok(!gaze_ns_lookup(fs, GAZE_ROOT_INO, "b", 1, &x, NULL) && x == f,
	       "the file moved");
	tap_ok(!gaze_ns_lookup(fs, GAZE_ROOT_INO, "a", 1, &w, &dt) &&
	       w != f && dt == 2 && !gaze_ns_getattr(fs, w, &a) &&
	       a.mode == GAZE_S_IFCHR && !a.rdev_major && !a.rdev_minor &&
	       a.nlink == 1 && a.uid == 1000,
	       "the old name is a 0:0 character device, mode 0");
	tap_ok(gaze_ns_rename(fs, GAZE_ROOT_INO, "b", 1, GAZE_ROOT_INO, "t",
			      1, GAZE_RENAME_WHITEOUT | GAZE_RENAME_EXCHANGE, NULL) ==
	       -EINVAL, "whiteout with exchange: -EINVAL");
	tap_ok(!gaze_ns_rename(fs, GAZE_ROOT_INO, "b", 1, GAZE_ROOT_INO, "t",
			       1, GAZE_RENAME_WHITEOUT | GAZE_RENAME_IN_USE, NULL) &&
	       !gaze_ns_getattr(fs, t, &a) && !a.nlink &&
	       !gaze_ns_lookup(fs, GAZE_ROOT_INO, "b", 1, &w, &dt) && dt == 2,
	       "whiteout over an existing file in use");
	tap_ok(gaze_ns_rename(fs, GAZE_ROOT_INO, "t", 1, GAZE_ROOT_INO, "a",
			      1, GAZE_RENAME_WHITEOUT |
			      GAZE_RENAME_NOREPLACE, NULL) == -EEXIST,
	       "whiteout with noreplace onto a whiteout: -EEXIST");
	gaze_fs_close(fs);
	fs = fs_open(d, 0);
	tap_ok(!gaze_ns_lookup(fs, GAZE_ROOT_INO, "a", 1, &w, &dt) &&
	       dt == 2 && !gaze_ns_getattr(fs, w, &a) &&
	       a.mode == GAZE_S_IFCHR && gaze_ns_getattr(fs, t, &a) == -ENOENT,
	       "whiteouts persist, the replaced orphan is freed");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

static u32
mktmp(struct gaze_fs *fs, u32 mode)
{
	struct gaze_attr a;
	u32 ino = 0;
	int err;

	memset(&a, 0, sizeof(a));
	a.mode = mode;
	err = gaze_ns_tmpfile(fs, GAZE_ROOT_INO, &a, &ino);
	if (err)
		tap_diag("tmpfile: %d", err);
	return err ? 0 : ino;
}

/* O_TMPFILE: born an orphan; linkat names it; unnamed ones are freed */
static void
test_tmpfile(void)
{
	struct gaze_dev *d = dev_new();
	struct gaze_fs *fs = fs_new(d);
	struct gaze_attr a;
	u64 free0, free1;
	u32 ino, gone, x;

	memset(&a, 0, sizeof(a));
	a.mode = 040755;
	tap_ok(gaze_ns_tmpfile(fs, GAZE_ROOT_INO, &a, &x) == -EINVAL,
	       "a directory tmpfile: -EINVAL");
	a.mode = 0100600;
	tap_ok(gaze_ns_tmpfile(fs, 99999, &a, &x) == -ENOENT,
	       "in a directory that does not exist: -ENOENT");
	TAP_MUST(gaze_fs_sync(fs));
	free0 = gaze_space_free_blocks(fs);
	ino = mktmp(fs, 0100600);
	tap_ok(ino && !gaze_ns_getattr(fs, ino, &a) && a.nlink == 0 &&
	       (a.flags & GAZE_IF_ORPHAN) && fs->nr_orphans == 1,
	       "a tmpfile is an orphan: nlink 0, listed");
	tap_ok(fill(fs, ino, 7) && check(fs, ino, 7), "it reads and writes");
	tap_ok(gaze_ns_link(fs, GAZE_ROOT_INO, "t", 1, ino) == -ENOENT,
	       "plain link refuses it");
	tap_ok(gaze_ns_link_flags(fs, GAZE_ROOT_INO, "t", 1, ino, 0x4000, NULL) ==
	       -EINVAL, "an unknown link flag: -EINVAL");
	tap_ok(!gaze_ns_link_flags(fs, GAZE_ROOT_INO, "t", 1, ino,
				   GAZE_NS_LINK_ORPHAN, NULL) &&
	       !gaze_ns_getattr(fs, ino, &a) && a.nlink == 1 &&
	       !(a.flags & GAZE_IF_ORPHAN) && !fs->nr_orphans,
	       "linkat names it: nlink 1, no longer an orphan");
	tap_ok(!gaze_ns_lookup(fs, GAZE_ROOT_INO, "t", 1, &x, NULL) && x == ino,
	       "the name finds it");
	tap_ok(gaze_ns_orphan_evict(fs, ino) == -ENOENT,
	       "the last close does not free it");
	tap_ok(gaze_ns_link_flags(fs, GAZE_ROOT_INO, "t2", 2, GAZE_ROOT_INO,
				  GAZE_NS_LINK_ORPHAN, NULL) == -EPERM,
	       "the flag does not allow linking a directory");

	/* one never named: the checkpoint lists it, a power cut frees it */
	gone = mktmp(fs, 0100644);
	tap_ok(gone && fill(fs, gone, 8), "a second tmpfile, written");
	tap_ok(!gaze_fs_sync(fs) && le32_to_cpu(fs->cp.nr_orphans) == 1,
	       "the checkpoint records it as an orphan");
	free1 = gaze_space_free_blocks(fs);
	power_cut(fs, d, 5);
	fs = fs_open(d, 0);
	tap_ok(gaze_ns_getattr(fs, gone, &a) == -ENOENT && !fs->nr_orphans &&
	       gaze_space_free_blocks(fs) >= free1 + NBLK,
	       "the next read-write open frees it (free %llu -> %llu)",
	       (unsigned long long)free1,
	       (unsigned long long)gaze_space_free_blocks(fs));
	tap_ok(!gaze_ns_lookup(fs, GAZE_ROOT_INO, "t", 1, &x, NULL) &&
	       x == ino && check(fs, ino, 7),
	       "the named one survives with its data");

	/* closed unnamed: freed at once */
	gone = mktmp(fs, 0100644);
	fill(fs, gone, 9);
	tap_ok(!gaze_ns_orphan_evict(fs, gone) &&
	       gaze_ns_getattr(fs, gone, &a) == -ENOENT &&
	       gaze_space_free_blocks(fs) + NBLK + 8 >= free0,
	       "a tmpfile closed without a name is freed");
	fs->flags |= GAZE_FS_RDONLY;
	tap_ok(gaze_ns_tmpfile(fs, GAZE_ROOT_INO, &a, &x) == -EROFS,
	       "read-only: -EROFS");
	fs->flags &= ~GAZE_FS_RDONLY;
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

int
main(void)
{
	test_unlink_open();
	test_power_cut();
	test_rename_over();
	test_many();
	test_whiteout();
	test_tmpfile();
	return tap_done();
}
