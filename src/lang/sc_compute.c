/* sc_compute: reference and program evaluation with per-element bounds.
 *
 * Invariant: every pair tensor's v is exactly representable in its dtype
 * (program) or is a double (reference), and e >= |v - exact value of the
 * same program on the same inputs|, up to second-order terms the safety
 * factor covers. */
#include "sc_compute.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sc_layout.h"
#include "sc_mix.h"
#include "sc_step.h"

#define SAFETY 1.0001 /* covers second-order terms and double rounding in casts */

double sc_unit_roundoff(enum sc_dtype d)
{
	switch (d) {
	case SC_F64: return ldexp(1.0, -53);
	case SC_F32: return ldexp(1.0, -24);
	case SC_F16: return ldexp(1.0, -11);
	case SC_BF16: return ldexp(1.0, -8);
	case SC_F8E4M3: return ldexp(1.0, -4);
	case SC_F8E5M2: return ldexp(1.0, -3);
	default: return 0.5; /* integers are not compute dtypes */
	}
}

/* half the smallest subnormal: the absolute error of rounding near zero */
static double eta(enum sc_dtype d)
{
	switch (d) {
	case SC_F64: return ldexp(1.0, -1075);
	case SC_F32: return ldexp(1.0, -150);
	case SC_F16: return ldexp(1.0, -25);
	case SC_BF16: return ldexp(1.0, -134);
	case SC_F8E4M3: return ldexp(1.0, -10);
	case SC_F8E5M2: return ldexp(1.0, -17);
	default: return 0.5;
	}
}

static double rnd(enum sc_dtype d, double x)
{
	switch (d) {
	case SC_F64: return x;
	case SC_F32: return (double)(float)x;
	case SC_F16: return (double)sc_f16_to_float(sc_float_to_f16((float)x));
	case SC_BF16: return (double)sc_bf16_to_float(sc_float_to_bf16((float)x));
	case SC_F8E4M3: return (double)sc_f8e4m3_to_float(sc_float_to_f8e4m3((float)x));
	case SC_F8E5M2: return (double)sc_f8e5m2_to_float(sc_float_to_f8e5m2((float)x));
	default: return x;
	}
}

/* bound of one rounding to d of a value whose rounded result is v */
static double rbound(enum sc_dtype d, double v)
{
	const double u = sc_unit_roundoff(d);
	return SAFETY * (u / (1 - u) * fabs(v) + eta(d));
}

static double gamma_k(double k, double u)
{
	const double ku = k * u;
	return ku < 1 ? ku / (1 - ku) : INFINITY;
}

/* ---- per-op context ---- */

struct cx {
	int ref;            /* reference: exact f64 arithmetic */
	enum sc_dtype d;    /* result dtype */
	enum sc_dtype acc;  /* accumulation type */
	struct sc_arena *arena;
	struct sc_err *e;
	int line;
};

static double R(const struct cx *k, double x) { return k->ref ? x : rnd(k->d, x); }
static double RB(const struct cx *k, double v) { return rbound(k->ref ? SC_F64 : k->d, v); }
static double ACC(const struct cx *k, double x) { return k->ref ? x : rnd(k->acc, x); }
static double UACC(const struct cx *k) { return sc_unit_roundoff(k->ref ? SC_F64 : k->acc); }

static enum sc_status rt(const struct cx *k, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static enum sc_status rt(const struct cx *k, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return SC_ERR(k->e, SC_E_RUNTIME, "line %d: %s", k->line, msg);
}

static struct sc_pair *P_(const struct sc_tensor *t) { return (struct sc_pair *)(void *)t->buf->data + t->offset; }

/* A contiguous copy of t (or t itself when contiguous). */
static enum sc_status contig(const struct cx *k, const struct sc_tensor *t, struct sc_tensor *out)
{
	if (sc_tensor_is_contig(t)) {
		*out = *t;
		return SC_OK;
	}
	SC_CHECK(sc_tensor_empty(k->arena, t->shape, t->ndim, 16, out, k->e));
	sc_tensor_copy(out, t);
	return SC_OK;
}

static void shape_str(const struct sc_tensor *t, char *b, size_t n) { sc_shape_format(t->shape, t->ndim, b, n); }

/* add / mul with PyTorch broadcasting */
static enum sc_status binary(const struct cx *k, int mul, const struct sc_tensor *ta, const struct sc_tensor *tb,
			     struct sc_tensor *out)
{
	struct sc_tensor a, b;
	SC_CHECK(contig(k, ta, &a));
	SC_CHECK(contig(k, tb, &b));
	const int nd = a.ndim > b.ndim ? a.ndim : b.ndim;
	int64_t shape[SC_MAX_DIMS], sa[SC_MAX_DIMS], sb[SC_MAX_DIMS], ca[SC_MAX_DIMS], cb[SC_MAX_DIMS];
	sc_contig_strides(a.shape, a.ndim, ca);
	sc_contig_strides(b.shape, b.ndim, cb);
	for (int i = 0; i < nd; i++) {
		const int ia = i - (nd - a.ndim), ib = i - (nd - b.ndim);
		const int64_t da = ia >= 0 ? a.shape[ia] : 1, db = ib >= 0 ? b.shape[ib] : 1;
		if (da != db && da != 1 && db != 1) {
			char x1[128], x2[128];
			shape_str(&a, x1, sizeof x1);
			shape_str(&b, x2, sizeof x2);
			return rt(k, "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d (shapes %s and %s)",
				  (long long)da, (long long)db, i, x1, x2);
		}
		shape[i] = da > db ? da : db;
		sa[i] = (ia >= 0 && da > 1) ? ca[ia] : 0;
		sb[i] = (ib >= 0 && db > 1) ? cb[ib] : 0;
	}
	SC_CHECK(sc_tensor_empty(k->arena, shape, nd, 16, out, k->e));
	struct sc_iter ia, ib;
	sc_iter_init(&ia, shape, sa, nd, 0);
	sc_iter_init(&ib, shape, sb, nd, 0);
	const struct sc_pair *pa = P_(&a), *pb = P_(&b);
	struct sc_pair *po = P_(out);
	const int64_t n = sc_tensor_numel(out);
	for (int64_t i = 0; i < n; i++) {
		const struct sc_pair x = pa[ia.off], y = pb[ib.off];
		double v, e;
		if (mul) {
			v = R(k, x.v * y.v);
			e = fabs(x.v) * y.e + fabs(y.v) * x.e + x.e * y.e + RB(k, v);
		} else {
			v = R(k, x.v + y.v);
			e = x.e + y.e + RB(k, v);
		}
		po[i].v = v;
		po[i].e = e;
		sc_iter_next(&ia);
		sc_iter_next(&ib);
	}
	return SC_OK;
}

static double gelu(double x, int erf_form)
{
	if (erf_form)
		return 0.5 * x * (1 + erf(x / sqrt(2.0)));
	const double c = 0.7978845608028654; /* sqrt(2 / pi) */
	return 0.5 * x * (1 + tanh(c * (x + 0.044715 * x * x * x)));
}

static enum sc_status unary(const struct cx *k, const struct sc_stmt *st, const struct sc_tensor *ta,
			    struct sc_tensor *out)
{
	struct sc_tensor a;
	SC_CHECK(contig(k, ta, &a));
	SC_CHECK(sc_tensor_empty(k->arena, a.shape, a.ndim, 16, out, k->e));
	const struct sc_pair *pa = P_(&a);
	struct sc_pair *po = P_(out);
	const int64_t n = sc_tensor_numel(&a);
	/* Lipschitz constants (max |f'|) and the evaluation error of the device's
	 * f32 (f64) libm: a few units in the last place of the result */
	const double ev = 4 * (k->ref || k->d == SC_F64 ? ldexp(1.0, -53) : ldexp(1.0, -24));
	for (int64_t i = 0; i < n; i++) {
		const struct sc_pair x = pa[i];
		double f, L;
		switch (st->op) {
		case SC_C_GELU: f = gelu(x.v, st->form); L = 1.13; break;
		case SC_C_SILU: f = x.v / (1 + exp(-x.v)); L = 1.1; break;
		case SC_C_RELU: f = x.v > 0 ? x.v : 0; L = 1; break;
		case SC_C_SCALE: f = x.v * st->scalar; L = fabs(st->scalar); break;
		default: f = x.v; L = 1; break;
		}
		const double v = R(k, f);
		double e = L * x.e + RB(k, v);
		if (st->op == SC_C_GELU || st->op == SC_C_SILU)
			e += ev * (fabs(f) + 1e-30);
		if (st->op == SC_C_RELU)
			e = x.e; /* exact */
		po[i].v = v;
		po[i].e = e;
	}
	return SC_OK;
}

/* a [..., m, k] @ b: linear (b = w [n, k], optional bias [n]) or matmul
 * (b = [k, n], or [..., k, n] with a's batch dims) */
static enum sc_status contract(const struct cx *k, int linear, const struct sc_tensor *ta,
			       const struct sc_tensor *tb, const struct sc_tensor *tbias, struct sc_tensor *out)
{
	struct sc_tensor a, b, bias;
	SC_CHECK(contig(k, ta, &a));
	SC_CHECK(contig(k, tb, &b));
	if (tbias)
		SC_CHECK(contig(k, tbias, &bias));
	char x1[128], x2[128];
	shape_str(&a, x1, sizeof x1);
	shape_str(&b, x2, sizeof x2);
	if (a.ndim < 1 || b.ndim < 2)
		return rt(k, "%s needs a [..., k] and a 2-d (or batched) second operand (shapes %s and %s)",
			  linear ? "linear" : "matmul", x1, x2);
	const int64_t K = a.shape[a.ndim - 1];
	int64_t N, kb;
	int batched = 0;
	if (linear) {
		if (b.ndim != 2)
			return rt(k, "linear: the weight must be 2-d [out, in], got %s", x2);
		N = b.shape[0];
		kb = b.shape[1];
	} else {
		N = b.shape[b.ndim - 1];
		kb = b.shape[b.ndim - 2];
		if (b.ndim > 2) {
			batched = 1;
			if (a.ndim != b.ndim)
				return rt(k, "matmul: batch dims differ (shapes %s and %s)", x1, x2);
			for (int i = 0; i < a.ndim - 2; i++)
				if (a.shape[i] != b.shape[i])
					return rt(k, "matmul: batch dims differ (shapes %s and %s)", x1, x2);
		}
	}
	if (kb != K)
		return rt(k, "mat1 and mat2 shapes cannot be multiplied (%s and %s)", x1, x2);
	if (tbias && (bias.ndim != 1 || bias.shape[0] != N))
		return rt(k, "linear: the bias must be [%lld]", (long long)N);
	int64_t shape[SC_MAX_DIMS];
	for (int i = 0; i < a.ndim - 1; i++)
		shape[i] = a.shape[i];
	shape[a.ndim - 1] = N;
	SC_CHECK(sc_tensor_empty(k->arena, shape, a.ndim, 16, out, k->e));
	const int64_t rows = K ? sc_tensor_numel(&a) / K : sc_shape_numel(a.shape, a.ndim - 1);
	const int64_t mrows = a.ndim >= 2 ? a.shape[a.ndim - 2] : 1;
	const struct sc_pair *pa = P_(&a), *pb = P_(&b), *pbias = tbias ? P_(&bias) : NULL;
	struct sc_pair *po = P_(out);
	const double g = gamma_k((double)K + (tbias ? 1 : 0), UACC(k));
	for (int64_t r = 0; r < rows; r++) {
		const struct sc_pair *arow = pa + r * K;
		const int64_t batch = mrows ? r / mrows : 0;
		for (int64_t j = 0; j < N; j++) {
			double s = 0, mag = 0, prop = 0;
			for (int64_t q = 0; q < K; q++) {
				struct sc_pair w;
				if (linear)
					w = pb[j * K + q];
				else if (batched)
					w = pb[(batch * K + q) * N + j];
				else
					w = pb[q * N + j];
				const struct sc_pair x = arow[q];
				s = ACC(k, s + ACC(k, x.v * w.v));
				mag += fabs(x.v * w.v);
				prop += fabs(x.v) * w.e + fabs(w.v) * x.e + x.e * w.e;
			}
			if (pbias) {
				s = ACC(k, s + pbias[j].v);
				mag += fabs(pbias[j].v);
				prop += pbias[j].e;
			}
			const double v = R(k, s);
			po[r * N + j].v = v;
			po[r * N + j].e = SAFETY * (g * mag) + prop + RB(k, v);
		}
	}
	return SC_OK;
}

static enum sc_status sum_dim(const struct cx *k, int dim, const struct sc_tensor *ta, struct sc_tensor *out)
{
	struct sc_tensor a;
	SC_CHECK(contig(k, ta, &a));
	const int nd = a.ndim;
	const int d = dim < 0 ? dim + nd : dim;
	if (nd == 0 || d < 0 || d >= nd)
		return rt(k, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -nd, nd - 1, dim);
	int64_t shape[SC_MAX_DIMS];
	int on = 0;
	for (int i = 0; i < nd; i++)
		if (i != d)
			shape[on++] = a.shape[i];
	SC_CHECK(sc_tensor_empty(k->arena, shape, on, 16, out, k->e));
	const int64_t K = a.shape[d], inner = sc_shape_numel(a.shape + d + 1, nd - d - 1),
		      outer = sc_shape_numel(a.shape, d);
	const double g = gamma_k(K > 1 ? (double)K - 1 : 0, UACC(k));
	const struct sc_pair *pa = P_(&a);
	struct sc_pair *po = P_(out);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			double s = 0, mag = 0, prop = 0;
			for (int64_t q = 0; q < K; q++) {
				const struct sc_pair x = pa[(o * K + q) * inner + i];
				s = ACC(k, s + x.v);
				mag += fabs(x.v);
				prop += x.e;
			}
			const double v = R(k, s);
			po[o * inner + i].v = v;
			po[o * inner + i].e = SAFETY * g * mag + prop + RB(k, v);
		}
	return SC_OK;
}

static enum sc_status cast(const struct cx *k, const struct sc_tensor *ta, struct sc_tensor *out)
{
	struct sc_tensor a;
	SC_CHECK(contig(k, ta, &a));
	SC_CHECK(sc_tensor_empty(k->arena, a.shape, a.ndim, 16, out, k->e));
	const struct sc_pair *pa = P_(&a);
	struct sc_pair *po = P_(out);
	for (int64_t i = 0; i < sc_tensor_numel(&a); i++) {
		const double v = R(k, pa[i].v);
		po[i].v = v;
		po[i].e = pa[i].e + (k->ref ? 0 : RB(k, v));
	}
	return SC_OK;
}

/* ---- inputs ---- */

/* X_i[g]: uniform in [-1, 1), exactly representable in the case's dtype */
static double input_value(const struct sc_compute_case *c, int tensor, uint64_t g)
{
	const uint64_t h = sc_mix64(sc_mix64(c->seed ^ 0x243f6a8885a308d3ULL) ^ ((uint64_t)tensor << 40) ^ g);
	const double u = (double)(h >> 11) * ldexp(1.0, -53) * 2 - 1;
	return rnd(c->dtype, u);
}

static enum sc_status fill_inputs(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
				  int reference, struct sc_cenv *env, struct sc_err *e)
{
	for (int i = 0; i < s->ntensors; i++) {
		const struct sc_tdecl *d = &s->tensors[i];
		env->dt[i] = c->dtype;
		if (!d->input)
			continue;
		int64_t ts[SC_MAX_DIMS];
		for (int k = 0; k < d->ndims; k++)
			ts[k] = c->sizes[d->dims[k]];
		for (int r = 0; r < x->nlocal; r++) {
			const int rank = x->first + r;
			struct sc_layout l = d->place;
			if (reference)
				l.kind = SC_REPLICATE;
			struct sc_map m;
			sc_layout_map(&l, ts, d->ndims, reference ? 1 : c->world, rank, &m);
			struct sc_tensor *t = &env->t[i][r];
			SC_CHECK(sc_tensor_empty(x->arena, m.lshape, m.lndim, 16, t, e));
			struct sc_iter it;
			sc_iter_init(&it, m.shape, m.stride, m.ndim, m.offset);
			struct sc_pair *p = P_(t);
			const int zero = !reference && l.kind == SC_PARTIAL && rank != 0; /* partial sum: rank 0 holds X */
			for (int64_t k = 0; k < sc_tensor_numel(t); k++) {
				p[k].v = zero ? 0 : input_value(c, i, (uint64_t)it.off);
				p[k].e = 0;
				sc_iter_next(&it);
			}
		}
		env->defined[i] = 1;
	}
	return SC_OK;
}

static enum sc_dtype promote(enum sc_dtype a, enum sc_dtype b)
{
	if (a == b)
		return a;
	if (a == SC_F64 || b == SC_F64)
		return SC_F64;
	if (a == SC_F32 || b == SC_F32)
		return SC_F32;
	if ((a == SC_F16 && b == SC_BF16) || (a == SC_BF16 && b == SC_F16))
		return SC_F32;
	return sc_unit_roundoff(a) < sc_unit_roundoff(b) ? a : b;
}

enum sc_status sc_compute_run(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
			      int reference, struct sc_cenv *env, struct sc_err *e)
{
	memset(env, 0, sizeof *env);
	env->n = s->ntensors;
	for (int i = 0; i < s->ntensors; i++) {
		struct sc_buf *b = sc_arena_buf(x->arena, (int64_t)(sizeof(struct sc_tensor) * (size_t)(x->nlocal ? x->nlocal : 1)), 1);
		if (!b)
			return SC_ERR(e, SC_E_NOMEM, "out of memory");
		env->t[i] = (struct sc_tensor *)(void *)b->data;
	}
	SC_CHECK(fill_inputs(s, c, x, reference, env, e));
	const struct sc_stmt *prog = reference ? s->ref : s->prog;
	const int n = reference ? s->nref : s->nprog;
	for (int i = 0; i < n; i++) {
		const struct sc_stmt *st = &prog[i];
		const int args[3] = {st->a, st->b, st->c};
		for (int k = 0; k < 3; k++)
			if (args[k] >= 0 && !env->defined[args[k]])
				return SC_ERR(e, SC_E_RUNTIME, "line %d: '%s' is used before it has a value", st->line,
					      s->tensors[args[k]].name);
		if (st->op == SC_C_STEP) {
			const struct sc_step *step = &s->steps[st->step];
			if (!env->defined[st->dst])
				return SC_ERR(e, SC_E_RUNTIME, "line %d: '%s' has no value yet", st->line,
					      s->tensors[st->dst].name);
			const int coll = (step->def->flags & SC_STEP_COLLECTIVE) != 0;
			if (reference && coll)
				return SC_ERR(e, SC_E_SPEC, "line %d: the reference runs on one device: no collectives",
					      st->line);
			for (int r = 0; r < x->nlocal; r++)
				x->t[r] = env->t[st->dst][r];
			x->dtype = env->dt[st->dst];
			x->compute = 1;
			x->pair_reduce = sc_compute_reduce;
			const int w = x->world;
			if (reference)
				x->world = 1;
			enum sc_status ss = sc_exec_step(x, s, step, c->sizes, e);
			x->world = w;
			SC_CHECK(ss);
			for (int r = 0; r < x->nlocal; r++)
				env->t[st->dst][r] = x->t[r];
			continue;
		}
		struct cx k = {reference, env->dt[st->a], SC_F32, x->arena, e, st->line};
		if (st->b >= 0 && st->op != SC_C_COPY)
			k.d = promote(k.d, env->dt[st->b]);
		if (st->op == SC_C_CAST)
			k.d = st->dtype;
		k.acc = k.d == SC_F64 ? SC_F64 : SC_F32;
		struct sc_tensor out[SC_MAX_WORLD];
		for (int r = 0; r < x->nlocal; r++) {
			const struct sc_tensor *a = &env->t[st->a][r];
			const struct sc_tensor *b = st->b >= 0 ? &env->t[st->b][r] : NULL;
			const struct sc_tensor *bias = st->c >= 0 ? &env->t[st->c][r] : NULL;
			switch (st->op) {
			case SC_C_MATMUL: SC_CHECK(contract(&k, 0, a, b, NULL, &out[r])); break;
			case SC_C_LINEAR: SC_CHECK(contract(&k, 1, a, b, bias, &out[r])); break;
			case SC_C_ADD: SC_CHECK(binary(&k, 0, a, b, &out[r])); break;
			case SC_C_MUL: SC_CHECK(binary(&k, 1, a, b, &out[r])); break;
			case SC_C_SCALE:
			case SC_C_GELU:
			case SC_C_RELU:
			case SC_C_SILU: SC_CHECK(unary(&k, st, a, &out[r])); break;
			case SC_C_CAST: SC_CHECK(cast(&k, a, &out[r])); break;
			case SC_C_SUM: SC_CHECK(sum_dim(&k, st->dim, a, &out[r])); break;
			case SC_C_COPY: out[r] = *a; break;
			case SC_C_STEP: break;
			}
		}
		for (int r = 0; r < x->nlocal; r++)
			env->t[st->dst][r] = out[r];
		env->dt[st->dst] = st->op == SC_C_COPY ? env->dt[st->a] : k.d;
		env->defined[st->dst] = 1;
	}
	x->compute = 0;
	return SC_OK;
}

enum sc_status sc_compute_reduce(struct sc_exec *x, int scatter, void **send, void **recv, size_t count,
				 enum sc_redop op, struct sc_err *e)
{
	const int P = x->world;
	const size_t per = scatter ? (size_t)P * count : count; /* pairs each rank sends */
	void *gat[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_buf *b = sc_arena_buf(x->arena, (int64_t)(per * (size_t)P), 16);
		if (!b)
			return SC_ERR(e, SC_E_NOMEM, "out of memory");
		gat[r] = b->data;
	}
	SC_CHECK(x->be->ops->all_gather(x->be, P, send, gat, per * 16, e));
	const enum sc_dtype d = x->dtype;
	for (int r = 0; r < x->nlocal; r++) {
		const struct sc_pair *g = gat[r];
		struct sc_pair *o = recv[r];
		const size_t base = scatter ? (size_t)(x->first + r) * count : 0;
		for (size_t j = 0; j < count; j++) {
			struct sc_pair a = g[base + j];
			for (int q = 1; q < P; q++) {
				const struct sc_pair b = g[(size_t)q * per + base + j];
				switch (op) {
				case SC_SUM: {
					const double v = rnd(d, a.v + b.v);
					a.e = a.e + b.e + rbound(d, v);
					a.v = v;
					break;
				}
				case SC_PROD: {
					const double v = rnd(d, a.v * b.v);
					a.e = fabs(a.v) * b.e + fabs(b.v) * a.e + a.e * b.e + rbound(d, v);
					a.v = v;
					break;
				}
				case SC_MAX:
					a.v = a.v > b.v ? a.v : b.v;
					a.e = a.e > b.e ? a.e : b.e;
					break;
				case SC_MIN:
					a.v = a.v < b.v ? a.v : b.v;
					a.e = a.e > b.e ? a.e : b.e;
					break;
				default: break;
				}
			}
			o[j] = a;
		}
	}
	return SC_OK;
}

enum sc_status sc_compute_compare(const struct sc_spec *s, const struct sc_compute_case *c, const struct sc_exec *x,
				  const struct sc_cenv *penv, const struct sc_cenv *renv,
				  struct sc_compute_worst *w, int64_t *nover, struct sc_err *e)
{
	const int o = s->out_tensor;
	const struct sc_tdecl *d = &s->tensors[o];
	int64_t ts[SC_MAX_DIMS];
	for (int k = 0; k < d->ndims; k++)
		ts[k] = c->sizes[d->dims[k]];
	memset(w, 0, sizeof *w);
	w->ratio = -1;
	/* the reference output, row-major over the output's dims */
	const struct sc_tensor *rt0 = &renv->t[o][0];
	int same = rt0->ndim == d->ndims;
	for (int k = 0; same && k < d->ndims; k++)
		same = rt0->shape[k] == ts[k];
	if (!same) {
		char a[128], b[128];
		sc_shape_format(rt0->shape, rt0->ndim, a, sizeof a);
		sc_shape_format(ts, d->ndims, b, sizeof b);
		return SC_ERR(e, SC_E_SPEC, "the reference computes '%s' with shape %s, but it is declared %s", d->name, a, b);
	}
	if (d->place.kind == SC_PARTIAL) {
		return SC_ERR(e, SC_E_SPEC, "a compute output must be shard or replicate");
	}
	int64_t over = 0;
	for (int r = 0; r < x->nlocal; r++) {
		const int rank = x->first + r;
		struct sc_map m;
		sc_layout_map(&d->place, ts, d->ndims, c->world, rank, &m);
		const struct sc_tensor *t = &penv->t[o][r];
		int ok = t->ndim == m.lndim;
		for (int k = 0; ok && k < m.lndim; k++)
			ok = t->shape[k] == m.lshape[k];
		if (!ok) {
			char a[128], b[128];
			sc_shape_format(t->shape, t->ndim, a, sizeof a);
			sc_shape_format(m.lshape, m.lndim, b, sizeof b);
			return SC_ERR(e, SC_E_RUNTIME, "rank %d output '%s' has shape %s, but the output placement needs %s",
				      rank, d->name, a, b);
		}
		struct sc_iter mi, ti;
		sc_iter_init(&mi, m.shape, m.stride, m.ndim, m.offset);
		sc_iter_init(&ti, t->shape, t->stride, t->ndim, t->offset);
		const struct sc_pair *pt = (const struct sc_pair *)(const void *)t->buf->data;
		const struct sc_pair *pr = (const struct sc_pair *)(const void *)rt0->buf->data;
		for (int64_t k = 0; k < sc_tensor_numel(t); k++) {
			/* global index g (row-major over ts) -> the reference's element */
			int64_t g = mi.off, roff = rt0->offset;
			for (int q = d->ndims - 1; q >= 0; q--) {
				roff += (g % ts[q]) * rt0->stride[q];
				g /= ts[q];
			}
			const struct sc_pair a = pt[ti.off], b = pr[roff];
			const double err = fabs(a.v - b.v), bound = a.e + b.e;
			const int bad = !(err <= bound);
			over += bad;
			w->compared++;
			/* the worst element: the largest error/bound (an element over its
			 * bound has a ratio above 1; NaN counts as infinite) */
			double ratio = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0);
			if (isnan(ratio))
				ratio = INFINITY;
			if (ratio > w->ratio) {
				w->rank = rank;
				w->ndim = t->ndim;
				memcpy(w->index, ti.idx, sizeof(int64_t) * (size_t)t->ndim);
				w->value = a.v;
				w->reference = b.v;
				w->error = err;
				w->bound = bound;
				w->ratio = ratio;
			}
			w->over = over;
			sc_iter_next(&mi);
			sc_iter_next(&ti);
		}
	}
	*nover = over;
	return SC_OK;
}
