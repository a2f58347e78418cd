/* sc_ckernel: what every compute kernel shares (sc_celem, sc_creduce,
 * sc_clookup): the (value, bound) pair an element of a compute run is, the
 * context of one op (reference or program, result and accumulation
 * dtypes), its arguments, and the helpers kernels use.
 *
 * An op of the program evaluates in double and rounds where the device
 * would: reductions and transcendental functions in the accumulation type
 * (f32, f64 for f64: PyTorch's opmath), the result to the result dtype. The
 * reference (ref = 1) is exact f64 arithmetic with its own tiny bound. */
#ifndef SC_CKERNEL_H
#define SC_CKERNEL_H

#include "sc_ast.h"
#include "sc_fp.h"
#include "sc_tensor.h"

struct sc_pair {
	double v, e; /* the value and a bound on its distance to the exact value */
};

struct sc_cx {
	int ref;           /* the reference: exact f64 arithmetic */
	enum sc_dtype d;   /* result dtype */
	enum sc_dtype acc; /* accumulation (opmath) dtype */
	struct sc_arena *arena;
	struct sc_err *e;
	int line;
};

/* An op's arguments on one rank. */
struct sc_cargs {
	const struct sc_stmt *st;
	const struct sc_tensor *t[3]; /* tensor operands in order; NULL when absent */
	double scalar;                /* a constant operand or argument (add t 1e-6, scale t 0.5, pow t 2; st->scalar
				       * >= 0): its value as written (exact, before any rounding) */
	double eps;                   /* layernorm, rmsnorm */
	int64_t start;                /* embedding, pick: the first row this rank holds (st->start >= 0), else 0 */
	int64_t diag;                 /* tril, triu: the diagonal (st->diag >= 0), else 0 */
	double fill;                  /* tril, triu: the value of the elements cut (st->fill >= 0), else 0 */
};

typedef enum sc_status (*sc_ckernel_fn)(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);

static inline double sc_cx_round(const struct sc_cx *k, double x) { return k->ref ? x : sc_fp_round(k->d, x); }
static inline double sc_cx_rbound(const struct sc_cx *k, double v) { return sc_fp_rbound(k->ref ? SC_F64 : k->d, v); }
static inline double sc_cx_acc(const struct sc_cx *k, double x) { return k->ref ? x : sc_fp_round(k->acc, x); }
static inline double sc_cx_uacc(const struct sc_cx *k) { return sc_fp_unit(k->ref ? SC_F64 : k->acc); }
/* The evaluation error of a libm function in the accumulation type,
 * relative to its result: four units in the last place. */
static inline double sc_cx_ev(const struct sc_cx *k) { return 4 * sc_cx_uacc(k); }
/* a * b for bound terms: 0 when either is 0 (an exact zero times an
 * unbounded error contributes nothing, where IEEE would say NaN) */
static inline double sc_cx_mulb(double a, double b) { return a == 0 || b == 0 ? 0 : a * b; }
static inline struct sc_pair *sc_cx_pairs(const struct sc_tensor *t)
{
	return (struct sc_pair *)(void *)t->buf->data + t->offset;
}

/* SC_E_RUNTIME "line N: message" (PyTorch's wording where it has one). */
enum sc_status sc_cx_err(const struct sc_cx *k, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* A contiguous copy of t (t itself when contiguous). */
enum sc_status sc_cx_contig(const struct sc_cx *k, const struct sc_tensor *t, struct sc_tensor *out);
/* A new pair tensor of the shape. */
enum sc_status sc_cx_empty(const struct sc_cx *k, const int64_t *shape, int ndim, struct sc_tensor *out);
/* A 0-d tensor holding one pair (a constant operand). */
enum sc_status sc_cx_scalar(const struct sc_cx *k, struct sc_pair p, struct sc_tensor *out);
/* dim (negative from the end) of an ndim-d tensor, as PyTorch checks it
 * (a 0-d tensor takes 0 and -1). */
enum sc_status sc_cx_dim(const struct sc_cx *k, int ndim, int dim, int *out);
/* The constant of a, as the op holds it: rounded to the accumulation type
 * in the program (ATen's opmath; the reference keeps the double), with a
 * bound that covers that rounding or one to the result dtype (what some
 * CPU kernels do) and the double evaluation of the written expression
 * (four units of f64). */
struct sc_pair sc_cx_constant(const struct sc_cx *k, double c);

#endif
