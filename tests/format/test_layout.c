// SPDX-License-Identifier: GPL-2.0
/*
 * test_layout.c - the layout rules of layout.c on concrete devices, the
 * error cases mkfs reports to users, an independent brute-force model
 * of the zone split over many geometries, and the round trip through the
 * superblock (build -> verify -> gaze_layout_from_super).
 */
#include <stdlib.h>
#include <string.h>

#include "gaze_core.h"
#include "../tap.h"

#define MIB_BLOCKS	256u		/* 1 MiB in 4 KiB blocks */

static void
params_init(struct gaze_mkfs_params *p, u32 nr_zones, u32 zone_blocks,
	    u32 zone_cap)
{
	memset(p, 0, sizeof(*p));
	p->geo.zone_blocks = zone_blocks;
	p->geo.zone_cap = zone_cap;
	p->geo.nr_zones = nr_zones;
	p->geo.nr_blocks = (u64)nr_zones * zone_blocks;
	p->geo.model = GAZE_ZM_EMULATED;
	gaze_fmt_feature_defaults(&p->feature_compat, &p->feature_ro_compat,
				  &p->feature_incompat);
}

static int
compute(const struct gaze_mkfs_params *p, struct gaze_layout *l,
	const char **why)
{
	*why = NULL;
	return gaze_layout_compute(p, l, why);
}

/* expects error `want` with a reason; the reason is shown in the line */
static void
expect_err(const struct gaze_mkfs_params *p, int want, const char *desc)
{
	struct gaze_layout l;
	const char *why;
	int err = compute(p, &l, &why);

	tap_ok(err == want && why && *why, "%s: %d (%s)", desc, err,
	       why ? why : "no reason");
}

static void
print_layout(const char *name, const struct gaze_layout *l)
{
	printf("# %s: zones %u cp %u+%u meta %u+%u main %u+%u ovp %u (%u%%) "
	       "reserved %u logs %u max_nid %u user_blocks %llu\n",
	       name, l->nr_zones, l->cp_zone_start, l->cp_zone_count,
	       l->meta_zone_start, l->meta_zone_count, l->main_zone_start,
	       l->main_zone_count, l->ovp_zones, l->ovp_percent,
	       l->reserved_zones, l->nr_logs, l->max_nid,
	       (unsigned long long)l->user_blocks);
	printf("#   usage/zone %u summary/zone %u tables %u %u %u %u "
	       "index %u %u %u %u pool %llu dirty %u qdepth %u bg %u..%u\n",
	       l->usage_blocks_per_zone, l->summary_blocks_per_zone,
	       l->table_blocks[0], l->table_blocks[1], l->table_blocks[2],
	       l->table_blocks[3], l->table_index_blocks[0],
	       l->table_index_blocks[1], l->table_index_blocks[2],
	       l->table_index_blocks[3],
	       (unsigned long long)l->gc_pool_blocks, l->dirty_limit_pct,
	       l->gc_queue_depth, l->bg_gc_low_pct, l->bg_gc_high_pct);
}

/* 1 GiB: 64 zones of 16 MiB */
static void
test_small(void)
{
	static const u32 tb[4] = { 488, 1, 60, 540 }, ti[4] = { 1, 1, 1, 2 };
	struct gaze_mkfs_params p;
	struct gaze_layout l;
	const char *why;
	int err;

	params_init(&p, 64, 16 * MIB_BLOCKS, 16 * MIB_BLOCKS);
	err = compute(&p, &l, &why);
	tap_ok(!err, "1 GiB device, 16 MiB zones: computes (%s)",
	       err ? why : "ok");
	print_layout("1 GiB / 16 MiB zones", &l);
	tap_ok(l.nr_zones == 64 && l.cp_zone_start == 0 &&
	       l.cp_zone_count == 2 && l.meta_zone_start == 2 &&
	       l.meta_zone_count == 2 && l.main_zone_start == 4 &&
	       l.main_zone_count == 60, "small: cp 0+2, meta 2+2, main 4+60");
	tap_ok(l.nr_logs == 6 && l.reserved_zones == 8 && l.ovp_zones == 8 &&
	       l.ovp_percent == 14, "small: 6 logs, 8 reserved = 8 ovp zones (14%%)");
	tap_ok(l.user_blocks == 52ull * 4096, "small: user blocks (60-8)*4096");
	tap_ok(l.max_nid == 245760 && l.usage_blocks_per_zone == 1 &&
	       l.summary_blocks_per_zone == 9, "small: max_nid and per-zone tables");
	tap_ok(!memcmp(l.table_blocks, tb, sizeof(tb)) &&
	       !memcmp(l.table_index_blocks, ti, sizeof(ti)),
	       "small: table and index block counts");
	tap_ok(l.gc_pool_blocks == 4096 && l.dirty_limit_pct == 20 &&
	       l.gc_queue_depth == GAZE_DEFAULT_QDEPTH &&
	       l.bg_gc_low_pct == 20 && l.bg_gc_high_pct == 40,
	       "small: GC defaults (pool = one zone)");
}

/* 1 TiB: 4096 zones of 256 MiB, capacity 240 MiB */
static void
test_big(void)
{
	static const u32 tb[4] = { 494934, 17, 8120, 495320 };
	static const u32 ti[4] = { 983, 1, 17, 983 };
	struct gaze_mkfs_params p;
	struct gaze_layout l;
	const char *why;
	u64 t0, t1;
	int i, err;

	params_init(&p, 4096, 256 * MIB_BLOCKS, 240 * MIB_BLOCKS);
	p.geo.model = GAZE_ZM_HOST_MANAGED;
	p.geo.max_open = 14;
	p.geo.max_active = 14;
	err = compute(&p, &l, &why);
	tap_ok(!err, "1 TiB device, 256 MiB zones (240 MiB capacity): computes");
	print_layout("1 TiB / 256 MiB zones, 240 MiB cap", &l);
	tap_ok(l.meta_zone_start == 2 && l.meta_zone_count == 34 &&
	       l.main_zone_start == 36 && l.main_zone_count == 4060,
	       "big: meta 2+34, main 36+4060");
	tap_ok(l.ovp_zones == 203 && l.ovp_percent == 5 && l.reserved_zones == 8,
	       "big: 5%% over-provisioning = 203 zones");
	tap_ok(l.user_blocks == (4060ull - 203) * 61440,
	       "big: user blocks use the capacity, not the zone size");
	tap_ok(l.max_nid == 249446400 && l.usage_blocks_per_zone == 2 &&
	       l.summary_blocks_per_zone == 122, "big: max_nid and per-zone tables");
	tap_ok(!memcmp(l.table_blocks, tb, sizeof(tb)) &&
	       !memcmp(l.table_index_blocks, ti, sizeof(ti)),
	       "big: table and index block counts");
	tap_ok(l.gc_pool_blocks == 16384, "big: GC pool defaults to 64 MiB");

	params_init(&p, 4096, 256 * MIB_BLOCKS, 256 * MIB_BLOCKS);
	err = compute(&p, &l, &why);
	print_layout("1 TiB / 256 MiB zones, full capacity", &l);
	tap_ok(!err && l.meta_zone_count == 34 && l.main_zone_count == 4060 &&
	       l.max_nid == 266076160 && l.table_blocks[0] == 527929 &&
	       l.table_blocks[3] == 531860 && l.usage_blocks_per_zone == 3 &&
	       l.user_blocks == (4060ull - 203) * 65536,
	       "1 TiB, zone capacity = zone size: meta 34, main 4060");
	params_init(&p, 4096, 256 * MIB_BLOCKS, 240 * MIB_BLOCKS);
	p.geo.model = GAZE_ZM_HOST_MANAGED;
	p.geo.max_open = 14;
	p.geo.max_active = 14;

	t0 = gaze_time_ns();
	for (i = 0; i < 1000; i++)
		compute(&p, &l, &why);
	t1 = gaze_time_ns();
	printf("# 1 TiB layout: %llu ns per computation\n",
	       (unsigned long long)(t1 - t0) / 1000);
	tap_ok((t1 - t0) / 1000 < 50000, "big: computes in microseconds");
}

static void
test_errors(void)
{
	struct gaze_mkfs_params p;
	struct gaze_layout l;
	const char *why;
	int err;

	params_init(&p, 10, 4096, 4096);
	expect_err(&p, -ENOSPC, "10 zones: device too small");
	err = compute(&p, &l, &why);
	tap_ok(err == -ENOSPC && strstr(why, "too small"),
	       "the reason says the device is too small");
	params_init(&p, 12, 4096, 4096);
	p.nr_logs = 6;
	expect_err(&p, -ENOSPC, "12 zones, 6 logs: over-provisioning leaves nothing");
	params_init(&p, 13, 4096, 4096);
	p.nr_logs = 6;
	tap_ok(!compute(&p, &l, &why) && l.main_zone_count == 9 &&
	       l.ovp_zones == 8, "13 zones, 6 logs: one usable zone is enough");
	/* automatic logs by main zones (layout_auto_logs) */
	params_init(&p, 12, 4096, 4096);
	tap_ok(!compute(&p, &l, &why) && l.nr_logs == 3 &&
	       l.reserved_zones == 5 && l.user_blocks == 3ull * 4096,
	       "12 zones: 3 logs, 5 reserved, 3 zones usable");
	params_init(&p, 16, 65536, 65536);
	tap_ok(!compute(&p, &l, &why) && l.main_zone_count == 12 &&
	       l.nr_logs == 3 && l.user_blocks == 7ull * 65536,
	       "16 x 256 MiB: 12 main zones, 3 logs, 7 zones usable");
	params_init(&p, 32, 262144, 262144);
	tap_ok(!compute(&p, &l, &why) && l.main_zone_count == 28 &&
	       l.nr_logs == 4 && l.user_blocks == 22ull * 262144,
	       "32 x 1 GiB: 28 main zones, 4 logs, 22 zones usable");
	params_init(&p, 51, 4096, 4096);
	tap_ok(!compute(&p, &l, &why) && l.main_zone_count == 47 &&
	       l.nr_logs == 4, "47 main zones: 4 logs");
	params_init(&p, 52, 4096, 4096);
	tap_ok(!compute(&p, &l, &why) && l.main_zone_count == 48 &&
	       l.nr_logs == 6, "48 main zones: 6 logs");
	params_init(&p, 12, 4096, 4096);
	p.nr_logs = 2;
	tap_ok(!compute(&p, &l, &why) && l.main_zone_count == 8 &&
	       l.ovp_zones == 4, "12 zones with 2 logs fits (8 main, 4 ovp)");

	params_init(&p, 64, 4096, 4096);
	p.geo.max_open = 3;
	expect_err(&p, -EINVAL, "max_open 3");
	err = compute(&p, &l, &why);
	tap_ok(err == -EINVAL && strstr(why, "only 3 open zones"),
	       "the reason names the 3 open zones");
	p.geo.max_open = 0;
	p.geo.max_active = 1;
	expect_err(&p, -EINVAL, "max_active 1");
	p.geo.max_active = 4;
	tap_ok(!compute(&p, &l, &why) && l.nr_logs == 2 && l.reserved_zones == 4,
	       "max_active 4: 2 logs");
	p.geo.max_open = 14;
	p.geo.max_active = 5;
	tap_ok(!compute(&p, &l, &why) && l.nr_logs == 3,
	       "max_open 14, max_active 5: the smaller limit gives 3 logs");
	p.nr_logs = 4;
	expect_err(&p, -EINVAL, "4 logs on a 5-open-zone device");
	p.geo.max_active = 0;
	p.nr_logs = 7;
	expect_err(&p, -EINVAL, "7 logs");
	p.nr_logs = 1;
	expect_err(&p, -EINVAL, "1 log");
	p.nr_logs = 2;
	tap_ok(!compute(&p, &l, &why) && l.nr_logs == 2 && l.reserved_zones == 4,
	       "2 logs explicit: accepted");
}

static void
test_geometry_errors(void)
{
	struct gaze_mkfs_params p;
	struct gaze_layout l;
	const char *why;

	params_init(&p, 64, 128, 128);
	expect_err(&p, -EINVAL, "512 KiB zones");
	params_init(&p, 64, 4096, 4097);
	expect_err(&p, -EINVAL, "capacity above zone size");
	params_init(&p, 64, 4096, 255);
	expect_err(&p, -EINVAL, "capacity 255 blocks");
	params_init(&p, 64, 4096, 256);
	tap_ok(!compute(&p, &l, &why), "capacity 256 blocks: accepted");
	params_init(&p, 64, 4096, 4096);
	p.geo.nr_blocks--;
	expect_err(&p, -EINVAL, "zones past the device end");
	params_init(&p, 64, 4096, 4096);
	p.geo.model = 0;
	expect_err(&p, -EINVAL, "unknown zone model");
}

static void
test_ranges(void)
{
	struct gaze_mkfs_params p;
	struct gaze_layout l;
	const char *why;

	params_init(&p, 1024, 4096, 4096);
	p.ovp_percent = 51;
	expect_err(&p, -EINVAL, "ovp 51%");
	p.ovp_percent = 50;
	tap_ok(!compute(&p, &l, &why) && l.ovp_percent == 50 &&
	       l.ovp_zones == (l.main_zone_count + 1) / 2, "ovp 50%%: half the main zones");
	p.ovp_percent = 1;
	tap_ok(!compute(&p, &l, &why) && l.ovp_zones == 11 && l.ovp_percent == 1,
	       "ovp 1%%: ceil(1%% of main) = 11 zones (reserved is 8)");
	p.ovp_percent = 0;

	p.gc_pool_blocks = 255;
	expect_err(&p, -EINVAL, "GC pool 255 blocks");
	p.gc_pool_blocks = 256;
	tap_ok(!compute(&p, &l, &why) && l.gc_pool_blocks == 256,
	       "GC pool 1 MiB: accepted");
	p.gc_pool_blocks = 1048576;
	tap_ok(!compute(&p, &l, &why) && l.gc_pool_blocks == 1048576,
	       "GC pool 4 GiB: accepted");
	p.gc_pool_blocks = 1048577;
	expect_err(&p, -EINVAL, "GC pool over 4 GiB");
	p.gc_pool_blocks = 0;

	p.dirty_limit_pct = 91;
	expect_err(&p, -EINVAL, "dirty limit 91%");
	p.dirty_limit_pct = 90;
	tap_ok(!compute(&p, &l, &why) && l.dirty_limit_pct == 90,
	       "dirty limit 90%%: accepted");
	p.dirty_limit_pct = 0;
	p.gc_queue_depth = 4097;
	expect_err(&p, -EINVAL, "queue depth 4097");
	p.gc_queue_depth = 4096;
	tap_ok(!compute(&p, &l, &why) && l.gc_queue_depth == 4096,
	       "queue depth 4096: accepted");
	p.gc_queue_depth = 0;
	p.victim_policy = 2;
	expect_err(&p, -EINVAL, "unknown victim policy");
	p.victim_policy = GAZE_GC_COST_BENEFIT;
	p.compress_algo = GAZE_COMPRESS_GZIP;
	p.compress_level = 10;
	expect_err(&p, -EINVAL, "gzip level 10");
	p.compress_level = 9;
	p.compress_log_cluster = 9;
	expect_err(&p, -EINVAL, "cluster 2^9 blocks");
	p.compress_log_cluster = 8;
	tap_ok(!compute(&p, &l, &why), "gzip-9 with 2^8-block clusters: accepted");
	p.compress_algo = 4;
	p.compress_level = 0;
	expect_err(&p, -EINVAL, "unknown compression algorithm");
}

/* the test's own statement of the table rules */
static u64
model_meta(u64 main, u64 cap)
{
	u64 nid = main * cap, tb[4], total = 0;
	int t;

	nid = nid < 1024 ? 1024 : nid;
	nid = nid > 0xfffffff0ull ? 0xfffffff0ull : nid;
	tb[0] = (nid + 503) / 504;
	tb[1] = (main + 251) / 252;
	tb[2] = main * ((cap + 32255) / 32256);
	tb[3] = main * ((cap + 503) / 504);
	for (t = 0; t < 4; t++)
		total += tb[t] + (tb[t] + 503) / 504;
	total = (2 * total + cap - 1) / cap + 1;
	return total < 2 ? 2 : total;
}

/* largest main area that fits, by trying every size from the top */
static u64
model_main(u32 nr_zones, u32 cap)
{
	u64 main;

	for (main = nr_zones - 4; main > 0; main--)
		if (main + model_meta(main, cap) + 2 <= nr_zones)
			return main;
	return 0;
}

static void
test_model_sweep(void)
{
	static const u32 caps[] = { 256, 300, 1000, 4096, 32256, 32257, 65536,
				    262144, 275712, 524288 };
	struct gaze_mkfs_params p;
	struct gaze_layout l;
	const char *why;
	int bad = 0, runs = 0;
	u32 c, z;
	u64 main;

	for (c = 0; c < ARRAY_SIZE(caps); c++) {
		for (z = 12; z < 20000; z = z * 5 / 4 + 1) {
			params_init(&p, z, caps[c] < 4096 ? 4096 : caps[c],
				    caps[c]);
			p.nr_logs = 2;
			main = model_main(z, caps[c]);
			if (compute(&p, &l, &why)) {
				bad += main >= 8;
				continue;
			}
			runs++;
			bad += l.main_zone_count != main;
			bad += l.meta_zone_count < model_meta(main, caps[c]);
			bad += l.cp_zone_count + l.meta_zone_count +
			       l.main_zone_count != z;
			bad += l.user_blocks != (u64)(l.main_zone_count -
						      l.ovp_zones) * caps[c];
		}
	}
	printf("# %d geometries compared with the brute-force model\n", runs);
	tap_ok(!bad && runs > 100,
	       "layout = brute-force model over many geometries");
}

static void
fill_identity(struct gaze_mkfs_params *p)
{
	int i;

	for (i = 0; i < 16; i++)
		p->uuid[i] = 0x10 + i;
	for (i = 0; i < 4; i++)
		p->dir_hash_seed[i] = 0x01020304u * (i + 1);
	p->mkfs_time = 1700000000;
	strcpy(p->label, "scratch");
	strcpy(p->version, "gaze-0.1");
}

/* build both copies, verify them, recompute the layout from each */
static int
round_trip(const struct gaze_mkfs_params *p, const char *name)
{
	static struct gaze_super sb;
	struct gaze_layout l, l2;
	const char *why = NULL;
	u32 copy;
	int err = compute(p, &l, &why);

	if (err) {
		printf("# %s: layout failed: %s\n", name, why);
		return 0;
	}
	for (copy = 0; copy < 2; copy++) {
		u64 at = (u64)copy * p->geo.zone_blocks;

		gaze_fmt_super_build(&sb, p, &l, copy, at);
		err = gaze_fmt_super_verify(&sb, at, &why);
		if (err) {
			printf("# %s copy %u: verify: %s\n", name, copy, why);
			return 0;
		}
		err = gaze_layout_from_super(&sb, &l2, &why);
		if (err || memcmp(&l, &l2, sizeof(l))) {
			printf("# %s copy %u: layout differs\n", name, copy);
			return 0;
		}
	}
	return 1;
}

static void
test_round_trip(void)
{
	struct gaze_mkfs_params p;
	u32 n;
	int ok = 1;

	params_init(&p, 64, 4096, 4096);
	fill_identity(&p);
	tap_ok(round_trip(&p, "small"), "super round trip: 1 GiB, automatic");
	params_init(&p, 4096, 65536, 61440);
	fill_identity(&p);
	p.geo.max_open = 14;
	p.geo.model = GAZE_ZM_HOST_MANAGED;
	p.ovp_percent = 7;
	p.gc_pool_blocks = 65536;
	p.dirty_limit_pct = 10;
	p.gc_queue_depth = 256;
	p.victim_policy = GAZE_GC_COST_BENEFIT;
	p.compress_algo = GAZE_COMPRESS_ZSTD;
	p.compress_level = 19;
	p.compress_log_cluster = 4;
	tap_ok(round_trip(&p, "big"), "super round trip: 1 TiB, every knob set");
	/* automatic over-provisioning where rounding the percentage up
	 * would not reproduce the zone count */
	for (n = 40; n < 800 && ok; n += 7) {
		params_init(&p, n, 4096, 4000);
		fill_identity(&p);
		ok = round_trip(&p, "sweep");
	}
	tap_ok(ok, "super round trip: automatic ovp over 40..800 zones");
}

int
main(void)
{
	test_small();
	test_big();
	test_errors();
	test_geometry_errors();
	test_ranges();
	test_model_sweep();
	test_round_trip();
	return tap_done();
}
