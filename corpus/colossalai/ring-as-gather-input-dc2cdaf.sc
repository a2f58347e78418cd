# ColossalAI's sequence-parallel column linear in "ring" mode
# (seq_parallel_mode="ring", Linear1D_Col and the fused-QKV linears):
# _LinearWithGatherForwardReduceScatterBackward.forward calls
# _ring_as_gather(F.linear, {"input": input_}, {"weight": weight}, group),
# which passes the sequence shards round a ring (each rank receives from
# rank+1 and sends to rank-1, P-1 batch_isend_irecv steps), applies the
# linear to every shard as it arrives, and returns the gathered output AND,
# since PR #6086, the gathered input, which forward keeps as
# ctx.gathered_input: the input of the weight gradient in backward
# (grad_weight = grad_output.t().matmul(total_input)).
# REAL BUG, not fixed upstream: the list of gathered inputs holds the dict
# send_tensors itself, appended once per round, so every entry after the
# first reads the dict's last value; the last round's shard is in
# recv_tensors, never appended.
# hpcaitech/ColossalAI @ dc2cdaf3e8bc865ae5b8d653230876bba8dbf787 (PR #6086
# "[shardformer] optimize seq parallelism", which added the gathered input;
# its parent 646b3c5a90ce904b2128cae467c2068f435a9df0 returned the output
# only and gathered the input again in backward), unchanged at
# hpcaitech/ColossalAI @ 4f9953be335ef371b3848719ddafe596c01ecd37 (newest
# stored snapshot, 2026-04-09; there L418-482, used at L556 and L892):
# colossalai/shardformer/layer/_operation.py L189-253, _ring_as_gather:
#   recv_rank = cur_rank + 1 if cur_rank + 1 < group_size else 0
#   send_rank = cur_rank - 1 if cur_rank > 0 else group_size - 1
#   send_tensors[k] = v.clone()                      (recv_tensors[k] = torch.empty_like(v))
#   def switch_step(): send_tensors[k], recv_tensors[k] = recv_tensors[k], send_tensors[k]
#   handles = communicate_step()                     (irecv from recv_rank, isend to send_rank)
#   input_tensors.append(input_to_gather)
#   for i in range(group_size - 2):
#       wait; switch_step(); handles = communicate_step()
#       input_tensors.append(send_tensors)           <- the dict, not its tensors
#   wait
#   input_tensors.append(send_tensors)               <- the last shard is in recv_tensors
#   input_shards = [d[k] for d in input_tensors[group_size - cur_rank :] + input_tensors[: group_size - cur_rank]]
#   gathered_input[k] = torch.cat(input_shards, dim=gather_dim)      (gather_dim=1)
# L316-327 (forward, ring=True): ctx.gathered_input = input_dict["input"].
# Transcription: dims b s h as input_ [b, s/P, h]; each batch_isend_irecv
# is `shift P-1` (rank r sends to r-1, receives from r+1); the switch is
# snd = rcv (the swapped buffer is then overwritten by the irecv, so rcv is
# the shift's result); the P-1 dict entries appended are the final snd, as
# the aliasing makes them; the rotation of the list is the two narrows.
# Left out: the linear (func is applied to the output list only; this spec
# is the input list), the weight, the process-group rank map (one group of
# all ranks), world 1 (require P >= 2: a ring of one rank sends to itself,
# and the output list would hold two entries there).
# Expected FAIL. Minimal case: world=2 b=1 s=2 h=1: rank 0 gathers
# [x0, x0] (its own shard twice) instead of [x0, x1], rank 1 [x1, x1]:
# `rank 0 [0, 1, 0] holds X[0, 0, 0], expected X[0, 1, 0]`. At world 3,
# rank 0 [x0, x1, x1], rank 1 [x2, x1, x2], rank 2 [x0, x0, x2].
# Confirmed on gloo (torch 2.11.0): a script
# runs this _ring_as_gather, exec'ed verbatim from both commits, on 2, 3
# and 4 ranks, 8 drawn [b, s, h] each (X holding its flat indices):
# "gathered input (ctx.gathered_input, expect fail): 24 cases, 24 differ"
# at both commits, smallest world=2 b=1 s=2 h=1, per rank [[0, 0], [1, 1]];
# end to end, _LinearWithGatherForwardReduceScatterBackward(ring=True)
# forward and backward (reduce_scatter, missing on gloo, as all_reduce and
# the own chunk): F.linear output right in 24/24, input gradient right in
# 24/24, weight gradient wrong in 24/24. shardcheck eval --dump of this
# spec gives the same element map on every rank, and the same verdict,
# in 24/24 cases.
pipeline colossalai-ring-as-gather-input-dc2cdaf
dims b s h
require P >= 2
input shard s
output replicate
expect fail
tensor x = input
snd = contiguous x
rcv = shift snd P-1
for i in 0..P-3
  snd = contiguous rcv
  rcv = shift snd P-1
end
acc = contiguous x
for i in 1..P-1
  acc = cat acc snd dim=1
end
hi = narrow acc 1 (P-rank)*(size(1)//P) rank*(size(1)//P)
lo = narrow acc 1 0 (P-rank)*(size(1)//P)
y = cat hi lo dim=1
