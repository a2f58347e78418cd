# Megatron-LM's unfused vocab-parallel cross-entropy as PR #5128 ("Pass TP
# group to unfused cross entropy") fixes it: the model passes its own TP
# group, and the three reductions and the vocab range use it. The same
# mesh as vocab-parallel-cross-entropy-before-5128.sc: the launch's TP
# groups are tp, the model's TP group is every rank (dp,tp).
# NVIDIA/Megatron-LM @ 4a47b160c0d17e81c1d569980a6148e93d580d51,
# megatron/core/tensor_parallel/cross_entropy.py:
#   L124-125  if tp_group is None:
#                 tp_group = get_tensor_model_parallel_group()
#   L130      torch.distributed.all_reduce(logits_max, op=torch.distributed.ReduceOp.MAX, group=tp_group)
#   L134-137  partition_vocab_size = vocab_parallel_logits.size()[-1]
#             rank = get_pg_rank(tp_group)
#             world_size = get_pg_size(tp_group)
#             vocab_start_index, vocab_end_index = get_vocab_range(partition_vocab_size, rank, world_size)
#   L146-152  all_reduce(predicted_logits, SUM, group=tp_group); all_reduce(sum_exp_logits, SUM, group=tp_group)
# megatron/core/models/common/language_module/language_module.py L183-185:
#   loss = tensor_parallel.vocab_parallel_cross_entropy(
#       logits, labels, tp_group=self.tp_group
#   )
pipeline megatron-vocab-parallel-cross-entropy-after-5128
dims s b v
mesh dp=D tp=T                          # the launch's TP groups: tp; the model's TP group: dp,tp
tensor logits [s, b, v] dp,tp:shard v   # the model's vocab shards: v/(D*T) columns per rank
tensor target [s, b] replicate index v
output loss [s, b] replicate
sizes s=1..4 b=1..2 D=1..2 T=1..2
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
l = cast logits f32                      # .float()
m = max l dim=-1 keepdim
m: all_reduce max group=dp,tp            # the model's tp_group
z = sub l m
p = pick z target start=(dp*T+tp)*(v/(D*T))   # get_pg_rank(tp_group) * partition_vocab_size
p: all_reduce sum group=dp,tp
e = exp z
se = sum e dim=-1
se: all_reduce sum group=dp,tp
ls = log se
loss = sub ls p
