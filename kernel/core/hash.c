// SPDX-License-Identifier: GPL-2.0
/*
 * hash.c - SipHash-2-4 for directory name hashes.
 *
 * Directory entries are placed by a 64-bit keyed hash of the name, so
 * the hash is part of the on-disk format: the module and the tools must
 * compute bit-identical values on every architecture.  A keyed hash (the
 * key is the superblock's random dir_hash_seed) keeps users from choosing
 * names that all collide into one bucket.  Written from the algorithm's
 * published description (Aumasson and Bernstein, 2012): 2 compression
 * rounds per 8-byte word, 4 finalisation rounds.
 *
 * The key words are CPU-order values: word i holds key bytes 4i..4i+3
 * read little-endian, so a caller passes le32_to_cpu() of each
 * dir_hash_seed word.  k0 = key[0] | key[1] << 32, k1 = key[2] | key[3] << 32.
 */
#include "gaze_core.h"

#define ROTL64(x, b)	(((x) << (b)) | ((x) >> (64 - (b))))

struct sip_state {
	u64 v0, v1, v2, v3;
};

static inline void
sip_round(struct sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = ROTL64(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = ROTL64(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = ROTL64(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = ROTL64(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = ROTL64(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = ROTL64(s->v2, 32);
}

static inline void
sip_compress(struct sip_state *s, u64 m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

/* little-endian load of n (<= 8) bytes, byte by byte: no alignment needs */
static inline u64
sip_load(const u8 *p, size_t n)
{
	u64 v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (u64)p[i] << (8 * i);
	return v;
}

u64
gaze_siphash(const u32 key[4], const void *data, size_t len)
{
	const u8 *p = data;
	u64 k0 = (u64)key[0] | ((u64)key[1] << 32);
	u64 k1 = (u64)key[2] | ((u64)key[3] << 32);
	struct sip_state s;
	size_t left = len;
	u64 last;

	s.v0 = k0 ^ 0x736f6d6570736575ull;	/* "somepseu" */
	s.v1 = k1 ^ 0x646f72616e646f6dull;	/* "dorandom" */
	s.v2 = k0 ^ 0x6c7967656e657261ull;	/* "lygenera" */
	s.v3 = k1 ^ 0x7465646279746573ull;	/* "tedbytes" */

	while (left >= 8) {
		sip_compress(&s, sip_load(p, 8));
		p += 8;
		left -= 8;
	}
	last = sip_load(p, left) | ((u64)(len & 0xff) << 56);
	sip_compress(&s, last);

	s.v2 ^= 0xff;
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
