// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - a small streaming JSON writer for --json output.
 *
 * Why: scripts parse the tools' --json output, so it must always be valid
 * JSON whatever the names in a filesystem contain; keeping commas, nesting
 * and escaping in one place is how that stays true.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "gaze_util.h"

void
gaze_json_init(struct gaze_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true;
}

static void
indent(struct gaze_json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* UTF-8 sequence length at p (max n bytes), 0 if invalid */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
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
	return len;
}

static void
put_string(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	fputc('"', f);
	while (i < n) {
		unsigned char c = p[i];
		size_t l;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "\\u%04x", c);
				break;
			}
			l = utf8_len(p + i, n - i);
			if (!l) {
				/* not UTF-8: keep the byte value visible */
				fprintf(f, "\\u%04x", c);
				break;
			}
			fwrite(p + i, 1, l, f);
			i += l;
			continue;
		}
		i++;
	}
	fputc('"', f);
}

/* comma, newline/indent and key before a value */
static bool
prefix(struct gaze_json *j, const char *key)
{
	bool in_obj = j->depth > 0 && j->is_obj[j->depth];

	if (j->depth == 0 && !j->first[0]) {
		j->error = -EINVAL;	/* second top-level value */
		return false;
	}
	if ((in_obj && !key) || (!in_obj && key)) {
		j->error = -EINVAL;
		return false;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->depth > 0)
		indent(j);
	if (key) {
		put_string(j->f, key, strlen(key));
		fputs(j->pretty ? ": " : ":", j->f);
	}
	return true;
}

static void
begin(struct gaze_json *j, const char *key, bool obj)
{
	if (!prefix(j, key))
		return;
	if (j->depth + 1 >= GAZE_JSON_MAX_DEPTH) {
		j->error = -EINVAL;
		return;
	}
	fputc(obj ? '{' : '[', j->f);
	j->depth++;
	j->first[j->depth] = true;
	j->is_obj[j->depth] = obj;
}

static void
end(struct gaze_json *j, bool obj)
{
	bool empty;

	if (j->depth == 0 || j->is_obj[j->depth] != obj) {
		j->error = -EINVAL;
		return;
	}
	empty = j->first[j->depth];
	j->depth--;
	if (!empty)
		indent(j);
	fputc(obj ? '}' : ']', j->f);
}

void
gaze_json_obj_begin(struct gaze_json *j, const char *key)
{
	begin(j, key, true);
}

void
gaze_json_obj_end(struct gaze_json *j)
{
	end(j, true);
}

void
gaze_json_arr_begin(struct gaze_json *j, const char *key)
{
	begin(j, key, false);
}

void
gaze_json_arr_end(struct gaze_json *j)
{
	end(j, false);
}

void
gaze_json_strn(struct gaze_json *j, const char *key, const char *val,
	       size_t len)
{
	if (prefix(j, key))
		put_string(j->f, val, len);
}

void
gaze_json_str(struct gaze_json *j, const char *key, const char *val)
{
	if (!val) {
		gaze_json_null(j, key);
		return;
	}
	gaze_json_strn(j, key, val, strlen(val));
}

void
gaze_json_u64(struct gaze_json *j, const char *key, uint64_t val)
{
	if (prefix(j, key))
		fprintf(j->f, "%" PRIu64, val);
}

void
gaze_json_s64(struct gaze_json *j, const char *key, int64_t val)
{
	if (prefix(j, key))
		fprintf(j->f, "%" PRId64, val);
}

void
gaze_json_double(struct gaze_json *j, const char *key, double val)
{
	if (!prefix(j, key))
		return;
	if (isfinite(val))
		fprintf(j->f, "%.6g", val);
	else
		fputs("null", j->f);	/* JSON has no NaN or infinity */
}

void
gaze_json_bool(struct gaze_json *j, const char *key, bool val)
{
	if (prefix(j, key))
		fputs(val ? "true" : "false", j->f);
}

void
gaze_json_null(struct gaze_json *j, const char *key)
{
	if (prefix(j, key))
		fputs("null", j->f);
}

int
gaze_json_finish(struct gaze_json *j)
{
	if (j->depth != 0 && !j->error)
		j->error = -EINVAL;
	fputc('\n', j->f);
	fflush(j->f);
	return j->error;
}
