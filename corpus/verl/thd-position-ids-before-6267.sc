# verl's THD preprocessing for context parallelism: each packed sequence
# (its length a multiple of 2*cp here, so no padding) is cut into 2*cp
# chunks and rank r keeps chunks r and 2*cp-1-r (TE's load-balanced
# layout). The tokens are placed right; the position_ids of the second
# chunk are not. X is the packed batch's position_ids on one device (token
# t of a sequence holds t); every rank must hold the same rows of X as of
# its tokens.
# verl-project/verl @ f31c1d98470f57095e840532b07f1865bb1c0b7e (the parent of
# the fix, PR #6267), verl/models/mcore/util.py, preprocess_thd_engine
# (introduced in 5d73af6383d0e020752630fa683b27aa0b8f9ffc, #5561):
#   seqlen_padded_i = seqlens_in_batch_padded_cpu[i]
#   seqlen = seqlen_padded_i // cp_size
#   half_seqlen = seqlen // 2
#   start_idx = cu_seqlens_padded_cpu[i] // cp_size
#   input_ids_rmpad[start_idx : start_idx + half_seqlen] = d[half_seqlen * cp_rank : half_seqlen * (cp_rank + 1)]
#   position_ids_rmpad[start_idx : start_idx + half_seqlen] = torch.arange(
#       half_seqlen * cp_rank, half_seqlen * (cp_rank + 1), ...)
#   remain_start = seqlen_padded_i - half_seqlen * (cp_rank + 1)
#   remain_end = seqlen_padded_i - half_seqlen * cp_rank
#   remain_end = min(remain_end, d.shape[0])
#   remain_len = remain_end - remain_start
#   if remain_len > 0:
#       input_ids_rmpad[start_idx + half_seqlen : start_idx + half_seqlen + remain_len] = d[remain_start:remain_end]
#       position_ids_rmpad[start_idx + half_seqlen : start_idx + half_seqlen + remain_len] = torch.arange(
#           seqlen_padded_i - remain_len, seqlen_padded_i, ...)
# torch.arange(a, b) of sequence i is rows a..b-1 of that sequence in X.
# Expected FAIL: the second chunk's positions are always those of the last
# chunk, chunk 2*cp-1, right on rank 0 only. Minimal case: cp 2, one
# sequence of 4 tokens: rank 1 holds tokens 1 and 2 but positions 1 and 3.
# The function itself (its source at this commit, mpu's cp size and rank
# from the gloo group), on cp 2, 3 and 4 gloo ranks, 39 packed batches each
# (one to three sequences of 2cp, 4cp or 6cp tokens, as a jagged nested
# tensor): every batch's position_ids differ from its tokens' positions on
# every rank but 0, in cp 2 at one sequence of 4; the tokens are right.
pipeline verl-thd-position-ids-before-6267
dims n
sequences L[1..3] n 2*P..6*P multiple=2*P
input replicate
output shard n
expect fail
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
  b = narrow x 0 sum(L(q) for q in 0..i-1)+L(i)-L(i)//P//2 L(i)//P//2
  y = cat y a b dim=0
end
