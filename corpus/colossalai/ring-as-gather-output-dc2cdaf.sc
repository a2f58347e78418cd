# ColossalAI's sequence-parallel column linear in "ring" mode: the gathered
# OUTPUT of the same ring loop, which is right (the correct code that uses
# the construct; see ring-as-gather-input-dc2cdaf.sc for the gathered input
# of the same function, which is wrong and not fixed upstream, so this is
# no before/after pair: the one function at one commit, its right half).
# _LinearWithGatherForwardReduceScatterBackward.forward (ring=True) calls
# _ring_as_gather(F.linear, {"input": input_}, {"weight": weight}, group):
# the sequence shards go round a ring (receive from rank+1, send to
# rank-1, P-1 batch_isend_irecv steps) and the linear is applied to each
# shard as it arrives; the outputs are concatenated in rank order.
# hpcaitech/ColossalAI @ dc2cdaf3e8bc865ae5b8d653230876bba8dbf787 (PR #6086),
# unchanged at hpcaitech/ColossalAI @ 4f9953be335ef371b3848719ddafe596c01ecd37
# (there L418-482; the output half is the same since PR #5533,
# 8e412a548e5366d1c42bcf386bd185091bd0c280):
# colossalai/shardformer/layer/_operation.py L189-253, _ring_as_gather:
#   recv_rank = cur_rank + 1 if cur_rank + 1 < group_size else 0
#   send_rank = cur_rank - 1 if cur_rank > 0 else group_size - 1
#   send_tensors[k] = v.clone()
#   handles = communicate_step()                     (irecv from recv_rank, isend to send_rank)
#   output_tensors.append(func(**input_to_gather, **input_local))
#   for i in range(group_size - 2):
#       wait; switch_step(); handles = communicate_step()
#       output_tensors.append(func(**send_tensors, **input_local))
#   wait
#   output_tensors.append(func(**recv_tensors, **input_local))
#   gathered_output = torch.cat(output_tensors[group_size - cur_rank :] + output_tensors[: group_size - cur_rank], dim=gather_dim)
# Transcription: dims b s h as input_ [b, s/P, h]; each batch_isend_irecv
# is `shift P-1`; the switch is snd = rcv; func (F.linear, a new tensor
# per call, acting on the last dim) is a copy here, so the spec checks
# where the sequence rows land; the rotation of the list is the two
# narrows. Left out: the weight (a per-row map), world 1 (require P >= 2:
# a ring of one rank would append its output twice).
# Expected PASS (exhaustive up to world 3, dims <= 3; 500 drawn cases).
# Confirmed on gloo (torch 2.11.0):
# both commits, 2, 3 and 4 ranks, 8 drawn [b, s, h] each: "gathered output
# (same ring loop, expect pass): 24 cases, 0 differ", the real F.linear
# output equal to F.linear of the whole X in 24/24, and shardcheck eval
# --dump of this spec the same element map on every rank in 24/24.
# (A stub that returns its input instead of a new tensor would differ from
# world 4: the buffers are reused by the ring, so the list would alias
# them; F.linear does not.)
pipeline colossalai-ring-as-gather-output-dc2cdaf
dims b s h
require P >= 2
input shard s
output replicate
expect pass
tensor x = input
snd = contiguous x
rcv = shift snd P-1
out = contiguous x
for i in 0..P-3
  snd = contiguous rcv
  rcv = shift snd P-1
  out = cat out snd dim=1
end
out = cat out rcv dim=1
hi = narrow out 1 (P-rank)*(size(1)//P) rank*(size(1)//P)
lo = narrow out 1 0 (P-rank)*(size(1)//P)
y = cat hi lo dim=1
