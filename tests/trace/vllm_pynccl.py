# vLLM's CUDA device communicator, which calls vLLM's own NCCL binding
# (PyNcclCommunicator) instead of torch.distributed, traced with
# shardcheck.shim.Communicator in the binding's place.
#
# Sources: vllm-project/vllm (Apache-2.0)
#   * vllm/distributed/device_communicators/cuda_communicator.py,
#     CudaCommunicator.reduce_scatter (PR #23648 fixed .reduce_scatterv the
#     same way; it is left out: the shim has no uneven reduce-scatter):
#       before: 00b5a01dd29b5e84c9434de139fbabd49e84efa6: the binding gets
#         `input_`, the tensor as it came, not `input_tensor`, the one
#         moved so that the scattered dim leads;
#       after:  089eca13b07108807534fe1e34d1b44173fc21f6, vllm PR #23648
#         ("fix pynccl reduce_scatter": "fails when scatter_dim != 0
#         because the input_tensor is incorrectly supplied").
#   * vllm/distributed/device_communicators/pynccl.py @ 9a4b60a4,
#     PyNcclCommunicator.reduce_scatter(output, input): ncclReduceScatter
#     of input's memory, output.numel() elements a rank; what
#     shardcheck.shim.Communicator.reduce_scatter does through
#     torch.distributed.reduce_scatter_tensor.
#   * vllm/distributed/parallel_state.py @ 0c175ae9295b575078961a68c4d3a2a838dce5ef,
#     GroupCoordinator.reduce_scatter: the world_size == 1 bypass and the
#     dim assert (the use_custom_op_call == False path).
#
# Method bodies are verbatim. Changes: the constructors are reduced to the
# attributes the methods read, and `self.pynccl_comm` is the shim (vLLM
# builds PyNcclCommunicator(group=self.cpu_group, device=self.device)).
import torch
import torch.distributed as dist

from shardcheck.shim import Communicator


class CudaCommunicatorBefore23648:
    """cuda_communicator.py @ 00b5a01 (constructor reduced)."""

    def __init__(self, group):
        self.world_size = dist.get_world_size(group)
        self.pynccl_comm = Communicator(group)

    def reduce_scatter(self, input_: torch.Tensor, dim: int = -1):
        world_size = self.world_size
        pynccl_comm = self.pynccl_comm
        assert pynccl_comm is not None
        if dim < 0:
            # Convert negative dim to positive.
            dim += input_.dim()

        # Note: This will produce an incorrect answer if we don't make
        # the input_tensor contiguous. Possible bug in reduce_scatter_tensor?
        input_tensor = input_.movedim(0, dim).contiguous()

        assert input_tensor.shape[0] % world_size == 0
        chunk_size = input_tensor.shape[0] // world_size
        output_shape = (chunk_size, ) + input_tensor.shape[1:]

        output = torch.empty(output_shape,
                             dtype=input_tensor.dtype,
                             device=input_tensor.device)

        pynccl_comm.reduce_scatter(output, input_)

        # Reshape before returning
        return output.movedim(0, dim).contiguous()


class CudaCommunicator23648(CudaCommunicatorBefore23648):
    """cuda_communicator.py @ 089eca1 (after PR #23648)."""

    def reduce_scatter(self, input_: torch.Tensor, dim: int = -1):
        world_size = self.world_size
        pynccl_comm = self.pynccl_comm
        assert pynccl_comm is not None
        if dim < 0:
            # Convert negative dim to positive.
            dim += input_.dim()

        # Note: This will produce an incorrect answer if we don't make
        # the input_tensor contiguous. Possible bug in reduce_scatter_tensor?
        input_tensor = input_.movedim(0, dim).contiguous()

        assert input_tensor.shape[0] % world_size == 0
        chunk_size = input_tensor.shape[0] // world_size
        output_shape = (chunk_size, ) + input_tensor.shape[1:]

        output = torch.empty(output_shape,
                             dtype=input_tensor.dtype,
                             device=input_tensor.device)

        pynccl_comm.reduce_scatter(output, input_tensor)

        # Reshape before returning
        return output.movedim(0, dim).contiguous()


class GroupCoordinator:
    """parallel_state.py @ 0c175ae (constructor reduced; the
    use_custom_op_call == False path), over a given device communicator."""

    def __init__(self, group, communicator):
        self.world_size = dist.get_world_size(group)
        self.device_communicator = communicator(group)
        self.use_custom_op_call = False

    def reduce_scatter(self, input_: torch.Tensor, dim: int = -1) -> torch.Tensor:
        world_size = self.world_size
        # Bypass the function if we are using only 1 GPU.
        if world_size == 1:
            return input_
        assert -input_.dim() <= dim < input_.dim(), (
            f"Invalid dim ({dim}) for input tensor with shape {input_.size()}"
        )

        if self.use_custom_op_call:
            return torch.ops.vllm.reduce_scatter(
                input_, dim, world_size, group_name=self.unique_name
            )
        else:
            return self._reduce_scatter_out_place(input_, dim)

    def _reduce_scatter_out_place(self, input_: torch.Tensor, dim: int) -> torch.Tensor:
        if self.device_communicator is None:
            raise ValueError("No device communicator found")
        return self.device_communicator.reduce_scatter(input_, dim)


def reduce_scatter_before_23648(x, dim, group):
    return GroupCoordinator(group, CudaCommunicatorBefore23648).reduce_scatter(x, dim)


def reduce_scatter_23648(x, dim, group):
    return GroupCoordinator(group, CudaCommunicator23648).reduce_scatter(x, dim)


# The row-parallel linear's output (a partial sum) reduce-scattered over the
# hidden dim (sequence parallel scatters dim 0 instead). Along dim 0 both
# versions are right (input_ is input_tensor there); along the last dim
# the binding got X unmoved: every rank from 2 on holds a flat piece of X
# read as [h/P, s].
CASES = [
    dict(name="vllm-pynccl-reduce-scatter-dim-last-before-23648",
         call="reduce_scatter_before_23648(X, -1, GROUP)",
         dims="s,h", input="partial sum", output="shard h",
         corpus="corpus/vllm/pynccl-reduce-scatter-dim-before-23648.sc", require=[]),
    dict(name="vllm-pynccl-reduce-scatter-dim-last-23648",
         call="reduce_scatter_23648(X, -1, GROUP)",
         dims="s,h", input="partial sum", output="shard h",
         corpus="corpus/vllm/pynccl-reduce-scatter-dim-23648.sc", require=[]),
    dict(name="vllm-pynccl-reduce-scatter-dim0-before-23648",
         call="reduce_scatter_before_23648(X, 0, GROUP)",
         dims="s,h", input="partial sum", output="shard s", expect="pass", require=[]),
]
