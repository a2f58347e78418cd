/* sc_hd_dtype: element arithmetic shared by the CPU path and the CUDA
 * kernels: minifloat conversions (round to nearest even), the small
 * integers reductions carry, one-element reductions in a dtype's own
 * arithmetic, and what a filled or checked element must hold.
 *
 * sc_dtype.c is written on top of these, so the CPU unit tests exercise
 * exactly the code the device runs. Like sc_hd.h, everything is static
 * inline and __host__ __device__ under nvcc; the only library call is a
 * float function CUDA provides on the device (nearbyintf). */
#ifndef SC_HD_DTYPE_H
#define SC_HD_DTYPE_H

#include <math.h>
#include <stdint.h>

#include "sc_hd.h"

/* The element types, by id (the kernels take them as ints), listed in
 * shrinking order: the simplest first (docs/cli.md, "Shrinking"). */
enum sc_dtype {
	SC_I32,
	SC_I64,
	SC_U32,
	SC_U64,
	SC_I8,
	SC_U8,
	SC_F32,
	SC_F64,
	SC_F16,
	SC_BF16,
	SC_F8E4M3,
	SC_F8E5M2,
	SC_NDTYPES
};

/* Reductions, by id. */
enum sc_redop { SC_SUM, SC_MAX, SC_MIN, SC_PROD, SC_NREDOPS };

SC_HD static inline uint32_t sc_hd_f2u(float f)
{
	union { float f; uint32_t u; } v;
	v.f = f;
	return v.u;
}
SC_HD static inline float sc_hd_u2f(uint32_t u)
{
	union { float f; uint32_t u; } v;
	v.u = u;
	return v.f;
}
SC_HD static inline uint64_t sc_hd_d2u(double d)
{
	union { double d; uint64_t u; } v;
	v.d = d;
	return v.u;
}
SC_HD static inline double sc_hd_u2d(uint64_t u)
{
	union { double d; uint64_t u; } v;
	v.u = u;
	return v.d;
}

/* 2^k as a float, exactly, for k in [-126, 127]: the scalings below stay
 * there, and a multiply costs less than ldexpf's checks. */
SC_HD static inline float sc_hd_pow2f(int k) { return sc_hd_u2f((uint32_t)(k + 127) << 23); }

/* frexpf's exponent of a finite a > 0 (a = f * 2^ex, f in [0.5, 1)); a
 * subnormal float gives -126, which the minifloats below clamp anyway. */
SC_HD static inline int sc_hd_frexp_exp(float a)
{
	const int b = (int)((sc_hd_f2u(a) >> 23) & 0xff);
	return b ? b - 126 : -126;
}

/* A minifloat with e exponent and m mantissa bits; fn: e4m3fn's encoding
 * (no infinities, NaN only at all-ones). */
SC_HD static inline float sc_hd_mini_decode(uint32_t v, int e, int m, int fn)
{
	const int bias = (1 << (e - 1)) - 1;
	const uint32_t sign = (v >> (e + m)) & 1;
	const uint32_t em = v & ((1u << (e + m)) - 1), inf = ((1u << e) - 1) << m;
	float r;
	if (fn ? em == (1u << (e + m)) - 1 : em >= inf) /* e4m3fn: NaN at S.1111.111 only, no infinity */
		r = sc_hd_u2f(fn || em > inf ? 0x7fc00000u : 0x7f800000u);
	else /* normal or subnormal: its bits where a float's go, scaled by a power of 2 (exact) */
		r = sc_hd_u2f(em << (23 - m)) * sc_hd_pow2f(127 - bias);
	return sign ? -r : r;
}

SC_HD static inline uint32_t sc_hd_mini_encode(float f, int e, int m, int fn)
{
	const int bias = (1 << (e - 1)) - 1;
	const uint32_t sign = (sc_hd_f2u(f) >> 31) << (e + m);
	const uint32_t all = (1u << (e + m)) - 1;
	const uint32_t overflow = fn ? sign | all /* e4m3fn saturates overflow to NaN */
				     : sign | (((1u << e) - 1) << m);
	if (f != f)
		return sign | all | (fn ? 0 : (1u << (m - 1)));
	const float a = f < 0 ? -f : f;
	if (a == 0.0f)
		return sign;
	int unb = sc_hd_frexp_exp(a) - 1;
	if (unb > bias + 1)
		return overflow; /* at least 2^(bias + 2), past the largest finite value (infinity too) */
	if (unb < 1 - bias)
		unb = 1 - bias; /* the subnormal range */
	/* a rounded to a multiple of 2^(unb - m) (nearest, ties to even, as
	 * nearbyintf): added to 2^(unb - m + 23), whose float spacing that is,
	 * a keeps no bits below it; subtracting back is exact */
	const float big = sc_hd_pow2f(unb - m + 23);
	const float r = (a + big) - big;
	if (r == 0.0f)
		return sign;
	/* the largest finite value */
	const float maxf = fn ? sc_hd_mini_decode(all - 1, e, m, fn)
			      : sc_hd_mini_decode(((1u << e) - 2) << m | ((1u << m) - 1), e, m, 0);
	if (r > maxf)
		return overflow;
	const int unb2 = sc_hd_frexp_exp(r) - 1;
	if (unb2 < 1 - bias) /* a subnormal: r is a multiple of 2^(1 - bias - m) */
		return sign | (uint32_t)(r * sc_hd_pow2f(bias + m - 1));
	/* r has at most m + 1 significant bits: its float mantissa's top m */
	return sign | ((uint32_t)(unb2 + bias) << m) | ((sc_hd_f2u(r) >> (23 - m)) & ((1u << m) - 1));
}

SC_HD static inline float sc_hd_bf16_to_float(uint32_t h) { return sc_hd_u2f(h << 16); }
SC_HD static inline uint32_t sc_hd_float_to_bf16(float f)
{
	uint32_t b = sc_hd_f2u(f);
	if (f != f)
		return (b >> 16) | 0x40;
	b += 0x7fff + ((b >> 16) & 1);
	return b >> 16;
}

/* A minifloat dtype's bits to float and back (f16, bf16, e4m3, e5m2). */
SC_HD static inline float sc_hd_mini_to_float(int dt, uint64_t v)
{
	switch (dt) {
	case SC_F16: return sc_hd_mini_decode((uint32_t)v, 5, 10, 0);
	case SC_BF16: return sc_hd_bf16_to_float((uint32_t)v);
	case SC_F8E4M3: return sc_hd_mini_decode((uint32_t)v, 4, 3, 1);
	default: return sc_hd_mini_decode((uint32_t)v, 5, 2, 0);
	}
}
SC_HD static inline uint64_t sc_hd_float_to_mini(int dt, float f)
{
	switch (dt) {
	case SC_F16: return sc_hd_mini_encode(f, 5, 10, 0);
	case SC_BF16: return sc_hd_float_to_bf16(f);
	case SC_F8E4M3: return sc_hd_mini_encode(f, 4, 3, 1);
	default: return sc_hd_mini_encode(f, 5, 2, 0);
	}
}

SC_HD static inline unsigned sc_hd_dtype_size(int dt)
{
	switch (dt) {
	case SC_I8: case SC_U8: case SC_F8E4M3: case SC_F8E5M2: return 1;
	case SC_F16: case SC_BF16: return 2;
	case SC_I32: case SC_U32: case SC_F32: return 4;
	default: return 8;
	}
}
SC_HD static inline int sc_hd_dtype_signed(int dt)
{
	return !(dt == SC_U8 || dt == SC_U32 || dt == SC_U64);
}

/* The key of a case's small integers (its seed's), for sc_hd_small_int_key. */
SC_HD static inline uint64_t sc_hd_small_key(uint64_t seed) { return sc_mix64(seed ^ 0x5851f42d4c957f2dULL); }

/* Small integer (exact in dt) a rank contributes to a reduction at index
 * g under a case's small key; rank < 0: the value of a tensor that is not
 * partial. */
SC_HD static inline int sc_hd_small_from(int sgn, int op, uint64_t h)
{
	switch (op) {
	case SC_SUM: /* |sum| <= P stays exact in every dtype for P <= 8 */
		return sgn ? (int)(h % 3) - 1 : (int)(h % 2);
	case SC_PROD:
		return sgn ? ((h & 1) ? 1 : -1) : (int)(h % 2);
	default: /* max, min */
		return sgn ? (int)(h % 9) - 4 : (int)(h % 9);
	}
}
SC_HD static inline int sc_hd_small_int_key(int dt, int op, uint64_t key, int rank, uint64_t g)
{
	return sc_hd_small_from(sc_hd_dtype_signed(dt), op, sc_mix64(key ^ ((uint64_t)(int64_t)rank << 48) ^ g));
}

SC_HD static inline int sc_hd_small_int(int dt, int op, uint64_t seed, int rank, uint64_t g)
{
	return sc_hd_small_int_key(dt, op, sc_hd_small_key(seed), rank, g);
}

/* The largest n such that every integer of magnitude at most n is exact in
 * dt: neither rounded nor wrapped around. */
SC_HD static inline int64_t sc_hd_int_exact(int dt)
{
	switch (dt) {
	case SC_I8: return 127;
	case SC_U8: return 255;
	case SC_F16: return 2048;
	case SC_BF16: return 256;
	case SC_F8E4M3: return 16;
	case SC_F8E5M2: return 8;
	case SC_F32: return 1 << 24;
	default: return INT32_MAX; /* i32, u32, and wider */
	}
}

/* An integer exactly representable in a minifloat of e exponent and m
 * mantissa bits (|v| < 2^(m+1)), encoded with integer operations only;
 * -1 when v is out of that range. The same bits as sc_hd_mini_encode. */
SC_HD static inline int64_t sc_hd_small_to_mini(int64_t v, int e, int m)
{
	const uint32_t sign = v < 0 ? 1u << (e + m) : 0u;
	const uint64_t a = v < 0 ? (uint64_t)-v : (uint64_t)v;
	if (a == 0)
		return sign;
	if (a >> (m + 1))
		return -1;
	int ex = 0;
	while (a >> (ex + 1))
		ex++;
	const uint32_t bias = (1u << (e - 1)) - 1;
	return (int64_t)(sign | (uint32_t)(ex + (int)bias) << m | (uint32_t)((a << (m - ex)) & ((1u << m) - 1)));
}

SC_HD static inline uint64_t sc_hd_int_to_bits(int dt, int64_t v)
{
	int64_t b = -1;
	switch (dt) {
	case SC_I8: case SC_U8: return (uint64_t)v & 0xffu;
	case SC_I32: case SC_U32: return (uint64_t)v & 0xffffffffu;
	case SC_I64: case SC_U64: return (uint64_t)v;
	case SC_F32: return sc_hd_f2u((float)v);
	case SC_F64: return sc_hd_d2u((double)v);
	case SC_F16: b = sc_hd_small_to_mini(v, 5, 10); break;
	case SC_F8E4M3: b = sc_hd_small_to_mini(v, 4, 3); break;
	case SC_F8E5M2: b = sc_hd_small_to_mini(v, 5, 2); break;
	default: break;
	}
	return b >= 0 ? (uint64_t)b : sc_hd_float_to_mini(dt, (float)v);
}

/* A float sum or product that is NaN has the same bits everywhere: the
 * first NaN operand, quieted, else (an invalid operation such as inf - inf)
 * the default NaN of x86's SSE. That is what the CPU gives for x OP y;
 * GPUs would give their own canonical NaN, so the kernels, the emulated
 * device and the CPU all reduce through these. */
SC_HD static inline double sc_hd_nan_d(double x, double y, double r)
{
	if (r == r)
		return r;
	if (x != x)
		return sc_hd_u2d(sc_hd_d2u(x) | 0x0008000000000000ull);
	if (y != y)
		return sc_hd_u2d(sc_hd_d2u(y) | 0x0008000000000000ull);
	return sc_hd_u2d(0xfff8000000000000ull);
}
SC_HD static inline float sc_hd_nan_f(float x, float y, float r)
{
	if (r == r)
		return r;
	if (x != x)
		return sc_hd_u2f(sc_hd_f2u(x) | 0x00400000u);
	if (y != y)
		return sc_hd_u2f(sc_hd_f2u(y) | 0x00400000u);
	return sc_hd_u2f(0xffc00000u);
}
SC_HD static inline double sc_hd_op_d(int op, double x, double y)
{
	switch (op) {
	case SC_SUM: return sc_hd_nan_d(x, y, x + y);
	case SC_PROD: return sc_hd_nan_d(x, y, x * y);
	case SC_MAX: return x > y ? x : y;
	default: return x < y ? x : y;
	}
}
SC_HD static inline float sc_hd_op_f(int op, float x, float y)
{
	switch (op) {
	case SC_SUM: return sc_hd_nan_f(x, y, x + y);
	case SC_PROD: return sc_hd_nan_f(x, y, x * y);
	case SC_MAX: return x > y ? x : y;
	default: return x < y ? x : y;
	}
}
/* Sums and products wrap around in the unsigned type of the same width
 * (what the hardware does; signed overflow stays defined). */
#define SC_HD_OP_INT(T, UT, op, x, y)                                           \
	((op) == SC_SUM ? (T)(UT)((UT)(x) + (UT)(y)) : (op) == SC_PROD ? (T)(UT)((UT)(x) * (UT)(y)) \
	 : (op) == SC_MAX ? ((x) > (y) ? (x) : (y)) : ((x) < (y) ? (x) : (y)))

/* a OP b on the bits of two elements of dt, in dt's arithmetic (16- and
 * 8-bit floats through float, rounded to nearest even): sc_reduce for one
 * element. */
SC_HD static inline uint64_t sc_hd_reduce1(int dt, int op, uint64_t a, uint64_t b)
{
	switch (dt) {
	case SC_I8: { int8_t x = (int8_t)a, y = (int8_t)b; return (uint8_t)SC_HD_OP_INT(int8_t, unsigned, op, x, y); }
	case SC_U8: { uint8_t x = (uint8_t)a, y = (uint8_t)b; return (uint8_t)SC_HD_OP_INT(uint8_t, unsigned, op, x, y); }
	case SC_I32: { int32_t x = (int32_t)a, y = (int32_t)b; return (uint32_t)SC_HD_OP_INT(int32_t, uint32_t, op, x, y); }
	case SC_U32: { uint32_t x = (uint32_t)a, y = (uint32_t)b; return (uint32_t)SC_HD_OP_INT(uint32_t, uint32_t, op, x, y); }
	case SC_I64: { int64_t x = (int64_t)a, y = (int64_t)b; return (uint64_t)SC_HD_OP_INT(int64_t, uint64_t, op, x, y); }
	case SC_U64: return SC_HD_OP_INT(uint64_t, uint64_t, op, a, b);
	case SC_F32: return sc_hd_f2u(sc_hd_op_f(op, sc_hd_u2f((uint32_t)a), sc_hd_u2f((uint32_t)b)));
	case SC_F64: return sc_hd_d2u(sc_hd_op_d(op, sc_hd_u2d(a), sc_hd_u2d(b)));
	default:
		return sc_hd_float_to_mini(dt, sc_hd_op_f(op, sc_hd_mini_to_float(dt, a),
							  sc_hd_mini_to_float(dt, b)));
	}
}

/* What element i of a filled (or checked) buffer holds: X[g] for
 * g = offset of xmap's i-th element, as one of
 *   PROV     g itself (u64; provenance runs)
 *   VALUE    the value encoding of dtype (data-movement runs)
 *   SMALL    rank's small integer for op (rank -1: a replicated tensor)
 *   REDUCED  op over ranks 0..world-1 of SMALL, in rank order (a partial
 *            tensor's reduction, as every backend computes it). */
enum { SC_FILL_PROV, SC_FILL_VALUE, SC_FILL_SMALL, SC_FILL_REDUCED };

struct sc_hd_fill {
	struct sc_strided xmap;
	uint64_t seed;
	int mode, dtype, op, rank, world;
};

/* A SMALL fill with what is the same for every element computed once: the
 * key, and the bits in dt of every small integer (-4 .. 8). Same bits as
 * sc_hd_fill_bits. */
struct sc_hd_small {
	uint64_t key, rank_bits;
	int sgn, op;
	uint64_t bits[13]; /* of v at v + 4 */
};
SC_HD static inline void sc_hd_small_init(struct sc_hd_small *sm, int dt, int op, uint64_t seed, int rank)
{
	sm->key = sc_hd_small_key(seed);
	sm->rank_bits = (uint64_t)(int64_t)rank << 48;
	sm->sgn = sc_hd_dtype_signed(dt);
	sm->op = op;
	for (int v = -4; v <= 8; v++)
		sm->bits[v + 4] = sc_hd_int_to_bits(dt, v);
}
SC_HD static inline uint64_t sc_hd_small_bits(const struct sc_hd_small *sm, uint64_t g)
{
	return sm->bits[sc_hd_small_from(sm->sgn, sm->op, sc_mix64(sm->key ^ sm->rank_bits ^ g)) + 4];
}

/* REDUCED: the summands are small integers, so every partial result of
 * prod, max and min is one of them, and every partial sum is at most the
 * world in magnitude. While those are exact in dt (sc_hd_int_exact), the
 * reduction in dt's arithmetic is the integer one: reduced in int64 and
 * encoded once (no -0.0 arises: x + -x is +0.0). Otherwise rank by rank in
 * dt, rounding as the backends do. */
SC_HD static inline uint64_t sc_hd_reduced_bits(const struct sc_hd_fill *f, uint64_t g)
{
	const uint64_t key = sc_hd_small_key(f->seed);
	if (f->op != SC_SUM || f->world <= sc_hd_int_exact(f->dtype)) {
		int64_t acc = sc_hd_small_int_key(f->dtype, f->op, key, 0, g);
		for (int r = 1; r < f->world; r++) {
			const int64_t v = sc_hd_small_int_key(f->dtype, f->op, key, r, g);
			switch (f->op) {
			case SC_SUM: acc += v; break;
			case SC_PROD: acc *= v; break;
			case SC_MAX: acc = v > acc ? v : acc; break;
			default: acc = v < acc ? v : acc; break;
			}
		}
		return sc_hd_int_to_bits(f->dtype, acc);
	}
	uint64_t acc = sc_hd_int_to_bits(f->dtype, sc_hd_small_int_key(f->dtype, f->op, key, 0, g));
	for (int r = 1; r < f->world; r++)
		acc = sc_hd_reduce1(f->dtype, f->op, acc,
				    sc_hd_int_to_bits(f->dtype, sc_hd_small_int_key(f->dtype, f->op, key, r, g)));
	return acc;
}

SC_HD static inline uint64_t sc_hd_fill_bits(const struct sc_hd_fill *f, uint64_t g)
{
	switch (f->mode) {
	case SC_FILL_PROV: return g;
	case SC_FILL_VALUE: return sc_hd_value_bits(sc_hd_dtype_size(f->dtype), f->seed, g);
	case SC_FILL_SMALL: return sc_hd_int_to_bits(f->dtype, sc_hd_small_int(f->dtype, f->op, f->seed, f->rank, g));
	default: return sc_hd_reduced_bits(f, g);
	}
}

/* Bytes of an element of a fill: u64 for provenance, else the dtype's. */
SC_HD static inline unsigned sc_hd_fill_esize(const struct sc_hd_fill *f)
{
	return f->mode == SC_FILL_PROV ? 8u : sc_hd_dtype_size(f->dtype);
}

#endif
