# Loops inside loops: rank i's block of the gathered tensor, taken by a
# chunk list that reads i, then its two halves one after the other in an
# inner loop whose range reads i. The result is X again.
pipeline l3-loop-nested
dims n
require n % (2*P) == 0
input shard n
output replicate
expect pass
tensor x = input
g = all_gather_into_tensor x
y = narrow g 0 0 0
for i in 0..P-1
  b = take g 0 P [i]
  for j in i..i+1
    h = narrow b 0 (j-i)*(n//P//2) n//P//2
    y = cat y h dim=0
  end
end
