/* reduce-consistency: the backend's collectives agree with each other on
 * the case's shape and dtype: all_gather(reduce_scatter(T)) == all_reduce(T)
 * and all_to_all twice is the identity. Applies to the built-ins, whose
 * correctness rests on these collectives. */
#include "sc_hd_dtype.h"
#include "sc_property.h"

#include <stdio.h>
#include <string.h>

static int applies(const struct sc_target *t) { return sc_target_is_collective(t); }

static enum sc_verdict check(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
			     struct sc_failure *f)
{
	if (!applies(t))
		return SC_V_SKIP;
	sc_ctx_begin(ctx, 0, 0);
	struct sc_backend *be = ctx->be;
	int first;
	const int P = c->world, nl = be->ops->local_ranks(be, P, &first);
	const enum sc_dtype dt = c->dtype;
	const unsigned es = (unsigned)sc_dtype_size(dt);
	/* the case's op when the collective reduces, else sum */
	enum sc_redop op = SC_SUM;
	struct sc_case_param pa[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(t, c, pa);
	for (int i = 0; i < np; i++)
		if (pa[i].kind == SC_PARAM_OP)
			op = (enum sc_redop)pa[i].value;
	int64_t n = 1;
	for (int d = 0; d < c->ndims; d++)
		n *= c->sizes[d];
	n = (n + P - 1) / P * P; /* P equal chunks */
	void *in[SC_MAX_WORLD], *rs[SC_MAX_WORLD], *ag[SC_MAX_WORLD], *ar[SC_MAX_WORLD],
		*a1[SC_MAX_WORLD], *a2[SC_MAX_WORLD];
	for (int r = 0; r < nl; r++) {
		struct sc_buf *b[6];
		const int64_t len[6] = {n, n / P, n, n, n, n};
		for (int k = 0; k < 6; k++)
			if (!(b[k] = sc_arena_buf(&ctx->arena, len[k], es))) {
				SC_ERR(&ctx->err, SC_E_NOMEM, "out of memory");
				return SC_V_ERROR;
			}
		in[r] = b[0]->data; rs[r] = b[1]->data; ag[r] = b[2]->data;
		ar[r] = b[3]->data; a1[r] = b[4]->data; a2[r] = b[5]->data;
		struct sc_hd_small sm;
		sc_hd_small_init(&sm, (int)dt, (int)op, c->seed, first + r);
		for (int64_t i = 0; i < n; i++)
			sc_store_bits(b[0]->data + (size_t)i * es, es, sc_hd_small_bits(&sm, (uint64_t)i));
	}
	struct sc_err e;
	if (be->ops->reduce_scatter(be, P, in, rs, (size_t)(n / P), dt, op, &e) != SC_OK ||
	    be->ops->all_gather(be, P, rs, ag, (size_t)(n / P) * es, &e) != SC_OK ||
	    be->ops->all_reduce(be, P, in, ar, (size_t)n, dt, op, &e) != SC_OK ||
	    be->ops->all_to_all(be, P, in, a1, (size_t)(n / P) * es, &e) != SC_OK ||
	    be->ops->all_to_all(be, P, a1, a2, (size_t)(n / P) * es, &e) != SC_OK) {
		ctx->err = e;
		return SC_V_ERROR;
	}
	for (int r = 0; r < nl; r++) {
		if (memcmp(ag[r], ar[r], (size_t)n * es) != 0) {
			snprintf(f->msg, sizeof f->msg,
				 "rank %d: all_gather(reduce_scatter(T, %s)) differs from all_reduce(T, %s)",
				 first + r, sc_redop_name(op), sc_redop_name(op));
			f->wrong = 1;
			return SC_V_FAIL;
		}
		if (memcmp(a2[r], in[r], (size_t)n * es) != 0) {
			snprintf(f->msg, sizeof f->msg, "rank %d: all_to_all applied twice is not the identity",
				 first + r);
			f->wrong = 1;
			return SC_V_FAIL;
		}
	}
	return SC_V_PASS;
}

const struct sc_property sc_prop_reduce_consistency = {
	.name = "reduce-consistency",
	.doc = "all_gather(reduce_scatter(T)) == all_reduce(T); all_to_all twice is the identity",
	.applies = applies,
	.check = check,
};
