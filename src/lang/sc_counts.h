/* sc_counts: the counts a case draws (docs/language.md, "Declarations" and
 * "Micro-batches"): `counts NAME LO..HI [group=G]`, a P x P matrix per
 * case (MoE routing), and `microbatches NAME[g] n LO..HI`, a vector of g
 * entries whose sum is dim n's size (the rows each micro-batch holds),
 * and `sequences NAME[A..B] n LO..HI [multiple=E]`, a vector of A..B
 * entries (its length drawn with it) whose sum is dim n's size (the
 * tokens of each sequence packed into n), and `routes NAME[t] LO..HI`,
 * the expert each token of dim t is routed to.
 * Declarations here; drawing and shrinking in generators/, reading an
 * entry in sc_expr. */
#ifndef SC_COUNTS_H
#define SC_COUNTS_H

#include "sc_ast.h"
#include "sc_lex.h"

/* `counts NAME LO..HI [group=G]` (cursor after the keyword). */
enum sc_status sc_counts_parse_matrix(struct sc_parse *p, const struct sc_tok *kw);
/* `microbatches NAME[g] n LO..HI` (cursor after the keyword). */
enum sc_status sc_counts_parse_micro(struct sc_parse *p, const struct sc_tok *kw);
/* `routes NAME[t] LO..HI` (cursor after the keyword). */
enum sc_status sc_counts_parse_route(struct sc_parse *p, const struct sc_tok *kw);
/* `sequences NAME[A..B] n LO..HI [multiple=E]` (cursor after the keyword). */
enum sc_status sc_counts_parse_seq(struct sc_parse *p, const struct sc_tok *kw);
/* After the last line: node x (NAME(i, j), NAME(k), rowsum, colsum, len) to
 * its declaration, with its arity checked. */
enum sc_status sc_counts_resolve(struct sc_parse *p, struct sc_expr *x);
/* After the last line: a micro-batched dim takes no size range and is not
 * sharded; the declaration belongs to a compute spec. */
enum sc_status sc_counts_check(struct sc_parse *p, const int *sizes_line);

/* A sequences declaration's bounds in a case: how many (n_lo..n_hi, at
 * most SC_COUNTS_MAX_LEN), each entry's multiple, and the entry range
 * lo..hi (given, from LO..HI) narrowed to its multiples. 0 with why when
 * they cannot be evaluated or leave nothing. */
struct sc_counts_seq {
	int64_t n_lo, n_hi, mult, lo, hi;
};
int sc_counts_seq_bounds(const struct sc_spec *s, int k, const int64_t *sizes, int world, int64_t lo, int64_t hi,
			 struct sc_counts_seq *out, char *why, size_t n);
/* Declaration k's multiple= in a case (1 when it has none or it cannot be
 * evaluated). */
int64_t sc_counts_multiple(const struct sc_spec *s, int k, const int64_t *sizes, int world);

/* The sums vectors give: sizes[sum_dim] = the sum of its entries, for
 * each vector of the case's counts. */
void sc_counts_derive(const struct sc_spec *s, const struct sc_countv *c, int64_t *sizes);
/* Micro-batch k's first row within the split dim, and its rows (vector
 * declaration m). */
void sc_counts_span(const struct sc_countv *c, int m, int k, int64_t *first, int64_t *rows);

#endif
