// SPDX-License-Identifier: GPL-2.0
/*
 * test_env_hash.c - checks the userspace environment (crc32c with the
 * kernel's raw-update semantics, both implementations, clocks, logging,
 * allocation) and the directory hash against published vectors.  These
 * are format-level facts: a wrong crc or hash makes every image unreadable
 * by the other side.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gaze_core.h"
#include "../tap.h"

u32 gaze_crc32c_sw(u32 seed, const void *buf, size_t len);

static u32
crc_std(const void *buf, size_t len)
{
	return ~gaze_crc32c(~0u, buf, len);
}

static void
test_crc_vectors(void)
{
	u8 buf[32];
	int i;

	tap_ok(crc_std("123456789", 9) == 0xe3069283u,
	       "crc32c check value of \"123456789\" is 0xe3069283");
	tap_ok(~gaze_crc32c_sw(~0u, "123456789", 9) == 0xe3069283u,
	       "software crc32c check value");
	memset(buf, 0, sizeof(buf));
	tap_ok(crc_std(buf, 32) == 0x8a9136aau, "crc32c of 32 zero bytes (RFC 3720)");
	memset(buf, 0xff, sizeof(buf));
	tap_ok(crc_std(buf, 32) == 0x62a8ab43u, "crc32c of 32 0xff bytes (RFC 3720)");
	for (i = 0; i < 32; i++)
		buf[i] = i;
	tap_ok(crc_std(buf, 32) == 0x46dd794eu, "crc32c of 0..31 (RFC 3720)");
	for (i = 0; i < 32; i++)
		buf[i] = 31 - i;
	tap_ok(crc_std(buf, 32) == 0x113fdb5cu, "crc32c of 31..0 (RFC 3720)");
	tap_ok(gaze_crc32c(0x12345678u, buf, 0) == 0x12345678u,
	       "crc32c of nothing returns the seed (raw update)");
	tap_ok(gaze_crc32c(0, "", 0) == 0 && crc_std("", 0) == 0,
	       "crc32c of the empty string is 0");
}

/* hardware and table paths agree at every alignment and length; chaining
 * two updates equals one update over the concatenation */
static void
test_crc_paths(void)
{
	static u8 buf[8192 + 16];
	u32 a, b, c;
	int bad = 0, chain_bad = 0;
	size_t ofs, len, cut;

	srand(1);
	for (len = 0; len < sizeof(buf); len++)
		buf[len] = (u8)rand();
	for (ofs = 0; ofs < 16; ofs++) {
		for (len = 0; len < 600; len += 1 + (len > 80) * 7) {
			a = gaze_crc32c(0xdeadbeefu, buf + ofs, len);
			b = gaze_crc32c_sw(0xdeadbeefu, buf + ofs, len);
			bad += a != b;
		}
		a = gaze_crc32c(~0u, buf + ofs, 8192);
		b = gaze_crc32c_sw(~0u, buf + ofs, 8192);
		bad += a != b;
	}
	tap_ok(!bad, "crc32c hardware/table paths agree (all alignments)");
	/* the three-lane path (whole strips of 3 x 1360 bytes) and its tail */
	bad = 0;
	for (ofs = 0; ofs < 8; ofs++)
		for (len = 4070; len <= 8192; len += len < 4200 || len > 8150 ?
						       1 : 97) {
			a = gaze_crc32c(0x12345678u, buf + ofs, len);
			b = gaze_crc32c_sw(0x12345678u, buf + ofs, len);
			bad += a != b;
		}
	tap_ok(!bad, "crc32c three-lane strips agree with the table path");
	for (cut = 0; cut <= 100; cut++) {
		a = gaze_crc32c(~0u, buf, 100);
		c = gaze_crc32c(~0u, buf, cut);
		c = gaze_crc32c(c, buf + cut, 100 - cut);
		chain_bad += a != c;
	}
	tap_ok(!chain_bad, "crc32c chains across split points");
}

static void
sip_key(u32 key[4])
{
	u8 k[16];
	int i;

	for (i = 0; i < 16; i++)
		k[i] = i;
	for (i = 0; i < 4; i++)
		key[i] = k[4 * i] | k[4 * i + 1] << 8 | k[4 * i + 2] << 16 |
			 (u32)k[4 * i + 3] << 24;
}

static void
test_siphash(void)
{
	static const struct {
		size_t len;
		u64 want;
	} v[] = {
		{ 0, 0x726fdb47dd0e0e31ull },
		{ 1, 0x74f839c593dc67fdull },
		{ 7, 0xab0200f58b01d137ull },
		{ 8, 0x93f5f5799a932462ull },
		{ 15, 0xa129ca6149be45e5ull },
		{ 63, 0x958a324ceb064572ull },
	};
	u8 msg[64];
	u32 key[4];
	size_t i;

	sip_key(key);
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = i;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		tap_ok(gaze_siphash(key, msg, v[i].len) == v[i].want,
		       "siphash-2-4 reference vector, %zu-byte message",
		       v[i].len);
	tap_ok(gaze_siphash(key, msg + 1, 15) != gaze_siphash(key, msg, 15),
	       "siphash depends on the message");
	key[3] ^= 1;
	tap_ok(gaze_siphash(key, msg, 15) != 0xa129ca6149be45e5ull,
	       "siphash depends on the key");
}

static void
test_env_misc(void)
{
	u64 t0, t1;
	s64 sec;
	u32 nsec;
	u8 *p;
	size_t i;
	int zero = 1;

	t0 = gaze_time_ns();
	t1 = gaze_time_ns();
	tap_ok(t1 >= t0 && t0 > 0, "monotonic clock does not go back");
	gaze_wallclock(&sec, &nsec);
	tap_ok(sec > 1600000000 && nsec < 1000000000u, "wall clock is plausible");
	p = gaze_zalloc(100000);
	for (i = 0; p && i < 100000; i++)
		zero &= !p[i];
	tap_ok(p && zero, "gaze_zalloc returns zeroed memory");
	gaze_free(p);
	p = gaze_alloc(0);
	tap_ok(p != NULL, "gaze_alloc(0) succeeds like kmalloc");
	gaze_free(p);
	tap_ok(gaze_log_level == GAZE_LOG_WARN, "log level defaults to warnings");
}

/* runs the logger with stderr sent to a file and returns what it wrote */
static void
capture_log(char *out, size_t len)
{
	FILE *f = tmpfile();
	int saved = dup(2);
	size_t n;

	fflush(stderr);
	dup2(fileno(f), 2);
	gaze_info("dropped %d", 1);
	gaze_warn("kept %d", 2);
	gaze_err("newline kept once\n");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
}

static void
test_log(void)
{
	char out[256];

	capture_log(out, sizeof(out));
	tap_ok(!strcmp(out, "gaze: kept 2\ngaze: newline kept once\n"),
	       "gaze_log prefixes, filters by level, ends lines once");
}

int
main(void)
{
	test_crc_vectors();
	test_crc_paths();
	test_siphash();
	test_env_misc();
	test_log();
	return tap_done();
}
