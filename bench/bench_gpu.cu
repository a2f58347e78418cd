// bench_gpu: the copy kernels that materialize views (sc_cuda_copy) against
// cudaMemcpyAsync device to device on the same bytes, in the same run, for
// the pack and unpack of the seed bugs' [s, b, h, d] bf16 tensors, and for
// a pure 2-D transpose (the tiled kernel). Prints each one's bandwidth and
// the ratio kernel/memcpy (target: >= 0.9 from 256 MiB up). Without a
// device it says so and exits 0.
#include <cstdio>

#include <cuda_runtime.h>

#include "sc_cuda_kernels.h"

static float time_ms(int reps, void (*fn)(void *), void *u)
{
	cudaEvent_t e0, e1;
	cudaEventCreate(&e0);
	cudaEventCreate(&e1);
	fn(u); // warm-up
	cudaEventRecord(e0);
	for (int i = 0; i < reps; i++)
		fn(u);
	cudaEventRecord(e1);
	cudaEventSynchronize(e1);
	float ms = 0;
	cudaEventElapsedTime(&ms, e0, e1);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	return ms / reps;
}

struct job {
	void *dst, *src;
	sc_strided dv, sv;
	int64_t n;
	size_t bytes;
};

static void run_copy(void *u)
{
	job *j = (job *)u;
	sc_cuda_copy(j->dst, &j->dv, j->src, &j->sv, j->n, 2, nullptr);
}
static void run_memcpy(void *u)
{
	job *j = (job *)u;
	cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice);
}

static void report(const char *name, job &j)
{
	const float tk = time_ms(10, run_copy, &j), tc = time_ms(10, run_memcpy, &j);
	const double gk = 2.0 * j.bytes / (tk * 1e-3) / 1e9, gc = 2.0 * j.bytes / (tc * 1e-3) / 1e9;
	std::printf("  %-44s %8.1f MiB: kernel %7.1f GB/s, memcpy %7.1f GB/s, ratio %.3f\n", name,
		    j.bytes / 1048576.0, gk, gc, gk / gc);
}

int main()
{
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		std::printf("bench_gpu: no CUDA device visible; nothing measured\n");
		return 0;
	}
	cudaDeviceProp prop;
	cudaGetDeviceProperties(&prop, 0);
	std::printf("bench_gpu: %s; bf16; GB/s counts bytes read plus written\n", prop.name);
	const int64_t shapes[][4] = {{4096, 1, 64, 128}, {16384, 1, 64, 128}, {32768, 1, 64, 128}, {32768, 4, 32, 128}};
	const int64_t P = 8;
	for (auto &sh : shapes) {
		const int64_t s = sh[0], b = sh[1], h = sh[2], d = sh[3], n = s * b * h * d;
		job j;
		j.n = n;
		j.bytes = (size_t)n * 2;
		if (cudaMalloc(&j.src, j.bytes) != cudaSuccess || cudaMalloc(&j.dst, j.bytes) != cudaSuccess) {
			std::printf("  [%lld, %lld, %lld, %lld]: out of memory\n", (long long)s, (long long)b,
				    (long long)h, (long long)d);
			return 1;
		}
		char name[128];
		// DeepSpeed seq->heads pack: reshape [s*b, P, h/P, d].transpose(0, 1).contiguous()
		j.sv = sc_strided{3, {P, s * b, h / P * d}, {h / P * d, h * d, 1}, 0};
		j.dv = sc_strided{3, {P, s * b, h / P * d}, {s * b * (h / P) * d, h / P * d, 1}, 0};
		std::snprintf(name, sizeof name, "pack [%lld,%lld,%lld,%lld] P=%lld", (long long)s, (long long)b,
			      (long long)h, (long long)d, (long long)P);
		report(name, j);
		// the unpack back: the inverse permutation
		j.sv = sc_strided{3, {s * b, P, h / P * d}, {h / P * d, s * b * (h / P) * d, 1}, 0};
		j.dv = sc_strided{3, {s * b, P, h / P * d}, {h * d, h / P * d, 1}, 0};
		std::snprintf(name, sizeof name, "unpack [%lld,%lld,%lld,%lld] P=%lld", (long long)s, (long long)b,
			      (long long)h, (long long)d, (long long)P);
		report(name, j);
		// a transpose with no contiguous rows: [s*b, h*d] -> [h*d, s*b] (tiled)
		j.sv = sc_strided{2, {h * d, s * b}, {1, h * d}, 0};
		j.dv = sc_strided{2, {h * d, s * b}, {s * b, 1}, 0};
		std::snprintf(name, sizeof name, "transpose [%lld, %lld] (tiled)", (long long)(s * b), (long long)(h * d));
		report(name, j);
		cudaFree(j.src);
		cudaFree(j.dst);
	}
	return 0;
}
