/* sc_cuda_kernels: the device side of the GPU backends, as C launchers.
 *
 * A local step run on the device is one kernel whatever the chain of views
 * before it: the view (sc_strided) is already the composition of every
 * reshape, transpose and permute since the last copy, so materializing it
 * is one strided gather. Fill and check kernels compute the expected bits
 * on the device from (seed, global index) with the same code as the CPU
 * (sc_hd.h), so a large case never travels to the host; only the first
 * mismatches do. All launchers return 0 or a cudaError_t value. */
#ifndef SC_CUDA_KERNELS_H
#define SC_CUDA_KERNELS_H

#include <stdint.h>

#include "sc_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sc_cuda_mismatch {
	int64_t index;          /* row-major index in the checked view */
	uint64_t expected_from; /* global index of X expected there */
	uint64_t actual_bits;
};

/* dst[i] = src[offset of src_view's i-th element], for i < n (esize 1, 2,
 * 4, 8 or 16 bytes). */
int sc_cuda_gather(void *dst, const void *src, const struct sc_strided *src_view, int64_t n,
		   unsigned esize, void *stream);
/* dst[i] = bits of X[offset of xmap's i-th element] (sc_hd_value_bits). */
int sc_cuda_fill(void *dst, const struct sc_strided *xmap, int64_t n, unsigned esize, uint64_t seed,
		 void *stream);
/* Counts elements i of out (viewed by out_view) whose bits differ from
 * X[offset of xmap's i-th element]; *count and the first kfirst mismatches
 * (in no particular order) are device memory the caller zeroes first. */
int sc_cuda_check(const void *out, const struct sc_strided *out_view, const struct sc_strided *xmap,
		  int64_t n, unsigned esize, uint64_t seed, unsigned long long *count,
		  struct sc_cuda_mismatch *first, int kfirst, void *stream);
const char *sc_cuda_error_string(int err);

#ifdef __cplusplus
}
#endif

#endif
