# slapo sequence parallelism (PR 6): reduce_scatter_along_dim(inp, dim=1) in
# slapo/sharding/sync_ops.py, after a row-parallel linear (partial sums):
#   temp = inp.transpose(0, 1).contiguous()
#   dist.reduce_scatter_tensor(ret, temp)
#   ret = ret.transpose(0, 1).contiguous()
pipeline slapo-6-reduce-scatter-axis1
dims b s h
input partial sum
output shard s
expect pass
transpose 0 1
contiguous
reduce_scatter_tensor sum
transpose 0 1
contiguous
