/* sc_creduce: contractions, reductions along a dim, softmax and the norms. */
#include "sc_creduce.h"

#include <math.h>
#include <string.h>

#include "sc_celem.h"

static void shape_str(const struct sc_tensor *t, char *b, size_t n) { sc_shape_format(t->shape, t->ndim, b, n); }

/* Why two operands cannot be contracted; the shapes are formatted only
 * here, as contractions run on every case. */
enum contract_why { NOT_2D, WEIGHT_NOT_2D, BATCH_DIFFERS, INNER_DIFFERS };

static enum sc_status contract_err(const struct sc_cx *k, int linear, const struct sc_tensor *a,
				   const struct sc_tensor *b, enum contract_why why)
{
	char x1[128], x2[128];
	shape_str(a, x1, sizeof x1);
	shape_str(b, x2, sizeof x2);
	switch (why) {
	case NOT_2D:
		return sc_cx_err(k, "%s needs a [..., k] and a 2-d (or batched) second operand (shapes %s and %s)",
				 linear ? "linear" : "matmul", x1, x2);
	case WEIGHT_NOT_2D: return sc_cx_err(k, "linear: the weight must be 2-d [out, in], got %s", x2);
	case BATCH_DIFFERS: return sc_cx_err(k, "matmul: batch dims differ (shapes %s and %s)", x1, x2);
	default: return sc_cx_err(k, "mat1 and mat2 shapes cannot be multiplied (%s and %s)", x1, x2);
	}
}

/* a [..., m, k] @ b: linear (b = w [n, k], optional bias [n]) or matmul
 * (b = [k, n], or [..., k, n] with a's batch dims) */
static enum sc_status contract(const struct sc_cx *k, int linear, const struct sc_tensor *ta,
			       const struct sc_tensor *tb, const struct sc_tensor *tbias, struct sc_tensor *out)
{
	struct sc_tensor a, b, bias;
	SC_CHECK(sc_cx_contig(k, ta, &a));
	SC_CHECK(sc_cx_contig(k, tb, &b));
	if (tbias)
		SC_CHECK(sc_cx_contig(k, tbias, &bias));
	if (a.ndim < 1 || b.ndim < 2)
		return contract_err(k, linear, &a, &b, NOT_2D);
	const int64_t K = a.shape[a.ndim - 1];
	int64_t N, kb;
	int batched = 0;
	if (linear) {
		if (b.ndim != 2)
			return contract_err(k, linear, &a, &b, WEIGHT_NOT_2D);
		N = b.shape[0];
		kb = b.shape[1];
	} else {
		N = b.shape[b.ndim - 1];
		kb = b.shape[b.ndim - 2];
		if (b.ndim > 2) {
			batched = 1;
			if (a.ndim != b.ndim)
				return contract_err(k, linear, &a, &b, BATCH_DIFFERS);
			for (int i = 0; i < a.ndim - 2; i++)
				if (a.shape[i] != b.shape[i])
					return contract_err(k, linear, &a, &b, BATCH_DIFFERS);
		}
	}
	if (kb != K)
		return contract_err(k, linear, &a, &b, INNER_DIFFERS);
	const int64_t nb = tbias ? sc_tensor_numel(&bias) : 0; /* [N], or one value broadcast (addmm) */
	if (tbias && (bias.ndim > 1 || (nb != N && nb != 1)))
		return sc_cx_err(k, "linear: the bias must be [%lld] (or one value)", (long long)N);
	int64_t shape[SC_MAX_DIMS];
	for (int i = 0; i < a.ndim - 1; i++)
		shape[i] = a.shape[i];
	shape[a.ndim - 1] = N;
	SC_CHECK(sc_cx_empty(k, shape, a.ndim, out));
	const int64_t rows = K ? sc_tensor_numel(&a) / K : sc_shape_numel(a.shape, a.ndim - 1);
	const int64_t mrows = a.ndim >= 2 ? a.shape[a.ndim - 2] : 1;
	const struct sc_pair *pa = sc_cx_pairs(&a), *pb = sc_cx_pairs(&b), *pbias = tbias ? sc_cx_pairs(&bias) : NULL;
	struct sc_pair *po = sc_cx_pairs(out);
	const double g = sc_fp_gamma((double)K + (tbias ? 1 : 0), sc_cx_uacc(k));
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
				s = sc_cx_acc(k, s + sc_cx_acc(k, x.v * w.v));
				mag += fabs(x.v * w.v);
				prop += sc_cx_mulb(fabs(x.v), w.e) + sc_cx_mulb(fabs(w.v), x.e) + sc_cx_mulb(x.e, w.e);
			}
			if (pbias) {
				const struct sc_pair bj = pbias[nb == N ? j : 0];
				s = sc_cx_acc(k, s + bj.v);
				mag += fabs(bj.v);
				prop += bj.e;
			}
			const double v = sc_cx_round(k, s);
			po[r * N + j].v = v;
			po[r * N + j].e = SC_FP_SAFETY * (g * mag) + prop + sc_cx_rbound(k, v);
		}
	}
	return SC_OK;
}

enum sc_status sc_creduce_matmul(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out)
{
	return contract(k, 0, a->t[0], a->t[1], NULL, out);
}

enum sc_status sc_creduce_linear(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out)
{
	return contract(k, 1, a->t[0], a->t[1], a->t[2], out);
}

/* The geometry of a reduction along dim d: outer x K x inner. */
struct slices {
	int64_t outer, K, inner;
};

static enum sc_status reduced(const struct sc_cx *k, const struct sc_tensor *a, int dim, int keepdim,
			      struct slices *g, struct sc_tensor *out)
{
	int d;
	SC_CHECK(sc_cx_dim(k, a->ndim, dim, &d));
	int64_t shape[SC_MAX_DIMS];
	int on = 0;
	for (int i = 0; i < a->ndim; i++)
		if (i != d)
			shape[on++] = a->shape[i];
		else if (keepdim)
			shape[on++] = 1;
	if (a->ndim == 0) { /* a 0-d tensor: one slice of one element, 0-d again */
		g->K = g->inner = g->outer = 1;
		return sc_cx_empty(k, shape, 0, out);
	}
	g->K = a->shape[d];
	g->inner = sc_shape_numel(a->shape + d + 1, a->ndim - d - 1);
	g->outer = sc_shape_numel(a->shape, d);
	return sc_cx_empty(k, shape, on, out);
}

/* sum, mean or max of a along dim */
static enum sc_status reduce(const struct sc_cx *k, enum sc_cop op, int dim, int keepdim, const struct sc_tensor *ta,
			     struct sc_tensor *out)
{
	struct sc_tensor a;
	struct slices g;
	SC_CHECK(sc_cx_contig(k, ta, &a));
	SC_CHECK(reduced(k, &a, dim, keepdim, &g, out));
	if (op == SC_C_MAX && g.K == 0)
		return sc_cx_err(k, "max(): Expected reduction dim %d to have non-zero size.", dim);
	const double u = sc_cx_uacc(k), gm = sc_fp_gamma(g.K > 1 ? (double)g.K - 1 : 0, u);
	const struct sc_pair *pa = sc_cx_pairs(&a);
	struct sc_pair *po = sc_cx_pairs(out);
	for (int64_t o = 0; o < g.outer; o++)
		for (int64_t i = 0; i < g.inner; i++) {
			double s = op == SC_C_MAX ? -INFINITY : 0, mag = 0, prop = 0;
			for (int64_t q = 0; q < g.K; q++) {
				const struct sc_pair x = pa[(o * g.K + q) * g.inner + i];
				if (op == SC_C_MAX) {
					s = isnan(x.v) || x.v > s ? x.v : s;
					prop = isnan(s) ? NAN : fmax(prop, x.e);
					if (isnan(s))
						break;
					continue;
				}
				s = sc_cx_acc(k, s + x.v);
				mag += fabs(x.v);
				prop += x.e;
			}
			struct sc_pair *r = &po[o * g.inner + i];
			if (op == SC_C_MAX) { /* exact: |max a - max A| <= max |a - A| */
				r->v = s;
				r->e = prop;
				continue;
			}
			double e = SC_FP_SAFETY * gm * mag + prop;
			if (op == SC_C_MEAN) {
				s = sc_cx_acc(k, s / (double)g.K);
				e = e / (double)g.K + sc_fp_rbound(k->ref ? SC_F64 : k->acc, s);
			}
			r->v = sc_cx_round(k, s);
			r->e = e + sc_cx_rbound(k, r->v);
		}
	return SC_OK;
}

enum sc_status sc_creduce_dim(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out)
{
	return reduce(k, a->st->op, a->st->dim, a->st->keepdim, a->t[0], out);
}

enum sc_status sc_creduce_softmax(const struct sc_cx *k, const struct sc_cargs *args, struct sc_tensor *out)
{
	struct sc_tensor a, r;
	struct slices g;
	SC_CHECK(sc_cx_contig(k, args->t[0], &a));
	SC_CHECK(reduced(k, &a, args->st->dim, 1, &g, &r));
	SC_CHECK(sc_cx_empty(k, a.shape, a.ndim, out));
	const double u = sc_cx_uacc(k), gm = sc_fp_gamma(g.K > 1 ? (double)g.K - 1 : 0, u);
	const struct sc_pair *pa = sc_cx_pairs(&a);
	struct sc_pair *po = sc_cx_pairs(out);
	for (int64_t o = 0; o < g.outer; o++)
		for (int64_t i = 0; i < g.inner; i++) {
			const struct sc_pair *x = pa + o * g.K * g.inner + i;
			struct sc_pair *y = po + o * g.K * g.inner + i;
			double m = -INFINITY, E = 0, s = 0;
			for (int64_t q = 0; q < g.K; q++) {
				m = fmax(m, x[q * g.inner].v);
				E = fmax(E, x[q * g.inner].e);
			}
			double spread = 0; /* max |x_j - m| */
			for (int64_t q = 0; q < g.K; q++) { /* each exp(x_j - m) kept in y_j.v until divided */
				spread = fmax(spread, m - x[q * g.inner].v);
				y[q * g.inner].v = sc_cx_acc(k, exp(sc_cx_acc(k, x[q * g.inner].v - m)));
				s = sc_cx_acc(k, s + y[q * g.inner].v);
			}
			const double grow = expm1(2 * E);
			for (int64_t q = 0; q < g.K; q++) {
				const double d = m - x[q * g.inner].v;
				const double t = y[q * g.inner].v;
				const double qv = sc_cx_acc(k, t / s);
				const double rel = (d + spread) * u + 10 * u + gm;
				const double ev = 1.01 * rel * fabs(qv);
				const double v = sc_cx_round(k, qv);
				y[q * g.inner].v = v;
				y[q * g.inner].e = SC_FP_SAFETY * (fabs(qv) + ev) * grow + ev + sc_cx_rbound(k, v);
			}
		}
	return SC_OK;
}

/* The context of a norm's inner steps: results in the accumulation type. */
static struct sc_cx inner(const struct sc_cx *k)
{
	struct sc_cx ka = *k;
	ka.d = k->ref ? SC_F64 : k->acc;
	return ka;
}

/* rsqrt(mean(x * x, -1) + eps) in the accumulation type, [..., 1] */
static enum sc_status inv_rms(const struct sc_cx *ka, const struct sc_tensor *x, double eps, struct sc_tensor *out)
{
	struct sc_tensor sq, ms, ce, ve;
	SC_CHECK(sc_celem_op2(ka, SC_C_MUL, x, x, &sq));
	SC_CHECK(reduce(ka, SC_C_MEAN, -1, 1, &sq, &ms));
	SC_CHECK(sc_cx_scalar(ka, sc_cx_constant(ka, eps), &ce));
	SC_CHECK(sc_celem_op2(ka, SC_C_ADD, &ms, &ce, &ve));
	SC_CHECK(sc_celem_op1(ka, SC_C_RSQRT, 0, 0, &ve, out));
	/* the exact mean square is >= 0, so the exact result lies in
	 * (0, 1/sqrt(eps)]: the bound never needs to be wider than that */
	const double top = 1 / sqrt(eps);
	struct sc_pair *r = sc_cx_pairs(out);
	for (int64_t i = 0; i < sc_tensor_numel(out); i++)
		r[i].e = fmin(r[i].e, fmax(fabs(r[i].v), fabs(top - r[i].v)));
	return SC_OK;
}

enum sc_status sc_creduce_layernorm(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out)
{
	const struct sc_cx ka = inner(k);
	struct sc_tensor mu, xc, rs, y, t;
	if (a->t[0]->ndim == 0)
		return sc_cx_err(k, "layernorm: the input needs a last dim to normalize over (it is 0-d)");
	SC_CHECK(reduce(&ka, SC_C_MEAN, -1, 1, a->t[0], &mu));
	SC_CHECK(sc_celem_op2(&ka, SC_C_SUB, a->t[0], &mu, &xc));
	SC_CHECK(inv_rms(&ka, &xc, a->eps, &rs));
	SC_CHECK(sc_celem_op2(&ka, SC_C_MUL, &xc, &rs, &y));
	for (int i = 1; i < 3; i++) { /* weight, bias */
		if (!a->t[i])
			continue;
		if (a->t[i]->ndim != 1 || a->t[i]->shape[0] != y.shape[y.ndim - 1])
			return sc_cx_err(k, "layernorm: the %s must be [%lld], the input's last dim",
					 i == 1 ? "weight" : "bias", (long long)y.shape[y.ndim - 1]);
		SC_CHECK(sc_celem_op2(&ka, i == 1 ? SC_C_MUL : SC_C_ADD, &y, a->t[i], &t));
		y = t;
	}
	return sc_celem_cast(k, &(struct sc_cargs){.t = {&y}}, out);
}

enum sc_status sc_creduce_rmsnorm(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out)
{
	const struct sc_cx ka = inner(k);
	struct sc_tensor rs, y, t;
	SC_CHECK(inv_rms(&ka, a->t[0], a->eps, &rs));
	SC_CHECK(sc_celem_op2(&ka, SC_C_MUL, a->t[0], &rs, &y));
	if (!a->t[1])
		return sc_celem_cast(k, &(struct sc_cargs){.t = {&y}}, out);
	SC_CHECK(sc_celem_cast(k, &(struct sc_cargs){.t = {&y}}, &t)); /* type_as(x), then * weight */
	return sc_celem_op2(k, SC_C_MUL, &t, a->t[1], out);
}
