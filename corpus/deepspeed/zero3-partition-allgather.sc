# DeepSpeed ZeRO-3: a parameter flattened and partitioned in equal pieces of
# ceil(numel/P) elements (the last pieces overlap the tail padding), then
# all-gathered back (_allgather_param, use_all_gather_into_tensor).
# deepspeedai/DeepSpeed @ edaa7221267243c7be7fb49c5d5f5c4fb97b4641,
# deepspeed/runtime/zero/partition_parameters.py
# L1662-1668 _aligned_size / _padding_size:
#   return param.ds_numel + self._padding_size(param)
#   remainder = param.ds_numel % partition_world_size
#   return (partition_world_size - remainder) if remainder else 0
# L1750-1870 _partition_param (excerpt L1788-1851):
#   tensor_size = self._aligned_size(param)
#   partition_size = tensor_size // self._partition_world_size(param)
#   partitioned_tensor = torch.empty(partition_size, dtype=param.dtype, device=device)
#   start = partition_size * self._partition_rank(param)
#   end = start + partition_size
#   one_dim_param = param.contiguous().view(-1)
#   if start < param.ds_numel and end <= param.ds_numel:
#       src_tensor = one_dim_param.narrow(0, start, partition_size)
#       param.ds_tensor.copy_(src_tensor)
#   else:
#       if start < param.ds_numel:
#           elems_to_copy = param.ds_numel - start
#           param.ds_tensor.narrow(0, 0,
#                                  elems_to_copy).copy_(one_dim_param.narrow(0, start, elems_to_copy))
# L1938-1992 _allgather_param:
#   flat_tensor = torch.zeros(aligned_param_size, dtype=param.dtype, device=param.device).view(-1)
#   handle = dist.all_gather_into_tensor(flat_tensor,
#                                        param.ds_tensor.to(get_accelerator().device_name()),
#                                        group=self.get_partition_dp_group(param),
#                                        async_op=async_op)
#   replicated_tensor = flat_tensor.narrow(0, 0, param.ds_numel).view(param.ds_shape)
# The tail of ds_tensor past the copied elements is never written
# (torch.empty): the spec pads it, and it must all land past ds_numel.
pipeline deepspeed-zero3-partition-allgather
dims a b
input replicate           # the full parameter when it is partitioned
output replicate          # param.data after _allgather_param
expect pass
flatten 0 1               # one_dim_param = param.contiguous().view(-1)
# the elements copied into ds_tensor: partition_size of them, or ds_numel - start, or none
narrow 0 min(rank*((a*b+(P-(a*b)%P if (a*b)%P != 0 else 0))//P),a*b) (((a*b+(P-(a*b)%P if (a*b)%P != 0 else 0))//P) if (rank+1)*((a*b+(P-(a*b)%P if (a*b)%P != 0 else 0))//P) <= a*b else max(0,a*b-rank*((a*b+(P-(a*b)%P if (a*b)%P != 0 else 0))//P)))
pad 0 0 (a*b+(P-(a*b)%P if (a*b)%P != 0 else 0))//P-size(0)   # ds_tensor = torch.empty(partition_size), copied part first
all_gather_into_tensor    # into flat_tensor[aligned_param_size]
narrow 0 0 a*b            # flat_tensor.narrow(0, 0, param.ds_numel)
view [a, b]               # .view(param.ds_shape)
