# ring-flash-attention: the zigzag layout its tests (and users) build, each
# rank keeping chunks rank and 2w-1-rank of 2w along the sequence of the
# packed qkv [b, s, 3, h, d] after broadcasting it from rank 0.
# zhuzilin/ring-flash-attention @ 899628238f2f5bb8c028579c89b7cd56ea451d2a,
# test/test_zigzag_ring_flash_attn_func.py L9-14, extract_local, called at L40-45:
#   def extract_local(value, rank, world_size, dim=1):
#       value_chunks = value.chunk(2 * world_size, dim=dim)
#       local_value = torch.cat(
#           [value_chunks[rank], value_chunks[2 * world_size - rank - 1]], dim=dim
#       )
#       return local_value.contiguous()
#   dist.broadcast(qkv, src=0)
#   local_qkv = extract_local(qkv, rank, world_size).detach().clone()
# (the test asserts seqlen % (2 * world_size) == 0, L34, as zigzag requires).
pipeline ring-flash-attn-zigzag-extract-local
dims b s t h d
input replicate               # qkv, the same shape on every rank
output shard s zigzag
sizes t=3..3
expect pass
broadcast src=0               # dist.broadcast(qkv, src=0)
take 1 2*P [rank, 2*P-rank-1] # torch.cat([value_chunks[rank], value_chunks[2*w-rank-1]], dim=1)
contiguous
