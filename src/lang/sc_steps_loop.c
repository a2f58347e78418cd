/* sc_steps_loop: `for NAME in LO..HI` ... `end` (docs/language.md,
 * "Loops"): the steps between run once per value of NAME, LO to HI
 * inclusive (none when HI < LO), and their expressions read NAME. LO and
 * HI are the whole case's (dims, the world, the indices of the loops
 * around): every rank runs the same iterations. Loops nest SC_LOOP_NEST
 * deep. These rows only parse: the interpreter's step runner
 * (sc_exec_steps) runs them. */
#include <stdio.h>
#include <string.h>

#include "sc_expr.h"
#include "sc_interp.h"
#include "sc_lex.h"
#include "sc_step.h"

enum sc_status sc_loop_header(struct sc_parse *p, int taken, int *lo, int *hi)
{
	struct sc_spec *s = p->s;
	if (s->nloops >= SC_LOOP_NEST)
		return sc_lex_err(p, p->t[0].col, "loops nest at most %d deep (line %d opens the innermost)", SC_LOOP_NEST,
				  s->loop_line[s->nloops - 1]);
	const struct sc_tok *v = sc_lex_peek(p);
	if (taken || v->kind != SC_T_NAME || sc_lex_dim(s, v->text) >= 0 || strcmp(v->text, s->world_sym) == 0 ||
	    strcmp(v->text, "rank") == 0 || sc_step_find(v->text) || sc_step_tensor(s, v->text) >= 0)
		return sc_lex_err(p, v->col, "expected the loop's index name after 'for' (for i in 0..P-1), a name of its own");
	for (int l = 0; l < s->nloops; l++)
		if (strcmp(s->loop_var[l], v->text) == 0)
			return sc_lex_err(p, v->col, "'%s' is the index of the loop that line %d opens: an inner loop's is a name of its own",
					  v->text, s->loop_line[l]);
	if (strlen(v->text) >= sizeof s->loop_var[0])
		return sc_lex_err(p, v->col, "the loop's index name is too long");
	char name[SC_NAME_MAX];
	snprintf(name, sizeof name, "%s", v->text);
	p->pos++;
	const struct sc_tok *in = sc_lex_peek(p);
	if (in->kind != SC_T_NAME || strcmp(in->text, "in") != 0)
		return sc_lex_err(p, in->col, "expected 'in' (for %s in LO..HI)", name);
	p->pos++;
	SC_CHECK(sc_expr_parse(p, lo));
	if (!sc_lex_is_op(sc_lex_peek(p), ".."))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '..' (for %s in LO..HI, HI included)", name);
	p->pos++;
	SC_CHECK(sc_expr_parse(p, hi));
	SC_CHECK(sc_lex_end(p));
	snprintf(s->loop_var[s->nloops], sizeof s->loop_var[0], "%s", name);
	s->loop_line[s->nloops++] = p->line;
	return SC_OK;
}

/* for NAME in LO..HI: args[0] LO, args[1] HI (whole-case values only:
 * checked once names resolve); the spec's loop_var opens */
static enum sc_status parse_for(struct sc_parse *p, struct sc_step *st)
{
	st->nargs = 2;
	return sc_loop_header(p, 0, &st->args[0], &st->args[1]);
}

/* end: closes the innermost open loop */
static enum sc_status parse_end(struct sc_parse *p, struct sc_step *st)
{
	(void)st;
	if (!p->s->nloops)
		return sc_lex_err(p, p->t[0].col, "'end' without a 'for' loop to close");
	p->s->nloops--;
	return sc_lex_end(p);
}

/* Never run as a step: sc_exec_steps runs the loop. */
static enum sc_status exec_control(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				   const int64_t *sizes, struct sc_err *e)
{
	(void)x;
	(void)s;
	(void)sizes;
	return sc_interp_fail(e, st, "'%s' run as a step (a loop runs through the step runner)", st->def->keyword);
}

const struct sc_step_def sc_steps_loop[] = {
	{"for", SC_STEP_CONTROL, parse_for, exec_control},
	{"end", SC_STEP_CONTROL, parse_end, exec_control},
	{NULL, 0, NULL, NULL},
};
