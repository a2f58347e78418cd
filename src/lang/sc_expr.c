/* sc_expr: recursive-descent expressions, checked evaluation, text. */
#include "sc_expr.h"

#include <stdio.h>
#include <string.h>

#include "sc_str.h"

static int new_node(struct sc_parse *p, enum sc_exkind k, int col)
{
	struct sc_spec *s = p->s;
	if (s->nnodes >= SC_MAX_NODES)
		return -1;
	struct sc_expr *n = &s->nodes[s->nnodes];
	memset(n, 0, sizeof *n);
	n->kind = k;
	n->a = n->b = -1;
	n->line = p->line;
	n->col = col;
	return s->nnodes++;
}

enum sc_status sc_expr_parse(struct sc_parse *p, int *out);

static enum sc_status parse_atom(struct sc_parse *p, int *out)
{
	struct sc_tok *t = sc_lex_peek(p);
	int n;
	if (sc_lex_is_op(t, "-")) {
		p->pos++;
		int a;
		SC_CHECK(parse_atom(p, &a));
		if ((n = new_node(p, SC_EX_NEG, t->col)) < 0)
			return sc_lex_err(p, t->col, "spec too large");
		p->s->nodes[n].a = a;
		*out = n;
		return SC_OK;
	}
	if (t->kind == SC_T_NUM) {
		p->pos++;
		if ((n = new_node(p, SC_EX_NUM, t->col)) < 0)
			return sc_lex_err(p, t->col, "spec too large");
		p->s->nodes[n].num = t->num;
		*out = n;
		return SC_OK;
	}
	if (t->kind == SC_T_NAME) {
		p->pos++;
		if ((n = new_node(p, SC_EX_NAME, t->col)) < 0)
			return sc_lex_err(p, t->col, "spec too large");
		snprintf(p->s->nodes[n].name, SC_NAME_MAX, "%s", t->text);
		*out = n;
		return SC_OK;
	}
	if (sc_lex_is_op(t, "(")) {
		p->pos++;
		SC_CHECK(sc_expr_parse(p, out));
		if (!sc_lex_is_op(sc_lex_peek(p), ")"))
			return sc_lex_err(p, sc_lex_peek(p)->col, "expected ')'");
		p->pos++;
		return SC_OK;
	}
	if (t->kind == SC_T_END)
		return sc_lex_err(p, t->col, "expected an expression");
	return sc_lex_err(p, t->col, "expected an expression, got '%s'", t->text);
}

static enum sc_status parse_term(struct sc_parse *p, int *out)
{
	int a;
	SC_CHECK(parse_atom(p, &a));
	for (;;) {
		struct sc_tok *t = sc_lex_peek(p);
		enum sc_exkind k;
		if (sc_lex_is_op(t, "*")) k = SC_EX_MUL;
		else if (sc_lex_is_op(t, "/")) k = SC_EX_DIV;
		else if (sc_lex_is_op(t, "//")) k = SC_EX_FDIV;
		else if (sc_lex_is_op(t, "%")) k = SC_EX_MOD;
		else break;
		p->pos++;
		int b, n;
		SC_CHECK(parse_atom(p, &b));
		if ((n = new_node(p, k, t->col)) < 0)
			return sc_lex_err(p, t->col, "spec too large");
		p->s->nodes[n].a = a;
		p->s->nodes[n].b = b;
		a = n;
	}
	*out = a;
	return SC_OK;
}

enum sc_status sc_expr_parse(struct sc_parse *p, int *out)
{
	int a;
	SC_CHECK(parse_term(p, &a));
	for (;;) {
		struct sc_tok *t = sc_lex_peek(p);
		enum sc_exkind k;
		if (sc_lex_is_op(t, "+")) k = SC_EX_ADD;
		else if (sc_lex_is_op(t, "-")) k = SC_EX_SUB;
		else break;
		p->pos++;
		int b, n;
		SC_CHECK(parse_term(p, &b));
		if ((n = new_node(p, k, t->col)) < 0)
			return sc_lex_err(p, t->col, "spec too large");
		p->s->nodes[n].a = a;
		p->s->nodes[n].b = b;
		a = n;
	}
	*out = a;
	return SC_OK;
}

enum sc_status sc_expr_parse_conds(struct sc_parse *p)
{
	struct sc_spec *s = p->s;
	for (;;) {
		if (s->nconds >= SC_MAX_CONDS)
			return sc_lex_err(p, sc_lex_peek(p)->col, "too many conditions (at most %d)", SC_MAX_CONDS);
		struct sc_cond *c = &s->conds[s->nconds];
		c->line = p->line;
		c->col = sc_lex_peek(p)->col;
		SC_CHECK(sc_expr_parse(p, &c->lhs));
		struct sc_tok *t = sc_lex_peek(p);
		static const char *const cmps[] = {"==", "!=", "<", "<=", ">", ">="};
		int k = -1;
		for (int i = 0; i < 6; i++)
			if (sc_lex_is_op(t, cmps[i]))
				k = i;
		if (k < 0) {
			if (sc_lex_is_op(t, "="))
				return sc_lex_err(p, t->col, "expected a comparison; use '==' for equality");
			if (t->kind == SC_T_END)
				return sc_lex_err(p, t->col, "expected a comparison (== != < <= > >=)");
			return sc_lex_err(p, t->col, "expected a comparison (== != < <= > >=), got '%s'", t->text);
		}
		c->cmp = (enum sc_cmp)k;
		p->pos++;
		SC_CHECK(sc_expr_parse(p, &c->rhs));
		s->nconds++;
		t = sc_lex_peek(p);
		if (t->kind == SC_T_END)
			return SC_OK;
		if (t->kind == SC_T_NAME && strcmp(t->text, "and") == 0) {
			p->pos++;
			continue;
		}
		return sc_lex_err(p, t->col, "expected 'and' or end of line, got '%s'", t->text);
	}
}

int sc_expr_last_dim(const struct sc_spec *s, int node)
{
	if (node < 0)
		return -1;
	const struct sc_expr *x = &s->nodes[node];
	int m = x->kind == SC_EX_DIM ? x->dim : -1;
	int a = sc_expr_last_dim(s, x->a), b = sc_expr_last_dim(s, x->b);
	if (a > m) m = a;
	if (b > m) m = b;
	return m;
}

static enum sc_status eval_rec(const struct sc_spec *s, int node, const int64_t *sizes,
			       int64_t world, int64_t *out, struct sc_err *e)
{
	const struct sc_expr *x = &s->nodes[node];
	int64_t a = 0, b = 0, r;
	switch (x->kind) {
	case SC_EX_NUM: *out = x->num; return SC_OK;
	case SC_EX_DIM: *out = sizes[x->dim]; return SC_OK;
	case SC_EX_WORLD: *out = world; return SC_OK;
	case SC_EX_NAME: return SC_ERR(e, SC_E_INTERNAL, "unresolved name '%s'", x->name);
	default: break;
	}
	SC_CHECK(eval_rec(s, x->a, sizes, world, &a, e));
	if (x->kind == SC_EX_NEG) {
		if (a == INT64_MIN)
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: integer overflow", x->line, x->col);
		*out = -a;
		return SC_OK;
	}
	SC_CHECK(eval_rec(s, x->b, sizes, world, &b, e));
	switch (x->kind) {
	case SC_EX_ADD:
		if (__builtin_add_overflow(a, b, &r))
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: integer overflow in %lld + %lld",
				      x->line, x->col, (long long)a, (long long)b);
		break;
	case SC_EX_SUB:
		if (__builtin_sub_overflow(a, b, &r))
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: integer overflow in %lld - %lld",
				      x->line, x->col, (long long)a, (long long)b);
		break;
	case SC_EX_MUL:
		if (__builtin_mul_overflow(a, b, &r))
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: integer overflow in %lld * %lld",
				      x->line, x->col, (long long)a, (long long)b);
		break;
	case SC_EX_DIV:
	case SC_EX_FDIV:
	case SC_EX_MOD:
		if (b == 0)
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: division by zero", x->line, x->col);
		if (a == INT64_MIN && b == -1)
			return SC_ERR(e, SC_E_RUNTIME, "line %d col %d: integer overflow in division",
				      x->line, x->col);
		if (x->kind == SC_EX_DIV) {
			if (a % b != 0)
				return SC_ERR(e, SC_E_RUNTIME,
					      "line %d col %d: %lld / %lld is not exact (use // for floor division)",
					      x->line, x->col, (long long)a, (long long)b);
			r = a / b;
		} else if (x->kind == SC_EX_FDIV) {
			r = a / b;
			if ((a % b != 0) && ((a < 0) != (b < 0)))
				r--;
		} else {
			r = a % b;
			if (r != 0 && ((r < 0) != (b < 0)))
				r += b;
		}
		break;
	default:
		return SC_ERR(e, SC_E_INTERNAL, "bad expression node");
	}
	*out = r;
	return SC_OK;
}

enum sc_status sc_expr_eval(const struct sc_spec *s, int node, const int64_t *sizes,
			    int64_t world, int64_t *out, struct sc_err *e)
{
	return eval_rec(s, node, sizes, world, out, e);
}

enum sc_status sc_expr_cond(const struct sc_spec *s, const struct sc_cond *c, const int64_t *sizes,
			    int64_t world, int *holds, struct sc_err *e)
{
	int64_t a, b;
	SC_CHECK(eval_rec(s, c->lhs, sizes, world, &a, e));
	SC_CHECK(eval_rec(s, c->rhs, sizes, world, &b, e));
	int h = 0;
	switch (c->cmp) {
	case SC_EQ: h = a == b; break;
	case SC_NE: h = a != b; break;
	case SC_LT: h = a < b; break;
	case SC_LE: h = a <= b; break;
	case SC_GT: h = a > b; break;
	case SC_GE: h = a >= b; break;
	}
	*holds = h;
	return SC_OK;
}

int sc_expr_cond_holds(const struct sc_spec *s, const struct sc_cond *c, const int64_t *sizes, int64_t world)
{
	int h = 0;
	return sc_expr_cond(s, c, sizes, world, &h, NULL) == SC_OK && h;
}

static void fmt_rec(const struct sc_spec *s, int node, struct sc_str *b)
{
	const struct sc_expr *x = &s->nodes[node];
	static const char *const ops[] = {[SC_EX_ADD] = "+", [SC_EX_SUB] = "-", [SC_EX_MUL] = "*",
					  [SC_EX_DIV] = "/", [SC_EX_FDIV] = "//", [SC_EX_MOD] = "%"};
	switch (x->kind) {
	case SC_EX_NUM: sc_str_printf(b, "%lld", (long long)x->num); break;
	case SC_EX_DIM: sc_str_put(b, s->dim[x->dim]); break;
	case SC_EX_WORLD: sc_str_put(b, s->world_sym); break;
	case SC_EX_NAME: sc_str_put(b, x->name); break;
	case SC_EX_NEG:
		sc_str_put(b, "-");
		fmt_rec(s, x->a, b);
		break;
	default:
		sc_str_put(b, "(");
		fmt_rec(s, x->a, b);
		sc_str_printf(b, " %s ", ops[x->kind]);
		fmt_rec(s, x->b, b);
		sc_str_put(b, ")");
		break;
	}
}

void sc_expr_format(const struct sc_spec *s, int node, char *buf, size_t n)
{
	struct sc_str b = SC_STR_INIT;
	fmt_rec(s, node, &b);
	const char *t = sc_str_cstr(&b);
	if (n)
		snprintf(buf, n, "%s", t ? t : "");
	sc_str_free(&b);
}
