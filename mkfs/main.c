// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - mkfs.gaze: make a GAZE filesystem on a zoned device, a regular
 * block device or an image file.
 *
 * Why it is ordered the way it is: every refusal (bad option, mounted
 * device, existing filesystem or partition table, device too small, a
 * geometry the format cannot use) happens before the first byte is
 * written, so a refused run leaves the device exactly as it was.  The
 * device is first opened read-only for probing and for computing the
 * layout; only then is the image created or resized (-s) and the device
 * reopened read-write and exclusively for gaze_fs_format(), which resets
 * every zone it uses and verifies the reset.
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
"  -n, --dry-run             compute and print the layout, write nothing\n"
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
"      --max-open N          open zones GAZE may use (may only lower a\n"
"                            zoned device's own limit)\n"
"  -s, --size SIZE           image files: create the file if missing and\n"
"                            set its size (sparse)\n"
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
			usage_error("-O: unknown feature '%.*s' (known: %s)",
				    (int)strcspn(bad, ","), bad, known);
		}
	}
	if (p->feature_incompat & GAZE_FEATURE_INCOMPAT_COMPRESSION) {
		p->compress_algo = GAZE_COMPRESS_LZ4;
		p->compress_log_cluster = 2;
	}

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
	char			tmp[PATH_MAX];	/* stand-in for -s geometry */
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
	ret = gaze_layout_compute(&c->p, &c->l, &why);
	if (ret)
		dev_error(c->o.device, "%s", why ? why : strerror(-ret));
	return ret;
}

/*
 * -s on a file that must be created or resized: the layout is computed
 * on a sparse stand-in of the requested size, so that a refusal leaves
 * the real file alone and a dry run writes nothing.
 */
static int
standin_create(struct mkfs_ctx *c)
{
	const char *dir = getenv("TMPDIR");
	int fd, ret = 0;

	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(c->tmp, sizeof(c->tmp), "%s/mkfs.gaze.XXXXXX", dir);
	fd = mkstemp(c->tmp);
	if (fd < 0) {
		ret = -errno;
		dev_error(c->o.device, "cannot create a stand-in in %s: %s",
			  dir, strerror(-ret));
		c->tmp[0] = '\0';
		return ret;
	}
	if (ftruncate(fd, (off_t)c->o.size) < 0) {
		ret = -errno;
		dev_error(c->o.device, "cannot size a %" PRIu64 "-byte stand-in in %s: %s",
			  c->o.size, dir, strerror(-ret));
	}
	close(fd);
	return ret;
}

static void
standin_remove(struct mkfs_ctx *c)
{
	if (c->tmp[0])
		unlink(c->tmp);
	c->tmp[0] = '\0';
}

/* creates or resizes the image for -s (after every check passed) */
static int
image_resize(struct mkfs_ctx *c)
{
	int fd, ret = 0;

	fd = open(c->o.device, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		ret = -errno;
		dev_error(c->o.device, "cannot create: %s", strerror(-ret));
		return ret;
	}
	if (ftruncate(fd, (off_t)c->o.size) < 0) {
		ret = -errno;
		dev_error(c->o.device, "cannot set the size: %s",
			  strerror(-ret));
	}
	close(fd);
	return ret;
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
		if (o->size && !S_ISREG(c->st.st_mode)) {
			dev_error(o->device,
				  "-s applies to image files, not to block devices");
			return MKFS_EXIT_FAIL;
		}
		c->resize = o->size && (u64)c->st.st_size != o->size;
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
	if (o->size && (u64)c->st.st_size > o->size && !o->force) {
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
	if (o->size || S_ISREG(c->st.st_mode)) {
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

static int
do_format(struct mkfs_ctx *c)
{
	struct mkfs_opts *o = &c->o;
	struct gaze_dev *dev = NULL;
	struct gaze_fs *fs = NULL;
	struct gaze_attr root;
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

	root_attr_init(&root, c->p.mkfs_time);
	ret = gaze_fs_format(dev, &c->p, &root, &fs);
	if (ret) {
		dev_error(o->device, "format failed: %s", strerror(-ret));
		goto out_dev;
	}
	if (o->root_dir) {
		/* gaze_populate names the failing path itself */
		ret = gaze_populate(fs, o->root_dir,
				    o->quiet ? 0 : o->verbose >= 2 ? 2 : 1);
	}
	if (!ret) {
		ret = gaze_fs_close(fs);
		if (ret)
			dev_error(o->device, "writing the final checkpoint failed: %s",
				  strerror(-ret));
	} else {
		gaze_fs_close(fs);	/* keep what was copied consistent */
	}
	if (!ret && dev->ops->flush) {
		ret = dev->ops->flush(dev);
		if (ret)
			dev_error(o->device, "flush failed: %s",
				  strerror(-ret));
	}
out_dev:
	gaze_dev_close(dev);
	return ret;
}

static void
summary(struct mkfs_ctx *c, bool dry_run)
{
	struct mkfs_summary s = {
		.device		= c->o.device,
		.params		= &c->p,
		.layout		= &c->l,
		.dry_run	= dry_run,
		.verbose	= c->o.verbose,
	};

	if (!c->o.quiet)
		gaze_mkfs_summary_print(&s);
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
	parse_args(argc, argv, &c->o);
	if (c->o.quiet)
		gaze_log_level = GAZE_LOG_ERR;
	else if (c->o.verbose)
		gaze_log_level = GAZE_LOG_INFO;
	params_from_opts(&c->o, &c->p);

	ret = check_target(c);
	if (ret >= 0) {
		status = ret;
		goto out_free;
	}

	/* layout on the device as it is (or its -s stand-in), read-only */
	if (c->resize) {
		if (standin_create(c))
			goto out_free;
		ret = dev_open(c, c->tmp, true, &dev);
	} else {
		ret = dev_open(c, c->o.device, true, &dev);
	}
	if (ret)
		goto out_standin;
	ret = layout_for(c, dev);
	gaze_dev_close(dev);
	dev = NULL;
	if (ret)
		goto out_standin;
	standin_remove(c);

	if (c->o.dry_run) {
		summary(c, true);
		status = MKFS_EXIT_OK;
		goto out_free;
	}
	if (do_format(c))
		goto out_free;
	summary(c, false);
	status = MKFS_EXIT_OK;
	goto out_free;

out_standin:
	standin_remove(c);
out_free:
	free(c);
	return status;
}
