# MinivLLM's RowParallelLinear: the weight is split along its input dim
# over the TP ranks and the bias is held whole on every rank, and forward
# adds the bias inside every rank's GEMM before the SUM all-reduce, so the
# output carries tp_size times the bias.
# Wenyueh/MinivLLM @ 6e47fd07551321a62126d18e11060bdddaf4f67a (the file as
# e5c02ffb4f59ffe6f71a51c8c9a5315c8ae575c0, "correctly enable multi-gpu",
# left it), src/myvllm/layers/linear.py:
#   L29   self.bias = nn.Parameter(torch.zeros(output_size))
#   L207  super().__init__(input_size // tp_size, output_size, bias, tp_dim=1)
#   L217-218  start_index = self.tp_rank * shard_size
#             slided_weight = loaded_weights.narrow(1, start_index, shard_size)
#   L221-225  def forward(self, x: torch.Tensor) -> torch.Tensor:
#                 result = nn.functional.linear(x, self.weight, self.bias)
#                 if self.tp_size > 1:
#                     dist.all_reduce(result, op=dist.ReduceOp.SUM)
#                 return result
# Issues #13 ("Doubts about the forward () function of RowParallelLinear")
# and #80 ("RowParallelLinear adds bias multiple times when tp_size > 1":
# "After all_reduce, the final result contains tp_size * bias"); the fix
# proposed in PR #81 is row-parallel-linear-bias-pr81.sc. vLLM itself adds
# the bias on rank 0 only (corpus/vllm/row-parallel-bias-rank0.sc).
pipeline minivllm-row-parallel-linear-bias-e5c02ffb
dims b k n
tensor x [b, k] shard k          # the input, split as the weight's input dim
tensor w [n, k] shard k          # weight_loader: narrow(1, tp_rank * shard_size, shard_size)
tensor bias [n] replicate        # the whole bias on every rank
output y [b, n] replicate
sizes b=1..4 k=P..8*P n=1..8
expect fail

reference
y = linear x w bias

program
y = linear x w bias              # nn.functional.linear(x, self.weight, self.bias)
y: all_reduce sum
