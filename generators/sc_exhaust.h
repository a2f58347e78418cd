/* sc_exhaust: every case of a target within bounds, in the shrinking order.
 *
 * The order is the shrinker's order of minimality: smallest world (each of
 * --world, ascending), then fewest dims (built-ins), then fewest elements,
 * then mesh sizes and dim sizes left to right, then the drawn counts
 * (declaration by declaration: fewer entries, then entries left to right,
 * each from its smallest; at most 1,000,000 in a walk), then the target's
 * parameters, then one dtype per element width (the simplest of each, in
 * dtype order), seed 0. The first failing case of a walk is therefore the
 * minimal one, and a walk with no failure is a statement about every case
 * it visited. Validity is the decoder's (sc_gen_valid): divisibility,
 * requires, `sizes` ranges, --max-elems, --dtypes. */
#ifndef SC_EXHAUST_H
#define SC_EXHAUST_H

#include "sc_gen.h"

#define SC_EXHAUST_DEFAULT_MAX_DIM 8

/* Called for each case in order; nonzero stops the walk. */
typedef int (*sc_exhaust_fn)(void *ctx, const struct sc_case *c);

/* Walks every valid case of t with each dim in 1..max_dim (0: the
 * default), calling fn (NULL: only counts). *visited: the cases passed to
 * fn (or counted). SC_E_USAGE with the reason when t's cases cannot be
 * enumerated (drawn counts with too many values, too many size tuples). */
enum sc_status sc_exhaust_walk(struct sc_target *t, const struct sc_gen_opts *o, int max_dim, sc_exhaust_fn fn,
			       void *ctx, long *visited, struct sc_err *e);

/* The drawn counts of case c's sizes, world and parameters (its dtype,
 * seed and target parameters kept) in the walk's order (before: only
 * those before c's own), each valid one passed to fn until fn returns
 * nonzero (then 1); at most max of them. The shrinker's: the first
 * failing one is the smallest at those sizes, as --exhaustive finds it. */
int sc_exhaust_counts(struct sc_target *t, const struct sc_gen_opts *o, const struct sc_case *c, int before,
		      sc_exhaust_fn fn, void *ctx, long max);

/* A tuple of sizes and their product. */
struct sc_exhaust_tuple {
	int64_t prod;
	int64_t v[SC_MAX_DIMS]; /* unused trailing entries 0 */
};

/* Every tuple of nd sizes in 1..bound with product <= maxprod into buf
 * (up to max of them), sorted by (product, sizes left to right): the
 * shrinking order of sizes. Their number. */
long sc_exhaust_tuples(int nd, int64_t bound, int64_t maxprod, struct sc_exhaust_tuple *buf, long max);

/* The dtypes a walk visits under o, as "i32,i64,i8,f16". */
const char *sc_exhaust_dtypes_text(const struct sc_gen_opts *o, char *buf, size_t n);

#endif
