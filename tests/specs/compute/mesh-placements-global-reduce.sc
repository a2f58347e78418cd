# mesh-placements.sc with the all-reduce over every rank instead of the
# tp group: the dp groups, which hold different rows, are summed together.
pipeline mesh-placements-global-reduce
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
t: all_reduce sum
y = t
