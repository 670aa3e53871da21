// SPDX-License-Identifier: GPL-2.0
/*
 * zsm.c - the zone state machine shared by every backend that emulates
 * zones: the userspace emulator and emulated-zone file backend
 * (lib/zdev/) and the module's emulated zones on regular disks
 * (kernel/linux/bdev.c).
 *
 * Why: both must reject exactly what an NVMe ZNS drive rejects (writes
 * off the write pointer, past the capacity, into FULL zones, opening more
 * zones than the open / active limits allow), and one copy of those rules
 * is the only way to keep them identical.  The rules follow the ZNS
 * command set: a write to an EMPTY or CLOSED zone opens it implicitly; at
 * the open limit the least recently written implicitly open zone is
 * closed (to EMPTY if it holds no data); "active" counts open and closed
 * zones, and a write needing one more active zone than allowed is -EIO.
 *
 * Locking: none here; every caller holds its device lock around each call.
 */
#include "gaze_core.h"

int
gaze_zsm_init(struct gaze_zsm *m, u32 nr_zones, u32 zone_blocks,
	      u32 zone_cap, u32 nr_conv, u32 max_open, u32 max_active)
{
	u32 i;

	if (!nr_zones || !zone_blocks || !zone_cap || zone_cap > zone_blocks ||
	    nr_conv > nr_zones)
		return -EINVAL;
	m->zones = gaze_zalloc(sizeof(*m->zones) * (size_t)nr_zones);
	if (!m->zones)
		return -ENOMEM;
	INIT_LIST_HEAD(&m->open_lru);
	m->nr_zones = nr_zones;
	m->zone_blocks = zone_blocks;
	m->zone_cap = zone_cap;
	m->max_open = max_open;
	m->max_active = max_active;
	m->nr_open = 0;
	m->nr_active = 0;
	for (i = 0; i < nr_zones; i++) {
		struct gaze_zsm_zone *z = &m->zones[i];

		INIT_LIST_HEAD(&z->lru);
		z->type = i < nr_conv ? GAZE_ZT_CONV : GAZE_ZT_SEQ;
		z->cond = i < nr_conv ? GAZE_ZC_NOT_WP : GAZE_ZC_EMPTY;
	}
	return 0;
}

void
gaze_zsm_destroy(struct gaze_zsm *m)
{
	gaze_free(m->zones);
	m->zones = NULL;
}

int
gaze_zsm_range(const struct gaze_zsm *m, u64 blk, u64 nr)
{
	u64 total = (u64)m->nr_zones * m->zone_blocks;

	if (nr > total || blk > total - nr)
		return -EINVAL;
	return 0;
}

/* Takes an open or closed zone out of the open/active accounting. */
static void
zsm_leave(struct gaze_zsm *m, struct gaze_zsm_zone *z)
{
	if (z->cond == GAZE_ZC_IMP_OPEN) {
		list_del_init(&z->lru);
		m->nr_open--;
		m->nr_active--;
	} else if (z->cond == GAZE_ZC_CLOSED) {
		m->nr_active--;
	}
}

/* Implicit close: IMP_OPEN -> CLOSED, or EMPTY when it holds no data. */
static void
zsm_close(struct gaze_zsm *m, struct gaze_zsm_zone *z)
{
	list_del_init(&z->lru);
	m->nr_open--;
	if (z->wp) {
		z->cond = GAZE_ZC_CLOSED;
	} else {
		z->cond = GAZE_ZC_EMPTY;
		m->nr_active--;
	}
}

/* Implicit open of an EMPTY or CLOSED zone for a write. */
static int
zsm_open(struct gaze_zsm *m, struct gaze_zsm_zone *z)
{
	bool need_active = z->cond == GAZE_ZC_EMPTY;

	if (m->max_open && m->nr_open >= m->max_open) {
		struct gaze_zsm_zone *v;
		u32 freed;

		if (list_empty(&m->open_lru))
			return -EIO;
		v = list_first_entry(&m->open_lru, struct gaze_zsm_zone, lru);
		freed = v->wp ? 0 : 1;
		if (need_active && m->max_active &&
		    m->nr_active - freed >= m->max_active)
			return -EIO;	/* too many active zones */
		zsm_close(m, v);
	}
	if (need_active && m->max_active && m->nr_active >= m->max_active)
		return -EIO;		/* too many active zones */
	z->cond = GAZE_ZC_IMP_OPEN;
	m->nr_open++;
	if (need_active)
		m->nr_active++;
	list_add_tail(&z->lru, &m->open_lru);
	return 0;
}

/* A write may span zones only if all of them are conventional. */
static int
zsm_conv_span(const struct gaze_zsm *m, u64 blk, u32 nr)
{
	u64 last = (blk + nr - 1) / m->zone_blocks;
	u64 i;

	for (i = blk / m->zone_blocks + 1; i <= last; i++)
		if (m->zones[i].type != GAZE_ZT_CONV)
			return -EIO;
	return 0;
}

int
gaze_zsm_write_prep(struct gaze_zsm *m, u64 blk, u32 nr)
{
	u32 zone = blk / m->zone_blocks;
	u32 off = blk % m->zone_blocks;
	struct gaze_zsm_zone *z = &m->zones[zone];

	if (z->type == GAZE_ZT_CONV)
		return zsm_conv_span(m, blk, nr);
	if (off != z->wp || (u64)off + nr > m->zone_cap)
		return -EIO;	/* zone invalid write / boundary */
	switch (z->cond) {
	case GAZE_ZC_IMP_OPEN:
	case GAZE_ZC_EXP_OPEN:
		return 0;
	case GAZE_ZC_EMPTY:
	case GAZE_ZC_CLOSED:
		return zsm_open(m, z);
	default:
		return -EIO;	/* FULL, READONLY, OFFLINE */
	}
}

void
gaze_zsm_write_done(struct gaze_zsm *m, u64 blk, u32 nr)
{
	struct gaze_zsm_zone *z = &m->zones[blk / m->zone_blocks];

	if (z->type == GAZE_ZT_CONV)
		return;
	z->wp += nr;
	if (z->wp >= m->zone_cap) {
		zsm_leave(m, z);
		z->cond = GAZE_ZC_FULL;
	} else {
		list_move_tail(&z->lru, &m->open_lru);
	}
}

u32
gaze_zsm_valid(const struct gaze_zsm *m, u32 zone)
{
	const struct gaze_zsm_zone *z = &m->zones[zone];

	return z->type == GAZE_ZT_CONV ? m->zone_blocks : z->wp;
}

int
gaze_zsm_reset(struct gaze_zsm *m, u32 zone)
{
	struct gaze_zsm_zone *z = &m->zones[zone];

	if (z->type == GAZE_ZT_CONV || z->cond == GAZE_ZC_OFFLINE ||
	    z->cond == GAZE_ZC_READONLY)
		return -EIO;
	zsm_leave(m, z);
	z->cond = GAZE_ZC_EMPTY;
	z->wp = 0;
	z->finished = 0;
	return 0;
}

int
gaze_zsm_finish(struct gaze_zsm *m, u32 zone)
{
	struct gaze_zsm_zone *z = &m->zones[zone];

	if (z->type == GAZE_ZT_CONV || z->cond == GAZE_ZC_OFFLINE ||
	    z->cond == GAZE_ZC_READONLY)
		return -EIO;
	if (z->cond == GAZE_ZC_FULL)
		return 0;
	zsm_leave(m, z);
	z->cond = GAZE_ZC_FULL;
	z->finished = 1;
	return 0;
}

void
gaze_zsm_make_seq(struct gaze_zsm *m, u32 zone)
{
	struct gaze_zsm_zone *z = &m->zones[zone];

	if (z->type != GAZE_ZT_CONV)
		return;
	z->type = GAZE_ZT_SEQ;
	z->cond = GAZE_ZC_EMPTY;
	z->wp = 0;
	z->finished = 0;
}

void
gaze_zsm_report(const struct gaze_zsm *m, u32 zone, struct gaze_zone *out)
{
	const struct gaze_zsm_zone *z = &m->zones[zone];

	out->start = (u64)zone * m->zone_blocks;
	out->len = m->zone_blocks;
	out->type = z->type;
	out->cond = z->cond;
	if (z->type == GAZE_ZT_CONV) {
		out->cap = m->zone_blocks;
		out->wp = out->start + out->len;
		return;
	}
	out->cap = m->zone_cap;
	if (z->cond == GAZE_ZC_FULL)
		out->wp = out->start + out->len;
	else
		out->wp = out->start + z->wp;
}

/*
 * Power loss.  Open zones end up CLOSED (EMPTY without data).  A zone
 * made FULL by writing goes back to CLOSED when its tail was lost, unless
 * that would exceed max_active: then it stays FULL with its data end moved
 * back (the lost blocks read as zeros either way), and stays so at later
 * cuts, like a finished zone.  Callers cut every
 * non-FULL zone before any FULL one so active slots are counted right.
 */
void
gaze_zsm_cut(struct gaze_zsm *m, u32 zone, u32 wp)
{
	struct gaze_zsm_zone *z = &m->zones[zone];

	if (z->type == GAZE_ZT_CONV)
		return;
	if (wp < z->wp)
		z->wp = wp;
	switch (z->cond) {
	case GAZE_ZC_IMP_OPEN:
		zsm_close(m, z);
		break;
	case GAZE_ZC_CLOSED:
		if (!z->wp) {
			z->cond = GAZE_ZC_EMPTY;
			m->nr_active--;
		}
		break;
	case GAZE_ZC_FULL:
		if (z->finished || z->wp >= m->zone_cap)
			break;
		if (!z->wp) {
			z->cond = GAZE_ZC_EMPTY;
		} else if (!m->max_active || m->nr_active < m->max_active) {
			z->cond = GAZE_ZC_CLOSED;
			m->nr_active++;
		} else {
			/* stays FULL for good, as if finished: a later cut
			 * must not turn it back into an active zone */
			z->finished = 1;
		}
		break;
	default:
		break;
	}
}
