// SPDX-License-Identifier: GPL-2.0
/*
 * recover.c - roll-forward of nodes written by fsync after the checkpoint.
 *
 * Why: fsync must not cost a whole checkpoint (tables, a pack, two device
 * flushes and meta-ring space).  gaze_fs_fsync writes only the dirty
 * nodes, marked GAZE_NF_FSYNC, the last one GAZE_NF_FSYNC_END, and
 * flushes; a mount after a crash finds them by following each node log
 * from the position the checkpoint recorded (format.md section 17) and
 * replays them.
 *
 * The chain.  Every node block names in hdr.next the block its log writes
 * after it, so the blocks a log wrote after the checkpoint form a chain
 * from the checkpoint's log head.  A block belongs to it when it lies
 * below its zone's write pointer, verifies as a node at that address,
 * carries seq = checkpoint + 1 and maps only data blocks that lie below
 * their zones' write pointers (rf_data_kept); the first block that does
 * not ends the chain.  Nodes up to the chain's last end mark are
 * replayed, in chain order; what follows it (a cut-short fsync, nodes
 * written by cache pressure) is dropped, and so is its space.
 *
 * What a replay does, per node: the data slots of its old version (the
 * checkpoint's, or the one replayed before it) and of the new one are
 * compared; blocks only the old one holds are invalidated, blocks only
 * the new one holds become valid (gaze_block_claim); then the node's own
 * block becomes valid, its old one invalid, and the imap points at it.
 * The compression counters move by the packed clusters whose first slot
 * changed and by the inode's compr_blocks, the preallocated count
 * (cp prealloc_blocks) by the slots that became or stopped being
 * GAZE_ADDR_PREALLOC.
 * gaze_fs_fsync guarantees that nothing else changed since the
 * checkpoint: no freed node, no change of the orphan list, and without
 * the feature fsync_namespace no namespace operation and no new inode
 * (see fs->rf_need_cp), so nodes are all there is to replay.  With it, a
 * new inode (not in the checkpoint's imap) is replayed like any node and
 * counted; its name comes with its directory's nodes and the directory
 * blocks they map, which fsync wrote before the chain.
 *
 * A read-only open only walks the chains and counts what a read-write
 * one would replay (fs->rf_pending), so a read-only mount or fsck -n can
 * say so (and the module replays first when the device is writable).
 *
 * Locking: none; runs inside gaze_fs_open on an instance nobody else
 * sees, before the device is synced (space.c), so zones that hold the
 * chain are claimed before unused ones are reset.
 */
#include "gaze_core.h"

struct rf_chain {
	u64	*addr;		/* blocks of the chain, in order */
	u32	n, cap;
	u32	end;		/* blocks up to the last end mark */
	u32	*wp;		/* main zone -> written blocks, or NULL */
};

static int
rf_push(struct rf_chain *c, u64 addr)
{
	u64 *a;

	if (c->n == c->cap) {
		u32 cap = c->cap ? c->cap * 2 : 64;

		a = gaze_alloc((size_t)cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		if (c->n)
			memcpy(a, c->addr, (size_t)c->n * sizeof(*a));
		gaze_free(c->addr);
		c->addr = a;
		c->cap = cap;
	}
	c->addr[c->n++] = addr;
	return 0;
}

/* the node magic a block claims to have, if it is one */
static bool
rf_node_magic(const void *blk, u32 *magic)
{
	*magic = le32_to_cpu(((const struct gaze_mhdr *)blk)->magic);
	return *magic == GAZE_MAGIC_INODE || *magic == GAZE_MAGIC_DNODE ||
	       *magic == GAZE_MAGIC_INODE_IND || *magic == GAZE_MAGIC_XATTR;
}

#define RF_REPORT_BATCH	64u

/* the written blocks of a reported zone: its write pointer, or the whole
 * capacity for a full zone or one without a write pointer */
static u32
rf_zone_written(const struct gaze_zone *z, u32 cap)
{
	if (z->type != GAZE_ZT_SEQ || z->cond == GAZE_ZC_FULL)
		return cap;
	return (u32)min_t(u64, z->wp - z->start, cap);
}

/* the written part of every main zone, in blocks (its write pointer;
 * the capacity for a zone without one), into c->wp */
static int
rf_load_wps(struct gaze_fs *fs, struct rf_chain *c)
{
	u32 cap = le32_to_cpu(fs->sb.zone_cap), first = fs->lay.main_zone_start;
	u32 nr = fs->lay.main_zone_count, i, k;
	struct gaze_zone *rep;
	int n, ret = 0;

	c->wp = gaze_alloc((size_t)nr * sizeof(u32));
	rep = gaze_alloc(RF_REPORT_BATCH * sizeof(*rep));
	if (!c->wp || !rep) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i += (u32)n) {
		n = fs->dev->ops->report(fs->dev, first + i,
					 min(RF_REPORT_BATCH, nr - i), rep);
		if (n <= 0) {
			ret = n ? n : -EIO;
			goto out;
		}
		for (k = 0; k < (u32)n; k++)
			c->wp[i + k] = rf_zone_written(&rep[k], cap);
	}
out:
	gaze_free(rep);
	return ret;
}

/* block addr's zone, checked to be in the main area */
static bool
rf_in_main(struct gaze_fs *fs, u64 addr, u32 *zone, u32 *off)
{
	u32 zb = le32_to_cpu(fs->sb.zone_blocks);
	u64 z = addr / zb;

	*off = (u32)(addr % zb);
	*zone = (u32)z;
	return z >= fs->lay.main_zone_start &&
	       z < fs->lay.main_zone_start + fs->lay.main_zone_count &&
	       *off < le32_to_cpu(fs->sb.zone_cap);
}

/* the data block slots of a node (none for inline or non-map nodes) */
static const __le64 *
rf_slots(const void *blk, u32 *n)
{
	const struct gaze_inode *in = blk;

	*n = 0;
	switch (le32_to_cpu(in->hdr.magic)) {
	case GAZE_MAGIC_INODE:
		if (le32_to_cpu(in->flags) &
		    (GAZE_IF_INLINE_DATA | GAZE_IF_INLINE_DENTRY))
			return NULL;
		*n = GAZE_ADDRS_PER_INODE;
		return in->i.addr;
	case GAZE_MAGIC_DNODE:
		*n = GAZE_ADDRS_PER_DNODE;
		return ((const struct gaze_dnode *)blk)->addr;
	}
	return NULL;
}

/* whether a block lies below its zone's write pointer (was kept) */
static bool
rf_written(struct gaze_fs *fs, const struct rf_chain *c, u64 addr)
{
	u32 zone, off;

	return rf_in_main(fs, addr, &zone, &off) &&
	       off < c->wp[zone - fs->lay.main_zone_start];
}

/*
 * Whether every data block a node maps lies below its zone's write
 * pointer.  fsync flushes data before nodes only where the device has no
 * write pointers (gaze_fs_fsync); on sequential zones a data write lost
 * to a crash leaves its zone's write pointer behind it, and a node that
 * maps such a block belongs to an fsync that never completed.
 */
static bool
rf_data_kept(struct gaze_fs *fs, const struct rf_chain *c, const void *blk)
{
	const __le64 *s;
	u32 n, i;
	u64 a;

	s = rf_slots(blk, &n);
	for (i = 0; i < n; i++) {
		a = le64_to_cpu(s[i]);
		if (GAZE_ADDR_IS_REAL(a) && !rf_written(fs, c, a))
			return false;
	}
	return true;
}

/* follows physical log li's chain from the checkpoint; fills c */
static int
rf_walk(struct gaze_fs *fs, u32 li, void *blk, struct rf_chain *c)
{
	u64 addr = gaze_log_cp_start(fs, li), limit = fs->lay.main_zone_count *
		   (u64)le32_to_cpu(fs->sb.zone_cap);
	const struct gaze_mhdr *h = blk;
	u32 magic;
	const char *why;
	int ret;

	while (addr && c->n < limit) {
		if (!rf_written(fs, c, addr))
			break;
		if (gaze_block_read(fs, addr, blk))
			break;	/* the chain ends at an unreadable block */
		why = NULL;
		if (!rf_node_magic(blk, &magic) ||
		    le64_to_cpu(h->seq) != fs->cp_seq + 1 ||
		    gaze_node_check(fs, blk, le32_to_cpu(h->nid), magic, addr,
				    &why) || !rf_data_kept(fs, c, blk))
			break;
		ret = rf_push(c, addr);
		if (ret)
			return ret;
		if (le16_to_cpu(h->flags) & GAZE_NF_FSYNC_END)
			c->end = c->n;
		addr = le64_to_cpu(h->next);
		/* a log goes on in its zone, or at the start of another */
		if (addr != c->addr[c->n - 1] + 1 &&
		    addr % le32_to_cpu(fs->sb.zone_blocks))
			break;
	}
	return 0;
}

/*
 * The checkpoint's compression counters follow what is replayed: the
 * stream blocks of packed clusters whose first slot comes or goes, and
 * (rf_compr_saved) the blocks an inode's clusters save
 */
static void
rf_compr_phys(struct gaze_fs *fs, u64 slot, int sign)
{
	s64 n;

	if (!GAZE_ADDR_IS_CLUSTER(slot))
		return;
	n = sign * (s64)GAZE_ADDR_CLUSTER_NR(slot);
	fs->cp.compr_physical_blocks = cpu_to_le64(
		le64_to_cpu(fs->cp.compr_physical_blocks) + (u64)n);
	fs->cp.compr_logical_blocks = cpu_to_le64(
		le64_to_cpu(fs->cp.compr_logical_blocks) + (u64)n);
}

static void
rf_compr_saved(struct gaze_fs *fs, const void *old, const void *new)
{
	const struct gaze_inode *o = old, *n = new;

	if (le32_to_cpu(n->hdr.magic) != GAZE_MAGIC_INODE)
		return;
	fs->cp.compr_logical_blocks = cpu_to_le64(
		le64_to_cpu(fs->cp.compr_logical_blocks) +
		le64_to_cpu(n->compr_blocks) -
		(o ? le64_to_cpu(o->compr_blocks) : 0));
}

/* moves the data blocks that differ between old (may be NULL) and new */
static int
rf_replay_slots(struct gaze_fs *fs, u32 nid, const void *old,
		const void *new)
{
	const __le64 *os = NULL, *ns;
	u32 on = 0, nn, i;
	u64 o, n;
	int ret;

	if (old)
		os = rf_slots(old, &on);
	ns = rf_slots(new, &nn);
	for (i = 0; i < max(on, nn); i++) {
		o = i < on ? le64_to_cpu(os[i]) : 0;
		n = i < nn ? le64_to_cpu(ns[i]) : 0;
		if (o == n)
			continue;
		rf_compr_phys(fs, o, -1);
		rf_compr_phys(fs, n, 1);
		gaze_space_slot_changed(fs, o, n);
		if (GAZE_ADDR_IS_REAL(o)) {
			ret = gaze_block_invalidate(fs, o);
			if (ret)
				return ret;
		}
		if (GAZE_ADDR_IS_REAL(n)) {
			ret = gaze_block_claim(fs, n, nid, (u16)i,
					       GAZE_SUM_DATA,
					       GAZE_LOG_DATA_WARM);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * The log type node blk was written by, walking physical log li: its own,
 * or (fsync_namespace: node.c node_fsync_type) the warm node log's
 */
static int
rf_log_type(struct gaze_fs *fs, u32 li, const void *blk)
{
	int type = gaze_node_log_type(blk);

	return (u32)gaze_log_of_type(fs, type) == li ? type :
	       GAZE_LOG_NODE_WARM;
}

/* replays the node in blk, written at addr by log li; old: scratch */
static int
rf_replay(struct gaze_fs *fs, u32 li, u64 addr, const void *blk, void *old)
{
	const struct gaze_mhdr *h = blk;
	u32 nid = le32_to_cpu(h->nid), magic = le32_to_cpu(h->magic);
	const char *why = NULL;
	struct gaze_mbuf *mb;
	u64 prev;
	int ret;

	ret = gaze_imap_get(fs, nid, &prev);
	if (ret)
		return ret;
	if (prev && !GAZE_ADDR_IS_REAL(prev)) {
		gaze_err("roll-forward: node %u has no block in the checkpoint (imap %llx)",
			 nid, (unsigned long long)prev);
		return -EFSCORRUPTED;
	}
	if (!prev && magic == GAZE_MAGIC_INODE) {
		if (!gaze_sb_fsync_ns(&fs->sb)) {
			gaze_err("roll-forward: inode %u at %llu is not in the checkpoint",
				 nid, (unsigned long long)addr);
			return -EFSCORRUPTED;
		}
		/* a new inode: its name is in its directory's replay */
		WRITE_ONCE(fs->valid_inodes, fs->valid_inodes + 1);
	}
	if (prev) {
		ret = gaze_block_read(fs, prev, old);
		if (!ret)
			ret = gaze_node_check(fs, old, nid, magic, prev, &why);
		if (ret) {
			gaze_err("roll-forward: node %u at %llu: %s", nid,
				 (unsigned long long)prev, why ? why : "unreadable");
			return ret;
		}
	}
	ret = rf_replay_slots(fs, nid, prev ? old : NULL, blk);
	if (ret)
		return ret;
	rf_compr_saved(fs, prev ? old : NULL, blk);
	ret = gaze_block_claim(fs, addr, nid, 0, GAZE_SUM_NODE,
			       rf_log_type(fs, li, blk));
	if (!ret && prev)
		ret = gaze_block_invalidate(fs, prev);
	if (!ret)
		ret = gaze_imap_set(fs, nid, addr);
	mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, nid, 0);
	if (mb)
		gaze_mbuf_forget(fs, mb);	/* stale: read again */
	return ret;
}

/* replays the first c->end blocks of a chain */
static int
rf_replay_chain(struct gaze_fs *fs, u32 li, const struct rf_chain *c,
		void *blk, void *old)
{
	u32 i;
	int ret;

	for (i = 0; i < c->end; i++) {
		ret = gaze_block_read(fs, c->addr[i], blk);
		if (ret)
			return ret;
		ret = rf_replay(fs, li, c->addr[i], blk, old);
		if (ret)
			return ret;
		fs->rf_recovered++;
	}
	return 0;
}

/*
 * Whether physical log li wrote anything after the checkpoint: its chain's
 * first block lies below its zone's write pointer.  Without that in any
 * log (a crash with nothing written since the checkpoint) the mount need
 * not report every zone.
 */
static bool
rf_log_written(struct gaze_fs *fs, u32 li)
{
	u64 addr = gaze_log_cp_start(fs, li);
	struct gaze_zone z;
	u32 zone, off;

	if (!addr || !rf_in_main(fs, addr, &zone, &off) ||
	    gaze_zone_report(fs, zone, &z))
		return false;
	return off < rf_zone_written(&z, le32_to_cpu(fs->sb.zone_cap));
}

/* the physical logs that hold nodes, each once */
static u32
rf_node_logs(struct gaze_fs *fs, u32 *logs)
{
	u32 n = 0, k;
	int t;

	for (t = GAZE_LOG_NODE_HOT; t <= GAZE_LOG_NODE_COLD; t++) {
		u32 li = (u32)gaze_log_of_type(fs, t);

		for (k = 0; k < n && logs[k] != li; k++)
			;
		if (k == n)
			logs[n++] = li;
	}
	return n;
}

int
gaze_recover(struct gaze_fs *fs)
{
	struct rf_chain c = { 0 };
	u32 logs[3], nlogs, k;
	void *blk, *old;
	int ret = 0;

	if (fs->flags & GAZE_FS_NO_RECOVERY ||
	    le32_to_cpu(fs->cp.flags) & GAZE_CP_UMOUNT)
		return 0;
	nlogs = rf_node_logs(fs, logs);
	for (k = 0; k < nlogs && !rf_log_written(fs, logs[k]); k++)
		;
	if (k == nlogs)
		return 0;	/* no node written since the checkpoint */
	blk = gaze_alloc(GAZE_BLOCK_SIZE);
	old = gaze_alloc(GAZE_BLOCK_SIZE);
	if (!blk || !old) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = rf_load_wps(fs, &c);
	for (k = 0; k < nlogs && !ret; k++) {
		c.n = 0;
		c.end = 0;
		ret = rf_walk(fs, logs[k], blk, &c);
		if (ret)
			break;
		if (fs->flags & GAZE_FS_RDONLY)
			fs->rf_pending += c.end;	/* nothing is changed */
		else
			ret = rf_replay_chain(fs, logs[k], &c, blk, old);
	}
	if (ret)
		gaze_err("roll-forward after checkpoint %llu failed (%d); fsck.gaze -y mounts the checkpoint without the nodes fsync wrote after it",
			 (unsigned long long)fs->cp_seq, ret);
out_free:
	gaze_free(c.wp);
	gaze_free(c.addr);
	gaze_free(old);
	gaze_free(blk);
	return ret;
}
