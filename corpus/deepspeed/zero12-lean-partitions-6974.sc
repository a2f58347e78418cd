# DeepSpeed ZeRO-1/2 (DeepSpeedZeroOptimizer): a param group's flat buffer
# is padded to a multiple of nccl_start_alignment_factor * dp (= 2P) and cut
# into P equal partitions (get_data_parallel_partitions); rank r's fp32
# partition is saved in the checkpoint with its alignment padding cut off
# (_get_groups_without_padding: group[:numel - groups_padding[i]]), and the
# loader (_restore_from_elastic_fp32_weights) concatenates every rank's saved
# partition in rank order (merged_partitions) before re-aligning and
# re-partitioning it. The property checked: the saved lean partitions,
# concatenated, are exactly the unpadded flat group X of n elements.
# deepspeedai/DeepSpeed @ 4fea41f4068f601b4d320ebe4bec7321472804b6 (PR #6974
# "Remove assumption that padding only occurs on last rank"; parent
# c963c21f5d93759725f77c4926b38714c2f00650, see
# zero12-lean-partitions-before-6974.sc), the fix.
# deepspeed/runtime/zero/stage_1_and_2.py:
#   L277      self.nccl_start_alignment_factor = 2
#   L377      data_parallel_partitions = self.get_data_parallel_partitions(self.bit16_groups_flat[i], i)
#   L380-390  left_boundary = sum([t.numel() for t in data_parallel_partitions[:partition_id]])
#             curr_partition_size = data_parallel_partitions[partition_id].numel()
#             if orig_group_numel <= left_boundary:
#                 padding = curr_partition_size
#             elif orig_group_numel < left_boundary + curr_partition_size:
#                 padding = left_boundary + curr_partition_size - orig_group_numel
#             else:
#                 padding = 0
#   L1587     get_data_parallel_partitions (unchanged)
#   L2113-2119 lean_length = group.numel() - self.groups_padding[i]; group[:lean_length]
#   L2173     fp32_groups_without_padding = self._get_groups_without_padding(...)
#   L2190-2195 _restore_from_elastic_fp32_weights: merged_partitions in rank order
# Each rank cuts exactly its own share of the padding (all of it on ranks past
# n), so the concatenated lean partitions are X.
# Left out: as in the before spec (round-robin order, MoE groups, dtype, the
# re-alignment to a new DP degree).
# Expected PASS (2000 random cases, and exhaustive world 1..3, n <= 3).
# Confirmed on gloo (torch 2.11.0+cu130 and torch 1.13.0a0):
# "before: 72 cases, 14 differ; after: 72
# cases, 0 differ" (worlds 2, 3, 4, n = 1..8W); the after code's merged lean
# groups equal the unpadded flat group in every case, and its re-aligned
# reloads at dp 1..4 equal the fresh layout (0 differ).
pipeline deepspeed-zero12-lean-partitions-6974
dims n
input replicate
output replicate
sizes n=1..6*P
expect pass
tensor x = input
flat = pad x 0 0 cdiv(n,2*P)*2*P-n  # stage_1_and_2.py:354 flatten_dense_tensors_aligned(..., 2 * dp)
part = narrow flat 0 rank*(cdiv(n,2*P)*2) cdiv(n,2*P)*2  # stage_1_and_2.py:377 data_parallel_partitions[partition_id]
lean = narrow part 0 0 cdiv(n,2*P)*2-(cdiv(n,2*P)*2 if n <= rank*(cdiv(n,2*P)*2) else (rank*(cdiv(n,2*P)*2)+cdiv(n,2*P)*2-n if n < rank*(cdiv(n,2*P)*2)+cdiv(n,2*P)*2 else 0))  # stage_1_and_2.py:2117 group[:lean_length]
merged = all_gather lean dim=0  # stage_1_and_2.py:2195 merged_partitions = [sd[SINGLE_PARTITION_OF_FP32_GROUPS][i] for sd in all_state_dict]
