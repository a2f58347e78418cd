# Mesh placements of compute tensors: x sharded over dp (rows) and tp
# (columns), w over tp, a partial-sum input over tp; the row-parallel
# product all-reduced within each tp group, the result dp-sharded.
pipeline mesh-placements
dims b k n
mesh dp=D tp=T
tensor x [b, k] dp:shard b tp:shard k
tensor w [n, k] tp:shard k
tensor g [b, n] dp:shard b tp:partial sum
output y [b, n] dp:shard b
sizes D=1..2 T=1..3 b=1..4 k=1..6 n=1..3

reference
y = linear x w
y = add y g

program
t = linear x w
t = add t g
t: all_reduce sum group=tp
y = t
