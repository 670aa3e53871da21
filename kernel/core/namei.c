// SPDX-License-Identifier: GPL-2.0
/*
 * namei.c - namespace entry points: create, link, unlink, lookup,
 * readdir, attributes, file data and symlinks.
 *
 * Why: these are the operations the module's VFS glue and the userspace
 * tools both perform, so each POSIX rule (link counts, which times change,
 * which errors) is decided once, here.  Every entry point takes fs->lock
 * for its whole duration, refuses to modify a read-only instance with
 * -EROFS, and calls gaze_fs_balance() before returning from a modifying
 * operation so dirty memory stays bounded.
 *
 * Times: the attributes passed to create calls are stored exactly (ns
 * included).  Operations that change a directory set its mtime and ctime
 * from gaze_wallclock(); link/unlink set the target's ctime; file writes
 * and truncates set mtime and ctime.  gaze_ns_setattr sets only what its
 * mask names, so tools that preserve times set them afterwards.
 *
 * The last unlink frees the inode, its blocks, nodes and xattr node at
 * once, unless the caller says it still uses it (GAZE_NS_IN_USE, the
 * module's open files): then it becomes an orphan (orphan.c).
 */
#include "gaze_core.h"

#define NS_DT_DIR	4

static bool
ns_type_ok(u32 mode)
{
	switch (mode & GAZE_S_IFMT) {
	case GAZE_S_IFREG:
	case GAZE_S_IFDIR:
	case GAZE_S_IFCHR:
	case GAZE_S_IFBLK:
	case GAZE_S_IFIFO:
	case GAZE_S_IFSOCK:
	case GAZE_S_IFLNK:
		return true;
	}
	return false;
}

/*
 * The inode a directory entry (or a directory's '..') names; ref held.
 * A name for a free inode is damage: -EFSCORRUPTED, not "no such file".
 */
static int
ns_get_named(struct gaze_fs *fs, u32 ino, struct gaze_mbuf **imbp)
{
	int err = gaze_inode_get(fs, ino, imbp);

	if (err == -ENOENT) {
		gaze_err("inode %u is named but free", ino);
		err = -EFSCORRUPTED;
	}
	return err;
}

/* directory inode for a namespace change; ref held */
static int
ns_get_dir(struct gaze_fs *fs, u32 dir, struct gaze_mbuf **dmbp)
{
	struct gaze_inode *in;
	int err;

	err = gaze_inode_get(fs, dir, dmbp);
	if (err)
		return err;
	in = (*dmbp)->data;
	if (!GAZE_S_ISDIR(le16_to_cpu(in->mode))) {
		gaze_mbuf_put(fs, *dmbp);
		return -ENOTDIR;
	}
	return 0;
}

/* regular file for data access; ref held */
static int
ns_get_file(struct gaze_fs *fs, u32 ino, struct gaze_mbuf **imbp)
{
	u32 mode;
	int err;

	err = gaze_inode_get(fs, ino, imbp);
	if (err)
		return err;
	mode = le16_to_cpu(((struct gaze_inode *)(*imbp)->data)->mode);
	if (GAZE_S_ISREG(mode))
		return 0;
	gaze_mbuf_put(fs, *imbp);
	return GAZE_S_ISDIR(mode) ? -EISDIR : -EINVAL;
}

typedef int (*ns_get_t)(struct gaze_fs *fs, u32 ino, struct gaze_mbuf **mbp);

/*
 * Entry-point prologue: takes fs->lock, refuses a modifying operation
 * (rw) on a read-only instance with -EROFS, and gets inode ino through
 * get (gaze_inode_get, ns_get_dir or ns_get_file); ref held.  On error
 * the lock is dropped again and nothing is held.
 */
static int
ns_enter_get(struct gaze_fs *fs, u32 ino, bool rw, ns_get_t get,
	     struct gaze_mbuf **mbp)
{
	int err;

	mutex_lock(&fs->lock);
	if (rw && (fs->flags & GAZE_FS_RDONLY))
		err = -EROFS;
	else
		err = get(fs, ino, mbp);
	if (err)
		mutex_unlock(&fs->lock);
	return err;
}

int
gaze_ns_enter(struct gaze_fs *fs, u32 ino, bool rw, struct gaze_mbuf **imbp)
{
	return ns_enter_get(fs, ino, rw, gaze_inode_get, imbp);
}

/*
 * Prologue of a read-only operation whose misses are read without
 * fs->lock (struct gaze_miss): as ns_enter_get for a read, with fs->miss
 * set to m while the lock is held; gaze_ns_leave clears it
 */
static int
ns_enter_ro(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, ns_get_t get,
	    struct gaze_mbuf **mbp)
{
	int err;

	mutex_lock(&fs->lock);
	fs->miss = m;
	err = get(fs, ino, mbp);
	if (err) {
		fs->miss = NULL;
		mutex_unlock(&fs->lock);
	}
	return err;
}

int
gaze_ns_enter_ro(struct gaze_fs *fs, struct gaze_miss *m, u32 ino,
		 struct gaze_mbuf **imbp)
{
	return ns_enter_ro(fs, m, ino, gaze_inode_get, imbp);
}

int
gaze_ns_leave(struct gaze_fs *fs, struct gaze_mbuf *mb, bool rw, int err)
{
	if (mb)
		gaze_mbuf_put(fs, mb);
	/*
	 * The operation is complete and stays done whatever balance says:
	 * a writeback failure there (-ENOSPC once no zone is free) must not
	 * be reported as this operation's result; the next checkpoint
	 * (sync, close) reports it.
	 */
	if (rw && !err)
		gaze_fs_balance(fs);
	fs->miss = NULL;
	mutex_unlock(&fs->lock);
	return err;
}

/* prologue of link and unlink: name check, then directory dir; ref held */
static int
ns_enter_dir(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
	     struct gaze_mbuf **dmbp)
{
	int err;

	err = gaze_name_check(name, len);
	if (err)
		return err;
	return ns_enter_get(fs, dir, true, ns_get_dir, dmbp);
}

/* 0 if name is free in the directory, -EEXIST, or a lookup error */
static int
ns_name_unused(struct gaze_fs *fs, struct gaze_mbuf *dmb, const char *name,
	       u32 len)
{
	u32 found;
	int err;

	err = gaze_dir_lookup(fs, dmb, name, len, &found, NULL);
	if (!err)
		return -EEXIST;
	return err == -ENOENT ? 0 : err;
}

static void
ns_time_set(__le64 *sec, __le32 *nsec, s64 s, u32 ns)
{
	*sec = cpu_to_le64((u64)s);
	*nsec = cpu_to_le32(ns);
}

/* stores the attributes mask names (but GAZE_SET_SIZE); not dirtied */
static void
ns_attr_store(struct gaze_inode *in, const struct gaze_attr *a, u32 mask)
{
	u32 mode = le16_to_cpu(in->mode);

	if (mask & GAZE_SET_MODE)
		in->mode = cpu_to_le16((u16)((mode & GAZE_S_IFMT) |
					     (a->mode & 07777)));
	if (mask & GAZE_SET_UID)
		in->uid = cpu_to_le32(a->uid);
	if (mask & GAZE_SET_GID)
		in->gid = cpu_to_le32(a->gid);
	if (mask & GAZE_SET_ATIME)
		ns_time_set(&in->atime, &in->atime_nsec, a->atime,
			    a->atime_nsec);
	if (mask & GAZE_SET_MTIME)
		ns_time_set(&in->mtime, &in->mtime_nsec, a->mtime,
			    a->mtime_nsec);
	if (mask & GAZE_SET_CTIME)
		ns_time_set(&in->ctime, &in->ctime_nsec, a->ctime,
			    a->ctime_nsec);
	if (mask & GAZE_SET_CRTIME)
		ns_time_set(&in->crtime, &in->crtime_nsec, a->crtime,
			    a->crtime_nsec);
	if (mask & GAZE_SET_FLAGS)
		in->flags = cpu_to_le32((le32_to_cpu(in->flags) &
					 ~GAZE_IF_USER) |
					(a->flags & GAZE_IF_USER));
}

static void
ns_nlink_add(struct gaze_fs *fs, struct gaze_mbuf *imb, int delta)
{
	struct gaze_inode *in = imb->data;

	in->nlink = cpu_to_le32(le32_to_cpu(in->nlink) + delta);
	/* an fsync of it alone cannot replay this (fs.c) */
	imb->rf_seq = fs->rf_epoch;
	gaze_mbuf_dirty(fs, imb);
}

/* out's slot from inode imb; nothing for a NULL out */
static void
ns_out_set(struct gaze_ns_out *out, int slot, struct gaze_mbuf *imb)
{
	if (out)
		gaze_inode_to_attr(imb->data, &out->a[slot]);
}

/* gaze_inode_drop of an inode that lost a link, with its slot in out */
static int
ns_out_drop(struct gaze_fs *fs, struct gaze_mbuf *imb, bool in_use,
	    struct gaze_ns_out *out, int slot)
{
	struct gaze_attr *a;
	int err;

	if (!out)
		return gaze_inode_drop(fs, imb, in_use, NULL);
	a = &out->a[slot];
	err = gaze_inode_drop(fs, imb, in_use, a);
	if (!a->nlink && !(a->flags & GAZE_IF_ORPHAN))
		out->freed |= 1u << slot;
	return err;
}

/* stores a symlink target in a new inode */
static int
ns_symlink_fill(struct gaze_fs *fs, struct gaze_mbuf *imb, const char *target,
		u32 tlen)
{
	struct gaze_inode *in = imb->data;
	s64 n;

	if ((le64_to_cpu(fs->sb.feature_incompat) &
	     GAZE_FEATURE_INCOMPAT_INLINE_DATA) && tlen <= GAZE_INLINE_SIZE) {
		memcpy(in->i.data, target, tlen);
		in->flags = cpu_to_le32(le32_to_cpu(in->flags) |
					GAZE_IF_INLINE_DATA);
		in->inline_used = cpu_to_le16((u16)tlen);
		in->size = cpu_to_le64(tlen);
		gaze_mbuf_dirty(fs, imb);
		return 0;
	}
	n = gaze_inode_write(fs, imb, target, tlen, 0);
	if (n < 0)
		return (int)n;
	return n == tlen ? 0 : -EIO;
}

/*
 * Creates an inode of a->mode's type named name in dir; symlinks get
 * their target.  Caller holds fs->lock.
 */
static int
ns_create(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
	  const struct gaze_attr *a, const char *target, u32 tlen, u32 *ino,
	  struct gaze_attr *out)
{
	struct gaze_mbuf *dmb, *imb;
	struct gaze_attr na = *a;
	bool isdir = GAZE_S_ISDIR(a->mode);
	int err;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	err = gaze_name_check(name, len);
	if (err)
		return err;
	if (!ns_type_ok(a->mode))
		return -EINVAL;
	err = ns_get_dir(fs, dir, &dmb);
	if (err)
		return err;
	err = ns_name_unused(fs, dmb, name, len);
	if (err)
		goto out_dir;
	na.nlink = isdir ? 2 : 1;
	err = gaze_inode_create(fs, 0, &na, dir, &imb);
	if (err)
		goto out_dir;
	if (target) {
		err = ns_symlink_fill(fs, imb, target, tlen);
		if (err)
			goto out_evict;
	}
	err = gaze_dir_add(fs, dmb, name, len, imb->id,
			   GAZE_MODE_DTYPE(a->mode));
	if (err)
		goto out_evict;
	if (isdir)
		ns_nlink_add(fs, dmb, 1);
	gaze_inode_touch(fs, dmb, true);
	if (ino)
		*ino = imb->id;
	if (out) {
		gaze_inode_to_attr(imb->data, &out[0]);
		gaze_inode_to_attr(dmb->data, &out[1]);
	}
	gaze_mbuf_put(fs, imb);
	gaze_mbuf_put(fs, dmb);
	return 0;

out_evict:
	gaze_inode_evict(fs, imb);
out_dir:
	gaze_mbuf_put(fs, dmb);
	return err;
}

/* creates the root (and lost+found); caller holds fs->lock */
static int
ns_init_root(struct gaze_fs *fs, const struct gaze_attr *root)
{
	struct gaze_attr a = *root, lf;
	struct gaze_mbuf *rmb;
	int err;

	if (fs->flags & GAZE_FS_RDONLY)
		return -EROFS;
	err = gaze_nid_claim(fs, GAZE_ROOT_INO);
	if (err)
		return err;
	a.mode = GAZE_S_IFDIR | (root->mode & 07777);
	a.nlink = 2;
	err = gaze_inode_create(fs, GAZE_ROOT_INO, &a, GAZE_ROOT_INO, &rmb);
	if (err) {
		gaze_nid_free(fs, GAZE_ROOT_INO);
		return err;
	}
	gaze_mbuf_put(fs, rmb);
	if (!(le64_to_cpu(fs->sb.feature_compat) &
	      GAZE_FEATURE_COMPAT_LOST_FOUND))
		return 0;
	lf = a;
	lf.mode = GAZE_S_IFDIR | 0700;
	lf.uid = 0;
	lf.gid = 0;
	err = ns_create(fs, GAZE_ROOT_INO, "lost+found", 10, &lf, NULL, 0, NULL,
			NULL);
	if (err)
		return err;
	/* keep the root's times as given */
	err = gaze_inode_get(fs, GAZE_ROOT_INO, &rmb);
	if (err)
		return err;
	ns_attr_store(rmb->data, root, GAZE_SET_MTIME | GAZE_SET_CTIME);
	gaze_mbuf_dirty(fs, rmb);
	gaze_mbuf_put(fs, rmb);
	return 0;
}

int
gaze_ns_init_root(struct gaze_fs *fs, const struct gaze_attr *root)
{
	mutex_lock(&fs->lock);
	return gaze_ns_leave(fs, NULL, true, ns_init_root(fs, root));
}

static int
ns_lookup(struct gaze_fs *fs, struct gaze_miss *m, u32 dir, const char *name,
	  u32 len, u32 *ino, u8 *dtype)
{
	struct gaze_mbuf *dmb;
	struct gaze_inode *in;
	int err;

	err = ns_enter_ro(fs, m, dir, ns_get_dir, &dmb);
	if (err)
		return err;
	in = dmb->data;
	if (len == 1 && name[0] == '.') {
		*ino = dir;
		if (dtype)
			*dtype = NS_DT_DIR;
	} else if (len == 2 && name[0] == '.' && name[1] == '.') {
		*ino = le32_to_cpu(in->parent);
		if (dtype)
			*dtype = NS_DT_DIR;
	} else {
		err = gaze_name_check(name, len);
		if (!err)
			err = gaze_dir_lookup(fs, dmb, name, len, ino, dtype);
	}
	return gaze_ns_leave(fs, dmb, false, err);
}

int
gaze_ns_lookup(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
	       u32 *ino, u8 *dtype)
{
	int err;

	GAZE_MISS_RUN(fs, m, err,
		      ns_lookup(fs, &m, dir, name, len, ino, dtype));
	return err;
}

/*
 * The entry points' create: a symlink when target is set (tlen bytes;
 * a->mode's type is then ignored), else the type a->mode gives; out as
 * in gaze_ns_create, or NULL
 */
static int
ns_create_locked(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
		 const struct gaze_attr *a, const char *target, u32 tlen,
		 u32 *ino, struct gaze_attr *out)
{
	struct gaze_attr la = *a;
	int err;

	if (target) {
		if (!tlen)
			return -ENOENT;
		if (tlen > GAZE_SYMLINK_MAX)
			return -ENAMETOOLONG;
		la.mode = GAZE_S_IFLNK | (a->mode & 07777);
	} else if (GAZE_S_ISLNK(a->mode)) {
		return -EINVAL;		/* symlinks need a target */
	}
	mutex_lock(&fs->lock);
	err = ns_create(fs, dir, name, len, &la, target, tlen, ino, out);
	return gaze_ns_leave(fs, NULL, true, err);
}

int
gaze_ns_mknod(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
	      const struct gaze_attr *a, u32 *ino)
{
	return ns_create_locked(fs, dir, name, len, a, NULL, 0, ino, NULL);
}

int
gaze_ns_symlink(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
		const char *target, u32 tlen, const struct gaze_attr *a,
		u32 *ino)
{
	return ns_create_locked(fs, dir, name, len, a, target, tlen, ino,
				NULL);
}

int
gaze_ns_create(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
	       const struct gaze_attr *a, const char *target,
	       struct gaze_attr out[2])
{
	return ns_create_locked(fs, dir, name, len, a, target,
				target ? (u32)strlen(target) : 0, NULL, out);
}

/* a new regular file with no name, an orphan from the start */
static int
ns_tmpfile(struct gaze_fs *fs, u32 dir, const struct gaze_attr *a, u32 *ino)
{
	struct gaze_mbuf *dmb, *imb;
	struct gaze_attr na = *a;
	int err;

	if (!GAZE_S_ISREG(a->mode))
		return -EINVAL;
	err = ns_get_dir(fs, dir, &dmb);
	if (err)
		return err;
	na.nlink = 0;
	err = gaze_inode_create(fs, 0, &na, dir, &imb);
	gaze_mbuf_put(fs, dmb);
	if (err)
		return err;
	*ino = imb->id;
	/* on the orphan list, GAZE_IF_ORPHAN; consumes the ref */
	err = gaze_inode_drop(fs, imb, true, NULL);
	if (err) {
		/* not tracked, so not kept: free it again */
		if (!gaze_inode_get(fs, *ino, &imb))
			gaze_inode_evict(fs, imb);
	}
	return err;
}

int
gaze_ns_tmpfile(struct gaze_fs *fs, u32 dir, const struct gaze_attr *a,
		u32 *ino)
{
	int err;

	mutex_lock(&fs->lock);
	if (fs->flags & GAZE_FS_RDONLY)
		err = -EROFS;
	else
		err = ns_tmpfile(fs, dir, a, ino);
	return gaze_ns_leave(fs, NULL, true, err);
}

int
gaze_ns_link(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
	     u32 ino)
{
	return gaze_ns_link_flags(fs, dir, name, len, ino, 0, NULL);
}

/* may inode in get a new name (link flags) */
static int
ns_link_ok(const struct gaze_inode *in, u32 flags)
{
	if (GAZE_S_ISDIR(le16_to_cpu(in->mode)))
		return -EPERM;
	/* an orphan: its last name is gone, unless the caller adopts it */
	if (!in->nlink && (!(flags & GAZE_NS_LINK_ORPHAN) ||
			   !(le32_to_cpu(in->flags) & GAZE_IF_ORPHAN)))
		return -ENOENT;
	if (le32_to_cpu(in->nlink) >= 0xffffffffu)
		return -EMLINK;
	return 0;
}

int
gaze_ns_link_flags(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
		   u32 ino, u32 flags, struct gaze_ns_out *out)
{
	struct gaze_mbuf *dmb, *imb;
	struct gaze_inode *in;
	int err;

	if (flags & ~GAZE_NS_LINK_ORPHAN)
		return -EINVAL;
	if (out)
		memset(out, 0, sizeof(*out));
	err = ns_enter_dir(fs, dir, name, len, &dmb);
	if (err)
		return err;
	err = gaze_inode_get(fs, ino, &imb);
	if (err)
		goto out_dir;
	in = imb->data;
	err = ns_link_ok(in, flags);
	if (err)
		goto out_inode;
	err = ns_name_unused(fs, dmb, name, len);
	if (err)
		goto out_inode;
	err = gaze_dir_add(fs, dmb, name, len, ino,
			   GAZE_MODE_DTYPE(le16_to_cpu(in->mode)));
	if (err)
		goto out_inode;
	if (!in->nlink)
		gaze_orphan_adopt(fs, imb);
	ns_nlink_add(fs, imb, 1);
	gaze_inode_touch(fs, imb, false);
	gaze_inode_touch(fs, dmb, true);
	ns_out_set(out, GAZE_OUT_INODE, imb);
	ns_out_set(out, GAZE_OUT_DIR, dmb);
out_inode:
	gaze_mbuf_put(fs, imb);
out_dir:
	return gaze_ns_leave(fs, dmb, true, err);
}

int
gaze_ns_unlink(struct gaze_fs *fs, u32 dir, const char *name, u32 len)
{
	return gaze_ns_unlink_flags(fs, dir, name, len, 0, NULL);
}

int
gaze_ns_unlink_flags(struct gaze_fs *fs, u32 dir, const char *name, u32 len,
		     u32 flags, struct gaze_ns_out *out)
{
	struct gaze_mbuf *dmb, *imb;
	struct gaze_inode *in;
	bool isdir;
	u32 ino;
	int err;

	if (flags & ~GAZE_NS_IN_USE)
		return -EINVAL;
	if (out)
		memset(out, 0, sizeof(*out));
	err = ns_enter_dir(fs, dir, name, len, &dmb);
	if (err)
		return err;
	err = gaze_dir_lookup(fs, dmb, name, len, &ino, NULL);
	if (err)
		goto out_dir;
	err = ns_get_named(fs, ino, &imb);
	if (err)
		goto out_dir;
	in = imb->data;
	isdir = GAZE_S_ISDIR(le16_to_cpu(in->mode));
	if (isdir && le32_to_cpu(in->dir_nentries)) {
		err = -ENOTEMPTY;
		goto out_inode;
	}
	err = gaze_dir_remove(fs, dmb, name, len);
	if (err)
		goto out_inode;
	if (isdir) {
		ns_nlink_add(fs, dmb, -1);
		in->nlink = 0;
	} else if (in->nlink) {
		ns_nlink_add(fs, imb, -1);
	}
	gaze_inode_touch(fs, dmb, true);
	gaze_inode_touch(fs, imb, false);
	ns_out_set(out, GAZE_OUT_DIR, dmb);
	err = ns_out_drop(fs, imb, flags & GAZE_NS_IN_USE, out, GAZE_OUT_INODE);
	goto out_dir;
out_inode:
	gaze_mbuf_put(fs, imb);
out_dir:
	return gaze_ns_leave(fs, dmb, true, err);
}

static int
ns_readdir(struct gaze_fs *fs, struct gaze_miss *m, u32 dir, u64 *pos,
	   gaze_filldir_t fn, void *ctx)
{
	struct gaze_mbuf *dmb;
	int err;

	err = ns_enter_ro(fs, m, dir, ns_get_dir, &dmb);
	if (err)
		return err;
	err = gaze_dir_iterate(fs, dmb, pos, fn, ctx);
	return gaze_ns_leave(fs, dmb, false, err);
}

/*
 * A miss ends the walk after the entries emitted so far, with *pos past
 * them (a bucket's entries, equal cookies included, come from one block),
 * so the next try goes on from there and emits none twice
 */
int
gaze_ns_readdir(struct gaze_fs *fs, u32 dir, u64 *pos, gaze_filldir_t fn,
		void *ctx)
{
	int err;

	GAZE_MISS_RUN(fs, m, err, ns_readdir(fs, &m, dir, pos, fn, ctx));
	return err;
}

static int
ns_getattr(struct gaze_fs *fs, struct gaze_miss *m, u32 ino,
	   struct gaze_attr *a)
{
	struct gaze_mbuf *imb;
	int err;

	err = ns_enter_ro(fs, m, ino, gaze_inode_get, &imb);
	if (err)
		return err;
	gaze_inode_to_attr(imb->data, a);
	return gaze_ns_leave(fs, imb, false, 0);
}

#define NS_PF_MAX	128	/* inodes a step plans for */
#define NS_PF_GAP	16	/* blocks between two of them read through */
#define NS_PF_WIN	256	/* blocks a read takes at most (1 MiB) */

struct ns_pf {
	u32	nid;
	u64	addr;
};

/* the inodes of inos not cached, with their addresses (imap) */
static int
ns_pf_plan(struct gaze_fs *fs, struct gaze_miss *m, const u32 *inos, u32 n,
	   struct ns_pf *pf, u32 *npf, u64 *seq)
{
	u32 i, k = 0, max = le32_to_cpu(fs->sb.max_nid);
	struct gaze_mbuf *mb;
	u64 addr;
	int err = 0;

	mutex_lock(&fs->lock);
	fs->miss = m;
	for (i = 0; i < n && err != -GAZE_EMISS; i++) {
		if (inos[i] <= GAZE_NID_RESERVED || inos[i] >= max)
			continue;
		mb = gaze_mbuf_lookup(fs, GAZE_MB_NODE, inos[i], 0);
		if (mb) {
			gaze_mbuf_put(fs, mb);
			continue;
		}
		err = gaze_imap_get(fs, inos[i], &addr);
		if (!err && GAZE_ADDR_IS_REAL(addr)) {
			pf[k].nid = inos[i];
			pf[k++].addr = addr;
		}
	}
	*npf = k;
	*seq = fs->reset_seq;
	fs->miss = NULL;
	mutex_unlock(&fs->lock);
	return err == -GAZE_EMISS ? err : 0;
}

/* by address, so that blocks near each other are read together */
static void
ns_pf_sort(struct ns_pf *pf, u32 n)
{
	struct ns_pf t;
	u32 i, j;

	for (i = 1; i < n; i++) {
		t = pf[i];
		for (j = i; j && pf[j - 1].addr > t.addr; j--)
			pf[j] = pf[j - 1];
		pf[j] = t;
	}
}

/*
 * Every inode block of the nr read at first that the imap still places
 * there (gaze_inode_insert_live: the imap looked at, never read),
 * inserted; the blocks between the ones asked for are often inodes made
 * with them, which a listing in hash order asks for next
 */
static u32
ns_pf_insert(struct gaze_fs *fs, u64 first, u32 nr, const u8 *buf, u64 seq)
{
	u32 i, got = 0;

	mutex_lock(&fs->lock);
	for (i = 0; i < nr && fs->reset_seq == seq; i++)
		if (!gaze_inode_insert_live(fs, first + i,
					    buf + ((size_t)i << GAZE_BLOCK_SHIFT),
					    0))
			got++;
	mutex_unlock(&fs->lock);
	return got;
}

/*
 * Reads the planned blocks a window at a time, without fs->lock; a window
 * stays inside one zone (its blocks below the zone's capacity)
 */
static u32
ns_pf_read(struct gaze_fs *fs, const struct ns_pf *pf, u32 n, u8 *buf,
	   u64 seq)
{
	u64 zb = fs->dev->zone_blocks;
	u32 i = 0, j, got = 0, nr;

	while (i < n) {
		for (j = i + 1; j < n; j++)
			if (pf[j].addr - pf[j - 1].addr > NS_PF_GAP ||
			    pf[j].addr - pf[i].addr >= NS_PF_WIN ||
			    pf[j].addr / zb != pf[i].addr / zb)
				break;
		nr = (u32)(pf[j - 1].addr - pf[i].addr + 1);
		if (!fs->dev->ops->read(fs->dev, pf[i].addr, nr, buf))
			got += ns_pf_insert(fs, pf[i].addr, nr, buf, seq);
		i = j;
	}
	return got;
}

/* the read buffer is taken only once a step has blocks to read */
static u32
ns_pf_step(struct gaze_fs *fs, const u32 *inos, u32 n, struct ns_pf *pf,
	   u8 **buf)
{
	struct gaze_miss m;
	u32 npf = 0;
	u64 seq = 0;
	int err;

	gaze_miss_init(&m);
	do
		err = ns_pf_plan(fs, &m, inos, n, pf, &npf, &seq);
	while (gaze_miss_fetch(fs, &m, err) && m.nowait);
	gaze_miss_exit(&m);
	if (err || !npf)
		return 0;
	if (!*buf)
		*buf = gaze_alloc((size_t)NS_PF_WIN << GAZE_BLOCK_SHIFT);
	if (!*buf)
		return 0;
	ns_pf_sort(pf, npf);
	return ns_pf_read(fs, pf, npf, *buf, seq);
}

u32
gaze_ns_prefetch_inodes(struct gaze_fs *fs, const u32 *inos, u32 n)
{
	struct ns_pf *pf;
	u8 *buf = NULL;
	u32 i, got = 0;

	pf = gaze_alloc(sizeof(*pf) * NS_PF_MAX);
	for (i = 0; pf && i < n; i += NS_PF_MAX)
		got += ns_pf_step(fs, inos + i, min_t(u32, n - i, NS_PF_MAX),
				  pf, &buf);
	gaze_free(buf);
	gaze_free(pf);
	return got;
}

int
gaze_ns_getattr(struct gaze_fs *fs, u32 ino, struct gaze_attr *a)
{
	int err;

	GAZE_MISS_RUN(fs, m, err, ns_getattr(fs, &m, ino, a));
	return err;
}

int
gaze_ns_setattr(struct gaze_fs *fs, u32 ino, const struct gaze_attr *a,
		u32 mask)
{
	struct gaze_mbuf *imb;
	u32 mode;
	int err;

	err = gaze_ns_enter(fs, ino, true, &imb);
	if (err)
		return err;
	mode = le16_to_cpu(((struct gaze_inode *)imb->data)->mode);
	if (mask & GAZE_SET_SIZE) {
		if (GAZE_S_ISDIR(mode))
			err = -EISDIR;
		else if (!GAZE_S_ISREG(mode))
			err = -EINVAL;
		else
			err = gaze_inode_truncate(fs, imb, a->size);
		if (err)
			goto out_put;
	}
	if (mask & GAZE_SET_FLAGS) {
		err = gaze_cluster_set_flag(fs, imb,
					    a->flags & GAZE_IF_COMPRESS);
		if (err)
			goto out_put;
	}
	ns_attr_store(imb->data, a, mask);
	gaze_mbuf_dirty(fs, imb);
out_put:
	return gaze_ns_leave(fs, imb, true, err);
}

static s64
ns_file_read(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, void *buf,
	     u64 len, u64 off)
{
	struct gaze_mbuf *imb;
	s64 ret;
	int err;

	err = ns_enter_ro(fs, m, ino, ns_get_file, &imb);
	if (err)
		return err;
	ret = gaze_inode_read(fs, imb, buf, len, off);
	gaze_ns_leave(fs, imb, false, 0);
	return ret;
}

s64
gaze_file_read(struct gaze_fs *fs, u32 ino, void *buf, u64 len, u64 off)
{
	s64 ret;

	GAZE_MISS_RUN(fs, m, ret, ns_file_read(fs, &m, ino, buf, len, off));
	return ret;
}

/*
 * Blocks a write of len bytes at off may allocate: its own, the rest of
 * the clusters it cuts into, and 2 for nodes
 */
static u64
ns_write_room(struct gaze_mbuf *imb, u64 off, u64 len)
{
	u32 log = ((struct gaze_inode *)imb->data)->compress_log_cluster;
	u64 first = off >> GAZE_BLOCK_SHIFT;
	u64 end = DIV_ROUND_UP(off + len, GAZE_BLOCK_SIZE);

	if (!log)	/* what the reservations (space.c) count on */
		return (len >> GAZE_BLOCK_SHIFT) + 2;
	first = first >> log << log;
	end = DIV_ROUND_UP(end, 1ull << log) << log;
	return end - first + 2;
}

/* ns_write_room for the blocks of a vectored write */
static u64
ns_write_vec_room(struct gaze_mbuf *imb, u64 fblk, const u64 *fblks, u32 nr)
{
	u32 log = ((struct gaze_inode *)imb->data)->compress_log_cluster, i;
	u64 room = 2, c, last = ~0ull;

	if (!log)
		return (u64)nr + 2;
	if (!fblks)
		return ns_write_room(imb, fblk << GAZE_BLOCK_SHIFT,
				     (u64)nr << GAZE_BLOCK_SHIFT);
	for (i = 0; i < nr; i++) {
		c = fblks[i] >> log;
		if (c != last)
			room += 1ull << log;
		last = c;
	}
	return room;
}

/*
 * Writes in chunks of at most one zone, letting foreground GC make room
 * before each (a consistent point: what came before is complete).
 */
static s64
ns_write_chunks(struct gaze_fs *fs, struct gaze_mbuf *imb, const u8 *buf,
		u64 len, u64 off)
{
	u64 chunk = (u64)le32_to_cpu(fs->sb.zone_cap) << GAZE_BLOCK_SHIFT;
	u64 done = 0, n;
	s64 ret = 0;

	while (done < len) {
		n = min(len - done, chunk);
		ret = gaze_gc_balance(fs, ns_write_room(imb, off + done, n));
		if (!ret)
			ret = gaze_inode_write(fs, imb, buf + done, n,
					       off + done);
		if (ret <= 0)
			break;
		done += (u64)ret;
		if ((u64)ret < n)
			break;
	}
	return done ? (s64)done : ret;
}

/* blocks of the nr file blocks mapped or preallocated now (an overwrite
 * frees them; a preallocated block is counted as used already) */
static u32
ns_mapped_blocks(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 fblk,
		 const u64 *fblks, u32 nr)
{
	u32 i, n = 0;
	u64 a;

	if (le32_to_cpu(((struct gaze_inode *)imb->data)->flags) &
	    GAZE_IF_INLINE_DATA)
		return 0;
	for (i = 0; i < nr; i++)
		if (!gaze_bmap_lookup(fs, imb, fblks ? fblks[i] : fblk + i,
				      &a) &&
		    GAZE_ADDR_COUNTED(a))
			n++;
	return n;
}

/* gaze_file_write's allowance: 1 if a block of the range is mapped */
static u32
ns_write_over(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 off, u64 len)
{
	u64 mapped = 0;

	if (le32_to_cpu(((struct gaze_inode *)imb->data)->flags) &
	    GAZE_IF_INLINE_DATA)
		return 0;
	return !gaze_bmap_range(fs, imb, off >> GAZE_BLOCK_SHIFT,
				DIV_ROUND_UP(off + len, GAZE_BLOCK_SIZE), false,
				&mapped) && mapped;
}

s64
gaze_file_write(struct gaze_fs *fs, u32 ino, const void *buf, u64 len,
		u64 off)
{
	struct gaze_mbuf *imb;
	s64 ret;
	int err;

	err = ns_enter_get(fs, ino, true, ns_get_file, &imb);
	if (err)
		return err;
	/*
	 * writeback: spends reservations, one block at a time (space.c); a
	 * block replacing a mapped or preallocated one is counted twice
	 * until its old one goes, so one may go over when any does
	 */
	gaze_space_wb_begin(fs, ns_write_over(fs, imb, off, len));
	ret = ns_write_chunks(fs, imb, buf, len, off);
	gaze_space_wb_end(fs);
	if (ret > 0)
		gaze_inode_touch(fs, imb, true);
	err = gaze_ns_leave(fs, imb, true, 0);
	if (err && ret >= 0)
		ret = err;
	return ret;
}

static int
ns_write_vec(struct gaze_fs *fs, u32 ino, u64 fblk, const u64 *fblks,
	     u32 nr, void *const *bufs, const void *buf, u64 size,
	     struct gaze_cluster_enc *enc, u32 nenc)
{
	struct gaze_mbuf *imb;
	int err;

	err = ns_enter_get(fs, ino, true, ns_get_file, &imb);
	if (err)
		return err;
	/* room first, at a consistent point (see ns_write_chunks) */
	err = gaze_gc_balance(fs, ns_write_vec_room(imb, fblk, fblks, nr));
	if (!err) {
		/* writeback: spends reservations (space.c) */
		gaze_space_wb_begin(fs, ns_mapped_blocks(fs, imb, fblk, fblks,
							 nr));
		if (bufs)
			err = gaze_inode_write_vec(fs, imb, fblk, fblks, nr,
						   bufs, size, enc, nenc);
		else
			err = gaze_inode_write_blocks(fs, imb, fblk, nr, buf,
						      size);
		gaze_space_wb_end(fs);
	}
	if (!err)
		gaze_inode_touch(fs, imb, true);
	return gaze_ns_leave(fs, imb, true, err);
}

int
gaze_file_write_blocks(struct gaze_fs *fs, u32 ino, u64 fblk, u32 nr,
		       const void *buf, u64 size)
{
	return ns_write_vec(fs, ino, fblk, NULL, nr, NULL, buf, size, NULL, 0);
}

int
gaze_file_write_vec(struct gaze_fs *fs, u32 ino, const u64 *fblks, u32 nr,
		    void *const *bufs, u64 size)
{
	return gaze_file_write_vec_enc(fs, ino, fblks, nr, bufs, size, NULL, 0);
}

int
gaze_file_write_vec_enc(struct gaze_fs *fs, u32 ino, const u64 *fblks,
			u32 nr, void *const *bufs, u64 size,
			struct gaze_cluster_enc *enc, u32 nenc)
{
	if (!fblks || !bufs || (nenc && !enc))
		return -EINVAL;
	return ns_write_vec(fs, ino, 0, fblks, nr, bufs, NULL, size, enc,
			    nenc);
}

/*
 * Enters for a read of a file's block map: *imbp NULL and the error when
 * the entry failed; else held, with -ENODATA for an inline file (no map)
 */
static int
ns_enter_map(struct gaze_fs *fs, struct gaze_miss *m, u32 ino,
	     struct gaze_mbuf **imbp)
{
	int err;

	*imbp = NULL;
	err = ns_enter_ro(fs, m, ino, ns_get_file, imbp);
	if (err) {
		*imbp = NULL;
		return err;
	}
	return le32_to_cpu(((struct gaze_inode *)(*imbp)->data)->flags) &
	       GAZE_IF_INLINE_DATA ? -ENODATA : 0;
}

static int
ns_file_map(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, u64 fblk,
	    u32 max, u64 *addr, u32 *nr)
{
	struct gaze_mbuf *imb;
	u64 n = 0;
	int err;

	*addr = GAZE_NULL_ADDR;
	*nr = 0;
	err = ns_enter_map(fs, m, ino, &imb);
	if (!imb)
		return err;
	if (!err && max)
		err = gaze_bmap_run(fs, imb, fblk, max, addr, &n);
	*nr = (u32)n;
	return gaze_ns_leave(fs, imb, false, err);
}

int
gaze_file_map(struct gaze_fs *fs, u32 ino, u64 fblk, u32 max, u64 *addr,
	      u32 *nr)
{
	int err;

	GAZE_MISS_RUN(fs, m, err,
		      ns_file_map(fs, &m, ino, fblk, max, addr, nr));
	return err;
}

/*
 * What a warm-up brings into the cache: the blocks fblks[0..nr) a write
 * will map (gaze_file_map_warm), or with fblks NULL the cut [pos, to)
 * (gaze_file_range_warm; self: the inode's own node too).  pos is how
 * far it got: an index into fblks, or a file block.
 */
struct ns_warm {
	const u64	*fblks;
	u32		nr;
	bool		self;
	u64		pos, to;
};

/*
 * One try: from w->pos, each block's slot in the map and the table
 * blocks a change of it touches (the old block's, gaze_block_invalidate's),
 * w->pos past each block seen; 0 at once when a miss would be read under
 * the lock
 */
static int
ns_warm(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, struct ns_warm *w)
{
	struct gaze_mbuf *imb;
	u64 addr;
	int err;

	if (!m->nowait)
		return 0;
	err = ns_enter_map(fs, m, ino, &imb);
	if (!imb)
		return err;
	if (!err && w->self) {
		err = gaze_bmap_warm_owner(fs, imb->blkaddr);
		if (!err)
			w->self = false;	/* in the cache now */
	}
	while (!err && w->fblks && w->pos < w->nr) {
		err = gaze_bmap_lookup(fs, imb, w->fblks[w->pos], &addr);
		if (!err)
			err = gaze_bmap_warm_owner(fs, addr);
		if (!err)
			w->pos++;
	}
	if (!err && !w->fblks)
		err = gaze_bmap_warm(fs, imb, &w->pos, w->to);
	if (err == -ENODATA)		/* inline: no map */
		err = 0;
	return gaze_ns_leave(fs, imb, false, err);
}

/* runs of GAZE_MISS_TRIES fetches each, while each gets further */
static void
ns_warm_run(struct gaze_fs *fs, u32 ino, struct ns_warm *w)
{
	u64 end = w->fblks ? w->nr : w->to, before;
	int err;

	do {
		before = w->pos;
		GAZE_MISS_RUN(fs, m, err, ns_warm(fs, &m, ino, w));
	} while (!err && w->pos < end && w->pos > before);
}

void
gaze_file_map_warm(struct gaze_fs *fs, u32 ino, const u64 *fblks, u32 nr)
{
	struct ns_warm w = { .fblks = fblks, .nr = nr };

	ns_warm_run(fs, ino, &w);
}

/*
 * gaze_file_range_warm looks at most this many file blocks ahead (1 GiB
 * of file: about 260 map nodes and their table blocks), so the cache it
 * fills stays small next to fs->cache_limit; a larger cut reads the rest
 * of its misses under the lock.
 */
#define RANGE_WARM_MAX		(1ull << 18)

void
gaze_file_range_warm(struct gaze_fs *fs, u32 ino, u64 from, u64 to,
		     bool self)
{
	struct ns_warm w = { .self = self, .pos = from,
			     .to = min(to, from + RANGE_WARM_MAX) };

	ns_warm_run(fs, ino, &w);
}

/*
 * One try of gaze_file_edges_warm: the addresses of the data blocks a
 * zero of [off, end) rewrites in part (gaze_zero_edges, the rule
 * gaze_inode_zero and the truncate follow), with fs->reset_seq; none in
 * an inline or compressed file, whose cut reads no such block
 */
static int
ns_edges(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, u64 off, u64 end,
	 struct gaze_staged *e, u32 *n)
{
	struct gaze_inode *in;
	struct gaze_mbuf *imb;
	u64 fblk[2], addr;
	u32 k, i;
	int err;

	*n = 0;
	if (!m->nowait)
		return 0;
	err = ns_enter_ro(fs, m, ino, gaze_inode_get, &imb);
	if (err)
		return err;
	in = imb->data;
	if ((le32_to_cpu(in->flags) & GAZE_IF_INLINE_DATA) ||
	    in->compress_log_cluster)
		goto out;
	k = gaze_zero_edges(le64_to_cpu(in->size), off, end, fblk);
	for (i = 0; i < k && !err; i++) {
		err = gaze_bmap_lookup(fs, imb, fblk[i], &addr);
		if (!err && GAZE_ADDR_IS_REAL(addr)) {
			e[*n].addr = addr;
			e[*n].reset_seq = fs->reset_seq;
			e[*n].buf = NULL;
			(*n)++;
		}
	}
out:
	return gaze_ns_leave(fs, imb, false, err);
}

void
gaze_file_edges_warm(struct gaze_fs *fs, u32 ino, u64 off, u64 end)
{
	struct gaze_staged e[ARRAY_SIZE(fs->staged)], *st;
	const u64 mask = GAZE_BLOCK_SIZE - 1;
	u32 n = 0, i;
	int err;

	if (!(off & mask) && (end == ~0ull || !(end & mask)))
		return;		/* no partial block, whatever the size */
	GAZE_MISS_RUN(fs, m, err, ns_edges(fs, &m, ino, off, end, e, &n));
	if (err)
		return;
	for (i = 0; i < n; i++) {
		e[i].buf = gaze_alloc(GAZE_BLOCK_SIZE);
		if (e[i].buf &&
		    fs->dev->ops->read(fs->dev, e[i].addr, 1, e[i].buf)) {
			gaze_free(e[i].buf);
			e[i].buf = NULL;
		}
	}
	mutex_lock(&fs->lock);
	for (i = 0; i < ARRAY_SIZE(fs->staged); i++) {
		st = &fs->staged[i];
		gaze_free(st->buf);
		st->buf = NULL;
		if (i < n && e[i].buf && e[i].reset_seq == fs->reset_seq)
			*st = e[i];
		else if (i < n)
			gaze_free(e[i].buf);
	}
	mutex_unlock(&fs->lock);
}

/*
 * Holes among file blocks [from, to) as the cached map shows them; under
 * a node that is not in the cache, blocks below eof (the last one the
 * inode's size covers) count as mapped, those past it as holes.
 */
static int
dirty_holes(struct gaze_fs *fs, struct gaze_mbuf *imb, u64 from, u64 to,
	    u64 eof, u64 *holes)
{
	u64 mid = clamp(eof, from, to), mapped, unknown;
	int err = 0;

	if (from < mid) {
		err = gaze_bmap_range_cached(fs, imb, from, mid, &mapped,
					     &unknown);
		*holes += mid - from - mapped - unknown;
	}
	if (!err && mid < to) {
		err = gaze_bmap_range_cached(fs, imb, mid, to, &mapped,
					     &unknown);
		*holes += to - mid - mapped;
	}
	return err;
}

static int
ns_dirty_blocks(struct gaze_fs *fs, struct gaze_miss *m, u32 ino,
		const u64 *runs, u32 nruns, u64 size, u64 *blocks, u64 *holes)
{
	struct gaze_inode *in;
	struct gaze_mbuf *imb;
	u64 eof;
	bool inl;
	u32 i;
	int err;

	*blocks = 0;
	*holes = 0;
	err = ns_enter_map(fs, m, ino, &imb);
	if (!imb)
		return err;
	in = imb->data;
	*blocks = le64_to_cpu(in->blocks);
	eof = (le64_to_cpu(in->size) + GAZE_BLOCK_SIZE - 1) >> GAZE_BLOCK_SHIFT;
	inl = err == -ENODATA;
	err = 0;
	for (i = 0; i < nruns && !err; i++) {
		/* an inline file stays inline while it fits */
		if (inl && size <= GAZE_INLINE_SIZE)
			break;
		if (inl)
			*holes += runs[2 * i + 1];
		else
			err = dirty_holes(fs, imb, runs[2 * i],
					  runs[2 * i] + runs[2 * i + 1], eof,
					  holes);
	}
	return gaze_ns_leave(fs, imb, false, err);
}

int
gaze_file_dirty_blocks(struct gaze_fs *fs, u32 ino, const u64 *runs,
		       u32 nruns, u64 size, u64 *blocks, u64 *holes)
{
	int err;

	GAZE_MISS_RUN(fs, m, err, ns_dirty_blocks(fs, &m, ino, runs, nruns,
						  size, blocks, holes));
	return err;
}

static int
ns_map_cluster(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, u64 fblk,
	       u64 *addrs, u32 *n, u32 *nvalid)
{
	struct gaze_mbuf *imb;
	int err;

	err = ns_enter_map(fs, m, ino, &imb);
	if (!imb)
		return err;
	if (!err)
		err = gaze_cluster_map(fs, imb, fblk, addrs, n, nvalid);
	return gaze_ns_leave(fs, imb, false, err);
}

int
gaze_file_map_cluster(struct gaze_fs *fs, u32 ino, u64 fblk, u64 *addrs,
		      u32 *n, u32 *nvalid)
{
	int err;

	GAZE_MISS_RUN(fs, m, err,
		      ns_map_cluster(fs, &m, ino, fblk, addrs, n, nvalid));
	return err;
}

static int
ns_cluster_slots(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, u64 first,
		 u32 nblk, u64 *slots, u64 *seq)
{
	struct gaze_mbuf *imb;
	int err;

	err = ns_enter_map(fs, m, ino, &imb);
	if (!imb)
		return err;
	if (!err)
		err = gaze_cluster_slots(fs, imb, first, nblk, slots);
	*seq = fs->reset_seq;
	return gaze_ns_leave(fs, imb, false, err);
}

int
gaze_file_cluster_slots(struct gaze_fs *fs, u32 ino, u64 first, u32 nblk,
			u64 *slots, u64 *seq)
{
	int err;

	GAZE_MISS_RUN(fs, m, err, ns_cluster_slots(fs, &m, ino, first, nblk,
						   slots, seq));
	return err;
}

static int
ns_cluster_room(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, u64 fblk,
		u32 *room)
{
	struct gaze_mbuf *imb;
	int err;

	*room = 0;
	err = ns_enter_map(fs, m, ino, &imb);
	if (!imb)
		return err;
	err = gaze_cluster_room(fs, imb, fblk, err == -ENODATA, room);
	return gaze_ns_leave(fs, imb, false, err);
}

int
gaze_file_cluster_room(struct gaze_fs *fs, u32 ino, u64 fblk, u32 *room)
{
	int err;

	GAZE_MISS_RUN(fs, m, err, ns_cluster_room(fs, &m, ino, fblk, room));
	return err;
}

int
gaze_file_truncate(struct gaze_fs *fs, u32 ino, u64 size)
{
	return gaze_file_truncate_trim(fs, ino, size, false);
}

int
gaze_file_truncate_trim(struct gaze_fs *fs, u32 ino, u64 size, bool trim)
{
	struct gaze_mbuf *imb;
	struct gaze_inode *in;
	u64 old, blocks;
	int err;

	err = ns_enter_get(fs, ino, true, ns_get_file, &imb);
	if (err)
		return err;
	in = imb->data;
	old = le64_to_cpu(in->size);
	blocks = le64_to_cpu(in->blocks);
	err = gaze_inode_truncate_trim(fs, imb, size, trim);
	/* times change with the size or the blocks (not for the same size) */
	if (!err && (size != old || blocks != le64_to_cpu(in->blocks)))
		gaze_inode_touch(fs, imb, true);
	return gaze_ns_leave(fs, imb, true, err);
}

int
gaze_file_fallocate(struct gaze_fs *fs, u32 ino, u32 mode, u64 off, u64 len)
{
	struct gaze_mbuf *imb;
	u64 size, blocks;
	struct gaze_inode *in;
	int err;

	err = ns_enter_get(fs, ino, true, ns_get_file, &imb);
	if (err)
		return err;
	in = imb->data;
	size = le64_to_cpu(in->size);
	blocks = le64_to_cpu(in->blocks);
	err = gaze_inode_fallocate(fs, imb, mode, off, len);
	if (!err && (size != le64_to_cpu(in->size) ||
		     blocks != le64_to_cpu(in->blocks) ||
		     (mode & (GAZE_FALLOC_PUNCH_HOLE | GAZE_FALLOC_ZERO_RANGE |
			      GAZE_FALLOC_COLLAPSE_RANGE |
			      GAZE_FALLOC_INSERT_RANGE))))
		gaze_inode_touch(fs, imb, true);
	return gaze_ns_leave(fs, imb, true, err);
}

int
gaze_ns_set_compress(struct gaze_fs *fs, u32 ino, u8 algo, u8 level)
{
	struct gaze_mbuf *imb;
	int err;

	err = gaze_ns_enter(fs, ino, true, &imb);
	if (err)
		return err;
	err = gaze_cluster_set_prop(fs, imb, algo, level);
	if (!err)
		gaze_inode_touch(fs, imb, false);
	return gaze_ns_leave(fs, imb, true, err);
}

static int
ns_file_bmap(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, u64 fblk,
	     u64 *addr)
{
	struct gaze_mbuf *imb;
	int err;

	*addr = GAZE_NULL_ADDR;
	err = ns_enter_ro(fs, m, ino, gaze_inode_get, &imb);
	if (err)
		return err;
	if (!(le32_to_cpu(((struct gaze_inode *)imb->data)->flags) &
	      (GAZE_IF_INLINE_DATA | GAZE_IF_INLINE_DENTRY)))
		err = gaze_bmap_lookup(fs, imb, fblk, addr);
	return gaze_ns_leave(fs, imb, false, err);
}

int
gaze_file_bmap(struct gaze_fs *fs, u32 ino, u64 fblk, u64 *addr)
{
	int err;

	GAZE_MISS_RUN(fs, m, err, ns_file_bmap(fs, &m, ino, fblk, addr));
	return err;
}

static int
ns_readlink(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, char *buf,
	    u32 buflen)
{
	struct gaze_mbuf *imb;
	struct gaze_inode *in;
	u64 size;
	s64 n;
	int err;

	err = ns_enter_ro(fs, m, ino, gaze_inode_get, &imb);
	if (err)
		return err;
	in = imb->data;
	size = le64_to_cpu(in->size);
	if (!GAZE_S_ISLNK(le16_to_cpu(in->mode))) {
		err = -EINVAL;
	} else if (size > GAZE_SYMLINK_MAX) {
		err = -EFSCORRUPTED;
	} else {
		n = gaze_inode_read(fs, imb, buf, min_t(u64, size, buflen), 0);
		err = (int)n;
	}
	return gaze_ns_leave(fs, imb, false, err);
}

int
gaze_ns_readlink(struct gaze_fs *fs, u32 ino, char *buf, u32 buflen)
{
	int err;

	GAZE_MISS_RUN(fs, m, err, ns_readlink(fs, &m, ino, buf, buflen));
	return err;
}

/*
 * 0 if directory dir is not ino and not below it, -EINVAL if it is:
 * walks '..' from dir up to the root.
 */
static int
ns_check_ancestor(struct gaze_fs *fs, u32 dir, u32 ino)
{
	u32 max = le32_to_cpu(fs->sb.max_nid), steps, parent;
	struct gaze_mbuf *mb;
	int err;

	for (steps = 0; steps < max; steps++) {
		if (dir == ino)
			return -EINVAL;
		if (dir == GAZE_ROOT_INO)
			return 0;
		err = ns_get_named(fs, dir, &mb);
		if (err)
			return err;
		parent = le32_to_cpu(((struct gaze_inode *)mb->data)->parent);
		gaze_mbuf_put(fs, mb);
		if (parent == dir)
			return -EFSCORRUPTED;
		dir = parent;
	}
	gaze_err("directory %u: '..' chain does not reach the root", dir);
	return -EFSCORRUPTED;
}

static u32
ns_mode(struct gaze_mbuf *imb)
{
	return le16_to_cpu(((struct gaze_inode *)imb->data)->mode);
}

static void
ns_parent_set(struct gaze_fs *fs, struct gaze_mbuf *imb, u32 parent)
{
	((struct gaze_inode *)imb->data)->parent = cpu_to_le32(parent);
	/* an fsync of it alone cannot replay this (fs.c) */
	imb->rf_seq = fs->rf_epoch;
	gaze_mbuf_dirty(fs, imb);
}

/*
 * What a rename in one state needs: both dirs and both inodes, refs held;
 * the whiteout (wimb, RENAME_WHITEOUT) that takes oname's place, ref held.
 */
struct ns_rename {
	u32			odir, ndir, oino, nino;
	struct gaze_mbuf	*odmb, *ndmb, *oimb, *nimb, *wimb;
	bool			odir_is, ndir_is, in_use;
	struct gaze_ns_out	*out;		/* or NULL */
};

/* swaps two existing names (RENAME_EXCHANGE) */
static int
ns_rename_exchange(struct gaze_fs *fs, struct ns_rename *r, const char *oname,
		   u32 olen, const char *nname, u32 nlen)
{
	int err;

	if (r->odir != r->ndir) {
		if (r->odir_is) {
			err = ns_check_ancestor(fs, r->ndir, r->oino);
			if (err)
				return err;
		}
		if (r->ndir_is) {
			err = ns_check_ancestor(fs, r->odir, r->nino);
			if (err)
				return err;
		}
	}
	/* in-place pointer changes: neither can fail for lack of space */
	err = gaze_dir_set(fs, r->odmb, oname, olen, r->nino,
			   GAZE_MODE_DTYPE(ns_mode(r->nimb)));
	if (err)
		return err;
	err = gaze_dir_set(fs, r->ndmb, nname, nlen, r->oino,
			   GAZE_MODE_DTYPE(ns_mode(r->oimb)));
	if (err) {
		gaze_dir_set(fs, r->odmb, oname, olen, r->oino,
			     GAZE_MODE_DTYPE(ns_mode(r->oimb)));
		return err;
	}
	if (r->odir != r->ndir) {
		ns_parent_set(fs, r->oimb, r->ndir);
		ns_parent_set(fs, r->nimb, r->odir);
		if (r->odir_is && !r->ndir_is) {
			ns_nlink_add(fs, r->odmb, -1);
			ns_nlink_add(fs, r->ndmb, 1);
		} else if (!r->odir_is && r->ndir_is) {
			ns_nlink_add(fs, r->ndmb, -1);
			ns_nlink_add(fs, r->odmb, 1);
		}
	}
	gaze_inode_touch(fs, r->oimb, false);
	gaze_inode_touch(fs, r->nimb, false);
	return 0;
}

/* moves oname to nname, replacing an existing nname (r->nimb) */
static int
ns_rename_move(struct gaze_fs *fs, struct ns_rename *r, const char *oname,
	       u32 olen, const char *nname, u32 nlen)
{
	u8 dtype = GAZE_MODE_DTYPE(ns_mode(r->oimb));
	struct gaze_inode *tin;
	int err;

	if (r->nimb) {
		tin = r->nimb->data;
		if (r->odir_is && !r->ndir_is)
			return -ENOTDIR;
		if (!r->odir_is && r->ndir_is)
			return -EISDIR;
		if (r->ndir_is && le32_to_cpu(tin->dir_nentries))
			return -ENOTEMPTY;
	}
	if (r->odir_is && r->odir != r->ndir) {
		err = ns_check_ancestor(fs, r->ndir, r->oino);
		if (err)
			return err;
	}
	if (r->nimb)
		err = gaze_dir_set(fs, r->ndmb, nname, nlen, r->oino, dtype);
	else
		err = gaze_dir_add(fs, r->ndmb, nname, nlen, r->oino, dtype);
	if (err)
		return err;
	if (r->wimb)		/* in place: cannot fail for lack of space */
		err = gaze_dir_set(fs, r->odmb, oname, olen, r->wimb->id,
				   GAZE_MODE_DTYPE(GAZE_S_IFCHR));
	else
		err = gaze_dir_remove(fs, r->odmb, oname, olen);
	if (err) {
		/* undo; both are in-memory changes of cached blocks */
		if (r->nimb)
			gaze_dir_set(fs, r->ndmb, nname, nlen, r->nino,
				     GAZE_MODE_DTYPE(ns_mode(r->nimb)));
		else
			gaze_dir_remove(fs, r->ndmb, nname, nlen);
		return err;
	}
	if (r->odir != r->ndir) {
		ns_parent_set(fs, r->oimb, r->ndir);
		if (r->odir_is) {
			ns_nlink_add(fs, r->odmb, -1);
			ns_nlink_add(fs, r->ndmb, 1);
		}
	}
	gaze_inode_touch(fs, r->oimb, false);
	if (!r->nimb)
		return 0;
	/* the replaced inode */
	tin = r->nimb->data;
	if (r->ndir_is) {
		ns_nlink_add(fs, r->ndmb, -1);
		tin->nlink = 0;
	} else if (tin->nlink) {
		ns_nlink_add(fs, r->nimb, -1);
	}
	gaze_inode_touch(fs, r->nimb, false);
	err = ns_out_drop(fs, r->nimb, r->in_use, r->out, GAZE_OUT_NINODE);
	r->nimb = NULL;
	return err;
}

/*
 * The whiteout of RENAME_WHITEOUT: a character device 0:0, mode 0, owned
 * like the moved inode, not yet linked (nlink 1 for the name it gets).
 */
static int
ns_whiteout_new(struct gaze_fs *fs, struct ns_rename *r)
{
	const struct gaze_inode *oin = r->oimb->data;
	struct gaze_attr wa = { 0 };
	s64 sec;
	u32 nsec;

	gaze_wallclock(&sec, &nsec);
	wa.mode = GAZE_S_IFCHR;
	wa.uid = le32_to_cpu(oin->uid);
	wa.gid = le32_to_cpu(oin->gid);
	wa.nlink = 1;
	wa.atime = wa.mtime = wa.ctime = wa.crtime = sec;
	wa.atime_nsec = wa.mtime_nsec = wa.ctime_nsec = wa.crtime_nsec = nsec;
	return gaze_inode_create(fs, 0, &wa, r->odir, &r->wimb);
}

static int
ns_rename(struct gaze_fs *fs, struct ns_rename *r, const char *oname,
	  u32 olen, const char *nname, u32 nlen, u32 flags)
{
	struct gaze_mbuf *mb;
	int err;

	/* ns_get_dir leaves its pointer set on -ENOTDIR: use a local */
	err = ns_get_dir(fs, r->odir, &mb);
	if (err)
		return err;
	r->odmb = mb;
	err = ns_get_dir(fs, r->ndir, &mb);
	if (err)
		return err;
	r->ndmb = mb;
	err = gaze_dir_lookup(fs, r->odmb, oname, olen, &r->oino, NULL);
	if (err)
		return err;
	err = gaze_dir_lookup(fs, r->ndmb, nname, nlen, &r->nino, NULL);
	if (err == -ENOENT) {
		r->nino = 0;
		if (flags & GAZE_RENAME_EXCHANGE)
			return -ENOENT;
	} else if (err) {
		return err;
	} else if (flags & GAZE_RENAME_NOREPLACE) {
		return -EEXIST;
	}
	err = ns_get_named(fs, r->oino, &r->oimb);
	if (err)
		return err;
	r->odir_is = GAZE_S_ISDIR(ns_mode(r->oimb));
	if (r->nino == r->oino)
		return 0;	/* same inode (or same name): nothing to do */
	if (r->nino) {
		err = ns_get_named(fs, r->nino, &r->nimb);
		if (err)
			return err;
		r->ndir_is = GAZE_S_ISDIR(ns_mode(r->nimb));
	}
	if (flags & GAZE_RENAME_WHITEOUT) {
		err = ns_whiteout_new(fs, r);
		if (err)
			return err;
	}
	if (flags & GAZE_RENAME_EXCHANGE)
		err = ns_rename_exchange(fs, r, oname, olen, nname, nlen);
	else
		err = ns_rename_move(fs, r, oname, olen, nname, nlen);
	if (err) {
		if (r->wimb) {
			gaze_inode_evict(fs, r->wimb);
			r->wimb = NULL;
		}
		return err;
	}
	gaze_inode_touch(fs, r->odmb, true);
	if (r->ndmb != r->odmb)
		gaze_inode_touch(fs, r->ndmb, true);
	ns_out_set(r->out, GAZE_OUT_DIR, r->odmb);
	ns_out_set(r->out, GAZE_OUT_NDIR, r->ndmb);
	ns_out_set(r->out, GAZE_OUT_INODE, r->oimb);
	if (r->nimb)		/* exchanged; a replaced one is in out already */
		ns_out_set(r->out, GAZE_OUT_NINODE, r->nimb);
	return 0;
}

int
gaze_ns_rename(struct gaze_fs *fs, u32 olddir, const char *oname, u32 olen,
	       u32 newdir, const char *nname, u32 nlen, u32 flags,
	       struct gaze_ns_out *out)
{
	struct ns_rename r = { .odir = olddir, .ndir = newdir,
			       .in_use = flags & GAZE_RENAME_IN_USE,
			       .out = out };
	int err;

	if (out)
		memset(out, 0, sizeof(*out));
	if (flags & ~(GAZE_RENAME_NOREPLACE | GAZE_RENAME_EXCHANGE |
		      GAZE_RENAME_WHITEOUT | GAZE_RENAME_IN_USE))
		return -EINVAL;
	if ((flags & GAZE_RENAME_EXCHANGE) &&
	    (flags & (GAZE_RENAME_NOREPLACE | GAZE_RENAME_WHITEOUT)))
		return -EINVAL;
	err = gaze_name_check(oname, olen);
	if (!err)
		err = gaze_name_check(nname, nlen);
	if (err)
		return err;
	mutex_lock(&fs->lock);
	if (fs->flags & GAZE_FS_RDONLY)
		err = -EROFS;
	else
		err = ns_rename(fs, &r, oname, olen, nname, nlen, flags);
	if (r.wimb)
		gaze_mbuf_put(fs, r.wimb);
	if (r.nimb)
		gaze_mbuf_put(fs, r.nimb);
	if (r.oimb)
		gaze_mbuf_put(fs, r.oimb);
	if (r.ndmb)
		gaze_mbuf_put(fs, r.ndmb);
	return gaze_ns_leave(fs, r.odmb, true, err);
}
