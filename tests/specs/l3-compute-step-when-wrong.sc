# The same with the second condition on rank 1 alone: ranks 2 and up keep a
# flipped copy, wrong from world 3 where s is at least 2.
pipeline l3-compute-step-when-wrong
dims s h
tensor x [s, h] replicate
output y [s, h] replicate
dtypes f32
expect fail

reference
y = x

program
t = x
t: flip 0
t: flip 0 when rank == 0
u = t
u: flip 0 when rank == 1
y = u
