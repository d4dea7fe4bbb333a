/* SPDX-License-Identifier: MIT */
/*
 * fuzz-cl's promise about the launches it makes (tests/fuzz/fuzz-launch.h),
 * held against what the ICD accepts: a launch the ICD accepts has at most
 * FZ_LAUNCH_MAX_ITEMS work-items, and one the fuzzer counts as failing is
 * refused. A valid launch of 2^63 work-items left running on a released
 * queue took the CPU device's workers for good; every later input's
 * clFinish() then hung behind it.
 *
 * Each launch waits for a user event that is then failed, so none runs,
 * whatever its size.
 */
#include <stdio.h>
#include <string.h>

#include "icd-test.h"
#include "../fuzz/fuzz-input.h"
#include "../fuzz/fuzz-launch.h"

/* Fuzzed geometries per selector byte, from a fixed byte stream. */
#define ROUNDS 16

struct shape {
	uint8_t sel;
	cl_uint dim;
	size_t off[3], gs[3], ls[3];
};

/* The launch fuzz-cl's session found (offset in y not passed). */
static const struct shape found = {
	.sel = 0x15, .dim = 2,
	.off = { 0, SIZE_MAX, 0 },
	.gs = { ((size_t)1 << 63) + 7, 1, 1 },
	.ls = { 17, 48, 0 },
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Work-items of the launch as passed, saturating at 2^64. */
static unsigned __int128 items_of(const struct shape *s)
{
	const unsigned __int128 cap = (unsigned __int128)1 << 64;
	unsigned __int128 n = 1;
	cl_uint d;

	if (s->sel & FZ_LAUNCH_NO_GLOBAL)
		return 0;
	for (d = 0; d < s->dim && d < 3; d++)
		n = n * s->gs[d] > cap ? cap : n * s->gs[d];
	return n;
}

/*
 * Shape @s as fuzz-cl does and enqueue it behind a failed gate. Returns
 * NULL if the promise holds, else what broke it.
 */
static const char *check(struct icd_env *env, cl_kernel k, size_t max_wg,
			 struct shape s)
{
	cl_event gate;
	cl_int err = CL_SUCCESS, r;
	bool must_fail;

	must_fail = fz_launch_shape(s.sel, s.dim, s.off, s.gs, s.ls, max_wg);
	gate = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	r = clEnqueueNDRangeKernel(
		env->queue, k, s.dim,
		(s.sel & FZ_LAUNCH_NO_OFFSET) ? NULL : s.off,
		(s.sel & FZ_LAUNCH_NO_GLOBAL) ? NULL : s.gs,
		(s.sel & FZ_LAUNCH_NO_LOCAL) ? NULL : s.ls, 1, &gate, NULL);
	CL_OK(clSetUserEventStatus(gate, -1));
	CL_OK(clReleaseEvent(gate));
	CL_OK(clFinish(env->queue));
	if (r == CL_SUCCESS && items_of(&s) > FZ_LAUNCH_MAX_ITEMS)
		return "accepted with more work-items than the cap";
	if (r == CL_SUCCESS && must_fail && !(s.sel & FZ_LAUNCH_NO_GLOBAL))
		return "accepted though counted as failing";
	return NULL;
}

static void report(const char *what, const struct shape *s)
{
	fail_msg("sel %#x dim %u off %zx %zx %zx gs %zx %zx %zx ls %zx %zx "
		 "%zx: %s", s->sel, s->dim, s->off[0], s->off[1], s->off[2],
		 s->gs[0], s->gs[1], s->gs[2], s->ls[0], s->ls[1], s->ls[2],
		 what);
}

static void test_fuzz_launch_shapes(void **state)
{
	struct icd_env *env = *state;
	char names[256] = "";
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	cl_uint value = 7;
	cl_int err = CL_SUCCESS;
	size_t max_wg = 0;
	const char *bad;
	cl_program p;
	cl_kernel k;
	cl_mem m;
	unsigned sel, round;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_BUILT_IN_KERNELS,
			      sizeof(names), names, NULL));
	if (!strstr(names, "fill_u32"))
		skip();
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
			      sizeof(max_wg), &max_wg, NULL));
	p = clCreateProgramWithBuiltInKernels(env->ctx, 1, &env->device,
					      "fill_u32", &err);
	CL_OK(err);
	k = clCreateKernel(p, "fill_u32", &err);
	CL_OK(err);
	m = clCreateBuffer(env->ctx, 0, 4096, NULL, &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, 0, sizeof(m), &m));
	CL_OK(clSetKernelArg(k, 1, sizeof(value), &value));

	bad = check(env, k, max_wg, found);
	if (bad)
		report(bad, &found);

	/* every selector of an NDRange (not a task), fuzzed geometries */
	for (sel = 0; sel < 0x80; sel++) {
		if (sel & 0x40)
			continue;
		for (round = 0; round < ROUNDS; round++) {
			uint8_t bytes[9 * 9];
			struct fz in = { bytes, sizeof(bytes) };
			struct shape s = { .sel = (uint8_t)sel,
					   .dim = 1 + sel % 4 };
			size_t i;

			for (i = 0; i < sizeof(bytes); i++)
				bytes[i] = (uint8_t)xorshift(&seed);
			for (i = 0; i < 3; i++)
				s.off[i] = fz_size(&in);
			for (i = 0; i < 3; i++)
				s.gs[i] = fz_size(&in);
			for (i = 0; i < 3; i++)
				s.ls[i] = fz_size(&in);
			bad = check(env, k, max_wg, s);
			if (bad)
				report(bad, &s);
		}
	}
	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fuzz_launch_shapes,
						icd_env_setup,
						icd_env_teardown),
	};

	return ICD_TEST_RUN("icd-fuzz-launch", tests);
}
