# vllm-gguf-plugin's GGUF parameter loading the k shard of a
# QKVParallelLinear (kv heads of d rows each, hidden h) as PR #106 ("[BugFix]
# Read the TP rank from the process group in merged column and QKV GGUF
# loaders", fixes issue #103) writes it: rank r keeps kv head(s)
# r // num_kv_head_replicas.
# vllm-project/vllm-gguf-plugin @ 0024ffcf5ecc974c3ee90dcdf3d03ea2e8bc075d,
# vllm_gguf_plugin/quantization/params.py, _GGUFParamLoadMixin.load_qkv_weight:
#     if (shard_size is not None and loaded_weight.ndim >= 1
#             and shard_size > 0 and shard_size < loaded_weight.shape[0]):
#         tp_rank = get_tensor_model_parallel_rank()
#         effective_tp_rank = (
#             tp_rank // num_kv_head_replicas if shard_id in ("k", "v") else tp_rank)
#         loaded_weight = loaded_weight.narrow(
#             0, effective_tp_rank * shard_size, shard_size)
# num_kv_head_replicas is the num_heads kwarg, which vLLM's
# QKVParallelLinear.weight_loader_v2 (vllm-project/vllm @
# 0036d38de46c5d48fdedeb658dedc0fc0f95677d, linear.py) sets to
# self.num_kv_head_replicas = max(1, P//kv); shard_size = num_kv_heads *
# head_size = max(1, kv//P)*d. Before the fix:
# corpus/vllm-gguf-plugin/qkv-k-tp-rank-before-106.sc.
# Lines: the file was read through the stored index, not a checkout, so
# line numbers at these commits were not measured; issue #103 cites the
# tp_rank lines as L246 (merged column) and L259 (qkv) on main before the fix.
# Left out: _store (clones into param.data_container, no layout change).
# 0024ffcf is a stored commit holding the fix; its parentage to 3e14a131
# was not checked (no mirror of the repository could be fetched here).
# Expected PASS.
# Confirmed on gloo (torch 2.11.0+cu130, and the same on torch 1.13):
# worlds 2, 3, 4: "after qkv k shard: 72 cases,
# 0 differ" (q, v too: "after qkv: 72 cases, 0 differ").
pipeline vllm-gguf-qkv-k-tp-rank-106
dims kv d h
require P % kv == 0 or kv % P == 0
input replicate                # the checkpoint's k rows, [kv, d, h]
output shard kv as (kv d) h    # param: [num_kv_heads*d, h]
expect pass
reference
repeat_interleave max(1,P//kv) 0
end
flatten 0 1                    # loaded_weight [kv*d, h]
narrow 0 ((rank//max(1,P//kv))*(max(1,kv//P)*d) if max(1,kv//P)*d > 0 and max(1,kv//P)*d < size(0) else 0) (max(1,kv//P)*d if max(1,kv//P)*d > 0 and max(1,kv//P)*d < size(0) else size(0))  # params.py: narrow(0, effective_tp_rank * shard_size, shard_size), tp_rank = get_tensor_model_parallel_rank()
