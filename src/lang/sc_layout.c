/* sc_layout: placements as index maps over X's row-major index. */
#include "sc_layout.h"

#include "sc_tensor.h"

void sc_layout_map(const struct sc_layout *l, const int64_t *xsizes, int ndims, int world,
		   int rank, struct sc_map *m)
{
	int64_t xs[SC_MAX_DIMS];
	sc_contig_strides(xsizes, ndims, xs);
	m->ndim = l->norder;
	m->offset = 0;
	for (int k = 0; k < l->norder; k++) {
		int d = l->order[k];
		m->shape[k] = xsizes[d];
		m->stride[k] = xs[d];
		if (l->kind == SC_SHARD && d == l->shard_dim) {
			m->shape[k] = xsizes[d] / world;
			m->offset += (int64_t)rank * m->shape[k] * xs[d];
		}
	}
	int pos = 0;
	m->lndim = l->ngroups;
	for (int g = 0; g < l->ngroups; g++) {
		int64_t p = 1;
		for (int k = 0; k < l->group_len[g]; k++)
			p *= m->shape[pos + k];
		m->lshape[g] = p;
		pos += l->group_len[g];
	}
}
