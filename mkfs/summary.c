// SPDX-License-Identifier: GPL-2.0
/*
 * summary.c - the report mkfs.gaze prints: geometry, where every zone
 * went, what users get, and the GC defaults the module will read.
 *
 * Why: an administrator formatting a 20 TB drive should see, before and
 * after, exactly how much of it becomes usable and how much memory the
 * GC pool and the dirty limit will take; -n prints the same report
 * without writing, so the two must come from one function.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/sysinfo.h>

#include "gaze_util.h"
#include "gaze_zdev.h"
#include "mkfs.h"

static const char *const table_names[GAZE_NR_TABLES] = {
	[GAZE_TABLE_IMAP]	= "inode map",
	[GAZE_TABLE_ZINFO]	= "zone info",
	[GAZE_TABLE_USAGE]	= "usage bitmaps",
	[GAZE_TABLE_SUMMARY]	= "block summaries",
};

static char *
human(u64 bytes, char *buf)
{
	return gaze_size_human(bytes, buf, GAZE_SIZE_HUMAN_LEN);
}

static u64
blocks_bytes(u64 blocks)
{
	return blocks << GAZE_BLOCK_SHIFT;
}

/* "unlimited" or the number */
static const char *
limit_str(u32 v, char *buf, size_t len)
{
	if (!v)
		return "unlimited";
	snprintf(buf, len, "%u", v);
	return buf;
}

static void
zone_range(const char *what, u32 start, u32 count, const char *extra)
{
	if (count == 1)
		printf("%-20s %u (zone %u)%s\n", what, count, start, extra);
	else
		printf("%-20s %u (zones %u-%u)%s\n", what, count, start,
		       start + count - 1, extra);
}

static void
print_tables(const struct gaze_layout *l)
{
	char h[GAZE_SIZE_HUMAN_LEN];
	u64 total = 0;
	int t;

	printf("Metadata tables:\n");
	for (t = 0; t < GAZE_NR_TABLES; t++) {
		u64 b = (u64)l->table_blocks[t] + l->table_index_blocks[t];

		printf("  %-18s %u blocks + %u index blocks (%s)\n",
		       table_names[t], l->table_blocks[t],
		       l->table_index_blocks[t], human(blocks_bytes(b), h));
		total += b;
	}
	printf("  %-18s %" PRIu64 " blocks (%s), kept twice in the meta ring\n",
	       "total", total, human(blocks_bytes(total), h));
	printf("  %-18s %u\n", "max inodes", l->max_nid);
	printf("  %-18s %u usage + %u summary blocks\n", "per data zone",
	       l->usage_blocks_per_zone, l->summary_blocks_per_zone);
	printf("  %-18s %u (starts at %u%% free, stops at %u%%)\n",
	       "GC queue depth", l->gc_queue_depth, l->bg_gc_low_pct,
	       l->bg_gc_high_pct);
}

/* usable share of the device, in percent, for layout l */
static double
usable_pct(const struct gaze_mkfs_params *p, const struct gaze_layout *l)
{
	return p->geo.nr_blocks ? 100.0 * (double)l->user_blocks /
				  (double)p->geo.nr_blocks : 0.0;
}

/* the layout of p with zones of zb blocks (emulated: any size) or with
 * nr zones of the same size (zoned: the drive's size); 0 if it fits */
static int
layout_with(const struct gaze_mkfs_params *p, u32 zb, u32 nr,
	    struct gaze_layout *l)
{
	struct gaze_mkfs_params q = *p;
	const char *why;

	q.geo.zone_blocks = zb;
	q.geo.zone_cap = zb == p->geo.zone_blocks ? p->geo.zone_cap : zb;
	q.geo.nr_zones = nr;
	q.geo.nr_blocks = (u64)zb * nr > p->geo.nr_blocks ?
			  (u64)zb * nr : p->geo.nr_blocks;
	if (p->geo.nr_conv)
		return -EINVAL;
	return gaze_layout_compute(&q, l, &why);
}

/* prints text wrapped at 76 columns (words never split) */
static void
print_wrapped(const char *text)
{
	const char *p = text, *brk;
	int col = 0, len;

	while (*p) {
		brk = strchr(p, ' ');
		len = brk ? (int)(brk - p) : (int)strlen(p);
		if (col && col + 1 + len > 76) {
			putchar('\n');
			col = 0;
		} else if (col) {
			putchar(' ');
			col++;
		}
		printf("%.*s", len, p);
		col += len;
		p += len;
		while (*p == ' ')
			p++;
	}
	putchar('\n');
}

#define ADVICE_BELOW_PCT	60.0	/* usable share that gets a note */
#define ADVICE_GOAL_PCT		80.0

/*
 * A plain note when the geometry leaves little usable space: what takes
 * it (checkpoint and metadata zones, the logs' open zones and the GC
 * reserve, doc/design.md "Few, large zones"), and what would do better:
 * for emulated zones the largest zone size that keeps ADVICE_GOAL_PCT,
 * for a zoned drive (whose zone size is its own) how many zones of that
 * size would.
 */
static void
capacity_advice(const struct gaze_mkfs_params *p, const struct gaze_layout *l)
{
	const struct gaze_geometry *g = &p->geo;
	char h1[GAZE_SIZE_HUMAN_LEN], h2[GAZE_SIZE_HUMAN_LEN];
	struct gaze_layout t;
	double pct = usable_pct(p, l);
	char msg[512];
	u32 zb, nr;

	if (pct >= ADVICE_BELOW_PCT)
		return;
	printf("\n");
	snprintf(msg, sizeof(msg),
		 "Note: %u zones of %s leave %.0f%% of the device usable: %u "
		 "zones hold the checkpoints and metadata, and %u of the %u "
		 "data zones stay in reserve (one open zone for each of the "
		 "%u logs, and room for the garbage collector to move a "
		 "zone).", g->nr_zones, human(blocks_bytes(g->zone_blocks), h1),
		 pct, l->cp_zone_count + l->meta_zone_count, l->ovp_zones,
		 l->main_zone_count, l->nr_logs);
	print_wrapped(msg);
	if (g->model == GAZE_ZM_EMULATED) {
		for (zb = g->zone_blocks / 2; zb >= GAZE_MIN_ZONE_BLOCKS;
		     zb /= 2) {
			if (layout_with(p, zb, (u32)(g->nr_blocks / zb), &t))
				break;
			if (usable_pct(p, &t) >= ADVICE_GOAL_PCT) {
				snprintf(msg, sizeof(msg),
					 "Zones of %s (-z) would leave %.0f%% "
					 "(%s).", human(blocks_bytes(zb), h1),
					 usable_pct(p, &t),
					 human(blocks_bytes(t.user_blocks),
					       h2));
				print_wrapped(msg);
				return;
			}
		}
		return;
	}
	for (nr = g->nr_zones * 2; nr && nr <= 65536; nr *= 2) {
		if (layout_with(p, g->zone_blocks, nr, &t))
			break;
		if (100.0 * (double)t.user_blocks /
		    ((double)nr * g->zone_blocks) >= ADVICE_GOAL_PCT) {
			snprintf(msg, sizeof(msg),
				 "A namespace of %u such zones (%s) would "
				 "leave %.0f%% usable.", nr,
				 human(blocks_bytes((u64)nr * g->zone_blocks),
				       h1),
				 100.0 * (double)t.user_blocks /
				 ((double)nr * g->zone_blocks));
			print_wrapped(msg);
			return;
		}
	}
}

/* -n -d: what the tree would take against the usable capacity */
static void
print_tree(const struct mkfs_summary *s)
{
	const struct gaze_tree_estimate *e = s->tree;
	u64 need = gaze_tree_estimate_blocks(e), user = s->layout->user_blocks;
	char h1[GAZE_SIZE_HUMAN_LEN], h2[GAZE_SIZE_HUMAN_LEN];

	printf("%-20s %s\n", "Tree (-d):", s->root_dir);
	printf("%-20s the tree needs about %s of %s usable", "",
	       human(blocks_bytes(need), h1), human(blocks_bytes(user), h2));
	printf(" (%" PRIu64 " blocks", need);
	if (need > user)
		printf("): does not fit\n");
	else
		printf(", %.0f%%)\n", user ? 100.0 * (double)need /
					    (double)user : 0.0);
	printf("%-20s %" PRIu64 " inodes: %" PRIu64 " files (%" PRIu64 " inline), %" PRIu64 " directories,\n",
	       "", e->inodes, e->files, e->inline_files, e->dirs);
	printf("%-20s %" PRIu64 " symlinks, %" PRIu64 " other; %" PRIu64 " more hard links\n",
	       "", e->symlinks, e->special, e->hardlinks);
	printf("%-20s blocks: %" PRIu64 " inodes, %" PRIu64 " data, %" PRIu64 " directory,\n",
	       "", e->inodes, e->data_blocks, e->dir_blocks);
	printf("%-20s %" PRIu64 " block map, %" PRIu64 " xattr\n", "",
	       e->map_nodes, e->xattr_nodes);
	if (need <= user && need * 100 > user * 90)
		printf("%-20s close to full: the estimate can be off by a few percent\n",
		       "");
}

void
gaze_mkfs_summary_print(const struct mkfs_summary *s)
{
	const struct gaze_mkfs_params *p = s->params;
	const struct gaze_layout *l = s->layout;
	const struct gaze_geometry *g = &p->geo;
	char h1[GAZE_SIZE_HUMAN_LEN], h2[GAZE_SIZE_HUMAN_LEN];
	char n1[16], n2[16], feat[256], uuid[GAZE_UUID_STR_LEN], extra[64];
	struct sysinfo si;
	u64 ram;

	printf("%s %s%s\n", MKFS_PROG, PACKAGE_VERSION,
	       s->dry_run ? " (dry run: nothing written)" : "");
	printf("%-20s %s (%s)\n", "Device:", s->device,
	       gaze_zdev_model_name(g->model));
	printf("%-20s %s (%" PRIu64 " blocks of 4 KiB)\n", "Size:",
	       human(blocks_bytes(g->nr_blocks), h1), g->nr_blocks);
	printf("%-20s %u x %s, capacity %s", "Zones:", g->nr_zones,
	       human(blocks_bytes(g->zone_blocks), h1),
	       human(blocks_bytes(g->zone_cap), h2));
	if (g->nr_conv)
		printf(", %u conventional", g->nr_conv);
	if (l->nr_zones < g->nr_zones)
		printf(", %u used", l->nr_zones);
	printf("\n");
	printf("%-20s %s open, %s active\n", "Zone limits:",
	       limit_str(g->max_open, n1, sizeof(n1)),
	       limit_str(g->max_active, n2, sizeof(n2)));
	zone_range("Checkpoint zones:", l->cp_zone_start, l->cp_zone_count,
		   ", a superblock copy at the start of each");
	zone_range("Metadata zones:", l->meta_zone_start, l->meta_zone_count,
		   "");
	snprintf(extra, sizeof(extra), ", %u logs", l->nr_logs);
	zone_range("Data zones:", l->main_zone_start, l->main_zone_count,
		   extra);
	printf("%-20s %u\n", "GC reserve zones:", l->reserved_zones);
	printf("%-20s %u%% (%u zones%s)\n", "Overprovision:", l->ovp_percent,
	       l->ovp_zones, p->ovp_percent ? "" : ", automatic");
	printf("%-20s %s (%" PRIu64 " blocks, %.1f%% of the device)\n",
	       "Usable capacity:", human(blocks_bytes(l->user_blocks), h1),
	       l->user_blocks,
	       g->nr_blocks ? 100.0 * (double)l->user_blocks /
			      (double)g->nr_blocks : 0.0);
	printf("%-20s %s (%" PRIu64 " blocks)\n", "GC page pool:",
	       human(blocks_bytes(l->gc_pool_blocks), h1), l->gc_pool_blocks);
	if (sysinfo(&si) == 0) {
		ram = (u64)si.totalram * si.mem_unit;
		printf("%-20s %u%% of RAM (%s of %s on this machine)\n",
		       "Dirty limit:", l->dirty_limit_pct,
		       human(ram / 100 * l->dirty_limit_pct, h1),
		       human(ram, h2));
	} else {
		printf("%-20s %u%% of RAM\n", "Dirty limit:",
		       l->dirty_limit_pct);
	}
	gaze_fmt_feature_string(p->feature_compat, p->feature_ro_compat,
				p->feature_incompat, feat, sizeof(feat));
	printf("%-20s %s\n", "Features:", feat[0] ? feat : "(none)");
	if (p->feature_incompat & GAZE_FEATURE_INCOMPAT_COMPRESSION)
		printf("%-20s %s, clusters of %u blocks\n", "Compression:",
		       gaze_fmt_compress_name(p->compress_algo),
		       1u << (p->compress_log_cluster ?
			      p->compress_log_cluster : 2));
	printf("%-20s %s\n", "Label:", p->label[0] ? p->label : "(none)");
	gaze_uuid_unparse(p->uuid, uuid);
	printf("%-20s %s\n", "UUID:", uuid);
	if (s->verbose)
		print_tables(l);
	if (s->tree)
		print_tree(s);
	capacity_advice(p, l);
}
