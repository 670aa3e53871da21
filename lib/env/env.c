// SPDX-License-Identifier: GPL-2.0
/*
 * env.c - userspace implementation of the environment contract
 * (gaze_env.h): allocation, crc32c, clocks, logging and assertions on top
 * of libc and pthreads.  The shared core is compiled against this file in
 * the tools and unit tests, and against kernel/linux/gaze_env.h in the
 * module, so every function here must behave like its kernel counterpart:
 * gaze_crc32c() in particular is the kernel's crc32c() (a raw update with
 * no pre- or post-inversion), not the "standard" crc32c of RFC 3720.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include "gaze_env.h"

int gaze_log_level = GAZE_LOG_WARN;

/* ---------------------------------------------------------------- */
/* Allocation: like kmalloc, a zero-size request still succeeds.     */
/* ---------------------------------------------------------------- */

void *
gaze_alloc(size_t size)
{
	return malloc(size ? size : 1);
}

void *
gaze_zalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

void
gaze_free(void *p)
{
	free(p);
}

/* ---------------------------------------------------------------- */
/* crc32c (Castagnoli, reflected polynomial 0x82f63b78).             */
/*                                                                   */
/* Software: slice-by-8 tables, built once under pthread_once.      */
/* x86-64 with SSE4.2: the crc32 instruction, which computes the     */
/* same raw update.  The choice is made once, at the first call.     */
/* ---------------------------------------------------------------- */

#define CRC32C_POLY	0x82f63b78u

static u32 crc_tab[8][256];
static u32 (*crc_impl)(u32 crc, const u8 *p, size_t len);
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void
crc_tables_build(void)
{
	u32 i, k, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ ((c & 1) ? CRC32C_POLY : 0);
		crc_tab[0][i] = c;
	}
	for (k = 1; k < 8; k++)
		for (i = 0; i < 256; i++) {
			c = crc_tab[k - 1][i];
			crc_tab[k][i] = (c >> 8) ^ crc_tab[0][c & 0xff];
		}
}

static inline u32
load_le32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static u32
crc32c_slice8(u32 crc, const u8 *p, size_t len)
{
	u32 lo, hi;

	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		lo = crc ^ load_le32(p);
		hi = load_le32(p + 4);
		crc = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
		      crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^
		      crc_tab[3][hi & 0xff] ^ crc_tab[2][(hi >> 8) & 0xff] ^
		      crc_tab[1][(hi >> 16) & 0xff] ^ crc_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}

#if defined(__x86_64__)
/*
 * The crc32 instruction has a latency of three cycles and a throughput
 * of one, so one dependent chain uses a third of it.  Long buffers are
 * cut into strips of three lanes of CRC_LANE bytes, each lane its own
 * chain (the first from the running crc, the others from zero), and the
 * lanes are joined with the zeros operator: the raw crc of a message
 * followed by CRC_LANE zero bytes is a linear function of the message's
 * crc, applied here through four byte tables (crc_shift).
 */
#define CRC_LANE	1360u		/* 3 lanes: 4080 of a 4096-byte block */
static u32 crc_shift[4][256];

__attribute__((target("sse4.2")))
static u32
crc32c_sse42_1(u32 crc, const u8 *p, size_t len)
{
	u64 c = crc;
	u64 v;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((u32)c, *p++);
		len--;
	}
	while (len >= 8) {
		memcpy(&v, p, sizeof(v));
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((u32)c, *p++);
	return (u32)c;
}

static u32
crc_lane_shift(u32 c)
{
	return crc_shift[0][c & 0xff] ^ crc_shift[1][(c >> 8) & 0xff] ^
	       crc_shift[2][(c >> 16) & 0xff] ^ crc_shift[3][c >> 24];
}

/* the zeros operator's tables, from its effect on each of the 32 bits */
static void
crc_shift_build(void)
{
	static const u8 zeros[CRC_LANE];
	u32 basis[32], b, v;
	int k, j;

	for (j = 0; j < 32; j++)
		basis[j] = crc32c_slice8(1u << j, zeros, CRC_LANE);
	for (k = 0; k < 4; k++)
		for (b = 0; b < 256; b++) {
			v = 0;
			for (j = 0; j < 8; j++)
				if (b & (1u << j))
					v ^= basis[8 * k + j];
			crc_shift[k][b] = v;
		}
}

__attribute__((target("sse4.2")))
static u32
crc32c_sse42(u32 crc, const u8 *p, size_t len)
{
	u64 a, b, c, va, vb, vc;
	size_t i;

	while (len >= 3 * CRC_LANE) {
		a = crc;
		b = 0;
		c = 0;
		for (i = 0; i < CRC_LANE; i += 8) {
			memcpy(&va, p + i, 8);
			memcpy(&vb, p + CRC_LANE + i, 8);
			memcpy(&vc, p + 2 * CRC_LANE + i, 8);
			a = __builtin_ia32_crc32di(a, va);
			b = __builtin_ia32_crc32di(b, vb);
			c = __builtin_ia32_crc32di(c, vc);
		}
		crc = crc_lane_shift(crc_lane_shift((u32)a) ^ (u32)b) ^ (u32)c;
		p += 3 * CRC_LANE;
		len -= 3 * CRC_LANE;
	}
	return crc32c_sse42_1(crc, p, len);
}
#endif

static void
crc_init(void)
{
	crc_tables_build();
	crc_impl = crc32c_slice8;
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("sse4.2")) {
		crc_shift_build();
		crc_impl = crc32c_sse42;
	}
#endif
}

u32
gaze_crc32c(u32 seed, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return crc_impl(seed, buf, len);
}

/*
 * The table-driven version, always.  Not part of the contract: the unit
 * tests declare it themselves to check both paths against each other.
 */
u32 gaze_crc32c_sw(u32 seed, const void *buf, size_t len);

u32
gaze_crc32c_sw(u32 seed, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return crc32c_slice8(seed, buf, len);
}

/* ---------------------------------------------------------------- */
/* Clocks                                                            */
/* ---------------------------------------------------------------- */

u64
gaze_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

void
gaze_wallclock(s64 *sec, u32 *nsec)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	*sec = ts.tv_sec;
	*nsec = (u32)ts.tv_nsec;
}

/* ---------------------------------------------------------------- */
/* Logging and assertions                                            */
/* ---------------------------------------------------------------- */

/*
 * One message is formatted into one buffer and written with one call,
 * so that lines from several threads do not interleave.  A newline is
 * added when the message lacks one (callers may write kernel-style
 * "...\n" or not).
 */
void
gaze_log(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	if (level > gaze_log_level)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	fprintf(stderr, "gaze: %s\n", buf);
}

void
gaze_warn_on(const char *cond, const char *file, int line)
{
	fprintf(stderr, "gaze: WARNING: %s at %s:%d\n", cond, file, line);
}

void
gaze_bug(const char *cond, const char *file, int line)
{
	fprintf(stderr, "gaze: BUG: %s at %s:%d\n", cond, file, line);
	fflush(stderr);
	abort();
}

/*
 * Compression, with the Debian libraries; the streams are the ones the
 * kernel's lib/lz4, lib/zstd and lib/zlib_deflate read and write (an LZ4
 * block, a zstd frame, a zlib stream).
 */
int
gaze_compress(u8 algo, int level, const void *src, u32 len, void *dst,
	      u32 cap)
{
	uLongf zlen = cap;
	size_t n;
	int r;

	switch (algo) {
	case GAZE_ENV_LZ4:
		r = LZ4_compress_default(src, dst, (int)len, (int)cap);
		return r > 0 ? r : -E2BIG;
	case GAZE_ENV_ZSTD:
		n = ZSTD_compress(dst, cap, src, len, level);
		return ZSTD_isError(n) ? -E2BIG : (int)n;
	case GAZE_ENV_ZLIB:
		r = compress2(dst, &zlen, src, len, level);
		return r == Z_OK ? (int)zlen : -E2BIG;
	}
	return -EINVAL;
}

int
gaze_decompress(u8 algo, const void *src, u32 len, void *dst, u32 rawlen)
{
	uLongf zlen = rawlen;
	size_t n;

	switch (algo) {
	case GAZE_ENV_LZ4:
		return LZ4_decompress_safe(src, dst, (int)len, (int)rawlen) ==
		       (int)rawlen ? 0 : -EFSCORRUPTED;
	case GAZE_ENV_ZSTD:
		n = ZSTD_decompress(dst, rawlen, src, len);
		return !ZSTD_isError(n) && n == rawlen ? 0 : -EFSCORRUPTED;
	case GAZE_ENV_ZLIB:
		return uncompress(dst, &zlen, src, len) == Z_OK &&
		       zlen == rawlen ? 0 : -EFSCORRUPTED;
	}
	return -EINVAL;
}
