# ring-flash-attention RingComm on a sub-group (REPORTED BUG, fixed version):
# commit 78959746 maps the group-local neighbours to global ranks before
# building the P2POps.
# zhuzilin/ring-flash-attention @ 78959746e8ce88394ded9263b417ec4708f3cc45 ("bugfix"):
# ring_flash_attn/utils.py L72-114, RingComm.send_recv:
#   send_rank = (self.rank + 1) % self.world_size
#   recv_rank = (self.rank - 1) % self.world_size
#   if self._process_group is not None:
#       send_rank = dist.get_global_rank(self._process_group, send_rank)
#       recv_rank = dist.get_global_rank(self._process_group, recv_rank)
#   send_op = dist.P2POp(dist.isend, to_send, send_rank, group=self._process_group)
#   recv_op = dist.P2POp(dist.irecv, res, recv_rank, group=self._process_group)
#   ... self._reqs = dist.batch_isend_irecv(self._ops)
# ring_flash_attn/ring_flash_attn.py L19-48: the loop quoted in
# ringcomm-group-ranks-before-78959746.sc (unchanged).
# Real code: a run on gloo ranks, commit 78959746: every rank ok
# for D=1 C=2, D=2 C=2, D=2 C=1, D=1 C=3.
pipeline ring-flash-attn-ringcomm-after-78959746
mesh dp=D cp=2
dims b s h
input dp:shard b cp:shard s
output dp:shard b
expect pass
tensor key = input
nkey = shift key 1 group=cp                          # send to group rank +1, receive from -1 (global ranks via get_global_rank), batch_isend_irecv
blocks = cat key nkey dim=1                          # step 0 attends k, step 1 attends next_k
take 1 2 [(cp-k)%2 for k]                            # check only
