# slapo sequence parallelism with a realistic mistake: the all-gather after
# dropout forgets its transposes and gathers along axis 0 (batch), so the
# result is [P*b, s/P, h] where [b, s, h] was meant.
pipeline slapo-6-seqpar-linear-rs-ag-wrong
dims b s h k
tensor x [b, s, k] shard k
tensor w [h, k] shard k
output y [b, s, h] replicate
dtypes f32 bf16
sizes b=1..3 s=P..3*P h=1..6 k=P..4*P
require s % P == 0
expect fail

reference
y = linear x w

program
t = linear x w
t: transpose 0 1
t: contiguous
t: reduce_scatter_tensor sum
t: transpose 0 1
t: contiguous
t: all_gather_into_tensor     # along batch: the transposes are missing
y = t
