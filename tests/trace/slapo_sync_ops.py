# Transcription of slapo's sequence-parallel sync ops, for `shardcheck trace`.
#
# Sources: awslabs/slapo
#   * PR #6 "[Schedule] Support sequence parallelism",
#     54af14840c1face269659d8ca04dc4c4e5374508, slapo/sharding/utils.py:
#       L13-49  all_gather_along_dim
#       L79-99  _ReduceScatterForwardOutput.forward (the reduce-scatter body,
#               not yet a function of its own)
#   * PR #33 "[Primitive][shard] Use autograd function for all sync ops",
#     1e15ee2aede71f64e11a2068e21b5393b63f205e, which moved them to
#     slapo/sharding/sync_ops.py:
#       L13-49  all_gather_along_dim        (as in PR #6)
#       L52-87  reduce_scatter_along_dim    (PR #6's forward body, unchanged
#               but for torch.zeros -> torch.empty)
#     (unchanged in layout since; at b80534a, the newest commit, only
#     `.to(inp.device)` became `device=inp.device`).
# The functions below are sync_ops.py @ 1e15ee2 verbatim; `group` is the
# process group passed in (GROUP in --call) and world_size is
# dist.get_world_size(group), as slapo's autograd functions compute it
# (sync_ops.py @ 1e15ee2, _AllGatherForwardOutput.forward /
# _ReduceScatterForwardOutput.forward: world_size = dist.get_world_size(group)).
#
# The wrong variants are the ones corpus/slapo/*.sc transcribe; they are not
# slapo code: each is reduce_scatter_along_dim (or the pair of collectives)
# with one realistic change, marked `# VARIANT`.
import torch
import torch.distributed as dist


# sync_ops.py @ 1e15ee2 L13-49
def all_gather_along_dim(inp, dim, world_size, group):
    """all-gather along the given dimension. Will use all_gather_into_tensor
    if available as it is more efficient; otherwise fallback to all_gather.

    Paramters
    ---------
    inp: torch.Tensor
        The input tensor to all-gather.
    dim: int
        The dimension to all-gather along.
    world_size: int
        The number of processes in the group.
    group: torch.distributed.ProcessGroup
        The process group to all-gather.

    Returns
    -------
    torch.Tensor
        The gathered tensor.
    """
    if hasattr(dist, "all_gather_into_tensor"):
        temp = inp.transpose(0, dim) if dim != 0 else inp
        temp = temp.contiguous()
        gather_shape = list(temp.shape)
        gather_shape[0] = world_size * gather_shape[0]
        ret = torch.empty(gather_shape, dtype=temp.dtype).to(inp.device)
        dist.all_gather_into_tensor(ret, temp, group=group)
        ret = ret.transpose(0, dim).contiguous() if dim != 0 else ret
    else:
        # Fallback to all_gather. This may lead to suboptimal performance.
        parts = [
            torch.empty(inp.shape, dtype=inp.dtype).to(inp.device)
            for _ in range(world_size)
        ]
        dist.all_gather(parts, inp, group=group)
        ret = torch.cat(parts, dim=dim)
    return ret


# sync_ops.py @ 1e15ee2 L52-87
def reduce_scatter_along_dim(inp, dim, world_size, group):
    """reduce-scatter along the given dimension.

    Paramters
    ---------
    inp: torch.Tensor
        The input tensor to reduce-scatter.
    dim: int
        The dimension to all-gather along.
    world_size: int
        The number of processes in the group.
    group: torch.distributed.ProcessGroup
        The process group to all-gather.

    Returns
    -------
    torch.Tensor
        The reduce-scattered tensor.
    """
    # reduce_scatter always targets dim 0, so we transpose the target dim
    # to dim 0, and transpose the result back.
    assert inp.shape[dim] % world_size == 0, (
        f"Reduce scatter dimension {dim} size {inp.shape} "
        f"should be divisible by world size {world_size}"
    )

    temp = inp.transpose(0, dim) if dim != 0 else inp
    temp = temp.contiguous()
    scatter_shape = list(temp.shape)
    scatter_shape[0] //= world_size
    ret = torch.empty(scatter_shape, dtype=inp.dtype).to(inp.device)

    dist.reduce_scatter_tensor(ret, temp, group=group)
    if dim != 0:
        ret = ret.transpose(0, dim).contiguous()
    return ret


# The else branch of all_gather_along_dim (torch without
# all_gather_into_tensor), lines L43-48 verbatim: all_gather into a list, then
# torch.cat along dim.
def all_gather_along_dim_fallback(inp, dim, world_size, group):
    # Fallback to all_gather. This may lead to suboptimal performance.
    parts = [
        torch.empty(inp.shape, dtype=inp.dtype).to(inp.device)
        for _ in range(world_size)
    ]
    dist.all_gather(parts, inp, group=group)
    ret = torch.cat(parts, dim=dim)
    return ret


# VARIANT (corpus/slapo/reduce-scatter-axis1-missing-contiguous.sc): the
# .contiguous() after the transpose is forgotten.
def reduce_scatter_along_dim_missing_contiguous(inp, dim, world_size, group):
    assert inp.shape[dim] % world_size == 0, (
        f"Reduce scatter dimension {dim} size {inp.shape} "
        f"should be divisible by world size {world_size}"
    )

    temp = inp.transpose(0, dim) if dim != 0 else inp
    # VARIANT: temp = temp.contiguous() left out
    scatter_shape = list(temp.shape)
    scatter_shape[0] //= world_size
    ret = torch.empty(scatter_shape, dtype=inp.dtype).to(inp.device)

    dist.reduce_scatter_tensor(ret, temp, group=group)
    if dim != 0:
        ret = ret.transpose(0, dim).contiguous()
    return ret


# VARIANT (corpus/slapo/reduce-scatter-axis1-reshape-back.sc): the result is
# put back into [b, s/P, h] with reshape instead of transpose(0, dim).
def reduce_scatter_along_dim_reshape_back(inp, dim, world_size, group):
    assert inp.shape[dim] % world_size == 0, (
        f"Reduce scatter dimension {dim} size {inp.shape} "
        f"should be divisible by world size {world_size}"
    )

    temp = inp.transpose(0, dim) if dim != 0 else inp
    temp = temp.contiguous()
    scatter_shape = list(temp.shape)
    scatter_shape[0] //= world_size
    ret = torch.empty(scatter_shape, dtype=inp.dtype).to(inp.device)

    dist.reduce_scatter_tensor(ret, temp, group=group)
    if dim != 0:
        shape = list(inp.shape)                  # VARIANT
        shape[dim] //= world_size                # VARIANT
        ret = ret.reshape(shape)                 # VARIANT: was ret.transpose(0, dim).contiguous()
    return ret


# The sequence-parallel pair as slapo's schedule places it (PR #6): the
# row-parallel linear's partial sums are reduce-scattered along the sequence
# (dim 1 of [b, s, h]), dropout (identity here) runs on the shard, and the
# all-gather along dim 1 restores the sequence. Layout only: the linear of
# corpus/slapo/seqpar-linear-rs-ag.sc is left out, its output is X.
def seqpar_rs_ag(inp, group):
    world_size = dist.get_world_size(group)
    out = reduce_scatter_along_dim(inp, 1, world_size, group)
    return all_gather_along_dim(out, 1, world_size, group)


# VARIANT (layout part of corpus/slapo/seqpar-linear-rs-ag-wrong.sc): the
# all-gather is done along dim 0 (batch): its transposes are missing.
def seqpar_rs_ag_wrong(inp, group):
    world_size = dist.get_world_size(group)
    out = reduce_scatter_along_dim(inp, 1, world_size, group)
    return all_gather_along_dim(out, 0, world_size, group)


# Cases the tracer does not handle yet (same keys as CASES, plus `problem`).
# tests/test_trace.py reads only CASES: move a case there once it traces and
# matches.
TRACER_PROBLEMS = [
]


# Cases for `shardcheck trace` (X: the rank's local input, GROUP: the world).
# slapo's activations are [b, s, h]; sequence parallelism uses dim=1.
CASES = [
    dict(name="slapo_all_gather_axis1",
         call="all_gather_along_dim(X, 1, dist.get_world_size(GROUP), GROUP)",
         dims="b,s,h", input="shard s", output="replicate",
         corpus="corpus/slapo/all-gather-axis1.sc", expect="pass", require=[]),
    dict(name="slapo_reduce_scatter_axis1",
         call="reduce_scatter_along_dim(X, 1, dist.get_world_size(GROUP), GROUP)",
         dims="b,s,h", input="partial sum", output="shard s",
         corpus="corpus/slapo/reduce-scatter-axis1.sc", expect="pass", require=["s % P == 0"]),
    dict(name="slapo_reduce_scatter_axis1_reshape_back",
         call="reduce_scatter_along_dim_reshape_back(X, 1, dist.get_world_size(GROUP), GROUP)",
         dims="b,s,h", input="partial sum", output="shard s",
         corpus="corpus/slapo/reduce-scatter-axis1-reshape-back.sc", expect="fail",
         require=["s % P == 0"]),
    # no corpus spec: other dims
    dict(name="slapo_all_gather_axis0",
         call="all_gather_along_dim(X, 0, dist.get_world_size(GROUP), GROUP)",
         dims="b,s,h", input="shard b", output="replicate",
         corpus=None, expect="pass", require=[]),
    dict(name="slapo_all_gather_axis2",
         call="all_gather_along_dim(X, 2, dist.get_world_size(GROUP), GROUP)",
         dims="b,s,h", input="shard h", output="replicate",
         corpus=None, expect="pass", require=[]),
    dict(name="slapo_reduce_scatter_axis2",
         call="reduce_scatter_along_dim(X, 2, dist.get_world_size(GROUP), GROUP)",
         dims="b,s,h", input="partial sum", output="shard h",
         corpus=None, expect="pass", require=["h % P == 0"]),
    # layout-only halves of the seqpar-linear-rs-ag*.sc compute specs (those
    # specs have a linear, so their minimal cases are not comparable)
    dict(name="slapo_seqpar_rs_ag",
         call="seqpar_rs_ag(X, GROUP)",
         dims="b,s,h", input="partial sum", output="replicate",
         corpus=None, expect="pass", require=["s % P == 0"]),
    dict(name="slapo_seqpar_rs_ag_wrong",
         call="seqpar_rs_ag_wrong(X, GROUP)",
         dims="b,s,h", input="partial sum", output="replicate",
         corpus=None, expect="fail", require=["s % P == 0"]),
    dict(name="slapo_reduce_scatter_axis1_missing_contiguous",
         call="reduce_scatter_along_dim_missing_contiguous(X, 1, dist.get_world_size(GROUP), GROUP)",
         dims="b,s,h", input="partial sum", output="shard s",
         corpus="corpus/slapo/reduce-scatter-axis1-missing-contiguous.sc", expect="fail",
         require=["s % P == 0"],),
    dict(name="slapo_all_gather_axis1_fallback",
         call="all_gather_along_dim_fallback(X, 1, dist.get_world_size(GROUP), GROUP)",
         dims="b,s,h", input="shard s", output="replicate",
         corpus=None, expect="pass", require=[],),
]
