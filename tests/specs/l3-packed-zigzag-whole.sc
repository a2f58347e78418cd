# Planted: the whole packed batch zigzagged as one sequence (the padded
# layout's split applied to a packed batch): the sequences' chunks mix
pipeline l3-packed-zigzag-whole
dims n h
sequences L[0..3] n 0..4*P multiple=2*P
input replicate
output shard n
reference
y = narrow X 0 0 0
for i in 0..2*P*len(L)-1
  a = narrow X 0 sum(L(q) for q in 0..(i//2)%len(L)-1)+(i//(2*len(L)) if i%2==0 else 2*P-1-i//(2*len(L)))*(L((i//2)%len(L))//(2*P)) L((i//2)%len(L))//(2*P)
  y = cat y a dim=0
end
end
tensor x = input
a = narrow x 0 rank*(size(0)//(2*P)) size(0)//(2*P)
b = narrow x 0 (2*P-1-rank)*(size(0)//(2*P)) size(0)//(2*P)
y = cat a b dim=0
