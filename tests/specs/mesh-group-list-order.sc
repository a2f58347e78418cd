# The group of the last and the first stage, written in that order
# (group=pp[A-1, 0]) by code that expects the last stage's piece first:
# new_group sorts its ranks, so the first stage's comes first. Expected
# FAIL: two stages, both gathered pieces in the other order.
dims s h
mesh pp=A dp=B
require A >= 2
input pp:shard s
output replicate only pp == 0 or pp == A-1
expect fail
reference
a = narrow X 0 0 s//A
b = narrow X 0 s-s//A s//A
y = cat b a dim=0
end
all_gather_into_tensor group=pp[A-1, 0]
