# Megatron-LM's vocab-parallel cross-entropy: logits sharded along the
# vocabulary; the max, the target logit and the sum of exponentials are
# each all-reduced over the TP group.
# NVIDIA/Megatron-LM @ 00611e6eeb0b09b5ee074750956855215ddbd67f,
# megatron/core/tensor_parallel/cross_entropy.py,
# _VocabParallelCrossEntropy.forward and VocabParallelCrossEntropy:
#   vocab_parallel_logits = vocab_parallel_logits.float()
#   logits_max = torch.max(vocab_parallel_logits, dim=-1)[0]
#   torch.distributed.all_reduce(logits_max, op=ReduceOp.MAX, group=tp_group)
#   vocab_parallel_logits -= logits_max.unsqueeze(dim=-1)
#   target_mask = (target < vocab_start_index) | (target >= vocab_end_index)
#   masked_target = target.clone() - vocab_start_index; masked_target[target_mask] = 0
#   predicted_logits_1d = logits_2d[arange_1d, masked_target_1d]
#   predicted_logits[target_mask] = 0.0
#   exp_logits = vocab_parallel_logits; torch.exp(vocab_parallel_logits, out=exp_logits)
#   sum_exp_logits = exp_logits.sum(dim=-1)
#   torch.distributed.all_reduce(predicted_logits, op=ReduceOp.SUM, group=tp_group)
#   torch.distributed.all_reduce(sum_exp_logits, op=ReduceOp.SUM, group=tp_group)
#   loss = torch.log(sum_exp_logits) - predicted_logits
# The vocab range of rank r is [r * v/P, (r + 1) * v/P) (VocabUtility).
pipeline megatron-vocab-parallel-cross-entropy
dims s b v
tensor logits [s, b, v] shard v
tensor target [s, b] replicate index v
output loss [s, b] replicate
sizes s=1..4 b=1..2 v=P..8*P
expect pass

reference
l = cast logits f64
m = max l dim=-1 keepdim
z = sub l m
e = exp z
se = sum e dim=-1
ls = log se
p = pick z target
loss = sub ls p

program
l = cast logits f32                     # .float()
m = max l dim=-1 keepdim
m: all_reduce max
z = sub l m
p = pick z target start=rank*(v/P)      # masked target logits
p: all_reduce sum
e = exp z
se = sum e dim=-1
se: all_reduce sum
ls = log se
loss = sub ls p
