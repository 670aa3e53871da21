// SPDX-License-Identifier: GPL-2.0
/*
 * test_emu.c - the emulator behaves like a strict ZNS drive.
 *
 * Why: every crash and stress test of GAZE trusts the emulator to reject
 * what a real drive rejects and to lose exactly what a power cut may
 * lose.  These cases pin that contract down rule by rule.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zdev_tap.h"

#define ZB	64u	/* zone size in blocks */
#define CAP	48u	/* capacity */

static u8 buf[2 * ZB * BS], rbuf[2 * ZB * BS];
/* pattern I/O through these buffers */
#define wr(d, blk, nr, tag)		pat_write(buf, d, blk, nr, tag)
#define rd_check(d, blk, nr, tag)	pat_read(rbuf, d, blk, nr, tag)
#define rd_zero(d, blk, nr)		zero_read(rbuf, d, blk, nr)

static struct gaze_dev *
mk(u32 nr_conv, u32 max_open, u32 max_active, bool no_append)
{
	struct gaze_emu_opts o = {
		.nr_zones = 8, .zone_blocks = ZB, .zone_cap = CAP,
		.nr_conv = nr_conv, .max_open = max_open,
		.max_active = max_active, .no_append = no_append,
	};
	struct gaze_dev *d = NULL;
	int ret = gaze_emu_create(&o, &d);

	if (ret) {
		printf("Bail out! gaze_emu_create: %d\n", ret);
		exit(1);
	}
	return d;
}

static void
test_geometry(void)
{
	struct gaze_dev *d = mk(1, 0, 0, false);
	struct gaze_zone z[8];

	tap_ok(d->nr_blocks == 8 * ZB && d->zone_blocks == ZB &&
	       d->zone_cap == CAP && d->nr_zones == 8 && d->nr_conv == 1 &&
	       d->lbs == BS && d->model == GAZE_ZM_HOST_MANAGED,
	       "geometry as created");
	tap_ok(d->ops->report(d, 0, 100, z) == 8, "report clamps to nr_zones");
	tap_ok(z[0].type == GAZE_ZT_CONV && z[0].cond == GAZE_ZC_NOT_WP &&
	       z[0].cap == ZB && z[0].wp == ZB,
	       "zone 0 conventional NOT_WP");
	tap_ok(z[1].type == GAZE_ZT_SEQ && z[1].cond == GAZE_ZC_EMPTY &&
	       z[1].start == ZB && z[1].len == ZB && z[1].cap == CAP &&
	       z[1].wp == ZB, "zone 1 sequential EMPTY, cap %u", CAP);
	tap_ok(d->ops->report(d, 8, 1, z) == -EINVAL, "report past end -EINVAL");
	tap_ok(d->ops->append != NULL, "append op present");
	gaze_dev_close(d);
	d = mk(0, 0, 0, true);
	tap_ok(d->ops->append == NULL && d->nr_conv == 0,
	       "no_append hides append");
	gaze_dev_close(d);
}

static void
test_seq_rules(void)
{
	struct gaze_dev *d = mk(1, 0, 0, false);
	u64 s = ZB;	/* zone 1 */
	struct gaze_zone z;

	tap_ok(wr(d, s, 4, 1) == 0, "write at wp");
	z = zone_of(d, 1);
	tap_ok(z.cond == GAZE_ZC_IMP_OPEN && z.wp == s + 4,
	       "zone implicitly open, wp advanced");
	tap_ok(wr(d, s + 8, 1, 1) == -EIO, "write past wp -EIO");
	tap_ok(wr(d, s, 1, 1) == -EIO, "write before wp -EIO");
	tap_ok(wr(d, s + 4, CAP - 3, 1) == -EIO, "write crossing capacity -EIO");
	tap_ok(wr(d, 2 * ZB + 0, ZB + 1, 1) == -EIO,
	       "write crossing zone boundary -EIO");
	tap_ok(zone_of(d, 1).wp == s + 4, "failed writes leave wp alone");
	tap_ok(wr(d, s + 4, CAP - 4, 1) == 0, "write up to capacity");
	z = zone_of(d, 1);
	tap_ok(z.cond == GAZE_ZC_FULL && z.wp == s + ZB,
	       "last block of capacity makes zone FULL (wp = start+len)");
	tap_ok(wr(d, s + CAP, 1, 1) == -EIO, "write to FULL zone -EIO");
	tap_ok(rd_check(d, s, CAP, 1), "data reads back");
	tap_ok(rd_zero(d, s + CAP, ZB - CAP), "blocks past capacity read zero");
	tap_ok(wr(d, 2 * ZB, 3, 2) == 0 && rd_check(d, 2 * ZB, 3, 2) &&
	       rd_zero(d, 2 * ZB + 3, ZB - 3), "reads past wp return zeros");
	tap_ok(d->ops->read(d, s, 2 * ZB, rbuf) == 0 &&
	       pat_check(rbuf, s, CAP, 1) &&
	       pat_check(rbuf + (size_t)ZB * BS, 2 * ZB, 3, 2) &&
	       is_zero(rbuf + (size_t)(ZB + 3) * BS, (ZB - 3) * BS),
	       "read spanning zones");
	tap_ok(d->ops->read(d, 8 * ZB - 1, 2, rbuf) == -EINVAL,
	       "read past device end -EINVAL");
	tap_ok(d->ops->write(d, 8 * ZB, 1, buf) == -EINVAL,
	       "write past device end -EINVAL");

	tap_ok(d->ops->reset(d, 1, 1) == 0, "reset");
	z = zone_of(d, 1);
	tap_ok(z.cond == GAZE_ZC_EMPTY && z.wp == s && rd_zero(d, s, ZB),
	       "reset zone is EMPTY, wp at start, data dropped");
	tap_ok(wr(d, s, 1, 3) == 0, "write at start after reset");

	tap_ok(d->ops->finish(d, 2) == 0, "finish");
	z = zone_of(d, 2);
	tap_ok(z.cond == GAZE_ZC_FULL && z.wp == 3 * ZB, "finished zone FULL");
	tap_ok(wr(d, 2 * ZB + 3, 1, 2) == -EIO, "write to finished zone -EIO");
	tap_ok(rd_check(d, 2 * ZB, 3, 2) && rd_zero(d, 2 * ZB + 3, 1),
	       "finished zone keeps its data, zeros after");
	tap_ok(d->ops->finish(d, 3) == 0 && zone_of(d, 3).cond == GAZE_ZC_FULL,
	       "finish of an EMPTY zone");
	tap_ok(d->ops->reset(d, 2, 2) == 0 &&
	       zone_of(d, 2).cond == GAZE_ZC_EMPTY &&
	       zone_of(d, 3).cond == GAZE_ZC_EMPTY, "reset of a zone range");
	tap_ok(d->ops->reset(d, 7, 2) == -EINVAL, "reset past end -EINVAL");
	gaze_dev_close(d);
}

static void
test_append(void)
{
	struct gaze_dev *d = mk(1, 0, 0, false);
	u64 a = 0, b = 0, c = 0;
	int ret;

	pat_fill(buf, ZB * 3, 3, 7);
	ret = d->ops->append(d, 3, 3, buf, &a);
	pat_fill(buf, ZB * 3 + 3, 2, 7);
	ret |= d->ops->append(d, 3, 2, buf, &b);
	tap_ok(!ret && a == ZB * 3 && b == ZB * 3 + 3,
	       "append returns successive positions (%llu, %llu)",
	       (unsigned long long)a, (unsigned long long)b);
	tap_ok(rd_check(d, ZB * 3, 5, 7), "appended data reads back");
	tap_ok(wr(d, ZB * 3 + 5, 1, 7) == 0, "write continues at wp after append");
	tap_ok(d->ops->append(d, 3, CAP, buf, &c) == -EIO,
	       "append past capacity -EIO");
	tap_ok(d->ops->append(d, 0, 1, buf, &c) == -EIO,
	       "append to conventional zone -EIO");
	tap_ok(d->ops->append(d, 8, 1, buf, &c) == -EINVAL,
	       "append past last zone -EINVAL");
	gaze_dev_close(d);
}

static void
test_conv(void)
{
	struct gaze_dev *d = mk(2, 0, 0, false);

	tap_ok(wr(d, 10, 1, 1) == 0 && wr(d, 5, 1, 2) == 0 &&
	       wr(d, 10, 1, 3) == 0 && wr(d, 0, 1, 4) == 0,
	       "conventional zone: random writes and overwrites");
	tap_ok(rd_check(d, 10, 1, 3) && rd_check(d, 5, 1, 2) &&
	       rd_check(d, 0, 1, 4) && rd_zero(d, 11, 1),
	       "conventional contents, unwritten blocks zero");
	tap_ok(wr(d, ZB - 2, 4, 5) == 0 && rd_check(d, ZB - 2, 4, 5),
	       "write spanning two conventional zones");
	tap_ok(wr(d, 2 * ZB - 2, 4, 5) == -EIO,
	       "write spanning conventional into sequential -EIO");
	tap_ok(d->ops->reset(d, 0, 1) == -EIO && d->ops->reset(d, 1, 2) == -EIO,
	       "reset of a conventional zone -EIO");
	tap_ok(d->ops->finish(d, 1) == -EIO, "finish of a conventional zone -EIO");
	gaze_dev_close(d);
}

static void
test_max_open(void)
{
	struct gaze_dev *d = mk(0, 2, 0, false);

	tap_ok(d->max_open == 2 && d->max_active == 0, "limits reported");
	wr(d, 1 * ZB, 1, 1);
	wr(d, 2 * ZB, 1, 1);
	tap_ok(wr(d, 3 * ZB, 1, 1) == 0, "opening a third zone over max_open=2");
	tap_ok(zone_of(d, 1).cond == GAZE_ZC_CLOSED &&
	       zone_of(d, 2).cond == GAZE_ZC_IMP_OPEN &&
	       zone_of(d, 3).cond == GAZE_ZC_IMP_OPEN,
	       "least recently written open zone implicitly closed");
	tap_ok(wr(d, 1 * ZB + 1, 1, 1) == 0 &&
	       zone_of(d, 1).cond == GAZE_ZC_IMP_OPEN &&
	       zone_of(d, 2).cond == GAZE_ZC_CLOSED,
	       "writing a closed zone reopens it, closing the next LRU");
	wr(d, 3 * ZB + 1, 1, 1);
	tap_ok(wr(d, 2 * ZB + 1, 1, 1) == 0 &&
	       zone_of(d, 1).cond == GAZE_ZC_CLOSED,
	       "LRU order follows writes, not opens");
	tap_ok(rd_check(d, 1 * ZB, 2, 1) && rd_check(d, 2 * ZB, 2, 1),
	       "data survives implicit close");
	gaze_dev_close(d);
}

static void
test_max_active(void)
{
	struct gaze_dev *d = mk(0, 2, 3, false);
	struct gaze_emu_opts bad = { .nr_zones = 4, .zone_blocks = 8,
				     .max_open = 4, .max_active = 2 };
	struct gaze_dev *x = NULL;

	wr(d, 1 * ZB, 1, 1);
	wr(d, 2 * ZB, 1, 1);
	tap_ok(wr(d, 3 * ZB, 1, 1) == 0 &&
	       zone_of(d, 1).cond == GAZE_ZC_CLOSED,
	       "third zone: 2 open + 1 closed = 3 active");
	tap_ok(wr(d, 4 * ZB, 1, 1) == -EIO,
	       "fourth active zone over max_active=3 -EIO");
	tap_ok(zone_of(d, 4).cond == GAZE_ZC_EMPTY &&
	       zone_of(d, 2).cond == GAZE_ZC_IMP_OPEN,
	       "refused write changes nothing");
	tap_ok(wr(d, 1 * ZB + 1, 1, 1) == 0,
	       "reopening a closed zone needs no new active slot");
	tap_ok(d->ops->finish(d, 1) == 0 && wr(d, 4 * ZB, 1, 1) == 0,
	       "finish frees an active slot");
	tap_ok(d->ops->reset(d, 2, 1) == 0 && wr(d, 5 * ZB, 1, 1) == 0,
	       "reset frees an active slot");
	tap_ok(gaze_emu_create(&bad, &x) == -EINVAL,
	       "max_open > max_active refused");
	bad.max_open = 0;
	bad.zone_cap = 9;
	tap_ok(gaze_emu_create(&bad, &x) == -EINVAL, "cap > size refused");
	gaze_dev_close(d);
}

/* zone 1: 10 flushed blocks then 20 unflushed; cut; returns wp offset */
static u64
cut_once(u64 seed, unsigned int pct, int *data_ok)
{
	struct gaze_dev *d = mk(0, 0, 0, false);
	struct gaze_zone z;
	u64 wp;

	wr(d, ZB, 10, 9);
	d->ops->flush(d);
	wr(d, ZB + 10, 20, 9);
	gaze_emu_power_cut(d, seed, pct);
	z = zone_of(d, 1);
	wp = z.wp - ZB;
	*data_ok = rd_check(d, ZB, wp, 9) && rd_zero(d, ZB + wp, ZB - wp) &&
		   z.cond == (wp ? GAZE_ZC_CLOSED : GAZE_ZC_EMPTY) &&
		   wr(d, ZB + wp, 1, 9) == 0;
	gaze_dev_close(d);
	return wp;
}

static void
test_power_cut_seq(void)
{
	u64 seen[31] = { 0 };
	unsigned int distinct = 0;
	int ok = 1, dok;
	u64 seed, wp, lo = 30, hi = 10;

	tap_ok(cut_once(1, 100, &dok) == 30 && dok, "keep_pct 100 keeps all");
	tap_ok(cut_once(1, 0, &dok) == 10 && dok,
	       "keep_pct 0 drops all unflushed, flushed data stays");
	for (seed = 0; seed < 64; seed++) {
		wp = cut_once(seed, 50, &dok);
		ok &= dok && wp >= 10 && wp <= 30;
		if (wp <= 30 && !seen[wp]++)
			distinct++;
		lo = min(lo, wp);
		hi = max(hi, wp);
	}
	tap_ok(ok, "keep_pct 50: wp in [flushed, written], a prefix kept, "
	       "rest zero, zone CLOSED and writable at the new wp");
	tap_ok(distinct >= 5, "prefix length varies with the seed "
	       "(%u distinct, %llu..%llu)", distinct, (unsigned long long)lo,
	       (unsigned long long)hi);
	tap_ok(cut_once(12345, 50, &dok) == cut_once(12345, 50, &dok),
	       "same seed, same cut");
	ok = 1;
	for (seed = 0; seed < 32; seed++)
		ok &= cut_once(seed, 80, &dok) >= 10 + 20 * 60 / 100;
	tap_ok(ok, "keep_pct 80 keeps at least 60%% of the unflushed blocks");
}

static void
test_power_cut_states(void)
{
	struct gaze_dev *d = mk(1, 0, 0, false);
	struct gaze_zone z;

	wr(d, ZB, CAP - 8, 1);		/* zone 1 */
	wr(d, 2 * ZB, 4, 2);		/* zone 2 */
	wr(d, 3 * ZB, 5, 3);		/* zone 3 */
	wr(d, 3, 1, 0xa);		/* conventional block 3: "A" */
	d->ops->flush(d);
	wr(d, ZB + CAP - 8, 8, 1);	/* zone 1 FULL, tail unflushed */
	wr(d, 2 * ZB + 4, 4, 2);	/* zone 2 unflushed tail, finished */
	d->ops->finish(d, 2);
	wr(d, 4 * ZB, 5, 4);		/* zone 4: unflushed data only */
	wr(d, 3, 1, 0xb);		/* "B" over flushed "A" */
	wr(d, 7, 1, 0xc);		/* never flushed */
	gaze_emu_power_cut(d, 42, 0);

	z = zone_of(d, 1);
	tap_ok(z.cond == GAZE_ZC_CLOSED && z.wp == ZB + CAP - 8 &&
	       rd_check(d, ZB, CAP - 8, 1) && rd_zero(d, ZB + CAP - 8, 8),
	       "FULL zone losing its tail goes back to CLOSED");
	z = zone_of(d, 2);
	tap_ok(z.cond == GAZE_ZC_FULL && rd_check(d, 2 * ZB, 4, 2) &&
	       rd_zero(d, 2 * ZB + 4, 4),
	       "finish is durable, the unflushed data before it is not");
	z = zone_of(d, 3);
	tap_ok(z.cond == GAZE_ZC_CLOSED && z.wp == 3 * ZB + 5 &&
	       rd_check(d, 3 * ZB, 5, 3),
	       "flushed open zone: CLOSED, all data kept");
	z = zone_of(d, 4);
	tap_ok(z.cond == GAZE_ZC_EMPTY && z.wp == 4 * ZB && rd_zero(d, 4 * ZB, 5),
	       "zone with only unflushed data: EMPTY");
	tap_ok(rd_check(d, 3, 1, 0xa) && rd_zero(d, 7, 1),
	       "conventional blocks revert to their flushed content");
	gaze_emu_power_cut(d, 43, 0);
	tap_ok(zone_of(d, 3).wp == 3 * ZB + 5 && rd_check(d, 3, 1, 0xa),
	       "a cut right after a cut loses nothing more");
	wr(d, 3, 1, 0xd);
	gaze_emu_power_cut(d, 44, 100);
	tap_ok(rd_check(d, 3, 1, 0xd), "keep_pct 100 keeps conventional writes");
	gaze_dev_close(d);
}

/*
 * A zone filled by writing whose tail is lost may not come back as
 * CLOSED when another zone took its active slot and kept data: the
 * device never reports more active zones than max_active.
 */
static void
test_power_cut_active(void)
{
	struct gaze_zone z[8];
	int ok = 1, stayed_full = 0, again_full = 0;
	u64 seed;
	u32 i, active;

	for (seed = 0; seed < 64; seed++) {
		struct gaze_dev *d = mk(0, 2, 2, false);

		wr(d, ZB, 4, 1);
		wr(d, 2 * ZB, 2, 2);
		d->ops->flush(d);
		wr(d, ZB + 4, CAP - 4, 1);	/* zone 1 FULL */
		wr(d, 3 * ZB, 4, 3);		/* zone 3 takes the slot */
		gaze_emu_power_cut(d, seed, 50);
		d->ops->report(d, 0, 8, z);
		for (active = 0, i = 0; i < 8; i++)
			active += z[i].cond == GAZE_ZC_CLOSED ||
				  z[i].cond == GAZE_ZC_IMP_OPEN;
		ok &= active <= 2;
		if (z[1].cond == GAZE_ZC_FULL && rd_zero(d, ZB + CAP - 1, 1)) {
			stayed_full++;
			ok &= rd_check(d, ZB, 4, 1);
			/* slots free again, flushed: a later cut keeps it FULL */
			d->ops->reset(d, 2, 2);
			d->ops->flush(d);
			gaze_emu_power_cut(d, seed + 1, 0);
			again_full += zone_of(d, 1).cond == GAZE_ZC_FULL;
		}
		d->ops->reset(d, 1, 7);
		ok &= wr(d, ZB, 1, 1) == 0 && wr(d, 2 * ZB, 1, 1) == 0 &&
		      wr(d, 3 * ZB, 1, 1) == -EIO;
		gaze_dev_close(d);
	}
	tap_ok(ok, "power cut never leaves more than max_active active zones");
	tap_ok(stayed_full > 0,
	       "FULL zone with a lost tail stays FULL when no slot is free (%d/64)",
	       stayed_full);
	tap_ok(again_full == stayed_full,
	       "and stays FULL at a later cut with free slots (%d)", again_full);
}

static void
test_fail_after(void)
{
	struct gaze_dev *d = mk(0, 0, 0, false);
	struct gaze_emu_stats st;

	gaze_emu_fail_after(d, 2, 3);
	tap_ok(wr(d, ZB, 1, 1) == 0, "write 1 ok");
	tap_ok(wr(d, ZB + 1, 1, 1) == -EIO, "write 2 fails with -EIO");
	tap_ok(zone_of(d, 1).wp == ZB + 1, "failed write changed nothing");
	tap_ok(wr(d, ZB + 1, 1, 1) == 0, "write 3 ok (one-shot)");
	tap_ok(rd_check(d, ZB, 2, 1) && rd_check(d, ZB, 2, 1),
	       "reads 1 and 2 ok");
	tap_ok(d->ops->read(d, ZB, 1, rbuf) == -EIO, "read 3 fails with -EIO");
	tap_ok(rd_check(d, ZB, 2, 1), "read 4 ok");
	gaze_emu_fail_after(d, 1, 0);
	pat_fill(buf, ZB + 2, 1, 1);
	{
		u64 at = 0;

		tap_ok(d->ops->append(d, 1, 1, buf, &at) == -EIO,
		       "appends count as writes");
	}
	gaze_emu_stats(d, &st);
	tap_ok(st.writes == 2 && st.reads == 3 && st.blocks_written == 2 &&
	       st.appends == 0, "failed operations are not counted");
	gaze_dev_close(d);
}

static void
test_stats(void)
{
	struct gaze_dev *d = mk(1, 0, 0, false);
	struct gaze_emu_stats st;
	u64 at;

	wr(d, ZB, 3, 1);
	wr(d, 0, 2, 1);
	wr(d, ZB, 1, 1);	/* fails: not at wp */
	d->ops->append(d, 2, 4, buf, &at);
	d->ops->read(d, 0, 5, rbuf);
	d->ops->read(d, ZB, 1, rbuf);
	d->ops->reset(d, 1, 3);
	d->ops->finish(d, 4);
	d->ops->flush(d);
	d->ops->flush(d);
	gaze_emu_stats(d, &st);
	tap_ok(st.writes == 2 && st.appends == 1 && st.reads == 2 &&
	       st.resets == 3 && st.finishes == 1 && st.flushes == 2 &&
	       st.blocks_read == 6 && st.blocks_written == 9,
	       "stats: w %llu a %llu r %llu rst %llu fin %llu fl %llu br %llu bw %llu",
	       (unsigned long long)st.writes, (unsigned long long)st.appends,
	       (unsigned long long)st.reads, (unsigned long long)st.resets,
	       (unsigned long long)st.finishes, (unsigned long long)st.flushes,
	       (unsigned long long)st.blocks_read,
	       (unsigned long long)st.blocks_written);
	gaze_dev_close(d);
}

static long
rss_kib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = -1;
	fclose(f);
	return rss < 0 ? -1 : rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static void
test_sparse_1tib(void)
{
	struct gaze_emu_opts o = {
		.nr_zones = 4096, .zone_blocks = 65536, .nr_conv = 4,
		.max_open = 14, .max_active = 14,	/* each zone is finished */
	};
	struct gaze_dev *d = NULL;
	long before = rss_kib(), after;
	int ok = 1;
	u32 i;

	tap_ok(gaze_emu_create(&o, &d) == 0 &&
	       d->nr_blocks * BS == 1ull << 40, "1 TiB RAM emulator created");
	if (!d)
		return;
	for (i = 0; i < 64; i++) {
		u32 zone = 4 + i * 63;

		ok &= wr(d, (u64)zone * o.zone_blocks, 4, zone) == 0;
		ok &= d->ops->finish(d, zone) == 0;
	}
	ok &= wr(d, 12345, 2, 1) == 0;
	for (i = 0; i < 64; i++) {
		u32 zone = 4 + i * 63;

		ok &= rd_check(d, (u64)zone * o.zone_blocks, 4, zone);
	}
	after = rss_kib();
	tap_ok(ok, "writes to 64 zones of the 1 TiB emulator read back");
	tap_ok(after - before < 64 * 1024,
	       "1 TiB emulator with 64 zones written costs %ld KiB",
	       after - before);
	gaze_dev_close(d);
}

static void
test_backing_file(void)
{
	char path[] = "/tmp/gaze-emu-XXXXXX";
	struct gaze_emu_opts o = {
		.nr_zones = 8, .zone_blocks = ZB, .zone_cap = CAP, .nr_conv = 1,
		.backing = path,
	};
	struct gaze_dev *d = NULL;
	struct stat st, st2;
	int fd = mkstemp(path);

	if (fd < 0) {
		tap_skip("mkstemp failed");
		return;
	}
	close(fd);
	tap_ok(gaze_emu_create(&o, &d) == 0, "file-backed emulator created");
	if (!d)
		goto out_unlink;
	stat(path, &st);
	tap_ok((u64)st.st_size == 8ull * ZB * BS, "backing file sized sparse");
	tap_ok(wr(d, ZB, CAP, 1) == 0 && wr(d, 2, 2, 2) == 0 &&
	       rd_check(d, ZB, CAP, 1) && rd_check(d, 2, 2, 2) &&
	       rd_zero(d, 0, 2), "file-backed write and read back");
	tap_ok(wr(d, ZB + 3, 1, 1) == -EIO, "file-backed enforces zone rules");
	fd = open(path, O_RDONLY);
	tap_ok(fd >= 0 && pread(fd, rbuf, BS, (off_t)ZB * BS) == BS &&
	       pat_check(rbuf, ZB, 1, 1), "data is in the file at its offset");
	fstat(fd, &st);
	d->ops->reset(d, 1, 1);
	fstat(fd, &st2);
	tap_ok(rd_zero(d, ZB, CAP) && st2.st_blocks < st.st_blocks,
	       "reset punches a hole (%lld -> %lld sectors)",
	       (long long)st.st_blocks, (long long)st2.st_blocks);
	d->ops->flush(d);
	wr(d, 2, 1, 3);
	gaze_emu_power_cut(d, 1, 0);
	tap_ok(rd_check(d, 2, 1, 2), "file-backed conventional power cut reverts");
	close(fd);
	gaze_dev_close(d);
out_unlink:
	unlink(path);
}

int
main(void)
{
	test_geometry();
	test_seq_rules();
	test_append();
	test_conv();
	test_max_open();
	test_max_active();
	test_power_cut_seq();
	test_power_cut_states();
	test_power_cut_active();
	test_fail_after();
	test_stats();
	test_sparse_1tib();
	test_backing_file();
	gaze_dev_close(NULL);
	return tap_done();
}
