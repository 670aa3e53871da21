// SPDX-License-Identifier: GPL-2.0
/*
 * test_util.c - unit tests of lib/util: size parsing and printing, number
 * parsing, UUIDs, the JSON writer (names that are not UTF-8 or hold
 * control characters included), the quoting of names for terminals and
 * the mount check (against a fake mountinfo).  TAP output; exit status 0
 * only when every test passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gaze_util.h"
#include "../tap.h"

static void
test_size_parse(void)
{
	static const struct {
		const char	*s;
		int		ret;
		uint64_t	v;
	} cases[] = {
		{ "4096", 0, 4096 },
		{ "0", 0, 0 },
		{ "64M", 0, 64ull << 20 },
		{ "64m", 0, 64ull << 20 },
		{ "1G", 0, 1ull << 30 },
		{ "1GiB", 0, 1ull << 30 },
		{ "1GB", 0, 1ull << 30 },
		{ "1T", 0, 1ull << 40 },
		{ "2P", 0, 2ull << 50 },
		{ "8K", 0, 8192 },
		{ "1.5G", 0, 3ull << 29 },
		{ "0.5K", 0, 512 },
		{ "512B", 0, 512 },
		{ "15E", 0, 15ull << 60 },
		{ "16E", -ERANGE, 0 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "99999999999999999999T", -ERANGE, 0 },
		{ "17179869184G", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "M", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "1X", -EINVAL, 0 },
		{ "1MM", -EINVAL, 0 },
		{ "1Mi", -EINVAL, 0 },
		{ "1.", -EINVAL, 0 },
		{ "1.5", -EINVAL, 0 },
		{ "0.1K", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		int ret = gaze_size_parse(cases[i].s, &v);

		tap_ok(ret == cases[i].ret && (ret || v == cases[i].v),
		       "size_parse(\"%s\") = %d, %" PRIu64, cases[i].s, ret,
		       ret ? 0 : v);
	}
}

static void
test_size_human(void)
{
	static const struct {
		uint64_t	v;
		const char	*s;
	} cases[] = {
		{ 0, "0 B" },
		{ 1023, "1023 B" },
		{ 1024, "1.00 KiB" },
		{ 1536, "1.50 KiB" },
		{ 1ull << 30, "1.00 GiB" },
		{ 64ull << 20, "64.00 MiB" },
		{ (1ull << 30) - 1, "1.00 GiB" },
		{ 1ull << 40, "1.00 TiB" },
		{ UINT64_MAX, "16.00 EiB" },
	};
	char buf[GAZE_SIZE_HUMAN_LEN];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gaze_size_human(cases[i].v, buf, sizeof(buf));
		tap_ok(!strcmp(buf, cases[i].s),
		       "size_human(%" PRIu64 ") = \"%s\"",
		       cases[i].v, buf);
	}
}

static void
test_uint_parse(void)
{
	uint64_t v = 0;

	tap_ok(!gaze_uint_parse("20", 1, 90, &v) && v == 20, "uint_parse 20");
	tap_ok(gaze_uint_parse("0", 1, 90, &v) == -ERANGE, "uint_parse 0 < 1");
	tap_ok(gaze_uint_parse("91", 1, 90, &v) == -ERANGE,
	       "uint_parse 91 > 90");
	tap_ok(gaze_uint_parse("", 1, 90, &v) == -EINVAL, "uint_parse empty");
	tap_ok(gaze_uint_parse("5%", 1, 90, &v) == -EINVAL, "uint_parse 5%%");
	tap_ok(gaze_uint_parse("-5", 1, 90, &v) == -EINVAL, "uint_parse -5");
	tap_ok(gaze_uint_parse("99999999999999999999", 0, UINT64_MAX, &v) ==
	       -ERANGE, "uint_parse overflow");
}

static void
test_uuid(void)
{
	const char *s = "0f8fad5b-d9cb-469f-a165-70867728950e";
	char buf[GAZE_UUID_STR_LEN];
	uint8_t u[16], u2[16];

	tap_ok(!gaze_uuid_parse(s, u), "uuid_parse valid");
	gaze_uuid_unparse(u, buf);
	tap_ok(!strcmp(buf, s), "uuid round trip");
	tap_ok(!gaze_uuid_parse("0F8FAD5B-D9CB-469F-A165-70867728950E", u2) &&
	       !memcmp(u, u2, 16), "uuid_parse upper case");
	tap_ok(gaze_uuid_parse("0f8fad5b-d9cb-469f-a165-70867728950", u) ==
	       -EINVAL, "uuid_parse short");
	tap_ok(gaze_uuid_parse("random", u) == -EINVAL, "uuid_parse garbage");
	gaze_uuid_generate(u);
	gaze_uuid_generate(u2);
	tap_ok(!gaze_uuid_is_null(u) && memcmp(u, u2, 16) && (u[6] >> 4) == 4,
	       "uuid_generate random v4");
	memset(u, 0, 16);
	tap_ok(gaze_uuid_is_null(u), "uuid_is_null");
	tap_ok(!gaze_random_bytes(u, sizeof(u)) && !gaze_uuid_is_null(u),
	       "random_bytes");
}

static void
test_json(void)
{
	struct gaze_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	f = open_memstream(&buf, &len);
	gaze_json_init(&j, f, false);
	gaze_json_obj_begin(&j, NULL);
	gaze_json_str(&j, "name", "a\"b\\c\n\x01\xff\xc3\xa9");
	gaze_json_u64(&j, "n", 18446744073709551615ull);
	gaze_json_s64(&j, "s", -5);
	gaze_json_arr_begin(&j, "list");
	gaze_json_bool(&j, NULL, true);
	gaze_json_null(&j, NULL);
	gaze_json_obj_begin(&j, NULL);
	gaze_json_obj_end(&j);
	gaze_json_arr_end(&j);
	gaze_json_double(&j, "ratio", 1.5);
	gaze_json_obj_end(&j);
	ret = gaze_json_finish(&j);
	fclose(f);
	tap_ok(!ret && !strcmp(buf,
	       "{\"name\":\"a\\\"b\\\\c\\n\\u0001\xef\xbf\xbd\xc3\xa9\","
	       "\"name_hex\":\"6122625c630a01ffc3a9\",\"n\":18446744073709551615,"
	       "\"s\":-5,\"list\":[true,null,{}],\"ratio\":1.5}\n"),
	       "json compact: %s", buf);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	gaze_json_init(&j, f, true);
	gaze_json_obj_begin(&j, NULL);
	gaze_json_u64(&j, "a", 1);
	gaze_json_arr_begin(&j, "b");
	gaze_json_arr_end(&j);
	gaze_json_obj_end(&j);
	ret = gaze_json_finish(&j);
	fclose(f);
	tap_ok(!ret && !strcmp(buf, "{\n  \"a\": 1,\n  \"b\": []\n}\n"),
	       "json pretty");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	gaze_json_init(&j, f, false);
	gaze_json_obj_begin(&j, NULL);
	gaze_json_u64(&j, NULL, 1);		/* value without a key */
	ret = gaze_json_finish(&j);
	fclose(f);
	tap_ok(ret == -EINVAL, "json misuse detected");
	free(buf);
}

/* the JSON of one string member "s" (compact), or of one array element */
static char *
json_of(const char *val, size_t len, bool in_array)
{
	struct gaze_json j;
	char *buf = NULL;
	size_t blen = 0;
	FILE *f;

	f = open_memstream(&buf, &blen);
	if (!f)
		return NULL;
	gaze_json_init(&j, f, false);
	if (in_array) {
		gaze_json_arr_begin(&j, NULL);
		gaze_json_strn(&j, NULL, val, len);
		gaze_json_arr_end(&j);
	} else {
		gaze_json_obj_begin(&j, NULL);
		gaze_json_strn(&j, "s", val, len);
		gaze_json_obj_end(&j);
	}
	if (gaze_json_finish(&j)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static void
json_expect(const char *val, size_t len, bool in_array, const char *want,
	    const char *what)
{
	char *got = json_of(val, len, in_array);

	tap_ok(got && !strcmp(got, want), "json %s: %.*s", what,
	       got ? (int)strlen(got) - 1 : 8, got ? got : "(failed)");
	free(got);
}

static void
test_json_names(void)
{
	char *a, *b;

	/* the two names issue 19 found printed alike */
	a = json_of("bad\xff\xfeutf8", 9, false);
	b = json_of("bad\xc3\xbf\xc3\xbeutf8", 11, false);
	tap_ok(a && b && strcmp(a, b), "json: byte name and UTF-8 name differ");
	free(a);
	free(b);
	json_expect("bad\xff\xfeutf8", 9, false,
		    "{\"s\":\"bad\xef\xbf\xbd\xef\xbf\xbdutf8\","
		    "\"s_hex\":\"626164fffe75746638\"}\n", "not UTF-8: U+FFFD, s_hex");
	json_expect("bad\xc3\xbf\xc3\xbeutf8", 11, false,
		    "{\"s\":\"bad\xc3\xbf\xc3\xbeutf8\"}\n", "UTF-8 as is, no _hex");
	json_expect("\xf0\x9f\x98\x80", 4, false,
		    "{\"s\":\"\xf0\x9f\x98\x80\"}\n", "4-byte UTF-8 as is");
	json_expect("bad\xff", 4, true, "[\"bad\xef\xbf\xbd\"]\n",
		    "not UTF-8 in an array: U+FFFD only");
	json_expect("\x1b[0m\x7f", 5, false, "{\"s\":\"\\u001b[0m\\u007f\"}\n",
		    "C0 and DEL escaped");
	json_expect("\xc2\x9b\xe2\x80\xae\xe2\x80\xa8", 8, false,
		    "{\"s\":\"\\u009b\\u202e\\u2028\"}\n",
		    "C1, bidi control, line separator escaped");
	json_expect("a\0b", 3, false, "{\"s\":\"a\\u0000b\"}\n", "NUL escaped");
	/* overlong '/', a surrogate, a truncated sequence */
	json_expect("\xc0\xaf", 2, false,
		    "{\"s\":\"\xef\xbf\xbd\xef\xbf\xbd\",\"s_hex\":\"c0af\"}\n",
		    "overlong form is not UTF-8");
	json_expect("\xed\xa0\x80", 3, false,
		    "{\"s\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\","
		    "\"s_hex\":\"eda080\"}\n", "surrogate is not UTF-8");
	json_expect("x\xe2\x82", 3, false,
		    "{\"s\":\"x\xef\xbf\xbd\xef\xbf\xbd\",\"s_hex\":\"78e282\"}\n",
		    "truncated sequence is not UTF-8");
}

static void
quote_expect(const char *in, size_t n, const char *want)
{
	char buf[256], *fbuf = NULL;
	size_t len, flen = 0;
	FILE *f;

	len = gaze_quote(buf, sizeof(buf), in, n);
	f = open_memstream(&fbuf, &flen);
	if (f) {
		gaze_quote_fput(f, in, n);
		fclose(f);
	}
	tap_ok(len == strlen(want) && !strcmp(buf, want) && fbuf &&
	       flen == len && !memcmp(fbuf, want, len) &&
	       len + 1 <= GAZE_QUOTE_MAX(n) &&
	       gaze_quote_needed(in, n) == (len != n || memcmp(in, want, n)),
	       "quote: %s", buf);
	free(fbuf);
}

static void
test_quote(void)
{
	char big[64], buf[8], *p;
	size_t i, len;

	quote_expect("plain", 5, "plain");
	quote_expect("with space", 10, "with space");
	quote_expect("it's", 4, "it's");
	quote_expect("caf\xc3\xa9 \xe6\x97\xa5", 9, "caf\xc3\xa9 \xe6\x97\xa5");
	quote_expect("", 0, "");
	quote_expect("a\nb", 3, "'a'$'\\n''b'");
	quote_expect("\x1b[31mred", 8, "$'\\033''[31mred'");
	quote_expect("bad\xff\xfeutf8", 9, "'bad'$'\\377\\376''utf8'");
	quote_expect("it's\t", 5, "'it'\\''s'$'\\t'");
	quote_expect("'\n", 2, "\\'$'\\n'");
	quote_expect("\a\b\v\f\r\x7f", 6, "$'\\a\\b\\v\\f\\r\\177'");
	quote_expect("\xc2\x9b", 2, "$'\\302\\233'");
	quote_expect("x\xe2\x80\xaey", 5, "'x'$'\\342\\200\\256''y'");
	quote_expect("\xc3\xa9\n", 3, "'\xc3\xa9'$'\\n'");
	quote_expect("a\0b", 3, "'a'$'\\000''b'");

	/* the worst case stays under GAZE_QUOTE_MAX */
	for (i = 0; i < sizeof(big); i++)
		big[i] = i % 2 ? 'a' : '\x01';
	len = gaze_quote(NULL, 0, big, sizeof(big));
	tap_ok(len + 1 <= GAZE_QUOTE_MAX(sizeof(big)),
	       "quote: %zu bytes for 64 alternating bytes", len);

	/* a short buffer is cut and NUL-terminated, the length is whole */
	memset(buf, 'z', sizeof(buf));
	len = gaze_quote(buf, 5, "a\nb", 3);
	tap_ok(len == 11 && !strcmp(buf, "'a'$") && buf[5] == 'z',
	       "quote: cut to the buffer, needs %zu", len);

	p = gaze_quote_dup("\x1b]0;owned\a");
	tap_ok(p && !strcmp(p, "$'\\033'']0;owned'$'\\a'"), "quote_dup: %s",
	       p ? p : "(null)");
	free(p);
}

static void
test_mount(void)
{
	char dir[PATH_MAX], img[PATH_MAX + 16], mi[PATH_MAX + 16];
	char where[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	const char *p;
	FILE *f;
	int fd;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/gaze-util.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp %s", dir);
		return;
	}
	snprintf(img, sizeof(img), "%s/my img", dir);
	snprintf(mi, sizeof(mi), "%s/mountinfo", dir);
	fd = open(img, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);

	f = fopen(mi, "w");
	if (!f) {
		tap_ok(0, "create %s", mi);
		goto out_rm;
	}
	fprintf(f, "22 1 0:21 / /proc rw - proc proc rw\n");
	fprintf(f, "36 35 98:0 / /mnt1 rw,noatime master:1 - ext3 /dev/root rw\n");
	fclose(f);
	setenv("GAZE_TEST_MOUNTINFO", mi, 1);
	tap_ok(gaze_mount_check(img, where, sizeof(where)) == 0,
	       "image not in mountinfo: not mounted");

	f = fopen(mi, "a");
	if (!f) {
		tap_ok(0, "append to %s", mi);
		goto out_rm;
	}
	fprintf(f, "40 35 7:3 / /mnt/my\\040dir rw shared:7 - gaze ");
	for (p = img; *p; p++) {
		if (*p == ' ')
			fputs("\\040", f);
		else
			fputc(*p, f);
	}
	fprintf(f, " rw\n");
	fclose(f);
	tap_ok(gaze_mount_check(img, where, sizeof(where)) == 1 &&
	       !strcmp(where,
		       "/mnt/my dir"), "image in mountinfo: mounted on %s",
	       where);
	tap_ok(gaze_mount_check("/nonexistent/gaze", where, sizeof(where)) ==
	       -ENOENT, "missing path: -ENOENT");

	setenv("GAZE_TEST_MOUNTINFO", "/nonexistent/mountinfo", 1);
	tap_ok(gaze_mount_check(img, where, sizeof(where)) < 0,
	       "unreadable mountinfo is an error");
	unsetenv("GAZE_TEST_MOUNTINFO");
	tap_ok(gaze_mount_check("/", where, sizeof(where)) >= 0,
	       "real mountinfo readable");
out_rm:
	unsetenv("GAZE_TEST_MOUNTINFO");
	unlink(img);
	unlink(mi);
	rmdir(dir);
}

int
main(void)
{
	test_size_parse();
	test_size_human();
	test_uint_parse();
	test_uuid();
	test_json();
	test_json_names();
	test_quote();
	test_mount();
	return tap_done();
}
