// SPDX-License-Identifier: GPL-2.0
/*
 * repair.c - what an offline repair (fsck.gaze) needs from the core to
 * rebuild the space tables from the tree.
 *
 * Why: a repair decides which main-area blocks are valid by walking the
 * tree, then must make the usage bitmaps, summaries, zone entries and
 * the space state in memory say the same, before any namespace fix
 * allocates or frees a block.  The normal paths (gaze_block_alloc,
 * gaze_block_invalidate) assume the tables are already right, so these
 * helpers write the tables directly and then reload the space state
 * from them, as a mount does.  Nothing is durable until the next
 * checkpoint, so an interrupted repair leaves the previous one intact.
 *
 * Locking: fs->lock, held by the caller; the instance is read-write and
 * nobody else uses it (an offline repair).
 */
#include "gaze_core.h"

int
gaze_repair_table_block(struct gaze_fs *fs, u32 table, u32 block,
			struct gaze_mbuf **mbp)
{
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	ret = gaze_table_get(fs, table, block, mbp);
	if (!gaze_err_damaged(ret))
		return ret;
	/* an unreadable index block starts from zeros too */
	ret = gaze_table_index_renew(fs, table, block / GAZE_ADDRS_PER_BLOCK);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		/* the table block reads as absent under the new index */
		ret = gaze_table_get(fs, table, block, mbp);
		if (ret)
			return ret;
		gaze_table_dirty(fs, *mbp);
		return 0;
	}
	/* the stored block is unreadable: start from zeros */
	return gaze_mbuf_create(fs, GAZE_MB_TABLE, table, block, mbp);
}

/* copies len bytes into a table block, dirtying it only on a change */
static void
repair_store(struct gaze_fs *fs, struct gaze_mbuf *mb, size_t ofs,
	     const void *src, size_t len)
{
	u8 *dst = (u8 *)mb->data + ofs;

	if (!memcmp(dst, src, len))
		return;
	memcpy(dst, src, len);
	gaze_table_dirty(fs, mb);
}

int
gaze_repair_zone_set(struct gaze_fs *fs, u32 zi, const u8 *bits,
		     const struct gaze_summary *sums, u32 valid, u8 state,
		     u8 log)
{
	u32 upz = le32_to_cpu(fs->sb.usage_blocks_per_zone);
	u32 spz = le32_to_cpu(fs->sb.summary_blocks_per_zone);
	u32 cap = le32_to_cpu(fs->sb.zone_cap);
	struct gaze_zinfo z = { 0 };
	struct gaze_mbuf *mb;
	u32 k, first, n;
	int ret;

	if (zi >= fs->lay.main_zone_count || valid > cap ||
	    state > GAZE_ZS_PREFREE || log >= GAZE_NR_LOG_TYPES)
		return -EINVAL;
	for (k = 0; k < upz; k++) {
		struct gaze_usage_block *ub;
		u32 bytes;

		ret = gaze_repair_table_block(fs, GAZE_TABLE_USAGE,
					      zi * upz + k, &mb);
		if (ret)
			return ret;
		ub = mb->data;
		first = k * GAZE_USAGE_BITS_PER_BLOCK;
		n = min_t(u32, GAZE_USAGE_BITS_PER_BLOCK, cap - first);
		bytes = DIV_ROUND_UP(n, 8);
		repair_store(fs, mb, (size_t)(ub->bits - (u8 *)ub),
			     bits + first / 8, bytes);
		gaze_mbuf_put(fs, mb);
	}
	for (k = 0; k < spz; k++) {
		struct gaze_summary_block *sb;

		ret = gaze_repair_table_block(fs, GAZE_TABLE_SUMMARY,
					      zi * spz + k, &mb);
		if (ret)
			return ret;
		sb = mb->data;
		first = k * GAZE_SUMMARY_PER_BLOCK;
		n = min_t(u32, GAZE_SUMMARY_PER_BLOCK, cap - first);
		repair_store(fs, mb, (size_t)((u8 *)sb->s - (u8 *)sb),
			     sums + first, n * sizeof(*sums));
		gaze_mbuf_put(fs, mb);
	}
	ret = gaze_repair_table_block(fs, GAZE_TABLE_ZINFO,
				      zi / GAZE_ZINFO_PER_BLOCK, &mb);
	if (ret)
		return ret;
	{
		struct gaze_zinfo_block *zb = mb->data;
		struct gaze_zinfo *old = &zb->z[zi % GAZE_ZINFO_PER_BLOCK];

		z.valid = cpu_to_le32(valid);
		z.state = state;
		z.log = log;
		z.mtime = old->mtime;
		repair_store(fs, mb, (size_t)((u8 *)old - (u8 *)zb), &z,
			     sizeof(z));
	}
	gaze_mbuf_put(fs, mb);
	return 0;
}

int
gaze_repair_space_reload(struct gaze_fs *fs, u64 valid_blocks,
			 u64 valid_nodes, const u32 *log_offset)
{
	u32 i, n = le32_to_cpu(fs->cp.nr_logs);

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	fs->cp.valid_blocks = cpu_to_le64(valid_blocks);
	fs->cp.valid_nodes = cpu_to_le64(valid_nodes);
	for (i = 0; log_offset && i < n && i < GAZE_MAX_LOGS; i++)
		if (log_offset[i] > le32_to_cpu(fs->cp.logs[i].offset))
			fs->cp.logs[i].offset = cpu_to_le32(log_offset[i]);
	gaze_space_destroy(fs);
	return gaze_space_init(fs);
}
