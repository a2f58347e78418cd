# nvFuser tensor-parallel MLP made sequence parallel (the output sharded on
# s, as after a reduce-scatter), with a real mistake: the reduce-scatter runs
# along dim 0 (batch) instead of dim 1 (sequence). The shapes only agree when
# b == s, and the data is then the wrong block.
pipeline nvfuser-tp-mlp-seqpar-wrong-axis
dims b s h f
tensor x [b, s, h] replicate
tensor w1 [f, h] shard f
tensor b1 [f] shard f
tensor w2 [h, f] shard f
tensor b2 [h] replicate
output y [b, s, h] shard s
dtypes bf16 f32
sizes b=P..2*P s=P..2*P h=1..8 f=P..4*P
expect fail

reference
t = linear x w1 b1
t = gelu t tanh
y = linear t w2 b2

program
t = linear x w1 b1
t = gelu t tanh
t = linear t w2
t: reduce_scatter dim=0 op=sum   # should be dim=1
y = add t b2
