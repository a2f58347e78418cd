# The same dispatcher with the permuted rows cut at the number of tokens
# (num_out_tokens = num_tokens where it must be num_tokens * topk):
# the copies past the first t are lost. Expected FAIL: two experts, one
# token; its second copy is missing.
dims t h
param E P..2*P
require E % P == 0
routes R[t] 0..E-1 topk=2
input replicate
output shard t sizes=sum(routed(R, 0, len(R)-1, e) for e in r*(E//P)..(r+1)*(E//P)-1)
expect fail
reference
sort_by R dim=0
end
tensor x = input
s = sort_by x R dim=0
s = narrow s 0 0 t
y = narrow s 0 min(t, sum(routed(R, 0, len(R)-1, e) for e in 0..rank*(E//P)-1)) min(t, sum(routed(R, 0, len(R)-1, e) for e in 0..(rank+1)*(E//P)-1))-min(t, sum(routed(R, 0, len(R)-1, e) for e in 0..rank*(E//P)-1))
