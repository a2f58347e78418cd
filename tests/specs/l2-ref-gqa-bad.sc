# Planted: the kv head taken as rank % kv (replicas interleaved, not blocked)
dims kv d
require P % kv == 0 or kv % P == 0
input replicate
output shard kv
reference
repeat_interleave max(1,P//kv) 0
end
narrow 0 (rank%kv if P >= kv else rank*(kv//P)) (1 if P >= kv else kv//P)
