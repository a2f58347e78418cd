/* differential: a candidate plugin transform gives the same output bits as
 * its baseline on the same inputs (--baseline). Needs no stated output
 * placement, so it gates refactors of kernels whose contract is opaque. A
 * run-time failure of both, with the same message, is the same behaviour. */
#include "sc_property.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int applies(const struct sc_target *t) { return t->baseline != NULL; }

/* Runs baseline (which=1) or candidate (0); outputs copied to *out. */
static enum sc_verdict run_one(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c, int which,
			       int prov, unsigned char **out, long *n, struct sc_failure *f)
{
	sc_ctx_begin(ctx, prov, 0);
	t->use_baseline = which;
	enum sc_verdict v = sc_run_or_fail(ctx, t, c, NULL, f);
	t->use_baseline = 0;
	*out = NULL;
	*n = 0;
	if (v != SC_V_PASS)
		return v;
	unsigned char *snap;
	size_t nbytes;
	if (sc_snapshot_outputs(ctx, &snap, &nbytes, &ctx->err) != SC_OK)
		return SC_V_ERROR;
	const long k = (long)nbytes;
	if (!(*out = malloc((size_t)k + 1)))
		return SC_V_ERROR;
	memcpy(*out, snap, (size_t)k);
	*n = k;
	return SC_V_PASS;
}

/* Walks the snapshots (per rank: ndim, shape, data) and records differences. */
static int64_t diff(const unsigned char *a, const unsigned char *b, long n, int first_rank, unsigned es,
		    struct sc_failure *f, int prov)
{
	int64_t wrong = 0;
	long k = 0;
	for (int r = first_rank; k < n; r++) {
		int64_t nd, shape[SC_MAX_DIMS];
		memcpy(&nd, a + k, 8);
		memcpy(shape, a + k + 8, 8 * (size_t)nd);
		k += 8 * (nd + 1);
		int64_t cnt = sc_shape_numel(shape, (int)nd);
		for (int64_t i = 0; i < cnt; i++) {
			uint64_t va = sc_load_bits(a + k + (size_t)i * es, es);
			uint64_t vb = sc_load_bits(b + k + (size_t)i * es, es);
			if (va == vb)
				continue;
			wrong++;
			if (f->nfirst < SC_MAX_FIRST) {
				struct sc_wrong *w = &f->first[f->nfirst++];
				memset(w, 0, sizeof *w);
				w->rank = r;
				w->ndim = (int)nd;
				int64_t rem = i;
				for (int d = (int)nd - 1; d >= 0; d--) {
					w->index[d] = rem % shape[d];
					rem /= shape[d];
				}
				w->expected_from = va;
				w->actual_from = vb;
				w->expected_bits = va;
				w->actual_bits = vb;
				w->have_prov = prov;
			}
		}
		k += (long)cnt * es;
	}
	return wrong;
}

static enum sc_verdict check(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
			     struct sc_failure *f)
{
	if (!applies(t))
		return SC_V_SKIP;
	struct sc_failure fb, fc;
	memset(&fb, 0, sizeof fb);
	memset(&fc, 0, sizeof fc);
	unsigned char *base = NULL, *cand = NULL;
	long nb = 0, nc = 0;
	enum sc_verdict vb = run_one(ctx, t, c, 1, 0, &base, &nb, &fb);
	enum sc_verdict vc = run_one(ctx, t, c, 0, 0, &cand, &nc, &fc);
	const int first = ctx->x.first;
	enum sc_verdict v = SC_V_PASS;
	if (vb == SC_V_ERROR || vc == SC_V_ERROR) {
		v = SC_V_ERROR;
	} else if (vb != vc || (vb == SC_V_FAIL && strcmp(fb.msg, fc.msg) != 0)) {
		snprintf(f->msg, sizeof f->msg, "the candidate %.220s; the baseline %.220s",
			 vc == SC_V_FAIL ? fc.msg : "runs", vb == SC_V_FAIL ? fb.msg : "runs");
		f->runtime_error = vc == SC_V_FAIL;
		f->wrong = 1;
		v = SC_V_FAIL;
	} else if (vb == SC_V_PASS) {
		int same_shapes = nb == nc;
		if (same_shapes) {
			/* headers (ndim, shape) must agree before the data can be compared */
			long k = 0;
			while (same_shapes && k < nb) {
				int64_t nd;
				memcpy(&nd, base + k, 8);
				same_shapes = memcmp(base + k, cand + k, 8 * (size_t)(nd + 1)) == 0;
				int64_t shape[SC_MAX_DIMS];
				memcpy(shape, base + k + 8, 8 * (size_t)nd);
				k += 8 * (nd + 1) + (long)sc_shape_numel(shape, (int)nd) * (long)sc_dtype_size(c->dtype);
			}
		}
		if (!same_shapes) {
			snprintf(f->msg, sizeof f->msg, "the candidate's outputs differ in shape from the baseline's");
			f->wrong = 1;
			v = SC_V_FAIL;
		} else {
			int64_t w = diff(base, cand, nb, first, (unsigned)sc_dtype_size(c->dtype), f, 0);
			if (w) {
				f->wrong = w;
				v = SC_V_FAIL;
				/* which element of X each side holds there */
				unsigned char *pb = NULL, *pc = NULL;
				long mb = 0, mc = 0;
				struct sc_failure pf, dummy;
				memset(&pf, 0, sizeof pf);
				memset(&dummy, 0, sizeof dummy);
				if (run_one(ctx, t, c, 1, 1, &pb, &mb, &dummy) == SC_V_PASS &&
				    run_one(ctx, t, c, 0, 1, &pc, &mc, &dummy) == SC_V_PASS && mb == mc &&
				    diff(pb, pc, mb, first, 8, &pf, 1) > 0) {
					for (int i = 0; i < pf.nfirst; i++) {
						pf.first[i].expected_bits = sc_verify_expected_bits(t, c, pf.first[i].expected_from);
						pf.first[i].actual_bits = SC_PROV_IS_INDEX(pf.first[i].actual_from)
										  ? sc_verify_expected_bits(t, c, pf.first[i].actual_from)
										  : 0;
					}
					memcpy(f->first, pf.first, sizeof pf.first);
					f->nfirst = pf.nfirst;
				}
				free(pb);
				free(pc);
			}
		}
	}
	free(base);
	free(cand);
	return v;
}

const struct sc_property sc_prop_differential = {
	.name = "differential",
	.doc = "a candidate plugin gives the baseline's output bits on the same inputs (--baseline)",
	.applies = applies,
	.check = check,
};
