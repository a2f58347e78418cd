/* sc_gen_fit: a proposed case (a shrinking move, a walk's step) made
 * whole again: the world the mesh's product, counts matrices cut or grown
 * to the world, vectors to their length, and the dims that sizes=
 * placements give recomputed from them. */
#include "sc_gen_fit.h"

#include <stdint.h>
#include <string.h>

#include "sc_counts.h"
#include "sc_expr.h"
#include "sc_gen.h"
#include "sc_layout.h"

void sc_gen_fit(struct sc_target *t, struct sc_case *c) { sc_gen_fit_fold(t, c, 0); }

/* A vector's entries to its length: fewer micro-batches or sequences fold
 * the rows of the dropped ones into the last one kept (the dim they split
 * keeps its size), fewer tokens drop their routes; more start at 0,
 * outside most ranges, so that growing is not a shrinking move; a
 * sequences vector longer than its length's range at this case's world
 * (L[P..P] at a smaller world) is cut to it, folded the same way. A
 * sequences vector's entries down to the multiple its multiple= asks of
 * this case (a smaller world asks for another). The dim they split to
 * their sum. */
static void fit_vectors(const struct sc_spec *s0, struct sc_case *c)
{
	for (int mb = 0; mb < s0->ncounts; mb++) {
		if (!sc_spec_counts_vec(s0, mb))
			continue;
		int64_t most; /* sequences: no more than this world allows (L[P..P] at a smaller world) */
		if (s0->counts[mb].seq && sc_expr_eval(s0, s0->counts[mb].seq_hi, c->sizes, c->world, &most, NULL) == SC_OK &&
		    most >= 0 && c->counts.len[mb] > most)
			c->counts.len[mb] = (int)most;
		const int len = sc_spec_counts_len(s0, mb, c->sizes, &c->counts);
		int32_t *v = c->counts.v[mb];
		for (int i = len; i < SC_COUNTS_MAX_LEN; i++) {
			if (len > 0 && !s0->counts[mb].route) /* a dropped token's route goes with it */
				v[len - 1] = v[i] > INT32_MAX - v[len - 1] ? INT32_MAX : v[len - 1] + v[i];
			v[i] = 0;
		}
		const int64_t mult = sc_counts_multiple(s0, mb, c->sizes, c->world);
		for (int i = 0; mult > 1 && i < len; i++)
			v[i] -= (int32_t)(v[i] % mult);
	}
	sc_counts_derive(s0, &c->counts, c->sizes);
}

void sc_gen_fit_fold(struct sc_target *t, struct sc_case *c, int clamp)
{
	const struct sc_spec *sp[SC_MAX_CHAIN];
	int ns;
	const struct sc_spec *ms = sc_gen_mesh_spec(t);
	if (ms) { /* the world is the mesh's product */
		const struct sc_mesh m = sc_spec_mesh(ms, c->sizes, 0);
		c->world = sc_mesh_world(&m);
	}
	if (sc_target_specs(t, c, sp, &ns, NULL) != SC_OK || !sp[0]->ncounts ||
	    sc_spec_counts_P(sp[0], c->sizes, c->world) > SC_COUNTS_MAX_P)
		return;
	const struct sc_spec *s0 = sp[0];
	const int P = sc_spec_counts_P(s0, c->sizes, c->world), old = c->counts.P;
	if (old != P) {
		struct sc_countv v;
		memset(&v, 0, sizeof v);
		v.P = P;
		/* a smaller world folds rank i into i mod P (the traffic stays,
		 * between fewer ranks); a larger one adds ranks that route nothing */
		for (int k = 0; k < s0->ncounts; k++)
			for (int i = 0; i < old && !sc_spec_counts_vec(s0, k); i++)
				for (int j = 0; j < old; j++) {
					const int fi = clamp ? (i < P ? i : P - 1) : i % P, fj = clamp ? (j < P ? j : P - 1) : j % P;
					int32_t *to = &v.v[k][fi * P + fj];
					const int64_t sum = (int64_t)*to + c->counts.v[k][i * old + j];
					*to = sum > INT32_MAX ? INT32_MAX : (int32_t)sum;
				}
		for (int k = 0; k < s0->ncounts; k++) /* a vector does not depend on the world */
			if (sc_spec_counts_vec(s0, k)) {
				memcpy(v.v[k], c->counts.v[k], sizeof v.v[k]);
				v.len[k] = c->counts.len[k];
			}
		c->counts = v;
	}
	fit_vectors(s0, c);
	struct sc_mesh lcm;
	const struct sc_layout_ctx lc = sc_layout_ctx_case(s0, &c->counts, c->sizes, c->world, &lcm);
	const struct sc_layout *pl[2] = {&s0->in, &s0->out};
	for (int i = 0; i < 2; i++) {
		int dim;
		int64_t total;
		if (sc_layout_sized_total(pl[i], &lc, c->sizes, P, &dim, &total, NULL) != SC_OK || dim < 0)
			continue;
		if (i == 1 && sc_spec_out_sizes_over_ref(s0, dim))
			continue;
		c->sizes[dim] = total;
	}
}
