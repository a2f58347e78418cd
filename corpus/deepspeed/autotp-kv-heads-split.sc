# DeepSpeed AutoTP, column-parallel LinearLayer (e.g. a q/k/v projection)
# split on whole heads when num_kv_heads is set: the first
# num_kv_heads % tp ranks get one head more (torch.tensor_split's rule).
# deepspeedai/DeepSpeed @ edaa7221267243c7be7fb49c5d5f5c4fb97b4641:
# deepspeed/module_inject/tp_shard.py L47-93, get_shard_size (num_kv_heads path):
#   if num_kv_heads is not None and total_size % num_kv_heads == 0 and "mlp" not in str(name) and \
#       str(name) not in last_linear and not_moe_mlp_layer:
#       my_slices = (num_kv_heads // mp_size) + (1 if rank < (num_kv_heads % mp_size) else 0)
#       return total_size * my_slices // num_kv_heads
# L101-113, get_shard_size_list:
#   for i in range(mp_size):
#       shard_sizes.append(get_shard_size(total_size, mp_size, name, i, num_kv_heads=num_kv_heads))
# deepspeed/module_inject/layers.py L473-483 _freeze_partition_sizes
# (self._partition_sizes = tuple(get_shard_size_list(total_size, self.tp_world_size, self.name))),
# L892-900 LinearLayer.uneven_partition:
#   _partition = params_list[idx].split(self._partition_sizes, dim=0)[self.tp_index]
# The weight is [h*d, i] (h = num_kv_heads heads of d rows); rank r keeps
# rows sum(sizes[:r]) .. + sizes[r], i.e. tensor_split of the heads.
pipeline deepspeed-autotp-kv-heads-split
dims h d i
input replicate as (h d) i       # the full weight [h*d, in_features]
output shard h split as (h d) i  # whole heads, the first h % P ranks one more
expect pass
# torch.split(weight, get_shard_size_list(h*d, P, name), dim=0)[tp_index]
narrow 0 (h*d)*(rank*(h//P)+min(rank,h%P))//h (h*d)*(h//P+(1 if rank < h%P else 0))//h
