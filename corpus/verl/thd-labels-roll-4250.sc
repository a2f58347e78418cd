# verl's next-token labels for packed sequences under context parallelism,
# after the fix (the buggy version and the layout:
# thd-labels-roll-before-4250.sc).
# verl-project/verl @ 10175743f8ff4e5f2356c37baea1ad36bb024bd1 (PR #4250,
# "fix bugs in mcore backend context-parallel code logic"):
# verl/models/mcore/model_forward.py, gptmodel_forward_no_padding:
#   k: preprocess_packed_seqs_no_padding(v, pre_process=True, need_roll=(k == "label"))[0]
# verl/models/mcore/util.py, preprocess_packed_seqs_no_padding, after each
# sequence's two chunks:
#   if need_roll:
#       saved_roll_dict[start_idx + half_seqlen - 1] = d[(cp_rank + 1) * half_seqlen]
#       if remain_len > 0:
#           if remain_end == d.shape[0]:
#               saved_roll_dict[start_idx + half_seqlen + remain_len - 1] = d[0]
#           else:
#               saved_roll_dict[start_idx + half_seqlen + remain_len - 1] = d[remain_end]
# and after the loop:
#   if need_roll:
#       input_ids_rmpad = torch.roll(input_ids_rmpad, shifts=-1, dims=0)
#       for k, v in saved_roll_dict.items(): input_ids_rmpad[k] = v
# (the roll in transformer_impl.py's logits_processor is removed).
# remain_end == d.shape[0] holds on rank 0 only (no padding).
# Expected PASS. The function itself (need_roll=True) on cp 2, 3 and 4
# gloo ranks, 39 packed batches each (one to three sequences of 2cp, 4cp
# or 6cp tokens): every rank's labels are its tokens' next tokens.
pipeline verl-thd-labels-roll-4250
dims n
sequences L[1..3] n 2*P..6*P multiple=2*P
require P >= 2
input replicate
output shard n
expect pass
reference
r = narrow X 0 0 0
for i in 0..len(L)-1
  s = narrow X 0 sum(L(q) for q in 0..i-1) L(i)
  a = narrow s 0 1 L(i)-1
  b = narrow s 0 0 1
  r = cat r a b dim=0
end
y = narrow r 0 0 0
for i in 0..2*P*len(L)-1
  a = narrow r 0 sum(L(q) for q in 0..(i//2)%len(L)-1)+(i//(2*len(L)) if i%2==0 else 2*P-1-i//(2*len(L)))*(L((i//2)%len(L))//(2*P)) L((i//2)%len(L))//(2*P)
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
# torch.roll(input_ids_rmpad, shifts=-1, dims=0)
h = narrow y 0 1 size(0)-1
t = narrow y 0 0 1
y = cat h t dim=0
# saved_roll_dict's entries: the chunk ends' next tokens
for i in 0..len(L)-1
  v = narrow x 0 sum(L(q) for q in 0..i-1)+(rank+1)*(L(i)//P//2) 1
  y = write y v dim=0 start=sum(L(q) for q in 0..i-1)//P+L(i)//P//2-1
  w = narrow x 0 sum(L(q) for q in 0..i-1)+(0 if rank==0 else L(i)-(L(i)//P//2)*rank) 1
  y = write y w dim=0 start=sum(L(q) for q in 0..i-1)//P+2*(L(i)//P//2)-1
end
