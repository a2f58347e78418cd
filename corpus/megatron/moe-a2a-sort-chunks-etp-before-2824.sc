# Megatron-LM MoE all-to-all token dispatcher with expert tensor parallelism
# (tp > 1), expert parallelism (ep > 1) and more than one local expert
# (dropless, moe_permute_fusion off): after the all-to-all over EP and the
# uneven all-gather over TP, a rank's tokens arrive in chunks ordered
# (source tp, source ep, local expert); dispatch sorts the chunks by local
# expert, combine sorts them back before the reduce-scatter over TP. Here
# one rank's received tokens: route R(q) is token q's chunk,
# (tp*EP + ep)*nle + e, drawn with the tp size T, the ep size EP and the
# local experts nle (parameters); the received order is the tokens sorted by
# chunk, and combine must give it back. The experts are identity.
# NVIDIA/Megatron-LM, megatron/core/transformer/moe/token_dispatcher.py,
# MoEAlltoAllTokenDispatcher:
#   __init__ L316-327: input_chunk_idxs = torch.arange(self.num_experts * self.tp_size)
#     self.sort_input_by_local_experts = input_chunk_idxs.reshape(-1, self.num_local_experts).T.ravel()
#     self.restore_output_by_local_experts = input_chunk_idxs.reshape(self.num_local_experts, -1).T.ravel()
#   preprocess L424-436: num_global_tokens_per_local_expert: [tp_size, ep_size, num_local_experts]
#   token_permutation L556-562: sort_chunks_by_idxs(global_input_tokens,
#     self.num_global_tokens_per_local_expert.ravel(), self.sort_input_by_local_experts)
#   token_unpermutation L605-611: sort_chunks_by_idxs(hidden_states,
#     self.num_global_tokens_per_local_expert.T.ravel(), self.restore_output_by_local_experts)
# megatron/core/transformer/moe/moe_utils.py L358-371 sort_chunks_by_idxs:
#   input = torch.split(input, split_sizes.tolist(), dim=0)
#   output = torch.cat([input[i] for i in sorted_idxs.tolist()], dim=0)
# A sort as a loop: chunk k of the new order is chunk idx[k] of the old one,
# at the sum of the sizes before it.
# Before the fix, @ b1efb3c7126ef7615e8c333432d76e08038e17ff, preprocess
# L467-474: the view is assigned, then overwritten by the 3-D tensor:
#   self.num_global_tokens_per_local_expert = num_global_tokens_per_local_expert.view(-1, self.num_local_experts)
#   if not self.config.moe_permute_fusion:
#       self.num_global_tokens_per_local_expert = num_global_tokens_per_local_expert.to(torch.device("cpu"), non_blocking=False)
# so combine's .T reverses all three dims ([nle, ep, tp]) and splits by sizes
# in (expert, ep, tp) order where the chunks lie in (expert, tp, ep) order
# (torch warns that .T on a 3-D tensor is deprecated). Expected FAIL,
# minimal case T=2 EP=2 nle=2, two tokens: chunk 2 (tp 0, ep 1, expert 0)
# and chunk 5 (tp 1, ep 0, expert 1) come back swapped.
# Confirmed on gloo: the dispatcher's preprocess, token_permutation and
# token_unpermutation at both commits with moe_utils' permute, unpermute and
# sort_chunks_by_idxs and mappings' _gather_along_first_dim,
# _reduce_scatter_along_first_dim and _AllToAll (reduce_scatter as an
# all_reduce and the rank's piece, uneven all_gather padded: gloo has
# neither), ranks tp-fastest, identity experts, 1 to 4 tokens a rank with
# drawn routes: the output differs from T x the input in 19 of 24 cases at
# T=2 EP=2 nle=2 (15, 16 and 20 of 24 at 2-2-3, 2-3-2, 3-2-2), in none at
# T=1, EP=1 or nle=1, and never after the fix. One token a rank routed to
# experts 2, 1, 0, 2 (ranks 0..3: the EP-0 ranks receive exactly the two
# tokens of the minimal case) is wrong before and right after.
pipeline megatron-moe-a2a-sort-chunks-etp-before-2824
dims t h
param T 1..3
param EP 1..3
param nle 1..3
routes R[t] 0..T*EP*nle-1
input replicate
output replicate
expect fail
reference
sort_by R dim=0
end
tensor x = input
g = sort_by x R dim=0            # received: chunks in (tp, ep, expert) order
d = narrow g 0 0 0
for k in 0..T*EP*nle-1            # dispatch: chunk k of d is chunk s*nle+e of g, s = k%(T*EP), e = k//(T*EP)
  c = narrow g 0 sum(routed(R, 0, len(R)-1, q) for q in 0..(k%(T*EP))*nle+k//(T*EP)-1) routed(R, 0, len(R)-1, (k%(T*EP))*nle+k//(T*EP))
  d = cat d c dim=0
end
y = narrow d 0 0 0
for k in 0..T*EP*nle-1            # combine: piece (k%nle)*(T*EP)+k//nle of d split by [tp, ep, nle].T.ravel(): piece q sized as chunk ((m%T)*EP+m//T)*nle+e, m = q%(T*EP), e = q//(T*EP)
  c = narrow d 0 sum(routed(R, 0, len(R)-1, (((q%(T*EP))%T)*EP+(q%(T*EP))//T)*nle+q//(T*EP)) for q in 0..(k%nle)*(T*EP)+k//nle-1) routed(R, 0, len(R)-1, (((((k%nle)*(T*EP)+k//nle)%(T*EP))%T)*EP+(((k%nle)*(T*EP)+k//nle)%(T*EP))//T)*nle+((k%nle)*(T*EP)+k//nle)//(T*EP))
  y = cat y c dim=0
end
