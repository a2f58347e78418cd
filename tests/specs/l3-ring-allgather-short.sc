# Planted: the ring stops one step short (range(P-2) for range(P-1)): every
# rank misses one shard
dims s h
input shard s
output replicate
tensor x = input
acc = contiguous x
for i in 1..P-2
  x = shift x 1
  acc = cat x acc dim=0
end
a = narrow acc 0 (P-1-rank)*(size(0)//P) (rank+1)*(size(0)//P)
b = narrow acc 0 0 (P-1-rank)*(size(0)//P)
y = cat a b dim=0
