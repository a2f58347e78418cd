# NVIDIA NeMo's Megatron GPT with sequence parallelism and the apex
# LayerNorm, as PR #7199 ("megatron gpt training fix") fixes it: the
# LayerNorm is apex's sequence-parallel MixedFusedLayerNorm, marked
# `sequence_parallel_enabled`, and the gradient collection accepts that
# mark, so the LayerNorm gradients join the coalesced all-reduce (SUM)
# over the TP group.
# NVIDIA/NeMo @ 994c9cd63f404eaa42e5fc3514b5936ea137b056,
# nemo/collections/nlp/modules/common/megatron/fused_layer_norm.py L18, L61:
#   from apex.transformer.layers.layer_norm import FastLayerNorm, MixedFusedLayerNorm
#   return MixedFusedLayerNorm(hidden_size, eps, sequence_parallel_enabled=sequence_parallel)
# nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py L665-667:
#   sequence_parallel_param = getattr(param, 'sequence_parallel', False) or getattr(
#       param, 'sequence_parallel_enabled', False
#   )
# and L690-691 unchanged (all_reduce over the TP group). The buggy version
# is sp-layernorm-wgrad-before-7199.sc.
pipeline nemo-sp-layernorm-wgrad-after-7199
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
g = sum g dim=0                # this rank's tokens' partial sum
dw = g
dw: all_reduce sum             # allreduce_sequence_parallel_gradients, now with the LayerNorm's grads
