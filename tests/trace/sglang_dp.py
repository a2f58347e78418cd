# SGLang DP attention: dp_scatter and the DP gather (all-reduce of disjoint
# slots, v0.4.6; all_gatherv, v0.5.23), transcribed from the original source
# (the PyPI wheels, which record no commit; paths are the wheel's).
#
# sglang==0.4.6, sglang/srt/layers/dp_attention.py:
#   L24-28 the module's _ATTN_TP_GROUP/_ATTN_TP_RANK/_ATTN_TP_SIZE/_DP_RANK/
#     _DP_SIZE, L82-84 get_attention_tp_rank, L92-94 get_attention_dp_rank
#   L123-137 get_dp_local_info, L166-167 prod, L170-178 memcpy_triton,
#   L181-212 _dp_gather, L231-249 dp_scatter: copied line for line.
#   memcpy_triton launches the Triton kernel memcpy_triton_kernel (L140-163),
#   which cannot run here: it is written below as what the kernel does (sz
#   rows from src[offset:] to dst[0:] when offset_src, else from src[0:] to
#   dst[offset:]), with narrow and copy_; offset and sz are the 0-d int64
#   GPU tensors get_dp_local_info returns.
#   tensor_model_parallel_all_reduce and torch.ops.sglang.inplace_all_reduce
#   (sglang/srt/distributed: GroupCoordinator.all_reduce, whose plain path
#   is torch.distributed.all_reduce(input_, group=self.device_group)) are
#   written as dist.all_reduce over the tp group.
# sglang==0.4.6, sglang/srt/managers/scheduler.py L1457-1535,
#   prepare_dp_attn_batch_raw: where the counts come from (each rank's
#   num_tokens all-gathered over the tp CPU group, L1501-1521, then
#   global_num_tokens_gpu = torch.tensor(global_num_tokens),
#   sglang/srt/model_executor/forward_batch_info.py L296-300):
#   gather_global_num_tokens below copies those lines (attn_tp_size == 1).
# sglang==0.5.23, sglang/srt/layers/dp_attention.py L932-971,
#   _dp_gather_via_all_gatherv (the fp8 branch, L964-970, dropped: bf16 with
#   an env flag), L85-100 dp_slot_in (width = attn dp size = the tp group,
#   slot = the dp rank); GroupCoordinator.all_gatherv
#   (sglang/srt/distributed/parallel_state.py L1441-1510) runs pynccl's
#   all_gather with sizes (sglang/srt/distributed/device_communicators/
#   pynccl.py L199-232): one ncclBroadcast per root into
#   output[offset:offset+size]; written below as torch.distributed.all_gather
#   into the list of those output slices (the same rows, the same order).
#
# The layout the corpus specs assume (corpus/sglang/dp-scatter.sc,
# dp-gather-sum-len.sc, dp-gather-all-gatherv.sc): attn_tp_size == 1
# (dp_size == tp_size == the world), each rank's token count the one
# tensor_split gives (the first t % P ranks one token more), local_tokens
# sized to the count (no CUDA-graph padding).
import functools
from typing import List

import torch
import torch.distributed as dist

if not hasattr(torch.Tensor, "untyped_storage"):     # torch < 2.0 (the project's 1.13): the same object test
    torch.Tensor.untyped_storage = torch.Tensor.storage

# sglang/srt/layers/dp_attention.py L24-28 @ 0.4.6 (set by the callers below)
_ATTN_TP_GROUP = None
_ATTN_TP_RANK = None
_ATTN_TP_SIZE = None
_DP_RANK = None
_DP_SIZE = None
_TP_GROUP = None


def get_attention_tp_rank():
    assert _ATTN_TP_RANK is not None, "dp attention not initialized!"
    return _ATTN_TP_RANK


def get_attention_dp_rank():
    assert _DP_RANK is not None, "dp attention not initialized!"
    return _DP_RANK


def get_tensor_model_parallel_world_size():
    return dist.get_world_size(_TP_GROUP)


def tensor_model_parallel_all_reduce(input_):
    # GroupCoordinator.all_reduce, the torch.distributed path
    dist.all_reduce(input_, group=_TP_GROUP)
    return input_


def inplace_all_reduce(tensor, group_name=None):
    # torch.ops.sglang.inplace_all_reduce: GroupCoordinator._all_reduce_in_place
    dist.all_reduce(tensor, group=_TP_GROUP)


def init_dp_attention(tp_group):
    """attn_tp_size == 1: every rank its own DP rank, attention TP rank 0."""
    global _ATTN_TP_RANK, _ATTN_TP_SIZE, _DP_RANK, _DP_SIZE, _TP_GROUP
    _TP_GROUP = tp_group
    _ATTN_TP_RANK, _ATTN_TP_SIZE = 0, 1
    _DP_RANK, _DP_SIZE = dist.get_rank(tp_group), dist.get_world_size(tp_group)


class ForwardBatch:
    """The fields of sglang's ForwardBatch that the DP functions read."""

    def __init__(self, global_num_tokens):
        # sglang/srt/model_executor/forward_batch_info.py L296-300 @ 0.4.6
        self.global_num_tokens_cpu = global_num_tokens
        self.global_num_tokens_gpu = torch.tensor(global_num_tokens, dtype=torch.int64)
        self.dp_local_start_pos = None
        self.dp_local_num_tokens = None


# sglang/srt/managers/scheduler.py L1501-1521 @ 0.4.6 (prepare_dp_attn_batch_raw;
# extend batch: num_tokens = local_batch.extend_num_tokens; attn_tp_size 1)
def gather_global_num_tokens(num_tokens, tp_cpu_group):
    dp_size, attn_tp_size = dist.get_world_size(tp_cpu_group), 1
    can_cuda_graph, global_num_tokens_for_logprob, is_extend_in_batch = 0, num_tokens, True
    local_info = torch.tensor(
        [
            num_tokens,
            can_cuda_graph,
            global_num_tokens_for_logprob,
            is_extend_in_batch,
        ],
        dtype=torch.int64,
    )
    global_info = torch.empty(
        (dp_size, attn_tp_size, 4),
        dtype=torch.int64,
    )
    torch.distributed.all_gather_into_tensor(
        global_info.flatten(),
        local_info,
        group=tp_cpu_group,
    )
    global_num_tokens = global_info[:, 0, 0].tolist()
    return global_num_tokens


# sglang/srt/layers/dp_attention.py L123-137 @ 0.4.6
def get_dp_local_info(forward_batch: ForwardBatch):
    dp_rank = get_attention_dp_rank()

    if forward_batch.dp_local_start_pos is None:
        cumtokens = torch.cumsum(forward_batch.global_num_tokens_gpu, dim=0)
        if dp_rank == 0:
            local_start_pos = torch.zeros_like(cumtokens[0])
        else:
            local_start_pos = cumtokens[dp_rank - 1]
        local_num_tokens = forward_batch.global_num_tokens_gpu[dp_rank]

        forward_batch.dp_local_start_pos = local_start_pos
        forward_batch.dp_local_num_tokens = local_num_tokens

    return forward_batch.dp_local_start_pos, forward_batch.dp_local_num_tokens


# sglang/srt/layers/dp_attention.py L166-167 @ 0.4.6
def prod(x):
    return functools.reduce(lambda a, b: a * b, x, 1)


# sglang/srt/layers/dp_attention.py L170-178 @ 0.4.6; the kernel launch
# (memcpy_triton_kernel[grid](dst, src, offset, sz, offset_src, chunk_size,
# BLOCK_SIZE), L140-163) written as what the kernel does
def memcpy_triton(dst, src, dim, offset, sz, offset_src):
    max_size = min(src.numel(), dst.numel())
    assert dim == 0, "dim != 0 unsupported"
    assert src.shape[1:] == dst.shape[1:], "src and dst must have same shape"
    chunk_size = prod(src.shape[1:])
    # memcpy_triton_kernel: offset = tl.load(offset_ptr) * chunk_size,
    # sz = tl.load(sz_ptr) * chunk_size, elements [0, sz) of the rows
    if offset_src:
        dst.narrow(0, 0, int(sz)).copy_(src.narrow(0, int(offset), int(sz)))
    else:
        dst.narrow(0, int(offset), int(sz)).copy_(src.narrow(0, 0, int(sz)))


# sglang/srt/layers/dp_attention.py L181-212 @ 0.4.6
def _dp_gather(
    global_tokens: torch.Tensor,
    local_tokens: torch.Tensor,
    forward_batch: ForwardBatch,
    is_partial: bool,
):
    local_start_pos, local_num_tokens = get_dp_local_info(forward_batch)

    global_tokens.fill_(0)
    assert local_tokens.is_contiguous()
    assert global_tokens.is_contiguous()

    if local_tokens.shape[0] > 0 and (is_partial or get_attention_tp_rank() == 0):
        assert (
            local_tokens.untyped_storage() is not global_tokens.untyped_storage()
        ), "aliasing between global_tokens and local_tokens not allowed"
        memcpy_triton(
            global_tokens, local_tokens, 0, local_start_pos, local_num_tokens, False
        )

    # Input IDs are in int 32. We should use inplace_all_reduce for local case becaues of custom all reduce.
    NUM_GPUS_PER_NODE = 8
    if (
        not local_tokens.dtype.is_floating_point
        and get_tensor_model_parallel_world_size() <= NUM_GPUS_PER_NODE
    ):
        inplace_all_reduce(
            global_tokens, group_name=None   # torch.ops.sglang.inplace_all_reduce(global_tokens, group_name=get_tp_group().unique_name)
        )

    else:
        global_tokens[:] = tensor_model_parallel_all_reduce(global_tokens)


# sglang/srt/layers/dp_attention.py L231-249 @ 0.4.6
def dp_scatter(
    local_tokens: torch.Tensor,  # output
    global_tokens: torch.Tensor,  # input
    forward_batch: ForwardBatch,
):
    # local_num_tokens is not necessarily the same as local_tokens.shape[0],
    # since local_tokens may be padded for cuda graph
    local_start_pos, local_num_tokens = get_dp_local_info(forward_batch)

    local_tokens.fill_(0)
    assert local_tokens.is_contiguous()
    assert global_tokens.is_contiguous()
    if local_tokens.shape[0] > 0:
        assert (
            local_tokens.untyped_storage() is not global_tokens.untyped_storage()
        ), "aliasing between local_tokens and global_tokens not allowed"
        memcpy_triton(
            local_tokens, global_tokens, 0, local_start_pos, local_num_tokens, True
        )


# sglang/srt/layers/dp_attention.py L85-100 @ 0.5.23 (attn_tp_size == 1:
# the gather width is the attention-DP size, the slot the DP rank)
def dp_slot_in(per_rank) -> int:
    if len(per_rank) == 1:
        return 0
    width = _DP_SIZE                 # dp_gather_width()
    if len(per_rank) != width:
        raise ValueError(
            f"a per-replica sequence of {len(per_rank)} entries does not "
            f"belong to a DP gather of width {width}"
        )
    return _DP_RANK                  # dp_gather_slot()


# GroupCoordinator.all_gatherv (parallel_state.py L1441-1510 @ 0.5.23), a
# single tensor with sizes and output: pynccl all_gather(output, input, sizes)
# (pynccl.py L216-232), one broadcast per root into its rows of output
def all_gatherv(input_, sizes, output, group):
    assert len(sizes) == dist.get_world_size(group)
    assert input_.shape[0] == sizes[dist.get_rank(group)]
    split_offset = 0
    dst_slices = []
    for root, split_size in enumerate(sizes):
        dst_slices.append(output[split_offset : split_offset + split_size])
        split_offset += split_size
    dist.all_gather(dst_slices, input_, group=group)
    return output


# sglang/srt/layers/dp_attention.py L932-971 @ 0.5.23 (fp8 branch dropped)
def _dp_gather_via_all_gatherv(
    global_tokens: torch.Tensor,
    local_tokens: torch.Tensor,
    forward_batch: ForwardBatch,
    is_partial: bool,
    sizes: List[int],
):
    rank = dp_slot_in(sizes)
    local_rows = sizes[rank]
    if local_tokens.shape[0] == local_rows:
        local_real = local_tokens
    elif local_tokens.shape[0] > local_rows:
        local_real = local_tokens[:local_rows]
    else:
        local_real = local_tokens.new_zeros((local_rows, *local_tokens.shape[1:]))
        local_real[: local_tokens.shape[0]].copy_(local_tokens)
    all_gatherv(local_real, sizes=sizes, output=global_tokens, group=_TP_GROUP)   # get_parallel().tp_group.all_gatherv(...)


# ---- callers (the model's use of the functions, as the corpus specs assume) ----

def _split_count(t, P, r):
    """The corpus specs' counts: tensor_split's (the first t % P ranks one more)."""
    return t // P + (1 if r < t % P else 0)


# dp_scatter of the replicated global_tokens [t, h] into local_tokens sized
# to this rank's count; the counts exchanged as the scheduler does
def scatter_to_dp_rank(global_tokens, tp_group):
    init_dp_attention(tp_group)
    t, P, r = global_tokens.shape[0], dist.get_world_size(tp_group), dist.get_rank(tp_group)
    num_tokens = _split_count(t, P, r)
    forward_batch = ForwardBatch(gather_global_num_tokens(num_tokens, tp_group))
    local_tokens = torch.empty((num_tokens, *global_tokens.shape[1:]), dtype=global_tokens.dtype)
    dp_scatter(local_tokens, global_tokens, forward_batch)
    return local_tokens


# the same with the counts known on every rank (no exchange: every rank can
# compute every count from t, as the spec's tensor_split counts allow)
def scatter_to_dp_rank_known_counts(global_tokens, tp_group):
    init_dp_attention(tp_group)
    t, P, r = global_tokens.shape[0], dist.get_world_size(tp_group), dist.get_rank(tp_group)
    forward_batch = ForwardBatch([_split_count(t, P, k) for k in range(P)])
    local_tokens = torch.empty((_split_count(t, P, r), *global_tokens.shape[1:]), dtype=global_tokens.dtype)
    dp_scatter(local_tokens, global_tokens, forward_batch)
    return local_tokens


# _dp_gather (dp_gather_replicate, attn_tp_rank 0) of local_tokens [count, h]
# into global_tokens [sum of the counts, h]; the counts exchanged as the
# scheduler does (each rank knows only its own)
def gather_sum_len(local_tokens, tp_group):
    init_dp_attention(tp_group)
    forward_batch = ForwardBatch(gather_global_num_tokens(local_tokens.shape[0], tp_group))
    global_tokens = torch.empty((sum(forward_batch.global_num_tokens_cpu), *local_tokens.shape[1:]),
                                dtype=local_tokens.dtype)
    _dp_gather(global_tokens, local_tokens, forward_batch, is_partial=False)
    return global_tokens


def gather_all_gatherv(local_tokens, tp_group):
    init_dp_attention(tp_group)
    forward_batch = ForwardBatch(gather_global_num_tokens(local_tokens.shape[0], tp_group))
    sizes = forward_batch.global_num_tokens_cpu
    global_tokens = torch.empty((sum(sizes), *local_tokens.shape[1:]), dtype=local_tokens.dtype)
    _dp_gather_via_all_gatherv(global_tokens, local_tokens, forward_batch, False, sizes)
    return global_tokens


# Status with the tracer at 2205505: all exit 2. The counts are exchanged
# as metadata (all_gather_into_tensor of a tensor not computed from X);
# with the counts known, untyped_storage()/storage() (the aliasing assert)
# has no row, and then memcpy's copy_ into the caller's buffer has no step;
# all_gatherv writes into slices of global_tokens, which is not tracked.
# Not traced yet: the token counts are exchanged by a collective on a metadata tensor and the data moved by copy_ into slices of a zeroed buffer: neither is traced yet (the counts are data, `counts` in a hand-written spec)
# tests/test_trace.py reads CASES only; these wait for the tracer.
CASES = []
PENDING = [
    dict(name="dp-scatter",
         call="scatter_to_dp_rank(X, GROUP)",
         dims="t,h", input="replicate", output="shard t split",
         corpus="corpus/sglang/dp-scatter.sc", require=[]),
    dict(name="dp-scatter-known-counts",
         call="scatter_to_dp_rank_known_counts(X, GROUP)",
         dims="t,h", input="replicate", output="shard t split",
         corpus="corpus/sglang/dp-scatter.sc", require=[]),
    dict(name="dp-gather-sum-len",
         call="gather_sum_len(X, GROUP)",
         dims="t,h", input="shard t split", output="replicate",
         corpus="corpus/sglang/dp-gather-sum-len.sc", require=[]),
    dict(name="dp-gather-all-gatherv",
         call="gather_all_gatherv(X, GROUP)",
         dims="t,h", input="shard t split", output="replicate",
         corpus="corpus/sglang/dp-gather-all-gatherv.sc", require=[]),
]
