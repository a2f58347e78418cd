# One ring step of zigzag ring attention: each rank hands its k (zigzag
# blocks r and 2P-1-r of the sequence) to the next rank and takes the
# previous rank's. zhuzilin/ring-flash-attention @
# 899628238f2f5bb8c028579c89b7cd56ea451d2a, ring_flash_attn/utils.py
# L98-151, RingComm:
#   self.send_rank = (self.rank + 1) % self.world_size
#   self.recv_rank = (self.rank - 1) % self.world_size
#   send_op = dist.P2POp(dist.isend, to_send, self.send_rank, group=self._process_group)
#   recv_op = dist.P2POp(dist.irecv, res, self.recv_rank, group=self._process_group)
#   self._reqs = dist.batch_isend_irecv(self._ops)
# used in ring_flash_attn/zigzag_ring_flash_attn.py L7-88
# (next_k, next_v = comm.send_recv_kv(k, v)). The layout after the step is
# rank r - 1's zigzag pair on rank r: the zigzag placement of Y, X's 2P
# blocks reordered so that Y's blocks r and 2P-1-r are X's blocks of rank
# r-1, (r-1) mod P and 2P-1-((r-1) mod P).
pipeline ring-attention-zigzag-ring-step
dims s h
input shard s zigzag             # k on rank r: blocks r and 2P-1-r
output shard s zigzag            # next_k: rank r-1's blocks
expect pass
reference
take 0 2*P [(k+P-1)%P if k < P else 2*P-1-((2*P-1-k+P-1)%P) for k]
end
shift 1                          # send_recv: to rank+1, from rank-1
