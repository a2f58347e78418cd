# vLLM's CUDA communicator reduce-scattering along any dim through its own
# NCCL binding, as fixed by vLLM PR #23648 ("fix pynccl reduce_scatter"):
# vllm-project/vllm @ 089eca13b07108807534fe1e34d1b44173fc21f6,
# vllm/distributed/device_communicators/cuda_communicator.py,
# CudaCommunicator.reduce_scatter:
#     input_tensor = input_.movedim(0, dim).contiguous()
#     ...
#     pynccl_comm.reduce_scatter(output, input_tensor)
#     return output.movedim(0, dim).contiguous()
# The binding now gets the tensor whose leading dim is the scattered one:
# rank r's run of its memory is rank r's rows of it. The buggy version is
# corpus/vllm/pynccl-reduce-scatter-dim-before-23648.sc. World 1 bypasses
# the collective (GroupCoordinator.reduce_scatter): the spec is for P >= 2.
# Confirmed on gloo: tests/trace/vllm_pynccl.py.
pipeline vllm-pynccl-reduce-scatter-dim-23648
dims s h
require P >= 2
input partial sum
output shard h
expect pass
movedim 0 1               # input_tensor = input_.movedim(0, dim).contiguous()
contiguous
reduce_scatter_tensor sum # pynccl_comm.reduce_scatter(output, input_tensor)
movedim 0 1               # output.movedim(0, dim).contiguous()
contiguous
