// SPDX-License-Identifier: GPL-2.0
/*
 * test_ident.c - gaze_ident_set (gazectl label, gazectl uuid) on zoned
 * devices, through the ZNS emulator: the path that writes both
 * checkpoint zones anew (gaze_cp_renew_zones), which image files never
 * take.  Sequential and conventional checkpoint zones; the label and uuid
 * round trip with the files intact; the uuid back to the original drops
 * the feature meta_uuid; a crash with nothing to roll forward is
 * accepted, nodes awaiting roll-forward, a checkpoint asking for fsck and
 * superblock copies that differ are refused untouched; and a write failure followed by a power
 * cut at every write of the change leaves a filesystem that opens with
 * the old identity or the new one, the new one once the call returned 0.
 * gaze_features_set (gazectl features): lazy_summary off clears every
 * stale summary entry (and a power cut at each of its writes leaves it
 * either on, or off with no stale entry), on again; compression on lets
 * files compress; the changes not allowed are refused with nothing
 * written.
 * TAP output; exit status 1 on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaze_core.h"
#include "gaze_zdev.h"
#include "gaze_util.h"

#include "../tap.h"

#define ZB	256u		/* 1 MiB zones */
#define NZONES	24u
#define FDATA	20000u		/* bytes of the test file */

static const u8 uuid0[16] = {
	0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,
	0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f
};
static const u8 uuid1[16] = {
	0xc0, 0xff, 0xee, 0x00, 0x11, 0x22, 0x43, 0x44,
	0x95, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc
};

static struct gaze_dev *
dev_new(u32 nr_conv)
{
	struct gaze_emu_opts o;
	struct gaze_dev *d = NULL;

	memset(&o, 0, sizeof(o));
	o.nr_zones = NZONES;
	o.zone_blocks = ZB;
	o.nr_conv = nr_conv;
	if (gaze_emu_create(&o, &d)) {
		printf("Bail out! gaze_emu_create failed\n");
		exit(1);
	}
	return d;
}

static u8
pattern(u32 i)
{
	return (u8)(i * 31 + 7);
}

/* a filesystem labelled "before" with /d/f (FDATA bytes), closed */
static void
fs_make(struct gaze_dev *d)
{
	struct gaze_mkfs_params p;
	struct gaze_attr a;
	struct gaze_fs *fs = NULL;
	static u8 buf[FDATA];
	u32 dir, ino, i;

	memset(&p, 0, sizeof(p));
	p.geo.nr_blocks = d->nr_blocks;
	p.geo.zone_blocks = d->zone_blocks;
	p.geo.zone_cap = d->zone_cap;
	p.geo.nr_zones = d->nr_zones;
	p.geo.nr_conv = d->nr_conv;
	p.geo.model = d->model;
	gaze_fmt_feature_defaults(&p.feature_compat, &p.feature_ro_compat,
				  &p.feature_incompat);
	memcpy(p.uuid, uuid0, 16);
	p.dir_hash_seed[0] = 0x1234;
	p.mkfs_time = 1700000000;
	strcpy(p.label, "before");
	strcpy(p.version, "gaze-test");
	memset(&a, 0, sizeof(a));
	a.mode = 040755;
	a.nlink = 2;
	if (gaze_fs_format(d, &p, &a, &fs)) {
		printf("Bail out! format failed\n");
		exit(1);
	}
	for (i = 0; i < FDATA; i++)
		buf[i] = pattern(i);
	a.mode = 040755;
	TAP_MUST(gaze_ns_mknod(fs, GAZE_ROOT_INO, "d", 1, &a, &dir));
	a.mode = 0100644;
	TAP_MUST(gaze_ns_mknod(fs, dir, "f", 1, &a, &ino));
	TAP_MUST(gaze_file_write(fs, ino, buf, FDATA, 0) != FDATA);
	TAP_MUST(gaze_fs_close(fs));
}

/* /d/f reads back whole */
static bool
file_ok(struct gaze_fs *fs)
{
	static u8 buf[FDATA];
	u32 dir, ino, i;
	u8 dt;

	if (gaze_ns_lookup(fs, GAZE_ROOT_INO, "d", 1, &dir, &dt) ||
	    gaze_ns_lookup(fs, dir, "f", 1, &ino, &dt) ||
	    gaze_file_read(fs, ino, buf, FDATA, 0) != FDATA)
		return false;
	for (i = 0; i < FDATA; i++)
		if (buf[i] != pattern(i))
			return false;
	return true;
}

/* both superblock copies verify and carry label and uuid */
static bool
copies_are(struct gaze_dev *d, const char *label, const u8 *uuid)
{
	static u8 blk[GAZE_BLOCK_SIZE];
	struct gaze_super *sb = (void *)blk;
	u32 c;

	for (c = 0; c < 2; c++) {
		if (d->ops->read(d, (u64)c * ZB, 1, blk) ||
		    gaze_fmt_super_verify(sb, (u64)c * ZB, NULL) ||
		    strcmp(sb->label, label) || memcmp(sb->hdr.uuid, uuid, 16))
			return false;
	}
	return true;
}

/* opens read-only: clean, the identity asked, the file intact */
static bool
state_is(struct gaze_dev *d, const char *label, const u8 *uuid,
	 bool meta_feature)
{
	struct gaze_fs *fs = NULL;
	bool ok;

	if (gaze_fs_open(d, GAZE_FS_RDONLY, &fs))
		return false;
	ok = !strcmp(fs->sb.label, label) &&
	     !memcmp(fs->sb.hdr.uuid, uuid, 16) &&
	     !memcmp(fs->uuid, uuid0, 16) &&
	     !!(le64_to_cpu(fs->sb.feature_incompat) &
		GAZE_FEATURE_INCOMPAT_META_UUID) == meta_feature &&
	     (le32_to_cpu(fs->cp.flags) & GAZE_CP_UMOUNT) &&
	     !fs->cp_damaged && file_ok(fs);
	gaze_fs_close(fs);
	return ok && copies_are(d, label, uuid);
}

static void
test_round_trip(u32 nr_conv)
{
	struct gaze_dev *d = dev_new(nr_conv);
	const char *why = NULL;
	char label[32];
	u8 u[16];
	int i, ret;

	printf("# %s checkpoint zones\n",
	       nr_conv ? "conventional" : "sequential");
	fs_make(d);
	tap_ok(d->model == GAZE_ZM_HOST_MANAGED && state_is(d, "before", uuid0,
							     false),
	       "zoned filesystem made, labelled 'before'");
	ret = gaze_ident_set(d, "zoned label", NULL, &why);
	tap_ok(!ret && state_is(d, "zoned label", uuid0, false),
	       "label changed, uuid and feature untouched (%d)", ret);
	ret = gaze_ident_set(d, NULL, uuid1, &why);
	tap_ok(!ret && state_is(d, "zoned label", uuid1, true),
	       "uuid changed: meta_uuid set, headers keep the old uuid (%d)",
	       ret);
	/* each change writes both checkpoint zones anew: many in a row */
	for (i = 0; i < 12; i++) {
		snprintf(label, sizeof(label), "round %d", i);
		memcpy(u, uuid1, 16);
		u[15] = (u8)i;
		ret = gaze_ident_set(d, label, u, &why);
		if (ret || !state_is(d, label, u, true))
			break;
	}
	tap_ok(i == 12, "12 more changes of both, each checked (%d at %d)",
	       ret, i);
	ret = gaze_ident_set(d, "", uuid0, &why);
	tap_ok(!ret && state_is(d, "", uuid0, false),
	       "back to the original uuid: feature and meta_uuid cleared, empty label (%d)",
	       ret);
	ret = gaze_ident_set(d, "", uuid0, &why);
	tap_ok(!ret && state_is(d, "", uuid0, false),
	       "a change to what is there already writes nothing and succeeds");
	gaze_dev_close(d);
}

/*
 * Not cleanly unmounted: accepted when the filesystem is its last
 * checkpoint; refused untouched while fsync'd nodes await roll-forward
 * or a checkpoint asks for fsck.
 */
static void
test_unclean(void)
{
	static const char data[] = "fsync'd\n";
	struct gaze_dev *d = dev_new(0);
	struct gaze_emu_stats s0, s1;
	struct gaze_fs *fs = NULL;
	const char *why = NULL;
	struct gaze_attr a;
	u32 ino;
	int ret;

	fs_make(d);
	TAP_MUST(gaze_fs_open(d, 0, &fs));
	memset(&a, 0, sizeof(a));
	a.mode = 0100644;
	TAP_MUST(gaze_ns_mknod(fs, GAZE_ROOT_INO, "late", 4, &a, &ino));
	TAP_MUST(gaze_fs_sync(fs));
	fs->flags |= GAZE_FS_RDONLY;	/* crash: no unmount checkpoint */
	gaze_fs_close(fs);
	ret = gaze_ident_set(d, "after crash", NULL, &why);
	tap_ok(!ret && state_is(d, "after crash", uuid0, false),
	       "not cleanly unmounted, nothing to roll forward: changed (%d)",
	       ret);

	TAP_MUST(gaze_fs_open(d, 0, &fs));
	/* after a clean unmount the first fsync commits a checkpoint */
	TAP_MUST(gaze_fs_sync(fs));
	TAP_MUST(gaze_file_write(fs, ino, data, sizeof(data) - 1, 0) !=
		 (s64)sizeof(data) - 1);
	TAP_MUST(gaze_fs_fsync(fs));
	tap_ok(fs->stat[GAZE_STAT_FSYNC_RF] == 1, "fsync made durable by roll-forward");
	fs->flags |= GAZE_FS_RDONLY;		/* crash after the fsync */
	gaze_fs_close(fs);
	gaze_emu_stats(d, &s0);
	why = NULL;
	ret = gaze_ident_set(d, "nope", uuid1, &why);
	gaze_emu_stats(d, &s1);
	tap_ok(ret == -EUCLEAN && why && strstr(why, "roll-forward") &&
	       s0.writes == s1.writes && s0.resets == s1.resets,
	       "nodes awaiting roll-forward: -EUCLEAN (%s), nothing written",
	       why ? why : "");
	/* what fsck.gaze -p does first: replay, commit */
	{
		u32 nodes = 0;

		TAP_MUST(gaze_fs_replay(d, GAZE_FS_KEEP_ORPHANS, &nodes));
		why = NULL;
		ret = gaze_ident_set(d, "replayed", NULL, &why);
		tap_ok(nodes && !ret,
		       "after the replay fsck.gaze -p does: changed (%u nodes, %d)",
		       nodes, ret);
	}

	TAP_MUST(gaze_fs_open(d, 0, &fs));
	fs->cp.flags = cpu_to_le32(le32_to_cpu(fs->cp.flags) |
				   GAZE_CP_FSCK_NEEDED);
	TAP_MUST(gaze_fs_close(fs));
	why = NULL;
	ret = gaze_ident_set(d, "nope", NULL, &why);
	tap_ok(ret == -EUCLEAN && why && strstr(why, "asks for fsck"),
	       "a checkpoint asking for fsck: -EUCLEAN (%s)", why ? why : "");
	gaze_dev_close(d);
}

/* conventional checkpoint zones: copy 1 edited behind the tool's back */
static void
test_copies_differ(void)
{
	struct gaze_dev *d = dev_new(4);
	static u8 blk[GAZE_BLOCK_SIZE];
	struct gaze_super *sb = (void *)blk;
	const char *why = NULL;
	int ret;

	fs_make(d);
	TAP_MUST(d->ops->read(d, ZB, 1, blk));
	strcpy(sb->label, "other");
	gaze_fmt_csum_set(sb);
	TAP_MUST(d->ops->write(d, ZB, 1, blk));
	ret = gaze_ident_set(d, "nope", NULL, &why);
	tap_ok(ret == -EUCLEAN && why && strstr(why, "differ"),
	       "superblock copies that differ: -EUCLEAN (%s)", why ? why : "");
	gaze_dev_close(d);
}

/*
 * A write fails at the nth write of the change, then the power goes:
 * the filesystem opens with the old identity or the new one (the new
 * one when the change returned 0), the file intact.
 */
static void
test_power_cut(void)
{
	const char *why, *label;
	struct gaze_fs *fs;
	int n, ret, bad = 0, done = 0, news = 0;
	struct gaze_dev *d;
	bool is_new;

	for (n = 1; n < 64 && !done; n++) {
		d = dev_new(0);
		fs_make(d);
		gaze_emu_fail_after(d, (u64)n, 0);
		why = NULL;
		ret = gaze_ident_set(d, "after", uuid1, &why);
		gaze_emu_fail_after(d, 0, 0);
		gaze_emu_power_cut(d, (u64)n * 7919, 50);
		fs = NULL;
		if (gaze_fs_open(d, GAZE_FS_RDONLY, &fs)) {
			printf("# write %d: does not open (change: %d)\n", n,
			       ret);
			bad++;
			gaze_dev_close(d);
			continue;
		}
		label = fs->sb.label;
		is_new = !strcmp(label, "after") &&
			 !memcmp(fs->sb.hdr.uuid, uuid1, 16);
		if (!is_new && (strcmp(label, "before") ||
				memcmp(fs->sb.hdr.uuid, uuid0, 16))) {
			printf("# write %d: identity is neither old nor new\n",
			       n);
			bad++;
		} else if (!ret && !is_new) {
			printf("# write %d: the change returned 0 but is lost\n",
			       n);
			bad++;
		} else if (!file_ok(fs)) {
			printf("# write %d: the file does not read back\n", n);
			bad++;
		}
		news += is_new;
		/* the failure did not fire: every write of the change done */
		if (!ret && !bad)
			done = n;
		gaze_fs_close(fs);
		gaze_dev_close(d);
	}
	tap_ok(!bad && done > 1,
	       "power cut after a failed write, at each of the %d writes: old or new identity, file intact (%d new)",
	       done - 1, news);
}

/* summary entries of blocks that are not valid */
static u32
stale_entries(struct gaze_fs *fs)
{
	struct gaze_summary sum;
	u32 zone, off, n = 0;
	bool valid;
	u64 addr;

	for (zone = 0; zone < NZONES; zone++) {
		for (off = 0; off < ZB; off++) {
			addr = (u64)zone * ZB + off;
			if (gaze_space_block_owner(fs, addr, &valid, &sum))
				break;		/* not a main zone */
			if (!valid && !gaze_fmt_is_zero(&sum, sizeof(sum)))
				n++;
		}
	}
	return n;
}

/* /d/f written again rounds times, a checkpoint after each: the old
 * blocks' entries left stale with lazy_summary */
static void
overwrite(struct gaze_dev *d, int rounds)
{
	static u8 buf[FDATA];
	struct gaze_fs *fs = NULL;
	u32 dir, ino, i;
	u8 dt;
	int r;

	for (i = 0; i < FDATA; i++)
		buf[i] = pattern(i);
	TAP_MUST(gaze_fs_open(d, 0, &fs));
	TAP_MUST(gaze_ns_lookup(fs, GAZE_ROOT_INO, "d", 1, &dir, &dt));
	TAP_MUST(gaze_ns_lookup(fs, dir, "f", 1, &ino, &dt));
	for (r = 0; r < rounds; r++) {
		TAP_MUST(gaze_file_write(fs, ino, buf, FDATA, 0) != FDATA);
		TAP_MUST(gaze_fs_sync(fs));
	}
	TAP_MUST(gaze_fs_close(fs));
}

/* read-only: lazy_summary as asked, stale entries, file intact */
static bool
lazy_state(struct gaze_dev *d, bool *lazy, u32 *stale)
{
	struct gaze_fs *fs = NULL;
	bool ok;

	if (gaze_fs_open(d, GAZE_FS_RDONLY, &fs))
		return false;
	*lazy = gaze_sb_lazy_summary(&fs->sb);
	*stale = stale_entries(fs);
	ok = file_ok(fs) && !fs->cp_damaged;
	gaze_fs_close(fs);
	return ok;
}

static void
test_features(u32 nr_conv)
{
	static u8 blk[GAZE_BLOCK_SIZE];
	struct gaze_dev *d = dev_new(nr_conv);
	struct gaze_super *sb = (void *)blk;
	struct gaze_emu_stats s0, s1;
	struct gaze_fs *fs = NULL;
	const char *why = NULL;
	u32 stale0, stale, ino;
	struct gaze_attr a;
	u64 cleared = 0;
	bool lazy, ok;
	int ret;

	printf("# features, %s checkpoint zones\n",
	       nr_conv ? "conventional" : "sequential");
	fs_make(d);
	overwrite(d, 6);
	ok = lazy_state(d, &lazy, &stale0);
	tap_ok(ok && lazy && stale0 >= 20,
	       "lazy_summary on: 6 overwrites of /d/f leave %u stale entries",
	       stale0);
	ret = gaze_features_set(d, "^lazy_summary", &cleared, &why);
	ok = lazy_state(d, &lazy, &stale);
	tap_ok(!ret && cleared == stale0 && ok && !lazy && !stale,
	       "^lazy_summary: %llu entries cleared, the feature off, none stale, file intact (%d)",
	       (unsigned long long)cleared, ret);
	TAP_MUST(d->ops->read(d, ZB, 1, blk));
	tap_ok(!gaze_fmt_super_verify(sb, ZB, NULL) && !gaze_sb_lazy_summary(sb),
	       "copy 1 says so too");
	overwrite(d, 3);
	ok = lazy_state(d, &lazy, &stale);
	tap_ok(ok && !lazy && !stale,
	       "without it, overwrites clear the old entries");
	ret = gaze_features_set(d, "lazy_summary", &cleared, &why);
	overwrite(d, 2);
	ok = lazy_state(d, &lazy, &stale);
	tap_ok(!ret && !cleared && ok && lazy && stale >= 5,
	       "lazy_summary on again: entries left stale again (%u, %d)",
	       stale, ret);

	/* compression: off at mkfs, turned on later */
	TAP_MUST(gaze_fs_open(d, 0, &fs));
	ret = gaze_fs_set_compress(fs, GAZE_COMPRESS_LZ4, 0);
	TAP_MUST(gaze_fs_close(fs));
	tap_ok(ret == -EOPNOTSUPP, "without the feature compress= is refused");
	ret = gaze_features_set(d, "compression", &cleared, &why);
	tap_ok(!ret, "compression turned on (%d)", ret);
	TAP_MUST(gaze_fs_open(d, 0, &fs));
	ret = gaze_fs_set_compress(fs, GAZE_COMPRESS_LZ4, 0);
	memset(&a, 0, sizeof(a));
	a.mode = 0100644;
	TAP_MUST(gaze_ns_mknod(fs, GAZE_ROOT_INO, "z", 1, &a, &ino));
	memset(blk, 'z', sizeof(blk));
	TAP_MUST(gaze_file_write(fs, ino, blk, sizeof(blk), 0) !=
		 (s64)sizeof(blk));
	TAP_MUST(gaze_ns_getattr(fs, ino, &a));
	TAP_MUST(gaze_fs_close(fs));
	tap_ok(!ret && (a.flags & GAZE_IF_COMPRESS),
	       "then compress= is taken and a new file compresses (%d)", ret);
	TAP_MUST(gaze_fs_open(d, GAZE_FS_RDONLY, &fs));
	memset(blk, 0, sizeof(blk));
	TAP_MUST(gaze_file_read(fs, ino, blk, sizeof(blk), 0) !=
		 (s64)sizeof(blk));
	tap_ok(blk[0] == 'z' && blk[sizeof(blk) - 1] == 'z' && file_ok(fs),
	       "it reads back after a reopen");
	gaze_fs_close(fs);

	/* refused, nothing written */
	{
		static const char *const no[] = {
			"^compression", "^inline_data", "^prealloc",
			"^lost_found", "meta_uuid", "lazy_summary,^compression",
			"bogus",
		};
		size_t i;
		int bad = 0;

		for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
			gaze_emu_stats(d, &s0);
			why = NULL;
			ret = gaze_features_set(d, no[i], &cleared, &why);
			gaze_emu_stats(d, &s1);
			if ((ret != -EPERM && ret != -EINVAL) || !why ||
			    s0.writes != s1.writes || s0.resets != s1.resets) {
				printf("# '%s': %d (%s)\n", no[i], ret,
				       why ? why : "no reason");
				bad++;
			}
		}
		tap_ok(!bad, "turning off compression or changing a mkfs-only feature: refused, nothing written");
	}
	gaze_dev_close(d);
}

/*
 * ^lazy_summary with a write failing at the nth write, then a power cut:
 * the feature is on, or off with no stale entry; off if the call
 * returned 0; the file intact.
 */
static void
test_features_power_cut(void)
{
	int n, ret, bad = 0, done = 0, offs = 0;
	const char *why;
	struct gaze_dev *d;
	u64 cleared;
	bool lazy;
	u32 stale;

	for (n = 1; n < 256 && !done; n++) {
		d = dev_new(0);
		fs_make(d);
		overwrite(d, 6);
		gaze_emu_fail_after(d, (u64)n, 0);
		why = NULL;
		ret = gaze_features_set(d, "^lazy_summary", &cleared, &why);
		gaze_emu_fail_after(d, 0, 0);
		gaze_emu_power_cut(d, (u64)n * 7919, 50);
		if (!lazy_state(d, &lazy, &stale)) {
			printf("# write %d: does not open, or the file is bad (change: %d)\n",
			       n, ret);
			bad++;
		} else if (!lazy && stale) {
			printf("# write %d: lazy_summary off with %u stale entries\n",
			       n, stale);
			bad++;
		} else if (!ret && lazy) {
			printf("# write %d: the change returned 0 but is lost\n",
			       n);
			bad++;
		}
		offs += !lazy;
		if (!ret && !bad)
			done = n;
		gaze_dev_close(d);
	}
	tap_ok(!bad && done > 1,
	       "^lazy_summary, power cut after a failed write at each of the %d writes: on, or off and clean (%d off)",
	       done - 1, offs);
}

int
main(void)
{
	test_round_trip(0);
	test_round_trip(4);
	test_unclean();
	test_copies_differ();
	test_power_cut();
	test_features(0);
	test_features(4);
	test_features_power_cut();
	return tap_done();
}
