// SPDX-License-Identifier: GPL-2.0
/*
 * test_emu_mt.c - the emulator under concurrent use.
 *
 * Why: GC and writeback threads drive one device at the same time; the
 * emulator's locking must keep zone state and data consistent (and be
 * clean under -fsanitize=thread).  Threads append to their own zones
 * while others write, read, report, flush, finish and reset; max_open
 * forces implicit closes to race with appends.
 */
#include "zdev_tap.h"

#define NR_APPENDERS	8
#define ZONES_PER	3
#define ZB		256u
#define CHUNK		4u

static struct gaze_dev *dev;
static volatile int stop;
static int errors;

static void
note_error(void)
{
	__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
}

/* Fills ZONES_PER zones by append, checking every returned position. */
static void *
appender(void *arg)
{
	u32 t = (u32)(uintptr_t)arg;
	u8 *buf = malloc(CHUNK * BS);
	u32 k, n;

	for (k = 0; k < ZONES_PER; k++) {
		u32 zone = 1 + t * ZONES_PER + k;
		u64 next = (u64)zone * ZB;

		for (n = 0; n < ZB / CHUNK; n++) {
			u64 at = ~0ull;

			pat_fill(buf, next, CHUNK, t);
			if (dev->ops->append(dev, zone, CHUNK, buf, &at) ||
			    at != next)
				note_error();
			next += CHUNK;
		}
	}
	free(buf);
	return NULL;
}

/* Sequential writes at the wp of its own zone, with flushes. */
static void *
writer(void *arg)
{
	u32 zone = (u32)(uintptr_t)arg;
	u8 *buf = malloc(BS);
	u64 blk;

	for (blk = (u64)zone * ZB; blk < (u64)(zone + 1) * ZB; blk++) {
		pat_fill(buf, blk, 1, 99);
		if (dev->ops->write(dev, blk, 1, buf))
			note_error();
		if (blk % 16 == 0 && dev->ops->flush(dev))
			note_error();
	}
	free(buf);
	return NULL;
}

/* Cycles its own zone through open, FULL (finish) and EMPTY (reset). */
static void *
cycler(void *arg)
{
	u32 zone = (u32)(uintptr_t)arg;
	u8 *buf = calloc(8, BS);
	u64 at;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (dev->ops->append(dev, zone, 8, buf, &at) ||
		    at != (u64)zone * ZB || dev->ops->finish(dev, zone) ||
		    dev->ops->reset(dev, zone, 1))
			note_error();
	}
	free(buf);
	return NULL;
}

/* Reads, reports and random conventional writes while the others run. */
static void *
churner(void *arg)
{
	struct gaze_zone z[64];
	u8 *buf = malloc(4 * BS);
	u64 r = (uintptr_t)arg;
	struct gaze_emu_stats st;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		if (dev->ops->report(dev, 0, 64, z) < 0)
			note_error();
		if (dev->ops->read(dev, (r >> 33) % (dev->nr_blocks - 4), 4,
				   buf))
			note_error();
		pat_fill(buf, (r >> 40) % ZB, 1, 7);
		if (dev->ops->write(dev, (r >> 40) % ZB, 1, buf))
			note_error();
		gaze_emu_stats(dev, &st);
	}
	free(buf);
	return NULL;
}

int
main(void)
{
	struct gaze_emu_opts o = {
		.nr_zones = 3 + NR_APPENDERS * ZONES_PER, .zone_blocks = ZB,
		.nr_conv = 1, .max_open = 4,
	};
	pthread_t ta[NR_APPENDERS], tw, tc[2], ty;
	u8 *buf = malloc(ZB * BS);
	u32 t, k, wzone = 1 + NR_APPENDERS * ZONES_PER;
	struct gaze_zone z;
	int ok = 1;

	if (gaze_emu_create(&o, &dev)) {
		printf("Bail out! gaze_emu_create\n");
		return 1;
	}
	for (t = 0; t < 2; t++)
		pthread_create(&tc[t], NULL, churner, (void *)(uintptr_t)(t + 1));
	pthread_create(&tw, NULL, writer, (void *)(uintptr_t)wzone);
	pthread_create(&ty, NULL, cycler, (void *)(uintptr_t)(wzone + 1));
	for (t = 0; t < NR_APPENDERS; t++)
		pthread_create(&ta[t], NULL, appender, (void *)(uintptr_t)t);
	for (t = 0; t < NR_APPENDERS; t++)
		pthread_join(ta[t], NULL);
	pthread_join(tw, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (t = 0; t < 2; t++)
		pthread_join(tc[t], NULL);
	pthread_join(ty, NULL);

	tap_ok(errors == 0, "%d threads appending, 1 writing, 1 cycling, 2 churning: "
	       "no errors", NR_APPENDERS);
	for (t = 0; t < NR_APPENDERS; t++) {
		for (k = 0; k < ZONES_PER; k++) {
			u32 zone = 1 + t * ZONES_PER + k;

			z = zone_of(dev, zone);
			ok &= z.cond == GAZE_ZC_FULL;
			ok &= dev->ops->read(dev, (u64)zone * ZB, ZB, buf) == 0 &&
			      pat_check(buf, (u64)zone * ZB, ZB, t);
		}
	}
	tap_ok(ok, "every appended zone FULL with its blocks in order");
	ok = zone_of(dev, wzone).cond == GAZE_ZC_FULL &&
	     dev->ops->read(dev, (u64)wzone * ZB, ZB, buf) == 0 &&
	     pat_check(buf, (u64)wzone * ZB, ZB, 99);
	tap_ok(ok, "written zone FULL with its data");
	free(buf);
	gaze_dev_close(dev);
	return tap_done();
}
