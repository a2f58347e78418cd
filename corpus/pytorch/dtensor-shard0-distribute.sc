# PyTorch DTensor, Replicate -> Shard(0) by scatter from one rank
# (distribute_tensor), over an uneven torch.chunk shard.
# pytorch/pytorch @ 134179474539648ba7dee1317959529fbd0e7f89 (torch 2.7.0),
# torch/distributed/tensor/placement_types.py L156-197, Shard._shard_tensor
# (with Shard._split_tensor L69-126):
#   scatter_list, pad_sizes = self._split_tensor(
#       tensor, num_chunks, with_padding=True, contiguous=True
#   )
#   output = torch.empty_like(scatter_list[mesh_dim_local_rank])
#   mesh_scatter(
#       output, scatter_list, mesh, mesh_dim=mesh_dim, group_src=src_data_rank
#   )
#   if pad_sizes and pad_sizes[mesh_dim_local_rank] > 0:
#       output = unpad_tensor(output, self.dim, pad_sizes[mesh_dim_local_rank])
# _split_tensor: torch.chunk into num_chunks, empty tensors for the missing
# chunks, each padded at the end to full_chunk_size = ceil(s/P) (no padding
# when s % P == 0). The padded chunks laid end to end are X followed by
# P*ceil(s/P) - s padding rows, which is what the first step builds.
# mesh_scatter (group_src = src_data_rank = 0) is written as the sized
# all_to_all_single in which only rank 0 sends: rank 0 hands ceil(s/P) rows
# to every rank, the others hand nothing (their scatter_list is not read).
pipeline pytorch-dtensor-shard0-distribute
dims s h
input replicate
output shard s chunk
expect pass
pad 0 0 (cdiv(s,P)*P-s if s % P != 0 else 0)      # _split_tensor's padded scatter_list, end to end
narrow 0 0 (size(0) if rank == 0 else 0)          # only group_src's scatter_list is sent
all_to_all_single in=(size(0)//P if src == 0 else 0) out=(cdiv(s,P) if src == 0 else 0)   # mesh_scatter
narrow 0 0 (size(0)-(cdiv(s,P)-max(0,min(cdiv(s,P),s-rank*cdiv(s,P)))) if s % P != 0 else size(0))   # unpad_tensor(output, dim, pad_sizes[rank])
