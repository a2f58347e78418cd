/* sc_steps_p2p: exchanges between pairs of ranks (docs/language.md,
 * "Sized exchanges"): the ring exchange `shift K`, `sendrecv to=E from=F`
 * and `broadcast src=E`, each one variable-size exchange whose pairs every
 * process checks alike before a byte moves (a send nobody receives, or a
 * receive nobody sends, would hang). */
#include <stdint.h>
#include <string.h>

#include "sc_exchange.h"
#include "sc_expr.h"
#include "sc_lex.h"
#include "sc_step.h"

/* ---- parsing ---- */

static enum sc_status parse_shift(struct sc_parse *p, struct sc_step *st)
{
	if (sc_lex_peek(p)->kind == SC_T_END)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected K (where each rank sends: rank + K)");
	SC_CHECK(sc_expr_parse_arg(p, &st->args[0]));
	st->nargs = 1;
	return sc_lex_end(p);
}

static enum sc_status parse_broadcast(struct sc_parse *p, struct sc_step *st)
{
	int seen;
	SC_CHECK(sc_exchange_parse_kv(p, "src", 0, &st->args[0], &seen));
	if (!seen)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected 'src=' (the group rank whose tensor is sent)");
	st->nargs = 1;
	return sc_lex_end(p);
}

/* ---- shift K: the ring exchange ---- */

static enum sc_status shift_row(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, int r, int64_t *m, struct sc_err *e)
{
	const struct sc_expr_env env = sc_interp_env(x, r, sizes);
	int64_t k;
	SC_CHECK(sc_interp_eval(s, st, &env, st->args[0], &k, e));
	const int64_t P = x->world;
	m[SC_XROW_SCALAR] = ((x->first + r) + ((k % P) + P) % P) % P; /* no overflow for any K */
	return SC_OK;
}

static enum sc_status exec_shift(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				 const int64_t *sizes, struct sc_err *e)
{
	struct sc_exchange w;
	enum sc_status rc = sc_exchange_gather(x, s, st, sizes, &w, shift_row, e);
	const int P = w.P;
	int from[SC_MAX_WORLD];
	for (int r = 0; r < P; r++)
		from[r] = -1;
	for (int src = 0; rc == SC_OK && src < P; src++) {
		const int dst = (int)sc_exchange_row(&w, src)[SC_XROW_SCALAR];
		if (from[dst] >= 0)
			rc = sc_interp_fail(e, st, "ranks %d and %d both send to rank %d: the sends must form a permutation of the group",
					    from[dst], src, dst);
		from[dst] = src;
	}
	if (rc != SC_OK) {
		sc_exchange_free(&w);
		return rc;
	}
	/* whole tensors: one "row" of numel elements each */
	int64_t rnum[SC_MAX_WORLD];
	for (int r = 0; r < P; r++) {
		const int64_t *q = sc_exchange_row(&w, r);
		rnum[r] = sc_exchange_numel(&w, r);
		sc_exchange_sends(&w, r)[(int)q[SC_XROW_SCALAR]] = 1;
	}
	for (int dst = 0; dst < P; dst++)
		sc_exchange_recvs(&w, dst)[from[dst]] = 1;
	struct sc_buf *bufs[SC_MAX_WORLD];
	rc = sc_exchange_run(x, st, &w, rnum, 1, bufs, e);
	for (int r = 0; rc == SC_OK && r < x->nlocal; r++) {
		const int64_t *q = sc_exchange_row(&w, from[x->first + r]);
		x->t[r] = sc_exchange_view(bufs[r], q, 0, q[SC_XROW_NDIM] ? q[SC_XROW_SHAPE] : 0, 0);
	}
	sc_exchange_free(&w);
	return rc;
}

/* ---- broadcast src=E ---- */

static enum sc_status bcast_row(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, int r, int64_t *m, struct sc_err *e)
{
	const struct sc_expr_env env = sc_interp_env(x, r, sizes);
	int64_t src;
	SC_CHECK(sc_interp_eval(s, st, &env, st->args[0], &src, e));
	char who[64];
	if (src < 0 || src >= x->world)
		return sc_interp_fail(e, st, "on %s: src=%lld is not a rank of the group (0..%d)",
				      sc_interp_rank_text(x, r, who, sizeof who), (long long)src, x->world - 1);
	m[SC_XROW_SCALAR] = src;
	return SC_OK;
}

/* The src every rank named (rows by bcast_row); an error when they differ. */
static enum sc_status agreed_src(const struct sc_step *st, const struct sc_exchange *w, int *src, struct sc_err *e)
{
	*src = (int)sc_exchange_row(w, 0)[SC_XROW_SCALAR];
	for (int r = 1; r < w->P; r++)
		if (sc_exchange_row(w, r)[SC_XROW_SCALAR] != *src)
			return sc_interp_fail(e, st, "rank 0 takes src=%d and rank %d src=%lld: every rank of the group must name the same src",
					      *src, r, (long long)sc_exchange_row(w, r)[SC_XROW_SCALAR]);
	return SC_OK;
}

/* src's tensor, once to every rank (the others send nothing); every local
 * rank then holds it whole. */
static enum sc_status from_src(struct sc_exec *x, const struct sc_step *st, struct sc_exchange *w, int src,
			       struct sc_err *e)
{
	int64_t rnum[SC_MAX_WORLD];
	const int64_t *q = sc_exchange_row(w, src);
	for (int r = 0; r < w->P; r++) {
		rnum[r] = sc_exchange_numel(w, src);
		sc_exchange_sends(w, src)[r] = 1;
		sc_exchange_recvs(w, r)[src] = 1;
	}
	struct sc_buf *bufs[SC_MAX_WORLD];
	SC_CHECK(sc_exchange_run(x, st, w, rnum, w->P, bufs, e));
	for (int r = 0; r < x->nlocal; r++)
		x->t[r] = sc_exchange_view(bufs[r], q, 0, q[SC_XROW_NDIM] ? q[SC_XROW_SHAPE] : 0, 0);
	return SC_OK;
}

static enum sc_status exec_broadcast(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				     const int64_t *sizes, struct sc_err *e)
{
	struct sc_exchange w;
	enum sc_status rc = sc_exchange_gather(x, s, st, sizes, &w, bcast_row, e);
	const int P = w.P;
	int src = 0;
	if (rc == SC_OK)
		rc = agreed_src(st, &w, &src, e);
	for (int r = 0; rc == SC_OK && r < P; r++) {
		const int64_t *a = sc_exchange_row(&w, r), *b = sc_exchange_row(&w, src);
		if (a[SC_XROW_NDIM] != b[SC_XROW_NDIM] || memcmp(a + SC_XROW_SHAPE, b + SC_XROW_SHAPE, sizeof(int64_t) * (size_t)a[SC_XROW_NDIM]))
			rc = sc_interp_fail(e, st, "rank %d's tensor differs in shape from src rank %d's: broadcast needs the same shape on every rank",
					    r, src);
	}
	if (rc == SC_OK)
		rc = from_src(x, st, &w, src, e);
	sc_exchange_free(&w);
	return rc;
}

/* ---- scatter dim=i src=E: torch.distributed.scatter of src's chunks ---- */

/* dim=i, then src=E as broadcast's: args[0] E, args[1] the dim */
static enum sc_status parse_scatter(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_kv_int(p, "dim", &st->args[1]));
	SC_CHECK(parse_broadcast(p, st));
	st->nargs = 2;
	return SC_OK;
}

/* Rank r receives chunk r of src's tensor along dim i (the scatter_list
 * code makes with tensor.chunk(P, i): equal pieces, so dim i divides by P).
 * The other ranks' tensors only say what they receive into: replaced. */
static enum sc_status exec_scatter(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				   const int64_t *sizes, struct sc_err *e)
{
	struct sc_exchange w;
	enum sc_status rc = sc_exchange_gather(x, s, st, sizes, &w, bcast_row, e);
	const int P = w.P;
	int src = 0;
	if (rc == SC_OK)
		rc = agreed_src(st, &w, &src, e);
	const int64_t *q = rc == SC_OK ? sc_exchange_row(&w, src) : NULL;
	const int nd = q ? (int)q[SC_XROW_NDIM] : 0;
	int d = 0;
	if (rc == SC_OK && nd == 0)
		rc = sc_interp_fail(e, st, "src rank %d's tensor is zero-dimensional: it has no chunks to scatter", src);
	if (rc == SC_OK)
		rc = sc_interp_wrap_dim(st, st->args[1], nd, &d, e);
	if (rc == SC_OK && q[SC_XROW_SHAPE + d] % P != 0)
		rc = sc_interp_fail(e, st, "src rank %d's dim %d (%lld) does not split into %d equal chunks: scatter needs "
				    "every chunk of one shape", src, d, (long long)q[SC_XROW_SHAPE + d], P);
	/* src's tensor to every rank, each keeping its chunk (the bytes
	 * scatter moves are those chunks; the result is the same) */
	if (rc == SC_OK)
		rc = from_src(x, st, &w, src, e);
	for (int r = 0; rc == SC_OK && r < x->nlocal; r++)
		sc_interp_narrow(&x->t[r], d, (int64_t)(x->first + r) * (q[SC_XROW_SHAPE + d] / P), q[SC_XROW_SHAPE + d] / P);
	sc_exchange_free(&w);
	return rc;
}

/* ---- sendrecv to=E from=F ---- */

/* to=E: a rank, or `none` (which an expression may also give). */
static enum sc_status parse_peer(struct sc_parse *p, const char *key, int *out)
{
	struct sc_tok *t = sc_lex_peek(p);
	int seen;
	SC_CHECK(sc_exchange_parse_kv(p, key, 0, out, &seen));
	if (!seen)
		return sc_lex_err(p, t->col, "expected '%s=' (a rank, or none)", key);
	return SC_OK;
}

static enum sc_status parse_sendrecv(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(parse_peer(p, "to", &st->args[0]));
	SC_CHECK(parse_peer(p, "from", &st->args[1]));
	st->nargs = 2;
	return sc_lex_end(p);
}

/* Where local rank r sends (SCALAR) and receives from (SCALAR2); -1 none. */
static enum sc_status sendrecv_row(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				   const int64_t *sizes, int r, int64_t *m, struct sc_err *e)
{
	const struct sc_expr_env env = sc_interp_env(x, r, sizes);
	for (int k = 0; k < 2; k++) {
		int64_t v;
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[k], &v, e));
		if (v == INT64_MIN)
			v = -1; /* none */
		else if (v < 0 || v >= x->world) {
			char who[64];
			return sc_interp_fail(e, st, "on %s: %s=%lld is not a rank of the group (0..%d)",
					      sc_interp_rank_text(x, r, who, sizeof who), k ? "from" : "to", (long long)v,
					      x->world - 1);
		}
		m[SC_XROW_SCALAR + k] = v;
	}
	return SC_OK;
}

/* Every send is received and every receive sent, as it would hang else. */
static enum sc_status sendrecv_pairs(const struct sc_step *st, const struct sc_exchange *w, struct sc_err *e)
{
	for (int r = 0; r < w->P; r++) {
		const int64_t to = sc_exchange_row(w, r)[SC_XROW_SCALAR], from = sc_exchange_row(w, r)[SC_XROW_SCALAR2];
		if (to >= 0 && sc_exchange_row(w, (int)to)[SC_XROW_SCALAR2] != r) {
			const int64_t o = sc_exchange_row(w, (int)to)[SC_XROW_SCALAR2];
			if (o < 0)
				return sc_interp_fail(e, st, "rank %d sends to rank %lld, which receives nothing (it would hang)", r,
						      (long long)to);
			return sc_interp_fail(e, st, "rank %d sends to rank %lld, which receives from rank %lld (it would hang)", r,
					      (long long)to, (long long)o);
		}
		if (from >= 0 && sc_exchange_row(w, (int)from)[SC_XROW_SCALAR] != r)
			return sc_interp_fail(e, st, "rank %d waits for rank %lld, which sends %s (it would hang)", r,
					      (long long)from,
					      sc_exchange_row(w, (int)from)[SC_XROW_SCALAR] < 0 ? "nothing" : "elsewhere");
	}
	return SC_OK;
}

static enum sc_status exec_sendrecv(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				    const int64_t *sizes, struct sc_err *e)
{
	struct sc_exchange w;
	enum sc_status rc = sc_exchange_gather(x, s, st, sizes, &w, sendrecv_row, e);
	if (rc == SC_OK)
		rc = sendrecv_pairs(st, &w, e);
	const int P = w.P;
	int64_t rnum[SC_MAX_WORLD];
	for (int r = 0; rc == SC_OK && r < P; r++) {
		int64_t *q = sc_exchange_row(&w, r);
		rnum[r] = sc_exchange_numel(&w, r);
		if (q[SC_XROW_SCALAR] >= 0)
			sc_exchange_sends(&w, r)[q[SC_XROW_SCALAR]] = 1;
		if (q[SC_XROW_SCALAR2] >= 0)
			sc_exchange_recvs(&w, r)[q[SC_XROW_SCALAR2]] = 1;
	}
	struct sc_buf *bufs[SC_MAX_WORLD];
	if (rc == SC_OK)
		rc = sc_exchange_run(x, st, &w, rnum, 1, bufs, e);
	for (int r = 0; rc == SC_OK && r < x->nlocal; r++) {
		const int64_t from = sc_exchange_row(&w, x->first + r)[SC_XROW_SCALAR2];
		if (from < 0)
			continue; /* receives nothing: keeps its tensor */
		const int64_t *q = sc_exchange_row(&w, (int)from);
		x->t[r] = sc_exchange_view(bufs[r], q, 0, q[SC_XROW_NDIM] ? q[SC_XROW_SHAPE] : 0, 0);
	}
	sc_exchange_free(&w);
	return rc;
}

#define SIZED (SC_STEP_COLLECTIVE | SC_STEP_VARIES | SC_STEP_OWN_SHAPES)

const struct sc_step_def sc_steps_p2p[] = {
	{"shift", SIZED, parse_shift, exec_shift},
	{"sendrecv", SIZED, parse_sendrecv, exec_sendrecv},
	{"broadcast", SC_STEP_COLLECTIVE | SC_STEP_OWN_SHAPES, parse_broadcast, exec_broadcast},
	{"scatter", SC_STEP_COLLECTIVE | SC_STEP_OWN_SHAPES, parse_scatter, exec_scatter},
	{NULL, 0, NULL, NULL},
};
