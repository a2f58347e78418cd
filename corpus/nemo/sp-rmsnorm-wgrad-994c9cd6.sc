# NVIDIA NeMo's Megatron GPT with sequence parallelism and
# normalization='rmsnorm' (transformer engine off), after PR #7199 fixed
# the LayerNorms: the RMSNorm is apex.normalization's MixedFusedRMSNorm,
# which marks its weight with neither `sequence_parallel` nor
# `sequence_parallel_enabled`, so allreduce_sequence_parallel_gradients
# never collects it and each TP rank keeps the partial sum over its own s/P
# tokens (sp-layernorm-wgrad-before-7199.sc is the same for LayerNorm).
# NVIDIA/NeMo @ 994c9cd63f404eaa42e5fc3514b5936ea137b056,
# nemo/collections/nlp/modules/common/megatron/transformer.py:
#   L47   from apex.normalization import MixedFusedRMSNorm
#   L228  self.input_layernorm = MixedFusedRMSNorm(hidden_size, layernorm_epsilon)
# nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py L665-667:
#   sequence_parallel_param = getattr(param, 'sequence_parallel', False) or getattr(
#       param, 'sequence_parallel_enabled', False
#   )
# NVIDIA/apex @ 6309120bf4158e552884427b18ebafc657d418df,
# apex/normalization/fused_layer_norm.py L420-430: MixedFusedRMSNorm.__init__
# passes only normalized_shape, eps and elementwise_affine on (no mark).
# Megatron Core's RMSNorm under sequence parallelism is marked and reduced:
# corpus/megatron/sp-rmsnorm-wgrad-allreduce.sc.
pipeline nemo-sp-rmsnorm-wgrad-994c9cd6
dims s b h
tensor x [s, b, h] shard s     # the RMSNorm's input, sequence-parallel
tensor dy [s, b, h] shard s    # the gradient of its output
output dw [h] replicate        # the weight's gradient, as the optimizer sees it
sizes s=P..4*P b=1..2 h=1..16
expect fail

reference
xh = rmsnorm x                 # x / rms(x)
g = mul dy xh
g = sum g dim=0
dw = sum g dim=0

program
xh = rmsnorm x
g = mul dy xh
g = sum g dim=0
dw = sum g dim=0               # not collected: never all-reduced
