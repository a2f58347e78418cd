/* Example CUDA plugin with two faulty kernels, for the gate's device-side
 * checks. Both copy rank r's shard of X[n] to the output (device memory,
 * the rank's stream):
 *   cuda_overrun: the copy kernel's bound is off by one: it writes one
 *                 element past the end of the output (into its guard zone)
 *   cuda_hang:    the kernel never returns (a spin on a flag nobody sets;
 *                 the transform returns after the launch): the case is a
 *                 timeout, and the GPU must be usable after
 *   cuda_illegal: right for shards of one element; from two on, the kernel
 *                 writes far outside any allocation (an illegal address:
 *                 a sticky error, the process's CUDA context is lost)
 *   cuda_assert:  right for shards of up to three elements; from four on,
 *                 an assert in the kernel fails (also sticky)
 *   cuda_plan:    a plan cache keyed on the element count, not the dtype:
 *                 right on its first call in a process, and on a later call
 *                 with the same count and another dtype it copies the
 *                 bytes planned for the first (wrong only after a call of
 *                 another dtype) */
#undef NDEBUG /* the assert in kernel check_small stays */
#include <assert.h>
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

/* out = in, es bytes per element; from element 1 on with wild set, the
 * writes go 2^40 bytes past the output */
__global__ void copy(unsigned char *out, const unsigned char *in, int64_t n, int64_t es, int wild)
{
	for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x)
		for (int64_t c = 0; c < es; c++)
			out[k * es + c + (wild && k > 0 ? ((int64_t)1 << 40) : 0)] = in[k * es + c];
}

__global__ void check_small(unsigned char *out, const unsigned char *in, int64_t n, int64_t es)
{
	for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
		assert(k < 3);
		for (int64_t c = 0; c < es; c++)
			out[k * es + c] = in[k * es + c];
	}
}

static cudaStream_t stream_of(const struct sc_plugin_call *call)
{
	if (call->native && SC_PLUGIN_HAS(call->native, struct sc_plugin_native, cuda_stream) && call->native->cuda_stream)
		return *(cudaStream_t *)call->native->cuda_stream;
	return 0;
}

static int launched(void) { return cudaGetLastError() == cudaSuccess ? 0 : 3; }

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
	return launched(); /* returns; the kernel never does */
}

static int illegal(const struct sc_plugin_call *call)
{
	if (call->memory != SC_PLUGIN_DEVICE)
		return 7;
	copy<<<1, 256, 0, stream_of(call)>>>((unsigned char *)call->output.data, (const unsigned char *)call->input.data,
					     numel(&call->input), (int64_t)call->input.elem_size, 1);
	return launched();
}

static int asserts(const struct sc_plugin_call *call)
{
	if (call->memory != SC_PLUGIN_DEVICE)
		return 7;
	check_small<<<1, 256, 0, stream_of(call)>>>((unsigned char *)call->output.data,
						    (const unsigned char *)call->input.data, numel(&call->input),
						    (int64_t)call->input.elem_size);
	return launched();
}

/* The plan of the last call, keyed on the element count alone. */
static int64_t plan_numel = -1, plan_es;

static int plan(const struct sc_plugin_call *call)
{
	if (call->memory != SC_PLUGIN_DEVICE)
		return 7;
	const int64_t n = numel(&call->input);
	if (n != plan_numel) { /* the dtype is not in the key */
		plan_numel = n;
		plan_es = (int64_t)call->input.elem_size;
	}
	copy<<<1, 256, 0, stream_of(call)>>>((unsigned char *)call->output.data, (const unsigned char *)call->input.data,
					     n * plan_es, 1, 0); /* the planned bytes */
	return launched();
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
	return add(reg, "cuda_overrun", overrun) || add(reg, "cuda_hang", hang) || add(reg, "cuda_illegal", illegal) ||
	       add(reg, "cuda_assert", asserts) || add(reg, "cuda_plan", plan);
}
