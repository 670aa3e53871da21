/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gaze_env.h (kernel) - the environment contract of the shared core,
 * implemented on <linux/...>.  lib/env/gaze_env.h is the userspace twin;
 * the list of names is the same and is documented there.
 */
#ifndef GAZE_ENV_H
#define GAZE_ENV_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/rwsem.h>
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/bug.h>
#include <linux/crc32c.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <asm/byteorder.h>

#define EFSCORRUPTED EUCLEAN	/* structure is corrupted */
#define EFSBADCRC EBADMSG	/* checksum mismatch */

/*
 * The core allocates from process context only.  GFP_KERNEL lets
 * kvmalloc fall back to vmalloc for large tables (GFP_NOFS would not);
 * the glue keeps reclaim out of the filesystem by running core calls made
 * under VFS locks or from writeback inside memalloc_nofs_save()
 * (gaze_nofs_begin/end in gaze_kern.h), which narrows GFP_KERNEL here.
 */
static inline void *gaze_alloc(size_t size)
{
	return kvmalloc(size, GFP_KERNEL);
}

static inline void *gaze_zalloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

static inline void gaze_free(void *p)
{
	kvfree(p);
}

#define GAZE_BUG_ON(c) BUG_ON(c)

static inline u32 gaze_crc32c(u32 seed, const void *buf, size_t len)
{
	return crc32c(seed, buf, len);
}

static inline u64 gaze_time_ns(void)
{
	return ktime_get_ns();
}

static inline void gaze_wallclock(s64 *sec, u32 *nsec)
{
	struct timespec64 ts;

	ktime_get_real_ts64(&ts);
	*sec = ts.tv_sec;
	*nsec = ts.tv_nsec;
}

#define GAZE_LOG_ERR 3
#define GAZE_LOG_WARN 4
#define GAZE_LOG_INFO 6
#define GAZE_LOG_DEBUG 7
extern int gaze_log_level;
/*
 * Rate-limited per call site (printk_ratelimited: 10 in 5 s by default),
 * as XFS limits its corruption reports: a damaged or hostile image whose
 * bad node is looked up on every access must not flood the log.
 */
#define gaze_log(level, fmt, ...)					\
	do {								\
		if ((level) <= gaze_log_level)				\
			printk_ratelimited("%sgaze: " fmt "\n",	\
			       (level) == GAZE_LOG_ERR ? KERN_ERR :	\
			       (level) == GAZE_LOG_WARN ? KERN_WARNING :	\
			       KERN_INFO, ##__VA_ARGS__);		\
	} while (0)
#define gaze_err(fmt, ...) gaze_log(GAZE_LOG_ERR, fmt, ##__VA_ARGS__)
#define gaze_warn(fmt, ...) gaze_log(GAZE_LOG_WARN, fmt, ##__VA_ARGS__)
#define gaze_info(fmt, ...) gaze_log(GAZE_LOG_INFO, fmt, ##__VA_ARGS__)
#define gaze_debug(fmt, ...) gaze_log(GAZE_LOG_DEBUG, fmt, ##__VA_ARGS__)

/* compression (compress.c); the contract is in lib/env/gaze_env.h */
#define GAZE_ENV_LZ4	1
#define GAZE_ENV_ZSTD	2
#define GAZE_ENV_ZLIB	3
int gaze_compress(u8 algo, int level, const void *src, u32 len, void *dst,
		  u32 cap);
int gaze_decompress(u8 algo, const void *src, u32 len, void *dst,
		    u32 rawlen);

#endif /* GAZE_ENV_H */
