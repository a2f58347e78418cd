# torchtitan's MoE with sequence parallelism and expert parallelism (EP
# borrowing the TP ranks), on a sequence the SP ranks do not divide: the
# MoE input x_BLD is a DTensor Shard(1) over the SP ranks (torch.chunk's
# layout: ceil(L/P) tokens a rank, the trailing ranks fewer or none); each
# rank flattens its [B, L_r, D] block, routes its own tokens top-k, sends
# the copies to their experts and, in combine(), scatter-adds the experts'
# score-weighted copies into a zeros buffer of "all" tokens at "global"
# positions; the buffer, viewed [B, -1, D], is a partial sum over the SP
# ranks (Partial, reduced by the next redistribute).
# pytorch/torchtitan @ 7f0749e649108e23e320cdc8a2bc0bef10b7b5bd (the parent
# of the fix, PR #3619 "Using virtual padding to calculate
# number_local_tokens per SP rank, and fix combine() shape mismatch",
# db0a7234576f):
# torchtitan/models/common/token_dispatcher.py
#   L91-98, _local_reorder:
#     token_indices_experts_sorted_N = torch.argsort(topk_expert_ids_TK.view(-1), stable=True)
#     token_indices_experts_sorted_N = token_indices_experts_sorted_N // self.top_k
#     routed_input_ND = x_TD[token_indices_experts_sorted_N]
#   L398-467, AllToAllTokenDispatcher.combine (after the all-to-all back):
#     out_TD = torch.zeros(x_TD.shape[0] * self.sp_size, x_TD.shape[-1], ...)
#     if self.sp_size > 1:
#         token_indices_experts_sorted_N = (
#             metadata.token_indices_experts_sorted_N + x_TD.shape[0] * self.sp_rank)
#     out_TD = deterministic_scatter_add(out_TD, token_indices_experts_sorted_N..., routed_output_RD)
# torchtitan/models/common/moe.py L98-130, GroupedExperts.forward:
#   T = B * L; x_TD = x_BLD.view(T, D) ... return out_TD.view(B, -1, D)
# Both the buffer and the offset take this rank's own token count for every
# rank's (even-split arithmetic): right only when the SP ranks hold equal
# shards. The PR's description: "combine() wrongly assume the tokens are
# evenly sharded on each rank ... If uneven sharded, out_TD will have
# different shapes across SP ranks."
# The experts are identity with scores summing to one; the all-to-all to
# the experts, _permute, _unpermute and the all-to-all back return the
# copies in the order they left (the same code in both versions) and are
# left out: sort_by is _local_reorder's gather, combine_by the scatter_add
# of a token's copies, the write its offset into the buffer. The routes
# number each rank's own tokens (rank r's start at its first row,
# min(r*ceil(L/P), L)). B is 1 (`require b == 1`): for B > 1 the offset is
# also wrong on even shards, a later bug fixed by PR #3604
# (corpus/torchtitan/moe-sp-combine-indices-before-3604.sc).
# Expected FAIL. Minimal case: world=2 b=1 l=1 d=1 R=0:1: rank 0 holds the
# token and builds a buffer of 1*2 rows, rank 1 holds none and builds 0
# rows ("rank 0 output has shape [1, 2, 1], but the output placement needs
# [1, 1, 1]"): the ranks' partial sums cannot be added. Every L that P does
# not divide fails the same way; at world 2, l = 3, rank 1's one token also
# lands at row 1 * 1 = 1, rank 0's second token, instead of row 2.
# Confirmed on gloo (torch 2.11.0): this commit's token_dispatcher.py
# (AllToAllTokenDispatcher, deterministic_scatter_add, imported as is) and
# GroupedExperts.forward (taken out of moe.py and run verbatim), EP and SP
# on one DeviceMesh of 2, 3 and 4 ranks, x [B, L, D] placed by
# distribute_tensor(..., [Shard(1)]).to_local(), drawn top-1 and top-2
# expert ids (E = P or 2P experts), identity experts, scores 1/K, dispatch
# then combine, the ranks' outputs summed: with B = 1, L = 1..3P, D = 1, 2,
# 144 of 216 cases differ, exactly those where P does not divide L, all of
# them with ranks' outputs of different shapes; the smallest is P=2 L=1,
# rank outputs [1, 2, 1] and [1, 0, 1], as here
#. Without the `require`,
# shardcheck's verdict matched gloo's in all 162 (P, B, L, D) of B = 1..3
# at both commits.
pipeline torchtitan-moe-sp-combine-uneven-before-3619
dims b l d
routes R[b*l] 0..3 topk=2
require b == 1
input shard l chunk
output partial sum
expect fail
tensor x = input
t = reshape x [b*size(1), d]
r = sort_by t R dim=0 start=b*min(rank*cdiv(l,P),l)
c = combine_by r R dim=0 start=b*min(rank*cdiv(l,P),l)
out = zeros c [size(0)*P, d]
out = write out c dim=0 start=b*(min((rank+1)*cdiv(l,P),l)-min(rank*cdiv(l,P),l))*rank
y = view out [b, -1, d]
