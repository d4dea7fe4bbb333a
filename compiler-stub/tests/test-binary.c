/* SPDX-License-Identifier: MIT */
/*
 * The program binary container without a compiler: hand-made kernel tables
 * written, parsed back field by field, and every way of being malformed
 * (each with the checksum made right, so the structure checks are what
 * refuse it).
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libaccel/accel-image.h>
#include <libaccel/accel-wg.h>

#include "binary.h"
#include "sha256.h"

/* a fake ELF object: the parser only looks at the magic */
static const char code[] = "\177ELF and then some code bytes";

static struct accelc_arg_info args[] = {
	{ ACCELC_ARG_BUFFER, ACCELC_ADDR_GLOBAL, ACCELC_ACCESS_NONE,
	  ACCELC_TYPE_CONST | ACCELC_TYPE_RESTRICT, 8, 8, "float*", "x", 0,
	  0 },
	{ ACCELC_ARG_LOCAL, ACCELC_ADDR_LOCAL, ACCELC_ACCESS_NONE, 0, 8, 8,
	  "int*", "t", 0, 0 },
	{ ACCELC_ARG_VALUE, ACCELC_ADDR_PRIVATE, ACCELC_ACCESS_NONE, 0, 16, 16,
	  "float3", "v", 0, 0 },
	{ ACCELC_ARG_IMAGE, ACCELC_ADDR_GLOBAL, ACCELC_ACCESS_READ_WRITE, 0,
	  sizeof(struct accel_wg_image), 8, "image2d_array_depth_t", "img",
	  ACCEL_IMAGE_2D_ARRAY, ACCELC_IMAGE_DEPTH },
	{ ACCELC_ARG_SAMPLER, ACCELC_ADDR_PRIVATE, ACCELC_ACCESS_NONE, 0, 8,
	  8, "sampler_t", "s", 0, 0 },
};
#define N_ARGS (sizeof(args) / sizeof(args[0]))

static struct accelc_kernel_info kernels[] = {
	{ "first", "first__wg", ACCELC_KERNEL_HAS_BARRIERS, N_ARGS, args,
	  { 8, 2, 1 }, { 0, 0, 0 }, "float4", 4096, 1u << 24, 48, 32, 32 },
	{ "second", "second__wg", ACCELC_KERNEL_STACK_UNKNOWN, 0, NULL,
	  { 0 }, { 4, 4, 1 }, NULL, 0, 160, 0, 8, 0 },
};

/* Write @p k (n of them) with the given code; caller frees. */
static uint8_t *make(struct accelc_kernel_info *k, uint32_t n,
		     const char *features, size_t *size)
{
	const struct accelc_kernel_info *kp[4];
	struct accelc_binary_in in = {
		.cpu = "znver3", .features = features,
		.options = "-cl-std=CL2.0 -DX=1", .kernels = kp,
		.n_kernels = n, .code = code, .code_size = sizeof(code),
	};
	void *out = NULL;

	for (uint32_t i = 0; i < n; i++)
		kp[i] = &k[i];
	assert_int_equal(accelc_binary_write(&in, &out, size), 0);
	return out;
}

static void resum(uint8_t *b, size_t size)
{
	assert_int_equal(accelc_sha256(b + ACCELC_BINARY_BODY_OFFSET,
				       size - ACCELC_BINARY_BODY_OFFSET,
				       b + ACCELC_BINARY_SUM_OFFSET),
			 0);
}

static int parse(const uint8_t *b, size_t size)
{
	struct accelc_binary out;
	char err[160] = "unchanged";
	int r = accelc_binary_parse(b, size, &out, err, sizeof(err));

	if (r == 0)
		accelc_binary_clear(&out);
	else
		assert_true(err[0] && strcmp(err, "unchanged"));
	return r;
}

static void test_round_trip(void **state)
{
	struct accelc_binary b;
	size_t size;
	uint8_t *bin = make(kernels, 2, "+sse2,-avx", &size);
	char err[160];

	(void)state;
	assert_int_equal(accelc_binary_parse(bin, size, &b, err, sizeof(err)),
			 0);
	assert_string_equal(b.cpu, "znver3");
	assert_string_equal(b.features, "+sse2,-avx");
	assert_string_equal(b.options, "-cl-std=CL2.0 -DX=1");
	assert_int_equal(b.n_kernels, 2);
	assert_int_equal(b.code_size, sizeof(code));
	assert_memory_equal(b.code, code, sizeof(code));
	assert_string_equal(b.kernels[0].name, "first");
	assert_string_equal(b.kernels[0].wg_symbol, "first__wg");
	assert_int_equal(b.kernels[0].flags, ACCELC_KERNEL_HAS_BARRIERS);
	assert_int_equal(b.kernels[0].reqd_work_group_size[0], 8);
	assert_int_equal(b.kernels[0].reqd_work_group_size[1], 2);
	assert_string_equal(b.kernels[0].vec_type_hint, "float4");
	assert_int_equal(b.kernels[0].static_local_size, 4096);
	assert_int_equal(b.kernels[0].private_size, 1u << 24);
	assert_int_equal(b.kernels[0].private_per_item, 48);
	assert_int_equal(b.kernels[0].reqd_sub_group_size, 32);
	assert_int_equal(b.kernels[1].private_size, 160);
	assert_int_equal(b.kernels[1].reqd_sub_group_size, 0);
	assert_int_equal(b.kernels[0].sub_group_size, 32);
	assert_int_equal(b.kernels[1].sub_group_size, 8);
	assert_int_equal(b.kernels[1].flags, ACCELC_KERNEL_STACK_UNKNOWN);
	assert_int_equal(b.kernels[0].n_args, N_ARGS);
	for (size_t i = 0; i < N_ARGS; i++) {
		const struct accelc_arg_info *a = &b.kernels[0].args[i];

		assert_int_equal(a->kind, args[i].kind);
		assert_int_equal(a->address_space, args[i].address_space);
		assert_int_equal(a->access, args[i].access);
		assert_int_equal(a->type_qualifiers, args[i].type_qualifiers);
		assert_int_equal(a->size, args[i].size);
		assert_int_equal(a->alignment, args[i].alignment);
		assert_string_equal(a->type_name, args[i].type_name);
		assert_string_equal(a->name, args[i].name);
		assert_int_equal(a->image_type, args[i].image_type);
		assert_int_equal(a->image_flags, args[i].image_flags);
	}
	assert_null(b.kernels[1].vec_type_hint);
	assert_int_equal(b.kernels[1].work_group_size_hint[1], 4);
	assert_int_equal(b.kernels[1].n_args, 0);
	accelc_binary_clear(&b);
	free(bin);
}

/* Spoil kernel table @p k (args @p a) in way number @p n; false past the
 * last way. */
static bool spoil(int n, struct accelc_kernel_info *k,
		  struct accelc_arg_info *a)
{
	switch (n) {
	case 0: a[0].kind = 0; break;
	case 1: a[0].kind = ACCELC_ARG_SAMPLER + 1; break;
	case 2: a[1].address_space = 4; break;
	case 3: a[1].access = 4; break;
	case 4: a[1].type_qualifiers = 0x10; break;
	case 5: a[2].size = 0; break;
	case 6: a[2].alignment = 12; break;
	case 7: a[2].alignment = 0; break;
	case 8: a[0].size = 16; break; /* a buffer is a pointer */
	case 9: k[0].flags = 0x80000000u; break;
	case 10: k[1].name = ""; break;
	case 11: k[1].wg_symbol = ""; break;
	case 12: k[1].name = "first"; break; /* twice */
	case 13: k[0].reqd_sub_group_size = 24; break; /* not a power of 2 */
	case 14: k[0].reqd_sub_group_size = 128; break;
	case 15: k[1].sub_group_size = 0; break;
	case 16: k[1].sub_group_size = 12; break;
	case 17: k[1].sub_group_size = 128; break;
	case 18: k[0].sub_group_size = 16; break; /* not the required 32 */
	case 19: a[3].size = 8; break; /* an image is its descriptor */
	case 20: a[3].image_type = 0x10F7; break;
	case 21: a[3].image_type = ACCEL_IMAGE_3D; break; /* no 3D depth */
	case 22: a[3].image_flags = 2; break;
	case 23: a[3].access = ACCELC_ACCESS_NONE; break;
	case 24: a[0].image_type = ACCEL_IMAGE_2D; break; /* not an image */
	case 25: a[4].image_flags = ACCELC_IMAGE_DEPTH; break;
	case 26: a[4].size = 16; break; /* a sampler is its bits */
	default: return false;
	}
	return true;
}

/* Each table with one thing wrong is refused. */
static void test_bad_values(void **state)
{
	struct accelc_kernel_info k[2];
	struct accelc_arg_info a[N_ARGS];

	(void)state;
	for (int n = 0;; n++) {
		size_t size;
		uint8_t *bin;

		memcpy(k, kernels, sizeof(k));
		memcpy(a, args, sizeof(a));
		k[0].args = a;
		if (!spoil(n, k, a))
			break;
		bin = make(k, 2, "", &size);
		assert_int_equal(parse(bin, size), -EINVAL);
		free(bin);
	}
}

static void test_truncated(void **state)
{
	size_t size;
	uint8_t *bin = make(kernels, 2, "+sse2", &size);

	(void)state;
	for (size_t i = 0; i < size; i++)
		assert_int_equal(parse(bin, i), -EINVAL);
	assert_int_equal(parse(bin, size), 0);
	free(bin);
}

static void test_structure(void **state)
{
	size_t size;
	uint8_t *good = make(kernels, 1, "", &size);
	uint8_t *b = malloc(size + 8);
	const size_t cpu = ACCELC_BINARY_BODY_OFFSET; /* str cpu name */

	(void)state;
	assert_non_null(b);
	/* version fields: well-formed, but not for us */
	memcpy(b, good, size);
	b[8]++;
	assert_int_equal(parse(b, size), -ENOEXEC);
	memcpy(b, good, size);
	b[12]++;
	assert_int_equal(parse(b, size), -ENOEXEC);
	/* magic */
	memcpy(b, good, size);
	b[3] = 'x';
	assert_int_equal(parse(b, size), -EINVAL);
	/* the checksum alone */
	memcpy(b, good, size);
	b[size - 1] ^= 1;
	assert_int_equal(parse(b, size), -EINVAL);
	/* a string without its NUL, with a NUL inside, too long */
	memcpy(b, good, size);
	b[cpu + 4 + 6] = 'x';
	resum(b, size);
	assert_int_equal(parse(b, size), -EINVAL);
	memcpy(b, good, size);
	b[cpu + 4 + 2] = '\0';
	resum(b, size);
	assert_int_equal(parse(b, size), -EINVAL);
	memcpy(b, good, size);
	b[cpu + 3] = 0xff;
	resum(b, size);
	assert_int_equal(parse(b, size), -EINVAL);
	memcpy(b, good, size);
	b[cpu] = 0xff; /* len 0xff: runs into the next fields */
	resum(b, size);
	assert_int_equal(parse(b, size), -EINVAL);
	/* trailing bytes after the code */
	memcpy(b, good, size);
	memset(b + size, 0, 8);
	resum(b, size + 8);
	assert_int_equal(parse(b, size + 8), -EINVAL);
	/* code that is not ELF */
	memcpy(b, good, size);
	b[size - sizeof(code)] = 'X';
	resum(b, size);
	assert_int_equal(parse(b, size), -EINVAL);
	/* the ones above fail for their reason, not the checksum's */
	memcpy(b, good, size);
	resum(b, size);
	assert_int_equal(parse(b, size), 0);
	free(b);
	free(good);
}

/* Counts far beyond what the bytes can hold: no huge allocation. */
static void test_counts(void **state)
{
	size_t size;
	uint8_t *b = make(kernels, 1, "", &size);
	/* kernel count: after the three strings */
	size_t off = ACCELC_BINARY_BODY_OFFSET;

	(void)state;
	for (int s = 0; s < 3; s++)
		off += 4 + (b[off] | b[off + 1] << 8) + 1;
	off += 4 + 8; /* kind, global size */
	assert_int_equal(b[off], 1);
	b[off] = 0xff;
	b[off + 3] = 0xff;
	resum(b, size);
	assert_int_equal(parse(b, size), -EINVAL);
	b[off] = 2; /* plausible, but only one is there */
	b[off + 3] = 0;
	resum(b, size);
	assert_int_equal(parse(b, size), -EINVAL);
	b[off] = 0; /* none: then the kernel bytes are not code */
	resum(b, size);
	assert_int_equal(parse(b, size), -EINVAL);
	free(b);
}

/*
 * Many kernels (more than the 4096 the writer once refused): the count is
 * bounded by the input's size, and a name twice is still found at the end
 * of a long table.
 */
static void test_many_kernels(void **state)
{
	enum { N = 5000 };
	struct accelc_kernel_info *k = calloc(N, sizeof(*k));
	const struct accelc_kernel_info **kp = calloc(N, sizeof(*kp));
	char (*names)[2][16] = calloc(N, sizeof(*names));
	struct accelc_binary_in in = {
		.cpu = "znver3", .features = "", .options = "",
		.kernels = kp, .n_kernels = N, .code = code,
		.code_size = sizeof(code),
	};
	struct accelc_binary out;
	char err[160];
	void *b = NULL;
	size_t size;

	(void)state;
	assert_non_null(k);
	assert_non_null(kp);
	assert_non_null(names);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(names[i][0], sizeof(names[i][0]), "k%u", i);
		snprintf(names[i][1], sizeof(names[i][1]), "k%u__wg", i);
		k[i].name = names[i][0];
		k[i].wg_symbol = names[i][1];
		k[i].sub_group_size = 4;
		kp[i] = &k[i];
	}
	assert_int_equal(accelc_binary_write(&in, &b, &size), 0);
	assert_int_equal(accelc_binary_parse(b, size, &out, err, sizeof(err)),
			 0);
	assert_int_equal(out.n_kernels, N);
	assert_string_equal(out.kernels[N - 1].name, names[N - 1][0]);
	accelc_binary_clear(&out);
	free(b);

	/* the last one named as the first: same length, so same layout */
	snprintf(names[N - 1][0], sizeof(names[N - 1][0]), "k%u", 1000u);
	assert_int_equal(accelc_binary_write(&in, &b, &size), 0);
	assert_int_equal(parse(b, size), -EINVAL);
	free(b);
	free(names);
	free(kp);
	free(k);
}

static void test_check_cpu(void **state)
{
	char err[160];

	(void)state;
	assert_int_equal(accelc_binary_check_cpu("", "+sse2", err,
						 sizeof(err)), 0);
	assert_int_equal(accelc_binary_check_cpu("+sse2,-avx", "+sse2,+avx",
						 err, sizeof(err)), 0);
	assert_int_equal(accelc_binary_check_cpu("+avx", "+sse2,-avx", err,
						 sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "avx"));
	/* a prefix is not the feature */
	assert_int_equal(accelc_binary_check_cpu("+avx", "+avx2", NULL, 0),
			 -ENOEXEC);
	assert_int_equal(accelc_binary_check_cpu("+avx512f", "+avx", NULL, 0),
			 -ENOEXEC);
}

/* An ELF header and two program headers: a note, then a loadable one. */
struct elf_image {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];
};

static void elf_image(struct elf_image *e, uint64_t align, uint64_t vaddr)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->eh.e_ident, ELFMAG, SELFMAG);
	e->eh.e_ident[EI_CLASS] = ELFCLASS64;
	e->eh.e_phoff = offsetof(struct elf_image, ph);
	e->eh.e_phentsize = sizeof(Elf64_Phdr);
	e->eh.e_phnum = 2;
	e->ph[0].p_type = PT_NOTE;
	e->ph[0].p_align = 4;
	e->ph[1].p_type = PT_LOAD;
	e->ph[1].p_align = align;
	e->ph[1].p_vaddr = vaddr;
	e->ph[1].p_offset = 0;
}

/* Segments aligned for another page size than this machine's. */
static void test_elf_pages(void **state)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct elf_image e;
	char err[160];

	(void)state;
	elf_image(&e, page, 2 * page);
	assert_int_equal(accelc_elf_check_pages(&e, sizeof(e), err,
						sizeof(err)), 0);
	/* 64 KiB alignment maps with any smaller page */
	elf_image(&e, 65536, 65536);
	assert_int_equal(accelc_elf_check_pages(&e, sizeof(e), err,
						sizeof(err)), 0);
	elf_image(&e, page / 2, page / 2);
	assert_int_equal(accelc_elf_check_pages(&e, sizeof(e), err,
						sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "pages"));
	/* aligned, but the address and offset differ modulo the page */
	elf_image(&e, page, page + 16);
	assert_int_equal(accelc_elf_check_pages(&e, sizeof(e), NULL, 0),
			 -ENOEXEC);
	/* program headers out of the object, or not an ELF object */
	elf_image(&e, page, 0);
	assert_int_equal(accelc_elf_check_pages(&e, sizeof(e) - 1, err,
						sizeof(err)), -EINVAL);
	e.eh.e_phoff = UINT64_MAX - 8;
	assert_int_equal(accelc_elf_check_pages(&e, sizeof(e), err,
						sizeof(err)), -EINVAL);
	elf_image(&e, page, 0);
	e.eh.e_phentsize = sizeof(Elf64_Phdr) - 1;
	assert_int_equal(accelc_elf_check_pages(&e, sizeof(e), err,
						sizeof(err)), -EINVAL);
	assert_int_equal(accelc_elf_check_pages(code, sizeof(code), err,
						sizeof(err)), -EINVAL);
	assert_int_equal(accelc_elf_check_pages(code, 3, err, sizeof(err)),
			 -EINVAL);
}

/* Objects and libraries: bitcode, no kernel table, a known kind. */
static void test_kinds(void **state)
{
	static const char bc[] = "BC\xc0\xde and some bitcode";
	struct accelc_binary_in in = {
		.cpu = "znver3", .features = "", .options = "-DX=1",
		.kind = ACCELC_KIND_OBJECT, .global_size = 12,
		.code = bc, .code_size = sizeof(bc),
	};
	const struct accelc_kernel_info *kp[1] = { &kernels[1] };
	struct accelc_binary b;
	void *out = NULL;
	size_t size;
	uint8_t *w;

	(void)state;
	assert_int_equal(accelc_binary_write(&in, &out, &size), 0);
	assert_int_equal(accelc_binary_parse(out, size, &b, NULL, 0), 0);
	assert_int_equal(b.kind, ACCELC_KIND_OBJECT);
	assert_int_equal(b.global_size, 12);
	assert_int_equal(b.n_kernels, 0);
	assert_memory_equal(b.code, bc, sizeof(bc));
	accelc_binary_clear(&b);
	/* the kind decides what the code must be */
	w = out;
	w[size - sizeof(bc)] = 'X';
	resum(w, size);
	assert_int_equal(parse(w, size), -EINVAL);
	free(out);
	/* an unknown kind; a kernel table in an object */
	in.kind = ACCELC_KIND_LIBRARY;
	assert_int_equal(accelc_binary_write(&in, &out, &size), 0);
	w = out;
	for (size_t off = ACCELC_BINARY_BODY_OFFSET, s = 0; s < 3; s++) {
		off += 4 + (w[off] | w[off + 1] << 8) + 1;
		if (s == 2) {
			assert_int_equal(w[off], ACCELC_KIND_LIBRARY);
			w[off] = 3;
		}
	}
	resum(w, size);
	assert_int_equal(parse(w, size), -EINVAL);
	free(out);
	in.kernels = kp;
	in.n_kernels = 1;
	assert_int_equal(accelc_binary_write(&in, &out, &size), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_many_kernels),
		cmocka_unit_test(test_check_cpu),
		cmocka_unit_test(test_elf_pages),
		cmocka_unit_test(test_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
