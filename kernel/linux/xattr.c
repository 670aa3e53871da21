// SPDX-License-Identifier: GPL-2.0
/*
 * xattr.c - extended attribute handlers: "user.", "trusted." and
 * "security." names, stored by the core under their full names
 * (gaze_xattr_get/set/remove/list).  XATTR_CREATE / XATTR_REPLACE pass
 * through; a NULL value removes.
 *
 * POSIX ACLs: get_acl / set_acl inode operations under the VFS's own
 * system.posix_acl_access/default handlers.  The core stores each ACL as
 * an xattr of that full name holding the VFS xattr form (struct
 * posix_acl_xattr_header + entries, ids in the initial user namespace),
 * so tools reading the raw xattr see the usual format.  The VFS caches
 * the parsed ACL on the inode and enforces it (generic_permission).
 * New inodes inherit the directory's default ACL (gaze_acl_prepare /
 * gaze_acl_init, called by namei.c); chmod rewrites the access ACL
 * (posix_acl_chmod, from gaze_setattr).  Mount option noacl turns all of
 * this off (SB_POSIXACL clear: the VFS refuses ACL xattrs and applies
 * the umask itself).
 */
#include <linux/fs.h>
#include <linux/xattr.h>
#include <linux/slab.h>
#include <linux/capability.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include "gaze_kern.h"

static const char *gaze_acl_name(int type)
{
	return type == ACL_TYPE_ACCESS ? XATTR_NAME_POSIX_ACL_ACCESS :
	       XATTR_NAME_POSIX_ACL_DEFAULT;
}

struct posix_acl *gaze_get_acl(struct inode *inode, int type, bool rcu)
{
	struct gaze_fs *fs = GAZE_FS(inode->i_sb);
	const char *name = gaze_acl_name(type);
	struct posix_acl *acl;
	unsigned int nofs;
	void *buf = NULL;
	int n;

	if (rcu)
		return ERR_PTR(-ECHILD);	/* the core sleeps */
	nofs = gaze_nofs_begin();
	n = gaze_xattr_get(fs, inode->i_ino, name, NULL, 0);
	if (n > 0) {
		buf = kmalloc(n, GFP_NOFS);
		n = buf ? gaze_xattr_get(fs, inode->i_ino, name, buf, n) :
		    -ENOMEM;
	}
	gaze_nofs_end(nofs);
	if (n == -ENODATA || !n)
		acl = NULL;
	else if (n < 0)
		acl = ERR_PTR(gaze_error(inode->i_sb, n, "reading an ACL"));
	else
		acl = posix_acl_from_xattr(&init_user_ns, buf, n);
	kfree(buf);
	return acl;
}

/* stores acl (NULL: removes it) as the xattr of its type; no cache */
static int gaze_acl_store(struct inode *inode, struct posix_acl *acl,
			  int type)
{
	struct gaze_fs *fs = GAZE_FS(inode->i_sb);
	const char *name = gaze_acl_name(type);
	unsigned int nofs;
	void *buf = NULL;
	int n = 0, ret;

	if (acl) {
		n = posix_acl_xattr_size(acl->a_count);
		buf = kmalloc(n, GFP_NOFS);
		if (!buf)
			return -ENOMEM;
		ret = posix_acl_to_xattr(&init_user_ns, acl, buf, n);
		if (ret < 0)
			goto out;
	}
	nofs = gaze_nofs_begin();
	if (acl)
		ret = gaze_xattr_set(fs, inode->i_ino, name, buf, n, 0);
	else
		ret = gaze_xattr_remove(fs, inode->i_ino, name);
	gaze_nofs_end(nofs);
	if (ret == -ENODATA && !acl)
		ret = 0;
out:
	kfree(buf);
	return ret ? gaze_error(inode->i_sb, ret, "storing an ACL") : 0;
}

int gaze_set_acl(gaze_idmap_t *idmap, gaze_acl_target_t *target,
		 struct posix_acl *acl, int type)
{
	struct inode *inode = gaze_acl_inode(target);
	umode_t mode = inode->i_mode;
	struct gaze_attr a = { 0 };
	unsigned int nofs;
	int ret;

	if (type == ACL_TYPE_ACCESS && acl) {
		ret = posix_acl_update_mode(idmap, inode, &mode, &acl);
		if (ret)
			return ret;
	}
	ret = gaze_acl_store(inode, acl, type);
	if (ret)
		return ret;
	set_cached_acl(inode, type, acl);
	gaze_set_ctime_current(inode);
	if (mode != inode->i_mode) {
		/* the ACL said it all: the mode carries only its bits */
		inode->i_mode = mode;
		a.mode = mode;
		gaze_inode_times_to_attr(inode, &a);
		nofs = gaze_nofs_begin();
		ret = gaze_ns_setattr(GAZE_FS(inode->i_sb), inode->i_ino, &a,
				      GAZE_SET_MODE | GAZE_SET_CTIME);
		gaze_nofs_end(nofs);
		if (ret)
			return gaze_error(inode->i_sb, ret, "setting the mode");
	}
	mark_inode_dirty(inode);
	return 0;
}

int gaze_acl_prepare(struct inode *dir, umode_t *mode,
		     struct posix_acl **dacl, struct posix_acl **acl)
{
	*dacl = NULL;
	*acl = NULL;
	return posix_acl_create(dir, mode, dacl, acl);
}

int gaze_acl_init(struct inode *inode, struct posix_acl *dacl,
		  struct posix_acl *acl)
{
	int ret = 0;

	if (dacl) {
		ret = gaze_acl_store(inode, dacl, ACL_TYPE_DEFAULT);
		if (!ret)
			set_cached_acl(inode, ACL_TYPE_DEFAULT, dacl);
	}
	if (acl && !ret) {
		ret = gaze_acl_store(inode, acl, ACL_TYPE_ACCESS);
		if (!ret)
			set_cached_acl(inode, ACL_TYPE_ACCESS, acl);
	}
	return ret;
}

static int gaze_xattr_get_h(const struct xattr_handler *handler,
			    struct dentry *unused, struct inode *inode,
			    const char *name, void *buffer, size_t size)
{
	unsigned int nofs;
	int ret;

	if (size > XATTR_SIZE_MAX)
		size = XATTR_SIZE_MAX;
	nofs = gaze_nofs_begin();
	ret = gaze_xattr_get(GAZE_FS(inode->i_sb), inode->i_ino,
			     xattr_full_name(handler, name), buffer, size);
	gaze_nofs_end(nofs);
	return ret < 0 ? gaze_error(inode->i_sb, ret, "getxattr") : ret;
}

static int gaze_xattr_set_h(const struct xattr_handler *handler,
			    gaze_idmap_t *idmap,
			    struct dentry *unused, struct inode *inode,
			    const char *name, const void *value, size_t size,
			    int flags)
{
	const char *full = xattr_full_name(handler, name);
	struct gaze_fs *fs = GAZE_FS(inode->i_sb);
	unsigned int nofs;
	int ret;

	if (value && size > XATTR_SIZE_MAX)
		return -E2BIG;
	nofs = gaze_nofs_begin();
	if (!value)
		ret = gaze_xattr_remove(fs, inode->i_ino, full);
	else
		ret = gaze_xattr_set(fs, inode->i_ino, full, value, size,
				     flags & (XATTR_CREATE | XATTR_REPLACE));
	gaze_nofs_end(nofs);
	if (ret)
		return gaze_error(inode->i_sb, ret, "setxattr");
	gaze_set_ctime_current(inode);
	mark_inode_dirty(inode);
	return 0;
}

static bool gaze_xattr_trusted_list(struct dentry *dentry)
{
	return capable(CAP_SYS_ADMIN);
}

static const struct xattr_handler gaze_xattr_user_handler = {
	.prefix	= XATTR_USER_PREFIX,
	.get	= gaze_xattr_get_h,
	.set	= gaze_xattr_set_h,
};

static const struct xattr_handler gaze_xattr_trusted_handler = {
	.prefix	= XATTR_TRUSTED_PREFIX,
	.list	= gaze_xattr_trusted_list,
	.get	= gaze_xattr_get_h,
	.set	= gaze_xattr_set_h,
};

static const struct xattr_handler gaze_xattr_security_handler = {
	.prefix	= XATTR_SECURITY_PREFIX,
	.get	= gaze_xattr_get_h,
	.set	= gaze_xattr_set_h,
};

const struct xattr_handler *gaze_xattr_handlers[] = {
	&gaze_xattr_acl_access,		/* names only (compat.h) */
	&gaze_xattr_acl_default,
	&gaze_xattr_user_handler,
	&gaze_xattr_trusted_handler,
	&gaze_xattr_security_handler,
	NULL,
};

/*
 * Whether name is listed to the caller: a known prefix, and trusted.
 * names only for CAP_SYS_ADMIN.
 */
static bool gaze_xattr_listable(struct dentry *dentry, const char *name)
{
	const struct xattr_handler *h;
	int i;

	for (i = 0; (h = gaze_xattr_handlers[i]); i++) {
		if (h->name ? strcmp(name, h->name) :
		    strncmp(name, h->prefix, strlen(h->prefix)))
			continue;
		return !h->list || h->list(dentry);
	}
	return false;
}

ssize_t gaze_listxattr(struct dentry *dentry, char *buffer, size_t size)
{
	struct inode *inode = d_inode(dentry);
	struct gaze_fs *fs = GAZE_FS(inode->i_sb);
	unsigned int nofs;
	ssize_t out = 0;
	char *list, *p;
	size_t len;
	int n, tries;

	for (tries = 0; ; tries++) {
		nofs = gaze_nofs_begin();
		n = gaze_xattr_list(fs, inode->i_ino, NULL, 0);
		gaze_nofs_end(nofs);
		if (n <= 0)
			return n ? gaze_error(inode->i_sb, n, "listxattr") : 0;
		list = kvmalloc(n, GFP_KERNEL);
		if (!list)
			return -ENOMEM;
		nofs = gaze_nofs_begin();
		n = gaze_xattr_list(fs, inode->i_ino, list, n);
		gaze_nofs_end(nofs);
		if (n != -ERANGE || tries >= 3)
			break;
		kvfree(list);		/* grew meanwhile */
	}
	if (n < 0) {
		kvfree(list);
		return gaze_error(inode->i_sb, n, "listxattr");
	}
	for (p = list; p < list + n; p += len + 1) {
		len = strnlen(p, list + n - p);
		if (!len || !gaze_xattr_listable(dentry, p))
			continue;
		if (buffer) {
			if ((size_t)out + len + 1 > size) {
				out = -ERANGE;
				break;
			}
			memcpy(buffer + out, p, len);
			buffer[out + len] = 0;
		}
		out += len + 1;
	}
	kvfree(list);
	return out;
}
