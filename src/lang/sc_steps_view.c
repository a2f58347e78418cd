/* sc_steps_view: local steps, as rows of the step table
 * (docs/language.md, "Steps"): views and copies with ATen's rules
 * (reshape views when strides allow, else copies; transpose, permute,
 * movedim, unsqueeze, squeeze are views; contiguous and chunk_cat copy).
 * Messages follow PyTorch's wording where it has one. A new local step
 * is a row here, its parse and its exec. */
#include <string.h>

#include "sc_expr.h"
#include "sc_interp.h"
#include "sc_lex.h"
#include "sc_step.h"

/* ---- parsing ---- */

/* [e, e, ...]: expressions of the dims and the world. */
static enum sc_status parse_shape(struct sc_parse *p, struct sc_step *st)
{
	if (!sc_lex_is_op(sc_lex_peek(p), "["))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '[' after '%s'", st->def->keyword);
	SC_CHECK(sc_expr_parse_list(p, st->args, SC_MAX_DIMS, &st->nargs, "dims"));
	return sc_lex_end(p);
}

static enum sc_status parse_two_dims(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_int(p, "a dim", &st->args[0]));
	SC_CHECK(sc_lex_int(p, "a dim", &st->args[1]));
	st->nargs = 2;
	return sc_lex_end(p);
}

static enum sc_status parse_one_dim(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_int(p, "a dim", &st->args[0]));
	st->nargs = 1;
	return sc_lex_end(p);
}

static enum sc_status parse_dims(struct sc_parse *p, struct sc_step *st)
{
	while (sc_lex_peek(p)->kind != SC_T_END) {
		if (st->nargs >= SC_MAX_DIMS)
			return sc_lex_err(p, sc_lex_peek(p)->col, "too many dims (at most %d)", SC_MAX_DIMS);
		SC_CHECK(sc_lex_int(p, "a dim", &st->args[st->nargs]));
		st->nargs++;
	}
	return SC_OK;
}

static enum sc_status parse_none(struct sc_parse *p, struct sc_step *st)
{
	(void)st;
	return sc_lex_end(p);
}

static enum sc_status parse_chunk_cat(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_kv_int(p, "chunk", &st->args[0]));
	SC_CHECK(sc_lex_kv_int(p, "cat", &st->args[1]));
	st->nargs = 2;
	return sc_lex_end(p);
}

/* ---- shared by the executions ---- */

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

/* infer_size of ATen: one -1, negative sizes invalid, numel must match. */
static enum sc_status infer_shape(const struct sc_step *st, int64_t *shape, int n, int64_t numel,
				  struct sc_err *e)
{
	int infer = -1;
	int64_t prod = 1;
	for (int i = 0; i < n; i++) {
		if (shape[i] == -1) {
			if (infer >= 0)
				return sc_interp_fail(e, st, "only one dimension can be inferred");
			infer = i;
		} else if (shape[i] < 0) {
			return sc_interp_fail(e, st, "invalid shape dimension %lld", (long long)shape[i]);
		} else if (__builtin_mul_overflow(prod, shape[i], &prod)) {
			return sc_interp_fail(e, st, "shape is too large (overflow)");
		}
	}
	char buf[160];
	if (infer >= 0) {
		if (prod == 0) {
			sc_shape_format(shape, n, buf, sizeof buf);
			return sc_interp_fail(e, st,
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
	return sc_interp_fail(e, st, "shape '%s' is invalid for input of size %lld", buf, (long long)numel);
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
		return sc_interp_fail(e, st,
			  "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor *t = &x->t[r];
		if (!ok) /* ATen: clone(contiguous) then view */
			SC_CHECK(sc_interp_contiguous(x, t, e));
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

/* torch.cat(t.chunk(P, i), dim=j) on every local rank. */
static enum sc_status do_chunk_cat(struct sc_exec *x, const struct sc_step *st, int ci, int cj,
				   struct sc_err *e)
{
	struct sc_tensor *t0 = &x->t[0];
	if (t0->ndim == 0)
		return sc_interp_fail(e, st, "chunk expects at least a 1-dimensional tensor");
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
				return sc_interp_fail(e, st,
					  "Sizes of tensors must match except in dimension %d. Expected size %lld but got size %lld for tensor number %lld in the list.",
					  cj, (long long)sizes[0], (long long)sizes[k], (long long)k);
		oshape[cj] = t0->shape[cj] * nchunks;
		oshape[ci] = sizes[0];
	}
	/* cat's output memory format: the inputs' common suggested format */
	int fmt = -1;
	for (int64_t k = 0; k < nchunks; k++) {
		struct sc_tensor c = *t0;
		sc_interp_narrow(&c, ci, k * split, sizes[k]);
		int f = sc_tensor_suggest_format(&c);
		if (f == 0 || (fmt >= 0 && fmt != f)) {
			fmt = 0;
			break;
		}
		fmt = f;
	}
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor *t = &x->t[r], out;
		SC_CHECK(sc_tensor_empty(sc_interp_on(x, r), oshape, t->ndim, sc_interp_esize(x), &out, e));
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
			sc_interp_narrow(&src, ci, k * split, sizes[k]);
			int64_t len = src.shape[cj];
			sc_interp_narrow(&dst, cj, at, len);
			sc_tensor_copy(&dst, &src);
			at += len;
		}
		*t = out;
	}
	return SC_OK;
}

/* ---- executions ---- */

static enum sc_status reshape_to_exprs(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				       const int64_t *sizes, int must_view, struct sc_err *e)
{
	int64_t shape[SC_MAX_DIMS];
	/* a spec whose shapes vary runs this per rank (x->nlocal == 1) */
	const struct sc_expr_env env = sc_interp_env(x, 0, sizes);
	for (int k = 0; k < st->nargs; k++)
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[k], &shape[k], e));
	return do_reshape(x, st, shape, st->nargs, must_view, e);
}

static enum sc_status exec_reshape(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				   const int64_t *sizes, struct sc_err *e)
{
	return reshape_to_exprs(x, s, st, sizes, 0, e);
}

static enum sc_status exec_view(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, struct sc_err *e)
{
	return reshape_to_exprs(x, s, st, sizes, 1, e);
}

static enum sc_status exec_flatten(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				   const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	const struct sc_tensor *t0 = &x->t[0];
	const int nd = t0->ndim;
	int a = 0, b = 0;
	if (nd == 0) {
		int64_t one = 1;
		return do_reshape(x, st, &one, 1, 0, e);
	}
	SC_CHECK(sc_interp_wrap_dim(st, st->args[0], nd, &a, e));
	SC_CHECK(sc_interp_wrap_dim(st, st->args[1], nd, &b, e));
	if (a > b)
		return sc_interp_fail(e, st, "flatten() has invalid args: start_dim cannot come after end_dim");
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

static enum sc_status exec_unsqueeze(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				     const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	const int nd = x->t[0].ndim;
	if (st->args[0] < -(nd + 1) || st->args[0] > nd)
		return sc_interp_fail(e, st, "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
				      -(nd + 1), nd, st->args[0]);
	const int a = st->args[0] < 0 ? st->args[0] + nd + 1 : st->args[0];
	if (nd >= SC_MAX_DIMS)
		return sc_interp_fail(e, st, "shardcheck supports tensors of at most %d dims", SC_MAX_DIMS);
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

static enum sc_status exec_squeeze(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				   const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	const int nd = x->t[0].ndim;
	int a = 0;
	SC_CHECK(sc_interp_wrap_dim(st, st->args[0], nd, &a, e));
	if (nd == 0 || x->t[0].shape[a] != 1)
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
}

static enum sc_status exec_movedim(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				   const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	const int nd = x->t[0].ndim;
	int a = 0, b = 0, perm[SC_MAX_DIMS];
	SC_CHECK(sc_interp_wrap_dim(st, st->args[0], nd, &a, e));
	SC_CHECK(sc_interp_wrap_dim(st, st->args[1], nd, &b, e));
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

static enum sc_status exec_transpose(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				     const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	const int nd = x->t[0].ndim;
	int a = 0, b = 0, perm[SC_MAX_DIMS];
	SC_CHECK(sc_interp_wrap_dim(st, st->args[0], nd, &a, e));
	SC_CHECK(sc_interp_wrap_dim(st, st->args[1], nd, &b, e));
	if (nd == 0)
		return SC_OK;
	for (int d = 0; d < nd; d++)
		perm[d] = d;
	perm[a] = b;
	perm[b] = a;
	return do_permute(x, perm);
}

static enum sc_status exec_permute(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				   const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	const int nd = x->t[0].ndim;
	int perm[SC_MAX_DIMS];
	if (st->nargs != nd)
		return sc_interp_fail(e, st,
				      "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d",
				      nd, st->nargs);
	int seen[SC_MAX_DIMS] = {0};
	for (int d = 0; d < nd; d++) {
		SC_CHECK(sc_interp_wrap_dim(st, st->args[d], nd, &perm[d], e));
		if (seen[perm[d]]++)
			return sc_interp_fail(e, st, "permute(): duplicate dims are not allowed.");
	}
	return do_permute(x, perm);
}

static enum sc_status exec_contiguous(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				      const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	(void)st;
	if (sc_tensor_is_contig(&x->t[0]))
		return SC_OK;
	for (int r = 0; r < x->nlocal; r++)
		SC_CHECK(sc_interp_contiguous(x, &x->t[r], e));
	return SC_OK;
}

static enum sc_status exec_chunk_cat(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				     const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	const int nd = x->t[0].ndim;
	int a = 0, b = 0;
	SC_CHECK(sc_interp_wrap_dim(st, st->args[0], nd, &a, e));
	SC_CHECK(sc_interp_wrap_dim(st, st->args[1], nd, &b, e));
	return do_chunk_cat(x, st, a, b, e);
}

const struct sc_step_def sc_steps_view[] = {
	{"reshape", 0, parse_shape, exec_reshape},
	{"view", 0, parse_shape, exec_view},
	{"flatten", 0, parse_two_dims, exec_flatten},
	{"unsqueeze", 0, parse_one_dim, exec_unsqueeze},
	{"squeeze", 0, parse_one_dim, exec_squeeze},
	{"movedim", 0, parse_two_dims, exec_movedim},
	{"chunk_cat", SC_STEP_GROUPED, parse_chunk_cat, exec_chunk_cat},
	{"transpose", 0, parse_two_dims, exec_transpose},
	{"permute", 0, parse_dims, exec_permute},
	{"contiguous", 0, parse_none, exec_contiguous},
	{NULL, 0, NULL, NULL},
};
