// SPDX-License-Identifier: GPL-2.0
/*
 * compress.c - compressed clusters (doc/format.md section 18).
 *
 * A file whose inode has compress_log_cluster set is cut into aligned
 * clusters of 2^log blocks.  A cluster is stored plain (its slots hold
 * block addresses, holes allowed) or packed: slot 0 holds
 * GAZE_ADDR_CLUSTER(n), slots 1..n the n blocks of one stream (a
 * gaze_cluster_hdr and the compressed payload), the other slots 0.
 * A cluster is packed when its stream takes fewer blocks than the data
 * it holds: nvalid blocks, all of the cluster or, for the one holding
 * the EOF, those below it; such a cluster's last slot holds
 * GAZE_ADDR_CLEN(nvalid), its length marker.  The ratio counters
 * (the inode's compr_blocks, the checkpoint's logical and physical
 * blocks) add nvalid and n for every packed cluster: the store functions
 * here when they write or replace one, gaze_cluster_unpacked when the
 * block map clears a first slot (truncate, punch, evict).
 *
 * Every write to such a file goes through a whole cluster: the cluster
 * is loaded (unpacked) unless the write covers it, the new blocks
 * copied in, and the result stored packed when the file asks for
 * compression (GAZE_IF_COMPRESS) and it pays, else plain (only the
 * blocks written, or all of them when it was packed before).  An edit
 * below block granularity of the map (truncate into a cluster, punch or
 * zero part of one) first expands the cluster to plain.  The garbage
 * collector moves a stream block like any other: its summary names the
 * node and slot, so compressed data moves as it is.
 *
 * Encoding can also happen before the lock is taken, on any CPUs:
 * gaze_cluster_plan and gaze_cluster_enc_run touch no filesystem state,
 * gaze_cluster_enc_merge reads a partly rewritten cluster's map under
 * the lock and its blocks without it, and gaze_cluster_store takes such
 * an encoding only while it still matches the cluster, the inode's
 * setting and, for a merged one, the map it was merged over
 * (gaze_cluster_prepare; gaze_core.h above struct gaze_cluster_enc).
 *
 * Locking: fs->lock, as every core function below gaze_ns_*, except
 * gaze_cluster_encode/check/decode, _plan, _enc_run and _enc_free (no
 * shared state) and _enc_merge (called without it; takes it through
 * gaze_file_cluster_slots).
 */
#include "gaze_core.h"

_Static_assert(GAZE_ENV_LZ4 == GAZE_COMPRESS_LZ4 &&
	       GAZE_ENV_ZSTD == GAZE_COMPRESS_ZSTD &&
	       GAZE_ENV_ZLIB == GAZE_COMPRESS_GZIP,
	       "gaze_env.h algorithm numbers are the format's");

#define CL_HDR	((u32)sizeof(struct gaze_cluster_hdr))

static int
cl_bad(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -EFSCORRUPTED;
}

/* the level an algorithm runs at: 0 is its default */
int
gaze_cluster_level(u8 algo, u8 level)
{
	if (level)
		return level;
	if (algo == GAZE_COMPRESS_ZSTD)
		return 3;
	if (algo == GAZE_COMPRESS_GZIP)
		return 6;
	return 0;
}

static u32
cl_crc(const struct gaze_cluster_hdr *h)
{
	struct gaze_cluster_hdr c = *h;
	u32 crc;

	c.crc = 0;
	crc = gaze_crc32c(~0u, &c, CL_HDR);
	crc = gaze_crc32c(crc, h + 1, le32_to_cpu(h->clen));
	return ~crc;
}

int
gaze_cluster_encode(u8 algo, u8 level, const void *raw, u32 rawlen,
		    void *out, u32 cap, u32 *len)
{
	struct gaze_cluster_hdr *h = out;
	int n;

	if (algo == GAZE_COMPRESS_NONE ||
	    gaze_fmt_compress_max_level(algo) < 0 ||
	    level > gaze_fmt_compress_max_level(algo))
		return -EINVAL;
	if (cap <= CL_HDR)
		return -E2BIG;
	n = gaze_compress(algo, gaze_cluster_level(algo, level), raw, rawlen,
			  h + 1, cap - CL_HDR);
	if (n < 0)
		return n;
	memset(h, 0, CL_HDR);
	h->magic = cpu_to_le32(GAZE_MAGIC_CLUSTER);
	h->clen = cpu_to_le32((u32)n);
	h->rawlen = cpu_to_le32(rawlen);
	h->algo = algo;
	h->level = level;
	h->version = GAZE_CLUSTER_VERSION;
	h->crc = cpu_to_le32(cl_crc(h));
	*len = CL_HDR + (u32)n;
	return 0;
}

int
gaze_cluster_check(const void *stream, u32 len, u32 rawlen, const char **why)
{
	const struct gaze_cluster_hdr *h = stream;
	u32 clen;
	int max;

	if (len < CL_HDR)
		return cl_bad(why, "cluster: stream shorter than its header");
	if (le32_to_cpu(h->magic) != GAZE_MAGIC_CLUSTER)
		return cl_bad(why, "cluster: bad magic");
	if (h->version != GAZE_CLUSTER_VERSION)
		return cl_bad(why, "cluster: unknown framing version");
	if (h->flags || h->reserved[0] || h->reserved[1] || h->reserved[2])
		return cl_bad(why, "cluster: reserved fields are not zero");
	max = gaze_fmt_compress_max_level(h->algo);
	if (h->algo == GAZE_COMPRESS_NONE || max < 0 || h->level > max)
		return cl_bad(why, "cluster: unknown algorithm or level");
	clen = le32_to_cpu(h->clen);
	if (!clen || clen > len - CL_HDR)
		return cl_bad(why, "cluster: payload length outside the stream");
	if (le32_to_cpu(h->rawlen) != rawlen)
		return cl_bad(why, "cluster: raw length is not the cluster size");
	if (le32_to_cpu(h->crc) != cl_crc(h))
		return -EFSBADCRC;
	return 0;
}

int
gaze_cluster_decode(const void *stream, u32 len, void *raw, u32 rawlen,
		    const char **why)
{
	const struct gaze_cluster_hdr *h = stream;
	int err;

	err = gaze_cluster_check(stream, len, rawlen, why);
	if (err) {
		if (err == -EFSBADCRC && why)
			*why = "cluster: checksum mismatch";
		return err;
	}
	err = gaze_decompress(h->algo, h + 1, le32_to_cpu(h->clen), raw,
			      rawlen);
	if (err)
		return cl_bad(why, "cluster: payload does not decompress to the cluster");
	return 0;
}

/* ---------------------------------------------------------------- */
/* Ratio counters                                                    */
/* ---------------------------------------------------------------- */

static void
cl_le64_add(__le64 *v, s64 d)
{
	*v = cpu_to_le64(le64_to_cpu(*v) + (u64)d);
}

/* a packed cluster of nvalid logical blocks in n blocks comes (sign 1) or goes */
static void
cl_account(struct gaze_fs *fs, struct gaze_mbuf *imb, u32 nvalid, u32 n,
	   int sign)
{
	struct gaze_inode *in = imb->data;

	cl_le64_add(&in->compr_blocks, sign * ((s64)nvalid - n));
	cl_le64_add(&fs->cp.compr_logical_blocks, sign * (s64)nvalid);
	cl_le64_add(&fs->cp.compr_physical_blocks, sign * (s64)n);
	gaze_mbuf_dirty(fs, imb);
}

/* blocks of data in the packed cluster at first: its length marker, or all */
static int
cl_nvalid(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 first, u32 nblk,
	  u32 *nvalid)
{
	u64 a;
	int err;

	err = gaze_bmap_lookup(fs, imb, first + nblk - 1, &a);
	*nvalid = GAZE_ADDR_IS_CLEN(a) ? GAZE_ADDR_CLEN_NR(a) : nblk;
	return err;
}

static int cl_slot_set(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		       u64 addr);

/*
 * The block map clears a cluster's first slot (truncate, punch, evict):
 * the cluster leaves the counters, and its length marker goes with it
 * (the range cleared may end before the last slot, at the EOF)
 */
int
gaze_cluster_unpacked(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		      u64 old)
{
	u32 log = ((struct gaze_inode *)imb->data)->compress_log_cluster;
	u32 nvalid, nblk = 1u << log;
	int err;

	if (!GAZE_ADDR_IS_CLUSTER(old) || !log || (fblk & (nblk - 1)))
		return 0;	/* not a cluster's first slot */
	err = cl_nvalid(fs, imb, fblk, nblk, &nvalid);
	if (err)
		return err;
	cl_account(fs, imb, nvalid, GAZE_ADDR_CLUSTER_NR(old), -1);
	return nvalid < nblk ? cl_slot_set(fs, imb, fblk + nblk - 1, 0) : 0;
}

/* ---------------------------------------------------------------- */
/* Cluster I/O                                                       */
/* ---------------------------------------------------------------- */

static void
cl_dirty_set(struct gaze_cluster *c, u32 k)
{
	c->dirty[k / 64] |= 1ull << (k % 64);
}

static bool
cl_dirty_test(const struct gaze_cluster *c, u32 k)
{
	return c->dirty[k / 64] & (1ull << (k % 64));
}

int
gaze_cluster_begin(struct gaze_mbuf *imb, u64 fblk, struct gaze_cluster *c)
{
	const struct gaze_inode *in = imb->data;

	memset(c, 0, sizeof(*c));
	c->nblk = 1u << in->compress_log_cluster;
	c->first = fblk & ~(u64)(c->nblk - 1);
	c->buf = gaze_alloc((size_t)c->nblk << GAZE_BLOCK_SHIFT);
	return c->buf ? 0 : -ENOMEM;
}

void
gaze_cluster_end(struct gaze_cluster *c)
{
	gaze_free(c->buf);
	c->buf = NULL;
}

/* moves c to the cluster holding fblk, keeping its buffer */
void
gaze_cluster_move(struct gaze_cluster *c, u64 fblk)
{
	c->first = fblk & ~(u64)(c->nblk - 1);
	c->packed = c->loaded = false;
	c->n = c->nvalid = 0;
	memset(c->dirty, 0, sizeof(c->dirty));
}

/* the device addresses of the n stream blocks of the packed cluster at first */
static int
cl_stream_addrs(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 first, u32 n,
		u64 *addrs)
{
	u32 k;
	int err;

	for (k = 0; k < n; k++) {
		err = gaze_bmap_lookup(fs, imb, first + 1 + k, &addrs[k]);
		if (err)
			return err;
		if (!GAZE_ADDR_IS_REAL(addrs[k]))
			return -EFSCORRUPTED;
	}
	return 0;
}

/* reads the stream of packed cluster c (c->n, c->nvalid) and unpacks it */
static int
cl_unpack(struct gaze_fs *fs, struct gaze_mbuf *imb, struct gaze_cluster *c)
{
	u32 n = c->n, raw = c->nvalid << GAZE_BLOCK_SHIFT, k;
	const char *why = NULL;
	u8 *stream;
	u64 *addrs;
	int err;

	if (!n || n >= c->nvalid || c->nvalid > c->nblk)
		return -EFSCORRUPTED;
	/* the stream's n blocks, then their n addresses */
	stream = gaze_alloc(((size_t)n << GAZE_BLOCK_SHIFT) + n * sizeof(*addrs));
	if (!stream)
		return -ENOMEM;
	addrs = (u64 *)(stream + ((size_t)n << GAZE_BLOCK_SHIFT));
	err = cl_stream_addrs(fs, imb, c->first, n, addrs);
	for (k = 0; k < n && !err; k++)
		err = gaze_block_read(fs, addrs[k], stream +
				      ((size_t)k << GAZE_BLOCK_SHIFT));
	if (!err)
		err = gaze_cluster_decode(stream, n << GAZE_BLOCK_SHIFT, c->buf,
					  raw, &why);
	if (err && why)
		gaze_err("gaze: inode %u cluster at block %llu: %s",
			 le32_to_cpu(((struct gaze_inode *)imb->data)->hdr.ino),
			 (unsigned long long)c->first, why);
	if (!err)
		memset(c->buf + raw, 0,
		       (size_t)(c->nblk << GAZE_BLOCK_SHIFT) - raw);
	gaze_free(stream);
	return err;
}

int
gaze_cluster_load(struct gaze_fs *fs, struct gaze_mbuf *imb,
		  struct gaze_cluster *c)
{
	u8 *blk;
	u64 addr;
	u32 k;
	int err;

	err = gaze_bmap_lookup(fs, imb, c->first, &addr);
	if (err)
		return err;
	if (GAZE_ADDR_IS_CLUSTER(addr)) {
		c->n = GAZE_ADDR_CLUSTER_NR(addr);
		err = cl_nvalid(fs, imb, c->first, c->nblk, &c->nvalid);
		if (!err)
			err = cl_unpack(fs, imb, c);
		c->packed = !err;
		c->loaded = !err;
		return err;
	}
	for (k = 0; k < c->nblk; k++) {
		blk = c->buf + ((size_t)k << GAZE_BLOCK_SHIFT);
		if (k)
			err = gaze_bmap_lookup(fs, imb, c->first + k, &addr);
		if (!err && GAZE_ADDR_IS_REAL(addr))
			err = gaze_block_read(fs, addr, blk);
		else if (!err)
			memset(blk, 0, GAZE_BLOCK_SIZE);
		if (err)
			return err;
	}
	c->packed = false;
	c->loaded = true;
	return 0;
}

int
gaze_cluster_map(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		 u64 *addrs, u32 *n, u32 *nvalid)
{
	const struct gaze_inode *in = imb->data;
	u32 nblk = 1u << in->compress_log_cluster;
	u64 first = fblk & ~(u64)(nblk - 1), a;
	int err;

	if (!in->compress_log_cluster)
		return -ENODATA;
	err = gaze_bmap_lookup(fs, imb, first, &a);
	if (err)
		return err;
	if (!GAZE_ADDR_IS_CLUSTER(a))
		return -ENODATA;
	*n = GAZE_ADDR_CLUSTER_NR(a);
	err = cl_nvalid(fs, imb, first, nblk, nvalid);
	if (!err && (!*n || *n >= *nvalid || *nvalid > nblk))
		err = -EFSCORRUPTED;
	if (!err)
		err = cl_stream_addrs(fs, imb, first, *n, addrs);
	return err;
}

int
gaze_cluster_room(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		  bool inl, u32 *room)
{
	const struct gaze_inode *in = imb->data;
	u32 nblk = 1u << in->compress_log_cluster;
	u64 first = fblk & ~(u64)(nblk - 1), held = 0, a;
	int err;

	*room = 0;
	if (!in->compress_log_cluster)
		return 0;
	if (inl) {
		*room = nblk;	/* all of it once the data leaves the inode */
		return 0;
	}
	err = gaze_bmap_lookup(fs, imb, first, &a);
	if (err)
		return err;
	if (GAZE_ADDR_IS_CLUSTER(a))
		held = GAZE_ADDR_CLUSTER_NR(a);
	else
		err = gaze_bmap_range(fs, imb, first, first + nblk, false,
				      &held);
	if (!err && held < nblk)
		*room = nblk - (u32)held;
	return err;
}

int
gaze_cluster_is_packed(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		       bool *packed)
{
	const struct gaze_inode *in = imb->data;
	u64 addr;
	int err;

	*packed = false;
	if (!in->compress_log_cluster)
		return 0;
	err = gaze_bmap_lookup(fs, imb,
			       fblk & ~((1ull << in->compress_log_cluster) - 1),
			       &addr);
	*packed = !err && GAZE_ADDR_IS_CLUSTER(addr);
	return err;
}

/* sets slots [from, to) to 0 where they are not already */
static int
cl_clear(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from, u64 to)
{
	u64 mapped;

	if (from >= to)
		return 0;
	return gaze_bmap_range(fs, imb, from, to, true, &mapped);
}

static int
cl_slot_set(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk, u64 addr)
{
	struct gaze_mbuf *owner;
	u32 ofs;
	int err;

	err = gaze_bmap_slot(fs, imb, fblk, true, &owner, &ofs);
	if (err)
		return err;
	err = gaze_bmap_set(fs, imb, owner, ofs, addr);
	gaze_bmap_release(fs, imb, owner);
	return err;
}

/* what c held before it is rewritten leaves the counters */
static int
cl_unaccount_old(struct gaze_fs *fs, struct gaze_mbuf *imb,
		 struct gaze_cluster *c)
{
	u32 nvalid;
	u64 a;
	int err;

	if (c->loaded) {
		if (c->packed)
			cl_account(fs, imb, c->nvalid, c->n, -1);
		return 0;
	}
	err = gaze_bmap_lookup(fs, imb, c->first, &a);
	if (err || !GAZE_ADDR_IS_CLUSTER(a))
		return err;
	err = cl_nvalid(fs, imb, c->first, c->nblk, &nvalid);
	if (!err)
		cl_account(fs, imb, nvalid, GAZE_ADDR_CLUSTER_NR(a), -1);
	return err;
}

/*
 * stores c as the stream of len bytes for nvalid blocks: slots 1..n the
 * stream, the last slot the length marker when nvalid < nblk, the others
 * 0; slot 0 last
 */
static int
cl_store_packed(struct gaze_fs *fs, struct gaze_mbuf *imb,
		struct gaze_cluster *c, u8 *stream, u32 len, u32 nvalid)
{
	u32 n = DIV_ROUND_UP(len, GAZE_BLOCK_SIZE), k;
	u64 last = c->first + c->nblk - 1;
	void **bufs;
	int err;

	err = cl_unaccount_old(fs, imb, c);
	if (err)
		return err;
	memset(stream + len, 0, ((size_t)n << GAZE_BLOCK_SHIFT) - len);
	bufs = gaze_alloc(sizeof(*bufs) * n);
	if (!bufs)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		bufs[k] = stream + ((size_t)k << GAZE_BLOCK_SHIFT);
	err = gaze_inode_write_plain(fs, imb, c->first + 1, NULL, n, bufs);
	gaze_free(bufs);
	if (!err)
		err = cl_clear(fs, imb, c->first + 1 + n,
			       nvalid < c->nblk ? last : last + 1);
	if (!err && nvalid < c->nblk)
		err = cl_slot_set(fs, imb, last, GAZE_ADDR_CLEN(nvalid));
	if (!err)
		err = cl_slot_set(fs, imb, c->first, GAZE_ADDR_CLUSTER(n));
	if (!err)
		cl_account(fs, imb, nvalid, n, 1);
	return err;
}

/* stores c plain: its dirty blocks (all below EOF when it was packed) */
static int
cl_store_plain(struct gaze_fs *fs, struct gaze_mbuf *imb,
	       struct gaze_cluster *c, u64 size)
{
	u64 eof = DIV_ROUND_UP(size, GAZE_BLOCK_SIZE), *fblks;
	void **bufs;
	u32 k, nr = 0;
	int err;

	err = cl_unaccount_old(fs, imb, c);
	if (err)
		return err;
	fblks = gaze_alloc((sizeof(*fblks) + sizeof(*bufs)) * c->nblk);
	if (!fblks)
		return -ENOMEM;
	bufs = (void **)(fblks + c->nblk);
	for (k = 0; k < c->nblk; k++) {
		if (c->packed && c->first + k < eof)
			cl_dirty_set(c, k);
		if (!cl_dirty_test(c, k))
			continue;
		fblks[nr] = c->first + k;
		bufs[nr++] = c->buf + ((size_t)k << GAZE_BLOCK_SHIFT);
	}
	if (nr)
		err = gaze_inode_write_plain(fs, imb, 0, fblks, nr, bufs);
	gaze_free(fblks);
	if (err || !c->packed)
		return err;
	/* what is left of the stream and markers (past the EOF) goes */
	if (eof <= c->first)
		err = cl_slot_set(fs, imb, c->first, GAZE_NULL_ADDR);
	if (!err)
		err = cl_clear(fs, imb, max(eof, c->first + 1),
			       c->first + c->nblk);
	return err;
}

/* c->enc, made outside the lock, is an encoding of what c now stores */
static struct gaze_cluster_enc *
cl_enc_match(const struct gaze_inode *in, struct gaze_cluster *c, u32 nvalid,
	     bool use)
{
	struct gaze_cluster_enc *e = c->enc;

	if (!e || e->first != c->first || e->nvalid != nvalid ||
	    e->algo != in->compress_algo || e->level != in->compress_level ||
	    (e->err && e->err != -E2BIG))
		return NULL;
	if (use)
		e->used = true;
	return e;
}

/* c's data blocks below size, and whether it may be stored packed */
static u32
cl_store_nvalid(const struct gaze_inode *in, const struct gaze_cluster *c,
		u64 size, bool *may_pack)
{
	u64 eof = DIV_ROUND_UP(size, GAZE_BLOCK_SIZE);
	u32 nvalid;

	nvalid = eof > c->first ? (u32)min_t(u64, c->nblk, eof - c->first) : 0;
	*may_pack = nvalid >= 2 && (le32_to_cpu(in->flags) & GAZE_IF_COMPRESS) &&
		    in->compress_algo != GAZE_COMPRESS_NONE;
	return nvalid;
}

int
gaze_cluster_store(struct gaze_fs *fs, struct gaze_mbuf *imb,
		   struct gaze_cluster *c, u64 size, bool may_pack)
{
	const struct gaze_inode *in = imb->data;
	struct gaze_cluster_enc *e;
	u32 nvalid, cap, len;
	bool can_pack;
	u8 *stream;
	int err;

	nvalid = cl_store_nvalid(in, c, size, &can_pack);
	if (!may_pack || !can_pack)
		return cl_store_plain(fs, imb, c, size);
	e = cl_enc_match(in, c, nvalid, true);
	if (e && e->err)		/* saves no block: plain */
		return cl_store_plain(fs, imb, c, size);
	if (e)
		return cl_store_packed(fs, imb, c, e->stream, e->len, nvalid);
	cap = (nvalid - 1) << GAZE_BLOCK_SHIFT;
	stream = gaze_alloc(cap);
	if (!stream)
		return -ENOMEM;
	err = gaze_cluster_encode(in->compress_algo, in->compress_level, c->buf,
				  nvalid << GAZE_BLOCK_SHIFT, stream, cap, &len);
	if (!err)
		err = cl_store_packed(fs, imb, c, stream, len, nvalid);
	else if (err == -E2BIG)		/* saves no block: plain */
		err = cl_store_plain(fs, imb, c, size);
	gaze_free(stream);
	return err;
}

u32
gaze_cluster_plan(u8 log_cluster, u8 algo, u8 level, const u64 *fblks,
		  void *const *bufs, u32 nr, u64 size, u32 flags,
		  struct gaze_cluster_enc *enc, u32 max)
{
	u64 eof = DIV_ROUND_UP(size, GAZE_BLOCK_SIZE), first;
	u32 nblk = 1u << log_cluster, i = 0, j, nvalid, n = 0;
	bool whole;

	if (!log_cluster || algo == GAZE_COMPRESS_NONE)
		return 0;
	while (i < nr && n < max) {
		first = fblks[i] & ~(u64)(nblk - 1);
		nvalid = eof > first ? (u32)min_t(u64, nblk, eof - first) : 0;
		for (j = i; j < nr && j - i < nvalid; j++)
			if (fblks[j] != first + (j - i))
				break;
		whole = j - i == nvalid;
		for (j = i; j < nr && fblks[j] < first + nblk; j++)
			;
		if (nvalid >= 2 && (whole || (flags & GAZE_PLAN_PARTIAL))) {
			memset(&enc[n], 0, sizeof(enc[n]));
			enc[n].first = first;
			enc[n].nvalid = nvalid;
			enc[n].nblk = nblk;
			enc[n].algo = algo;
			enc[n].level = level;
			enc[n].blocks = bufs + i;
			enc[n].fblks = fblks + i;
			enc[n++].nb = j - i;
		}
		i = j;
	}
	return n;
}

static void cl_enc_raw(struct gaze_cluster_enc *e, const void *raw);

void
gaze_cluster_enc_run(struct gaze_cluster_enc *e, void *scratch)
{
	u32 k;

	for (k = 0; k < e->nvalid; k++)
		memcpy((u8 *)scratch + ((size_t)k << GAZE_BLOCK_SHIFT),
		       e->blocks[k], GAZE_BLOCK_SIZE);
	cl_enc_raw(e, scratch);
}

/* e->stream from the nvalid blocks at raw */
static void
cl_enc_raw(struct gaze_cluster_enc *e, const void *raw)
{
	u32 cap = (e->nvalid - 1) << GAZE_BLOCK_SHIFT;

	e->stream = gaze_alloc(cap);
	if (!e->stream) {
		e->err = -ENOMEM;
		return;
	}
	e->err = gaze_cluster_encode(e->algo, e->level, raw,
				     e->nvalid << GAZE_BLOCK_SHIFT, e->stream,
				     cap, &e->len);
	if (e->err) {
		gaze_free(e->stream);
		e->stream = NULL;
	}
}

/* nr blocks at addrs[] into buf, consecutive addresses in one read */
static int
cl_read_addrs(struct gaze_fs *fs, const u64 *addrs, u32 nr, u8 *buf)
{
	u32 i = 0, j;
	int err;

	while (i < nr) {
		for (j = i + 1; j < nr && addrs[j] == addrs[j - 1] + 1; j++)
			;
		err = fs->dev->ops->read(fs->dev, addrs[i], j - i,
					 buf + ((size_t)i << GAZE_BLOCK_SHIFT));
		if (err)
			return err;
		i = j;
	}
	return 0;
}

/*
 * What the cluster whose slots are base[] holds, into raw (nblk blocks,
 * zeros past its data and in holes), read without fs->lock: a packed one's
 * stream (into stream) decoded, a plain one's blocks
 */
static int
cl_read_base(struct gaze_fs *fs, const u64 *base, u32 nblk, u8 *raw,
	     u8 *stream)
{
	u32 n, nvalid, k;
	int err = 0;

	memset(raw, 0, (size_t)nblk << GAZE_BLOCK_SHIFT);
	if (!GAZE_ADDR_IS_CLUSTER(base[0])) {
		for (k = 0; k < nblk && !err; k++)
			if (GAZE_ADDR_IS_REAL(base[k]))
				err = fs->dev->ops->read(fs->dev, base[k], 1,
					raw + ((size_t)k << GAZE_BLOCK_SHIFT));
		return err;
	}
	n = GAZE_ADDR_CLUSTER_NR(base[0]);
	nvalid = GAZE_ADDR_IS_CLEN(base[nblk - 1]) ?
		 GAZE_ADDR_CLEN_NR(base[nblk - 1]) : nblk;
	if (!n || n >= nvalid || nvalid > nblk)
		return -EFSCORRUPTED;
	for (k = 1; k <= n; k++)
		if (!GAZE_ADDR_IS_REAL(base[k]))
			return -EFSCORRUPTED;
	err = cl_read_addrs(fs, base + 1, n, stream);
	if (!err)
		err = gaze_cluster_decode(stream, n << GAZE_BLOCK_SHIFT, raw,
					  nvalid << GAZE_BLOCK_SHIFT, NULL);
	return err;
}

void
gaze_cluster_enc_merge(struct gaze_fs *fs, u32 ino, struct gaze_cluster_enc *e,
		       void *scratch)
{
	u8 *raw = scratch, *stream = raw + ((size_t)e->nblk << GAZE_BLOCK_SHIFT);
	u32 t;
	int err;

	if (!gaze_cluster_enc_partial(e)) {
		gaze_cluster_enc_run(e, scratch);
		return;
	}
	e->base = gaze_alloc(sizeof(*e->base) * e->nblk);
	if (!e->base) {
		e->err = -ENOMEM;
		return;
	}
	err = gaze_file_cluster_slots(fs, ino, e->first, e->nblk, e->base,
				      &e->base_seq);
	if (!err)
		err = cl_read_base(fs, e->base, e->nblk, raw, stream);
	if (err) {
		/* the core loads it under its lock, as without a plan */
		gaze_free(e->base);
		e->base = NULL;
		e->err = err;
		return;
	}
	for (t = 0; t < e->nb; t++)
		memcpy(raw + ((size_t)(e->fblks[t] - e->first) <<
			      GAZE_BLOCK_SHIFT), e->blocks[t], GAZE_BLOCK_SIZE);
	cl_enc_raw(e, raw);
}

void
gaze_cluster_enc_free(struct gaze_cluster_enc *enc, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		gaze_free(enc[i].stream);
		enc[i].stream = NULL;
		gaze_free(enc[i].base);
		enc[i].base = NULL;
	}
}

int
gaze_cluster_slots(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 first,
		   u32 nblk, u64 *slots)
{
	const struct gaze_inode *in = imb->data;
	u32 k;
	int err = 0;

	if (!in->compress_log_cluster || nblk != 1u << in->compress_log_cluster
	    || (first & (nblk - 1)))
		return -ESTALE;
	for (k = 0; k < nblk && !err; k++)
		err = gaze_bmap_lookup(fs, imb, first + k, &slots[k]);
	return err;
}

/* c->enc was merged over c's map as it is now, and no zone was reset */
static bool
cl_base_same(struct gaze_fs *fs, struct gaze_mbuf *imb, struct gaze_cluster *c)
{
	const struct gaze_cluster_enc *e = c->enc;
	u64 a;
	u32 k;

	if (!e->base || e->base_seq != fs->reset_seq || e->nblk != c->nblk)
		return false;
	for (k = 0; k < c->nblk; k++)
		if (gaze_bmap_lookup(fs, imb, c->first + k, &a) ||
		    a != e->base[k])
			return false;
	return true;
}

int
gaze_cluster_prepare(struct gaze_fs *fs, struct gaze_mbuf *imb,
		     struct gaze_cluster *c, u32 nb, u64 size)
{
	struct gaze_cluster_enc *e = c->enc;
	bool may_pack;

	if (e && gaze_cluster_enc_partial(e) && !cl_base_same(fs, imb, c))
		c->enc = e = NULL;
	if (nb == c->nblk)
		return 0;
	/* a stream to store packed needs nothing of c->buf */
	if (e && cl_enc_match(imb->data, c, cl_store_nvalid(imb->data, c,
							    size, &may_pack),
			      false) && may_pack && !e->err)
		return 0;
	return gaze_cluster_load(fs, imb, c);
}

int
gaze_cluster_expand(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		    u64 size)
{
	struct gaze_cluster c;
	bool packed;
	int err;

	err = gaze_cluster_is_packed(fs, imb, fblk, &packed);
	if (err || !packed)
		return err;
	err = gaze_cluster_begin(imb, fblk, &c);
	if (err)
		return err;
	err = gaze_cluster_load(fs, imb, &c);
	if (!err)
		err = gaze_cluster_store(fs, imb, &c, size, false);
	gaze_cluster_end(&c);
	return err;
}

/* ---------------------------------------------------------------- */
/* The compression property                                          */
/* ---------------------------------------------------------------- */

/*
 * A new file or directory (mode) takes its parent directory's setting;
 * in a directory that does not compress, the mount's compress= if any;
 * the root, created with no parent yet, takes the superblock's default.
 * Either way the value is inherited: GAZE_IF_COMPRESS_LOCAL stays clear.
 */
void
gaze_cluster_inherit(const struct gaze_fs *fs, const struct gaze_inode *dir,
		     struct gaze_inode *in, u32 mode)
{
	const struct gaze_super *sb = &fs->sb;
	u8 algo = sb->compress_algo, level = sb->compress_level;

	if (!(le64_to_cpu(sb->feature_incompat) &
	      GAZE_FEATURE_INCOMPAT_COMPRESSION) ||
	    (!GAZE_S_ISREG(mode) && !GAZE_S_ISDIR(mode)))
		return;
	if (dir && (le32_to_cpu(dir->flags) & GAZE_IF_COMPRESS)) {
		algo = dir->compress_algo;
		level = dir->compress_level;
	} else if (fs->mnt_compress_algo != GAZE_COMPRESS_NONE) {
		algo = fs->mnt_compress_algo;	/* mount option compress= */
		level = fs->mnt_compress_level;
	} else if (dir) {
		return;
	}
	if (algo == GAZE_COMPRESS_NONE)
		return;
	in->flags = cpu_to_le32(le32_to_cpu(in->flags) | GAZE_IF_COMPRESS);
	in->compress_algo = algo;
	in->compress_level = level;
	in->compress_log_cluster = sb->compress_log_cluster;
}

int
gaze_cluster_set_prop(struct gaze_fs *fs, struct gaze_mbuf *imb, u8 algo,
		      u8 level)
{
	struct gaze_inode *in = imb->data;
	u32 mode = le16_to_cpu(in->mode), flags = le32_to_cpu(in->flags);
	int max = gaze_fmt_compress_max_level(algo);

	if (!(le64_to_cpu(fs->sb.feature_incompat) &
	      GAZE_FEATURE_INCOMPAT_COMPRESSION))
		return -EOPNOTSUPP;
	if (!GAZE_S_ISREG(mode) && !GAZE_S_ISDIR(mode))
		return -EINVAL;
	if (max < 0 || level > max)
		return -EINVAL;
	if (algo == GAZE_COMPRESS_NONE) {
		flags &= ~GAZE_IF_COMPRESS;
		level = 0;
	} else {
		flags |= GAZE_IF_COMPRESS;
		/* the cluster size never changes once chosen */
		if (!in->compress_log_cluster)
			in->compress_log_cluster = fs->sb.compress_log_cluster;
	}
	/* gazectl get: its own value now, not its directory's */
	in->flags = cpu_to_le32(flags | GAZE_IF_COMPRESS_LOCAL);
	in->compress_algo = algo;
	in->compress_level = level;
	gaze_mbuf_dirty(fs, imb);
	return 0;
}

/* chattr +c / -c: on takes the filesystem's default (lz4 if it has none) */
int
gaze_cluster_set_flag(struct gaze_fs *fs, struct gaze_mbuf *imb, bool on)
{
	const struct gaze_inode *in = imb->data;
	u8 algo = fs->sb.compress_algo, level = fs->sb.compress_level;

	if (on == !!(le32_to_cpu(in->flags) & GAZE_IF_COMPRESS))
		return 0;
	if (!on)
		return gaze_cluster_set_prop(fs, imb, GAZE_COMPRESS_NONE, 0);
	if (algo == GAZE_COMPRESS_NONE) {
		algo = GAZE_COMPRESS_LZ4;
		level = 0;
	}
	return gaze_cluster_set_prop(fs, imb, algo, level);
}

int
gaze_fs_set_compress(struct gaze_fs *fs, u8 algo, u8 level)
{
	int max = gaze_fmt_compress_max_level(algo);

	if (max < 0 || level > max)
		return -EINVAL;
	if (algo != GAZE_COMPRESS_NONE &&
	    !(le64_to_cpu(fs->sb.feature_incompat) &
	      GAZE_FEATURE_INCOMPAT_COMPRESSION))
		return -EOPNOTSUPP;
	mutex_lock(&fs->lock);
	fs->mnt_compress_algo = algo;
	fs->mnt_compress_level = level;
	mutex_unlock(&fs->lock);
	return 0;
}
