/* SPDX-License-Identifier: MIT */
/* Integer functions (OpenCL C 6.15.3): scalar definitions, element-wise
 * vectors. */
#include "builtins.h"

#define UCHAR_MIN 0
#define USHRT_MIN 0
#define UINT_MIN 0u
#define ULONG_MIN 0ul

/* M(type, unsigned type, wider type for exact arithmetic or void, bits,
 *   limits prefix, signed) */
#define INT_SCALARS(M)                                                         \
	M(char, uchar, long, 8, CHAR, 1)                                       \
	M(uchar, uchar, ulong, 8, UCHAR, 0)                                    \
	M(short, ushort, long, 16, SHRT, 1)                                    \
	M(ushort, ushort, ulong, 16, USHRT, 0)                                 \
	M(int, uint, long, 32, INT, 1)                                         \
	M(uint, uint, ulong, 32, UINT, 0)

#define ALL_INT_SCALARS(M)                                                     \
	INT_SCALARS(M) M(long, ulong, void, 64, LONG, 1)                       \
	M(ulong, ulong, void, 64, ULONG, 0)

/* 64x64 -> high 64 bits, unsigned */
static ulong mulhi_u64(ulong a, ulong b)
{
	ulong al = a & 0xffffffffu, ah = a >> 32;
	ulong bl = b & 0xffffffffu, bh = b >> 32;
	ulong ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	ulong mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);

	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static long mulhi_s64(long a, long b)
{
	ulong h = mulhi_u64((ulong)a, (ulong)b);

	if (a < 0)
		h -= (ulong)b;
	if (b < 0)
		h -= (ulong)a;
	return (long)h;
}

#define COMMON_SCALAR(T, UT, W, BITS, LIM, S)                                  \
	T OVL max(T x, T y) { return x > y ? x : y; }                          \
	T OVL min(T x, T y) { return x < y ? x : y; }                          \
	T OVL clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }           \
	UT OVL abs(T x) { return S && x < 0 ? (UT)0 - (UT)x : (UT)x; }        \
	UT OVL abs_diff(T x, T y)                                              \
	{                                                                      \
		return x > y ? (UT)x - (UT)y : (UT)y - (UT)x;                  \
	}                                                                      \
	T OVL add_sat(T x, T y)                                                \
	{                                                                      \
		T r;                                                           \
		if (__builtin_add_overflow(x, y, &r))                          \
			return S && x < 0 ? LIM##_MIN : LIM##_MAX;             \
		return r;                                                      \
	}                                                                      \
	T OVL sub_sat(T x, T y)                                                \
	{                                                                      \
		T r;                                                           \
		if (__builtin_sub_overflow(x, y, &r))                          \
			return S ? (x < 0 ? LIM##_MIN : LIM##_MAX) : 0;        \
		return r;                                                      \
	}                                                                      \
	T OVL hadd(T x, T y) { return (x >> 1) + (y >> 1) + (x & y & 1); }     \
	T OVL rhadd(T x, T y) { return (x >> 1) + (y >> 1) + ((x | y) & 1); }  \
	T OVL clz(T x)                                                         \
	{                                                                      \
		return x == 0 ? BITS :                                         \
			(T)(BITS == 64 ? __builtin_clzl((ulong)x) :            \
			    __builtin_clz((uint)(UT)x) - (32 - BITS));         \
	}                                                                      \
	T OVL ctz(T x)                                                         \
	{                                                                      \
		return x == 0 ? BITS : (T)__builtin_ctzl((ulong)(UT)x);        \
	}                                                                      \
	T OVL popcount(T x) { return (T)__builtin_popcountl((ulong)(UT)x); }   \
	T OVL rotate(T v, T i)                                                 \
	{                                                                      \
		UT u = (UT)v;                                                  \
		uint n = (uint)((UT)i & (BITS - 1));                           \
		return n ? (T)(UT)((u << n) | (u >> (BITS - n))) : v;          \
	}                                                                      \
	T OVL mad_hi(T a, T b, T c) { return mul_hi(a, b) + c; }

ALL_INT_SCALARS(COMMON_SCALAR)

#define NARROW_SCALAR(T, UT, W, BITS, LIM, S)                                  \
	T OVL mul_hi(T x, T y) { return (T)(((W)x * (W)y) >> BITS); }          \
	T OVL mad_sat(T a, T b, T c)                                           \
	{                                                                      \
		W r = (W)a * (W)b + (W)c;                                      \
		if (BITS == 32 && !S)                                          \
			return r > (W)LIM##_MAX ? LIM##_MAX : (T)r;            \
		return r > (W)LIM##_MAX ? LIM##_MAX :                          \
			r < (W)LIM##_MIN ? LIM##_MIN : (T)r;                   \
	}
INT_SCALARS(NARROW_SCALAR)

long OVL mul_hi(long x, long y) { return mulhi_s64(x, y); }
ulong OVL mul_hi(ulong x, ulong y) { return mulhi_u64(x, y); }

ulong OVL mad_sat(ulong a, ulong b, ulong c)
{
	ulong r;

	if (mulhi_u64(a, b) || __builtin_add_overflow(a * b, c, &r))
		return ULONG_MAX;
	return r;
}

long OVL mad_sat(long a, long b, long c)
{
	/* 128-bit a*b + c, then saturate */
	ulong lo = (ulong)a * (ulong)b, clo = (ulong)c;
	long hi = mulhi_s64(a, b);
	ulong sum = lo + clo;

	hi += (c < 0 ? -1 : 0) + (sum < lo ? 1 : 0);
	if (hi == 0 && (long)sum >= 0)
		return (long)sum;
	if (hi == -1 && (long)sum < 0)
		return (long)sum;
	return hi < 0 ? LONG_MIN : LONG_MAX;
}

int OVL mul24(int x, int y) { return x * y; }
uint OVL mul24(uint x, uint y) { return x * y; }
int OVL mad24(int x, int y, int z) { return x * y + z; }
uint OVL mad24(uint x, uint y, uint z) { return x * y + z; }

short OVL upsample(char hi, uchar lo) { return (short)((hi << 8) | lo); }
ushort OVL upsample(uchar hi, uchar lo) { return (ushort)((hi << 8) | lo); }
int OVL upsample(short hi, ushort lo) { return (int)(((uint)hi << 16) | lo); }
uint OVL upsample(ushort hi, ushort lo) { return ((uint)hi << 16) | lo; }
long OVL upsample(int hi, uint lo) { return (long)(((ulong)hi << 32) | lo); }
ulong OVL upsample(uint hi, uint lo) { return ((ulong)hi << 32) | lo; }

#define VEC_INT(T, UT, W, BITS, LIM, S)                                        \
	SPLIT2(max, T, T, T) SPLIT2(min, T, T, T)                              \
	SPLIT2S(max, T, T, T) SPLIT2S(min, T, T, T)                            \
	SPLIT1(abs, T, UT) SPLIT2(abs_diff, T, T, UT)                          \
	SPLIT2(add_sat, T, T, T) SPLIT2(sub_sat, T, T, T)                      \
	SPLIT2(hadd, T, T, T) SPLIT2(rhadd, T, T, T)                           \
	SPLIT1(clz, T, T) SPLIT1(ctz, T, T) SPLIT1(popcount, T, T)             \
	SPLIT2(rotate, T, T, T) SPLIT2(mul_hi, T, T, T)                        \
	SPLIT3(clamp, T) SPLIT3(mad_hi, T) SPLIT3(mad_sat, T)                  \
	VCLAMP(T, 2) VCLAMP(T, 3) VCLAMP(T, 4) VCLAMP(T, 8) VCLAMP(T, 16)
#define VCLAMP(T, N)                                                           \
	T##N OVL clamp(T##N x, T lo, T hi)                                     \
	{                                                                      \
		return clamp(x, (T##N)lo, (T##N)hi);                           \
	}
ALL_INT_SCALARS(VEC_INT)

SPLIT2(mul24, int, int, int) SPLIT2(mul24, uint, uint, uint)
SPLIT3(mad24, int) SPLIT3(mad24, uint)
SPLIT2(upsample, char, uchar, short) SPLIT2(upsample, uchar, uchar, ushort)
SPLIT2(upsample, short, ushort, int) SPLIT2(upsample, ushort, ushort, uint)
SPLIT2(upsample, int, uint, long) SPLIT2(upsample, uint, uint, ulong)
