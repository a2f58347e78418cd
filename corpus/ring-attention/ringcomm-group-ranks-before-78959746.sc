# ring-flash-attention RingComm on a sub-group (REPORTED BUG, buggy version):
# send_recv computes the ring neighbours as ranks *in the process group* and
# hands them to P2POp, which takes *global* ranks. Right when the ring group
# is the whole world or starts at global rank 0; wrong for every other ring
# of a (dp, cp) mesh. Fixed by commit 78959746 ("bugfix", 2024-02-29).
# zhuzilin/ring-flash-attention @ 129ef581cd1ba247542bcbcc71642b6a9c27eb52
# (parent of 78959746e8ce88394ded9263b417ec4708f3cc45):
# ring_flash_attn/utils.py L72-110, RingComm:
#   self.rank = dist.get_rank(self._process_group)
#   self.world_size = dist.get_world_size(self._process_group)
#   def send_recv(self, to_send, recv_tensor=None):
#       res = torch.empty_like(to_send)
#       send_rank = (self.rank + 1) % self.world_size
#       recv_rank = (self.rank - 1) % self.world_size
#       send_op = dist.P2POp(dist.isend, to_send, send_rank, group=self._process_group)
#       recv_op = dist.P2POp(dist.irecv, res, recv_rank, group=self._process_group)
#   def commit(self): self._reqs = dist.batch_isend_irecv(self._ops)
# ring_flash_attn/ring_flash_attn.py L19-48 (ring_flash_attn_forward, unchanged by the fix):
#   comm = RingComm(process_group)
#   for step in range(comm.world_size):
#       if step + 1 != comm.world_size:
#           next_k: torch.Tensor = comm.send_recv(k)
#           comm.commit()
#       ... _flash_attn_forward(q, k, v, ...) ...
#       if step + 1 != comm.world_size:
#           comm.wait(); k = next_k
# Mesh (dp, cp), the ring over cp (a context-parallel group per data-parallel
# replica, as yunchang and EasyContext pass one in); ring fixed at 2 (no loop
# in the language). `sendrecv` without group= takes world ranks: that is what
# P2POp does with the group-local neighbour. The last `take` only orders the
# blocks for the check (attention merges them by lse in any order).
# Expected FAIL. Smallest: D=2 (world 4), b=2, s=2, h=1: rank 2 (cp 0 of the
# second ring) sends to global rank 1. Real torch raises on ranks 2 and 3
# ("ValueError: Global rank 1 is not part of group"); shardcheck's sendrecv
# sees rank 1 receive from rank 0 while rank 2 also sends to it. D=1 passes.
# Real code at this commit, run on gloo ranks
pipeline ring-flash-attn-ringcomm-before-78959746
mesh dp=D cp=2
dims b s h
input dp:shard b cp:shard s                          # k: this replica's samples, cp block of the sequence
output dp:shard b                                    # the blocks attended: the replica's whole sequence
expect fail
tensor key = input
nkey = sendrecv key to=(cp+1)%2 from=(cp-1)%2        # P2POp(isend, k, send_rank) / P2POp(irecv, res, recv_rank): group indices used as global ranks
blocks = cat key nkey dim=1                          # step 0 attends k, step 1 attends next_k
take 1 2 [(cp-k)%2 for k]                            # check only: step j's block came from ring rank cp-j
