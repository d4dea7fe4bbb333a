/* SPDX-License-Identifier: MIT */
/* Common (6.15.4) and geometric (6.15.5) functions for half and halfN
 * (cl_khr_fp16), through float as the math functions are (half-math.cl):
 * one rounding to half at the end, where half arithmetic would round at
 * every step. The relational functions, select and bitselect are in
 * common.cl with the other types'. */
#include "builtins.h"

/* clang declares a builtin's overloads only where its name is not yet
 * declared: the float ones these functions call are declared here,
 * before the half definitions hide them. */
#define PROTO(R, F, ...)                                                       \
	R OVL F(__VA_ARGS__);
#define PROTOS(T)                                                              \
	PROTO(T, clamp, T, T, T) PROTO(T, degrees, T) PROTO(T, radians, T)     \
	PROTO(T, fmax, T, T) PROTO(T, fmin, T, T) PROTO(T, mix, T, T, T)       \
	PROTO(T, step, T, T) PROTO(T, smoothstep, T, T, T) PROTO(T, sign, T)
#define GPROTOS(T)                                                             \
	PROTO(float, dot, T, T) PROTO(float, length, T)                        \
	PROTO(float, distance, T, T) PROTO(T, normalize, T)
PROTOS(float) PROTOS(float2) PROTOS(float3) PROTOS(float4) PROTOS(float8)
PROTOS(float16)
GPROTOS(float) GPROTOS(float2) GPROTOS(float3) GPROTOS(float4)
PROTO(float3, cross, float3, float3) PROTO(float4, cross, float4, float4)

/* conversions between half and float: CAST for scalars, VEC for vectors */
#define CAST(x, T) ((T)(x))
#define VEC(x, T) __builtin_convertvector((x), T)

/* T is half or halfN, FT the float type of the same width */
#define COMMON(T, FT, CV)                                                      \
	T OVL clamp(T x, T lo, T hi)                                           \
	{                                                                      \
		return CV(clamp(CV(x, FT), CV(lo, FT), CV(hi, FT)), T);        \
	}                                                                      \
	T OVL degrees(T r) { return CV(degrees(CV(r, FT)), T); }               \
	T OVL radians(T d) { return CV(radians(CV(d, FT)), T); }               \
	T OVL max(T x, T y) { return CV(fmax(CV(x, FT), CV(y, FT)), T); }      \
	T OVL min(T x, T y) { return CV(fmin(CV(x, FT), CV(y, FT)), T); }      \
	T OVL mix(T x, T y, T a)                                               \
	{                                                                      \
		return CV(mix(CV(x, FT), CV(y, FT), CV(a, FT)), T);            \
	}                                                                      \
	T OVL step(T edge, T x)                                                \
	{                                                                      \
		return CV(step(CV(edge, FT), CV(x, FT)), T);                   \
	}                                                                      \
	T OVL smoothstep(T e0, T e1, T x)                                      \
	{                                                                      \
		return CV(smoothstep(CV(e0, FT), CV(e1, FT), CV(x, FT)),       \
			   T);                                                 \
	}                                                                      \
	T OVL sign(T x) { return CV(sign(CV(x, FT)), T); }
COMMON(half, float, CAST) COMMON(half2, float2, VEC)
COMMON(half3, float3, VEC) COMMON(half4, float4, VEC)
COMMON(half8, float8, VEC) COMMON(half16, float16, VEC)

/* the scalar-operand forms */
#define COMMON_S(T)                                                            \
	T OVL clamp(T x, half lo, half hi) { return clamp(x, (T)lo, (T)hi); }  \
	T OVL max(T x, half y) { return max(x, (T)y); }                        \
	T OVL min(T x, half y) { return min(x, (T)y); }                        \
	T OVL mix(T x, T y, half a) { return mix(x, y, (T)a); }                \
	T OVL step(half edge, T x) { return step((T)edge, x); }                \
	T OVL smoothstep(half e0, half e1, T x)                                \
	{                                                                      \
		return smoothstep((T)e0, (T)e1, x);                            \
	}
COMMON_S(half2) COMMON_S(half3) COMMON_S(half4) COMMON_S(half8)
COMMON_S(half16)

/* --- geometric: widths 1 to 4 --- */
#define GEOM(T, FT, CV)                                                        \
	half OVL dot(T a, T b) { return (half)dot(CV(a, FT), CV(b, FT)); }     \
	half OVL length(T p) { return (half)length(CV(p, FT)); }               \
	half OVL distance(T a, T b)                                            \
	{                                                                      \
		return (half)distance(CV(a, FT), CV(b, FT));                   \
	}                                                                      \
	T OVL normalize(T p) { return CV(normalize(CV(p, FT)), T); }
GEOM(half, float, CAST) GEOM(half2, float2, VEC)
GEOM(half3, float3, VEC) GEOM(half4, float4, VEC)

half3 OVL cross(half3 a, half3 b)
{
	return VEC(cross(VEC(a, float3), VEC(b, float3)), half3);
}
half4 OVL cross(half4 a, half4 b)
{
	return VEC(cross(VEC(a, float4), VEC(b, float4)), half4);
}
