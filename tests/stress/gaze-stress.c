// SPDX-License-Identifier: GPL-2.0
/*
 * gaze-stress.c - randomized stress of the shared core in userspace, in
 * the spirit of OpenZFS ztest.
 *
 * Why: the unit tests check each operation on its own; crash consistency
 * and the interplay of operations, implicit checkpoints, cache pressure
 * and power loss need long random runs against an independent model.
 *
 * What it does: formats a filesystem on the ZNS emulator (RAM, or a file
 * with --fsck), then runs T threads of random namespace operations
 * (create, mkdir, write at random offsets, truncate, fallocate (allocate,
 * KEEP_SIZE, zero range, punch hole), unlink, rename with
 * and without NOREPLACE/EXCHANGE, link, symlink, xattr set/remove, and
 * read/readdir/getattr compared with the model) on per-thread subtrees
 * plus a shared directory.  Every operation is applied to an in-memory
 * oracle as well; the oracle is snapshotted whenever a checkpoint commits
 * (an explicit gaze_fs_sync, or one the core writes by itself under cache
 * pressure: fs->cp_seq moves).  Between epochs it pulls the power
 * (gaze_emu_power_cut: writes since the last flush are partly lost),
 * abandons the instance, reopens and verifies the whole namespace (names,
 * inode numbers, types, sizes, content, symlink targets, xattrs, link
 * counts) against the snapshot of the last checkpoint, then continues from
 * that state.  Clean close + reopen is verified against the live oracle.
 *
 * Concurrency: the core serialises every entry point on fs->lock; the
 * harness additionally runs each operation and its oracle update under one
 * mutex (so the oracle order is the core's order and a checkpoint taken
 * inside an operation's balance covers exactly the operations before it).
 * Threads therefore vary the interleaving, not the parallelism, and make
 * it non-deterministic: --threads 1 reproduces a run exactly from --seed.
 *
 * Exit status: 0 all verified, 1 a mismatch or an unexpected error (the
 * first lines say what and where), 2 usage.
 */
#define _GNU_SOURCE
#include "gaze_core.h"
#include "gaze_zdev.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS	64
#define NAME_POOL	24		/* names n0..n23 in subtree dirs */
#define SHARED_POOL	160		/* more in the shared directory */
#define MAX_FILE	(384u << 10)	/* largest file the ops make */
#define XA_NAMES	8
#define MAX_DEPTH	6

/* ---------------------------------------------------------------- */
/* options and global state                                          */
/* ---------------------------------------------------------------- */
static struct {
	u64	seed;
	double	time_s;
	u64	ops;
	int	threads;
	u64	dev_bytes;
	u64	zone_bytes;
	u64	zone_cap;		/* --zone-cap: writable bytes, 0 all */
	long	power_cuts;		/* -1: unlimited */
	u32	max_open;		/* emulator open/active limit, 0 none */
	int	fsync_mix;		/* mostly writes and fsyncs */
	u8	compress_algo;		/* --compression: GAZE_COMPRESS_* */
	u8	compress_level;
	const char *fsck;
	int	verbose;
	int	readers;		/* --readers: threads outside G */
} opt = {
	.threads = 4,
	.dev_bytes = 192ull << 20,
	.zone_bytes = 1ull << 20,
	.power_cuts = -1,
};

static pthread_mutex_t G = PTHREAD_MUTEX_INITIALIZER;	/* op + oracle */
static struct gaze_dev *dev;
static struct gaze_fs *fs;
static char image_path[256];
/* set once by fail() (under G); read without G by th_main's loop: atomic */
static volatile int failed;
static u64 ops_done, ops_enospc, n_cuts, n_reopens, n_cps, n_verified;
static u64 n_fsyncs, n_rf_fsyncs, n_rf_one, n_rf_nodes;
static u64 n_gc;			/* explicit GC calls that moved a zone */
static u64 bytes_limit, objs_limit;
static u64 cut_cp_seq;			/* seq of the snapshot in use */
static bool cp_unsure;			/* see write_straddled_cp */
static u64 unsure_seq, n_straddled;
/*
 * --readers: rd_inos holds inode numbers the model had live when stored
 * (under G, after each operation); the reader threads, outside G, load
 * them; readers_stop ends their loop.  All atomic, so TSan sees the one
 * protocol.
 */
#define RD_INOS	64
#define RD_SCAN	64		/* model slots rd_publish looks at */
static u32 rd_inos[RD_INOS];
static int readers_stop;
static u64 n_reads;			/* reader calls, summed at the join */

static void __attribute__((format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	if (!failed) {
		fprintf(stderr, "gaze-stress: FAIL: ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, " (seed %" PRIu64 ")\n", opt.seed);
	}
	__atomic_store_n(&failed, 1, __ATOMIC_RELAXED);	/* th_main's loop */
}

static void __attribute__((format(printf, 1, 2)))
vlog(const char *fmt, ...)
{
	va_list ap;

	if (!opt.verbose)
		return;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static u64
rnd(u64 *s)
{
	/* splitmix64: good enough and seeds from any value */
	u64 z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static u64
rn(u64 *s, u64 n)		/* [0, n) */
{
	return n ? rnd(s) % n : 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "gaze-stress: out of memory\n");
		exit(1);
	}
	return p;
}

static void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "gaze-stress: out of memory\n");
		exit(1);
	}
	return p;
}

/* ---------------------------------------------------------------- */
/* oracle                                                            */
/* ---------------------------------------------------------------- */
struct oent {
	char	*name;
	u32	ino;
};

struct oxa {
	char	name[24];
	u8	*val;
	u32	len;
};

struct onode {
	u32	ino, mode;
	u64	size;			/* reg: bytes in data */
	u8	*data;
	char	*target;		/* symlink */
	struct oxa *xa;
	int	nxa;
	struct oent *ent;		/* dir */
	int	nent, ent_cap;
	u32	parent;			/* dir */
	u32	nlink;			/* non-dir: names */
	int	owner;			/* top-level subtree: thread, -1 shared,
					 * -2 none (root, lost+found) */
};

struct oracle {
	struct onode **n;
	u32	cap;
	u64	bytes;			/* file data held */
	u32	count;
};

static struct oracle live, snap;
static u32 root_ino;
static u32 top_dir[MAX_THREADS + 1];	/* [threads] = shared */

static struct onode *
o_get(struct oracle *o, u32 ino)
{
	return ino < o->cap ? o->n[ino] : NULL;
}

static void
o_put(struct oracle *o, struct onode *n)
{
	if (n->ino >= o->cap) {
		u32 cap = o->cap ? o->cap : 1024;

		while (cap <= n->ino)
			cap *= 2;
		o->n = xrealloc(o->n, cap * sizeof(*o->n));
		memset(o->n + o->cap, 0, (cap - o->cap) * sizeof(*o->n));
		o->cap = cap;
	}
	o->n[n->ino] = n;
	o->count++;
}

static void
onode_free(struct onode *n)
{
	int i;

	for (i = 0; i < n->nent; i++)
		free(n->ent[i].name);
	for (i = 0; i < n->nxa; i++)
		free(n->xa[i].val);
	free(n->ent);
	free(n->xa);
	free(n->data);
	free(n->target);
	free(n);
}

static struct onode *
onode_dup(const struct onode *s)
{
	struct onode *n = xmalloc(sizeof(*n));
	int i;

	*n = *s;
	n->data = NULL;
	if (s->size) {
		n->data = xmalloc(s->size);
		memcpy(n->data, s->data, s->size);
	}
	n->target = s->target ? strdup(s->target) : NULL;
	n->xa = s->nxa ? xmalloc(s->nxa * sizeof(*n->xa)) : NULL;
	for (i = 0; i < s->nxa; i++) {
		n->xa[i] = s->xa[i];
		n->xa[i].val = xmalloc(s->xa[i].len);
		memcpy(n->xa[i].val, s->xa[i].val, s->xa[i].len);
	}
	n->ent = NULL;
	n->ent_cap = s->nent;
	if (s->nent) {
		n->ent = xmalloc(s->nent * sizeof(*n->ent));
		for (i = 0; i < s->nent; i++) {
			n->ent[i].name = strdup(s->ent[i].name);
			n->ent[i].ino = s->ent[i].ino;
		}
	}
	return n;
}

static void
o_clear(struct oracle *o)
{
	u32 i;

	for (i = 0; i < o->cap; i++)
		if (o->n[i])
			onode_free(o->n[i]);
	free(o->n);
	memset(o, 0, sizeof(*o));
}

static void
o_copy(struct oracle *dst, const struct oracle *src)
{
	u32 i;

	o_clear(dst);
	dst->cap = src->cap;
	dst->n = xmalloc(src->cap * sizeof(*dst->n));
	for (i = 0; i < src->cap; i++)
		dst->n[i] = src->n[i] ? onode_dup(src->n[i]) : NULL;
	dst->bytes = src->bytes;
	dst->count = src->count;
}

static void
o_remove(struct oracle *o, u32 ino)
{
	struct onode *n = o->n[ino];

	o->bytes -= n->size;
	o->count--;
	onode_free(n);
	o->n[ino] = NULL;
}

static int
d_find(const struct onode *d, const char *name)
{
	int i;

	for (i = 0; i < d->nent; i++)
		if (!strcmp(d->ent[i].name, name))
			return i;
	return -1;
}

static void
d_add(struct onode *d, const char *name, u32 ino)
{
	if (d->nent == d->ent_cap) {
		d->ent_cap = d->ent_cap ? d->ent_cap * 2 : 8;
		d->ent = xrealloc(d->ent, d->ent_cap * sizeof(*d->ent));
	}
	d->ent[d->nent].name = strdup(name);
	d->ent[d->nent].ino = ino;
	d->nent++;
}

static void
d_del(struct onode *d, int i)
{
	free(d->ent[i].name);
	d->ent[i] = d->ent[--d->nent];
}

static bool
is_dir(const struct onode *n)
{
	return GAZE_S_ISDIR(n->mode);
}

/* drops one name of a non-directory, or a directory itself */
static void
o_unref(struct oracle *o, u32 ino)
{
	struct onode *n = o->n[ino];

	if (is_dir(n) || --n->nlink == 0)
		o_remove(o, ino);
}

/* a is d or below d */
static bool
o_below(struct oracle *o, u32 a, u32 d)
{
	int guard = 10000;

	while (guard--) {
		if (a == d)
			return true;
		if (a == root_ino)
			return false;
		a = o->n[a]->parent;
	}
	return false;
}

static void
o_set_owner(struct oracle *o, u32 ino, int owner)
{
	struct onode *n = o->n[ino];
	int i;

	n->owner = owner;
	if (is_dir(n))
		for (i = 0; i < n->nent; i++)
			o_set_owner(o, n->ent[i].ino, owner);
}

/* ---------------------------------------------------------------- */
/* verification                                                      */
/* ---------------------------------------------------------------- */
struct rd {
	char	**names;
	u32	*inos;
	u8	*dts;
	u32	n, cap;
	int	err;
};

static int
rd_fill(void *ctx, const char *name, u32 len, u32 ino, u8 dt, u64 cookie)
{
	struct rd *r = ctx;

	(void)cookie;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->names = xrealloc(r->names, r->cap * sizeof(char *));
		r->inos = xrealloc(r->inos, r->cap * sizeof(u32));
		r->dts = xrealloc(r->dts, r->cap);
	}
	r->names[r->n] = strndup(name, len);
	r->inos[r->n] = ino;
	r->dts[r->n] = dt;
	r->n++;
	return 0;
}

static void
rd_free(struct rd *r)
{
	u32 i;

	for (i = 0; i < r->n; i++)
		free(r->names[i]);
	free(r->names);
	free(r->inos);
	free(r->dts);
}

static u32
expect_nlink(struct oracle *o, const struct onode *n)
{
	u32 links = 2;
	int i;

	if (!is_dir(n))
		return n->nlink;
	for (i = 0; i < n->nent; i++)
		if (is_dir(o->n[n->ent[i].ino]))
			links++;
	return links;
}

/* attributes, content, target and xattrs of one inode; path for errors */
static int
verify_inode(struct oracle *o, const struct onode *n, const char *path)
{
	struct gaze_attr a;
	char *buf, list[4096];
	int err, i, len;

	err = gaze_ns_getattr(fs, n->ino, &a);
	if (err) {
		fail("%s: getattr ino %u: %d", path, n->ino, err);
		return -1;
	}
	if ((a.mode & GAZE_S_IFMT) != (n->mode & GAZE_S_IFMT) ||
	    (a.mode & 07777) != (n->mode & 07777)) {
		fail("%s: mode %o, expected %o", path, a.mode, n->mode);
		return -1;
	}
	if (a.nlink != expect_nlink(o, n)) {
		fail("%s: nlink %u, expected %u", path, a.nlink,
		     expect_nlink(o, n));
		return -1;
	}
	if (GAZE_S_ISREG(n->mode)) {
		if (a.size != n->size) {
			fail("%s: size %" PRIu64 ", expected %" PRIu64, path,
			     a.size, n->size);
			return -1;
		}
		buf = xmalloc(n->size + 4096);
		s64 r = gaze_file_read(fs, n->ino, buf, n->size + 4096, 0);

		if (r != (s64)n->size ||
		    (n->size && memcmp(buf, n->data, n->size))) {
			u64 k = 0;

			if (r > 0)
				while (k < (u64)r && k < n->size &&
				       buf[k] == (char)n->data[k])
					k++;
			fail("%s: read %" PRId64 " of %" PRIu64
			     " bytes, first difference at %" PRIu64, path, r,
			     n->size, k);
			free(buf);
			return -1;
		}
		free(buf);
	} else if (GAZE_S_ISLNK(n->mode)) {
		char t[GAZE_SYMLINK_MAX + 2];

		err = gaze_ns_readlink(fs, n->ino, t, sizeof(t));
		if (err < 0 || (u32)err != strlen(n->target) ||
		    memcmp(t, n->target, err)) {
			fail("%s: readlink %d, expected %zu bytes", path, err,
			     strlen(n->target));
			return -1;
		}
	}
	len = gaze_xattr_list(fs, n->ino, list, sizeof(list));
	if (len < 0) {
		fail("%s: xattr list: %d", path, len);
		return -1;
	}
	{
		int cnt = 0, p = 0;

		while (p < len) {
			const char *nm = list + p;
			bool found = false;

			for (i = 0; i < n->nxa; i++)
				if (!strcmp(n->xa[i].name, nm))
					found = true;
			if (!found) {
				fail("%s: unexpected xattr %s", path, nm);
				return -1;
			}
			cnt++;
			p += strlen(nm) + 1;
		}
		if (cnt != n->nxa) {
			fail("%s: %d xattrs, expected %d", path, cnt, n->nxa);
			return -1;
		}
	}
	for (i = 0; i < n->nxa; i++) {
		u8 v[4096];

		err = gaze_xattr_get(fs, n->ino, n->xa[i].name, v, sizeof(v));
		if (err < 0 || (u32)err != n->xa[i].len ||
		    memcmp(v, n->xa[i].val, err)) {
			fail("%s: xattr %s: %d, expected %u bytes", path,
			     n->xa[i].name, err, n->xa[i].len);
			return -1;
		}
	}
	n_verified++;
	return 0;
}

/* entries of directory d: names, inode numbers and types */
static int
verify_dirents(struct oracle *o, const struct onode *d, const char *path)
{
	struct rd r;
	u64 pos = 0;
	u32 i;
	int err, k, ret = 0;

	memset(&r, 0, sizeof(r));
	err = gaze_ns_readdir(fs, d->ino, &pos, rd_fill, &r);
	if (err) {
		fail("%s: readdir: %d", path, err);
		ret = -1;
		goto out;
	}
	if (r.n != (u32)d->nent) {
		fail("%s (ino %u): %u entries, expected %d", path, d->ino, r.n,
		     d->nent);
		for (i = 0; opt.verbose && i < r.n; i++)
			fprintf(stderr, "  got %s -> %u\n", r.names[i],
				r.inos[i]);
		for (k = 0; opt.verbose && k < d->nent; k++)
			fprintf(stderr, "  want %s -> %u\n", d->ent[k].name,
				d->ent[k].ino);
		ret = -1;
		goto out;
	}
	for (i = 0; i < r.n; i++) {
		k = d_find(d, r.names[i]);
		if (k < 0) {
			fail("%s: unexpected entry %s", path, r.names[i]);
			ret = -1;
			goto out;
		}
		if (r.inos[i] != d->ent[k].ino ||
		    r.dts[i] != GAZE_MODE_DTYPE(o->n[d->ent[k].ino]->mode)) {
			fail("%s/%s: ino %u type %u, expected %u type %u",
			     path, r.names[i], r.inos[i], r.dts[i],
			     d->ent[k].ino,
			     GAZE_MODE_DTYPE(o->n[d->ent[k].ino]->mode));
			ret = -1;
			goto out;
		}
	}
out:
	rd_free(&r);
	return ret;
}

static int
verify_tree(struct oracle *o, u32 ino, const char *path, u8 *seen)
{
	struct onode *n = o_get(o, ino);
	char sub[4096];
	int i;

	if (!n) {
		fail("%s: inode %u missing from the model", path, ino);
		return -1;
	}
	if (seen[ino]++)
		return 0;		/* a hard link seen before */
	if (verify_inode(o, n, path))
		return -1;
	if (!is_dir(n))
		return 0;
	if (verify_dirents(o, n, path))
		return -1;
	for (i = 0; i < n->nent; i++) {
		u32 lookup_ino;
		u8 dt;
		int err;

		snprintf(sub, sizeof(sub), "%s/%s", path, n->ent[i].name);
		err = gaze_ns_lookup(fs, ino, n->ent[i].name,
				     strlen(n->ent[i].name), &lookup_ino, &dt);
		if (err || lookup_ino != n->ent[i].ino) {
			fail("%s: lookup %d ino %u, expected %u", sub, err,
			     err ? 0 : lookup_ino, n->ent[i].ino);
			return -1;
		}
		if (verify_tree(o, n->ent[i].ino, sub, seen))
			return -1;
	}
	return 0;
}

static int
verify_all(struct oracle *o, const char *when)
{
	u8 *seen = calloc(o->cap ? o->cap : 1, 1);
	u32 i;
	int ret;

	ret = verify_tree(o, root_ino, "", seen);
	for (i = 0; !ret && i < o->cap; i++)
		if (o->n[i] && !seen[i]) {
			fail("model inode %u unreachable", i);
			ret = -1;
		}
	free(seen);
	if (ret)
		fprintf(stderr, "gaze-stress: verification %s failed\n", when);
	else
		vlog("verified %s: %u inodes, %" PRIu64 " bytes", when,
		     o->count, o->bytes);
	return ret;
}

/* ---------------------------------------------------------------- */
/* operations (called with G held)                                   */
/* ---------------------------------------------------------------- */
struct th {
	int	id;
	u64	rs;
	u64	nops;
	pthread_t tid;
};

static struct gaze_attr
mkattr(u32 mode)
{
	struct gaze_attr a;

	memset(&a, 0, sizeof(a));
	a.mode = mode;
	a.uid = 1000;
	a.gid = 1000;
	a.atime = a.mtime = a.ctime = a.crtime = 1700000000;
	return a;
}

static bool
may_use(int owner, int tid)
{
	return owner == tid || owner == -1;
}

/* a random inode the thread may use: kind 0 any, 1 dir, 2 reg, 3 non-dir */
static u32
pick(struct th *t, int kind)
{
	u32 i, cnt = 0, k, *cand = xmalloc(live.cap * sizeof(u32));

	for (i = 0; i < live.cap; i++) {
		struct onode *n = live.n[i];

		if (!n || !may_use(n->owner, t->id))
			continue;
		if ((kind == 1 && !is_dir(n)) ||
		    (kind == 2 && !GAZE_S_ISREG(n->mode)) ||
		    (kind == 3 && is_dir(n)))
			continue;
		cand[cnt++] = i;
	}
	k = cnt ? cand[rn(&t->rs, cnt)] : 0;
	free(cand);
	return k;
}

static int
depth_of(u32 ino)
{
	int d = 0;

	while (ino != root_ino && d < 100) {
		ino = live.n[ino]->parent;
		d++;
	}
	return d;
}

static void
rand_name(struct th *t, u32 dir, char *name)
{
	u32 pool = live.n[dir]->owner == -1 ? SHARED_POOL : NAME_POOL;

	if (!rn(&t->rs, 40)) {		/* now and then a long name */
		u32 len = 100 + rn(&t->rs, 156), i;

		for (i = 0; i < len; i++)
			name[i] = 'a' + rn(&t->rs, 3);
		name[len] = 0;
		return;
	}
	sprintf(name, "n%u", (u32)rn(&t->rs, pool));
}

/* an existing entry (dir, index) the thread may use */
static bool
pick_entry(struct th *t, u32 *dir, int *idx)
{
	int tries;

	for (tries = 0; tries < 8; tries++) {
		struct onode *d;

		*dir = pick(t, 1);
		d = o_get(&live, *dir);
		if (!d || !d->nent)
			continue;
		*idx = rn(&t->rs, d->nent);
		return true;
	}
	return false;
}

static void
fill_rand(u64 *rs, u8 *p, u64 len)
{
	u64 i, v = 0;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			v = rnd(rs);
		p[i] = (u8)(v >> ((i & 7) * 8));
	}
}

/* ok: the result the model expects (0 or -errno); got: the core's */
static bool
outcome_ok(const char *op, int want, int got)
{
	if (got == -ENOSPC) {
		ops_enospc++;
		vlog("%s: ENOSPC", op);
		return true;	/* the model was left alone */
	}
	if (want == 0 && got == 0)
		return true;
	if (want < 0 && got < 0) {
		if (want != got)
			vlog("%s: error %d, model expected %d", op, got, want);
		return true;
	}
	fail("%s: core returned %d, model expected %d", op, got, want);
	return false;
}

static void
op_create(struct th *t, bool dir)
{
	u32 d = pick(t, 1), ino = 0;
	struct onode *dn = o_get(&live, d), *n;
	struct gaze_attr a;
	char name[300];
	int want, got;

	if (!dn || live.count >= objs_limit || (dir && depth_of(d) >= MAX_DEPTH))
		return;
	rand_name(t, d, name);
	a = mkattr(dir ? 040700 | (u32)rn(&t->rs, 0100) :
			 0100600 | (u32)rn(&t->rs, 0100));
	want = d_find(dn, name) >= 0 ? -EEXIST : 0;
	got = gaze_ns_mknod(fs, d, name, strlen(name), &a, &ino);
	vlog("%s %u/%s: %d ino %u", dir ? "mkdir" : "create", d, name, got,
	     got ? 0 : ino);
	if (!outcome_ok(dir ? "mkdir" : "create", want, got) || got)
		return;
	if (o_get(&live, ino)) {
		fail("create %s: new ino %u is in use", name, ino);
		return;
	}
	n = calloc(1, sizeof(*n));
	n->ino = ino;
	n->mode = a.mode;
	n->nlink = 1;
	n->parent = d;
	n->owner = dn->owner;
	o_put(&live, n);
	d_add(dn, name, ino);
}

static void
op_symlink(struct th *t)
{
	u32 d = pick(t, 1), ino = 0, tlen, i;
	struct onode *dn = o_get(&live, d), *n;
	struct gaze_attr a = mkattr(0120777);
	char name[300], *target;
	int want, got;

	if (!dn || live.count >= objs_limit)
		return;
	rand_name(t, d, name);
	tlen = rn(&t->rs, 8) ? 1 + rn(&t->rs, 60) : 1 + rn(&t->rs, 4095);
	target = xmalloc(tlen + 1);
	for (i = 0; i < tlen; i++)
		target[i] = 'A' + rn(&t->rs, 26);
	target[tlen] = 0;
	want = d_find(dn, name) >= 0 ? -EEXIST : 0;
	got = gaze_ns_symlink(fs, d, name, strlen(name), target, tlen, &a, &ino);
	vlog("symlink %u/%s: %d ino %u", d, name, got, got ? 0 : ino);
	if (!outcome_ok("symlink", want, got) || got) {
		free(target);
		return;
	}
	n = calloc(1, sizeof(*n));
	n->ino = ino;
	n->mode = a.mode;
	n->nlink = 1;
	n->target = target;
	n->owner = dn->owner;
	o_put(&live, n);
	d_add(dn, name, ino);
}

/*
 * A checkpoint committed during a write may come from the write's
 * opening balance (ns_write_chunks in core/namei.c), before the write
 * changed anything, and then covers only what came before it; the
 * snapshot taken after the operation would count the write as durable.
 * So another checkpoint, which certainly covers it, is taken at once.
 * When that one fails for space, no snapshot is taken and no power is
 * cut until a later checkpoint covers everything.
 */
static void
write_straddled_cp(void)
{
	int err = gaze_fs_sync(fs);

	if (!err) {
		n_straddled++;
		return;
	}
	if (err != -ENOSPC) {
		fail("sync after a write that a checkpoint split: %d", err);
		return;
	}
	ops_enospc++;
	cp_unsure = true;
	unsure_seq = fs->cp_seq;
}

/* the first 64 bytes of buf repeated: compresses well */
static void
fill_repeat(u8 *buf, u64 len)
{
	u64 i;

	for (i = 64; i < len; i++)
		buf[i] = buf[i & 63];
}

static void
op_write(struct th *t)
{
	u64 seq;
	u32 ino = pick(t, 2);
	struct onode *n = o_get(&live, ino);
	u64 off, len, end;
	u8 *buf;
	s64 got;

	if (!n)
		return;
	switch (rn(&t->rs, 4)) {
	case 0:				/* append */
		off = n->size;
		break;
	case 1:				/* block aligned */
		off = rn(&t->rs, MAX_FILE / 4096) * 4096;
		break;
	default:
		off = rn(&t->rs, n->size + 8192);
	}
	len = rn(&t->rs, 3) ? 1 + rn(&t->rs, 9000) : 1 + rn(&t->rs, 65536);
	if (off >= MAX_FILE)
		off = rn(&t->rs, MAX_FILE);
	if (off + len > MAX_FILE)
		len = MAX_FILE - off;
	end = off + len;
	if (end > n->size && live.bytes + (end - n->size) > bytes_limit)
		return;
	buf = xmalloc(len);
	fill_rand(&t->rs, buf, len);
	if (opt.compress_algo && rn(&t->rs, 4))
		fill_repeat(buf, len);	/* mostly data that compresses */
	seq = fs->cp_seq;
	got = gaze_file_write(fs, ino, buf, len, off);
	vlog("write ino %u off %" PRIu64 " len %" PRIu64 " size %" PRIu64
	     ": %" PRId64, ino, off, len, n->size, got);
	if (got == -ENOSPC) {
		ops_enospc++;
	} else if (got < 0 || (u64)got > len) {
		fail("write ino %u off %" PRIu64 " len %" PRIu64 ": %" PRId64,
		     ino, off, len, got);
	} else {
		if ((u64)got < len)
			vlog("short write %" PRId64 " of %" PRIu64, got, len);
		end = off + got;
		if (end > n->size) {
			n->data = xrealloc(n->data, end);
			memset(n->data + n->size, 0, end - n->size);
			live.bytes += end - n->size;
			n->size = end;
		}
		if (got)
			memcpy(n->data + off, buf, got);
	}
	free(buf);
	if (fs->cp_seq != seq)
		write_straddled_cp();
}

/* fallocate: allocate (maybe KEEP_SIZE), zero range or punch hole */
static void
op_falloc(struct th *t, u32 ino, struct onode *n)
{
	static const u32 modes[] = {
		0, GAZE_FALLOC_KEEP_SIZE, GAZE_FALLOC_ZERO_RANGE,
		GAZE_FALLOC_ZERO_RANGE | GAZE_FALLOC_KEEP_SIZE,
		GAZE_FALLOC_PUNCH_HOLE | GAZE_FALLOC_KEEP_SIZE,
	};
	u32 mode = modes[rn(&t->rs, 5)];
	u64 off = rn(&t->rs, MAX_FILE - 1), len = 1 + rn(&t->rs, 65536);
	u64 end, zend;
	int got;

	if (off + len > MAX_FILE)
		len = MAX_FILE - off;
	end = off + len;
	if (end > n->size && live.bytes + (end - n->size) > bytes_limit)
		return;
	got = gaze_file_fallocate(fs, ino, mode, off, len);
	vlog("fallocate ino %u mode %#x %" PRIu64 "+%" PRIu64 " size %" PRIu64
	     ": %d", ino, mode, off, len, n->size, got);
	if (!outcome_ok("fallocate", 0, got) || got)
		return;
	zend = end < n->size ? end : n->size;
	if ((mode & (GAZE_FALLOC_ZERO_RANGE | GAZE_FALLOC_PUNCH_HOLE)) &&
	    off < zend)
		memset(n->data + off, 0, zend - off);
	if (!(mode & GAZE_FALLOC_KEEP_SIZE) && end > n->size) {
		n->data = xrealloc(n->data, end);
		memset(n->data + n->size, 0, end - n->size);
		live.bytes += end - n->size;
		n->size = end;
	}
}

static void
op_truncate(struct th *t)
{
	u32 ino = pick(t, 2);
	struct onode *n = o_get(&live, ino);
	u64 size;
	int got;

	if (!n)
		return;
	if (!rn(&t->rs, 3)) {
		op_falloc(t, ino, n);
		return;
	}
	switch (rn(&t->rs, 4)) {
	case 0:
		size = 0;
		break;
	case 1:
		size = n->size / 2;
		break;
	case 2:
		size = rn(&t->rs, MAX_FILE);
		break;
	default:
		size = n->size + rn(&t->rs, 20000);
	}
	if (size > n->size && live.bytes + (size - n->size) > bytes_limit)
		return;
	got = gaze_file_truncate(fs, ino, size);
	vlog("truncate ino %u %" PRIu64 " -> %" PRIu64 ": %d", ino, n->size,
	     size, got);
	if (!outcome_ok("truncate", 0, got) || got)
		return;
	if (size > n->size) {
		n->data = xrealloc(n->data, size);
		memset(n->data + n->size, 0, size - n->size);
	}
	live.bytes += size;
	live.bytes -= n->size;
	n->size = size;
}

static void
op_unlink(struct th *t)
{
	u32 d;
	int i, want, got;
	struct onode *dn, *n;
	char *name;

	if (!pick_entry(t, &d, &i))
		return;
	dn = live.n[d];
	n = live.n[dn->ent[i].ino];
	if (n->owner == -2 || (dn->ino == root_ino))
		return;			/* lost+found, top directories */
	name = strdup(dn->ent[i].name);
	want = is_dir(n) && n->nent ? -ENOTEMPTY : 0;
	got = gaze_ns_unlink(fs, d, name, strlen(name));
	vlog("unlink %u/%s: %d", d, name, got);
	if (outcome_ok("unlink", want, got) && !got) {
		u32 ino = dn->ent[i].ino;

		d_del(dn, i);
		o_unref(&live, ino);
	}
	free(name);
}

static void
op_link(struct th *t)
{
	u32 ino = pick(t, 3), d = pick(t, 1);
	struct onode *n = o_get(&live, ino), *dn = o_get(&live, d);
	char name[300];
	int want, got;

	if (!n || !dn)
		return;
	rand_name(t, d, name);
	want = d_find(dn, name) >= 0 ? -EEXIST : 0;
	got = gaze_ns_link(fs, d, name, strlen(name), ino);
	vlog("link %u -> %u/%s: %d", ino, d, name, got);
	if (!outcome_ok("link", want, got) || got)
		return;
	n->nlink++;
	d_add(dn, name, ino);
}

/* the model's answer to rename, or 0 and the change applied */
static int
model_rename(u32 od, const char *on, u32 nd, const char *nn, u32 flags,
	     bool apply)
{
	struct onode *odn = live.n[od], *ndn = live.n[nd], *s, *x = NULL;
	int si = d_find(odn, on), di = d_find(ndn, nn);

	if (si < 0)
		return -ENOENT;
	s = live.n[odn->ent[si].ino];
	if (di >= 0)
		x = live.n[ndn->ent[di].ino];
	if ((flags & GAZE_RENAME_EXCHANGE) && !x)
		return -ENOENT;
	/* like the VFS: NOREPLACE on an existing name fails even when it
	 * is the same inode */
	if ((flags & GAZE_RENAME_NOREPLACE) && x)
		return -EEXIST;
	if (x && x->ino == s->ino)
		return 0;
	if (is_dir(s) && o_below(&live, nd, s->ino))
		return -EINVAL;
	if (flags & GAZE_RENAME_EXCHANGE) {
		if (is_dir(x) && o_below(&live, od, x->ino))
			return -EINVAL;
		if (!apply)
			return 0;
		odn->ent[si].ino = x->ino;
		ndn->ent[di].ino = s->ino;
		if (is_dir(s))
			s->parent = nd;
		if (is_dir(x))
			x->parent = od;
		o_set_owner(&live, s->ino, ndn->owner);
		o_set_owner(&live, x->ino, odn->owner);
		return 0;
	}
	if (x) {
		if (is_dir(s) && !is_dir(x))
			return -ENOTDIR;
		if (!is_dir(s) && is_dir(x))
			return -EISDIR;
		if (is_dir(x) && x->nent)
			return -ENOTEMPTY;
	}
	if (!apply)
		return 0;
	if (x) {
		ndn->ent[di].ino = s->ino;
		o_unref(&live, x->ino);
	} else {
		d_add(ndn, nn, s->ino);
	}
	si = d_find(odn, on);		/* d_add may have moved it */
	d_del(odn, si);
	if (is_dir(s))
		s->parent = nd;
	o_set_owner(&live, s->ino, ndn->owner);
	return 0;
}

static void
op_rename(struct th *t)
{
	u32 od, nd, flags = 0;
	int i, want, got;
	char on[300], nn[300];
	struct onode *s;

	if (!pick_entry(t, &od, &i))
		return;
	s = live.n[live.n[od]->ent[i].ino];
	if (s->owner == -2 || od == root_ino)
		return;
	strcpy(on, live.n[od]->ent[i].name);
	nd = pick(t, 1);
	if (!nd || nd == root_ino)
		return;
	if (rn(&t->rs, 3) == 0 && live.n[nd]->nent) {
		/* onto an existing name */
		strcpy(nn, live.n[nd]->ent[rn(&t->rs, live.n[nd]->nent)].name);
	} else {
		rand_name(t, nd, nn);
	}
	switch (rn(&t->rs, 6)) {
	case 0:
		flags = GAZE_RENAME_NOREPLACE;
		break;
	case 1:
	case 2:
		flags = GAZE_RENAME_EXCHANGE;
		break;
	}
	if (flags & GAZE_RENAME_EXCHANGE) {
		int di = d_find(live.n[nd], nn);

		if (di >= 0 && live.n[live.n[nd]->ent[di].ino]->owner == -2)
			return;
	}
	want = model_rename(od, on, nd, nn, flags, false);
	got = gaze_ns_rename(fs, od, on, strlen(on), nd, nn, strlen(nn), flags, NULL);
	vlog("rename %u/%s -> %u/%s flags %u: %d (model %d)", od, on, nd, nn,
	     flags, got, want);
	if (outcome_ok("rename", want, got) && !got && !want)
		model_rename(od, on, nd, nn, flags, true);
}

static void
op_xattr(struct th *t)
{
	u32 ino = pick(t, 0);
	struct onode *n = o_get(&live, ino);
	char name[24];
	int i, k, got;

	if (!n)
		return;
	sprintf(name, "user.x%u", (u32)rn(&t->rs, XA_NAMES));
	for (k = -1, i = 0; i < n->nxa; i++)
		if (!strcmp(n->xa[i].name, name))
			k = i;
	if (rn(&t->rs, 3) == 0) {
		got = gaze_xattr_remove(fs, ino, name);
		if (!outcome_ok("xattr remove", k < 0 ? -ENODATA : 0, got) ||
		    got)
			return;
		free(n->xa[k].val);
		n->xa[k] = n->xa[--n->nxa];
	} else {
		u32 len = rn(&t->rs, 4) ? rn(&t->rs, 64) : rn(&t->rs, 1500);
		int flags = (int)rn(&t->rs, 3);
		u8 *v = xmalloc(len);
		int want = 0;

		fill_rand(&t->rs, v, len);
		if (flags == 1 && k >= 0)
			want = -EEXIST;
		if (flags == 2 && k < 0)
			want = -ENODATA;
		got = gaze_xattr_set(fs, ino, name, v, len, flags);
		/* a full xattr area: -ENOSPC or -E2BIG, nothing changed */
		if (got == -E2BIG) {
			free(v);
			return;
		}
		if (!outcome_ok("xattr set", want, got) || got) {
			free(v);
			return;
		}
		if (k < 0) {
			n->xa = xrealloc(n->xa, (n->nxa + 1) * sizeof(*n->xa));
			k = n->nxa++;
			strcpy(n->xa[k].name, name);
		} else {
			free(n->xa[k].val);
		}
		n->xa[k].val = v;
		n->xa[k].len = len;
	}
}

static void
op_check(struct th *t)
{
	u32 ino = pick(t, 0);
	struct onode *n = o_get(&live, ino);

	if (!n)
		return;
	vlog("check ino %u", ino);
	if (verify_inode(&live, n, "(live)"))
		return;
	if (is_dir(n))
		verify_dirents(&live, n, "(live dir)");
}

static void
snapshot_if_cp(void)
{
	if (cp_unsure && fs->cp_seq == unsure_seq)
		return;
	cp_unsure = false;
	if (fs->cp_seq != cut_cp_seq) {
		o_copy(&snap, &live);
		cut_cp_seq = fs->cp_seq;
		n_cps++;
		vlog("checkpoint %" PRIu64, cut_cp_seq);
	}
}

static void
op_sync(void)
{
	int err = gaze_fs_sync(fs);

	if (err && err != -ENOSPC)
		fail("sync: %d", err);
	if (err == -ENOSPC)
		ops_enospc++;
}

static void snapshot_if_cp(void);

/*
 * fsync: everything the core holds becomes durable, by roll-forward when
 * it can replay what changed, else by a checkpoint; either way the state
 * a power cut must bring back is the live one.
 */
static void
op_fsync(void)
{
	u64 seq = fs->cp_seq;
	int err = gaze_fs_fsync(fs);

	if (err == -ENOSPC) {
		ops_enospc++;
		return;
	}
	if (err)
		fail("fsync: %d", err);
	snapshot_if_cp();
	o_copy(&snap, &live);
	n_fsyncs++;
	if (fs->cp_seq == seq)
		n_rf_fsyncs++;
}

/*
 * fsync of one file.  A checkpoint, or a roll-forward of everything,
 * makes the live state durable, as op_fsync.  When the core wrote only
 * that file's nodes (other changes were pending that roll-forward of the
 * whole state cannot replay), only that file becomes durable: the
 * snapshot takes the live file in place of its own.  The core does so
 * only for a file no namespace operation touched since the checkpoint,
 * so the snapshot has it, under the same names.
 */
static void
op_fsync_one(struct th *t)
{
	u32 ino = pick(t, 2);
	struct onode *n = o_get(&live, ino), *s;
	u64 seq = fs->cp_seq, one = fs->stat[GAZE_STAT_FSYNC_ONE];
	int err;

	if (!n)
		return;
	err = gaze_fs_fsync_ino(fs, ino);
	if (err == -ENOSPC) {
		ops_enospc++;
		return;
	}
	if (err)
		fail("fsync of inode %u: %d", ino, err);
	n_fsyncs++;
	if (fs->cp_seq != seq) {
		snapshot_if_cp();
		return;
	}
	n_rf_fsyncs++;
	if (fs->stat[GAZE_STAT_FSYNC_ONE] == one) {
		o_copy(&snap, &live);
		return;
	}
	n_rf_one++;
	s = o_get(&snap, ino);
	if (!s || s->nlink != n->nlink) {
		fail("fsync of inode %u alone: the checkpoint's snapshot has it %s",
		     ino, s ? "with another link count" : "not");
		return;
	}
	snap.bytes -= s->size;
	onode_free(s);
	snap.n[ino] = onode_dup(n);
	snap.bytes += n->size;
}

/* deletes a subtree's files when space runs short: frees whole zones */
static void
op_purge(struct th *t)
{
	u32 d = pick(t, 1);
	struct onode *dn = o_get(&live, d);
	int i;

	if (!dn)
		return;
	for (i = dn->nent - 1; i >= 0; i--) {
		struct onode *n = live.n[dn->ent[i].ino];
		char *name;
		int got;

		if (n->owner == -2 || (is_dir(n) && n->nent) || d == root_ino)
			continue;
		name = strdup(dn->ent[i].name);
		got = gaze_ns_unlink(fs, d, name, strlen(name));
		vlog("purge %u/%s: %d", d, name, got);
		if (outcome_ok("purge unlink", 0, got) && !got) {
			u32 ino = dn->ent[i].ino;

			d_del(dn, i);
			o_unref(&live, ino);
		}
		free(name);
		/* a checkpoint inside this unlink covers only the unlinks
		 * before it */
		snapshot_if_cp();
	}
}

/*
 * Explicit garbage collection between operations: a forced background
 * step (one victim, then a checkpoint when zones wait) or a foreground
 * round asking for a random amount of room.  The core also collects on
 * its own when writes run short of zones.
 */
static void
op_gc(struct th *t)
{
	u64 before = fs->gc.zones_reclaimed;
	bool more;
	int err;

	mutex_lock(&fs->lock);
	if (rn(&t->rs, 2))
		err = gaze_gc_background(fs, 100, 100, GAZE_GC_BG_FORCE, &more);
	else
		err = gaze_gc_balance(fs, rn(&t->rs, 4096));
	mutex_unlock(&fs->lock);
	if (err == -ENOSPC)
		ops_enospc++;
	else if (err)
		fail("gc: %d", err);
	if (fs->gc.zones_reclaimed > before)
		n_gc++;
}

/*
 * The staged GC (gcpipe.c), one stage per call, so that other operations
 * (and checkpoints, cache evictions, power cuts at epoch ends) fall
 * between its stages as they do when the module runs them on threads.
 * gp is G's, like the model: every stage runs under G, except the read
 * stage and the write stage's device write with --readers, which mark
 * the job 6 under G, drop G while they read into gp.b or write from it
 * (no other thread touches gp while the stage is 6) and take G back to
 * move on.  Preread and prewrite run with fs->miss set, as the module
 * runs them (gaze_gcp_preread_unlocked): a block they do not find
 * cached stops the try (8: preread's, 9: prewrite's miss named), a
 * later call fetches it without fs->lock (and without G with
 * --readers), and the stage goes on where it stopped, so overwrites,
 * checkpoints, zone resets and power cuts fall between a miss and its
 * use.  gp_abandon drops a job when the instance goes away.
 */
static struct {
	struct gaze_gcp_job	job;
	struct gaze_gcp_batch	b;
	u8			*pages;
	int			stage;		/* 0: no job; 1..4 next stage,
						 * 7 the write stage's commit,
						 * 6 read stage or the write
						 * stage's device write under
						 * way outside G (--readers),
						 * 8/9 a miss of stage 1/3
						 * to fetch */
	struct gaze_miss	m;		/* preread's and prewrite's */
	u64			jobs;		/* jobs that ended reclaiming */
	u64			cold;		/* misses fetched */
} gp;

/* a try of stage 1 or 3 with fs->miss set (fs->lock held) */
static int
gp_try(struct th *t, bool pre)
{
	bool fresh = pre ? !gp.b.pr_more : !gp.b.pw_next;
	int err;

	if (fresh) {		/* a new batch: GAZE_MISS_TRIES again */
		gaze_miss_exit(&gp.m);
		gaze_miss_init(&gp.m);
	}
	fs->miss = &gp.m;
	if (pre)
		err = gaze_gcp_preread(fs, &gp.job, &gp.b,
				       1 + (u32)rn(&t->rs, GAZE_GCP_BATCH));
	else
		err = gaze_gcp_prewrite(fs, &gp.b);
	fs->miss = NULL;
	return err;
}

static void
gp_abandon(void)
{
	/*
	 * A write stage between its device write and its commit ends
	 * first: the instance still points at the move (fs->gcw), and the
	 * close's checkpoint would commit it after it was freed.
	 */
	if (gp.b.move && fs) {
		mutex_lock(&fs->lock);
		gaze_gcp_write_end(fs, &gp.b);
		mutex_unlock(&fs->lock);
	}
	gp.b.pr_more = false;
	gp.b.pw_next = 0;
	gp.stage = 0;
}

static int
gp_step(struct th *t)
{
	int err = 0;
	u32 i;

	switch (gp.stage) {
	case 0:
		err = gaze_gcp_begin(fs, GAZE_GCP_ANY, GAZE_GC_USER,
				     &gp.job);
		if (err == -ENOENT || err == -ENOSPC || err == -EBUSY)
			return 0;
		gp.stage = err ? 0 : 1;
		return err;
	case 1:
		err = gp_try(t, true);
		if (err == -GAZE_EMISS) {
			gp.stage = 8;
			return 0;
		}
		for (i = 0; i < gp.b.nr; i++)
			gp.b.ent[i].buf = gp.pages + (size_t)i * GAZE_BLOCK_SIZE;
		gp.stage = err || !gp.b.nr ? 5 : 2;
		return 0;
	case 3:
		gp.stage = gp_try(t, false) == -GAZE_EMISS ? 9 : 4;
		return 0;
	case 7:
		gaze_gcp_write_end(fs, &gp.b);
		gp.stage = gp.job.err || gp.job.scanned ? 5 : 1;
		return 0;
	default:
		gp.stage = 0;
		err = gaze_gcp_end(fs, &gp.job);
		if (!err)
			gp.jobs++;
		return err;
	}
}

static void
op_gcpipe(struct th *t)
{
	int err;

	if (!gp.pages) {
		gp.pages = malloc((size_t)GAZE_GCP_BATCH * GAZE_BLOCK_SIZE);
		gp.b.gap = malloc(GAZE_BLOCK_SIZE);
		gp.b.gap_max = GAZE_GCP_GAP;
	}
	if (gp.stage == 6)		/* another thread is reading */
		return;
	if (gp.stage == 8 || gp.stage == 9) {	/* a miss: no fs->lock */
		int next = gp.stage == 8 ? 1 : 3;

		if (opt.readers) {
			gp.stage = 6;
			pthread_mutex_unlock(&G);
			gaze_miss_fetch(fs, &gp.m, -GAZE_EMISS);
			pthread_mutex_lock(&G);
		} else {
			gaze_miss_fetch(fs, &gp.m, -GAZE_EMISS);
		}
		gp.cold++;
		gp.stage = next;
		return;
	}
	if (gp.stage == 2) {		/* read: without fs->lock */
		if (opt.readers) {	/* and without G, as in the module */
			gp.stage = 6;
			pthread_mutex_unlock(&G);
			gaze_gcp_read(fs, &gp.b);
			pthread_mutex_lock(&G);
		} else {
			gaze_gcp_read(fs, &gp.b);
		}
		gp.stage = 3;
		return;
	}
	if (gp.stage == 4) {
		/*
		 * The write stage as the module runs it: the copies written
		 * without fs->lock (and without G with --readers), the commit
		 * a later step, so checkpoints, power cuts and writes to the
		 * same log fall between the device write and the commit
		 */
		mutex_lock(&fs->lock);
		gaze_gcp_write_begin(fs, &gp.b);
		mutex_unlock(&fs->lock);
		if (opt.readers) {
			gp.stage = 6;
			pthread_mutex_unlock(&G);
			gaze_gcp_write_io(fs, &gp.b);
			pthread_mutex_lock(&G);
		} else {
			gaze_gcp_write_io(fs, &gp.b);
		}
		gp.stage = 7;
		return;
	}
	mutex_lock(&fs->lock);
	err = gp_step(t);
	mutex_unlock(&fs->lock);
	if (err == -ENOSPC)
		ops_enospc++;
	else if (err)
		fail("staged gc: %d", err);
}

/* the core reads cache_limit under fs->lock (cache_insert) */
static void
op_cache_limit(struct th *t)
{
	mutex_lock(&fs->lock);
	fs->cache_limit = (64u << 10) << rn(&t->rs, 10);
	mutex_unlock(&fs->lock);
}

/* --fsync-mix: files are made now and then, mostly written and fsync'd */
static void
fsync_mix_op(struct th *t, u64 r)
{
	if (r < 25)
		op_create(t, false);
	else if (r < 35)
		op_unlink(t);
	else if (r < 500)
		op_write(t);
	else if (r < 560)
		op_truncate(t);
	else if (r < 620)
		op_xattr(t);
	else if (r < 760)
		op_check(t);
	else if (r < 860)
		op_fsync();
	else if (r < 960)
		op_fsync_one(t);
	else if (r < 970)
		op_sync();
	else if (r < 980 && rn(&t->rs, 3))
		op_gcpipe(t);
	else if (r < 980)
		op_gc(t);
	else if (r < 990)
		op_purge(t);
	else
		op_cache_limit(t);
}

static void
one_op(struct th *t)
{
	u64 r = rn(&t->rs, 1000);
	u64 before = ops_enospc;

	if (opt.fsync_mix)
		fsync_mix_op(t, r);
	else if (r < 120)
		op_create(t, false);
	else if (r < 170)
		op_create(t, true);
	else if (r < 400)
		op_write(t);
	else if (r < 470)
		op_truncate(t);
	else if (r < 560)
		op_unlink(t);
	else if (r < 660)
		op_rename(t);
	else if (r < 700)
		op_link(t);
	else if (r < 740)
		op_symlink(t);
	else if (r < 830)
		op_xattr(t);
	else if (r < 960)
		op_check(t);
	else if (r < 968)
		op_sync();
	else if (r < 972)
		op_fsync();
	else if (r < 975)
		op_fsync_one(t);
	else if (r < 980)
		op_purge(t);
	else if (r < 990 && rn(&t->rs, 4) == 0)
		op_cache_limit(t);
	else if (r < 990 && rn(&t->rs, 3))
		op_gcpipe(t);
	else if (r < 990)
		op_gc(t);
	snapshot_if_cp();	/* before anything else touches the core */
	/* GC: explicit calls are op_gc above; the core's own foreground GC
	 * runs inside writes when zones run short */
	if (ops_enospc > before && rn(&t->rs, 2))
		op_purge(t);
	snapshot_if_cp();
	ops_done++;
	if (opt.verbose > 1) {		/* debugging: every inode still there */
		struct gaze_attr at;
		u32 i;

		for (i = 0; i < live.cap && !failed; i++)
			if (live.n[i] && gaze_ns_getattr(fs, i, &at))
				fail("after op %" PRIu64 ": ino %u lost",
				     ops_done, i);
	}
}

/* under G: a live inode of the model into a random slot of rd_inos */
static void
rd_publish(struct th *t)
{
	u32 i = (u32)rn(&t->rs, live.cap), k;

	for (k = 0; k < RD_SCAN && i < live.cap; k++, i++) {
		if (live.n[i]) {
			__atomic_store_n(&rd_inos[rn(&t->rs, RD_INOS)], i,
					 __ATOMIC_RELAXED);
			return;
		}
	}
}

static void *
th_main(void *arg)
{
	struct th *t = arg;
	u64 i;

	for (i = 0; i < t->nops && !__atomic_load_n(&failed, __ATOMIC_RELAXED);
	     i++) {
		pthread_mutex_lock(&G);
		one_op(t);
		if (opt.readers)
			rd_publish(t);
		pthread_mutex_unlock(&G);
	}
	return NULL;
}

static int
rd_filldir(void *ctx, const char *name, u32 len, u32 ino, u8 type,
	   u64 cookie)
{
	u32 *n = ctx;

	(void)name;
	(void)len;
	(void)ino;
	(void)type;
	(void)cookie;
	return ++*n >= 64;
}

/*
 * An error a reader may see: the inode went, or changed type, meanwhile;
 * or its number now names another kind of node (-EFSCORRUPTED from
 * gaze_node_get), which only a number the model no longer has live can
 * (checked under G: ops are serialised there).
 */
static bool
rd_err_ok(long err, u32 ino)
{
	bool ok;

	if (err >= 0 || err == -ENOENT || err == -ESTALE ||
	    err == -EISDIR || err == -ENOTDIR || err == -EINVAL)
		return true;
	if (err != -EFSCORRUPTED)
		return false;
	pthread_mutex_lock(&G);
	ok = ino >= live.cap || !live.n[ino];
	pthread_mutex_unlock(&G);
	return ok;
}

/*
 * One reader of --readers: core read calls on random inode numbers,
 * outside G, while the workers change the namespace.  Each call takes
 * fs->lock itself; what is checked is that none fails other than as
 * rd_err_ok allows (the model is G's, so contents are not compared),
 * and, under TSan, that nothing the core touches outside fs->lock races.
 */
static void *
rd_main(void *arg)
{
	struct th *t = arg;
	char *buf = xmalloc(65536);
	struct gaze_attr a;
	long err = 0;
	u32 ino, n;
	u64 pos;

	while (!__atomic_load_n(&readers_stop, __ATOMIC_RELAXED)) {
		ino = __atomic_load_n(&rd_inos[rn(&t->rs, RD_INOS)],
				      __ATOMIC_RELAXED);
		if (!ino)
			ino = GAZE_ROOT_INO;
		t->nops++;
		err = gaze_ns_getattr(fs, ino, &a);
		if (err)
			goto check;
		if (GAZE_S_ISREG(a.mode)) {
			err = gaze_file_read(fs, ino, buf,
					     1 + rn(&t->rs, 65536),
					     rn(&t->rs, a.size + 8192));
		} else if (GAZE_S_ISDIR(a.mode)) {
			n = 0;
			pos = 0;
			err = gaze_ns_readdir(fs, ino, &pos, rd_filldir, &n);
		} else if (GAZE_S_ISLNK(a.mode)) {
			err = gaze_ns_readlink(fs, ino, buf, 4096);
		}
check:
		if (!rd_err_ok(err, ino)) {
			pthread_mutex_lock(&G);
			fail("reader: inode %u: %ld", ino, err);
			pthread_mutex_unlock(&G);
			__atomic_store_n(&readers_stop, 1, __ATOMIC_RELAXED);
		}
		sched_yield();	/* the workers get fs->lock too */
	}
	free(buf);
	return NULL;
}

/*
 * --readers: the staged GC on a thread of its own too, as the module runs
 * it, a stage per hold of G (the read stage outside it, op_gcpipe)
 */
static void *
gc_main(void *arg)
{
	struct th *t = arg;

	while (!__atomic_load_n(&readers_stop, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&G);
		if (!failed) {
			op_gcpipe(t);
			snapshot_if_cp();
			t->nops++;
		}
		pthread_mutex_unlock(&G);
		usleep(200);
	}
	return NULL;
}

/* ---------------------------------------------------------------- */
/* instance management                                               */
/* ---------------------------------------------------------------- */
static void
setup_fs(void)
{
	struct gaze_emu_opts eo;
	struct gaze_mkfs_params p;
	struct gaze_attr ra = mkattr(040755);
	struct rd r;
	u64 pos = 0;
	u32 i;
	int err;

	memset(&eo, 0, sizeof(eo));
	eo.zone_blocks = opt.zone_bytes / GAZE_BLOCK_SIZE;
	eo.nr_zones = opt.dev_bytes / opt.zone_bytes;
	eo.zone_cap = opt.zone_cap / GAZE_BLOCK_SIZE;
	eo.max_open = eo.max_active = opt.max_open;
	if (opt.fsck) {
		snprintf(image_path, sizeof(image_path),
			 "/tmp/gaze-stress.%d.img", (int)getpid());
		unlink(image_path);
		eo.backing = image_path;
	}
	err = gaze_emu_create(&eo, &dev);
	if (err) {
		fprintf(stderr, "gaze-stress: emulator: %d\n", err);
		exit(1);
	}
	memset(&p, 0, sizeof(p));
	p.geo.nr_blocks = dev->nr_blocks;
	p.geo.zone_blocks = dev->zone_blocks;
	p.geo.zone_cap = dev->zone_cap;
	p.geo.nr_zones = dev->nr_zones;
	p.geo.nr_conv = dev->nr_conv;
	p.geo.max_open = dev->max_open;
	p.geo.max_active = dev->max_active;
	p.geo.model = dev->model;
	gaze_fmt_feature_defaults(&p.feature_compat, &p.feature_ro_compat,
				  &p.feature_incompat);
	if (opt.compress_algo) {
		/* 16 KiB clusters: many of them, many cut by an EOF */
		p.feature_incompat |= GAZE_FEATURE_INCOMPAT_COMPRESSION;
		p.compress_algo = opt.compress_algo;
		p.compress_level = opt.compress_level;
		p.compress_log_cluster = 2;
	}
	p.dirty_limit_pct = 20;
	for (i = 0; i < 16; i++)
		p.uuid[i] = (u8)(opt.seed >> (i % 8 * 8)) ^ (u8)i;
	for (i = 0; i < 4; i++)
		p.dir_hash_seed[i] = (u32)(opt.seed * (i + 7));
	p.mkfs_time = 1700000000;
	strcpy(p.version, "gaze-stress");
	err = gaze_fs_format(dev, &p, &ra, &fs);
	if (err) {
		fprintf(stderr, "gaze-stress: format: %d\n", err);
		exit(1);
	}
	root_ino = GAZE_ROOT_INO;
	bytes_limit = fs->lay.user_blocks * GAZE_BLOCK_SIZE / 6;
	objs_limit = 600 + opt.threads * 150;
	/* the model starts from what format made: root (+ lost+found) */
	{
		struct onode *n = calloc(1, sizeof(*n));

		n->ino = root_ino;
		n->mode = ra.mode;
		n->parent = root_ino;
		n->owner = -2;
		o_put(&live, n);
	}
	memset(&r, 0, sizeof(r));
	gaze_ns_readdir(fs, root_ino, &pos, rd_fill, &r);
	for (i = 0; i < r.n; i++) {
		struct onode *n = calloc(1, sizeof(*n));
		struct gaze_attr a;

		gaze_ns_getattr(fs, r.inos[i], &a);
		n->ino = r.inos[i];
		n->mode = a.mode;
		n->parent = root_ino;
		n->nlink = 1;
		n->owner = -2;
		o_put(&live, n);
		d_add(live.n[root_ino], r.names[i], n->ino);
		if (!is_dir(n)) {
			fprintf(stderr, "gaze-stress: unexpected %s after "
				"format\n", r.names[i]);
			exit(1);
		}
	}
	rd_free(&r);
	/* per-thread top directories and the shared one */
	for (i = 0; i <= (u32)opt.threads; i++) {
		struct gaze_attr a = mkattr(040755);
		struct onode *n = calloc(1, sizeof(*n));
		char name[32];
		u32 ino;

		if (i == (u32)opt.threads)
			strcpy(name, "shared");
		else
			sprintf(name, "t%u", i);
		err = gaze_ns_mknod(fs, root_ino, name, strlen(name), &a, &ino);
		if (err) {
			fprintf(stderr, "gaze-stress: mkdir %s: %d\n", name,
				err);
			exit(1);
		}
		n->ino = ino;
		n->mode = a.mode;
		n->parent = root_ino;
		n->owner = i == (u32)opt.threads ? -1 : (int)i;
		o_put(&live, n);
		d_add(live.n[root_ino], name, ino);
		top_dir[i] = ino;
	}
	err = gaze_fs_sync(fs);
	if (err) {
		fprintf(stderr, "gaze-stress: first sync: %d\n", err);
		exit(1);
	}
	o_copy(&snap, &live);
	cut_cp_seq = fs->cp_seq;
}

static int
run_fsck(void)
{
	char cmd[1024];
	int st;

	if (!opt.fsck)
		return 0;
	snprintf(cmd, sizeof(cmd), "'%s' -fn '%s' >/dev/null 2>&1", opt.fsck,
		 image_path);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fail("%s -fn %s: exit status %d", opt.fsck, image_path,
		     st == -1 ? -1 : WEXITSTATUS(st));
		return -1;
	}
	return 0;
}

static int
reopen(void)
{
	int err = gaze_fs_open(dev, 0, &fs);

	if (err) {
		fail("gaze_fs_open after %" PRIu64 " cuts: %d", n_cuts, err);
		fs = NULL;
		return -1;
	}
	n_reopens++;
	n_rf_nodes += fs->rf_recovered;
	vlog("reopened at checkpoint %" PRIu64 " (expected %" PRIu64 ")",
	     fs->cp_seq, cut_cp_seq);
	cut_cp_seq = fs->cp_seq;
	cp_unsure = false;
	return 0;
}

/* pull the power: the instance is abandoned without writing anything */
static int
power_cut(u64 *rs)
{
	static const unsigned int keep[] = { 0, 30, 50, 90, 100 };
	unsigned int k = keep[rn(rs, 5)];

	fs->flags |= GAZE_FS_RDONLY;	/* close frees, writes nothing */
	gp_abandon();			/* a crash in the middle of a job */
	gaze_fs_close(fs);
	fs = NULL;
	gaze_emu_power_cut(dev, rnd(rs), k);
	n_cuts++;
	vlog("power cut %" PRIu64 " (keep %u%%), checkpoint %" PRIu64,
	     n_cuts, k, cut_cp_seq);
	o_copy(&live, &snap);
	if (reopen())
		return -1;
	/* opening read-write writes nothing itself; fsck sees the image as
	 * recovery left it */
	if (run_fsck())
		return -1;
	return verify_all(&live, "after power cut");
}

static int
clean_reopen(void)
{
	int err;

	gp_abandon();			/* umount stops GC where it is */
	err = gaze_fs_close(fs);

	fs = NULL;
	if (err && err != -ENOSPC) {
		fail("close: %d", err);
		return -1;
	}
	if (err)	/* the final checkpoint failed: the last one stands */
		o_copy(&live, &snap);
	if (reopen())
		return -1;
	if (run_fsck())
		return -1;
	o_copy(&snap, &live);
	return verify_all(&live, "after close + open");
}

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: gaze-stress [OPTION]...\n"
"Random namespace operations with checkpoints and power cuts on the ZNS\n"
"emulator, checked against an in-memory model.\n\n"
"  -s, --seed N          random seed (default: from the clock; printed)\n"
"  -t, --time SECONDS    run this long (default 10 unless --ops is given)\n"
"  -n, --ops N           run N operations\n"
"  -T, --threads N       worker threads (default 4; 1 is reproducible)\n"
"  -d, --device-size SZ  emulated device size (default 192M)\n"
"  -z, --zone-size SZ    zone size (default 1M)\n"
"  -C, --zone-cap SZ     zone capacity, below the size as on ZNS drives\n"
"                        (default: the zone size)\n"
"  -p, --power-cuts N    at most N power cuts (default unlimited)\n"
"  -o, --max-open N      the emulator allows N open and N active zones\n"
"                        (default: no limit)\n"
"  -c, --compression ALG format with compressed clusters of 16 KiB (lz4,\n"
"                        zstd[:L], gzip[:L]); most writes then compress\n"
"  -F, --fsync-mix       mostly writes, truncates, xattrs and fsyncs of\n"
"                        existing files, so power cuts land on\n"
"                        roll-forward chains\n"
"  -R, --readers N       N more threads read (getattr, read, readdir,\n"
"                        readlink) on random inodes outside the\n"
"                        harness's lock, and the staged GC's read stage\n"
"                        runs outside it too, on a thread of its own\n"
"                        (default 0; for TSan)\n"
"  -f, --fsck PATH       run PATH -fn on the image after each recovery\n"
"                        (the emulator is then file backed in /tmp)\n"
"  -v, --verbose         say what happens (twice: check every inode\n"
"                        after every operation, slow)\n"
"  -h, --help            this help\n"
"  -V, --version         version\n");
}

static u64
parse_size(const char *s)
{
	char *end;
	u64 v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end || !v) {
		fprintf(stderr, "gaze-stress: bad size '%s'\n", s);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "time", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 'T' },
		{ "device-size", required_argument, NULL, 'd' },
		{ "zone-size", required_argument, NULL, 'z' },
		{ "zone-cap", required_argument, NULL, 'C' },
		{ "power-cuts", required_argument, NULL, 'p' },
		{ "fsck", required_argument, NULL, 'f' },
		{ "fsync-mix", no_argument, NULL, 'F' },
		{ "compression", required_argument, NULL, 'c' },
		{ "max-open", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "readers", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct th ths[MAX_THREADS], rds[MAX_THREADS], gct;
	bool seeded = false;
	double t0, deadline;
	u64 rs, ops_left;
	int c, i;

	while ((c = getopt_long(argc, argv, "s:t:n:T:d:z:C:p:f:Fc:o:R:vhV", lo,
				NULL)) != -1) {
		switch (c) {
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 't':
			opt.time_s = atof(optarg);
			break;
		case 'n':
			opt.ops = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			opt.threads = atoi(optarg);
			break;
		case 'd':
			opt.dev_bytes = parse_size(optarg);
			break;
		case 'z':
			opt.zone_bytes = parse_size(optarg);
			break;
		case 'C':
			opt.zone_cap = parse_size(optarg);
			break;
		case 'p':
			opt.power_cuts = atol(optarg);
			break;
		case 'f':
			opt.fsck = optarg;
			break;
		case 'F':
			opt.fsync_mix = 1;
			break;
		case 'c':
			if (gaze_fmt_compress_parse(optarg, &opt.compress_algo,
						    &opt.compress_level)) {
				fprintf(stderr, "gaze-stress: --compression %s: not lz4, zstd[:L] or gzip[:L]\n",
					optarg);
				return 2;
			}
			break;
		case 'o':
			opt.max_open = (u32)strtoul(optarg, NULL, 0);
			break;
		case 'R':
			opt.readers = atoi(optarg);
			break;
		case 'v':
			opt.verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("gaze-stress (GAZE) " PACKAGE_VERSION "\n");
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || opt.threads < 1 || opt.threads > MAX_THREADS ||
	    opt.readers < 0 || opt.readers > MAX_THREADS ||
	    opt.zone_bytes % GAZE_BLOCK_SIZE ||
	    opt.zone_cap % GAZE_BLOCK_SIZE || opt.zone_cap > opt.zone_bytes ||
	    opt.dev_bytes / opt.zone_bytes < 16) {
		fprintf(stderr, "gaze-stress: bad arguments (see --help)\n");
		return 2;
	}
	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		opt.seed = (u64)ts.tv_nsec ^ ((u64)ts.tv_sec << 20) ^
			   (u64)getpid();
	}
	if (!opt.time_s && !opt.ops && opt.power_cuts < 0)
		opt.time_s = 10;
	printf("gaze-stress: seed %" PRIu64 " threads %d device %" PRIu64
	       " MiB zone %" PRIu64 " KiB capacity %" PRIu64 " KiB\n",
	       opt.seed, opt.threads, opt.dev_bytes >> 20,
	       opt.zone_bytes >> 10,
	       (opt.zone_cap ? opt.zone_cap : opt.zone_bytes) >> 10);
	fflush(stdout);
	if (opt.verbose)
		setvbuf(stdout, NULL, _IOLBF, 0);
	rs = opt.seed;
	setup_fs();
	t0 = now_s();
	deadline = opt.time_s ? t0 + opt.time_s : 0;
	ops_left = opt.ops;
	while (!failed) {
		u64 epoch = 200 + rn(&rs, 3000);
		u64 r;

		if (opt.ops) {
			if (!ops_left)
				break;
			epoch = epoch < ops_left ? epoch : ops_left;
			ops_left -= epoch;
		}
		if (deadline && now_s() >= deadline)
			break;
		if (!opt.time_s && !opt.ops && opt.power_cuts >= 0 &&
		    n_cuts >= (u64)opt.power_cuts)
			break;
		memset(rd_inos, 0, sizeof(rd_inos));
		readers_stop = 0;
		for (i = 0; i < opt.readers; i++) {
			rds[i].id = i;
			rds[i].rs = rnd(&rs);
			rds[i].nops = 0;
			pthread_create(&rds[i].tid, NULL, rd_main, &rds[i]);
		}
		if (opt.readers) {
			gct.rs = rnd(&rs);
			gct.nops = 0;
			pthread_create(&gct.tid, NULL, gc_main, &gct);
		}
		for (i = 0; i < opt.threads; i++) {
			ths[i].id = i;
			ths[i].rs = rnd(&rs);
			ths[i].nops = epoch / opt.threads + 1;
			pthread_create(&ths[i].tid, NULL, th_main, &ths[i]);
		}
		for (i = 0; i < opt.threads; i++)
			pthread_join(ths[i].tid, NULL);
		__atomic_store_n(&readers_stop, 1, __ATOMIC_RELAXED);
		for (i = 0; i < opt.readers; i++) {
			pthread_join(rds[i].tid, NULL);
			n_reads += rds[i].nops;
		}
		if (opt.readers)
			pthread_join(gct.tid, NULL);
		if (failed)
			break;
		r = rn(&rs, 10);
		/* no power cut while the model does not know which state
		 * the last checkpoint holds (write_straddled_cp) */
		if (r < 6 && !cp_unsure && (opt.power_cuts < 0 ||
			      n_cuts < (u64)opt.power_cuts)) {
			if (power_cut(&rs))
				break;
		} else if (r < 8) {
			if (clean_reopen())
				break;
		} else if (verify_all(&live, "live")) {
			break;
		}
	}
	if (fs && !failed) {
		if (verify_all(&live, "at the end") == 0 && clean_reopen() == 0) {
			if (opt.compress_algo)
				printf("gaze-stress: compressed clusters hold %" PRIu64
				       " blocks of data in %" PRIu64 "\n",
				       (u64)le64_to_cpu(fs->cp.compr_logical_blocks),
				       (u64)le64_to_cpu(fs->cp.compr_physical_blocks));
			gaze_fs_close(fs);
		}
	}
	printf("gaze-stress: %s: %" PRIu64 " ops (%" PRIu64 " ENOSPC), %"
	       PRIu64 " checkpoints seen, %" PRIu64 " power cuts, %" PRIu64
	       " reopens, %" PRIu64 " inode checks, %" PRIu64
	       " explicit GC reclaims, %" PRIu64 " staged GC jobs, %" PRIu64
	       " fsyncs (%" PRIu64 " without a checkpoint, %" PRIu64
	       " of one file alone), %" PRIu64 " nodes rolled forward, %" PRIu64 " writes split by a"
	       " checkpoint, %" PRIu64 " reads outside the lock, %" PRIu64
	       " GC misses fetched, %.1f s, seed %" PRIu64 "\n",
	       failed ? "FAILED" : "ok", ops_done, ops_enospc, n_cps, n_cuts,
	       n_reopens, n_verified, n_gc, gp.jobs, n_fsyncs, n_rf_fsyncs,
	       n_rf_one, n_rf_nodes, n_straddled, n_reads, gp.cold,
	       now_s() - t0, opt.seed);
	o_clear(&live);
	o_clear(&snap);
	gaze_dev_close(dev);
	if (image_path[0])
		unlink(image_path);
	return failed ? 1 : 0;
}
