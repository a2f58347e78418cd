# mesh-placements.sc with uneven shards (torch.chunk's pieces on each
# mesh dim: a dim smaller than its group leaves empty shards), D up to 3
pipeline mesh-placements-uneven
dims b k n
mesh dp=D tp=T
tensor x [b, k] dp:shard b chunk tp:shard k chunk
tensor w [n, k] tp:shard k chunk
tensor g [b, n] dp:shard b chunk tp:partial sum
output y [b, n] dp:shard b chunk
sizes D=1..3 T=1..3 b=1..5 k=1..6 n=1..3

reference
y = linear x w
y = add y g

program
t = linear x w
t = add t g
t: all_reduce sum group=tp
y = t
