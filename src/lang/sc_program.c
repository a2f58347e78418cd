/* sc_program: compute-spec tensors and statements. */
#include "sc_program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_cops.h"
#include "sc_expr.h"
#include "sc_layout.h"
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
	d->index_dim = -1;
	*out = s->ntensors++;
	return SC_OK;
}

/* Tensor d's placement at the cursor, up to an `index` suffix, parsed as
 * X's are (docs/language.md, "Placements"; on a mesh, entries) with the
 * tensor's own dims for names. A compute tensor takes: `replicate`,
 * `partial sum`, `shard DIM` with the even, `chunk` or `split` rule (on a
 * mesh, even entries), and on the output `only E`; not `as`, `shape`,
 * zigzag, `sizes=` or merged groups. */
static enum sc_status tensor_place(struct sc_parse *p, struct sc_tdecl *d, int is_output)
{
	struct sc_spec *s = p->s;
	int cut = -1;
	for (int i = p->pos; i < p->nt && cut < 0; i++)
		if (p->t[i].kind == SC_T_NAME && strcmp(p->t[i].text, "index") == 0)
			cut = i;
	const struct sc_tok saved = cut >= 0 ? p->t[cut] : p->t[0];
	const int col = sc_lex_peek(p)->col;
	if (sc_lex_peek(p)->kind == SC_T_END || (cut >= 0 && cut == p->pos))
		return sc_lex_err(p, col, "expected a placement: shard DIM, replicate or partial sum");
	for (int i = p->pos; i + 1 < p->nt && (cut < 0 || i < cut); i++)
		if (p->t[i].kind == SC_T_NAME && strcmp(p->t[i].text, "shard") == 0 && sc_lex_is_op(&p->t[i + 1], "("))
			return sc_lex_err(p, p->t[i].col, "a compute tensor is sharded evenly, or by chunk or split (one dim, "
					  "not a merged group)");
	if (cut >= 0)
		p->t[cut].kind = SC_T_END;
	struct sc_layout_names pp;
	memset(&pp, 0, sizeof pp);
	enum sc_status st = sc_layout_parse(p, &d->place, &pp);
	if (cut >= 0) {
		p->t[cut] = saved;
		p->pos = cut;
	}
	SC_CHECK(st);
	if (pp.nnames || d->place.kind == SC_OPAQUE)
		return sc_lex_err(p, col, "a compute tensor's placement takes no 'as' or 'shape'");
	if (d->place.only1 && !is_output)
		return sc_lex_err(p, col, "'only' is for the output: an input is held by every rank its placement gives");
	/* resolved against the tensor's dims: the spec's dims stand in for them meanwhile */
	const int nd = s->ndims;
	char names[SC_MAX_DIMS][SC_NAME_MAX];
	memcpy(names, s->dim, sizeof names);
	s->ndims = d->ndims;
	for (int k = 0; k < d->ndims; k++)
		memcpy(s->dim[k], names[d->dims[k]], SC_NAME_MAX);
	pp.line = p->line;
	st = sc_layout_resolve(p, &d->place, &pp, d->name);
	s->ndims = nd;
	memcpy(s->dim, names, sizeof names);
	SC_CHECK(st);
	struct sc_place_entry ent[SC_MAX_MESH];
	const int n = sc_layout_entries(&d->place, ent);
	for (int i = 0; i < n; i++) {
		const struct sc_place_entry *en = &ent[i];
		const int ecol = en->col ? en->col : col;
		if (en->kind == SC_PARTIAL && en->op != SC_SUM)
			return sc_lex_err(p, ecol, "a compute tensor may be partial sum only");
		if (en->kind != SC_SHARD)
			continue;
		const int uneven = en->rule == SC_RULE_CHUNK || en->rule == SC_RULE_SPLIT;
		if (en->shard_ndims > 1 || (en->rule != SC_RULE_EVEN && !uneven))
			return sc_lex_err(p, ecol, "a compute tensor is sharded evenly, or by chunk or split (one dim%s)",
					  s->nmesh ? " per entry" : "");
		if (uneven)
			s->uneven_mask |= 1u << d->dims[en->shard_dim];
		else
			s->sharded_mask |= 1u << d->dims[en->shard_dim];
	}
	return SC_OK;
}

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
	SC_CHECK(tensor_place(p, d, is_output));
	struct sc_tok *t;
	t = sc_lex_peek(p);
	if (t->kind == SC_T_NAME && strcmp(t->text, "index") == 0) { /* integer values in [0, size of DIM) */
		p->pos++;
		struct sc_tok *dn = sc_lex_peek(p);
		d->index_dim = dn->kind == SC_T_NAME ? sc_lex_dim(s, dn->text) : -1;
		if (d->index_dim < 0)
			return sc_lex_err(p, dn->col, "index needs a dim name: its values are drawn in [0, size of the dim)");
		if (is_output)
			return sc_lex_err(p, t->col, "the output is compared as floats: it cannot be an index tensor");
		p->pos++;
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

/* The node under node (unresolved) that names `rank` or a mesh
 * coordinate; -1 when none. */
static int per_rank(const struct sc_spec *s, int node)
{
	if (node < 0)
		return -1;
	const struct sc_expr *x = &s->nodes[node];
	if (x->kind == SC_EX_NAME && (strcmp(x->name, "rank") == 0 || sc_lex_mesh_dim(s, x->name) >= 0))
		return node;
	const int kids[3] = {x->a, x->b, x->c};
	for (int i = 0; i < 3; i++) {
		const int r = per_rank(s, kids[i]);
		if (r >= 0)
			return r;
	}
	return -1;
}

/* A compute constant at the cursor (real numbers and sqrt() allowed). */
static enum sc_status constant(struct sc_parse *p, int *node)
{
	p->real_ok = 1;
	enum sc_status st = sc_expr_parse(p, node);
	p->real_ok = 0;
	return st;
}

/* key=VALUE options and the words an op takes after its operands */
static enum sc_status options(struct sc_parse *p, const struct sc_cop_def *def, struct sc_stmt *st)
{
	if (def->flags & SC_COP_FORM) {
		struct sc_tok *f = sc_lex_peek(p);
		if (f->kind != SC_T_NAME || (strcmp(f->text, "tanh") != 0 && strcmp(f->text, "erf") != 0))
			return sc_lex_err(p, f->col, "gelu needs its form: tanh or erf");
		st->form = f->text[0] == 'e';
		p->pos++;
	}
	if (def->flags & SC_COP_DTYPE) {
		struct sc_tok *d = sc_lex_peek(p);
		if (d->kind != SC_T_NAME || sc_dtype_parse(d->text, &st->dtype) != SC_OK || !sc_dtype_is_float(st->dtype))
			return sc_lex_err(p, d->col, "cast needs a float dtype (f64 f32 f16 bf16 f8e4m3 f8e5m2)");
		p->pos++;
	}
	if (def->flags & SC_COP_DIM)
		SC_CHECK(sc_lex_kv_int(p, "dim", &st->dim));
	for (struct sc_tok *t = sc_lex_peek(p); t->kind != SC_T_END; t = sc_lex_peek(p)) {
		const int kv = t->kind == SC_T_NAME && sc_lex_is_op(&p->t[p->pos + 1], "=");
		if ((def->flags & SC_COP_KEEPDIM) && t->kind == SC_T_NAME && strcmp(t->text, "keepdim") == 0) {
			st->keepdim = 1;
			p->pos++;
		} else if ((def->flags & SC_COP_EPS) && kv && strcmp(t->text, "eps") == 0) {
			p->pos += 2;
			SC_CHECK(constant(p, &st->eps));
		} else if ((def->flags & SC_COP_START) && kv && strcmp(t->text, "start") == 0) {
			p->pos += 2;
			SC_CHECK(sc_expr_parse(p, &st->start));
		} else if ((def->flags & SC_COP_DIAG) && kv && strcmp(t->text, "diagonal") == 0) {
			p->pos += 2;
			SC_CHECK(sc_expr_parse(p, &st->diag));
		} else if ((def->flags & SC_COP_DIAG) && kv && strcmp(t->text, "fill") == 0) {
			p->pos += 2;
			const struct sc_tok *v = sc_lex_peek(p), *w = &p->t[p->pos + 1];
			if ((v->kind == SC_T_NAME && strcmp(v->text, "inf") == 0) ||
			    (sc_lex_is_op(v, "-") && w->kind == SC_T_NAME && strcmp(w->text, "inf") == 0))
				return sc_lex_err(p, v->col, "fill takes a finite number: a large negative one (-10000, "
							     "Megatron's mask value) masks a softmax as -inf does, unless a whole row is cut");
			SC_CHECK(constant(p, &st->fill));
		} else {
			return sc_lex_err(p, t->col, "unexpected '%s' (%s)", t->text, def->usage);
		}
	}
	return SC_OK;
}

/* The operands and arguments of OP at the cursor. */
static enum sc_status op_args(struct sc_parse *p, const struct sc_cop_def *def, struct sc_stmt *st)
{
	struct sc_spec *s = p->s;
	int *arg[3] = {&st->a, &st->b, &st->c};
	for (int i = 0; i < def->nmax; i++) {
		struct sc_tok *t = sc_lex_peek(p);
		const int is_tensor = t->kind == SC_T_NAME && tensor_id(s, t->text) >= 0;
		if (i >= def->nmin && !is_tensor) {
			if (i == 1 && (def->flags & SC_COP_CONST_B)) { /* add t 1e-6 */
				if (t->kind == SC_T_END)
					return sc_lex_err(p, t->col, "expected a tensor or a constant (%s)", def->usage);
				SC_CHECK(constant(p, &st->scalar));
			}
			break;
		}
		if (t->kind == SC_T_END)
			return sc_lex_err(p, t->col, "expected a tensor name (%s)", def->usage);
		SC_CHECK(operand(p, arg[i]));
		const int want_index = ((def->flags & SC_COP_INDEX0) && i == 0) || ((def->flags & SC_COP_INDEX1) && i == 1);
		const int is_index = s->tensors[*arg[i]].index_dim >= 0;
		if (want_index != is_index)
			return sc_lex_err(p, t->col, is_index ? "'%s' holds indices: it can be only embedding's or pick's index"
							     : "'%s' is not an index tensor (declare it with 'index DIM')",
					  t->text);
	}
	if (def->flags & SC_COP_CONST) {
		if (sc_lex_peek(p)->kind == SC_T_END)
			return sc_lex_err(p, sc_lex_peek(p)->col, "expected a number (%s)", def->usage);
		SC_CHECK(constant(p, &st->scalar));
	}
	return options(p, def, st);
}

/* `... when COND` at the end of a statement: parsed into st->when, and the
 * line's tokens cut before it. */
static enum sc_status when_clause(struct sc_parse *p, int block, struct sc_stmt *st)
{
	int col;
	SC_CHECK(sc_expr_take_when(p, &st->when, &col));
	if (col && block == 1)
		return sc_lex_err(p, col, "the reference runs on one device: no 'when'");
	return SC_OK;
}

/* The innermost block (a microbatch block or a loop) still open in the
 * reference (block 1) or the program (its header's index), or -1. */
static int open_block(const struct sc_spec *s, int block)
{
	const struct sc_stmt *b = block == 1 ? s->ref : s->prog;
	for (int i = (block == 1 ? s->nref : s->nprog) - 1; i >= 0; i--)
		if ((b[i].op == SC_C_MICRO || b[i].op == SC_C_LOOP) && b[i].step < 0)
			return i;
	return -1;
}

int sc_program_open_block(const struct sc_spec *s) { return open_block(s, 2); }

/* for NAME in LO..HI: a loop of compute statements, as a layout program's
 * (its index an SC_EX_LOOP node; LO and HI the whole case's). */
static enum sc_status for_line(struct sc_parse *p, struct sc_stmt *st)
{
	struct sc_spec *s = p->s;
	const struct sc_tok *v = sc_lex_peek(p);
	const int taken = v->kind == SC_T_NAME && (tensor_id(s, v->text) >= 0 || strcmp(v->text, s->micro_var) == 0);
	SC_CHECK(sc_loop_header(p, taken, &st->lo, &st->hi));
	const int nodes[2] = {st->lo, st->hi};
	for (int i = 0; i < 2; i++) {
		const int r = per_rank(s, nodes[i]);
		if (r >= 0)
			return sc_lex_err(p, s->nodes[r].col, "a loop's range holds for every rank: '%s' (a rank's value) has no meaning there",
					  s->nodes[r].name);
	}
	st->dim = s->nloops - 1;
	snprintf(st->var, sizeof st->var, "%s", s->loop_var[st->dim]);
	st->op = SC_C_LOOP;
	st->step = -1; /* its end, once parsed */
	return SC_OK;
}

/* `microbatch K` (a block's header), `for NAME in LO..HI` and `end` (the
 * innermost one's end). */
static enum sc_status block_line(struct sc_parse *p, int block, struct sc_stmt *st)
{
	struct sc_spec *s = p->s;
	const int open = open_block(s, block);
	struct sc_stmt *b = block == 1 ? s->ref : s->prog;
	const struct sc_tok *kw = &p->t[0];
	p->pos = 1;
	if (kw->text[0] == 'e') {
		if (open < 0)
			return sc_lex_err(p, kw->col,
					  block == 1 ? "'end': a compute spec's reference has none (the 'program' line ends it), "
						       "only its loops do"
						     : "'end' without a 'microbatch' block or a loop to close");
		SC_CHECK(sc_lex_end(p));
		st->op = SC_C_END;
		b[open].step = block == 1 ? s->nref : s->nprog;
		if (b[open].op == SC_C_LOOP) {
			s->nloops--;
			return SC_OK;
		}
		s->micro_var[0] = '\0';
		p->bound[SC_VAR_K] = NULL;
		return SC_OK;
	}
	if (kw->text[0] == 'f')
		return for_line(p, st);
	if (block == 1)
		return sc_lex_err(p, kw->col, "the reference computes the whole batch: no 'microbatch' block");
	if (open >= 0)
		return sc_lex_err(p, kw->col, b[open].op == SC_C_LOOP ? "a microbatch block cannot sit inside a loop (line %d opens one)"
								   : "a microbatch block cannot hold another (line %d opens one)",
				  b[open].line);
	const int m = sc_spec_micro(s);
	if (m < 0)
		return sc_lex_err(p, kw->col, "a microbatch block needs a 'microbatches NAME[g] n LO..HI' declaration before it");
	const struct sc_tok *v = sc_lex_peek(p);
	if (v->kind != SC_T_NAME || sc_lex_dim(s, v->text) >= 0 || strcmp(v->text, "rank") == 0 ||
	    tensor_id(s, v->text) >= 0)
		return sc_lex_err(p, v->col, "expected the micro-batch's index name after 'microbatch' (microbatch k), a name of its own");
	snprintf(s->micro_var, sizeof s->micro_var, "%s", v->text);
	p->pos++;
	SC_CHECK(sc_lex_end(p));
	st->op = SC_C_MICRO;
	st->step = -1; /* its end, once parsed */
	return SC_OK;
}

/* NAME += SRC [when COND]: the cursor on '+'. */
static enum sc_status acc_line(struct sc_parse *p, int block, struct sc_stmt *st)
{
	struct sc_spec *s = p->s;
	const struct sc_tok *dst = &p->t[0];
	SC_CHECK(when_clause(p, block, st));
	p->pos = 3;
	st->op = SC_C_ACC;
	SC_CHECK(operand(p, &st->a));
	SC_CHECK(sc_lex_end(p));
	int id = tensor_id(s, dst->text);
	if (id >= 0 && s->tensors[id].input && id != s->out_tensor)
		return sc_lex_err(p, dst->col, "'%s' is an input tensor; accumulate into a new name", dst->text);
	if (id < 0 && st->when >= 0)
		return sc_lex_err(p, dst->col, "'%s' needs a value on every rank before a statement with 'when'", dst->text);
	if (id < 0) {
		SC_CHECK(new_tensor(p, dst, &id));
		s->tensors[id].input = 0;
	}
	st->dst = id;
	return SC_OK;
}

/* NAME = OP args [when COND]   |   NAME = SRC [when COND]   |   NAME: STEP ...
 * |   NAME += SRC [when COND]   |   microbatch K   |   end */
enum sc_status sc_program_parse_stmt(struct sc_parse *p, int block, const char *line)
{
	struct sc_spec *s = p->s;
	int *n = block == 1 ? &s->nref : &s->nprog;
	struct sc_stmt *st = block == 1 ? &s->ref[*n] : &s->prog[*n];
	if (*n >= SC_MAX_STMTS)
		return sc_lex_err(p, p->t[0].col, "too many statements (at most %d)", SC_MAX_STMTS);
	memset(st, 0, sizeof *st);
	st->dst = st->a = st->b = st->c = -1;
	st->scalar = st->eps = st->start = st->diag = st->fill = st->when = -1;
	st->line = p->line;
	st->col = p->t[0].col;
	struct sc_tok *dst = &p->t[0];
	p->bound[SC_VAR_K] = s->micro_var[0] ? s->micro_var : NULL;
	if (dst->kind == SC_T_NAME && (strcmp(dst->text, "microbatch") == 0 || (strcmp(dst->text, "end") == 0 && p->nt == 1) ||
				       (strcmp(dst->text, "for") == 0 && p->nt >= 3 && p->t[2].kind == SC_T_NAME &&
					strcmp(p->t[2].text, "in") == 0))) {
		SC_CHECK(block_line(p, block, st));
		(*n)++;
		return SC_OK;
	}
	if (dst->kind == SC_T_NAME && p->nt >= 3 && sc_lex_is_op(&p->t[1], "+") && sc_lex_is_op(&p->t[2], "=") &&
	    !p->t[2].space) {
		SC_CHECK(acc_line(p, block, st));
		(*n)++;
		return SC_OK;
	}
	/* NAME: STEP */
	const char *colon = p->nt >= 2 && sc_lex_is_op(&p->t[1], ":") ? line + p->t[1].col - 1 : NULL;
	if (dst->kind == SC_T_NAME && colon) {
		int id = tensor_id(s, dst->text);
		if (id < 0)
			return sc_lex_err(p, dst->col, "unknown tensor '%s'", dst->text);
		char rest[4096];
		snprintf(rest, sizeof rest, "%*s%s", (int)(colon + 1 - line), "", colon + 1);
		p->bound[SC_VAR_K] = NULL; /* a step's sizes are the whole case's: no micro-batch index */
		SC_CHECK(sc_lex_tokenize(p, rest));
		if (p->nt == 0 || p->t[0].kind != SC_T_NAME)
			return sc_lex_err(p, (int)(colon - line) + 2, "expected a step after ':'");
		const struct sc_step_def *def = sc_step_find(p->t[0].text);
		if (!def)
			return sc_lex_err(p, p->t[0].col, "unknown step '%s'", p->t[0].text);
		if (def->flags & SC_STEP_CONTROL)
			return sc_lex_err(p, p->t[0].col, "'%s' is a line of its own in a compute program (for i in LO..HI ... end), "
					  "not a step", p->t[0].text);
		SC_CHECK(sc_step_parse(p, def, rest)); /* `when COND` after a local step: the step's own (sc_step) */
		if (block == 1 && s->steps[s->nsteps - 1].when1)
			return sc_lex_err(p, p->t[0].col, "the reference runs on one device: no 'when'");
		st->op = SC_C_STEP;
		st->dst = id;
		st->step = s->nsteps - 1;
		(*n)++;
		return SC_OK;
	}
	if (dst->kind != SC_T_NAME || p->nt < 3 || !sc_lex_is_op(&p->t[1], "="))
		return sc_lex_err(p, dst->col, "expected NAME = OP ... or NAME: STEP ...");
	SC_CHECK(when_clause(p, block, st));
	p->pos = 2;
	struct sc_tok *op = sc_lex_peek(p);
	int id = tensor_id(s, dst->text);
	const struct sc_cop_def *def = op->kind == SC_T_NAME ? sc_cop_find(op->text) : NULL;
	if (def && op->kind == SC_T_NAME && tensor_id(s, op->text) >= 0 && p->nt == 3)
		def = NULL; /* y = sum: a tensor named like an op, copied */
	if (!def) { /* NAME = SRC: a copy */
		st->op = SC_C_COPY;
		SC_CHECK(operand(p, &st->a));
	} else {
		p->pos++;
		st->op = def->op;
		SC_CHECK(op_args(p, def, st));
	}
	SC_CHECK(sc_lex_end(p));
	const int nodes[] = {st->scalar, st->eps, st->start, st->diag, st->fill};
	for (int i = 0; i < 5 && block == 1; i++) {
		const int r = per_rank(s, nodes[i]);
		if (r >= 0)
			return sc_lex_err(p, s->nodes[r].col, "the reference runs on one device: no '%s' (a rank's value)",
					  s->nodes[r].name);
	}
	if (id < 0) {
		if (st->when >= 0)
			return sc_lex_err(p, dst->col, "'%s' needs a value on every rank before a statement with 'when'",
					  dst->text);
		SC_CHECK(new_tensor(p, dst, &id));
		s->tensors[id].input = 0;
		s->tensors[id].index_dim = st->op == SC_C_COPY ? s->tensors[st->a].index_dim : -1;
	} else if (s->tensors[id].input && id != s->out_tensor) {
		return sc_lex_err(p, dst->col, "'%s' is an input tensor; assign to a new name", dst->text);
	}
	st->dst = id;
	(*n)++;
	return SC_OK;
}
