/* sc_expr_eval: checked evaluation of the expressions sc_expr.c parses
 * (integers with overflow and exact-division checks, Python's floor
 * division and remainder, drawn counts, sums; compute constants in
 * double). */
#include "sc_expr.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const var_names[SC_VAR_COUNT] = {"src", "dst", "k", "r"};

static enum sc_status eval_rec(const struct sc_spec *s, int node, const struct sc_expr_env *v,
			       int64_t *out, struct sc_err *e);

#define SUM_MAX_TERMS ((int64_t)1 << 20)

/* sum(a for NAME in b..c) */
static enum sc_status eval_sumof(const struct sc_spec *s, const struct sc_expr *x, const struct sc_expr_env *v,
				 int64_t *out, struct sc_err *e)
{
	int64_t lo, hi, r = 0;
	SC_CHECK(eval_rec(s, x->b, v, &lo, e));
	SC_CHECK(eval_rec(s, x->c, v, &hi, e));
	int64_t span = -1; /* the terms after the first */
	if (hi >= lo && (__builtin_sub_overflow(hi, lo, &span) || span >= SUM_MAX_TERMS))
		return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: a sum over %lld..%lld (at most %lld terms)", x->line, x->col,
			      (long long)lo, (long long)hi, (long long)SUM_MAX_TERMS);
	struct sc_expr_env w = *v;
	int64_t terms = 0; /* the outermost sum's count, shared by the sums inside it */
	if (x->dim == 0 || !w.terms)
		w.terms = &terms;
	w.nsums = x->dim + 1;
	for (int64_t k = 0; k <= span; k++) { /* j = lo + k: never past hi */
		int64_t t;
		if (++*w.terms > SUM_MAX_TERMS)
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: sums nested here add more than %lld terms", x->line,
				      x->col, (long long)SUM_MAX_TERMS);
		w.sum[x->dim] = lo + k;
		SC_CHECK(eval_rec(s, x->a, &w, &t, e));
		if (__builtin_add_overflow(r, t, &r))
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: integer overflow", x->line, x->col);
	}
	*out = r;
	return SC_OK;
}

/* An entry of a counts matrix, or a row's or column's sum. */
static enum sc_status eval_counts(const struct sc_spec *s, const struct sc_expr *x, const struct sc_expr_env *v,
				  int64_t *out, struct sc_err *e)
{
	if (!v->counts)
		return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: '%s' has no value here (counts are drawn per case)",
			      x->line, x->col, x->name);
	const int P = v->counts->P;
	const int32_t *m = v->counts->v[x->dim];
	int64_t i, j = 0;
	const int K = sc_spec_topk(s, x->dim); /* routes: entries per token */
	if (x->kind == SC_EX_COUNTLEN) { /* routes: the tokens */
		*out = sc_spec_counts_len(s, x->dim, v->counts_sizes ? v->counts_sizes : v->sizes, v->counts) / K;
		return SC_OK;
	}
	if (x->kind == SC_EX_ROUTED) { /* tokens a..b routed to expert c (each once at most) */
		int64_t a, b, ex;
		SC_CHECK(eval_rec(s, x->a, v, &a, e));
		SC_CHECK(eval_rec(s, x->b, v, &b, e));
		SC_CHECK(eval_rec(s, x->c, v, &ex, e));
		const int n = sc_spec_counts_len(s, x->dim, v->counts_sizes ? v->counts_sizes : v->sizes, v->counts) / K;
		if (b >= a && (a < 0 || b >= n))
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: routed(%s, %lld, %lld, ...): tokens out of range (%d tokens)",
				      x->line, x->col, x->name, (long long)a, (long long)b, n);
		int64_t r = 0;
		for (int64_t q = a * K; q < (b + 1) * K; q++)
			r += m[q] == ex;
		*out = r;
		return SC_OK;
	}
	SC_CHECK(eval_rec(s, x->a, v, &i, e));
	if (sc_spec_counts_vec(s, x->dim) && x->kind == SC_EX_COUNT) { /* a vector's entry; R(q, j) with topk */
		const int n = sc_spec_counts_len(s, x->dim, v->counts_sizes ? v->counts_sizes : v->sizes, v->counts) / K;
		if (x->b >= 0)
			SC_CHECK(eval_rec(s, x->b, v, &j, e));
		if (i < 0 || i >= n || j < 0 || j >= K)
			return K > 1 ? SC_ERR(e, SC_E_RUNTIME, "line %d col %d: %s(%lld, %lld) out of range (%d tokens, topk=%d)",
					      x->line, x->col, x->name, (long long)i, (long long)j, n, K)
				     : SC_ERR(e, SC_E_RUNTIME, "line %d col %d: %s index %lld out of range (%d entries)", x->line,
					      x->col, x->name, (long long)i, n);
		*out = m[i * K + j];
		return SC_OK;
	}
	if (x->kind == SC_EX_COUNT)
		SC_CHECK(eval_rec(s, x->b, v, &j, e));
	if (i < 0 || i >= P || j < 0 || j >= P)
		return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: %s index %lld out of range (the matrix is %d x %d)",
			      x->line, x->col, x->name, (long long)(i < 0 || i >= P ? i : j), P, P);
	int64_t r = 0;
	if (x->kind == SC_EX_COUNT)
		r = m[i * P + j];
	else
		for (int k = 0; k < P; k++)
			r += x->kind == SC_EX_ROWSUM ? m[i * P + k] : m[k * P + i];
	*out = r;
	return SC_OK;
}

/* Leaves: numbers, names and per-rank values. 1 when node was one. */
static int eval_leaf(const struct sc_spec *s, const struct sc_expr *x, const struct sc_expr_env *v,
		     int64_t *out, enum sc_status *st, struct sc_err *e)
{
	*st = SC_OK;
	switch (x->kind) {
	case SC_EX_NUM: *out = x->num; return 1;
	case SC_EX_DIM: *out = v->sizes[x->dim]; return 1;
	case SC_EX_WORLD: *out = v->world; return 1;
	case SC_EX_NONE: *out = INT64_MIN; return 1;
	case SC_EX_NAME: *st = SC_ERR(e, SC_E_INTERNAL, "unresolved name '%s'", x->name); return 1;
	case SC_EX_REAL:
	case SC_EX_SQRT:
		*st = SC_ERR(e, SC_E_RUNTIME, "line %d col %d: a real number where an integer is needed", x->line, x->col);
		return 1;
	case SC_EX_RANK:
		if (v->rank < 0)
			*st = SC_ERR(e, SC_E_RUNTIME, "line %d col %d: 'rank' has no value here", x->line, x->col);
		*out = v->rank;
		return 1;
	case SC_EX_COORD: {
		if (v->rank < 0)
			*st = SC_ERR(e, SC_E_RUNTIME, "line %d col %d: '%s' (a rank's mesh coordinate) has no value here",
				     x->line, x->col, s->mesh_dim[x->dim]);
		const struct sc_mesh m = sc_spec_mesh(s, v->sizes, (int)v->world);
		*out = v->rank < 0 ? 0 : sc_mesh_coord(&m, (int)v->rank, x->dim);
		return 1;
	}
	case SC_EX_VAR:
		if (!((v->bound >> x->dim) & 1u))
			*st = SC_ERR(e, SC_E_RUNTIME, "line %d col %d: '%s' has no value here", x->line, x->col,
				     x->name[0] ? x->name : var_names[x->dim]);
		*out = v->var[x->dim];
		return 1;
	case SC_EX_SIZE: {
		int64_t i = 0;
		if ((*st = eval_rec(s, x->a, v, &i, e)) != SC_OK)
			return 1;
		if (!v->shape)
			*st = SC_ERR(e, SC_E_RUNTIME, "line %d col %d: size() has no tensor here", x->line, x->col);
		else if (i < -(int64_t)v->ndim || i >= v->ndim)
			*st = SC_ERR(e, SC_E_RUNTIME,
				     "line %d col %d: size(%lld): dim out of range (the rank's tensor has %d dims)",
				     x->line, x->col, (long long)i, v->ndim);
		else
			*out = v->shape[i < 0 ? i + v->ndim : i];
		return 1;
	}
	case SC_EX_COUNT:
	case SC_EX_ROWSUM:
	case SC_EX_COLSUM:
	case SC_EX_COUNTLEN:
	case SC_EX_ROUTED: *st = eval_counts(s, x, v, out, e); return 1;
	case SC_EX_LOOP:
		if (x->dim >= v->nloops)
			*st = SC_ERR(e, SC_E_RUNTIME, "line %d col %d: '%s' has no value here", x->line, x->col, x->name);
		else
			*out = v->loop[x->dim];
		return 1;
	case SC_EX_INDEX:
		if (x->dim >= v->nsums)
			*st = SC_ERR(e, SC_E_RUNTIME, "line %d col %d: '%s' has no value here", x->line, x->col, x->name);
		else
			*out = v->sum[x->dim];
		return 1;
	case SC_EX_SUMOF: *st = eval_sumof(s, x, v, out, e); return 1;
	default: return 0;
	}
}

/* a // b and a % b, floor as Python; b != 0, no overflow. */
static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t r = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		r--;
	return r;
}

static enum sc_status eval_div(const struct sc_expr *x, int64_t a, int64_t b, int64_t *out, struct sc_err *e)
{
	if (b == 0)
		return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: division by zero", x->line, x->col);
	if (a == INT64_MIN && b == -1)
		return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: integer overflow in division", x->line, x->col);
	switch (x->kind) {
	case SC_EX_DIV:
		if (a % b != 0)
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: %lld / %lld is not exact (use // for floor division)",
				      x->line, x->col, (long long)a, (long long)b);
		*out = a / b;
		return SC_OK;
	case SC_EX_FDIV: *out = floordiv(a, b); return SC_OK;
	default: { /* MOD */
		int64_t r = a % b;
		if (r != 0 && ((r < 0) != (b < 0)))
			r += b;
		*out = r;
		return SC_OK;
	}
	}
}

static enum sc_status eval_rec(const struct sc_spec *s, int node, const struct sc_expr_env *v,
			       int64_t *out, struct sc_err *e)
{
	const struct sc_expr *x = &s->nodes[node];
	int64_t a = 0, b = 0, r = 0;
	enum sc_status st;
	if (eval_leaf(s, x, v, out, &st, e))
		return st;
	if (x->kind == SC_EX_IF) {
		SC_CHECK(eval_rec(s, x->c, v, &a, e));
		return eval_rec(s, a ? x->a : x->b, v, out, e);
	}
	SC_CHECK(eval_rec(s, x->a, v, &a, e));
	switch (x->kind) { /* unary, and the short-circuits */
	case SC_EX_NEG:
		if (a == INT64_MIN)
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: integer overflow", x->line, x->col);
		*out = -a;
		return SC_OK;
	case SC_EX_NOT: *out = !a; return SC_OK;
	case SC_EX_AND:
		if (!a) { *out = 0; return SC_OK; }
		SC_CHECK(eval_rec(s, x->b, v, &b, e));
		*out = b != 0;
		return SC_OK;
	case SC_EX_OR:
		if (a) { *out = 1; return SC_OK; }
		SC_CHECK(eval_rec(s, x->b, v, &b, e));
		*out = b != 0;
		return SC_OK;
	default: break;
	}
	SC_CHECK(eval_rec(s, x->b, v, &b, e));
	static const char *const opname[] = {[SC_EX_ADD] = "+", [SC_EX_SUB] = "-", [SC_EX_MUL] = "*"};
	int over = 0;
	switch (x->kind) {
	case SC_EX_ADD: over = __builtin_add_overflow(a, b, &r); break;
	case SC_EX_SUB: over = __builtin_sub_overflow(a, b, &r); break;
	case SC_EX_MUL: over = __builtin_mul_overflow(a, b, &r); break;
	case SC_EX_DIV:
	case SC_EX_FDIV:
	case SC_EX_MOD: return eval_div(x, a, b, out, e);
	case SC_EX_CDIV:
		if (b == 0)
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: cdiv by zero", x->line, x->col);
		if ((a == INT64_MIN) || (b == INT64_MIN))
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: integer overflow in cdiv", x->line, x->col);
		*out = -floordiv(-a, b);
		return SC_OK;
	case SC_EX_MIN: *out = a < b ? a : b; return SC_OK;
	case SC_EX_MAX: *out = a > b ? a : b; return SC_OK;
	case SC_EX_CMP:
		switch ((enum sc_cmp)x->num) {
		case SC_EQ: r = a == b; break;
		case SC_NE: r = a != b; break;
		case SC_LT: r = a < b; break;
		case SC_LE: r = a <= b; break;
		case SC_GT: r = a > b; break;
		case SC_GE: r = a >= b; break;
		}
		*out = r;
		return SC_OK;
	default: return SC_ERR(e, SC_E_INTERNAL, "bad expression node");
	}
	if (over)
		return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: integer overflow in %lld %s %lld", x->line, x->col,
			      (long long)a, opname[x->kind], (long long)b);
	*out = r;
	return SC_OK;
}

enum sc_status sc_expr_eval_in(const struct sc_spec *s, int node, const struct sc_expr_env *env,
			       int64_t *out, struct sc_err *e)
{
	int64_t v;
	SC_CHECK(eval_rec(s, node, env, &v, e));
	*out = v;
	return SC_OK;
}

enum sc_status sc_expr_eval(const struct sc_spec *s, int node, const int64_t *sizes,
			    int64_t world, int64_t *out, struct sc_err *e)
{
	const struct sc_expr_env v = sc_expr_env_global(sizes, world);
	return sc_expr_eval_in(s, node, &v, out, e);
}

enum sc_status sc_expr_cond(const struct sc_spec *s, const struct sc_cond *c, const int64_t *sizes,
			    int64_t world, int *holds, struct sc_err *e)
{
	int64_t v;
	SC_CHECK(sc_expr_eval(s, c->node, sizes, world, &v, e));
	*holds = v != 0;
	return SC_OK;
}

int sc_expr_cond_holds(const struct sc_spec *s, const struct sc_cond *c, const int64_t *sizes, int64_t world)
{
	int h = 0;
	return sc_expr_cond(s, c, sizes, world, &h, NULL) == SC_OK && h;
}

/* ---- compute constants: the same trees evaluated in double ---- */

static enum sc_status real_rec(const struct sc_spec *s, int node, const struct sc_expr_env *v, double *out,
			       struct sc_err *e)
{
	const struct sc_expr *x = &s->nodes[node];
	double a = 0, b = 0;
	switch (x->kind) {
	case SC_EX_REAL: *out = x->real; return SC_OK;
	case SC_EX_IF:
		SC_CHECK(real_rec(s, x->c, v, &a, e));
		return real_rec(s, a != 0 ? x->a : x->b, v, out, e);
	case SC_EX_NEG:
	case SC_EX_SQRT:
	case SC_EX_NOT:
		SC_CHECK(real_rec(s, x->a, v, &a, e));
		if (x->kind == SC_EX_SQRT && !(a >= 0))
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: sqrt(%g): not a real number", x->line, x->col, a);
		*out = x->kind == SC_EX_NEG ? -a : x->kind == SC_EX_SQRT ? sqrt(a) : (double)(a == 0);
		return SC_OK;
	case SC_EX_ADD: case SC_EX_SUB: case SC_EX_MUL: case SC_EX_DIV: case SC_EX_FDIV: case SC_EX_MOD:
	case SC_EX_CDIV: case SC_EX_MIN: case SC_EX_MAX: case SC_EX_CMP: case SC_EX_AND: case SC_EX_OR:
		break;
	default: { /* leaves and size(), counts: integers */
		int64_t i;
		SC_CHECK(eval_rec(s, node, v, &i, e));
		*out = (double)i;
		return SC_OK;
	}
	}
	SC_CHECK(real_rec(s, x->a, v, &a, e));
	SC_CHECK(real_rec(s, x->b, v, &b, e));
	const int divides = x->kind == SC_EX_DIV || x->kind == SC_EX_FDIV || x->kind == SC_EX_MOD || x->kind == SC_EX_CDIV;
	if (divides && b == 0)
		return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: division by zero", x->line, x->col);
	switch (x->kind) {
	case SC_EX_ADD: *out = a + b; break;
	case SC_EX_SUB: *out = a - b; break;
	case SC_EX_MUL: *out = a * b; break;
	case SC_EX_DIV: *out = a / b; break;
	case SC_EX_FDIV: *out = floor(a / b); break;
	case SC_EX_MOD: *out = a - b * floor(a / b); break;
	case SC_EX_CDIV: *out = ceil(a / b); break;
	case SC_EX_MIN: *out = a < b ? a : b; break;
	case SC_EX_MAX: *out = a > b ? a : b; break;
	case SC_EX_AND: *out = a != 0 && b != 0; break;
	case SC_EX_OR: *out = a != 0 || b != 0; break;
	default: { /* SC_EX_CMP */
		static const int table[][3] = {/* <, ==, > */ [SC_EQ] = {0, 1, 0}, [SC_NE] = {1, 0, 1},
					       [SC_LT] = {1, 0, 0}, [SC_LE] = {1, 1, 0},
					       [SC_GT] = {0, 0, 1}, [SC_GE] = {0, 1, 1}};
		*out = table[x->num][a < b ? 0 : a == b ? 1 : 2];
		break;
	}
	}
	if (!isfinite(*out))
		return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: the constant is not finite", x->line, x->col);
	return SC_OK;
}

enum sc_status sc_expr_eval_real(const struct sc_spec *s, int node, const struct sc_expr_env *env, double *out,
				 struct sc_err *e)
{
	double v;
	SC_CHECK(real_rec(s, node, env, &v, e));
	*out = v;
	return SC_OK;
}
