# The copies merged back as if they were in token order (each token's
# copies side by side, x.repeat_interleave(2, 0)) while the dispatch left
# them grouped by expert. Expected FAIL: two tokens on experts 0 and 1,
# each merged from both tokens' rows.
dims t h
routes R[t] 0..3 topk=2
input replicate
output replicate
expect fail
tensor x = input
y = repeat_interleave x 2 0
z = combine_by y R dim=0
