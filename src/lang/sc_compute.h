/* sc_compute: compute specs: a float64 reference on the full tensors, and
 * the per-rank program on the shards with a rigorous error bound per
 * element.
 *
 * Every element of a compute run is a pair (v, e): v the value the device
 * would hold (rounded to the tensor's dtype after every op; reductions
 * accumulated in f32, or f64 for f64), e a bound on |v - exact|. Bounds
 * follow the classical analysis: a reduction of k products adds
 * gamma_k * sum|a||b| (gamma_k = k*u/(1 - k*u), u of the accumulation type)
 * plus the propagated input bounds; each rounding to a dtype adds u*|v| plus
 * half its smallest subnormal; activations propagate by their Lipschitz
 * constant (gelu 1.13, silu 1.1, relu 1) plus an evaluation error. The
 * reference is exact arithmetic in f64 with its own (tiny) bound, so a case
 * fails only when |v - ref| > e + e_ref. */
#ifndef SC_COMPUTE_H
#define SC_COMPUTE_H

#include "sc_ckernel.h"
#include "sc_interp.h"
#include "sc_spec.h"

/* What a compute run needs of its case: the world, X's sizes by dim, the
 * dtype, the value seed and the drawn counts (micro-batches). */
struct sc_compute_case {
	int world;
	const int64_t *sizes;
	enum sc_dtype dtype;
	uint64_t seed;
	const struct sc_countv *counts; /* NULL: none */
};

/* Per-rank tensors of a compute run, by tensor id. */
struct sc_cenv {
	int n;
	struct sc_tensor *t[SC_MAX_TENSORS]; /* [nlocal] each, arena-allocated */
	enum sc_dtype dt[SC_MAX_TENSORS];
	int defined[SC_MAX_TENSORS];
	int64_t micro; /* the micro-batch being run, -1 outside a microbatch block */
	int64_t iterations; /* loop iterations run so far */
};

/* Runs the program (reference = 0, on x's ranks) or the reference
 * (reference = 1, one rank holding the full tensors, exact f64). A
 * microbatch block runs once per micro-batch k, its index bound to k, the
 * inputs over the split dim cut to that micro-batch's rows. */
enum sc_status sc_compute_run(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
			      int reference, struct sc_cenv *env, struct sc_err *e);

/* The worst element of a compared output. */
struct sc_compute_worst {
	int rank;
	int ndim;
	int64_t index[SC_MAX_DIMS];
	double value, reference, error, bound, ratio; /* ratio = error / bound */
	int64_t over; /* elements beyond their bound */
	int64_t compared;
};

/* Compares the program's output (in penv, on x's ranks) with the reference
 * (renv) placed as the output declares; fills w (the worst ratio) and
 * *nover, the elements over their bound. A shape mismatch is SC_E_RUNTIME
 * (a failure of the case), a bad declaration SC_E_SPEC. */
enum sc_status sc_compute_compare(const struct sc_spec *s, const struct sc_compute_case *c, const struct sc_exec *x,
				  const struct sc_cenv *penv, const struct sc_cenv *renv,
				  struct sc_compute_worst *w, int64_t *nover, struct sc_err *e);

/* Reduction of pairs across ranks for the interpreter (reduce_scatter when
 * scatter, else all_reduce): gathered, then reduced in rank order with the
 * rounding and bound of the tensor's dtype (x->dtype). */
enum sc_status sc_compute_reduce(struct sc_exec *x, int scatter, void **send, void **recv, size_t count,
				 enum sc_redop op, struct sc_err *e);

#endif
