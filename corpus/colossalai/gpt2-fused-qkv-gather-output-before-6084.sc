# ColossalAI shardformer's column-parallel fused-QKV linear
# (GPT2FusedLinearConv1D_Col, GPT-2's c_attn, a Conv1D of weight (in, out)
# with out = [Q | K | V], n_fused = 3) with gather_output=True. The weight is
# sharded by split_fused_qkv_in_gpt2_style, so rank r holds the columns
# [Q_r, K_r, V_r] (its 1/P of each of the n_fused parts); the local matmul
# gives rank r those output columns, and the all-gather must return the
# single-device output [Q_1..Q_P, K_1..K_P, V_1..V_P].
# hpcaitech/ColossalAI @ f4daf042700a0ec3ed718a4c37e8b274d5052744 (the parent
# of the fix, PR #6084 "[shardformer] fix linear 1d row and support uneven
# splits for fused qkv linear", commit "[tp] fix gather fused ..."),
# colossalai/shardformer/layer/qkv_fused_linear.py:
#   L46-84    split_fused_qkv_in_gpt2_style (the weight's shard_fn, L225-226):
#     L69       weight_chunks = torch.chunk(qkv, world_size * n_fused, dim=-1)
#     L78       weight_chunks_of_current_rank = [weight_chunks[i] for i in order[rank::world_size]]
#   L307-366  GPT2FusedLinearConv1D_Col.forward:
#     L344      output_parallel = matmul_with_async_comm(input_parallel, self.weight, bias, ...)
#     L355-359  if self.gather_output:
#                   output = gather_forward_split_backward(
#                       output_parallel, dim=-1, process_group=self.process_group, ...)
# colossalai/shardformer/layer/_operation.py L955-970, _gather:
#     dist.all_gather(tensor_list, input_, group=process_group)
#     output = torch.cat(tensor_list, dim=dim).contiguous()
# X is the single-device output x @ W viewed [t, g, i] (t the tokens, b*s
# flattened; g = n_fused; i the size of one part, h); rank r's
# output_parallel is `shard i as t (g i)` (the fused-QKV layout). The plain
# all-gather on the last dim concatenates [Q_1 K_1 V_1 Q_2 K_2 V_2 ...]:
# wrong whenever P > 1 and n_fused > 1. The repo's own test compensated
# (tests/.../test_gpt2_qkv_fused_linear_1d.py: assert_close(rearrange(out, -1),
# gather_out)); the fix removed that rearrange. FusedLinear1D_Col (L768-794,
# gather at L783-787) had the same gather and the same fix: the same spec
# (run by the confirm script, not transcribed separately).
# Left out: the matmul itself (X is its result), the bias (None; it is
# sharded by the same split), reduce_backward and the backward pass, the
# fp8 path, the sequence-parallel modes. g is drawn 1..3 (the policies pass
# n_fused 3 for c_attn and 1 for GPT-2's c_fc; the API takes any).
# Expected FAIL. Minimal case: world=2 t=1 g=2 i=2: rank r gets
# [Q_1, K_1, Q_2, K_2] instead of [Q_1, Q_2, K_1, K_2] ("dims g and i
# swapped"). Replay: shardcheck eval corpus/colossalai/gpt2-fused-qkv-gather-output-before-6084.sc
# --world 2 --sizes t=1,g=2,i=2 --dtype i32 --seed 0.
# Confirmed on gloo (torch 1.13.0a0; 2.11.0 prints the same figures):
# a script runs this commit's
# split_fused_qkv_in_gpt2_style, GPT2FusedLinearConv1D_Col.forward and the
# _operation.py functions it calls (extracted verbatim from git show; stubs:
# Tensor.cuda as identity, the module as a namespace of its attributes) on
# worlds 2, 3, 4, t 1..2, n_fused 1..3, h = P or 2P, in_features 1..3,
# against x @ W on one device: "before: 36 cases, 24 differ" (every case
# with n_fused > 1, none with n_fused = 1; each differing output equals
# this spec's all_gather-only order); smallest: world=2 t=1 n_fused=2 h=2.
# FusedLinear1D_Col.forward of this commit, run the same way: "before: 36
# cases, 24 differ".
pipeline colossalai-gpt2-fused-qkv-gather-output-before-6084
dims t g i
input shard i as t (g i)        # output_parallel: rank r's [Q_r, K_r, V_r] columns
output replicate as t (g i)     # x @ W on one device: [Q, K, V]
sizes g=1..3
expect fail
all_gather dim=1                # gather_forward_split_backward(output_parallel, dim=-1, ...): _gather L966-968
