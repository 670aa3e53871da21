// SPDX-License-Identifier: GPL-2.0
/*
 * xattr.c - extended attributes.
 *
 * Why: SELinux labels, POSIX ACLs and user attributes are read on almost
 * every file access, so the common small ones live inside the inode
 * (i_xattr, GAZE_INLINE_XATTR_SIZE bytes) and cost no extra block read;
 * the rest spill into one xattr node (inode.xattr_nid).  Names are stored
 * as a namespace index plus suffix so the common prefixes take one byte.
 *
 * Entry format (gaze_format.h): u8 index, u8 name_len, le16 value_len,
 * name, value, zero padding to 4 bytes; entries back to back, the used
 * length kept beside the region.  Entries are unordered; a name appears
 * at most once across both regions.  A set that does not fit leaves the
 * old value in place and returns -ENOSPC.  The xattr node is freed when
 * its last entry goes, and with the inode.
 *
 * Entry points take fs->lock; gaze_xattr_drop expects it held.
 */
#include "gaze_core.h"

#define XATTR_CREATE_FL		1
#define XATTR_REPLACE_FL	2
#define XATTR_BLOCK_SPACE	(GAZE_BODY_SIZE - 8)

static const struct {
	const char	*prefix;
	u8		index;
	bool		whole;	/* prefix is the whole name */
} xattr_ns[] = {
	{ "user.", GAZE_XATTR_USER, false },
	{ "trusted.", GAZE_XATTR_TRUSTED, false },
	{ "security.", GAZE_XATTR_SECURITY, false },
	{ "system.posix_acl_access", GAZE_XATTR_ACL_ACCESS, true },
	{ "system.posix_acl_default", GAZE_XATTR_ACL_DEFAULT, true },
};

struct xname {
	u8		index;
	const char	*suffix;
	u32		len;
};

static int
xattr_parse_name(const char *name, struct xname *x)
{
	size_t full, plen;
	u32 i;

	if (!name)
		return -EINVAL;
	full = strlen(name);
	if (full > GAZE_NAME_MAX)
		return -ERANGE;
	if (!full)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(xattr_ns); i++) {
		plen = strlen(xattr_ns[i].prefix);
		if (xattr_ns[i].whole) {
			if (strcmp(name, xattr_ns[i].prefix))
				continue;
		} else if (strncmp(name, xattr_ns[i].prefix, plen)) {
			continue;
		} else if (full == plen) {
			return -EINVAL;
		}
		x->index = xattr_ns[i].index;
		x->suffix = name + plen;
		x->len = (u32)(full - plen);
		return 0;
	}
	return -EOPNOTSUPP;
}

static u32
xentry_size(u32 nl, u32 vl)
{
	return ALIGN((u32)sizeof(struct gaze_xattr_entry) + nl + vl, 4u);
}

/* a region: inline area or xattr block body */
struct xregion {
	u8	*base;
	u32	used;
	u32	cap;
};

static int
xentry_at(const struct xregion *r, u32 off, struct gaze_xattr_entry **ep,
	  u32 *szp)
{
	struct gaze_xattr_entry *e;
	u32 sz;

	if (off + sizeof(*e) > r->used)
		return -EFSCORRUPTED;
	e = (struct gaze_xattr_entry *)(r->base + off);
	sz = xentry_size(e->name_len, le16_to_cpu(e->value_len));
	if (off + sz > r->used || !e->index || e->index > GAZE_XATTR_INDEX_MAX)
		return -EFSCORRUPTED;
	*ep = e;
	*szp = sz;
	return 0;
}

/* size of the (already checked) entry at off */
static u32
xentry_len_at(const struct xregion *r, u32 off)
{
	const struct gaze_xattr_entry *e = (const void *)(r->base + off);

	return xentry_size(e->name_len, le16_to_cpu(e->value_len));
}

/* 0 and *offp, -ENODATA, or -EFSCORRUPTED */
static int
xregion_find(const struct xregion *r, const struct xname *x, u32 *offp)
{
	struct gaze_xattr_entry *e;
	u32 off, sz;
	int err;

	for (off = 0; off < r->used; off += sz) {
		err = xentry_at(r, off, &e, &sz);
		if (err)
			return err;
		if (e->index == x->index && e->name_len == x->len &&
		    !memcmp(e + 1, x->suffix, x->len)) {
			*offp = off;
			return 0;
		}
	}
	return -ENODATA;
}

static void
xregion_remove(struct xregion *r, u32 off)
{
	struct gaze_xattr_entry *e = (void *)(r->base + off);
	u32 sz = xentry_size(e->name_len, le16_to_cpu(e->value_len));

	memmove(r->base + off, r->base + off + sz, r->used - off - sz);
	memset(r->base + r->used - sz, 0, sz);
	r->used -= sz;
}

static void
xregion_append(struct xregion *r, const struct xname *x, const void *val,
	       u32 len)
{
	struct gaze_xattr_entry *e = (void *)(r->base + r->used);
	u32 sz = xentry_size(x->len, len);

	memset(e, 0, sz);
	e->index = x->index;
	e->name_len = (u8)x->len;
	e->value_len = cpu_to_le16((u16)len);
	memcpy(e + 1, x->suffix, x->len);
	if (len)
		memcpy((u8 *)(e + 1) + x->len, val, len);
	r->used += sz;
}

static void
xregion_inline(struct gaze_inode *in, struct xregion *r)
{
	r->base = in->i_xattr;
	r->used = min_t(u32, le16_to_cpu(in->inline_xattr_used),
			GAZE_INLINE_XATTR_SIZE);
	r->cap = GAZE_INLINE_XATTR_SIZE;
}

static void
xregion_block(struct gaze_mbuf *xmb, struct xregion *r)
{
	struct gaze_xattr_block *xb = xmb->data;

	r->base = xb->body;
	r->used = min_t(u32, le32_to_cpu(xb->used), XATTR_BLOCK_SPACE);
	r->cap = XATTR_BLOCK_SPACE;
}

static void
xregion_store(struct gaze_fs *fs, struct gaze_mbuf *imb,
	      struct gaze_mbuf *xmb, const struct xregion *r)
{
	if (xmb) {
		((struct gaze_xattr_block *)xmb->data)->used =
			cpu_to_le32(r->used);
		gaze_mbuf_dirty(fs, xmb);
	} else {
		((struct gaze_inode *)imb->data)->inline_xattr_used =
			cpu_to_le16((u16)r->used);
		gaze_mbuf_dirty(fs, imb);
	}
}

/* the inode's xattr node, or NULL */
static int
xattr_block_get(struct gaze_fs *fs, struct gaze_mbuf *imb,
		struct gaze_mbuf **xmbp)
{
	u32 nid = le32_to_cpu(((struct gaze_inode *)imb->data)->xattr_nid);
	struct gaze_xattr_block *xb;
	int err;

	*xmbp = NULL;
	if (!nid)
		return 0;
	err = gaze_node_get_ref(fs, nid, GAZE_MAGIC_XATTR, xmbp);
	if (err)
		return err;
	xb = (*xmbp)->data;
	if (le32_to_cpu(xb->hdr.ino) != imb->id ||
	    le32_to_cpu(xb->used) > XATTR_BLOCK_SPACE) {
		gaze_mbuf_put(fs, *xmbp);
		*xmbp = NULL;
		return -EFSCORRUPTED;
	}
	return 0;
}

static int
xattr_block_free(struct gaze_fs *fs, struct gaze_mbuf *imb,
		 struct gaze_mbuf *xmb)
{
	struct gaze_inode *in = imb->data;

	in->xattr_nid = 0;
	in->blocks = cpu_to_le64(le64_to_cpu(in->blocks) - 1);
	gaze_mbuf_dirty(fs, imb);
	return gaze_ns_node_free(fs, xmb);
}

/* frees the xattr node once its region rb is empty; consumes *xmbp then */
static int
xattr_block_trim(struct gaze_fs *fs, struct gaze_mbuf *imb,
		 struct gaze_mbuf **xmbp, const struct xregion *rb)
{
	int err;

	if (!*xmbp || rb->used)
		return 0;
	err = xattr_block_free(fs, imb, *xmbp);
	*xmbp = NULL;
	return err;
}

int
gaze_xattr_drop(struct gaze_fs *fs, struct gaze_mbuf *imb)
{
	struct gaze_mbuf *xmb;
	int err;

	err = xattr_block_get(fs, imb, &xmb);
	if (err || !xmb)
		return err;
	return xattr_block_free(fs, imb, xmb);
}

int
gaze_xattr_set(struct gaze_fs *fs, u32 ino, const char *name,
	       const void *val, u32 len, int flags)
{
	struct gaze_mbuf *imb, *xmb = NULL, *new_xmb = NULL;
	struct xregion ri, rb = { NULL, 0, XATTR_BLOCK_SPACE }, *target;
	struct gaze_inode *in;
	bool in_inline = false, in_block = false;
	u32 off_i = 0, off_b = 0, need, nid, ifree, bfree;
	struct xname x;
	int err;

	err = xattr_parse_name(name, &x);
	if (err)
		return err;
	if (flags & ~(XATTR_CREATE_FL | XATTR_REPLACE_FL))
		return -EINVAL;
	if (len && !val)
		return -EINVAL;
	need = xentry_size(x.len, len);
	if (len > 0xffff || need > XATTR_BLOCK_SPACE)
		return -ENOSPC;
	err = gaze_ns_enter(fs, ino, true, &imb);
	if (err)
		return err;
	in = imb->data;
	xregion_inline(in, &ri);
	err = xregion_find(&ri, &x, &off_i);
	if (!err)
		in_inline = true;
	else if (err != -ENODATA)
		goto out_inode;
	err = xattr_block_get(fs, imb, &xmb);
	if (err)
		goto out_inode;
	if (xmb) {
		xregion_block(xmb, &rb);
		if (!in_inline) {
			err = xregion_find(&rb, &x, &off_b);
			if (!err)
				in_block = true;
			else if (err != -ENODATA)
				goto out_xmb;
		}
	}
	err = 0;
	if ((flags & XATTR_CREATE_FL) && (in_inline || in_block)) {
		err = -EEXIST;
		goto out_xmb;
	}
	if ((flags & XATTR_REPLACE_FL) && !in_inline && !in_block) {
		err = -ENODATA;
		goto out_xmb;
	}

	/* decide where the new entry goes before touching anything */
	ifree = ri.cap - ri.used;
	if (in_inline)
		ifree += xentry_len_at(&ri, off_i);
	bfree = rb.cap - rb.used;
	if (in_block)
		bfree += xentry_len_at(&rb, off_b);
	if (need <= ifree) {
		target = &ri;
	} else if (need <= bfree) {
		target = &rb;
	} else {
		err = -ENOSPC;
		goto out_xmb;
	}
	if (target == &rb && !xmb) {
		err = gaze_nid_alloc(fs, &nid);
		if (err)
			goto out_xmb;
		err = gaze_node_new(fs, nid, ino, GAZE_MAGIC_XATTR, 0,
				    &new_xmb);
		if (err) {
			gaze_nid_free(fs, nid);
			goto out_xmb;
		}
		xmb = new_xmb;
		xregion_block(xmb, &rb);
		in->xattr_nid = cpu_to_le32(nid);
		in->blocks = cpu_to_le64(le64_to_cpu(in->blocks) + 1);
	}

	if (in_inline) {
		xregion_remove(&ri, off_i);
		xregion_store(fs, imb, NULL, &ri);
	}
	if (in_block) {
		xregion_remove(&rb, off_b);
		xregion_store(fs, imb, xmb, &rb);
	}
	xregion_append(target, &x, val, len);
	xregion_store(fs, imb, target == &rb ? xmb : NULL, target);
	err = xattr_block_trim(fs, imb, &xmb, &rb);
	gaze_inode_touch(fs, imb, false);
out_xmb:
	if (xmb)
		gaze_mbuf_put(fs, xmb);
out_inode:
	return gaze_ns_leave(fs, imb, true, err);
}

/* finds the entry in either region; *xmbp holds the block if loaded */
static int
xattr_find(struct gaze_fs *fs, struct gaze_mbuf *imb, const struct xname *x,
	   struct gaze_mbuf **xmbp, struct xregion *r, u32 *offp)
{
	int err;

	*xmbp = NULL;
	xregion_inline(imb->data, r);
	err = xregion_find(r, x, offp);
	if (err != -ENODATA)
		return err;
	err = xattr_block_get(fs, imb, xmbp);
	if (err)
		return err;
	if (!*xmbp)
		return -ENODATA;
	xregion_block(*xmbp, r);
	return xregion_find(r, x, offp);
}

static int
xattr_do_get(struct gaze_fs *fs, struct gaze_miss *m, u32 ino,
	     const struct xname *x, void *buf, u32 size)
{
	struct gaze_xattr_entry *e;
	struct gaze_mbuf *imb, *xmb;
	struct xregion r;
	u32 off, vl;
	int err;

	err = gaze_ns_enter_ro(fs, m, ino, &imb);
	if (err)
		return err;
	err = xattr_find(fs, imb, x, &xmb, &r, &off);
	if (err)
		goto out_put;
	e = (struct gaze_xattr_entry *)(r.base + off);
	vl = le16_to_cpu(e->value_len);
	err = (int)vl;
	if (buf && size) {
		if (size < vl)
			err = -ERANGE;
		else
			memcpy(buf, (u8 *)(e + 1) + e->name_len, vl);
	}
out_put:
	if (xmb)
		gaze_mbuf_put(fs, xmb);
	return gaze_ns_leave(fs, imb, false, err);
}

int
gaze_xattr_get(struct gaze_fs *fs, u32 ino, const char *name, void *buf,
	       u32 size)
{
	struct xname x;
	int err;

	err = xattr_parse_name(name, &x);
	if (err)
		return err;
	GAZE_MISS_RUN(fs, m, err, xattr_do_get(fs, &m, ino, &x, buf, size));
	return err;
}

static const char *
xattr_prefix(u8 index)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(xattr_ns); i++)
		if (xattr_ns[i].index == index)
			return xattr_ns[i].prefix;
	return NULL;
}

/* appends the names of a region; returns bytes needed so far or error */
static int
xregion_list(const struct xregion *r, char *buf, u32 size, u32 *total)
{
	struct gaze_xattr_entry *e;
	const char *pfx;
	u32 off, sz, plen, n;
	int err;

	for (off = 0; off < r->used; off += sz) {
		err = xentry_at(r, off, &e, &sz);
		if (err)
			return err;
		pfx = xattr_prefix(e->index);
		plen = (u32)strlen(pfx);
		n = plen + e->name_len + 1;
		if (buf && size) {
			if (*total + n > size)
				return -ERANGE;
			memcpy(buf + *total, pfx, plen);
			memcpy(buf + *total + plen, e + 1, e->name_len);
			buf[*total + n - 1] = 0;
		}
		*total += n;
	}
	return 0;
}

static int
xattr_do_list(struct gaze_fs *fs, struct gaze_miss *m, u32 ino, char *buf,
	      u32 size)
{
	struct gaze_mbuf *imb, *xmb = NULL;
	struct xregion r;
	u32 total = 0;
	int err;

	err = gaze_ns_enter_ro(fs, m, ino, &imb);
	if (err)
		return err;
	xregion_inline(imb->data, &r);
	err = xregion_list(&r, buf, size, &total);
	if (err)
		goto out_put;
	err = xattr_block_get(fs, imb, &xmb);
	if (err)
		goto out_put;
	if (xmb) {
		xregion_block(xmb, &r);
		err = xregion_list(&r, buf, size, &total);
		gaze_mbuf_put(fs, xmb);
	}
out_put:
	err = gaze_ns_leave(fs, imb, false, err);
	return err ? err : (int)total;
}

int
gaze_xattr_list(struct gaze_fs *fs, u32 ino, char *buf, u32 size)
{
	int err;

	GAZE_MISS_RUN(fs, m, err, xattr_do_list(fs, &m, ino, buf, size));
	return err;
}

/* a metadata block's place on the device, 0 while it has unwritten changes */
static u64
xattr_block_place(const struct gaze_mbuf *mb)
{
	return mb->flags & GAZE_MBF_DIRTY ? 0 : mb->blkaddr;
}

int
gaze_xattr_place(struct gaze_fs *fs, u32 ino, struct gaze_xattr_place *p)
{
	struct gaze_mbuf *imb, *xmb = NULL;
	int err;

	memset(p, 0, sizeof(*p));
	err = gaze_ns_enter(fs, ino, false, &imb);
	if (err)
		return err;
	p->inline_used = le16_to_cpu(((struct gaze_inode *)imb->data)->
				     inline_xattr_used);
	p->inode_addr = xattr_block_place(imb);
	err = xattr_block_get(fs, imb, &xmb);
	if (!err && xmb) {
		p->node = true;
		p->node_addr = xattr_block_place(xmb);
		gaze_mbuf_put(fs, xmb);
	}
	return gaze_ns_leave(fs, imb, false, err);
}

int
gaze_xattr_remove(struct gaze_fs *fs, u32 ino, const char *name)
{
	struct gaze_mbuf *imb, *xmb;
	struct xregion r;
	struct xname x;
	u32 off;
	int err;

	err = xattr_parse_name(name, &x);
	if (err)
		return err;
	err = gaze_ns_enter(fs, ino, true, &imb);
	if (err)
		return err;
	err = xattr_find(fs, imb, &x, &xmb, &r, &off);
	if (err)
		goto out_put;
	/* xattr_find loads the block only when the entry is not inline */
	xregion_remove(&r, off);
	xregion_store(fs, imb, xmb, &r);
	err = xattr_block_trim(fs, imb, &xmb, &r);
	gaze_inode_touch(fs, imb, false);
out_put:
	if (xmb)
		gaze_mbuf_put(fs, xmb);
	return gaze_ns_leave(fs, imb, true, err);
}
