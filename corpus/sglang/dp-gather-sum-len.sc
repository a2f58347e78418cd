# SGLang DP attention: gather every DP rank's tokens into one global buffer
# (sum of the per-rank token counts) by writing each rank's rows into its
# slot of a zeroed buffer and all-reducing (a variable-size all-gather as a
# sum of disjoint slots); attn_tp_size = 1 (dp_size = tp_size), so every
# rank is attn_tp_rank 0 and writes its rows.
# sgl-project/sglang, release v0.4.6 (PyPI wheel sglang==0.4.6, which records
# no commit), python/sglang/srt/layers/dp_attention.py
# L123-137 get_dp_local_info:
#   cumtokens = torch.cumsum(forward_batch.global_num_tokens_gpu, dim=0)
#   if dp_rank == 0:
#       local_start_pos = torch.zeros_like(cumtokens[0])
#   else:
#       local_start_pos = cumtokens[dp_rank - 1]
#   local_num_tokens = forward_batch.global_num_tokens_gpu[dp_rank]
# L181-212 _dp_gather:
#   global_tokens.fill_(0)
#   if local_tokens.shape[0] > 0 and (is_partial or get_attention_tp_rank() == 0):
#       memcpy_triton(
#           global_tokens, local_tokens, 0, local_start_pos, local_num_tokens, False
#       )
#   global_tokens[:] = tensor_model_parallel_all_reduce(global_tokens)
# The counts are data-dependent; the spec takes tensor_split's (first t % P
# ranks one token more), so local_start_pos = rank*(t//P) + min(rank, t%P).
pipeline sglang-dp-gather-sum-len
dims t h
input shard t split           # local_tokens [local_num_tokens, h]
output replicate              # global_tokens [sum of the counts, h]
expect pass
# fill_(0) + memcpy_triton at local_start_pos: zeros before and after the rank's rows
pad 0 rank*(t//P)+min(rank,t%P) t-(rank*(t//P)+min(rank,t%P))-size(0)
all_reduce sum                # tensor_model_parallel_all_reduce(global_tokens)
