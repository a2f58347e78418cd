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
# The fix, @ 54d4b3ddbb43d7f9433712d4fc57aeb57c2b04fa (MR !2824, "Fix moe
# convergence issue when (local_expert > 1 & a2a dispatcher & tp>1 & ep>1)"),
# preprocess L468-476: the view kept,
#   self.num_global_tokens_per_local_expert = (self.num_global_tokens_per_local_expert.to(torch.device("cpu"), non_blocking=True))
# so combine splits by [nle, tp*ep] sizes, in the chunks' order. Expected
# PASS; on gloo (see moe-a2a-sort-chunks-etp-before-2824.sc) right in every
# case tried.
pipeline megatron-moe-a2a-sort-chunks-etp-2824
dims t h
param T 1..3
param EP 1..3
param nle 1..3
routes R[t] 0..T*EP*nle-1
input replicate
output replicate
expect pass
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
for k in 0..T*EP*nle-1            # combine: piece (k%nle)*(T*EP)+k//nle of d split by [tp*ep, nle].T.ravel(): piece q sized as chunk (q%(T*EP))*nle+q//(T*EP)
  c = narrow d 0 sum(routed(R, 0, len(R)-1, (q%(T*EP))*nle+q//(T*EP)) for q in 0..(k%nle)*(T*EP)+k//nle-1) routed(R, 0, len(R)-1, (((k%nle)*(T*EP)+k//nle)%(T*EP))*nle+((k%nle)*(T*EP)+k//nle)//(T*EP))
  y = cat y c dim=0
end
