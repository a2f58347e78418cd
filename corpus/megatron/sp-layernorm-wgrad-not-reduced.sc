# Megatron-LM sequence parallelism with a LayerNorm weight that lacks the
# `sequence_parallel` attribute: _allreduce_layernorm_grads selects
# parameters by that attribute alone, so this weight's gradient stays the
# partial sum over the rank's own tokens, and the TP ranks' replicas drift
# apart. A planted variant of
# NVIDIA/Megatron-LM @ c3d057f5865cf7c8fb2e05ae9df55d2fa3e8528f,
# megatron/core/distributed/finalize_model_grads.py, _allreduce_layernorm_grads
#   if getattr(param, 'sequence_parallel', False):
# for a parameter the model forgot to mark (the real case of it is
# corpus/megatron/qk-layernorm-wgrad-not-reduced.sc).
pipeline megatron-sp-layernorm-wgrad-not-reduced
dims s b h
tensor x [s, b, h] shard s
tensor dy [s, b, h] shard s
output dw [h] replicate
sizes s=P..4*P b=1..2 h=1..16
expect fail

reference
xh = layernorm x
g = mul dy xh
g = sum g dim=0
dw = sum g dim=0

program
xh = layernorm x
g = mul dy xh
g = sum g dim=0
dw = sum g dim=0               # never all-reduced
