/* sc_expr: size expressions and conditions (docs/language.md, "Size
 * expressions"): parsed into the spec's node pool, evaluated with checked
 * arithmetic (exact '/', floor '//' and '%' as in Python, every overflow an
 * error), and written back as text. */
#ifndef SC_EXPR_H
#define SC_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "sc_ast.h"
#include "sc_lex.h"

/* An expression at the cursor; *out is its node. */
enum sc_status sc_expr_parse(struct sc_parse *p, int *out);
/* `require` conditions: comparisons joined by `and`, appended to the spec. */
enum sc_status sc_expr_parse_conds(struct sc_parse *p);
/* Highest dim index node mentions (-1: only the world and numbers). */
int sc_expr_last_dim(const struct sc_spec *s, int node);

/* Evaluates node with dim sizes and the world size; on error (division by
 * zero, inexact '/', overflow) returns SC_E_RUNTIME with a message. */
enum sc_status sc_expr_eval(const struct sc_spec *s, int node, const int64_t *sizes,
			    int64_t world, int64_t *out, struct sc_err *e);
/* *holds: whether the condition is true. */
enum sc_status sc_expr_cond(const struct sc_spec *s, const struct sc_cond *c, const int64_t *sizes,
			    int64_t world, int *holds, struct sc_err *e);
/* 1 true, 0 false or not evaluable. */
int sc_expr_cond_holds(const struct sc_spec *s, const struct sc_cond *c, const int64_t *sizes,
		       int64_t world);
/* Writes an expression as text. */
void sc_expr_format(const struct sc_spec *s, int node, char *buf, size_t n);

#endif
