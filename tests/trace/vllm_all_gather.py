# Transcription of vLLM's tensor-parallel all-gather along any dim (and the
# matching reduce-scatter), for `shardcheck trace`.
#
# Sources: vllm-project/vllm
#   * older, stack-style buffer [world_size, *input_size]:
#     45caa25f77bd4c1976aafce9eb86c3dccec422a0,
#     vllm/model_executor/parallel_utils/communication_op.py L29-54,
#     tensor_model_parallel_all_gather
#   * current, concat-style buffer [world_size * input_size[0], ...] then a
#     reshape to [world_size, *input_size] (pytorch/pytorch#138795):
#     a12c7345ebb61f948bc6565a4f4e5a527c1de742,
#     vllm/distributed/device_communicators/base_device_communicator.py
#       L115-139  DeviceCommunicatorBase.all_gather
#       L149-181  DeviceCommunicatorBase.reduce_scatter
#     reached from GroupCoordinator.all_gather / .reduce_scatter and
#     _all_gather_out_place / _reduce_scatter_out_place in
#     vllm/distributed/parallel_state.py (0c175ae9295b575078961a68c4d3a2a838dce5ef;
#     the world_size == 1 bypass and the dim assert live there).
#
# Function and method bodies are verbatim. Changes:
#   * tensor_model_parallel_all_gather: get_tensor_model_parallel_world_size()
#     -> dist.get_world_size(group), get_tensor_model_parallel_group() -> group
#     (a new `group` parameter).
#   * DeviceCommunicatorBase / GroupCoordinator: __init__ is reduced to the
#     attributes the methods read (world_size, device_group, ...), taken from
#     the process group passed in; GroupCoordinator takes the
#     `use_custom_op_call == False` path (torch.ops.vllm.all_gather is a
#     registered custom op that calls the same _all_gather_out_place).
import torch
import torch.distributed as dist


# communication_op.py @ 45caa25 L29-54
def tensor_model_parallel_all_gather(input_: torch.Tensor,
                                     dim: int = -1, group=None) -> torch.Tensor:
    """All-gather the input tensor across model parallel group."""
    world_size = dist.get_world_size(group)
    # Bypass the function if we are using only 1 GPU.
    if world_size == 1:
        return input_
    assert -input_.dim() <= dim < input_.dim(), (
        f"Invalid dim ({dim}) for input tensor with shape {input_.size()}")
    if dim < 0:
        # Convert negative dim to positive.
        dim += input_.dim()
    input_size = input_.size()
    # Allocate output tensor.
    output_tensor = torch.empty((world_size, ) + input_size,
                                dtype=input_.dtype,
                                device=input_.device)
    # All-gather.
    torch.distributed.all_gather_into_tensor(
        output_tensor, input_, group=group)
    # Reshape
    output_tensor = output_tensor.movedim(0, dim)
    output_tensor = output_tensor.reshape(input_size[:dim] +
                                          (world_size * input_size[dim], ) +
                                          input_size[dim + 1:])
    return output_tensor


class DeviceCommunicatorBase:
    """base_device_communicator.py @ a12c734 (constructor reduced)."""

    def __init__(self, group):
        self.device_group = group
        self.rank = dist.get_rank(group)
        self.world_size = dist.get_world_size(group)
        self.rank_in_group = dist.get_rank(group)

    # L115-139
    def all_gather(self, input_: torch.Tensor, dim: int = -1) -> torch.Tensor:
        if dim < 0:
            # Convert negative dim to positive.
            dim += input_.dim()
        input_size = input_.size()
        # NOTE: we have to use concat-style all-gather here,
        # stack-style all-gather has compatibility issues with
        # torch.compile . see https://github.com/pytorch/pytorch/issues/138795
        output_size = (input_size[0] * self.world_size, ) + input_size[1:]
        # Allocate output tensor.
        output_tensor = torch.empty(output_size,
                                    dtype=input_.dtype,
                                    device=input_.device)
        # All-gather.
        dist.all_gather_into_tensor(output_tensor,
                                    input_,
                                    group=self.device_group)
        # Reshape
        output_tensor = output_tensor.reshape((self.world_size, ) + input_size)
        output_tensor = output_tensor.movedim(0, dim)
        output_tensor = output_tensor.reshape(input_size[:dim] +
                                              (self.world_size *
                                               input_size[dim], ) +
                                              input_size[dim + 1:])
        return output_tensor

    # L149-181
    def reduce_scatter(self,
                       input_: torch.Tensor,
                       dim: int = -1) -> torch.Tensor:
        world_size = self.world_size
        # Bypass the function if we are using only 1 GPU.
        if world_size == 1:
            return input_
        assert -input_.dim() <= dim < input_.dim(), (
            f"Invalid dim ({dim}) for input tensor with shape {input_.size()}")

        if dim < 0:
            # Convert negative dim to positive.
            dim += input_.dim()

        # Note: This will produce an incorrect answer if we don't make
        # the input_tensor contiguous. Possible bug in reduce_scatter_tensor?
        input_tensor = input_.movedim(0, dim).contiguous()

        assert input_tensor.shape[0] % world_size == 0
        chunk_size = input_tensor.shape[0] // world_size
        output_shape = (chunk_size, ) + input_tensor.shape[1:]

        output_tensor = torch.empty(output_shape,
                                    dtype=input_tensor.dtype,
                                    device=input_tensor.device)

        # Perform reduce-scatter operation
        torch.distributed.reduce_scatter_tensor(output_tensor,
                                                input_tensor,
                                                group=self.device_group)

        # Reshape before returning
        return output_tensor.movedim(0, dim).contiguous()


class GroupCoordinator:
    """parallel_state.py @ 0c175ae (constructor reduced; the
    use_custom_op_call == False path)."""

    def __init__(self, group):
        self.world_size = dist.get_world_size(group)
        self.device_communicator = DeviceCommunicatorBase(group)
        self.use_custom_op_call = False

    def all_gather(self, input_: torch.Tensor, dim: int = -1) -> torch.Tensor:
        world_size = self.world_size
        # Bypass the function if we are using only 1 GPU.
        if world_size == 1:
            return input_
        assert -input_.dim() <= dim < input_.dim(), (
            f"Invalid dim ({dim}) for input tensor with shape {input_.size()}"
        )

        if self.use_custom_op_call:
            return torch.ops.vllm.all_gather(
                input_, dim, world_size, group_name=self.unique_name
            )
        else:
            return self._all_gather_out_place(input_, dim)

    def _all_gather_out_place(self, input_: torch.Tensor, dim: int) -> torch.Tensor:
        if self.device_communicator is None:
            raise ValueError("No device communicator found")
        return self.device_communicator.all_gather(input_, dim)

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


# Cases for `shardcheck trace` (X: the rank's local input, GROUP: the world).
# No corpus spec covers these (corpus/vllm/ has only the kv-head specs).
CASES = [
    dict(name="vllm_all_gather_stack_dim_last",
         call="tensor_model_parallel_all_gather(X, -1, group=GROUP)",
         dims="b,s,h", input="shard h", output="replicate",
         corpus=None, expect="pass", require=[]),
    dict(name="vllm_all_gather_stack_dim1",
         call="tensor_model_parallel_all_gather(X, 1, group=GROUP)",
         dims="b,s,h", input="shard s", output="replicate",
         corpus=None, expect="pass", require=[]),
    dict(name="vllm_all_gather_stack_dim0",
         call="tensor_model_parallel_all_gather(X, 0, group=GROUP)",
         dims="b,s,h", input="shard b", output="replicate",
         corpus=None, expect="pass", require=[]),
    dict(name="vllm_all_gather_concat_dim_last",
         call="GroupCoordinator(GROUP).all_gather(X, -1)",
         dims="b,s,h", input="shard h", output="replicate",
         corpus=None, expect="pass", require=[]),
    dict(name="vllm_all_gather_concat_dim1",
         call="GroupCoordinator(GROUP).all_gather(X, 1)",
         dims="b,s,h", input="shard s", output="replicate",
         corpus=None, expect="pass", require=[]),
    # reduce_scatter's movedim(0, dim) is only its own inverse's mirror for
    # dim <= 1: correct for [t, h] (dim=-1 is a transpose) and dim=1 of
    # [b, s, h], wrong for dim=-1 of [b, s, h] (vllm-project/vllm issue
    # #30546, PR #30610: movedim(dim, 0) was meant). Its assert checks the
    # size of the dim movedim brings to the front (s for [b, s, h], dim=-1),
    # hence `s % P == 0` as well.
    dict(name="vllm_reduce_scatter_2d_dim_last",
         call="GroupCoordinator(GROUP).reduce_scatter(X, -1)",
         dims="t,h", input="partial sum", output="shard h",
         corpus=None, expect="pass", require=["h % P == 0"]),
    dict(name="vllm_reduce_scatter_3d_dim1",
         call="GroupCoordinator(GROUP).reduce_scatter(X, 1)",
         dims="b,s,h", input="partial sum", output="shard s",
         corpus=None, expect="pass", require=["s % P == 0"]),
    dict(name="vllm_reduce_scatter_3d_dim_last",
         call="GroupCoordinator(GROUP).reduce_scatter(X, -1)",
         dims="b,s,h", input="partial sum", output="shard h",
         corpus=None, expect="fail", require=["h % P == 0", "s % P == 0"]),
]
