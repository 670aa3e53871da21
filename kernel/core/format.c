// SPDX-License-Identifier: GPL-2.0
/*
 * format.c - metadata block headers, checksums, per-type verifiers,
 * feature and compression names, and the superblock image.
 *
 * Every metadata block is checked by the same code in the module (at
 * read time) and in fsck, so a block the kernel accepts is a block fsck
 * accepts and the other way round.  A verifier checks one block in
 * isolation: the common header (magic, crc, uuid, location, version),
 * then every field whose range the format defines, given only the
 * superblock.  Checks that need other blocks (link counts, reachability,
 * bitmap agreement) belong to fsck.  Each failure names the check in a
 * static string for the log and the fsck transcript.
 *
 * The superblock passed to the type verifiers must itself have passed
 * gaze_fmt_super_verify().
 */
#include "gaze_core.h"

/* File types, as numbers: the core has no <sys/stat.h>. */
#define FMT_S_IFMT	0170000
#define FMT_S_IFSOCK	0140000
#define FMT_S_IFLNK	0120000
#define FMT_S_IFREG	0100000
#define FMT_S_IFBLK	0060000
#define FMT_S_IFDIR	0040000
#define FMT_S_IFCHR	0020000
#define FMT_S_IFIFO	0010000

#define FMT_DT_MAX		14	/* DT_WHT */
#define FMT_CLUSTER_DEFAULT	2
#define FMT_NO_ZONE		0xffffffffu
#define FMT_DIR_MAX_BUCKET	(0xffffffffu - GAZE_DIR_BUCKET_BASE)

static int
fmt_bad(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -EFSCORRUPTED;
}

bool
gaze_fmt_is_zero(const void *p, size_t len)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* ---------------------------------------------------------------- */
/* Areas: a run of zones, of which the first zone_cap blocks are     */
/* writable.  Set up once per verifier so per-address checks avoid   */
/* 64-bit division when zones are a power of two.                    */
/* ---------------------------------------------------------------- */
struct fmt_area {
	u64	start, end;		/* block range of the zones */
	u32	zone_blocks, zone_cap;
	int	shift;			/* log2(zone_blocks), or -1 */
};

static void
fmt_area_init(struct fmt_area *a, const struct gaze_super *sb, u32 zstart,
	      u32 nzones)
{
	u32 zb = le32_to_cpu(sb->zone_blocks);

	a->zone_blocks = zb;
	a->zone_cap = le32_to_cpu(sb->zone_cap);
	a->start = (u64)zstart * zb;
	a->end = ((u64)zstart + nzones) * zb;
	a->shift = -1;
	if (zb && !(zb & (zb - 1)))
		a->shift = __builtin_ctz(zb);
}

static void
fmt_area_main(struct fmt_area *a, const struct gaze_super *sb)
{
	fmt_area_init(a, sb, le32_to_cpu(sb->main_zone_start),
		      le32_to_cpu(sb->main_zone_count));
}

static void
fmt_area_meta(struct fmt_area *a, const struct gaze_super *sb)
{
	fmt_area_init(a, sb, le32_to_cpu(sb->meta_zone_start),
		      le32_to_cpu(sb->meta_zone_count));
}

static bool
fmt_area_has(const struct fmt_area *a, u64 addr)
{
	u64 rel;

	if (addr < a->start || addr >= a->end)
		return false;
	if (a->zone_cap >= a->zone_blocks)
		return true;
	rel = addr - a->start;
	if (a->shift >= 0)
		return (rel & (a->zone_blocks - 1)) < a->zone_cap;
	return rel % a->zone_blocks < a->zone_cap;
}

/* a file block pointer: hole, preallocated, cluster marker or main block */
static bool
fmt_data_addr_ok(const struct fmt_area *main, u64 addr)
{
	if (addr == GAZE_NULL_ADDR || addr == GAZE_ADDR_PREALLOC ||
	    GAZE_ADDR_IS_CLUSTER(addr) || GAZE_ADDR_IS_CLEN(addr))
		return true;
	return fmt_area_has(main, addr);
}

static bool
fmt_zone_in(const struct gaze_super *sb, u32 zone, bool meta)
{
	u32 start = le32_to_cpu(meta ? sb->meta_zone_start :
				sb->main_zone_start);
	u32 count = le32_to_cpu(meta ? sb->meta_zone_count :
				sb->main_zone_count);

	return zone >= start && (u64)zone < (u64)start + count;
}

/* ---------------------------------------------------------------- */
/* Checksums and the common header                                   */
/* ---------------------------------------------------------------- */

u32
gaze_fmt_block_crc(const void *blk)
{
	static const u8 zero[4];
	const size_t ofs = offsetof(struct gaze_mhdr, crc);
	const u8 *b = blk;
	u32 crc;

	crc = gaze_crc32c(~0u, b, ofs);
	crc = gaze_crc32c(crc, zero, sizeof(zero));
	crc = gaze_crc32c(crc, b + ofs + 4, GAZE_BLOCK_SIZE - ofs - 4);
	return ~crc;
}

void
gaze_fmt_hdr_init(void *blk, u32 magic, const u8 uuid[16], u64 blkaddr,
		  u64 seq, u32 nid, u32 ino, u32 index)
{
	struct gaze_mhdr *h = blk;

	memset(h, 0, sizeof(*h));
	h->magic = cpu_to_le32(magic);
	h->blkaddr = cpu_to_le64(blkaddr);
	if (uuid)
		memcpy(h->uuid, uuid, sizeof(h->uuid));
	h->seq = cpu_to_le64(seq);
	h->nid = cpu_to_le32(nid);
	h->ino = cpu_to_le32(ino);
	h->index = cpu_to_le32(index);
	h->hdr_version = cpu_to_le16(GAZE_FORMAT_VERSION);
}

void
gaze_fmt_csum_set(void *blk)
{
	struct gaze_mhdr *h = blk;

	h->crc = cpu_to_le32(gaze_fmt_block_crc(blk));
}

/* uuid may be NULL (the superblock carries the uuid it is checked by) */
int
gaze_fmt_hdr_verify(const void *blk, u32 magic, const u8 uuid[16],
		    u64 blkaddr, const char **why)
{
	const struct gaze_mhdr *h = blk;

	if (le32_to_cpu(h->magic) != magic)
		return fmt_bad(why, "header: wrong magic number");
	if (le32_to_cpu(h->crc) != gaze_fmt_block_crc(blk)) {
		if (why)
			*why = "header: checksum mismatch";
		return -EFSBADCRC;
	}
	if (le16_to_cpu(h->hdr_version) != GAZE_FORMAT_VERSION)
		return fmt_bad(why, "header: unknown header version");
	if (uuid && memcmp(h->uuid, uuid, sizeof(h->uuid)))
		return fmt_bad(why, "header: filesystem uuid mismatch");
	if (le64_to_cpu(h->blkaddr) != blkaddr)
		return fmt_bad(why,
			       "header: block address does not match its location");
	if (le16_to_cpu(h->flags) & ~GAZE_NF_ALL)
		return fmt_bad(why, "header: unknown flags");
	return 0;
}

/* header of a block that is not a node: no ino, flags or next pointer */
static int
fmt_plain_hdr(const struct gaze_mhdr *h, const char **why)
{
	if (h->flags || h->next)
		return fmt_bad(why,
			       "header: flags or next set on a non-node block");
	return 0;
}

/* header of a node block: nid and owner inode in range */
static int
fmt_node_hdr(const void *blk, u32 magic, const struct gaze_super *sb,
	     u64 blkaddr, const char **why)
{
	const struct gaze_mhdr *h = blk;
	u32 max_nid = le32_to_cpu(sb->max_nid);
	int err;

	err = gaze_fmt_hdr_verify(blk, magic, gaze_sb_meta_uuid(sb), blkaddr,
				  why);
	if (err)
		return err;
	if (!h->nid || le32_to_cpu(h->nid) >= max_nid)
		return fmt_bad(why, "node: nid is zero or beyond max_nid");
	if (!h->ino || le32_to_cpu(h->ino) >= max_nid)
		return fmt_bad(why, "node: owner inode is zero or beyond max_nid");
	return 0;
}

/* ---------------------------------------------------------------- */
/* Compression parameters (superblock defaults and inodes)           */
/* ---------------------------------------------------------------- */

static const char *const fmt_compress_names[] = {
#define FMT_ALGO_NAME(n, name) [n] = #name,
	GAZE_COMPRESS_ALGOS(FMT_ALGO_NAME)
#undef FMT_ALGO_NAME
};

/* highest level of each algorithm; level 0 means "its default" */
int
gaze_fmt_compress_max_level(u32 algo)
{
	switch (algo) {
	case GAZE_COMPRESS_NONE:
	case GAZE_COMPRESS_LZ4:
		return 0;
	case GAZE_COMPRESS_ZSTD:
		return 19;
	case GAZE_COMPRESS_GZIP:
		return 9;
	}
	return -1;
}

static int
fmt_compress_check(u8 algo, u8 level, u8 log_cluster, bool need_cluster,
		   const char **why)
{
	int maxlvl = gaze_fmt_compress_max_level(algo);

	if (maxlvl < 0)
		return fmt_bad(why, "compression: unknown algorithm");
	if (level > maxlvl)
		return fmt_bad(why,
			       "compression: level out of range for the algorithm");
	if (!log_cluster && !need_cluster)
		return 0;
	if (log_cluster < GAZE_CLUSTER_LOG_MIN || log_cluster > GAZE_CLUSTER_LOG_MAX)
		return fmt_bad(why,
			       "compression: cluster size out of range (2^2..2^8 blocks)");
	return 0;
}

const char *
gaze_fmt_compress_name(int algo)
{
	if (algo < 0 || algo >= (int)ARRAY_SIZE(fmt_compress_names))
		return "unknown";
	return fmt_compress_names[algo];
}

/* parses a decimal level 1..max with no sign, spaces or leading zero */
static int
fmt_parse_level(const char *s, int max, u8 *level)
{
	int v = 0;

	if (*s < '1' || *s > '9')
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (*s - '0');
		if (v > max)
			return -EINVAL;
	}
	*level = (u8)v;
	return 0;
}

/*
 * "none"/"off"/"no", "on" (= lz4), "lz4", "zstd", "zstd-1".."zstd-19",
 * "gzip", "gzip-1".."gzip-9"; ':' may stand for '-' ("zstd:3", as
 * btrfs writes it).  A name without a level stores level 0, which means
 * the algorithm's own default.
 */
int
gaze_fmt_compress_parse(const char *name, u8 *algo, u8 *level)
{
	size_t n;
	int a, maxlvl;

	if (!strcmp(name, "off") || !strcmp(name, "none") ||
	    !strcmp(name, "no")) {
		*algo = GAZE_COMPRESS_NONE;
		*level = 0;
		return 0;
	}
	if (!strcmp(name, "on")) {
		*algo = GAZE_COMPRESS_LZ4;
		*level = 0;
		return 0;
	}
	for (a = 1; a < (int)ARRAY_SIZE(fmt_compress_names); a++) {
		n = strlen(fmt_compress_names[a]);
		if (strncmp(name, fmt_compress_names[a], n))
			continue;
		maxlvl = gaze_fmt_compress_max_level(a);
		if (!name[n]) {
			*level = 0;
		} else if ((name[n] != '-' && name[n] != ':') || !maxlvl ||
			   fmt_parse_level(name + n + 1, maxlvl, level)) {
			return -EINVAL;
		}
		*algo = (u8)a;
		return 0;
	}
	return -EINVAL;
}

/* ---------------------------------------------------------------- */
/* Features                                                          */
/* ---------------------------------------------------------------- */
#define FMT_FM_COMPAT		0
#define FMT_FM_RO_COMPAT	1
#define FMT_FM_INCOMPAT		2
#define FMT_NR_MASKS		3

struct fmt_feature {
	int		mask;
	int		bit;
	const char	*name;
	bool		def;
	u8		supp;		/* this version supports it: 1, and
					 * mkfs may set it; 2, only a tool
					 * on an existing filesystem */
};

static const struct fmt_feature fmt_features[] = {
#define FMT_FEATURE(m, b, n, d, s) { FMT_FM_##m, b, #n, d, s },
	GAZE_FEATURES(FMT_FEATURE)
#undef FMT_FEATURE
};

static const char *const fmt_mask_names[FMT_NR_MASKS] = {
	"compat", "ro_compat", "incompat"
};

const char *
gaze_fmt_feature_name(int mask, int bit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fmt_features); i++)
		if (fmt_features[i].mask == mask && fmt_features[i].bit == bit)
			return fmt_features[i].name;
	return NULL;
}

void
gaze_fmt_feature_defaults(u64 *compat, u64 *ro_compat, u64 *incompat)
{
	u64 m[FMT_NR_MASKS] = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fmt_features); i++)
		if (fmt_features[i].def)
			m[fmt_features[i].mask] |= 1ull << fmt_features[i].bit;
	*compat = m[FMT_FM_COMPAT];
	*ro_compat = m[FMT_FM_RO_COMPAT];
	*incompat = m[FMT_FM_INCOMPAT];
}

/* one item of a feature list: "name", "^name" or "none" */
static int
fmt_feature_apply(const char *s, size_t len, u64 m[FMT_NR_MASKS])
{
	const struct fmt_feature *f;
	bool clear = false;
	size_t i;

	if (len && s[0] == '^') {
		clear = true;
		s++;
		len--;
	}
	if (!clear && len == 4 && !strncmp(s, "none", 4)) {
		m[0] = m[1] = m[2] = 0;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(fmt_features); i++) {
		f = &fmt_features[i];
		if (strlen(f->name) != len || strncmp(s, f->name, len))
			continue;
		if (clear) {
			m[f->mask] &= ~(1ull << f->bit);
		} else {
			if (!f->supp)
				return -EOPNOTSUPP;
			if (f->supp != 1)
				return -EPERM;
			m[f->mask] |= 1ull << f->bit;
		}
		return 0;
	}
	return -EINVAL;
}


/*
 * Applies the items left to right; on error nothing is changed and *bad
 * points at the offending item inside list (it ends at the next ',').
 */
int
gaze_fmt_feature_parse(const char *list, u64 *compat, u64 *ro_compat,
		       u64 *incompat, const char **bad)
{
	u64 m[FMT_NR_MASKS] = { *compat, *ro_compat, *incompat };
	const char *s = list, *end;
	int ret;

	while (*s) {
		for (end = s; *end && *end != ','; end++)
			;
		ret = end > s ? fmt_feature_apply(s, end - s, m) : 0;
		if (ret) {
			if (bad)
				*bad = s;
			return ret;
		}
		s = *end ? end + 1 : end;
	}
	*compat = m[FMT_FM_COMPAT];
	*ro_compat = m[FMT_FM_RO_COMPAT];
	*incompat = m[FMT_FM_INCOMPAT];
	return 0;
}

struct fmt_strbuf {
	char	*buf;
	size_t	len, pos;
};

static void
fmt_putc(struct fmt_strbuf *b, char c)
{
	if (b->pos + 1 < b->len)
		b->buf[b->pos++] = c;
}

static void
fmt_puts(struct fmt_strbuf *b, const char *s)
{
	while (*s)
		fmt_putc(b, *s++);
}

void
gaze_fmt_feature_known(char *buf, size_t len)
{
	struct fmt_strbuf b = { buf, len, 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fmt_features); i++) {
		if (fmt_features[i].supp != 1)
			continue;
		if (b.pos)
			fmt_puts(&b, ", ");
		fmt_puts(&b, fmt_features[i].name);
	}
	if (len)
		buf[b.pos] = 0;
}

static void
fmt_putu(struct fmt_strbuf *b, u32 v)
{
	char tmp[10];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		fmt_putc(b, tmp[--n]);
}

/* Known bits by name; unknown ones as "incompat_bit5" and the like. */
void
gaze_fmt_feature_string(u64 compat, u64 ro_compat, u64 incompat, char *buf,
			size_t len)
{
	const u64 m[FMT_NR_MASKS] = { compat, ro_compat, incompat };
	struct fmt_strbuf b = { buf, len, 0 };
	const char *name;
	int mask, bit;

	if (!len)
		return;
	for (mask = 0; mask < FMT_NR_MASKS; mask++) {
		for (bit = 0; bit < 64; bit++) {
			if (!(m[mask] & (1ull << bit)))
				continue;
			if (b.pos)
				fmt_putc(&b, ',');
			name = gaze_fmt_feature_name(mask, bit);
			if (name) {
				fmt_puts(&b, name);
				continue;
			}
			fmt_puts(&b, fmt_mask_names[mask]);
			fmt_puts(&b, "_bit");
			fmt_putu(&b, bit);
		}
	}
	if (!b.pos)
		fmt_puts(&b, "none");
	buf[b.pos] = '\0';
}

/* ---------------------------------------------------------------- */
/* Superblock                                                        */
/* ---------------------------------------------------------------- */

/* copies a string into a NUL-padded field, always leaving a NUL */
static void
fmt_copy_padded(char *dst, const char *src, size_t size)
{
	size_t i;

	memset(dst, 0, size);
	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = src[i];
}

static void
fmt_super_geometry(struct gaze_super *sb, const struct gaze_mkfs_params *p,
		   const struct gaze_layout *l)
{
	const struct gaze_geometry *g = &p->geo;

	sb->block_size = cpu_to_le32(GAZE_BLOCK_SIZE);
	sb->zone_model = cpu_to_le32(g->model);
	sb->total_blocks = cpu_to_le64(g->nr_blocks);
	sb->zone_blocks = cpu_to_le32(g->zone_blocks);
	sb->zone_cap = cpu_to_le32(g->zone_cap);
	sb->nr_zones = cpu_to_le32(l->nr_zones);
	sb->nr_conv_zones = cpu_to_le32(g->nr_conv);
	sb->max_open = cpu_to_le32(g->max_open);
	sb->max_active = cpu_to_le32(g->max_active);
}

static void
fmt_super_layout(struct gaze_super *sb, const struct gaze_mkfs_params *p,
		 const struct gaze_layout *l)
{
	int t;

	sb->cp_zone_start = cpu_to_le32(l->cp_zone_start);
	sb->cp_zone_count = cpu_to_le32(l->cp_zone_count);
	sb->meta_zone_start = cpu_to_le32(l->meta_zone_start);
	sb->meta_zone_count = cpu_to_le32(l->meta_zone_count);
	sb->main_zone_start = cpu_to_le32(l->main_zone_start);
	sb->main_zone_count = cpu_to_le32(l->main_zone_count);
	sb->ovp_zones = cpu_to_le32(l->ovp_zones);
	sb->reserved_zones = cpu_to_le32(l->reserved_zones);
	sb->ovp_percent = cpu_to_le32(p->ovp_percent);	/* as requested */
	sb->nr_logs = cpu_to_le32(l->nr_logs);
	sb->max_nid = cpu_to_le32(l->max_nid);
	sb->root_ino = cpu_to_le32(GAZE_ROOT_INO);
	sb->user_blocks = cpu_to_le64(l->user_blocks);
	sb->usage_blocks_per_zone = cpu_to_le32(l->usage_blocks_per_zone);
	sb->summary_blocks_per_zone = cpu_to_le32(l->summary_blocks_per_zone);
	for (t = 0; t < GAZE_NR_TABLES; t++) {
		sb->table_blocks[t] = cpu_to_le32(l->table_blocks[t]);
		sb->table_index_blocks[t] =
			cpu_to_le32(l->table_index_blocks[t]);
	}
}

static void
fmt_super_tuning(struct gaze_super *sb, const struct gaze_mkfs_params *p,
		 const struct gaze_layout *l)
{
	int i;

	sb->gc_pool_blocks = cpu_to_le64(l->gc_pool_blocks);
	sb->dirty_limit_pct = cpu_to_le32(l->dirty_limit_pct);
	sb->gc_queue_depth = cpu_to_le32(l->gc_queue_depth);
	sb->victim_policy = cpu_to_le32(p->victim_policy);
	sb->bg_gc_low_pct = cpu_to_le32(l->bg_gc_low_pct);
	sb->bg_gc_high_pct = cpu_to_le32(l->bg_gc_high_pct);
	sb->compress_algo = p->compress_algo;
	sb->compress_level = p->compress_level;
	sb->compress_log_cluster = p->compress_log_cluster ?
				   p->compress_log_cluster :
				   FMT_CLUSTER_DEFAULT;
	for (i = 0; i < 4; i++)
		sb->dir_hash_seed[i] = cpu_to_le32(p->dir_hash_seed[i]);
	sb->mkfs_time = cpu_to_le64(p->mkfs_time);
	fmt_copy_padded(sb->label, p->label, sizeof(sb->label));
	fmt_copy_padded(sb->mkfs_version, p->version, sizeof(sb->mkfs_version));
}

void
gaze_fmt_super_build(struct gaze_super *sb, const struct gaze_mkfs_params *p,
		     const struct gaze_layout *l, u32 copy, u64 blkaddr)
{
	memset(sb, 0, sizeof(*sb));
	gaze_fmt_hdr_init(sb, GAZE_MAGIC_SB, p->uuid, blkaddr, 0, 0, 0, copy);
	sb->feature_compat = cpu_to_le64(p->feature_compat);
	sb->feature_ro_compat = cpu_to_le64(p->feature_ro_compat);
	sb->feature_incompat = cpu_to_le64(p->feature_incompat);
	fmt_super_geometry(sb, p, l);
	fmt_super_layout(sb, p, l);
	fmt_super_tuning(sb, p, l);
	gaze_fmt_csum_set(sb);
}

/* a NUL-terminated string followed only by NULs */
static bool
fmt_padded_ok(const char *s, size_t size)
{
	size_t i;

	for (i = 0; i < size && s[i]; i++)
		;
	return i < size && gaze_fmt_is_zero(s + i, size - i);
}

static int
fmt_super_hdr(const struct gaze_super *sb, u64 blkaddr, const char **why)
{
	u32 copy = le32_to_cpu(sb->hdr.index);

	if (sb->hdr.nid || sb->hdr.ino || sb->hdr.flags || sb->hdr.next)
		return fmt_bad(why, "super: nid, ino, flags and next must be zero");
	if (copy > 1)
		return fmt_bad(why, "super: copy number is not 0 or 1");
	if (blkaddr != (u64)copy * le32_to_cpu(sb->zone_blocks))
		return fmt_bad(why,
			       "super: copy is not at the start of its checkpoint zone");
	return 0;
}

static int
fmt_super_fields(const struct gaze_super *sb, const char **why)
{
	u32 model = le32_to_cpu(sb->zone_model);
	u32 victim = le32_to_cpu(sb->victim_policy);

	if (le32_to_cpu(sb->block_size) != GAZE_BLOCK_SIZE)
		return fmt_bad(why, "super: block size is not 4096");
	if (model != GAZE_ZM_HOST_MANAGED && model != GAZE_ZM_EMULATED)
		return fmt_bad(why, "super: unknown zone model");
	if (le32_to_cpu(sb->zone_cap) > le32_to_cpu(sb->zone_blocks))
		return fmt_bad(why, "super: zone capacity exceeds the zone size");
	if (le32_to_cpu(sb->root_ino) != GAZE_ROOT_INO)
		return fmt_bad(why, "super: root inode is not 2");
	if (victim != GAZE_GC_GREEDY && victim != GAZE_GC_COST_BENEFIT)
		return fmt_bad(why, "super: unknown GC victim policy");
	if (!fmt_padded_ok(sb->label, sizeof(sb->label)))
		return fmt_bad(why, "super: label is not NUL-terminated and padded");
	if (!fmt_padded_ok(sb->mkfs_version, sizeof(sb->mkfs_version)))
		return fmt_bad(why,
			       "super: mkfs version is not NUL-terminated and padded");
	if (sb->pad0 || !gaze_fmt_is_zero(sb->reserved, sizeof(sb->reserved)))
		return fmt_bad(why, "super: reserved bytes are not zero");
	if (le64_to_cpu(sb->feature_incompat) &
	    GAZE_FEATURE_INCOMPAT_META_UUID) {
		if (gaze_fmt_is_zero(sb->meta_uuid, sizeof(sb->meta_uuid)))
			return fmt_bad(why,
				       "super: feature meta_uuid without a metadata uuid");
	} else if (!gaze_fmt_is_zero(sb->meta_uuid, sizeof(sb->meta_uuid))) {
		return fmt_bad(why,
			       "super: metadata uuid set without feature meta_uuid");
	}
	return fmt_compress_check(sb->compress_algo, sb->compress_level,
				  sb->compress_log_cluster, true, why);
}

static bool
fmt_super_tables_match(const struct gaze_super *sb, const struct gaze_layout *l)
{
	int t;

	for (t = 0; t < GAZE_NR_TABLES; t++)
		if (le32_to_cpu(sb->table_blocks[t]) != l->table_blocks[t] ||
		    le32_to_cpu(sb->table_index_blocks[t]) !=
		    l->table_index_blocks[t])
			return false;
	return le32_to_cpu(sb->usage_blocks_per_zone) ==
	       l->usage_blocks_per_zone &&
	       le32_to_cpu(sb->summary_blocks_per_zone) ==
	       l->summary_blocks_per_zone &&
	       le32_to_cpu(sb->max_nid) == l->max_nid;
}

static bool
fmt_super_areas_match(const struct gaze_super *sb, const struct gaze_layout *l)
{
	return le32_to_cpu(sb->nr_zones) == l->nr_zones &&
	       le32_to_cpu(sb->cp_zone_start) == l->cp_zone_start &&
	       le32_to_cpu(sb->cp_zone_count) == l->cp_zone_count &&
	       le32_to_cpu(sb->meta_zone_start) == l->meta_zone_start &&
	       le32_to_cpu(sb->meta_zone_count) == l->meta_zone_count &&
	       le32_to_cpu(sb->main_zone_start) == l->main_zone_start &&
	       le32_to_cpu(sb->main_zone_count) == l->main_zone_count &&
	       le32_to_cpu(sb->ovp_zones) == l->ovp_zones &&
	       le32_to_cpu(sb->reserved_zones) == l->reserved_zones &&
	       le32_to_cpu(sb->nr_logs) == l->nr_logs &&
	       le64_to_cpu(sb->user_blocks) == l->user_blocks;
}

static bool
fmt_super_gc_match(const struct gaze_super *sb, const struct gaze_layout *l)
{
	return le64_to_cpu(sb->gc_pool_blocks) == l->gc_pool_blocks &&
	       le32_to_cpu(sb->dirty_limit_pct) == l->dirty_limit_pct &&
	       le32_to_cpu(sb->gc_queue_depth) == l->gc_queue_depth &&
	       le32_to_cpu(sb->bg_gc_low_pct) == l->bg_gc_low_pct &&
	       le32_to_cpu(sb->bg_gc_high_pct) == l->bg_gc_high_pct;
}

/*
 * Unknown feature bits are not rejected here: what to do about them
 * (refuse, mount read-only, ignore) is the caller's decision.
 */
int
gaze_fmt_super_verify(const struct gaze_super *sb, u64 blkaddr,
		      const char **why)
{
	struct gaze_layout l;
	int err;

	err = gaze_fmt_hdr_verify(sb, GAZE_MAGIC_SB, NULL, blkaddr, why);
	if (err)
		return err;
	err = fmt_super_hdr(sb, blkaddr, why);
	if (err)
		return err;
	err = fmt_super_fields(sb, why);
	if (err)
		return err;
	err = gaze_layout_from_super(sb, &l, why);
	if (err)
		return err;
	if (!fmt_super_areas_match(sb, &l))
		return fmt_bad(why,
			       "super: recorded zone layout differs from the computed one");
	if (!fmt_super_tables_match(sb, &l))
		return fmt_bad(why,
			       "super: recorded table geometry differs from the computed one");
	if (!fmt_super_gc_match(sb, &l))
		return fmt_bad(why,
			       "super: recorded GC settings differ from the computed ones");
	return 0;
}

/* ---------------------------------------------------------------- */
/* Checkpoint head                                                   */
/* ---------------------------------------------------------------- */

/* the pack lies inside a checkpoint zone, after its superblock copy */
static int
fmt_cp_location(const struct gaze_cp_head *cp, const struct gaze_super *sb,
		u64 blkaddr, const char **why)
{
	u32 zb = le32_to_cpu(sb->zone_blocks);
	u32 pack = le32_to_cpu(cp->pack_blocks);
	u64 zone = blkaddr / zb, ofs = blkaddr % zb;

	if (pack < 2)
		return fmt_bad(why, "cp: pack shorter than head and trailer");
	if (zone < le32_to_cpu(sb->cp_zone_start) ||
	    zone >= (u64)le32_to_cpu(sb->cp_zone_start) +
		    le32_to_cpu(sb->cp_zone_count) || ofs == 0)
		return fmt_bad(why, "cp: head is not inside a checkpoint zone");
	if (ofs + pack > le32_to_cpu(sb->zone_cap))
		return fmt_bad(why, "cp: pack runs past the zone capacity");
	return 0;
}

static int
fmt_cp_counts(const struct gaze_cp_head *cp, const struct gaze_super *sb,
	      const char **why)
{
	u32 main = le32_to_cpu(sb->main_zone_count);
	u64 main_blocks = (u64)main * le32_to_cpu(sb->zone_cap);
	u32 max_nid = le32_to_cpu(sb->max_nid);
	u32 flags = le32_to_cpu(cp->flags);

	if (flags & ~GAZE_CP_FLAGS_ALL)
		return fmt_bad(why, "cp: unknown flags");
	if (!(flags & GAZE_CP_ORPHANS) != !cp->nr_orphans)
		return fmt_bad(why,
			       "cp: orphan flag disagrees with the orphan count");
	if (le32_to_cpu(cp->nr_logs) != le32_to_cpu(sb->nr_logs))
		return fmt_bad(why, "cp: log count differs from the superblock");
	if (le64_to_cpu(cp->valid_blocks) > main_blocks ||
	    le64_to_cpu(cp->valid_nodes) > main_blocks)
		return fmt_bad(why, "cp: valid block count exceeds the main area");
	if (le32_to_cpu(cp->valid_inodes) >= max_nid ||
	    le32_to_cpu(cp->next_nid) >= max_nid ||
	    le32_to_cpu(cp->nr_orphans) >= max_nid)
		return fmt_bad(why, "cp: inode or nid count beyond max_nid");
	if (le32_to_cpu(cp->free_zones) > main)
		return fmt_bad(why, "cp: free zone count exceeds the main area");
	return 0;
}

static int
fmt_cp_log(const struct gaze_log_head *lh, const struct gaze_super *sb,
	   bool used, const char **why)
{
	u32 zone = le32_to_cpu(lh->zone);

	if (!used) {
		if ((zone && zone != FMT_NO_ZONE) || lh->offset || lh->type ||
		    lh->pad)
			return fmt_bad(why, "cp: unused log head is not empty");
		return 0;
	}
	if (zone != FMT_NO_ZONE && !fmt_zone_in(sb, zone, false))
		return fmt_bad(why, "cp: log head zone outside the main area");
	if (le32_to_cpu(lh->offset) > le32_to_cpu(sb->zone_cap))
		return fmt_bad(why, "cp: log head offset beyond zone capacity");
	if (le32_to_cpu(lh->type) >= GAZE_NR_LOG_TYPES)
		return fmt_bad(why, "cp: log head has an unknown log type");
	if (lh->pad)
		return fmt_bad(why, "cp: log head padding is not zero");
	return 0;
}

static int
fmt_cp_logs_meta(const struct gaze_cp_head *cp, const struct gaze_super *sb,
		 const char **why)
{
	u32 nr_logs = le32_to_cpu(cp->nr_logs);
	u32 cap = le32_to_cpu(sb->zone_cap);
	int i, err;

	for (i = 0; i < GAZE_MAX_LOGS; i++) {
		err = fmt_cp_log(&cp->logs[i], sb, (u32)i < nr_logs, why);
		if (err)
			return err;
	}
	if (!fmt_zone_in(sb, le32_to_cpu(cp->meta_head_zone), true) ||
	    le32_to_cpu(cp->meta_head_offset) > cap)
		return fmt_bad(why, "cp: meta ring head outside the meta area");
	if (!fmt_zone_in(sb, le32_to_cpu(cp->meta_tail_zone), true))
		return fmt_bad(why, "cp: meta ring tail outside the meta area");
	return 0;
}

static int
fmt_cp_tables(const struct gaze_cp_head *cp, const struct gaze_super *sb,
	      const char **why)
{
	u64 slots = (u64)(le32_to_cpu(cp->pack_blocks) - 2) *
		    GAZE_ADDRS_PER_BLOCK;
	int t;

	for (t = 0; t < GAZE_NR_TABLES; t++) {
		if (le32_to_cpu(cp->tables[t].nr_index) >
		    le32_to_cpu(sb->table_index_blocks[t]))
			return fmt_bad(why,
				       "cp: table root has more index blocks than the table");
		if (le32_to_cpu(cp->tables[t].payload_ofs) > slots)
			return fmt_bad(why,
				       "cp: table root points past the payload");
	}
	if (le32_to_cpu(cp->orphan_ofs) > slots)
		return fmt_bad(why, "cp: orphan list points past the payload");
	if (!gaze_fmt_is_zero(cp->reserved, sizeof(cp->reserved)))
		return fmt_bad(why, "cp: reserved bytes are not zero");
	return 0;
}

int
gaze_fmt_cp_head_verify(const struct gaze_cp_head *cp,
			const struct gaze_super *sb, u64 blkaddr,
			const char **why)
{
	int err;

	err = gaze_fmt_hdr_verify(cp, GAZE_MAGIC_CP_HEAD,
				  gaze_sb_meta_uuid(sb),
				  blkaddr, why);
	if (err)
		return err;
	err = fmt_cp_location(cp, sb, blkaddr, why);
	if (err)
		return err;
	err = fmt_cp_counts(cp, sb, why);
	if (err)
		return err;
	err = fmt_cp_logs_meta(cp, sb, why);
	if (err)
		return err;
	return fmt_cp_tables(cp, sb, why);
}

/* ---------------------------------------------------------------- */
/* Directory entries and xattr entries (shared by several blocks)    */
/* ---------------------------------------------------------------- */

/* no '/' or NUL, and not "." or ".." (those are never stored) */
static bool
fmt_name_ok(const u8 *name, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (name[i] == '/' || name[i] == '\0')
			return false;
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return false;
	return true;
}

static int
fmt_dirent_check(const struct gaze_dirent *de, u32 room, u32 max_nid,
		 const char **why)
{
	const u8 *name = (const u8 *)(de + 1);
	u32 nl = de->name_len;
	u32 rl = le16_to_cpu(de->rec_len);

	if (!nl)
		return fmt_bad(why, "dirent: name_len is zero");
	if (rl != GAZE_DIRENT_LEN(nl))
		return fmt_bad(why, "dirent: rec_len does not match name_len");
	if (rl > room)
		return fmt_bad(why, "dirent: entry runs past the used bytes");
	if (!de->ino || le32_to_cpu(de->ino) >= max_nid)
		return fmt_bad(why, "dirent: inode number is zero or beyond max_nid");
	if (de->file_type > FMT_DT_MAX)
		return fmt_bad(why, "dirent: unknown file type");
	if (!fmt_name_ok(name, nl))
		return fmt_bad(why, "dirent: name contains '/' or NUL, or is . or ..");
	if (!gaze_fmt_is_zero(name + nl, rl - sizeof(*de) - nl))
		return fmt_bad(why, "dirent: padding after the name is not zero");
	return 0;
}

/* walks entries that fill exactly `used` bytes; counts them */
static int
fmt_dirents_check(const u8 *p, u32 used, u32 max_nid, bool sorted, u32 *count,
		  const char **why)
{
	const struct gaze_dirent *de;
	u64 hash, prev = 0;
	u32 pos = 0, n = 0;
	int err;

	while (pos < used) {
		if (used - pos < sizeof(*de))
			return fmt_bad(why,
				       "dirent: entry header runs past the used bytes");
		de = (const struct gaze_dirent *)(p + pos);
		err = fmt_dirent_check(de, used - pos, max_nid, why);
		if (err)
			return err;
		hash = le64_to_cpu(de->hash);
		if (sorted && n && hash < prev)
			return fmt_bad(why, "dirent: entries are not sorted by hash");
		prev = hash;
		pos += le16_to_cpu(de->rec_len);
		n++;
	}
	*count = n;
	return 0;
}

static int
fmt_xattr_entry_check(const struct gaze_xattr_entry *e, u32 room,
		      const char **why)
{
	const u8 *name = (const u8 *)(e + 1);
	u32 nl = e->name_len, vl = le16_to_cpu(e->value_len);
	u32 len = ALIGN((u32)sizeof(*e) + nl + vl, 4u);
	u32 i;

	if (!e->index || e->index > GAZE_XATTR_INDEX_MAX)
		return fmt_bad(why, "xattr: unknown name index");
	/* the ACL indexes name the whole attribute; the suffix is empty */
	if (!nl && e->index < GAZE_XATTR_ACL_ACCESS)
		return fmt_bad(why, "xattr: name_len is zero");
	if (len > room)
		return fmt_bad(why, "xattr: entry runs past the used bytes");
	for (i = 0; i < nl; i++)
		if (!name[i])
			return fmt_bad(why, "xattr: name contains NUL");
	if (!gaze_fmt_is_zero(name + nl + vl, len - sizeof(*e) - nl - vl))
		return fmt_bad(why, "xattr: padding after the value is not zero");
	return 0;
}

static int
fmt_xattrs_check(const u8 *p, u32 used, const char **why)
{
	const struct gaze_xattr_entry *e;
	u32 pos = 0;
	int err;

	while (pos < used) {
		if (used - pos < sizeof(*e))
			return fmt_bad(why,
				       "xattr: entry header runs past the used bytes");
		e = (const struct gaze_xattr_entry *)(p + pos);
		err = fmt_xattr_entry_check(e, used - pos, why);
		if (err)
			return err;
		pos += ALIGN((u32)sizeof(*e) + e->name_len +
			     le16_to_cpu(e->value_len), 4u);
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Nodes                                                             */
/* ---------------------------------------------------------------- */

static bool
fmt_mode_type_ok(u32 type)
{
	switch (type) {
	case FMT_S_IFSOCK:
	case FMT_S_IFLNK:
	case FMT_S_IFREG:
	case FMT_S_IFBLK:
	case FMT_S_IFDIR:
	case FMT_S_IFCHR:
	case FMT_S_IFIFO:
		return true;
	}
	return false;
}

static int
fmt_inode_flags(const struct gaze_inode *in, const char **why)
{
	u32 type = le16_to_cpu(in->mode) & FMT_S_IFMT;
	u32 flags = le32_to_cpu(in->flags);
	bool dir = type == FMT_S_IFDIR;

	if (!fmt_mode_type_ok(type))
		return fmt_bad(why, "inode: unknown file type in mode");
	if (flags & ~GAZE_IF_ALL)
		return fmt_bad(why, "inode: unknown flags");
	if ((flags & GAZE_IF_INLINE_DATA) &&
	    type != FMT_S_IFREG && type != FMT_S_IFLNK)
		return fmt_bad(why,
			       "inode: inline data on a file that is not regular or a symlink");
	if ((flags & (GAZE_IF_INLINE_DENTRY | GAZE_IF_DIR_HASHED)) && !dir)
		return fmt_bad(why, "inode: directory flags on a non-directory");
	if ((flags & GAZE_IF_INLINE_DENTRY) && (flags & GAZE_IF_DIR_HASHED))
		return fmt_bad(why, "inode: directory both inline and hashed");
	if ((flags & GAZE_IF_COMPRESS) && in->compress_algo == GAZE_COMPRESS_NONE)
		return fmt_bad(why, "inode: compress flag without an algorithm");
	if ((flags & GAZE_IF_COMPRESS_LOCAL) && type != FMT_S_IFREG && !dir)
		return fmt_bad(why,
			       "inode: compression set on a file that is not regular or a directory");
	return fmt_compress_check(in->compress_algo, in->compress_level,
				  in->compress_log_cluster,
				  flags & GAZE_IF_COMPRESS, why);
}

static int
fmt_inode_fields(const struct gaze_inode *in, const struct gaze_super *sb,
		 const char **why)
{
	u32 max_nid = le32_to_cpu(sb->max_nid);
	int i;

	if (in->hdr.nid != in->hdr.ino)
		return fmt_bad(why, "inode: header nid and ino differ");
	if (in->pad0 || !gaze_fmt_is_zero(in->reserved, sizeof(in->reserved)))
		return fmt_bad(why, "inode: reserved bytes are not zero");
	for (i = 0; i < GAZE_NR_INODE_NIDS; i++)
		if (le32_to_cpu(in->nids[i]) >= max_nid)
			return fmt_bad(why, "inode: node pointer beyond max_nid");
	if (le32_to_cpu(in->xattr_nid) >= max_nid)
		return fmt_bad(why, "inode: xattr node beyond max_nid");
	if (le32_to_cpu(in->parent) >= max_nid)
		return fmt_bad(why, "inode: parent beyond max_nid");
	if (in->dir_depth > GAZE_DIR_MAX_DEPTH)
		return fmt_bad(why, "inode: directory depth beyond the maximum");
	if (le16_to_cpu(in->inline_used) > GAZE_INLINE_SIZE)
		return fmt_bad(why, "inode: inline_used exceeds the inline area");
	if (le16_to_cpu(in->inline_xattr_used) > GAZE_INLINE_XATTR_SIZE)
		return fmt_bad(why,
			       "inode: inline_xattr_used exceeds the inline xattr area");
	return 0;
}

static int
fmt_addrs_check(const __le64 *addr, u32 n, const struct gaze_super *sb,
		const char *msg, const char **why)
{
	struct fmt_area main;
	u32 i;

	fmt_area_main(&main, sb);
	for (i = 0; i < n; i++)
		if (!fmt_data_addr_ok(&main, le64_to_cpu(addr[i])))
			return fmt_bad(why, msg);
	return 0;
}

static int
fmt_inode_body(const struct gaze_inode *in, const struct gaze_super *sb,
	       const char **why)
{
	u32 flags = le32_to_cpu(in->flags);
	u32 count;
	int err;

	err = fmt_xattrs_check(in->i_xattr, le16_to_cpu(in->inline_xattr_used),
			       why);
	if (err)
		return err;
	if (flags & GAZE_IF_INLINE_DATA)
		return 0;
	if (flags & GAZE_IF_INLINE_DENTRY)
		return fmt_dirents_check(in->i.data,
					 le16_to_cpu(in->inline_used),
					 le32_to_cpu(sb->max_nid), false,
					 &count, why);
	return fmt_addrs_check(in->i.addr, GAZE_ADDRS_PER_INODE, sb,
			       "inode: block address outside the main area",
			       why);
}

int
gaze_fmt_inode_verify(const struct gaze_inode *in,
		      const struct gaze_super *sb, u64 blkaddr,
		      const char **why)
{
	int err;

	err = fmt_node_hdr(in, GAZE_MAGIC_INODE, sb, blkaddr, why);
	if (err)
		return err;
	err = fmt_inode_fields(in, sb, why);
	if (err)
		return err;
	err = fmt_inode_flags(in, why);
	if (err)
		return err;
	return fmt_inode_body(in, sb, why);
}

int
gaze_fmt_dnode_verify(const struct gaze_dnode *dn,
		      const struct gaze_super *sb, u64 blkaddr,
		      const char **why)
{
	int err;

	err = fmt_node_hdr(dn, GAZE_MAGIC_DNODE, sb, blkaddr, why);
	if (err)
		return err;
	if (dn->hdr.nid == dn->hdr.ino)
		return fmt_bad(why, "dnode: nid equals its owner inode");
	return fmt_addrs_check(dn->addr, GAZE_ADDRS_PER_DNODE, sb,
			       "dnode: block address outside the main area",
			       why);
}

int
gaze_fmt_ind_verify(const struct gaze_inode_ind *in,
		    const struct gaze_super *sb, u64 blkaddr,
		    const char **why)
{
	u32 max_nid = le32_to_cpu(sb->max_nid);
	int err;
	u32 i;

	err = fmt_node_hdr(in, GAZE_MAGIC_INODE_IND, sb, blkaddr, why);
	if (err)
		return err;
	if (in->hdr.nid == in->hdr.ino)
		return fmt_bad(why, "indirect node: nid equals its owner inode");
	for (i = 0; i < GAZE_NIDS_PER_INDIRECT; i++)
		if (le32_to_cpu(in->nid[i]) >= max_nid)
			return fmt_bad(why,
				       "indirect node: child nid beyond max_nid");
	return 0;
}

int
gaze_fmt_xattr_verify(const struct gaze_xattr_block *xb,
		      const struct gaze_super *sb, u64 blkaddr,
		      const char **why)
{
	u32 used = le32_to_cpu(xb->used);
	int err;

	err = fmt_node_hdr(xb, GAZE_MAGIC_XATTR, sb, blkaddr, why);
	if (err)
		return err;
	if (xb->hdr.nid == xb->hdr.ino)
		return fmt_bad(why, "xattr block: nid equals its owner inode");
	if (used > sizeof(xb->body))
		return fmt_bad(why, "xattr block: used exceeds the body");
	if (xb->pad)
		return fmt_bad(why, "xattr block: padding is not zero");
	return fmt_xattrs_check(xb->body, used, why);
}

int
gaze_fmt_node_verify(const void *blk, const struct gaze_super *sb, u32 magic,
		     u64 blkaddr, const char **why)
{
	switch (magic) {
	case GAZE_MAGIC_INODE:
		return gaze_fmt_inode_verify(blk, sb, blkaddr, why);
	case GAZE_MAGIC_DNODE:
		return gaze_fmt_dnode_verify(blk, sb, blkaddr, why);
	case GAZE_MAGIC_INODE_IND:
		return gaze_fmt_ind_verify(blk, sb, blkaddr, why);
	case GAZE_MAGIC_XATTR:
		return gaze_fmt_xattr_verify(blk, sb, blkaddr, why);
	}
	if (why)
		*why = "not a node magic";
	return -EFSCORRUPTED;
}

/* ---------------------------------------------------------------- */
/* Directory blocks                                                  */
/* ---------------------------------------------------------------- */

static int
fmt_dir_hdr(const void *blk, u32 magic, const struct gaze_super *sb,
	    u64 blkaddr, const char **why)
{
	const struct gaze_mhdr *h = blk;
	int err;

	err = gaze_fmt_hdr_verify(blk, magic, gaze_sb_meta_uuid(sb), blkaddr,
				  why);
	if (err)
		return err;
	if (!h->ino || le32_to_cpu(h->ino) >= le32_to_cpu(sb->max_nid))
		return fmt_bad(why,
			       "dir block: owner inode is zero or beyond max_nid");
	return fmt_plain_hdr(h, why);
}

int
gaze_fmt_dir_bucket_verify(const struct gaze_dir_bucket *b,
			   const struct gaze_super *sb, u64 blkaddr,
			   const char **why)
{
	u32 used = le16_to_cpu(b->used);
	u32 count;
	int err;

	err = fmt_dir_hdr(b, GAZE_MAGIC_DIR_BUCKET, sb, blkaddr, why);
	if (err)
		return err;
	if (le32_to_cpu(b->hdr.index) < GAZE_DIR_BUCKET_BASE)
		return fmt_bad(why, "dir bucket: logical block inside the hash index");
	if (used > GAZE_DIR_BUCKET_SPACE)
		return fmt_bad(why, "dir bucket: used exceeds the entry area");
	if (b->local_depth > GAZE_DIR_MAX_DEPTH)
		return fmt_bad(why, "dir bucket: local depth beyond the maximum");
	if (le32_to_cpu(b->overflow) > FMT_DIR_MAX_BUCKET)
		return fmt_bad(why, "dir bucket: overflow bucket number too large");
	if (b->pad || b->reserved)
		return fmt_bad(why, "dir bucket: reserved bytes are not zero");
	err = fmt_dirents_check(b->entries, used, le32_to_cpu(sb->max_nid),
				true, &count, why);
	if (err)
		return err;
	if (count != le32_to_cpu(b->nr_entries))
		return fmt_bad(why, "dir bucket: nr_entries differs from the entries");
	return 0;
}

int
gaze_fmt_dir_index_verify(const struct gaze_dir_index *di,
			  const struct gaze_super *sb, u64 blkaddr,
			  const char **why)
{
	int err;
	u32 i;

	err = fmt_dir_hdr(di, GAZE_MAGIC_DIR_INDEX, sb, blkaddr, why);
	if (err)
		return err;
	if (le32_to_cpu(di->hdr.index) >= GAZE_DIR_INDEX_BLOCKS)
		return fmt_bad(why, "dir index: logical block beyond the hash index");
	for (i = 0; i < GAZE_DIR_INDEX_PER_BLOCK; i++)
		if (le32_to_cpu(di->bucket[i]) > FMT_DIR_MAX_BUCKET)
			return fmt_bad(why, "dir index: bucket number too large");
	return 0;
}

/* ---------------------------------------------------------------- */
/* Table and table index blocks                                      */
/* ---------------------------------------------------------------- */

static const u32 fmt_table_magic[GAZE_NR_TABLES] = {
	[GAZE_TABLE_IMAP] = GAZE_MAGIC_IMAP,
	[GAZE_TABLE_ZINFO] = GAZE_MAGIC_ZINFO,
	[GAZE_TABLE_USAGE] = GAZE_MAGIC_USAGE,
	[GAZE_TABLE_SUMMARY] = GAZE_MAGIC_SUMMARY,
};

/* slots past the end of the table must be empty */
static int
fmt_tindex_body(const struct gaze_tindex *ti, u32 table, u32 index,
		const struct gaze_super *sb, const char **why)
{
	u64 first = (u64)index * GAZE_ADDRS_PER_BLOCK;
	u32 nblocks = le32_to_cpu(sb->table_blocks[table]);
	struct fmt_area meta;
	u64 a;
	u32 i;

	if (index >= le32_to_cpu(sb->table_index_blocks[table]))
		return fmt_bad(why, "table index: block number beyond the table");
	fmt_area_meta(&meta, sb);
	for (i = 0; i < GAZE_ADDRS_PER_BLOCK; i++) {
		a = le64_to_cpu(ti->addr[i]);
		if (!a)
			continue;
		if (first + i >= nblocks)
			return fmt_bad(why,
				       "table index: entry past the end of the table");
		if (!fmt_area_has(&meta, a))
			return fmt_bad(why,
				       "table index: address outside the meta area");
	}
	return 0;
}

static int
fmt_imap_body(const struct gaze_imap_block *b, u32 index,
	      const struct gaze_super *sb, const char **why)
{
	u64 first = (u64)index * GAZE_IMAP_PER_BLOCK;
	u32 max_nid = le32_to_cpu(sb->max_nid);
	struct fmt_area main;
	u64 a;
	u32 i;

	fmt_area_main(&main, sb);
	for (i = 0; i < GAZE_IMAP_PER_BLOCK; i++) {
		a = le64_to_cpu(b->addr[i]);
		if (!a)
			continue;
		if (first + i == GAZE_NID_INVALID || first + i >= max_nid)
			return fmt_bad(why, "imap: entry for nid 0 or beyond max_nid");
		if (!fmt_area_has(&main, a))
			return fmt_bad(why, "imap: node address outside the main area");
	}
	return 0;
}

static int
fmt_zinfo_body(const struct gaze_zinfo_block *b, u32 index,
	       const struct gaze_super *sb, const char **why)
{
	u64 first = (u64)index * GAZE_ZINFO_PER_BLOCK;
	u32 main = le32_to_cpu(sb->main_zone_count);
	const struct gaze_zinfo *z;
	u32 i;

	for (i = 0; i < GAZE_ZINFO_PER_BLOCK; i++) {
		z = &b->z[i];
		if (first + i >= main) {
			if (!gaze_fmt_is_zero(z, sizeof(*z)))
				return fmt_bad(why,
					       "zinfo: entry past the last main zone");
			continue;
		}
		if (z->state > GAZE_ZS_PREFREE)
			return fmt_bad(why, "zinfo: unknown zone state");
		if (z->log >= GAZE_NR_LOG_TYPES)
			return fmt_bad(why, "zinfo: unknown log type");
		if (z->flags)
			return fmt_bad(why, "zinfo: flags are not zero");
		if (le32_to_cpu(z->valid) > le32_to_cpu(sb->zone_cap))
			return fmt_bad(why, "zinfo: valid count exceeds zone capacity");
	}
	return 0;
}

/* bits for blocks at or past zone_cap are always clear */
static int
fmt_usage_body(const struct gaze_usage_block *b, u32 index,
	       const struct gaze_super *sb, const char **why)
{
	u32 bpz = le32_to_cpu(sb->usage_blocks_per_zone);
	u64 first = (u64)(index % bpz) * GAZE_USAGE_BITS_PER_BLOCK;
	u64 cap = le32_to_cpu(sb->zone_cap);
	u32 live, byte;

	if (first + GAZE_USAGE_BITS_PER_BLOCK <= cap)
		return 0;
	live = (u32)(cap - first);	/* bpz = ceil(cap / bits): first < cap */
	byte = live / 8;
	if (live % 8) {
		if (b->bits[byte] & (u8)(0xff << (live % 8)))
			return fmt_bad(why, "usage: bit set past the zone capacity");
		byte++;
	}
	if (!gaze_fmt_is_zero(b->bits + byte, sizeof(b->bits) - byte))
		return fmt_bad(why, "usage: bit set past the zone capacity");
	return 0;
}

static int
fmt_summary_body(const struct gaze_summary_block *b, u32 index,
		 const struct gaze_super *sb, const char **why)
{
	u32 bpz = le32_to_cpu(sb->summary_blocks_per_zone);
	u64 first = (u64)(index % bpz) * GAZE_SUMMARY_PER_BLOCK;
	u32 cap = le32_to_cpu(sb->zone_cap);
	u32 max_nid = le32_to_cpu(sb->max_nid);
	const struct gaze_summary *s;
	u32 i;

	for (i = 0; i < GAZE_SUMMARY_PER_BLOCK; i++) {
		s = &b->s[i];
		if (first + i >= cap) {
			if (!gaze_fmt_is_zero(s, sizeof(*s)))
				return fmt_bad(why,
					       "summary: entry past the zone capacity");
			continue;
		}
		if (s->type > GAZE_SUM_NODE)
			return fmt_bad(why, "summary: unknown type");
		if (s->flags)
			return fmt_bad(why, "summary: flags are not zero");
		if (s->type != GAZE_SUM_NONE &&
		    (!s->nid || le32_to_cpu(s->nid) >= max_nid))
			return fmt_bad(why, "summary: owner nid is zero or beyond max_nid");
		if (s->type == GAZE_SUM_DATA &&
		    le16_to_cpu(s->ofs) >= GAZE_ADDRS_PER_DNODE)
			return fmt_bad(why, "summary: slot beyond an address array");
	}
	return 0;
}

static int
fmt_table_body(const void *blk, u32 table, u32 index,
	       const struct gaze_super *sb, const char **why)
{
	if (index >= le32_to_cpu(sb->table_blocks[table]))
		return fmt_bad(why, "table: block number beyond the table");
	switch (table) {
	case GAZE_TABLE_IMAP:
		return fmt_imap_body(blk, index, sb, why);
	case GAZE_TABLE_ZINFO:
		return fmt_zinfo_body(blk, index, sb, why);
	case GAZE_TABLE_USAGE:
		return fmt_usage_body(blk, index, sb, why);
	default:
		return fmt_summary_body(blk, index, sb, why);
	}
}

/*
 * Verifies table block `index` of `table`, or index block `index` of it:
 * which one is told by the magic (GAZE_MAGIC_TINDEX or the table's own),
 * and the header's table id and block number must match the arguments.
 */
int
gaze_fmt_table_verify(const void *blk, u32 table, u32 index,
		      const struct gaze_super *sb, u64 blkaddr,
		      const char **why)
{
	const struct gaze_mhdr *h = blk;
	u32 magic;
	int err;

	if (table >= GAZE_NR_TABLES) {
		if (why)
			*why = "table: unknown table id";
		return -EINVAL;
	}
	magic = le32_to_cpu(h->magic) == GAZE_MAGIC_TINDEX ?
		GAZE_MAGIC_TINDEX : fmt_table_magic[table];
	err = gaze_fmt_hdr_verify(blk, magic, gaze_sb_meta_uuid(sb), blkaddr,
				  why);
	if (err)
		return err;
	if (le32_to_cpu(h->nid) != table)
		return fmt_bad(why, "table: header names another table");
	if (le32_to_cpu(h->index) != index)
		return fmt_bad(why, "table: header block number mismatch");
	if (h->ino)
		return fmt_bad(why, "table: header ino is not zero");
	err = fmt_plain_hdr(h, why);
	if (err)
		return err;
	if (magic == GAZE_MAGIC_TINDEX)
		return fmt_tindex_body(blk, table, index, sb, why);
	return fmt_table_body(blk, table, index, sb, why);
}
