/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gaze_env.h (userspace) - the environment contract of the shared core.
 *
 * The shared core (kernel/core/) includes only this header and its own.
 * kernel/linux/gaze_env.h implements the same names on <linux/...>;
 * this file implements them on libc, pthreads and GCC builtins.  Keep the
 * list to one screen: add a primitive only when the core cannot do
 * without it, and add it to both files in the same commit.
 *
 *   types            u8..u64, s32, s64, bool, __le16/32/64, size_t
 *   endian           cpu_to_le{16,32,64}, le{16,32,64}_to_cpu
 *   helpers          min, max, min_t, max_t, clamp, ALIGN, DIV_ROUND_UP,
 *                    ARRAY_SIZE, BIT, likely, unlikely, container_of
 *   errors           negative errno; EFSCORRUPTED, EFSBADCRC
 *   allocation       gaze_alloc, gaze_zalloc, gaze_free (any size)
 *   locks            struct mutex, spinlock_t, struct rw_semaphore + ops
 *   atomics          atomic_t, atomic64_t + read/set/add/inc/dec,
 *                    READ_ONCE, WRITE_ONCE
 *   lists            struct list_head + the usual helpers
 *   assertions       WARN_ON, WARN_ON_ONCE, GAZE_BUG_ON
 *   checksums        gaze_crc32c(seed, buf, len)
 *   clock            gaze_time_ns() monotonic, gaze_wallclock(&sec, &nsec)
 *   logging          gaze_log(level, fmt, ...), gaze_err/warn/info/debug
 *   compression      gaze_compress, gaze_decompress (lz4, zstd, zlib)
 */
#ifndef GAZE_ENV_H
#define GAZE_ENV_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <endian.h>
#include <pthread.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define cpu_to_le16(x) ((__le16)htole16(x))
#define cpu_to_le32(x) ((__le32)htole32(x))
#define cpu_to_le64(x) ((__le64)htole64(x))
#define le16_to_cpu(x) ((u16)le16toh(x))
#define le32_to_cpu(x) ((u32)le32toh(x))
#define le64_to_cpu(x) ((u64)le64toh(x))

#ifndef min
#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#endif
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define ALIGN(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BIT(n) (1ul << (n))
#define likely(x) __builtin_expect(!!(x), 1)
/* a result the caller must look at (the kernel's, from compiler.h) */
#define __must_check __attribute__((__warn_unused_result__))
#define unlikely(x) __builtin_expect(!!(x), 0)
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#define EFSCORRUPTED EUCLEAN	/* structure is corrupted */
#define EFSBADCRC EBADMSG	/* checksum mismatch */

void *gaze_alloc(size_t size);
void *gaze_zalloc(size_t size);
void gaze_free(void *p);

/* holds: times the mutex was taken (written under it), so that a test
 * can tell which writes one hold made */
struct mutex { pthread_mutex_t m; unsigned long holds; };
#define mutex_init(x) ((x)->holds = 0, pthread_mutex_init(&(x)->m, NULL))
#define mutex_destroy(x) pthread_mutex_destroy(&(x)->m)
#define mutex_lock(x) \
	do { pthread_mutex_lock(&(x)->m); (x)->holds++; } while (0)
#define mutex_unlock(x) pthread_mutex_unlock(&(x)->m)
/* 1 when taken, as in the kernel */
#define mutex_trylock(x) \
	(pthread_mutex_trylock(&(x)->m) ? 0 : ((x)->holds++, 1))
typedef struct { pthread_spinlock_t s; } spinlock_t;
#define spin_lock_init(x) pthread_spin_init(&(x)->s, PTHREAD_PROCESS_PRIVATE)
#define spin_lock(x) pthread_spin_lock(&(x)->s)
#define spin_unlock(x) pthread_spin_unlock(&(x)->s)
struct rw_semaphore { pthread_rwlock_t l; };
#define init_rwsem(x) pthread_rwlock_init(&(x)->l, NULL)
#define down_read(x) pthread_rwlock_rdlock(&(x)->l)
#define up_read(x) pthread_rwlock_unlock(&(x)->l)
#define down_write(x) pthread_rwlock_wrlock(&(x)->l)
#define up_write(x) pthread_rwlock_unlock(&(x)->l)

/* a plain load/store the compiler may not tear, merge or reorder away */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

typedef struct { int counter; } atomic_t;
typedef struct { s64 counter; } atomic64_t;
#define atomic_read(v) __atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_set(v, i) __atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_add(i, v) ((void)__atomic_add_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST))
#define atomic_inc(v) atomic_add(1, v)
#define atomic_dec(v) atomic_add(-1, v)
#define atomic_dec_and_test(v) (__atomic_sub_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST) == 0)
#define atomic64_read(v) atomic_read(v)
#define atomic64_set(v, i) atomic_set(v, i)
#define atomic64_add(i, v) atomic_add(i, v)
#define atomic64_inc(v) atomic_inc(v)
#define atomic64_dec(v) atomic_dec(v)

struct list_head { struct list_head *next, *prev; };
#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l; l->prev = l; }
static inline void __list_add(struct list_head *n, struct list_head *p, struct list_head *x)
{ x->prev = n; n->next = x; n->prev = p; p->next = n; }
static inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
static inline void list_del(struct list_head *e)
{ e->next->prev = e->prev; e->prev->next = e->next; e->next = e->prev = NULL; }
static inline void list_del_init(struct list_head *e)
{ e->next->prev = e->prev; e->prev->next = e->next; INIT_LIST_HEAD(e); }
static inline void list_move_tail(struct list_head *e, struct list_head *h)
{ list_del(e); list_add_tail(e, h); }
static inline int list_empty(const struct list_head *h) { return h->next == h; }
/* moves all of l to the end of h; l is left empty */
static inline void list_splice_tail_init(struct list_head *l, struct list_head *h)
{
	if (list_empty(l))
		return;
	l->next->prev = h->prev;
	h->prev->next = l->next;
	l->prev->next = h;
	h->prev = l->prev;
	INIT_LIST_HEAD(l);
}
#define list_entry(p, t, m) container_of(p, t, m)
#define list_first_entry(h, t, m) list_entry((h)->next, t, m)
#define list_for_each_entry(p, h, m) \
	for (p = list_entry((h)->next, __typeof__(*p), m); &p->m != (h); \
	     p = list_entry(p->m.next, __typeof__(*p), m))
#define list_for_each_entry_safe(p, n, h, m) \
	for (p = list_entry((h)->next, __typeof__(*p), m), \
	     n = list_entry(p->m.next, __typeof__(*p), m); &p->m != (h); \
	     p = n, n = list_entry(n->m.next, __typeof__(*n), m))

void gaze_warn_on(const char *cond, const char *file, int line);
#define WARN_ON(c) ({ int _c = !!(c); if (unlikely(_c)) gaze_warn_on(#c, __FILE__, __LINE__); unlikely(_c); })
#define WARN_ON_ONCE(c) WARN_ON(c)
void gaze_bug(const char *cond, const char *file, int line) __attribute__((noreturn));
#define GAZE_BUG_ON(c) do { if (unlikely(c)) gaze_bug(#c, __FILE__, __LINE__); } while (0)

u32 gaze_crc32c(u32 seed, const void *buf, size_t len);

u64 gaze_time_ns(void);
void gaze_wallclock(s64 *sec, u32 *nsec);

#define GAZE_LOG_ERR 3
#define GAZE_LOG_WARN 4
#define GAZE_LOG_INFO 6
#define GAZE_LOG_DEBUG 7
extern int gaze_log_level;	/* messages above this level are dropped */
void gaze_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define gaze_err(fmt, ...) gaze_log(GAZE_LOG_ERR, fmt, ##__VA_ARGS__)
#define gaze_warn(fmt, ...) gaze_log(GAZE_LOG_WARN, fmt, ##__VA_ARGS__)
#define gaze_info(fmt, ...) gaze_log(GAZE_LOG_INFO, fmt, ##__VA_ARGS__)
#define gaze_debug(fmt, ...) gaze_log(GAZE_LOG_DEBUG, fmt, ##__VA_ARGS__)

/*
 * gaze_compress: src (len bytes) into dst; the compressed length, or
 * -E2BIG when it does not fit in cap.  gaze_decompress: 0 when src
 * (len bytes) decompresses to exactly rawlen bytes, else -EFSCORRUPTED;
 * never writes past dst + rawlen.  -EINVAL: unknown algorithm.
 */
#define GAZE_ENV_LZ4	1
#define GAZE_ENV_ZSTD	2
#define GAZE_ENV_ZLIB	3
int gaze_compress(u8 algo, int level, const void *src, u32 len, void *dst,
		  u32 cap);
int gaze_decompress(u8 algo, const void *src, u32 len, void *dst,
		    u32 rawlen);

#endif /* GAZE_ENV_H */
