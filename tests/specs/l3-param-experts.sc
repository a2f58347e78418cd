# Parameters: the number of experts E is drawn per case (a multiple of P,
# every rank holding E/P of them), not a dim. An all-gather dispatcher's
# rank keeps the tokens routed to its local experts, grouped by expert and
# in token order within one (Megatron's permute of the local routing map):
# sorted by expert, then the rank's block of rows.
pipeline l3-param-experts
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
s = sort_by x R dim=0
y = narrow s 0 sum(routed(R, 0, len(R)-1, e) for e in 0..rank*(E//P)-1) sum(routed(R, 0, len(R)-1, e) for e in rank*(E//P)..(rank+1)*(E//P)-1)
