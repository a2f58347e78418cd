# Megatron-LM tensor parallelism with qk_layernorm, as later versions fix
# it: _allreduce_layernorm_grads also runs when config.qk_layernorm is set
# and reduces every parameter whose name holds q_layernorm or k_layernorm:
#   if parallel_state.get_tensor_model_parallel_world_size() > 1 and (
#       config.sequence_parallel or config.qk_layernorm
#   ):
#       ...
#           if (param.requires_grad and getattr(param, 'sequence_parallel', False)
#               or 'q_layernorm' in name or 'k_layernorm' in name):
# (megatron/core/distributed/finalize_model_grads.py after
# c3d057f5865cf7c8fb2e05ae9df55d2fa3e8528f; the version with the buggy
# condition is qk-layernorm-wgrad-not-reduced.sc).
pipeline megatron-qk-layernorm-wgrad-allreduce
dims s n d
tensor q [s, n, d] shard n
tensor dy [s, n, d] shard n
output dw [d] replicate
sizes s=1..4 n=P..2*P d=2..16
expect pass

reference
qh = layernorm q
g = mul dy qh
g = sum g dim=0
dw = sum g dim=0

program
qh = layernorm q
g = mul dy qh
g = sum g dim=0
dw = sum g dim=0
dw: all_reduce sum
