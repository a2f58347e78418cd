/* sc_steps_buffer: buffers the code allocates, and writes into a slice of
 * one (docs/language.md, "Buffers"):
 *   zeros [E, ...]                 t.new_zeros([...]): padding everywhere
 *   empty [E, ...]                 t.new_empty([...]): nothing written yet
 *   write DST SRC dim=i start=E    DST.narrow(i, E, SRC.size(i)).copy_(SRC),
 *                                  as a new tensor (the name rebinds)
 * zeros and empty take the dtype of the tensor they apply to (bare, or
 * NAME = zeros SRC [...]); an element of an empty buffer that reaches the
 * output is reported as never written. */
#include <string.h>

#include "sc_expr.h"
#include "sc_interp.h"
#include "sc_lex.h"
#include "sc_step.h"

/* [E, ...]: the new buffer's shape, per rank (size() reads the tensor the
 * step applies to) */
static enum sc_status parse_alloc(struct sc_parse *p, struct sc_step *st)
{
	if (!sc_lex_is_op(sc_lex_peek(p), "["))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '[' and the buffer's shape after '%s'", st->def->keyword);
	SC_CHECK(sc_expr_parse_list(p, st->args, SC_MAX_DIMS, &st->nargs, "dims"));
	return sc_lex_end(p);
}

static enum sc_status exec_alloc(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				 const int64_t *sizes, struct sc_err *e)
{
	const int zeros = st->def->keyword[0] == 'z';
	for (int r = 0; r < x->nlocal; r++) {
		const struct sc_expr_env env = sc_interp_env(x, r, sizes);
		int64_t shape[SC_MAX_DIMS];
		for (int k = 0; k < st->nargs; k++) {
			SC_CHECK(sc_interp_eval(s, st, &env, st->args[k], &shape[k], e));
			if (shape[k] < 0)
				return sc_interp_fail(e, st, "on rank %d: Trying to create tensor with negative dimension %lld",
						      x->first + r, (long long)shape[k]);
		}
		struct sc_tensor out;
		SC_CHECK(sc_tensor_empty(sc_interp_on(x, r), shape, st->nargs, sc_interp_esize(x), &out, e));
		if (zeros)
			sc_interp_fill_pad(x, &out);
		else
			sc_interp_fill_bytes(x, &out, 0xFF); /* all bits set: nothing written (provenance SC_PROV_POISON) */
		x->t[r] = out;
	}
	return SC_OK;
}

/* write DST SRC dim=i start=E: io[0] DST, io[1] SRC, args[0] the dim, args[1] E */
static enum sc_status parse_write(struct sc_parse *p, struct sc_step *st)
{
	for (int k = 0; k < 2; k++) {
		const struct sc_tok *t = sc_lex_peek(p);
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected the %s tensor (write DST SRC dim=i start=E)", k ? "source" : "destination");
		const int id = sc_step_tensor(p->s, t->text);
		if (id < 0)
			return sc_lex_err(p, t->col, "unknown tensor '%s' (name it first: tensor x = input, or y = STEP ...)",
					  t->text);
		st->io[st->nio++] = (unsigned char)id;
		p->pos++;
	}
	SC_CHECK(sc_lex_kv_int(p, "dim", &st->args[0]));
	const struct sc_tok *t = sc_lex_peek(p);
	if (t->kind != SC_T_NAME || strcmp(t->text, "start") != 0 || !sc_lex_is_op(&p->t[p->pos + 1], "="))
		return sc_lex_err(p, t->col, "expected 'start=' (the first row of the slice written)");
	p->pos += 2;
	SC_CHECK(sc_expr_parse_arg(p, &st->args[1]));
	st->nargs = 2;
	return sc_lex_end(p);
}

static enum sc_status exec_write(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				 const int64_t *sizes, struct sc_err *e)
{
	struct sc_tensor outs[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		const struct sc_tensor *dst = sc_interp_named(x, st->io[0], r), *src = sc_interp_named(x, st->io[1], r);
		int d;
		SC_CHECK(sc_interp_wrap_dim(st, st->args[0], dst->ndim, &d, e));
		struct sc_expr_env env = sc_interp_env(x, r, sizes);
		env.shape = dst->shape; /* size() is the destination's */
		env.ndim = dst->ndim;
		int64_t start;
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[1], &start, e));
		if (src->ndim != dst->ndim)
			return sc_interp_fail(e, st, "on rank %d: the source has %d dims, the destination %d", x->first + r,
					      src->ndim, dst->ndim);
		for (int k = 0; k < dst->ndim; k++)
			if (k != d && src->shape[k] != dst->shape[k])
				return sc_interp_fail(e, st, "on rank %d: The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
						      x->first + r, (long long)dst->shape[k], (long long)src->shape[k], k);
		const int64_t L = dst->shape[d], len = src->shape[d];
		if (start < -L || start > L)
			return sc_interp_fail(e, st, "on rank %d: start out of range (expected to be in range of [%lld, %lld], but got %lld)",
					      x->first + r, (long long)-L, (long long)L, (long long)start);
		if (start < 0)
			start += L;
		if (start + len > L)
			return sc_interp_fail(e, st, "on rank %d: start (%lld) + length (%lld) exceeds dimension size (%lld)",
					      x->first + r, (long long)start, (long long)len, (long long)L);
		SC_CHECK(sc_tensor_empty(sc_interp_on(x, r), dst->shape, dst->ndim, sc_interp_esize(x), &outs[r], e));
		sc_tensor_copy(&outs[r], dst);
		struct sc_tensor slice = outs[r];
		sc_interp_narrow(&slice, d, start, len);
		sc_tensor_copy(&slice, src);
	}
	memcpy(x->t, outs, sizeof(struct sc_tensor) * (size_t)x->nlocal);
	return SC_OK;
}

const struct sc_step_def sc_steps_buffer[] = {
	{"zeros", SC_STEP_PADS, parse_alloc, exec_alloc},
	{"empty", 0, parse_alloc, exec_alloc},
	{"write", SC_STEP_NAMED, parse_write, exec_write},
	{NULL, 0, NULL, NULL},
};
