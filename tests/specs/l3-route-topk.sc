# An all-gather MoE dispatcher with top-2 routing: every rank holds every
# token, each token goes to two distinct experts of E (E/P on each rank),
# and a rank keeps a copy of a token for each of its experts the token
# chose, grouped by expert, in token order within one (Megatron's permute
# of the local routing map: the flattened [tokens, topk] indices argsorted,
# stable, each copy's row index // topk)
dims t h
param E P..2*P
require E % P == 0
routes R[t] 0..E-1 topk=2
input replicate
output shard t sizes=sum(routed(R, 0, len(R)-1, e) for e in r*(E//P)..(r+1)*(E//P)-1)
reference
sort_by R dim=0
end
tensor x = input
s = sort_by x R dim=0
y = narrow s 0 sum(routed(R, 0, len(R)-1, e) for e in 0..rank*(E//P)-1) sum(routed(R, 0, len(R)-1, e) for e in rank*(E//P)..(rank+1)*(E//P)-1)
