/* sc_dtype: dtype table, value encoding, exact small-integer reductions.
 *
 * Invariant of sc_value_bits: for a fixed seed and width w, indices that
 * differ only in their low w bits map to different bits (a bijection of the
 * low w bits, keyed by the seed and the high bits). */
#include "sc_dtype.h"
#include "sc_hd_dtype.h"

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

enum sc_status sc_dtype_parse(const char *name, enum sc_dtype *out)
{
	for (int i = 0; i < SC_NDTYPES; i++)
		if (strcmp(name, dtypes[i].name) == 0) {
			*out = (enum sc_dtype)i;
			return SC_OK;
		}
	return SC_E_USAGE;
}

size_t sc_dtype_size(enum sc_dtype dt) { return dtypes[dt].size; }
int sc_dtype_is_float(enum sc_dtype dt) { return (int)dtypes[dt].is_float; }
int sc_dtype_is_signed(enum sc_dtype dt) { return (int)dtypes[dt].is_signed; }

const char *sc_redop_name(enum sc_redop op)
{
	return (unsigned)op < SC_NREDOPS ? redops[op] : "?";
}

enum sc_status sc_redop_parse(const char *name, enum sc_redop *out)
{
	for (int i = 0; i < SC_NREDOPS; i++)
		if (strcmp(name, redops[i]) == 0) {
			*out = (enum sc_redop)i;
			return SC_OK;
		}
	return SC_E_USAGE;
}


uint64_t sc_value_bits(enum sc_dtype dt, uint64_t seed, uint64_t gindex)
{
	return sc_hd_value_bits(dtypes[dt].size, seed, gindex);
}

int sc_small_int(enum sc_dtype dt, enum sc_redop op, uint64_t seed, int rank,
		 uint64_t gindex)
{
	return sc_hd_small_int((int)dt, (int)op, seed, rank, gindex);
}

uint64_t sc_int_to_bits(enum sc_dtype dt, int64_t v)
{
	return dt < SC_NDTYPES ? sc_hd_int_to_bits((int)dt, v) : 0;
}

/* Minifloat conversions: sc_hd_dtype.h, shared with the device. */
float sc_f16_to_float(uint16_t h) { return sc_hd_mini_to_float(SC_F16, h); }
uint16_t sc_float_to_f16(float f) { return (uint16_t)sc_hd_float_to_mini(SC_F16, f); }
float sc_f8e4m3_to_float(uint8_t v) { return sc_hd_mini_to_float(SC_F8E4M3, v); }
uint8_t sc_float_to_f8e4m3(float f) { return (uint8_t)sc_hd_float_to_mini(SC_F8E4M3, f); }
float sc_f8e5m2_to_float(uint8_t v) { return sc_hd_mini_to_float(SC_F8E5M2, v); }
uint8_t sc_float_to_f8e5m2(float f) { return (uint8_t)sc_hd_float_to_mini(SC_F8E5M2, f); }
float sc_bf16_to_float(uint16_t h) { return sc_hd_mini_to_float(SC_BF16, h); }
uint16_t sc_float_to_bf16(float f) { return (uint16_t)sc_hd_float_to_mini(SC_BF16, f); }

#define RED_LOOP(T, OPEXPR)                                                    \
	do {                                                                   \
		T *a_ = (T *)acc;                                              \
		const T *b_ = (const T *)in;                                   \
		for (size_t i_ = 0; i_ < count; i_++) {                        \
			T x = a_[i_], y = b_[i_];                              \
			a_[i_] = (T)(OPEXPR);                                  \
		}                                                              \
	} while (0)

/* The four ops on T, a sum and a product given as expressions of x, y. */
#define RED_OPS(T, SUM, PROD)                                                  \
	do {                                                                   \
		switch (op) {                                                  \
		case SC_SUM: RED_LOOP(T, SUM); break;                          \
		case SC_PROD: RED_LOOP(T, PROD); break;                        \
		case SC_MAX: RED_LOOP(T, x > y ? x : y); break;                \
		case SC_MIN: RED_LOOP(T, x < y ? x : y); break;                \
		default: break;                                                \
		}                                                              \
	} while (0)
/* Integers: sums and products wrap in UT. */
#define RED_TYPED(T, UT) RED_OPS(T, (UT)x + (UT)y, (UT)x * (UT)y)
/* Floats: one NaN rule on every backend (sc_hd_nan_f, sc_hd_nan_d). */
#define RED_FLOAT(T, NAN) RED_OPS(T, NAN(x, y, x + y), NAN(x, y, x * y))

/* A minifloat reduction in float, rounded back per element: one loop per
 * format and op, so the format's constants (bias, largest value) fold. */
#define RED_MINI_OP(T, DEC, ENC)                                               \
	do {                                                                   \
		T *a_ = (T *)acc;                                              \
		const T *b_ = (const T *)in;                                   \
		switch (op) {                                                  \
		case SC_SUM: RED_MINI_LOOP(T, DEC, ENC, sc_hd_nan_f(x, y, x + y)); break; \
		case SC_PROD: RED_MINI_LOOP(T, DEC, ENC, sc_hd_nan_f(x, y, x * y)); break; \
		case SC_MAX: RED_MINI_LOOP(T, DEC, ENC, x > y ? x : y); break; \
		default: RED_MINI_LOOP(T, DEC, ENC, x < y ? x : y); break;     \
		}                                                              \
	} while (0)
#define RED_MINI_LOOP(T, DEC, ENC, OPEXPR)                                     \
	for (size_t i_ = 0; i_ < count; i_++) {                                \
		const float x = DEC(a_[i_]), y = DEC(b_[i_]);                  \
		a_[i_] = (T)ENC(OPEXPR);                                       \
	}
#define DEC_F16(v) sc_hd_mini_decode((v), 5, 10, 0)
#define ENC_F16(f) sc_hd_mini_encode((f), 5, 10, 0)
#define DEC_E4M3(v) sc_hd_mini_decode((v), 4, 3, 1)
#define ENC_E4M3(f) sc_hd_mini_encode((f), 4, 3, 1)
#define DEC_E5M2(v) sc_hd_mini_decode((v), 5, 2, 0)
#define ENC_E5M2(f) sc_hd_mini_encode((f), 5, 2, 0)

void sc_reduce(enum sc_dtype dt, enum sc_redop op, void *acc, const void *in,
	       size_t count)
{
	/* Unsigned wrap-around is defined; signed small-integer sums stay in
	 * range by construction of sc_small_int. */
	switch (dt) {
	case SC_I8: RED_TYPED(int8_t, unsigned); break;
	case SC_U8: RED_TYPED(uint8_t, unsigned); break;
	case SC_I32: RED_TYPED(int32_t, uint32_t); break;
	case SC_U32: RED_TYPED(uint32_t, uint32_t); break;
	case SC_I64: RED_TYPED(int64_t, uint64_t); break;
	case SC_U64: RED_TYPED(uint64_t, uint64_t); break;
	case SC_F32: RED_FLOAT(float, sc_hd_nan_f); break;
	case SC_F64: RED_FLOAT(double, sc_hd_nan_d); break;
	case SC_F16: RED_MINI_OP(uint16_t, DEC_F16, ENC_F16); break;
	case SC_BF16: RED_MINI_OP(uint16_t, sc_hd_bf16_to_float, sc_hd_float_to_bf16); break;
	case SC_F8E4M3: RED_MINI_OP(uint8_t, DEC_E4M3, ENC_E4M3); break;
	case SC_F8E5M2: RED_MINI_OP(uint8_t, DEC_E5M2, ENC_E5M2); break;
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
		snprintf(buf, n, "0x%08x (%g)", (unsigned)bits, (double)sc_hd_u2f((uint32_t)bits));
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
