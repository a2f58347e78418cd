/* sc_hd: arithmetic shared by the CPU path and the CUDA kernels, so the
 * CPU tests cover what the device runs: the value encoding (bits of X[g]
 * from the seed and the global index) and strided index maps (the offset
 * of a view's i-th element in row-major order).
 *
 * Everything here is static inline, free of the C library, and marked
 * __host__ __device__ when compiled by nvcc. */
#ifndef SC_HD_H
#define SC_HD_H

#include <stdint.h>

#if defined(__CUDACC__)
#define SC_HD __host__ __device__
#else
#define SC_HD
#endif

#define SC_HD_MAX_DIMS 8

SC_HD static inline uint64_t sc_hd_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* A bijection on the low w bits (w in 8, 16, 32): xorshift and odd
 * multiplication are invertible modulo 2^w. */
SC_HD static inline uint64_t sc_hd_perm(uint64_t x, unsigned w)
{
	const uint64_t mask = (w == 64) ? ~0ULL : ((1ULL << w) - 1);
	const unsigned h = w / 2;
	x &= mask;
	x ^= x >> h;
	x = (x * 0x9e3779b97f4a7c15ULL) & mask;
	x ^= x >> h;
	x = (x * 0xd6e8feb86659fd93ULL) & mask;
	x ^= x >> h;
	return x;
}

/* Bits of X[g] for an element of `bytes` bytes (1, 2, 4 or 8). */
SC_HD static inline uint64_t sc_hd_value_bits(unsigned bytes, uint64_t seed, uint64_t g)
{
	const unsigned w = 8 * bytes;
	const uint64_t key = sc_hd_mix64(seed + 0x632be59bd9b4e019ULL);
	if (w == 64)
		return sc_hd_mix64(g ^ key);
	const uint64_t mask = (1ULL << w) - 1;
	const uint64_t hi = g >> w;
	const uint64_t k = hi ? sc_hd_mix64(key ^ sc_hd_mix64(hi)) : key;
	return sc_hd_perm((g ^ k) & mask, w);
}

/* A view: element i (row-major over shape) lives at
 * offset + sum(idx[d] * stride[d]). 64-bit throughout: views of more than
 * 2^31 elements are the point of the large-case tests. */
struct sc_strided {
	int ndim;
	int64_t shape[SC_HD_MAX_DIMS];
	int64_t stride[SC_HD_MAX_DIMS];
	int64_t offset;
};

SC_HD static inline int64_t sc_strided_offset(const struct sc_strided *m, int64_t i)
{
	int64_t off = m->offset;
	for (int d = m->ndim - 1; d >= 0; d--) {
		const int64_t n = m->shape[d];
		const int64_t q = i / n;
		off += (i - q * n) * m->stride[d];
		i = q;
	}
	return off;
}

/* Fewer dims, same offsets: drops size-1 dims and merges a dim into the
 * next when it steps exactly over it (stride[d] == shape[d+1]*stride[d+1]),
 * so a kernel does one division per remaining dim. Returns the new ndim. */
SC_HD static inline int sc_strided_coalesce(struct sc_strided *m)
{
	int n = 0;
	for (int d = 0; d < m->ndim; d++) {
		if (m->shape[d] == 1)
			continue;
		if (n > 0 && m->stride[n - 1] == m->shape[d] * m->stride[d]) {
			m->shape[n - 1] *= m->shape[d];
			m->stride[n - 1] = m->stride[d];
			continue;
		}
		m->shape[n] = m->shape[d];
		m->stride[n] = m->stride[d];
		n++;
	}
	if (n == 0) { /* a single element */
		m->shape[0] = 1;
		m->stride[0] = 1;
		n = 1;
	}
	m->ndim = n;
	return n;
}

#endif
