/* sc_cuda_kernels: the device side of the GPU backends, as C launchers.
 *
 * A materialized view is one kernel whatever the chain of views before it:
 * the view (sc_strided) is already the composition of every reshape,
 * transpose and permute since the last copy. sc_cuda_copy picks, after
 * coalescing both views: a plain device copy for one contiguous run, the
 * tiled transpose of sc_hd.h when the destination is contiguous along its
 * last dim and the source along another, else a strided gather/scatter.
 * Fill and check compute the expected bits on the device from (seed,
 * global index) with the CPU's code (sc_hd_dtype.h), so a large case never
 * travels to the host; only the first mismatches do. Launchers queue on
 * stream and return 0 or a cudaError_t value. */
#ifndef SC_CUDA_KERNELS_H
#define SC_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "sc_hd.h"
#include "sc_hd_dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = src[src_view(i)] for i < n (esize 1, 2, 4, 8 or 16). */
int sc_cuda_gather(void *dst, const void *src, const struct sc_strided *src_view, int64_t n,
		   unsigned esize, void *stream);
/* dst[dst_view(i)] = src[src_view(i)] for i < n. */
int sc_cuda_copy(void *dst, const struct sc_strided *dst_view, const void *src,
		 const struct sc_strided *src_view, int64_t n, unsigned esize, void *stream);
/* dst[i] = sc_hd_fill_bits(f, f->xmap(i)) for i < n. */
int sc_cuda_fill(void *dst, const struct sc_hd_fill *f, int64_t n, void *stream);
/* Over i in (after, n): *count += mismatches of out[out_view(i)] against
 * sc_hd_fill_bits(f, f->xmap(i)); *first = min(*first, i) of them. count
 * and first are device memory the caller initializes (0 and ~0). */
int sc_cuda_check(const void *out, const struct sc_strided *out_view, const struct sc_hd_fill *f,
		  int64_t n, int64_t after, unsigned long long *count, unsigned long long *first,
		  void *stream);
/* acc[i] = sc_hd_reduce1(dtype, op, acc[i], in[i]). */
int sc_cuda_reduce(void *acc, const void *in, size_t count, int dtype, int op, void *stream);
/* mx[i] = SC_PROV_MIXED where mx[i] != mn[i] (u64). */
int sc_cuda_prov_merge(void *mx, const void *mn, size_t count, void *stream);
const char *sc_cuda_error_string(int err);

#ifdef __cplusplus
}
#endif

#endif
