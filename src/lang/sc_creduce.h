/* sc_creduce: compute kernels that reduce along a dim, with PyTorch's
 * semantics and a bound per element (docs/cli.md, "Tolerances"). Sums
 * accumulate in the accumulation type (f32; f64 for f64).
 *
 *   matmul, linear  a sum of K products: gamma_K * sum |a||b| + the
 *                   propagated input bounds + rounding
 *   sum             gamma_(K-1) * sum |a| + sum e_a + rounding
 *   mean            sum's bound / K + the division's rounding + rounding
 *   max             the largest e_a of the slice (exact otherwise)
 *   softmax         y * (exp(2 E) - 1) for the inputs' largest bound E of
 *                   the slice (each ratio moves by at most exp(+-2E)),
 *                   plus y * ((|x - m| + max |x_j - m|) u + 10 u +
 *                   gamma_(K-1)) for the evaluation in the accumulation
 *                   type, plus rounding
 *   layernorm, rmsnorm
 *                   compositions of the above in the accumulation type
 *                   (mean, sub, mul, mean, add eps, rsqrt, mul; weight
 *                   and bias), rounded to the result dtype once (layernorm,
 *                   as ATen's fused kernel) or before the weight (rmsnorm,
 *                   as ATen's rms_norm and Megatron's, Llama's RMSNorm),
 *                   so their bounds compose. */
#ifndef SC_CREDUCE_H
#define SC_CREDUCE_H

#include "sc_ckernel.h"

enum sc_status sc_creduce_matmul(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
enum sc_status sc_creduce_linear(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
/* sum, mean, max along st->dim (keepdim as st->keepdim) */
enum sc_status sc_creduce_dim(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
enum sc_status sc_creduce_softmax(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
/* over the last dim; a->t[1] the weight, a->t[2] the bias (NULL: none) */
enum sc_status sc_creduce_layernorm(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);
enum sc_status sc_creduce_rmsnorm(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out);

#endif
