// SPDX-License-Identifier: GPL-2.0
/*
 * emu.c - a ZNS drive in memory (or in a sparse file) for tests.
 *
 * Why: crash consistency and GC can only be tested against a device that
 * is as strict as the real one and that can lose power on demand.  This
 * emulator applies the ZNS zone rules (zsm.c), counts operations, injects
 * I/O errors, and models a volatile write cache: flush marks what is
 * durable, gaze_emu_power_cut() throws away a pseudo-random part of the
 * rest (see gaze_zdev.h for the exact model).
 *
 * Memory: in RAM mode each zone's data is an anonymous MAP_NORESERVE
 * mapping made on the zone's first write and unmapped on reset, so only
 * written pages cost memory.  In file mode the data lives in the file at
 * its device offset and reset punches a hole.
 *
 * Locking: one mutex per device (emu.lock) protects all state below it
 * and is held for the whole of every operation, data copy included.  The
 * emulator is a correctness tool; a single lock keeps its state machine
 * obviously right and is cheap next to what the tests do.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zdev_int.h"

struct emu_zone {
	u8	*mem;		/* RAM mode: zone data, NULL reads as zeros */
	u32	durable;	/* sequential: write pointer at the last flush */
	u8	dirty;		/* listed in emu.dirty */
};

struct emu_undo {		/* conventional block written since the flush */
	u64	blk;
	u8	*old;		/* content at the last flush, NULL = zeros */
};

struct emu {
	struct gaze_zdev_priv base;	/* first: gaze_dev.priv points here */
	struct gaze_dev dev;
	int	fd;			/* backing file, -1 in RAM mode */
	size_t	zone_bytes;
	struct mutex lock;		/* protects everything below */
	struct gaze_zsm zsm;
	struct emu_zone *zones;
	u32	*dirty;			/* seq zones written since flush */
	u32	nr_dirty;
	struct emu_undo *undo;		/* conventional blocks, idem */
	size_t	nr_undo, undo_cap;
	u8	*undo_map;		/* bit per conventional block: in undo */
	struct gaze_emu_stats st;
	u64	fail_write, fail_read;	/* countdowns, 0 = off */
};

static const struct gaze_dev_ops emu_ops;
static const struct gaze_dev_ops emu_ops_noappend;

static struct emu *
emu_of(struct gaze_dev *d)
{
	if (WARN_ON(!d || (d->ops != &emu_ops && d->ops != &emu_ops_noappend)))
		return NULL;
	return d->priv;
}

/* Counts down a fault-injection counter; true when this call must fail. */
static bool
emu_fail(u64 *count)
{
	if (!*count)
		return false;
	return --*count == 0;
}

static u8 *
emu_zone_mem(struct emu *e, u32 zone)
{
	struct emu_zone *z = &e->zones[zone];
	void *p;

	if (z->mem)
		return z->mem;
	p = mmap(NULL, e->zone_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	z->mem = p;
	return z->mem;
}

static void
emu_zone_drop(struct emu *e, u32 zone)
{
	struct emu_zone *z = &e->zones[zone];

	if (z->mem)
		munmap(z->mem, e->zone_bytes);
	z->mem = NULL;
}

/* Reads nr blocks at block off of a zone, all below its data end. */
static int
emu_get(struct emu *e, u32 zone, u32 off, u32 nr, void *buf)
{
	size_t len = (size_t)nr * GAZE_ZDEV_BLOCK;
	u64 pos = ((u64)zone * e->dev.zone_blocks + off) * GAZE_ZDEV_BLOCK;
	u8 *mem = e->zones[zone].mem;

	if (e->fd >= 0)
		return gaze_zdev_pio(e->fd, false, buf, len, pos, false);
	if (mem)
		memcpy(buf, mem + (size_t)off * GAZE_ZDEV_BLOCK, len);
	else
		memset(buf, 0, len);
	return 0;
}

static int
emu_put(struct emu *e, u32 zone, u32 off, u32 nr, const void *buf)
{
	size_t len = (size_t)nr * GAZE_ZDEV_BLOCK;
	u64 pos = ((u64)zone * e->dev.zone_blocks + off) * GAZE_ZDEV_BLOCK;
	u8 *mem;

	if (e->fd >= 0)
		return gaze_zdev_pio(e->fd, true, (void *)buf, len, pos, false);
	mem = emu_zone_mem(e, zone);
	if (!mem)
		return -ENOMEM;
	memcpy(mem + (size_t)off * GAZE_ZDEV_BLOCK, buf, len);
	return 0;
}

static int
emu_undo_grow(struct emu *e)
{
	size_t cap = e->undo_cap ? e->undo_cap * 2 : 64;
	struct emu_undo *u;

	u = gaze_alloc(cap * sizeof(*u));
	if (!u)
		return -ENOMEM;
	if (e->nr_undo)
		memcpy(u, e->undo, e->nr_undo * sizeof(*u));
	gaze_free(e->undo);
	e->undo = u;
	e->undo_cap = cap;
	return 0;
}

/* Saves one conventional block's flushed content before its first write. */
static int
emu_undo_save(struct emu *e, u64 blk)
{
	u32 zone = blk / e->dev.zone_blocks;
	u32 off = blk % e->dev.zone_blocks;
	u8 *old = NULL;
	int ret;

	if (e->undo_map[blk / 8] & (1u << (blk % 8)))
		return 0;
	if (e->nr_undo == e->undo_cap) {
		ret = emu_undo_grow(e);
		if (ret)
			return ret;
	}
	if (e->fd >= 0 || e->zones[zone].mem) {
		old = gaze_alloc(GAZE_ZDEV_BLOCK);
		if (!old)
			return -ENOMEM;
		ret = emu_get(e, zone, off, 1, old);
		if (ret) {
			gaze_free(old);
			return ret;
		}
	}
	e->undo[e->nr_undo].blk = blk;
	e->undo[e->nr_undo].old = old;
	e->nr_undo++;
	e->undo_map[blk / 8] |= 1u << (blk % 8);
	return 0;
}

static void
emu_undo_clear(struct emu *e)
{
	size_t i;

	for (i = 0; i < e->nr_undo; i++) {
		u64 blk = e->undo[i].blk;

		e->undo_map[blk / 8] &= ~(1u << (blk % 8));
		gaze_free(e->undo[i].old);
	}
	e->nr_undo = 0;
}

/* Records that a zone holds writes the next power cut may drop. */
static int
emu_track(struct emu *e, u64 blk, u32 nr)
{
	u32 zone = blk / e->dev.zone_blocks;
	u32 i;
	int ret;

	if (zone >= e->dev.nr_conv) {
		if (!e->zones[zone].dirty) {
			e->zones[zone].dirty = 1;
			e->dirty[e->nr_dirty++] = zone;
		}
		return 0;
	}
	for (i = 0; i < nr; i++) {
		ret = emu_undo_save(e, blk + i);
		if (ret)
			return ret;
	}
	return 0;
}

/* Stores a checked write, zone piece by zone piece. */
static int
emu_store(struct emu *e, u64 blk, u32 nr, const u8 *buf)
{
	u32 zb = e->dev.zone_blocks;
	int ret;

	ret = emu_track(e, blk, nr);
	if (ret)
		return ret;
	while (nr) {
		u32 off = blk % zb;
		u32 n = min(nr, zb - off);

		ret = emu_put(e, blk / zb, off, n, buf);
		if (ret)
			return ret;
		blk += n;
		nr -= n;
		buf += (size_t)n * GAZE_ZDEV_BLOCK;
	}
	return 0;
}

/* Read of a checked range with the lock held; the caller counts it. */
static int
emu_read_locked(struct emu *e, u64 blk, u32 nr, u8 *p)
{
	u32 zb = e->dev.zone_blocks;
	int ret;

	while (nr) {
		u32 zone = blk / zb, off = blk % zb;
		u32 n = min(nr, zb - off);
		u32 valid = gaze_zsm_valid(&e->zsm, zone);
		u32 k = off < valid ? min(n, valid - off) : 0;

		ret = k ? emu_get(e, zone, off, k, p) : 0;
		if (ret)
			return ret;
		memset(p + (size_t)k * GAZE_ZDEV_BLOCK, 0,
		       (size_t)(n - k) * GAZE_ZDEV_BLOCK);
		blk += n;
		nr -= n;
		p += (size_t)n * GAZE_ZDEV_BLOCK;
	}
	return 0;
}

/*
 * The prologue of one vectored or plain request: takes e->lock (the
 * caller drops it), checks the range and counts down the fault injection
 * (*fail) once for the whole request.
 */
static int
emu_enter(struct emu *e, u64 blk, u32 nr, u64 *fail)
{
	int ret;

	mutex_lock(&e->lock);
	ret = gaze_zsm_range(&e->zsm, blk, nr);
	if (!ret && emu_fail(fail))
		ret = -EIO;
	return ret;
}

/*
 * Reads nr blocks from blk, into one buffer (bufs NULL) or one buffer
 * per block; one request for the statistics and the fault injection.
 */
static int
emu_read_common(struct emu *e, u64 blk, u32 nr, void *buf,
		void *const *bufs)
{
	u32 i;
	int ret;

	ret = emu_enter(e, blk, nr, &e->fail_read);
	if (ret)
		goto out_unlock;
	if (!bufs)
		ret = emu_read_locked(e, blk, nr, buf);
	for (i = 0; bufs && i < nr && !ret; i++)
		ret = emu_read_locked(e, blk + i, 1, bufs[i]);
	if (ret)
		goto out_unlock;
	e->st.reads++;
	e->st.blocks_read += nr;
out_unlock:
	mutex_unlock(&e->lock);
	return ret;
}

static int
emu_read(struct gaze_dev *d, u64 blk, u32 nr, void *buf)
{
	return emu_read_common(d->priv, blk, nr, buf, NULL);
}

static int
emu_readv(struct gaze_dev *d, u64 blk, u32 nr, void *const *bufs)
{
	return emu_read_common(d->priv, blk, nr, NULL, bufs);
}

/* Write at blk with the lock held; the caller counts it. */
static int
emu_write_locked(struct emu *e, u64 blk, u32 nr, const void *buf)
{
	int ret;

	if (emu_fail(&e->fail_write))
		return -EIO;
	if (!nr)
		return 0;
	ret = gaze_zsm_write_prep(&e->zsm, blk, nr);
	if (ret)
		return ret;
	ret = emu_store(e, blk, nr, buf);
	if (ret)
		return ret;
	gaze_zsm_write_done(&e->zsm, blk, nr);
	e->st.blocks_written += nr;
	return 0;
}

static int
emu_write(struct gaze_dev *d, u64 blk, u32 nr, const void *buf)
{
	struct emu *e = d->priv;
	int ret;

	mutex_lock(&e->lock);
	ret = gaze_zsm_range(&e->zsm, blk, nr);
	if (!ret)
		ret = emu_write_locked(e, blk, nr, buf);
	if (!ret)
		e->st.writes++;
	mutex_unlock(&e->lock);
	return ret;
}

/* one request: checked and failed as a whole, stored block by block */
static int
emu_writev(struct gaze_dev *d, u64 blk, u32 nr, void *const *bufs)
{
	struct emu *e = d->priv;
	u32 i;
	int ret;

	ret = emu_enter(e, blk, nr, &e->fail_write);
	if (ret)
		goto out_unlock;
	ret = nr ? gaze_zsm_write_prep(&e->zsm, blk, nr) : 0;
	for (i = 0; i < nr && !ret; i++)
		ret = emu_store(e, blk + i, 1, bufs[i]);
	if (ret)
		goto out_unlock;
	gaze_zsm_write_done(&e->zsm, blk, nr);
	e->st.blocks_written += nr;
	e->st.writes++;
out_unlock:
	mutex_unlock(&e->lock);
	return ret;
}

static int
emu_append(struct gaze_dev *d, u32 zone, u32 nr, const void *buf, u64 *blk)
{
	struct emu *e = d->priv;
	u64 at;
	int ret = -EINVAL;

	mutex_lock(&e->lock);
	if (zone >= d->nr_zones)
		goto out_unlock;
	ret = -EIO;
	if (e->zsm.zones[zone].type == GAZE_ZT_CONV)
		goto out_unlock;
	at = (u64)zone * d->zone_blocks + e->zsm.zones[zone].wp;
	ret = emu_write_locked(e, at, nr, buf);
	if (ret)
		goto out_unlock;
	e->st.appends++;
	*blk = at;
out_unlock:
	mutex_unlock(&e->lock);
	return ret;
}

static int
emu_report(struct gaze_dev *d, u32 zone, u32 nr, struct gaze_zone *z)
{
	struct emu *e = d->priv;
	u32 i;

	if (zone >= d->nr_zones)
		return -EINVAL;
	nr = min(nr, d->nr_zones - zone);
	mutex_lock(&e->lock);
	for (i = 0; i < nr; i++)
		gaze_zsm_report(&e->zsm, zone + i, &z[i]);
	mutex_unlock(&e->lock);
	return nr;
}

static int
emu_reset(struct gaze_dev *d, u32 zone, u32 nr)
{
	struct emu *e = d->priv;
	u32 i;

	if (zone >= d->nr_zones || nr > d->nr_zones - zone)
		return -EINVAL;
	if (zone < d->nr_conv && nr)
		return -EIO;		/* conventional zones have no wp */
	mutex_lock(&e->lock);
	for (i = zone; i < zone + nr; i++) {
		gaze_zsm_reset(&e->zsm, i);
		e->zones[i].durable = 0;
		emu_zone_drop(e, i);
	}
	if (e->fd >= 0 && nr)
		fallocate(e->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)zone * e->zone_bytes,
			  (off_t)nr * e->zone_bytes);	/* best effort */
	e->st.resets += nr;
	mutex_unlock(&e->lock);
	return 0;
}

static int
emu_finish(struct gaze_dev *d, u32 zone)
{
	struct emu *e = d->priv;
	int ret;

	if (zone >= d->nr_zones)
		return -EINVAL;
	mutex_lock(&e->lock);
	ret = gaze_zsm_finish(&e->zsm, zone);
	if (!ret)
		e->st.finishes++;
	mutex_unlock(&e->lock);
	return ret;
}

/* Everything written so far becomes durable.  Lock held. */
static void
emu_commit(struct emu *e)
{
	u32 i;

	for (i = 0; i < e->nr_dirty; i++) {
		struct emu_zone *z = &e->zones[e->dirty[i]];

		z->durable = e->zsm.zones[e->dirty[i]].wp;
		z->dirty = 0;
	}
	e->nr_dirty = 0;
	emu_undo_clear(e);
}

static int
emu_flush(struct gaze_dev *d)
{
	struct emu *e = d->priv;

	mutex_lock(&e->lock);
	emu_commit(e);
	e->st.flushes++;
	mutex_unlock(&e->lock);
	return 0;
}

static const struct gaze_dev_ops emu_ops = {
	.read	= emu_read,
	.write	= emu_write,
	.readv	= emu_readv,
	.writev	= emu_writev,
	.append	= emu_append,
	.report	= emu_report,
	.reset	= emu_reset,
	.finish	= emu_finish,
	.flush	= emu_flush,
};

static const struct gaze_dev_ops emu_ops_noappend = {
	.read	= emu_read,
	.write	= emu_write,
	.readv	= emu_readv,
	.writev	= emu_writev,
	.report	= emu_report,
	.reset	= emu_reset,
	.finish	= emu_finish,
	.flush	= emu_flush,
};

/* ---------------------------------------------------------------- */
/* Power cut                                                        */
/* ---------------------------------------------------------------- */

/* splitmix64 of (seed, salt): order-independent per-zone randomness */
static u64
emu_rand(u64 seed, u64 salt)
{
	u64 x = seed ^ (salt * 0x9e3779b97f4a7c15ull);

	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* How many of n unflushed blocks survive: uniform, mean n * pct / 100. */
static u64
emu_keep(u64 n, unsigned int pct, u64 r)
{
	u64 lo = 0, hi = n;

	if (pct >= 100 || !n)
		return n;
	if (!pct)
		return 0;
	if (pct <= 50)
		hi = n * pct * 2 / 100;
	else
		lo = n * (2 * pct - 100) / 100;
	return lo + r % (hi - lo + 1);
}

static u32
emu_cut_wp(struct emu *e, u32 zone, u64 seed, unsigned int pct)
{
	u32 wp = e->zsm.zones[zone].wp;
	u32 durable = e->zones[zone].durable;

	if (!e->zones[zone].dirty || wp <= durable)
		return wp;
	return durable + emu_keep(wp - durable, pct, emu_rand(seed, zone));
}

static void
emu_cut_conv(struct emu *e, u64 seed, unsigned int pct)
{
	size_t i;

	for (i = 0; i < e->nr_undo; i++) {
		struct emu_undo *u = &e->undo[i];
		u32 zone = u->blk / e->dev.zone_blocks;
		u32 off = u->blk % e->dev.zone_blocks;
		u8 zero[GAZE_ZDEV_BLOCK];

		if (emu_rand(seed, u->blk | (1ull << 63)) % 100 < pct)
			continue;
		if (!u->old) {
			memset(zero, 0, sizeof(zero));
			emu_put(e, zone, off, 1, zero);
		} else {
			emu_put(e, zone, off, 1, u->old);
		}
	}
}

void
gaze_emu_power_cut(struct gaze_dev *d, u64 seed, unsigned int keep_pct)
{
	struct emu *e = emu_of(d);
	u32 i, pass;

	if (!e)
		return;
	keep_pct = min(keep_pct, 100u);
	mutex_lock(&e->lock);
	/* non-FULL zones first, so FULL ones see the freed active slots */
	for (pass = 0; pass < 2; pass++) {
		for (i = d->nr_conv; i < d->nr_zones; i++) {
			bool full = e->zsm.zones[i].cond == GAZE_ZC_FULL;

			if (full == !pass)
				continue;
			gaze_zsm_cut(&e->zsm, i, emu_cut_wp(e, i, seed, keep_pct));
		}
	}
	emu_cut_conv(e, seed, keep_pct);
	emu_commit(e);
	mutex_unlock(&e->lock);
}

void
gaze_emu_stats(struct gaze_dev *d, struct gaze_emu_stats *s)
{
	struct emu *e = emu_of(d);

	if (!e)
		return;
	mutex_lock(&e->lock);
	*s = e->st;
	mutex_unlock(&e->lock);
}

void
gaze_emu_fail_after(struct gaze_dev *d, u64 nth_write, u64 nth_read)
{
	struct emu *e = emu_of(d);

	if (!e)
		return;
	mutex_lock(&e->lock);
	e->fail_write = nth_write;
	e->fail_read = nth_read;
	mutex_unlock(&e->lock);
}

/* ---------------------------------------------------------------- */
/* Create / destroy                                                 */
/* ---------------------------------------------------------------- */

static void
emu_destroy(struct gaze_dev *d)
{
	struct emu *e = d->priv;
	u32 i;

	for (i = 0; i < d->nr_zones; i++)
		emu_zone_drop(e, i);
	emu_undo_clear(e);
	if (e->fd >= 0)
		close(e->fd);
	gaze_free(e->undo);
	gaze_free(e->undo_map);
	gaze_free(e->dirty);
	gaze_free(e->zones);
	gaze_zsm_destroy(&e->zsm);
	mutex_destroy(&e->lock);
	gaze_free(e);
}

static int
emu_check_opts(const struct gaze_emu_opts *o)
{
	if (!o->nr_zones || !o->zone_blocks || o->zone_cap > o->zone_blocks ||
	    o->nr_conv > o->nr_zones)
		return -EINVAL;
	if ((u64)o->zone_blocks * GAZE_ZDEV_BLOCK > SIZE_MAX / 2)
		return -EINVAL;
	if (o->max_open && o->max_active && o->max_open > o->max_active)
		return -EINVAL;
	return 0;
}

/* Opens (creating or extending it sparse) the backing file. */
static int
emu_open_backing(struct emu *e, const char *path, u64 bytes)
{
	struct stat st;
	int ret;

	e->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (e->fd < 0)
		return -errno;
	if (fstat(e->fd, &st) < 0)
		goto out_errno;
	if ((u64)st.st_size < bytes && ftruncate(e->fd, (off_t)bytes) < 0)
		goto out_errno;
	return 0;
out_errno:
	ret = -errno;
	close(e->fd);
	e->fd = -1;
	return ret;
}

static void
emu_init_dev(struct emu *e, const struct gaze_emu_opts *o, u32 cap)
{
	struct gaze_dev *d = &e->dev;

	e->base.destroy = emu_destroy;
	d->ops = o->no_append ? &emu_ops_noappend : &emu_ops;
	d->nr_blocks = (u64)o->nr_zones * o->zone_blocks;
	d->zone_blocks = o->zone_blocks;
	d->zone_cap = o->nr_conv < o->nr_zones ? cap : o->zone_blocks;
	d->nr_zones = o->nr_zones;
	d->nr_conv = o->nr_conv;
	d->max_open = o->max_open;
	d->max_active = o->max_active;
	d->model = GAZE_ZM_HOST_MANAGED;
	d->lbs = GAZE_ZDEV_BLOCK;
	d->priv = e;
}

int
gaze_emu_create(const struct gaze_emu_opts *o, struct gaze_dev **out)
{
	u32 cap = o->zone_cap ? o->zone_cap : o->zone_blocks;
	u64 conv_blocks = (u64)o->nr_conv * o->zone_blocks;
	struct emu *e;
	int ret;

	ret = emu_check_opts(o);
	if (ret)
		return ret;
	e = gaze_zalloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->fd = -1;
	e->zone_bytes = (size_t)o->zone_blocks * GAZE_ZDEV_BLOCK;
	ret = gaze_zsm_init(&e->zsm, o->nr_zones, o->zone_blocks, cap,
			    o->nr_conv, o->max_open, o->max_active);
	if (ret)
		goto out_free;
	ret = -ENOMEM;
	e->zones = gaze_zalloc(sizeof(*e->zones) * (size_t)o->nr_zones);
	e->dirty = gaze_zalloc(sizeof(*e->dirty) * (size_t)o->nr_zones);
	e->undo_map = gaze_zalloc(conv_blocks / 8 + 1);
	if (!e->zones || !e->dirty || !e->undo_map)
		goto out_arrays;
	if (o->backing) {
		ret = emu_open_backing(e, o->backing,
				       (u64)o->nr_zones * e->zone_bytes);
		if (ret)
			goto out_arrays;
	}
	mutex_init(&e->lock);
	emu_init_dev(e, o, cap);
	*out = &e->dev;
	return 0;
out_arrays:
	gaze_free(e->undo_map);
	gaze_free(e->dirty);
	gaze_free(e->zones);
	gaze_zsm_destroy(&e->zsm);
out_free:
	gaze_free(e);
	return ret;
}
