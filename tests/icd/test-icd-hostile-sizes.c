/* SPDX-License-Identifier: MIT */
/*
 * Hostile sizes through the ICD loader: offsets, sizes, pitches and
 * NDRange geometries chosen so that a sum or product of them wraps
 * size_t. Every entry point that takes sizes must refuse them with the
 * specification's code, touch no out-parameter and enqueue nothing.
 *
 * Commands that could be accepted by mistake wait for a user event that
 * is then failed, so an accepted one never runs: a wrong answer shows as
 * a wrong return code, never as memory written somewhere else.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

#define N 4096
#define HALF ((size_t)1 << 63)
#define SENTINEL_EVENT ((cl_event)(uintptr_t)0x5e57)

static cl_mem buffer(struct icd_env *env, size_t size)
{
	cl_int err = CL_SUCCESS;
	cl_mem m = clCreateBuffer(env->ctx, 0, size, NULL, &err);

	CL_OK(err);
	assert_non_null(m);
	return m;
}

static cl_event gate_new(struct icd_env *env)
{
	cl_int err = CL_SUCCESS;
	cl_event e = clCreateUserEvent(env->ctx, &err);

	CL_OK(err);
	return e;
}

/* Fail the gate: whatever waits for it is skipped, not run. */
static void gate_fail(struct icd_env *env, cl_event gate)
{
	CL_OK(clSetUserEventStatus(gate, -1));
	CL_OK(clReleaseEvent(gate));
	clFinish(env->queue);
}

/* Fill @m with @v and check it is still all @v (nothing written). */
static void buffer_set(struct icd_env *env, cl_mem m, unsigned char v)
{
	CL_OK(clEnqueueFillBuffer(env->queue, m, &v, 1, 0, N, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));
}

static void buffer_check(struct icd_env *env, cl_mem m, unsigned char v)
{
	unsigned char out[N];
	size_t i;

	CL_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N, out, 0, NULL,
				  NULL));
	for (i = 0; i < N; i++)
		if (out[i] != v)
			fail_msg("byte %zu is %u, not %u", i, out[i], v);
}

/* ---- rectangular transfers ------------------------------------------ */

/* One side (buffer or host) of a rectangle, and the region. */
struct rect_case {
	const char *what;
	size_t origin[3];
	size_t region[3];
	size_t row_pitch, slice_pitch;
};

/*
 * Each rectangle is out of bounds of a 4096-byte buffer, or of the
 * address space, once computed without wrapping.
 */
static const struct rect_case bad_rects[] = {
	/* the end wraps to 1: passes the bounds check, rows 2^63 apart */
	{ "row pitch 2^63", { 0, 0, 0 }, { 1, 3, 1 }, HALF, 0 },
	/* row 1 lands 32 bytes before the start: the end wraps to 32 */
	{ "row pitch -32", { 0, 0, 0 }, { 64, 2, 1 }, SIZE_MAX - 31, 0 },
	/* region[1] * row pitch wraps to 0: a slice pitch of 0 */
	{ "plane wraps", { 0, 0, 0 }, { 1, (size_t)1 << 32, 2 },
	  (size_t)1 << 32, 0 },
	/* the start wraps to 0 */
	{ "origin row 2^62", { 0, (size_t)1 << 62, 0 }, { 4, 1, 1 }, 4, 0 },
	{ "origin slice 2^60", { 0, 0, (size_t)1 << 60 }, { 4, 1, 1 }, 4, 16 },
	/* the start is SIZE_MAX, the end wraps to 1 */
	{ "origin SIZE_MAX", { SIZE_MAX, 0, 0 }, { 2, 1, 1 }, 0, 0 },
	{ "origin + region wraps", { SIZE_MAX - 1, 0, 0 }, { 4, 1, 1 }, 0, 0 },
	/* an explicit slice pitch whose multiple wraps */
	{ "slice pitch 2^63", { 0, 0, 0 }, { 1, 1, 3 }, 1, HALF },
};

static const size_t zero[3], small_region[3] = { 4, 2, 1 };

/* Write and read with the buffer side @c; host side plain. */
static void rect_rw_buffer_side(struct icd_env *env, cl_mem m,
				const struct rect_case *c, bool read)
{
	unsigned char host[64] = { 0 };
	cl_event gate = gate_new(env), ev = SENTINEL_EVENT;
	cl_int r;

	if (read)
		r = clEnqueueReadBufferRect(env->queue, m, CL_FALSE, c->origin,
					    zero, c->region, c->row_pitch,
					    c->slice_pitch, 0, 0, host, 1,
					    &gate, &ev);
	else
		r = clEnqueueWriteBufferRect(env->queue, m, CL_FALSE,
					     c->origin, zero, c->region,
					     c->row_pitch, c->slice_pitch, 0,
					     0, host, 1, &gate, &ev);
	gate_fail(env, gate);
	if (r == CL_SUCCESS && ev != SENTINEL_EVENT)
		clReleaseEvent(ev);
	if (r != CL_INVALID_VALUE)
		fail_msg("%s buffer side \"%s\": %d, not CL_INVALID_VALUE",
			 read ? "read" : "write", c->what, r);
	assert_ptr_equal(ev, SENTINEL_EVENT);
}

/* The same rectangles on the host side, the buffer side small. */
static void rect_rw_host_side(struct icd_env *env, cl_mem m,
			      const struct rect_case *c, bool read)
{
	unsigned char host[64] = { 0 };
	cl_event gate = gate_new(env), ev = SENTINEL_EVENT;
	cl_int r;

	if (read)
		r = clEnqueueReadBufferRect(env->queue, m, CL_FALSE, zero,
					    c->origin, c->region, 0, 0,
					    c->row_pitch, c->slice_pitch, host,
					    1, &gate, &ev);
	else
		r = clEnqueueWriteBufferRect(env->queue, m, CL_FALSE, zero,
					     c->origin, c->region, 0, 0,
					     c->row_pitch, c->slice_pitch,
					     host, 1, &gate, &ev);
	gate_fail(env, gate);
	if (r == CL_SUCCESS && ev != SENTINEL_EVENT)
		clReleaseEvent(ev);
	/*
	 * The buffer side is the region with default pitches: it may be
	 * out of bounds itself, which is CL_INVALID_VALUE too.
	 */
	if (r != CL_INVALID_VALUE)
		fail_msg("%s host side \"%s\": %d, not CL_INVALID_VALUE",
			 read ? "read" : "write", c->what, r);
	assert_ptr_equal(ev, SENTINEL_EVENT);
}

static void test_rect_read_write(void **state)
{
	struct icd_env *env = *state;
	cl_mem m = buffer(env, N);
	unsigned char host[64];
	size_t i;

	buffer_set(env, m, 0xa5);
	for (i = 0; i < ICD_TEST_ARRAY_SIZE(bad_rects); i++) {
		rect_rw_buffer_side(env, m, &bad_rects[i], false);
		rect_rw_buffer_side(env, m, &bad_rects[i], true);
		rect_rw_host_side(env, m, &bad_rects[i], false);
		rect_rw_host_side(env, m, &bad_rects[i], true);
	}
	/* A host rectangle reaching past the end of the address space. */
	{
		const size_t far[3] = { 16, 0, 0 }, region[3] = { 16, 1, 1 };
		void *top = (void *)(uintptr_t)(UINTPTR_MAX - 15);
		cl_event gate = gate_new(env), ev = SENTINEL_EVENT;
		cl_int r;

		r = clEnqueueWriteBufferRect(env->queue, m, CL_FALSE, zero,
					     far, region, 0, 0, 0, 0, top, 1,
					     &gate, &ev);
		gate_fail(env, gate);
		if (r == CL_SUCCESS && ev != SENTINEL_EVENT)
			clReleaseEvent(ev);
		assert_int_equal(r, CL_INVALID_VALUE);
		assert_ptr_equal(ev, SENTINEL_EVENT);
	}
	buffer_check(env, m, 0xa5);

	/* The checks refuse only what wraps: a small rectangle works. */
	memset(host, 0x3c, sizeof(host));
	CL_OK(clEnqueueWriteBufferRect(env->queue, m, CL_TRUE, zero, zero,
				       small_region, 0, 0, 0, 0, host, 0, NULL,
				       NULL));
	memset(host, 0, sizeof(host));
	CL_OK(clEnqueueReadBufferRect(env->queue, m, CL_TRUE, zero, zero,
				      small_region, 0, 0, 0, 0, host, 0, NULL,
				      NULL));
	for (i = 0; i < 8; i++)
		assert_int_equal(host[i], 0x3c);
	CL_OK(clReleaseMemObject(m));
}

static void test_rect_copy(void **state)
{
	struct icd_env *env = *state;
	cl_mem a = buffer(env, N), b = buffer(env, N);
	size_t i;

	buffer_set(env, a, 0x11);
	buffer_set(env, b, 0x22);
	for (i = 0; i < ICD_TEST_ARRAY_SIZE(bad_rects); i++) {
		const struct rect_case *c = &bad_rects[i];
		cl_event gate, ev;
		cl_int r[2];
		int side;

		for (side = 0; side < 2; side++) {
			gate = gate_new(env);
			ev = SENTINEL_EVENT;
			if (side == 0)
				r[side] = clEnqueueCopyBufferRect(env->queue,
					a, b, c->origin, zero, c->region,
					c->row_pitch, c->slice_pitch, 0, 0,
					1, &gate, &ev);
			else
				r[side] = clEnqueueCopyBufferRect(env->queue,
					a, b, zero, c->origin, c->region, 0,
					0, c->row_pitch, c->slice_pitch, 1,
					&gate, &ev);
			gate_fail(env, gate);
			if (r[side] == CL_SUCCESS && ev != SENTINEL_EVENT)
				clReleaseEvent(ev);
			if (r[side] != CL_INVALID_VALUE)
				fail_msg("copy %s side \"%s\": %d",
					 side ? "dst" : "src", c->what,
					 r[side]);
			assert_ptr_equal(ev, SENTINEL_EVENT);
		}
	}
	buffer_check(env, a, 0x11);
	buffer_check(env, b, 0x22);

	CL_OK(clEnqueueCopyBufferRect(env->queue, a, b, zero, zero,
				      small_region, 0, 0, 0, 0, 0, NULL,
				      NULL));
	CL_OK(clFinish(env->queue));
	CL_OK(clReleaseMemObject(a));
	CL_OK(clReleaseMemObject(b));
}

/* ---- plain transfers, fills, maps ----------------------------------- */

/* (offset, size) pairs out of a 4096-byte buffer, most by wrapping. */
static const size_t bad_ranges[][2] = {
	{ SIZE_MAX, 1 },
	{ SIZE_MAX - 3, 8 },
	{ 8, SIZE_MAX - 3 },
	{ 1, SIZE_MAX },
	{ N, 4 },
	{ N - 4, 8 },
	{ 0, SIZE_MAX },
	{ HALF, HALF },
};

static void test_read_write_copy(void **state)
{
	struct icd_env *env = *state;
	cl_mem a = buffer(env, N), b = buffer(env, N);
	static unsigned char host[N];
	size_t i;

	buffer_set(env, a, 0x11);
	buffer_set(env, b, 0x22);
	for (i = 0; i < ICD_TEST_ARRAY_SIZE(bad_ranges); i++) {
		size_t off = bad_ranges[i][0], size = bad_ranges[i][1];
		cl_event ev = SENTINEL_EVENT;

		assert_int_equal(clEnqueueWriteBuffer(env->queue, a, CL_TRUE,
						      off, size, host, 0, NULL,
						      &ev),
				 CL_INVALID_VALUE);
		assert_int_equal(clEnqueueReadBuffer(env->queue, a, CL_TRUE,
						     off, size, host, 0, NULL,
						     &ev),
				 CL_INVALID_VALUE);
		assert_int_equal(clEnqueueCopyBuffer(env->queue, a, b, off, 0,
						     size, 0, NULL, &ev),
				 CL_INVALID_VALUE);
		assert_int_equal(clEnqueueCopyBuffer(env->queue, a, b, 0, off,
						     size, 0, NULL, &ev),
				 CL_INVALID_VALUE);
		assert_ptr_equal(ev, SENTINEL_EVENT);
	}
	CL_OK(clFinish(env->queue));
	buffer_check(env, a, 0x11);
	buffer_check(env, b, 0x22);
	CL_OK(clReleaseMemObject(a));
	CL_OK(clReleaseMemObject(b));
}

static void test_fill(void **state)
{
	struct icd_env *env = *state;
	cl_mem m = buffer(env, N);
	const unsigned char pattern[256] = { 0x77 };
	size_t i;

	buffer_set(env, m, 0x11);
	for (i = 0; i < ICD_TEST_ARRAY_SIZE(bad_ranges); i++) {
		/* offsets and sizes are multiples of 4 or 1 */
		size_t off = bad_ranges[i][0], size = bad_ranges[i][1];
		size_t psize = off % 4 || size % 4 ? 1 : 4;
		cl_event ev = SENTINEL_EVENT;

		assert_int_equal(clEnqueueFillBuffer(env->queue, m, pattern,
						     psize, off, size, 0, NULL,
						     &ev),
				 CL_INVALID_VALUE);
		assert_ptr_equal(ev, SENTINEL_EVENT);
	}
	/* pattern sizes: not a power of two, above 128, wrapping */
	assert_int_equal(clEnqueueFillBuffer(env->queue, m, pattern, 256, 0,
					     N, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueFillBuffer(env->queue, m, pattern, 3, 0,
					     3 * 64, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueFillBuffer(env->queue, m, pattern, HALF, 0,
					     N, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueFillBuffer(env->queue, m, pattern, SIZE_MAX,
					     0, N, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	CL_OK(clFinish(env->queue));
	buffer_check(env, m, 0x11);
	CL_OK(clReleaseMemObject(m));
}

static void test_map(void **state)
{
	struct icd_env *env = *state;
	cl_mem m = buffer(env, N);
	cl_uint count = 1;
	size_t i;

	for (i = 0; i < ICD_TEST_ARRAY_SIZE(bad_ranges); i++) {
		cl_int err = CL_SUCCESS;
		cl_event ev = SENTINEL_EVENT;
		void *p;

		p = clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ,
				       bad_ranges[i][0], bad_ranges[i][1], 0,
				       NULL, &ev, &err);
		assert_null(p);
		assert_int_equal(err, CL_INVALID_VALUE);
		assert_ptr_equal(ev, SENTINEL_EVENT);
	}
	/* no mapping was left behind */
	CL_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof(count), &count,
				 NULL));
	assert_int_equal(count, 0);
	CL_OK(clReleaseMemObject(m));
}

/* ---- memory objects ------------------------------------------------- */

static void test_create_buffer(void **state)
{
	struct icd_env *env = *state;
	unsigned char host[64];
	cl_int err = CL_SUCCESS;

	assert_null(clCreateBuffer(env->ctx, 0, SIZE_MAX, NULL, &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
	assert_null(clCreateBuffer(env->ctx, 0, HALF, NULL, &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
	/* a host pointer cannot make a huge size valid */
	assert_null(clCreateBuffer(env->ctx, CL_MEM_USE_HOST_PTR, SIZE_MAX,
				   host, &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
	assert_null(clCreateBuffer(env->ctx, CL_MEM_COPY_HOST_PTR, SIZE_MAX,
				   host, &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
	assert_null(clCreateBufferWithProperties(env->ctx, NULL, 0, SIZE_MAX,
						 NULL, &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
}

static void test_sub_buffer(void **state)
{
	struct icd_env *env = *state;
	cl_mem m = buffer(env, 4 * N);
	cl_uint align_bits = 0, refs = 0;
	size_t align;
	size_t i;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
			      sizeof(align_bits), &align_bits, NULL));
	align = align_bits >= 8 ? align_bits / 8 : 1;
	{
		/* aligned origins, so only the range can be wrong */
		const cl_buffer_region bad[] = {
			{ SIZE_MAX & ~(align - 1), 1 },
			{ SIZE_MAX & ~(align - 1), N },
			{ align, SIZE_MAX - align + 1 },
			{ align, SIZE_MAX },
			{ 0, SIZE_MAX },
			{ HALF, HALF },
			{ 4 * N, 1 },
			{ 0, 4 * N + 1 },
		};

		for (i = 0; i < ICD_TEST_ARRAY_SIZE(bad); i++) {
			cl_int err = CL_SUCCESS;
			cl_mem s;

			s = clCreateSubBuffer(m, 0,
					      CL_BUFFER_CREATE_TYPE_REGION,
					      &bad[i], &err);
			assert_null(s);
			if (err != CL_INVALID_VALUE)
				fail_msg("region %zu (%zx, %zx): %d", i,
					 bad[i].origin, bad[i].size, err);
		}
	}
	/* no sub-buffer holds the parent */
	CL_OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(refs),
				 &refs, NULL));
	assert_int_equal(refs, 1);
	CL_OK(clReleaseMemObject(m));
}

/* ---- NDRange geometry ----------------------------------------------- */

struct nd_case {
	const char *what;
	cl_uint dim;
	size_t offset[3];
	size_t global[3];
	size_t local[3]; /* all 0: NULL */
	cl_int expect;
};

static const struct nd_case bad_nd[] = {
	/* 2^80 work-items: the work-group count wrapped to 0 */
	{ "2^40 x 2^40", 2, { 0 }, { (size_t)1 << 40, (size_t)1 << 40 },
	  { 0 }, CL_INVALID_GLOBAL_WORK_SIZE },
	{ "2^40 x 2^40 in 1 x 1", 2, { 0 },
	  { (size_t)1 << 40, (size_t)1 << 40 }, { 1, 1 },
	  CL_INVALID_GLOBAL_WORK_SIZE },
	/* exactly 2^64 */
	{ "2^32 x 2^32", 2, { 0 }, { (size_t)1 << 32, (size_t)1 << 32 },
	  { 0 }, CL_INVALID_GLOBAL_WORK_SIZE },
	{ "2^22 x 2^22 x 2^22", 3, { 0 },
	  { (size_t)1 << 22, (size_t)1 << 22, (size_t)1 << 22 }, { 0 },
	  CL_INVALID_GLOBAL_WORK_SIZE },
	{ "SIZE_MAX x 2", 2, { 0 }, { SIZE_MAX, 2 }, { 0 },
	  CL_INVALID_GLOBAL_WORK_SIZE },
	/* global offset + global size beyond size_t */
	{ "offset SIZE_MAX", 1, { SIZE_MAX }, { 2 }, { 0 },
	  CL_INVALID_GLOBAL_OFFSET },
	{ "offset 1 + SIZE_MAX", 1, { 1 }, { SIZE_MAX }, { 0 },
	  CL_INVALID_GLOBAL_OFFSET },
	{ "offset in y", 2, { 0, SIZE_MAX - 1 }, { 4, 4 }, { 0 },
	  CL_INVALID_GLOBAL_OFFSET },
};

static void test_ndrange(void **state)
{
	struct icd_env *env = *state;
	char names[256] = "";
	cl_uint value = 7, dims = 0;
	cl_int err = CL_SUCCESS;
	cl_program p;
	cl_kernel k;
	cl_mem m;
	size_t i, one = 1;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_BUILT_IN_KERNELS,
			      sizeof(names), names, NULL));
	if (!strstr(names, "fill_u32"))
		skip();
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS,
			      sizeof(dims), &dims, NULL));
	p = clCreateProgramWithBuiltInKernels(env->ctx, 1, &env->device,
					      "fill_u32", &err);
	CL_OK(err);
	k = clCreateKernel(p, "fill_u32", &err);
	CL_OK(err);
	m = buffer(env, N);
	CL_OK(clSetKernelArg(k, 0, sizeof(m), &m));
	CL_OK(clSetKernelArg(k, 1, sizeof(value), &value));

	for (i = 0; i < ICD_TEST_ARRAY_SIZE(bad_nd); i++) {
		const struct nd_case *c = &bad_nd[i];
		cl_event gate, ev = SENTINEL_EVENT;
		cl_int r;

		if (c->dim > dims)
			continue;
		gate = gate_new(env);
		r = clEnqueueNDRangeKernel(env->queue, k, c->dim, c->offset,
					   c->global,
					   c->local[0] ? c->local : NULL, 1,
					   &gate, &ev);
		gate_fail(env, gate);
		if (r == CL_SUCCESS && ev != SENTINEL_EVENT)
			clReleaseEvent(ev);
		if (r != c->expect)
			fail_msg("\"%s\": %d, not %d", c->what, r, c->expect);
		assert_ptr_equal(ev, SENTINEL_EVENT);
	}
	/* and a plain launch still runs */
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, &one, 0,
				     NULL, NULL));
	CL_OK(clFinish(env->queue));
	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_rect_read_write),
		T(test_rect_copy),
		T(test_read_write_copy),
		T(test_fill),
		T(test_map),
		T(test_create_buffer),
		T(test_sub_buffer),
		T(test_ndrange),
	};
#undef T

	return ICD_TEST_RUN("icd-hostile-sizes", tests);
}
