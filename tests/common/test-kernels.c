/* SPDX-License-Identifier: MIT */
/*
 * Native work-group functions for the tests (what the compiler would
 * generate, written by hand against accel-wg.h). See test-common.h for
 * what each one computes.
 */
#include <string.h>

#include "test-common.h"

/* Argument i as a pointer (buffer and local arguments). */
#define ARG_PTR(args, i, type) (*(type *const *)(args)[i])
/* Argument i as a by-value scalar. */
#define ARG_VAL(args, i, type) (*(const type *)(args)[i])

/* Global id of the group's first item in each dimension. */
static void group_base(const struct accel_wg_ctx *c, uint64_t base[3])
{
	int d;

	for (d = 0; d < 3; d++)
		base[d] = c->global_offset[d] +
			  c->group_id[d] * c->enqueued_local_size[d];
}

/* Linear index of global id @g (offset removed), x fastest. */
static uint64_t lin_index(const struct accel_wg_ctx *c, const uint64_t g[3])
{
	return (g[0] - c->global_offset[0]) +
	       c->global_size[0] * ((g[1] - c->global_offset[1]) +
				    c->global_size[1] *
					    (g[2] - c->global_offset[2]));
}

static uint64_t group_lin(const struct accel_wg_ctx *c)
{
	return c->group_id[0] +
	       c->num_groups[0] *
		       (c->group_id[1] + c->num_groups[1] * c->group_id[2]);
}

#define FOR_EACH_ITEM(c, base, g)                                              \
	for (g[2] = base[2]; g[2] < base[2] + (c)->local_size[2]; g[2]++)       \
		for (g[1] = base[1]; g[1] < base[1] + (c)->local_size[1];       \
		     g[1]++)                                                    \
			for (g[0] = base[0];                                    \
			     g[0] < base[0] + (c)->local_size[0]; g[0]++)

static void vadd_u32(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *dst = ARG_PTR(args, 0, uint32_t);
	const uint32_t *a = ARG_PTR(args, 1, uint32_t);
	const uint32_t *b = ARG_PTR(args, 2, uint32_t);
	uint64_t base[3], g[3];

	group_base(c, base);
	FOR_EACH_ITEM(c, base, g)
		dst[g[0]] = a[g[0]] + b[g[0]];
}

static void add_u32(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *buf = ARG_PTR(args, 0, uint32_t);
	uint32_t value = ARG_VAL(args, 1, uint32_t);
	uint64_t base[3], g[3];

	group_base(c, base);
	FOR_EACH_ITEM(c, base, g)
		buf[g[0]] += value;
}

static void inc_slot(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *counters = ARG_PTR(args, 0, uint32_t);
	uint32_t slot = ARG_VAL(args, 1, uint32_t);
	uint64_t base[3], g[3];

	group_base(c, base);
	FOR_EACH_ITEM(c, base, g)
		counters[slot + g[0] - c->global_offset[0]] += 1;
}

static void write_gid(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *ids = ARG_PTR(args, 0, uint32_t);
	uint32_t *hits = ARG_PTR(args, 1, uint32_t);
	uint64_t base[3], g[3];

	group_base(c, base);
	FOR_EACH_ITEM(c, base, g) {
		uint64_t i = lin_index(c, g);

		ids[3 * i + 0] = (uint32_t)g[0];
		ids[3 * i + 1] = (uint32_t)g[1];
		ids[3 * i + 2] = (uint32_t)g[2];
		hits[i] += 1;
	}
}

static void wg_geometry(void **args, const struct accel_wg_ctx *c)
{
	struct test_wg_rec *rec = ARG_PTR(args, 0, struct test_wg_rec);
	struct test_wg_rec *r = &rec[group_lin(c)];
	int d;

	r->visits++;
	r->has_barrier = c->barrier != NULL;
	r->work_dim = c->work_dim;
	r->abi_version = c->abi_version;
	for (d = 0; d < 3; d++) {
		r->group_id[d] = c->group_id[d];
		r->num_groups[d] = c->num_groups[d];
		r->local_size[d] = c->local_size[d];
		r->enqueued_local_size[d] = c->enqueued_local_size[d];
		r->global_size[d] = c->global_size[d];
		r->global_offset[d] = c->global_offset[d];
	}
}

static void local_sum(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *sums = ARG_PTR(args, 0, uint32_t);
	const uint32_t *in = ARG_PTR(args, 1, uint32_t);
	uint32_t *scratch = ARG_PTR(args, 2, uint32_t);
	uint32_t *errs = ARG_PTR(args, 3, uint32_t);
	uint32_t *stat = c->local_mem;
	uint32_t group = (uint32_t)group_lin(c), err = 0, sum = 0;
	uint64_t base[3], g[3], l, n = c->local_size[0];
	uintptr_t lm = (uintptr_t)c->local_mem;
	unsigned i;

	if (c->abi_version != ACCEL_WG_ABI_VERSION)
		err |= TEST_LERR_ABI;
	if (c->static_local_size != TEST_STATIC_LOCAL)
		err |= TEST_LERR_STATIC_SIZE;
	if (lm % 128)
		err |= TEST_LERR_LOCAL_MEM_ALIGN;
	if (!scratch) {
		errs[group] = err | TEST_LERR_SCRATCH_NULL;
		return;
	}
	if ((uintptr_t)scratch % 128)
		err |= TEST_LERR_SCRATCH_ALIGN;
	if ((uintptr_t)scratch < lm + TEST_STATIC_LOCAL)
		err |= TEST_LERR_SCRATCH_POS;

	/* Stamp the static block with our group: others must not see it. */
	for (i = 0; i < TEST_STATIC_LOCAL / sizeof(*stat); i++)
		stat[i] = group;

	group_base(c, base);
	l = 0;
	FOR_EACH_ITEM(c, base, g) {
		scratch[l] = in[lin_index(c, g)];
		l++;
	}
	for (l = 0; l < n; l++)
		sum += scratch[l];

	for (i = 0; i < TEST_STATIC_LOCAL / sizeof(*stat); i++)
		if (stat[i] != group)
			err |= TEST_LERR_STATIC_CLOBBER;
	sums[group] = sum;
	errs[group] = err;
}

static void noop(void **args, const struct accel_wg_ctx *c)
{
	(void)args;
	(void)c;
}

static void value_args(void **args, const struct accel_wg_ctx *c)
{
	uint64_t *out = ARG_PTR(args, 0, uint64_t);
	const struct test_val3 *s = args[2];
	int i;

	if (c->group_id[0] != 0)
		return;
	out[0] = ARG_VAL(args, 1, uint8_t);
	out[1] = s->a;
	out[2] = s->b;
	out[3] = s->c;
	out[4] = ARG_VAL(args, 3, uint64_t);
	for (i = 1; i <= 3; i++)
		out[4 + i] = (uintptr_t)args[i] % 16;
	out[8] = 0x600d;
}

static void local_layout(void **args, const struct accel_wg_ctx *c)
{
	uint64_t *out = ARG_PTR(args, 0, uint64_t);
	uintptr_t a = (uintptr_t)ARG_PTR(args, 1, uint8_t);
	uintptr_t b = (uintptr_t)ARG_PTR(args, 2, uint8_t);
	uintptr_t lm = (uintptr_t)c->local_mem;
	uint64_t g = group_lin(c);

	out[4 * g + 0] = a - lm;
	out[4 * g + 1] = b - lm;
	out[4 * g + 2] = lm % 128;
	out[4 * g + 3] = c->static_local_size;
	/* Touch every byte: ASan/segfault if the blocks are too small. */
	memset((void *)a, 1, 7);
	memset((void *)b, 2, 300);
}

#define ARG(k, sz, as, tq, n, t)                                               \
	{                                                                      \
		.struct_size = sizeof(struct accel_kernel_arg_desc),           \
		.kind = (k), .size = (sz), .address_space = (as),              \
		.type_qualifiers = (tq), .name = (n), .type_name = (t),        \
	}
#define GLOBAL_ARG(n, t, tq)                                                   \
	ARG(ACCEL_KERNEL_ARG_BUFFER, sizeof(void *),                           \
	    ACCEL_KERNEL_ARG_ADDR_GLOBAL, tq, n, t)
#define UINT_ARG(n) ARG(ACCEL_KERNEL_ARG_VALUE, 4, 0, 0, n, "uint")

static const struct accel_kernel_arg_desc vadd_args[] = {
	GLOBAL_ARG("c", "uint*", 0),
	GLOBAL_ARG("a", "uint*", ACCEL_KERNEL_ARG_TYPE_CONST),
	GLOBAL_ARG("b", "uint*", ACCEL_KERNEL_ARG_TYPE_CONST),
};

static const struct accel_kernel_arg_desc add_args[] = {
	GLOBAL_ARG("buf", "uint*", 0),
	UINT_ARG("value"),
};

static const struct accel_kernel_arg_desc inc_args[] = {
	GLOBAL_ARG("counters", "uint*", 0),
	UINT_ARG("slot"),
};

static const struct accel_kernel_arg_desc gid_args[] = {
	GLOBAL_ARG("ids", "uint*", 0),
	GLOBAL_ARG("hits", "uint*", 0),
};

static const struct accel_kernel_arg_desc geo_args[] = {
	GLOBAL_ARG("rec", "struct test_wg_rec*", 0),
};

static const struct accel_kernel_arg_desc lsum_args[] = {
	GLOBAL_ARG("sums", "uint*", 0),
	GLOBAL_ARG("in", "uint*", ACCEL_KERNEL_ARG_TYPE_CONST),
	ARG(ACCEL_KERNEL_ARG_LOCAL, sizeof(void *), ACCEL_KERNEL_ARG_ADDR_LOCAL,
	    0, "scratch", "uint*"),
	GLOBAL_ARG("errs", "uint*", 0),
};

static const struct accel_kernel_arg_desc noop_arg_descs[] = {
	GLOBAL_ARG("in", "float*",
		   ACCEL_KERNEL_ARG_TYPE_CONST | ACCEL_KERNEL_ARG_TYPE_RESTRICT),
	UINT_ARG("n"),
	ARG(ACCEL_KERNEL_ARG_LOCAL, sizeof(void *), ACCEL_KERNEL_ARG_ADDR_LOCAL,
	    0, "tmp", "float*"),
	ARG(ACCEL_KERNEL_ARG_BUFFER, sizeof(void *),
	    ACCEL_KERNEL_ARG_ADDR_CONSTANT, ACCEL_KERNEL_ARG_TYPE_CONST, "c",
	    "int*"),
};

static const struct accel_kernel_arg_desc value_arg_descs[] = {
	GLOBAL_ARG("out", "ulong*", 0),
	ARG(ACCEL_KERNEL_ARG_VALUE, 1, 0, 0, "c", "uchar"),
	ARG(ACCEL_KERNEL_ARG_VALUE, sizeof(struct test_val3), 0, 0, "s",
	    "struct test_val3"),
	ARG(ACCEL_KERNEL_ARG_VALUE, 8, 0, 0, "u", "ulong"),
};

static const struct accel_kernel_arg_desc layout_args[] = {
	GLOBAL_ARG("out", "ulong*", 0),
	ARG(ACCEL_KERNEL_ARG_LOCAL, sizeof(void *), ACCEL_KERNEL_ARG_ADDR_LOCAL,
	    0, "a", "uchar*"),
	ARG(ACCEL_KERNEL_ARG_LOCAL, sizeof(void *), ACCEL_KERNEL_ARG_ADDR_LOCAL,
	    0, "b", "uchar*"),
};

#define KERNEL(n, f, a, ...)                                                   \
	{                                                                      \
		.struct_size = sizeof(struct accel_native_kernel_desc),        \
		.name = (n), .fn = (f), .n_args = TEST_ARRAY_SIZE(a),          \
		.args = (a), __VA_ARGS__                                       \
	}

const struct accel_native_kernel_desc test_kernels[] = {
	KERNEL("vadd_u32", vadd_u32, vadd_args),
	KERNEL("add_u32", add_u32, add_args),
	KERNEL("inc_slot", inc_slot, inc_args),
	KERNEL("write_gid", write_gid, gid_args),
	KERNEL("wg_geometry", wg_geometry, geo_args),
	KERNEL("wg_geometry_reqd", wg_geometry, geo_args,
	       .reqd_work_group_size = { 4, 2, 1 }),
	KERNEL("local_sum", local_sum, lsum_args,
	       .static_local_size = TEST_STATIC_LOCAL),
	KERNEL("noop_args", noop, noop_arg_descs),
	{
		.struct_size = sizeof(struct accel_native_kernel_desc),
		.name = "no_args",
		.fn = noop,
	},
	KERNEL("value_args", value_args, value_arg_descs),
	KERNEL("local_layout", local_layout, layout_args,
	       .static_local_size = TEST_LAYOUT_STATIC),
};

const uint32_t test_n_kernels = TEST_ARRAY_SIZE(test_kernels);
