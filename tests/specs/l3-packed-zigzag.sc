# Packed sequences split for context parallelism the way ring-flash-attention's
# varlen zigzag does (zhuzilin/ring-flash-attention @ 339b173f,
# test/test_zigzag_ring_flash_attn_varlen_func.py, extract_local): every
# sequence cut into 2P chunks, rank r keeping chunks r and 2P-1-r of each
pipeline l3-packed-zigzag
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
y = narrow x 0 0 0
for j in 0..len(L)-1
  a = narrow x 0 sum(L(q) for q in 0..j-1)+rank*(L(j)//(2*P)) L(j)//(2*P)
  b = narrow x 0 sum(L(q) for q in 0..j-1)+(2*P-1-rank)*(L(j)//(2*P)) L(j)//(2*P)
  y = cat y a b dim=0
end
