/* sc_expr: size expressions and conditions (docs/language.md, "Size
 * expressions"): parsed into the spec's node pool with Python's grammar
 * and precedence (`A if C else B`, or, and, not, comparisons, + -,
 * * / // %, unary -), evaluated with checked arithmetic (exact '/', floor
 * '//' and '%' as in Python, every overflow an error), and written back as
 * text.
 *
 * Some values exist only on a rank: `rank`, `size(i)` (the rank's current
 * local tensor) and the names a construct binds (src, dst, k, r). They are
 * read from an environment; where it has none (a `require`, a size range)
 * using one is an error the parser reports. */
#ifndef SC_EXPR_H
#define SC_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "sc_ast.h"
#include "sc_lex.h"

/* What an evaluation knows. */
struct sc_expr_env {
	const int64_t *sizes; /* the dims */
	int64_t world;
	int64_t rank;           /* -1: no rank here */
	const int64_t *shape;   /* the rank's local tensor; NULL: none */
	int ndim;
	uint32_t bound;         /* bit v: var[v] holds a value */
	int64_t var[SC_VAR_COUNT];
	const struct sc_countv *counts; /* the case's drawn counts; NULL: none here */
	const int64_t *counts_sizes;    /* the dims the counts were drawn at, when sizes are another
					 * tensor's (a reference's result); NULL: sizes */
	int nloops;                     /* the `for` loops running: loop[0..nloops) their indices, outermost first */
	int64_t loop[SC_LOOP_NEST];
	int nsums;                      /* the sums being summed: sum[0..nsums) their indices' values */
	int64_t sum[SC_SUM_NEST];
	int64_t *terms;                 /* terms the outermost sum and those inside it summed so far */
};

/* The environment of a global evaluation: dims and the world only. */
static inline struct sc_expr_env sc_expr_env_global(const int64_t *sizes, int64_t world)
{
	struct sc_expr_env v = {.sizes = sizes, .world = world, .rank = -1};
	return v;
}

/* A number-valued expression at the cursor; *out is its node. In a step's
 * positional argument (p->arg_mode) it ends at a space outside brackets. */
enum sc_status sc_expr_parse(struct sc_parse *p, int *out);
/* A step's positional argument: an expression that ends at a space outside
 * brackets; an operator after such a space is an error that says so. */
enum sc_status sc_expr_parse_arg(struct sc_parse *p, int *out);
/* A number or a condition at the cursor; sc_expr_is_cond tells which. */
enum sc_status sc_expr_parse_any(struct sc_parse *p, int *out);
int sc_expr_is_cond(const struct sc_spec *s, int node);
/* [e, e, ...] at the cursor (on '['): up to max expressions into nodes,
 * *n of them (what names them in errors: "dims", "pieces"). */
enum sc_status sc_expr_parse_list(struct sc_parse *p, int *nodes, int max, int *n, const char *what);
/* A condition at the cursor (comparisons joined by and, or, not). */
enum sc_status sc_expr_parse_cond(struct sc_parse *p, int *out);
/* `... when COND` at the end of the line's tokens: *node its condition
 * and *col the column of `when`, the tokens cut before it (the cursor
 * kept); *node -1 and *col 0 when the line has none. */
enum sc_status sc_expr_take_when(struct sc_parse *p, int *node, int *col);
/* `require` conditions to the end of the line, appended to the spec, one
 * per top-level `and`. */
enum sc_status sc_expr_parse_conds(struct sc_parse *p);
/* Highest dim index node mentions (-1: only the world and numbers). */
int sc_expr_last_dim(const struct sc_spec *s, int node);
/* The first node under node (itself included) of one of the kinds; -1. */
int sc_expr_find(const struct sc_spec *s, int node, uint64_t kinds);
/* Kinds that only a rank can evaluate. */
#define SC_EXPR_PER_RANK ((1u << SC_EX_RANK) | (1u << SC_EX_VAR) | (1u << SC_EX_SIZE) | (1u << SC_EX_COORD))
/* Kinds that read the drawn counts (known once the dims are drawn). */
#define SC_EXPR_COUNTS                                                                                                 \
	(((uint64_t)1 << SC_EX_COUNT) | ((uint64_t)1 << SC_EX_ROWSUM) | ((uint64_t)1 << SC_EX_COLSUM) |                      \
	 ((uint64_t)1 << SC_EX_COUNTLEN) | ((uint64_t)1 << SC_EX_ROUTED))

/* Evaluates node (a condition gives 1 or 0); on error (division by zero,
 * inexact '/', overflow, a value the environment lacks) returns
 * SC_E_RUNTIME with a message. */
enum sc_status sc_expr_eval_in(const struct sc_spec *s, int node, const struct sc_expr_env *env,
			       int64_t *out, struct sc_err *e);
/* A compute constant (parsed with p->real_ok: real numbers and sqrt()
 * allowed): the same tree in double, '/' a real division, // and % floor
 * as in Python; division by zero, sqrt of a negative and a value that is
 * not finite are SC_E_RUNTIME. */
enum sc_status sc_expr_eval_real(const struct sc_spec *s, int node, const struct sc_expr_env *env, double *out,
				 struct sc_err *e);
/* sc_expr_eval_in with dims and the world only. */
enum sc_status sc_expr_eval(const struct sc_spec *s, int node, const int64_t *sizes,
			    int64_t world, int64_t *out, struct sc_err *e);
/* *holds: whether the condition is true. */
enum sc_status sc_expr_cond(const struct sc_spec *s, const struct sc_cond *c, const int64_t *sizes,
			    int64_t world, int *holds, struct sc_err *e);
/* 1 true, 0 false or not evaluable. */
int sc_expr_cond_holds(const struct sc_spec *s, const struct sc_cond *c, const int64_t *sizes,
		       int64_t world);
/* Writes an expression as text (Python's syntax, parentheses only where
 * precedence needs them). */
void sc_expr_format(const struct sc_spec *s, int node, char *buf, size_t n);

#endif
