// SPDX-License-Identifier: GPL-2.0
/*
 * text.c - UTF-8 validation and shell quoting of names for terminals.
 *
 * Why: names and symlink targets read from an image are bytes chosen by
 * whoever wrote the image.  Printed raw, an escape sequence in a name
 * drives the admin's terminal and a newline splits a row of output; so
 * every human output quotes a name that holds anything but printable
 * UTF-8, the way GNU ls does in its shell-escape style:
 *
 *	a<newline>b	'a'$'\n''b'
 *	x<0xff>		'x'$'\377'
 *	it's<tab>	'it'\''s'$'\t'
 *
 * The result is one word that bash, ksh and zsh read back as the exact
 * bytes.  Printable names, spaces and quotes included, are left alone so
 * that the common case reads as it always did.
 *
 * "Printable" does not depend on the locale (the tools never call
 * setlocale(3), and a test must see the same output everywhere): every
 * valid UTF-8 character is, except the C0 and C1 control characters and
 * DEL, the line and paragraph separators, and the bidirectional controls
 * that reorder the text displayed after them.  JSON output escapes the
 * same characters (json.c).
 */
#include <stdlib.h>
#include <string.h>

#include "gaze_util.h"

size_t
gaze_utf8_len(const void *s, size_t n, uint32_t *cp_out)
{
	const unsigned char *p = s;
	size_t len, i;
	uint32_t cp;

	if (!n)
		return 0;
	if (p[0] < 0x80) {
		len = 1;
		cp = p[0];
		goto out;
	}
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond Unicode */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
out:
	if (cp_out)
		*cp_out = cp;
	return len;
}

bool
gaze_utf8_valid(const void *s, size_t n)
{
	const char *p = s;
	size_t i = 0, l;

	while (i < n) {
		l = gaze_utf8_len(p + i, n - i, NULL);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

bool
gaze_char_printable(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		return false;		/* C0, DEL, C1 */
	if (cp == 0x2028 || cp == 0x2029)
		return false;		/* line and paragraph separators */
	if (cp == 0x200e || cp == 0x200f || cp == 0x061c ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return false;		/* bidirectional controls */
	return true;
}

/* how long a printable character (or 0: a byte to escape) is at p */
static size_t
quote_plain_len(const char *p, size_t n)
{
	uint32_t cp;
	size_t l = gaze_utf8_len(p, n, &cp);

	return l && gaze_char_printable(cp) ? l : 0;
}

bool
gaze_quote_needed(const char *s, size_t n)
{
	size_t i = 0, l;

	while (i < n) {
		l = quote_plain_len(s + i, n - i);
		if (!l)
			return true;
		i += l;
	}
	return false;
}

/* where quoted text goes: a FILE, or a buffer filled like snprintf */
struct qsink {
	FILE	*f;
	char	*buf;
	size_t	size, len;
};

static void
q_put(struct qsink *q, const char *s, size_t n)
{
	if (q->f) {
		fwrite(s, 1, n, q->f);
	} else if (q->len < q->size) {
		size_t room = q->size - q->len;

		memcpy(q->buf + q->len, s, n < room ? n : room);
	}
	q->len += n;
}

/* one byte in $'...': the C escape where bash has one, else octal */
static void
q_escape(struct qsink *q, unsigned char c)
{
	static const char cesc[] = "\aa\bb\tt\nn\vv\ff\rr";
	const char *e = c ? memchr(cesc, c, sizeof(cesc) - 1) : NULL;
	char oct[4];

	if (e && (e - cesc) % 2 == 0) {
		oct[0] = '\\';
		oct[1] = e[1];
		q_put(q, oct, 2);
		return;
	}
	oct[0] = '\\';
	oct[1] = '0' + (c >> 6);
	oct[2] = '0' + ((c >> 3) & 7);
	oct[3] = '0' + (c & 7);
	q_put(q, oct, 4);
}

/*
 * Runs of printable characters go in '...', a quote as \', and runs of
 * other bytes in $'...'; together they are one shell word.
 */
static void
quote_to(struct qsink *q, const char *s, size_t n)
{
	size_t i = 0, l, start;

	if (!gaze_quote_needed(s, n)) {
		q_put(q, s, n);
		return;
	}
	while (i < n) {
		if (s[i] == '\'') {
			q_put(q, "\\'", 2);
			i++;
			continue;
		}
		start = i;
		while (i < n && s[i] != '\'' &&
		       (l = quote_plain_len(s + i, n - i)))
			i += l;
		if (i > start) {
			q_put(q, "'", 1);
			q_put(q, s + start, i - start);
			q_put(q, "'", 1);
			continue;
		}
		q_put(q, "$'", 2);
		while (i < n && !quote_plain_len(s + i, n - i))
			q_escape(q, (unsigned char)s[i++]);
		q_put(q, "'", 1);
	}
}

size_t
gaze_quote(char *buf, size_t size, const char *s, size_t n)
{
	struct qsink q = { .buf = buf, .size = size };

	quote_to(&q, s, n);
	if (size)
		buf[q.len < size ? q.len : size - 1] = '\0';
	return q.len;
}

void
gaze_quote_fput(FILE *f, const char *s, size_t n)
{
	struct qsink q = { .f = f };

	quote_to(&q, s, n);
}

char *
gaze_quote_dup(const char *s)
{
	size_t n = strlen(s), len = gaze_quote(NULL, 0, s, n);
	char *p = malloc(len + 1);

	if (p)
		gaze_quote(p, len + 1, s, n);
	return p;
}
