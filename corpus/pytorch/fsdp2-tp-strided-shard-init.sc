# FSDP2 (fully_shard over "dp") of a parameter that TP (ColwiseParallel over
# "tp") already sharded on dim 0: FSDP chunks the TP-local tensor again on
# dim 0, so rank (dp, tp) ends with chunk dp of chunk tp of the weight: the
# "right-to-left" layout that DTensor names [_StridedShard(0, sf=T), Shard(0)].
# pytorch/pytorch v2.5.1 = a8d6afb511a69687bbb2b7e88a3cf67917e1697e (the torch
# 2.5.1 wheel's torch.version.git_version; files read from that wheel):
# torch/distributed/_composable/fsdp/_fsdp_param.py L247-354, FSDPParam._init_sharded_param:
#   param_data = cast(DTensor, param)._local_tensor                     (L314)
#   split_factor = self._tp_spec.num_shards_map[0]                      (L279)
#   dp_shard_tp_placement = (
#       (_StridedShard(0, split_factor=split_factor) if split_factor > 1 else Shard(0)),
#       self._tp_spec.placements[0],
#   )                                                                   (L284-291)
#   if split_factor > 1:  # FSDP has strided sharding on tensor dim 0
#       num_shards = self._sharding_spec.num_shards_map[0]
#       tensor_size_dim_0 = self._sharding_spec.shape[0]
#       if tensor_size_dim_0 % num_shards != 0:
#           raise NotImplementedError(
#               "FSDP+TP sharding does not support uneven sharding for now: " ...)  (L304-312)
#   chunks = _chunk_with_empty(param_data, shard_world_size, dim=0)    (L335)
#   sharded_param = chunks[shard_rank]
#   padded_sharded_size = chunks[0].size()  # 0th always padded
#   padded_sharded_param = param_data.new_zeros(padded_sharded_size)
#   if sharded_param.numel() > 0:
#       padded_sharded_param[: sharded_param.size(0)].copy_(sharded_param)   (L336-343)
#   self.sharded_param = nn.Parameter(
#       self.to_sharded_dtensor(padded_sharded_param[: sharded_param.size(0)]))  (L349-351)
# _fsdp_common.py L92-98, _chunk_with_empty: list(torch.chunk(tensor, num_chunks,
#   dim=dim)) padded with empty chunks; shard_rank is the rank in the dp group
#   (mesh_info.shard_process_group = mesh.get_group(shard_mesh_dim), L37-38).
# Checked with the real torch 2.5.1 on a CPU (dp, tp) mesh:
#   a replay of these lines on gloo ranks (local_rows)
pipeline fsdp2-tp-strided-shard-init
mesh dp=D tp=T
dims o i
input tp:shard o                    # ColwiseParallel weight: DTensor [Shard(0)] on the tp mesh, local [o/T, i]
output tp,dp:shard o                # [_StridedShard(0, sf=T), Shard(0)] on (dp, tp): tp-major flattening
expect pass
assert o % (D*T) == 0               # L308-312: uneven FSDP+TP raises NotImplementedError
take 0 D dp                         # chunks = _chunk_with_empty(param_data, shard_world_size, dim=0); chunks[shard_rank]
pad 0 0 cdiv(o/T,D)-size(0)         # padded_sharded_param = new_zeros(chunks[0].size()); [:size(0)].copy_(sharded_param)
narrow 0 0 min(cdiv(o/T,D),max(0,o/T-dp*cdiv(o/T,D)))   # padded_sharded_param[: sharded_param.size(0)] (to_sharded_dtensor)
