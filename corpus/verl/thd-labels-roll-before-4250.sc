# verl's next-token labels for packed sequences under context parallelism:
# label = input_ids.clone(), split like the tokens (each sequence cut into
# 2*cp chunks, rank r keeping chunks r and 2*cp-1-r), then shifted left
# by one. X is the packed batch's input_ids on one device; every rank must
# hold, for each of its tokens, the next token of the same sequence (the
# last token's label wraps to the sequence's first: it is masked).
# verl-project/verl @ b9bd00efba253ea90072555c45692054cf703de2 (the parent of
# the fix, PR #4250):
# verl/models/mcore/model_forward.py L133, gptmodel_forward_no_padding:
#   args = {k: preprocess_packed_seqs_no_padding(v, pre_process=True)[0] for k, v in logits_processor_args.items()}
# verl/models/mcore/util.py, preprocess_packed_seqs_no_padding (per sequence i):
#   seqlen = seqlen_padded_i // cp_size; half_seqlen = seqlen // 2
#   start_idx = cu_seqlens_padded_cpu[i] // cp_size
#   input_ids_rmpad[start_idx : start_idx + half_seqlen] = d[half_seqlen * cp_rank : half_seqlen * (cp_rank + 1)]
#   remain_start = seqlen_padded_i - half_seqlen * (cp_rank + 1)
#   remain_end = min(seqlen_padded_i - half_seqlen * cp_rank, d.shape[0])
#   input_ids_rmpad[start_idx + half_seqlen : ...] = d[remain_start:remain_end]
# verl/workers/engine/megatron/transformer_impl.py L626, logits_processor:
#   label = torch.roll(label, shifts=-1, dims=1)
# Lengths are multiples of 2*cp (no padding). cp 1 takes another branch
# (no split), so the spec starts at 2.
# Expected FAIL: the roll runs on the rank's split tensor, so the label at
# the end of each chunk is the first token of the rank's next chunk, not
# the next token of the sequence. Minimal case: cp 2, one sequence of 4
# tokens: rank 0 holds tokens 0 and 3, labels 3 and 0 (want 1 and 0).
# The functions themselves (their source at this commit, the roll of
# logits_processor after them) on cp 2, 3 and 4 gloo ranks, 39 packed
# batches each (one to three sequences of 2cp, 4cp or 6cp tokens): every
# rank's labels differ from its tokens' next tokens in every batch.
pipeline verl-thd-labels-roll-before-4250
dims n
sequences L[1..3] n 2*P..6*P multiple=2*P
require P >= 2
input replicate
output shard n
expect fail
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
# logits_processor: label = torch.roll(label, shifts=-1, dims=1)
h = narrow y 0 1 size(0)-1
t = narrow y 0 0 1
y = cat h t dim=0
