/* sc_reference: a layout spec's `reference` block (docs/language.md,
 * "reference"): local steps on X on one device, whose result Y (X's dims,
 * possibly other sizes) is what the output placement places. Run as a
 * provenance run, Y holds for each element the index of the element of X
 * it is (or SC_PROV_PAD), so the checker compares outputs with Y. */
#ifndef SC_REFERENCE_H
#define SC_REFERENCE_H

#include "sc_interp.h"

/* Y's provenance for the case, a contiguous host tensor in a's memory
 * (until its next reset): X's global indices through the reference steps.
 * SC_E_RUNTIME when a step fails or Y's dims are not X's. */
enum sc_status sc_reference_run(struct sc_arena *a, const struct sc_spec *s, const int64_t *sizes, int world,
				const struct sc_countv *counts, struct sc_tensor *y, struct sc_err *e);
/* The sizes the output placement places Y with: Y's shape over the dims,
 * the case's sizes (parameters, mesh sizes) in the slots after them,
 * written into buf; buf. */
const int64_t *sc_reference_sizes(const struct sc_tensor *y, const int64_t *sizes, int64_t *buf);

#endif
