# MinivLLM's RowParallelLinear as PR #81 ("fix(linear): fix bias handling
# in parallel linear layers", proposed for issue #80) writes it: the GEMM
# without the bias, the SUM all-reduce, then the whole bias added once on
# every rank.
# HaoYuan-Gao/MinivLLM @ ca310151d4f36e012041ff483b15aaa00dbd5648 (branch
# fix_linear_bias, on Wenyueh/MinivLLM 6e47fd07), src/myvllm/layers/linear.py L252-263:
#   def forward(self, x: torch.Tensor) -> torch.Tensor:
#       # Do not add bias before all_reduce.
#       # Otherwise, each rank adds bias once and all_reduce will sum them.
#       result = nn.functional.linear(x, self.weight, None)
#       if self.tp_size > 1:
#           dist.all_reduce(result, op=dist.ReduceOp.SUM)
#       if self.bias is not None:
#           result = result + self.bias
#       return result
# The buggy version is row-parallel-linear-bias-e5c02ffb.sc.
pipeline minivllm-row-parallel-linear-bias-pr81
dims b k n
tensor x [b, k] shard k
tensor w [n, k] shard k
tensor bias [n] replicate
output y [b, n] replicate
sizes b=1..4 k=P..8*P n=1..8
expect pass

reference
y = linear x w bias

program
y = linear x w                   # nn.functional.linear(x, self.weight, None)
y: all_reduce sum
y = add y bias                   # result + self.bias, after the all-reduce
