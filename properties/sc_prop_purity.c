/* purity: the input is unchanged, every output element is written, nothing
 * is written outside any buffer.
 *
 * Buffers are poisoned (all bits set) when allocated and surrounded by
 * guard bytes. In the provenance run a poisoned element cannot be mistaken
 * for data (no global index is all ones), so "written" is exact there; the
 * data run repeats the input and guard checks at the case's element size. */
#include "sc_hd.h"
#include "sc_property.h"

#include <stdio.h>
#include <string.h>

static int applies(const struct sc_target *t)
{
	return !(t->spec && t->spec->compute); /* compute specs use their own buffers */
}

/* Input of rank r still holds what sc_verify_run put there. */
static int64_t input_changed(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
			     const struct sc_tensor *in, struct sc_failure *f)
{
	struct sc_exec *x = &ctx->x;
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(t, c, s, &ns, NULL) != SC_OK)
		return 0;
	/* a rank's values depend on its rank only as a partial input's summand */
	const int by_rank = sc_target_has_reduction(t, c) && s[0]->in.kind == SC_PARTIAL;
	int64_t bad = 0;
	struct sc_map m, right; /* right: the map of the last rank found unchanged (prev that rank) */
	int prev = -1;
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_mesh lcm;
		const struct sc_layout_ctx lc = sc_layout_ctx_case(s[0], &c->counts, c->sizes, c->world, &lcm);
		sc_layout_map_in(&s[0]->in, &lc, c->sizes, c->ndims, c->world, x->first + r, &m);
		/* a replicated input: the same bits as an unchanged rank's are unchanged */
		if (prev >= 0 && !by_rank && sc_layout_map_same(&m, &right) && sc_tensor_same_bytes(&in[r], &in[prev]))
			continue;
		int64_t first = 0;
		const int64_t changed = sc_verify_input_changed(t, c, x, r, &in[r], &first);
		if (changed && !bad)
			snprintf(f->msg, sizeof f->msg, "the input of rank %d was modified (element %lld of its local tensor)",
				 x->first + r, (long long)first);
		bad += changed;
		if (!changed) {
			prev = r;
			right = m;
		}
	}
	return bad;
}

static enum sc_verdict check(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
			     struct sc_failure *f)
{
	struct sc_tensor in[SC_MAX_WORLD];
	if (!applies(t))
		return SC_V_SKIP;
	/* a provenance run, then a data run, handed to the target together
	 * where it takes them so (one after the other either way) */
	const struct sc_case two[2] = {*c, *c};
	static const int provs[2] = {1, 0};
	for (int run = 0, from = 0, took = 0; run < 2; run++) {
		const int prov = provs[run];
		if (run == from + took) {
			sc_ctx_begin(ctx, prov, 1);
			from = run;
			took = sc_batch_run(ctx, t, &two[run], &provs[run], 2 - run);
		}
		enum sc_verdict v = sc_batch_take(ctx, run - from, f);
		if (v != SC_V_PASS)
			return v;
		const struct sc_tensor *kept = sc_batch_inputs(ctx, run - from);
		if (!kept) {
			snprintf(ctx->err.msg, sizeof ctx->err.msg, "out of memory for the inputs of a purity run");
			return SC_V_ERROR;
		}
		memcpy(in, kept, sizeof in[0] * (size_t)ctx->x.nlocal);
		int64_t bad = input_changed(ctx, t, c, in, f);
		int broken = bad ? 0 : sc_arena_guards_broken(&ctx->arena);
		if (bad) {
			f->wrong = bad;
		} else if (broken) {
			snprintf(f->msg, sizeof f->msg,
				 "%d buffer(s) had bytes written outside their bounds (guard bytes changed)",
				 broken);
			f->wrong = broken;
		}
		if (sc_any(ctx, c, f->wrong > 0))
			return f->wrong ? SC_V_FAIL : SC_V_PASS;
		if (!prov)
			break;
		struct sc_exec *x = &ctx->x;
		for (int r = 0; r < x->nlocal; r++) {
			struct sc_tensor *tt = &x->t[r];
			struct sc_iter it;
			sc_iter_init_runs(&it, tt->shape, tt->stride, tt->ndim, tt->offset);
			const int64_t n = sc_tensor_numel(tt);
			const uint64_t *base = (const uint64_t *)(const void *)sc_tensor_host(&ctx->arena, tt);
			for (int64_t k = 0; base && k < n;) {
				const int64_t len = sc_iter_run(&it), ts = sc_iter_step(&it);
				for (int64_t j = 0; j < len; j++) {
					if (base[it.off + j * ts] != SC_PROV_POISON)
						continue;
					if (!f->wrong) {
						int64_t at[SC_MAX_DIMS];
						char idx[160];
						sc_shape_unravel(tt->shape, tt->ndim, k + j, at);
						sc_shape_format(at, tt->ndim, idx, sizeof idx);
						snprintf(f->msg, sizeof f->msg,
							 "rank %d output element %s was never written",
							 x->first + r, idx);
					}
					f->wrong++;
				}
				k += len;
				sc_iter_skip(&it, len);
			}
		}
		if (sc_any(ctx, c, f->wrong > 0))
			return f->wrong ? SC_V_FAIL : SC_V_PASS;
	}
	return SC_V_PASS;
}

const struct sc_property sc_prop_purity = {
	.name = "purity",
	.doc = "input unchanged, every output element written, nothing written outside a buffer",
	.applies = applies,
	.check = check,
};
