/* SPDX-License-Identifier: MIT */
/* vload_half, vloada_half, vstore_half and vstorea_half with their
 * rounding modes (6.15.11.7-8) for every address space: built twice, see
 * FOR_PTR_AS. Without cl_khr_fp16 a half cannot be loaded as such, so the
 * conversions work on the bits; stores round once from float or double
 * (float widens to double exactly). */
#include "builtins.h"

/* rounding modes */
#define RM__rte 0
#define RM__rtz 1
#define RM__rtp 2
#define RM__rtn 3
#define RM_ RM__rte

static float h2f(ushort h)
{
	uint s = (uint)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	/* zero or subnormal (exact in float), infinity or NaN, normal */
	uint sub = as_uint((float)m * 0x1p-24f);
	uint inf = 0x7f800000u | (m << 13);
	uint nrm = ((e + 112) << 23) | (m << 13);
	/* masks, not branches: a switch on e would keep the work-item loop
	 * from vectorising (LLVM 16's loop vectoriser refuses switches) */
	uint z = 0u - (uint)(e == 0), n = 0u - (uint)(e == 31);

	return as_float(s | (sub & z) | (inf & n) | (nrm & ~(z | n)));
}

static ushort d2h(double x, int rm)
{
	ulong b = as_ulong(x);
	ushort s = (ushort)((b >> 48) & 0x8000);
	int e = (int)((b >> 52) & 0x7ff) - 1023;
	ulong m = b & 0xfffffffffffffUL;
	uint shift, r, h;
	ulong rem, hu;
	bool up;

	if (e == 1024) /* NaN stays quiet NaN, infinity stays */
		return s | (m ? 0x7e00 | (ushort)(m >> 42) : 0x7c00);
	if (e > 15) { /* beyond the largest finite half */
		bool inf = rm == RM__rte || (rm == RM__rtp && !s) ||
			   (rm == RM__rtn && s);
		return s | (inf ? 0x7c00 : 0x7bff);
	}
	if (e > -1023)
		m |= 1UL << 52;
	/* bits below half's precision: 42 for normals, more below 2^-14 */
	shift = 42 + (e < -14 ? (uint)(-14 - e) : 0);
	if (shift > 54)
		shift = 54; /* everything below half an ulp of 2^-24 */
	r = (uint)(m >> shift);
	rem = m & ((1UL << shift) - 1);
	hu = 1UL << (shift - 1);
	/* normals: r carries the implicit bit, which adds one to the
	 * exponent field; rounding up carries into it naturally */
	h = e >= -14 ? ((uint)(e + 14) << 10) + r : r;
	switch (rm) {
	case RM__rtz:
		up = false;
		break;
	case RM__rtp:
		up = !s && rem;
		break;
	case RM__rtn:
		up = s && rem;
		break;
	default:
		up = rem > hu || (rem == hu && (h & 1));
		break;
	}
	return s | (ushort)(h + up);
}

/* unaligned vector types for vload_halfN */
typedef ushort2 __attribute__((aligned(2))) u_ushort2;
typedef ushort4 __attribute__((aligned(2))) u_ushort4;
typedef ushort8 __attribute__((aligned(2))) u_ushort8;
typedef ushort16 __attribute__((aligned(2))) u_ushort16;

static float2 OVL h2fv(ushort2 h) { return (float2)(h2f(h.s0), h2f(h.s1)); }
static float4 OVL h2fv(ushort4 h) { return (float4)(h2fv(h.lo), h2fv(h.hi)); }
static float8 OVL h2fv(ushort8 h) { return (float8)(h2fv(h.lo), h2fv(h.hi)); }
static float16 OVL h2fv(ushort16 h)
{
	return (float16)(h2fv(h.lo), h2fv(h.hi));
}

/* loads: P is the element step between vectors (4 for vloada_half3) */
#define LOAD(AS, PFX, N, P)                                                    \
	float##N OVL PFX##N(size_t off, const AS half *p)                      \
	{                                                                      \
		const AS ushort *q = (const AS ushort *)p + off * P;           \
		return h2fv(*(const AS u_ushort##N *)q);                       \
	}
#define LOAD3(AS, PFX, P)                                                      \
	float3 OVL PFX##3(size_t off, const AS half *p)                        \
	{                                                                      \
		const AS ushort *q = (const AS ushort *)p + off * P;           \
		return (float3)(h2f(q[0]), h2f(q[1]), h2f(q[2]));              \
	}
#define LOADS(AS, _)                                                           \
	float OVL vload_half(size_t off, const AS half *p)                     \
	{                                                                      \
		return h2f(((const AS ushort *)p)[off]);                       \
	}                                                                      \
	LOAD(AS, vload_half, 2, 2) LOAD3(AS, vload_half, 3)                    \
	LOAD(AS, vload_half, 4, 4) LOAD(AS, vload_half, 8, 8)                  \
	LOAD(AS, vload_half, 16, 16)                                           \
	LOAD(AS, vloada_half, 2, 2) LOAD3(AS, vloada_half, 4)                  \
	LOAD(AS, vloada_half, 4, 4) LOAD(AS, vloada_half, 8, 8)                \
	LOAD(AS, vloada_half, 16, 16)

/* stores of T (float or double) vectors with rounding R */
#define STORE(AS, PFX, T, N, P, R)                                             \
	void OVL PFX##N##R(T##N v, size_t off, AS half *p)                     \
	{                                                                      \
		AS ushort *q = (AS ushort *)p + off * P;                       \
		for (int i = 0; i < N; i++)                                    \
			q[i] = d2h((double)v[i], RM_##R);                      \
	}
#define STORE1(AS, T, R)                                                       \
	void OVL vstore_half##R(T v, size_t off, AS half *p)                   \
	{                                                                      \
		((AS ushort *)p)[off] = d2h((double)v, RM_##R);                \
	}
#define STORES_TR(AS, T, R)                                                    \
	STORE1(AS, T, R)                                                       \
	STORE(AS, vstore_half, T, 2, 2, R) STORE(AS, vstore_half, T, 3, 3, R)  \
	STORE(AS, vstore_half, T, 4, 4, R) STORE(AS, vstore_half, T, 8, 8, R)  \
	STORE(AS, vstore_half, T, 16, 16, R)                                   \
	STORE(AS, vstorea_half, T, 2, 2, R) STORE(AS, vstorea_half, T, 3, 4, R) \
	STORE(AS, vstorea_half, T, 4, 4, R) STORE(AS, vstorea_half, T, 8, 8, R) \
	STORE(AS, vstorea_half, T, 16, 16, R)
#define STORES_T(AS, T)                                                        \
	STORES_TR(AS, T, ) STORES_TR(AS, T, _rte) STORES_TR(AS, T, _rtz)       \
	STORES_TR(AS, T, _rtp) STORES_TR(AS, T, _rtn)
#define STORES(AS, _) STORES_T(AS, float) STORES_T(AS, double)

FOR_PTR_AS(LOADS, _)
FOR_PTR_AS(STORES, _)
#ifndef __opencl_c_generic_address_space
/* __constant overloads exist in every version: define them once */
LOADS(__constant, _)
#endif
