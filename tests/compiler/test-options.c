/* SPDX-License-Identifier: MIT */
/*
 * Build options and kernel information. Options through the public API:
 * -D (object-like and function-like macros, what clang takes), -I,
 * -cl-std (version and feature macros), -cl-opt-disable,
 * -cl-mad-enable, -cl-fast-relaxed-math, -cl-finite-math-only,
 * -cl-denorms-are-zero, -w, -Werror, -cl-kernel-arg-info, unknown ones
 * rejected; -D values in the cache key. Kernel information: what the
 * public API describes, then what only accelc reports (access qualifiers,
 * alignment, hints, the barrier flag).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "accelc.h"
#include "compiler-test.h"

/* out[0..]: what the preprocessor saw */
static const char probe_src[] =
	"#include \"probe.h\"\n"
	"kernel void probe(global int *out)\n"
	"{\n"
	"	out[0] = __OPENCL_C_VERSION__;\n"
	"#ifdef FOO\n"
	"	out[1] = FOO;\n"
	"#endif\n"
	"#ifdef BAR\n"
	"	out[2] = 1;\n"
	"#endif\n"
	"	out[3] = PROBE_H;\n"
	"#ifdef __FAST_RELAXED_MATH__\n"
	"	out[4] = 1;\n"
	"#endif\n"
	"#if defined(__opencl_c_atomic_order_seq_cst) && \\\n"
	"    defined(__opencl_c_atomic_scope_device) && \\\n"
	"    defined(__opencl_c_atomic_order_acq_rel) && \\\n"
	"    defined(__opencl_c_atomic_scope_all_devices)\n"
	"	out[5] = 1;\n"
	"#endif\n"
	"#ifdef __opencl_c_images\n"
	"	out[6] = 1;\n"
	"#endif\n"
	"#ifdef __opencl_c_fp64\n"
	"	out[7] = 1;\n"
	"#endif\n"
	"	out[8] = (int)(mad(2.0f, 3.0f, 1.0f) + sqrt(16.0f));\n"
	"}\n";

static void run_probe(struct test_env *env, const char *opts, int *out)
{
	struct accel_program *prog = ct_build(env, probe_src, opts);
	struct accel_buffer *b = ct_buffer(env, 9 * sizeof(int), NULL);

	CT_RUN(env, prog, "probe", 1, 1, CT_BUF(b));
	test_read(env, b, 0, 9 * sizeof(int), out);
	accel_buffer_unref(b);
	accel_program_unref(prog);
}

static void test_options(void **state)
{
	struct test_env *env = *state;
	char dir[] = "/tmp/accel-opt-XXXXXX", path[64], opts[256];
	int out[9];
	char *log = NULL;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/probe.h", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#define PROBE_H 42\n", f);
	fclose(f);

	snprintf(opts, sizeof(opts), "-D FOO=7 -DBAR -I %s -cl-std=CL1.2 "
		 "-cl-kernel-arg-info", dir);
	run_probe(env, opts, out);
	assert_int_equal(out[0], 120);
	assert_int_equal(out[1], 7);
	assert_int_equal(out[2], 1);
	assert_int_equal(out[3], 42);
	assert_int_equal(out[4], 0);
	assert_int_equal(out[8], 11);

	/* 3.0: the atomics and image features the device implements */
	snprintf(opts, sizeof(opts), "-I%s -cl-std=CL3.0 "
		 "-cl-fast-relaxed-math -cl-mad-enable", dir);
	run_probe(env, opts, out);
	assert_int_equal(out[0], 300);
	assert_int_equal(out[4], 1);
	assert_int_equal(out[5], 1);
	assert_int_equal(out[6], 1);
	assert_int_equal(out[7], 1);
	assert_int_equal(out[8], 11);

	snprintf(opts, sizeof(opts), "-I%s -cl-opt-disable "
		 "-cl-finite-math-only -cl-denorms-are-zero -cl-std=CL2.0 "
		 "-D FOO=\"(3 + 4)\"", dir);
	run_probe(env, opts, out);
	assert_int_equal(out[0], 200);
	assert_int_equal(out[1], 7);
	assert_int_equal(out[8], 11);

	/* the device's OpenCL version; subgroup IFP: nothing to disable */
	accel_program_unref(ct_build(env,
		"#if __OPENCL_VERSION__ != 300\n#error version\n#endif\n"
		"kernel void v(global int *o) { o[0] = 1; }\n",
		"-cl-no-subgroup-ifp"));

	/* -Werror turns a warning into a failed build, -w silences it */
	static const char warn_src[] =
		"kernel void w(global int *o) { int unused; o[0] = 1; }\n"
		"kernel void w2(global int *o) { o[0] = (int)o; }\n";
	assert_int_equal(ct_build_fail(env, warn_src, "-Werror", &log),
			 -ENOEXEC);
	assert_non_null(strstr(log, "error"));
	free(log);
	accel_program_unref(ct_build(env, warn_src, "-w"));

	/* float8 arguments give no ABI warning, hence no -Werror failure */
	accel_program_unref(ct_build(env,
		"kernel void v(global float8 *o) { o[0] = sin(o[1]); }\n",
		"-Werror"));

	/* options outside the specification are errors, named in the log */
	assert_int_equal(ct_build_fail(env, probe_src, "-O3", &log), -EINVAL);
	assert_non_null(strstr(log, "-O3"));
	free(log);
	assert_int_equal(ct_build_fail(env, probe_src, "-cl-std=CL4.0", &log),
			 -EINVAL);
	free(log);
	assert_int_equal(ct_build_fail(env, probe_src, "-D 1X", &log),
			 -EINVAL);
	free(log);
	assert_int_equal(ct_build_fail(env, probe_src, "-I", &log), -EINVAL);
	free(log);

	unlink(path);
	rmdir(dir);
}

/* clang reads an argument "@x" as a file of options: not from -I */
static void test_include_at(void **state)
{
	struct test_env *env = *state;
	char dir[] = "/tmp/accel-opt-XXXXXX", path[96], inc[64], rsp[64];
	char opts[256], cwd[4096];
	int out[9];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/probe.h", dir);
	snprintf(inc, sizeof(inc), "%s/@inc", dir);
	snprintf(rsp, sizeof(rsp), "%s/rsp", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#define PROBE_H 42\n", f);
	fclose(f);
	/* -I would take "/", the rest would be options */
	f = fopen(rsp, "w");
	assert_non_null(f);
	fputs("/ -DFOO=99\n", f);
	fclose(f);

	snprintf(opts, sizeof(opts), "-I %s -I @%s", dir, rsp);
	run_probe(env, opts, out);
	assert_int_equal(out[3], 42);
	assert_int_equal(out[1], 0);
	snprintf(opts, sizeof(opts), "-I%s -I@%s", dir, rsp);
	run_probe(env, opts, out);
	assert_int_equal(out[1], 0);

	/* a directory whose name starts with '@' still is one */
	assert_int_equal(mkdir(inc, 0700), 0);
	snprintf(path, sizeof(path), "%s/probe.h", inc);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#define PROBE_H 43\n", f);
	fclose(f);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	run_probe(env, "-I @inc", out);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(out[3], 43);

	unlink(path);
	rmdir(inc);
	snprintf(path, sizeof(path), "%s/probe.h", dir);
	unlink(path);
	unlink(rsp);
	rmdir(dir);
}

/* function-like -D macros, as hashcat's kernels are built */
static const char macro_src[] =
	"kernel void m(global int *out)\n"
	"{\n"
	"	constant char *s = XM2S(ab c);\n"
	"	out[0] = s[0] + s[3] * 1000;\n"
	"	out[1] = sizeof(XM2S(ab c));\n"
	"	out[2] = CAT(4, 2);\n"
	"	out[3] = ADD(3, 4);\n"
	"	out[4] = FIRST(9, 8, 7);\n"
	"	out[5] = LAST(1, 2, 5);\n"
	"	out[6] = NONE();\n"
	"	out[7] = ONE(0);\n"
	"	out[8] = SPACED(2, 3);\n"
	"}\n";

static void test_function_macros(void **state)
{
	struct test_env *env = *state;
	static const char *const bad[] = {
		"-DF(x", "-DF(x,)=x", "-DF(1)=x", "-DF(x y)=x", "-DF(...,x)=x",
		"-DF()x=1", "-D'F (x)=x'", "-D'X\n#define Y 1'", "-D @file",
		"-D=1", "-D -O3",
	};
	struct accel_program *prog;
	struct accel_buffer *b;
	char *log = NULL;
	int out[9];

	prog = ct_build(env, macro_src,
			"-DXM2S(x)=#x -DCAT(a,b)=a##b "
			"-D 'ADD( a , b )=((a) + (b))' -DFIRST(x,...)=x "
			"-DLAST(a,b,rest...)=rest -DNONE()=6 -DONE(x) "
			"-D\"SPACED(a,\tb)=a * b + 1\"");
	b = ct_buffer(env, sizeof(out), NULL);
	CT_RUN(env, prog, "m", 1, 1, CT_BUF(b));
	test_read(env, b, 0, sizeof(out), out);
	accel_buffer_unref(b);
	accel_program_unref(prog);
	assert_int_equal(out[0], 'a' + 'c' * 1000);
	assert_int_equal(out[1], 5);
	assert_int_equal(out[2], 42);
	assert_int_equal(out[3], 7);
	assert_int_equal(out[4], 9);
	assert_int_equal(out[5], 5);
	assert_int_equal(out[6], 6);
	assert_int_equal(out[7], 1);
	assert_int_equal(out[8], 7);

	/* a malformed head, or anything else where clang writes the name */
	for (size_t i = 0; i < TEST_ARRAY_SIZE(bad); i++) {
		assert_int_equal(ct_build_fail(env, macro_src, bad[i], &log),
				 -EINVAL);
		if (!strstr(log, "invalid macro definition"))
			fail_msg("%s: %s", bad[i], log);
		free(log);
	}
}

static void rm_tree(const char *path)
{
	struct dirent *e;
	DIR *d = opendir(path);
	char p[512];

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		if (e->d_type == DT_DIR)
			rm_tree(p);
		else
			unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

static uint32_t cache_status(const struct accelc_options *o, const char *src)
{
	struct accelc_result *res = NULL;
	uint32_t st;
	int r = accelc_compile(o, src, strlen(src), &res);

	if (r == -ENOENT)
		skip();
	if (r)
		fail_msg("%s", accelc_result_get_log(res));
	st = accelc_result_get_cache_status(res);
	accelc_result_free(res);
	return st;
}

/*
 * A -D value is as much part of the text as the source: one that names a
 * file (__has_include) or the time must not let a source without them
 * skip the preprocessor in the cache key.
 */
static void test_cache_define_values(void **state)
{
	static const char src[] = "kernel void k(global int *o)\n"
				  "{\n"
				  "#if HAS\n"
				  "	o[0] = 1;\n"
				  "#endif\n"
				  "}\n";
	char dir[] = "/tmp/accel-opt-XXXXXX", cache[64], hdr[64], opts[128];
	struct accelc_options o = { .struct_size = sizeof(o) };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(hdr, sizeof(hdr), "%s/h.h", dir);
	snprintf(opts, sizeof(opts), "-DHAS=__has_include(\\\"%s\\\")", hdr);
	o.cache_dir = cache;
	o.build_options = opts;

	assert_int_equal(cache_status(&o, src), ACCELC_CACHE_MISS);
	assert_int_equal(cache_status(&o, src), ACCELC_CACHE_HIT);
	/* HAS is 1 now: another program */
	f = fopen(hdr, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(cache_status(&o, src), ACCELC_CACHE_MISS);
	assert_int_equal(cache_status(&o, src), ACCELC_CACHE_HIT);

	rm_tree(dir);
}

static const char info_src[] =
	"typedef struct { char c; double d; int i; } S;\n"
	"kernel __attribute__((reqd_work_group_size(8, 4, 1)))\n"
	"void k1(global const float4 *restrict a, constant int *c,\n"
	"	local volatile uint *l, float3 v, char3 c3, S s,\n"
	"	global float *out)\n"
	"{\n"
	"	local int tmp[100];\n"
	"	tmp[get_local_id(0)] = c[0] + (int)l[0];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	out[0] = a[0].x + v.y + c3.z + s.d + tmp[1];\n"
	"}\n"
	"kernel __attribute__((work_group_size_hint(16, 2, 1)))\n"
	"__attribute__((vec_type_hint(uint4)))\n"
	"void k2(global int *o) { o[0] = 0; }\n";

static void test_kernel_info(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, info_src, "-cl-std=CL1.2");
	struct accel_kernel *k = NULL;
	struct accel_kernel_arg_desc d = { .struct_size = sizeof(d) };
	uint64_t local_size = 0, reqd[3] = { 0 };
	static const struct {
		uint32_t kind, size, as, quals;
		const char *type, *name;
	} want[] = {
		{ ACCEL_KERNEL_ARG_BUFFER, 8, ACCEL_KERNEL_ARG_ADDR_GLOBAL,
		  ACCEL_KERNEL_ARG_TYPE_CONST | ACCEL_KERNEL_ARG_TYPE_RESTRICT,
		  "float4*", "a" },
		/* the specification: __constant implies const */
		{ ACCEL_KERNEL_ARG_BUFFER, 8, ACCEL_KERNEL_ARG_ADDR_CONSTANT,
		  ACCEL_KERNEL_ARG_TYPE_CONST, "int*", "c" },
		{ ACCEL_KERNEL_ARG_LOCAL, 8, ACCEL_KERNEL_ARG_ADDR_LOCAL,
		  ACCEL_KERNEL_ARG_TYPE_VOLATILE, "uint*", "l" },
		{ ACCEL_KERNEL_ARG_VALUE, 16, ACCEL_KERNEL_ARG_ADDR_PRIVATE, 0,
		  "float3", "v" },
		{ ACCEL_KERNEL_ARG_VALUE, 4, ACCEL_KERNEL_ARG_ADDR_PRIVATE, 0,
		  "char3", "c3" },
		{ ACCEL_KERNEL_ARG_VALUE, 24, ACCEL_KERNEL_ARG_ADDR_PRIVATE, 0,
		  "S", "s" },
	};

	assert_int_equal(accel_kernel_new(prog, "k1", &k), 0);
	assert_int_equal(accel_kernel_get_arg_count(k), 7);
	for (uint32_t i = 0; i < TEST_ARRAY_SIZE(want); i++) {
		assert_int_equal(accel_kernel_get_arg_desc(k, i, &d), 0);
		assert_int_equal(d.kind, want[i].kind);
		assert_int_equal(d.size, want[i].size);
		assert_int_equal(d.address_space, want[i].as);
		assert_int_equal(d.type_qualifiers, want[i].quals);
		assert_string_equal(d.type_name, want[i].type);
		assert_string_equal(d.name, want[i].name);
	}
	assert_int_equal(accel_kernel_get_wg_info(k, &local_size, reqd, NULL),
			 0);
	assert_true(local_size >= 400);
	assert_true(reqd[0] == 8 && reqd[1] == 4 && reqd[2] == 1);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

/* what libaccel's API does not carry: straight from accelc */
static void test_accelc_info(void **state)
{
	struct accelc_options o = { .struct_size = sizeof(o),
				    .build_options = "-cl-std=CL1.2" };
	struct accelc_result *res = NULL;
	const struct accelc_kernel_info *k1, *k2;

	(void)state;
	if (accelc_compile(&o, info_src, strlen(info_src), &res) == -ENOENT)
		skip();
	assert_non_null(res);
	k1 = accelc_result_find_kernel(res, "k1");
	k2 = accelc_result_find_kernel(res, "k2");
	if (!k1 || !k2)
		print_error("%s\n", accelc_result_get_log(res));
	assert_non_null(k1);
	assert_non_null(k2);
	assert_true(k1->flags & ACCELC_KERNEL_HAS_BARRIERS);
	assert_false(k2->flags & ACCELC_KERNEL_HAS_BARRIERS);
	assert_int_equal(k1->args[3].alignment, 16);
	assert_int_equal(k1->args[4].alignment, 4);
	assert_int_equal(k1->args[5].alignment, 8);
	assert_int_equal(k1->args[0].access, ACCELC_ACCESS_NONE);
	assert_true(k1->static_local_size >= 400);
	assert_true(k2->work_group_size_hint[0] == 16 &&
		    k2->work_group_size_hint[1] == 2 &&
		    k2->work_group_size_hint[2] == 1);
	assert_string_equal(k2->vec_type_hint, "uint4");
	assert_null(k1->vec_type_hint);
	accelc_result_free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_options, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_include_at,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_function_macros,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_info,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test(test_accelc_info),
		cmocka_unit_test(test_cache_define_values),
	};

	return TEST_RUN_GROUP("compiler-options", tests);
}
