# yunchang zigzag_extract_local: each rank's piece of the (replicated) global
# sequence for zigzag ring attention inside Ulysses, dp x ring x ulysses
# world (REPORTED BUG, fixed version): PR #57 ("Fix r_rank/u_rank in extract
# local to be compatible with DP") takes the ring and Ulysses ranks from
# their process groups instead of deriving them from the global rank.
# feifeibear/long-context-attention @ a3893923ba822a98a0ebc30592b7fbe6d1c78c16 (PR #57):
# yunchang/comm/extract_local.py L33-59:
#   def zigzag_extract_local(value, rank, world_size, rd, ud, dim=1, *args, **kwargs):
#       value_chunks = value.chunk(2 * rd, dim=dim)
#       r_rank = dist.get_rank(group=PROCESS_GROUP.RING_PG)
#       u_rank = dist.get_rank(group=PROCESS_GROUP.ULYSSES_PG)
#       local_value = torch.cat(
#           [value_chunks[r_rank], value_chunks[2 * rd - r_rank - 1]], dim=dim
#       ).chunk(ud, dim=dim)[u_rank]
#       ...
#       local_value = local_value.reshape(batch_size, seqlen // world_size, nheads, d)
#       return local_value.contiguous()
# Groups from set_seq_parallel_pg at this commit (globals.py as PR #50 left it):
# RING_PG = mesh dim rp, ULYSSES_PG = mesh dim up, inside each dp replica.
# Caller as test/test_hybrid_qkvpacked_attn.py L76-79 (rank = dist.get_rank()),
# world_size = the sp degree R*U (seqlen // world_size must be the local length).
# Real code, run on gloo ranks,
# commit a3893923: every rank ok.
pipeline yunchang-zigzag-extract-local-after-57
mesh dp=D rp=R up=U
dims b s h d
input dp:shard b                                  # each dp replica's samples, whole sequence on every rank of it
output dp:shard b rp,up:shard s                   # zigzag over the ring, then chunk over Ulysses (Y below)
require s % (2*R*U) == 0
reference
take 1 2*R [k//2 if k % 2 == 0 else 2*R-1-k//2 for k]   # Y: the zigzag blocks in ring-rank order
end
expect pass
take 1 2*R [rp, 2*R-rp-1]                         # torch.cat([value_chunks[r_rank], value_chunks[2*rd-r_rank-1]], dim=1)
take 1 U up                                       # .chunk(ud, dim=dim)[u_rank]
reshape [size(0), s/(R*U), h, d]                  # local_value.reshape(batch_size, seqlen // world_size, nheads, d)
contiguous                                        # local_value.contiguous()
