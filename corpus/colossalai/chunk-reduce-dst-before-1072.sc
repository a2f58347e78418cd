# ColossalAI's chunk manager (ZeRO/Gemini with distributed storage): chunk i
# is owned by DP index src_rank = i % D (ChunkManager._get_next_src_rank).
# After the backward pass every data-parallel rank holds its own gradients
# in the chunk, and ChunkManager.reduce_chunk calls
# chunk.reduce(is_all_reduce=not self.enable_distributed_storage): a reduce
# of the sum onto the owner.
# hpcaitech/ColossalAI @ bfdc5ccb7b68937e2a1dfd358e9b62b06fbe40ea (the parent
# of the fix, PR #1072 "[hotfix] fix chunk comm src rank"),
# colossalai/tensor/chunk.py:
#   L48-49   self.src_rank = src_rank
#            self.is_src_rank = gpc.get_local_rank(ParallelMode.DATA) == src_rank
#   L99-104  def reduce(self, is_all_reduce: bool = False) -> None:
#                self.data.data = self.data.to(get_current_device())
#                if is_all_reduce:
#                    dist.all_reduce(self.data, group=gpc.get_group(ParallelMode.DATA))
#                else:
#                    dist.reduce(self.data, self.src_rank, group=gpc.get_group(ParallelMode.DATA))
#   L246-250 (ChunkManager.reduce_chunk) chunk.reduce(is_all_reduce=not self.enable_distributed_storage)
# src_rank is the owner's index in the DP group; torch.distributed.reduce
# takes a global dst. The DP groups are lists of ranks built by hand
# (colossalai/context/process_group_initializer/initializer_data.py L42-44):
#   ranks = [i + j * self.num_data_parallel_group for j in range(self.data_parallel_size)]
#   group = dist.new_group(ranks)
# that is a mesh dp=D mp=M (M = world/D, the tensor and pipeline positions
# together), rank = dp*M + mp, and group=dp. In the group of position mp,
# global rank k is DP index k//M when k % M == mp; otherwise torch raises
# "Global rank k is not part of group", written here as dst=-1, which
# shardcheck refuses ("dst=-1 is not a rank of the group"). X is the sum
# over dp of the gradients, concatenated over mp (c = M x chunk size);
# only the owner's result is checked (the optimizer step runs there).
# Left out: the parameters' views into the chunk and tensor states, which
# move no data; the chunk as one tensor of c/M rows.
# Expected FAIL: wherever M >= 2. Minimal case world=2 D=1 M=2 c=2 k=0:
# the DP group of mp 1 is [1] and does not hold global rank 0 (torch
# raises on rank 1). From D=2 M=2 k=1 the group [1, 3] reduces onto global
# rank 1, its DP index 0, and the owner (rank 3) keeps its own summand
# (while the group [0, 2] raises).
# The fix: corpus/colossalai/chunk-reduce-dst-1072.sc.
# Confirmed on gloo (torch 1.13.0a0; 2.11.0 prints the same figures):
# a script that
# runs chunk.py of both commits verbatim (ChunkManager.append_tensor,
# copy_tensor_to_chunk_slice, trans_tensor_state and reduce_chunk, chunk
# size 1..4, every owner k; gpc stubbed with Initializer_Data's rank lists;
# the non-owners' chunk storage allocated as access() does before its
# broadcast) on every D x M of worlds 2, 3, 4: "reduce before: 56 cases,
# 20 differ (20 with a rank that raises, 4 with a rank holding wrong
# values)", "reduce after: 56 cases, 0 differ"; the smallest differing case
# is world=2 D=1 M=2 c=1 (chunk size) k=0, rank 1 raises "Global rank 0 is
# not part of group"; at world=4 D=2 M=2 k=1 ranks 0 and 2 raise and the
# owner, rank 3, holds its own 558.0 where the sum 1109.0 belongs. The 20
# are exactly the cases with M >= 2.
pipeline colossalai-chunk-reduce-dst-before-1072
dims c
mesh dp=D mp=M
param k 0..D-1                 # the chunk's owner, src_rank (a DP index)
input dp:partial sum mp:shard c   # each rank's gradients in its chunk
output mp:shard c only dp == k    # the owner must hold the DP sum
expect fail
# dist.reduce(self.data, self.src_rank, group=DATA): src_rank read as a global rank
reduce sum dst=(k//M if k%M == mp else -1) group=dp
