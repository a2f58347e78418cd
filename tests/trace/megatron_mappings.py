# Transcription of Megatron-LM's tensor-parallel / sequence-parallel layout
# helpers, for `shardcheck trace`.
#
# Source: NVIDIA/Megatron-LM @ core_v0.14.0
#         (23e00ed0963c35382dfe8a5a94fb3cda4d21e133)
#   megatron/core/tensor_parallel/mappings.py
#     L10-19    dist_all_gather_func / dist_reduce_scatter_func selection
#     L36-53    _split_along_last_dim
#     L56-77    _split_along_first_dim
#     L80-96    _gather_along_last_dim
#     L99-111   _reduce_scatter_along_last_dim
#     L114-152  _gather_along_first_dim
#     L155-194  _reduce_scatter_along_first_dim
#     L296-398  the sequence- and tensor-parallel autograd Functions
#     L420-466, L535-596  _AllToAll, all_to_all, all_to_all_sp2hp / _hp2sp
#   megatron/core/tensor_parallel/utils.py
#     L22-45    split_tensor_along_last_dim
#   megatron/core/utils.py
#     L390-399  ensure_divisibility / divide
#     L347-355  is_torch_min_version
#
# The function bodies are copied verbatim. Changes, all outside the traced
# layout logic:
#   * `device=torch.cuda.current_device()` -> `device=input_.device` (no GPU
#     here; the buffer's device does not change the layout).
#   * the `use_global_buffer` branches call get_global_memory_buffer(), a
#     Megatron singleton; it is imported as a stub that raises, and the cases
#     below never set use_global_buffer.
#   * is_torch_min_version is re-implemented without `packaging` (not
#     installed here); with torch >= 1.13 it selects all_gather_into_tensor /
#     reduce_scatter_tensor, as in Megatron. This module is imported while
#     shardcheck's simulated torch.distributed is installed, so the aliases
#     bind to the simulated collectives.
#   * `group` is the process group passed in (GROUP in --call): Megatron's
#     callers pass the TP group; group.size() / group.rank() are the
#     simulated group's.
import torch


# megatron/core/utils.py L347-355 (packaging.version replaced by a tuple compare)
def is_torch_min_version(version, check_equality=True):
    """Check if minimum version of `torch` is installed."""
    def v(s):
        return tuple(int(x) for x in s.split("+")[0].split(".")[:3] if x.isdigit())
    if check_equality:
        return v(torch.__version__) >= v(version)
    return v(torch.__version__) > v(version)


# megatron/core/utils.py L390-399
def ensure_divisibility(numerator, denominator):
    """Ensure that numerator is divisible by the denominator."""
    assert numerator % denominator == 0, "{} is not divisible by {}".format(numerator, denominator)


def divide(numerator, denominator):
    """Ensure that numerator is divisible by the denominator and return
    the division value."""
    ensure_divisibility(numerator, denominator)
    return numerator // denominator


def get_global_memory_buffer():
    raise NotImplementedError("Megatron's global memory buffer is not transcribed: use_global_buffer=False")


# megatron/core/tensor_parallel/utils.py L22-45
def split_tensor_along_last_dim(
    tensor: torch.Tensor, num_partitions: int, contiguous_split_chunks: bool = False
):
    """Split a tensor along its last dimension.

    Args:
        tensor: input tensor.
        num_partitions: number of partitions to split the tensor
        contiguous_split_chunks: If True, make each chunk contiguous
                                 in memory.

    Returns:
        A list of Tensors
    """
    # Get the size and dimension.
    last_dim = tensor.dim() - 1
    last_dim_size = divide(tensor.size()[last_dim], num_partitions)
    # Split.
    tensor_list = torch.split(tensor, last_dim_size, dim=last_dim)
    # Note: torch.split does not create contiguous tensors by default.
    if contiguous_split_chunks:
        return tuple(chunk.contiguous() for chunk in tensor_list)

    return tensor_list


# megatron/core/tensor_parallel/mappings.py L10-19
try:
    if is_torch_min_version("1.13.0"):
        dist_all_gather_func = torch.distributed.all_gather_into_tensor
        dist_reduce_scatter_func = torch.distributed.reduce_scatter_tensor
    else:
        dist_all_gather_func = torch.distributed._all_gather_base
        dist_reduce_scatter_func = torch.distributed._reduce_scatter_base
except:
    dist_all_gather_func = torch.distributed._all_gather_base
    dist_reduce_scatter_func = torch.distributed._reduce_scatter_base


# mappings.py L36-53
def _split_along_last_dim(input_, group):
    """Split the tensor along its last dimension and keep the
    corresponding slice."""
    assert group is not None, "group should not be None"

    world_size = group.size()
    # Bypass the function if we are using only 1 GPU.
    if world_size == 1:
        return input_

    # Split along last dimension.
    input_list = split_tensor_along_last_dim(input_, world_size)

    # Note: torch.split does not create contiguous tensors by default.
    rank = group.rank()
    output = input_list[rank].contiguous()

    return output


# mappings.py L56-77
def _split_along_first_dim(input_, group):
    """Split the tensor along its first dimension and keep the
    corresponding slice."""
    assert group is not None, "group should not be None"

    world_size = group.size()
    # Bypass the function if we are using only 1 GPU.
    if world_size == 1:
        return input_

    # Split along first dimension.
    dim_size = input_.size()[0]
    assert (
        dim_size % world_size == 0
    ), "First dimension of the tensor should be divisible by tensor parallel size"
    local_dim_size = dim_size // world_size
    rank = group.rank()
    dim_offset = rank * local_dim_size

    output = input_[dim_offset : dim_offset + local_dim_size].contiguous()

    return output


# mappings.py L80-96
def _gather_along_last_dim(input_, group):
    """Gather tensors and concatinate along the last dimension."""

    world_size = group.size()
    # Bypass the function if we are using only 1 GPU.
    if world_size == 1:
        return input_

    dim_size = list(input_.size())
    dim_size[0] = dim_size[0] * world_size

    output = torch.empty(dim_size, dtype=input_.dtype, device=input_.device)
    dist_all_gather_func(output, input_.contiguous(), group=group)
    tensor_list = output.chunk(world_size, dim=0)
    output = torch.cat(tensor_list, dim=-1).contiguous()

    return output


# mappings.py L99-111
def _reduce_scatter_along_last_dim(input_, group):
    """Reduce-scatter tensors on the last dimension."""

    world_size = group.size()
    target_shape = list(input_.size())
    target_shape[-1] = target_shape[-1] // world_size
    input_ = input_.reshape(-1, input_.shape[-1])
    split_tensors = torch.split(
        input_, split_size_or_sections=input_.shape[-1] // world_size, dim=1
    )
    concat_tensor = torch.cat(split_tensors, dim=0)
    output = _reduce_scatter_along_first_dim(concat_tensor, group=group).reshape(target_shape)
    return output


# mappings.py L114-152
def _gather_along_first_dim(input_, group, output_split_sizes=None, use_global_buffer=False):
    """Gather tensors and concatenate along the first dimension.

    Args:
        input_tensor (torch.Tensor):
            A tensor to be gathered.
        output_split_sizes (List[int], optional):
            A list specifying the sizes of the output splits along the first dimension.
            If None, equal splitting is assumed. Default: None.

    Returns:
        torch.Tensor: Gathered tensor.
    """

    assert group is not None, "group should not be None"
    world_size = group.size()
    # Bypass the function if we are using only 1 GPU.
    if world_size == 1:
        return input_

    dim_size = list(input_.size())
    if output_split_sizes is None:
        dim_size[0] = dim_size[0] * world_size

        if use_global_buffer:
            output = get_global_memory_buffer().get_tensor(dim_size, input_.dtype, "mpu")
        else:
            output = torch.empty(dim_size, dtype=input_.dtype, device=input_.device)
        dist_all_gather_func(output, input_.contiguous(), group=group)
    else:
        dim_size[0] = sum(output_split_sizes)
        if use_global_buffer:
            output = get_global_memory_buffer().get_tensor(dim_size, input_.dtype, "mpu")
        else:
            output = torch.empty(dim_size, dtype=input_.dtype, device=input_.device)
        output_tensor_list = list(torch.split(output, output_split_sizes, dim=0))
        torch.distributed.all_gather(output_tensor_list, input_, group=group)

    return output


# mappings.py L155-194
def _reduce_scatter_along_first_dim(input_, group, input_split_sizes=None, use_global_buffer=False):
    """Reduce-scatter the input tensor across model parallel group.

    Args:
        input_ (torch.Tensor): The input tensor to be reduce-scattered.
        input_split_sizes (List[int], optional): A list specifying the sizes of
            the input splits along the first dimension for each rank. If None,
            equal splitting is assumed. Default: None.
    """
    assert group is not None, "group should not be None"
    world_size = group.size()
    # Bypass the function if we are using only 1 GPU.
    if world_size == 1:
        return input_

    if input_split_sizes is None:
        dim_size = list(input_.size())
        assert (
            dim_size[0] % world_size == 0
        ), "First dimension of the tensor should be divisible by tensor parallel size"

        dim_size[0] = dim_size[0] // world_size

        if use_global_buffer:
            output = get_global_memory_buffer().get_tensor(dim_size, input_.dtype, "mpu")
        else:
            output = torch.empty(dim_size, dtype=input_.dtype, device=input_.device)
        dist_reduce_scatter_func(output, input_.contiguous(), group=group)
    else:
        rank = group.rank()
        input_tensor_list = list(torch.split(input_, input_split_sizes, dim=0))

        if use_global_buffer:
            output = get_global_memory_buffer().get_tensor(
                input_tensor_list[rank].shape, input_.dtype, "mpu"
            )
        else:
            output = torch.empty_like(input_tensor_list[rank])
        torch.distributed.reduce_scatter(output, input_tensor_list, group=group)
    return output


# The autograd Functions around them, mappings.py @ 23e00ed0, verbatim
# (their `symbolic` methods left out): traced with `--backward`, X the
# gradient of the Function's output.


# L296-349
class _GatherFromSequenceParallelRegion(torch.autograd.Function):
    """Gather the input from sequence parallel region and concatinate."""

    @staticmethod
    def forward(
        ctx,
        input_,
        group,
        tensor_parallel_output_grad=True,
        output_split_sizes=None,
        use_global_buffer=False,
    ):
        """Forward function."""
        ctx.tensor_parallel_output_grad = tensor_parallel_output_grad
        ctx.group = group
        ctx.output_split_sizes = output_split_sizes
        ctx.use_global_buffer = use_global_buffer
        return _gather_along_first_dim(input_, group, output_split_sizes, use_global_buffer)

    @staticmethod
    def backward(ctx, grad_output):
        """Backward function."""
        tensor_parallel_output_grad = ctx.tensor_parallel_output_grad

        # If the computation graph after the gather operation is
        # in the tensor parallel mode, output gradients need to reduce
        # scattered and whereas if the computation is duplicated,
        # output gradients need to be scattered.
        if tensor_parallel_output_grad:
            return (
                _reduce_scatter_along_first_dim(
                    grad_output, ctx.group, ctx.output_split_sizes, ctx.use_global_buffer
                ),
                None,
                None,
                None,
                None,
            )
        else:
            assert ctx.output_split_sizes is None
            return (_split_along_first_dim(grad_output, ctx.group), None, None, None, None)


# L351-378
class _ReduceScatterToSequenceParallelRegion(torch.autograd.Function):
    """Reduce scatter the input from the model parallel region."""

    @staticmethod
    def forward(ctx, input_, group, input_split_sizes=None, use_global_buffer=False):
        """Forward function."""
        ctx.group = group
        ctx.input_split_sizes = input_split_sizes
        ctx.use_global_buffer = use_global_buffer
        return _reduce_scatter_along_first_dim(input_, group, input_split_sizes, use_global_buffer)

    @staticmethod
    def backward(ctx, grad_output):
        """Backward function."""
        input_split_sizes = ctx.input_split_sizes
        use_global_buffer = ctx.use_global_buffer
        return (
            _gather_along_first_dim(grad_output, ctx.group, input_split_sizes, use_global_buffer),
            None,
            None,
            None,
        )


# L380-398
class _AllGatherFromTensorParallelRegion(torch.autograd.Function):
    """Gather the input from model parallel region and concatenate."""

    @staticmethod
    def forward(ctx, input_, group):
        """Forward function."""
        ctx.group = group
        return _gather_along_last_dim(input_, group)

    @staticmethod
    def backward(ctx, grad_output):
        """Backward function."""
        return _reduce_scatter_along_last_dim(grad_output, ctx.group), None


# L420-466 (device=torch.cuda.current_device() -> device=input.device, as above)
class _AllToAll(torch.autograd.Function):
    @staticmethod
    def forward(ctx, group, input, output_split_sizes, input_split_sizes):
        """Forward function."""
        ctx.group = group
        ctx.output_split_sizes = output_split_sizes
        ctx.input_split_sizes = input_split_sizes

        world_size = group.size()
        # Bypass the function if we are using only 1 GPU.
        if world_size == 1:
            return input

        input = input.contiguous()
        if output_split_sizes is None:
            # Equal split (all2all)
            output = torch.empty_like(input)
        else:
            # Unequal split (all2all-v)
            output = input.new_empty(
                size=[sum(output_split_sizes)] + list(input.size()[1:]),
                dtype=input.dtype,
                device=input.device,
            )
        torch.distributed.all_to_all_single(
            output,
            input,
            output_split_sizes=output_split_sizes,
            input_split_sizes=input_split_sizes,
            group=group,
        )
        return output

    @staticmethod
    def backward(ctx, *grad_output):
        """Backward function."""
        return (
            None,
            _AllToAll.apply(ctx.group, *grad_output, ctx.input_split_sizes, ctx.output_split_sizes),
            None,
            None,
        )


# L535-539
def all_to_all(group, input_, output_split_sizes_=None, input_split_sizes=None):
    """Wrapper for autograd function"""
    assert group is not None, "group should not be None"
    return _AllToAll.apply(group, input_, output_split_sizes_, input_split_sizes)


# L541-567 (docstring left out; get_tensor_model_parallel_group_if_none(group) -> group)
def all_to_all_sp2hp(input_, group=None):
    world_size = group.size()
    input_ = input_.reshape(-1, input_.shape[-1])
    split_tensors = torch.split(
        input_, split_size_or_sections=input_.shape[-1] // world_size, dim=1
    )
    concat_tensor = torch.cat(split_tensors, dim=0)
    output = all_to_all(group, concat_tensor)
    return output


# L570-596 (as above)
def all_to_all_hp2sp(input_, group=None):
    world_size = group.size()
    input_ = input_.reshape(-1, input_.shape[-1])
    input_exchanged = all_to_all(group, input_)
    input_reshaped = input_exchanged.reshape(-1, input_exchanged.shape[-1])
    split_tensors = torch.split(
        input_reshaped, split_size_or_sections=input_reshaped.shape[0] // world_size, dim=0
    )
    output = torch.cat(split_tensors, dim=-1)
    return output


# Cases the tracer does not handle yet (same keys as CASES, plus `problem`).
# tests/test_trace.py reads only CASES: move a case there once it traces.
TRACER_PROBLEMS = [
    # _ScatterToSequenceParallelRegion.forward (mappings.py L276-293)
    dict(name="megatron_gather_along_first_dim_split_sizes",
         call="_gather_along_first_dim(X, GROUP, output_split_sizes=[X.shape[0]] * GROUP.size())",
         dims="s,h", input="shard s", output="replicate",
         corpus="corpus/megatron/gather-along-first-dim-split-sizes.sc", expect="pass", require=[],
         problem="all_gather into list(torch.split(output, sizes)), views of a preallocated buffer, "
                 "then `return output`: the tracer tracks the list entries (GatherPiece) but not the "
                 "buffer they view, so 'the tensor --call returned is not computed from X'. (Were it "
                 "tracked, the list all_gather's signature would still differ between worlds: see "
                 "slapo_sync_ops.py, slapo_all_gather_axis1_fallback.)"),
    # _ReduceScatterToSequenceParallelRegion.forward with input_split_sizes
    # (equal sizes: s // P rows for every rank)
]


# Cases for `shardcheck trace` (X: the rank's local input, GROUP: the world).
# Megatron's activations are [s, b, h] (sequence first). Every function
# bypasses at world 1, so the traced specs say `require P >= 2`.
CASES = [
    # _GatherFromSequenceParallelRegion.forward, output_split_sizes=None
    # (mappings.py L296-326)
    dict(name="megatron_gather_along_first_dim", call="_gather_along_first_dim(X, GROUP)",
         dims="s,b,h", input="shard s", output="replicate",
         corpus=None, expect="pass", require=[]),
    # _ReduceScatterToSequenceParallelRegion.forward, input_split_sizes=None
    # (mappings.py L351-366)
    dict(name="megatron_reduce_scatter_along_first_dim", call="_reduce_scatter_along_first_dim(X, GROUP)",
         dims="s,b,h", input="partial sum", output="shard s",
         corpus=None, expect="pass", require=["s % P == 0"]),
    # _ScatterToModelParallelRegion.forward (mappings.py L236-254)
    dict(name="megatron_split_along_last_dim", call="_split_along_last_dim(X, GROUP)",
         dims="s,b,h", input="replicate", output="shard h",
         corpus=None, expect="pass", require=["h % P == 0"]),
    # _GatherFromModelParallelRegion.forward (mappings.py L256-274)
    dict(name="megatron_gather_along_last_dim", call="_gather_along_last_dim(X, GROUP)",
         dims="s,b,h", input="shard h", output="replicate",
         corpus=None, expect="pass", require=[]),
    dict(name="megatron_split_along_first_dim", call="_split_along_first_dim(X, GROUP)",
         dims="s,b,h", input="replicate", output="shard s",
         corpus="corpus/megatron/split-along-first-dim.sc", expect="pass",
         require=["s % P == 0"],
         problem="`input_[a:b]` (a single, non-tuple index) does not reach TorchFunctionMode in this "
                 "PyTorch (1.13.0a0: THPVariable_getitem skips the torch-function check for an exact "
                 "torch.Tensor unless the index is a tuple), so the slice is not recorded and the trace "
                 "stops with 'the tensor --call returned is not computed from X'. With "
                 "`input_[a:b, ...]` it traces to `narrow 0 rank*(s/P) s/P; contiguous` and passes, "
                 "like the corpus spec."),
    # _GatherFromSequenceParallelRegion.forward with output_split_sizes (the MoE
    # token dispatcher's uneven gather). The per-rank counts are data; here
    # every rank passes the equal counts [local rows] * P, the only ones a
    # rank can compute from its own shape. The corpus spec
    # (gather-along-first-dim-split-sizes.sc) uses torch.tensor_split counts
    # (`shard s split`), so it can match only in part (verdict, not placement).
    dict(name="megatron_reduce_scatter_along_first_dim_split_sizes",
         call="_reduce_scatter_along_first_dim(X, GROUP, "
              "input_split_sizes=[X.shape[0] // GROUP.size()] * GROUP.size())",
         dims="s,b,h", input="partial sum", output="shard s",
         corpus=None, expect="pass", require=["s % P == 0"],
         problem="torch.distributed.reduce_scatter of list(torch.split(input_, sizes)): only a "
                 "torch.chunk(t, P, dim) list is traced ('`reduce_scatter` has no step')."),
    # backwards (--backward: X is the gradient of the Function's output; the
    # placements are the gradients'): the gradient of a replicated output
    # is a partial sum when the layers after it are tensor parallel
    dict(name="megatron_gather_sp_backward", call="_GatherFromSequenceParallelRegion.apply(X, GROUP)",
         backward=True, dims="s,b,h", input="partial sum", output="shard s",
         corpus=None, expect="pass", require=["s % P == 0"]),
    # ... and replicated when they are not (tensor_parallel_output_grad=False)
    dict(name="megatron_gather_sp_backward_replicated_grad",
         call="_GatherFromSequenceParallelRegion.apply(X, GROUP, False)",
         backward=True, dims="s,b,h", input="replicate", output="shard s",
         corpus=None, expect="pass", require=["s % P == 0"]),
    # the flag set for a partial-sum gradient: each rank keeps its own
    # summand's rows, never summed
    dict(name="megatron_gather_sp_backward_flag_wrong",
         call="_GatherFromSequenceParallelRegion.apply(X, GROUP, False)",
         backward=True, dims="s,b,h", input="partial sum", output="shard s",
         corpus=None, expect="fail", require=["s % P == 0"]),
    dict(name="megatron_reduce_scatter_sp_backward",
         call="_ReduceScatterToSequenceParallelRegion.apply(X, GROUP)",
         backward=True, dims="s,b,h", input="shard s", output="replicate",
         corpus=None, expect="pass", require=[]),
    dict(name="megatron_gather_tp_backward", call="_AllGatherFromTensorParallelRegion.apply(X, GROUP)",
         backward=True, dims="s,b,h", input="partial sum", output="shard h",
         corpus=None, expect="pass", require=["h % P == 0"]),
    # the MoE/SP all-to-alls through the _AllToAll Function (its forward
    # traced as plain code): tokens-sharded to hidden-sharded and back
    dict(name="megatron_all_to_all_sp2hp", call="all_to_all_sp2hp(X, GROUP)",
         dims="t,h", input="shard t", output="shard h", corpus=None, expect="pass", require=["h % P == 0"]),
    dict(name="megatron_all_to_all_hp2sp", call="all_to_all_hp2sp(X, GROUP)",
         dims="t,h", input="shard h", output="shard t", corpus=None, expect="pass", require=["t % P == 0"]),
    # _AllToAll alone on sp2hp's operand (rank r's rows: its t rows of each
    # of the P column blocks, block-major) and its backward, the same
    # all-to-all with the split sizes swapped
    dict(name="megatron_all_to_all_function", call="all_to_all(GROUP, X)",
         dims="t,c,k", input="shard t as (c t) k", output="shard c as (t c) k", corpus=None, expect="pass",
         require=["c == P"]),
    dict(name="megatron_all_to_all_function_backward", call="all_to_all(GROUP, X)", backward=True,
         dims="t,c,k", input="shard c as (t c) k", output="shard t as (c t) k", corpus=None, expect="pass",
         require=["c == P"]),
    # _ReduceScatterToTensorParallelRegion.forward (mappings.py L400-418)
    dict(name="megatron_reduce_scatter_along_last_dim", call="_reduce_scatter_along_last_dim(X, GROUP)",
         dims="s,b,h", input="partial sum", output="shard h",
         corpus=None, expect="pass", require=["h % P == 0"],),
]
