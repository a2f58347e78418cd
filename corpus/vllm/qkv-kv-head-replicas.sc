# vLLM QKVParallelLinear loading the k projection of a GQA model (K kv
# heads of d rows each) when tp may exceed K: every rank holds one kv head,
# replicated over consecutive ranks, or K/tp heads.
# vllm-project/vllm v0.33.0 (wheel __commit_id__ g4ba787ec9),
# vllm/model_executor/layers/linear.py, QKVParallelLinear:
#   __init__ L1040-1091:
#     if tp_size >= self.total_num_kv_heads:
#         self.num_kv_heads = 1
#         self.num_kv_head_replicas = divide(tp_size, self.total_num_kv_heads)
#     else:
#         self.num_kv_heads = divide(self.total_num_kv_heads, tp_size)
#         self.num_kv_head_replicas = 1
#   weight_loader L1278-1320 (loaded_shard_id "k"):
#     shard_size = self.num_kv_heads * self.head_size
#     shard_rank = self.tp_rank // self.num_kv_head_replicas
#     start_idx = shard_rank * shard_size
#     loaded_weight = loaded_weight.narrow(output_dim, start_idx, shard_size)
# The global k weight each rank's slice is taken from is the checkpoint's
# with each head repeated num_kv_head_replicas times (the reference); divide()
# asserts the divisibility the require states. Rows are (kv, d) merged.
pipeline vllm-qkv-kv-head-replicas
dims kv d
require P % kv == 0 or kv % P == 0
input replicate                # loaded_weight [K*d, hidden]: the checkpoint's k rows
output shard kv as (kv d)      # param [num_kv_heads*d]: this rank's heads
expect pass
reference
repeat_interleave max(1,P//kv) 0
end
flatten 0 1
narrow 0 (rank//max(1,P//kv))*max(1,kv//P)*size(0)//kv max(1,kv//P)*size(0)//kv
