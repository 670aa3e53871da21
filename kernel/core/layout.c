// SPDX-License-Identifier: GPL-2.0
/*
 * layout.c - where everything goes on a device of a given geometry, and
 * how much space users get.
 *
 * mkfs computes the layout once and records it in the superblock; mount
 * and fsck recompute it from the superblock's inputs and insist on the
 * same answer, so a corrupted geometry field cannot send the filesystem
 * outside its areas.  The computation is therefore the single definition
 * of the layout, is deterministic, and is cheap (no allocation, a handful
 * of arithmetic steps even for millions of zones).
 *
 * Rules (version 1):
 *  - Geometry: zone_blocks >= GAZE_MIN_ZONE_BLOCKS (256, 1 MiB);
 *    256 <= zone_cap <= zone_blocks; nr_zones * zone_blocks <= nr_blocks;
 *    model is GAZE_ZM_HOST_MANAGED or GAZE_ZM_EMULATED.
 *  - Open zones: limit = the smaller non-zero of max_open and max_active
 *    (0 = unlimited).  GAZE keeps nr_logs + 2 zones open (one per log,
 *    the checkpoint zone, the meta-ring head).  nr_logs 0 = automatic:
 *    by the main zones M, 6 when M >= 48, 4 when M >= 24, else 3
 *    (layout_auto_logs), at most limit - 2; below 2 the device is
 *    refused.  An explicit nr_logs must be 2..6 and fit the limit.
 *  - Zones 0 and 1 are the checkpoint zones; the meta ring starts at
 *    zone 2; the main area follows it and runs to the last zone.
 *  - Tables, for M main zones of capacity C:
 *      usage blocks per zone   = ceil(C / GAZE_USAGE_BITS_PER_BLOCK)
 *      summary blocks per zone = ceil(C / GAZE_SUMMARY_PER_BLOCK)
 *      max_nid = min(0xfffffff0, max(1024, M * C))
 *      IMAP    = ceil(max_nid / 504)    ZINFO   = ceil(M / 252)
 *      USAGE   = M * usage per zone     SUMMARY = M * summary per zone
 *      index blocks of each table = ceil(table blocks / 504)
 *    T = all table and index blocks; the meta ring must hold two full
 *    copies plus a zone of slack: meta = max(2, ceil(2T / C) + 1).
 *  - M is the largest value with 2 + meta(M) + M <= nr_zones, found from
 *    M = nr_zones - 4 by one step down and then single steps up; zones
 *    left over go to the meta ring, so every zone is used.  M must be
 *    >= GAZE_MIN_MAIN_ZONES (-ENOSPC otherwise).
 *  - reserved_zones = nr_logs + 2 (kept free for GC).  Over-provisioning
 *    ovp_zones = max(reserved, ceil(M * pct / 100)), pct 1..50, or 5 when
 *    automatic (0); the layout then reports the effective percentage,
 *    ceil(ovp_zones * 100 / M).  At least one zone must remain for users:
 *    user_blocks = (M - ovp_zones) * C.
 *  - GC defaults: gc_pool_blocks min(C, 16384) (64 MiB), else 256..1048576
 *    (1 MiB..4 GiB); dirty_limit_pct 20 (1..90); gc_queue_depth
 *    GAZE_DEFAULT_QDEPTH (1..4096); background GC between 20% and 40%
 *    free.  victim_policy is GAZE_GC_GREEDY or GAZE_GC_COST_BENEFIT.
 *  - Compression defaults: algo <= GAZE_COMPRESS_MAX, level within the
 *    algorithm's range (0 = its default), log_cluster 0 (= 2) or 2..8.
 *
 * The superblock records ovp_percent as requested (0 = automatic), so
 * gaze_layout_from_super() feeds the same inputs back and gets the same
 * layout.  Arithmetic is 64-bit; the module targets 64-bit kernels.
 */
#include "gaze_core.h"

#define LAYOUT_CP_ZONES		2
#define LAYOUT_MAX_LOGS		GAZE_NR_LOG_TYPES	/* 6 */
#define LAYOUT_MIN_LOGS		2
#define LAYOUT_MAX_NID		0xfffffff0ull
#define LAYOUT_MIN_NID		1024ull
#define LAYOUT_AUTO_OVP_PCT	5
#define LAYOUT_MAX_OVP_PCT	50
#define LAYOUT_POOL_DEFAULT	16384ull	/* 64 MiB */
#define LAYOUT_POOL_MIN		256ull		/* 1 MiB */
#define LAYOUT_POOL_MAX		1048576ull	/* 4 GiB */
#define LAYOUT_MAX_DIRTY_PCT	90
#define LAYOUT_MAX_QDEPTH	4096
#define LAYOUT_BG_GC_LOW	20
#define LAYOUT_BG_GC_HIGH	40
#define LAYOUT_U32_MAX		0xffffffffull

static int
layout_bad(const char **why, const char *msg, int err)
{
	if (why)
		*why = msg;
	return err;
}

static int
layout_check_geometry(const struct gaze_geometry *g, const char **why)
{
	if (g->model != GAZE_ZM_HOST_MANAGED && g->model != GAZE_ZM_EMULATED)
		return layout_bad(why, "geometry: unknown zone model", -EINVAL);
	if (g->zone_blocks < GAZE_MIN_ZONE_BLOCKS)
		return layout_bad(why,
				  "geometry: zones are smaller than 1 MiB",
				  -EINVAL);
	if (g->zone_cap < GAZE_MIN_ZONE_BLOCKS)
		return layout_bad(why,
				  "geometry: zone capacity is below 1 MiB",
				  -EINVAL);
	if (g->zone_cap > g->zone_blocks)
		return layout_bad(why,
				  "geometry: zone capacity exceeds the zone size",
				  -EINVAL);
	if ((u64)g->nr_zones * g->zone_blocks > g->nr_blocks)
		return layout_bad(why,
				  "geometry: zones extend past the end of the device",
				  -EINVAL);
	return 0;
}

/* smaller non-zero of the two limits; 0 when neither limits */
static u32
layout_open_limit(const struct gaze_geometry *g)
{
	if (!g->max_open)
		return g->max_active;
	if (!g->max_active)
		return g->max_open;
	return min(g->max_open, g->max_active);
}

static const char *const layout_few_open[] = {
	"the device allows no open zones; GAZE needs at least 4",
	"the device allows only 1 open zone; GAZE needs at least 4",
	"the device allows only 2 open zones; GAZE needs at least 4",
	"the device allows only 3 open zones; GAZE needs at least 4",
};

/*
 * Logs for `main` main zones when the user did not say: each log keeps a
 * zone open that may be nearly empty, so each costs a zone of reserve
 * (layout_ovp).  Six logs (hot, warm, cold data and nodes) from 48 main
 * zones on, where the reserve stays under a sixth; four from 24 (data
 * and GC's cold data apart, nodes in two); three below (data, GC's cold
 * data, nodes), where six would take half the main area.
 */
static u32
layout_auto_logs(u32 main)
{
	if (main >= 48)
		return LAYOUT_MAX_LOGS;
	return main >= 24 ? 4 : 3;
}

static int
layout_nr_logs(const struct gaze_mkfs_params *p, struct gaze_layout *l,
	       const char **why)
{
	u32 limit = layout_open_limit(&p->geo);

	if (limit && limit < GAZE_MIN_OPEN_ZONES)
		return layout_bad(why, layout_few_open[limit], -EINVAL);
	if (!p->nr_logs) {
		l->nr_logs = layout_auto_logs(l->main_zone_count);
		if (limit)
			l->nr_logs = min_t(u32, l->nr_logs, limit - 2);
		return 0;
	}
	if (p->nr_logs < LAYOUT_MIN_LOGS || p->nr_logs > LAYOUT_MAX_LOGS)
		return layout_bad(why, "the number of logs must be 2..6",
				  -EINVAL);
	if (limit && p->nr_logs + 2 > limit)
		return layout_bad(why,
				  "too many logs for the open-zone limit (logs + 2 zones stay open)",
				  -EINVAL);
	l->nr_logs = p->nr_logs;
	return 0;
}

/*
 * Table geometry for `main` main zones; returns T, the table and index
 * blocks together.  Counts are u64 here and range-checked by the caller.
 */
static u64
layout_tables(u64 main, u32 zone_cap, u64 tb[GAZE_NR_TABLES],
	      u64 ti[GAZE_NR_TABLES], u64 *max_nid)
{
	u64 usage_bpz = DIV_ROUND_UP((u64)zone_cap, GAZE_USAGE_BITS_PER_BLOCK);
	u64 summary_bpz = DIV_ROUND_UP((u64)zone_cap, GAZE_SUMMARY_PER_BLOCK);
	u64 total = 0;
	int t;

	*max_nid = max_t(u64, LAYOUT_MIN_NID, main * zone_cap);
	*max_nid = min_t(u64, LAYOUT_MAX_NID, *max_nid);
	tb[GAZE_TABLE_IMAP] = DIV_ROUND_UP(*max_nid, GAZE_IMAP_PER_BLOCK);
	tb[GAZE_TABLE_ZINFO] = DIV_ROUND_UP(main, GAZE_ZINFO_PER_BLOCK);
	tb[GAZE_TABLE_USAGE] = main * usage_bpz;
	tb[GAZE_TABLE_SUMMARY] = main * summary_bpz;
	for (t = 0; t < GAZE_NR_TABLES; t++) {
		ti[t] = DIV_ROUND_UP(tb[t], GAZE_ADDRS_PER_BLOCK);
		total += tb[t] + ti[t];
	}
	return total;
}

static u64
layout_meta_need(u64 main, u32 zone_cap)
{
	u64 tb[GAZE_NR_TABLES], ti[GAZE_NR_TABLES], max_nid;
	u64 total = layout_tables(main, zone_cap, tb, ti, &max_nid);

	return max_t(u64, 2, DIV_ROUND_UP(2 * total, (u64)zone_cap) + 1);
}

/* the largest main area that fits beside its own meta ring */
static int
layout_areas(u32 nr_zones, u32 zone_cap, struct gaze_layout *l,
	     const char **why)
{
	u64 n = nr_zones, main, meta;

	if (n < LAYOUT_CP_ZONES + 2 + GAZE_MIN_MAIN_ZONES)
		goto too_small;
	main = n - LAYOUT_CP_ZONES - 2;
	meta = layout_meta_need(main, zone_cap);
	if (main + meta + LAYOUT_CP_ZONES > n) {
		if (meta + LAYOUT_CP_ZONES + GAZE_MIN_MAIN_ZONES > n)
			goto too_small;
		main = n - LAYOUT_CP_ZONES - meta;
	}
	/* meta_need only shrinks as main does, so the step down fits;
	 * now take back any zone the smaller meta ring freed */
	while (main + 1 + layout_meta_need(main + 1, zone_cap) +
	       LAYOUT_CP_ZONES <= n)
		main++;
	if (main < GAZE_MIN_MAIN_ZONES)
		goto too_small;

	l->nr_zones = nr_zones;
	l->cp_zone_start = 0;
	l->cp_zone_count = LAYOUT_CP_ZONES;
	l->meta_zone_start = LAYOUT_CP_ZONES;
	l->meta_zone_count = (u32)(n - LAYOUT_CP_ZONES - main);
	l->main_zone_start = l->meta_zone_start + l->meta_zone_count;
	l->main_zone_count = (u32)main;
	return 0;

too_small:
	return layout_bad(why,
			  "device too small: fewer than 8 main zones after checkpoint and metadata",
			  -ENOSPC);
}

static int
layout_fill_tables(struct gaze_layout *l, u32 zone_cap, const char **why)
{
	u64 tb[GAZE_NR_TABLES], ti[GAZE_NR_TABLES], max_nid;
	int t;

	layout_tables(l->main_zone_count, zone_cap, tb, ti, &max_nid);
	for (t = 0; t < GAZE_NR_TABLES; t++) {
		if (tb[t] > LAYOUT_U32_MAX)
			return layout_bad(why,
					  "device too large: metadata tables exceed 2^32 blocks",
					  -EINVAL);
		l->table_blocks[t] = (u32)tb[t];
		l->table_index_blocks[t] = (u32)ti[t];
	}
	l->max_nid = (u32)max_nid;
	l->usage_blocks_per_zone = DIV_ROUND_UP(zone_cap,
						GAZE_USAGE_BITS_PER_BLOCK);
	l->summary_blocks_per_zone = DIV_ROUND_UP(zone_cap,
						  GAZE_SUMMARY_PER_BLOCK);
	return 0;
}

static int
layout_ovp(const struct gaze_mkfs_params *p, struct gaze_layout *l,
	   const char **why)
{
	u64 main = l->main_zone_count;
	u32 pct = p->ovp_percent ? p->ovp_percent : LAYOUT_AUTO_OVP_PCT;
	u64 ovp;

	if (pct > LAYOUT_MAX_OVP_PCT)
		return layout_bad(why,
				  "over-provisioning must be 1..50 percent",
				  -EINVAL);
	l->reserved_zones = l->nr_logs + 2;
	ovp = max_t(u64, l->reserved_zones, DIV_ROUND_UP(main * pct, 100));
	if (ovp >= main)
		return layout_bad(why,
				  "device too small: over-provisioning leaves no zone for data",
				  -ENOSPC);
	l->ovp_zones = (u32)ovp;
	l->ovp_percent = p->ovp_percent ? p->ovp_percent :
			 (u32)DIV_ROUND_UP(ovp * 100, main);
	l->user_blocks = (main - ovp) * p->geo.zone_cap;
	return 0;
}

static int
layout_gc(const struct gaze_mkfs_params *p, struct gaze_layout *l,
	  const char **why)
{
	if (!p->gc_pool_blocks) {
		l->gc_pool_blocks = min_t(u64, p->geo.zone_cap,
					  LAYOUT_POOL_DEFAULT);
	} else if (p->gc_pool_blocks < LAYOUT_POOL_MIN ||
		   p->gc_pool_blocks > LAYOUT_POOL_MAX) {
		return layout_bad(why,
				  "the GC page pool must be 1 MiB..4 GiB (256..1048576 blocks)",
				  -EINVAL);
	} else {
		l->gc_pool_blocks = p->gc_pool_blocks;
	}

	l->dirty_limit_pct = p->dirty_limit_pct ? p->dirty_limit_pct :
			     GAZE_DEFAULT_DIRTY_PCT;
	if (l->dirty_limit_pct > LAYOUT_MAX_DIRTY_PCT)
		return layout_bad(why, "the dirty limit must be 1..90 percent",
				  -EINVAL);
	l->gc_queue_depth = p->gc_queue_depth ? p->gc_queue_depth :
			    GAZE_DEFAULT_QDEPTH;
	if (l->gc_queue_depth > LAYOUT_MAX_QDEPTH)
		return layout_bad(why, "the GC queue depth must be 1..4096",
				  -EINVAL);
	if (p->victim_policy != GAZE_GC_GREEDY &&
	    p->victim_policy != GAZE_GC_COST_BENEFIT)
		return layout_bad(why, "unknown GC victim policy", -EINVAL);
	l->bg_gc_low_pct = LAYOUT_BG_GC_LOW;
	l->bg_gc_high_pct = LAYOUT_BG_GC_HIGH;
	return 0;
}

static int
layout_compress(const struct gaze_mkfs_params *p, const char **why)
{
	int maxlvl = gaze_fmt_compress_max_level(p->compress_algo);

	if (maxlvl < 0)
		return layout_bad(why, "unknown compression algorithm",
				  -EINVAL);
	if (p->compress_level > maxlvl)
		return layout_bad(why,
				  "compression level out of range for the algorithm",
				  -EINVAL);
	if (p->compress_log_cluster &&
	    (p->compress_log_cluster < 2 || p->compress_log_cluster > 8))
		return layout_bad(why,
				  "compression cluster must be 2^2..2^8 blocks",
				  -EINVAL);
	return 0;
}

int
gaze_layout_compute(const struct gaze_mkfs_params *p, struct gaze_layout *l,
		    const char **why)
{
	int err;

	memset(l, 0, sizeof(*l));
	err = layout_check_geometry(&p->geo, why);
	if (err)
		return err;
	err = layout_areas(p->geo.nr_zones, p->geo.zone_cap, l, why);
	if (err)
		return err;
	err = layout_nr_logs(p, l, why);
	if (err)
		return err;
	err = layout_fill_tables(l, p->geo.zone_cap, why);
	if (err)
		return err;
	err = layout_ovp(p, l, why);
	if (err)
		return err;
	err = layout_gc(p, l, why);
	if (err)
		return err;
	return layout_compress(p, why);
}

int
gaze_layout_from_super(const struct gaze_super *sb, struct gaze_layout *l,
		       const char **why)
{
	struct gaze_mkfs_params p;
	int err;

	memset(&p, 0, sizeof(p));
	p.geo.nr_blocks = le64_to_cpu(sb->total_blocks);
	p.geo.zone_blocks = le32_to_cpu(sb->zone_blocks);
	p.geo.zone_cap = le32_to_cpu(sb->zone_cap);
	p.geo.nr_zones = le32_to_cpu(sb->nr_zones);
	p.geo.nr_conv = le32_to_cpu(sb->nr_conv_zones);
	p.geo.max_open = le32_to_cpu(sb->max_open);
	p.geo.max_active = le32_to_cpu(sb->max_active);
	p.geo.model = le32_to_cpu(sb->zone_model);
	p.nr_logs = le32_to_cpu(sb->nr_logs);
	p.ovp_percent = le32_to_cpu(sb->ovp_percent);
	p.gc_pool_blocks = le64_to_cpu(sb->gc_pool_blocks);
	p.dirty_limit_pct = le32_to_cpu(sb->dirty_limit_pct);
	p.gc_queue_depth = le32_to_cpu(sb->gc_queue_depth);
	p.victim_policy = le32_to_cpu(sb->victim_policy);
	p.compress_algo = sb->compress_algo;
	p.compress_level = sb->compress_level;
	p.compress_log_cluster = sb->compress_log_cluster;

	/* recorded values are explicit: 0 would silently mean "default" */
	if (!p.nr_logs || !p.gc_pool_blocks || !p.dirty_limit_pct ||
	    !p.gc_queue_depth)
		return layout_bad(why, "super: a recorded layout input is zero",
				  -EFSCORRUPTED);
	err = gaze_layout_compute(&p, l, why);
	return err ? -EFSCORRUPTED : 0;
}
