# DTensor redistribute of a nested uneven sharding [Shard(0), Shard(0)] ->
# [Replicate(), Replicate()] on a (dp, tp) mesh whose flattened submesh
# exists (mesh._flatten(), as torchtitan builds "dp_shard_cp" and the like).
# _optimize_transform_infos merges the two Shard(0) -> Replicate() steps
# (tp, then dp) into ONE all-gather over the flattened dp*tp mesh, padding
# every rank to ceil(s / (D*T)) rows. The nested shards are torch.chunk of
# torch.chunk (dp first, then tp), not one torch.chunk over D*T ranks, so
# the short ranks sit in the middle of the flat order and their padding
# lands inside the gathered rows; the cut at the end drops real rows.
# REPORTED BUG (buggy version): pytorch/pytorch PR #194457 ("[DTensor] Do not
# flatten all_gather when shard dim is not evenly divisible", open when
# read; "Reproduces on current main and on v2.13.0"): try_create_flattened
# rejects reduce_scatter on an uneven dim ("uneven_tensor_shape") but the
# all_gather branch has no such guard.
# Buggy: torch 2.11.0 wheel, torch.version.git_version =
# pytorch/pytorch @ 70d99e998b4955e0049d13a98d77ae1b14db1f45 (files read from
# that wheel, /root/.cache/shardcheck/torch2):
# torch/distributed/tensor/_redistribute.py L426-528 (inside _optimize_transform_infos L352-589), try_create_flattened:
#   elif comm_type == "all_gather":
#       if mesh_dims != sorted_mesh_dims[::-1]:          (transforms tp then dp: (1, 0))
#           return None, "non_ascending_mesh_dims"
#   flattened_mesh = _get_flattened_mesh_by_layout(device_mesh, sorted_mesh_dims)
#   if comm_type == "all_gather":                        (L477-480)
#       affected_dim = cast(Shard, src).dim
#       outermost_info = max(infos, key=lambda x: x.logical_shape[affected_dim])
#       (no divisibility check; the reduce_scatter branch L481-494 has one)
#   return _FlattenedTransformInfo(mesh_dim=0, ..., logical_shape=outermost_info.logical_shape,
#                                  mesh=flattened_mesh, ...)
# L1446-1561, redistribute_local_tensor: mesh_to_use = transform_info.mesh;
#   new_local_tensor = current_placement._to_replicate_tensor(local_tensor, mesh_to_use, i,
#                                                             transform_info.logical_shape)
# torch/distributed/tensor/placement_types.py L373-399, Shard._to_replicate_tensor,
# with _maybe_pad_tensor L339-355 / _maybe_unpad_tensor L358-371:
#   is_padded = logical_dim_size % num_chunks != 0       (num_chunks = D*T, logical size s)
#   full_chunk_size = (logical_dim_size + num_chunks - 1) // num_chunks
#   pad_size = full_chunk_size - local_tensor.size(self.dim); pad_tensor(...)
#   result = funcol.all_gather_tensor(local_tensor, gather_dim=self.dim, group=(mesh, mesh_dim))
#   unpad_size = full_chunk_size * num_chunks - logical_dim_size; unpad_tensor(...)
# The flattened mesh's ranks are dp*T + tp (the row-major layout of the
# (dp, tp) mesh), so the gather is group=dp,tp. Left out: the planner
# (_gen_transform_infos) and the shard-order bookkeeping, which only pick
# the two steps transcribed; dim 1 (h) is untouched. The nested input rows
# have rank 0's piece at least as long as any other's (ceil(ceil(s/D)/T) =
# ceil(s/(D*T))), so pad_size is never negative.
# Expected FAIL. Minimal case: world=4 D=2 T=2 s=2 h=1: the nested pieces
# are 1, 0 | 1, 0 rows (dp halves of 1 row, each cut over tp), the flat
# gather pads every rank to ceil(2/4) = 1 row and gathers X0 pad X1 pad,
# the unpad keeps 2 rows: every rank's row 1 holds padding, expected X[1].
# Needs both mesh dims > 1, so world >= 4: `check --exhaustive --world 1..3`
# passes every case (and reports the expectation unmet); --world 1..4 fails.
# Confirmed on gloo (torch 2.11.0, the wheel's own DTensor code, unmodified):
# init_device_mesh("cpu", (D, T)) with
# mesh._flatten("dp_tp"), distribute_tensor(X, mesh, [Shard(0), Shard(0)])
# then .redistribute(mesh, [Replicate(), Replicate()]), every (D, T) of
# worlds 2, 3, 4, s = 1..9, h = 1, 2: "before: 126 cases, 8 differ" (all on
# the 2x2 mesh, s = 2, 5, 6, 9; a mesh dim of size 1 makes nested = flat),
# smallest "world=4 D=2 T=2 s=2 h=1: rank 0 got [1.0, 0.0], expected
# [1, 2]", the same element as shardcheck's minimal case; `shardcheck eval`
# of this spec gives the same verdict on 126/126 cases. With world 6 added
# (2x3, 3x2): 198 cases, 30 differ, eval agrees on 198/198. The plan
# printed for 2x2, s=5: one _FlattenedTransformInfo(mesh_dim=0,
# logical_shape=[5, 2]). The PR's own example (X = arange(15)
# viewed (5, 3), 2x2 mesh) gives on gloo exactly the PR's "got" tensor:
# rows X0 X1 X2, a zero row, X3; X4 lost.
pipeline dtensor-flatten-all-gather-uneven-before-194457
mesh dp=D tp=T
dims s h
input dp:shard s chunk tp:shard s chunk       # [Shard(0), Shard(0)]: nested in mesh order
output replicate                              # [Replicate(), Replicate()]
expect fail
# one _FlattenedTransformInfo: Shard(0) -> Replicate() over the flattened (dp, tp) mesh, logical size s
pad 0 0 (cdiv(s,P)-size(0) if s % P != 0 else 0)     # _maybe_pad_tensor: pad_tensor(local, 0, full_chunk_size - local size)
contiguous
all_gather_into_tensor group=dp,tp                    # funcol.all_gather_tensor(gather_dim=0, group=(flattened mesh, 0))
narrow 0 0 (size(0)-(cdiv(s,P)*P-s) if s % P != 0 else size(0))   # _maybe_unpad_tensor
