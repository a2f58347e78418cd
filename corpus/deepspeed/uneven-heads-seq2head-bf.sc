# DeepSpeed Ulysses, first all-to-all (sequence -> heads) when the heads do
# not divide evenly: uneven_heads_all2all's scatter_idx >= 2 branch, on a
# batch-first [b, s/P, h, d] input (batch_dim_idx = 0, scatter_idx = 2,
# gather_idx = 1). Heads are split by get_shard_size_list (num_kv_heads set
# to h by single_all_to_all: the first h % P ranks get one head more).
# deepspeedai/DeepSpeed @ edaa7221267243c7be7fb49c5d5f5c4fb97b4641,
# deepspeed/sequence/layer.py L131-157, uneven_heads_all2all:
#   input_splits = get_shard_size_list(inp_shape[scatter_idx], seq_world_size)
#   input = input.transpose(0, scatter_idx).contiguous()
#   local_heads = input_splits[groups._get_sequence_parallel_rank()]
#   output_splits = [local_heads] * seq_world_size
#   dist.all_to_all_single(output,input,output_split_sizes=output_splits,\
#       input_split_sizes=input_splits,group=group)
#   output = output.view(seq_world_size, local_heads, *output.shape[1:])
#   if batch_dim_idx == 0:
#       order = [3, 0, 2, 1] + list(range(4, len(output.shape)))
#       output = output.permute(order).contiguous()
#       output = output.view(output.shape[0], inp_shape[gather_idx] * seq_world_size,
#                            *output.shape[3:]).contiguous()
pipeline deepspeed-uneven-heads-seq2head-bf
dims b s h d
input shard s                 # [b, s/P, h, d]
output shard h split          # [b, s, local_heads, d]
expect pass
transpose 0 2                 # input.transpose(0, scatter_idx): [h, s/P, b, d]
contiguous
# input_split_sizes = get_shard_size_list(h, P)[dst]; output_split_sizes = [local_heads] * P
all_to_all_single in=h//P+(1 if dst < h%P else 0) out=h//P+(1 if rank < h%P else 0)
view [P, size(0)//P, s/P, b, d]   # output.view(seq_world_size, local_heads, ...)
permute 3 0 2 1 4             # [b, P, s/P, local_heads, d]
contiguous
view [b, s/P*P, size(3), d]   # output.view(output.shape[0], inp_shape[gather_idx] * seq_world_size, ...)
contiguous
