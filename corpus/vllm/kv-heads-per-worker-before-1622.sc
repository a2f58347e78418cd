# vLLM 0.2.1.post1 sized each worker's KV heads as K // tp
# (vllm/config.py L143-170, ModelConfig.get_num_kv_heads):
#   if getattr(self.hf_config, "num_key_value_heads", None) is not None:
#       return (self.hf_config.num_key_value_heads //
#               parallel_config.tensor_parallel_size)
# while the model of the same release replicates kv heads when tp > K
# (vllm/model_executor/models/llama.py L98-128: num_kv_heads =
# max(1, total_num_kv_heads // tp_size), shard_id = tp_rank //
# num_kv_heads_replicas). A worker's share of the k projection output is
# then sized K // tp heads: none at all when tp > K. Fixed in 0.2.2
# (vllm/config.py L205-213: max(1, total_num_kv_heads // tp); vLLM PR #1640
# says it was fixed as part of #1622). Release wheels read, no commit.
# Minimal counterexample: world 2 with one kv head:
#   rank 0 output has shape [0], but the output placement needs [1]
pipeline vllm-kv-heads-per-worker-before-1622
dims kv d
require P % kv == 0 or kv % P == 0
input replicate
output shard kv as (kv d)
expect fail
reference
repeat_interleave max(1,P//kv) 0
end
flatten 0 1
# the worker's heads: get_num_kv_heads() = K // tp of them, from its shard
narrow 0 (rank//max(1,P//kv))*max(1,kv//P)*size(0)//kv (kv//P)*size(0)//kv
