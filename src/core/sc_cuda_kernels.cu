// sc_cuda_kernels: the device side of the cuda and nccl backends.
//
// Grid-stride kernels over 64-bit indices; every index and element
// computation is the __host__ __device__ code of sc_hd.h and sc_hd_dtype.h
// that the CPU path (and the emulated device) also runs.
#include "sc_cuda_kernels.h"

#include <cuda_runtime.h>

namespace {

struct pair16 {
	uint64_t lo, hi;
};

template <typename T> __device__ inline uint64_t bits_of(const T &v) { return (uint64_t)v; }

__device__ inline int64_t gtid() { return blockIdx.x * (int64_t)blockDim.x + threadIdx.x; }
__device__ inline int64_t gstride() { return (int64_t)gridDim.x * blockDim.x; }

template <typename T>
__global__ void gather_k(T *__restrict__ dst, const T *__restrict__ src, sc_strided view, int64_t n)
{
	for (int64_t i = gtid(); i < n; i += gstride())
		dst[i] = src[sc_strided_offset(&view, i)];
}

template <typename T>
__global__ void copy_k(T *__restrict__ dst, sc_strided dv, const T *__restrict__ src, sc_strided sv, int64_t n)
{
	for (int64_t i = gtid(); i < n; i += gstride())
		dst[sc_strided_offset(&dv, i)] = src[sc_strided_offset(&sv, i)];
}

// One tile per block iteration: read along K (source stride 1), write along
// L (destination stride 1); the +1 column keeps the transposed reads of the
// tile free of shared-memory bank conflicts.
template <typename T>
__global__ void tile_k(T *__restrict__ dst, const T *__restrict__ src, sc_tile_plan p)
{
	__shared__ T tile[SC_TILE][SC_TILE + 1];
	const int tx = threadIdx.x, ty = threadIdx.y;
	for (int64_t t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
		int64_t k0, l0, sb, db;
		sc_tile_origin(&p, t, &k0, &l0, &sb, &db);
		for (int j = 0; j < SC_TILE; j += SC_TILE_ROWS) {
			const int64_t k = k0 + tx, l = l0 + ty + j;
			if (k < p.nk && l < p.nl)
				tile[ty + j][tx] = src[sb + k + l * p.s_l];
		}
		__syncthreads();
		for (int j = 0; j < SC_TILE; j += SC_TILE_ROWS) {
			const int64_t l = l0 + tx, k = k0 + ty + j;
			if (k < p.nk && l < p.nl)
				dst[db + k * p.d_k + l] = tile[tx][ty + j];
		}
		__syncthreads();
	}
}

template <typename T>
__global__ void fill_k(T *__restrict__ dst, sc_hd_fill f, int64_t n)
{
	for (int64_t i = gtid(); i < n; i += gstride())
		dst[i] = (T)sc_hd_fill_bits(&f, (uint64_t)sc_strided_offset(&f.xmap, i));
}

// Counts mismatches at indices > after, and the smallest such index.
template <typename T>
__global__ void check_k(const T *__restrict__ out, sc_strided ov, sc_hd_fill f, int64_t n, int64_t after,
			unsigned long long *count, unsigned long long *first)
{
	for (int64_t i = gtid(); i < n; i += gstride()) {
		if (i <= after)
			continue;
		const uint64_t want = sc_hd_fill_bits(&f, (uint64_t)sc_strided_offset(&f.xmap, i));
		if (bits_of(out[sc_strided_offset(&ov, i)]) != want) {
			atomicAdd(count, 1ULL);
			atomicMin(first, (unsigned long long)i);
		}
	}
}

template <typename T>
__global__ void reduce_k(T *__restrict__ acc, const T *__restrict__ in, size_t count, int dt, int op)
{
	for (int64_t i = gtid(); i < (int64_t)count; i += gstride())
		acc[i] = (T)sc_hd_reduce1(dt, op, (uint64_t)acc[i], (uint64_t)in[i]);
}

__global__ void prov_merge_k(uint64_t *__restrict__ mx, const uint64_t *__restrict__ mn, size_t count)
{
	for (int64_t i = gtid(); i < (int64_t)count; i += gstride())
		if (mx[i] != mn[i])
			mx[i] = UINT64_MAX - 1; // SC_PROV_MIXED
}

unsigned blocks_for(int64_t n)
{
	int64_t b = (n + 255) / 256;
	return (unsigned)(b < 1 ? 1 : b > 65535 * 16 ? 65535 * 16 : b);
}

#define SC_DISPATCH(esize, LAUNCH)                                                                     \
	switch (esize) {                                                                               \
	case 1: LAUNCH(uint8_t); break;                                                                \
	case 2: LAUNCH(uint16_t); break;                                                               \
	case 4: LAUNCH(uint32_t); break;                                                               \
	case 8: LAUNCH(uint64_t); break;                                                               \
	case 16: LAUNCH(pair16); break;                                                                \
	default: return (int)cudaErrorInvalidValue;                                                    \
	}

#define SC_DISPATCH8(esize, LAUNCH)                                                                    \
	switch (esize) {                                                                               \
	case 1: LAUNCH(uint8_t); break;                                                                \
	case 2: LAUNCH(uint16_t); break;                                                               \
	case 4: LAUNCH(uint32_t); break;                                                               \
	case 8: LAUNCH(uint64_t); break;                                                               \
	default: return (int)cudaErrorInvalidValue;                                                    \
	}

} // namespace

extern "C" int sc_cuda_gather(void *dst, const void *src, const sc_strided *src_view, int64_t n, unsigned esize,
			      void *stream)
{
	if (n <= 0)
		return 0;
	sc_strided v = *src_view;
	sc_strided_coalesce(&v);
	cudaStream_t s = (cudaStream_t)stream;
#define L(T) gather_k<T><<<blocks_for(n), 256, 0, s>>>((T *)dst, (const T *)src, v, n)
	SC_DISPATCH(esize, L)
#undef L
	return (int)cudaGetLastError();
}

extern "C" int sc_cuda_copy(void *dst, const sc_strided *dst_view, const void *src, const sc_strided *src_view,
			    int64_t n, unsigned esize, void *stream)
{
	if (n <= 0)
		return 0;
	sc_strided dv = *dst_view, sv = *src_view;
	sc_strided_coalesce2(&dv, &sv);
	cudaStream_t s = (cudaStream_t)stream;
	if (dv.ndim == 1 && dv.stride[0] == 1 && sv.stride[0] == 1) // one contiguous run
		return (int)cudaMemcpyAsync((char *)dst + dv.offset * (int64_t)esize,
					    (const char *)src + sv.offset * (int64_t)esize, (size_t)n * esize,
					    cudaMemcpyDeviceToDevice, s);
	// rows contiguous on both sides move as wider elements (16-byte vectors);
	// base pointers are 256-byte aligned, so offsets decide alignment
	const int64_t rows = n / dv.shape[dv.ndim - 1];
	esize = sc_strided_widen(&dv, &sv, esize);
	n = rows * dv.shape[dv.ndim - 1];
	sc_tile_plan p;
	if (sc_tile_plan_make(&dv, &sv, &p)) {
		const unsigned nb = (unsigned)(p.ntiles < 65535 * 32 ? p.ntiles : 65535 * 32);
		const dim3 th(SC_TILE, SC_TILE_ROWS);
#define L(T) tile_k<T><<<nb, th, 0, s>>>((T *)dst, (const T *)src, p)
		SC_DISPATCH(esize, L)
#undef L
		return (int)cudaGetLastError();
	}
	if (dv.ndim == 1 && dv.stride[0] == 1 && dv.offset == 0)
		return sc_cuda_gather(dst, src, &sv, n, esize, stream);
#define L(T) copy_k<T><<<blocks_for(n), 256, 0, s>>>((T *)dst, dv, (const T *)src, sv, n)
	SC_DISPATCH(esize, L)
#undef L
	return (int)cudaGetLastError();
}

extern "C" int sc_cuda_fill(void *dst, const sc_hd_fill *f, int64_t n, void *stream)
{
	if (n <= 0)
		return 0;
	sc_hd_fill ff = *f;
	sc_strided_coalesce(&ff.xmap);
	cudaStream_t s = (cudaStream_t)stream;
#define L(T) fill_k<T><<<blocks_for(n), 256, 0, s>>>((T *)dst, ff, n)
	SC_DISPATCH8(sc_hd_fill_esize(f), L)
#undef L
	return (int)cudaGetLastError();
}

extern "C" int sc_cuda_check(const void *out, const sc_strided *out_view, const sc_hd_fill *f, int64_t n,
			     int64_t after, unsigned long long *count, unsigned long long *first, void *stream)
{
	if (n <= 0)
		return 0;
	cudaStream_t s = (cudaStream_t)stream;
	const sc_strided ov = *out_view;
#define L(T) check_k<T><<<blocks_for(n), 256, 0, s>>>((const T *)out, ov, *f, n, after, count, first)
	SC_DISPATCH8(sc_hd_fill_esize(f), L)
#undef L
	return (int)cudaGetLastError();
}

extern "C" int sc_cuda_reduce(void *acc, const void *in, size_t count, int dtype, int op, void *stream)
{
	if (!count)
		return 0;
	cudaStream_t s = (cudaStream_t)stream;
	const int64_t n = (int64_t)count;
#define L(T) reduce_k<T><<<blocks_for(n), 256, 0, s>>>((T *)acc, (const T *)in, count, dtype, op)
	switch (sc_hd_dtype_size(dtype)) {
	case 1: L(uint8_t); break;
	case 2: L(uint16_t); break;
	case 4: L(uint32_t); break;
	default: L(uint64_t); break;
	}
#undef L
	return (int)cudaGetLastError();
}

extern "C" int sc_cuda_prov_merge(void *mx, const void *mn, size_t count, void *stream)
{
	if (!count)
		return 0;
	prov_merge_k<<<blocks_for((int64_t)count), 256, 0, (cudaStream_t)stream>>>((uint64_t *)mx, (const uint64_t *)mn,
										   count);
	return (int)cudaGetLastError();
}

extern "C" const char *sc_cuda_error_string(int err) { return cudaGetErrorString((cudaError_t)err); }
