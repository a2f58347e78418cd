# Megatron-LM sequence parallelism, backward: a LayerNorm's weight is
# replicated on the TP ranks but each rank normalizes only its s/P tokens,
# so its weight gradient, sum over tokens of dy * xhat, is a partial sum
# that finalize_model_grads all-reduces over the TP group (every parameter
# marked `sequence_parallel`).
# NVIDIA/Megatron-LM @ c3d057f5865cf7c8fb2e05ae9df55d2fa3e8528f,
# megatron/core/distributed/finalize_model_grads.py, _allreduce_layernorm_grads:
#   if parallel_state.get_tensor_model_parallel_world_size() > 1 and config.sequence_parallel:
#       for param in get_attr_wrapped_model(model_chunk, 'parameters')():
#           if getattr(param, 'sequence_parallel', False):
#               grads.append(param.main_grad.data)
#       coalesced = _flatten_dense_tensors(grads)
#       torch.distributed.all_reduce(coalesced, group=parallel_state.get_tensor_model_parallel_group())
# The backward program is LayerNorm's weight gradient written out.
pipeline megatron-sp-layernorm-wgrad-allreduce
dims s b h
tensor x [s, b, h] shard s     # the LayerNorm's input, sequence-parallel
tensor dy [s, b, h] shard s    # the gradient of its output
output dw [h] replicate        # the weight's gradient, as the optimizer sees it
sizes s=P..4*P b=1..2 h=1..16
expect pass

reference
xh = layernorm x
g = mul dy xh
g = sum g dim=0
dw = sum g dim=0

program
xh = layernorm x
g = mul dy xh
g = sum g dim=0
dw = sum g dim=0               # this rank's tokens only
dw: all_reduce sum             # _allreduce_layernorm_grads
