/* SPDX-License-Identifier: MIT */
/*
 * The host side of kernel printf (libaccel/backends/cpu/cpu-printf.c) on
 * records the compiler would never write: short or garbage payloads, absurd
 * widths, malformed formats. Each must give -EBADMSG or text, never a crash or a
 * read past the payload (run it under ASan).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

#include "cpu-printf.h"

static int format(const char *fmt, const void *payload, size_t size,
		  char **text)
{
	struct accel_printf_text t = { 0 };
	/* a heap copy of exactly @size bytes: ASan sees any overread */
	uint8_t *p = malloc(size ? size : 1);
	int r;

	assert_non_null(p);
	if (size)
		memcpy(p, payload, size);
	r = accel_printf_format(fmt, p, size, &t);
	free(p);
	if (text)
		*text = t.buf;
	else
		free(t.buf);
	return r;
}

static void test_good(void **state)
{
	int64_t v[4] = { -5, 3, 0, 0 };
	char *text = NULL;

	(void)state;
	assert_int_equal(format("a%db%%c\n", v, 8, &text), 0);
	assert_string_equal(text, "a-5b%c\n");
	free(text);
	/* '*' width -5: left-justified in 5 */
	assert_int_equal(format("[%*d]", v, 16, &text), 0);
	assert_string_equal(text, "[3    ]");
	free(text);
	assert_int_equal(format("", NULL, 0, &text), 0);
	assert_string_equal(text, "");
	free(text);
}

static void test_short_payloads(void **state)
{
	static const char *const fmts[] = {
		"%d", "%s", "%v4hld", "%v16hhx", "%*.*f", "%p", "%c",
		"%v3lf", "%.5s", "%v2hf",
	};
	uint8_t payload[256];

	(void)state;
	memset(payload, 0, sizeof(payload));
	for (unsigned i = 0; i < TEST_ARRAY_SIZE(fmts); i++) {
		/* nothing at all, then one byte short of 8 */
		assert_int_equal(format(fmts[i], payload, 0, NULL), -EBADMSG);
		assert_int_equal(format(fmts[i], payload, 7, NULL), -EBADMSG);
	}
	/* a string longer than its record */
	{
		uint64_t s[2] = { 100, 0 };

		assert_int_equal(format("%s", s, sizeof(s), NULL), -EBADMSG);
		s[0] = UINT64_MAX - 3;
		assert_int_equal(format("%s", s, sizeof(s), NULL), -EBADMSG);
	}
}

static void test_bad_formats(void **state)
{
	static const char *const fmts[] = {
		"%", "%n", "%ls", "%v5d", "%v4s", "%hlf", "%lld", "%q", "%5%",
		"%v", "%hhf",
	};
	int64_t payload[8] = { 0 };

	(void)state;
	for (unsigned i = 0; i < TEST_ARRAY_SIZE(fmts); i++)
		assert_int_equal(format(fmts[i], payload, sizeof(payload),
					NULL),
				 -EBADMSG);
}

/* Huge widths and precisions are clamped, not honoured. */
static void test_clamped(void **state)
{
	int64_t v[3] = { INT64_MAX, INT64_MIN, 7 };
	char *text = NULL;

	(void)state;
	assert_int_equal(format("%*.*d", v, sizeof(v), &text), 0);
	assert_true(strlen(text) <= ACCELC_PRINTF_WIDTH_MAX);
	free(text);
	assert_int_equal(format("%999999999999d", v + 2, 8, &text), 0);
	assert_true(strlen(text) <= ACCELC_PRINTF_WIDTH_MAX);
	free(text);
}

/* Random payloads under every format: any answer but a crash. */
static void test_garbage(void **state)
{
	static const char *const fmts[] = {
		"%d %s %f", "%v16hlf|%s|%v8hd", "%*.*s", "%s%s%s%s", "%p %c %x",
		"%v2la %v3hhu %v4hg",
	};
	uint64_t payload[64];
	unsigned seed = 1;

	(void)state;
	for (unsigned round = 0; round < 2000; round++) {
		size_t size = 8 * (size_t)(rand_r(&seed) % 65);
		char *text = NULL;
		int r;

		/* every third round small values, which pass as string
		 * lengths and reach the copying path */
		for (unsigned i = 0; i < 64; i++)
			payload[i] = round % 3 ?
				((uint64_t)rand_r(&seed) << 33) ^
					(uint64_t)rand_r(&seed) :
				(uint64_t)(rand_r(&seed) % 40);
		r = format(fmts[round % TEST_ARRAY_SIZE(fmts)], payload, size,
			   &text);
		assert_true(r == 0 || r == -EBADMSG);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_short_payloads),
		cmocka_unit_test(test_bad_formats),
		cmocka_unit_test(test_clamped),
		cmocka_unit_test(test_garbage),
	};

	return TEST_RUN_GROUP("printf-format", tests);
}
