/* sc_steps_sized: exchanges whose sizes differ from rank to rank
 * (docs/language.md, "Sized exchanges"): all_to_all_single with split sizes,
 * the list all_gather over tensors that differ along its dim, the ring
 * exchange `shift K` and `broadcast src=E`. Each is one variable-size
 * exchange through the backend (all_to_allv).
 *
 * Sizes are evaluated on the rank that knows them (a sender its sends, a
 * receiver what it expects), then every rank's sizes are shared (an
 * all_gather of a small row per rank), so that every process decides
 * alike whether the exchange is consistent: where a sender and its
 * receiver disagree the step fails and says which ranks and how many rows,
 * as NCCL would hang or corrupt. */
#include <stdlib.h>
#include <string.h>

#include "sc_expr.h"
#include "sc_interp.h"
#include "sc_lex.h"
#include "sc_exchange.h"
#include "sc_step.h"

/* ---- parsing ---- */

#define SRC (1u << SC_VAR_SRC)
#define DST (1u << SC_VAR_DST)

enum sc_status sc_steps_parse_a2a(struct sc_parse *p, struct sc_step *st)
{
	int seen;
	st->args[0] = st->args[1] = -1;
	SC_CHECK(sc_exchange_parse_kv(p, "splits", SRC | DST, &st->args[0], &seen));
	if (seen) {
		st->args[1] = st->args[0];
	} else {
		SC_CHECK(sc_exchange_parse_kv(p, "in", SRC | DST, &st->args[0], &seen));
		SC_CHECK(sc_exchange_parse_kv(p, "out", SRC | DST, &st->args[1], &seen));
	}
	st->nargs = 2;
	st->form = st->args[0] >= 0 || st->args[1] >= 0;
	if (st->form)
		st->flags |= SC_STEP_VARIES | SC_STEP_OWN_SHAPES;
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind == SC_T_NAME && strcmp(t->text, "raw") == 0) {
		st->raw = 1;
		p->pos++;
	}
	return sc_lex_end(p);
}

/* ---- all_to_all_single with split sizes ---- */

/* Local rank r's row: what it sends to each dst (E on the sender) and
 * expects from each src (F on the receiver); None is an equal split. */
static enum sc_status a2a_row(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			      const int64_t *sizes, int r, int64_t *m, struct sc_err *e)
{
	const int P = x->world, me = x->first + r;
	const int64_t L = x->t[r].ndim ? x->t[r].shape[0] : 0;
	m[SC_XROW_SCALAR2] = sc_tensor_is_contig(&x->t[r]);
	struct sc_expr_env env = sc_interp_env(x, r, sizes);
	env.bound |= SRC | DST;
	for (int j = 0; j < P; j++) {
		int64_t v;
		for (int side = 0; side < 2; side++) {
			env.var[SC_VAR_SRC] = side ? j : me;
			env.var[SC_VAR_DST] = side ? me : j;
			if (st->args[side] >= 0) {
				SC_CHECK(sc_interp_eval(s, st, &env, st->args[side], &v, e));
				if (v < 0)
					return sc_interp_fail(e, st, "on rank %d: split size %lld is negative", me, (long long)v);
			} else if (L % P != 0) {
				return sc_interp_fail(e, st, "on rank %d: Tensor's dim 0 does not divide equally across group size (dim 0 is %lld, world size %d; give %s= sizes)",
						      me, (long long)L, P, side ? "out" : "in");
			} else {
				v = L / P;
			}
			m[SC_XROW_SEND + side * P + j] = v;
		}
	}
	int64_t sum = 0;
	for (int j = 0; j < P; j++)
		if (__builtin_add_overflow(sum, m[SC_XROW_SEND + j], &sum))
			return sc_interp_fail(e, st, "on rank %d: the input split sizes overflow", me);
	if (sum != L)
		return sc_interp_fail(e, st, "on rank %d: Split sizes doesn't match total dim 0 size (the input split sizes sum to %lld, dim 0 is %lld)",
				      me, (long long)sum, (long long)L);
	return SC_OK;
}

static enum sc_status exec_a2a_sized_rows(struct sc_exec *x, const struct sc_step *st, struct sc_exchange *w,
					  struct sc_err *e)
{
	const int P = w->P;
	int64_t rnum[SC_MAX_WORLD];
	for (int r = 0; r < P; r++)
		rnum[r] = sc_exchange_row_numel(sc_exchange_row(w, r));
	/* every sender's count is its receiver's, and rows are alike */
	for (int src = 0; src < P; src++)
		for (int dst = 0; dst < P; dst++) {
			const int64_t a = sc_exchange_sends(w, src)[dst], b = sc_exchange_recvs(w, dst)[src];
			if (a != b)
				return sc_interp_fail(e, st, "rank %d sends %lld row%s to rank %d, which expects %lld (NCCL would hang or corrupt)",
						      src, (long long)a, a == 1 ? "" : "s", dst, (long long)b);
			if (a && (sc_exchange_row(w, src)[SC_XROW_NDIM] != sc_exchange_row(w, dst)[SC_XROW_NDIM] || rnum[src] != rnum[dst]))
				return sc_interp_fail(e, st, "rank %d's rows hold %lld elements, rank %d's %lld: the other dims must agree",
						      src, (long long)rnum[src], dst, (long long)rnum[dst]);
			if (a && sc_exchange_row(w, src)[SC_XROW_NDIM] == 0)
				return sc_interp_fail(e, st, "dimension specified as 0 but tensor has no dimensions");
		}
	struct sc_buf *bufs[SC_MAX_WORLD];
	SC_CHECK(sc_exchange_run(x, st, w, rnum, 1, bufs, e));
	for (int r = 0; r < x->nlocal; r++) {
		const int me = x->first + r;
		int64_t total = 0;
		for (int j = 0; j < P; j++)
			total += sc_exchange_recvs(w, me)[j];
		x->t[r] = sc_exchange_view(bufs[r], sc_exchange_row(w, me), 0, total, 0);
	}
	return SC_OK;
}

enum sc_status sc_steps_a2a_sized(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				  const int64_t *sizes, struct sc_err *e)
{
	struct sc_exchange w;
	enum sc_status rc = sc_exchange_gather(x, s, st, sizes, &w, a2a_row, e);
	for (int r = 0; rc == SC_OK && r < w.P; r++) /* decided from the shared rows: alike everywhere */
		if (!st->raw && !sc_exchange_row(&w, r)[SC_XROW_SCALAR2])
			rc = sc_interp_fail(e, st, "Tensors must be contiguous (rank %d's is not; torch.distributed rejects a non-contiguous input; transcribe a missing .contiguous() with the 'raw' suffix)",
					    r);
	if (rc == SC_OK)
		rc = exec_a2a_sized_rows(x, st, &w, e);
	sc_exchange_free(&w);
	return rc;
}

/* ---- all_gather dim=i [sizes=E]: tensors that differ along dim i ---- */

enum sc_status sc_steps_parse_ag(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_kv_int(p, "dim", &st->args[0]));
	int seen;
	st->args[1] = -1;
	SC_CHECK(sc_exchange_parse_kv(p, "sizes", SRC, &st->args[1], &seen));
	st->nargs = 2;
	if (seen)
		st->flags |= SC_STEP_VARIES | SC_STEP_OWN_SHAPES;
	return sc_lex_end(p);
}

/* What local rank r expects along dim i from each src (sizes=E; -1: any;
 * gather: what dst expects). */
static enum sc_status ag_row(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			     const int64_t *sizes, int r, int64_t *m, struct sc_err *e)
{
	const int P = x->world;
	struct sc_expr_env env = sc_interp_env(x, r, sizes);
	env.bound |= SRC;
	for (int j = 0; j < P; j++) {
		int64_t v = -1;
		env.var[SC_VAR_SRC] = j;
		if (st->args[1] >= 0)
			SC_CHECK(sc_interp_eval(s, st, &env, st->args[1], &v, e));
		m[SC_XROW_SEND + P + j] = v;
	}
	m[SC_XROW_SCALAR] = -1;
	if (st->nargs > 2) { /* gather: the destination */
		int64_t dst;
		SC_CHECK(sc_interp_eval(s, st, &env, st->args[2], &dst, e));
		char who[64];
		if (dst < 0 || dst >= P)
			return sc_interp_fail(e, st, "on %s: dst=%lld is not a rank of the group (0..%d)",
					      sc_interp_rank_text(x, r, who, sizeof who), (long long)dst, P - 1);
		m[SC_XROW_SCALAR] = dst;
	}
	return SC_OK;
}

/* Every rank's shape agrees but along dim i, and with what receivers expect. */
static enum sc_status ag_check(const struct sc_step *st, const struct sc_exchange *w, int i, struct sc_err *e)
{
	const int64_t *a = sc_exchange_row(w, 0);
	for (int r = 0; r < w->P; r++) {
		const int64_t *b = sc_exchange_row(w, r);
		if (b[SC_XROW_NDIM] != a[SC_XROW_NDIM])
			return sc_interp_fail(e, st, "rank %d's tensor has %lld dims, rank 0's %lld", r,
					      (long long)b[SC_XROW_NDIM], (long long)a[SC_XROW_NDIM]);
		for (int d = 0; d < a[SC_XROW_NDIM]; d++)
			if (d != i && b[SC_XROW_SHAPE + d] != a[SC_XROW_SHAPE + d])
				return sc_interp_fail(e, st, "rank %d's tensor has %lld along dim %d, rank 0's %lld: only dim %d may differ",
						      r, (long long)b[SC_XROW_SHAPE + d], d, (long long)a[SC_XROW_SHAPE + d], i);
		if (b[SC_XROW_SCALAR] != a[SC_XROW_SCALAR])
			return sc_interp_fail(e, st, "rank 0 takes dst=%lld and rank %d dst=%lld: every rank must name the same dst",
					      (long long)a[SC_XROW_SCALAR], r, (long long)b[SC_XROW_SCALAR]);
		if (a[SC_XROW_SCALAR] >= 0 && r != a[SC_XROW_SCALAR])
			continue; /* gather: only dst receives, and only its sizes= count */
		for (int src = 0; src < w->P; src++) {
			const int64_t want = sc_exchange_recvs(w, r)[src], got = sc_exchange_row(w, src)[SC_XROW_SHAPE + i];
			if (want >= 0 && want != got)
				return sc_interp_fail(e, st, "rank %d expects %lld row%s from rank %d, which sends %lld (NCCL would hang or corrupt)",
						      r, (long long)want, want == 1 ? "" : "s", src, (long long)got);
		}
	}
	return SC_OK;
}

enum sc_status sc_steps_ag_sized(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				 const int64_t *sizes, struct sc_err *e)
{
	struct sc_exchange w;
	enum sc_status rc = sc_exchange_gather(x, s, st, sizes, &w, ag_row, e);
	/* the dim from rank 0's shared row, so that every process decides alike */
	const int nd = rc == SC_OK ? (int)sc_exchange_row(&w, 0)[SC_XROW_NDIM] : 0;
	int i = 0;
	if (rc == SC_OK && nd == 0)
		rc = sc_interp_fail(e, st, "zero-dimensional tensor cannot be split or concatenated");
	if (rc == SC_OK)
		rc = sc_interp_wrap_dim(st, st->args[0], nd, &i, e);
	if (rc == SC_OK)
		rc = ag_check(st, &w, i, e);
	const int P = w.P;
	const int to = rc == SC_OK ? (int)sc_exchange_row(&w, 0)[SC_XROW_SCALAR] : -1; /* gather: only dst */
	int64_t rnum[SC_MAX_WORLD], total = 0;
	for (int r = 0; rc == SC_OK && r < P; r++) { /* whole tensors, one to every rank (or to dst) */
		const int64_t *q = sc_exchange_row(&w, r);
		rnum[r] = sc_exchange_numel(&w, r);
		total += q[SC_XROW_SHAPE + i];
		for (int j = 0; j < P; j++) {
			sc_exchange_sends(&w, r)[j] = to < 0 || j == to;
			sc_exchange_recvs(&w, r)[j] = to < 0 || r == to;
		}
	}
	struct sc_buf *bufs[SC_MAX_WORLD];
	if (rc == SC_OK)
		rc = sc_exchange_run(x, st, &w, rnum, to < 0 ? P : 1, bufs, e);
	for (int r = 0; rc == SC_OK && r < x->nlocal; r++) {
		if (to >= 0 && x->first + r != to)
			continue; /* torch's gather: the other ranks' tensors are unchanged */
		struct sc_tensor out;
		int64_t shape[SC_MAX_DIMS];
		memcpy(shape, sc_exchange_row(&w, 0) + SC_XROW_SHAPE, sizeof shape);
		shape[i] = total;
		if ((rc = sc_tensor_empty(sc_interp_on(x, r), shape, nd, sc_interp_esize(x), &out, e)) != SC_OK)
			break;
		int64_t at = 0, off = 0;
		for (int src = 0; src < P; src++) {
			const int64_t *q = sc_exchange_row(&w, src);
			struct sc_tensor seg = sc_exchange_view(bufs[r], q, i, q[SC_XROW_SHAPE + i], off), dst = out;
			sc_interp_narrow(&dst, i, at, q[SC_XROW_SHAPE + i]);
			sc_tensor_copy(&dst, &seg);
			at += q[SC_XROW_SHAPE + i];
			off += rnum[src];
		}
		x->t[r] = out;
	}
	sc_exchange_free(&w);
	return rc;
}

/* gather dim=i dst=E [sizes=F]: args[0] dim, args[1] F (-1: none), args[2] E;
 * dst= and sizes= in either order */
static enum sc_status parse_gather(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_kv_int(p, "dim", &st->args[0]));
	int seen_dst = 0, seen_sizes = 0, seen;
	st->args[1] = -1;
	for (int k = 0; k < 2; k++) {
		if (!seen_dst) {
			SC_CHECK(sc_exchange_parse_kv(p, "dst", 0, &st->args[2], &seen));
			seen_dst |= seen;
		}
		if (!seen_sizes) {
			SC_CHECK(sc_exchange_parse_kv(p, "sizes", SRC, &st->args[1], &seen));
			seen_sizes |= seen;
		}
	}
	if (!seen_dst)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected 'dst=' (the rank that receives)");
	st->nargs = 3;
	return sc_lex_end(p);
}

const struct sc_step_def sc_steps_sized[] = {
	{"gather", SC_STEP_COLLECTIVE | SC_STEP_OWN_SHAPES, parse_gather, sc_steps_ag_sized},
	{NULL, 0, NULL, NULL},
};

/* ---- for the reductions (sc_steps_coll.c): sizes and roots agreed ---- */

/* Local rank r's row: E at dst = 0..P-1 (sizes), or E (a root). */
static enum sc_status agree_row(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, int r, int64_t *m, struct sc_err *e)
{
	struct sc_expr_env env = sc_interp_env(x, r, sizes);
	env.bound |= DST;
	const int node = st->args[st->nargs - 1];
	for (int j = 0; j < x->world; j++) {
		env.var[SC_VAR_DST] = j;
		SC_CHECK(sc_interp_eval(s, st, &env, node, &m[SC_XROW_SEND + j], e));
	}
	return SC_OK;
}

enum sc_status sc_steps_agreed(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			       const int64_t *sizes, int64_t *vals, struct sc_err *e)
{
	struct sc_exchange w;
	enum sc_status rc = sc_exchange_gather(x, s, st, sizes, &w, agree_row, e);
	for (int r = 1; rc == SC_OK && r < w.P; r++)
		for (int j = 0; j < w.P && rc == SC_OK; j++)
			if (sc_exchange_sends(&w, r)[j] != sc_exchange_sends(&w, 0)[j])
				rc = sc_interp_fail(e, st, "rank 0 and rank %d disagree (%lld vs %lld at dst=%d): every rank must compute the same sizes",
						    r, (long long)sc_exchange_sends(&w, 0)[j], (long long)sc_exchange_sends(&w, r)[j], j);
	if (rc == SC_OK)
		memcpy(vals, sc_exchange_sends(&w, 0), sizeof(int64_t) * (size_t)w.P);
	sc_exchange_free(&w);
	return rc;
}

enum sc_status sc_steps_parse_rs_sizes(struct sc_parse *p, struct sc_step *st)
{
	int seen;
	st->args[1] = -1;
	SC_CHECK(sc_exchange_parse_kv(p, "sizes", DST, &st->args[1], &seen));
	st->nargs = seen ? 2 : 1;
	return SC_OK;
}
