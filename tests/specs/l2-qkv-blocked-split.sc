# Planted: Megatron's group-interleaved fused QKV split as if it were
# blocked ([all q | all k | all v], vLLM's layout): the query takes k and v
# rows of the first groups as soon as a rank holds two groups
dims s b g j e
require j >= 3
sizes j=3..6
input shard g as s b (g j e)
output shard g as s b (g j) e
reference
narrow 3 0 j-2
end
tensor mixed_qkv = input
query, key, value = split mixed_qkv [(g//P)*(j-2)*e, (g//P)*e, (g//P)*e] dim=2
query = reshape query [size(0), size(1), -1, e]
