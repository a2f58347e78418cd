# Megatron Core's RMSNorm under sequence parallelism: TENorm builds
# Transformer Engine's RMSNorm with sequence_parallel=config.sequence_parallel
# (which marks its weight `sequence_parallel`), and finalize_model_grads
# SUM-reduces the marked weights' gradients over the TP group; each rank's
# gradient is the partial sum over its s/P tokens.
# NVIDIA/Megatron-LM @ d98e8a64ddf34856e74b24714e3bedb2f5a39553,
# megatron/core/extensions/transformer_engine.py L1082-1101:
#   elif config.normalization == "RMSNorm":
#       ...
#           norm_module = te.pytorch.RMSNorm
#   instance = norm_module(normalized_shape=hidden_size, eps=eps,
#       sequence_parallel=config.sequence_parallel, ...)
# megatron/core/distributed/finalize_model_grads.py L451-453, L465-472:
#   elif (config.sequence_parallel and getattr(param, "sequence_parallel", False)) or (...):
#       ... grads_sum.append(grad.data)
#   coalesced = _flatten_dense_tensors(grads)
#   torch.distributed.all_reduce(coalesced, op=all_reduce_op, group=tp_group)   # SUM
# NeMo's unmarked RMSNorm is corpus/nemo/sp-rmsnorm-wgrad-994c9cd6.sc.
pipeline megatron-sp-rmsnorm-wgrad-allreduce
dims s b h
tensor x [s, b, h] shard s
tensor dy [s, b, h] shard s
output dw [h] replicate
sizes s=P..4*P b=1..2 h=1..16
expect pass

reference
xh = rmsnorm x
g = mul dy xh
g = sum g dim=0
dw = sum g dim=0

program
xh = rmsnorm x
g = mul dy xh
g = sum g dim=0
g = sum g dim=0                # this rank's tokens' partial sum
dw = g
dw: all_reduce sum             # finalize_model_grads: SUM over the TP group
