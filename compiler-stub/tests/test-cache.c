/* SPDX-License-Identifier: MIT */
/*
 * The on-disk program cache: hits, misses on every part of the key (the
 * code generator's identity among them), bad
 * entries (corrupt, truncated, foreign) rebuilt and never loaded, a
 * directory that is not private, two processes building at once
 * (eviction: test-cache-evict.c). Each test has a directory of its own.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "accelc.h"
#include "cache.h"
#include "cache-test.h"

static uint32_t build_src(struct env *e, const char *s)
{
	struct build b = { .src = s };

	return build_st(e, &b, NULL);
}

/* Run the kernel k of a fresh build: VAL + 1 from the include file. */
static int run_k(struct env *e)
{
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res = NULL;
	char opts[128];
	void *dl;
	int r;

	/* the options build_st() gives: the same key */
	snprintf(opts, sizeof(opts), "-I%s ", e->inc);
	o.build_options = opts;
	o.cache_dir = e->dir;
	assert_int_equal(accelc_compile(&o, src, strlen(src), &res), 0);
	assert_int_equal(accelc_result_get_cache_status(res),
			 ACCELC_CACHE_HIT);
	dl = dlopen(accelc_result_get_path(res), RTLD_NOW | RTLD_LOCAL);
	assert_non_null(dl);
	r = dlsym(dl, accelc_result_find_kernel(res, "k")->wg_symbol) ? 0 : -1;
	dlclose(dl);
	accelc_result_free(res);
	return r;
}

/* The path of the only entry. */
static const char *one_entry(struct env *e)
{
	assert_int_equal(count_entries(e, NULL), 1);
	return e->entry;
}

static void test_hit(void **state)
{
	struct env *e = *state;
	struct build b = { 0 };
	char *log1, *log2;
	struct stat st;

	assert_int_equal(build_st(e, &b, &log1), ACCELC_CACHE_MISS);
	assert_int_equal(build_st(e, &b, &log2), ACCELC_CACHE_HIT);
	/* the stored log comes back with the hit */
	assert_string_equal(log1, log2);
	free(log1);
	free(log2);
	assert_int_equal(run_k(e), 0);
	/* private directory and entry */
	assert_int_equal(stat(e->dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(stat(one_entry(e), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* a comment is not in the preprocessed source: still a hit (as
	 * long as lines stay where they are: the log has line numbers) */
	assert_int_equal(build_src(e, "#include \"val.h\" // the value\n"
				      "kernel void k(global int *o) "
				      "{ o[get_global_id(0)] = VAL /**/ + 1; "
				      "}\n"),
			 ACCELC_CACHE_HIT);
}

/* How many times the logging clang wrapper of @p e ran. */
static int clang_runs(const char *log)
{
	FILE *f = fopen(log, "r");
	int c, n = 0;

	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

/*
 * A source that includes nothing is its own key: a hit runs no clang at
 * all, where one that includes a file is preprocessed first. A wrapper
 * that logs each run stands in for clang.
 */
static void test_hit_without_clang(void **state)
{
	static const char plain[] =
		"kernel void k(global int *o) { o[get_global_id(0)] = 3; }\n";
	struct env *e = *state;
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res;
	char opts[256], wrapper[160], log[160], text[512];
	const char *srcs[] = { plain, src };
	int before;

	snprintf(wrapper, sizeof(wrapper), "%s/clang", e->inc);
	snprintf(log, sizeof(log), "%s/clang.log", e->inc);
	snprintf(text, sizeof(text), "#!/bin/sh\necho run >> %s\n"
		 "exec \"${ACCEL_CLANG:-clang-16}\" \"$@\"\n", log);
	write_text(wrapper, text);
	assert_int_equal(chmod(wrapper, 0755), 0);

	snprintf(opts, sizeof(opts), "-I%s ", e->inc);
	o.build_options = opts;
	o.cache_dir = e->dir;
	o.clang_path = wrapper;
	for (int i = 0; i < 2; i++) {
		res = NULL;
		assert_int_equal(accelc_compile(&o, srcs[i], strlen(srcs[i]),
						&res), 0);
		assert_int_equal(accelc_result_get_cache_status(res),
				 ACCELC_CACHE_MISS);
		accelc_result_free(res);
		before = clang_runs(log);
		res = NULL;
		assert_int_equal(accelc_compile(&o, srcs[i], strlen(srcs[i]),
						&res), 0);
		assert_int_equal(accelc_result_get_cache_status(res),
				 ACCELC_CACHE_HIT);
		accelc_result_free(res);
		/* plain: no run; with #include: clang -E only */
		assert_int_equal(clang_runs(log) - before, i);
	}
}

/*
 * Words the preprocessor sees that a search of the text does not: line
 * splices (after blanks too, or by the trigraph ??/), token pasting (## and
 * its digraph) making __has_include, a trigraph '#'. Such a source is preprocessed for its key
 * (clang runs once on a hit), and the change of a header it includes
 * that way is a miss.
 */
#define KERNEL "kernel void k(global int *o) { o[get_global_id(0)] = "
static const char *const hidden[] = {
	"#inc\\\nlude \"val.h\"\n" KERNEL "VAL + 0; }\n",
	"#inc\\ \t\nlude \"val.h\"\n" KERNEL "VAL + 1; }\n",
	"#inc\\\r\nlude \"val.h\"\n" KERNEL "VAL + 2; }\n",
	"#inc?" "?/\nlude \"val.h\"\n" KERNEL "VAL + 3; }\n",
	"??" "=inc\\\nlude \"val.h\"\n" KERNEL "VAL + 4; }\n",
	"#if __has_inc\\\nlude(\"val.h\")\n" KERNEL "5; }\n#endif\n",
	"#define C(a, b) a##b\n#if C(__has_inc, lude)(\"val.h\")\n"
	KERNEL "6; }\n#endif\n",
	"%:define C(a, b) a%:%:b\n#if C(__has_inc, lude)(\"val.h\")\n"
	KERNEL "7; }\n#endif\n",
};

static void write_clang_wrapper(struct env *e, char *wrapper, size_t wl,
				char *log, size_t ll)
{
	char text[512];

	snprintf(wrapper, wl, "%s/clang", e->inc);
	snprintf(log, ll, "%s/clang.log", e->inc);
	snprintf(text, sizeof(text), "#!/bin/sh\necho run >> %s\n"
		 "exec \"${ACCEL_CLANG:-clang-16}\" \"$@\"\n", log);
	write_text(wrapper, text);
	assert_int_equal(chmod(wrapper, 0755), 0);
}

static void test_hidden_words(void **state)
{
	struct env *e = *state;
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res;
	char opts[256], wrapper[160], log[160];
	int before;

	write_clang_wrapper(e, wrapper, sizeof(wrapper), log, sizeof(log));
	snprintf(opts, sizeof(opts), "-I%s ", e->inc);
	o.build_options = opts;
	o.cache_dir = e->dir;
	o.clang_path = wrapper;
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		res = NULL;
		if (accelc_compile(&o, hidden[i], strlen(hidden[i]), &res))
			fprintf(stderr, "%s\n", accelc_result_get_log(res));
		assert_int_equal(accelc_result_get_cache_status(res),
				 ACCELC_CACHE_MISS);
		accelc_result_free(res);
		before = clang_runs(log);
		res = NULL;
		assert_int_equal(accelc_compile(&o, hidden[i],
						strlen(hidden[i]), &res), 0);
		assert_int_equal(accelc_result_get_cache_status(res),
				 ACCELC_CACHE_HIT);
		accelc_result_free(res);
		/* clang -E made the key */
		if (clang_runs(log) - before != 1)
			fprintf(stderr, "source %zu: key without clang -E\n",
				i);
		assert_int_equal(clang_runs(log) - before, 1);
	}
}

static void test_hidden_include_change(void **state)
{
	struct env *e = *state;
	char p[128];
	uint32_t st;

	snprintf(p, sizeof(p), "%s/val.h", e->inc);
	for (size_t i = 0; i < 5; i++) {
		struct build b = { .src = hidden[i] };

		write_text(p, "#define VAL 41\n");
		assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
		assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
		write_text(p, "#define VAL 42\n");
		st = build_st(e, &b, NULL);
		if (st != ACCELC_CACHE_MISS)
			fprintf(stderr, "source %zu: stale entry served\n", i);
		assert_int_equal(st, ACCELC_CACHE_MISS);
		assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	}
}

/* clang's options edited from the environment: -include a header. */
static void test_override_options(void **state)
{
	static const char plain[] = KERNEL "VAL; }\n";
	struct env *e = *state;
	struct build b = { .src = plain };
	char p[128], edit[256];
	uint32_t st;

	snprintf(p, sizeof(p), "%s/val.h", e->inc);
	snprintf(edit, sizeof(edit), "+-include +%s", p);
	assert_int_equal(setenv("CCC_OVERRIDE_OPTIONS", edit, 1), 0);
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	write_text(p, "#define VAL 42\n");
	st = build_st(e, &b, NULL);
	unsetenv("CCC_OVERRIDE_OPTIONS");
	assert_int_equal(st, ACCELC_CACHE_MISS);
}

static void test_miss_on_change(void **state)
{
	struct env *e = *state;
	struct build b = { 0 };
	char *cpu, *features, *more = NULL, *cpu2, *features2;
	char p[128];

	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	/* the source */
	b.src = "kernel void k(global int *o) { o[0] = 7; }\n";
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	b.src = NULL;
	/* an option */
	b.defines = "-cl-fast-relaxed-math";
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	/* a define, and another value of it */
	b.defines = "-DVAL2=1";
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	b.defines = "-DVAL2=2";
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	b.defines = NULL;
	/* an included file */
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	snprintf(p, sizeof(p), "%s/val.h", e->inc);
	write_text(p, "#define VAL 42\n");
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	/* the CPU and its features: the baseline tier's, which run on any
	 * CPU of the architecture */
	assert_int_equal(accelc_target_resolve(accelc_target_name(1), &cpu,
					       &features, NULL), 0);
	b.cpu = cpu;
	b.features = features;
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	/* the same features spelled otherwise */
	assert_true(asprintf(&more, "%s,%s", features, features) > 0);
	b.features = more;
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	/* another CPU name, where the next tier has one (x86-64-v2) */
	assert_int_equal(accelc_target_resolve(accelc_target_name(2), &cpu2,
					       &features2, NULL), 0);
	if (strcmp(cpu2, cpu)) {
		b.cpu = cpu2;
		assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
		assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	}
	free(cpu);
	free(features);
	free(more);
	free(cpu2);
	free(features2);
}

/* The three keys of one build over @p codegen: source, linked, SPIR-V. */
static void keys_of(const char *codegen, uint8_t k[3][ACCELC_SHA256_SIZE])
{
	static const char text[] = "kernel void k(global int *o) { }\n";
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_build_opts bo = { .cl_std = 120 };
	static const uint32_t il[5] = { 0x07230203, 0x10000 };

	assert_int_equal(accelc_cache_key("/bin/true", codegen, &bo, &o,
					  "x86-64", "+sse2", text,
					  strlen(text), NULL, NULL, k[0]), 0);
	assert_int_equal(accelc_cache_key_bitcode("/bin/true", codegen, &o,
						  "x86-64", "+sse2", text,
						  strlen(text), k[1]), 0);
	assert_int_equal(accelc_cache_key_il("/bin/true", codegen,
					     "/bin/false", &o, "x86-64",
					     "+sse2", il, sizeof(il), 0, NULL,
					     k[2]), 0);
}

/*
 * The code generator runs in its own executable (accelc-codegen): a
 * rebuilt one, or none at all, must miss. A file stands in for it.
 */
static void test_key_codegen(void **state)
{
	struct env *e = *state;
	uint8_t a[3][ACCELC_SHA256_SIZE], b[3][ACCELC_SHA256_SIZE];
	uint8_t c[3][ACCELC_SHA256_SIZE], none[3][ACCELC_SHA256_SIZE];
	struct timespec t[2] = { { 0, UTIME_OMIT }, { 12345, 0 } };
	char helper[160];

	snprintf(helper, sizeof(helper), "%s/accelc-codegen", e->inc);
	write_text(helper, "#!/bin/false\n");
	keys_of(helper, a);
	keys_of(helper, b);
	assert_memory_equal(a, b, sizeof(a));
	/* the same path, another version of the file */
	assert_int_equal(utimensat(AT_FDCWD, helper, t, 0), 0);
	keys_of(helper, c);
	keys_of(NULL, none);
	for (int i = 0; i < 3; i++) {
		assert_memory_not_equal(a[i], c[i], ACCELC_SHA256_SIZE);
		assert_memory_not_equal(a[i], none[i], ACCELC_SHA256_SIZE);
		assert_memory_not_equal(c[i], none[i], ACCELC_SHA256_SIZE);
	}
}

static void test_disabled(void **state)
{
	struct env *e = *state;
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_NO_CACHE };
	struct accelc_result *res = NULL;
	struct build b = { 0 };

	o.cache_dir = e->dir;
	assert_int_equal(accelc_compile(&o, "kernel void k() {}", 18, &res),
			 0);
	assert_int_equal(accelc_result_get_cache_status(res),
			 ACCELC_CACHE_OFF);
	accelc_result_free(res);
	setenv("ACCEL_CACHE", "0", 1);
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_OFF);
	unsetenv("ACCEL_CACHE");
	assert_int_equal(count_entries(e, NULL), 0);
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
}

/* Damage the only entry with @p fn, then: ignored, rebuilt, hit again. */
static void damaged(struct env *e, void (*fn)(const char *path))
{
	struct build b = { 0 };
	struct stat st;

	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	fn(one_entry(e));
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(stat(one_entry(e), &st), 0);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
	assert_int_equal(run_k(e), 0);
}

static void flip_byte(const char *path)
{
	int fd = open(path, O_RDWR);
	struct stat st;
	uint8_t c;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	/* in the code, far from any length: only the checksum can tell */
	assert_int_equal(pread(fd, &c, 1, st.st_size - 100), 1);
	c ^= 0x40;
	assert_int_equal(pwrite(fd, &c, 1, st.st_size - 100), 1);
	close(fd);
}

static void truncate_half(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size / 2), 0);
}

static void empty(const char *path)
{
	assert_int_equal(truncate(path, 0), 0);
}

static void chown_other(const char *path)
{
	assert_int_equal(chown(path, 12345, 12345), 0);
}

static void make_group_readable(const char *path)
{
	assert_int_equal(chmod(path, 0640), 0);
}

/* A FIFO blocks an open for reading until a writer comes: every build
 * of the program would hang on it. */
static void make_fifo(const char *path)
{
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
}

static void test_corrupt(void **state)
{
	damaged(*state, flip_byte);
}

static void test_truncated(void **state)
{
	damaged(*state, truncate_half);
}

static void test_empty(void **state)
{
	damaged(*state, empty);
}

static void test_foreign_owner(void **state)
{
	if (geteuid() != 0)
		skip(); /* only root can give a file away */
	damaged(*state, chown_other);
}

static void test_entry_mode(void **state)
{
	damaged(*state, make_group_readable);
}

static void test_fifo_entry(void **state)
{
	damaged(*state, make_fifo);
}

static void test_dir_not_private(void **state)
{
	struct env *e = *state;
	struct build b = { 0 };
	char *log = NULL;

	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_MISS);
	assert_int_equal(chmod(e->dir, 0755), 0);
	assert_int_equal(build_st(e, &b, &log), ACCELC_CACHE_OFF);
	assert_non_null(strstr(log, "not used"));
	free(log);
	if (geteuid() == 0) {
		/* private, but someone else's */
		assert_int_equal(chmod(e->dir, 0700), 0);
		assert_int_equal(chown(e->dir, 12345, 12345), 0);
		assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_OFF);
		assert_int_equal(chown(e->dir, 0, 0), 0);
	}
	assert_int_equal(chmod(e->dir, 0700), 0);
	assert_int_equal(build_st(e, &b, NULL), ACCELC_CACHE_HIT);
}

/* No cmocka asserts in a child (they would unwind into the parent's
 * copy of the test run): the cache status as exit code, 99 on error. */
static int child_build(struct env *e)
{
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res = NULL;
	char opts[128];
	int st;

	snprintf(opts, sizeof(opts), "-I%s -DTWO", e->inc);
	o.build_options = opts;
	o.cache_dir = e->dir;
	if (accelc_compile(&o, src, strlen(src), &res) ||
	    !accelc_result_find_kernel(res, "k"))
		st = 99;
	else
		st = (int)accelc_result_get_cache_status(res);
	accelc_result_free(res);
	return st;
}

/* Two processes build the same program at once: one builds, one hits. */
static void test_two_processes(void **state)
{
	struct env *e = *state;
	int seen[3] = { 0 };
	pid_t pid[2];

	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i] == 0)
			_exit(child_build(e));
	}
	for (int i = 0; i < 2; i++) {
		int status;

		assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
		assert_true(WIFEXITED(status));
		assert_true(WEXITSTATUS(status) <= ACCELC_CACHE_HIT);
		seen[WEXITSTATUS(status)]++;
	}
	assert_int_equal(seen[ACCELC_CACHE_MISS], 1);
	assert_int_equal(seen[ACCELC_CACHE_HIT], 1);
	assert_int_equal(count_entries(e, NULL), 1);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_hit),
		T(test_hit_without_clang),
		T(test_miss_on_change),
		T(test_key_codegen),
		T(test_hidden_words),
		T(test_hidden_include_change),
		T(test_override_options),
		T(test_disabled),
		T(test_corrupt),
		T(test_truncated),
		T(test_empty),
		T(test_foreign_owner),
		T(test_entry_mode),
		T(test_fifo_entry),
		T(test_dir_not_private),
		T(test_two_processes),
	};

	/* the tests name their directories; the environment must not */
	unsetenv("ACCEL_CACHE");
	unsetenv("ACCEL_CACHE_MAX_SIZE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
