/* sc_spec: tokenizer, recursive-descent parser and evaluator of .sc specs.
 *
 * Parsing is line based. Each line is tokenized once; declarations and
 * steps are recognised by their first word. Names in expressions are
 * resolved after the whole file is read, so declarations may come in any
 * order; every error names the line and column of the offending token. */
#include "sc_spec.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tkind { T_NAME, T_NUM, T_OP, T_END };

struct tok {
	enum tkind kind;
	char text[SC_NAME_MAX];
	int64_t num;
	int col;
};

#define MAX_TOKS 256

struct pending_place {
	int line, shard_col, nnames;
	char shard_name[SC_NAME_MAX];
	char names[SC_MAX_DIMS][SC_NAME_MAX];
	int name_cols[SC_MAX_DIMS];
};


struct pstate {
	struct sc_spec *s;
	const char *path;
	int line;
	struct tok t[MAX_TOKS];
	int nt, pos;
	struct sc_err *e;
	int seen_dims, seen_world, seen_in, seen_out, seen_name, seen_expect;
	int sizes_line[SC_MAX_DIMS];
	struct pending_place pend_in, pend_out;
	int block; /* 0 declarations, 1 reference, 2 program */
	int seen_ref, seen_prog;
};

static enum sc_status perr(struct pstate *p, int col, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static enum sc_status perr(struct pstate *p, int col, const char *fmt, ...)
{
	char msg[SC_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return SC_ERR(p->e, SC_E_SPEC, "%s:%d:%d: %s", p->path, p->line, col, msg);
}

static enum sc_status tokenize(struct pstate *p, const char *line)
{
	p->nt = 0;
	p->pos = 0;
	const char *c = line;
	while (*c && *c != '#' && *c != '\n') {
		int col = (int)(c - line) + 1;
		if (isspace((unsigned char)*c)) {
			c++;
			continue;
		}
		if (p->nt >= MAX_TOKS - 1)
			return perr(p, col, "line too long (more than %d tokens)", MAX_TOKS - 1);
		struct tok *t = &p->t[p->nt];
		t->col = col;
		if (isalpha((unsigned char)*c) || *c == '_') {
			size_t n = 0;
			while (isalnum((unsigned char)c[n]) || c[n] == '_')
				n++;
			if (n >= SC_NAME_MAX)
				return perr(p, col, "name too long (at most %d characters)", SC_NAME_MAX - 1);
			t->kind = T_NAME;
			memcpy(t->text, c, n);
			t->text[n] = '\0';
			c += n;
		} else if (isdigit((unsigned char)*c)) {
			size_t n = 0;
			while (isdigit((unsigned char)c[n]))
				n++;
			if (isalpha((unsigned char)c[n]) || c[n] == '_')
				return perr(p, col, "malformed number");
			char buf[32];
			if (n >= sizeof buf)
				return perr(p, col, "integer too large");
			memcpy(buf, c, n);
			buf[n] = '\0';
			errno = 0;
			long long v = strtoll(buf, NULL, 10);
			if (errno == ERANGE)
				return perr(p, col, "integer too large");
			t->kind = T_NUM;
			t->num = v;
			snprintf(t->text, sizeof t->text, "%s", buf);
			c += n;
		} else {
			static const char *const two[] = {"//", "..", "==", "!=", "<=", ">="};
			int n = 0;
			for (size_t k = 0; k < sizeof two / sizeof two[0]; k++)
				if (c[0] == two[k][0] && c[1] == two[k][1])
					n = 2;
			if (!n) {
				if (!strchr("+-*/%()[],=<>:", *c))
					return perr(p, col, "unexpected character '%c'", *c);
				n = 1;
			}
			t->kind = T_OP;
			memcpy(t->text, c, (size_t)n);
			t->text[n] = '\0';
			c += n;
		}
		p->nt++;
	}
	p->t[p->nt].kind = T_END;
	p->t[p->nt].text[0] = '\0';
	p->t[p->nt].col = (int)(c - line) + 1;
	return SC_OK;
}

static struct tok *peek(struct pstate *p) { return &p->t[p->pos]; }
static int is_op(const struct tok *t, const char *op)
{
	return t->kind == T_OP && strcmp(t->text, op) == 0;
}

static int new_node(struct pstate *p, enum sc_exkind k, int col)
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

static enum sc_status parse_expr(struct pstate *p, int *out);

static enum sc_status parse_atom(struct pstate *p, int *out)
{
	struct tok *t = peek(p);
	int n;
	if (is_op(t, "-")) {
		p->pos++;
		int a;
		SC_CHECK(parse_atom(p, &a));
		if ((n = new_node(p, SC_EX_NEG, t->col)) < 0)
			return perr(p, t->col, "spec too large");
		p->s->nodes[n].a = a;
		*out = n;
		return SC_OK;
	}
	if (t->kind == T_NUM) {
		p->pos++;
		if ((n = new_node(p, SC_EX_NUM, t->col)) < 0)
			return perr(p, t->col, "spec too large");
		p->s->nodes[n].num = t->num;
		*out = n;
		return SC_OK;
	}
	if (t->kind == T_NAME) {
		p->pos++;
		if ((n = new_node(p, SC_EX_NAME, t->col)) < 0)
			return perr(p, t->col, "spec too large");
		snprintf(p->s->nodes[n].name, SC_NAME_MAX, "%s", t->text);
		*out = n;
		return SC_OK;
	}
	if (is_op(t, "(")) {
		p->pos++;
		SC_CHECK(parse_expr(p, out));
		if (!is_op(peek(p), ")"))
			return perr(p, peek(p)->col, "expected ')'");
		p->pos++;
		return SC_OK;
	}
	if (t->kind == T_END)
		return perr(p, t->col, "expected an expression");
	return perr(p, t->col, "expected an expression, got '%s'", t->text);
}

static enum sc_status parse_term(struct pstate *p, int *out)
{
	int a;
	SC_CHECK(parse_atom(p, &a));
	for (;;) {
		struct tok *t = peek(p);
		enum sc_exkind k;
		if (is_op(t, "*")) k = SC_EX_MUL;
		else if (is_op(t, "/")) k = SC_EX_DIV;
		else if (is_op(t, "//")) k = SC_EX_FDIV;
		else if (is_op(t, "%")) k = SC_EX_MOD;
		else break;
		p->pos++;
		int b, n;
		SC_CHECK(parse_atom(p, &b));
		if ((n = new_node(p, k, t->col)) < 0)
			return perr(p, t->col, "spec too large");
		p->s->nodes[n].a = a;
		p->s->nodes[n].b = b;
		a = n;
	}
	*out = a;
	return SC_OK;
}

static enum sc_status parse_expr(struct pstate *p, int *out)
{
	int a;
	SC_CHECK(parse_term(p, &a));
	for (;;) {
		struct tok *t = peek(p);
		enum sc_exkind k;
		if (is_op(t, "+")) k = SC_EX_ADD;
		else if (is_op(t, "-")) k = SC_EX_SUB;
		else break;
		p->pos++;
		int b, n;
		SC_CHECK(parse_term(p, &b));
		if ((n = new_node(p, k, t->col)) < 0)
			return perr(p, t->col, "spec too large");
		p->s->nodes[n].a = a;
		p->s->nodes[n].b = b;
		a = n;
	}
	*out = a;
	return SC_OK;
}

static enum sc_status expect_end(struct pstate *p)
{
	struct tok *t = peek(p);
	if (t->kind != T_END)
		return perr(p, t->col, "unexpected '%s' at end of line", t->text);
	return SC_OK;
}

static int dim_index(const struct sc_spec *s, const char *name)
{
	for (int i = 0; i < s->ndims; i++)
		if (strcmp(s->dim[i], name) == 0)
			return i;
	return -1;
}

/* A signed integer literal (dim indices of steps). */
static enum sc_status parse_int(struct pstate *p, const char *what, int *out)
{
	struct tok *t = peek(p);
	int neg = 0, col = t->col;
	if (is_op(t, "-")) {
		neg = 1;
		p->pos++;
		t = peek(p);
	}
	if (t->kind != T_NUM) {
		if (t->kind == T_END)
			return perr(p, t->col, "expected %s (an integer)", what);
		return perr(p, t->col, "expected %s (an integer), got '%s'", what, t->text);
	}
	if (t->num > 64)
		return perr(p, col, "%s %s%lld out of range", what, neg ? "-" : "", (long long)t->num);
	p->pos++;
	*out = neg ? -(int)t->num : (int)t->num;
	return SC_OK;
}

/* key=INT */
static enum sc_status parse_kv_int(struct pstate *p, const char *key, int *out)
{
	struct tok *t = peek(p);
	if (t->kind != T_NAME || strcmp(t->text, key) != 0) {
		if (t->kind == T_END)
			return perr(p, t->col, "expected '%s='", key);
		return perr(p, t->col, "expected '%s=', got '%s'", key, t->text);
	}
	p->pos++;
	if (!is_op(peek(p), "="))
		return perr(p, peek(p)->col, "expected '=' after '%s'", key);
	p->pos++;
	return parse_int(p, key, out);
}

static enum sc_status parse_redop(struct pstate *p, enum sc_redop *op)
{
	struct tok *t = peek(p);
	if (t->kind != T_NAME)
		return perr(p, t->col, "expected a reduction op (sum, max, min, prod)");
	if (sc_redop_parse(t->text, op) != 0)
		return perr(p, t->col, "unknown reduction op '%s' (expected sum, max, min or prod)", t->text);
	p->pos++;
	return SC_OK;
}

static enum sc_status parse_placement(struct pstate *p, struct sc_layout *l, int *shard_col,
				      char *shard_name, int *layout_names, char names[][SC_NAME_MAX],
				      int *name_cols, int *group_open_col)
{
	struct tok *t = peek(p);
	memset(l, 0, sizeof *l);
	l->shard_dim = -1;
	*layout_names = 0;
	*group_open_col = 0;
	if (t->kind != T_NAME)
		return perr(p, t->col, "expected a placement: shard NAME, replicate or partial OP");
	if (strcmp(t->text, "shard") == 0) {
		p->pos++;
		struct tok *n = peek(p);
		if (n->kind != T_NAME)
			return perr(p, n->col, "expected a dim name after 'shard'");
		snprintf(shard_name, SC_NAME_MAX, "%s", n->text);
		*shard_col = n->col;
		l->kind = SC_SHARD;
		p->pos++;
	} else if (strcmp(t->text, "replicate") == 0) {
		l->kind = SC_REPLICATE;
		p->pos++;
	} else if (strcmp(t->text, "partial") == 0) {
		p->pos++;
		l->kind = SC_PARTIAL;
		SC_CHECK(parse_redop(p, &l->op));
	} else if (strcmp(t->text, "shape") == 0) {
		p->pos++;
		l->kind = SC_OPAQUE;
		if (!is_op(peek(p), "["))
			return perr(p, peek(p)->col, "expected '[' after 'shape'");
		p->pos++;
		while (!is_op(peek(p), "]")) {
			if (l->nshape >= SC_MAX_DIMS)
				return perr(p, peek(p)->col, "too many dims (at most %d)", SC_MAX_DIMS);
			SC_CHECK(parse_expr(p, &l->shape_expr[l->nshape]));
			l->nshape++;
			if (is_op(peek(p), ","))
				p->pos++;
			else if (!is_op(peek(p), "]"))
				return perr(p, peek(p)->col, "expected ',' or ']'");
		}
		p->pos++;
		return expect_end(p);
	} else {
		return perr(p, t->col, "unknown placement '%s' (expected shard, replicate or partial)", t->text);
	}
	t = peek(p);
	if (t->kind == T_END)
		return SC_OK;
	if (t->kind != T_NAME || strcmp(t->text, "as") != 0)
		return perr(p, t->col, "expected 'as' or end of line, got '%s'", t->text);
	p->pos++;
	int in_group = 0, glen = 0;
	for (;;) {
		t = peek(p);
		if (t->kind == T_END)
			break;
		if (is_op(t, "(")) {
			if (in_group)
				return perr(p, t->col, "nested '(' in a layout");
			in_group = 1;
			glen = 0;
			*group_open_col = t->col;
			p->pos++;
			continue;
		}
		if (is_op(t, ")")) {
			if (!in_group)
				return perr(p, t->col, "unbalanced ')' in a layout");
			if (glen == 0)
				return perr(p, t->col, "empty group '()' in a layout");
			in_group = 0;
			l->group_len[l->ngroups++] = glen;
			p->pos++;
			continue;
		}
		if (t->kind != T_NAME)
			return perr(p, t->col, "expected a dim name in the layout, got '%s'", t->text);
		if (*layout_names >= SC_MAX_DIMS)
			return perr(p, t->col, "too many names in the layout");
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
		return perr(p, *group_open_col, "unclosed '(' in a layout");
	if (*layout_names == 0)
		return perr(p, t->col, "expected dim names after 'as'");
	return SC_OK;
}


static const struct {
	const char *kw;
	enum sc_op op;
} step_kw[] = {
	{"reshape", SC_OP_RESHAPE},
	{"view", SC_OP_VIEW},
	{"flatten", SC_OP_FLATTEN},
	{"unsqueeze", SC_OP_UNSQUEEZE},
	{"squeeze", SC_OP_SQUEEZE},
	{"movedim", SC_OP_MOVEDIM},
	{"chunk_cat", SC_OP_CHUNK_CAT},
	{"transpose", SC_OP_TRANSPOSE},
	{"permute", SC_OP_PERMUTE},
	{"contiguous", SC_OP_CONTIGUOUS},
	{"all_to_all_single", SC_OP_ALL_TO_ALL_SINGLE},
	{"all_gather_into_tensor", SC_OP_ALL_GATHER_INTO_TENSOR},
	{"reduce_scatter_tensor", SC_OP_REDUCE_SCATTER_TENSOR},
	{"all_reduce", SC_OP_ALL_REDUCE},
	{"all_to_all", SC_OP_ALL_TO_ALL},
	{"all_gather", SC_OP_ALL_GATHER},
	{"reduce_scatter", SC_OP_REDUCE_SCATTER},
};

int sc_spec_sharded(const struct sc_spec *s, int d)
{
	return (s->sharded_mask >> d) & 1u;
}

const char *sc_op_name(enum sc_op op)
{
	for (size_t i = 0; i < sizeof step_kw / sizeof step_kw[0]; i++)
		if (step_kw[i].op == op)
			return step_kw[i].kw;
	return "?";
}

static enum sc_status parse_raw(struct pstate *p, struct sc_step *st)
{
	struct tok *t = peek(p);
	if (t->kind == T_NAME && strcmp(t->text, "raw") == 0) {
		st->raw = 1;
		p->pos++;
	}
	return expect_end(p);
}

static enum sc_status parse_step(struct pstate *p, enum sc_op op, const char *linetext)
{
	struct sc_spec *s = p->s;
	if (s->nsteps >= SC_MAX_STEPS)
		return perr(p, p->t[0].col, "too many steps (at most %d)", SC_MAX_STEPS);
	struct sc_step *st = &s->steps[s->nsteps];
	memset(st, 0, sizeof *st);
	st->op = op;
	st->line = p->line;
	st->col = p->t[0].col;
	{
		const char *b = linetext + p->t[0].col - 1;
		size_t n = strcspn(b, "#\n");
		while (n && isspace((unsigned char)b[n - 1]))
			n--;
		if (n >= sizeof st->text)
			n = sizeof st->text - 1;
		memcpy(st->text, b, n);
		st->text[n] = '\0';
	}
	p->pos = 1;
	switch (op) {
	case SC_OP_RESHAPE:
	case SC_OP_VIEW: {
		if (!is_op(peek(p), "["))
			return perr(p, peek(p)->col, "expected '[' after '%s'", sc_op_name(op));
		p->pos++;
		if (is_op(peek(p), "]")) {
			p->pos++;
		} else {
			for (;;) {
				if (st->nargs >= SC_MAX_DIMS)
					return perr(p, peek(p)->col, "too many dims (at most %d)", SC_MAX_DIMS);
				SC_CHECK(parse_expr(p, &st->args[st->nargs]));
				st->nargs++;
				if (is_op(peek(p), ",")) {
					p->pos++;
					continue;
				}
				if (is_op(peek(p), "]")) {
					p->pos++;
					break;
				}
				if (peek(p)->kind == T_END)
					return perr(p, peek(p)->col, "expected ']'");
				return perr(p, peek(p)->col, "expected ',' or ']', got '%s'", peek(p)->text);
			}
		}
		SC_CHECK(expect_end(p));
		break;
	}
	case SC_OP_FLATTEN:
	case SC_OP_MOVEDIM:
	case SC_OP_TRANSPOSE:
		SC_CHECK(parse_int(p, "a dim", &st->args[0]));
		SC_CHECK(parse_int(p, "a dim", &st->args[1]));
		st->nargs = 2;
		SC_CHECK(expect_end(p));
		break;
	case SC_OP_UNSQUEEZE:
	case SC_OP_SQUEEZE:
		SC_CHECK(parse_int(p, "a dim", &st->args[0]));
		st->nargs = 1;
		SC_CHECK(expect_end(p));
		break;
	case SC_OP_PERMUTE:
		while (peek(p)->kind != T_END) {
			if (st->nargs >= SC_MAX_DIMS)
				return perr(p, peek(p)->col, "too many dims (at most %d)", SC_MAX_DIMS);
			SC_CHECK(parse_int(p, "a dim", &st->args[st->nargs]));
			st->nargs++;
		}
		break;
	case SC_OP_CONTIGUOUS:
		SC_CHECK(expect_end(p));
		break;
	case SC_OP_CHUNK_CAT:
		SC_CHECK(parse_kv_int(p, "chunk", &st->args[0]));
		SC_CHECK(parse_kv_int(p, "cat", &st->args[1]));
		st->nargs = 2;
		SC_CHECK(expect_end(p));
		break;
	case SC_OP_ALL_TO_ALL_SINGLE:
	case SC_OP_ALL_GATHER_INTO_TENSOR:
		SC_CHECK(parse_raw(p, st));
		break;
	case SC_OP_REDUCE_SCATTER_TENSOR:
	case SC_OP_ALL_REDUCE:
		SC_CHECK(parse_redop(p, &st->redop));
		SC_CHECK(parse_raw(p, st));
		s->has_reduction = 1;
		break;
	case SC_OP_ALL_TO_ALL:
		SC_CHECK(parse_kv_int(p, "split", &st->args[0]));
		SC_CHECK(parse_kv_int(p, "concat", &st->args[1]));
		st->nargs = 2;
		SC_CHECK(expect_end(p));
		break;
	case SC_OP_ALL_GATHER:
		SC_CHECK(parse_kv_int(p, "dim", &st->args[0]));
		st->nargs = 1;
		SC_CHECK(expect_end(p));
		break;
	case SC_OP_REDUCE_SCATTER: {
		SC_CHECK(parse_kv_int(p, "dim", &st->args[0]));
		st->nargs = 1;
		struct tok *t = peek(p);
		if (t->kind != T_NAME || strcmp(t->text, "op") != 0)
			return perr(p, t->col, "expected 'op='");
		p->pos++;
		if (!is_op(peek(p), "="))
			return perr(p, peek(p)->col, "expected '=' after 'op'");
		p->pos++;
		SC_CHECK(parse_redop(p, &st->redop));
		SC_CHECK(expect_end(p));
		s->has_reduction = 1;
		break;
	}
	}
	s->nsteps++;
	return SC_OK;
}

static enum sc_status parse_cond(struct pstate *p)
{
	struct sc_spec *s = p->s;
	for (;;) {
		if (s->nconds >= SC_MAX_CONDS)
			return perr(p, peek(p)->col, "too many conditions (at most %d)", SC_MAX_CONDS);
		struct sc_cond *c = &s->conds[s->nconds];
		c->line = p->line;
		c->col = peek(p)->col;
		SC_CHECK(parse_expr(p, &c->lhs));
		struct tok *t = peek(p);
		static const char *const cmps[] = {"==", "!=", "<", "<=", ">", ">="};
		int k = -1;
		for (int i = 0; i < 6; i++)
			if (is_op(t, cmps[i]))
				k = i;
		if (k < 0) {
			if (is_op(t, "="))
				return perr(p, t->col, "expected a comparison; use '==' for equality");
			if (t->kind == T_END)
				return perr(p, t->col, "expected a comparison (== != < <= > >=)");
			return perr(p, t->col, "expected a comparison (== != < <= > >=), got '%s'", t->text);
		}
		c->cmp = (enum sc_cmp)k;
		p->pos++;
		SC_CHECK(parse_expr(p, &c->rhs));
		s->nconds++;
		t = peek(p);
		if (t->kind == T_END)
			return SC_OK;
		if (t->kind == T_NAME && strcmp(t->text, "and") == 0) {
			p->pos++;
			continue;
		}
		return perr(p, t->col, "expected 'and' or end of line, got '%s'", t->text);
	}
}


/* ---- compute specs ---- */

static int tensor_id(struct sc_spec *s, const char *name)
{
	for (int i = 0; i < s->ntensors; i++)
		if (strcmp(s->tensors[i].name, name) == 0)
			return i;
	return -1;
}

static enum sc_status new_tensor(struct pstate *p, const struct tok *t, int *out)
{
	struct sc_spec *s = p->s;
	if (s->ntensors >= SC_MAX_TENSORS)
		return perr(p, t->col, "too many tensors (at most %d)", SC_MAX_TENSORS);
	struct sc_tdecl *d = &s->tensors[s->ntensors];
	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", t->text);
	d->line = p->line;
	d->col = t->col;
	*out = s->ntensors++;
	return SC_OK;
}

/* `tensor NAME [d, ...] PLACEMENT` and `output NAME [d, ...] PLACEMENT` */
static enum sc_status parse_tensor_decl(struct pstate *p, int is_output)
{
	struct sc_spec *s = p->s;
	struct tok *nt = peek(p);
	if (nt->kind != T_NAME)
		return perr(p, nt->col, "expected a tensor name");
	if (tensor_id(s, nt->text) >= 0)
		return perr(p, nt->col, "tensor '%s' is declared twice", nt->text);
	if (dim_index(s, nt->text) >= 0 || strcmp(nt->text, s->world_sym) == 0)
		return perr(p, nt->col, "'%s' is a dim name, not a tensor name", nt->text);
	int id;
	SC_CHECK(new_tensor(p, nt, &id));
	struct sc_tdecl *d = &s->tensors[id];
	d->input = !is_output;
	p->pos++;
	if (!is_op(peek(p), "["))
		return perr(p, peek(p)->col, "expected '[' and the tensor's dims");
	p->pos++;
	while (!is_op(peek(p), "]")) {
		struct tok *t = peek(p);
		if (t->kind != T_NAME)
			return perr(p, t->col, "expected a dim name");
		int g = dim_index(s, t->text);
		if (g < 0)
			return perr(p, t->col, "unknown dim '%s' (declare it in 'dims' first)", t->text);
		if (d->ndims >= SC_MAX_DIMS)
			return perr(p, t->col, "too many dims");
		for (int k = 0; k < d->ndims; k++)
			if (d->dims[k] == g)
				return perr(p, t->col, "dim '%s' appears twice", t->text);
		d->dims[d->ndims++] = g;
		p->pos++;
		if (is_op(peek(p), ","))
			p->pos++;
		else if (!is_op(peek(p), "]"))
			return perr(p, peek(p)->col, "expected ',' or ']'");
	}
	p->pos++;
	struct tok *t = peek(p);
	struct sc_layout *l = &d->place;
	memset(l, 0, sizeof *l);
	l->shard_dim = -1;
	if (t->kind == T_NAME && strcmp(t->text, "shard") == 0) {
		p->pos++;
		struct tok *dn = peek(p);
		int g = dn->kind == T_NAME ? dim_index(s, dn->text) : -1;
		int k = -1;
		for (int i = 0; i < d->ndims; i++)
			if (d->dims[i] == g)
				k = i;
		if (k < 0)
			return perr(p, dn->col, "shard needs one of the tensor's dims");
		l->kind = SC_SHARD;
		l->shard_dim = k;
		s->sharded_mask |= 1u << g;
		p->pos++;
	} else if (t->kind == T_NAME && strcmp(t->text, "replicate") == 0) {
		l->kind = SC_REPLICATE;
		p->pos++;
	} else if (t->kind == T_NAME && strcmp(t->text, "partial") == 0) {
		p->pos++;
		l->kind = SC_PARTIAL;
		SC_CHECK(parse_redop(p, &l->op));
		if (l->op != SC_SUM)
			return perr(p, p->t[p->pos - 1].col, "a compute tensor may be partial sum only");
	} else {
		return perr(p, t->col, "expected a placement: shard DIM, replicate or partial sum");
	}
	l->norder = d->ndims;
	l->ngroups = d->ndims;
	for (int i = 0; i < d->ndims; i++) {
		l->order[i] = i;
		l->group_len[i] = 1;
	}
	if (is_output)
		s->out_tensor = id;
	s->compute = 1;
	return expect_end(p);
}

static enum sc_status operand(struct pstate *p, int *id)
{
	struct tok *t = peek(p);
	if (t->kind != T_NAME)
		return perr(p, t->col, "expected a tensor name");
	*id = tensor_id(p->s, t->text);
	if (*id < 0)
		return perr(p, t->col, "unknown tensor '%s' (not declared nor assigned before)", t->text);
	p->pos++;
	return SC_OK;
}

static const struct {
	const char *kw;
	enum sc_cop op;
	int nargs; /* tensor operands */
} cops[] = {
	{"matmul", SC_C_MATMUL, 2}, {"linear", SC_C_LINEAR, 2}, {"add", SC_C_ADD, 2},
	{"mul", SC_C_MUL, 2},       {"scale", SC_C_SCALE, 1},   {"gelu", SC_C_GELU, 1},
	{"relu", SC_C_RELU, 1},     {"silu", SC_C_SILU, 1},     {"cast", SC_C_CAST, 1},
	{"sum", SC_C_SUM, 1},
};

/* NAME = OP args   |   NAME = SRC   |   NAME: STEP ... */
static enum sc_status parse_stmt(struct pstate *p, const char *line)
{
	struct sc_spec *s = p->s;
	int *n = p->block == 1 ? &s->nref : &s->nprog;
	struct sc_stmt *st = p->block == 1 ? &s->ref[*n] : &s->prog[*n];
	if (*n >= SC_MAX_STMTS)
		return perr(p, p->t[0].col, "too many statements (at most %d)", SC_MAX_STMTS);
	memset(st, 0, sizeof *st);
	st->a = st->b = st->c = -1;
	st->line = p->line;
	st->col = p->t[0].col;
	struct tok *dst = &p->t[0];
	/* NAME: STEP */
	const char *colon = p->nt >= 2 && is_op(&p->t[1], ":") ? line + p->t[1].col - 1 : NULL;
	if (dst->kind == T_NAME && colon) {
		int id = tensor_id(s, dst->text);
		if (id < 0)
			return perr(p, dst->col, "unknown tensor '%s'", dst->text);
		char rest[4096];
		snprintf(rest, sizeof rest, "%*s%s", (int)(colon + 1 - line), "", colon + 1);
		SC_CHECK(tokenize(p, rest));
		if (p->nt == 0 || p->t[0].kind != T_NAME)
			return perr(p, (int)(colon - line) + 2, "expected a step after ':'");
		for (size_t i = 0; i < sizeof step_kw / sizeof step_kw[0]; i++)
			if (strcmp(p->t[0].text, step_kw[i].kw) == 0) {
				SC_CHECK(parse_step(p, step_kw[i].op, rest));
				st->op = SC_C_STEP;
				st->dst = id;
				st->step = s->nsteps - 1;
				(*n)++;
				return SC_OK;
			}
		return perr(p, p->t[0].col, "unknown step '%s'", p->t[0].text);
	}
	if (dst->kind != T_NAME || p->nt < 3 || !is_op(&p->t[1], "="))
		return perr(p, dst->col, "expected NAME = OP ... or NAME: STEP ...");
	p->pos = 2;
	struct tok *op = peek(p);
	int id = tensor_id(s, dst->text);
	int found = -1;
	for (size_t i = 0; i < sizeof cops / sizeof cops[0]; i++)
		if (op->kind == T_NAME && strcmp(op->text, cops[i].kw) == 0)
			found = (int)i;
	if (found < 0) { /* NAME = SRC: a copy */
		st->op = SC_C_COPY;
		SC_CHECK(operand(p, &st->a));
	} else {
		p->pos++;
		st->op = cops[found].op;
		SC_CHECK(operand(p, &st->a));
		if (cops[found].nargs == 2)
			SC_CHECK(operand(p, &st->b));
		if (st->op == SC_C_LINEAR && peek(p)->kind == T_NAME)
			SC_CHECK(operand(p, &st->c)); /* bias */
		if (st->op == SC_C_SCALE) {
			struct tok *v = peek(p);
			char *end;
			if (v->kind == T_END)
				return perr(p, v->col, "expected a number after 'scale NAME'");
			const char *b = line + v->col - 1;
			double d = strtod(b, &end);
			if (end == b)
				return perr(p, v->col, "expected a number");
			st->scalar = d;
			while (p->pos < p->nt && p->t[p->pos].col - 1 < (int)(end - line))
				p->pos++;
		}
		if (st->op == SC_C_GELU) {
			struct tok *f = peek(p);
			if (f->kind == T_NAME && strcmp(f->text, "tanh") == 0) {
				st->form = 0;
				p->pos++;
			} else if (f->kind == T_NAME && strcmp(f->text, "erf") == 0) {
				st->form = 1;
				p->pos++;
			} else {
				return perr(p, f->col, "gelu needs its form: tanh or erf");
			}
		}
		if (st->op == SC_C_CAST) {
			struct tok *d = peek(p);
			if (d->kind != T_NAME || sc_dtype_parse(d->text, &st->dtype) != 0 || !sc_dtype_is_float(st->dtype))
				return perr(p, d->col, "cast needs a float dtype (f64 f32 f16 bf16 f8e4m3 f8e5m2)");
			p->pos++;
		}
		if (st->op == SC_C_SUM)
			SC_CHECK(parse_kv_int(p, "dim", &st->dim));
	}
	SC_CHECK(expect_end(p));
	if (id < 0) {
		SC_CHECK(new_tensor(p, dst, &id));
		s->tensors[id].input = 0;
	} else if (s->tensors[id].input && id != s->out_tensor) {
		return perr(p, dst->col, "'%s' is an input tensor; assign to a new name", dst->text);
	}
	st->dst = id;
	(*n)++;
	return SC_OK;
}

static enum sc_status parse_line(struct pstate *p, const char *line)
{
	struct sc_spec *s = p->s;
	{
		/* a pipeline name is free text up to a space or '#' (may hold - : .) */
		const char *w = line;
		while (*w == ' ' || *w == '\t')
			w++;
		if (strncmp(w, "pipeline", 8) == 0 && (w[8] == ' ' || w[8] == '\t')) {
			if (p->seen_name)
				return perr(p, (int)(w - line) + 1, "duplicate 'pipeline' declaration");
			const char *b = w + 8;
			while (*b == ' ' || *b == '\t')
				b++;
			size_t n = strcspn(b, " \t#\n");
			if (n == 0)
				return perr(p, (int)(b - line) + 1, "expected a pipeline name");
			if (n >= sizeof s->name)
				return perr(p, (int)(b - line) + 1, "pipeline name too long");
			memcpy(s->name, b, n);
			s->name[n] = '\0';
			const char *rest = b + n;
			while (*rest == ' ' || *rest == '\t')
				rest++;
			if (*rest && *rest != '#' && *rest != '\n')
				return perr(p, (int)(rest - line) + 1, "unexpected text after the pipeline name");
			p->seen_name = 1;
			return SC_OK;
		}
	}
	SC_CHECK(tokenize(p, line));
	if (p->nt == 0)
		return SC_OK;
	struct tok *kw = &p->t[0];
	if (kw->kind == T_NAME && (strcmp(kw->text, "reference") == 0 || strcmp(kw->text, "program") == 0) &&
	    p->nt == 1) {
		int ref = kw->text[0] == 'r';
		if (ref ? p->seen_ref : p->seen_prog)
			return perr(p, kw->col, "duplicate '%s' block", kw->text);
		if (ref)
			p->seen_ref = p->line;
		else
			p->seen_prog = p->line;
		p->block = ref ? 1 : 2;
		p->s->compute = 1;
		return SC_OK;
	}
	if (p->block)
		return parse_stmt(p, line);
	if (kw->kind != T_NAME)
		return perr(p, kw->col, "expected a declaration or a step, got '%s'", kw->text);
	p->pos = 1;
	const char *k = kw->text;
	if (strcmp(k, "pipeline") == 0)
		return perr(p, kw->col, "expected a pipeline name");
	if (strcmp(k, "dims") == 0) {
		if (p->seen_dims)
			return perr(p, kw->col, "duplicate 'dims' declaration");
		p->seen_dims = p->line;
		while (peek(p)->kind != T_END) {
			struct tok *t = peek(p);
			if (t->kind != T_NAME)
				return perr(p, t->col, "expected a dim name, got '%s'", t->text);
			if (s->ndims >= SC_MAX_DIMS)
				return perr(p, t->col, "too many dims (at most %d)", SC_MAX_DIMS);
			if (dim_index(s, t->text) >= 0)
				return perr(p, t->col, "duplicate dim name '%s'", t->text);
			if (strcmp(t->text, "and") == 0 || strcmp(t->text, "as") == 0)
				return perr(p, t->col, "'%s' is a keyword, not a dim name", t->text);
			snprintf(s->dim[s->ndims++], SC_NAME_MAX, "%s", t->text);
			p->pos++;
		}
		if (s->ndims == 0)
			return perr(p, peek(p)->col, "expected at least one dim name");
		return SC_OK;
	}
	if (strcmp(k, "world") == 0) {
		if (p->seen_world)
			return perr(p, kw->col, "duplicate 'world' declaration");
		struct tok *t = peek(p);
		if (t->kind != T_NAME)
			return perr(p, t->col, "expected a world-size symbol");
		snprintf(s->world_sym, SC_NAME_MAX, "%s", t->text);
		p->pos++;
		p->seen_world = p->line;
		return expect_end(p);
	}
	if (strcmp(k, "tensor") == 0)
		return parse_tensor_decl(p, 0);
	if (strcmp(k, "output") == 0 && p->nt >= 3 && p->t[1].kind == T_NAME && is_op(&p->t[2], "[")) {
		if (p->seen_out)
			return perr(p, kw->col, "duplicate 'output' declaration");
		p->seen_out = p->line;
		return parse_tensor_decl(p, 1);
	}
	if (strcmp(k, "dtypes") == 0) {
		if (peek(p)->kind == T_END)
			return perr(p, peek(p)->col, "expected dtype names after 'dtypes'");
		while (peek(p)->kind != T_END) {
			enum sc_dtype dt;
			if (peek(p)->kind != T_NAME || sc_dtype_parse(peek(p)->text, &dt) != 0)
				return perr(p, peek(p)->col, "unknown dtype '%s'", peek(p)->text);
			s->dtype_mask |= 1u << dt;
			p->pos++;
		}
		return SC_OK;
	}
	if (strcmp(k, "input") == 0 || strcmp(k, "output") == 0) {
		int is_in = k[0] == 'i';
		if (is_in ? p->seen_in : p->seen_out)
			return perr(p, kw->col, "duplicate '%s' declaration", k);
		struct pending_place *pp = is_in ? &p->pend_in : &p->pend_out;
		memset(pp, 0, sizeof *pp);
		pp->line = p->line;
		int gcol;
		SC_CHECK(parse_placement(p, is_in ? &s->in : &s->out, &pp->shard_col, pp->shard_name,
					 &pp->nnames, pp->names, pp->name_cols, &gcol));
		if (is_in && s->in.kind == SC_OPAQUE)
			return perr(p, p->t[1].col, "an input needs a placement (shard, replicate or partial), not a shape");
		if (is_in)
			p->seen_in = p->line;
		else
			p->seen_out = p->line;
		return SC_OK;
	}
	if (strcmp(k, "require") == 0) {
		if (peek(p)->kind == T_END)
			return perr(p, peek(p)->col, "expected a condition after 'require'");
		return parse_cond(p);
	}
	if (strcmp(k, "expect") == 0) {
		if (p->seen_expect)
			return perr(p, kw->col, "duplicate 'expect' declaration");
		struct tok *t = peek(p);
		if (t->kind == T_NAME && strcmp(t->text, "fail") == 0)
			s->expect = 1;
		else if (t->kind == T_NAME && strcmp(t->text, "pass") == 0)
			s->expect = 0;
		else
			return perr(p, t->col, "expected 'fail' or 'pass' after 'expect'");
		p->pos++;
		p->seen_expect = 1;
		return expect_end(p);
	}
	if (strcmp(k, "sizes") == 0) {
		if (peek(p)->kind == T_END)
			return perr(p, peek(p)->col, "expected NAME=LO..HI after 'sizes'");
		while (peek(p)->kind != T_END) {
			struct tok *t = peek(p);
			if (t->kind != T_NAME)
				return perr(p, t->col, "expected NAME=LO..HI, got '%s'", t->text);
			int d = dim_index(s, t->text);
			if (d < 0)
				return perr(p, t->col, "unknown dim '%s' (declare 'dims' first)", t->text);
			if (p->sizes_line[d])
				return perr(p, t->col, "duplicate size range for '%s'", t->text);
			p->sizes_line[d] = p->line;
			p->pos++;
			if (!is_op(peek(p), "="))
				return perr(p, peek(p)->col, "expected '=' after '%s'", t->text);
			p->pos++;
			SC_CHECK(parse_expr(p, &s->hint[d].lo));
			if (!is_op(peek(p), ".."))
				return perr(p, peek(p)->col, "expected '..' in a size range");
			p->pos++;
			SC_CHECK(parse_expr(p, &s->hint[d].hi));
		}
		return SC_OK;
	}
	for (size_t i = 0; i < sizeof step_kw / sizeof step_kw[0]; i++)
		if (strcmp(k, step_kw[i].kw) == 0)
			return parse_step(p, step_kw[i].op, line);
	return perr(p, kw->col, "unknown declaration or step '%s'", k);
}

/* Resolves names, checks layouts and fills implicit facts. */
static enum sc_status resolve_place(struct pstate *p, struct sc_layout *l, struct pending_place *pp,
				    const char *what)
{
	struct sc_spec *s = p->s;
	p->line = pp->line;
	if (l->kind == SC_SHARD) {
		l->shard_dim = dim_index(s, pp->shard_name);
		if (l->shard_dim < 0)
			return perr(p, pp->shard_col, "%s: unknown dim '%s'", what, pp->shard_name);
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
		return SC_OK;
	}
	int seen[SC_MAX_DIMS] = {0};
	for (int i = 0; i < pp->nnames; i++) {
		int d = dim_index(s, pp->names[i]);
		if (d < 0)
			return perr(p, pp->name_cols[i], "%s layout: unknown dim '%s'", what, pp->names[i]);
		if (seen[d])
			return perr(p, pp->name_cols[i], "%s layout: dim '%s' appears twice", what, pp->names[i]);
		seen[d] = 1;
		l->order[i] = d;
	}
	l->norder = pp->nnames;
	for (int d = 0; d < s->ndims; d++)
		if (!seen[d])
			return perr(p, pp->name_cols[0], "%s layout: dim '%s' is missing (a layout is a permutation of the dims)",
				    what, s->dim[d]);
	if (l->kind == SC_SHARD) {
		int pos = 0;
		for (int g = 0; g < l->ngroups; g++) {
			for (int k = 0; k < l->group_len[g]; k++)
				if (l->order[pos + k] == l->shard_dim && k != 0)
					return perr(p, pp->shard_col,
						    "%s: sharded dim '%s' must be ungrouped or first in its group",
						    what, pp->shard_name);
			pos += l->group_len[g];
		}
	}
	return SC_OK;
}

static int cond_last_dim(const struct sc_spec *s, int node)
{
	if (node < 0)
		return -1;
	const struct sc_expr *x = &s->nodes[node];
	int m = x->kind == SC_EX_DIM ? x->dim : -1;
	int a = cond_last_dim(s, x->a), b = cond_last_dim(s, x->b);
	if (a > m) m = a;
	if (b > m) m = b;
	return m;
}

enum sc_status sc_spec_parse(const char *text, const char *path, struct sc_spec *s,
			     struct sc_err *e)
{
	struct pstate *p = calloc(1, sizeof *p);
	if (!p)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	enum sc_status st = SC_OK;
	memset(s, 0, sizeof *s);
	s->expect = -1;
	for (int i = 0; i < SC_MAX_DIMS; i++)
		s->hint[i].lo = s->hint[i].hi = -1;
	snprintf(s->path, sizeof s->path, "%s", path);
	snprintf(s->world_sym, sizeof s->world_sym, "P");
	p->s = s;
	p->path = path;
	p->e = e;

	const char *c = text;
	char line[4096];
	while (*c) {
		size_t n = strcspn(c, "\n");
		p->line++;
		if (n >= sizeof line) {
			st = perr(p, 1, "line too long");
			goto out;
		}
		memcpy(line, c, n);
		line[n] = '\0';
		if (memchr(line, '\0', n) != NULL || strlen(line) != n) {
			st = perr(p, (int)strlen(line) + 1, "NUL byte in spec");
			goto out;
		}
		SC_CHECK_GOTO(parse_line(p, line), st, out);
		c += n;
		if (*c == '\n')
			c++;
	}
	int endline = p->line + 1;
	p->line = endline;
	if (!p->seen_dims) {
		st = perr(p, 1, "missing 'dims' declaration");
		goto out;
	}
	if (s->compute) {
		p->line = endline;
		if (!p->seen_out) {
			st = perr(p, 1, "missing 'output NAME [dims] PLACEMENT' declaration");
			goto out;
		}
		if (!p->seen_ref || !p->seen_prog) {
			st = perr(p, 1, "a compute spec needs a 'reference' block and a 'program' block");
			goto out;
		}
		for (int blk = 0; blk < 2; blk++) {
			const struct sc_stmt *b = blk ? s->prog : s->ref;
			int n = blk ? s->nprog : s->nref, defines = 0;
			for (int i = 0; i < n; i++)
				defines |= b[i].dst == s->out_tensor;
			if (!defines) {
				p->line = blk ? p->seen_prog : p->seen_ref;
				st = perr(p, 1, "the %s block never assigns the output '%s'", blk ? "program" : "reference",
					  s->tensors[s->out_tensor].name);
				goto out;
			}
		}
		for (int i = 0; i < s->nsteps; i++)
			if (s->steps[i].op == SC_OP_REDUCE_SCATTER_TENSOR || s->steps[i].op == SC_OP_ALL_REDUCE ||
			    s->steps[i].op == SC_OP_REDUCE_SCATTER)
				s->has_reduction = 1;
		/* the layout-only input/output are unused by compute specs */
		memset(&s->in, 0, sizeof s->in);
		memset(&s->out, 0, sizeof s->out);
		s->in.kind = s->out.kind = SC_REPLICATE;
		p->seen_in = 1;
	}
	if (!p->seen_in) {
		st = perr(p, 1, "missing 'input' declaration");
		goto out;
	}
	if (!p->seen_out) {
		st = perr(p, 1, "missing 'output' declaration");
		goto out;
	}
	if (dim_index(s, s->world_sym) >= 0) {
		p->line = p->seen_world ? p->seen_world : p->seen_dims;
		st = perr(p, 1, "world symbol '%s' is also a dim name", s->world_sym);
		goto out;
	}
	if (!s->compute) {
		SC_CHECK_GOTO(resolve_place(p, &s->in, &p->pend_in, "input"), st, out);
		SC_CHECK_GOTO(resolve_place(p, &s->out, &p->pend_out, "output"), st, out);
		if (s->in.kind == SC_SHARD)
			s->sharded_mask |= 1u << s->in.shard_dim;
		if (s->out.kind == SC_SHARD)
			s->sharded_mask |= 1u << s->out.shard_dim;
	}
	if (s->in.kind == SC_PARTIAL || s->out.kind == SC_PARTIAL)
		s->has_reduction = 1;
	for (int i = 0; i < s->nnodes; i++) {
		struct sc_expr *x = &s->nodes[i];
		if (x->kind != SC_EX_NAME)
			continue;
		if (strcmp(x->name, s->world_sym) == 0) {
			x->kind = SC_EX_WORLD;
		} else {
			int d = dim_index(s, x->name);
			if (d < 0) {
				p->line = x->line;
				st = perr(p, x->col, "unknown name '%s' (not a dim nor the world symbol '%s')",
					  x->name, s->world_sym);
				goto out;
			}
			x->kind = SC_EX_DIM;
			x->dim = d;
		}
	}
	for (int i = 0; i < s->nconds; i++) {
		int a = cond_last_dim(s, s->conds[i].lhs), b = cond_last_dim(s, s->conds[i].rhs);
		s->conds[i].last_dim = a > b ? a : b;
	}
	for (int d = 0; d < s->ndims; d++) {
		if (s->hint[d].lo < 0)
			continue;
		/* a hint may use the world and earlier dims only */
		int a = cond_last_dim(s, s->hint[d].lo), b = cond_last_dim(s, s->hint[d].hi);
		if (a >= d || b >= d) {
			p->line = p->sizes_line[d];
			st = perr(p, s->nodes[a >= d ? s->hint[d].lo : s->hint[d].hi].col,
				  "size range of '%s' may only use the world and earlier dims", s->dim[d]);
			goto out;
		}
	}
	if (!s->name[0]) {
		const char *b = strrchr(path, '/');
		b = b ? b + 1 : path;
		size_t n = strcspn(b, ".");
		if (n >= sizeof s->name)
			n = sizeof s->name - 1;
		memcpy(s->name, b, n);
		s->name[n] = '\0';
	}
out:
	free(p);
	return st;
}

enum sc_status sc_spec_load(const char *path, struct sc_spec *spec, struct sc_err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return SC_ERR(e, SC_E_IO, "%s: cannot open: %s", path, strerror(errno));
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			if (cap > (64u << 20)) {
				free(buf);
				fclose(f);
				return SC_ERR(e, SC_E_SPEC, "%s: file too large for a spec", path);
			}
			char *nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				return SC_ERR(e, SC_E_NOMEM, "out of memory");
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		return SC_ERR(e, SC_E_SPEC, "%s:1:1: NUL byte in spec (not a text file?)", path);
	}
	enum sc_status st = sc_spec_parse(buf, path, spec, e);
	free(buf);
	return st;
}

/* ---- evaluation ---- */

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

int sc_cond_eval(const struct sc_spec *s, const struct sc_cond *c, const int64_t *sizes,
		 int64_t world, struct sc_err *e)
{
	int64_t a, b;
	enum sc_status st;
	if ((st = eval_rec(s, c->lhs, sizes, world, &a, e)) != SC_OK)
		return st;
	if ((st = eval_rec(s, c->rhs, sizes, world, &b, e)) != SC_OK)
		return st;
	switch (c->cmp) {
	case SC_EQ: return a == b;
	case SC_NE: return a != b;
	case SC_LT: return a < b;
	case SC_LE: return a <= b;
	case SC_GT: return a > b;
	case SC_GE: return a >= b;
	}
	return 0;
}

static size_t fmt_rec(const struct sc_spec *s, int node, char *buf, size_t n)
{
	const struct sc_expr *x = &s->nodes[node];
	static const char *const ops[] = {[SC_EX_ADD] = "+", [SC_EX_SUB] = "-", [SC_EX_MUL] = "*",
					  [SC_EX_DIV] = "/", [SC_EX_FDIV] = "//", [SC_EX_MOD] = "%"};
	size_t k = 0;
#define PUT(...) do { int w_ = snprintf(buf + k, k < n ? n - k : 0, __VA_ARGS__); if (w_ > 0) k += (size_t)w_; } while (0)
	switch (x->kind) {
	case SC_EX_NUM: PUT("%lld", (long long)x->num); break;
	case SC_EX_DIM: PUT("%s", s->dim[x->dim]); break;
	case SC_EX_WORLD: PUT("%s", s->world_sym); break;
	case SC_EX_NAME: PUT("%s", x->name); break;
	case SC_EX_NEG:
		PUT("-");
		k += fmt_rec(s, x->a, buf + (k < n ? k : n), k < n ? n - k : 0);
		break;
	default:
		PUT("(");
		k += fmt_rec(s, x->a, buf + (k < n ? k : n), k < n ? n - k : 0);
		PUT(" %s ", ops[x->kind]);
		k += fmt_rec(s, x->b, buf + (k < n ? k : n), k < n ? n - k : 0);
		PUT(")");
		break;
	}
#undef PUT
	return k;
}

void sc_expr_format(const struct sc_spec *s, int node, char *buf, size_t n)
{
	if (n)
		buf[0] = '\0';
	fmt_rec(s, node, buf, n);
}
