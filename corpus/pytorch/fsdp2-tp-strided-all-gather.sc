# FSDP2 + TP unshard: the all-gather over the dp group that rebuilds the
# TP-local parameter (a DTensor [Shard(0)] on the tp mesh) from the strided
# FSDP shards. One parameter in the all-gather group, even sizes (FSDP+TP
# rejects uneven ones in this version, see fsdp2-tp-strided-shard-init.sc).
# pytorch/pytorch v2.5.1 = a8d6afb511a69687bbb2b7e88a3cf67917e1697e (torch 2.5.1 wheel):
# torch/distributed/_composable/fsdp/_fsdp_param.py L348: self._sharded_param_data = padded_sharded_param.view(-1)
# _fsdp_collectives.py L69-87, all_gather_copy_in_cuda:
#   all_gather_output = torch.empty((all_gather_input_numel * world_size,), ...)
#   all_gather_input = all_gather_output.narrow(0, all_gather_input_numel * rank, all_gather_input_numel)
#   torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)
# L127-175, foreach_all_gather (group = the dp mesh dim's group, world_size, rank = group.size(), group.rank()):
#   all_gather_work = dist.all_gather_into_tensor(
#       output_tensor=all_gather_output, input_tensor=all_gather_input, group=group, async_op=async_op)
# L233-279, foreach_all_gather_copy_out:
#   all_gather_output = all_gather_output.view(world_size, -1)
#   out = [t.view(world_size, -1) for t in gen]
#   torch.ops.fsdp.split_with_sizes_copy(all_gather_output, all_gather_input_split_sizes, dim=1, out=out)
# _fsdp_param.py L413-482, init_unsharded_param:
#   unsharded_tensor = self.all_gather_outputs[0]
#   unsharded_param = torch.as_strided(unsharded_tensor, self._orig_size,
#       self._contiguous_orig_stride, storage_offset=0)
#   if self.is_dtensor:
#       unsharded_param = _from_local_no_grad(unsharded_param, self._tp_spec)
# (_orig_size is param_data.size() = the TP-local size [o/T, i], L331.)
# Real torch 2.4.0 and 2.5.1: a replay of these lines on
# the real FSDPParam._sharded_param_data with gloo (FSDPModule.unshard needs CUDA
# here): "unshard_ok" True on every rank, both versions.
pipeline fsdp2-tp-strided-all-gather
mesh dp=D tp=T
dims o i
input tp,dp:shard o              # FSDPParam.sharded_param local tensor: [_StridedShard(0, sf=T), Shard(0)]
output tp:shard o                # the unsharded parameter: DTensor with self._tp_spec ([Shard(0)] on tp)
expect pass
flatten 0 1                      # self._sharded_param_data = padded_sharded_param.view(-1); copied into the input slot
all_gather_into_tensor group=dp  # dist.all_gather_into_tensor(all_gather_output, all_gather_input, group=dp group)
view [D, -1]                     # all_gather_output.view(world_size, -1)
contiguous                       # split_with_sizes_copy(..., dim=1, out=[t.view(world_size, -1)]): the one parameter's columns
flatten 0 1                      # all_gather_outputs[0], flat
narrow 0 0 (o/T)*i               # torch.as_strided(unsharded_tensor, _orig_size, contiguous stride, storage_offset=0)
view [o/T, i]
