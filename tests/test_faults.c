/* Planted faults: for every property, a deliberately wrong transform that
 * the property must catch, and the clean transform that must pass. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sc_builtin.h"
#include "sc_check.h"
#include "sc_test.h"

static struct sc_ctx *ctx;

static enum sc_verdict run(struct sc_target *t, const char *prop, long cases)
{
	struct sc_check_opts o;
	memset(&o, 0, sizeof o);
	o.cases = cases;
	o.seed = 99;
	o.gen.world_lo = 1;
	o.gen.world_hi = 4;
	sc_gen_defaults(&o.gen);
	struct sc_result r;
	sc_check_run(ctx, t, sc_property_find(prop), &o, &r);
	if (r.verdict == SC_V_ERROR)
		fprintf(stderr, "  error: %s\n", r.error);
	return r.verdict;
}

/* swaps the first two elements of rank 0's output */
static void f_swap(struct sc_exec *x, const struct sc_case *c, int prov, void *u)
{
	(void)c; (void)prov; (void)u;
	struct sc_tensor *t = &x->t[0];
	if (sc_tensor_numel(t) < 2)
		return;
	int64_t i0[SC_MAX_DIMS] = {0}, i1[SC_MAX_DIMS] = {0};
	i1[t->ndim - 1] = t->shape[t->ndim - 1] > 1 ? 1 : 0;
	if (i1[t->ndim - 1] == 0)
		i1[0] = 1;
	unsigned char *a = sc_tensor_at(t, i0), *b = sc_tensor_at(t, i1);
	unsigned es = t->buf->esize;
	unsigned char tmp[8];
	memcpy(tmp, a, es); memcpy(a, b, es); memcpy(b, tmp, es);
}

/* flips a bit of the last rank's last output element: on a replicated
 * output, ranks that hold the same bytes as a rank found right are taken
 * as right, so this must still be found */
static void f_last_rank(struct sc_exec *x, const struct sc_case *c, int prov, void *u)
{
	(void)c;
	struct sc_tensor *t = &x->t[x->nlocal - 1];
	if (x->nlocal < 2 || sc_tensor_numel(t) < 1 || (prov && u)) /* u: data runs only */
		return;
	int64_t idx[SC_MAX_DIMS];
	for (int d = 0; d < t->ndim; d++)
		idx[d] = t->shape[d] - 1;
	sc_tensor_at(t, idx)[0] ^= 0x1;
}

/* modifies the last rank's input (the inputs are the first buffers, one per
 * rank in order) */
static void f_touch_last_input(struct sc_exec *x, const struct sc_case *c, int prov, void *u)
{
	(void)c; (void)prov; (void)u;
	if (x->nlocal >= 2 && x->arena->bufs[x->nlocal - 1]->nelem > 0)
		x->arena->bufs[x->nlocal - 1]->data[0] ^= 0x1;
}

/* writes one byte past the end of rank 0's output buffer */
static void f_overrun(struct sc_exec *x, const struct sc_case *c, int prov, void *u)
{
	(void)c; (void)prov; (void)u;
	struct sc_buf *b = x->t[0].buf;
	b->data[(size_t)b->nelem * b->esize] ^= 0x1;
}

/* modifies the input in place (the inputs are the first buffers) */
static struct sc_tensor saved_in[SC_MAX_WORLD];
static void f_touch_input(struct sc_exec *x, const struct sc_case *c, int prov, void *u)
{
	(void)c; (void)prov; (void)u; (void)x;
	saved_in[0].buf->data[0] ^= 0x1;
}

/* "forgets" to write rank 0's last output element */
static void f_unwritten(struct sc_exec *x, const struct sc_case *c, int prov, void *u)
{
	(void)c; (void)prov; (void)u;
	struct sc_tensor *t = &x->t[0];
	int64_t idx[SC_MAX_DIMS];
	for (int d = 0; d < t->ndim; d++)
		idx[d] = t->shape[d] - 1;
	memset(sc_tensor_at(t, idx), 0xFF, t->buf->esize);
}

/* flushes f32/f16 subnormals to zero, as a copy through an FTZ float path does */
static void f_ftz(struct sc_exec *x, const struct sc_case *c, int prov, void *u)
{
	(void)u;
	if (prov || (c->dtype != SC_F32 && c->dtype != SC_F16))
		return;
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor *t = &x->t[r];
		struct sc_iter it;
		sc_iter_init(&it, t->shape, t->stride, t->ndim, t->offset);
		for (int64_t k = 0; k < sc_tensor_numel(t); k++) {
			unsigned char *p = t->buf->data + (size_t)it.off * t->buf->esize;
			if (c->dtype == SC_F32) {
				uint32_t v = (uint32_t)sc_load_bits(p, 4);
				if ((v & 0x7f800000u) == 0)
					sc_store_bits(p, 4, v & 0x80000000u);
			} else {
				uint16_t v = (uint16_t)sc_load_bits(p, 2);
				if ((v & 0x7c00u) == 0)
					sc_store_bits(p, 2, v & 0x8000u);
			}
			sc_iter_next(&it);
		}
	}
}

/* every other run flips a bit: nondeterministic output */
static void f_flaky(struct sc_exec *x, const struct sc_case *c, int prov, void *u)
{
	(void)c; (void)prov;
	int *calls = u;
	if ((*calls)++ % 2)
		x->t[0].buf->data[0] ^= 0x1;
}

/* A backend whose reduce_scatter forgets the last rank's contribution. */
static const struct sc_backend_ops *sim_ops;
static enum sc_status bad_rs(struct sc_backend *be, int world, void *const *send, void *const *recv,
			     size_t count, enum sc_dtype dt, enum sc_redop op, struct sc_err *e)
{
	return sim_ops->reduce_scatter(be, world > 1 ? world - 1 : world, send, recv, count, dt, op, e);
}

static struct sc_target spec_target(const char *text)
{
	struct sc_spec *s = malloc(sizeof *s);
	struct sc_err e;
	if (sc_spec_parse(text, "fault.sc", s, &e) != SC_OK)
		fprintf(stderr, "%s\n", e.msg);
	struct sc_target t;
	sc_target_from_spec(&t, s);
	return t;
}

/* sc_target_run hands inputs to purity only; keep a copy for f_touch_input */
static void f_touch_wrap(struct sc_exec *x, const struct sc_case *c, int prov, void *u)
{
	(void)c; (void)prov; (void)u;
	/* the input of rank 0 is the first buffer the arena handed out */
	struct sc_buf *b = x->arena->bufs[0];
	b->data[0] ^= 0x1;
	(void)f_touch_input;
}

int main(void)
{
	struct sc_backend *be;
	sc_backend_sim_open(&be, NULL);
	ctx = sc_ctx_new(be, 0);
	struct sc_target a2a;
	sc_target_builtin(&a2a, sc_builtin_named("all_to_all"), NULL);

	/* clean transforms pass every property */
	const char *props[] = {"semantics", "roundtrip", "purity", "dtype", "determinism",
			       "reduce-consistency"};
	for (size_t i = 0; i < sizeof props / sizeof props[0]; i++)
		T_CHECK(run(&a2a, props[i], 300) == SC_V_PASS, "clean all_to_all fails %s", props[i]);

	/* semantics: swapped elements */
	a2a.fault = f_swap;
	T_CHECK(run(&a2a, "semantics", 300) == SC_V_FAIL, "semantics misses a swap");
	/* roundtrip: the swap survives the inverse */
	T_CHECK(run(&a2a, "roundtrip", 300) == SC_V_FAIL, "roundtrip misses a swap");
	/* purity: overrun, modified input, unwritten element */
	a2a.fault = f_overrun;
	T_CHECK(run(&a2a, "purity", 100) == SC_V_FAIL, "purity misses a write past the end");
	T_CHECK(run(&a2a, "semantics", 100) == SC_V_PASS, "an overrun alone keeps semantics");
	a2a.fault = f_touch_wrap;
	T_CHECK(run(&a2a, "purity", 100) == SC_V_FAIL, "purity misses a modified input");
	a2a.fault = f_unwritten;
	T_CHECK(run(&a2a, "purity", 100) == SC_V_FAIL, "purity misses an unwritten element");
	/* dtype: subnormals flushed for float types only */
	a2a.fault = f_ftz;
	T_CHECK(run(&a2a, "dtype", 300) == SC_V_FAIL, "dtype misses flushed subnormals");
	/* determinism */
	int calls = 0;
	a2a.fault = f_flaky;
	a2a.fault_ctx = &calls;
	T_CHECK(run(&a2a, "determinism", 100) == SC_V_FAIL, "determinism misses a flaky output");
	a2a.fault = NULL;

	/* a replicated input (filled once, copied to the other ranks) and a
	 * replicated output (ranks with a right rank's bytes taken as right):
	 * a fault on the last rank only is still caught, by every property
	 * that reads the output */
	{
		struct sc_target rep = spec_target("dims s b\ninput replicate\noutput replicate\ncontiguous\n");
		const char *reads[] = {"semantics", "purity", "dtype", "determinism"};
		for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++)
			T_CHECK(run(&rep, reads[i], 200) == SC_V_PASS, "a clean replicated copy fails %s", reads[i]);
		rep.fault = f_last_rank;
		T_CHECK(run(&rep, "semantics", 200) == SC_V_FAIL, "semantics misses the last rank of a replicated output");
		T_CHECK(run(&rep, "dtype", 200) == SC_V_FAIL, "dtype misses the last rank of a replicated output");
		rep.fault_ctx = &rep; /* the provenance run right: the last rank's elements are the same as rank 0's */
		T_CHECK(run(&rep, "dtype", 200) == SC_V_FAIL, "dtype misses bits of the last rank of a replicated output");
		rep.fault_ctx = NULL;
		rep.fault = f_touch_last_input;
		T_CHECK(run(&rep, "purity", 200) == SC_V_FAIL, "purity misses the last rank's replicated input modified");
		sc_target_free(&rep);
		struct sc_target ag;
		sc_target_builtin(&ag, sc_builtin_named("all_gather"), NULL);
		ag.fault = f_last_rank;
		T_CHECK(run(&ag, "semantics", 200) == SC_V_FAIL, "semantics misses the last rank of an all_gather");
		sc_target_free(&ag);
		struct sc_target ar;
		sc_target_builtin(&ar, sc_builtin_named("all_reduce"), NULL);
		ar.fault = f_last_rank;
		T_CHECK(run(&ar, "semantics", 200) == SC_V_FAIL, "semantics misses the last rank of an all_reduce");
		sc_target_free(&ar);
	}

	/* compose: a chain whose second half is wrong */
	{
		FILE *f1 = fopen("fault_a.sc", "w"), *f2 = fopen("fault_b.sc", "w");
		fputs("dims s b\ninput shard s\noutput replicate\nall_gather_into_tensor\n", f1);
		fputs("dims s b\ninput replicate\noutput replicate\ntranspose 0 1\ncontiguous\nreshape [s, b]\n", f2);
		fclose(f1);
		fclose(f2);
		const char *paths[] = {"fault_a.sc", "fault_b.sc"};
		struct sc_target ch;
		struct sc_err e;
		T_CHECK(sc_target_chain(&ch, paths, 2, &e) == SC_OK, "%s", e.msg);
		T_CHECK(run(&ch, "compose", 300) == SC_V_FAIL, "compose misses a wrong second stage");
		sc_target_free(&ch);
		f2 = fopen("fault_b.sc", "w");
		fputs("dims s b\ninput replicate\noutput replicate\ncontiguous\n", f2);
		fclose(f2);
		T_CHECK(sc_target_chain(&ch, paths, 2, &e) == SC_OK, "%s", e.msg);
		T_CHECK(run(&ch, "compose", 300) == SC_V_PASS, "compose rejects a correct chain");
		sc_target_free(&ch);
		remove("fault_a.sc");
		remove("fault_b.sc");
	}

	/* semantics catches a wrong spec and passes the right one */
	struct sc_target good = spec_target("dims s h\ninput shard s\noutput shard h\n"
					    "all_to_all split=1 concat=0\n");
	struct sc_target bad = spec_target("dims s h\ninput shard s\noutput shard h\n"
					   "reshape [P, s/P, h/P]\nall_to_all_single\nreshape [s, h/P]\n");
	T_CHECK(run(&good, "semantics", 300) == SC_V_PASS, "correct list all_to_all fails");
	T_CHECK(run(&bad, "semantics", 300) == SC_V_FAIL, "semantics misses a wrong reshape");
	sc_target_free(&good);
	sc_target_free(&bad);

	/* reduce-consistency: a backend with a broken reduce_scatter */
	struct sc_target rs;
	sc_target_builtin(&rs, sc_builtin_named("reduce_scatter"), NULL);
	struct sc_backend_ops broken = *be->ops;
	sim_ops = be->ops;
	broken.reduce_scatter = bad_rs;
	be->ops = &broken;
	T_CHECK(run(&rs, "reduce-consistency", 300) == SC_V_FAIL, "reduce-consistency misses a bad reduce_scatter");
	T_CHECK(run(&rs, "semantics", 300) == SC_V_FAIL, "semantics misses a bad reduce_scatter");
	be->ops = sim_ops;
	T_CHECK(run(&rs, "reduce-consistency", 300) == SC_V_PASS, "clean reduce_scatter fails");

	/* the built-ins over a 2-D mesh: clean ones hold every property; a
	 * swap, and a broken reduce_scatter running on a mesh dim's groups,
	 * are caught */
	{
		const char *fam[] = {"all_to_all_2d", "all_gather_2d", "reduce_scatter_2d", "all_reduce_2d"};
		for (size_t k = 0; k < sizeof fam / sizeof fam[0]; k++) {
			struct sc_target m;
			sc_target_builtin(&m, sc_builtin_named(fam[k]), NULL);
			for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
				const enum sc_verdict v = run(&m, props[i], 300);
				T_CHECK(v == SC_V_PASS || v == SC_V_SKIP, "clean %s fails %s", fam[k], props[i]);
			}
			if (k < 2) {
				m.fault = f_swap;
				T_CHECK(run(&m, "semantics", 300) == SC_V_FAIL, "semantics misses a swap in %s", fam[k]);
			}
			sc_target_free(&m);
		}
		struct sc_target m;
		sc_target_builtin(&m, sc_builtin_named("reduce_scatter_2d"), NULL);
		be->ops = &broken;
		T_CHECK(run(&m, "semantics", 300) == SC_V_FAIL, "semantics misses a bad reduce_scatter on a mesh dim");
		be->ops = sim_ops;
		sc_target_free(&m);
	}

	/* a shrunk case is minimal: the DeepSpeed pre-5664 bug */
	struct sc_target ds = spec_target(
		"dims s b h d\ninput shard h\noutput shard s\nreshape [P, s/P, b, h/P, d]\n"
		"contiguous\nall_to_all_single\ntranspose 0 1\ncontiguous\nreshape [s/P, b, h, d]\n");
	{
		struct sc_check_opts o;
		memset(&o, 0, sizeof o);
		o.cases = 500;
		o.seed = 5;
		sc_gen_defaults(&o.gen);
		struct sc_result r;
		sc_check_run(ctx, &ds, sc_property_find("semantics"), &o, &r);
		T_CHECK(r.verdict == SC_V_FAIL && r.cx.world == 2 && r.cx.sizes[0] == 2 && r.cx.sizes[1] == 2 &&
				r.cx.sizes[2] == 2 && r.cx.sizes[3] == 1 && r.cx.dtype == SC_I32 && r.cx.seed == 0,
			"shrunk to world %d sizes %lld %lld %lld %lld", r.cx.world, (long long)r.cx.sizes[0],
			(long long)r.cx.sizes[1], (long long)r.cx.sizes[2], (long long)r.cx.sizes[3]);
		T_CHECK(r.fail.nfirst > 0 && r.fail.first[0].have_prov, "provenance of the first wrong element");
	}
	sc_target_free(&ds);
	sc_target_free(&rs);
	sc_target_free(&a2a);
	sc_ctx_free(ctx);
	sc_backend_close(be);
	T_DONE();
}
