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
	const int red = sc_target_has_reduction(t, c);
	int64_t bad = 0;
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_map m;
		struct sc_mesh lcm;
		const struct sc_layout_ctx lc = sc_layout_ctx_case(s[0], &c->counts, c->sizes, c->world, &lcm);
		sc_layout_map_in(&s[0]->in, &lc, c->sizes, c->ndims, c->world, x->first + r, &m);
		/* a partial input's summand: the rank's index in the partial group */
		const int prank = s[0]->in.nent ? sc_mesh_group_index(&lcm, &s[0]->in.partial, x->first + r) : x->first + r;
		struct sc_iter mi;
		sc_iter_init(&mi, m.shape, m.stride, m.ndim, m.offset);
		const unsigned es = in[r].buf->esize;
		const int64_t n = sc_tensor_numel(&in[r]);
		const unsigned char *base = sc_tensor_host(x->arena, &in[r]);
		if (!base)
			return n ? n : 1;
		const uint64_t key = sc_hd_value_key(c->seed);
		const unsigned w = 8 * sc_dtype_size(c->dtype);
		for (int64_t k = 0; k < n; k++) {
			uint64_t g = (uint64_t)mi.off, want;
			if (x->prov)
				want = g;
			else if (!red)
				want = sc_hd_value_bits_key(w, key, g);
			else if (s[0]->in.kind == SC_PARTIAL)
				want = sc_int_to_bits(c->dtype, sc_small_int(c->dtype, s[0]->in.op, c->seed, prank, g));
			else
				want = sc_int_to_bits(c->dtype, sc_small_int(c->dtype, SC_MAX, c->seed, -1, g));
			if (sc_load_bits(base + (size_t)k * es, es) != want) {
				if (!bad)
					snprintf(f->msg, sizeof f->msg,
						 "the input of rank %d was modified (element %lld of its local tensor)",
						 x->first + r, (long long)k);
				bad++;
			}
			sc_iter_next(&mi);
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
	for (int prov = 1; prov >= 0; prov--) {
		sc_ctx_begin(ctx, prov, 1);
		enum sc_verdict v = sc_run_or_fail(ctx, t, c, in, f);
		if (v != SC_V_PASS)
			return v;
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
			sc_iter_init(&it, tt->shape, tt->stride, tt->ndim, tt->offset);
			const int64_t n = sc_tensor_numel(tt);
			const unsigned char *base = sc_tensor_host(&ctx->arena, tt);
			for (int64_t k = 0; base && k < n; k++) {
				uint64_t v64 = sc_load_bits(base + (size_t)it.off * 8, 8);
				if (v64 == SC_PROV_POISON) {
					if (!f->wrong) {
						char idx[160];
						sc_shape_format(it.idx, tt->ndim, idx, sizeof idx);
						snprintf(f->msg, sizeof f->msg,
							 "rank %d output element %s was never written",
							 x->first + r, idx);
					}
					f->wrong++;
				}
				sc_iter_next(&it);
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
