# Sums inside sums, and a sum's index that hides a loop's (Python's scope
# of a comprehension): in the loop over i, sum(i for i in 0..1) is 1 on
# every iteration, and sum(sum(1 for j in 0..q) for q in 0..2) is 6.
# Taken as the loop's i, the first would be 0 and then 2.
pipeline l3-sum-nested
dims n
input replicate
output replicate
expect pass
require n >= 8
reference
a = narrow X 0 1 1
b = narrow X 0 6 1
y = cat a b a b dim=0
end
tensor x = input
y = narrow x 0 0 0
for i in 0..1
  a = narrow x 0 sum(i for i in 0..1) 1
  b = narrow x 0 sum(sum(1 for j in 0..q) for q in 0..i+2-i) 1
  y = cat y a b dim=0
end
