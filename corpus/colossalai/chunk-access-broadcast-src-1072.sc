# ColossalAI's chunk manager (ZeRO/Gemini with distributed storage): chunk i
# is owned by DP index src_rank = i % D, the other data-parallel ranks free
# its storage, and Chunk.access() broadcasts it from the owner to the
# data-parallel group. As fixed by PR #1072 ("[hotfix] fix chunk comm src
# rank"): hpcaitech/ColossalAI @ 98cdbf49c60d5869098afbea9c1baeb7217a86b8,
# colossalai/tensor/chunk.py:
#   L48-50  self.src_rank = src_rank
#           self.is_src_rank = gpc.get_local_rank(ParallelMode.DATA) == src_rank
#           self.global_src_rank = gpc.get_ranks_in_group(ParallelMode.DATA)[src_rank]
#   L87-91  def access(self) -> None:
#               if not self.is_src_rank:
#                   self.data.storage().resize_(self.size)
#               self.data.data = self.data.to(get_current_device())
#               dist.broadcast(self.data, self.global_src_rank, group=gpc.get_group(ParallelMode.DATA))
# The DP groups (initializer_data.py L42-44, new_group of
#   ranks = [i + j * self.num_data_parallel_group for j in range(self.data_parallel_size)])
# are a mesh dp=D mp=M, rank = dp*M + mp, group=dp; the list is ascending,
# so ranks_in_group[src_rank] is DP index src_rank: src=k. X is the
# concatenation over mp of chunk k's contents; the non-owners hold the
# resized, never written storage (`empty`). Left out: the parameters' views
# into the chunk and tensor states, which move no data.
# Expected PASS. The bug: corpus/colossalai/chunk-access-broadcast-src-before-1072.sc.
# Confirmed on gloo (torch 1.13.0a0; 2.11.0 prints the same figures):
# chunk.py at this commit run verbatim on every D x M of worlds 2, 3, 4,
# chunk size 1..4, every owner k: "access after: 56 cases, 0 differ".
pipeline colossalai-chunk-access-broadcast-src-1072
dims c
mesh dp=D mp=M
param k 0..D-1                 # the chunk's owner, src_rank (a DP index)
input mp:shard c               # the owner's chunk, per model-parallel position
output mp:shard c
expect pass
tensor x = input
e = empty x [size(0)]          # storage().resize_(0), then resize_(self.size)
a = narrow x 0 0 (size(0) if dp == k else 0)
b = narrow e 0 0 (0 if dp == k else size(0))
y = cat a b dim=0              # the owner holds its chunk, the others garbage
y = broadcast y src=k group=dp # dist.broadcast(self.data, self.global_src_rank, group=DATA)
