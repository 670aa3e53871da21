// SPDX-License-Identifier: GPL-2.0
/*
 * test_gcpipe.c - unit tests of the staged GC (gcpipe.c) on the ZNS
 * emulator.
 *
 * Why: the stages run with fs->lock released between them, so anything
 * can happen to a block between the scan that found it and the write
 * that moves it.  The rules under test:
 *  - a zone collected in stages ends PREFREE with every file intact,
 *    after a reopen too;
 *  - a block overwritten, punched, truncated or deleted between any two
 *    stages is never brought back (checked after every stage boundary);
 *  - the victim stays pinned: emptied by users meanwhile, it does not
 *    become FREE (and reusable) until the job ends;
 *  - directory blocks move, cached ones included, and lookups still work;
 *  - a read error fails the job without losing anything;
 *  - the write stage's copies, written without fs->lock, are committed
 *    by a checkpoint taken before the stage's end: a power cut right
 *    after it loses nothing and leaves nothing for fsck;
 *  - preread and prewrite read the blocks they do not find cached
 *    without fs->lock and go on where they stopped; an owner node that
 *    moved between the miss and the retry is read again from its new
 *    place, never taken from the old one;
 *  - the four stages on their own threads with bounded queues, while
 *    another thread overwrites and truncates files, keep every file
 *    equal to its model (run under TSan by the sanitizer builds).
 * Deterministic where it can be; nothing is timed.  TAP on stdout.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gaze_core.h"
#include "gaze_zdev.h"
#include "../tap.h"

#include "fixture.h"
#include "fixture_fsck.h"

static int
settle(struct gaze_fs *fs)
{
	int r;

	mutex_lock(&fs->lock);
	r = gaze_gc_settle(fs);
	mutex_unlock(&fs->lock);
	return r;
}

static u64
file_size(struct gaze_fs *fs, u32 ino)
{
	struct gaze_attr a;

	memset(&a, 0, sizeof(a));
	if (gaze_ns_getattr(fs, ino, &a))
		return ~0ull;
	return a.size;
}

/* ---------------------------------------------------------------- */
/* A zone in stages                                                  */
/* ---------------------------------------------------------------- */

static void
test_basic(void)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	u32 ino, ino2, z, v, victim = 0, bad = 0;
	u64 moved;

	bad += !!create(fs, GAZE_ROOT_INO, "a", 0100644, &ino);
	bad += !!create(fs, GAZE_ROOT_INO, "b", 0100644, &ino2);
	bad += !!put(fs, ino, 1, 1, 0, ZB);
	bad += !!put(fs, ino2, 2, 1, 0, ZB);
	z = zone_of(fs, ino, 0);
	TAP_MUST(gaze_file_truncate(fs, ino, (u64)ZB * 2 / 5 * BS));	/* 40% valid */
	bad += zone_state(fs, z, &v) != GAZE_ZS_FULL;
	tap_ok(!bad && v == ZB * 2 / 5, "zone %u holds %u valid blocks (40%%)",
	       z, v);
	moved = fs->gc.data_moved;
	tap_ok(!pipe_zone(fs, GAZE_GC_USER, z, NULL, NULL, &victim) && victim == z,
	       "a job on zone %u runs its four stages", z);
	tap_ok(zone_state(fs, z, &v) == GAZE_ZS_PREFREE && !v,
	       "the zone ends PREFREE, nothing valid");
	tap_ok(fs->gc.data_moved - moved == ZB * 2 / 5,
	       "%llu blocks moved", (unsigned long long)(fs->gc.data_moved -
							 moved));
	tap_ok(!check_range(fs, ino, 1, 1, 0, ZB * 2 / 5) &&
	       !check_range(fs, ino2, 2, 1, 0, ZB), "every block reads back");
	fs = reopen(fs);
	tap_ok(!check_range(fs, ino, 1, 1, 0, ZB * 2 / 5) &&
	       !check_range(fs, ino2, 2, 1, 0, ZB), "... after a reopen too");
	tap_ok(!settle(fs) && zone_state(fs, z, NULL) == GAZE_ZS_FREE,
	       "two checkpoints later the zone is FREE");
	mutex_lock(&fs->lock);
	tap_ok(gaze_gcp_begin(fs, z, GAZE_GC_USER,
			      &(struct gaze_gcp_job){ 0 }) == -EINVAL &&
	       fs->gcp_zone[0] == GAZE_GCP_NONE,
	       "a FREE zone is refused, nothing pinned");
	mutex_unlock(&fs->lock);
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* Races at every stage boundary                                      */
/* ---------------------------------------------------------------- */

struct race {
	int	at;		/* the stage boundary to act at */
	bool	done;
	u32	a, b;		/* inodes: a fills the zone, b shares one */
	int	err;
};

/*
 * At boundary r->at of the first batch: overwrite a's blocks 0-3, punch
 * 5-6, truncate a to 200 blocks, unlink b (whose blocks are later in the
 * zone), and overwrite block 70 (in the second batch).
 */
static void
race_hook(struct gaze_fs *fs, int stage, void *arg)
{
	struct race *r = arg;
	int e = 0;

	if (stage != r->at || r->done)
		return;
	r->done = true;
	e = e ? e : put(fs, r->a, 1, 2, 0, 4);
	e = e ? e : gaze_file_fallocate(fs, r->a, GAZE_FALLOC_PUNCH_HOLE |
					GAZE_FALLOC_KEEP_SIZE, 5 * BS, 2 * BS);
	e = e ? e : put(fs, r->a, 1, 2, 70, 1);
	e = e ? e : gaze_file_truncate(fs, r->a, 120ull * BS);
	e = e ? e : gaze_ns_unlink(fs, GAZE_ROOT_INO, "b", 1);
	r->err = e;
}

static void
test_race(int at)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	struct race r = { .at = at };
	u32 z, zb, v, ino, bad = 0;
	int ret;

	bad += !!create(fs, GAZE_ROOT_INO, "a", 0100644, &r.a);
	bad += !!create(fs, GAZE_ROOT_INO, "b", 0100644, &r.b);
	bad += !!put(fs, r.a, 1, 1, 0, ZB * 3 / 4);
	bad += !!put(fs, r.b, 2, 1, 0, ZB / 4);
	bad += !!create(fs, GAZE_ROOT_INO, "c", 0100644, &ino);
	bad += !!put(fs, ino, 3, 1, 0, ZB);		/* closes the zone */
	z = zone_of(fs, r.a, 0);
	zb = zone_of(fs, r.b, 0);
	ret = pipe_zone(fs, GAZE_GC_USER, z, race_hook, &r, NULL);
	tap_ok(!bad && z == zb && r.done && !r.err && !ret,
	       "stage boundary %d: overwrite, punch, truncate, unlink during the job (%d, %d)",
	       at, r.err, ret);
	tap_ok(zone_state(fs, z, &v) == GAZE_ZS_PREFREE && !v,
	       "... the zone still ends empty");
	bad = check_range(fs, r.a, 1, 2, 0, 4) +
	      check_range(fs, r.a, 1, 1, 4, 1) +
	      check_range(fs, r.a, 1, 0, 5, 2) +
	      check_range(fs, r.a, 1, 1, 7, 63) +
	      check_range(fs, r.a, 1, 2, 70, 1) +
	      check_range(fs, r.a, 1, 1, 71, 49);
	tap_ok(!bad && file_size(fs, r.a) == 120ull * BS &&
	       gaze_ns_lookup(fs, GAZE_ROOT_INO, "b", 1, &ino, NULL) == -ENOENT,
	       "... no overwritten, punched, truncated or deleted block came back");
	fs = reopen(fs);
	bad = check_range(fs, r.a, 1, 2, 0, 4) +
	      check_range(fs, r.a, 1, 0, 5, 2) +
	      check_range(fs, r.a, 1, 2, 70, 1) +
	      check_range(fs, r.a, 1, 1, 71, 49);
	/* a owns exactly its 118 blocks: none came back to it */
	{
		struct gaze_attr at;

		memset(&at, 0, sizeof(at));
		bad += !!gaze_ns_getattr(fs, r.a, &at);
		v = (u32)at.blocks;
	}
	tap_ok(!bad && v == 118, "... and after a reopen (a owns %u blocks)",
	       v);
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* Copies in flight: the write stage's device write without the lock  */
/* ---------------------------------------------------------------- */

struct inflight {
	bool	done, pending, busy, settled;
	u32	a;
	u64	cold;	/* a copy's zone: the data log's head */
	int	err;
};

/*
 * Between the first batch's device write and its commit: the move is
 * pending and its zone busy; overwrite a's block 1, then a checkpoint,
 * which must commit the move first.
 */
static void
inflight_hook(struct gaze_fs *fs, int stage, void *arg)
{
	struct inflight *r = arg;
	int e;

	if (stage != 4 || r->done)
		return;
	r->done = true;
	mutex_lock(&fs->lock);
	r->pending = fs->gcw != NULL;
	r->busy = gaze_gcp_zone_busy(fs, (u32)r->cold);
	mutex_unlock(&fs->lock);
	e = put(fs, r->a, 1, 2, 1, 1);
	e = e ? e : gaze_fs_sync(fs);
	mutex_lock(&fs->lock);
	r->settled = fs->gcw == NULL;
	mutex_unlock(&fs->lock);
	r->err = e;
}

static void
test_inflight(void)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	struct inflight r = { 0 };
	u32 z, ino, bad = 0;
	int ret;

	bad += !!create(fs, GAZE_ROOT_INO, "a", 0100644, &r.a);
	bad += !!put(fs, r.a, 1, 1, 0, ZB);
	bad += !!create(fs, GAZE_ROOT_INO, "c", 0100644, &ino);
	bad += !!put(fs, ino, 3, 1, 0, 8);	/* the next zone: the head */
	z = zone_of(fs, r.a, 0);
	r.cold = zone_of(fs, ino, 0);
	bad += !!gaze_file_truncate(fs, r.a, (u64)ZB / 2 * BS);
	ret = pipe_zone(fs, GAZE_GC_USER, z, inflight_hook, &r, NULL);
	tap_ok(!bad && !ret && r.done && !r.err,
	       "a job whose copies were in flight across a checkpoint (%d, %d)",
	       r.err, ret);
	tap_ok(r.pending && r.busy,
	       "... between their write and their commit the move is pending and its zone busy");
	tap_ok(r.settled, "... the checkpoint committed it");
	bad = check_range(fs, r.a, 1, 1, 0, 1) +
	      check_range(fs, r.a, 1, 2, 1, 1) +
	      check_range(fs, r.a, 1, 1, 2, ZB / 2 - 2) +
	      check_range(fs, ino, 3, 1, 0, 8);
	tap_ok(!bad, "... every block reads as last written, the overwrite too");
	crash(fs);		/* back to that checkpoint */
	tap_ok(!fsck_problems_on(d),
	       "... a power cut after that checkpoint: fsck finds nothing (no copy owned by nobody)");
	fs = NULL;
	if (gaze_fs_open(d, 0, &fs)) {
		printf("Bail out! open after the power cut\n");
		exit(1);
	}
	bad = check_range(fs, r.a, 1, 1, 0, 1) +
	      check_range(fs, r.a, 1, 2, 1, 1) +
	      check_range(fs, r.a, 1, 1, 2, ZB / 2 - 2);
	tap_ok(!bad, "... and a's blocks read right after it");
	gaze_fs_close(fs);
	tap_ok(!fsck_problems_on(d), "... clean after the reopen too");
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* The victim is pinned                                              */
/* ---------------------------------------------------------------- */

/*
 * A victim valid in short runs: the read stage joins runs up to
 * GAZE_GCP_GAP blocks apart into one request through the scratch block,
 * and a longer gap starts a new request; every block copied is the one
 * that was valid, never a gap block.
 */
static bool
gap_gone(u32 i)
{
	/* two of three blocks stay; 40 in a row go (a gap too long) */
	return i % 3 == 1 || (i >= ZB / 2 && i < ZB / 2 + 40);
}

static void
test_gaps(void)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	u32 ino, ino2, z, v, i, prev = 0, want = 0, bad = 0;
	u64 moved, gaps, expect = 0;

	bad += !!create(fs, GAZE_ROOT_INO, "a", 0100644, &ino);
	bad += !!create(fs, GAZE_ROOT_INO, "b", 0100644, &ino2);
	bad += !!put(fs, ino, 1, 1, 0, ZB);
	bad += !!put(fs, ino2, 2, 1, 0, ZB);
	z = zone_of(fs, ino, 0);
	for (i = 0; i < ZB; i++) {
		if (gap_gone(i)) {
			bad += !!put(fs, ino, 1, 2, i, 1);
			continue;
		}
		/* a gap inside a batch of GAZE_GCP_BATCH valid blocks,
		 * short enough, is read (the spans stay below the limit) */
		if (want % GAZE_GCP_BATCH && i - prev - 1 <= GAZE_GCP_GAP)
			expect += i - prev - 1;
		prev = i;
		want++;
	}
	bad += zone_state(fs, z, &v) != GAZE_ZS_FULL;
	tap_ok(!bad && v == want, "zone %u holds %u valid blocks in short runs",
	       z, v);
	moved = fs->gc.data_moved;
	gaps = gap_total;
	tap_ok(!pipe_zone(fs, GAZE_GC_USER, z, NULL, NULL, NULL) &&
	       zone_state(fs, z, &v) == GAZE_ZS_PREFREE && !v &&
	       fs->gc.data_moved - moved == want,
	       "the job moved the %u valid blocks", want);
	/* every one-block gap was read; the 40-block one was not */
	tap_ok(gap_total - gaps == expect && expect > ZB / 4,
	       "%llu gap blocks read to join the runs (%llu expected)",
	       (unsigned long long)(gap_total - gaps),
	       (unsigned long long)expect);
	for (i = 0; i < ZB && !bad; i++)
		bad += !!check_range(fs, ino, 1, gap_gone(i) ? 2 : 1, i, 1);
	tap_ok(!bad && !check_range(fs, ino2, 2, 1, 0, ZB),
	       "every block reads back");
	fs = reopen(fs);
	for (i = 0; i < ZB && !bad; i++)
		bad += !!check_range(fs, ino, 1, gap_gone(i) ? 2 : 1, i, 1);
	tap_ok(!bad, "... after a reopen too");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

static void
test_pin(void)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	u32 st[3] = { 0 }, z, v, ino2, bad = 0;
	u64 moved;

	bad += !!create(fs, GAZE_ROOT_INO, "a", 0100644, &st[0]);
	bad += !!put(fs, st[0], 1, 1, 0, ZB);
	bad += !!create(fs, GAZE_ROOT_INO, "b", 0100644, &ino2);
	bad += !!put(fs, ino2, 2, 1, 0, 8);
	z = zone_of(fs, st[0], 0);
	/* make it a victim: one block invalid */
	bad += !!put(fs, st[0], 1, 1, ZB - 1, 1);
	moved = fs->gc.data_moved;
	mutex_lock(&fs->lock);
	{
		struct gaze_gcp_job job;
		struct gaze_gcp_batch *b = calloc(1, sizeof(*b));

		bad += !!gaze_gcp_begin(fs, z, GAZE_GC_USER, &job);
		tap_ok(gaze_gcp_zone_busy(fs, z) &&
		       gaze_gcp_gain(fs) == 1 &&
		       gaze_gc_zone(fs, z) == -EBUSY,
		       "a pinned zone counts its gain and the baseline GC keeps off it");
		bad += !!gaze_gcp_preread(fs, &job, b, GAZE_GCP_BATCH);
		mutex_unlock(&fs->lock);
		/* users empty the victim; checkpoints pass */
		bad += !!put(fs, st[0], 1, 2, 0, ZB);
		bad += !!settle(fs);
		bad += !!settle(fs);
		tap_ok(!bad && zone_state(fs, z, &v) == GAZE_ZS_PREFREE && !v,
		       "emptied by users, the pinned zone stays PREFREE across checkpoints");
		for (v = 0; v < b->nr; v++)
			b->ent[v].buf = malloc(BS);
		gaze_gcp_read(fs, b);
		mutex_lock(&fs->lock);
		bad += !!gaze_gcp_prewrite(fs, b);
		bad += !!gaze_gcp_write(fs, b);
		for (v = 0; v < b->nr; v++)
			free(b->ent[v].buf);
		bad += !!gaze_gcp_end(fs, &job);
		free(b);
	}
	mutex_unlock(&fs->lock);
	tap_ok(!bad && fs->gc.data_moved == moved && !gaze_gcp_zone_busy(fs, z),
	       "the job moved nothing stale and unpinned the zone");
	tap_ok(!settle(fs) && zone_state(fs, z, NULL) == GAZE_ZS_FREE &&
	       !check_range(fs, st[0], 1, 2, 0, ZB),
	       "then it becomes FREE; the file has its latest data");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* Directory blocks, a read error                                    */
/* ---------------------------------------------------------------- */

/* collects every FULL zone with invalid blocks in stages; count */
static int
pipe_all(struct gaze_fs *fs, hook_fn hook, void *arg, u32 *n)
{
	int ret = 0;

	*n = 0;
	while (*n < 64) {
		ret = pipe_zone(fs, GAZE_GC_USER, GAZE_GCP_ANY, hook, arg, NULL);
		if (ret)
			break;
		(*n)++;
	}
	/* no victim left, or no room left to move one: done */
	return ret == -ENOENT || ret == -ENOSPC ? 0 : ret;
}

static void
dir_hook(struct gaze_fs *fs, int stage, void *arg)
{
	u32 *n = arg, ino;
	char name[32];

	if (stage != 2 || *n >= 40)
		return;
	/* new entries dirty cached directory blocks mid-job */
	snprintf(name, sizeof(name), "late-%u", (*n)++);
	create(fs, n[1], name, 0100644, &ino);
}

static void
test_dir(void)
{
	struct gaze_dev *d = mkdev(32);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	u32 dir, ino, i, n = 0, bad = 0, st[2];
	char name[32];

	bad += !!create(fs, GAZE_ROOT_INO, "d", 040755, &dir);
	for (i = 0; i < 3000 && !bad; i++) {
		snprintf(name, sizeof(name), "entry-with-a-long-name-%u", i);
		bad += !!create(fs, dir, name, 0100644, &ino);
		if (i % 3 == 0)
			bad += !!put(fs, ino, i, 1, 0, 1);
	}
	for (i = 0; i < 3000 && !bad; i += 2) {
		snprintf(name, sizeof(name), "entry-with-a-long-name-%u", i);
		bad += !!gaze_ns_unlink(fs, dir, name, (u32)strlen(name));
	}
	fs = reopen(fs);		/* nothing cached */
	st[0] = 0;
	st[1] = dir;
	bad += !!pipe_all(fs, dir_hook, st, &n);
	for (i = 1; i < 3000 && !bad; i += 2) {
		snprintf(name, sizeof(name), "entry-with-a-long-name-%u", i);
		if (gaze_ns_lookup(fs, dir, name, (u32)strlen(name), &ino, NULL))
			bad++;
		else if (i % 3 == 0)
			bad += check_range(fs, ino, i, 1, 0, 1);
	}
	for (i = 0; i < st[0] && !bad; i++) {
		snprintf(name, sizeof(name), "late-%u", i);
		bad += !!gaze_ns_lookup(fs, dir, name, (u32)strlen(name),
					&ino, NULL);
	}
	tap_ok(!bad && n > 0, "%u zones with directory blocks collected in stages, %u late entries; every name found",
	       n, st[0]);
	fs = reopen(fs);
	for (i = 1; i < 3000 && !bad; i += 2) {
		snprintf(name, sizeof(name), "entry-with-a-long-name-%u", i);
		bad += !!gaze_ns_lookup(fs, dir, name, (u32)strlen(name),
					&ino, NULL);
	}
	tap_ok(!bad, "... after a reopen too");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* Cold blocks read without fs->lock                                 */
/* ---------------------------------------------------------------- */

#define NCOLD	16

/* a checkpoint, then every clean buffer out of the cache */
static int
cold_cache(struct gaze_fs *fs)
{
	int r;

	mutex_lock(&fs->lock);
	r = gaze_cp_write(fs, 0);
	gaze_cache_trim(fs, ~0ull);
	mutex_unlock(&fs->lock);
	return r;
}

/* one try of prewrite after another, fetching table misses, until it
 * names a node or ends; fs->lock not held */
static int
cold_try_to_node(struct gaze_fs *fs, struct gaze_gcp_batch *b,
		 struct gaze_miss *m)
{
	int ret;

	for (;;) {
		mutex_lock(&fs->lock);
		fs->miss = m;
		ret = gaze_gcp_prewrite(fs, b);
		fs->miss = NULL;
		mutex_unlock(&fs->lock);
		if (ret != -GAZE_EMISS || m->want.type == GAZE_MB_NODE)
			return ret;
		gaze_miss_fetch(fs, m, ret);
	}
}

static void
test_cold(void)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	struct gaze_gcp_batch *b = calloc(1, sizeof(*b));
	u8 *pages = malloc((size_t)GAZE_GCP_BATCH * BS);
	u32 ino[NCOLD], f, r, z, v = 0, moved = 0, bad = 0;
	struct gaze_miss_key named;
	struct gaze_gcp_job job;
	struct gaze_miss m;
	u64 cold0, cold1;
	int ret;
	char name[8];

	/* 16 files' blocks interleaved, then every other one overwritten:
	 * a victim half valid whose blocks have 16 owners */
	for (f = 0; f < NCOLD; f++) {
		snprintf(name, sizeof(name), "c%u", f);
		bad += !!create(fs, GAZE_ROOT_INO, name, 0100644, &ino[f]);
	}
	for (r = 0; r < 32; r++)
		for (f = 0; f < NCOLD; f++)
			bad += !!put(fs, ino[f], f + 1, 1, r, 1);
	for (r = 0; r < 32; r += 2)
		for (f = 0; f < NCOLD; f++)
			bad += !!put(fs, ino[f], f + 1, 2, r, 1);
	z = zone_of(fs, ino[0], 17);
	bad += !!cold_cache(fs);
	bad += zone_state(fs, z, &v) != GAZE_ZS_FULL;
	tap_ok(!bad && v >= ZB / 4,
	       "cold: zone %u holds %u valid blocks of %u files, nothing cached",
	       z, v, NCOLD);

	cold0 = fs->stat[GAZE_STAT_GC_COLD];
	mutex_lock(&fs->lock);
	ret = gaze_gcp_begin(fs, z, GAZE_GC_USER, &job);
	if (!ret)
		ret = gaze_gcp_preread_unlocked(fs, &job, b, GAZE_GCP_BATCH);
	mutex_unlock(&fs->lock);
	cold1 = fs->stat[GAZE_STAT_GC_COLD];
	tap_ok(!ret && b->nr == GAZE_GCP_BATCH && !b->pr_more &&
	       cold1 > cold0,
	       "preread's table blocks were read without fs->lock (%llu misses)",
	       (unsigned long long)(cold1 - cold0));
	for (r = 0; r < b->nr; r++)
		b->ent[r].buf = pages + (size_t)r * BS;
	gaze_gcp_read(fs, b);

	gaze_miss_init(&m);
	ret = cold_try_to_node(fs, b, &m);
	named = m.want;
	tap_ok(ret == -GAZE_EMISS && b->pw_next < b->nr,
	       "prewrite names an owner it does not find cached (node %u at %llu, entry %u) and stops there",
	       named.id, (unsigned long long)named.blkaddr, b->pw_next);
	/* the owner moves before the fetch: a block past the zone, then a
	 * checkpoint writes the inode elsewhere */
	for (f = 0; f < NCOLD && ino[f] != named.id; f++)
		;
	bad = f == NCOLD;
	if (!bad)
		bad += !!put(fs, ino[f], f + 1, 3, 40, 1);
	bad += !!cold_cache(fs);
	gaze_miss_fetch(fs, &m, -GAZE_EMISS);	/* from the old place */
	ret = cold_try_to_node(fs, b, &m);
	tap_ok(!bad && ret == -GAZE_EMISS && m.want.id == named.id &&
	       m.want.blkaddr != named.blkaddr,
	       "moved meanwhile, the owner is named again at its new place (%llu), the old block unused",
	       (unsigned long long)m.want.blkaddr);
	gaze_miss_exit(&m);

	/* the rest as the module runs it */
	mutex_lock(&fs->lock);
	ret = gaze_gcp_prewrite_unlocked(fs, b);
	if (!ret)
		ret = gaze_gcp_write(fs, b);
	moved += b->nr;
	while (!ret && !job.scanned) {
		ret = gaze_gcp_preread_unlocked(fs, &job, b, GAZE_GCP_BATCH);
		if (ret || !b->nr)
			break;
		mutex_unlock(&fs->lock);
		for (r = 0; r < b->nr; r++)
			b->ent[r].buf = pages + (size_t)r * BS;
		gaze_gcp_read(fs, b);
		mutex_lock(&fs->lock);
		ret = gaze_gcp_prewrite_unlocked(fs, b);
		if (!ret)
			ret = gaze_gcp_write(fs, b);
		moved += b->nr;
	}
	r = (u32)gaze_gcp_end(fs, &job);
	mutex_unlock(&fs->lock);
	tap_ok(!ret && !r && zone_state(fs, z, &v) == GAZE_ZS_PREFREE && !v,
	       "the zone ends PREFREE (%u entries; %llu cold reads in all)",
	       moved, (unsigned long long)(fs->stat[GAZE_STAT_GC_COLD] - cold0));
	for (bad = 0, f = 0; f < NCOLD; f++)
		for (r = 0; r < 32; r++)
			bad += !!check_range(fs, ino[f], f + 1, r % 2 ? 1 : 2,
					     r, 1);
	for (f = 0; f < NCOLD && ino[f] != named.id; f++)
		;
	if (f < NCOLD)
		bad += !!check_range(fs, ino[f], f + 1, 3, 40, 1);
	tap_ok(!bad, "every block reads as last written");
	gaze_fs_close(fs);
	tap_ok(!fsck_problems_on(d), "... and fsck finds nothing");
	fs = NULL;
	bad = !!gaze_fs_open(d, 0, &fs);
	for (f = 0; f < NCOLD && !bad; f++)
		for (r = 0; r < 32; r++)
			bad += !!check_range(fs, ino[f], f + 1, r % 2 ? 1 : 2,
					     r, 1);
	tap_ok(!bad, "... after a reopen too");
	if (fs)
		gaze_fs_close(fs);
	free(pages);
	free(b);
	gaze_dev_close(d);
}

static void
test_read_error(void)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	u32 ino, ino2, z, v, bad = 0;
	int ret;

	bad += !!create(fs, GAZE_ROOT_INO, "a", 0100644, &ino);
	bad += !!put(fs, ino, 1, 1, 0, ZB);
	bad += !!create(fs, GAZE_ROOT_INO, "b", 0100644, &ino2);
	bad += !!put(fs, ino2, 2, 1, 0, ZB);
	z = zone_of(fs, ino, 0);
	bad += !!gaze_file_truncate(fs, ino, (u64)ZB / 2 * BS);
	gaze_emu_fail_after(d, 0, 1);		/* the job's first read */
	ret = pipe_zone(fs, GAZE_GC_USER, z, NULL, NULL, NULL);
	tap_ok(!bad && ret == -EIO && !gaze_gcp_zone_busy(fs, z) &&
	       zone_state(fs, z, &v) == GAZE_ZS_FULL && v == ZB / 2,
	       "a read error fails the job (%d), the zone keeps its data", ret);
	tap_ok(!check_range(fs, ino, 1, 1, 0, ZB / 2), "the file is intact");
	tap_ok(!pipe_zone(fs, GAZE_GC_USER, z, NULL, NULL, NULL) &&
	       zone_state(fs, z, NULL) == GAZE_ZS_PREFREE,
	       "a second job reclaims it");
	fs = reopen(fs);
	tap_ok(!check_range(fs, ino, 1, 1, 0, ZB / 2) &&
	       !check_range(fs, ino2, 2, 1, 0, ZB), "files intact after a reopen");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* Four threads, bounded queues, a mutator                           */
/* ---------------------------------------------------------------- */

#define QDEPTH		2
#define NFILES		12
#define FBLKS		(ZB / 2)

struct q {
	struct gaze_gcp_batch	*item[QDEPTH + 1];
	u32			head, n;
	pthread_mutex_t		m;
	pthread_cond_t		c;
};

struct mt {
	struct gaze_fs	*fs;
	struct q	q[4];		/* into read, prewrite, write; free */
	bool		stop;		/* mutator */
	u32		gen[NFILES];	/* model: generation per block */
	u32		*bgen;		/* [file * FBLKS + blk] */
	u64		size[NFILES];
	u32		ino[NFILES];
	u64		ops;
	int		err;
};

static void
q_init(struct q *q)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->m, NULL);
	pthread_cond_init(&q->c, NULL);
}

static void
q_put(struct q *q, struct gaze_gcp_batch *b)
{
	pthread_mutex_lock(&q->m);
	while (q->n == QDEPTH + 1)
		pthread_cond_wait(&q->c, &q->m);
	q->item[(q->head + q->n++) % (QDEPTH + 1)] = b;
	pthread_cond_broadcast(&q->c);
	pthread_mutex_unlock(&q->m);
}

static struct gaze_gcp_batch *
q_get(struct q *q)
{
	struct gaze_gcp_batch *b;

	pthread_mutex_lock(&q->m);
	while (!q->n)
		pthread_cond_wait(&q->c, &q->m);
	b = q->item[q->head];
	q->head = (q->head + 1) % (QDEPTH + 1);
	q->n--;
	pthread_cond_broadcast(&q->c);
	pthread_mutex_unlock(&q->m);
	return b;
}

/* a NULL job pointer is the end of the stream */
static void *
st_read(void *arg)
{
	struct mt *t = arg;
	struct gaze_gcp_batch *b;
	bool end;

	while ((b = q_get(&t->q[0]))) {
		if (b->job)
			gaze_gcp_read(t->fs, b);
		end = !b->job;		/* b is not ours after the put */
		q_put(&t->q[1], b);
		if (end)
			break;
	}
	return NULL;
}

static void *
st_prewrite(void *arg)
{
	struct mt *t = arg;
	struct gaze_gcp_batch *b;
	bool end;

	while ((b = q_get(&t->q[1]))) {
		if (b->job) {
			mutex_lock(&t->fs->lock);
			gaze_gcp_prewrite_unlocked(t->fs, b);
			mutex_unlock(&t->fs->lock);
		}
		end = !b->job;		/* b is not ours after the put */
		q_put(&t->q[2], b);
		if (end)
			break;
	}
	return NULL;
}

static void *
st_write(void *arg)
{
	struct mt *t = arg;
	struct gaze_gcp_batch *b;
	bool end;

	while ((b = q_get(&t->q[2]))) {
		if (b->job) {
			/* as the module: the device write unlocked */
			mutex_lock(&t->fs->lock);
			gaze_gcp_write_begin(t->fs, b);
			mutex_unlock(&t->fs->lock);
			gaze_gcp_write_io(t->fs, b);
			mutex_lock(&t->fs->lock);
			gaze_gcp_write_end(t->fs, b);
			mutex_unlock(&t->fs->lock);
		}
		end = !b->job;		/* b is not ours after the put */
		q_put(&t->q[3], b);
		if (end)
			break;
	}
	return NULL;
}

/* the mutator: overwrites runs, truncates and checkpoints, keeping the
 * model */
static void *
mutator(void *arg)
{
	struct mt *t = arg;
	u64 r, b0;
	u32 f, n, i, g;
	int e;

	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&t->err, __ATOMIC_ACQUIRE)) {
		r = rnd();
		f = (u32)(r % NFILES);
		if ((r >> 8) % 50 == 1) {
			/* a checkpoint: commits the stage's copies in flight */
			e = gaze_fs_sync(t->fs);
		} else if ((r >> 8) % 10 == 0) {
			b0 = (r >> 16) % FBLKS;
			e = gaze_file_truncate(t->fs, t->ino[f], b0 * BS);
			if (!e) {
				for (i = (u32)b0; i < FBLKS; i++)
					t->bgen[f * FBLKS + i] = 0;
				t->size[f] = b0 * BS;	/* may extend */
			}
		} else {
			b0 = (r >> 16) % FBLKS;
			n = (u32)min_t(u64, 1 + (r >> 32) % 16, FBLKS - b0);
			g = ++t->gen[f];
			e = put(t->fs, t->ino[f], f, g, b0, n);
			if (!e) {
				for (i = 0; i < n; i++)
					t->bgen[f * FBLKS + b0 + i] = g;
				if (t->size[f] < (b0 + n) * BS)
					t->size[f] = (b0 + n) * BS;
			}
		}
		if (e)
			__atomic_store_n(&t->err, e, __ATOMIC_RELEASE);
		__atomic_add_fetch(&t->ops, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int
model_check(struct mt *t)
{
	u32 f, i, bad = 0;

	for (f = 0; f < NFILES && !bad; f++) {
		if (file_size(t->fs, t->ino[f]) != t->size[f]) {
			printf("# file %u: size %llu, model %llu\n", f,
			       (unsigned long long)file_size(t->fs, t->ino[f]),
			       (unsigned long long)t->size[f]);
			bad++;
		}
		for (i = 0; i * BS < t->size[f] && !bad; i++)
			bad += check_range(t->fs, t->ino[f], f,
					   t->bgen[f * FBLKS + i], i, 1);
	}
	return bad;
}

/* feeds zones through the stage threads; returns zones reclaimed */
static u32
mt_run(struct mt *t, u32 zones)
{
	struct gaze_gcp_batch *bs[QDEPTH + 1], *idle[QDEPTH + 1], *b;
	u8 *pages[QDEPTH + 1];
	struct gaze_gcp_job job;
	u32 i, done = 0, inflight, nidle = 0;
	pthread_t th[3];
	int ret;

	for (i = 0; i < 4; i++)
		q_init(&t->q[i]);
	for (i = 0; i <= QDEPTH; i++) {
		bs[i] = calloc(1, sizeof(*bs[i]));
		bs[i]->gap = malloc(BS);	/* read only by st_read */
		bs[i]->gap_max = GAZE_GCP_GAP;
		pages[i] = malloc((size_t)GAZE_GCP_BATCH * BS);
		idle[nidle++] = bs[i];
	}
	pthread_create(&th[0], NULL, st_read, t);
	pthread_create(&th[1], NULL, st_prewrite, t);
	pthread_create(&th[2], NULL, st_write, t);
	while (done < zones && !__atomic_load_n(&t->err, __ATOMIC_ACQUIRE)) {
		mutex_lock(&t->fs->lock);
		ret = gaze_gcp_begin(t->fs, GAZE_GCP_ANY, GAZE_GC_USER,
				     &job);
		mutex_unlock(&t->fs->lock);
		if (ret)
			break;
		inflight = 0;
		for (;;) {
			/* preread into every idle batch while there is more */
			while (nidle && !job.scanned && !job.err) {
				b = idle[--nidle];
				mutex_lock(&t->fs->lock);
				gaze_gcp_preread_unlocked(t->fs, &job, b,
							  GAZE_GCP_BATCH);
				mutex_unlock(&t->fs->lock);
				if (!b->nr) {
					idle[nidle++] = b;
					continue;
				}
				for (i = 0; i <= QDEPTH && bs[i] != b; i++)
					;
				for (ret = 0; ret < (int)b->nr; ret++)
					b->ent[ret].buf = pages[i] +
							  (size_t)ret * BS;
				inflight++;
				q_put(&t->q[0], b);
			}
			if (!inflight)
				break;
			idle[nidle++] = q_get(&t->q[3]);	/* written */
			inflight--;
		}
		mutex_lock(&t->fs->lock);
		ret = gaze_gcp_end(t->fs, &job);
		mutex_unlock(&t->fs->lock);
		if (ret) {
			printf("# job on zone %u: %d\n", job.zone, ret);
			__atomic_store_n(&t->err, ret, __ATOMIC_RELEASE);
			break;
		}
		done++;
	}
	/* end of stream: one marker through every stage */
	b = idle[0];
	b->job = NULL;
	q_put(&t->q[0], b);
	q_get(&t->q[3]);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i <= QDEPTH; i++) {
		free(bs[i]->gap);
		free(bs[i]);
		free(pages[i]);
	}
	return done;
}

static void
test_threads(void)
{
	struct gaze_dev *d = mkdev(40);
	const struct timespec ms = { 0, 1000000 };
	struct mt t;
	pthread_t mut;
	u32 f, n = 0, round, bad = 0, got;

	memset(&t, 0, sizeof(t));
	t.fs = format(d, 2, GAZE_GC_GREEDY);
	t.bgen = calloc(NFILES * FBLKS, sizeof(u32));
	for (f = 0; f < NFILES && !bad; f++) {
		char name[16];

		snprintf(name, sizeof(name), "f%u", f);
		bad += !!create(t.fs, GAZE_ROOT_INO, name, 0100644, &t.ino[f]);
		t.gen[f] = 1;
		bad += !!put(t.fs, t.ino[f], f, 1, 0, FBLKS);
		for (round = 0; round < FBLKS; round++)
			t.bgen[f * FBLKS + round] = 1;
		t.size[f] = (u64)FBLKS * BS;
	}
	pthread_create(&mut, NULL, mutator, &t);
	/*
	 * Victims exist only once the writer has overwritten something: on
	 * a loaded machine it may not have run yet (a CI run once reclaimed
	 * 0 zones while the writer had done 0 operations), so wait for its
	 * first operations, and give it time again when a round finds no
	 * victim.
	 */
	for (round = 0; round < 10000 &&
	     __atomic_load_n(&t.ops, __ATOMIC_ACQUIRE) < 20 &&
	     !__atomic_load_n(&t.err, __ATOMIC_ACQUIRE); round++)
		nanosleep(&ms, NULL);
	for (round = 0; round < 400 && n < 24 &&
	     !__atomic_load_n(&t.err, __ATOMIC_ACQUIRE); round++) {
		got = mt_run(&t, 4);
		n += got;
		if (!got)
			nanosleep(&ms, NULL);
	}
	__atomic_store_n(&t.stop, true, __ATOMIC_RELEASE);
	pthread_join(mut, NULL);
	tap_ok(!bad && !t.err && n >= 8,
	       "%u zones reclaimed by three stage threads while a writer did %llu operations (err %d)",
	       n, (unsigned long long)__atomic_load_n(&t.ops, __ATOMIC_ACQUIRE),
	       t.err);
	tap_ok(!model_check(&t), "every file equals its model");
	t.fs = reopen(t.fs);
	tap_ok(!model_check(&t), "... after a reopen too");
	gaze_fs_close(t.fs);
	gaze_dev_close(d);
	free(t.bgen);
}

int
main(void)
{
	gaze_log_level = 3;	/* errors only: expected warnings are noise */
	test_basic();
	test_race(1);
	test_race(2);
	test_race(3);
	test_race(4);
	test_inflight();
	test_pin();
	test_dir();
	test_gaps();
	test_cold();
	test_read_error();
	test_threads();
	return tap_done();
}
