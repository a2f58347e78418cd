/* sc_spec: the parser of .sc specs (docs/language.md): a table of
 * declarations, each line dispatched by its first word to a declaration,
 * a step (sc_step) or, inside a reference/program block, a compute
 * statement (sc_program). Names are resolved once the whole file is read,
 * so declarations may come in any order. Any malformed input is reported
 * as "file:line:col: message". */
#ifndef SC_SPEC_H
#define SC_SPEC_H

#include "sc_ast.h"
#include "sc_expr.h"
#include "sc_layout.h"
#include "sc_step.h"

/* Parses text (NUL-terminated) named path; on error fills e with
 * "path:line:col: message" and returns SC_E_SPEC. spec is caller-owned. */
enum sc_status sc_spec_parse(const char *text, const char *path,
			     struct sc_spec *spec, struct sc_err *e);
/* The same into a spec already zero-filled (calloc): the pages of its
 * 112 KB that the spec does not use are never touched, which counts where
 * hundreds of specs are made and kept (the built-ins' cache). */
enum sc_status sc_spec_parse_zeroed(const char *text, const char *path,
				    struct sc_spec *spec, struct sc_err *e);
/* Reads and parses a file. */
enum sc_status sc_spec_load(const char *path, struct sc_spec *spec, struct sc_err *e);

#endif
