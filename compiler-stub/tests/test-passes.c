/* SPDX-License-Identifier: MIT */
/*
 * The table of passes (passes.c): every pass's facts are met by the
 * passes before it; accelc --print-passes and README.md list the table
 * as it is; a build runs exactly that list in that order
 * ($ACCELC_TRACE_PASSES), skipping what it does not need; and the loop
 * refuses a pass whose facts do not hold.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accelc.h"
#include "pipeline.h"

#define MAX_LINES 256

/* Lines of @p text starting with @p prefix, the prefix cut off;
 * @return how many (their text is in *@p buf, to free). */
static size_t lines_with(const char *text, const char *prefix,
			 char **lines, char **buf)
{
	size_t n = 0, pl = strlen(prefix);
	char *save = NULL;

	*buf = strdup(text);
	assert_non_null(*buf);
	for (char *l = strtok_r(*buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save))
		if (!strncmp(l, prefix, pl)) {
			assert_true(n < MAX_LINES);
			lines[n++] = l + pl;
		}
	return n;
}

/* accelc --print-passes, its whole output (malloc'ed) */
static char *print_passes(void)
{
	FILE *f = popen(ACCELC_CLI " --print-passes", "r");
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	size_t n;

	assert_non_null(f);
	assert_non_null(out);
	while ((n = fread(out + len, 1, cap - 1 - len, f)) > 0)
		len += n;
	out[len] = '\0';
	assert_true(len < cap - 1);
	assert_int_equal(pclose(f), 0);
	return out;
}

/* The names --print-passes lists, in its order ("N. NAME (STAGE): ..."). */
static size_t listed_names(char *out, char **names)
{
	size_t n = 0;
	char *save = NULL;

	for (char *l = strtok_r(out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		unsigned num;
		int at = 0;
		char *sp;

		if (sscanf(l, "%u. %n", &num, &at) != 1 || !at)
			continue;
		assert_int_equal(num, n + 1);
		sp = strchr(l + at, ' ');
		assert_non_null(sp);
		*sp = '\0';
		assert_true(n < MAX_LINES);
		names[n++] = l + at;
	}
	return n;
}

static void test_facts_in_order(void **state)
{
	uint32_t facts = 0, provided = 0;

	(void)state;
	assert_true(accelc_n_passes > 0);
	for (size_t i = 0; i < accelc_n_passes; i++) {
		const struct accelc_pass *p = &accelc_passes[i];

		assert_non_null(p->name);
		assert_non_null(p->stage);
		assert_non_null(p->what);
		assert_non_null(p->run);
		/* a condition comes with the text saying it */
		assert_true(!p->wanted == !p->when);
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(accelc_passes[k].name, p->name);
		if ((p->requires & ~facts) || (p->before & facts))
			fail_msg("pass %s: facts not met in table order",
				 p->name);
		facts |= p->provides;
		provided |= p->requires | p->before | p->provides;
	}
	/* every fact named and used */
	for (unsigned f = 0; f < ACCELC_N_FACTS; f++) {
		assert_non_null(accelc_fact_names[f]);
		assert_true(provided & (1u << f));
	}
}

static void test_listing_is_the_table(void **state)
{
	char *out = print_passes(), *names[MAX_LINES];
	size_t n;

	(void)state;
	assert_non_null(strstr(out, "requires:"));
	n = listed_names(out, names);
	assert_int_equal(n, accelc_n_passes);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(names[i], accelc_passes[i].name);
	free(out);
}

/* README.md's table of passes: "| N | `NAME` | STAGE | ...", in order. */
static void test_readme_is_the_table(void **state)
{
	FILE *f = fopen(ACCELC_SOURCE_DIR "/README.md", "r");
	char line[1024], name[128], stage[32];
	size_t n = 0;

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned num;

		if (sscanf(line, "| %u | `%127[^`]` | %31[^ |] |", &num, name,
			   stage) != 3)
			continue;
		assert_true(n < accelc_n_passes);
		assert_int_equal(num, n + 1);
		assert_string_equal(name, accelc_passes[n].name);
		assert_string_equal(stage, accelc_passes[n].stage);
		n++;
	}
	fclose(f);
	assert_int_equal(n, accelc_n_passes);
}

static const char two_kernels[] =
	"kernel void plain(global float *x)\n"
	"{\n"
	"	x[get_global_id(0)] *= 2.0f;\n"
	"}\n"
	"kernel void rev(global float *x, local float *t)\n"
	"{\n"
	"	size_t l = get_local_id(0);\n"
	"\n"
	"	t[l] = x[get_global_id(0)];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	x[get_global_id(0)] = t[get_local_size(0) - 1 - l];\n"
	"}\n";

/*
 * Build @p src with @p opts and @p flags, tracing the passes, and compare
 * the trace with what --print-passes lists: the same names in the same
 * order, "(skipped)" on exactly the passes named in @p skipped.
 */
static void trace_matches(const char *src, const char *opts, uint32_t flags,
			  const char *const *skipped)
{
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res = NULL;
	char *out = print_passes(), *names[MAX_LINES], *ran[MAX_LINES];
	char *buf;
	size_t n, nr;

	o.flags = flags | ACCELC_FLAG_NO_CACHE;
	o.build_options = opts;
	assert_int_equal(setenv("ACCELC_TRACE_PASSES", "1", 1), 0);
	assert_int_equal(accelc_compile(&o, src, strlen(src), &res), 0);
	unsetenv("ACCELC_TRACE_PASSES");
	n = listed_names(out, names);
	nr = lines_with(accelc_result_get_log(res), "pass: ", ran, &buf);
	assert_int_equal(nr, n);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		bool skip = false;

		for (const char *const *s = skipped; *s; s++)
			skip |= !strcmp(*s, names[i]);
		assert_memory_equal(ran[i], names[i], len);
		assert_string_equal(ran[i] + len, skip ? " (skipped)" : "");
	}
	free(buf);
	free(out);
	accelc_result_free(res);
}

static void test_trace_optimising(void **state)
{
	static const char *const skipped[] = { "emit-asm", NULL };

	(void)state;
	trace_matches(two_kernels, NULL, ACCELC_FLAG_KEEP_IR, skipped);
}

static void test_trace_not_optimising(void **state)
{
	static const char *const skipped[] = {
		"link-fiber-runtime", "wrappers-ssa", "verify-regions",
		"ids32-variants", "streaming-variants", "guards", "keep-ir",
		NULL,
	};
	static const char src[] =
		"kernel void k(global int *o) { o[get_global_id(0)] = 1; }\n";

	(void)state;
	trace_matches(src, "-cl-opt-disable", ACCELC_FLAG_KEEP_ASM, skipped);
}

/* Without $ACCELC_TRACE_PASSES the log says nothing of the passes. */
static void test_no_trace(void **state)
{
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res = NULL;

	(void)state;
	o.flags = ACCELC_FLAG_NO_CACHE;
	unsetenv("ACCELC_TRACE_PASSES");
	assert_int_equal(accelc_compile(&o, two_kernels, strlen(two_kernels),
					&res), 0);
	assert_null(strstr(accelc_result_get_log(res), "pass: "));
	accelc_result_free(res);
}

static int runs;

static int count_run(struct accelc_pass_ctx *c)
{
	(void)c;
	runs++;
	return 0;
}

static bool never(const struct accelc_pass_ctx *c)
{
	(void)c;
	return false;
}

/* Run @p n @p passes on an empty context: the error, the log. */
static int run_table(const struct accelc_pass *passes, size_t n,
		     struct strbuf *log)
{
	struct accelc_pass_ctx c = { .st = { .log = log } };

	runs = 0;
	return accelc_run_passes_of(&c, passes, n);
}

static void test_loop_checks_facts(void **state)
{
	const uint32_t a = ACCELC_FACT(MODULE), b = ACCELC_FACT(KERNELS);
	const struct accelc_pass good[] = {
		{ "one", "lower", "-", NULL, 0, b, a, NULL, count_run },
		{ "two", "lower", "-", NULL, a, 0, b, NULL, count_run },
		/* skipped, yet its fact holds: nothing was to be done */
		{ "three", "lower", "-", "never", a, 0, b, never, count_run },
	};
	const struct accelc_pass missing[] = {
		{ "one", "lower", "-", NULL, 0, 0, a, NULL, count_run },
		{ "two", "lower", "-", NULL, a | b, 0, 0, NULL, count_run },
	};
	const struct accelc_pass late[] = {
		{ "one", "lower", "-", NULL, 0, 0, b, NULL, count_run },
		{ "two", "lower", "-", NULL, 0, b, a, NULL, count_run },
	};
	struct strbuf log = { 0 };

	(void)state;
	assert_int_equal(run_table(good, 3, &log), 0);
	assert_int_equal(runs, 2);
	assert_null(log.buf);

	assert_int_equal(run_table(missing, 2, &log), -EIO);
	assert_int_equal(runs, 1);
	assert_non_null(strstr(log.buf, "pass two needs kernels"));
	assert_null(strstr(log.buf, "needs module"));
	strbuf_free(&log);

	assert_int_equal(run_table(late, 2, &log), -EIO);
	assert_int_equal(runs, 1);
	assert_non_null(strstr(log.buf, "pass two must come before kernels"));
	strbuf_free(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts_in_order),
		cmocka_unit_test(test_listing_is_the_table),
		cmocka_unit_test(test_readme_is_the_table),
		cmocka_unit_test(test_trace_optimising),
		cmocka_unit_test(test_trace_not_optimising),
		cmocka_unit_test(test_no_trace),
		cmocka_unit_test(test_loop_checks_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
