# yunchang (USP) LongContextAttention, Ulysses x ring with data parallelism
# (REPORTED BUG, fixed version): set_seq_parallel_pg as PR #50 made it
# ("set_seq_parallel_pg compatible with DP process group"), then the key's
# path through the layer: all_to_all_4D over the Ulysses group (heads
# scattered, sequence gathered), then the ring loop passing k around the
# ring group. World = dp x ring x ulysses, ranks dp-major, ulysses fastest.
# feifeibear/long-context-attention @ bdef8783dbafd5220767ec0dea3a68d8381166a2 (PR #50):
# yunchang/globals.py L22-81, set_seq_parallel_pg (use_ulysses_low=True):
#   sp_degree = sp_ring_degree * sp_ulysses_degree
#   dp_degree = world_size // sp_degree
#   for dp_rank in range(dp_degree):
#       offset = dp_rank * sp_degree
#       for i in range(num_ulysses_pgs):
#           ulysses_ranks = list(range(i * sp_ulysses_degree + offset, (i + 1) * sp_ulysses_degree + offset))
#       for i in range(num_ring_pgs):
#           ring_ranks = list(range(i + offset, sp_degree + offset, num_ring_pgs))
#   => ULYSSES_PG = mesh dim up, RING_PG = mesh dim rp, both inside one dp replica.
# yunchang/hybrid/attn_layer.py L96-114, LongContextAttention.forward:
#   key_layer = SeqAllToAll4D.apply(self.ulysses_pg, key, self.scatter_idx, self.gather_idx)  (2, 1)
#   out = self.ring_attn_fn(query_layer, key_layer, value_layer, ..., group=self.ring_pg)
# yunchang/comm/all_to_all.py L15-62, all_to_all_4D, scatter_idx == 2 and gather_idx == 1:
#   bs, shard_seqlen, hc, hs = input.shape
#   input_t = (input.reshape(bs, shard_seqlen, seq_world_size, shard_hc, hs)
#       .transpose(0, 2).contiguous())
#   dist.all_to_all_single(output, input_t, group=group)
#   output = output.reshape(seqlen, bs, shard_hc, hs)
#   output = output.transpose(0, 1).contiguous().reshape(bs, seqlen, shard_hc, hs)
# yunchang/ring/ring_flash_attn.py L19-48, ring_flash_attn_forward:
#   comm = RingComm(process_group)
#   for step in range(comm.world_size):
#       if step + 1 != comm.world_size:
#           next_k: torch.Tensor = comm.send_recv(k)
#           comm.commit()
#       ... _flash_attn_forward(q, k, v, ...) on this step's k block ...
#       if step + 1 != comm.world_size:
#           comm.wait(); k = next_k
# yunchang/ring/utils.py L72-106, RingComm: send_rank = (rank + 1) % world_size,
#   recv_rank = (rank - 1) % world_size, mapped with dist.get_global_rank(group, .),
#   dist.batch_isend_irecv([P2POp(isend, ...), P2POp(irecv, ...)]).
# The check: the key blocks the loop attends to, put in sequence order, must be
# the rank's own replica's whole sequence (its Ulysses slice of heads). The ring
# is fixed at 2 (one send_recv) because the language has no loop; the last
# `take` only orders the blocks for the comparison (attention merges them by
# lse in any order). Initial layout: test/test_hybrid_attn.py's chunk of the
# sequence by the rank in the sp group (sp rank = rp*U + up).
# Real code (these files at this commit) on gloo ranks, commit bdef8783: every rank ok (D=2 R=2 U=1, D=2 R=2 U=2, ...).
pipeline yunchang-usp-ulysses-ring-after-50
mesh dp=D rp=2 up=U
dims b s h d
input dp:shard b rp,up:shard s       # [b/D, s/(2U), h, d]: sequence chunk rp*U+up of its replica
output dp:shard b up:shard h         # its replica's whole sequence, heads of its Ulysses rank
expect pass
tensor key = input
# all_to_all_4D(key, scatter_idx=2, gather_idx=1, group=ULYSSES_PG)
key = reshape key [size(0), size(1), U, h/U, d]   # input.reshape(bs, shard_seqlen, seq_world_size, shard_hc, hs)
key = transpose key 0 2                           # .transpose(0, 2)
key = contiguous key                              # .contiguous()
key = all_to_all_single key group=up              # dist.all_to_all_single(output, input_t, group=group)
key = reshape key [size(0)*size(1), size(2), h/U, d]   # output.reshape(seqlen, bs, shard_hc, hs)
key = transpose key 0 1                           # output.transpose(0, 1)
key = contiguous key                              # .contiguous()
key = reshape key [size(0), size(1), h/U, d]      # .reshape(bs, seqlen, shard_hc, hs)
# ring_flash_attn_forward over RING_PG (ring of 2: one step)
nkey = shift key 1 group=rp                       # next_k = comm.send_recv(k); comm.commit(); comm.wait()
blocks = cat key nkey dim=1                       # step 0 attends key, step 1 attends next_k
take 1 2 [(rp-k)%2 for k]                         # check only: step j's block came from ring rank rp-j
