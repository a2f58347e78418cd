/* sc_layout: a placement of the global tensor X over the ranks, as an
 * index map (docs/language.md, "Placements").
 *
 * Invariant: iterating a rank's map row-major enumerates, in the order of
 * the rank's local tensor, the global (row-major) index of X each local
 * element must hold; filling and checking are one walk over both. */
#ifndef SC_LAYOUT_H
#define SC_LAYOUT_H

#include <stdint.h>

#include "sc_spec.h"

/* A placement as an index map over X's row-major linear index: iterating
 * shape[]/stride[] row-major from offset yields, for each element of a
 * rank's local tensor in order, the global index it must hold. */
struct sc_map {
	int ndim;
	int64_t shape[SC_MAX_DIMS];
	int64_t stride[SC_MAX_DIMS];
	int64_t offset;
	int lndim; /* the local tensor's shape (groups merged) */
	int64_t lshape[SC_MAX_DIMS];
};
void sc_layout_map(const struct sc_layout *l, const int64_t *xsizes, int ndims, int world,
		   int rank, struct sc_map *m);

#endif
