# slime's rollout routing replay (R3) under --allgather-cp: each CP rank
# must replay the routed experts of exactly the tokens it trains on. With
# --allgather-cp, get_batch concatenates the micro-batch's samples into one
# packed stream, pads it to a multiple of cp_size * pad_size and gives rank
# r the contiguous piece tokens.chunk(cp_size)[r]; but fill_routing_replay
# still slices each sample's experts with the per-sample zigzag of the
# default CP layout (slice_with_cp: 2*cp chunks, rank r keeping r and
# 2cp-1-r), then concatenates them. X is the packed routed experts, sample
# j's L(j) rows (its tokens - 1), k standing for num_layers x topk.
# THUDM/slime @ a4b8c9c8e2f4efa753b22edbdda56d066c3e8070 (the parent of
# the fix 5c530c1568c8c3d6a3d54da45639417894ab44fc, PR #2175 "Fix R3 for
# allgather_cp"):
#   slime/backends/megatron_utils/actor.py L298-336, fill_routing_replay:
#     rollout_routed_experts = [pad_func(r, 1) for r in rollout_routed_experts]      L323
#     rollout_routed_experts = [slice_with_cp(r, pad_func) for r in rollout_routed_experts]   L325
#     rollout_routed_experts = torch.cat(rollout_routed_experts, dim=0)             L326
#     pad_size = mpu.get_tensor_model_parallel_world_size() * self.args.data_pad_size_multiplier
#     pad = (pad_size - rollout_routed_experts.size(0) % pad_size) % pad_size
#     if pad != 0: rollout_routed_experts = pad_func(rollout_routed_experts, pad)   L327-330
#   slime/backends/megatron_utils/cp_utils.py L287-317, slice_with_cp:
#     if cp_size == 1: return tokens
#     chunk_size = (token_len + 2 * cp_size - 1) // (2 * cp_size)
#     pad = 2 * cp_size * chunk_size - token_len; tokens = pad_tokens(tokens, pad)
#     start_1, end_1 = chunk_size * cp_rank, chunk_size * (cp_rank + 1)
#     start_2, end_2 = chunk_size * (2 * cp_size - cp_rank - 1), chunk_size * (2 * cp_size - cp_rank)
#     return torch.cat([tokens[start_1:end_1], tokens[start_2:end_2]])
#   the tokens it must match, slime/backends/megatron_utils/data.py L69-87
#   (get_batch, allgather_cp; the same file at the fix):
#     tokens = torch.cat(tokens, dim=0)
#     global_pad_size = cp_size * pad_size
#     pad = (global_pad_size - tokens.size(0) % global_pad_size) % global_pad_size
#     if pad != 0: tokens = F.pad(tokens, (0, pad), value=pad_token_id)
#     tokens = tokens.chunk(cp_size, dim=0)[cp_rank]
# The reference is that token layout: each sample's experts and the one
# pad row its last token replays (pad_func(r, 1), no loss is taken there),
# concatenated and padded to a multiple of P*M. TP is 1 (pad_size = M,
# data_pad_size_multiplier, drawn 1..3; the default 128), so the
# sequence-parallel slice (L332-336, tp_size 1) is left out; pad rows
# (arange % num_experts) are padding. The replay into the layers (L338-)
# is no layout.
# Expected FAIL. Minimal case: world=2 n=0 k=1 M=1 L=0 (one sample of one
# token): every rank gets the zigzag pair of the sample padded to 4, two
# rows, where the tokens' layout gives it one ("rank 0 output has shape
# [2, 1], but the output placement needs [1, 1]"), as --exhaustive
# --world 1..3 --max-dim 3 finds it; at world=2 n=1 M=1 L=1 the same
# shapes. At world=2 n=3 M=1 L=3 (one sample of 4 tokens)
# the shapes agree and the rows are wrong: rank 0 holds row 0 and the
# last token's pad row where its tokens are 0 and 1, rank 1 rows 1 and 2
# where its tokens are 2 and 3 ("rank 0 [1, 0] holds padding, expected
# X[1, 0]").
# Confirmed on gloo (torch 2.11.0): a script runs
# this commit's fill_routing_replay loop body (actor.py L298-311, L315-336,
# executed from the git-show'd text) with its cp_utils.slice_with_cp, and
# get_batch's allgather_cp branch (data.py L58-87, from the text) for the
# tokens, megatron's mpu stubbed from the gloo group (CP = world, TP = 1),
# on 2, 3 and 4 ranks, 200 micro-batches each (1-3 samples of 1-8 tokens,
# M = 1..3): 600 cases, 588 differ; smallest world=2, one sample of 1
# token, M=1: every rank's experts have shape (2,) where its tokens have
# (1,). Every one of the 1200 cases (this spec and the fix's) gets the
# same verdict from `shardcheck eval` (experts per sample = tokens - 1).
pipeline slime-r3-allgather-cp-experts-before-2175
dims n k
sequences L[1..3] n 0..7
param M 1..3                      # data_pad_size_multiplier (tp_size 1)
input replicate                   # every CP rank holds the micro-batch's rollout_routed_experts
output shard n
expect fail
reference                         # the tokens' layout (data.py L69-87), each sample's last token on its pad row
y = narrow X 0 0 0
for j in 0..len(L)-1
  s = narrow X 0 sum(L(q) for q in 0..j-1) L(j)
  s = pad s 0 0 1
  y = cat y s dim=0
end
y = pad y 0 0 (P*M-size(0)%(P*M))%(P*M)
end
tensor x = input
y = narrow x 0 0 0
for j in 0..len(L)-1
  s = narrow x 0 sum(L(q) for q in 0..j-1) L(j)
  s = pad s 0 0 1                 # L323 pad_func(r, 1)
  s = pad s 0 0 (2*P*cdiv(L(j)+1,2*P)-L(j)-1 if P > 1 else 0)   # slice_with_cp: pad to 2*cp*chunk_size (cp_size 1: unchanged)
  a = narrow s 0 cdiv(L(j)+1,2*P)*rank (cdiv(L(j)+1,2*P) if P > 1 else L(j)+1)   # tokens[start_1:end_1]
  b = narrow s 0 cdiv(L(j)+1,2*P)*(2*P-1-rank) (cdiv(L(j)+1,2*P) if P > 1 else 0) # tokens[start_2:end_2]
  y = cat y a b dim=0             # L326 torch.cat(rollout_routed_experts, dim=0)
end
y = pad y 0 0 (M-size(0)%M)%M     # L327-330 pad to a multiple of pad_size
