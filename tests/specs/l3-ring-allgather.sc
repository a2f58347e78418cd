# An all-gather as a ring of P-1 shifts (batch_isend_irecv to rank+1 each
# step), each received shard prepended; then the rotation that puts shard 0
# first (rank r holds shards r+1, ..., r in that order)
dims s h
input shard s
output replicate
tensor x = input
acc = contiguous x
for i in 1..P-1
  x = shift x 1
  acc = cat x acc dim=0
end
a = narrow acc 0 (P-1-rank)*(size(0)//P) (rank+1)*(size(0)//P)
b = narrow acc 0 0 (P-1-rank)*(size(0)//P)
y = cat a b dim=0
