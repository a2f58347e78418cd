/* sc_verify: filling inputs, checking outputs, recording wrong elements. */
#include "sc_verify.h"

#include <stdio.h>
#include <string.h>

#include "sc_devmem.h"
#include "sc_reference.h"

/* What rank's input holds at each element (the value encoding, or small
 * integers for reductions), as the descriptor the device fills from. */
static void input_fill(const struct sc_spec *s0, int reduction, const struct sc_case *c, int rank,
		       int prov, struct sc_hd_fill *f)
{
	const struct sc_layout *in = &s0->in;
	memset(f, 0, sizeof *f);
	f->seed = c->seed;
	f->dtype = (int)c->dtype;
	f->rank = rank;
	f->world = c->world;
	if (in->nent && in->kind == SC_PARTIAL) { /* one summand per rank of the partial group */
		const struct sc_mesh m = sc_spec_mesh(s0, c->sizes, c->world);
		f->rank = sc_mesh_group_index(&m, &in->partial, rank);
		f->world = sc_mesh_group_size(&m, &in->partial);
	}
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
	input_fill(s0, red, c, 0, prov, f);
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

uint64_t sc_verify_expected_bits(struct sc_target *t, const struct sc_case *c, uint64_t g)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(t, c, s, &ns, NULL) != SC_OK)
		return 0;
	struct sc_hd_fill f;
	expect_fill(t, s[0], c, 0, &f);
	return sc_hd_fill_bits(&f, g);
}

/* RUN(T, W) for the element type T of es bytes (W bits). */
#define BY_WIDTH(es, RUN)                                                                                    \
	switch (es) {                                                                                          \
	case 1: RUN(uint8_t, 8) break;                                                                         \
	case 2: RUN(uint16_t, 16) break;                                                                       \
	case 4: RUN(uint32_t, 32) break;                                                                       \
	default: RUN(uint64_t, 64) break;                                                                      \
	}

/* One run of the map: len elements whose global indices are g0, g0 + gs,
 * ...; EXPR (of g) stored as T. */
#define FILL_RUN(T, EXPR)                                                                                    \
	for (int64_t j_ = 0; j_ < len; j_++) {                                                                 \
		const uint64_t g = g0 + (uint64_t)(j_ * gs);                                                   \
		((T *)(void *)p)[j_] = (T)(EXPR);                                                              \
	}

/* Run by run along the map, the fill's mode and width decided once per
 * run: the per-element work is the value itself. */
SC_ELEMENT_LOOP static void fill_host(unsigned char *p, unsigned es, const struct sc_hd_fill *f, const struct sc_map *m, int64_t n)
{
	struct sc_iter it;
	sc_iter_init_runs(&it, m->shape, m->stride, m->ndim, m->offset);
	struct sc_hd_values v = sc_hd_values_of(f->seed);
	struct sc_hd_small sm = {0};
	if (f->mode == SC_FILL_SMALL)
		sc_hd_small_init(&sm, f->dtype, f->op, f->seed, f->rank);
	for (int64_t k = 0; k < n;) {
		const int64_t len = sc_iter_run(&it), gs = sc_iter_step(&it);
		const uint64_t g0 = (uint64_t)it.off;
#define FILL_VALUE(T, W) FILL_RUN(T, sc_hd_values_bits(&v, (W), g))
#define FILL_SMALL(T, W) FILL_RUN(T, sc_hd_small_bits(&sm, g))
		if (f->mode == SC_FILL_PROV) {
			FILL_RUN(uint64_t, g)
		} else if (f->mode == SC_FILL_VALUE) {
			BY_WIDTH(es, FILL_VALUE)
		} else if (f->mode == SC_FILL_SMALL) {
			BY_WIDTH(es, FILL_SMALL)
		} else {
			for (int64_t j = 0; j < len; j++)
				sc_store_bits(p + (size_t)j * es, es, sc_hd_fill_bits(f, g0 + (uint64_t)(j * gs)));
		}
		p += (size_t)len * es;
		k += len;
		sc_iter_skip(&it, len);
	}
}
#undef FILL_VALUE
#undef FILL_SMALL
#undef FILL_RUN

/* Fills rank r's input tensor (allocated here) on the device or the host;
 * *f is its fill. A rank whose fill is the previous rank's (*f on entry,
 * r > 0: a replicated input, the same elements in the same places) gets a
 * copy of that rank's host tensor instead of every value again; so does
 * one whose fill depends only on the width (indices, values) from `like`,
 * the same rank's input of another dtype of that width (NULL: none). */
static enum sc_status fill_input(const struct sc_spec *s0, int red, const struct sc_case *c, struct sc_exec *x,
				 int r, const struct sc_tensor *like, struct sc_hd_fill *f, struct sc_err *e)
{
	const int rank = x->first + r;
	const unsigned es = x->prov ? 8u : (unsigned)sc_dtype_size(c->dtype);
	struct sc_map m;
	struct sc_mesh lcm;
	const struct sc_layout_ctx lc = sc_layout_ctx_case(s0, &c->counts, c->sizes, c->world, &lcm);
	sc_layout_map_in(&s0->in, &lc, c->sizes, c->ndims, c->world, rank, &m);
	struct sc_tensor *tt = &x->t[r];
	sc_arena_on(x->arena, rank);
	SC_CHECK(sc_tensor_empty(x->arena, m.lshape, m.lndim, es, tt, e));
	const int64_t n = sc_tensor_numel(tt);
	struct sc_hd_fill mine;
	input_fill(s0, red, c, rank, x->prov, &mine); /* zeroed first: whole structs compare */
	map_strided(&m, &mine.xmap);
	if (mine.mode == SC_FILL_PROV || mine.mode == SC_FILL_VALUE)
		mine.rank = mine.world = 0; /* X[g] alone */
	const int same = r > 0 && memcmp(&mine, f, sizeof mine) == 0;
	*f = mine;
	if (tt->buf->dm) {
		struct sc_devmem *dm = tt->buf->dm;
		sc_devmem_fail(dm, dm->ops->fill(dm, rank, tt->buf->data, &mine, n), "fill", rank);
		return SC_OK;
	}
	if (like && (mine.mode == SC_FILL_PROV || mine.mode == SC_FILL_VALUE) && !like->buf->dm &&
	    sc_tensor_numel(like) == n && like->buf->esize == es && like->offset == 0 && like->ndim == tt->ndim &&
	    memcmp(like->shape, tt->shape, sizeof tt->shape[0] * (size_t)tt->ndim) == 0) {
		memcpy(tt->buf->data, like->buf->data, (size_t)n * es);
		return SC_OK;
	}
	const struct sc_tensor *prev = r > 0 ? &x->t[r - 1] : NULL;
	if (same && !prev->buf->dm && sc_tensor_numel(prev) == n && prev->buf->esize == es && prev->offset == 0) {
		memcpy(tt->buf->data, prev->buf->data, (size_t)n * es);
		return SC_OK;
	}
	fill_host(tt->buf->data, es, &mine, &m, n);
	return SC_OK;
}

enum sc_status sc_verify_fill(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			      struct sc_tensor *inputs, struct sc_err *e)
{
	return sc_verify_fill_like(t, c, x, NULL, inputs, e);
}

enum sc_status sc_verify_fill_like(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
				   const struct sc_tensor *like, struct sc_tensor *inputs, struct sc_err *e)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	SC_CHECK(sc_target_specs(t, c, s, &ns, e));
	const int red = sc_target_has_reduction(t, c);
	x->world = c->world;
	x->dtype = c->dtype;
	x->counts = &c->counts;
	x->nlocal = x->be->ops->local_ranks(x->be, c->world, &x->first);
	/* data-movement runs live on the device when there is one; compute
	 * specs (f64 pairs) and host-only targets (plugins) stay here */
	x->arena->use_dm = x->arena->dm && !s[0]->compute && !(t->ops->flags & SC_TARGET_HOST_ONLY);
	struct sc_hd_fill f;
	for (int r = 0; r < x->nlocal; r++) {
		SC_CHECK(fill_input(s[0], red, c, x, r, like ? &like[r] : NULL, &f, e));
		if (inputs)
			inputs[r] = x->t[r];
	}
	return SC_OK;
}

enum sc_status sc_verify_run(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			     struct sc_tensor *inputs, struct sc_err *e)
{
	SC_CHECK(sc_verify_fill(t, c, x, inputs, e));
	return sc_target_run(t, c, x, e);
}

/* Wrong element number `flat` (row-major) of a rank's output of shape. */
static void record(struct sc_failure *f, int rank, const int64_t *shape, int nd, int64_t flat, uint64_t g,
		   uint64_t exp, uint64_t act, int prov)
{
	if (f->nfirst >= SC_MAX_FIRST)
		return;
	struct sc_wrong *w = &f->first[f->nfirst++];
	memset(w, 0, sizeof *w);
	w->rank = rank;
	w->ndim = nd;
	sc_shape_unravel(shape, nd, flat, w->index);
	w->expected_from = g;
	w->expected_bits = exp;
	w->actual_bits = act;
	if (prov) {
		w->actual_from = act;
		w->have_prov = 1;
	}
}

/* A shape mismatch on any local rank: one message, the expected elements
 * counted as wrong, the first such rank in f->shape_rank. Returns 1 when
 * there was one. */
static int shape_mismatch(const struct sc_spec *s, const struct sc_layout *out, const struct sc_case *c,
			  const int64_t *ysizes, const struct sc_exec *x, struct sc_failure *f)
{
	int bad = 0;
	for (int r = 0; r < x->nlocal; r++) {
		if (!sc_layout_checks(s, out, c->sizes, c->world, x->first + r))
			continue;
		struct sc_map m;
		struct sc_mesh lcm;
		const struct sc_layout_ctx lc = sc_layout_ctx_case(s, &c->counts, c->sizes, c->world, &lcm);
		sc_layout_map_in(out, &lc, ysizes, c->ndims, c->world, x->first + r, &m);
		const struct sc_tensor *tt = &x->t[r];
		int same = tt->ndim == m.lndim;
		for (int d = 0; same && d < m.lndim; d++)
			same = tt->shape[d] == m.lshape[d];
		if (same)
			continue;
		if (!bad) { /* the first rank's message; every rank's elements counted, as mpi sums them */
			f->shape_rank = 1 + x->first + r;
			char a[160], b[160], rk[96];
			sc_shape_format(tt->shape, tt->ndim, a, sizeof a);
			sc_shape_format(m.lshape, m.lndim, b, sizeof b);
			sc_layout_rank_text(s, c->sizes, c->world, x->first + r, rk, sizeof rk);
			snprintf(f->msg, sizeof f->msg, "rank %s output has shape %s, but the output placement needs %s", rk,
				 a, b);
			f->wrong = 0;
		}
		const int64_t n = sc_shape_numel(m.lshape, m.lndim);
		f->wrong += n ? n : 1;
		bad = 1;
	}
	return bad;
}

/* The step after which one rank's tensor last changed shape, while a
 * replay of the case runs step by step. */
struct trail {
	int rank; /* local */
	int ndim;
	int64_t shape[SC_MAX_DIMS];
	const struct sc_spec *s;
	const struct sc_step *st;
	int pndim;
	int64_t prev[SC_MAX_DIMS]; /* its shape before that step */
};

static void note_shape(const struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st, void *ctx)
{
	struct trail *tr = ctx;
	const struct sc_tensor *tt = &x->t[tr->rank];
	if (tt->ndim == tr->ndim && memcmp(tt->shape, tr->shape, sizeof tt->shape[0] * (size_t)tt->ndim) == 0)
		return;
	tr->s = s;
	tr->st = st;
	tr->pndim = tr->ndim;
	memcpy(tr->prev, tr->shape, sizeof tr->prev);
	tr->ndim = tt->ndim;
	memcpy(tr->shape, tt->shape, sizeof tt->shape[0] * (size_t)tt->ndim);
}

int sc_verify_shape_trail(struct sc_target *t, const struct sc_case *c, struct sc_backend *be, int rank, char *out,
			  size_t n)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns, first = 0;
	if ((t->ops->flags & SC_TARGET_HOST_ONLY) || be->ops->local_ranks(be, c->world, &first) != c->world ||
	    first != 0 || rank < 0 || rank >= c->world || sc_target_specs(t, c, s, &ns, NULL) != SC_OK || s[0]->compute)
		return 0;
	struct sc_arena a;
	sc_arena_init(&a);
	struct sc_exec y;
	memset(&y, 0, sizeof y);
	y.arena = &a;
	y.be = be;
	y.prov = 1;
	struct sc_err e;
	struct trail tr = {.rank = rank};
	y.on_step = note_shape;
	y.on_step_ctx = &tr;
	int ran = sc_verify_fill(t, c, &y, NULL, &e) == SC_OK;
	if (ran) {
		tr.ndim = y.t[rank].ndim;
		memcpy(tr.shape, y.t[rank].shape, sizeof tr.shape);
	}
	ran = ran && sc_target_run(t, c, &y, &e) == SC_OK;
	sc_arena_free(&a);
	if (!ran)
		return 0;
	if (!tr.st) {
		snprintf(out, n, "no step changed its shape: it is the input's");
		return 1;
	}
	char a1[160], a0[160];
	sc_shape_format(tr.shape, tr.ndim, a1, sizeof a1);
	sc_shape_format(tr.prev, tr.pndim, a0, sizeof a0);
	const char *base = strrchr(tr.s->path, '/') ? strrchr(tr.s->path, '/') + 1 : tr.s->path;
	snprintf(out, n, "the shape became %s at %s:%d (%s%s%s), from %s", a1, base, tr.st->line, tr.st->def->keyword,
		 tr.st->src[0] ? ", " : "", tr.st->src, a0);
	return 1;
}

/* A partial output: X = OP over ranks of the outputs, reduced on the
 * backend into red[] (provenance: max and min agree where one element
 * arrived everywhere). */
/* The partial output reduced over its group (the whole world, or each
 * group of a mesh placement's partial mesh dims), into red[]. */
static enum sc_status reduce_partial(const struct sc_spec *so, const struct sc_layout *out, const struct sc_case *c,
				     struct sc_exec *x, struct sc_tensor *red, struct sc_err *e)
{
	const unsigned es = x->prov ? 8u : (unsigned)sc_dtype_size(c->dtype);
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD], *mn[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor cc, mt;
		sc_arena_on(x->arena, x->first + r);
		SC_CHECK(sc_tensor_empty(x->arena, x->t[r].shape, x->t[r].ndim, es, &cc, e));
		sc_tensor_copy(&cc, &x->t[r]);
		send[r] = cc.buf->data;
		SC_CHECK(sc_tensor_empty(x->arena, x->t[r].shape, x->t[r].ndim, es, &red[r], e));
		recv[r] = red[r].buf->data;
		if (x->prov) {
			SC_CHECK(sc_tensor_empty(x->arena, x->t[r].shape, x->t[r].ndim, 8, &mt, e));
			mn[r] = mt.buf->data;
		}
	}
	static _Thread_local struct sc_groups gs;
	const struct sc_mesh mesh = sc_spec_mesh(so, c->sizes, c->world);
	struct sc_mesh_group all = {1, {0}};
	const struct sc_mesh flat = sc_mesh_flat(c->world);
	sc_mesh_groups(out->nent ? &mesh : &flat, out->nent ? &out->partial : &all, &gs);
	for (int g = 0; g < gs.n; g++) {
		void *gsend[SC_MAX_WORLD], *grecv[SC_MAX_WORLD], *gmn[SC_MAX_WORLD];
		int k = 0;
		int64_t n = 0; /* one shape within a partial group (checked before); groups may differ */
		for (int i = 0; i < gs.size; i++) {
			const int r = gs.member[g * gs.size + i] - x->first;
			if (r < 0 || r >= x->nlocal)
				continue;
			n = sc_tensor_numel(&x->t[r]);
			gsend[k] = send[r];
			grecv[k] = recv[r];
			gmn[k++] = x->prov ? mn[r] : NULL;
		}
		if (!k)
			continue;
		struct sc_backend *be;
		SC_CHECK(gs.n > 1 ? sc_backend_group(x->be, &gs, g, &be, e) : (be = x->be, SC_OK));
		if (!x->prov) {
			SC_CHECK(be->ops->all_reduce(be, gs.size, gsend, grecv, (size_t)n, c->dtype, out->op, e));
			continue;
		}
		/* padding takes part as nothing, as in an all_reduce step: 0 for
		 * the max (a zeros buffer a rank wrote its part into, summed) */
		void *gmax[SC_MAX_WORLD];
		if (x->pads)
			SC_CHECK(sc_prov_unpad(x, gsend, gmax, (size_t)n, e));
		SC_CHECK(be->ops->all_reduce(be, gs.size, x->pads ? gmax : gsend, grecv, (size_t)n, SC_U64, SC_MAX, e));
		SC_CHECK(be->ops->all_reduce(be, gs.size, gsend, gmn, (size_t)n, SC_U64, SC_MIN, e));
		if (x->pads)
			SC_CHECK(sc_prov_repad(x, grecv, gmn, (size_t)n, e));
	}
	for (int r = 0; x->prov && r < x->nlocal; r++)
		SC_CHECK(sc_prov_merge_rank(x, r, recv[r], mn[r], (size_t)sc_tensor_numel(&x->t[r]), e));
	return SC_OK;
}

/* Checks a device-resident output in place; only the first mismatches
 * come back. */
static enum sc_status check_on_device(const struct sc_tensor *tt, int rank, struct sc_map *m,
				      struct sc_hd_fill *want, int prov, struct sc_failure *f, int64_t *wrong,
				      struct sc_err *e)
{
	struct sc_devmem *dm = tt->buf->dm;
	struct sc_dev_mismatch mis[SC_MAX_FIRST];
	struct sc_strided ov;
	int64_t w = 0;
	const int kfirst = SC_MAX_FIRST - f->nfirst;
	map_strided(m, &want->xmap);
	sc_tensor_strided(tt, &ov);
	sc_devmem_fail(dm, dm->ops->check(dm, rank, tt->buf->data, &ov, want, sc_tensor_numel(tt), &w, mis, kfirst),
		       "check", rank);
	SC_CHECK(sc_devmem_status(dm, 1, e));
	for (int k = 0; k < kfirst && k < w; k++)
		record(f, rank, tt->shape, tt->ndim, mis[k].index, mis[k].g, mis[k].expected, mis[k].actual, prov);
	*wrong += w;
	return SC_OK;
}

/* Checks a host output run by run, walking the map beside it; the fill's
 * mode and the element width decided once per run. */
SC_ELEMENT_LOOP static void check_on_host(const struct sc_tensor *tt, int rank, const struct sc_map *m,
			  const struct sc_hd_fill *want, int prov, unsigned es, struct sc_failure *f, int64_t *wrong)
{
	struct sc_iter mi, ti;
	sc_iter_init_runs(&mi, m->shape, m->stride, m->ndim, m->offset);
	sc_iter_init_runs(&ti, tt->shape, tt->stride, tt->ndim, tt->offset);
	const unsigned char *base = tt->buf->data;
	const int64_t n = sc_tensor_numel(tt);
	struct sc_hd_values v = sc_hd_values_of(want->seed);
	struct sc_hd_small sm = {0};
	if (want->mode == SC_FILL_SMALL)
		sc_hd_small_init(&sm, want->dtype, want->op, want->seed, want->rank);
#define CHECK_RUN(T, EXP)                                                                                    \
	for (int64_t j = 0; j < len; j++) {                                                                    \
		const uint64_t g = g0 + (uint64_t)(j * gs);                                                    \
		const uint64_t act = ((const T *)(const void *)a0)[j * ts];                                   \
		const uint64_t exp = (EXP);                                                                    \
		if (act != exp) {                                                                              \
			(*wrong)++;                                                                            \
			record(f, rank, tt->shape, tt->ndim, k + j, g, exp, act, prov);                       \
		}                                                                                              \
	}
	for (int64_t k = 0; k < n;) {
		const int64_t len = sc_iter_run2(&mi, &ti), gs = sc_iter_step(&mi), ts = sc_iter_step(&ti);
		const uint64_t g0 = (uint64_t)mi.off;
		const unsigned char *a0 = base + (size_t)ti.off * es;
#define CHECK_VALUE(T, W) CHECK_RUN(T, sc_hd_values_bits(&v, (W), g))
#define CHECK_SMALL(T, W) CHECK_RUN(T, sc_hd_small_bits(&sm, g))
#define CHECK_OTHER(T, W) CHECK_RUN(T, sc_hd_fill_bits(want, g))
		if (want->mode == SC_FILL_PROV) {
			CHECK_RUN(uint64_t, g)
		} else if (want->mode == SC_FILL_VALUE) {
			BY_WIDTH(es, CHECK_VALUE)
		} else if (want->mode == SC_FILL_SMALL) {
			BY_WIDTH(es, CHECK_SMALL)
		} else {
			BY_WIDTH(es, CHECK_OTHER)
		}
		k += len;
		sc_iter_skip(&mi, len);
		sc_iter_skip(&ti, len);
	}
#undef CHECK_VALUE
#undef CHECK_SMALL
#undef CHECK_OTHER
#undef CHECK_RUN
}

int64_t sc_verify_input_changed(struct sc_target *t, const struct sc_case *c, struct sc_exec *x, int r,
				const struct sc_tensor *in, int64_t *first)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	const int64_t n = sc_tensor_numel(in);
	if (sc_target_specs(t, c, s, &ns, NULL) != SC_OK)
		return 0;
	struct sc_map m;
	struct sc_mesh lcm;
	const struct sc_layout_ctx lc = sc_layout_ctx_case(s[0], &c->counts, c->sizes, c->world, &lcm);
	sc_layout_map_in(&s[0]->in, &lc, c->sizes, c->ndims, c->world, x->first + r, &m);
	struct sc_hd_fill want; /* what fill_input wrote */
	input_fill(s[0], sc_target_has_reduction(t, c), c, x->first + r, x->prov, &want);
	struct sc_failure f;
	f.nfirst = 0;
	int64_t wrong = 0;
	if (in->buf->dm) {
		struct sc_err e;
		if (check_on_device(in, x->first + r, &m, &want, x->prov, &f, &wrong, &e) != SC_OK)
			return n ? n : 1; /* not read back: nothing is known unchanged */
	} else {
		check_on_host(in, x->first + r, &m, &want, x->prov, in->buf->esize, &f, &wrong);
	}
	if (wrong && f.nfirst) { /* the first recorded is the first in row-major order */
		int64_t k = 0;
		for (int d = 0; d < in->ndim; d++)
			k = k * in->shape[d] + f.first[0].index[d];
		*first = k;
	}
	return wrong;
}

/* With a reference: each output element against the element of Y its
 * placement names, that is the element of X (or the padding) Y holds. */
SC_ELEMENT_LOOP static enum sc_status check_ref(struct sc_exec *x, const struct sc_tensor *tt, int rank, const struct sc_map *m,
				const struct sc_tensor *y, const struct sc_hd_fill *want, int prov, unsigned es,
				struct sc_failure *f, int64_t *wrong, struct sc_err *e)
{
	const unsigned char *base = sc_tensor_host(x->arena, tt);
	if (!base)
		return SC_ERR(e, SC_E_IO, "could not read rank %d's output from the device", rank);
	const uint64_t *yp = (const uint64_t *)(const void *)y->buf->data + y->offset;
	struct sc_iter mi, ti;
	sc_iter_init_runs(&mi, m->shape, m->stride, m->ndim, m->offset);
	sc_iter_init_runs(&ti, tt->shape, tt->stride, tt->ndim, tt->offset);
	const int64_t n = sc_tensor_numel(tt);
	for (int64_t k = 0; k < n;) {
		const int64_t len = sc_iter_run2(&mi, &ti), gs = sc_iter_step(&mi), ts = sc_iter_step(&ti);
		for (int64_t j = 0; j < len; j++) {
			const uint64_t g = yp[mi.off + j * gs];
			const uint64_t act = sc_load_bits(base + (size_t)(ti.off + j * ts) * es, es);
			const uint64_t exp = g == SC_PROV_PAD ? (prov ? SC_PROV_PAD : 0) : sc_hd_fill_bits(want, g);
			if (act != exp) {
				(*wrong)++;
				record(f, rank, tt->shape, tt->ndim, k + j, g, exp, act, prov);
			}
		}
		k += len;
		sc_iter_skip(&mi, len);
		sc_iter_skip(&ti, len);
	}
	return SC_OK;
}

enum sc_status sc_verify_output(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
				struct sc_failure *f, int64_t *wrong, struct sc_err *e)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	SC_CHECK(sc_target_specs(t, c, s, &ns, e));
	const struct sc_layout *out = &s[ns - 1]->out;
	/* the output places Y, the reference's result, or X itself */
	struct sc_tensor y;
	const int64_t *ysizes = c->sizes;
	int64_t ymerged[SC_MAX_DIMS];
	if (s[ns - 1]->ref_line) {
		struct sc_err re;
		enum sc_status rc = sc_reference_run(x->arena, s[ns - 1], c->sizes, c->world, &c->counts, &y, &re);
		if (rc == SC_E_RUNTIME) {
			f->runtime_error = 1;
			snprintf(f->msg, sizeof f->msg, "the reference: %.480s", re.msg);
			*wrong = f->wrong = 1;
			return SC_OK;
		}
		if (rc != SC_OK) {
			*e = re;
			return rc;
		}
		ysizes = sc_reference_sizes(&y, c->sizes, ymerged);
	}
	if (shape_mismatch(s[ns - 1], out, c, ysizes, x, f)) {
		*wrong = f->wrong;
		return SC_OK;
	}
	struct sc_tensor red[SC_MAX_WORLD];
	const struct sc_tensor *chk = x->t;
	struct sc_layout whole = *out;
	if (out->kind == SC_PARTIAL) {
		SC_CHECK(reduce_partial(s[ns - 1], out, c, x, red, e));
		chk = red;
		sc_layout_drop_partial(&whole);
	}
	struct sc_hd_fill want;
	expect_fill(t, s[0], c, x->prov, &want);
	const unsigned es = x->prov ? 8u : (unsigned)sc_dtype_size(c->dtype);
	int64_t n = 0;
	struct sc_map m, right; /* right: the map of the last rank found all right (prev that rank) */
	int prev = -1;
	for (int r = 0; r < x->nlocal; r++) {
		if (!sc_layout_checks(s[ns - 1], out, c->sizes, c->world, x->first + r))
			continue; /* `only E`: another rank's result */
		struct sc_mesh lcm;
		const struct sc_layout_ctx lc = sc_layout_ctx_case(s[ns - 1], &c->counts, c->sizes, c->world, &lcm);
		sc_layout_map_in(&whole, &lc, ysizes, c->ndims, c->world, x->first + r, &m);
		/* a replicated output: the same bits as a rank found right are right */
		if (prev >= 0 && sc_layout_map_same(&m, &right) && sc_tensor_same_bytes(&chk[r], &chk[prev]))
			continue;
		const int64_t before = n;
		if (s[ns - 1]->ref_line)
			SC_CHECK(check_ref(x, &chk[r], x->first + r, &m, &y, &want, x->prov, es, f, &n, e));
		else if (chk[r].buf->dm)
			SC_CHECK(check_on_device(&chk[r], x->first + r, &m, &want, x->prov, f, &n, e));
		else
			check_on_host(&chk[r], x->first + r, &m, &want, x->prov, es, f, &n);
		if (n == before) {
			prev = r;
			right = m;
		}
	}
	f->wrong = n;
	*wrong = n;
	return SC_OK;
}

void sc_verify_format_from(const struct sc_case *c, uint64_t g, char *buf, size_t n)
{
	if (g == SC_PROV_POISON) {
		snprintf(buf, n, "nothing (never written)");
		return;
	}
	if (g == SC_PROV_MIXED) {
		snprintf(buf, n, "a reduction of different elements");
		return;
	}
	if (g == SC_PROV_PAD) {
		snprintf(buf, n, "padding");
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
