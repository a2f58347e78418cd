# torchtitan's MoE with sequence parallelism and expert parallelism (EP
# borrowing the TP ranks): the input x_BLD of GroupedExperts is sharded
# along L over the TP (SP) ranks; each rank flattens its [B, L/P, D] block,
# routes its own tokens top-k, sends the copies to their experts and, in
# combine(), scatter-adds the experts' score-weighted copies back into a
# zeros buffer of all B*L tokens at global positions; the buffer, viewed
# [B, L, D], is a partial sum over the SP ranks (the module's output is
# Partial, reduced by the next redistribute).
# pytorch/torchtitan @ 88030eec169c70e2ada015b32973c04b98c84a62 (the parent of
# the fix, PR #3604, 5ba439938dd5):
# torchtitan/models/common/token_dispatcher.py
#   L91-98, _local_reorder:
#     token_indices_experts_sorted_N = torch.argsort(topk_expert_ids_TK.view(-1), stable=True)
#     token_indices_experts_sorted_N = token_indices_experts_sorted_N // self.top_k
#     routed_input_ND = x_TD[token_indices_experts_sorted_N]
#   L455-484, AllToAllTokenDispatcher.combine (after the all-to-all back):
#     out_TD = torch.zeros(num_local_tokens_after_padding * self.sp_size, x_TD.shape[-1], ...)
#     if self.sp_size > 1:
#         token_indices_experts_sorted_N = (
#             metadata.token_indices_experts_sorted_N + num_local_tokens_after_padding * self.sp_rank)
#     out_TD = deterministic_scatter_add(out_TD, token_indices_experts_sorted_N..., routed_output_RD)
# torchtitan/models/common/moe.py L116, L141, GroupedExperts.forward:
#   x_TD = x_BLD.view(T, D) ... return out_TD.view(B, -1, D)
# (num_local_tokens_after_padding = B*L/P: L divisible by P, no padding.)
# The experts are identity with scores summing to one; the all-to-all to
# the experts, _permute, _unpermute and the all-to-all back return the
# copies in the order they left (the same code in both versions) and are
# left out: sort_by is _local_reorder's gather, combine_by the scatter_add
# of a token's copies, the write its offset into the B*L buffer. The
# routes number each rank's own tokens (rank r's are r*B*L/P onwards).
# Expected FAIL: the offset counts whole blocks of B*L/P tokens, right
# for one batch only. Minimal case: two ranks, B=2, L=2: rank 1's tokens
# (batch 0 and 1 at position 1) land at rows 2 and 3 instead of 1 and 3.
# Confirmed on gloo (torch 2.11): this commit's token_dispatcher.py, its
# AllToAllTokenDispatcher with EP and SP on one DeviceMesh of 2, 3 and 4
# ranks, the local shard of x [B, L, 1] and of drawn top-1 and top-2
# expert ids (E = P or 2P experts), identity experts, scores 1/K,
# dispatch then combine, the output viewed [B, -1, D] and summed over the
# ranks: equal to x in all 16 cases with B=1 at each world, different in
# all 32 with B=2 and 3.
pipeline torchtitan-moe-sp-combine-indices-before-3604
dims b l d
routes R[b*l] 0..3 topk=2
input shard l
output partial sum
expect fail
tensor x = input
t = reshape x [b*(l//P), d]
r = sort_by t R dim=0 start=rank*(b*(l//P))
c = combine_by r R dim=0 start=rank*(b*(l//P))
out = zeros t [b*(l//P)*P, d]
out = write out c dim=0 start=b*(l//P)*rank
y = view out [b, l, d]
