// SPDX-License-Identifier: GPL-2.0
/*
 * ctl.c - gazectl commands that talk to a mounted filesystem through the
 * module's ioctls (kernel/uapi/gaze_ioctl.h): info, gc-stats, tune, gc.
 *
 * MNT is any file or directory of the mounted filesystem; it is opened
 * read-only and checked with fstatfs to be GAZE before any ioctl.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "gaze_core.h"
#include "gaze_ioctl.h"
#include "gaze_util.h"
#include "gazectl.h"

#define CTL_SUPER_MAGIC	0x455a4147	/* statfs f_type of GAZE */

#define ctl_help_opt { "help", no_argument, NULL, 'h' }

static int
ctl_opt_other(const struct gaze_cmd *cmd, int opt)
{
	if (opt == 'h') {
		gaze_cmd_help(cmd, stdout);
		return GAZE_EXIT_OK;
	}
	return gaze_cmd_usage_error(cmd, "bad option");
}

/* opens MNT; -1 after a message */
static int
ctl_open(const struct gaze_cmd *cmd, const char *mnt)
{
	struct statfs st;
	int fd;

	fd = open(mnt, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", gaze_cmd_path(cmd), mnt,
			strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &st) || (unsigned long)st.f_type != CTL_SUPER_MAGIC) {
		fprintf(stderr, "%s: %s: not on a mounted GAZE filesystem\n",
			gaze_cmd_path(cmd), mnt);
		close(fd);
		return -1;
	}
	return fd;
}

static int
ctl_ioctl(const struct gaze_cmd *cmd, int fd, unsigned long req, void *arg,
	  const char *what)
{
	if (ioctl(fd, req, arg) == 0)
		return 0;
	if (errno == ENOTTY)
		fprintf(stderr, "%s: %s: the module does not support this "
			"command (too old?)\n", gaze_cmd_path(cmd), what);
	else
		fprintf(stderr, "%s: %s: %s\n", gaze_cmd_path(cmd), what,
			strerror(errno));
	return -1;
}

/* ---------------------------------------------------------------- */
/* info                                                              */
/* ---------------------------------------------------------------- */

static const char *const ctl_bg_names[] = { "off", "on", "sync" };
static const char *const ctl_err_names[] = {
	"continue", "remount-ro", "panic"
};
static const char *const ctl_policy_names[] = { "greedy", "cost-benefit" };

#define CTL_NAME(tab, i) \
	((i) < sizeof(tab) / sizeof(tab[0]) ? tab[i] : "unknown")

/* gaze_ioc_info.read_fallback[], by GAZE_RF_* */
static const char *const ctl_rf_names[GAZE_RF_REASONS] = {
	[GAZE_RF_LONG]	= "long",
	[GAZE_RF_MISS]	= "miss",
	[GAZE_RF_EOF]	= "eof",
	[GAZE_RF_RACE]	= "race",
	[GAZE_RF_FAULT]	= "fault",
	[GAZE_RF_OTHER]	= "other",
};

/* "zstd:3", "lz4", "none": the default new files take */
static const char *
ctl_compress_name(const struct gaze_ioc_info *in)
{
	static char buf[32];
	const char *n = gaze_fmt_compress_name(in->compress_algo);

	if (!in->compress_level)
		return n;
	snprintf(buf, sizeof(buf), "%s:%u", n, in->compress_level);
	return buf;
}

/* logical / physical, 1.00 when nothing is compressed */
static double
ctl_ratio(uint64_t logical, uint64_t physical)
{
	return physical ? (double)logical / (double)physical : 1.0;
}

static void
info_text(const struct gaze_ioc_info *in)
{
	int i;

	uint64_t mib = 1024 * 1024 / in->block_size;
	char uuid[37], label[65];

	gaze_uuid_unparse(in->uuid, uuid);
	memcpy(label, in->label, 64);
	label[64] = 0;
	printf("uuid:             %s\n", uuid);
	fputs("label:            ", stdout);
	if (label[0])
		gaze_quote_fput(stdout, label, strlen(label));	/* from disk */
	else
		fputs("(none)", stdout);
	putchar('\n');
	printf("device:           %s, %u zones of %u blocks (capacity %u), "
	       "max open %u, max active %u\n",
	       in->zoned ? "zoned" : "emulated zones", in->nr_zones,
	       in->zone_blocks, in->zone_cap, in->max_open, in->max_active);
	printf("main area:        zones %u-%u (%u zones), %u GC reserve, "
	       "%u logs\n", in->main_zone_start,
	       in->main_zone_start + in->main_zone_count - 1,
	       in->main_zone_count, in->reserved_zones, in->nr_logs);
	printf("features:         compat 0x%" PRIx64 " ro_compat 0x%" PRIx64
	       " incompat 0x%" PRIx64 "\n", (uint64_t)in->feature_compat,
	       (uint64_t)in->feature_ro_compat,
	       (uint64_t)in->feature_incompat);
	printf("options:          errors=%s background_gc=%s %s "
	       "victim_policy=%s\n", CTL_NAME(ctl_err_names, in->errors),
	       CTL_NAME(ctl_bg_names, in->background_gc),
	       in->discard ? "discard" : "nodiscard",
	       CTL_NAME(ctl_policy_names, in->victim_policy));
	printf("checkpoint:       %" PRIu64 "\n", (uint64_t)in->cp_seq);
	printf("inodes:           %" PRIu64 "\n", (uint64_t)in->valid_inodes);
	printf("space (MiB):      capacity %" PRIu64 ", valid %" PRIu64
	       ", free now %" PRIu64 ", freeable by GC %" PRIu64
	       ", GC reserve %" PRIu64 ", waiting for a checkpoint %" PRIu64
	       "\n",
	       (uint64_t)in->user_blocks / mib, (uint64_t)in->valid_blocks / mib,
	       (uint64_t)in->free_now / mib, (uint64_t)in->freeable / mib,
	       (uint64_t)in->reserved_blocks / mib,
	       (uint64_t)in->unusable / mib);
	printf("zones:            %u free, %u open, %u full, %u prefree\n",
	       in->free_zones, in->open_zones, in->full_zones,
	       in->prefree_zones);
	printf("fsync:            %" PRIu64 " by roll-forward, %" PRIu64
	       " by checkpoint; %" PRIu64 " nodes replayed at mount\n",
	       (uint64_t)in->fsyncs_rollforward,
	       (uint64_t)in->fsyncs_checkpoint, (uint64_t)in->replayed_nodes);
	printf("read fast path:   %s, %" PRIu64 " reads; normal path:",
	       in->read_fastpath ? "on" : "off",
	       (uint64_t)in->read_fast_hits);
	for (i = 0; i < GAZE_RF_REASONS; i++)
		printf(" %s %" PRIu64, ctl_rf_names[i],
		       (uint64_t)in->read_fallback[i]);
	putchar('\n');
	if (!(in->feature_incompat & GAZE_FEATURE_INCOMPAT_COMPRESSION))
		return;
	printf("compression:      default %s", ctl_compress_name(in));
	printf(", clusters of %u KiB; %" PRIu64 " MiB of data in %" PRIu64
	       " MiB, ratio %.2fx\n", 4u << in->compress_log_cluster,
	       (uint64_t)in->compr_logical_blocks / mib,
	       (uint64_t)in->compr_physical_blocks / mib,
	       ctl_ratio(in->compr_logical_blocks, in->compr_physical_blocks));
	if (!in->compress_cpus)
		return;
	printf("compressing on:   up to %u CPUs (compress_cpu_pct %u); %"
	       PRIu64 " clusters compressed there since mount\n",
	       in->compress_cpus, in->compress_cpu_pct,
	       (uint64_t)in->compr_parallel_clusters);
	printf("decoding on:      up to %u CPUs; %" PRIu64
	       " clusters read ahead by a second CPU since mount\n",
	       in->compress_cpus, (uint64_t)in->compr_parallel_decoded);
}

static void
info_json(const struct gaze_ioc_info *in)
{
	struct gaze_json j;
	char uuid[37], label[65];
	int i;

	gaze_uuid_unparse(in->uuid, uuid);
	memcpy(label, in->label, 64);
	label[64] = 0;
	gaze_json_init(&j, stdout, true);
	gaze_json_obj_begin(&j, NULL);
	gaze_json_str(&j, "uuid", uuid);
	gaze_json_str(&j, "label", label);
	gaze_json_u64(&j, "block_size", in->block_size);
	gaze_json_u64(&j, "zone_blocks", in->zone_blocks);
	gaze_json_u64(&j, "zone_cap", in->zone_cap);
	gaze_json_u64(&j, "nr_zones", in->nr_zones);
	gaze_json_bool(&j, "zoned", in->zoned);
	gaze_json_u64(&j, "max_open", in->max_open);
	gaze_json_u64(&j, "max_active", in->max_active);
	gaze_json_u64(&j, "main_zone_start", in->main_zone_start);
	gaze_json_u64(&j, "main_zone_count", in->main_zone_count);
	gaze_json_u64(&j, "reserved_zones", in->reserved_zones);
	gaze_json_u64(&j, "nr_logs", in->nr_logs);
	gaze_json_u64(&j, "feature_compat", in->feature_compat);
	gaze_json_u64(&j, "feature_ro_compat", in->feature_ro_compat);
	gaze_json_u64(&j, "feature_incompat", in->feature_incompat);
	gaze_json_u64(&j, "cp_seq", in->cp_seq);
	gaze_json_str(&j, "errors", CTL_NAME(ctl_err_names, in->errors));
	gaze_json_str(&j, "background_gc",
		      CTL_NAME(ctl_bg_names, in->background_gc));
	gaze_json_bool(&j, "discard", in->discard);
	gaze_json_str(&j, "victim_policy",
		      CTL_NAME(ctl_policy_names, in->victim_policy));
	gaze_json_u64(&j, "valid_inodes", in->valid_inodes);
	gaze_json_obj_begin(&j, "space_blocks");
	gaze_json_u64(&j, "capacity", in->user_blocks);
	gaze_json_u64(&j, "valid", in->valid_blocks);
	gaze_json_u64(&j, "free_now", in->free_now);
	gaze_json_u64(&j, "freeable", in->freeable);
	gaze_json_u64(&j, "reserved", in->reserved_blocks);
	gaze_json_u64(&j, "unusable", in->unusable);
	gaze_json_obj_end(&j);
	gaze_json_obj_begin(&j, "zones");
	gaze_json_u64(&j, "free", in->free_zones);
	gaze_json_u64(&j, "open", in->open_zones);
	gaze_json_u64(&j, "full", in->full_zones);
	gaze_json_u64(&j, "prefree", in->prefree_zones);
	gaze_json_obj_end(&j);
	gaze_json_obj_begin(&j, "fsync");
	gaze_json_u64(&j, "rollforward", in->fsyncs_rollforward);
	gaze_json_u64(&j, "checkpoint", in->fsyncs_checkpoint);
	gaze_json_u64(&j, "replayed_nodes", in->replayed_nodes);
	gaze_json_obj_end(&j);
	gaze_json_obj_begin(&j, "read_fastpath");
	gaze_json_bool(&j, "on", in->read_fastpath);
	gaze_json_u64(&j, "hits", in->read_fast_hits);
	gaze_json_obj_begin(&j, "fallback");
	for (i = 0; i < GAZE_RF_REASONS; i++)
		gaze_json_u64(&j, ctl_rf_names[i], in->read_fallback[i]);
	gaze_json_obj_end(&j);
	gaze_json_obj_end(&j);
	gaze_json_obj_begin(&j, "compression");
	gaze_json_bool(&j, "feature", in->feature_incompat &
		       GAZE_FEATURE_INCOMPAT_COMPRESSION);
	gaze_json_str(&j, "default", ctl_compress_name(in));
	gaze_json_u64(&j, "cluster_bytes", 4096ull << in->compress_log_cluster);
	gaze_json_u64(&j, "logical_blocks", in->compr_logical_blocks);
	gaze_json_u64(&j, "physical_blocks", in->compr_physical_blocks);
	gaze_json_u64(&j, "cpus", in->compress_cpus);
	gaze_json_u64(&j, "cpu_pct", in->compress_cpu_pct);
	gaze_json_u64(&j, "parallel_clusters", in->compr_parallel_clusters);
	gaze_json_u64(&j, "parallel_decoded", in->compr_parallel_decoded);
	gaze_json_obj_end(&j);
	gaze_json_obj_end(&j);
	gaze_json_finish(&j);
}

/* GAZE_IOC_INFO of the filesystem path is on; -1 after a message */
static int
ctl_info(const struct gaze_cmd *cmd, const char *path,
	 struct gaze_ioc_info *in)
{
	int fd, ret;

	fd = ctl_open(cmd, path);
	if (fd < 0)
		return -1;
	memset(in, 0, sizeof(*in));
	in->version = GAZE_IOC_VERSION;
	ret = ctl_ioctl(cmd, fd, GAZE_IOC_INFO, in, path);
	close(fd);
	return ret;
}

/* the options of a command that takes only --json: -1 to go on, else
 * the exit status (after --help, or a usage error) */
static int
ctl_json_opts(const struct gaze_cmd *cmd, int argc, char **argv, bool *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		ctl_help_opt,
		{ NULL, 0, NULL, 0 }
	};
	int opt, ret;

	*json = false;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt != 'j')
			return ctl_opt_other(cmd, opt);
		*json = true;
	}
	ret = gaze_cmd_nargs(cmd, argc, optind);
	return ret ? ret : -1;
}

int
gaze_cmd_info(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct gaze_ioc_info in;
	bool json = false;
	int ret;

	ret = ctl_json_opts(cmd, argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (ctl_info(cmd, argv[optind], &in))
		return GAZE_EXIT_FAIL;
	if (json)
		info_json(&in);
	else
		info_text(&in);
	return GAZE_EXIT_OK;
}

/* ---------------------------------------------------------------- */
/* gc-stats                                                          */
/* ---------------------------------------------------------------- */

static const char *const ctl_stage_names[GAZE_GC_STAGES] = {
	"preread", "read", "prewrite", "write"
};

/* reclaims by the share of a zone they freed */
static const char *const ctl_freed_names[GAZE_GC_FREED] = {
	"<1/8", "<1/4", "<1/2", ">=1/2"
};

/* upper bound (us) of the histogram bucket holding the q-quantile */
static uint64_t
gc_quantile_us(const struct gaze_ioc_gc_stats *s, double q)
{
	uint64_t total = 0, seen = 0, want;
	int i;

	for (i = 0; i < GAZE_GC_HIST; i++)
		total += s->reclaim_hist[i];
	if (!total)
		return 0;
	want = (uint64_t)(q * (double)total + 0.999999);
	if (want < 1)
		want = 1;
	for (i = 0; i < GAZE_GC_HIST; i++) {
		seen += s->reclaim_hist[i];
		if (seen >= want)
			return (uint64_t)2 << i;
	}
	return (uint64_t)2 << (GAZE_GC_HIST - 1);
}

static double
gc_wa(const struct gaze_ioc_gc_stats *s)
{
	if (!s->blocks_user)
		return 0;
	return (double)(s->blocks_user + s->blocks_moved) /
	       (double)s->blocks_user;
}

static void
gc_stats_text(const struct gaze_ioc_gc_stats *s)
{
	uint64_t n = s->zones_reclaimed;
	int i;

	printf("mechanisms:        pipeline %s, page pool %s, selective "
	       "blocking %s\n", s->pipeline ? "on" : "off",
	       s->pool ? "on" : "off", s->selective_blocking ? "on" : "off");
	printf("zones reclaimed:   %" PRIu64 " (%" PRIu64 " in the foreground,"
	       " %" PRIu64 " by the baseline mover)\n", n,
	       (uint64_t)s->zones_foreground, (uint64_t)s->zones_mover);
	printf("blocks moved:      %" PRIu64 " (%" PRIu64 " MiB)\n",
	       (uint64_t)s->blocks_moved, (uint64_t)s->blocks_moved / 256);
	printf("user blocks:       %" PRIu64 "\n", (uint64_t)s->blocks_user);
	printf("write amp. (GC):   %.3f\n", gc_wa(s));
	printf("reclaim time:      count %" PRIu64 ", mean %.3f ms, p50 <= %.3f"
	       " ms, p99 <= %.3f ms, max %.3f ms\n", n,
	       n ? (double)s->reclaim_ns_total / n / 1e6 : 0.0,
	       gc_quantile_us(s, 0.50) / 1e3, gc_quantile_us(s, 0.99) / 1e3,
	       s->reclaim_ns_max / 1e6);
	printf("GC lock held:      at most %.3f ms in one go (baseline mover"
	       " and background steps)\n", s->gc_hold_ns_max / 1e6);
	for (i = 0; i < GAZE_GC_STAGES; i++)
		printf("stage %-9s    busy %.3f ms, waiting %.3f ms, %" PRIu64
		       " blocks, deepest queue %u\n", ctl_stage_names[i],
		       s->stage[i].busy_ns / 1e6, s->stage[i].wait_ns / 1e6,
		       (uint64_t)s->stage[i].items, s->stage[i].qdepth_max);
	printf("page pool:         %" PRIu64 " blocks, %" PRIu64 " in use now,"
	       " at most %" PRIu64 "\n", (uint64_t)s->pool_blocks,
	       (uint64_t)s->pool_used, (uint64_t)s->pool_used_max);
	printf("GC pages:          %" PRIu64 " taken, getting them %.3f ms, "
	       "page cache insert/remove %.3f ms\n", (uint64_t)s->pages_gc,
	       s->pool_alloc_ns / 1e6, s->pool_cache_ns / 1e6);
	printf("gap blocks read:   %" PRIu64 "\n", (uint64_t)s->gap_blocks);
	printf("zone freed:        ");
	for (i = 0; i < GAZE_GC_FREED; i++)
		printf("%s%s %" PRIu64 " (%" PRIu64 " fg)", i ? ", " : "",
		       ctl_freed_names[i], (uint64_t)s->freed[i],
		       (uint64_t)s->freed_fg[i]);
	printf("\n");
	printf("fg declined:       %" PRIu64 " (no victim worth a move)\n",
	       (uint64_t)s->fg_declined);
	printf("writers blocked:   %" PRIu64 ", total %.3f s, max %.3f ms\n",
	       (uint64_t)s->writers_blocked, s->blocked_ns_total / 1e9,
	       s->blocked_ns_max / 1e6);
	printf("reserved now:      %" PRIu64 " blocks\n",
	       (uint64_t)s->reserved_now);
}

/* {"lt_1_8": n, "lt_1_4": n, "lt_1_2": n, "ge_1_2": n} */
static void
gc_freed_json(struct gaze_json *j, const char *name, const __u64 *v)
{
	static const char *const keys[GAZE_GC_FREED] = {
		"lt_1_8", "lt_1_4", "lt_1_2", "ge_1_2"
	};
	int i;

	gaze_json_obj_begin(j, name);
	for (i = 0; i < GAZE_GC_FREED; i++)
		gaze_json_u64(j, keys[i], v[i]);
	gaze_json_obj_end(j);
}

static void
gc_stats_json(const struct gaze_ioc_gc_stats *s)
{
	struct gaze_json j;
	int i;

	gaze_json_init(&j, stdout, false);
	gaze_json_obj_begin(&j, NULL);
	gaze_json_u64(&j, "time", (uint64_t)time(NULL));
	gaze_json_bool(&j, "pipeline", s->pipeline);
	gaze_json_bool(&j, "pool", s->pool);
	gaze_json_bool(&j, "selective_blocking", s->selective_blocking);
	gaze_json_u64(&j, "zones_reclaimed", s->zones_reclaimed);
	gaze_json_u64(&j, "zones_foreground", s->zones_foreground);
	gaze_json_u64(&j, "zones_mover", s->zones_mover);
	gaze_json_u64(&j, "gc_hold_ns_max", s->gc_hold_ns_max);
	gaze_json_u64(&j, "blocks_moved", s->blocks_moved);
	gaze_json_u64(&j, "blocks_user", s->blocks_user);
	gaze_json_double(&j, "write_amplification", gc_wa(s));
	gaze_json_u64(&j, "reclaim_ns_total", s->reclaim_ns_total);
	gaze_json_u64(&j, "reclaim_ns_max", s->reclaim_ns_max);
	gaze_json_u64(&j, "reclaim_p50_us_max", gc_quantile_us(s, 0.50));
	gaze_json_u64(&j, "reclaim_p99_us_max", gc_quantile_us(s, 0.99));
	gaze_json_arr_begin(&j, "reclaim_hist_log2_us");
	for (i = 0; i < GAZE_GC_HIST; i++)
		gaze_json_u64(&j, NULL, s->reclaim_hist[i]);
	gaze_json_arr_end(&j);
	gaze_json_arr_begin(&j, "stages");
	for (i = 0; i < GAZE_GC_STAGES; i++) {
		gaze_json_obj_begin(&j, NULL);
		gaze_json_str(&j, "name", ctl_stage_names[i]);
		gaze_json_u64(&j, "busy_ns", s->stage[i].busy_ns);
		gaze_json_u64(&j, "wait_ns", s->stage[i].wait_ns);
		gaze_json_u64(&j, "blocks", s->stage[i].items);
		gaze_json_u64(&j, "qdepth_max", s->stage[i].qdepth_max);
		gaze_json_obj_end(&j);
	}
	gaze_json_arr_end(&j);
	gaze_json_u64(&j, "pool_blocks", s->pool_blocks);
	gaze_json_u64(&j, "pool_used", s->pool_used);
	gaze_json_u64(&j, "pool_used_max", s->pool_used_max);
	gaze_json_u64(&j, "pool_alloc_ns", s->pool_alloc_ns);
	gaze_json_u64(&j, "pool_cache_ns", s->pool_cache_ns);
	gaze_json_u64(&j, "pages_gc", s->pages_gc);
	gaze_json_u64(&j, "gap_blocks", s->gap_blocks);
	gc_freed_json(&j, "reclaims_by_freed", s->freed);
	gc_freed_json(&j, "fg_reclaims_by_freed", s->freed_fg);
	gaze_json_u64(&j, "fg_declined", s->fg_declined);
	gaze_json_u64(&j, "writers_blocked", s->writers_blocked);
	gaze_json_u64(&j, "blocked_ns_total", s->blocked_ns_total);
	gaze_json_u64(&j, "blocked_ns_max", s->blocked_ns_max);
	gaze_json_u64(&j, "reserved_now", s->reserved_now);
	gaze_json_obj_end(&j);
	gaze_json_finish(&j);
}

int
gaze_cmd_gc_stats(const struct gaze_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "watch", required_argument, NULL, 'w' },
		{ "reset", no_argument, NULL, 'r' },
		ctl_help_opt,
		{ NULL, 0, NULL, 0 }
	};
	struct gaze_ioc_gc_stats s;
	bool json = false, reset = false;
	uint64_t watch = 0;
	int opt, fd, ret;

	while ((opt = getopt_long(argc, argv, "hw:", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'r':
			reset = true;
			break;
		case 'w':
			if (gaze_uint_parse(optarg, 1, 86400, &watch))
				return gaze_cmd_usage_error(cmd,
					"--watch wants 1..86400 seconds, not '%s'",
					optarg);
			break;
		default:
			return ctl_opt_other(cmd, opt);
		}
	}
	ret = gaze_cmd_nargs(cmd, argc, optind);
	if (ret)
		return ret;
	fd = ctl_open(cmd, argv[optind]);
	if (fd < 0)
		return GAZE_EXIT_FAIL;
	for (;;) {
		memset(&s, 0, sizeof(s));
		s.version = GAZE_IOC_VERSION;
		s.flags = reset ? GAZE_GC_STATS_RESET : 0;
		if (ctl_ioctl(cmd, fd, GAZE_IOC_GC_STATS, &s, argv[optind])) {
			ret = GAZE_EXIT_FAIL;
			break;
		}
		if (json)
			gc_stats_json(&s);
		else
			gc_stats_text(&s);
		fflush(stdout);
		if (!watch)
			break;
		if (!json)
			printf("\n");
		sleep((unsigned int)watch);
	}
	close(fd);
	return ret;
}

/* ---------------------------------------------------------------- */
/* counters                                                          */
/* ---------------------------------------------------------------- */

static const char *const ctl_ctr_names[GAZE_CTR_NR] = {
	[GAZE_CTR_CHECKPOINTS]		= "checkpoints",
	[GAZE_CTR_CP_FSYNC]		= "checkpoints_fsync",
	[GAZE_CTR_CP_BACKLOG]		= "checkpoints_backlog",
	[GAZE_CTR_FSYNC_ROLLFWD]	= "fsyncs_rollforward",
	[GAZE_CTR_FSYNC_ONE_FILE]	= "fsyncs_one_file",
	[GAZE_CTR_AROUND_WINDOWS]	= "inode_readaround_windows",
	[GAZE_CTR_AROUND_USED]		= "inode_readaround_used",
	[GAZE_CTR_GC_WRITES_UNLOCKED]	= "gc_writes_unlocked",
	[GAZE_CTR_GC_WRITES_CP]		= "gc_writes_committed_by_checkpoint",
	[GAZE_CTR_GC_WRITE_WAITS]	= "gc_write_waits",
	[GAZE_CTR_GC_COLD_READS]	= "gc_cold_reads_unlocked",
	[GAZE_CTR_GC_HANDOFFS]		= "gc_runs_handed_off",
};

/* the counter's name, or counter_N for one a newer kernel added */
static const char *
ctr_name(uint32_t i, char *buf, size_t len)
{
	if (i < GAZE_CTR_NR && ctl_ctr_names[i])
		return ctl_ctr_names[i];
	snprintf(buf, len, "counter_%u", i);
	return buf;
}

int
gaze_cmd_counters(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct gaze_ioc_counters c;
	struct gaze_json j;
	bool json = false;
	char buf[32];
	uint32_t i, nr;
	int fd, ret;

	ret = ctl_json_opts(cmd, argc, argv, &json);
	if (ret >= 0)
		return ret;
	fd = ctl_open(cmd, argv[optind]);
	if (fd < 0)
		return GAZE_EXIT_FAIL;
	memset(&c, 0, sizeof(c));
	c.version = GAZE_IOC_VERSION;
	ret = ctl_ioctl(cmd, fd, GAZE_IOC_COUNTERS, &c, argv[optind]);
	close(fd);
	if (ret)
		return GAZE_EXIT_FAIL;
	nr = c.nr < GAZE_CTR_MAX ? c.nr : GAZE_CTR_MAX;
	if (json) {
		gaze_json_init(&j, stdout, false);
		gaze_json_obj_begin(&j, NULL);
		gaze_json_u64(&j, "time", (uint64_t)time(NULL));
		for (i = 0; i < nr; i++)
			gaze_json_u64(&j, ctr_name(i, buf, sizeof(buf)),
				      c.counters[i]);
		gaze_json_obj_end(&j);
		gaze_json_finish(&j);
		return GAZE_EXIT_OK;
	}
	for (i = 0; i < nr; i++)
		printf("%-34s %" PRIu64 "\n", ctr_name(i, buf, sizeof(buf)),
		       (uint64_t)c.counters[i]);
	return GAZE_EXIT_OK;
}

/* ---------------------------------------------------------------- */
/* tune                                                              */
/* ---------------------------------------------------------------- */

static void
tune_print(const struct gaze_ioc_tune *t)
{
	printf("%-22s %-10" PRIu64 " [%" PRIu64 "..%" PRIu64 "]  %s\n",
	       t->name, (uint64_t)t->value, (uint64_t)t->min,
	       (uint64_t)t->max, t->help);
}

static int
tune_list(const struct gaze_cmd *cmd, int fd, const char *mnt)
{
	struct gaze_ioc_tune t;
	uint32_t i;

	for (i = 0;; i++) {
		memset(&t, 0, sizeof(t));
		t.version = GAZE_IOC_VERSION;
		t.flags = GAZE_TUNE_BY_INDEX;
		t.index = i;
		if (ioctl(fd, GAZE_IOC_TUNE, &t)) {
			if (errno == ENOENT)
				return GAZE_EXIT_OK;
			ctl_ioctl(cmd, fd, GAZE_IOC_TUNE, &t, mnt);
			return GAZE_EXIT_FAIL;
		}
		t.name[GAZE_TUNE_NAME_MAX - 1] = '\0';
		t.help[GAZE_TUNE_HELP_MAX - 1] = '\0';
		tune_print(&t);
	}
}

/* KEY=VALUE; value is a number or, for a few keys, a word */
static int
tune_parse(const struct gaze_cmd *cmd, const char *arg,
	   struct gaze_ioc_tune *t)
{
	static const struct { const char *word; uint64_t v; } words[] = {
		{ "off", 0 }, { "on", 1 }, { "sync", 2 },
		{ "greedy", 0 }, { "cost-benefit", 1 },
	};
	const char *eq = strchr(arg, '=');
	uint64_t v;
	size_t klen, i;

	if (!eq || eq == arg)
		return gaze_cmd_usage_error(cmd, "'%s' is not KEY=VALUE", arg);
	klen = (size_t)(eq - arg);
	if (klen >= GAZE_TUNE_NAME_MAX)
		return gaze_cmd_usage_error(cmd, "unknown tunable '%.*s'",
					    (int)klen, arg);
	memset(t, 0, sizeof(*t));
	t->version = GAZE_IOC_VERSION;
	t->flags = GAZE_TUNE_SET;
	memcpy(t->name, arg, klen);
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(eq + 1, words[i].word)) {
			t->value = words[i].v;
			return 0;
		}
	if (gaze_uint_parse(eq + 1, 0, UINT64_MAX, &v))
		return gaze_cmd_usage_error(cmd, "%s: '%s' is not a number",
					    t->name, eq + 1);
	t->value = v;
	return 0;
}

static int
tune_set(const struct gaze_cmd *cmd, int fd, const char *arg)
{
	struct gaze_ioc_tune t, cur;
	int ret;

	ret = tune_parse(cmd, arg, &t);
	if (ret)
		return ret;
	if (ioctl(fd, GAZE_IOC_TUNE, &t) == 0) {
		tune_print(&t);
		return GAZE_EXIT_OK;
	}
	if (errno == ENOENT)
		return gaze_cmd_usage_error(cmd, "unknown tunable '%s' (run "
					    "'gazectl tune MNT' for the list)",
					    t.name);
	if (errno == ERANGE) {
		memset(&cur, 0, sizeof(cur));
		cur.version = GAZE_IOC_VERSION;
		memcpy(cur.name, t.name, sizeof(cur.name));
		if (ioctl(fd, GAZE_IOC_TUNE, &cur) == 0)
			return gaze_cmd_usage_error(cmd, "%s: %" PRIu64
				" is out of range %" PRIu64 "..%" PRIu64,
				t.name, (uint64_t)t.value, (uint64_t)cur.min,
				(uint64_t)cur.max);
		return gaze_cmd_usage_error(cmd, "%s: %" PRIu64
					    " is out of range", t.name,
					    (uint64_t)t.value);
	}
	if (errno == EPERM)
		fprintf(stderr, "%s: %s: changing tunables needs "
			"CAP_SYS_ADMIN\n", gaze_cmd_path(cmd), t.name);
	else
		fprintf(stderr, "%s: %s: %s\n", gaze_cmd_path(cmd), t.name,
			strerror(errno));
	return GAZE_EXIT_FAIL;
}

int
gaze_cmd_tune(const struct gaze_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		ctl_help_opt,
		{ NULL, 0, NULL, 0 }
	};
	int opt, fd, ret, i;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return ctl_opt_other(cmd, opt);
	ret = gaze_cmd_nargs(cmd, argc, optind);
	if (ret)
		return ret;
	/* syntax first: nothing is set when one argument is malformed */
	for (i = optind + 1; i < argc; i++) {
		struct gaze_ioc_tune t;

		ret = tune_parse(cmd, argv[i], &t);
		if (ret)
			return ret;
	}
	fd = ctl_open(cmd, argv[optind]);
	if (fd < 0)
		return GAZE_EXIT_FAIL;
	if (optind + 1 == argc)
		ret = tune_list(cmd, fd, argv[optind]);
	for (i = optind + 1; i < argc && !ret; i++)
		ret = tune_set(cmd, fd, argv[i]);
	close(fd);
	return ret;
}

/* ---------------------------------------------------------------- */
/* gc                                                                */
/* ---------------------------------------------------------------- */

int
gaze_cmd_gc(const struct gaze_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "zone", required_argument, NULL, 'z' },
		{ "wait", no_argument, NULL, 'w' },
		ctl_help_opt,
		{ NULL, 0, NULL, 0 }
	};
	struct gaze_ioc_gc g;
	uint64_t zone = 0;
	bool have_zone = false, wait = false;
	int opt, fd, ret;

	while ((opt = getopt_long(argc, argv, "hz:w", opts, NULL)) != -1) {
		switch (opt) {
		case 'z':
			if (gaze_uint_parse(optarg, 0, UINT32_MAX, &zone))
				return gaze_cmd_usage_error(cmd,
					"bad zone number '%s'", optarg);
			have_zone = true;
			break;
		case 'w':
			wait = true;
			break;
		default:
			return ctl_opt_other(cmd, opt);
		}
	}
	ret = gaze_cmd_nargs(cmd, argc, optind);
	if (ret)
		return ret;
	fd = ctl_open(cmd, argv[optind]);
	if (fd < 0)
		return GAZE_EXIT_FAIL;
	memset(&g, 0, sizeof(g));
	g.version = GAZE_IOC_VERSION;
	if (have_zone) {
		g.flags |= GAZE_GC_ZONE;
		g.zone = (uint32_t)zone;
	}
	if (wait)
		g.flags |= GAZE_GC_SYNC;
	ret = ioctl(fd, GAZE_IOC_GC, &g);
	if (ret && errno == ENODATA) {
		printf("nothing to reclaim\n");
		close(fd);
		return GAZE_EXIT_OK;
	}
	if (ret && errno == EINVAL && have_zone) {
		fprintf(stderr, "%s: zone %u cannot be reclaimed (not a full "
			"main-area zone)\n", gaze_cmd_path(cmd), g.zone);
		close(fd);
		return GAZE_EXIT_FAIL;
	}
	if (ret) {
		ctl_ioctl(cmd, fd, GAZE_IOC_GC, &g, argv[optind]);
		close(fd);
		return GAZE_EXIT_FAIL;
	}
	close(fd);
	printf("reclaimed zone %u: %" PRIu64 " blocks moved", g.zone,
	       (uint64_t)g.blocks_moved);
	if (wait)
		printf(" in %.3f s (checkpoint included)", g.ns / 1e9);
	printf("\n");
	return GAZE_EXIT_OK;
}

/* ---------------------------------------------------------------- */
/* compress-stats                                                    */
/* ---------------------------------------------------------------- */

/* what one PATH holds: regular files, their apparent and used bytes */
struct cs_sum {
	uint64_t files, logical, physical;
};

static struct cs_sum *cs_cur;

static int
cs_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F && S_ISREG(st->st_mode)) {
		cs_cur->files++;
		cs_cur->logical += (uint64_t)st->st_size;
		cs_cur->physical += (uint64_t)st->st_blocks * 512;
	}
	return 0;
}

static void
cs_text(const char *what, const struct cs_sum *s)
{
	printf("%s: %" PRIu64 " file%s, %.1f MiB of data in %.1f MiB, "
	       "ratio %.2fx\n", what, s->files, s->files == 1 ? "" : "s",
	       (double)s->logical / (1 << 20), (double)s->physical / (1 << 20),
	       ctl_ratio(s->logical, s->physical));
}

static void
cs_json(struct gaze_json *j, const char *path, const struct cs_sum *s)
{
	gaze_json_obj_begin(j, NULL);
	if (path)
		gaze_json_str(j, "path", path);
	gaze_json_u64(j, "files", s->files);
	gaze_json_u64(j, "logical_bytes", s->logical);
	gaze_json_u64(j, "physical_bytes", s->physical);
	gaze_json_obj_end(j);
}

int
gaze_cmd_compress_stats(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct cs_sum *sums, fs = { 0 };
	struct gaze_ioc_info in;
	struct gaze_json j;
	bool json = false;
	int i, n, ret;

	ret = ctl_json_opts(cmd, argc, argv, &json);
	if (ret >= 0)
		return ret;
	n = argc - optind;
	if (ctl_info(cmd, argv[optind], &in))
		return GAZE_EXIT_FAIL;
	ret = GAZE_EXIT_OK;
	fs.logical = in.compr_logical_blocks * in.block_size;
	fs.physical = in.compr_physical_blocks * in.block_size;
	sums = calloc((size_t)n, sizeof(*sums));
	if (!sums)
		return GAZE_EXIT_FAIL;
	for (i = 0; i < n; i++) {
		cs_cur = &sums[i];
		/* FTW_MOUNT: one filesystem, as du -x */
		if (nftw(argv[optind + i], cs_visit, 32,
			 FTW_PHYS | FTW_MOUNT)) {
			fprintf(stderr, "%s: %s: %s\n", gaze_cmd_path(cmd),
				argv[optind + i], strerror(errno));
			ret = GAZE_EXIT_FAIL;
		}
	}
	if (json) {
		gaze_json_init(&j, stdout, true);
		gaze_json_obj_begin(&j, NULL);
		gaze_json_arr_begin(&j, "paths");
		for (i = 0; i < n; i++)
			cs_json(&j, argv[optind + i], &sums[i]);
		gaze_json_arr_end(&j);
		gaze_json_obj_begin(&j, "filesystem");
		gaze_json_str(&j, "default", ctl_compress_name(&in));
		gaze_json_u64(&j, "logical_bytes", fs.logical);
		gaze_json_u64(&j, "physical_bytes", fs.physical);
		gaze_json_obj_end(&j);
		gaze_json_obj_end(&j);
		gaze_json_finish(&j);
	} else {
		for (i = 0; i < n; i++)
			cs_text(argv[optind + i], &sums[i]);
		printf("filesystem (compressed clusters, default %s): "
		       "%.1f MiB of data in %.1f MiB, ratio %.2fx\n",
		       ctl_compress_name(&in), (double)fs.logical / (1 << 20),
		       (double)fs.physical / (1 << 20),
		       ctl_ratio(fs.logical, fs.physical));
	}
	free(sums);
	return ret;
}

/* ---------------------------------------------------------------- */
/* set / get compression=                                            */
/* ---------------------------------------------------------------- */

/* GAZE_IOC_COMPRESS on path (set: algo, level); -1 after a message
 * (none with a NULL cmd) */
static int
cp_ioc(const struct gaze_cmd *cmd, const char *path, bool set, u8 algo,
       u8 level, struct gaze_ioc_compress *c)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && !cmd)
		return -1;
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", gaze_cmd_path(cmd), path,
			strerror(errno));
		return -1;
	}
	memset(c, 0, sizeof(*c));
	c->version = GAZE_IOC_VERSION;
	if (set) {
		c->flags = GAZE_COMPRESS_SET;
		c->algo = algo;
		c->level = level;
	}
	ret = ioctl(fd, GAZE_IOC_COMPRESS, c);
	if (ret && cmd) {
		if (errno == ENOTTY)
			fprintf(stderr, "%s: %s: not on a mounted GAZE filesystem, or the module is too old\n",
				gaze_cmd_path(cmd), path);
		else if (errno == EOPNOTSUPP)
			fprintf(stderr, "%s: %s: the filesystem has no compression feature (gazectl features DEVICE compression turns it on, unmounted)\n",
				gaze_cmd_path(cmd), path);
		else
			fprintf(stderr, "%s: %s: %s\n", gaze_cmd_path(cmd),
				path, strerror(errno));
	}
	close(fd);
	return ret ? -1 : 0;
}

static const char *
cp_name(const struct gaze_ioc_compress *c, char *buf, size_t len)
{
	if (!c->algo)
		return "none";
	if (!c->level)
		return gaze_fmt_compress_name(c->algo);
	snprintf(buf, len, "%s:%u", gaze_fmt_compress_name(c->algo), c->level);
	return buf;
}

int
gaze_cmd_set(const struct gaze_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		ctl_help_opt,
		{ NULL, 0, NULL, 0 }
	};
	struct gaze_ioc_compress c;
	const char *prop;
	u8 algo, level;
	int opt, ret, i;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return ctl_opt_other(cmd, opt);
	ret = gaze_cmd_nargs(cmd, argc, optind);
	if (ret)
		return ret;
	prop = argv[optind];
	if (strncmp(prop, "compression=", 12))
		return gaze_cmd_usage_error(cmd, "'%s': the property is compression=VALUE",
					    prop);
	if (gaze_fmt_compress_parse(prop + 12, &algo, &level))
		return gaze_cmd_usage_error(cmd, "'%s': not lz4, zstd[:1-19], gzip[:1-9], on or none",
					    prop + 12);
	ret = GAZE_EXIT_OK;
	for (i = optind + 1; i < argc; i++)
		if (cp_ioc(cmd, argv[i], true, algo, level, &c))
			ret = GAZE_EXIT_FAIL;
	return ret;
}

/*
 * As zfs get's SOURCE: "local" when set on this file or directory itself
 * (the inode records it), "inherited" when taken from its directory
 * when it was made, "default" for a filesystem's root that was never set
 * (the mkfs default, or compress=).  A module that does not say
 * (GAZE_COMPRESS_SOURCE clear) gets "-".
 */
static const char *
cp_source(const char *path, const struct gaze_ioc_compress *c)
{
	struct stat st, pst;
	char *dir;
	bool root;

	if (!(c->flags & GAZE_COMPRESS_SOURCE))
		return "-";
	if (c->flags & GAZE_COMPRESS_LOCAL)
		return "local";
	dir = malloc(strlen(path) + 4);
	if (!dir)
		return "inherited";
	/* the root: its .. is itself, or on another filesystem */
	sprintf(dir, "%s/..", path);
	root = !stat(path, &st) && S_ISDIR(st.st_mode) && !stat(dir, &pst) &&
	       (st.st_dev != pst.st_dev || st.st_ino == pst.st_ino);
	free(dir);
	return root ? "default" : "inherited";
}

int
gaze_cmd_get(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct gaze_ioc_compress c;
	char buf[32];
	const char *src, *name;
	struct gaze_json j;
	bool json = false;
	int ret, i;

	ret = ctl_json_opts(cmd, argc, argv, &json);
	if (ret >= 0)
		return ret;
	ret = GAZE_EXIT_OK;
	if (json) {
		gaze_json_init(&j, stdout, true);
		gaze_json_arr_begin(&j, NULL);
	} else {
		printf("%-40s %-12s %-10s %s\n", "PATH", "COMPRESSION", "SOURCE",
		       "SAVED");
	}
	for (i = optind; i < argc; i++) {
		if (cp_ioc(cmd, argv[i], false, 0, 0, &c)) {
			ret = GAZE_EXIT_FAIL;
			continue;
		}
		src = cp_source(argv[i], &c);
		name = cp_name(&c, buf, sizeof(buf));
		if (json) {
			gaze_json_obj_begin(&j, NULL);
			gaze_json_str(&j, "path", argv[i]);
			gaze_json_str(&j, "compression", name);
			gaze_json_str(&j, "source", src);
			gaze_json_u64(&j, "cluster_bytes",
				      c.log_cluster ? 4096ull << c.log_cluster : 0);
			gaze_json_u64(&j, "saved_bytes", c.compr_blocks * 4096);
			gaze_json_obj_end(&j);
		} else {
			printf("%-40s %-12s %-10s %.1f MiB\n", argv[i], name,
			       src, (double)c.compr_blocks / 256);
		}
	}
	if (json) {
		gaze_json_arr_end(&j);
		gaze_json_finish(&j);
	}
	return ret;
}
