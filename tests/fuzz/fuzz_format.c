// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_format.c - libFuzzer harness for every verifier in
 * kernel/core/format.c on one 4 KiB block.
 *
 * Input: byte 0 selects the verifier (low 4 bits) and whether the header
 * is fixed up (bit 4 clear: magic, uuid, location and version are set to
 * what the verifier expects, so the fuzzer reaches the body checks);
 * byte 1 picks a table id / index where one is needed; the rest is the
 * block (zero padded).  The crc is always recomputed after the fix-up.
 * The context is a superblock built for a fixed small geometry.  A block
 * that verifies is handed to the code that consumes it (attributes of an
 * inode, layout from a superblock), which must then not fault either.
 */
#include "gaze_core.h"

#include <stdint.h>
#include <string.h>

static struct gaze_super ctx_sb;
static bool ctx_ready;

static void
ctx_init(void)
{
	struct gaze_mkfs_params p;
	struct gaze_layout l;
	const char *why;

	memset(&p, 0, sizeof(p));
	p.geo.zone_blocks = p.geo.zone_cap = 256;
	p.geo.nr_zones = 64;
	p.geo.nr_blocks = 64 * 256;
	p.geo.model = GAZE_ZM_HOST_MANAGED;
	gaze_fmt_feature_defaults(&p.feature_compat, &p.feature_ro_compat,
				  &p.feature_incompat);
	p.dirty_limit_pct = 20;
	memset(p.uuid, 0x5a, sizeof(p.uuid));
	p.mkfs_time = 1700000000;
	strcpy(p.version, "gaze-fuzz");
	if (gaze_layout_compute(&p, &l, &why))
		__builtin_trap();
	gaze_fmt_super_build(&ctx_sb, &p, &l, 0, 0);
	ctx_ready = true;
}

static const u32 magics[] = {
	GAZE_MAGIC_SB, GAZE_MAGIC_CP_HEAD, GAZE_MAGIC_INODE, GAZE_MAGIC_DNODE,
	GAZE_MAGIC_INODE_IND, GAZE_MAGIC_XATTR, GAZE_MAGIC_DIR_BUCKET,
	GAZE_MAGIC_DIR_INDEX, 0 /* table: from the table id */,
};

static const u32 table_magics[GAZE_NR_TABLES] = {
	GAZE_MAGIC_IMAP, GAZE_MAGIC_ZINFO, GAZE_MAGIC_USAGE, GAZE_MAGIC_SUMMARY,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 blk[GAZE_BLOCK_SIZE] __attribute__((aligned(8)));
	struct gaze_mhdr *h = (struct gaze_mhdr *)blk;
	struct gaze_layout lay;
	struct gaze_attr a;
	const char *why = NULL;
	u32 sel, table, index;
	u64 blkaddr;
	int ret = 0;

	if (!ctx_ready)
		ctx_init();
	if (size < 2)
		return 0;
	sel = data[0] & 15;
	table = data[1] % GAZE_NR_TABLES;
	index = data[1] >> 2;
	memset(blk, 0, sizeof(blk));
	memcpy(blk, data + 2, size - 2 < sizeof(blk) ? size - 2 : sizeof(blk));
	sel %= ARRAY_SIZE(magics);
	/* a plausible address: somewhere in the main area (meta for tables) */
	blkaddr = le64_to_cpu(h->blkaddr);
	if (!(data[0] & 16)) {
		h->magic = cpu_to_le32(sel == 8 ? (index & 1 ?
				       GAZE_MAGIC_TINDEX : table_magics[table])
				       : magics[sel]);
		memcpy(h->uuid, ctx_sb.hdr.uuid, sizeof(h->uuid));
		h->hdr_version = cpu_to_le16(GAZE_FORMAT_VERSION);
		if (sel == 0)
			blkaddr = 0;
		if (sel == 8)
			h->nid = cpu_to_le32(table);
	}
	h->blkaddr = cpu_to_le64(blkaddr);
	gaze_fmt_csum_set(blk);

	switch (sel) {
	case 0:
		ret = gaze_fmt_super_verify((void *)blk, blkaddr, &why);
		if (!ret)
			ret = gaze_layout_from_super((void *)blk, &lay, &why);
		break;
	case 1:
		ret = gaze_fmt_cp_head_verify((void *)blk, &ctx_sb, blkaddr,
					      &why);
		break;
	case 2:
		ret = gaze_fmt_inode_verify((void *)blk, &ctx_sb, blkaddr, &why);
		if (!ret)
			gaze_inode_to_attr((void *)blk, &a);
		break;
	case 3:
		ret = gaze_fmt_dnode_verify((void *)blk, &ctx_sb, blkaddr, &why);
		break;
	case 4:
		ret = gaze_fmt_ind_verify((void *)blk, &ctx_sb, blkaddr, &why);
		break;
	case 5:
		ret = gaze_fmt_xattr_verify((void *)blk, &ctx_sb, blkaddr, &why);
		break;
	case 6:
		ret = gaze_fmt_dir_bucket_verify((void *)blk, &ctx_sb, blkaddr,
						 &why);
		break;
	case 7:
		ret = gaze_fmt_dir_index_verify((void *)blk, &ctx_sb, blkaddr,
						&why);
		break;
	case 8:
		ret = gaze_fmt_table_verify(blk, table, index, &ctx_sb, blkaddr,
					    &why);
		break;
	}
	/* an error always names its reason */
	if (ret && !why)
		__builtin_trap();
	return 0;
}
