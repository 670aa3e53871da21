// SPDX-License-Identifier: GPL-2.0
/*
 * test_rf.c - fsync by roll-forward (core/recover.c, format.md section 17).
 *
 * On the ZNS emulator: an fsync that needs no checkpoint survives a power
 * cut that keeps nothing unflushed, with overwritten, appended and
 * punched blocks and the size as they were; nodes written after the last
 * fsync (cache pressure) are not replayed; a namespace operation makes
 * the next fsync a checkpoint; many fsyncs in a row (chains that cross
 * zones) replay in order; a torn chain replays only whole fsyncs; and the
 * space accounting after a replay is exactly what a clean reopen finds.
 * gaze-stress --fsync-mix does the same at random, against a model.
 */
#include "../tap.h"
#include "fixture.h"

/* power cut keeping keep% of the unflushed writes, then a mount */
static struct gaze_fs *
cut(struct gaze_fs *fs, u64 seed, unsigned int keep)
{
	struct gaze_dev *d = fs->dev;
	struct gaze_fs *n = NULL;
	int err;

	crash(fs);
	gaze_emu_power_cut(d, seed, keep);
	err = gaze_fs_open(d, 0, &n);
	if (err) {
		printf("Bail out! open after the power cut: %d\n", err);
		exit(1);
	}
	return n;
}

/* the instance and its device */
static void
done(struct gaze_fs *fs)
{
	struct gaze_dev *d = fs->dev;

	gaze_fs_close(fs);
	gaze_dev_close(d);
}

static u64
fsize(struct gaze_fs *fs, u32 ino)
{
	struct gaze_attr a;

	return gaze_ns_getattr(fs, ino, &a) ? ~0ull : a.size;
}

static int
punch(struct gaze_fs *fs, u32 ino, u64 b0, u32 n)
{
	struct gaze_mbuf *imb;
	int err;

	mutex_lock(&fs->lock);
	err = gaze_inode_get(fs, ino, &imb);
	if (!err) {
		err = gaze_inode_zero(fs, imb, b0 * BS, (b0 + n) * BS);
		gaze_mbuf_put(fs, imb);
	}
	mutex_unlock(&fs->lock);
	return err;
}

/* the space counts of a mounted instance, to compare with a clean reopen */
static void
counts(struct gaze_fs *fs, u64 *free_blocks, u32 *free_zones)
{
	mutex_lock(&fs->lock);
	*free_blocks = gaze_space_free_blocks(fs);
	*free_zones = gaze_space_free_zones(fs);
	mutex_unlock(&fs->lock);
}

static void
test_basic(void)
{
	struct gaze_fs *fs = format(mkdev(64), 6, GAZE_GC_GREEDY);
	u64 seq, fb, fb2;
	u32 ino, fz, fz2;

	tap_ok(!create(fs, GAZE_ROOT_INO, "f", 0100644, &ino) &&
	       !put(fs, ino, 1, 1, 0, 600) && !gaze_fs_sync(fs),
	       "basic: a 600-block file (the inode and a dnode), checkpointed");
	seq = fs->cp_seq;
	tap_ok(!put(fs, ino, 1, 2, 0, 8) && !put(fs, ino, 1, 2, 500, 8) &&
	       !put(fs, ino, 1, 2, 600, 24) && !punch(fs, ino, 20, 4) &&
	       !gaze_fs_fsync(fs) && fs->cp_seq == seq && fs->rf_fsyncs == 1,
	       "basic: overwrite, append and punch, then fsync without a checkpoint");
	fs = cut(fs, 1, 0);
	tap_ok(fs->rf_recovered == 2 && fs->cp_seq == seq + 1,
	       "basic: the mount replayed %u nodes and committed them",
	       fs->rf_recovered);
	tap_ok(fsize(fs, ino) == 624 * BS &&
	       !check_range(fs, ino, 1, 2, 0, 8) &&
	       !check_range(fs, ino, 1, 1, 8, 12) &&
	       !check_range(fs, ino, 1, 0, 20, 4) &&
	       !check_range(fs, ino, 1, 1, 24, 476) &&
	       !check_range(fs, ino, 1, 2, 500, 8) &&
	       !check_range(fs, ino, 1, 1, 508, 92) &&
	       !check_range(fs, ino, 1, 2, 600, 24),
	       "basic: size and every block as fsync left them");
	counts(fs, &fb, &fz);
	fs = reopen(fs);
	counts(fs, &fb2, &fz2);
	tap_ok(fb == fb2 && fz == fz2 && fs->rf_recovered == 0,
	       "basic: free blocks (%llu) and zones (%u) as a clean reopen finds them",
	       (unsigned long long)fb, fz);
	done(fs);
}

static void
test_after_last_fsync(void)
{
	struct gaze_fs *fs = format(mkdev(64), 6, GAZE_GC_GREEDY);
	u32 ino;
	int err;

	tap_ok(!create(fs, GAZE_ROOT_INO, "f", 0100644, &ino) &&
	       !put(fs, ino, 2, 1, 0, 16) && !gaze_fs_sync(fs) &&
	       !put(fs, ino, 2, 2, 0, 16) && !gaze_fs_fsync(fs),
	       "tail: generation 2 fsync'd");
	/* generation 3 reaches the device, nodes too, but no fsync */
	err = put(fs, ino, 2, 3, 0, 16);
	mutex_lock(&fs->lock);
	err = err ? err : gaze_fs_flush_dirty(fs);
	mutex_unlock(&fs->lock);
	tap_ok(!err && (fs->rf_log[gaze_log_of_type(fs, GAZE_LOG_NODE_WARM)] &
			GAZE_RF_TAIL),
	       "tail: generation 3 written with its nodes, not fsync'd");
	fs = cut(fs, 2, 100);
	tap_ok(!check_range(fs, ino, 2, 2, 0, 16),
	       "tail: a cut keeping every write brings back generation 2");
	done(fs);
}

static void
test_namespace(void)
{
	struct gaze_fs *fs = format(mkdev(64), 6, GAZE_GC_GREEDY);
	u64 seq;
	u32 ino, ino2;

	tap_ok(!create(fs, GAZE_ROOT_INO, "f", 0100644, &ino) &&
	       !gaze_fs_sync(fs), "namespace: a file, checkpointed");
	seq = fs->cp_seq;
	tap_ok(!put(fs, ino, 3, 1, 0, 4) &&
	       !create(fs, GAZE_ROOT_INO, "g", 0100644, &ino2) &&
	       !gaze_fs_fsync(fs) && fs->cp_seq == seq + 1 &&
	       fs->rf_fsync_cps == 1,
	       "namespace: fsync after a create takes a checkpoint");
	seq = fs->cp_seq;
	tap_ok(!put(fs, ino2, 4, 1, 0, 4) && !gaze_fs_fsync(fs) &&
	       fs->cp_seq == seq,
	       "namespace: the next fsync does not");
	fs = cut(fs, 3, 0);
	tap_ok(!check_range(fs, ino, 3, 1, 0, 4) &&
	       !check_range(fs, ino2, 4, 1, 0, 4),
	       "namespace: both files are back after a power cut");
	done(fs);
}

/* whether the warm node log has left the zone the checkpoint started it in */
static bool
log_crossed(struct gaze_fs *fs)
{
	u32 li = (u32)gaze_log_of_type(fs, GAZE_LOG_NODE_WARM);
	u64 start, cur;

	mutex_lock(&fs->lock);
	start = gaze_log_cp_start(fs, li);
	cur = gaze_log_peek(fs, GAZE_LOG_NODE_WARM, false);
	mutex_unlock(&fs->lock);
	return start && (!cur || cur / ZB != start / ZB);
}

/*
 * Many small fsyncs, one node each (the inode), until the chain has
 * crossed into a new zone of the node log, and 20 more; then a power cut
 * keeping keep% of what was never flushed.  200 other inodes written by
 * the first checkpoint put the chain's start near the end of a zone.
 */
static void
test_many(unsigned int keep)
{
	struct gaze_fs *fs = format(mkdev(96), 6, GAZE_GC_GREEDY);
	u32 ino, i, nr = 0, after = 0, rf0, cps0, other;
	char name[16];
	int bad = 0;

	for (i = 0; i < 200 && !bad; i++) {
		snprintf(name, sizeof(name), "p%u", i);
		bad = create(fs, GAZE_ROOT_INO, name, 0100644, &other);
	}
	tap_ok(!bad && !create(fs, GAZE_ROOT_INO, "f", 0100644, &ino) &&
	       !gaze_fs_sync(fs), "many(%u): a file and 200 others", keep);
	for (i = 0; i < 440 && after < 20 && !bad; i++, nr++) {
		bad = put(fs, ino, 5, 1 + i, i, 1) || gaze_fs_fsync(fs);
		if (after || log_crossed(fs))
			after++;
	}
	rf0 = (u32)fs->rf_fsyncs;
	cps0 = (u32)fs->rf_fsync_cps;
	tap_ok(!bad && after == 20 && !cps0,
	       "many(%u): %u fsyncs, %u by roll-forward, %u by checkpoint; the chain crossed a zone",
	       keep, nr, rf0, cps0);
	fs = cut(fs, 4 + keep, keep);
	for (i = 0; i < nr && !bad; i++)
		bad = check_range(fs, ino, 5, 1 + i, i, 1);
	tap_ok(!bad && fs->rf_recovered == nr,
	       "many(%u): every block back, %u nodes replayed", keep,
	       fs->rf_recovered);
	done(fs);
}

/*
 * A chain torn in the middle: 70 files changed, so one fsync writes two
 * batches of nodes; the second write fails.  The first batch carries the
 * fsync mark but not the end mark, so none of it is replayed.
 */
#define TORN_FILES	70

static void
test_torn(void)
{
	struct gaze_fs *fs = format(mkdev(64), 6, GAZE_GC_GREEDY);
	u32 ino[TORN_FILES], i;
	char name[16];
	int err = 0, bad = 0;

	for (i = 0; i < TORN_FILES && !err; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		err = create(fs, GAZE_ROOT_INO, name, 0100644, &ino[i]) ||
		      put(fs, ino[i], 10 + i, 1, 0, 1);
	}
	tap_ok(!err && !gaze_fs_sync(fs), "torn: %u files, checkpointed",
	       TORN_FILES);
	for (i = 0; i < TORN_FILES && !err; i++)
		err = put(fs, ino[i], 10 + i, 2, 0, 1);
	tap_ok(!err && !gaze_fs_fsync(fs) && fs->rf_fsyncs == 1,
	       "torn: generation 2 of each fsync'd by roll-forward");
	for (i = 0; i < TORN_FILES && !err; i++)
		err = put(fs, ino[i], 10 + i, 3, 0, 1);
	gaze_emu_fail_after(fs->dev, 2, 0);
	err = err ? err : gaze_fs_fsync(fs);
	gaze_emu_fail_after(fs->dev, 0, 0);
	tap_ok(err != 0, "torn: the fsync of generation 3 fails half way (%d)",
	       err);
	fs = cut(fs, 7, 100);
	for (i = 0; i < TORN_FILES; i++)
		bad += !!check_range(fs, ino[i], 10 + i, 2, 0, 1);
	tap_ok(!bad, "torn: every file is at generation 2 (%d are not)", bad);
	done(fs);
}

/*
 * A device of conventional zones reports no write pointer (as a regular
 * disk with emulated zones): after a replay the log heads must go on
 * after the replayed blocks, not over them.
 */
static void
test_conventional(void)
{
	struct gaze_emu_opts o;
	struct gaze_dev *d = NULL;
	struct gaze_fs *fs;
	u32 ino;
	int err;

	memset(&o, 0, sizeof(o));
	o.nr_zones = 64;
	o.zone_blocks = ZB;
	o.nr_conv = 64;
	if (gaze_emu_create(&o, &d)) {
		printf("Bail out! gaze_emu_create (conventional)\n");
		exit(1);
	}
	fs = format(d, 6, GAZE_GC_GREEDY);
	tap_ok(!create(fs, GAZE_ROOT_INO, "f", 0100644, &ino) &&
	       !put(fs, ino, 8, 1, 0, 600) && !gaze_fs_sync(fs) &&
	       !put(fs, ino, 8, 2, 0, 600) && !gaze_fs_fsync(fs) &&
	       fs->rf_fsyncs == 1,
	       "conventional: 600 blocks overwritten and fsync'd by roll-forward");
	fs = cut(fs, 8, 100);
	err = put(fs, ino, 8, 3, 600, 300);
	tap_ok(fs->rf_recovered == 2 && !err && !gaze_fs_sync(fs),
	       "conventional: replayed %u nodes, then 300 blocks more written",
	       fs->rf_recovered);
	fs = reopen(fs);
	tap_ok(!check_range(fs, ino, 8, 2, 0, 600) &&
	       !check_range(fs, ino, 8, 3, 600, 300),
	       "conventional: the replayed blocks were not written over");
	done(fs);
}

/* whether block addr survived the cut: below its zone's write pointer */
static bool
kept(struct gaze_dev *d, u64 addr)
{
	struct gaze_zone z;
	u64 wp;

	if (d->ops->report(d, (u32)(addr / ZB), 1, &z) != 1)
		return false;
	wp = z.cond == GAZE_ZC_FULL ? z.start + d->zone_cap : z.wp;
	return addr < wp;
}

/*
 * On sequential zones fsync does not flush the data before writing the
 * nodes.  A crash between the nodes and the final flush may keep the
 * nodes and lose data they map: such a node must not be replayed.  Each
 * seed cuts a different prefix of each zone; the file must come back
 * as generation 2 exactly when its node and all its data survived, and
 * as generation 1 otherwise.
 */
static void
test_lost_data(void)
{
	u32 seed, both = 0, node_only = 0, neither = 0, bad = 0, i, ino;
	u64 daddr[8], naddr;
	struct gaze_dev *d;
	struct gaze_fs *fs;
	bool all;
	int li, err;

	for (seed = 1; seed <= 80 && !bad; seed++) {
		d = mkdev(64);
		fs = format(d, 6, GAZE_GC_GREEDY);
		err = create(fs, GAZE_ROOT_INO, "f", 0100644, &ino) ||
		      put(fs, ino, 9, 1, 0, 8) || gaze_fs_sync(fs) ||
		      put(fs, ino, 9, 2, 0, 8);
		mutex_lock(&fs->lock);
		li = gaze_nodes_fsync_log(fs);	/* the nodes, no flush */
		err = err || li < 0 || gaze_nodes_fsync(fs, (u32)li) ||
		      gaze_imap_get(fs, ino, &naddr);
		mutex_unlock(&fs->lock);
		for (i = 0; i < 8 && !err; i++)
			err = gaze_file_bmap(fs, ino, i, &daddr[i]);
		if (err) {
			bad++;
			break;
		}
		crash(fs);
		gaze_emu_power_cut(d, seed, 50);
		for (i = 0, all = true; i < 8; i++)
			all = all && kept(d, daddr[i]);
		fs = NULL;
		if (gaze_fs_open(d, 0, &fs)) {
			bad++;
			break;
		}
		if (kept(d, naddr) && all) {
			both++;
			bad += !!check_range(fs, ino, 9, 2, 0, 8);
		} else {
			node_only += kept(d, naddr);
			neither += !kept(d, naddr);
			bad += !!check_range(fs, ino, 9, 1, 0, 8);
		}
		done(fs);
	}
	tap_ok(!bad && node_only && both,
	       "lost data: %u cuts kept node and data (replayed), %u the node but not all its data (not replayed), %u not the node",
	       both, node_only, neither);
}

int
main(void)
{
	test_basic();
	test_after_last_fsync();
	test_namespace();
	test_many(0);
	test_many(50);
	test_torn();
	test_conventional();
	test_lost_data();
	return tap_done();
}
