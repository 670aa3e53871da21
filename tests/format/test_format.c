// SPDX-License-Identifier: GPL-2.0
/*
 * test_format.c - format.c against hand-built blocks: the block checksum,
 * every verifier accepting a good block and rejecting one targeted
 * corruption of each field it checks (with the error code and a reason),
 * the static sizes of the format, and the feature and compression names.
 *
 * A corruption is an (offset, size, value) write into a copy of a good
 * block, after which the checksum is recomputed, so each case reaches
 * the check it aims at instead of stopping at the crc.
 */
#include <stdlib.h>
#include <string.h>

#include "gaze_core.h"
#include "../tap.h"

/* test filesystem: 64 zones of 4096 blocks, 4000 writable */
#define ZB		4096u
#define CAP		4000u
#define MAIN0		(4ull * ZB)		/* first main-area block */
#define META0		(2ull * ZB)		/* first meta-area block */
#define BAD_U32		0xffffffffull
#define MAXNID		240000u		/* 60 main zones x 4000 */

static struct gaze_super sb;
static u32 max_nid;

typedef int (*verify_fn)(const void *blk, u64 at, const char **why);

struct mut {
	const char	*desc;
	size_t		ofs;
	size_t		size;
	u64		val;
	const char	*want;		/* substring of the reason */
};

#define FSZ(type, field)	sizeof(((type *)0)->field)
#define M(type, field, v, w) \
	{ #field " = " #v, offsetof(type, field), FSZ(type, field), (v), (w) }

static u8 *
blk_alloc(void)
{
	u8 *b = aligned_alloc(GAZE_BLOCK_SIZE, GAZE_BLOCK_SIZE);

	memset(b, 0, GAZE_BLOCK_SIZE);
	return b;
}

/* little-endian store; longer fields (reserved arrays) get their last byte */
static void
put_field(u8 *p, size_t size, u64 v)
{
	size_t i;

	if (size > 8) {
		p[size - 1] = (u8)v;
		return;
	}
	for (i = 0; i < size; i++)
		p[i] = (u8)(v >> (8 * i));
}

/* good block passes; each mutation fails with -EFSCORRUPTED and a reason */
static void
run_muts(const char *name, const void *good, u64 at, verify_fn fn,
	 const struct mut *m, size_t n)
{
	u8 *b = blk_alloc();
	const char *why = NULL;
	size_t i;
	int err;

	err = fn(good, at, &why);
	tap_ok(!err, "%s: good block verifies (%s)", name, err ? why : "ok");
	for (i = 0; i < n; i++) {
		memcpy(b, good, GAZE_BLOCK_SIZE);
		put_field(b + m[i].ofs, m[i].size, m[i].val);
		gaze_fmt_csum_set(b);
		why = NULL;
		err = fn(b, at, &why);
		tap_ok(err == -EFSCORRUPTED && why && strstr(why, m[i].want),
		       "%s: %s -> %d (%s)", name, m[i].desc, err,
		       why ? why : "no reason");
	}
	free(b);
}

/* a mutation that must still verify (values the format allows) */
static void
run_ok(const char *name, const void *good, u64 at, verify_fn fn,
	 const struct mut *m)
{
	u8 *b = blk_alloc();
	const char *why = NULL;
	int err;

	memcpy(b, good, GAZE_BLOCK_SIZE);
	put_field(b + m->ofs, m->size, m->val);
	gaze_fmt_csum_set(b);
	err = fn(b, at, &why);
	tap_ok(!err, "%s: %s is accepted (%s)", name, m->desc, err ? why : "ok");
	free(b);
}

/* ---------------------------------------------------------------- */
/* Setup                                                             */
/* ---------------------------------------------------------------- */

static void
test_params(struct gaze_mkfs_params *p, u32 zb, u32 cap)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->geo.zone_blocks = zb;
	p->geo.zone_cap = cap;
	p->geo.nr_zones = 64;
	p->geo.nr_blocks = 64ull * zb + 17;
	p->geo.model = GAZE_ZM_EMULATED;
	gaze_fmt_feature_defaults(&p->feature_compat, &p->feature_ro_compat,
				  &p->feature_incompat);
	for (i = 0; i < 16; i++)
		p->uuid[i] = 0xa0 + i;
	for (i = 0; i < 4; i++)
		p->dir_hash_seed[i] = 0x11111111u * (i + 1);
	p->mkfs_time = 1700000000;
	strcpy(p->label, "test");
	strcpy(p->version, "gaze-0.1");
}

static int
setup_super(void)
{
	struct gaze_mkfs_params p;
	struct gaze_layout l;
	const char *why;

	test_params(&p, ZB, CAP);
	if (gaze_layout_compute(&p, &l, &why)) {
		printf("# layout: %s\n", why);
		return -1;
	}
	gaze_fmt_super_build(&sb, &p, &l, 0, 0);
	max_nid = l.max_nid;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Checksums, header, static sizes                                   */
/* ---------------------------------------------------------------- */

static void
test_crc(void)
{
	u8 *b = blk_alloc(), *c = blk_alloc();
	const char *why = NULL;
	u32 crc, i;

	for (i = 0; i < GAZE_BLOCK_SIZE; i++)
		b[i] = (u8)(i * 7 + 3);
	memcpy(c, b, GAZE_BLOCK_SIZE);
	memset(c + 4, 0, 4);
	crc = ~gaze_crc32c(~0u, c, GAZE_BLOCK_SIZE);
	tap_ok(gaze_fmt_block_crc(b) == crc,
	       "block crc = crc32c of the block with the crc field zeroed");
	b[5] ^= 0xff;
	tap_ok(gaze_fmt_block_crc(b) == crc, "block crc ignores the crc field");
	gaze_fmt_hdr_init(b, GAZE_MAGIC_DNODE, sb.hdr.uuid, 77, 5, 9, 8, 0);
	gaze_fmt_csum_set(b);
	tap_ok(le32_to_cpu(((struct gaze_mhdr *)b)->crc) ==
	       gaze_fmt_block_crc(b), "csum_set stores the block crc");
	tap_ok(!gaze_fmt_hdr_verify(b, GAZE_MAGIC_DNODE, sb.hdr.uuid, 77, &why),
	       "header verifies after csum_set");
	tap_ok(!gaze_fmt_hdr_verify(b, GAZE_MAGIC_DNODE, NULL, 77, &why),
	       "header verifies without a uuid to compare");
	b[GAZE_BLOCK_SIZE - 1] ^= 1;
	tap_ok(gaze_fmt_hdr_verify(b, GAZE_MAGIC_DNODE, sb.hdr.uuid, 77,
				   &why) == -EFSBADCRC && strstr(why, "checksum"),
	       "a flipped bit in the body gives -EFSBADCRC");
	free(b);
	free(c);
}

static void
test_static_sizes(void)
{
	tap_ok(sizeof(struct gaze_mhdr) == 64 &&
	       offsetof(struct gaze_mhdr, crc) == 4, "header: 64 bytes, crc at 4");
	tap_ok(sizeof(struct gaze_super) == 4096 &&
	       sizeof(struct gaze_cp_head) == 4096 &&
	       sizeof(struct gaze_inode) == 4096 &&
	       sizeof(struct gaze_dir_bucket) == 4096 &&
	       sizeof(struct gaze_xattr_block) == 4096 &&
	       sizeof(struct gaze_cp_trailer) == 4096, "blocks are 4096 bytes");
	tap_ok(GAZE_ADDRS_PER_BLOCK == 504 && GAZE_ZINFO_PER_BLOCK == 252 &&
	       GAZE_USAGE_BITS_PER_BLOCK == 32256 &&
	       GAZE_SUMMARY_PER_BLOCK == 504, "table entries per block");
	tap_ok(GAZE_INLINE_SIZE == 3584 && GAZE_ADDRS_PER_INODE == 448 &&
	       GAZE_NIDS_PER_INDIRECT == 1008 &&
	       GAZE_DIR_INDEX_PER_BLOCK == 1008 &&
	       GAZE_DIR_BUCKET_SPACE == 4016, "node and directory capacities");
	tap_ok(GAZE_DIRENT_LEN(1) == 24 && GAZE_DIRENT_LEN(8) == 24 &&
	       GAZE_DIRENT_LEN(9) == 32 && GAZE_DIRENT_LEN(255) == 272,
	       "dirent record lengths");
	tap_ok(offsetof(struct gaze_inode, i_xattr) == 256 &&
	       offsetof(struct gaze_inode, i) == 512 &&
	       offsetof(struct gaze_super, feature_compat) == 64,
	       "key offsets");
}

/* ---------------------------------------------------------------- */
/* Superblock                                                        */
/* ---------------------------------------------------------------- */

static int
v_super(const void *b, u64 at, const char **why)
{
	return gaze_fmt_super_verify(b, at, why);
}

static const struct mut super_muts[] = {
	M(struct gaze_super, hdr.magic, 1, "magic"),
	M(struct gaze_super, hdr.hdr_version, 2, "version"),
	M(struct gaze_super, hdr.blkaddr, 1, "block address"),
	M(struct gaze_super, hdr.flags, 1, "super: nid"),
	M(struct gaze_super, hdr.flags, 0x100, "header: unknown flags"),
	M(struct gaze_super, hdr.nid, 1, "super: nid"),
	M(struct gaze_super, hdr.next, 1, "super: nid"),
	M(struct gaze_super, hdr.index, 2, "copy number"),
	M(struct gaze_super, hdr.index, 1, "start of its checkpoint zone"),
	M(struct gaze_super, block_size, 8192, "block size"),
	M(struct gaze_super, zone_model, 3, "zone model"),
	M(struct gaze_super, zone_cap, ZB + 1, "capacity"),
	M(struct gaze_super, root_ino, 3, "root"),
	M(struct gaze_super, victim_policy, 2, "victim"),
	M(struct gaze_super, label[63], 'x', "label"),
	M(struct gaze_super, label[10], 'x', "label"),
	M(struct gaze_super, mkfs_version[31], 'x', "version"),
	M(struct gaze_super, pad0, 1, "reserved"),
	M(struct gaze_super, reserved, 1, "reserved"),
	M(struct gaze_super, meta_uuid, 1, "metadata uuid set without"),
	M(struct gaze_super, feature_incompat,
	  GAZE_FEATURE_INCOMPAT_INLINE_DATA | GAZE_FEATURE_INCOMPAT_META_UUID,
	  "meta_uuid without a metadata uuid"),
	M(struct gaze_super, compress_algo, 4, "compression"),
	M(struct gaze_super, compress_level, 1, "compression"),
	M(struct gaze_super, compress_log_cluster, 0, "compression"),
	M(struct gaze_super, compress_log_cluster, 9, "compression"),
	M(struct gaze_super, total_blocks, 64 * ZB - 1, "geometry"),
	M(struct gaze_super, nr_zones, 63, "layout"),
	M(struct gaze_super, zone_blocks, 128, "zone"),
	M(struct gaze_super, max_open, 3, "open zone"),
	M(struct gaze_super, cp_zone_start, 1, "zone layout"),
	M(struct gaze_super, cp_zone_count, 3, "zone layout"),
	M(struct gaze_super, meta_zone_start, 3, "zone layout"),
	M(struct gaze_super, meta_zone_count, 3, "zone layout"),
	M(struct gaze_super, main_zone_start, 5, "zone layout"),
	M(struct gaze_super, main_zone_count, 59, "zone layout"),
	M(struct gaze_super, ovp_zones, 9, "zone layout"),
	M(struct gaze_super, reserved_zones, 7, "zone layout"),
	M(struct gaze_super, ovp_percent, 60, "over-provisioning"),
	M(struct gaze_super, ovp_percent, 20, "zone layout"),
	M(struct gaze_super, nr_logs, 7, "logs"),
	M(struct gaze_super, nr_logs, 0, "zero"),
	M(struct gaze_super, nr_logs, 5, "zone layout"),
	M(struct gaze_super, user_blocks, 1, "zone layout"),
	M(struct gaze_super, max_nid, 1024, "table geometry"),
	M(struct gaze_super, usage_blocks_per_zone, 2, "table geometry"),
	M(struct gaze_super, summary_blocks_per_zone, 2, "table geometry"),
	M(struct gaze_super, table_blocks[1], 2, "table geometry"),
	M(struct gaze_super, table_index_blocks[3], 3, "table geometry"),
	M(struct gaze_super, gc_pool_blocks, 100, "pool"),
	M(struct gaze_super, gc_pool_blocks, 0, "zero"),
	M(struct gaze_super, dirty_limit_pct, 95, "dirty"),
	M(struct gaze_super, gc_queue_depth, 5000, "queue"),
	M(struct gaze_super, bg_gc_low_pct, 10, "GC settings"),
	M(struct gaze_super, bg_gc_high_pct, 50, "GC settings"),
};

static void
test_super(void)
{
	static const struct mut ok_muts[] = {
		M(struct gaze_super, feature_incompat, 1ull << 40, ""),
		M(struct gaze_super, feature_ro_compat, 1, ""),
		M(struct gaze_super, gc_pool_blocks, 300, ""),
		M(struct gaze_super, hdr.seq, 12345, ""),
		M(struct gaze_super, dir_hash_seed[2], 0, ""),
	};
	struct gaze_super *s1 = (void *)blk_alloc();
	struct gaze_mkfs_params p;
	struct gaze_layout l;
	const char *why = NULL;
	size_t i;

	run_muts("super", &sb, 0, v_super, super_muts, ARRAY_SIZE(super_muts));
	for (i = 0; i < ARRAY_SIZE(ok_muts); i++)
		run_ok("super", &sb, 0, v_super, &ok_muts[i]);

	test_params(&p, ZB, CAP);
	gaze_layout_compute(&p, &l, &why);
	gaze_fmt_super_build(s1, &p, &l, 1, ZB);
	tap_ok(!gaze_fmt_super_verify(s1, ZB, &why),
	       "super copy 1 verifies at the start of zone 1");
	tap_ok(gaze_fmt_super_verify(s1, 0, &why) == -EFSCORRUPTED,
	       "super copy 1 read from block 0 is rejected");
	tap_ok(!strcmp(sb.label, "test") && !strcmp(sb.mkfs_version, "gaze-0.1") &&
	       sb.compress_log_cluster == 2 && !sb.ovp_percent,
	       "super records label, version, default cluster, requested ovp");
	memset(p.label, 'L', sizeof(p.label));
	gaze_fmt_super_build(s1, &p, &l, 0, 0);
	tap_ok(!gaze_fmt_super_verify(s1, 0, &why) && s1->label[62] == 'L' &&
	       !s1->label[63], "an over-long label is cut and NUL-terminated");
	free(s1);
}

/* ---------------------------------------------------------------- */
/* Checkpoint head                                                   */
/* ---------------------------------------------------------------- */

#define CP_AT	1ull		/* zone 0, after the superblock */

static int
v_cp(const void *b, u64 at, const char **why)
{
	return gaze_fmt_cp_head_verify(b, &sb, at, why);
}

static void
build_cp(struct gaze_cp_head *cp, u64 at)
{
	int i;

	memset(cp, 0, sizeof(*cp));
	gaze_fmt_hdr_init(cp, GAZE_MAGIC_CP_HEAD, sb.hdr.uuid, at, 7, 0, 0, 0);
	cp->pack_blocks = cpu_to_le32(3);
	cp->flags = cpu_to_le32(GAZE_CP_MKFS | GAZE_CP_ORPHANS);
	cp->valid_blocks = cpu_to_le64(100);
	cp->valid_nodes = cpu_to_le64(10);
	cp->valid_inodes = cpu_to_le32(2);
	cp->next_nid = cpu_to_le32(3);
	cp->free_zones = cpu_to_le32(54);
	cp->nr_orphans = cpu_to_le32(1);
	cp->orphan_ofs = cpu_to_le32(4);
	cp->nr_logs = sb.nr_logs;
	for (i = 0; i < GAZE_MAX_LOGS; i++) {
		bool used = i < (int)le32_to_cpu(sb.nr_logs);

		cp->logs[i].zone = cpu_to_le32(used ? 4u + i : 0xffffffffu);
		cp->logs[i].offset = cpu_to_le32(used ? 10 * i : 0);
		cp->logs[i].type = cpu_to_le32(used ? i : 0);
	}
	cp->meta_head_zone = cpu_to_le32(2);
	cp->meta_head_offset = cpu_to_le32(20);
	cp->meta_tail_zone = cpu_to_le32(2);
	for (i = 0; i < GAZE_NR_TABLES; i++) {
		cp->tables[i].nr_index = cpu_to_le32(1);
		cp->tables[i].payload_ofs = cpu_to_le32(i);
	}
	gaze_fmt_csum_set(cp);
}

static const struct mut cp_muts[] = {
	M(struct gaze_cp_head, hdr.magic, GAZE_MAGIC_CP_TRAIL, "magic"),
	M(struct gaze_cp_head, hdr.uuid[3], 0, "uuid"),
	M(struct gaze_cp_head, pack_blocks, 1, "pack"),
	M(struct gaze_cp_head, pack_blocks, CAP, "runs past"),
	M(struct gaze_cp_head, flags, 0x10, "unknown flags"),
	M(struct gaze_cp_head, flags, GAZE_CP_MKFS, "orphan"),
	M(struct gaze_cp_head, nr_orphans, 0, "orphan"),
	M(struct gaze_cp_head, nr_logs, 5, "log count"),
	M(struct gaze_cp_head, valid_blocks, 60ull * CAP + 1, "valid block"),
	M(struct gaze_cp_head, valid_nodes, 60ull * CAP + 1, "valid block"),
	M(struct gaze_cp_head, valid_inodes, MAXNID, "max_nid"),
	M(struct gaze_cp_head, next_nid, MAXNID, "max_nid"),
	M(struct gaze_cp_head, free_zones, 61, "free zone"),
	M(struct gaze_cp_head, logs[0].zone, 3, "main area"),
	M(struct gaze_cp_head, logs[0].zone, 64, "main area"),
	M(struct gaze_cp_head, logs[1].offset, CAP + 1, "offset"),
	M(struct gaze_cp_head, logs[2].type, 6, "log type"),
	M(struct gaze_cp_head, logs[3].pad, 1, "padding"),
	M(struct gaze_cp_head, logs[6].offset, 1, "unused log head"),
	M(struct gaze_cp_head, logs[7].zone, 5, "unused log head"),
	M(struct gaze_cp_head, meta_head_zone, 4, "meta ring head"),
	M(struct gaze_cp_head, meta_head_offset, CAP + 1, "meta ring head"),
	M(struct gaze_cp_head, meta_tail_zone, 1, "meta ring tail"),
	M(struct gaze_cp_head, tables[2].nr_index, 2, "index blocks"),
	M(struct gaze_cp_head, tables[0].payload_ofs, 505, "payload"),
	M(struct gaze_cp_head, orphan_ofs, 600, "orphan"),
	M(struct gaze_cp_head, reserved, 1, "reserved"),
};

static void
test_cp(void)
{
	static const struct mut ok_muts[] = {
		M(struct gaze_cp_head, logs[1].zone, BAD_U32, ""),
		M(struct gaze_cp_head, logs[7].zone, 0, ""),
		M(struct gaze_cp_head, logs[0].offset, CAP, ""),
		M(struct gaze_cp_head, tables[0].payload_ofs, 504, ""),
		M(struct gaze_cp_head, meta_head_zone, 3, ""),
	};
	struct gaze_cp_head *cp = (void *)blk_alloc();
	const char *why;
	size_t i;

	build_cp(cp, CP_AT);
	run_muts("cp head", cp, CP_AT, v_cp, cp_muts, ARRAY_SIZE(cp_muts));
	for (i = 0; i < ARRAY_SIZE(ok_muts); i++)
		run_ok("cp head", cp, CP_AT, v_cp, &ok_muts[i]);
	build_cp(cp, ZB + 100);
	tap_ok(!v_cp(cp, ZB + 100, &why), "cp head in zone 1 verifies");
	build_cp(cp, 0);
	tap_ok(v_cp(cp, 0, &why) == -EFSCORRUPTED && strstr(why, "checkpoint zone"),
	       "cp head on the superblock's block is rejected");
	build_cp(cp, 2 * ZB + 1);
	tap_ok(v_cp(cp, 2 * ZB + 1, &why) == -EFSCORRUPTED,
	       "cp head in a meta zone is rejected");
	build_cp(cp, CP_AT);
	tap_ok(v_cp(cp, CP_AT + 1, &why) == -EFSCORRUPTED &&
	       strstr(why, "location"), "cp head read from the wrong block");
	free(cp);
}

/* ---------------------------------------------------------------- */
/* Inodes                                                            */
/* ---------------------------------------------------------------- */

#define INO_AT		(MAIN0 + 100)
#define INO		77u
#define I_OFS(f)	offsetof(struct gaze_inode, f)

static int
v_inode(const void *b, u64 at, const char **why)
{
	return gaze_fmt_inode_verify(b, &sb, at, why);
}

static void
inode_hdr(struct gaze_inode *in, u32 mode, u32 flags)
{
	memset(in, 0, sizeof(*in));
	gaze_fmt_hdr_init(in, GAZE_MAGIC_INODE, sb.hdr.uuid, INO_AT, 3, INO,
			  INO, 0);
	in->mode = cpu_to_le16(mode);
	in->nlink = cpu_to_le32(1);
	in->flags = cpu_to_le32(flags);
	in->parent = cpu_to_le32(GAZE_ROOT_INO);
}

/* user.mime = "text" and an ACL (empty name) in the inline xattr area */
static void
inode_xattrs(struct gaze_inode *in)
{
	u8 *x = in->i_xattr;

	x[0] = GAZE_XATTR_USER;
	x[1] = 4;
	x[2] = 4;
	memcpy(x + 4, "mimetext", 8);
	x[12] = GAZE_XATTR_ACL_ACCESS;
	x[13] = 0;
	x[14] = 6;
	memcpy(x + 16, "aclval", 6);
	in->inline_xattr_used = cpu_to_le16(24);
}

/* regular file: block map with real, preallocated and cluster slots */
static void
build_reg(struct gaze_inode *in)
{
	inode_hdr(in, 0100644, 0);
	in->size = cpu_to_le64(5 * 4096);
	in->nids[0] = cpu_to_le32(500);
	in->xattr_nid = cpu_to_le32(501);
	in->i.addr[0] = cpu_to_le64(MAIN0);
	in->i.addr[1] = cpu_to_le64(MAIN0 + CAP - 1);
	in->i.addr[2] = cpu_to_le64(GAZE_ADDR_PREALLOC);
	in->i.addr[4] = cpu_to_le64(GAZE_ADDR_CLUSTER(3));
	in->i.addr[447] = cpu_to_le64(64ull * ZB - ZB + 5);
	inode_xattrs(in);
	gaze_fmt_csum_set(in);
}

static const struct mut reg_muts[] = {
	M(struct gaze_inode, hdr.ino, INO + 1, "nid and ino"),
	M(struct gaze_inode, hdr.nid, 0, "nid is zero"),
	M(struct gaze_inode, hdr.nid, MAXNID, "max_nid"),
	M(struct gaze_inode, hdr.flags, 8, "header: unknown flags"),
	M(struct gaze_inode, mode, 0, "file type"),
	M(struct gaze_inode, mode, 0170644, "file type"),
	M(struct gaze_inode, flags, 0x800, "unknown flags"),
	M(struct gaze_inode, flags, GAZE_IF_INLINE_DENTRY, "directory flags"),
	M(struct gaze_inode, flags, GAZE_IF_DIR_HASHED, "directory flags"),
	M(struct gaze_inode, pad0, 1, "reserved"),
	M(struct gaze_inode, reserved, 1, "reserved"),
	M(struct gaze_inode, nids[4], MAXNID, "node pointer"),
	M(struct gaze_inode, xattr_nid, MAXNID, "xattr node"),
	M(struct gaze_inode, parent, MAXNID, "parent"),
	M(struct gaze_inode, dir_depth, 20, "depth"),
	M(struct gaze_inode, inline_used, GAZE_INLINE_SIZE + 1, "inline_used"),
	M(struct gaze_inode, inline_xattr_used, 257, "inline_xattr_used"),
	M(struct gaze_inode, compress_algo, 4, "unknown algorithm"),
	M(struct gaze_inode, compress_level, 1, "level"),
	M(struct gaze_inode, compress_log_cluster, 9, "cluster"),
	M(struct gaze_inode, flags, GAZE_IF_COMPRESS, "without an algorithm"),
	M(struct gaze_inode, i.addr[4], 1, "outside the main area"),
	M(struct gaze_inode, i.addr[4], MAIN0 - 1, "outside the main area"),
	M(struct gaze_inode, i.addr[4], MAIN0 + CAP, "outside the main area"),
	M(struct gaze_inode, i.addr[4], 64ull * ZB, "outside the main area"),
	M(struct gaze_inode, i.addr[4], 0xfffffffffffff000ull, "outside"),
	M(struct gaze_inode, i.addr[4], 0xfffffffffffff100ull, "outside"),
	M(struct gaze_inode, i.addr[4], 0xfffffffffffff200ull, "outside"),
	/* inline xattr area: first entry at 0, the ACL entry at 12 */
	M(struct gaze_inode, i_xattr[0], 0, "name index"),
	M(struct gaze_inode, i_xattr[0], 6, "name index"),
	M(struct gaze_inode, i_xattr[1], 0, "name_len is zero"),
	M(struct gaze_inode, i_xattr[2], 200, "runs past"),
	M(struct gaze_inode, i_xattr[5], 0, "NUL"),
	M(struct gaze_inode, i_xattr[23], 1, "padding"),
	M(struct gaze_inode, inline_xattr_used, 20, "runs past"),
	M(struct gaze_inode, inline_xattr_used, 26, "entry header"),
};

static const struct mut reg_ok_muts[] = {
	M(struct gaze_inode, hdr.flags, GAZE_NF_FSYNC | GAZE_NF_DENTRY, ""),
	M(struct gaze_inode, mode, 0020600, ""),
	M(struct gaze_inode, mode, 0140777, ""),
	M(struct gaze_inode, inline_xattr_used, 12, ""),
	M(struct gaze_inode, inline_used, GAZE_INLINE_SIZE, ""),
	M(struct gaze_inode, compress_algo, GAZE_COMPRESS_ZSTD, ""),
	M(struct gaze_inode, flags, GAZE_IF_COMPRESS_LOCAL, ""),
	M(struct gaze_inode, dir_depth, 19, ""),
};

/* a directory with two inline entries */
static void
build_dir_inline(struct gaze_inode *in)
{
	struct gaze_dirent *de = (void *)in->i.data;

	inode_hdr(in, 040755, GAZE_IF_INLINE_DENTRY);
	in->nlink = cpu_to_le32(3);
	de->hash = cpu_to_le64(900);
	de->ino = cpu_to_le32(3);
	de->rec_len = cpu_to_le16(24);
	de->name_len = 1;
	de->file_type = 1;
	memcpy(de + 1, "a", 1);
	de = (void *)(in->i.data + 24);
	de->hash = cpu_to_le64(100);		/* inline: order is free */
	de->ino = cpu_to_le32(4);
	de->rec_len = cpu_to_le16(24);
	de->name_len = 3;
	de->file_type = 4;
	memcpy(de + 1, "sub", 3);
	in->inline_used = cpu_to_le16(48);
	in->dir_nentries = cpu_to_le32(2);
	gaze_fmt_csum_set(in);
}

#define IDE(n, f)	(I_OFS(i.data) + 24 * (n) + offsetof(struct gaze_dirent, f))
#define IDN(n, k)	(I_OFS(i.data) + 24 * (n) + 16 + (k))

static const struct mut dir_muts[] = {
	{ "dirent name_len 0", IDE(0, name_len), 1, 0, "name_len is zero" },
	{ "dirent rec_len 32", IDE(0, rec_len), 2, 32, "rec_len" },
	{ "dirent ino 0", IDE(1, ino), 4, 0, "inode number" },
	{ "dirent ino max_nid", IDE(1, ino), 4, MAXNID, "inode number" },
	{ "dirent file_type 15", IDE(1, file_type), 1, 15, "file type" },
	{ "dirent name '/'", IDN(1, 1), 1, '/', "name" },
	{ "dirent name NUL", IDN(1, 0), 1, 0, "name" },
	{ "dirent name '.'", IDN(0, 0), 1, '.', "name" },
	{ "dirent padding", IDN(0, 7), 1, 1, "padding" },
	{ "inline_used 40", I_OFS(inline_used), 2, 40, "runs past" },
	{ "inline_used 64", I_OFS(inline_used), 2, 64, "name_len is zero" },
	{ "inline_used 52", I_OFS(inline_used), 2, 52, "entry header" },
	M(struct gaze_inode, flags, GAZE_IF_INLINE_DENTRY | GAZE_IF_DIR_HASHED,
	  "both inline and hashed"),
	M(struct gaze_inode, flags, GAZE_IF_INLINE_DATA, "inline data"),
};

static const struct mut dir_ok_muts[] = {
	{ "dirent name \"..x\"", IDN(1, 0), 2, 0x2e2e, "" },
	{ "dirent file_type 14", IDE(1, file_type), 1, 14, "" },
	M(struct gaze_inode, hdr.flags, GAZE_NF_DENTRY, ""),
};

/* a symlink whose target is inline: the area is bytes, not addresses */
static void
build_symlink(struct gaze_inode *in)
{
	static const char target[] = "../some/where/else";

	inode_hdr(in, 0120777, GAZE_IF_INLINE_DATA);
	memcpy(in->i.data, target, sizeof(target) - 1);
	memset(in->i.data + 100, 0xff, 200);
	in->size = cpu_to_le64(sizeof(target) - 1);
	in->inline_used = cpu_to_le16(sizeof(target) - 1);
	gaze_fmt_csum_set(in);
}

static void
test_inode(void)
{
	struct gaze_inode *in = (void *)blk_alloc();
	const char *why;
	size_t i;

	build_reg(in);
	run_muts("inode", in, INO_AT, v_inode, reg_muts, ARRAY_SIZE(reg_muts));
	for (i = 0; i < ARRAY_SIZE(reg_ok_muts); i++)
		run_ok("inode", in, INO_AT, v_inode, &reg_ok_muts[i]);
	in->compress_algo = GAZE_COMPRESS_LZ4;
	in->compress_log_cluster = 1;
	gaze_fmt_csum_set(in);
	tap_ok(v_inode(in, INO_AT, &why) == -EFSCORRUPTED &&
	       strstr(why, "cluster"), "inode: cluster 2^1 rejected");
	in->compress_log_cluster = 2;
	in->flags = cpu_to_le32(GAZE_IF_COMPRESS);
	gaze_fmt_csum_set(in);
	tap_ok(!v_inode(in, INO_AT, &why), "inode: lz4 with 2^2 clusters");

	build_dir_inline(in);
	run_muts("dir inode", in, INO_AT, v_inode, dir_muts,
		 ARRAY_SIZE(dir_muts));
	for (i = 0; i < ARRAY_SIZE(dir_ok_muts); i++)
		run_ok("dir inode", in, INO_AT, v_inode, &dir_ok_muts[i]);

	build_symlink(in);
	tap_ok(!v_inode(in, INO_AT, &why), "symlink with inline target verifies");
	in->flags = cpu_to_le32(GAZE_IF_INLINE_DATA | GAZE_IF_COMPRESS_LOCAL);
	gaze_fmt_csum_set(in);
	tap_ok(v_inode(in, INO_AT, &why) == -EFSCORRUPTED &&
	       strstr(why, "not regular or a directory"),
	       "a compression source on a symlink is rejected");
	build_symlink(in);
	in->mode = cpu_to_le16(0060600);
	gaze_fmt_csum_set(in);
	tap_ok(v_inode(in, INO_AT, &why) == -EFSCORRUPTED,
	       "inline data on a block device is rejected");
	free(in);
}

/* ---------------------------------------------------------------- */
/* Direct, indirect and xattr nodes                                  */
/* ---------------------------------------------------------------- */

#define DN_AT	(MAIN0 + ZB + 1)

static int
v_dnode(const void *b, u64 at, const char **why)
{
	return gaze_fmt_dnode_verify(b, &sb, at, why);
}

static int
v_ind(const void *b, u64 at, const char **why)
{
	return gaze_fmt_ind_verify(b, &sb, at, why);
}

static int
v_xattr(const void *b, u64 at, const char **why)
{
	return gaze_fmt_xattr_verify(b, &sb, at, why);
}

static const struct mut dnode_muts[] = {
	M(struct gaze_dnode, hdr.magic, GAZE_MAGIC_INODE, "magic"),
	M(struct gaze_dnode, hdr.nid, INO, "equals its owner"),
	M(struct gaze_dnode, hdr.ino, 0, "owner inode"),
	M(struct gaze_dnode, hdr.ino, MAXNID, "owner inode"),
	M(struct gaze_dnode, hdr.nid, MAXNID + 1, "max_nid"),
	M(struct gaze_dnode, addr[503], ZB * 3ull, "outside the main area"),
	M(struct gaze_dnode, addr[10], MAIN0 + 2 * ZB + CAP + 5, "outside"),
};

static const struct mut ind_muts[] = {
	M(struct gaze_inode_ind, hdr.nid, INO, "equals its owner"),
	M(struct gaze_inode_ind, nid[1007], MAXNID, "child nid"),
	M(struct gaze_inode_ind, hdr.hdr_version, 0, "version"),
};

static void
test_nodes(void)
{
	struct gaze_dnode *dn = (void *)blk_alloc();
	struct gaze_inode_ind *ind = (void *)blk_alloc();
	u32 i;

	gaze_fmt_hdr_init(dn, GAZE_MAGIC_DNODE, sb.hdr.uuid, DN_AT, 4, 600,
			  INO, 1);
	for (i = 0; i < GAZE_ADDRS_PER_DNODE; i++)
		dn->addr[i] = cpu_to_le64(i % 3 ? MAIN0 + i * 7 : 0);
	gaze_fmt_csum_set(dn);
	run_muts("dnode", dn, DN_AT, v_dnode, dnode_muts,
		 ARRAY_SIZE(dnode_muts));

	gaze_fmt_hdr_init(ind, GAZE_MAGIC_INODE_IND, sb.hdr.uuid, DN_AT, 4,
			  601, INO, 2);
	for (i = 0; i < GAZE_NIDS_PER_INDIRECT; i++)
		ind->nid[i] = cpu_to_le32(i * 200);
	gaze_fmt_csum_set(ind);
	run_muts("indirect", ind, DN_AT, v_ind, ind_muts, ARRAY_SIZE(ind_muts));
	free(dn);
	free(ind);
}

/*
 * gazectl uuid on a filesystem: the superblock's hdr.uuid changes, the
 * headers of every other block keep the uuid mkfs gave them, which the
 * superblock keeps in meta_uuid behind the feature meta_uuid; every
 * verifier then checks headers against that.
 */
static void
test_meta_uuid(void)
{
	struct gaze_super *s2 = (void *)blk_alloc();
	struct gaze_dnode *dn = (void *)blk_alloc();
	struct gaze_cp_head *cp = (void *)blk_alloc();
	const char *why = NULL;
	u64 inc;
	int i;

	memcpy(s2, &sb, sizeof(*s2));
	memcpy(s2->meta_uuid, sb.hdr.uuid, sizeof(s2->meta_uuid));
	for (i = 0; i < 16; i++)
		s2->hdr.uuid[i] = (u8)(0x30 + i);
	inc = le64_to_cpu(sb.feature_incompat);
	s2->feature_incompat = cpu_to_le64(inc |
					   GAZE_FEATURE_INCOMPAT_META_UUID);
	gaze_fmt_csum_set(s2);
	tap_ok(!gaze_fmt_super_verify(s2, 0, &why),
	       "meta_uuid: a superblock with a changed uuid verifies (%s)",
	       why ? why : "ok");
	tap_ok(gaze_sb_meta_uuid(s2) == s2->meta_uuid &&
	       gaze_sb_meta_uuid(&sb) == sb.hdr.uuid,
	       "meta_uuid: headers are checked against meta_uuid only with the feature");

	gaze_fmt_hdr_init(dn, GAZE_MAGIC_DNODE, sb.hdr.uuid, DN_AT, 4, 600,
			  INO, 1);
	gaze_fmt_csum_set(dn);
	tap_ok(!gaze_fmt_dnode_verify(dn, s2, DN_AT, &why),
	       "meta_uuid: a node written before the change verifies (%s)",
	       why ? why : "ok");
	gaze_fmt_hdr_init(dn, GAZE_MAGIC_DNODE, s2->hdr.uuid, DN_AT, 4, 600,
			  INO, 1);
	gaze_fmt_csum_set(dn);
	tap_ok(gaze_fmt_dnode_verify(dn, s2, DN_AT, &why) == -EFSCORRUPTED &&
	       strstr(why, "uuid"),
	       "meta_uuid: a node carrying the new uuid is foreign");
	build_cp(cp, CP_AT);
	tap_ok(!gaze_fmt_cp_head_verify(cp, s2, CP_AT, &why),
	       "meta_uuid: checkpoint heads are checked against meta_uuid (%s)",
	       why ? why : "ok");
	/* the feature dropped, meta_uuid left: refused, not misread */
	s2->feature_incompat = cpu_to_le64(inc);
	gaze_fmt_csum_set(s2);
	tap_ok(gaze_fmt_super_verify(s2, 0, &why) == -EFSCORRUPTED,
	       "meta_uuid: the field without the feature is refused");
	free(s2);
	free(dn);
	free(cp);
}

#define XB(k)	(offsetof(struct gaze_xattr_block, body) + (k))

static const struct mut xattr_muts[] = {
	M(struct gaze_xattr_block, used, sizeof(((struct gaze_xattr_block *)0)->body) + 4,
	  "exceeds the body"),
	M(struct gaze_xattr_block, pad, 1, "padding"),
	M(struct gaze_xattr_block, hdr.nid, INO, "equals its owner"),
	M(struct gaze_xattr_block, used, 1020, "runs past"),
	M(struct gaze_xattr_block, used, 1026, "entry header"),
	{ "entry index 7", XB(0), 1, 7, "name index" },
	{ "second entry name_len 0", XB(1009), 1, 0, "name_len is zero" },
	{ "value runs past", XB(1010), 2, 2000, "runs past" },
	{ "pad byte", XB(1007), 1, 9, "padding" },
};

static void
test_xattr_block(void)
{
	struct gaze_xattr_block *xb = (void *)blk_alloc();
	u8 *e = xb->body;

	gaze_fmt_hdr_init(xb, GAZE_MAGIC_XATTR, sb.hdr.uuid, DN_AT, 4, 601,
			  INO, 0);
	/* trusted.big = 1000 bytes: 4 + 3 + 1000, padded to 1008 */
	e[0] = GAZE_XATTR_TRUSTED;
	e[1] = 3;
	e[2] = 1000 & 0xff;
	e[3] = 1000 >> 8;
	memcpy(e + 4, "big", 3);
	memset(e + 7, 'v', 1000);
	/* security.selinux = "ctx" */
	e += 1008;
	e[0] = GAZE_XATTR_SECURITY;
	e[1] = 7;
	e[2] = 3;
	memcpy(e + 4, "selinuxctx", 10);
	xb->used = cpu_to_le32(1008 + 16);
	gaze_fmt_csum_set(xb);
	run_muts("xattr block", xb, DN_AT, v_xattr, xattr_muts,
		 ARRAY_SIZE(xattr_muts));
	free(xb);
}

/* ---------------------------------------------------------------- */
/* Directory blocks                                                  */
/* ---------------------------------------------------------------- */

static int
v_bucket(const void *b, u64 at, const char **why)
{
	return gaze_fmt_dir_bucket_verify(b, &sb, at, why);
}

static int
v_dindex(const void *b, u64 at, const char **why)
{
	return gaze_fmt_dir_index_verify(b, &sb, at, why);
}

static u32
put_dirent(u8 *p, u64 hash, u32 ino, u8 type, const char *name)
{
	struct gaze_dirent *de = (void *)p;
	u32 len = strlen(name);

	de->hash = cpu_to_le64(hash);
	de->ino = cpu_to_le32(ino);
	de->rec_len = cpu_to_le16(GAZE_DIRENT_LEN(len));
	de->name_len = len;
	de->file_type = type;
	memcpy(de + 1, name, len);
	return GAZE_DIRENT_LEN(len);
}

#define BE(k)	(offsetof(struct gaze_dir_bucket, entries) + (k))

static const struct mut bucket_muts[] = {
	M(struct gaze_dir_bucket, hdr.ino, 0, "owner inode"),
	M(struct gaze_dir_bucket, hdr.index, 1023, "hash index"),
	M(struct gaze_dir_bucket, hdr.flags, 1, "non-node"),
	M(struct gaze_dir_bucket, hdr.next, 5, "non-node"),
	M(struct gaze_dir_bucket, used, GAZE_DIR_BUCKET_SPACE + 8, "used exceeds"),
	M(struct gaze_dir_bucket, used, 72, "runs past"),
	M(struct gaze_dir_bucket, used, 96, "name_len is zero"),
	M(struct gaze_dir_bucket, local_depth, 20, "local depth"),
	M(struct gaze_dir_bucket, overflow, 0xfffffc00u, "overflow"),
	M(struct gaze_dir_bucket, pad, 1, "reserved"),
	M(struct gaze_dir_bucket, reserved, 1, "reserved"),
	M(struct gaze_dir_bucket, nr_entries, 2, "nr_entries"),
	{ "second hash below the first", BE(0), 8, 250, "sorted" },
	{ "name \"..\"", BE(41), 1, '.', "name" },
	{ "rec_len 24 for 9 bytes", BE(60), 2, 24, "rec_len" },
};

static void
test_dir_blocks(void)
{
	struct gaze_dir_bucket *b = (void *)blk_alloc();
	struct gaze_dir_index *di = (void *)blk_alloc();
	static const struct mut ok_dup = {
		"equal hashes", BE(24), 8, 100, ""
	};
	static const struct mut di_muts[] = {
		M(struct gaze_dir_index, hdr.index, GAZE_DIR_INDEX_BLOCKS,
		  "beyond the hash index"),
		M(struct gaze_dir_index, bucket[1007], 0xfffffc00u, "too large"),
		M(struct gaze_dir_index, hdr.ino, MAXNID, "owner inode"),
	};
	u32 pos = 0;

	gaze_fmt_hdr_init(b, GAZE_MAGIC_DIR_BUCKET, sb.hdr.uuid, DN_AT, 4, 0,
			  INO, GAZE_DIR_BUCKET_BASE + 3);
	pos += put_dirent(b->entries + pos, 100, 10, 1, "alpha");
	pos += put_dirent(b->entries + pos, 200, 11, 2, ".x");
	pos += put_dirent(b->entries + pos, 300, 12, 4, "..gamma-r");
	b->used = cpu_to_le16(pos);
	b->nr_entries = cpu_to_le32(3);
	b->local_depth = 3;
	b->overflow = cpu_to_le32(77);
	gaze_fmt_csum_set(b);
	run_muts("dir bucket", b, DN_AT, v_bucket, bucket_muts,
		 ARRAY_SIZE(bucket_muts));
	run_ok("dir bucket", b, DN_AT, v_bucket, &ok_dup);

	gaze_fmt_hdr_init(di, GAZE_MAGIC_DIR_INDEX, sb.hdr.uuid, DN_AT, 4, 0,
			  INO, 5);
	di->bucket[0] = cpu_to_le32(1);
	di->bucket[1007] = cpu_to_le32(0xfffffbffu);
	gaze_fmt_csum_set(di);
	run_muts("dir index", di, DN_AT, v_dindex, di_muts, ARRAY_SIZE(di_muts));
	free(b);
	free(di);
}

/* ---------------------------------------------------------------- */
/* Table blocks                                                      */
/* ---------------------------------------------------------------- */

static u32 cur_table, cur_index;

static int
v_table(const void *b, u64 at, const char **why)
{
	return gaze_fmt_table_verify(b, cur_table, cur_index, &sb, at, why);
}

static void
table_hdr(void *b, u32 magic, u32 table, u32 index)
{
	memset(b, 0, GAZE_BLOCK_SIZE);
	gaze_fmt_hdr_init(b, magic, sb.hdr.uuid, META0 + 9, 7, table, 0, index);
	cur_table = table;
	cur_index = index;
}

static void
test_imap(u8 *b)
{
	struct gaze_imap_block *im = (void *)b;
	static const struct mut muts[] = {
		M(struct gaze_imap_block, hdr.nid, GAZE_TABLE_ZINFO, "another table"),
		M(struct gaze_imap_block, hdr.index, 475, "block number"),
		M(struct gaze_imap_block, hdr.ino, 1, "ino"),
		M(struct gaze_imap_block, hdr.flags, 1, "non-node"),
		M(struct gaze_imap_block, addr[95], 5, "outside the main area"),
		M(struct gaze_imap_block, addr[96], MAIN0, "beyond max_nid"),
	};

	/* the last imap block: nids 239904..240407, max_nid 240000 */
	table_hdr(b, GAZE_MAGIC_IMAP, GAZE_TABLE_IMAP, 476);
	im->addr[0] = cpu_to_le64(MAIN0 + 7);
	im->addr[95] = cpu_to_le64(MAIN0 + 8);
	gaze_fmt_csum_set(b);
	run_muts("imap", b, META0 + 9, v_table, muts, ARRAY_SIZE(muts));

	table_hdr(b, GAZE_MAGIC_IMAP, GAZE_TABLE_IMAP, 0);
	im->addr[2] = cpu_to_le64(MAIN0 + 7);
	gaze_fmt_csum_set(b);
	tap_ok(!v_table(b, META0 + 9, NULL), "imap block 0 verifies");
	im->addr[0] = cpu_to_le64(MAIN0 + 9);
	gaze_fmt_csum_set(b);
	tap_ok(v_table(b, META0 + 9, NULL) == -EFSCORRUPTED,
	       "imap: an address for nid 0 is rejected");
	table_hdr(b, GAZE_MAGIC_IMAP, GAZE_TABLE_IMAP, 477);
	gaze_fmt_csum_set(b);
	tap_ok(v_table(b, META0 + 9, NULL) == -EFSCORRUPTED,
	       "imap: block number past the table is rejected");
}

static void
test_zinfo(u8 *b)
{
	struct gaze_zinfo_block *zi = (void *)b;
	static const struct mut muts[] = {
		M(struct gaze_zinfo_block, z[5].state, 4, "state"),
		M(struct gaze_zinfo_block, z[5].log, 6, "log type"),
		M(struct gaze_zinfo_block, z[5].flags, 1, "flags"),
		M(struct gaze_zinfo_block, z[5].valid, CAP + 1, "valid count"),
		M(struct gaze_zinfo_block, z[60].mtime, 1, "past the last"),
		M(struct gaze_zinfo_block, z[251].valid, 1, "past the last"),
	};
	u32 i;

	table_hdr(b, GAZE_MAGIC_ZINFO, GAZE_TABLE_ZINFO, 0);
	for (i = 0; i < 60; i++) {
		zi->z[i].valid = cpu_to_le32(i * 66);
		zi->z[i].state = i % 4;
		zi->z[i].log = i % 6;
		zi->z[i].mtime = cpu_to_le64(i * 1000);
	}
	gaze_fmt_csum_set(b);
	run_muts("zinfo", b, META0 + 9, v_table, muts, ARRAY_SIZE(muts));
}

static void
test_usage(u8 *b)
{
	struct gaze_usage_block *u = (void *)b;
	static const struct mut muts[] = {
		{ "bit 4000 (past capacity)", offsetof(struct gaze_usage_block,
						      bits[500]), 1, 0x01, "past" },
		{ "bit 4095", offsetof(struct gaze_usage_block, bits[511]), 1,
		  0x80, "past" },
		{ "last byte", offsetof(struct gaze_usage_block, bits[4031]), 1,
		  0x01, "past" },
	};

	table_hdr(b, GAZE_MAGIC_USAGE, GAZE_TABLE_USAGE, 59);
	memset(u->bits, 0xff, 500);		/* blocks 0..3999 */
	gaze_fmt_csum_set(b);
	run_muts("usage", b, META0 + 9, v_table, muts, ARRAY_SIZE(muts));
}

static void
test_summary(u8 *b)
{
	struct gaze_summary_block *s = (void *)b;
	static const struct mut muts[] = {
		M(struct gaze_summary_block, s[0].type, 3, "unknown type"),
		M(struct gaze_summary_block, s[0].flags, 1, "flags"),
		M(struct gaze_summary_block, s[1].nid, 0, "owner nid"),
		M(struct gaze_summary_block, s[1].nid, MAXNID, "owner nid"),
		M(struct gaze_summary_block, s[1].ofs, 504, "slot"),
		M(struct gaze_summary_block, s[472].type, 1, "past the zone"),
		M(struct gaze_summary_block, s[503].nid, 9, "past the zone"),
	};
	u32 i;

	/* block 7 of zone 3: entries 3528..4031, capacity ends at 4000 */
	table_hdr(b, GAZE_MAGIC_SUMMARY, GAZE_TABLE_SUMMARY, 3 * 8 + 7);
	for (i = 0; i < 472; i++) {
		s->s[i].nid = cpu_to_le32(i % 2 ? 600 : 77);
		s->s[i].ofs = cpu_to_le16(i % 2 ? 503 : 0);
		s->s[i].type = i % 2 ? GAZE_SUM_DATA : GAZE_SUM_NODE;
	}
	gaze_fmt_csum_set(b);
	run_muts("summary", b, META0 + 9, v_table, muts, ARRAY_SIZE(muts));
}

static void
test_tindex(u8 *b)
{
	struct gaze_tindex *ti = (void *)b;
	static const struct mut muts[] = {
		M(struct gaze_tindex, addr[0], MAIN0, "outside the meta area"),
		M(struct gaze_tindex, addr[0], META0 - 1, "outside the meta area"),
		M(struct gaze_tindex, addr[0], META0 + CAP, "outside the meta area"),
		M(struct gaze_tindex, addr[60], META0, "past the end"),
		M(struct gaze_tindex, hdr.nid, GAZE_TABLE_ZINFO, "another table"),
	};

	/* usage table: 60 blocks, 1 index block */
	table_hdr(b, GAZE_MAGIC_TINDEX, GAZE_TABLE_USAGE, 0);
	ti->addr[0] = cpu_to_le64(META0);
	ti->addr[59] = cpu_to_le64(META0 + ZB + CAP - 1);
	gaze_fmt_csum_set(b);
	run_muts("table index", b, META0 + 9, v_table, muts, ARRAY_SIZE(muts));

	table_hdr(b, GAZE_MAGIC_TINDEX, GAZE_TABLE_USAGE, 1);
	gaze_fmt_csum_set(b);
	tap_ok(v_table(b, META0 + 9, NULL) == -EFSCORRUPTED,
	       "table index: index block past the table is rejected");
	table_hdr(b, GAZE_MAGIC_TINDEX, GAZE_TABLE_USAGE, 0);
	gaze_fmt_csum_set(b);
	tap_ok(gaze_fmt_table_verify(b, 4, 0, &sb, META0 + 9, NULL) == -EINVAL,
	       "table verify: unknown table id is -EINVAL");
}

static void
test_tables(void)
{
	u8 *b = blk_alloc();

	test_imap(b);
	test_zinfo(b);
	test_usage(b);
	test_summary(b);
	test_tindex(b);
	free(b);
}

/* ---------------------------------------------------------------- */
/* A zone size that is not a power of two (emulated zones)           */
/* ---------------------------------------------------------------- */

static void
test_odd_zones(void)
{
	static struct gaze_super save;
	struct gaze_dnode *dn = (void *)blk_alloc();
	struct gaze_mkfs_params p;
	struct gaze_layout l;
	const char *why = NULL;
	u64 main0;
	int err;

	save = sb;
	test_params(&p, 3000, 2900);
	err = gaze_layout_compute(&p, &l, &why);
	gaze_fmt_super_build(&sb, &p, &l, 0, 0);
	tap_ok(!err && !gaze_fmt_super_verify(&sb, 0, &why),
	       "3000-block zones: super verifies");
	main0 = (u64)l.main_zone_start * 3000;
	gaze_fmt_hdr_init(dn, GAZE_MAGIC_DNODE, sb.hdr.uuid, main0, 1, 600,
			  INO, 1);
	dn->addr[0] = cpu_to_le64(main0 + 3000 + 2899);
	gaze_fmt_csum_set(dn);
	tap_ok(!v_dnode(dn, main0, &why), "3000-block zones: last writable block ok");
	dn->addr[0] = cpu_to_le64(main0 + 3000 + 2900);
	gaze_fmt_csum_set(dn);
	tap_ok(v_dnode(dn, main0, &why) == -EFSCORRUPTED,
	       "3000-block zones: block past capacity rejected");
	sb = save;
	free(dn);
}

/* ---------------------------------------------------------------- */
/* Features and compression names                                    */
/* ---------------------------------------------------------------- */

static void
test_features(void)
{
	u64 c, r, i, c2, r2, i2;
	const char *bad = NULL;
	char buf[128];
	int err;

	gaze_fmt_feature_defaults(&c, &r, &i);
	tap_ok(c == (GAZE_FEATURE_COMPAT_LOST_FOUND |
		     GAZE_FEATURE_COMPAT_LAZY_SUMMARY) &&
	       r == GAZE_FEATURE_RO_COMPAT_PREALLOC &&
	       i == (GAZE_FEATURE_INCOMPAT_INLINE_DATA |
		     GAZE_FEATURE_INCOMPAT_FSYNC_NAMESPACE),
	       "defaults: lost_found, lazy_summary, prealloc, inline_data, fsync_namespace");
	tap_ok(!strcmp(gaze_fmt_feature_name(2, 1), "compression") &&
	       !strcmp(gaze_fmt_feature_name(0, 0), "lost_found") &&
	       !strcmp(gaze_fmt_feature_name(0, 1), "lazy_summary") &&
	       !strcmp(gaze_fmt_feature_name(1, 0), "prealloc") &&
	       !strcmp(gaze_fmt_feature_name(2, 3), "fsync_namespace") &&
	       !gaze_fmt_feature_name(1, 1) && !gaze_fmt_feature_name(2, 9),
	       "feature names from the table");
	gaze_fmt_feature_string(c, r, i, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "lost_found,lazy_summary,prealloc,inline_data,fsync_namespace"),
	       "defaults print as \"%s\"",
	       buf);
	c2 = r2 = i2 = 0;
	err = gaze_fmt_feature_parse(buf, &c2, &r2, &i2, &bad);
	tap_ok(!err && c2 == c && r2 == r && i2 == i, "print -> parse round trip");

	err = gaze_fmt_feature_parse("^inline_data,,lost_found", &c, &r, &i,
				     &bad);
	tap_ok(!err && i == GAZE_FEATURE_INCOMPAT_FSYNC_NAMESPACE &&
	       c == (GAZE_FEATURE_COMPAT_LOST_FOUND |
				   GAZE_FEATURE_COMPAT_LAZY_SUMMARY),
	       "\"^inline_data,,lost_found\" edits the set");
	/* compression: supported, off by default, mkfs may set it */
	err = gaze_fmt_feature_parse("lost_found,compression", &c, &r, &i,
				     &bad);
	tap_ok(!err && i == (GAZE_FEATURE_INCOMPAT_COMPRESSION |
			     GAZE_FEATURE_INCOMPAT_FSYNC_NAMESPACE),
	       "compression may be set");
	err = gaze_fmt_feature_parse("^compression", &c, &r, &i, &bad);
	tap_ok(!err && i == GAZE_FEATURE_INCOMPAT_FSYNC_NAMESPACE,
	       "compression may be cleared");
	err = gaze_fmt_feature_parse("^fsync_namespace", &c, &r, &i, &bad);
	tap_ok(!err && !i, "fsync_namespace may be cleared");
	/* supported, but set by gazectl uuid only: mkfs may not set it */
	err = gaze_fmt_feature_parse("lost_found,meta_uuid", &c, &r, &i, &bad);
	tap_ok(err == -EPERM && !strncmp(bad, "meta_uuid", 9) && !i,
	       "meta_uuid: -EPERM, *bad at it, nothing set");
	err = gaze_fmt_feature_parse("^meta_uuid", &c, &r, &i, &bad);
	tap_ok(!err && !i, "meta_uuid may be cleared");
	gaze_fmt_feature_known(buf, sizeof(buf));
	tap_ok(!strstr(buf, "meta_uuid") && strstr(buf, "inline_data"),
	       "mkfs's list of features leaves meta_uuid out: \"%s\"", buf);
	tap_ok(GAZE_FEATURE_INCOMPAT_SUPP & GAZE_FEATURE_INCOMPAT_META_UUID,
	       "meta_uuid is supported by every reader");
	tap_ok((GAZE_FEATURE_INCOMPAT_SUPP &
		GAZE_FEATURE_INCOMPAT_COMPRESSION) &&
	       (GAZE_FEATURE_INCOMPAT_SUPP &
		GAZE_FEATURE_INCOMPAT_INLINE_DATA) &&
	       GAZE_FEATURE_COMPAT_SUPP == (GAZE_FEATURE_COMPAT_LOST_FOUND |
					    GAZE_FEATURE_COMPAT_LAZY_SUMMARY) &&
	       GAZE_FEATURE_RO_COMPAT_SUPP == GAZE_FEATURE_RO_COMPAT_PREALLOC,
	       "the supported masks come from the table");
	err = gaze_fmt_feature_parse("none,lost_found", &c, &r, &i, &bad);
	tap_ok(!err && c == GAZE_FEATURE_COMPAT_LOST_FOUND && !r && !i,
	       "\"none,lost_found\" clears then sets");
	gaze_fmt_feature_string(0, 0, 0, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "none"), "no features print as \"none\"");
	err = gaze_fmt_feature_parse(buf, &c, &r, &i, &bad);
	tap_ok(!err && !c && !r && !i, "\"none\" parses back to nothing");

	c = 1;
	err = gaze_fmt_feature_parse("inline_data,bogus,^lost_found", &c, &r,
				     &i, &bad);
	tap_ok(err == -EINVAL && !strncmp(bad, "bogus,", 6) && c == 1 && !i,
	       "unknown name: -EINVAL, *bad at it, nothing changed");
	err = gaze_fmt_feature_parse("^", &c, &r, &i, &bad);
	tap_ok(err == -EINVAL, "a lone ^ is an error");
	err = gaze_fmt_feature_parse("^none", &c, &r, &i, &bad);
	tap_ok(err == -EINVAL, "^none is an error");
	err = gaze_fmt_feature_parse("inline", &c, &r, &i, &bad);
	tap_ok(err == -EINVAL, "a prefix of a name is an error");
	err = gaze_fmt_feature_parse("", &c, &r, &i, &bad);
	tap_ok(!err && c == 1, "an empty list changes nothing");

	gaze_fmt_feature_string(1, 1ull << 3, (1ull << 40) | 2, buf,
				sizeof(buf));
	tap_ok(!strcmp(buf, "lost_found,ro_compat_bit3,compression,incompat_bit40"),
	       "unknown bits print by number: \"%s\"", buf);
	gaze_fmt_feature_string(1, 0, 1, buf, 6);
	tap_ok(!strcmp(buf, "lost_"), "output is cut to the buffer and terminated");
}

static void
test_compress_names(void)
{
	static const struct {
		const char *s;
		int algo, level;
	} good[] = {
		{ "none", 0, 0 }, { "off", 0, 0 }, { "on", 1, 0 },
		{ "lz4", 1, 0 }, { "zstd", 2, 0 }, { "zstd-1", 2, 1 },
		{ "zstd-19", 2, 19 }, { "gzip", 3, 0 }, { "gzip-1", 3, 1 },
		{ "gzip-9", 3, 9 },
	};
	static const char *const bad[] = {
		"", "gzip-0", "gzip-10", "gzip-", "gzip-01", "zstd-20",
		"lz4-1", "zst", "gzipx", "gzip-9x", "none-1", "LZ4", "gzip--1",
	};
	u8 a, l;
	size_t i;
	int ok = 1;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		a = l = 0xee;
		ok &= !gaze_fmt_compress_parse(good[i].s, &a, &l) &&
		      a == good[i].algo && l == good[i].level;
	}
	tap_ok(ok, "compression names and levels parse");
	ok = 1;
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ok &= gaze_fmt_compress_parse(bad[i], &a, &l) == -EINVAL;
	tap_ok(ok, "malformed compression names are -EINVAL");
	tap_ok(!strcmp(gaze_fmt_compress_name(0), "none") &&
	       !strcmp(gaze_fmt_compress_name(1), "lz4") &&
	       !strcmp(gaze_fmt_compress_name(2), "zstd") &&
	       !strcmp(gaze_fmt_compress_name(3), "gzip") &&
	       !strcmp(gaze_fmt_compress_name(4), "unknown") &&
	       !strcmp(gaze_fmt_compress_name(-1), "unknown"),
	       "compression algorithm names");
}

int
main(void)
{
	if (setup_super()) {
		tap_ok(0, "test superblock");
		return tap_done();
	}
	tap_ok(max_nid == MAXNID && le32_to_cpu(sb.main_zone_start) == 4 &&
	       le32_to_cpu(sb.meta_zone_start) == 2 &&
	       le32_to_cpu(sb.table_blocks[GAZE_TABLE_IMAP]) == 477 &&
	       le32_to_cpu(sb.summary_blocks_per_zone) == 8,
	       "test filesystem: 4000-block capacity, max_nid 240000");
	test_static_sizes();
	test_crc();
	test_super();
	test_cp();
	test_inode();
	test_nodes();
	test_meta_uuid();
	test_xattr_block();
	test_dir_blocks();
	test_tables();
	test_odd_zones();
	test_features();
	test_compress_names();
	return tap_done();
}
