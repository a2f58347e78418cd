# Planted: a rank keeps the tokens of every expert up to its own
# (experts=0..rank), not only its own
dims t h
routes R[t] 0..P-1
input replicate
output shard t sizes=routed(R, 0, len(R)-1, r)
reference
sort_by R dim=0
end
tensor x = input
y = select x R dim=0 experts=0..rank
