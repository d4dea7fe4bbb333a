/* SPDX-License-Identifier: MIT */
/*
 * The generic address space: to_global(), to_local(), to_private() and
 * get_fence() (both overloads) on pointers into each named address space,
 * per work-item, through a helper taking generic pointers: global
 * buffers, a program-scope variable, local arguments, kernel-scope
 * __local arrays, private scalars and arrays, NULL and a pointer whose
 * address space differs between work-items. The same checks run in a
 * kernel without barriers (work-item loops), across barriers with small
 * private context (arrays on the stack) and big (a malloc'ed block), and
 * in a kernel with too many barriers for regions (fibers), at several
 * work-group sizes and OpenCL C 2.0 and 3.0; and a private variable in a
 * copy of the work-group function (a 32-bit ids variant).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accelc.h"
#include "compiler-test.h"

#define N 1024
#define NSLOT 8

/* classify() codes: which conversions gave non-NULL, and the fence */
#define C_GLOBAL (1u | 2u << 4)
#define C_LOCAL (2u | 1u << 4)
#define C_PRIVATE (4u | 2u << 4)
#define C_NULL 0xffu  /* nothing converts; any valid fence */
#define E_PTR 0x80u   /* a converted pointer is not p, or reads otherwise */
#define E_CONST 0x100u /* the const overloads disagree */
#define E_VALUE 0x200u /* a private value was lost across a barrier */

static const char src[] =
	"#define BARRIER barrier(CLK_LOCAL_MEM_FENCE)\n"
	"#define B8 BARRIER; BARRIER; BARRIER; BARRIER; BARRIER; BARRIER;\\\n"
	"	BARRIER; BARRIER\n"
	"global int gv[4] = { 5, 6, 7, 8 };\n"
	"uint classify_c(const int *p)\n"
	"{\n"
	"	uint r = get_fence(p) << 4;\n"
	"	const global int *g = to_global(p);\n"
	"	const local int *l = to_local(p);\n"
	"	const private int *q = to_private(p);\n"
	"	return r | (g ? 1 : 0) | (l ? 2 : 0) | (q ? 4 : 0);\n"
	"}\n"
	"uint classify(int *p)\n"
	"{\n"
	"	uint r = get_fence(p) << 4;\n"
	"	global int *g = to_global(p);\n"
	"	local int *l = to_local(p);\n"
	"	private int *q = to_private(p);\n"
	"	if (g && (r |= 1, (int *)g != p || *g != *p))\n"
	"		r |= 0x80;\n"
	"	if (l && (r |= 2, (int *)l != p || *l != *p))\n"
	"		r |= 0x80;\n"
	"	if (q && (r |= 4, (int *)q != p || *q != *p))\n"
	"		r |= 0x80;\n"
	"	if (classify_c(p) != (r & 0x7f))\n"
	"		r |= 0x100;\n"
	"	return r;\n"
	"}\n"
	"kernel void spaces(global uint *out, global int *buf, local int *la)\n"
	"{\n"
	"	local int ls[256];\n"
	"	size_t i = get_global_id(0), l = get_local_id(0);\n"
	"	global uint *o = out + i * 8;\n"
	"	int x = (int)i, arr[16], *mix;\n"
	"	for (int k = 0; k < 16; k++)\n"
	"		arr[k] = (int)i + k;\n"
	"	la[l] = (int)i;\n"
	"	ls[l] = (int)i;\n"
	"	mix = i % 3 == 0 ? &x : i % 3 == 1 ? (int *)(buf + i) :\n"
	"	      (int *)(la + l);\n"
	"	o[0] = classify(&x);\n"
	"	o[1] = classify(&arr[i % 16]);\n"
	"	o[2] = classify(buf + i);\n"
	"	o[3] = classify(la + l);\n"
	"	o[4] = classify(ls + l);\n"
	"	o[5] = classify(&gv[i % 4]);\n"
	"	o[6] = classify(0);\n"
	"	o[7] = classify(mix);\n"
	"}\n"
	/* private values whose addresses live across barriers: a context
	 * array per variable, on the stack (small) or heap (big) */
	"#define ACROSS(BIG, MORE) \\\n"
	"	size_t i = get_global_id(0), l = get_local_id(0); \\\n"
	"	size_t n = get_local_size(0); \\\n"
	"	global uint *o = out + i * 8; \\\n"
	"	int x = (int)i * 3, big[BIG]; \\\n"
	"	for (int k = 0; k < BIG; k++) \\\n"
	"		big[k] = (int)i + k; \\\n"
	"	int *px = &x, *pb = &big[i % BIG], *pl = la + l; \\\n"
	"	int *pg = buf + i; \\\n"
	"	la[l] = (int)i; \\\n"
	"	o[0] = classify(px); \\\n"
	"	BARRIER; \\\n"
	"	MORE; \\\n"
	"	o[1] = classify(px); \\\n"
	"	o[2] = classify(pb); \\\n"
	"	o[3] = classify(pl); \\\n"
	"	o[4] = classify(pg); \\\n"
	"	o[5] = *px == (int)i * 3 && *pb == (int)(i + i % BIG) && \\\n"
	"	       la[(l + 1) % n] == (int)(i - l + (l + 1) % n) ? \\\n"
	"	       0 : 0x200; \\\n"
	"	BARRIER; \\\n"
	"	o[6] = classify(pb); \\\n"
	"	o[7] = classify(la + (l + 1) % n)\n"
	"kernel void across_small(global uint *out, global int *buf,\n"
	"			  local int *la)\n"
	"{\n"
	"	ACROSS(4, );\n"
	"}\n"
	"kernel void across_big(global uint *out, global int *buf,\n"
	"			local int *la)\n"
	"{\n"
	"	ACROSS(128, );\n"
	"}\n"
	"kernel void fibers(global uint *out, global int *buf, local int *la)\n"
	"{\n"
	"	ACROSS(64, B8; B8; B8; B8; B8; B8; B8; B8; B8);\n"
	"}\n";

static const char bad_src[] =
	"kernel void k(constant int *c, global int *o)\n"
	"{\n"
	"	o[0] = to_global(c) != 0;\n"
	"}\n";

static const char *const kernels[] = { "spaces", "across_small",
				       "across_big", "fibers" };

/* What slot @s of kernel @k should say for global id @i. */
static uint32_t expect(unsigned k, unsigned s, unsigned i)
{
	static const uint32_t spaces[NSLOT] = {
		C_PRIVATE, C_PRIVATE, C_GLOBAL, C_LOCAL,
		C_LOCAL, C_GLOBAL, C_NULL, 0,
	};
	static const uint32_t across[NSLOT] = {
		C_PRIVATE, C_PRIVATE, C_PRIVATE, C_LOCAL,
		C_GLOBAL, 0, C_PRIVATE, C_LOCAL,
	};

	if (k == 0 && s == 7)
		return i % 3 == 0 ? C_PRIVATE : i % 3 == 1 ? C_GLOBAL : C_LOCAL;
	return k == 0 ? spaces[s] : across[s];
}

static bool matches(uint32_t got, uint32_t want)
{
	if (want == C_NULL)
		return got == 1u << 4 || got == 2u << 4;
	return got == want;
}

static void run_all(struct test_env *env, struct accel_program *prog,
		    const char *std)
{
	static const unsigned sizes[] = { 1, 7, 64, 256, 100 };
	uint32_t *out = malloc(N * NSLOT * 4);
	struct accel_buffer *bo = ct_buffer(env, N * NSLOT * 4, NULL);
	struct accel_buffer *bb = ct_buffer(env, N * 4, NULL);
	unsigned bad = 0;

	assert_non_null(out);
	for (size_t k = 0; k < TEST_ARRAY_SIZE(kernels); k++)
		for (size_t si = 0; si < TEST_ARRAY_SIZE(sizes); si++) {
			unsigned ls = sizes[si];
			/* 100 does not divide N: a partial last group */
			unsigned n = ls == 100 ? N - 17 : N;

			memset(out, 0xee, N * NSLOT * 4);
			test_write(env, bo, 0, N * NSLOT * 4, out);
			CT_RUN(env, prog, kernels[k], n, ls, CT_BUF(bo),
			       CT_BUF(bb), CT_LOCAL(ls * 4));
			test_read(env, bo, 0, N * NSLOT * 4, out);
			for (unsigned i = 0; i < n; i++)
				for (unsigned s = 0; s < NSLOT; s++) {
					uint32_t got = out[i * NSLOT + s];

					if (matches(got, expect(k, s, i)))
						continue;
					if (bad++ < 20)
						print_error(
							"%s %s ls=%u item %u "
							"slot %u: %#x, want "
							"%#x\n", std,
							kernels[k], ls, i, s,
							got, expect(k, s, i));
				}
		}
	accel_buffer_unref(bo);
	accel_buffer_unref(bb);
	free(out);
	if (bad)
		fail_msg("%u wrong results", bad);
}

static void test_generic(void **state)
{
	struct test_env *env = *state;
	static const char *const stds[] = { "-cl-std=CL3.0", "-cl-std=CL2.0" };

	for (size_t i = 0; i < TEST_ARRAY_SIZE(stds); i++) {
		struct accel_program *prog = ct_build(env, src, stds[i]);

		run_all(env, prog, stds[i]);
		accel_program_unref(prog);
	}
}

/*
 * A generic NULL compared with a kernel-scope __local's address: clang
 * folds it into a constant expression over the variable (zext of icmp),
 * which must follow the variable into local memory (CTS
 * generic_address_space/compare_pointers).
 */
static void test_compare_with_local(void **state)
{
	static const char cmp_src[] =
		"kernel void k(global uint *out)\n"
		"{\n"
		"	local int v;\n"
		"	int *p = NULL;\n"
		"	local int *l = &v;\n"
		"	out[get_global_id(0)] = (p != l) + 2 * (p == l);\n"
		"}\n";
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, cmp_src, "-cl-std=CL3.0");
	struct accel_buffer *bo = ct_buffer(env, 64 * 4, NULL);
	uint32_t out[64];

	CT_RUN(env, prog, "k", 64, 16, CT_BUF(bo));
	test_read(env, bo, 0, sizeof(out), out);
	for (unsigned i = 0; i < 64; i++)
		assert_int_equal(out[i], 1);
	accel_buffer_unref(bo);
	accel_program_unref(prog);
}

/*
 * A private variable in a copy of the work-group function made after the
 * lowering: a guard on a 32-bit id gives the kernel a 32-bit ids variant
 * (wg-guards.c), which inlines K__wg into a new leaf function, whose frame
 * may lie in the red zone under the stack pointer (CTS
 * generic_address_space/language_union).
 */
static const char copy_src[] =
	"kernel void copied(global uint *out, uint n)\n"
	"{\n"
	"	uint i = get_global_id(0);\n"
	"	int x = (int)i;\n"
	"	int *p = &x;\n"
	"	private int *q = to_private(p);\n"
	"	if (i >= n)\n"
	"		return;\n"
	"	out[i] = (to_global(p) ? 1 : 0) | (to_local(p) ? 2 : 0) |\n"
	"		 (q ? 4 : 0) | get_fence(p) << 4 |\n"
	"		 (q && *q != (int)i ? 0x80 : 0);\n"
	"}\n";

static void test_private_in_copy(void **state)
{
	static const unsigned sizes[] = { 1, 16, 64, 100 };
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, copy_src, "-cl-std=CL3.0");
	struct accel_buffer *bo = ct_buffer(env, N * 4, NULL);
	uint32_t *out = malloc(N * 4);
	unsigned bad = 0;

	assert_non_null(out);
	for (size_t si = 0; si < TEST_ARRAY_SIZE(sizes); si++) {
		uint32_t n = N - 5;

		memset(out, 0xee, N * 4);
		test_write(env, bo, 0, N * 4, out);
		CT_RUN(env, prog, "copied", N, sizes[si], CT_BUF(bo),
		       CT_VAL(n));
		test_read(env, bo, 0, N * 4, out);
		for (unsigned i = 0; i < n; i++)
			if (out[i] != C_PRIVATE && bad++ < 20)
				print_error("ls=%u item %u: %#x, want %#x\n",
					    sizes[si], i, out[i], C_PRIVATE);
	}
	accel_buffer_unref(bo);
	accel_program_unref(prog);
	free(out);
	if (bad)
		fail_msg("%u wrong results", bad);
}

/* the text of @name's definition in @ir (free()), or NULL */
static char *function_ir(const char *ir, const char *name)
{
	char head[80];

	snprintf(head, sizeof(head), "@%s(", name);
	for (const char *line = ir; line && *line;) {
		const char *nl = strchr(line, '\n'), *at = strstr(line, head);

		if (!strncmp(line, "define", 6) && at && (!nl || at < nl)) {
			const char *e = strstr(line, "\n}\n");

			return e ? strndup(line, (size_t)(e - line)) : NULL;
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/*
 * The kernels above are meant to take each path of the lowering: make
 * sure they do, or the checks would test less than they claim.
 */
static void test_paths(void **state)
{
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_KEEP_IR |
					     ACCELC_FLAG_NO_CACHE,
				    .build_options = "-cl-std=CL3.0" };
	struct accelc_result *res = NULL;
	char *small, *big, *fib;
	const char *ir;
	int r;

	(void)state;
	r = accelc_compile(&o, src, strlen(src), &res);
	if (r == -ENOENT)
		skip();
	if (r)
		print_error("%d: %s\n", r, res ? accelc_result_get_log(res) :
						 "");
	assert_int_equal(r, 0);
	ir = accelc_result_get_ir(res);
	assert_non_null(ir);
	small = function_ir(ir, "across_small__wg");
	big = function_ir(ir, "across_big__wg");
	fib = function_ir(ir, "fibers__item");
	assert_non_null(small);
	assert_non_null(big);
	assert_non_null(fib);
	/* context arrays on the heap in one, on the stack in the other */
	assert_non_null(strstr(big, "@malloc("));
	assert_null(strstr(small, "@malloc("));
	/* all lowered; none left for the loader to miss */
	assert_null(strstr(ir, "__to_"));
	assert_null(strstr(ir, "get_fence"));
	free(small);
	free(big);
	free(fib);
	accelc_result_free(res);

	/* the kernel above has the copy it is meant to test */
	res = NULL;
	r = accelc_compile(&o, copy_src, strlen(copy_src), &res);
	assert_int_equal(r, 0);
	small = function_ir(accelc_result_get_ir(res), "copied__wg_id32");
	assert_non_null(small);
	free(small);
	accelc_result_free(res);

	/* __constant is not part of the generic address space */
	res = NULL;
	r = accelc_compile(&o, bad_src, strlen(bad_src), &res);
	assert_int_equal(r, -ENOEXEC);
	assert_non_null(strstr(accelc_result_get_log(res), "generic"));
	accelc_result_free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_generic, test_env_setup,
						test_env_teardown),
		cmocka_unit_test(test_paths),
		cmocka_unit_test_setup_teardown(test_compare_with_local,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_private_in_copy,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-generic", tests);
}
