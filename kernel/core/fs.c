// SPDX-License-Identifier: GPL-2.0
/*
 * fs.c - format, open and close of a filesystem instance.
 *
 * Why: mkfs, fsck, the tests and the module must all bring an instance
 * up the same way (superblock, newest checkpoint, tables, space), so this
 * is done once here.  Format is deliberately small: it resets the zones,
 * writes two superblock copies and one checkpoint holding only the root
 * directory.  Tables start empty (absent blocks read as zeros), so
 * nothing proportional to the capacity is written or allocated beyond a
 * few bytes per zone, and a large device formats in milliseconds.
 *
 * Locking: gaze_fs_sync() and gaze_fs_close() take fs->lock;
 * gaze_fs_format() and gaze_fs_open() work on an instance nobody else
 * can see yet; gaze_fs_balance() is called by namespace operations that
 * already hold fs->lock (it may write a checkpoint, see there).
 */
#include "gaze_core.h"

#define FS_DEFAULT_CACHE_LIMIT	(32u << 20)
/* blocks a write-behind step takes at most (gaze_fs_balance) */
#define FS_WRITE_BEHIND		1024u
#define FS_REPORT_BATCH		64u

static void
fs_free(struct gaze_fs *fs)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(fs->staged); i++)
		gaze_free(fs->staged[i].buf);
	gaze_orphans_destroy(fs);
	gaze_space_destroy(fs);
	gaze_tables_destroy(fs);
	gaze_cache_destroy(fs);
	mutex_destroy(&fs->gcw_lock);
	mutex_destroy(&fs->lock);
	gaze_free(fs);
}

static struct gaze_fs *
fs_alloc(struct gaze_dev *dev, u32 flags)
{
	struct gaze_fs *fs = gaze_zalloc(sizeof(*fs));
	s64 sec;
	u64 t;
	u32 i, nsec;

	if (!fs)
		return NULL;
	fs->dev = dev;
	fs->flags = flags;
	/* generations of this instance start from a clock-seeded value */
	gaze_wallclock(&sec, &nsec);
	t = gaze_time_ns();
	fs->next_generation = gaze_crc32c(gaze_crc32c(~0u, &sec, sizeof(sec)) ^
					  nsec, &t, sizeof(t));
	fs->cache_limit = FS_DEFAULT_CACHE_LIMIT;
	fs->around_credit = GAZE_AROUND_CREDIT;
	fs->gc_policy = GAZE_GC_POLICY_DEFAULT;
	for (i = 0; i < GAZE_GCP_MAX_JOBS; i++)
		fs->gcp_zone[i] = GAZE_GCP_NONE;
	mutex_init(&fs->lock);
	mutex_init(&fs->gcw_lock);
	spin_lock_init(&fs->resv_lock);
	return fs;
}

/* a checkpoint outside a namespace operation */
static int
fs_cp_write_locked(struct gaze_fs *fs, u32 flags)
{
	int ret;

	mutex_lock(&fs->lock);
	ret = gaze_cp_write(fs, flags);
	mutex_unlock(&fs->lock);
	return ret;
}

/* the tables, then the space state built from them */
static int
fs_load_tables(struct gaze_fs *fs)
{
	int ret;

	ret = gaze_tables_init(fs);
	if (ret)
		return ret;
	return gaze_space_init(fs);
}

static int
fs_check_geometry(const struct gaze_dev *dev, const struct gaze_geometry *g)
{
	if (g->zone_blocks != dev->zone_blocks || g->nr_zones > dev->nr_zones ||
	    g->zone_cap > dev->zone_cap || g->nr_blocks > dev->nr_blocks) {
		gaze_err("geometry (%u zones of %u blocks, capacity %u) does not match the device (%u zones of %u blocks, capacity %u)",
			 g->nr_zones, g->zone_blocks, g->zone_cap,
			 dev->nr_zones, dev->zone_blocks, dev->zone_cap);
		return -EINVAL;
	}
	return 0;
}

/*
 * Resets every sequential zone of [0, nr) - one call per run of
 * sequential zones, normally one call in all - and checks that each is
 * empty afterwards.  Conventional zones of a real zoned device are left
 * as they are; on a device with emulated zones every zone is reset (the
 * backend reports them conventional until it has reset them, and from
 * then on enforces a write pointer).
 */
static int
fs_reset_zones(struct gaze_dev *dev, u32 nr)
{
	struct gaze_zone *rep;
	u32 zone, i, run = 0, run_start = 0;
	int n, ret = 0;
	bool pass;

	rep = gaze_alloc(FS_REPORT_BATCH * sizeof(*rep));
	if (!rep)
		return -ENOMEM;
	/* pass 0 resets runs of sequential zones, pass 1 checks them */
	for (pass = false;; pass = true) {
		for (zone = 0; zone < nr; zone += (u32)n) {
			n = dev->ops->report(dev, zone,
					     min(FS_REPORT_BATCH, nr - zone),
					     rep);
			if (n <= 0) {
				ret = n ? n : -EIO;
				goto out_free;
			}
			for (i = 0; i < (u32)n; i++) {
				struct gaze_zone *z = &rep[i];
				bool seq = z->type == GAZE_ZT_SEQ ||
					   (!pass && dev->model == GAZE_ZM_EMULATED);

				if (pass) {
					if (seq && (z->cond != GAZE_ZC_EMPTY ||
						    z->wp != z->start)) {
						gaze_err("zone %u not empty after reset",
							 zone + i);
						ret = -EIO;
						goto out_free;
					}
					continue;
				}
				if (seq) {
					if (!run++)
						run_start = zone + i;
					continue;
				}
				if (run) {
					ret = dev->ops->reset(dev, run_start,
							      run);
					if (ret)
						goto out_reset;
					run = 0;
				}
			}
		}
		if (pass)
			break;
		if (run) {
			ret = dev->ops->reset(dev, run_start, run);
			if (ret)
				goto out_reset;
		}
	}
	goto out_free;

out_reset:
	gaze_err("resetting zones %u..%u failed: %d", run_start,
		 run_start + run - 1, ret);
out_free:
	gaze_free(rep);
	return ret;
}

static int
fs_write_supers(struct gaze_fs *fs, const struct gaze_mkfs_params *p)
{
	struct gaze_super *sb;
	u32 c, zone;
	u64 addr;
	int ret = -ENOMEM;

	sb = gaze_alloc(sizeof(*sb));
	if (!sb)
		return -ENOMEM;
	for (c = 0; c < fs->lay.cp_zone_count; c++) {
		zone = fs->lay.cp_zone_start + c;
		addr = (u64)zone * p->geo.zone_blocks;
		gaze_fmt_super_build(sb, p, &fs->lay, c, addr);
		ret = fs->dev->ops->write(fs->dev, addr, 1, sb);
		if (ret) {
			gaze_err("writing superblock copy %u failed: %d",
				 c, ret);
			break;
		}
		if (!c)
			memcpy(&fs->sb, sb, sizeof(*sb));
	}
	gaze_free(sb);
	return ret;
}

int
gaze_fs_format(struct gaze_dev *dev, const struct gaze_mkfs_params *p,
	       const struct gaze_attr *root, struct gaze_fs **fsp)
{
	struct gaze_fs *fs;
	const char *why = NULL;
	struct gaze_layout lay;
	int ret;

	ret = fs_check_geometry(dev, &p->geo);
	if (ret)
		return ret;
	ret = gaze_layout_compute(p, &lay, &why);
	if (ret) {
		gaze_err("cannot format: %s", why ? why : "bad layout");
		return ret;
	}
	ret = fs_reset_zones(dev, lay.nr_zones);
	if (ret)
		return ret;

	fs = fs_alloc(dev, 0);
	if (!fs)
		return -ENOMEM;
	fs->lay = lay;
	memcpy(fs->uuid, p->uuid, sizeof(fs->uuid));
	ret = fs_write_supers(fs, p);
	if (ret)
		goto out_free;
	/* only one checkpoint zone may stay open (active-zone budget) */
	ret = gaze_cp_zone_finish(fs, lay.cp_zone_start + 1);
	if (ret)
		goto out_free;
	fs->cp_seq = 0;
	fs->cp_zone = lay.cp_zone_start;
	fs->cp_offset = 1;
	fs->next_nid = GAZE_ROOT_INO + 1;
	ret = gaze_cache_init(fs);
	if (ret)
		goto out_free;
	ret = fs_load_tables(fs);
	if (ret)
		goto out_free;
	/* the instance is private until returned: no lock is held here, as
	 * the namespace entry point takes it */
	ret = gaze_ns_init_root(fs, root);
	if (ret) {
		gaze_err("creating the root directory failed: %d", ret);
		goto out_free;
	}
	ret = fs_cp_write_locked(fs, GAZE_CP_MKFS);
	if (ret)
		goto out_free;
	*fsp = fs;
	return 0;

out_free:
	fs_free(fs);
	return ret;
}


static int
fs_check_features(const struct gaze_super *sb, u32 flags)
{
	u64 inc = le64_to_cpu(sb->feature_incompat) &
		  ~GAZE_FEATURE_INCOMPAT_SUPP;
	u64 ro = le64_to_cpu(sb->feature_ro_compat) &
		 ~GAZE_FEATURE_RO_COMPAT_SUPP;
	char names[128];

	if (inc) {
		gaze_fmt_feature_string(0, 0, inc, names, sizeof(names));
		gaze_err("unsupported incompatible features (%s, mask 0x%llx): cannot mount",
			 names, (unsigned long long)inc);
		return -EOPNOTSUPP;
	}
	if (ro && !(flags & GAZE_FS_RDONLY)) {
		gaze_fmt_feature_string(0, ro, 0, names, sizeof(names));
		gaze_err("unsupported read-only-compatible features (%s, mask 0x%llx): read-only mount only",
			 names, (unsigned long long)ro);
		return -EROFS;
	}
	return 0;
}

/* reads and verifies superblock copy 0, else copy 1 */
static int
fs_read_super(struct gaze_fs *fs)
{
	struct gaze_dev *dev = fs->dev;
	const char *why = NULL, *why1 = NULL;
	struct gaze_super *sb;
	int ret, ret1;

	sb = gaze_alloc(sizeof(*sb));
	if (!sb)
		return -ENOMEM;
	ret = dev->ops->read(dev, 0, 1, sb);
	if (!ret)
		ret = gaze_fmt_super_verify(sb, 0, &why);
	if (!ret)
		goto out_copy;
	ret1 = dev->ops->read(dev, dev->zone_blocks, 1, sb);
	if (!ret1)
		ret1 = gaze_fmt_super_verify(sb, dev->zone_blocks, &why1);
	if (ret1) {
		gaze_err("no valid superblock: copy 0: %s; copy 1: %s",
			 why ? why : "read error", why1 ? why1 : "read error");
		goto out_free;
	}
	gaze_warn("superblock copy 0 is bad (%s); using copy 1",
		  why ? why : "read error");
	ret = 0;
out_copy:
	memcpy(&fs->sb, sb, sizeof(*sb));
out_free:
	gaze_free(sb);
	return ret;
}

static int
fs_open(struct gaze_dev *dev, u32 flags, struct gaze_fs **fsp, bool *cp_found)
{
	struct gaze_fs *fs;
	const char *why = NULL;
	const struct gaze_super *sb;
	u32 max_nid, freed;
	int ret;

	if (flags & ~(GAZE_FS_RDONLY | GAZE_FS_KEEP_ORPHANS |
		      GAZE_FS_NO_RECOVERY | GAZE_FS_REPAIR | GAZE_FS_CP_PREV))
		return -EINVAL;
	if ((flags & GAZE_FS_REPAIR) && (flags & GAZE_FS_RDONLY))
		return -EINVAL;
	/* from the previous checkpoint: read-only, or fsck's repair */
	if ((flags & GAZE_FS_CP_PREV) &&
	    !(flags & (GAZE_FS_RDONLY | GAZE_FS_REPAIR)))
		return -EINVAL;
	fs = fs_alloc(dev, flags & (GAZE_FS_RDONLY | GAZE_FS_NO_RECOVERY |
				    GAZE_FS_REPAIR | GAZE_FS_CP_PREV));
	if (!fs)
		return -ENOMEM;
	sb = &fs->sb;
	ret = fs_read_super(fs);
	if (ret)
		goto out_free;
	ret = fs_check_features(sb, flags);
	if (ret)
		goto out_free;
	if (le32_to_cpu(sb->zone_blocks) != dev->zone_blocks ||
	    le32_to_cpu(sb->zone_cap) > dev->zone_cap ||
	    le32_to_cpu(sb->nr_zones) > dev->nr_zones ||
	    le64_to_cpu(sb->total_blocks) > dev->nr_blocks) {
		gaze_err("the device geometry does not match the superblock (zone size %u/%u blocks, zones %u/%u)",
			 le32_to_cpu(sb->zone_blocks), dev->zone_blocks,
			 le32_to_cpu(sb->nr_zones), dev->nr_zones);
		ret = -EINVAL;
		goto out_free;
	}
	ret = gaze_layout_from_super(sb, &fs->lay, &why);
	if (ret) {
		gaze_err("superblock layout: %s", why ? why : "invalid");
		goto out_free;
	}
	/* what the headers carry; sb->hdr.uuid is the one users see */
	memcpy(fs->uuid, gaze_sb_meta_uuid(sb), sizeof(fs->uuid));

	ret = gaze_cache_init(fs);
	if (ret)
		goto out_free;
	ret = gaze_cp_find(fs);
	if (ret)
		goto out_free;
	*cp_found = true;
	max_nid = le32_to_cpu(sb->max_nid);
	fs->next_nid = le32_to_cpu(fs->cp.next_nid);
	if (fs->next_nid <= GAZE_ROOT_INO || fs->next_nid >= max_nid)
		fs->next_nid = GAZE_ROOT_INO + 1;
	fs->valid_inodes = le32_to_cpu(fs->cp.valid_inodes);
	ret = fs_load_tables(fs);
	if (ret)
		goto out_free;
	/* the inactive checkpoint zone must not hold an active slot */
	if (!(flags & GAZE_FS_RDONLY)) {
		u32 other = fs->lay.cp_zone_start +
			    (fs->cp_zone == fs->lay.cp_zone_start ? 1 : 0);

		ret = gaze_cp_zone_finish(fs, other);
		if (ret)
			goto out_free;
	}
	/*
	 * orphans of an unclean shutdown: freed now, unless still open.  A
	 * damaged list does not stop the mount: its inodes only keep their
	 * space until fsck.gaze finds them (the next checkpoint writes an
	 * empty list).
	 */
	ret = gaze_orphans_load(fs);
	if (ret == -EFSCORRUPTED) {
		gaze_warn("the orphan list of checkpoint %llu is damaged and ignored; run fsck.gaze",
			  (unsigned long long)fs->cp_seq);
		ret = 0;
	}
	if (!ret && !(flags & (GAZE_FS_RDONLY | GAZE_FS_KEEP_ORPHANS)))
		ret = gaze_orphans_recover(fs);
	if (ret < 0)
		goto out_free;
	freed = (u32)ret;
	/* fs->cp carries counters into the next pack: count this mount */
	if (!(flags & GAZE_FS_RDONLY))
		fs->cp.mount_count = cpu_to_le32(le32_to_cpu(fs->cp.mount_count) +
						 1);
	/*
	 * what roll-forward replayed and the orphans freed are committed
	 * before anything new; the callers say so (fs->rf_recovered: the
	 * module's mount message, fsck.gaze's replay line)
	 */
	if (fs->rf_recovered || freed) {
		ret = fs_cp_write_locked(fs, 0);
		if (ret) {
			gaze_err("the checkpoint after recovery failed: %d",
				 ret);
			goto out_free;
		}
	}
	*fsp = fs;
	return 0;

out_free:
	fs_free(fs);
	return ret;
}

int
gaze_fs_open(struct gaze_dev *dev, u32 flags, struct gaze_fs **fsp)
{
	bool found = false;
	int ret;

	ret = fs_open(dev, flags, fsp, &found);
	/*
	 * A read-only open whose newest checkpoint was found but whose
	 * tables cannot be read falls back to the checkpoint before it,
	 * which the two-generation rule keeps whole, so that one damaged
	 * block does not make the filesystem unreadable.
	 */
	if (!found || (ret != -EFSCORRUPTED && ret != -EFSBADCRC) ||
	    !(flags & GAZE_FS_RDONLY) || (flags & GAZE_FS_CP_PREV))
		return ret;
	gaze_warn("the newest checkpoint's tables cannot be read (%d); trying the checkpoint before it",
		  ret);
	found = false;
	if (fs_open(dev, flags | GAZE_FS_CP_PREV, fsp, &found))
		return ret;
	gaze_warn("opened read-only at checkpoint %llu, the one before the newest: run fsck.gaze",
		  (unsigned long long)(*fsp)->cp_seq);
	return 0;
}

int
gaze_fs_close(struct gaze_fs *fs)
{
	int ret = 0;

	if (!fs)
		return 0;
	if (!(fs->flags & GAZE_FS_RDONLY)) {
		ret = fs_cp_write_locked(fs, GAZE_CP_UMOUNT);
		if (ret)
			gaze_err("final checkpoint failed: %d", ret);
	}
	fs_free(fs);
	return ret;
}

/*
 * Whether the dirty state can be made durable by roll-forward alone, and
 * to which physical node log (*li).  Not when: an operation since the
 * checkpoint is one recovery does not replay (fs->rf_need_cp), directory
 * blocks are dirty, the dirty nodes go to several logs (one fsync must
 * be one run of one chain, so a crash keeps all of it or none), a chain
 * has no known start or was broken, another log has nodes after its last
 * end mark (recovery would not replay them), the last checkpoint is a
 * clean unmount (recovery follows no chain after one: format.md section
 * 17; the first fsync of a mount after a clean unmount commits a
 * checkpoint, the next ones may roll forward), or the chains have grown
 * past a zone or FS_RF_MAX_BLOCKS (so a mount reads at most that many
 * nodes to replay them, and superseded nodes hold bounded space).
 */
#define FS_RF_MAX_BLOCKS	4096u

/* what any roll-forward needs: recovery on, and a chain after the
 * checkpoint (recovery follows none after a clean unmount) */
static bool
fs_rf_allowed(const struct gaze_fs *fs)
{
	return !(fs->flags & GAZE_FS_NO_RECOVERY) &&
	       !(le32_to_cpu(fs->cp.flags) & GAZE_CP_UMOUNT);
}

/* whether nr dirty nodes found in log li (gaze_nodes_fsync_log) fit
 * one run of its chain: one log, within the bounds, a known start */
static bool
fs_rf_fits(struct gaze_fs *fs, int li, u32 nr)
{
	u32 max = min_t(u32, le32_to_cpu(fs->sb.zone_cap), FS_RF_MAX_BLOCKS);

	if (li == -1 || fs->rf_blocks + nr > max)
		return false;
	return li < 0 || gaze_log_cp_start(fs, (u32)li);
}

/* dirty nodes and directory blocks (fs->lock held) */
static u64
fs_dirty_blocks(struct gaze_fs *fs)
{
	return (u64)gaze_cache_nr_dirty(fs, GAZE_MB_FBLK) +
	       gaze_cache_nr_dirty(fs, GAZE_MB_NODE);
}

static bool
fs_rf_possible(struct gaze_fs *fs, int *li)
{
	u32 l, nr;

	if (fs->rf_need_cp || !fs_rf_allowed(fs))
		return false;
	/*
	 * fsync_namespace: directory blocks go to their data log first, as a
	 * file's data does, and the directory nodes that map them join the
	 * chain (a failed write leaves them dirty: the checkpoint that
	 * follows meets the error again and reports it)
	 */
	if (gaze_sb_fsync_ns(&fs->sb) &&
	    gaze_cache_nr_dirty(fs, GAZE_MB_FBLK) &&
	    fs_dirty_blocks(fs) < GAZE_RF_BACKLOG_MAX && gaze_dir_flush(fs))
		return false;
	/* the bound first, so too many dirty nodes are not scanned */
	if (gaze_cache_nr_dirty(fs, GAZE_MB_FBLK) ||
	    !fs_rf_fits(fs, -2, gaze_cache_nr_dirty(fs, GAZE_MB_NODE)))
		return false;
	*li = gaze_nodes_fsync_log(fs, 0, &nr);
	for (l = 0; l < GAZE_MAX_LOGS; l++) {
		if (fs->rf_log[l] & GAZE_RF_BROKEN)
			return false;
		if ((int)l != *li && (fs->rf_log[l] & GAZE_RF_TAIL))
			return false;
	}
	return fs_rf_fits(fs, *li, nr);
}

/*
 * When the whole dirty state cannot roll forward (a create elsewhere
 * dirtied a directory block, say), whether the dirty nodes of inode ino
 * alone can: recovery replays every node up to a log's last end mark
 * (format.md section 17), so the run written must be all the log holds
 * since the checkpoint besides earlier fsync runs, and replaying it must
 * leave a consistent filesystem with everything else as the checkpoint
 * has it.  So: a regular file the cache holds, which no operation that
 * roll-forward cannot replay touched since the checkpoint (rf_seq: its
 * link count or parent changed, it is new, a node of it was claimed or
 * freed: its directory entries and its nodes' imap entries are then the
 * checkpoint's); no node written since the checkpoint without an fsync
 * mark, in any log (none of ino's nodes is then newer on the device than
 * what a replay reaches, and no other inode's node lies in the run's
 * prefix); its dirty nodes in one log, whose chain has a known start and
 * is not broken; the chains within their bounds; not after a clean
 * unmount, not without recovery.  F2FS's fsync of a file writes that
 * file's nodes alone the same way.
 */
static bool
fs_rf_ino_possible(struct gaze_fs *fs, u32 ino, int *li)
{
	struct gaze_mbuf *imb;
	u32 l, nr;
	bool ok;

	if (!ino || fs->rf_ino_off || !fs_rf_allowed(fs))
		return false;
	for (l = 0; l < GAZE_MAX_LOGS; l++)
		if (fs->rf_log[l] & (GAZE_RF_UNMARKED | GAZE_RF_BROKEN))
			return false;
	imb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, ino, 0);
	if (!imb)
		return false;
	ok = le32_to_cpu(((struct gaze_mhdr *)imb->data)->magic) ==
		     GAZE_MAGIC_INODE &&
	     (le16_to_cpu(((struct gaze_inode *)imb->data)->mode) &
	      0170000) == 0100000 &&
	     imb->rf_seq != fs->rf_epoch;
	gaze_mbuf_put(fs, imb);
	if (!ok)
		return false;
	*li = gaze_nodes_fsync_log(fs, ino, &nr);
	return fs_rf_fits(fs, *li, nr);
}

/*
 * Whether every main zone has a write pointer that a crash moves back
 * over lost writes: then recovery can tell that a node's data reached
 * the device (recover.c rf_data_kept), and fsync needs no flush between
 * data and nodes.  Not on conventional zones or emulated ones.
 */
static bool
fs_wp_tells(const struct gaze_fs *fs)
{
	return fs->dev->model != GAZE_ZM_EMULATED &&
	       fs->dev->nr_conv <= fs->lay.main_zone_start;
}

/*
 * ino: the inode fsync was called for (0: none in particular).  After
 * namespace changes (fs->rf_ns, fsync_namespace) a file that may go
 * alone does, as without the feature: other processes' creates are not
 * this fsync's to write (F2FS writes one file's nodes the same way); a
 * new file, or one renamed or linked, takes the whole state with it.
 */
static int
fs_fsync_locked(struct gaze_fs *fs, u32 ino)
{
	u64 dirty = fs_dirty_blocks(fs);
	bool one;
	int li, ret;

	/* each test at most once: both scan every dirty node */
	one = fs->rf_ns && dirty < GAZE_RF_BACKLOG_MAX &&
	      fs_rf_ino_possible(fs, ino, &li);
	if (!one && fs_rf_possible(fs, &li)) {
		ino = 0;		/* every dirty node goes */
	} else if (!one && (fs->rf_ns || dirty >= GAZE_RF_BACKLOG_MAX ||
			    !fs_rf_ino_possible(fs, ino, &li))) {
		goto checkpoint;	/* rf_ns: the file was tried above */
	} else {
		gaze_stat_inc(fs, GAZE_STAT_FSYNC_ONE);
		if (dirty >= GAZE_RF_BACKLOG)
			WRITE_ONCE(fs->cp_wanted, true);
	}
	if (li < 0)		/* no dirty node: data only */
		return fs->dev->ops->flush(fs->dev);
	/* without write pointers, the data is durable before the nodes */
	if (!fs_wp_tells(fs)) {
		ret = fs->dev->ops->flush(fs->dev);
		if (ret)
			return ret;
	}
	ret = gaze_nodes_fsync(fs, (u32)li, ino);
	if (ret)
		return ret;
	if (fs->rf_log[li] & GAZE_RF_BROKEN)
		goto checkpoint;	/* the end mark may be unreachable */
	ret = fs->dev->ops->flush(fs->dev);
	if (ret)
		return ret;
	gaze_stat_inc(fs, GAZE_STAT_FSYNC_RF);
	if (!ino) {
		/* the chain holds all the cache did: count touches afresh */
		fs->rf_epoch++;
		fs->rf_ns = false;
	}
	return 0;

checkpoint:
	gaze_stat_inc(fs, GAZE_STAT_FSYNC_CP);
	return gaze_cp_write(fs, 0);
}

int
gaze_fs_fsync(struct gaze_fs *fs)
{
	return gaze_fs_fsync_ino(fs, 0);
}

int
gaze_fs_fsync_ino(struct gaze_fs *fs, u32 ino)
{
	int ret;

	if (fs->flags & GAZE_FS_RDONLY)
		return 0;
	mutex_lock(&fs->lock);
	ret = fs_fsync_locked(fs, ino);
	mutex_unlock(&fs->lock);
	return ret;
}

int
gaze_fs_replay(struct gaze_dev *dev, u32 flags, u32 *nodes)
{
	struct gaze_fs *fs;
	int ret;

	*nodes = 0;
	if (flags & ~GAZE_FS_KEEP_ORPHANS)
		return -EINVAL;
	ret = gaze_fs_open(dev, flags, &fs);
	if (ret)
		return ret;
	*nodes = fs->rf_recovered;
	fs->flags |= GAZE_FS_RDONLY;	/* no unmount checkpoint: not clean */
	return gaze_fs_close(fs);
}

int
gaze_fs_flush_dirty(struct gaze_fs *fs)
{
	int ret;

	ret = gaze_dir_flush(fs);
	if (ret)
		return ret;
	return gaze_nodes_flush(fs);
}

u64
gaze_fs_age(const struct gaze_fs *fs)
{
	s64 sec;
	u32 nsec;
	u64 mk = le64_to_cpu(fs->sb.mkfs_time);

	gaze_wallclock(&sec, &nsec);
	return sec > 0 && (u64)sec > mk ? (u64)sec - mk : 0;
}

/* dirty directory blocks and nodes over half the cache */
static bool
fs_dirty_high(struct gaze_fs *fs)
{
	return fs_dirty_blocks(fs) * GAZE_BLOCK_SIZE > fs->cache_limit / 2;
}

/*
 * One batch of at most *budget blocks (*budget is left with what the
 * batch did not use): the nodes dirty the longest, then directory blocks
 * only when no node is left to write (a big directory's blocks are
 * dirtied again and again by creates that hash all over it, while a new
 * inode is written once), then the nodes that writing those directory
 * blocks dirtied.  Nodes written here go to new blocks like any flush;
 * what they replace is free after the next checkpoint, and
 * gaze_gc_balance_meta has kept room for all of them.  Under fs->lock.
 */
static int
fs_flush_batch(struct gaze_fs *fs, u32 *budget)
{
	int ret;

	ret = gaze_nodes_flush_some(fs, budget);
	if (!ret && *budget)
		ret = gaze_dir_flush_some(fs, budget);
	if (!ret && *budget)
		ret = gaze_nodes_flush_some(fs, budget);
	return ret;
}

/*
 * Write-behind: once dirty directory blocks and nodes fill half the
 * cache, an operation that ends writes one batch.  Without it they would
 * pile up to the cache's limit, and the one operation that met it would
 * write them all in one hold of fs->lock: with the module's 512 MiB
 * cache (a 2 GiB guest), two seconds after about 120,000 creates.
 */
static int
fs_write_behind(struct gaze_fs *fs)
{
	u32 budget = FS_WRITE_BEHIND;

	if (fs->flags & GAZE_FS_RDONLY || !fs_dirty_high(fs))
		return 0;
	return fs_flush_batch(fs, &budget);
}

/*
 * Before a checkpoint: the dirty nodes and directory blocks go out a
 * batch per hold of fs->lock, so the checkpoint's own hold writes only
 * what was dirtied meanwhile, the tables and the checkpoint, and other
 * tasks' operations run between the batches.  At most as many batches
 * as the dirty blocks at the start fill, so writers that keep dirtying
 * cannot keep it going; an error is left for the checkpoint to meet.
 * With prefree_only, only while a zone waits for the checkpoint (the
 * background GC's settling checkpoint).  Called without fs->lock.
 */
static void
fs_flush_steps(struct gaze_fs *fs, bool prefree_only)
{
	u32 budget, steps = 0;
	int ret;

	do {
		mutex_lock(&fs->lock);
		if ((fs->flags & GAZE_FS_RDONLY) ||
		    (prefree_only && !gaze_space_nr_prefree(fs))) {
			mutex_unlock(&fs->lock);
			return;
		}
		if (!steps)
			steps = fs_dirty_blocks(fs) / FS_WRITE_BEHIND + 1;
		budget = FS_WRITE_BEHIND;
		ret = fs_flush_batch(fs, &budget);
		mutex_unlock(&fs->lock);
	} while (!ret && !budget && --steps);
}

void
gaze_fs_cp_steps(struct gaze_fs *fs)
{
	fs_flush_steps(fs, true);
}

int
gaze_fs_cp_backlog(struct gaze_fs *fs)
{
	int ret = 0;

	if (!READ_ONCE(fs->cp_wanted))	/* the common case: no lock taken */
		return 0;
	fs_flush_steps(fs, false);
	mutex_lock(&fs->lock);
	if (fs->cp_wanted && !(fs->flags & GAZE_FS_RDONLY)) {
		ret = gaze_cp_write(fs, 0);
		if (!ret)
			gaze_stat_inc(fs, GAZE_STAT_CP_BACKLOG);
	}
	mutex_unlock(&fs->lock);
	return ret;
}

/* a checkpoint now, its dirty nodes and directory blocks written first in
 * batches (fs_flush_steps) */
int
gaze_fs_sync(struct gaze_fs *fs)
{
	if (fs->flags & GAZE_FS_RDONLY)
		return 0;
	fs_flush_steps(fs, false);
	return fs_cp_write_locked(fs, 0);
}

int
gaze_fs_balance(struct gaze_fs *fs)
{
	int ret;

	/*
	 * free zones for the next operation (gc.c; no-op when enough), and
	 * room for every dirty node and directory block: each takes a new
	 * block when written, while the ones it replaces are free only
	 * after the next checkpoint (without it, a directory bigger than
	 * the cache on small zones left no room for that checkpoint:
	 * tests/ns/test_bigdir)
	 */
	ret = gaze_gc_balance_meta(fs, gaze_cache_nr_dirty(fs, GAZE_MB_FBLK) +
				   gaze_cache_nr_dirty(fs, GAZE_MB_NODE));
	if (ret)
		return ret;
	/*
	 * Dirty table blocks go to the meta ring at the next checkpoint;
	 * one that would need more than the ring has free fails, so commit
	 * while it still fits easily (with small zones, removing a big
	 * directory dirtied most of the tables: tests/ns/test_bigdir -z 1)
	 */
	if (!(fs->flags & GAZE_FS_RDONLY) && gaze_meta_pressed(fs)) {
		ret = gaze_cp_write(fs, 0);
		if (ret)
			return ret;
	}
	ret = fs_write_behind(fs);
	if (ret)
		return ret;
	if (!gaze_cache_over_limit(fs))
		return 0;
	if (!(fs->flags & GAZE_FS_RDONLY)) {
		ret = gaze_fs_flush_dirty(fs);
		if (ret)
			return ret;
	}
	gaze_cache_shrink(fs);
	/*
	 * What is left over the limit is dirty table blocks (the space and
	 * imap tables change with every block written); only a checkpoint
	 * cleans them.  The caller's operation is complete, so the state
	 * is consistent and can be committed here.
	 */
	if (gaze_cache_over_limit(fs) && !(fs->flags & GAZE_FS_RDONLY)) {
		ret = gaze_cp_write(fs, 0);
		if (ret)
			return ret;
		gaze_cache_shrink(fs);
	}
	return 0;
}
