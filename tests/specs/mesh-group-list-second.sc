# The group of the first and the last stage written as the first two
# (group=pp[0, 1]): the same ranks at two stages; from three stages the
# last one gathers nothing (its output has the wrong shape) while the
# first holds the second stage's piece. Expected FAIL: world 3, three
# stages. One process per rank (mpi) reports it as one process holding
# every rank does: the shape, and no values of the other ranks.
dims s h
mesh pp=A dp=B
require A >= 2
input pp:shard s
output replicate only pp == 0 or pp == A-1
expect fail
reference
a = narrow X 0 0 s//A
b = narrow X 0 s-s//A s//A
y = cat a b dim=0
end
all_gather_into_tensor group=pp[0, 1]
