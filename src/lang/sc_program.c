/* sc_program: compute-spec tensors and statements. */
#include "sc_program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_expr.h"
#include "sc_step.h"

static int tensor_id(struct sc_spec *s, const char *name)
{
	for (int i = 0; i < s->ntensors; i++)
		if (strcmp(s->tensors[i].name, name) == 0)
			return i;
	return -1;
}

static enum sc_status new_tensor(struct sc_parse *p, const struct sc_tok *t, int *out)
{
	struct sc_spec *s = p->s;
	if (s->ntensors >= SC_MAX_TENSORS)
		return sc_lex_err(p, t->col, "too many tensors (at most %d)", SC_MAX_TENSORS);
	struct sc_tdecl *d = &s->tensors[s->ntensors];
	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", t->text);
	d->line = p->line;
	d->col = t->col;
	*out = s->ntensors++;
	return SC_OK;
}

/* `tensor NAME [d, ...] PLACEMENT` and `output NAME [d, ...] PLACEMENT` */
enum sc_status sc_program_parse_tensor(struct sc_parse *p, int is_output)
{
	struct sc_spec *s = p->s;
	struct sc_tok *nt = sc_lex_peek(p);
	if (nt->kind != SC_T_NAME)
		return sc_lex_err(p, nt->col, "expected a tensor name");
	if (tensor_id(s, nt->text) >= 0)
		return sc_lex_err(p, nt->col, "tensor '%s' is declared twice", nt->text);
	if (sc_lex_dim(s, nt->text) >= 0 || strcmp(nt->text, s->world_sym) == 0)
		return sc_lex_err(p, nt->col, "'%s' is a dim name, not a tensor name", nt->text);
	int id;
	SC_CHECK(new_tensor(p, nt, &id));
	struct sc_tdecl *d = &s->tensors[id];
	d->input = !is_output;
	p->pos++;
	if (!sc_lex_is_op(sc_lex_peek(p), "["))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '[' and the tensor's dims");
	p->pos++;
	while (!sc_lex_is_op(sc_lex_peek(p), "]")) {
		struct sc_tok *t = sc_lex_peek(p);
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected a dim name");
		int g = sc_lex_dim(s, t->text);
		if (g < 0)
			return sc_lex_err(p, t->col, "unknown dim '%s' (declare it in 'dims' first)", t->text);
		if (d->ndims >= SC_MAX_DIMS)
			return sc_lex_err(p, t->col, "too many dims");
		for (int k = 0; k < d->ndims; k++)
			if (d->dims[k] == g)
				return sc_lex_err(p, t->col, "dim '%s' appears twice", t->text);
		d->dims[d->ndims++] = g;
		p->pos++;
		if (sc_lex_is_op(sc_lex_peek(p), ","))
			p->pos++;
		else if (!sc_lex_is_op(sc_lex_peek(p), "]"))
			return sc_lex_err(p, sc_lex_peek(p)->col, "expected ',' or ']'");
	}
	p->pos++;
	struct sc_tok *t = sc_lex_peek(p);
	struct sc_layout *l = &d->place;
	memset(l, 0, sizeof *l);
	l->shard_dim = -1;
	if (t->kind == SC_T_NAME && strcmp(t->text, "shard") == 0) {
		p->pos++;
		struct sc_tok *dn = sc_lex_peek(p);
		int g = dn->kind == SC_T_NAME ? sc_lex_dim(s, dn->text) : -1;
		int k = -1;
		for (int i = 0; i < d->ndims; i++)
			if (d->dims[i] == g)
				k = i;
		if (k < 0)
			return sc_lex_err(p, dn->col, "shard needs one of the tensor's dims");
		l->kind = SC_SHARD;
		l->shard_dim = k;
		s->sharded_mask |= 1u << g;
		p->pos++;
	} else if (t->kind == SC_T_NAME && strcmp(t->text, "replicate") == 0) {
		l->kind = SC_REPLICATE;
		p->pos++;
	} else if (t->kind == SC_T_NAME && strcmp(t->text, "partial") == 0) {
		p->pos++;
		l->kind = SC_PARTIAL;
		SC_CHECK(sc_lex_redop(p, &l->op));
		if (l->op != SC_SUM)
			return sc_lex_err(p, p->t[p->pos - 1].col, "a compute tensor may be partial sum only");
	} else {
		return sc_lex_err(p, t->col, "expected a placement: shard DIM, replicate or partial sum");
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
	return sc_lex_end(p);
}

static enum sc_status operand(struct sc_parse *p, int *id)
{
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind != SC_T_NAME)
		return sc_lex_err(p, t->col, "expected a tensor name");
	*id = tensor_id(p->s, t->text);
	if (*id < 0)
		return sc_lex_err(p, t->col, "unknown tensor '%s' (not declared nor assigned before)", t->text);
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
enum sc_status sc_program_parse_stmt(struct sc_parse *p, int block, const char *line)
{
	struct sc_spec *s = p->s;
	int *n = block == 1 ? &s->nref : &s->nprog;
	struct sc_stmt *st = block == 1 ? &s->ref[*n] : &s->prog[*n];
	if (*n >= SC_MAX_STMTS)
		return sc_lex_err(p, p->t[0].col, "too many statements (at most %d)", SC_MAX_STMTS);
	memset(st, 0, sizeof *st);
	st->a = st->b = st->c = -1;
	st->line = p->line;
	st->col = p->t[0].col;
	struct sc_tok *dst = &p->t[0];
	/* NAME: STEP */
	const char *colon = p->nt >= 2 && sc_lex_is_op(&p->t[1], ":") ? line + p->t[1].col - 1 : NULL;
	if (dst->kind == SC_T_NAME && colon) {
		int id = tensor_id(s, dst->text);
		if (id < 0)
			return sc_lex_err(p, dst->col, "unknown tensor '%s'", dst->text);
		char rest[4096];
		snprintf(rest, sizeof rest, "%*s%s", (int)(colon + 1 - line), "", colon + 1);
		SC_CHECK(sc_lex_tokenize(p, rest));
		if (p->nt == 0 || p->t[0].kind != SC_T_NAME)
			return sc_lex_err(p, (int)(colon - line) + 2, "expected a step after ':'");
		const struct sc_step_def *def = sc_step_find(p->t[0].text);
		if (!def)
			return sc_lex_err(p, p->t[0].col, "unknown step '%s'", p->t[0].text);
		SC_CHECK(sc_step_parse(p, def, rest));
		st->op = SC_C_STEP;
		st->dst = id;
		st->step = s->nsteps - 1;
		(*n)++;
		return SC_OK;
	}
	if (dst->kind != SC_T_NAME || p->nt < 3 || !sc_lex_is_op(&p->t[1], "="))
		return sc_lex_err(p, dst->col, "expected NAME = OP ... or NAME: STEP ...");
	p->pos = 2;
	struct sc_tok *op = sc_lex_peek(p);
	int id = tensor_id(s, dst->text);
	int found = -1;
	for (size_t i = 0; i < sizeof cops / sizeof cops[0]; i++)
		if (op->kind == SC_T_NAME && strcmp(op->text, cops[i].kw) == 0)
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
		if (st->op == SC_C_LINEAR && sc_lex_peek(p)->kind == SC_T_NAME)
			SC_CHECK(operand(p, &st->c)); /* bias */
		if (st->op == SC_C_SCALE) {
			struct sc_tok *v = sc_lex_peek(p);
			char *end;
			if (v->kind == SC_T_END)
				return sc_lex_err(p, v->col, "expected a number after 'scale NAME'");
			const char *b = line + v->col - 1;
			double d = strtod(b, &end);
			if (end == b)
				return sc_lex_err(p, v->col, "expected a number");
			st->scalar = d;
			while (p->pos < p->nt && p->t[p->pos].col - 1 < (int)(end - line))
				p->pos++;
		}
		if (st->op == SC_C_GELU) {
			struct sc_tok *f = sc_lex_peek(p);
			if (f->kind == SC_T_NAME && strcmp(f->text, "tanh") == 0) {
				st->form = 0;
				p->pos++;
			} else if (f->kind == SC_T_NAME && strcmp(f->text, "erf") == 0) {
				st->form = 1;
				p->pos++;
			} else {
				return sc_lex_err(p, f->col, "gelu needs its form: tanh or erf");
			}
		}
		if (st->op == SC_C_CAST) {
			struct sc_tok *d = sc_lex_peek(p);
			if (d->kind != SC_T_NAME || sc_dtype_parse(d->text, &st->dtype) != 0 || !sc_dtype_is_float(st->dtype))
				return sc_lex_err(p, d->col, "cast needs a float dtype (f64 f32 f16 bf16 f8e4m3 f8e5m2)");
			p->pos++;
		}
		if (st->op == SC_C_SUM)
			SC_CHECK(sc_lex_kv_int(p, "dim", &st->dim));
	}
	SC_CHECK(sc_lex_end(p));
	if (id < 0) {
		SC_CHECK(new_tensor(p, dst, &id));
		s->tensors[id].input = 0;
	} else if (s->tensors[id].input && id != s->out_tensor) {
		return sc_lex_err(p, dst->col, "'%s' is an input tensor; assign to a new name", dst->text);
	}
	st->dst = id;
	(*n)++;
	return SC_OK;
}
