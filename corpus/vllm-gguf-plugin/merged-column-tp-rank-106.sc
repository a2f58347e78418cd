# vllm-gguf-plugin's GGUF parameter loading one shard (gate or up) of a
# MergedColumnParallelLinear (gate_up_proj), as PR #106 ("[BugFix] Read the
# TP rank from the process group in merged column and QKV GGUF loaders",
# fixes issue #103) writes it: rank r keeps rows r*n/P .. (r+1)*n/P.
# vllm-project/vllm-gguf-plugin @ 0024ffcf5ecc974c3ee90dcdf3d03ea2e8bc075d,
# vllm_gguf_plugin/quantization/params.py, _GGUFParamLoadMixin
# .load_merged_column_weight:
#     shard_id = kwargs.get("shard_id")
#     shard_size = kwargs.get("shard_size")
#     if (shard_size is not None and loaded_weight.ndim >= 1
#             and shard_size > 0 and shard_size < loaded_weight.shape[0]):
#         tp_rank = get_tensor_model_parallel_rank()
#         loaded_weight = loaded_weight.narrow(0, tp_rank * shard_size, shard_size)
#     self._store(loaded_weight, shard_id=shard_id)
# shard_size = output_sizes[id] // tp_size from vLLM's
# MergedColumnParallelLinear.weight_loader_v2 (vllm-project/vllm @
# 0036d38de46c5d48fdedeb658dedc0fc0f95677d, linear.py). Before the fix:
# corpus/vllm-gguf-plugin/merged-column-tp-rank-before-106.sc.
# Lines: the file was read through the stored index, not a checkout, so
# line numbers at these commits were not measured; issue #103 cites the
# tp_rank lines as L246 (merged column) and L259 (qkv) on main before the fix.
# Left out: _store (clones into param.data_container, no layout change).
# 0024ffcf is a stored commit holding the fix; its parentage to 3e14a131
# was not checked (no mirror of the repository could be fetched here).
# Expected PASS.
# Confirmed on gloo (torch 2.11.0+cu130, and the same on torch 1.13):
# worlds 2, 3, 4: "after merged: 27 cases, 0
# differ".
pipeline vllm-gguf-merged-column-tp-rank-106
dims n h
require n % P == 0
input replicate                # loaded_weight [n, h]: the checkpoint's gate (or up) rows
output shard n                 # this rank's n/P rows
expect pass
narrow 0 (rank*(n/P) if n/P > 0 and n/P < size(0) else 0) (n/P if n/P > 0 and n/P < size(0) else size(0))  # params.py: loaded_weight.narrow(0, tp_rank * shard_size, shard_size), tp_rank = get_tensor_model_parallel_rank()
