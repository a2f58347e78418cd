# vLLM's RowParallelLinear: the weight is sharded along its input dim, each
# rank computes partial sums, and only TP rank 0 fuses the bias into its
# GEMM before the all-reduce, so the bias is added once.
# vllm-project/vllm @ 0036d38de46c5d48fdedeb658dedc0fc0f95677d,
# vllm/model_executor/layers/linear.py, RowParallelLinear.forward:
#   # Only fuse bias add into GEMM for rank 0 (this ensures that
#   # bias will not get added more than once in TP>1 case)
#   bias_ = None if (self.tp_rank > 0 or self.skip_bias_add) else self.bias
#   output_parallel = self.quant_method.apply(self, input_parallel, bias_)
#   if self.reduce_results and self.tp_size > 1:
#       output = tensor_model_parallel_all_reduce(output_parallel)
pipeline vllm-row-parallel-bias-rank0
dims b k n
tensor x [b, k] shard k        # input_is_parallel: each rank holds its k/P columns
tensor w [n, k] shard k        # weight [out, in] sharded along in
tensor bias [n] replicate
output y [b, n] replicate
sizes b=1..4 k=P..8*P n=1..8
expect pass

reference
y = linear x w bias

program
y = linear x w                     # bias_ = None on tp_rank > 0
y = linear x w bias when rank == 0 # rank 0 fuses the bias into its GEMM
y: all_reduce sum
