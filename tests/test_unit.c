/* Unit tests: expressions, dtype encodings, ATen view rules, and every
 * step against hand-computed results (provenance runs on the sim backend,
 * where each element is its global index). */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "sc_check.h"
#include "sc_coro.h"
#include "sc_hd.h"
#include "sc_hd_dtype.h"
#include "sc_sandbox.h"
#include "sc_suggest.h"
#include "sc_test.h"

static struct sc_spec spec;

static int64_t ev(const char *expr, int64_t s, int64_t P, enum sc_status *st)
{
	char text[512];
	snprintf(text, sizeof text, "dims s\ninput replicate\noutput replicate\nreshape [%s]\n", expr);
	struct sc_err e;
	if (sc_spec_parse(text, "t.sc", &spec, &e) != SC_OK) {
		*st = SC_E_SPEC;
		return 0;
	}
	int64_t sizes[1] = {s}, v = 0;
	*st = sc_expr_eval(&spec, spec.steps[0].args[0], sizes, P, &v, &e);
	return v;
}

static void test_expr(void)
{
	enum sc_status st;
	T_CHECK(ev("s/P", 8, 2, &st) == 4 && st == SC_OK, "8/2");
	ev("s/P", 7, 2, &st);
	T_CHECK(st == SC_E_RUNTIME, "inexact / is an error");
	T_CHECK(ev("s//P", 7, 2, &st) == 3, "7//2");
	T_CHECK(ev("-s//P", 7, 2, &st) == -4, "floor of -3.5 is -4 (Python)");
	T_CHECK(ev("-s%P", 7, 2, &st) == 1, "-7 %% 2 == 1 (Python)");
	T_CHECK(ev("s%(0-P)", 7, 2, &st) == -1, "7 %% -2 == -1 (Python)");
	T_CHECK(ev("(s+1)*P-3", 4, 3, &st) == 12, "precedence");
	T_CHECK(ev("2*3+4*5", 1, 1, &st) == 26, "precedence 2");
	ev("s*9223372036854775807", 2, 1, &st);
	T_CHECK(st == SC_E_RUNTIME, "overflow is checked");
	ev("s//(P-P)", 2, 1, &st);
	T_CHECK(st == SC_E_RUNTIME, "division by zero");
	/* language 2: functions, conditionals, conditions (Python's values) */
	T_CHECK(ev("cdiv(s, P)", 7, 2, &st) == 4 && st == SC_OK, "cdiv(7, 2) == 4");
	T_CHECK(ev("cdiv(s, P)", 8, 2, &st) == 4, "cdiv(8, 2) == 4");
	T_CHECK(ev("cdiv(-s, P)", 7, 2, &st) == -3, "cdiv(-7, 2) == -3 (ceil)");
	T_CHECK(ev("cdiv(0, P)", 7, 2, &st) == 0, "cdiv(0, 2) == 0");
	ev("cdiv(s, P - P)", 7, 2, &st);
	T_CHECK(st == SC_E_RUNTIME, "cdiv by zero");
	T_CHECK(ev("min(s, P) + max(s, P)", 7, 2, &st) == 9, "min + max");
	T_CHECK(ev("s if s > P else P", 7, 2, &st) == 7, "if true");
	T_CHECK(ev("s if s < P else P", 7, 2, &st) == 2, "if false");
	T_CHECK(ev("1 if s > 9 or P == 2 else 0", 7, 2, &st) == 1, "or");
	T_CHECK(ev("1 if not s > 9 and P == 2 else 0", 7, 2, &st) == 1, "not binds tighter than and");
	T_CHECK(ev("1 if s > 1 or s > 2 and s > 99 else 0", 7, 2, &st) == 1, "and binds tighter than or");
	T_CHECK(ev("1 if P else 0", 7, 2, &st) == 0 && st == SC_E_SPEC, "a number is not a condition");
	T_CHECK(ev("2 * (s if P > 1 else 0) + 1", 7, 2, &st) == 15, "parenthesised conditional");
	T_CHECK(ev("s // P if s % P == 0 else s // P + 1", 7, 2, &st) == 4, "conditional of arithmetic");
	ev("s if P > 1 else 1 // 0", 7, 2, &st);
	T_CHECK(st == SC_OK, "the branch not taken is not evaluated");
	ev("rank + 1", 7, 2, &st);
	T_CHECK(st == SC_E_RUNTIME, "rank has no value in a global evaluation");
	/* sum(E for j in LO..HI): Python's sum over range(LO, HI + 1) */
	T_CHECK(ev("sum(j for j in 0..s)", 4, 2, &st) == 10 && st == SC_OK, "sum(j for j in 0..4) == 10");
	T_CHECK(ev("sum(s for j in 1..P)", 4, 3, &st) == 12, "a term without the index");
	T_CHECK(ev("sum(j*j for j in P..s)", 4, 2, &st) == 29, "sum of squares 2..4 == 29");
	T_CHECK(ev("sum(j for j in s..P)", 4, 2, &st) == 0 && st == SC_OK, "an empty range sums to 0");
	T_CHECK(ev("sum(min(j, P) for j in 0..s-1) + 1", 4, 2, &st) == 6, "a sum inside arithmetic");
	ev("sum(j for j in 0..9223372036854775807)", 4, 2, &st);
	T_CHECK(st == SC_E_RUNTIME, "a sum of too many terms is an error");
	/* sums inside sums: an inner range may read the outer index; a name
	 * is the innermost sum's (Python's scope of a comprehension) */
	T_CHECK(ev("sum(sum(1 for j in 0..q) for q in 0..s-1)", 4, 2, &st) == 10 && st == SC_OK,
		"sum of 1..4 as nested sums == 10");
	T_CHECK(ev("sum(sum(q for q in 0..q) for q in 0..P)", 4, 2, &st) == 4 && st == SC_OK,
		"the inner q hides the outer one, the inner range reads the outer: 0 + 1 + 3");
	T_CHECK(ev("sum(sum(sum(sum(a+b+c+d for d in 0..1) for c in 0..1) for b in 0..1) for a in 0..1)", 1, 1, &st) ==
			32 && st == SC_OK,
		"four deep: 16 terms of mean 2 == 32");
	ev("sum(sum(sum(sum(sum(1 for e in 0..1) for d in 0..1) for c in 0..1) for b in 0..1) for a in 0..1)", 1, 1,
	   &st);
	T_CHECK(st == SC_E_SPEC, "five deep is refused");
	ev("sum(sum(1 for j in 0..1048575) for q in 0..1)", 1, 1, &st);
	T_CHECK(st == SC_E_RUNTIME, "nested sums share one bound on their terms");
	/* text: written back and read again, the same value */
	static const char *const texts[] = {"cdiv(s, P) * 2 - (s - 1)", "s - (P - 1)", "-(s + 1) // P",
					    "s if s > 1 and not P == 3 else -s", "(s if P > 1 else 2) * 3",
					    "max(s, 1) % (P + 1)", "sum(j * 2 for j in 1..s - 1) // P",
					    "sum(sum(q + j for j in q..s) for q in 0..P)"};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		int64_t want = ev(texts[i], 7, 3, &st);
		char back[160];
		sc_expr_format(&spec, spec.steps[0].args[0], back, sizeof back);
		int64_t got = ev(back, 7, 3, &st);
		T_CHECK(st == SC_OK && got == want, "'%s' written as '%s': %lld vs %lld", texts[i], back,
			(long long)want, (long long)got);
	}
}

static void test_dtype(void)
{
	/* bijective low bits: 256 indices, 256 distinct i8 values */
	unsigned char seen[256] = {0};
	int distinct = 0;
	for (uint64_t g = 0; g < 256; g++) {
		uint64_t v = sc_value_bits(SC_I8, 42, g);
		T_CHECK(v < 256, "i8 value fits");
		if (!seen[v]++)
			distinct++;
	}
	T_CHECK(distinct == 256, "i8 encoding is a bijection on 256 indices (%d)", distinct);
	/* 16-bit: 65536 distinct */
	unsigned char *s16 = calloc(65536, 1);
	int d16 = 0;
	for (uint64_t g = 0; g < 65536; g++)
		if (!s16[sc_value_bits(SC_F16, 7, g)]++)
			d16++;
	free(s16);
	T_CHECK(d16 == 65536, "f16 encoding is a bijection on 65536 indices (%d)", d16);
	T_CHECK(sc_value_bits(SC_I32, 1, 5) != sc_value_bits(SC_I32, 2, 5), "seed changes values");
	/* conversions */
	T_CHECK(sc_float_to_f16(1.0f) == 0x3c00, "f16 1.0");
	T_CHECK(sc_float_to_f16(-2.0f) == 0xc000, "f16 -2.0");
	T_CHECK(sc_f16_to_float(0x0001) > 0 && sc_f16_to_float(0x0001) < 1e-7f, "f16 subnormal");
	T_CHECK(sc_float_to_bf16(1.0f) == 0x3f80, "bf16 1.0");
	T_CHECK(sc_float_to_f8e4m3(1.0f) == 0x38, "e4m3 1.0");
	T_CHECK(sc_float_to_f8e5m2(1.0f) == 0x3c, "e5m2 1.0");
	T_CHECK(sc_f8e4m3_to_float(0x7e) == 448.0f, "e4m3 max 448");
	T_CHECK(sc_f8e4m3_to_float(0x7f) != sc_f8e4m3_to_float(0x7f), "e4m3 0x7f is NaN");
	for (int v = -8; v <= 8; v++) {
		uint64_t b = sc_int_to_bits(SC_F8E5M2, v);
		T_CHECK(sc_f8e5m2_to_float((uint8_t)b) == (float)v, "e5m2 exact small int %d", v);
		b = sc_int_to_bits(SC_BF16, v);
		T_CHECK(sc_bf16_to_float((uint16_t)b) == (float)v, "bf16 exact small int %d", v);
	}
	/* every code of the 8- and 16-bit floats round-trips, and rounding any
	 * value (tiny ones included) errs by at most u|x| + half a subnormal */
	int rt_bad = 0, rd_bad = 0;
	for (unsigned v = 0; v < 65536; v++) {
		float f = sc_f16_to_float((uint16_t)v);
		if (f == f && sc_float_to_f16(f) != v)
			rt_bad++;
		f = sc_bf16_to_float((uint16_t)v);
		if (f == f && sc_float_to_bf16(f) != v)
			rt_bad++;
		if (v < 256) {
			f = sc_f8e4m3_to_float((uint8_t)v);
			if (f == f && sc_float_to_f8e4m3(f) != v)
				rt_bad++;
			f = sc_f8e5m2_to_float((uint8_t)v);
			if (f == f && sc_float_to_f8e5m2(f) != v)
				rt_bad++;
		}
	}
	T_CHECK(rt_bad == 0, "%d minifloat codes do not round-trip", rt_bad);
	for (double x = -300; x < 300; x += 0.0137) {
		for (double sc = 1; sc > 1e-6; sc /= 97) {
			const double y = x * sc;
			const double e4 = sc_f8e4m3_to_float(sc_float_to_f8e4m3((float)y));
			const double e5 = sc_f8e5m2_to_float(sc_float_to_f8e5m2((float)y));
			const double h = sc_f16_to_float(sc_float_to_f16((float)y));
			rd_bad += fabs(e4 - y) > fabs(y) / 16 + 1.0 / 1024 + 1e-12;
			rd_bad += fabs(e5 - y) > fabs(y) / 8 + 1.0 / 131072 + 1e-12;
			rd_bad += fabs(h - y) > fabs(y) / 2048 + 1.0 / 33554432 + 1e-12;
		}
	}
	T_CHECK(rd_bad == 0, "%d roundings err by more than u|x| + half a subnormal", rd_bad);
	/* exact small-integer reductions in every dtype */
	for (int dt = 0; dt < SC_NDTYPES; dt++) {
		uint64_t a = sc_int_to_bits((enum sc_dtype)dt, 3), b = sc_int_to_bits((enum sc_dtype)dt, 4);
		sc_reduce((enum sc_dtype)dt, SC_SUM, &a, &b, 1);
		T_CHECK(a == sc_int_to_bits((enum sc_dtype)dt, 7), "3+4 in %s", sc_dtype_name((enum sc_dtype)dt));
	}
}

/* The minifloat encoder against the textbook rounding it replaced (scale
 * to the exponent's spacing, nearbyintf, scale back): every float whose
 * low 9 bits are a fixed pattern (2^23 of them, all exponents and signs,
 * NaNs and infinities included), for f16, e4m3fn and e5m2. */
static uint32_t ref_mini_encode(float f, int e, int m, int fn)
{
	const int bias = (1 << (e - 1)) - 1;
	const uint32_t sign = (sc_hd_f2u(f) >> 31) << (e + m);
	const uint32_t all = (1u << (e + m)) - 1;
	if (f != f)
		return sign | all | (fn ? 0 : (1u << (m - 1)));
	const float a = fabsf(f);
	const float maxf = fn ? sc_hd_mini_decode(all - 1, e, m, fn)
			      : sc_hd_mini_decode(((1u << e) - 2) << m | ((1u << m) - 1), e, m, 0);
	if (a == 0.0f)
		return sign;
	int ex;
	frexpf(a, &ex);
	const int unb = ex - 1 < 1 - bias ? 1 - bias : ex - 1;
	const float q = ldexpf(1.0f, unb - m);
	const float r = nearbyintf(a / q) * q;
	if (r == 0.0f)
		return sign;
	if (r > maxf)
		return fn ? sign | all : sign | (((1u << e) - 1) << m);
	frexpf(r, &ex);
	if (ex - 1 < 1 - bias)
		return sign | (uint32_t)(r / ldexpf(1.0f, 1 - bias - m));
	return sign | ((uint32_t)(ex - 1 + bias) << m) | ((uint32_t)(r / ldexpf(1.0f, ex - 1 - m)) - (1u << m));
}

static void test_mini_encode(void)
{
	const int fmt[3][3] = {{5, 10, 0}, {4, 3, 1}, {5, 2, 0}};
	long bad = 0;
	for (int k = 0; k < 3; k++)
		for (uint32_t hi = 0; hi < (1u << 23); hi++) {
			const float f = sc_hd_u2f(hi << 9 | (hi & 1 ? 0x100u : 0x0ffu & (hi * 37u)));
			bad += sc_hd_mini_encode(f, fmt[k][0], fmt[k][1], fmt[k][2]) !=
			       ref_mini_encode(f, fmt[k][0], fmt[k][1], fmt[k][2]);
		}
	T_CHECK(bad == 0, "%ld minifloat encodings differ from the reference rounding", bad);
	/* the decoder (bits placed where a float's go, scaled) against the
	 * textbook value man * 2^(ex - bias - m), on every bit pattern */
	bad = 0;
	for (int k = 0; k < 3; k++) {
		const int e = fmt[k][0], m = fmt[k][1], fn = fmt[k][2], bias = (1 << (e - 1)) - 1;
		for (uint32_t v = 0; v < (1u << (e + m + 1)); v++) {
			const uint32_t ex = (v >> m) & ((1u << e) - 1), man = v & ((1u << m) - 1);
			float want;
			if (ex == (1u << e) - 1 && (fn ? man == (1u << m) - 1 : 1))
				want = sc_hd_u2f(fn || man ? 0x7fc00000u : 0x7f800000u);
			else
				want = ldexpf((float)(ex ? man | (1u << m) : man), (ex ? (int)ex : 1) - bias - m);
			if (v >> (e + m))
				want = -want;
			bad += sc_hd_f2u(sc_hd_mini_decode(v, e, m, fn)) != sc_hd_f2u(want);
		}
	}
	T_CHECK(bad == 0, "%ld minifloat decodings differ from the textbook value", bad);
}

/* The REDUCED fill (integers reduced exactly where dt holds every partial
 * result) against the reduction rank by rank in dt's own arithmetic, for
 * every dtype, op and world; and the values cache against the plain
 * encoding across 2^w boundaries. A wrong exactness bound (e5m2 sums past
 * 8, bf16 past 256, i8 past 127) differs here. */
static void test_reduced_fill(void)
{
	int bad = 0, checked = 0;
	for (int dt = 0; dt < SC_NDTYPES; dt++)
		for (int op = 0; op < SC_NREDOPS; op++)
			for (int world = 1; world <= SC_MAX_WORLD; world += world < 20 ? 1 : 17) {
				struct sc_hd_fill f;
				memset(&f, 0, sizeof f);
				f.mode = SC_FILL_REDUCED;
				f.dtype = dt;
				f.op = op;
				f.world = world;
				for (uint64_t g = 0; g < 200; g++) {
					f.seed = 1000003 * g + (uint64_t)world;
					uint64_t acc = sc_hd_int_to_bits(dt, sc_hd_small_int(dt, op, f.seed, 0, g));
					for (int r = 1; r < world; r++)
						acc = sc_hd_reduce1(dt, op, acc,
								    sc_hd_int_to_bits(dt, sc_hd_small_int(dt, op, f.seed, r, g)));
					bad += sc_hd_fill_bits(&f, g) != acc;
					checked++;
				}
			}
	T_CHECK(bad == 0, "%d of %d reduced fills differ from the rank-by-rank reduction", bad, checked);
	/* SMALL fills from the precomputed table, against each integer converted */
	bad = 0;
	for (int dt = 0; dt < SC_NDTYPES; dt++)
		for (int op = 0; op < SC_NREDOPS; op++)
			for (int rank = -1; rank < 9; rank++) {
				struct sc_hd_small sm;
				sc_hd_small_init(&sm, dt, op, 1234567 + (uint64_t)rank, rank);
				for (uint64_t g = 0; g < 500; g++)
					bad += sc_hd_small_bits(&sm, g) !=
					       sc_hd_int_to_bits(dt, sc_hd_small_int(dt, op, 1234567 + (uint64_t)rank, rank, g));
			}
	T_CHECK(bad == 0, "%d small-integer fills differ from the integers converted", bad);
	/* sc_reduce's loops per dtype and op against the one-element reduction,
	 * on every bit pattern of the 8-bit formats and random ones of the rest
	 * (NaNs, infinities and subnormals among them) */
	bad = 0;
	uint64_t st = 99;
	for (int dt = 0; dt < SC_NDTYPES; dt++)
		for (int op = 0; op < SC_NREDOPS; op++) {
			uint64_t a[512], b[512], want[512];
			const unsigned es = sc_hd_dtype_size(dt);
			unsigned char pa[512 * 8], pb[512 * 8];
			for (int i = 0; i < 512; i++) {
				a[i] = es == 1 ? (uint64_t)(i & 255) : sc_mix_next(&st);
				b[i] = es == 1 ? (uint64_t)((i * 37 + (i >> 8)) & 255) : sc_mix_next(&st);
				a[i] &= es == 8 ? ~0ULL : (1ULL << (8 * es)) - 1;
				b[i] &= es == 8 ? ~0ULL : (1ULL << (8 * es)) - 1;
				want[i] = sc_hd_reduce1(dt, op, a[i], b[i]);
				sc_store_bits(pa + (size_t)i * es, es, a[i]);
				sc_store_bits(pb + (size_t)i * es, es, b[i]);
			}
			sc_reduce((enum sc_dtype)dt, (enum sc_redop)op, pa, pb, 512);
			for (int i = 0; i < 512; i++)
				bad += sc_load_bits(pa + (size_t)i * es, es) != want[i];
		}
	T_CHECK(bad == 0, "%d elements of sc_reduce differ from the one-element reduction", bad);
	/* the NaN rule every backend reduces by: the first NaN operand quieted,
	 * else the default NaN (a GPU's canonical 0x7fffffff would differ) */
	const uint32_t snan = 0x7f800123u, qnan = 0xffc00456u, one = 0x3f800000u;
	T_CHECK(sc_hd_reduce1(SC_F32, SC_SUM, snan, one) == (snan | 0x400000u) &&
			sc_hd_reduce1(SC_F32, SC_SUM, one, qnan) == qnan &&
			sc_hd_reduce1(SC_F32, SC_PROD, qnan, snan) == qnan &&
			sc_hd_reduce1(SC_F32, SC_SUM, 0x7f800000u, 0xff800000u) == 0xffc00000u &&
			sc_hd_reduce1(SC_F64, SC_PROD, 0x7ff0000000000000ull, 0) == 0xfff8000000000000ull &&
			sc_hd_reduce1(SC_F64, SC_SUM, 1, 0x7ff0000000000009ull) == 0x7ff8000000000009ull,
		"float sums and products with NaNs follow the one NaN rule");
	bad = 0;
	for (unsigned w = 8; w <= 64; w *= 2) {
		struct sc_hd_values v = sc_hd_values_of(77);
		const uint64_t starts[] = {0, 250, 65530, (1ULL << 32) - 3, 5};
		for (int i = 0; i < 5; i++)
			for (uint64_t g = starts[i]; g < starts[i] + 600; g++)
				bad += sc_hd_values_bits(&v, w, g) != sc_hd_value_bits(w / 8, 77, g);
	}
	T_CHECK(bad == 0, "%d cached value encodings differ", bad);
}

/* Run-wise iteration visits the same offsets as the element odometer,
 * for merged, unmerged, broadcast and empty views. */
static void test_iter_runs(void)
{
	const struct {
		int nd;
		int64_t shape[4], stride[4];
	} views[] = {
		{3, {2, 3, 4}, {12, 4, 1}}, {3, {3, 2, 4}, {4, 12, 1}}, {4, {2, 1, 3, 2}, {6, 6, 2, 1}},
		{2, {4, 5}, {0, 1}},        {2, {3, 0}, {0, 1}},        {0, {0}, {0}},
		{2, {1, 1}, {1, 1}},        {3, {2, 2, 2}, {1, 2, 4}},
	};
	int bad = 0;
	for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
		struct sc_iter e, r;
		sc_iter_init(&e, views[v].shape, views[v].stride, views[v].nd, 7);
		sc_iter_init_runs(&r, views[v].shape, views[v].stride, views[v].nd, 7);
		const int64_t n = sc_shape_numel(views[v].shape, views[v].nd);
		for (int64_t k = 0; k < n;) {
			const int64_t len = sc_iter_run(&r);
			bad += len < 1;
			for (int64_t j = 0; j < len && len > 0; j++, k++) {
				int64_t idx[SC_MAX_DIMS];
				sc_shape_unravel(views[v].shape, views[v].nd, k, idx);
				for (int d = 0; d < views[v].nd; d++)
					bad += idx[d] != e.idx[d];
				bad += r.off + j * sc_iter_step(&r) != e.off;
				sc_iter_next(&e);
			}
			if (len < 1)
				break;
			sc_iter_skip(&r, len);
		}
	}
	T_CHECK(bad == 0, "%d run-wise offsets or indices differ from the odometer's", bad);
}

static void test_views(void)
{
	struct sc_arena a;
	sc_arena_init(&a);
	struct sc_tensor t;
	int64_t shape[3] = {2, 3, 4}, ns[SC_MAX_DIMS], nst[SC_MAX_DIMS];
	sc_tensor_empty(&a, shape, 3, 4, &t, NULL);
	T_CHECK(sc_tensor_is_contig(&t), "fresh tensor is contiguous");
	/* transpose(0, 1): [3, 2, 4] strides [4, 12, 1] */
	struct sc_tensor tt = t;
	tt.shape[0] = 3; tt.shape[1] = 2; tt.stride[0] = 4; tt.stride[1] = 12;
	T_CHECK(!sc_tensor_is_contig(&tt), "transposed is not contiguous");
	ns[0] = 6; ns[1] = 4;
	T_CHECK(!sc_view_strides(&tt, ns, 2, nst), "view [6, 4] of transposed fails (spans subspaces)");
	ns[0] = 3; ns[1] = 8;
	T_CHECK(sc_view_strides(&tt, ns, 2, nst) == 0, "view [3, 8] of transposed fails");
	ns[0] = 3; ns[1] = 2; ns[2] = 2; ns[3] = 2;
	T_CHECK(sc_view_strides(&tt, ns, 4, nst) && nst[2] == 2 && nst[3] == 1, "split last dim is a view");
	ns[0] = 3; ns[1] = 2; ns[2] = 4;
	T_CHECK(sc_view_strides(&tt, ns, 3, nst) && nst[0] == 4 && nst[1] == 12, "same shape keeps strides");
	/* size-1 dims' strides do not count */
	struct sc_tensor u = t;
	u.shape[0] = 1; u.stride[0] = 999;
	T_CHECK(sc_tensor_is_contig(&u), "size-1 dim stride ignored");
	/* channels-last strides of [2, 3, 4, 5] permuted from NHWC */
	struct sc_tensor cl = t;
	cl.ndim = 4;
	cl.shape[0] = 2; cl.shape[1] = 3; cl.shape[2] = 4; cl.shape[3] = 5;
	cl.stride[0] = 60; cl.stride[1] = 1; cl.stride[2] = 15; cl.stride[3] = 3;
	T_CHECK(sc_tensor_suggest_format(&cl) == 1, "channels_last detected");
	sc_arena_free(&a);
}

/* Runs a spec in provenance mode on P ranks; returns global indices of
 * rank r's output in row-major order (and its shape in *shape_out). */
static struct sc_ctx *ctx;
static enum sc_status run_prov(const char *text, int P, const int64_t *sizes, int r, uint64_t *out,
			       int64_t *shape_out, int *nd_out, char *msg)
{
	struct sc_spec *s = malloc(sizeof *s);
	struct sc_err e;
	if (sc_spec_parse(text, "step.sc", s, &e) != SC_OK) {
		snprintf(msg, 256, "%.200s", e.msg);
		free(s);
		return SC_E_SPEC;
	}
	struct sc_target t;
	sc_target_from_spec(&t, s);
	struct sc_case c;
	memset(&c, 0, sizeof c);
	c.world = P;
	c.ndims = s->ndims;
	memcpy(c.sizes, sizes, sizeof(int64_t) * (size_t)s->ndims);
	sc_ctx_begin(ctx, 1, 0);
	enum sc_status st = sc_verify_run(&t, &c, &ctx->x, NULL, &e);
	if (st == SC_OK) {
		struct sc_tensor *o = &ctx->x.t[r];
		struct sc_iter it;
		sc_iter_init(&it, o->shape, o->stride, o->ndim, o->offset);
		for (int64_t k = 0; k < sc_tensor_numel(o); k++) {
			out[k] = sc_load_bits(o->buf->data + (size_t)it.off * 8, 8);
			sc_iter_next(&it);
		}
		memcpy(shape_out, o->shape, sizeof(int64_t) * (size_t)o->ndim);
		*nd_out = o->ndim;
	} else {
		snprintf(msg, 256, "%.200s", e.msg);
	}
	sc_target_free(&t);
	return st;
}

#define HDR2 "dims a b\ninput replicate\noutput replicate\n"

static void expect_idx(const char *steps, int P, int64_t a, int64_t b, int r, const uint64_t *want,
		       int n, const char *what)
{
	char text[1024];
	snprintf(text, sizeof text, HDR2 "%s", steps);
	uint64_t got[256];
	int64_t shape[8];
	int nd;
	char msg[256] = "";
	int64_t sizes[2] = {a, b};
	enum sc_status st = run_prov(text, P, sizes, r, got, shape, &nd, msg);
	T_CHECK(st == SC_OK, "%s: %s", what, msg);
	if (st != SC_OK)
		return;
	int same = 1;
	for (int i = 0; i < n; i++)
		same &= got[i] == want[i];
	T_CHECK(same, "%s: element order differs", what);
}

static void expect_err(const char *steps, int P, int64_t a, int64_t b, const char *needle)
{
	char text[1024];
	snprintf(text, sizeof text, HDR2 "%s", steps);
	uint64_t got[4096];
	int64_t shape[8];
	int nd;
	char msg[256] = "";
	int64_t sizes[2] = {a, b};
	enum sc_status st = run_prov(text, P, sizes, 0, got, shape, &nd, msg);
	T_CHECK(st == SC_E_RUNTIME && strstr(msg, needle), "expected runtime error '%s', got '%s'", needle, msg);
}

static void test_steps(void)
{
	/* X = [[0,1,2],[3,4,5]] (a=2, b=3) */
	expect_idx("transpose 0 1\ncontiguous\n", 1, 2, 3, 0, (uint64_t[]){0, 3, 1, 4, 2, 5}, 6, "transpose");
	expect_idx("transpose -1 -2\n", 1, 2, 3, 0, (uint64_t[]){0, 3, 1, 4, 2, 5}, 6, "negative dims");
	expect_idx("permute 1 0\n", 1, 2, 3, 0, (uint64_t[]){0, 3, 1, 4, 2, 5}, 6, "permute");
	expect_idx("movedim 1 0\n", 1, 2, 3, 0, (uint64_t[]){0, 3, 1, 4, 2, 5}, 6, "movedim");
	expect_idx("reshape [3, -1]\n", 1, 2, 3, 0, (uint64_t[]){0, 1, 2, 3, 4, 5}, 6, "reshape -1");
	expect_idx("transpose 0 1\nreshape [6]\n", 1, 2, 3, 0, (uint64_t[]){0, 3, 1, 4, 2, 5}, 6, "reshape copies a transposed tensor");
	expect_idx("flatten 0 1\n", 1, 2, 3, 0, (uint64_t[]){0, 1, 2, 3, 4, 5}, 6, "flatten");
	expect_idx("unsqueeze 1\nsqueeze 1\nsqueeze 0\n", 1, 2, 3, 0, (uint64_t[]){0, 1, 2, 3, 4, 5}, 6, "unsqueeze/squeeze");
	/* chunk_cat chunk=1 cat=0 with P=3 on [2, 3]: chunks [2,1] x3 -> [6, 1] */
	expect_idx("chunk_cat chunk=1 cat=0\n", 3, 2, 3, 0, (uint64_t[]){0, 3, 1, 4, 2, 5}, 6, "chunk_cat");
	/* all_gather_into_tensor of replicated X on 2 ranks: X twice */
	expect_idx("all_gather_into_tensor\n", 2, 2, 3, 1, (uint64_t[]){0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}, 12, "all_gather_into_tensor");
	/* all_to_all_single of replicated X [2,3] on 2 ranks: rank 1 gets row 1 twice */
	expect_idx("all_to_all_single\n", 2, 2, 3, 1, (uint64_t[]){3, 4, 5, 3, 4, 5}, 6, "all_to_all_single");
	/* list all_to_all split=1 concat=0 on [2, 2], P=2: rank 0 gets column 0 of each */
	expect_idx("all_to_all split=1 concat=0\n", 2, 2, 2, 0, (uint64_t[]){0, 2, 0, 2}, 4, "list all_to_all");
	expect_idx("all_gather dim=1\n", 2, 2, 2, 0, (uint64_t[]){0, 1, 0, 1, 2, 3, 2, 3}, 8, "list all_gather");
	/* raw: the transposed view's memory read in storage order */
	expect_idx("transpose 0 1\nall_gather_into_tensor raw\n", 1, 2, 3, 0, (uint64_t[]){0, 1, 2, 3, 4, 5}, 6, "raw reads storage order");

	expect_idx("view [6]\n", 1, 2, 3, 0, (uint64_t[]){0, 1, 2, 3, 4, 5}, 6, "view of contiguous");
	expect_err("transpose 0 1\nview [6]\n", 1, 2, 3, "view size is not compatible");
	expect_err("reshape [4, -1]\n", 1, 2, 3, "is invalid for input of size 6");
	expect_err("reshape [-1, -1]\n", 1, 2, 3, "only one dimension can be inferred");
	expect_err("transpose 0 2\n", 1, 2, 3, "Dimension out of range");
	expect_err("permute 0\n", 1, 2, 3, "does not match the length");
	expect_err("permute 0 0\n", 1, 2, 3, "duplicate dims");
	expect_err("flatten 1 0\n", 1, 2, 3, "start_dim cannot come after end_dim");
	expect_err("transpose 0 1\nall_to_all_single\n", 1, 2, 3, "Tensors must be contiguous");
	expect_err("all_to_all_single\n", 2, 3, 3, "does not divide equally");
	expect_err("chunk_cat chunk=1 cat=0\n", 2, 2, 3, "Sizes of tensors must match");
	expect_err("all_to_all split=1 concat=0\n", 2, 2, 3, "not divisible by the world size");
}

/* The strided index map shared with the CUDA kernels: the offset of a
 * view's i-th element equals the CPU iterator's, before and after
 * coalescing, on random permuted, sliced and unsqueezed views. */
static void test_strided(void)
{
	uint64_t st = 99;
	int bad = 0, coalesced_fewer = 0;
	for (int trial = 0; trial < 2000; trial++) {
		int nd = 1 + (int)(sc_mix_next(&st) % 6);
		int64_t shape[8], cstr[8];
		for (int d = 0; d < nd; d++)
			shape[d] = 1 + (int64_t)(sc_mix_next(&st) % 5);
		sc_contig_strides(shape, nd, cstr);
		int perm[8];
		for (int d = 0; d < nd; d++)
			perm[d] = d;
		for (int d = nd - 1; d > 0; d--) {
			int j = (int)(sc_mix_next(&st) % (uint64_t)(d + 1)), t = perm[d];
			perm[d] = perm[j];
			perm[j] = t;
		}
		struct sc_strided m;
		m.ndim = nd;
		m.offset = (int64_t)(sc_mix_next(&st) % 7);
		for (int d = 0; d < nd; d++) {
			m.shape[d] = shape[perm[d]];
			m.stride[d] = cstr[perm[d]];
		}
		if (nd > 1 && sc_mix_next(&st) % 3 == 0 && m.shape[0] > 1) /* a slice */
			m.shape[0]--;
		struct sc_iter it;
		sc_iter_init(&it, m.shape, m.stride, m.ndim, m.offset);
		struct sc_strided c = m;
		sc_strided_coalesce(&c);
		coalesced_fewer += c.ndim < m.ndim;
		const int64_t n = sc_shape_numel(m.shape, m.ndim);
		for (int64_t i = 0; i < n; i++) {
			bad += sc_strided_offset(&m, i) != it.off;
			bad += sc_strided_offset(&c, i) != it.off;
			sc_iter_next(&it);
		}
	}
	T_CHECK(bad == 0, "%d strided offsets differ from the iterator", bad);
	T_CHECK(coalesced_fewer > 100, "coalescing merged dims in only %d views", coalesced_fewer);
	/* offsets past 2^31 */
	struct sc_strided big = {2, {3, (int64_t)1 << 32}, {(int64_t)1 << 32, 1}, 5};
	T_CHECK(sc_strided_offset(&big, ((int64_t)2 << 32) + 7) == ((int64_t)2 << 32) + 12, "64-bit offsets");
}

/* Coroutines: interleaving at yields, deep stacks, and each one's
 * floating-point rounding mode kept apart from the scheduler's. */
static char trail[64];
static int ntrail;

static void coro_abc(void *arg)
{
	const char c = *(const char *)arg;
	for (int i = 0; i < 3; i++) {
		trail[ntrail++] = (char)(c + i);
		sc_coro_yield();
	}
}

static void coro_round_up(void *arg)
{
	fesetround(FE_UPWARD);
	sc_coro_yield();
	volatile float one = 1.0f, tiny = 1e-8f;
	*(int *)arg = fegetround() == FE_UPWARD && one + tiny > 1.0f; /* 1.0f to nearest */
}

static void coro_deep(void *arg)
{
	volatile char big[1 << 20]; /* a MiB on its stack */
	memset((char *)big, 7, sizeof big);
	sc_coro_yield();
	*(int *)arg = big[0] + big[sizeof big - 1];
}

static void test_coro(void)
{
	struct sc_coro *co[3];
	struct sc_err e;
	for (int i = 0; i < 3; i++)
		T_CHECK(sc_coro_new((size_t)4 << 20, &co[i], &e) == SC_OK, "coroutine %d: %s", i, e.msg);
	static const char starts[3] = {'a', 'A', '0'};
	int done = 0;
	for (int i = 0; i < 3; i++)
		done += sc_coro_start(co[i], coro_abc, (void *)&starts[i]);
	while (done < 3)
		for (int i = 0; i < 3; i++)
			if (!sc_coro_resume(co[i]))
				continue;
			else if (++done == 3)
				break;
	trail[ntrail] = '\0';
	T_CHECK(strcmp(trail, "aA0bB1cC2") == 0, "round-robin interleaving (%s)", trail);
	int up = 0, deep = 0;
	T_CHECK(sc_coro_start(co[0], coro_round_up, &up) == 0, "yields");
	T_CHECK(fegetround() == FE_TONEAREST, "the scheduler keeps its rounding mode while a coroutine has another");
	T_CHECK(sc_coro_resume(co[0]) == 1 && up, "the coroutine keeps its own (FE_UPWARD)");
	T_CHECK(sc_coro_start(co[1], coro_deep, &deep) == 0 && sc_coro_resume(co[1]) == 1 && deep == 14,
		"a MiB of stack survives a yield (%d)", deep);
	T_CHECK(sc_coro_start(co[2], coro_abc, (void *)&starts[0]) == 0, "a finished coroutine starts anew");
	deep = 0; /* co[2] is left waiting at a yield: abandoned, then started anew */
	T_CHECK(sc_coro_start(co[2], coro_deep, &deep) == 0 && sc_coro_resume(co[2]) == 1 && deep == 14,
		"an abandoned coroutine starts anew (%d)", deep);
	for (int i = 0; i < 3; i++)
		sc_coro_free(co[i]);
}

/* "did you mean": slips of the keyboard are suggested, other words not */
static void test_suggest(void)
{
	T_CHECK(sc_suggest_distance("semantic", "semantics", 3) == 1, "one deletion");
	T_CHECK(sc_suggest_distance("trasnpose", "transpose", 3) == 1, "a swap of neighbours is one edit");
	T_CHECK(sc_suggest_distance("BF16", "bf16", 3) == 0, "case is ignored");
	T_CHECK(sc_suggest_distance("abcdef", "uvwxyz", 2) == 3, "capped at cap + 1");
	static const char *const names[] = {"semantics", "purity", "dtype", "determinism", "roundtrip"};
	struct sc_suggest s;
	char hint[96];
	sc_suggest_init(&s, "purty");
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		sc_suggest_add(&s, names[i]);
	T_CHECK(s.best && strcmp(s.best, "purity") == 0, "purty: purity (%s)", s.best ? s.best : "none");
	T_CHECK(strcmp(sc_suggest_hint(&s, hint, sizeof hint), " (did you mean 'purity'?)") == 0, "the hint (%s)", hint);
	sc_suggest_init(&s, "xyz");
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		sc_suggest_add(&s, names[i]);
	T_CHECK(!s.best && strcmp(sc_suggest_hint(&s, hint, sizeof hint), "") == 0, "xyz: nothing close");
	sc_suggest_init(&s, "dtyp");
	sc_suggest_add(&s, "dtypes");
	sc_suggest_add(&s, "dtype");
	T_CHECK(s.best && strcmp(s.best, "dtype") == 0, "the closest of two wins (%s)", s.best ? s.best : "none");
}

/* The pid namespace of the process that runs it, into *arg (shared). */
static int ns_of_child(void *arg)
{
	struct stat sb;
	*(unsigned long *)arg = stat("/proc/self/ns/pid", &sb) == 0 ? (unsigned long)sb.st_ino : 0;
	return 0;
}

/* A flat child (one that makes a CUDA context) stays in this process's pid
 * namespace; a plain one gets its own where the system allows. */
static void test_sandbox_flat(void)
{
	struct stat sb;
	if (stat("/proc/self/ns/pid", &sb) != 0)
		return;
	unsigned long *seen = mmap(NULL, sizeof *seen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	T_CHECK(seen != MAP_FAILED, "a shared page");
	if (seen == MAP_FAILED)
		return;
	for (int flat = 0; flat < 2; flat++) {
		const struct sc_sandbox_opts o = {10, 0, flat};
		struct sc_sandbox_result r;
		struct sc_err e;
		*seen = 0;
		T_CHECK(sc_sandbox_run(ns_of_child, seen, &o, &r, &e) == SC_OK && r.end == SC_SANDBOX_RETURNED && r.code == 0,
			"a %s child runs", flat ? "flat" : "plain");
		if (flat)
			T_CHECK(*seen == (unsigned long)sb.st_ino, "a flat child shares this pid namespace (%lu, %lu)", *seen,
				(unsigned long)sb.st_ino);
		else if (sc_sandbox_namespaces())
			T_CHECK(*seen && *seen != (unsigned long)sb.st_ino, "a plain child has a pid namespace of its own");
	}
	munmap(seen, sizeof *seen);
}

int main(void)
{
	struct sc_backend *be;
	sc_backend_sim_open(&be, NULL);
	ctx = sc_ctx_new(be, 0);
	test_expr();
	test_dtype();
	test_reduced_fill();
	test_mini_encode();
	test_iter_runs();
	test_views();
	test_steps();
	test_strided();
	test_coro();
	test_suggest();
	test_sandbox_flat();
	sc_ctx_free(ctx);
	sc_backend_close(be);
	T_DONE();
}
