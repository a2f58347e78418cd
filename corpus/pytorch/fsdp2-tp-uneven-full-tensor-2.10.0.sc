# REPORTED BUG (fixed version) of fsdp2-tp-uneven-full-tensor-2.8.0.sc. By
# torch 2.10.0 the tree has #163843 (_StridedShard._split_tensor re-done as
# "first_split ... second_split") and the ordered-sharding redistribute
# (#160266, "Support of dtensor redistribute with device order"): a
# _StridedShard that encodes "tp first, then dp" is normalized into plain
# Shard placements with a shard order, and full_tensor() then undoes the
# shardings in reverse order -- dp first (FSDP's chunks of the TP shard),
# then tp. _StridedShard._to_replicate_tensor is no longer on this path
# (traced on gloo ranks).
# Fixed: torch 2.10.0 wheel, git_version 449b1768410104d3ed79d3bcfe4ba1d65c7f22c0:
# torch/distributed/fsdp/_fully_shard/_fsdp_param.py L303-316 (_StridedShard(shard_dim,
#   split_factor=split_factor) on dp), L380-381 chunks = _chunk_with_empty(...); chunks[shard_rank]
# torch/distributed/tensor/_redistribute.py L742-776, _gen_transform_infos_non_cached:
#   has_non_default_order -> drp.generate_graph_based_transform_infos(...)
# L555-600 generate_graph_based_transform_infos:
#   if any(isinstance(placement, _StridedShard) for placement in src_spec.placements):
#       src_placements, src_shard_order = DTensorSpec._normalize_placements_into_shard_order(...)
#   state_path = self.find_min_cost_path(src_state, dst_state)
# _dtensor_spec.py L103-125 _normalize_placements_into_shard_order (L235 _maybe_convert_StridedShard_to_shard_order)
# placement_types.py L292-317 Shard._to_replicate_tensor, L258-290 _maybe_pad_tensor / _maybe_unpad_tensor:
#   is_padded = logical_dim_size % num_chunks != 0
#   if is_padded: pad_size = full_chunk_size - local_tensor.size(self.dim); pad_tensor(...)
#   if not local_tensor.is_contiguous(): local_tensor = local_tensor.contiguous()
#   result = funcol.all_gather_tensor(local_tensor, gather_dim=self.dim, group=(mesh, mesh_dim))
#   if is_padded: unpad_tensor(local_tensor, self.dim, full_chunk_size * num_chunks - logical_dim_size)
# Logical sizes (traced): mesh dim 0 gets this tp rank's TP shard size
# L0 = min(cdiv(o,T), max(0, o-tp*cdiv(o,T))), mesh dim 1 gets o.
# Real torch 2.10.0 on gloo ranks: every case equal (D,T,o) = (2,2,{1,2,3,5,6,10}),
# (2,3,7), (3,2,7); these steps replayed with torch give the same rows.
pipeline fsdp2-tp-uneven-full-tensor-2.10.0
mesh dp=D tp=T
dims o i
input tp:shard o chunk
output replicate
expect pass
take 0 D dp                          # _chunk_with_empty(param_data, shard_world_size, dim=shard_dim)[shard_rank]
# mesh dim 0 (dp): Shard(0)._to_replicate_tensor, logical size L0
pad 0 0 ((cdiv(min(cdiv(o,T),max(0,o-tp*cdiv(o,T))),D)-size(0)) if min(cdiv(o,T),max(0,o-tp*cdiv(o,T)))%D != 0 else 0)
contiguous
all_gather_into_tensor group=dp
narrow 0 0 (min(cdiv(o,T),max(0,o-tp*cdiv(o,T))) if min(cdiv(o,T),max(0,o-tp*cdiv(o,T)))%D != 0 else size(0))
# mesh dim 1 (tp): Shard(0)._to_replicate_tensor, logical size o
pad 0 0 ((cdiv(o,T)-size(0)) if o%T != 0 else 0)
contiguous
all_gather_into_tensor group=tp
narrow 0 0 (o if o%T != 0 else size(0))
