# SGLang DP attention, the all_gatherv path of the DP gather (attn_tp_size
# == 1): every DP rank contributes exactly sizes[rank] rows, zero-padded or
# cut to that count, and all_gatherv writes them into global_tokens.
# sgl-project/sglang, release v0.5.23 (PyPI wheel sglang==0.5.23, which records
# no commit), sglang/srt/layers/dp_attention.py (path in the wheel) L932-971,
# _dp_gather_via_all_gatherv:
#   rank = dp_slot_in(sizes)
#   local_rows = sizes[rank]
#   if local_tokens.shape[0] == local_rows:
#       local_real = local_tokens
#   elif local_tokens.shape[0] > local_rows:
#       local_real = local_tokens[:local_rows]
#   else:
#       local_real = local_tokens.new_zeros((local_rows, *local_tokens.shape[1:]))
#       local_real[: local_tokens.shape[0]].copy_(local_tokens)
#   get_parallel().tp_group.all_gatherv(local_real, sizes=sizes, output=global_tokens)
# The counts are data-dependent; the spec takes tensor_split's (first t % P
# ranks one token more) and local_tokens holding exactly them.
pipeline sglang-dp-gather-all-gatherv
dims t h
input shard t split           # local_tokens
output replicate              # global_tokens, sum(sizes) rows
expect pass
narrow 0 0 min(size(0),t//P+(1 if rank < t%P else 0))   # local_tokens[:local_rows]
pad 0 0 t//P+(1 if rank < t%P else 0)-size(0)           # new_zeros((local_rows, ...)) + copy
all_gather dim=0 sizes=t//P+(1 if src < t%P else 0)     # all_gatherv(local_real, sizes=sizes)
