# pow, sqrt, rsqrt: the L2 norm of rows sharded over h (partial sums of
# squares all-reduced), and x scaled by its inverse
pipeline op-pow-sqrt
dims b h
tensor x [b, h] shard h
output y [b, h] shard h
sizes b=1..4 h=P..16*P

reference
q = pow x 2
s = sum q dim=1 keepdim
s = add s 1e-3
n = sqrt s
r = rsqrt s
t = mul x r
y = div t n

program
q = pow x 2
s = sum q dim=1 keepdim
s: all_reduce sum
s = add s 1e-3
n = sqrt s
r = rsqrt s
t = mul x r
y = div t n
