/* sc_interp: runs a spec's steps on every local rank, as PyTorch would
 * (docs/language.md, "Steps"); each step is its table row's exec.
 *
 * The state is one strided tensor per rank held by this process. View
 * steps only change the view; copies go to fresh arena buffers (poisoned
 * when purity is checked); collectives go through the backend. A step that
 * PyTorch would reject for the current shape returns SC_E_RUNTIME with
 * "line N `step`: message" and leaves the state unspecified. */
#ifndef SC_INTERP_H
#define SC_INTERP_H

#include <stdint.h>

#include "sc_backend.h"
#include "sc_limits.h"
#include "sc_ast.h"
#include "sc_expr.h"
#include "sc_tensor.h"


struct sc_exec {
	struct sc_arena *arena;
	struct sc_backend *be;
	int world;
	int first, nlocal;    /* ranks held here: first .. first+nlocal-1 */
	enum sc_dtype dtype;  /* element type of a data run */
	int prov;             /* provenance run: u64 global indices */
	int compute;          /* compute run: (value, bound) pairs of doubles, rounded to dtype */
	int pads;             /* the spec writes padding: a reduction treats it as absent */
	const struct sc_countv *counts; /* the case's drawn counts (NULL: none) */
	int ref;              /* a reference run: one device, no rank */
	/* named tensors: slots[name * nlocal + r] holds the names not current */
	struct sc_tensor *slots;
	int cur;              /* the name the current tensors (t) have */
	/* a step with group=: world is the group's size and first the index
	 * in it; ranks[i] is the world rank of index i and all the world's
	 * size (what `rank` and P mean in expressions); NULL and 0 otherwise */
	const int *ranks;
	int all;
	/* compute runs: the reduction of pairs across ranks, installed by the
	 * compute module (which sits above the interpreter) */
	enum sc_status (*pair_reduce)(struct sc_exec *x, int scatter, void **send, void **recv,
				      size_t count, enum sc_redop op, struct sc_err *e);
	/* called after each step sc_exec_spec runs (NULL: none): where a
	 * failure's shapes went wrong */
	void (*on_step)(const struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st, void *ctx);
	void *on_step_ctx;
	/* inside `for` loops (sc_exec_steps), outermost first: each one's
	 * index now, its last value and its `for` step */
	int nloops;
	int64_t loop_k[SC_LOOP_NEST], loop_hi[SC_LOOP_NEST];
	const struct sc_step *loop_st[SC_LOOP_NEST];
	struct sc_tensor t[SC_MAX_WORLD];
};

/* Runs every step of s on x->t. */
enum sc_status sc_exec_spec(struct sc_exec *x, const struct sc_spec *s, const int64_t *sizes,
			    struct sc_err *e);
/* Runs steps[0..n) of s (its program's or its reference's) on x->t, `for`
 * loops included: each loop's body once per value of its index, which the
 * body's expressions read. */
enum sc_status sc_exec_steps(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *steps, int n,
			     const int64_t *sizes, struct sc_err *e);
/* Runs one step: its table row's exec. */
enum sc_status sc_exec_step(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			    const int64_t *sizes, struct sc_err *e);

/* Provenance reductions: mx[r][i] = SC_PROV_MIXED where the max and min
 * over ranks differ (on the device when the arena's buffers are there).
 * Where padding may take part (x->pads), the max is taken with padding as
 * 0 (sc_prov_unpad): padding and one element is that element, padding
 * alone stays padding. */
/* The same for local rank r alone (count elements of its buffers). */
enum sc_status sc_prov_merge_rank(struct sc_exec *x, int r, void *mx, void *mn, size_t count, struct sc_err *e);
enum sc_status sc_prov_merge(struct sc_exec *x, void *const *mx, void *const *mn, size_t count, struct sc_err *e);
/* Copies of the send buffers with padding as 0, for the max reduction. */
enum sc_status sc_prov_unpad(struct sc_exec *x, void *const *send, void **out, size_t count, struct sc_err *e);
/* After a merge of unpadded maxima: where the min is padding (every
 * contributor was), the result is padding. */
enum sc_status sc_prov_repad(struct sc_exec *x, void *const *mx, void *const *mn, size_t count, struct sc_err *e);

/* For the step families (sc_steps_*.c): helpers every exec shares. */
/* SC_E_RUNTIME with "line N `step`: message" (a finding, not an error). */
enum sc_status sc_interp_fail(struct sc_err *e, const struct sc_step *st, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* The arena's failure: the per-case limit (a finding) or out of memory. */
enum sc_status sc_interp_arena_fail(const struct sc_exec *x, struct sc_err *e);
/* The arena, with new buffers going to local rank r's device. */
struct sc_arena *sc_interp_on(struct sc_exec *x, int r);
#define SC_LOOP_MAX 4096      /* iterations of one `for` loop (layout or compute) */
#define SC_LOOP_MAX_ALL 65536 /* of all the loops of one run, nested ones counted each time */

/* The world rank of local rank r (in a group: of its index there). */
static inline int sc_interp_rank(const struct sc_exec *x, int r)
{
	return x->ranks ? x->ranks[x->first + r] : x->first + r;
}
/* "rank 3", or in a group "rank 3 (index 1 of its group)": who a message
 * is about, by its world rank. */
const char *sc_interp_rank_text(const struct sc_exec *x, int r, char *buf, size_t n);
/* Bytes of an element of this run (pairs 16, provenance 8, else the dtype's). */
unsigned sc_interp_esize(const struct sc_exec *x);
/* ATen maybe_wrap_dim: d in [-n, n-1] (a 0-dim tensor wraps as 1 dim). */
enum sc_status sc_interp_wrap_dim(const struct sc_step *st, int d, int ndim, int *out, struct sc_err *e);
/* Replaces *t by a row-major copy. */
enum sc_status sc_interp_contiguous(struct sc_exec *x, struct sc_tensor *t, struct sc_err *e);
/* What an expression sees on local rank r: its world index, its tensor. */
struct sc_expr_env sc_interp_env(const struct sc_exec *x, int r, const int64_t *sizes);
/* Evaluates node in env; an error names the step and the rank. */
enum sc_status sc_interp_eval(const struct sc_spec *s, const struct sc_step *st, const struct sc_expr_env *env,
			      int node, int64_t *out, struct sc_err *e);
/* Fills a fresh contiguous tensor with padding: zeros (data, compute runs)
 * or SC_PROV_PAD (provenance runs). */
void sc_interp_fill_pad(struct sc_exec *x, struct sc_tensor *t);
/* Every byte of t (contiguous) set to byte, on the device where it lives. */
void sc_interp_fill_bytes(struct sc_exec *x, struct sc_tensor *t, int byte);
/* On backends of several processes: whether rc failed on any of them
 * (the same answer everywhere). A process whose ranks did not fail gets a
 * failure that says another process failed; rc otherwise. */
enum sc_status sc_interp_agree(struct sc_exec *x, const struct sc_step *st, enum sc_status rc, struct sc_err *e);
/* Local rank r's tensor of a name (the current ones are x->t). */
struct sc_tensor *sc_interp_named(struct sc_exec *x, int name, int r);
/* t.narrow(dim, start, len), a view. */
void sc_interp_narrow(struct sc_tensor *t, int dim, int64_t start, int64_t len);

/* Scratch execution contexts, one of each kind per thread (the step runs
 * inside one may use another kind, never its own). */
enum sc_scratch { SC_SCRATCH_PER_RANK, SC_SCRATCH_GROUPED, SC_SCRATCH_REFERENCE, SC_SCRATCH_COUNT };
enum sc_status sc_interp_scratch(enum sc_scratch k, struct sc_exec **out, struct sc_err *e);

#endif
