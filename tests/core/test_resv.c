// SPDX-License-Identifier: GPL-2.0
/*
 * test_resv.c - unit tests of the write reservations of space.c
 * (gaze_resv_get / gaze_resv_put, the rules behind selective blocking),
 * on the ZNS emulator.
 *
 * Why: the module accepts buffered writes into memory against a
 * reservation, and promises that their writeback never meets ENOSPC.
 * That holds only if (1) a reservation is refused (-ENOSPC) once the
 * free user blocks are promised, (2) nothing else (new inodes, nodes,
 * directory blocks) takes promised blocks, (3) writeback of reserved
 * data succeeds even on a full filesystem, overwrites included, and (4)
 * the physical rule (-EAGAIN) lifts once GC and its checkpoints free
 * space.  Each is checked here, then threads hammer get/put while
 * another one creates, writes (reserved, as the module does), unlinks
 * and checkpoints: no reserved write may fail and the counts must stay
 * consistent.  Deterministic apart from thread interleaving; nothing is
 * timed.  TAP on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "gaze_core.h"
#include "gaze_zdev.h"
#include "../tap.h"

#include "fixture.h"
#include "fixture_fsck.h"

/* a regular file in the root */
static int
mkfile(struct gaze_fs *fs, const char *name, u32 *ino)
{
	return create(fs, GAZE_ROOT_INO, name, 0100644, ino);
}

/* the module's writeback path: blocks [b0, b0 + n) in one call */
static int
wb(struct gaze_fs *fs, u32 ino, u32 file, u32 gen, u64 b0, u32 n)
{
	u8 *buf = malloc((size_t)n * BS);
	u32 i;
	int err;

	for (i = 0; i < n; i++)
		fill(buf + (size_t)i * BS, file, gen, b0 + i);
	err = gaze_file_write_blocks(fs, ino, b0, n, buf, (b0 + n) * BS);
	free(buf);
	return err;
}

static int
rget(struct gaze_fs *fs, u32 nr, bool overwrite)
{
	int ret;

	spin_lock(&fs->resv_lock);
	ret = gaze_resv_get(fs, nr, overwrite);
	spin_unlock(&fs->resv_lock);
	return ret;
}

static void
rput(struct gaze_fs *fs, u32 nr)
{
	spin_lock(&fs->resv_lock);
	gaze_resv_put(fs, nr);
	spin_unlock(&fs->resv_lock);
}

static u64
free_blocks(struct gaze_fs *fs)
{
	u64 n;

	mutex_lock(&fs->lock);
	n = gaze_space_free_blocks(fs);
	mutex_unlock(&fs->lock);
	return n;
}

/* reserves one block at a time until refused; returns how many */
static u32
take_all(struct gaze_fs *fs, int *why)
{
	u32 n = 0;

	while ((*why = rget(fs, 1, false)) == 0)
		n++;
	return n;
}

/* ---------------------------------------------------------------- */

static void
test_logical(void)
{
	struct gaze_dev *d = mkdev(48);
	struct gaze_fs *fs = format(d, 4, GAZE_GC_GREEDY);
	u64 uf, ph, before;
	u32 n, ino, ino2;
	int why, err;

	gaze_resv_snapshot(fs, &uf, &ph);
	tap_ok(uf == free_blocks(fs) && uf > 0 && ph > 0,
	       "published after format: %llu free user blocks (= statfs), %llu writable",
	       (unsigned long long)uf, (unsigned long long)ph);
	tap_ok(!mkfile(fs, "a", &ino), "create a file");
	gaze_resv_snapshot(fs, &uf, &ph);
	tap_ok(uf == free_blocks(fs),
	       "the new inode's node is published at once (%llu)",
	       (unsigned long long)uf);
	n = take_all(fs, &why);
	tap_ok(why == -ENOSPC && n > 0 && n < uf &&
	       n + n / 64 + 16 >= uf - 1,
	       "logical rule: %u single blocks reserved of %llu free, then ENOSPC (%d)",
	       n, (unsigned long long)uf, why);
	tap_ok(fs->resv_blocks == n, "resv_blocks counts them (%llu)",
	       (unsigned long long)fs->resv_blocks);
	err = mkfile(fs, "b", &ino2);
	tap_ok(err == -ENOSPC,
	       "a new inode may not take reserved blocks (%d)", err);
	tap_ok(rget(fs, 1, true) == 0, "an overwrite is still accepted");
	rput(fs, 1);
	/* the reserved writeback fills the filesystem and never fails */
	for (err = 0, before = 0; before + 64 <= n && !err; before += 64) {
		err = wb(fs, ino, 1, 1, before, 64);
		if (!err)
			rput(fs, 64);
	}
	tap_ok(!err, "writing back %llu reserved blocks succeeds (%d)",
	       (unsigned long long)before, err);
	tap_ok(!check_range(fs, ino, 1, 1, 0, (u32)before), "and reads back");
	/* full now: overwriting mapped blocks must still succeed */
	rput(fs, n - (u32)before);
	gaze_resv_snapshot(fs, &uf, &ph);
	tap_ok(rget(fs, (u32)uf, false) == -ENOSPC && rget(fs, 64, true) == 0,
	       "nearly full (%llu free): new data refused, overwrite reserved",
	       (unsigned long long)uf);
	err = wb(fs, ino, 1, 2, 0, 64);
	tap_ok(!err, "writeback of a 64-block overwrite on a full fs (%d)",
	       err);
	rput(fs, 64);
	tap_ok(!check_range(fs, ino, 1, 2, 0, 64) &&
	       !check_range(fs, ino, 1, 1, 64, (u32)before - 64),
	       "the overwrite and the rest read back");
	tap_ok(fs->resv_blocks == 0, "every reservation given back");
	/* unreserved writeback may not take more than the free blocks */
	gaze_resv_snapshot(fs, &uf, &ph);
	err = wb(fs, ino, 1, 1, before, (u32)uf + 64);
	tap_ok(err == -ENOSPC, "new data beyond the free blocks: ENOSPC (%d)",
	       err);
	tap_ok(!mkfile(fs, "b", &ino2) || uf < 2,
	       "without reservations a create fits again");
	tap_ok(!gaze_fs_close(fs), "close");
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */

static void
test_physical(void)
{
	struct gaze_dev *d = mkdev(48);
	struct gaze_fs *fs = format(d, 4, GAZE_GC_GREEDY);
	u32 ino[2], nr, k, half = ZB / 2;
	u64 uf, ph, uf2, ph2;
	int err = 0, ret;

	tap_ok(!mkfile(fs, "a", &ino[0]) && !mkfile(fs, "b", &ino[1]),
	       "two files");
	/* interleave them half a zone at a time until full */
	for (k = 0; !err; k++)
		err = wb(fs, ino[k & 1], k & 1, 1, (u64)(k / 2) * half, half);
	tap_ok(err == -ENOSPC && k > 8, "filled after %u half zones", k - 1);
	tap_ok(!gaze_ns_unlink(fs, GAZE_ROOT_INO, "b", 1),
	       "unlink one: every zone half valid");
	mutex_lock(&fs->lock);
	gaze_space_publish(fs);
	mutex_unlock(&fs->lock);
	gaze_resv_snapshot(fs, &uf, &ph);
	tap_ok(uf > ph + ZB, "logically free %llu, writable now only %llu",
	       (unsigned long long)uf, (unsigned long long)ph);
	nr = (u32)ph + ZB;
	ret = rget(fs, nr, false);
	tap_ok(ret == -EAGAIN, "physical rule: %u blocks -> EAGAIN (%d)", nr,
	       ret);
	tap_ok(fs->resv_blocks == 0, "a refused get reserves nothing");
	/* an in-flight GC job's gain counts */
	mutex_lock(&fs->lock);
	for (k = 0; k < GAZE_GCP_MAX_JOBS_; k++)
		fs->gcp_zone[k] = GAZE_GCP_NONE;
	fs->gcp_zone[0] = fs->lay.main_zone_start;
	fs->gcp_gain[0] = 2 * ZB;
	gaze_space_publish(fs);
	mutex_unlock(&fs->lock);
	gaze_resv_snapshot(fs, &uf2, &ph2);
	tap_ok(ph2 == ph + 2 * ZB, "in-flight GC gain is added (%llu -> %llu)",
	       (unsigned long long)ph, (unsigned long long)ph2);
	ret = rget(fs, nr, false);
	tap_ok(ret == 0, "so the same reservation is accepted (%d)", ret);
	rput(fs, nr);
	mutex_lock(&fs->lock);
	fs->gcp_zone[0] = GAZE_GCP_NONE;
	fs->gcp_gain[0] = 0;
	gaze_space_publish(fs);
	mutex_unlock(&fs->lock);
	tap_ok(rget(fs, nr, false) == -EAGAIN, "job over: EAGAIN again");
	/* foreground GC and its checkpoints free zones */
	mutex_lock(&fs->lock);
	err = gaze_gc_balance(fs, nr);
	mutex_unlock(&fs->lock);
	if (!err)
		err = gaze_gc_settle(fs);
	gaze_resv_snapshot(fs, &uf2, &ph2);
	tap_ok(!err && ph2 >= nr, "after GC and checkpoints: %llu writable (%d)",
	       (unsigned long long)ph2, err);
	ret = rget(fs, nr, false);
	tap_ok(ret == 0, "the reservation succeeds now (%d)", ret);
	for (k = 0, err = 0; k + 64 <= nr && !err; k += 64)
		err = wb(fs, ino[0], 5, 1, (u64)8192 + k, 64);
	tap_ok(!err, "and its writeback too (%d)", err);
	rput(fs, nr);
	tap_ok(!check_range(fs, ino[0], 0, 1, half, half) &&
	       !check_range(fs, ino[0], 5, 1, 8192, 64),
	       "data intact after GC");
	tap_ok(rget(fs, nr, false) == -EAGAIN || fs->resv_blocks == nr,
	       "consistent after use");
	if (fs->resv_blocks)
		rput(fs, (u32)fs->resv_blocks);
	tap_ok(!gaze_fs_close(fs), "close");
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* Threads                                                           */
/* ---------------------------------------------------------------- */

#define HAMMERS		3
#define HAMMER_ITERS	20000
#define NS_FILES	24
#define NS_ROUNDS	300

struct ctx {
	struct gaze_fs	*fs;
	volatile int	stop;
	u64		seed;
	u64		taken;		/* successful gets (hammers) */
	u32		wb_fail;	/* reserved writebacks that failed */
	u32		wb_ok, enospc, eagain, inv_bad;
	int		first_err;
};

static u64
xs(u64 *s)
{
	u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static void *
hammer(void *arg)
{
	struct ctx *c = arg;
	u64 s = c->seed, taken = 0;
	u32 held[8], nh = 0, i, n;

	for (i = 0; i < HAMMER_ITERS; i++) {
		if (nh == 8 || (nh && (xs(&s) & 1))) {
			rput(c->fs, held[--nh]);
			continue;
		}
		n = 1 + (u32)(xs(&s) % 16);
		if (!rget(c->fs, n, !(xs(&s) % 4))) {
			held[nh++] = n;
			taken++;
		}
	}
	while (nh)
		rput(c->fs, held[--nh]);
	c->taken = taken;
	return NULL;
}

/* the namespace side, reserving before writing as the module does */
static void *
nswriter(void *arg)
{
	struct ctx *c = arg;
	struct gaze_fs *fs = c->fs;
	u32 ino[NS_FILES] = { 0 }, len[NS_FILES] = { 0 }, r, f, n, nb, tries;
	u64 s = 0x1234567;
	char name[16];
	int err;

	for (r = 0; r < NS_ROUNDS; r++) {
		f = (u32)(xs(&s) % NS_FILES);
		snprintf(name, sizeof(name), "f%u", f);
		if (ino[f] && !(xs(&s) % 5)) {
			TAP_MUST(gaze_ns_unlink(fs, GAZE_ROOT_INO, name,
						(u32)strlen(name)));
			ino[f] = 0;
			continue;
		}
		if (!ino[f]) {
			if (mkfile(fs, name, &ino[f])) {
				ino[f] = 0;
				continue;
			}
			len[f] = 0;
		}
		n = 1 + (u32)(xs(&s) % 200);
		for (tries = 0;; tries++) {
			err = rget(fs, n, false);
			if (err != -EAGAIN)
				break;
			c->eagain++;
			if (tries == 3) {
				/* as the module after waiting: logical only */
				spin_lock(&fs->resv_lock);
				err = gaze_resv_get_logical(fs, n, false);
				spin_unlock(&fs->resv_lock);
				break;
			}
			mutex_lock(&fs->lock);
			err = gaze_gc_balance(fs, n);
			mutex_unlock(&fs->lock);
			if (!err)
				err = gaze_gc_settle(fs);
			if (err)
				break;
		}
		if (err) {
			c->enospc += err == -ENOSPC;
			continue;
		}
		for (nb = 0; nb < n && !err; nb += 64)
			err = wb(fs, ino[f], f, r, len[f] + nb,
				 min_t(u32, 64, n - nb));
		rput(fs, n);
		if (err) {
			c->wb_fail++;
			if (!c->first_err)
				c->first_err = err;
		} else {
			c->wb_ok++;
			len[f] += n;
		}
		/* the invariant, within one namespace operation's blocks */
		mutex_lock(&fs->lock);
		spin_lock(&fs->resv_lock);
		if (fs->resv_blocks &&
		    fs->resv_blocks > gaze_space_free_blocks(fs) + 8)
			c->inv_bad++;
		spin_unlock(&fs->resv_lock);
		mutex_unlock(&fs->lock);
		if (!(r % 37))
			TAP_MUST(gaze_fs_sync(fs));
	}
	c->stop = 1;
	return NULL;
}

static void
test_threads(void)
{
	struct gaze_dev *d = mkdev(40);
	struct gaze_fs *fs = format(d, 4, GAZE_GC_GREEDY);
	struct ctx hc[HAMMERS], nc;
	pthread_t ht[HAMMERS], nt;
	u64 taken = 0;
	int i, bad = 0;

	memset(&nc, 0, sizeof(nc));
	nc.fs = fs;
	for (i = 0; i < HAMMERS; i++) {
		memset(&hc[i], 0, sizeof(hc[i]));
		hc[i].fs = fs;
		hc[i].seed = 0x9e3779b97f4a7c15ull * (u64)(i + 1);
		if (pthread_create(&ht[i], NULL, hammer, &hc[i]))
			bad++;
	}
	if (pthread_create(&nt, NULL, nswriter, &nc))
		bad++;
	for (i = 0; i < HAMMERS; i++) {
		pthread_join(ht[i], NULL);
		taken += hc[i].taken;
	}
	pthread_join(nt, NULL);
	tap_ok(!bad, "threads started");
	tap_ok(taken > 0, "hammers took %llu reservations",
	       (unsigned long long)taken);
	tap_ok(nc.wb_ok > 0 && !nc.wb_fail,
	       "%u reserved writebacks, %u failed (first error %d); %u refused ENOSPC, %u EAGAIN rounds",
	       nc.wb_ok, nc.wb_fail, nc.first_err, nc.enospc, nc.eagain);
	tap_ok(!nc.inv_bad, "reserved blocks stayed within the free blocks");
	tap_ok(fs->resv_blocks == 0, "all given back (%llu)",
	       (unsigned long long)fs->resv_blocks);
	tap_ok(!gaze_fs_close(fs), "close");
	gaze_dev_close(d);
}

/*
 * A directory that grows on a filesystem reservations fill.  A new
 * directory block needs a slot in the directory's bmap, and bucket
 * blocks live past the inode's direct slots, in dnodes.  Were the dnode
 * made only when the block is written back (at the checkpoint), it would
 * be a new node checked against user_blocks there, and with every free
 * block promised to dirty data every checkpoint would fail with ENOSPC,
 * and so would the fsyncs that take one.  Here creates of long names fill the
 * directory while reservations are given back one at a time: those that
 * do not fit fail cleanly with ENOSPC, and a checkpoint after each one
 * that fit succeeds.
 */
static void
test_dir_grows_full(void)
{
	struct gaze_dev *d = mkdev(48);
	struct gaze_fs *fs = format(d, 4, GAZE_GC_GREEDY);
	u32 n, k, dir, ino, made = 0, refused = 0;
	int why, err = 0, cp = 0;
	struct gaze_attr a;
	char name[256];

	tap_ok(!create(fs, GAZE_ROOT_INO, "d", 040755, &dir), "mkdir d");
	n = take_all(fs, &why);
	tap_ok(why == -ENOSPC && n > 0, "every free block reserved (%u)", n);
	/* give back one at a time; long names fill the inline dentries */
	for (k = 0; k < 128 && k < n && !cp; k++) {
		rput(fs, 1);
		for (;;) {
			snprintf(name, sizeof(name), "%0200u", made + refused);
			err = create(fs, dir, name, 0100644, &ino);
			if (err)
				break;
			made++;
			mutex_lock(&fs->lock);
			cp = gaze_cp_write(fs, 0);
			mutex_unlock(&fs->lock);
			if (cp)
				break;
		}
		if (err == -ENOSPC)
			refused++;
		else if (err)
			break;
	}
	tap_ok(!cp, "a checkpoint after each create succeeds (%d; %u made)",
	       cp, made);
	tap_ok(err == -ENOSPC || !err,
	       "creates that do not fit fail with ENOSPC (%d, %u refused)", err,
	       refused);
	tap_ok(made > 0 && refused > 0,
	       "some fit, some did not (%u made, %u refused)", made, refused);
	memset(&a, 0, sizeof(a));
	err = gaze_ns_getattr(fs, dir, &a);
	tap_ok(!err && a.blocks >= 2,
	       "the directory grew out of its inode (%llu blocks, %d)",
	       (unsigned long long)a.blocks, err);
	rput(fs, n - k);
	tap_ok(fs->resv_blocks == 0, "every reservation given back");
	tap_ok(!gaze_fs_close(fs), "close");
	err = fsck_problems_on(d);
	tap_ok(!err, "fsck -fn finds it clean (%d)", err);
	gaze_dev_close(d);
}

int
main(void)
{
	test_logical();
	test_physical();
	test_threads();
	test_dir_grows_full();
	return tap_done();
}
