# slime's rollout routing replay (R3) under --allgather-cp, after the fix:
# the routed experts take the tokens' layout, each sample's experts padded
# by one row for its last token, all concatenated, padded to a multiple of
# cp_size * pad_size and chunked over the CP ranks, as get_batch does with
# the tokens. X is the packed routed experts, sample j's L(j) rows (its
# tokens - 1), k standing for num_layers x topk.
# THUDM/slime @ 5c530c1568c8c3d6a3d54da45639417894ab44fc (PR #2175 "Fix R3
# for allgather_cp"), slime/backends/megatron_utils/cp_utils.py L362-405,
# prepare_routed_experts_for_routing_replay (called from actor.py L300):
#     padded_experts = [_pad_routed_experts(experts, 1, num_experts) for experts in rollout_routed_experts]   L376
#     pad_size = mpu.get_tensor_model_parallel_world_size() * data_pad_size_multiplier
#     if allgather_cp:                                                               L379
#         routed_experts = torch.cat(padded_experts, dim=0)
#         global_pad_size = cp_size * pad_size
#         pad = (global_pad_size - routed_experts.size(0) % global_pad_size) % global_pad_size
#         routed_experts = _pad_routed_experts(routed_experts, pad, num_experts)
#         routed_experts = routed_experts.chunk(cp_size, dim=0)[cp_rank]              L386
# the tokens it must match: slime/backends/megatron_utils/data.py L69-87
# (get_batch, allgather_cp; unchanged by the fix): cat, pad to a multiple
# of cp_size * pad_size, tokens.chunk(cp_size, dim=0)[cp_rank].
# TP is 1 (pad_size = M, data_pad_size_multiplier, drawn 1..3), so the
# sequence-parallel slice (L397-403) is left out; pad rows are padding.
# Expected PASS (also --exhaustive --world 1..3 --max-dim 3).
# Confirmed on gloo (torch 2.11.0): this
# commit's prepare_routed_experts_for_routing_replay (imported from the
# git-show'd cp_utils.py, allgather_cp=True) against get_batch's
# allgather_cp token layout (data.py L58-87), megatron's mpu stubbed from
# the gloo group (CP = world, TP = 1), 2, 3 and 4 ranks, 200 micro-batches
# each (1-3 samples of 1-8 tokens, M = 1..3): 600 cases, 0 differ; every
# case's verdict equals `shardcheck eval`'s.
pipeline slime-r3-allgather-cp-experts-2175
dims n k
sequences L[1..3] n 0..7
param M 1..3                      # data_pad_size_multiplier (tp_size 1)
input replicate                   # every CP rank holds the micro-batch's rollout_routed_experts
output shard n
expect pass
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
  s = pad s 0 0 1                 # L376 _pad_routed_experts(experts, 1, num_experts)
  y = cat y s dim=0               # L380 torch.cat(padded_experts, dim=0)
end
y = pad y 0 0 (P*M-size(0)%(P*M))%(P*M)   # L383-385 pad to a multiple of cp_size * pad_size
y = take y 0 P rank               # L386 routed_experts.chunk(cp_size, dim=0)[cp_rank]
