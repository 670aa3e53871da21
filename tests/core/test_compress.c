// SPDX-License-Identifier: GPL-2.0
/*
 * test_compress.c - compressed clusters (core/compress.c, format.md
 * section 18) on the ZNS emulator.
 *
 *  1. the stream codec for every algorithm and level class: text-like,
 *     all-zero and random data round-trip or say -E2BIG; hostile streams
 *     (bad magic, version, lengths, checksum, a payload that does not
 *     decompress) fail cleanly;
 *  2. per algorithm, a filesystem with compression on: files inherit it,
 *     text-like data takes fewer blocks than its size, random data is
 *     stored plain, every byte reads back; the ratio counters (inode,
 *     checkpoint) agree with a count of the packed clusters and survive a
 *     remount;
 *  3. edits inside packed clusters: a 100-byte overwrite, truncate into a
 *     cluster and growth after it, punch and zero range inside and across
 *     clusters, a write that makes data incompressible, all checked
 *     against a model; chattr -c / +c;
 *  4. GC moves the zone holding packed streams and every byte still
 *     reads back; fsync and a crash replay packed clusters by
 *     roll-forward;
 *  5. clusters encoded outside the lock by several threads
 *     (gaze_cluster_plan/_enc_run, gaze_file_write_vec_enc) store the
 *     same file as the core encoding them itself; an encoding that no
 *     longer matches the inode's setting is made again under the lock;
 *  6. clusters a batch holds only part of, merged outside the lock
 *     (GAZE_PLAN_PARTIAL, gaze_cluster_enc_merge): their blocks are read
 *     without fs->lock and the core stores them with no device read under
 *     it; a merge is not used after the cluster was rewritten, a zone
 *     reset, or GC moved its stream.
 * TAP on stdout.
 */
#include <pthread.h>

#include "../tap.h"

#include "fixture.h"

#define FSZ	(1u << 20)		/* model file size limit */

static u8 model[FSZ], got[FSZ], model2[FSZ];


/* text-like bytes: words from a small vocabulary */
static void
gen_text(u8 *p, u32 len)
{
	static const char *const w[] = {
		"zone ", "cluster ", "garbage ", "collector ", "write ",
		"pointer ", "the ", "of ", "log ", "gaze\n", "checkpoint ",
		"segment ", "flash ", "a ", "and ",
	};
	u32 n = 0, l;
	const char *s;

	while (n < len) {
		s = w[rnd() % ARRAY_SIZE(w)];
		l = (u32)strlen(s);
		l = min(l, len - n);
		memcpy(p + n, s, l);
		n += l;
	}
}

static void
gen_rand(u8 *p, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(rnd() >> 24);
}

/* ---------------------------------------------------------------- */
/* 1. The codec                                                      */
/* ---------------------------------------------------------------- */

static void
test_codec(void)
{
	static const u8 algos[][2] = {
		{ GAZE_COMPRESS_LZ4, 0 }, { GAZE_COMPRESS_ZSTD, 1 },
		{ GAZE_COMPRESS_ZSTD, 0 }, { GAZE_COMPRESS_ZSTD, 19 },
		{ GAZE_COMPRESS_GZIP, 1 }, { GAZE_COMPRESS_GZIP, 9 },
	};
	u32 raw = 64 * 1024, cap = raw - BS, len, i, bad = 0;
	u8 *in = malloc(raw), *out = malloc(raw), *back = malloc(raw);
	struct gaze_cluster_hdr *h = (void *)out;
	const char *why;
	int err;

	for (i = 0; i < ARRAY_SIZE(algos); i++) {
		u8 a = algos[i][0], l = algos[i][1];

		gen_text(in, raw);
		err = gaze_cluster_encode(a, l, in, raw, out, cap, &len);
		if (err || len >= raw / 2 ||
		    gaze_cluster_decode(out, len, back, raw, NULL) ||
		    memcmp(in, back, raw))
			bad |= 1;
		memset(in, 0, raw);
		err = gaze_cluster_encode(a, l, in, raw, out, cap, &len);
		if (err || len > BS ||
		    gaze_cluster_decode(out, len, back, raw, NULL) ||
		    memcmp(in, back, raw))
			bad |= 2;
		gen_rand(in, raw);
		if (gaze_cluster_encode(a, l, in, raw, out, cap, &len) !=
		    -E2BIG)
			bad |= 4;
		tap_ok(!bad, "%s level %u: text shrinks by half and round-trips; zeros fit one block; random data says -E2BIG (%#x)",
		       gaze_fmt_compress_name(a), l, bad);
		bad = 0;
	}
	tap_ok(gaze_cluster_encode(GAZE_COMPRESS_NONE, 0, in, raw, out, cap,
				   &len) == -EINVAL &&
	       gaze_cluster_encode(GAZE_COMPRESS_LZ4, 3, in, raw, out, cap,
				   &len) == -EINVAL &&
	       gaze_cluster_encode(9, 0, in, raw, out, cap, &len) == -EINVAL,
	       "encode refuses none, a level lz4 does not have, an unknown algorithm");

	/* hostile streams */
	gen_text(in, raw);
	TAP_MUST(gaze_cluster_encode(GAZE_COMPRESS_ZSTD, 3, in, raw, out, cap,
				     &len));
#define HOSTILE(what, stmt, want) do {					\
		TAP_MUST(gaze_cluster_encode(GAZE_COMPRESS_ZSTD, 3, in, raw, \
					     out, cap, &len));		\
		stmt;							\
		why = NULL;						\
		err = gaze_cluster_decode(out, len, back, raw, &why);	\
		tap_ok(err == (want) && why, "hostile stream (%s): %d, \"%s\"", \
		       what, err, why ? why : "");			\
	} while (0)
	HOSTILE("bad magic", h->magic ^= 1, -EFSCORRUPTED);
	HOSTILE("unknown version", h->version = 2, -EFSCORRUPTED);
	HOSTILE("reserved bytes", h->reserved[1] = 1, -EFSCORRUPTED);
	HOSTILE("unknown algorithm", h->algo = 7, -EFSCORRUPTED);
	HOSTILE("payload longer than the stream",
		h->clen = cpu_to_le32(len), -EFSCORRUPTED);
	HOSTILE("zero payload", h->clen = 0, -EFSCORRUPTED);
	HOSTILE("raw length not the cluster's",
		h->rawlen = cpu_to_le32(raw / 2), -EFSCORRUPTED);
	HOSTILE("shorter than a header", len = 20, -EFSCORRUPTED);
	HOSTILE("payload bit flipped", out[100] ^= 0x10, -EFSBADCRC);
	/* a corrupt payload under a valid checksum: the decoder's bounds */
	HOSTILE("payload garbage, checksum fixed",
		(memset(out + 40, 0xa5, 64),
		 h->crc = 0, h->crc = cpu_to_le32(~gaze_crc32c(~0u, out, 32))),
		-EFSBADCRC);
	{
		struct gaze_cluster_hdr c;
		u32 crc, j, fails = 0;

		for (j = 0; j < 200; j++) {
			TAP_MUST(gaze_cluster_encode(j % 3 + 1, 0, in, raw,
						     out, cap, &len));
			out[32 + rnd() % (len - 32)] ^= (u8)(1 + rnd() % 255);
			c = *h;
			c.crc = 0;
			crc = gaze_crc32c(~0u, &c, sizeof(c));
			crc = gaze_crc32c(crc, out + 32, le32_to_cpu(h->clen));
			h->crc = cpu_to_le32(~crc);
			err = gaze_cluster_decode(out, len, back, raw, &why);
			if (err && err != -EFSCORRUPTED)
				fails++;
		}
		tap_ok(!fails, "200 payloads with a flipped byte and a matching checksum: each decodes (to some bytes) or fails with -EFSCORRUPTED, within its buffers (%u other results)",
		       fails);
	}
	free(in);
	free(out);
	free(back);
}

/* ---------------------------------------------------------------- */
/* 2-4. Files                                                        */
/* ---------------------------------------------------------------- */

struct cfs {
	struct gaze_fs *fs;
	struct gaze_dev *d;
	u32 ino;
	u64 size;		/* model */
};

static struct gaze_fs *
format_compressed(struct gaze_dev *d, u8 algo, u8 level, u8 log)
{
	struct gaze_mkfs_params p;

	format_params(d, 2, GAZE_GC_GREEDY, &p);
	p.feature_incompat |= GAZE_FEATURE_INCOMPAT_COMPRESSION;
	p.compress_algo = algo;
	p.compress_level = level;
	p.compress_log_cluster = log;
	return format_with(d, &p);
}

/* the inode's saved-blocks counter, and the packed clusters counted */
static u64 sum_logical, sum_physical;	/* count_clusters adds to them */

static int
count_clusters(struct gaze_fs *fs, u32 ino, u64 *saved, u64 *counted,
	       u64 *packed)
{
	struct gaze_mbuf *imb;
	struct gaze_inode *in;
	u64 b, a, nblk, end;
	int err;

	mutex_lock(&fs->lock);
	err = gaze_inode_get(fs, ino, &imb);
	if (err) {
		mutex_unlock(&fs->lock);
		return err;
	}
	in = imb->data;
	*saved = le64_to_cpu(in->compr_blocks);
	*counted = *packed = 0;
	nblk = 1ull << in->compress_log_cluster;
	end = DIV_ROUND_UP(le64_to_cpu(in->size), BS);
	for (b = 0; in->compress_log_cluster && b < end; b += nblk) {
		err = gaze_bmap_lookup(fs, imb, b, &a);
		if (err)
			break;
		if (GAZE_ADDR_IS_CLUSTER(a)) {
			u64 len;	/* the length marker, or all */

			err = gaze_bmap_lookup(fs, imb, b + nblk - 1, &len);
			if (err)
				break;
			len = GAZE_ADDR_IS_CLEN(len) ?
			      GAZE_ADDR_CLEN_NR(len) : nblk;
			*counted += len - GAZE_ADDR_CLUSTER_NR(a);
			sum_logical += len;
			sum_physical += GAZE_ADDR_CLUSTER_NR(a);
			(*packed)++;
		}
	}
	gaze_mbuf_put(fs, imb);
	mutex_unlock(&fs->lock);
	return err;
}

/* the file reads back as the model */
static bool
same(struct cfs *c)
{
	struct gaze_attr a;
	s64 r;

	if (gaze_ns_getattr(c->fs, c->ino, &a) || a.size != c->size)
		return false;
	memset(got, 0xee, c->size);
	r = gaze_file_read(c->fs, c->ino, got, c->size, 0);
	return r == (s64)c->size && !memcmp(got, model, c->size);
}

static int
cwrite(struct cfs *c, u64 off, u64 len)
{
	s64 r = gaze_file_write(c->fs, c->ino, model + off, len, off);

	if (off + len > c->size)
		c->size = off + len;
	return r == (s64)len ? 0 : -EIO;
}

static bool
counters_agree(struct cfs *c, u64 *packed)
{
	u64 saved, counted;

	return !count_clusters(c->fs, c->ino, &saved, &counted, packed) &&
	       saved == counted;
}

static void
test_files(u8 algo, u8 level)
{
	struct cfs c = { 0 };
	struct gaze_attr a;
	u64 packed, lg, ph, blocks;
	u32 rino, sino;
	u64 small;
	bool ok;
	const char *an = gaze_fmt_compress_name(algo);

	c.d = mkdev(32);
	c.fs = format_compressed(c.d, algo, level, 4);
	TAP_MUST(gaze_ns_getattr(c.fs, GAZE_ROOT_INO, &a));
	tap_ok(a.flags & GAZE_IF_COMPRESS, "%s: the root takes the filesystem's compression",
	       an);
	TAP_MUST(create(c.fs, GAZE_ROOT_INO, "f", 0100644, &c.ino));
	TAP_MUST(create(c.fs, GAZE_ROOT_INO, "r", 0100644, &rino));

	/* 2. text shrinks; random data stays plain */
	gen_text(model, 512 * 1024);
	TAP_MUST(cwrite(&c, 0, 512 * 1024));
	TAP_MUST(gaze_ns_getattr(c.fs, c.ino, &a));
	tap_ok(same(&c) && a.blocks < 128 / 2 && counters_agree(&c, &packed) &&
	       packed == 8,
	       "%s: 512 KiB of text: %llu blocks of 128, 8 packed clusters, reads back, counters agree",
	       an, (unsigned long long)a.blocks);
	{
		u8 *r = malloc(256 * 1024);
		s64 n;

		gen_rand(r, 256 * 1024);
		n = gaze_file_write(c.fs, rino, r, 256 * 1024, 0);
		TAP_MUST(gaze_ns_getattr(c.fs, rino, &a));
		tap_ok(n == 256 * 1024 && a.blocks >= 64 &&
		       gaze_file_read(c.fs, rino, got, 256 * 1024, 0) ==
		       256 * 1024 && !memcmp(got, r, 256 * 1024),
		       "%s: random data is stored plain (%llu blocks for 64) and reads back",
		       an, (unsigned long long)a.blocks);
		free(r);
	}

	/* a file shorter than a cluster packs its blocks below the EOF */
	{
		u8 *t = malloc(40000);
		s64 n;

		gen_text(t, 40000);
		TAP_MUST(create(c.fs, GAZE_ROOT_INO, "small", 0100644, &sino));
		n = gaze_file_write(c.fs, sino, t, 40000, 0);
		TAP_MUST(gaze_ns_getattr(c.fs, sino, &a));
		ok = n == 40000 && a.blocks < 10 &&
		     gaze_file_read(c.fs, sino, got, 40000, 0) == 40000 &&
		     !memcmp(got, t, 40000);
		/* grow it: the tail cluster keeps its length, the gap is 0 */
		TAP_MUST(gaze_file_truncate(c.fs, sino, 50000));
		ok = ok && gaze_file_read(c.fs, sino, got, 50000, 0) == 50000 &&
		     !memcmp(got, t, 40000);
		memset(t, 0, 10000);
		ok = ok && !memcmp(got + 40000, t, 10000) &&
		     !count_clusters(c.fs, sino, &lg, &ph, &packed) &&
		     lg == ph && packed == 1;
		tap_ok(ok, "%s: a 40000-byte file packs its 10 blocks into %llu; grown by truncate it reads zeros after them",
		       an, (unsigned long long)a.blocks);
		/*
		 * the same size again, and a size past the core's, with the
		 * trim the module asks for (ftruncate to the size, or past
		 * what writeback has stored): the packed tail cluster keeps
		 * its length marker, and the counters their blocks
		 */
		memcpy(model2, got, 50000);
		TAP_MUST(gaze_file_truncate_trim(c.fs, sino, 50000, true));
		ok = !count_clusters(c.fs, sino, &lg, &ph, &packed) &&
		     lg == ph && packed == 1;
		TAP_MUST(gaze_file_truncate_trim(c.fs, sino, 60000, true));
		ok = ok && !count_clusters(c.fs, sino, &lg, &ph, &packed) &&
		     lg == ph && packed == 1 &&
		     gaze_file_read(c.fs, sino, got, 60000, 0) == 60000 &&
		     !memcmp(got, model2, 50000) &&
		     !memcmp(got + 50000, t, 10000);
		tap_ok(ok, "%s: truncate to the same size and past it (trim) keeps the packed tail cluster's length marker: %llu blocks saved, %llu counted",
		       an, (unsigned long long)lg, (unsigned long long)ph);
		free(t);
	}

	/* 3. edits inside packed clusters */
	gen_text(model + 100000, 100);
	TAP_MUST(cwrite(&c, 100000, 100));
	tap_ok(same(&c) && counters_agree(&c, &packed) && packed == 8,
	       "%s: a 100-byte overwrite inside a packed cluster", an);
	TAP_MUST(gaze_file_truncate(c.fs, c.ino, 300000));
	c.size = 300000;
	ok = same(&c) && counters_agree(&c, &packed);
	tap_ok(ok && packed == 4,
	       "%s: truncate into a cluster: that cluster is stored plain (%llu packed)",
	       an, (unsigned long long)packed);
	memset(model + 300000, 0, 400000 - 300000);
	gen_text(model + 400000, 200000);
	TAP_MUST(cwrite(&c, 400000, 200000));
	ok = same(&c) && counters_agree(&c, &packed);
	tap_ok(ok, "%s: growth past a truncated cluster: the gap reads as zeros (%llu packed)",
	       an, (unsigned long long)packed);
	TAP_MUST(gaze_file_fallocate(c.fs, c.ino, GAZE_FALLOC_PUNCH_HOLE |
				     GAZE_FALLOC_KEEP_SIZE, 70000, 5000));
	memset(model + 70000, 0, 5000);
	TAP_MUST(gaze_file_fallocate(c.fs, c.ino, GAZE_FALLOC_ZERO_RANGE,
				     130000, 140000));
	memset(model + 130000, 0, 140000);
	tap_ok(same(&c) && counters_agree(&c, &packed),
	       "%s: punch hole inside a cluster and zero range across clusters",
	       an);
	gen_rand(model + 450000, 60000);
	TAP_MUST(cwrite(&c, 450000, 60000));
	tap_ok(same(&c) && counters_agree(&c, &packed),
	       "%s: an overwrite that makes clusters incompressible", an);

	/* chattr -c: new writes plain, old clusters still read */
	TAP_MUST(gaze_ns_getattr(c.fs, c.ino, &a));
	a.flags &= ~GAZE_IF_COMPRESS;
	TAP_MUST(gaze_ns_setattr(c.fs, c.ino, &a, GAZE_SET_FLAGS));
	TAP_MUST(count_clusters(c.fs, c.ino, &lg, &ph, &packed));
	gen_text(model + 600000, 200000);
	TAP_MUST(cwrite(&c, 600000, 200000));
	TAP_MUST(count_clusters(c.fs, c.ino, &lg, &ph, &blocks));
	tap_ok(same(&c) && blocks <= packed,
	       "%s: chattr -c: new writes are plain (%llu packed clusters before, %llu after), the old ones read",
	       an, (unsigned long long)packed, (unsigned long long)blocks);
	TAP_MUST(gaze_ns_getattr(c.fs, c.ino, &a));
	a.flags |= GAZE_IF_COMPRESS;
	TAP_MUST(gaze_ns_setattr(c.fs, c.ino, &a, GAZE_SET_FLAGS));
	TAP_MUST(cwrite(&c, 600000, 200000));
	TAP_MUST(count_clusters(c.fs, c.ino, &lg, &ph, &blocks));
	tap_ok(same(&c) && blocks > packed,
	       "%s: chattr +c: rewritten clusters pack again (%llu packed)",
	       an, (unsigned long long)blocks);

	/* counters persist */
	lg = le64_to_cpu(c.fs->cp.compr_logical_blocks);
	ph = le64_to_cpu(c.fs->cp.compr_physical_blocks);
	c.fs = reopen(c.fs);
	ok = same(&c) && counters_agree(&c, &packed) &&
	     !count_clusters(c.fs, c.ino, &blocks, &blocks, &packed) &&
	     !count_clusters(c.fs, sino, &small, &small, &packed);
	tap_ok(ok && le64_to_cpu(c.fs->cp.compr_logical_blocks) == lg &&
	       le64_to_cpu(c.fs->cp.compr_physical_blocks) == ph &&
	       lg - ph == blocks + small && ph < lg,
	       "%s: after a remount: data, and the ratio %llu/%llu = %.2fx",
	       an, (unsigned long long)lg, (unsigned long long)ph,
	       ph ? (double)lg / (double)ph : 0.0);

	/* 4. GC moves the stream blocks */
	{
		u64 s1 = 0;
		u32 zone, v = 1;
		int r;

		u8 *fill = malloc(ZB * BS);

		/* close the zone holding the stream: fill the log past it */
		gen_rand(fill, ZB * BS);
		TAP_MUST(gaze_file_write(c.fs, rino, fill, ZB * BS, 0) !=
			 (s64)ZB * BS);
		free(fill);
		gaze_file_bmap(c.fs, c.ino, 1, &s1);
		zone = (u32)(s1 / ZB);
		r = gc_zone_locked(c.fs, zone);
		gaze_file_bmap(c.fs, c.ino, 1, &lg);
		ok = !r && lg != s1 && same(&c) && counters_agree(&c, &packed);
		tap_ok(ok && (zone_state(c.fs, zone, &v), v == 0),
		       "%s: GC moves the zone holding a stream (block %llu -> %llu) and the file reads back",
		       an, (unsigned long long)s1, (unsigned long long)lg);
	}
	/*
	 * fsync, crash, roll-forward (after a remount the first fsync is a
	 * checkpoint, the next rolls forward): an overwrite of packed
	 * clusters and a new packed tail
	 */
	c.fs = reopen(c.fs);
	TAP_MUST(cwrite(&c, 0, 4096));
	TAP_MUST(gaze_fs_fsync(c.fs));
	gen_text(model + 8192, 70000);
	TAP_MUST(cwrite(&c, 8192, 70000));
	gen_text(model + 800000, 100000);
	TAP_MUST(cwrite(&c, 800000, 100000));
	TAP_MUST(gaze_fs_fsync(c.fs));
	crash(c.fs);
	c.fs = NULL;
	TAP_MUST(gaze_fs_open(c.d, 0, &c.fs));
	sum_logical = sum_physical = 0;
	ok = c.fs && same(&c) && counters_agree(&c, &packed) &&
	     !count_clusters(c.fs, sino, &lg, &ph, &blocks);
	tap_ok(ok && c.fs->rf_recovered &&
	       le64_to_cpu(c.fs->cp.compr_logical_blocks) == sum_logical &&
	       le64_to_cpu(c.fs->cp.compr_physical_blocks) == sum_physical,
	       "%s: fsync, power cut, mount: roll-forward (%llu nodes) brings the packed clusters back, and the checkpoint's counters (%llu/%llu) with them",
	       an, c.fs ? (unsigned long long)c.fs->rf_recovered : 0ull,
	       (unsigned long long)sum_logical,
	       (unsigned long long)sum_physical);
	TAP_MUST(gaze_fs_close(c.fs));
	gaze_dev_close(c.d);
}

/* a directory's setting passes to what is made in it */
static void
test_inherit(void)
{
	struct gaze_dev *d = mkdev(16);
	struct gaze_fs *fs = format_compressed(d, GAZE_COMPRESS_NONE, 0, 2);
	struct gaze_mbuf *imb;
	struct gaze_attr a;
	u32 dir, sub, f, g;
	int err;

	TAP_MUST(gaze_ns_getattr(fs, GAZE_ROOT_INO, &a));
	tap_ok(!(a.flags & GAZE_IF_COMPRESS),
	       "feature on, no default algorithm: the root does not compress");
	TAP_MUST(create(fs, GAZE_ROOT_INO, "d", 040755, &dir));
	mutex_lock(&fs->lock);
	err = gaze_inode_get(fs, dir, &imb);
	if (!err) {
		err = gaze_cluster_set_prop(fs, imb, GAZE_COMPRESS_ZSTD, 7);
		gaze_mbuf_put(fs, imb);
	}
	mutex_unlock(&fs->lock);
	TAP_MUST(err);
	TAP_MUST(create(fs, dir, "sub", 040755, &sub));
	TAP_MUST(create(fs, sub, "f", 0100644, &f));
	TAP_MUST(create(fs, GAZE_ROOT_INO, "g", 0100644, &g));
	mutex_lock(&fs->lock);
	err = gaze_inode_get(fs, f, &imb);
	if (!err) {
		struct gaze_inode *in = imb->data;

		err = !(le32_to_cpu(in->flags) & GAZE_IF_COMPRESS) ||
		      in->compress_algo != GAZE_COMPRESS_ZSTD ||
		      in->compress_level != 7 || in->compress_log_cluster != 2;
		gaze_mbuf_put(fs, imb);
	}
	mutex_unlock(&fs->lock);
	TAP_MUST(gaze_ns_getattr(fs, g, &a));
	tap_ok(!err && !(a.flags & GAZE_IF_COMPRESS),
	       "zstd:7 on a directory passes through a subdirectory to a file; a sibling outside does not take it");

	/* the source (gazectl get): set here, or taken at creation */
	TAP_MUST(gaze_ns_set_compress(fs, g, GAZE_COMPRESS_NONE, 0));
	TAP_MUST(gaze_ns_set_compress(fs, sub, GAZE_COMPRESS_ZSTD, 7));
	TAP_MUST(gaze_ns_set_compress(fs, dir, GAZE_COMPRESS_LZ4, 0));
	fs = reopen(fs);
	err = 0;
	TAP_MUST(gaze_ns_getattr(fs, GAZE_ROOT_INO, &a));
	err |= !!(a.flags & GAZE_IF_COMPRESS_LOCAL);
	TAP_MUST(gaze_ns_getattr(fs, dir, &a));
	err |= !(a.flags & GAZE_IF_COMPRESS_LOCAL) << 1;
	TAP_MUST(gaze_ns_getattr(fs, sub, &a));
	err |= !(a.flags & GAZE_IF_COMPRESS_LOCAL) << 2;
	TAP_MUST(gaze_ns_getattr(fs, f, &a));
	err |= (!!(a.flags & GAZE_IF_COMPRESS_LOCAL) ||
		a.compress_algo != GAZE_COMPRESS_ZSTD) << 3;
	TAP_MUST(gaze_ns_getattr(fs, g, &a));
	err |= (!(a.flags & GAZE_IF_COMPRESS_LOCAL) ||
		(a.flags & GAZE_IF_COMPRESS)) << 4;
	TAP_MUST(create(fs, dir, "h", 0100644, &g));
	TAP_MUST(gaze_ns_getattr(fs, g, &a));
	err |= (!!(a.flags & GAZE_IF_COMPRESS_LOCAL) ||
		a.compress_algo != GAZE_COMPRESS_LZ4) << 5;
	tap_ok(!err,
	       "the source after a remount: set on a directory (even to its parent's value) or to none on a file is local; the root, a file made in a directory and one made after the directory changed are inherited, the older keeping its value (%#x)",
	       err);
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(d);

	d = mkdev(16);
	fs = format(d, 2, GAZE_GC_GREEDY);
	TAP_MUST(create(fs, GAZE_ROOT_INO, "f", 0100644, &f));
	TAP_MUST(gaze_ns_getattr(fs, f, &a));
	a.flags |= GAZE_IF_COMPRESS;
	err = gaze_ns_setattr(fs, f, &a, GAZE_SET_FLAGS);
	tap_ok(err == -EOPNOTSUPP,
	       "chattr +c without the compression feature: EOPNOTSUPP (%d)",
	       err);
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* 5. Encoding outside the lock                                      */
/* ---------------------------------------------------------------- */

#define PTHREADS	4
#define PBLKS		256

struct penc {
	struct gaze_cluster_enc *enc;
	u32 n;
	u32 next;		/* next plan entry to encode (atomic) */
};

static void *
penc_worker(void *arg)
{
	struct penc *p = arg;
	void *scratch = malloc(PBLKS * BS);
	u32 i;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->n)
		gaze_cluster_enc_run(&p->enc[i], scratch);
	free(scratch);
	return NULL;
}

/* writes the batch (fblks, bufs) to ino, encoded by PTHREADS threads for
 * algo:level; *used: encodings the core stored as they were */
static int
pwrite_enc(struct gaze_fs *fs, u32 ino, const u64 *fblks, void *const *bufs,
	   u32 nr, u64 size, u8 algo, u8 level, u32 *planned, u32 *used)
{
	struct gaze_cluster_enc enc[PBLKS];
	pthread_t t[PTHREADS];
	struct penc p = { enc, 0, 0 };
	u32 i;
	int err;

	p.n = gaze_cluster_plan(4, algo, level, fblks, bufs, nr, size, 0, enc,
				PBLKS);
	for (i = 0; i < PTHREADS; i++)
		pthread_create(&t[i], NULL, penc_worker, &p);
	for (i = 0; i < PTHREADS; i++)
		pthread_join(t[i], NULL);
	err = gaze_file_write_vec_enc(fs, ino, fblks, nr, bufs, size, enc,
				      p.n);
	*planned = p.n;
	for (*used = 0, i = 0; i < p.n; i++)
		*used += enc[i].used;
	gaze_cluster_enc_free(enc, p.n);
	return err;
}

static void
test_parallel(void)
{
	struct gaze_dev *d = mkdev(32);
	struct gaze_fs *fs = format_compressed(d, GAZE_COMPRESS_ZSTD, 3, 4);
	static u64 fblks[PBLKS];
	static void *bufs[PBLKS];
	u64 size = 200 * BS + 100, sp, ss, packed, x;
	u32 ino_p, ino_s, ino_m, nr = 0, planned, used, b;
	struct gaze_attr ap, as;
	bool ok;

	gen_text(model, (u32)size);
	gen_rand(model + 32 * BS, 16 * BS);	/* cluster 2: saves nothing */
	for (b = 0; b < DIV_ROUND_UP(size, BS); b++) {
		if (b == 4 * 16 + 5)		/* cluster 4 partly */
			continue;
		fblks[nr] = b;
		bufs[nr++] = model + (size_t)b * BS;
	}
	TAP_MUST(create(fs, GAZE_ROOT_INO, "p", 0100644, &ino_p));
	TAP_MUST(create(fs, GAZE_ROOT_INO, "s", 0100644, &ino_s));
	TAP_MUST(create(fs, GAZE_ROOT_INO, "m", 0100644, &ino_m));
	TAP_MUST(gaze_file_write_vec(fs, ino_s, fblks, nr, bufs, size));
	TAP_MUST(pwrite_enc(fs, ino_p, fblks, bufs, nr, size,
			    GAZE_COMPRESS_ZSTD, 3, &planned, &used));
	/* 13 clusters, 0-12; 4 is not whole in the batch; the tail, 12,
	 * holds 9 data blocks, all in it */
	ok = planned == 12 && used == planned;
	memset(model + (4 * 16 + 5) * BS, 0, BS);	/* not written: hole */
	TAP_MUST(gaze_ns_getattr(fs, ino_p, &ap));
	TAP_MUST(gaze_ns_getattr(fs, ino_s, &as));
	TAP_MUST(count_clusters(fs, ino_p, &sp, &x, &packed));
	TAP_MUST(count_clusters(fs, ino_s, &ss, &x, &x));
	memset(got, 0xee, size);
	ok = ok && gaze_file_read(fs, ino_p, got, size, 0) == (s64)size &&
	     !memcmp(got, model, size) && ap.blocks == as.blocks &&
	     sp == ss && sp > 0 && packed == 12;
	tap_ok(ok,
	       "4 threads encode %u of the batch's clusters outside the lock, the core stores all %u (one saves nothing: plain; 12 clusters packed, the partial one by the core); %llu blocks, %llu saved, as the core alone makes it",
	       planned, used, (unsigned long long)ap.blocks,
	       (unsigned long long)sp);
	TAP_MUST(pwrite_enc(fs, ino_m, fblks, bufs, nr, size,
			    GAZE_COMPRESS_ZSTD, 9, &planned, &used));
	TAP_MUST(gaze_ns_getattr(fs, ino_m, &ap));
	memset(got, 0xee, size);
	tap_ok(planned == 12 && used == 0 && ap.blocks == as.blocks &&
	       gaze_file_read(fs, ino_m, got, size, 0) == (s64)size &&
	       !memcmp(got, model, size),
	       "encodings for zstd:9 on a zstd:3 file are not used (%u of %u): the core encodes again, same file",
	       used, planned);
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* 6. Partly rewritten clusters merged outside the lock              */
/* ---------------------------------------------------------------- */

/* the device's read, wrapped: reads made with fs->lock held */
static struct {
	const struct gaze_dev_ops *real;
	struct gaze_dev_ops ops;
	struct gaze_fs *fs;
	u64 locked, unlocked;
} mr;

static int
mr_read(struct gaze_dev *d, u64 blk, u32 nr, void *buf)
{
	if (pthread_mutex_trylock(&mr.fs->lock.m)) {
		__atomic_add_fetch(&mr.locked, 1, __ATOMIC_RELAXED);
	} else {
		pthread_mutex_unlock(&mr.fs->lock.m);
		__atomic_add_fetch(&mr.unlocked, 1, __ATOMIC_RELAXED);
	}
	return mr.real->read(d, blk, nr, buf);
}

struct pmerge {
	struct gaze_fs *fs;
	u32 ino;
	struct gaze_cluster_enc *enc;
	u32 n;
	u32 next;		/* next plan entry (atomic) */
};

static void *
pmerge_worker(void *arg)
{
	struct pmerge *p = arg;
	void *scratch = malloc(2 * 16 * BS);
	u32 i;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->n)
		gaze_cluster_enc_merge(p->fs, p->ino, &p->enc[i], scratch);
	free(scratch);
	return NULL;
}

/*
 * plans the batch with GAZE_PLAN_PARTIAL for a file of size bytes (the
 * size the core stores clusters for) and merges it on PTHREADS
 */
static u32
pmerge_plan(struct gaze_fs *fs, u32 ino, const u64 *fblks, void *const *bufs,
	    u32 nr, u64 size, struct gaze_cluster_enc *enc)
{
	struct pmerge p = { fs, ino, enc, 0, 0 };
	pthread_t t[PTHREADS];
	u32 i;

	p.n = gaze_cluster_plan(4, GAZE_COMPRESS_ZSTD, 3, fblks, bufs, nr,
				size, GAZE_PLAN_PARTIAL, enc, PBLKS);
	for (i = 0; i < PTHREADS; i++)
		pthread_create(&t[i], NULL, pmerge_worker, &p);
	for (i = 0; i < PTHREADS; i++)
		pthread_join(t[i], NULL);
	return p.n;
}

static u32
enc_used(const struct gaze_cluster_enc *enc, u32 n)
{
	u32 i, used = 0;

	for (i = 0; i < n; i++)
		used += enc[i].used;
	return used;
}

/* a batch of the blocks in list[] (new text in the model) */
static u32
merge_batch(const u32 *list, u32 nl, u64 *fblks, void **bufs)
{
	u32 i;

	for (i = 0; i < nl; i++) {
		gen_text(model + (size_t)list[i] * BS, BS);
		fblks[i] = list[i];
		bufs[i] = model + (size_t)list[i] * BS;
	}
	return nl;
}

/* the size writeback gives with a batch: its end, or the file's */
static u64
wb_size(const struct cfs *c, const u64 *fblks, u32 nr)
{
	return min(c->size, (fblks[nr - 1] + 1) * BS);
}

static void
test_merge(void)
{
	/* clusters 0, 1 and 5 in part, 3 whole (blocks 48-63) */
	static const u32 l1[] = { 3, 17, 18, 48, 49, 50, 51, 52, 53, 54, 55,
				  56, 57, 58, 59, 60, 61, 62, 63, 85, 90 };
	static const u32 l2[] = { 5 }, l3[] = { 33, 40 };
	struct gaze_cluster_enc enc[PBLKS];
	static u64 fblks[PBLKS];
	static void *bufs[PBLKS];
	struct cfs c = { 0 };
	u32 n, nr, used, i;
	u64 packed = 0, seq;
	bool ok;

	c.d = mkdev(32);
	c.fs = format_compressed(c.d, GAZE_COMPRESS_ZSTD, 3, 4);
	mr.real = c.d->ops;
	mr.ops = *c.d->ops;
	mr.ops.read = mr_read;
	mr.ops.readv = NULL;
	mr.fs = c.fs;
	c.d->ops = &mr.ops;
	TAP_MUST(create(c.fs, GAZE_ROOT_INO, "m", 0100644, &c.ino));
	gen_text(model, 128 * BS);
	TAP_MUST(cwrite(&c, 0, 128 * BS));
	TAP_MUST(gaze_fs_sync(c.fs));

	nr = merge_batch(l1, ARRAY_SIZE(l1), fblks, bufs);
	mr.locked = mr.unlocked = 0;
	n = pmerge_plan(c.fs, c.ino, fblks, bufs, nr, c.size, enc);
	ok = n == 4 && gaze_cluster_enc_partial(&enc[0]) && enc[0].nb == 1 && enc[1].nb == 2 &&
	     !gaze_cluster_enc_partial(&enc[2]) && enc[2].first == 48 && enc[3].nb == 2;
	for (i = 0; i < n; i++)
		ok = ok && !enc[i].err && (!gaze_cluster_enc_partial(&enc[i]) || enc[i].base);
	tap_ok(ok && mr.unlocked > 0 && !mr.locked,
	       "plan with GAZE_PLAN_PARTIAL: %u clusters (3 in part, 1 whole); the merges read %llu times without fs->lock, %llu with it",
	       n, (unsigned long long)mr.unlocked,
	       (unsigned long long)mr.locked);
	mr.locked = mr.unlocked = 0;
	TAP_MUST(gaze_file_write_vec_enc(c.fs, c.ino, fblks, nr, bufs,
					 wb_size(&c, fblks, nr), enc, n));
	used = enc_used(enc, n);
	gaze_cluster_enc_free(enc, n);
	tap_ok(used == 4 && !mr.locked && same(&c) &&
	       counters_agree(&c, &packed) && packed == 8,
	       "the core stores all %u merged and whole encodings with no device read under its lock (%llu); the file reads back, 8 clusters packed, counters agree",
	       used, (unsigned long long)mr.locked);

	/* the cluster changes between the merge and the store */
	nr = merge_batch(l2, ARRAY_SIZE(l2), fblks, bufs);
	n = pmerge_plan(c.fs, c.ino, fblks, bufs, nr, c.size, enc);
	gen_text(model + 9 * BS, BS);
	TAP_MUST(cwrite(&c, 9 * BS, BS));
	TAP_MUST(gaze_file_write_vec_enc(c.fs, c.ino, fblks, nr, bufs,
					 wb_size(&c, fblks, nr), enc, n));
	used = enc_used(enc, n);
	gaze_cluster_enc_free(enc, n);
	tap_ok(n == 1 && used == 0 && same(&c) && counters_agree(&c, &packed),
	       "a block of the cluster rewritten after the merge: the merge is not used (%u of %u), the core merges again; both writes read back",
	       used, n);

	/* a zone reset between the merge and the store */
	nr = merge_batch(l3, ARRAY_SIZE(l3), fblks, bufs);
	n = pmerge_plan(c.fs, c.ino, fblks, bufs, nr, c.size, enc);
	mutex_lock(&c.fs->lock);
	seq = c.fs->reset_seq;
	gaze_fs_zone_reset_note(c.fs);
	mutex_unlock(&c.fs->lock);
	mr.locked = 0;
	TAP_MUST(gaze_file_write_vec_enc(c.fs, c.ino, fblks, nr, bufs,
					 wb_size(&c, fblks, nr), enc, n));
	used = enc_used(enc, n);
	gaze_cluster_enc_free(enc, n);
	tap_ok(n == 1 && used == 0 && mr.locked > 0 && same(&c) &&
	       enc[0].base_seq == seq,
	       "a zone reset after the merge: it is not used, the core reads the cluster under its lock (%llu reads) and the file reads back",
	       (unsigned long long)mr.locked);

	/* GC moves the stream between the merge and the store */
	{
		u8 *fill = malloc(ZB * BS);
		u64 s1 = 0, s2 = 0;
		u32 rino;

		TAP_MUST(create(c.fs, GAZE_ROOT_INO, "r", 0100644, &rino));
		gen_rand(fill, ZB * BS);
		TAP_MUST(gaze_file_write(c.fs, rino, fill, ZB * BS, 0) !=
			 (s64)ZB * BS);
		free(fill);
		nr = merge_batch(l2, ARRAY_SIZE(l2), fblks, bufs);
		n = pmerge_plan(c.fs, c.ino, fblks, bufs, nr, c.size, enc);
		gaze_file_bmap(c.fs, c.ino, 1, &s1);
		TAP_MUST(gc_zone_locked(c.fs, (u32)(s1 / ZB)));
		gaze_file_bmap(c.fs, c.ino, 1, &s2);
		TAP_MUST(gaze_file_write_vec_enc(c.fs, c.ino, fblks, nr, bufs,
						 wb_size(&c, fblks, nr), enc,
						 n));
		used = enc_used(enc, n);
		gaze_cluster_enc_free(enc, n);
		tap_ok(n == 1 && used == 0 && s1 != s2 && same(&c) &&
		       counters_agree(&c, &packed),
		       "GC moves the cluster's stream after the merge (block %llu -> %llu): the merge is not used, the file reads back",
		       (unsigned long long)s1, (unsigned long long)s2);
	}
	c.d->ops = mr.real;
	TAP_MUST(gaze_fs_close(c.fs));
	gaze_dev_close(c.d);
}

/* collapse and insert range on a file with packed clusters */
static void
test_shift(void)
{
	struct cfs c = { 0 };
	u64 packed = 0;
	bool ok;

	c.d = mkdev(32);
	c.fs = format_compressed(c.d, GAZE_COMPRESS_LZ4, 0, 4);
	TAP_MUST(create(c.fs, GAZE_ROOT_INO, "s", 0100644, &c.ino));
	gen_text(model, 512 * 1024 + 300);
	TAP_MUST(cwrite(&c, 0, 512 * 1024 + 300));
	ok = !gaze_file_fallocate(c.fs, c.ino, GAZE_FALLOC_COLLAPSE_RANGE,
				  128 * 1024, 68 * 1024);
	memmove(model + 128 * 1024, model + 196 * 1024, c.size - 196 * 1024);
	c.size -= 68 * 1024;
	ok = ok && !gaze_file_fallocate(c.fs, c.ino, GAZE_FALLOC_INSERT_RANGE,
					40 * 1024, 12 * 1024);
	memmove(model + 52 * 1024, model + 40 * 1024, c.size - 40 * 1024);
	memset(model + 40 * 1024, 0, 12 * 1024);
	c.size += 12 * 1024;
	ok = ok && same(&c) && counters_agree(&c, &packed) && packed > 4;
	tap_ok(ok,
	       "collapse 68 KiB and insert 12 KiB (not cluster-aligned) in a compressed file: reads back, %llu clusters packed, counters agree",
	       (unsigned long long)packed);
	TAP_MUST(gaze_fs_close(c.fs));
	gaze_dev_close(c.d);
}

/*
 * gaze_file_cluster_room: what a rewrite of a cluster may add, the
 * blocks the module's write reservation holds for a cluster may go
 * without (kernel/linux/resv.c)
 */
static void
test_room(void)
{
	u64 addrs[GAZE_CLUSTER_MAX_BLOCKS];
	u32 ri, r0, r1, r2, r3, rp, n = 0, nvalid = 0, ino;
	struct gaze_dev *d;
	struct gaze_fs *fs;
	struct cfs c = { 0 };

	c.d = mkdev(32);
	c.fs = format_compressed(c.d, GAZE_COMPRESS_LZ4, 0, 4);
	TAP_MUST(create(c.fs, GAZE_ROOT_INO, "r", 0100644, &c.ino));
	TAP_MUST(gaze_file_cluster_room(c.fs, c.ino, 0, &ri));
	/* a packed cluster, a plain full one, half of one at the EOF */
	gen_text(model, 64 * 1024);
	gen_rand(model + 64 * 1024, 96 * 1024);
	TAP_MUST(cwrite(&c, 0, 160 * 1024));
	TAP_MUST(gaze_file_map_cluster(c.fs, c.ino, 3, addrs, &n, &nvalid));
	TAP_MUST(gaze_file_cluster_room(c.fs, c.ino, 5, &r0));
	TAP_MUST(gaze_file_cluster_room(c.fs, c.ino, 16, &r1));
	TAP_MUST(gaze_file_cluster_room(c.fs, c.ino, 39, &r2));
	TAP_MUST(gaze_file_cluster_room(c.fs, c.ino, 100, &r3));
	tap_ok(ri == 16 && n && n < 16 && r0 == 16 - n && r1 == 0 &&
	       r2 == 8 && r3 == 16,
	       "cluster room: empty file %u; packed in %u blocks %u; plain full %u; plain 8 of 16 at the EOF %u; past the EOF %u",
	       ri, n, r0, r1, r2, r3);
	TAP_MUST(gaze_fs_close(c.fs));
	gaze_dev_close(c.d);

	d = mkdev(32);
	fs = format(d, 2, GAZE_GC_GREEDY);
	TAP_MUST(create(fs, GAZE_ROOT_INO, "p", 0100644, &ino));
	gen_text(model, 64 * 1024);
	TAP_MUST(gaze_file_write(fs, ino, model, 64 * 1024, 0) == 64 * 1024 ?
		 0 : -EIO);
	TAP_MUST(gaze_file_cluster_room(fs, ino, 0, &rp));
	tap_ok(rp == 0 && gaze_file_cluster_room(fs, 999, 0, &ri) == -ENOENT,
	       "cluster room: 0 in a file without clusters (%u); a missing inode is -ENOENT",
	       rp);
	TAP_MUST(gaze_fs_close(fs));
	gaze_dev_close(d);
}

int
main(void)
{
	test_codec();
	test_files(GAZE_COMPRESS_LZ4, 0);
	test_files(GAZE_COMPRESS_ZSTD, 3);
	test_files(GAZE_COMPRESS_GZIP, 6);
	test_inherit();
	test_parallel();
	test_merge();
	test_shift();
	test_room();
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}
