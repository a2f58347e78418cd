# NVIDIA NeMo's Megatron GPT with sequence parallelism and the apex
# LayerNorm (transformer engine off), before PR #7199: the LayerNorm's
# weight and bias are replicated over the TP ranks and each rank
# normalizes only its s/P tokens, so their gradients are partial sums that
# allreduce_sequence_parallel_gradients should all-reduce over the TP
# group. It collects the parameters marked `sequence_parallel`, but apex
# marks its LayerNorms `sequence_parallel_enabled` (and the default path
# passes a misspelled keyword, so they carry no mark at all): the LayerNorm
# gradients stay each rank's partial sum and the replicas drift apart.
# NVIDIA/NeMo @ 82bb8cb5f0322022214ac5624fee65dd18f70efb,
# nemo/collections/nlp/modules/common/megatron/fused_layer_norm.py L62:
#   return MixedFusedLayerNorm(hidden_size, eps, sequence_parallel_enbaled=sequence_parallel)
# nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py
# L664-675 (_append_sequence_parallel_module_grads):
#   for param in module.parameters():
#       sequence_parallel_param = getattr(param, 'sequence_parallel', False)
#       ...
#       if sequence_parallel_param and param.requires_grad:
#           ...
#           grads.append(grad.data)
# L690-691 (allreduce_sequence_parallel_gradients):
#   coalesced = torch._utils._flatten_dense_tensors(grads)
#   torch.distributed.all_reduce(coalesced, group=parallel_state.get_tensor_model_parallel_group())
# The regression came with 7854bd45 (#6393), which dropped the check of
# `sequence_parallel_enabled`; fixed by PR #7199 (sp-layernorm-wgrad-after-7199.sc).
# The backward program is LayerNorm's weight gradient written out.
pipeline nemo-sp-layernorm-wgrad-before-7199
dims s b h
tensor x [s, b, h] shard s     # the LayerNorm's input, sequence-parallel
tensor dy [s, b, h] shard s    # the gradient of its output
output dw [h] replicate        # the weight's gradient, as the optimizer sees it
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
dw = sum g dim=0               # not in `grads`: never all-reduced
