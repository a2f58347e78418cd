/* sc_steps_sized: exchanges whose sizes differ from rank to rank
 * (docs/language.md, "Language 2"): all_to_all_single with split sizes,
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
#include "sc_step.h"

/* ---- the shared rows ---- */

/* One rank's row: its status, shape, one scalar and two size vectors. */
enum { ROW_BAD, ROW_NDIM, ROW_SHAPE, ROW_SCALAR = ROW_SHAPE + SC_MAX_DIMS, ROW_SEND, ROW_FIXED = ROW_SEND };

struct rows {
	int P;
	size_t len;     /* int64s per row */
	int64_t *all;   /* P rows, every rank's */
	int64_t *mine;  /* nlocal rows */
};

static int64_t *row(const struct rows *w, int rank) { return w->all + (size_t)rank * w->len; }
static int64_t *sends(const struct rows *w, int rank) { return row(w, rank) + ROW_SEND; }
static int64_t *recvs(const struct rows *w, int rank) { return row(w, rank) + ROW_SEND + w->P; }

static enum sc_status rows_init(struct sc_exec *x, struct rows *w, struct sc_err *e)
{
	w->P = x->world;
	w->len = ROW_FIXED + 2 * (size_t)x->world;
	w->all = calloc((size_t)x->world * w->len, sizeof(int64_t));
	w->mine = calloc((size_t)x->nlocal * w->len, sizeof(int64_t));
	if (!w->all || !w->mine) {
		free(w->all);
		free(w->mine);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	for (int r = 0; r < x->nlocal; r++) {
		int64_t *m = w->mine + (size_t)r * w->len;
		m[ROW_NDIM] = x->t[r].ndim;
		memcpy(m + ROW_SHAPE, x->t[r].shape, sizeof(int64_t) * SC_MAX_DIMS);
	}
	return SC_OK;
}

static void rows_free(struct rows *w)
{
	free(w->all);
	free(w->mine);
}

/* Every rank's row to every process. A rank whose row is marked bad
 * failed to evaluate its sizes: its own process has the message in *mine_err;
 * the others say which rank failed, so that all stop together. */
static enum sc_status rows_share(struct sc_exec *x, const struct sc_step *st, struct rows *w,
				 enum sc_status mine_st, struct sc_err *mine_err, struct sc_err *e)
{
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		send[r] = w->mine + (size_t)r * w->len;
		recv[r] = w->all; /* every local rank receives the same rows */
	}
	SC_CHECK(x->be->ops->all_gather(x->be, x->world, send, recv, w->len * sizeof(int64_t), e));
	if (mine_st != SC_OK) {
		*e = *mine_err;
		return mine_st;
	}
	for (int r = 0; r < w->P; r++)
		if (row(w, r)[ROW_BAD])
			return sc_interp_fail(e, st, "the sizes could not be evaluated on rank %d (its process says why)", r);
	return SC_OK;
}

/* Elements of one dim-0 row of a shape (the product of the other dims). */
static int64_t row_numel(const int64_t *r)
{
	int64_t n = 1;
	for (int d = 1; d < r[ROW_NDIM]; d++)
		n *= r[ROW_SHAPE + d];
	return n;
}

/* Runs the exchange of w (counts in rows of rnum elements), each local
 * rank's input packed as `reps` copies; *bufs receive. */
static enum sc_status exchange(struct sc_exec *x, const struct sc_step *st, const struct rows *w,
			       const int64_t *rnum, int reps, struct sc_buf **bufs, struct sc_err *e)
{
	const unsigned es = sc_interp_esize(x);
	const int P = w->P;
	size_t *sb = calloc((size_t)x->nlocal * (size_t)P, sizeof(size_t));
	size_t *rb = calloc((size_t)x->nlocal * (size_t)P, sizeof(size_t));
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	enum sc_status rc = SC_OK;
	if (!sb || !rb) {
		rc = SC_ERR(e, SC_E_NOMEM, "out of memory");
		goto out;
	}
	for (int r = 0; r < x->nlocal && rc == SC_OK; r++) {
		const int me = x->first + r;
		int64_t total = 0;
		for (int j = 0; j < P; j++) {
			sb[(size_t)r * P + j] = (size_t)(sends(w, me)[j] * rnum[me]) * es;
			rb[(size_t)r * P + j] = (size_t)(recvs(w, me)[j] * rnum[j]) * es;
			total += recvs(w, me)[j] * rnum[j];
		}
		struct sc_tensor c = x->t[r];
		if ((rc = sc_interp_contiguous(x, &c, e)) != SC_OK)
			break;
		const int64_t n = sc_tensor_numel(&c);
		struct sc_buf *sbuf = c.buf;
		if (reps > 1) { /* the same tensor to every receiver */
			if (!(sbuf = sc_arena_buf(sc_interp_on(x, r), n * reps, es))) {
				rc = sc_interp_arena_fail(x, e);
				break;
			}
			for (int k = 0; k < reps; k++) {
				struct sc_tensor d = c;
				d.buf = sbuf;
				d.offset = (int64_t)k * n;
				sc_tensor_copy(&d, &c);
			}
		}
		send[r] = sbuf->data + (reps > 1 ? 0 : (size_t)c.offset * es);
		if (!(bufs[r] = sc_arena_buf(sc_interp_on(x, r), total, es))) {
			rc = sc_interp_arena_fail(x, e);
			break;
		}
		recv[r] = bufs[r]->data;
	}
	if (rc == SC_OK)
		rc = sc_backend_all_to_allv(x->be, x->world, send, recv, sb, rb, e);
	if (rc == SC_E_UNAVAIL)
		rc = sc_interp_fail(e, st, "%s", e->msg);
out:
	free(sb);
	free(rb);
	return rc;
}

/* A fresh local tensor over buf: shape with dim d set to len, at offset. */
static struct sc_tensor view_of(struct sc_buf *buf, const int64_t *r, int d, int64_t len, int64_t offset)
{
	struct sc_tensor t;
	memset(&t, 0, sizeof t);
	t.buf = buf;
	t.offset = offset;
	t.ndim = (int)r[ROW_NDIM];
	memcpy(t.shape, r + ROW_SHAPE, sizeof(int64_t) * SC_MAX_DIMS);
	if (t.ndim)
		t.shape[d] = len;
	sc_contig_strides(t.shape, t.ndim, t.stride);
	return t;
}

/* ---- parsing ---- */

/* KEY=EXPR with names bound (src, dst): *out the node, 1 when present. */
static enum sc_status parse_kv_expr(struct sc_parse *p, const char *key, uint32_t vars, int *out, int *seen)
{
	struct sc_tok *t = sc_lex_peek(p);
	*seen = 0;
	if (t->kind != SC_T_NAME || strcmp(t->text, key) != 0 || !sc_lex_is_op(&p->t[p->pos + 1], "="))
		return SC_OK;
	p->pos += 2;
	static const char *const names[SC_VAR_COUNT] = {"src", "dst", "k", "r"};
	for (int v = 0; v < SC_VAR_COUNT; v++)
		p->bound[v] = (vars >> v) & 1u ? names[v] : NULL;
	p->arg_mode = 1;
	p->depth = 0;
	enum sc_status rc = sc_expr_parse(p, out);
	p->arg_mode = 0;
	memset(p->bound, 0, sizeof p->bound);
	SC_CHECK(rc);
	*seen = 1;
	return SC_OK;
}

#define SRC (1u << SC_VAR_SRC)
#define DST (1u << SC_VAR_DST)

enum sc_status sc_steps_parse_a2a(struct sc_parse *p, struct sc_step *st)
{
	int seen;
	st->args[0] = st->args[1] = -1;
	SC_CHECK(parse_kv_expr(p, "splits", SRC | DST, &st->args[0], &seen));
	if (seen) {
		st->args[1] = st->args[0];
	} else {
		SC_CHECK(parse_kv_expr(p, "in", SRC | DST, &st->args[0], &seen));
		SC_CHECK(parse_kv_expr(p, "out", SRC | DST, &st->args[1], &seen));
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

static enum sc_status parse_shift(struct sc_parse *p, struct sc_step *st)
{
	if (sc_lex_peek(p)->kind == SC_T_END)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected K (where each rank sends: rank + K)");
	p->arg_mode = 1;
	p->depth = 0;
	enum sc_status rc = sc_expr_parse(p, &st->args[0]);
	p->arg_mode = 0;
	SC_CHECK(rc);
	st->nargs = 1;
	return sc_lex_end(p);
}

static enum sc_status parse_broadcast(struct sc_parse *p, struct sc_step *st)
{
	int seen;
	SC_CHECK(parse_kv_expr(p, "src", 0, &st->args[0], &seen));
	if (!seen)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected 'src=' (the group rank that sends)");
	st->nargs = 1;
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
	struct sc_expr_env env = sc_interp_env(x, r, sizes);
	env.bound = SRC | DST;
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
			m[ROW_SEND + side * P + j] = v;
		}
	}
	int64_t sum = 0;
	for (int j = 0; j < P; j++)
		sum += m[ROW_SEND + j];
	if (sum != L)
		return sc_interp_fail(e, st, "on rank %d: Split sizes doesn't match total dim 0 size (the input split sizes sum to %lld, dim 0 is %lld)",
				      me, (long long)sum, (long long)L);
	return SC_OK;
}

/* Fills every local rank's row with fill; a failure marks the row. */
static enum sc_status fill_rows(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, struct rows *w,
				enum sc_status (*fill)(struct sc_exec *, const struct sc_spec *, const struct sc_step *,
						       const int64_t *, int, int64_t *, struct sc_err *),
				struct sc_err *e)
{
	enum sc_status first = SC_OK;
	for (int r = 0; r < x->nlocal; r++) {
		int64_t *m = w->mine + (size_t)r * w->len;
		struct sc_err ee;
		sc_err_clear(&ee);
		enum sc_status rc = fill(x, s, st, sizes, r, m, &ee);
		if (rc != SC_OK) {
			m[ROW_BAD] = 1;
			if (first == SC_OK) {
				first = rc;
				*e = ee;
			}
		}
	}
	return first;
}

static enum sc_status exec_a2a_sized_rows(struct sc_exec *x, const struct sc_step *st, struct rows *w,
					  struct sc_err *e)
{
	const int P = w->P;
	int64_t rnum[SC_MAX_WORLD];
	for (int r = 0; r < P; r++)
		rnum[r] = row_numel(row(w, r));
	/* every sender's count is its receiver's, and rows are alike */
	for (int src = 0; src < P; src++)
		for (int dst = 0; dst < P; dst++) {
			const int64_t a = sends(w, src)[dst], b = recvs(w, dst)[src];
			if (a != b)
				return sc_interp_fail(e, st, "rank %d sends %lld row%s to rank %d, which expects %lld (NCCL would hang or corrupt)",
						      src, (long long)a, a == 1 ? "" : "s", dst, (long long)b);
			if (a && (row(w, src)[ROW_NDIM] != row(w, dst)[ROW_NDIM] || rnum[src] != rnum[dst]))
				return sc_interp_fail(e, st, "rank %d's rows hold %lld elements, rank %d's %lld: the other dims must agree",
						      src, (long long)rnum[src], dst, (long long)rnum[dst]);
			if (a && row(w, src)[ROW_NDIM] == 0)
				return sc_interp_fail(e, st, "dimension specified as 0 but tensor has no dimensions");
		}
	struct sc_buf *bufs[SC_MAX_WORLD];
	SC_CHECK(exchange(x, st, w, rnum, 1, bufs, e));
	for (int r = 0; r < x->nlocal; r++) {
		const int me = x->first + r;
		int64_t total = 0;
		for (int j = 0; j < P; j++)
			total += recvs(w, me)[j];
		x->t[r] = view_of(bufs[r], row(w, me), 0, total, 0);
	}
	return SC_OK;
}

enum sc_status sc_steps_a2a_sized(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				  const int64_t *sizes, struct sc_err *e)
{
	struct rows w;
	for (int r = 0; r < x->nlocal; r++)
		if (!st->raw && !sc_tensor_is_contig(&x->t[r]))
			return sc_interp_fail(e, st, "Tensors must be contiguous (torch.distributed rejects a non-contiguous input; transcribe a missing .contiguous() with the 'raw' suffix)");
	SC_CHECK(rows_init(x, &w, e));
	struct sc_err mine;
	sc_err_clear(&mine);
	enum sc_status ms = fill_rows(x, s, st, sizes, &w, a2a_row, &mine);
	enum sc_status rc = rows_share(x, st, &w, ms, &mine, e);
	if (rc == SC_OK)
		rc = exec_a2a_sized_rows(x, st, &w, e);
	rows_free(&w);
	return rc;
}

/* ---- shift K: the ring exchange ---- */

static enum sc_status shift_row(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, int r, int64_t *m, struct sc_err *e)
{
	const struct sc_expr_env env = sc_interp_env(x, r, sizes);
	int64_t k;
	SC_CHECK(sc_interp_eval(s, st, &env, st->args[0], &k, e));
	const int64_t P = x->world;
	m[ROW_SCALAR] = (((x->first + r + k) % P) + P) % P;
	return SC_OK;
}

static enum sc_status exec_shift(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				 const int64_t *sizes, struct sc_err *e)
{
	struct rows w;
	SC_CHECK(rows_init(x, &w, e));
	struct sc_err mine;
	sc_err_clear(&mine);
	enum sc_status ms = fill_rows(x, s, st, sizes, &w, shift_row, &mine);
	enum sc_status rc = rows_share(x, st, &w, ms, &mine, e);
	const int P = w.P;
	int from[SC_MAX_WORLD];
	for (int r = 0; r < P; r++)
		from[r] = -1;
	for (int src = 0; rc == SC_OK && src < P; src++) {
		const int dst = (int)row(&w, src)[ROW_SCALAR];
		if (from[dst] >= 0)
			rc = sc_interp_fail(e, st, "ranks %d and %d both send to rank %d: the sends must form a permutation of the group",
					    from[dst], src, dst);
		from[dst] = src;
	}
	if (rc != SC_OK) {
		rows_free(&w);
		return rc;
	}
	/* whole tensors: one "row" of numel elements each */
	int64_t rnum[SC_MAX_WORLD];
	for (int r = 0; r < P; r++) {
		const int64_t *q = row(&w, r);
		rnum[r] = 1;
		for (int d = 0; d < q[ROW_NDIM]; d++)
			rnum[r] *= q[ROW_SHAPE + d];
		sends(&w, r)[(int)q[ROW_SCALAR]] = 1;
	}
	for (int dst = 0; dst < P; dst++)
		recvs(&w, dst)[from[dst]] = 1;
	struct sc_buf *bufs[SC_MAX_WORLD];
	rc = exchange(x, st, &w, rnum, 1, bufs, e);
	for (int r = 0; rc == SC_OK && r < x->nlocal; r++) {
		const int64_t *q = row(&w, from[x->first + r]);
		x->t[r] = view_of(bufs[r], q, 0, q[ROW_NDIM] ? q[ROW_SHAPE] : 0, 0);
	}
	rows_free(&w);
	return rc;
}

/* ---- broadcast src=E ---- */

static enum sc_status bcast_row(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, int r, int64_t *m, struct sc_err *e)
{
	const struct sc_expr_env env = sc_interp_env(x, r, sizes);
	int64_t src;
	SC_CHECK(sc_interp_eval(s, st, &env, st->args[0], &src, e));
	if (src < 0 || src >= x->world)
		return sc_interp_fail(e, st, "on rank %d: src=%lld is not a rank of the group (0..%d)", x->first + r,
				      (long long)src, x->world - 1);
	m[ROW_SCALAR] = src;
	return SC_OK;
}

static enum sc_status exec_broadcast(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				     const int64_t *sizes, struct sc_err *e)
{
	struct rows w;
	SC_CHECK(rows_init(x, &w, e));
	struct sc_err mine;
	sc_err_clear(&mine);
	enum sc_status ms = fill_rows(x, s, st, sizes, &w, bcast_row, &mine);
	enum sc_status rc = rows_share(x, st, &w, ms, &mine, e);
	const int P = w.P;
	const int src = rc == SC_OK ? (int)row(&w, 0)[ROW_SCALAR] : 0;
	for (int r = 1; rc == SC_OK && r < P; r++)
		if (row(&w, r)[ROW_SCALAR] != src)
			rc = sc_interp_fail(e, st, "rank 0 takes src=%d and rank %d src=%lld: every rank of the group must name the same src",
					    src, r, (long long)row(&w, r)[ROW_SCALAR]);
	for (int r = 0; rc == SC_OK && r < P; r++) {
		const int64_t *a = row(&w, r), *b = row(&w, src);
		if (a[ROW_NDIM] != b[ROW_NDIM] || memcmp(a + ROW_SHAPE, b + ROW_SHAPE, sizeof(int64_t) * (size_t)a[ROW_NDIM]))
			rc = sc_interp_fail(e, st, "rank %d's tensor differs in shape from src rank %d's: broadcast needs the same shape on every rank",
					    r, src);
	}
	if (rc == SC_OK) {
		int64_t rnum[SC_MAX_WORLD];
		const int64_t *q = row(&w, src);
		for (int r = 0; r < P; r++) {
			rnum[r] = 1;
			for (int d = 0; d < q[ROW_NDIM]; d++)
				rnum[r] *= q[ROW_SHAPE + d];
			sends(&w, src)[r] = 1;
			recvs(&w, r)[src] = 1;
		}
		struct sc_buf *bufs[SC_MAX_WORLD];
		/* src's tensor, once to every rank; the others send nothing */
		rc = exchange(x, st, &w, rnum, P, bufs, e);
		for (int r = 0; rc == SC_OK && r < x->nlocal; r++)
			x->t[r] = view_of(bufs[r], q, 0, q[ROW_NDIM] ? q[ROW_SHAPE] : 0, 0);
	}
	rows_free(&w);
	return rc;
}

/* ---- all_gather dim=i [sizes=E]: tensors that differ along dim i ---- */

enum sc_status sc_steps_parse_ag(struct sc_parse *p, struct sc_step *st)
{
	SC_CHECK(sc_lex_kv_int(p, "dim", &st->args[0]));
	int seen;
	st->args[1] = -1;
	SC_CHECK(parse_kv_expr(p, "sizes", SRC, &st->args[1], &seen));
	st->nargs = 2;
	if (seen)
		st->flags |= SC_STEP_VARIES | SC_STEP_OWN_SHAPES;
	return sc_lex_end(p);
}

/* What local rank r expects along dim i from each src (sizes=E; -1: any). */
static enum sc_status ag_row(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			     const int64_t *sizes, int r, int64_t *m, struct sc_err *e)
{
	const int P = x->world;
	struct sc_expr_env env = sc_interp_env(x, r, sizes);
	env.bound = SRC;
	for (int j = 0; j < P; j++) {
		int64_t v = -1;
		env.var[SC_VAR_SRC] = j;
		if (st->args[1] >= 0)
			SC_CHECK(sc_interp_eval(s, st, &env, st->args[1], &v, e));
		m[ROW_SEND + P + j] = v;
	}
	return SC_OK;
}

/* Every rank's shape agrees but along dim i, and with what receivers expect. */
static enum sc_status ag_check(const struct sc_step *st, const struct rows *w, int i, struct sc_err *e)
{
	const int64_t *a = row(w, 0);
	for (int r = 0; r < w->P; r++) {
		const int64_t *b = row(w, r);
		if (b[ROW_NDIM] != a[ROW_NDIM])
			return sc_interp_fail(e, st, "rank %d's tensor has %lld dims, rank 0's %lld", r,
					      (long long)b[ROW_NDIM], (long long)a[ROW_NDIM]);
		for (int d = 0; d < a[ROW_NDIM]; d++)
			if (d != i && b[ROW_SHAPE + d] != a[ROW_SHAPE + d])
				return sc_interp_fail(e, st, "rank %d's tensor has %lld along dim %d, rank 0's %lld: only dim %d may differ",
						      r, (long long)b[ROW_SHAPE + d], d, (long long)a[ROW_SHAPE + d], i);
		for (int src = 0; src < w->P; src++) {
			const int64_t want = recvs(w, r)[src], got = row(w, src)[ROW_SHAPE + i];
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
	const int nd = x->t[0].ndim;
	int i;
	if (nd == 0)
		return sc_interp_fail(e, st, "zero-dimensional tensor cannot be split or concatenated");
	SC_CHECK(sc_interp_wrap_dim(st, st->args[0], nd, &i, e));
	struct rows w;
	SC_CHECK(rows_init(x, &w, e));
	struct sc_err mine;
	sc_err_clear(&mine);
	enum sc_status ms = fill_rows(x, s, st, sizes, &w, ag_row, &mine);
	enum sc_status rc = rows_share(x, st, &w, ms, &mine, e);
	if (rc == SC_OK)
		rc = ag_check(st, &w, i, e);
	const int P = w.P;
	int64_t rnum[SC_MAX_WORLD], total = 0;
	for (int r = 0; rc == SC_OK && r < P; r++) { /* whole tensors, one to every rank */
		const int64_t *q = row(&w, r);
		rnum[r] = 1;
		for (int d = 0; d < q[ROW_NDIM]; d++)
			rnum[r] *= q[ROW_SHAPE + d];
		total += q[ROW_SHAPE + i];
		for (int j = 0; j < P; j++)
			sends(&w, r)[j] = recvs(&w, r)[j] = 1;
	}
	struct sc_buf *bufs[SC_MAX_WORLD];
	if (rc == SC_OK)
		rc = exchange(x, st, &w, rnum, P, bufs, e);
	for (int r = 0; rc == SC_OK && r < x->nlocal; r++) {
		struct sc_tensor out;
		int64_t shape[SC_MAX_DIMS];
		memcpy(shape, row(&w, 0) + ROW_SHAPE, sizeof shape);
		shape[i] = total;
		if ((rc = sc_tensor_empty(sc_interp_on(x, r), shape, nd, sc_interp_esize(x), &out, e)) != SC_OK)
			break;
		int64_t at = 0, off = 0;
		for (int src = 0; src < P; src++) {
			const int64_t *q = row(&w, src);
			struct sc_tensor seg = view_of(bufs[r], q, i, q[ROW_SHAPE + i], off), dst = out;
			sc_interp_narrow(&dst, i, at, q[ROW_SHAPE + i]);
			sc_tensor_copy(&dst, &seg);
			at += q[ROW_SHAPE + i];
			off += rnum[src];
		}
		x->t[r] = out;
	}
	rows_free(&w);
	return rc;
}

#define SIZED (SC_STEP_COLLECTIVE | SC_STEP_VARIES | SC_STEP_OWN_SHAPES)

const struct sc_step_def sc_steps_sized[] = {
	{"shift", SIZED, parse_shift, exec_shift},
	{"broadcast", SC_STEP_COLLECTIVE | SC_STEP_OWN_SHAPES, parse_broadcast, exec_broadcast},
	{NULL, 0, NULL, NULL},
};
