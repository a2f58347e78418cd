# Vocab-parallel embedding table padded to a multiple of P: the reference
# pads, and each rank holds its slice, padding included
dims v h
input replicate
output shard v
reference
pad 0 0 cdiv(v,P)*P-v
end
pad 0 0 cdiv(v,P)*P-v
narrow 0 rank*cdiv(v,P) cdiv(v,P)
