/* SPDX-License-Identifier: MIT */
/*
 * Sub-groups in SPIR-V (test-spirv.c): the uniform functions (Groups),
 * the non-uniform ones (GroupNonUniform*), cl_intel_subgroups
 * (SubgroupShuffleINTEL, SubgroupBufferBlockIOINTEL) and
 * intel_reqd_sub_group_size (the SubgroupSize execution mode). Built by
 * clang-15 with the compiler's program-prelude.h for the Intel
 * declarations, which clang's builtin table lacks.
 */
#define BODY                                                                   \
	size_t g = get_global_id(0), n = get_global_size(0);                   \
	uint lane = get_sub_group_local_id();                                  \
	int v = x[g];                                                          \
	r[g] = sub_group_reduce_add(v);                                        \
	r[n + g] = (v & 1) ? sub_group_non_uniform_reduce_max(v) : -1;         \
	r[2 * n + g] = (int)sub_group_ballot_bit_count(sub_group_ballot(v > 3)); \
	r[3 * n + g] = sub_group_shuffle(v, 0u);                               \
	r[4 * n + g] = intel_sub_group_shuffle_down(v, v + 100, 1u);           \
	r[5 * n + g] = (int)get_sub_group_size();                              \
	r[6 * n + g] = (int)intel_sub_group_block_read(                       \
		(global const uint *)x + (g - lane));

__attribute__((intel_reqd_sub_group_size(8)))
kernel void sg8(global const int *x, global int *r)
{
	BODY
}

kernel void sg(global const int *x, global int *r)
{
	BODY
}
