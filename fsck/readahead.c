// SPDX-License-Identifier: GPL-2.0
/*
 * readahead.c - a reader thread for the node scan of pass 1.
 *
 * Why: pass 1 reads every node block in imap order, and GAZE inodes are
 * whole 4 KiB blocks, so the scan moves much more data than it computes
 * on.  A second thread reads the blocks ahead (runs of consecutive
 * addresses, up to FSCK_RA_BLOCKS at a time) into a ring of FSCK_RA_RING
 * buffers, so the copy from the device overlaps the checksums and checks
 * of the main thread.  The reader follows the imap itself (its own
 * reads of the imap blocks, never the table cache, which is not
 * shared); the main thread asks for a subsequence of the same order, so
 * it drops chunks it has no use for.  Anything the reader does not have
 * is read by the caller as before, so the thread only changes speed.
 *
 * Locking: ra->mu protects head, tail, done and stop; a chunk's contents
 * belong to the reader before it is published (head moves past it) and
 * to the main thread until it is released (tail moves past it).
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fsck.h"

#define FSCK_RA_BLOCKS	16u
#define FSCK_RA_RING	3u

struct ra_chunk {
	u64	start;
	u32	n;
	int	err;
	u8	*buf;
};

struct fsck_ra {
	struct fsck	*f;
	pthread_t	th;
	pthread_mutex_t	mu;
	pthread_cond_t	cv;
	struct ra_chunk	c[FSCK_RA_RING];
	u64		head, tail;	/* chunks published, released */
	bool		done, stop, have_cur;
	u8		*imap;
};

/* waits for a free slot, reads the chunk into it and publishes it */
static bool
ra_emit(struct fsck_ra *ra, u64 start, u32 n)
{
	struct ra_chunk *c;

	pthread_mutex_lock(&ra->mu);
	while (ra->head - ra->tail == FSCK_RA_RING && !ra->stop)
		pthread_cond_wait(&ra->cv, &ra->mu);
	if (ra->stop) {
		pthread_mutex_unlock(&ra->mu);
		return false;
	}
	c = &ra->c[ra->head % FSCK_RA_RING];
	pthread_mutex_unlock(&ra->mu);

	c->start = start;
	c->n = n;
	c->err = ra->f->dev->ops->read(ra->f->dev, start, n, c->buf);

	pthread_mutex_lock(&ra->mu);
	ra->head++;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	return true;
}

static void *
ra_main(void *arg)
{
	struct fsck_ra *ra = arg;
	struct fsck *f = ra->f;
	const struct gaze_imap_block *ib = (const void *)ra->imap;
	u32 zb = le32_to_cpu(f->sb.zone_blocks);
	u32 nid, b, nb = f->tbl_n[GAZE_TABLE_IMAP], n = 0;
	u64 start = 0, a;

	for (b = 0; b < nb; b++) {
		u32 first = b * GAZE_IMAP_PER_BLOCK, i;

		if (first >= f->nid_end)
			break;
		if (!f->taddr[GAZE_TABLE_IMAP][b] ||
		    fsck_read(f, f->taddr[GAZE_TABLE_IMAP][b], ra->imap))
			continue;
		for (i = 0; i < GAZE_IMAP_PER_BLOCK; i++) {
			nid = first + i;
			if (nid <= GAZE_NID_RESERVED || nid >= f->nid_end)
				continue;
			a = le64_to_cpu(ib->addr[i]);
			if (!GAZE_ADDR_IS_REAL(a) || a >= f->dev->nr_blocks)
				continue;
			if (n && a == start + n && n < FSCK_RA_BLOCKS &&
			    a / zb == start / zb) {
				n++;
				continue;
			}
			if (n && !ra_emit(ra, start, n))
				goto out;
			start = a;
			n = 1;
		}
	}
	if (n)
		ra_emit(ra, start, n);
out:
	pthread_mutex_lock(&ra->mu);
	ra->done = true;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

int
fsck_ra_start(struct fsck *f, struct fsck_ra **rap)
{
	struct fsck_ra *ra = calloc(1, sizeof(*ra));
	u32 i;

	*rap = NULL;
	if (!ra)
		return -ENOMEM;
	ra->f = f;
	ra->imap = malloc(GAZE_BLOCK_SIZE);
	for (i = 0; i < FSCK_RA_RING; i++)
		ra->c[i].buf = malloc((size_t)FSCK_RA_BLOCKS * GAZE_BLOCK_SIZE);
	for (i = 0; i < FSCK_RA_RING && ra->imap; i++)
		if (!ra->c[i].buf)
			break;
	if (i < FSCK_RA_RING || !ra->imap)
		goto out_free;
	pthread_mutex_init(&ra->mu, NULL);
	pthread_cond_init(&ra->cv, NULL);
	if (pthread_create(&ra->th, NULL, ra_main, ra)) {
		pthread_mutex_destroy(&ra->mu);
		pthread_cond_destroy(&ra->cv);
		goto out_free;
	}
	*rap = ra;
	return 0;
out_free:
	for (i = 0; i < FSCK_RA_RING; i++)
		free(ra->c[i].buf);
	free(ra->imap);
	free(ra);
	return -ENOMEM;
}

const void *
fsck_ra_get(struct fsck_ra *ra, u64 addr)
{
	struct ra_chunk *c;
	const void *p = NULL;

	if (!ra)
		return NULL;
	pthread_mutex_lock(&ra->mu);
	for (;;) {
		if (ra->have_cur) {
			c = &ra->c[ra->tail % FSCK_RA_RING];
			if (addr >= c->start && addr < c->start + c->n) {
				if (!c->err)
					p = c->buf + (addr - c->start) *
						     GAZE_BLOCK_SIZE;
				break;
			}
			/* not in this chunk: the caller is past it */
			ra->have_cur = false;
			ra->tail++;
			pthread_cond_broadcast(&ra->cv);
		}
		while (ra->head == ra->tail && !ra->done)
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (ra->head == ra->tail)
			break;		/* the reader is done */
		ra->have_cur = true;
	}
	pthread_mutex_unlock(&ra->mu);
	return p;
}

void
fsck_ra_stop(struct fsck_ra *ra)
{
	u32 i;

	if (!ra)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->stop = true;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	pthread_join(ra->th, NULL);
	pthread_mutex_destroy(&ra->mu);
	pthread_cond_destroy(&ra->cv);
	for (i = 0; i < FSCK_RA_RING; i++)
		free(ra->c[i].buf);
	free(ra->imap);
	free(ra);
}
