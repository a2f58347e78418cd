# yunchang zigzag_extract_local (REPORTED BUG, buggy version): before PR #57
# the ring and Ulysses ranks were derived from the global rank, which is right
# only when the sequence-parallel group is the whole world (dp = 1).
# feifeibear/long-context-attention @ 15f339c7bc23b5e201cb9ce6da95ed6f8efec99f
# (parent of the fix a3893923ba822a98a0ebc30592b7fbe6d1c78c16); the PR
# description links exactly these lines (extract_local.py#L45-L46):
# yunchang/comm/extract_local.py L33-58:
#   value_chunks = value.chunk(2 * rd, dim=dim)
#   # TODO assert ulyssess on low dim
#   r_rank = rank // ud
#   u_rank = rank % ud
#   local_value = torch.cat(
#       [value_chunks[r_rank], value_chunks[2 * rd - r_rank - 1]], dim=dim
#   ).chunk(ud, dim=dim)[u_rank]
#   local_value = local_value.reshape(batch_size, seqlen // world_size, nheads, d)
#   return local_value.contiguous()
# rank is the global rank (test/test_hybrid_qkvpacked_attn.py: rank = dist.get_rank()).
# Expected FAIL. Smallest: world 2 = D=2, R=1, U=1, b=2, s=2, h=1, d=1: rank 1
# (dp 1) computes r_rank = 1 and takes value_chunks[1], value_chunks[0]: its
# sequence rows come out as [1, 0] instead of [0, 1]. With rank//U >= 2R the
# index is out of range (IndexError; Python's negative indices would instead
# wrap when 2R-r-1 < 0). Real code: a run on gloo ranks, commit
# 15f339c7: D=2 R=1 U=1 rank 1 rows [1, 0]; D=2 R=2 U=1 rank 2 rows [2, 1].
pipeline yunchang-zigzag-extract-local-before-57
mesh dp=D rp=R up=U
dims b s h d
input dp:shard b
output dp:shard b rp,up:shard s                   # zigzag over the ring, then chunk over Ulysses (Y below)
require s % (2*R*U) == 0
reference
take 1 2*R [k//2 if k % 2 == 0 else 2*R-1-k//2 for k]   # Y: the zigzag blocks in ring-rank order
end
expect fail
take 1 2*R [rank//U, 2*R-rank//U-1]               # r_rank = rank // ud; torch.cat([value_chunks[r_rank], value_chunks[2*rd-r_rank-1]])
take 1 U rank%U                                   # u_rank = rank % ud; .chunk(ud, dim=dim)[u_rank]
reshape [size(0), s/(R*U), h, d]                  # local_value.reshape(batch_size, seqlen // world_size, nheads, d)
contiguous
