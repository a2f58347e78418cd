# ring-flash-attention's llama3 context parallelism for packed (varlen)
# sequences, causal: every rank holds t/P consecutive tokens of the packed
# batch; before attention it all-gathers k (one head group at a time) and
# keeps the window its queries need: from the start of the sequence its
# first token belongs to, up to the end of its own tokens. The windows of
# neighbouring ranks overlap.
# zhuzilin/ring-flash-attention @ 899628238f2f5bb8c028579c89b7cd56ea451d2a,
# ring_flash_attn/llama3_flash_attn_varlen.py:
#   L10-57, llama3_flash_attn_prepare_cu_seqlens(cu_seqlens, causal=True, rank, world_size):
#     length_per_rank = total_length // world_size
#     left = torch.searchsorted(cu_seqlens, rank * length_per_rank)
#     if cu_seqlens[left] != rank * length_per_rank: left -= 1
#     slice_right = (rank + 1) * length_per_rank
#     slice_left = cu_seqlens[left].item()
#     local_k_slice = slice(slice_left, slice_right)
#   L79-118, llama3_flash_attn_varlen_forward, the first head group:
#     kv_buffer = torch.empty((2, total_k * world_size, heads_k_stride, head_dim))
#     k_0 = k[:, :heads_k_stride].contiguous()
#     comm.all_gather(kv_buffer_copy[0], k_0)     (utils.py AllGatherComm: all_gather_into_tensor)
#     k_i = kv_buffer[0][local_k_slice]
# slice_left, the largest prefix sum of the lengths at most r*t/P, is the
# sum of the L(q) whose prefix sum through q is at most r*t/P: a sum of
# sums. The attention that follows, and the later head groups (the same
# window of other columns), are left out. The code asserts t % P == 0 and
# needs sequences of at least one token (a rank whose window holds no
# sequence boundary raises in max()): lengths 1..4 multiples of P.
# Expected PASS.
# Confirmed on gloo (torch 2.11): the prepare function and the forward's
# lines above, verbatim, with the library's AllGatherComm, on 2, 3 and 4
# ranks, 40 drawn packings each (1 to 3 sequences of P..4P tokens, S of 1
# or 2 heads of 1 to 4): every rank's k_i equals the window
# X[slice_left : (r+1)*t/P, :S] in 120 of 120 cases; with `<` in place of
# `<=` in the window's prefix test, 16 of 120 differ.
pipeline ring-flash-attn-llama3-varlen-kv-window
dims t k d
sequences L[1..3] t P..4*P multiple=P
param S 1..2
require k % S == 0
input shard t
output shard t sizes=(r+1)*(sum(L(w) for w in 0..len(L)-1)//P)-sum(L(q) if sum(L(u) for u in 0..q) <= r*(sum(L(w) for w in 0..len(L)-1)//P) else 0 for q in 0..len(L)-1)
reference                      # Y: the P windows one after the other
y = narrow X 0 0 0
y = narrow y 1 0 S
for j in 0..P-1
  a = narrow X 0 sum(L(q) if sum(L(u) for u in 0..q) <= j*(t/P) else 0 for q in 0..len(L)-1) (j+1)*(t/P)-sum(L(q) if sum(L(u) for u in 0..q) <= j*(t/P) else 0 for q in 0..len(L)-1)
  a = narrow a 1 0 S
  y = cat y a dim=0
end
end
tensor x = input
h = narrow x 1 0 S             # k[:, :heads_k_stride]
h = contiguous h
g = all_gather_into_tensor h   # comm.all_gather(kv_buffer_copy[0], k_0)
y = narrow g 0 sum(L(q) if sum(L(u) for u in 0..q) <= rank*(t/P) else 0 for q in 0..len(L)-1) (rank+1)*(t/P)-sum(L(q) if sum(L(u) for u in 0..q) <= rank*(t/P) else 0 for q in 0..len(L)-1)
