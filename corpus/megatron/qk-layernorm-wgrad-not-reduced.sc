# Megatron-LM tensor parallelism with qk_layernorm: the query LayerNorm
# normalizes each head over its head dim d with one weight [d] shared by
# every head, and the heads are sharded over the TP ranks, so each rank's
# weight gradient sums over its own heads only. At
# NVIDIA/Megatron-LM @ c3d057f5865cf7c8fb2e05ae9df55d2fa3e8528f,
# megatron/core/distributed/finalize_model_grads.py, _allreduce_layernorm_grads
# ran only under sequence parallelism and only for parameters marked
# `sequence_parallel`:
#   if parallel_state.get_tensor_model_parallel_world_size() > 1 and config.sequence_parallel:
#       ...
#           if getattr(param, 'sequence_parallel', False):
# so without it the q_layernorm weight gradients were never all-reduced.
# Later Megatron-LM reduces them too (qk-layernorm-wgrad-allreduce.sc).
pipeline megatron-qk-layernorm-wgrad-not-reduced
dims s n d
tensor q [s, n, d] shard n     # heads sharded over TP
tensor dy [s, n, d] shard n
output dw [d] replicate
sizes s=1..4 n=P..2*P d=2..16
expect fail

reference
qh = layernorm q
g = mul dy qh
g = sum g dim=0
dw = sum g dim=0

program
qh = layernorm q
g = mul dy qh
g = sum g dim=0
dw = sum g dim=0               # this rank's heads only, never reduced
