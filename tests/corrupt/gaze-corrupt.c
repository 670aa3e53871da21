// SPDX-License-Identifier: GPL-2.0
/*
 * gaze-corrupt.c - inject one named corruption into a GAZE image.
 *
 *   gaze-corrupt IMAGE KIND [SEED]
 *   gaze-corrupt --list
 *
 * Why: fsck.gaze must find and repair every kind of damage it claims to,
 * and the only honest way to show that is to damage a known-good image
 * in one precise way and check what fsck says and leaves behind (see
 * tests/corrupt/matrix.sh).  The injector finds its target through the
 * shared core, opened read-only exactly as gazectl does (the image is an
 * emulated-zone file, lib/zdev/file.c), then edits raw blocks with
 * pread/pwrite.  Unless the kind is a checksum kind, the edited block's
 * crc is recomputed (gaze_fmt_csum_set) so the damage gets past the
 * header check and reaches the deep checks; a changed checkpoint head
 * also gets its trailer's head_crc updated.
 *
 * Targets are chosen among the candidates that fit a kind (e.g. "regular
 * file with a direct node"), sorted by path, with SEED (default 1)
 * picking one, so the same image and seed always give the same damage.
 * Every kind prints what it did ("KIND: ...") and the path it hit
 * ("target: PATH") on stdout.  Exit status: 0 done, 1 error (including
 * "the image has no candidate for this kind"), 2 usage.
 *
 * Not installed: a test tool (check_PROGRAMS).
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gaze_core.h"
#include "gaze_zdev.h"
#include "gaze_util.h"

#define BS	GAZE_BLOCK_SIZE
#define DT_DIR_	4
#define DT_REG_	8
#define DT_CHR_	2

struct ent {
	char	*path;		/* "/a/b" ("/" for the root) */
	const char *name;	/* last component, in path */
	u32	ino, parent;	/* parent: directory holding this name */
	u8	dtype;
	struct gaze_inode in;	/* raw inode as on disk */
	u64	iaddr;		/* its block */
};

struct cx {
	const char	*img;
	int		fd;		/* O_RDWR: where damage is written */
	struct gaze_dev	*dev;
	struct gaze_fs	*fs;		/* read-only: where targets are found */
	const struct gaze_super *sb;
	u64		rng;
	struct ent	*e;
	u32		ne, cap;
	const char	*kind;
	u8		*pack_buf;	/* pack_read's buffer, freed at exit */
};

/* ---------------------------------------------------------------- */
/* Helpers                                                           */
/* ---------------------------------------------------------------- */

static void __attribute__((noreturn, format(printf, 2, 3)))
die(struct cx *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gaze-corrupt: %s: ", c && c->kind ? c->kind : "error");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void __attribute__((format(printf, 2, 3)))
say(struct cx *c, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", c->kind);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static u64
rnd(struct cx *c)			/* splitmix64 */
{
	u64 z = (c->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void
blk_read(struct cx *c, u64 addr, void *buf)
{
	if (gaze_pread_full(c->fd, buf, BS, (off_t)(addr * BS)) != BS)
		die(c, "cannot read block %llu", (unsigned long long)addr);
}

/* fix: recompute the header crc first */
static void
blk_write(struct cx *c, u64 addr, void *buf, bool fix)
{
	if (fix)
		gaze_fmt_csum_set(buf);
	if (gaze_pwrite_all(c->fd, buf, BS, (off_t)(addr * BS)))
		die(c, "cannot write block %llu", (unsigned long long)addr);
}

static u32 zb(struct cx *c) { return le32_to_cpu(c->sb->zone_blocks); }

/* ---------------------------------------------------------------- */
/* Finding things through the core                                   */
/* ---------------------------------------------------------------- */

static u64
imap_addr(struct cx *c, u32 nid)
{
	u64 a = 0;
	int ret;

	mutex_lock(&c->fs->lock);
	ret = gaze_imap_get(c->fs, nid, &a);
	mutex_unlock(&c->fs->lock);
	if (ret)
		die(c, "imap lookup of %u: %d", nid, ret);
	return a;
}

/* table block address (0 = absent) and, if iaddr, its index block's */
static u64
table_addr(struct cx *c, u32 t, u32 blk, u64 *iaddr)
{
	struct gaze_mbuf *mb, *ib;
	u64 a;
	int ret;

	mutex_lock(&c->fs->lock);
	ret = gaze_table_get(c->fs, t, blk, &mb);
	if (ret) {
		mutex_unlock(&c->fs->lock);
		die(c, "table %u block %u: %d", t, blk, ret);
	}
	a = mb->blkaddr;
	gaze_mbuf_put(c->fs, mb);
	if (iaddr) {
		ib = gaze_mbuf_lookup(c->fs, GAZE_MB_TINDEX, t,
				      blk / GAZE_ADDRS_PER_BLOCK);
		*iaddr = ib ? ib->blkaddr : 0;
		if (ib)
			gaze_mbuf_put(c->fs, ib);
	}
	mutex_unlock(&c->fs->lock);
	return a;
}

static u64
bmap(struct cx *c, u32 ino, u64 fblk)
{
	u64 a = 0;

	if (gaze_file_bmap(c->fs, ino, fblk, &a))
		return 0;
	return a;
}

static u32
free_nid(struct cx *c)
{
	u32 n, max = le32_to_cpu(c->sb->max_nid);

	for (n = GAZE_ROOT_INO + 1 + (u32)(rnd(c) % 64); n < max; n++)
		if (!imap_addr(c, n))
			return n;
	die(c, "no free nid");
}

struct rdctx {
	struct cx	*c;
	const char	*dir;
	u32		dino;
	u32		first;		/* first entry added by this readdir */
};

static void ent_add(struct cx *c, const char *path, u32 ino, u32 parent,
		    u8 dtype);

static int
walk_fill(void *ctx, const char *name, u32 len, u32 ino, u8 dtype, u64 ck)
{
	struct rdctx *r = ctx;
	char *p;

	(void)ck;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (asprintf(&p, "%s/%.*s", strcmp(r->dir, "/") ? r->dir : "",
		     (int)len, name) < 0)
		die(r->c, "out of memory");
	ent_add(r->c, p, ino, r->dino, dtype);
	free(p);
	return 0;
}

static void
ent_add(struct cx *c, const char *path, u32 ino, u32 parent, u8 dtype)
{
	struct ent *e;

	if (c->ne == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->e = realloc(c->e, c->cap * sizeof(*c->e));
		if (!c->e)
			die(c, "out of memory");
	}
	e = &c->e[c->ne++];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path)
		die(c, "out of memory");
	e->name = strrchr(e->path, '/') + 1;
	e->ino = ino;
	e->parent = parent;
	e->dtype = dtype;
}

/* after readdir (which holds fs->lock): the inode's block and contents */
static void
ent_load(struct cx *c, struct ent *e)
{
	e->iaddr = imap_addr(c, e->ino);
	if (e->iaddr)
		blk_read(c, e->iaddr, &e->in);
}

static int
ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->path,
		      ((const struct ent *)b)->path);
}

/* every name in the tree, each directory walked once */
static void
walk(struct cx *c)
{
	u32 i;

	ent_add(c, "/", GAZE_ROOT_INO, GAZE_ROOT_INO, DT_DIR_);
	for (i = 0; i < c->ne; i++) {
		ent_load(c, &c->e[i]);
		struct rdctx r = { c, NULL, 0, 0 };
		u64 pos = 0;
		u32 j;
		bool seen = false;

		if (c->e[i].dtype != DT_DIR_)
			continue;
		for (j = 0; j < i; j++)	/* a directory hard link: no */
			if (c->e[j].ino == c->e[i].ino && c->e[j].dtype == DT_DIR_)
				seen = true;
		if (seen)
			continue;
		r.dir = strdup(c->e[i].path);
		r.dino = c->e[i].ino;
		if (gaze_ns_readdir(c->fs, r.dino, &pos, walk_fill, &r))
			die(c, "readdir %s failed", r.dir);
		free((char *)r.dir);
	}
	qsort(c->e, c->ne, sizeof(*c->e), ent_cmp);
}

static u32 nlinks_of(struct cx *c, u32 ino)
{
	u32 i, n = 0;

	for (i = 0; i < c->ne; i++)
		n += c->e[i].ino == ino && strcmp(c->e[i].path, "/");
	return n;
}

typedef bool (*pred_fn)(struct cx *c, const struct ent *e);

/* one of the entries matching pred, chosen by the seed */
static struct ent *
pick(struct cx *c, pred_fn pred, const char *what)
{
	u32 i, n = 0, k;

	for (i = 0; i < c->ne; i++)
		n += pred(c, &c->e[i]);
	if (!n)
		die(c, "the image has no %s", what);
	k = (u32)(rnd(c) % n);
	for (i = 0; i < c->ne; i++)
		if (pred(c, &c->e[i]) && !k--)
			break;
	printf("target: %s (ino %u)\n", c->e[i].path, c->e[i].ino);
	return &c->e[i];
}

static u32 e_mode(const struct ent *e) { return le16_to_cpu(e->in.mode); }
static u32 e_flags(const struct ent *e) { return le32_to_cpu(e->in.flags); }

static bool
p_reg(struct cx *c, const struct ent *e)
{
	(void)c;
	return GAZE_S_ISREG(e_mode(e));
}

static bool
p_reg1(struct cx *c, const struct ent *e)	/* one name */
{
	return p_reg(c, e) && le32_to_cpu(e->in.nlink) == 1;
}

static bool
p_reg_blocks(struct cx *c, const struct ent *e)	/* addr[0] real */
{
	return p_reg1(c, e) && !(e_flags(e) & GAZE_IF_INLINE_DATA) &&
	       GAZE_ADDR_IS_REAL(le64_to_cpu(e->in.i.addr[0]));
}

static bool
p_reg_packed(struct cx *c, const struct ent *e)	/* addr[0] a packed cluster */
{
	return p_reg1(c, e) && !(e_flags(e) & GAZE_IF_INLINE_DATA) &&
	       GAZE_ADDR_IS_CLUSTER(le64_to_cpu(e->in.i.addr[0]));
}

static bool
p_reg_dnode(struct cx *c, const struct ent *e)
{
	return p_reg_blocks(c, e) && e->in.nids[0] &&
	       GAZE_ADDR_IS_REAL(bmap(c, e->ino, GAZE_ADDRS_PER_INODE));
}

static bool
p_reg_ind(struct cx *c, const struct ent *e)	/* has an indirect node */
{
	return p_reg1(c, e) && e->in.nids[2] &&
	       !(e_flags(e) & GAZE_IF_INLINE_DATA);
}

static bool
p_reg_inline(struct cx *c, const struct ent *e)
{
	return p_reg1(c, e) && (e_flags(e) & GAZE_IF_INLINE_DATA) &&
	       le64_to_cpu(e->in.size) > 0;
}

static bool
p_hardlink(struct cx *c, const struct ent *e)
{
	return p_reg(c, e) && le32_to_cpu(e->in.nlink) >= 2 &&
	       nlinks_of(c, e->ino) == le32_to_cpu(e->in.nlink);
}

static bool
p_dir(struct cx *c, const struct ent *e)
{
	(void)c;
	return GAZE_S_ISDIR(e_mode(e)) && e->ino != GAZE_ROOT_INO &&
	       strcmp(e->path, "/lost+found");
}

static bool
p_dir_hashed(struct cx *c, const struct ent *e)
{
	return p_dir(c, e) && (e_flags(e) & GAZE_IF_DIR_HASHED) &&
	       le32_to_cpu(e->in.dir_nbuckets) >= 2;
}

static bool
p_dir_sub(struct cx *c, const struct ent *e)	/* dir under a dir != root */
{
	return p_dir(c, e) && e->parent != GAZE_ROOT_INO;
}

static bool
p_xattr_inline(struct cx *c, const struct ent *e)
{
	return p_reg(c, e) && le16_to_cpu(e->in.inline_xattr_used) >= 8;
}

static bool
p_xattr_node(struct cx *c, const struct ent *e)
{
	(void)c;
	return e->in.xattr_nid && e->ino != GAZE_ROOT_INO;
}

/* the inline-entry parent of e: a file with one name in an inline dir */
static struct ent *find_ent(struct cx *c, u32 ino);

static bool
p_reg1_inline_parent(struct cx *c, const struct ent *e)
{
	struct ent *d;

	if (!p_reg1(c, e) || e->parent == GAZE_ROOT_INO)
		return false;
	d = find_ent(c, e->parent);
	return d && (e_flags(d) & GAZE_IF_INLINE_DENTRY);
}

static struct ent *
find_ent(struct cx *c, u32 ino)
{
	u32 i;

	for (i = 0; i < c->ne; i++)
		if (c->e[i].ino == ino)
			return &c->e[i];
	return NULL;
}

/* writes the inode back (crc fixed unless !fix) */
static void
inode_put(struct cx *c, struct ent *e, bool fix)
{
	blk_write(c, e->iaddr, &e->in, fix);
}

/* ---------------------------------------------------------------- */
/* Directory records                                                 */
/* ---------------------------------------------------------------- */

struct dloc {			/* where one directory record lives */
	u8	blk[BS];	/* inode or bucket block */
	u64	addr;
	u8	*region;	/* records */
	u32	used;		/* bytes in region */
	u32	space;		/* region capacity */
	u32	off;		/* record offset */
	bool	inline_;
};

static struct gaze_dirent *
rec_at(struct dloc *l, u32 off)
{
	return (struct gaze_dirent *)(l->region + off);
}

static void
dloc_set_used(struct dloc *l, u32 used)
{
	l->used = used;
	if (l->inline_)
		((struct gaze_inode *)l->blk)->inline_used = cpu_to_le16(used);
	else
		((struct gaze_dir_bucket *)l->blk)->used = cpu_to_le16(used);
}

/* opens the region of dir d holding name (or, name NULL, the seed's pick
 * among the region's records); dies when absent */
static void
dloc_find(struct cx *c, struct ent *d, const char *name, struct dloc *l)
{
	u32 nb = 1, b, off;

	memset(l, 0, sizeof(*l));
	if (e_flags(d) & GAZE_IF_DIR_HASHED)
		nb = le32_to_cpu(d->in.dir_nbuckets);
	for (b = 0; b < nb; b++) {
		if (e_flags(d) & GAZE_IF_DIR_HASHED) {
			struct gaze_dir_bucket *bk = (void *)l->blk;

			l->addr = bmap(c, d->ino, GAZE_DIR_BUCKET_BASE + b);
			if (!GAZE_ADDR_IS_REAL(l->addr))
				continue;
			blk_read(c, l->addr, l->blk);
			l->region = bk->entries;
			l->used = le16_to_cpu(bk->used);
			l->space = GAZE_DIR_BUCKET_SPACE;
		} else {
			l->addr = d->iaddr;
			memcpy(l->blk, &d->in, BS);
			l->region = ((struct gaze_inode *)l->blk)->i.data;
			l->used = le16_to_cpu(d->in.inline_used);
			l->space = GAZE_INLINE_DENTRY_SPACE;
			l->inline_ = true;
		}
		if (!name && l->used) {
			u32 n = 0, k;

			for (off = 0; off < l->used;
			     off += le16_to_cpu(rec_at(l, off)->rec_len))
				n++;
			k = (u32)(rnd(c) % n);
			for (off = 0; k--;
			     off += le16_to_cpu(rec_at(l, off)->rec_len))
				;
			l->off = off;
			return;
		}
		for (off = 0; name && off < l->used;
		     off += le16_to_cpu(rec_at(l, off)->rec_len)) {
			struct gaze_dirent *r = rec_at(l, off);

			if (r->name_len == strlen(name) &&
			    !memcmp(r + 1, name, r->name_len)) {
				l->off = off;
				return;
			}
		}
	}
	die(c, "no record %s in directory %u", name ? name : "(any)", d->ino);
}

static void
dloc_write(struct cx *c, struct dloc *l, bool fix)
{
	blk_write(c, l->addr, l->blk, fix);
}

/* the record of e's own name in its parent */
static struct ent *
ent_record(struct cx *c, struct ent *e, struct dloc *l)
{
	struct ent *d = find_ent(c, e->parent);

	if (!d)
		die(c, "no parent for %s", e->path);
	dloc_find(c, d, e->name, l);
	return d;
}

/* ---------------------------------------------------------------- */
/* Checkpoint pack                                                   */
/* ---------------------------------------------------------------- */

struct pack {
	u64	addr;			/* head block */
	u32	nblocks;
	u8	*b;			/* nblocks blocks */
};

static void
pack_read(struct cx *c, struct pack *p)
{
	u32 k;

	p->addr = le64_to_cpu(c->fs->cp.hdr.blkaddr);
	p->nblocks = le32_to_cpu(c->fs->cp.pack_blocks);
	p->b = calloc(p->nblocks + 1, BS);
	if (!p->b)
		die(c, "out of memory");
	free(c->pack_buf);
	c->pack_buf = p->b;
	for (k = 0; k < p->nblocks; k++)
		blk_read(c, p->addr + k, p->b + (size_t)k * BS);
}

static struct gaze_cp_head *pk_head(struct pack *p) { return (void *)p->b; }
static struct gaze_cp_trailer *
pk_trail(struct pack *p)
{
	return (void *)(p->b + (size_t)(p->nblocks - 1) * BS);
}

/* head crc, trailer's copy of it, trailer crc; writes head + trailer */
static void
pack_write_head(struct cx *c, struct pack *p)
{
	gaze_fmt_csum_set(pk_head(p));
	pk_trail(p)->head_crc = pk_head(p)->hdr.crc;
	blk_write(c, p->addr, pk_head(p), false);
	blk_write(c, p->addr + p->nblocks - 1, pk_trail(p), true);
}

/* payload slot s (the pack grows by one payload block if needed) */
static __le64 *
pack_slot(struct cx *c, struct pack *p, u32 s)
{
	u32 k = 1 + s / GAZE_ADDRS_PER_BLOCK;
	struct gaze_cp_payload *pl;

	if (k + 1 > p->nblocks) {		/* grow: trailer moves down */
		u8 *tr = p->b + (size_t)(p->nblocks - 1) * BS;
		struct gaze_cp_trailer *t;

		if (k + 1 != p->nblocks + 1)
			die(c, "slot %u is too far past the payload", s);
		memcpy(tr + BS, tr, BS);
		pl = (void *)tr;
		memset(pl, 0, BS);
		gaze_fmt_hdr_init(pl, GAZE_MAGIC_CP_PAYLOAD, c->fs->uuid,
				  p->addr + k, le64_to_cpu(pk_head(p)->hdr.seq),
				  0, 0, k);
		p->nblocks++;
		t = pk_trail(p);
		t->hdr.blkaddr = cpu_to_le64(p->addr + p->nblocks - 1);
		t->hdr.index = cpu_to_le32(p->nblocks - 1);
		t->pack_blocks = cpu_to_le32(p->nblocks);
		pk_head(p)->pack_blocks = cpu_to_le32(p->nblocks);
	}
	pl = (void *)(p->b + (size_t)k * BS);
	return &pl->slot[s % GAZE_ADDRS_PER_BLOCK];
}

static void
pack_write_all(struct cx *c, struct pack *p)
{
	u32 k;

	for (k = 1; k + 1 < p->nblocks; k++)
		blk_write(c, p->addr + k, p->b + (size_t)k * BS, true);
	pack_write_head(c, p);
}

/* ---------------------------------------------------------------- */
/* The kinds                                                          */
/* ---------------------------------------------------------------- */

/* superblock */
static void
k_sb_primary_crc(struct cx *c)
{
	u8 b[BS];

	blk_read(c, 0, b);
	b[offsetof(struct gaze_super, reserved) + rnd(c) % 64] ^= 0x5a;
	blk_write(c, 0, b, false);
	say(c, "flipped a reserved byte of the primary superblock, crc left stale");
}

static void
k_sb_secondary_crc(struct cx *c)
{
	u8 b[BS];
	u64 a = (u64)zb(c) * (le32_to_cpu(c->sb->cp_zone_start) + 1);

	blk_read(c, a, b);
	b[offsetof(struct gaze_super, label) + rnd(c) % 8] ^= 0x21;
	blk_write(c, a, b, false);
	say(c, "changed the secondary superblock's label at block %llu, crc left stale",
	    (unsigned long long)a);
}

static void
k_sb_primary_geometry(struct cx *c)
{
	struct gaze_super s;

	blk_read(c, 0, &s);
	s.main_zone_count = cpu_to_le32(le32_to_cpu(s.main_zone_count) + 1 +
					(u32)(rnd(c) % 4));
	blk_write(c, 0, &s, true);
	say(c, "primary superblock main_zone_count %u -> %u (crc fixed), secondary intact",
	    le32_to_cpu(c->sb->main_zone_count),
	    le32_to_cpu(s.main_zone_count));
}

static void
k_sb_copies_differ(struct cx *c)
{
	struct gaze_super s;
	u64 a = (u64)zb(c) * (le32_to_cpu(c->sb->cp_zone_start) + 1);

	blk_read(c, a, &s);
	s.gc_queue_depth = cpu_to_le32(le32_to_cpu(s.gc_queue_depth) + 1);
	blk_write(c, a, &s, true);
	say(c, "secondary superblock gc_queue_depth %u -> %u (crc fixed): both copies valid but different",
	    le32_to_cpu(c->sb->gc_queue_depth), le32_to_cpu(s.gc_queue_depth));
}

static void
k_sb_secondary_magic(struct cx *c)
{
	struct gaze_super s;
	u64 a = (u64)zb(c) * (le32_to_cpu(c->sb->cp_zone_start) + 1);

	blk_read(c, a, &s);
	s.hdr.magic = cpu_to_le32(0x21212121);
	blk_write(c, a, &s, true);
	say(c, "secondary superblock magic -> 0x21212121 (crc fixed)");
}

/* both superblock copies set bit 40, which no version knows, in the
 * incompat mask (every reader refuses) or the compat one (a kernel may
 * ignore it, a checker may not) */
static void
sb_unknown_feature(struct cx *c, bool incompat)
{
	struct gaze_super s;
	__le64 *m = incompat ? &s.feature_incompat : &s.feature_compat;
	u32 k;

	for (k = 0; k < 2; k++) {
		u64 a = (u64)zb(c) * (le32_to_cpu(c->sb->cp_zone_start) + k);

		blk_read(c, a, &s);
		*m = cpu_to_le64(le64_to_cpu(*m) | (1ull << 40));
		blk_write(c, a, &s, true);
	}
	say(c, "both superblocks: %s feature bit 40 (unknown) set (crc fixed)",
	    incompat ? "incompat" : "compat");
}

static void
k_sb_incompat_unknown(struct cx *c)
{
	sb_unknown_feature(c, true);
}

static void
k_sb_compat_unknown(struct cx *c)
{
	sb_unknown_feature(c, false);
}

/* checkpoint */
static void
k_cp_head_crc(struct cx *c)
{
	struct pack p;

	pack_read(c, &p);
	pk_head(&p)->reserved[rnd(c) % 64] ^= 0x11;
	blk_write(c, p.addr, pk_head(&p), false);
	say(c, "flipped a reserved byte of the current checkpoint head at %llu (seq %llu), crc left stale",
	    (unsigned long long)p.addr,
	    (unsigned long long)le64_to_cpu(pk_head(&p)->hdr.seq));
}

static void
k_cp_trailer_mismatch(struct cx *c)
{
	struct pack p;

	pack_read(c, &p);
	pk_trail(&p)->head_crc ^= cpu_to_le32(0x00ff00ff);
	blk_write(c, p.addr + p.nblocks - 1, pk_trail(&p), true);
	say(c, "current checkpoint trailer's head_crc no longer matches the head (trailer crc fixed)");
}

static void
k_cp_table_root(struct cx *c)
{
	struct pack p;
	u32 t = (u32)(rnd(c) % GAZE_NR_TABLES);

	pack_read(c, &p);
	pk_head(&p)->tables[t].nr_index =
		cpu_to_le32(le32_to_cpu(c->sb->table_index_blocks[t]) + 7);
	pack_write_head(c, &p);
	say(c, "checkpoint table root %u: nr_index -> %u, beyond the superblock's %u",
	    t, le32_to_cpu(pk_head(&p)->tables[t].nr_index),
	    le32_to_cpu(c->sb->table_index_blocks[t]));
}

static void
k_cp_tindex_addr(struct cx *c)
{
	struct pack p;
	u32 t, s;
	__le64 *sl;

	pack_read(c, &p);
	for (t = 0; t < GAZE_NR_TABLES; t++)
		if (pk_head(&p)->tables[t].nr_index)
			break;
	if (t == GAZE_NR_TABLES)
		die(c, "no table has an index block");
	s = le32_to_cpu(pk_head(&p)->tables[t].payload_ofs);
	sl = pack_slot(c, &p, s);
	*sl = cpu_to_le64((u64)le32_to_cpu(c->sb->main_zone_start) * zb(c) + 3);
	pack_write_all(c, &p);
	say(c, "table %u index block 0 address in the payload -> %llu (main area, not meta)",
	    t, (unsigned long long)le64_to_cpu(*sl));
}

static void
k_cp_log_past_wp(struct cx *c)
{
	struct pack p;
	u32 i, n;

	pack_read(c, &p);
	n = le32_to_cpu(pk_head(&p)->nr_logs);
	for (i = 0; i < n; i++)
		if (pk_head(&p)->logs[i].zone != cpu_to_le32(~0u))
			break;
	if (i == n)
		die(c, "no open log");
	pk_head(&p)->logs[i].offset = cpu_to_le32(le32_to_cpu(c->sb->zone_cap) + 9);
	pack_write_head(c, &p);
	say(c, "log %u head (zone %u) offset -> %u, past the zone's capacity/write pointer",
	    i, le32_to_cpu(pk_head(&p)->logs[i].zone),
	    le32_to_cpu(pk_head(&p)->logs[i].offset));
}

static void
k_cp_log_behind(struct cx *c)
{
	struct pack p;
	u32 i, n;

	pack_read(c, &p);
	n = le32_to_cpu(pk_head(&p)->nr_logs);
	for (i = 0; i < n; i++)
		if (pk_head(&p)->logs[i].zone != cpu_to_le32(~0u) &&
		    le32_to_cpu(pk_head(&p)->logs[i].offset) >= 2)
			break;
	if (i == n)
		die(c, "no log with written blocks");
	printf("old offset %u\n", le32_to_cpu(pk_head(&p)->logs[i].offset));
	pk_head(&p)->logs[i].offset = 0;
	pack_write_head(c, &p);
	say(c, "log %u head (zone %u) offset -> 0: the next write would land on owned blocks",
	    i, le32_to_cpu(pk_head(&p)->logs[i].zone));
}

/* a u64 counter of the newest checkpoint head (at byte off) raised by add */
static void
cp_u64_raise(struct cx *c, size_t off, const char *name, u64 add)
{
	struct pack p;
	__le64 *f;
	u64 v;

	pack_read(c, &p);
	f = (__le64 *)((u8 *)pk_head(&p) + off);
	v = le64_to_cpu(*f);
	*f = cpu_to_le64(v + add);
	pack_write_head(c, &p);
	say(c, "checkpoint %s %llu -> %llu", name, (unsigned long long)v,
	    (unsigned long long)(v + add));
}

static void
k_cp_valid_blocks(struct cx *c)
{
	cp_u64_raise(c, offsetof(struct gaze_cp_head, valid_blocks),
		     "valid_blocks", 5 + rnd(c) % 10);
}

static void
k_cp_valid_inodes(struct cx *c)
{
	struct pack p;
	u32 v;

	pack_read(c, &p);
	v = le32_to_cpu(pk_head(&p)->valid_inodes);
	pk_head(&p)->valid_inodes = cpu_to_le32(v > 3 ? v - 3 : v + 3);
	pack_write_head(c, &p);
	say(c, "checkpoint valid_inodes %u -> %u", v,
	    le32_to_cpu(pk_head(&p)->valid_inodes));
}

static void
k_cp_free_zones(struct cx *c)
{
	struct pack p;
	u32 v;

	pack_read(c, &p);
	v = le32_to_cpu(pk_head(&p)->free_zones);
	pk_head(&p)->free_zones = cpu_to_le32(v > 2 ? v - 2 : v + 2);
	pack_write_head(c, &p);
	say(c, "checkpoint free_zones %u -> %u", v,
	    le32_to_cpu(pk_head(&p)->free_zones));
}

static void
k_cp_flags(struct cx *c)
{
	struct pack p;

	pack_read(c, &p);
	pk_head(&p)->flags |= cpu_to_le32(0x0100);
	pack_write_head(c, &p);
	say(c, "checkpoint flags -> 0x%x (unknown bit 0x100)",
	    le32_to_cpu(pk_head(&p)->flags));
}

static void
k_cp_payload_crc(struct cx *c)
{
	struct pack p;

	pack_read(c, &p);
	if (p.nblocks < 3)
		die(c, "the current pack has no payload block");
	p.b[BS + BS - 1 - rnd(c) % 16] ^= 0x80;
	blk_write(c, p.addr + 1, p.b + BS, false);
	say(c, "flipped a bit in payload block 1 of the current pack, crc left stale");
}

static void
k_orphan_live(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");
	struct pack p;
	u32 s;

	pack_read(c, &p);
	s = le32_to_cpu(pk_head(&p)->orphan_ofs);
	*pack_slot(c, &p, s) = cpu_to_le64(e->ino);
	pk_head(&p)->nr_orphans = cpu_to_le32(1);
	pk_head(&p)->flags |= cpu_to_le32(GAZE_CP_ORPHANS);
	pack_write_all(c, &p);
	say(c, "orphan list -> [%u], a linked live inode (pack now %u blocks)",
	    e->ino, p.nblocks);
}

static void
k_orphan_count(struct cx *c)
{
	struct pack p;

	pack_read(c, &p);
	pk_head(&p)->nr_orphans = cpu_to_le32(900 + (u32)(rnd(c) % 50));
	pk_head(&p)->flags |= cpu_to_le32(GAZE_CP_ORPHANS);
	pack_write_head(c, &p);
	say(c, "nr_orphans -> %u, past the payload",
	    le32_to_cpu(pk_head(&p)->nr_orphans));
}

static void
k_orphan_free(struct cx *c)
{
	struct pack p;
	u32 s, nid = free_nid(c);

	pack_read(c, &p);
	s = le32_to_cpu(pk_head(&p)->orphan_ofs);
	*pack_slot(c, &p, s) = cpu_to_le64(nid);
	pk_head(&p)->nr_orphans = cpu_to_le32(1);
	pk_head(&p)->flags |= cpu_to_le32(GAZE_CP_ORPHANS);
	pack_write_all(c, &p);
	say(c, "orphan list -> [%u], a free nid", nid);
}

/* tables */
static void
imap_set(struct cx *c, u32 nid, u64 addr, bool fix)
{
	struct gaze_imap_block b;
	u64 a = table_addr(c, GAZE_TABLE_IMAP, nid / GAZE_IMAP_PER_BLOCK, NULL);

	if (!a)
		die(c, "imap block of nid %u is absent", nid);
	blk_read(c, a, &b);
	if (fix)
		b.addr[nid % GAZE_IMAP_PER_BLOCK] = cpu_to_le64(addr);
	else
		b.addr[nid % GAZE_IMAP_PER_BLOCK] ^= cpu_to_le64(1ull << 40);
	blk_write(c, a, &b, fix);
	printf("imap block at %llu\n", (unsigned long long)a);
}

static void
k_imap_garbage(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");
	struct ent *o = NULL;
	u64 a;
	u32 i;

	for (i = 0; i < c->ne && !o; i++)
		if (p_reg_blocks(c, &c->e[i]) && c->e[i].ino != e->ino)
			o = &c->e[i];
	if (!o)
		die(c, "no other file with a data block");
	a = le64_to_cpu(o->in.i.addr[0]);
	imap_set(c, e->ino, a, true);
	say(c, "imap[%u] -> %llu (a data block of %s)", e->ino,
	    (unsigned long long)a, o->path);
}

static void
k_imap_freed_nid(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");
	u32 nid = free_nid(c);

	imap_set(c, nid, e->iaddr, true);
	say(c, "imap[%u] (a free nid) -> %llu, the inode block of %u", nid,
	    (unsigned long long)e->iaddr, e->ino);
}

static void
k_imap_range(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");
	u64 a = le64_to_cpu(c->sb->total_blocks) + 1000 + rnd(c) % 1000;

	imap_set(c, e->ino, a, true);
	say(c, "imap[%u] -> %llu, beyond the device", e->ino,
	    (unsigned long long)a);
}

static void
k_imap_crc(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");

	imap_set(c, e->ino, 0, false);
	say(c, "flipped bit 40 of imap[%u], crc left stale", e->ino);
}

static void
k_tindex_crc(struct cx *c)
{
	u64 ia = 0;
	u8 b[BS];

	table_addr(c, GAZE_TABLE_IMAP, 0, &ia);
	if (!ia)
		die(c, "no imap index block");
	blk_read(c, ia, b);
	b[BS - 8 - rnd(c) % 64] ^= 0x42;
	blk_write(c, ia, b, false);
	say(c, "flipped a byte in the imap index block at %llu, crc left stale",
	    (unsigned long long)ia);
}

static void
k_zinfo_tindex_zero(struct cx *c)
{
	u64 ia = 0;
	u8 b[BS];

	table_addr(c, GAZE_TABLE_ZINFO, 0, &ia);
	if (!ia)
		die(c, "no zinfo index block");
	memset(b, 0, BS);
	blk_write(c, ia, b, false);
	say(c, "zeroed the zone info table's index block at %llu",
	    (unsigned long long)ia);
}

/* an older pack than the current one, in its zone: the first there */
static void
k_cp_old_head_zero(struct cx *c)
{
	u64 cur = le64_to_cpu(c->fs->cp.hdr.blkaddr);
	u64 first = cur - cur % zb(c) + 1;
	u8 b[BS];

	if (first == cur)
		die(c, "the current pack is the first of its zone");
	memset(b, 0, BS);
	blk_write(c, first, b, false);
	say(c, "zeroed the head of an older checkpoint pack at %llu (the current one is at %llu)",
	    (unsigned long long)first, (unsigned long long)cur);
}

/* zinfo entry of the zone holding main block addr */
static void
zinfo_edit(struct cx *c, u64 addr, int dvalid, int state, int log)
{
	struct gaze_zinfo_block b;
	u32 zi = (u32)(addr / zb(c)) - le32_to_cpu(c->sb->main_zone_start);
	u64 a = table_addr(c, GAZE_TABLE_ZINFO, zi / GAZE_ZINFO_PER_BLOCK, NULL);
	struct gaze_zinfo *z;

	if (!a)
		die(c, "zinfo block absent");
	blk_read(c, a, &b);
	z = &b.z[zi % GAZE_ZINFO_PER_BLOCK];
	printf("zone %u before: valid %u state %u log %u\n",
	       (u32)(addr / zb(c)), le32_to_cpu(z->valid), z->state, z->log);
	z->valid = cpu_to_le32(le32_to_cpu(z->valid) + dvalid);
	if (state >= 0)
		z->state = (u8)state;
	if (log >= 0)
		z->log = (u8)log;
	blk_write(c, a, &b, true);
	printf("zone %u after: valid %u state %u log %u\n",
	       (u32)(addr / zb(c)), le32_to_cpu(z->valid), z->state, z->log);
}

static u64
some_data_block(struct cx *c)
{
	struct ent *e = pick(c, p_reg_blocks, "file with data blocks");

	return le64_to_cpu(e->in.i.addr[0]);
}

/* a data or inode block in a zone with room for 3 more valid blocks,
 * so the raised count stays plausible (within the zone's capacity) */
static u64
roomy_block(struct cx *c)
{
	u32 i, k = (u32)(rnd(c) % c->ne), valid, state;
	u64 a;

	for (i = 0; i < 2 * c->ne; i++) {
		struct ent *e = &c->e[(k + i / 2) % c->ne];

		a = i % 2 ? e->iaddr : le64_to_cpu(e->in.i.addr[0]);
		if (!GAZE_ADDR_IS_REAL(a) || (i % 2 == 0 && !p_reg_blocks(c, e)))
			continue;
		mutex_lock(&c->fs->lock);
		gaze_space_zone_stat(c->fs, (u32)(a / zb(c)), &valid, &state);
		mutex_unlock(&c->fs->lock);
		if (valid + 3 <= le32_to_cpu(c->sb->zone_cap)) {
			printf("target: %s (ino %u)\n", e->path, e->ino);
			return a;
		}
	}
	die(c, "no zone with room");
}

static void
k_zinfo_valid_high(struct cx *c)
{
	zinfo_edit(c, roomy_block(c), 3, -1, -1);
	say(c, "zone valid count raised by 3 (still within the zone capacity)");
}

static void
k_zinfo_valid_low(struct cx *c)
{
	zinfo_edit(c, some_data_block(c), -1, -1, -1);
	say(c, "zone valid count lowered by 1");
}

static void
k_zinfo_free_owned(struct cx *c)
{
	zinfo_edit(c, some_data_block(c), 0, GAZE_ZS_FREE, -1);
	say(c, "zone holding owned data marked FREE in zinfo");
}

static void
k_zinfo_log(struct cx *c)
{
	zinfo_edit(c, some_data_block(c), 0, -1, 9);
	say(c, "zone's log type -> 9 (no such log)");
}

static void
usage_edit(struct cx *c, u64 addr, bool set)
{
	struct gaze_usage_block b;
	u32 zi = (u32)(addr / zb(c)) - le32_to_cpu(c->sb->main_zone_start);
	u32 off = (u32)(addr % zb(c));
	u32 ub = zi * le32_to_cpu(c->sb->usage_blocks_per_zone) +
		 off / GAZE_USAGE_BITS_PER_BLOCK;
	u32 bit = off % GAZE_USAGE_BITS_PER_BLOCK;
	u64 a = table_addr(c, GAZE_TABLE_USAGE, ub, NULL);

	if (!a)
		die(c, "usage block absent");
	blk_read(c, a, &b);
	if (set)
		b.bits[bit / 8] |= (u8)(1u << (bit % 8));
	else
		b.bits[bit / 8] &= (u8)~(1u << (bit % 8));
	blk_write(c, a, &b, true);
}

static void
k_usage_bit_owned(struct cx *c)
{
	u64 a = some_data_block(c);

	usage_edit(c, a, false);
	say(c, "usage bit of owned block %llu cleared", (unsigned long long)a);
}

/* a block of the zone holding addr whose usage bit is clear */
static u64
unowned_block(struct cx *c, u64 addr)
{
	struct gaze_usage_block b;
	u32 zi = (u32)(addr / zb(c)) - le32_to_cpu(c->sb->main_zone_start);
	u32 upz = le32_to_cpu(c->sb->usage_blocks_per_zone);
	u32 off = le32_to_cpu(c->sb->zone_cap), bit;
	u64 a = 0;

	while (off-- > 0) {
		if (off == le32_to_cpu(c->sb->zone_cap) - 1 ||
		    off % GAZE_USAGE_BITS_PER_BLOCK ==
		    GAZE_USAGE_BITS_PER_BLOCK - 1) {
			a = table_addr(c, GAZE_TABLE_USAGE,
				       zi * upz + off / GAZE_USAGE_BITS_PER_BLOCK,
				       NULL);
			if (!a)
				continue;
			blk_read(c, a, &b);
		}
		bit = off % GAZE_USAGE_BITS_PER_BLOCK;
		if (a && !(b.bits[bit / 8] & (1u << (bit % 8))))
			return addr / zb(c) * zb(c) + off;
	}
	return 0;
}

static void
k_usage_bit_unowned(struct cx *c)
{
	u32 i, k = (u32)(rnd(c) % c->ne);
	struct ent *e = NULL;
	u64 x = 0;

	/* a zone with room: the inode zone of some file, seed's start */
	for (i = 0; i < c->ne && !x; i++) {
		e = &c->e[(k + i) % c->ne];
		if (e->iaddr)
			x = unowned_block(c, e->iaddr);
	}
	if (!x)
		die(c, "no zone with a clear usage bit");
	printf("target: %s (ino %u)\n", e->path, e->ino);
	usage_edit(c, x, true);
	say(c, "usage bit of block %llu (clear before, owned by nothing; zone of %s's inode) set",
	    (unsigned long long)x, e->path);
}

static void
summary_edit(struct cx *c, u64 addr, int nid, int ofs, int type)
{
	struct gaze_summary_block b;
	u32 zi = (u32)(addr / zb(c)) - le32_to_cpu(c->sb->main_zone_start);
	u32 off = (u32)(addr % zb(c));
	u32 sbk = zi * le32_to_cpu(c->sb->summary_blocks_per_zone) +
		  off / GAZE_SUMMARY_PER_BLOCK;
	u64 a = table_addr(c, GAZE_TABLE_SUMMARY, sbk, NULL);
	struct gaze_summary *s;

	if (!a)
		die(c, "summary block absent");
	blk_read(c, a, &b);
	s = &b.s[off % GAZE_SUMMARY_PER_BLOCK];
	printf("summary of %llu before: nid %u ofs %u type %u\n",
	       (unsigned long long)addr, le32_to_cpu(s->nid),
	       le16_to_cpu(s->ofs), s->type);
	if (nid >= 0)
		s->nid = cpu_to_le32((u32)nid);
	if (ofs >= 0)
		s->ofs = cpu_to_le16((u16)ofs);
	if (type >= 0)
		s->type = (u8)type;
	blk_write(c, a, &b, true);
	printf("summary of %llu after: nid %u ofs %u type %u\n",
	       (unsigned long long)addr, le32_to_cpu(s->nid),
	       le16_to_cpu(s->ofs), s->type);
}

static void
k_summary_owner(struct cx *c)
{
	struct ent *e = pick(c, p_reg_blocks, "file with data blocks");
	u32 other = GAZE_ROOT_INO;

	summary_edit(c, le64_to_cpu(e->in.i.addr[0]), (int)other, -1, -1);
	say(c, "summary of %s's block 0 names nid %u as owner", e->path, other);
}

static void
k_summary_ofs(struct cx *c)
{
	struct ent *e = pick(c, p_reg_blocks, "file with data blocks");

	summary_edit(c, le64_to_cpu(e->in.i.addr[0]), -1, 77, -1);
	say(c, "summary of %s's block 0: ofs -> 77", e->path);
}

static void
k_summary_type(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");

	summary_edit(c, e->iaddr, -1, -1, GAZE_SUM_DATA);
	say(c, "summary of %s's inode block: type NODE -> DATA", e->path);
}

/* inodes */
static void
k_inode_mode(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");

	e->in.mode = cpu_to_le16((e_mode(e) & 07777) | 0170000);
	inode_put(c, e, true);
	say(c, "mode of %u -> 0%o (no such file type)", e->ino, e_mode(e));
}

static void
k_inode_nlink_high(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");

	e->in.nlink = cpu_to_le32(le32_to_cpu(e->in.nlink) + 2);
	inode_put(c, e, true);
	say(c, "nlink of %u -> %u (one name)", e->ino, le32_to_cpu(e->in.nlink));
}

static void
k_inode_nlink_low(struct cx *c)
{
	struct ent *e = pick(c, p_hardlink, "hard-linked file");

	e->in.nlink = cpu_to_le32(le32_to_cpu(e->in.nlink) - 1);
	inode_put(c, e, true);
	say(c, "nlink of %u -> %u (%u names)", e->ino, le32_to_cpu(e->in.nlink),
	    nlinks_of(c, e->ino));
}

static void
k_inode_nlink_zero(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");

	e->in.nlink = 0;
	inode_put(c, e, true);
	say(c, "nlink of %u -> 0 while its name exists", e->ino);
}

static void
k_inode_size_small(struct cx *c)
{
	struct ent *e = pick(c, p_reg_dnode, "file with a direct node");
	u64 old = le64_to_cpu(e->in.size);

	e->in.size = cpu_to_le64(4096);
	inode_put(c, e, true);
	say(c, "size of %u %llu -> 4096, blocks mapped far beyond", e->ino,
	    (unsigned long long)old);
}

static void
k_inode_size_inline(struct cx *c)
{
	struct ent *e = pick(c, p_reg_inline, "file with inline data");
	u64 old = le64_to_cpu(e->in.size);

	e->in.size = cpu_to_le64(GAZE_INLINE_SIZE + 100 + rnd(c) % 1000);
	inode_put(c, e, true);
	say(c, "size of inline file %u %llu -> %llu, past the inline area",
	    e->ino, (unsigned long long)old,
	    (unsigned long long)le64_to_cpu(e->in.size));
}

static void
k_inode_addr_range(struct cx *c)
{
	struct ent *e = pick(c, p_reg_blocks, "file with data blocks");
	u64 a = le64_to_cpu(c->sb->total_blocks) + 17;

	e->in.i.addr[0] = cpu_to_le64(a);
	inode_put(c, e, true);
	say(c, "%u's block 0 address -> %llu (beyond the device)", e->ino,
	    (unsigned long long)a);
}

static void
k_inode_addr_meta(struct cx *c)
{
	struct ent *e = pick(c, p_reg_blocks, "file with data blocks");
	u64 a = (u64)le32_to_cpu(c->sb->meta_zone_start) * zb(c) + 1;

	e->in.i.addr[0] = cpu_to_le64(a);
	inode_put(c, e, true);
	say(c, "%u's block 0 address -> %llu (meta area)", e->ino,
	    (unsigned long long)a);
}

static void
k_inode_addr_dup(struct cx *c)
{
	struct ent *e = pick(c, p_reg_blocks, "file with data blocks");
	struct ent *o = NULL;
	u32 i;

	for (i = 0; i < c->ne && !o; i++)
		if (p_reg_blocks(c, &c->e[i]) && c->e[i].ino != e->ino)
			o = &c->e[i];
	if (!o)
		die(c, "no second file with blocks");
	e->in.i.addr[0] = o->in.i.addr[0];
	inode_put(c, e, true);
	say(c, "%u's block 0 -> %llu, owned by %s too", e->ino,
	    (unsigned long long)le64_to_cpu(o->in.i.addr[0]), o->path);
}

static void
k_inode_blocks(struct cx *c)
{
	struct ent *e = pick(c, p_reg_blocks, "file with data blocks");
	u64 old = le64_to_cpu(e->in.blocks);

	e->in.blocks = cpu_to_le64(old + 3 + rnd(c) % 5);
	inode_put(c, e, true);
	say(c, "blocks of %u %llu -> %llu", e->ino, (unsigned long long)old,
	    (unsigned long long)le64_to_cpu(e->in.blocks));
}

/* compressed clusters */
static void
k_cluster_stream(struct cx *c)
{
	struct ent *e = pick(c, p_reg_packed, "file with a packed cluster");
	u64 a = le64_to_cpu(e->in.i.addr[1]);
	u8 buf[BS];
	u32 off = 40 + (u32)(rnd(c) % 64);

	blk_read(c, a, buf);
	buf[off] ^= 0x5a;
	blk_write(c, a, buf, false);
	say(c, "%s: byte %u of its first cluster's stream (block %llu) flipped",
	    e->path, off, (unsigned long long)a);
}

static void
k_cluster_marker(struct cx *c)
{
	struct ent *e = pick(c, p_reg_packed, "file with a packed cluster");
	u32 nblk = 1u << e->in.compress_log_cluster;

	e->in.i.addr[0] = cpu_to_le64(GAZE_ADDR_CLUSTER(nblk));
	inode_put(c, e, true);
	say(c, "%s: first cluster's marker says its stream takes %u blocks, the whole cluster",
	    e->path, nblk);
}

static void
k_compr_blocks(struct cx *c)
{
	struct ent *e = pick(c, p_reg_packed, "file with a packed cluster");
	u64 old = le64_to_cpu(e->in.compr_blocks);

	e->in.compr_blocks = cpu_to_le64(old + 2 + rnd(c) % 5);
	inode_put(c, e, true);
	say(c, "compr_blocks of %u %llu -> %llu", e->ino,
	    (unsigned long long)old,
	    (unsigned long long)le64_to_cpu(e->in.compr_blocks));
}

static void
k_cp_compr(struct cx *c)
{
	cp_u64_raise(c, offsetof(struct gaze_cp_head, compr_logical_blocks),
		     "compr_logical_blocks", 3 + rnd(c) % 10);
}

static void
k_cp_prealloc(struct cx *c)
{
	cp_u64_raise(c, offsetof(struct gaze_cp_head, prealloc_blocks),
		     "prealloc_blocks", 5 + rnd(c) % 100);
}

static void
k_inode_flags(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");

	e->in.flags = cpu_to_le32(e_flags(e) | 0x8000);
	inode_put(c, e, true);
	say(c, "flags of %u -> 0x%x (unknown bit 0x8000)", e->ino, e_flags(e));
}

static void
k_inode_dirflag_on_file(struct cx *c)
{
	struct ent *e = pick(c, p_reg_blocks, "file with data blocks");

	e->in.flags = cpu_to_le32(e_flags(e) | GAZE_IF_DIR_HASHED);
	inode_put(c, e, true);
	say(c, "flags of regular file %u -> 0x%x (dir_hashed)", e->ino,
	    e_flags(e));
}

static void
k_inode_inline_used(struct cx *c)
{
	struct ent *e = pick(c, p_reg_inline, "file with inline data");

	e->in.inline_used = cpu_to_le16(GAZE_INLINE_SIZE + 64);
	inode_put(c, e, true);
	say(c, "inline_used of %u -> %u (> %u)", e->ino,
	    le16_to_cpu(e->in.inline_used), GAZE_INLINE_SIZE);
}

static void
k_inode_crc(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");

	e->in.mtime ^= cpu_to_le64(1);
	inode_put(c, e, false);
	say(c, "flipped a bit of %u's mtime, crc left stale", e->ino);
}

static void
k_inode_nid_bad(struct cx *c)
{
	struct ent *e = pick(c, p_reg_dnode, "file with a direct node");
	u32 nid = free_nid(c);

	printf("old nids[0] %u\n", le32_to_cpu(e->in.nids[0]));
	e->in.nids[0] = cpu_to_le32(nid);
	inode_put(c, e, true);
	say(c, "%u's direct node nid -> %u (a free nid)", e->ino, nid);
}

static void
k_inode_parent(struct cx *c)
{
	struct ent *e = pick(c, p_dir_sub, "subdirectory of a subdirectory");
	u32 old = le32_to_cpu(e->in.parent);
	struct ent *o = NULL;
	u32 i;

	for (i = 0; i < c->ne && !o; i++)
		if (p_dir(c, &c->e[i]) && c->e[i].ino != old &&
		    c->e[i].ino != e->ino)
			o = &c->e[i];
	if (!o)
		die(c, "no other directory");
	e->in.parent = cpu_to_le32(o->ino);
	inode_put(c, e, true);
	say(c, "'..' (parent) of directory %u %u -> %u (%s), which has no entry for it",
	    e->ino, old, o->ino, o->path);
}

static void
k_dir_nentries(struct cx *c)
{
	struct ent *e = pick(c, p_dir, "directory");
	u32 old = le32_to_cpu(e->in.dir_nentries);

	e->in.dir_nentries = cpu_to_le32(old + 2);
	inode_put(c, e, true);
	say(c, "dir_nentries of %u %u -> %u", e->ino, old,
	    le32_to_cpu(e->in.dir_nentries));
}

/* dnodes */
static u64
dnode_of(struct cx *c, struct ent **ep)
{
	struct ent *e = pick(c, p_reg_dnode, "file with a direct node");
	u64 a = imap_addr(c, le32_to_cpu(e->in.nids[0]));

	if (!a)
		die(c, "direct node %u has no block", le32_to_cpu(e->in.nids[0]));
	*ep = e;
	return a;
}

static void
k_dnode_ino(struct cx *c)
{
	struct ent *e;
	struct gaze_dnode d;
	u64 a = dnode_of(c, &e);

	blk_read(c, a, &d);
	d.hdr.ino = cpu_to_le32(GAZE_ROOT_INO);
	blk_write(c, a, &d, true);
	say(c, "direct node %u of %u: owner ino -> %u", le32_to_cpu(d.hdr.nid),
	    e->ino, GAZE_ROOT_INO);
}

static void
k_dnode_addr(struct cx *c)
{
	struct ent *e;
	struct gaze_dnode d;
	u64 a = dnode_of(c, &e);

	blk_read(c, a, &d);
	d.addr[0] = cpu_to_le64(le64_to_cpu(c->sb->total_blocks) + 5);
	blk_write(c, a, &d, true);
	say(c, "direct node %u of %u: addr[0] -> %llu (beyond the device)",
	    le32_to_cpu(d.hdr.nid), e->ino,
	    (unsigned long long)le64_to_cpu(d.addr[0]));
}

static void
k_dnode_crc(struct cx *c)
{
	struct ent *e;
	struct gaze_dnode d;
	u64 a = dnode_of(c, &e);

	blk_read(c, a, &d);
	d.addr[GAZE_ADDRS_PER_DNODE - 1] ^= cpu_to_le64(1ull << 50);
	blk_write(c, a, &d, false);
	say(c, "flipped a bit in direct node %u of %u, crc left stale",
	    le32_to_cpu(d.hdr.nid), e->ino);
}

static u64
ind_of(struct cx *c, struct ent **ep)
{
	struct ent *e = pick(c, p_reg_ind, "file with an indirect node");
	u64 a = imap_addr(c, le32_to_cpu(e->in.nids[2]));

	if (!a)
		die(c, "indirect node %u has no block",
		    le32_to_cpu(e->in.nids[2]));
	*ep = e;
	return a;
}

static void
k_ind_ino(struct cx *c)
{
	struct ent *e;
	struct gaze_inode_ind n;
	u64 a = ind_of(c, &e);

	blk_read(c, a, &n);
	n.hdr.ino = cpu_to_le32(GAZE_ROOT_INO);
	blk_write(c, a, &n, true);
	say(c, "indirect node %u of %u: owner ino -> %u",
	    le32_to_cpu(n.hdr.nid), e->ino, GAZE_ROOT_INO);
}

static void
k_ind_nid(struct cx *c)
{
	struct ent *e;
	struct gaze_inode_ind n;
	u64 a = ind_of(c, &e);
	u32 nid = free_nid(c);

	blk_read(c, a, &n);
	if (!n.nid[0])
		die(c, "indirect node has no first child");
	printf("old child %u\n", le32_to_cpu(n.nid[0]));
	n.nid[0] = cpu_to_le32(nid);
	blk_write(c, a, &n, true);
	say(c, "indirect node %u of %u: first child -> %u (a free nid)",
	    le32_to_cpu(n.hdr.nid), e->ino, nid);
}

/* directory entries */
static void
k_dirent_namelen(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");
	struct dloc l;
	struct gaze_dirent *r;

	ent_record(c, e, &l);
	r = rec_at(&l, l.off);
	r->name_len = 0;
	dloc_write(c, &l, true);
	say(c, "record of %s: name_len -> 0", e->path);
}

static void
k_dirent_reclen(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");
	struct dloc l;
	struct gaze_dirent *r;

	ent_record(c, e, &l);
	r = rec_at(&l, l.off);
	r->rec_len = cpu_to_le16(l.used - l.off + 8);
	dloc_write(c, &l, true);
	say(c, "record of %s: rec_len -> %u, past the region's used bytes",
	    e->path, le16_to_cpu(r->rec_len));
}

static void
k_dirent_slash(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");
	struct dloc l;
	struct gaze_dirent *r;
	char *n;

	ent_record(c, e, &l);
	r = rec_at(&l, l.off);
	n = (char *)(r + 1);
	n[r->name_len / 2] = '/';
	r->hash = cpu_to_le64(gaze_dir_hash(c->fs, n, r->name_len));
	dloc_write(c, &l, true);
	say(c, "record of %s: name -> '%.*s' (hash recomputed)", e->path,
	    r->name_len, n);
}

static void
k_dirent_hash(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");
	struct dloc l;
	struct gaze_dirent *r;

	ent_record(c, e, &l);
	r = rec_at(&l, l.off);
	r->hash ^= cpu_to_le64(1ull << (60 - rnd(c) % 8));
	dloc_write(c, &l, true);
	say(c, "record of %s: hash no longer that of its name", e->path);
}

static void
k_dirent_bucket(struct cx *c)
{
	struct ent *d = pick(c, p_dir_hashed, "hashed directory with 2 buckets");
	struct dloc a, *b = malloc(sizeof(*b));
	struct gaze_dirent *r;
	u32 rl, nb = le32_to_cpu(d->in.dir_nbuckets), bb, off;
	u64 baddr = 0;

	if (!b)
		die(c, "out of memory");
	dloc_find(c, d, NULL, &a);	/* a random record of some bucket */
	r = rec_at(&a, a.off);
	rl = le16_to_cpu(r->rec_len);
	/* another bucket with room */
	for (bb = 0; bb < nb; bb++) {
		baddr = bmap(c, d->ino, GAZE_DIR_BUCKET_BASE + bb);
		if (!GAZE_ADDR_IS_REAL(baddr) || baddr == a.addr)
			continue;
		memset(b, 0, sizeof(*b));
		blk_read(c, baddr, b->blk);
		b->addr = baddr;
		b->region = ((struct gaze_dir_bucket *)b->blk)->entries;
		b->used = le16_to_cpu(((struct gaze_dir_bucket *)b->blk)->used);
		b->space = GAZE_DIR_BUCKET_SPACE;
		if (b->used + rl <= b->space)
			break;
	}
	if (bb == nb)
		die(c, "no other bucket with room");
	/* insert sorted by hash into b */
	for (off = 0; off < b->used;
	     off += le16_to_cpu(rec_at(b, off)->rec_len))
		if (le64_to_cpu(rec_at(b, off)->hash) > le64_to_cpu(r->hash))
			break;
	memmove(b->region + off + rl, b->region + off, b->used - off);
	memcpy(b->region + off, r, rl);
	dloc_set_used(b, b->used + rl);
	((struct gaze_dir_bucket *)b->blk)->nr_entries = cpu_to_le32(
		le32_to_cpu(((struct gaze_dir_bucket *)b->blk)->nr_entries) + 1);
	say(c, "moved record '%.*s' (ino %u) of directory %u from the bucket at %llu to bucket %u at %llu",
	    r->name_len, (char *)(r + 1), le32_to_cpu(r->ino), d->ino,
	    (unsigned long long)a.addr, bb, (unsigned long long)baddr);
	/* remove from a */
	memmove(a.region + a.off, a.region + a.off + rl, a.used - a.off - rl);
	memset(a.region + a.used - rl, 0, rl);
	dloc_set_used(&a, a.used - rl);
	((struct gaze_dir_bucket *)a.blk)->nr_entries = cpu_to_le32(
		le32_to_cpu(((struct gaze_dir_bucket *)a.blk)->nr_entries) - 1);
	dloc_write(c, &a, true);
	dloc_write(c, b, true);
	free(b);
}

static void
k_dirent_free_ino(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");
	struct dloc l;
	u32 nid = free_nid(c);

	ent_record(c, e, &l);
	rec_at(&l, l.off)->ino = cpu_to_le32(nid);
	dloc_write(c, &l, true);
	say(c, "record of %s: ino %u -> %u (a free inode)", e->path, e->ino, nid);
}

static void
k_dirent_ftype(struct cx *c)
{
	struct ent *e = pick(c, p_reg1, "regular file");
	struct dloc l;

	ent_record(c, e, &l);
	rec_at(&l, l.off)->file_type = DT_CHR_;
	dloc_write(c, &l, true);
	say(c, "record of %s: file type DT_REG -> DT_CHR", e->path);
}

static void
k_dirent_dup(struct cx *c)
{
	struct ent *e = pick(c, p_reg1_inline_parent,
			     "file in an inline directory");
	struct dloc l;
	struct gaze_dirent *r;
	struct gaze_inode *d;
	u32 rl;

	ent_record(c, e, &l);
	r = rec_at(&l, l.off);
	rl = le16_to_cpu(r->rec_len);
	if (l.used + rl > l.space)
		die(c, "no room for a duplicate");
	memmove(l.region + l.off + rl, l.region + l.off, l.used - l.off);
	dloc_set_used(&l, l.used + rl);
	d = (struct gaze_inode *)l.blk;
	d->dir_nentries = cpu_to_le32(le32_to_cpu(d->dir_nentries) + 1);
	dloc_write(c, &l, true);
	say(c, "record of %s duplicated in its directory (nentries raised to match)",
	    e->path);
}

static void
k_dirent_crc(struct cx *c)
{
	struct ent *d = pick(c, p_dir_hashed, "hashed directory");
	struct dloc l;

	dloc_find(c, d, NULL, &l);
	rec_at(&l, l.off)->rec_len ^= cpu_to_le16(0x100);
	dloc_write(c, &l, false);
	say(c, "flipped a bit in a bucket of directory %u at %llu, crc left stale",
	    d->ino, (unsigned long long)l.addr);
}

static void
k_unreachable(struct cx *c)
{
	struct ent *e = pick(c, p_reg1_inline_parent,
			     "file in an inline directory");
	struct dloc l;
	struct gaze_dirent *r;
	struct gaze_inode *d;
	u32 rl;

	ent_record(c, e, &l);
	r = rec_at(&l, l.off);
	rl = le16_to_cpu(r->rec_len);
	memmove(l.region + l.off, l.region + l.off + rl, l.used - l.off - rl);
	memset(l.region + l.used - rl, 0, rl);
	dloc_set_used(&l, l.used - rl);
	d = (struct gaze_inode *)l.blk;
	d->dir_nentries = cpu_to_le32(le32_to_cpu(d->dir_nentries) - 1);
	dloc_write(c, &l, true);
	say(c, "removed the only name of %u (%s) from its directory; inode left allocated",
	    e->ino, e->path);
}

static void
k_dir_loop(struct cx *c)
{
	struct ent *e = pick(c, p_dir_sub, "subdirectory of a subdirectory");
	struct ent *p = find_ent(c, e->parent);
	struct dloc l;
	struct gaze_dirent *r;

	/* e's name in its parent now names the parent's parent: that
	 * directory then holds itself two levels down, a cycle; e becomes
	 * unreachable */
	ent_record(c, e, &l);
	r = rec_at(&l, l.off);
	r->ino = cpu_to_le32(p->parent);
	dloc_write(c, &l, true);
	say(c, "record %s -> ino %u (its grandparent, %s): directory cycle; %u left unreachable",
	    e->path, p->parent, find_ent(c, p->parent)->path, e->ino);
}

/* xattrs */
static void
k_xattr_inline_len(struct cx *c)
{
	struct ent *e = pick(c, p_xattr_inline, "inode with inline xattrs");
	struct gaze_xattr_entry *x = (void *)e->in.i_xattr;

	x->value_len = cpu_to_le16(GAZE_INLINE_XATTR_SIZE + 40);
	inode_put(c, e, true);
	say(c, "first inline xattr of %u: value_len -> %u", e->ino,
	    le16_to_cpu(x->value_len));
}

static void
k_xattr_inline_used(struct cx *c)
{
	struct ent *e = pick(c, p_xattr_inline, "inode with inline xattrs");

	e->in.inline_xattr_used = cpu_to_le16(GAZE_INLINE_XATTR_SIZE + 4);
	inode_put(c, e, true);
	say(c, "inline_xattr_used of %u -> %u", e->ino,
	    le16_to_cpu(e->in.inline_xattr_used));
}

static void
k_xattr_index(struct cx *c)
{
	struct ent *e = pick(c, p_xattr_inline, "inode with inline xattrs");
	struct gaze_xattr_entry *x = (void *)e->in.i_xattr;

	x->index = 77;
	inode_put(c, e, true);
	say(c, "first inline xattr of %u: name index -> 77", e->ino);
}

static u64
xnode_of(struct cx *c, struct ent **ep)
{
	struct ent *e = pick(c, p_xattr_node, "inode with an xattr node");
	u64 a = imap_addr(c, le32_to_cpu(e->in.xattr_nid));

	if (!a)
		die(c, "xattr node without a block");
	*ep = e;
	return a;
}

static void
k_xattr_node_len(struct cx *c)
{
	struct ent *e;
	struct gaze_xattr_block x;
	u64 a = xnode_of(c, &e);
	struct gaze_xattr_entry *xe = (void *)x.body;

	blk_read(c, a, &x);
	xe->name_len = 255;
	blk_write(c, a, &x, true);
	say(c, "xattr node of %u: first entry's name_len -> 255", e->ino);
}

static void
k_xattr_node_used(struct cx *c)
{
	struct ent *e;
	struct gaze_xattr_block x;
	u64 a = xnode_of(c, &e);

	blk_read(c, a, &x);
	x.used = cpu_to_le32(sizeof(x.body) + 16);
	blk_write(c, a, &x, true);
	say(c, "xattr node of %u: used -> %u", e->ino, le32_to_cpu(x.used));
}

static void
k_xattr_node_crc(struct cx *c)
{
	struct ent *e;
	struct gaze_xattr_block x;
	u64 a = xnode_of(c, &e);

	blk_read(c, a, &x);
	x.body[sizeof(x.body) - 1 - rnd(c) % 32] ^= 0x10;
	blk_write(c, a, &x, false);
	say(c, "flipped a bit of %u's xattr node, crc left stale", e->ino);
}

static void
k_xattr_nid_free(struct cx *c)
{
	struct ent *e = pick(c, p_xattr_node, "inode with an xattr node");
	u32 nid = free_nid(c);

	e->in.xattr_nid = cpu_to_le32(nid);
	inode_put(c, e, true);
	say(c, "xattr_nid of %u -> %u (a free nid)", e->ino, nid);
}

struct kind {
	const char	*name;
	void		(*fn)(struct cx *c);
	const char	*desc;
};

static const struct kind kinds[] = {
	{ "sb-primary-crc", k_sb_primary_crc, "primary superblock: a reserved byte changed, crc stale (checksum kind)" },
	{ "sb-secondary-crc", k_sb_secondary_crc, "secondary superblock: label byte changed, crc stale (checksum kind)" },
	{ "sb-primary-geometry", k_sb_primary_geometry, "primary superblock main_zone_count wrong (crc fixed); secondary good" },
	{ "sb-copies-differ", k_sb_copies_differ, "both superblocks valid but the secondary's gc_queue_depth differs" },
	{ "sb-secondary-magic", k_sb_secondary_magic, "secondary superblock magic destroyed (crc fixed)" },
	{ "cluster-stream", k_cluster_stream, "a packed cluster's stream: a payload byte flipped (data block: no checksum of its own to fix)" },
	{ "cluster-marker", k_cluster_marker, "a packed cluster's marker claims a stream as long as the cluster (crc fixed)" },
	{ "compr-blocks", k_compr_blocks, "an inode's compr_blocks counter too high (crc fixed)" },
	{ "cp-compr", k_cp_compr, "checkpoint compr_logical_blocks counter too high" },
	{ "sb-incompat-unknown", k_sb_incompat_unknown, "both superblocks set an incompat feature bit no reader knows (crc fixed)" },
	{ "sb-compat-unknown", k_sb_compat_unknown, "both superblocks set a compat feature bit no reader knows (crc fixed)" },
	{ "cp-head-crc", k_cp_head_crc, "current checkpoint head: reserved byte changed, crc stale (checksum kind)" },
	{ "cp-trailer-mismatch", k_cp_trailer_mismatch, "current checkpoint trailer's head_crc does not match the head" },
	{ "cp-table-root", k_cp_table_root, "checkpoint table root nr_index beyond the superblock's maximum" },
	{ "cp-tindex-addr", k_cp_tindex_addr, "checkpoint payload: a table index address points into the main area" },
	{ "cp-log-past-wp", k_cp_log_past_wp, "checkpoint log head offset past the zone capacity / write pointer" },
	{ "cp-log-behind", k_cp_log_behind, "checkpoint log head offset 0 in a zone that holds owned blocks" },
	{ "cp-valid-blocks", k_cp_valid_blocks, "checkpoint valid_blocks counter too high" },
	{ "cp-prealloc", k_cp_prealloc, "checkpoint prealloc_blocks counter too high (space lost to no file)" },
	{ "cp-valid-inodes", k_cp_valid_inodes, "checkpoint valid_inodes counter wrong" },
	{ "cp-free-zones", k_cp_free_zones, "checkpoint free_zones counter wrong" },
	{ "cp-flags", k_cp_flags, "checkpoint flags carry an unknown bit" },
	{ "cp-payload-crc", k_cp_payload_crc, "current checkpoint payload block: bit flipped, crc stale (checksum kind)" },
	{ "orphan-live", k_orphan_live, "orphan list holds a live, linked inode" },
	{ "orphan-count", k_orphan_count, "nr_orphans far past the payload" },
	{ "orphan-free", k_orphan_free, "orphan list holds a free nid" },
	{ "imap-garbage", k_imap_garbage, "imap entry of a file points at another file's data block" },
	{ "imap-freed-nid", k_imap_freed_nid, "imap entry for a free nid points at a live inode's block" },
	{ "imap-range", k_imap_range, "imap entry of a file points beyond the device" },
	{ "imap-crc", k_imap_crc, "imap table block: bit flipped, crc stale (checksum kind)" },
	{ "tindex-crc", k_tindex_crc, "imap table index block: byte changed, crc stale (checksum kind)" },
	{ "zinfo-tindex-zero", k_zinfo_tindex_zero, "zone info table index block zeroed" },
	{ "cp-old-head-zero", k_cp_old_head_zero, "an older checkpoint pack's head zeroed, the current one after it in the same zone" },
	{ "zinfo-valid-high", k_zinfo_valid_high, "zone valid count too high" },
	{ "zinfo-valid-low", k_zinfo_valid_low, "zone valid count too low" },
	{ "zinfo-free-owned", k_zinfo_free_owned, "zone holding owned data marked FREE in zinfo" },
	{ "zinfo-log", k_zinfo_log, "zone's log type out of range" },
	{ "usage-bit-owned", k_usage_bit_owned, "usage bitmap: bit clear for an owned block" },
	{ "usage-bit-unowned", k_usage_bit_unowned, "usage bitmap: bit set for a block nothing owns" },
	{ "summary-owner", k_summary_owner, "summary of a data block names the wrong owner" },
	{ "summary-ofs", k_summary_ofs, "summary of a data block has the wrong slot" },
	{ "summary-type", k_summary_type, "summary of an inode block says data" },
	{ "inode-mode", k_inode_mode, "inode mode has no valid file type" },
	{ "inode-nlink-high", k_inode_nlink_high, "inode nlink higher than its names" },
	{ "inode-nlink-low", k_inode_nlink_low, "hard-linked inode nlink lower than its names" },
	{ "inode-nlink-zero", k_inode_nlink_zero, "linked inode with nlink 0" },
	{ "inode-size-small", k_inode_size_small, "file size far smaller than its mapped blocks" },
	{ "inode-size-inline", k_inode_size_inline, "inline file size larger than the inline area" },
	{ "inode-addr-range", k_inode_addr_range, "file block address beyond the device" },
	{ "inode-addr-meta", k_inode_addr_meta, "file block address inside the meta area" },
	{ "inode-addr-dup", k_inode_addr_dup, "file block address owned by another file too" },
	{ "inode-blocks", k_inode_blocks, "inode blocks count too high" },
	{ "inode-flags", k_inode_flags, "inode flags carry an unknown bit" },
	{ "inode-dirflag-file", k_inode_dirflag_on_file, "regular file with the dir_hashed flag" },
	{ "inode-inline-used", k_inode_inline_used, "inline_used beyond the inline area" },
	{ "inode-crc", k_inode_crc, "inode: bit flipped, crc stale (checksum kind)" },
	{ "inode-nid-bad", k_inode_nid_bad, "inode's direct node nid names a free nid" },
	{ "dir-parent", k_inode_parent, "directory '..' (inode.parent) names a directory without an entry for it" },
	{ "dir-nentries", k_dir_nentries, "directory entry count wrong" },
	{ "dnode-ino", k_dnode_ino, "direct node names the wrong owner inode" },
	{ "dnode-addr", k_dnode_addr, "direct node block address beyond the device" },
	{ "dnode-crc", k_dnode_crc, "direct node: bit flipped, crc stale (checksum kind)" },
	{ "ind-ino", k_ind_ino, "indirect node names the wrong owner inode" },
	{ "ind-nid", k_ind_nid, "indirect node child names a free nid" },
	{ "dirent-namelen", k_dirent_namelen, "directory record with name_len 0" },
	{ "dirent-reclen", k_dirent_reclen, "directory record whose rec_len runs past the region" },
	{ "dirent-slash", k_dirent_slash, "directory record name containing '/' (hash recomputed)" },
	{ "dirent-hash", k_dirent_hash, "directory record hash not that of its name" },
	{ "dirent-bucket", k_dirent_bucket, "hashed directory: record moved to the wrong bucket" },
	{ "dirent-free-ino", k_dirent_free_ino, "directory record points at a free inode" },
	{ "dirent-ftype", k_dirent_ftype, "directory record file type wrong" },
	{ "dirent-dup", k_dirent_dup, "directory record duplicated" },
	{ "dirent-crc", k_dirent_crc, "directory bucket block: bit flipped, crc stale (checksum kind)" },
	{ "unreachable", k_unreachable, "file's only name removed, inode left allocated" },
	{ "dir-loop", k_dir_loop, "directory record names its grandparent: a cycle" },
	{ "xattr-inline-len", k_xattr_inline_len, "inline xattr value_len runs past the region" },
	{ "xattr-inline-used", k_xattr_inline_used, "inline_xattr_used beyond the inline xattr area" },
	{ "xattr-index", k_xattr_index, "inline xattr with an unknown name index" },
	{ "xattr-node-len", k_xattr_node_len, "xattr node entry name_len runs past used" },
	{ "xattr-node-used", k_xattr_node_used, "xattr node used beyond its body" },
	{ "xattr-node-crc", k_xattr_node_crc, "xattr node: bit flipped, crc stale (checksum kind)" },
	{ "xattr-nid-free", k_xattr_nid_free, "inode's xattr_nid names a free nid" },
	{ NULL, NULL, NULL }
};

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: gaze-corrupt IMAGE KIND [SEED]\n"
"       gaze-corrupt --list\n"
"Damage an unmounted GAZE image made by mkfs.gaze in one named way\n"
"(a test tool).  SEED (default 1) picks the target among candidates.\n"
"Exit status: 0 done, 1 error or no candidate, 2 usage.\n");
}

static void
cx_open(struct cx *c)
{
	struct gaze_dev_open_opts o = { .rdonly = true };
	struct gaze_super s;
	int ret;

	c->fd = open(c->img, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		die(c, "%s: %s", c->img, strerror(errno));
	blk_read(c, 0, &s);
	if (!gaze_probe_gaze_block(&s))
		die(c, "%s: not a GAZE image", c->img);
	if (le32_to_cpu(s.zone_model) == GAZE_ZM_EMULATED)
		o.zone_blocks = le32_to_cpu(s.zone_blocks);
	ret = gaze_dev_open(c->img, &o, &c->dev);
	if (ret)
		die(c, "%s: %s", c->img, strerror(-ret));
	ret = gaze_fs_open(c->dev, GAZE_FS_RDONLY, &c->fs);
	if (ret)
		die(c, "%s: cannot open the filesystem: %d", c->img, ret);
	c->sb = &c->fs->sb;
}

int
main(int argc, char **argv)
{
	const struct kind *k;
	struct cx c = { 0 };
	uint64_t seed = 1;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (k = kinds; k->name; k++)
			printf("%-22s %s\n", k->name, k->desc);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (argc < 3 || argc > 4) {
		usage(stderr);
		return 2;
	}
	for (k = kinds; k->name; k++)
		if (!strcmp(k->name, argv[2]))
			break;
	if (!k->name) {
		fprintf(stderr, "gaze-corrupt: unknown kind '%s' (see --list)\n",
			argv[2]);
		return 2;
	}
	if (argc == 4 && gaze_uint_parse(argv[3], 0, UINT64_MAX, &seed)) {
		fprintf(stderr, "gaze-corrupt: bad seed '%s'\n", argv[3]);
		return 2;
	}
	c.img = argv[1];
	c.kind = k->name;
	c.rng = seed;
	cx_open(&c);
	walk(&c);
	printf("kind: %s seed: %llu\n", k->name, (unsigned long long)seed);
	k->fn(&c);
	if (fsync(c.fd))
		die(&c, "fsync: %s", strerror(errno));
	close(c.fd);
	free(c.pack_buf);
	for (u32 i = 0; i < c.ne; i++)
		free(c.e[i].path);
	free(c.e);
	gaze_fs_close(c.fs);
	gaze_dev_close(c.dev);
	return 0;
}
