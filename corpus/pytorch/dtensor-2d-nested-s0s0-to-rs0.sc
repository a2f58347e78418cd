# DTensor 2-D redistribute of a nested sharding [Shard(0), Shard(0)] ->
# [Replicate(), Shard(0)] on a (dp, tp) mesh, uneven (torch.chunk) sizes:
# dim 0 is chunked over dp, then each piece over tp. Mesh dim 1's Shard(0)
# is a sub-shard, so it is first replicated (gather over tp), then dp is
# gathered, then the tensor is chunked again over tp alone.
# pytorch/pytorch v2.5.1 = a8d6afb511a69687bbb2b7e88a3cf67917e1697e (torch 2.5.1 wheel):
# torch/distributed/tensor/_redistribute.py L31-146, _gen_transform_infos:
#   L71-86: mesh_dims_to_logical_shape[1][0] = src._local_shard_size_on_dim(a, D, my_coordinate[0])
#   L98-128: for mesh_dim in reversed(range(...)): mesh dim 1, target Shard(0):
#       current_mesh_sharding [0] != target_mesh_sharding [] -> target = Replicate()
#       (Shard(0) -> Replicate() on mesh dim 1, logical shape [a's dp piece, b])
#     mesh dim 0: Shard(0) -> Replicate() (logical shape [a, b])
#   L133-144: then left to right: mesh dim 1 Replicate() -> Shard(0)
# L191-220, redistribute_local_tensor: Shard->Replicate is Shard._to_replicate_tensor
#   (placement_types.py L218-252: pad to the full chunk, contiguous,
#   funcol.all_gather_tensor(gather_dim=0), unpad); Replicate->Shard is
#   _replicate_to_shard (L254-272):
#   shards, _ = self._split_tensor(local_tensor, num_chunks, with_padding=False, contiguous=False)
#   return shards[shard_index].clone()
#   (_split_tensor L70-101: list(torch.chunk(tensor, num_chunks, dim)) filled with empty shards)
# Real torch 2.4.0 and 2.5.1 on gloo ranks: equal
# to torch.chunk(X, T, 0)[tp] for every case tried (2x2, 2x3, 3x2; a = 1..7).
pipeline dtensor-2d-nested-s0s0-to-rs0
mesh dp=D tp=T
dims a b
input dp:shard a chunk tp:shard a chunk     # [Shard(0), Shard(0)]: nested in mesh order
output tp:shard a chunk                     # [Replicate(), Shard(0)]
expect pass
# mesh dim 1, Shard(0) -> Replicate(); logical size L = this dp piece = min(cdiv(a,D), max(0, a-dp*cdiv(a,D)))
pad 0 0 cdiv(min(cdiv(a,D),max(0,a-dp*cdiv(a,D))),T)-size(0)   # pad_tensor(local_tensor, 0, full_chunk_size - local size)
contiguous
all_gather_into_tensor group=tp             # funcol.all_gather_tensor(gather_dim=0, group=(mesh, 1))
narrow 0 0 min(cdiv(a,D),max(0,a-dp*cdiv(a,D)))                # unpad_tensor
# mesh dim 0, Shard(0) -> Replicate(); logical size a
pad 0 0 cdiv(a,D)-size(0)
contiguous
all_gather_into_tensor group=dp
narrow 0 0 a
# mesh dim 1, Replicate() -> Shard(0)
take 0 T tp                                 # _split_tensor(with_padding=False)[shard_index]
contiguous                                  # .clone()
