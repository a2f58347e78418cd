# Requires of the mesh alone steer its draw: `A >= 3` keeps pp at 3 or
# more (the smallest case is world=3, not a world of 1 the require then
# refuses), and `a == A`, `b == B` tie a dim to each mesh size with no
# `sizes` line. Megatron-Bridge's MTP embedding group needs first, second
# to last and last pipeline stages apart (corpus/megatron-bridge/).
pipeline mesh-require-steers
dims b a h
mesh pp=A dp=B
require A >= 3 and a == A and b == B
tensor x = input
input dp:shard b pp:shard a
output dp:shard b pp:shard a
expect pass
y = narrow x 1 0 size(1)
