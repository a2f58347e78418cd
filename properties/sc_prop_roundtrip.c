/* roundtrip: a transform followed by its inverse returns every rank's
 * input, bit for bit. Applies to chains that end in the placement they
 * start from, and to builtin:all_to_all (split i/concat j, then j/i). */
#include "sc_property.h"

#include <stdio.h>
#include <string.h>

static int applies(const struct sc_target *t)
{
	return sc_target_returns_to_input(t);
}

/* Runs forward and back; leaves the result in ctx->x, inputs in in[]. */
static enum sc_verdict there_and_back(struct sc_ctx *ctx, struct sc_target *t,
				      const struct sc_case *c, struct sc_tensor *in,
				      struct sc_failure *f)
{
	enum sc_verdict v = sc_run_or_fail(ctx, t, c, in, f);
	if (v != SC_V_PASS || !sc_target_has_run_inverse(t))
		return v;
	struct sc_err e;
	enum sc_status st = sc_target_run_inverse(t, c, &ctx->x, &e);
	if (st == SC_E_RUNTIME) {
		f->runtime_error = 1;
		snprintf(f->msg, sizeof f->msg, "inverse: %.480s", e.msg);
		return SC_V_FAIL;
	}
	if (st != SC_OK) {
		ctx->err = e;
		return SC_V_ERROR;
	}
	return SC_V_PASS;
}

static int64_t compare(struct sc_exec *x, const struct sc_tensor *in, struct sc_failure *f,
		       int record)
{
	int64_t wrong = 0;
	for (int r = 0; r < x->nlocal; r++) {
		const struct sc_tensor *a = &x->t[r], *b = &in[r];
		int same = a->ndim == b->ndim;
		for (int d = 0; same && d < a->ndim; d++)
			same = a->shape[d] == b->shape[d];
		if (!same) {
			char s1[160], s2[160];
			sc_shape_format(a->shape, a->ndim, s1, sizeof s1);
			sc_shape_format(b->shape, b->ndim, s2, sizeof s2);
			snprintf(f->msg, sizeof f->msg, "rank %d ends with shape %s, its input had %s",
				 x->first + r, s1, s2);
			return sc_tensor_numel(b) ? sc_tensor_numel(b) : 1;
		}
		struct sc_iter ia, ib;
		sc_iter_init(&ia, a->shape, a->stride, a->ndim, a->offset);
		sc_iter_init(&ib, b->shape, b->stride, b->ndim, b->offset);
		const unsigned es = a->buf->esize;
		const int64_t n = sc_tensor_numel(a);
		const unsigned char *ha = sc_tensor_host(x->arena, a), *hb = sc_tensor_host(x->arena, b);
		if (!ha || !hb) {
			snprintf(f->msg, sizeof f->msg, "could not read rank %d's tensors from the device", x->first + r);
			return n ? n : 1;
		}
		for (int64_t k = 0; k < n; k++) {
			uint64_t va = sc_load_bits(ha + (size_t)ia.off * es, es);
			uint64_t vb = sc_load_bits(hb + (size_t)ib.off * es, es);
			if (va != vb) {
				wrong++;
				if (record && f->nfirst < SC_MAX_FIRST) {
					struct sc_wrong *w = &f->first[f->nfirst++];
					memset(w, 0, sizeof *w);
					w->rank = x->first + r;
					w->ndim = a->ndim;
					memcpy(w->index, ia.idx, sizeof(int64_t) * (size_t)a->ndim);
					w->expected_from = vb;
					w->actual_from = va;
					w->expected_bits = vb;
					w->actual_bits = va;
					w->have_prov = x->prov;
				}
			}
			sc_iter_next(&ia);
			sc_iter_next(&ib);
		}
	}
	return wrong;
}

static enum sc_verdict check(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
			     struct sc_failure *f)
{
	if (!applies(t))
		return SC_V_SKIP;
	struct sc_tensor in[SC_MAX_WORLD];
	sc_ctx_begin(ctx, 0, 0);
	enum sc_verdict v = there_and_back(ctx, t, c, in, f);
	if (v != SC_V_PASS)
		return v;
	int64_t wrong = compare(&ctx->x, in, f, 0);
	if (!sc_any(ctx, c, wrong > 0))
		return SC_V_PASS;
	f->wrong = wrong;
	if (!sc_any(ctx, c, wrong > 0 && !f->msg[0]))
		return wrong > 0 ? SC_V_FAIL : SC_V_PASS;
	/* explain with global indices: rerun in provenance mode */
	struct sc_failure pf;
	memset(&pf, 0, sizeof pf);
	sc_ctx_begin(ctx, 1, 0);
	if (there_and_back(ctx, t, c, in, &pf) == SC_V_PASS && compare(&ctx->x, in, &pf, 1) > 0) {
		for (int i = 0; i < pf.nfirst; i++) {
			pf.first[i].expected_bits = sc_verify_expected_bits(t, c, pf.first[i].expected_from);
			pf.first[i].actual_bits = SC_PROV_IS_INDEX(pf.first[i].actual_from)
							  ? sc_verify_expected_bits(t, c, pf.first[i].actual_from)
							  : 0;
		}
		memcpy(f->first, pf.first, sizeof pf.first);
		f->nfirst = pf.nfirst;
	}
	return wrong > 0 ? SC_V_FAIL : SC_V_PASS;
}

const struct sc_property sc_prop_roundtrip = {
	.name = "roundtrip",
	.doc = "a transform followed by its inverse returns every rank's input, bit for bit",
	.applies = applies,
	.check = check,
};
