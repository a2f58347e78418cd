# torchtitan's MoE combine with sequence parallelism, after the fix:
# pytorch/torchtitan @ 5ba439938dd52356b059a66d40ebab10782e5b4d (PR #3604,
# "Fix MoE SP token combine indices"):
# torchtitan/models/common/token_dispatcher.py
#   L218-233, BaseEPTokenDispatcher._sp_global_token_indices:
#     local_pos = local_indices % local_seq_len
#     batch_idx = local_indices // local_seq_len
#     global_seq_len = local_seq_len * self.sp_size
#     global_indices = batch_idx * global_seq_len + local_pos
#     return torch.add(global_indices, self.sp_rank * local_seq_len)
#   L506-509, AllToAllTokenDispatcher.combine: the scatter_add at those indices
# torchtitan/models/common/moe.py L116, GroupedExperts.forward:
#   local_seq_len_after_padding = num_local_tokens_after_padding // B
# A token (b, p) of rank r lands at b*L + r*L/P + p: the rank's [B, L/P, D]
# block written at r*L/P along L of the [B, L, D] buffer. The rest as in
# moe-sp-combine-indices-before-3604.sc.
# Confirmed on gloo as the version before it: equal to x in all 48 cases
# (B = 1, 2, 3) at 2, 3 and 4 ranks.
pipeline torchtitan-moe-sp-combine-indices-3604
dims b l d
routes R[b*l] 0..3 topk=2
input shard l
output partial sum
tensor x = input
t = reshape x [b*(l//P), d]
r = sort_by t R dim=0 start=rank*(b*(l//P))
c = combine_by r R dim=0 start=rank*(b*(l//P))
out = zeros t [b*(l//P)*P, d]
o = view out [b, l, d]
c = view c [b, l//P, d]
y = write o c dim=1 start=rank*(l//P)
