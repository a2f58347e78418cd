# A realistic wrong variant of slapo's reduce_scatter_along_dim: the result
# is put back into [b, s/P, h] with reshape instead of transpose(0, 1).
# Same shape, wrong element order whenever b > 1 and s/P > 1.
pipeline slapo-6-reduce-scatter-axis1-reshape-back
dims b s h
input partial sum
output shard s
expect fail
transpose 0 1
contiguous
reduce_scatter_tensor sum
reshape [b, s/P, h]
