# nvFuser tensor-parallel MLP with a real mistake: the second bias is added on
# every rank before the all-reduce, so the result carries P * b2 (wrong
# whenever P > 1 and b2 is not zero). The "matmul + add half bias +
# all_reduce" idea of the PR's review needs the bias scaled by 1/P.
pipeline nvfuser-tp-mlp-bias-before-allreduce
dims b s h f
tensor x [b, s, h] replicate
tensor w1 [f, h] shard f
tensor b1 [f] shard f
tensor w2 [h, f] shard f
tensor b2 [h] replicate
output y [b, s, h] replicate
dtypes bf16 f32
sizes b=1..2 s=1..4 h=1..16 f=P..8*P
expect fail

reference
t = linear x w1 b1
t = gelu t tanh
y = linear t w2 b2

program
t = linear x w1 b1
t = gelu t tanh
y = linear t w2 b2        # bias inside the partial sums
y: all_reduce sum
