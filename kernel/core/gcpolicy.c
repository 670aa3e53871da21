// SPDX-License-Identifier: GPL-2.0
/*
 * gcpolicy.c - when the garbage collector runs and which zone it takes,
 * the same for the baseline mover (gc.c), the staged one (gcpipe.c), the
 * module's threads and writers, and the userspace tools and tests.
 *
 * Why one place: with the rules spread over callers, each path picked its
 * own victims and thresholds, and on few large zones a writeback path
 * that wanted six zones of room (more than 16 zones of 256 MiB can ever
 * have free) reclaimed zone after zone the collector itself had just
 * filled, each 96% valid: 90 times more moved than written.
 *
 * Levels (gaze_gc_levels).  All are counts of zones, derived from the
 * geometry and from how much of the main area valid data leaves:
 *   floor     FREE zones user data never opens (space.c): the GC's
 *             destinations and the checkpoints that free its victims;
 *   headroom  zones that could be FREE beyond floor + 1 if every invalid
 *             block were reclaimed: main - logs - ceil(valid / cap) -
 *             (floor + 1).  On 16 zones at 70% it is 0; on 64 about 14;
 *   fg        foreground GC runs while FREE zones are below fg + the
 *             zones the write needs beyond its log's open zone;
 *             fg = floor + 1 + min(1, headroom / 2).  If FREE + PREFREE
 *             zones reach that, it only settles (checkpoints); else it
 *             moves, and goes on up to fg_batch more (min(2, headroom /
 *             2)), so that victims share the two checkpoints that free
 *             them;
 *   wb        the module's writeback reclaims through the pipeline while
 *             FREE + PREFREE zones are below wb = fg + min(1, fg_batch):
 *             ahead of the core's own run, so that the baseline mover
 *             under fs->lock seldom has to move anything (the zones the
 *             pipeline leaves PREFREE are settled, not moved again), and
 *             on average where the core's run keeps them (it swings
 *             from fg to fg + fg_batch; each zone kept free beyond that
 *             is slack the full zones lose, which on few zones raises
 *             write amplification: tests/core/test_geom.c bounds it);
 *   bg_low, bg_high   background GC: the administrator's percentages of
 *             the main area, but never above floor + 1 + headroom / 4
 *             (low) and floor + 1 + headroom / 2 (high), except in the
 *             urgent (background_gc=sync) mode, which takes them as set.
 * No level is ever above what the data allows: a target the device
 * cannot reach turns every reclaim into a loop, and every zone kept
 * FREE beyond need is invalid space the full zones no longer hold, so
 * eagerness raises write amplification.
 *
 * Victims (gaze_gc_pick).  Candidates are the same for every cause:
 * FULL main zones that are not a log head and not pinned by a staged
 * job, with at least one invalid block.  The cause decides the order and
 * the least a victim must free ("gain": capacity minus valid blocks):
 *   GAZE_GC_FG    writers are short of zones: greedy (most freed first),
 *                 gain >= cap / 8;
 *   GAZE_GC_LAST  nothing else lets a writer on (FREE zones at the
 *                 floor plus what the write needs, nothing PREFREE to
 *                 settle): greedy, gain >= cap / 64 (at least 1);
 *   GAZE_GC_BG    ahead of need: the victim policy (greedy or
 *                 cost-benefit), gain >= cap / 4;
 *   GAZE_GC_USER  asked for (gazectl gc): the victim policy, gain >= 1.
 * A victim must also fit: its valid blocks, as many owner nodes as the
 * filesystem has nodes (at most one per block), and the same for the
 * jobs in flight, within the FREE zones and the room left in the cold
 * data log's open zone.  A cause that finds candidates but none worth
 * its minimum counts a decline (gc-stats), and nothing is moved.
 *
 * Locking: fs->lock, held by the caller, protects everything here.
 */
#include "gaze_core.h"

#define GC_FG_SLACK		1u	/* fg above floor + 1, headroom allowing */
#define GC_FG_BATCH		2u	/* zones fg GC goes on for once started */
/* foreground GC gives up after this many victims in a row gained nothing */
#define GC_FG_STRIKES		3u

static u32
gc_cap(const struct gaze_fs *fs)
{
	return le32_to_cpu(fs->sb.zone_cap);
}

u64
gaze_gc_cb_score(u32 valid, u32 cap, u64 age)
{
	u64 u;

	if (!cap || valid >= cap)
		return 0;
	u = (u64)valid * 1024 / cap;		/* valid ratio, 1/1024 */
	/* (1 - u) * (age + 1) / (1 + u), scaled by 1024 */
	return (1024 - u) * (min_t(u64, age, 1ull << 32) + 1) * 1024 /
	       (1024 + u);
}

/* ---------------------------------------------------------------- */
/* Levels                                                            */
/* ---------------------------------------------------------------- */

static u32
gc_headroom(struct gaze_fs *fs, u32 floor)
{
	u64 valid, nodes, zones, main = fs->lay.main_zone_count;
	u64 used = le32_to_cpu(fs->sb.nr_logs) + floor + 1;

	gaze_space_valid_counts(fs, &valid, &nodes);
	zones = DIV_ROUND_UP(valid + gaze_cache_nr_dirty_new(fs), gc_cap(fs));
	return main > used + zones ? (u32)(main - used - zones) : 0;
}

static u32
gc_pct_zones(const struct gaze_fs *fs, u32 pct)
{
	return (u32)((u64)fs->lay.main_zone_count * pct / 100);
}

static void
gc_levels(struct gaze_fs *fs, u32 low_pct, u32 high_pct, bool urgent,
	  struct gaze_gc_levels *lv)
{
	u32 h;

	lv->floor = gaze_space_user_floor(fs);
	h = gc_headroom(fs, lv->floor);
	lv->headroom = h;
	lv->fg = lv->floor + 1 + min(GC_FG_SLACK, h / 2);
	lv->fg_batch = min(GC_FG_BATCH, h / 2);
	lv->wb = lv->fg + min(1u, lv->fg_batch);
	lv->bg_low = gc_pct_zones(fs, low_pct);
	lv->bg_high = gc_pct_zones(fs, high_pct);
	if (!urgent) {
		lv->bg_low = min(lv->bg_low, lv->floor + 1 + h / 4);
		lv->bg_high = min(lv->bg_high, lv->floor + 1 + h / 2);
	}
	if (lv->bg_high < lv->bg_low)
		lv->bg_high = lv->bg_low;
}

void
gaze_gc_levels(struct gaze_fs *fs, u32 low_pct, u32 high_pct,
	       struct gaze_gc_levels *lv)
{
	gc_levels(fs, low_pct, high_pct, false, lv);
}

/* zones a write of `blocks` user data blocks needs beyond its log's room */
static u32
gc_need_zones(struct gaze_fs *fs, u64 blocks)
{
	u64 room = gaze_space_log_room(fs, GAZE_LOG_DATA_WARM);

	if (blocks <= room)
		return 0;
	return (u32)min_t(u64, DIV_ROUND_UP(blocks - room, gc_cap(fs)),
			  fs->lay.main_zone_count);
}

/* ---------------------------------------------------------------- */
/* Victims                                                           */
/* ---------------------------------------------------------------- */

static bool
gc_eligible(const struct gaze_zone_use *u, u32 cap)
{
	return u->state == GAZE_ZS_FULL && !u->log_head && u->valid < cap;
}

/* the best candidate by policy among those gaining at least min_gain;
 * *any: some candidate existed, worth it or not */
static int
gc_scan(struct gaze_fs *fs, int policy, u32 min_gain, u32 *zone, bool *any)
{
	u32 start = fs->lay.main_zone_start, end = start +
		    fs->lay.main_zone_count, cap = gc_cap(fs), z;
	u64 now = gaze_fs_age(fs), best = 0, score, age;
	struct gaze_zone_use u;
	bool found = false;

	*any = false;
	if (policy == GAZE_GC_POLICY_DEFAULT)
		policy = (int)le32_to_cpu(fs->sb.victim_policy);
	if (policy != GAZE_GC_GREEDY && policy != GAZE_GC_COST_BENEFIT)
		return -EINVAL;
	for (z = start; z < end; z++) {
		if (gaze_space_zone_use(fs, z, &u) || !gc_eligible(&u, cap) ||
		    gaze_gcp_zone_busy(fs, z))
			continue;
		*any = true;
		if (cap - u.valid < min_gain)
			continue;
		if (policy == GAZE_GC_GREEDY) {
			score = cap - u.valid;		/* invalid blocks */
		} else {
			age = now > u.mtime ? now - u.mtime : 0;
			score = gaze_gc_cb_score(u.valid, cap, age);
		}
		if (!found || score > best) {
			found = true;
			best = score;
			*zone = z;
		}
	}
	return found ? 0 : -ENOENT;
}

int
gaze_gc_select(struct gaze_fs *fs, int policy, u32 *zone)
{
	bool any;

	return gc_scan(fs, policy, 1, zone, &any);
}

u32
gaze_gc_min_gain(const struct gaze_fs *fs, int why)
{
	u32 cap = gc_cap(fs);

	switch (why) {
	case GAZE_GC_FG:
		return max(cap / 8, 1u);
	case GAZE_GC_LAST:
		return max(cap / 64, 1u);
	case GAZE_GC_BG:
		return max(cap / 4, 1u);
	default:
		return 1;
	}
}

/* owner node blocks moving `valid` blocks may write: one per block at
 * the worst, never more than the filesystem has */
static u64
gc_node_cost(struct gaze_fs *fs, u64 valid)
{
	u64 blocks, nodes;

	gaze_space_valid_counts(fs, &blocks, &nodes);
	return min_t(u64, valid, nodes) + 8;
}

u64
gaze_gc_cost(struct gaze_fs *fs, u32 valid)
{
	return (u64)valid + gc_node_cost(fs, valid);
}

/* FREE zones log `type` must open to take `blocks` more */
static u64
gc_log_zones(struct gaze_fs *fs, int type, u64 blocks)
{
	u64 room = gaze_space_log_room(fs, type);

	return blocks > room ? DIV_ROUND_UP(blocks - room, gc_cap(fs)) : 0;
}

/* FREE zones the jobs in flight, and `valid` more blocks, may open */
static u64
gc_room_zones(struct gaze_fs *fs, u64 valid, u32 *jobs)
{
	u64 data = valid + gaze_gcp_pending_valid(fs, jobs);

	return gc_log_zones(fs, GAZE_LOG_DATA_COLD, data) +
	       gc_log_zones(fs, GAZE_LOG_NODE_WARM,
			    gc_node_cost(fs, data) + 8 * *jobs);
}

/*
 * Moved data goes to the cold data log, the owner nodes it rewrites to
 * the node logs (file nodes warm, directory inodes hot), and each log
 * opens FREE zones of its own, so room is counted by whole zones per
 * log: blocks summed over all of them would let the data take the last
 * FREE zone and leave the node log none, and then the move's closing
 * flush and every checkpoint fail with -ENOSPC.
 */
int
gaze_gc_room(struct gaze_fs *fs, u32 valid)
{
	u64 zones;
	u32 jobs;

	zones = gc_room_zones(fs, valid, &jobs);
	/* a directory's inode, when the hot node log is a log of its own */
	if (gaze_log_of_type(fs, GAZE_LOG_NODE_HOT) !=
	    gaze_log_of_type(fs, GAZE_LOG_NODE_WARM) &&
	    gaze_space_log_room(fs, GAZE_LOG_NODE_HOT) < 8)
		zones++;
	return zones <= gaze_space_free_zones(fs) ? 0 : -ENOSPC;
}

u64
gaze_gc_jobs_zones(struct gaze_fs *fs)
{
	u64 zones;
	u32 jobs;

	zones = gc_room_zones(fs, 0, &jobs);
	return jobs ? zones : 0;
}

int
gaze_gc_pick(struct gaze_fs *fs, int why, u32 *zone)
{
	int policy = why == GAZE_GC_FG || why == GAZE_GC_LAST ?
		     GAZE_GC_GREEDY : fs->gc_policy;
	struct gaze_zone_use u;
	bool any;
	int ret;

	ret = gc_scan(fs, policy, gaze_gc_min_gain(fs, why), zone, &any);
	if (ret == -ENOENT && any &&
	    (why == GAZE_GC_FG || why == GAZE_GC_LAST))
		fs->gc.fg_declined++;
	if (ret)
		return ret;
	ret = gaze_space_zone_use(fs, *zone, &u);
	if (ret)
		return ret;
	return gaze_gc_room(fs, u.valid);
}

static void
gc_freed_min(u64 *min, u64 freed)
{
	if (!*min || freed < *min)
		*min = freed;
}

void
gaze_gc_count_freed(struct gaze_fs *fs, u64 moved, int why)
{
	u64 cap = gc_cap(fs), freed = moved < cap ? cap - moved : 0;
	u32 b;

	/* buckets: < 1/8, < 1/4, < 1/2, >= 1/2 of the zone freed */
	if (freed * 8 < cap)
		b = 0;
	else if (freed * 4 < cap)
		b = 1;
	else if (freed * 2 < cap)
		b = 2;
	else
		b = 3;
	fs->gc.freed_hist[b]++;
	if (gaze_gc_why_fg(why))
		fs->gc.freed_fg_hist[b]++;
	if (why == GAZE_GC_FG)
		gc_freed_min(&fs->gc.freed_min_fg, freed);
	if (why == GAZE_GC_LAST) {
		fs->gc.last_runs++;
		gc_freed_min(&fs->gc.freed_min_last, freed);
	}
}

/* ---------------------------------------------------------------- */
/* The baseline's triggers                                           */
/* ---------------------------------------------------------------- */

/* a checkpoint written to move PREFREE zones on towards FREE */
static int
gc_checkpoint(struct gaze_fs *fs)
{
	u64 t0 = gaze_time_ns();
	int ret;

	ret = gaze_cp_write(fs, 0);
	fs->gc.checkpoints++;
	fs->gc.time_ns += gaze_time_ns() - t0;
	return ret;
}

/*
 * Valid blocks the baseline mover moves per step (8 MiB): the module lets
 * go of fs->lock between steps, so that no task waits on it for a whole
 * zone's move (181 s for one 256 MiB zone on a loaded TCG guest, and the
 * hung-task detector fired on the GC thread waiting for the lock).
 */
#define GC_MOVE_CHUNK	2048

int
gaze_gc_mv_step(struct gaze_fs *fs)
{
	u32 chunk = fs->gc_move_chunk ? fs->gc_move_chunk : GC_MOVE_CHUNK;
	bool done;
	int ret = gaze_gc_move_step(fs, &fs->gc_mv, chunk, &done);

	return ret ? ret : !done;
}

/* one victim for `why`, its move by the baseline mover begun and taken a
 * chunk on (gc_mv_step's result); -ENOENT / -ENOSPC: none possible now */
static int
gc_one(struct gaze_fs *fs, int why)
{
	u32 zone;
	int ret;

	ret = gaze_gc_pick(fs, why, &zone);
	if (ret)
		return ret;
	ret = gaze_gc_move_begin(fs, &fs->gc_mv, zone, why);
	if (ret)
		return ret;
	return gaze_gc_mv_step(fs);
}

/* zones that are free or will be after their checkpoints */
static u32
gc_avail(struct gaze_fs *fs)
{
	return gaze_space_free_zones(fs) + gaze_space_nr_prefree(fs);
}

/* a hold of fs->lock by GC that began at t0 ended: the longest counts */
static void
gc_hold_note(struct gaze_fs *fs, u64 t0)
{
	u64 ns = gaze_time_ns() - t0;

	if (ns > fs->gc.hold_ns_max)
		fs->gc.hold_ns_max = ns;
}

/* a zone of the run moved: victims too full to pay for their move count
 * as strikes */
static void
gc_fg_moved(struct gaze_fs *fs, struct gaze_gc_fg_run *r)
{
	r->strikes = gc_avail(fs) > r->before ? 0 : r->strikes + 1;
	r->can_gc = r->strikes < GC_FG_STRIKES;
}

/* FG, or LAST when a writer can go on no other way */
static int
gc_fg_one(struct gaze_fs *fs, u32 need)
{
	int ret = gc_one(fs, GAZE_GC_FG);

	if (ret == -ENOENT && !gaze_space_nr_prefree(fs) &&
	    gaze_space_free_zones(fs) <= gaze_space_user_floor(fs) + need)
		ret = gc_one(fs, GAZE_GC_LAST);
	return ret;
}

/*
 * Starts a run when FREE zones are below base + need (base: a level of
 * gaze_gc_levels); batch: zones to go on for once started.
 */
static bool
gc_fg_start(struct gaze_fs *fs, u32 base, u32 need, u32 batch,
	    struct gaze_gc_fg_run *r)
{
	memset(r, 0, sizeof(*r));
	if ((fs->flags & GAZE_FS_RDONLY) || fs->gc_active)
		return false;
	r->need = need;
	r->want = base + need;
	r->enough = r->want;
	if (gaze_space_free_zones(fs) >= r->want)
		return false;
	/*
	 * Zones PREFREE enough: settle them, move nothing (the module's
	 * pipeline reclaims ahead of this and leaves them PREFREE until
	 * the next checkpoints).  Else, once moving, go on for the batch.
	 */
	if (gc_avail(fs) < r->want)
		r->want += batch;	/* the part a writer may hand off */
	r->rounds = 4 * fs->lay.main_zone_count + 8;
	r->can_gc = true;
	fs->gc.fg_runs++;
	return true;
}

/* only what the write cannot go on without: FREE zones above the floor
 * by its need, no batch */
static bool
gc_fg_start_min(struct gaze_fs *fs, u64 need_blocks, struct gaze_gc_fg_run *r)
{
	return gc_fg_start(fs, gaze_space_user_floor(fs) + 1,
			   gc_need_zones(fs, need_blocks), 0, r);
}

bool
gaze_wb_room_rest(struct gaze_fs *fs, u64 nr, bool in_flight,
		  struct gaze_gc_fg_run *r)
{
	/* nr + 2: what the core's balance asks for a batch of nr blocks
	 * (namei.c ns_write_vec_room) */
	return in_flight && gaze_space_fg_short(fs, nr) &&
	       gc_fg_start_min(fs, nr + 2, r);
}

bool
gaze_gc_fg_start(struct gaze_fs *fs, u64 need_blocks, struct gaze_gc_fg_run *r)
{
	struct gaze_gc_levels lv;
	u32 jobs;

	gaze_gc_levels(fs, 0, 0, &lv);
	/*
	 * Staged jobs in flight will free zones: take only what the write
	 * cannot go on without, since moving a zone here holds fs->lock,
	 * which those jobs need for each batch.
	 */
	gaze_gcp_pending_valid(fs, &jobs);
	if (jobs)
		return gc_fg_start_min(fs, need_blocks, r);
	return gc_fg_start(fs, lv.fg, gc_need_zones(fs, need_blocks),
			   lv.fg_batch, r);
}

static int
gc_fg_step(struct gaze_fs *fs, struct gaze_gc_fg_run *r, bool *done)
{
	int ret;

	*done = true;
	if (fs->flags & GAZE_FS_RDONLY)
		return 0;
	/* a zone half moved is finished first, whoever began it */
	if (fs->gc_mv.zone) {
		ret = gaze_gc_mv_step(fs);
		if (ret < 0)
			return ret;
		if (!ret)
			gc_fg_moved(fs, r);
		*done = false;
		return 0;
	}
	if (!r->rounds || gaze_space_free_zones(fs) >= r->want)
		return 0;
	r->rounds--;
	if (r->can_gc && gc_avail(fs) < r->want) {
		r->before = gc_avail(fs);
		ret = gc_fg_one(fs, r->need);
		if (ret >= 0) {
			if (!ret)
				gc_fg_moved(fs, r);
			*done = false;
			return 0;
		}
		if (ret != -ENOENT && ret != -ENOSPC)
			return ret;
		r->can_gc = false;
	}
	if (!gaze_space_nr_prefree(fs))
		return 0;			/* nothing more to gain */
	*done = false;
	return gc_checkpoint(fs);
}

/* one step of a stepped run: a hold of fs->lock of its own */
int
gaze_gc_fg_step(struct gaze_fs *fs, struct gaze_gc_fg_run *r, bool *done)
{
	u64 t0 = gaze_time_ns();
	int ret = gc_fg_step(fs, r, done);

	gc_hold_note(fs, t0);
	return ret;
}

/* whether a foreground step would move anything: a zone half moved, or
 * a victim that frees what a foreground reclaim must (gc_one's rule) */
static bool
gc_fg_has_work(struct gaze_fs *fs)
{
	u32 zone;
	bool any;

	return fs->gc_mv.zone ||
	       !gc_scan(fs, GAZE_GC_GREEDY, gaze_gc_min_gain(fs, GAZE_GC_FG),
			&zone, &any);
}

/*
 * The batch beyond r->enough goes to the GC thread, when the run has one
 * and a step would find work: with no victim the thread would only wake
 * to find none (the writer's own steps write the checkpoint that PREFREE
 * zones need).
 */
void
gaze_gc_fg_handoff(struct gaze_fs *fs, struct gaze_gc_fg_run *r)
{
	if (r->want <= r->enough || !gc_fg_has_work(fs))
		return;
	fs->gc_fg_rest = *r;
	fs->gc_fg_rest_on = true;
	r->want = r->enough;
	gaze_stat_inc(fs, GAZE_STAT_GC_HANDOFF);
}

/* a step of the run a writer handed over, in the background: 0 and
 * *more, or an error (the run is dropped then, as when it is done) */
static int
gc_fg_rest_step(struct gaze_fs *fs, bool *more)
{
	bool done = false;
	int ret;

	ret = gc_fg_step(fs, &fs->gc_fg_rest, &done);
	if (ret || done)
		fs->gc_fg_rest_on = false;
	*more = !ret && !done;
	return ret;
}

/* a whole run in one hold of fs->lock */
static int
gc_fg_run(struct gaze_fs *fs, struct gaze_gc_fg_run *r)
{
	u64 t0 = gaze_time_ns();
	bool done = false;
	int ret = 0;

	fs->gc_active = true;
	while (!done && !ret)
		ret = gc_fg_step(fs, r, &done);
	fs->gc_active = false;
	gc_hold_note(fs, t0);
	return ret;
}

int
gaze_gc_balance(struct gaze_fs *fs, u64 need_blocks)
{
	struct gaze_gc_fg_run r;
	bool start;

	if (fs->gc_fg_stepped)
		start = gc_fg_start_min(fs, need_blocks, &r);
	else
		start = gaze_gc_fg_start(fs, need_blocks, &r);
	if (!start)
		return 0;
	return gc_fg_run(fs, &r);
}

int
gaze_gc_balance_meta(struct gaze_fs *fs, u64 meta_blocks)
{
	u64 room = gaze_space_log_room(fs, GAZE_LOG_NODE_WARM);
	struct gaze_gc_fg_run r;
	u32 need = 0;

	/* metadata is written back with the writeback class, which may
	 * open the floor's zones: keep the floor once it is written */
	if (meta_blocks > room)
		need = (u32)min_t(u64, DIV_ROUND_UP(meta_blocks - room,
						    gc_cap(fs)),
				  fs->lay.main_zone_count);
	if (!gc_fg_start(fs, gaze_space_user_floor(fs), need, 0, &r))
		return 0;
	return gc_fg_run(fs, &r);
}

bool
gaze_gc_bg_wanted(struct gaze_fs *fs, u32 low_pct, u32 high_pct, u32 flags)
{
	struct gaze_gc_levels lv;

	gc_levels(fs, low_pct, high_pct, flags & GAZE_GC_BG_URGENT, &lv);
	return gc_avail(fs) < (flags & GAZE_GC_BG_GOING ? lv.bg_high :
			       lv.bg_low);
}

int
gaze_gc_background(struct gaze_fs *fs, u32 low_pct, u32 high_pct,
		   u32 flags, bool *more)
{
	int ret = 0;
	u64 t0;

	*more = false;
	if ((fs->flags & GAZE_FS_RDONLY) || fs->gc_active)
		return 0;
	/* the rest of a writer's run first (it finishes a zone half moved
	 * before it picks another) */
	if (fs->gc_fg_rest_on) {
		t0 = gaze_time_ns();
		fs->gc_active = true;
		ret = gc_fg_rest_step(fs, more);
		fs->gc_active = false;
		gc_hold_note(fs, t0);
		return ret;
	}
	/* a zone half moved is finished first, whatever the levels */
	if (!fs->gc_mv.zone && !(flags & GAZE_GC_BG_FORCE) &&
	    !gaze_gc_bg_wanted(fs, low_pct, high_pct, flags)) {
		/* enough space: only settle what is waiting */
		if (gaze_space_nr_prefree(fs))
			ret = gc_checkpoint(fs);
		return ret;
	}
	t0 = gaze_time_ns();
	fs->gc_active = true;
	ret = fs->gc_mv.zone ? gaze_gc_mv_step(fs) : gc_one(fs, GAZE_GC_BG);
	if (ret == 1) {
		*more = true;		/* the zone's next chunk */
		ret = 0;
	} else if (!ret) {
		fs->gc.bg_runs++;
		*more = gaze_gc_bg_wanted(fs, low_pct, high_pct,
					  flags | GAZE_GC_BG_GOING);
	} else if (ret == -ENOENT || ret == -ENOSPC) {
		ret = 0;
	}
	if (!ret && gaze_space_nr_prefree(fs))
		ret = gc_checkpoint(fs);
	fs->gc_active = false;
	gc_hold_note(fs, t0);
	return ret;
}

int
gaze_gc_settle(struct gaze_fs *fs)
{
	int i, ret = 0;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	/* a PREFREE zone is FREE at the second commit since it emptied */
	for (i = 0; i < 2 && gaze_space_nr_prefree(fs) && !ret; i++)
		ret = gc_checkpoint(fs);
	return ret;
}
