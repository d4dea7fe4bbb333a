/* SPDX-License-Identifier: MIT */
/* Kernels the SPIR-V tests build with clang-15 and llvm-spirv-15
 * (tests/compiler/test-spirv.c checks them against a host reference). */

/* global, constant pointers, vectors, a float by value */
kernel void vec(global const float4 *a, constant float *c,
		global float4 *out, float s)
{
	size_t i = get_global_id(0);

	out[i] = a[i] * s + c[i % 4];
}

/* __local memory and barriers: a tree sum per work-group */
kernel void lsum(global const int *in, global int *out, local int *tmp)
{
	size_t l = get_local_id(0), n = get_local_size(0);

	tmp[l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = n / 2; s > 0; s /= 2) {
		if (l < s)
			tmp[l] += tmp[l + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		out[get_group_id(0)] = tmp[0];
}

/* math builtins, scalar and vector */
kernel void math(global const float *x, global float *y)
{
	size_t i = get_global_id(0);
	float2 v = (float2)(x[i], x[i] * 0.5f);

	y[i] = sqrt(fabs(x[i])) + sin(x[i]) + dot(exp(v), (float2)(1.0f, 2.0f));
}

/* arguments by value of every integer width, and half bits in memory */
kernel void args(global long *out, char c, short s, int i, long l,
		 uchar uc, double d, global const half *h)
{
	out[0] = c;
	out[1] = s;
	out[2] = i;
	out[3] = l;
	out[4] = uc;
	out[5] = (long)(d * 4.0);
	out[6] = (long)(vload_half(1, h) * 8.0f);
	atomic_add((volatile global int *)&out[7], i);
}
