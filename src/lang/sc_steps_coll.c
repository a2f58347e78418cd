/* sc_steps_coll: the collectives, as rows of the step table
 * (docs/language.md, "Steps"): the dim-0 collectives of torch.distributed
 * on contiguous memory (all_to_all_single, all_gather_into_tensor,
 * reduce_scatter_tensor, all_reduce; `raw` reads the storage anyway) and
 * the list forms along any dim (all_to_all split= concat=, all_gather
 * dim=, reduce_scatter dim= op=). Data moves through the backend; a
 * provenance run reduces indices by max and min, a compute run reduces
 * (value, bound) pairs through the hook the compute module installs. */
#include <string.h>

#include "sc_devmem.h"
#include "sc_exchange.h"
#include "sc_expr.h"
#include "sc_interp.h"
#include "sc_lex.h"
#include "sc_step.h"

/* ---- parsing ---- */

/* An optional `raw` suffix, then the end of the line. */
static enum sc_status parse_raw(struct sc_parse *p, struct sc_step *st)
{
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind == SC_T_NAME && strcmp(t->text, "raw") == 0) {
		st->raw = 1;
		p->pos++;
	}
	return sc_lex_end(p);
}

static enum sc_status parse_op_raw(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_redop(p, &st->redop));
	return parse_raw(p, st);
}

static enum sc_status parse_split_concat(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_kv_int(p, "split", &st->args[0]));
	SC_CHECK(sc_lex_kv_int(p, "concat", &st->args[1]));
	st->nargs = 2;
	return sc_lex_end(p);
}

static enum sc_status parse_dim_op(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_kv_int(p, "dim", &st->args[0]));
	st->nargs = 1;
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind != SC_T_NAME || strcmp(t->text, "op") != 0)
		return sc_lex_err(p, t->col, "expected 'op='");
	p->pos++;
	if (!sc_lex_is_op(sc_lex_peek(p), "="))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '=' after 'op'");
	p->pos++;
	SC_CHECK(sc_lex_redop(p, &st->redop));
	SC_CHECK(sc_steps_parse_rs_sizes(p, st));
	if (st->nargs > 1)
		st->flags |= SC_STEP_VARIES;
	return sc_lex_end(p);
}

/* reduce OP dst=E */
static enum sc_status parse_reduce_dst(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_redop(p, &st->redop));
	int seen;
	SC_CHECK(sc_exchange_parse_kv(p, "dst", 0, &st->args[0], &seen));
	if (!seen)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected 'dst=' (the rank that receives the reduction)");
	st->nargs = 1;
	return parse_raw(p, st);
}

/* ---- shared by the executions ---- */

/* Pointers to each local rank's input as flat memory (contiguous or raw). */
static enum sc_status coll_inputs(struct sc_exec *x, const struct sc_step *st, void **send,
				  struct sc_err *e)
{
	const unsigned es = sc_interp_esize(x);
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor *t = &x->t[r];
		int64_t n = sc_tensor_numel(t);
		if (!st->raw && !sc_tensor_is_contig(t))
			return sc_interp_fail(e, st, "Tensors must be contiguous (torch.distributed rejects a non-contiguous input; transcribe a missing .contiguous() with the 'raw' suffix)");
		if (st->raw && t->offset + n > t->buf->nelem)
			return sc_interp_fail(e, st, "raw read of %lld elements from storage offset %lld runs past the end of the tensor's storage (%lld elements)",
				  (long long)n, (long long)t->offset, (long long)t->buf->nelem);
		send[r] = t->buf->data + (size_t)t->offset * es;
	}
	return SC_OK;
}

static enum sc_status alloc_outputs(struct sc_exec *x, const int64_t *shape, int nd,
				    struct sc_tensor *outs, void **recv, struct sc_err *e)
{
	for (int r = 0; r < x->nlocal; r++) {
		SC_CHECK(sc_tensor_empty(sc_interp_on(x, r), shape, nd, sc_interp_esize(x), &outs[r], e));
		recv[r] = outs[r].buf->data;
	}
	return SC_OK;
}

/* Reduction through the backend; a provenance run reduces indices by
 * max and min: equal means every rank contributed the same element. */
static enum sc_status reduce(struct sc_exec *x, int scatter, void **send, void **recv,
			     size_t count, enum sc_redop op, struct sc_err *e)
{
	struct sc_backend *be = x->be;
	if (x->compute) {
		if (!x->pair_reduce)
			return SC_ERR(e, SC_E_INTERNAL, "a compute run without its pair reduction");
		return x->pair_reduce(x, scatter, send, recv, count, op, e);
	}
	if (!x->prov) {
		if (scatter)
			return be->ops->reduce_scatter(be, x->world, send, recv, count, x->dtype, op, e);
		return be->ops->all_reduce(be, x->world, send, recv, count, x->dtype, op, e);
	}
	void *mins[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_buf *b = sc_arena_buf(sc_interp_on(x, r), (int64_t)count, 8);
		if (!b)
			return sc_interp_arena_fail(x, e);
		mins[r] = b->data;
	}
	/* padding takes part as nothing: 0 for the max (it stays the largest
	 * value for the min, so padding alone is seen there) */
	void *unpadded[SC_MAX_WORLD];
	void **smax = send;
	if (x->pads) {
		SC_CHECK(sc_prov_unpad(x, send, unpadded, scatter ? count * (size_t)x->world : count, e));
		smax = unpadded;
	}
	if (scatter) {
		SC_CHECK(be->ops->reduce_scatter(be, x->world, smax, recv, count, SC_U64, SC_MAX, e));
		SC_CHECK(be->ops->reduce_scatter(be, x->world, send, mins, count, SC_U64, SC_MIN, e));
	} else {
		SC_CHECK(be->ops->all_reduce(be, x->world, smax, recv, count, SC_U64, SC_MAX, e));
		SC_CHECK(be->ops->all_reduce(be, x->world, send, mins, count, SC_U64, SC_MIN, e));
	}
	if (x->pads)
		SC_CHECK(sc_prov_repad(x, recv, mins, count, e));
	return sc_prov_merge(x, recv, mins, count, e);
}


/* Packs chunk k (along dim ci) of each rank's tensor into segment k of a
 * contiguous buffer: the send buffer of a list collective. */
static enum sc_status pack_chunks(struct sc_exec *x, int ci, void **send, int64_t *chunk_numel,
				  struct sc_err *e)
{
	const int64_t P = x->world;
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor *t = &x->t[r];
		const int64_t m = t->shape[ci] / P;
		struct sc_tensor seg;
		int64_t cshape[SC_MAX_DIMS];
		memcpy(cshape, t->shape, sizeof cshape);
		cshape[ci] = m;
		const int64_t cn = sc_shape_numel(cshape, t->ndim);
		struct sc_buf *b = sc_arena_buf(sc_interp_on(x, r), cn * P, sc_interp_esize(x));
		if (!b)
			return sc_interp_arena_fail(x, e);
		for (int64_t k = 0; k < P; k++) {
			struct sc_tensor src = *t;
			sc_interp_narrow(&src, ci, k * m, m);
			seg.buf = b;
			seg.offset = k * cn;
			seg.ndim = t->ndim;
			memcpy(seg.shape, cshape, sizeof cshape);
			sc_contig_strides(cshape, t->ndim, seg.stride);
			sc_tensor_copy(&seg, &src);
		}
		send[r] = b->data;
		*chunk_numel = cn;
	}
	return SC_OK;
}

/* Unpacks P received segments (each of shape seg_shape) into a new tensor,
 * segment k at [k*len, (k+1)*len) along dim cj. */
static enum sc_status unpack_segments(struct sc_exec *x, struct sc_buf **bufs,
				      const int64_t *seg_shape, int nd, int cj, struct sc_err *e)
{
	const int64_t P = x->world;
	int64_t oshape[SC_MAX_DIMS];
	memcpy(oshape, seg_shape, sizeof oshape);
	oshape[cj] *= P;
	const int64_t sn = sc_shape_numel(seg_shape, nd);
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor out;
		SC_CHECK(sc_tensor_empty(sc_interp_on(x, r), oshape, nd, sc_interp_esize(x), &out, e));
		for (int64_t k = 0; k < P; k++) {
			struct sc_tensor src, dst = out;
			src.buf = bufs[r];
			src.offset = k * sn;
			src.ndim = nd;
			memcpy(src.shape, seg_shape, sizeof src.shape);
			sc_contig_strides(seg_shape, nd, src.stride);
			sc_interp_narrow(&dst, cj, k * seg_shape[cj], seg_shape[cj]);
			sc_tensor_copy(&dst, &src);
		}
		x->t[r] = out;
	}
	return SC_OK;
}


/* The dim-0 collectives' common start: the flat inputs, their shape. */
struct dim0 {
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	struct sc_tensor outs[SC_MAX_WORLD];
	int64_t shape[SC_MAX_DIMS];
	int nd;
	int64_t n, P;
};

static enum sc_status dim0_begin(struct sc_exec *x, const struct sc_step *st, int scalar_ok, struct dim0 *d,
				 struct sc_err *e)
{
	struct sc_tensor *t0 = &x->t[0];
	d->P = x->world;
	d->nd = t0->ndim;
	d->n = sc_tensor_numel(t0);
	memcpy(d->shape, t0->shape, sizeof d->shape);
	if (d->nd == 0 && !scalar_ok)
		return sc_interp_fail(e, st, "dimension specified as 0 but tensor has no dimensions");
	return coll_inputs(x, st, d->send, e);
}

static void dim0_end(struct sc_exec *x, const struct dim0 *d)
{
	for (int r = 0; r < x->nlocal; r++)
		x->t[r] = d->outs[r];
}

static enum sc_status exec_a2a_single(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				      const int64_t *sizes, struct sc_err *e)
{
	if (st->form) /* split sizes */
		return sc_steps_a2a_sized(x, s, st, sizes, e);
	struct dim0 d;
	SC_CHECK(dim0_begin(x, st, 0, &d, e));
	if (d.shape[0] % d.P != 0)
		return sc_interp_fail(e, st, "Tensor's dim 0 does not divide equally across group size (dim 0 is %lld, world size %lld)",
				      (long long)d.shape[0], (long long)d.P);
	SC_CHECK(alloc_outputs(x, d.shape, d.nd, d.outs, d.recv, e));
	SC_CHECK(x->be->ops->all_to_all(x->be, x->world, d.send, d.recv, (size_t)(d.n / d.P) * sc_interp_esize(x), e));
	dim0_end(x, &d);
	return SC_OK;
}

static enum sc_status exec_ag_tensor(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				     const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	struct dim0 d;
	SC_CHECK(dim0_begin(x, st, 1, &d, e));
	if (d.nd == 0) {
		d.nd = 1;
		d.shape[0] = d.P;
	} else {
		d.shape[0] *= d.P;
	}
	SC_CHECK(alloc_outputs(x, d.shape, d.nd, d.outs, d.recv, e));
	SC_CHECK(x->be->ops->all_gather(x->be, x->world, d.send, d.recv, (size_t)d.n * sc_interp_esize(x), e));
	dim0_end(x, &d);
	return SC_OK;
}

static enum sc_status exec_rs_tensor(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				     const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	struct dim0 d;
	SC_CHECK(dim0_begin(x, st, 0, &d, e));
	if (d.shape[0] % d.P != 0)
		return sc_interp_fail(e, st, "input tensor must be the same size as output size times world size (dim 0 is %lld, world size %lld)",
				      (long long)d.shape[0], (long long)d.P);
	d.shape[0] /= d.P;
	SC_CHECK(alloc_outputs(x, d.shape, d.nd, d.outs, d.recv, e));
	SC_CHECK(reduce(x, 1, d.send, d.recv, (size_t)(d.n / d.P), st->redop, e));
	dim0_end(x, &d);
	return SC_OK;
}

static enum sc_status exec_all_reduce(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				      const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	struct dim0 d;
	SC_CHECK(dim0_begin(x, st, 1, &d, e));
	SC_CHECK(alloc_outputs(x, d.shape, d.nd, d.outs, d.recv, e));
	SC_CHECK(reduce(x, 0, d.send, d.recv, (size_t)d.n, st->redop, e));
	dim0_end(x, &d);
	return SC_OK;
}

/* The list forms' common start: dim i (and j), checked. */
static enum sc_status list_begin(struct sc_exec *x, const struct sc_step *st, int two, int *i, int *j,
				 struct sc_err *e)
{
	const int nd = x->t[0].ndim;
	if (nd == 0)
		return sc_interp_fail(e, st, "zero-dimensional tensor cannot be split or concatenated");
	SC_CHECK(sc_interp_wrap_dim(st, st->args[0], nd, i, e));
	if (two)
		SC_CHECK(sc_interp_wrap_dim(st, st->args[1], nd, j, e));
	return SC_OK;
}

static enum sc_status divisible(struct sc_exec *x, const struct sc_step *st, int i, struct sc_err *e)
{
	const int64_t P = x->world;
	if (x->t[0].shape[i] % P != 0)
		return sc_interp_fail(e, st, "dim %d (size %lld) is not divisible by the world size %lld", i,
				      (long long)x->t[0].shape[i], (long long)P);
	return SC_OK;
}

static enum sc_status exec_all_gather(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				      const int64_t *sizes, struct sc_err *e)
{
	if (s->varies) /* tensors may differ along the dim (uneven list all_gather) */
		return sc_steps_ag_sized(x, s, st, sizes, e);
	int i = 0, j = 0;
	SC_CHECK(list_begin(x, st, 0, &i, &j, e));
	const struct sc_tensor *t0 = &x->t[0];
	const int64_t P = x->world, n = sc_tensor_numel(t0);
	const unsigned es = sc_interp_esize(x);
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	struct sc_buf *rbufs[SC_MAX_WORLD];
	int64_t seg[SC_MAX_DIMS];
	memcpy(seg, t0->shape, sizeof seg);
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor c = x->t[r];
		SC_CHECK(sc_interp_contiguous(x, &c, e));
		send[r] = c.buf->data;
		if (!(rbufs[r] = sc_arena_buf(sc_interp_on(x, r), n * P, es)))
			return sc_interp_arena_fail(x, e);
		recv[r] = rbufs[r]->data;
	}
	SC_CHECK(x->be->ops->all_gather(x->be, x->world, send, recv, (size_t)n * es, e));
	return unpack_segments(x, rbufs, seg, t0->ndim, i, e);
}

static enum sc_status exec_all_to_all(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				      const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	int i = 0, j = 0;
	SC_CHECK(list_begin(x, st, 1, &i, &j, e));
	SC_CHECK(divisible(x, st, i, e));
	const int64_t P = x->world;
	const unsigned es = sc_interp_esize(x);
	const int nd = x->t[0].ndim;
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	struct sc_buf *rbufs[SC_MAX_WORLD];
	int64_t seg[SC_MAX_DIMS], cn = 0;
	memcpy(seg, x->t[0].shape, sizeof seg);
	SC_CHECK(pack_chunks(x, i, send, &cn, e));
	seg[i] /= P;
	for (int r = 0; r < x->nlocal; r++) {
		if (!(rbufs[r] = sc_arena_buf(sc_interp_on(x, r), cn * P, es)))
			return sc_interp_arena_fail(x, e);
		recv[r] = rbufs[r]->data;
	}
	SC_CHECK(x->be->ops->all_to_all(x->be, x->world, send, recv, (size_t)cn * es, e));
	return unpack_segments(x, rbufs, seg, nd, j, e);
}

/* The whole tensor reduced over the ranks, then each rank keeps its rows
 * of dim i by the agreed sizes (reduce_scatter sizes=E). */
static enum sc_status rs_sized(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			       const int64_t *sizes, int i, struct sc_err *e)
{
	int64_t len[SC_MAX_WORLD], sum = 0, start = 0;
	SC_CHECK(sc_steps_agreed(x, s, st, sizes, len, e));
	for (int r = 0; r < x->world; r++) {
		if (len[r] < 0)
			return sc_interp_fail(e, st, "size %lld for rank %d is negative", (long long)len[r], r);
		sum += len[r];
	}
	if (sum != x->t[0].shape[i])
		return sc_interp_fail(e, st, "the sizes sum to %lld but dim %d is %lld", (long long)sum, i,
				      (long long)x->t[0].shape[i]);
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	struct sc_tensor outs[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor c = x->t[r];
		SC_CHECK(sc_interp_contiguous(x, &c, e));
		send[r] = c.buf->data + (size_t)c.offset * sc_interp_esize(x);
	}
	SC_CHECK(alloc_outputs(x, x->t[0].shape, x->t[0].ndim, outs, recv, e));
	SC_CHECK(reduce(x, 0, send, recv, (size_t)sc_tensor_numel(&x->t[0]), st->redop, e));
	for (int r = 0; r < x->world; r++) {
		if (r >= x->first && r < x->first + x->nlocal) {
			x->t[r - x->first] = outs[r - x->first];
			sc_interp_narrow(&x->t[r - x->first], i, start, len[r]);
		}
		start += len[r];
	}
	return SC_OK;
}

static enum sc_status exec_reduce_scatter(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
					  const int64_t *sizes, struct sc_err *e)
{
	int i = 0, j = 0;
	SC_CHECK(list_begin(x, st, 0, &i, &j, e));
	if (st->nargs > 1)
		return rs_sized(x, s, st, sizes, i, e);
	SC_CHECK(divisible(x, st, i, e));
	const int nd = x->t[0].ndim;
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	struct sc_tensor outs[SC_MAX_WORLD];
	int64_t seg[SC_MAX_DIMS], cn = 0;
	memcpy(seg, x->t[0].shape, sizeof seg);
	SC_CHECK(pack_chunks(x, i, send, &cn, e));
	seg[i] /= x->world;
	SC_CHECK(alloc_outputs(x, seg, nd, outs, recv, e));
	SC_CHECK(reduce(x, 1, send, recv, (size_t)cn, st->redop, e));
	for (int r = 0; r < x->nlocal; r++)
		x->t[r] = outs[r];
	return SC_OK;
}

/* torch.distributed.reduce: dst receives the reduction, the others keep
 * their tensors. */
static enum sc_status exec_reduce_dst(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				      const int64_t *sizes, struct sc_err *e)
{
	int64_t dst[SC_MAX_WORLD];
	SC_CHECK(sc_steps_agreed(x, s, st, sizes, dst, e));
	char who[64];
	if (dst[0] < 0 || dst[0] >= x->world)
		return sc_interp_fail(e, st, "on %s: dst=%lld is not a rank of the group (0..%d)",
				      sc_interp_rank_text(x, 0, who, sizeof who), (long long)dst[0], x->world - 1);
	struct sc_tensor keep[SC_MAX_WORLD];
	memcpy(keep, x->t, sizeof(struct sc_tensor) * (size_t)x->nlocal);
	SC_CHECK(exec_all_reduce(x, s, st, sizes, e));
	for (int r = 0; r < x->nlocal; r++)
		if (x->first + r != dst[0])
			x->t[r] = keep[r];
	return SC_OK;
}

#define COLL SC_STEP_COLLECTIVE
#define DIM0 (SC_STEP_COLLECTIVE | SC_STEP_NEEDS_CONTIG | SC_STEP_RAW_OK)

const struct sc_step_def sc_steps_coll[] = {
	{"all_to_all_single", DIM0, sc_steps_parse_a2a, exec_a2a_single},
	{"all_gather_into_tensor", DIM0, parse_raw, exec_ag_tensor},
	{"reduce_scatter_tensor", DIM0 | SC_STEP_REDUCES, parse_op_raw, exec_rs_tensor},
	{"all_reduce", DIM0 | SC_STEP_REDUCES, parse_op_raw, exec_all_reduce},
	{"all_to_all", COLL, parse_split_concat, exec_all_to_all},
	{"all_gather", COLL | SC_STEP_OWN_SHAPES, sc_steps_parse_ag, exec_all_gather},
	{"reduce_scatter", COLL | SC_STEP_REDUCES, parse_dim_op, exec_reduce_scatter},
	{"reduce", DIM0 | SC_STEP_REDUCES, parse_reduce_dst, exec_reduce_dst},
	{NULL, 0, NULL, NULL},
};
