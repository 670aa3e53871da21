// SPDX-License-Identifier: GPL-2.0
/*
 * readahead.c - the node scan of pass 1: reading and verifying every node
 * block in imap order, on two threads.
 *
 * Why: GAZE inodes are whole 4 KiB blocks (small files inline), so at a
 * million files pass 1 moves and checksums 4 GB, where e2fsck reads a
 * quarter of that in inode tables.  Reading (the copy out of the page
 * cache) and the checksum are nearly all of the time, and both are
 * bound by memory bandwidth, so they are split over two threads:
 *
 *  - Batches.  The main thread describes batches of FSCK_SCAN_BATCH
 *    nodes (nid and address of each, through its table cache) up to
 *    FSCK_SCAN_RING ahead.  Whoever verifies a batch reads it (one device
 *    read per run of consecutive addresses, into the batch's buffer) and
 *    does the per-block work that depends on nothing but the block:
 *    magic, checksum, gaze_fmt_inode_verify, the nid and sequence checks.
 *
 *  - Two threads, one order.  A worker thread takes the oldest batch
 *    nobody has taken; the main thread verifies the batch it needs next
 *    itself when nobody has taken it, or, while the worker is on it, the
 *    newest untaken one, so the worker runs ahead through the ring while
 *    the main thread checks what is done and only helps when it would
 *    otherwise wait.  Everything that crosses
 *    inodes (block ownership, link counts, child nodes, messages) stays
 *    on the main thread, which consumes the batches strictly in nid
 *    order.  A batch's results are the same whoever verified it, so
 *    the output never depends on thread timing; without a worker (one
 *    CPU, pthread_create failing, or GAZE_FSCK_ONE_THREAD set) the main
 *    thread verifies every batch itself.  Hand-offs cost two mutex round
 *    trips per batch, not per block.
 *
 *  - Bounded memory.  The ring's buffers (FSCK_SCAN_RING x FSCK_SCAN_BATCH
 *    blocks, 256 KiB) are all the scan holds.  Reading through a mapping
 *    of the image instead (populated per batch, dropped once consumed)
 *    was measured: it saves the copy, but mapping and unmapping each page
 *    cost as much system time, and the pages around each run that the
 *    kernel maps too (fault-around) raised the peak RSS.
 *
 * Locking: scan->mu protects cons, prod, stop and every batch's state.
 * A batch's contents (entries, buffer) belong to the main thread while
 * it is FREE (being described), to the thread that moved it to BUSY
 * while it is BUSY, and are read-only once DONE until the main thread
 * consumes and frees it; every change of owner goes through mu, which
 * orders the writes before the reads.  The worker reads f->sb, f->cp_seq
 * and f->dev, which do not change during pass 1 (device reads are thread
 * safe, see gaze_zdev.h), and nothing else of struct fsck.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsck.h"

/*
 * 8 x 6: 192 KiB of buffers (32 x 2, 256 KiB, before).  The ring's depth
 * is what lets the worker run ahead of the main thread, which also does
 * every cross-inode check: with two batches in flight the worker got 29%
 * of the CPU samples and waited the rest of the time.  Measured at a
 * million files on a quiet 2-CPU host (7 runs each, interleaved,
 * medians, against e2fsck -fn's 0.67 s): 32 x 2 0.67 s, 16 x 4 0.62 s,
 * 8 x 4 0.71 s, 4 x 16 0.65 s, 8 x 8 0.57 s, with the same peak RSS
 * (3.6-3.8 MiB) for these 256 KiB shapes.  A second series: 8 x 6
 * 0.60 s and 3.62 MiB, 8 x 7 0.57 s, 8 x 8 0.57 s and 3.72 MiB, e2fsck
 * 0.69 s and 3.86 MiB.  8 x 6 trades a little time for a margin on
 * memory, which varies by about 0.2 MiB from run to run.  Smaller
 * batches cost more hand-offs (two mutex round trips each), fewer cost
 * the worker its lead.  An earlier measurement on a loaded host (load
 * 4-5) had found no difference between these shapes: when the cores are
 * busy with other work each wait costs a trip through the run queue, and
 * one thread is about as fast (see doc/design.md).  Spinning before
 * sleeping (16 or 100 rounds of pause) and an adaptive mutex were tried
 * there: slower.
 */
#define FSCK_SCAN_BATCH	8u	/* nodes per batch */
#define FSCK_SCAN_RING	6u	/* batches in flight */

enum { B_FREE, B_READY, B_BUSY, B_DONE };

struct scan_batch {
	u32			n;		/* entries */
	u32			state;		/* B_*, under mu */
	struct fsck_scan_ent	e[FSCK_SCAN_BATCH];
	u8			*buf;		/* the blocks read */
};

struct fsck_scan {
	struct fsck		*f;
	pthread_t		th;
	bool			have_th;
	pthread_mutex_t		mu;
	pthread_cond_t		cv;	/* any state change */
	struct scan_batch	b[FSCK_SCAN_RING];
	u64			cons;		/* batches consumed */
	u64			prod;		/* batches described */
	bool			stop;
	u32			next_nid;	/* next nid to describe */
	u32			pos;		/* next entry of cons */
	bool			cur;		/* cons is being read */
};

static struct scan_batch *
batch_at(struct fsck_scan *s, u64 seq)
{
	return &s->b[seq % FSCK_SCAN_RING];
}

/* reads entries first..first+n-1 (consecutive addresses) */
static void
run_read(struct fsck_scan *s, struct scan_batch *b, u32 first, u32 n)
{
	struct fsck *f = s->f;
	u8 *p = b->buf + (size_t)first * GAZE_BLOCK_SIZE;
	u32 i;
	int ret;

	ret = f->dev->ops->read(f->dev, b->e[first].addr, n, p);
	for (i = 0; i < n; i++) {
		/* a run that fails is read again block by block */
		if (ret && n > 1)
			b->e[first + i].err = f->dev->ops->read(f->dev,
				b->e[first + i].addr, 1,
				p + (size_t)i * GAZE_BLOCK_SIZE);
		else
			b->e[first + i].err = ret;
		b->e[first + i].blk = b->e[first + i].err ? NULL :
				      p + (size_t)i * GAZE_BLOCK_SIZE;
	}
}

/* the per-block checks: only the block, the superblock and cp_seq */
static void
verify_ent(const struct fsck *f, struct fsck_scan_ent *e)
{
	const struct gaze_inode *in = e->blk;

	e->ret = 0;
	e->why = NULL;
	e->inode = false;
	if (!in || le32_to_cpu(in->hdr.magic) != GAZE_MAGIC_INODE)
		return;		/* a child node: claimed later */
	e->inode = true;
	e->ret = gaze_fmt_inode_verify(in, &f->sb, e->addr, &e->why);
	if (!e->ret && le32_to_cpu(in->hdr.nid) != e->nid) {
		e->why = "the inode names another nid";
		e->ret = -EFSCORRUPTED;
	}
	if (!e->ret && le64_to_cpu(in->hdr.seq) > f->cp_seq) {
		e->why = "newer than the checkpoint";
		e->ret = -EFSCORRUPTED;
	}
}

/* reads and verifies batch b (owned by the caller: BUSY) */
static void
batch_verify(struct fsck_scan *s, struct scan_batch *b)
{
	u32 i, j;

	/* one device read per run of consecutive addresses */
	for (i = 0; i < b->n; i = j) {
		for (j = i + 1; j < b->n &&
		     b->e[j].addr == b->e[j - 1].addr + 1; j++)
			;
		run_read(s, b, i, j - i);
	}
	for (i = 0; i < b->n; i++) {
		/* the next block on its way from memory meanwhile */
		if (i + 1 < b->n && b->e[i + 1].blk) {
			const u8 *p = b->e[i + 1].blk;
			u32 k;

			for (k = 0; k < GAZE_BLOCK_SIZE; k += 64)
				__builtin_prefetch(p + k);
		}
		if (!b->e[i].err)
			verify_ent(s->f, &b->e[i]);
	}
}

static void *
scan_worker(void *arg)
{
	struct fsck_scan *s = arg;
	struct scan_batch *b;
	u64 q;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		b = NULL;
		for (q = s->cons; q < s->prod; q++)
			if (batch_at(s, q)->state == B_READY) {
				b = batch_at(s, q);
				break;
			}
		if (s->stop)
			break;
		if (!b) {
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		b->state = B_BUSY;
		pthread_mutex_unlock(&s->mu);
		batch_verify(s, b);
		pthread_mutex_lock(&s->mu);
		b->state = B_DONE;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* main thread: describes batches until the ring is full */
static void
scan_fill(struct fsck_scan *s)
{
	struct fsck *f = s->f;
	struct scan_batch *b;
	struct fsck_scan_ent *e;
	u64 addr;

	while (s->prod - s->cons < FSCK_SCAN_RING && s->next_nid < f->nid_end) {
		b = batch_at(s, s->prod);	/* FREE: ours */
		b->n = 0;
		for (; s->next_nid < f->nid_end && b->n < FSCK_SCAN_BATCH;
		     s->next_nid++) {
			if (nid_kind(&f->nid[s->next_nid]) != FK_NODE)
				continue;
			addr = fsck_imap_get(f, s->next_nid);
			e = &b->e[b->n++];
			memset(e, 0, sizeof(*e));
			e->nid = s->next_nid;
			e->addr = addr;
		}
		pthread_mutex_lock(&s->mu);
		b->state = B_READY;
		s->prod++;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
}

/* main thread: makes batch cons DONE, verifying batches itself */
static void
scan_wait(struct fsck_scan *s)
{
	struct scan_batch *want = batch_at(s, s->cons), *b;
	u64 q;

	pthread_mutex_lock(&s->mu);
	while (want->state != B_DONE) {
		b = NULL;
		if (want->state == B_READY) {
			b = want;
		} else {
			for (q = s->prod; q-- > s->cons + 1;)
				if (batch_at(s, q)->state == B_READY) {
					b = batch_at(s, q);
					break;
				}
		}
		if (!b) {
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		b->state = B_BUSY;
		pthread_mutex_unlock(&s->mu);
		batch_verify(s, b);
		pthread_mutex_lock(&s->mu);
		b->state = B_DONE;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
}

/* main thread: the consumed batch cons goes back to the ring */
static void
scan_release(struct fsck_scan *s)
{
	struct scan_batch *b = batch_at(s, s->cons);

	pthread_mutex_lock(&s->mu);
	b->state = B_FREE;
	s->cons++;
	pthread_mutex_unlock(&s->mu);
	s->cur = false;
	s->pos = 0;
}

const struct fsck_scan_ent *
fsck_scan_next(struct fsck_scan *s)
{
	struct scan_batch *b;

	for (;;) {
		if (s->cur) {
			b = batch_at(s, s->cons);
			if (s->pos < b->n)
				return &b->e[s->pos++];
			scan_release(s);
		}
		scan_fill(s);
		if (s->cons == s->prod)
			return NULL;
		scan_wait(s);
		s->cur = true;
		s->pos = 0;
	}
}

int
fsck_scan_start(struct fsck *f, struct fsck_scan **sp)
{
	struct fsck_scan *s = calloc(1, sizeof(*s));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	u32 i;

	*sp = NULL;
	if (!s)
		return -ENOMEM;
	s->f = f;
	s->next_nid = GAZE_ROOT_INO;
	for (i = 0; i < FSCK_SCAN_RING; i++) {
		s->b[i].buf = malloc((size_t)FSCK_SCAN_BATCH * GAZE_BLOCK_SIZE);
		if (!s->b[i].buf)
			goto out_free;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (cpus > 1 && !getenv("GAZE_FSCK_ONE_THREAD") &&
	    !pthread_create(&s->th, NULL, scan_worker, s))
		s->have_th = true;
	f->scan = s;
	*sp = s;
	return 0;
out_free:
	for (i = 0; i < FSCK_SCAN_RING; i++)
		free(s->b[i].buf);
	free(s);
	return -ENOMEM;
}

void
fsck_scan_stop(struct fsck_scan *s)
{
	u32 i;

	if (!s)
		return;
	if (s->f->scan == s)
		s->f->scan = NULL;
	if (s->have_th) {
		pthread_mutex_lock(&s->mu);
		s->stop = true;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->th, NULL);
	}
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	for (i = 0; i < FSCK_SCAN_RING; i++)
		free(s->b[i].buf);
	free(s);
}
