// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - the metadata block cache.
 *
 * Why: every metadata object the core touches (nodes, table blocks, table
 * index blocks, directory blocks) is a 4 KiB block that is read, changed
 * in memory and written out later at a new place by the log.  Keeping
 * these blocks in one small cache, keyed by what they are rather than by
 * where they live, lets a block move on disk without anyone holding a
 * stale address, and lets the checkpoint find every changed block by
 * walking one dirty list.  The module keeps its own page cache for file
 * data; this cache holds metadata only.
 *
 * Buffers are keyed by (type, id, idx) (see GAZE_MB_* in gaze_core.h).
 * A buffer is in exactly one of three places:
 *   - referenced and clean: on no list (mb->list is empty);
 *   - unreferenced and clean: on the clean LRU, oldest first, evictable;
 *   - dirty: on the dirty list whatever its reference count; dirty
 *     buffers are never evicted, only cleaned by whoever writes them.
 * Memory is accounted per buffer (data block + struct) against
 * fs->cache_limit.  Inserting a buffer evicts clean LRU buffers first so
 * that reads alone never grow the cache past its limit; dirty buffers can
 * push it over, and gaze_fs_balance() then writes them out.
 *
 * A buffer dropped with gaze_mbuf_forget() while others still hold
 * references leaves the hash at once (so a new object of the same key can
 * be created) and is freed by the last gaze_mbuf_put().
 *
 * Locking: everything here is protected by fs->lock, held by the caller,
 * except gaze_miss_fetch, which runs without it on the caller's own
 * struct gaze_miss.
 */
#include "gaze_core.h"

/* private mb->flags bits, above the public GAZE_MBF_* */
#define MBF_ON_DIRTY	0x40000000u	/* mb->list is on cache->dirty */
#define MBF_FORGOTTEN	0x80000000u	/* not in the hash; free on last put */
#define MBF_NEW_COUNTED	0x20000000u	/* counted in nr_dirty_new */

#define CACHE_MB_BYTES	(GAZE_BLOCK_SIZE + sizeof(struct gaze_mbuf))
#define CACHE_MIN_HASH	256u
#define CACHE_MAX_HASH	65536u
#define CACHE_NR_TYPES	8u		/* GAZE_MB_* are small numbers */

struct gaze_cache {			/* all fields: fs->lock; nr_bufs is
					 * also read without it, as a snapshot
					 * (gaze_cache_nr_bufs: the module's
					 * shrinker), so it is written with
					 * WRITE_ONCE */
	struct list_head *hash;		/* nr_hash chains of mb->hash */
	u32		nr_hash;	/* power of two */
	struct list_head lru;		/* clean, ref == 0; oldest first */
	struct list_head dirty;		/* dirty, oldest first */
	size_t		bytes;		/* accounted bytes of all buffers */
	u64		nr_bufs;
	u32		nr_dirty[CACHE_NR_TYPES];
	u32		nr_dirty_new;	/* dirty nodes/dir blocks never written;
					 * also read without fs->lock (statfs,
					 * gaze_space_free_blocks): WRITE_ONCE */
};

static u32
cache_hash_n(u32 nr_hash, u32 type, u32 id, u64 idx)
{
	u64 h = ((u64)type << 56) ^ ((u64)id * 0x9e3779b97f4a7c15ull) ^
		(idx * 0xc2b2ae3d27d4eb4full);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (u32)h & (nr_hash - 1);
}

static u32
cache_hash(const struct gaze_cache *c, u32 type, u32 id, u64 idx)
{
	return cache_hash_n(c->nr_hash, type, id, idx);
}

int
gaze_cache_init(struct gaze_fs *fs)
{
	struct gaze_cache *c;
	u64 want = fs->cache_limit / CACHE_MB_BYTES;
	u32 n = CACHE_MIN_HASH, i;

	while (n < want && n < CACHE_MAX_HASH)
		n <<= 1;
	c = gaze_zalloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->hash = gaze_alloc(n * sizeof(*c->hash));
	if (!c->hash) {
		gaze_free(c);
		return -ENOMEM;
	}
	c->nr_hash = n;
	for (i = 0; i < n; i++)
		INIT_LIST_HEAD(&c->hash[i]);
	INIT_LIST_HEAD(&c->lru);
	INIT_LIST_HEAD(&c->dirty);
	fs->cache = c;
	return 0;
}

static void
cache_free_mb(struct gaze_cache *c, struct gaze_mbuf *mb)
{
	c->bytes -= CACHE_MB_BYTES;
	WRITE_ONCE(c->nr_bufs, c->nr_bufs - 1);
	gaze_free(mb->data);
	gaze_free(mb);
}

/* takes mb off whichever list it is on, keeping the dirty counts */
static void
cache_unlist(struct gaze_cache *c, struct gaze_mbuf *mb)
{
	if (mb->flags & MBF_ON_DIRTY) {
		mb->flags &= ~MBF_ON_DIRTY;
		if (mb->type < CACHE_NR_TYPES)
			c->nr_dirty[mb->type]--;
	}
	if (mb->flags & MBF_NEW_COUNTED) {
		mb->flags &= ~MBF_NEW_COUNTED;
		WRITE_ONCE(c->nr_dirty_new, c->nr_dirty_new - 1);
	}
	list_del_init(&mb->list);
}

void
gaze_cache_destroy(struct gaze_fs *fs)
{
	struct gaze_cache *c = fs->cache;
	struct gaze_mbuf *mb, *tmp;
	u32 i;

	if (!c)
		return;
	for (i = 0; i < c->nr_hash; i++) {
		list_for_each_entry_safe(mb, tmp, &c->hash[i], hash) {
			WARN_ON(mb->ref);
			list_del(&mb->hash);
			cache_unlist(c, mb);
			cache_free_mb(c, mb);
		}
	}
	/* forgotten buffers still referenced at teardown are leaked by
	 * their holders; count them so the warning below shows it */
	WARN_ON(c->nr_bufs);
	gaze_free(c->hash);
	gaze_free(c);
	fs->cache = NULL;
}

static void
cache_evict(struct gaze_cache *c, size_t target)
{
	struct gaze_mbuf *mb;

	while (c->bytes > target && !list_empty(&c->lru)) {
		mb = list_first_entry(&c->lru, struct gaze_mbuf, list);
		list_del(&mb->list);
		list_del(&mb->hash);
		cache_free_mb(c, mb);
	}
}

struct gaze_mbuf *
gaze_mbuf_lookup(struct gaze_fs *fs, u32 type, u32 id, u64 idx)
{
	struct gaze_cache *c = fs->cache;
	struct list_head *chain = &c->hash[cache_hash(c, type, id, idx)];
	struct gaze_mbuf *mb;

	list_for_each_entry(mb, chain, hash) {
		if (mb->type != type || mb->id != id || mb->idx != idx)
			continue;
		if (!mb->ref && !(mb->flags & MBF_ON_DIRTY))
			list_del_init(&mb->list);	/* leaves the LRU */
		mb->ref++;
		return mb;
	}
	return NULL;
}

/*
 * Four times the chains once they average two buffers (the limit can be
 * raised after init: the module sizes it from RAM).  Without memory the
 * chains just stay longer.
 */
static void
cache_grow_hash(struct gaze_cache *c)
{
	struct list_head *nh;
	struct gaze_mbuf *mb, *tmp;
	u32 n = c->nr_hash * 4, i;

	if (c->nr_bufs < 2ull * c->nr_hash || c->nr_hash >= CACHE_MAX_HASH)
		return;
	nh = gaze_alloc(n * sizeof(*nh));
	if (!nh)
		return;
	for (i = 0; i < n; i++)
		INIT_LIST_HEAD(&nh[i]);
	for (i = 0; i < c->nr_hash; i++) {
		list_for_each_entry_safe(mb, tmp, &c->hash[i], hash) {
			list_del(&mb->hash);
			list_add(&mb->hash, &nh[cache_hash_n(n, mb->type,
						mb->id, mb->idx)]);
		}
	}
	gaze_free(c->hash);
	c->hash = nh;
	c->nr_hash = n;
}

/* allocates and hashes a new zeroed buffer with one reference */
static int
cache_insert(struct gaze_fs *fs, u32 type, u32 id, u64 idx,
	     struct gaze_mbuf **mbp)
{
	struct gaze_cache *c = fs->cache;
	struct gaze_mbuf *mb;

	if (c->bytes + CACHE_MB_BYTES > fs->cache_limit)
		cache_evict(c, fs->cache_limit - min(fs->cache_limit,
						     CACHE_MB_BYTES));
	cache_grow_hash(c);
	mb = gaze_zalloc(sizeof(*mb));
	if (!mb)
		return -ENOMEM;
	mb->data = gaze_zalloc(GAZE_BLOCK_SIZE);
	if (!mb->data) {
		gaze_free(mb);
		return -ENOMEM;
	}
	mb->type = type;
	mb->id = id;
	mb->idx = idx;
	mb->ref = 1;
	mb->rf_seq = fs->rf_epoch;	/* touched, for all we know */
	INIT_LIST_HEAD(&mb->list);
	list_add(&mb->hash, &c->hash[cache_hash(c, type, id, idx)]);
	c->bytes += CACHE_MB_BYTES;
	WRITE_ONCE(c->nr_bufs, c->nr_bufs + 1);
	*mbp = mb;
	return 0;
}

int
gaze_mbuf_create(struct gaze_fs *fs, u32 type, u32 id, u64 idx,
		 struct gaze_mbuf **mbp)
{
	struct gaze_mbuf *mb = gaze_mbuf_lookup(fs, type, id, idx);

	if (mb) {
		gaze_mbuf_put(fs, mb);
		return -EEXIST;
	}
	return cache_insert(fs, type, id, idx, mbp);
}

/* each buffer type's verifier, run on every block read from the device */
static const struct {
	const char	*name;
	int		(*verify)(struct gaze_fs *fs, const struct gaze_mbuf *mb,
				  u32 expect, const char **why);
} cache_ops[] = {
	[GAZE_MB_NODE]		= { "node", gaze_node_buf_verify },
	[GAZE_MB_TABLE]		= { "table block", gaze_table_buf_verify },
	[GAZE_MB_TINDEX]	= { "table index block",
				    gaze_tindex_buf_verify },
	[GAZE_MB_FBLK]		= { "directory block", gaze_dir_buf_verify },
};

void
gaze_miss_init(struct gaze_miss *m)
{
	memset(m, 0, sizeof(*m));
	m->nowait = true;
}

void
gaze_miss_exit(struct gaze_miss *m)
{
	gaze_free(m->buf);
	m->buf = NULL;
}

/* the same block named at the same reset generation (nr aside) */
static bool
miss_same(const struct gaze_miss_key *a, const struct gaze_miss_key *b)
{
	return a->type == b->type && a->id == b->id && a->idx == b->idx &&
	       a->blkaddr == b->blkaddr && a->reset_seq == b->reset_seq;
}

bool
gaze_miss_fetch(struct gaze_fs *fs, struct gaze_miss *m, s64 err)
{
	u32 nr = m->want.nr;

	if (err != -GAZE_EMISS)
		return false;
	m->have = false;
	if (nr > m->cap) {
		gaze_free(m->buf);
		m->buf = gaze_alloc((size_t)nr << GAZE_BLOCK_SHIFT);
		m->cap = m->buf ? nr : 0;
	}
	/* no buffer, or the read failed: read under the lock next time */
	if (!m->buf ||
	    fs->dev->ops->read(fs->dev, m->want.blkaddr, nr, m->buf)) {
		m->nowait = false;
	} else {
		m->got = m->want;
		m->have = true;
	}
	if (++m->tries >= GAZE_MISS_TRIES)
		m->nowait = false;
	return true;
}

/* names a miss; one named for the same first block keeps its run */
static int
miss_name(struct gaze_miss *m, const struct gaze_miss_key *k)
{
	if (!miss_same(&m->want, k) || m->want.nr < k->nr)
		m->want = *k;
	return -GAZE_EMISS;
}

/*
 * A miss of a read-only operation (fs->miss, see struct gaze_miss): the
 * block it fetched (*data), or -GAZE_EMISS once it is named; 0 with
 * *data NULL: read it here
 */
static int
cache_miss(struct gaze_fs *fs, u32 type, u32 id, u64 idx, u64 blkaddr,
	   const void **data)
{
	struct gaze_miss *m = fs->miss;
	struct gaze_miss_key k = {
		.type = type, .id = id, .idx = idx, .blkaddr = blkaddr,
		.reset_seq = fs->reset_seq, .nr = 1,
	};

	*data = NULL;
	if (!m || !blkaddr)
		return 0;
	if (m->have && miss_same(&m->got, &k)) {
		m->have = false;
		*data = m->buf;
		return 0;
	}
	return m->nowait ? miss_name(m, &k) : 0;
}

int
gaze_miss_read(struct gaze_fs *fs, u32 type, u32 id, u64 idx, u64 blkaddr,
	       void *buf)
{
	const void *fetched;
	int ret;

	ret = cache_miss(fs, type, id, idx, blkaddr, &fetched);
	if (ret)
		return ret;
	if (fetched) {
		memcpy(buf, fetched, GAZE_BLOCK_SIZE);
		return 0;
	}
	return gaze_block_read(fs, blkaddr, buf);
}

int
gaze_miss_run(struct gaze_fs *fs, u32 nid, u64 first, u32 *nr,
	      const void **data)
{
	struct gaze_miss *m = fs->miss;
	struct gaze_miss_key k = {
		.type = GAZE_MB_NODE, .id = nid, .idx = 0, .blkaddr = first,
		.reset_seq = fs->reset_seq, .nr = *nr,
	};

	*data = NULL;
	if (!m)
		return 0;
	if (m->have && m->got.nr > 1 && miss_same(&m->got, &k)) {
		m->have = false;
		*nr = min(*nr, m->got.nr);
		*data = m->buf;
		return 1;
	}
	return m->nowait ? miss_name(m, &k) : 0;
}

static int
cache_read(struct gaze_fs *fs, u32 type, u32 id, u64 idx, u64 blkaddr,
	   u32 expect, bool verify, struct gaze_mbuf **mbp)
{
	struct gaze_mbuf *mb = gaze_mbuf_lookup(fs, type, id, idx);
	const char *why = NULL;
	const void *fetched;
	int ret;

	if (mb) {
		*mbp = mb;
		return 0;
	}
	if (WARN_ON(type >= ARRAY_SIZE(cache_ops) || !cache_ops[type].verify))
		return -EINVAL;
	ret = cache_miss(fs, type, id, idx, blkaddr, &fetched);
	if (ret)
		return ret;
	ret = cache_insert(fs, type, id, idx, &mb);
	if (ret)
		return ret;
	if (blkaddr) {
		if (fetched)
			memcpy(mb->data, fetched, GAZE_BLOCK_SIZE);
		else
			ret = fs->dev->ops->read(fs->dev, blkaddr, 1,
						 mb->data);
		if (ret) {
			gaze_err("read of block %llu failed: %d",
				 (unsigned long long)blkaddr, ret);
			gaze_mbuf_forget(fs, mb);
			return ret;
		}
		mb->blkaddr = blkaddr;
		ret = verify ? cache_ops[type].verify(fs, mb, expect, &why) : 0;
		if (ret) {
			gaze_err("%s %u/%llu at %llu: %s", cache_ops[type].name,
				 id, (unsigned long long)idx,
				 (unsigned long long)blkaddr,
				 why ? why : "bad block");
			gaze_mbuf_forget(fs, mb);
			return ret;
		}
	}
	*mbp = mb;
	return 0;
}

int
gaze_mbuf_read(struct gaze_fs *fs, u32 type, u32 id, u64 idx, u64 blkaddr,
	       u32 expect, struct gaze_mbuf **mbp)
{
	return cache_read(fs, type, id, idx, blkaddr, expect, true, mbp);
}

int
gaze_mbuf_read_unverified(struct gaze_fs *fs, u32 type, u32 id, u64 idx,
			  u64 blkaddr, struct gaze_mbuf **mbp)
{
	if (!(fs->flags & GAZE_FS_REPAIR))
		return -EPERM;
	return cache_read(fs, type, id, idx, blkaddr, 0, false, mbp);
}

/*
 * Without fsync_namespace roll-forward replays file nodes only: a
 * directory block or directory inode changed since the checkpoint makes
 * the next fsync take one.
 */
static void
cache_rf_note(struct gaze_fs *fs, const struct gaze_mbuf *mb)
{
	const struct gaze_inode *in = mb->data;

	if (mb->type == GAZE_MB_FBLK ||
	    (mb->type == GAZE_MB_NODE &&
	     le32_to_cpu(in->hdr.magic) == GAZE_MAGIC_INODE &&
	     (le16_to_cpu(in->mode) & 0170000) == 0040000)) {
		/* with fsync_namespace, fsync writes directory blocks before
		 * the chain and directory inodes in it (fs.c fs_rf_possible) */
		if (gaze_sb_fsync_ns(&fs->sb))
			fs->rf_ns = true;
		else
			fs->rf_need_cp = true;
	}
}

void
gaze_mbuf_dirty(struct gaze_fs *fs, struct gaze_mbuf *mb)
{
	struct gaze_cache *c = fs->cache;

	cache_rf_note(fs, mb);
	mb->flags |= GAZE_MBF_DIRTY;
	if ((mb->flags & (MBF_ON_DIRTY | MBF_FORGOTTEN)))
		return;
	list_del_init(&mb->list);
	list_add_tail(&mb->list, &c->dirty);
	mb->flags |= MBF_ON_DIRTY;
	if (mb->type < CACHE_NR_TYPES)
		c->nr_dirty[mb->type]++;
	/* a node or directory block never written needs a new main block */
	if (!mb->blkaddr &&
	    (mb->type == GAZE_MB_NODE || mb->type == GAZE_MB_FBLK)) {
		mb->flags |= MBF_NEW_COUNTED;
		WRITE_ONCE(c->nr_dirty_new, c->nr_dirty_new + 1);
		gaze_space_publish(fs);	/* fewer free user blocks */
	}
}

void
gaze_mbuf_clean(struct gaze_fs *fs, struct gaze_mbuf *mb)
{
	struct gaze_cache *c = fs->cache;

	mb->flags &= ~GAZE_MBF_DIRTY;
	if (!(mb->flags & MBF_ON_DIRTY))
		return;
	cache_unlist(c, mb);
	if (!mb->ref && !(mb->flags & MBF_FORGOTTEN))
		list_add_tail(&mb->list, &c->lru);
}

void
gaze_mbuf_put(struct gaze_fs *fs, struct gaze_mbuf *mb)
{
	struct gaze_cache *c = fs->cache;

	if (!mb)
		return;
	if (WARN_ON(mb->ref <= 0))
		return;
	if (--mb->ref)
		return;
	if (mb->flags & MBF_FORGOTTEN) {
		cache_free_mb(c, mb);
		return;
	}
	/* a caller may have cleared GAZE_MBF_DIRTY by hand */
	if ((mb->flags & MBF_ON_DIRTY) && !(mb->flags & GAZE_MBF_DIRTY))
		cache_unlist(c, mb);
	if (!(mb->flags & MBF_ON_DIRTY))
		list_add_tail(&mb->list, &c->lru);
}

void
gaze_mbuf_forget(struct gaze_fs *fs, struct gaze_mbuf *mb)
{
	struct gaze_cache *c = fs->cache;

	if (WARN_ON(mb->ref <= 0) || (mb->flags & MBF_FORGOTTEN))
		return;
	cache_unlist(c, mb);
	list_del_init(&mb->hash);
	mb->flags &= ~GAZE_MBF_DIRTY;
	mb->flags |= MBF_FORGOTTEN;
	if (!--mb->ref)
		cache_free_mb(c, mb);
}

int
gaze_cache_for_each_dirty(struct gaze_fs *fs, u32 type,
			  int (*fn)(struct gaze_fs *, struct gaze_mbuf *,
				    void *), void *arg)
{
	struct gaze_cache *c = fs->cache;
	struct gaze_mbuf *mb;
	LIST_HEAD(work);
	int ret = 0;

	/*
	 * Move the dirty list aside and put each buffer back before calling
	 * fn, so that fn may clean it, forget it, or dirty other buffers
	 * (those are not visited in this pass).
	 */
	if (list_empty(&c->dirty))
		return 0;
	work.next = c->dirty.next;
	work.prev = c->dirty.prev;
	work.next->prev = &work;
	work.prev->next = &work;
	INIT_LIST_HEAD(&c->dirty);

	while (!list_empty(&work)) {
		if (ret) {
			/* stopped: the rest goes back as it was, in order */
			list_splice_tail_init(&work, &c->dirty);
			break;
		}
		mb = list_first_entry(&work, struct gaze_mbuf, list);
		list_del(&mb->list);
		list_add_tail(&mb->list, &c->dirty);
		if (mb->type != type)
			continue;
		if (!(mb->flags & GAZE_MBF_DIRTY)) {
			/* cleaned by hand: settle its list */
			gaze_mbuf_clean(fs, mb);
			continue;
		}
		mb->ref++;
		ret = fn(fs, mb, arg);
		gaze_mbuf_put(fs, mb);
	}
	return ret;
}

u32
gaze_cache_nr_dirty_new(struct gaze_fs *fs)
{
	return READ_ONCE(fs->cache->nr_dirty_new);
}

u32
gaze_cache_nr_dirty(struct gaze_fs *fs, u32 type)
{
	struct gaze_cache *c = fs->cache;

	return type < CACHE_NR_TYPES ? c->nr_dirty[type] : 0;
}

bool
gaze_cache_over_limit(struct gaze_fs *fs)
{
	return fs->cache->bytes > fs->cache_limit;
}

void
gaze_cache_shrink(struct gaze_fs *fs)
{
	cache_evict(fs->cache, fs->cache_limit);
}

u64
gaze_cache_trim(struct gaze_fs *fs, u64 nr)
{
	struct gaze_cache *c = fs->cache;
	u64 before = c->nr_bufs;
	size_t want = (size_t)min_t(u64, nr, c->nr_bufs) * CACHE_MB_BYTES;

	cache_evict(c, c->bytes - want);
	return before - c->nr_bufs;
}

u64
gaze_cache_nr_bufs(struct gaze_fs *fs)
{
	return READ_ONCE(fs->cache->nr_bufs);
}

size_t
gaze_cache_bytes(struct gaze_fs *fs)
{
	return fs->cache->bytes;
}
