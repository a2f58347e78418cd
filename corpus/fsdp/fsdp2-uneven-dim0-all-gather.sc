# FSDP2 (fully_shard) parameter sharding on dim 0 over an uneven torch.chunk
# shard, then the all-gather that rebuilds the unsharded parameter.
# pytorch/pytorch @ 134179474539648ba7dee1317959529fbd0e7f89 (torch 2.7.0):
# torch/distributed/fsdp/_fully_shard/_fsdp_common.py L121-127, _chunk_with_empty:
#   chunks = list(torch.chunk(tensor, num_chunks, dim=dim))
#   while len(chunks) < num_chunks:
#       chunks.append(chunks[0].new_empty(0))
# _fsdp_param.py L353-398, FSDPParam._init_sharded_param:
#   chunks = _chunk_with_empty(param_data, shard_world_size, dim=shard_dim)
#   sharded_param = chunks[shard_rank]
#   padded_sharded_size = chunks[0].size()  # 0th always padded
#   padded_sharded_param = param_data.new_zeros(padded_sharded_size)
#   if sharded_param.numel() > 0:
#       padded_sharded_param.narrow(
#           dim=shard_dim, start=0, length=sharded_param.size(shard_dim)
#       ).copy_(sharded_param)
#   self._sharded_param_data = padded_sharded_param.view(-1)
# _fsdp_collectives.py L73-91 all_gather_copy_in_cuda, L137-188 foreach_all_gather:
#   all_gather_input = all_gather_output.narrow(
#       0, all_gather_input_numel * rank, all_gather_input_numel
#   )
#   all_gather_work = dist.all_gather_into_tensor(
#       output_tensor=all_gather_output,
#       input_tensor=all_gather_input,
#       group=group,
#       async_op=async_op,
#   )
# L244-308 foreach_all_gather_copy_out (one parameter in the group):
#   all_gather_output = all_gather_output.view(world_size, -1)
#   out = [t.view(world_size, -1) for t in split_with_sizes_out]
#   torch.ops.fsdp.split_with_sizes_copy(
#       all_gather_output, all_gather_input_split_sizes, dim=1, out=out
#   )
# _fsdp_param.py L509-519, init_unsharded_param:
#   unsharded_param = torch.as_strided(
#       unsharded_tensor,
#       self._orig_size,
#       self._contiguous_orig_stride,
#       storage_offset=0,
#   )
# Correct only because the padding sits at the end of each rank's slot and
# only trailing ranks are short: the first s*h gathered elements are X.
pipeline fsdp2-uneven-dim0-all-gather
dims s h
input replicate            # param_data at init: the whole parameter on every rank
output replicate           # the unsharded parameter
expect pass
take 0 P rank              # _chunk_with_empty(param_data, P, 0)[shard_rank]
pad 0 0 cdiv(s,P)-size(0)  # new_zeros(chunks[0].size()), real rows copied to the front
flatten 0 1                # _sharded_param_data = padded_sharded_param.view(-1)
all_gather_into_tensor     # the input is this rank's narrow of the flat output
view [P, -1]               # all_gather_output.view(world_size, -1)
contiguous                 # split_with_sizes_copy(dim=1) into the one parameter's [P, c*h] buffer
flatten 0 1                # all_gather_outputs[0] is that buffer, flat
narrow 0 0 s*h             # as_strided(orig_size, contiguous strides, storage_offset=0)
view [s, h]
