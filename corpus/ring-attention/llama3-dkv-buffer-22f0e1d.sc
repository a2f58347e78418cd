# ring-flash-attention's llama3-style context parallelism (varlen), the
# backward's dk after the fix: the world-sized dkv_buffer is zeroed before
# flash attention writes the rank's slice into it, so the reduce-scatter
# adds zeros where a rank has no contribution. The layout as in
# llama3-dkv-buffer-before-22f0e1d.sc: packed batch (THD, cu_seqlens) cut
# into W contiguous pieces; rank r's k slice [slice_left, (r+1)*n/W) runs
# from the start of the sequence holding its first token; X is the global
# dk [n, h, d], rank r's contribution modelled as X's rows of its own piece
# and zeros over the rest of its slice (attention arithmetic is no layout).
# zhuzilin/ring-flash-attention @ 22f0e1db73bc4047c79c0ed92213185eadbc21f2
# ("fix llama3_flash_attn_varlen_func for head stride 1"),
# ring_flash_attn/llama3_flash_attn_varlen.py:
#   L10-45 llama3_flash_attn_prepare_cu_seqlens (unchanged):
#     slice_right = (rank + 1) * length_per_rank; slice_left = cu_seqlens[left].item()
#   L119-239 llama3_flash_attn_varlen_backward:
#     dkv_buffer = torch.empty((2, total_k * world_size, heads_k_stride, head_dim), ...)   L152
#     for i in range(0, nheads_k, heads_k_stride):                                         L169
#         dkv_buffer.zero_()                                                                L170
#         dk_i = dkv_buffer[0][local_k_slice]                                               L195
#         _flash_attn_varlen_backward(**params)     # writes dk_i, every row of the slice
#         dk_i = dk            # heads_k_stride == nheads_k                                 L228-230
#         dist.reduce_scatter_tensor(dk_i, dkv_buffer[0], group=process_group)             L232
# heads_k_stride = nheads_k (h here), one iteration, as in the parent's
# spec; with a smaller stride this commit gathers into a contiguous buffer
# and copies dk[:, i:i+stride] back (L213-236), confirmed below but not
# transcribed. dv (dkv_buffer[1]) is the same code and left out; so are dq
# and the forward.
# Expected PASS (also --exhaustive --world 1..3 --max-dim 3).
# Confirmed on gloo (torch 2.11.0): this
# commit's llama3_flash_attn_prepare_cu_seqlens and
# llama3_flash_attn_varlen_qkvpacked_func copied by git show, flash-attn's
# varlen kernels replaced by a CPU per-sequence causal attention, on 2, 3
# and 4 ranks, 243 packed batches each run: torch.empty filled with NaN,
# 243 cases, 0 differ; allocator left alone, 243 cases, 0 differ;
# heads_k_stride=1 (NaN fill), 243 cases, 0 differ; every case's verdict
# equals `shardcheck eval`'s.
# Related: corpus/ring-attention/llama3-varlen-kv-window.sc, the forward's k
# window of the same function at a later commit (expect pass).
pipeline ring-flash-attn-llama3-dkv-buffer-22f0e1d
dims n h d
sequences L[1..3] n 0..4*P
require n % P == 0                 # L12: assert total_length % world_size == 0
# (n = 0, every sequence empty, is drawn and holds trivially; the gloo
# confirmation runs n >= W only. `require ... and n > 0` would leave
# --exhaustive no case at all.)
input shard n
output shard n
expect pass
tensor x = input
buf = empty x [n, size(1), size(2)]     # L152 dkv_buffer[0] = torch.empty((total_k * world_size, heads_k_stride, head_dim))
buf = zeros buf [size(0), size(1), size(2)]   # L170 dkv_buffer.zero_()
for j in 0..len(L)-1                    # flash backward: dk rows [slice_left, rank*n/P) of the sequence it started in
  z = zeros x [(rank*(n/P)-sum(L(q) for q in 0..j-1) if sum(L(q) for q in 0..j-1) < rank*(n/P) and sum(L(q) for q in 0..j) > rank*(n/P) else 0), size(1), size(2)]
  buf = write buf z dim=0 start=sum(L(q) for q in 0..j-1)
end
buf = write buf x dim=0 start=rank*(n/P)          # ... and rows [rank*n/P, slice_right) of its own piece
y = reduce_scatter_tensor buf sum       # L232 dist.reduce_scatter_tensor(dk_i, dkv_buffer[0])
