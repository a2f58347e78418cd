/* sc_exhaust: every case within bounds, in the shrinking order (see the
 * header). Size tuples of one world and one number of dims are listed,
 * sorted by (elements, sizes left to right), and each run of equal
 * elements is visited once per mesh of the world, as the shrinker's own
 * exhaustive pass does, so both agree on which case is the smallest. */
#include "sc_exhaust.h"
#include "sc_counts.h"
#include "sc_expr.h"
#include "sc_gen_fit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TUPLES 500000 /* size tuples of one world and number of dims */
#define TEMPLATE_TRIES 2000 /* drawn cases tried for a template when the smallest is refused */
#define MAX_MESHES 256
#define MAX_COUNTS_CASES 1000000L /* drawn counts of a walk, every size tuple's together */

static int tuple_cmp(const void *a, const void *b)
{
	const struct sc_exhaust_tuple *x = a, *y = b;
	if (x->prod != y->prod)
		return x->prod < y->prod ? -1 : 1;
	for (int d = 0; d < SC_MAX_DIMS; d++)
		if (x->v[d] != y->v[d])
			return x->v[d] < y->v[d] ? -1 : 1;
	return 0;
}

static void list_tuples(struct sc_exhaust_tuple *buf, long *n, long max, int d, int nd, int64_t bound,
			int64_t maxprod, struct sc_exhaust_tuple *cur)
{
	if (*n >= max)
		return;
	if (d == nd) {
		buf[(*n)++] = *cur;
		return;
	}
	for (int64_t v = 1; v <= bound && cur->prod * v <= maxprod; v++) {
		const int64_t save = cur->prod;
		cur->v[d] = v;
		cur->prod *= v;
		list_tuples(buf, n, max, d + 1, nd, bound, maxprod, cur);
		cur->prod = save;
	}
	cur->v[d] = 0;
}

long sc_exhaust_tuples(int nd, int64_t bound, int64_t maxprod, struct sc_exhaust_tuple *buf, long max)
{
	long n = 0;
	struct sc_exhaust_tuple cur = {1, {0}};
	list_tuples(buf, &n, max, 0, nd, bound, maxprod, &cur);
	qsort(buf, (size_t)n, sizeof *buf, tuple_cmp);
	return n;
}

/* Dims that drawn counts sum to (sequences, micro-batches) may be 0 (no
 * rows), which size tuples never are: after buf[0..n), each tuple again
 * with every nonempty set of those dims that are 1 in it set to 0
 * (product 0), then all sorted. The new count, or -1 past max. */
static long with_zero_sums(struct sc_exhaust_tuple *buf, long n, long max, int nd, uint32_t zmask)
{
	long m = n;
	for (long i = 0; i < n; i++) {
		uint32_t ones = 0;
		for (int d = 0; d < nd; d++)
			if (((zmask >> d) & 1u) && buf[i].v[d] == 1)
				ones |= 1u << d;
		for (uint32_t sub = ones; sub; sub = (sub - 1) & ones) {
			if (m >= max)
				return -1;
			buf[m] = buf[i];
			buf[m].prod = 0;
			for (int d = 0; d < nd; d++)
				if ((sub >> d) & 1u)
					buf[m].v[d] = 0;
			m++;
		}
	}
	qsort(buf, (size_t)m, sizeof *buf, tuple_cmp);
	return m;
}

/* bound^nd, or cap + 1 when larger. */
static long count_tuples(int nd, int64_t bound, long cap)
{
	long n = 1;
	for (int d = 0; d < nd && n <= cap; d++)
		n *= (long)bound;
	return n <= cap ? n : cap + 1;
}

struct walk {
	struct sc_target *t;
	const struct sc_gen_opts *o;
	const struct sc_spec *cs; /* the spec whose counts are drawn; NULL: none */
	const struct sc_spec *ps; /* the spec whose parameters are drawn; NULL: none */
	sc_exhaust_fn fn;
	void *ctx;
	long visited;
	long counted; /* counting: the drawn counts met so far */
	int counting; /* only count the drawn counts (up to MAX_COUNTS_CASES + 1) */
	int stop;
	const struct sc_case *upto; /* sc_exhaust_counts: the case whose counts end the walk; NULL: none */
	long max;                   /* sc_exhaust_counts: the most counts visited */
	int before;                 /* sc_exhaust_counts: only the counts before upto's */
};

/* Every dtype width once (the simplest valid dtype of each), seed 0. */
static void visit_dtypes(struct walk *w, struct sc_case *k)
{
	unsigned widths = 0;
	for (int dt = 0; dt < SC_NDTYPES && !w->stop; dt++) {
		const unsigned bit = 1u << sc_dtype_size((enum sc_dtype)dt);
		if (!(w->o->dtypes & (1u << dt)) || (widths & bit))
			continue;
		k->dtype = (enum sc_dtype)dt;
		k->seed = 0;
		if (!sc_gen_valid(w->t, w->o, k, NULL, 0))
			continue;
		widths |= bit;
		w->visited++;
		if (w->fn && w->fn(w->ctx, k))
			w->stop = 1;
	}
}

/* The target's parameters, lexicographic (an odometer, last fastest). */
static void visit_params(struct walk *w, struct sc_case *k)
{
	struct sc_case_param p[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(w->t, k, p);
	int dom[SC_CASE_MAX_PARAMS], at[SC_CASE_MAX_PARAMS] = {0};
	for (int i = 0; i < np; i++) {
		dom[i] = p[i].kind == SC_PARAM_OP ? SC_NREDOPS : p[i].kind == SC_PARAM_CHOICE ? p[i].other : k->ndims;
		if (dom[i] <= 0)
			return;
	}
	for (;;) {
		for (int i = 0; i < np; i++)
			sc_target_param_put(w->t, k, i, at[i]);
		visit_dtypes(w, k);
		if (w->stop)
			return;
		int i = np - 1;
		while (i >= 0 && ++at[i] == dom[i])
			at[i--] = 0;
		if (i < 0)
			return;
	}
}

/* Declaration k's entries in case c: nlo..nhi of them, each lo + mult*j
 * up to hi, summing to sum (-1: any sum). 0 when c leaves none. */
struct vec_shape {
	int nlo, nhi;
	int64_t lo, hi, mult, sum;
	int topk; /* routes: entries a token, distinct within it */
};

static int vec_shape(const struct sc_spec *s, int k, const struct sc_case *c, struct vec_shape *v)
{
	int64_t lo, hi;
	if (sc_expr_eval(s, s->counts[k].lo, c->sizes, c->world, &lo, NULL) != SC_OK ||
	    sc_expr_eval(s, s->counts[k].hi, c->sizes, c->world, &hi, NULL) != SC_OK || lo > hi || lo < 0 ||
	    hi > INT32_MAX)
		return 0;
	*v = (struct vec_shape){0, 0, lo, hi, 1, -1, sc_spec_topk(s, k)};
	if (s->counts[k].seq) {
		struct sc_counts_seq q;
		if (!sc_counts_seq_bounds(s, k, c->sizes, c->world, lo, hi, &q, NULL, 0))
			return 0;
		*v = (struct vec_shape){(int)q.n_lo, (int)q.n_hi, q.lo, q.hi, q.mult, -1, 1};
	} else {
		v->nlo = v->nhi = sc_spec_counts_len(s, k, c->sizes, &c->counts);
	}
	if (s->counts[k].sum_dim >= 0)
		v->sum = c->sizes[s->counts[k].sum_dim];
	return v->nhi <= SC_COUNTS_MAX_LEN && v->nlo >= 0;
}

static void visit_counts(struct walk *w, struct sc_case *k, int decl);

/* Entries i.. of declaration decl's vector of n, left to right, each from
 * its smallest; left: what they must still sum to (sum constraints only). */
static void fill(struct walk *w, struct sc_case *k, int decl, const struct vec_shape *v, int n, int i, int64_t left)
{
	if (i == n) {
		if (v->sum < 0 || left == 0)
			visit_counts(w, k, decl + 1);
		return;
	}
	const int64_t rest = n - i - 1;
	for (int64_t e = v->lo; e <= v->hi && !w->stop; e += v->mult) {
		if (v->sum >= 0 && (e > left || left - e < rest * v->lo))
			break; /* the rest cannot be that small */
		if (v->sum >= 0 && left - e > rest * v->hi)
			continue; /* nor that large */
		int dup = 0; /* a token's topk experts are distinct */
		for (int j = i - i % v->topk; j < i; j++)
			dup |= k->counts.v[decl][j] == e;
		if (dup)
			continue;
		k->counts.v[decl][i] = (int32_t)e;
		fill(w, k, decl, v, n, i + 1, v->sum >= 0 ? left - e : 0);
	}
	k->counts.v[decl][i] = 0;
}

/* The drawn counts of case k, declaration by declaration: fewer entries
 * first, then entries left to right, the smallest first. A vector whose
 * sum is a dim's size takes that size from the tuple; a case whose counts
 * give a `sizes=` dim another size is visited at that size's tuple. */
static void visit_counts(struct walk *w, struct sc_case *k, int decl)
{
	const struct sc_spec *s = w->cs;
	if (!s || decl == s->ncounts) {
		if (w->counting) {
			if (++w->counted > MAX_COUNTS_CASES)
				w->stop = 1;
			return;
		}
		struct sc_case f = *k;
		if (s) {
			sc_gen_fit(w->t, &f);
			if (memcmp(f.sizes, k->sizes, sizeof f.sizes) != 0)
				return;
		}
		if (!w->upto) {
			visit_params(w, &f);
			return;
		}
		if ((w->before && memcmp(&f.counts, &w->upto->counts, sizeof f.counts) == 0) || ++w->visited > w->max) {
			w->stop = 1; /* reached the case's own counts, or the budget */
			return;
		}
		if (sc_gen_valid(w->t, w->o, &f, NULL, 0) && w->fn(w->ctx, &f))
			w->stop = 2;
		return;
	}
	struct vec_shape v;
	if (!vec_shape(s, decl, k, &v))
		return;
	for (int n = v.nlo; n <= v.nhi && !w->stop; n++) {
		k->counts.len[decl] = s->counts[decl].seq ? n : 0;
		fill(w, k, decl, &v, n, 0, v.sum);
	}
}

/* The spec's parameters from k on, each from the smallest of its range
 * (in the case: after the dims, before the counts). */
static void visit_scalars(struct walk *w, struct sc_case *c, int k)
{
	const struct sc_spec *s = w->ps;
	if (!s || k == s->nparams) {
		visit_counts(w, c, 0);
		return;
	}
	int64_t lo, hi;
	if (sc_expr_eval(s, s->param_range[k].lo, c->sizes, c->world, &lo, NULL) != SC_OK ||
	    sc_expr_eval(s, s->param_range[k].hi, c->sizes, c->world, &hi, NULL) != SC_OK)
		return;
	const int slot = sc_spec_param_slot(s, k);
	for (int64_t v = lo; v <= hi && !w->stop; v++) {
		c->sizes[slot] = v;
		visit_scalars(w, c, k + 1);
	}
	c->sizes[slot] = 0;
}

const char *sc_exhaust_dtypes_text(const struct sc_gen_opts *o, char *buf, size_t n)
{
	unsigned widths = 0;
	size_t k = 0;
	if (n)
		buf[0] = '\0';
	for (int dt = 0; dt < SC_NDTYPES && k < n; dt++) {
		const unsigned bit = 1u << sc_dtype_size((enum sc_dtype)dt);
		if (!(o->dtypes & (1u << dt)) || (widths & bit))
			continue;
		widths |= bit;
		k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? "," : "", sc_dtype_name((enum sc_dtype)dt));
	}
	return buf;
}

/* "routes R and sequences L": the declarations whose entries are drawn. */
static const char *counts_words(const struct sc_spec *s)
{
	static _Thread_local char buf[160];
	size_t k = 0;
	buf[0] = '\0';
	for (int i = 0; i < s->ncounts && k < sizeof buf; i++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s %s", i == 0 ? "" : i + 1 == s->ncounts ? " and " : ", ",
				      s->counts[i].seq ? "sequences" : s->counts[i].route ? "routes"
				      : s->counts[i].len_dim >= 0 ? "micro-batches" : "counts",
				      s->counts[i].name);
	return buf;
}

enum sc_status sc_exhaust_walk(struct sc_target *t, const struct sc_gen_opts *o, int max_dim, sc_exhaust_fn fn,
			       void *ctx, long *visited, struct sc_err *e)
{
	const int64_t bound = max_dim > 0 ? max_dim : SC_EXHAUST_DEFAULT_MAX_DIM;
	/* the smallest case: its number of dims, fixed mesh sizes, parameters */
	struct sc_choices zero;
	sc_choices_bytes(&zero, NULL, 0);
	struct sc_case tpl;
	struct sc_err ge;
	/* where the smallest draw breaks a `require` the generator does not
	 * steer by (one on a mesh's sizes: `require A >= 2`), any valid case
	 * serves as the template: drawn ones are tried, deterministically */
	int have = sc_gen_case(t, o, &zero, &tpl, &ge) == SC_OK;
	for (uint64_t seed = 1; !have && seed <= TEMPLATE_TRIES; seed++) {
		struct sc_choices dr;
		sc_choices_prng(&dr, seed);
		have = sc_gen_case(t, o, &dr, &tpl, &ge) == SC_OK;
	}
	if (!have) {
		*visited = 0; /* no case at all within the bounds */
		return SC_OK;
	}
	const struct sc_spec *fs = sc_target_fixed_spec(t, 0);
	if (tpl.counts.P && !(fs && fs->ncounts))
		return SC_ERR(e, SC_E_USAGE, "--exhaustive: the counts of a target whose spec varies from case to case cannot be enumerated");
	int nlo = tpl.ndims, nhi = tpl.ndims;
	sc_target_ndims_range(t, &nlo, &nhi);
	for (int nd = nlo; nd <= nhi; nd++)
		if (count_tuples(nd, bound, MAX_TUPLES) > MAX_TUPLES)
			return SC_ERR(e, SC_E_USAGE,
				      "--exhaustive: %lld^%d size tuples is more than %d; lower --max-dim",
				      (long long)bound, nd, MAX_TUPLES);
	uint32_t zmask = 0; /* dims that drawn counts sum to: 0 is one of their sizes */
	for (int k = 0; fs && k < fs->ncounts; k++)
		if (fs->counts[k].sum_dim >= 0 && (fs->counts[k].seq || fs->counts[k].len_dim >= 0) && !fs->counts[k].route)
			zmask |= 1u << fs->counts[k].sum_dim;
	const long cap = zmask ? 2 * MAX_TUPLES : MAX_TUPLES;
	struct sc_exhaust_tuple *buf = malloc(sizeof *buf * (size_t)cap);
	static _Thread_local int mv[MAX_MESHES][SC_MAX_MESH];
	if (!buf)
		return SC_ERR(e, SC_E_NOMEM, "--exhaustive: out of memory");
	struct walk w = {t, o, fs && fs->ncounts ? fs : NULL, fs && fs->nparams ? fs : NULL, fn, ctx, 0, 0, 0, 0, NULL, 0, 0};
	w.counting = w.cs != NULL;
	const struct sc_spec *ms = sc_gen_mesh_spec(t);
again: /* with drawn counts, first counted: a walk too long to end is refused before it starts */
	for (int world = o->world_lo; world <= o->world_hi && !w.stop; world++) {
		if (!sc_gen_world_allowed(o, world))
			continue;
		const int nm = ms ? sc_gen_meshes(ms, world, mv, MAX_MESHES) : 1;
		for (int nd = nlo; nd <= nhi && !w.stop; nd++) {
			long n = sc_exhaust_tuples(nd, bound, o->max_elems, buf, MAX_TUPLES);
			if (zmask && (n = with_zero_sums(buf, n, cap, nd, zmask)) < 0) {
				free(buf);
				return SC_ERR(e, SC_E_USAGE, "--exhaustive: %lld^%d size tuples is more than %ld; lower --max-dim",
					      (long long)bound, nd, cap);
			}
			for (long i0 = 0, i1; i0 < n && !w.stop; i0 = i1) {
				for (i1 = i0; i1 < n && buf[i1].prod == buf[i0].prod; i1++)
					;
				for (int mi = 0; mi < nm && !w.stop; mi++)
					for (long i = i0; i < i1 && !w.stop; i++) {
						struct sc_case k = tpl;
						k.world = world;
						k.ndims = nd;
						memset(k.sizes, 0, sizeof k.sizes);
						memcpy(k.sizes, buf[i].v, sizeof(int64_t) * (size_t)nd);
						for (int m = 0; ms && m < ms->nmesh; m++)
							k.sizes[sc_spec_mesh_slot(ms, m)] = mv[mi][m];
						sc_gen_fit(t, &k);
						if (w.cs) /* the counts, drawn next, give the sizes they sum to */
							memcpy(k.sizes, buf[i].v, sizeof(int64_t) * (size_t)nd);
						visit_scalars(&w, &k, 0);
					}
			}
		}
	}
	if (w.counting) {
		if (w.counted > MAX_COUNTS_CASES) {
			free(buf);
			return SC_ERR(e, SC_E_USAGE,
				      "--exhaustive: the drawn %s take more than %ld values within --world %d..%d and --max-dim %lld; lower either",
				      counts_words(fs), MAX_COUNTS_CASES, o->world_lo, o->world_hi, (long long)bound);
		}
		w.counting = 0;
		w.stop = 0;
		goto again;
	}
	free(buf);
	*visited = w.visited;
	return SC_OK;
}

int sc_exhaust_counts(struct sc_target *t, const struct sc_gen_opts *o, const struct sc_case *c, int before,
		      sc_exhaust_fn fn, void *ctx, long max)
{
	const struct sc_spec *sp[SC_MAX_CHAIN];
	int ns;
	if (!c->counts.P || sc_target_specs(t, c, sp, &ns, NULL) != SC_OK || !sp[0]->ncounts)
		return 0;
	struct walk w = {t, o, sp[0], NULL, fn, ctx, 0, 0, 0, 0, c, max, before};
	struct sc_case k = *c;
	visit_counts(&w, &k, 0);
	return w.stop == 2;
}
