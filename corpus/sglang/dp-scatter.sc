# SGLang DP attention: scatter the global token buffer back to each DP
# rank, a local copy of the rank's slot (no communication).
# sgl-project/sglang, release v0.4.6 (PyPI wheel sglang==0.4.6, which records
# no commit), sglang/srt/layers/dp_attention.py (path in the wheel) L231-249, dp_scatter
# (local_start_pos, local_num_tokens from get_dp_local_info, L123-137):
#   local_start_pos, local_num_tokens = get_dp_local_info(forward_batch)
#   local_tokens.fill_(0)
#   if local_tokens.shape[0] > 0:
#       memcpy_triton(
#           local_tokens, global_tokens, 0, local_start_pos, local_num_tokens, True
#       )
# The counts are data-dependent; the spec takes tensor_split's (first t % P
# ranks one token more); local_tokens is sized to the count (no CUDA-graph
# padding).
pipeline sglang-dp-scatter
dims t h
input replicate               # global_tokens after the MoE/MLP layers
output shard t split          # local_tokens
expect pass
narrow 0 rank*(t//P)+min(rank,t%P) t//P+(1 if rank < t%P else 0)   # memcpy_triton(..., offset_src=True)
contiguous                    # copied into local_tokens
