# vllm-gguf-plugin's GGUF parameter loading the k shard of a
# QKVParallelLinear (kv heads of d rows each, hidden h), the GGUF
# counterpart of vLLM's own loader (corpus/vllm/qkv-kv-head-replicas.sc):
# rank r must keep kv head(s) r // num_kv_head_replicas, each head
# replicated over P/kv consecutive ranks when P >= kv.
# vllm-project/vllm-gguf-plugin @ 3e14a131ba40b37dec91d4f692e266347dfe0319,
# vllm_gguf_plugin/quantization/params.py, _GGUFParamLoadMixin.load_qkv_weight:
#     shard_id = kwargs.get("shard_id")
#     tp_rank = kwargs.get("tp_rank", 0)
#     shard_size = kwargs.get("shard_size")
#     num_kv_head_replicas = kwargs.get("num_heads", 1)
#     if (shard_size is not None and loaded_weight.ndim >= 1
#             and shard_size > 0 and shard_size < loaded_weight.shape[0]):
#         effective_tp_rank = (
#             tp_rank // num_kv_head_replicas if shard_id in ("k", "v") else tp_rank)
#         loaded_weight = loaded_weight.narrow(
#             0, effective_tp_rank * shard_size, shard_size)
#     self._store(loaded_weight, shard_id=shard_id)
# The caller, vLLM's QKVParallelLinear.weight_loader_v2 (vllm-project/vllm
# @ 0036d38de46c5d48fdedeb658dedc0fc0f95677d, linear.py), passes
# num_heads=self.num_kv_head_replicas, shard_id="k", shard_offset and
# shard_size = num_kv_heads * head_size, never tp_rank: the default 0 wins
# and every rank keeps the first kv head(s) (issue #103, fixed by PR #106,
# corpus/vllm-gguf-plugin/qkv-k-tp-rank-106.sc). num_kv_heads =
# max(1, kv//P), num_kv_head_replicas = max(1, P//kv) (QKVParallelLinear
# .__init__, divide() asserting the require). v is loaded the same way; q
# has effective_tp_rank = tp_rank (wrong as the merged-column case).
# Lines: the file was read through the stored index, not a checkout, so
# line numbers at these commits were not measured; issue #103 cites the
# tp_rank lines as L246 (merged column) and L259 (qkv) on main before the fix.
# Left out: _store (clones into param.data_container, no layout change).
# The reference repeats each kv head num_kv_head_replicas times, as the
# existing vLLM spec does. With kv = 1 every rank's right head is head 0,
# so the bug is invisible there.
# Expected FAIL. Minimal case: world 2, kv=2, d=1, h=1 (rank 1 holds head 0).
# Confirmed on gloo (torch 2.11.0+cu130, and the same on torch 1.13):
# worlds 2, 3, 4, q, k and v loaded per case:
# "before qkv k shard: 72 cases, 52 differ" (the 20 that agree are kv=1;
# shardcheck's eval of world 2 kv=1 passes too), smallest world=2 K=2 d=1
# H=1, rank 1's k shard wrong, as the minimal case; "after qkv k shard: 72
# cases, 0 differ".
pipeline vllm-gguf-qkv-k-tp-rank-before-106
dims kv d h
require P % kv == 0 or kv % P == 0
input replicate                # the checkpoint's k rows, [kv, d, h]
output shard kv as (kv d) h    # param: [num_kv_heads*d, h]
expect fail
reference
repeat_interleave max(1,P//kv) 0
end
flatten 0 1                    # loaded_weight [kv*d, h]
narrow 0 ((0//max(1,P//kv))*(max(1,kv//P)*d) if max(1,kv//P)*d > 0 and max(1,kv//P)*d < size(0) else 0) (max(1,kv//P)*d if max(1,kv//P)*d > 0 and max(1,kv//P)*d < size(0) else size(0))  # params.py: narrow(0, effective_tp_rank * shard_size, shard_size), effective_tp_rank = tp_rank // num_kv_head_replicas, tp_rank = kwargs.get("tp_rank", 0)
