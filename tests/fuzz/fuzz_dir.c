// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_dir.c - libFuzzer harness for directory operations (dir.c,
 * namei.c): names of arbitrary bytes, hash collisions, inline and hashed
 * directories, bucket splits, against a model.
 *
 * Input: a sequence of operations on one directory of a fresh filesystem
 * on a RAM emulator: op byte, name length byte, name bytes (and for
 * rename a second name).  Ops: create, mkdir, unlink, rename, lookup,
 * create 64 names at once (prefix + counter), checkpoint, close + reopen.
 * The model is the set of names: a name is valid when it is 1..255 bytes
 * without '/' or NUL and not "." or ".." (which lookup resolves to the
 * directory and its parent).  Every result is compared with
 * the model (lookup, EEXIST, ENOENT, invalid names refused) and at the end
 * readdir must list exactly the model's names, once each.  A mismatch
 * traps, like a crash.
 */
#include "gaze_core.h"
#include "gaze_zdev.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES	1024
#define MAX_OPS		200

struct mname {
	u8	len;
	char	s[256];
};

static struct mname model[MAX_NAMES];
static u32 nmodel;

static bool
name_valid(const char *s, u32 len)
{
	if (!len || len > 255 || memchr(s, '/', len) || memchr(s, 0, len))
		return false;
	if ((len == 1 && s[0] == '.') ||
	    (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	return true;
}

static int
model_find(const char *s, u32 len)
{
	u32 i;

	for (i = 0; i < nmodel; i++)
		if (model[i].len == len && !memcmp(model[i].s, s, len))
			return (int)i;
	return -1;
}

static void
model_add(const char *s, u32 len)
{
	if (nmodel >= MAX_NAMES)
		__builtin_trap();
	model[nmodel].len = (u8)len;
	memcpy(model[nmodel].s, s, len);
	nmodel++;
}

static void
model_del(int i)
{
	model[i] = model[--nmodel];
}

static void
check(bool cond)
{
	if (!cond)
		__builtin_trap();
}

struct seen {
	u32	n;
	bool	bad;
};

static int
rd_fill(void *ctx, const char *name, u32 len, u32 ino, u8 dt, u64 cookie)
{
	struct seen *s = ctx;
	int i;

	(void)ino;
	(void)dt;
	(void)cookie;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	i = model_find(name, len);
	if (i < 0 || model[i].s[255] == 1)	/* unknown, or listed twice */
		s->bad = true;
	else
		model[i].s[255] = 1;
	s->n++;
	return 0;
}

static struct gaze_fs *
fresh_fs(struct gaze_dev *dev)
{
	struct gaze_mkfs_params p;
	struct gaze_attr a;
	struct gaze_fs *fs = NULL;

	memset(&p, 0, sizeof(p));
	p.geo.nr_blocks = dev->nr_blocks;
	p.geo.zone_blocks = dev->zone_blocks;
	p.geo.zone_cap = dev->zone_cap;
	p.geo.nr_zones = dev->nr_zones;
	p.geo.model = dev->model;
	gaze_fmt_feature_defaults(&p.feature_compat, &p.feature_ro_compat,
				  &p.feature_incompat);
	p.dirty_limit_pct = 20;
	p.uuid[0] = 1;
	p.dir_hash_seed[0] = 7;
	p.mkfs_time = 1700000000;
	memset(&a, 0, sizeof(a));
	a.mode = 040755;
	if (gaze_fs_format(dev, &p, &a, &fs))
		__builtin_trap();
	return fs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gaze_emu_opts eo;
	struct gaze_dev *dev = NULL;
	struct gaze_fs *fs;
	struct gaze_attr fa, da;
	struct seen sn;
	size_t pos = 0;
	u32 dir, ino, i, ops = 0;
	u64 rpos;
	u8 dt;
	int err;

	memset(&eo, 0, sizeof(eo));
	eo.nr_zones = 24;
	eo.zone_blocks = 256;
	if (gaze_emu_create(&eo, &dev))
		__builtin_trap();
	fs = fresh_fs(dev);
	memset(&fa, 0, sizeof(fa));
	fa.mode = 0100644;
	da = fa;
	da.mode = 040755;
	check(!gaze_ns_mknod(fs, GAZE_ROOT_INO, "d", 1, &da, &dir));
	nmodel = 0;

	/* the model holds MAX_NAMES: an input that fills it ends there */
	while (pos + 2 <= size && ops++ < MAX_OPS && nmodel < MAX_NAMES) {
		u8 op = data[pos] & 7;
		u32 len = data[pos + 1], len2 = 0;
		char name[256], name2[256];
		int k, k2;

		pos += 2;
		if (pos + len > size)
			len = (u32)(size - pos);
		memcpy(name, data + pos, len);
		pos += len;
		if (op == 3 && pos < size) {
			len2 = data[pos++];
			if (pos + len2 > size)
				len2 = (u32)(size - pos);
			memcpy(name2, data + pos, len2);
			pos += len2;
		}
		k = model_find(name, len);
		switch (op) {
		case 0:
		case 1:
			err = gaze_ns_mknod(fs, dir, name, len, op ? &da : &fa,
					    &ino);
			if (!name_valid(name, len))
				check(err < 0);
			else if (k >= 0)
				check(err == -EEXIST);
			else if (err != -ENOSPC) {
				check(err == 0);
				model_add(name, len);
			}
			break;
		case 2:
			err = gaze_ns_unlink(fs, dir, name, len);
			if (!name_valid(name, len))
				check(err < 0);
			else if (k < 0)
				check(err == -ENOENT);
			else {
				check(err == 0);
				model_del(k);
			}
			break;
		case 3:
			err = gaze_ns_rename(fs, dir, name, len, dir, name2,
					     len2, 0, NULL);
			k2 = model_find(name2, len2);
			if (!name_valid(name, len) || !name_valid(name2, len2)) {
				check(err < 0);
			} else if (k < 0) {
				check(err == -ENOENT);
			} else if (k2 >= 0) {
				/* types may differ: file over dir etc. */
				if (!err && k2 != k) {
					model_del(k);
				}
			} else if (err != -ENOSPC) {
				check(err == 0);
				model_del(k);
				model_add(name2, len2);
			}
			break;
		case 4:
			err = gaze_ns_lookup(fs, dir, name, len, &ino, &dt);
			if (len == 1 && name[0] == '.')
				check(!err && ino == dir);
			else if (len == 2 && name[0] == '.' && name[1] == '.')
				check(!err && ino == GAZE_ROOT_INO);
			else if (name_valid(name, len))
				check(k >= 0 ? err == 0 : err == -ENOENT);
			else
				check(err < 0);
			break;
		case 5:
			if (len == 0 || !name_valid(name, len) || len > 200)
				break;
			for (i = 0; i < 64 && nmodel < MAX_NAMES; i++) {
				char nm[256];
				u32 nl = len;

				memcpy(nm, name, len);
				nm[nl++] = '#';
				nm[nl++] = (char)('a' + i % 26);
				nm[nl++] = (char)('a' + i / 26);
				k = model_find(nm, nl);
				err = gaze_ns_mknod(fs, dir, nm, nl, &fa, &ino);
				if (k >= 0)
					check(err == -EEXIST);
				else if (err == -ENOSPC)
					break;
				else {
					check(err == 0);
					model_add(nm, nl);
				}
			}
			break;
		case 6:
			err = gaze_fs_sync(fs);
			check(!err || err == -ENOSPC);
			break;
		case 7:
			check(!gaze_fs_close(fs));
			fs = NULL;
			check(!gaze_fs_open(dev, 0, &fs));
			break;
		}
	}
	for (i = 0; i < nmodel; i++) {
		err = gaze_ns_lookup(fs, dir, model[i].s, model[i].len, &ino,
				     &dt);
		check(!err);
		model[i].s[255] = 0;	/* readdir mark; names are < 255 */
	}
	memset(&sn, 0, sizeof(sn));
	rpos = 0;
	check(!gaze_ns_readdir(fs, dir, &rpos, rd_fill, &sn));
	check(!sn.bad && sn.n == nmodel);
	fs->flags |= GAZE_FS_RDONLY;	/* nothing to write back */
	gaze_fs_close(fs);
	gaze_dev_close(dev);
	return 0;
}
