/* sc_target: targets, placements, value fill and output verification.
 *
 * Invariant: a rank's local tensor and its index map enumerate elements in
 * the same row-major order, so filling and checking are one simultaneous
 * walk over both. */
#include "sc_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_compute.h"
#include "sc_devmem.h"
#include "sc_plugin.h"

static const char *const bi_names[SC_NBUILTINS] = {"all_to_all", "all_gather", "reduce_scatter",
						   "all_reduce"};

const char *sc_builtin_name(enum sc_builtin b) { return bi_names[b]; }

int sc_builtin_parse(const char *name, enum sc_builtin *out)
{
	for (int i = 0; i < SC_NBUILTINS; i++)
		if (strcmp(name, bi_names[i]) == 0) {
			*out = (enum sc_builtin)i;
			return 0;
		}
	return -1;
}

#define CACHE_N (9 * 8 * 8 * SC_NREDOPS)

enum sc_status sc_target_from_spec(struct sc_target *t, struct sc_spec *owned)
{
	memset(t, 0, sizeof *t);
	t->kind = SC_TGT_SPEC;
	t->spec = owned;
	t->expect = owned->expect;
	snprintf(t->name, sizeof t->name, "%s", owned->path);
	return SC_OK;
}

enum sc_status sc_target_from_spec_file(struct sc_target *t, const char *path, struct sc_err *e)
{
	struct sc_spec *s = malloc(sizeof *s);
	if (!s)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	enum sc_status st = sc_spec_load(path, s, e);
	if (st != SC_OK) {
		free(s);
		return st;
	}
	return sc_target_from_spec(t, s);
}

enum sc_status sc_target_chain(struct sc_target *t, const char *const *paths, int n,
			       struct sc_err *e)
{
	memset(t, 0, sizeof *t);
	t->kind = SC_TGT_CHAIN;
	t->expect = -1;
	if (n < 1 || n > SC_MAX_CHAIN)
		return SC_ERR(e, SC_E_USAGE, "a chain has 1 to %d specs", SC_MAX_CHAIN);
	size_t k = 0;
	for (int i = 0; i < n; i++) {
		struct sc_spec *s = malloc(sizeof *s);
		if (!s)
			return SC_ERR(e, SC_E_NOMEM, "out of memory");
		t->chain[t->nchain++] = s;
		SC_CHECK(sc_spec_load(paths[i], s, e));
		const struct sc_spec *f = t->chain[0];
		int same = s->ndims == f->ndims && strcmp(s->world_sym, f->world_sym) == 0;
		for (int d = 0; same && d < s->ndims; d++)
			same = strcmp(s->dim[d], f->dim[d]) == 0;
		if (!same)
			return SC_ERR(e, SC_E_SPEC,
				      "%s:1:1: a chain needs the same 'dims' and 'world' in every spec (differs from %s)",
				      paths[i], paths[0]);
		k += (size_t)snprintf(t->name + k, k < sizeof t->name ? sizeof t->name - k : 0, "%s%s",
				      i ? "," : "", paths[i]);
	}
	return SC_OK;
}

enum sc_status sc_target_builtin(struct sc_target *t, enum sc_builtin b, struct sc_err *e)
{
	memset(t, 0, sizeof *t);
	t->kind = SC_TGT_BUILTIN;
	t->bi = b;
	t->expect = -1;
	t->cache = calloc(CACHE_N, sizeof *t->cache);
	if (!t->cache)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	snprintf(t->name, sizeof t->name, "builtin:%s", bi_names[b]);
	return SC_OK;
}

void sc_target_free(struct sc_target *t)
{
	if (!t)
		return;
	free(t->spec);
	for (int i = 0; i < t->nchain; i++)
		free(t->chain[i]);
	if (t->cache) {
		for (int i = 0; i < CACHE_N; i++)
			free(t->cache[i]);
		free(t->cache);
	}
	sc_plugin_close(t->own_lib);
	sc_plugin_close(t->own_baseline);
	memset(t, 0, sizeof *t);
}

/* The built-in transforms, written as the steps a careful engineer ships:
 * pack with one strided permute copy, one dim-0 collective, unpack. */
static int gen_builtin_text(enum sc_builtin b, int n, int i, int j, enum sc_redop op, char *buf,
			    size_t cap)
{
	size_t k = 0;
#define P_(...) do { int w_ = snprintf(buf + k, k < cap ? cap - k : 0, __VA_ARGS__); if (w_ > 0) k += (size_t)w_; } while (0)
	P_("pipeline builtin:%s\ndims", bi_names[b]);
	for (int d = 0; d < n; d++)
		P_(" d%d", d);
	P_("\n");
	switch (b) {
	case SC_BI_ALL_TO_ALL:
		/* XLA AllToAll(split=i, concat=j): input shard d_j, output shard d_i */
		P_("input shard d%d\noutput shard d%d\nreshape [", j, i);
		for (int d = 0, c = 0; d < n; d++) {
			if (d == i)
				P_("%sP, d%d/P", c++ ? ", " : "", d);
			else if (d == j)
				P_("%sd%d/P", c++ ? ", " : "", d);
			else
				P_("%sd%d", c++ ? ", " : "", d);
		}
		P_("]\nmovedim %d 0\ncontiguous\nall_to_all_single\nmovedim 0 %d\nreshape [", i, j);
		for (int d = 0; d < n; d++)
			P_("%s%s%d%s", d ? ", " : "", "d", d, d == i ? "/P" : "");
		P_("]\n");
		break;
	case SC_BI_ALL_GATHER:
		P_("input shard d%d\noutput replicate\nmovedim %d 0\ncontiguous\n"
		   "all_gather_into_tensor\nmovedim 0 %d\ncontiguous\n", i, i, i);
		break;
	case SC_BI_REDUCE_SCATTER:
		P_("input partial %s\noutput shard d%d\nmovedim %d 0\ncontiguous\n"
		   "reduce_scatter_tensor %s\nmovedim 0 %d\ncontiguous\n",
		   sc_redop_name(op), i, i, sc_redop_name(op), i);
		break;
	case SC_BI_ALL_REDUCE:
		P_("input partial %s\noutput replicate\nall_reduce %s\n", sc_redop_name(op),
		   sc_redop_name(op));
		break;
	case SC_NBUILTINS: break;
	}
#undef P_
	return k < cap ? 0 : -1;
}

const struct sc_spec *sc_builtin_spec(struct sc_target *t, int n, int i, int j, enum sc_redop op,
				      struct sc_err *e)
{
	if (n < 1 || n > 8 || i < 0 || i >= n || j < 0 || j >= n) {
		SC_ERR(e, SC_E_USAGE, "builtin:%s: bad parameters (dims %d, dim %d, concat %d)",
		       bi_names[t->bi], n, i, j);
		return NULL;
	}
	if (t->bi != SC_BI_ALL_TO_ALL)
		j = 0;
	if (t->bi != SC_BI_REDUCE_SCATTER && t->bi != SC_BI_ALL_REDUCE)
		op = SC_SUM;
	int key = ((n * 8 + i) * 8 + j) * SC_NREDOPS + (int)op;
	if (t->cache[key])
		return t->cache[key];
	char text[2048];
	struct sc_spec *s = malloc(sizeof *s);
	if (!s || gen_builtin_text(t->bi, n, i, j, op, text, sizeof text) != 0) {
		free(s);
		SC_ERR(e, SC_E_NOMEM, "out of memory");
		return NULL;
	}
	if (sc_spec_parse(text, t->name, s, e) != SC_OK) {
		free(s);
		return NULL;
	}
	t->cache[key] = s;
	return s;
}

int sc_target_specs(struct sc_target *t, const struct sc_case *c, const struct sc_spec **out,
		    struct sc_err *e)
{
	switch (t->kind) {
	case SC_TGT_SPEC:
	case SC_TGT_PLUGIN:
		out[0] = t->spec;
		return 1;
	case SC_TGT_CHAIN:
		for (int i = 0; i < t->nchain; i++)
			out[i] = t->chain[i];
		return t->nchain;
	case SC_TGT_BUILTIN:
		out[0] = sc_builtin_spec(t, c->ndims, c->p0, c->p1, c->op, e);
		return out[0] ? 1 : -1;
	}
	return -1;
}

int sc_target_has_reduction(struct sc_target *t, const struct sc_case *c)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int n = sc_target_specs(t, c, s, NULL);
	for (int i = 0; i < n; i++)
		if (s[i]->has_reduction)
			return 1;
	return 0;
}

/* What rank's input holds at each element (the value encoding, or small
 * integers for reductions), as the descriptor the device fills from. */
static void input_fill(const struct sc_layout *in, int reduction, const struct sc_case *c, int rank,
		       int prov, struct sc_hd_fill *f)
{
	memset(f, 0, sizeof *f);
	f->seed = c->seed;
	f->dtype = (int)c->dtype;
	f->rank = rank;
	f->world = c->world;
	if (prov)
		f->mode = SC_FILL_PROV;
	else if (!reduction)
		f->mode = SC_FILL_VALUE;
	else if (in->kind == SC_PARTIAL) {
		f->mode = SC_FILL_SMALL;
		f->op = (int)in->op;
	} else {
		f->mode = SC_FILL_SMALL;
		f->op = SC_MAX;
		f->rank = -1;
	}
}

/* What X[g] is for the output: the input's values, or for a partial input
 * their reduction over ranks. */
static void expect_fill(struct sc_target *t, const struct sc_spec *s0, const struct sc_case *c, int prov,
			struct sc_hd_fill *f)
{
	const int red = sc_target_has_reduction(t, c);
	input_fill(&s0->in, red, c, 0, prov, f);
	if (!prov && red && s0->in.kind == SC_PARTIAL)
		f->mode = SC_FILL_REDUCED;
}

static void map_strided(const struct sc_map *m, struct sc_strided *v)
{
	v->ndim = m->ndim;
	v->offset = m->offset;
	for (int d = 0; d < m->ndim; d++) {
		v->shape[d] = m->shape[d];
		v->stride[d] = m->stride[d];
	}
}

uint64_t sc_expected_bits(struct sc_target *t, const struct sc_case *c, uint64_t g)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	if (sc_target_specs(t, c, s, NULL) < 1)
		return 0;
	struct sc_hd_fill f;
	expect_fill(t, s[0], c, 0, &f);
	return sc_hd_fill_bits(&f, g);
}

enum sc_status sc_target_run(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			     struct sc_tensor *inputs, struct sc_err *e)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns = sc_target_specs(t, c, s, e);
	if (ns < 1)
		return e ? e->status : SC_E_INTERNAL;
	const int red = sc_target_has_reduction(t, c);
	const unsigned es = x->prov ? 8u : (unsigned)sc_dtype_size(c->dtype);
	x->world = c->world;
	x->dtype = c->dtype;
	x->nlocal = x->be->ops->local_ranks(x->be, c->world, &x->first);
	/* data-movement runs of specs live on the device when there is one;
	 * compute specs (f64 pairs) and plugins (host functions) stay here */
	struct sc_devmem *dm = x->arena->dm;
	x->arena->use_dm = dm && !s[0]->compute && t->kind != SC_TGT_PLUGIN;
	for (int r = 0; r < x->nlocal; r++) {
		const int rank = x->first + r;
		struct sc_map m;
		sc_layout_map(&s[0]->in, c->sizes, c->ndims, c->world, rank, &m);
		struct sc_tensor *tt = &x->t[r];
		sc_arena_on(x->arena, rank);
		SC_CHECK(sc_tensor_empty(x->arena, m.lshape, m.lndim, es, tt, e));
		const int64_t n = sc_tensor_numel(tt);
		struct sc_hd_fill f;
		input_fill(&s[0]->in, red, c, rank, x->prov, &f);
		map_strided(&m, &f.xmap);
		if (tt->buf->dm) {
			sc_devmem_fail(dm, dm->ops->fill(dm, rank, tt->buf->data, &f, n), "fill", rank);
		} else {
			struct sc_iter it;
			sc_iter_init(&it, m.shape, m.stride, m.ndim, m.offset);
			unsigned char *p = tt->buf->data;
			for (int64_t k = 0; k < n; k++, p += es) {
				sc_store_bits(p, es, sc_hd_fill_bits(&f, (uint64_t)it.off));
				sc_iter_next(&it);
			}
		}
		if (inputs)
			inputs[r] = *tt;
	}
	if (s[0]->compute) { /* the program, as pairs; the output left in x->t */
		struct sc_cenv env;
		const struct sc_compute_case cc = {c->world, c->sizes, c->dtype, c->seed};
		SC_CHECK(sc_compute_run(s[0], &cc, x, 0, &env, e));
		for (int r = 0; r < x->nlocal; r++)
			x->t[r] = env.t[s[0]->out_tensor][r];
	} else if (t->kind == SC_TGT_PLUGIN)
		SC_CHECK(sc_plugin_exec(t, c, x, e));
	else
		for (int i = 0; i < ns; i++)
			SC_CHECK(sc_exec_spec(x, s[i], c->sizes, e));
	if (x->arena->use_dm)
		SC_CHECK(sc_devmem_status(dm, 1, e));
	if (t->fault)
		t->fault(x, c, x->prov, t->fault_ctx);
	return SC_OK;
}

static void record(struct sc_failure *f, int rank, const struct sc_iter *ti, int nd, uint64_t g,
		   uint64_t exp, uint64_t act, int prov)
{
	if (f->nfirst >= SC_MAX_FIRST)
		return;
	struct sc_wrong *w = &f->first[f->nfirst++];
	memset(w, 0, sizeof *w);
	w->rank = rank;
	w->ndim = nd;
	memcpy(w->index, ti->idx, sizeof(int64_t) * (size_t)nd);
	w->expected_from = g;
	w->expected_bits = exp;
	w->actual_bits = act;
	if (prov) {
		w->actual_from = act;
		w->have_prov = 1;
	}
}

int64_t sc_verify_output(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			 struct sc_failure *f, struct sc_err *e)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns = sc_target_specs(t, c, s, e);
	if (ns < 1)
		return -1;
	const struct sc_layout *out = &s[ns - 1]->out;
	const unsigned es = x->prov ? 8u : (unsigned)sc_dtype_size(c->dtype);
	int64_t wrong = 0;
	/* shapes first: the same local shape on every rank */
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_map m;
		sc_layout_map(out, c->sizes, c->ndims, c->world, x->first + r, &m);
		const struct sc_tensor *tt = &x->t[r];
		int same = tt->ndim == m.lndim;
		for (int d = 0; same && d < m.lndim; d++)
			same = tt->shape[d] == m.lshape[d];
		if (!same) {
			char a[160], b[160];
			sc_shape_format(tt->shape, tt->ndim, a, sizeof a);
			sc_shape_format(m.lshape, m.lndim, b, sizeof b);
			snprintf(f->msg, sizeof f->msg,
				 "rank %d output has shape %s, but the output placement needs %s",
				 x->first + r, a, b);
			f->wrong = sc_shape_numel(m.lshape, m.lndim);
			return f->wrong ? f->wrong : 1;
		}
	}
	struct sc_tensor red[SC_MAX_WORLD];
	const struct sc_tensor *chk = x->t;
	struct sc_layout whole = *out;
	if (out->kind == SC_PARTIAL) {
		/* X = OP over ranks of the outputs: reduce them on the backend */
		void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
		const int64_t n = sc_tensor_numel(&x->t[0]);
		for (int r = 0; r < x->nlocal; r++) {
			struct sc_tensor cc;
			sc_arena_on(x->arena, x->first + r);
			if (sc_tensor_empty(x->arena, x->t[r].shape, x->t[r].ndim, es, &cc, e) != SC_OK)
				return -1;
			sc_tensor_copy(&cc, &x->t[r]);
			send[r] = cc.buf->data;
			if (sc_tensor_empty(x->arena, x->t[r].shape, x->t[r].ndim, es, &red[r], e) != SC_OK)
				return -1;
			recv[r] = red[r].buf->data;
		}
		enum sc_status st;
		if (x->prov) {
			/* provenance: equal max and min means one element everywhere */
			void *mn[SC_MAX_WORLD];
			struct sc_tensor mt[SC_MAX_WORLD];
			for (int r = 0; r < x->nlocal; r++) {
				sc_arena_on(x->arena, x->first + r);
				if (sc_tensor_empty(x->arena, x->t[r].shape, x->t[r].ndim, 8, &mt[r], e) != SC_OK)
					return -1;
				mn[r] = mt[r].buf->data;
			}
			st = x->be->ops->all_reduce(x->be, c->world, send, recv, (size_t)n, SC_U64, SC_MAX, e);
			if (st == SC_OK)
				st = x->be->ops->all_reduce(x->be, c->world, send, mn, (size_t)n, SC_U64, SC_MIN, e);
			if (st == SC_OK)
				st = sc_prov_merge(x->arena, x->first, x->nlocal, recv, mn, (size_t)n, e);
		} else {
			st = x->be->ops->all_reduce(x->be, c->world, send, recv, (size_t)n, c->dtype, out->op, e);
		}
		if (st != SC_OK)
			return -1;
		chk = red;
		whole.kind = SC_REPLICATE;
	}
	struct sc_hd_fill want;
	expect_fill(t, s[0], c, x->prov, &want);
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_map m;
		sc_layout_map(&whole, c->sizes, c->ndims, c->world, x->first + r, &m);
		const struct sc_tensor *tt = &chk[r];
		const int64_t n = sc_tensor_numel(tt);
		struct sc_devmem *dm = tt->buf->dm;
		if (dm) { /* checked in place; only the first mismatches come back */
			struct sc_dev_mismatch mis[SC_MAX_FIRST];
			struct sc_strided ov;
			int64_t w = 0;
			const int kfirst = SC_MAX_FIRST - f->nfirst;
			map_strided(&m, &want.xmap);
			sc_tensor_strided(tt, &ov);
			sc_devmem_fail(dm, dm->ops->check(dm, x->first + r, tt->buf->data, &ov, &want, n, &w, mis, kfirst),
				       "check", x->first + r);
			if (sc_devmem_status(dm, 1, e) != SC_OK)
				return -1;
			for (int k = 0; k < kfirst && k < w; k++) {
				struct sc_iter ti;
				sc_iter_init(&ti, tt->shape, tt->stride, tt->ndim, 0);
				for (int64_t rem = mis[k].index, d = tt->ndim - 1; d >= 0; d--) {
					ti.idx[d] = rem % tt->shape[d];
					rem /= tt->shape[d];
				}
				record(f, x->first + r, &ti, tt->ndim, mis[k].g, mis[k].expected, mis[k].actual, x->prov);
			}
			wrong += w;
			continue;
		}
		struct sc_iter mi, ti;
		sc_iter_init(&mi, m.shape, m.stride, m.ndim, m.offset);
		sc_iter_init(&ti, tt->shape, tt->stride, tt->ndim, tt->offset);
		const unsigned char *base = tt->buf->data;
		for (int64_t k = 0; k < n; k++) {
			const uint64_t g = (uint64_t)mi.off;
			const uint64_t act = sc_load_bits(base + (size_t)ti.off * es, es);
			const uint64_t exp = sc_hd_fill_bits(&want, g);
			if (act != exp) {
				wrong++;
				record(f, x->first + r, &ti, tt->ndim, g, exp, act, x->prov);
			}
			sc_iter_next(&mi);
			sc_iter_next(&ti);
		}
	}
	f->wrong = wrong;
	return wrong;
}

void sc_format_from(const struct sc_case *c, uint64_t g, char *buf, size_t n)
{
	if (g == SC_PROV_POISON) {
		snprintf(buf, n, "nothing (never written)");
		return;
	}
	if (g == SC_PROV_MIXED) {
		snprintf(buf, n, "a reduction of different elements");
		return;
	}
	int64_t idx[SC_MAX_DIMS];
	uint64_t rem = g;
	for (int d = c->ndims - 1; d >= 0; d--) {
		uint64_t sz = c->sizes[d] > 0 ? (uint64_t)c->sizes[d] : 1;
		idx[d] = (int64_t)(rem % sz);
		rem /= sz;
	}
	if (rem) {
		snprintf(buf, n, "an element outside X (index %llu)", (unsigned long long)g);
		return;
	}
	size_t k = (size_t)snprintf(buf, n, "X[");
	for (int d = 0; d < c->ndims && k < n; d++)
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? ", " : "", (long long)idx[d]);
	if (k < n)
		snprintf(buf + k, n - k, "]");
}
