/* sc_lex: the tokenizer and parse state every parser of the language
 * shares (declarations, expressions, placements, steps, compute
 * statements), and the small argument parsers steps use. Errors are
 * "file:line:col: message" with the column of the offending token. */
#ifndef SC_LEX_H
#define SC_LEX_H

#include <stdint.h>

#include "sc_ast.h"

/* SC_T_REAL: a number with a fraction or an exponent (`0.5`, `1e-5`),
 * allowed only where a compute constant is (sc_expr, p->real_ok). */
enum sc_tkind { SC_T_NAME, SC_T_NUM, SC_T_REAL, SC_T_OP, SC_T_END };

struct sc_tok {
	enum sc_tkind kind;
	char text[SC_NAME_MAX];
	int64_t num;
	double real; /* SC_T_REAL */
	int col;
	int space; /* whitespace just before it */
};

#define SC_LEX_MAX_TOKS 256

/* One line being parsed: its tokens (ending with SC_T_END) and a cursor. */
struct sc_parse {
	struct sc_spec *s;
	const char *path;
	int line;
	struct sc_tok t[SC_LEX_MAX_TOKS];
	int nt, pos;
	struct sc_err *e;
	/* expressions: a positional argument ends at a space outside
	 * brackets (arg_mode), depth counts open brackets; bound[v] is the
	 * name var v has in the construct being parsed (NULL: unbound); a sum's
	 * index hides any of them (Python's scope of a comprehension) */
	int arg_mode, depth;
	int real_ok; /* a compute constant: fractions, exponents and sqrt() allowed */
	const char *bound[SC_VAR_COUNT];
	const char *sums[SC_SUM_NEST]; /* the indices of the sums open around the cursor, outermost first */
	int nsums;
};

/* SC_E_SPEC with "path:line:col: message". */
enum sc_status sc_lex_err(struct sc_parse *p, int col, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* Splits line into tokens (names, integers, real numbers, operators);
 * '#' ends it. `1..4` is 1, '..', 4; `1.5`, `.5`, `1.`, `5e-1`, `2.5E+3`
 * are real numbers; `1e`, `1.5.2`, `2x` are malformed. */
enum sc_status sc_lex_tokenize(struct sc_parse *p, const char *line);
static inline struct sc_tok *sc_lex_peek(struct sc_parse *p) { return &p->t[p->pos]; }
int sc_lex_is_op(const struct sc_tok *t, const char *op);
/* An error unless the line has no more tokens. */
enum sc_status sc_lex_end(struct sc_parse *p);
/* The index of a mesh dim name, of a mesh size symbol; -1 when none. */
int sc_lex_mesh_dim(const struct sc_spec *s, const char *name);
int sc_lex_mesh_sym(const struct sc_spec *s, const char *name);
/* `dp` or `dp,tp` at the cursor: mesh dims of the spec's mesh, in the
 * order written. */
enum sc_status sc_lex_mesh_group(struct sc_parse *p, struct sc_mesh_group *g);
/* A signed integer literal (a dim index); what names it in errors. */
enum sc_status sc_lex_int(struct sc_parse *p, const char *what, int *out);
/* key=INT */
enum sc_status sc_lex_kv_int(struct sc_parse *p, const char *key, int *out);
/* sum, max, min or prod. */
enum sc_status sc_lex_redop(struct sc_parse *p, enum sc_redop *op);
/* Index of a dim name in the spec, or -1. */
int sc_lex_dim(const struct sc_spec *s, const char *name);

#endif
