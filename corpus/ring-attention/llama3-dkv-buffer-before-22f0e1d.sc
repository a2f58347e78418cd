# ring-flash-attention's llama3-style context parallelism (varlen): the
# packed batch (THD, cu_seqlens) is cut into W contiguous pieces of n/W
# tokens, one per rank; each rank all-gathers k and v and attends its
# queries to the k rows [slice_left, slice_right) = from the start of the
# sequence holding its first token to the end of its own piece
# (llama3_flash_attn_prepare_cu_seqlens, causal). In the backward, flash
# attention writes the rank's dk contribution into those rows of a
# world-sized buffer, and a reduce-scatter sums the buffers over the ranks,
# each rank keeping the dk of its own piece. X is the global dk [n, h, d];
# rank r's contribution is modelled as X's rows of its own piece, r*n/W..,
# and zeros over the rest of its slice (the rows before r*n/W that belong
# to the sequence it started in): any split of X among the ranks' slices
# sums to X, and the arithmetic of attention is no layout.
# zhuzilin/ring-flash-attention @ 2e9f80cd1138805bde888753d8606ccfba7b1e56
# (the parent of the fix 22f0e1db, "fix llama3_flash_attn_varlen_func for
# head stride 1"), ring_flash_attn/llama3_flash_attn_varlen.py:
#   L10-45 llama3_flash_attn_prepare_cu_seqlens (causal):
#     left = torch.searchsorted(cu_seqlens, rank * length_per_rank)
#     if cu_seqlens[left] != rank * length_per_rank: left -= 1
#     slice_right = (rank + 1) * length_per_rank
#     slice_left = cu_seqlens[left].item()
#     local_k_slice = slice(slice_left, slice_right)
#   L119-216 llama3_flash_attn_varlen_backward:
#     dkv_buffer = torch.empty((2, total_k * world_size, heads_k_stride, head_dim), ...)   L152
#     for i in range(0, nheads_k, heads_k_stride):                                         L162
#         dk_i = dkv_buffer[0][local_k_slice]                                               L183
#         _flash_attn_varlen_backward(**params)     # writes dk_i, every row of the slice
#         dk_i = dk[:, i : i + heads_k_stride]                                              L212
#         dist.reduce_scatter_tensor(dk_i, dkv_buffer[0], group=process_group)             L214
# The rows of dkv_buffer outside the rank's slice (all rows past its own
# piece, and those before slice_left) are never written, and the
# reduce-scatter adds them into the other ranks' dk.
# heads_k_stride = nheads_k (h here), one iteration: the only stride this
# commit runs (with a smaller one the forward's all_gather_into_tensor into
# kv_buffer of nheads_k heads fails on its size, L75-86; on gloo, with
# heads_k_stride=1, nheads 2 (scratch/stride1_before.py): "ProcessGroupGloo::
# allgather: invalid tensor size at index 0 (expected (2, 1, 4), got (2, 2,
# 4))"). dv (dkv_buffer[1],
# L184, L215) is the same code and left out; so are dq (written by flash
# attention in place, no collective) and the forward.
# The loop over sequences writes the rows [slice_left, r*n/W) of the
# sequence straddling r*n/W (cu_j < r*n/W < cu_{j+1}); then the piece.
# Expected FAIL. Minimal case (--exhaustive --world 1..3 --max-dim 3):
# world=2 n=2 h=1 d=1 L=2: rank 0's buffer row 1 (rank 1's token) is never
# written and summed into rank 1's dk ("rank 1 [0, 0, 0] holds a reduction
# of different elements"); the random check's shrinker stops at world=3
# n=3 L=3 on some seeds (it cannot lower the world while n % P == 0
# binds), world=2 n=2 L=2 on others. With L=1:1 (world 2) both ranks are
# wrong, rank 0 too: rank 1's slice starts at row 1.
# Confirmed on gloo (torch 2.11.0): a script runs this
# commit's llama3_flash_attn_prepare_cu_seqlens and
# llama3_flash_attn_varlen_qkvpacked_func (forward, autograd backward),
# copied by git show, with flash-attn's varlen kernels replaced by a CPU
# per-sequence causal attention, on 2, 3 and 4 ranks, 243 packed batches
# (1-3 sequences of 0..2W tokens, n % W == 0), each rank's dq/dk/dv against
# the single-device gradient. With torch.empty filled with NaN
# (use_deterministic_algorithms + fill_uninitialized_memory): 243 cases,
# 243 differ; smallest world=2 n=2 L=2, only rank 1's dk and dv wrong, dk
# row 0 = nan; at world=2 L=1:1 the dk and dv of both ranks, as shardcheck
# says. Each of these 243 cases and the fix's 243 gets the same verdict
# from `shardcheck eval` (486 agree, 0 disagree). With
# the allocator left alone the garbage is whatever torch.empty returns:
# 218, 204 and 212 of 243 cases differ over three runs. Forward outputs
# and dq right in every case.
# Related: corpus/ring-attention/llama3-varlen-kv-window.sc, the forward's k
# window of the same function at a later commit (expect pass).
pipeline ring-flash-attn-llama3-dkv-buffer-before-22f0e1d
dims n h d
sequences L[1..3] n 0..4*P
require n % P == 0                 # L12: assert total_length % world_size == 0
# (n = 0, every sequence empty, is drawn and holds trivially; the gloo
# confirmation runs n >= W only. `require ... and n > 0` would leave
# --exhaustive no case at all.)
input shard n
output shard n
expect fail
tensor x = input
buf = empty x [n, size(1), size(2)]     # L152 dkv_buffer[0] = torch.empty((total_k * world_size, heads_k_stride, head_dim))
for j in 0..len(L)-1                    # flash backward: dk rows [slice_left, rank*n/P) of the sequence it started in
  z = zeros x [(rank*(n/P)-sum(L(q) for q in 0..j-1) if sum(L(q) for q in 0..j-1) < rank*(n/P) and sum(L(q) for q in 0..j) > rank*(n/P) else 0), size(1), size(2)]
  buf = write buf z dim=0 start=sum(L(q) for q in 0..j-1)
end
buf = write buf x dim=0 start=rank*(n/P)          # ... and rows [rank*n/P, slice_right) of its own piece
y = reduce_scatter_tensor buf sum       # L214 dist.reduce_scatter_tensor(dk_i, dkv_buffer[0])
