/* The decoder is the one definition of a valid case, and the shrinker
 * reaches the smallest one through it:
 * - an empty (exhausted) or all-zero choice stream decodes, for every
 *   corpus spec and every built-in, to a valid case from which no single
 *   smaller move (world, dims, one size, a parameter, dtype, seed) is valid;
 * - every case the PRNG stream decodes is valid, and checking it returns
 *   it unchanged;
 * - a planted built-in bug (rank 0's output has its first two elements
 *   swapped) shrinks to world 1, the fewest dims the built-in takes, two
 *   elements, the smallest parameters, i32, seed 0.
 * Usage: test_gen CORPUS_DIR */
#include <stdlib.h>
#include <string.h>

#include "sc_builtin.h"
#include "sc_check.h"
#include "sc_test.h"

static int ntargets;

static int same_case(const struct sc_case *a, const struct sc_case *b)
{
	if (a->world != b->world || a->ndims != b->ndims || a->dtype != b->dtype || a->seed != b->seed ||
	    a->p0 != b->p0 || a->p1 != b->p1 || a->op != b->op)
		return 0;
	for (int d = 0; d < a->ndims; d++)
		if (a->sizes[d] != b->sizes[d])
			return 0;
	return 1;
}

/* No single move to a smaller case is valid. */
static void check_smallest(struct sc_target *t, const struct sc_gen_opts *o, const struct sc_case *c)
{
	char buf[256];
	sc_target_case_format(t, c, buf, sizeof buf);
	for (int w = 1; w < c->world; w++) {
		struct sc_case k = *c;
		k.world = w;
		T_CHECK(!sc_gen_valid(t, o, &k, NULL, 0), "%s: %s, but world %d is valid", t->name, buf, w);
	}
	for (int d = 0; d < c->ndims; d++)
		for (int64_t v = 1; v < c->sizes[d]; v++) {
			struct sc_case k = *c;
			k.sizes[d] = v;
			T_CHECK(!sc_gen_valid(t, o, &k, NULL, 0), "%s: %s, but dim %d = %lld is valid", t->name, buf,
				d, (long long)v);
		}
	int lo, hi;
	if (sc_target_ndims_range(t, &lo, &hi))
		T_CHECK(c->ndims == lo, "%s: %s, but %d dims is the fewest", t->name, buf, lo);
	struct sc_case_param p[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(t, c, p);
	for (int i = 0; i < np; i++) {
		int smallest = p[i].kind == SC_PARAM_OTHER_DIM && p[p[i].other].value == 0 ? 1 : 0;
		T_CHECK(p[i].value == smallest, "%s: %s, parameter %s is not the smallest", t->name, buf, p[i].key);
	}
	for (int dt = 0; dt < (int)c->dtype; dt++) {
		struct sc_case k = *c;
		k.dtype = (enum sc_dtype)dt;
		T_CHECK(!sc_gen_valid(t, o, &k, NULL, 0), "%s: %s, but dtype %s is valid", t->name, buf,
			sc_dtype_name(k.dtype));
	}
	T_CHECK(c->seed == 0, "%s: %s, seed is not 0", t->name, buf);
}

static void check_target(struct sc_target *t)
{
	ntargets++;
	struct sc_gen_opts o = {0};
	sc_gen_defaults(&o);
	/* exhausted and all-zero streams: the same, smallest case */
	static const uint8_t zeros[256];
	struct sc_choices ch;
	struct sc_case a, b;
	struct sc_err e;
	sc_choices_bytes(&ch, NULL, 0);
	const int decoded = sc_gen_case(t, &o, &ch, &a, &e) == SC_OK;
	T_CHECK(decoded, "%s: the empty stream decodes to no case: %s", t->name, e.msg);
	if (!decoded)
		return; /* (a holds no case to check further) */
	sc_choices_bytes(&ch, zeros, sizeof zeros);
	T_CHECK(sc_gen_case(t, &o, &ch, &b, &e) == SC_OK, "%s: the zero stream decodes to no case", t->name);
	T_CHECK(same_case(&a, &b), "%s: empty and all-zero streams decode differently", t->name);
	char why[256] = "";
	T_CHECK(sc_gen_valid(t, &o, &a, why, sizeof why), "%s: the smallest case is invalid: %s", t->name, why);
	check_smallest(t, &o, &a);
	/* decoded => valid, and checking returns the case */
	int bad = 0;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct sc_case c;
		sc_choices_prng(&ch, seed);
		if (sc_gen_case(t, &o, &ch, &c, NULL) != SC_OK)
			continue;
		if (!sc_gen_valid(t, &o, &c, why, sizeof why)) {
			if (!bad++)
				T_CHECK(0, "%s: seed %llu decodes to an invalid case: %s", t->name,
					(unsigned long long)seed, why);
		}
	}
	T_CHECK(bad == 0, "%s: %d decoded cases were invalid", t->name, bad);
}

static void check_spec(const char *path, void *u)
{
	(void)u;
	struct sc_target t;
	struct sc_err e;
	if (sc_target_from_spec_file(&t, path, &e) != SC_OK) {
		T_CHECK(0, "%s", e.msg);
		return;
	}
	check_target(&t);
	sc_target_free(&t);
}

/* swaps the first two elements (row-major) of rank 0's output */
static void f_swap(struct sc_exec *x, const struct sc_case *c, int prov, void *u)
{
	(void)c; (void)prov; (void)u;
	struct sc_tensor *t = &x->t[0];
	if (sc_tensor_numel(t) < 2)
		return;
	int64_t i0[SC_MAX_DIMS] = {0}, i1[SC_MAX_DIMS] = {0};
	for (int d = t->ndim - 1; d >= 0; d--)
		if (t->shape[d] > 1) {
			i1[d] = 1;
			break;
		}
	unsigned char *pa = sc_tensor_at(t, i0), *pb = sc_tensor_at(t, i1);
	const unsigned es = t->buf->esize;
	unsigned char tmp[16];
	memcpy(tmp, pa, es);
	memcpy(pa, pb, es);
	memcpy(pb, tmp, es);
}

static void planted(struct sc_ctx *ctx, const struct sc_builtin_family *b, int ndims_lo)
{
	struct sc_target t;
	T_CHECK(sc_target_builtin(&t, b, NULL) == SC_OK, "builtin %s", b->name);
	t.fault = f_swap;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct sc_check_opts o;
		memset(&o, 0, sizeof o);
		o.cases = 500;
		o.seed = seed;
		sc_gen_defaults(&o.gen);
		struct sc_result r;
		sc_check_run(ctx, &t, sc_property_find("semantics"), &o, &r);
		T_CHECK(r.verdict == SC_V_FAIL, "%s seed %llu: the planted swap is not caught", t.name,
			(unsigned long long)seed);
		if (r.verdict != SC_V_FAIL)
			continue;
		char buf[256];
		sc_target_case_format(&t, &r.cx, buf, sizeof buf);
		if (seed == 1)
			printf("%-26s shrunk to %s (%d steps, %ld tried)\n", t.name, buf, r.shrink.steps,
			       r.shrink.tries);
		int64_t n = 1;
		for (int d = 0; d < r.cx.ndims; d++)
			n *= r.cx.sizes[d];
		T_CHECK(r.cx.world == 1 && r.cx.ndims == ndims_lo && n == 2 && r.cx.sizes[r.cx.ndims - 1] == 2 &&
				r.cx.dtype == SC_I32 && r.cx.seed == 0,
			"%s seed %llu: shrunk to %s, not world 1, %d dims, sizes [.., 1, 2], i32, seed 0", t.name,
			(unsigned long long)seed, buf, ndims_lo);
		struct sc_case_param p[SC_CASE_MAX_PARAMS];
		const int np = sc_target_params(&t, &r.cx, p);
		for (int i = 0; i < np; i++) {
			int smallest = p[i].kind == SC_PARAM_OTHER_DIM && p[p[i].other].value == 0 ? 1 : 0;
			T_CHECK(p[i].value == smallest, "%s: %s, parameter %s is not the smallest", t.name, buf,
				p[i].key);
		}
	}
	sc_target_free(&t);
}

/* Mesh sizes are drawn at the edges: 1 x N, N x 1, a 3 (not a power of
 * two), each often, every product within --world. */
static void mesh_shapes(struct sc_target *t)
{
	const struct sc_spec *ms = sc_target_mesh_spec(t);
	T_CHECK(ms && ms->nmesh == 2, "%s has no 2-D mesh", t->name);
	if (!ms)
		return;
	struct sc_gen_opts o = {.world_lo = 1, .world_hi = 8};
	sc_gen_defaults(&o);
	int one_n = 0, n_one = 0, three = 0, n = 0;
	for (uint64_t seed = 1; seed <= 3000; seed++) {
		struct sc_choices ch;
		sc_choices_prng(&ch, seed);
		struct sc_case c;
		if (sc_gen_case(t, &o, &ch, &c, NULL) != SC_OK)
			continue;
		const int64_t a = c.sizes[sc_spec_mesh_slot(ms, 0)], b = c.sizes[sc_spec_mesh_slot(ms, 1)];
		T_CHECK(a * b == c.world && c.world <= 8, "%s: mesh %lld x %lld in world %d", t->name, (long long)a,
			(long long)b, c.world);
		n++;
		one_n += a == 1 && b > 1;
		n_one += a > 1 && b == 1;
		three += a == 3 || b == 3;
	}
	T_CHECK(n > 2000 && one_n > n / 20 && n_one > n / 20 && three > n / 20,
		"%s: %d cases, 1 x N %d, N x 1 %d, a 3 in %d", t->name, n, one_n, n_one, three);
	printf("%s: %d cases: 1 x N %d, N x 1 %d, a mesh dim of 3 %d\n", t->name, n, one_n, n_one, three);
}

int main(int argc, char **argv)
{
	const char *corpus = argc > 1 ? argv[1] : "corpus";
	sc_test_walk_specs(corpus, check_spec, NULL);
	/* requires of the mesh alone steer its draw: the empty stream's case
	 * is world=3 under `require A >= 3` (no `sizes` line) */
	char steer[1024];
	snprintf(steer, sizeof steer, "%s/../tests/specs/mesh-require-steers.sc", corpus);
	check_spec(steer, NULL);
	const struct sc_builtin_family *const *fams;
	const int nf = sc_builtin_families(&fams);
	for (int b = 0; b < nf; b++) {
		struct sc_target t;
		T_CHECK(sc_target_builtin(&t, fams[b], NULL) == SC_OK, "builtin %s", fams[b]->name);
		check_target(&t);
		sc_target_free(&t);
	}
	T_CHECK(ntargets >= 20, "only %d targets", ntargets);
	{
		struct sc_target t;
		sc_target_builtin(&t, sc_builtin_named("all_gather_2d"), NULL);
		mesh_shapes(&t);
		sc_target_free(&t);
	}
	printf("%d targets: the empty stream decodes to their smallest case\n", ntargets);

	struct sc_backend *be;
	sc_backend_sim_open(&be, NULL);
	struct sc_ctx *ctx = sc_ctx_new(be, 0);
	planted(ctx, sc_builtin_named("all_to_all"), 2);
	planted(ctx, sc_builtin_named("all_gather"), 1);
	sc_ctx_free(ctx);
	sc_backend_close(be);
	T_DONE();
}
