# DeepSpeed Ulysses, first all-to-all (sequence -> heads) when the heads do
# not divide evenly: uneven_heads_all2all's scatter_idx >= 2 branch, on a
# sequence-first [s/P, b, h, d] input (batch_dim_idx = 1, scatter_idx = 2,
# gather_idx = 0). Heads are split by get_shard_size_list (num_kv_heads set
# to h by single_all_to_all: the first h % P ranks get one head more).
# deepspeedai/DeepSpeed @ edaa7221267243c7be7fb49c5d5f5c4fb97b4641,
# deepspeed/sequence/layer.py L131-161, uneven_heads_all2all:
#   input_splits = get_shard_size_list(inp_shape[scatter_idx], seq_world_size)
#   input = input.transpose(0, scatter_idx).contiguous()
#   local_heads = input_splits[groups._get_sequence_parallel_rank()]
#   output_splits = [local_heads] * seq_world_size
#   output_buffer_shape = [seq_world_size * local_heads] + list(input.shape[1:])
#   dist.all_to_all_single(output,input,output_split_sizes=output_splits,\
#       input_split_sizes=input_splits,group=group)
#   output = output.view(seq_world_size, local_heads, *output.shape[1:])
#   elif batch_dim_idx == 1:
#       output = output.transpose(1, 3).contiguous()
#       output = output.view(inp_shape[gather_idx] * seq_world_size, *output.shape[2:]).contiguous()
# (get_shard_size, deepspeed/module_inject/tp_shard.py L47-93:
#   my_slices = (num_kv_heads // mp_size) + (1 if rank < (num_kv_heads % mp_size) else 0)
#   return total_size * my_slices // num_kv_heads )
pipeline deepspeed-uneven-heads-seq2head-sf
dims s b h d
input shard s                 # [s/P, b, h, d]
output shard h split          # [s, b, local_heads, d]
expect pass
transpose 0 2                 # input.transpose(0, scatter_idx): [h, b, s/P, d]
contiguous
# input_split_sizes = get_shard_size_list(h, P)[dst]; output_split_sizes = [local_heads] * P
all_to_all_single in=h//P+(1 if dst < h%P else 0) out=h//P+(1 if rank < h%P else 0)
view [P, size(0)//P, b, s/P, d]   # output.view(seq_world_size, local_heads, ...)
transpose 1 3                 # [P, s/P, b, local_heads, d]
contiguous
view [s/P*P, b, size(3), d]   # output.view(inp_shape[gather_idx] * seq_world_size, ...)
contiguous
