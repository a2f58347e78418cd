// GPU kernels against the CPU's arithmetic (sc_hd.h, sc_hd_dtype.h):
// strided gathers and copies of random views, fill in every mode and dtype,
// check with planted mismatches, reductions for every dtype and op, and a
// large case (more than 2^30 elements through the tiled transpose). Exits 77
// (skipped) without a device.
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
	// 1b. strided-to-strided copies: random source views into random
	// destination views of the same shape (tiled transposes among them)
	for (int trial = 0; trial < 300; trial++) {
		int64_t n, n2;
		sc_strided sv = random_view(&n);
		sc_strided dv = random_view(&n2);
		// same shape; the destination row-major, or (odd trials) laid out
		// in memory with neighbouring dims swapped: a permutation of the
		// same n elements either way
		dv.ndim = sv.ndim;
		int order[8];
		for (int d = 0; d < dv.ndim; d++)
			order[d] = d;
		if (trial % 2)
			for (int d = 0; d + 1 < dv.ndim; d += 2) {
				order[d] = d + 1;
				order[d + 1] = d;
			}
		int64_t s = 1;
		for (int k = dv.ndim - 1; k >= 0; k--) {
			const int d = order[k];
			dv.shape[d] = sv.shape[d];
			dv.stride[d] = s;
			s *= sv.shape[d];
		}
		std::vector<char> hit(n, 0);
		int64_t inside = 0;
		for (int64_t i = 0; i < n; i++) {
			const int64_t o = sc_strided_offset(&dv, i);
			inside += o >= 0 && o < n && !hit[o];
			if (o >= 0 && o < n)
				hit[o] = 1;
		}
		CHECK(inside == n, "copy trial %d: the destination view is a permutation of its %lld elements", trial,
		      (long long)n);
		if (inside != n)
			continue;
		const unsigned es = sizes[trial % 5];
		std::vector<unsigned char> src(n * es), want(n * es, 0), got(n * es, 0);
		for (auto &b : src)
			b = (unsigned char)rnd();
		for (int64_t i = 0; i < n; i++)
			std::memcpy(&want[sc_strided_offset(&dv, i) * es], &src[sc_strided_offset(&sv, i) * es], es);
		void *ds, *dd;
		CU(cudaMalloc(&ds, n * es));
		CU(cudaMalloc(&dd, n * es));
		CU(cudaMemcpy(ds, src.data(), n * es, cudaMemcpyHostToDevice));
		CU(cudaMemset(dd, 0, n * es));
		CHECK(sc_cuda_copy(dd, &dv, ds, &sv, n, es, nullptr) == 0, "launch");
		CU(cudaMemcpy(got.data(), dd, n * es, cudaMemcpyDeviceToHost));
		CHECK(got == want, "copy trial %d (esize %u, %d dims)", trial, es, sv.ndim);
		CU(cudaFree(ds));
		CU(cudaFree(dd));
	}
	// 2. fill against the host's bits in every mode and dtype; check with
	// a planted fault reports it, first index exact
	for (int dt = 0; dt < SC_NDTYPES; dt++)
		for (int mode = SC_FILL_PROV; mode <= SC_FILL_REDUCED; mode++) {
			int64_t n;
			sc_hd_fill f;
			std::memset(&f, 0, sizeof f);
			f.xmap = random_view(&n);
			f.seed = 42;
			f.mode = mode;
			f.dtype = dt;
			f.op = (int)(rnd() % SC_NREDOPS);
			f.rank = (int)(rnd() % 4);
			f.world = 1 + (int)(rnd() % 8);
			const unsigned es = sc_hd_fill_esize(&f);
			std::vector<unsigned char> got(n * es);
			void *d;
			CU(cudaMalloc(&d, n * es));
			CHECK(sc_cuda_fill(d, &f, n, nullptr) == 0, "fill launch");
			CU(cudaMemcpy(got.data(), d, n * es, cudaMemcpyDeviceToHost));
			int bad = 0;
			for (int64_t i = 0; i < n; i++) {
				uint64_t w = sc_hd_fill_bits(&f, (uint64_t)sc_strided_offset(&f.xmap, i)), g = 0;
				std::memcpy(&g, &got[i * es], es);
				bad += g != (es == 8 ? w : (w & ((1ULL << (8 * es)) - 1)));
			}
			CHECK(bad == 0, "fill dtype %d mode %d: %d elements differ", dt, mode, bad);
			sc_strided id = {1, {n}, {1}, 0};
			unsigned long long *dc, h[2];
			CU(cudaMalloc(&dc, 2 * sizeof *dc));
			unsigned long long init[2] = {0, ~0ULL};
			CU(cudaMemcpy(dc, init, sizeof init, cudaMemcpyHostToDevice));
			CHECK(sc_cuda_check(d, &id, &f, n, -1, dc, dc + 1, nullptr) == 0, "check launch");
			CU(cudaMemcpy(h, dc, sizeof h, cudaMemcpyDeviceToHost));
			CHECK(h[0] == 0, "a correct fill has %llu mismatches", h[0]);
			if (n > 1) { // plant one wrong element
				unsigned char junk[8];
				std::memcpy(junk, &got[(n / 2) * es], es);
				junk[0] ^= 0x5a;
				CU(cudaMemcpy((unsigned char *)d + (n / 2) * es, junk, es, cudaMemcpyHostToDevice));
				CU(cudaMemcpy(dc, init, sizeof init, cudaMemcpyHostToDevice));
				sc_cuda_check(d, &id, &f, n, -1, dc, dc + 1, nullptr);
				CU(cudaMemcpy(h, dc, sizeof h, cudaMemcpyDeviceToHost));
				CHECK(h[0] == 1 && h[1] == (unsigned long long)(n / 2), "planted fault: %llu mismatches, first at %llu",
				      h[0], h[1]);
			}
			CU(cudaFree(d));
			CU(cudaFree(dc));
		}
	// 3. reductions: every dtype and op against the host's sc_hd_reduce1
	for (int dt = 0; dt < SC_NDTYPES; dt++)
		for (int op = 0; op < SC_NREDOPS; op++) {
			const size_t n = 4099, es = sc_hd_dtype_size(dt);
			std::vector<unsigned char> a(n * es), b(n * es), got(n * es);
			for (size_t i = 0; i < n * es; i++) {
				a[i] = (unsigned char)rnd();
				b[i] = (unsigned char)rnd();
			}
			void *da, *db;
			CU(cudaMalloc(&da, n * es));
			CU(cudaMalloc(&db, n * es));
			CU(cudaMemcpy(da, a.data(), n * es, cudaMemcpyHostToDevice));
			CU(cudaMemcpy(db, b.data(), n * es, cudaMemcpyHostToDevice));
			CHECK(sc_cuda_reduce(da, db, n, dt, op, nullptr) == 0, "reduce launch");
			CU(cudaMemcpy(got.data(), da, n * es, cudaMemcpyDeviceToHost));
			int bad = 0;
			for (size_t i = 0; i < n; i++) {
				uint64_t x = 0, y = 0, g = 0;
				std::memcpy(&x, &a[i * es], es);
				std::memcpy(&y, &b[i * es], es);
				std::memcpy(&g, &got[i * es], es);
				uint64_t w = sc_hd_reduce1(dt, op, x, y);
				if (es < 8)
					w &= (1ULL << (8 * es)) - 1;
				bad += g != w;
			}
			CHECK(bad == 0, "reduce dtype %d op %d: %d of %zu differ from the host", dt, op, bad, n);
			CU(cudaFree(da));
			CU(cudaFree(db));
		}
	// 4. a large case: the transpose of a [3, 2^30/3 + 1001] u8 tensor,
	// more than 2^30 elements, through the tiled kernel, checked in place
	{
		const int64_t a = 3, b = ((int64_t)1 << 30) / 3 + 1001, n = a * b;
		sc_hd_fill f;
		std::memset(&f, 0, sizeof f);
		f.mode = SC_FILL_VALUE;
		f.dtype = SC_U8;
		f.seed = 7;
		f.xmap = sc_strided{1, {n}, {1}, 0};
		sc_strided sv = {2, {b, a}, {1, b}, 0}; // view [b, a] of the [a, b] source
		sc_strided dv = {2, {b, a}, {a, 1}, 0}; // contiguous [b, a]
		void *src, *dst;
		CU(cudaMalloc(&src, n));
		CU(cudaMalloc(&dst, n));
		CHECK(sc_cuda_fill(src, &f, n, nullptr) == 0, "large fill");
		CHECK(sc_cuda_copy(dst, &dv, src, &sv, n, 1, nullptr) == 0, "large copy");
		sc_hd_fill want = f;
		want.xmap = sv; // output element i holds X at the source view's offset
		unsigned long long *dc, h[2], init[2] = {0, ~0ULL};
		CU(cudaMalloc(&dc, 2 * sizeof *dc));
		CU(cudaMemcpy(dc, init, sizeof init, cudaMemcpyHostToDevice));
		sc_strided id = {1, {n}, {1}, 0};
		CHECK(sc_cuda_check(dst, &id, &want, n, -1, dc, dc + 1, nullptr) == 0, "large check");
		CU(cudaMemcpy(h, dc, sizeof h, cudaMemcpyDeviceToHost));
		CHECK(h[0] == 0, "large transpose (%lld elements): %llu mismatches", (long long)n, h[0]);
		CU(cudaFree(src));
		CU(cudaFree(dst));
		CU(cudaFree(dc));
	}
	CU(cudaDeviceSynchronize());
	std::printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
