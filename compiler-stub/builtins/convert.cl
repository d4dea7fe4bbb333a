/* SPDX-License-Identifier: MIT */
/* convert_<dst>[n][_sat][_rte|_rtz|_rtp|_rtn] for every pair of types.
 * One scalar body per pair, specialised by constant conditions on type
 * properties; vectors are element-wise (default conversions use
 * __builtin_convertvector). */
#include "builtins.h"

/* type properties: floating?, signed? */
#define FLT_char 0
#define FLT_uchar 0
#define FLT_short 0
#define FLT_ushort 0
#define FLT_int 0
#define FLT_uint 0
#define FLT_long 0
#define FLT_ulong 0
#define FLT_float 1
#define FLT_double 1
#define FLT_half 1
#define SGN_char 1
#define SGN_uchar 0
#define SGN_short 1
#define SGN_ushort 0
#define SGN_int 1
#define SGN_uint 0
#define SGN_long 1
#define SGN_ulong 0
#define SGN_float 1
#define SGN_double 1
#define SGN_half 1
#define MIN_char CHAR_MIN
#define MAX_char CHAR_MAX
#define MIN_uchar 0
#define MAX_uchar UCHAR_MAX
#define MIN_short SHRT_MIN
#define MAX_short SHRT_MAX
#define MIN_ushort 0
#define MAX_ushort USHRT_MAX
#define MIN_int INT_MIN
#define MAX_int INT_MAX
#define MIN_uint 0
#define MAX_uint UINT_MAX
#define MIN_long LONG_MIN
#define MAX_long LONG_MAX
#define MIN_ulong 0
#define MAX_ulong ULONG_MAX
#define MIN_float (-FLT_MAX)
#define MAX_float FLT_MAX
#define MIN_double (-DBL_MAX)
#define MAX_double DBL_MAX
#define MIN_half (-HALF_MAX)
#define MAX_half HALF_MAX

/* rounding mode codes */
#define RC_ 0
#define RC__rte 1
#define RC__rtz 2
#define RC__rtp 3
#define RC__rtn 4
#define SC_ 0
#define SC__sat 1

static double round_mode(double v, int rc)
{
	switch (rc) {
	case 1:
		return rint(v);
	case 3:
		return ceil(v);
	case 4:
		return floor(v);
	default: /* float to integer defaults to round toward zero */
		return trunc(v);
	}
}

/* Scalar conversion S -> D; D is an integer type. */
#define CVT_INT(D, S, SAT, RND)                                                \
	D OVL convert_##D##SAT##RND(S x)                                       \
	{                                                                      \
		if (FLT_##S) {                                                 \
			double v = round_mode((double)x, RC_##RND);            \
			if (SC_##SAT) {                                        \
				if (v != v)                                    \
					return 0;                              \
				if (v <= (double)MIN_##D)                      \
					return MIN_##D;                        \
				if (v >= (double)MAX_##D)                      \
					return MAX_##D;                        \
			}                                                      \
			return (D)v;                                           \
		}                                                              \
		if (SC_##SAT) {                                                \
			if (SGN_##S && (long)x < 0) {                          \
				if (!SGN_##D)                                  \
					return 0;                              \
				return (long)x < (long)MIN_##D ? MIN_##D :     \
					(D)x;                                  \
			}                                                      \
			return (ulong)x > (ulong)MAX_##D ? MAX_##D : (D)x;     \
		}                                                              \
		return (D)x;                                                   \
	}

/* sign of r - x, exactly: through double for sources of up to 32 bits
 * and floating ones; 64-bit integers compare as integers */
#define CMP_DBL(S)                                                             \
	static int rcmp_##S(double r, S x)                                     \
	{                                                                      \
		return (r > (double)x) - (r < (double)x);                      \
	}
CMP_DBL(char) CMP_DBL(uchar) CMP_DBL(short) CMP_DBL(ushort) CMP_DBL(int)
CMP_DBL(uint) CMP_DBL(float) CMP_DBL(double) CMP_DBL(half)
static int rcmp_long(double r, long x)
{
	long ri;

	if (r >= 0x1p63)
		return 1;
	if (r < -0x1p63) /* -inf: a half overflows where a float does not */
		return -1;
	ri = (long)r; /* integral: |r| >= 2^53 or exact */
	return (ri > x) - (ri < x);
}
static int rcmp_ulong(double r, ulong x)
{
	ulong ri;

	if (r >= 0x1p64)
		return 1;
	ri = (ulong)r;
	return (ri > x) - (ri < x);
}

/* Scalar conversion S -> D; D is float or double. The default and _rte
 * are the C conversion; directed modes step one ulp when the nearest
 * result lies on the wrong side. */
#define CVT_FLT(D, S, SAT, RND)                                                \
	D OVL convert_##D##RND(S x)                                            \
	{                                                                      \
		D r = (D)x;                                                    \
		int rc = RC_##RND, c;                                          \
		if (rc <= 1 || (FLT_##S && sizeof(S) <= sizeof(D)) || r != r)  \
			return r;                                              \
		c = rcmp_##S((double)r, x);                                    \
		if (rc == 2 && ((c > 0 && r > (D)0) || (c < 0 && r < (D)0)))   \
			return nextafter(r, (D)0);                             \
		if (rc == 3 && c < 0)                                          \
			return nextafter(r, (D)INFINITY);                      \
		if (rc == 4 && c > 0)                                          \
			return nextafter(r, (D)-INFINITY);                     \
		return r;                                                      \
	}

#define VEC_CVT(D, S, N, H, SAT, RND)                                          \
	D##N OVL convert_##D##N##SAT##RND(S##N x)                              \
	{                                                                      \
		return (D##N)(convert_##D##H##SAT##RND(x.lo),                  \
			      convert_##D##H##SAT##RND(x.hi));                 \
	}
#define VEC3_CVT(D, S, SAT, RND)                                               \
	D##3 OVL convert_##D##3##SAT##RND(S##3 x)                              \
	{                                                                      \
		return (D##3)(convert_##D##SAT##RND(x.s0),                     \
			      convert_##D##SAT##RND(x.s1),                     \
			      convert_##D##SAT##RND(x.s2));                    \
	}
#define VECS_CVT(D, S, SAT, RND)                                               \
	VEC_CVT(D, S, 2, , SAT, RND) VEC3_CVT(D, S, SAT, RND)                  \
	VEC_CVT(D, S, 4, 2, SAT, RND) VEC_CVT(D, S, 8, 4, SAT, RND)            \
	VEC_CVT(D, S, 16, 8, SAT, RND)

#define DEF_CVT(D, S, N)                                                       \
	D##N OVL convert_##D##N(S##N x)                                        \
	{                                                                      \
		return __builtin_convertvector(x, D##N);                       \
	}
#define DEF_CVTS(D, S)                                                         \
	D OVL convert_##D(S x) { return (D)x; }                                \
	DEF_CVT(D, S, 2) DEF_CVT(D, S, 3) DEF_CVT(D, S, 4) DEF_CVT(D, S, 8)    \
	DEF_CVT(D, S, 16)

#define MODES(K, D, S, SAT)                                                    \
	K(D, S, SAT, _rte) VECS_CVT(D, S, SAT, _rte)                           \
	K(D, S, SAT, _rtz) VECS_CVT(D, S, SAT, _rtz)                           \
	K(D, S, SAT, _rtp) VECS_CVT(D, S, SAT, _rtp)                           \
	K(D, S, SAT, _rtn) VECS_CVT(D, S, SAT, _rtn)

#define TO_INT(S, D)                                                           \
	DEF_CVTS(D, S) MODES(CVT_INT, D, S, )                                  \
	CVT_INT(D, S, _sat, ) VECS_CVT(D, S, _sat, )                           \
	MODES(CVT_INT, D, S, _sat)
#define TO_FLT(S, D) DEF_CVTS(D, S) MODES(CVT_FLT, D, S, )

#define FROM(S)                                                                \
	TO_INT(S, char) TO_INT(S, uchar) TO_INT(S, short) TO_INT(S, ushort)    \
	TO_INT(S, int) TO_INT(S, uint) TO_INT(S, long) TO_INT(S, ulong)        \
	TO_FLT(S, float) TO_FLT(S, double) TO_FLT(S, half)

FROM(char) FROM(uchar) FROM(short) FROM(ushort) FROM(int) FROM(uint)
FROM(long) FROM(ulong) FROM(float) FROM(double) FROM(half)
