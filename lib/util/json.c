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

/*
 * The characters of s (n bytes) between the quotes: RFC 8259 escapes,
 * \uXXXX for what is not printable (all of it in the BMP), and U+FFFD
 * for each byte that is not part of a valid UTF-8 sequence.
 */
static void
put_chars(FILE *f, const char *s, size_t n)
{
	size_t i = 0, l;
	uint32_t cp;

	while (i < n) {
		unsigned char c = s[i];

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
			l = gaze_utf8_len(s + i, n - i, &cp);
			if (!l)
				fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			else if (!gaze_char_printable(cp))
				fprintf(f, "\\u%04x", (unsigned int)cp);
			else
				fwrite(s + i, 1, l, f);
			i += l ? l : 1;
			continue;
		}
		i++;
	}
}

static void
put_string(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	put_chars(f, s, n);
	fputc('"', f);
}

/* comma, newline/indent and key (with suffix, if any) before a value */
static bool
prefix_sfx(struct gaze_json *j, const char *key, const char *suffix)
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
		fputc('"', j->f);
		put_chars(j->f, key, strlen(key));
		if (suffix)
			fputs(suffix, j->f);
		fputs(j->pretty ? "\": " : "\":", j->f);
	}
	return true;
}

static bool
prefix(struct gaze_json *j, const char *key)
{
	return prefix_sfx(j, key, NULL);
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
	const unsigned char *p = (const unsigned char *)val;
	size_t i;

	if (!prefix(j, key))
		return;
	put_string(j->f, val, len);
	/*
	 * Why a second member: the U+FFFD form cannot be told from a UTF-8
	 * string that holds U+FFFD, and a file name is bytes; KEY_hex is
	 * the name exactly, for a script that must act on it.
	 */
	if (!key || gaze_utf8_valid(val, len) || !prefix_sfx(j, key, "_hex"))
		return;
	fputc('"', j->f);
	for (i = 0; i < len; i++)
		fprintf(j->f, "%02x", p[i]);
	fputc('"', j->f);
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
