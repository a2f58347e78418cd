// sc_cuda_kernels: grid-stride kernels over 64-bit indices.
#include "sc_cuda_kernels.h"

#include <cuda_runtime.h>

namespace {

struct pair16 {
	uint64_t lo, hi;
};

template <typename T> __device__ inline uint64_t bits_of(const T &v) { return (uint64_t)v; }

template <typename T>
__global__ void gather_k(T *__restrict__ dst, const T *__restrict__ src, sc_strided view, int64_t n)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
		dst[i] = src[sc_strided_offset(&view, i)];
}

template <typename T>
__global__ void fill_k(T *__restrict__ dst, sc_strided xmap, int64_t n, unsigned esize, uint64_t seed)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
		dst[i] = (T)sc_hd_value_bits(esize, seed, (uint64_t)sc_strided_offset(&xmap, i));
}

template <typename T>
__global__ void check_k(const T *__restrict__ out, sc_strided view, sc_strided xmap, int64_t n, unsigned esize,
			uint64_t seed, unsigned long long *count, sc_cuda_mismatch *first, int kfirst)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
		const uint64_t g = (uint64_t)sc_strided_offset(&xmap, i);
		const uint64_t want = sc_hd_value_bits(esize, seed, g);
		const uint64_t got = bits_of(out[sc_strided_offset(&view, i)]);
		if (got != want) {
			const unsigned long long k = atomicAdd(count, 1ULL);
			if (k < (unsigned long long)kfirst) {
				first[k].index = i;
				first[k].expected_from = g;
				first[k].actual_bits = got;
			}
		}
	}
}

void grid(int64_t n, unsigned *blocks, unsigned *threads)
{
	*threads = 256;
	int64_t b = (n + 255) / 256;
	*blocks = (unsigned)(b < 1 ? 1 : b > 65535 * 8 ? 65535 * 8 : b);
}

} // namespace

extern "C" int sc_cuda_gather(void *dst, const void *src, const sc_strided *src_view, int64_t n, unsigned esize,
			      void *stream)
{
	sc_strided v = *src_view;
	sc_strided_coalesce(&v);
	unsigned b, t;
	grid(n, &b, &t);
	cudaStream_t s = (cudaStream_t)stream;
	switch (esize) {
	case 1: gather_k<uint8_t><<<b, t, 0, s>>>((uint8_t *)dst, (const uint8_t *)src, v, n); break;
	case 2: gather_k<uint16_t><<<b, t, 0, s>>>((uint16_t *)dst, (const uint16_t *)src, v, n); break;
	case 4: gather_k<uint32_t><<<b, t, 0, s>>>((uint32_t *)dst, (const uint32_t *)src, v, n); break;
	case 8: gather_k<uint64_t><<<b, t, 0, s>>>((uint64_t *)dst, (const uint64_t *)src, v, n); break;
	case 16: gather_k<pair16><<<b, t, 0, s>>>((pair16 *)dst, (const pair16 *)src, v, n); break;
	default: return (int)cudaErrorInvalidValue;
	}
	return (int)cudaGetLastError();
}

extern "C" int sc_cuda_fill(void *dst, const sc_strided *xmap, int64_t n, unsigned esize, uint64_t seed, void *stream)
{
	unsigned b, t;
	grid(n, &b, &t);
	cudaStream_t s = (cudaStream_t)stream;
	switch (esize) {
	case 1: fill_k<uint8_t><<<b, t, 0, s>>>((uint8_t *)dst, *xmap, n, esize, seed); break;
	case 2: fill_k<uint16_t><<<b, t, 0, s>>>((uint16_t *)dst, *xmap, n, esize, seed); break;
	case 4: fill_k<uint32_t><<<b, t, 0, s>>>((uint32_t *)dst, *xmap, n, esize, seed); break;
	case 8: fill_k<uint64_t><<<b, t, 0, s>>>((uint64_t *)dst, *xmap, n, esize, seed); break;
	default: return (int)cudaErrorInvalidValue;
	}
	return (int)cudaGetLastError();
}

extern "C" int sc_cuda_check(const void *out, const sc_strided *out_view, const sc_strided *xmap, int64_t n,
			     unsigned esize, uint64_t seed, unsigned long long *count, sc_cuda_mismatch *first,
			     int kfirst, void *stream)
{
	unsigned b, t;
	grid(n, &b, &t);
	cudaStream_t s = (cudaStream_t)stream;
	switch (esize) {
	case 1: check_k<uint8_t><<<b, t, 0, s>>>((const uint8_t *)out, *out_view, *xmap, n, esize, seed, count, first, kfirst); break;
	case 2: check_k<uint16_t><<<b, t, 0, s>>>((const uint16_t *)out, *out_view, *xmap, n, esize, seed, count, first, kfirst); break;
	case 4: check_k<uint32_t><<<b, t, 0, s>>>((const uint32_t *)out, *out_view, *xmap, n, esize, seed, count, first, kfirst); break;
	case 8: check_k<uint64_t><<<b, t, 0, s>>>((const uint64_t *)out, *out_view, *xmap, n, esize, seed, count, first, kfirst); break;
	default: return (int)cudaErrorInvalidValue;
	}
	return (int)cudaGetLastError();
}

extern "C" const char *sc_cuda_error_string(int err) { return cudaGetErrorString((cudaError_t)err); }
