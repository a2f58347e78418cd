/* sc_gen_fit: a proposed case made whole again (sc_gen_fit.c). */
#ifndef SC_GEN_FIT_H
#define SC_GEN_FIT_H

#include "sc_case.h"
#include "sc_target.h"

/* Makes a proposed case (a shrinking move) whole: counts matrices cut or
 * grown (with zeros) to the world, and the dims sizes= placements give
 * recomputed from them. */
void sc_gen_fit(struct sc_target *t, struct sc_case *c);
/* sc_gen_fit, a smaller world folding rank i into i mod P (clamp 0) or
 * into min(i, P-1) (clamp 1). */
void sc_gen_fit_fold(struct sc_target *t, struct sc_case *c, int clamp);

#endif
