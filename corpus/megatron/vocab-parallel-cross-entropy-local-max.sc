# Megatron-LM's vocab-parallel cross-entropy with its first reduction
# dropped: each rank subtracts its own maximum, so the exponentials summed
# across ranks are scaled differently and log(sum exp) - target logit is
# wrong whenever the ranks' maxima differ. A planted variant of
# NVIDIA/Megatron-LM @ 00611e6eeb0b09b5ee074750956855215ddbd67f,
# megatron/core/tensor_parallel/cross_entropy.py, without
#   torch.distributed.all_reduce(logits_max, op=ReduceOp.MAX, group=tp_group)
# (the subtraction is only for stability, so the omission looks harmless).
pipeline megatron-vocab-parallel-cross-entropy-local-max
dims s b v
tensor logits [s, b, v] shard v
tensor target [s, b] replicate index v
output loss [s, b] replicate
sizes s=1..4 b=1..2 v=P..8*P
expect fail

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
l = cast logits f32
m = max l dim=-1 keepdim                # no all-reduce: the rank's own max
z = sub l m
p = pick z target start=rank*(v/P)
p: all_reduce sum
e = exp z
se = sum e dim=-1
se: all_reduce sum
ls = log se
loss = sub ls p
