# ColossalAI's chunk manager (ZeRO/Gemini with distributed storage) packs
# parameters into chunks and gives chunk i one owner, DP index
# src_rank = i % D (ChunkManager._get_next_src_rank); the other data-parallel
# ranks free the chunk's storage. Chunk.access() brings the chunk back on
# every rank of the data-parallel group by a broadcast from the owner.
# hpcaitech/ColossalAI @ bfdc5ccb7b68937e2a1dfd358e9b62b06fbe40ea (the parent
# of the fix, PR #1072 "[hotfix] fix chunk comm src rank"),
# colossalai/tensor/chunk.py:
#   L48-54  self.src_rank = src_rank
#           self.is_src_rank = gpc.get_local_rank(ParallelMode.DATA) == src_rank
#           ...
#           if not self.is_src_rank:
#               self.data.storage().resize_(0)
#   L86-90  def access(self) -> None:
#               if not self.is_src_rank:
#                   self.data.storage().resize_(self.size)
#               self.data.data = self.data.to(get_current_device())
#               dist.broadcast(self.data, self.src_rank, group=gpc.get_group(ParallelMode.DATA))
# src_rank is the owner's index in the DP group; torch.distributed.broadcast
# takes a global rank. The DP groups are lists of ranks built by hand
# (colossalai/context/process_group_initializer/initializer_data.py L42-44):
#   ranks = [i + j * self.num_data_parallel_group for j in range(self.data_parallel_size)]
#   group = dist.new_group(ranks)
# that is a mesh dp=D mp=M (M = world/D, the tensor and pipeline positions
# together), rank = dp*M + mp, and group=dp. In the group of position mp,
# global rank k is DP index k//M when k % M == mp; otherwise torch raises
# "Global rank k is not part of group", written here as src=-1, which
# shardcheck refuses ("src=-1 is not a rank of the group"). X is the
# concatenation over mp of chunk k's contents (c = M x chunk size); the
# non-owners hold the resized, never written storage (`empty`).
# Left out: the parameters' views into the chunk (_update_tensors_ptr) and
# tensor states, which move no data; the chunk as one tensor of c/M rows.
# Expected FAIL: wherever M >= 2. Minimal case world=2 D=1 M=2 c=2 k=0:
# the DP group of mp 1 is [1] and does not hold global rank 0 (torch
# raises on rank 1). From D=2 M=2 k=1 the group [1, 3] broadcasts from
# global rank 1, its DP index 0, a non-owner, over the owner's chunk
# (while the group [0, 2] raises). The fix: corpus/colossalai/chunk-access-broadcast-src-1072.sc.
# Confirmed on gloo (torch 1.13.0a0; 2.11.0 prints the same figures):
# a script that
# runs chunk.py of both commits verbatim (ChunkManager.append_tensor and
# access_chunk, chunk size 1..4, every owner k; gpc stubbed with
# Initializer_Data's rank lists) on every D x M of worlds 2, 3, 4:
# "access before: 56 cases, 20 differ (20 with a rank that raises, 4 with
# a rank holding wrong values)", "access after: 56 cases, 0 differ"; the
# smallest differing case is world=2 D=1 M=2 c=1 (chunk size) k=0, rank 1
# raises "Global rank 0 is not part of group"; at world=4 D=2 M=2 k=1
# ranks 0 and 2 raise and ranks 1 and 3 hold [0.0] where the owner's
# [1111.0] belongs. The 20 are exactly the cases with M >= 2.
pipeline colossalai-chunk-access-broadcast-src-before-1072
dims c
mesh dp=D mp=M
param k 0..D-1                 # the chunk's owner, src_rank (a DP index)
input mp:shard c               # the owner's chunk, per model-parallel position
output mp:shard c
expect fail
tensor x = input
e = empty x [size(0)]          # storage().resize_(0), then resize_(self.size)
a = narrow x 0 0 (size(0) if dp == k else 0)
b = narrow e 0 0 (0 if dp == k else size(0))
y = cat a b dim=0              # the owner holds its chunk, the others garbage
# dist.broadcast(self.data, self.src_rank, group=DATA): src_rank read as a global rank
y = broadcast y src=(k//M if k%M == mp else -1) group=dp
