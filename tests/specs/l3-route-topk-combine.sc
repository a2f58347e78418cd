# A dispatcher's round trip with top-2 routing: each token copied to its
# two experts (grouped by expert, as Megatron's permute groups them) and
# the copies merged back into their token (the combine's scatter_add of
# gate-weighted copies, weights summing to one)
dims t h
routes R[t] 0..3 topk=2
input replicate
output replicate
tensor x = input
y = sort_by x R dim=0
z = combine_by y R dim=0
