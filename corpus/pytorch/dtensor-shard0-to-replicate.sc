# PyTorch DTensor, Shard(0) -> Replicate over an uneven torch.chunk shard.
# pytorch/pytorch @ 134179474539648ba7dee1317959529fbd0e7f89 (torch 2.7.0),
# torch/distributed/tensor/placement_types.py L234-268, Shard._to_replicate_tensor
# (pad_tensor / unpad_tensor: torch/distributed/tensor/_collective_utils.py L179-194):
#   is_padded = logical_dim_size % num_chunks != 0
#   if is_padded:
#       full_chunk_size = (logical_dim_size + num_chunks - 1) // num_chunks
#       pad_size = full_chunk_size - local_shape[self.dim]
#       local_tensor = pad_tensor(local_tensor, self.dim, pad_size)
#   if not local_tensor.is_contiguous():
#       local_tensor = local_tensor.contiguous()
#   result = funcol.all_gather_tensor(
#       local_tensor,
#       gather_dim=self.dim,
#       group=(mesh, mesh_dim),
#   )
#   if is_padded:
#       unpad_size = full_chunk_size * num_chunks - logical_dim_size
#       result = unpad_tensor(result, self.dim, unpad_size)
# The DTensor's local shards are torch.chunk's (Shard._split_tensor, L69-126),
# trailing ranks possibly empty; the padding can be cut off the end only
# because every short shard comes last. Shard dim 0: all_gather_tensor with
# gather_dim 0 is all_gather_into_tensor.
pipeline pytorch-dtensor-shard0-to-replicate
dims s h
input shard s chunk
output replicate
expect pass
pad 0 0 (cdiv(s,P)-size(0) if s % P != 0 else 0)   # pad_tensor: F.pad at the end of dim 0
contiguous
all_gather_into_tensor
narrow 0 0 (size(0)-(cdiv(s,P)*P-s) if s % P != 0 else size(0))   # unpad_tensor: narrow(dim, 0, size - pad_size)
