# DeepSpeed AutoTP, column-parallel LinearLayer on a layer sized in
# tp_grain_size grains (inference config default tp_grain_size = 64), as
# fixed by PR #8185 ("[AutoTP] Complete uneven sharding and universal
# checkpoint support"): the o % 64 rows past the last grain go to the last rank.
# deepspeedai/DeepSpeed @ aa3914df82e8ba2d5dc2462b06c0160415e674db:
# deepspeed/module_inject/tp_shard.py L47-113, get_shard_size / get_shard_size_list:
#   if total_size >= tp_grain_size:
#       grain_size, remainder = divmod(total_size, tp_grain_size)
#       shard_size = (grain_size // mp_size + (1 if rank < (grain_size % mp_size) else 0)) * tp_grain_size
#       if rank == mp_size - 1:
#           shard_size += remainder
#       return shard_size
#   else:
#       return total_size // mp_size + (1 if rank < (total_size % mp_size) else 0)
#   ...
#   assert sum(shard_sizes) == total_size, (...)
# deepspeed/module_inject/layers.py L473-483 _freeze_partition_sizes, L892-900
# LinearLayer.uneven_partition:
#   _partition = params_list[idx].split(self._partition_sizes, dim=0)[self.tp_index]
# L875-886 LinearLayer.gather_params -> L486-516 _all_gather_shards(param, partition_sizes, dim=0):
#   assert partition_sizes[self.tp_index] == shard.shape[dim], (...)
#   max_size = max(partition_sizes)
#   padded = shard.new_zeros(padded_shape)
#   padded.narrow(dim, 0, shard.shape[dim]).copy_(shard)
#   dist.all_gather_into_tensor(buffer, padded, group=self.mp_group)
#   shards = buffer.view(world_size, *padded_shape)
#   return torch.cat([shards[i].narrow(dim, 0, size) for i, size in enumerate(partition_sizes)], dim=dim)
# Not literal: the pad to max(partition_sizes), all_gather_into_tensor and
# the cat of each shard's first partition_sizes[i] rows are written as the
# list all_gather with those sizes (the same rows; the language has no step
# that narrows each rank's slot of a gathered buffer by its own length).
# The sizes are neither torch.chunk's nor tensor_split's, so the spec checks
# the partition by its round trip through the gather.
pipeline deepspeed-autotp-grain-after-8185
dims o i
input replicate            # the full weight [out_features, in_features]
output replicate           # gather_params rebuilds it
sizes o=1..160 i=1..2
expect pass
# torch.split(weight, self._partition_sizes, dim=0)[self.tp_index]
narrow 0 (64*(rank*(o//64//P)+min(rank,(o//64)%P)) if o >= 64 else rank*(o//P)+min(rank,o%P)) ((o//64//P+(1 if rank < (o//64)%P else 0))*64+(o%64 if rank == P-1 else 0) if o >= 64 else o//P+(1 if rank < o%P else 0))
# _all_gather_shards: partition_sizes[self.tp_index] == shard.shape[dim]
assert size(0) == ((o//64//P+(1 if rank < (o//64)%P else 0))*64+(o%64 if rank == P-1 else 0) if o >= 64 else o//P+(1 if rank < o%P else 0))
# pad to max(partition_sizes), all_gather_into_tensor, cat of the narrowed slots
all_gather dim=0 sizes=((o//64//P+(1 if src < (o//64)%P else 0))*64+(o%64 if src == P-1 else 0) if o >= 64 else o//P+(1 if src < o%P else 0))
