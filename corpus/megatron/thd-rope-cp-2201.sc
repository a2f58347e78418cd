# Megatron-LM RoPE on packed sequences (THD, unfused) under context
# parallelism, as merge request ADLR/megatron-lm!2201 ("Make RoPE work with
# packed sequence and CP and Miscellaneous fixes") makes it: for packed
# sequences the emb is not CP-sliced, the local tokens are split by the
# sequence lengths divided by cp, and each sequence's local half-chunks get
# the freqs of positions [cp_rank*seg, (cp_rank+1)*seg) and
# [L-(cp_rank+1)*seg, L-cp_rank*seg), seg = L/cp/2: the THD CP layout.
# NVIDIA/Megatron-LM @ 210162aebcfc68d72f39049d5cf84a83d3b11dea (parent
# 563d5d1726012e8077895b732d5bc81b6e975e8d):
# megatron/core/models/common/embeddings/rotary_pos_embedding.py
#   L180-183 get_rotary_seq_len: if packed_seq_params is not None:
#                return max(packed_seq_params.max_seqlen_q, packed_seq_params.max_seqlen_kv)
#   L116-153 RotaryEmbedding.forward(max_seq_len, offset=0, packed_seq=False):
#     L149   if parallel_state.get_context_parallel_world_size() > 1 and not packed_seq:
#     L152       emb = get_pos_emb_on_this_cp_rank(emb, 0)
#   (megatron/core/models/gpt/gpt_model.py passes packed_seq=... qkv_format == 'thd')
# megatron/core/models/common/embeddings/rope_utils.py
#   L115-126 _get_thd_freqs_on_this_cp_rank:
#     cp_seg = x.size(0) // 2
#     full_seqlen = cp_size * x.size(0)
#     return torch.cat([freqs[cp_rank * cp_seg : (cp_rank + 1) * cp_seg],
#                       freqs[full_seqlen - (cp_rank + 1) * cp_seg : full_seqlen - cp_rank * cp_seg]])
#   L129-165 _apply_rotary_pos_emb_thd:
#     L151   cu_seqlens = cu_seqlens // cp_size
#     L152   seqlens = (cu_seqlens[1:] - cu_seqlens[:-1]).tolist()
#     L154-165 torch.cat([_apply_rotary_pos_emb_bshd(x.unsqueeze(1),
#                _get_thd_freqs_on_this_cp_rank(cp_rank, cp_size, x, freqs), ...)
#                for x in torch.split(t, seqlens)]).squeeze(1)
# X is the packed batch's positions on one device, one row per token:
# freqs[a:b] of sequence i is written as X's rows a..b-1 of sequence i
# (narrow at sum(L(q) for q < i) + a); the rank must pair its tokens
# (the reference: the THD CP layout) with their own positions. t is the
# rank's query tokens and its split by the local lengths is transcribed
# (it must fit). The fused path (TE's fused_apply_rotary_pos_emb_thd with
# cp_size/cp_rank, CUDA) is left out. The buggy version is
# thd-rope-cp-before-2201.sc; the token layout alone is
# tests/specs/l3-packed-zigzag.sc.
# Expected PASS.
# Confirmed on gloo (torch 2.11.0 and 1.13; see the
# before spec): a script runs this commit's get_rotary_seq_len, RotaryEmbedding.forward
# (packed_seq=True) and apply_rotary_pos_emb on each rank's THD CP tokens,
# 30 drawn batches at each of cp 2, 3 and 4: "after (210162aebc): 90 cases,
# 0 differ" (every rank's rotated q equals the cp-1 result's rows of its
# tokens, to 1e-5). As a check of the harness, the same run with each
# rank holding a contiguous 1/cp of the packed batch in place of the THD
# CP layout differs in 30 of 30 cases.
pipeline megatron-thd-rope-cp-2201
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
t = narrow x 0 0 0                      # q on this CP rank: the THD CP layout
for j in 0..len(L)-1
  a = narrow x 0 sum(L(q) for q in 0..j-1)+rank*(L(j)//(2*P)) L(j)//(2*P)
  b = narrow x 0 sum(L(q) for q in 0..j-1)+(2*P-1-rank)*(L(j)//(2*P)) L(j)//(2*P)
  t = cat t a b dim=0
end
y = narrow x 0 0 0
for i in 0..len(L)-1
  s = narrow t 0 sum(L(q) for q in 0..i-1)//P L(i)//P                                  # torch.split(t, seqlens)[i], cu_seqlens // cp_size
  f1 = narrow x 0 sum(L(q) for q in 0..i-1)+rank*((L(i)//P)//2) (L(i)//P)//2             # freqs[cp_rank * cp_seg : (cp_rank + 1) * cp_seg]
  f2 = narrow x 0 sum(L(q) for q in 0..i-1)+P*(L(i)//P)-(rank+1)*((L(i)//P)//2) (L(i)//P)//2   # freqs[full_seqlen - (cp_rank + 1) * cp_seg : full_seqlen - cp_rank * cp_seg]
  y = cat y f1 f2 dim=0
end
