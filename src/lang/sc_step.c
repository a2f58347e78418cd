/* sc_step: the list of step families and the common part of parsing a
 * step (its place in the spec, its text for messages). */
#include "sc_step.h"

#include <ctype.h>
#include <string.h>

#include "sc_expr.h"

/* The families, one line each. */
static const struct sc_step_def *const families[] = {
	sc_steps_view,
	sc_steps_slice,
	sc_steps_coll,
	sc_steps_sized,
	sc_steps_p2p,
	sc_steps_named,
	sc_steps_buffer,
	sc_steps_route,
	sc_steps_loop,
};

int sc_step_tensor(const struct sc_spec *s, const char *name)
{
	for (int i = 0; i < s->ntnames; i++)
		if (strcmp(s->tname[i], name) == 0)
			return i;
	return -1;
}

#define MAX_ROWS 64

void sc_step_table(const struct sc_step_def *const **rows, int *n)
{
	static const struct sc_step_def *all[MAX_ROWS];
	static int nall;
	if (!nall)
		for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
			for (const struct sc_step_def *d = families[f]; d->keyword && nall < MAX_ROWS; d++)
				all[nall++] = d;
	*rows = all;
	*n = nall;
}

const struct sc_step_def *sc_step_find(const char *keyword)
{
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
		for (const struct sc_step_def *d = families[f]; d->keyword; d++)
			if (strcmp(d->keyword, keyword) == 0)
				return d;
	return NULL;
}

/* `group=A[,B]` anywhere among the arguments: parsed into st->group and
 * taken out of the line's tokens, so the step's own parser never sees it.
 * A group of every mesh dim in mesh order is the whole mesh (n 0). */
/* `when COND` at the end of a local step: its node into st->when1, and
 * the line's tokens cut before it. A collective (every rank of its group
 * runs it) and a step over named tensors take none. */
static enum sc_status take_when(struct sc_parse *p, const struct sc_step_def *def, struct sc_step *st)
{
	int node, col;
	SC_CHECK(sc_expr_take_when(p, &node, &col));
	if (!col)
		return SC_OK;
	if (def->flags & (SC_STEP_COLLECTIVE | SC_STEP_GROUPED))
		return sc_lex_err(p, col, "'when' on a collective: every rank of its group runs '%s' (a rank that skipped "
					  "it would leave the others waiting); put the condition on the local steps around it",
				  def->keyword);
	if (def->flags & SC_STEP_NAMED)
		return sc_lex_err(p, col, "'%s' joins or divides named tensors on every rank: it takes no 'when'", def->keyword);
	st->when1 = node + 1;
	return SC_OK;
}

static enum sc_status take_group(struct sc_parse *p, const struct sc_step_def *def, struct sc_step *st)
{
	for (int i = 1; i + 1 < p->nt; i++) {
		if (p->t[i].kind != SC_T_NAME || strcmp(p->t[i].text, "group") != 0 || !sc_lex_is_op(&p->t[i + 1], "="))
			continue;
		if (!(def->flags & (SC_STEP_COLLECTIVE | SC_STEP_GROUPED)))
			return sc_lex_err(p, p->t[i].col, "'%s' runs on each rank alone: it takes no group=", def->keyword);
		p->pos = i + 2;
		const int listed = sc_lex_is_op(sc_lex_peek(p), "[");
		if (!listed && !p->s->nmesh)
			return sc_lex_err(p, p->t[i].col, "group= names mesh dims (declare 'mesh' before this step) or lists ranks: group=[0, P-1]");
		if (listed) { /* the whole world (every mesh dim), some of its ranks */
			st->group.n = p->s->nmesh;
			for (int k = 0; k < p->s->nmesh; k++)
				st->group.dim[k] = k;
		} else {
			SC_CHECK(sc_lex_mesh_group(p, &st->group));
		}
		if (sc_lex_is_op(sc_lex_peek(p), "[")) {
			if (!listed && sc_lex_peek(p)->space)
				return sc_lex_err(p, sc_lex_peek(p)->col, "expected the ranks right after the mesh dims (group=pp[0, PP-1])");
			const int open = sc_lex_peek(p)->col;
			SC_CHECK(sc_expr_parse_list(p, st->glist, SC_STEP_MAX_GLIST, &st->nglist, "ranks of the group"));
			if (!st->nglist)
				return sc_lex_err(p, open, "a group lists at least one rank");
		}
		if (sc_lex_peek(p)->kind != SC_T_END && !sc_lex_peek(p)->space)
			return sc_lex_err(p, sc_lex_peek(p)->col, "expected a space after the group");
		int all = st->group.n == p->s->nmesh;
		for (int k = 0; all && k < st->group.n; k++)
			all = st->group.dim[k] == k;
		if (all && !st->nglist)
			st->group.n = 0;
		memmove(&p->t[i], &p->t[p->pos], sizeof(struct sc_tok) * (size_t)(p->nt + 1 - p->pos));
		p->nt -= p->pos - i;
		return SC_OK;
	}
	return SC_OK;
}

/* The comment of a step's line when it starts with FILE:LINE (a word
 * ending in ':' and digits: `# deepspeed_ulysses.py:35  out = ...`), in
 * src; else src empty. */
static void source_of(const char *b, char *src, size_t n)
{
	src[0] = '\0';
	const char *c = strchr(b, '#');
	if (!c)
		return;
	c += strspn(c + 1, " \t") + 1;
	const size_t w = strcspn(c, " \t\n");
	const char *colon = memchr(c, ':', w);
	if (!colon || colon == c || w >= n)
		return;
	const char *d = colon + 1;
	if (d == c + w || strspn(d, "0123456789") != (size_t)(c + w - d))
		return;
	memcpy(src, c, w);
	src[w] = '\0';
}

enum sc_status sc_step_parse(struct sc_parse *p, const struct sc_step_def *def, const char *linetext)
{
	struct sc_spec *s = p->s;
	if (s->nsteps >= SC_MAX_STEPS)
		return sc_lex_err(p, p->t[0].col, "too many steps (at most %d)", SC_MAX_STEPS);
	struct sc_step *st = &s->steps[s->nsteps];
	memset(st, 0, sizeof *st);
	st->def = def;
	st->line = p->line;
	st->col = p->t[0].col;
	const char *b = linetext + p->t[0].col - 1;
	size_t n = strcspn(b, "#\n");
	while (n && isspace((unsigned char)b[n - 1]))
		n--;
	if (n >= sizeof st->text)
		n = sizeof st->text - 1;
	memcpy(st->text, b, n);
	st->text[n] = '\0';
	source_of(b, st->src, sizeof st->src);
	SC_CHECK(take_group(p, def, st));
	SC_CHECK(take_when(p, def, st));
	p->pos = 1;
	SC_CHECK(def->parse(p, st));
	if (def->flags & SC_STEP_REDUCES)
		s->has_reduction = 1;
	if (def->flags & SC_STEP_PADS)
		s->pads = 1;
	s->nsteps++;
	return SC_OK;
}
