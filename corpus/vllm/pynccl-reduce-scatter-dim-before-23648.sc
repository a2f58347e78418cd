# vLLM's CUDA communicator reduce-scatters through its own NCCL binding,
# PyNcclCommunicator, and along a dim other than 0 handed it the wrong
# tensor. vllm-project/vllm @ 00b5a01dd29b5e84c9434de139fbabd49e84efa6,
# vllm/distributed/device_communicators/cuda_communicator.py,
# CudaCommunicator.reduce_scatter:
#     input_tensor = input_.movedim(0, dim).contiguous()
#     ...
#     output = torch.empty(output_shape, ...)   # (chunk_size,) + input_tensor.shape[1:]
#     pynccl_comm.reduce_scatter(output, input_)
#     return output.movedim(0, dim).contiguous()
# PyNcclCommunicator.reduce_scatter(output, input) (pynccl.py @ 9a4b60a4)
# is ncclReduceScatter of input's memory: rank r gets the r-th run of
# output.numel() elements. The binding got `input_`, the tensor before the
# scattered dim was moved to the front, so each rank reads a run of rows of
# X as its [h/P, s] block. Fixed by vLLM PR #23648 ("fix pynccl
# reduce_scatter"; corpus/vllm/pynccl-reduce-scatter-dim-23648.sc).
# GroupCoordinator.reduce_scatter (parallel_state.py @ 0c175ae9) returns
# the input at world 1: the spec is for P >= 2.
# Confirmed on gloo: tests/trace/vllm_pynccl.py runs these methods through
# shardcheck.shim.Communicator in the binding's place; the traced spec
# and this one give the same verdict and minimal case.
# Minimal counterexample: world 2, s=2, h=2 (s and h swapped).
pipeline vllm-pynccl-reduce-scatter-dim-before-23648
dims s h
require P >= 2
input partial sum
output shard h
expect fail
# (input_tensor = input_.movedim(0, dim).contiguous() sizes the output only)
reshape [-1]              # pynccl_comm.reduce_scatter(output, input_): input_'s memory ...
reduce_scatter_tensor sum # ... reduced, rank r keeps the r-th run of h*s/P elements
view [h/P, s]             # ... written into output, (chunk_size,) + input_tensor.shape[1:]
movedim 0 1               # output.movedim(0, dim).contiguous()
contiguous
