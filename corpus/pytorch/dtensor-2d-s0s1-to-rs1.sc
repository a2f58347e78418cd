# DTensor 2-D redistribute [Shard(0), Shard(1)] -> [Replicate(), Shard(1)] on
# a (dp, tp) mesh: one all-gather of dim 0 over the dp mesh dim, the tp
# shard of dim 1 untouched. Even sizes (see dtensor-2d-s0s1-to-rs1-uneven.sc).
# pytorch/pytorch v2.5.1 = a8d6afb511a69687bbb2b7e88a3cf67917e1697e (torch 2.5.1 wheel):
# torch/distributed/tensor/_redistribute.py L31-146, _gen_transform_infos:
#   for mesh_dim in reversed(range(len(current_placements))):     (L98)
#       ... mesh dim 1: Shard(1) == Shard(1), no nested sharding of dim 1 before it: nothing
#       ... mesh dim 0: Shard(0) -> Replicate()
#           transform_infos.append(_TransformInfo(mesh_dim=mesh_dim,
#               src_dst_placements=(current, target), logical_shape=mesh_dims_to_logical_shape[mesh_dim]))
# L149-271 redistribute_local_tensor, "Case 1: target is Replicate" (L191-202):
#   new_local_tensor = current_placement._to_replicate_tensor(local_tensor, device_mesh, i, transform_info.logical_shape)
# placement_types.py L218-252, Shard._to_replicate_tensor:
#   is_padded = logical_dim_size % num_chunks != 0         (False here)
#   if not local_tensor.is_contiguous(): local_tensor = local_tensor.contiguous()
#   result = funcol.all_gather_tensor(local_tensor, gather_dim=self.dim, group=(mesh, mesh_dim))
# _functional_collectives.py L179-215: gather_dim 0 is all_gather_into_tensor.
# Real torch 2.4.0 and 2.5.1 on gloo ranks: equal in every case tried.
pipeline dtensor-2d-s0s1-to-rs1
mesh dp=D tp=T
dims a b
input dp:shard a tp:shard b       # [Shard(0), Shard(1)]
output tp:shard b                 # [Replicate(), Shard(1)]
expect pass
contiguous                        # if not local_tensor.is_contiguous(): local_tensor.contiguous()
all_gather_into_tensor group=dp   # funcol.all_gather_tensor(local_tensor, gather_dim=0, group=(mesh, 0))
