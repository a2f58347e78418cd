/* sc_gen_routes: top-k routes (`routes R[t] LO..HI topk=K`), each token
 * to K distinct experts: drawn at their edges, checked in a given case,
 * and whether a case's experts leave K to choose (docs/language.md,
 * "Top-k routing"). A token q's experts are entries q*K .. q*K+K-1. */
#ifndef SC_GEN_ROUTES_H
#define SC_GEN_ROUTES_H

#include <stdint.h>

#include "sc_choice.h"
#include "sc_target.h"

/* Routes of n tokens, K distinct experts each in lo..hi (hi - lo + 1 >= K),
 * into m: every token to the K lowest experts, one token to the K highest,
 * one token's drawn, or every token's drawn (a choice's order drawn too). */
void sc_gen_routes_draw(struct sc_choices *ch, int32_t *m, int n, int K, int64_t lo, int64_t hi);
/* 1 when some token of v (n tokens, K entries each) names an expert twice:
 * token *q's choices *i < *j. */
int sc_gen_routes_repeat(const int32_t *v, int n, int K, int *q, int *i, int *j);
/* 0 when a topk routes declaration of s0, at c's dims and parameters,
 * has fewer than K experts (a range that cannot be evaluated counts as
 * enough: drawing the routes says why). */
int sc_gen_routes_fit(const struct sc_spec *s0, const struct sc_case *c);

#endif
