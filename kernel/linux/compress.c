// SPDX-License-Identifier: GPL-2.0
/*
 * compress.c - gaze_compress and gaze_decompress of the environment
 * contract (gaze_env.h) on the kernel's lib/lz4, lib/zstd and
 * lib/zlib_{deflate,inflate}: the same streams the Debian libraries
 * make in userspace (an LZ4 block, a zstd frame, a zlib stream).
 *
 * Each call takes its workspace from kvmalloc and gives it back; the
 * caller runs in process context (writeback and reads of the core).
 */
#include <linux/lz4.h>
#include <linux/zstd.h>
#include <linux/zlib.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include "gaze_env.h"

static int gaze_lz4_compress(const void *src, u32 len, void *dst, u32 cap)
{
	void *wrk = kvmalloc(LZ4_MEM_COMPRESS, GFP_KERNEL);
	int n;

	if (!wrk)
		return -ENOMEM;
	n = LZ4_compress_default(src, dst, len, cap, wrk);
	kvfree(wrk);
	return n > 0 ? n : -E2BIG;
}

static int gaze_zstd_compress(int level, const void *src, u32 len, void *dst,
			      u32 cap)
{
	zstd_parameters params = zstd_get_params(level, len);
	size_t wsize = zstd_cctx_workspace_bound(&params.cParams), n;
	zstd_cctx *cctx;
	void *wrk;

	wrk = kvmalloc(wsize, GFP_KERNEL);
	if (!wrk)
		return -ENOMEM;
	cctx = zstd_init_cctx(wrk, wsize);
	n = cctx ? zstd_compress_cctx(cctx, dst, cap, src, len, &params) : 0;
	kvfree(wrk);
	if (!cctx)
		return -ENOMEM;
	return zstd_is_error(n) ? -E2BIG : (int)n;
}

static int gaze_zlib_compress(int level, const void *src, u32 len, void *dst,
			      u32 cap)
{
	z_stream s = { 0 };
	int ret;

	s.workspace = kvmalloc(zlib_deflate_workspacesize(MAX_WBITS,
							  DEF_MEM_LEVEL),
			       GFP_KERNEL);
	if (!s.workspace)
		return -ENOMEM;
	ret = zlib_deflateInit2(&s, level, Z_DEFLATED, MAX_WBITS,
				DEF_MEM_LEVEL, Z_DEFAULT_STRATEGY);
	if (ret != Z_OK) {
		ret = -EINVAL;
		goto out;
	}
	s.next_in = src;
	s.avail_in = len;
	s.next_out = dst;
	s.avail_out = cap;
	ret = zlib_deflate(&s, Z_FINISH) == Z_STREAM_END ? (int)s.total_out :
	      -E2BIG;
	zlib_deflateEnd(&s);
out:
	kvfree(s.workspace);
	return ret;
}

int gaze_compress(u8 algo, int level, const void *src, u32 len, void *dst,
		  u32 cap)
{
	switch (algo) {
	case GAZE_ENV_LZ4:
		return gaze_lz4_compress(src, len, dst, cap);
	case GAZE_ENV_ZSTD:
		return gaze_zstd_compress(level, src, len, dst, cap);
	case GAZE_ENV_ZLIB:
		return gaze_zlib_compress(level, src, len, dst, cap);
	}
	return -EINVAL;
}

static int gaze_zstd_decompress(const void *src, u32 len, void *dst,
				u32 rawlen)
{
	size_t wsize = zstd_dctx_workspace_bound(), n;
	zstd_dctx *dctx;
	void *wrk;

	wrk = kvmalloc(wsize, GFP_KERNEL);
	if (!wrk)
		return -ENOMEM;
	dctx = zstd_init_dctx(wrk, wsize);
	n = dctx ? zstd_decompress_dctx(dctx, dst, rawlen, src, len) : 0;
	kvfree(wrk);
	if (!dctx)
		return -ENOMEM;
	return !zstd_is_error(n) && n == rawlen ? 0 : -EFSCORRUPTED;
}

static int gaze_zlib_decompress(const void *src, u32 len, void *dst,
				u32 rawlen)
{
	z_stream s = { 0 };
	int ret;

	s.workspace = kvmalloc(zlib_inflate_workspacesize(), GFP_KERNEL);
	if (!s.workspace)
		return -ENOMEM;
	ret = zlib_inflateInit2(&s, MAX_WBITS);
	if (ret != Z_OK) {
		ret = -EINVAL;
		goto out;
	}
	s.next_in = src;
	s.avail_in = len;
	s.next_out = dst;
	s.avail_out = rawlen;
	ret = zlib_inflate(&s, Z_FINISH) == Z_STREAM_END &&
	      s.total_out == rawlen ? 0 : -EFSCORRUPTED;
	zlib_inflateEnd(&s);
out:
	kvfree(s.workspace);
	return ret;
}

int gaze_decompress(u8 algo, const void *src, u32 len, void *dst, u32 rawlen)
{
	switch (algo) {
	case GAZE_ENV_LZ4:
		return LZ4_decompress_safe(src, dst, len, rawlen) ==
		       (int)rawlen ? 0 : -EFSCORRUPTED;
	case GAZE_ENV_ZSTD:
		return gaze_zstd_decompress(src, len, dst, rawlen);
	case GAZE_ENV_ZLIB:
		return gaze_zlib_decompress(src, len, dst, rawlen);
	}
	return -EINVAL;
}
