# Planted: the code pads in front of the vocabulary instead of after it
dims v h
input replicate
output shard v
reference
pad 0 0 cdiv(v,P)*P-v
end
pad 0 cdiv(v,P)*P-v 0
narrow 0 rank*cdiv(v,P) cdiv(v,P)
