// SPDX-License-Identifier: GPL-2.0
/*
 * inspect.c - gazectl dump super / cp / zones / inode / dir / usage /
 * block: the on-disk structures of an unmounted image, field by field.
 *
 * Why: when fsck.gaze reports a problem, or a test fails on an image,
 * someone has to look at the raw structures: which checkpoint pack is
 * current, where a file's blocks are, which bucket holds a name.  The
 * dumps read through the shared core where the filesystem must be open
 * (zones, inode, dir, usage) and straight from the device where it may
 * be too damaged to open (super, cp, block), so they also work on the
 * images the corruption tests make.  Nothing is ever written: the device
 * is opened read-only and the core with GAZE_FS_RDONLY.
 *
 * Output: "key: value" lines indented by nesting, or with --json one
 * JSON document with the same keys (lib/util/json.c).  Long lists (block
 * maps, directory entries, zones) are one row per item in text form.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gaze_core.h"
#include "gaze_zdev.h"
#include "gaze_util.h"
#include "gazectl.h"

#define BS	GAZE_BLOCK_SIZE

/* ---------------------------------------------------------------- */
/* Output: one call per field, text or JSON                          */
/* ---------------------------------------------------------------- */

struct out {
	bool		json;
	struct gaze_json j;
	int		depth;
};

static void
o_indent(struct out *o)
{
	if (o->depth > 0)
		printf("%*s", o->depth * 2, "");
}

static void
o_obj(struct out *o, const char *key)
{
	if (o->json) {
		gaze_json_obj_begin(&o->j, key);
		return;
	}
	if (key) {
		o_indent(o);
		printf("%s:\n", key);
	}
	o->depth++;
}

static void
o_end(struct out *o)
{
	if (o->json)
		gaze_json_obj_end(&o->j);
	else
		o->depth--;
}

static void
o_arr(struct out *o, const char *key)
{
	if (o->json) {
		gaze_json_arr_begin(&o->j, key);
		return;
	}
	o_indent(o);
	printf("%s:\n", key);
	o->depth++;
}

static void
o_arr_end(struct out *o)
{
	if (o->json)
		gaze_json_arr_end(&o->j);
	else
		o->depth--;
}

static void
o_u64(struct out *o, const char *key, u64 v)
{
	if (o->json) {
		gaze_json_u64(&o->j, key, v);
		return;
	}
	o_indent(o);
	printf("%s: %llu\n", key, (unsigned long long)v);
}

static void
o_hex(struct out *o, const char *key, u64 v)	/* JSON: a number */
{
	if (o->json) {
		gaze_json_u64(&o->j, key, v);
		return;
	}
	o_indent(o);
	printf("%s: 0x%llx\n", key, (unsigned long long)v);
}

/*
 * Strings may come from the image (labels, names): the text form quotes
 * what a terminal must not see raw (lib/util/text.c), the JSON writer
 * escapes it.
 */
static void
o_strn(struct out *o, const char *key, const char *v, size_t n)
{
	if (o->json) {
		gaze_json_strn(&o->j, key, v, n);
		return;
	}
	o_indent(o);
	printf("%s: ", key);
	gaze_quote_fput(stdout, v, n);
	putchar('\n');
}

static void
o_str(struct out *o, const char *key, const char *v)
{
	o_strn(o, key, v, strlen(v));
}

static void
o_bool(struct out *o, const char *key, bool v)
{
	if (o->json) {
		gaze_json_bool(&o->j, key, v);
		return;
	}
	o_indent(o);
	printf("%s: %s\n", key, v ? "yes" : "no");
}

/* a verifier's verdict: "ok" or the reason */
static void
o_verdict(struct out *o, const char *key, int err, const char *why)
{
	char buf[160];

	if (!err) {
		o_str(o, key, "ok");
		return;
	}
	snprintf(buf, sizeof(buf), "%s: %s",
		 err == -EFSBADCRC ? "bad crc" : "corrupt",
		 why ? why : "invalid");
	o_str(o, key, buf);
}

/* text only: one row of a list */
static void __attribute__((format(printf, 2, 3)))
o_row(struct out *o, const char *fmt, ...)
{
	va_list ap;

	o_indent(o);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static int
o_finish(struct out *o)
{
	if (o->json && gaze_json_finish(&o->j))
		return GAZE_EXIT_FAIL;
	return fflush(stdout) ? GAZE_EXIT_FAIL : GAZE_EXIT_OK;
}

/* ---------------------------------------------------------------- */
/* Opening                                                           */
/* ---------------------------------------------------------------- */

struct img {
	const char	*name;
	struct gaze_dev	*dev;
	struct gaze_fs	*fs;		/* NULL for the raw dumps */
	struct gaze_super sb;		/* primary copy as read */
};

static const char *
in_strerror(int err)
{
	if (err == -EFSBADCRC)
		return "bad checksum in metadata (run fsck.gaze)";
	if (err == -EFSCORRUPTED)
		return "filesystem is corrupted (run fsck.gaze)";
	return strerror(-err);
}

/* the device read-only, the primary superblock read; fs too if want_fs */
static int
img_open(struct img *im, const char *name, bool want_fs)
{
	struct gaze_dev_open_opts op = {
		.rdonly = true,
		.lock = true,	/* not while mkfs or a repair writes it */
	};
	int fd, ret;
	ssize_t n;

	memset(im, 0, sizeof(*im));
	im->name = name;
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "gazectl: %s: %s\n", name, strerror(errno));
		return -errno;
	}
	n = gaze_pread_full(fd, &im->sb, BS, 0);
	close(fd);
	if (n != BS || !gaze_probe_gaze_block(&im->sb)) {
		fprintf(stderr, "gazectl: %s: not a GAZE filesystem (bad magic)\n",
			name);
		return -EINVAL;
	}
	/* images: the zone size mkfs chose is only in the superblock */
	op.zone_blocks = gaze_probe_image_zone_blocks(name, NULL, NULL);
	ret = gaze_dev_open(name, &op, &im->dev);
	if (ret) {
		fprintf(stderr, "gazectl: %s: %s\n", name,
			ret == -EWOULDBLOCK ?
			"in use: mkfs.gaze or fsck.gaze -p/-y is writing it" :
			strerror(-ret));
		return ret;
	}
	if (!want_fs)
		return 0;
	ret = gaze_fs_open(im->dev, GAZE_FS_RDONLY, &im->fs);
	if (ret) {
		fprintf(stderr, "gazectl: %s: cannot open the filesystem: %s\n",
			name, in_strerror(ret));
		gaze_dev_close(im->dev);
		im->dev = NULL;
	}
	return ret;
}

static void
img_close(struct img *im)
{
	if (im->fs)
		gaze_fs_close(im->fs);
	gaze_dev_close(im->dev);
	im->fs = NULL;
	im->dev = NULL;
}

static int
img_read(struct img *im, u64 addr, void *buf)
{
	if (addr >= im->dev->nr_blocks)
		return -EINVAL;
	return im->dev->ops->read(im->dev, addr, 1, buf);
}

/* INO (a number) or PATH (symlinks not followed) */
static int
img_resolve(struct img *im, const char *arg, u32 *ino)
{
	u32 stack[256], depth = 0, cur = GAZE_ROOT_INO, next;
	const char *p = arg, *e;
	char *end;
	unsigned long v;
	u8 dtype = 4;
	int ret;

	if (arg[0] >= '0' && arg[0] <= '9') {
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (*end || errno || !v ||
		    v >= le32_to_cpu(im->fs->sb.max_nid))
			return -EINVAL;
		*ino = (u32)v;
		return 0;
	}
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchrnul(p, '/');
		if (e - p == 1 && p[0] == '.') {
			p = e;
			continue;
		}
		if (dtype != 4)
			return -ENOTDIR;
		if (e - p == 2 && p[0] == '.' && p[1] == '.') {
			if (depth)
				cur = stack[--depth];
			p = e;
			continue;
		}
		if (e - p > GAZE_NAME_MAX)
			return -ENAMETOOLONG;
		ret = gaze_ns_lookup(im->fs, cur, p, e - p, &next, &dtype);
		if (ret)
			return ret;
		if (depth >= ARRAY_SIZE(stack))
			return -ELOOP;
		stack[depth++] = cur;
		cur = next;
		p = e;
	}
	*ino = cur;
	return 0;
}

/* the raw inode block of ino and its address */
static int
img_inode(struct img *im, u32 ino, struct gaze_inode *in, u64 *addr)
{
	int ret;

	mutex_lock(&im->fs->lock);
	ret = gaze_imap_get(im->fs, ino, addr);
	mutex_unlock(&im->fs->lock);
	if (ret)
		return ret;
	if (!*addr)
		return -ENOENT;
	return img_read(im, *addr, in);
}

/* ---------------------------------------------------------------- */
/* Option parsing shared by every dump                               */
/* ---------------------------------------------------------------- */

/* 0: go on; otherwise the exit status */
static int
dump_opts(const struct gaze_cmd *cmd, int argc, char **argv, struct out *o)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	memset(o, 0, sizeof(*o));
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			o->json = true;
			break;
		case 'h':
			gaze_cmd_help(cmd, stdout);
			return -GAZE_EXIT_OK - 1;
		default:
			return gaze_cmd_usage_error(cmd, "bad option");
		}
	}
	opt = gaze_cmd_nargs(cmd, argc, optind);
	if (opt)
		return opt;
	if (o->json)
		gaze_json_init(&o->j, stdout, true);
	else
		o->depth = -1;		/* the outer object is not indented */
	return 0;
}

#define DUMP_OPTS(cmd, argc, argv, o) do {				\
	int __r = dump_opts(cmd, argc, argv, o);			\
	if (__r)							\
		return __r < 0 ? GAZE_EXIT_OK : __r;			\
} while (0)

/* ---------------------------------------------------------------- */
/* Names                                                             */
/* ---------------------------------------------------------------- */

static const char *const log_names[] = {
#define X(n, name) [n] = #name,
	GAZE_LOGS(X)
#undef X
};

static const char *
log_name(u32 t)
{
	return t < ARRAY_SIZE(log_names) ? log_names[t] : "unknown";
}

static const char *
zs_name(u32 s)
{
	static const char *const n[] = { "free", "open", "full", "prefree" };

	return s < ARRAY_SIZE(n) ? n[s] : "unknown";
}

static const char *
zc_name(u32 c)
{
	static const char *const n[] = { "?", "empty", "implicit-open",
		"explicit-open", "closed", "full", "read-only", "offline",
		"not-wp" };

	return c < ARRAY_SIZE(n) ? n[c] : "unknown";
}

static const char *
type_name(u32 mode)
{
	switch (mode & GAZE_S_IFMT) {
	case GAZE_S_IFREG:	return "file";
	case GAZE_S_IFDIR:	return "dir";
	case GAZE_S_IFLNK:	return "symlink";
	case GAZE_S_IFCHR:	return "chr";
	case GAZE_S_IFBLK:	return "blk";
	case GAZE_S_IFIFO:	return "fifo";
	case GAZE_S_IFSOCK:	return "sock";
	}
	return "unknown";
}

static const char *
dt_name(u8 t)
{
	switch (t) {
	case 1: return "fifo";
	case 2: return "chr";
	case 4: return "dir";
	case 6: return "blk";
	case 8: return "file";
	case 10: return "symlink";
	case 12: return "sock";
	}
	return "unknown";
}

static const char *
magic_name(u32 m)
{
	switch (m) {
	case GAZE_MAGIC_SB:		return "superblock";
	case GAZE_MAGIC_CP_HEAD:	return "checkpoint head";
	case GAZE_MAGIC_CP_PAYLOAD:	return "checkpoint payload";
	case GAZE_MAGIC_CP_TRAIL:	return "checkpoint trailer";
	case GAZE_MAGIC_TINDEX:		return "table index";
	case GAZE_MAGIC_IMAP:		return "imap table";
	case GAZE_MAGIC_ZINFO:		return "zinfo table";
	case GAZE_MAGIC_USAGE:		return "usage table";
	case GAZE_MAGIC_SUMMARY:	return "summary table";
	case GAZE_MAGIC_INODE:		return "inode";
	case GAZE_MAGIC_DNODE:		return "direct node";
	case GAZE_MAGIC_INODE_IND:	return "indirect node";
	case GAZE_MAGIC_XATTR:		return "xattr node";
	case GAZE_MAGIC_DIR_BUCKET:	return "directory bucket";
	case GAZE_MAGIC_DIR_INDEX:	return "directory index";
	}
	return NULL;
}

static const char *const table_names[GAZE_NR_TABLES] = {
	"imap", "zinfo", "usage", "summary",
};

/* GAZE_IF_* by bit, for dump inode, stat and ls */
const char *const gaze_ctl_inode_flags[GAZE_CTL_NR_INODE_FLAGS] = {
	"inline_data", "inline_dentry", "compress", "append", "immutable",
	"noatime", "nodump", "sync", "orphan", "dir_hashed",
	"compress_local",
};
_Static_assert(GAZE_IF_ALL == (1u << GAZE_CTL_NR_INODE_FLAGS) - 1,
	       "a name for every inode flag");

static const char *const cp_flag_names[] = {
	"umount", "fsck_needed", "orphans", "mkfs",
};

static void
o_flags(struct out *o, const char *key, u32 v, const char *const *names,
	u32 n)
{
	char buf[256] = "";
	size_t len = 0;
	u32 i;

	if (o->json) {
		gaze_json_arr_begin(&o->j, key);
		for (i = 0; i < 32; i++)
			if (v & (1u << i))
				gaze_json_str(&o->j, NULL,
					      i < n ? names[i] : "unknown");
		gaze_json_arr_end(&o->j);
		return;
	}
	for (i = 0; i < 32; i++)
		if (v & (1u << i))
			len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
					len ? "," : "",
					i < n ? names[i] : "unknown");
	o_indent(o);
	printf("%s: 0x%x%s%s%s\n", key, v, len ? " (" : "", buf,
	       len ? ")" : "");
}

/* ---------------------------------------------------------------- */
/* dump super                                                        */
/* ---------------------------------------------------------------- */

static void
dump_hdr(struct out *o, const struct gaze_mhdr *h)
{
	char u[GAZE_UUID_STR_LEN];
	const char *mn = magic_name(le32_to_cpu(h->magic));

	o_obj(o, "header");
	o_hex(o, "magic", le32_to_cpu(h->magic));
	o_str(o, "type", mn ? mn : "unknown");
	o_hex(o, "crc", le32_to_cpu(h->crc));
	o_hex(o, "crc_computed", gaze_fmt_block_crc(h));
	o_u64(o, "blkaddr", le64_to_cpu(h->blkaddr));
	gaze_uuid_unparse(h->uuid, u);
	o_str(o, "uuid", u);
	o_u64(o, "seq", le64_to_cpu(h->seq));
	o_u64(o, "nid", le32_to_cpu(h->nid));
	o_u64(o, "ino", le32_to_cpu(h->ino));
	o_u64(o, "index", le32_to_cpu(h->index));
	o_hex(o, "flags", le16_to_cpu(h->flags));
	o_u64(o, "hdr_version", le16_to_cpu(h->hdr_version));
	o_u64(o, "next", le64_to_cpu(h->next));
	o_end(o);
}

static void
dump_super_fields(struct out *o, const struct gaze_super *s)
{
	char buf[256];
	u32 i;

	gaze_fmt_feature_string(le64_to_cpu(s->feature_compat),
				le64_to_cpu(s->feature_ro_compat),
				le64_to_cpu(s->feature_incompat), buf,
				sizeof(buf));
	o_hex(o, "feature_compat", le64_to_cpu(s->feature_compat));
	o_hex(o, "feature_ro_compat", le64_to_cpu(s->feature_ro_compat));
	o_hex(o, "feature_incompat", le64_to_cpu(s->feature_incompat));
	o_str(o, "features", buf);
	o_u64(o, "block_size", le32_to_cpu(s->block_size));
	o_u64(o, "zone_model", le32_to_cpu(s->zone_model));
	o_str(o, "zone_model_name",
	      gaze_zdev_model_name(le32_to_cpu(s->zone_model)));
	o_u64(o, "total_blocks", le64_to_cpu(s->total_blocks));
	o_u64(o, "zone_blocks", le32_to_cpu(s->zone_blocks));
	o_u64(o, "zone_cap", le32_to_cpu(s->zone_cap));
	o_u64(o, "nr_zones", le32_to_cpu(s->nr_zones));
	o_u64(o, "nr_conv_zones", le32_to_cpu(s->nr_conv_zones));
	o_u64(o, "max_open", le32_to_cpu(s->max_open));
	o_u64(o, "max_active", le32_to_cpu(s->max_active));
	o_u64(o, "cp_zone_start", le32_to_cpu(s->cp_zone_start));
	o_u64(o, "cp_zone_count", le32_to_cpu(s->cp_zone_count));
	o_u64(o, "meta_zone_start", le32_to_cpu(s->meta_zone_start));
	o_u64(o, "meta_zone_count", le32_to_cpu(s->meta_zone_count));
	o_u64(o, "main_zone_start", le32_to_cpu(s->main_zone_start));
	o_u64(o, "main_zone_count", le32_to_cpu(s->main_zone_count));
	o_u64(o, "ovp_zones", le32_to_cpu(s->ovp_zones));
	o_u64(o, "reserved_zones", le32_to_cpu(s->reserved_zones));
	o_u64(o, "ovp_percent", le32_to_cpu(s->ovp_percent));
	o_u64(o, "nr_logs", le32_to_cpu(s->nr_logs));
	o_u64(o, "max_nid", le32_to_cpu(s->max_nid));
	o_u64(o, "root_ino", le32_to_cpu(s->root_ino));
	o_u64(o, "user_blocks", le64_to_cpu(s->user_blocks));
	o_u64(o, "usage_blocks_per_zone", le32_to_cpu(s->usage_blocks_per_zone));
	o_u64(o, "summary_blocks_per_zone",
	      le32_to_cpu(s->summary_blocks_per_zone));
	o_obj(o, "table_blocks");
	for (i = 0; i < GAZE_NR_TABLES; i++)
		o_u64(o, table_names[i], le32_to_cpu(s->table_blocks[i]));
	o_end(o);
	o_obj(o, "table_index_blocks");
	for (i = 0; i < GAZE_NR_TABLES; i++)
		o_u64(o, table_names[i], le32_to_cpu(s->table_index_blocks[i]));
	o_end(o);
	o_u64(o, "gc_pool_blocks", le64_to_cpu(s->gc_pool_blocks));
	o_u64(o, "dirty_limit_pct", le32_to_cpu(s->dirty_limit_pct));
	o_u64(o, "gc_queue_depth", le32_to_cpu(s->gc_queue_depth));
	o_u64(o, "victim_policy", le32_to_cpu(s->victim_policy));
	o_u64(o, "bg_gc_low_pct", le32_to_cpu(s->bg_gc_low_pct));
	o_u64(o, "bg_gc_high_pct", le32_to_cpu(s->bg_gc_high_pct));
	o_str(o, "compress_algo", gaze_fmt_compress_name(s->compress_algo) ?
	      gaze_fmt_compress_name(s->compress_algo) : "unknown");
	o_u64(o, "compress_level", s->compress_level);
	o_u64(o, "compress_log_cluster", s->compress_log_cluster);
	snprintf(buf, sizeof(buf), "%08x%08x%08x%08x",
		 le32_to_cpu(s->dir_hash_seed[0]),
		 le32_to_cpu(s->dir_hash_seed[1]),
		 le32_to_cpu(s->dir_hash_seed[2]),
		 le32_to_cpu(s->dir_hash_seed[3]));
	o_str(o, "dir_hash_seed", buf);
	o_u64(o, "mkfs_time", le64_to_cpu(s->mkfs_time));
	o_strn(o, "label", s->label, strnlen(s->label, sizeof(s->label)));
	o_strn(o, "mkfs_version", s->mkfs_version,
	       strnlen(s->mkfs_version, sizeof(s->mkfs_version)));
	/* the raw field: zeros unless the feature meta_uuid is set */
	gaze_uuid_unparse(s->meta_uuid, buf);
	o_str(o, "meta_uuid", buf);
}

int
gaze_cmd_dump_super(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct gaze_super *s;
	struct img im;
	struct out o;
	const char *why;
	u64 addr[2];
	u32 c;
	int ret;

	DUMP_OPTS(cmd, argc, argv, &o);
	if (img_open(&im, argv[optind], false))
		return GAZE_EXIT_FAIL;
	s = malloc(BS);
	if (!s) {
		img_close(&im);
		return GAZE_EXIT_FAIL;
	}
	addr[0] = 0;
	addr[1] = (u64)le32_to_cpu(im.sb.zone_blocks) *
		  (le32_to_cpu(im.sb.cp_zone_start) + 1);
	o_obj(&o, NULL);
	o_str(&o, "image", im.name);
	for (c = 0; c < 2; c++) {
		o_obj(&o, c ? "secondary" : "primary");
		o_u64(&o, "block", addr[c]);
		ret = img_read(&im, addr[c], s);
		if (ret) {
			o_str(&o, "verify", strerror(-ret));
			o_end(&o);
			continue;
		}
		why = NULL;
		ret = gaze_fmt_super_verify(s, addr[c], &why);
		o_verdict(&o, "verify", ret, why);
		if (c) {
			/* the body, and the uuid users see */
			o_bool(&o, "same_as_primary",
			       !memcmp((u8 *)s + sizeof(s->hdr),
				       (u8 *)&im.sb + sizeof(s->hdr),
				       BS - sizeof(s->hdr)) &&
			       !memcmp(s->hdr.uuid, im.sb.hdr.uuid,
				       sizeof(s->hdr.uuid)));
		}
		dump_hdr(&o, &s->hdr);
		dump_super_fields(&o, s);
		o_end(&o);
	}
	o_end(&o);
	free(s);
	img_close(&im);
	return o_finish(&o);
}

/* ---------------------------------------------------------------- */
/* dump cp                                                           */
/* ---------------------------------------------------------------- */

static void
dump_cp_details(struct out *o, const struct gaze_cp_head *cp,
		const u8 *payload, u32 pblocks)
{
	u32 i, n, ofs, nslots = pblocks * GAZE_ADDRS_PER_BLOCK;
	const __le64 *slot;

	o_flags(o, "flags", le32_to_cpu(cp->flags), cp_flag_names,
		ARRAY_SIZE(cp_flag_names));
	o_u64(o, "elapsed", le64_to_cpu(cp->elapsed));
	o_u64(o, "valid_blocks", le64_to_cpu(cp->valid_blocks));
	o_u64(o, "valid_nodes", le64_to_cpu(cp->valid_nodes));
	o_u64(o, "valid_inodes", le32_to_cpu(cp->valid_inodes));
	o_u64(o, "next_nid", le32_to_cpu(cp->next_nid));
	o_u64(o, "free_zones", le32_to_cpu(cp->free_zones));
	o_u64(o, "mount_count", le32_to_cpu(cp->mount_count));
	o_u64(o, "meta_head_zone", le32_to_cpu(cp->meta_head_zone));
	o_u64(o, "meta_head_offset", le32_to_cpu(cp->meta_head_offset));
	o_u64(o, "meta_tail_zone", le32_to_cpu(cp->meta_tail_zone));
	o_u64(o, "compr_logical_blocks", le64_to_cpu(cp->compr_logical_blocks));
	o_u64(o, "compr_physical_blocks",
	      le64_to_cpu(cp->compr_physical_blocks));
	o_u64(o, "gc_zones_reclaimed", le64_to_cpu(cp->gc_zones_reclaimed));
	o_u64(o, "gc_blocks_moved", le64_to_cpu(cp->gc_blocks_moved));
	n = min_t(u32, le32_to_cpu(cp->nr_logs), GAZE_MAX_LOGS);
	o_u64(o, "nr_logs", le32_to_cpu(cp->nr_logs));
	o_arr(o, "logs");
	for (i = 0; i < n; i++) {
		const struct gaze_log_head *l = &cp->logs[i];

		if (o->json) {
			o_obj(o, NULL);
			o_u64(o, "log", i);
			if (l->zone == cpu_to_le32(~0u))
				gaze_json_null(&o->j, "zone");
			else
				o_u64(o, "zone", le32_to_cpu(l->zone));
			o_u64(o, "offset", le32_to_cpu(l->offset));
			o_str(o, "type", log_name(le32_to_cpu(l->type)));
			o_end(o);
		} else if (l->zone == cpu_to_le32(~0u)) {
			o_row(o, "log %u: %-10s no zone", i,
			      log_name(le32_to_cpu(l->type)));
		} else {
			o_row(o, "log %u: %-10s zone %u offset %u", i,
			      log_name(le32_to_cpu(l->type)),
			      le32_to_cpu(l->zone), le32_to_cpu(l->offset));
		}
	}
	o_arr_end(o);
	o_arr(o, "tables");
	for (i = 0; i < GAZE_NR_TABLES; i++) {
		u32 k, ni = le32_to_cpu(cp->tables[i].nr_index);

		ofs = le32_to_cpu(cp->tables[i].payload_ofs);
		o_obj(o, o->json ? NULL : table_names[i]);
		if (o->json)
			o_str(o, "table", table_names[i]);
		o_u64(o, "nr_index", ni);
		o_u64(o, "payload_ofs", ofs);
		if (o->json)
			gaze_json_arr_begin(&o->j, "index_addrs");
		else
			o_indent(o), printf("index_addrs:");
		for (k = 0; k < ni && ofs + k < nslots && k < 64; k++) {
			slot = (const __le64 *)(payload +
				(size_t)((ofs + k) / GAZE_ADDRS_PER_BLOCK) * BS +
				sizeof(struct gaze_mhdr));
			if (o->json)
				gaze_json_u64(&o->j, NULL, le64_to_cpu(
					slot[(ofs + k) % GAZE_ADDRS_PER_BLOCK]));
			else
				printf(" %llu", (unsigned long long)le64_to_cpu(
					slot[(ofs + k) % GAZE_ADDRS_PER_BLOCK]));
		}
		if (o->json)
			gaze_json_arr_end(&o->j);
		else
			printf("%s\n", k < ni ? " ..." : "");
		o_end(o);
	}
	o_arr_end(o);
	n = le32_to_cpu(cp->nr_orphans);
	ofs = le32_to_cpu(cp->orphan_ofs);
	o_u64(o, "nr_orphans", n);
	o_u64(o, "orphan_ofs", ofs);
	if (o->json)
		gaze_json_arr_begin(&o->j, "orphans");
	else
		o_indent(o), printf("orphans:");
	for (i = 0; i < n && ofs + i < nslots && i < 4096; i++) {
		u32 s = ofs + i;
		u64 v;

		slot = (const __le64 *)(payload +
			(size_t)(s / GAZE_ADDRS_PER_BLOCK) * BS +
			sizeof(struct gaze_mhdr));
		v = le64_to_cpu(slot[s % GAZE_ADDRS_PER_BLOCK]);
		if (o->json)
			gaze_json_u64(&o->j, NULL, v);
		else
			printf(" %llu", (unsigned long long)v);
	}
	if (o->json)
		gaze_json_arr_end(&o->j);
	else
		printf("%s\n", i < n ? " (list runs past the payload)" : "");
}

/* gaze_cp_walk_zone's callback: the newest valid seq, or one row per
 * pack and damaged stretch */
struct cp_dump {
	struct img	*im;
	struct out	*o;
	u64		best;
	bool		print;
};

static int
cp_dump_seen(void *arg, const struct gaze_cp_seen *s)
{
	struct cp_dump *d = arg;
	struct out *o = d->o;
	u64 addr = (u64)s->zone * le32_to_cpu(d->im->sb.zone_blocks) + s->off;

	if (!d->print) {
		if (!s->err && s->seq > d->best)
			d->best = s->seq;
		return 0;
	}
	o_obj(o, o->json ? NULL : "pack");
	o_u64(o, "zone", s->zone);
	o_u64(o, "offset", s->off);
	o_u64(o, "block", addr);
	o_u64(o, "seq", s->seq);
	o_u64(o, "pack_blocks", s->nblocks);
	o_verdict(o, "verify", s->err, s->why);
	o_bool(o, "current", !s->err && s->seq == d->best);
	if (!s->err)
		dump_cp_details(o, s->head, (const u8 *)s->head + BS,
				s->nblocks - 2);
	o_end(o);
	return 0;
}

int
gaze_cmd_dump_cp(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct gaze_cp_zone_end end;
	struct cp_dump d = { 0 };
	struct img im;
	struct out o;
	u32 c, start, count;
	u8 *buf;
	int ret = 0;

	DUMP_OPTS(cmd, argc, argv, &o);
	if (img_open(&im, argv[optind], false))
		return GAZE_EXIT_FAIL;
	buf = malloc((size_t)gaze_cp_max_pack(&im.sb) * BS);
	if (!buf) {
		img_close(&im);
		return GAZE_EXIT_FAIL;
	}
	d.im = &im;
	d.o = &o;
	start = le32_to_cpu(im.sb.cp_zone_start);
	count = min_t(u32, le32_to_cpu(im.sb.cp_zone_count), 2);
	for (c = 0; c < count && !ret; c++)
		ret = gaze_cp_walk_zone(im.dev, &im.sb, start + c, buf,
					cp_dump_seen, &d, &end);
	d.print = true;
	o_obj(&o, NULL);
	o_str(&o, "image", im.name);
	o_u64(&o, "current_seq", d.best);
	o_arr(&o, "zones");
	for (c = 0; c < count && !ret; c++) {
		o_obj(&o, o.json ? NULL : "zone");
		o_u64(&o, "zone", start + c);
		o_arr(&o, "packs");
		ret = gaze_cp_walk_zone(im.dev, &im.sb, start + c, buf,
					cp_dump_seen, &d, &end);
		o_arr_end(&o);
		o_end(&o);
	}
	o_arr_end(&o);
	o_end(&o);
	free(buf);
	img_close(&im);
	if (ret)
		fprintf(stderr, "gazectl: %s: reading the checkpoint zones: %s\n",
			argv[optind], strerror(-ret));
	else if (!d.best)
		fprintf(stderr, "gazectl: %s: no valid checkpoint pack\n",
			argv[optind]);
	if (o_finish(&o) || ret || !d.best)
		return GAZE_EXIT_FAIL;
	return GAZE_EXIT_OK;
}

/* ---------------------------------------------------------------- */
/* dump zones, dump usage                                            */
/* ---------------------------------------------------------------- */

struct zrow {
	const char	*class;		/* checkpoint, meta, main */
	const char	*state;		/* fs state */
	const char	*log;		/* main: temperature, else NULL */
	u32	valid;			/* main: valid blocks */
	u32	fs_wp;			/* blocks written, as the fs sees it */
	bool	fs_wp_known;
	u64	mtime;
	struct gaze_zone dz;		/* device report */
	bool	dz_ok;
};

/* what the filesystem knows of zone z (fs->lock not held) */
static void
zone_row(struct img *im, u32 z, struct zrow *r)
{
	struct gaze_fs *fs = im->fs;
	const struct gaze_super *sb = &fs->sb;
	u32 ms = le32_to_cpu(sb->main_zone_start);
	u32 mets = le32_to_cpu(sb->meta_zone_start);
	u32 metc = le32_to_cpu(sb->meta_zone_count);
	u32 cap = le32_to_cpu(sb->zone_cap);
	u32 valid = 0, state = 0, i, n;

	memset(r, 0, sizeof(*r));
	mutex_lock(&fs->lock);
	r->dz_ok = !gaze_zone_report(fs, z, &r->dz);
	if (z < mets) {
		r->class = "checkpoint";
		r->state = z == fs->cp_zone ? "active" : "inactive";
		r->fs_wp = z == fs->cp_zone ? min(fs->cp_offset, cap) : 0;
		r->fs_wp_known = z == fs->cp_zone;
	} else if (z < mets + metc) {
		u32 head = le32_to_cpu(fs->cp.meta_head_zone);
		u32 tail = le32_to_cpu(fs->cp.meta_tail_zone);
		bool used = head >= tail ? (z >= tail && z <= head) :
					   (z >= tail || z <= head);

		r->class = "meta";
		r->state = z == head ? "head" : used ? "in use" : "free";
		if (z == head) {
			r->fs_wp = le32_to_cpu(fs->cp.meta_head_offset);
			r->fs_wp_known = true;
		}
	} else {
		struct gaze_mbuf *mb;

		r->class = "main";
		gaze_space_zone_stat(fs, z, &valid, &state);
		r->valid = valid;
		r->state = zs_name(state);
		if (!gaze_table_get(fs, GAZE_TABLE_ZINFO,
				    (z - ms) / GAZE_ZINFO_PER_BLOCK, &mb)) {
			const struct gaze_zinfo *zi =
				&((struct gaze_zinfo_block *)mb->data)->z[
					(z - ms) % GAZE_ZINFO_PER_BLOCK];

			r->log = log_name(zi->log);
			r->mtime = le64_to_cpu(zi->mtime);
			gaze_mbuf_put(fs, mb);
		}
		r->fs_wp_known = true;
		r->fs_wp = state == GAZE_ZS_FREE ? 0 : cap;
		n = min_t(u32, le32_to_cpu(fs->cp.nr_logs), GAZE_MAX_LOGS);
		for (i = 0; i < n; i++)
			if (le32_to_cpu(fs->cp.logs[i].zone) == z)
				r->fs_wp = le32_to_cpu(fs->cp.logs[i].offset);
		if (state == GAZE_ZS_FREE)
			r->log = NULL;
	}
	mutex_unlock(&fs->lock);
}

static int
open_fs_cmd(const struct gaze_cmd *cmd, int argc, char **argv, struct out *o,
	    struct img *im)
{
	int r = dump_opts(cmd, argc, argv, o);

	if (r)
		return r < 0 ? GAZE_EXIT_OK : r;
	if (img_open(im, argv[optind], true))
		return GAZE_EXIT_FAIL;
	return -1;
}

int
gaze_cmd_dump_zones(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct img im;
	struct out o;
	struct zrow r;
	u32 z, nz;
	int ret = open_fs_cmd(cmd, argc, argv, &o, &im);

	if (ret >= 0)
		return ret;
	nz = le32_to_cpu(im.fs->sb.nr_zones);
	o_obj(&o, NULL);
	o_str(&o, "image", im.name);
	o_u64(&o, "zone_blocks", le32_to_cpu(im.fs->sb.zone_blocks));
	o_u64(&o, "zone_cap", le32_to_cpu(im.fs->sb.zone_cap));
	o_arr(&o, "zones");
	if (!o.json)
		o_row(&o, "%-6s %-10s %-8s %-10s %6s %6s %-14s %s", "zone",
		      "class", "state", "log", "valid", "fs_wp", "device",
		      "dev_wp");
	for (z = 0; z < nz; z++) {
		u64 dwp = 0;
		bool dwp_ok;

		zone_row(&im, z, &r);
		dwp_ok = r.dz_ok && r.dz.type == GAZE_ZT_SEQ;
		if (dwp_ok)
			dwp = r.dz.wp - r.dz.start;
		if (o.json) {
			o_obj(&o, NULL);
			o_u64(&o, "zone", z);
			o_str(&o, "class", r.class);
			o_str(&o, "state", r.state);
			if (r.log)
				o_str(&o, "log", r.log);
			else
				gaze_json_null(&o.j, "log");
			if (!strcmp(r.class, "main")) {
				o_u64(&o, "valid", r.valid);
				o_u64(&o, "mtime", r.mtime);
			} else {
				gaze_json_null(&o.j, "valid");
			}
			if (r.fs_wp_known)
				o_u64(&o, "fs_wp", r.fs_wp);
			else
				gaze_json_null(&o.j, "fs_wp");
			o_str(&o, "device_cond",
			      r.dz_ok ? zc_name(r.dz.cond) : "unknown");
			o_str(&o, "device_type", !r.dz_ok ? "unknown" :
			      r.dz.type == GAZE_ZT_SEQ ? "seq" : "conv");
			if (dwp_ok)
				o_u64(&o, "device_wp", dwp);
			else
				gaze_json_null(&o.j, "device_wp");
			o_end(&o);
		} else {
			char v[16] = "-", w[16] = "-", d[16] = "-";

			if (!strcmp(r.class, "main"))
				snprintf(v, sizeof(v), "%u", r.valid);
			if (r.fs_wp_known)
				snprintf(w, sizeof(w), "%u", r.fs_wp);
			if (dwp_ok)
				snprintf(d, sizeof(d), "%llu",
					 (unsigned long long)dwp);
			o_row(&o, "%-6u %-10s %-8s %-10s %6s %6s %-14s %s", z,
			      r.class, r.state, r.log ? r.log : "-", v, w,
			      r.dz_ok ? zc_name(r.dz.cond) : "unknown", d);
		}
	}
	o_arr_end(&o);
	o_end(&o);
	img_close(&im);
	return o_finish(&o);
}

struct uclass {
	u32	zones;
	u64	valid, invalid, free;
};

static void
o_uclass(struct out *o, const char *key, const struct uclass *u)
{
	o_obj(o, key);
	o_u64(o, "zones", u->zones);
	o_u64(o, "valid", u->valid);
	o_u64(o, "invalid", u->invalid);
	o_u64(o, "free", u->free);
	o_end(o);
}

int
gaze_cmd_dump_usage(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct uclass st[4] = { { 0 } }, lg[GAZE_NR_LOG_TYPES] = { { 0 } };
	struct uclass tot = { 0 };
	struct img im;
	struct out o;
	struct zrow r;
	u32 z, ms, me, cap, st_i, i;
	int ret = open_fs_cmd(cmd, argc, argv, &o, &im);

	if (ret >= 0)
		return ret;
	ms = le32_to_cpu(im.fs->sb.main_zone_start);
	me = ms + le32_to_cpu(im.fs->sb.main_zone_count);
	cap = le32_to_cpu(im.fs->sb.zone_cap);
	for (z = ms; z < me; z++) {
		struct uclass *u[3];
		u32 written, valid = 0, state = 0;

		zone_row(&im, z, &r);
		mutex_lock(&im.fs->lock);
		gaze_space_zone_stat(im.fs, z, &valid, &state);
		mutex_unlock(&im.fs->lock);
		written = min(r.fs_wp, cap);
		st_i = state < 4 ? state : 0;
		u[0] = &st[st_i];
		u[1] = &tot;
		u[2] = NULL;
		for (i = 0; r.log && i < GAZE_NR_LOG_TYPES; i++)
			if (!strcmp(r.log, log_name(i)))
				u[2] = &lg[i];
		for (i = 0; i < 3; i++) {
			if (!u[i])
				continue;
			u[i]->zones++;
			u[i]->valid += valid;
			u[i]->invalid += written > valid ? written - valid : 0;
			u[i]->free += cap - written;
		}
	}
	o_obj(&o, NULL);
	o_str(&o, "image", im.name);
	o_u64(&o, "block_size", BS);
	o_obj(&o, "main_by_state");
	for (i = 0; i < 4; i++)
		o_uclass(&o, zs_name(i), &st[i]);
	o_end(&o);
	o_obj(&o, "main_by_log");
	for (i = 0; i < GAZE_NR_LOG_TYPES; i++)
		if (lg[i].zones)
			o_uclass(&o, log_name(i), &lg[i]);
	o_end(&o);
	o_uclass(&o, "main_total", &tot);
	o_obj(&o, "checkpoint");
	o_u64(&o, "seq", im.fs->cp_seq);
	o_u64(&o, "valid_blocks", le64_to_cpu(im.fs->cp.valid_blocks));
	o_u64(&o, "valid_nodes", le64_to_cpu(im.fs->cp.valid_nodes));
	o_u64(&o, "valid_inodes", le32_to_cpu(im.fs->cp.valid_inodes));
	o_u64(&o, "free_zones", le32_to_cpu(im.fs->cp.free_zones));
	o_end(&o);
	o_obj(&o, "capacity");
	o_u64(&o, "user_blocks", le64_to_cpu(im.fs->sb.user_blocks));
	mutex_lock(&im.fs->lock);
	o_u64(&o, "free_user_blocks", gaze_space_free_blocks(im.fs));
	o_u64(&o, "free_zones", gaze_space_free_zones(im.fs));
	mutex_unlock(&im.fs->lock);
	o_u64(&o, "cp_zones", le32_to_cpu(im.fs->sb.cp_zone_count));
	o_u64(&o, "meta_zones", le32_to_cpu(im.fs->sb.meta_zone_count));
	o_u64(&o, "main_zones", le32_to_cpu(im.fs->sb.main_zone_count));
	o_u64(&o, "ovp_zones", le32_to_cpu(im.fs->sb.ovp_zones));
	o_u64(&o, "reserved_zones", le32_to_cpu(im.fs->sb.reserved_zones));
	o_end(&o);
	o_end(&o);
	img_close(&im);
	return o_finish(&o);
}

/* ---------------------------------------------------------------- */
/* dump inode                                                        */
/* ---------------------------------------------------------------- */

struct bm {			/* block map run being built */
	struct out	*o;
	u64	fblk, addr, n;	/* current run */
	u64	total;		/* mapped slots */
};

static void
bm_flush(struct bm *b)
{
	struct out *o = b->o;
	const char *sp = NULL;

	if (!b->n)
		return;
	if (b->addr == GAZE_ADDR_PREALLOC)
		sp = "prealloc";
	else if (GAZE_ADDR_IS_CLUSTER(b->addr))
		sp = "compressed";
	if (o->json) {
		o_obj(o, NULL);
		o_u64(o, "fblk", b->fblk);
		if (sp)
			o_str(o, "addr", sp);
		else
			o_u64(o, "addr", b->addr);
		o_u64(o, "count", b->n);
		o_end(o);
	} else if (sp) {
		o_row(o, "%llu..%llu -> %s", (unsigned long long)b->fblk,
		      (unsigned long long)(b->fblk + b->n - 1), sp);
	} else {
		o_row(o, "%llu..%llu -> %llu..%llu",
		      (unsigned long long)b->fblk,
		      (unsigned long long)(b->fblk + b->n - 1),
		      (unsigned long long)b->addr,
		      (unsigned long long)(b->addr + b->n - 1));
	}
	b->n = 0;
}

static void
bm_add(struct bm *b, u64 fblk, u64 addr)
{
	if (!addr)
		return;
	b->total++;
	if (b->n && fblk == b->fblk + b->n &&
	    ((GAZE_ADDR_IS_REAL(addr) && addr == b->addr + b->n) ||
	     (!GAZE_ADDR_IS_REAL(addr) && addr == b->addr)))
		goto grow;
	bm_flush(b);
	b->fblk = fblk;
	b->addr = addr;
grow:
	b->n++;
}

struct ntree {			/* node tree rows, collected then printed */
	struct ntree_row {
		const char *kind;
		u32	nid, depth;
		u64	addr, first;
		const char *verdict;
	} *r;
	u32	n, cap;
};

static void
nt_add(struct ntree *t, const char *kind, u32 nid, u32 depth, u64 addr,
       u64 first, const char *verdict)
{
	if (t->n == t->cap) {
		void *p = realloc(t->r, (t->cap ? t->cap * 2 : 16) *
				  sizeof(*t->r));

		if (!p)
			return;
		t->r = p;
		t->cap = t->cap ? t->cap * 2 : 16;
	}
	t->r[t->n++] = (struct ntree_row){ kind, nid, depth, addr, first,
					   verdict };
}

/* node nid of the tree: dnode (height 1), indirect (2), dindirect (3) */
static void
walk_node(struct img *im, struct bm *b, struct ntree *t, u32 nid, u32 height,
	  u64 first, u32 depth, u8 *buf)
{
	const char *why = NULL, *kind;
	u64 addr = 0, span;
	int ret;
	u32 i;

	if (!nid)
		return;
	kind = height == 1 ? "dnode" : height == 2 ? "indirect" :
	       "double-indirect";
	mutex_lock(&im->fs->lock);
	ret = gaze_imap_get(im->fs, nid, &addr);
	mutex_unlock(&im->fs->lock);
	if (ret || !addr || img_read(im, addr, buf)) {
		nt_add(t, kind, nid, depth, addr, first, "no block");
		return;
	}
	if (height == 1)
		ret = gaze_fmt_dnode_verify((void *)buf, &im->fs->sb, addr, &why);
	else
		ret = gaze_fmt_ind_verify((void *)buf, &im->fs->sb, addr, &why);
	nt_add(t, kind, nid, depth, addr, first, ret ? (why ? why : "bad") :
	       "ok");
	if (ret)
		return;
	if (height == 1) {
		const struct gaze_dnode *dn = (void *)buf;

		for (i = 0; i < GAZE_ADDRS_PER_DNODE; i++)
			bm_add(b, first + i, le64_to_cpu(dn->addr[i]));
		return;
	}
	span = height == 2 ? GAZE_ADDRS_PER_DNODE :
	       (u64)GAZE_NIDS_PER_INDIRECT * GAZE_ADDRS_PER_DNODE;
	{
		u32 *nids = malloc(sizeof(u32) * GAZE_NIDS_PER_INDIRECT);
		const struct gaze_inode_ind *in = (void *)buf;

		if (!nids)
			return;
		for (i = 0; i < GAZE_NIDS_PER_INDIRECT; i++)
			nids[i] = le32_to_cpu(in->nid[i]);
		for (i = 0; i < GAZE_NIDS_PER_INDIRECT; i++)
			walk_node(im, b, t, nids[i], height - 1,
				  first + i * span, depth + 1, buf);
		free(nids);
	}
}

static void
dump_inode_fields(struct out *o, const struct gaze_inode *in)
{
	u32 mode = le16_to_cpu(in->mode), i;
	char buf[16];

	o_str(o, "type", type_name(mode));
	snprintf(buf, sizeof(buf), "%06o", mode);
	o_str(o, "mode_octal", buf);
	o_u64(o, "mode", mode);
	o_u64(o, "uid", le32_to_cpu(in->uid));
	o_u64(o, "gid", le32_to_cpu(in->gid));
	o_u64(o, "nlink", le32_to_cpu(in->nlink));
	o_u64(o, "size", le64_to_cpu(in->size));
	o_u64(o, "blocks", le64_to_cpu(in->blocks));
	o_u64(o, "atime", le64_to_cpu(in->atime));
	o_u64(o, "atime_nsec", le32_to_cpu(in->atime_nsec));
	o_u64(o, "mtime", le64_to_cpu(in->mtime));
	o_u64(o, "mtime_nsec", le32_to_cpu(in->mtime_nsec));
	o_u64(o, "ctime", le64_to_cpu(in->ctime));
	o_u64(o, "ctime_nsec", le32_to_cpu(in->ctime_nsec));
	o_u64(o, "crtime", le64_to_cpu(in->crtime));
	o_u64(o, "crtime_nsec", le32_to_cpu(in->crtime_nsec));
	o_flags(o, "flags", le32_to_cpu(in->flags), gaze_ctl_inode_flags,
		GAZE_CTL_NR_INODE_FLAGS);
	o_u64(o, "generation", le32_to_cpu(in->generation));
	o_u64(o, "parent", le32_to_cpu(in->parent));
	o_u64(o, "xattr_nid", le32_to_cpu(in->xattr_nid));
	o_u64(o, "rdev_major", le32_to_cpu(in->rdev_major));
	o_u64(o, "rdev_minor", le32_to_cpu(in->rdev_minor));
	if (o->json) {
		gaze_json_arr_begin(&o->j, "nids");
		for (i = 0; i < GAZE_NR_INODE_NIDS; i++)
			gaze_json_u64(&o->j, NULL, le32_to_cpu(in->nids[i]));
		gaze_json_arr_end(&o->j);
	} else {
		o_row(o, "nids: %u %u (direct) %u %u (indirect) %u (double indirect)",
		      le32_to_cpu(in->nids[0]), le32_to_cpu(in->nids[1]),
		      le32_to_cpu(in->nids[2]), le32_to_cpu(in->nids[3]),
		      le32_to_cpu(in->nids[4]));
	}
	o_u64(o, "dir_nbuckets", le32_to_cpu(in->dir_nbuckets));
	o_u64(o, "dir_nentries", le32_to_cpu(in->dir_nentries));
	o_u64(o, "dir_depth", in->dir_depth);
	o_u64(o, "compress_algo", in->compress_algo);
	o_u64(o, "compress_level", in->compress_level);
	o_u64(o, "compress_log_cluster", in->compress_log_cluster);
	o_u64(o, "compr_blocks", le64_to_cpu(in->compr_blocks));
	o_u64(o, "inline_xattr_used", le16_to_cpu(in->inline_xattr_used));
	o_u64(o, "inline_used", le16_to_cpu(in->inline_used));
}

int
gaze_cmd_dump_inode(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct gaze_inode *in;
	struct ntree t = { 0 };
	const char *why = NULL;
	struct bm b = { 0 };
	struct img im;
	struct out o;
	u64 iaddr;
	u32 ino, i, flags;
	u8 *buf;
	int ret = open_fs_cmd(cmd, argc, argv, &o, &im);

	if (ret >= 0)
		return ret;
	in = malloc(BS);
	buf = malloc(BS);
	ret = in && buf ? img_resolve(&im, argv[optind + 1], &ino) : -ENOMEM;
	if (!ret)
		ret = img_inode(&im, ino, in, &iaddr);
	if (ret) {
		fprintf(stderr, "gazectl: %s: %s: %s\n", im.name,
			argv[optind + 1], in_strerror(ret));
		free(in);
		free(buf);
		img_close(&im);
		return GAZE_EXIT_FAIL;
	}
	ret = gaze_fmt_inode_verify(in, &im.fs->sb, iaddr, &why);
	flags = le32_to_cpu(in->flags);
	o_obj(&o, NULL);
	o_str(&o, "image", im.name);
	o_u64(&o, "ino", ino);
	o_u64(&o, "block", iaddr);
	o_verdict(&o, "verify", ret, why);
	dump_hdr(&o, &in->hdr);
	dump_inode_fields(&o, in);
	b.o = &o;
	o_arr(&o, "block_map");
	if (!ret && !(flags & (GAZE_IF_INLINE_DATA | GAZE_IF_INLINE_DENTRY))) {
		u64 first = GAZE_ADDRS_PER_INODE;

		for (i = 0; i < GAZE_ADDRS_PER_INODE; i++)
			bm_add(&b, i, le64_to_cpu(in->i.addr[i]));
		for (i = 0; i < GAZE_NR_INODE_NIDS; i++) {
			u32 h = i < 2 ? 1 : i < 4 ? 2 : 3;

			walk_node(&im, &b, &t, le32_to_cpu(in->nids[i]), h,
				  first, 1, buf);
			first += h == 1 ? GAZE_ADDRS_PER_DNODE :
				 h == 2 ? (u64)GAZE_NIDS_PER_INDIRECT *
					  GAZE_ADDRS_PER_DNODE :
				 (u64)GAZE_NIDS_PER_INDIRECT *
				 GAZE_NIDS_PER_INDIRECT * GAZE_ADDRS_PER_DNODE;
		}
		bm_flush(&b);
	}
	o_arr_end(&o);
	o_u64(&o, "mapped_blocks", b.total);
	o_arr(&o, "node_tree");
	for (i = 0; i < t.n; i++) {
		if (o.json) {
			o_obj(&o, NULL);
			o_str(&o, "kind", t.r[i].kind);
			o_u64(&o, "nid", t.r[i].nid);
			o_u64(&o, "depth", t.r[i].depth);
			o_u64(&o, "block", t.r[i].addr);
			o_u64(&o, "first_fblk", t.r[i].first);
			o_str(&o, "verify", t.r[i].verdict);
			o_end(&o);
		} else {
			o_row(&o, "%*s%s nid %u at %llu, file blocks from %llu: %s",
			      (int)(t.r[i].depth - 1) * 2, "", t.r[i].kind,
			      t.r[i].nid, (unsigned long long)t.r[i].addr,
			      (unsigned long long)t.r[i].first,
			      t.r[i].verdict);
		}
	}
	o_arr_end(&o);
	if (in->xattr_nid) {
		u64 xa = 0;

		mutex_lock(&im.fs->lock);
		gaze_imap_get(im.fs, le32_to_cpu(in->xattr_nid), &xa);
		mutex_unlock(&im.fs->lock);
		o_u64(&o, "xattr_block", xa);
	}
	o_end(&o);
	free(t.r);
	free(in);
	free(buf);
	img_close(&im);
	return o_finish(&o);
}

/* ---------------------------------------------------------------- */
/* dump dir                                                          */
/* ---------------------------------------------------------------- */

static void
dump_region(struct out *o, const u8 *region, u32 used, const char *bucket)
{
	u32 off = 0, rl;

	while (off + sizeof(struct gaze_dirent) <= used) {
		const struct gaze_dirent *d = (const void *)(region + off);
		u64 h = le64_to_cpu(d->hash), ck = h >> 1;
		u32 nl = d->name_len;

		rl = le16_to_cpu(d->rec_len);
		if (ck < 2)
			ck = 2;
		if (off + sizeof(*d) + nl > used)
			nl = used - off - sizeof(*d);
		if (o->json) {
			o_obj(o, NULL);
			o_str(o, "bucket", bucket);
			o_hex(o, "hash", h);
			o_u64(o, "cookie", ck);
			o_u64(o, "ino", le32_to_cpu(d->ino));
			o_str(o, "type", dt_name(d->file_type));
			o_u64(o, "rec_len", rl);
			o_strn(o, "name", (const char *)(d + 1), nl);
			o_end(o);
		} else {
			char q[GAZE_QUOTE_MAX(255)];

			gaze_quote(q, sizeof(q), (const char *)(d + 1), nl);
			o_row(o, "%-7s %016llx %20llu %8u %-7s %s", bucket,
			      (unsigned long long)h, (unsigned long long)ck,
			      le32_to_cpu(d->ino), dt_name(d->file_type), q);
		}
		if (rl < sizeof(*d) || rl % 8) {
			if (!o->json)
				o_row(o, "(bad rec_len %u: rest of the region skipped)",
				      rl);
			break;
		}
		off += rl;
	}
}

int
gaze_cmd_dump_dir(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct gaze_inode *in;
	struct img im;
	struct out o;
	u64 iaddr;
	u32 ino, flags, b, nb = 0;
	u8 *buf;
	int ret = open_fs_cmd(cmd, argc, argv, &o, &im);

	if (ret >= 0)
		return ret;
	in = malloc(BS);
	buf = malloc(BS);
	ret = in && buf ? img_resolve(&im, argv[optind + 1], &ino) : -ENOMEM;
	if (!ret)
		ret = img_inode(&im, ino, in, &iaddr);
	if (!ret && !GAZE_S_ISDIR(le16_to_cpu(in->mode)))
		ret = -ENOTDIR;
	if (ret) {
		fprintf(stderr, "gazectl: %s: %s: %s\n", im.name,
			argv[optind + 1], in_strerror(ret));
		free(in);
		free(buf);
		img_close(&im);
		return GAZE_EXIT_FAIL;
	}
	flags = le32_to_cpu(in->flags);
	o_obj(&o, NULL);
	o_str(&o, "image", im.name);
	o_u64(&o, "ino", ino);
	o_u64(&o, "parent", le32_to_cpu(in->parent));
	o_str(&o, "format", flags & GAZE_IF_DIR_HASHED ? "hashed" : "inline");
	o_u64(&o, "nentries", le32_to_cpu(in->dir_nentries));
	o_u64(&o, "nbuckets", le32_to_cpu(in->dir_nbuckets));
	o_u64(&o, "depth", in->dir_depth);
	if (flags & GAZE_IF_DIR_HASHED) {
		nb = le32_to_cpu(in->dir_nbuckets);
		o_arr(&o, "buckets");
		for (b = 0; b < nb; b++) {
			const struct gaze_dir_bucket *bk = (void *)buf;
			u64 a = 0;

			gaze_file_bmap(im.fs, ino, GAZE_DIR_BUCKET_BASE + b, &a);
			if (!GAZE_ADDR_IS_REAL(a) || img_read(&im, a, buf))
				continue;
			if (o.json) {
				o_obj(&o, NULL);
				o_u64(&o, "bucket", b);
				o_u64(&o, "block", a);
				o_u64(&o, "local_depth", bk->local_depth);
				o_u64(&o, "nr_entries", le32_to_cpu(bk->nr_entries));
				o_u64(&o, "used", le16_to_cpu(bk->used));
				o_u64(&o, "overflow", le32_to_cpu(bk->overflow));
				o_end(&o);
			} else {
				o_row(&o, "bucket %u at %llu: local depth %u, %u entries, %u bytes used, overflow %u",
				      b, (unsigned long long)a, bk->local_depth,
				      le32_to_cpu(bk->nr_entries),
				      le16_to_cpu(bk->used),
				      le32_to_cpu(bk->overflow));
			}
		}
		o_arr_end(&o);
	}
	o_arr(&o, "entries");
	if (!o.json)
		o_row(&o, "%-7s %-16s %20s %8s %-7s %s", "bucket", "hash",
		      "cookie", "ino", "type", "name");
	if (flags & GAZE_IF_DIR_HASHED) {
		for (b = 0; b < nb; b++) {
			const struct gaze_dir_bucket *bk = (void *)buf;
			char name[16];
			u64 a = 0;

			gaze_file_bmap(im.fs, ino, GAZE_DIR_BUCKET_BASE + b, &a);
			if (!GAZE_ADDR_IS_REAL(a) || img_read(&im, a, buf))
				continue;
			snprintf(name, sizeof(name), "%u", b);
			dump_region(&o, bk->entries,
				    min_t(u32, le16_to_cpu(bk->used),
					  GAZE_DIR_BUCKET_SPACE), name);
		}
	} else {
		dump_region(&o, in->i.data,
			    min_t(u32, le16_to_cpu(in->inline_used),
				  GAZE_INLINE_DENTRY_SPACE), "inline");
	}
	o_arr_end(&o);
	o_end(&o);
	free(in);
	free(buf);
	img_close(&im);
	return o_finish(&o);
}

/* ---------------------------------------------------------------- */
/* dump block                                                        */
/* ---------------------------------------------------------------- */

static u32
count_nonzero64(const __le64 *a, u32 n)
{
	u32 i, c = 0;

	for (i = 0; i < n; i++)
		c += a[i] != 0;
	return c;
}

static void
dump_block_body(struct out *o, struct img *im, const u8 *blk, u64 addr)
{
	const struct gaze_mhdr *h = (const void *)blk;
	const struct gaze_super *sb = &im->sb;
	const char *why = NULL;
	u32 m = le32_to_cpu(h->magic), i, c;
	int ret = 0;

	switch (m) {
	case GAZE_MAGIC_SB:
		ret = gaze_fmt_super_verify((const void *)blk, addr, &why);
		o_verdict(o, "verify", ret, why);
		o_obj(o, "superblock");
		dump_super_fields(o, (const void *)blk);
		o_end(o);
		break;
	case GAZE_MAGIC_CP_HEAD: {
		const struct gaze_cp_head *cp = (const void *)blk;

		ret = gaze_fmt_cp_head_verify(cp, sb, addr, &why);
		o_verdict(o, "verify", ret, why);
		o_obj(o, "checkpoint_head");
		o_u64(o, "pack_blocks", le32_to_cpu(cp->pack_blocks));
		o_flags(o, "flags", le32_to_cpu(cp->flags), cp_flag_names,
			ARRAY_SIZE(cp_flag_names));
		o_u64(o, "valid_blocks", le64_to_cpu(cp->valid_blocks));
		o_u64(o, "valid_inodes", le32_to_cpu(cp->valid_inodes));
		o_u64(o, "free_zones", le32_to_cpu(cp->free_zones));
		o_u64(o, "nr_orphans", le32_to_cpu(cp->nr_orphans));
		o_end(o);
		break;
	}
	case GAZE_MAGIC_CP_PAYLOAD:
		ret = gaze_fmt_hdr_verify(blk, m, gaze_sb_meta_uuid(sb), addr,
					  &why);
		o_verdict(o, "verify", ret, why);
		o_u64(o, "nonzero_slots", count_nonzero64(
			((const struct gaze_cp_payload *)blk)->slot,
			GAZE_ADDRS_PER_BLOCK));
		break;
	case GAZE_MAGIC_CP_TRAIL: {
		const struct gaze_cp_trailer *tr = (const void *)blk;

		ret = gaze_fmt_hdr_verify(blk, m, gaze_sb_meta_uuid(sb), addr,
					  &why);
		o_verdict(o, "verify", ret, why);
		o_u64(o, "pack_blocks", le32_to_cpu(tr->pack_blocks));
		o_hex(o, "head_crc", le32_to_cpu(tr->head_crc));
		break;
	}
	case GAZE_MAGIC_TINDEX:
		ret = gaze_fmt_hdr_verify(blk, m, gaze_sb_meta_uuid(sb), addr,
					  &why);
		o_verdict(o, "verify", ret, why);
		o_str(o, "table", le32_to_cpu(h->nid) < GAZE_NR_TABLES ?
		      table_names[le32_to_cpu(h->nid)] : "unknown");
		o_u64(o, "nonzero_entries", count_nonzero64(
			((const struct gaze_tindex *)blk)->addr,
			GAZE_ADDRS_PER_BLOCK));
		break;
	case GAZE_MAGIC_IMAP:
		ret = gaze_fmt_table_verify(blk, GAZE_TABLE_IMAP,
					    le32_to_cpu(h->index), sb, addr, &why);
		o_verdict(o, "verify", ret, why);
		o_u64(o, "first_nid", (u64)le32_to_cpu(h->index) *
		      GAZE_IMAP_PER_BLOCK);
		o_u64(o, "used_nids", count_nonzero64(
			((const struct gaze_imap_block *)blk)->addr,
			GAZE_IMAP_PER_BLOCK));
		break;
	case GAZE_MAGIC_ZINFO: {
		const struct gaze_zinfo_block *zb = (const void *)blk;

		ret = gaze_fmt_table_verify(blk, GAZE_TABLE_ZINFO,
					    le32_to_cpu(h->index), sb, addr, &why);
		o_verdict(o, "verify", ret, why);
		for (i = 0, c = 0; i < GAZE_ZINFO_PER_BLOCK; i++)
			c += zb->z[i].state != GAZE_ZS_FREE;
		o_u64(o, "zones_not_free", c);
		break;
	}
	case GAZE_MAGIC_USAGE: {
		const struct gaze_usage_block *ub = (const void *)blk;

		ret = gaze_fmt_table_verify(blk, GAZE_TABLE_USAGE,
					    le32_to_cpu(h->index), sb, addr, &why);
		o_verdict(o, "verify", ret, why);
		for (i = 0, c = 0; i < GAZE_BODY_SIZE; i++)
			c += __builtin_popcount(ub->bits[i]);
		o_u64(o, "bits_set", c);
		break;
	}
	case GAZE_MAGIC_SUMMARY: {
		const struct gaze_summary_block *s = (const void *)blk;
		u32 nd = 0, nn = 0;

		ret = gaze_fmt_table_verify(blk, GAZE_TABLE_SUMMARY,
					    le32_to_cpu(h->index), sb, addr, &why);
		o_verdict(o, "verify", ret, why);
		for (i = 0; i < GAZE_SUMMARY_PER_BLOCK; i++) {
			nd += s->s[i].type == GAZE_SUM_DATA;
			nn += s->s[i].type == GAZE_SUM_NODE;
		}
		o_u64(o, "data_entries", nd);
		o_u64(o, "node_entries", nn);
		break;
	}
	case GAZE_MAGIC_INODE:
		ret = gaze_fmt_inode_verify((const void *)blk, sb, addr, &why);
		o_verdict(o, "verify", ret, why);
		o_obj(o, "inode");
		dump_inode_fields(o, (const void *)blk);
		o_end(o);
		break;
	case GAZE_MAGIC_DNODE:
		ret = gaze_fmt_dnode_verify((const void *)blk, sb, addr, &why);
		o_verdict(o, "verify", ret, why);
		o_u64(o, "first_fblk", le32_to_cpu(h->index));
		o_u64(o, "mapped", count_nonzero64(
			((const struct gaze_dnode *)blk)->addr,
			GAZE_ADDRS_PER_DNODE));
		break;
	case GAZE_MAGIC_INODE_IND: {
		const struct gaze_inode_ind *in = (const void *)blk;

		ret = gaze_fmt_ind_verify(in, sb, addr, &why);
		o_verdict(o, "verify", ret, why);
		for (i = 0, c = 0; i < GAZE_NIDS_PER_INDIRECT; i++)
			c += in->nid[i] != 0;
		o_u64(o, "first_fblk", le32_to_cpu(h->index));
		o_u64(o, "children", c);
		break;
	}
	case GAZE_MAGIC_XATTR: {
		const struct gaze_xattr_block *xb = (const void *)blk;

		ret = gaze_fmt_xattr_verify(xb, sb, addr, &why);
		o_verdict(o, "verify", ret, why);
		o_u64(o, "used", le32_to_cpu(xb->used));
		break;
	}
	case GAZE_MAGIC_DIR_BUCKET: {
		const struct gaze_dir_bucket *bk = (const void *)blk;

		ret = gaze_fmt_dir_bucket_verify(bk, sb, addr, &why);
		o_verdict(o, "verify", ret, why);
		o_u64(o, "nr_entries", le32_to_cpu(bk->nr_entries));
		o_u64(o, "used", le16_to_cpu(bk->used));
		o_u64(o, "local_depth", bk->local_depth);
		o_arr(o, "entries");
		dump_region(o, bk->entries, min_t(u32, le16_to_cpu(bk->used),
						  GAZE_DIR_BUCKET_SPACE),
			    "-");
		o_arr_end(o);
		break;
	}
	case GAZE_MAGIC_DIR_INDEX:
		ret = gaze_fmt_dir_index_verify((const void *)blk, sb, addr,
						&why);
		o_verdict(o, "verify", ret, why);
		break;
	}
}

/* where addr lies and, in the main area, its owner as the tables say */
static void
dump_block_place(struct out *o, struct img *im, u64 addr)
{
	const struct gaze_super *sb = &im->sb;
	u32 zb = le32_to_cpu(sb->zone_blocks), z = (u32)(addr / zb);
	u32 ms = le32_to_cpu(sb->main_zone_start);
	u32 mets = le32_to_cpu(sb->meta_zone_start);
	struct gaze_fs *fs;
	struct gaze_mbuf *mb;

	o_u64(o, "zone", z);
	o_u64(o, "zone_offset", addr % zb);
	o_str(o, "area", z < mets ? "checkpoint" : z < ms ? "meta" :
	      z < ms + le32_to_cpu(sb->main_zone_count) ? "main" :
	      "outside the filesystem");
	if (z < ms || z >= ms + le32_to_cpu(sb->main_zone_count) ||
	    gaze_fs_open(im->dev, GAZE_FS_RDONLY, &im->fs))
		return;
	fs = im->fs;
	mutex_lock(&fs->lock);
	{
		u32 zi = z - ms, off = (u32)(addr % zb);
		u32 ub = zi * le32_to_cpu(fs->sb.usage_blocks_per_zone) +
			 off / GAZE_USAGE_BITS_PER_BLOCK;
		u32 sbk = zi * le32_to_cpu(fs->sb.summary_blocks_per_zone) +
			  off / GAZE_SUMMARY_PER_BLOCK;
		int valid = -1;		/* unknown */

		if (!gaze_table_get(fs, GAZE_TABLE_USAGE, ub, &mb)) {
			u32 bit = off % GAZE_USAGE_BITS_PER_BLOCK;
			const struct gaze_usage_block *u = mb->data;

			valid = !!(u->bits[bit / 8] & (1u << (bit % 8)));
			o_bool(o, "valid_bit", valid);
			gaze_mbuf_put(fs, mb);
		}
		if (!gaze_table_get(fs, GAZE_TABLE_SUMMARY, sbk, &mb)) {
			const struct gaze_summary *s = &((struct gaze_summary_block *)
				mb->data)->s[off % GAZE_SUMMARY_PER_BLOCK];

			o_obj(o, "summary");
			o_str(o, "type", s->type == GAZE_SUM_DATA ? "data" :
			      s->type == GAZE_SUM_NODE ? "node" :
			      s->type == GAZE_SUM_NONE ? "none" : "unknown");
			o_u64(o, "nid", le32_to_cpu(s->nid));
			o_u64(o, "ofs", le16_to_cpu(s->ofs));
			/* lazy_summary leaves the entry of a block no
			 * longer valid as it was: it names a past owner */
			if (!valid && s->type != GAZE_SUM_NONE)
				o_bool(o, "stale", true);
			o_end(o);
			gaze_mbuf_put(fs, mb);
		}
	}
	mutex_unlock(&fs->lock);
}

int
gaze_cmd_dump_block(const struct gaze_cmd *cmd, int argc, char **argv)
{
	struct img im;
	struct out o;
	u64 addr;
	u8 *blk;
	const char *mn;
	bool zero = true;
	u32 i;
	int ret;

	DUMP_OPTS(cmd, argc, argv, &o);
	if (gaze_uint_parse(argv[optind + 1], 0, UINT64_MAX, &addr))
		return gaze_cmd_usage_error(cmd, "bad block address '%s'",
					    argv[optind + 1]);
	if (img_open(&im, argv[optind], false))
		return GAZE_EXIT_FAIL;
	blk = malloc(BS);
	ret = blk ? img_read(&im, addr, blk) : -ENOMEM;
	if (ret) {
		fprintf(stderr, "gazectl: %s: block %llu: %s\n", im.name,
			(unsigned long long)addr,
			ret == -EINVAL ? "beyond the device" : strerror(-ret));
		free(blk);
		img_close(&im);
		return GAZE_EXIT_FAIL;
	}
	for (i = 0; i < BS && zero; i++)
		zero = !blk[i];
	mn = magic_name(le32_to_cpu(((struct gaze_mhdr *)blk)->magic));
	o_obj(&o, NULL);
	o_str(&o, "image", im.name);
	o_u64(&o, "block", addr);
	dump_block_place(&o, &im, addr);
	o_str(&o, "kind", mn ? mn : zero ? "zeros" :
	      "no metadata header (file data or garbage)");
	if (mn) {
		dump_hdr(&o, (void *)blk);
		dump_block_body(&o, &im, blk, addr);
	}
	o_end(&o);
	free(blk);
	img_close(&im);
	return o_finish(&o);
}
