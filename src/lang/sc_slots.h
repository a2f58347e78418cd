/* sc_slots: what a case holds in sizes[] besides the dims: the sizes of a
 * mesh's dims (`mesh dp=D tp=T`) and drawn parameters (`param NAME
 * LO..HI`, docs/language.md "Parameters"). Their declarations, and the
 * slot a name stands for. */
#ifndef SC_SLOTS_H
#define SC_SLOTS_H

#include "sc_ast.h"
#include "sc_lex.h"

/* `mesh NAME=SIZE ...` (cursor after the keyword). */
enum sc_status sc_slots_parse_mesh(struct sc_parse *p, const struct sc_tok *kw);
/* `param NAME LO..HI` (cursor after the keyword). */
enum sc_status sc_slots_parse_param(struct sc_parse *p, const struct sc_tok *kw);
/* Parameter `name`'s index, -1 when it is none. */
int sc_slots_param(const struct sc_spec *s, const char *name);
/* The name of slot (a dim's, a parameter's or a mesh size's); "?" when none. */
const char *sc_slots_name(const struct sc_spec *s, int slot);
/* After the last line: the dims, parameters and mesh sizes fit in sizes[]
 * and no name is two of them. */
enum sc_status sc_slots_check(struct sc_parse *p);

#endif
