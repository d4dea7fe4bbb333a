/* SPDX-License-Identifier: MIT */
/* test-image.c's SPIR-V module: an image, a sampler argument and a
 * literal sampler (clang-15 and llvm-spirv-15 make it at build time). */
constant sampler_t ps = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT |
			CLK_FILTER_LINEAR;

kernel void sp(read_only image2d_t im, global const float4 *c,
	       global float4 *o)
{
	size_t g = get_global_id(0);
	const sampler_t ks = CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

	o[2 * g] = read_imagef(im, ps, c[g].xy);
	o[2 * g + 1] = read_imagef(im, ks, c[g].xy);
}

kernel void s2(read_only image2d_t im, sampler_t s, global const float4 *c,
	       global float4 *o)
{
	size_t g = get_global_id(0);

	o[g] = read_imagef(im, s, c[g].xy);
}
