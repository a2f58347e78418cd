# fairscale's MOELayer (GShard Algorithm 2) with expert parallelism and more
# than one expert per rank: each rank routes its own tokens top-1 with a
# capacity C per expert, packs them with the einsum "sec,sm->ecm" into an
# [E, C, M] buffer (expert e's slot c holds the c-th of the rank's tokens
# routed to e, token order; empty slots zero, tokens past C dropped), sends
# experts g*nle..(g+1)*nle-1 to rank g with all_to_all_single, and hands each
# of its nle local experts its chunk of what came back. Here the output is
# what the experts receive: local expert j's input, flattened to rows, the
# nle inputs one after the other. Expert j of rank r must see, for each
# source rank g in order, g's C slots of global expert r*nle + j.
# Routes R(q) number all t tokens; rank r's are r*(t/P) onwards; E = P*nle.
# The dispatch buffer is written as the einsum fills it: per expert, select
# the rank's tokens routed to it and pad (or crop) to C rows (`pad` with a
# negative width crops, as top2gating's `mask1 *= torch.lt(locations1,
# capacity)` drops every token past the C-th).
# The gate is left out: MOELayer takes any gate module (the PR's test passes a
# RoundRobinGate); a top-1 gate built with top2gating's first-choice lines
# (fairscale/nn/moe/top2gate.py L42-90: one_hot, locations1 = cumsum - 1,
# mask1 *= lt(locations1, capacity), one_hot(locations1_s), einsum
# "se,sc->sec") stands for it, on drawn routes and a drawn capacity C.
# Also left out: the experts' compute, the cat of their outputs, the
# all-to-all back and the combine einsum "sec,ecm->sm". Before the fix that
# path inverts the dispatch exactly (chunk dim 0, cat dim 0), so with identity
# experts the round trip hides the bug; it lies in which expert computes on
# which token, which is what the output states.
# The code asserts input[0].shape[0] % nle == 0 (3-D input [s, t, m],
# reshaped to [-1, m]; the confirm run passes [t/P, 1, h]): `require`.
# facebookresearch/fairscale @ 317c09452a34a91fcf6105ef681a58e31c035f2c
# (PR #184, "[fix] moe: fix bug for multiple experts per-gpu case"):
# fairscale/nn/moe/moe_layer.py L66-98, MOELayer:
#   L66  self.world_size = dist.get_world_size(self.group)
#   L67  self.num_local_experts = len(self.experts)
#   L70  dispatched_input = torch.einsum("sec,sm->ecm", dispatch_mask.float(), input)
#        return _AllToAll.apply(self.group, dispatched_input)   (all_to_all_single, L29)
#   L85  reshaped_input = input[0].reshape(-1, d_model)
#   L89  dispatched_input = dispatched_input.reshape(self.world_size, self.num_local_experts, -1, d_model)
#   L90  chunks = dispatched_input.chunk(self.num_local_experts, dim=1)
#   L92  for chunk, expert in zip(chunks, self.experts):
#   L93      expert_outputs += [expert(chunk)]
#   L94  expert_output = torch.cat(expert_outputs, dim=1)
# ecm -> gecm, then chunk along the local-expert dim: expert j gets [P, 1, C,
# M], its own expert's slots from every source rank.
# Expected PASS (`check --cases 500`; every case of --exhaustive --world
# 1..3 --max-dim 4, 16992 cases).
# Confirmed on gloo (torch 1.13 and torch 2.11): see the parent's spec
# (moe-local-experts-before-184.sc); with this commit's MOELayer the experts'
# inputs and the layer's output equal single-device semantics in all 122
# cases at worlds 2, 3 and 4, and `shardcheck eval` of this spec passes each.
pipeline fairscale-moe-local-experts-184
dims t h
param nle 1..3
param C 1..3
routes R[t] 0..P*nle-1
require t % (P*nle) == 0
input shard t
output shard t
expect pass
reference                      # Y: for each global expert i//P, each source rank i%P: its C slots
y = narrow X 0 0 0
for i in 0..P*nle*P-1
  a = narrow X 0 (i%P)*(t//P) t//P
  b = select a R dim=0 experts=i//P..i//P start=(i%P)*(t//P)
  b = pad b 0 0 C-size(0)
  y = cat y b dim=0
end
end
tensor x = input
d = narrow x 0 0 0
for e in 0..P*nle-1
  a = select x R dim=0 experts=e..e start=rank*(t//P)
  a = pad a 0 0 C-size(0)
  d = cat d a dim=0
end
d = reshape d [P*nle, C, h]    # moe_layer.py:70 einsum("sec,sm->ecm", dispatch_mask.float(), input)
g = all_to_all_single d        # moe_layer.py:29 dist.all_to_all_single(output, input, group=group)
g = reshape g [P, nle, C, h]   # moe_layer.py:89 dispatched_input.reshape(self.world_size, self.num_local_experts, -1, d_model)
y = take g 1 nle 0             # moe_layer.py:90 chunks = dispatched_input.chunk(self.num_local_experts, dim=1)
for j in 1..nle-1
  c = take g 1 nle j
  y = cat y c dim=0
end
y = reshape y [-1, h]          # expert j's input, rows (source, slot), after expert j-1's
