# slapo sequence parallelism (PR 6): all_gather_along_dim(inp, dim=1) after
# dropout, with all_gather_into_tensor (slapo/sharding/sync_ops.py):
#   temp = inp.transpose(0, 1).contiguous()
#   dist.all_gather_into_tensor(ret, temp)
#   ret = ret.transpose(0, 1).contiguous()
pipeline slapo-6-all-gather-axis1
dims b s h
input shard s
output replicate
expect pass
transpose 0 1
contiguous
all_gather_into_tensor
transpose 0 1
contiguous
