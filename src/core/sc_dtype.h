/* sc_dtype: the twelve element types, the value encoding and reductions.
 *
 * Data-movement checks never interpret values: an element's bits are a
 * function of (seed, global index) only, hashed into the dtype's width by a
 * bijection on the low bits, so within 2^width elements no two elements of X
 * share bits, and comparisons are of bits (NaN payloads, -0.0 and subnormals
 * are just bit patterns that must survive). Reductions use small integers,
 * exact in every dtype, so any summation order gives the same bits. */
#ifndef SC_DTYPE_H
#define SC_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "sc_hd_dtype.h"
#include "sc_status.h"

/* enum sc_dtype and enum sc_redop are defined in sc_hd_dtype.h, which the
 * kernels share. */

const char *sc_dtype_name(enum sc_dtype dt);
/* Sets *out when name is a dtype name; SC_E_USAGE otherwise. */
enum sc_status sc_dtype_parse(const char *name, enum sc_dtype *out);
size_t sc_dtype_size(enum sc_dtype dt);
int sc_dtype_is_float(enum sc_dtype dt);
int sc_dtype_is_signed(enum sc_dtype dt);

const char *sc_redop_name(enum sc_redop op);
/* Sets *out when name is sum, max, min or prod; SC_E_USAGE otherwise. */
enum sc_status sc_redop_parse(const char *name, enum sc_redop *out);

/* Bits of X[gindex] for a data-movement run, in the low bytes of the result. */
uint64_t sc_value_bits(enum sc_dtype dt, uint64_t seed, uint64_t gindex);

/* Small integer (exact in dt) used for reductions: rank's contribution at
 * gindex; rank < 0 means "a non-partial tensor's value". */
int sc_small_int(enum sc_dtype dt, enum sc_redop op, uint64_t seed, int rank,
		 uint64_t gindex);
uint64_t sc_int_to_bits(enum sc_dtype dt, int64_t v);

/* acc[i] = acc[i] OP in[i] for count elements of dt, in dt's arithmetic
 * (16-bit and 8-bit floats through float, rounded to nearest even). */
void sc_reduce(enum sc_dtype dt, enum sc_redop op, void *acc, const void *in,
	       size_t count);

/* Conversions used by reductions and the npy writer. */
float sc_f16_to_float(uint16_t h);
uint16_t sc_float_to_f16(float f);
float sc_bf16_to_float(uint16_t h);
uint16_t sc_float_to_bf16(float f);
float sc_f8e4m3_to_float(uint8_t v);
uint8_t sc_float_to_f8e4m3(float f);
float sc_f8e5m2_to_float(uint8_t v);
uint8_t sc_float_to_f8e5m2(float f);

/* Format an element's bits as text ("0x3c00 (1.0)") into buf. */
void sc_dtype_format(enum sc_dtype dt, uint64_t bits, char *buf, size_t n);

#endif
