# ColossalAI's chunk manager (ZeRO/Gemini with distributed storage): chunk i
# is owned by DP index src_rank = i % D; after the backward pass every
# data-parallel rank holds its own gradients in the chunk and
# ChunkManager.reduce_chunk reduces their sum onto the owner. As fixed by
# PR #1072 ("[hotfix] fix chunk comm src rank"):
# hpcaitech/ColossalAI @ 98cdbf49c60d5869098afbea9c1baeb7217a86b8,
# colossalai/tensor/chunk.py:
#   L48-50    self.src_rank = src_rank
#             self.is_src_rank = gpc.get_local_rank(ParallelMode.DATA) == src_rank
#             self.global_src_rank = gpc.get_ranks_in_group(ParallelMode.DATA)[src_rank]
#   L100-105  def reduce(self, is_all_reduce: bool = False) -> None:
#                 self.data.data = self.data.to(get_current_device())
#                 if is_all_reduce:
#                     dist.all_reduce(self.data, group=gpc.get_group(ParallelMode.DATA))
#                 else:
#                     dist.reduce(self.data, self.global_src_rank, group=gpc.get_group(ParallelMode.DATA))
#   L247-251 (ChunkManager.reduce_chunk) chunk.reduce(is_all_reduce=not self.enable_distributed_storage)
# The DP groups (initializer_data.py L42-44, new_group of
#   ranks = [i + j * self.num_data_parallel_group for j in range(self.data_parallel_size)])
# are a mesh dp=D mp=M, rank = dp*M + mp, group=dp; the list is ascending,
# so ranks_in_group[src_rank] is DP index src_rank: dst=k. Only the owner's
# result is checked. Left out: the parameters' views into the chunk and
# tensor states, which move no data.
# Expected PASS. The bug: corpus/colossalai/chunk-reduce-dst-before-1072.sc.
# Confirmed on gloo (torch 1.13.0a0; 2.11.0 prints the same figures):
# chunk.py at this commit run verbatim on every D x M of worlds 2, 3, 4,
# chunk size 1..4, every owner k: "reduce after: 56 cases, 0 differ".
pipeline colossalai-chunk-reduce-dst-1072
dims c
mesh dp=D mp=M
param k 0..D-1                 # the chunk's owner, src_rank (a DP index)
input dp:partial sum mp:shard c   # each rank's gradients in its chunk
output mp:shard c only dp == k    # the owner must hold the DP sum
expect pass
reduce sum dst=k group=dp      # dist.reduce(self.data, self.global_src_rank, group=DATA)
