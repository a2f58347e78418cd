/* sc_counts: counts declarations. */
#include "sc_counts.h"

#include <stdio.h>
#include <string.h>

#include "sc_expr.h"

/* NAME, new among the counts, into a fresh declaration. */
static enum sc_status new_decl(struct sc_parse *p, const struct sc_tok *kw, struct sc_countsdecl **out)
{
	struct sc_spec *s = p->s;
	struct sc_tok *n = sc_lex_peek(p);
	if (n->kind != SC_T_NAME)
		return sc_lex_err(p, n->col, "expected a name after '%s'", kw->text);
	if (s->ncounts >= SC_MAX_COUNTS)
		return sc_lex_err(p, kw->col, "too many counts declarations (at most %d)", SC_MAX_COUNTS);
	for (int k = 0; k < s->ncounts; k++)
		if (strcmp(s->counts[k].name, n->text) == 0)
			return sc_lex_err(p, n->col, "duplicate counts '%s'", n->text);
	if (sc_lex_dim(s, n->text) >= 0 || strcmp(n->text, s->world_sym) == 0)
		return sc_lex_err(p, n->col, "'%s' is a dim name: counts need a name of their own", n->text);
	struct sc_countsdecl *c = &s->counts[s->ncounts];
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", n->text);
	c->line = p->line;
	c->col = n->col;
	c->len_dim = c->len_dim2 = c->sum_dim = c->seq_lo = c->seq_hi = c->multiple = -1;
	p->pos++;
	*out = c;
	return SC_OK;
}

/* LO..HI at the cursor. */
static enum sc_status range(struct sc_parse *p, struct sc_countsdecl *c, const char *usage)
{
	SC_CHECK(sc_expr_parse(p, &c->lo));
	if (!sc_lex_is_op(sc_lex_peek(p), ".."))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '..' in %s", usage);
	p->pos++;
	return sc_expr_parse(p, &c->hi);
}

enum sc_status sc_counts_parse_matrix(struct sc_parse *p, const struct sc_tok *kw)
{
	struct sc_spec *s = p->s;
	struct sc_countsdecl *c;
	SC_CHECK(new_decl(p, kw, &c));
	SC_CHECK(range(p, c, "counts NAME LO..HI"));
	struct sc_tok *g = sc_lex_peek(p);
	if (g->kind == SC_T_NAME && strcmp(g->text, "group") == 0 && sc_lex_is_op(&p->t[p->pos + 1], "=")) {
		if (!s->nmesh)
			return sc_lex_err(p, g->col, "counts over a group need a mesh: declare 'mesh' before this line");
		p->pos += 2;
		SC_CHECK(sc_lex_mesh_group(p, &c->group));
	}
	if (s->ncounts && memcmp(&c->group, &s->counts[0].group, sizeof c->group) != 0)
		return sc_lex_err(p, g->col, "every counts declaration of a spec is over the same group");
	s->ncounts++;
	return sc_lex_end(p);
}

#define MICRO_USAGE "microbatches NAME[g] n LO..HI"
#define SEQ_USAGE "sequences NAME[A..B] n LO..HI [multiple=E]"

/* A dim's name at the cursor (what names it in errors). */
static enum sc_status dim_name(struct sc_parse *p, const char *what, const char *usage, int *d)
{
	struct sc_tok *t = sc_lex_peek(p);
	*d = t->kind == SC_T_NAME ? sc_lex_dim(p->s, t->text) : -1;
	if (*d < 0)
		return sc_lex_err(p, t->col, "expected %s, a dim declared in 'dims' (%s)", what, usage);
	p->pos++;
	return SC_OK;
}

enum sc_status sc_counts_parse_micro(struct sc_parse *p, const struct sc_tok *kw)
{
	struct sc_spec *s = p->s;
	if (sc_spec_micro(s) >= 0)
		return sc_lex_err(p, kw->col, "duplicate 'microbatches' declaration");
	struct sc_countsdecl *c;
	SC_CHECK(new_decl(p, kw, &c));
	if (!sc_lex_is_op(sc_lex_peek(p), "["))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '[' and the number of micro-batches (microbatches NAME[g] n LO..HI)");
	p->pos++;
	SC_CHECK(dim_name(p, "the number of micro-batches", MICRO_USAGE, &c->len_dim));
	if (!sc_lex_is_op(sc_lex_peek(p), "]"))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected ']' (microbatches NAME[g] n LO..HI)");
	p->pos++;
	const int col = sc_lex_peek(p)->col;
	SC_CHECK(dim_name(p, "the dim the micro-batches split", MICRO_USAGE, &c->sum_dim));
	if (c->sum_dim == c->len_dim)
		return sc_lex_err(p, col, "the micro-batches split a dim other than their number");
	SC_CHECK(range(p, c, "microbatches NAME[g] n LO..HI"));
	s->derived_mask |= 1u << c->sum_dim;
	s->ncounts++;
	return sc_lex_end(p);
}

#define ROUTE_USAGE "routes NAME[t] LO..HI [topk=K], t a dim or two (b*l)"

enum sc_status sc_counts_parse_route(struct sc_parse *p, const struct sc_tok *kw)
{
	struct sc_spec *s = p->s;
	struct sc_countsdecl *c;
	SC_CHECK(new_decl(p, kw, &c));
	if (!sc_lex_is_op(sc_lex_peek(p), "["))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '[' and the dim of the tokens routed (" ROUTE_USAGE ")");
	p->pos++;
	SC_CHECK(dim_name(p, "the dim of the tokens routed", ROUTE_USAGE, &c->len_dim));
	if (sc_lex_is_op(sc_lex_peek(p), "*")) { /* routes R[b*l]: the tokens of two dims, flattened */
		p->pos++;
		const int col = sc_lex_peek(p)->col;
		SC_CHECK(dim_name(p, "a second dim of the tokens routed", ROUTE_USAGE, &c->len_dim2));
		if (c->len_dim2 == c->len_dim)
			return sc_lex_err(p, col, "the tokens routed are two different dims (b*l), not '%s' twice", s->dim[c->len_dim]);
	}
	if (!sc_lex_is_op(sc_lex_peek(p), "]"))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected ']' (" ROUTE_USAGE ")");
	p->pos++;
	SC_CHECK(range(p, c, ROUTE_USAGE " (the experts)"));
	c->route = 1;
	c->topk = 1;
	const struct sc_tok *t = sc_lex_peek(p);
	if (t->kind == SC_T_NAME && strcmp(t->text, "topk") == 0 && sc_lex_is_op(&p->t[p->pos + 1], "=")) {
		const struct sc_tok *v = &p->t[p->pos + 2];
		if (v->kind != SC_T_NUM || v->num < 1 || v->num > SC_ROUTES_MAX_TOPK)
			return sc_lex_err(p, v->col, "expected topk=K, K a number in 1..%d (the experts each token goes to)",
					  SC_ROUTES_MAX_TOPK);
		c->topk = (int)v->num;
		p->pos += 3;
	}
	s->ncounts++;
	return sc_lex_end(p);
}

enum sc_status sc_counts_parse_seq(struct sc_parse *p, const struct sc_tok *kw)
{
	struct sc_spec *s = p->s;
	for (int k = 0; k < s->ncounts; k++)
		if (s->counts[k].seq)
			return sc_lex_err(p, kw->col, "duplicate 'sequences' declaration (line %d has one)", s->counts[k].line);
	struct sc_countsdecl *c;
	SC_CHECK(new_decl(p, kw, &c));
	if (!sc_lex_is_op(sc_lex_peek(p), "["))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '[' and how many sequences, A..B (" SEQ_USAGE ")");
	p->pos++;
	SC_CHECK(sc_expr_parse(p, &c->seq_lo));
	if (!sc_lex_is_op(sc_lex_peek(p), ".."))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '..': the number of sequences is a range, A..B (" SEQ_USAGE ")");
	p->pos++;
	SC_CHECK(sc_expr_parse(p, &c->seq_hi));
	if (!sc_lex_is_op(sc_lex_peek(p), "]"))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected ']' (" SEQ_USAGE ")");
	p->pos++;
	SC_CHECK(dim_name(p, "the dim the sequences are packed into", SEQ_USAGE, &c->sum_dim));
	SC_CHECK(range(p, c, SEQ_USAGE));
	struct sc_tok *m = sc_lex_peek(p);
	if (m->kind == SC_T_NAME && strcmp(m->text, "multiple") == 0 && sc_lex_is_op(&p->t[p->pos + 1], "=")) {
		p->pos += 2;
		SC_CHECK(sc_expr_parse(p, &c->multiple));
	}
	c->seq = 1;
	s->derived_mask |= 1u << c->sum_dim;
	s->ncounts++;
	return sc_lex_end(p);
}

enum sc_status sc_counts_resolve(struct sc_parse *p, struct sc_expr *x)
{
	struct sc_spec *s = p->s;
	x->dim = -1;
	for (int k = 0; k < s->ncounts; k++)
		if (strcmp(s->counts[k].name, x->name) == 0)
			x->dim = k;
	p->line = x->line;
	if (x->dim < 0)
		return sc_lex_err(p, x->col, x->kind == SC_EX_COUNT
						     ? "unknown function '%s' (cdiv, min, max, size, sum, rowsum, colsum, len, routed, or counts)"
						     : "unknown counts matrix '%s'",
				  x->name);
	const int vec = sc_spec_counts_vec(s, x->dim);
	if (x->kind == SC_EX_COUNTLEN)
		return vec ? SC_OK : sc_lex_err(p, x->col, "len() takes a vector's name ('%s' is a matrix)", x->name);
	if (x->kind == SC_EX_ROUTED)
		return s->counts[x->dim].route ? SC_OK
					       : sc_lex_err(p, x->col, "routed() takes a routes vector's name ('%s' is not one: "
								   "routes NAME[t] LO..HI)", x->name);
	if (vec && x->kind != SC_EX_COUNT)
		return sc_lex_err(p, x->col, "'%s' is a vector: write %s(k)", x->name, x->name);
	if (x->kind == SC_EX_COUNT && sc_spec_topk(s, x->dim) > 1)
		return x->b >= 0 ? SC_OK
				 : sc_lex_err(p, x->col, "'%s' routes each token to topk=%d experts: two indices, %s(q, j), token q's j-th",
					      x->name, sc_spec_topk(s, x->dim), x->name);
	if (x->kind == SC_EX_COUNT && vec != (x->b < 0))
		return sc_lex_err(p, x->col, vec ? "'%s' is a vector: one index, %s(k)" : "'%s' is a matrix: two indices, %s(i, j)",
				  x->name, x->name);
	return SC_OK;
}

/* The node under node that names dim d, or -1. */
static int dim_node(const struct sc_spec *s, int node, int d)
{
	if (node < 0)
		return -1;
	const struct sc_expr *x = &s->nodes[node];
	if (x->kind == SC_EX_DIM && x->dim == d)
		return node;
	const int kids[3] = {x->a, x->b, x->c};
	for (int i = 0; i < 3; i++) {
		const int r = dim_node(s, kids[i], d);
		if (r >= 0)
			return r;
	}
	return -1;
}

/* A vector's dim n (their sum): no sizes range, and not in the vector's
 * own ranges. */
static enum sc_status sum_dim_check(struct sc_parse *p, const struct sc_countsdecl *c, const int *sizes_line,
				    const char *what)
{
	const struct sc_spec *s = p->s;
	const int n = c->sum_dim;
	if (s->hint[n].lo >= 0) {
		p->line = sizes_line[n];
		return sc_lex_err(p, 1, "'%s' is the sum of the %s' %s: it takes no sizes range", s->dim[n], what, c->name);
	}
	const int ends[5] = {c->lo, c->hi, c->seq_lo, c->seq_hi, c->multiple};
	for (int i = 0; i < 5; i++) {
		const int d = dim_node(s, ends[i], n);
		if (d >= 0) {
			p->line = s->nodes[d].line;
			return sc_lex_err(p, s->nodes[d].col, "the range of %s may not use '%s': its size is their sum", c->name,
					  s->dim[n]);
		}
	}
	return SC_OK;
}

enum sc_status sc_counts_check(struct sc_parse *p, const int *sizes_line)
{
	struct sc_spec *s = p->s;
	for (int k = 0; k < s->ncounts; k++) {
		if (s->counts[k].seq)
			SC_CHECK(sum_dim_check(p, &s->counts[k], sizes_line, "sequences"));
		if (s->counts[k].route && s->counts[k].len_dim2 < 0) /* the tokens are drawn, their routes over them */
			s->derived_mask &= ~(1u << s->counts[k].len_dim); /* (a sizes= of t is checked) */
		if (s->counts[k].route && s->counts[k].len_dim2 >= 0 &&
		    ((s->derived_mask >> s->counts[k].len_dim) & 1u || (s->derived_mask >> s->counts[k].len_dim2) & 1u)) {
			p->line = s->counts[k].line;
			return sc_lex_err(p, s->counts[k].col, "the dims of %s's tokens are drawn: a sizes= placement may not give them",
					  s->counts[k].name);
		}
	}
	const int m = sc_spec_micro(s);
	if (m < 0)
		return SC_OK;
	const struct sc_countsdecl *c = &s->counts[m];
	p->line = c->line;
	if (!s->compute)
		return sc_lex_err(p, c->col, "microbatches are for compute specs (a 'program' block with a 'microbatch' block); "
					     "a layout spec's packed rows are 'sequences NAME[A..B] n LO..HI'");
	int block = 0;
	for (int i = 0; i < s->nprog; i++)
		block |= s->prog[i].op == SC_C_MICRO;
	if (!block)
		return sc_lex_err(p, c->col, "%s splits '%s' into micro-batches, but the program has no 'microbatch' block",
				  c->name, s->dim[c->sum_dim]);
	if ((s->sharded_mask >> c->sum_dim) & 1u)
		return sc_lex_err(p, c->col, "'%s' is split into micro-batches: a tensor may not be sharded over it",
				  s->dim[c->sum_dim]);
	return sum_dim_check(p, c, sizes_line, "micro-batches");
}

int64_t sc_counts_multiple(const struct sc_spec *s, int k, const int64_t *sizes, int world)
{
	int64_t m = 1;
	if (s->counts[k].multiple < 0 || sc_expr_eval(s, s->counts[k].multiple, sizes, world, &m, NULL) != SC_OK || m < 1)
		return 1;
	return m;
}

int sc_counts_seq_bounds(const struct sc_spec *s, int k, const int64_t *sizes, int world, int64_t lo, int64_t hi,
			 struct sc_counts_seq *out, char *why, size_t n)
{
	const struct sc_countsdecl *c = &s->counts[k];
	int64_t a, b, m = 1;
	if (sc_expr_eval(s, c->seq_lo, sizes, world, &a, NULL) != SC_OK ||
	    sc_expr_eval(s, c->seq_hi, sizes, world, &b, NULL) != SC_OK || a < 0 || a > b) {
		snprintf(why, n, "the number of sequences %s cannot be evaluated or is empty", c->name);
		return 0;
	}
	if (c->multiple >= 0 && (sc_expr_eval(s, c->multiple, sizes, world, &m, NULL) != SC_OK || m < 1)) {
		snprintf(why, n, "%s's multiple= is not a positive integer", c->name);
		return 0;
	}
	const int64_t first = (lo + m - 1) / m * m, last = hi / m * m;
	if (first > last) {
		snprintf(why, n, "no multiple of %lld in %s's range %lld..%lld", (long long)m, c->name, (long long)lo,
			 (long long)hi);
		return 0;
	}
	*out = (struct sc_counts_seq){a, b > SC_COUNTS_MAX_LEN ? SC_COUNTS_MAX_LEN : b, m, first, last};
	return 1;
}

void sc_counts_derive(const struct sc_spec *s, const struct sc_countv *c, int64_t *sizes)
{
	for (int k = 0; k < s->ncounts; k++) {
		if (s->counts[k].sum_dim < 0)
			continue;
		int64_t sum = 0;
		for (int i = 0; i < sc_spec_counts_len(s, k, sizes, c); i++)
			sum += c->v[k][i]; /* at most 2^8 entries of 2^31: no overflow */
		sizes[s->counts[k].sum_dim] = sum;
	}
}

void sc_counts_span(const struct sc_countv *c, int m, int k, int64_t *first, int64_t *rows)
{
	int64_t f = 0;
	for (int i = 0; i < k; i++)
		f += c->v[m][i];
	*first = f;
	*rows = c->v[m][k];
}
