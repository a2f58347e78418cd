# Megatron-LM RoPE on packed sequences (THD, unfused) under context
# parallelism, before merge request ADLR/megatron-lm!2201 ("Make RoPE work
# with packed sequence and CP"): each CP rank holds its query tokens in the
# THD CP layout (every sequence cut into 2*cp chunks, chunks cp_rank and
# 2*cp-1-cp_rank kept, as TE's thd_get_partitioned_indices), but RoPE splits
# the local tokens by the GLOBAL sequence lengths and gives every sequence
# freqs[:len] of an emb that was zigzag-sliced over the whole packed length.
# NVIDIA/Megatron-LM @ 563d5d1726012e8077895b732d5bc81b6e975e8d (the parent
# of the fix 210162aebcfc68d72f39049d5cf84a83d3b11dea):
# megatron/core/models/common/embeddings/rotary_pos_embedding.py
#   L154-186 get_rotary_seq_len: rotary_seq_len = transformer_input.size(0)
#            (t/cp tokens in THD) ... rotary_seq_len *= context_parallel_size   (= n)
#   L112-148 RotaryEmbedding.forward(max_seq_len):
#     L144   if parallel_state.get_context_parallel_world_size() > 1:
#     L147       emb = get_pos_emb_on_this_cp_rank(emb, 0)
# megatron/core/models/common/embeddings/rope_utils.py
#   L30-47   get_pos_emb_on_this_cp_rank: view [2*cp, -1, ...], index_select(0, [cp_rank, 2*cp-cp_rank-1])
#   L106-138 _apply_rotary_pos_emb_thd (via apply_rotary_pos_emb L141-191, unfused):
#     L126   seqlens = (cu_seqlens[1:] - cu_seqlens[:-1]).tolist()
#     L127-137  torch.cat([_apply_rotary_pos_emb_bshd(x.unsqueeze(1), freqs[: x.size(0)], ...)
#                          for x in torch.split(t, seqlens)]).squeeze(1)
# (attention.py passes packed_seq_params.cu_seqlens_q: the global prefix sums.)
# X is the packed batch's positions on one device, one row per token; the
# rows of X a rank must hold are those of its tokens (the reference), and
# the freqs row applied to a token must be that token's position. t is the
# rank's query tokens; e is the CP-sliced emb, its position p taken as X
# row p (which is sequence 0's position p only: the split fails first).
# torch.split(t, seqlens) is written as one narrow a sequence: torch.split
# raises when the sizes do not sum to t's length (n/cp), the narrows fail
# as soon as they run past it, the same cases for cp >= 2.
# `require P >= 2`: with cp = 1 no slicing happens and the code is right.
# The fused path (apex fused_apply_rotary_pos_emb_thd, CUDA) is left out.
# Expected FAIL: at every cp >= 2 the split of t by the global lengths
# fails. Minimal case: world=2 n=4 L=4: line 72 `s = narrow t 0 ...`: on
# rank 0: start (0) + length (4) exceeds dimension size (2).
# Confirmed on gloo (torch 2.11.0 and 1.13): a script executes
# this commit's whole rope_utils.py and rotary_pos_embedding.py (git show;
# CPU substitutions only, parallel_state from the gloo WORLD group, no
# fused RoPE) and runs get_rotary_seq_len, RotaryEmbedding.forward and
# apply_rotary_pos_emb(q, emb, config, cu_seqlens) on each rank's THD CP
# tokens, kv_channels 8, 1 to 3 sequences of 2cp..6cp tokens, 30 drawn
# batches at each of cp 2, 3 and 4, against the same code at cp 1 on the
# whole batch, the rank's rows: "before (563d5d1726): 90 cases, 90 differ"
# (all RuntimeError), smallest differing case cp=2 seqlens=[4]: rank 0:
# RuntimeError: split_with_sizes expects split_sizes to sum exactly to 2
# (input tensor's size at dimension 0), but got split_sizes=[4]: the
# minimal case above.
pipeline megatron-thd-rope-cp-before-2201
dims n
sequences L[1..3] n 2*P..6*P multiple=2*P
input replicate
output shard n
require P >= 2
expect fail
reference
y = narrow X 0 0 0
for i in 0..2*P*len(L)-1
  a = narrow X 0 sum(L(q) for q in 0..(i//2)%len(L)-1)+(i//(2*len(L)) if i%2==0 else 2*P-1-i//(2*len(L)))*(L((i//2)%len(L))//(2*P)) L((i//2)%len(L))//(2*P)
  y = cat y a dim=0
end
end
tensor x = input
t = narrow x 0 0 0                      # q on this CP rank: the THD CP layout
for j in 0..len(L)-1
  a = narrow x 0 sum(L(q) for q in 0..j-1)+rank*(L(j)//(2*P)) L(j)//(2*P)
  b = narrow x 0 sum(L(q) for q in 0..j-1)+(2*P-1-rank)*(L(j)//(2*P)) L(j)//(2*P)
  t = cat t a b dim=0
end
e = take x 0 2*P [rank, 2*P-rank-1]     # emb = get_pos_emb_on_this_cp_rank(emb, 0), rotary_seq_len = n
y = narrow e 0 0 0
for i in 0..len(L)-1
  s = narrow t 0 sum(L(q) for q in 0..i-1) L(i)   # torch.split(t, seqlens)[i], global seqlens
  f = narrow e 0 0 L(i)                           # freqs[: x.size(0)]
  y = cat y f dim=0
end
