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
# deepspeedai/DeepSpeed @ 2d4488ef9d30d277110d173ef8887b21be38115c (PR #8210
# "Fix ZeRO++ secondary shard copy for small params", fixes issue #6659;
# parent 646e491c95ed78d81269d38daa50e89e284361a4, see
# hpz-secondary-small-param-before-8210.sc), the fix.
# deepspeed/runtime/zero/partition_parameters.py:
#   L1645-1651, L1867, L1870, L1887, L1894 as before
#   L1897-1902 with torch.no_grad():
#                  param.ds_secondary_tensor.zero_()
#                  if sec_numel > 0:
#                      param.ds_secondary_tensor.narrow(0, 0, sec_numel).copy_(
#                          one_dim_param.narrow(0, secondary_start, sec_numel))
#   L1333, L1350, L1357 the hpZ all-gather, unchanged
# The `if sec_numel > 0` skip is written as the same narrow with start 0 when
# sec_numel is 0 (an empty copy: the same effect, no out-of-range start).
# torch.empty + zero_() is `zeros`.
# Left out: as in the before spec.
# Expected PASS (2000 random cases; exhaustive world 1..3, n <= 3, M 1..3).
# Confirmed on gloo (torch 2.11.0+cu130 and torch 1.13.0a0):
# "before: 162 cases, 40 differ; after: 162
# cases, 0 differ" (worlds 2, 3, 4; M 1..3; n = 1..6W): after the fix every
# rank of the group gets the whole parameter back from the hpZ all-gather.
pipeline deepspeed-hpz-secondary-small-param-8210
dims n
param M 1..3
input replicate
output replicate
sizes n=1..6*P
expect pass
tensor x = input
sec = zeros x [cdiv(n,M*P)*M]  # partition_parameters.py:1899 torch.empty(secondary_partition_size) then .zero_()
piece = narrow x 0 (rank*(cdiv(n,M*P)*M) if max(0,min(n-rank*(cdiv(n,M*P)*M),cdiv(n,M*P)*M)) > 0 else 0) max(0,min(n-rank*(cdiv(n,M*P)*M),cdiv(n,M*P)*M))  # partition_parameters.py:1902 if sec_numel > 0: one_dim_param.narrow(0, secondary_start, sec_numel)
sec = write sec piece dim=0 start=0  # partition_parameters.py:1901 ds_secondary_tensor.narrow(0, 0, sec_numel).copy_(...)
g = all_gather_into_tensor sec  # partition_parameters.py:1350 _dist_allgather_fn(param_ds_tensor, param_buffer, ds_process_group)
y = narrow g 0 0 n  # partition_parameters.py:1357 param_buffer.narrow(0, 0, param.ds_numel)
