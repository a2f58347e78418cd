/* sc_property: the properties a case is checked against, as a table.
 *
 * A property returns a verdict, never an error for a counterexample: a
 * failing case is SC_V_FAIL with the details in struct sc_failure.
 * SC_V_SKIP means the property does not apply to this target. */
#ifndef SC_PROPERTY_H
#define SC_PROPERTY_H

#include "sc_backend.h"
#include "sc_gen.h"
#include "sc_target.h"
#include "sc_verify.h"

enum sc_verdict { SC_V_PASS = 0, SC_V_FAIL = 1, SC_V_SKIP = 2, SC_V_ERROR = 3 };

/* Per-run working state: the backend, an arena reset per case, and the
 * interpreter state. Allocate with sc_ctx_new (it is large). */
#define SC_CTX_KEPT 5 /* sc_ctx's kept buffers */

struct sc_ctx {
	struct sc_backend *be;
	struct sc_arena arena;
	struct sc_exec x;
	struct sc_exec rx; /* compute specs' reference: one device */
	uint32_t dtypes; /* dtypes the dtype property compares */
	unsigned char *scratch;
	size_t scratch_cap;
	/* byte buffers a property keeps from case to case, so that a case
	 * does not allocate (and fault in) them again: dtype's outputs, one
	 * per width and the run being compared */
	struct sc_ctx_bytes {
		unsigned char *p;
		size_t cap, len;
	} kept[SC_CTX_KEPT];
	struct sc_err err; /* details of SC_V_ERROR */
	int limited;       /* the last case went over the per-case memory limit */
	struct sc_batch {    /* sc_batch_run's variants */
		int n, single, bad; /* taken; one, run in place; the one that did not run right (n: none) */
		enum sc_status st;  /* its status and error */
		struct sc_err e;
		enum sc_dtype dtype[SC_TARGET_BATCH_MAX];
		int prov[SC_TARGET_BATCH_MAX];
		struct sc_tensor (*t)[SC_MAX_WORLD];  /* their outputs (made on first use) */
		struct sc_tensor (*in)[SC_MAX_WORLD]; /* their inputs, as filled */
		struct sc_tensor *io[SC_TARGET_BATCH_MAX];
		struct sc_target *target; /* running them, until sc_batch_end */
	} batch;
};

struct sc_ctx *sc_ctx_new(struct sc_backend *be, uint32_t dtypes);
void sc_ctx_free(struct sc_ctx *ctx); /* NULL-safe */

struct sc_property {
	const char *name;
	const char *doc;
	/* 1 when the property applies to the target at all */
	int (*applies)(const struct sc_target *t);
	enum sc_verdict (*check)(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
				 struct sc_failure *f);
};

int sc_properties(const struct sc_property *const **list);
const struct sc_property *sc_property_find(const char *name);

/* 1 when flag is set on any process holding ranks of the case: decisions
 * that lead to more collectives must be the same on every rank. */
static inline int sc_any(struct sc_ctx *ctx, const struct sc_case *c, int flag)
{
	return sc_backend_combine(ctx->be, c->world, flag != 0);
}

/* Shared by the property files. */
void sc_ctx_begin(struct sc_ctx *ctx, int prov, int poison);
enum sc_verdict sc_run_or_fail(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
			       struct sc_tensor *inputs, struct sc_failure *f);
/* Runs of variants of one case (the same shapes: another dtype, the same
 * case again, its provenance run), handed to the target together where it
 * takes them so (a plugin's worker: one round trip for all, checked here
 * while it runs the next; see sc_target_batch), else one. After sc_ctx_begin, sc_batch_run fills and
 * runs the first of c[0..n) (prov[k]: variant k is a provenance run; NULL:
 * as ctx->x is) and returns how many it took, at least one; then
 * sc_batch_take(k), for k from 0 in order, makes variant k's outputs the
 * current ones (ctx->x) and gives its verdict as sc_run_or_fail would, and
 * sc_batch_inputs(k) its inputs as filled (NULL when out of memory).
 * Variants after one that did not pass are not asked for. */
int sc_batch_run(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c, const int *prov, int n);
enum sc_verdict sc_batch_take(struct sc_ctx *ctx, int k, struct sc_failure *f);
/* After sc_batch_take gave a failure: the variant it belongs to (at most
 * the one asked for: a later variant may have written around an earlier
 * one's buffers). */
int sc_batch_bad(const struct sc_ctx *ctx);
/* Ends the batch (the target may still run variants not asked for):
 * before the arena is reset (sc_ctx_begin does it) and after a case. c
 * must live until then. */
void sc_batch_end(struct sc_ctx *ctx);
const struct sc_tensor *sc_batch_inputs(const struct sc_ctx *ctx, int k);
/* Fills f->first from a provenance run of the semantics check. */
void sc_explain(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
		struct sc_failure *f);
/* Copies the outputs of ctx->x (shapes and bits) into ctx's scratch:
 * *out, *len bytes (valid until the next snapshot). */
enum sc_status sc_snapshot_outputs(struct sc_ctx *ctx, unsigned char **out, size_t *len, struct sc_err *e);

extern const struct sc_property sc_prop_semantics, sc_prop_roundtrip, sc_prop_compose,
	sc_prop_purity, sc_prop_dtype, sc_prop_determinism, sc_prop_reduce_consistency,
	sc_prop_differential;

#endif
