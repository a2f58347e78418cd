/* sc_expr: recursive-descent expressions (Python's grammar); their
 * checked evaluation is sc_expr_eval.c, their text sc_expr_text.c. */
#include "sc_expr.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int new_node(struct sc_parse *p, enum sc_exkind k, int col)
{
	struct sc_spec *s = p->s;
	if (s->nnodes >= SC_MAX_NODES)
		return -1;
	struct sc_expr *n = &s->nodes[s->nnodes];
	memset(n, 0, sizeof *n);
	n->kind = k;
	n->a = n->b = n->c = -1;
	n->line = p->line;
	n->col = col;
	return s->nnodes++;
}

static enum sc_status node2(struct sc_parse *p, enum sc_exkind k, int col, int a, int b, int *out)
{
	int n = new_node(p, k, col);
	if (n < 0)
		return sc_lex_err(p, col, "spec too large (more than %d expression nodes)", SC_MAX_NODES);
	p->s->nodes[n].a = a;
	p->s->nodes[n].b = b;
	*out = n;
	return SC_OK;
}

static int is_bool(const struct sc_spec *s, int node)
{
	enum sc_exkind k = s->nodes[node].kind;
	return k == SC_EX_CMP || k == SC_EX_AND || k == SC_EX_OR || k == SC_EX_NOT;
}

static enum sc_status want_num(struct sc_parse *p, int node)
{
	if (is_bool(p->s, node))
		return sc_lex_err(p, p->s->nodes[node].col, "a condition where a number is expected");
	return SC_OK;
}

static enum sc_status want_bool(struct sc_parse *p, int node)
{
	if (!is_bool(p->s, node))
		return sc_lex_err(p, p->s->nodes[node].col, "expected a comparison (== != < <= > >=)");
	return SC_OK;
}

/* A positional argument ends at a space outside brackets. */
static int arg_ends(struct sc_parse *p)
{
	return p->arg_mode && p->depth == 0 && sc_lex_peek(p)->space;
}

static int is_word(const struct sc_tok *t, const char *w)
{
	return t->kind == SC_T_NAME && strcmp(t->text, w) == 0;
}

static enum sc_status parse_test(struct sc_parse *p, int *out);

/* The built-in functions: name, arity, node kind. */
static const struct {
	const char *name;
	int arity;
	enum sc_exkind kind;
} funcs[] = {
	{"cdiv", 2, SC_EX_CDIV},
	{"min", 2, SC_EX_MIN},
	{"max", 2, SC_EX_MAX},
	{"size", 1, SC_EX_SIZE},
	{"sqrt", 1, SC_EX_SQRT}, /* compute constants only */
};

/* rowsum(NAME, i), colsum(NAME, j): the matrix by name, resolved later. */
static enum sc_status parse_sum(struct sc_parse *p, const struct sc_tok *fn, enum sc_exkind k, int *out)
{
	p->pos++; /* ( */
	p->depth++;
	struct sc_tok *m = sc_lex_peek(p);
	if (m->kind != SC_T_NAME)
		return sc_lex_err(p, m->col, "%s takes a counts matrix's name first", fn->text);
	p->pos++;
	if (!sc_lex_is_op(sc_lex_peek(p), ","))
		return sc_lex_err(p, sc_lex_peek(p)->col, "%s takes 2 arguments: expected ','", fn->text);
	p->pos++;
	int a;
	SC_CHECK(parse_test(p, &a));
	SC_CHECK(want_num(p, a));
	if (!sc_lex_is_op(sc_lex_peek(p), ")"))
		return sc_lex_err(p, sc_lex_peek(p)->col, "%s takes 2 arguments: expected ')'", fn->text);
	p->pos++;
	p->depth--;
	SC_CHECK(node2(p, k, fn->col, a, -1, out));
	snprintf(p->s->nodes[*out].name, SC_NAME_MAX, "%s", m->text);
	return SC_OK;
}

/* sum(E for NAME in LO..HI): E summed over NAME = LO..HI (HI included; 0
 * when HI < LO). NAME is bound in E only, where it hides any other name
 * (as a comprehension's does in Python); E may hold sums, SC_SUM_NEST
 * deep in all, and LO and HI may read the indices of the sums around
 * this one. */
static enum sc_status parse_sumof(struct sc_parse *p, const struct sc_tok *fn, int *out)
{
	p->pos++; /* ( */
	p->depth++;
	int at = -1, depth = 0; /* the `for` of this sum: at depth 0 inside its parentheses */
	for (int i = p->pos; i < p->nt && at < 0; i++) {
		if (sc_lex_is_op(&p->t[i], "(") || sc_lex_is_op(&p->t[i], "["))
			depth++;
		else if (sc_lex_is_op(&p->t[i], ")") || sc_lex_is_op(&p->t[i], "]")) {
			if (depth-- == 0)
				break;
		} else if (depth == 0 && p->t[i].kind == SC_T_NAME && strcmp(p->t[i].text, "for") == 0)
			at = i;
	}
	if (at < 0 || at + 1 >= p->nt || p->t[at + 1].kind != SC_T_NAME)
		return sc_lex_err(p, fn->col, "sum takes a comprehension: sum(E for j in LO..HI)");
	if (p->nsums >= SC_SUM_NEST)
		return sc_lex_err(p, fn->col, "sums nest at most %d deep", SC_SUM_NEST);
	const struct sc_tok *nm = &p->t[at + 1];
	const int level = p->nsums;
	p->sums[p->nsums++] = nm->text;
	int a;
	enum sc_status st = parse_test(p, &a);
	p->nsums = level;
	SC_CHECK(st);
	SC_CHECK(want_num(p, a));
	if (p->pos != at)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected 'for' (sum(E for j in LO..HI))");
	p->pos += 2;
	if (sc_lex_peek(p)->kind != SC_T_NAME || strcmp(sc_lex_peek(p)->text, "in") != 0)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected 'in' (sum(E for %s in LO..HI))", nm->text);
	p->pos++;
	int lo, hi;
	SC_CHECK(parse_test(p, &lo));
	SC_CHECK(want_num(p, lo));
	if (!sc_lex_is_op(sc_lex_peek(p), ".."))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '..' (sum(E for %s in LO..HI), HI included)", nm->text);
	p->pos++;
	SC_CHECK(parse_test(p, &hi));
	SC_CHECK(want_num(p, hi));
	if (!sc_lex_is_op(sc_lex_peek(p), ")"))
		return sc_lex_err(p, sc_lex_peek(p)->col, "sum(E for j in LO..HI): expected ')'");
	p->pos++;
	p->depth--;
	SC_CHECK(node2(p, SC_EX_SUMOF, fn->col, a, lo, out));
	p->s->nodes[*out].c = hi;
	p->s->nodes[*out].dim = level;
	snprintf(p->s->nodes[*out].name, SC_NAME_MAX, "%s", nm->text);
	return SC_OK;
}

/* len(NAME): a counts vector's entries (the number of sequences). */
static enum sc_status parse_len(struct sc_parse *p, const struct sc_tok *fn, int *out)
{
	p->pos++; /* ( */
	struct sc_tok *m = sc_lex_peek(p);
	if (m->kind != SC_T_NAME)
		return sc_lex_err(p, m->col, "len takes a counts vector's name (len(L))");
	p->pos++;
	if (!sc_lex_is_op(sc_lex_peek(p), ")"))
		return sc_lex_err(p, sc_lex_peek(p)->col, "len takes one argument, a vector's name: expected ')'");
	p->pos++;
	SC_CHECK(node2(p, SC_EX_COUNTLEN, fn->col, -1, -1, out));
	snprintf(p->s->nodes[*out].name, SC_NAME_MAX, "%s", m->text);
	return SC_OK;
}

/* routed(NAME, A, B, E): tokens A..B (HI included) whose route is E. */
static enum sc_status parse_routed(struct sc_parse *p, const struct sc_tok *fn, int *out)
{
	p->pos++; /* ( */
	p->depth++;
	struct sc_tok *m = sc_lex_peek(p);
	if (m->kind != SC_T_NAME)
		return sc_lex_err(p, m->col, "routed takes a routes vector's name first (routed(R, A, B, E))");
	p->pos++;
	int arg[3];
	for (int i = 0; i < 3; i++) {
		if (!sc_lex_is_op(sc_lex_peek(p), ","))
			return sc_lex_err(p, sc_lex_peek(p)->col, "routed takes 4 arguments (routed(R, A, B, E)): expected ','");
		p->pos++;
		SC_CHECK(parse_test(p, &arg[i]));
		SC_CHECK(want_num(p, arg[i]));
	}
	if (!sc_lex_is_op(sc_lex_peek(p), ")"))
		return sc_lex_err(p, sc_lex_peek(p)->col, "routed takes 4 arguments (routed(R, A, B, E)): expected ')'");
	p->pos++;
	p->depth--;
	SC_CHECK(node2(p, SC_EX_ROUTED, fn->col, arg[0], arg[1], out));
	p->s->nodes[*out].c = arg[2];
	snprintf(p->s->nodes[*out].name, SC_NAME_MAX, "%s", m->text);
	return SC_OK;
}

static enum sc_status parse_call(struct sc_parse *p, const struct sc_tok *name, int *out)
{
	if (strcmp(name->text, "len") == 0)
		return parse_len(p, name, out);
	if (strcmp(name->text, "routed") == 0)
		return parse_routed(p, name, out);
	if (strcmp(name->text, "rowsum") == 0 || strcmp(name->text, "colsum") == 0)
		return parse_sum(p, name, name->text[0] == 'r' ? SC_EX_ROWSUM : SC_EX_COLSUM, out);
	if (strcmp(name->text, "sum") == 0)
		return parse_sumof(p, name, out);
	size_t f = 0;
	while (f < sizeof funcs / sizeof funcs[0] && strcmp(funcs[f].name, name->text) != 0)
		f++;
	if (f == sizeof funcs / sizeof funcs[0]) { /* a counts matrix, NAME(i, j), resolved later */
		p->pos++; /* ( */
		p->depth++;
		int a, b = -1; /* NAME(k): a vector's entry */
		SC_CHECK(parse_test(p, &a));
		SC_CHECK(want_num(p, a));
		if (sc_lex_is_op(sc_lex_peek(p), ",")) {
			p->pos++;
			SC_CHECK(parse_test(p, &b));
			SC_CHECK(want_num(p, b));
		}
		if (!sc_lex_is_op(sc_lex_peek(p), ")"))
			return sc_lex_err(p, sc_lex_peek(p)->col, "%s(i, j): expected ')'", name->text);
		p->pos++;
		p->depth--;
		SC_CHECK(node2(p, SC_EX_COUNT, name->col, a, b, out));
		snprintf(p->s->nodes[*out].name, SC_NAME_MAX, "%s", name->text);
		return SC_OK;
	}
	if (funcs[f].kind == SC_EX_SQRT && !p->real_ok)
		return sc_lex_err(p, name->col, "sqrt() is allowed in compute constants only; sizes are integers");
	p->pos++; /* ( */
	p->depth++;
	int arg[2] = {-1, -1};
	for (int i = 0; i < funcs[f].arity; i++) {
		if (i > 0) {
			if (!sc_lex_is_op(sc_lex_peek(p), ","))
				return sc_lex_err(p, sc_lex_peek(p)->col, "%s takes %d arguments: expected ','",
						  funcs[f].name, funcs[f].arity);
			p->pos++;
		}
		SC_CHECK(parse_test(p, &arg[i]));
		SC_CHECK(want_num(p, arg[i]));
	}
	if (!sc_lex_is_op(sc_lex_peek(p), ")"))
		return sc_lex_err(p, sc_lex_peek(p)->col, "%s takes %d argument%s: expected ')'", funcs[f].name,
				  funcs[f].arity, funcs[f].arity > 1 ? "s" : "");
	p->pos++;
	p->depth--;
	return node2(p, funcs[f].kind, name->col, arg[0], arg[1], out);
}

static enum sc_status parse_atom(struct sc_parse *p, int *out)
{
	struct sc_tok *t = sc_lex_peek(p);
	int n;
	if (sc_lex_is_op(t, "-")) {
		p->pos++;
		int a;
		SC_CHECK(parse_atom(p, &a));
		SC_CHECK(want_num(p, a));
		return node2(p, SC_EX_NEG, t->col, a, -1, out);
	}
	if (t->kind == SC_T_NUM) {
		p->pos++;
		SC_CHECK(node2(p, SC_EX_NUM, t->col, -1, -1, &n));
		p->s->nodes[n].num = t->num;
		*out = n;
		return SC_OK;
	}
	if (t->kind == SC_T_REAL) {
		if (!p->real_ok)
			return sc_lex_err(p, t->col, "expected an integer, got '%s' (sizes are integers)", t->text);
		p->pos++;
		SC_CHECK(node2(p, SC_EX_REAL, t->col, -1, -1, &n));
		p->s->nodes[n].real = t->real;
		*out = n;
		return SC_OK;
	}
	if (t->kind == SC_T_NAME) {
		struct sc_tok *nx = &p->t[p->pos + 1];
		if (sc_lex_is_op(nx, "(") && !nx->space) {
			p->pos++;
			return parse_call(p, t, out);
		}
		p->pos++;
		for (int l = p->nsums - 1; l >= 0; l--) /* the innermost sum's index first */
			if (strcmp(p->sums[l], t->text) == 0) {
				/* a sum's index is the same on every rank: not a rank's value */
				SC_CHECK(node2(p, SC_EX_INDEX, t->col, -1, -1, &n));
				p->s->nodes[n].dim = l;
				snprintf(p->s->nodes[n].name, SC_NAME_MAX, "%s", t->text);
				*out = n;
				return SC_OK;
			}
		for (int v = 0; v < SC_VAR_COUNT; v++)
			if (p->bound[v] && strcmp(p->bound[v], t->text) == 0) {
				SC_CHECK(node2(p, SC_EX_VAR, t->col, -1, -1, &n));
				p->s->nodes[n].dim = v;
				snprintf(p->s->nodes[n].name, SC_NAME_MAX, "%s", t->text);
				*out = n;
				return SC_OK;
			}
		for (int l = p->s ? p->s->nloops - 1 : -1; l >= 0; l--) /* the open loops' indices, innermost first */
			if (strcmp(p->s->loop_var[l], t->text) == 0) {
				SC_CHECK(node2(p, SC_EX_LOOP, t->col, -1, -1, &n));
				p->s->nodes[n].dim = l;
				snprintf(p->s->nodes[n].name, SC_NAME_MAX, "%s", t->text);
				*out = n;
				return SC_OK;
			}
		SC_CHECK(node2(p, SC_EX_NAME, t->col, -1, -1, &n));
		snprintf(p->s->nodes[n].name, SC_NAME_MAX, "%s", t->text);
		*out = n;
		return SC_OK;
	}
	if (sc_lex_is_op(t, "(")) {
		p->pos++;
		p->depth++;
		SC_CHECK(parse_test(p, out));
		if (!sc_lex_is_op(sc_lex_peek(p), ")"))
			return sc_lex_err(p, sc_lex_peek(p)->col, "expected ')'");
		p->pos++;
		p->depth--;
		return SC_OK;
	}
	if (t->kind == SC_T_END)
		return sc_lex_err(p, t->col, "expected an expression");
	return sc_lex_err(p, t->col, "expected an expression, got '%s'", t->text);
}

/* One precedence level of left-associative binary operators. */
struct level {
	const char *op[4];
	enum sc_exkind kind[4];
};

static const struct level term_ops = {{"*", "/", "//", "%"}, {SC_EX_MUL, SC_EX_DIV, SC_EX_FDIV, SC_EX_MOD}};
static const struct level arith_ops = {{"+", "-", NULL, NULL}, {SC_EX_ADD, SC_EX_SUB, 0, 0}};

static enum sc_status parse_binary(struct sc_parse *p, const struct level *lv,
				   enum sc_status (*sub)(struct sc_parse *, int *), int *out)
{
	int a;
	SC_CHECK(sub(p, &a));
	for (;;) {
		struct sc_tok *t = sc_lex_peek(p);
		int k = -1;
		for (int i = 0; i < 4 && lv->op[i]; i++)
			if (sc_lex_is_op(t, lv->op[i]))
				k = i;
		if (k < 0 || arg_ends(p))
			break;
		p->pos++;
		int b;
		SC_CHECK(sub(p, &b));
		SC_CHECK(want_num(p, a));
		SC_CHECK(want_num(p, b));
		SC_CHECK(node2(p, lv->kind[k], t->col, a, b, &a));
	}
	*out = a;
	return SC_OK;
}

static enum sc_status parse_term(struct sc_parse *p, int *out) { return parse_binary(p, &term_ops, parse_atom, out); }
static enum sc_status parse_arith(struct sc_parse *p, int *out) { return parse_binary(p, &arith_ops, parse_term, out); }

static enum sc_status parse_comparison(struct sc_parse *p, int *out)
{
	int a;
	SC_CHECK(parse_arith(p, &a));
	static const char *const cmps[] = {"==", "!=", "<", "<=", ">", ">="};
	struct sc_tok *t = sc_lex_peek(p);
	int k = -1;
	for (int i = 0; i < 6; i++)
		if (sc_lex_is_op(t, cmps[i]))
			k = i;
	if (k < 0 || arg_ends(p)) {
		*out = a;
		return SC_OK;
	}
	p->pos++;
	int b;
	SC_CHECK(parse_arith(p, &b));
	SC_CHECK(want_num(p, a));
	SC_CHECK(want_num(p, b));
	SC_CHECK(node2(p, SC_EX_CMP, t->col, a, b, out));
	p->s->nodes[*out].num = k;
	for (int i = 0; i < 6; i++)
		if (sc_lex_is_op(sc_lex_peek(p), cmps[i]) && !arg_ends(p))
			return sc_lex_err(p, sc_lex_peek(p)->col, "chained comparison: join the comparisons with 'and'");
	return SC_OK;
}

static enum sc_status parse_not(struct sc_parse *p, int *out)
{
	struct sc_tok *t = sc_lex_peek(p);
	if (!is_word(t, "not"))
		return parse_comparison(p, out);
	p->pos++;
	int a;
	SC_CHECK(parse_not(p, &a));
	SC_CHECK(want_bool(p, a));
	return node2(p, SC_EX_NOT, t->col, a, -1, out);
}

static enum sc_status parse_logic(struct sc_parse *p, const char *word, enum sc_exkind kind,
				  enum sc_status (*sub)(struct sc_parse *, int *), int *out)
{
	int a;
	SC_CHECK(sub(p, &a));
	for (;;) {
		struct sc_tok *t = sc_lex_peek(p);
		if (!is_word(t, word) || arg_ends(p))
			break;
		p->pos++;
		int b;
		SC_CHECK(sub(p, &b));
		SC_CHECK(want_bool(p, a));
		SC_CHECK(want_bool(p, b));
		SC_CHECK(node2(p, kind, t->col, a, b, &a));
	}
	*out = a;
	return SC_OK;
}

static enum sc_status parse_and(struct sc_parse *p, int *out) { return parse_logic(p, "and", SC_EX_AND, parse_not, out); }
static enum sc_status parse_or(struct sc_parse *p, int *out) { return parse_logic(p, "or", SC_EX_OR, parse_and, out); }

/* test := or_test ['if' or_test 'else' test] */
static enum sc_status parse_test(struct sc_parse *p, int *out)
{
	int a;
	SC_CHECK(parse_or(p, &a));
	struct sc_tok *t = sc_lex_peek(p);
	if (!is_word(t, "if") || arg_ends(p)) {
		*out = a;
		return SC_OK;
	}
	p->pos++;
	int c, b;
	SC_CHECK(parse_or(p, &c));
	SC_CHECK(want_bool(p, c));
	if (!is_word(sc_lex_peek(p), "else"))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected 'else' in 'A if C else B'");
	p->pos++;
	SC_CHECK(parse_test(p, &b));
	SC_CHECK(want_num(p, a));
	SC_CHECK(want_num(p, b));
	SC_CHECK(node2(p, SC_EX_IF, t->col, a, b, out));
	p->s->nodes[*out].c = c;
	return SC_OK;
}

enum sc_status sc_expr_parse(struct sc_parse *p, int *out)
{
	int n;
	SC_CHECK(parse_test(p, &n));
	SC_CHECK(want_num(p, n));
	*out = n;
	return SC_OK;
}

enum sc_status sc_expr_parse_list(struct sc_parse *p, int *nodes, int max, int *n, const char *what)
{
	p->pos++; /* [ */
	*n = 0;
	if (sc_lex_is_op(sc_lex_peek(p), "]")) {
		p->pos++;
		return SC_OK;
	}
	for (;;) {
		if (*n >= max)
			return sc_lex_err(p, sc_lex_peek(p)->col, "too many %s (at most %d)", what, max);
		SC_CHECK(sc_expr_parse(p, &nodes[*n]));
		(*n)++;
		struct sc_tok *t = sc_lex_peek(p);
		if (sc_lex_is_op(t, ",")) {
			p->pos++;
			continue;
		}
		if (sc_lex_is_op(t, "]")) {
			p->pos++;
			return SC_OK;
		}
		if (t->kind == SC_T_END)
			return sc_lex_err(p, t->col, "expected ']'");
		return sc_lex_err(p, t->col, "expected ',' or ']', got '%s'", t->text);
	}
}

enum sc_status sc_expr_parse_arg(struct sc_parse *p, int *out)
{
	p->arg_mode = 1;
	p->depth = 0;
	enum sc_status st = sc_expr_parse(p, out);
	p->arg_mode = 0;
	SC_CHECK(st);
	/* an operator after a space: the user meant one expression */
	const struct sc_tok *t = sc_lex_peek(p);
	/* (not + or -: the next argument may begin with a sign) */
	static const char *const ops[] = {"*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=",
					  "if", "else", "and", "or"};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strcmp(t->text, ops[i]) == 0 && t->kind != SC_T_NUM)
			return sc_lex_err(p, t->col,
					  "a space ends a positional argument: write it without spaces or in parentheses, e.g. (A %s B)",
					  ops[i]);
	return SC_OK;
}

enum sc_status sc_expr_parse_any(struct sc_parse *p, int *out)
{
	return parse_test(p, out);
}

int sc_expr_is_cond(const struct sc_spec *s, int node) { return is_bool(s, node); }

enum sc_status sc_expr_parse_cond(struct sc_parse *p, int *out)
{
	int n;
	SC_CHECK(parse_test(p, &n));
	if (!is_bool(p->s, n)) {
		struct sc_tok *t = sc_lex_peek(p);
		if (sc_lex_is_op(t, "="))
			return sc_lex_err(p, t->col, "expected a comparison; use '==' for equality");
		if (t->kind == SC_T_END)
			return sc_lex_err(p, t->col, "expected a comparison (== != < <= > >=)");
		return sc_lex_err(p, t->col, "expected a comparison (== != < <= > >=), got '%s'", t->text);
	}
	*out = n;
	return SC_OK;
}

/* Appends node's top-level conjuncts to the spec's conditions. */
static enum sc_status add_conjuncts(struct sc_parse *p, int node)
{
	struct sc_spec *s = p->s;
	const struct sc_expr *x = &s->nodes[node];
	if (x->kind == SC_EX_AND) {
		SC_CHECK(add_conjuncts(p, x->a));
		return add_conjuncts(p, x->b);
	}
	if (s->nconds >= SC_MAX_CONDS)
		return sc_lex_err(p, x->col, "too many conditions (at most %d)", SC_MAX_CONDS);
	struct sc_cond *c = &s->conds[s->nconds++];
	c->node = node;
	c->line = x->line;
	c->col = x->col;
	return SC_OK;
}

enum sc_status sc_expr_parse_conds(struct sc_parse *p)
{
	int n;
	SC_CHECK(sc_expr_parse_cond(p, &n));
	struct sc_tok *t = sc_lex_peek(p);
	if (sc_lex_is_op(t, "="))
		return sc_lex_err(p, t->col, "expected end of line; use '==' for equality");
	if (t->kind != SC_T_END)
		return sc_lex_err(p, t->col, "expected 'and', 'or' or end of line, got '%s'", t->text);
	return add_conjuncts(p, n);
}

enum sc_status sc_expr_take_when(struct sc_parse *p, int *node, int *col)
{
	*node = -1;
	*col = 0;
	for (int i = 1; i < p->nt; i++) {
		if (p->t[i].kind != SC_T_NAME || strcmp(p->t[i].text, "when") != 0)
			continue;
		const int save = p->pos;
		p->pos = i + 1;
		SC_CHECK(sc_expr_parse_cond(p, node));
		SC_CHECK(sc_lex_end(p));
		*col = p->t[i].col;
		p->t[i].kind = SC_T_END;
		p->t[i].text[0] = '\0';
		p->nt = i;
		p->pos = save;
		return SC_OK;
	}
	return SC_OK;
}

int sc_expr_last_dim(const struct sc_spec *s, int node)
{
	if (node < 0)
		return -1;
	const struct sc_expr *x = &s->nodes[node];
	/* a mesh size (past the dims) is known with the world; parameter k is
	 * drawn after the dims, as if dim ndims + k */
	const int k = x->kind == SC_EX_DIM ? sc_spec_slot_param(s, x->dim) : -1;
	int m = k >= 0 ? s->ndims + k : x->kind == SC_EX_DIM && x->dim < s->ndims ? x->dim : -1;
	const int kids[3] = {x->a, x->b, x->c};
	for (int i = 0; i < 3; i++) {
		int k = sc_expr_last_dim(s, kids[i]);
		if (k > m)
			m = k;
	}
	return m;
}

int sc_expr_find(const struct sc_spec *s, int node, uint64_t kinds)
{
	if (node < 0)
		return -1;
	const struct sc_expr *x = &s->nodes[node];
	if ((kinds >> x->kind) & 1u)
		return node;
	const int kids[3] = {x->a, x->b, x->c};
	for (int i = 0; i < 3; i++) {
		int k = sc_expr_find(s, kids[i], kinds);
		if (k >= 0)
			return k;
	}
	return -1;
}
