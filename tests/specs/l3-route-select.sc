# The all-gather MoE dispatcher: every rank holds every token and keeps
# those routed to its expert (one expert per rank), grouped by expert
dims t h
routes R[t] 0..P-1
input replicate
output shard t sizes=routed(R, 0, len(R)-1, r)
reference
sort_by R dim=0
end
tensor x = input
y = select x R dim=0 experts=rank..rank
