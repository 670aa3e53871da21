// SPDX-License-Identifier: GPL-2.0
/*
 * xattr.c - extended attribute handlers: "user.", "trusted." and
 * "security." names, stored by the core under their full names
 * (gaze_xattr_get/set/remove/list).  XATTR_CREATE / XATTR_REPLACE pass
 * through; a NULL value removes.
 *
 * Not yet: POSIX ACLs (system.posix_acl_access/default).  Without a
 * handler for them the VFS answers -EOPNOTSUPP, which is honest: storing
 * the raw value without enforcing it would not be.
 */
#include <linux/fs.h>
#include <linux/xattr.h>
#include <linux/slab.h>
#include <linux/capability.h>
#include "gaze_kern.h"

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
			    struct user_namespace *mnt_userns,
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
	inode->i_ctime = current_time(inode);
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
		if (strncmp(name, h->prefix, strlen(h->prefix)))
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
