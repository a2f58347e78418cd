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

#include "sc_limits.h"
#include "sc_mix.h"


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

/* The key of a case's values (its seed's), for sc_hd_value_bits_key. */
SC_HD static inline uint64_t sc_hd_value_key(uint64_t seed) { return sc_mix64(seed + 0x632be59bd9b4e019ULL); }

/* Bits of X[g] for an element of w bits (8, 16, 32 or 64) under key. */
SC_HD static inline uint64_t sc_hd_value_bits_key(unsigned w, uint64_t key, uint64_t g)
{
	if (w == 64)
		return sc_mix64(g ^ key);
	const uint64_t mask = (1ULL << w) - 1;
	const uint64_t hi = g >> w;
	const uint64_t k = hi ? sc_mix64(key ^ sc_mix64(hi)) : key;
	return sc_hd_perm((g ^ k) & mask, w);
}

/* sc_hd_value_bits_key for many g in a row: the key of g's high part
 * (g >> w, which changes once every 2^w indices) is kept between calls
 * instead of mixed again for every element. Same bits. */
struct sc_hd_values {
	uint64_t key, hi, k;
};
SC_HD static inline struct sc_hd_values sc_hd_values_of(uint64_t seed)
{
	struct sc_hd_values v;
	v.key = v.k = sc_hd_value_key(seed);
	v.hi = 0;
	return v;
}
SC_HD static inline uint64_t sc_hd_values_bits(struct sc_hd_values *v, unsigned w, uint64_t g)
{
	if (w == 64)
		return sc_mix64(g ^ v->key);
	const uint64_t hi = g >> w;
	if (hi != v->hi) {
		v->hi = hi;
		v->k = hi ? sc_mix64(v->key ^ sc_mix64(hi)) : v->key;
	}
	return sc_hd_perm((g ^ v->k) & ((1ULL << w) - 1), w);
}

/* Bits of X[g] for an element of `bytes` bytes (1, 2, 4 or 8). */
SC_HD static inline uint64_t sc_hd_value_bits(unsigned bytes, uint64_t seed, uint64_t g)
{
	return sc_hd_value_bits_key(8 * bytes, sc_hd_value_key(seed), g);
}

/* A view: element i (row-major over shape) lives at
 * offset + sum(idx[d] * stride[d]). 64-bit throughout: views of more than
 * 2^31 elements are the point of the large-case tests. */
struct sc_strided {
	int ndim;
	int64_t shape[SC_MAX_DIMS];
	int64_t stride[SC_MAX_DIMS];
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

/* Two views of the same shape (a copy's destination and source) with
 * fewer dims: size-1 dims dropped, a dim merged into the previous one where
 * both views step exactly over it. Returns the new ndim. */
SC_HD static inline int sc_strided_coalesce2(struct sc_strided *a, struct sc_strided *b)
{
	int n = 0;
	for (int d = 0; d < a->ndim; d++) {
		if (a->shape[d] == 1)
			continue;
		if (n > 0 && a->stride[n - 1] == a->shape[d] * a->stride[d] &&
		    b->stride[n - 1] == a->shape[d] * b->stride[d]) {
			a->shape[n - 1] *= a->shape[d];
			b->shape[n - 1] = a->shape[n - 1];
			a->stride[n - 1] = a->stride[d];
			b->stride[n - 1] = b->stride[d];
			continue;
		}
		a->shape[n] = b->shape[n] = a->shape[d];
		a->stride[n] = a->stride[d];
		b->stride[n] = b->stride[d];
		n++;
	}
	if (n == 0) {
		a->shape[0] = b->shape[0] = 1;
		a->stride[0] = b->stride[0] = 1;
		n = 1;
	}
	a->ndim = b->ndim = n;
	return n;
}

/* A copy that is a batched transpose: the destination is contiguous along
 * its last dim L, the source along another dim K. It runs as square tiles
 * of SC_TILE x SC_TILE elements through shared memory, each read along K
 * and written along L, so both sides are coalesced; the other dims are a
 * batch. The index math is here so the CPU runs it too (the emulated
 * device copies through it, and a test checks every element is moved
 * exactly once). Launch: SC_TILE x SC_TILE_ROWS threads per tile. */
#define SC_TILE 32
#define SC_TILE_ROWS 8

struct sc_tile_plan {
	int64_t nk, nl;         /* extents along K and L */
	int64_t tk, tl;         /* tiles along K and L */
	int64_t ntiles;         /* tk * tl * batch */
	int64_t s_l, d_k;       /* source stride along L, destination stride along K */
	struct sc_strided sb, db; /* the batch dims of each view (offset: the view's) */
};

/* Fills p and returns 1 when the (jointly coalesced) copy dst <- src is a
 * batched transpose worth tiling, else 0. */
SC_HD static inline int sc_tile_plan_make(const struct sc_strided *dv, const struct sc_strided *sv,
					  struct sc_tile_plan *p)
{
	const int nd = dv->ndim, L = nd - 1;
	int K = -1;
	if (nd < 2 || dv->stride[L] != 1 || sv->stride[L] == 1)
		return 0;
	for (int d = 0; d < L; d++)
		if (sv->stride[d] == 1 && sv->shape[d] > 1)
			K = d;
	if (K < 0 || dv->shape[L] < 2 || dv->shape[K] < 2)
		return 0;
	p->nk = dv->shape[K];
	p->nl = dv->shape[L];
	p->tk = (p->nk + SC_TILE - 1) / SC_TILE;
	p->tl = (p->nl + SC_TILE - 1) / SC_TILE;
	p->s_l = sv->stride[L];
	p->d_k = dv->stride[K];
	int n = 0;
	int64_t batch = 1;
	for (int d = 0; d < L; d++) {
		if (d == K)
			continue;
		p->sb.shape[n] = p->db.shape[n] = dv->shape[d];
		p->sb.stride[n] = sv->stride[d];
		p->db.stride[n] = dv->stride[d];
		batch *= dv->shape[d];
		n++;
	}
	if (n == 0) {
		p->sb.shape[0] = p->db.shape[0] = 1;
		p->sb.stride[0] = p->db.stride[0] = 0;
		n = 1;
	}
	p->sb.ndim = p->db.ndim = n;
	p->sb.offset = sv->offset;
	p->db.offset = dv->offset;
	p->ntiles = p->tk * p->tl * batch;
	return 1;
}

/* Tile t's corner (k0, l0) and the offsets of its batch element in the
 * source and the destination. */
SC_HD static inline void sc_tile_origin(const struct sc_tile_plan *p, int64_t t, int64_t *k0, int64_t *l0,
					int64_t *sbase, int64_t *dbase)
{
	const int64_t per = p->tk * p->tl, b = t / per, r = t - b * per;
	*k0 = (r / p->tl) * SC_TILE;
	*l0 = (r % p->tl) * SC_TILE;
	*sbase = sc_strided_offset(&p->sb, b);
	*dbase = sc_strided_offset(&p->db, b);
}

/* Widens the elements of a copy whose last dim is contiguous on both
 * sides: pairs of elements become one of twice the size while the last
 * extent, every other stride and both offsets stay divisible, up to 16
 * bytes, so rows move as 16-byte vectors. Returns the new element size. */
SC_HD static inline unsigned sc_strided_widen(struct sc_strided *a, struct sc_strided *b, unsigned esize)
{
	const int L = a->ndim - 1;
	if (L < 0 || a->stride[L] != 1 || b->stride[L] != 1)
		return esize;
	while (esize < 16 && a->shape[L] % 2 == 0 && a->offset % 2 == 0 && b->offset % 2 == 0) {
		int ok = 1;
		for (int d = 0; d < L; d++)
			ok &= a->stride[d] % 2 == 0 && b->stride[d] % 2 == 0;
		if (!ok)
			break;
		for (int d = 0; d < L; d++) {
			a->stride[d] /= 2;
			b->stride[d] /= 2;
		}
		a->shape[L] /= 2;
		b->shape[L] = a->shape[L];
		a->offset /= 2;
		b->offset /= 2;
		esize *= 2;
	}
	return esize;
}

#endif
