/* sc_shrink: greedy moves, then an exhaustive search below the greedy
 * result, over every parameter of the case.
 *
 * The shrinker proposes cases and the decoder judges them (sc_gen_valid):
 * validity is defined in one place, and every parameter the decoder draws
 * shrinks — the world, a built-in's number of dims (dropping a dim), each
 * size, a built-in's dim indices and reduction op, the dtype and the seed.
 * Order of minimality: smallest world, then fewest dims, then fewest
 * elements, then sizes left to right, then the target's parameters, then
 * the simplest dtype, then seed 0. */
#include "sc_shrink.h"
#include "sc_exhaust.h"
#include "sc_expr.h"
#include "sc_gen_fit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXH_MAX_CASES 200000 /* candidates enumerated per world */
#define EXH_DIM_BOUND 6      /* smaller worlds: every dim up to this (or the case's max) */

struct sh {
	struct sc_target *t;
	const struct sc_gen_opts *o;
	sc_fails_fn fails;
	void *ctx;
	struct sc_shrink_stats *st;
};

static int try_case(struct sh *s, struct sc_case *cur, const struct sc_case *proposed)
{
	struct sc_case fitted = *proposed, *cand = &fitted;
	sc_gen_fit(s->t, cand); /* counts to the world, sizes= dims from them */
	if (memcmp(cand, cur, sizeof *cand) == 0)
		return 0; /* the move changed nothing */
	if (!sc_gen_valid(s->t, s->o, cand, NULL, 0))
		return 0;
	s->st->tries++;
	if (!s->fails(s->ctx, cand))
		return 0;
	*cur = *cand;
	s->st->steps++;
	if (sc_log_on(SC_LOG_SHRINK)) {
		char buf[256];
		sc_target_case_format(s->t, cur, buf, sizeof buf);
		SC_LOG(SHRINK, "step %d (%ld tried): %s", s->st->steps, s->st->tries, buf);
	}
	return 1;
}

/* Simplest failing dtype at the current sizes. */
static void shrink_dtype(struct sh *s, struct sc_case *c)
{
	for (int dt = 0; dt < (int)c->dtype; dt++) {
		struct sc_case k = *c;
		k.dtype = (enum sc_dtype)dt;
		if (try_case(s, c, &k))
			return;
	}
}

static void shrink_seed(struct sh *s, struct sc_case *c)
{
	if (c->seed != 0) {
		struct sc_case k = *c;
		k.seed = 0;
		try_case(s, c, &k);
	}
}

/* Fewer dims (built-ins): drop dim d, renumber the dim parameters past it;
 * a parameter that named d tries every value. */
static int shrink_ndims(struct sh *s, struct sc_case *c)
{
	int lo, hi;
	if (!sc_target_ndims_range(s->t, &lo, &hi) || c->ndims <= lo)
		return 0;
	struct sc_case_param p[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(s->t, c, p);
	for (int d = 0; d < c->ndims; d++) {
		struct sc_case k = *c;
		k.ndims = c->ndims - 1;
		memmove(&k.sizes[d], &c->sizes[d + 1], sizeof(int64_t) * (size_t)(c->ndims - 1 - d));
		k.sizes[c->ndims - 1] = 0;
		int named = -1, nnamed = 0;
		for (int i = 0; i < np; i++) {
			if (p[i].kind == SC_PARAM_OP || p[i].kind == SC_PARAM_CHOICE)
				continue;
			if (p[i].value == d) {
				named = i;
				nnamed++;
			} else if (p[i].value > d) {
				sc_target_param_put(s->t, &k, i, p[i].value - 1);
			}
		}
		if (nnamed > 1) /* two parameters named the dropped dim: not a valid case */
			continue;
		if (named < 0) {
			if (try_case(s, c, &k))
				return 1;
			continue;
		}
		for (int v = 0; v < k.ndims; v++) {
			struct sc_case q = k;
			sc_target_param_put(s->t, &q, named, v);
			if (try_case(s, c, &q))
				return 1;
		}
	}
	return 0;
}

/* Sets parameter i to v; a later parameter that must differ from it and
 * now equals v takes its smallest other value instead. */
static void param_move(struct sh *s, struct sc_case *k, const struct sc_case_param *p, int np, int i, int v)
{
	sc_target_param_put(s->t, k, i, v);
	for (int j = i + 1; j < np; j++)
		if (p[j].kind == SC_PARAM_OTHER_DIM && p[j].other == i && p[j].value == v)
			sc_target_param_put(s->t, k, j, v == 0 ? 1 : 0);
}

/* Each parameter of the target: the smallest value that still fails. */
static int shrink_params(struct sh *s, struct sc_case *c)
{
	int progress = 0;
	struct sc_case_param p[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(s->t, c, p);
	for (int i = 0; i < np; i++)
		for (int v = 0; v < p[i].value; v++) {
			struct sc_case k = *c;
			param_move(s, &k, p, np, i, v);
			if (try_case(s, c, &k)) {
				progress = 1;
				sc_target_params(s->t, c, p);
				break;
			}
		}
	return progress;
}

/* A vector (micro-batches, sequences, routes) one entry shorter: entry i
 * removed, its rows dropped, or added to the entry before or after it (a
 * token's route: only dropped, with the token). */
static int shrink_vector(struct sh *s, struct sc_case *c, const struct sc_spec *sp, int k)
{
	const int K = sc_spec_topk(sp, k); /* a token's K routes go together */
	const int g = sp->counts[k].len_dim, len = sc_spec_counts_len(sp, k, c->sizes, &c->counts) / K;
	if (sp->counts[k].len_dim2 >= 0)
		return 0; /* tokens of two dims (b*l): fewer come with a smaller dim */
	for (int i = 0; len > (g >= 0 ? 1 : 0) && i < len; i++) /* sequences: down to none, where A allows */
		for (int to = 0; to < (sp->counts[k].route ? 1 : 3); to++) { /* 0 dropped, 1 to i - 1, 2 to i + 1 */
			if ((to == 1 && i == 0) || (to == 2 && i == len - 1))
				continue;
			struct sc_case m = *c;
			int32_t *v = m.counts.v[k];
			const int32_t rows = v[i];
			memmove(v + i * K, v + (i + 1) * K, sizeof(int32_t) * (size_t)(SC_COUNTS_MAX_LEN - (i + 1) * K));
			memset(v + SC_COUNTS_MAX_LEN - K, 0, sizeof(int32_t) * (size_t)K);
			if (g >= 0)
				m.sizes[g]--;
			else
				m.counts.len[k]--; /* sequences: one fewer */
			int32_t *into = to == 1 ? &v[i - 1] : to == 2 ? &v[i] : NULL;
			if (into && *into > INT32_MAX - rows)
				continue;
			if (into)
				*into += rows;
			if (try_case(s, c, &m))
				return 1;
		}
	return 0;
}

/* Every route moved down together by the same number of experts, the
 * most first (the tokens keep their order of experts: what one entry at a
 * time cannot reach when the failure needs two tokens out of order). */
static int shift_routes(struct sh *s, struct sc_case *c, int k, int len)
{
	int32_t low = INT32_MAX;
	for (int i = 0; i < len; i++)
		low = c->counts.v[k][i] < low ? c->counts.v[k][i] : low;
	for (int32_t by = len ? low : 0; by > 0; by--) {
		struct sc_case m = *c;
		for (int i = 0; i < len; i++)
			m.counts.v[k][i] -= by;
		if (try_case(s, c, &m))
			return 1;
	}
	return 0;
}

/* Counts, row-major: each entry to the smallest value that still fails. */
static int shrink_counts(struct sh *s, struct sc_case *c)
{
	int progress = 0;
	const int P = c->counts.P;
	const struct sc_spec *sp[SC_MAX_CHAIN];
	int ns;
	if (!P || sc_target_specs(s->t, c, sp, &ns, NULL) != SC_OK)
		return 0;
	for (int k = 0; k < sp[0]->ncounts; k++) {
		if (sc_spec_counts_vec(sp[0], k) && shrink_vector(s, c, sp[0], k)) {
			progress = 1;
			continue;
		}
		const int len = sc_spec_counts_len(sp[0], k, c->sizes, &c->counts);
		if (sp[0]->counts[k].route && shift_routes(s, c, k, len)) {
			progress = 1;
			continue;
		}
		for (int i = 0; i < len; i++) {
			/* small values all tried, large ones by doubling, as sizes */
			for (int32_t nv = 0; nv < c->counts.v[k][i]; nv = nv < 64 ? nv + 1 : nv > INT32_MAX / 2 ? INT32_MAX : nv * 2) {
				struct sc_case m = *c;
				m.counts.v[k][i] = nv;
				if (try_case(s, c, &m)) {
					progress = 1;
					break;
				}
				/* a vector's rows moved to the next micro-batch: the same
				 * total, smaller in order */
				if (!sc_spec_counts_vec(sp[0], k) || sp[0]->counts[k].route || i + 1 >= len ||
				    m.counts.v[k][i + 1] > INT32_MAX - (c->counts.v[k][i] - nv))
					continue;
				m.counts.v[k][i + 1] += c->counts.v[k][i] - nv;
				if (try_case(s, c, &m)) {
					progress = 1;
					break;
				}
			}
			/* an entry moved later is smaller in row-major order (not a route) */
			for (int j = i + 1; len <= 64 && !sp[0]->counts[k].route && c->counts.v[k][i] && j < len; j++) {
				struct sc_case m = *c;
				if (m.counts.v[k][j] > INT32_MAX - m.counts.v[k][i])
					continue;
				m.counts.v[k][j] += m.counts.v[k][i];
				m.counts.v[k][i] = 0;
				if (try_case(s, c, &m)) {
					progress = 1;
					break;
				}
			}
		}
	}
	return progress;
}

#define MAX_MESHES 256

/* A mesh spec's mesh: smaller worlds first (each mesh of that product in
 * lexicographic order, the dims kept, else scaled to keep each rank's
 * share), then meshes of the same world that are lexicographically
 * smaller (mesh sizes shrink before dims). */
static int shrink_mesh(struct sh *s, struct sc_case *c, const struct sc_spec *ms)
{
	static _Thread_local int mv[MAX_MESHES][SC_MAX_MESH];
	const int nd = c->ndims;
	for (int w = s->o->world_lo; w <= c->world; w++) {
		const int n = sc_gen_meshes(ms, w, mv, MAX_MESHES);
		for (int i = 0; i < n; i++) {
			struct sc_case k = *c;
			int smaller = w < c->world;
			for (int m = 0; m < ms->nmesh; m++)
				k.sizes[sc_spec_mesh_slot(ms, m)] = mv[i][m];
			if (!smaller) { /* the same world: lexicographically smaller only */
				for (int m = 0; m < ms->nmesh && !smaller; m++) {
					if (k.sizes[sc_spec_mesh_slot(ms, m)] != c->sizes[sc_spec_mesh_slot(ms, m)]) {
						smaller = k.sizes[sc_spec_mesh_slot(ms, m)] < c->sizes[sc_spec_mesh_slot(ms, m)];
						break;
					}
				}
				if (!smaller)
					continue;
			}
			if (try_case(s, c, &k))
				return 1;
			for (int d = 0; d < nd; d++)
				if (c->sizes[d] % c->world == 0)
					k.sizes[d] = c->sizes[d] / c->world * w;
			if (try_case(s, c, &k))
				return 1;
		}
	}
	return 0;
}

/* The drawn counts at the case's sizes, in --exhaustive's order up to
 * the case's own (a move of several entries at once: two routes swapped,
 * one lowered as another rises): the first failing one replaces c. */
#define EXH_COUNTS_MAX 20000

struct counts_pass {
	struct sh *s;
	struct sc_case *c;
};

static int counts_cand(void *u, const struct sc_case *k)
{
	struct counts_pass *x = u;
	return try_case(x->s, x->c, k);
}

static void exhaustive_counts(struct sh *s, struct sc_case *c)
{
	struct counts_pass x = {s, c};
	const struct sc_case start = *c;
	sc_exhaust_counts(s->t, s->o, &start, 1, counts_cand, &x, EXH_COUNTS_MAX);
}

/* The spec's parameters (`param`): each the smallest value of its range
 * that still fails (small values all tried; large ones by halving). */
static int shrink_scalars(struct sh *s, struct sc_case *c)
{
	const struct sc_spec *sp[SC_MAX_CHAIN];
	int ns, progress = 0;
	if (sc_target_specs(s->t, c, sp, &ns, NULL) != SC_OK)
		return 0;
	for (int k = 0; k < sp[0]->nparams; k++) {
		const int slot = sc_spec_param_slot(sp[0], k);
		const int64_t v = c->sizes[slot];
		int64_t lo;
		if (sc_expr_eval(sp[0], sp[0]->param_range[k].lo, c->sizes, c->world, &lo, NULL) != SC_OK || lo >= v)
			continue;
		for (int64_t nv = lo; nv < v; nv = (nv - lo < 64 ? nv + 1 : lo + (nv - lo) * 2)) {
			struct sc_case m = *c;
			m.sizes[slot] = nv;
			struct counts_pass x = {s, c};
			/* with the counts kept, else (a small case) with the first
			 * counts that fail at that value: a parameter that gives the
			 * routes their meaning (the experts) moves with them */
			if (try_case(s, c, &m) || (m.counts.P && sc_case_numel(&m) <= 1024 &&
						   sc_exhaust_counts(s->t, s->o, &m, 0, counts_cand, &x, EXH_COUNTS_MAX))) {
				progress = 1;
				break;
			}
			/* the dims that are multiples of it scaled with it, as a
			 * sharded dim with the world (t tokens over P*nle experts) */
			struct sc_case q = m;
			int scaled = 0;
			for (int d = 0; d < c->ndims && v > 0; d++)
				if (c->sizes[d] % v == 0 && c->sizes[d] / v * nv != c->sizes[d] && c->sizes[d] / v * nv > 0) {
					q.sizes[d] = c->sizes[d] / v * nv;
					scaled = 1;
				}
			if (scaled && try_case(s, c, &q)) {
				progress = 1;
				break;
			}
		}
	}
	return progress;
}

/* A smaller world w for k (from c): each parameter that is a multiple of
 * c's world scaled to w, as a sharded dim keeps each rank's share (E
 * experts over P ranks, E/P each); 0 when none changed. */
static int scale_scalars(struct sh *s, const struct sc_case *c, struct sc_case *k, int w)
{
	const struct sc_spec *sp[SC_MAX_CHAIN];
	int ns, changed = 0;
	if (sc_target_specs(s->t, c, sp, &ns, NULL) != SC_OK)
		return 0;
	for (int p = 0; p < sp[0]->nparams; p++) {
		const int slot = sc_spec_param_slot(sp[0], p);
		if (c->sizes[slot] % c->world == 0 && c->sizes[slot] / c->world * w != k->sizes[slot]) {
			k->sizes[slot] = c->sizes[slot] / c->world * w;
			changed = 1;
		}
	}
	return changed;
}

/* k (a smaller world) with each parameter, in turn, at every other value
 * of a small range (at most 8): a bug that needs more hpZ groups at fewer
 * ranks (M=2 at world 2 where M=1 fails at world 3). 1 when one fails. */
static int other_scalars(struct sh *s, struct sc_case *c, const struct sc_case *k)
{
	const struct sc_spec *sp[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(s->t, k, sp, &ns, NULL) != SC_OK)
		return 0;
	for (int p = 0; p < sp[0]->nparams; p++) {
		const int slot = sc_spec_param_slot(sp[0], p);
		int64_t lo, hi;
		if (sc_expr_eval(sp[0], sp[0]->param_range[p].lo, k->sizes, k->world, &lo, NULL) != SC_OK ||
		    sc_expr_eval(sp[0], sp[0]->param_range[p].hi, k->sizes, k->world, &hi, NULL) != SC_OK || hi - lo >= 8)
			continue;
		for (int64_t v = lo; v <= hi; v++) {
			struct sc_case m = *k;
			m.sizes[slot] = v;
			if (v != k->sizes[slot] && try_case(s, c, &m))
				return 1;
		}
	}
	return 0;
}

static int greedy_pass(struct sh *s, struct sc_case *c)
{
	int progress = 0;
	const struct sc_spec *ms = sc_gen_mesh_spec(s->t);
	if (ms)
		progress |= shrink_mesh(s, c, ms);
	/* smaller worlds, keeping each sharded dim's per-rank size, else 1 */
	for (int w = s->o->world_lo; !ms && w < c->world; w++) {
		struct sc_case k = *c;
		k.world = w;
		for (int d = 0; d < k.ndims; d++)
			if (c->sizes[d] % c->world == 0)
				k.sizes[d] = c->sizes[d] / c->world * w;
		if (try_case(s, c, &k)) {
			progress = 1;
			break;
		}
		struct sc_case q = k; /* the parameters with the world */
		if (scale_scalars(s, c, &q, w) && try_case(s, c, &q)) {
			progress = 1;
			break;
		}
		if (c->counts.P) { /* the counts folded the other way */
			struct sc_case f = k;
			sc_gen_fit_fold(s->t, &f, 1);
			if (try_case(s, c, &f)) {
				progress = 1;
				break;
			}
		}
		for (int d = 0; d < k.ndims; d++)
			k.sizes[d] = (c->sizes[d] % c->world == 0) ? w : 1;
		if (try_case(s, c, &k)) {
			progress = 1;
			break;
		}
		if (other_scalars(s, c, &q)) { /* a smaller world wins over larger parameters */
			progress = 1;
			break;
		}
	}
	progress |= shrink_ndims(s, c);
	progress |= shrink_scalars(s, c);
	progress |= shrink_counts(s, c);
	/* each dim: the smallest value that still fails (small values all
	 * tried; large ones by halving) */
	for (int d = 0; d < c->ndims; d++) {
		const int64_t v = c->sizes[d];
		for (int64_t nv = 1; nv < v; nv = (nv < 64 ? nv + 1 : nv * 2)) {
			struct sc_case k = *c;
			k.sizes[d] = nv;
			if (try_case(s, c, &k)) {
				progress = 1;
				break;
			}
		}
		if (c->sizes[d] == v && v > 64) {
			struct sc_case k = *c;
			k.sizes[d] = v / 2;
			if (try_case(s, c, &k))
				progress = 1;
		}
	}
	return progress;
}

/* Exhaustive: worlds from the lowest up to c's, sizes in (elements,
 * lexicographic) order; the first failing case replaces c. */
static void exhaustive(struct sh *s, struct sc_case *c)
{
	const int nd = c->ndims;
	struct sc_exhaust_tuple *buf = malloc(sizeof *buf * EXH_MAX_CASES);
	if (!buf)
		return;
	int64_t maxdim = EXH_DIM_BOUND;
	for (int d = 0; d < nd; d++)
		if (c->sizes[d] > maxdim)
			maxdim = c->sizes[d];
	const int64_t cur_n = sc_case_numel(c);
	const struct sc_spec *ms = sc_gen_mesh_spec(s->t);
	static _Thread_local int mv[MAX_MESHES][SC_MAX_MESH];
	for (int w = s->o->world_lo; w <= c->world; w++) {
		/* the meshes of this world, lexicographic (one: a flat world) */
		const int nm = ms ? sc_gen_meshes(ms, w, mv, MAX_MESHES) : 1;
		int64_t bound = w == c->world ? cur_n : maxdim;
		int64_t maxprod = w == c->world ? cur_n : s->o->max_elems;
		if (bound > 4096)
			bound = 4096;
		const long n = sc_exhaust_tuples(nd, bound, maxprod, buf, EXH_MAX_CASES);
		/* (elements, mesh sizes, dims): each run of equal elements once
		 * per mesh */
		for (long i0 = 0, i1; i0 < n; i0 = i1) {
			for (i1 = i0; i1 < n && buf[i1].prod == buf[i0].prod; i1++)
				;
			for (int mi = 0; mi < nm; mi++)
				for (long i = i0; i < i1; i++) {
					struct sc_case k = *c;
					k.world = w;
					for (int m = 0; ms && m < ms->nmesh; m++)
						k.sizes[sc_spec_mesh_slot(ms, m)] = mv[mi][m];
					memcpy(k.sizes, buf[i].v, sizeof(int64_t) * (size_t)nd);
					/* k is c but for the world, the mesh sizes and the dims set here */
					int same = w == c->world && buf[i].prod == cur_n &&
						   memcmp(k.sizes, c->sizes, sizeof(int64_t) * (size_t)nd) == 0;
					for (int m = 0; same && ms && m < ms->nmesh; m++)
						same = k.sizes[sc_spec_mesh_slot(ms, m)] == c->sizes[sc_spec_mesh_slot(ms, m)];
					if (same)
						goto done; /* reached the current case: it is minimal */
					struct sc_case f = k;
					sc_gen_fit(s->t, &f);
					if (sc_case_numel(&f) != buf[i].prod)
						continue; /* a dim the counts give differs: the case has other elements */
					if (try_case(s, c, &k))
						goto done;
				}
		}
	}
done:
	free(buf);
}

void sc_shrink(struct sc_target *t, const struct sc_gen_opts *o, struct sc_case *c,
	       sc_fails_fn fails, void *ctx, struct sc_shrink_stats *stats)
{
	struct sc_shrink_stats dummy = {0, 0};
	struct sh s = {t, o, fails, ctx, stats ? stats : &dummy};
	s.st->steps = 0;
	s.st->tries = 0;
	shrink_seed(&s, c);
	shrink_dtype(&s, c);
	for (int round = 0; round < 64 && greedy_pass(&s, c); round++)
		;
	if (sc_case_numel(c) <= 1024)
		exhaustive(&s, c);
	/* the target's parameters, then sizes again below what they allow */
	if (shrink_params(&s, c)) {
		for (int round = 0; round < 64 && greedy_pass(&s, c); round++)
			;
		if (sc_case_numel(c) <= 1024)
			exhaustive(&s, c);
	}
	if (sc_case_numel(c) <= 1024)
		exhaustive_counts(&s, c);
	shrink_dtype(&s, c);
	shrink_seed(&s, c);
	SC_LOG(SHRINK, "done: %d steps, %ld cases tried", s.st->steps, s.st->tries);
}
