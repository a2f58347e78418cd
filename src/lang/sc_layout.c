/* sc_layout: placements: parsing, resolving, index maps. */
#include "sc_layout.h"

#include <stdio.h>
#include <string.h>

#include "sc_expr.h"
#include "sc_tensor.h"

void sc_layout_rows(enum sc_shard_rule rule, int64_t L, int64_t P, int64_t r, int64_t *start, int64_t *len)
{
	if (rule == SC_RULE_CHUNK) {
		const int64_t c = (L + P - 1) / P;
		const int64_t a = r * c < L ? r * c : L, b = (r + 1) * c < L ? (r + 1) * c : L;
		*start = a;
		*len = b - a;
	} else if (rule == SC_RULE_SPLIT) {
		const int64_t q = L / P, m = L % P;
		*start = r * q + (r < m ? r : m);
		*len = q + (r < m);
	} else {
		*len = L / P;
		*start = r * *len;
	}
}

enum sc_status sc_layout_sized_rows(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes,
				    int world, int rank, int64_t *start, int64_t *len, int64_t *total,
				    struct sc_err *e)
{
	struct sc_expr_env v = sc_expr_env_global(xsizes, world);
	v.counts = lc ? lc->counts : NULL;
	v.bound = 1u << SC_VAR_R;
	int64_t sum = 0, a = 0, n = 0;
	for (int q = 0; q < world; q++) {
		int64_t k;
		v.var[SC_VAR_R] = q;
		if (!lc)
			return SC_ERR(e, SC_E_INTERNAL, "a sizes= placement mapped without its spec");
		SC_CHECK(sc_expr_eval_in(lc->s, l->sizes_expr, &v, &k, e));
		if (k < 0)
			return SC_ERR(e, SC_E_RUNTIME, "sizes= gives rank %d %lld rows", q, (long long)k);
		if (q == rank) {
			a = sum;
			n = k;
		}
		if (__builtin_add_overflow(sum, k, &sum))
			return SC_ERR(e, SC_E_RUNTIME, "sizes= overflows");
	}
	*start = a;
	*len = n;
	*total = sum;
	return SC_OK;
}

void sc_layout_map(const struct sc_layout *l, const int64_t *xsizes, int ndims, int world,
		   int rank, struct sc_map *m)
{
	sc_layout_map_in(l, NULL, xsizes, ndims, world, rank, m);
}

void sc_layout_map_in(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes, int ndims,
		      int world, int rank, struct sc_map *m)
{
	int64_t xs[SC_MAX_DIMS];
	sc_contig_strides(xsizes, ndims, xs);
	m->ndim = 0;
	m->offset = 0;
	int extra = -1;  /* zigzag: the order position whose dim became two */
	int merged = -1; /* shard (a b): the order position where the group became one */
	for (int k = 0; k < l->norder; k++) {
		int d = l->order[k];
		m->shape[m->ndim] = xsizes[d];
		m->stride[m->ndim] = xs[d];
		if (l->kind == SC_SHARD && d == l->shard_dim && l->rule == SC_RULE_ZIGZAG && m->ndim + 1 < SC_MAX_DIMS) {
			/* blocks r and 2P-1-r of b rows: a dim of 2 blocks, then b rows */
			const int64_t b = xsizes[d] / (2 * (int64_t)world);
			m->shape[m->ndim] = 2;
			m->stride[m->ndim] = (2 * (int64_t)world - 1 - 2 * (int64_t)rank) * b * xs[d];
			m->ndim++;
			m->shape[m->ndim] = b;
			m->stride[m->ndim] = xs[d];
			m->offset += (int64_t)rank * b * xs[d];
			extra = k;
		} else if (l->kind == SC_SHARD && d == l->shard_dim && l->shard_ndims > 1) {
			/* the merged group as one dim of X (consecutive dims, row-major) */
			int64_t L = 1, start, len;
			for (int i = 0; i < l->shard_ndims; i++)
				L *= xsizes[d + i];
			sc_layout_rows(l->rule, L, world, rank, &start, &len);
			m->shape[m->ndim] = len;
			m->stride[m->ndim] = xs[d + l->shard_ndims - 1];
			m->offset += start * xs[d + l->shard_ndims - 1];
			merged = k;
			k += l->shard_ndims - 1;
		} else if (l->kind == SC_SHARD && d == l->shard_dim) {
			int64_t start = 0, len = 0, total;
			if (l->rule == SC_RULE_SIZES) /* validated when the case was made */
				(void)sc_layout_sized_rows(l, lc, xsizes, world, rank, &start, &len, &total, NULL);
			else
				sc_layout_rows(l->rule, xsizes[d], world, rank, &start, &len);
			m->shape[m->ndim] = len;
			m->offset += start * xs[d];
		}
		m->ndim++;
	}
	int pos = 0, k0 = 0;
	m->lndim = l->ngroups;
	for (int g = 0; g < l->ngroups; g++) {
		int64_t p = 1;
		int n = l->group_len[g] + (extra >= k0 && extra < k0 + l->group_len[g]) -
			(merged >= k0 && merged < k0 + l->group_len[g] ? l->shard_ndims - 1 : 0);
		for (int k = 0; k < n; k++)
			p *= m->shape[pos + k];
		m->lshape[g] = p;
		pos += n;
		k0 += l->group_len[g];
	}
}

/* After `shard NAME`: chunk, split, zigzag or sizes=E (E of r). */
static enum sc_status parse_rule(struct sc_parse *p, struct sc_layout *l)
{
	struct sc_tok *r = sc_lex_peek(p);
	static const struct {
		const char *word;
		enum sc_shard_rule rule;
	} rules[] = {{"chunk", SC_RULE_CHUNK}, {"split", SC_RULE_SPLIT}, {"zigzag", SC_RULE_ZIGZAG}};
	for (size_t k = 0; r->kind == SC_T_NAME && k < sizeof rules / sizeof rules[0]; k++)
		if (strcmp(r->text, rules[k].word) == 0) {
			l->rule = rules[k].rule;
			p->pos++;
			break;
		}
	if (r->kind == SC_T_NAME && strcmp(r->text, "sizes") == 0 && sc_lex_is_op(&p->t[p->pos + 1], "=")) {
		p->pos += 2;
		p->bound[SC_VAR_R] = "r";
		enum sc_status rc = sc_expr_parse_arg(p, &l->sizes_expr);
		p->bound[SC_VAR_R] = NULL;
		SC_CHECK(rc);
		l->rule = SC_RULE_SIZES;
	}
	return SC_OK;
}

static int is_only(const struct sc_tok *t) { return t->kind == SC_T_NAME && strcmp(t->text, "only") == 0; }

/* `only E` ends a placement: E a rank index or a condition on `rank`. */
static enum sc_status parse_only(struct sc_parse *p, struct sc_layout *l)
{
	p->pos++;
	if (sc_lex_peek(p)->kind == SC_T_END)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected a rank or a condition on rank after 'only'");
	int node;
	SC_CHECK(sc_expr_parse_any(p, &node));
	l->only1 = node + 1;
	return sc_lex_end(p);
}

int sc_layout_checks(const struct sc_spec *s, const struct sc_layout *l, const int64_t *sizes, int world, int rank)
{
	if (!l->only1)
		return 1;
	struct sc_expr_env v = sc_expr_env_global(sizes, world);
	v.rank = rank;
	int64_t got;
	if (sc_expr_eval_in(s, l->only1 - 1, &v, &got, NULL) != SC_OK)
		return 1; /* an `only` that cannot be evaluated checks everything */
	return sc_expr_is_cond(s, l->only1 - 1) ? got != 0 : got == rank;
}

/* `shard (a b ...)`: the group's names into pp. */
static enum sc_status parse_shard_group(struct sc_parse *p, struct sc_layout_names *pp)
{
	p->pos++; /* ( */
	pp->shard_n = 0;
	while (!sc_lex_is_op(sc_lex_peek(p), ")")) {
		struct sc_tok *t = sc_lex_peek(p);
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected a dim name in 'shard (...)'");
		if (pp->shard_n >= SC_MAX_DIMS)
			return sc_lex_err(p, t->col, "too many dims in 'shard (...)'");
		snprintf(pp->shard_names[pp->shard_n], SC_NAME_MAX, "%s", t->text);
		pp->shard_cols[pp->shard_n++] = t->col;
		p->pos++;
	}
	p->pos++;
	if (pp->shard_n < 2)
		return sc_lex_err(p, sc_lex_peek(p)->col, "'shard (...)' merges two or more dims");
	return SC_OK;
}

static enum sc_status parse_placement(struct sc_parse *p, struct sc_layout *l, int *shard_col,
				      char *shard_name, int *layout_names, char names[][SC_NAME_MAX],
				      int *name_cols, int *group_open_col, struct sc_layout_names *pp)
{
	struct sc_tok *t = sc_lex_peek(p);
	memset(l, 0, sizeof *l);
	l->shard_dim = -1;
	*layout_names = 0;
	*group_open_col = 0;
	if (t->kind != SC_T_NAME)
		return sc_lex_err(p, t->col, "expected a placement: shard NAME, replicate or partial OP");
	if (strcmp(t->text, "shard") == 0) {
		p->pos++;
		struct sc_tok *n = sc_lex_peek(p);
		l->kind = SC_SHARD;
		if (sc_lex_is_op(n, "(")) { /* a merged group as a whole */
			SC_CHECK(parse_shard_group(p, pp));
			snprintf(shard_name, SC_NAME_MAX, "%s", pp->shard_names[0]);
			*shard_col = pp->shard_cols[0];
		} else {
			if (n->kind != SC_T_NAME)
				return sc_lex_err(p, n->col, "expected a dim name after 'shard'");
			snprintf(shard_name, SC_NAME_MAX, "%s", n->text);
			*shard_col = n->col;
			p->pos++;
		}
		SC_CHECK(parse_rule(p, l));
	} else if (strcmp(t->text, "replicate") == 0) {
		l->kind = SC_REPLICATE;
		p->pos++;
	} else if (strcmp(t->text, "partial") == 0) {
		p->pos++;
		l->kind = SC_PARTIAL;
		SC_CHECK(sc_lex_redop(p, &l->op));
	} else if (strcmp(t->text, "shape") == 0) {
		p->pos++;
		l->kind = SC_OPAQUE;
		if (!sc_lex_is_op(sc_lex_peek(p), "["))
			return sc_lex_err(p, sc_lex_peek(p)->col, "expected '[' after 'shape'");
		p->pos++;
		while (!sc_lex_is_op(sc_lex_peek(p), "]")) {
			if (l->nshape >= SC_MAX_DIMS)
				return sc_lex_err(p, sc_lex_peek(p)->col, "too many dims (at most %d)", SC_MAX_DIMS);
			SC_CHECK(sc_expr_parse(p, &l->shape_expr[l->nshape]));
			l->nshape++;
			if (sc_lex_is_op(sc_lex_peek(p), ","))
				p->pos++;
			else if (!sc_lex_is_op(sc_lex_peek(p), "]"))
				return sc_lex_err(p, sc_lex_peek(p)->col, "expected ',' or ']'");
		}
		p->pos++;
		return sc_lex_end(p);
	} else {
		return sc_lex_err(p, t->col, "unknown placement '%s' (expected shard, replicate or partial)", t->text);
	}
	t = sc_lex_peek(p);
	if (t->kind == SC_T_END)
		return SC_OK;
	if (is_only(t))
		return parse_only(p, l);
	if (t->kind != SC_T_NAME || strcmp(t->text, "as") != 0)
		return sc_lex_err(p, t->col, "expected 'as', 'only' or end of line, got '%s'", t->text);
	p->pos++;
	int in_group = 0, glen = 0;
	for (;;) {
		t = sc_lex_peek(p);
		if (t->kind == SC_T_END)
			break;
		if (is_only(t) && !in_group)
			break;
		if (sc_lex_is_op(t, "(")) {
			if (in_group)
				return sc_lex_err(p, t->col, "nested '(' in a layout");
			in_group = 1;
			glen = 0;
			*group_open_col = t->col;
			p->pos++;
			continue;
		}
		if (sc_lex_is_op(t, ")")) {
			if (!in_group)
				return sc_lex_err(p, t->col, "unbalanced ')' in a layout");
			if (glen == 0)
				return sc_lex_err(p, t->col, "empty group '()' in a layout");
			in_group = 0;
			l->group_len[l->ngroups++] = glen;
			p->pos++;
			continue;
		}
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected a dim name in the layout, got '%s'", t->text);
		if (*layout_names >= SC_MAX_DIMS)
			return sc_lex_err(p, t->col, "too many names in the layout");
		snprintf(names[*layout_names], SC_NAME_MAX, "%s", t->text);
		name_cols[*layout_names] = t->col;
		(*layout_names)++;
		if (in_group)
			glen++;
		else
			l->group_len[l->ngroups++] = 1;
		p->pos++;
	}
	if (in_group)
		return sc_lex_err(p, *group_open_col, "unclosed '(' in a layout");
	if (*layout_names == 0)
		return sc_lex_err(p, t->col, "expected dim names after 'as'");
	if (is_only(sc_lex_peek(p)))
		return parse_only(p, l);
	return SC_OK;
}

enum sc_status sc_layout_parse(struct sc_parse *p, struct sc_layout *l, struct sc_layout_names *pp)
{
	int gcol;
	pp->shard_n = 0;
	return parse_placement(p, l, &pp->shard_col, pp->shard_name, &pp->nnames, pp->names, pp->name_cols, &gcol, pp);
}

/* `shard (a b)`: consecutive dims of X in order, a chunk or split rule. */
static enum sc_status resolve_shard_group(struct sc_parse *p, struct sc_layout *l, const struct sc_layout_names *pp,
					  const char *what)
{
	const struct sc_spec *s = p->s;
	l->shard_ndims = pp->shard_n > 1 ? pp->shard_n : 1;
	if (pp->shard_n < 2)
		return SC_OK;
	for (int k = 1; k < pp->shard_n; k++)
		if (sc_lex_dim(s, pp->shard_names[k]) != l->shard_dim + k)
			return sc_lex_err(p, pp->shard_cols[k],
					  "%s: 'shard (...)' merges consecutive dims of X in their order ('%s' is not the dim after '%s')",
					  what, pp->shard_names[k], pp->shard_names[k - 1]);
	if (l->rule != SC_RULE_CHUNK && l->rule != SC_RULE_SPLIT)
		return sc_lex_err(p, pp->shard_col, "%s: a merged group shards with chunk or split", what);
	return SC_OK;
}

/* `shard (a b)`: the layout must merge exactly that group. */
static enum sc_status check_shard_group(struct sc_parse *p, const struct sc_layout *l,
					const struct sc_layout_names *pp, const char *what)
{
	if (l->shard_ndims > 1) { /* `shard (a b)`: the layout must merge exactly that group */
		int pos = 0, found = 0;
		for (int g = 0; g < l->ngroups; g++) {
			if (l->group_len[g] == l->shard_ndims && l->order[pos] == l->shard_dim) {
				found = 1;
				for (int k = 1; k < l->shard_ndims; k++)
					found &= l->order[pos + k] == l->shard_dim + k;
			}
			if (found)
				break;
			pos += l->group_len[g];
		}
		if (!found)
			return sc_lex_err(p, pp->shard_col, "%s: 'shard (...)' needs the same group in its 'as' layout", what);
	}
	return SC_OK;
}

enum sc_status sc_layout_resolve(struct sc_parse *p, struct sc_layout *l, const struct sc_layout_names *pp,
				 const char *what)
{
	struct sc_spec *s = p->s;
	p->line = pp->line;
	if (l->kind == SC_SHARD) {
		l->shard_dim = sc_lex_dim(s, pp->shard_name);
		if (l->shard_dim < 0)
			return sc_lex_err(p, pp->shard_col, "%s: unknown dim '%s'", what, pp->shard_name);
		SC_CHECK(resolve_shard_group(p, l, pp, what));
	}
	if (l->kind == SC_OPAQUE)
		return SC_OK;
	if (pp->nnames == 0) {
		l->norder = s->ndims;
		l->ngroups = s->ndims;
		for (int i = 0; i < s->ndims; i++) {
			l->order[i] = i;
			l->group_len[i] = 1;
		}
		return check_shard_group(p, l, pp, what);
	}
	int seen[SC_MAX_DIMS] = {0};
	for (int i = 0; i < pp->nnames; i++) {
		int d = sc_lex_dim(s, pp->names[i]);
		if (d < 0)
			return sc_lex_err(p, pp->name_cols[i], "%s layout: unknown dim '%s'", what, pp->names[i]);
		if (seen[d])
			return sc_lex_err(p, pp->name_cols[i], "%s layout: dim '%s' appears twice", what, pp->names[i]);
		seen[d] = 1;
		l->order[i] = d;
	}
	l->norder = pp->nnames;
	for (int d = 0; d < s->ndims; d++)
		if (!seen[d])
			return sc_lex_err(p, pp->name_cols[0], "%s layout: dim '%s' is missing (a layout is a permutation of the dims)",
				    what, s->dim[d]);
	/* the rank's part is taken along the sharded dim first, then arranged:
	 * the sharded dim may stand anywhere in a merged group */
	return check_shard_group(p, l, pp, what);
}
