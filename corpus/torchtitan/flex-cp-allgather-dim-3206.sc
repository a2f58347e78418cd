# torchtitan's context parallelism for FlexAttention, after the fix (the
# layout and the buggy version: flex-cp-allgather-dim-before-3206.sc).
# pytorch/torchtitan @ 179d9e100210c61e8d75dc57feed3cf6d32c10e8 (PR #3206,
# "CP AllGather on the wrong dimension"):
# torchtitan/distributed/context_parallel.py L57-72, apply_cp_to_forward:
#     def cp_forward(q, k, v, **kwargs):
#         k = k.contiguous()
#         v = v.contiguous()
#         global_k, global_v = flex_cp_allgather(k, v, 1, pg_name)
#         return orig_fn(q, global_k, global_v, **kwargs)
# k is in model layout (bs, seq, heads, dim) here (FlexAttention.forward,
# torchtitan/models/common/attention.py L225-226, transposes it to
# (bs, heads, seq, dim) only afterwards), so dim 1 is the sequence.
# flex_cp_allgather (torch 2.11, _cp_custom_ops.py L8-20) is
# funcol.all_gather_tensor(k, 1, pg_name): all_gather_into_tensor on dim 0,
# then torch.cat(res.chunk(group_size, 0), dim=1)
# (_functional_collectives.py L199-215).
# X is k in the order the CP ranks hold it (after the load balancer's
# reordering, which the gathered K keeps and the block mask expects).
# Left out: v (the same steps), q (stays local), flex_attention itself.
# Expected PASS (random 500 cases a property, and --exhaustive --world
# 1..3 --max-dim 3: 540 cases, 4 properties pass).
# Confirmed on gloo (torch 2.11.0) (the
# real apply_cp_to_forward of this commit, exec'd from git show, torch's
# real flex_cp_allgather on a CPU gloo DeviceMesh): "after (179d9e1...):
# 120 cases, 0 differ" over worlds 2, 3, 4 (40 distinct cases each); every
# rank's global_k and global_v equal the full X and V.
pipeline torchtitan-flex-cp-allgather-dim-3206
dims b s h d
input shard s
output replicate
expect pass
contiguous                 # context_parallel.py:65  k = k.contiguous()
contiguous                 # _cp_custom_ops.py:12  k = k.contiguous()
all_gather_into_tensor     # _functional_collectives.py:203  all_gather_into_tensor(self, group_size, group_name)
chunk_cat chunk=0 cat=1    # _functional_collectives.py:214  gather_dim = 1 (flex_cp_allgather(k, v, 1, pg_name))
