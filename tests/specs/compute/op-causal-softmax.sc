# causal attention probabilities: scores masked above the diagonal that
# aligns the last query with the last key (flash-attn's causal=True when
# s <= t), by Megatron's mask value, then a softmax over the keys; heads
# sharded over ranks (not on f8: -10000 is outside f8e4m3's range, and
# torch has no masked_fill for the f8 dtypes)
pipeline op-causal-softmax
dims b n s t d
tensor q [b, n, s, d] shard n
tensor k [b, n, d, t] shard n
output y [b, n, s, t] replicate
sizes b=1..2 n=P..2*P s=1..4 t=4..8 d=1..16
dtypes bf16 f16 f32 f64

reference
a = matmul q k
a = scale a 1/sqrt(d)
a = tril a diagonal=t-s fill=-10000
y = softmax a dim=-1

program
a = matmul q k
a = scale a 1/sqrt(d)
a = tril a diagonal=t-s fill=-10000
y = softmax a dim=-1
y: all_gather dim=1
