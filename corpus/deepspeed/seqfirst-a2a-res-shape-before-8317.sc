# DeepSpeed Ulysses DistributedAttention, seq-first layout (batch_dim_idx=1,
# [s, b, n, h]): the q/k/v all-to-all (sequence -> heads), the local
# attention, and the output all-to-all (heads -> sequence) whose reshape
# target is wrong (REAL BUG, buggy version).
# deepspeedai/DeepSpeed @ 1752c2ab64e789341af6a15bb4af8466edad7c22 (parent of
# aa22cbbb7cb78524021a32c8b5bc95ef60aeb8c9, refs/pull/7868/head, whose fix of
# this line is the one PR #8317 "Fix the seq-first Ulysses all2all output
# layout" merged; the merge commit of #8317 is not in the stored mirror).
# The line comes from PR #6750 (bc76b04e2800d7761c4e1b99dd9a4049bb94f569,
# 2025-01-22, which moved the inline post_all2all shapes into
# _generate_layout_params) and is still there at
# edaa7221267243c7be7fb49c5d5f5c4fb97b4641 (2026-08-22, the newest stored).
# deepspeed/sequence/layer.py @ 1752c2ab, _generate_layout_params L19-56:
#     else:                                   # batch_dim_idx == 1
#         if scatter_idx < 2:
#             global_seq_len, bs, num_local_head, head_dim = input.shape
#             pre_all2all_inp_shape = [seq_world_size, global_seq_len // seq_world_size, bs, num_local_head, head_dim]
#             pre_all2all_permute_idx = None
#             post_all2all_permute_idx = (1, 2, 0, 3, 4)
#             post_all2all_res_shape = [bs, seq_world_size * global_seq_len, num_local_head // seq_world_size, head_dim]
#         else:
#             local_seq_len, bs, num_total_head, head_dim = input.shape
#             pre_all2all_inp_shape = [local_seq_len, bs, seq_world_size, num_total_head // seq_world_size, head_dim]
#             pre_all2all_permute_idx = (2, 0, 1, 3, 4)
#             post_all2all_permute_idx = None
#             post_all2all_res_shape = [local_seq_len * seq_world_size, bs, num_total_head // seq_world_size, head_dim]
# The res_shape of the scatter_idx < 2 branch is the batch-first branch's
# (batch first, sequence multiplied, heads divided). single_all_to_all
# (L221-258): input_t = pre_all2all_fun(...) (reshape(inp_shape).contiguous(),
# then permute(...).contiguous() if any); output = torch.empty_like(input_t);
# dist.all_to_all_single(output, input_t, group=group); post_all2all (L59-71):
# permute(...).contiguous(); reshape(res_shape).contiguous().
# DistributedAttention.forward (L367-440): q, k, v through
# _SeqAllToAll.apply(spg, x, scatter_idx=2, gather_idx=0, batch_dim_idx),
# context = local_attn(q, k, v), output = _SeqAllToAll.apply(spg, context,
# gather_idx=0, scatter_idx=2, ...): the second call has scatter_idx 0 < 2.
# Transcribed: one tensor through the whole forward, the local attention as
# a function that returns v (layout only). Left out: rotary embeddings (None),
# the overlap streams (sp_stream None), the uneven-heads path (taken only when
# h % P != 0: `require h % P == 0`).
# Expected FAIL. The data leave the all-to-all in the right memory order; the
# reshape gives them the shape [b, P*s, (h/P)//P, d] instead of [s/P, b, h, d]
# (s, b, h: global sizes), and raises where (h/P) % P != 0. Minimal case:
# world 1, s=1 b=2 h=1 d=1: `rank 0 output has shape [2, 1, 1, 1], but the
# output placement needs [1, 2, 1, 1]`; at world 2, s=2 b=1 h=2 d=1: `shape
# '[1, 4, 0, 1]' is invalid for input of size 2`; s=2 b=1 h=4 d=1: shape
# [1, 4, 1, 1] for [1, 1, 4, 1].
# Confirmed on gloo (torch 2.11.0):
# imports layer.py and tp_shard.py of each commit whole (deepspeed.comm =
# torch.distributed; accelerator and einops stubbed, off the path) and calls
# the real DistributedAttention(identity, WORLD).forward(q, k, v, 1) on
# worlds 1, 2, 3, 4 (72 sizes each): "before: 288 cases, 264 differ; after:
# 288 cases, 0 differ" (edaa7221 also 264 of 288); smallest differing case
# world=1 s=1 b=2 h=1 d=1, "shape [2, 1, 1, 1], expected [1, 2, 1, 1]; same
# memory order"; world 2 s=2 b=1 h=2 d=1: "RuntimeError: shape '[1, 4, 0, 1]'
# is invalid for input of size 2"; s=2 b=1 h=4 d=1: "shape [1, 4, 1, 1],
# expected [1, 1, 4, 1]". The 24 cases that agree are world 1 with s == b
# (the wrong shape equals the right one); shardcheck passes those too.
pipeline deepspeed-seqfirst-a2a-res-shape-before-8317
dims s b h d
require h % P == 0
input shard s                      # query: [s/P, b, h, d] per rank
output shard s
expect fail
# _SeqAllToAll(query, scatter_idx=2, gather_idx=0, batch_dim_idx=1)
reshape [s/P, b, P, h/P, d]        # input.reshape(pre_all2all_inp_shape)
contiguous                         # .contiguous()
permute 2 0 1 3 4                  # input_t.permute((2, 0, 1, 3, 4))
contiguous                         # .contiguous()
all_to_all_single                  # dist.all_to_all_single(output, input_t, group=group)
reshape [s, b, h/P, d]             # output.reshape([local_seq_len * seq_world_size, bs, ...])
contiguous
# context_layer = self.local_attn(query_layer, key_layer, value_layer): v
# _SeqAllToAll(context, scatter_idx=0, gather_idx=2, batch_dim_idx=1)
reshape [P, s/P, b, h/P, d]        # input.reshape([seq_world_size, global_seq_len // seq_world_size, bs, ...])
contiguous                         # (permute idx None)
all_to_all_single                  # dist.all_to_all_single(output, input_t, group=group)
permute 1 2 0 3 4                  # post_all2all: input.permute((1, 2, 0, 3, 4)).contiguous()
contiguous
reshape [b, P*s, (h/P)//P, d]      # reshape([bs, seq_world_size * global_seq_len, num_local_head // seq_world_size, head_dim])
contiguous
