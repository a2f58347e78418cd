# Planted: the output's dp shards are declared as tensor_split's (split)
# where the program leaves torch.chunk's; they differ first at D=3, b=4
# (chunk gives 2, 2, 0 rows, split 2, 1, 1)
pipeline mesh-placements-uneven-split
dims b k n
mesh dp=D tp=T
tensor x [b, k] dp:shard b chunk tp:shard k chunk
tensor w [n, k] tp:shard k chunk
tensor g [b, n] dp:shard b chunk tp:partial sum
output y [b, n] dp:shard b split
sizes D=1..3 T=1..3 b=1..5 k=1..6 n=1..3

reference
y = linear x w
y = add y g

program
t = linear x w
t = add t g
t: all_reduce sum group=tp
y = t
