/* sc_npy: writes tensors as NumPy .npy files (format 1.0), which numpy and
 * torch.from_numpy load directly. 16-bit and 8-bit floats are written as
 * the same-width unsigned integers, bits unchanged. */
#ifndef SC_NPY_H
#define SC_NPY_H

#include "sc_dtype.h"
#include "sc_status.h"
#include "sc_tensor.h"

/* Writes t (any strides) in row-major order; atomically (temp + rename). */
enum sc_status sc_npy_write(const char *path, const struct sc_tensor *t, enum sc_dtype dt,
			    struct sc_err *e);

#endif
