/* sc_steps_slice: local steps whose sizes are expressions evaluated on
 * each rank (docs/language.md, "Local steps sized per rank"): narrow, take, flip, pad,
 * repeat_interleave and assert, with torch's semantics and wording.
 * narrow and take of one chunk are views; the others copy. Padding is
 * zeros, or SC_PROV_PAD in a provenance run, so a checker can tell an
 * element that holds padding from a misplaced one. */
#include <string.h>

#include "sc_expr.h"
#include "sc_interp.h"
#include "sc_torch.h"
#include "sc_lex.h"
#include "sc_step.h"

/* take's forms (st->form), and its `split` suffix (tensor_split's rule) */
enum take_form { TAKE_CHUNK, TAKE_LIST, TAKE_COMP };
#define TAKE_BY_SPLIT 8

/* ---- parsing ---- */

/* A positional expression, or what it is: an error naming it. */
static enum sc_status parse_arg(struct sc_parse *p, const char *what, int *out)
{
	if (sc_lex_peek(p)->kind == SC_T_END)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected %s", what);
	return sc_expr_parse_arg(p, out);
}

static enum sc_status parse_narrow(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_int(p, "a dim", &st->args[0]));
	SC_CHECK(parse_arg(p, "START (an expression)", &st->args[1]));
	SC_CHECK(parse_arg(p, "LEN (an expression)", &st->args[2]));
	st->nargs = 3;
	return sc_lex_end(p);
}

/* [E, E, ...] or [E for k]: chunk ids. */
static enum sc_status parse_id_list(struct sc_parse *p, struct sc_step *st)
{
	p->pos++; /* [ */
	if (sc_lex_is_op(sc_lex_peek(p), "]"))
		return sc_lex_err(p, sc_lex_peek(p)->col, "an empty list of chunk ids (index_select needs one)");
	p->bound[SC_VAR_K] = "k";
	for (;;) {
		if (st->nargs >= SC_STEP_MAX_ARGS)
			return sc_lex_err(p, sc_lex_peek(p)->col, "too many chunk ids (at most %d; use [E for k])",
					  SC_STEP_MAX_ARGS - 2);
		/* inside brackets spaces do not end an item */
		SC_CHECK(sc_expr_parse(p, &st->args[st->nargs++]));
		struct sc_tok *t = sc_lex_peek(p);
		if (t->kind == SC_T_NAME && strcmp(t->text, "for") == 0 && st->form == TAKE_LIST && st->nargs == 3) {
			p->pos++;
			t = sc_lex_peek(p);
			if (t->kind != SC_T_NAME || strcmp(t->text, "k") != 0)
				return sc_lex_err(p, t->col, "expected 'k' in [E for k]");
			p->pos++;
			st->form = TAKE_COMP;
			t = sc_lex_peek(p);
		}
		if (sc_lex_is_op(t, "]")) {
			p->pos++;
			break;
		}
		if (sc_lex_is_op(t, ",") && st->form == TAKE_LIST) {
			p->pos++;
			continue;
		}
		if (t->kind == SC_T_END)
			return sc_lex_err(p, t->col, "expected ']'");
		return sc_lex_err(p, t->col, "expected ',' or ']', got '%s'", t->text);
	}
	p->bound[SC_VAR_K] = NULL;
	if (st->form == TAKE_LIST) /* k only means something in [E for k] */
		for (int i = 2; i < st->nargs; i++)
			if (sc_expr_find(p->s, st->args[i], 1u << SC_EX_VAR) >= 0)
				return sc_lex_err(p, p->s->nodes[st->args[i]].col, "'k' is only bound in [E for k]");
	return SC_OK;
}

/* take i N K [split] | take i N [K0, K1, ...] [split] | take i N [E for k] [split] */
static enum sc_status parse_take(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_int(p, "a dim", &st->args[0]));
	SC_CHECK(parse_arg(p, "N (the number of chunks)", &st->args[1]));
	st->nargs = 2;
	st->form = TAKE_CHUNK;
	if (sc_lex_is_op(sc_lex_peek(p), "[")) {
		st->form = TAKE_LIST;
		SC_CHECK(parse_id_list(p, st));
	} else {
		SC_CHECK(parse_arg(p, "K (a chunk id) or a list [K0, K1, ...]", &st->args[2]));
		st->nargs = 3;
	}
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind == SC_T_NAME && strcmp(t->text, "split") == 0) {
		p->pos++;
		st->form |= TAKE_BY_SPLIT;
	}
	return sc_lex_end(p);
}

static enum sc_status parse_dim_two(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_int(p, "a dim", &st->args[0]));
	SC_CHECK(parse_arg(p, "BEFORE (an expression)", &st->args[1]));
	SC_CHECK(parse_arg(p, "AFTER (an expression)", &st->args[2]));
	st->nargs = 3;
	return sc_lex_end(p);
}

static enum sc_status parse_flip(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_int(p, "a dim", &st->args[0]));
	st->nargs = 1;
	return sc_lex_end(p);
}

static enum sc_status parse_repeat(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(parse_arg(p, "N (repeats)", &st->args[1]));
	SC_CHECK(sc_lex_int(p, "a dim", &st->args[0]));
	st->nargs = 2;
	return sc_lex_end(p);
}

static enum sc_status parse_assert(struct sc_parse *p, struct sc_step *st)
{
	if (sc_lex_peek(p)->kind == SC_T_END)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected a condition after 'assert'");
	SC_CHECK(sc_expr_parse_cond(p, &st->args[0]));
	st->nargs = 1;
	return sc_lex_end(p);
}

/* ---- shared ---- */

/* Dim args[0] of local rank r's tensor, wrapped as ATen does. */
static enum sc_status dim_of(const struct sc_exec *x, const struct sc_step *st, int r, int *d, struct sc_err *e)
{
	const int nd = x->t[r].ndim;
	if (nd == 0)
		return sc_interp_fail(e, st, "a zero-dimensional tensor has no dim to slice");
	return sc_interp_wrap_dim(st, st->args[0], nd, d, e);
}

/* A fresh tensor of shape for local rank r. */
static enum sc_status fresh(struct sc_exec *x, int r, const int64_t *shape, int nd, struct sc_tensor *out,
			    struct sc_err *e)
{
	return sc_tensor_empty(sc_interp_on(x, r), shape, nd, sc_interp_esize(x), out, e);
}

/* Rows [*start, *start + *len) of chunk k of L rows cut into n, by
 * torch.chunk (split: tensor_split). */
static void chunk_rows(int64_t L, int64_t n, int64_t k, int split, int64_t *start, int64_t *len)
{
	if (split) {
		const int64_t q = L / n, m = L % n;
		*start = k * q + (k < m ? k : m);
		*len = q + (k < m);
		return;
	}
	const int64_t c = L / n + (L % n != 0); /* ceil(L / n) without overflow */
	int64_t a = L, b = L;
	if (c == 0 || k <= L / c) /* k * c cannot overflow: it is at most L */
		a = k * c < L ? k * c : L;
	if (c == 0 || k + 1 <= L / c)
		b = (k + 1) * c < L ? (k + 1) * c : L;
	*start = a;
	*len = b - a;
}

/* ---- executions ---- */

static enum sc_status exec_narrow(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				  const int64_t *sizes, struct sc_err *e)
{
	for (int r = 0; r < x->nlocal; r++) {
		int d;
		int64_t start, len;
		const struct sc_expr_env env = sc_interp_env(x, r, sizes);
		SC_CHECK(dim_of(x, st, r, &d, e));
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[1], &start, e));
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[2], &len, e));
		const int64_t L = x->t[r].shape[d];
		if (start < -L || start > L)
			return sc_interp_fail(e, st, "on rank %d: start out of range (expected to be in range of [%lld, %lld], but got %lld)",
					      x->first + r, (long long)-L, (long long)L, (long long)start);
		if (start < 0)
			start += L;
		if (len < 0)
			return sc_interp_fail(e, st, "on rank %d: narrow(): length must be non-negative (got %lld)",
					      x->first + r, (long long)len);
		if (start > L - len)
			return sc_interp_fail(e, st, "on rank %d: start (%lld) + length (%lld) exceeds dimension size (%lld)",
					      x->first + r, (long long)start, (long long)len, (long long)L);
		sc_interp_narrow(&x->t[r], d, start, len);
	}
	return SC_OK;
}

/* Chunk id number i of a take on rank r (K, a list item, or E at k = i). */
static enum sc_status take_id(const struct sc_spec *s, const struct sc_step *st, struct sc_expr_env *env,
			      int i, int64_t *id, struct sc_err *e)
{
	if ((st->form & 3) == TAKE_COMP) {
		env->bound |= 1u << SC_VAR_K;
		env->var[SC_VAR_K] = i;
		return sc_interp_eval(s, st, env, st->args[2], id, e);
	}
	return sc_interp_eval(s, st, env, st->args[2 + i], id, e);
}

static enum sc_status exec_take(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, struct sc_err *e)
{
	for (int r = 0; r < x->nlocal; r++) {
		int d;
		int64_t n;
		struct sc_expr_env env = sc_interp_env(x, r, sizes);
		SC_CHECK(dim_of(x, st, r, &d, e));
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[1], &n, e));
		if (n <= 0)
			return sc_interp_fail(e, st, "on rank %d: chunk expects `chunks` to be greater than 0, got: %lld",
					      x->first + r, (long long)n);
		const int64_t L = x->t[r].shape[d];
		const int form = st->form & 3;
		const int nids = form == TAKE_COMP ? (n > SC_MAX_WORLD * 4 ? -1 : (int)n)
				 : form == TAKE_LIST ? st->nargs - 2 : 1;
		if (nids < 0)
			return sc_interp_fail(e, st, "on rank %d: [E for k] over %lld chunks is too long", x->first + r,
					      (long long)n);
		int64_t start[SC_MAX_WORLD * 4], len[SC_MAX_WORLD * 4], total = 0;
		for (int i = 0; i < nids; i++) {
			int64_t k;
			SC_CHECK(take_id(s, st, &env, i, &k, e));
			if (k < 0 || k >= n)
				return sc_interp_fail(e, st, "on rank %d: chunk id %lld out of range (%lld chunks)",
						      x->first + r, (long long)k, (long long)n);
			chunk_rows(L, n, k, (st->form & TAKE_BY_SPLIT) != 0, &start[i], &len[i]);
			total += len[i];
		}
		if (form == TAKE_CHUNK) {
			sc_interp_narrow(&x->t[r], d, start[0], len[0]);
			continue;
		}
		/* index_select by chunk ids: a copy */
		int64_t shape[SC_MAX_DIMS];
		memcpy(shape, x->t[r].shape, sizeof shape);
		shape[d] = total;
		struct sc_tensor out;
		SC_CHECK(fresh(x, r, shape, x->t[r].ndim, &out, e));
		int64_t at = 0;
		for (int i = 0; i < nids; i++) {
			struct sc_tensor src = x->t[r], dst = out;
			sc_interp_narrow(&src, d, start[i], len[i]);
			sc_interp_narrow(&dst, d, at, len[i]);
			sc_tensor_copy(&dst, &src);
			at += len[i];
		}
		x->t[r] = out;
	}
	return SC_OK;
}

static enum sc_status exec_flip(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	for (int r = 0; r < x->nlocal; r++) {
		int d;
		SC_CHECK(dim_of(x, st, r, &d, e));
		struct sc_tensor src = x->t[r], out;
		SC_CHECK(fresh(x, r, src.shape, src.ndim, &out, e));
		for (int64_t i = 0; i < src.shape[d]; i++) { /* row i from row L-1-i */
			struct sc_tensor a = src, b = out;
			sc_interp_narrow(&a, d, src.shape[d] - 1 - i, 1);
			sc_interp_narrow(&b, d, i, 1);
			sc_tensor_copy(&b, &a);
		}
		x->t[r] = out;
	}
	return SC_OK;
}

static enum sc_status exec_pad(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			       const int64_t *sizes, struct sc_err *e)
{
	for (int r = 0; r < x->nlocal; r++) {
		int d;
		int64_t before, after;
		const struct sc_expr_env env = sc_interp_env(x, r, sizes);
		SC_CHECK(dim_of(x, st, r, &d, e));
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[1], &before, e));
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[2], &after, e));
		const int64_t L = x->t[r].shape[d];
		int64_t n;
		if (before == INT64_MIN || after == INT64_MIN || __builtin_add_overflow(L, before, &n) ||
		    __builtin_add_overflow(n, after, &n))
			return sc_interp_fail(e, st, "on rank %d: padding widths %lld and %lld overflow", x->first + r,
					      (long long)before, (long long)after);
		if (n < 0)
			return sc_interp_fail(e, st, "on rank %d: The input size %lld, plus negative padding %lld and %lld resulted in a negative output size, which is invalid. Check dimension %d of your input.",
					      x->first + r, (long long)L, (long long)before, (long long)after, d);
		/* F.pad's list covers dims d..ndim-1; with a positive width, older
		 * ATen constant_pad_nd requires every covered dim to come out
		 * non-empty (sc_torch: pad-empty; DTensor's pad_tensor on an empty
		 * shard) */
		const int old_rule = !sc_torch_new(s->torch, SC_TORCH_PAD_EMPTY);
		for (int k = d; old_rule && (before > 0 || after > 0) && k < x->t[r].ndim; k++)
			if ((k == d ? n : x->t[r].shape[k]) <= 0)
				return sc_interp_fail(e, st, "on rank %d: The input size %lld, plus negative padding %lld and %lld resulted in a negative output size, which is invalid. Check dimension %d of your input.",
						      x->first + r, (long long)x->t[r].shape[k], k == d ? (long long)before : 0LL,
						      k == d ? (long long)after : 0LL, k);
		int64_t shape[SC_MAX_DIMS];
		memcpy(shape, x->t[r].shape, sizeof shape);
		shape[d] = n;
		struct sc_tensor out;
		SC_CHECK(fresh(x, r, shape, x->t[r].ndim, &out, e));
		sc_interp_fill_pad(x, &out);
		/* rows of the input that land in the output (negative pads crop) */
		const int64_t lo = before < 0 ? -before : 0, hi = after < 0 ? L + after : L;
		if (hi > lo) {
			struct sc_tensor src = x->t[r], dst = out;
			sc_interp_narrow(&src, d, lo, hi - lo);
			sc_interp_narrow(&dst, d, lo + before, hi - lo);
			sc_tensor_copy(&dst, &src);
		}
		x->t[r] = out;
	}
	return SC_OK;
}

static enum sc_status exec_repeat(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				  const int64_t *sizes, struct sc_err *e)
{
	for (int r = 0; r < x->nlocal; r++) {
		int d;
		int64_t n;
		const struct sc_expr_env env = sc_interp_env(x, r, sizes);
		SC_CHECK(dim_of(x, st, r, &d, e));
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[1], &n, e));
		if (n < 0)
			return sc_interp_fail(e, st, "on rank %d: repeats can not be negative (got %lld)", x->first + r,
					      (long long)n);
		const struct sc_tensor *t = &x->t[r];
		if (t->ndim >= SC_MAX_DIMS)
			return sc_interp_fail(e, st, "repeat_interleave of a %d-dim tensor (at most %d dims here)",
					      t->ndim, SC_MAX_DIMS - 1);
		/* the input with a stride-0 dim of n after d, copied, then merged */
		struct sc_tensor src = *t;
		int64_t shape[SC_MAX_DIMS];
		for (int i = t->ndim; i > d + 1; i--) {
			src.shape[i] = t->shape[i - 1];
			src.stride[i] = t->stride[i - 1];
		}
		src.shape[d + 1] = n;
		src.stride[d + 1] = 0;
		src.ndim = t->ndim + 1;
		struct sc_tensor out;
		SC_CHECK(fresh(x, r, src.shape, src.ndim, &out, e));
		sc_tensor_copy(&out, &src);
		memcpy(shape, t->shape, sizeof shape);
		if (__builtin_mul_overflow(shape[d], n, &shape[d]))
			return sc_interp_fail(e, st, "repeat_interleave: size overflows");
		out.ndim = t->ndim;
		memcpy(out.shape, shape, sizeof shape);
		sc_contig_strides(out.shape, out.ndim, out.stride);
		x->t[r] = out;
	}
	return SC_OK;
}

static enum sc_status exec_assert(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				  const int64_t *sizes, struct sc_err *e)
{
	for (int r = 0; r < x->nlocal; r++) {
		int64_t holds;
		const struct sc_expr_env env = sc_interp_env(x, r, sizes);
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[0], &holds, e));
		if (!holds)
			return sc_interp_fail(e, st, "assertion failed on rank %d", x->first + r);
	}
	return SC_OK;
}

const struct sc_step_def sc_steps_slice[] = {
	{"narrow", 0, parse_narrow, exec_narrow},
	{"take", 0, parse_take, exec_take},
	{"flip", 0, parse_flip, exec_flip},
	{"pad", SC_STEP_PADS, parse_dim_two, exec_pad},
	{"repeat_interleave", 0, parse_repeat, exec_repeat},
	{"assert", 0, parse_assert, exec_assert},
	{NULL, 0, NULL, NULL},
};
