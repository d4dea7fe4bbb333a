/* SPDX-License-Identifier: MIT */
/* The program binary container (format in binary.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libaccel/accel-image.h>
#include <libaccel/accel-wg.h>

#include "binary.h"
#include "feature-list.h"
#include "sha256.h"

/* Kernel flags a container may carry. */
#define KERNEL_FLAGS                                                           \
	(ACCELC_KERNEL_HAS_BARRIERS | ACCELC_KERNEL_USES_PRINTF |              \
	 ACCELC_KERNEL_GROUP_INVARIANT | ACCELC_KERNEL_DENORMS_ZERO |          \
	 ACCELC_KERNEL_STACK_UNKNOWN | ACCELC_KERNEL_FIBERS |                  \
	 ACCELC_KERNEL_STREAMING_LATER)

/* ---- writing: one pass to size, one to fill ------------------------------ */

struct wcur {
	uint8_t *p; /* NULL while sizing */
	size_t off;
};

static void put(struct wcur *w, const void *src, size_t n)
{
	if (w->p && n)
		memcpy(w->p + w->off, src, n);
	w->off += n;
}

static void put_u32(struct wcur *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 24) };

	put(w, b, sizeof(b));
}

static void put_u64(struct wcur *w, uint64_t v)
{
	put_u32(w, (uint32_t)v);
	put_u32(w, (uint32_t)(v >> 32));
}

static void put_str(struct wcur *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put_u32(w, (uint32_t)n);
	put(w, s ? s : "", n + 1);
}

static void put_all(struct wcur *w, const struct accelc_binary_in *in)
{
	put(w, ACCELC_BINARY_MAGIC, 8);
	put_u32(w, ACCELC_BINARY_FORMAT);
	put_u32(w, ACCEL_WG_ABI_VERSION);
	w->off += ACCELC_SHA256_SIZE; /* the checksum, filled in last */
	put_str(w, in->cpu);
	put_str(w, in->features);
	put_str(w, in->options);
	put_u32(w, in->kind);
	put_u64(w, in->global_size);
	put_u32(w, in->n_kernels);
	for (uint32_t i = 0; i < in->n_kernels; i++) {
		const struct accelc_kernel_info *k = in->kernels[i];

		put_str(w, k->name);
		put_str(w, k->wg_symbol);
		put_u32(w, k->flags);
		for (int d = 0; d < 3; d++)
			put_u64(w, k->reqd_work_group_size[d]);
		for (int d = 0; d < 3; d++)
			put_u64(w, k->work_group_size_hint[d]);
		put_str(w, k->vec_type_hint);
		put_u64(w, k->static_local_size);
		put_u64(w, k->private_size);
		put_u64(w, k->private_per_item);
		put_u32(w, k->reqd_sub_group_size);
		put_u32(w, k->sub_group_size);
		put_u32(w, k->n_args);
		for (uint32_t a = 0; a < k->n_args; a++) {
			const struct accelc_arg_info *ai = &k->args[a];

			put_u32(w, ai->kind);
			put_u32(w, ai->address_space);
			put_u32(w, ai->access);
			put_u32(w, ai->type_qualifiers);
			put_u32(w, ai->size);
			put_u32(w, ai->alignment);
			put_str(w, ai->type_name);
			put_str(w, ai->name);
			put_u32(w, ai->image_type);
			put_u32(w, ai->image_flags);
		}
	}
	put_u64(w, in->code_size);
	put(w, in->code, in->code_size);
}

int accelc_binary_write(const struct accelc_binary_in *in, void **ret,
			size_t *ret_size)
{
	struct wcur w = { 0 };

	if (!in || !ret || !ret_size || !in->code || !in->code_size ||
	    (in->n_kernels && !in->kernels) ||
	    in->kind > ACCELC_KIND_LIBRARY ||
	    (in->kind != ACCELC_KIND_EXECUTABLE && in->n_kernels))
		return -EINVAL;
	for (uint32_t i = 0; i < in->n_kernels; i++)
		if (!in->kernels[i]->name || !in->kernels[i]->wg_symbol ||
		    in->kernels[i]->n_args > ACCELC_BINARY_MAX_ARGS)
			return -EINVAL;
	put_all(&w, in);
	w.p = malloc(w.off);
	if (!w.p)
		return -ENOMEM;
	w.off = 0;
	put_all(&w, in);
	if (accelc_sha256(w.p + ACCELC_BINARY_BODY_OFFSET,
			  w.off - ACCELC_BINARY_BODY_OFFSET,
			  w.p + ACCELC_BINARY_SUM_OFFSET)) {
		free(w.p);
		return -ENOMEM;
	}
	*ret = w.p;
	*ret_size = w.off;
	return 0;
}

/* ---- parsing ------------------------------------------------------------- */

struct rcur {
	const uint8_t *p;
	size_t left;
	int err; /* first error, sticky */
	char *msg;
	size_t msg_size;
};

__attribute__((format(printf, 3, 4))) static void fail(struct rcur *c, int err,
						       const char *fmt, ...)
{
	va_list ap;

	if (c->err)
		return;
	c->err = err;
	c->left = 0;
	if (!c->msg || !c->msg_size)
		return;
	va_start(ap, fmt);
	vsnprintf(c->msg, c->msg_size, fmt, ap);
	va_end(ap);
}

static const uint8_t *take(struct rcur *c, size_t n, const char *what)
{
	const uint8_t *p = c->p;

	if (c->err)
		return NULL;
	if (n > c->left) {
		fail(c, -EINVAL, "truncated %s", what);
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return p;
}

static uint32_t get_u32(struct rcur *c, const char *what)
{
	const uint8_t *b = take(c, 4, what);

	if (!b)
		return 0;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static uint64_t get_u64(struct rcur *c, const char *what)
{
	uint64_t lo = get_u32(c, what);

	return lo | (uint64_t)get_u32(c, what) << 32;
}

/* A str field, copied; NULL (with c->err set) on any problem. */
static char *get_str(struct rcur *c, const char *what)
{
	uint32_t n = get_u32(c, what);
	const uint8_t *s;
	char *out;

	/* n + 1 cannot wrap in size_t; take() bounds it by what is left */
	s = take(c, (size_t)n + 1, what);
	if (!s)
		return NULL;
	if (s[n] != '\0' || memchr(s, '\0', n)) {
		fail(c, -EINVAL, "%s: bad string", what);
		return NULL;
	}
	out = malloc((size_t)n + 1);
	if (!out) {
		fail(c, -ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(out, s, (size_t)n + 1);
	return out;
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* An image argument: a known type, depth only for 2D and 2D arrays. */
static bool image_arg_ok(const struct accelc_arg_info *a)
{
	if (a->size != sizeof(struct accel_wg_image) || a->alignment != 8 ||
	    !a->access || (a->image_flags & ~ACCELC_IMAGE_DEPTH))
		return false;
	switch (a->image_type) {
	case ACCEL_IMAGE_2D:
	case ACCEL_IMAGE_2D_ARRAY:
		return true;
	case ACCEL_IMAGE_1D:
	case ACCEL_IMAGE_1D_ARRAY:
	case ACCEL_IMAGE_1D_BUFFER:
	case ACCEL_IMAGE_3D:
		return !(a->image_flags & ACCELC_IMAGE_DEPTH);
	default:
		return false;
	}
}

static void parse_arg(struct rcur *c, struct accelc_arg_info *a)
{
	a->kind = get_u32(c, "argument");
	a->address_space = get_u32(c, "argument");
	a->access = get_u32(c, "argument");
	a->type_qualifiers = get_u32(c, "argument");
	a->size = get_u32(c, "argument");
	a->alignment = get_u32(c, "argument");
	a->type_name = get_str(c, "argument type name");
	a->name = get_str(c, "argument name");
	a->image_type = get_u32(c, "argument");
	a->image_flags = get_u32(c, "argument");
	if (c->err)
		return;
	if (a->kind < ACCELC_ARG_BUFFER || a->kind > ACCELC_ARG_SAMPLER ||
	    a->address_space > ACCELC_ADDR_LOCAL ||
	    a->access > ACCELC_ACCESS_READ_WRITE ||
	    (a->type_qualifiers & ~0xfu) || !a->size ||
	    !pow2(a->alignment) ||
	    (a->kind != ACCELC_ARG_VALUE && a->kind != ACCELC_ARG_IMAGE &&
	     a->size != sizeof(void *)) ||
	    (a->kind == ACCELC_ARG_IMAGE ?
	     !image_arg_ok(a) : a->image_type || a->image_flags))
		fail(c, -EINVAL, "argument '%s': bad description", a->name);
}

/* Smallest encoding of a kernel and of an argument: bounds counts early,
 * so that a forged count cannot make us allocate much. */
#define KERNEL_MIN_BYTES (3 * 5 + 2 + 4 + 6 * 8 + 3 * 8 + 3 * 4)
#define ARG_MIN_BYTES (8 * 4 + 2 * 5)

static void parse_kernel(struct rcur *c, struct accelc_kernel_info *k)
{
	struct accelc_arg_info *args;
	uint32_t n;

	k->name = get_str(c, "kernel name");
	k->wg_symbol = get_str(c, "kernel symbol");
	k->flags = get_u32(c, "kernel flags");
	for (int d = 0; d < 3; d++)
		k->reqd_work_group_size[d] = get_u64(c, "kernel");
	for (int d = 0; d < 3; d++)
		k->work_group_size_hint[d] = get_u64(c, "kernel");
	k->vec_type_hint = get_str(c, "vec_type_hint");
	k->static_local_size = get_u64(c, "kernel");
	k->private_size = get_u64(c, "kernel");
	k->private_per_item = get_u64(c, "kernel");
	k->reqd_sub_group_size = get_u32(c, "kernel");
	k->sub_group_size = get_u32(c, "kernel");
	n = get_u32(c, "argument count");
	if (c->err)
		return;
	if (!*k->name || !*k->wg_symbol ||
	    (k->flags & ~KERNEL_FLAGS) ||
	    k->reqd_sub_group_size > ACCELC_MAX_SUB_GROUP_SIZE ||
	    (k->reqd_sub_group_size & (k->reqd_sub_group_size - 1)) ||
	    !k->sub_group_size ||
	    k->sub_group_size > ACCELC_MAX_SUB_GROUP_SIZE ||
	    (k->sub_group_size & (k->sub_group_size - 1)) ||
	    (k->reqd_sub_group_size &&
	     k->sub_group_size != k->reqd_sub_group_size)) {
		fail(c, -EINVAL, "kernel '%s': bad description", k->name);
		return;
	}
	if (!*k->vec_type_hint) {
		free((char *)k->vec_type_hint);
		k->vec_type_hint = NULL;
	}
	if (n > ACCELC_BINARY_MAX_ARGS || n > c->left / ARG_MIN_BYTES) {
		fail(c, -EINVAL, "kernel '%s': bad argument count %u", k->name,
		     n);
		return;
	}
	args = calloc(n ? n : 1, sizeof(*args));
	if (!args) {
		fail(c, -ENOMEM, "out of memory");
		return;
	}
	k->args = args;
	for (uint32_t a = 0; a < n && !c->err; a++) {
		k->n_args = a + 1; /* what accelc_binary_free_kernels frees */
		parse_arg(c, &args[a]);
	}
}

static void parse_header(struct rcur *c, struct accelc_binary *b)
{
	const uint8_t *magic = take(c, 8, "header"), *sum;
	uint8_t have[ACCELC_SHA256_SIZE];
	uint32_t format, abi;

	if (!magic)
		return;
	if (memcmp(magic, ACCELC_BINARY_MAGIC, 8)) {
		fail(c, -EINVAL, "not a libaccel program binary");
		return;
	}
	format = get_u32(c, "header");
	abi = get_u32(c, "header");
	sum = take(c, ACCELC_SHA256_SIZE, "header");
	if (c->err)
		return;
	if (format != ACCELC_BINARY_FORMAT) {
		fail(c, -ENOEXEC, "binary format %u, this library reads %u",
		     format, ACCELC_BINARY_FORMAT);
		return;
	}
	if (abi != ACCEL_WG_ABI_VERSION) {
		fail(c, -ENOEXEC, "work-group ABI %u, this library runs %u",
		     abi, ACCEL_WG_ABI_VERSION);
		return;
	}
	if (accelc_sha256(c->p, c->left, have)) {
		fail(c, -ENOMEM, "out of memory");
		return;
	}
	if (memcmp(have, sum, sizeof(have))) {
		fail(c, -EINVAL, "checksum mismatch: damaged binary");
		return;
	}
	b->cpu = get_str(c, "cpu name");
	b->features = get_str(c, "cpu features");
	b->options = get_str(c, "build options");
	b->kind = get_u32(c, "kind");
	b->global_size = get_u64(c, "global size");
	if (!c->err && b->kind > ACCELC_KIND_LIBRARY)
		fail(c, -EINVAL, "unknown kind %u", b->kind);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* No name twice: sorted, so that many kernels cost n log n, not n^2. */
static void check_unique(struct rcur *c, const struct accelc_binary *b)
{
	const char **names;

	if (b->n_kernels < 2)
		return;
	names = calloc(b->n_kernels, sizeof(*names));
	if (!names) {
		fail(c, -ENOMEM, "out of memory");
		return;
	}
	for (uint32_t i = 0; i < b->n_kernels; i++)
		names[i] = b->kernels[i].name;
	qsort(names, b->n_kernels, sizeof(*names), cmp_name);
	for (uint32_t i = 1; i < b->n_kernels; i++)
		if (!strcmp(names[i - 1], names[i])) {
			fail(c, -EINVAL, "kernel '%s' twice", names[i]);
			break;
		}
	free(names);
}

static void parse_kernels(struct rcur *c, struct accelc_binary *b)
{
	uint32_t n = get_u32(c, "kernel count");

	if (c->err)
		return;
	/* bounded by the input's size: each kernel takes some bytes */
	if (n > c->left / KERNEL_MIN_BYTES ||
	    (n && b->kind != ACCELC_KIND_EXECUTABLE)) {
		fail(c, -EINVAL, "bad kernel count %u", n);
		return;
	}
	b->kernels = calloc(n ? n : 1, sizeof(*b->kernels));
	if (!b->kernels) {
		fail(c, -ENOMEM, "out of memory");
		return;
	}
	for (uint32_t i = 0; i < n && !c->err; i++) {
		b->n_kernels = i + 1;
		parse_kernel(c, &b->kernels[i]);
	}
	if (!c->err)
		check_unique(c, b);
}

int accelc_binary_parse(const void *data, size_t size,
			struct accelc_binary *ret, char *err, size_t err_size)
{
	struct rcur c = { .p = data, .left = size, .msg = err,
			  .msg_size = err_size };
	struct accelc_binary b = { 0 };
	uint64_t code_size;

	if (err && err_size)
		err[0] = '\0';
	if (!data || !ret)
		return -EINVAL;
	parse_header(&c, &b);
	parse_kernels(&c, &b);
	code_size = get_u64(&c, "code size");
	if (!c.err && code_size != c.left)
		fail(&c, -EINVAL, "code size %llu, %zu bytes left",
		     (unsigned long long)code_size, c.left);
	if (!c.err && b.kind == ACCELC_KIND_EXECUTABLE &&
	    (code_size < 4 || memcmp(c.p, "\177ELF", 4)))
		fail(&c, -EINVAL, "the code is not an ELF object");
	/* bitcode: LLVM's raw magic (no wrapper: we wrote it) */
	if (!c.err && b.kind != ACCELC_KIND_EXECUTABLE &&
	    (code_size < 4 || memcmp(c.p, "BC\xc0\xde", 4)))
		fail(&c, -EINVAL, "the code is not LLVM bitcode");
	if (c.err) {
		accelc_binary_clear(&b);
		return c.err;
	}
	b.code = c.p;
	b.code_size = (size_t)code_size;
	*ret = b;
	return 0;
}

void accelc_binary_free_kernels(struct accelc_kernel_info *k, uint32_t n)
{
	for (uint32_t i = 0; k && i < n; i++) {
		for (uint32_t a = 0; k[i].args && a < k[i].n_args; a++) {
			free((char *)k[i].args[a].type_name);
			free((char *)k[i].args[a].name);
		}
		free((void *)k[i].args);
		free((char *)k[i].name);
		free((char *)k[i].wg_symbol);
		free((char *)k[i].vec_type_hint);
	}
	free(k);
}

void accelc_binary_clear(struct accelc_binary *b)
{
	accelc_binary_free_kernels(b->kernels, b->n_kernels);
	free(b->cpu);
	free(b->features);
	free(b->options);
	memset(b, 0, sizeof(*b));
}

int accelc_binary_check_cpu(const char *features, const char *host_features,
			    char *err, size_t err_size)
{
	for (const char *p = features; p && *p;) {
		const char *end = strchrnul(p, ',');
		size_t n = (size_t)(end - p);

		if (n > 1 && *p == '+' &&
		    !accelc_feature_listed(host_features, p + 1, n - 1)) {
			if (err && err_size)
				snprintf(err, err_size,
					 "the code needs CPU feature '%.*s', "
					 "which this CPU lacks", (int)(n - 1),
					 p + 1);
			return -ENOEXEC;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}
