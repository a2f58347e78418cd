# DeepSpeed ZeRO-1/2 (DeepSpeedZeroOptimizer): a param group's flat buffer
# is padded to a multiple of nccl_start_alignment_factor * dp (= 2P) and cut
# into P equal partitions (get_data_parallel_partitions); rank r's fp32
# partition is saved in the checkpoint with its alignment padding cut off
# (_get_groups_without_padding: group[:numel - groups_padding[i]]), and the
# loader (_restore_from_elastic_fp32_weights) concatenates every rank's saved
# partition in rank order (merged_partitions) before re-aligning and
# re-partitioning it. The property checked: the saved lean partitions,
# concatenated, are exactly the unpadded flat group X of n elements.
# deepspeedai/DeepSpeed @ c963c21f5d93759725f77c4926b38714c2f00650 (parent of
# PR #6974 "Remove assumption that padding only occurs on last rank",
# merged as 4fea41f4068f601b4d320ebe4bec7321472804b6), buggy version.
# deepspeed/runtime/zero/stage_1_and_2.py:
#   L277      self.nccl_start_alignment_factor = 2
#   L354-357  flattened_buffer = self.flatten_dense_tensors_aligned(self.round_robin_bit16_groups[i],
#                 self.nccl_start_alignment_factor * dist.get_world_size(group=self.real_dp_process_group[i]), ...)
#   L369-374  if partition_id == dist.get_world_size(group=self.real_dp_process_group[i]) - 1:
#                 padding = self.bit16_groups_flat[i].numel() - orig_group_numel
#             else:
#                 padding = 0
#   L384      data_parallel_partitions = self.get_data_parallel_partitions(self.bit16_groups_flat[i], i)
#   L1582-1600 get_data_parallel_partitions: dp near-equal narrows (equal here: numel % 2P == 0)
#   L2108-2114 lean_length = group.numel() - self.groups_padding[i]; group[:lean_length]
#   L2168     fp32_groups_without_padding = self._get_groups_without_padding(self.single_partition_of_fp32_groups)
#   L2185-2190 merged_partitions = [sd[SINGLE_PARTITION_OF_FP32_GROUPS][i] for sd in all_state_dict]
# All of the padding is charged to the last rank. When the padding 2P*cdiv(n,2P) - n
# is larger than one partition S = 2*cdiv(n,2P), it spans several ranks: the
# middle ranks keep their padding, and the last rank's lean_length is negative,
# so group[:lean_length] keeps max(0, 2S - padding) padding elements (Python
# slice semantics, written out in the narrow below). The merged group is then
# longer than n, with padding zeros after X.
# Left out: the round-robin parameter order, MoE groups, fp16 vs fp32 (the
# saved group is the fp32 copy of the partition: same layout); the loader's
# re-alignment to the new DP degree is not modelled (one world per spec).
# At the SAME dp the re-aligned merged group equals the original padded flat
# (only zeros were added at the end), so the damage shows when the DP degree
# changes (elastic / re-sized load): e.g. saved at dp 2 with n 1 (merged 3
# elements), reloaded at dp 1 gives a 4-element flat for a 2-element
# partition, and current.data.copy_(saved.data) fails.
# The loader's read of every rank's state dict is the all_gather.
# Expected FAIL. Minimal case: world 2, n 1 (padded to 4, S 2, padding 3 charged
# to rank 1; rank 0 saves [X0, pad], rank 1 saves [pad]: "the shape became [3]
# at ... (all_gather), from [2]", shardcheck eval ... --world 2 --sizes n=1).
# Fails for padding > S: world 3 n in {1, 2, 3, 7}, world 4 n in {1..5, 9, 10, 11, 17}.
# Confirmed on gloo (torch 2.11.0+cu130 and torch 1.13.0a0):
# a script runs the verbatim lines above on gloo
# worlds 2, 3, 4 (n = 1..8W, the group split into 1-3 params), gathers the
# saved lean groups with all_gather_object and compares their concatenation
# with the unpadded flat group: "before: 72 cases, 14 differ; after: 72 cases,
# 0 differ"; the differing n per world are exactly shardcheck's (world 2: [1];
# world 3: [1, 2, 3, 7]; world 4: [1, 2, 3, 4, 5, 9, 10, 11, 17]); smallest
# differing case world 2, n 1, saved lean lengths [2, 1]. Re-aligning the
# merged group for dp 1..4 as the loader does differs from the fresh layout in
# 1 / 7 / 22 reloads (before), 0 (after).
pipeline deepspeed-zero12-lean-partitions-before-6974
dims n
input replicate
output replicate
sizes n=1..6*P
expect fail
tensor x = input
flat = pad x 0 0 cdiv(n,2*P)*2*P-n  # stage_1_and_2.py:354 flatten_dense_tensors_aligned(..., 2 * dp)
part = narrow flat 0 rank*(cdiv(n,2*P)*2) cdiv(n,2*P)*2  # stage_1_and_2.py:384 data_parallel_partitions[partition_id]
lean = narrow part 0 0 ((cdiv(n,2*P)*2-((cdiv(n,2*P)*2*P-n) if rank == P-1 else 0)) if cdiv(n,2*P)*2-((cdiv(n,2*P)*2*P-n) if rank == P-1 else 0) >= 0 else max(0,2*cdiv(n,2*P)*2-(cdiv(n,2*P)*2*P-n)))  # stage_1_and_2.py:2112 group[:lean_length]
merged = all_gather lean dim=0  # stage_1_and_2.py:2190 merged_partitions = [sd[SINGLE_PARTITION_OF_FP32_GROUPS][i] for sd in all_state_dict]
