# REPORTED BUG (fixed version) of fsdp2-tp-full-tensor-2.4.0.sc: PR #130760
# makes FSDP2 describe its FSDP+TP shard as _StridedShard(0, split_factor=T)
# on dp, and _StridedShard's Shard->Replicate puts the gathered pieces back
# in order. pytorch/pytorch v2.5.1 = a8d6afb511a69687bbb2b7e88a3cf67917e1697e
# (torch 2.5.1 wheel):
# torch/distributed/_composable/fsdp/_fsdp_param.py L279-293:
#   split_factor = self._tp_spec.num_shards_map[0]
#   dp_shard_tp_placement = (
#       (_StridedShard(0, split_factor=split_factor) if split_factor > 1 else Shard(0)),
#       self._tp_spec.placements[0],
#   )
#   L335-336: chunks = _chunk_with_empty(param_data, shard_world_size, dim=0); sharded_param = chunks[shard_rank]
# torch/distributed/tensor/_api.py L548 full_tensor -> redistribute(placements=[Replicate()] * mesh.ndim)
# torch/distributed/tensor/_redistribute.py L31-146, _gen_transform_infos: src has
#   shards, so mesh dims are visited right to left (L98): mesh dim 1
#   Shard(0)->Replicate, then mesh dim 0 _StridedShard->Replicate.
# placement_types.py L218-252 Shard._to_replicate_tensor (even: all_gather_tensor only);
# L484-523 _StridedShard._to_replicate_tensor:
#   result = funcol.all_gather_tensor(local_tensor, gather_dim=self.dim, group=(mesh, mesh_dim))
#   tensor_shard_list = torch.chunk(result, total_split, dim=self.dim)
#   for idx in range(len(tensor_shard_list)):
#       idx_after_split = idx % num_chunks * self.split_factor + idx // num_chunks
#       new_tensor_shard_list.append(tensor_shard_list[idx_after_split])
#   return torch.cat(new_tensor_shard_list, dim=self.dim).contiguous()
# (num_chunks = mesh.size(dp) = D, split_factor = T, total_split = D*T.)
# Real torch 2.5.1: a run on gloo ranks, every case equal.
pipeline fsdp2-tp-full-tensor-2.5.1
mesh dp=D tp=T
dims o i
require o % (D*T) == 0
input tp:shard o                  # ColwiseParallel weight, local [o/T, i]
output replicate
expect pass
take 0 D dp                       # _chunk_with_empty(param_data, shard_world_size, dim=0)[shard_rank]
all_gather_into_tensor group=tp   # mesh dim 1: Shard(0)._to_replicate_tensor
all_gather_into_tensor group=dp   # mesh dim 0: _StridedShard._to_replicate_tensor, all_gather_tensor(gather_dim=0)
take 0 D*T [k%D*T+k//D for k]     # tensor_shard_list[idx % num_chunks * split_factor + idx // num_chunks], torch.cat
contiguous                        # .contiguous()
