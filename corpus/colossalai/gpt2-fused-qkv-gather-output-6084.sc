# ColossalAI shardformer's column-parallel fused-QKV linear
# (GPT2FusedLinearConv1D_Col, GPT-2's c_attn, a Conv1D of weight (in, out)
# with out = [Q | K | V]) with gather_output=True. The weight is sharded by
# split_fused_qkv_in_gpt2_style, so rank r holds the columns [Q_r, K_r, V_r];
# the local matmul gives rank r those output columns. As fixed by PR #6084
# ("[shardformer] fix linear 1d row and support uneven splits for fused qkv
# linear", commit "[tp] fix gather fused ..."), the gather reorders the
# gathered chunks back into the single-device order:
# hpcaitech/ColossalAI @ 646b3c5a90ce904b2128cae467c2068f435a9df0,
# colossalai/shardformer/layer/qkv_fused_linear.py:
#   L364-421  GPT2FusedLinearConv1D_Col.forward:
#     L412-414  if self.gather_output:
#                   output = gather_forward_split_backward_fused_qkv(output_parallel, self.split_sizes, self.process_group)
#   L170-184  _GatherForwardSplitBackwardFusedQKV.forward:
#               return gather_fused_qkv_in_gpt2_style(qkv, split_sizes, process_group, is_transposed=True)
#   L94-148   gather_fused_qkv_in_gpt2_style:
#     L107-111  new_split_sizes.append(sz // world_size) ... new_split_sizes = new_split_sizes * world_size
#     L121-124  dist.all_gather(gather_list, qkv, group=process_group)
#               gather_weight = torch.cat(gather_list, dim=-1)
#     L136      weight_chunks = torch.split(gather_weight, new_split_sizes, dim=-1)
#     L140-142  for i in range(len(split_sizes)):
#                   reordered_chunk_list.extend(weight_chunks[i :: len(split_sizes)])
#     L145      reordered_gather_weight = torch.cat(reordered_chunk_list, dim=-1)
#   L49-91    split_fused_qkv_in_gpt2_style (the weight's shard_fn, L277-278).
# X is the single-device output x @ W viewed [t, g, i] (t the tokens; g =
# len(split_sizes); i one part's size, all parts equal here); rank r's
# output_parallel is `shard i as t (g i)`. The split into P*g chunks of
# i/P and the reorder [i::g] is the take list: output chunk k (part k//P,
# rank k%P) is gathered chunk (k%P)*g + k//P.
# Left out: the matmul (X is its result), bias (None), the backward pass,
# and the uneven split_sizes the PR also added (parts of different sizes,
# e.g. GQA's K/V smaller than Q): one size i for every part here.
# Expected PASS. The bug: gpt2-fused-qkv-gather-output-before-6084.sc.
# Confirmed on gloo (torch 1.13.0a0; 2.11.0 prints the same figures):
# a script runs this commit's
# split_fused_qkv_in_gpt2_style, GPT2FusedLinearConv1D_Col.forward and the
# functions they call (extracted verbatim from git show; stubs: Tensor.cuda
# as identity, the module as a namespace of its attributes) on worlds 2, 3,
# 4, t 1..2, len(split_sizes) 1..3, h = P or 2P, in_features 1..3, against
# x @ W on one device: "after: 36 cases, 0 differ" (FusedLinear1D_Col.forward,
# L821-858, given the same fix, run the same way: "after: 36 cases, 0 differ").
pipeline colossalai-gpt2-fused-qkv-gather-output-6084
dims t g i
input shard i as t (g i)        # output_parallel: rank r's [Q_r, K_r, V_r] columns
output replicate as t (g i)     # x @ W on one device: [Q, K, V]
sizes g=1..3
expect pass
all_gather dim=1                # L121-124: all_gather, torch.cat(gather_list, dim=-1)
take 1 P*g [(k%P)*g+k//P for k] # L136-145: torch.split by new_split_sizes, extend(weight_chunks[i::g]), cat
