# PyTorch DTensor Shard(0) -> Replicate over an uneven (torch.chunk) shard,
# and FSDP2's dim-0 sharding of a parameter and the all-gather that rebuilds
# it, transcribed from the original source of torch 2.7.0
# (pytorch/pytorch @ 134179474539648ba7dee1317959529fbd0e7f89, the
# git_version of the torch==2.7.0 wheel, whose torch/ tree was read).
#
# DTensor (corpus/pytorch/dtensor-shard0-to-replicate.sc):
#   torch/distributed/tensor/placement_types.py L234-268,
#     Shard._to_replicate_tensor: copied line for line (as a method of the
#     Shard stand-in below, `self.dim` the shard dim)
#   torch/distributed/tensor/_collective_utils.py L179-184 pad_tensor,
#     L187-194 unpad_tensor: copied line for line
#   torch/distributed/_functional_collectives.py L180-216 all_gather_tensor:
#     copied, with torch.ops._c10d_functional.all_gather_into_tensor (the
#     functional collective, which the tracer does not simulate) written as
#     dist.all_gather_into_tensor into a new [group_size * d0, ...] buffer,
#     which is what it returns, and the group name resolution
#     (_resolve_group_name, c10d._get_group_size_by_name) as the group itself.
#   DeviceMesh: a one-dim stand-in (_Mesh1D) whose size(mesh_dim) and
#     get_group(mesh_dim) are the tracer's GROUP.
#   current_logical_shape is DTensor metadata (the global shape, [s, h]):
#     the caller must hand it in. The tracer's --call sees only X (the local
#     shard), GROUP and GROUPS, and a chunk shard's local shape does not give
#     the global size (s = 5 and s = 6 both give rank 0 two rows at P = 3), so
#     shard0_to_replicate takes it as a parameter that --call cannot fill:
#     the case below passes None, and the trace stops there (reported).
#
# FSDP2 (corpus/fsdp/fsdp2-uneven-dim0-all-gather.sc), one parameter, dim-0
# shard, param_dtype None, no CPU offload, no fsdp_pre_all_gather extension:
#   torch/distributed/fsdp/_fully_shard/_fsdp_common.py L121-127 _chunk_with_empty
#   _fsdp_param.py L353-398 FSDPParam._init_sharded_param (the lines below)
#   _fsdp_param.py L687-754 all_gather_inputs (this path: [self._sharded_param_data])
#   _fsdp_collectives.py L73-91 all_gather_copy_in_cuda,
#     L137-188 foreach_all_gather (one parameter), L244-308
#     foreach_all_gather_copy_out (one parameter, dim 0: no chunk-cat),
#     L105-113 split_with_sizes_copy
#   _fsdp_param.py L447-460 init_all_gather_outputs, L509-519 init_unsharded_param
#   torch/_prims_common/__init__.py L1628-1651 make_contiguous_strides_for
#   These are copied statement for statement into fsdp2_shard_and_all_gather
#   (the FSDPParam fields become locals; streams, events, version-counter and
#   compile guards dropped). The mesh info's shard rank / size are the
#   tracer's GROUP's.
from dataclasses import dataclass

import torch
import torch.distributed as dist


# torch/distributed/tensor/_collective_utils.py L179-184 @ 2.7.0
def pad_tensor(tensor: torch.Tensor, pad_dim: int, pad_size: int) -> torch.Tensor:
    if pad_size == 0:
        return tensor
    pad = [0, 0] * (tensor.ndim - pad_dim)
    pad[-1] = pad_size
    return torch.nn.functional.pad(tensor, pad)


# torch/distributed/tensor/_collective_utils.py L187-194 @ 2.7.0
def unpad_tensor(tensor: torch.Tensor, pad_dim: int, pad_size: int) -> torch.Tensor:
    if pad_size == 0:
        return tensor
    return tensor.narrow(
        pad_dim,
        start=0,
        length=tensor.size(pad_dim) - pad_size,
    )


class _Mesh1D:
    """A one-dim DeviceMesh as _to_replicate_tensor and all_gather_tensor use it."""

    def __init__(self, group):
        self.group = group

    def size(self, mesh_dim=None):
        return dist.get_world_size(self.group)

    def get_group(self, mesh_dim=None):
        return self.group


class funcol:
    """torch.distributed._functional_collectives, the function used."""

    # torch/distributed/_functional_collectives.py L180-216 @ 2.7.0
    @staticmethod
    def all_gather_tensor(self, gather_dim, group, tag=""):
        assert self.is_contiguous()
        mesh, mesh_dim = group                                   # _resolve_group_name(group, tag)
        group = mesh.get_group(mesh_dim)
        group_size = dist.get_world_size(group)                  # c10d._get_group_size_by_name(group_name)
        # torch.ops._c10d_functional.all_gather_into_tensor(self, group_size, group_name):
        tensor = self.new_empty((group_size * self.size(0),) + tuple(self.shape[1:]))
        dist.all_gather_into_tensor(tensor, self, group=group)
        res = tensor
        # TODO this should be done inside AsyncCollectiveTensor to delay the wait() call
        if gather_dim != 0:
            # torch.cat access the data so we already need to wait here, first do wait
            # and then chunk + cat avoid us going through ACT dispatching logic again
            res = torch.cat(torch.chunk(res, group_size, dim=0), dim=gather_dim)
        return res


@dataclass(frozen=True)
class Shard:
    dim: int

    # torch/distributed/tensor/placement_types.py L234-268 @ 2.7.0
    def _to_replicate_tensor(
        self,
        local_tensor: torch.Tensor,
        mesh,
        mesh_dim: int,
        current_logical_shape: list,
    ) -> torch.Tensor:
        """
        This function all_gather all shards and return a tensor that
        is replicated on the previously sharded mesh dimension
        """
        num_chunks = mesh.size(mesh_dim=mesh_dim)
        # check if it's uneven, so we need to pad input tensor before all_gather
        local_shape = list(local_tensor.size())

        logical_dim_size = current_logical_shape[self.dim]
        is_padded = logical_dim_size % num_chunks != 0

        if is_padded:
            full_chunk_size = (logical_dim_size + num_chunks - 1) // num_chunks
            pad_size = full_chunk_size - local_shape[self.dim]
            local_tensor = pad_tensor(local_tensor, self.dim, pad_size)

        if not local_tensor.is_contiguous():
            local_tensor = local_tensor.contiguous()

        result = funcol.all_gather_tensor(
            local_tensor,
            gather_dim=self.dim,
            group=(mesh, mesh_dim),
        )
        if is_padded:
            unpad_size = full_chunk_size * num_chunks - logical_dim_size  # type: ignore[possibly-undefined]
            result = unpad_tensor(result, self.dim, unpad_size)
        return result


# The redistribute of one Shard(0) mesh dim to Replicate
# (torch/distributed/tensor/_redistribute.py, redistribute_local_tensor:
#  new_local_tensor = current_placement._to_replicate_tensor(
#      local_tensor, device_mesh, i, transform_info.logical_shape))
def shard0_to_replicate(local_tensor, group, logical_shape):
    return Shard(0)._to_replicate_tensor(local_tensor, _Mesh1D(group), 0, logical_shape)


# torch/distributed/fsdp/_fully_shard/_fsdp_common.py L121-127 @ 2.7.0
def _chunk_with_empty(
    tensor: torch.Tensor, num_chunks: int, dim: int
) -> list:
    chunks = list(torch.chunk(tensor, num_chunks, dim=dim))
    while len(chunks) < num_chunks:
        chunks.append(chunks[0].new_empty(0))
    return chunks


# torch/_prims_common/__init__.py L1628-1651 @ 2.7.0 (row-major path; no nested ints)
def make_contiguous_strides_for(shape, row_major: bool = True):
    if not shape:
        return ()
    multiplier = 1
    strides = []
    for l in reversed(shape):
        strides.append(multiplier)
        multiplier *= max(l, 1)
    result = tuple(reversed(strides))
    return result


def fsdp2_shard_and_all_gather(param_data, group):
    # _fsdp_param.py L353-398, FSDPParam._init_sharded_param
    shard_dim = 0
    _orig_size = param_data.size()
    _contiguous_orig_stride = make_contiguous_strides_for(_orig_size)
    shard_rank = dist.get_rank(group)                  # self.mesh_info.shard_mesh_rank
    shard_world_size = dist.get_world_size(group)      # self.mesh_info.shard_mesh_size
    chunks = _chunk_with_empty(param_data, shard_world_size, dim=shard_dim)
    sharded_param = chunks[shard_rank]
    padded_sharded_size = chunks[0].size()  # 0th always padded
    # Pre-pad the sharded parameter to avoid padding before all-gather
    padded_sharded_param = param_data.new_zeros(padded_sharded_size)
    if sharded_param.numel() > 0:
        padded_sharded_param.narrow(
            dim=shard_dim, start=0, length=sharded_param.size(shard_dim)
        ).copy_(sharded_param)
    _sharded_param_data = padded_sharded_param.view(-1)

    # _fsdp_param.py L687-754, all_gather_inputs (SHARDED, no extension, no offload)
    all_gather_inputs = [_sharded_param_data]

    # _fsdp_collectives.py L137-188, foreach_all_gather
    world_size, rank = dist.get_world_size(group), dist.get_rank(group)
    inp_split_sizes = [t.numel() for t in all_gather_inputs]
    all_gather_input_numel = sum(inp_split_sizes)
    # torch.ops.fsdp.all_gather_copy_in -> all_gather_copy_in_cuda, L73-91
    dtype, device = param_data.dtype, param_data.device
    all_gather_output = torch.empty(
        (all_gather_input_numel * world_size,), dtype=dtype, device=device
    )
    all_gather_input = all_gather_output.narrow(
        0, all_gather_input_numel * rank, all_gather_input_numel
    )
    foreach_copy_dsts = torch.split(all_gather_input, inp_split_sizes)
    with torch.no_grad():
        torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)
    all_gather_work = dist.all_gather_into_tensor(
        output_tensor=all_gather_output,
        input_tensor=all_gather_input,
        group=group,
        async_op=False,
    )

    # _fsdp_collectives.py L244-308, foreach_all_gather_copy_out (one parameter, dim 0)
    # init_all_gather_outputs, _fsdp_param.py L447-460
    all_gather_input_numels, all_gather_input_dtypes = inp_split_sizes, [dtype]
    all_gather_outputs = [
        torch.empty(torch.Size([numel * world_size]), dtype=dtype, device=device)
        for numel, dtype in zip(all_gather_input_numels, all_gather_input_dtypes)
    ]
    split_with_sizes_out = list(all_gather_outputs)
    all_gather_output = all_gather_output.view(world_size, -1)
    out = [t.view(world_size, -1) for t in split_with_sizes_out]
    # torch.ops.fsdp.split_with_sizes_copy, L105-113
    torch.split_with_sizes_copy(
        all_gather_output, inp_split_sizes, dim=1, out=out
    )

    # _fsdp_param.py L509-519, init_unsharded_param
    unsharded_tensor = all_gather_outputs[0]
    unsharded_param = torch.as_strided(
        unsharded_tensor,
        _orig_size,
        _contiguous_orig_stride,
        storage_offset=0,
    )
    return unsharded_param


# Status with the tracer at 2205505: both exit 2. DTensor: the logical
# shape cannot come from --call (None here); handed in, pad_tensor's
# `if pad_size == 0: return tensor` makes the full ranks take no pad step
# ("different steps at different shapes"). FSDP2: copy_ into the new_zeros
# buffer has no step (then torch._foreach_copy_, absent in torch 1.13,
# split_with_sizes_copy(out=) and as_strided).
CASES = [
    # current_logical_shape: the global sizes, DIMS in --call
    dict(name="dtensor-shard0-to-replicate",
         call="shard0_to_replicate(X, GROUP, [DIMS['s'], DIMS['h']])",
         dims="s,h", input="shard s chunk", output="replicate",
         corpus="corpus/pytorch/dtensor-shard0-to-replicate.sc", require=[]),
]

# Not traced yet: FSDP2's copy-in writes each shard into a zeroed buffer with copy_
# (a pad) and torch 1.13 lacks torch._foreach_copy_; tests/test_trace.py reads CASES only.
PENDING = [
    dict(name="fsdp2-uneven-dim0-all-gather",
         call="fsdp2_shard_and_all_gather(X, GROUP)",
         dims="s,h", input="replicate", output="replicate",
         corpus="corpus/fsdp/fsdp2-uneven-dim0-all-gather.sc", require=[]),
]
