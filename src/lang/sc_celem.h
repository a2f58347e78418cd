/* sc_celem: elementwise compute kernels, with PyTorch's semantics and a
 * bound per element (docs/cli.md, "Tolerances").
 *
 *   add, sub   e = e_a + e_b + rounding
 *   mul        e = |a| e_b + |b| e_a + e_a e_b + rounding
 *   div        e = (|a| e_b + |b| e_a) / (|b| (|b| - e_b)) + rounding,
 *              infinite where |b| <= e_b (the divisor may be zero)
 *   sqrt, rsqrt, exp, log, pow K
 *              e = e_a * max |f'| over [a - e_a, a + e_a] (by the mean
 *              value theorem; |f'| is monotone on each side of its
 *              minimum, so the maximum is at an end) + four units of the
 *              accumulation type of |f| (the libm) + rounding; sqrt and
 *              pow with 0 < K < 1 also at most e_a^K (Hoelder); infinite
 *              where the interval leaves the domain (log, rsqrt at 0)
 *   gelu, silu Lipschitz 1.13, 1.1 times e_a, plus the libm and rounding
 *   relu       exact
 *   cast       e_a + rounding
 * A constant operand (`add t 1e-6`, `scale t 1/sqrt(d)`) is rounded to the
 * accumulation type first, and that rounding is part of its bound. */
#ifndef SC_CELEM_H
#define SC_CELEM_H

#include "sc_ckernel.h"

/* a op b, op one of add sub mul div, with PyTorch broadcasting (the
 * composite kernels' building block). */
enum sc_status sc_celem_op2(const struct sc_cx *k, enum sc_cop op, const struct sc_tensor *a,
			    const struct sc_tensor *b, struct sc_tensor *out);
/* op a, op one of gelu (form: 0 tanh, 1 erf) relu silu sqrt rsqrt exp log
 * pow (exponent K). */
enum sc_status sc_celem_op1(const struct sc_cx *k, enum sc_cop op, int form, double K, const struct sc_tensor *a,
			    struct sc_tensor *out);
/* add sub mul div (a tensor and a tensor or a constant, broadcasting) */
enum sc_status sc_celem_binary(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
/* scale, a multiplication by the constant */
enum sc_status sc_celem_scale(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
/* gelu relu silu sqrt rsqrt exp log pow */
enum sc_status sc_celem_unary(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
enum sc_status sc_celem_cast(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
/* torch.cat of the two or three operands along dim (their dtypes
 * promoted: exact, the values and bounds carried) */
enum sc_status sc_celem_cat(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
/* torch.tril (triu) over the last two dims: element [.., i, j] kept where
 * j - i <= diagonal (>= for triu), else the fill (0 by default; with
 * fill=C, `a.masked_fill(~mask, C)`, C rounded to the dtype): a causal
 * attention mask. */
enum sc_status sc_celem_tri(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);

#endif
