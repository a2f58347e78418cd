/* sc_fp: unit roundoff, rounding and the bounds of the classical analysis. */
#include "sc_fp.h"

#include <math.h>

double sc_fp_unit(enum sc_dtype d)
{
	switch (d) {
	case SC_F64: return ldexp(1.0, -53);
	case SC_F32: return ldexp(1.0, -24);
	case SC_F16: return ldexp(1.0, -11);
	case SC_BF16: return ldexp(1.0, -8);
	case SC_F8E4M3: return ldexp(1.0, -4);
	case SC_F8E5M2: return ldexp(1.0, -3);
	default: return 0.5;
	}
}

double sc_fp_eta(enum sc_dtype d)
{
	switch (d) {
	case SC_F64: return ldexp(1.0, -1075);
	case SC_F32: return ldexp(1.0, -150);
	case SC_F16: return ldexp(1.0, -25);
	case SC_BF16: return ldexp(1.0, -134);
	case SC_F8E4M3: return ldexp(1.0, -10);
	case SC_F8E5M2: return ldexp(1.0, -17);
	default: return 0.5;
	}
}

double sc_fp_round(enum sc_dtype d, double x)
{
	switch (d) {
	case SC_F32: return (double)(float)x;
	case SC_F16: return (double)sc_f16_to_float(sc_float_to_f16((float)x));
	case SC_BF16: return (double)sc_bf16_to_float(sc_float_to_bf16((float)x));
	case SC_F8E4M3: return (double)sc_f8e4m3_to_float(sc_float_to_f8e4m3((float)x));
	case SC_F8E5M2: return (double)sc_f8e5m2_to_float(sc_float_to_f8e5m2((float)x));
	default: return x;
	}
}

double sc_fp_rbound(enum sc_dtype d, double v)
{
	const double u = sc_fp_unit(d);
	return SC_FP_SAFETY * (u / (1 - u) * fabs(v) + sc_fp_eta(d));
}

double sc_fp_gamma(double k, double u)
{
	const double ku = k * u;
	return ku < 1 ? ku / (1 - ku) : INFINITY;
}
