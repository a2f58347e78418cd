// bench_gpu: the strided pack (gather) kernel against cudaMemcpyAsync device
// to device on the same bytes, in the same run, for the transposes of the
// seed bugs' [s, b, h, d] tensors in bf16; prints the ratio of bandwidths.
// Without a device it says so and exits 0.
#include <cstdio>

#include <cuda_runtime.h>

#include "sc_cuda_kernels.h"

int main()
{
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		std::printf("bench_gpu: no CUDA device visible; nothing measured\n");
		return 0;
	}
	cudaDeviceProp prop;
	cudaGetDeviceProperties(&prop, 0);
	std::printf("bench_gpu: %s\n", prop.name);
	const int64_t shapes[][4] = {{4096, 1, 64, 128}, {16384, 1, 64, 128}, {32768, 1, 64, 128}, {8192, 4, 32, 128}};
	for (auto &sh : shapes) {
		const int64_t s = sh[0], b = sh[1], h = sh[2], d = sh[3], n = s * b * h * d;
		const size_t bytes = (size_t)n * 2;
		void *src, *dst;
		if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) {
			std::printf("  [%lld, %lld, %lld, %lld]: out of memory\n", (long long)s, (long long)b, (long long)h, (long long)d);
			continue;
		}
		// permute(2, 1, 0, 3): [h, b, s, d] read from the contiguous [s, b, h, d]
		sc_strided v = {4, {h, b, s, d}, {d, h * d, b * h * d, 1}, 0};
		cudaEvent_t e0, e1;
		cudaEventCreate(&e0);
		cudaEventCreate(&e1);
		float tk = 0, tc = 0;
		for (int rep = 0; rep < 2; rep++) { // the first round warms up
			cudaEventRecord(e0);
			for (int i = 0; i < 10; i++)
				sc_cuda_gather(dst, src, &v, n, 2, nullptr);
			cudaEventRecord(e1);
			cudaEventSynchronize(e1);
			cudaEventElapsedTime(&tk, e0, e1);
			cudaEventRecord(e0);
			for (int i = 0; i < 10; i++)
				cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
			cudaEventRecord(e1);
			cudaEventSynchronize(e1);
			cudaEventElapsedTime(&tc, e0, e1);
		}
		const double gk = 2.0 * bytes * 10 / (tk * 1e-3) / 1e9, gc = 2.0 * bytes * 10 / (tc * 1e-3) / 1e9;
		std::printf("  [%6lld, %lld, %3lld, %lld] bf16 %7.1f MiB: pack %7.1f GB/s, memcpy %7.1f GB/s, ratio %.3f\n",
			    (long long)s, (long long)b, (long long)h, (long long)d, bytes / 1048576.0, gk, gc, gk / gc);
		cudaFree(src);
		cudaFree(dst);
	}
	return 0;
}
