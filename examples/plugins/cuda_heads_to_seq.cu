/* Example CUDA plugin: the Ulysses heads -> sequence all-to-all as the fused
 * code a framework ships: the collectives table's all_to_all on device
 * memory, then an unpack kernel. It accepts device memory only
 * (SC_PLUGIN_MEMORY_DEVICE): its buffers are on the rank's GPU and its
 * work is queued on the rank's stream (native->cuda_stream).
 *
 * Rank r holds X[:, :, r*h/P:(r+1)*h/P, :] ([s, b, h/P, d]) and must end
 * with X[r*s/P:(r+1)*s/P] ([s/P, b, h, d]). The input's rows already form P
 * contiguous chunks of s/P rows, so it is sent as is; the received blocks
 * [P, s/P, b, h/P, d] are unpacked so that source rank q's heads land at
 * [q*h/P, (q+1)*h/P) (DeepSpeed's permute(1, 2, 0, 3, 4) after PR 5664).
 *
 * Built a second time with -DSC_EXAMPLE_INDEX_BUG, the unpack lays the
 * blocks out as DeepSpeed's transpose(0, 1) before PR 5664 did: [s/P, P, b,
 * h/P, d] read as [s/P, b, h, d], batch and heads interleaved. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "shardcheck/plugin.h"

/* out[i, bb, q*hp + hh, :] = recv[q, i, bb, hh, :], one thread per element,
 * es bytes each (any dtype) */
__global__ void unpack(unsigned char *out, const unsigned char *recv, int64_t P, int64_t sp, int64_t b, int64_t hp,
		       int64_t d, int64_t es)
{
	const int64_t n = P * sp * b * hp * d;
	for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
		int64_t rest = k;
		const int64_t e = rest % d;
		rest /= d;
		const int64_t hh = rest % hp;
		rest /= hp;
		const int64_t bb = rest % b;
		rest /= b;
		const int64_t i = rest % sp;
		const int64_t q = rest / sp;
#ifndef SC_EXAMPLE_INDEX_BUG
		const int64_t at = ((i * b + bb) * (hp * P) + q * hp + hh) * d + e;
#else
		const int64_t at = (((i * P + q) * b + bb) * hp + hh) * d + e;
#endif
		for (int64_t c = 0; c < es; c++)
			out[at * es + c] = recv[k * es + c];
	}
}

static int run(const struct sc_plugin_call *call)
{
	if (call->memory != SC_PLUGIN_DEVICE)
		return 7; /* shardcheck gives device memory to a device-only transform */
	cudaStream_t stream = 0;
	if (call->native && SC_PLUGIN_HAS(call->native, struct sc_plugin_native, cuda_stream) && call->native->cuda_stream)
		stream = *(cudaStream_t *)call->native->cuda_stream;
	const int64_t P = call->world, es = (int64_t)call->input.elem_size;
	const int64_t s = call->input.shape[0], b = call->input.shape[1], hp = call->input.shape[2],
		      d = call->input.shape[3];
	const size_t bytes = (size_t)(s * b * hp * d * es);
	void *recv = NULL;
	if (cudaMallocAsync(&recv, bytes ? bytes : 1, stream) != cudaSuccess)
		return 1;
	/* the table's collectives are ordered after the work queued on the stream */
	if (call->coll->all_to_all(call->coll, call->input.data, recv, bytes / (size_t)P) != 0) {
		cudaFreeAsync(recv, stream);
		return 2;
	}
	const int64_t n = s * b * hp * d;
	if (n > 0)
		unpack<<<(unsigned)((n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024), 256, 0, stream>>>(
			(unsigned char *)call->output.data, (const unsigned char *)recv, P, s / P, b, hp, d, es);
	cudaFreeAsync(recv, stream);
	return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

extern "C" int sc_plugin_register(struct sc_plugin_registry *reg)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = "cuda_heads_to_seq";
	t.contract = "dims s b h d\ninput shard h\noutput shard s\n";
	t.run = run;
	t.description = "Ulysses heads -> sequence: all_to_all on device memory, then an unpack kernel";
	t.memory = SC_PLUGIN_MEMORY_DEVICE;
	return reg->add(reg, &t);
}
