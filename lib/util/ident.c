// SPDX-License-Identifier: GPL-2.0
/*
 * ident.c - changing the label and uuid of an unmounted filesystem.
 *
 * Why: the label and the uuid are how fstab, mount and udev find a
 * filesystem, and cloning an image gives two filesystems with one uuid;
 * tune2fs -L/-U and f2fslabel change them offline, gazectl label and
 * gazectl uuid do it here.
 *
 * The label lives only in the superblock.  The uuid is also in the header
 * of every other metadata block, which is checked against it, and blocks
 * in sequential zones cannot be rewritten in place: so, as XFS does with
 * sb_meta_uuid, the superblock keeps the uuid the headers carry in
 * meta_uuid behind the incompatible feature meta_uuid, and hdr.uuid, the
 * one users see, changes alone (doc/format.md, sections 5 and 6).  Going
 * back to the uuid the headers carry drops the feature again.
 *
 * Writing the superblock: on an image or a regular device (emulated
 * zones) both copies are rewritten in place, copy 0 first and flushed, so
 * a crash leaves either the old superblock or copy 0 new and copy 1 old,
 * which fsck.gaze makes equal again.  On a zoned device, whose checkpoint
 * zones are sequential, the filesystem is opened read-write through the
 * core and both checkpoint zones are written anew, each starting with a
 * fresh superblock copy (gaze_cp_renew_zones, as fsck.gaze's repair does);
 * a crash then leaves one copy old and one new, both valid.
 *
 * Features (gazectl features, as tune2fs -O): three can change on an
 * existing filesystem.  fsync_namespace can be turned on and off: it
 * only says what an fsync chain may hold, and a filesystem is changed
 * only with no chain waiting for roll-forward (below).  compression can be turned on (ZFS and btrfs let
 * a filesystem start compressing at any time; new writes compress from
 * then on), not off, since files may hold compressed clusters.
 * lazy_summary can be turned on, and off: without it a summary entry
 * may name an owner only for a valid block, so the entries it left on
 * blocks that are no longer valid are cleared and committed through the
 * core first (gaze_space_summary_scrub), the superblock written after;
 * a crash between the two leaves the feature on with clean entries,
 * which is valid.  The others are chosen by mkfs.gaze (inline_data,
 * prealloc, lost_found) or follow the uuid (meta_uuid).
 *
 * Only a clean filesystem is changed: both superblock copies verify and
 * agree, the newest checkpoint is readable, no pack is damaged, no
 * checkpoint asks for fsck, and no node written by fsync after the last
 * checkpoint awaits roll-forward.  Anything else is fsck.gaze's to look
 * at first (-p and -y replay roll-forward, -y repairs damage).  A last
 * checkpoint that is not a clean unmount is accepted when nothing awaits
 * roll-forward: the filesystem is then exactly that checkpoint, which is
 * consistent by construction, and fsck.gaze, finding nothing to repair,
 * would not write a clean-unmount checkpoint either, so requiring one
 * would refuse for good what only a kernel mount and unmount could
 * clear.  Orphans listed in it (inodes unlinked while open) are part of
 * it: the in-place rewrite leaves them for the next mount, the zoned
 * path's read-write open frees them as a mount does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaze_util.h"
#include "gaze_core.h"
#include "gaze_zdev.h"

/* the two copies, whole bodies and uuid equal */
static bool
ident_copies_equal(const struct gaze_super *a, const struct gaze_super *b)
{
	return !memcmp((const u8 *)a + sizeof(a->hdr),
		       (const u8 *)b + sizeof(b->hdr),
		       sizeof(*a) - sizeof(a->hdr)) &&
	       !memcmp(a->hdr.uuid, b->hdr.uuid, sizeof(a->hdr.uuid));
}

/* copy 0 into sb[0], copy 1 into sb[1]; both must verify and agree */
static int
ident_read_copies(struct gaze_dev *dev, struct gaze_super *sb[2],
		  const char **why)
{
	u64 addr[2] = { 0, dev->zone_blocks };
	int c, ret;

	for (c = 0; c < 2; c++) {
		ret = dev->ops->read(dev, addr[c], 1, sb[c]);
		if (ret)
			return ret;
		if (gaze_fmt_super_verify(sb[c], addr[c], NULL)) {
			*why = c ? "superblock copy 1 does not verify" :
				   "superblock copy 0 does not verify";
			return -EUCLEAN;
		}
	}
	if (!ident_copies_equal(sb[0], sb[1])) {
		*why = "the two superblock copies differ";
		return -EUCLEAN;
	}
	return 0;
}

/* nothing for fsck.gaze to repair or replay first */
static int
ident_check_clean(struct gaze_dev *dev, const char **why)
{
	struct gaze_fs *fs;
	u32 flags;
	int ret;

	ret = gaze_fs_open(dev, GAZE_FS_RDONLY, &fs);
	if (ret) {
		if (gaze_err_damaged(ret)) {
			*why = "the filesystem does not open";
			return -EUCLEAN;
		}
		return ret;
	}
	flags = le32_to_cpu(fs->cp.flags);
	if (fs->flags & GAZE_FS_CP_PREV)
		*why = "the newest checkpoint cannot be read";
	else if (fs->cp_damaged)
		*why = "a checkpoint zone holds damaged packs";
	else if (flags & GAZE_CP_FSCK_NEEDED)
		*why = "the last checkpoint asks for fsck";
	else if (fs->rf_pending)
		*why = "it was not cleanly unmounted and nodes written by fsync await roll-forward";
	ret = *why ? -EUCLEAN : 0;
	gaze_fs_close(fs);
	return ret;
}

static void
ident_apply(struct gaze_super *sb, const char *label, const u8 *uuid)
{
	u64 inc = le64_to_cpu(sb->feature_incompat);

	if (label) {
		memset(sb->label, 0, sizeof(sb->label));
		memcpy(sb->label, label, strlen(label));
	}
	if (!uuid)
		return;
	if (!memcmp(uuid, gaze_sb_meta_uuid(sb), 16)) {
		/* back to the uuid the headers carry: no feature needed */
		inc &= ~GAZE_FEATURE_INCOMPAT_META_UUID;
		memset(sb->meta_uuid, 0, sizeof(sb->meta_uuid));
	} else if (!(inc & GAZE_FEATURE_INCOMPAT_META_UUID)) {
		memcpy(sb->meta_uuid, sb->hdr.uuid, sizeof(sb->meta_uuid));
		inc |= GAZE_FEATURE_INCOMPAT_META_UUID;
	}
	sb->feature_incompat = cpu_to_le64(inc);
	memcpy(sb->hdr.uuid, uuid, sizeof(sb->hdr.uuid));
}

/* copy c of sb at its place, with its checksum */
static void
ident_place(struct gaze_super *sb, u32 c, u32 zone_blocks)
{
	sb->hdr.index = cpu_to_le32(c);
	sb->hdr.blkaddr = cpu_to_le64((u64)c * zone_blocks);
	gaze_fmt_csum_set(sb);
}

/* emulated zones: both copies in place, copy 0 first */
static int
ident_write_in_place(struct gaze_dev *dev, struct gaze_super *sb)
{
	u32 zb = le32_to_cpu(sb->zone_blocks);
	u32 c;
	int ret;

	for (c = 0; c < 2; c++) {
		ident_place(sb, c, zb);
		ret = dev->ops->write(dev, (u64)c * zb, 1, sb);
		if (!ret)
			ret = dev->ops->flush(dev);
		if (ret)
			return ret;
	}
	return 0;
}

/* zoned: through the core, both checkpoint zones written anew */
static int
ident_write_renew(struct gaze_dev *dev, const struct gaze_super *sb)
{
	struct gaze_fs *fs;
	int ret, ret2;

	ret = gaze_fs_open(dev, 0, &fs);
	if (ret)
		return ret;
	/* the headers the core writes keep the uuid they carried */
	if (memcmp(fs->uuid, gaze_sb_meta_uuid(sb), sizeof(fs->uuid))) {
		fs->flags |= GAZE_FS_RDONLY;
		gaze_fs_close(fs);
		return -EINVAL;
	}
	memcpy(&fs->sb, sb, sizeof(fs->sb));
	mutex_lock(&fs->lock);
	ret = gaze_cp_renew_zones(fs);
	mutex_unlock(&fs->lock);
	ret2 = gaze_fs_close(fs);
	return ret ? ret : ret2;
}

/* what a change asks for */
struct ident_change {
	const char	*label;		/* NULL: unchanged */
	const u8	*uuid;		/* NULL: unchanged */
	const char	*features;	/* "a,^b" (NULL: unchanged) */
	u64		*cleared;	/* summary entries the scrub cleared */
};

/* why a change was refused, for the messages that name a feature */
static char ident_why[160];

/* the length of one item of a feature list */
static int
ident_item_len(const char *s)
{
	const char *e = strchr(s, ',');

	return e ? (int)(e - s) : (int)strlen(s);
}

/*
 * Whether bit of mask (0 compat, 1 ro_compat, 2 incompat) may go on (on)
 * or off on an existing filesystem; *scrub when turning it off needs the
 * summary scrub first.
 */
static int
ident_feature_ok(int mask, int bit, bool on, bool *scrub, const char **why)
{
	u64 b = 1ull << bit;
	const char *name = gaze_fmt_feature_name(mask, bit);

	if (mask == 0 && b == GAZE_FEATURE_COMPAT_LAZY_SUMMARY) {
		*scrub |= !on;
		return 0;
	}
	if (mask == 2 && b == GAZE_FEATURE_INCOMPAT_COMPRESSION) {
		if (on)
			return 0;
		*why = "compression cannot be turned off: files may hold compressed clusters (compress=no, or gazectl set compression=none on a directory, stops new writes compressing)";
		return -EPERM;
	}
	if (mask == 2 && b == GAZE_FEATURE_INCOMPAT_FSYNC_NAMESPACE)
		return 0;	/* no chain waits: ident_check_clean */
	if (mask == 2 && b == GAZE_FEATURE_INCOMPAT_META_UUID) {
		*why = "meta_uuid follows the uuid: gazectl uuid sets and clears it";
		return -EPERM;
	}
	snprintf(ident_why, sizeof(ident_why),
		 "%s is chosen by mkfs.gaze and cannot be turned %s on an existing filesystem",
		 name ? name : "this feature", on ? "on" : "off");
	*why = ident_why;
	return -EPERM;
}

/* sb's feature masks after list, if every change is allowed */
static int
ident_features(struct gaze_super *sb, const char *list, bool *scrub,
	       const char **why)
{
	u64 old[3] = { le64_to_cpu(sb->feature_compat),
		       le64_to_cpu(sb->feature_ro_compat),
		       le64_to_cpu(sb->feature_incompat) };
	u64 m[3] = { old[0], old[1], old[2] }, diff;
	const char *bad = NULL;
	int mask, bit, ret;

	ret = gaze_fmt_feature_parse(list, &m[0], &m[1], &m[2], &bad);
	if (ret) {
		snprintf(ident_why, sizeof(ident_why),
			 "feature '%.*s' is %s", bad ? ident_item_len(bad) : 0,
			 bad ? bad : "",
			 ret == -EPERM ? "set by a gazectl command of its own (meta_uuid: gazectl uuid)" :
			 ret == -EOPNOTSUPP ? "not supported by this version" :
					      "unknown");
		*why = ident_why;
		return ret == -EPERM ? -EPERM : -EINVAL;
	}
	for (mask = 0; mask < 3; mask++) {
		diff = old[mask] ^ m[mask];
		for (bit = 0; bit < 64; bit++) {
			if (!(diff & (1ull << bit)))
				continue;
			ret = ident_feature_ok(mask, bit,
					       m[mask] & (1ull << bit), scrub,
					       why);
			if (ret)
				return ret;
		}
	}
	sb->feature_compat = cpu_to_le64(m[0]);
	sb->feature_ro_compat = cpu_to_le64(m[1]);
	sb->feature_incompat = cpu_to_le64(m[2]);
	return 0;
}

/*
 * ^lazy_summary: clears the entries it left stale and commits them, the
 * superblock (every copy a checkpoint-zone switch writes included) still
 * saying lazy_summary.  A checkpoint first writes what the open itself
 * changed (the nodes of orphans it freed), so that the old blocks that
 * invalidates are scrubbed too; after it nothing but the summary table
 * is written, so no block stops being valid behind the scrub.
 */
static int
ident_scrub(struct gaze_dev *dev, u64 *cleared)
{
	struct gaze_fs *fs;
	u32 next = 0;
	int ret, ret2;

	ret = gaze_fs_open(dev, 0, &fs);
	if (ret)
		return ret;
	ret = gaze_fs_sync(fs);
	if (ret < 0)
		goto out;
	do {
		mutex_lock(&fs->lock);
		ret = gaze_space_summary_scrub(fs, &next, cleared);
		if (!ret)
			ret = gaze_fs_balance(fs);
		mutex_unlock(&fs->lock);
	} while (!ret);
out:
	if (ret < 0)
		fs->flags |= GAZE_FS_RDONLY;	/* commit nothing */
	ret2 = gaze_fs_close(fs);
	return ret < 0 ? ret : ret2;
}

static int
ident_change(struct gaze_dev *dev, const struct ident_change *c,
	     const char **why)
{
	struct gaze_super *sb[2] = { NULL, NULL }, *ns = NULL;
	const char *label = c->label;
	const u8 *uuid = c->uuid;
	bool scrub = false;
	u64 ro;
	int ret;

	*why = NULL;
	if (label && strlen(label) >= GAZE_LABEL_MAX)
		return -ENAMETOOLONG;
	if (uuid && gaze_uuid_is_null(uuid))
		return -EINVAL;
	sb[0] = malloc(GAZE_BLOCK_SIZE);
	sb[1] = malloc(GAZE_BLOCK_SIZE);
	ns = malloc(GAZE_BLOCK_SIZE);
	if (!sb[0] || !sb[1] || !ns) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ident_read_copies(dev, sb, why);
	if (ret)
		goto out;
	if (le64_to_cpu(sb[0]->feature_incompat) &
	    ~GAZE_FEATURE_INCOMPAT_SUPP) {
		*why = "it has incompatible features this version does not know";
		ret = -EOPNOTSUPP;
		goto out;
	}
	ro = le64_to_cpu(sb[0]->feature_ro_compat) &
	     ~GAZE_FEATURE_RO_COMPAT_SUPP;
	if (ro) {
		*why = "it has read-only-compatible features this version does not know";
		ret = -EROFS;
		goto out;
	}
	ret = ident_check_clean(dev, why);
	if (ret)
		goto out;

	memcpy(ns, sb[0], sizeof(*ns));
	ident_apply(ns, label, uuid);
	if (c->features) {
		ret = ident_features(ns, c->features, &scrub, why);
		if (ret)
			goto out;
	}
	ident_place(ns, 0, le32_to_cpu(ns->zone_blocks));
	if (gaze_fmt_super_verify(ns, 0, why)) {
		ret = -EINVAL;		/* a bug: nothing written */
		goto out;
	}
	if (!memcmp(ns, sb[0], sizeof(*ns)))
		goto out;		/* nothing changes */
	if (scrub) {
		ret = ident_scrub(dev, c->cleared);
		if (ret) {
			*why = "clearing the stale summary entries failed; the filesystem keeps lazy_summary";
			goto out;
		}
	}
	if (dev->model == GAZE_ZM_EMULATED)
		ret = ident_write_in_place(dev, ns);
	else
		ret = ident_write_renew(dev, ns);
	if (ret) {
		*why = "writing the superblock failed, and it may be new in one copy only (run fsck.gaze)";
		goto out;
	}
	/* read back: both copies verify, agree and say what was asked */
	ret = ident_read_copies(dev, sb, why);
	if (!ret && ((label && strcmp(sb[0]->label, label)) ||
		     (uuid && memcmp(sb[0]->hdr.uuid, uuid, 16)) ||
		     sb[0]->feature_compat != ns->feature_compat ||
		     sb[0]->feature_ro_compat != ns->feature_ro_compat ||
		     sb[0]->feature_incompat != ns->feature_incompat)) {
		*why = "the superblock read back is not the one written";
		ret = -EIO;
	}
	if (ret == -EUCLEAN)
		ret = -EIO;
out:
	free(ns);
	free(sb[1]);
	free(sb[0]);
	return ret;
}

int
gaze_ident_set(struct gaze_dev *dev, const char *label, const u8 *uuid,
	       const char **why)
{
	struct ident_change c = { .label = label, .uuid = uuid };

	return ident_change(dev, &c, why);
}

int
gaze_features_set(struct gaze_dev *dev, const char *list, u64 *cleared,
		  const char **why)
{
	struct ident_change c = { .features = list, .cleared = cleared };

	*cleared = 0;
	return ident_change(dev, &c, why);
}
