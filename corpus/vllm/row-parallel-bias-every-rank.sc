# vLLM's RowParallelLinear without the guard its comment explains
# ("this ensures that bias will not get added more than once in TP>1
# case"): every rank fuses the bias into its GEMM, so the all-reduce adds
# it P times. A planted variant of
# vllm-project/vllm @ 0036d38de46c5d48fdedeb658dedc0fc0f95677d,
# vllm/model_executor/layers/linear.py, RowParallelLinear.forward, with
#   bias_ = None if (self.tp_rank > 0 or self.skip_bias_add) else self.bias
# replaced by `bias_ = self.bias` (corpus/nvfuser/tp-mlp-bias-before-
# allreduce.sc is the same mistake in nvFuser's MLP).
pipeline vllm-row-parallel-bias-every-rank
dims b k n
tensor x [b, k] shard k
tensor w [n, k] shard k
tensor bias [n] replicate
output y [b, n] replicate
sizes b=1..4 k=P..8*P n=1..8
expect fail

reference
y = linear x w bias

program
y = linear x w bias
y: all_reduce sum
