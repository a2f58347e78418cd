/* sc_steps_route: tokens moved by the expert each is routed to
 * (docs/language.md, "Routing"), a `routes R[t] LO..HI [topk=K]`
 * declaration giving every token of dim t its expert (its K experts):
 *   sort_by R dim=i [start=E]      rows in the order of their experts, stable
 *                                  (x[torch.argsort(routes, stable=True)]:
 *                                  MoE permute before a dispatch)
 *   unsort_by R dim=i [start=E]    its inverse (the combine's unpermute:
 *                                  out[sorted_indices] = x)
 *   select R dim=i experts=A..B [start=E]
 *                                  the rows routed to experts A..B, in order
 *                                  (x[(routes >= A) & (routes <= B)])
 *   combine_by R dim=i [start=E]   the sorted copies merged back into one row
 *                                  a token (the combine's scatter_add of
 *                                  gate-weighted copies, weights summing to
 *                                  one: copies that all hold x give x)
 * Row k of the rank's tensor along dim i is token E + k (E per rank, 0 by
 * default: the rank's tokens of an even shard start at rank * size); every
 * such token must exist. With topk=K a token goes to K experts: sort_by
 * and select copy it once per expert chosen, unsort_by returns every copy
 * to its token, K rows a token. All copy. */
#include <string.h>

#include "sc_devmem.h"
#include "sc_expr.h"
#include "sc_interp.h"
#include "sc_lex.h"
#include "sc_step.h"

enum { ROUTE_SORT, ROUTE_UNSORT, ROUTE_SELECT, ROUTE_COMBINE };

/* The step's routes (st->form) by name at the cursor. */
static enum sc_status parse_routes_name(struct sc_parse *p, struct sc_step *st)
{
	const struct sc_tok *t = sc_lex_peek(p);
	const struct sc_spec *s = p->s;
	for (int k = 0; t->kind == SC_T_NAME && k < s->ncounts; k++)
		if (strcmp(s->counts[k].name, t->text) == 0 && s->counts[k].route) {
			st->form = k;
			p->pos++;
			return SC_OK;
		}
	return sc_lex_err(p, t->col, "expected the name of a routes declaration (routes R[t] LO..HI) after '%s'",
			  st->def->keyword);
}

/* `start=E` at the cursor, if there: args[n]; else -1. */
static enum sc_status parse_start(struct sc_parse *p, struct sc_step *st, int n)
{
	const struct sc_tok *t = sc_lex_peek(p);
	st->args[n] = -1;
	st->nargs = n + 1;
	if (t->kind != SC_T_NAME || strcmp(t->text, "start") != 0 || !sc_lex_is_op(&p->t[p->pos + 1], "="))
		return SC_OK;
	p->pos += 2;
	return sc_expr_parse_arg(p, &st->args[n]);
}

/* sort_by / unsort_by R dim=i [start=E]: args[0] the dim, args[1] E */
static enum sc_status parse_sort(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(parse_routes_name(p, st));
	SC_CHECK(sc_lex_kv_int(p, "dim", &st->args[0]));
	SC_CHECK(parse_start(p, st, 1));
	return sc_lex_end(p);
}

/* combine_by R dim=i [start=E]: a merge of copies, checked as a reduction
 * (small integers, and a provenance run that marks a mix) */
static enum sc_status parse_combine(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(parse_sort(p, st));
	p->s->has_reduction = 1;
	return SC_OK;
}

/* select R dim=i experts=A..B [start=E]: args[0] the dim, args[1] E,
 * args[2] A, args[3] B */
static enum sc_status parse_select(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(parse_routes_name(p, st));
	SC_CHECK(sc_lex_kv_int(p, "dim", &st->args[0]));
	const struct sc_tok *t = sc_lex_peek(p);
	if (t->kind != SC_T_NAME || strcmp(t->text, "experts") != 0 || !sc_lex_is_op(&p->t[p->pos + 1], "="))
		return sc_lex_err(p, t->col, "expected 'experts=A..B' (the experts whose tokens are kept)");
	p->pos += 2;
	SC_CHECK(sc_expr_parse_arg(p, &st->args[2]));
	if (!sc_lex_is_op(sc_lex_peek(p), ".."))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '..' (experts=A..B, B included)");
	p->pos++;
	SC_CHECK(sc_expr_parse_arg(p, &st->args[3]));
	SC_CHECK(parse_start(p, st, 1)); /* args[1] only */
	st->nargs = 4;
	return sc_lex_end(p);
}

/* Rank r's rows along *d and their experts: key[k] the routes of token
 * start + k / K, for the *n rows; K entries a token (topk; rows of
 * per_row tokens each, 1 or K). */
static enum sc_status route_keys(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				 const int64_t *sizes, int r, int per_row, int *d, int64_t *n, int32_t *key,
				 struct sc_err *e)
{
	SC_CHECK(sc_interp_wrap_dim(st, st->args[0], x->t[r].ndim, d, e));
	*n = x->t[r].shape[*d];
	int64_t start = 0;
	if (st->args[1] >= 0) {
		const struct sc_expr_env env = sc_interp_env(x, r, sizes);
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[1], &start, e));
	}
	if (!x->counts)
		return sc_interp_fail(e, st, "no routes drawn for this case");
	const int k = st->form, K = sc_spec_topk(s, k), len = sc_spec_counts_len(s, k, sizes, x->counts) / K;
	if (per_row > 1 && *n % per_row)
		return sc_interp_fail(e, st, "on rank %d: %lld rows along dim %d are not whole tokens of topk=%d copies each",
				      x->first + r, (long long)*n, *d, K);
	const int64_t tokens = *n / per_row;
	if (start < 0 || start + tokens > len)
		return sc_interp_fail(e, st, "on rank %d: rows %lld..%lld along dim %d are tokens past %s's %d routes",
				      x->first + r, (long long)start, (long long)(start + tokens - 1), *d, s->counts[k].name,
				      len);
	memcpy(key, x->counts->v[k] + start * K, sizeof(int32_t) * (size_t)(tokens * K));
	return SC_OK;
}

/* Row `to` of out from row `from` of in, along d. */
static void copy_row(struct sc_tensor *out, const struct sc_tensor *in, int d, int64_t to, int64_t from)
{
	struct sc_tensor a = *in, b = *out;
	sc_interp_narrow(&a, d, from, 1);
	sc_interp_narrow(&b, d, to, 1);
	sc_tensor_copy(&b, &a);
}

/* acc = the merge of acc and in (count contiguous elements of rank r):
 * equal elements stay, a provenance run marks different ones a mix, a
 * data run keeps their max (the provenance run says what was mixed). */
static enum sc_status merge_copy(struct sc_exec *x, int r, struct sc_tensor *acc, const struct sc_tensor *in,
				 struct sc_err *e)
{
	const unsigned es = sc_interp_esize(x);
	unsigned char *a = acc->buf->data + (size_t)acc->offset * es;
	const unsigned char *b = in->buf->data + (size_t)in->offset * es;
	const size_t count = (size_t)sc_tensor_numel(acc);
	if (x->prov)
		return sc_prov_merge_rank(x, r, a, (void *)(uintptr_t)b, count, e);
	struct sc_devmem *dm = x->arena->use_dm ? x->arena->dm : NULL;
	if (!dm) {
		sc_reduce(x->dtype, SC_MAX, a, b, count);
		return SC_OK;
	}
	const int rank = sc_interp_rank(x, r);
	sc_devmem_fail(dm, dm->ops->reduce(dm, rank, a, b, count, x->dtype, SC_MAX), "combine", rank);
	return sc_devmem_status(dm, 0, e);
}

/* combine_by: token q's K copies (at the sorted positions of its entries)
 * gathered choice by choice into t-row tensors and merged. */
static enum sc_status combine_rows(struct sc_exec *x, int r, int d, int K, int64_t tokens, const int64_t *order,
				   struct sc_err *e)
{
	int64_t pos[SC_COUNTS_MAX_LEN]; /* entry q * K + j sits at sorted row pos[q * K + j] */
	for (int64_t j = 0; j < tokens * K; j++)
		pos[order[j]] = j;
	const struct sc_tensor in = x->t[r];
	int64_t shape[SC_MAX_DIMS];
	memcpy(shape, in.shape, sizeof shape);
	shape[d] = tokens;
	struct sc_tensor out, copy;
	SC_CHECK(sc_tensor_empty(sc_interp_on(x, r), shape, in.ndim, sc_interp_esize(x), &out, e));
	for (int j = 0; j < K; j++) {
		struct sc_tensor *to = j ? &copy : &out;
		if (j)
			SC_CHECK(sc_tensor_empty(sc_interp_on(x, r), shape, in.ndim, sc_interp_esize(x), &copy, e));
		for (int64_t q = 0; q < tokens; q++)
			copy_row(to, &in, d, q, pos[q * K + j]);
		if (j)
			SC_CHECK(merge_copy(x, r, &out, &copy, e));
	}
	x->t[r] = out;
	return SC_OK;
}

/* With K experts a token (topk), the entries (token q, choice j) are
 * ordered q * K + j; a row of the sorted side is one entry, a row of the
 * token side one token (sort_by, select) or one entry (unsort_by, whose
 * result keeps every copy: the K rows of token q at q * K + j, as an
 * index_copy_ into [t * K] before the weighted sum over the copies). */
static enum sc_status exec_route(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				 const int64_t *sizes, struct sc_err *e)
{
	const int kind = (int)(st->def - sc_steps_route);
	const int K = sc_spec_topk(s, st->form);
	for (int r = 0; r < x->nlocal; r++) {
		int d;
		int64_t n, lo = 0, hi = 0;
		int32_t key[SC_COUNTS_MAX_LEN];
		int64_t order[SC_COUNTS_MAX_LEN], m = 0;
		const int back = kind == ROUTE_UNSORT || kind == ROUTE_COMBINE; /* rows are copies */
		SC_CHECK(route_keys(x, s, st, sizes, r, back ? K : 1, &d, &n, key, e));
		const int64_t entries = back ? n : n * K;
		if (kind == ROUTE_SELECT) {
			const struct sc_expr_env env = sc_interp_env(x, r, sizes);
			SC_CHECK(sc_interp_eval(s, st, &env, st->args[2], &lo, e));
			SC_CHECK(sc_interp_eval(s, st, &env, st->args[3], &hi, e));
			for (int64_t k = 0; k < entries; k++)
				if (key[k] >= lo && key[k] <= hi)
					order[m++] = k;
		} else { /* a stable sort of the entries by expert: entry order[j] goes to j */
			for (int64_t k = 0; k < entries; k++) {
				int64_t j = m++;
				for (; j > 0 && key[order[j - 1]] > key[k]; j--)
					order[j] = order[j - 1];
				order[j] = k;
			}
		}
		if (kind == ROUTE_COMBINE) {
			SC_CHECK(combine_rows(x, r, d, K, n / K, order, e));
			continue;
		}
		const struct sc_tensor in = x->t[r];
		int64_t shape[SC_MAX_DIMS];
		memcpy(shape, in.shape, sizeof shape);
		shape[d] = m;
		struct sc_tensor out;
		SC_CHECK(sc_tensor_empty(sc_interp_on(x, r), shape, in.ndim, sc_interp_esize(x), &out, e));
		for (int64_t j = 0; j < m; j++)
			if (kind == ROUTE_UNSORT)
				copy_row(&out, &in, d, order[j], j);
			else
				copy_row(&out, &in, d, j, order[j] / K);
		x->t[r] = out;
	}
	return SC_OK;
}

const struct sc_step_def sc_steps_route[] = {
	{"sort_by", 0, parse_sort, exec_route},
	{"unsort_by", 0, parse_sort, exec_route},
	{"select", 0, parse_select, exec_route},
	{"combine_by", 0, parse_combine, exec_route},
	{NULL, 0, NULL, NULL},
};
