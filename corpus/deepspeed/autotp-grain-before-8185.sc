# DeepSpeed AutoTP, column-parallel LinearLayer on a layer sized in
# tp_grain_size grains (inference config default tp_grain_size = 64), as
# shipped before PR #8185 ("[AutoTP] Complete uneven sharding and universal
# checkpoint support", merged as aa3914df82e8ba2d5dc2462b06c0160415e674db).
# deepspeedai/DeepSpeed @ 6098f799ee77fe87d64f6934242b4bfa96b984a5 (its parent):
# deepspeed/module_inject/tp_shard.py L47-79, get_shard_size / get_shard_size_list
# (grain path: num_kv_heads unset, or an "mlp" layer):
#   if total_size >= tp_grain_size:
#       grain_size = total_size // tp_grain_size
#       return (grain_size // mp_size + (1 if rank < (grain_size % mp_size) else 0)) * tp_grain_size
#   else:
#       return total_size // mp_size + (1 if rank < (total_size % mp_size) else 0)
#   ...
#   for i in range(mp_size):
#       shard_sizes.append(get_shard_size(total_size, mp_size, name, i))
#   return shard_sizes
# deepspeed/module_inject/layers.py L804-815, LinearLayer.uneven_partition:
#   _partition = params_list[idx].split(get_shard_size_list(params_list[idx].shape[0], self.tp_world_size,
#                                                           self.name),
#                                       dim=0)[self.tp_index]
# layers.py L778-786, LinearLayer.gather_params:
#   #  Does not support uneven shard.
#   output_param = torch.empty((self.tp_world_size * param.shape[0], *param.shape[1:]), ...)
#   dist.all_gather_into_tensor(output_param, param, group=self.mp_group)
# The bug: every shard is a whole number of grains, so the o % 64 rows past
# the last grain belong to no rank and the sizes sum to (o//64)*64 < o;
# torch.split raises on such a list (the `assert` below is torch.split's
# own check). Besides, gather_params gathers equal shapes only.
# shardcheck's minimal counterexample (semantics), the grain truncation:
#   minimal case: world=1 o=65 i=1 dtype=i32 seed=0
#   line 42 `assert o < 64 or (o//64)*64 == o`: assertion failed on rank 0
# (the other properties shrink to the equal-shape gather instead:
#   world=2 o=1: `all_gather_into_tensor`: ranks hold tensors of different
#   shapes (rank 0 [1, 1], rank 1 [0, 1])).
pipeline deepspeed-autotp-grain-before-8185
dims o i
input replicate            # the full weight [out_features, in_features]
output replicate           # gather_params rebuilds it
sizes o=1..160 i=1..2
expect fail
# torch.split(weight, get_shard_size_list(o, P, name), dim=0): the sizes must sum to o
assert o < 64 or (o//64)*64 == o
# ...[self.tp_index]: the rank's rows start after the earlier ranks' sizes
narrow 0 (64*(rank*(o//64//P)+min(rank,(o//64)%P)) if o >= 64 else rank*(o//P)+min(rank,o%P)) ((o//64//P+(1 if rank < (o//64)%P else 0))*64 if o >= 64 else o//P+(1 if rank < o%P else 0))
all_gather_into_tensor     # gather_params
