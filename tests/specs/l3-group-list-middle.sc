# The same all-reduce where every rank holds a summand: the middle ranks'
# are left out of the group's sum. Expected FAIL from world 3.
dims v h
require P >= 2
input partial sum
output replicate only rank == 0 or rank == P-1
expect fail
all_reduce sum group=[0, P-1]
