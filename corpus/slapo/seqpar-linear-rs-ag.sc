# slapo sequence parallelism (PR 6) with compute: a row-parallel linear (input
# and weight sharded on the inner dim k) gives partial sums; they are
# reduce-scattered along axis 1 (sequence) through transposes around the
# dim-0 collective, dropout is the identity, and an all-gather along axis 1
# restores the full sequence (slapo/sharding/sync_ops.py).
pipeline slapo-6-seqpar-linear-rs-ag
dims b s h k
tensor x [b, s, k] shard k
tensor w [h, k] shard k
output y [b, s, h] replicate
dtypes f32 bf16
sizes b=1..3 s=P..3*P h=1..6 k=P..4*P
require s % P == 0
expect pass

reference
y = linear x w

program
t = linear x w            # [b, s, h] partial sums
t: transpose 0 1
t: contiguous
t: reduce_scatter_tensor sum
t: transpose 0 1
t: contiguous             # [b, s/P, h]; dropout: identity
t: transpose 0 1
t: contiguous
t: all_gather_into_tensor
t: transpose 0 1
y = t
