/* sc_exchange: what every sized exchange shares (sc_steps_sized.c,
 * sc_steps_p2p.c): a small row per rank (its shape, a scalar or two, the
 * rows it sends to and expects from each rank) filled where the sizes are
 * known, shared with every process (an all_gather of the rows) so that all
 * decide alike whether the exchange is consistent, then one variable-size
 * exchange through the backend (all_to_allv). */
#include "sc_exchange.h"

#include <stdlib.h>
#include <string.h>

#include "sc_expr.h"
#include "sc_lex.h"

int64_t *sc_exchange_row(const struct sc_exchange *w, int rank) { return w->all + (size_t)rank * w->len; }
int64_t *sc_exchange_sends(const struct sc_exchange *w, int rank) { return sc_exchange_row(w, rank) + SC_XROW_SEND; }
int64_t *sc_exchange_recvs(const struct sc_exchange *w, int rank) { return sc_exchange_row(w, rank) + SC_XROW_SEND + w->P; }

enum sc_status sc_exchange_init(struct sc_exec *x, struct sc_exchange *w, struct sc_err *e)
{
	w->P = x->world;
	w->len = SC_XROW_SEND + 2 * (size_t)x->world;
	w->all = calloc((size_t)x->world * w->len, sizeof(int64_t));
	w->mine = calloc((size_t)x->nlocal * w->len, sizeof(int64_t));
	if (!w->all || !w->mine) {
		free(w->all);
		free(w->mine);
		w->all = w->mine = NULL; /* callers free w whatever the status */
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	for (int r = 0; r < x->nlocal; r++) {
		int64_t *m = w->mine + (size_t)r * w->len;
		m[SC_XROW_NDIM] = x->t[r].ndim;
		memcpy(m + SC_XROW_SHAPE, x->t[r].shape, sizeof(int64_t) * SC_MAX_DIMS);
	}
	return SC_OK;
}

void sc_exchange_free(struct sc_exchange *w)
{
	free(w->all);
	free(w->mine);
}

/* Every rank's row to every process. A rank whose row is marked bad
 * failed to evaluate its sizes: its own process has the message in *mine_err;
 * the others say which rank failed, so that all stop together. */
enum sc_status sc_exchange_share(struct sc_exec *x, const struct sc_step *st, struct sc_exchange *w,
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
		if (sc_exchange_row(w, r)[SC_XROW_BAD])
			return sc_interp_fail(e, st, "the sizes could not be evaluated on rank %d (its process says why)", r);
	return SC_OK;
}

/* Elements of one dim-0 row of a shape (the product of the other dims). */
int64_t sc_exchange_row_numel(const int64_t *r)
{
	int64_t n = 1;
	for (int d = 1; d < r[SC_XROW_NDIM]; d++)
		n *= r[SC_XROW_SHAPE + d];
	return n;
}

/* Runs the exchange of w (counts in rows of rnum elements), each local
 * rank's input packed as `reps` copies; *bufs receive. */
enum sc_status sc_exchange_run(struct sc_exec *x, const struct sc_step *st, const struct sc_exchange *w,
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
		int64_t total = 0, sends = 0;
		for (int j = 0; j < P; j++) {
			sends += sc_exchange_sends(w, me)[j];
			sb[(size_t)r * P + j] = (size_t)(sc_exchange_sends(w, me)[j] * rnum[me]) * es;
			rb[(size_t)r * P + j] = (size_t)(sc_exchange_recvs(w, me)[j] * rnum[j]) * es;
			total += sc_exchange_recvs(w, me)[j] * rnum[j];
		}
		struct sc_tensor c = x->t[r];
		if ((rc = sc_interp_contiguous(x, &c, e)) != SC_OK)
			break;
		const int64_t n = sc_tensor_numel(&c);
		struct sc_buf *sbuf = c.buf;
		const int pack = reps > 1 && sends > 0; /* a rank that sends nothing packs nothing */
		if (pack) { /* the same tensor to every receiver */
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
		send[r] = sbuf->data + (pack ? 0 : (size_t)c.offset * es);
		if (!(bufs[r] = sc_arena_buf(sc_interp_on(x, r), total, es))) {
			rc = sc_interp_arena_fail(x, e);
			break;
		}
		recv[r] = bufs[r]->data;
	}
	rc = sc_interp_agree(x, st, rc, e); /* an allocation failed on one process: all stop */
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
struct sc_tensor sc_exchange_view(struct sc_buf *buf, const int64_t *r, int d, int64_t len, int64_t offset)
{
	struct sc_tensor t;
	memset(&t, 0, sizeof t);
	t.buf = buf;
	t.offset = offset;
	t.ndim = (int)r[SC_XROW_NDIM];
	memcpy(t.shape, r + SC_XROW_SHAPE, sizeof(int64_t) * SC_MAX_DIMS);
	if (t.ndim)
		t.shape[d] = len;
	sc_contig_strides(t.shape, t.ndim, t.stride);
	return t;
}

/* KEY=EXPR with names bound (src, dst): *out the node, 1 when present. */
enum sc_status sc_exchange_parse_kv(struct sc_parse *p, const char *key, uint32_t vars, int *out, int *seen)
{
	struct sc_tok *t = sc_lex_peek(p);
	*seen = 0;
	if (t->kind != SC_T_NAME || strcmp(t->text, key) != 0 || !sc_lex_is_op(&p->t[p->pos + 1], "="))
		return SC_OK;
	p->pos += 2;
	static const char *const names[SC_VAR_COUNT] = {"src", "dst", "k", "r"};
	const char *keep[SC_VAR_COUNT];
	memcpy(keep, p->bound, sizeof keep);
	for (int v = 0; v < SC_VAR_COUNT; v++) /* (a `for` loop's index stays bound: it is not among these) */
		p->bound[v] = (vars >> v) & 1u ? names[v] : NULL;
	enum sc_status rc = sc_expr_parse_arg(p, out);
	memcpy(p->bound, keep, sizeof keep);
	SC_CHECK(rc);
	*seen = 1;
	return SC_OK;
}

/* Fills every local rank's row with fill; a failure marks the row. */
enum sc_status sc_exchange_fill(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, struct sc_exchange *w, sc_exchange_fill_fn fill, struct sc_err *e)
{
	enum sc_status first = SC_OK;
	for (int r = 0; r < x->nlocal; r++) {
		int64_t *m = w->mine + (size_t)r * w->len;
		struct sc_err ee;
		sc_err_clear(&ee);
		enum sc_status rc = fill(x, s, st, sizes, r, m, &ee);
		if (rc != SC_OK) {
			m[SC_XROW_BAD] = 1;
			if (first == SC_OK) {
				first = rc;
				*e = ee;
			}
		}
	}
	return first;
}


enum sc_status sc_exchange_gather(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				  const int64_t *sizes, struct sc_exchange *w, sc_exchange_fill_fn fill, struct sc_err *e)
{
	memset(w, 0, sizeof *w);
	SC_CHECK(sc_exchange_init(x, w, e));
	struct sc_err mine;
	sc_err_clear(&mine);
	const enum sc_status ms = sc_exchange_fill(x, s, st, sizes, w, fill, &mine);
	return sc_exchange_share(x, st, w, ms, &mine, e);
}

int64_t sc_exchange_numel(const struct sc_exchange *w, int rank)
{
	const int64_t *q = sc_exchange_row(w, rank);
	int64_t n = 1;
	for (int d = 0; d < q[SC_XROW_NDIM]; d++)
		n *= q[SC_XROW_SHAPE + d];
	return n;
}
