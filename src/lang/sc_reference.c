/* sc_reference: the reference block run once per check, on the host. */
#include "sc_reference.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sc_interp.h"
#include "sc_step.h"

enum sc_status sc_reference_run(struct sc_arena *a, const struct sc_spec *s, const int64_t *sizes, int world,
				const struct sc_countv *counts, struct sc_tensor *y, struct sc_err *e)
{
	struct sc_exec *x = NULL;
	SC_CHECK(sc_interp_scratch(SC_SCRATCH_REFERENCE, &x, e));
	memset(x, 0, offsetof(struct sc_exec, t));
	x->arena = a;
	x->world = world;
	x->first = 0;
	x->nlocal = 1;
	x->prov = 1;
	x->ref = 1;
	x->counts = counts;
	x->pads = s->pads;
	const int use_dm = a->use_dm; /* the reference lives on the host */
	a->use_dm = 0;
	enum sc_status rc = sc_tensor_empty(a, sizes, s->ndims, 8, &x->t[0], e);
	if (rc == SC_OK) { /* X: each element its global index */
		uint64_t *g = (uint64_t *)(void *)x->t[0].buf->data;
		const int64_t n = sc_tensor_numel(&x->t[0]);
		for (int64_t i = 0; i < n; i++)
			g[i] = (uint64_t)i;
	}
	x->cur = 0; /* X, name 0 of the block's own names */
	x->slots = NULL;
	if (rc == SC_OK && s->nrtnames > 0 && !(x->slots = calloc((size_t)s->nrtnames, sizeof *x->slots)))
		rc = SC_ERR(e, SC_E_NOMEM, "out of memory");
	if (rc == SC_OK)
		rc = sc_exec_steps(x, s, s->rsteps, s->nrsteps, sizes, e);
	free(x->slots); /* Y: the current tensor, the last named */
	x->slots = NULL;
	if (rc == SC_OK && x->t[0].ndim != s->ndims) {
		char b[160];
		sc_shape_format(x->t[0].shape, x->t[0].ndim, b, sizeof b);
		rc = SC_ERR(e, SC_E_RUNTIME, "the reference gives Y of shape %s: it must keep X's %d dims", b, s->ndims);
	}
	if (rc == SC_OK)
		rc = sc_interp_contiguous(x, &x->t[0], e);
	a->use_dm = use_dm;
	if (rc == SC_OK)
		*y = x->t[0];
	return rc;
}

const int64_t *sc_reference_sizes(const struct sc_tensor *y, const int64_t *sizes, int64_t *buf)
{
	memcpy(buf, sizes, sizeof(int64_t) * SC_MAX_DIMS);
	memcpy(buf, y->shape, sizeof(int64_t) * (size_t)y->ndim);
	return buf;
}
