/* semantics and compose: every rank's output equals the output placement
 * of X (for a chain: the first spec's input, the last spec's output).
 *
 * The data run compares the dtype's bits; a failure is explained by a
 * provenance run. Reduction pipelines carry small integers that can
 * collide, so they always get the provenance check as well. */
#include "sc_property.h"

#include <string.h>

static int applies_all(const struct sc_target *t);

static enum sc_verdict semantics(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
				 struct sc_failure *f)
{
	if (!applies_all(t))
		return SC_V_SKIP;
	sc_ctx_begin(ctx, 0, 0);
	enum sc_verdict v = sc_run_or_fail(ctx, t, c, NULL, f);
	if (v != SC_V_PASS)
		return v;
	struct sc_err e;
	int64_t wrong = sc_verify_output(t, c, &ctx->x, f, &e);
	if (wrong < 0) {
		ctx->err = e;
		return SC_V_ERROR;
	}
	if (!sc_any(ctx, c, wrong > 0) && sc_target_has_reduction(t, c)) {
		sc_ctx_begin(ctx, 1, 0);
		if ((v = sc_run_or_fail(ctx, t, c, NULL, f)) != SC_V_PASS)
			return v;
		wrong = sc_verify_output(t, c, &ctx->x, f, &e);
		if (wrong < 0) {
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
	const struct sc_spec *last = t->kind == SC_TGT_CHAIN ? t->chain[t->nchain - 1] : t->spec;
	return !(last && last->out.kind == SC_OPAQUE);
}

static int applies_chain(const struct sc_target *t)
{
	return t->kind == SC_TGT_CHAIN && t->nchain >= 2;
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
