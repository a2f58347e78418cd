/* sc_property: the property table and helpers shared by the properties. */
#include "sc_property.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct sc_property *const table[] = {
	&sc_prop_semantics, &sc_prop_roundtrip,   &sc_prop_compose,
	&sc_prop_purity,    &sc_prop_dtype,       &sc_prop_determinism,
	&sc_prop_reduce_consistency, &sc_prop_differential,
};

int sc_properties(const struct sc_property *const **list)
{
	*list = table;
	return (int)(sizeof table / sizeof table[0]);
}

const struct sc_property *sc_property_find(const char *name)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(table[i]->name, name) == 0)
			return table[i];
	return NULL;
}

struct sc_ctx *sc_ctx_new(struct sc_backend *be, uint32_t dtypes)
{
	struct sc_ctx *ctx = calloc(1, sizeof *ctx);
	if (!ctx)
		return NULL;
	ctx->be = be;
	ctx->dtypes = dtypes ? dtypes : (1u << SC_NDTYPES) - 1;
	sc_arena_init(&ctx->arena);
	ctx->arena.dm = sc_backend_devmem(be);
	ctx->x.arena = &ctx->arena;
	ctx->x.be = be;
	ctx->rx.arena = &ctx->arena;
	ctx->rx.be = be;
	return ctx;
}

void sc_ctx_free(struct sc_ctx *ctx)
{
	if (!ctx)
		return;
	sc_batch_end(ctx);
	sc_arena_free(&ctx->arena);
	free(ctx->scratch);
	for (int i = 0; i < SC_CTX_KEPT; i++)
		free(ctx->kept[i].p);
	free(ctx->batch.t);
	free(ctx->batch.in);
	free(ctx);
}

void sc_ctx_begin(struct sc_ctx *ctx, int prov, int poison)
{
	sc_batch_end(ctx); /* a target may still write into the buffers the reset hands out again */
	sc_arena_reset(&ctx->arena);
	ctx->arena.poison = poison;
	ctx->arena.use_dm = 0; /* sc_verify_run decides */
	ctx->x.prov = prov;
	ctx->x.compute = 0;
}

enum sc_verdict sc_run_or_fail(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
			       struct sc_tensor *inputs, struct sc_failure *f)
{
	struct sc_err e;
	sc_err_clear(&e);
	enum sc_status st = sc_verify_run(t, c, &ctx->x, inputs, &e);
	if (st == SC_OK)
		return SC_V_PASS;
	if (st == SC_E_RUNTIME) {
		f->runtime_error = 1;
		snprintf(f->msg, sizeof f->msg, "%s", e.msg);
		return SC_V_FAIL;
	}
	ctx->err = e;
	return SC_V_ERROR;
}

#define BATCH_BYTES ((size_t)1 << 20) /* buffer bytes past which no variant is added */

/* Variant k's verdict from how it ran (sc_run_or_fail's mapping). */
static enum sc_verdict ran_as(struct sc_ctx *ctx, enum sc_status st, const struct sc_err *e, struct sc_failure *f)
{
	if (st == SC_OK)
		return SC_V_PASS;
	if (st == SC_E_RUNTIME) {
		f->runtime_error = 1;
		snprintf(f->msg, sizeof f->msg, "%s", e->msg);
		return SC_V_FAIL;
	}
	ctx->err = *e;
	return SC_V_ERROR;
}

int sc_batch_run(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c, const int *prov, int n)
{
	struct sc_batch *b = &ctx->batch;
	struct sc_exec *x = &ctx->x;
	int most = sc_target_batch(t) < n ? sc_target_batch(t) : n;
	if (!b->in && !(b->in = malloc(sizeof *b->in * SC_TARGET_BATCH_MAX)))
		most = 1; /* no room for a batch: one at a time, inputs not kept */
	if (most > 1 && !b->t && !(b->t = malloc(sizeof *b->t * SC_TARGET_BATCH_MAX)))
		most = 1;
	sc_err_clear(&b->e);
	b->single = most <= 1;
	if (b->single) {
		if (prov)
			x->prov = prov[0];
		b->prov[0] = x->prov;
		b->dtype[0] = c->dtype;
		b->st = sc_verify_run(t, c, x, b->in ? b->in[0] : NULL, &b->e);
		b->n = 1;
		b->bad = b->st == SC_OK ? 1 : 0;
		return 1;
	}
	int k = 0;
	for (; k < most; k++) {
		const size_t used = ctx->arena.used_bytes;
		if (k > 0 && (used > BATCH_BYTES ||
			      used + used / (size_t)k > (ctx->arena.max_bytes ? ctx->arena.max_bytes : SC_ARENA_DEFAULT_MAX)))
			break;
		const int pk = prov ? prov[k] : x->prov;
		const struct sc_tensor *like = NULL; /* an earlier variant's inputs of this kind and width: their bits */
		for (int i = 0; i < k && !like; i++)
			if (b->prov[i] == pk && sc_dtype_size(c[i].dtype) == sc_dtype_size(c[k].dtype))
				like = b->in[i];
		x->prov = pk;
		struct sc_err fe;
		const enum sc_status st = sc_verify_fill_like(t, &c[k], x, like, b->in[k], &fe);
		if (st != SC_OK) {
			if (k == 0) { /* the first variant's own failure */
				b->n = 1;
				b->bad = 0;
				b->st = st;
				b->e = fe;
				return 1;
			}
			ctx->arena.over_limit = 0; /* it is filled again, alone, where its failure counts */
			break;
		}
		memcpy(b->t[k], x->t, sizeof x->t[0] * (size_t)x->nlocal);
		b->dtype[k] = c[k].dtype;
		b->prov[k] = pk;
	}
	for (int j = 0; j < k; j++)
		b->io[j] = b->t[j];
	b->n = k;
	b->st = SC_OK;
	b->bad = k; /* none known yet: each is waited for as it is taken */
	b->target = t;
	sc_target_batch_start(t, c, b->prov, x, b->io, k);
	return k;
}

int sc_batch_bad(const struct sc_ctx *ctx) { return ctx->batch.bad; }

void sc_batch_end(struct sc_ctx *ctx)
{
	if (ctx && ctx->batch.target) {
		sc_target_batch_settle(ctx->batch.target);
		ctx->batch.target = NULL;
	}
}

enum sc_verdict sc_batch_take(struct sc_ctx *ctx, int k, struct sc_failure *f)
{
	struct sc_batch *b = &ctx->batch;
	if (k < 0 || k >= b->n || k > b->bad) {
		snprintf(ctx->err.msg, sizeof ctx->err.msg, "variant %d of a batch asked for out of order", k);
		return SC_V_ERROR;
	}
	if (!b->single && k < b->bad) { /* once it ran (the target runs the rest meanwhile) */
		int failed = 0;
		struct sc_err e;
		sc_err_clear(&e);
		const enum sc_status st = sc_target_batch_wait(b->target, k, &failed, &e);
		if (st != SC_OK) {
			b->bad = failed >= 0 && failed <= k ? failed : k;
			b->st = st;
			b->e = e;
		}
		if (k == b->n - 1 || st != SC_OK)
			sc_batch_end(ctx);
	}
	ctx->x.prov = b->prov[k];
	if (k >= b->bad) {
		ctx->x.prov = b->prov[b->bad];
		return ran_as(ctx, b->st, &b->e, f);
	}
	if (!b->single) {
		memcpy(ctx->x.t, b->t[k], sizeof ctx->x.t[0] * (size_t)ctx->x.nlocal);
		ctx->x.dtype = b->dtype[k];
	}
	return SC_V_PASS;
}

const struct sc_tensor *sc_batch_inputs(const struct sc_ctx *ctx, int k)
{
	const struct sc_batch *b = &ctx->batch;
	return b->in && k >= 0 && k < b->n ? b->in[k] : NULL;
}

void sc_explain(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
		struct sc_failure *f)
{
	struct sc_failure pf;
	memset(&pf, 0, sizeof pf);
	sc_ctx_begin(ctx, 1, 0);
	if (sc_run_or_fail(ctx, t, c, NULL, &pf) != SC_V_PASS)
		return;
	struct sc_err e;
	int64_t wrong = 0;
	if (sc_verify_output(t, c, &ctx->x, &pf, &wrong, &e) != SC_OK || wrong <= 0 || pf.nfirst == 0)
		return;
	const int red = sc_target_has_reduction(t, c);
	for (int i = 0; i < pf.nfirst; i++) {
		struct sc_wrong *w = &pf.first[i];
		w->expected_bits = sc_verify_expected_bits(t, c, w->expected_from);
		if (!red && SC_PROV_IS_INDEX(w->actual_from)) {
			w->actual_bits = sc_verify_expected_bits(t, c, w->actual_from);
			continue;
		}
		/* values of a reduction: take them from the data run when it saw
		 * the same position */
		w->bits_unknown = 1;
		for (int k = 0; k < f->nfirst; k++)
			if (f->first[k].rank == w->rank && f->first[k].ndim == w->ndim &&
			    memcmp(f->first[k].index, w->index, sizeof(int64_t) * (size_t)w->ndim) == 0) {
				w->actual_bits = f->first[k].actual_bits;
				w->bits_unknown = 0;
			}
	}
	memcpy(f->first, pf.first, sizeof pf.first);
	f->nfirst = pf.nfirst;
	if (f->wrong < pf.wrong)
		f->wrong = pf.wrong;
}

enum sc_status sc_snapshot_outputs(struct sc_ctx *ctx, unsigned char **out, size_t *len, struct sc_err *e)
{
	struct sc_exec *x = &ctx->x;
	size_t total = 0;
	for (int r = 0; r < x->nlocal; r++)
		total += (size_t)sc_tensor_numel(&x->t[r]) * x->t[r].buf->esize + 8 * SC_MAX_DIMS + 8;
	if (total > ctx->scratch_cap) {
		unsigned char *n = realloc(ctx->scratch, total);
		if (!n)
			return SC_ERR(e, SC_E_NOMEM, "out of memory");
		ctx->scratch = n;
		ctx->scratch_cap = total;
	}
	size_t k = 0;
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor *tt = &x->t[r];
		const unsigned es = tt->buf->esize;
		int64_t hdr[SC_MAX_DIMS + 1] = {tt->ndim};
		memcpy(hdr + 1, tt->shape, sizeof(int64_t) * (size_t)tt->ndim);
		memcpy(ctx->scratch + k, hdr, 8 * (size_t)(tt->ndim + 1));
		k += 8 * (size_t)(tt->ndim + 1);
		struct sc_tensor dst = *tt;
		struct sc_buf b = {ctx->scratch + k, sc_tensor_numel(tt), es, NULL, 0, NULL};
		dst.buf = &b;
		dst.offset = 0;
		sc_contig_strides(tt->shape, tt->ndim, dst.stride);
		SC_CHECK(sc_tensor_copy_to_host(&ctx->arena, &dst, tt, e));
		k += (size_t)b.nelem * es;
	}
	*out = ctx->scratch;
	*len = k;
	return SC_OK;
}
