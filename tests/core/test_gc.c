// SPDX-License-Identifier: GPL-2.0
/*
 * test_gc.c - unit tests of the baseline garbage collector (gc.c) and
 * the PREFREE rule of space.c, on the ZNS emulator.
 *
 * Why: GC moves live data, so a bug loses files silently.  Every test
 * therefore checks contents against a model: victim choice per policy on
 * a layout built block by block; a model-checked random workload with
 * explicit GC runs and reopens; overwriting files holding ~65% of the
 * capacity until more than five times the device was written; power cuts
 * at random points during GC (an injected write error inside
 * gaze_gc_zone, then a cut) and between GC-heavy operations, each
 * followed by a reopen that must find every file as of the last
 * checkpoint; and the two-checkpoint rule for emptied zones.  FITRIM
 * (gaze_space_trim): only FREE zones, wholly inside the range, reset on
 * the device; the request's checks.  lazy_summary: an overwrite leaves
 * the old block's summary entry and dirties no summary block there; GC
 * and a reopen after it.
 * Deterministic: fixed seeds; the one sleep only orders zone ages for
 * the cost-benefit test, nothing is timed.  TAP on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gaze_core.h"
#include "gaze_zdev.h"
#include "../tap.h"

#include "fixture.h"

static int
select_locked(struct gaze_fs *fs, int policy, u32 *zone)
{
	int r;

	mutex_lock(&fs->lock);
	r = gaze_gc_select(fs, policy, zone);
	mutex_unlock(&fs->lock);
	return r;
}

/*
 * The handoff of a foreground run's batch (gaze_gc_fg_handoff) only when
 * a step would find work: with no victim the GC thread would only wake
 * to find none.
 */
static bool
handoff_locked(struct gaze_fs *fs)
{
	struct gaze_gc_fg_run r;
	u64 n0 = fs->stat[GAZE_STAT_GC_HANDOFF];
	bool handed;

	memset(&r, 0, sizeof(r));
	r.want = 5;		/* a run with a batch beyond its writer's part */
	r.enough = 3;
	r.can_gc = true;
	mutex_lock(&fs->lock);
	gaze_gc_fg_handoff(fs, &r);
	handed = fs->gc_fg_rest_on;
	if (handed != (fs->stat[GAZE_STAT_GC_HANDOFF] == n0 + 1) ||
	    r.want != (handed ? 3u : 5u))
		printf("# handoff: counter or writer's part wrong\n");
	else if (handed)
		handed = fs->gc_fg_rest.want == 5;
	fs->gc_fg_rest_on = false;
	mutex_unlock(&fs->lock);
	return handed;
}

static void
test_handoff(void)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	u32 ino[2], z, v;

	tap_ok(!handoff_locked(fs), "handoff: none on an empty filesystem");
	TAP_MUST(create(fs, GAZE_ROOT_INO, "a", 0100644, &ino[0]));
	TAP_MUST(create(fs, GAZE_ROOT_INO, "b", 0100644, &ino[1]));
	TAP_MUST(put(fs, ino[0], 1, 1, 0, ZB));
	TAP_MUST(put(fs, ino[1], 2, 1, 0, ZB));
	z = zone_of(fs, ino[0], 0);
	tap_ok(zone_state(fs, z, &v) == GAZE_ZS_FULL && v == ZB &&
	       !handoff_locked(fs),
	       "handoff: none while the only full zone is wholly valid");
	/* an eighth of the zone invalid: not yet what a foreground reclaim
	 * must free; a quarter: a victim */
	TAP_MUST(gaze_file_truncate(fs, ino[0], (u64)(ZB - ZB / 8 + 1) * BS));
	tap_ok(!handoff_locked(fs),
	       "handoff: none when no victim frees an eighth of a zone");
	TAP_MUST(gaze_file_truncate(fs, ino[0], (u64)(ZB - ZB / 4) * BS));
	tap_ok(handoff_locked(fs),
	       "handoff: the batch goes to the GC thread once a victim exists");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* Victim choice, zone move, the two-checkpoint rule                 */
/* ---------------------------------------------------------------- */

static void
test_victims(void)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	u32 ino[5], z[5], i, v, zone, bad = 0, nfree;
	u8 *buf = malloc(BS), *want = malloc(BS);
	u64 old[ZB / 4], gen_addr;
	char name[16];
	int err = 0;

	/* two logs: every file block goes to the data log in write order,
	 * so file i fills zone z[i] exactly */
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		bad += !!create(fs, GAZE_ROOT_INO, name, 0100644, &ino[i]);
	}
	for (i = 0; i < 5; i++) {
		bad += !!put(fs, ino[i], i, 1, 0, ZB);
		z[i] = zone_of(fs, ino[i], 0);
		if (zone_of(fs, ino[i], ZB - 1) != z[i])
			bad++;
		if (i == 0)
			sleep(3);	/* zone z[0] is older than the rest */
	}
	tap_ok(!bad, "five files fill five zones (%u..%u)", z[0], z[4]);
	/* z0 half valid and old; z1 a quarter valid; z2 emptied (PREFREE);
	 * z3 full; z4 is the data log head with every block invalid */
	TAP_MUST(gaze_file_truncate(fs, ino[0], (u64)ZB / 2 * BS));
	TAP_MUST(gaze_file_truncate(fs, ino[1], (u64)ZB / 4 * BS));
	TAP_MUST(gaze_file_truncate(fs, ino[2], 0));
	TAP_MUST(gaze_file_truncate(fs, ino[4], 0));
	tap_ok(zone_state(fs, z[0], &v) == GAZE_ZS_FULL && v == ZB / 2 &&
	       zone_state(fs, z[1], &v) == GAZE_ZS_FULL && v == ZB / 4 &&
	       zone_state(fs, z[2], &v) == GAZE_ZS_PREFREE && !v &&
	       zone_state(fs, z[3], &v) == GAZE_ZS_FULL && v == ZB &&
	       zone_state(fs, z[4], &v) == GAZE_ZS_OPEN && !v,
	       "zone states and counts as constructed");
	err = select_locked(fs, GAZE_GC_GREEDY, &zone);
	tap_ok(!err && zone == z[1],
	       "greedy picks the zone with the fewest valid blocks (%u)",
	       zone);
	err = select_locked(fs, GAZE_GC_COST_BENEFIT, &zone);
	tap_ok(!err && zone == z[0],
	       "cost-benefit picks the older, fuller zone (%u)", zone);
	tap_ok(!select_locked(fs, GAZE_GC_POLICY_DEFAULT, &zone) &&
	       zone == z[1], "the superblock's policy (greedy) is the default");
	tap_ok(gaze_gc_cb_score(ZB / 2, ZB, 3) > gaze_gc_cb_score(ZB / 4, ZB, 0) &&
	       gaze_gc_cb_score(ZB / 4, ZB, 5) > gaze_gc_cb_score(ZB / 2, ZB, 5) &&
	       gaze_gc_cb_score(ZB, ZB, 100) == 0,
	       "cost-benefit score: age raises it, valid blocks lower it");
	tap_ok(gc_zone_locked(fs, z[4]) == -EINVAL &&
	       gc_zone_locked(fs, z[2]) == -EINVAL &&
	       gc_zone_locked(fs, fs->lay.meta_zone_start) == -EINVAL,
	       "log heads, PREFREE and meta zones are refused");

	/* remember where file 1 lives now (the checkpoint will point here) */
	for (i = 0; i < ZB / 4; i++)
		gaze_file_bmap(fs, ino[1], i, &old[i]);
	tap_ok(!gaze_fs_sync(fs), "checkpoint before GC");
	nfree = gaze_space_free_zones(fs);
	tap_ok(!gc_zone_locked(fs, z[1]) &&
	       zone_state(fs, z[1], &v) == GAZE_ZS_PREFREE && !v,
	       "gc of zone %u leaves it PREFREE with 0 valid", z[1]);
	for (i = 0, bad = 0; i < ZB / 4; i++) {
		if (check_block(fs, ino[1], 1, 1, i, buf, want))
			bad++;
		gaze_file_bmap(fs, ino[1], i, &gen_addr);
		if (gen_addr / ZB == z[1])
			bad++;
	}
	tap_ok(!bad, "file 1 reads back from its new place");
	tap_ok(fs->gc.zones_reclaimed == 1 && fs->gc.data_moved == ZB / 4,
	       "counters: %llu zone, %llu blocks moved",
	       (unsigned long long)fs->gc.zones_reclaimed,
	       (unsigned long long)fs->gc.data_moved);
	tap_ok(!gaze_fs_sync(fs) &&
	       zone_state(fs, z[1], NULL) == GAZE_ZS_PREFREE,
	       "one checkpoint later the zone is still PREFREE");
	/* fill every FREE zone (writeback class, no checkpoint): the
	 * PREFREE one must not be reused */
	mutex_lock(&fs->lock);
	fill(want, 99, 99, 0);
	for (i = 0, bad = 0; i < 2 * nfree * ZB + 4 * ZB; i++) {
		err = gaze_block_alloc(fs, GAZE_LOG_DATA_HOT, 9, 0,
				       GAZE_SUM_DATA, &gen_addr);
		if (err)
			break;
		if (gen_addr / ZB == z[1])
			bad++;
		gaze_block_write(fs, gen_addr, want);
	}
	mutex_unlock(&fs->lock);
	tap_ok(err == -ENOSPC && !bad &&
	       zone_state(fs, z[1], NULL) == GAZE_ZS_PREFREE,
	       "allocating until ENOSPC (%u blocks) never used the PREFREE zone",
	       i);
	for (i = 0, bad = 0; i < ZB / 4; i++) {
		gaze_block_read(fs, old[i], buf);
		fill(want, 1, 1, i);
		if (memcmp(buf, want, BS))
			bad++;
	}
	tap_ok(!bad, "the previous checkpoint's blocks in it are intact");
	/* drop the fake blocks: back to the checkpoint, then two more */
	crash(fs);
	gaze_emu_power_cut(d, 5, 100);
	fs = NULL;
	if (gaze_fs_open(d, 0, &fs)) {
		printf("Bail out! open after crash\n");
		exit(1);
	}
	tap_ok(zone_state(fs, z[1], NULL) == GAZE_ZS_PREFREE,
	       "after a crash and mount the zone is still PREFREE");
	tap_ok(!gaze_fs_sync(fs) &&
	       zone_state(fs, z[1], NULL) == GAZE_ZS_FREE,
	       "the next checkpoint (the second since GC) frees it");
	fs = reopen(fs);
	for (i = 0, bad = 0; i < ZB / 4; i++)
		if (check_block(fs, ino[1], 1, 1, i, buf, want))
			bad++;
	for (i = 0; i < ZB / 2; i++)
		if (check_block(fs, ino[0], 0, 1, i, buf, want))
			bad++;
	tap_ok(!bad, "files intact after reopen");
	tap_ok(le64_to_cpu(fs->cp.gc_zones_reclaimed) >= 1,
	       "lifetime counter persisted (%llu zones)",
	       (unsigned long long)le64_to_cpu(fs->cp.gc_zones_reclaimed));
	gaze_fs_close(fs);
	gaze_dev_close(d);
	free(buf);
	free(want);
}

/* ---------------------------------------------------------------- */
/* Model-checked workload                                            */
/* ---------------------------------------------------------------- */

#define MF	48		/* files */
#define MB	96		/* max blocks per file */

struct model {
	u32	ino[MF];
	u32	nblk[MF];
	u32	gen[MF][MB];		/* 0: hole / beyond EOF */
	u32	com[MF][MB];		/* as of the last checkpoint */
	u32	alt[MF][MB];		/* also acceptable (0 = none) */
	u32	com_n[MF], alt_n[MF];
	u64	seen_cp;
	u32	next_gen;
};

/* verifies every file; exact: gen[], else com[] or alt[] */
static u32
model_check(struct gaze_fs *fs, struct model *m, bool exact)
{
	u8 *buf = malloc(BS), *want = malloc(BS), *zero = calloc(1, BS);
	struct gaze_attr a;
	u32 f, b, bad = 0, g;

	for (f = 0; f < MF; f++) {
		if (gaze_ns_getattr(fs, m->ino[f], &a)) {
			bad++;
			continue;
		}
		for (b = 0; b < MB; b++) {
			g = exact ? m->gen[f][b] : m->com[f][b];
			if (b >= a.size / BS)
				break;
			if (gaze_file_read(fs, m->ino[f], buf, BS,
					   (u64)b * BS) != BS) {
				bad++;
				continue;
			}
			if (!g) {
				if (memcmp(buf, zero, BS))
					bad++;
				continue;
			}
			fill(want, f, g, b);
			if (!memcmp(buf, want, BS))
				continue;
			if (!exact && m->alt[f][b]) {
				fill(want, f, m->alt[f][b], b);
				if (!memcmp(buf, want, BS)) {
					m->com[f][b] = m->alt[f][b];
					continue;
				}
			}
			if (bad < 5)
				printf("# file %u block %u: not gen %u\n", f, b,
				       g);
			bad++;
		}
		if (exact && a.size != (u64)m->nblk[f] * BS)
			bad++;
		if (!exact && a.size != (u64)m->com_n[f] * BS &&
		    a.size != (u64)m->alt_n[f] * BS)
			bad++;
	}
	free(buf);
	free(want);
	free(zero);
	return bad;
}

/* after recovery: what was found is the truth */
static void
model_settle(struct gaze_fs *fs, struct model *m)
{
	struct gaze_attr a;
	u32 f, b;

	for (f = 0; f < MF; f++) {
		gaze_ns_getattr(fs, m->ino[f], &a);
		m->nblk[f] = m->com_n[f] = m->alt_n[f] = (u32)(a.size / BS);
		for (b = 0; b < MB; b++) {
			if (b >= m->nblk[f])
				m->com[f][b] = 0;
			m->gen[f][b] = m->com[f][b];
			m->alt[f][b] = 0;
		}
	}
	m->seen_cp = fs->cp_seq;
}

/* records a committed checkpoint seen after an operation on file f
 * (f = MF: none); pre/pre_n: f's state before the operation */
static void
model_cp(struct gaze_fs *fs, struct model *m, u32 f, const u32 *pre,
	 u32 pre_n)
{
	u32 g, b;

	if (fs->cp_seq == m->seen_cp)
		return;
	m->seen_cp = fs->cp_seq;
	for (g = 0; g < MF; g++) {
		memcpy(m->com[g], m->gen[g], sizeof(m->com[g]));
		memset(m->alt[g], 0, sizeof(m->alt[g]));
		m->com_n[g] = m->alt_n[g] = m->nblk[g];
	}
	if (f >= MF)
		return;
	/* the checkpoint may have come before or after the data */
	for (b = 0; b < MB; b++)
		if (pre[b] != m->gen[f][b])
			m->alt[f][b] = pre[b] ? pre[b] : 0;
	m->alt_n[f] = pre_n;
}

static int
model_init(struct gaze_fs *fs, struct model *m)
{
	char name[16];
	u32 f;
	int err;

	memset(m, 0, sizeof(*m));
	m->next_gen = 1;
	for (f = 0; f < MF; f++) {
		snprintf(name, sizeof(name), "m%u", f);
		err = create(fs, GAZE_ROOT_INO, name, 0100644, &m->ino[f]);
		if (err)
			return err;
	}
	err = gaze_fs_sync(fs);
	m->seen_cp = fs->cp_seq;
	return err;
}

/* one random write or truncate; updates the model */
static int
model_step(struct gaze_fs *fs, struct model *m, u32 maxblk)
{
	u32 f = (u32)(rnd() % MF), pre[MB], pre_n = m->nblk[f];
	u32 b0, n, g, b;
	int err;

	memcpy(pre, m->gen[f], sizeof(pre));
	if (rnd() % 8 == 0) {
		n = (u32)(rnd() % (m->nblk[f] + 1));
		err = gaze_file_truncate(fs, m->ino[f], (u64)n * BS);
		if (!err) {
			for (b = n; b < MB; b++)
				m->gen[f][b] = 0;
			m->nblk[f] = n;
		}
	} else {
		b0 = (u32)(rnd() % maxblk);
		n = 1 + (u32)(rnd() % (maxblk - b0));
		g = m->next_gen++;
		err = put(fs, m->ino[f], f, g, b0, n);
		if (!err) {
			for (b = b0; b < b0 + n; b++)
				m->gen[f][b] = g;
			if (b0 + n > m->nblk[f])
				m->nblk[f] = b0 + n;
		}
	}
	model_cp(fs, m, f, pre, pre_n);
	return err;
}

static void
test_model(void)
{
	struct gaze_dev *d = mkdev(40);
	struct gaze_fs *fs = format(d, 0, GAZE_GC_COST_BENEFIT);
	struct model *m = calloc(1, sizeof(*m));
	u32 k, bad = 0, zone, runs = 0, dirino, i;
	u64 written = 0, cap = (u64)d->nr_zones * ZB;
	char name[32];
	int err = 0, r;

	tap_ok(!model_init(fs, m), "model: 48 files created");
	/* a hashed directory whose blocks GC must move too */
	err = create(fs, GAZE_ROOT_INO, "dir", 040755, &dirino);
	for (i = 0; !err && i < 300; i++) {
		snprintf(name, sizeof(name), "entry-with-a-long-name-%u", i);
		err = create(fs, dirino, name, 0100644, &k);
	}
	tap_ok(!err, "a directory of 300 entries");
	for (k = 0; k < 3000 && !err; k++) {
		err = model_step(fs, m, MB);
		written += MB / 2;
		if (k % 100 == 50) {
			/* explicit GC of the chosen victim, then a check */
			if (!select_locked(fs, GAZE_GC_POLICY_DEFAULT, &zone)) {
				err = gc_zone_locked(fs, zone);
				runs++;
			}
			bad += model_check(fs, m, true);
		}
		if (k % 100 == 99) {
			snprintf(name, sizeof(name), "entry-with-a-long-name-%u",
				 (u32)(rnd() % 300));
			r = gaze_ns_unlink(fs, dirino, name, (u32)strlen(name));
			if (r != -ENOENT)	/* the name may not exist */
				TAP_MUST(r);
			create(fs, dirino, name, 0100644, &i);
		}
		if (k % 700 == 699) {
			fs = reopen(fs);
			bad += model_check(fs, m, true);
		}
	}
	tap_ok(!err, "3000 random writes and truncates (err %d)", err);
	tap_ok(!bad, "every check matched the model (%u explicit GC runs, %llu zones reclaimed in all)",
	       runs, (unsigned long long)fs->gc.zones_reclaimed);
	tap_ok(written > 2 * cap, "wrote about %llu blocks, device %llu",
	       (unsigned long long)written, (unsigned long long)cap);
	for (i = 0, bad = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "entry-with-a-long-name-%u", i);
		if (gaze_ns_lookup(fs, dirino, name, (u32)strlen(name), &k,
				   NULL))
			bad++;
	}
	tap_ok(!bad, "every directory entry is still found");
	fs = reopen(fs);
	tap_ok(!model_check(fs, m, true), "model matches after reopen");
	gaze_fs_close(fs);
	gaze_dev_close(d);
	free(m);
}

/* ---------------------------------------------------------------- */
/* Overwrite more than 5x the device                                 */
/* ---------------------------------------------------------------- */

static void
test_overwrite(u32 nr_logs, u32 policy)
{
	struct gaze_dev *d = mkdev(32);
	struct gaze_fs *fs = format(d, nr_logs, policy);
	u64 user = le64_to_cpu(fs->sb.user_blocks);
	u64 devblk = (u64)d->nr_zones * ZB, written = 0, fb;
	u32 nf, per = 64, f, *gen, *ino, bad = 0, b, free0;
	u8 *buf = malloc(BS), *want = malloc(BS);
	char name[16];
	int err = 0;

	/* files of 64 blocks holding about 65% of the user capacity */
	nf = (u32)(user * 65 / 100 / per);
	gen = calloc(nf, sizeof(*gen));
	ino = calloc(nf, sizeof(*ino));
	for (f = 0; f < nf && !err; f++) {
		snprintf(name, sizeof(name), "o%u", f);
		err = create(fs, GAZE_ROOT_INO, name, 0100644, &ino[f]);
		if (!err)
			err = put(fs, ino[f], f, gen[f] = 1, 0, per);
		written += per;
	}
	tap_ok(!err, "overwrite (logs %u, policy %u): %u files of %u blocks, user %llu blocks",
	       nr_logs, policy, nf, per, (unsigned long long)user);
	free0 = gaze_space_free_zones(fs);
	while (!err && written < 5 * devblk + devblk / 2) {
		f = (u32)(rnd() % nf);
		err = put(fs, ino[f], f, ++gen[f], 0, per);
		written += per;
		/* read back another file now and then */
		f = (u32)(rnd() % nf);
		b = (u32)(rnd() % per);
		if (!err && check_block(fs, ino[f], f, gen[f], b, buf, want))
			bad++;
	}
	tap_ok(!err, "no error after %llu blocks written (%.1fx the device)",
	       (unsigned long long)written, (double)written / devblk);
	tap_ok(fs->gc.zones_reclaimed > 0,
	       "GC ran: %llu zones, %llu data + %llu node blocks moved, %llu checkpoints, free zones %u -> %u",
	       (unsigned long long)fs->gc.zones_reclaimed,
	       (unsigned long long)fs->gc.data_moved,
	       (unsigned long long)fs->gc.nodes_moved,
	       (unsigned long long)fs->gc.checkpoints, free0,
	       gaze_space_free_zones(fs));
	fb = gaze_space_free_blocks(fs);
	tap_ok(fb + (u64)nf * per <= user && fb + (u64)nf * per + 3 * nf >= user,
	       "free blocks (%llu) count invalid blocks as free",
	       (unsigned long long)fb);
	for (f = 0; f < nf; f++)
		for (b = 0; b < per; b++)
			if (check_block(fs, ino[f], f, gen[f], b, buf, want))
				bad++;
	tap_ok(!bad, "every file holds its last generation");
	fs = reopen(fs);
	for (f = 0, bad = 0; f < nf; f++)
		for (b = 0; b < per; b++)
			if (check_block(fs, ino[f], f, gen[f], b, buf, want))
				bad++;
	tap_ok(!bad, "and after reopen");
	gaze_fs_close(fs);
	gaze_dev_close(d);
	free(gen);
	free(ino);
	free(buf);
	free(want);
}

/* ---------------------------------------------------------------- */
/* ENOSPC only when valid data fills the user capacity                */
/* ---------------------------------------------------------------- */

static void
test_enospc(void)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 0, GAZE_GC_GREEDY);
	u64 user = le64_to_cpu(fs->sb.user_blocks), n = 0, valid;
	u32 ino, big;
	int err;

	/* a file rewritten in place many times, then grown until full */
	err = create(fs, GAZE_ROOT_INO, "a", 0100644, &ino);
	for (n = 0; !err && n < 8 * user / ZB; n++)
		err = put(fs, ino, 0, (u32)n + 1, 0, ZB);
	tap_ok(!err, "rewriting one zone's worth %llu times: no ENOSPC",
	       (unsigned long long)n);
	create(fs, GAZE_ROOT_INO, "b", 0100644, &big);
	for (n = 0; !(err = put(fs, big, 1, 1, n * 16, 16)); n++)
		;
	valid = user - gaze_space_free_blocks(fs);
	tap_ok((err == -ENOSPC || err == -EAGAIN) && valid + 64 >= user,
	       "ENOSPC only once valid data fills the user capacity (%llu of %llu blocks)",
	       (unsigned long long)valid, (unsigned long long)user);
	TAP_MUST(gaze_file_truncate(fs, big, 0));
	tap_ok(!put(fs, big, 1, 2, 0, ZB), "after a truncate writes work again");
	fs = reopen(fs);
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* Power cuts during GC workloads                                    */
/* ---------------------------------------------------------------- */

static void
test_powercut(void)
{
	static const u32 keep[] = { 0, 50, 100 };
	struct gaze_dev *d = mkdev(28);
	struct gaze_fs *fs = format(d, 0, GAZE_GC_GREEDY);
	struct model *m = calloc(1, sizeof(*m));
	u32 round, k, steps, bad = 0, zone, ingc = 0, bad_open = 0;
	int err;

	if (model_init(fs, m)) {
		tap_ok(0, "powercut: model init");
		return;
	}
	for (round = 0; round < 24; round++) {
		steps = 20 + (u32)(rnd() % 60);
		for (k = 0; k < steps; k++)
			if (model_step(fs, m, MB))
				break;
		if (round % 2) {
			/* cut inside gaze_gc_zone: a write fails, then power */
			ingc++;
			gaze_emu_fail_after(d, 1 + rnd() % 200, 0);
			if (!select_locked(fs, GAZE_GC_GREEDY, &zone))
				gc_zone_locked(fs, zone);
			gaze_emu_fail_after(d, 0, 0);
			/* what gc_zone did never reached a checkpoint */
			model_cp(fs, m, MF, NULL, 0);
		}
		crash(fs);
		gaze_emu_power_cut(d, 77 + round, keep[round % 3]);
		fs = NULL;
		err = gaze_fs_open(d, 0, &fs);
		if (err) {
			printf("# round %u: open %d\n", round, err);
			bad_open++;
			break;
		}
		k = model_check(fs, m, false);
		if (k)
			printf("# round %u: %u mismatches\n", round, k);
		bad += k;
		model_settle(fs, m);
	}
	tap_ok(!bad_open, "every power cut reopens (%u rounds, %u inside GC)",
	       round, ingc);
	tap_ok(!bad, "every file is as of the last checkpoint after each cut");
	if (fs) {
		for (k = 0; k < 200; k++)
			if (model_step(fs, m, MB))
				break;
		fs = reopen(fs);
		tap_ok(!model_check(fs, m, true),
		       "the recovered filesystem keeps working");
		gaze_fs_close(fs);
	}
	gaze_dev_close(d);
	free(m);
}

/* ---------------------------------------------------------------- */
/* The baseline mover a chunk at a time, other work in between        */
/* ---------------------------------------------------------------- */

/*
 * gcpolicy.c moves a zone GC_MOVE_CHUNK valid blocks per step, and the
 * module lets go of fs->lock between steps: overwrites of the victim's
 * blocks, checkpoints and other collectors come in between.  With chunks
 * of 4 blocks: the zone being moved is busy for every other collector,
 * overwrites of its blocks and a checkpoint between chunks lose nothing,
 * the move finishes (PREFREE, counted once), a crash in the middle of a
 * move keeps the last checkpoint, and every file reads back throughout.
 */
static void
test_chunked(void)
{
	struct gaze_dev *d = mkdev(32);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	u64 user = le64_to_cpu(fs->sb.user_blocks), reclaimed;
	u32 nf, per = 16, f, *gen, *ino, z, other, steps = 0, hit = 0, b;
	u32 bad = 0;
	char name[16];
	bool more = true;
	int err = 0, st;

	nf = (u32)(user * 60 / 100 / per);
	gen = calloc(nf, sizeof(*gen));
	ino = calloc(nf, sizeof(*ino));
	for (f = 0; f < nf && !err; f++) {
		snprintf(name, sizeof(name), "c%u", f);
		err = create(fs, GAZE_ROOT_INO, name, 0100644, &ino[f]);
		if (!err)
			err = put(fs, ino[f], f, gen[f] = 1, 0, per);
	}
	/* a third of the files overwritten: victims about 2/3 valid */
	for (f = 0; f < nf && !err; f += 3)
		err = put(fs, ino[f], f, ++gen[f], 0, per);
	err = err ? err : gaze_fs_sync(fs);
	tap_ok(!err, "chunked mover: %u files of %u blocks, a third rewritten",
	       nf, per);
	fs->gc_move_chunk = 4;
	reclaimed = fs->gc.zones_reclaimed;
	err = gaze_gc_background(fs, 100, 100, GAZE_GC_BG_FORCE, &more);
	z = fs->gc_mv.zone;
	tap_ok(!err && z && more,
	       "one step moves a chunk and leaves zone %u in progress (%d)",
	       z, err);
	if (!z)
		goto out;
	tap_ok(gaze_gcp_zone_busy(fs, z) && gaze_gc_zone(fs, z) == -EBUSY &&
	       (gaze_gc_pick(fs, GAZE_GC_USER, &other) || other != z),
	       "the zone in progress is busy for every other collector");
	/* overwrite every other file with a block still in the zone, so
	 * that valid blocks stay for the next chunks; then commit */
	for (f = 0; f < nf && !err; f++)
		for (b = 0; b < per && !err; b++)
			if (zone_of(fs, ino[f], b) == z) {
				if (!(hit++ & 1))
					err = put(fs, ino[f], f, ++gen[f], 0,
						  per);
				break;
			}
	err = err ? err : gaze_fs_sync(fs);
	tap_ok(!err && hit > 1 && fs->gc_mv.zone == z,
	       "%u of %u files with blocks in it rewritten and a checkpoint written between chunks (%d)",
	       (hit + 1) / 2, hit, err);
	while (!err && fs->gc_mv.zone == z && steps < 10000) {
		err = gaze_gc_background(fs, 100, 100, GAZE_GC_BG_FORCE,
					 &more);
		steps++;
	}
	st = zone_state(fs, z, NULL);
	tap_ok(!err && !fs->gc_mv.zone && steps > 1 &&
	       fs->gc.zones_reclaimed == reclaimed + 1 &&
	       (st == GAZE_ZS_PREFREE || st == GAZE_ZS_FREE),
	       "the move finished in %u more steps, zone %u state %d, counted once (%d)",
	       steps, z, st, err);
	for (f = 0; f < nf; f++)
		bad += !!check_range(fs, ino[f], f, gen[f], 0, per);
	tap_ok(!bad, "every file holds its last generation");
	/* a crash with a move half done: the last checkpoint is intact */
	err = gaze_gc_background(fs, 100, 100, GAZE_GC_BG_FORCE, &more);
	z = fs->gc_mv.zone;
	for (f = 1; f < nf && !err; f += 5)
		err = put(fs, ino[f], f, ++gen[f], 0, per);
	err = err ? err : gaze_fs_sync(fs);
	if (!err && fs->gc_mv.zone)
		err = gaze_gc_background(fs, 100, 100, GAZE_GC_BG_FORCE,
					 &more);
	tap_ok(!err && z, "another move begun (zone %u), files rewritten, synced, a chunk more (%d)",
	       z, err);
	crash(fs);
	fs = NULL;
	err = gaze_fs_open(d, 0, &fs);
	tap_ok(!err, "reopened after a crash in the middle of a move (%d)",
	       err);
	if (err)
		goto out_dev;
	for (f = 0, bad = 0; f < nf; f++)
		bad += !!check_range(fs, ino[f], f, gen[f], 0, per);
	tap_ok(!bad, "every file holds its last synced generation");
	fs->gc_move_chunk = 4;
	for (steps = 0, more = true; !err && more && steps < 100000; steps++)
		err = gaze_gc_background(fs, 100, 100, GAZE_GC_BG_FORCE,
					 &more);
	for (f = 0, bad = 0; f < nf; f++)
		bad += !!check_range(fs, ino[f], f, gen[f], 0, per);
	tap_ok(!err && !bad && !fs->gc_mv.zone,
	       "collected in %u more steps; every file still reads back (%d)",
	       steps, err);
	fs = reopen(fs);
	for (f = 0, bad = 0; f < nf; f++)
		bad += !!check_range(fs, ino[f], f, gen[f], 0, per);
	tap_ok(!bad, "and after reopen");
out:
	gaze_fs_close(fs);
out_dev:
	gaze_dev_close(d);
	free(gen);
	free(ino);
}

/* ---------------------------------------------------------------- */
/* FITRIM (gaze_space_trim)                                          */
/* ---------------------------------------------------------------- */

static int
dev_cond(struct gaze_fs *fs, u32 zone)
{
	struct gaze_zone z;

	if (fs->dev->ops->report(fs->dev, zone, 1, &z) != 1)
		return -1;
	return z.cond;
}

/* the whole loop the module runs, fs->lock per call */
static int
trim(struct gaze_fs *fs, u64 start, u64 len, u64 minlen, struct gaze_trim *t)
{
	int r = gaze_space_trim_init(fs, start, len, minlen, t);

	while (!r) {
		mutex_lock(&fs->lock);
		r = gaze_space_trim(fs, t);
		mutex_unlock(&fs->lock);
	}
	return r < 0 ? r : 0;
}

static void
test_trim(void)
{
	struct gaze_dev *d = mkdev(24);
	struct gaze_fs *fs = format(d, 2, GAZE_GC_GREEDY);
	u64 zbytes = (u64)ZB * BS, all = d->nr_blocks * BS;
	u32 ino[5], z[5], i, nfree, bad = 0;
	struct gaze_trim t;
	int r;
	char name[16];

	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "t%u", i);
		bad += !!create(fs, GAZE_ROOT_INO, name, 0100644, &ino[i]);
		bad += !!put(fs, ino[i], i, 1, 0, ZB);
		z[i] = zone_of(fs, ino[i], 0);
	}
	tap_ok(!bad && !gaze_fs_sync(fs), "trim: five files fill zones %u..%u",
	       z[0], z[4]);
	/* z0 and z2 emptied two checkpoints ago: FREE, still written on
	 * the device; z1 emptied one checkpoint ago: PREFREE */
	TAP_MUST(gaze_file_truncate(fs, ino[0], 0));
	TAP_MUST(gaze_file_truncate(fs, ino[2], 0));
	TAP_MUST(gaze_fs_sync(fs));
	TAP_MUST(gaze_file_truncate(fs, ino[1], 0));
	TAP_MUST(gaze_fs_sync(fs));
	tap_ok(zone_state(fs, z[0], NULL) == GAZE_ZS_FREE &&
	       zone_state(fs, z[2], NULL) == GAZE_ZS_FREE &&
	       zone_state(fs, z[1], NULL) == GAZE_ZS_PREFREE &&
	       dev_cond(fs, z[0]) == GAZE_ZC_FULL &&
	       dev_cond(fs, z[2]) == GAZE_ZC_FULL,
	       "trim: two FREE zones still full on the device, one PREFREE");
	nfree = gaze_space_free_zones(fs);
	r = trim(fs, 0, ~0ull, 0, &t);
	tap_ok(!r && t.zones_reset == 2 && t.trimmed == (u64)nfree * ZB,
	       "trim of everything: %u zones reset, %llu blocks trimmed (%u FREE zones)",
	       t.zones_reset, (unsigned long long)t.trimmed, nfree);
	tap_ok(dev_cond(fs, z[0]) == GAZE_ZC_EMPTY &&
	       dev_cond(fs, z[2]) == GAZE_ZC_EMPTY &&
	       dev_cond(fs, z[1]) == GAZE_ZC_FULL &&
	       dev_cond(fs, z[3]) == GAZE_ZC_FULL,
	       "trim: the FREE zones are empty, the PREFREE and FULL ones untouched");
	tap_ok(!check_range(fs, ino[3], 3, 1, 0, ZB) &&
	       !check_range(fs, ino[4], 4, 1, 0, ZB),
	       "trim: the other files read back");
	tap_ok(!trim(fs, 0, ~0ull, 0, &t) && !t.zones_reset &&
	       t.trimmed == (u64)nfree * ZB,
	       "a second trim resets nothing and reports the same free space");
	tap_ok(!trim(fs, z[0] * zbytes, zbytes, 0, &t) && t.trimmed == ZB &&
	       !trim(fs, z[0] * zbytes + 1, zbytes, 0, &t) && !t.trimmed &&
	       !trim(fs, z[0] * zbytes, zbytes - BS, 0, &t) && !t.trimmed &&
	       !trim(fs, z[1] * zbytes, zbytes, 0, &t) && !t.trimmed,
	       "a range trims only the FREE zones wholly inside it");
	tap_ok(trim(fs, all, zbytes, 0, &t) == -EINVAL &&
	       trim(fs, ~0ull, zbytes, 0, &t) == -EINVAL &&
	       trim(fs, 0, BS - 1, 0, &t) == -EINVAL &&
	       trim(fs, 0, ~0ull, zbytes + 1, &t) == -EINVAL &&
	       !trim(fs, 0, ~0ull, zbytes, &t) &&
	       !trim(fs, all - BS, ~0ull, 0, &t) && !t.trimmed,
	       "start past the device, len under a block, minlen over a zone: EINVAL");
	/* the trimmed zones take new data, and all of it survives a reopen */
	for (i = 0; i < 3; i++)
		bad += !!put(fs, ino[i], 10 + i, 2, 0, ZB);
	fs = reopen(fs);
	for (i = 0; i < 5; i++)
		bad += check_range(fs, ino[i], i < 3 ? 10 + i : i, i < 3 ? 2 : 1,
				   0, ZB);
	tap_ok(!bad, "trim: files written after it and the old ones read back after a reopen");
	fs->flags |= GAZE_FS_RDONLY;
	tap_ok(trim(fs, 0, ~0ull, 0, &t) == -EROFS, "trim of a read-only instance: EROFS");
	fs->flags &= ~GAZE_FS_RDONLY;
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

/* ---------------------------------------------------------------- */
/* lazy_summary: an overwrite leaves the old block's summary entry    */
/* ---------------------------------------------------------------- */

static int
count_summary(struct gaze_fs *fs, struct gaze_mbuf *mb, void *arg)
{
	(void)fs;
	if (mb->id == GAZE_TABLE_SUMMARY)
		(*(u32 *)arg)++;
	return 0;
}

/*
 * A file over 8 zones (one summary block each), checkpointed; then 64
 * one-block overwrites spread over all 8.  With lazy_summary only the
 * summary blocks of the new blocks' zones are dirty (the data zone and
 * the node zone: at most 3 with a zone switch); without it, clearing the
 * old entries dirties all 8 of the file's too.  Then GC of a zone that
 * holds stale entries, a reopen, and every block checked.
 */
static void
test_lazy_summary(bool lazy)
{
	struct gaze_dev *d = mkdev(48);
	struct gaze_mkfs_params p;
	struct gaze_summary sum;
	struct gaze_fs *fs;
	u32 gen[8 * ZB], ino, i, ndirty = 0, z0, bad = 0;
	u64 old = 0, blk;
	bool valid = true;
	int r;

	format_params(d, 2, GAZE_GC_GREEDY, &p);
	if (!lazy)
		p.feature_compat &= ~GAZE_FEATURE_COMPAT_LAZY_SUMMARY;
	fs = format_with(d, &p);
	tap_ok(!!(le64_to_cpu(fs->sb.feature_compat) &
		  GAZE_FEATURE_COMPAT_LAZY_SUMMARY) == lazy,
	       "lazy_summary %s: the feature is %s", lazy ? "on" : "off",
	       lazy ? "set (mkfs default)" : "clear");
	bad += !!create(fs, GAZE_ROOT_INO, "f", 0100644, &ino);
	for (i = 0; i < 8; i++)
		bad += !!put(fs, ino, 1, 1, (u64)i * ZB, ZB);
	for (i = 0; i < 8 * ZB; i++)
		gen[i] = 1;
	z0 = zone_of(fs, ino, 0);
	r = gaze_file_bmap(fs, ino, 5, &old);
	tap_ok(!bad && !r && old && !gaze_fs_sync(fs),
	       "lazy_summary %s: a file of 8 zones, checkpointed", lazy ? "on" : "off");
	for (i = 0; i < 64; i++) {
		blk = i == 0 ? 5 : rnd() % (8 * ZB);
		gen[blk]++;
		bad += !!put(fs, ino, 1, gen[blk], blk, 1);
	}
	mutex_lock(&fs->lock);
	r = gaze_fs_flush_dirty(fs);
	if (!r)
		r = gaze_cache_for_each_dirty(fs, GAZE_MB_TABLE, count_summary,
					      &ndirty);
	if (!r)
		r = gaze_space_block_owner(fs, old, &valid, &sum);
	mutex_unlock(&fs->lock);
	if (lazy)
		tap_ok(!bad && !r && ndirty <= 3,
		       "lazy_summary on: 64 overwrites over 8 zones dirty %u summary blocks (at most 3)",
		       ndirty);
	else
		tap_ok(!bad && !r && ndirty >= 8,
		       "lazy_summary off: 64 overwrites over 8 zones dirty %u summary blocks (8 or more)",
		       ndirty);
	tap_ok(!valid && (lazy ? sum.type == GAZE_SUM_DATA &&
			  le32_to_cpu(sum.nid) : sum.type == GAZE_SUM_NONE),
	       "lazy_summary %s: an overwritten block is not valid, its entry %s",
	       lazy ? "on" : "off", lazy ? "kept" : "cleared");
	r = gc_zone_locked(fs, z0);
	tap_ok(!r && !gaze_fs_sync(fs) && !gaze_fs_sync(fs) &&
	       zone_state(fs, z0, NULL) == GAZE_ZS_FREE,
	       "lazy_summary %s: GC empties zone %u, which held the overwritten blocks",
	       lazy ? "on" : "off", z0);
	fs = reopen(fs);
	for (i = 0; i < 8 * ZB && !bad; i++)
		bad += !!check_range(fs, ino, 1, gen[i], i, 1);
	tap_ok(!bad, "lazy_summary %s: every block reads back after GC and a reopen",
	       lazy ? "on" : "off");
	gaze_fs_close(fs);
	gaze_dev_close(d);
}

int
main(void)
{
	gaze_log_level = 3;	/* errors only: expected warnings are noise */
	test_victims();
	test_handoff();
	test_model();
	test_overwrite(2, GAZE_GC_GREEDY);
	test_overwrite(0, GAZE_GC_COST_BENEFIT);
	test_enospc();
	test_powercut();
	test_chunked();
	test_trim();
	test_lazy_summary(true);
	test_lazy_summary(false);
	return tap_done();
}
