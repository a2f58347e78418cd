# wrong: the bias added where the dp coordinate is 0 instead of the tp one
# (every tp rank of dp group 0 adds it, no rank of the others)
pipeline when-mesh-wrong-dim
expect fail
dims b k n
mesh dp=D tp=T
tensor x [b, k] replicate
tensor w [n, k] replicate
tensor c [n] replicate
output y [b, n] replicate
sizes D=1..2 T=1..4 b=1..3 k=1..8 n=1..4

reference
y = linear x w c

program
t = linear x w
t = scale t 1/T
t = add t c when dp == 0
t: all_reduce sum group=tp
y = t
