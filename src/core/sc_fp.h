/* sc_fp: the floating-point error model of compute runs.
 *
 * Unit roundoff u and half the smallest subnormal (eta) of each float
 * dtype, rounding a double to a dtype (round to nearest even), the bound
 * of one such rounding, u/(1-u)*|v| + eta, and gamma_k = k*u/(1 - k*u) of
 * the classical analysis of a sum of k+1 terms (Higham, "Accuracy and
 * Stability of Numerical Algorithms", 2nd ed., section 3.1). */
#ifndef SC_FP_H
#define SC_FP_H

#include "sc_dtype.h"

/* Covers second-order terms and the double rounding of the minifloats
 * (rounded through f32): both below 1e-4 of a bound's first-order part. */
#define SC_FP_SAFETY 1.0001

/* 2^-8 bf16, 2^-11 f16, 2^-24 f32, 2^-53 f64, 2^-4 f8e4m3, 2^-3 f8e5m2;
 * 0.5 for the integer types (never compute dtypes). */
double sc_fp_unit(enum sc_dtype d);
/* Half the smallest subnormal: the absolute error of rounding near zero. */
double sc_fp_eta(enum sc_dtype d);
/* x rounded to d (x itself for f64 and the integer types). */
double sc_fp_round(enum sc_dtype d, double x);
/* The bound of one rounding to d whose result is v. */
double sc_fp_rbound(enum sc_dtype d, double v);
/* gamma_k for unit roundoff u (infinite when k*u >= 1). */
double sc_fp_gamma(double k, double u);

#endif
