# Planted: the rank selects its local experts' tokens (masked_select, in
# token order) without grouping them by expert; right while a rank holds
# one expert, wrong from two: world=1 t=2 h=1 E=2 R=1:0.
pipeline l3-param-experts-token-order
dims t h
param E P..2*P
require E % P == 0
routes R[t] 0..E-1
input replicate
output shard t sizes=sum(routed(R, 0, len(R)-1, e) for e in r*(E//P)..(r+1)*(E//P)-1)
reference
sort_by R dim=0
end
tensor x = input
y = select x R dim=0 experts=rank*(E//P)..(rank+1)*(E//P)-1
