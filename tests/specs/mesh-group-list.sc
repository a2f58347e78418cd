# On a (pp, dp) mesh, the first and the last pipeline stage of each dp
# index gather their pieces in a group of their own (group=pp[0, A-1]: one
# group per dp coordinate, as Megatron builds its embedding groups); the
# middle stages skip the step
dims s h
mesh pp=A dp=B
require A >= 2
input pp:shard s
output replicate only pp == 0 or pp == A-1
reference
a = narrow X 0 0 s//A
b = narrow X 0 s-s//A s//A
y = cat a b dim=0
end
all_gather_into_tensor group=pp[0, A-1]
