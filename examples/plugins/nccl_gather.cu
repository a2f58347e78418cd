/* Example plugin that calls NCCL itself, through the communicator the
 * backend hands it (native->nccl_comm, an ncclComm_t*): an all-gather of
 * rank r's shard of X[n] written as grouped point-to-point sends and
 * receives, every rank's shard to every rank, each received into its
 * place of the output. Device memory only, on the rank's stream. */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdint.h>
#include <string.h>

#include "shardcheck/plugin.h"

static int run(const struct sc_plugin_call *call)
{
	if (call->memory != SC_PLUGIN_DEVICE || !call->native ||
	    !SC_PLUGIN_HAS(call->native, struct sc_plugin_native, cuda_stream) || !call->native->nccl_comm)
		return 7; /* needs the nccl backend's communicator */
	ncclComm_t comm = *(ncclComm_t *)call->native->nccl_comm;
	cudaStream_t stream = call->native->cuda_stream ? *(cudaStream_t *)call->native->cuda_stream : 0;
	size_t bytes = call->input.elem_size;
	for (int d = 0; d < call->input.ndim; d++)
		bytes *= (size_t)call->input.shape[d];
	if (ncclGroupStart() != ncclSuccess)
		return 2;
	ncclResult_t rc = ncclSuccess;
	for (int q = 0; q < call->world && rc == ncclSuccess; q++) {
		rc = ncclSend(call->input.data, bytes, ncclUint8, q, comm, stream);
		if (rc == ncclSuccess)
			rc = ncclRecv((unsigned char *)call->output.data + (size_t)q * bytes, bytes, ncclUint8, q, comm, stream);
	}
	if (ncclGroupEnd() != ncclSuccess || rc != ncclSuccess)
		return 3;
	return 0;
}

extern "C" int sc_plugin_register(struct sc_plugin_registry *reg)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = "nccl_gather";
	t.contract = "dims n\ninput shard n\noutput replicate\n";
	t.run = run;
	t.description = "all-gather as grouped ncclSend/ncclRecv on the backend's communicator";
	t.memory = SC_PLUGIN_MEMORY_DEVICE;
	return reg->add(reg, &t);
}
