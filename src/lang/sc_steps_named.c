/* sc_steps_named: joining and dividing named tensors (docs/language.md,
 * "Several tensors"): `NAME = cat a b ... dim=i` (torch.cat) and
 * `a, b, c = split t [E, E, E] dim=i` (torch.split with sizes: views). The
 * names on the left are the spec's line handler's; these rows parse what
 * follows the keyword. */
#include <string.h>

#include "sc_expr.h"
#include "sc_interp.h"
#include "sc_lex.h"
#include "sc_step.h"

/* A tensor name at the cursor: its index. */
static enum sc_status parse_name(struct sc_parse *p, int *out)
{
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind != SC_T_NAME)
		return sc_lex_err(p, t->col, "expected a tensor name");
	const int k = sc_step_tensor(p->s, t->text);
	if (k < 0)
		return sc_lex_err(p, t->col, "unknown tensor '%s' (name it first: tensor x = input, or y = STEP ...)",
				  t->text);
	p->pos++;
	*out = k;
	return SC_OK;
}

/* cat a b ... dim=i: st->io the inputs, args[0] the dim */
static enum sc_status parse_cat(struct sc_parse *p, struct sc_step *st)
{
	while (sc_lex_peek(p)->kind == SC_T_NAME && strcmp(sc_lex_peek(p)->text, "dim") != 0) {
		if (st->nio >= SC_MAX_NAMED)
			return sc_lex_err(p, sc_lex_peek(p)->col, "too many tensors (at most %d)", SC_MAX_NAMED);
		int id;
		SC_CHECK(parse_name(p, &id));
		st->io[st->nio++] = (unsigned char)id;
	}
	if (st->nio == 0)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected the tensors to concatenate");
	SC_CHECK(sc_lex_kv_int(p, "dim", &st->args[0]));
	return sc_lex_end(p);
}

/* split t [E, E, ...] dim=i: src1 the tensor, args[1..] the sizes, args[0] the dim */
static enum sc_status parse_split(struct sc_parse *p, struct sc_step *st)
{
	int src;
	SC_CHECK(parse_name(p, &src));
	st->src1 = src + 1;
	if (!sc_lex_is_op(sc_lex_peek(p), "["))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '[' and the sizes");
	int n;
	SC_CHECK(sc_expr_parse_list(p, &st->args[1], SC_STEP_MAX_ARGS - 1, &n, "pieces"));
	if (n == 0)
		return sc_lex_err(p, sc_lex_peek(p)->col, "split needs at least one size");
	st->nargs = 1 + n;
	SC_CHECK(sc_lex_kv_int(p, "dim", &st->args[0]));
	return sc_lex_end(p);
}

static enum sc_status exec_cat(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			       const int64_t *sizes, struct sc_err *e)
{
	(void)s;
	(void)sizes;
	struct sc_tensor outs[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		const struct sc_tensor *a = sc_interp_named(x, st->io[0], r);
		int d;
		SC_CHECK(sc_interp_wrap_dim(st, st->args[0], a->ndim, &d, e));
		int64_t shape[SC_MAX_DIMS];
		memcpy(shape, a->shape, sizeof shape);
		shape[d] = 0;
		for (int k = 0; k < st->nio; k++) {
			const struct sc_tensor *b = sc_interp_named(x, st->io[k], r);
			if (b->ndim != a->ndim)
				return sc_interp_fail(e, st, "on rank %d: Tensors must have same number of dimensions: got %d and %d",
						      x->first + r, a->ndim, b->ndim);
			for (int i = 0; i < a->ndim; i++)
				if (i != d && b->shape[i] != a->shape[i])
					return sc_interp_fail(e, st, "on rank %d: Sizes of tensors must match except in dimension %d. Expected size %lld but got size %lld for tensor number %d in the list.",
							      x->first + r, d, (long long)a->shape[i], (long long)b->shape[i], k);
			shape[d] += b->shape[d];
		}
		SC_CHECK(sc_tensor_empty(sc_interp_on(x, r), shape, a->ndim, sc_interp_esize(x), &outs[r], e));
		int64_t at = 0;
		for (int k = 0; k < st->nio; k++) {
			const struct sc_tensor *b = sc_interp_named(x, st->io[k], r);
			struct sc_tensor dst = outs[r];
			sc_interp_narrow(&dst, d, at, b->shape[d]);
			sc_tensor_copy(&dst, b);
			at += b->shape[d];
		}
	}
	memcpy(x->t, outs, sizeof(struct sc_tensor) * (size_t)x->nlocal);
	return SC_OK;
}

static enum sc_status exec_split(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				 const int64_t *sizes, struct sc_err *e)
{
	/* x->t is the split tensor (src1); the pieces go to the names in io */
	struct sc_tensor whole[SC_MAX_WORLD];
	memcpy(whole, x->t, sizeof(struct sc_tensor) * (size_t)x->nlocal);
	memcpy(&x->slots[(size_t)x->cur * (size_t)x->nlocal], whole, sizeof(struct sc_tensor) * (size_t)x->nlocal);
	for (int r = 0; r < x->nlocal; r++) {
		int d;
		SC_CHECK(sc_interp_wrap_dim(st, st->args[0], whole[r].ndim, &d, e));
		const struct sc_expr_env env = sc_interp_env(x, r, sizes);
		int64_t len[SC_MAX_NAMED], sum = 0;
		for (int k = 0; k < st->nio; k++) {
			SC_CHECK(sc_interp_eval(s, st, &env, st->args[1 + k], &len[k], e));
			if (len[k] < 0)
				return sc_interp_fail(e, st, "on rank %d: split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%lld",
						      x->first + r, (long long)len[k]);
			if (__builtin_add_overflow(sum, len[k], &sum))
				return sc_interp_fail(e, st, "on rank %d: the split sizes overflow", x->first + r);
		}
		if (sum != whole[r].shape[d])
			return sc_interp_fail(e, st, "on rank %d: split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %d), but got sizes summing to %lld",
					      x->first + r, (long long)whole[r].shape[d], d, (long long)sum);
		int64_t at = 0;
		for (int k = 0; k < st->nio; k++) {
			struct sc_tensor piece = whole[r];
			sc_interp_narrow(&piece, d, at, len[k]);
			at += len[k];
			x->slots[(size_t)st->io[k] * (size_t)x->nlocal + (size_t)r] = piece;
		}
	}
	/* the last piece becomes the current tensors */
	const int last = st->io[st->nio - 1];
	memcpy(x->t, &x->slots[(size_t)last * (size_t)x->nlocal], sizeof(struct sc_tensor) * (size_t)x->nlocal);
	x->cur = last;
	return SC_OK;
}

const struct sc_step_def sc_steps_named[] = {
	{"cat", SC_STEP_NAMED, parse_cat, exec_cat},
	{"split", SC_STEP_NAMED, parse_split, exec_split},
	{NULL, 0, NULL, NULL},
};
