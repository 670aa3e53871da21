// SPDX-License-Identifier: GPL-2.0
/*
 * dir.c - directory entries: inline dentries and extendible hashing.
 *
 * Why: lookups in big directories must cost O(1) block reads, and readdir
 * must give every entry exactly once with a stable 63-bit cookie that a
 * later call (NFS, telldir) can resume from.  Extendible hashing gives
 * both: a hash index (global depth D, 2^D slots) maps the top D bits of
 * the name hash to a bucket block; a bucket of local depth l owns the
 * 2^(D-l) consecutive slots sharing its top l bits, so buckets hold
 * contiguous hash ranges and a walk over the index in slot order visits
 * entries in hash order.  Lookup = one index block + one bucket (+ its
 * overflow chain, which exists only when D is at GAZE_DIR_MAX_DEPTH).
 *
 * Small directories keep their entries inside the inode (inline dentries,
 * feature inline_data) with the same record format and order; the first
 * entry that does not fit converts the directory to hashed form.
 *
 * Rules kept here (see gaze_format.h for the layout):
 *  - '.' and '..' are never stored; '..' is inode.parent.
 *  - Entries in a region are sorted by hash, equal hashes in insertion
 *    order; bytes past 'used' are zero.
 *  - Buckets never merge and a hashed directory never converts back to
 *    inline: removal only deletes the record.  This keeps every readdir
 *    cookie stable and removal free of index rewrites; the cost is that a
 *    directory that was once big keeps its blocks until it is removed.
 *  - Bucket numbers are handed out in order (0 .. dir_nbuckets - 1);
 *    bucket b lives at logical block GAZE_DIR_BUCKET_BASE + b.
 *  - Directory blocks are cached as GAZE_MB_FBLK buffers and written only
 *    by gaze_dir_flush (checkpoint, balance); their header is filled in
 *    there, when the address is known.
 *
 * Readdir positions: 0 = '.', 1 = '..', then cookie = max(2, hash >> 1)
 * (capped below GAZE_DIR_POS_END), entries with cookie >= pos are
 * emitted; after an entry pos = cookie + 1.  A stop request from the
 * callback is honoured only once the next entry has a different cookie,
 * so resuming never repeats or skips a colliding entry.
 *
 * All functions expect fs->lock held.
 */
#include "gaze_core.h"

#define GAZE_DIR_POS_END	0x7fffffffffffffffull
#define DIR_MAX_BUCKETS	(GAZE_BMAP_MAX_BLOCKS - GAZE_DIR_BUCKET_BASE)
#define DIR_DT_DIR		4

int
gaze_name_check(const char *name, u32 len)
{
	u32 i;

	if (!len || len > GAZE_NAME_MAX)
		return len ? -ENAMETOOLONG : -EINVAL;
	for (i = 0; i < len; i++)
		if (name[i] == '/' || name[i] == 0)
			return -EINVAL;
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return -EINVAL;
	return 0;
}

u64
gaze_dir_hash(struct gaze_fs *fs, const char *name, u32 len)
{
	u32 key[4];
	int i;

	for (i = 0; i < 4; i++)
		key[i] = le32_to_cpu(fs->sb.dir_hash_seed[i]);
	return gaze_siphash(key, name, len);
}

static inline struct gaze_inode *
dir_inode(struct gaze_mbuf *dmb)
{
	return dmb->data;
}

/* ---------------------------------------------------------------- */
/* Regions: packed gaze_dirent records sorted by hash.               */
/* ---------------------------------------------------------------- */

static int
dent_at(const u8 *base, u32 used, u32 off, const struct gaze_dirent **dep,
	u32 *rlp)
{
	const struct gaze_dirent *de;
	u32 rl;

	if (off + sizeof(*de) > used)
		return -EFSCORRUPTED;
	de = (const struct gaze_dirent *)(base + off);
	rl = le16_to_cpu(de->rec_len);
	if (!de->name_len || rl < GAZE_DIRENT_LEN(de->name_len) || (rl & 7) ||
	    off + rl > used)
		return -EFSCORRUPTED;
	*dep = de;
	*rlp = rl;
	return 0;
}

/* 0 and *offp = entry; -ENOENT and *offp = insertion point; or error */
static int
region_find(const u8 *base, u32 used, u64 h, const char *name, u32 len,
	    u32 *offp)
{
	const struct gaze_dirent *de;
	u32 off = 0, rl;
	u64 dh;
	int err;

	while (off < used) {
		err = dent_at(base, used, off, &de, &rl);
		if (err)
			return err;
		dh = le64_to_cpu(de->hash);
		if (dh > h)
			break;
		if (dh == h && de->name_len == len &&
		    !memcmp(de + 1, name, len)) {
			*offp = off;
			return 0;
		}
		off += rl;
	}
	*offp = off;
	return -ENOENT;
}

static void
region_insert(u8 *base, u32 *used, u32 off, u64 h, const char *name,
	      u32 len, u32 ino, u8 dtype)
{
	u32 rl = GAZE_DIRENT_LEN(len);
	struct gaze_dirent *de;

	memmove(base + off + rl, base + off, *used - off);
	de = (struct gaze_dirent *)(base + off);
	memset(de, 0, rl);
	de->hash = cpu_to_le64(h);
	de->ino = cpu_to_le32(ino);
	de->rec_len = cpu_to_le16((u16)rl);
	de->name_len = (u8)len;
	de->file_type = dtype;
	memcpy(de + 1, name, len);
	*used += rl;
}

static void
region_remove(u8 *base, u32 *used, u32 off)
{
	struct gaze_dirent *de = (struct gaze_dirent *)(base + off);
	u32 rl = le16_to_cpu(de->rec_len);

	memmove(base + off, base + off + rl, *used - off - rl);
	memset(base + *used - rl, 0, rl);
	*used -= rl;
}

/* ---------------------------------------------------------------- */
/* Directory blocks (index and buckets) in the cache.                */
/* ---------------------------------------------------------------- */

static u32
dir_lblk_magic(u32 lblk)
{
	return lblk < GAZE_DIR_BUCKET_BASE ? GAZE_MAGIC_DIR_INDEX :
		GAZE_MAGIC_DIR_BUCKET;
}

/*
 * A new directory block's slot in the bmap, made now with the nodes it
 * needs, so that writing the block back (dir_flush_one, at a checkpoint)
 * allocates no node: each new node is checked against user_blocks here,
 * where ENOSPC fails the operation that grows the directory, not the
 * checkpoint after it (on a filesystem that reservations fill, every
 * checkpoint would fail until they are written back).
 */
static int
dir_block_slot(struct gaze_fs *fs, struct gaze_mbuf *dmb, u32 lblk)
{
	struct gaze_mbuf *owner;
	u32 ofs;
	int err;

	err = gaze_bmap_slot(fs, dmb, lblk, true, &owner, &ofs);
	if (err)
		return err;
	gaze_bmap_release(fs, dmb, owner);
	return 0;
}

/*
 * Cached block lblk of the directory; read through the bmap and verified,
 * or (create, and the block is a hole) a new zeroed dirty buffer.
 */
static int
dir_block_get(struct gaze_fs *fs, struct gaze_mbuf *dmb, u32 lblk,
	      bool create, struct gaze_mbuf **mbp)
{
	u32 ino = dmb->id, magic = dir_lblk_magic(lblk);
	struct gaze_mbuf *mb;
	struct gaze_mhdr *hdr;
	u64 addr;
	int err;

	mb = gaze_mbuf_lookup(fs, GAZE_MB_FBLK, ino, lblk);
	if (mb) {
		*mbp = mb;
		return 0;
	}
	err = gaze_bmap_lookup(fs, dmb, lblk, &addr);
	if (err)
		return err;
	if (!GAZE_ADDR_IS_REAL(addr)) {
		if (!create) {
			gaze_err("dir %u: block %u missing", ino, lblk);
			return -EFSCORRUPTED;
		}
		/* the nodes first: each is checked as it is made */
		err = dir_block_slot(fs, dmb, lblk);
		if (!err)
			err = gaze_space_user_check(fs, 1);
		if (err)
			return err;
		err = gaze_mbuf_create(fs, GAZE_MB_FBLK, ino, lblk, &mb);
		if (err)
			return err;
		hdr = mb->data;
		hdr->magic = cpu_to_le32(magic);
		hdr->ino = cpu_to_le32(ino);
		hdr->index = cpu_to_le32(lblk);
		gaze_mbuf_dirty(fs, mb);
		*mbp = mb;
		return 0;
	}
	err = gaze_mbuf_read(fs, GAZE_MB_FBLK, ino, lblk, addr, magic, &mb);
	if (err)
		return err;
	*mbp = mb;
	return 0;
}

int
gaze_dir_buf_verify(struct gaze_fs *fs, const struct gaze_mbuf *mb,
		    u32 expect, const char **why)
{
	const struct gaze_mhdr *hdr = mb->data;
	int err;

	if (expect == GAZE_MAGIC_DIR_INDEX)
		err = gaze_fmt_dir_index_verify(mb->data, &fs->sb, mb->blkaddr,
						why);
	else
		err = gaze_fmt_dir_bucket_verify(mb->data, &fs->sb,
						 mb->blkaddr, why);
	if (!err && (le32_to_cpu(hdr->ino) != mb->id ||
		     le32_to_cpu(hdr->index) != mb->idx)) {
		*why = "owner or index";
		err = -EFSCORRUPTED;
	}
	return err;
}

static int
bucket_get(struct gaze_fs *fs, struct gaze_mbuf *dmb, u32 b,
	   struct gaze_mbuf **mbp)
{
	struct gaze_dir_bucket *bk;
	int err;

	if (b >= le32_to_cpu(dir_inode(dmb)->dir_nbuckets))
		return -EFSCORRUPTED;
	err = dir_block_get(fs, dmb, GAZE_DIR_BUCKET_BASE + b, false, mbp);
	if (err)
		return err;
	bk = (*mbp)->data;
	if (le16_to_cpu(bk->used) > GAZE_DIR_BUCKET_SPACE ||
	    bk->local_depth > dir_inode(dmb)->dir_depth) {
		gaze_mbuf_put(fs, *mbp);
		return -EFSCORRUPTED;
	}
	return 0;
}

/* index cursor: keeps the last index block referenced */
struct idx_cur {
	struct gaze_mbuf *mb;
	u32 blk;
};

static int
idx_load(struct gaze_fs *fs, struct gaze_mbuf *dmb, struct idx_cur *c,
	 u32 slot, bool create)
{
	u32 blk = slot / GAZE_DIR_INDEX_PER_BLOCK;

	if (c->mb && c->blk == blk)
		return 0;
	if (c->mb)
		gaze_mbuf_put(fs, c->mb);
	c->mb = NULL;
	c->blk = blk;
	return dir_block_get(fs, dmb, blk, create, &c->mb);
}

static int
idx_get(struct gaze_fs *fs, struct gaze_mbuf *dmb, struct idx_cur *c,
	u32 slot, u32 *b)
{
	struct gaze_dir_index *di;
	int err;

	err = idx_load(fs, dmb, c, slot, false);
	if (err)
		return err;
	di = c->mb->data;
	*b = le32_to_cpu(di->bucket[slot % GAZE_DIR_INDEX_PER_BLOCK]);
	return 0;
}

static int
idx_set(struct gaze_fs *fs, struct gaze_mbuf *dmb, struct idx_cur *c,
	u32 slot, u32 b)
{
	struct gaze_dir_index *di;
	int err;

	err = idx_load(fs, dmb, c, slot, true);
	if (err)
		return err;
	di = c->mb->data;
	di->bucket[slot % GAZE_DIR_INDEX_PER_BLOCK] = cpu_to_le32(b);
	gaze_mbuf_dirty(fs, c->mb);
	return 0;
}

static void
idx_done(struct gaze_fs *fs, struct idx_cur *c)
{
	if (c->mb)
		gaze_mbuf_put(fs, c->mb);
	c->mb = NULL;
}

static u32
hash_slot(u64 h, u32 depth)
{
	return depth ? (u32)(h >> (64 - depth)) : 0;
}

/* bucket number owning hash h */
static int
hdir_bucket_of(struct gaze_fs *fs, struct gaze_mbuf *dmb, u64 h, u32 *b)
{
	struct idx_cur c = { NULL, 0 };
	u32 depth = dir_inode(dmb)->dir_depth;
	int err;

	if (!depth) {
		*b = 0;
		return 0;
	}
	err = idx_get(fs, dmb, &c, hash_slot(h, depth), b);
	idx_done(fs, &c);
	return err;
}

/* finds name: bucket buffer (ref held) and offset of its record */
static int
hdir_find(struct gaze_fs *fs, struct gaze_mbuf *dmb, u64 h, const char *name,
	  u32 len, struct gaze_mbuf **bmbp, u32 *offp)
{
	u32 nbuckets = le32_to_cpu(dir_inode(dmb)->dir_nbuckets), b, hops;
	struct gaze_dir_bucket *bk;
	struct gaze_mbuf *bmb;
	int err;

	err = hdir_bucket_of(fs, dmb, h, &b);
	if (err)
		return err;
	for (hops = 0; hops <= nbuckets; hops++) {
		err = bucket_get(fs, dmb, b, &bmb);
		if (err)
			return err;
		bk = bmb->data;
		err = region_find(bk->entries, le16_to_cpu(bk->used), h, name,
				  len, offp);
		if (!err) {
			*bmbp = bmb;
			return 0;
		}
		b = le32_to_cpu(bk->overflow);
		gaze_mbuf_put(fs, bmb);
		if (err != -ENOENT)
			return err;
		if (!b)
			return -ENOENT;
	}
	return -EFSCORRUPTED;	/* overflow loop */
}

/* makes the inode an empty hashed directory: bucket 0, depth 0 */
static int
hdir_create(struct gaze_fs *fs, struct gaze_mbuf *dmb, struct gaze_mbuf **bmbp)
{
	struct gaze_inode *in = dir_inode(dmb);
	u32 old_flags = le32_to_cpu(in->flags);
	struct gaze_mbuf *bmb;
	int err;

	/* the bmap refuses inline inodes: switch the flags first */
	in->flags = cpu_to_le32((old_flags & ~GAZE_IF_INLINE_DENTRY) |
				GAZE_IF_DIR_HASHED);
	err = dir_block_get(fs, dmb, GAZE_DIR_BUCKET_BASE, true, &bmb);
	if (err) {
		in->flags = cpu_to_le32(old_flags);
		return err;
	}
	in->dir_depth = 0;
	in->dir_nbuckets = cpu_to_le32(1);
	in->inline_used = 0;
	gaze_mbuf_dirty(fs, dmb);
	if (bmbp)
		*bmbp = bmb;
	else
		gaze_mbuf_put(fs, bmb);
	return 0;
}

/* moves the inline entries into bucket 0 of a new hash table */
static int
dir_convert(struct gaze_fs *fs, struct gaze_mbuf *dmb)
{
	struct gaze_inode *in = dir_inode(dmb);
	u32 used = le16_to_cpu(in->inline_used), off, rl, n = 0;
	const struct gaze_dirent *de;
	struct gaze_dir_bucket *bk;
	struct gaze_mbuf *bmb;
	u8 *tmp;
	int err;

	if (used > GAZE_INLINE_DENTRY_SPACE)
		return -EFSCORRUPTED;
	for (off = 0; off < used; off += rl, n++) {
		err = dent_at(in->i.data, used, off, &de, &rl);
		if (err)
			return err;
	}
	tmp = gaze_alloc(GAZE_BLOCK_SIZE);
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, in->i.data, used);
	memset(in->i.data, 0, GAZE_INLINE_SIZE);
	err = hdir_create(fs, dmb, &bmb);
	if (err) {
		memcpy(in->i.data, tmp, used);
		goto out_free;
	}
	bk = bmb->data;
	memcpy(bk->entries, tmp, used);
	bk->used = cpu_to_le16((u16)used);
	bk->nr_entries = cpu_to_le32(n);
	gaze_mbuf_dirty(fs, bmb);
	gaze_mbuf_put(fs, bmb);
out_free:
	gaze_free(tmp);
	return err;
}

/* splits bucket b (local depth < D) on the next hash bit */
static int
hdir_split(struct gaze_fs *fs, struct gaze_mbuf *dmb, struct gaze_mbuf *bmb,
	   u64 h)
{
	struct gaze_inode *in = dir_inode(dmb);
	struct gaze_dir_bucket *bk = bmb->data, *nbk;
	u32 depth = in->dir_depth, l = bk->local_depth;
	u32 nb = le32_to_cpu(in->dir_nbuckets), used, off = 0, rl, cnt = 0;
	u32 span, s0, s;
	const struct gaze_dirent *de;
	struct idx_cur c = { NULL, 0 };
	struct gaze_mbuf *nmb;
	int err;

	if (nb >= DIR_MAX_BUCKETS)
		return -ENOSPC;
	used = le16_to_cpu(bk->used);
	while (off < used) {
		err = dent_at(bk->entries, used, off, &de, &rl);
		if (err)
			return err;
		if ((le64_to_cpu(de->hash) >> (63 - l)) & 1)
			break;
		off += rl;
		cnt++;
	}
	err = dir_block_get(fs, dmb, GAZE_DIR_BUCKET_BASE + nb, true, &nmb);
	if (err)
		return err;
	nbk = nmb->data;
	memcpy(nbk->entries, bk->entries + off, used - off);
	nbk->used = cpu_to_le16((u16)(used - off));
	nbk->nr_entries = cpu_to_le32(le32_to_cpu(bk->nr_entries) - cnt);
	nbk->local_depth = (u8)(l + 1);
	memset(bk->entries + off, 0, used - off);
	bk->used = cpu_to_le16((u16)off);
	bk->nr_entries = cpu_to_le32(cnt);
	bk->local_depth = (u8)(l + 1);
	gaze_mbuf_dirty(fs, bmb);
	gaze_mbuf_dirty(fs, nmb);
	gaze_mbuf_put(fs, nmb);
	in->dir_nbuckets = cpu_to_le32(nb + 1);
	gaze_mbuf_dirty(fs, dmb);

	/* the upper half of the bucket's slots now point at the new one */
	span = 1u << (depth - l);
	s0 = hash_slot(h, depth) & ~(span - 1);
	for (s = s0 + span / 2; s < s0 + span; s++) {
		err = idx_set(fs, dmb, &c, s, nb);
		if (err)
			break;
	}
	idx_done(fs, &c);
	return err;
}

/* doubles the hash index: slot i -> 2i, 2i + 1 */
static int
hdir_double(struct gaze_fs *fs, struct gaze_mbuf *dmb)
{
	struct gaze_inode *in = dir_inode(dmb);
	struct idx_cur rd = { NULL, 0 }, wr = { NULL, 0 };
	u32 depth = in->dir_depth, i, v;
	int err = 0;

	if (!depth) {
		err = idx_set(fs, dmb, &wr, 0, 0);
		if (!err)
			err = idx_set(fs, dmb, &wr, 1, 0);
	} else {
		for (i = 1u << depth; i-- > 0;) {
			err = idx_get(fs, dmb, &rd, i, &v);
			if (!err)
				err = idx_set(fs, dmb, &wr, 2 * i + 1, v);
			if (!err)
				err = idx_set(fs, dmb, &wr, 2 * i, v);
			if (err)
				break;
		}
	}
	idx_done(fs, &rd);
	idx_done(fs, &wr);
	if (err)
		return err;
	in->dir_depth = (u8)(depth + 1);
	gaze_mbuf_dirty(fs, dmb);
	return 0;
}

static void
bucket_insert(struct gaze_fs *fs, struct gaze_mbuf *bmb, u32 off, u64 h,
	      const char *name, u32 len, u32 ino, u8 dtype)
{
	struct gaze_dir_bucket *bk = bmb->data;
	u32 used = le16_to_cpu(bk->used);

	region_insert(bk->entries, &used, off, h, name, len, ino, dtype);
	bk->used = cpu_to_le16((u16)used);
	bk->nr_entries = cpu_to_le32(le32_to_cpu(bk->nr_entries) + 1);
	gaze_mbuf_dirty(fs, bmb);
}

/* at maximum depth: insert into the chain, adding an overflow bucket */
static int
hdir_insert_overflow(struct gaze_fs *fs, struct gaze_mbuf *dmb,
		     struct gaze_mbuf *bmb, u64 h, const char *name, u32 len,
		     u32 ino, u8 dtype)
{
	struct gaze_inode *in = dir_inode(dmb);
	u32 need = GAZE_DIRENT_LEN(len), nb, next, off, hops = 0;
	struct gaze_dir_bucket *bk = bmb->data;
	struct gaze_mbuf *cur = bmb, *nmb;
	int err;

	while ((next = le32_to_cpu(bk->overflow)) != 0) {
		if (++hops > le32_to_cpu(in->dir_nbuckets)) {
			err = -EFSCORRUPTED;
			goto out_put;
		}
		err = bucket_get(fs, dmb, next, &nmb);
		if (err)
			goto out_put;
		if (cur != bmb)
			gaze_mbuf_put(fs, cur);
		cur = nmb;
		bk = cur->data;
		if (le16_to_cpu(bk->used) + need <= GAZE_DIR_BUCKET_SPACE) {
			err = region_find(bk->entries, le16_to_cpu(bk->used),
					  h, name, len, &off);
			if (!err)
				err = -EEXIST;
			if (err != -ENOENT)
				goto out_put;
			bucket_insert(fs, cur, off, h, name, len, ino, dtype);
			err = 0;
			goto out_put;
		}
	}
	nb = le32_to_cpu(in->dir_nbuckets);
	if (nb >= DIR_MAX_BUCKETS) {
		err = -ENOSPC;
		goto out_put;
	}
	err = dir_block_get(fs, dmb, GAZE_DIR_BUCKET_BASE + nb, true, &nmb);
	if (err)
		goto out_put;
	((struct gaze_dir_bucket *)nmb->data)->local_depth = bk->local_depth;
	bk->overflow = cpu_to_le32(nb);
	gaze_mbuf_dirty(fs, cur);
	in->dir_nbuckets = cpu_to_le32(nb + 1);
	gaze_mbuf_dirty(fs, dmb);
	bucket_insert(fs, nmb, 0, h, name, len, ino, dtype);
	gaze_mbuf_put(fs, nmb);
out_put:
	if (cur != bmb)
		gaze_mbuf_put(fs, cur);
	return err;
}

static int
hdir_insert(struct gaze_fs *fs, struct gaze_mbuf *dmb, u64 h,
	    const char *name, u32 len, u32 ino, u8 dtype)
{
	struct gaze_inode *in = dir_inode(dmb);
	u32 need = GAZE_DIRENT_LEN(len), b, off;
	struct gaze_dir_bucket *bk;
	struct gaze_mbuf *bmb;
	int err;

	for (;;) {
		err = hdir_bucket_of(fs, dmb, h, &b);
		if (err)
			return err;
		err = bucket_get(fs, dmb, b, &bmb);
		if (err)
			return err;
		bk = bmb->data;
		if (le16_to_cpu(bk->used) + need <= GAZE_DIR_BUCKET_SPACE) {
			err = region_find(bk->entries, le16_to_cpu(bk->used),
					  h, name, len, &off);
			if (!err)
				err = -EEXIST;
			if (err == -ENOENT) {
				bucket_insert(fs, bmb, off, h, name, len, ino,
					      dtype);
				err = 0;
			}
			gaze_mbuf_put(fs, bmb);
			return err;
		}
		if (bk->local_depth < in->dir_depth)
			err = hdir_split(fs, dmb, bmb, h);
		else if (in->dir_depth < GAZE_DIR_MAX_DEPTH)
			err = hdir_double(fs, dmb);
		else {
			err = hdir_insert_overflow(fs, dmb, bmb, h, name, len,
						   ino, dtype);
			gaze_mbuf_put(fs, bmb);
			return err;
		}
		gaze_mbuf_put(fs, bmb);
		if (err)
			return err;
	}
}

/* ---------------------------------------------------------------- */
/* Operations.                                                       */
/* ---------------------------------------------------------------- */

int
gaze_dir_init(struct gaze_fs *fs, struct gaze_mbuf *dmb)
{
	struct gaze_inode *in = dir_inode(dmb);

	in->dir_nentries = 0;
	in->dir_nbuckets = 0;
	in->dir_depth = 0;
	in->inline_used = 0;
	if (le64_to_cpu(fs->sb.feature_incompat) &
	    GAZE_FEATURE_INCOMPAT_INLINE_DATA) {
		in->flags = cpu_to_le32(le32_to_cpu(in->flags) |
					GAZE_IF_INLINE_DENTRY);
		gaze_mbuf_dirty(fs, dmb);
		return 0;
	}
	return hdir_create(fs, dmb, NULL);
}

int
gaze_dir_lookup(struct gaze_fs *fs, struct gaze_mbuf *dmb, const char *name,
		u32 len, u32 *ino, u8 *dtype)
{
	struct gaze_inode *in = dir_inode(dmb);
	u32 flags = le32_to_cpu(in->flags), off;
	const struct gaze_dirent *de;
	struct gaze_mbuf *bmb;
	u64 h = gaze_dir_hash(fs, name, len);
	int err;

	if (flags & GAZE_IF_INLINE_DENTRY) {
		err = region_find(in->i.data, le16_to_cpu(in->inline_used), h,
				  name, len, &off);
		if (err)
			return err;
		de = (const struct gaze_dirent *)(in->i.data + off);
		*ino = le32_to_cpu(de->ino);
		if (dtype)
			*dtype = de->file_type;
		return 0;
	}
	if (!(flags & GAZE_IF_DIR_HASHED))
		return -ENOENT;
	err = hdir_find(fs, dmb, h, name, len, &bmb, &off);
	if (err)
		return err;
	de = (const struct gaze_dirent *)
		(((struct gaze_dir_bucket *)bmb->data)->entries + off);
	*ino = le32_to_cpu(de->ino);
	if (dtype)
		*dtype = de->file_type;
	gaze_mbuf_put(fs, bmb);
	return 0;
}

int
gaze_dir_add(struct gaze_fs *fs, struct gaze_mbuf *dmb, const char *name,
	     u32 len, u32 ino, u8 dtype)
{
	struct gaze_inode *in = dir_inode(dmb);
	u32 flags = le32_to_cpu(in->flags), used, off;
	u64 h = gaze_dir_hash(fs, name, len);
	int err;

	if (flags & GAZE_IF_INLINE_DENTRY) {
		used = le16_to_cpu(in->inline_used);
		if (used > GAZE_INLINE_DENTRY_SPACE)
			return -EFSCORRUPTED;
		err = region_find(in->i.data, used, h, name, len, &off);
		if (!err)
			return -EEXIST;
		if (err != -ENOENT)
			return err;
		if (used + GAZE_DIRENT_LEN(len) <= GAZE_INLINE_DENTRY_SPACE) {
			region_insert(in->i.data, &used, off, h, name, len,
				      ino, dtype);
			in->inline_used = cpu_to_le16((u16)used);
			goto out_count;
		}
		err = dir_convert(fs, dmb);
		if (err)
			return err;
	} else if (!(flags & GAZE_IF_DIR_HASHED)) {
		err = hdir_create(fs, dmb, NULL);
		if (err)
			return err;
	}
	err = hdir_insert(fs, dmb, h, name, len, ino, dtype);
	if (err)
		return err;
out_count:
	in->dir_nentries = cpu_to_le32(le32_to_cpu(in->dir_nentries) + 1);
	gaze_mbuf_dirty(fs, dmb);
	return 0;
}

int
gaze_dir_remove(struct gaze_fs *fs, struct gaze_mbuf *dmb, const char *name,
		u32 len)
{
	struct gaze_inode *in = dir_inode(dmb);
	u32 flags = le32_to_cpu(in->flags), used, off;
	u64 h = gaze_dir_hash(fs, name, len);
	struct gaze_dir_bucket *bk;
	struct gaze_mbuf *bmb;
	int err;

	if (flags & GAZE_IF_INLINE_DENTRY) {
		used = le16_to_cpu(in->inline_used);
		err = region_find(in->i.data, used, h, name, len, &off);
		if (err)
			return err;
		region_remove(in->i.data, &used, off);
		in->inline_used = cpu_to_le16((u16)used);
	} else if (flags & GAZE_IF_DIR_HASHED) {
		err = hdir_find(fs, dmb, h, name, len, &bmb, &off);
		if (err)
			return err;
		bk = bmb->data;
		used = le16_to_cpu(bk->used);
		region_remove(bk->entries, &used, off);
		bk->used = cpu_to_le16((u16)used);
		bk->nr_entries = cpu_to_le32(le32_to_cpu(bk->nr_entries) - 1);
		gaze_mbuf_dirty(fs, bmb);
		gaze_mbuf_put(fs, bmb);
	} else {
		return -ENOENT;
	}
	in->dir_nentries = cpu_to_le32(le32_to_cpu(in->dir_nentries) - 1);
	gaze_mbuf_dirty(fs, dmb);
	return 0;
}

int
gaze_dir_set(struct gaze_fs *fs, struct gaze_mbuf *dmb, const char *name,
	     u32 len, u32 ino, u8 dtype)
{
	struct gaze_inode *in = dir_inode(dmb);
	u32 flags = le32_to_cpu(in->flags), off;
	u64 h = gaze_dir_hash(fs, name, len);
	struct gaze_dirent *de;
	struct gaze_mbuf *bmb;
	int err;

	if (flags & GAZE_IF_INLINE_DENTRY) {
		err = region_find(in->i.data, le16_to_cpu(in->inline_used), h,
				  name, len, &off);
		if (err)
			return err;
		de = (struct gaze_dirent *)(in->i.data + off);
		de->ino = cpu_to_le32(ino);
		de->file_type = dtype;
		gaze_mbuf_dirty(fs, dmb);
		return 0;
	}
	if (!(flags & GAZE_IF_DIR_HASHED))
		return -ENOENT;
	err = hdir_find(fs, dmb, h, name, len, &bmb, &off);
	if (err)
		return err;
	de = (struct gaze_dirent *)
		(((struct gaze_dir_bucket *)bmb->data)->entries + off);
	de->ino = cpu_to_le32(ino);
	de->file_type = dtype;
	gaze_mbuf_dirty(fs, bmb);
	gaze_mbuf_put(fs, bmb);
	return 0;
}

/* ---------------------------------------------------------------- */
/* readdir                                                           */
/* ---------------------------------------------------------------- */

struct dir_emit {
	u64		*pos;
	gaze_filldir_t	fn;
	void		*ctx;
	bool		stop;	/* callback asked to stop */
	u64		last;	/* cookie of the last entry emitted */
};

static u64
dent_cookie(const struct gaze_dirent *de)
{
	u64 c = le64_to_cpu(de->hash) >> 1;

	if (c < 2)
		c = 2;
	if (c >= GAZE_DIR_POS_END)
		c = GAZE_DIR_POS_END - 1;
	return c;
}

/* returns 1 when the walk must end before this entry */
static int
emit_one(struct dir_emit *e, const struct gaze_dirent *de)
{
	u64 cookie = dent_cookie(de);
	int r;

	if (cookie < *e->pos)
		return 0;
	if (e->stop && cookie != e->last)
		return 1;
	r = e->fn(e->ctx, (const char *)(de + 1), de->name_len,
		  le32_to_cpu(de->ino), de->file_type, cookie);
	*e->pos = cookie + 1;
	e->last = cookie;
	if (r)
		e->stop = true;
	return 0;
}

static int
region_emit(const u8 *base, u32 used, struct dir_emit *e)
{
	const struct gaze_dirent *de;
	u32 off, rl;
	int err;

	for (off = 0; off < used; off += rl) {
		err = dent_at(base, used, off, &de, &rl);
		if (err)
			return err;
		if (emit_one(e, de))
			return 1;
	}
	return 0;
}

/* a bucket with an overflow chain: merge the chain's sorted regions */
static int
chain_emit(struct gaze_fs *fs, struct gaze_mbuf *dmb, struct gaze_mbuf *bmb,
	   struct dir_emit *e)
{
	u32 nbuckets = le32_to_cpu(dir_inode(dmb)->dir_nbuckets);
	const struct gaze_dirent *de, *best_de = NULL;
	struct gaze_dir_bucket *bk = bmb->data;
	struct gaze_mbuf **mbs, *mb;
	u32 n = 0, len = 1, i, best, rl, *offs;
	u32 b;
	int err = 0;

	/* chain length first (the chain stays cached for the second walk) */
	for (b = le32_to_cpu(bk->overflow); b; len++) {
		if (len > nbuckets)
			return -EFSCORRUPTED;
		err = bucket_get(fs, dmb, b, &mb);
		if (err)
			return err;
		b = le32_to_cpu(((struct gaze_dir_bucket *)mb->data)->overflow);
		gaze_mbuf_put(fs, mb);
	}
	mbs = gaze_zalloc(sizeof(*mbs) * len);
	offs = gaze_zalloc(sizeof(*offs) * len);
	if (!mbs || !offs) {
		err = -ENOMEM;
		goto out_free;
	}
	mbs[n++] = bmb;
	while (n < len && (b = le32_to_cpu(bk->overflow)) != 0) {
		err = bucket_get(fs, dmb, b, &mbs[n]);
		if (err)
			goto out_put;
		bk = mbs[n++]->data;
	}
	for (;;) {
		best = n;
		for (i = 0; i < n; i++) {
			bk = mbs[i]->data;
			if (offs[i] >= le16_to_cpu(bk->used))
				continue;
			err = dent_at(bk->entries, le16_to_cpu(bk->used),
				      offs[i], &de, &rl);
			if (err)
				goto out_put;
			if (best == n || le64_to_cpu(de->hash) <
			    le64_to_cpu(best_de->hash)) {
				best = i;
				best_de = de;
			}
		}
		if (best == n)
			break;
		offs[best] += le16_to_cpu(best_de->rec_len);
		if (emit_one(e, best_de)) {
			err = 1;
			break;
		}
	}
out_put:
	for (i = 1; i < n; i++)
		gaze_mbuf_put(fs, mbs[i]);
out_free:
	gaze_free(mbs);
	gaze_free(offs);
	return err;
}

static int
hdir_iterate(struct gaze_fs *fs, struct gaze_mbuf *dmb, struct dir_emit *e)
{
	struct gaze_inode *in = dir_inode(dmb);
	u32 depth = in->dir_depth, nslots = 1u << depth, s, b, span;
	struct idx_cur c = { NULL, 0 };
	struct gaze_dir_bucket *bk;
	struct gaze_mbuf *bmb;
	int err = 0;

	/* start at the slot holding the hash of *pos (cookie << 1) */
	s = *e->pos <= 2 ? 0 : hash_slot(*e->pos << 1, depth);
	while (s < nslots) {
		b = 0;
		if (depth) {
			err = idx_get(fs, dmb, &c, s, &b);
			if (err)
				break;
		}
		err = bucket_get(fs, dmb, b, &bmb);
		if (err)
			break;
		bk = bmb->data;
		span = 1u << (depth - bk->local_depth);
		if (bk->overflow)
			err = chain_emit(fs, dmb, bmb, e);
		else
			err = region_emit(bk->entries, le16_to_cpu(bk->used),
					  e);
		gaze_mbuf_put(fs, bmb);
		/* equal cookies never straddle buckets: stop is safe here */
		if (err || e->stop)
			break;
		s = (s & ~(span - 1)) + span;
	}
	idx_done(fs, &c);
	if (err == 1)
		return 1;
	return err;
}

int
gaze_dir_iterate(struct gaze_fs *fs, struct gaze_mbuf *dmb, u64 *pos,
		 gaze_filldir_t fn, void *ctx)
{
	struct gaze_inode *in = dir_inode(dmb);
	struct dir_emit e = { pos, fn, ctx, false, 0 };
	u32 flags = le32_to_cpu(in->flags);
	int err = 0;

	if (*pos >= GAZE_DIR_POS_END)
		return 0;
	if (*pos == 0) {
		*pos = 1;
		if (fn(ctx, ".", 1, dmb->id, DIR_DT_DIR, 0))
			return 0;
	}
	if (*pos == 1) {
		*pos = 2;
		if (fn(ctx, "..", 2, le32_to_cpu(in->parent), DIR_DT_DIR, 1))
			return 0;
	}
	if (flags & GAZE_IF_INLINE_DENTRY)
		err = region_emit(in->i.data, le16_to_cpu(in->inline_used), &e);
	else if (flags & GAZE_IF_DIR_HASHED)
		err = hdir_iterate(fs, dmb, &e);
	if (err < 0)
		return err;
	if (!err && !e.stop)
		*pos = GAZE_DIR_POS_END;
	return 0;
}

void
gaze_dir_forget(struct gaze_fs *fs, struct gaze_mbuf *dmb)
{
	struct gaze_inode *in = dir_inode(dmb);
	u32 i, nidx = 0, nb = le32_to_cpu(in->dir_nbuckets);
	struct gaze_mbuf *mb;

	if (!(le32_to_cpu(in->flags) & GAZE_IF_DIR_HASHED))
		return;
	if (in->dir_depth)
		nidx = DIV_ROUND_UP(1u << in->dir_depth,
				    GAZE_DIR_INDEX_PER_BLOCK);
	for (i = 0; i < nidx; i++) {
		mb = gaze_mbuf_lookup(fs, GAZE_MB_FBLK, dmb->id, i);
		if (mb)
			gaze_mbuf_forget(fs, mb);
	}
	for (i = 0; i < nb; i++) {
		mb = gaze_mbuf_lookup(fs, GAZE_MB_FBLK, dmb->id,
				      GAZE_DIR_BUCKET_BASE + i);
		if (mb)
			gaze_mbuf_forget(fs, mb);
	}
}

/* ---------------------------------------------------------------- */
/* Writeback of directory blocks (checkpoint and balance).           */
/* ---------------------------------------------------------------- */

static int
dir_flush_one(struct gaze_fs *fs, struct gaze_mbuf *mb, void *arg)
{
	u32 ino = mb->id, lblk = (u32)mb->idx, ofs;
	struct gaze_mbuf *imb, *owner;
	u32 *budget = arg;
	u64 addr;
	int err;

	if (budget) {
		if (!*budget)
			return 1;	/* stop the walk */
		(*budget)--;
	}
	err = gaze_inode_get(fs, ino, &imb);
	if (err)
		return err;
	err = gaze_bmap_slot(fs, imb, lblk, true, &owner, &ofs);
	if (err)
		goto out_inode;
	err = gaze_block_alloc(fs, GAZE_LOG_DATA_HOT, owner->id, (u16)ofs,
			       GAZE_SUM_DATA, &addr);
	if (err)
		goto out_owner;
	gaze_fmt_hdr_init(mb->data, dir_lblk_magic(lblk), fs->uuid, addr,
			  fs->cp_seq + 1, 0, ino, lblk);
	gaze_fmt_csum_set(mb->data);
	err = gaze_block_write(fs, addr, mb->data);
	if (err)
		goto out_owner;
	err = gaze_bmap_set(fs, imb, owner, ofs, addr);
	mb->blkaddr = addr;
	gaze_mbuf_clean(fs, mb);
out_owner:
	gaze_bmap_release(fs, imb, owner);
out_inode:
	gaze_mbuf_put(fs, imb);
	return err;
}

int
gaze_dir_flush_some(struct gaze_fs *fs, u32 *budget)
{
	int ret;

	ret = gaze_cache_for_each_dirty(fs, GAZE_MB_FBLK, dir_flush_one,
					budget);
	return ret > 0 ? 0 : ret;
}

int
gaze_dir_flush(struct gaze_fs *fs)
{
	return gaze_dir_flush_some(fs, NULL);
}
