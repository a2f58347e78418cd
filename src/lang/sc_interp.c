/* sc_interp: the step semantics of DESIGN.md, transcribed from ATen and
 * torch.distributed (messages follow PyTorch's wording where it has one).
 *
 * All ranks run the same steps on tensors of the same shape, so shape
 * checks are made once, on the first local rank. */
#include "sc_interp.h"
#include "sc_devmem.h"

#include <stdio.h>
#include <string.h>

static enum sc_status rt(struct sc_err *e, const struct sc_step *st, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static enum sc_status rt(struct sc_err *e, const struct sc_step *st, const char *fmt, ...)
{
	char msg[SC_ERR_MAX - 128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return SC_ERR(e, SC_E_RUNTIME, "line %d `%s`: %s", st->line, st->text, msg);
}

static enum sc_status arena_fail(const struct sc_exec *x, struct sc_err *e)
{
	if (x->arena->over_limit)
		return SC_ERR(e, SC_E_RUNTIME, "the per-case memory limit (%zu MiB) was exceeded",
			      (x->arena->max_bytes ? x->arena->max_bytes : SC_ARENA_DEFAULT_MAX) >> 20);
	return SC_ERR(e, SC_E_NOMEM, "out of memory");
}

/* The arena, with new buffers going to local rank r's device. */
static struct sc_arena *on(struct sc_exec *x, int r)
{
	sc_arena_on(x->arena, x->first + r);
	return x->arena;
}

static unsigned esize_of(const struct sc_exec *x)
{
	return x->compute ? 16u : x->prov ? 8u : (unsigned)sc_dtype_size(x->dtype);
}

/* ATen maybe_wrap_dim: a 0-dim tensor wraps as if it had 1 dim. */
static enum sc_status wrap_dim(const struct sc_step *st, int d, int ndim, int *out,
			       struct sc_err *e)
{
	int n = ndim > 0 ? ndim : 1;
	if (d < -n || d > n - 1)
		return rt(e, st, "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
			  -n, n - 1, d);
	*out = d < 0 ? d + n : d;
	return SC_OK;
}

static void apply_perm(struct sc_tensor *t, const int *perm)
{
	int64_t sh[SC_MAX_DIMS], sd[SC_MAX_DIMS];
	for (int i = 0; i < t->ndim; i++) {
		sh[i] = t->shape[perm[i]];
		sd[i] = t->stride[perm[i]];
	}
	memcpy(t->shape, sh, sizeof(int64_t) * (size_t)t->ndim);
	memcpy(t->stride, sd, sizeof(int64_t) * (size_t)t->ndim);
}

static enum sc_status to_contiguous(struct sc_exec *x, struct sc_tensor *t, struct sc_err *e)
{
	struct sc_tensor n;
	sc_arena_on(x->arena, t->buf->rank);
	SC_CHECK(sc_tensor_empty(x->arena, t->shape, t->ndim, esize_of(x), &n, e));
	sc_tensor_copy(&n, t);
	*t = n;
	return SC_OK;
}

/* infer_size of ATen: one -1, negative sizes invalid, numel must match. */
static enum sc_status infer_shape(const struct sc_step *st, int64_t *shape, int n, int64_t numel,
				  struct sc_err *e)
{
	int infer = -1;
	int64_t prod = 1;
	for (int i = 0; i < n; i++) {
		if (shape[i] == -1) {
			if (infer >= 0)
				return rt(e, st, "only one dimension can be inferred");
			infer = i;
		} else if (shape[i] < 0) {
			return rt(e, st, "invalid shape dimension %lld", (long long)shape[i]);
		} else if (__builtin_mul_overflow(prod, shape[i], &prod)) {
			return rt(e, st, "shape is too large (overflow)");
		}
	}
	char buf[160];
	if (infer >= 0) {
		if (prod == 0) {
			sc_shape_format(shape, n, buf, sizeof buf);
			return rt(e, st,
				  "cannot reshape tensor of %lld elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous",
				  (long long)numel, buf);
		}
		if (numel % prod == 0) {
			shape[infer] = numel / prod;
			return SC_OK;
		}
	} else if (prod == numel) {
		return SC_OK;
	}
	sc_shape_format(shape, n, buf, sizeof buf);
	return rt(e, st, "shape '%s' is invalid for input of size %lld", buf, (long long)numel);
}

/* reshape (copy when no view exists) or view (error instead). */
static enum sc_status do_reshape(struct sc_exec *x, const struct sc_step *st, int64_t *shape, int n,
				 int must_view, struct sc_err *e)
{
	struct sc_tensor *t0 = &x->t[0];
	int64_t stride[SC_MAX_DIMS];
	SC_CHECK(infer_shape(st, shape, n, sc_tensor_numel(t0), e));
	int ok = sc_view_strides(t0, shape, n, stride);
	if (!ok && must_view)
		return rt(e, st,
			  "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor *t = &x->t[r];
		if (!ok) /* ATen: clone(contiguous) then view */
			SC_CHECK(to_contiguous(x, t, e));
		t->ndim = n;
		memcpy(t->shape, shape, sizeof(int64_t) * (size_t)n);
		if (ok)
			memcpy(t->stride, stride, sizeof(int64_t) * (size_t)n);
		else
			sc_contig_strides(shape, n, t->stride);
	}
	return SC_OK;
}

static enum sc_status do_permute(struct sc_exec *x, const int *perm)
{
	for (int r = 0; r < x->nlocal; r++)
		apply_perm(&x->t[r], perm);
	return SC_OK;
}

static void narrow(struct sc_tensor *t, int dim, int64_t start, int64_t len)
{
	t->offset += start * t->stride[dim];
	t->shape[dim] = len;
}

/* torch.cat(t.chunk(P, i), dim=j) on every local rank. */
static enum sc_status do_chunk_cat(struct sc_exec *x, const struct sc_step *st, int ci, int cj,
				   struct sc_err *e)
{
	struct sc_tensor *t0 = &x->t[0];
	if (t0->ndim == 0)
		return rt(e, st, "chunk expects at least a 1-dimensional tensor");
	const int64_t P = x->world, n = t0->shape[ci];
	const int64_t split = (n + P - 1) / P;
	int64_t nchunks;
	int64_t sizes[SC_MAX_WORLD] = {0};
	if (n == 0) {
		nchunks = P;
		for (int64_t k = 0; k < P; k++)
			sizes[k] = 0;
	} else {
		nchunks = (n + split - 1) / split;
		for (int64_t k = 0; k < nchunks; k++)
			sizes[k] = (k == nchunks - 1) ? n - split * (nchunks - 1) : split;
	}
	int64_t oshape[SC_MAX_DIMS];
	memcpy(oshape, t0->shape, sizeof oshape);
	if (ci != cj) {
		for (int64_t k = 1; k < nchunks; k++)
			if (sizes[k] != sizes[0])
				return rt(e, st,
					  "Sizes of tensors must match except in dimension %d. Expected size %lld but got size %lld for tensor number %lld in the list.",
					  cj, (long long)sizes[0], (long long)sizes[k], (long long)k);
		oshape[cj] = t0->shape[cj] * nchunks;
		oshape[ci] = sizes[0];
	}
	/* cat's output memory format: the inputs' common suggested format */
	int fmt = -1;
	for (int64_t k = 0; k < nchunks; k++) {
		struct sc_tensor c = *t0;
		narrow(&c, ci, k * split, sizes[k]);
		int f = sc_tensor_suggest_format(&c);
		if (f == 0 || (fmt >= 0 && fmt != f)) {
			fmt = 0;
			break;
		}
		fmt = f;
	}
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor *t = &x->t[r], out;
		SC_CHECK(sc_tensor_empty(on(x, r), oshape, t->ndim, esize_of(x), &out, e));
		if (fmt == 1 || fmt == 2) { /* channels_last(_3d) strides */
			const int nd = t->ndim;
			int64_t s = 1;
			out.stride[1] = 1;
			s = oshape[1] > 1 ? oshape[1] : 1;
			for (int d = nd - 1; d >= 2; d--) {
				out.stride[d] = s;
				s *= oshape[d] > 1 ? oshape[d] : 1;
			}
			out.stride[0] = s;
		}
		int64_t at = 0;
		for (int64_t k = 0; k < nchunks; k++) {
			struct sc_tensor src = *t, dst = out;
			narrow(&src, ci, k * split, sizes[k]);
			int64_t len = src.shape[cj];
			narrow(&dst, cj, at, len);
			sc_tensor_copy(&dst, &src);
			at += len;
		}
		*t = out;
	}
	return SC_OK;
}

/* Pointers to each local rank's input as flat memory (contiguous or raw). */
static enum sc_status coll_inputs(struct sc_exec *x, const struct sc_step *st, void **send,
				  struct sc_err *e)
{
	const unsigned es = esize_of(x);
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor *t = &x->t[r];
		int64_t n = sc_tensor_numel(t);
		if (!st->raw && !sc_tensor_is_contig(t))
			return rt(e, st, "Tensors must be contiguous (torch.distributed rejects a non-contiguous input; transcribe a missing .contiguous() with the 'raw' suffix)");
		if (st->raw && t->offset + n > t->buf->nelem)
			return rt(e, st, "raw read of %lld elements from storage offset %lld runs past the end of the tensor's storage (%lld elements)",
				  (long long)n, (long long)t->offset, (long long)t->buf->nelem);
		send[r] = t->buf->data + (size_t)t->offset * es;
	}
	return SC_OK;
}

static enum sc_status alloc_outputs(struct sc_exec *x, const int64_t *shape, int nd,
				    struct sc_tensor *outs, void **recv, struct sc_err *e)
{
	for (int r = 0; r < x->nlocal; r++) {
		SC_CHECK(sc_tensor_empty(on(x, r), shape, nd, esize_of(x), &outs[r], e));
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
		struct sc_buf *b = sc_arena_buf(on(x, r), (int64_t)count, 8);
		if (!b)
			return arena_fail(x, e);
		mins[r] = b->data;
	}
	if (scatter) {
		SC_CHECK(be->ops->reduce_scatter(be, x->world, send, recv, count, SC_U64, SC_MAX, e));
		SC_CHECK(be->ops->reduce_scatter(be, x->world, send, mins, count, SC_U64, SC_MIN, e));
	} else {
		SC_CHECK(be->ops->all_reduce(be, x->world, send, recv, count, SC_U64, SC_MAX, e));
		SC_CHECK(be->ops->all_reduce(be, x->world, send, mins, count, SC_U64, SC_MIN, e));
	}
	return sc_prov_merge(x->arena, x->first, x->nlocal, recv, mins, count, e);
}

static enum sc_status do_dim0(struct sc_exec *x, const struct sc_step *st, struct sc_err *e)
{
	struct sc_tensor *t0 = &x->t[0];
	const int64_t P = x->world;
	const unsigned es = esize_of(x);
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	struct sc_tensor outs[SC_MAX_WORLD];
	int64_t shape[SC_MAX_DIMS];
	int nd = t0->ndim;
	const int64_t n = sc_tensor_numel(t0);
	memcpy(shape, t0->shape, sizeof shape);
	if (nd == 0 && st->op != SC_OP_ALL_REDUCE && st->op != SC_OP_ALL_GATHER_INTO_TENSOR)
		return rt(e, st, "dimension specified as 0 but tensor has no dimensions");
	SC_CHECK(coll_inputs(x, st, send, e));
	switch (st->op) {
	case SC_OP_ALL_TO_ALL_SINGLE:
		if (shape[0] % P != 0)
			return rt(e, st, "Tensor's dim 0 does not divide equally across group size (dim 0 is %lld, world size %lld)",
				  (long long)shape[0], (long long)P);
		SC_CHECK(alloc_outputs(x, shape, nd, outs, recv, e));
		SC_CHECK(x->be->ops->all_to_all(x->be, x->world, send, recv, (size_t)(n / P) * es, e));
		break;
	case SC_OP_ALL_GATHER_INTO_TENSOR:
		if (nd == 0) {
			nd = 1;
			shape[0] = P;
		} else {
			shape[0] *= P;
		}
		SC_CHECK(alloc_outputs(x, shape, nd, outs, recv, e));
		SC_CHECK(x->be->ops->all_gather(x->be, x->world, send, recv, (size_t)n * es, e));
		break;
	case SC_OP_REDUCE_SCATTER_TENSOR:
		if (shape[0] % P != 0)
			return rt(e, st, "input tensor must be the same size as output size times world size (dim 0 is %lld, world size %lld)",
				  (long long)shape[0], (long long)P);
		shape[0] /= P;
		SC_CHECK(alloc_outputs(x, shape, nd, outs, recv, e));
		SC_CHECK(reduce(x, 1, send, recv, (size_t)(n / P), st->redop, e));
		break;
	case SC_OP_ALL_REDUCE:
		SC_CHECK(alloc_outputs(x, shape, nd, outs, recv, e));
		SC_CHECK(reduce(x, 0, send, recv, (size_t)n, st->redop, e));
		break;
	default:
		return SC_ERR(e, SC_E_INTERNAL, "not a dim-0 collective");
	}
	for (int r = 0; r < x->nlocal; r++)
		x->t[r] = outs[r];
	return SC_OK;
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
		struct sc_buf *b = sc_arena_buf(on(x, r), cn * P, esize_of(x));
		if (!b)
			return arena_fail(x, e);
		for (int64_t k = 0; k < P; k++) {
			struct sc_tensor src = *t;
			narrow(&src, ci, k * m, m);
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
		SC_CHECK(sc_tensor_empty(on(x, r), oshape, nd, esize_of(x), &out, e));
		for (int64_t k = 0; k < P; k++) {
			struct sc_tensor src, dst = out;
			src.buf = bufs[r];
			src.offset = k * sn;
			src.ndim = nd;
			memcpy(src.shape, seg_shape, sizeof src.shape);
			sc_contig_strides(seg_shape, nd, src.stride);
			narrow(&dst, cj, k * seg_shape[cj], seg_shape[cj]);
			sc_tensor_copy(&dst, &src);
		}
		x->t[r] = out;
	}
	return SC_OK;
}

static enum sc_status do_list(struct sc_exec *x, const struct sc_step *st, struct sc_err *e)
{
	struct sc_tensor *t0 = &x->t[0];
	const int64_t P = x->world;
	const unsigned es = esize_of(x);
	const int nd = t0->ndim;
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	struct sc_buf *rbufs[SC_MAX_WORLD];
	int i = 0, j = 0;
	if (nd == 0)
		return rt(e, st, "zero-dimensional tensor cannot be split or concatenated");
	SC_CHECK(wrap_dim(st, st->args[0], nd, &i, e));
	if (st->op == SC_OP_ALL_TO_ALL)
		SC_CHECK(wrap_dim(st, st->args[1], nd, &j, e));
	int64_t seg[SC_MAX_DIMS];
	memcpy(seg, t0->shape, sizeof seg);
	if (st->op == SC_OP_ALL_GATHER) {
		const int64_t n = sc_tensor_numel(t0);
		for (int r = 0; r < x->nlocal; r++) {
			struct sc_tensor c = x->t[r];
			SC_CHECK(to_contiguous(x, &c, e));
			send[r] = c.buf->data;
			if (!(rbufs[r] = sc_arena_buf(on(x, r), n * P, es)))
				return arena_fail(x, e);
			recv[r] = rbufs[r]->data;
		}
		SC_CHECK(x->be->ops->all_gather(x->be, x->world, send, recv, (size_t)n * es, e));
		return unpack_segments(x, rbufs, seg, nd, i, e);
	}
	if (t0->shape[i] % P != 0)
		return rt(e, st, "dim %d (size %lld) is not divisible by the world size %lld", i,
			  (long long)t0->shape[i], (long long)P);
	int64_t cn = 0;
	SC_CHECK(pack_chunks(x, i, send, &cn, e));
	seg[i] /= P;
	if (st->op == SC_OP_ALL_TO_ALL) {
		for (int r = 0; r < x->nlocal; r++) {
			if (!(rbufs[r] = sc_arena_buf(on(x, r), cn * P, es)))
				return arena_fail(x, e);
			recv[r] = rbufs[r]->data;
		}
		SC_CHECK(x->be->ops->all_to_all(x->be, x->world, send, recv, (size_t)cn * es, e));
		return unpack_segments(x, rbufs, seg, nd, j, e);
	}
	/* reduce_scatter dim=i */
	struct sc_tensor outs[SC_MAX_WORLD];
	SC_CHECK(alloc_outputs(x, seg, nd, outs, recv, e));
	SC_CHECK(reduce(x, 1, send, recv, (size_t)cn, st->redop, e));
	for (int r = 0; r < x->nlocal; r++)
		x->t[r] = outs[r];
	return SC_OK;
}

enum sc_status sc_prov_merge(struct sc_arena *a, int first, int nlocal, void *const *mx,
			     void *const *mn, size_t count, struct sc_err *e)
{
	struct sc_devmem *dm = a->use_dm ? a->dm : NULL;
	for (int r = 0; r < nlocal; r++) {
		if (dm) {
			sc_devmem_fail(dm, dm->ops->prov_merge(dm, first + r, mx[r], mn[r], count), "merge", first + r);
			continue;
		}
		uint64_t *x = mx[r];
		const uint64_t *n = mn[r];
		for (size_t i = 0; i < count; i++)
			if (x[i] != n[i])
				x[i] = SC_PROV_MIXED;
	}
	return sc_devmem_status(dm, 0, e);
}

enum sc_status sc_exec_step(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			    const int64_t *sizes, struct sc_err *e)
{
	struct sc_tensor *t0 = &x->t[0];
	const int nd = t0->ndim;
	int a = 0, b = 0;
	int perm[SC_MAX_DIMS];
	switch (st->op) {
	case SC_OP_RESHAPE:
	case SC_OP_VIEW: {
		int64_t shape[SC_MAX_DIMS];
		for (int k = 0; k < st->nargs; k++) {
			struct sc_err ee;
			if (sc_expr_eval(s, st->args[k], sizes, x->world, &shape[k], &ee) != SC_OK)
				return rt(e, st, "%s", ee.msg);
		}
		return do_reshape(x, st, shape, st->nargs, st->op == SC_OP_VIEW, e);
	}
	case SC_OP_FLATTEN: {
		if (nd == 0) {
			int64_t one = 1;
			return do_reshape(x, st, &one, 1, 0, e);
		}
		SC_CHECK(wrap_dim(st, st->args[0], nd, &a, e));
		SC_CHECK(wrap_dim(st, st->args[1], nd, &b, e));
		if (a > b)
			return rt(e, st, "flatten() has invalid args: start_dim cannot come after end_dim");
		if (a == b)
			return SC_OK;
		int64_t shape[SC_MAX_DIMS];
		int n = 0;
		for (int d = 0; d < a; d++)
			shape[n++] = t0->shape[d];
		int64_t m = 1;
		for (int d = a; d <= b; d++)
			m *= t0->shape[d];
		shape[n++] = m;
		for (int d = b + 1; d < nd; d++)
			shape[n++] = t0->shape[d];
		return do_reshape(x, st, shape, n, 0, e);
	}
	case SC_OP_UNSQUEEZE: {
		if (st->args[0] < -(nd + 1) || st->args[0] > nd)
			return rt(e, st, "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
				  -(nd + 1), nd, st->args[0]);
		a = st->args[0] < 0 ? st->args[0] + nd + 1 : st->args[0];
		if (nd >= SC_MAX_DIMS)
			return rt(e, st, "shardcheck supports tensors of at most %d dims", SC_MAX_DIMS);
		for (int r = 0; r < x->nlocal; r++) {
			struct sc_tensor *t = &x->t[r];
			int64_t ns = a >= nd ? 1 : t->shape[a] * t->stride[a];
			for (int d = nd; d > a; d--) {
				t->shape[d] = t->shape[d - 1];
				t->stride[d] = t->stride[d - 1];
			}
			t->shape[a] = 1;
			t->stride[a] = ns;
			t->ndim = nd + 1;
		}
		return SC_OK;
	}
	case SC_OP_SQUEEZE:
		SC_CHECK(wrap_dim(st, st->args[0], nd, &a, e));
		if (nd == 0 || t0->shape[a] != 1)
			return SC_OK;
		for (int r = 0; r < x->nlocal; r++) {
			struct sc_tensor *t = &x->t[r];
			for (int d = a; d < nd - 1; d++) {
				t->shape[d] = t->shape[d + 1];
				t->stride[d] = t->stride[d + 1];
			}
			t->ndim = nd - 1;
		}
		return SC_OK;
	case SC_OP_MOVEDIM: {
		SC_CHECK(wrap_dim(st, st->args[0], nd, &a, e));
		SC_CHECK(wrap_dim(st, st->args[1], nd, &b, e));
		if (nd == 0)
			return SC_OK;
		int rest[SC_MAX_DIMS], n = 0;
		for (int d = 0; d < nd; d++)
			if (d != a)
				rest[n++] = d;
		for (int d = 0, k = 0; d < nd; d++)
			perm[d] = (d == b) ? a : rest[k++];
		return do_permute(x, perm);
	}
	case SC_OP_TRANSPOSE:
		SC_CHECK(wrap_dim(st, st->args[0], nd, &a, e));
		SC_CHECK(wrap_dim(st, st->args[1], nd, &b, e));
		if (nd == 0)
			return SC_OK;
		for (int d = 0; d < nd; d++)
			perm[d] = d;
		perm[a] = b;
		perm[b] = a;
		return do_permute(x, perm);
	case SC_OP_PERMUTE: {
		if (st->nargs != nd)
			return rt(e, st,
				  "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d",
				  nd, st->nargs);
		int seen[SC_MAX_DIMS] = {0};
		for (int d = 0; d < nd; d++) {
			SC_CHECK(wrap_dim(st, st->args[d], nd, &perm[d], e));
			if (seen[perm[d]]++)
				return rt(e, st, "permute(): duplicate dims are not allowed.");
		}
		return do_permute(x, perm);
	}
	case SC_OP_CONTIGUOUS:
		if (sc_tensor_is_contig(t0))
			return SC_OK;
		for (int r = 0; r < x->nlocal; r++)
			SC_CHECK(to_contiguous(x, &x->t[r], e));
		return SC_OK;
	case SC_OP_CHUNK_CAT:
		SC_CHECK(wrap_dim(st, st->args[0], nd, &a, e));
		SC_CHECK(wrap_dim(st, st->args[1], nd, &b, e));
		return do_chunk_cat(x, st, a, b, e);
	case SC_OP_ALL_TO_ALL_SINGLE:
	case SC_OP_ALL_GATHER_INTO_TENSOR:
	case SC_OP_REDUCE_SCATTER_TENSOR:
	case SC_OP_ALL_REDUCE:
		return do_dim0(x, st, e);
	case SC_OP_ALL_TO_ALL:
	case SC_OP_ALL_GATHER:
	case SC_OP_REDUCE_SCATTER:
		return do_list(x, st, e);
	}
	return SC_ERR(e, SC_E_INTERNAL, "unknown step");
}

enum sc_status sc_exec_spec(struct sc_exec *x, const struct sc_spec *s, const int64_t *sizes,
			    struct sc_err *e)
{
	for (int i = 0; i < s->nsteps; i++)
		SC_CHECK(sc_exec_step(x, s, &s->steps[i], sizes, e));
	return SC_OK;
}
