/* SPDX-License-Identifier: MIT */
/*
 * fuzz-accel's launches, programs and kernels: the kernel source built
 * once, launches (checked against accel_kernel_check_launch's verdict),
 * programs from its binary (intact, truncated or corrupted), built-in
 * names or native kernel descriptions, kernels, clones and arguments.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libaccel/accel-wg.h>

#include "fuzz-accel.h"

/* built once by LLVMFuzzerInitialize (fuzz-accel.c): inputs use its binary */
const char fac_kernel_source[] =
	"kernel void k_fill(global uint *o, uint v)\n"
	"{ if (o) o[get_global_id(0) % 16] = v; }\n"
	"kernel void k_local(global int *o, local int *t)\n"
	"{\n"
	"	t[get_local_id(0) % 16] = 1;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	if (o) o[get_global_id(0) % 16] = t[0];\n"
	"}\n";

static const char *const kernel_names[] = {
	"k_fill", "k_local", "native", "", "k_fillx",
};

static void native_wg(void **args, const struct accel_wg_ctx *ctx)
{
	(void)args;
	(void)ctx;
}

void fac_op_launch(struct run *r)
{
	struct accel_queue *q = r->q[fz_pick(&r->in, N_QUEUE)];
	struct accel_kernel *k = r->kern[fz_pick(&r->in, N_KERN)];
	uint8_t sel = fz_u8(&r->in);
	struct accel_ndrange nd = {
		.struct_size = sizeof(nd),
		.work_dim = (sel & 0x80) ? fz_u32(&r->in) : 1 + sel % 4,
	};
	struct accel_fence *list[4], *f;
	struct accel_fence *const *wait;
	uint32_t n, i;
	unsigned __int128 items = 1, group = 1;
	bool overflow = false;
	struct fence_slot *out;
	struct accel_launch_check check;
	int err, cr;

	if (sel & 0x40)
		nd.struct_size = fz_u32(&r->in);
	for (i = 0; i < 3; i++) {
		nd.global_offset[i] = fz_size(&r->in);
		nd.global_size[i] = fz_size(&r->in);
		nd.local_size[i] = (sel & 8) ? 0 : fz_size(&r->in);
	}
	n = fac_pick_wait(r, list, &wait);
	out = fac_pick_fence_out(r, &f);
	for (i = 0; i < 3 && i < nd.work_dim; i++) {
		if (nd.global_offset[i] + nd.global_size[i] <
		    nd.global_offset[i])
			overflow = true;
		items *= nd.global_size[i];
		group *= nd.local_size[i];
	}
	/* as in fuzz-cl: what may run stays tiny, what must fail is huge */
	if (!overflow && items > 512)
		for (i = 0; i < 3; i++)
			nd.global_size[i] = nd.global_size[i] % 8 + 1;
	if (!overflow && (sel & 0x20) && group <= fac_g.max_wg)
		for (i = 0; i < 3; i++)
			nd.local_size[i] = nd.local_size[i] % 8 + 1;
	check.struct_size = sizeof(check);
	cr = fac_chk(accel_kernel_check_launch(k, (sel & 0x10) ? NULL : &nd,
					       &check));
	err = accel_queue_launch(q, k, (sel & 0x10) ? NULL : &nd, n, wait,
				 out ? &f : NULL);
	if (!err && overflow)
		fac_die("launch with offset + size overflowing", 0);
	/* the verdict holds: a refusal is one, and no other one comes */
	if (cr == 0 && check.error && !err)
		fac_die("launch made that the check refused", check.error);
	if (cr == 0 && !check.error &&
	    (err == -ENOEXEC || err == -EACCES || err == -EOVERFLOW))
		fac_die("launch refused that the check let through", err);
	fac_take_fence(out, err, f);
}

void fac_op_program(struct run *r)
{
	struct accel_program **s = &r->prog[fz_pick(&r->in, N_PROG)];
	uint8_t sel = fz_u8(&r->in);
	struct accel_program *p = UNTOUCHED;
	int err;

	switch (sel % 4) {
	case 0: {
		uint8_t *bin = malloc(fac_g.binary_size);
		size_t size = fac_g.binary_size;
		uint32_t at = fz_u32(&r->in);

		if (!bin)
			abort();
		memcpy(bin, fac_g.binary, size);
		if (sel & 4)
			size = at % size;
		if (sel & 8)
			bin[at % fac_g.binary_size] ^= fz_u8(&r->in) | 1;
		err = accel_program_new_binary(fac_g.dev, bin, size, &p);
		free(bin);
		break;
	}
	case 1: {
		char names[32];

		fz_bytes(&r->in, names, sizeof(names) - 1);
		names[sizeof(names) - 1] = 0;
		err = accel_program_new_built_in(fac_g.dev, names, &p);
		break;
	}
	case 2: {
		struct accel_kernel_arg_desc args[3];
		struct accel_native_kernel_desc d = {
			.struct_size = sizeof(d), .name = "native",
			.fn = native_wg, .n_args = fz_u8(&r->in) % 4,
			.args = args,
		};
		struct accel_native_kernel_desc two[2];
		uint32_t i;

		for (i = 0; i < 3; i++) {
			args[i] = (struct accel_kernel_arg_desc){
				.struct_size = sizeof(args[i]),
				.kind = fz_u8(&r->in) % 4,
				.size = (uint32_t)fz_size(&r->in),
				.address_space = fz_u8(&r->in) % 5,
				.name = "a", .type_name = "int",
			};
		}
		if (d.n_args == 3)
			d.n_args = fz_u32(&r->in);
		if (d.n_args > 3)
			d.args = NULL; /* a count, no descriptions: refused */
		if (sel & 4)
			d.struct_size = fz_u32(&r->in) % (sizeof(d) + 16);
		if (sel & 8)
			d.flags = fz_u32(&r->in);
		if (sel & 16)
			d.static_local_size = fz_size(&r->in);
		if (sel & 32)
			for (i = 0; i < 3; i++)
				d.reqd_work_group_size[i] = fz_size(&r->in);
		/* a second kernel: the same name (refused) or another */
		two[0] = d;
		two[1] = d;
		two[1].name = (sel & 64) ? "native" : "native2";
		err = accel_program_new_native(fac_g.dev, two, 1 + (sel >> 7),
					       &p);
		break;
	}
	default:
		p = accel_program_ref(fac_g.built);
		err = 0;
		break;
	}
	fac_chk(err);
	if (err) {
		if (p != UNTOUCHED)
			fac_die("program out-parameter set on failure", err);
		return;
	}
	accel_program_unref(*s);
	*s = p;
}

void fac_op_kernel(struct run *r)
{
	struct accel_kernel **s = &r->kern[fz_pick(&r->in, N_KERN)];
	struct accel_program *p = r->prog[fz_pick(&r->in, N_PROG)];
	uint8_t sel = fz_u8(&r->in);
	uint32_t idx = (sel & 0x80) ? fz_u32(&r->in) : (sel >> 4) & 3;
	struct accel_kernel *k = UNTOUCHED;
	struct buf_slot *b;
	uint64_t size;
	int err;

	switch (sel & 7) {
	case 0:
		err = fac_chk(accel_kernel_new(p, kernel_names[(sel >> 3) %
				ARRAY_SIZE(kernel_names)], &k));
		break;
	case 1:
		err = fac_chk(accel_kernel_clone(*s, &k));
		break;
	case 2:
		b = &r->buf[fz_pick(&r->in, N_BUF)];
		if (b->b && b->size < KERNEL_MIN_BUFFER)
			return; /* the kernels would index past its end */
		fac_chk(accel_kernel_set_arg_buffer(*s, idx, b->b));
		return;
	case 3:
		size = (sel & 8) ? fz_size(&r->in) : fz_u8(&r->in) % 12;
		if (size > sizeof(fac_value_buf))
			return;
		fz_bytes(&r->in, fac_value_buf, size);
		fac_chk(accel_kernel_set_arg_value(*s, idx, size,
						   fac_value_buf));
		return;
	case 4:
		size = fz_size(&r->in);
		if (size && size < KERNEL_MIN_BUFFER)
			size = KERNEL_MIN_BUFFER;
		if (size > 4096 && size <= fac_g.local_mem)
			size = 4096;
		fac_chk(accel_kernel_set_arg_local(*s, idx, size));
		return;
	case 5: {
		struct accel_kernel_arg_desc d;
		uint64_t sl, reqd[3];
		uint32_t fl;

		memset(&d, 0, sizeof(d));
		d.struct_size = (sel & 8) ? fz_u32(&r->in) : sizeof(d);
		fac_chk(accel_kernel_get_arg_desc(*s, idx, &d));
		fac_chk(accel_kernel_get_wg_info(*s, &sl, reqd, &fl));
		if (accel_kernel_get_arg_count(*s) < -4095)
			fac_die("accel_kernel_get_arg_count", 0);
		return;
	}
	default:
		accel_kernel_unref(*s);
		*s = NULL;
		return;
	}
	if (err) {
		if (k != UNTOUCHED)
			fac_die("kernel out-parameter set on failure", err);
		return;
	}
	accel_kernel_unref(*s);
	*s = k;
}
