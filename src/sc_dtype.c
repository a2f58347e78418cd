/* sc_dtype: dtype table, value encoding, exact small-integer reductions.
 *
 * Invariant of sc_value_bits: for a fixed seed and width w, indices that
 * differ only in their low w bits map to different bits (a bijection of the
 * low w bits, keyed by the seed and the high bits). */
#include "sc_dtype.h"
#include "sc_hd.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned size;
	unsigned is_float;
	unsigned is_signed;
} dtypes[SC_NDTYPES] = {
	[SC_I32] = {"i32", 4, 0, 1},     [SC_I64] = {"i64", 8, 0, 1},
	[SC_U32] = {"u32", 4, 0, 0},     [SC_U64] = {"u64", 8, 0, 0},
	[SC_I8] = {"i8", 1, 0, 1},       [SC_U8] = {"u8", 1, 0, 0},
	[SC_F32] = {"f32", 4, 1, 1},     [SC_F64] = {"f64", 8, 1, 1},
	[SC_F16] = {"f16", 2, 1, 1},     [SC_BF16] = {"bf16", 2, 1, 1},
	[SC_F8E4M3] = {"f8e4m3", 1, 1, 1}, [SC_F8E5M2] = {"f8e5m2", 1, 1, 1},
};

static const char *const redops[SC_NREDOPS] = {"sum", "max", "min", "prod"};

const char *sc_dtype_name(enum sc_dtype dt)
{
	return (unsigned)dt < SC_NDTYPES ? dtypes[dt].name : "?";
}

int sc_dtype_parse(const char *name, enum sc_dtype *out)
{
	for (int i = 0; i < SC_NDTYPES; i++)
		if (strcmp(name, dtypes[i].name) == 0) {
			*out = (enum sc_dtype)i;
			return 0;
		}
	return -1;
}

size_t sc_dtype_size(enum sc_dtype dt) { return dtypes[dt].size; }
int sc_dtype_is_float(enum sc_dtype dt) { return (int)dtypes[dt].is_float; }
int sc_dtype_is_signed(enum sc_dtype dt) { return (int)dtypes[dt].is_signed; }

const char *sc_redop_name(enum sc_redop op)
{
	return (unsigned)op < SC_NREDOPS ? redops[op] : "?";
}

int sc_redop_parse(const char *name, enum sc_redop *out)
{
	for (int i = 0; i < SC_NREDOPS; i++)
		if (strcmp(name, redops[i]) == 0) {
			*out = (enum sc_redop)i;
			return 0;
		}
	return -1;
}

static uint64_t mix64(uint64_t x) { return sc_hd_mix64(x); }

uint64_t sc_value_bits(enum sc_dtype dt, uint64_t seed, uint64_t gindex)
{
	return sc_hd_value_bits(dtypes[dt].size, seed, gindex);
}

int sc_small_int(enum sc_dtype dt, enum sc_redop op, uint64_t seed, int rank,
		 uint64_t gindex)
{
	const uint64_t h = mix64(mix64(seed ^ 0x5851f42d4c957f2dULL) ^
				 ((uint64_t)(int64_t)rank << 48) ^ gindex);
	const int sgn = dtypes[dt].is_signed;
	switch (op) {
	case SC_SUM: /* |sum| <= P stays exact in every dtype for P <= 8 */
		return sgn ? (int)(h % 3) - 1 : (int)(h % 2);
	case SC_PROD:
		return sgn ? ((h & 1) ? 1 : -1) : (int)(h % 2);
	case SC_MAX:
	case SC_MIN:
	default:
		return sgn ? (int)(h % 9) - 4 : (int)(h % 9);
	}
}

uint64_t sc_int_to_bits(enum sc_dtype dt, int64_t v)
{
	switch (dt) {
	case SC_I8: case SC_U8: return (uint64_t)v & 0xffu;
	case SC_I32: case SC_U32: return (uint64_t)v & 0xffffffffu;
	case SC_I64: case SC_U64: return (uint64_t)v;
	case SC_F32: {
		float f = (float)v;
		uint32_t b;
		memcpy(&b, &f, 4);
		return b;
	}
	case SC_F64: {
		double d = (double)v;
		uint64_t b;
		memcpy(&b, &d, 8);
		return b;
	}
	case SC_F16: return sc_float_to_f16((float)v);
	case SC_BF16: return sc_float_to_bf16((float)v);
	case SC_F8E4M3: return sc_float_to_f8e4m3((float)v);
	case SC_F8E5M2: return sc_float_to_f8e5m2((float)v);
	case SC_NDTYPES: break;
	}
	return 0;
}

/* ---- minifloat conversions (round to nearest even) ---- */

static float bits_to_float(uint32_t b)
{
	float f;
	memcpy(&f, &b, 4);
	return f;
}

static uint32_t float_to_bits(float f)
{
	uint32_t b;
	memcpy(&b, &f, 4);
	return b;
}

/* Decode a minifloat with e exponent bits and m mantissa bits. fn: the
 * "finite, NaN only at all-ones" encoding of e4m3 (no infinities). */
static float mini_decode(uint32_t v, int e, int m, int fn)
{
	const int bias = (1 << (e - 1)) - 1;
	const uint32_t sign = (v >> (e + m)) & 1;
	const uint32_t ex = (v >> m) & ((1u << e) - 1);
	const uint32_t man = v & ((1u << m) - 1);
	float r;
	if (fn && ex == (1u << e) - 1 && man == (1u << m) - 1)
		r = NAN;
	else if (!fn && ex == (1u << e) - 1)
		r = man ? NAN : INFINITY;
	else if (ex == 0)
		r = ldexpf((float)man, 1 - bias - m);
	else
		r = ldexpf((float)(man | (1u << m)), (int)ex - bias - m);
	return sign ? -r : r;
}

static uint32_t mini_encode(float f, int e, int m, int fn)
{
	const int bias = (1 << (e - 1)) - 1;
	const uint32_t sign = (float_to_bits(f) >> 31) << (e + m);
	const uint32_t all = (1u << (e + m)) - 1;
	if (isnan(f))
		return sign | all | (fn ? 0 : (1u << (m - 1)));
	float a = fabsf(f);
	/* largest finite */
	const float maxf = fn ? mini_decode(all - 1, e, m, fn)
			      : mini_decode(((1u << e) - 2) << m | ((1u << m) - 1), e, m, 0);
	if (a == 0.0f)
		return sign;
	int ex;
	frexpf(a, &ex); /* a = f * 2^ex, f in [0.5,1) */
	int unb = ex - 1;
	if (unb < 1 - bias)
		unb = 1 - bias; /* subnormal range */
	/* quantum of representable values at this exponent */
	float q = ldexpf(1.0f, unb - m);
	float n = a / q;
	float rn = nearbyintf(n); /* current rounding mode: nearest even */
	float r = rn * q;
	if (r == 0.0f)
		return sign; /* underflow to a signed zero */
	if (r > maxf) {
		if (fn)
			return sign | all; /* saturate to NaN, as the e4m3fn cast does for overflow */
		return sign | (((1u << e) - 1) << m); /* inf */
	}
	/* re-encode r exactly */
	int ex2;
	frexpf(r, &ex2);
	int unb2 = ex2 - 1;
	if (unb2 < 1 - bias)
		return sign | (uint32_t)(r / ldexpf(1.0f, 1 - bias - m));
	uint32_t man = (uint32_t)(r / ldexpf(1.0f, unb2 - m)) - (1u << m);
	return sign | ((uint32_t)(unb2 + bias) << m) | man;
}

float sc_f16_to_float(uint16_t h) { return mini_decode(h, 5, 10, 0); }
uint16_t sc_float_to_f16(float f) { return (uint16_t)mini_encode(f, 5, 10, 0); }
float sc_f8e4m3_to_float(uint8_t v) { return mini_decode(v, 4, 3, 1); }
uint8_t sc_float_to_f8e4m3(float f) { return (uint8_t)mini_encode(f, 4, 3, 1); }
float sc_f8e5m2_to_float(uint8_t v) { return mini_decode(v, 5, 2, 0); }
uint8_t sc_float_to_f8e5m2(float f) { return (uint8_t)mini_encode(f, 5, 2, 0); }

float sc_bf16_to_float(uint16_t h) { return bits_to_float((uint32_t)h << 16); }

uint16_t sc_float_to_bf16(float f)
{
	uint32_t b = float_to_bits(f);
	if (isnan(f))
		return (uint16_t)((b >> 16) | 0x40);
	b += 0x7fff + ((b >> 16) & 1);
	return (uint16_t)(b >> 16);
}

#define RED_LOOP(T, OPEXPR)                                                    \
	do {                                                                   \
		T *a_ = (T *)acc;                                              \
		const T *b_ = (const T *)in;                                   \
		for (size_t i_ = 0; i_ < count; i_++) {                        \
			T x = a_[i_], y = b_[i_];                              \
			a_[i_] = (T)(OPEXPR);                                  \
		}                                                              \
	} while (0)

#define RED_TYPED(T)                                                           \
	do {                                                                   \
		switch (op) {                                                  \
		case SC_SUM: RED_LOOP(T, x + y); break;                        \
		case SC_PROD: RED_LOOP(T, x * y); break;                       \
		case SC_MAX: RED_LOOP(T, x > y ? x : y); break;                \
		case SC_MIN: RED_LOOP(T, x < y ? x : y); break;                \
		default: break;                                                \
		}                                                              \
	} while (0)

static float fop(enum sc_redop op, float x, float y)
{
	switch (op) {
	case SC_SUM: return x + y;
	case SC_PROD: return x * y;
	case SC_MAX: return x > y ? x : y;
	case SC_MIN: return x < y ? x : y;
	default: return x;
	}
}

#define RED_MINI(T, DEC, ENC)                                                  \
	do {                                                                   \
		T *a_ = (T *)acc;                                              \
		const T *b_ = (const T *)in;                                   \
		for (size_t i_ = 0; i_ < count; i_++)                          \
			a_[i_] = ENC(fop(op, DEC(a_[i_]), DEC(b_[i_])));       \
	} while (0)

void sc_reduce(enum sc_dtype dt, enum sc_redop op, void *acc, const void *in,
	       size_t count)
{
	/* Unsigned wrap-around is defined; signed small-integer sums stay in
	 * range by construction of sc_small_int. */
	switch (dt) {
	case SC_I8: RED_TYPED(int8_t); break;
	case SC_U8: RED_TYPED(uint8_t); break;
	case SC_I32: RED_TYPED(int32_t); break;
	case SC_U32: RED_TYPED(uint32_t); break;
	case SC_I64: RED_TYPED(int64_t); break;
	case SC_U64: RED_TYPED(uint64_t); break;
	case SC_F32: RED_TYPED(float); break;
	case SC_F64: RED_TYPED(double); break;
	case SC_F16: RED_MINI(uint16_t, sc_f16_to_float, sc_float_to_f16); break;
	case SC_BF16: RED_MINI(uint16_t, sc_bf16_to_float, sc_float_to_bf16); break;
	case SC_F8E4M3: RED_MINI(uint8_t, sc_f8e4m3_to_float, sc_float_to_f8e4m3); break;
	case SC_F8E5M2: RED_MINI(uint8_t, sc_f8e5m2_to_float, sc_float_to_f8e5m2); break;
	case SC_NDTYPES: break;
	}
}

void sc_dtype_format(enum sc_dtype dt, uint64_t bits, char *buf, size_t n)
{
	switch (dt) {
	case SC_I8: snprintf(buf, n, "%d", (int)(int8_t)bits); break;
	case SC_U8: snprintf(buf, n, "%u", (unsigned)(uint8_t)bits); break;
	case SC_I32: snprintf(buf, n, "%d", (int)(int32_t)bits); break;
	case SC_U32: snprintf(buf, n, "%u", (unsigned)(uint32_t)bits); break;
	case SC_I64: snprintf(buf, n, "%lld", (long long)(int64_t)bits); break;
	case SC_U64: snprintf(buf, n, "%llu", (unsigned long long)bits); break;
	case SC_F32:
		snprintf(buf, n, "0x%08x (%g)", (unsigned)bits, (double)bits_to_float((uint32_t)bits));
		break;
	case SC_F64: {
		double d;
		memcpy(&d, &bits, 8);
		snprintf(buf, n, "0x%016llx (%g)", (unsigned long long)bits, d);
		break;
	}
	case SC_F16:
		snprintf(buf, n, "0x%04x (%g)", (unsigned)bits, (double)sc_f16_to_float((uint16_t)bits));
		break;
	case SC_BF16:
		snprintf(buf, n, "0x%04x (%g)", (unsigned)bits, (double)sc_bf16_to_float((uint16_t)bits));
		break;
	case SC_F8E4M3:
		snprintf(buf, n, "0x%02x (%g)", (unsigned)bits, (double)sc_f8e4m3_to_float((uint8_t)bits));
		break;
	case SC_F8E5M2:
		snprintf(buf, n, "0x%02x (%g)", (unsigned)bits, (double)sc_f8e5m2_to_float((uint8_t)bits));
		break;
	case SC_NDTYPES: snprintf(buf, n, "?"); break;
	}
}
