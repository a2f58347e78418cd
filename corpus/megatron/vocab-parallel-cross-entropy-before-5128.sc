# Megatron-LM's unfused vocab-parallel cross-entropy before PR #5128: the
# three reductions, and the rank that places the vocab range, use the
# launch's global TP group (parallel_state) instead of the model's own TP
# group. They differ where a model has its own process-group collection
# (heterogeneous multi-module training): here the launch's TP groups are
# the tp groups of a dp x tp mesh while the model shards its vocabulary
# over all D*T ranks. With D=2, T=1 each reduction spans one rank and both
# ranks take vocab ids from 0.
# NVIDIA/Megatron-LM @ 669b747d895e8d9c3fc75ae3f60fcec7086dfe75 (the fix's
# parent; the file unchanged since 2488e20d), megatron/core/tensor_parallel/cross_entropy.py:
#   L130-132  torch.distributed.all_reduce(
#                 logits_max, op=torch.distributed.ReduceOp.MAX, group=get_tensor_model_parallel_group())
#   L136-139  partition_vocab_size = vocab_parallel_logits.size()[-1]
#             rank = get_tensor_model_parallel_rank()
#             world_size = get_tensor_model_parallel_world_size()
#             vocab_start_index, vocab_end_index = get_vocab_range(partition_vocab_size, rank, world_size)
#   L148-158  all_reduce(predicted_logits, SUM, group=get_tensor_model_parallel_group())
#             all_reduce(sum_exp_logits, SUM, group=get_tensor_model_parallel_group())
#   L77       loss = torch.log(sum_exp_logits) - predicted_logits
# megatron/core/models/common/language_module/language_module.py L54, L183:
#   self.tp_group = get_tensor_model_parallel_group_if_none(pg_collection.tp)
#   loss = tensor_parallel.vocab_parallel_cross_entropy(logits, labels)    # no group passed
# (the fused TE and native paths, L176 and L181, already passed pg_collection.tp).
# Fixed by PR #5128, "Pass TP group to unfused cross entropy"
# (vocab-parallel-cross-entropy-after-5128.sc).
pipeline megatron-vocab-parallel-cross-entropy-before-5128
dims s b v
mesh dp=D tp=T                          # the launch's TP groups: tp; the model's TP group: dp,tp
tensor logits [s, b, v] dp,tp:shard v   # the model's vocab shards: v/(D*T) columns per rank
tensor target [s, b] replicate index v
output loss [s, b] replicate
sizes s=1..4 b=1..2 D=1..2 T=1..2
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
l = cast logits f32                      # .float()
m = max l dim=-1 keepdim
m: all_reduce max group=tp               # get_tensor_model_parallel_group()
z = sub l m
p = pick z target start=tp*(v/(D*T))     # get_tensor_model_parallel_rank() * partition_vocab_size
p: all_reduce sum group=tp
e = exp z
se = sum e dim=-1
se: all_reduce sum group=tp
ls = log se
loss = sub ls p
