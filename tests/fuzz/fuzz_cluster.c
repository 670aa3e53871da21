// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_cluster.c - libFuzzer harness for the compressed-cluster codec
 * (kernel/core/compress.c, format.md section 18).
 *
 * Input: byte 0 picks the cluster size (bits 0-2: 2^(2 + v % 7) blocks)
 * and the mode (bit 3).  Mode 0: the rest is a stream handed to
 * gaze_cluster_decode; unless bit 4 is set its header checksum is fixed
 * first, so the decompressors themselves see hostile payloads.  Mode 1:
 * the rest, repeated to the cluster size, is encoded with the algorithm
 * and level of bits 4-7 and decoded back, which must give the same
 * bytes.  Neither may read or write outside its buffers.
 */
#include "gaze_core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void
fix_crc(u8 *s, size_t len)
{
	struct gaze_cluster_hdr h;
	u32 crc, clen;

	if (len < sizeof(h))
		return;
	memcpy(&h, s, sizeof(h));
	clen = le32_to_cpu(h.clen);
	if (clen > len - sizeof(h))
		return;
	h.crc = 0;
	crc = gaze_crc32c(~0u, &h, sizeof(h));
	crc = ~gaze_crc32c(crc, s + sizeof(h), clen);
	h.crc = cpu_to_le32(crc);
	memcpy(s, &h, sizeof(h));
}

static void
roundtrip(const u8 *d, size_t n, u32 raw, u8 sel)
{
	static const u8 lv[][2] = {
		{ GAZE_COMPRESS_LZ4, 0 }, { GAZE_COMPRESS_ZSTD, 1 },
		{ GAZE_COMPRESS_ZSTD, 3 }, { GAZE_COMPRESS_GZIP, 1 },
		{ GAZE_COMPRESS_GZIP, 6 }, { GAZE_COMPRESS_ZSTD, 0 },
		{ GAZE_COMPRESS_GZIP, 0 }, { GAZE_COMPRESS_LZ4, 0 },
	};
	u8 *in = malloc(raw), *st = malloc(raw), *back = malloc(raw);
	u32 i, len;

	for (i = 0; i < raw; i++)
		in[i] = n ? d[i % n] : 0;
	if (!gaze_cluster_encode(lv[sel % 8][0], lv[sel % 8][1], in, raw, st,
				 raw - GAZE_BLOCK_SIZE, &len) &&
	    (gaze_cluster_decode(st, len, back, raw, NULL) ||
	     memcmp(in, back, raw)))
		abort();
	free(in);
	free(st);
	free(back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u32 raw;
	u8 *s, *out;
	u8 b;

	if (!size)
		return 0;
	b = data[0];
	raw = GAZE_BLOCK_SIZE << (2 + (b & 7) % 7);
	data++;
	size--;
	if (b & 8) {
		roundtrip(data, size, raw, b >> 4);
		return 0;
	}
	s = malloc(size ? size : 1);
	out = malloc(raw);
	memcpy(s, data, size);
	if (!(b & 16))
		fix_crc(s, size);
	gaze_cluster_decode(s, (u32)size, out, raw, NULL);
	free(s);
	free(out);
	return 0;
}
