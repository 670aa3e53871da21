// SPDX-License-Identifier: GPL-2.0
/*
 * test_geom.c - the garbage collector on few, large zones (issue 20).
 *
 * On 16 zones, the module's collector once reclaimed zone after zone
 * that it had itself just filled, each 96% valid: writeback wanted six
 * zones of room, more than such a device can ever have free, and took
 * any victim to get it.  Here the core runs a random-overwrite workload
 * on emulated devices of 16 zones, 12 (the fewest mkfs accepts), 32 and
 * 64, some with a zone capacity below the zone size, twice each:
 *   greedy   the core alone: writeback's own foreground GC (gcpolicy.c,
 *            the baseline mover, greedy victims);
 *   module   driven as the module drives it (resv.c gaze_resv_wb_room,
 *            by the same core step, space.c gaze_wb_room_step): before
 *            each writeback batch, when no job is in flight and
 *            gaze_space_wb_short says the published room (with the
 *            jobs' gain) is below the GC's wb level, a foreground job
 *            is started and left in flight; the batch waits only while
 *            gaze_space_fg_short says the room without that gain is
 *            below the fg level and jobs are in flight, and the jobs
 *            move a batch of 64 blocks
 *            per wait and GC_RATE batches per writeback batch, as the
 *            module's stage threads move them while writeback goes on;
 *            when the batch stops waiting with jobs in flight and the
 *            room short, the baseline's foreground GC a step at a time
 *            (gaze_wb_room_rest);
 *            a background step after that or every 16 batches (gc.c:
 *            gaze_gc_bg_wanted, GAZE_GC_BG jobs, the settling
 *            checkpoint); then the batch through gaze_file_write_vec,
 *            whose own foreground GC runs as in the module (only what
 *            the batch cannot go on without: fs->gc_fg_stepped);
 *   handoff  where the data leaves headroom, the module with the
 *            pipeline off and selective blocking on (resv.c
 *            gaze_resv_fg_steps): the writer steps the baseline's
 *            foreground run only up to the fg level
 *            (gaze_gc_fg_handoff) and the GC thread does the batch
 *            beyond it (gaze_gc_background), here a step every
 *            BG_EVERY batches.
 * A file of 70% (or 85%) of the usable blocks is written, then blocks
 * chosen at random are overwritten in sorted batches of 256 (as
 * writeback sends dirty pages) until three times the main area has been
 * written.  Checked, for each geometry and fill:
 *  - no foreground reclaim freed less than its least gain: an eighth of
 *    a zone (GAZE_GC_FG), or 1/64 for a last resort (GAZE_GC_LAST: no
 *    victim frees an eighth and the writer has no other way on, which
 *    at 85% on 16 zones happens);
 *  - the module's write amplification is within WA_BOUND of greedy's on
 *    the same workload (bound stated below);
 *  - every block reads back as its last write, before and after a
 *    reopen;
 *  - handoff: a writeback batch waits for fewer zones' moves at the
 *    most than greedy's (whose writer runs the fg level's batch too),
 *    with WA within the same bound of greedy's.
 * The figures go to the TAP diagnostics.  64 zones at 85% need the room
 * rule by whole zones per log (gcpolicy.c gaze_gc_room); 32 zones at 70%
 * need the module's wb level no higher than the core's run keeps.
 */
#define ZB	4096u		/* 16 MiB zones: the emulator keeps them in memory */
#include <stdbool.h>

#include "../tap.h"
#include "fixture.h"

#define BATCH		256u	/* blocks per writeback batch */
#define PASSES		3u	/* main areas written */
#define WA_BOUND	1.10	/* module WA <= WA_BOUND * greedy WA + WA_SLACK */
#define WA_SLACK	0.05

struct run {
	u32	zones;		/* device zones */
	u32	cap;		/* zone capacity, blocks (ZB: the whole zone) */
	u32	pct;		/* file size, % of user blocks */
	bool	module;		/* driven as the module drives it */
	bool	handoff;	/* the module with the pipeline off and
				 * selective blocking on */
	/* results */
	double	wa;
	u64	user, moved, reclaimed, staged, declined, bad, fg, last,
		mover;
	u64	min_fg, min_last;
	u64	freed[4];
	u64	wmax;		/* most zones one writeback batch reclaimed
				 * before it was written (not module) */
	u64	handed, rest_steps;	/* handoff: runs left to the
					 * background, its steps */
};

static int
bg_step(struct gaze_fs *fs)
{
	bool more;
	u32 n = 0;
	int ret = 0, r;

	for (;;) {
		mutex_lock(&fs->lock);
		r = n < 2 && gaze_gc_bg_wanted(fs, 20, 40,
						 n ? GAZE_GC_BG_GOING : 0);
		mutex_unlock(&fs->lock);
		if (!r)
			break;
		r = pipe_zone(fs, GAZE_GC_BG, GAZE_GCP_ANY, NULL, NULL, NULL);
		if (r == -ENOENT || r == -ENOSPC || r == -EBUSY)
			break;
		if (r)
			return r;
		n++;
	}
	mutex_lock(&fs->lock);
	ret = gaze_gc_background(fs, 0, 40, 0, &more);	/* settles */
	mutex_unlock(&fs->lock);
	return ret;
}

/*
 * The module's jobs in flight, which its stage threads move while
 * writeback goes on: here each advances a batch at a time, the oldest
 * first, GC_RATE batches per writeback batch and one per wait.
 */
#define GC_RATE		3u	/* GC batches (64 blocks) per 256 written */

struct ajob {
	struct gaze_gcp_job	job;
	struct gaze_gcp_batch	*b;
	u8			*pages;
	u64			seq;	/* order of submission */
	bool			on;
};

static struct ajob ajobs[GAZE_GCP_MAX_JOBS];
static u64 ajob_seq;

static void
ajobs_init(void)
{
	u32 i;

	for (i = 0; i < GAZE_GCP_MAX_JOBS; i++) {
		ajobs[i].b = calloc(1, sizeof(*ajobs[i].b));
		ajobs[i].b->gap = malloc(BS);
		ajobs[i].pages = malloc((size_t)GAZE_GCP_BATCH * BS);
		ajobs[i].on = false;
	}
}

static void
ajobs_free(void)
{
	u32 i;

	for (i = 0; i < GAZE_GCP_MAX_JOBS; i++) {
		free(ajobs[i].b->gap);
		free(ajobs[i].b);
		free(ajobs[i].pages);
	}
}

static bool
ajobs_on(void)
{
	u32 i;

	for (i = 0; i < GAZE_GCP_MAX_JOBS; i++)
		if (ajobs[i].on)
			return true;
	return false;
}

/* gaze_gcp_reclaim_async: 0, or gaze_gcp_begin's error */
static int
ajob_start(struct gaze_fs *fs, int why)
{
	struct ajob *a = NULL;
	u32 i;
	int r;

	for (i = 0; i < GAZE_GCP_MAX_JOBS && !a; i++)
		if (!ajobs[i].on)
			a = &ajobs[i];
	if (!a)
		return -EBUSY;
	mutex_lock(&fs->lock);
	r = gaze_gcp_begin(fs, GAZE_GCP_ANY, why, &a->job);
	mutex_unlock(&fs->lock);
	if (r)
		return r;
	a->b->gap_max = GAZE_GCP_GAP;
	a->seq = ajob_seq++;
	a->on = true;
	return 0;
}

/* one batch of the oldest job through the four stages; *any: one ran */
static int
ajob_step(struct gaze_fs *fs, bool *any)
{
	struct ajob *a = NULL;
	struct gaze_gcp_batch *b;
	int ret, end;
	u32 i;

	for (i = 0; i < GAZE_GCP_MAX_JOBS; i++)
		if (ajobs[i].on && (!a || ajobs[i].seq < a->seq))
			a = &ajobs[i];
	*any = a != NULL;
	if (!a)
		return 0;
	b = a->b;
	mutex_lock(&fs->lock);
	ret = gaze_gcp_preread_unlocked(fs, &a->job, b, GAZE_GCP_BATCH);
	mutex_unlock(&fs->lock);
	if (!ret && b->nr) {
		for (i = 0; i < b->nr; i++)
			b->ent[i].buf = b->ent[i].act == GAZE_GCP_NODE ? NULL :
					a->pages + (size_t)i * BS;
		gaze_gcp_read(fs, b);
		mutex_lock(&fs->lock);
		ret = gaze_gcp_prewrite_unlocked(fs, b);
		if (!ret)
			ret = gaze_gcp_write(fs, b);
		mutex_unlock(&fs->lock);
		if (!ret && !a->job.scanned)
			return 0;
	}
	mutex_lock(&fs->lock);
	end = gaze_gcp_end(fs, &a->job);
	mutex_unlock(&fs->lock);
	a->on = false;
	/* as gcpipe.c's detached jobs: a victim gone or busy is no error */
	return end == -ENOENT || end == -EBUSY ? 0 : end;
}

static int
ajobs_advance(struct gaze_fs *fs, u32 batches, bool *any)
{
	int ret = 0;

	*any = false;
	while (batches-- && !ret) {
		ret = ajob_step(fs, any);
		if (!*any)
			break;
	}
	return ret;
}

/*
 * gaze_resv_wb_room with the pipeline on, through the same core step
 * (gaze_wb_room_step); waiting is the jobs moving a batch.  *kick: the
 * GC thread was woken.
 */
static int
wb_room_jobs(struct gaze_fs *fs, u32 nr, bool *kick)
{
	bool may_start = true, any;
	u32 jobs = 0;
	int r;

	for (;;) {
		switch (gaze_wb_room_step(fs, nr, ajobs_on(),
					  may_start &&
					  jobs < GAZE_WB_ROOM_JOBS)) {
		case GAZE_WB_START:
			jobs++;
			*kick = true;
			r = ajob_start(fs, GAZE_GC_FG);
			if (r && !gaze_wb_room_busy(r))
				return r == -ENOENT ? 0 : r;
			may_start = !r;
			break;
		case GAZE_WB_WAIT:
			may_start = true;
			r = ajobs_advance(fs, 1, &any);	/* they move */
			if (r)
				return r;
			break;
		default:
			return 0;
		}
	}
}

/* a foreground run stepped to its end, as resv.c gaze_resv_fg_steps
 * steps it (fs->lock let go between steps there) */
static int
fg_steps(struct gaze_fs *fs, struct gaze_gc_fg_run *r)
{
	bool done = false;
	int ret = 0;

	while (!done && !ret) {
		fs->gc_active = true;
		ret = gaze_gc_fg_step(fs, r, &done);
		fs->gc_active = false;
		gaze_space_publish(fs);
	}
	return ret;
}

/* then, when the batch stopped waiting with jobs still in flight (the
 * module's wait runs out; the model's jobs always end first), what they
 * did not make, by the baseline's foreground GC a step at a time (resv.c
 * gaze_resv_fg_steps with rest) */
static int
wb_room_steps(struct gaze_fs *fs, u32 nr)
{
	struct gaze_gc_fg_run r;

	if (!gaze_wb_room_rest(fs, nr, ajobs_on(), &r))
		return 0;
	return fg_steps(fs, &r);
}

/*
 * handoff: resv.c gaze_resv_fg_steps with selective blocking on and the
 * pipeline off: the baseline's foreground run, stepped by the writer
 * up to the fg level (gaze_gc_fg_handoff); the batch beyond it is the
 * GC thread's (gc.c gaze_bggc_step: gaze_gc_background),
 * here a step every BG_EVERY batches while one is waiting, as it runs
 * beside the writers (the model leaves out the thread's own reclaims
 * ahead of need, which the module runs in the baseline too)
 */
#define BG_EVERY	4u

static int
handoff_room(struct gaze_fs *fs, struct run *rn, u32 nr)
{
	struct gaze_gc_fg_run r;

	if (!gaze_gc_fg_start(fs, nr + 2, &r))
		return 0;
	gaze_gc_fg_handoff(fs, &r);
	rn->handed += fs->gc_fg_rest_on;
	return fg_steps(fs, &r);
}

static int
handoff_bg(struct gaze_fs *fs, struct run *rn)
{
	bool more;
	int ret;

	if (!fs->gc_fg_rest_on)
		return 0;	/* the model's GC thread only does the rest */
	ret = gaze_gc_background(fs, 20, 40, 0, &more);
	rn->rest_steps++;
	gaze_space_publish(fs);
	return ret;
}

static u32 *gens;	/* generation of each file block (model) */

static int
overwrite(struct gaze_fs *fs, struct run *rn, u32 ino, u64 nblk, u64 total)
{
	u64 fblks[BATCH], done = 0, k;
	void *bufs[BATCH];
	u8 *pages = malloc((size_t)BATCH * BS);
	bool kick;
	u32 i, j, n;
	u64 z0;
	int ret = 0;

	for (i = 0; i < BATCH; i++)
		bufs[i] = pages + (size_t)i * BS;
	for (k = 0; done < total && !ret; k++) {
		/* distinct random blocks, ascending (writeback's order) */
		for (n = 0; n < BATCH; n++)
			fblks[n] = rnd() % nblk;
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && fblks[j - 1] > fblks[j]; j--) {
				u64 t = fblks[j];

				fblks[j] = fblks[j - 1];
				fblks[j - 1] = t;
			}
		for (i = 1, j = 1; i < n; i++)
			if (fblks[i] != fblks[j - 1])
				fblks[j++] = fblks[i];
		n = j;
		for (i = 0; i < n; i++)
			fill(bufs[i], 1, gens[fblks[i]] + 1, fblks[i]);
		kick = false;
		z0 = fs->gc.zones_reclaimed;
		if (rn->handoff)
			ret = handoff_room(fs, rn, n);
		if (rn->module)
			ret = wb_room_jobs(fs, n, &kick);
		if (!ret && rn->module && (kick || k % 16 == 0))
			ret = bg_step(fs);
		if (!ret && rn->module)
			ret = wb_room_steps(fs, n);
		if (!ret)
			ret = gaze_file_write_vec(fs, ino, fblks, n, bufs,
						  (fblks[n - 1] + 1) * BS);
		if (!rn->module && fs->gc.zones_reclaimed - z0 > rn->wmax)
			rn->wmax = fs->gc.zones_reclaimed - z0;
		if (!ret && rn->handoff && k % BG_EVERY == 0)
			ret = handoff_bg(fs, rn);
		if (!ret && rn->module)
			ret = ajobs_advance(fs, GC_RATE, &kick);
		if (ret) {
			printf("# batch %llu: %d\n", (unsigned long long)k,
			       ret);
			break;
		}
		for (i = 0; i < n; i++)
			gens[fblks[i]]++;
		done += n;
	}
	/* the jobs still in flight end (unmount waits for them) */
	for (kick = true; kick; )
		if (ajobs_advance(fs, 1, &kick) && !ret)
			ret = -EIO;
	free(pages);
	return ret;
}

static u64
verify(struct gaze_fs *fs, u32 ino, u64 nblk)
{
	u8 *buf = malloc(BS), *want = malloc(BS);
	u64 b, bad = 0;

	for (b = 0; b < nblk; b++)
		if (check_block(fs, ino, 1, gens[b], b, buf, want))
			bad++;
	free(buf);
	free(want);
	return bad;
}

static int
run_one(struct run *rn)
{
	struct gaze_emu_opts o = {
		.nr_zones = rn->zones, .zone_blocks = ZB, .zone_cap = rn->cap,
	};
	struct gaze_dev *d = NULL;
	struct gaze_fs *fs;
	u64 user, nblk, total, b;
	const struct gaze_gc_stats *g;
	u32 ino, i;
	int ret;

	if (gaze_emu_create(&o, &d)) {
		printf("Bail out! gaze_emu_create failed\n");
		exit(1);
	}
	fs = format(d, 0, GAZE_GC_COST_BENEFIT);
	/* the module makes room before each operation (super.c) */
	fs->gc_fg_stepped = rn->module || rn->handoff;
	user = le64_to_cpu(fs->sb.user_blocks);
	nblk = user * rn->pct / 100;
	total = (u64)PASSES * fs->lay.main_zone_count *
		le32_to_cpu(fs->sb.zone_cap);
	gens = calloc(nblk, sizeof(*gens));
	ret = create(fs, GAZE_ROOT_INO, "f", 0100644, &ino);
	for (b = 0; b < nblk && !ret; b += 1024) {
		ret = put(fs, ino, 1, 1, b, (u32)min_t(u64, 1024, nblk - b));
		for (i = 0; i < 1024 && b + i < nblk; i++)
			gens[b + i] = 1;
	}
	if (!ret)
		ret = gaze_fs_sync(fs);
	memset(&fs->gc, 0, sizeof(fs->gc));
	if (!ret)
		ret = overwrite(fs, rn, ino, nblk, total);
	g = &fs->gc;
	rn->user = g->user_blocks;
	rn->moved = g->data_moved + g->nodes_moved;
	rn->wa = rn->user ? (double)(rn->user + rn->moved) / rn->user : 0;
	rn->reclaimed = g->zones_reclaimed;
	rn->staged = g->zones_reclaimed - g->zones_mover;
	rn->mover = g->zones_mover;
	rn->min_fg = g->freed_min_fg;
	rn->min_last = g->freed_min_last;
	rn->last = g->last_runs;
	rn->declined = g->fg_declined;
	rn->fg = g->zones_fg;
	memcpy(rn->freed, g->freed_hist, sizeof(rn->freed));
	rn->bad = verify(fs, ino, nblk);
	fs = reopen(fs);
	rn->bad += verify(fs, ino, nblk);
	printf("# %u zones of %u blocks (capacity %u; %u main, %u logs), "
	       "%u%% full, %s: ret %d, WA %.3f, most zones one batch "
	       "waited for %llu, runs handed off %llu (%llu steps), "
	       "(%llu user, %llu moved), %llu zones reclaimed (%llu staged, "
	       "%llu by the mover, %llu fg, %llu last resort), freed <1/8 %llu <1/4 %llu <1/2 "
	       "%llu >=1/2 %llu, least freed fg %llu last %llu of %u, "
	       "fg declined %llu, %llu bad blocks\n", rn->zones, ZB, rn->cap,
	       fs->lay.main_zone_count, le32_to_cpu(fs->sb.nr_logs), rn->pct,
	       rn->module ? "module" : rn->handoff ? "handoff" : "greedy",
	       ret, rn->wa, (unsigned long long)rn->wmax,
	       (unsigned long long)rn->handed,
	       (unsigned long long)rn->rest_steps,
	       (unsigned long long)rn->user, (unsigned long long)rn->moved,
	       (unsigned long long)rn->reclaimed,
	       (unsigned long long)rn->staged, (unsigned long long)rn->mover,
	       (unsigned long long)rn->fg,
	       (unsigned long long)rn->last,
	       (unsigned long long)rn->freed[0],
	       (unsigned long long)rn->freed[1],
	       (unsigned long long)rn->freed[2],
	       (unsigned long long)rn->freed[3],
	       (unsigned long long)rn->min_fg,
	       (unsigned long long)rn->min_last, rn->cap,
	       (unsigned long long)rn->declined,
	       (unsigned long long)rn->bad);
	gaze_fs_close(fs);
	gaze_dev_close(d);
	free(gens);
	return ret;
}

/*
 * the least gains of gcpolicy.c: GAZE_GC_FG 1/8, GAZE_GC_LAST 1/64 of a
 * zone's capacity
 */
static bool
least_ok(const struct run *rn)
{
	return (!rn->fg || rn->min_fg >= rn->cap / 8) &&
	       (!rn->last || rn->min_last >= rn->cap / 64);
}

static void
geometry(u32 zones, u32 cap, u32 pct, bool handoff)
{
	struct run greedy = { .zones = zones, .cap = cap, .pct = pct };
	struct run mod = { .zones = zones, .cap = cap, .pct = pct,
			   .module = true };
	struct run ho = { .zones = zones, .cap = cap, .pct = pct,
			  .handoff = true };
	char g[48];
	int rg, rm, rh = 0;

	if (cap == ZB)
		snprintf(g, sizeof(g), "%u zones", zones);
	else
		snprintf(g, sizeof(g), "%u zones of capacity %u/%u", zones,
			 cap, ZB);

	rng_state = 0x2545f4914f6cdd1dull + zones * 131 + pct + cap;
	rg = run_one(&greedy);
	rng_state = 0x2545f4914f6cdd1dull + zones * 131 + pct + cap;
	rm = run_one(&mod);
	if (handoff) {
		rng_state = 0x2545f4914f6cdd1dull + zones * 131 + pct + cap;
		rh = run_one(&ho);
	}
	tap_ok(!rg && !rm && greedy.user && mod.user,
	       "%s, %u%%: both runs wrote %u passes of the main area",
	       g, pct, PASSES);
	tap_ok(least_ok(&greedy) && least_ok(&mod),
	       "%s, %u%%: foreground reclaims freed >= 1/8 zone (least "
	       "%llu, %llu), last-resort ones >= 1/64 (least %llu, %llu)",
	       g, pct, (unsigned long long)greedy.min_fg,
	       (unsigned long long)mod.min_fg,
	       (unsigned long long)greedy.min_last,
	       (unsigned long long)mod.min_last);
	tap_ok(mod.staged > 0 && mod.wa <= WA_BOUND * greedy.wa + WA_SLACK,
	       "%s, %u%%: module WA %.3f within %.2fx + %.2f of greedy "
	       "%.3f (%llu zones staged)", g, pct, mod.wa, WA_BOUND,
	       WA_SLACK, greedy.wa, (unsigned long long)mod.staged);
	tap_ok(!greedy.bad && !mod.bad && !ho.bad,
	       "%s, %u%%: every block reads back as last written, "
	       "also after a reopen", g, pct);
	if (!handoff)
		return;
	/*
	 * handoff, where the data leaves headroom (the fg level's slack and
	 * batch exist): the writer waits for fewer zones than greedy's, the
	 * same victims by the same rules keep WA within greedy's bound
	 */
	tap_ok(!rh && ho.user && least_ok(&ho) && ho.handed &&
	       ho.wmax < greedy.wmax &&
	       ho.wa <= WA_BOUND * greedy.wa + WA_SLACK,
	       "%s, %u%%: handoff: a batch waited for at most %llu zones "
	       "(greedy %llu), WA %.3f (greedy %.3f), %llu runs handed off",
	       g, pct, (unsigned long long)ho.wmax,
	       (unsigned long long)greedy.wmax, ho.wa, greedy.wa,
	       (unsigned long long)ho.handed);
}

/* zones, capacity in blocks, file % of the user blocks */
static const struct {
	u32	zones, cap, pct;
	bool	handoff;	/* also the handoff run (headroom exists) */
} geoms[] = {
	{ 16, ZB, 70, false },
	{ 16, ZB, 85, false },
	{ 64, ZB, 70, true },
	{ 32, ZB, 70, true },
	{ 12, ZB, 70, false },		/* the fewest zones mkfs accepts */
	{ 16, ZB * 3 / 4, 70, false },
	{ 64, ZB * 3 / 4, 85, true },
};

int
main(int argc, char **argv)
{
	unsigned int i;

	ajobs_init();
	/* one geometry by hand: test_geom ZONES CAPACITY PCT */
	if (argc == 4) {
		geometry((u32)atoi(argv[1]), (u32)atoi(argv[2]),
			 (u32)atoi(argv[3]), true);
		ajobs_free();
		return tap_done();
	}
	for (i = 0; i < sizeof(geoms) / sizeof(geoms[0]); i++)
		if (tap_share(i))
			geometry(geoms[i].zones, geoms[i].cap, geoms[i].pct,
				 geoms[i].handoff);
	ajobs_free();
	return tap_done();
}
