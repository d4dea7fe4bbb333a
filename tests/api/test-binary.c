/* SPDX-License-Identifier: MIT */
/*
 * Program binaries through the public API: get a binary from a program
 * built from source, load it back and run it; malformed binaries, other
 * format versions and code for a CPU feature this one lacks are refused.
 * Skips where the compiler module was not built.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "test-common.h"

/* The container's layout (compiler-stub/cache/binary.h): the checksummed body
 * starts after magic, format, ABI version and the SHA-256. */
#define BODY 48

static const char src[] =
	"kernel void axpy(global const float *x, global float *restrict y,\n"
	"		  float a)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	y[i] += a * x[i];\n"
	"}\n"
	"kernel __attribute__((reqd_work_group_size(4, 1, 1)))\n"
	"void sum4(global uint *io, local uint *t)\n"
	"{\n"
	"	size_t l = get_local_id(0);\n"
	"	t[l] = io[get_global_id(0)];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	if (l == 0)\n"
	"		io[get_global_id(0)] = t[0] + t[1] + t[2] + t[3];\n"
	"}\n";

static bool have_compiler(struct test_env *env)
{
	return test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	       ACCEL_DEVICE_CAP_COMPILER;
}

/* A binary of src, copied (the caller frees it). */
static void *get_binary(struct test_env *env, size_t *size)
{
	struct accel_program *prog = NULL;
	const void *data;
	void *copy;

	assert_int_equal(accel_program_new_source(env->dev, src, 0, NULL, NULL,
						  &prog),
			 0);
	assert_int_equal(accel_program_get_binary(prog, &data, size), 0);
	assert_true(*size > 64);
	copy = malloc(*size);
	assert_non_null(copy);
	memcpy(copy, data, *size);
	accel_program_unref(prog);
	return copy;
}

static void run_axpy(struct test_env *env, struct accel_program *prog)
{
	struct accel_ndrange range = test_ndrange(1, 1000, 0, 0, 0, 0, 0);
	struct accel_buffer *x = test_buffer_new(env, 1000 * 4);
	struct accel_buffer *y = test_buffer_new(env, 1000 * 4);
	struct accel_kernel *k = NULL;
	float hx[1000], hy[1000], a = 2.0f;
	unsigned i;

	for (i = 0; i < 1000; i++) {
		hx[i] = (float)i;
		hy[i] = 1.0f;
	}
	test_write(env, x, 0, sizeof(hx), hx);
	test_write(env, y, 0, sizeof(hy), hy);
	assert_int_equal(accel_kernel_new(prog, "axpy", &k), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, x), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, y), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 2, 4, &a), 0);
	test_launch_wait(env, k, &range);
	test_read(env, y, 0, sizeof(hy), hy);
	for (i = 0; i < 1000; i++)
		assert_true(hy[i] == 1.0f + 2.0f * (float)i);
	accel_kernel_unref(k);
	accel_buffer_unref(x);
	accel_buffer_unref(y);
}

static void test_round_trip(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel_arg_desc d = { .struct_size = sizeof(d) };
	struct accel_kernel *k = NULL;
	uint64_t slm, reqd[3];
	const void *again;
	size_t size, size2;
	uint32_t flags;
	void *bin;

	if (!have_compiler(env))
		skip();
	bin = get_binary(env, &size);
	assert_int_equal(accel_program_new_binary(env->dev, bin, size, &prog),
			 0);
	assert_int_equal(accel_program_get_kernel_count(prog), 2);
	/* the loaded program gives the same binary back */
	assert_int_equal(accel_program_get_binary(prog, &again, &size2), 0);
	assert_int_equal(size2, size);
	assert_memory_equal(again, bin, size);
	run_axpy(env, prog);

	/* the descriptions survive the trip */
	assert_int_equal(accel_kernel_new(prog, "axpy", &k), 0);
	assert_int_equal(accel_kernel_get_arg_count(k), 3);
	assert_int_equal(accel_kernel_get_arg_desc(k, 0, &d), 0);
	assert_int_equal(d.kind, ACCEL_KERNEL_ARG_BUFFER);
	assert_int_equal(d.address_space, ACCEL_KERNEL_ARG_ADDR_GLOBAL);
	assert_true(d.type_qualifiers & ACCEL_KERNEL_ARG_TYPE_CONST);
	assert_string_equal(d.name, "x");
	assert_string_equal(d.type_name, "float*");
	assert_int_equal(accel_kernel_get_arg_desc(k, 1, &d), 0);
	assert_true(d.type_qualifiers & ACCEL_KERNEL_ARG_TYPE_RESTRICT);
	assert_int_equal(accel_kernel_get_arg_desc(k, 2, &d), 0);
	assert_int_equal(d.kind, ACCEL_KERNEL_ARG_VALUE);
	assert_int_equal(d.size, 4);
	accel_kernel_unref(k);
	assert_int_equal(accel_kernel_new(prog, "sum4", &k), 0);
	assert_int_equal(accel_kernel_get_wg_info(k, &slm, reqd, &flags), 0);
	assert_int_equal(reqd[0], 4);
	assert_int_equal(reqd[1], 1);
	assert_int_equal(accel_kernel_get_arg_desc(k, 1, &d), 0);
	assert_int_equal(d.kind, ACCEL_KERNEL_ARG_LOCAL);
	accel_kernel_unref(k);
	accel_program_unref(prog);
	free(bin);
}

static void test_no_binary(void **state)
{
	struct test_env *env = *state;
	const void *data = NULL;
	size_t size = 0;

	/* native kernels have no binary */
	assert_int_equal(accel_program_get_binary(env->prog, &data, &size),
			 -ENODATA);
	assert_null(data);
	assert_int_equal(accel_program_get_binary(NULL, &data, &size),
			 -EINVAL);
	assert_int_equal(accel_program_get_binary(env->prog, NULL, &size),
			 -EINVAL);
}

static void expect(struct test_env *env, const void *bin, size_t size,
		   int want)
{
	struct accel_program *prog = NULL;

	assert_int_equal(accel_program_new_binary(env->dev, bin, size, &prog),
			 want);
	assert_null(prog);
}

static void expect_ok(struct test_env *env, const void *bin, size_t size)
{
	struct accel_program *prog = NULL;

	assert_int_equal(accel_program_new_binary(env->dev, bin, size, &prog),
			 0);
	accel_program_unref(prog);
}

static void test_malformed(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	uint8_t *bad;
	size_t size, i;
	void *bin;
	int fds;

	if (!have_compiler(env))
		skip();
	bin = get_binary(env, &size);
	bad = malloc(size);
	assert_non_null(bad);
	fds = test_count_fds();

	assert_int_equal(accel_program_new_binary(NULL, bin, size, &prog),
			 -EINVAL);
	expect(env, NULL, size, -EINVAL);
	expect(env, bin, 0, -EINVAL);
	assert_int_equal(accel_program_new_binary(env->dev, bin, size, NULL),
			 -EINVAL);
	/* every truncation, in the metadata and into the code */
	for (i = 1; i < size; i += i < 2048 ? 1 : 997)
		expect(env, bin, i, -EINVAL);
	/* one more byte at the end */
	memcpy(bad, bin, size);
	bad = realloc(bad, size + 1);
	assert_non_null(bad);
	bad[size] = 0;
	expect(env, bad, size + 1, -EINVAL);
	/* magic */
	memcpy(bad, bin, size);
	bad[0] ^= 1;
	expect(env, bad, size, -EINVAL);
	/* a later format, another work-group ABI: well-formed, not ours */
	memcpy(bad, bin, size);
	bad[8] += 1;
	expect(env, bad, size, -ENOEXEC);
	memcpy(bad, bin, size);
	bad[12] += 1;
	expect(env, bad, size, -ENOEXEC);
	/* the checksum covers all after the header */
	memcpy(bad, bin, size);
	bad[size / 2] ^= 0x10;
	expect(env, bad, size, -EINVAL);
	memcpy(bad, bin, size);
	bad[BODY] ^= 1;
	expect(env, bad, size, -EINVAL);
	/* random single-byte damage anywhere is refused, never loaded */
	srand(1);
	for (i = 0; i < 300; i++) {
		size_t at = (size_t)rand() % size;
		int r;

		memcpy(bad, bin, size);
		bad[at] ^= (uint8_t)(1 + rand() % 255);
		r = accel_program_new_binary(env->dev, bad, size, &prog);
		assert_true(r == -EINVAL || r == -ENOEXEC);
		assert_null(prog);
	}
	assert_int_equal(test_count_fds(), fds);
	free(bad);
	free(bin);
}

/* Code that needs a CPU feature this CPU lacks: -ENOEXEC. */
static void test_other_cpu(void **state)
{
	struct test_env *env = *state;
	uint32_t cpu_len, feat_len;
	size_t size;
	uint8_t *bin;
	char *minus;

	if (!have_compiler(env))
		skip();
	bin = get_binary(env, &size);
	cpu_len = bin[BODY] | bin[BODY + 1] << 8 | bin[BODY + 2] << 16 |
		  (uint32_t)bin[BODY + 3] << 24;
	feat_len = bin[BODY + 5 + cpu_len] | bin[BODY + 6 + cpu_len] << 8;
	/* the host's features list what it lacks as "-x": claim one */
	minus = memchr(bin + BODY + 9 + cpu_len, '-', feat_len);
	if (!minus) {
		free(bin);
		skip();
	}
	*minus = '+';
	/* a forged binary, checksum and all */
	SHA256(bin + BODY, size - BODY, bin + BODY - SHA256_DIGEST_LENGTH);
	expect(env, bin, size, -ENOEXEC);
	/* ... which loads where the feature is (proves the forgery right) */
	*minus = '-';
	SHA256(bin + BODY, size - BODY, bin + BODY - SHA256_DIGEST_LENGTH);
	expect_ok(env, bin, size);
	free(bin);
}

static void rm_flat_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_no_binary,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_malformed,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_other_cpu,
						test_env_setup,
						test_env_teardown),
	};
	char dir[] = "/tmp/accel-test-binary-XXXXXX";
	int r;

	/* a cache of our own: nothing left in the user's */
	if (!mkdtemp(dir))
		return 1;
	setenv("ACCEL_CACHE_DIR", dir, 1);
	r = TEST_RUN_GROUP("api-binary", tests);
	rm_flat_dir(dir);
	return r;
}
