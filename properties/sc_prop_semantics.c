/* semantics and compose: every rank's output equals the output placement
 * of X (for a chain: the first spec's input, the last spec's output).
 *
 * The data run compares the dtype's bits; a failure is explained by a
 * provenance run. Reduction pipelines carry small integers that can
 * collide, so they always get the provenance check as well. */
#include "sc_property.h"

#include <stdio.h>
#include <string.h>

#include "sc_compute.h"

static int applies_all(const struct sc_target *t);

/* Compute specs: the program's output against the f64 reference, element
 * by element within the derived bound. */
static enum sc_verdict compute_semantics(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
					 struct sc_failure *f)
{
	const struct sc_spec *s = t->spec;
	struct sc_err e;
	struct sc_cenv penv, renv;
	sc_ctx_begin(ctx, 0, 0);
	struct sc_exec *x = &ctx->x;
	x->world = c->world;
	x->dtype = c->dtype;
	x->nlocal = x->be->ops->local_ranks(x->be, c->world, &x->first);
	const struct sc_compute_case cc = {c->world, c->sizes, c->dtype, c->seed, c->counts.P ? &c->counts : NULL};
	enum sc_status st = sc_compute_run(s, &cc, x, 0, &penv, &e);
	if (st == SC_E_RUNTIME) {
		f->runtime_error = 1;
		snprintf(f->msg, sizeof f->msg, "%s", e.msg);
		return SC_V_FAIL;
	}
	struct sc_exec *rx = &ctx->rx;
	rx->world = 1;
	rx->first = 0;
	rx->nlocal = 1;
	rx->dtype = SC_F64;
	rx->prov = 0;
	if (st == SC_OK)
		st = sc_compute_run(s, &cc, rx, 1, &renv, &e);
	if (st != SC_OK) {
		ctx->err = e;
		return SC_V_ERROR;
	}
	struct sc_compute_worst w;
	int64_t over = 0;
	if ((st = sc_compute_compare(s, &cc, x, &penv, &renv, &w, &over, &e)) != SC_OK) {
		if (e.status == SC_E_RUNTIME) {
			f->runtime_error = 1;
			snprintf(f->msg, sizeof f->msg, "%s", e.msg);
			return SC_V_FAIL;
		}
		ctx->err = e;
		return SC_V_ERROR;
	}
	f->has_worst = w.compared > 0;
	f->worst_rank = w.rank;
	f->worst_ndim = w.ndim;
	memcpy(f->worst_index, w.index, sizeof w.index);
	f->worst_value = w.value;
	f->worst_reference = w.reference;
	f->worst_error = w.error;
	f->worst_bound = w.bound;
	f->worst_ratio = w.ratio;
	f->compared = w.compared;
	f->wrong = over; /* the message is written once failures of all ranks are merged */
	return over ? SC_V_FAIL : SC_V_PASS;
}

static enum sc_verdict semantics(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
				 struct sc_failure *f)
{
	if (!applies_all(t))
		return SC_V_SKIP;
	if (t->spec && t->spec->compute)
		return compute_semantics(ctx, t, c, f);
	sc_ctx_begin(ctx, 0, 0);
	enum sc_verdict v = sc_run_or_fail(ctx, t, c, NULL, f);
	if (v != SC_V_PASS)
		return v;
	struct sc_err e;
	int64_t wrong = 0;
	if (sc_verify_output(t, c, &ctx->x, f, &wrong, &e) != SC_OK) {
		ctx->err = e;
		return SC_V_ERROR;
	}
	/* a reduction's values are small integers that can collide: a
	 * provenance run then says where each element came from. Not for a
	 * plugin: its reductions add the provenance ids (the interpreter
	 * merges them), so only the data run speaks for it */
	if (!sc_any(ctx, c, wrong > 0) && sc_target_has_reduction(t, c) && !t->plugin) {
		sc_ctx_begin(ctx, 1, 0);
		if ((v = sc_run_or_fail(ctx, t, c, NULL, f)) != SC_V_PASS)
			return v;
		if (sc_verify_output(t, c, &ctx->x, f, &wrong, &e) != SC_OK) {
			ctx->err = e;
			return SC_V_ERROR;
		}
	}
	if (!sc_any(ctx, c, wrong > 0))
		return SC_V_PASS;
	if (sc_any(ctx, c, wrong > 0 && !f->msg[0] && !(f->nfirst && f->first[0].have_prov)))
		sc_explain(ctx, t, c, f);
	return wrong > 0 ? SC_V_FAIL : SC_V_PASS;
}

/* Not for an output known only by its shape (`output shape [..]`). */
static int applies_all(const struct sc_target *t)
{
	const struct sc_spec *last = sc_target_fixed_spec(t, 1);
	return !(last && last->out.kind == SC_OPAQUE);
}

static int applies_chain(const struct sc_target *t)
{
	return t->nchain >= 2; /* a chain */
}

static enum sc_verdict compose(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
			       struct sc_failure *f)
{
	if (!applies_chain(t))
		return SC_V_SKIP;
	return semantics(ctx, t, c, f);
}

const struct sc_property sc_prop_semantics = {
	.name = "semantics",
	.doc = "every rank's output equals the output placement of X, bit for bit",
	.applies = applies_all,
	.check = semantics,
};

const struct sc_property sc_prop_compose = {
	.name = "compose",
	.doc = "a chain matches the first spec's input and the last spec's output placement",
	.applies = applies_chain,
	.check = compose,
};
