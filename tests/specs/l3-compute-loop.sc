# A loop in a compute program: an all-reduce written as P-1 shifts of the
# rank's partial sum, the i-th shifted i places (the loop's index in a
# step), added up. The reference sums the whole tensor.
pipeline l3-compute-loop
dims n h
tensor a [n, h] shard n
output y [h] replicate
dtypes f32 f64
expect pass

reference
y = sum a dim=0

program
s = sum a dim=0
y = s
for i in 1..P-1
  u = s
  u: shift i
  y = add y u
end
