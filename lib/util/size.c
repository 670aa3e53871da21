// SPDX-License-Identifier: GPL-2.0
/*
 * size.c - size and number parsing, human-readable sizes.
 *
 * Why: every tool takes sizes on its command line ("64M", "1G") and must
 * reject the same garbage the same way; silently wrapping "20E" to a small
 * number is how a tool formats the wrong amount of a disk.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gaze_util.h"

static int
suffix_shift(char c)
{
	switch (toupper((unsigned char)c)) {
	case 'K':
		return 10;
	case 'M':
		return 20;
	case 'G':
		return 30;
	case 'T':
		return 40;
	case 'P':
		return 50;
	case 'E':
		return 60;
	}
	return -1;
}

int
gaze_size_parse(const char *s, uint64_t *bytes)
{
	uint64_t whole = 0, frac = 0, fdiv = 1, val;
	const char *p = s;
	bool digits = false, fdigits = false;
	int shift = 0;

	if (!s)
		return -EINVAL;
	while (isdigit((unsigned char)*p)) {
		unsigned int d = *p - '0';

		if (whole > (UINT64_MAX - d) / 10)
			return -ERANGE;
		whole = whole * 10 + d;
		digits = true;
		p++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			/* 18 digits of fraction is more than 2^60 resolves */
			if (fdiv < 1000000000000000000ull) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				fdiv *= 10;
			} else if (*p != '0') {
				return -EINVAL;
			}
			fdigits = true;
			p++;
		}
		if (!fdigits)
			return -EINVAL;
	}
	if (!digits && !fdigits)
		return -EINVAL;

	if (*p) {
		shift = suffix_shift(*p);
		if (shift < 0) {
			/* a bare "B" is bytes */
			if ((*p == 'B' || *p == 'b') && !p[1])
				shift = 0;
			else
				return -EINVAL;
			p++;
		} else {
			p++;
			if ((p[0] == 'i' || p[0] == 'I') &&
			    (p[1] == 'B' || p[1] == 'b'))
				p += 2;
			else if (p[0] == 'B' || p[0] == 'b')
				p++;
		}
		if (*p)
			return -EINVAL;
	}

	if (shift && whole > (UINT64_MAX >> shift))
		return -ERANGE;
	val = whole << shift;
	if (frac) {
		/* frac / fdiv of 2^shift must be a whole number of bytes */
		unsigned __int128 f = (unsigned __int128)frac << shift;

		if (f % fdiv)
			return -EINVAL;
		f /= fdiv;
		if (f > UINT64_MAX - val)
			return -ERANGE;
		val += (uint64_t)f;
	}
	*bytes = val;
	return 0;
}

char *
gaze_size_human(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = {
		"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	unsigned int i = 0;
	double v;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	v = (double)bytes / 1024.0;
	while (v >= 1024.0 && i + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		i++;
	}
	/* avoid printing "1024.00 MiB" for values that round up */
	if (v >= 1023.995 && i + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		i++;
	}
	snprintf(buf, len, "%.2f %s", v, units[i]);
	return buf;
}

int
gaze_uint_parse(const char *s, uint64_t lo, uint64_t hi, uint64_t *val)
{
	uint64_t v = 0;
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	for (; *p; p++) {
		unsigned int d;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		d = *p - '0';
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (v < lo || v > hi)
		return -ERANGE;
	*val = v;
	return 0;
}
