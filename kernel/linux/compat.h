/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one place where gaze.ko meets kernel API differences.
 *
 * The module is built from one source tree for the kernels Debian 12
 * ships: 6.1 (bookworm) and 6.12 (bookworm-backports / security).  Every
 * LINUX_VERSION_CODE test lives here, as a small inline wrapper or a
 * type, so the rest of kernel/linux/ reads as plain kernel code.  Each
 * test is at the upstream release that changed the interface; only 6.1
 * and 6.12 are built and tested (doc/design.md, "Kernels: 6.1 and 6.12").
 *
 *   gaze_idmap_t          struct mnt_idmap (6.3) / struct user_namespace
 *   gaze_acl_target_t     what ->set_acl names: a dentry (6.2) / an inode
 *   gaze_aop_page_t       what ->write_begin/end pass: a folio (6.12) /
 *                         a page
 *   GAZE_IOP_ACL          the ACL members of an inode_operations
 *   gaze_*time()          inode timestamps (accessors since 6.6 / 6.7)
 *   gaze_fillattr         generic_fillattr (request_mask since 6.6)
 *   gaze_posix_acl_chmod  posix_acl_chmod (a dentry since 6.2)
 *   gaze_xattr_acl_*      the ACL names in the xattr handler list
 *   gaze_get_folio        filemap_get_folio, NULL when absent (an
 *                         ERR_PTR since 6.3)
 *   gaze_splice_read      filemap_splice_read (6.5)
 *   gaze_write_cache_folios  write_cache_pages with a folio callback
 *   gaze_shrinker_*       shrinker_alloc/register/free (6.7)
 *   gaze_bdev_freeze/thaw bdev_freeze/bdev_thaw (6.8)
 *   gaze_remove_folio     generic_error_remove_folio (6.8)
 *   gaze_zone_mgmt        blkdev_zone_mgmt without a gfp mask (6.10)
 *   GAZE_ENCODE_FH        ->encode_fh, which exportfs calls without a
 *                         NULL check since 6.7
 *   gaze_wbc_account      wbc_account_cgroup_owner (a folio in 6.12)
 *   gaze_wbc_blkcg        the blkcg a writeback_control charges, NULL
 *                         without CONFIG_CGROUP_WRITEBACK
 */
#ifndef GAZE_COMPAT_H
#define GAZE_COMPAT_H

#include <linux/version.h>
#include <linux/fs.h>
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>

/* ---------------------------------------------------------------- */
/* idmapped mounts                                                   */
/* ---------------------------------------------------------------- */

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
typedef struct mnt_idmap gaze_idmap_t;
#else
typedef struct user_namespace gaze_idmap_t;
#endif

/* ---------------------------------------------------------------- */
/* POSIX ACLs                                                        */
/* ---------------------------------------------------------------- */

/*
 * 6.2 split ->get_acl into ->get_inode_acl (permission checks, RCU) and
 * a dentry-based ->get_acl (getxattr; the VFS falls back to
 * ->get_inode_acl without it), and ->set_acl takes a dentry.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
typedef struct dentry gaze_acl_target_t;

static inline struct inode *gaze_acl_inode(struct dentry *dentry)
{
	return d_inode(dentry);
}

#define GAZE_IOP_ACL	.get_inode_acl = gaze_get_acl, .set_acl = gaze_set_acl

static inline int gaze_posix_acl_chmod(gaze_idmap_t *idmap,
				       struct dentry *dentry, umode_t mode)
{
	return posix_acl_chmod(idmap, dentry, mode);
}
#else
typedef struct inode gaze_acl_target_t;

static inline struct inode *gaze_acl_inode(struct inode *inode)
{
	return inode;
}

#define GAZE_IOP_ACL	.get_acl = gaze_get_acl, .set_acl = gaze_set_acl

static inline int gaze_posix_acl_chmod(gaze_idmap_t *idmap,
				       struct dentry *dentry, umode_t mode)
{
	return posix_acl_chmod(idmap, d_inode(dentry), mode);
}
#endif

/*
 * The system.posix_acl_* entries of the xattr handler list.  Since 6.4
 * the VFS handles those names itself (->get_acl / ->set_acl) and the
 * entries only say which names listxattr shows.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define gaze_xattr_acl_access	nop_posix_acl_access
#define gaze_xattr_acl_default	nop_posix_acl_default
#else
#define gaze_xattr_acl_access	posix_acl_access_xattr_handler
#define gaze_xattr_acl_default	posix_acl_default_xattr_handler
#endif

/* ---------------------------------------------------------------- */
/* inode timestamps                                                  */
/* ---------------------------------------------------------------- */

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
static inline struct timespec64 gaze_ctime(const struct inode *inode)
{
	return inode_get_ctime(inode);
}

static inline void gaze_set_ctime(struct inode *inode, struct timespec64 ts)
{
	inode_set_ctime_to_ts(inode, ts);
}

static inline struct timespec64 gaze_set_ctime_current(struct inode *inode)
{
	return inode_set_ctime_current(inode);
}
#else
static inline struct timespec64 gaze_ctime(const struct inode *inode)
{
	return inode->i_ctime;
}

static inline void gaze_set_ctime(struct inode *inode, struct timespec64 ts)
{
	inode->i_ctime = ts;
}

static inline struct timespec64 gaze_set_ctime_current(struct inode *inode)
{
	inode->i_ctime = current_time(inode);
	return inode->i_ctime;
}
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
static inline struct timespec64 gaze_atime(const struct inode *inode)
{
	return inode_get_atime(inode);
}

static inline struct timespec64 gaze_mtime(const struct inode *inode)
{
	return inode_get_mtime(inode);
}

static inline void gaze_set_atime(struct inode *inode, struct timespec64 ts)
{
	inode_set_atime_to_ts(inode, ts);
}

static inline void gaze_set_mtime(struct inode *inode, struct timespec64 ts)
{
	inode_set_mtime_to_ts(inode, ts);
}
#else
static inline struct timespec64 gaze_atime(const struct inode *inode)
{
	return inode->i_atime;
}

static inline struct timespec64 gaze_mtime(const struct inode *inode)
{
	return inode->i_mtime;
}

static inline void gaze_set_atime(struct inode *inode, struct timespec64 ts)
{
	inode->i_atime = ts;
}

static inline void gaze_set_mtime(struct inode *inode, struct timespec64 ts)
{
	inode->i_mtime = ts;
}
#endif

static inline void gaze_fillattr(gaze_idmap_t *idmap, u32 request_mask,
				 struct inode *inode, struct kstat *stat)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	generic_fillattr(idmap, request_mask, inode, stat);
#else
	generic_fillattr(idmap, inode, stat);
#endif
}

/* ---------------------------------------------------------------- */
/* page cache                                                        */
/* ---------------------------------------------------------------- */

/* the cached folio at index with a reference, or NULL */
static inline struct folio *gaze_get_folio(struct address_space *mapping,
					   pgoff_t index)
{
	struct folio *folio = filemap_get_folio(mapping, index);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	if (IS_ERR(folio))
		return NULL;
#endif
	return folio;
}

/*
 * The folio at index locked, created when absent, without waiting for a
 * lock or for memory; NULL when it cannot be had at once
 */
static inline struct folio *gaze_grab_folio_nowait(struct address_space *mapping,
						   pgoff_t index)
{
	struct folio *folio = __filemap_get_folio(mapping, index,
						  FGP_LOCK | FGP_CREAT |
						  FGP_NOWAIT,
						  readahead_gfp_mask(mapping));

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	if (IS_ERR(folio))
		return NULL;
#endif
	return folio;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define gaze_splice_read	filemap_splice_read
#else
#define gaze_splice_read	generic_file_splice_read
#endif

/*
 * ->write_begin hands back, and ->write_end takes, a folio since 6.12
 * and a page before; the module's folios are single pages either way.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
typedef struct folio gaze_aop_page_t;

static inline gaze_aop_page_t *gaze_to_aop_page(struct page *page)
{
	return page_folio(page);
}

static inline struct page *gaze_from_aop_page(gaze_aop_page_t *folio)
{
	return &folio->page;
}
#else
typedef struct page gaze_aop_page_t;

static inline gaze_aop_page_t *gaze_to_aop_page(struct page *page)
{
	return page;
}

static inline struct page *gaze_from_aop_page(gaze_aop_page_t *page)
{
	return page;
}
#endif

/*
 * write_cache_pages() with a callback on folios: its writepage_t takes a
 * folio since 6.3; before, a trampoline turns the page into its folio.
 */
typedef int (*gaze_writefolio_t)(struct folio *folio,
				 struct writeback_control *wbc, void *data);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
static inline int gaze_write_cache_folios(struct address_space *mapping,
					  struct writeback_control *wbc,
					  gaze_writefolio_t fn, void *data)
{
	return write_cache_pages(mapping, wbc, fn, data);
}
#else
struct gaze_wcf {
	gaze_writefolio_t	fn;
	void			*data;
};

static inline int gaze_wcf_page(struct page *page,
				struct writeback_control *wbc, void *data)
{
	struct gaze_wcf *w = data;

	return w->fn(page_folio(page), wbc, w->data);
}

static inline int gaze_write_cache_folios(struct address_space *mapping,
					  struct writeback_control *wbc,
					  gaze_writefolio_t fn, void *data)
{
	struct gaze_wcf w = { .fn = fn, .data = data };

	return write_cache_pages(mapping, wbc, gaze_wcf_page, &w);
}
#endif

/* takes a locked folio out of its mapping (the GC's private cache) */
static inline void gaze_remove_folio(struct address_space *mapping,
				     struct folio *folio)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	generic_error_remove_folio(mapping, folio);
#else
	generic_error_remove_page(mapping, &folio->page);
#endif
}

/* ---------------------------------------------------------------- */
/* shrinkers                                                         */
/* ---------------------------------------------------------------- */

/*
 * Since 6.7 a shrinker is allocated by the kernel and carries a private
 * pointer; before, it was embedded by its user, so here it is embedded
 * in a small allocation of ours next to that pointer.
 *
 *	s = gaze_shrinker_create(count, scan, priv, sb->s_id);  (gaze-ID)
 *	... count/scan find priv with gaze_shrinker_private(sh) ...
 *	gaze_shrinker_destroy(s);
 */
typedef unsigned long (*gaze_shrink_fn)(struct shrinker *,
					struct shrink_control *);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
static inline void *gaze_shrinker_private(struct shrinker *sh)
{
	return sh->private_data;
}

static inline struct shrinker *gaze_shrinker_create(gaze_shrink_fn count,
						    gaze_shrink_fn scan,
						    void *priv,
						    const char *id)
{
	struct shrinker *sh = shrinker_alloc(0, "gaze-%s", id);

	if (!sh)
		return NULL;
	sh->count_objects = count;
	sh->scan_objects = scan;
	sh->seeks = DEFAULT_SEEKS;
	sh->private_data = priv;
	shrinker_register(sh);
	return sh;
}

static inline void gaze_shrinker_destroy(struct shrinker *sh)
{
	shrinker_free(sh);
}
#else
struct gaze_shrinker {
	struct shrinker	sh;
	void		*priv;
};

static inline void *gaze_shrinker_private(struct shrinker *sh)
{
	return container_of(sh, struct gaze_shrinker, sh)->priv;
}

static inline struct shrinker *gaze_shrinker_create(gaze_shrink_fn count,
						    gaze_shrink_fn scan,
						    void *priv,
						    const char *id)
{
	struct gaze_shrinker *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->sh.count_objects = count;
	s->sh.scan_objects = scan;
	s->sh.seeks = DEFAULT_SEEKS;
	s->priv = priv;
	if (register_shrinker(&s->sh, "gaze-%s", id)) {
		kfree(s);
		return NULL;
	}
	return &s->sh;
}

static inline void gaze_shrinker_destroy(struct shrinker *sh)
{
	unregister_shrinker(sh);
	kfree(container_of(sh, struct gaze_shrinker, sh));
}
#endif

/* ---------------------------------------------------------------- */
/* block layer                                                       */
/* ---------------------------------------------------------------- */

/* freezing the filesystem on a device (writes back, then sync_fs) */
static inline int gaze_bdev_freeze(struct block_device *bdev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	return bdev_freeze(bdev);
#else
	return freeze_bdev(bdev);
#endif
}

static inline int gaze_bdev_thaw(struct block_device *bdev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	return bdev_thaw(bdev);
#else
	return thaw_bdev(bdev);
#endif
}

static inline int gaze_zone_mgmt(struct block_device *bdev, enum req_op op,
				 sector_t sector, sector_t nr_sectors)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	return blkdev_zone_mgmt(bdev, op, sector, nr_sectors);
#else
	return blkdev_zone_mgmt(bdev, op, sector, nr_sectors, GFP_NOIO);
#endif
}

/* ---------------------------------------------------------------- */
/* NFS export                                                        */
/* ---------------------------------------------------------------- */

/*
 * Handles are the VFS default (FILEID_INO32_GEN): before 6.7 exportfs
 * makes it when ->encode_fh is NULL; since 6.7 (->encode_fh mandatory)
 * the same encoder is exported and must be named.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#include <linux/exportfs.h>
#define GAZE_ENCODE_FH	generic_encode_ino32_fh
#else
#define GAZE_ENCODE_FH	NULL
#endif

/* ---------------------------------------------------------------- */
/* cgroup writeback                                                  */
/* ---------------------------------------------------------------- */

/*
 * Who dirtied a folio that writeback writes (foreign inode detection).
 * Debian 12's 6.12 headers take the folio, 6.1's its page.
 */
static inline void gaze_wbc_account(struct writeback_control *wbc,
				    struct folio *folio, size_t bytes)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	wbc_account_cgroup_owner(wbc, folio, bytes);
#else
	wbc_account_cgroup_owner(wbc, &folio->page, bytes);
#endif
}

/* the blkcg wbc_init_bio charges a bio to, or NULL (the submitter's) */
static inline struct cgroup_subsys_state *
gaze_wbc_blkcg(struct writeback_control *wbc)
{
#ifdef CONFIG_CGROUP_WRITEBACK
	return wbc && wbc->wb ? wbc->wb->blkcg_css : NULL;
#else
	return NULL;
#endif
}

#endif /* GAZE_COMPAT_H */
