/* sc_ckernel: the helpers compute kernels share. */
#include "sc_ckernel.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

enum sc_status sc_cx_err(const struct sc_cx *k, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return SC_ERR(k->e, SC_E_RUNTIME, "line %d: %s", k->line, msg);
}

enum sc_status sc_cx_empty(const struct sc_cx *k, const int64_t *shape, int ndim, struct sc_tensor *out)
{
	return sc_tensor_empty(k->arena, shape, ndim, (unsigned)sizeof(struct sc_pair), out, k->e);
}

enum sc_status sc_cx_contig(const struct sc_cx *k, const struct sc_tensor *t, struct sc_tensor *out)
{
	if (sc_tensor_is_contig(t)) {
		*out = *t;
		return SC_OK;
	}
	SC_CHECK(sc_cx_empty(k, t->shape, t->ndim, out));
	sc_tensor_copy(out, t);
	return SC_OK;
}

enum sc_status sc_cx_scalar(const struct sc_cx *k, struct sc_pair p, struct sc_tensor *out)
{
	const int64_t none[1] = {1}; /* a 0-d shape (never read) */
	SC_CHECK(sc_cx_empty(k, none, 0, out));
	sc_cx_pairs(out)[0] = p;
	return SC_OK;
}

enum sc_status sc_cx_dim(const struct sc_cx *k, int ndim, int dim, int *out)
{
	const int n = ndim ? ndim : 1; /* a 0-d tensor takes dim 0 or -1, as ATen's maybe_wrap_dim */
	const int d = dim < 0 ? dim + n : dim;
	if (d < 0 || d >= n)
		return sc_cx_err(k, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -n, n - 1,
				 dim);
	*out = d;
	return SC_OK;
}

struct sc_pair sc_cx_constant(const struct sc_cx *k, double c)
{
	const double v = sc_cx_acc(k, c), vd = sc_cx_round(k, c);
	const struct sc_pair p = {v, fmax(fabs(v - c), fabs(vd - c)) + 4 * ldexp(1.0, -53) * fabs(c)};
	return p;
}
