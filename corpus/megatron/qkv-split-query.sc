# Megatron's fused QKV unpacked into the query heads, per TP rank.
# NVIDIA/Megatron-LM tag core_v0.14.0 = 23e00ed0963c35382dfe8a5a94fb3cda4d21e133,
# megatron/core/transformer/attention.py L987-1037,
# SelfAttention.get_query_key_value_tensors:
#   # [sq, b, hp] --> [sq, b, ng, (np/ng + 2) * hn]
#   mixed_qkv = mixed_qkv.view(*new_tensor_shape)
#   split_arg_list = [np/ng * hn, hn, hn]   (per partition)
#   (query, key, value) = torch.split(mixed_qkv, split_arg_list, dim=3)
#   # [sq, b, ng, np/ng * hn] -> [sq, b, np, hn]
#   query = query.reshape(query.size(0), query.size(1), -1, self.hidden_size_per_attention_head)
# X is linear_qkv's whole output [s, b, g, j, e]: g query groups, each with
# j = np/ng + 2 heads (its np/ng query heads, then k, then v) of e = hn
# values, group-interleaved; tensor parallelism shards the groups. Y (the
# reference) is the query heads of every group; each rank must end with
# its groups' query heads [s, b, np/t, hn].
pipeline megatron-qkv-split-query
dims s b g j e
require j >= 3
sizes j=3..6
input shard g as s b (g j e)          # mixed_qkv [sq, b, ng/t * (np/ng + 2) * hn]
output shard g as s b (g j) e         # query [sq, b, np/t, hn]
expect pass
reference
narrow 3 0 j-2                        # the query heads of each group
end
tensor mixed_qkv = input
mixed_qkv = view mixed_qkv [size(0), size(1), g//P, j*e]
query, key, value = split mixed_qkv [(j-2)*e, e, e] dim=3
query = reshape query [size(0), size(1), -1, e]
