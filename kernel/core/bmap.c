// SPDX-License-Identifier: GPL-2.0
/*
 * bmap.c - file block -> block address map of an inode.
 *
 * Why: data blocks move every time they are rewritten (the device is
 * append-only), so every file keeps a map from its logical blocks to the
 * device.  The map is a small tree of nodes so that a rewrite dirties only
 * the node holding the slot, and that node's new location is recorded once
 * in the imap instead of in its parent:
 *
 *   file blocks [0, 448)             inode i.addr[]
 *   next 2 * 504                     direct nodes   inode.nids[0..1]
 *   next 2 * 1008 * 504              indirect nodes inode.nids[2..3] -> dnodes
 *   next 1008 * 1008 * 504           double indirect nids[4] -> indirect
 *                                    -> dnodes
 *
 * Every dnode and indirect node carries in hdr.index the first file block
 * it covers.  inode.blocks counts data blocks plus dnodes, indirect nodes
 * and the xattr node (never the inode itself); this file keeps it right
 * for everything it allocates and frees.
 */
#include "gaze_core.h"

#define BMAP_DN		((u64)GAZE_ADDRS_PER_DNODE)
#define BMAP_NI		((u64)GAZE_NIDS_PER_INDIRECT)
#define BMAP_IND_SPAN	(BMAP_NI * BMAP_DN)
#define BMAP_DIRECT	((u64)GAZE_ADDRS_PER_INODE)
#define BMAP_IND_BASE	\
	(BMAP_DIRECT + GAZE_NR_DIRECT_NODES * BMAP_DN)
#define BMAP_DIND_BASE	\
	(BMAP_IND_BASE + GAZE_NR_INDIRECT_NODES * BMAP_IND_SPAN)

/* Path from the inode to the slot of one file block. */
struct bmap_path {
	u32	nid_slot;	/* index in inode.nids[] */
	u32	height;		/* nodes below the inode (1..3) */
	u32	off[3];		/* slot at each level, last: addr */
	u64	first[3];	/* first file block covered by each node */
};

static void
bmap_path_of(u64 fblk, struct bmap_path *p)
{
	u64 r;

	if (fblk < BMAP_IND_BASE) {
		r = fblk - BMAP_DIRECT;
		p->nid_slot = (u32)(r / BMAP_DN);
		p->height = 1;
		p->off[0] = (u32)(r % BMAP_DN);
		p->first[0] = BMAP_DIRECT + p->nid_slot * BMAP_DN;
		return;
	}
	if (fblk < BMAP_DIND_BASE) {
		r = fblk - BMAP_IND_BASE;
		p->nid_slot = GAZE_NR_DIRECT_NODES + (u32)(r / BMAP_IND_SPAN);
		r %= BMAP_IND_SPAN;
		p->height = 2;
		p->first[0] = BMAP_IND_BASE +
			(p->nid_slot - GAZE_NR_DIRECT_NODES) * BMAP_IND_SPAN;
		p->off[0] = (u32)(r / BMAP_DN);
		p->first[1] = p->first[0] + p->off[0] * BMAP_DN;
		p->off[1] = (u32)(r % BMAP_DN);
		return;
	}
	r = fblk - BMAP_DIND_BASE;
	p->nid_slot = GAZE_NR_DIRECT_NODES + GAZE_NR_INDIRECT_NODES;
	p->height = 3;
	p->first[0] = BMAP_DIND_BASE;
	p->off[0] = (u32)(r / BMAP_IND_SPAN);
	r %= BMAP_IND_SPAN;
	p->first[1] = p->first[0] + p->off[0] * BMAP_IND_SPAN;
	p->off[1] = (u32)(r / BMAP_DN);
	p->first[2] = p->first[1] + p->off[1] * BMAP_DN;
	p->off[2] = (u32)(r % BMAP_DN);
}

/* slots from the one of level lvl's node to the end of its parent's array */
static u32
bmap_siblings(const struct bmap_path *p, u32 lvl)
{
	if (!lvl)
		return p->height == 1 ?
		       GAZE_NR_DIRECT_NODES - p->nid_slot : 1;
	return GAZE_NIDS_PER_INDIRECT - p->off[lvl - 1];
}

static void
bmap_blocks_add(struct gaze_fs *fs, struct gaze_mbuf *imb, s64 delta)
{
	struct gaze_inode *in = imb->data;

	in->blocks = cpu_to_le64(le64_to_cpu(in->blocks) + delta);
	gaze_mbuf_dirty(fs, imb);
}

__le64 *
gaze_bmap_addrs(struct gaze_mbuf *owner)
{
	struct gaze_mhdr *h = owner->data;

	if (le32_to_cpu(h->magic) == GAZE_MAGIC_INODE)
		return ((struct gaze_inode *)owner->data)->i.addr;
	return ((struct gaze_dnode *)owner->data)->addr;
}

void
gaze_bmap_release(struct gaze_fs *fs, struct gaze_mbuf *imb,
		  struct gaze_mbuf *owner)
{
	if (owner && owner != imb)
		gaze_mbuf_put(fs, owner);
}

/* first file block past the node of level lvl on path p */
static u64
bmap_node_end(const struct bmap_path *p, u32 lvl)
{
	u64 span = BMAP_DN;
	u32 i;

	for (i = lvl + 1; i < p->height; i++)
		span *= BMAP_NI;
	return p->first[lvl] + span;
}

/* first file block past the array (inode or dnode) holding fblk's slot */
static u64
bmap_window_end(u64 fblk)
{
	struct bmap_path p;

	if (fblk < BMAP_DIRECT)
		return BMAP_DIRECT;
	bmap_path_of(fblk, &p);
	return bmap_node_end(&p, p.height - 1);
}

/* how bmap_slot finds a node that is not in the cache */
enum bmap_mode {
	BMAP_READ,	/* reads it (and its neighbours ahead) */
	BMAP_CREATE,	/* reads it; a missing one is made */
	BMAP_CACHED,	/* -EAGAIN, with *hole_end past its range */
};

/*
 * gaze_bmap_slot; without create, a missing node also gives *hole_end
 * (when not NULL): the first file block past that node's whole range
 */
static int
bmap_slot_mode(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
	       enum bmap_mode mode, struct gaze_mbuf **owner, u32 *ofs,
	       u64 *hole_end)
{
	bool create = mode == BMAP_CREATE;
	struct gaze_inode *in = imb->data;
	u32 ino = le32_to_cpu(in->hdr.nid);
	struct gaze_mbuf *parent = imb, *child;
	struct bmap_path p;
	__le32 *ptr;
	u32 lvl, nid, magic;
	int err;

	*owner = NULL;
	*ofs = 0;
	if (fblk >= GAZE_BMAP_MAX_BLOCKS)
		return -EFBIG;
	if (le32_to_cpu(in->flags) &
	    (GAZE_IF_INLINE_DATA | GAZE_IF_INLINE_DENTRY))
		return -EINVAL;
	if (fblk < BMAP_DIRECT) {
		*owner = imb;
		*ofs = (u32)fblk;
		return 0;
	}
	bmap_path_of(fblk, &p);
	ptr = &in->nids[p.nid_slot];
	for (lvl = 0; lvl < p.height; lvl++) {
		magic = lvl + 1 == p.height ? GAZE_MAGIC_DNODE :
			GAZE_MAGIC_INODE_IND;
		nid = le32_to_cpu(*ptr);
		if (nid && mode == BMAP_READ && magic == GAZE_MAGIC_DNODE)
			gaze_node_readahead(fs, ptr, bmap_siblings(&p, lvl),
					    magic);
		if (nid && mode == BMAP_CACHED) {
			err = gaze_node_get_cached(fs, nid, magic, &child);
			if (err == -EAGAIN && hole_end)
				*hole_end = bmap_node_end(&p, lvl);
			if (err)
				goto out_put;
		} else if (nid) {
			err = gaze_node_get_ref(fs, nid, magic, &child);
			if (err)
				goto out_put;
		} else {
			if (!create) {
				if (hole_end)
					*hole_end = bmap_node_end(&p, lvl);
				err = 0;
				goto out_put;
			}
			err = gaze_nid_alloc(fs, &nid);
			if (err)
				goto out_put;
			err = gaze_node_new(fs, nid, ino, magic,
					    (u32)p.first[lvl], &child);
			if (err) {
				gaze_nid_free(fs, nid);
				goto out_put;
			}
			*ptr = cpu_to_le32(nid);
			gaze_mbuf_dirty(fs, parent);
			bmap_blocks_add(fs, imb, 1);
		}
		gaze_bmap_release(fs, imb, parent);
		parent = child;
		if (lvl + 1 < p.height)
			ptr = &((struct gaze_inode_ind *)child->data)->
				nid[p.off[lvl]];
	}
	*owner = parent;
	*ofs = p.off[p.height - 1];
	return 0;

out_put:
	gaze_bmap_release(fs, imb, parent);
	return err;
}

static int
bmap_slot(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk, bool create,
	  struct gaze_mbuf **owner, u32 *ofs, u64 *hole_end)
{
	return bmap_slot_mode(fs, imb, fblk, create ? BMAP_CREATE : BMAP_READ,
			      owner, ofs, hole_end);
}

int
gaze_bmap_slot(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
	       bool create, struct gaze_mbuf **owner, u32 *ofs)
{
	return bmap_slot(fs, imb, fblk, create, owner, ofs, NULL);
}

int
gaze_bmap_set(struct gaze_fs *fs, struct gaze_mbuf *imb,
	      struct gaze_mbuf *owner, u32 ofs, u64 addr)
{
	__le64 *addrs = gaze_bmap_addrs(owner);
	u64 old = le64_to_cpu(addrs[ofs]);
	int err = 0;

	addrs[ofs] = cpu_to_le64(addr);
	gaze_mbuf_dirty(fs, owner);
	if (GAZE_ADDR_IS_REAL(old))
		err = gaze_block_invalidate(fs, old);
	gaze_space_slot_changed(fs, old, addr);
	if (GAZE_ADDR_COUNTED(old) && !GAZE_ADDR_COUNTED(addr))
		bmap_blocks_add(fs, imb, -1);
	else if (!GAZE_ADDR_COUNTED(old) && GAZE_ADDR_COUNTED(addr))
		bmap_blocks_add(fs, imb, 1);
	return err;
}

int
gaze_bmap_lookup(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		 u64 *addr)
{
	struct gaze_mbuf *owner;
	u32 ofs;
	int err;

	*addr = GAZE_NULL_ADDR;
	err = gaze_bmap_slot(fs, imb, fblk, false, &owner, &ofs);
	if (err || !owner)
		return err;
	*addr = le64_to_cpu(gaze_bmap_addrs(owner)[ofs]);
	gaze_bmap_release(fs, imb, owner);
	return 0;
}

/* the slot of the data block at addr (summary sum) becomes a hole */
static int
bmap_lost_block(struct gaze_fs *fs, u64 addr, const struct gaze_summary *sum,
		void *tmp, bool *cleared)
{
	u32 ofs = le16_to_cpu(sum->ofs);
	struct gaze_mbuf *owner, *imb;
	int err;

	*cleared = false;
	err = gaze_gc_node_get(fs, le32_to_cpu(sum->nid), tmp, &owner);
	if (err)
		return err;
	if (ofs >= gaze_gc_owner_slots(owner) ||
	    le64_to_cpu(gaze_bmap_addrs(owner)[ofs]) != addr)
		goto out_put;		/* no longer mapped there */
	err = gaze_inode_get(fs, le32_to_cpu(((struct gaze_mhdr *)
					      owner->data)->ino), &imb);
	if (err)
		goto out_put;
	err = gaze_bmap_set(fs, imb, owner, ofs, GAZE_NULL_ADDR);
	*cleared = !err;
	gaze_mbuf_put(fs, imb);
out_put:
	gaze_mbuf_put(fs, owner);
	return err;
}

int
gaze_data_lost(struct gaze_fs *fs, u64 addr, u32 nr, u32 *lost)
{
	u64 zb = le32_to_cpu(fs->sb.zone_blocks), z;
	struct gaze_summary sum;
	bool valid, cleared;
	void *tmp;
	u32 i;
	int err = 0;

	*lost = 0;
	if (!nr)
		return 0;
	for (z = addr / zb; z <= (addr + nr - 1) / zb; z++)
		gaze_space_zone_lost(fs, (u32)z);
	tmp = gaze_alloc(GAZE_BLOCK_SIZE);
	if (!tmp)
		return -ENOMEM;
	for (i = 0; i < nr && !err; i++) {
		err = gaze_space_block_owner(fs, addr + i, &valid, &sum);
		if (err || !valid || sum.type != GAZE_SUM_DATA)
			continue;
		err = bmap_lost_block(fs, addr + i, &sum, tmp, &cleared);
		if (cleared)
			(*lost)++;
	}
	gaze_free(tmp);
	if (*lost)
		gaze_err("%u blocks of file data were not written (device error): those blocks are holes now",
			 *lost);
	return err;
}

/* clears the address slots [from, n) of an array; returns first error */
static int
bmap_clear_addrs(struct gaze_fs *fs, struct gaze_mbuf *imb,
		 struct gaze_mbuf *owner, u64 base, u32 from, u32 n)
{
	__le64 *addrs = gaze_bmap_addrs(owner);
	u32 i;
	int err = 0, e;

	for (i = from; i < n; i++) {
		if (!addrs[i])
			continue;
		e = gaze_cluster_unpacked(fs, imb, base + i,
					  le64_to_cpu(addrs[i]));
		if (!e)
			e = gaze_bmap_set(fs, imb, owner, i, GAZE_NULL_ADDR);
		if (e && !err)
			err = e;
	}
	return err;
}

static bool
bmap_node_empty(struct gaze_mbuf *mb)
{
	const struct gaze_dnode *dn = mb->data;
	const u8 *p = (const u8 *)dn->addr;
	u32 i;

	for (i = 0; i < sizeof(dn->addr); i++)
		if (p[i])
			return false;
	return true;
}

/*
 * Truncates the subtree of node nid (height 1 = dnode) covering file
 * blocks from 'first'; frees it when first >= from or when it is left
 * empty.  *freed tells the caller to clear its pointer.
 */
static int
bmap_trunc_node(struct gaze_fs *fs, struct gaze_mbuf *imb, u32 nid,
		u32 height, u64 first, u64 from, bool *freed)
{
	struct gaze_inode_ind *ind;
	struct gaze_mbuf *mb;
	u64 span, cfirst;
	u32 i, cnid;
	bool cfreed;
	int err, e;

	*freed = false;
	err = gaze_node_get_ref(fs, nid, height == 1 ? GAZE_MAGIC_DNODE :
				GAZE_MAGIC_INODE_IND, &mb);
	if (err)
		return err;
	if (height == 1) {
		err = bmap_clear_addrs(fs, imb, mb, first, from > first ?
				       (u32)(from - first) : 0,
				       GAZE_ADDRS_PER_DNODE);
	} else {
		ind = mb->data;
		span = BMAP_DN;
		for (i = 2; i < height; i++)
			span *= BMAP_NI;
		for (i = 0; i < GAZE_NIDS_PER_INDIRECT; i++) {
			cnid = le32_to_cpu(ind->nid[i]);
			cfirst = first + i * span;
			if (!cnid || cfirst + span <= from)
				continue;
			e = bmap_trunc_node(fs, imb, cnid, height - 1, cfirst,
					    from, &cfreed);
			if (e && !err)
				err = e;
			if (cfreed) {
				ind->nid[i] = 0;
				gaze_mbuf_dirty(fs, mb);
			}
		}
	}
	/* a node straddling the cut goes too once nothing is left in it */
	if (err || (first < from && !bmap_node_empty(mb))) {
		gaze_mbuf_put(fs, mb);
		return err;
	}
	err = gaze_ns_node_free(fs, mb);
	bmap_blocks_add(fs, imb, -1);
	*freed = true;
	return err;
}

int
gaze_bmap_truncate(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from)
{
	struct gaze_inode *in = imb->data;
	static const u32 height[GAZE_NR_INODE_NIDS] = { 1, 1, 2, 2, 3 };
	u64 first = BMAP_DIRECT, span;
	u32 k, nid;
	bool freed;
	int err = 0, e;

	if (le32_to_cpu(in->flags) &
	    (GAZE_IF_INLINE_DATA | GAZE_IF_INLINE_DENTRY))
		return 0;
	if (from < BMAP_DIRECT)
		err = bmap_clear_addrs(fs, imb, imb, 0, (u32)from,
				       GAZE_ADDRS_PER_INODE);
	for (k = 0; k < GAZE_NR_INODE_NIDS; k++) {
		span = BMAP_DN;
		if (height[k] >= 2)
			span *= BMAP_NI;
		if (height[k] == 3)
			span *= BMAP_NI;
		nid = le32_to_cpu(in->nids[k]);
		if (nid && first + span > from) {
			e = bmap_trunc_node(fs, imb, nid, height[k], first,
					    from, &freed);
			if (e && !err)
				err = e;
			if (freed) {
				in->nids[k] = 0;
				gaze_mbuf_dirty(fs, imb);
			}
		}
		first += span;
	}
	return err;
}

/*
 * what a slot holds, as gaze_bmap_run sees it: an address, a hole, or
 * the start of a packed cluster (which ends any run it meets)
 */
static u64
bmap_run_value(u64 a)
{
	if (GAZE_ADDR_IS_CLUSTER(a) || GAZE_ADDR_IS_CLEN(a))
		return GAZE_MAP_ENCODED;
	if (a == GAZE_ADDR_PREALLOC)
		return GAZE_MAP_UNWRITTEN;
	return GAZE_ADDR_IS_REAL(a) ? a : GAZE_NULL_ADDR;
}

/* does slot value v, n blocks into a run that starts with first, go on */
static bool
bmap_run_continues(u64 first, u64 n, u64 v)
{
	if (v == GAZE_MAP_ENCODED)
		return false;
	if (first == GAZE_MAP_UNWRITTEN || v == GAZE_MAP_UNWRITTEN)
		return v == first;
	return first ? v == first + n : !v;
}

/*
 * gaze_bmap_run when fblk lies in a packed cluster: the packed clusters
 * from there as one GAZE_MAP_ENCODED run; 1 when fblk's is not packed
 */
static int
bmap_run_packed(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk, u64 max,
		u64 *addr, u64 *nr)
{
	u32 log = ((struct gaze_inode *)imb->data)->compress_log_cluster;
	u64 size = 1ull << log, first = fblk & ~(size - 1), n = 0, a;
	int err;

	while (n < max) {
		err = gaze_bmap_lookup(fs, imb, first, &a);
		if (err && !n)
			return err;
		if (err || !GAZE_ADDR_IS_CLUSTER(a))
			break;
		first += size;
		n = first - fblk;
	}
	if (!n)
		return 1;
	*addr = GAZE_MAP_ENCODED;
	*nr = min(n, max);
	return 0;
}

/*
 * The slots of one node window from fblk: extends the run (*first, *n)
 * over at most cnt of them; false once the run ended in the window
 */
static bool
bmap_run_window(struct gaze_mbuf *owner, u32 ofs, u64 cnt, u64 *first,
		u64 *n)
{
	__le64 *addrs = gaze_bmap_addrs(owner);
	u64 i, v;

	for (i = 0; i < cnt; i++) {
		v = bmap_run_value(le64_to_cpu(addrs[ofs + i]));
		if (!*n)
			*first = v;
		else if (!bmap_run_continues(*first, *n, v))
			return false;
		(*n)++;
	}
	return true;
}

int
gaze_bmap_run(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk, u64 max,
	      u64 *addr, u64 *nr)
{
	struct gaze_mbuf *owner;
	u64 first = GAZE_NULL_ADDR, n = 0, pos, end;
	u32 ofs;
	bool more = true;
	int err = 0;

	if (((struct gaze_inode *)imb->data)->compress_log_cluster) {
		err = bmap_run_packed(fs, imb, fblk, max, addr, nr);
		if (err <= 0)
			return err;
		err = 0;
	}
	while (n < max && more) {
		pos = fblk + n;
		end = pos + 1;
		err = bmap_slot(fs, imb, pos, false, &owner, &ofs, &end);
		if (err)
			break;
		if (!owner) {		/* a missing node: a hole to end */
			if (n && first != GAZE_NULL_ADDR)
				break;
			first = GAZE_NULL_ADDR;
			n = min(end - fblk, max);
			continue;
		}
		end = bmap_window_end(pos);
		more = bmap_run_window(owner, ofs, min(end - pos, max - n),
				       &first, &n);
		gaze_bmap_release(fs, imb, owner);
	}
	if (n)
		err = 0;	/* a failed lookup past the run ends it */
	*addr = first;
	*nr = n;
	return err;
}

/*
 * Walks file blocks [from, to) node by node (a missing node skipped
 * whole): counts the mapped blocks in *mapped and, with clear, turns
 * them into holes (fallocate's punch and zero range).  Nodes left empty
 * stay (truncate and evict free them).  With unknown, nothing is read:
 * the blocks under a node that is not in the cache are counted there.
 */
static int
bmap_range(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from, u64 to,
	   bool clear, u64 *mapped, u64 *unknown)
{
	enum bmap_mode mode = unknown ? BMAP_CACHED : BMAP_READ;
	struct gaze_mbuf *owner;
	__le64 *addrs;
	u64 fblk = from, end;
	u32 ofs, i, n;
	int err = 0;

	*mapped = 0;
	if (unknown)
		*unknown = 0;
	to = min_t(u64, to, GAZE_BMAP_MAX_BLOCKS);
	while (fblk < to && !err) {
		end = bmap_window_end(fblk);
		err = bmap_slot_mode(fs, imb, fblk, mode, &owner, &ofs, &end);
		end = min(end, to);
		if (err == -EAGAIN && unknown) {
			*unknown += end - fblk;	/* not in the cache */
			err = 0;
		}
		if (err || !owner) {
			fblk = end;
			continue;
		}
		addrs = gaze_bmap_addrs(owner);
		n = (u32)(end - fblk);
		for (i = ofs; i < ofs + n && !err; i++) {
			if (GAZE_ADDR_COUNTED(le64_to_cpu(addrs[i])))
				(*mapped)++;
			if (!clear || !addrs[i])
				continue;
			err = gaze_cluster_unpacked(fs, imb, fblk + (i - ofs),
						    le64_to_cpu(addrs[i]));
			if (!err)
				err = gaze_bmap_set(fs, imb, owner, i,
						    GAZE_NULL_ADDR);
		}
		gaze_bmap_release(fs, imb, owner);
		fblk = end;
	}
	return err;
}

int
gaze_bmap_range(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from, u64 to,
		bool clear, u64 *mapped)
{
	return bmap_range(fs, imb, from, to, clear, mapped, NULL);
}

int
gaze_bmap_range_cached(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from,
		       u64 to, u64 *mapped, u64 *unknown)
{
	return bmap_range(fs, imb, from, to, false, mapped, unknown);
}

int
gaze_bmap_warm_owner(struct gaze_fs *fs, u64 addr)
{
	struct gaze_summary sum;
	bool valid;

	if (!GAZE_ADDR_IS_REAL(addr))
		return 0;
	return gaze_space_block_owner(fs, addr, &valid, &sum) == -GAZE_EMISS ?
	       -GAZE_EMISS : 0;
}

int
gaze_bmap_warm(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 *pos, u64 to)
{
	struct gaze_mbuf *owner;
	__le64 *addrs;
	u64 end;
	u32 ofs, i, n;
	int err = 0;

	to = min_t(u64, to, GAZE_BMAP_MAX_BLOCKS);
	while (*pos < to && !err) {
		end = bmap_window_end(*pos);
		err = bmap_slot_mode(fs, imb, *pos, BMAP_READ, &owner, &ofs,
				     &end);
		end = min(end, to);
		if (err || !owner) {
			if (!err)
				*pos = end;
			continue;
		}
		if (owner != imb)
			err = gaze_bmap_warm_owner(fs, owner->blkaddr);
		addrs = gaze_bmap_addrs(owner);
		n = (u32)(end - *pos);
		for (i = ofs; i < ofs + n && !err; i++)
			err = gaze_bmap_warm_owner(fs, le64_to_cpu(addrs[i]));
		gaze_bmap_release(fs, imb, owner);
		if (!err)
			*pos = end;
	}
	return err;
}

/*
 * The holes among file blocks [from, to) become GAZE_ADDR_PREALLOC,
 * creating the nodes that hold them.  The caller checked the space
 * (gaze_inode_fallocate).
 */
int
gaze_bmap_prealloc(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from,
		   u64 to)
{
	struct gaze_mbuf *owner;
	__le64 *addrs;
	u64 fblk = from, end;
	u32 ofs, i;
	int err = 0;

	while (fblk < to && !err) {
		err = gaze_bmap_slot(fs, imb, fblk, true, &owner, &ofs);
		if (err)
			break;
		end = min(bmap_window_end(fblk), to);
		addrs = gaze_bmap_addrs(owner);
		for (i = ofs; i < ofs + (u32)(end - fblk) && !err; i++)
			if (!addrs[i])
				err = gaze_bmap_set(fs, imb, owner, i,
						    GAZE_ADDR_PREALLOC);
		gaze_bmap_release(fs, imb, owner);
		fblk = end;
	}
	return err;
}
