// SPDX-License-Identifier: GPL-2.0
/*
 * test_falloc.c - gaze_file_fallocate on an emulated zoned device:
 * allocate (preallocated blocks: counted, written in full on a full
 * filesystem, freed by truncate and punch, kept by zero range, across
 * close + open and roll-forward; size only checked without the
 * feature; KEEP_SIZE), PUNCH_HOLE (space freed,
 * partial blocks zeroed), ZERO_RANGE, COLLAPSE_RANGE and INSERT_RANGE
 * (holes kept, refused ranges), refused modes; then random writes,
 * punches, zero ranges, allocations, truncates, collapses and inserts
 * against an in-memory model, with inline and block-mapped files, checked again after close +
 * open.  TAP output; exit status 1 on any failure.
 *
 *   test_falloc [-s SEED]
 */
#define _GNU_SOURCE
#include "gaze_core.h"
#include "gaze_zdev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"

#define BS	GAZE_BLOCK_SIZE
#define KEEP	GAZE_FALLOC_KEEP_SIZE
#define PUNCH	GAZE_FALLOC_PUNCH_HOLE
#define ZERO	GAZE_FALLOC_ZERO_RANGE
#define COLLAPSE GAZE_FALLOC_COLLAPSE_RANGE
#define INSERT	GAZE_FALLOC_INSERT_RANGE
#define MODEL	(6u << 20)	/* model file bytes */

static u64 rng_state = 0x2545f4914f6cdd1dull;

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

static struct gaze_dev *
dev_geo(u32 zones, u32 zone_blocks, u32 zone_cap)
{
	struct gaze_emu_opts o;
	struct gaze_dev *d = NULL;

	memset(&o, 0, sizeof(o));
	o.nr_zones = zones;
	o.zone_blocks = zone_blocks;
	o.zone_cap = zone_cap;
	if (gaze_emu_create(&o, &d)) {
		printf("Bail out! gaze_emu_create failed\n");
		exit(1);
	}
	return d;
}

static struct gaze_dev *
dev_new(u32 zones)
{
	return dev_geo(zones, 1024, 0);
}

static const struct gaze_attr root_attr = { .mode = 040755 };

static struct gaze_fs *
fs_new_ro(struct gaze_dev *d, bool prealloc)
{
	struct gaze_mkfs_params p;
	struct gaze_fs *fs = NULL;

	memset(&p, 0, sizeof(p));
	p.geo.nr_blocks = d->nr_blocks;
	p.geo.zone_blocks = d->zone_blocks;
	p.geo.zone_cap = d->zone_cap;
	p.geo.nr_zones = d->nr_zones;
	p.geo.model = d->model;
	gaze_fmt_feature_defaults(&p.feature_compat, &p.feature_ro_compat,
				  &p.feature_incompat);
	if (!prealloc)
		p.feature_ro_compat &= ~GAZE_FEATURE_RO_COMPAT_PREALLOC;
	p.dirty_limit_pct = 20;
	p.uuid[0] = 0xfa;
	p.mkfs_time = 1700000000;
	strcpy(p.version, "gaze-test");
	if (gaze_fs_format(d, &p, &root_attr, &fs)) {
		printf("Bail out! gaze_fs_format failed\n");
		exit(1);
	}
	return fs;
}

static struct gaze_fs *
fs_new(struct gaze_dev *d)
{
	return fs_new_ro(d, true);
}

static u32
mkfile(struct gaze_fs *fs, const char *name)
{
	struct gaze_attr a;
	u32 ino = 0;

	memset(&a, 0, sizeof(a));
	a.mode = 0100644;
	if (gaze_ns_mknod(fs, GAZE_ROOT_INO, name, (u32)strlen(name), &a,
			  &ino))
		tap_diag("mknod %s failed", name);
	return ino;
}

static u64
blocks_of(struct gaze_fs *fs, u32 ino)
{
	struct gaze_attr a;

	return gaze_ns_getattr(fs, ino, &a) ? ~0ull : a.blocks;
}

static u64
size_of(struct gaze_fs *fs, u32 ino)
{
	struct gaze_attr a;

	return gaze_ns_getattr(fs, ino, &a) ? ~0ull : a.size;
}

/* whole file equals model[0, size) */
static bool
same(struct gaze_fs *fs, u32 ino, const u8 *model, u64 size)
{
	u8 *buf = malloc(size + 1);
	bool ok;

	ok = size_of(fs, ino) == size &&
	     gaze_file_read(fs, ino, buf, size + 1, 0) == (s64)size &&
	     !memcmp(buf, model, size);
	free(buf);
	return ok;
}

/* slots of blocks [0, n) holding GAZE_ADDR_PREALLOC */
static u64
prealloc_slots(struct gaze_fs *fs, u32 ino, u64 n)
{
	u64 i, addr, k = 0;

	for (i = 0; i < n; i++)
		if (!gaze_file_bmap(fs, ino, i, &addr) &&
		    addr == GAZE_ADDR_PREALLOC)
			k++;
	return k;
}

static u64
prealloc_count(struct gaze_fs *fs)
{
	return le64_to_cpu(fs->cp.prealloc_blocks);
}

/* writes 64-block pieces to a new file until the filesystem is full */
static u64
fill_up(struct gaze_fs *fs, const char *name, u8 *buf)
{
	u32 ino = mkfile(fs, name);
	u64 off = 0;
	s64 r;

	memset(buf, 0x5a, 64 * BS);
	for (;;) {
		r = gaze_file_write(fs, ino, buf, 64 * BS, off);
		if (r <= 0)
			break;
		off += (u64)r;
		if (r < 64 * BS)
			break;
	}
	return off / BS;
}

/*
 * fallocate reserves: a preallocated range reads as zeros, counts in
 * st_blocks and in the used space, and can be written in full after the
 * rest of the filesystem filled up; truncate, punch and overwrite give
 * the reservation back; the count survives close + open; without the
 * feature nothing is reserved.
 */
static void
test_prealloc(u32 zones, u32 zone_blocks, u32 zone_cap)
{
	struct gaze_dev *d = dev_geo(zones, zone_blocks, zone_cap);
	struct gaze_fs *fs = fs_new(d);
	u8 *buf = malloc(256 * BS), *zero = calloc(1, 256 * BS);
	u64 free0, free1, n, filled, b0;
	u32 ino = mkfile(fs, "pre"), ino2, i;
	s64 r;
	bool ok = true;

	tap_diag("preallocation on %u zones of %u blocks, capacity %u",
		 zones, zone_blocks, zone_cap ? zone_cap : zone_blocks);
	free0 = gaze_space_free_blocks(fs);
	n = free0 / 2;
	tap_ok(!gaze_file_fallocate(fs, ino, KEEP, 0, n * BS) &&
	       size_of(fs, ino) == 0,
	       "preallocate %llu blocks with KEEP_SIZE", (unsigned long long)n);
	free1 = gaze_space_free_blocks(fs);
	tap_ok(prealloc_count(fs) == n && prealloc_slots(fs, ino, n + 8) == n &&
	       blocks_of(fs, ino) >= n &&
	       blocks_of(fs, ino) <= n + n / GAZE_ADDRS_PER_DNODE + 4 &&
	       free1 <= free0 - n,
	       "they are counted: %llu slots, st_blocks %llu, free %llu -> %llu",
	       (unsigned long long)prealloc_count(fs),
	       (unsigned long long)blocks_of(fs, ino),
	       (unsigned long long)free0, (unsigned long long)free1);
	filled = fill_up(fs, "fill", buf);
	tap_ok(filled + n <= free0 && gaze_space_free_blocks(fs) < 64,
	       "another file fills the rest (%llu blocks), the free space is gone",
	       (unsigned long long)filled);
	tap_ok(gaze_file_fallocate(fs, ino, KEEP, n * BS, 64 * BS) == -ENOSPC,
	       "no more can be preallocated: -ENOSPC");
	for (i = 0; i < 256 * BS; i++)
		buf[i] = (u8)(i * 7 + 3);
	for (b0 = 0; b0 < n && ok; b0 += 256) {
		u64 k = n - b0 < 256 ? n - b0 : 256;

		r = gaze_file_write(fs, ino, buf, k * BS, b0 * BS);
		ok = r == (s64)(k * BS);
		if (!ok)
			tap_diag("write at block %llu: %lld",
				 (unsigned long long)b0, (long long)r);
	}
	tap_ok(ok && prealloc_count(fs) == 0 &&
	       prealloc_slots(fs, ino, n) == 0,
	       "the whole preallocated range is written on the full filesystem");
	tap_ok(gaze_file_read(fs, ino, zero, BS, 5 * BS) == BS &&
	       !memcmp(zero, buf + 5 * BS, BS), "and reads back");
	memset(zero, 0, 256 * BS);
	TAP_MUST(gaze_ns_unlink(fs, GAZE_ROOT_INO, "fill", 4));
	TAP_MUST(gaze_file_truncate(fs, ino, 0));
	tap_ok(gaze_space_free_blocks(fs) >= free0 - 8,
	       "after unlink and truncate the space is back");

	/* zero range keeps blocks allocated; punch frees them */
	free0 = gaze_space_free_blocks(fs);
	TAP_MUST(gaze_file_write(fs, ino, buf, 64 * BS, 0) != 64 * BS);
	b0 = blocks_of(fs, ino);
	tap_ok(!gaze_file_fallocate(fs, ino, ZERO | KEEP, 8 * BS, 16 * BS) &&
	       prealloc_count(fs) == 16 && blocks_of(fs, ino) == b0 &&
	       prealloc_slots(fs, ino, 64) == 16,
	       "zero range over data leaves 16 preallocated blocks");
	tap_ok(gaze_file_read(fs, ino, buf + 64 * BS, 16 * BS, 8 * BS) ==
	       16 * BS && !memcmp(buf + 64 * BS, zero, 16 * BS),
	       "which read as zeros");
	tap_ok(!gaze_file_fallocate(fs, ino, PUNCH | KEEP, 8 * BS, 8 * BS) &&
	       prealloc_count(fs) == 8, "a punch gives back half of them");

	/* past EOF: fiemap-style runs, then truncate to the same size */
	tap_ok(!gaze_file_fallocate(fs, ino, KEEP, 100 * BS, 20 * BS) &&
	       prealloc_count(fs) == 28 && size_of(fs, ino) == 64 * BS,
	       "20 more past EOF, the size kept");
	{
		u64 addr = 0;
		u32 nr = 0;

		tap_ok(!gaze_file_map(fs, ino, 100, 64, &addr, &nr) &&
		       addr == GAZE_MAP_UNWRITTEN && nr == 20,
		       "gaze_file_map: one unwritten run of 20 (got %#llx x %u)",
		       (unsigned long long)addr, nr);
		tap_ok(!gaze_file_map(fs, ino, 8, 64, &addr, &nr) &&
		       addr == GAZE_NULL_ADDR && nr == 8 &&
		       !gaze_file_map(fs, ino, 16, 64, &addr, &nr) &&
		       addr == GAZE_MAP_UNWRITTEN && nr == 8,
		       "a hole of 8 then an unwritten run of 8");
	}
	tap_ok(!gaze_file_truncate(fs, ino, 64 * BS) && prealloc_count(fs) == 8,
	       "truncate to the same size frees what lies past it");

	/* the count survives close + open; fsync'd changes roll forward */
	gaze_fs_close(fs);
	fs = NULL;
	tap_ok(!gaze_fs_open(d, 0, &fs) && prealloc_count(fs) == 8 &&
	       prealloc_slots(fs, ino, 64) == 8,
	       "after close + open: 8 preallocated blocks");
	ino2 = mkfile(fs, "rf");
	TAP_MUST(gaze_fs_sync(fs));
	TAP_MUST(gaze_file_fallocate(fs, ino2, 0, 0, 32 * BS));
	TAP_MUST(gaze_file_write(fs, ino, buf, 4 * BS, 16 * BS) != 4 * BS);
	free1 = gaze_space_free_blocks(fs);
	TAP_MUST(gaze_fs_fsync(fs));
	fs->flags |= GAZE_FS_RDONLY;	/* a crash: nothing more written */
	gaze_fs_close(fs);
	gaze_emu_power_cut(d, 7, 0);
	fs = NULL;
	tap_ok(!gaze_fs_open(d, 0, &fs) && prealloc_count(fs) == 36 &&
	       prealloc_slots(fs, ino2, 40) == 32 &&
	       gaze_space_free_blocks(fs) == free1,
	       "after fsync and a crash: %llu preallocated (36), free %llu (%llu)",
	       (unsigned long long)(fs ? prealloc_count(fs) : 0),
	       (unsigned long long)(fs ? gaze_space_free_blocks(fs) : 0),
	       (unsigned long long)free1);
	gaze_fs_close(fs);
	gaze_dev_close(d);

	/* without the feature nothing is reserved */
	d = dev_new(64);
	fs = fs_new_ro(d, false);
	ino = mkfile(fs, "old");
	free0 = gaze_space_free_blocks(fs);
	tap_ok(!gaze_file_fallocate(fs, ino, 0, 0, 100 * BS) &&
	       size_of(fs, ino) == 100 * BS && prealloc_count(fs) == 0 &&
	       gaze_space_free_blocks(fs) == free0 &&
	       gaze_file_fallocate(fs, ino, 0, 0, (free0 + 10) * BS) ==
	       -ENOSPC, "without ro_compat prealloc: the space is only checked");
	gaze_fs_close(fs);
	gaze_dev_close(d);
	free(buf);
	free(zero);
}

static void
test_basic(void)
{
	struct gaze_dev *d = dev_new(64);
	struct gaze_fs *fs = fs_new(d);
	u8 *buf = malloc(128 * BS), *model = calloc(1, 128 * BS);
	u64 free0, free1, b0;
	u32 ino = mkfile(fs, "f"), i;

	for (i = 0; i < 64 * BS; i++)
		model[i] = (u8)(i * 13 + (i >> 12) + 1);
	memcpy(buf, model, 64 * BS);
	tap_ok(gaze_file_write(fs, ino, buf, 64 * BS, 0) == 64 * BS,
	       "write 64 blocks");
	free0 = gaze_space_free_blocks(fs);
	b0 = blocks_of(fs, ino);

	/* punch [10.5, 20.25) blocks: 9 whole blocks freed */
	tap_ok(!gaze_file_fallocate(fs, ino, PUNCH | KEEP, 10 * BS + BS / 2,
				    9 * BS + BS / 2 + BS / 4),
	       "punch a hole with partial ends");
	memset(model + 10 * BS + BS / 2, 0, 9 * BS + BS / 2 + BS / 4);
	free1 = gaze_space_free_blocks(fs);
	tap_ok(same(fs, ino, model, 64 * BS), "the range reads zero, the rest intact");
	tap_ok(blocks_of(fs, ino) == b0 - 9 && free1 >= free0 + 9 - 2,
	       "9 blocks freed (blocks %llu -> %llu, free %llu -> %llu)",
	       (unsigned long long)b0, (unsigned long long)blocks_of(fs, ino),
	       (unsigned long long)free0, (unsigned long long)free1);
	tap_ok(size_of(fs, ino) == 64 * BS, "the size is kept");
	tap_ok(gaze_file_fallocate(fs, ino, PUNCH, 0, BS) == -EOPNOTSUPP,
	       "punch without KEEP_SIZE: -EOPNOTSUPP");
	tap_ok(gaze_file_fallocate(fs, ino, 0x40, 0, BS) == -EOPNOTSUPP,
	       "an unknown mode: -EOPNOTSUPP");
	tap_ok(gaze_file_fallocate(fs, ino, COLLAPSE, 100, BS) == -EINVAL &&
	       gaze_file_fallocate(fs, ino, INSERT, BS, 100) == -EINVAL &&
	       gaze_file_fallocate(fs, ino, COLLAPSE, 60 * BS, 4 * BS) ==
	       -EINVAL &&
	       gaze_file_fallocate(fs, ino, INSERT, 64 * BS, BS) == -EINVAL &&
	       gaze_file_fallocate(fs, ino, COLLAPSE | INSERT, 0, BS) ==
	       -EINVAL && gaze_file_fallocate(fs, ino, COLLAPSE | KEEP, 0,
					      BS) == -EINVAL &&
	       same(fs, ino, model, 64 * BS),
	       "collapse/insert: unaligned, reaching or past the EOF, combined with another mode: -EINVAL, nothing changed");
	b0 = blocks_of(fs, ino);
	tap_ok(!gaze_file_fallocate(fs, ino, INSERT, 8 * BS, 4 * BS) &&
	       size_of(fs, ino) == 68 * BS && blocks_of(fs, ino) == b0,
	       "insert 4 blocks at block 8: size 68 blocks, no block more (the new range and the moved holes are holes)");
	memmove(model + 12 * BS, model + 8 * BS, 56 * BS);
	memset(model + 8 * BS, 0, 4 * BS);
	tap_ok(same(fs, ino, model, 68 * BS), "reads back: the data moved up");
	tap_ok(!gaze_file_fallocate(fs, ino, COLLAPSE, 8 * BS, 4 * BS) &&
	       size_of(fs, ino) == 64 * BS && blocks_of(fs, ino) == b0,
	       "collapse them again: size and blocks as before");
	memmove(model + 8 * BS, model + 12 * BS, 56 * BS);
	memset(model + 64 * BS, 0, 4 * BS);
	tap_ok(same(fs, ino, model, 64 * BS), "reads back as before the insert");
	tap_ok(gaze_file_fallocate(fs, ino, 0, 0, 0) == -EINVAL,
	       "zero length: -EINVAL");
	tap_ok(gaze_file_fallocate(fs, GAZE_ROOT_INO, 0, 0, BS) == -EISDIR,
	       "a directory: -EISDIR");

	/* punch past EOF changes nothing */
	tap_ok(!gaze_file_fallocate(fs, ino, PUNCH | KEEP, 100 * BS, BS) &&
	       same(fs, ino, model, 64 * BS), "a punch past EOF: no-op");

	/* zero range inside one block, and extending the size */
	tap_ok(!gaze_file_fallocate(fs, ino, ZERO, 30 * BS + 100, 200),
	       "zero range inside a block");
	memset(model + 30 * BS + 100, 0, 200);
	tap_ok(same(fs, ino, model, 64 * BS), "reads back");
	tap_ok(!gaze_file_fallocate(fs, ino, ZERO, 62 * BS, 4 * BS) &&
	       size_of(fs, ino) == 66 * BS, "zero range past EOF grows the file");
	memset(model + 62 * BS, 0, 2 * BS);
	tap_ok(same(fs, ino, model, 66 * BS), "and reads zero there");
	tap_ok(!gaze_file_fallocate(fs, ino, ZERO | KEEP, 65 * BS, 4 * BS) &&
	       size_of(fs, ino) == 66 * BS, "ZERO_RANGE | KEEP_SIZE keeps it");

	/* allocate: size, KEEP_SIZE, ENOSPC */
	tap_ok(!gaze_file_fallocate(fs, ino, 0, 70 * BS, 10) &&
	       size_of(fs, ino) == 70 * BS + 10, "allocate extends the size");
	tap_ok(!gaze_file_fallocate(fs, ino, KEEP, 100 * BS, 10 * BS) &&
	       size_of(fs, ino) == 70 * BS + 10,
	       "allocate with KEEP_SIZE keeps it");
	tap_ok(!gaze_file_fallocate(fs, ino, 0, 0, 10 * BS) &&
	       size_of(fs, ino) == 70 * BS + 10,
	       "allocate inside the file changes nothing");
	tap_ok(gaze_file_fallocate(fs, ino, 0, 0,
				   (gaze_space_free_blocks(fs) + 200) * BS) ==
	       -ENOSPC && size_of(fs, ino) == 70 * BS + 10,
	       "allocating more than the free space: -ENOSPC, size kept");

	/* inline files */
	ino = mkfile(fs, "inl");
	memset(buf, 'i', 1000);
	TAP_MUST(gaze_file_write(fs, ino, buf, 1000, 0) != 1000);
	tap_ok(!gaze_file_fallocate(fs, ino, PUNCH | KEEP, 100, 50) &&
	       !gaze_file_fallocate(fs, ino, ZERO, 900, 10000) &&
	       size_of(fs, ino) == 10900, "inline file: punch, zero range");
	memset(model, 'i', 1000);
	memset(model + 100, 0, 50);
	memset(model + 900, 0, 10000);
	tap_ok(same(fs, ino, model, 10900), "inline file reads back");
	gaze_fs_close(fs);
	gaze_dev_close(d);
	free(buf);
	free(model);
}

static void
test_random(void)
{
	struct gaze_dev *d = dev_new(96);
	struct gaze_fs *fs = fs_new(d);
	u8 *model = calloc(1, MODEL), *buf = malloc(MODEL);
	u64 size = 0, off, len, end, k;
	u32 ino = mkfile(fs, "r"), op, bad = 0, ops = 3000;
	bool keep;
	int err;

	for (k = 0; k < ops && !bad; k++) {
		op = (u32)(rnd() % 8);
		off = rnd() % (MODEL - 1);
		len = 1 + rnd() % (rnd() % 4 ? 3 * BS : 300 * BS);
		if (off + len > MODEL)
			len = MODEL - off;
		end = off + len;
		switch (op) {
		case 0:
		case 1:
			for (u64 i = 0; i < len; i++)
				model[off + i] = (u8)rnd() | 1;
			memcpy(buf, model + off, len);
			if (gaze_file_write(fs, ino, buf, len, off) != (s64)len)
				bad++;
			if (end > size)
				size = end;
			break;
		case 2:
			err = gaze_file_fallocate(fs, ino, PUNCH | KEEP, off,
						  len);
			if (err)
				bad++;
			if (off < size)
				memset(model + off, 0,
				       (end < size ? end : size) - off);
			break;
		case 3:
			keep = rnd() % 2;
			err = gaze_file_fallocate(fs, ino,
						  ZERO | (keep ? KEEP : 0),
						  off, len);
			if (err)
				bad++;
			if (off < size)
				memset(model + off, 0,
				       (end < size ? end : size) - off);
			if (!keep && end > size)
				size = end;
			break;
		case 4:
			keep = rnd() % 2;
			err = gaze_file_fallocate(fs, ino, keep ? KEEP : 0,
						  off, len);
			if (err)
				bad++;
			if (!keep && end > size)
				size = end;
			break;
		case 5:
			if (rnd() % 3)
				break;
			if (gaze_file_truncate(fs, ino, off))
				bad++;
			if (off < size)
				memset(model + off, 0, size - off);
			size = off;
			break;
		case 6:		/* collapse: whole blocks, before the EOF */
			off &= ~(u64)(BS - 1);
			len = (len + BS - 1) & ~(u64)(BS - 1);
			err = gaze_file_fallocate(fs, ino, COLLAPSE, off, len);
			if (off + len >= size) {
				bad += err != -EINVAL;
				break;
			}
			if (err)
				bad++;
			memmove(model + off, model + off + len,
				size - off - len);
			memset(model + size - len, 0, len);
			size -= len;
			break;
		case 7:		/* insert: whole blocks, below the EOF */
			off &= ~(u64)(BS - 1);
			len = (len + BS - 1) & ~(u64)(BS - 1);
			if (size + len > MODEL)
				break;
			err = gaze_file_fallocate(fs, ino, INSERT, off, len);
			if (off >= size) {
				bad += err != -EINVAL;
				break;
			}
			if (err)
				bad++;
			memmove(model + off + len, model + off, size - off);
			memset(model + off, 0, len);
			size += len;
			break;
		}
		if (size_of(fs, ino) != size) {
			tap_diag("op %llu (%u at %llu+%llu): size %llu, model %llu",
				 (unsigned long long)k, op,
				 (unsigned long long)off,
				 (unsigned long long)len,
				 (unsigned long long)size_of(fs, ino),
				 (unsigned long long)size);
			bad++;
		}
		if (k % 250 == 0 && !same(fs, ino, model, size)) {
			tap_diag("content differs after op %llu",
				 (unsigned long long)k);
			bad++;
		}
	}
	tap_ok(!bad && same(fs, ino, model, size),
	       "%u random writes, punches, zero ranges, allocations, truncates, collapses and inserts match the model",
	       ops);
	k = prealloc_slots(fs, ino, MODEL / BS + 8);
	tap_ok(k == prealloc_count(fs),
	       "the preallocated count (%llu) is the file's slots (%llu)",
	       (unsigned long long)prealloc_count(fs), (unsigned long long)k);
	gaze_fs_close(fs);
	fs = NULL;
	tap_ok(!gaze_fs_open(d, 0, &fs) && same(fs, ino, model, size) &&
	       prealloc_count(fs) == k,
	       "and after close + open (size %llu)", (unsigned long long)size);
	gaze_fs_close(fs);
	gaze_dev_close(d);
	free(model);
	free(buf);
}

int
main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "s:")) != -1)
		if (c == 's')
			rng_state = strtoull(optarg, NULL, 0) | 1;
	tap_diag("seed 0x%llx", (unsigned long long)rng_state);
	test_basic();
	test_prealloc(64, 1024, 0);
	test_prealloc(16, 8192, 0);		/* few large zones */
	test_prealloc(24, 2048, 1536);		/* capacity < size */
	test_random();
	return tap_done();
}
