/* sc_shrink: reduces a failing case to a minimal one.
 *
 * Order of minimality (docs/cli.md, "Shrinking"): smallest world, then fewest
 * dims (built-ins), then fewest elements, then smallest sizes left to
 * right, then the target's parameters (built-ins: dim indices, op), then
 * the simplest dtype, then seed 0. Greedy passes bring the case down fast;
 * then an exhaustive pass over every valid case no larger than the greedy
 * result (and over smaller worlds up to a bound) returns the first failing
 * case in that order, so no single move from the result still fails. Every
 * candidate is judged valid by the decoder (sc_gen_valid). */
#ifndef SC_SHRINK_H
#define SC_SHRINK_H

#include "sc_gen.h"

/* 1 when the case still fails the same property, 0 when it passes. */
typedef int (*sc_fails_fn)(void *ctx, const struct sc_case *c);

struct sc_shrink_stats {
	int steps;  /* accepted moves */
	long tries; /* cases run */
};

void sc_shrink(struct sc_target *t, const struct sc_gen_opts *o, struct sc_case *c,
	       sc_fails_fn fails, void *ctx, struct sc_shrink_stats *stats);

#endif
