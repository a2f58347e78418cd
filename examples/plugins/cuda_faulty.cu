/* Example CUDA plugin with two faulty kernels, for the gate's device-side
 * checks. Both copy rank r's shard of X[n] to the output (device memory,
 * the rank's stream):
 *   cuda_overrun: the copy kernel's bound is off by one: it writes one
 *                 element past the end of the output (into its guard zone)
 *   cuda_hang:    the kernel never returns (a spin on a flag nobody sets):
 *                 the case is a timeout, and the GPU must be usable after */
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "shardcheck/plugin.h"

__global__ void copy_past(unsigned char *out, const unsigned char *in, int64_t n, int64_t es)
{
	for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k <= n; k += (int64_t)gridDim.x * blockDim.x)
		for (int64_t c = 0; c < es; c++) /* k == n: one element past the end */
			out[k * es + c] = k < n ? in[k * es + c] : 0x5a;
}

__global__ void spin(volatile int *flag)
{
	while (!*flag) {
	}
}

static cudaStream_t stream_of(const struct sc_plugin_call *call)
{
	if (call->native && SC_PLUGIN_HAS(call->native, struct sc_plugin_native, cuda_stream) && call->native->cuda_stream)
		return *(cudaStream_t *)call->native->cuda_stream;
	return 0;
}

static int64_t numel(const struct sc_plugin_tensor *t)
{
	int64_t n = 1;
	for (int d = 0; d < t->ndim; d++)
		n *= t->shape[d];
	return n;
}

static int overrun(const struct sc_plugin_call *call)
{
	if (call->memory != SC_PLUGIN_DEVICE)
		return 7;
	copy_past<<<1, 256, 0, stream_of(call)>>>((unsigned char *)call->output.data,
						   (const unsigned char *)call->input.data, numel(&call->input),
						   (int64_t)call->input.elem_size);
	return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

static int hang(const struct sc_plugin_call *call)
{
	if (call->memory != SC_PLUGIN_DEVICE)
		return 7;
	int *flag = NULL;
	if (cudaMallocAsync((void **)&flag, sizeof *flag, stream_of(call)) != cudaSuccess)
		return 1;
	cudaMemsetAsync(flag, 0, sizeof *flag, stream_of(call));
	spin<<<1, 1, 0, stream_of(call)>>>(flag);
	return cudaStreamSynchronize(stream_of(call)) == cudaSuccess ? 0 : 3; /* never returns */
}

static int add(struct sc_plugin_registry *reg, const char *name, sc_plugin_run_fn run)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = name;
	t.contract = "dims n\ninput shard n\noutput shard n\n";
	t.run = run;
	t.memory = SC_PLUGIN_MEMORY_DEVICE;
	return reg->add(reg, &t);
}

extern "C" int sc_plugin_register(struct sc_plugin_registry *reg)
{
	return add(reg, "cuda_overrun", overrun) || add(reg, "cuda_hang", hang);
}
