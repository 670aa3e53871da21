// SPDX-License-Identifier: GPL-2.0
/*
 * test_bigdir.c - one directory of 1,000,000 entries on the emulator:
 * hard links (gaze_ns_link) to 16 files, so the inodes fit in memory and
 * each name has a known inode.  Checked against an in-memory model:
 *   - every name looks up to its inode and type, absent names give
 *     -ENOENT, a lookup in a cold cache reads a handful of blocks;
 *   - readdir gives every name exactly once, in cookie order;
 *   - a readdir resumed call after call while names are added and removed
 *     between the calls gives every untouched name exactly once and the
 *     touched ones at most once; positions saved during that walk
 *     (telldir cookies) resume, after more changes and after close +
 *     open, to exactly the names present with a cookie at or past them,
 *     and every name keeps its cookie;
 *   - link counts of the 16 files follow;
 *   - unlink of half the names, then all checks again; close + open and
 *     again; fsck (the checker's library, fsck/check.c) finds the image
 *     clean; removing everything gives the space back.
 * Times (create, mean lookup, readdir) and the directory's hash depth
 * and bucket count are printed, never asserted.  TAP; exit 1 on failure.
 *
 *   test_bigdir [-n ENTRIES] [-s SEED] [-z ZONE_MIB] [-c CACHE_MIB]
 *
 * -z: zone size (default 4 MiB); -c: the core's metadata cache limit
 * (default: the core's, 32 MiB).  See the note in main() on zone sizes.
 * ENTRIES defaults to 1,000,000, or $GAZE_BIGDIR_ENTRIES (slow builds
 * may ask for fewer); the number used is in the test names.
 */
#define _GNU_SOURCE
#include "gaze_core.h"
#include "gaze_zdev.h"
#include "fsck.h"
#include "../core/fixture.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tap.h"

#define NT		16		/* link targets */
#define DT_REG_		8
#define CHURN_BUDGET	1000		/* entries per readdir call */
#define CHURN_STEP	10		/* removed and added between calls */
#define NR_SAVED	5		/* telldir positions kept */
#define ABSENT		100000		/* lookups of names never created */
#define POS_END		0x7fffffffffffffffull

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------- */
/* The model: ids [0, nbase) are the first names ('e'), ids from nbase */
/* are names added later ('n'); id's inode is target[id % NT].        */
/* ---------------------------------------------------------------- */

static u32 nbase, nmax, nnext;		/* ids in use: [0, nnext) */
static u8 *present;			/* in the directory now */
static u8 *touched;			/* added or removed during a walk */
static u64 *cookie;			/* readdir cookie, 0 = not seen yet */
static u32 target[NT];
static u32 big;				/* the directory */
static size_t cache_limit;		/* -c: metadata cache bytes, 0 = default */

static u32
name_of(char *buf, u32 id)
{
	/* lengths 9 to 37, so buckets fill unevenly */
	return (u32)sprintf(buf, "%c%07u-%.*s", id < nbase ? 'e' : 'n',
			    id < nbase ? id : id - nbase,
			    (int)((id * 7u) % 29u),
			    "abcdefghijklmnopqrstuvwxyz012");
}

/* the id a name stands for, or ~0 for a name the model never made */
static u32
id_of(const char *name, u32 len)
{
	char buf[64], *end;
	unsigned long v;
	u32 id;

	if (len < 9 || len >= sizeof(buf) || (name[0] != 'e' && name[0] != 'n'))
		return ~0u;
	memcpy(buf, name, len);
	buf[len] = 0;
	v = strtoul(buf + 1, &end, 10);
	if (end != buf + 8 || *end != '-')
		return ~0u;
	if (name[0] == 'e')
		id = v < nbase ? (u32)v : ~0u;
	else
		id = v < nmax - nbase ? (u32)v + nbase : ~0u;
	if (id == ~0u || id >= nnext)
		return ~0u;
	if (name_of(buf, id) != len || memcmp(buf, name, len))
		return ~0u;
	return id;
}

static u32
nr_present(void)
{
	u32 id, n = 0;

	for (id = 0; id < nnext; id++)
		n += present[id];
	return n;
}

/* ---------------------------------------------------------------- */
/* Device and instance.                                              */
/* ---------------------------------------------------------------- */

static struct gaze_attr
attr_of(u32 mode)
{
	struct gaze_attr a;

	memset(&a, 0, sizeof(a));
	a.mode = mode;
	a.uid = 1000;
	a.gid = 100;
	a.atime = a.mtime = a.ctime = a.crtime = 1700000000;
	return a;
}

/* the fixture's format, with this test's cache limit */
static struct gaze_fs *
fs_new(struct gaze_dev *d)
{
	struct gaze_fs *fs = format(d, 0, 0);

	if (cache_limit)
		fs->cache_limit = cache_limit;
	return fs;
}

static struct gaze_fs *
fs_open(struct gaze_dev *d)
{
	struct gaze_fs *fs = NULL;
	int err = gaze_fs_open(d, 0, &fs);

	if (err) {
		printf("Bail out! gaze_fs_open: %d\n", err);
		exit(1);
	}
	if (cache_limit)
		fs->cache_limit = cache_limit;
	return fs;
}

/* the directory's hash index: depth, buckets, entries (inode fields) */
static void
dir_shape(struct gaze_fs *fs, u32 *depth, u32 *nbuckets, u32 *nentries)
{
	struct gaze_mbuf *mb;
	struct gaze_inode *in;

	*depth = *nbuckets = *nentries = ~0u;
	mutex_lock(&fs->lock);
	if (!gaze_inode_get(fs, big, &mb)) {
		in = mb->data;
		*depth = in->dir_depth;
		*nbuckets = le32_to_cpu(in->dir_nbuckets);
		*nentries = le32_to_cpu(in->dir_nentries);
		gaze_mbuf_put(fs, mb);
	}
	mutex_unlock(&fs->lock);
}

/* ---------------------------------------------------------------- */
/* Lookups.                                                          */
/* ---------------------------------------------------------------- */

static void
check_lookups(struct gaze_fs *fs, const char *when)
{
	u32 id, ino, bad = 0, badabs = 0, n = 0, len, i;
	char name[64];
	double t;
	u8 dt;
	int err;

	t = now_s();
	for (id = 0; id < nnext; id++) {
		len = name_of(name, id);
		ino = 0;
		dt = 0;
		err = gaze_ns_lookup(fs, big, name, len, &ino, &dt);
		if (present[id] ? (err || ino != target[id % NT] ||
				   dt != DT_REG_) : err != -ENOENT) {
			if (bad++ < 5)
				tap_diag("%s: %s: err %d ino %u dt %u", when,
					 name, err, ino, dt);
		}
		n++;
	}
	t = now_s() - t;
	tap_ok(!bad, "%s: %u lookups (%u present) right, %u wrong", when, n,
	       nr_present(), bad);
	tap_diag("%s: mean lookup %.0f ns", when, t * 1e9 / n);

	t = now_s();
	for (i = 0; i < ABSENT; i++) {
		/* never-made names, and made-looking ones with a bad suffix */
		if (i & 1)
			len = (u32)sprintf(name, "x%u", (u32)rnd());
		else
			len = (u32)sprintf(name, "e%07u-%s", i % nbase, "!");
		if (gaze_ns_lookup(fs, big, name, len, &ino, &dt) != -ENOENT)
			badabs++;
	}
	t = now_s() - t;
	tap_ok(!badabs, "%s: %u absent names give ENOENT (%u wrong)", when,
	       ABSENT, badabs);
	tap_diag("%s: mean absent lookup %.0f ns", when, t * 1e9 / ABSENT);
}

/* the 16 files' link counts and the directory's own counts */
static void
check_counts(struct gaze_fs *fs, const char *when)
{
	u32 expect[NT] = { 0 }, id, t, bad = 0, depth, nb, ne;
	struct gaze_attr a;
	int err;

	for (id = 0; id < nnext; id++)
		expect[id % NT] += present[id];
	for (t = 0; t < NT; t++) {
		memset(&a, 0, sizeof(a));
		/* one more link: its name in the root */
		if (gaze_ns_getattr(fs, target[t], &a) ||
		    a.nlink != expect[t] + 1) {
			if (bad++ < 3)
				tap_diag("%s: target %u nlink %u, want %u",
					 when, t, a.nlink, expect[t] + 1);
		}
	}
	tap_ok(!bad, "%s: link counts of the %u files", when, NT);
	memset(&a, 0, sizeof(a));
	dir_shape(fs, &depth, &nb, &ne);
	err = gaze_ns_getattr(fs, big, &a);
	tap_ok(!err && a.nlink == 2 && ne == nr_present(),
	       "%s: directory nlink %u, %u entries (err %d)", when, a.nlink, ne,
	       err);
	tap_diag("%s: hash depth %u, %u buckets (%.1f entries each), "
		 "%llu blocks", when, depth, nb, nb ? (double)ne / nb : 0.0,
		 (unsigned long long)a.blocks);
}

/* ---------------------------------------------------------------- */
/* readdir                                                           */
/* ---------------------------------------------------------------- */

struct walk {
	u8	*seen;		/* times each id was emitted */
	u32	n;		/* entries emitted (. and .. excluded) */
	u32	dots;
	u32	unknown;	/* names the model never made */
	u32	wrong;		/* wrong inode or type */
	u32	moved;		/* cookie differs from the one recorded */
	u32	order;		/* cookie below the previous one */
	u32	low;		/* cookie below the start position */
	u64	start;		/* position the walk (re)started at */
	u64	last;
	u32	budget, this_call;
};

static int
walk_fill(void *vctx, const char *name, u32 len, u32 ino, u8 dt, u64 ck)
{
	struct walk *w = vctx;
	u32 id;

	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.')) {
		w->dots++;
		return 0;
	}
	if (ck < w->last)
		w->order++;
	w->last = ck;
	if (ck < w->start)
		w->low++;
	w->n++;
	w->this_call++;
	id = id_of(name, len);
	if (id == ~0u) {
		if (w->unknown++ < 3)
			tap_diag("readdir: unknown name %.*s", (int)len, name);
	} else {
		if (w->seen[id] < 255)
			w->seen[id]++;
		if (ino != target[id % NT] || dt != DT_REG_)
			w->wrong++;
		if (cookie[id] && cookie[id] != ck)
			w->moved++;
		cookie[id] = ck;
	}
	return w->budget && w->this_call >= w->budget;
}

static void
walk_init(struct walk *w, u64 start, u32 budget)
{
	memset(w, 0, sizeof(*w));
	w->seen = calloc(nmax, 1);
	if (!w->seen) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	w->start = start;
	w->budget = budget;
}

/* readdir from *pos to the end, budget entries per call */
static int
walk_run(struct gaze_fs *fs, struct walk *w, u64 pos, u32 *calls)
{
	int err;

	*calls = 0;
	do {
		w->this_call = 0;
		err = gaze_ns_readdir(fs, big, &pos, walk_fill, w);
		if (err)
			return err;
		if (++*calls > 100000000)
			return -ELOOP;
	} while (pos != POS_END);
	return 0;
}

/* a whole readdir: every present name once, nothing else */
static void
check_readdir(struct gaze_fs *fs, const char *when, u32 budget)
{
	u32 id, dup = 0, miss = 0, calls;
	struct walk w;
	double t;
	int err;

	walk_init(&w, 0, budget);
	t = now_s();
	err = walk_run(fs, &w, 0, &calls);
	t = now_s() - t;
	for (id = 0; id < nnext; id++) {
		if (present[id] && w.seen[id] != 1)
			miss += !w.seen[id], dup += w.seen[id] > 1;
		else if (!present[id] && w.seen[id])
			dup++;
	}
	tap_ok(!err && w.dots == 2 && w.n == nr_present() && !miss && !dup &&
	       !w.unknown && !w.wrong && !w.order && !w.moved,
	       "%s: readdir (%u per call, %u calls): %u entries, %u missing, "
	       "%u extra, %u unknown, %u wrong inode, %u out of order, "
	       "%u cookies moved (err %d)", when, budget, calls, w.n, miss,
	       dup, w.unknown, w.wrong, w.order, w.moved, err);
	tap_diag("%s: readdir of %u entries in %.3f s (%.0f ns each)", when,
		 w.n, t, w.n ? t * 1e9 / w.n : 0.0);
	free(w.seen);
}

/* ---------------------------------------------------------------- */
/* Changes.                                                          */
/* ---------------------------------------------------------------- */

static int
add_one(struct gaze_fs *fs, u32 id)
{
	char name[64];
	u32 len = name_of(name, id);
	int err = gaze_ns_link(fs, big, name, len, target[id % NT]);

	if (!err)
		present[id] = 1;
	return err;
}

static int
remove_one(struct gaze_fs *fs, u32 id)
{
	char name[64];
	u32 len = name_of(name, id);
	int err = gaze_ns_unlink(fs, big, name, len);

	if (!err)
		present[id] = 0;
	return err;
}

/* k random present base names with id % 10 == 7 go, k new names come */
static int
churn(struct gaze_fs *fs, u32 k, bool mark)
{
	u32 i, id, tries;
	int err;

	for (i = 0; i < k; i++) {
		for (tries = 0; tries < 1000; tries++) {
			id = (u32)(rnd() % nbase);
			id -= id % 10;
			id += 7;
			if (id < nbase && present[id])
				break;
		}
		if (tries == 1000)
			return -ENOENT;
		err = remove_one(fs, id);
		if (err)
			return err;
		if (mark)
			touched[id] = 1;
		if (nnext >= nmax)
			return -ENOSPC;
		id = nnext++;
		err = add_one(fs, id);
		if (err)
			return err;
		if (mark)
			touched[id] = 1;
	}
	return 0;
}

/*
 * readdir CHURN_BUDGET entries per call with CHURN_STEP removals and
 * additions between calls; saves NR_SAVED positions along the way.
 */
static void
check_churn_walk(struct gaze_fs *fs, u64 *saved)
{
	u32 id, calls = 0, stable_bad = 0, touched_dup = 0, ns = 0, every;
	u32 nchanged = 0;
	struct walk w;
	u64 pos = 0;
	int err = 0;

	memset(touched, 0, nmax);
	every = nbase / CHURN_BUDGET / (NR_SAVED + 1);
	if (!every)
		every = 1;
	walk_init(&w, 0, CHURN_BUDGET);
	do {
		w.this_call = 0;
		err = gaze_ns_readdir(fs, big, &pos, walk_fill, &w);
		if (err || pos == POS_END)
			break;
		calls++;
		if (ns < NR_SAVED && calls % every == 0)
			saved[ns++] = pos;
		err = churn(fs, CHURN_STEP, true);
		nchanged += CHURN_STEP;
	} while (!err && calls < 100000000);
	for (id = 0; id < nnext; id++) {
		if (touched[id])
			touched_dup += w.seen[id] > 1;
		else if (present[id] && w.seen[id] != 1)
			stable_bad++;
		else if (!present[id] && w.seen[id])
			stable_bad++;
	}
	while (ns < NR_SAVED)
		saved[ns++] = pos;
	tap_ok(!err && !stable_bad && !touched_dup && !w.unknown && !w.wrong &&
	       !w.order && !w.moved,
	       "readdir resumed %u times while %u names were removed and %u "
	       "added: untouched names once (%u wrong), changed ones at most "
	       "once (%u twice), %u unknown, %u out of order, %u moved "
	       "(err %d)", calls, nchanged, nchanged, stable_bad, touched_dup,
	       w.unknown, w.order, w.moved, err);
	free(w.seen);
}

/* from each saved position: exactly the present names at or past it */
static void
check_saved(struct gaze_fs *fs, const u64 *saved, const char *when)
{
	u32 i, id, bad = 0, n, want, calls;
	struct walk w;
	int err = 0;

	for (i = 0; i < NR_SAVED && !err; i++) {
		walk_init(&w, saved[i], 0);
		err = walk_run(fs, &w, saved[i], &calls);
		for (id = 0, want = 0, n = 0; id < nnext; id++) {
			/* cookie[] was filled by a whole readdir before */
			bool in = present[id] && cookie[id] >= saved[i];

			want += in;
			if (w.seen[id] != in)
				n++;
		}
		if (n || w.unknown || w.low || w.moved || w.dots || err) {
			bad++;
			tap_diag("%s: from position %u (%llx): %u entries, want "
				 "%u; %u differ, %u unknown, %u below, %u moved",
				 when, i, (unsigned long long)saved[i], w.n,
				 want, n, w.unknown, w.low, w.moved);
		}
		free(w.seen);
	}
	tap_ok(!bad && !err, "%s: readdir resumed at %u saved positions gives "
	       "exactly the names at or past each (err %d)", when, NR_SAVED,
	       err);
}

/* ---------------------------------------------------------------- */
/* The checker.                                                      */
/* ---------------------------------------------------------------- */

static void
check_fsck(struct gaze_dev *dev, const char *when)
{
	struct fsck_opts o;
	struct fsck f;
	char *msg = NULL, *line, *save = NULL;
	size_t msglen = 0;
	FILE *out;
	double t;
	int err;

	memset(&o, 0, sizeof(o));
	o.mode = FSCK_MODE_CHECK;
	o.force = true;
	out = open_memstream(&msg, &msglen);
	if (!out) {
		tap_ok(0, "%s: open_memstream", when);
		return;
	}
	o.out = out;
	fsck_init(&f, dev, "emulator", &o);
	t = now_s();
	err = fsck_check(&f);
	t = now_s() - t;
	fflush(out);
	tap_ok(!err && !f.problems && !f.fatal,
	       "%s: fsck finds the filesystem clean (%llu problems, err %d; "
	       "%llu inodes, %llu dirs, %llu directory blocks)", when,
	       (unsigned long long)f.problems, err,
	       (unsigned long long)f.st.inodes,
	       (unsigned long long)f.st.dirs,
	       (unsigned long long)f.st.dir_blocks);
	tap_diag("%s: fsck took %.2f s", when, t);
	if (err || f.problems || f.fatal) {
		u32 k = 0;

		for (line = strtok_r(msg, "\n", &save); line && k < 20;
		     line = strtok_r(NULL, "\n", &save), k++)
			tap_diag("fsck: %s", line);
	}
	fsck_fini(&f);
	fclose(out);
	free(msg);
}

/* ---------------------------------------------------------------- */

static void
check_all(struct gaze_fs *fs, const char *when)
{
	check_lookups(fs, when);
	check_counts(fs, when);
	check_readdir(fs, when, 0);
}

int
main(int argc, char **argv)
{
	struct gaze_emu_stats s0, s1;
	u64 saved[NR_SAVED], free0, free1;
	struct gaze_dev *dev;
	struct gaze_fs *fs;
	struct gaze_attr a;
	const char *env;
	char name[64];
	u32 id, t, zones, zone_mib = 4, ino, nd = 0;
	double t0;
	int opt, err = 0;

	env = getenv("GAZE_BIGDIR_ENTRIES");
	nbase = env ? (u32)strtoul(env, NULL, 0) : 1000000;
	while ((opt = getopt(argc, argv, "c:n:s:z:")) != -1) {
		switch (opt) {
		case 'c':
			cache_limit = (size_t)strtoul(optarg, NULL, 0) << 20;
			break;
		case 'z':
			zone_mib = (u32)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			nbase = (u32)strtoul(optarg, NULL, 0);
			break;
		case 's':
			rng_state = strtoull(optarg, NULL, 0) | 1;
			break;
		default:
			fprintf(stderr, "usage: test_bigdir [-n ENTRIES] [-s SEED] [-z ZONE_MIB] [-c CACHE_MIB]\n");
			return 2;
		}
	}
	if (nbase < 1000 || nbase > 9999999 || zone_mib < 1 ||
	    zone_mib > 1024) {
		printf("Bail out! entries must be 1000 to 9999999, zones 1 to "
		       "1024 MiB\n");
		return 1;
	}
	/* room for the churn: 2 walks' worth plus two explicit rounds */
	nmax = nbase + 2 * (nbase / CHURN_BUDGET + 2) * CHURN_STEP + 20000;
	present = calloc(nmax, 1);
	touched = calloc(nmax, 1);
	cookie = calloc(nmax, sizeof(*cookie));
	if (!present || !touched || !cookie) {
		printf("Bail out! out of memory\n");
		return 1;
	}
	tap_diag("one directory of %u entries (hard links to %u files)%s",
		 nbase, NT, env ? " ($GAZE_BIGDIR_ENTRIES)" : "");

	/*
	 * ~70 bytes of directory per entry (64 MiB for a million), room to
	 * rewrite it: 768 MiB for a million, at least 48 zones.
	 *
	 * 4 MiB zones by default, a regression test: when the zones
	 * gaze_gc_balance kept free (user floor + slack, 5) held less than
	 * the dirty blocks the cache may gather (32 MiB), a directory bigger
	 * than the cache failed: free zones ran down while PREFREE ones
	 * waited for a checkpoint, gaze_fs_balance flushed the dirty
	 * directory blocks into the last free zones, and the checkpoint
	 * that would free the PREFREE ones found no room: every later
	 * checkpoint and the close failed with -ENOSPC.  gaze_fs_balance now
	 * keeps room for the dirty blocks.  With -z 2 (or -n 200000 -z 1
	 * -c 8) the checkpoint then outgrew the meta ring ("the checkpoint
	 * needs ... blocks"): sparse ring zones pinned it.  The ring now
	 * compacts itself and checkpoints go early under ring pressure
	 * (tests/ns/bigdir-small-zones.sh runs such cases).
	 */
	zones = (u32)((256ull + nbase / 2000) / zone_mib);
	if (zones < 48)
		zones = 48;
	dev = mkdev_zb(zones, zone_mib * 256);
	fs = fs_new(dev);
	tap_ok(!gaze_fs_sync(fs), "format and sync (%u zones of %u MiB)",
	       zones, zone_mib);
	free0 = gaze_space_free_blocks(fs);
	{
		struct gaze_attr da = attr_of(040755);

		err = gaze_ns_mknod(fs, GAZE_ROOT_INO, "big", 3, &da, &big);
	}
	for (t = 0; t < NT && !err; t++) {
		a = attr_of(0100644);
		sprintf(name, "t%u", t);
		err = gaze_ns_mknod(fs, GAZE_ROOT_INO, name,
				    (u32)strlen(name), &a, &target[t]);
	}
	tap_ok(!err, "mkdir big and %u files (err %d)", NT, err);

	t0 = now_s();
	for (id = 0; id < nbase && !err; id++)
		err = add_one(fs, id);
	nnext = nbase;
	t0 = now_s() - t0;
	tap_ok(!err, "%u hard links created in one directory (err %d)", id,
	       err);
	tap_diag("created %u entries in %.2f s (%.0f ns each)", id, t0,
		 t0 * 1e9 / (id ? id : 1));
	if (err)
		goto out;

	check_all(fs, "fresh");

	/* cookies are the same after close + open; a cold lookup is O(1) */
	err = gaze_fs_close(fs);
	tap_ok(!err, "close (err %d)", err);
	fs = fs_open(dev);
	name_of(name, nbase / 2);
	gaze_emu_stats(dev, &s0);
	err = gaze_ns_lookup(fs, big, name, (u32)strlen(name), &ino, NULL);
	gaze_emu_stats(dev, &s1);
	/* the inode's read brings the window around it (node.c) */
	tap_ok(!err && ino == target[(nbase / 2) % NT] &&
	       s1.reads - s0.reads <= 8 &&
	       s1.blocks_read - s0.blocks_read <= 8 + GAZE_INODE_AROUND - 1,
	       "cold lookup after open: %llu reads of %llu blocks (err %d)",
	       (unsigned long long)(s1.reads - s0.reads),
	       (unsigned long long)(s1.blocks_read - s0.blocks_read), err);
	check_readdir(fs, "reopened", 997);

	/* readdir while names come and go, and telldir positions */
	check_churn_walk(fs, saved);
	err = churn(fs, 5000, false);
	tap_ok(!err, "5000 more names removed and added (err %d)", err);
	check_readdir(fs, "after churn", 0);
	check_saved(fs, saved, "after churn");
	check_counts(fs, "after churn");

	/* half of the names go */
	t0 = now_s();
	for (id = 0, err = 0; id < nnext && !err; id += 2) {
		if (present[id]) {
			err = remove_one(fs, id);
			nd++;
		}
	}
	t0 = now_s() - t0;
	tap_ok(!err, "unlinked %u names, every other id (err %d)", nd, err);
	tap_diag("unlinked %u entries in %.2f s (%.0f ns each)", nd, t0,
		 t0 * 1e9 / (nd ? nd : 1));
	check_all(fs, "half removed");
	check_saved(fs, saved, "half removed");

	/* persistence */
	err = gaze_fs_close(fs);
	tap_ok(!err, "close (err %d)", err);
	check_fsck(dev, "half removed, closed");
	fs = fs_open(dev);
	check_all(fs, "reopened");
	check_saved(fs, saved, "reopened");

	/* everything goes: the space comes back */
	t0 = now_s();
	for (id = 0, err = 0; id < nnext && !err; id++)
		if (present[id])
			err = remove_one(fs, id);
	for (t = 0; t < NT && !err; t++) {
		sprintf(name, "t%u", t);
		err = gaze_ns_unlink(fs, GAZE_ROOT_INO, name,
				     (u32)strlen(name));
	}
	if (!err)
		err = gaze_ns_unlink(fs, GAZE_ROOT_INO, "big", 3);
	tap_ok(!err, "removed every name, the files and the directory "
	       "(%.2f s, err %d)", now_s() - t0, err);
	tap_ok(!gaze_fs_sync(fs), "sync");
	free1 = gaze_space_free_blocks(fs);
	tap_ok(free1 == free0, "free blocks back (%llu, %llu)",
	       (unsigned long long)free0, (unsigned long long)free1);
	err = gaze_fs_close(fs);
	tap_ok(!err, "close (err %d)", err);
	check_fsck(dev, "emptied");
	gaze_dev_close(dev);
	dev = NULL;
out:
	if (dev) {
		gaze_fs_close(fs);
		gaze_dev_close(dev);
	}
	free(present);
	free(touched);
	free(cookie);
	return tap_done();
}
