# `when` on a local step in a compute program: the step runs on the ranks
# where the condition holds, the others keep the tensor. Rank 0 flips its
# copy twice (an identity); every other rank flips it once and back by a
# statement that runs everywhere but on rank 0, so every rank ends with x.
pipeline l3-compute-step-when
dims s h
tensor x [s, h] replicate
output y [s, h] replicate
dtypes f32
expect pass

reference
y = x

program
t = x
t: flip 0
t: flip 0 when rank == 0
u = t
u: flip 0 when rank != 0
y = u
