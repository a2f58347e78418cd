// GPU kernels against the CPU's arithmetic (sc_hd.h): strided gathers of
// random views, fill and check with planted mismatches, and a large case
// (more than 1 GiB, offsets past 2^31). Exits 77 (skipped) without a device.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "sc_cuda_kernels.h"

static int pass, fail;
#define CHECK(c, ...)                                                                                  \
	do {                                                                                           \
		if (c) {                                                                               \
			pass++;                                                                        \
		} else {                                                                               \
			fail++;                                                                        \
			std::fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #c);           \
			std::fprintf(stderr, __VA_ARGS__);                                             \
			std::fprintf(stderr, "\n");                                                    \
		}                                                                                      \
	} while (0)
#define CU(x)                                                                                          \
	do {                                                                                           \
		cudaError_t e_ = (x);                                                                  \
		if (e_ != cudaSuccess) {                                                               \
			std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
			std::exit(1);                                                                  \
		}                                                                                      \
	} while (0)

static uint64_t st = 12345;
static uint64_t rnd()
{
	uint64_t z = (st += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static sc_strided random_view(int64_t *numel)
{
	sc_strided m;
	m.ndim = 1 + (int)(rnd() % 6);
	int64_t shape[8], cs[8], s = 1;
	for (int d = 0; d < m.ndim; d++)
		shape[d] = 1 + (int64_t)(rnd() % 6);
	for (int d = m.ndim - 1; d >= 0; d--) {
		cs[d] = s;
		s *= shape[d];
	}
	int perm[8];
	for (int d = 0; d < m.ndim; d++)
		perm[d] = d;
	for (int d = m.ndim - 1; d > 0; d--) {
		int j = (int)(rnd() % (uint64_t)(d + 1)), t = perm[d];
		perm[d] = perm[j];
		perm[j] = t;
	}
	for (int d = 0; d < m.ndim; d++) {
		m.shape[d] = shape[perm[d]];
		m.stride[d] = cs[perm[d]];
	}
	m.offset = 0;
	*numel = s;
	return m;
}

int main()
{
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		std::printf("gpu: skipped: no CUDA device visible (this machine has the toolkit, not a GPU)\n");
		return 77;
	}
	cudaDeviceProp prop;
	CU(cudaGetDeviceProperties(&prop, 0));
	std::printf("gpu: %d device(s); device 0: %s, %.1f GiB\n", ndev, prop.name, prop.totalGlobalMem / 1073741824.0);
	// 1. gathers of random views, every element size
	const unsigned sizes[] = {1, 2, 4, 8, 16};
	for (int trial = 0; trial < 300; trial++) {
		int64_t n;
		sc_strided v = random_view(&n);
		const unsigned es = sizes[trial % 5];
		std::vector<unsigned char> src(n * es), want(n * es), got(n * es);
		for (auto &b : src)
			b = (unsigned char)rnd();
		for (int64_t i = 0; i < n; i++)
			std::memcpy(&want[i * es], &src[sc_strided_offset(&v, i) * es], es);
		void *ds, *dd;
		CU(cudaMalloc(&ds, n * es));
		CU(cudaMalloc(&dd, n * es));
		CU(cudaMemcpy(ds, src.data(), n * es, cudaMemcpyHostToDevice));
		CHECK(sc_cuda_gather(dd, ds, &v, n, es, nullptr) == 0, "launch");
		CU(cudaMemcpy(got.data(), dd, n * es, cudaMemcpyDeviceToHost));
		CHECK(got == want, "gather trial %d (esize %u, %d dims)", trial, es, v.ndim);
		CU(cudaFree(ds));
		CU(cudaFree(dd));
	}
	// 2. fill against the host's value bits, and check with planted faults
	for (unsigned es : {1u, 2u, 4u, 8u}) {
		int64_t n;
		sc_strided x = random_view(&n);
		std::vector<unsigned char> got(n * es);
		void *d;
		CU(cudaMalloc(&d, n * es));
		CHECK(sc_cuda_fill(d, &x, n, es, 42, nullptr) == 0, "fill launch");
		CU(cudaMemcpy(got.data(), d, n * es, cudaMemcpyDeviceToHost));
		int bad = 0;
		for (int64_t i = 0; i < n; i++) {
			uint64_t w = sc_hd_value_bits(es, 42, (uint64_t)sc_strided_offset(&x, i)), g = 0;
			std::memcpy(&g, &got[i * es], es);
			bad += g != w;
		}
		CHECK(bad == 0, "fill esize %u: %d elements differ", es, bad);
		sc_strided id = {1, {n}, {1}, 0};
		unsigned long long *cnt;
		sc_cuda_mismatch *first;
		CU(cudaMalloc(&cnt, sizeof *cnt));
		CU(cudaMalloc(&first, 8 * sizeof *first));
		CU(cudaMemset(cnt, 0, sizeof *cnt));
		CHECK(sc_cuda_check(d, &id, &x, n, es, 42, cnt, first, 8, nullptr) == 0, "check launch");
		unsigned long long c = 1;
		CU(cudaMemcpy(&c, cnt, sizeof c, cudaMemcpyDeviceToHost));
		CHECK(c == 0, "a correct fill has %llu mismatches", c);
		if (n > 1) { // plant one wrong element
			unsigned char junk[8];
			std::memcpy(junk, &got[(n / 2) * es], es);
			junk[0] ^= 0x5a;
			CU(cudaMemcpy((unsigned char *)d + (n / 2) * es, junk, es, cudaMemcpyHostToDevice));
			CU(cudaMemset(cnt, 0, sizeof *cnt));
			sc_cuda_check(d, &id, &x, n, es, 42, cnt, first, 8, nullptr);
			sc_cuda_mismatch m;
			CU(cudaMemcpy(&c, cnt, sizeof c, cudaMemcpyDeviceToHost));
			CU(cudaMemcpy(&m, first, sizeof m, cudaMemcpyDeviceToHost));
			CHECK(c == 1 && m.index == n / 2, "planted fault: %llu mismatches, first at %lld", c, (long long)m.index);
		}
		CU(cudaFree(d));
		CU(cudaFree(cnt));
		CU(cudaFree(first));
	}
	// 3. a large case: a [3, 2^30 / 3 * 1 + ...] transpose of more than 1 GiB of bytes
	{
		const int64_t a = 3, b = ((int64_t)1 << 30) / 3 + 1001, n = a * b; // > 2^30 elements, 1 byte each
		sc_strided xsrc = {1, {n}, {1}, 0};
		sc_strided tr = {2, {b, a}, {1, b}, 0};   // view [b, a] of the [a, b] source
		sc_strided xexp = {2, {b, a}, {1, b}, 0}; // the element of X each output position must hold
		void *src, *dst;
		CU(cudaMalloc(&src, n));
		CU(cudaMalloc(&dst, n));
		CHECK(sc_cuda_fill(src, &xsrc, n, 1, 7, nullptr) == 0, "large fill");
		CHECK(sc_cuda_gather(dst, src, &tr, n, 1, nullptr) == 0, "large gather");
		unsigned long long *cnt, c = 1;
		sc_cuda_mismatch *first;
		CU(cudaMalloc(&cnt, sizeof *cnt));
		CU(cudaMalloc(&first, 8 * sizeof *first));
		CU(cudaMemset(cnt, 0, sizeof *cnt));
		sc_strided id = {1, {n}, {1}, 0};
		CHECK(sc_cuda_check(dst, &id, &xexp, n, 1, 7, cnt, first, 8, nullptr) == 0, "large check");
		CU(cudaMemcpy(&c, cnt, sizeof c, cudaMemcpyDeviceToHost));
		CHECK(c == 0, "large transpose (%lld elements): %llu mismatches", (long long)n, c);
		CU(cudaFree(src));
		CU(cudaFree(dst));
		CU(cudaFree(cnt));
		CU(cudaFree(first));
	}
	CU(cudaDeviceSynchronize());
	std::printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
