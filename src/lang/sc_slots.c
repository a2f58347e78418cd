/* sc_slots: mesh sizes and drawn parameters (see sc_slots.h). */
#include "sc_slots.h"

#include <stdio.h>
#include <string.h>

#include "sc_expr.h"

enum sc_status sc_slots_parse_mesh(struct sc_parse *p, const struct sc_tok *kw)
{
	struct sc_spec *s = p->s;
	if (s->nmesh)
		return sc_lex_err(p, kw->col, "duplicate 'mesh' declaration");
	s->mesh_line = p->line;
	while (sc_lex_peek(p)->kind != SC_T_END) {
		struct sc_tok *t = sc_lex_peek(p);
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected NAME=SIZE (a mesh dim and its size), got '%s'", t->text);
		if (s->nmesh >= SC_MAX_MESH)
			return sc_lex_err(p, t->col, "too many mesh dims (at most %d)", SC_MAX_MESH);
		for (int m = 0; m < s->nmesh; m++)
			if (strcmp(s->mesh_dim[m], t->text) == 0 || strcmp(s->mesh_sym[m], t->text) == 0)
				return sc_lex_err(p, t->col, "duplicate mesh name '%s'", t->text);
		const int m = s->nmesh;
		snprintf(s->mesh_dim[m], SC_NAME_MAX, "%s", t->text);
		p->pos++;
		if (!sc_lex_is_op(sc_lex_peek(p), "="))
			return sc_lex_err(p, sc_lex_peek(p)->col, "expected '=' after mesh dim '%s' (mesh %s=SIZE)", t->text, t->text);
		p->pos++;
		struct sc_tok *v = sc_lex_peek(p);
		if (v->kind == SC_T_NUM) {
			if (v->num < 1 || v->num > SC_MAX_WORLD)
				return sc_lex_err(p, v->col, "a mesh dim's size is 1..%d", SC_MAX_WORLD);
			s->mesh_fixed[m] = (int)v->num;
		} else if (v->kind == SC_T_NAME) {
			for (int k = 0; k < s->nmesh; k++)
				if (strcmp(s->mesh_dim[k], v->text) == 0 || strcmp(s->mesh_sym[k], v->text) == 0)
					return sc_lex_err(p, v->col, "duplicate mesh name '%s'", v->text);
			if (strcmp(v->text, t->text) == 0)
				return sc_lex_err(p, v->col, "a mesh dim and its size need two names ('%s=%s')", t->text, v->text);
			snprintf(s->mesh_sym[m], SC_NAME_MAX, "%s", v->text);
		} else {
			return sc_lex_err(p, v->col, "expected a size symbol or an integer after '%s='", t->text);
		}
		s->mesh_hint[m].lo = s->mesh_hint[m].hi = -1;
		s->nmesh++;
		p->pos++;
	}
	if (!s->nmesh)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected mesh dims: mesh dp=D tp=T");
	return SC_OK;
}

enum sc_status sc_slots_parse_param(struct sc_parse *p, const struct sc_tok *kw)
{
	struct sc_spec *s = p->s;
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind != SC_T_NAME)
		return sc_lex_err(p, t->col, "expected a name after 'param' (param NAME LO..HI), got '%s'", t->text);
	if (s->nparams >= SC_MAX_PARAMS)
		return sc_lex_err(p, kw->col, "too many parameters (at most %d)", SC_MAX_PARAMS);
	if (sc_slots_param(s, t->text) >= 0)
		return sc_lex_err(p, t->col, "duplicate parameter '%s'", t->text);
	const int k = s->nparams;
	snprintf(s->param[k], SC_NAME_MAX, "%s", t->text);
	s->param_line[k] = p->line;
	p->pos++;
	SC_CHECK(sc_expr_parse(p, &s->param_range[k].lo));
	if (!sc_lex_is_op(sc_lex_peek(p), ".."))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '..' in parameter %s's range (param %s LO..HI)", s->param[k],
				  s->param[k]);
	p->pos++;
	SC_CHECK(sc_expr_parse(p, &s->param_range[k].hi));
	if (sc_lex_peek(p)->kind != SC_T_END)
		return sc_lex_err(p, sc_lex_peek(p)->col, "unexpected '%s' after parameter %s's range", sc_lex_peek(p)->text,
				  s->param[k]);
	s->nparams++;
	return SC_OK;
}

int sc_slots_param(const struct sc_spec *s, const char *name)
{
	for (int k = 0; k < s->nparams; k++)
		if (strcmp(s->param[k], name) == 0)
			return k;
	return -1;
}

const char *sc_slots_name(const struct sc_spec *s, int slot)
{
	if (slot >= 0 && slot < s->ndims)
		return s->dim[slot];
	const int k = sc_spec_slot_param(s, slot);
	if (k >= 0)
		return s->param[k];
	for (int m = 0; m < s->nmesh; m++)
		if (slot == sc_spec_mesh_slot(s, m))
			return s->mesh_sym[m];
	return "?";
}

enum sc_status sc_slots_check(struct sc_parse *p)
{
	const struct sc_spec *s = p->s;
	if (!s->nparams)
		return SC_OK;
	p->line = s->param_line[0];
	if (s->ndims + s->nparams + s->nmesh > SC_MAX_DIMS)
		return sc_lex_err(p, 1, "dims, parameters and mesh dims are %d together, at most %d", s->ndims + s->nparams + s->nmesh,
				  SC_MAX_DIMS);
	for (int k = 0; k < s->nparams; k++) {
		p->line = s->param_line[k];
		if (sc_lex_dim(s, s->param[k]) >= 0 || sc_lex_mesh_sym(s, s->param[k]) >= 0 || sc_lex_mesh_dim(s, s->param[k]) >= 0 ||
		    strcmp(s->param[k], s->world_sym) == 0 || strcmp(s->param[k], "rank") == 0)
			return sc_lex_err(p, 1, "parameter '%s' has the name of a dim, a mesh name, the world or 'rank'", s->param[k]);
	}
	return SC_OK;
}
