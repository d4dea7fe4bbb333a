/* SPDX-License-Identifier: MIT */
/*
 * accel_buffer_*: allocation, flags, host maps, sub-buffers, user memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

static void test_new_bad_args(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = TEST_SENTINEL_PTR;
	uint64_t max = test_dev_u64(env->dev, ACCEL_DEVICE_U64_MAX_ALLOC_SIZE);
	static const uint32_t bad_flags[] = {
		ACCEL_BUFFER_READ_ONLY | ACCEL_BUFFER_WRITE_ONLY,
		ACCEL_BUFFER_HOST_NO_ACCESS | ACCEL_BUFFER_HOST_READ_ONLY,
		ACCEL_BUFFER_HOST_NO_ACCESS | ACCEL_BUFFER_HOST_WRITE_ONLY,
		ACCEL_BUFFER_HOST_READ_ONLY | ACCEL_BUFFER_HOST_WRITE_ONLY,
		ACCEL_BUFFER_FLAGS_ALL,
		1u << 6,
		1u << 31,
		~ACCEL_BUFFER_FLAGS_ALL,
	};
	unsigned i;

	assert_int_equal(accel_buffer_new(NULL, 64, 0, &buf), -EINVAL);
	assert_int_equal(accel_buffer_new(env->dev, 64, 0, NULL), -EINVAL);
	assert_int_equal(accel_buffer_new(env->dev, 0, 0, &buf), -EINVAL);
	for (i = 0; i < TEST_ARRAY_SIZE(bad_flags); i++)
		assert_int_equal(accel_buffer_new(env->dev, 64, bad_flags[i],
						  &buf),
				 -EINVAL);
	assert_int_equal(accel_buffer_new(env->dev, max + 1, 0, &buf), -E2BIG);
	assert_int_equal(accel_buffer_new(env->dev, UINT64_MAX, 0, &buf),
			 -E2BIG);
	assert_ptr_equal(buf, TEST_SENTINEL_PTR);
}

static void test_new_props(void **state)
{
	struct test_env *env = *state;
	static const uint32_t good_flags[] = {
		0,
		ACCEL_BUFFER_READ_ONLY,
		ACCEL_BUFFER_WRITE_ONLY,
		ACCEL_BUFFER_HOST_NO_ACCESS,
		ACCEL_BUFFER_HOST_READ_ONLY,
		ACCEL_BUFFER_HOST_WRITE_ONLY,
		ACCEL_BUFFER_READ_ONLY | ACCEL_BUFFER_HOST_WRITE_ONLY,
		ACCEL_BUFFER_WRITE_ONLY | ACCEL_BUFFER_HOST_READ_ONLY,
	};
	unsigned i;

	for (i = 0; i < TEST_ARRAY_SIZE(good_flags); i++) {
		struct accel_buffer *buf = NULL;
		uint64_t size = 1 + i * 1000;

		assert_int_equal(accel_buffer_new(env->dev, size, good_flags[i],
						  &buf),
				 0);
		assert_non_null(buf);
		assert_int_equal(accel_buffer_get_size(buf), size);
		assert_int_equal(accel_buffer_get_flags(buf), good_flags[i]);
		assert_ptr_equal(accel_buffer_get_device(buf), env->dev);
		assert_null(accel_buffer_get_parent(buf));
		assert_int_equal(accel_buffer_get_offset(buf), 0);
		assert_ptr_equal(accel_buffer_ref(buf), buf);
		assert_null(accel_buffer_unref(buf));
		assert_null(accel_buffer_unref(buf));
	}

	assert_int_equal(accel_buffer_get_size(NULL), 0);
	assert_int_equal(accel_buffer_get_flags(NULL), 0);
	assert_null(accel_buffer_get_device(NULL));
	assert_null(accel_buffer_get_parent(NULL));
	assert_int_equal(accel_buffer_get_offset(NULL), 0);
	assert_null(accel_buffer_ref(NULL));
	assert_null(accel_buffer_unref(NULL));
}

/* Contents start zeroed, for odd sizes and sizes above a page. */
static void test_new_zeroed(void **state)
{
	struct test_env *env = *state;
	static const uint64_t sizes[] = { 1, 3, 4095, 4097, (1u << 20) + 5 };
	unsigned i;

	for (i = 0; i < TEST_ARRAY_SIZE(sizes); i++) {
		struct accel_buffer *buf = test_buffer_new(env, sizes[i]);
		uint8_t *p = NULL;
		uint64_t j, nonzero = 0;

		assert_int_equal(accel_buffer_map(buf, 0, sizes[i],
						  ACCEL_MAP_READ, (void **)&p),
				 0);
		for (j = 0; j < sizes[i]; j++)
			nonzero += p[j] != 0;
		assert_int_equal(nonzero, 0);
		assert_int_equal(accel_buffer_unmap(buf, p), 0);
		accel_buffer_unref(buf);
	}
}

static void test_map_bad_args(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 4096);
	void *p = TEST_SENTINEL_PTR;

	assert_int_equal(accel_buffer_map(NULL, 0, 1, ACCEL_MAP_READ, &p),
			 -EINVAL);
	assert_int_equal(accel_buffer_map(buf, 0, 1, ACCEL_MAP_READ, NULL),
			 -EINVAL);
	assert_int_equal(accel_buffer_map(buf, 0, 0, ACCEL_MAP_READ, &p),
			 -EINVAL);
	assert_int_equal(accel_buffer_map(buf, 0, 1, 0, &p), -EINVAL);
	assert_int_equal(accel_buffer_map(buf, 0, 1, 1u << 3, &p), -EINVAL);
	assert_int_equal(accel_buffer_map(buf, 0, 1,
					  ACCEL_MAP_READ | (1u << 31), &p),
			 -EINVAL);
	assert_int_equal(accel_buffer_map(buf, 0, 4097, ACCEL_MAP_READ, &p),
			 -ERANGE);
	assert_int_equal(accel_buffer_map(buf, 4096, 1, ACCEL_MAP_READ, &p),
			 -ERANGE);
	assert_int_equal(accel_buffer_map(buf, 4095, 2, ACCEL_MAP_READ, &p),
			 -ERANGE);
	assert_int_equal(accel_buffer_map(buf, UINT64_MAX, 1, ACCEL_MAP_READ,
					  &p),
			 -ERANGE);
	/* offset + size wraps around to a small number. */
	assert_int_equal(accel_buffer_map(buf, 8, UINT64_MAX - 7,
					  ACCEL_MAP_READ, &p),
			 -ERANGE);
	assert_int_equal(accel_buffer_map(buf, 8, UINT64_MAX, ACCEL_MAP_READ,
					  &p),
			 -ERANGE);
	assert_ptr_equal(p, TEST_SENTINEL_PTR);
	accel_buffer_unref(buf);
}

static void test_map_unmap(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 4096);
	struct accel_buffer *other = test_buffer_new(env, 4096);
	uint8_t *p = NULL, *q = NULL, *r = NULL, *o = NULL;
	uint8_t back[4096], data[4096];
	int stack_var;
	unsigned i;

	assert_int_equal(accel_buffer_map(buf, 0, 4096, ACCEL_MAP_WRITE,
					  (void **)&p),
			 0);
	assert_non_null(p);
	for (i = 0; i < 4096; i++)
		p[i] = (uint8_t)(i * 7);
	/* Maps nest; a second map of an overlapping range sees the data. */
	assert_int_equal(accel_buffer_map(buf, 100, 50, ACCEL_MAP_READ,
					  (void **)&q),
			 0);
	assert_memory_equal(q, p + 100, 50);
	if (test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	    ACCEL_DEVICE_CAP_HOST_UNIFIED_MEMORY)
		assert_ptr_equal(q, p + 100);

	/* Pointers that are not live mappings. */
	assert_int_equal(accel_buffer_unmap(buf, &stack_var), -EINVAL);
	assert_int_equal(accel_buffer_unmap(buf, NULL), -EINVAL);
	assert_int_equal(accel_buffer_unmap(NULL, p), -EINVAL);
	assert_int_equal(accel_buffer_map(other, 0, 16, ACCEL_MAP_READ,
					  (void **)&o),
			 0);
	assert_int_equal(accel_buffer_unmap(buf, o), -EINVAL);
	assert_int_equal(accel_buffer_unmap(other, p), -EINVAL);
	assert_int_equal(accel_buffer_unmap(other, o), 0);
	assert_int_equal(accel_buffer_unmap(other, o), -EINVAL);

	assert_int_equal(accel_buffer_unmap(buf, q), 0);
	assert_int_equal(accel_buffer_unmap(buf, q), -EINVAL);
	assert_int_equal(accel_buffer_unmap(buf, p), 0);
	assert_int_equal(accel_buffer_unmap(buf, p), -EINVAL);

	/* The device sees what the host wrote... */
	test_read(env, buf, 0, sizeof(back), back);
	for (i = 0; i < 4096; i++)
		assert_int_equal(back[i], (uint8_t)(i * 7));

	/* ...and the host sees what the device wrote. */
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(255 - i);
	test_write(env, buf, 0, sizeof(data), data);
	assert_int_equal(accel_buffer_map(buf, 1, 4095,
					  ACCEL_MAP_READ | ACCEL_MAP_WRITE,
					  (void **)&r),
			 0);
	assert_memory_equal(r, data + 1, 4095);
	assert_int_equal(accel_buffer_unmap(buf, r), 0);

	/* WRITE_INVALIDATE maps are writable and the write sticks. */
	assert_int_equal(accel_buffer_map(buf, 0, 8, ACCEL_MAP_WRITE_INVALIDATE,
					  (void **)&r),
			 0);
	memset(r, 0xab, 8);
	assert_int_equal(accel_buffer_unmap(buf, r), 0);
	test_read(env, buf, 0, 8, back);
	for (i = 0; i < 8; i++)
		assert_int_equal(back[i], 0xab);

	accel_buffer_unref(other);
	accel_buffer_unref(buf);
}

/* Dropping a buffer with live maps cleans them up (fd check, ASan). */
static void test_unref_while_mapped(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 8192);
	void *p = NULL, *q = NULL;

	assert_int_equal(accel_buffer_map(buf, 0, 8192, ACCEL_MAP_READ, &p), 0);
	assert_int_equal(accel_buffer_map(buf, 4096, 10, ACCEL_MAP_WRITE, &q),
			 0);
	accel_buffer_unref(buf);
}

static void test_map_host_access(void **state)
{
	struct test_env *env = *state;
	static const struct {
		uint32_t buf_flags, map_flags;
		int expect;
	} cases[] = {
		{ ACCEL_BUFFER_HOST_NO_ACCESS, ACCEL_MAP_READ, -EACCES },
		{ ACCEL_BUFFER_HOST_NO_ACCESS, ACCEL_MAP_WRITE, -EACCES },
		{ ACCEL_BUFFER_HOST_NO_ACCESS, ACCEL_MAP_WRITE_INVALIDATE,
		  -EACCES },
		{ ACCEL_BUFFER_HOST_READ_ONLY, ACCEL_MAP_READ, 0 },
		{ ACCEL_BUFFER_HOST_READ_ONLY, ACCEL_MAP_WRITE, -EACCES },
		{ ACCEL_BUFFER_HOST_READ_ONLY,
		  ACCEL_MAP_READ | ACCEL_MAP_WRITE, -EACCES },
		{ ACCEL_BUFFER_HOST_READ_ONLY, ACCEL_MAP_WRITE_INVALIDATE,
		  -EACCES },
		{ ACCEL_BUFFER_HOST_WRITE_ONLY, ACCEL_MAP_READ, -EACCES },
		{ ACCEL_BUFFER_HOST_WRITE_ONLY, ACCEL_MAP_WRITE, 0 },
		{ ACCEL_BUFFER_HOST_WRITE_ONLY, ACCEL_MAP_WRITE_INVALIDATE, 0 },
		{ ACCEL_BUFFER_HOST_WRITE_ONLY,
		  ACCEL_MAP_READ | ACCEL_MAP_WRITE, -EACCES },
		/* Device-side flags do not restrict the host. */
		{ ACCEL_BUFFER_READ_ONLY, ACCEL_MAP_READ | ACCEL_MAP_WRITE, 0 },
		{ ACCEL_BUFFER_WRITE_ONLY, ACCEL_MAP_READ | ACCEL_MAP_WRITE, 0 },
	};
	unsigned i;

	for (i = 0; i < TEST_ARRAY_SIZE(cases); i++) {
		struct accel_buffer *buf = NULL;
		void *p = TEST_SENTINEL_PTR;
		int r;

		assert_int_equal(accel_buffer_new(env->dev, 256,
						  cases[i].buf_flags, &buf),
				 0);
		r = accel_buffer_map(buf, 0, 256, cases[i].map_flags, &p);
		if (r != cases[i].expect)
			fail_msg("case %u: buffer flags %#x map flags %#x: "
				 "expected %d, got %d",
				 i, cases[i].buf_flags, cases[i].map_flags,
				 cases[i].expect, r);
		if (r == 0)
			assert_int_equal(accel_buffer_unmap(buf, p), 0);
		else
			assert_ptr_equal(p, TEST_SENTINEL_PTR);
		accel_buffer_unref(buf);
	}
}

static void test_sub_bad_args(void **state)
{
	struct test_env *env = *state;
	uint64_t align = test_dev_u64(env->dev,
				      ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN);
	uint64_t size = 8 * align;
	struct accel_buffer *parent = test_buffer_new(env, size);
	struct accel_buffer *sub = TEST_SENTINEL_PTR, *ok = NULL;

	assert_int_equal(accel_buffer_new_sub(NULL, 0, 16, 0, &sub), -EINVAL);
	assert_int_equal(accel_buffer_new_sub(parent, 0, 16, 0, NULL),
			 -EINVAL);
	assert_int_equal(accel_buffer_new_sub(parent, 0, 0, 0, &sub), -EINVAL);
	assert_int_equal(accel_buffer_new_sub(parent, 0, 16, 1u << 6, &sub),
			 -EINVAL);
	assert_int_equal(accel_buffer_new_sub(parent, 0, 16,
					      ACCEL_BUFFER_READ_ONLY |
						      ACCEL_BUFFER_WRITE_ONLY,
					      &sub),
			 -EINVAL);
	if (align > 1) {
		assert_int_equal(accel_buffer_new_sub(parent, 1, 16, 0, &sub),
				 -EINVAL);
		assert_int_equal(accel_buffer_new_sub(parent, align / 2, 16, 0,
						      &sub),
				 -EINVAL);
	}
	assert_int_equal(accel_buffer_new_sub(parent, 0, size + 1, 0, &sub),
			 -ERANGE);
	assert_int_equal(accel_buffer_new_sub(parent, align, size, 0, &sub),
			 -ERANGE);
	assert_int_equal(accel_buffer_new_sub(parent, size + align, 1, 0,
					      &sub),
			 -ERANGE);
	/* offset + size wraps around UINT64_MAX. */
	assert_int_equal(accel_buffer_new_sub(parent, align,
					      UINT64_MAX - align + 1, 0, &sub),
			 -ERANGE);
	assert_int_equal(accel_buffer_new_sub(parent, align, UINT64_MAX, 0,
					      &sub),
			 -ERANGE);
	assert_ptr_equal(sub, TEST_SENTINEL_PTR);

	/* No sub-buffers of sub-buffers. */
	assert_int_equal(accel_buffer_new_sub(parent, 0, 2 * align, 0, &ok), 0);
	assert_int_equal(accel_buffer_new_sub(ok, 0, 16, 0, &sub), -EINVAL);
	assert_ptr_equal(sub, TEST_SENTINEL_PTR);

	/* The whole parent and the last aligned piece are fine. */
	accel_buffer_unref(ok);
	assert_int_equal(accel_buffer_new_sub(parent, 0, size, 0, &ok), 0);
	accel_buffer_unref(ok);
	assert_int_equal(accel_buffer_new_sub(parent, size - align, align, 0,
					      &ok),
			 0);
	accel_buffer_unref(ok);
	accel_buffer_unref(parent);
}

static void test_sub_alias(void **state)
{
	struct test_env *env = *state;
	uint64_t align = test_dev_u64(env->dev,
				      ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN);
	uint64_t off = 2 * align, sub_size = align + 24;
	uint64_t size = 4 * align + 64;
	struct accel_buffer *parent = test_buffer_new(env, size);
	struct accel_buffer *sub = NULL;
	uint8_t *whole, *expect, *pp = NULL, *sp = NULL, *sub_data;
	struct accel_fence *f = NULL;
	uint64_t i;

	whole = calloc(1, size);
	expect = calloc(1, size);
	sub_data = malloc(sub_size);
	assert_non_null(whole);
	assert_non_null(expect);
	assert_non_null(sub_data);

	assert_int_equal(accel_buffer_new_sub(parent, off, sub_size, 0, &sub),
			 0);
	assert_ptr_equal(accel_buffer_get_parent(sub), parent);
	assert_int_equal(accel_buffer_get_offset(sub), off);
	assert_int_equal(accel_buffer_get_size(sub), sub_size);
	assert_ptr_equal(accel_buffer_get_device(sub), env->dev);
	assert_int_equal(accel_buffer_get_flags(sub),
			 accel_buffer_get_flags(parent));

	/* Writes through the sub-buffer land in the parent's range. */
	for (i = 0; i < sub_size; i++)
		sub_data[i] = (uint8_t)(i + 1);
	test_write(env, sub, 0, sub_size, sub_data);
	memcpy(expect + off, sub_data, sub_size);
	test_read(env, parent, 0, size, whole);
	assert_memory_equal(whole, expect, size);

	/* Writes to the parent show through the sub-buffer. */
	test_write(env, parent, off + 3, 1, "\x77");
	test_read(env, sub, 3, 1, whole);
	assert_int_equal(whole[0], 0x77);

	/* The sub-buffer's own bounds apply, not the parent's. */
	assert_int_equal(accel_queue_write(env->queue, sub, 0, sub_size + 1,
					   sub_data, 0, NULL, &f),
			 -ERANGE);
	assert_int_equal(accel_buffer_map(sub, sub_size, 1, ACCEL_MAP_READ,
					  (void **)&sp),
			 -ERANGE);

	/* Maps of the sub-buffer alias the parent's memory. */
	assert_int_equal(accel_buffer_map(parent, 0, size, ACCEL_MAP_READ,
					  (void **)&pp),
			 0);
	assert_int_equal(accel_buffer_map(sub, 0, sub_size,
					  ACCEL_MAP_READ | ACCEL_MAP_WRITE,
					  (void **)&sp),
			 0);
	assert_int_equal(sp[3], 0x77);
	if (test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	    ACCEL_DEVICE_CAP_HOST_UNIFIED_MEMORY)
		assert_ptr_equal(sp, pp + off);
	/* A map of the sub-buffer is not a map of the parent. */
	assert_int_equal(accel_buffer_unmap(parent, sp), -EINVAL);
	assert_int_equal(accel_buffer_unmap(sub, sp), 0);
	assert_int_equal(accel_buffer_unmap(parent, pp), 0);

	/* The sub-buffer keeps its parent alive. */
	accel_buffer_unref(parent);
	test_write(env, sub, 0, 1, "\x42");
	test_read(env, sub, 0, 4, whole);
	assert_int_equal(whole[0], 0x42);
	assert_int_equal(whole[3], 0x77);
	accel_buffer_unref(sub);

	free(sub_data);
	free(expect);
	free(whole);
}

static void test_sub_access(void **state)
{
	struct test_env *env = *state;
	static const struct {
		uint32_t parent, sub;
		int expect;
		uint32_t result; /* flags of the sub-buffer on success */
	} cases[] = {
		{ ACCEL_BUFFER_READ_ONLY, ACCEL_BUFFER_WRITE_ONLY, -EINVAL, 0 },
		{ ACCEL_BUFFER_WRITE_ONLY, ACCEL_BUFFER_READ_ONLY, -EINVAL, 0 },
		{ ACCEL_BUFFER_HOST_NO_ACCESS, ACCEL_BUFFER_HOST_READ_ONLY,
		  -EINVAL, 0 },
		{ ACCEL_BUFFER_HOST_NO_ACCESS, ACCEL_BUFFER_HOST_WRITE_ONLY,
		  -EINVAL, 0 },
		{ ACCEL_BUFFER_HOST_READ_ONLY, ACCEL_BUFFER_HOST_WRITE_ONLY,
		  -EINVAL, 0 },
		{ ACCEL_BUFFER_HOST_WRITE_ONLY, ACCEL_BUFFER_HOST_READ_ONLY,
		  -EINVAL, 0 },
		/* Narrowing is fine. */
		{ 0, ACCEL_BUFFER_READ_ONLY | ACCEL_BUFFER_HOST_NO_ACCESS, 0,
		  ACCEL_BUFFER_READ_ONLY | ACCEL_BUFFER_HOST_NO_ACCESS },
		{ ACCEL_BUFFER_HOST_READ_ONLY, ACCEL_BUFFER_HOST_NO_ACCESS, 0,
		  ACCEL_BUFFER_HOST_NO_ACCESS },
		{ ACCEL_BUFFER_READ_ONLY, ACCEL_BUFFER_READ_ONLY, 0,
		  ACCEL_BUFFER_READ_ONLY },
		/* 0 inherits. */
		{ ACCEL_BUFFER_WRITE_ONLY | ACCEL_BUFFER_HOST_READ_ONLY, 0, 0,
		  ACCEL_BUFFER_WRITE_ONLY | ACCEL_BUFFER_HOST_READ_ONLY },
	};
	unsigned i;

	for (i = 0; i < TEST_ARRAY_SIZE(cases); i++) {
		struct accel_buffer *parent = NULL, *sub = TEST_SENTINEL_PTR;
		int r;

		assert_int_equal(accel_buffer_new(env->dev, 4096,
						  cases[i].parent, &parent),
				 0);
		r = accel_buffer_new_sub(parent, 0, 64, cases[i].sub, &sub);
		if (r != cases[i].expect)
			fail_msg("case %u: parent %#x sub %#x: expected %d, "
				 "got %d",
				 i, cases[i].parent, cases[i].sub,
				 cases[i].expect, r);
		if (r == 0) {
			assert_int_equal(accel_buffer_get_flags(sub),
					 cases[i].result);
			accel_buffer_unref(sub);
		} else {
			assert_ptr_equal(sub, TEST_SENTINEL_PTR);
		}
		accel_buffer_unref(parent);
	}
}

/* A HOST_NO_ACCESS sub-buffer of a mappable parent refuses maps. */
static void test_sub_map_access(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *parent = test_buffer_new(env, 4096), *sub = NULL;
	void *p = TEST_SENTINEL_PTR;

	assert_int_equal(accel_buffer_new_sub(parent, 0, 64,
					      ACCEL_BUFFER_HOST_NO_ACCESS,
					      &sub),
			 0);
	assert_int_equal(accel_buffer_map(sub, 0, 64, ACCEL_MAP_READ, &p),
			 -EACCES);
	assert_ptr_equal(p, TEST_SENTINEL_PTR);
	accel_buffer_unref(sub);
	accel_buffer_unref(parent);
}

static void test_user_ptr(void **state)
{
	struct test_env *env = *state;
	bool cap = test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
		   ACCEL_DEVICE_CAP_USER_PTR;
	struct accel_buffer *buf = TEST_SENTINEL_PTR;
	uint32_t *mem, data[256];
	uint8_t *p = NULL;
	unsigned i;

	mem = aligned_alloc(4096, 4096);
	assert_non_null(mem);
	memset(mem, 0x11, 4096);

	assert_int_equal(accel_buffer_new_user_ptr(NULL, mem, 4096, 0, &buf),
			 -EINVAL);
	assert_int_equal(accel_buffer_new_user_ptr(env->dev, NULL, 4096, 0,
						   &buf),
			 -EINVAL);
	assert_int_equal(accel_buffer_new_user_ptr(env->dev, mem, 0, 0, &buf),
			 -EINVAL);
	assert_int_equal(accel_buffer_new_user_ptr(env->dev, mem, 4096,
						   1u << 7, &buf),
			 -EINVAL);
	assert_int_equal(accel_buffer_new_user_ptr(env->dev, mem, 4096, 0,
						   NULL),
			 -EINVAL);
	assert_ptr_equal(buf, TEST_SENTINEL_PTR);

	if (!cap) {
		assert_int_equal(accel_buffer_new_user_ptr(env->dev, mem, 4096,
							   0, &buf),
				 -EOPNOTSUPP);
		assert_ptr_equal(buf, TEST_SENTINEL_PTR);
		free(mem);
		skip();
	}

	assert_int_equal(accel_buffer_new_user_ptr(env->dev, mem, 4096, 0,
						   &buf),
			 0);
	assert_int_equal(accel_buffer_get_size(buf), 4096);
	/* The caller's contents are kept (no zeroing, no copy). */
	test_read(env, buf, 0, sizeof(data), data);
	assert_int_equal(data[0], 0x11111111);
	assert_int_equal(data[255], 0x11111111);

	/* Device writes land in the caller's memory. */
	for (i = 0; i < 256; i++)
		data[i] = i * 3;
	test_write(env, buf, 1024, sizeof(data), data);
	assert_memory_equal(mem + 256, data, sizeof(data));

	/* Host writes to the memory are seen by the device. */
	mem[0] = 0xcafe;
	test_read(env, buf, 0, 4, data);
	assert_int_equal(data[0], 0xcafe);

	/* Maps point into the caller's memory. */
	assert_int_equal(accel_buffer_map(buf, 8, 16, ACCEL_MAP_READ,
					  (void **)&p),
			 0);
	assert_ptr_equal(p, (uint8_t *)mem + 8);
	assert_int_equal(accel_buffer_unmap(buf, p), 0);

	/* Sub-buffers of user memory alias it too. */
	{
		struct accel_buffer *sub = NULL;
		uint64_t align = test_dev_u64(
			env->dev, ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN);

		if (align <= 2048) {
			assert_int_equal(accel_buffer_new_sub(buf, 2048, 16, 0,
							      &sub),
					 0);
			test_write(env, sub, 0, 4, "\x01\x02\x03\x04");
			assert_memory_equal((uint8_t *)mem + 2048,
					    "\x01\x02\x03\x04", 4);
			accel_buffer_unref(sub);
		}
	}

	accel_buffer_unref(buf);
	/* The memory is still the caller's and intact. */
	assert_int_equal(mem[0], 0xcafe);
	free(mem);
}

static void test_user_data(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 16);
	int x;

	assert_null(accel_buffer_get_user_data(buf));
	assert_int_equal(accel_buffer_set_user_data(buf, &x), 0);
	assert_ptr_equal(accel_buffer_get_user_data(buf), &x);
	assert_int_equal(accel_buffer_set_user_data(NULL, &x), -EINVAL);
	assert_null(accel_buffer_get_user_data(NULL));
	accel_buffer_unref(buf);
}

/* Buffers hold their device and context: release in any order. */
static void test_release_orders(void **state)
{
	struct test_env *env = *state;
	unsigned order;

	(void)env;
	for (order = 0; order < 3; order++) {
		struct test_log log;
		struct accel_context *ctx = NULL;
		struct accel_device *dev = NULL;
		struct accel_buffer *buf = NULL, *sub = NULL;
		uint8_t *p = NULL;

		test_log_init(&log);
		assert_int_equal(test_context_new(&log, &ctx), 0);
		assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
		assert_int_equal(accel_buffer_new(dev, 4096, 0, &buf), 0);
		assert_int_equal(accel_buffer_new_sub(buf, 0, 64, 0, &sub), 0);

		switch (order) {
		case 0: /* context, device, parent, sub */
			accel_context_unref(ctx);
			accel_device_unref(dev);
			accel_buffer_unref(buf);
			break;
		case 1: /* parent, device, context, sub */
			accel_buffer_unref(buf);
			accel_device_unref(dev);
			accel_context_unref(ctx);
			break;
		default: /* device, parent, context, sub */
			accel_device_unref(dev);
			accel_buffer_unref(buf);
			accel_context_unref(ctx);
			break;
		}
		/* The survivor still works. */
		assert_int_equal(accel_buffer_map(sub, 0, 64, ACCEL_MAP_WRITE,
						  (void **)&p),
				 0);
		memset(p, 1, 64);
		assert_int_equal(accel_buffer_unmap(sub, p), 0);
		assert_non_null(accel_buffer_get_device(sub));
		accel_buffer_unref(sub);
		test_log_fini(&log);
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_new_bad_args),
		T(test_new_props),
		T(test_new_zeroed),
		T(test_map_bad_args),
		T(test_map_unmap),
		T(test_unref_while_mapped),
		T(test_map_host_access),
		T(test_sub_bad_args),
		T(test_sub_alias),
		T(test_sub_access),
		T(test_sub_map_access),
		T(test_user_ptr),
		T(test_user_data),
		T(test_release_orders),
	};

	return TEST_RUN_GROUP("buffer", tests);
}
