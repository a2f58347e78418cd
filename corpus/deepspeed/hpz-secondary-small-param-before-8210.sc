# DeepSpeed ZeRO++ hpZ (hierarchical partitioning, zero_hpz_partition_size):
# Init._partition_param_sec gives each rank of an hpZ (intra-node) group of
# G ranks a secondary shard of a parameter of n = ds_numel elements: the
# parameter is aligned to a multiple of the ZeRO-3 DP world D
# (_aligned_size/_padding_size), secondary_partition_size = aligned // G, and
# rank_in_group r copies one_dim_param[r*S : r*S + sec_numel] into its shard.
# The hpZ all-gather (_all_gather_sequential, use_secondary_tensor) gathers the
# G shards into a buffer of S*G and keeps param_buffer.narrow(0, 0, ds_numel).
# Spec world P = one hpZ group (G = P, rank_in_group = rank); D = M*P with
# param M = the number of hpZ groups (nodes), so aligned = cdiv(n, M*P)*M*P and
# S = cdiv(n, M*P)*M. Output: every rank of the group holds the whole parameter.
# deepspeedai/DeepSpeed @ 646e491c95ed78d81269d38daa50e89e284361a4 (parent of
# PR #8210 "Fix ZeRO++ secondary shard copy for small params", fixes issue
# #6659 "[BUG] ZeRO++ sharding small parameter raise"; merged as
# 2d4488ef9d30d277110d173ef8887b21be38115c), buggy version.
# deepspeed/runtime/zero/partition_parameters.py:
#   L1645-1651 _aligned_size = ds_numel + _padding_size (to a multiple of _partition_world_size = D)
#   L1867  secondary_partition_size = int(tensor_size // self.num_ranks_in_param_group)
#   L1870  secondary_partitioned_tensor = torch.empty(secondary_partition_size, ...)
#   L1887  secondary_start = secondary_partition_size * self.rank_in_group
#   L1894  sec_numel = max(0, min(param.ds_numel - secondary_start, secondary_partition_size))
#   L1899-1900 param.ds_secondary_tensor.narrow(0, 0,
#                  sec_numel).copy_(one_dim_param.narrow(0, secondary_start, sec_numel))
#   L1333  buffer_size = param.ds_secondary_tensor.shape[0] * world_size
#   L1350  handle = _dist_allgather_fn(param_ds_tensor..., param_buffer, ds_process_group)
#   L1357  param.data = param_buffer.narrow(0, 0, param.ds_numel).view(param.ds_shape)...
# When the alignment padding is larger than one secondary shard, the later
# ranks of the group start past the end of the parameter (secondary_start >
# ds_numel): sec_numel is 0, but one_dim_param.narrow(0, secondary_start, 0)
# still raises ("start out of range"). PR #5652 (b33873d234cf, "Fix hpZ with
# zero element", issue #5642) had clamped sec_numel at 0, which fixed the
# "narrow(): length must be non-negative" of the same geometry but left this
# out-of-range start; #6659 hit it with n 32, D 2048, G 16.
# Left out: quantized weights, pin_memory, NVMe offload, the coalesced
# all-gather path (same buffer layout), the dtype casts; the ZeRO-3 primary
# partition (_partition_param) is not part of this transform.
# Expected FAIL. Minimal case: world 2, n 1, M 2 (D 4: aligned 4, S 2; rank 1
# starts at 2 > 1): "line 62 (partition_parameters.py:1900) ... on rank 1:
# start out of range (expected to be in range of [-1, 1], but got 2)";
# replay: shardcheck eval corpus/deepspeed/hpz-secondary-small-param-before-8210.sc --world 2 --sizes n=1,M=2
# Fails exactly where aligned - n > S, e.g. world 3 M 1 n 1; world 4 M 1 n in {1, 2, 5}.
# Confirmed on gloo (torch 2.11.0+cu130; torch 1.13.0a0 the same counts):
# a script runs the verbatim lines of both commits on
# gloo worlds 2, 3, 4 (G = W), M 1..3, n = 1..6W, then all-gathers the
# secondary shards and compares the narrowed buffer with the parameter:
# "before: 162 cases, 40 differ; after: 162 cases, 0 differ"; every before
# case that differs raises (none is silently wrong), and the (n, M) that raise
# per world are exactly the ones shardcheck eval fails (world 2: (1,2) (1,3)
# (2,3); world 3: 12 cases; world 4: 25 cases). Smallest: world 2, n 1, M 2,
# rank 1 "IndexError: start out of range (expected to be in range of [-1, 1],
# but got 2)" (torch 1.13 words it "Dimension out of range (expected to be in
# range of [-1, 0], but got 2)").
pipeline deepspeed-hpz-secondary-small-param-before-8210
dims n
param M 1..3
input replicate
output replicate
sizes n=1..6*P
expect fail
tensor x = input
sec = empty x [cdiv(n,M*P)*M]  # partition_parameters.py:1870 torch.empty(secondary_partition_size)
piece = narrow x 0 rank*(cdiv(n,M*P)*M) max(0,min(n-rank*(cdiv(n,M*P)*M),cdiv(n,M*P)*M))  # partition_parameters.py:1900 one_dim_param.narrow(0, secondary_start, sec_numel)
sec = write sec piece dim=0 start=0  # partition_parameters.py:1899 ds_secondary_tensor.narrow(0, 0, sec_numel).copy_(...)
g = all_gather_into_tensor sec  # partition_parameters.py:1350 _dist_allgather_fn(param_ds_tensor, param_buffer, ds_process_group)
y = narrow g 0 0 n  # partition_parameters.py:1357 param_buffer.narrow(0, 0, param.ds_numel)
