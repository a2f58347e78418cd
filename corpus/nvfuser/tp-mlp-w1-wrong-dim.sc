# nvFuser tensor-parallel MLP with a real mistake: the first weight is sharded
# on its input dim h instead of its output dim f (with x sharded on h to
# match), so each rank's first linear is a partial sum and gelu is applied
# to partial sums: gelu(sum) != sum(gelu) whenever P > 1.
pipeline nvfuser-tp-mlp-w1-wrong-dim
dims b s h f
tensor x [b, s, h] shard h
tensor w1 [f, h] shard h
tensor b1 [f] replicate
tensor w2 [h, f] replicate
tensor b2 [h] replicate
output y [b, s, h] replicate
dtypes bf16 f32
sizes b=1..2 s=1..4 h=P..8*P f=1..8
expect fail

reference
t = linear x w1 b1
t = gelu t tanh
y = linear t w2 b2

program
t = linear x w1 b1        # a partial sum over this rank's h
t = gelu t tanh
y = linear t w2 b2

