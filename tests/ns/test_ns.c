// SPDX-License-Identifier: GPL-2.0
/*
 * test_ns.c - the namespace (inode.c bmap.c dir.c xattr.c namei.c) on an
 * emulated zoned device: create / lookup / readdir / unlink of every file
 * type, hard links, symlinks, a 100,000-entry directory, file data with
 * holes, inline conversion, >4 GiB sparse files, truncate and random I/O
 * against an in-memory model, xattrs, and space accounting, each checked
 * again after close + open, and rename in all its forms.  TAP output; exit status 1 on any failure.
 *
 *   test_ns [-s SEED] [-q]     (-q: skip the 100,000-entry directory)
 */
#define _GNU_SOURCE
#include "gaze_core.h"
#include "gaze_zdev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>

#include "../tap.h"

static u64 rng_state = 0x9e3779b97f4a7c15ull;

static u64
rnd(void)
{
	u64 x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------- */
/* Device and instance helpers.                                      */
/* ---------------------------------------------------------------- */

static struct gaze_dev *
dev_new(u32 zones)
{
	struct gaze_emu_opts o;
	struct gaze_dev *d = NULL;

	memset(&o, 0, sizeof(o));
	o.nr_zones = zones;
	o.zone_blocks = 1024;		/* 4 MiB */
	if (gaze_emu_create(&o, &d)) {
		printf("Bail out! gaze_emu_create failed\n");
		exit(1);
	}
	return d;
}

static struct gaze_attr root_attr = {
	.mode = 040755, .uid = 0, .gid = 0,
	.atime = 1700000000, .mtime = 1700000001, .ctime = 1700000002,
	.crtime = 1700000003, .atime_nsec = 11, .mtime_nsec = 22,
	.ctime_nsec = 33, .crtime_nsec = 44,
};

static struct gaze_fs *
fs_new(struct gaze_dev *d, bool inline_data)
{
	struct gaze_mkfs_params p;
	struct gaze_fs *fs = NULL;
	int err;

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
	if (!inline_data)
		p.feature_incompat &= ~GAZE_FEATURE_INCOMPAT_INLINE_DATA;
	p.dirty_limit_pct = 20;
	p.uuid[0] = 0x42;
	p.uuid[15] = 0x17;
	p.dir_hash_seed[0] = 0x01234567;
	p.dir_hash_seed[1] = 0x89abcdef;
	p.dir_hash_seed[2] = 0xdeadbeef;
	p.dir_hash_seed[3] = 0x0badf00d;
	p.mkfs_time = 1700000000;
	strcpy(p.version, "gaze-test");
	err = gaze_fs_format(d, &p, &root_attr, &fs);
	if (err) {
		printf("Bail out! gaze_fs_format: %d\n", err);
		exit(1);
	}
	return fs;
}

static struct gaze_fs *
fs_reopen(struct gaze_fs *fs, struct gaze_dev *d)
{
	int err = gaze_fs_close(fs);

	if (err)
		tap_ok(0, "close: %d", err);
	fs = NULL;
	err = gaze_fs_open(d, 0, &fs);
	if (err) {
		printf("Bail out! gaze_fs_open: %d\n", err);
		exit(1);
	}
	return fs;
}

static struct gaze_attr
attr_of(u32 mode)
{
	struct gaze_attr a;

	memset(&a, 0, sizeof(a));
	a.mode = mode;
	a.uid = 1000;
	a.gid = 100;
	a.atime = 1600000000;
	a.mtime = 1600000100;
	a.ctime = 1600000200;
	a.crtime = 1600000300;
	a.atime_nsec = 1;
	a.mtime_nsec = 999999999;
	a.ctime_nsec = 3;
	a.crtime_nsec = 4;
	return a;
}

static int
mk(struct gaze_fs *fs, u32 dir, const char *name, u32 mode, u32 *ino)
{
	struct gaze_attr a = attr_of(mode);

	return gaze_ns_mknod(fs, dir, name, (u32)strlen(name), &a, ino);
}

static int
lk(struct gaze_fs *fs, u32 dir, const char *name, u32 *ino)
{
	u8 dt;

	return gaze_ns_lookup(fs, dir, name, (u32)strlen(name), ino, &dt);
}

static int
rm(struct gaze_fs *fs, u32 dir, const char *name)
{
	return gaze_ns_unlink(fs, dir, name, (u32)strlen(name));
}

/* ---------------------------------------------------------------- */
/* readdir collection                                                */
/* ---------------------------------------------------------------- */

struct rd_ent {
	char	name[256];
	u32	ino;
	u8	dt;
};

struct rd_ctx {
	struct rd_ent	*ents;
	u32		n, cap;
	u64		last_cookie;
	bool		first;
	bool		order_bad;
	u32		budget;		/* entries per call; 0 = unlimited */
	u32		this_call;
};

static int
rd_fill(void *vctx, const char *name, u32 len, u32 ino, u8 dt, u64 cookie)
{
	struct rd_ctx *c = vctx;

	if (!c->first && cookie <= c->last_cookie)
		c->order_bad = true;
	c->first = false;
	c->last_cookie = cookie;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->ents = realloc(c->ents, c->cap * sizeof(*c->ents));
	}
	memcpy(c->ents[c->n].name, name, len);
	c->ents[c->n].name[len] = 0;
	c->ents[c->n].ino = ino;
	c->ents[c->n].dt = dt;
	c->n++;
	c->this_call++;
	return c->budget && c->this_call >= c->budget;
}

static int
rd_all(struct gaze_fs *fs, u32 dir, u32 budget, struct rd_ctx *c)
{
	u64 pos = 0;
	u32 calls = 0;
	int err;

	memset(c, 0, sizeof(*c));
	c->first = true;
	c->budget = budget;
	do {
		c->this_call = 0;
		err = gaze_ns_readdir(fs, dir, &pos, rd_fill, c);
		if (err)
			return err;
		if (++calls > 10000000)
			return -ELOOP;
	} while (pos != 0x7fffffffffffffffull);
	return 0;
}

static int
rd_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rd_ent *)a)->name,
		      ((const struct rd_ent *)b)->name);
}

/* all names unique? */
static bool
rd_unique(struct rd_ctx *c)
{
	u32 i;

	qsort(c->ents, c->n, sizeof(*c->ents), rd_cmp);
	for (i = 1; i < c->n; i++)
		if (!strcmp(c->ents[i - 1].name, c->ents[i].name))
			return false;
	return true;
}

static struct rd_ent *
rd_find(struct rd_ctx *c, const char *name)
{
	u32 i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->ents[i].name, name))
			return &c->ents[i];
	return NULL;
}

/* ---------------------------------------------------------------- */
/* Namespace basics                                                  */
/* ---------------------------------------------------------------- */

static char long_target[4001];

static void
check_tree(struct gaze_fs *fs, const char *when)
{
	struct gaze_attr a = { 0 };
	struct rd_ctx c;
	u32 ino, ino2, d;
	char buf[4200];
	int n;

	memset(&a, 0, sizeof(a));

	tap_ok(!gaze_ns_getattr(fs, GAZE_ROOT_INO, &a) && a.mode == 040755 &&
	       a.nlink == 4, "%s: root is a dir with nlink 4 (got %o %u)", when,
	       a.mode, a.nlink);
	tap_ok(!lk(fs, GAZE_ROOT_INO, "lost+found", &ino) &&
	       !gaze_ns_getattr(fs, ino,
				&a) && a.mode == 040700 && a.nlink == 2,
	       "%s: lost+found", when);
	tap_ok(!lk(fs, GAZE_ROOT_INO, "file", &ino) && !gaze_ns_getattr(fs, ino,
									&a)
	       && a.mode == 0100644 && a.nlink == 2 && a.uid == 1000 &&
	       a.gid == 100 && a.atime == 1600000000 && a.atime_nsec == 1 &&
	       a.mtime_nsec == 999999999 && a.crtime == 1600000300 &&
	       a.crtime_nsec == 4 && a.size == 0, "%s: file attributes exact",
	       when);
	tap_ok(!lk(fs, GAZE_ROOT_INO, "hard", &ino2) && ino2 == ino,
	       "%s: hard link names the same inode", when);
	tap_ok(!lk(fs, GAZE_ROOT_INO, "dir", &d) && !gaze_ns_getattr(fs, d,
								     &a) &&
	       a.mode == 040750 && a.nlink == 3, "%s: dir nlink 3", when);
	tap_ok(!lk(fs, d, "..", &ino) && ino == GAZE_ROOT_INO &&
	       !lk(fs, d, ".", &ino) && ino == d, "%s: . and ..", when);
	tap_ok(!lk(fs, d, "sub", &ino) && !gaze_ns_getattr(fs, ino, &a) &&
	       a.nlink == 2 && !lk(fs, ino, "..", &ino2) && ino2 == d,
	       "%s: subdir", when);
	tap_ok(!lk(fs, d, "chr", &ino) && !gaze_ns_getattr(fs, ino, &a) &&
	       a.mode == 020600 && a.rdev_major == 4 && a.rdev_minor == 64,
	       "%s: char device", when);
	tap_ok(!lk(fs, d, "blk", &ino) && !gaze_ns_getattr(fs, ino, &a) &&
	       a.mode == 060600 && a.rdev_major == 8 && a.rdev_minor == 1,
	       "%s: block device", when);
	tap_ok(!lk(fs, d, "fifo", &ino) && !gaze_ns_getattr(fs, ino, &a) &&
	       a.mode == 010644, "%s: fifo", when);
	tap_ok(!lk(fs, d, "sock", &ino) && !gaze_ns_getattr(fs, ino, &a) &&
	       a.mode == 0140755, "%s: socket", when);
	n = lk(fs, GAZE_ROOT_INO, "sym", &ino);
	if (!n)
		n = gaze_ns_readlink(fs, ino, buf, sizeof(buf));
	tap_ok(n == 6 && !memcmp(buf, "target", 6), "%s: short symlink", when);
	n = lk(fs, GAZE_ROOT_INO, "longsym", &ino);
	if (!n)
		n = gaze_ns_readlink(fs, ino, buf, sizeof(buf));
	tap_ok(n == 4000 &&
	       !memcmp(buf, long_target, 4000) && !gaze_ns_getattr(fs, ino,
								   &a) &&
	       a.size == 4000 && a.blocks == 1, "%s: long symlink (%d)", when, n);
	tap_ok(lk(fs, GAZE_ROOT_INO, "nope", &ino) == -ENOENT,
	       "%s: missing name -ENOENT", when);

	tap_ok(!rd_all(fs, GAZE_ROOT_INO, 0, &c) && c.n == 8 && !c.order_bad &&
	       rd_find(&c, ".") && rd_find(&c, "..") && rd_find(&c,
								"lost+found")
	       && rd_find(&c, "file") && rd_find(&c, "hard") && rd_find(&c,
									"dir")
	       && rd_find(&c, "sym") && rd_find(&c, "longsym") && rd_unique(&c),
	       "%s: root readdir (%u entries)", when, c.n);
	tap_ok(rd_find(&c, "dir") && rd_find(&c, "dir")->dt == 4 &&
	       rd_find(&c, "sym")->dt == 10 && rd_find(&c, "file")->dt == 8,
	       "%s: readdir types", when);
	free(c.ents);
	tap_ok(!rd_all(fs, d, 1,
		       &c) && c.n == 7 && !c.order_bad && rd_unique(&c),
	       "%s: dir readdir one at a time", when);
	free(c.ents);
}

static void
test_basic(bool inline_data)
{
	const char *tag = inline_data ? "inline" : "noinline";
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, inline_data);
	struct gaze_attr a = { 0 };
	u32 ino, d, f, sub;
	char name[300];
	int err;

	tap_diag("namespace basics (%s)", tag);
	tap_ok(!gaze_ns_getattr(fs, GAZE_ROOT_INO,
				&a) && a.mtime == 1700000001 &&
	       a.mtime_nsec == 22 && a.crtime == 1700000003 && a.nlink == 3,
	       "%s: root keeps the given times", tag);
	tap_ok(fs->valid_inodes == 2, "%s: valid_inodes %llu after format", tag,
	       (unsigned long long)fs->valid_inodes);
	tap_ok(!mk(fs, GAZE_ROOT_INO, "file", 0100644, &f), "%s: create file",
	       tag);
	tap_ok(mk(fs, GAZE_ROOT_INO, "file", 0100644, &ino) == -EEXIST,
	       "%s: duplicate -EEXIST", tag);
	tap_ok(mk(fs, GAZE_ROOT_INO, ".", 0100644, &ino) == -EINVAL &&
	       mk(fs, GAZE_ROOT_INO, "..", 0100644, &ino) == -EINVAL &&
	       mk(fs, GAZE_ROOT_INO, "a/b", 0100644, &ino) == -EINVAL &&
	       gaze_ns_mknod(fs, GAZE_ROOT_INO, "", 0, &a, &ino) == -EINVAL,
	       "%s: bad names -EINVAL", tag);
	memset(name, 'x', 256);
	name[256] = 0;
	tap_ok(mk(fs, GAZE_ROOT_INO, name, 0100644, &ino) == -ENAMETOOLONG,
	       "%s: 256-byte name refused", tag);
	name[255] = 0;
	tap_ok(!mk(fs, GAZE_ROOT_INO, name, 0100644, &ino) &&
	       !lk(fs, GAZE_ROOT_INO, name, &ino) && !rm(fs, GAZE_ROOT_INO,
							 name),
	       "%s: 255-byte name", tag);
	tap_ok(!mk(fs, GAZE_ROOT_INO, "dir", 040750, &d), "%s: mkdir", tag);
	tap_ok(mk(fs, f, "x", 0100644, &ino) == -ENOTDIR, "%s: -ENOTDIR", tag);
	tap_ok(!mk(fs, d, "sub", 040755, &sub), "%s: mkdir sub", tag);
	a = attr_of(020600);
	a.rdev_major = 4;
	a.rdev_minor = 64;
	tap_ok(!gaze_ns_mknod(fs, d, "chr", 3, &a, &ino), "%s: mknod chr", tag);
	a = attr_of(060600);
	a.rdev_major = 8;
	a.rdev_minor = 1;
	tap_ok(!gaze_ns_mknod(fs, d, "blk", 3, &a, &ino), "%s: mknod blk", tag);
	tap_ok(!mk(fs, d, "fifo", 010644, &ino) && !mk(fs, d, "sock", 0140755,
						       &ino),
	       "%s: fifo and socket", tag);
	tap_ok(!mk(fs, d, "tmp", 0100600, &ino), "%s: tmp file", tag);
	a = attr_of(0777);
	tap_ok(!gaze_ns_symlink(fs, GAZE_ROOT_INO, "sym", 3, "target", 6, &a,
				&ino),
	       "%s: short symlink", tag);
	tap_ok(!gaze_ns_symlink(fs, GAZE_ROOT_INO, "longsym", 7, long_target,
				4000,
			    &a, &ino), "%s: long symlink", tag);
	tap_ok(gaze_ns_symlink(fs, GAZE_ROOT_INO, "bad", 3, long_target, 0, &a,
			   &ino) == -ENOENT, "%s: empty target refused", tag);
	tap_ok(!gaze_ns_link(fs, GAZE_ROOT_INO, "hard", 4, f), "%s: link", tag);
	tap_ok(gaze_ns_link(fs, GAZE_ROOT_INO, "hd", 2, d) == -EPERM,
	       "%s: link to a dir -EPERM", tag);
	tap_ok(gaze_ns_link(fs, GAZE_ROOT_INO, "hard", 4, f) == -EEXIST,
	       "%s: link to an existing name -EEXIST", tag);
	tap_ok(gaze_file_write(fs, d, "x", 1, 0) == -EISDIR,
	       "%s: write to a dir -EISDIR", tag);
	tap_ok(rm(fs, GAZE_ROOT_INO, "dir") == -ENOTEMPTY, "%s: -ENOTEMPTY",
	       tag);
	tap_ok(!rm(fs, d, "tmp") && lk(fs, d, "tmp", &ino) == -ENOENT,
	       "%s: unlink tmp", tag);
	tap_ok(rm(fs, d, "tmp") == -ENOENT, "%s: unlink missing -ENOENT", tag);
	check_tree(fs, tag);
	fs = fs_reopen(fs, dev);
	check_tree(fs, tag);

	/* tear down and check that everything went */
	tap_ok(!rm(fs, d, "sub") && !rm(fs, d, "chr") && !rm(fs, d, "blk") &&
	       !rm(fs, d, "fifo") && !rm(fs, d, "sock") &&
	       !rm(fs, GAZE_ROOT_INO, "dir"), "%s: remove dir tree", tag);
	tap_ok(!gaze_ns_getattr(fs, GAZE_ROOT_INO, &a) && a.nlink == 3,
	       "%s: root nlink back to 3", tag);
	tap_ok(!rm(fs, GAZE_ROOT_INO, "file") && !gaze_ns_getattr(fs, f, &a) &&
	       a.nlink == 1, "%s: unlink one name of two", tag);
	tap_ok(!rm(fs, GAZE_ROOT_INO, "hard") &&
	       gaze_ns_getattr(fs, f,
			       &a) == -ENOENT, "%s: last unlink frees", tag);
	err = gaze_ns_getattr(fs, d, &a);
	tap_ok(err == -ENOENT, "%s: removed dir inode gone (%d)", tag, err);
	fs = fs_reopen(fs, dev);
	tap_ok(gaze_ns_getattr(fs, f, &a) == -ENOENT &&
	       lk(fs, GAZE_ROOT_INO, "dir", &ino) == -ENOENT,
	       "%s: still gone after reopen", tag);
	tap_ok(fs->valid_inodes == 4,
	       "%s: valid_inodes %llu (root, lost+found, "
	       "2 symlinks)", tag, (unsigned long long)fs->valid_inodes);
	gaze_fs_close(fs);
	gaze_dev_close(dev);
}

/* ---------------------------------------------------------------- */
/* Directories of many entries                                       */
/* ---------------------------------------------------------------- */

static void
name_of(char *buf, u32 i)
{
	/* varying lengths so buckets fill unevenly */
	sprintf(buf, "entry-%u%.*s", i, (int)(i % 23), "abcdefghijklmnopqrstuvw");
}

static void
test_dir_many(bool inline_data, u32 count, u32 zones, bool hardlinks)
{
	const char *tag = inline_data ? "inline" : "noinline";
	struct gaze_dev *dev = dev_new(zones);
	struct gaze_fs *fs = fs_new(dev, inline_data);
	u32 i, ino, d, f = 0, bad = 0, budget;
	struct gaze_emu_stats s0, s1;
	struct gaze_attr a = { 0 };
	struct rd_ctx c;
	char name[300];
	u64 free0, free1;
	double t;
	int err = 0;

	tap_diag("directory of %u entries (%s%s)", count, tag,
		 hardlinks ? ", hard links" : "");
	tap_ok(!gaze_fs_sync(fs), "%s: sync", tag);
	free0 = gaze_space_free_blocks(fs);
	tap_ok(!mk(fs, GAZE_ROOT_INO, "big", 040755, &d), "%s: mkdir big", tag);
	if (hardlinks)
		tap_ok(!mk(fs, GAZE_ROOT_INO, "target", 0100644, &f),
		       "%s: link target", tag);
	t = now_s();
	for (i = 0; i < count && !err; i++) {
		name_of(name, i);
		if (hardlinks)
			err = gaze_ns_link(fs, d, name, (u32)strlen(name), f);
		else
			err = mk(fs, d, name, 0100644, &ino);
	}
	tap_ok(!err, "%s: created %u entries in %.2fs (err %d)", tag, i,
	       now_s() - t, err);
	tap_ok(!gaze_ns_getattr(fs, d, &a) && (u64)a.size == 0,
	       "%s: getattr big", tag);
	fs = fs_reopen(fs, dev);
	t = now_s();
	for (i = 0; i < count; i++) {
		name_of(name, i);
		if (lk(fs, d, name, &ino))
			bad++;
	}
	tap_ok(!bad, "%s: every name found after reopen (%u missing, %.2fs)",
	       tag,
	       bad, now_s() - t);

	/* O(1): a lookup in a cold cache reads a handful of blocks */
	fs = fs_reopen(fs, dev);
	name_of(name, count / 2);
	tap_ok(!lk(fs, GAZE_ROOT_INO, "big", &ino), "%s: warm path", tag);
	gaze_emu_stats(dev, &s0);
	tap_ok(!lk(fs, d, name, &ino), "%s: cold lookup", tag);
	gaze_emu_stats(dev, &s1);
	/* the inode's read brings the window around it (node.c) */
	tap_ok(s1.reads - s0.reads <= 8 &&
	       s1.blocks_read - s0.blocks_read <= 8 + GAZE_INODE_AROUND - 1,
	       "%s: cold lookup made %llu reads of %llu blocks", tag,
	       (unsigned long long)(s1.reads - s0.reads),
	       (unsigned long long)(s1.blocks_read - s0.blocks_read));

	for (budget = 0; budget <= 7; budget += budget < 1 ? 1 : 6) {
		t = now_s();
		err = rd_all(fs, d, budget, &c);
		tap_ok(!err && c.n == count + 2 && !c.order_bad && rd_unique(&c),
		       "%s: readdir budget %u: %u entries, order %s (%.2fs)", tag,
		       budget, c.n, c.order_bad ? "bad" : "ok", now_s() - t);
		free(c.ents);
	}
	t = now_s();
	for (i = 0, err = 0; i < count && !err; i += 2) {
		name_of(name, i);
		err = rm(fs, d, name);
	}
	tap_ok(!err, "%s: removed half (%.2fs, err %d)", tag, now_s() - t, err);
	fs = fs_reopen(fs, dev);
	for (i = 0, bad = 0; i < count; i++) {
		name_of(name, i);
		err = lk(fs, d, name, &ino);
		if ((i & 1) ? err != 0 : err != -ENOENT)
			bad++;
	}
	tap_ok(!bad, "%s: lookups after removing half (%u wrong)", tag, bad);
	err = rd_all(fs, d, 5, &c);
	tap_ok(!err && c.n == count / 2 + 2 && !c.order_bad && rd_unique(&c),
	       "%s: readdir after removal: %u entries", tag, c.n);
	free(c.ents);
	tap_ok(!gaze_ns_getattr(fs, d, &a) && a.nlink == 2, "%s: big nlink",
	       tag);
	if (hardlinks)
		tap_ok(!gaze_ns_getattr(fs, f, &a) && a.nlink == count / 2 + 1,
		       "%s: target nlink %u", tag, a.nlink);
	for (i = 1, err = 0; i < count && !err; i += 2) {
		name_of(name, i);
		err = rm(fs, d, name);
	}
	tap_ok(!err && !rm(fs, GAZE_ROOT_INO, "big") &&
	       (!hardlinks || !rm(fs, GAZE_ROOT_INO, "target")),
	       "%s: remove everything (%d)", tag, err);
	tap_ok(!gaze_fs_sync(fs), "%s: sync", tag);
	free1 = gaze_space_free_blocks(fs);
	tap_ok(free1 == free0, "%s: free blocks back (%llu, %llu)", tag,
	       (unsigned long long)free0, (unsigned long long)free1);
	gaze_fs_close(fs);
	gaze_dev_close(dev);
}

/*
 * Names whose hashes share their top GAZE_DIR_MAX_DEPTH bits: the index
 * doubles to the maximum depth and the bucket grows an overflow chain.
 */
static void
test_dir_overflow(void)
{
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, true);
	const u32 want = 45, shift = 64 - GAZE_DIR_MAX_DEPTH;
	char (*names)[256] = calloc(want, 256);
	char name[256];
	u32 key[4], n = 0, i, d, ino, bad = 0, budget;
	u64 top = 0, h, k;
	struct gaze_attr a = { 0 };
	struct rd_ctx c;
	int err = 0;

	tap_diag("overflow chains at maximum depth");
	for (i = 0; i < 4; i++)
		key[i] = le32_to_cpu(fs->sb.dir_hash_seed[i]);
	memset(name, 'o', 200);
	for (k = 0; n < want; k++) {
		int l = sprintf(name + 200, "%llu", (unsigned long long)k);

		h = gaze_siphash(key, name, 200 + l);
		if (!n)
			top = h >> shift;
		if (h >> shift != top)
			continue;
		memcpy(names[n], name, 200 + l);
		names[n][200 + l] = 0;
		n++;
	}
	tap_ok(!mk(fs, GAZE_ROOT_INO, "ovf", 040755, &d), "overflow: mkdir");
	for (i = 0; i < want && !err; i++)
		err = mk(fs, d, names[i], 0100644, &ino);
	tap_ok(!err && !gaze_ns_getattr(fs, d, &a) &&
	       a.flags & GAZE_IF_DIR_HASHED, "overflow: %u colliding names (%d)",
	       want, err);
	fs = fs_reopen(fs, dev);
	for (i = 0; i < want; i++)
		if (lk(fs, d, names[i], &ino))
			bad++;
	tap_ok(!bad, "overflow: all found after reopen (%u missing)", bad);
	tap_ok(!gaze_ns_getattr(fs, d, &a) && a.blocks >= 521 + 3 + 2,
	       "overflow: index at depth %u (521 blocks) and a chain",
	       GAZE_DIR_MAX_DEPTH);
	for (budget = 0; budget <= 5; budget += 5) {
		err = rd_all(fs, d, budget, &c);
		tap_ok(!err && c.n == want + 2 && !c.order_bad && rd_unique(&c),
		       "overflow: readdir budget %u: %u entries", budget, c.n);
		free(c.ents);
	}
	for (i = 0, err = 0; i < want && !err; i += 2)
		err = rm(fs, d, names[i]);
	for (i = 0, bad = 0; i < want; i++)
		if ((lk(fs, d, names[i], &ino) == 0) != (i & 1))
			bad++;
	tap_ok(!err && !bad, "overflow: remove half (%d, %u wrong)", err, bad);
	for (i = 1; i < want && !err; i += 2)
		err = rm(fs, d, names[i]);
	tap_ok(!err && !rm(fs, GAZE_ROOT_INO, "ovf"), "overflow: rmdir");
	free(names);
	gaze_fs_close(fs);
	gaze_dev_close(dev);
}

/* ---------------------------------------------------------------- */
/* File data                                                         */
/* ---------------------------------------------------------------- */

static int
model_check(struct gaze_fs *fs, u32 ino, const u8 *model, u64 size,
	    u8 *buf)
{
	struct gaze_attr a = { 0 };
	s64 n;

	if (gaze_ns_getattr(fs, ino, &a) || a.size != size)
		return -1;
	n = gaze_file_read(fs, ino, buf, size + 4096, 0);
	if (n != (s64)size)
		return -2;
	if (memcmp(buf, model, size))
		return -3;
	return 0;
}

static void
test_file(bool inline_data)
{
	const char *tag = inline_data ? "inline" : "noinline";
	struct gaze_dev *dev = dev_new(128);
	struct gaze_fs *fs = fs_new(dev, inline_data);
	const u64 msize = 6 << 20;
	u8 *model = calloc(1, msize), *buf = calloc(1, msize + 8192);
	u64 size = 0, off, len, addr, five = 5ull << 30;
	struct gaze_attr a = { 0 };
	u32 f, g, i;
	int err = 0, r;
	s64 n;

	tap_diag("file data (%s)", tag);
	tap_ok(!mk(fs, GAZE_ROOT_INO, "f", 0100644, &f), "%s: create", tag);
	tap_ok(gaze_file_write(fs, f, "hello", 5, 0) == 5 &&
	       gaze_file_read(fs, f, buf, 100, 0) == 5 && !memcmp(buf, "hello",
								  5),
	       "%s: small write/read", tag);
	tap_ok(!gaze_ns_getattr(fs, f, &a) &&
	       !!(a.flags & GAZE_IF_INLINE_DATA) == inline_data &&
	       a.blocks == (inline_data ? 0u : 1u), "%s: inline flag %x blocks %llu",
	       tag, a.flags, (unsigned long long)a.blocks);
	tap_ok(gaze_file_write(fs, f, "world", 5, 3000) == 5 &&
	       gaze_file_read(fs, f, buf, 4000, 0) == 3005 && buf[5] == 0 &&
	       buf[2999] == 0 && !memcmp(buf + 3000, "world", 5),
	       "%s: gap inside inline area reads zero", tag);
	tap_ok(gaze_file_write(fs, f, "X", 1, 5000) == 1 &&
	       !gaze_ns_getattr(fs, f,
				&a) && !(a.flags & GAZE_IF_INLINE_DATA) &&
	       a.size == 5001 && a.blocks == 2, "%s: write past the area converts",
	       tag);
	tap_ok(gaze_file_read(fs, f, buf, 8000, 0) == 5001 &&
	       !memcmp(buf, "hello", 5) && !memcmp(buf + 3000, "world", 5) &&
	       buf[4999] == 0 && buf[5000] == 'X', "%s: content after conversion",
	       tag);
	fs = fs_reopen(fs, dev);
	tap_ok(gaze_file_read(fs, f, buf, 8000, 0) == 5001 &&
	       !memcmp(buf, "hello", 5) && buf[5000] == 'X',
	       "%s: content after reopen", tag);

	/* sparse beyond 4 GiB */
	tap_ok(!mk(fs, GAZE_ROOT_INO, "sparse", 0100644, &g), "%s: sparse",
	       tag);
	tap_ok(gaze_file_write(fs, g, "far", 3, five) == 3 &&
	       !gaze_ns_getattr(fs, g, &a) && a.size == five + 3,
	       "%s: write at 5 GiB", tag);
	tap_ok(!gaze_file_bmap(fs, g, 1000, &addr) && addr == 0 &&
	       !gaze_file_bmap(fs, g, five >> 12, &addr) && addr != 0,
	       "%s: bmap hole and block", tag);
	memset(buf, 0xff, 8192);
	tap_ok(gaze_file_read(fs, g, buf, 8192, five - 4096) == 4099 &&
	       buf[0] == 0 && buf[4095] == 0 && !memcmp(buf + 4096, "far", 3),
	       "%s: hole before it reads zero", tag);
	tap_ok(gaze_file_write(fs, g, "mid", 3, 3ull << 30) == 3,
	       "%s: write at 3 GiB",
	       tag);
	tap_ok(gaze_file_write(fs, g, "low", 3, 1ull << 20) == 3,
	       "%s: write at 1 MiB",
	       tag);
	fs = fs_reopen(fs, dev);
	tap_ok(gaze_file_read(fs, g, buf, 3, five) == 3 && !memcmp(buf, "far",
								   3) &&
	       gaze_file_read(fs, g, buf, 3, 3ull << 30) == 3 &&
	       !memcmp(buf, "mid", 3) && gaze_file_read(fs, g, buf, 3,
							1 << 20) == 3
	       && !memcmp(buf, "low",
			  3), "%s: sparse content after reopen", tag);
	tap_ok(!gaze_ns_getattr(fs, g, &a) && a.blocks == 8,
	       "%s: sparse: 3 data blocks + 5 nodes", tag);
	err = gaze_file_truncate(fs, g, 4ull << 30);
	gaze_ns_getattr(fs, g, &a);
	tap_ok(!err && a.blocks == 4 && a.size == 4ull << 30,
	       "%s: truncate to 4 GiB drops the dind tree (%d, %llu blocks)",
	       tag, err, (unsigned long long)a.blocks);
	tap_ok(gaze_file_read(fs, g, buf, 3, 3ull << 30) == 3 &&
	       !memcmp(buf, "mid", 3) && gaze_file_read(fs, g, buf, 10,
							five) == 0,
	       "%s: content below the cut stays", tag);
	tap_ok(!gaze_file_truncate(fs, g, 4096) && !gaze_ns_getattr(fs, g,
								    &a) &&
	       a.size == 4096 && a.blocks == 0, "%s: truncate frees nodes (%llu)",
	       tag, (unsigned long long)a.blocks);
	tap_ok(!rm(fs, GAZE_ROOT_INO, "sparse"), "%s: remove sparse", tag);

	/* random I/O against a model */
	tap_ok(!mk(fs, GAZE_ROOT_INO, "model", 0100644, &g), "%s: model file",
	       tag);
	for (i = 0; i < 600 && !err; i++) {
		r = (int)(rnd() % 100);
		if (r < 8) {
			len = rnd() % msize;
			if (rnd() & 1)
				len = rnd() % 8192;
			err = gaze_file_truncate(fs, g, len);
			if (len < size)
				memset(model + len, 0, size - len);
			size = len;
			continue;
		}
		switch (rnd() % 4) {
		case 0:
			len = 1 + rnd() % 16;
			break;
		case 1:
			len = 1 + rnd() % 5000;
			break;
		case 2:
			len = 4096 * (1 + rnd() % 8);
			break;
		default:
			len = 1 + rnd() % (300 << 10);
			break;
		}
		off = rnd() % (msize - len);
		if (rnd() % 3 == 0)
			off &= ~4095ull;
		if (rnd() % 5 == 0 && size < msize - len)
			off = size;	/* append */
		for (u64 k = 0; k < len; k++)
			buf[k] = (u8)rnd();
		n = gaze_file_write(fs, g, buf, len, off);
		if (n != (s64)len) {
			err = (int)(n < 0 ? n : -EIO);
			break;
		}
		memcpy(model + off, buf, len);
		if (off + len > size)
			size = off + len;
		if (i % 50 == 0 && (r = model_check(fs, g, model, size, buf))) {
			err = r;
			break;
		}
		if (i % 150 == 149)
			fs = fs_reopen(fs, dev);
	}
	tap_ok(!err,
	       "%s: random writes/truncates against the model (op %u err %d)",
	       tag, i, err);
	fs = fs_reopen(fs, dev);
	tap_ok(!model_check(fs, g, model, size, buf),
	       "%s: model after reopen (%llu bytes)",
	       tag, (unsigned long long)size);
	/* truncate down inside a block and back up: tail must be zero */
	tap_ok(!gaze_file_truncate(fs, g, 10000) && !gaze_file_truncate(fs, g,
									20000),
	       "%s: truncate 10000 then 20000", tag);
	if (size > 10000)
		memset(model + 10000, 0, size - 10000);
	size = 20000;
	tap_ok(!model_check(fs, g, model, size, buf),
	       "%s: zero tail after re-extend",
	       tag);
	free(model);
	free(buf);
	gaze_fs_close(fs);
	gaze_dev_close(dev);
}

/* ---------------------------------------------------------------- */
/* Extended attributes                                               */
/* ---------------------------------------------------------------- */

static void
check_xattrs(struct gaze_fs *fs, u32 f, const char *when)
{
	char buf[8192], name[64];
	int n, i, bad = 0;
	struct gaze_attr a = { 0 };

	tap_ok(gaze_xattr_get(fs, f, "user.small", NULL, 0) == 3 &&
	       gaze_xattr_get(fs, f, "user.small", buf, sizeof(buf)) == 3 &&
	       !memcmp(buf, "abc", 3), "%s: small value", when);
	tap_ok(gaze_xattr_get(fs, f, "user.small", buf, 2) == -ERANGE,
	       "%s: small buffer -ERANGE", when);
	for (i = 0; i < 20; i++) {
		char want[100];

		sprintf(name, "trusted.attr%d", i);
		memset(want, 'a' + i, sizeof(want));
		n = gaze_xattr_get(fs, f, name, buf, sizeof(buf));
		if (n != 100 || memcmp(buf, want, 100))
			bad++;
	}
	tap_ok(!bad, "%s: 20 spilled values", when);
	tap_ok(gaze_xattr_get(fs, f, "system.posix_acl_access", buf,
			      64) == 28 &&
	       buf[0] == 2 && gaze_xattr_get(fs, f, "system.posix_acl_default",
					 buf, 64) == 12,
	       "%s: ACLs", when);
	tap_ok(gaze_xattr_get(fs, f, "security.selinux", buf, 64) == 10,
	       "%s: security label", when);
	n = gaze_xattr_list(fs, f, NULL, 0);
	tap_ok(n > 0 && gaze_xattr_list(fs, f, buf, (u32)n) == n &&
	       gaze_xattr_list(fs, f, buf, (u32)n - 1) == -ERANGE,
	       "%s: list size %d", when, n);
	tap_ok(memmem(buf, n, "user.small\0", 11) &&
	       memmem(buf, n, "system.posix_acl_access\0", 24) &&
	       memmem(buf, n, "trusted.attr19\0", 15) &&
	       memmem(buf, n, "security.selinux\0",
		      17), "%s: list names", when);
	tap_ok(!gaze_ns_getattr(fs, f, &a) && a.blocks == 1,
	       "%s: xattr node counted in blocks (%llu)", when,
	       (unsigned long long)a.blocks);
}

static void
test_xattr(bool inline_data)
{
	const char *tag = inline_data ? "inline" : "noinline";
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, inline_data);
	char val[5000], name[300], buf[64];
	struct gaze_attr a = { 0 };
	u32 f, g;
	int i, err = 0;
	u64 free0, free1, free2;

	tap_diag("xattrs (%s)", tag);
	tap_ok(!mk(fs, GAZE_ROOT_INO, "x", 0100644, &f), "%s: create", tag);
	tap_ok(!gaze_xattr_set(fs, f, "user.small", "abc", 3, 0),
	       "%s: set inline", tag);
	tap_ok(!gaze_ns_getattr(fs, f, &a) && a.blocks == 0,
	       "%s: no block for an inline xattr", tag);
	tap_ok(gaze_xattr_set(fs, f, "user.small", "zz", 2, 1) == -EEXIST,
	       "%s: XATTR_CREATE on existing -EEXIST", tag);
	tap_ok(gaze_xattr_set(fs, f, "user.none", "zz", 2, 2) == -ENODATA,
	       "%s: XATTR_REPLACE on missing -ENODATA", tag);
	tap_ok(!gaze_xattr_set(fs, f, "user.small", "abc", 3, 2),
	       "%s: XATTR_REPLACE existing", tag);
	tap_ok(gaze_xattr_set(fs, f, "other.x", "a", 1, 0) == -EOPNOTSUPP,
	       "%s: unknown namespace -EOPNOTSUPP", tag);
	tap_ok(gaze_xattr_set(fs, f, "user.", "a", 1, 0) == -EINVAL,
	       "%s: empty suffix -EINVAL", tag);
	memset(name, 'n', 299);
	name[299] = 0;
	memcpy(name, "user.", 5);
	tap_ok(gaze_xattr_set(fs, f, name, "a", 1, 0) == -ERANGE,
	       "%s: long name -ERANGE", tag);
	memset(val, 'v', sizeof(val));
	tap_ok(gaze_xattr_set(fs, f, "user.huge", val, 4500, 0) == -ENOSPC,
	       "%s: value larger than a block -ENOSPC", tag);
	for (i = 0; i < 20 && !err; i++) {
		memset(val, 'a' + i, 100);
		sprintf(name, "trusted.attr%d", i);
		err = gaze_xattr_set(fs, f, name, val, 100, 1);
	}
	tap_ok(!err, "%s: 20 x 100-byte values spill to the block", tag);
	memset(val, 0, 28);
	val[0] = 2;
	tap_ok(!gaze_xattr_set(fs, f, "system.posix_acl_access", val, 28, 0) &&
	       !gaze_xattr_set(fs, f, "system.posix_acl_default", val, 12, 0),
	       "%s: ACL names", tag);
	tap_ok(!gaze_xattr_set(fs, f, "security.selinux", "system_u:x", 10, 0),
	       "%s: security label", tag);
	tap_ok(!gaze_xattr_set(fs, f, "user.tmp", "1", 1, 0) &&
	       !gaze_xattr_remove(fs, f, "user.tmp") &&
	       gaze_xattr_get(fs, f, "user.tmp", buf, 64) == -ENODATA &&
	       gaze_xattr_remove(fs, f, "user.tmp") == -ENODATA,
	       "%s: remove", tag);
	memset(val, 'q', 3000);
	tap_ok(gaze_xattr_set(fs, f, "user.big", val, 3000, 0) == -ENOSPC &&
	       gaze_xattr_get(fs, f, "user.small", buf, 64) == 3,
	       "%s: set that does not fit -ENOSPC, nothing lost", tag);
	check_xattrs(fs, f, tag);
	fs = fs_reopen(fs, dev);
	check_xattrs(fs, f, tag);
	/* replace moves a value between regions */
	memset(val, 'r', 600);
	tap_ok(!gaze_xattr_set(fs, f, "user.small", val, 600, 2) &&
	       gaze_xattr_get(fs, f, "user.small", val + 1000, 1000) == 600 &&
	       val[1000] == 'r', "%s: replace with a bigger value", tag);
	for (i = 0; i < 20 && !err; i++) {
		sprintf(name, "trusted.attr%d", i);
		err = gaze_xattr_remove(fs, f, name);
	}
	err = err ? err : gaze_xattr_remove(fs, f, "user.small");
	err = err ? err : gaze_xattr_remove(fs, f, "system.posix_acl_access");
	err = err ? err : gaze_xattr_remove(fs, f, "system.posix_acl_default");
	err = err ? err : gaze_xattr_remove(fs, f, "security.selinux");
	tap_ok(!err && gaze_xattr_list(fs, f, NULL, 0) == 0, "%s: all removed",
	       tag);
	tap_ok(!err && !gaze_ns_getattr(fs, f, &a) && a.blocks == 0,
	       "%s: block freed when emptied (%llu)", tag,
	       (unsigned long long)a.blocks);

	/* unlink frees everything */
	tap_ok(!gaze_fs_sync(fs), "%s: sync", tag);
	free0 = gaze_space_free_blocks(fs);
	tap_ok(!mk(fs, GAZE_ROOT_INO, "space", 0100644, &g), "%s: space file",
	       tag);
	memset(val, 7, 4096);
	for (i = 0, err = 0; i < 600 && !err; i++)
		err = gaze_file_write(fs, g, val, 4096, (u64)i * 4096) == 4096 ?
			0 : -EIO;
	err = err ? err : gaze_file_write(fs, g, val, 10, 1ull << 32) == 10 ?
		0 : -EIO;
	for (i = 0; i < 20 && !err; i++) {
		sprintf(name, "user.k%d", i);
		err = gaze_xattr_set(fs, g, name, val, 200, 0);
	}
	tap_ok(!err && !gaze_fs_sync(fs), "%s: filled", tag);
	free1 = gaze_space_free_blocks(fs);
	tap_ok(!rm(fs, GAZE_ROOT_INO, "space") && !gaze_fs_sync(fs),
	       "%s: unlink + sync", tag);
	free2 = gaze_space_free_blocks(fs);
	tap_ok(free1 + 600 < free0 && free2 == free0,
	       "%s: free blocks %llu -> %llu -> %llu", tag,
	       (unsigned long long)free0, (unsigned long long)free1,
	       (unsigned long long)free2);
	gaze_fs_close(fs);
	gaze_dev_close(dev);
}

/* ---------------------------------------------------------------- */
/* rename                                                            */
/* ---------------------------------------------------------------- */

static int
mv(struct gaze_fs *fs, u32 od, const char *on, u32 nd, const char *nn,
   u32 flags)
{
	return gaze_ns_rename(fs, od, on, (u32)strlen(on), nd, nn,
			      (u32)strlen(nn), flags, NULL);
}

static u32
nlink_of(struct gaze_fs *fs, u32 ino)
{
	struct gaze_attr a;

	if (gaze_ns_getattr(fs, ino, &a))
		return 0xffffffffu;
	return a.nlink;
}

/* ino of name in dir, 0 if absent */
static u32
ino_of(struct gaze_fs *fs, u32 dir, const char *name)
{
	u32 ino;

	return lk(fs, dir, name, &ino) ? 0 : ino;
}

static bool
data_is(struct gaze_fs *fs, u32 ino, const char *want)
{
	char buf[64];
	s64 n = gaze_file_read(fs, ino, buf, sizeof(buf), 0);

	return n == (s64)strlen(want) && !memcmp(buf, want, (size_t)n);
}

/* names of dir, sorted and joined with ',' */
static void
names_of(struct gaze_fs *fs, u32 dir, char *out, size_t len)
{
	struct rd_ctx c;
	u32 i;

	out[0] = 0;
	if (rd_all(fs, dir, 0, &c)) {
		snprintf(out, len, "<error>");
		return;
	}
	qsort(c.ents, c.n, sizeof(*c.ents), rd_cmp);
	for (i = 0; i < c.n; i++) {
		if (!strcmp(c.ents[i].name, ".") ||
		    !strcmp(c.ents[i].name, ".."))
			continue;
		if (out[0])
			strncat(out, ",", len - strlen(out) - 1);
		strncat(out, c.ents[i].name, len - strlen(out) - 1);
	}
	free(c.ents);
}

struct rn_state {
	u32	a, b, c, f1, f2, x, e, e3, fx, dy, hl;
};

static void
check_rename_state(struct gaze_fs *fs, const struct rn_state *st,
		   const char *tag, const char *when)
{
	char names[512];
	u32 ino;

	names_of(fs, GAZE_ROOT_INO, names, sizeof(names));
	tap_ok(!strcmp(names, "a,d2,dy,e3,f2,hl,lost+found"),
	       "%s %s: root entries [%s]", tag, when, names);
	names_of(fs, st->a, names, sizeof(names));
	tap_ok(!strcmp(names, "b,moved"), "%s %s: a entries [%s]", tag, when,
	       names);
	names_of(fs, st->b, names, sizeof(names));
	tap_ok(!strcmp(names, "c,fx"), "%s %s: a/b entries [%s]", tag, when,
	       names);
	tap_ok(ino_of(fs, GAZE_ROOT_INO, "f2") == st->f1 &&
	       data_is(fs, st->f1, "one") && nlink_of(fs, st->f1) == 1,
	       "%s %s: f2 is the old f1", tag, when);
	tap_ok(ino_of(fs, st->a, "moved") == st->x && data_is(fs, st->x, "xx"),
	       "%s %s: a/moved is the old d2/x", tag, when);
	tap_ok(ino_of(fs, GAZE_ROOT_INO, "hl") == st->f2 &&
	       nlink_of(fs, st->f2) == 1 && data_is(fs, st->f2, "two"),
	       "%s %s: replaced hard-linked inode survives with nlink 1", tag,
	       when);
	tap_ok(gaze_ns_getattr(fs, st->hl, &(struct gaze_attr){0}) ==
	       -ENOENT,
	       "%s %s: replaced file freed", tag, when);
	tap_ok(ino_of(fs, GAZE_ROOT_INO, "e3") == st->e &&
	       gaze_ns_getattr(fs, st->e3, &(struct gaze_attr){0}) == -ENOENT,
	       "%s %s: e3 is the old e, old empty e3 freed", tag, when);
	tap_ok(!lk(fs, st->e, "..", &ino) && ino == GAZE_ROOT_INO,
	       "%s %s: e3/.. is the root", tag, when);
	/* exchange: root/dy is the dir, a/b/fx the file */
	tap_ok(ino_of(fs, GAZE_ROOT_INO, "dy") == st->dy &&
	       ino_of(fs, st->b, "fx") == st->fx &&
	       !lk(fs, st->dy, "..", &ino) && ino == GAZE_ROOT_INO,
	       "%s %s: exchanged dir and file", tag, when);
	/* root: ., .., lost+found, a, d2, dy, e3 -> 2 + 5 */
	tap_ok(nlink_of(fs, GAZE_ROOT_INO) == 7 && nlink_of(fs, st->a) == 3 &&
	       nlink_of(fs, st->b) == 3 && nlink_of(fs, st->c) == 2 &&
	       nlink_of(fs, st->e) == 2 && nlink_of(fs, st->dy) == 2,
	       "%s %s: directory link counts (root %u a %u b %u)", tag, when,
	       nlink_of(fs, GAZE_ROOT_INO), nlink_of(fs, st->a),
	       nlink_of(fs, st->b));
	tap_ok(fs->valid_inodes == 12, "%s %s: valid_inodes %llu", tag, when,
	       (unsigned long long)fs->valid_inodes);
}

static void
test_rename(bool inline_data)
{
	const char *tag = inline_data ? "rename inline" : "rename noinline";
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, inline_data);
	struct rn_state st;
	struct gaze_attr a0, a1, a2;
	u32 d2, ino, i, big, n;
	char name[64], name2[64];
	bool ok;

	tap_diag("%s", tag);
	memset(&st, 0, sizeof(st));
	ok = !mk(fs, GAZE_ROOT_INO, "a", 040755, &st.a) &&
	     !mk(fs, st.a, "b", 040755, &st.b) &&
	     !mk(fs, st.b, "c", 040755, &st.c) &&
	     !mk(fs, GAZE_ROOT_INO, "f1", 0100644, &st.f1) &&
	     !mk(fs, GAZE_ROOT_INO, "f2", 0100644, &st.f2) &&
	     !mk(fs, GAZE_ROOT_INO, "d2", 040755, &d2) &&
	     !mk(fs, d2, "x", 0100644, &st.x) &&
	     !mk(fs, GAZE_ROOT_INO, "e", 040755, &st.e) &&
	     !mk(fs, GAZE_ROOT_INO, "e3", 040755, &st.e3) &&
	     !mk(fs, GAZE_ROOT_INO, "fx", 0100644, &st.fx) &&
	     !mk(fs, st.b, "dy", 040755, &st.dy) &&
	     !mk(fs, GAZE_ROOT_INO, "hl", 0100644, &st.hl) &&
	     gaze_file_write(fs, st.f1, "one", 3, 0) == 3 &&
	     gaze_file_write(fs, st.f2, "two", 3, 0) == 3 &&
	     gaze_file_write(fs, st.x, "xx", 2, 0) == 2;
	tap_ok(ok, "%s: setup", tag);

	/* errors first: nothing may change */
	tap_ok(mv(fs, GAZE_ROOT_INO, "nope", GAZE_ROOT_INO, "z", 0) == -ENOENT,
	       "%s: missing source -ENOENT", tag);
	tap_ok(mv(fs, st.f1, "x", GAZE_ROOT_INO, "z", 0) == -ENOTDIR &&
	       mv(fs, GAZE_ROOT_INO, "f1", st.f1, "z", 0) == -ENOTDIR,
	       "%s: a non-directory as parent -ENOTDIR", tag);
	tap_ok(mv(fs, GAZE_ROOT_INO, ".", GAZE_ROOT_INO, "z", 0) == -EINVAL &&
	       mv(fs, GAZE_ROOT_INO, "f1", GAZE_ROOT_INO, "..", 0) == -EINVAL &&
	       mv(fs, GAZE_ROOT_INO, "f1", GAZE_ROOT_INO, "a/b", 0) == -EINVAL,
	       "%s: bad names -EINVAL", tag);
	tap_ok(mv(fs, GAZE_ROOT_INO, "f1", GAZE_ROOT_INO, "z", 8) == -EINVAL &&
	       mv(fs, GAZE_ROOT_INO, "f1", GAZE_ROOT_INO, "f2",
		  GAZE_RENAME_EXCHANGE | GAZE_RENAME_NOREPLACE) == -EINVAL,
	       "%s: bad flags -EINVAL", tag);
	tap_ok(mv(fs, GAZE_ROOT_INO, "a", st.c, "loop", 0) == -EINVAL &&
	       mv(fs, GAZE_ROOT_INO, "a", st.a, "loop", 0) == -EINVAL &&
	       mv(fs, st.a, "b", st.c, "loop", 0) == -EINVAL,
	       "%s: directory into its own subtree -EINVAL", tag);
	tap_ok(mv(fs, GAZE_ROOT_INO, "a", st.c, "loop",
		  GAZE_RENAME_NOREPLACE) == -EINVAL &&
	       mv(fs, st.b, "c", GAZE_ROOT_INO, "a",
		  GAZE_RENAME_EXCHANGE) == -EINVAL &&
	       mv(fs, GAZE_ROOT_INO, "a", st.b, "c",
		  GAZE_RENAME_EXCHANGE) == -EINVAL,
	       "%s: exchange with an ancestor -EINVAL", tag);
	tap_ok(mv(fs, st.a, "b", GAZE_ROOT_INO, "a", 0) == -ENOTEMPTY &&
	       mv(fs, GAZE_ROOT_INO, "e", GAZE_ROOT_INO, "d2", 0) == -ENOTEMPTY,
	       "%s: over a non-empty directory -ENOTEMPTY", tag);
	tap_ok(mv(fs, GAZE_ROOT_INO, "e", GAZE_ROOT_INO, "f1", 0) == -ENOTDIR,
	       "%s: directory over a file -ENOTDIR", tag);
	tap_ok(mv(fs, GAZE_ROOT_INO, "f1", GAZE_ROOT_INO, "e", 0) == -EISDIR,
	       "%s: file over a directory -EISDIR", tag);
	tap_ok(mv(fs, GAZE_ROOT_INO, "f1", GAZE_ROOT_INO, "f2",
		  GAZE_RENAME_NOREPLACE) == -EEXIST,
	       "%s: NOREPLACE over an existing name -EEXIST", tag);
	tap_ok(mv(fs, GAZE_ROOT_INO, "f1", GAZE_ROOT_INO, "new",
		  GAZE_RENAME_EXCHANGE) == -ENOENT,
	       "%s: EXCHANGE with a missing name -ENOENT", tag);
	tap_ok(ino_of(fs, GAZE_ROOT_INO, "f1") == st.f1 &&
	       ino_of(fs, GAZE_ROOT_INO, "f2") == st.f2 &&
	       ino_of(fs, st.a, "b") == st.b &&
	       nlink_of(fs, GAZE_ROOT_INO) == 7,
	       "%s: failed renames changed nothing", tag);

	/* same inode: a no-op */
	tap_ok(!gaze_ns_link(fs, GAZE_ROOT_INO, "f1link", 6, st.f1) &&
	       !mv(fs, GAZE_ROOT_INO, "f1", GAZE_ROOT_INO, "f1link", 0) &&
	       !mv(fs, GAZE_ROOT_INO, "f1", GAZE_ROOT_INO, "f1", 0) &&
	       ino_of(fs, GAZE_ROOT_INO, "f1") == st.f1 &&
	       ino_of(fs, GAZE_ROOT_INO, "f1link") == st.f1 &&
	       nlink_of(fs, st.f1) == 2 && !rm(fs, GAZE_ROOT_INO, "f1link"),
	       "%s: rename between two links of one inode is a no-op", tag);

	/* simple rename in one directory; times */
	gaze_ns_getattr(fs, st.f1, &a2);
	gaze_ns_getattr(fs, GAZE_ROOT_INO, &a0);
	tap_ok(!mv(fs, GAZE_ROOT_INO, "f1", GAZE_ROOT_INO, "g",
		   GAZE_RENAME_NOREPLACE) &&
	       ino_of(fs, GAZE_ROOT_INO, "f1") == 0 &&
	       ino_of(fs, GAZE_ROOT_INO, "g") == st.f1,
	       "%s: NOREPLACE rename to a new name", tag);
	gaze_ns_getattr(fs, GAZE_ROOT_INO, &a1);
	tap_ok(a1.mtime > a0.mtime || (a1.mtime == a0.mtime &&
				       a1.mtime_nsec > a0.mtime_nsec) ||
	       a0.mtime == 1700000001,
	       "%s: directory mtime advanced", tag);
	gaze_ns_getattr(fs, st.f1, &a1);
	tap_ok((a1.ctime > a2.ctime || (a1.ctime == a2.ctime &&
					a1.ctime_nsec > a2.ctime_nsec)) &&
	       a1.mtime == a2.mtime && a1.mtime_nsec == a2.mtime_nsec,
	       "%s: moved inode ctime set, mtime kept", tag);

	/* over an existing file: the old one is freed */
	n = (u32)fs->valid_inodes;
	tap_ok(!mv(fs, GAZE_ROOT_INO, "g", GAZE_ROOT_INO, "f2", 0) &&
	       ino_of(fs, GAZE_ROOT_INO, "f2") == st.f1 &&
	       ino_of(fs, GAZE_ROOT_INO, "g") == 0 &&
	       gaze_ns_getattr(fs, st.f2, &a1) == -ENOENT &&
	       fs->valid_inodes == n - 1,
	       "%s: rename over an existing file frees it", tag);
	/* over an existing file that has another link: it survives */
	st.f2 = st.hl;
	st.hl = 0;
	tap_ok(gaze_file_write(fs, st.f2, "two", 3, 0) == 3 &&
	       !gaze_ns_link(fs, st.a, "hl2", 3, st.f2) &&
	       !mk(fs, GAZE_ROOT_INO, "tmp", 0100644, &st.hl) &&
	       !mv(fs, GAZE_ROOT_INO, "tmp", st.a, "hl2", 0) &&
	       nlink_of(fs, st.f2) == 1 &&
	       ino_of(fs, st.a, "hl2") == st.hl &&
	       !rm(fs, st.a, "hl2"),
	       "%s: over a name of a hard-linked inode: nlink drops", tag);

	/* across directories: a file, then a directory */
	tap_ok(!mv(fs, d2, "x", st.a, "moved", 0) &&
	       ino_of(fs, d2, "x") == 0 && ino_of(fs, st.a, "moved") == st.x,
	       "%s: file across directories", tag);
	tap_ok(!mv(fs, GAZE_ROOT_INO, "e", st.b, "e2", 0) &&
	       nlink_of(fs, GAZE_ROOT_INO) == 6 && nlink_of(fs, st.b) == 5 &&
	       !lk(fs, st.e, "..", &ino) && ino == st.b,
	       "%s: directory across directories fixes '..' and nlink", tag);
	/* a directory over an empty directory, across directories */
	tap_ok(!mv(fs, st.b, "e2", GAZE_ROOT_INO, "e3", 0) &&
	       nlink_of(fs, GAZE_ROOT_INO) == 6 && nlink_of(fs, st.b) == 4 &&
	       gaze_ns_getattr(fs, st.e3, &a1) == -ENOENT &&
	       !lk(fs, st.e, "..", &ino) && ino == GAZE_ROOT_INO,
	       "%s: directory over an empty directory", tag);
	/* exchange a file (root/fx) with a directory (a/b/dy) */
	tap_ok(!mv(fs, GAZE_ROOT_INO, "fx", st.b, "dy",
		   GAZE_RENAME_EXCHANGE) &&
	       ino_of(fs, GAZE_ROOT_INO, "fx") == st.dy &&
	       ino_of(fs, st.b, "dy") == st.fx &&
	       nlink_of(fs, GAZE_ROOT_INO) == 7 && nlink_of(fs, st.b) == 3,
	       "%s: EXCHANGE a file and a directory across directories", tag);
	tap_ok(!mv(fs, GAZE_ROOT_INO, "fx", GAZE_ROOT_INO, "dy", 0) &&
	       !mv(fs, st.b, "dy", st.b, "fx", 0) &&
	       nlink_of(fs, GAZE_ROOT_INO) == 7,
	       "%s: renames after the exchange", tag);
	/* exchange two files in one directory, then back */
	tap_ok(!mv(fs, GAZE_ROOT_INO, "f2", GAZE_ROOT_INO, "hl",
		   GAZE_RENAME_EXCHANGE) &&
	       ino_of(fs, GAZE_ROOT_INO, "f2") == st.f2 &&
	       ino_of(fs, GAZE_ROOT_INO, "hl") == st.f1 &&
	       !mv(fs, GAZE_ROOT_INO, "hl", GAZE_ROOT_INO, "f2",
		   GAZE_RENAME_EXCHANGE),
	       "%s: EXCHANGE two files and back", tag);
	/* rmdir of a moved directory keeps the counts right */
	tap_ok(!mk(fs, st.c, "gone", 040700, &ino) &&
	       !mv(fs, st.c, "gone", st.a, "gone", 0) &&
	       !rm(fs, st.a, "gone") && nlink_of(fs, st.a) == 3 &&
	       nlink_of(fs, st.c) == 2, "%s: rmdir after a move", tag);

	check_rename_state(fs, &st, tag, "before reopen");
	fs = fs_reopen(fs, dev);
	check_rename_state(fs, &st, tag, "after reopen");

	/* a hashed directory: rename many names in and out of it */
	ok = !mk(fs, GAZE_ROOT_INO, "big", 040755, &big);
	for (i = 0; ok && i < 600; i++) {
		snprintf(name, sizeof(name), "entry-%05u", i);
		ok = !mk(fs, big, name, 0100644, &ino);
	}
	for (i = 0; ok && i < 600; i += 2) {
		snprintf(name, sizeof(name), "entry-%05u", i);
		snprintf(name2, sizeof(name2), "renamed-%05u", i);
		ok = !mv(fs, big, name, big, name2, 0);
	}
	for (i = 1; ok && i < 600; i += 4) {	/* over existing names */
		snprintf(name, sizeof(name), "entry-%05u", i);
		snprintf(name2, sizeof(name2), "renamed-%05u", i - 1);
		ok = !mv(fs, big, name, big, name2, 0);
	}
	for (i = 3; ok && i < 600; i += 4) {	/* out to the root and back */
		snprintf(name, sizeof(name), "entry-%05u", i);
		ok = !mv(fs, big, name, GAZE_ROOT_INO, name, 0) &&
		     !mv(fs, GAZE_ROOT_INO, name, big, name, 0);
	}
	tap_ok(ok, "%s: renames in a 600-entry directory", tag);
	for (n = 0; n < 2; n++) {
		struct rd_ctx c;

		ok = !rd_all(fs, big, 7, &c) && c.n == 452 && rd_unique(&c);
		for (i = 0; ok && i < 600; i++) {
			snprintf(name, sizeof(name), "entry-%05u", i);
			snprintf(name2, sizeof(name2), "renamed-%05u", i);
			if (i % 4 == 3)
				ok = ino_of(fs, big, name) != 0;
			else if (i % 4 == 0)
				ok = ino_of(fs, big, name2) != 0;
			else if (i % 4 == 2)
				ok = ino_of(fs, big, name2) &&
				     !ino_of(fs, big, name);
			else
				ok = !ino_of(fs, big, name) &&
				     !ino_of(fs, big, name2);
		}
		tap_ok(ok && nlink_of(fs, big) == 2,
		       "%s: big directory consistent %s (%u entries)", tag,
		       n ? "after reopen" : "before reopen", c.n);
		free(c.ents);
		if (!n)
			fs = fs_reopen(fs, dev);
	}
	gaze_fs_close(fs);
	fs = NULL;
	tap_ok(!gaze_fs_open(dev, GAZE_FS_RDONLY, &fs) &&
	       mv(fs, GAZE_ROOT_INO, "f2", GAZE_ROOT_INO, "z", 0) == -EROFS,
	       "%s: read-only instance -EROFS", tag);
	if (fs)
		gaze_fs_close(fs);
	gaze_dev_close(dev);
}

/* ---------------------------------------------------------------- */

static void
test_rdonly(void)
{
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, true);
	u32 f;

	tap_ok(!mk(fs, GAZE_ROOT_INO, "f", 0100644, &f) &&
	       gaze_file_write(fs, f, "abc", 3, 0) == 3, "rdonly: setup");
	gaze_fs_close(fs);
	fs = NULL;
	tap_ok(!gaze_fs_open(dev, GAZE_FS_RDONLY, &fs), "rdonly: open");
	if (fs) {
		char buf[8];

		tap_ok(mk(fs, GAZE_ROOT_INO, "g", 0100644, &f) == -EROFS &&
		       gaze_file_write(fs, f, "x", 1, 0) == -EROFS &&
		       gaze_xattr_set(fs, f, "user.a", "b", 1, 0) == -EROFS &&
		       rm(fs, GAZE_ROOT_INO,
			  "f") == -EROFS, "rdonly: writes -EROFS");
		tap_ok(!lk(fs, GAZE_ROOT_INO, "f", &f) &&
		       gaze_file_read(fs, f, buf, 8,
				      0) == 3, "rdonly: reads work");
		gaze_fs_close(fs);
	}
	gaze_dev_close(dev);
}

/*
 * gaze_data_lost: file blocks whose deferred write failed on the device
 * become holes, the block count follows, the log leaves their zone, and
 * all of it is what the next open finds; on many small zones and on few
 * large ones whose capacity is less than their size
 */
static void
test_data_lost(u32 zones, u32 zone_blocks, u32 zone_cap)
{
	static u8 buf[16 * GAZE_BLOCK_SIZE], got[16 * GAZE_BLOCK_SIZE];
	struct gaze_emu_opts o = {
		.nr_zones = zones, .zone_blocks = zone_blocks,
		.zone_cap = zone_cap,
	};
	struct gaze_dev *d = NULL;
	struct gaze_fs *fs;
	struct gaze_zone_use u;
	struct gaze_attr a;
	u64 addr, a2, b0;
	u32 ino, nr, n2, lost = 0, zone, pass;
	int err;

	TAP_MUST(gaze_emu_create(&o, &d));
	fs = fs_new(d, false);
	memset(buf, 0x5a, sizeof(buf));
	TAP_MUST(mk(fs, GAZE_ROOT_INO, "lost", 0100644, &ino));
	tap_ok(gaze_file_write(fs, ino, buf, sizeof(buf), 0) == sizeof(buf) &&
	       !gaze_fs_sync(fs),
	       "data_lost (%u zones of %u blocks, capacity %u): a 16-block file",
	       zones, zone_blocks, zone_cap ? zone_cap : zone_blocks);
	TAP_MUST(gaze_ns_getattr(fs, ino, &a));
	b0 = a.blocks;
	TAP_MUST(gaze_file_map(fs, ino, 4, 4, &addr, &nr));
	tap_ok(GAZE_ADDR_IS_REAL(addr) && nr >= 1,
	       "blocks 4.. are at %llu (%u in a run)", (unsigned long long)addr,
	       nr);
	zone = (u32)(addr / d->zone_blocks);
	mutex_lock(&fs->lock);
	err = gaze_data_lost(fs, addr, nr, &lost);
	mutex_unlock(&fs->lock);
	tap_ok(!err && lost == nr, "gaze_data_lost clears %u slots (%d)", lost,
	       err);
	/* checked now, and as the next open finds it */
	for (pass = 0; pass < 2; pass++) {
		const char *when = pass ? "after a reopen" : "at once";

		TAP_MUST(gaze_ns_getattr(fs, ino, &a));
		tap_ok(a.blocks == b0 - nr && a.size == sizeof(buf),
		       "%s: blocks %llu -> %llu, size kept", when,
		       (unsigned long long)b0, (unsigned long long)a.blocks);
		TAP_MUST(gaze_file_map(fs, ino, 4, nr, &a2, &n2));
		memcpy(got, buf, sizeof(got));
		memset(got + 4 * GAZE_BLOCK_SIZE, 0, (size_t)nr * GAZE_BLOCK_SIZE);
		tap_ok(a2 == GAZE_NULL_ADDR && n2 == nr,
		       "%s: the lost blocks are a hole", when);
		{
			static u8 rd[16 * GAZE_BLOCK_SIZE];

			tap_ok(gaze_file_read(fs, ino, rd, sizeof(rd), 0) ==
			       sizeof(rd) && !memcmp(rd, got, sizeof(rd)),
			       "%s: they read as zeros, the rest as written",
			       when);
		}
		TAP_MUST(gaze_space_zone_use(fs, zone, &u));
		tap_ok(!u.log_head, "%s: no log writes in zone %u any more",
		       when, zone);
		if (!pass)
			fs = fs_reopen(fs, d);
	}
	err = gaze_file_write(fs, ino, buf, GAZE_BLOCK_SIZE,
			      20 * GAZE_BLOCK_SIZE) != GAZE_BLOCK_SIZE ||
	      gaze_fs_sync(fs) || gaze_file_map(fs, ino, 20, 1, &a2, &n2);
	tap_ok(!err && GAZE_ADDR_IS_REAL(a2) && a2 / d->zone_blocks != zone,
	       "a new write goes to another zone (block %llu)",
	       (unsigned long long)a2);
	mutex_lock(&fs->lock);
	err = gaze_data_lost(fs, addr, nr, &lost);
	mutex_unlock(&fs->lock);
	tap_ok(!err && !lost, "the same range again: nothing mapped there");
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* Reads without fs->lock (struct gaze_miss)                         */
/* ---------------------------------------------------------------- */

/*
 * The device's read, wrapped: counts reads made with fs->lock held and
 * without it, and once armed, runs ur_hook (without the lock) at the
 * next read made without it
 */
static struct {
	const struct gaze_dev_ops *real;
	struct gaze_dev_ops ops;
	struct gaze_fs *fs;
	u64 locked, unlocked;
	u64 last;			/* address of the last read */
	void (*hook)(struct gaze_fs *fs);
} ur;

static int
ur_read(struct gaze_dev *d, u64 blk, u32 nr, void *buf)
{
	void (*hook)(struct gaze_fs *) = ur.hook;

	if (pthread_mutex_trylock(&ur.fs->lock.m)) {
		ur.locked++;
	} else {
		pthread_mutex_unlock(&ur.fs->lock.m);
		ur.unlocked++;
		if (hook) {
			ur.hook = NULL;
			hook(ur.fs);
		}
	}
	ur.last = blk;
	return ur.real->read(d, blk, nr, buf);
}

static void
ur_wrap(struct gaze_fs *fs, struct gaze_dev *d)
{
	ur.real = d->ops;
	ur.ops = *d->ops;
	ur.ops.read = ur_read;
	ur.ops.readv = NULL;
	ur.fs = fs;
	d->ops = &ur.ops;
}

/* every clean buffer out of the cache, and the counts cleared */
static void
ur_cold(struct gaze_fs *fs)
{
	mutex_lock(&fs->lock);
	gaze_cache_trim(fs, ~0ull);
	mutex_unlock(&fs->lock);
	ur.locked = ur.unlocked = 0;
}

static u32 ur_victim;

/* while a getattr's inode block is being read: chmod it, then commit */
static void
ur_chmod(struct gaze_fs *fs)
{
	struct gaze_attr a = attr_of(0100600);

	if (gaze_ns_setattr(fs, ur_victim, &a, GAZE_SET_MODE) ||
	    gaze_fs_sync(fs))
		tap_ok(0, "unlocked reads: chmod during the read");
	/* so the retry reads the blocks at their new places */
	mutex_lock(&fs->lock);
	gaze_cache_trim(fs, ~0ull);
	mutex_unlock(&fs->lock);
}

/* while a readahead run is being read: chmod, then commit */
static void
ur_chmod_keep(struct gaze_fs *fs)
{
	struct gaze_attr a = attr_of(0100640);

	struct gaze_mbuf *mb;

	if (gaze_ns_setattr(fs, ur_victim, &a, GAZE_SET_MODE) ||
	    gaze_fs_sync(fs))
		tap_ok(0, "unlocked reads: chmod during the readahead");
	/* its new block out of the cache, the imap (naming it) kept */
	mutex_lock(&fs->lock);
	mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, ur_victim, 0);
	if (mb)
		gaze_mbuf_forget(fs, mb);
	mutex_unlock(&fs->lock);
}

/* while a block is being read: a zone reset (as GC's would) is noted */
static void
ur_reset(struct gaze_fs *fs)
{
	mutex_lock(&fs->lock);
	gaze_fs_zone_reset_note(fs);
	mutex_unlock(&fs->lock);
}

/* how many of inos[0..n) are in the cache */
static u32
cached_inodes(struct gaze_fs *fs, const u32 *inos, u32 n)
{
	struct gaze_mbuf *mb;
	u32 i, k = 0;

	mutex_lock(&fs->lock);
	for (i = 0; i < n; i++) {
		mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, inos[i], 0);
		if (mb) {
			gaze_mbuf_put(fs, mb);
			k++;
		}
	}
	mutex_unlock(&fs->lock);
	return k;
}

/*
 * A cold lookup, getattr, map, read, readlink and xattr read their
 * metadata without fs->lock and return what was written; a block that
 * changed place while it was read, or a zone reset meanwhile, makes the
 * operation read again rather than use what it fetched
 */
static void
test_unlocked_reads(void)
{
	static u8 buf[300 * GAZE_BLOCK_SIZE], got[300 * GAZE_BLOCK_SIZE];
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, false);
	struct gaze_attr a = attr_of(0120777), ga;
	u32 dir, ino[200], big, lnk, i, bad = 0, nr;
	char name[32], tgt[GAZE_SYMLINK_MAX + 1], val[3000];
	u64 addr, last;
	int err;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (u8)(i * 7 + i / 4096);
	TAP_MUST(mk(fs, GAZE_ROOT_INO, "d", 040755, &dir));
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "file-%u", i);
		TAP_MUST(mk(fs, dir, name, 0100644, &ino[i]));
		if (gaze_file_write(fs, ino[i], buf + i, 5000, 0) != 5000)
			bad++;
	}
	TAP_MUST(mk(fs, dir, "big", 0100644, &big));
	if (gaze_file_write(fs, big, buf, sizeof(buf), 0) != sizeof(buf))
		bad++;
	memset(val, 'v', sizeof(val));
	TAP_MUST(gaze_xattr_set(fs, big, "user.big", val, sizeof(val), 0));
	memcpy(tgt, long_target, sizeof(long_target));
	TAP_MUST(gaze_ns_symlink(fs, dir, "l", 1, tgt, 4000, &a, &lnk));
	tap_ok(!bad && !gaze_fs_sync(fs), "unlocked reads: setup");
	fs = fs_reopen(fs, dev);
	ur_wrap(fs, dev);

	ur_cold(fs);
	err = lk(fs, GAZE_ROOT_INO, "d", &i);
	for (i = 0; i < 200 && !err; i++) {
		u32 f;

		snprintf(name, sizeof(name), "file-%u", i);
		err = lk(fs, dir, name, &f) || f != ino[i] ||
		      gaze_ns_getattr(fs, f, &ga) || ga.size != 5000;
	}
	tap_ok(!err && ur.unlocked > 0 && !ur.locked,
	       "cold lookups and getattrs: %llu reads without the lock, %llu with",
	       (unsigned long long)ur.unlocked,
	       (unsigned long long)ur.locked);
	/* one read per inode without the read-around (node.c) */
	tap_ok(ur.unlocked <= 200 / 4,
	       "inode read-around: 200 cold inodes made together took %llu reads",
	       (unsigned long long)ur.unlocked);
	ur_cold(fs);
	err = gaze_file_read(fs, big, got, sizeof(got), 0) != sizeof(got) ||
	      memcmp(got, buf, sizeof(got));
	/* the data blocks themselves are read under the lock here */
	tap_ok(!err && ur.unlocked > 0,
	       "cold read of a 300-block file: right (%llu metadata reads without the lock)",
	       (unsigned long long)ur.unlocked);
	ur_cold(fs);
	err = gaze_file_map(fs, big, 299, 1, &addr, &nr) ||
	      !GAZE_ADDR_IS_REAL(addr) ||
	      gaze_file_bmap(fs, big, 150, &addr) || !GAZE_ADDR_IS_REAL(addr);
	memset(got, 0, sizeof(val));
	err = err || gaze_xattr_get(fs, big, "user.big", got, sizeof(val)) !=
		     (int)sizeof(val) || memcmp(got, val, sizeof(val)) ||
	      gaze_xattr_list(fs, big, (char *)got, 64) <= 0;
	tap_ok(!err && ur.unlocked > 0 && !ur.locked,
	       "cold map, bmap, xattr get and list: right, %llu reads without the lock, %llu with",
	       (unsigned long long)ur.unlocked,
	       (unsigned long long)ur.locked);
	ur_cold(fs);
	memset(tgt, 0, sizeof(tgt));
	err = gaze_ns_readlink(fs, lnk, tgt, sizeof(tgt)) != 4000 ||
	      memcmp(tgt, long_target, 4000);
	/* the target's data block is read under the lock, as file data */
	tap_ok(!err && ur.unlocked > 0 && ur.locked == 1,
	       "cold readlink of a 4000-byte target: right, its inode read without the lock");

	{
		struct rd_ctx c;

		ur_cold(fs);
		err = rd_all(fs, dir, 0, &c);
		tap_ok(!err && c.n == 204 && rd_unique(&c) && !c.order_bad &&
		       rd_find(&c, "file-199") && rd_find(&c, "big") &&
		       ur.unlocked > 0 && !ur.locked,
		       "cold readdir: %u entries once each, %llu reads without the lock, %llu with",
		       c.n, (unsigned long long)ur.unlocked,
		       (unsigned long long)ur.locked);
		free(c.ents);
		ur_cold(fs);
		err = rd_all(fs, dir, 7, &c);
		tap_ok(!err && c.n == 204 && rd_unique(&c) && !c.order_bad,
		       "cold readdir 7 entries a call: %u entries once each",
		       c.n);
		free(c.ents);
	}

	/*
	 * inode readahead, as the module's readdir asks for it (the first
	 * getattr caches the inodes around ino[0] too)
	 */
	ur_cold(fs);
	err = gaze_ns_getattr(fs, ino[0], &ga);
	last = ur.unlocked;
	nr = cached_inodes(fs, ino + 1, 199);
	i = gaze_ns_prefetch_inodes(fs, ino + 1, 199);
	tap_ok(!err && nr + i >= 199 && !ur.locked && ur.unlocked - last < 20,
	       "inode readahead: 199 inodes cached (%u by the getattr) with %llu reads, none under the lock",
	       nr, (unsigned long long)(ur.unlocked - last));
	last = ur.unlocked;
	for (i = 1; i < 200 && !err; i++)
		err = gaze_ns_getattr(fs, ino[i], &ga) || ga.size != 5000;
	tap_ok(!err && ur.unlocked == last && !ur.locked,
	       "then 199 getattrs read nothing");
	ur_cold(fs);
	err = gaze_ns_getattr(fs, ino[0], &ga);
	ur_victim = ino[5];
	ur.hook = ur_chmod_keep;
	i = gaze_ns_prefetch_inodes(fs, ino + 1, 199);
	err = err || gaze_ns_getattr(fs, ino[5], &ga);
	tap_ok(!err && !ur.hook && ga.mode == 0100640,
	       "an inode committed elsewhere during the readahead: the new mode (0%o; %u inserted)",
	       ga.mode, i);

	/* the inode moves while its old block is read: the new one counts */
	ur_cold(fs);
	ur_victim = ino[7];
	ur.hook = ur_chmod;
	err = gaze_ns_getattr(fs, ino[7], &ga);
	tap_ok(!err && ga.mode == 0100600 && !ur.hook,
	       "an inode committed elsewhere during its read: the new mode (0%o)",
	       ga.mode);

	/* a zone reset during the read: the block is read again */
	ur_cold(fs);
	ur.hook = ur_reset;
	last = 0;
	err = gaze_ns_getattr(fs, ino[9], &ga);
	last = ur.unlocked;
	tap_ok(!err && ga.size == 5000 && !ur.hook && last >= 2,
	       "a zone reset during the read: the block is fetched again (%llu reads)",
	       (unsigned long long)last);
	ur_cold(fs);
	err = gaze_ns_getattr(fs, ino[9], &ga);
	tap_ok(!err && ur.unlocked == last - 1,
	       "the same getattr without the reset: one read less (%llu)",
	       (unsigned long long)ur.unlocked);

	/*
	 * An inode rewritten elsewhere leaves its old copy among the
	 * others: the read-around of a neighbour must not cache that copy
	 */
	a = attr_of(0100604);
	err = gaze_ns_setattr(fs, ino[12], &a, GAZE_SET_MODE) ||
	      gaze_fs_sync(fs);
	ur_cold(fs);
	err = err || gaze_ns_getattr(fs, ino[13], &ga) ||
	      gaze_ns_getattr(fs, ino[12], &ga);
	tap_ok(!err && ga.mode == 0100604,
	       "inode read-around next to an inode's old copy: the new mode (0%o)",
	       ga.mode);
	dev->ops = ur.real;
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(dev);
}

/*
 * Inode read-around stops where it does not pay: stats of every 16th of
 * 3,200 files made together, in a scattered order, soon read about one
 * block each; a stat of every file in order then turns it on again
 */
static void
test_read_around_credit(void)
{
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, false);
	struct gaze_emu_stats s0, s1, s2;
	static u32 ino[3200];
	struct gaze_attr ga;
	u32 dir, i, n = 3200, k;
	char name[32];
	int err = 0;

	TAP_MUST(mk(fs, GAZE_ROOT_INO, "s", 040755, &dir));
	for (i = 0; i < n && !err; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		err = mk(fs, dir, name, 0100644, &ino[i]);
	}
	tap_ok(!err && !gaze_fs_sync(fs), "read-around credit: setup");
	fs = fs_reopen(fs, dev);
	gaze_emu_stats(dev, &s0);
	for (k = 0; k < 200 && !err; k++) {
		err = gaze_ns_getattr(fs, ino[(k * 37) % 200 * 16], &ga);
		if (k == 99)
			gaze_emu_stats(dev, &s1);
	}
	gaze_emu_stats(dev, &s2);
	tap_ok(!err && s2.blocks_read - s1.blocks_read <= 100 * 3,
	       "scattered stats: the first 100 read %llu blocks, the next 100 %llu (%u credit left)",
	       (unsigned long long)(s1.blocks_read - s0.blocks_read),
	       (unsigned long long)(s2.blocks_read - s1.blocks_read),
	       fs->around_credit);
	s0 = s2;
	for (i = 0; i < n && !err; i++)
		err = gaze_ns_getattr(fs, ino[i], &ga);
	gaze_emu_stats(dev, &s1);
	tap_ok(!err && s1.reads - s0.reads <= n / 4 &&
	       fs->around_credit == GAZE_AROUND_CREDIT,
	       "then every file in order: %llu reads (credit %u)",
	       (unsigned long long)(s1.reads - s0.reads), fs->around_credit);
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(dev);
}

/*
 * gaze_file_map_warm before a write of blocks spread over a file's map
 * nodes: the nodes are read without fs->lock, and the write then reads
 * fewer blocks under it than the same write on a cold cache
 */
static void
test_map_warm(void)
{
	static u8 buf[300 * GAZE_BLOCK_SIZE];
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, false);
	u64 fblks[2][8], size = 3500ull * GAZE_BLOCK_SIZE, off, cold, warm;
	void *bufs[8];
	u32 ino, i, k, bad = 0;
	s64 n;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (u8)(i * 13 + i / 4096);
	TAP_MUST(mk(fs, GAZE_ROOT_INO, "w", 0100644, &ino));
	for (off = 0; off < size; off += n) {
		n = gaze_file_write(fs, ino, buf, min_t(u64, sizeof(buf),
							size - off), off);
		if (n <= 0) {
			bad++;
			break;
		}
	}
	/* one block in the direct slots, one in each of 6 nodes, one more */
	for (k = 0; k < 2; k++) {
		fblks[k][0] = 10 + k;
		for (i = 1; i < 8; i++)
			fblks[k][i] = GAZE_ADDRS_PER_INODE +
				      (u64)(i - 1) * GAZE_ADDRS_PER_DNODE + 5 + k;
	}
	for (i = 0; i < 8; i++)
		bufs[i] = buf + (size_t)i * GAZE_BLOCK_SIZE;
	tap_ok(!bad && !gaze_fs_sync(fs), "map warm-up: setup (3,500 blocks)");
	fs = fs_reopen(fs, dev);
	ur_wrap(fs, dev);

	ur_cold(fs);
	TAP_MUST(gaze_file_write_vec(fs, ino, fblks[0], 8, bufs,
				     (fblks[0][7] + 1) * GAZE_BLOCK_SIZE));
	cold = ur.locked;
	ur_cold(fs);
	gaze_file_map_warm(fs, ino, fblks[1], 8);
	tap_ok(ur.unlocked > 0 && !ur.locked,
	       "gaze_file_map_warm reads the map nodes and table blocks a write of 8 blocks needs without fs->lock (%llu reads, %llu with it)",
	       (unsigned long long)ur.unlocked,
	       (unsigned long long)ur.locked);
	ur.locked = ur.unlocked = 0;
	TAP_MUST(gaze_file_write_vec(fs, ino, fblks[1], 8, bufs,
				     (fblks[1][7] + 1) * GAZE_BLOCK_SIZE));
	warm = ur.locked;
	for (k = 0; k < 2; k++)
		for (i = 0; i < 8; i++) {
			u8 got[GAZE_BLOCK_SIZE];

			if (gaze_file_read(fs, ino, got, GAZE_BLOCK_SIZE,
					   fblks[k][i] * GAZE_BLOCK_SIZE) !=
			    GAZE_BLOCK_SIZE || memcmp(got, bufs[i],
						      GAZE_BLOCK_SIZE))
				bad++;
		}
	tap_ok(!bad && cold > 0 && warm < cold && !warm,
	       "the write after it reads %llu blocks under fs->lock, the same write on a cold cache %llu; both read back",
	       (unsigned long long)warm, (unsigned long long)cold);
	dev->ops = ur.real;
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(dev);
}

/* directory dname in the root, with n files "0", "1", ... of len bytes
 * of buf each; the number of writes that came short */
static u32
mk_written(struct gaze_fs *fs, const char *dname, const u8 *buf, size_t len,
	   u32 *dir, u32 *f, u32 n)
{
	char name[16];
	u32 i, bad = 0;

	TAP_MUST(mk(fs, GAZE_ROOT_INO, dname, 040755, dir));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%u", i);
		TAP_MUST(mk(fs, *dir, name, 0100644, &f[i]));
		if (gaze_file_write(fs, f[i], buf, len, 0) != (s64)len)
			bad++;
	}
	return bad;
}

/*
 * Cuts on a cold cache (truncate, punch hole, freeing an orphan) read the
 * map nodes and table blocks they free under fs->lock; after
 * gaze_file_range_warm they read none there, and the data is right.
 */
static int
range_cut(struct gaze_fs *fs, u32 dir, const u32 *f, int op, bool warm)
{
	char name[16];

	switch (op) {
	case 0:
		if (warm)
			gaze_file_range_warm(fs, f[0], 100, ~0ull, false);
		return gaze_file_truncate_trim(fs, f[0], 100 * GAZE_BLOCK_SIZE,
					       true);
	case 1:
		if (warm)
			gaze_file_range_warm(fs, f[1], 100, 3000, false);
		return gaze_file_fallocate(fs, f[1], GAZE_FALLOC_PUNCH_HOLE |
					   GAZE_FALLOC_KEEP_SIZE,
					   100 * GAZE_BLOCK_SIZE,
					   2900 * GAZE_BLOCK_SIZE);
	default:
		snprintf(name, sizeof(name), "%u", f[2]);
		if (gaze_ns_unlink_flags(fs, dir, name, (u32)strlen(name),
					 GAZE_NS_IN_USE, NULL))
			return -1;
		ur_cold(fs);
		if (warm)
			gaze_file_range_warm(fs, f[2], 0, ~0ull, true);
		return gaze_ns_orphan_evict(fs, f[2]);
	}
}

static void
test_range_warm(void)
{
	static const char *const what[] = { "truncate of 3,400 blocks",
		"punch hole of 2,900 blocks", "freeing an orphan of 3,500 blocks" };
	static u8 buf[3500 * GAZE_BLOCK_SIZE], zero_block[GAZE_BLOCK_SIZE];
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, false);
	u64 locked[2][3], reads[2][3];
	u8 got[GAZE_BLOCK_SIZE];
	struct gaze_attr ga;
	u32 dir, f[6], i, k, bad = 0;
	char name[16];
	int op;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (u8)(i * 7 + i / 4096);
	bad += mk_written(fs, "d", buf, sizeof(buf), &dir, f, 6);
	/* the names are the inode numbers, for range_cut's unlink */
	for (i = 0; i < 6; i++) {
		char to[16];

		snprintf(name, sizeof(name), "%u", i);
		snprintf(to, sizeof(to), "%u", f[i]);
		if (gaze_ns_rename(fs, dir, name, (u32)strlen(name), dir, to,
				   (u32)strlen(to), 0, NULL))
			bad++;
	}
	tap_ok(!bad && !gaze_fs_sync(fs), "range warm-up: setup (6 files of 3,500 blocks)");
	fs = fs_reopen(fs, dev);
	ur_wrap(fs, dev);
	/* what the VFS looks up first, then the change: none under the lock */
	ur_cold(fs);
	if (lk(fs, dir, "new", &i) != -ENOENT ||
	    mk(fs, dir, "new", 0100644, &i))
		bad++;
	locked[0][0] = ur.locked;
	ur_cold(fs);
	if (lk(fs, dir, "new", &i) || gaze_ns_getattr(fs, i, &ga) ||
	    lk(fs, dir, "lnk", &k) != -ENOENT ||
	    gaze_ns_link(fs, dir, "lnk", 3, i))
		bad++;
	locked[0][1] = ur.locked;
	ur_cold(fs);
	if (lk(fs, dir, "new", &i) || gaze_ns_getattr(fs, i, &ga) ||
	    lk(fs, GAZE_ROOT_INO, "moved", &k) != -ENOENT ||
	    gaze_ns_rename(fs, dir, "new", 3, GAZE_ROOT_INO, "moved", 5, 0, NULL))
		bad++;
	locked[0][2] = ur.locked;
	ur_cold(fs);
	if (lk(fs, dir, "lnk", &i) || gaze_ns_getattr(fs, i, &ga) ||
	    gaze_ns_unlink_flags(fs, dir, "lnk", 3, GAZE_NS_IN_USE, NULL))
		bad++;
	tap_ok(!bad && !locked[0][0] && !locked[0][1] && !locked[0][2] &&
	       !ur.locked,
	       "cold create, link, rename and unlink after the VFS's lookups: reads under fs->lock %llu, %llu, %llu, %llu",
	       (unsigned long long)locked[0][0],
	       (unsigned long long)locked[0][1],
	       (unsigned long long)locked[0][2],
	       (unsigned long long)ur.locked);
	for (k = 0; k < 2; k++)
		for (op = 0; op < 3; op++) {
			ur_cold(fs);
			TAP_MUST(gaze_ns_getattr(fs, f[3 * k + op], &ga));
			if (range_cut(fs, dir, f + 3 * k, op, k))
				bad++;
			locked[k][op] = ur.locked;
			reads[k][op] = ur.locked + ur.unlocked;
		}
	for (op = 0; op < 3; op++)
		tap_ok(!bad && locked[0][op] > 0 && !locked[1][op],
		       "%s: %llu reads under fs->lock cold, %llu after gaze_file_range_warm (%llu reads in all)",
		       what[op], (unsigned long long)locked[0][op],
		       (unsigned long long)locked[1][op],
		       (unsigned long long)reads[1][op]);
	dev->ops = ur.real;
	fs = fs_reopen(fs, dev);
	for (k = 0; k < 2; k++) {
		u32 t = f[3 * k], p = f[3 * k + 1];

		if (gaze_ns_getattr(fs, t, &ga) ||
		    ga.size != 100 * GAZE_BLOCK_SIZE ||
		    gaze_ns_getattr(fs, p, &ga) || ga.size != sizeof(buf) ||
		    gaze_ns_getattr(fs, f[3 * k + 2], &ga) != -ENOENT)
			bad++;
		for (i = 0; i < 3500; i += 7) {
			bool hole = i >= 100 && i < 3000;

			if (i < 100 && (gaze_file_read(fs, t, got, sizeof(got),
						       (u64)i * sizeof(got)) !=
					(s64)sizeof(got) ||
					memcmp(got, buf + (size_t)i * sizeof(got),
					       sizeof(got))))
				bad++;
			if (gaze_file_read(fs, p, got, sizeof(got),
					   (u64)i * sizeof(got)) !=
			    (s64)sizeof(got))
				bad++;
			else if (hole ? memcmp(got, zero_block, sizeof(got)) :
				 memcmp(got, buf + (size_t)i * sizeof(got),
					sizeof(got)))
				bad++;
		}
	}
	tap_ok(!bad, "after a reopen: the cut files read back right, the orphans are gone");
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(dev);
}

/*
 * gaze_file_edges_warm: a truncate to an unaligned size and a punch hole
 * with both ends unaligned read the blocks they zero in part without
 * fs->lock; a block rewritten or a zone reset after the warm-up is read
 * again; every byte is right afterwards
 */
#define EDGE_SIZE	(64 * GAZE_BLOCK_SIZE)
#define EDGE_TRUNC	(10 * GAZE_BLOCK_SIZE + 1000)
#define EDGE_PUNCH	(20 * GAZE_BLOCK_SIZE + 300)
#define EDGE_PEND	(40 * GAZE_BLOCK_SIZE + 700)

static int
edge_cut(struct gaze_fs *fs, u32 ino, bool punch, bool warm)
{
	if (punch) {
		gaze_file_range_warm(fs, ino, EDGE_PUNCH / GAZE_BLOCK_SIZE,
				     EDGE_PEND / GAZE_BLOCK_SIZE + 1, false);
		if (warm)
			gaze_file_edges_warm(fs, ino, EDGE_PUNCH, EDGE_PEND);
		ur.locked = 0;
		return gaze_file_fallocate(fs, ino, GAZE_FALLOC_PUNCH_HOLE |
					   GAZE_FALLOC_KEEP_SIZE, EDGE_PUNCH,
					   EDGE_PEND - EDGE_PUNCH);
	}
	gaze_file_range_warm(fs, ino, EDGE_TRUNC / GAZE_BLOCK_SIZE + 1, ~0ull,
			     false);
	if (warm)
		gaze_file_edges_warm(fs, ino, EDGE_TRUNC, ~0ull);
	ur.locked = 0;
	return gaze_file_truncate_trim(fs, ino, EDGE_TRUNC, true);
}

/* the file as the model says: want[0..len) */
static bool
edge_same(struct gaze_fs *fs, u32 ino, const u8 *want, u64 len)
{
	static u8 got[EDGE_SIZE + 1];
	struct gaze_attr ga;

	return !gaze_ns_getattr(fs, ino, &ga) && ga.size == len &&
	       gaze_file_read(fs, ino, got, sizeof(got), 0) == (s64)len &&
	       !memcmp(got, want, len);
}

static void
test_edges_warm(void)
{
	static u8 buf[EDGE_SIZE], want[6][EDGE_SIZE], other[GAZE_BLOCK_SIZE];
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, false);
	u64 locked[4], len[6];
	u32 dir, f[6], i, bad = 0;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (u8)(i * 11 + i / 4096 + 1);
	memset(other, 0x5a, sizeof(other));
	bad += mk_written(fs, "e", buf, sizeof(buf), &dir, f, 6);
	for (i = 0; i < 6; i++)
		memcpy(want[i], buf, sizeof(buf));
	tap_ok(!bad && !gaze_fs_sync(fs), "edges warm-up: setup");
	fs = fs_reopen(fs, dev);
	ur_wrap(fs, dev);
	/* f0, f1: truncate cold and warmed; f2, f3: punch cold and warmed */
	for (i = 0; i < 4; i++) {
		ur_cold(fs);
		if (edge_cut(fs, f[i], i >= 2, i & 1))
			bad++;
		locked[i] = ur.locked;
	}
	tap_ok(!bad && locked[0] && !locked[1],
	       "truncate to an unaligned size: %llu reads under fs->lock cold, %llu after gaze_file_edges_warm",
	       (unsigned long long)locked[0], (unsigned long long)locked[1]);
	tap_ok(!bad && locked[2] && !locked[3],
	       "punch hole with unaligned ends: %llu reads under fs->lock cold, %llu after gaze_file_edges_warm",
	       (unsigned long long)locked[2], (unsigned long long)locked[3]);
	for (i = 0; i < 2; i++)
		len[i] = EDGE_TRUNC;
	for (i = 2; i < 4; i++) {
		memset(want[i] + EDGE_PUNCH, 0, EDGE_PEND - EDGE_PUNCH);
		len[i] = EDGE_SIZE;
	}

	/* f4: the block rewritten after the warm-up; f5: a zone reset */
	ur_cold(fs);
	gaze_file_edges_warm(fs, f[4], EDGE_TRUNC, ~0ull);
	if (gaze_file_write(fs, f[4], other, sizeof(other),
			    EDGE_TRUNC / GAZE_BLOCK_SIZE * GAZE_BLOCK_SIZE) !=
	    sizeof(other) ||
	    gaze_file_truncate_trim(fs, f[4], EDGE_TRUNC, true))
		bad++;
	memcpy(want[4] + EDGE_TRUNC / GAZE_BLOCK_SIZE * GAZE_BLOCK_SIZE, other,
	       EDGE_TRUNC % GAZE_BLOCK_SIZE);
	len[4] = EDGE_TRUNC;
	ur_cold(fs);
	gaze_file_edges_warm(fs, f[5], EDGE_TRUNC, ~0ull);
	mutex_lock(&fs->lock);
	gaze_fs_zone_reset_note(fs);
	mutex_unlock(&fs->lock);
	ur.locked = 0;
	if (gaze_file_truncate_trim(fs, f[5], EDGE_TRUNC, true))
		bad++;
	len[5] = EDGE_TRUNC;
	tap_ok(!bad && ur.locked > 0,
	       "a zone reset after the warm-up: the block is read again under the lock (%llu reads)",
	       (unsigned long long)ur.locked);
	dev->ops = ur.real;
	for (i = 0; i < 6; i++)
		if (!edge_same(fs, f[i], want[i], len[i]))
			bad++;
	/* the tail past the cut reads as zeros once the file grows again */
	fs = fs_reopen(fs, dev);
	for (i = 0; i < 6; i++) {
		if (!edge_same(fs, f[i], want[i], len[i]))
			bad++;
		if (len[i] == EDGE_SIZE)
			continue;
		memset(want[i] + len[i], 0, EDGE_SIZE - len[i]);
		if (gaze_file_truncate_trim(fs, f[i], EDGE_SIZE, false) ||
		    !edge_same(fs, f[i], want[i], EDGE_SIZE))
			bad++;
	}
	tap_ok(!bad, "the cut files read back right, a rewritten block's new bytes kept, before and after a reopen");
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(dev);
}

/*
 * The device's writes, wrapped: blocks written per hold of fs->lock (the
 * userspace mutex counts its holds), the most in one hold, and the holds
 * that wrote
 */
static struct {
	const struct gaze_dev_ops *real;
	struct gaze_dev_ops ops;
	struct gaze_fs *fs;
	unsigned long hold;		/* the hold the last write was in */
	u64 cur, max, total, holds;
} hw;

static void
hw_note(u32 nr)
{
	if (hw.fs->lock.holds != hw.hold || !hw.holds) {
		hw.hold = hw.fs->lock.holds;
		hw.holds++;
		hw.cur = 0;
	}
	hw.cur += nr;
	hw.total += nr;
	if (hw.cur > hw.max)
		hw.max = hw.cur;
}

static int
hw_write(struct gaze_dev *d, u64 blk, u32 nr, const void *buf)
{
	hw_note(nr);
	return hw.real->write(d, blk, nr, buf);
}

static int
hw_append(struct gaze_dev *d, u32 zone, u32 nr, const void *buf, u64 *blk)
{
	hw_note(nr);
	return hw.real->append(d, zone, nr, buf, blk);
}

static int
hw_writev(struct gaze_dev *d, u64 blk, u32 nr, void *const *bufs)
{
	hw_note(nr);
	return hw.real->writev(d, blk, nr, bufs);
}

static void
hw_wrap(struct gaze_fs *fs, struct gaze_dev *d)
{
	memset(&hw, 0, sizeof(hw));
	hw.real = d->ops;
	hw.ops = *d->ops;
	hw.ops.write = hw_write;
	hw.ops.append = d->ops->append ? hw_append : NULL;
	hw.ops.writev = d->ops->writev ? hw_writev : NULL;
	hw.fs = fs;
	d->ops = &hw.ops;
}

static void
hw_unwrap(struct gaze_dev *d)
{
	d->ops = hw.real;
}

/* empty files d/f<from> .. d/f<to - 1> */
static int
mk_files(struct gaze_fs *fs, u32 dir, u32 from, u32 to)
{
	char name[32];
	u32 i, ino;
	int err = 0;

	for (i = from; i < to && !err; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		err = mk(fs, dir, name, 0100644, &ino);
	}
	return err;
}

/* dirty nodes and directory blocks */
static u32
nr_dirty(struct gaze_fs *fs)
{
	return gaze_cache_nr_dirty(fs, GAZE_MB_NODE) +
	       gaze_cache_nr_dirty(fs, GAZE_MB_FBLK);
}

/*
 * gaze_fs_cp_steps: with PREFREE zones waiting for the settling
 * checkpoint, the dirty nodes and directory blocks go out a batch per
 * hold of the lock before it; with none waiting, nothing is written.
 * gaze_fs_sync writes them the same way before its checkpoint.
 */
static void
test_cp_steps(void)
{
	static u8 buf[2048 * GAZE_BLOCK_SIZE];
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, false);
	u32 dir, big, ino, d0, d1, pre;
	int err;

	memset(buf, 0x3c, sizeof(buf));
	TAP_MUST(mk(fs, GAZE_ROOT_INO, "big", 0100644, &big));
	err = gaze_file_write(fs, big, buf, sizeof(buf), 0) != sizeof(buf) ||
	      gaze_fs_sync(fs) ||
	      gaze_ns_unlink(fs, GAZE_ROOT_INO, "big", 3) || gaze_fs_sync(fs);
	pre = gaze_space_nr_prefree(fs);
	TAP_MUST(mk(fs, GAZE_ROOT_INO, "d", 040755, &dir));
	err = err || mk_files(fs, dir, 0, 3000);
	d0 = nr_dirty(fs);
	hw_wrap(fs, dev);
	gaze_fs_cp_steps(fs);
	hw_unwrap(dev);
	d1 = nr_dirty(fs);
	tap_ok(!err && pre > 0 && d0 > 2000 && !d1,
	       "cp steps: %u PREFREE zones, %u dirty blocks before, %u after",
	       pre, d0, d1);
	tap_ok(hw.total >= d0 && hw.max <= 1024 && hw.holds >= 3,
	       "cp steps: %llu blocks in %llu holds, at most %llu in one",
	       (unsigned long long)hw.total, (unsigned long long)hw.holds,
	       (unsigned long long)hw.max);
	err = gaze_gc_settle(fs) || mk_files(fs, dir, 3000, 6000);
	d0 = nr_dirty(fs);
	hw_wrap(fs, dev);
	err = err || gaze_fs_sync(fs);
	hw_unwrap(dev);
	d1 = nr_dirty(fs);
	/* the checkpoint's hold adds the tables and the checkpoint */
	tap_ok(!err && d0 > 2000 && !d1 && hw.total >= d0 &&
	       hw.max <= 1024 + 128 && hw.holds >= 4,
	       "sync in steps: %u dirty blocks, %llu written in %llu holds, at most %llu in one",
	       d0, (unsigned long long)hw.total,
	       (unsigned long long)hw.holds, (unsigned long long)hw.max);
	err = err || mk_files(fs, dir, 6000, 7000);
	d0 = nr_dirty(fs);
	gaze_fs_cp_steps(fs);
	d1 = nr_dirty(fs);
	tap_ok(!err && !gaze_space_nr_prefree(fs) && d0 > 500 && d1 == d0,
	       "cp steps with no PREFREE zone: nothing written (%u dirty, %u after)",
	       d0, d1);
	fs = fs_reopen(fs, dev);
	err = lk(fs, dir, "f6999", &ino) || lk(fs, dir, "f0", &ino) ||
	      lk(fs, dir, "f4567", &ino);
	tap_ok(!err, "cp steps: the files are there after a reopen");
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(dev);
}

/* the core attributes the module needs after a create, compared */
static bool
attr_same(const struct gaze_attr *x, const struct gaze_attr *y)
{
	return x->ino == y->ino && x->mode == y->mode && x->uid == y->uid &&
	       x->gid == y->gid && x->nlink == y->nlink &&
	       x->size == y->size && x->blocks == y->blocks &&
	       x->mtime == y->mtime && x->mtime_nsec == y->mtime_nsec &&
	       x->ctime == y->ctime && x->ctime_nsec == y->ctime_nsec &&
	       x->atime == y->atime && x->crtime == y->crtime &&
	       x->flags == y->flags && x->generation == y->generation &&
	       x->rdev_major == y->rdev_major &&
	       x->rdev_minor == y->rdev_minor &&
	       x->compress_algo == y->compress_algo;
}

/*
 * gaze_ns_create hands back the new inode's and the directory's
 * attributes as getattr gives them right after, through the directory's
 * growth from inline to hashed, for files, directories and symlinks
 */
static void
test_create_out(bool inline_data)
{
	const char *tag = inline_data ? "inline" : "noinline";
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, inline_data);
	struct gaze_attr a = attr_of(0100644), out[2], got;
	u32 dir, i, bad = 0, n = 0;
	char name[32], tgt[64];

	TAP_MUST(mk(fs, GAZE_ROOT_INO, "d", 040755, &dir));
	for (i = 0; i < 600; i++) {
		const char *target = NULL;

		snprintf(name, sizeof(name), "entry-%u", i);
		a.mode = i % 3 == 1 ? 040700 : 0100600;
		if (i % 3 == 2) {
			snprintf(tgt, sizeof(tgt), "/target/of/%u", i);
			target = tgt;
		}
		if (gaze_ns_create(fs, dir, name, (u32)strlen(name), &a,
				   target, out)) {
			bad++;
			continue;
		}
		if (gaze_ns_getattr(fs, out[0].ino, &got) ||
		    !attr_same(&got, &out[0]) ||
		    gaze_ns_getattr(fs, dir, &got) || !attr_same(&got, &out[1]))
			bad++;
		if (target && (gaze_ns_readlink(fs, out[0].ino, name,
						sizeof(name)) !=
			       (int)strlen(tgt) ||
			       memcmp(name, tgt, strlen(tgt)) ||
			       (out[0].mode & 0170000) != 0120000))
			bad++;
		n++;
	}
	tap_ok(!bad && n == 600,
	       "%s: gaze_ns_create's attributes of 600 new files, directories and symlinks and of their directory equal getattr's after it",
	       tag);
	tap_ok(gaze_ns_create(fs, dir, "entry-0", 7, &a, NULL, out) == -EEXIST &&
	       gaze_ns_create(fs, dir, "x", 1, &a, "", out) == -ENOENT &&
	       gaze_ns_create(fs, dir, "y", 1, &(struct gaze_attr){
			      .mode = 0120777 }, NULL, out) == -EINVAL,
	       "%s: gaze_ns_create refuses a taken name, an empty target, a symlink without one",
	       tag);
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(dev);
}

/* the device's writes, wrapped: blocks written, in all */
static struct {
	const struct gaze_dev_ops *real;
	struct gaze_dev_ops ops;
	u64 blocks;
} wc;

static int
wc_write(struct gaze_dev *d, u64 blk, u32 nr, const void *buf)
{
	wc.blocks += nr;
	return wc.real->write(d, blk, nr, buf);
}

static int
wc_writev(struct gaze_dev *d, u64 blk, u32 nr, void *const *bufs)
{
	wc.blocks += nr;
	return wc.real->writev(d, blk, nr, bufs);
}

static int
wc_append(struct gaze_dev *d, u32 zone, u32 nr, const void *buf, u64 *blk)
{
	wc.blocks += nr;
	return wc.real->append(d, zone, nr, buf, blk);
}

static void
wc_wrap(struct gaze_dev *d)
{
	wc.real = d->ops;
	wc.ops = *d->ops;
	wc.ops.write = wc_write;
	if (wc.real->writev)
		wc.ops.writev = wc_writev;
	if (wc.real->append)
		wc.ops.append = wc_append;
	d->ops = &wc.ops;
}

/*
 * Write-behind (fs.c gaze_fs_balance): creates in a cache of 16 MiB keep
 * the dirty directory blocks and nodes near half of it, and no create
 * that is not a checkpoint writes more than a write-behind batch and its
 * own blocks.  Without write-behind the dirty blocks grew to the limit
 * and the create that met it wrote them all (about 4,000 blocks here).
 */
static void
test_write_behind(void)
{
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, true);
	struct gaze_attr a = attr_of(0100644);
	u64 half, dirty, most = 0, before, cp, n_cp = 0, worst = 0;
	u32 dir, i, ino, bad = 0;
	char name[32];

	fs->cache_limit = 16u << 20;
	half = fs->cache_limit / GAZE_BLOCK_SIZE / 2;
	wc_wrap(dev);
	TAP_MUST(mk(fs, GAZE_ROOT_INO, "d", 040755, &dir));
	for (i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "file-with-a-long-name-%u", i);
		before = wc.blocks;
		cp = fs->cp_seq;
		if (gaze_ns_mknod(fs, dir, name, (u32)strlen(name), &a, &ino)) {
			bad++;
			break;
		}
		if (fs->cp_seq != cp)
			n_cp++;
		else if (wc.blocks - before > worst)
			worst = wc.blocks - before;
		dirty = (u64)gaze_cache_nr_dirty(fs, GAZE_MB_FBLK) +
			gaze_cache_nr_dirty(fs, GAZE_MB_NODE);
		if (dirty > most)
			most = dirty;
	}
	bad += gaze_fs_sync(fs) != 0;
	tap_ok(!bad && most <= half + 8 && worst <= 1024 + 64,
	       "write-behind: 20,000 creates in a 16 MiB cache: at most %llu dirty directory blocks and nodes (half the cache: %llu), at most %llu blocks written by one create (%llu checkpoints aside); %llu blocks written with the final sync",
	       (unsigned long long)most, (unsigned long long)half,
	       (unsigned long long)worst, (unsigned long long)n_cp,
	       (unsigned long long)wc.blocks);
	TAP_MUST(gaze_fs_close(fs));
	dev->ops = wc.real;
	gaze_dev_close(dev);
}

/*
 * out of a link, unlink or rename: the slots in mask are filled, the
 * others are not; a filled slot equals getattr right after, or, when its
 * bit is in freed, has nlink 0 and its inode is gone
 */
static bool
out_same(struct gaze_fs *fs, const struct gaze_ns_out *out, u32 mask,
	 u32 freed)
{
	struct gaze_attr got;
	int i;

	if (out->freed != freed)
		return false;
	for (i = 0; i < GAZE_OUT_NR; i++) {
		const struct gaze_attr *a = &out->a[i];

		if (!(mask & (1u << i))) {
			if (a->ino)
				return false;
		} else if (freed & (1u << i)) {
			if (!a->ino || a->nlink ||
			    gaze_ns_getattr(fs, a->ino, &got) != -ENOENT)
				return false;
		} else if (!a->ino || gaze_ns_getattr(fs, a->ino, &got) ||
			   !attr_same(&got, a)) {
			return false;
		}
	}
	return true;
}

#define OUT_BIT(s)	(1u << GAZE_OUT_##s)

/* one round of every kind of link, unlink and rename, in dirs d and e */
static u32
ns_out_round(struct gaze_fs *fs, u32 d, u32 e, u32 i)
{
	const u32 two = OUT_BIT(DIR) | OUT_BIT(INODE);
	const u32 four = two | OUT_BIT(NDIR) | OUT_BIT(NINODE);
	struct gaze_ns_out o;
	char a[32], b[32], c[32], x[32];
	u32 f, g, sub, bad = 0;

	snprintf(a, sizeof(a), "a%u", i);
	snprintf(b, sizeof(b), "b%u", i);
	snprintf(c, sizeof(c), "c%u", i);
	snprintf(x, sizeof(x), "x%u", i);
	if (mk(fs, d, a, 0100644, &f) || mk(fs, e, b, 0100644, &g) ||
	    mk(fs, d, c, 040755, &sub))
		return 1;
	/* link, and unlink of a name that leaves a link */
	bad += gaze_ns_link_flags(fs, e, x, (u32)strlen(x), f, 0, &o) ||
	       !out_same(fs, &o, two, 0) || o.a[GAZE_OUT_INODE].nlink != 2;
	bad += gaze_ns_unlink_flags(fs, e, x, (u32)strlen(x), 0, &o) ||
	       !out_same(fs, &o, two, 0) || o.a[GAZE_OUT_DIR].ino != e;
	/* a move across dirs, of a directory (both dirs' nlink change) */
	bad += gaze_ns_rename(fs, d, c, (u32)strlen(c), e, c, (u32)strlen(c),
			      0, &o) ||
	       !out_same(fs, &o, two | OUT_BIT(NDIR), 0);
	/* exchange of a file and a directory across dirs */
	bad += gaze_ns_rename(fs, d, a, (u32)strlen(a), e, c, (u32)strlen(c),
			      GAZE_RENAME_EXCHANGE, &o) ||
	       !out_same(fs, &o, four, 0);
	/* a file in use replaced within one dir: an orphan, not freed */
	bad += gaze_ns_rename(fs, e, b, (u32)strlen(b), e, c, (u32)strlen(c),
			      GAZE_RENAME_IN_USE, &o) ||
	       !out_same(fs, &o, four, 0) ||
	       !(o.a[GAZE_OUT_NINODE].flags & GAZE_IF_ORPHAN);
	bad += gaze_ns_orphan_evict(fs, f) != 0;
	/* a file not in use replaced, with a whiteout: freed */
	bad += mk(fs, d, x, 0100600, &f) ||
	       gaze_ns_rename(fs, e, c, (u32)strlen(c), d, x, (u32)strlen(x),
			      GAZE_RENAME_WHITEOUT, &o) ||
	       !out_same(fs, &o, four, OUT_BIT(NINODE));
	/* an empty directory replaced by one, then removed: both freed */
	bad += mk(fs, e, b, 040700, &g) ||
	       gaze_ns_rename(fs, d, a, (u32)strlen(a), e, b, (u32)strlen(b),
			      0, &o) ||
	       !out_same(fs, &o, four, OUT_BIT(NINODE));
	bad += gaze_ns_unlink_flags(fs, e, b, (u32)strlen(b), 0, &o) ||
	       !out_same(fs, &o, two, OUT_BIT(INODE));
	/* the last name of a file in use: an orphan; the whiteout's too */
	bad += gaze_ns_unlink_flags(fs, d, x, (u32)strlen(x), GAZE_NS_IN_USE,
				    &o) ||
	       !out_same(fs, &o, two, 0) || o.a[GAZE_OUT_INODE].nlink;
	bad += gaze_ns_orphan_evict(fs, o.a[GAZE_OUT_INODE].ino) != 0;
	bad += gaze_ns_unlink_flags(fs, e, c, (u32)strlen(c), 0, &o) ||
	       !out_same(fs, &o, two, OUT_BIT(INODE));
	return bad;
}

/*
 * gaze_ns_link_flags, gaze_ns_unlink_flags and gaze_ns_rename hand back
 * what they did to each inode as getattr gives it right after (the module
 * reads nothing back after them), through directories' growth from
 * inline to hashed; failures and no-ops fill no slot
 */
static void
test_ns_out(bool inline_data)
{
	const char *tag = inline_data ? "inline" : "noinline";
	struct gaze_dev *dev = dev_new(64);
	struct gaze_fs *fs = fs_new(dev, inline_data);
	struct gaze_ns_out o;
	u32 d, e, f, i, bad = 0;

	TAP_MUST(mk(fs, GAZE_ROOT_INO, "d", 040755, &d));
	TAP_MUST(mk(fs, GAZE_ROOT_INO, "e", 040755, &e));
	for (i = 0; i < 300; i++)
		bad += ns_out_round(fs, d, e, i);
	tap_ok(!bad,
	       "%s: 300 rounds of link, unlink and rename (move, exchange, replace in use, not in use, a directory, whiteout): out equals getattr after, freed inodes are gone (%u bad)",
	       tag, bad);
	TAP_MUST(mk(fs, d, "same", 0100644, &f));
	TAP_MUST(gaze_ns_link(fs, d, "same2", 5, f));
	memset(&o, 0xff, sizeof(o));
	tap_ok(!gaze_ns_rename(fs, d, "same", 4, d, "same2", 5, 0, &o) &&
	       out_same(fs, &o, 0, 0) &&
	       gaze_ns_rename(fs, d, "nope", 4, d, "x", 1, 0, &o) == -ENOENT &&
	       gaze_ns_unlink_flags(fs, d, "nope", 4, 0, &o) == -ENOENT &&
	       gaze_ns_link_flags(fs, d, "same", 4, f, 0, &o) == -EEXIST &&
	       gaze_ns_link_flags(fs, d, "z", 1, f, 0x4000, &o) == -EINVAL,
	       "%s: a rename onto another name of the same inode fills no slot; failures return their errors",
	       tag);
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(dev);
}

int
main(int argc, char **argv)
{
	bool quick = false;
	u32 big = 0;
	int opt;

	/* -q: skip the 100,000-entry directory; -n N: only an N-entry one */
	while ((opt = getopt(argc, argv, "qs:n:")) != -1) {
		if (opt == 'q')
			quick = true;
		else if (opt == 's')
			rng_state = strtoull(optarg, NULL, 0) | 1;
		else if (opt == 'n')
			big = (u32)strtoul(optarg, NULL, 0);
	}
	if (big) {
		test_dir_many(true, big, 512 * DIV_ROUND_UP(big, 100000), false);
		return tap_done();
	}
	memset(long_target, 'L', 4000);
	long_target[0] = '/';
	long_target[3999] = 'z';

	test_basic(true);
	test_basic(false);
	test_dir_many(true, 3000, 64, false);
	test_dir_many(false, 3000, 64, true);
	test_dir_overflow();
	test_file(true);
	test_file(false);
	test_xattr(true);
	test_xattr(false);
	test_rename(true);
	test_rename(false);
	test_rdonly();
	test_data_lost(64, 1024, 0);
	test_data_lost(16, 4096, 3000);
	test_unlocked_reads();
	test_read_around_credit();
	test_edges_warm();
	test_cp_steps();
	test_map_warm();
	test_create_out(true);
	test_create_out(false);
	test_ns_out(true);
	test_ns_out(false);
	test_write_behind();
	test_range_warm();
	if (!quick)
		test_dir_many(true, 100000, 512, false);
	return tap_done();
}
