# vLLM GQA with tp > num_kv_heads: each rank holds kv head rank // (P // kv)
dims kv d
require P % kv == 0 or kv % P == 0
input replicate
output shard kv
reference
repeat_interleave max(1,P//kv) 0
end
narrow 0 (rank//(P//kv) if P >= kv else rank*(kv//P)) (1 if P >= kv else kv//P)
