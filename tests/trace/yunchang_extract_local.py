# yunchang (feifeibear/long-context-attention) zigzag_extract_local, before
# and after PR #57 ("Fix r_rank/u_rank in extract local to be compatible with
# DP"), transcribed from the original source. The two functions are copied
# line for line; the only change is that the fixed one reads its process
# groups from the module-level PROCESS_GROUP singleton of this file (a copy of
# yunchang/globals.py's) instead of `from yunchang.globals import
# PROCESS_GROUP`.
#
# Before PR #57:
#   feifeibear/long-context-attention @ 15f339c7bc23b5e201cb9ce6da95ed6f8efec99f
#   (parent of the fix), yunchang/comm/extract_local.py L33-58,
#   zigzag_extract_local (the PR description links L45-46: r_rank = rank // ud,
#   u_rank = rank % ud, with rank the global rank).
# After PR #57:
#   feifeibear/long-context-attention @ a3893923ba822a98a0ebc30592b7fbe6d1c78c16
#   (the PR's commit), yunchang/comm/extract_local.py L33-59. The whole diff:
#   -    r_rank = rank // ud
#   -    u_rank = rank % ud
#   +    r_rank = dist.get_rank(group=PROCESS_GROUP.RING_PG)
#   +    u_rank = dist.get_rank(group=PROCESS_GROUP.ULYSSES_PG)
#
# Groups: yunchang/globals.py L4-81 @ a3893923 (as PR #50 left it),
# set_seq_parallel_pg, copied below with use_ulysses_low=True: in each dp
# replica of R*U consecutive ranks, the Ulysses groups are U consecutive ranks
# and the ring groups stride U, i.e. on a row-major (dp, rp, up) mesh
# ULYSSES_PG is mesh dim up and RING_PG mesh dim rp (new_group of exactly
# those ranks, which the tracer's simulated new_group accepts).
#
# Caller: test/test_hybrid_qkvpacked_attn.py L35-81 @ a3893923:
#   rank = dist.get_rank()
#   world_size = dist.get_world_size()
#   sp_ulysses_degree = world_size  # min(world_size, nheads)
#   sp_ring_degree = world_size // sp_ulysses_degree
#   set_seq_parallel_pg(sp_ulysses_degree, sp_ring_degree, rank, world_size)
#   ...
#   dist.broadcast(qkv, src=0)
#   local_qkv = (
#       EXTRACT_FUNC_DICT[ring_impl_type](
#           qkv, rank, world_size=world_size, rd=sp_ring_degree, ud=sp_ulysses_degree
#       ).detach().clone()
#   )
# The test has dp = 1. For the dp x ring x Ulysses world of the corpus specs
# (corpus/yunchang/zigzag-extract-local-{before,after}-57.sc) the caller below
# takes the degrees from the mesh's groups, builds the groups with the whole
# world's size, and hands zigzag_extract_local world_size = the sp degree R*U
# (its `seqlen // world_size` must be the local length), its input being each
# dp replica's samples, the whole sequence ([b/D, s, h, d], `dp:shard b`),
# as after the broadcast within the replica.
import torch
import torch.distributed as dist


# yunchang/globals.py L4-19 @ a3893923
class Singleton:
    _instance = None

    def __new__(cls, *args, **kwargs):
        if not cls._instance:
            cls._instance = super(Singleton, cls).__new__(cls, *args, **kwargs)
        return cls._instance


class ProcessGroupSingleton(Singleton):
    def __init__(self):
        self.ULYSSES_PG = None
        self.RING_PG = None


PROCESS_GROUP = ProcessGroupSingleton()


# yunchang/globals.py L22-81 @ a3893923
def set_seq_parallel_pg(
    sp_ulysses_degree, sp_ring_degree, rank, world_size, use_ulysses_low=True
):
    """
    sp_ulysses_degree x sp_ring_degree = seq_parallel_degree
    (ulysses_degree, dp_degree)
    """
    sp_degree = sp_ring_degree * sp_ulysses_degree
    dp_degree = world_size // sp_degree

    assert (
        world_size % sp_degree == 0
    ), f"world_size {world_size} % sp_degree {sp_ulysses_degree} == 0"

    num_ulysses_pgs = sp_ring_degree  # world_size // sp_ulysses_degree
    num_ring_pgs = sp_ulysses_degree  # world_size // sp_ring_degree

    if use_ulysses_low:
        for dp_rank in range(dp_degree):
            offset = dp_rank * sp_degree
            for i in range(num_ulysses_pgs):
                ulysses_ranks = list(
                    range(
                        i * sp_ulysses_degree + offset,
                        (i + 1) * sp_ulysses_degree + offset,
                    )
                )
                group = torch.distributed.new_group(ulysses_ranks)
                if rank in ulysses_ranks:
                    ulyssess_pg = group

            for i in range(num_ring_pgs):
                ring_ranks = list(range(i + offset, sp_degree + offset, num_ring_pgs))
                group = torch.distributed.new_group(ring_ranks)
                if rank in ring_ranks:
                    ring_pg = group

    else:
        for dp_rank in range(dp_degree):
            offset = dp_rank * sp_degree
            for i in range(num_ring_pgs):
                ring_ranks = list(
                    range(
                        i * sp_ring_degree + offset, (i + 1) * sp_ring_degree + offset
                    )
                )
                group = torch.distributed.new_group(ring_ranks)
                if rank in ring_ranks:
                    ring_pg = group

            for i in range(num_ulysses_pgs):
                ulysses_ranks = list(
                    range(i + offset, sp_degree + offset, num_ulysses_pgs)
                )
                group = torch.distributed.new_group(ulysses_ranks)
                if rank in ulysses_ranks:
                    ulyssess_pg = group

    PROCESS_GROUP.ULYSSES_PG = ulyssess_pg
    PROCESS_GROUP.RING_PG = ring_pg


# yunchang/comm/extract_local.py L33-58 @ 15f339c7bc23b5e201cb9ce6da95ed6f8efec99f
def zigzag_extract_local_before_57(value, rank, world_size, rd, ud, dim=1, *args, **kwargs):
    input_dim = value.dim()
    if input_dim == 5:
        batch_size, seqlen, _, nheads, d = value.shape
    elif input_dim == 4:
        batch_size, seqlen, nheads, d = value.shape
    else:
        raise ValueError("value dim should be 4 or 5")

    value_chunks = value.chunk(2 * rd, dim=dim)

    # TODO assert ulyssess on low dim
    r_rank = rank // ud
    u_rank = rank % ud
    local_value = torch.cat(
        [value_chunks[r_rank], value_chunks[2 * rd - r_rank - 1]], dim=dim
    ).chunk(ud, dim=dim)[u_rank]

    if input_dim == 5:
        local_value = local_value.reshape(
            batch_size, seqlen // world_size, 3, nheads, d
        )
    elif input_dim == 4:
        local_value = local_value.reshape(batch_size, seqlen // world_size, nheads, d)

    return local_value.contiguous()


# yunchang/comm/extract_local.py L33-59 @ a3893923ba822a98a0ebc30592b7fbe6d1c78c16 (PR #57)
def zigzag_extract_local_after_57(value, rank, world_size, rd, ud, dim=1, *args, **kwargs):
    input_dim = value.dim()
    if input_dim == 5:
        batch_size, seqlen, _, nheads, d = value.shape
    elif input_dim == 4:
        batch_size, seqlen, nheads, d = value.shape
    else:
        raise ValueError("value dim should be 4 or 5")

    value_chunks = value.chunk(2 * rd, dim=dim)

    # TODO assert ulyssess on low dim
    r_rank = dist.get_rank(group=PROCESS_GROUP.RING_PG)
    u_rank = dist.get_rank(group=PROCESS_GROUP.ULYSSES_PG)

    local_value = torch.cat(
        [value_chunks[r_rank], value_chunks[2 * rd - r_rank - 1]], dim=dim
    ).chunk(ud, dim=dim)[u_rank]

    if input_dim == 5:
        local_value = local_value.reshape(
            batch_size, seqlen // world_size, 3, nheads, d
        )
    elif input_dim == 4:
        local_value = local_value.reshape(batch_size, seqlen // world_size, nheads, d)

    return local_value.contiguous()


# The caller, as test/test_hybrid_qkvpacked_attn.py L38-81 @ a3893923 with
# dp > 1: the degrees come from the mesh's groups (ring_pg, ulysses_pg are
# GROUPS.rp, GROUPS.up), set_seq_parallel_pg builds the groups over the
# whole world, and extract_local gets world_size = the sp degree.
def extract_local_in_dp(extract, qkv, ring_pg, ulysses_pg):
    rank = dist.get_rank()
    world_size = dist.get_world_size()
    sp_ulysses_degree = dist.get_world_size(ulysses_pg)
    sp_ring_degree = dist.get_world_size(ring_pg)

    set_seq_parallel_pg(sp_ulysses_degree, sp_ring_degree, rank, world_size)

    local_qkv = extract(
        qkv, rank, world_size=sp_ring_degree * sp_ulysses_degree,
        rd=sp_ring_degree, ud=sp_ulysses_degree
    )
    return local_qkv


MESH = "dp=D,rp=R,up=U"
OUTPUT = "dp:shard b rp,up:shard s"   # zigzag over the ring, then chunk over Ulysses (the corpus spec's reference Y)

# Status with the tracer at 2205505 (see the report of this transcription):
# - before-57: trace exit 2, no expression for the second chunk id
#   2*R-rank//U-1 (an affine sum of a two-name term and a name); with that
#   form added to the solver it traces to the corpus steps;
# - both: --output cannot carry the corpus spec's `reference` block (the
#   zigzag blocks in ring order), so the traced spec checks a plain chunk over
#   rp,up and fails where R > 1; with the corpus's reference block spliced in,
#   before-57 fails with the corpus's minimal case and after-57 passes.
CASES = [
    dict(name="zigzag-extract-local-before-57",
         call="extract_local_in_dp(zigzag_extract_local_before_57, X, GROUPS.rp, GROUPS.up)",
         dims="b,s,h,d", mesh=MESH, input="dp:shard b", output=OUTPUT,
         corpus="corpus/yunchang/zigzag-extract-local-before-57.sc",
         require=["s % (2*R*U) == 0"],
         reference=["take 1 2*R [k//2 if k % 2 == 0 else 2*R-1-k//2 for k]"]),
    dict(name="zigzag-extract-local-after-57",
         call="extract_local_in_dp(zigzag_extract_local_after_57, X, GROUPS.rp, GROUPS.up)",
         dims="b,s,h,d", mesh=MESH, input="dp:shard b", output=OUTPUT,
         corpus="corpus/yunchang/zigzag-extract-local-after-57.sc",
         require=["s % (2*R*U) == 0"],
         reference=["take 1 2*R [k//2 if k % 2 == 0 else 2*R-1-k//2 for k]"]),
]
