# REPORTED BUG (buggy version): FSDP2 + TP weight.full_tensor() returns the
# rows in the wrong order. pytorch/pytorch issue #129206 ("Bug in calling
# full_tensor() when model is sharded with tensor parallel and FSDP-2", mesh
# (dp=2, tp=4)) and #129229; fixed by PR #130760 ("[FSDP][dtensor] use
# _StridedShard to represent nested sharding for correct full_tensor()
# result", "Fixes issue #129229 #129206"), first released in 2.5.0.
# Buggy: pytorch/pytorch v2.4.0 (torch 2.4.0 wheel, git_version
# e4ee3be4063b7c430974252fdf7db42273388d86):
# torch/distributed/_composable/fsdp/_fsdp_param.py L214-218 (_init_sharded_param):
#   # TODO: Hard code FSDP + TP; need to support HSDP + TP
#   self._spmd_placements: Tuple[Placement, ...] = (
#       Shard(0),
#       self._tp_spec.placements[0],
#   )
# while the data is laid out as FSDP chunks the TP shard (L246-247):
#   chunks = _chunk_with_empty(param_data, shard_world_size, dim=0)
#   sharded_param = chunks[shard_rank]
# torch/distributed/_tensor/api.py L511-513, full_tensor:
#   redist_res = self.redistribute(placements=[Replicate()] * self.device_mesh.ndim, async_op=False)
# torch/distributed/_tensor/_redistribute.py L49-136, _gen_transform_infos: one
#   (Shard(0) -> Replicate()) per mesh dim, then
#   transform_infos.sort(key=_replicate_then_shard)   # L27-45: Shard->Replicate sorts by -mesh_dim
#   so mesh dim 1 (tp) is gathered first, then mesh dim 0 (dp);
# placement_types.py L208-242, Shard._to_replicate_tensor (even: no padding):
#   result = funcol.all_gather_tensor(local_tensor, gather_dim=self.dim, group=(mesh, mesh_dim))
# (funcol.all_gather_tensor with gather_dim=0 is all_gather_into_tensor.)
# Real torch 2.4.0 on a CPU mesh of gloo ranks: D=2 T=2 o=4 gives rows [0, 2, 1, 3].
pipeline fsdp2-tp-full-tensor-2.4.0
mesh dp=D tp=T
dims o i
require o % (D*T) == 0
input tp:shard o                  # ColwiseParallel weight, local [o/T, i]
output replicate                  # full_tensor(): the whole weight on every rank
expect fail
take 0 D dp                       # _chunk_with_empty(param_data, shard_world_size, dim=0)[shard_rank] (even: no padding)
all_gather_into_tensor group=tp   # mesh dim 1: Shard(0)._to_replicate_tensor, funcol.all_gather_tensor(gather_dim=0)
all_gather_into_tensor group=dp   # mesh dim 0: Shard(0)._to_replicate_tensor
