/* Shrinking: for every `expect fail` spec of the corpus, the shrunk case
 * equals the smallest failing case an exhaustive search finds over every
 * world 1..4, every dim 1..6 (1..8 on a mesh) and every parameter value
 * (ordered by world, then elements, then sizes left to right, then
 * parameters, the simplest dtype, seed 0), for several run seeds; and no single
 * move from the result (a smaller world, one smaller dim, a simpler dtype)
 * still fails.  Usage: test_shrink CORPUS_DIR */
#include <stdlib.h>
#include <string.h>

#include "sc_check.h"
#include "sc_gen_fit.h"
#include "sc_test.h"

static struct sc_ctx *ctx;
static const struct sc_property *sem;

static int fails(struct sc_target *t, const struct sc_case *c)
{
	struct sc_failure f;
	return sc_check_case(ctx, t, sem, c, &f) == SC_V_FAIL;
}

static int64_t numel(const struct sc_case *c)
{
	int64_t n = 1;
	for (int d = 0; d < c->ndims; d++)
		n *= c->sizes[d];
	return n;
}

static const struct sc_spec *mesh; /* the spec being checked, when it has a mesh */

static const struct sc_spec *pspec; /* the spec being checked, when it has parameters */

/* 1 when a precedes b in the minimality order: world, elements, mesh
 * sizes, dims, parameters */
static int before(const struct sc_case *a, const struct sc_case *b)
{
	if (a->world != b->world)
		return a->world < b->world;
	if (numel(a) != numel(b))
		return numel(a) < numel(b);
	for (int m = 0; mesh && m < mesh->nmesh; m++) {
		const int k = sc_spec_mesh_slot(mesh, m);
		if (a->sizes[k] != b->sizes[k])
			return a->sizes[k] < b->sizes[k];
	}
	for (int d = 0; d < a->ndims; d++)
		if (a->sizes[d] != b->sizes[d])
			return a->sizes[d] < b->sizes[d];
	for (int p = 0; pspec && p < pspec->nparams; p++) {
		const int k = sc_spec_param_slot(pspec, p);
		if (a->sizes[k] != b->sizes[k])
			return a->sizes[k] < b->sizes[k];
	}
	return 0;
}

/* Every value of parameters p.. (each in its range, at most 8 values)
 * for c, the failing ones kept in *best when they come first. */
static void try_params(struct sc_target *t, const struct sc_gen_opts *o, struct sc_case *c, int p,
		       struct sc_case *best, int *found)
{
	if (!pspec || p == pspec->nparams) {
		if ((*found && !before(c, best)) || !sc_gen_valid(t, o, c, NULL, 0) || !fails(t, c))
			return;
		*best = *c;
		*found = 1;
		return;
	}
	int64_t lo, hi;
	if (sc_expr_eval(pspec, pspec->param_range[p].lo, c->sizes, c->world, &lo, NULL) != SC_OK ||
	    sc_expr_eval(pspec, pspec->param_range[p].hi, c->sizes, c->world, &hi, NULL) != SC_OK)
		return;
	const int k = sc_spec_param_slot(pspec, p);
	for (int64_t v = lo; v <= hi && v < lo + 8; v++) {
		c->sizes[k] = v;
		try_params(t, o, c, p + 1, best, found);
	}
	c->sizes[k] = 0;
}

static int exhaustive_min(struct sc_target *t, const struct sc_gen_opts *o, int nd, struct sc_case *best)
{
	const long bound = mesh ? 8 : 6; /* each dim up to this (a mesh's products need more: s % (2*C*T)) */
	int found = 0;
	struct sc_case c;
	memset(&c, 0, sizeof c);
	c.ndims = nd;
	c.dtype = SC_I32;
	/* the simplest dtype the spec takes (compute specs take floats only) */
	const uint32_t dm = t->spec ? t->spec->dtype_mask : 0; /* (a case refused for its sizes says nothing of dtypes) */
	for (int d = 0; d < SC_NDTYPES; d++) {
		if (dm && !((dm >> d) & 1u))
			continue;
		struct sc_case k = c;
		k.world = 1;
		for (int q = 0; q < nd; q++)
			k.sizes[q] = 1;
		for (int m = 0; mesh && m < mesh->nmesh; m++)
			k.sizes[sc_spec_mesh_slot(mesh, m)] = 1;
		k.dtype = (enum sc_dtype)d;
		char why[128] = "";
		if (sc_gen_valid(t, o, &k, why, sizeof why) || !strstr(why, "dtype")) {
			c.dtype = k.dtype;
			break;
		}
	}
	for (c.world = 1; c.world <= 4; c.world++) {
		long total = 1;
		for (int d = 0; d < nd; d++)
			total *= bound;
		int mv[64][SC_MAX_MESH];
		const int nm = mesh ? sc_gen_meshes(mesh, c.world, mv, 64) : 1;
		for (int mi = 0; mi < nm; mi++) /* every mesh of this world */
			for (long k = 0; k < total; k++) {
				long r = k;
				for (int d = nd - 1; d >= 0; d--) {
					c.sizes[d] = 1 + r % bound;
					r /= bound;
				}
				for (int m = 0; mesh && m < mesh->nmesh; m++)
					c.sizes[sc_spec_mesh_slot(mesh, m)] = mv[mi][m];
				try_params(t, o, &c, 0, best, &found);
			}
		if (found)
			return 1; /* the smallest world decides first */
	}
	return 0;
}

/* A mesh case's single moves: every mesh of a smaller world (dims kept),
 * and every lexicographically smaller mesh of the same world. */
static void mesh_moves(struct sc_target *t, const struct sc_gen_opts *o, const struct sc_case *m)
{
	for (int w = 1; w <= m->world; w++) {
		int mv[64][SC_MAX_MESH];
		const int nm = sc_gen_meshes(mesh, w, mv, 64);
		for (int i = 0; i < nm; i++) {
			struct sc_case k = *m;
			k.world = w;
			for (int q = 0; q < mesh->nmesh; q++)
				k.sizes[sc_spec_mesh_slot(mesh, q)] = mv[i][q];
			if (sc_gen_valid(t, o, &k, NULL, 0) && before(&k, m))
				T_CHECK(!fails(t, &k), "%s: a smaller mesh (world %d) still fails", t->name, w);
		}
	}
}

static void single_moves_pass(struct sc_target *t, const struct sc_gen_opts *o, const struct sc_case *m)
{
	if (mesh)
		mesh_moves(t, o, m);
	for (int w = 1; w < m->world; w++)
		for (int d = -1; d < m->ndims; d++) {
			/* a smaller world with sizes kept, or with one dim rescaled */
			struct sc_case k = *m;
			k.world = w;
			if (d >= 0)
				k.sizes[d] = m->sizes[d] / m->world * w;
			if (sc_gen_valid(t, o, &k, NULL, 0))
				T_CHECK(!fails(t, &k), "%s: smaller world %d still fails", t->name, w);
		}
	for (int d = 0; d < m->ndims; d++)
		for (int64_t v = 1; v < m->sizes[d]; v++) {
			struct sc_case k = *m;
			k.sizes[d] = v;
			if (sc_gen_valid(t, o, &k, NULL, 0))
				T_CHECK(!fails(t, &k), "%s: dim %d = %lld still fails", t->name, d, (long long)v);
		}
	for (int k = 0; k < SC_MAX_COUNTS && m->counts.P; k++) /* each counts entry one smaller */
		for (int i = 0; i < m->counts.P * m->counts.P; i++) {
			struct sc_case c = *m;
			if (c.counts.v[k][i] == 0)
				continue;
			c.counts.v[k][i]--;
			sc_gen_fit(t, &c);
			if (sc_gen_valid(t, o, &c, NULL, 0))
				T_CHECK(!fails(t, &c), "%s: counts entry %d one smaller still fails", t->name, i);
		}
	for (int dt = 0; dt < (int)m->dtype; dt++) {
		struct sc_case k = *m;
		k.dtype = (enum sc_dtype)dt;
		if (sc_gen_valid(t, o, &k, NULL, 0))
			T_CHECK(!fails(t, &k), "%s: simpler dtype still fails", t->name);
	}
}

static int nspecs;

static void check_spec(const char *path, void *u)
{
	(void)u;
	struct sc_target t;
	struct sc_err e;
	if (sc_target_from_spec_file(&t, path, &e) != SC_OK) {
		T_CHECK(0, "%s", e.msg);
		return;
	}
	if (t.expect != 1) {
		sc_target_free(&t);
		return;
	}
	nspecs++;
	mesh = t.spec->nmesh ? t.spec : NULL;
	pspec = t.spec->nparams ? t.spec : NULL;
	struct sc_gen_opts o = {.world_lo = 1, .world_hi = 8};
	sc_gen_defaults(&o);
	struct sc_case best;
	/* drawn counts are not enumerated here: those specs get the shrinker's
	 * single-move check only */
	const int counts = t.spec->ncounts > 0;
	int have = counts || exhaustive_min(&t, &o, t.spec->ndims, &best);
	T_CHECK(have, "%s: no failing case with P <= 4 and dims <= %d", path, mesh ? 8 : 6);
	for (uint64_t seed = 1; have && seed <= 4; seed++) {
		struct sc_check_opts co;
		memset(&co, 0, sizeof co);
		co.gen = o;
		co.cases = 2000;
		co.seed = seed;
		struct sc_result r;
		sc_check_run(ctx, &t, sem, &co, &r);
		T_CHECK(r.verdict == SC_V_FAIL, "%s seed %llu: not found", path, (unsigned long long)seed);
		if (r.verdict != SC_V_FAIL)
			continue;
		char a[256], b[256] = "(not enumerated: drawn counts)";
		sc_target_case_format(&t, &r.cx, a, sizeof a);
		if (!counts) {
			/* nothing the enumeration found comes before the shrunk case (a
			 * shrunk case before it lies outside the enumerated bounds) */
			sc_target_case_format(&t, &best, b, sizeof b);
			T_CHECK(!before(&best, &r.cx) && r.cx.dtype == best.dtype && r.cx.seed == 0,
				"%s seed %llu: shrunk to %s, exhaustive minimum %s", path, (unsigned long long)seed, a, b);
		}
		if (seed == 1) {
			printf("%-60s %s (%d steps, %.4f s)\n", path, a, r.shrink.steps, r.shrink_seconds);
			single_moves_pass(&t, &o, &r.cx);
		}
	}
	sc_target_free(&t);
}

int main(int argc, char **argv)
{
	struct sc_backend *be;
	sc_backend_sim_open(&be, NULL);
	ctx = sc_ctx_new(be, 0);
	sem = sc_property_find("semantics");
	sc_test_walk_specs(argc > 1 ? argv[1] : "corpus", check_spec, NULL);
	const int want = argc > 2 ? atoi(argv[2]) : 8;
	T_CHECK(nspecs >= want, "only %d expect-fail specs found", nspecs);
	printf("%d expect-fail specs compared with the exhaustive minimum\n", nspecs);
	sc_ctx_free(ctx);
	sc_backend_close(be);
	T_DONE();
}
