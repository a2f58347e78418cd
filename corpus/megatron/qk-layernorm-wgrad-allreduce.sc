# Megatron-LM tensor parallelism with qk_layernorm: the query LayerNorm
# normalizes each head over its head dim d with one weight [d] shared by
# every head, and the heads are sharded over the TP ranks, so each rank's
# weight gradient sums over its own heads only; finalize_model_grads
# all-reduces (SUM) the q_layernorm and k_layernorm weights' gradients over
# the TP group, selected by name.
# NVIDIA/Megatron-LM @ 7334edfc738a32ea174dc04daf5b89e27e80e9a0 ("QK
# layernorm", merge request ADLR/megatron-lm!1096, the commit that adds
# qk_layernorm), megatron/core/distributed/finalize_model_grads.py L77-93:
#   if parallel_state.get_tensor_model_parallel_world_size() > 1 and (
#       config.sequence_parallel or config.qk_layernorm
#   ):
#       ...
#           for name, param in get_attr_wrapped_model(model_chunk, 'named_parameters')():
#               if (
#                   getattr(param, 'sequence_parallel', False)
#                   or 'q_layernorm' in name
#                   or 'k_layernorm' in name
#               ):
#                   grad = param.main_grad
#       ...
#       if grads:
#           coalesced = _flatten_dense_tensors(grads)
#           torch.distributed.all_reduce(
#               coalesced, group=parallel_state.get_tensor_model_parallel_group()
# megatron/core/transformer/attention.py L375-387: self.q_layernorm =
# build_module(submodules.q_layernorm, hidden_size=self.hidden_size_per_attention_head, ...).
# At HEAD (d98e8a64, _allreduce_non_tensor_model_parallel_grads L452-453)
# the same selection by name still SUM-reduces them. A per-head norm the
# selection misses is gdn-out-norm-wgrad-not-reduced.sc.
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
