# vllm-gguf-plugin's GGUF parameter loading one shard (gate or up) of a
# MergedColumnParallelLinear (gate_up_proj): the checkpoint's [n, h] tensor
# is on every rank, and rank r must keep rows r*n/P .. (r+1)*n/P.
# vllm-project/vllm-gguf-plugin @ 3e14a131ba40b37dec91d4f692e266347dfe0319,
# vllm_gguf_plugin/quantization/params.py, _GGUFParamLoadMixin
# .load_merged_column_weight:
#     shard_id = kwargs.get("shard_id")
#     tp_rank = kwargs.get("tp_rank", 0)
#     shard_size = kwargs.get("shard_size")
#     if (shard_size is not None and loaded_weight.ndim >= 1
#             and shard_size > 0 and shard_size < loaded_weight.shape[0]):
#         loaded_weight = loaded_weight.narrow(0, tp_rank * shard_size, shard_size)
#     self._store(loaded_weight, shard_id=shard_id)
# The caller, vLLM's MergedColumnParallelLinear.weight_loader_v2
# (vllm-project/vllm @ 0036d38de46c5d48fdedeb658dedc0fc0f95677d,
# vllm/model_executor/layers/linear.py), passes loaded_weight, shard_id,
# shard_offset = sum(output_sizes[:id]) // tp_size and
# shard_size = output_sizes[id] // tp_size, never tp_rank: the default 0
# wins and every rank keeps rank 0's rows (issue #103, fixed by PR #106,
# corpus/vllm-gguf-plugin/merged-column-tp-rank-106.sc).
# Lines: the file was read through the stored index, not a checkout, so
# line numbers at these commits were not measured; issue #103 cites the
# tp_rank lines as L246 (merged column) and L259 (qkv) on main before the fix.
# Left out: _store (_store_gguf_loaded_weight clones the narrowed tensor
# into param.data_container, no layout change); the other shard (up) is
# loaded by the same call with its own tensor. MergedColumnParallelLinear
# asserts output_size % tp_size == 0 (the require). The guard is kept: at
# P = 1 shard_size == n and nothing is narrowed.
# Expected FAIL. Minimal case: world 2, n=2, h=1 (rank 1 holds X[0], not X[1]).
# Confirmed on gloo (torch 2.11.0+cu130, and the same on torch 1.13):
# a script runs the verbatim loader of both commits on
# worlds 2, 3, 4 and all_gathers every rank's stored shards: "before
# merged: 27 cases, 27 differ", smallest world=2 I=2 H=1, rank 1 wrong for
# both gate and up; "after merged: 27 cases, 0 differ".
pipeline vllm-gguf-merged-column-tp-rank-before-106
dims n h
require n % P == 0
input replicate                # loaded_weight [n, h]: the checkpoint's gate (or up) rows
output shard n                 # this rank's n/P rows
expect fail
narrow 0 (0*(n/P) if n/P > 0 and n/P < size(0) else 0) (n/P if n/P > 0 and n/P < size(0) else size(0))  # params.py: loaded_weight.narrow(0, tp_rank * shard_size, shard_size), tp_rank = kwargs.get("tp_rank", 0) = 0
