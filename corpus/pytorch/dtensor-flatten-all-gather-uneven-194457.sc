# REPORTED BUG (fixed version) of dtensor-flatten-all-gather-uneven-before-194457.sc.
# pytorch/pytorch PR #194457 ("[DTensor] Do not flatten all_gather when shard
# dim is not evenly divisible") gives try_create_flattened's all_gather
# branch the guard its reduce_scatter branch already has, so an uneven
# nested [Shard(0), Shard(0)] -> [Replicate(), Replicate()] is not merged
# and falls back to the planner's two sequential all-gathers, tp first
# (logical size: this rank's dp piece), then dp (logical size s).
# Base: torch 2.11.0 wheel, pytorch/pytorch @
# 70d99e998b4955e0049d13a98d77ae1b14db1f45, torch/distributed/tensor/_redistribute.py
# L477-480, all_gather branch of try_create_flattened, with the PR's guard
# (the PR was open and its diff not in the stored corpus when read; the
# guard is transcribed from the PR description, the same test the
# reduce_scatter branch makes at L481-494):
#   tensor_dim_size = outermost_info.logical_shape[affected_dim]
#   effective_shard_mesh_size = math.prod(device_mesh.size(info.mesh_dim) for info in infos)
#   if tensor_dim_size % effective_shard_mesh_size != 0:
#       return None, "uneven_tensor_shape"
# L561-566: flattened is None -> result.extend(group): the two _TransformInfo
# run one by one in redistribute_local_tensor (L1523-1563), each through
# Shard._to_replicate_tensor (placement_types.py L373-399: pad to
# ceil(L/n), contiguous, funcol.all_gather_tensor(gather_dim=0), unpad to L)
# with the transform's logical shape: mesh dim 1 (tp) has L = this rank's
# dp piece, min(cdiv(s,D), max(0, s - dp*cdiv(s,D))) (the planner's
# _local_shard_size_on_dim), mesh dim 0 (dp) has L = s.
# An even s (s % (D*T) == 0) still takes the flattened all-gather, which is
# then the same as the two gathers (every pad is 0); the spec writes the
# sequential path for every s, which is what the guard chooses whenever
# it matters.
# Expected PASS.
# Confirmed on gloo (torch 2.11.0): a script runs the
# wheel's redistribute with _optimize_transform_infos replaced by its own
# source (inspect.getsource, verbatim) with the four guard lines above
# inserted after the all_gather branch's `outermost_info = max(...)`: the
# plan for 2x2, s=5 becomes _TransformInfo(mesh_dim=1, logical_shape=[3, 2]),
# _TransformInfo(mesh_dim=0, logical_shape=[5, 2]); worlds 2, 3, 4, every
# (D, T), s = 1..9, h = 1, 2: "after: 126 cases, 0 differ", `shardcheck
# eval` agrees on 126/126; with world 6: 198 cases, 0 differ, 198/198.
pipeline dtensor-flatten-all-gather-uneven-194457
mesh dp=D tp=T
dims s h
input dp:shard s chunk tp:shard s chunk       # [Shard(0), Shard(0)]
output replicate                              # [Replicate(), Replicate()]
expect pass
# mesh dim 1, Shard(0) -> Replicate(); logical size L = this dp piece
pad 0 0 cdiv(min(cdiv(s,D),max(0,s-dp*cdiv(s,D))),T)-size(0)   # pad_tensor (0 when L % T == 0)
contiguous
all_gather_into_tensor group=tp                                # funcol.all_gather_tensor(gather_dim=0, group=(mesh, 1))
narrow 0 0 min(cdiv(s,D),max(0,s-dp*cdiv(s,D)))                # unpad_tensor
# mesh dim 0, Shard(0) -> Replicate(); logical size s
pad 0 0 cdiv(s,D)-size(0)
contiguous
all_gather_into_tensor group=dp
narrow 0 0 s
