# softmax over the last dim of heads sharded over ranks, scaled by
# 1/sqrt(d) (attention probabilities)
pipeline op-softmax
dims b n s t d
tensor q [b, n, s, d] shard n
tensor k [b, n, d, t] shard n
output y [b, n, s, t] replicate
sizes b=1..2 n=P..2*P s=1..4 t=1..8 d=1..16

reference
t = matmul q k
t = scale t 1/sqrt(d)
y = softmax t dim=-1

program
t = matmul q k
t = scale t 1/sqrt(d)
y = softmax t dim=-1
y: all_gather dim=1
