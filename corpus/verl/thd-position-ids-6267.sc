# verl's THD preprocessing for context parallelism, after the fix of the
# second chunk's position_ids (the buggy version and the layout:
# thd-position-ids-before-6267.sc).
# verl-project/verl @ b916f603613c1af30289964a560f13508dc675af (PR #6267,
# "fix bugs when using position_ids in cp"), verl/models/mcore/util.py,
# preprocess_thd_engine; the first chunk as before, then:
#   remain_start = seqlen_padded_i - half_seqlen * (cp_rank + 1)
#   remain_end = seqlen_padded_i - half_seqlen * cp_rank
#   remain_end = min(remain_end, d.shape[0])
#   remain_len = remain_end - remain_start
#   if remain_len > 0:
#       input_ids_rmpad[...] = d[remain_start:remain_end]
#       pos_end = min(remain_end, seqlen_orig_i)
#       valid_pos_len = pos_end - remain_start
#       if valid_pos_len > 0:
#           position_ids_rmpad[start_idx + half_seqlen : start_idx + half_seqlen + valid_pos_len] = (
#               torch.arange(remain_start, pos_end, ...))
# With lengths that are multiples of 2*cp, pos_end = remain_end and
# valid_pos_len = half_seqlen. Expected PASS. The function itself on cp
# 2, 3 and 4 gloo ranks, 39 packed batches each (one to three sequences of
# 2cp, 4cp or 6cp tokens): every rank's position_ids are its tokens'.
pipeline verl-thd-position-ids-6267
dims n
sequences L[1..3] n 2*P..6*P multiple=2*P
input replicate
output shard n
expect pass
reference
y = narrow X 0 0 0
for i in 0..2*P*len(L)-1
  a = narrow X 0 sum(L(q) for q in 0..(i//2)%len(L)-1)+(i//(2*len(L)) if i%2==0 else 2*P-1-i//(2*len(L)))*(L((i//2)%len(L))//(2*P)) L((i//2)%len(L))//(2*P)
  y = cat y a dim=0
end
end
tensor x = input
y = narrow x 0 0 0
for i in 0..len(L)-1
  a = narrow x 0 sum(L(q) for q in 0..i-1)+(L(i)//P//2)*rank L(i)//P//2
  b = narrow x 0 sum(L(q) for q in 0..i-1)+L(i)-(L(i)//P//2)*(rank+1) L(i)//P//2
  y = cat y a b dim=0
end
