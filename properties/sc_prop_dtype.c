/* dtype: the same pipeline moves the same elements for every dtype.
 *
 * A provenance run says which element of X lands in each output position;
 * then, for every selected dtype, the data run must hold exactly that
 * element's bits there, NaN payloads, -0.0 and subnormals included. Only
 * for data movement: pipelines with reductions compute values.
 *
 * Where nothing sees the element type (shardcheck's own steps on a backend
 * whose collectives move bytes), dtypes of one width move the same bytes
 * to the same places whatever their values: one dtype per width (the
 * first selected, in dtype order) decides for the others. A plugin's
 * kernel, or a backend with typed collectives (NCCL), gets every dtype. */
#include "sc_hd.h"
#include "sc_property.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int applies(const struct sc_target *t)
{
	return sc_target_moves_data_only(t);
}

static int one_per_width(const struct sc_ctx *ctx, const struct sc_target *t)
{
	return !(ctx->be->ops->flags & SC_BACKEND_TYPED_MOVES) && !(t->ops->flags & SC_TARGET_TYPED);
}

/* Element `flat` of rank's output held bits no element of X had there. */
static void wrong_bits(struct sc_failure *f, const struct sc_case *cd, int rank, const struct sc_tensor *tt,
		       int64_t flat, uint64_t g, uint64_t want, uint64_t got)
{
	if (!f->wrong)
		snprintf(f->msg, sizeof f->msg,
			 "with dtype %s, rank %d element %lld holds bits that no element of X had there in the provenance run",
			 sc_dtype_name(cd->dtype), rank, (long long)flat);
	if (f->nfirst < SC_MAX_FIRST) {
		struct sc_wrong *w = &f->first[f->nfirst++];
		memset(w, 0, sizeof *w);
		w->rank = rank;
		w->ndim = tt->ndim;
		sc_shape_unravel(tt->shape, tt->ndim, flat, w->index);
		w->expected_from = g;
		w->actual_from = g;
		w->expected_bits = want;
		w->actual_bits = got;
	}
	f->wrong++;
}

/* Every rank's output shape and bytes, one after another, into b (grown
 * as needed); 0 when an output is on a device or strided (or memory ran
 * out): then nothing is compared this way. */
static int outputs_bytes(const struct sc_exec *x, struct sc_ctx_bytes *b)
{
	b->len = 0;
	for (int r = 0; r < x->nlocal; r++) {
		const struct sc_tensor *tt = &x->t[r];
		if (tt->buf->dm || !sc_tensor_is_contig(tt))
			return 0;
		const size_t hdr = 8 * (size_t)(tt->ndim + 1), n = (size_t)sc_tensor_numel(tt) * tt->buf->esize;
		if (b->len + hdr + n > b->cap) {
			const size_t cap = 2 * (b->len + hdr + n);
			unsigned char *q = realloc(b->p, cap);
			if (!q)
				return 0;
			b->p = q;
			b->cap = cap;
		}
		const int64_t nd = tt->ndim;
		memcpy(b->p + b->len, &nd, 8);
		memcpy(b->p + b->len + 8, tt->shape, hdr - 8);
		memcpy(b->p + b->len + hdr, tt->buf->data + (size_t)tt->offset * tt->buf->esize, n);
		b->len += hdr + n;
	}
	return 1;
}

static enum sc_verdict check_dtypes(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
				    struct sc_failure *f, struct sc_ctx_bytes *right, struct sc_ctx_bytes *now);

static enum sc_verdict check(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
			     struct sc_failure *f)
{
	/* the context's buffers, kept from case to case; none right yet */
	struct sc_ctx_bytes *right = ctx->kept, *now = &ctx->kept[4];
	_Static_assert(SC_CTX_KEPT >= 5, "four widths and the run compared");
	for (int w = 0; w < 5; w++)
		ctx->kept[w].len = 0;
	return check_dtypes(ctx, t, c, f, right, now);
}

/* Compares the outputs of dtype cd.dtype's run (ctx->x) with the
 * provenance run's snapshot: wrong elements go to f. 0, or -1 when an
 * output could not be read (ctx->err says). */
static int compare(struct sc_ctx *ctx, const struct sc_case cd, const unsigned char *snap, int dedup,
		   struct sc_failure *f, struct sc_ctx_bytes *right, struct sc_ctx_bytes *now)
{
	struct sc_exec *x = &ctx->x;
	const int wi = __builtin_ctz((unsigned)sc_dtype_size(cd.dtype));
	const int whole = !dedup && outputs_bytes(x, now);
	if (whole && right[wi].len && right[wi].len == now->len && memcmp(right[wi].p, now->p, now->len) == 0)
		return 0;
	const int64_t wrong_dtype = f->wrong;
	size_t k = 0, kright = 0, pright = 0;
	int ok_rank = -1; /* the last rank found right: its part of the snapshot, pright bytes at kright */
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor *tt = &x->t[r];
		int64_t nd;
		memcpy(&nd, snap + k, 8);
		const size_t k0 = k, part = 8 * (size_t)(nd + 1) + 8 * (size_t)sc_tensor_numel(tt);
		/* a replicated output: the same elements and bits as a rank found right */
		if (ok_rank >= 0 && pright == part && memcmp(snap + kright, snap + k0, part) == 0 &&
		    sc_tensor_same_bytes(tt, &x->t[ok_rank])) {
			k += part;
			continue;
		}
		const int64_t wrong_before = f->wrong;
		k += 8 * (size_t)(nd + 1);
		struct sc_iter it;
		sc_iter_init_runs(&it, tt->shape, tt->stride, tt->ndim, tt->offset);
		const int64_t n = sc_tensor_numel(tt);
		const unsigned es = tt->buf->esize;
		const unsigned char *base = sc_tensor_host(&ctx->arena, tt);
		if (!base) {
			snprintf(ctx->err.msg, sizeof ctx->err.msg, "could not read rank %d's output from the device", x->first + r);
			return -1;
		}
		struct sc_hd_values vals = sc_hd_values_of(cd.seed);
		const uint64_t *gp = (const uint64_t *)(const void *)(snap + k);
		/* the value's width a constant in each loop */
#define DTYPE_RUN(W)                                                                                         \
for (int64_t j = 0; j < len; j++) {                                                                    \
	const uint64_t g = gp[i + j], want = sc_hd_values_bits(&vals, (W), g);                       \
	const uint64_t got = sc_load_bits(a0 + (size_t)(j * ts) * es, es);                            \
	if (SC_PROV_IS_INDEX(g) && got != want)                                                        \
		wrong_bits(f, &cd, x->first + r, tt, i + j, g, want, got);                             \
}
		for (int64_t i = 0; i < n;) {
			const int64_t len = sc_iter_run(&it), ts = sc_iter_step(&it);
			const unsigned char *a0 = base + (size_t)it.off * es;
			switch (sc_dtype_size(cd.dtype)) {
			case 1: DTYPE_RUN(8) break;
			case 2: DTYPE_RUN(16) break;
			case 4: DTYPE_RUN(32) break;
			default: DTYPE_RUN(64) break;
			}
			i += len;
			sc_iter_skip(&it, len);
		}
#undef DTYPE_RUN
		k += (size_t)n * 8;
		if (f->wrong == wrong_before) {
			ok_rank = r;
			kright = k0;
			pright = part;
		}
	}
	if (whole && f->wrong == wrong_dtype) { /* these bytes are right for the width */
		struct sc_ctx_bytes keep = right[wi];
		right[wi] = *now;
		*now = keep;
	}
	return 0;
}

/* right[w]: the outputs of a dtype of 2^w bytes found right in this case.
 * Dtypes of one width get the same input bits and must put the same
 * elements in the same places, so their right outputs are the same bytes:
 * a later dtype of that width whose outputs are those bytes is right
 * without its elements compared one by one (a kernel that treats dtypes
 * of a width alike costs a copy and a comparison per dtype). */
static enum sc_verdict check_dtypes(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
				    struct sc_failure *f, struct sc_ctx_bytes *right, struct sc_ctx_bytes *now)
{
	if (!applies(t))
		return SC_V_SKIP;
	const int dedup = one_per_width(ctx, t);
	unsigned widths = 0;
	/* variant 0 the provenance run, then one per dtype */
	struct sc_case cds[1 + SC_NDTYPES];
	int prov[1 + SC_NDTYPES] = {1}, nd = 1;
	cds[0] = *c;
	/* the dtypes the run asks for, within those the spec (a plugin's
	 * contract) declares: a transform is not checked on a dtype it says
	 * it never gets */
	uint32_t mask = ctx->dtypes;
	if (t->spec && t->spec->dtype_mask && (mask & t->spec->dtype_mask))
		mask &= t->spec->dtype_mask;
	for (int dt = 0; dt < SC_NDTYPES; dt++) {
		if (!(mask & (1u << dt)))
			continue;
		const unsigned wbit = 1u << sc_dtype_size((enum sc_dtype)dt);
		if (dedup && (widths & wbit))
			continue;
		widths |= wbit;
		cds[nd] = *c;
		prov[nd] = 0;
		cds[nd++].dtype = (enum sc_dtype)dt;
	}
	/* the runs handed to the target together where it takes them so,
	 * each checked in turn as if run alone */
	unsigned char *snap = NULL;
	enum sc_verdict v;
	for (int i = 0, took = 0; i < nd; i += took) {
		sc_ctx_begin(ctx, 0, 0);
		took = sc_batch_run(ctx, t, &cds[i], &prov[i], nd - i);
		for (int b = 0; b < took; b++) {
			const struct sc_case cd = cds[i + b];
			if ((v = sc_batch_take(ctx, b, f)) != SC_V_PASS) {
				const int bad = i + sc_batch_bad(ctx);
				if (bad > 0)
					snprintf(f->msg + strlen(f->msg), sizeof f->msg - strlen(f->msg),
						 " (with dtype %s)", sc_dtype_name(cds[bad].dtype));
				return v;
			}
			if (i + b == 0) { /* the provenance run: where each element must land */
				size_t nbytes;
				if (sc_snapshot_outputs(ctx, &snap, &nbytes, &ctx->err) != SC_OK)
					return SC_V_ERROR;
				continue;
			}
			if (compare(ctx, cd, snap, dedup, f, right, now) < 0)
				return SC_V_ERROR;
			if (sc_any(ctx, c, f->wrong > 0))
				return f->wrong ? SC_V_FAIL : SC_V_PASS;
		}
	}
	return SC_V_PASS;
}

const struct sc_property sc_prop_dtype = {
	.name = "dtype",
	.doc = "the same elements move for every dtype; NaN payloads, -0.0, subnormals survive",
	.applies = applies,
	.check = check,
};
