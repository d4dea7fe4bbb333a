/* SPDX-License-Identifier: MIT */
/*
 * The program cache under its size cap: the least recently used entries
 * go, down to 4/5 of the cap; the "size" file counts the entries' bytes
 * so that a store lists the directory only past the cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "accelc.h"
#include "cache-test.h"

static void test_eviction(void **state)
{
	struct env *e = *state;
	char s[3][128];
	struct build b = { 0 };
	uint64_t one, total;

	for (int i = 0; i < 3; i++)
		numbered_src(s[i], sizeof(s[i]), 1000 + i);
	b.src = s[0];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(count_entries(e, &one), 1);
	/*
	 * Room for two entries (they differ in a digit at most); eviction
	 * leaves 4/5 of the cap, which is two entries still.
	 */
	b.max_size = 2 * one + one * 9 / 10;
	b.src = s[1];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(count_entries(e, NULL), 2);
	/* a hit makes s[0] the youngest ... */
	usleep(20000);
	b.src = s[0];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	usleep(20000);
	/* ... so s[1] goes when s[2] comes */
	b.src = s[2];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(count_entries(e, &total), 2);
	assert_true(total <= b.max_size);
	b.src = s[0];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	b.src = s[2];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	b.src = s[1];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	/* an entry above the cap is not stored at all */
	b.max_size = one / 2;
	b.src = "kernel void k(global int *o) { o[0] = 5; }\n";
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
}

/* The "size" file: what a store reads instead of listing the entries. */
static uint64_t read_size_file(struct env *e)
{
	char p[512];
	unsigned long long v = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/size", e->dir);
	f = fopen(p, "re");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu", &v), 1);
	fclose(f);
	return v;
}

static void write_size_file(struct env *e, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/size", e->dir);
	f = fopen(p, "we");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_size_count(void **state)
{
	struct env *e = *state;
	struct build b = { 0 };
	char s[6][128];
	uint64_t one, total;

	for (int i = 0; i < 6; i++)
		numbered_src(s[i], sizeof(s[i]), 2000 + i);
	b.src = s[0];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(count_entries(e, &one), 1);
	assert_int_equal(read_size_file(e), one);
	b.src = s[1];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(count_entries(e, &total), 2);
	assert_int_equal(read_size_file(e), total);

	/* a count below the cap is believed: nothing is listed or evicted */
	b.max_size = 2 * one + one * 9 / 10;
	write_size_file(e, "0\n");
	b.src = s[2];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(count_entries(e, NULL), 3);

	/* a count that cannot be read is rebuilt from the listing */
	write_size_file(e, "garbage");
	b.src = s[3];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(count_entries(e, &total), 2);
	assert_true(total <= b.max_size / 5 * 4);
	assert_int_equal(read_size_file(e), total);

	/* a count above the cap lists and evicts, down to 4/5 of it */
	write_size_file(e, "18446744073709551000\n");
	b.src = s[4];
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(count_entries(e, &total), 2);
	assert_int_equal(read_size_file(e), total);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_eviction),
		T(test_size_count),
	};

	/* the tests name their directories; the environment must not */
	unsetenv("ACCEL_CACHE");
	unsetenv("ACCEL_CACHE_MAX_SIZE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
