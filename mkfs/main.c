// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - mkfs.gaze: make a GAZE filesystem on a zoned device, a regular
 * block device or an image file.
 *
 * Why it is ordered the way it is: every refusal (bad option, image in
 * use by another program, mounted device, existing filesystem or
 * partition table, device too small, a geometry the format cannot use, a
 * dry run's tree that would not fit) happens before the first byte is
 * written, so a refused run leaves the device exactly as it was.  An
 * image file is locked first (gaze_dev_lock: block devices have O_EXCL)
 * and stays locked to the end.  The device is opened read-only for
 * probing and for computing the layout (for -s, the layout of the size
 * asked for is computed without any file); only then is the image
 * created or resized and the device reopened read-write and exclusively
 * for gaze_fs_format(), which resets every zone it uses and verifies the
 * reset.
 *
 * A run that fails after that must not leave something that looks like
 * a filesystem: a -d copy that ran out of space used to leave a clean,
 * committed filesystem with a truncated file.  So the instance is then
 * dropped without a checkpoint and both checkpoint zones are erased
 * (format_undo), and an image this run created is removed.
 *
 * Exit status (mkfs(8)): 0 success, 1 failure or refusal, 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>

#include "gaze_util.h"
#include "gaze_zdev.h"
#include "mkfs.h"
#include "populate.h"

#define MIB			(1ull << 20)
#define GIB			(1ull << 30)
/* --cluster-size default: 16 blocks, enough to compress well, small
 * enough that a 4 KiB overwrite rewrites little */
#define GAZE_MKFS_CLUSTER_BYTES	(64 * 1024ull)

struct mkfs_opts {
	bool		force;
	bool		dry_run;
	bool		quiet;
	int		verbose;
	const char	*label;
	const char	*uuid;		/* string, "random" or NULL */
	u64		zone_bytes;	/* -z, 0 = default */
	u32		ovp_pct;	/* 0 = automatic */
	u64		gc_pool_bytes;	/* 0 = automatic */
	u32		dirty_pct;
	const char	*features;
	const char	*compression;	/* --compression, NULL = none */
	u64		cluster_bytes;	/* --cluster-size, 0 = default */
	u32		max_open;	/* 0 = device's own */
	u64		size;		/* -s, 0 = none */
	const char	*root_dir;
	const char	*device;
};

static void
usage(FILE *f)
{
	char known[128];

	gaze_fmt_feature_known(known, sizeof(known));
	fprintf(f,
"Usage: %s [options] DEVICE|IMAGE\n"
"Make a GAZE filesystem on a zoned block device, a regular block device or\n"
"an image file (the last two with emulated zones).\n"
"\n"
"Options:\n"
"  -f, --force               overwrite an existing filesystem or partition\n"
"                            table (and allow -s to shrink an image)\n"
"  -n, --dry-run             compute and print the layout, write nothing;\n"
"                            with -d, estimate whether the tree fits\n"
"  -L, --label LABEL         volume label (at most 63 bytes)\n"
"  -U, --uuid UUID|random    filesystem UUID (default: random)\n"
"  -z, --zone-size SIZE      zone size for emulated zones (multiple of\n"
"                            4 KiB, at least 1 MiB)\n"
"  -o, --overprovision PCT   over-provisioned share of the data zones,\n"
"                            1..50 (default: automatic)\n"
"      --gc-pool SIZE        GC page pool size, 1 MiB..4 GiB (default:\n"
"                            one zone, at most 64 MiB)\n"
"      --dirty-limit PCT     dirty-memory cap in %% of RAM, 1..90\n"
"                            (default: 20)\n"
"  -O, --features LIST       comma-separated features to set, ^name to\n"
"                            clear: %s\n"
"      --compression ALG[:LEVEL]\n"
"                            compress new files by default: lz4, zstd[:1-19],\n"
"                            gzip[:1-9], on (= lz4) or none (sets -O\n"
"                            compression unless none)\n"
"      --cluster-size SIZE   bytes compressed as one unit, 16K to 1M\n"
"                            (default 64K)\n"
"      --max-open N          open zones GAZE may use (may only lower a\n"
"                            zoned device's own limit)\n"
"  -s, --size SIZE           image files: create the file if missing and\n"
"                            set its size (sparse); block devices: use\n"
"                            only the first SIZE (whole zones)\n"
"  -d, --root-dir DIR        copy the tree under DIR into the filesystem\n"
"  -q, --quiet               print nothing but errors\n"
"  -v, --verbose             print more (table sizes; twice: every file)\n"
"  -V, --version             print the version and exit\n"
"  -h, --help                print this help and exit\n"
"\n"
"SIZE takes K, M, G, T or P suffixes (powers of 1024), e.g. 64M or 1G.\n"
"Exit status: 0 success, 1 failure or refusal, 2 usage error.\n",
		MKFS_PROG, known);
}

static void __attribute__((format(printf, 1, 2), noreturn))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", MKFS_PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", MKFS_PROG);
	exit(MKFS_EXIT_USAGE);
}

/* "mkfs.gaze: DEVICE: what" */
static void __attribute__((format(printf, 2, 3)))
dev_error(const char *dev, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", MKFS_PROG, dev);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static u64
parse_size_opt(const char *opt, const char *arg)
{
	u64 v;
	int ret = gaze_size_parse(arg, &v);

	if (ret == -ERANGE)
		usage_error("%s: size '%s' is too large", opt, arg);
	if (ret)
		usage_error("%s: '%s' is not a size (examples: 4096, 64M, 1G)",
			    opt, arg);
	return v;
}

static u64
parse_uint_opt(const char *opt, const char *arg, u64 lo, u64 hi)
{
	u64 v;
	int ret = gaze_uint_parse(arg, lo, hi, &v);

	if (ret == -ERANGE)
		usage_error("%s: '%s' is out of range (%" PRIu64 "..%" PRIu64 ")",
			    opt, arg, lo, hi);
	if (ret)
		usage_error("%s: '%s' is not a number", opt, arg);
	return v;
}

enum {
	OPT_GC_POOL = 256,
	OPT_DIRTY_LIMIT,
	OPT_MAX_OPEN,
	OPT_COMPRESSION,
	OPT_CLUSTER_SIZE,
};

static const struct option long_opts[] = {
	{ "force",		no_argument,		NULL, 'f' },
	{ "dry-run",		no_argument,		NULL, 'n' },
	{ "label",		required_argument,	NULL, 'L' },
	{ "uuid",		required_argument,	NULL, 'U' },
	{ "zone-size",		required_argument,	NULL, 'z' },
	{ "overprovision",	required_argument,	NULL, 'o' },
	{ "gc-pool",		required_argument,	NULL, OPT_GC_POOL },
	{ "dirty-limit",	required_argument,	NULL, OPT_DIRTY_LIMIT },
	{ "features",		required_argument,	NULL, 'O' },
	{ "max-open",		required_argument,	NULL, OPT_MAX_OPEN },
	{ "compression",	required_argument,	NULL, OPT_COMPRESSION },
	{ "cluster-size",	required_argument,	NULL, OPT_CLUSTER_SIZE },
	{ "size",		required_argument,	NULL, 's' },
	{ "root-dir",		required_argument,	NULL, 'd' },
	{ "quiet",		no_argument,		NULL, 'q' },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "version",		no_argument,		NULL, 'V' },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
parse_args(int argc, char **argv, struct mkfs_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->dirty_pct = GAZE_DEFAULT_DIRTY_PCT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fnL:U:z:o:O:s:d:qvVh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'f':
			o->force = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'L':
			if (strlen(optarg) > GAZE_LABEL_MAX - 1)
				usage_error("-L: label is %zu bytes long; at most %d are allowed",
					    strlen(optarg), GAZE_LABEL_MAX - 1);
			o->label = optarg;
			break;
		case 'U':
			o->uuid = optarg;
			break;
		case 'z':
			o->zone_bytes = parse_size_opt("-z", optarg);
			if (o->zone_bytes < MIB ||
			    o->zone_bytes % GAZE_BLOCK_SIZE ||
			    o->zone_bytes / GAZE_BLOCK_SIZE > UINT32_MAX)
				usage_error("-z: zone size '%s' must be a multiple of 4 KiB and at least 1 MiB",
					    optarg);
			break;
		case 'o':
			o->ovp_pct = parse_uint_opt("-o", optarg, 1, 50);
			break;
		case OPT_GC_POOL:
			o->gc_pool_bytes = parse_size_opt("--gc-pool", optarg);
			if (o->gc_pool_bytes < MIB || o->gc_pool_bytes > 4 * GIB ||
			    o->gc_pool_bytes % GAZE_BLOCK_SIZE)
				usage_error("--gc-pool: '%s' must be a multiple of 4 KiB from 1 MiB to 4 GiB",
					    optarg);
			break;
		case OPT_DIRTY_LIMIT:
			o->dirty_pct = parse_uint_opt("--dirty-limit", optarg,
						      1, 90);
			break;
		case 'O':
			o->features = optarg;
			break;
		case OPT_COMPRESSION:
			o->compression = optarg;
			break;
		case OPT_CLUSTER_SIZE:
			o->cluster_bytes = parse_size_opt("--cluster-size",
							  optarg);
			break;
		case OPT_MAX_OPEN:
			o->max_open = parse_uint_opt("--max-open", optarg, 1,
						     UINT32_MAX);
			break;
		case 's':
			o->size = parse_size_opt("-s", optarg);
			if (!o->size)
				usage_error("-s: size must not be zero");
			break;
		case 'd':
			o->root_dir = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			printf("%s (gaze) %s\n", MKFS_PROG, PACKAGE_VERSION);
			exit(MKFS_EXIT_OK);
		case 'h':
			usage(stdout);
			exit(MKFS_EXIT_OK);
		case ':':
			usage_error("option '%s' requires an argument",
				    argv[optind - 1]);
		default:
			if (optopt && optopt < 256)
				usage_error("invalid option -- '%c'", optopt);
			usage_error("unrecognized option '%s'",
				    argv[optind - 1]);
		}
	}
	if (o->quiet && o->verbose)
		usage_error("-q and -v cannot be used together");
	if (optind >= argc)
		usage_error("no device or image given");
	if (optind + 1 < argc)
		usage_error("extra operand '%s'", argv[optind + 1]);
	o->device = argv[optind];
}

/* options that only need the option values; exit 2 on error */
/*
 * --compression ALG[:LEVEL] (implies -O compression) and --cluster-size:
 * the filesystem's default, which the root directory takes and passes
 * on.  -O compression alone means lz4.
 */
static void
compression_params(const struct mkfs_opts *o, struct gaze_mkfs_params *p)
{
	u64 cb = o->cluster_bytes ? o->cluster_bytes : GAZE_MKFS_CLUSTER_BYTES;
	u8 algo = GAZE_COMPRESS_LZ4, level = 0, log;

	if (o->compression &&
	    gaze_fmt_compress_parse(o->compression, &algo, &level))
		usage_error("--compression: '%s' is not lz4, zstd[:1-19], gzip[:1-9], on or none",
			    o->compression);
	if (o->compression && algo != GAZE_COMPRESS_NONE)
		p->feature_incompat |= GAZE_FEATURE_INCOMPAT_COMPRESSION;
	for (log = GAZE_CLUSTER_LOG_MIN; log <= GAZE_CLUSTER_LOG_MAX; log++)
		if ((u64)GAZE_BLOCK_SIZE << log == cb)
			break;
	if (log > GAZE_CLUSTER_LOG_MAX)
		usage_error("--cluster-size: must be a power of two from 16 KiB to 1 MiB");
	if (o->cluster_bytes &&
	    !(p->feature_incompat & GAZE_FEATURE_INCOMPAT_COMPRESSION))
		usage_error("--cluster-size: needs --compression or -O compression");
	if (!(p->feature_incompat & GAZE_FEATURE_INCOMPAT_COMPRESSION))
		return;
	p->compress_algo = algo;
	p->compress_level = level;
	p->compress_log_cluster = log;
}

static void
params_from_opts(const struct mkfs_opts *o, struct gaze_mkfs_params *p)
{
	const char *bad = NULL;
	s64 sec;
	u32 nsec;
	int ret;

	memset(p, 0, sizeof(*p));
	p->ovp_percent = o->ovp_pct;
	p->gc_pool_blocks = o->gc_pool_bytes / GAZE_BLOCK_SIZE;
	p->dirty_limit_pct = o->dirty_pct;
	p->victim_policy = GAZE_GC_COST_BENEFIT;
	gaze_fmt_feature_defaults(&p->feature_compat, &p->feature_ro_compat,
				  &p->feature_incompat);
	if (o->features) {
		ret = gaze_fmt_feature_parse(o->features, &p->feature_compat,
					     &p->feature_ro_compat,
					     &p->feature_incompat, &bad);
		if (ret) {
			char known[128];

			if (!bad)
				bad = o->features;
			gaze_fmt_feature_known(known, sizeof(known));
			if (ret == -EOPNOTSUPP)
				usage_error("-O: feature '%.*s' is not supported by this version (nothing could mount such a filesystem; supported: %s)",
					    (int)strcspn(bad, ","), bad, known);
			if (ret == -EPERM)
				usage_error("-O: feature '%.*s' is set by gazectl on an existing filesystem, not by mkfs.gaze (supported here: %s)",
					    (int)strcspn(bad, ","), bad, known);
			usage_error("-O: unknown feature '%.*s' (known: %s)",
				    (int)strcspn(bad, ","), bad, known);
		}
	}
	compression_params(o, p);

	if (o->uuid && strcmp(o->uuid, "random")) {
		if (gaze_uuid_parse(o->uuid, p->uuid))
			usage_error("-U: '%s' is not a UUID (or 'random')",
				    o->uuid);
	} else {
		gaze_uuid_generate(p->uuid);
	}
	if (o->label)
		snprintf(p->label, sizeof(p->label), "%s", o->label);
	snprintf(p->version, sizeof(p->version), "gaze-%s", PACKAGE_VERSION);
	gaze_wallclock(&sec, &nsec);
	p->mkfs_time = (u64)sec;
}

/* ---------------------------------------------------------------- */
/* Safety checks                                                     */
/* ---------------------------------------------------------------- */

/*
 * The answer to "Proceed anyway? (y/N)".  Asked when standard input is
 * a terminal or a pipe or file (fstests pipes `yes` into mkfs); with no
 * usable input (closed, /dev/null) the answer is no without asking.
 */
static bool
can_ask(void)
{
	struct stat st;

	if (isatty(STDIN_FILENO))
		return true;
	if (fstat(STDIN_FILENO, &st) < 0)
		return false;
	return S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode) ||
	       S_ISSOCK(st.st_mode);
}

/* reads one line: "y" or "yes" (any case) is yes, anything else no */
static bool
ask_proceed(void)
{
	char line[64];

	fprintf(stderr, "Proceed anyway? (y/N) ");
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin)) {
		fputc('\n', stderr);
		return false;
	}
	line[strcspn(line, "\r\n")] = '\0';
	return !strcasecmp(line, "y") || !strcasecmp(line, "yes");
}

/*
 * Zone size this run would use on the device as it is now: -z, a zoned
 * device's own, or the emulated default for the size; 0 if unknown.
 */
static u64
current_zone_bytes(const struct mkfs_opts *o, const struct stat *st)
{
	u64 size = 0;
	u32 sectors = 0;
	int fd;

	if (o->zone_bytes)
		return o->zone_bytes;
	if (S_ISREG(st->st_mode))
		return (u64)gaze_zdev_default_zone_blocks(st->st_size) *
		       GAZE_BLOCK_SIZE;
	fd = open(o->device, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (ioctl(fd, BLKGETZONESZ, &sectors) == 0 && sectors)
		size = (u64)sectors << 9;
	else if (ioctl(fd, BLKGETSIZE64, &size) == 0)
		size = (u64)gaze_zdev_default_zone_blocks(size) *
		       GAZE_BLOCK_SIZE;
	else
		size = 0;
	close(fd);
	return size;
}

/*
 * What is on the device now?  A GAZE primary superblock, else whatever
 * libblkid finds, else a GAZE secondary superblock (zone 1 of the zone
 * size this run would use), so a live filesystem of another kind wins
 * over a GAZE copy it left behind.
 * Returns 1 and a description in what, 0 if nothing, or -errno.
 */
static int
probe_existing(const struct mkfs_opts *o, const struct stat *st, char *what,
	       size_t len)
{
	char type[64];
	u64 zone_bytes;
	bool ptable;
	int ret;

	ret = gaze_probe_gaze_at(o->device, 0);
	if (ret < 0)
		goto out_read;
	if (ret) {
		snprintf(what, len, "a gaze file system");
		return 1;
	}
	ret = gaze_probe_blkid(o->device, type, sizeof(type), &ptable);
	if (ret < 0) {
		dev_error(o->device, "cannot probe for existing data: %s",
			  strerror(-ret));
		return ret;
	}
	if (ret) {
		if (!strcmp(type, "multiple signatures"))
			snprintf(what, len, "multiple signatures");
		else
			snprintf(what, len, "a %s %s", type,
				 ptable ? "partition table" : "file system");
		return 1;
	}
	zone_bytes = current_zone_bytes(o, st);
	if (!zone_bytes)
		return 0;
	ret = gaze_probe_gaze_at(o->device, zone_bytes);
	if (ret < 0)
		goto out_read;
	if (ret)
		snprintf(what, len, "a gaze file system");
	return ret;

out_read:
	dev_error(o->device, "cannot read: %s", strerror(-ret));
	return ret;
}

/* 0: go on; 1: refused (message printed); <0 error (message printed) */
static int
check_existing(const struct mkfs_opts *o, const struct stat *st)
{
	char what[96];
	int ret;

	ret = probe_existing(o, st, what, sizeof(what));
	if (ret <= 0)
		return ret;
	if (o->force)
		return 0;

	if (o->dry_run) {
		/* nothing will be written anyway */
		fprintf(stderr, "%s: %s contains %s\n", MKFS_PROG, o->device,
			what);
		return 0;
	}
	if (can_ask()) {
		fprintf(stderr, "%s: %s contains %s\n", MKFS_PROG, o->device,
			what);
		if (ask_proceed())
			return 0;
	}
	dev_error(o->device, "contains %s; not overwriting it (use -f to force)",
		  what);
	return 1;
}

/* ---------------------------------------------------------------- */
/* Geometry and layout                                               */
/* ---------------------------------------------------------------- */

struct mkfs_ctx {
	struct mkfs_opts	o;
	struct gaze_mkfs_params	p;
	struct gaze_layout	l;
	struct stat		st;
	bool			exists;
	bool			resize;		/* -s changes or creates it */
	bool			created;	/* -s made the file: removed
						 * again if the run fails */
	int			lock_fd;	/* image files: holds the lock */
};

static int
dev_open(struct mkfs_ctx *c, const char *path, bool rdonly,
	 struct gaze_dev **devp)
{
	struct gaze_dev_open_opts oo;
	int ret;

	memset(&oo, 0, sizeof(oo));
	oo.zone_blocks = c->o.zone_bytes / GAZE_BLOCK_SIZE;
	oo.rdonly = rdonly;
	oo.excl = !rdonly;
	oo.direct = c->exists && S_ISBLK(c->st.st_mode);
	oo.max_open = c->o.max_open;
	ret = gaze_dev_open(path, &oo, devp);
	if (ret)
		dev_error(c->o.device, "cannot open%s: %s",
			  rdonly ? "" : " for writing", strerror(-ret));
	return ret;
}

/* geometry of the open device into c->p.geo, then the layout */
static int
layout_for(struct mkfs_ctx *c, struct gaze_dev *dev)
{
	struct gaze_geometry *g = &c->p.geo;
	char h1[GAZE_SIZE_HUMAN_LEN], h2[GAZE_SIZE_HUMAN_LEN];
	const char *why = NULL;
	int ret;

	if (dev->model == GAZE_ZM_HOST_MANAGED && c->o.zone_bytes &&
	    c->o.zone_bytes != (u64)dev->zone_blocks * GAZE_BLOCK_SIZE) {
		dev_error(c->o.device,
			  "zone size %s does not match the device's zone size %s (-z is for emulated zones)",
			  gaze_size_human(c->o.zone_bytes, h1, sizeof(h1)),
			  gaze_size_human((u64)dev->zone_blocks *
					  GAZE_BLOCK_SIZE, h2, sizeof(h2)));
		return -EINVAL;
	}
	if (dev->model == GAZE_ZM_HOST_MANAGED && c->o.max_open &&
	    c->o.max_open > dev->max_open && dev->max_open) {
		dev_error(c->o.device,
			  "--max-open %u exceeds the device's limit of %u open zones",
			  c->o.max_open, dev->max_open);
		return -EINVAL;
	}
	g->nr_blocks = dev->nr_blocks;
	g->zone_blocks = dev->zone_blocks;
	g->zone_cap = dev->zone_cap;
	g->nr_zones = dev->nr_zones;
	g->nr_conv = dev->nr_conv;
	g->max_open = dev->max_open;
	g->max_active = dev->max_active;
	g->model = dev->model;
	if (c->o.size && c->exists && S_ISBLK(c->st.st_mode)) {
		/* -s on a block device: its first whole zones only */
		u64 zb = (u64)g->zone_blocks * GAZE_BLOCK_SIZE;

		if (c->o.size > (u64)g->nr_blocks * GAZE_BLOCK_SIZE) {
			dev_error(c->o.device, "-s %s is larger than the device (%s)",
				  gaze_size_human(c->o.size, h1, sizeof(h1)),
				  gaze_size_human((u64)g->nr_blocks *
						  GAZE_BLOCK_SIZE, h2,
						  sizeof(h2)));
			return -EINVAL;
		}
		if (c->o.size / zb < g->nr_zones) {
			g->nr_zones = (u32)(c->o.size / zb);
			g->nr_blocks = (u64)g->nr_zones * g->zone_blocks;
			g->nr_conv = min(g->nr_conv, g->nr_zones);
		}
	}
	ret = gaze_layout_compute(&c->p, &c->l, &why);
	if (ret)
		dev_error(c->o.device, "%s", why ? why : strerror(-ret));
	return ret;
}

/*
 * -s on a file that must be created or resized: the layout of the size
 * asked for, from the geometry the file backend will give it, so that
 * no file is made or changed before the checks pass (a stand-in file
 * elsewhere would have been checked on another filesystem, and could be
 * left behind).
 */
static int
layout_for_size(struct mkfs_ctx *c)
{
	struct gaze_dev_open_opts oo = {
		.zone_blocks = c->o.zone_bytes / GAZE_BLOCK_SIZE,
		.max_open = c->o.max_open,
	};
	struct gaze_dev d = { 0 };
	int ret;

	ret = gaze_zdev_file_geometry(c->o.size, &oo, &d);
	if (ret) {
		dev_error(c->o.device, "device too small: cannot hold one zone");
		return ret;
	}
	return layout_for(c, &d);
}

/* "in use": another mkfs.gaze, a repairing fsck.gaze or a reader */
static int
image_busy(struct mkfs_ctx *c)
{
	dev_error(c->o.device,
		  "in use: another program (mkfs.gaze, fsck.gaze, gazectl) holds its lock; not touching it");
	return -EWOULDBLOCK;
}

/*
 * Image files: the lock this run holds to its end, exclusive (shared
 * for a dry run, which only reads), taken before anything is read.
 */
static int
image_lock(struct mkfs_ctx *c)
{
	int ret;

	c->lock_fd = open(c->o.device, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (c->lock_fd < 0) {
		ret = -errno;
		dev_error(c->o.device, "cannot open: %s", strerror(-ret));
		return ret;
	}
	ret = gaze_dev_lock(c->lock_fd, !c->o.dry_run);
	if (ret == -EWOULDBLOCK)
		return image_busy(c);
	if (ret)
		dev_error(c->o.device, "cannot lock: %s", strerror(-ret));
	return ret;
}

/* -s: creates the image, locked, where none existed */
static int
image_create(struct mkfs_ctx *c)
{
	int fd, ret;

	fd = open(c->o.device, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY |
		  O_CLOEXEC, 0666);
	if (fd < 0) {
		ret = -errno;
		if (ret == -EEXIST)
			dev_error(c->o.device,
				  "was created by another program meanwhile; not touching it");
		else
			dev_error(c->o.device, "cannot create: %s",
				  strerror(-ret));
		return ret;
	}
	c->lock_fd = fd;
	ret = gaze_dev_lock(fd, true);
	if (ret == -EWOULDBLOCK)
		return image_busy(c);	/* theirs now: left alone */
	c->created = true;
	if (ret)
		dev_error(c->o.device, "cannot lock: %s", strerror(-ret));
	return ret;
}

/* creates or resizes the image for -s (after every check passed) */
static int
image_resize(struct mkfs_ctx *c)
{
	int fd, ret = 0;

	if (!c->exists) {
		ret = image_create(c);
		if (ret)
			return ret;
		fd = c->lock_fd;
	} else {
		fd = open(c->o.device, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			dev_error(c->o.device, "cannot open for writing: %s",
				  strerror(-ret));
			return ret;
		}
	}
	if (ftruncate(fd, (off_t)c->o.size) < 0) {
		ret = -errno;
		dev_error(c->o.device, "cannot set the size: %s",
			  strerror(-ret));
	}
	if (fd != c->lock_fd)
		close(fd);
	return ret;
}

/*
 * A failed run removes the image it created: still the file it made
 * (same inode as the locked descriptor), so nobody else's is removed.
 */
static void
image_remove(struct mkfs_ctx *c)
{
	struct stat a, b;

	if (!c->created || fstat(c->lock_fd, &a) || stat(c->o.device, &b) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return;
	if (unlink(c->o.device))
		dev_error(c->o.device, "cannot remove the unfinished image: %s",
			  strerror(errno));
}

/* checks that need only the path; exit status or -1 to go on */
static int
check_target(struct mkfs_ctx *c)
{
	struct mkfs_opts *o = &c->o;
	char where[PATH_MAX], h[GAZE_SIZE_HUMAN_LEN];
	struct stat st;
	int ret;

	if (stat(o->device, &c->st) < 0) {
		if (errno != ENOENT || !o->size) {
			dev_error(o->device, "%s", strerror(errno));
			return MKFS_EXIT_FAIL;
		}
		c->exists = false;
		c->resize = true;
	} else {
		c->exists = true;
		if (!S_ISREG(c->st.st_mode) && !S_ISBLK(c->st.st_mode)) {
			dev_error(o->device,
				  "not a block device or regular file");
			return MKFS_EXIT_FAIL;
		}
		if (S_ISREG(c->st.st_mode) && image_lock(c))
			return MKFS_EXIT_FAIL;
		/* a block device keeps its size: -s limits the filesystem
		 * to its first zones (layout_for) */
		c->resize = o->size && S_ISREG(c->st.st_mode) &&
			    (u64)c->st.st_size != o->size;
	}

	if (o->root_dir) {
		if (stat(o->root_dir, &st) < 0) {
			dev_error(o->root_dir, "%s", strerror(errno));
			return MKFS_EXIT_FAIL;
		}
		if (!S_ISDIR(st.st_mode)) {
			dev_error(o->root_dir, "not a directory");
			return MKFS_EXIT_FAIL;
		}
	}
	if (!c->exists)
		goto out_size;

	ret = gaze_mount_check(o->device, where, sizeof(where));
	if (ret < 0) {
		dev_error(o->device, "cannot tell whether it is mounted: %s",
			  strerror(-ret));
		return MKFS_EXIT_FAIL;
	}
	if (ret) {
		dev_error(o->device,
			  "is mounted on %s; will not make a filesystem here",
			  where[0] ? where : "(unknown)");
		return MKFS_EXIT_FAIL;
	}
	if (o->size && S_ISREG(c->st.st_mode) &&
	    (u64)c->st.st_size > o->size && !o->force) {
		dev_error(o->device,
			  "is larger than %s; will not shrink it without -f",
			  gaze_size_human(o->size, h, sizeof(h)));
		return MKFS_EXIT_FAIL;
	}
	ret = check_existing(o, &c->st);
	if (ret)
		return MKFS_EXIT_FAIL;

out_size:
	/* an image that cannot hold one zone: say so before opening it */
	if (S_ISREG(c->st.st_mode) || !c->exists) {
		u64 size = o->size ? o->size : (u64)c->st.st_size;
		u64 zb = o->zone_bytes ? o->zone_bytes :
			 (u64)gaze_zdev_default_zone_blocks(size) *
			 GAZE_BLOCK_SIZE;
		char h2[GAZE_SIZE_HUMAN_LEN];

		if (size < zb) {
			dev_error(o->device,
				  "device too small: %s cannot hold one zone of %s",
				  gaze_size_human(size, h, sizeof(h)),
				  gaze_size_human(zb, h2, sizeof(h2)));
			return MKFS_EXIT_FAIL;
		}
	}
	return -1;
}

/* ---------------------------------------------------------------- */
/* The format                                                        */
/* ---------------------------------------------------------------- */

static void
root_attr_init(struct gaze_attr *a, u64 now)
{
	memset(a, 0, sizeof(*a));
	a->ino = GAZE_ROOT_INO;
	a->mode = GAZE_S_IFDIR | 0755;
	a->uid = 0;
	a->gid = 0;
	a->nlink = 2;
	a->atime = a->mtime = a->ctime = a->crtime = (s64)now;
}

/* "1.50 MiB" for a count of 4 KiB blocks */
static const char *
blocks_human(u64 blocks, char *buf)
{
	return gaze_size_human(blocks * GAZE_BLOCK_SIZE, buf,
			       GAZE_SIZE_HUMAN_LEN);
}

/*
 * Whether the tree estimated in e fits the layout: prints why not as one
 * line ("DIR does not fit: ...") and returns false.
 */
static bool
tree_fits(struct mkfs_ctx *c, const struct gaze_tree_estimate *e)
{
	char h1[GAZE_SIZE_HUMAN_LEN], h2[GAZE_SIZE_HUMAN_LEN];
	u64 need = gaze_tree_estimate_blocks(e);
	/* nids 0 and 1 are never handed out; space runs out first unless
	 * max_nid is capped (main areas of 16 TiB and more) */
	u64 nids = c->l.max_nid - GAZE_ROOT_INO;

	if (need > c->l.user_blocks) {
		fprintf(stderr, "%s: %s does not fit: the tree needs about %s, the filesystem has %s usable\n",
			MKFS_PROG, c->o.root_dir, blocks_human(need, h1),
			blocks_human(c->l.user_blocks, h2));
		return false;
	}
	if (gaze_tree_estimate_nids(e) > nids) {
		fprintf(stderr, "%s: %s does not fit: out of inodes: the tree needs about %" PRIu64 " inodes and nodes, the filesystem has %" PRIu64 "\n",
			MKFS_PROG, c->o.root_dir,
			gaze_tree_estimate_nids(e), nids);
		return false;
	}
	return true;
}

/*
 * The copy ran out of space: says so in words, with what the tree
 * needs (estimated now, quietly) against what the filesystem has.
 */
static void
report_nospace(struct mkfs_ctx *c)
{
	char h1[GAZE_SIZE_HUMAN_LEN], h2[GAZE_SIZE_HUMAN_LEN];
	struct gaze_tree_estimate e;

	if (gaze_populate_estimate(c->o.root_dir, c->p.feature_compat,
				   c->p.feature_incompat, true, &e)) {
		fprintf(stderr, "%s: %s does not fit: no space left in the new filesystem (%s usable)\n",
			MKFS_PROG, c->o.root_dir,
			blocks_human(c->l.user_blocks, h1));
		return;
	}
	if (!tree_fits(c, &e))
		return;
	/* the estimate is low for this tree (sparse files, directories) */
	fprintf(stderr, "%s: %s does not fit: no space left in the new filesystem (%s usable; the tree was estimated at about %s)\n",
		MKFS_PROG, c->o.root_dir, blocks_human(c->l.user_blocks, h1),
		blocks_human(gaze_tree_estimate_blocks(&e), h2));
}

/*
 * A filesystem that could not be finished must not look like one.  What
 * every reader recognises GAZE by is the superblock at the start of
 * each checkpoint zone (gaze_fs_open, fsck.gaze, gazectl, mkfs's own
 * probe; blkid does not know GAZE), so both checkpoint zones are reset,
 * which drops the checkpoints too.  Emulated zones are all reset, in one
 * call: an image gets its space back as one hole.  But a reset of
 * emulated zones on a disk is a discard, which need not zero anything,
 * and a conventional zone cannot be reset at all, so those get a zero
 * block written over their superblock.
 */
static int
format_undo(struct mkfs_ctx *c, struct gaze_dev *dev)
{
	u32 z, end = c->l.cp_zone_start + c->l.cp_zone_count;
	bool emulated = dev->model == GAZE_ZM_EMULATED;
	struct gaze_zone zone = { .type = GAZE_ZT_SEQ };
	void *zero;
	int ret = 0;

	zero = calloc(1, GAZE_BLOCK_SIZE);
	if (!zero)
		ret = -ENOMEM;
	if (!ret && emulated)
		ret = dev->ops->reset(dev, 0, c->l.nr_zones);
	for (z = c->l.cp_zone_start; !ret && z < end; z++) {
		if (!emulated) {
			ret = dev->ops->report(dev, z, 1, &zone);
			if (ret < 0)
				break;
			ret = 0;
			if (zone.type == GAZE_ZT_SEQ)
				ret = dev->ops->reset(dev, z, 1);
		}
		if (!ret && (emulated || zone.type != GAZE_ZT_SEQ))
			ret = dev->ops->write(dev, (u64)z * dev->zone_blocks,
					      1, zero);
	}
	if (!ret && dev->ops->flush)
		ret = dev->ops->flush(dev);
	free(zero);
	if (ret)
		dev_error(c->o.device, "cannot erase the unfinished filesystem: %s; do not use it",
			  strerror(-ret));
	return ret;
}

/*
 * Copies -d DIR and commits.  Whatever fails, fs is gone afterwards;
 * on failure nothing more was written (the caller erases what was).
 */
static int
fs_fill(struct mkfs_ctx *c, struct gaze_fs *fs)
{
	struct mkfs_opts *o = &c->o;
	int ret = 0;

	if (o->root_dir) {
		/* gaze_populate names the failing path itself */
		ret = gaze_populate(fs, o->root_dir,
				    o->quiet ? 0 : o->verbose >= 2 ? 2 : 1);
		/* commit first, so that a full filesystem is said in words */
		if (!ret) {
			ret = gaze_fs_sync(fs);
			if (ret && ret != -ENOSPC)
				dev_error(o->device, "writing the checkpoint failed: %s",
					  strerror(-ret));
		}
		if (ret) {
			fs->flags |= GAZE_FS_RDONLY;	/* close writes nothing */
			gaze_fs_close(fs);
			if (ret == -ENOSPC)
				report_nospace(c);
			return ret;
		}
	}
	ret = gaze_fs_close(fs);
	if (ret)
		dev_error(o->device, "writing the final checkpoint failed: %s",
			  strerror(-ret));
	return ret;
}

static int
do_format(struct mkfs_ctx *c)
{
	struct mkfs_opts *o = &c->o;
	struct gaze_dev *dev = NULL;
	struct gaze_fs *fs = NULL;
	struct gaze_attr root;
	u32 rest;
	int ret;

	if (c->resize) {
		ret = image_resize(c);
		if (ret)
			return ret;
	}
	ret = dev_open(c, o->device, false, &dev);
	if (ret)
		return ret;
	/* same device, same inputs: the layout the checks approved */
	ret = layout_for(c, dev);
	if (ret)
		goto out_dev;

	/* -s left zones of a zoned device out: none stays open there */
	rest = max(c->l.nr_zones, dev->nr_conv);
	if (dev->model == GAZE_ZM_HOST_MANAGED && rest < dev->nr_zones) {
		ret = dev->ops->reset(dev, rest, dev->nr_zones - rest);
		if (ret) {
			dev_error(o->device, "cannot reset the zones past the filesystem: %s",
				  strerror(-ret));
			goto out_dev;
		}
	}
	root_attr_init(&root, c->p.mkfs_time);
	ret = gaze_fs_format(dev, &c->p, &root, &fs);
	if (ret) {
		dev_error(o->device, "format failed: %s", strerror(-ret));
		goto out_dev;
	}
	ret = fs_fill(c, fs);
	if (!ret && dev->ops->flush) {
		ret = dev->ops->flush(dev);
		if (ret)
			dev_error(o->device, "flush failed: %s",
				  strerror(-ret));
	}
	/* an image this run made goes as a whole (image_remove) */
	if (ret && !c->created)
		format_undo(c, dev);
out_dev:
	gaze_dev_close(dev);
	return ret;
}

static void
summary(struct mkfs_ctx *c, bool dry_run,
	const struct gaze_tree_estimate *tree)
{
	struct mkfs_summary s = {
		.device		= c->o.device,
		.params		= &c->p,
		.layout		= &c->l,
		.dry_run	= dry_run,
		.verbose	= c->o.verbose,
		.root_dir	= c->o.root_dir,
		.tree		= tree,
	};

	if (!c->o.quiet)
		gaze_mkfs_summary_print(&s);
}

/*
 * -n: the summary; with -d also what the tree would take, and status 1
 * when the copy would not fit, as the real run would fail.
 */
static int
dry_run_report(struct mkfs_ctx *c)
{
	struct gaze_tree_estimate e;

	if (!c->o.root_dir) {
		summary(c, true, NULL);
		return MKFS_EXIT_OK;
	}
	/* a tree the walk cannot read would fail the copy too */
	if (gaze_populate_estimate(c->o.root_dir, c->p.feature_compat,
				   c->p.feature_incompat, false, &e))
		return MKFS_EXIT_FAIL;
	summary(c, true, &e);
	return tree_fits(c, &e) ? MKFS_EXIT_OK : MKFS_EXIT_FAIL;
}

int
main(int argc, char **argv)
{
	struct mkfs_ctx *c;
	struct gaze_dev *dev = NULL;
	int ret, status = MKFS_EXIT_FAIL;

	c = calloc(1, sizeof(*c));
	if (!c) {
		fprintf(stderr, "%s: out of memory\n", MKFS_PROG);
		return MKFS_EXIT_FAIL;
	}
	c->lock_fd = -1;
	parse_args(argc, argv, &c->o);
	if (c->o.quiet)
		gaze_log_level = GAZE_LOG_ERR;
	else if (c->o.verbose)
		gaze_log_level = GAZE_LOG_INFO;
	params_from_opts(&c->o, &c->p);

	ret = check_target(c);
	if (ret >= 0) {
		status = ret;
		goto out;
	}

	/* layout on the device as it is (or of the -s size), read-only */
	if (c->resize) {
		ret = layout_for_size(c);
	} else {
		ret = dev_open(c, c->o.device, true, &dev);
		if (!ret)
			ret = layout_for(c, dev);
		gaze_dev_close(dev);
		dev = NULL;
	}
	if (ret)
		goto out;

	if (c->o.dry_run) {
		status = dry_run_report(c);
		goto out;
	}
	if (do_format(c))
		goto out;
	summary(c, false, NULL);
	status = MKFS_EXIT_OK;
out:
	if (status != MKFS_EXIT_OK)
		image_remove(c);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	free(c);
	return status;
}
