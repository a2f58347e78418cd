# REPORTED BUG (buggy version): FSDP2 + TP with a weight dim that the mesh
# does not divide: weight.full_tensor() loses rows and returns padding.
# pytorch/pytorch PR #150490 ("[DTensor] StridedShard support uneven
# sharding", on top of #148894 "Support uneven sharding for FSDP2 + TP")
# implemented it; PR #163843 ("[DTensor] fix uneven _StridedShard") says
# "Previous uneven `_StridedShard` in #150490 seems failing cases like
# sharding `tensor = torch.arange(6)` with FSDP 2, TP 2".
# Buggy: torch 2.8.0 wheel, git_version a1cb3cc05d46d198467bebbb6e8fba50a325d4e7:
# torch/distributed/fsdp/_fully_shard/_fsdp_param.py L307-320:
#   split_factor = self._tp_spec.num_shards_map[shard_dim]
#   dp_shard_tp_placement = ((_StridedShard(shard_dim, split_factor=split_factor)
#       if split_factor > 1 else fsdp_placement), self._tp_spec.placements[0])
#   L362-363: chunks = _chunk_with_empty(param_data, shard_world_size, dim=shard_dim); sharded_param = chunks[shard_rank]
# torch/distributed/tensor/_api.py L579-586 full_tensor -> redistribute([Replicate()] * mesh.ndim)
# torch/distributed/tensor/_redistribute.py L30-147, _gen_transform_infos_non_cached:
#   L70-84: logical shape of mesh dim 1 = src._local_shard_size_and_offset(o, D, dp): the
#     _StridedShard inherits Shard's (placement_types.py L112-140), i.e. torch.chunk's size
#     of o over D -- not the size of this rank's strided shard
#   L97: for mesh_dim in reversed(...): mesh dim 1 Shard(0)->R, then mesh dim 0 _StridedShard->R
# placement_types.py L227-259, Shard._to_replicate_tensor:
#   is_padded = logical_dim_size % num_chunks != 0
#   if is_padded: full_chunk_size = ceil; pad_size = full_chunk_size - local_tensor.size(self.dim); pad_tensor
#   result = funcol.all_gather_tensor(local_tensor, gather_dim=self.dim, group=(mesh, mesh_dim))
#   if is_padded: result = unpad_tensor(result, self.dim, full_chunk_size * num_chunks - logical_dim_size)
# L490-597, _StridedShard._to_replicate_tensor:
#   full_chunk_size = (logical_dim_size + num_chunks - 1) // num_chunks
#   local_pad_size = full_chunk_size - local_tensor.size(self.dim)
#   local_tensor = pad_tensor(local_tensor, self.dim, local_pad_size)
#   result = funcol.all_gather_tensor(local_tensor, gather_dim=self.dim, group=(mesh, mesh_dim))
#   if result.shape[self.dim] > logical_dim_size:
#       result = unpad_tensor(result, self.dim, result.shape[self.dim] - logical_dim_size)
#   outer_shards = torch.chunk(result, num_chunks, dim=self.dim)
#   for p in outer_shards: inner_shards.extend(torch.chunk(p, self.split_factor, dim=self.dim))
#   for i in range(self.split_factor): reordered_shards.extend(inner_shards[i :: self.split_factor])
#   return torch.cat(reordered_shards, dim=self.dim).contiguous()
# The mesh is fixed at dp=2 tp=2: the two-level reorder over torch.chunk
# lists is written with named pieces (for 2 x 2 the lists' real lengths give
# the same order as the padded ones;).
# Expected FAIL. Smallest: o=2, i=1: TP rows [0] | [1], FSDP gives dp 1 nothing;
# DTensor believes each dp half has 1 row, so the tp gather on dp 0 ([0, 1]) is
# cut to 1 row: every rank ends with [X[0], padding]. o=6 gives rows
# [0, 1, 2, pad, 3, 5] (the #163843 case). Real torch 2.8.0 on gloo ranks;
# these steps replayed with torch give the same rows.
pipeline fsdp2-tp-uneven-full-tensor-2.8.0
mesh dp=2 tp=2
dims o i
input tp:shard o chunk               # ColwiseParallel weight on an uneven dim
output replicate                     # full_tensor()
expect fail
tensor w = input
w = take w 0 2 dp                    # _chunk_with_empty(param_data, shard_world_size, dim=shard_dim)[shard_rank]
# mesh dim 1: Shard(0)._to_replicate_tensor, logical size L1 = min(cdiv(o,2), max(0, o-dp*cdiv(o,2)))
w = pad w 0 0 ((cdiv(min(cdiv(o,2),max(0,o-dp*cdiv(o,2))),2)-size(0)) if min(cdiv(o,2),max(0,o-dp*cdiv(o,2)))%2 != 0 else 0)
w = contiguous w
w = all_gather_into_tensor w group=tp
w = narrow w 0 0 (min(cdiv(o,2),max(0,o-dp*cdiv(o,2))) if min(cdiv(o,2),max(0,o-dp*cdiv(o,2)))%2 != 0 else size(0))
# mesh dim 0: _StridedShard._to_replicate_tensor, logical size o
w = pad w 0 0 cdiv(o,2)-size(0)      # local_pad_size = full_chunk_size - local_tensor.size(dim); pad_tensor
w = contiguous w
w = all_gather_into_tensor w group=dp
w = narrow w 0 0 min(size(0),o)      # if result.shape[dim] > logical_dim_size: unpad_tensor
o0, o1 = split w [cdiv(o,2), o-cdiv(o,2)] dim=0   # outer_shards = torch.chunk(result, num_chunks)
i00 = take o0 0 2 0                  # inner_shards.extend(torch.chunk(p, split_factor))
i01 = take o0 0 2 1
i10 = take o1 0 2 0
i11 = take o1 0 2 1
w = cat i00 i10 i01 i11 dim=0        # reordered_shards.extend(inner_shards[i::split_factor]); torch.cat
w = contiguous w                     # .contiguous()
