// SPDX-License-Identifier: GPL-2.0
/*
 * checkpoint.c - writing and finding checkpoint packs.
 *
 * Why: the checkpoint is the only place where a set of changes becomes
 * durable as a whole.  Everything written since the last one (nodes,
 * directory blocks, table blocks) lands in fresh places, so the previous
 * checkpoint stays intact until a new pack (head, payload, trailer) has
 * been written after all of it and flushed.  A pack is valid only when
 * its head and trailer agree and every block verifies, so a torn pack is
 * recognised and the previous one is mounted instead.
 *
 * Packs are appended to one of the two checkpoint zones.  When the active
 * zone has no room for the next pack, the other zone is reset, its
 * superblock copy rewritten and the pack written right after it; the old
 * zone keeps the previous generation until the next switch.
 *
 * Order of a checkpoint: directory blocks, nodes (which dirty the imap
 * and the space tables), the meta-ring check, tables, then a device flush
 * (everything above must be durable before the pack), the pack in one
 * write, and another flush.  Only then is the in-memory state advanced.
 *
 * Locking: fs->lock, held by the caller.
 */
#include "gaze_core.h"

static u32
cp_max_slots(const struct gaze_super *sb)
{
	u32 t, n = 0;

	for (t = 0; t < GAZE_NR_TABLES; t++)
		n += le32_to_cpu(sb->table_index_blocks[t]);
	return n;
}

/* the table slots, then room for the orphan list (orphan.c) */
u32
gaze_cp_max_pack(const struct gaze_super *sb)
{
	return 2 + DIV_ROUND_UP(cp_max_slots(sb) + GAZE_ORPHANS_MAX,
				GAZE_ADDRS_PER_BLOCK);
}

/*
 * Finishes a sequential zone left partly written (the checkpoint zone
 * being left), so it does not hold one of the device's active-zone slots:
 * GAZE budgets only one checkpoint zone among its open zones.
 */
int
gaze_cp_zone_finish(struct gaze_fs *fs, u32 zone)
{
	struct gaze_zone z;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return 0;
	ret = gaze_zone_report(fs, zone, &z);
	if (ret)
		return ret;
	if (z.type != GAZE_ZT_SEQ || z.cond == GAZE_ZC_EMPTY ||
	    z.cond == GAZE_ZC_FULL || !fs->dev->ops->finish)
		return 0;
	return fs->dev->ops->finish(fs->dev, zone);
}

/* resets checkpoint zone `zone` (sequential zones) and writes its
 * superblock copy at block 0; the zone left behind is finished */
static int
cp_zone_switch(struct gaze_fs *fs, u32 zone)
{
	u32 zb = le32_to_cpu(fs->sb.zone_blocks);
	struct gaze_super *sb;
	struct gaze_zone z;
	int ret;

	ret = gaze_cp_zone_finish(fs, fs->cp_zone);
	if (ret)
		return ret;

	ret = gaze_zone_report(fs, zone, &z);
	if (ret)
		return ret;
	if (z.type == GAZE_ZT_SEQ && z.cond != GAZE_ZC_EMPTY) {
		gaze_fs_zone_reset_note(fs);
		ret = fs->dev->ops->reset(fs->dev, zone, 1);
		if (ret)
			return ret;
	}
	sb = gaze_alloc(sizeof(*sb));
	if (!sb)
		return -ENOMEM;
	memcpy(sb, &fs->sb, sizeof(*sb));
	sb->hdr.index = cpu_to_le32(zone - le32_to_cpu(fs->sb.cp_zone_start));
	sb->hdr.blkaddr = cpu_to_le64((u64)zone * zb);
	gaze_fmt_csum_set(sb);
	ret = fs->dev->ops->write(fs->dev, (u64)zone * zb, 1, sb);
	gaze_free(sb);
	return ret;
}

static void
cp_build_pack(struct gaze_fs *fs, u8 *pack, u32 nblocks, u64 blkaddr,
	      const struct gaze_cp_head *tmp, const __le64 *slots, u32 nslots,
	      u32 flags)
{
	struct gaze_cp_head *head = (struct gaze_cp_head *)pack;
	struct gaze_cp_trailer *tr;
	struct gaze_cp_payload *pl;
	u64 seq = fs->cp_seq + 1;
	u32 k, n, nr_orphans = nslots - le32_to_cpu(tmp->orphan_ofs);

	/* counters no one here changes are carried over */
	head->compr_logical_blocks = fs->cp.compr_logical_blocks;
	head->compr_physical_blocks = fs->cp.compr_physical_blocks;
	head->gc_zones_reclaimed = fs->cp.gc_zones_reclaimed;
	head->gc_blocks_moved = fs->cp.gc_blocks_moved;
	head->prealloc_blocks = fs->cp.prealloc_blocks;
	head->mount_count = fs->cp.mount_count;
	gaze_fmt_hdr_init(head, GAZE_MAGIC_CP_HEAD, fs->uuid, blkaddr, seq, 0,
			  0, 0);
	head->pack_blocks = cpu_to_le32(nblocks);
	head->flags = cpu_to_le32(flags | (nr_orphans ? GAZE_CP_ORPHANS : 0) |
			(le32_to_cpu(fs->cp.flags) & GAZE_CP_FSCK_NEEDED));
	head->elapsed = cpu_to_le64(gaze_fs_age(fs));
	head->valid_inodes = cpu_to_le32((u32)fs->valid_inodes);
	head->next_nid = cpu_to_le32(fs->next_nid < le32_to_cpu(fs->sb.max_nid) ?
				     fs->next_nid : GAZE_ROOT_INO + 1);
	head->nr_orphans = cpu_to_le32(nr_orphans);
	head->orphan_ofs = tmp->orphan_ofs;
	memcpy(head->tables, tmp->tables, sizeof(head->tables));
	gaze_space_fill_cp(fs, head);
	gaze_fmt_csum_set(head);

	for (k = 1; k + 1 < nblocks; k++) {
		pl = (struct gaze_cp_payload *)(pack + (size_t)k *
						GAZE_BLOCK_SIZE);
		gaze_fmt_hdr_init(pl, GAZE_MAGIC_CP_PAYLOAD, fs->uuid,
				  blkaddr + k, seq, 0, 0, k);
		n = min_t(u32, GAZE_ADDRS_PER_BLOCK,
			  nslots - (k - 1) * GAZE_ADDRS_PER_BLOCK);
		memcpy(pl->slot, slots + (size_t)(k - 1) * GAZE_ADDRS_PER_BLOCK,
		       n * sizeof(__le64));
		gaze_fmt_csum_set(pl);
	}
	tr = (struct gaze_cp_trailer *)(pack + (size_t)(nblocks - 1) *
					GAZE_BLOCK_SIZE);
	gaze_fmt_hdr_init(tr, GAZE_MAGIC_CP_TRAIL, fs->uuid,
			  blkaddr + nblocks - 1, seq, 0, 0, nblocks - 1);
	tr->pack_blocks = cpu_to_le32(nblocks);
	tr->head_crc = head->hdr.crc;
	gaze_fmt_csum_set(tr);
}

int
gaze_cp_write(struct gaze_fs *fs, u32 flags)
{
	u32 zb = le32_to_cpu(fs->sb.zone_blocks);
	u32 cap = le32_to_cpu(fs->sb.zone_cap);
	u32 cp_start = le32_to_cpu(fs->sb.cp_zone_start);
	u32 max_slots, nslots = 0, nblocks, zone, off;
	struct gaze_cp_head *tmp;
	__le64 *slots;
	u8 *pack;
	u64 blkaddr;
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	if (fs->gcw) {		/* no copy in flight without its owner */
		gaze_gcp_settle(fs);
		gaze_stat_inc(fs, GAZE_STAT_GCW_CP);
	}
	ret = gaze_fs_flush_dirty(fs);
	if (ret)
		return ret;
	ret = gaze_meta_prepare(fs);
	if (ret)
		return ret;

	max_slots = cp_max_slots(&fs->sb);
	tmp = gaze_zalloc(sizeof(*tmp));
	slots = gaze_alloc(((size_t)max_slots + GAZE_ORPHANS_MAX) *
			   sizeof(__le64));
	if (!tmp || !slots) {
		ret = -ENOMEM;
		goto out_free;
	}
	tmp->hdr.seq = cpu_to_le64(fs->cp_seq + 1);
	ret = gaze_tables_flush(fs, tmp, slots, &nslots, max_slots);
	if (ret)
		goto out_free;
	/* the orphan list follows the tables */
	tmp->orphan_ofs = cpu_to_le32(nslots);
	nslots += gaze_orphans_fill(fs, slots + nslots);

	nblocks = 2 + DIV_ROUND_UP(nslots, GAZE_ADDRS_PER_BLOCK);
	zone = fs->cp_zone;
	off = fs->cp_offset;
	if (off + nblocks > cap) {
		if (1 + nblocks > cap) {
			gaze_err("a checkpoint pack of %u blocks does not fit in a zone",
				 nblocks);
			ret = -ENOSPC;
			goto out_free;
		}
		zone = cp_start + (zone == cp_start ? 1 : 0);
		ret = cp_zone_switch(fs, zone);
		if (ret)
			goto out_free;
		off = 1;
	}
	blkaddr = (u64)zone * zb + off;

	pack = gaze_zalloc((size_t)nblocks * GAZE_BLOCK_SIZE);
	if (!pack) {
		ret = -ENOMEM;
		goto out_free;
	}
	cp_build_pack(fs, pack, nblocks, blkaddr, tmp, slots, nslots, flags);

	/* everything the pack points at is durable before the pack */
	ret = fs->dev->ops->flush(fs->dev);
	if (!ret)
		ret = fs->dev->ops->write(fs->dev, blkaddr, nblocks, pack);
	if (!ret)
		ret = fs->dev->ops->flush(fs->dev);
	if (ret) {
		gaze_err("writing checkpoint %llu failed: %d",
			 (unsigned long long)fs->cp_seq + 1, ret);
		/*
		 * A later pack must not land after a half-written one.  If
		 * the pack stayed in the committed zone, the next one goes to
		 * the other zone; if it had switched zones, the committed
		 * zone is left as it is and the next attempt redoes the
		 * switch (reset, superblock, pack at block 1).
		 */
		if (zone == fs->cp_zone)
			fs->cp_offset = cap;
		goto out_free_pack;
	}

	memcpy(&fs->cp, pack, sizeof(fs->cp));
	fs->cp_seq++;
	gaze_stat_inc(fs, GAZE_STAT_CP);
	fs->cp_zone = zone;
	fs->cp_offset = off + nblocks;
	/* the roll-forward chains start afresh at the logs' heads */
	fs->rf_need_cp = false;
	fs->rf_ino_off = false;
	fs->rf_ns = false;
	fs->rf_epoch++;
	WRITE_ONCE(fs->cp_wanted, false);
	memset(fs->rf_log, 0, sizeof(fs->rf_log));
	fs->rf_blocks = 0;
	ret = gaze_space_cp_committed(fs);

out_free_pack:
	gaze_free(pack);
out_free:
	gaze_free(slots);
	gaze_free(tmp);
	return ret;
}

int
gaze_cp_renew_zones(struct gaze_fs *fs)
{
	u32 i;
	int ret = 0;

	/* a pack that does not fit where the next would go switches
	 * zones: the other zone is reset and its superblock copy
	 * rewritten first (gaze_cp_write) */
	for (i = 0; i < 2 && !ret; i++) {
		fs->cp_offset = le32_to_cpu(fs->sb.zone_cap);
		ret = gaze_cp_write(fs, 0);
	}
	return ret;
}

/* ---------------------------------------------------------------- */
/* Discovery                                                         */
/* ---------------------------------------------------------------- */

int
gaze_cp_verify_pack(const struct gaze_super *sb,
		    const struct gaze_cp_head *head, const u8 *rest,
		    u64 blkaddr, const char **why)
{
	u32 nblocks = le32_to_cpu(head->pack_blocks);
	u64 seq = le64_to_cpu(head->hdr.seq);
	const struct gaze_cp_trailer *tr;
	const struct gaze_mhdr *h;
	u32 k;
	int ret;

	for (k = 1; k + 1 < nblocks; k++) {
		h = (const void *)(rest + (size_t)(k - 1) * GAZE_BLOCK_SIZE);
		ret = gaze_fmt_hdr_verify(h, GAZE_MAGIC_CP_PAYLOAD,
					  gaze_sb_meta_uuid(sb),
					  blkaddr + k, why);
		if (ret)
			return ret;
		if (le64_to_cpu(h->seq) != seq || le32_to_cpu(h->index) != k ||
		    h->nid || h->ino || h->flags || h->next) {
			*why = "payload block header does not match the head";
			return -EFSCORRUPTED;
		}
	}
	tr = (const void *)(rest + (size_t)(nblocks - 2) * GAZE_BLOCK_SIZE);
	ret = gaze_fmt_hdr_verify(tr, GAZE_MAGIC_CP_TRAIL,
				  gaze_sb_meta_uuid(sb), blkaddr + nblocks - 1,
				  why);
	if (ret)
		return ret;
	if (le64_to_cpu(tr->hdr.seq) != seq ||
	    le32_to_cpu(tr->pack_blocks) != nblocks ||
	    tr->head_crc != head->hdr.crc) {
		*why = "trailer does not match the head";
		return -EFSCORRUPTED;
	}
	return 0;
}

/*
 * The pack whose head is at block `off` of the zone: 0 when it is valid
 * (buf: head and rest, *nb its blocks, *seq), -ENODATA when the block is
 * no checkpoint head of this filesystem (*zero: it is all zeros), else the verifier's
 * error with *why, and *seq / *nb from the head when the head itself
 * verified (0 otherwise).
 */
static int
cp_try(struct gaze_dev *dev, const struct gaze_super *sb, u32 zone, u32 off,
       u64 limit, u8 *buf, u32 *nb, u64 *seq, bool *zero, const char **why)
{
	struct gaze_cp_head *head = (struct gaze_cp_head *)buf;
	u64 blkaddr = (u64)zone * le32_to_cpu(sb->zone_blocks) + off;
	int ret;

	*nb = 0;
	*seq = 0;
	*zero = false;
	*why = NULL;
	ret = dev->ops->read(dev, blkaddr, 1, head);
	if (ret)
		return ret;
	if (le32_to_cpu(head->hdr.magic) != GAZE_MAGIC_CP_HEAD) {
		*zero = gaze_fmt_is_zero(head, GAZE_BLOCK_SIZE);
		*why = *zero ? "the block is all zeros" :
			       "the block is not a checkpoint head";
		return -ENODATA;
	}
	/*
	 * A head whose checksum holds but whose uuid is not ours was
	 * written by an earlier filesystem on this device (a conventional
	 * zone keeps it across mkfs): no block of ours, so no claim.
	 */
	if (le32_to_cpu(head->hdr.crc) == gaze_fmt_block_crc(head) &&
	    memcmp(head->hdr.uuid, gaze_sb_meta_uuid(sb),
		   sizeof(head->hdr.uuid))) {
		*why = "a checkpoint of an earlier filesystem";
		return -ENODATA;
	}
	/* what the head claims, verified or not: a damaged pack that
	 * claims to be newer than the last valid one matters */
	*seq = le64_to_cpu(head->hdr.seq);
	ret = gaze_fmt_cp_head_verify(head, sb, blkaddr, why);
	if (ret)
		return ret;
	*nb = le32_to_cpu(head->pack_blocks);
	if (*nb > gaze_cp_max_pack(sb) || off + *nb > limit) {
		*why = "pack runs past the written part of the zone";
		return -EFSCORRUPTED;
	}
	ret = dev->ops->read(dev, blkaddr + 1, *nb - 1, buf + GAZE_BLOCK_SIZE);
	if (ret)
		return ret;
	return gaze_cp_verify_pack(sb, head, buf + GAZE_BLOCK_SIZE, blkaddr,
				   why);
}

/*
 * After a damaged pack at `off`: the first valid pack newer than `last`
 * that begins within a pack's length from there (a pack is at most
 * gaze_cp_max_pack blocks, so the next one cannot begin later), or 0.
 */
static u32
cp_resync(struct gaze_dev *dev, const struct gaze_super *sb, u32 zone,
	  u32 off, u64 limit, u64 last, u8 *buf)
{
	u64 end = min_t(u64, limit, (u64)off + gaze_cp_max_pack(sb) + 1);
	const char *why;
	bool zero;
	u64 seq;
	u32 o, nb;

	for (o = off + 1; o + 2 <= end; o++)
		if (!cp_try(dev, sb, zone, o, limit, buf, &nb, &seq, &zero,
			    &why) && seq > last)
			return o;
	return 0;
}

int
gaze_cp_walk_zone(struct gaze_dev *dev, const struct gaze_super *sb, u32 zone,
		  u8 *buf, gaze_cp_seen_fn fn, void *arg,
		  struct gaze_cp_zone_end *end)
{
	u32 cap = le32_to_cpu(sb->zone_cap), off = 1, nb, next;
	struct gaze_cp_seen s;
	struct gaze_zone z;
	u64 last = 0, limit = cap, seq;
	bool seq_zone, zero, zero_end;
	const char *why;
	int ret;

	memset(end, 0, sizeof(*end));
	ret = dev->ops->report(dev, zone, 1, &z);
	if (ret < 0)
		return ret;
	if (ret != 1)
		return -EIO;
	seq_zone = z.type == GAZE_ZT_SEQ;
	if (seq_zone && z.cond != GAZE_ZC_FULL)
		limit = min_t(u64, cap, z.wp - z.start);
	/* a finished zone reads zeros past what was written (a zone being
	 * left is finished: gaze_cp_zone_finish) */
	zero_end = seq_zone && z.cond == GAZE_ZC_FULL;
	end->next = off;
	while (off + 2 <= limit) {
		ret = cp_try(dev, sb, zone, off, limit, buf, &nb, &seq, &zero,
			     &why);
		if (ret && ret != -ENODATA && ret != -EFSCORRUPTED &&
		    ret != -EFSBADCRC)
			return ret;		/* the device failed */
		if (!ret && seq <= last)
			break;			/* stale pack from before a reset */
		memset(&s, 0, sizeof(s));
		s.zone = zone;
		s.off = off;
		if (!ret) {
			s.nblocks = nb;
			s.seq = seq;
			s.head = (const struct gaze_cp_head *)buf;
			ret = fn(arg, &s);
			if (ret)
				return ret;
			last = seq;
			off += nb;
			end->next = off;
			end->valid++;
			continue;
		}
		/*
		 * Not a valid pack.  Past the end of what was written (a
		 * zero or foreign block where no written block is known to
		 * be, and no newer pack right after), the log ends here.
		 * Otherwise it is damage: reported, and the walk goes on at
		 * the next valid pack, so one bad block never hides the
		 * newer packs behind it.
		 */
		next = cp_resync(dev, sb, zone, nb && seq > last ? off + nb - 1 :
				 off, limit, last, buf);
		/*
		 * Nothing valid after it.  In a sequential zone below its
		 * write pointer that is damage; in a finished zone zeros
		 * are the end; elsewhere (conventional zones keep whatever
		 * was there before) only a head claiming to be newer than
		 * the last valid pack is: a torn or damaged newest pack.
		 */
		if (!next && ((seq_zone && zero_end && zero) ||
			      (!seq_zone && seq <= last)))
			break;
		s.nblocks = next ? next - off : (u32)(limit - off);
		s.seq = seq > last ? seq : 0;
		s.err = ret == -ENODATA ? -EFSCORRUPTED : ret;
		s.why = why ? why : "bad block";
		end->damaged++;
		if (!next)
			end->damage_after = true;
		ret = fn(arg, &s);
		if (ret)
			return ret;
		if (!next)
			break;
		off = next;
	}
	/*
	 * A sequential zone is only appended at its write pointer: with
	 * anything written after its last valid pack (damage, or a pack
	 * torn too short to check), the next pack goes to the other zone.
	 * Conventional zones overwrite the junk.
	 */
	if (seq_zone && (end->damage_after || end->next < limit))
		end->next = cap;
	return 0;
}

struct cp_scan {
	struct gaze_cp_head *best;	/* newest valid head so far */
	struct gaze_cp_head *prev;	/* the valid head before it */
	bool	have, have_prev;
	u32	best_zone, prev_zone;
	u32	best_off, prev_off;
	u64	bad_seq;		/* newest damaged pack that said so */
	u32	damaged;		/* damaged packs seen */
};

static int
cp_scan_seen(void *arg, const struct gaze_cp_seen *s)
{
	struct cp_scan *sc = arg;

	if (s->err) {
		sc->damaged++;
		if (s->seq > sc->bad_seq)
			sc->bad_seq = s->seq;
		gaze_warn("checkpoint zone %u block %u: a damaged pack (%s)%s",
			  s->zone, s->off, s->why,
			  s->seq ? "" : ", its sequence number unknown");
		return 0;
	}
	if (sc->have && s->seq <= le64_to_cpu(sc->best->hdr.seq)) {
		if (!sc->have_prev ||
		    s->seq > le64_to_cpu(sc->prev->hdr.seq)) {
			sc->have_prev = true;
			memcpy(sc->prev, s->head, sizeof(*sc->prev));
			sc->prev_zone = s->zone;
			sc->prev_off = s->off;
		}
		return 0;
	}
	if (sc->have) {
		sc->have_prev = true;
		memcpy(sc->prev, sc->best, sizeof(*sc->prev));
		sc->prev_zone = sc->best_zone;
		sc->prev_off = sc->best_off;
	}
	sc->have = true;
	memcpy(sc->best, s->head, sizeof(*sc->best));
	sc->best_zone = s->zone;
	sc->best_off = s->off;
	return 0;
}

int
gaze_cp_find(struct gaze_fs *fs)
{
	u32 start = le32_to_cpu(fs->sb.cp_zone_start);
	u32 count = le32_to_cpu(fs->sb.cp_zone_count);
	struct gaze_cp_zone_end ends[2];
	struct cp_scan sc = { 0 };
	struct gaze_cp_head *use;
	u32 c, zone, off;
	u8 *buf;
	int ret = 0;

	if (count > 2)
		count = 2;
	sc.best = gaze_alloc(sizeof(*sc.best));
	sc.prev = gaze_alloc(sizeof(*sc.prev));
	buf = gaze_alloc((size_t)gaze_cp_max_pack(&fs->sb) * GAZE_BLOCK_SIZE);
	if (!sc.best || !sc.prev || !buf) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (c = 0; c < count; c++) {
		ret = gaze_cp_walk_zone(fs->dev, &fs->sb, start + c, buf,
					cp_scan_seen, &sc, &ends[c]);
		if (ret) {
			gaze_err("reading checkpoint zone %u failed: %d",
				 start + c, ret);
			goto out_free;
		}
	}
	if (!sc.have) {
		gaze_err("no valid checkpoint found");
		ret = -EFSCORRUPTED;
		goto out_free;
	}
	use = sc.best;
	zone = sc.best_zone;
	off = sc.best_off;
	if (fs->flags & GAZE_FS_CP_PREV) {
		if (!sc.have_prev) {
			gaze_err("no valid checkpoint before seq %llu",
				 (unsigned long long)le64_to_cpu(sc.best->hdr.seq));
			ret = -EFSCORRUPTED;
			goto out_free;
		}
		use = sc.prev;
		zone = sc.prev_zone;
		off = sc.prev_off;
	}
	memcpy(&fs->cp, use, sizeof(fs->cp));
	fs->cp_seq = le64_to_cpu(use->hdr.seq);
	/* a repair from the previous checkpoint numbers its first pack
	 * above every pack there is, so that it supersedes them */
	if (use != sc.best && !(fs->flags & GAZE_FS_RDONLY))
		fs->cp_seq = max(le64_to_cpu(sc.best->hdr.seq), sc.bad_seq);
	fs->cp_zone = zone;
	fs->cp_damaged = sc.damaged;
	/*
	 * The next pack goes after the newest valid one in its zone.  From
	 * the previous checkpoint (GAZE_FS_CP_PREV: read-only, or a repair)
	 * it goes to the other zone, which is reset first: the newer packs
	 * there, or after the previous one in its own zone, are superseded.
	 */
	fs->cp_offset = use == sc.best ? ends[zone - start].next :
			le32_to_cpu(fs->sb.zone_cap);
	if (sc.damaged)
		gaze_warn("%u damaged checkpoint pack%s skipped; using seq %llu at zone %u block %u",
			  sc.damaged, sc.damaged == 1 ? "" : "s",
			  (unsigned long long)fs->cp_seq, zone, off);
out_free:
	gaze_free(buf);
	gaze_free(sc.prev);
	gaze_free(sc.best);
	return ret;
}
