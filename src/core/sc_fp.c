/* sc_fp: unit roundoff, rounding and the bounds of the classical analysis. */
#include "sc_fp.h"

#include <math.h>

double sc_fp_unit(enum sc_dtype d)
{
	switch (d) {
	case SC_F64: return 0x1p-53;
	case SC_F32: return 0x1p-24;
	case SC_F16: return 0x1p-11;
	case SC_BF16: return 0x1p-8;
	case SC_F8E4M3: return 0x1p-4;
	case SC_F8E5M2: return 0x1p-3;
	default: return 0.5;
	}
}

double sc_fp_eta(enum sc_dtype d)
{
	switch (d) {
	case SC_F64: return 0.0; /* 2^-1075, below the least subnormal: rounds to 0 */
	case SC_F32: return 0x1p-150;
	case SC_F16: return 0x1p-25;
	case SC_BF16: return 0x1p-134;
	case SC_F8E4M3: return 0x1p-10;
	case SC_F8E5M2: return 0x1p-17;
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
