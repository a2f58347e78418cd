/* sc_spec: the spec parser: each line is tokenized once and dispatched by
 * its first word to a declaration (the table below), a step (the step
 * table), or inside a reference/program block to a compute statement.
 * Names in expressions are resolved after the whole file is read, so
 * declarations may come in any order; every error names the line and
 * column of the offending token. */
#include "sc_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_counts.h"
#include "sc_fs.h"
#include "sc_suggest.h"
#include "sc_expr.h"
#include "sc_program.h"
#include "sc_slots.h"
#include "sc_step.h"
#include "sc_torch.h"

/* The parse state of a whole spec: the line parser and what the
 * declarations seen so far imply. */
struct spec_parse {
	struct sc_parse p; /* first: a struct spec_parse * is a struct sc_parse * */
	int seen_dims, seen_world, seen_in, seen_out, seen_name, seen_expect;
	int sizes_line[SC_MAX_DIMS];
	struct sc_layout_names pend_in, pend_out;
	int block; /* 0 declarations, 1 reference, 2 program (compute specs), 3 a layout reference */
	int seen_ref, seen_prog;
};

/* ---- declarations ---- */

static enum sc_status decl_pipeline(struct spec_parse *q, const struct sc_tok *kw)
{
	return sc_lex_err(&q->p, kw->col, "expected a pipeline name");
}

static enum sc_status decl_dims(struct spec_parse *q, const struct sc_tok *kw)
{
	struct sc_parse *p = &q->p;
	struct sc_spec *s = p->s;
	if (q->seen_dims)
		return sc_lex_err(p, kw->col, "duplicate 'dims' declaration");
	q->seen_dims = p->line;
	while (sc_lex_peek(p)->kind != SC_T_END) {
		struct sc_tok *t = sc_lex_peek(p);
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected a dim name, got '%s'", t->text);
		if (s->ndims >= SC_MAX_DIMS)
			return sc_lex_err(p, t->col, "too many dims (at most %d)", SC_MAX_DIMS);
		if (sc_lex_dim(s, t->text) >= 0)
			return sc_lex_err(p, t->col, "duplicate dim name '%s'", t->text);
		if (strcmp(t->text, "and") == 0 || strcmp(t->text, "as") == 0)
			return sc_lex_err(p, t->col, "'%s' is a keyword, not a dim name", t->text);
		snprintf(s->dim[s->ndims++], SC_NAME_MAX, "%s", t->text);
		p->pos++;
	}
	if (s->ndims == 0)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected at least one dim name");
	return SC_OK;
}

static enum sc_status decl_world(struct spec_parse *q, const struct sc_tok *kw)
{
	struct sc_parse *p = &q->p;
	if (q->seen_world)
		return sc_lex_err(p, kw->col, "duplicate 'world' declaration");
	if (p->s->nmesh)
		return sc_lex_err(p, kw->col, "a spec declares 'world' or 'mesh', not both (P is the mesh's number of ranks)");
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind != SC_T_NAME)
		return sc_lex_err(p, t->col, "expected a world-size symbol");
	snprintf(p->s->world_sym, SC_NAME_MAX, "%s", t->text);
	p->pos++;
	q->seen_world = p->line;
	return sc_lex_end(p);
}

/* `mesh dp=D tp=T`: the mesh dims, each with a size symbol or an integer. */
static enum sc_status decl_mesh(struct spec_parse *q, const struct sc_tok *kw)
{
	if (q->seen_world)
		return sc_lex_err(&q->p, kw->col, "a spec declares 'world' or 'mesh', not both (P is the mesh's number of ranks)");
	return sc_slots_parse_mesh(&q->p, kw);
}

static enum sc_status decl_param(struct spec_parse *q, const struct sc_tok *kw) { return sc_slots_parse_param(&q->p, kw); }

/* A new or existing tensor name of a layout spec (name 0 is the input). */
static enum sc_status tensor_name(struct sc_parse *p, const struct sc_tok *t, int *out)
{
	struct sc_spec *s = p->s;
	if (!s->ntnames) {
		snprintf(s->tname[0], SC_NAME_MAX, "input");
		s->ntnames = 1;
	}
	int k = sc_step_tensor(s, t->text);
	if (k >= 0) {
		*out = k;
		return SC_OK;
	}
	if (sc_lex_dim(s, t->text) >= 0 || strcmp(t->text, s->world_sym) == 0 || strcmp(t->text, "rank") == 0 ||
	    sc_step_find(t->text))
		return sc_lex_err(p, t->col, "'%s' cannot name a tensor (a dim, the world, rank or a step)", t->text);
	if (s->ntnames >= SC_MAX_NAMED)
		return sc_lex_err(p, t->col, "too many named tensors (at most %d)", SC_MAX_NAMED);
	snprintf(s->tname[s->ntnames], SC_NAME_MAX, "%s", t->text);
	*out = s->ntnames++;
	return SC_OK;
}

static enum sc_status decl_tensor(struct spec_parse *q, const struct sc_tok *kw)
{
	(void)kw;
	struct sc_parse *p = &q->p;
	if (p->nt == 4 && sc_lex_is_op(&p->t[2], "=") && p->t[3].kind == SC_T_NAME && strcmp(p->t[3].text, "input") == 0) {
		/* tensor x = input: the layout spec's input named */
		struct sc_spec *s = p->s;
		if (s->ntnames > 1 || (s->ntnames == 1 && strcmp(s->tname[0], "input") != 0) || s->nsteps)
			return sc_lex_err(p, kw->col, "name the input before any step: tensor x = input");
		if (p->t[1].kind != SC_T_NAME)
			return sc_lex_err(p, p->t[1].col, "expected a name");
		int k;
		SC_CHECK(tensor_name(p, &p->t[1], &k));
		snprintf(s->tname[0], SC_NAME_MAX, "%s", p->t[1].text);
		s->ntnames = 1;
		return SC_OK;
	}
	return sc_program_parse_tensor(p, 0);
}

/* The step at token `at` of line, the tokens before it and SRC (at+1 when
 * src) blanked so that columns stay the line's. */
static enum sc_status named_step(struct sc_parse *p, const char *line, int at, int has_src, int *src)
{
	char rest[4096];
	snprintf(rest, sizeof rest, "%s", line);
	const int kw_col = p->t[at].col;
	memset(rest, ' ', (size_t)kw_col - 1);
	if (has_src) {
		const struct sc_tok *t = &p->t[at + 1];
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected the tensor the step applies to");
		*src = sc_step_tensor(p->s, t->text);
		if (*src < 0)
			return sc_lex_err(p, t->col, "unknown tensor '%s'", t->text);
		memset(rest + t->col - 1, ' ', strlen(t->text));
	}
	const struct sc_step_def *def = sc_step_find(p->t[at].text);
	if (!def || (def->flags & SC_STEP_CONTROL))
		return sc_lex_err(p, p->t[at].col, "expected a step after '=', got '%s'", p->t[at].text);
	SC_CHECK(sc_lex_tokenize(p, rest));
	SC_CHECK(sc_step_parse(p, def, rest));
	/* messages quote the line as written, names included */
	struct sc_step *st = &p->s->steps[p->s->nsteps - 1];
	const char *b = line + strspn(line, " \t");
	size_t n = strcspn(b, "#\n");
	while (n && (b[n - 1] == ' ' || b[n - 1] == '\t'))
		n--;
	if (n >= sizeof st->text)
		n = sizeof st->text - 1;
	memcpy(st->text, b, n);
	st->text[n] = '\0';
	return SC_OK;
}

/* NAME = STEP SRC args | NAME = cat a b dim=i | a, b = split t [E, E] dim=i */
static enum sc_status named_line(struct spec_parse *q, const char *line)
{
	struct sc_parse *p = &q->p;
	struct sc_spec *s = p->s;
	int dst[SC_MAX_NAMED], ndst = 0, k = 0;
	struct sc_tok names[SC_MAX_NAMED];
	if (!s->ntnames) { /* name 0: the input */
		snprintf(s->tname[0], SC_NAME_MAX, "input");
		s->ntnames = 1;
	}
	for (;;) { /* the names left of '=' */
		if (p->t[k].kind != SC_T_NAME || ndst >= SC_MAX_NAMED)
			return sc_lex_err(p, p->t[k].col, "expected a tensor name");
		names[ndst++] = p->t[k++];
		if (sc_lex_is_op(&p->t[k], "=")) {
			k++;
			break;
		}
		if (!sc_lex_is_op(&p->t[k], ","))
			return sc_lex_err(p, p->t[k].col, "expected ',' or '='");
		k++;
	}
	if (p->t[k].kind != SC_T_NAME)
		return sc_lex_err(p, p->t[k].col, "expected a step after '='");
	const struct sc_step_def *rdef = sc_step_find(p->t[k].text);
	const int is_split = strcmp(p->t[k].text, "split") == 0;
	const int own_names = rdef && (rdef->flags & SC_STEP_NAMED); /* cat, split, write read their tensors themselves */
	if (ndst > 1 && !is_split)
		return sc_lex_err(p, names[1].col, "only split gives several tensors");
	int src = -1;
	SC_CHECK(named_step(p, line, k, !own_names, &src));
	for (int i = 0; i < ndst; i++) /* after the right side: `x = transpose x 0 1` reads the old x */
		SC_CHECK(tensor_name(p, &names[i], &dst[i]));
	struct sc_step *st = &s->steps[s->nsteps - 1];
	if (is_split) {
		if (st->nargs - 1 != ndst) {
			p->line = st->line;
			return sc_lex_err(p, names[0].col, "%d names for %d pieces", ndst, st->nargs - 1);
		}
		for (int i = 0; i < ndst; i++)
			st->io[i] = (unsigned char)dst[i];
		st->nio = ndst;
		return SC_OK;
	}
	if (src >= 0)
		st->src1 = src + 1;
	st->dst1 = dst[0] + 1;
	return SC_OK;
}

static enum sc_status decl_dtypes(struct spec_parse *q, const struct sc_tok *kw)
{
	(void)kw;
	struct sc_parse *p = &q->p;
	if (sc_lex_peek(p)->kind == SC_T_END)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected dtype names after 'dtypes'");
	while (sc_lex_peek(p)->kind != SC_T_END) {
		enum sc_dtype dt;
		if (sc_lex_peek(p)->kind != SC_T_NAME || sc_dtype_parse(sc_lex_peek(p)->text, &dt) != SC_OK)
			return sc_lex_err(p, sc_lex_peek(p)->col, "unknown dtype '%s'", sc_lex_peek(p)->text);
		p->s->dtype_mask |= 1u << dt;
		p->pos++;
	}
	return SC_OK;
}

/* `input PLACEMENT` / `output PLACEMENT` (a compute spec's `output NAME
 * [dims] PLACEMENT` declares a tensor). */
static enum sc_status decl_place(struct spec_parse *q, const struct sc_tok *kw)
{
	struct sc_parse *p = &q->p;
	struct sc_spec *s = p->s;
	const int is_in = kw->text[0] == 'i';
	/* `output NAME [dims] ...`: a compute spec's named output (`output shape [...]` is a local shape) */
	if (!is_in && p->nt >= 3 && p->t[1].kind == SC_T_NAME && strcmp(p->t[1].text, "shape") != 0 &&
	    sc_lex_is_op(&p->t[2], "[")) {
		if (q->seen_out)
			return sc_lex_err(p, kw->col, "duplicate 'output' declaration");
		q->seen_out = p->line;
		return sc_program_parse_tensor(p, 1);
	}
	if (is_in ? q->seen_in : q->seen_out)
		return sc_lex_err(p, kw->col, "duplicate '%s' declaration", kw->text);
	struct sc_layout_names *pp = is_in ? &q->pend_in : &q->pend_out;
	memset(pp, 0, sizeof *pp);
	pp->line = p->line;
	SC_CHECK(sc_layout_parse(p, is_in ? &s->in : &s->out, pp));
	if (is_in && s->in.kind == SC_OPAQUE)
		return sc_lex_err(p, p->t[1].col, "an input needs a placement (shard, replicate or partial), not a shape");
	if (is_in)
		q->seen_in = p->line;
	else
		q->seen_out = p->line;
	return SC_OK;
}

static enum sc_status decl_require(struct spec_parse *q, const struct sc_tok *kw)
{
	(void)kw;
	struct sc_parse *p = &q->p;
	if (sc_lex_peek(p)->kind == SC_T_END)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected a condition after 'require'");
	return sc_expr_parse_conds(p);
}

static enum sc_status decl_expect(struct spec_parse *q, const struct sc_tok *kw)
{
	struct sc_parse *p = &q->p;
	if (q->seen_expect)
		return sc_lex_err(p, kw->col, "duplicate 'expect' declaration");
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind == SC_T_NAME && strcmp(t->text, "fail") == 0)
		p->s->expect = 1;
	else if (t->kind == SC_T_NAME && strcmp(t->text, "pass") == 0)
		p->s->expect = 0;
	else
		return sc_lex_err(p, t->col, "expected 'fail' or 'pass' after 'expect'");
	p->pos++;
	q->seen_expect = 1;
	return sc_lex_end(p);
}

static enum sc_status decl_torch(struct spec_parse *q, const struct sc_tok *kw) { return sc_torch_decl(&q->p, kw); }

/* `=LO..HI` after NAME (the cursor on NAME) into h. */
static enum sc_status size_range(struct sc_parse *p, const struct sc_tok *t, struct sc_sizehint *h)
{
	p->pos++;
	if (!sc_lex_is_op(sc_lex_peek(p), "="))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '=' after '%s'", t->text);
	p->pos++;
	SC_CHECK(sc_expr_parse(p, &h->lo));
	if (!sc_lex_is_op(sc_lex_peek(p), ".."))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '..' in a size range");
	p->pos++;
	return sc_expr_parse(p, &h->hi);
}

/* `sizes NAME=LO..HI ...`: a dim's range, or a mesh size's. */
static enum sc_status decl_sizes(struct spec_parse *q, const struct sc_tok *kw)
{
	(void)kw;
	struct sc_parse *p = &q->p;
	struct sc_spec *s = p->s;
	if (sc_lex_peek(p)->kind == SC_T_END)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected NAME=LO..HI after 'sizes'");
	while (sc_lex_peek(p)->kind != SC_T_END) {
		struct sc_tok *t = sc_lex_peek(p);
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected NAME=LO..HI, got '%s'", t->text);
		const int d = sc_lex_dim(s, t->text), m = sc_lex_mesh_sym(s, t->text);
		if (d < 0 && m < 0)
			return sc_lex_err(p, t->col, "unknown dim '%s' (declare 'dims' first, and 'mesh' before a mesh size's range)", t->text);
		if (d < 0 ? s->mesh_hint[m].lo >= 0 : q->sizes_line[d] != 0)
			return sc_lex_err(p, t->col, "duplicate size range for '%s'", t->text);
		if (d >= 0)
			q->sizes_line[d] = p->line;
		SC_CHECK(size_range(p, t, d >= 0 ? &s->hint[d] : &s->mesh_hint[m]));
	}
	return SC_OK;
}

/* counts NAME LO..HI, microbatches NAME[g] n LO..HI, sequences NAME[A..B] n
 * LO..HI (sc_counts) */
static enum sc_status decl_counts(struct spec_parse *q, const struct sc_tok *kw)
{
	return kw->text[0] == 'c' ? sc_counts_parse_matrix(&q->p, kw)
	       : kw->text[0] == 'm' ? sc_counts_parse_micro(&q->p, kw)
	       : kw->text[0] == 'r' ? sc_counts_parse_route(&q->p, kw)
				    : sc_counts_parse_seq(&q->p, kw);
}

/* The declarations, by keyword. */
static const struct {
	const char *keyword;
	enum sc_status (*parse)(struct spec_parse *q, const struct sc_tok *kw);
} decls[] = {
	{"pipeline", decl_pipeline}, {"dims", decl_dims},       {"world", decl_world},
	{"tensor", decl_tensor},     {"output", decl_place},    {"dtypes", decl_dtypes},
	{"input", decl_place},       {"require", decl_require}, {"expect", decl_expect},
	{"sizes", decl_sizes},       {"counts", decl_counts},   {"mesh", decl_mesh},
	{"microbatches", decl_counts}, {"torch", decl_torch},    {"sequences", decl_counts},
	{"routes", decl_counts},     {"param", decl_param},
};

/* ---- lines ---- */

/* `pipeline NAME`: free text up to a space or '#' (may hold - : .).
 * Returns 1 when the line was one. */
static int pipeline_line(struct spec_parse *q, const char *line, enum sc_status *st)
{
	struct sc_parse *p = &q->p;
	struct sc_spec *s = p->s;
	const char *w = line;
	while (*w == ' ' || *w == '\t')
		w++;
	if (strncmp(w, "pipeline", 8) != 0 || (w[8] != ' ' && w[8] != '\t'))
		return 0;
	*st = SC_OK;
	if (q->seen_name) {
		*st = sc_lex_err(p, (int)(w - line) + 1, "duplicate 'pipeline' declaration");
		return 1;
	}
	const char *b = w + 8;
	while (*b == ' ' || *b == '\t')
		b++;
	size_t n = strcspn(b, " \t#\n");
	if (n == 0)
		*st = sc_lex_err(p, (int)(b - line) + 1, "expected a pipeline name");
	else if (n >= sizeof s->name)
		*st = sc_lex_err(p, (int)(b - line) + 1, "pipeline name too long");
	if (*st != SC_OK)
		return 1;
	memcpy(s->name, b, n);
	s->name[n] = '\0';
	const char *rest = b + n;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (*rest && *rest != '#' && *rest != '\n')
		*st = sc_lex_err(p, (int)(rest - line) + 1, "unexpected text after the pipeline name");
	q->seen_name = 1;
	return 1;
}

/* The reference block's tensor names in place of the program's, or back:
 * each block names its own tensors (the parse reads s->tname). */
static void swap_names(struct sc_spec *s)
{
	static char keep[SC_MAX_NAMED][SC_NAME_MAX];
	const int n = s->ntnames > s->nrtnames ? s->ntnames : s->nrtnames;
	memcpy(keep, s->tname, sizeof keep[0] * (size_t)n);
	memcpy(s->tname, s->rtname, sizeof keep[0] * (size_t)n);
	memcpy(s->rtname, keep, sizeof keep[0] * (size_t)n);
	const int k = s->ntnames;
	s->ntnames = s->nrtnames;
	s->nrtnames = k;
}

/* A line of a layout spec's reference block: a local step (`NAME = STEP
 * SRC args`, a split or a cat among them), or `end`. */
static enum sc_status ref_line(struct spec_parse *q, const struct sc_tok *kw, const char *line)
{
	struct sc_parse *p = &q->p;
	struct sc_spec *s = p->s;
	if (kw->kind == SC_T_NAME && strcmp(kw->text, "end") == 0 && !s->nloops) {
		p->pos = 1;
		SC_CHECK(sc_lex_end(p));
		q->block = 0;
		swap_names(s);
		return SC_OK;
	}
	if (p->nt > 2 && (sc_lex_is_op(&p->t[1], "=") || sc_lex_is_op(&p->t[1], ","))) {
		if (s->nrsteps >= SC_MAX_REF_STEPS)
			return sc_lex_err(p, kw->col, "too many reference steps (at most %d)", SC_MAX_REF_STEPS);
		int k = 1;
		while (k < p->nt && !sc_lex_is_op(&p->t[k], "="))
			k++;
		const struct sc_step_def *def = k + 1 < p->nt && p->t[k + 1].kind == SC_T_NAME ? sc_step_find(p->t[k + 1].text)
											       : NULL;
		if (def && (def->flags & SC_STEP_COLLECTIVE))
			return sc_lex_err(p, p->t[k + 1].col, "'%s' in the reference: the reference runs on one device, "
					  "without collectives", def->keyword);
		SC_CHECK(named_line(q, line));
		if (s->steps[s->nsteps - 1].when1)
			return sc_lex_err(p, p->t[0].col, "the reference runs on one device: no 'when'");
		s->rsteps[s->nrsteps++] = s->steps[--s->nsteps]; /* parsed as a step; kept apart */
		return SC_OK;
	}
	const struct sc_step_def *def = kw->kind == SC_T_NAME ? sc_step_find(kw->text) : NULL;
	if (!def)
		return sc_lex_err(p, kw->col, "expected a local step or 'end' in the reference block, got '%s'", kw->text);
	if (def->flags & SC_STEP_COLLECTIVE)
		return sc_lex_err(p, kw->col, "'%s' in the reference: the reference runs on one device, without collectives",
				  kw->text);
	if (def->flags & SC_STEP_NAMED)
		return sc_lex_err(p, kw->col, "'%s' names its result: write %s", kw->text,
				  strcmp(kw->text, "split") == 0 ? "a, b = split X [E, E] dim=i" : "Y = cat a b dim=i");
	if (s->nrsteps >= SC_MAX_REF_STEPS)
		return sc_lex_err(p, kw->col, "too many reference steps (at most %d)", SC_MAX_REF_STEPS);
	SC_CHECK(sc_step_parse(p, def, line));
	if (s->steps[s->nsteps - 1].when1)
		return sc_lex_err(p, kw->col, "the reference runs on one device: no 'when'");
	s->rsteps[s->nrsteps++] = s->steps[--s->nsteps]; /* parsed as a step; kept apart */
	return SC_OK;
}

static enum sc_status parse_line(struct spec_parse *q, const char *line)
{
	struct sc_parse *p = &q->p;
	enum sc_status st;
	if (pipeline_line(q, line, &st))
		return st;
	SC_CHECK(sc_lex_tokenize(p, line));
	if (p->nt == 0)
		return SC_OK;
	struct sc_tok *kw = &p->t[0];
	if (q->block == 3)
		return ref_line(q, kw, line);
	if (kw->kind == SC_T_NAME && strcmp(kw->text, "reference") == 0 && p->nt == 1 && !p->s->ntensors &&
	    !p->s->compute) { /* a layout spec's reference, closed by `end` */
		if (p->s->ref_line)
			return sc_lex_err(p, kw->col, "duplicate 'reference' block");
		if (p->s->nloops)
			return sc_lex_err(p, kw->col, "a reference block cannot sit inside a loop (line %d opens one)",
					  p->s->loop_line[p->s->nloops - 1]);
		p->s->ref_line = p->line;
		q->block = 3;
		swap_names(p->s); /* its own names: X, then what it assigns */
		snprintf(p->s->tname[0], SC_NAME_MAX, "X");
		p->s->ntnames = 1;
		return SC_OK;
	}
	if (kw->kind == SC_T_NAME && (strcmp(kw->text, "reference") == 0 || strcmp(kw->text, "program") == 0) &&
	    p->nt == 1) {
		int ref = kw->text[0] == 'r';
		if (ref ? q->seen_ref : q->seen_prog)
			return sc_lex_err(p, kw->col, "duplicate '%s' block", kw->text);
		if (p->s->nloops) {
			p->line = p->s->loop_line[p->s->nloops - 1];
			return sc_lex_err(p, 1, "the 'for' loop has no 'end'");
		}
		if (ref)
			q->seen_ref = p->line;
		else
			q->seen_prog = p->line;
		q->block = ref ? 1 : 2;
		p->s->compute = 1;
		return SC_OK;
	}
	if (q->block)
		return sc_program_parse_stmt(p, q->block, line);
	if (kw->kind != SC_T_NAME)
		return sc_lex_err(p, kw->col, "expected a declaration or a step, got '%s'", kw->text);
	if (p->nt > 2 && (sc_lex_is_op(&p->t[1], "=") || sc_lex_is_op(&p->t[1], ",")) && !p->s->compute)
		return named_line(q, line);
	p->pos = 1;
	for (size_t i = 0; i < sizeof decls / sizeof decls[0]; i++)
		if (strcmp(kw->text, decls[i].keyword) == 0)
			return decls[i].parse(q, kw);
	const struct sc_step_def *def = sc_step_find(kw->text);
	if (def && (def->flags & SC_STEP_NAMED))
		return sc_lex_err(p, kw->col, "'%s' names its result: write %s", kw->text,
				  strcmp(kw->text, "split") == 0 ? "a, b = split t [E, E] dim=i"
				  : strcmp(kw->text, "write") == 0 ? "buf = write buf t dim=i start=E" : "y = cat a b dim=i");
	if (def)
		return sc_step_parse(p, def, line);
	struct sc_suggest sg;
	sc_suggest_init(&sg, kw->text);
	for (size_t i = 0; i < sizeof decls / sizeof decls[0]; i++)
		sc_suggest_add(&sg, decls[i].keyword);
	const struct sc_step_def *const *rows;
	int nrows;
	sc_step_table(&rows, &nrows);
	for (int i = 0; i < nrows; i++)
		sc_suggest_add(&sg, rows[i]->keyword);
	char hint[96];
	return sc_lex_err(p, kw->col, "unknown declaration or step '%s'%s", kw->text, sc_suggest_hint(&sg, hint, sizeof hint));
}

/* ---- after the last line ---- */

/* What a compute spec must have; its layout-only input/output are unused. */
static enum sc_status finish_compute(struct spec_parse *q)
{
	struct sc_parse *p = &q->p;
	struct sc_spec *s = p->s;
	if (!q->seen_out)
		return sc_lex_err(p, 1, "missing 'output NAME [dims] PLACEMENT' declaration");
	if (!q->seen_ref || !q->seen_prog)
		return sc_lex_err(p, 1, "a compute spec needs a 'reference' block and a 'program' block");
	const int open = sc_program_open_block(s);
	if (open >= 0) {
		p->line = s->prog[open].line;
		return sc_lex_err(p, s->prog[open].col, "this microbatch block has no 'end'");
	}
	for (int blk = 0; blk < 2; blk++) {
		const struct sc_stmt *b = blk ? s->prog : s->ref;
		int n = blk ? s->nprog : s->nref, defines = 0;
		for (int i = 0; i < n; i++)
			defines |= b[i].dst == s->out_tensor;
		if (!defines) {
			p->line = blk ? q->seen_prog : q->seen_ref;
			return sc_lex_err(p, 1, "the %s block never assigns the output '%s'", blk ? "program" : "reference",
					  s->tensors[s->out_tensor].name);
		}
	}
	for (int i = 0; i < s->nsteps; i++)
		if (s->steps[i].def->flags & SC_STEP_REDUCES)
			s->has_reduction = 1;
	memset(&s->in, 0, sizeof s->in);
	memset(&s->out, 0, sizeof s->out);
	s->in.kind = s->out.kind = SC_REPLICATE;
	q->seen_in = 1;
	return SC_OK;
}

/* An error when node uses a value only a rank has (in a declaration that
 * holds for the whole case), or (unless counts_ok) the drawn counts. */
static enum sc_status whole_case(struct sc_parse *p, int node, const char *where, int counts_ok)
{
	const struct sc_spec *s = p->s;
	const int c = counts_ok ? -1 : sc_expr_find(s, node, SC_EXPR_COUNTS);
	if (c >= 0) {
		p->line = s->nodes[c].line;
		return sc_lex_err(p, s->nodes[c].col, "%s is decided before the counts are drawn: '%s' has no value there",
				  where, s->nodes[c].name);
	}
	const int i = sc_expr_find(s, node, SC_EXPR_PER_RANK);
	if (i < 0)
		return SC_OK;
	const struct sc_expr *x = &s->nodes[i];
	p->line = x->line;
	return sc_lex_err(p, x->col, "%s holds for the whole case: '%s' (a rank's value) has no meaning there", where,
			  x->kind == SC_EX_SIZE ? "size()" : x->kind == SC_EX_RANK ? "rank"
			  : x->kind == SC_EX_COORD ? s->mesh_dim[x->dim] : x->name);
}

static enum sc_status global_only(struct sc_parse *p, int node, const char *where)
{
	return whole_case(p, node, where, 0);
}

/* Names in expressions: the world symbol, a dim or `rank`. */
static enum sc_status resolve_names(struct spec_parse *q)
{
	struct sc_parse *p = &q->p;
	struct sc_spec *s = p->s;
	for (int i = 0; i < s->nnodes; i++) {
		struct sc_expr *x = &s->nodes[i];
		if (((uint64_t)1 << x->kind) & SC_EXPR_COUNTS) {
			SC_CHECK(sc_counts_resolve(p, x));
			continue;
		}
		if (x->kind != SC_EX_NAME)
			continue;
		if (strcmp(x->name, s->world_sym) == 0) {
			x->kind = SC_EX_WORLD;
			continue;
		}
		int d = sc_lex_dim(s, x->name);
		if (d < 0 && sc_lex_mesh_sym(s, x->name) >= 0) { /* a mesh size: after the dims in a case's sizes */
			x->kind = SC_EX_DIM;
			x->dim = sc_spec_mesh_slot(s, sc_lex_mesh_sym(s, x->name));
			continue;
		}
		if (d < 0 && sc_slots_param(s, x->name) >= 0) { /* a drawn parameter: before the mesh sizes */
			x->kind = SC_EX_DIM;
			x->dim = sc_spec_param_slot(s, sc_slots_param(s, x->name));
			continue;
		}
		if (d < 0 && sc_lex_mesh_dim(s, x->name) >= 0) { /* the rank's coordinate */
			x->kind = SC_EX_COORD;
			x->dim = sc_lex_mesh_dim(s, x->name);
			continue;
		}
		if (d < 0 && strcmp(x->name, "rank") == 0) {
			x->kind = SC_EX_RANK;
			continue;
		}
		if (d < 0 && strcmp(x->name, "none") == 0) { /* no peer (sendrecv) */
			x->kind = SC_EX_NONE;
			continue;
		}
		if (d < 0) {
			p->line = x->line;
			return sc_lex_err(p, x->col, "unknown name '%s' (not a dim nor the world symbol '%s')", x->name,
					  s->world_sym);
		}
		x->kind = SC_EX_DIM;
		x->dim = d;
	}
	for (int i = 0; i < s->nconds; i++) {
		s->conds[i].last_dim = sc_expr_last_dim(s, s->conds[i].node);
		SC_CHECK(global_only(p, s->conds[i].node, "a require"));
	}
	for (int k = 0; k < s->ncounts; k++) {
		const struct sc_countsdecl *c = &s->counts[k];
		const int node[5] = {c->lo, c->hi, c->seq_lo, c->seq_hi, c->multiple};
		for (int i = 0; i < 5; i++) /* (-1: none) */
			SC_CHECK(global_only(p, node[i], i < 2 ? "a counts range" : i < 4 ? "the number of sequences" : "a multiple="));
	}
	for (int i = 0; i < s->nsteps + s->nrsteps; i++) { /* every rank runs the same iterations */
		const struct sc_step *st = i < s->nsteps ? &s->steps[i] : &s->rsteps[i - s->nsteps];
		if ((st->def->flags & SC_STEP_CONTROL) && st->nargs == 2) {
			SC_CHECK(whole_case(p, st->args[0], "a loop's range", 1)); /* counts: the same on every rank */
			SC_CHECK(whole_case(p, st->args[1], "a loop's range", 1));
		}
		for (int k = 0; k < st->nglist; k++) /* every rank builds the same groups */
			SC_CHECK(whole_case(p, st->glist[k], "a group's list of ranks", 1));
	}
	for (int k = 0; k < s->nparams; k++) { /* the world, the dims and earlier parameters */
		const int node[2] = {s->param_range[k].lo, s->param_range[k].hi};
		for (int i = 0; i < 2; i++) {
			p->line = s->param_line[k];
			SC_CHECK(global_only(p, node[i], "a parameter's range"));
			if (sc_expr_last_dim(s, node[i]) >= s->ndims + k)
				return sc_lex_err(p, s->nodes[node[i]].col, "parameter %s's range may only use the world, the dims and earlier parameters",
						  s->param[k]);
		}
	}
	for (int d = 0; d < s->ndims; d++) {
		if (s->hint[d].lo < 0)
			continue;
		SC_CHECK(global_only(p, s->hint[d].lo, "a size range"));
		SC_CHECK(global_only(p, s->hint[d].hi, "a size range"));
		/* a hint may use the world and earlier dims only */
		int a = sc_expr_last_dim(s, s->hint[d].lo), b = sc_expr_last_dim(s, s->hint[d].hi);
		if (a >= d || b >= d) {
			p->line = q->sizes_line[d];
			return sc_lex_err(p, s->nodes[a >= d ? s->hint[d].lo : s->hint[d].hi].col,
					  "size range of '%s' may only use the world and earlier dims", s->dim[d]);
		}
	}
	return SC_OK;
}

/* Which dims the placements shard, and how (generation draws them so). */
static enum sc_status shard_masks(struct sc_parse *p)
{
	struct sc_spec *s = p->s;
	const struct sc_layout *pl[2] = {&s->in, &s->out};
	/* with a reference the output places Y, whose sizes are known only
	 * once it runs: its shard does not constrain X's dims */
	for (int i = 0; i < (s->ref_line ? 1 : 2); i++) {
		struct sc_place_entry ent[SC_MAX_MESH];
		const int n = sc_layout_entries(pl[i], ent);
		for (int k = 0; k < n; k++) {
			const struct sc_place_entry *en = &ent[k];
			const int d = en->shard_dim;
			if (en->kind != SC_SHARD)
				continue;
			else if (en->rule == SC_RULE_EVEN)
				s->sharded_mask |= 1u << d;
			else if (en->rule == SC_RULE_SIZES && s->hint[d].lo >= 0)
				return sc_lex_err(p, 1, "'%s' is sized by its sizes= placement: it takes no sizes range", s->dim[d]);
			else if (en->rule == SC_RULE_SIZES)
				s->derived_mask |= 1u << d, s->uneven_mask |= 1u << d;
			else if (en->rule == SC_RULE_ZIGZAG && s->ndims >= SC_MAX_DIMS)
				return sc_lex_err(p, 1, "a zigzag placement needs a spare dim (at most %d dims)", SC_MAX_DIMS - 1);
			else if (en->rule == SC_RULE_ZIGZAG)
				s->sharded_mask |= s->zigzag_mask |= 1u << d;
			else /* chunk, split: one dim, or every dim of a merged group */
				s->uneven_mask |= ((1u << (en->shard_ndims > 1 ? en->shard_ndims : 1)) - 1u) << d;
		}
	}
	return SC_OK;
}

/* A mesh's names against the dims and the world symbol, its sizes'
 * ranges (numbers and earlier mesh sizes only), and room for its sizes
 * after the dims in a case. */
static enum sc_status check_mesh(struct spec_parse *q)
{
	struct sc_parse *p = &q->p;
	struct sc_spec *s = p->s;
	if (!s->nmesh)
		return SC_OK;
	p->line = s->mesh_line;
	if (s->ndims + s->nmesh > SC_MAX_DIMS)
		return sc_lex_err(p, 1, "%d dims and %d mesh dims: at most %d together", s->ndims, s->nmesh, SC_MAX_DIMS);
	for (int m = 0; m < s->nmesh; m++) {
		const char *nm[2] = {s->mesh_dim[m], s->mesh_sym[m]};
		for (int k = 0; k < 2; k++)
			if (nm[k][0] && (sc_lex_dim(s, nm[k]) >= 0 || strcmp(nm[k], s->world_sym) == 0 ||
					 strcmp(nm[k], "rank") == 0 || strcmp(nm[k], "none") == 0))
				return sc_lex_err(p, 1, "mesh name '%s' is also a dim, the world symbol or a keyword", nm[k]);
		for (int k = 0; k < 2 && s->mesh_hint[m].lo >= 0; k++) {
			const int node = k ? s->mesh_hint[m].hi : s->mesh_hint[m].lo;
			SC_CHECK(global_only(p, node, "a size range"));
			if (sc_expr_find(s, node, 1u << SC_EX_WORLD) >= 0 || sc_expr_last_dim(s, node) >= 0)
				return sc_lex_err(p, s->nodes[node].col, "a mesh size's range may use numbers and earlier mesh sizes only");
			for (int j = sc_expr_find(s, node, 1u << SC_EX_DIM); j >= 0;) {
				if (s->nodes[j].dim >= sc_spec_mesh_slot(s, m))
					return sc_lex_err(p, s->nodes[j].col, "a mesh size's range may use earlier mesh sizes only");
				break;
			}
		}
	}
	return SC_OK;
}

static enum sc_status finish(struct spec_parse *q, const char *path)
{
	struct sc_parse *p = &q->p;
	struct sc_spec *s = p->s;
	p->line = p->line + 1;
	if (!q->seen_dims)
		return sc_lex_err(p, 1, "missing 'dims' declaration");
	if (s->nloops) {
		p->line = s->loop_line[s->nloops - 1];
		return sc_lex_err(p, 1, "the 'for' loop has no 'end'");
	}
	if (q->block == 3) {
		p->line = s->ref_line;
		return sc_lex_err(p, 1, "the 'reference' block has no 'end'");
	}
	if (s->compute)
		SC_CHECK(finish_compute(q));
	if (!q->seen_in)
		return sc_lex_err(p, 1, "missing 'input' declaration");
	if (!q->seen_out)
		return sc_lex_err(p, 1, "missing 'output' declaration");
	if (sc_lex_dim(s, s->world_sym) >= 0) {
		p->line = q->seen_world ? q->seen_world : q->seen_dims;
		return sc_lex_err(p, 1, "world symbol '%s' is also a dim name", s->world_sym);
	}
	if (!s->compute) {
		SC_CHECK(sc_layout_resolve(p, &s->in, &q->pend_in, "input"));
		SC_CHECK(sc_layout_resolve(p, &s->out, &q->pend_out, "output"));
		SC_CHECK(shard_masks(p));
	}
	if (s->in.kind == SC_PARTIAL || s->out.kind == SC_PARTIAL)
		s->has_reduction = 1;
	SC_CHECK(resolve_names(q));
	SC_CHECK(sc_counts_check(p, q->sizes_line));
	SC_CHECK(sc_slots_check(p));
	SC_CHECK(check_mesh(q));
	for (int i = 0; i < 2 && !s->compute; i++) { /* a sized dim's E cannot read its own size */
		const struct sc_layout *l = i ? &s->out : &s->in;
		if (l->kind != SC_SHARD || l->rule != SC_RULE_SIZES)
			continue;
		for (int k = sc_expr_find(s, l->sizes_expr, 1u << SC_EX_DIM); k >= 0;) {
			const struct sc_expr *x = &s->nodes[k];
			if (!((s->derived_mask >> x->dim) & 1u))
				break;
			p->line = x->line;
			return sc_lex_err(p, x->col, "sizes= may not use '%s': its size is what sizes= gives", s->dim[x->dim]);
		}
	}
	/* shapes may differ from rank to rank: every step then runs per rank */
	s->varies = s->uneven_mask != 0;
	for (int i = 0; i < s->nnodes; i++)
		s->varies |= s->nodes[i].kind == SC_EX_RANK || s->nodes[i].kind == SC_EX_COORD;
	for (int i = 0; i < s->nsteps; i++)
		s->varies |= ((s->steps[i].def->flags | s->steps[i].flags) & SC_STEP_VARIES) != 0;
	if (!s->name[0]) {
		const char *b = strrchr(path, '/');
		b = b ? b + 1 : path;
		size_t n = strcspn(b, ".");
		if (n >= sizeof s->name)
			n = sizeof s->name - 1;
		memcpy(s->name, b, n);
		s->name[n] = '\0';
	}
	return SC_OK;
}

enum sc_status sc_spec_parse(const char *text, const char *path, struct sc_spec *s, struct sc_err *e)
{
	memset(s, 0, sizeof *s);
	return sc_spec_parse_zeroed(text, path, s, e);
}

enum sc_status sc_spec_parse_zeroed(const char *text, const char *path, struct sc_spec *s, struct sc_err *e)
{
	struct spec_parse *q = calloc(1, sizeof *q);
	if (!q)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	struct sc_parse *p = &q->p;
	enum sc_status st = SC_OK;
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
			st = sc_lex_err(p, 1, "line too long");
			goto out;
		}
		memcpy(line, c, n);
		line[n] = '\0';
		if (memchr(line, '\0', n) != NULL || strlen(line) != n) {
			st = sc_lex_err(p, (int)strlen(line) + 1, "NUL byte in spec");
			goto out;
		}
		SC_CHECK_GOTO(parse_line(q, line), st, out);
		c += n;
		if (*c == '\n')
			c++;
	}
	SC_CHECK_GOTO(finish(q, path), st, out);
	SC_LOG(SPEC, "%s: %d dims, %d steps, %d requires%s", path, s->ndims, s->nsteps, s->nconds,
	       s->compute ? ", compute" : "");
out:
	free(q);
	return st;
}

/* A spec is text written by hand: anything larger is not one. */
#define SPEC_MAX_BYTES ((size_t)64 << 20)

enum sc_status sc_spec_load(const char *path, struct sc_spec *spec, struct sc_err *e)
{
	char *buf;
	size_t len;
	/* regular files only: a FIFO or a device named as a spec is refused, not waited on */
	SC_CHECK(sc_fs_read_regular(path, SPEC_MAX_BYTES, &buf, &len, e));
	if (len > SPEC_MAX_BYTES) {
		free(buf);
		return SC_ERR(e, SC_E_SPEC, "%s: file too large for a spec (over %zu bytes)", path, SPEC_MAX_BYTES);
	}
	if (strlen(buf) != len) {
		free(buf);
		return SC_ERR(e, SC_E_SPEC, "%s:1:1: NUL byte in spec (not a text file?)", path);
	}
	enum sc_status st = sc_spec_parse(buf, path, spec, e);
	free(buf);
	return st;
}
