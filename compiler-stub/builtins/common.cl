/* SPDX-License-Identifier: MIT */
/* Common (6.15.4), geometric (6.15.5) and relational (6.15.6) functions;
 * select/bitselect; half's common and geometric functions are in
 * half-common.cl. One generic body per type: OpenCL C's operators work
 * on scalars and vectors alike (vector comparisons give -1/0 masks). */
#include "builtins.h"

/* M(T, scalar element type) for every width */
#define FOR_W(M, S) M(S, S) M(S##2, S) M(S##3, S) M(S##4, S) M(S##8, S)       \
	M(S##16, S)

#define COMMON(T, S)                                                           \
	T OVL clamp(T x, T lo, T hi) { return fmin(fmax(x, lo), hi); }         \
	T OVL degrees(T r) { return (T)(180.0 / M_PI) * r; }                   \
	T OVL radians(T d) { return (T)(M_PI / 180.0) * d; }                   \
	T OVL max(T x, T y) { return fmax(x, y); }                             \
	T OVL min(T x, T y) { return fmin(x, y); }                             \
	T OVL mix(T x, T y, T a) { return x + (y - x) * a; }                   \
	T OVL step(T edge, T x) { return x < edge ? (T)0 : (T)1; }             \
	T OVL smoothstep(T e0, T e1, T x)                                      \
	{                                                                      \
		T t = clamp((x - e0) / (e1 - e0), (T)0, (T)1);                 \
		return t * t * ((T)3 - (T)2 * t);                              \
	}                                                                      \
	T OVL sign(T x)                                                        \
	{                                                                      \
		return x > (T)0 ? (T)1 : x < (T)0 ? (T)-1 :                    \
			isnan(x) ? (T)0 : x;                                   \
	}
FOR_W(COMMON, float)
FOR_W(COMMON, double)

#define COMMON_S(T, S)                                                         \
	T OVL clamp(T x, S lo, S hi) { return clamp(x, (T)lo, (T)hi); }        \
	T OVL max(T x, S y) { return fmax(x, (T)y); }                          \
	T OVL min(T x, S y) { return fmin(x, (T)y); }                          \
	T OVL mix(T x, T y, S a) { return mix(x, y, (T)a); }                   \
	T OVL step(S edge, T x) { return step((T)edge, x); }                   \
	T OVL smoothstep(S e0, S e1, T x)                                      \
	{                                                                      \
		return smoothstep((T)e0, (T)e1, x);                            \
	}
#define COMMON_S_N(S, N) COMMON_S(S##N, S)
FOR_VECS_N(COMMON_S_N, float)
FOR_VECS_N(COMMON_S_N, double)

/* --- geometric --- */
#define GEOM(T, S)                                                             \
	S OVL length(T p)                                                      \
	{                                                                      \
		S m = fmax_all(fabs(p));                                       \
		if (m == (S)0 || isinf(m) || isnan(m))                         \
			return m;                                              \
		p /= m;                                                        \
		return m * sqrt(dot(p, p));                                    \
	}                                                                      \
	S OVL distance(T a, T b) { return length(a - b); }                     \
	T OVL normalize(T p)                                                   \
	{                                                                      \
		S m = fmax_all(fabs(p));                                       \
		if (m == (S)0)                                                 \
			return p;                                              \
		if (isinf(m)) {                                                \
			p = isinf(p) ? copysign((T)1, p) : (T)0;               \
			m = (S)1;                                              \
		}                                                              \
		p /= m;                                                        \
		return p * rsqrt(dot(p, p));                                   \
	}                                                                      \
	S OVL fast_length(T p) { return sqrt(dot(p, p)); }                     \
	S OVL fast_distance(T a, T b) { return fast_length(a - b); }           \
	T OVL fast_normalize(T p) { return p * rsqrt(dot(p, p)); }

#define HMAX(S)                                                                \
	static S OVL fmax_all(S x) { return x; }                               \
	static S OVL fmax_all(S##2 x) { return fmax(x.s0, x.s1); }             \
	static S OVL fmax_all(S##3 x) { return fmax(fmax(x.s0, x.s1), x.s2); } \
	static S OVL fmax_all(S##4 x)                                          \
	{                                                                      \
		return fmax(fmax(x.s0, x.s1), fmax(x.s2, x.s3));               \
	}
HMAX(float) HMAX(double)

float OVL dot(float a, float b) { return a * b; }
double OVL dot(double a, double b) { return a * b; }
float OVL dot(float2 a, float2 b) { return a.x * b.x + a.y * b.y; }
double OVL dot(double2 a, double2 b) { return a.x * b.x + a.y * b.y; }
float OVL dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
double OVL dot(double3 a, double3 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}
float OVL dot(float4 a, float4 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
double OVL dot(double4 a, double4 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
GEOM(float, float) GEOM(float2, float) GEOM(float3, float) GEOM(float4, float)
GEOM(double, double) GEOM(double2, double) GEOM(double3, double)
GEOM(double4, double)

#define CROSS(T)                                                               \
	T##3 OVL cross(T##3 a, T##3 b)                                         \
	{                                                                      \
		return (T##3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,    \
			      a.x * b.y - a.y * b.x);                          \
	}                                                                      \
	T##4 OVL cross(T##4 a, T##4 b)                                         \
	{                                                                      \
		return (T##4)(cross(a.xyz, b.xyz), (T)0);                      \
	}
CROSS(float) CROSS(double)

/* --- relational: R is int-like of the same width --- */
#define REL(T, R, U, B)                                                         \
	R OVL isequal(T x, T y) { return x == y; }                             \
	R OVL isnotequal(T x, T y) { return x != y; }                          \
	R OVL isgreater(T x, T y) { return x > y; }                            \
	R OVL isgreaterequal(T x, T y) { return x >= y; }                      \
	R OVL isless(T x, T y) { return x < y; }                               \
	R OVL islessequal(T x, T y) { return x <= y; }                         \
	R OVL islessgreater(T x, T y) { return (x < y) | (x > y); }            \
	R OVL isordered(T x, T y) { return (x == x) & (y == y); }              \
	R OVL isunordered(T x, T y) { return (x != x) | (y != y); }            \
	R OVL isnan(T x) { return x != x; }                                    \
	R OVL isinf(T x) { return fabs(x) == (T)INFINITY; }                    \
	R OVL isfinite(T x) { return fabs(x) < (T)INFINITY; }                  \
	R OVL isnormal(T x)                                                    \
	{                                                                      \
		return (fabs(x) >= (T)MIN_##U) & (fabs(x) < (T)INFINITY);      \
	}                                                                      \
	R OVL signbit(T x) { return (R)(__builtin_astype(x, B) < (B)0); }
#define MIN_FLT FLT_MIN
#define MIN_DBL DBL_MIN
#define MIN_HLF HALF_MIN
/* B: the same-sized integer type for signbit (scalar double and half
 * give int) */
REL(float, int, FLT, int) REL(float2, int2, FLT, int2)
REL(float3, int3, FLT, int3) REL(float4, int4, FLT, int4)
REL(float8, int8, FLT, int8) REL(float16, int16, FLT, int16)
REL(double, int, DBL, long) REL(double2, long2, DBL, long2)
REL(double3, long3, DBL, long3) REL(double4, long4, DBL, long4)
REL(double8, long8, DBL, long8) REL(double16, long16, DBL, long16)
REL(half, int, HLF, short) REL(half2, short2, HLF, short2)
REL(half3, short3, HLF, short3) REL(half4, short4, HLF, short4)
REL(half8, short8, HLF, short8) REL(half16, short16, HLF, short16)

#define ANYALL(T)                                                              \
	int OVL any(T x) { return x < 0; }                                     \
	int OVL all(T x) { return x < 0; }                                     \
	int OVL any(T##2 x) { return (x.s0 | x.s1) < 0; }                      \
	int OVL all(T##2 x) { return (x.s0 & x.s1) < 0; }                      \
	int OVL any(T##3 x) { return (x.s0 | x.s1 | x.s2) < 0; }               \
	int OVL all(T##3 x) { return (x.s0 & x.s1 & x.s2) < 0; }               \
	int OVL any(T##4 x) { return any(x.lo | x.hi); }                       \
	int OVL all(T##4 x) { return all(x.lo & x.hi); }                       \
	int OVL any(T##8 x) { return any(x.lo | x.hi); }                       \
	int OVL all(T##8 x) { return all(x.lo & x.hi); }                       \
	int OVL any(T##16 x) { return any(x.lo | x.hi); }                      \
	int OVL all(T##16 x) { return all(x.lo & x.hi); }
ANYALL(char) ANYALL(short) ANYALL(int) ANYALL(long)

/* bitselect and select for T with the same-sized signed I / unsigned U */
#define SEL(T, I, U)                                                           \
	T OVL bitselect(T a, T b, T c)                                         \
	{                                                                      \
		U ua = __builtin_astype(a, U), ub = __builtin_astype(b, U);    \
		U uc = __builtin_astype(c, U);                                 \
		return __builtin_astype((U)((ua & ~uc) | (ub & uc)), T);       \
	}
#define SEL_S(T, I, U)                                                         \
	T OVL select(T a, T b, I c) { return c ? b : a; }                      \
	T OVL select(T a, T b, U c) { return c ? b : a; }
#define SEL_V(T, I, U)                                                         \
	T OVL select(T a, T b, I c) { return c < (I)0 ? b : a; }               \
	T OVL select(T a, T b, U c)                                            \
	{                                                                      \
		return __builtin_astype(c, I) < (I)0 ? b : a;                  \
	}
#define SEL_ALL(T, I, U)                                                       \
	SEL(T, I, U) SEL_S(T, I, U)                                            \
	SEL(T##2, I##2, U##2) SEL_V(T##2, I##2, U##2)                          \
	SEL(T##3, I##3, U##3) SEL_V(T##3, I##3, U##3)                          \
	SEL(T##4, I##4, U##4) SEL_V(T##4, I##4, U##4)                          \
	SEL(T##8, I##8, U##8) SEL_V(T##8, I##8, U##8)                          \
	SEL(T##16, I##16, U##16) SEL_V(T##16, I##16, U##16)
SEL_ALL(char, char, uchar) SEL_ALL(uchar, char, uchar)
SEL_ALL(short, short, ushort) SEL_ALL(ushort, short, ushort)
SEL_ALL(int, int, uint) SEL_ALL(uint, int, uint)
SEL_ALL(long, long, ulong) SEL_ALL(ulong, long, ulong)
SEL_ALL(float, int, uint) SEL_ALL(double, long, ulong)
SEL_ALL(half, short, ushort)
