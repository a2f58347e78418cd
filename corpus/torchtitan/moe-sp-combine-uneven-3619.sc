# torchtitan's MoE combine with sequence parallelism on a sequence the SP
# ranks do not divide, after the fix ("virtual padding"):
# pytorch/torchtitan @ db0a7234576f9f7d23f09dc537a348b3c0a1c74d (PR #3619,
# "Using virtual padding to calculate number_local_tokens per SP rank, and
# fix combine() shape mismatch", a replay of #3595):
# torchtitan/models/common/moe.py L384-393, MoE.forward (B, L of the global
# DTensor):
#   T = B * L
#   pad_tokens = (-T) % sp_size
#   num_local_tokens_after_padding = (T + pad_tokens) // sp_size
# L98-141, GroupedExperts.forward passes it to combine() and returns
#   out_TD.view(B, -1, D)
# torchtitan/models/common/token_dispatcher.py L403-484,
# AllToAllTokenDispatcher.combine:
#   out_TD = torch.zeros(num_local_tokens_after_padding * self.sp_size, x_TD.shape[-1], ...)
#   token_indices_experts_sorted_N = (metadata.token_indices_experts_sorted_N
#       + num_local_tokens_after_padding * self.sp_rank)
# moe.py L472-478, MoE.forward, the padded tail cut off:
#   if pad_tokens:
#       out_TD = out_BLD.view(-1, D)
#       out_BLD = out_TD[:T].view(B, L, D)
# Every rank builds a buffer of ceil(T/P)*P rows and places its tokens at
# r*ceil(T/P), the offset torch.chunk gives rank r when B = 1 (nothing is
# padded physically; the tail rows stay zero and are cut). B is 1 as in
# moe-sp-combine-uneven-before-3619.sc: at this commit B > 1 is still
# PR #3604's bug, and with B*L not divisible by P it raises at
# out_TD.view(B, -1, D) (world=2 b=3 l=1: "shape '[3, -1, 1]' is invalid
# for input of size 4", in shardcheck and on gloo alike). The rest as in
# the version before it.
# Expected PASS (--exhaustive, world 1..3, each dim <= 2: 3744 cases).
# Confirmed on gloo (torch 2.11.0) as the version before it, with
# MoE.forward's padding lines (asserted verbatim in this commit's moe.py):
# equal to x in all 216 cases with B = 1 (144 of them with L not divisible
# by P) at 2, 3 and 4 ranks.
pipeline torchtitan-moe-sp-combine-uneven-3619
dims b l d
routes R[b*l] 0..3 topk=2
require b == 1
input shard l chunk
output partial sum
expect pass
tensor x = input
t = reshape x [b*size(1), d]
r = sort_by t R dim=0 start=b*min(rank*cdiv(l,P),l)
c = combine_by r R dim=0 start=b*min(rank*cdiv(l,P),l)
out = zeros c [cdiv(b*l,P)*P, d]
out = write out c dim=0 start=cdiv(b*l,P)*rank
o = view out [b, -1, d]
o = view o [-1, d]
o = narrow o 0 0 b*l
y = view o [b, l, d]
