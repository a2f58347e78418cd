/* sc_verify: what the properties compare: inputs filled from (seed, global
 * index), outputs checked against the output placement of X, and the
 * records of wrong elements with their provenance.
 *
 * Invariant: a rank's local tensor and its index map (sc_layout_map)
 * enumerate elements in the same row-major order, so filling and checking
 * are one simultaneous walk over both, on the host or on the device. */
#ifndef SC_VERIFY_H
#define SC_VERIFY_H

#include <stdint.h>

#include "sc_target.h"

#define SC_MAX_FIRST 8

struct sc_wrong {
	int rank;
	int ndim;
	int64_t index[SC_MAX_DIMS];
	uint64_t expected_from, actual_from; /* global indices (SC_PROV_*) */
	uint64_t expected_bits, actual_bits;
	int have_prov;
	int bits_unknown; /* actual_bits not observed (reductions) */
};

struct sc_failure {
	char msg[SC_ERR_MAX];
	int runtime_error;
	int64_t wrong;
	int nfirst;
	struct sc_wrong first[SC_MAX_FIRST];
	/* compute specs: the element with the largest error/bound */
	int has_worst;
	int worst_rank, worst_ndim;
	int64_t worst_index[SC_MAX_DIMS];
	double worst_value, worst_reference, worst_error, worst_bound, worst_ratio;
	int64_t compared; /* elements compared against their bound */
	int shape_rank;   /* 1 + the first rank whose output has the wrong shape; 0: none */
};

/* Fills every local rank's input (x->prov: global indices; else the value
 * encoding, or small integers for reductions) into x->t, copies them to
 * inputs[] (may be NULL), then runs the target. x must have arena, be and
 * prov set; world, dtype and the local ranks are set here. On
 * SC_E_RUNTIME the case failed. */
enum sc_status sc_verify_run(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			     struct sc_tensor *inputs, struct sc_err *e);
/* The same without the run: the inputs filled. */
enum sc_status sc_verify_fill(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			      struct sc_tensor *inputs, struct sc_err *e);
/* The same, given like: the inputs of a variant of c of another dtype of
 * the same width (like[r] rank r's, as filled and not yet run on), whose
 * bits the fill copies where they are those c's would get. */
enum sc_status sc_verify_fill_like(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
				   const struct sc_tensor *like, struct sc_tensor *inputs, struct sc_err *e);

/* Where rank's output shape went wrong in case c of t (a spec's steps, on
 * backend be, which holds every rank in this process): "the shape became
 * [2, 1] at x.sc:4 (transpose), from [1, 2]", or "no step changed its
 * shape: it is the input's". 0 when it cannot be told (a plugin, a
 * compute spec, a run that fails). */
int sc_verify_shape_trail(struct sc_target *t, const struct sc_case *c, struct sc_backend *be, int rank, char *out,
			  size_t n);

/* Compares the outputs in x (after sc_verify_run) with the output placement
 * of X: *wrong elements, the first ones recorded in f (a shape mismatch is
 * one message). */
enum sc_status sc_verify_output(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
				struct sc_failure *f, int64_t *wrong, struct sc_err *e);

/* How many elements of rank r's input in (a tensor sc_verify_run filled
 * for this case) no longer hold what the fill put there; *first: the first
 * such element's row-major number (when any). 0 on a device read failure
 * is not possible: that counts every element. */
int64_t sc_verify_input_changed(struct sc_target *t, const struct sc_case *c, struct sc_exec *x, int r,
				const struct sc_tensor *in, int64_t *first);

/* Bits X[g] must have in a data run of this target and case. */
uint64_t sc_verify_expected_bits(struct sc_target *t, const struct sc_case *c, uint64_t g);

/* Writes "X[1, 0, 2]" for a global index (or "nothing (never written)",
 * "a reduction of different elements"). */
void sc_verify_format_from(const struct sc_case *c, uint64_t g, char *buf, size_t n);

#endif
