/* sc_celem: elementwise kernels. */
#include "sc_celem.h"

#include <math.h>
#include <string.h>

static void shape_str(const struct sc_tensor *t, char *b, size_t n) { sc_shape_format(t->shape, t->ndim, b, n); }

/* One element of add, sub, mul, div. */
static struct sc_pair apply2(const struct sc_cx *k, enum sc_cop op, struct sc_pair x, struct sc_pair y)
{
	struct sc_pair r;
	switch (op) {
	case SC_C_SUB:
	case SC_C_ADD:
		r.v = sc_cx_round(k, op == SC_C_ADD ? x.v + y.v : x.v - y.v);
		r.e = x.e + y.e + sc_cx_rbound(k, r.v);
		break;
	case SC_C_DIV: {
		r.v = sc_cx_round(k, x.v / y.v);
		const double ay = fabs(y.v);
		const double prop = ay > y.e ? (sc_cx_mulb(fabs(x.v), y.e) + sc_cx_mulb(ay, x.e)) / (ay * (ay - y.e)) : INFINITY;
		r.e = SC_FP_SAFETY * prop + sc_cx_rbound(k, r.v);
		break;
	}
	default: /* SC_C_MUL, SC_C_SCALE */
		r.v = sc_cx_round(k, x.v * y.v);
		r.e = sc_cx_mulb(fabs(x.v), y.e) + sc_cx_mulb(fabs(y.v), x.e) + sc_cx_mulb(x.e, y.e) + sc_cx_rbound(k, r.v);
		break;
	}
	return r;
}

enum sc_status sc_celem_op2(const struct sc_cx *k, enum sc_cop op, const struct sc_tensor *ta,
				const struct sc_tensor *tb, struct sc_tensor *out)
{
	struct sc_tensor a, b;
	SC_CHECK(sc_cx_contig(k, ta, &a));
	SC_CHECK(sc_cx_contig(k, tb, &b));
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
			return sc_cx_err(k, "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d (shapes %s and %s)",
					 (long long)da, (long long)db, i, x1, x2);
		}
		shape[i] = da == 1 ? db : da; /* (a 1 broadcasts to 0 rows as well) */
		sa[i] = (ia >= 0 && da > 1) ? ca[ia] : 0;
		sb[i] = (ib >= 0 && db > 1) ? cb[ib] : 0;
	}
	SC_CHECK(sc_cx_empty(k, shape, nd, out));
	struct sc_iter ia, ib;
	sc_iter_init(&ia, shape, sa, nd, 0);
	sc_iter_init(&ib, shape, sb, nd, 0);
	const struct sc_pair *pa = sc_cx_pairs(&a), *pb = sc_cx_pairs(&b);
	struct sc_pair *po = sc_cx_pairs(out);
	const int64_t n = sc_tensor_numel(out);
	for (int64_t i = 0; i < n; i++) {
		po[i] = apply2(k, op, pa[ia.off], pb[ib.off]);
		sc_iter_next(&ia);
		sc_iter_next(&ib);
	}
	return SC_OK;
}

enum sc_status sc_celem_binary(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out)
{
	if (a->st->scalar < 0)
		return sc_celem_op2(k, a->st->op, a->t[0], a->t[1], out);
	struct sc_tensor c;
	SC_CHECK(sc_cx_scalar(k, sc_cx_constant(k, a->scalar), &c));
	return sc_celem_op2(k, a->st->op, a->t[0], &c, out);
}

enum sc_status sc_celem_scale(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out)
{
	struct sc_tensor c;
	SC_CHECK(sc_cx_scalar(k, sc_cx_constant(k, a->scalar), &c));
	return sc_celem_op2(k, SC_C_MUL, a->t[0], &c, out);
}

static double gelu(double x, int erf_form)
{
	if (erf_form)
		return 0.5 * x * (1 + erf(x / sqrt(2.0)));
	const double c = 0.7978845608028654; /* sqrt(2 / pi) */
	return 0.5 * x * (1 + tanh(c * (x + 0.044715 * x * x * x)));
}

/* f and |f'| of the monotone-derivative functions; K: pow's exponent */
static double fval(enum sc_cop op, double x, double K)
{
	switch (op) {
	case SC_C_SQRT: return sqrt(x);
	case SC_C_RSQRT: return 1 / sqrt(x);
	case SC_C_EXP: return exp(x);
	case SC_C_LOG: return log(x);
	default: return pow(x, K);
	}
}

static double dabs(enum sc_cop op, double x, double K)
{
	switch (op) {
	case SC_C_SQRT: return 0.5 / sqrt(x);
	case SC_C_RSQRT: return 0.5 / (x * sqrt(x));
	case SC_C_EXP: return exp(x);
	case SC_C_LOG: return 1 / fabs(x);
	default: return K == 0 ? 0 : fabs(K) * pow(fabs(x), K - 1);
	}
}

/* The input error's effect on f over [x - e, x + e] (mean value theorem). */
static double propagate(enum sc_cop op, double x, double e, double K)
{
	if (e == 0)
		return 0;
	if (!isfinite(e))
		return INFINITY;
	double lo = x - e, hi = x + e;
	const int integer_k = op == SC_C_POW && K == floor(K);
	if (op == SC_C_SQRT || (op == SC_C_POW && !integer_k && K > 0)) { /* closed domain [0, inf) */
		if (hi < 0)
			return INFINITY;
		if (lo < 0)
			lo = 0;
		const double holder = op == SC_C_SQRT ? sqrt(e) : K < 1 ? pow(e, K) : INFINITY;
		const double mvt = lo > 0 ? e * fmax(dabs(op, lo, K), dabs(op, hi, K)) : INFINITY;
		return fmin(holder, mvt);
	}
	if (op == SC_C_RSQRT || op == SC_C_LOG || (op == SC_C_POW && !integer_k)) /* open domain (0, inf) */
		return lo > 0 ? e * fmax(dabs(op, lo, K), dabs(op, hi, K)) : INFINITY;
	if (op == SC_C_POW && K < 0 && lo <= 0 && hi >= 0) /* a pole inside */
		return INFINITY;
	return e * fmax(dabs(op, lo, K), dabs(op, hi, K));
}

enum sc_status sc_celem_op1(const struct sc_cx *k, enum sc_cop op, int form, double K, const struct sc_tensor *ta,
			    struct sc_tensor *out)
{
	struct sc_tensor a;
	SC_CHECK(sc_cx_contig(k, ta, &a));
	SC_CHECK(sc_cx_empty(k, a.shape, a.ndim, out));
	const struct sc_pair *pa = sc_cx_pairs(&a);
	struct sc_pair *po = sc_cx_pairs(out);
	const int64_t n = sc_tensor_numel(&a);
	const double ev = sc_cx_ev(k);
	for (int64_t i = 0; i < n; i++) {
		const struct sc_pair x = pa[i];
		double f, prop;
		switch (op) {
		case SC_C_GELU: f = gelu(x.v, form); prop = 1.13 * x.e; break;
		case SC_C_SILU: f = x.v / (1 + exp(-x.v)); prop = 1.1 * x.e; break;
		case SC_C_RELU: f = x.v > 0 ? x.v : 0; prop = x.e; break;
		default: f = fval(op, x.v, K); prop = SC_FP_SAFETY * propagate(op, x.v, x.e, K); break;
		}
		const double v = sc_cx_round(k, f);
		/* gelu's 1 + erf (tanh) cancels for negative x: its evaluation
		 * error is a few units of |x|, not of |gelu(x)| */
		const double scale = op == SC_C_GELU ? fabs(f) + fabs(x.v) : fabs(f);
		double e = prop + sc_cx_rbound(k, v) + ev * (scale + 1e-30);
		if (op == SC_C_RELU)
			e = x.e; /* exact */
		po[i].v = v;
		po[i].e = e;
	}
	return SC_OK;
}

enum sc_status sc_celem_unary(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out)
{
	/* pow's exponent is not rounded: ATen takes it as a double */
	return sc_celem_op1(k, a->st->op, a->st->form, a->scalar, a->t[0], out);
}

enum sc_status sc_celem_cast(const struct sc_cx *k, const struct sc_cargs *args, struct sc_tensor *out)
{
	struct sc_tensor a;
	SC_CHECK(sc_cx_contig(k, args->t[0], &a));
	SC_CHECK(sc_cx_empty(k, a.shape, a.ndim, out));
	const struct sc_pair *pa = sc_cx_pairs(&a);
	struct sc_pair *po = sc_cx_pairs(out);
	for (int64_t i = 0; i < sc_tensor_numel(&a); i++) {
		const double v = sc_cx_round(k, pa[i].v);
		po[i].v = v;
		po[i].e = pa[i].e + (k->ref ? 0 : sc_cx_rbound(k, v));
	}
	return SC_OK;
}

enum sc_status sc_celem_cat(const struct sc_cx *k, const struct sc_cargs *args, struct sc_tensor *out)
{
	struct sc_tensor t[3];
	int n = 0;
	for (int i = 0; i < 3 && args->t[i]; i++)
		SC_CHECK(sc_cx_contig(k, args->t[i], &t[n++]));
	for (int i = 0; i < n; i++)
		if (t[i].ndim == 0)
			return sc_cx_err(k, "zero-dimensional tensor (at position %d) cannot be concatenated", i);
	int d;
	SC_CHECK(sc_cx_dim(k, t[0].ndim, args->st->dim, &d));
	int64_t shape[SC_MAX_DIMS];
	memcpy(shape, t[0].shape, sizeof shape);
	shape[d] = 0;
	for (int i = 0; i < n; i++) {
		if (t[i].ndim != t[0].ndim)
			return sc_cx_err(k, "Tensors must have same number of dimensions: got %d and %d", t[0].ndim, t[i].ndim);
		for (int q = 0; q < t[0].ndim; q++)
			if (q != d && t[i].shape[q] != t[0].shape[q])
				return sc_cx_err(k, "Sizes of tensors must match except in dimension %d. Expected size %lld but got "
						    "size %lld for tensor number %d in the list.",
						 d, (long long)t[0].shape[q], (long long)t[i].shape[q], i);
		shape[d] += t[i].shape[d];
	}
	SC_CHECK(sc_cx_empty(k, shape, t[0].ndim, out));
	int64_t outer = 1, inner = 1;
	for (int q = 0; q < d; q++)
		outer *= shape[q];
	for (int q = d + 1; q < t[0].ndim; q++)
		inner *= shape[q];
	struct sc_pair *po = sc_cx_pairs(out);
	for (int64_t o = 0; o < outer; o++)
		for (int i = 0; i < n; i++) { /* row o of piece i, its block of the dim */
			const int64_t len = t[i].shape[d] * inner;
			memcpy(po, sc_cx_pairs(&t[i]) + o * len, sizeof *po * (size_t)len);
			po += len;
		}
	return SC_OK;
}

enum sc_status sc_celem_tri(const struct sc_cx *k, const struct sc_cargs *args, struct sc_tensor *out)
{
	struct sc_tensor a;
	SC_CHECK(sc_cx_contig(k, args->t[0], &a));
	const int lower = args->st->op == SC_C_TRIL;
	if (a.ndim < 2)
		return sc_cx_err(k, "%s: input tensor must have at least 2 dimensions", lower ? "tril" : "triu");
	SC_CHECK(sc_cx_empty(k, a.shape, a.ndim, out));
	const int64_t rows = a.shape[a.ndim - 2], cols = a.shape[a.ndim - 1], n = sc_tensor_numel(&a);
	/* the fill as the tensor holds it: rounded to its dtype, exact as written */
	const double fv = sc_cx_round(k, args->fill);
	const struct sc_pair cut = {fv, fabs(fv - args->fill)};
	const struct sc_pair *pa = sc_cx_pairs(&a);
	struct sc_pair *po = sc_cx_pairs(out);
	for (int64_t q = 0; q < n; q++) {
		const int64_t j = cols ? q % cols : 0, i = cols && rows ? (q / cols) % rows : 0;
		const int keep = lower ? j - i <= args->diag : j - i >= args->diag;
		po[q] = keep ? pa[q] : cut;
	}
	return SC_OK;
}
