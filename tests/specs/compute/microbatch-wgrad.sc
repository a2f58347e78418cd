# A linear layer's weight gradient accumulated over micro-batches under
# tensor parallelism: each micro-batch's dW = dy^T x on the rank's output
# rows, summed into one gradient (`+=`), against dy^T x over the whole
# batch. The micro-batch in the middle of the batch (k) reads its own rows.
pipeline microbatch-wgrad
dims g t h f
microbatches N[g] t 0..6           # an empty micro-batch is allowed here
tensor x [t, h] replicate
tensor dy [t, f] shard f
output dw [f, h] shard f
sizes g=1..5 h=1..8 f=P..4*P

reference
dyt = dy
dyt: transpose 0 1
dw = matmul dyt x

program
microbatch k
  d = dy
  d: transpose 0 1
  w = matmul d x
  w = scale w 1/(k+1)              # a per-micro-batch factor, undone below: k is read
  w = scale w k+1
  dw += w
end
