# A realistic wrong variant of slapo's reduce_scatter_along_dim: the
# .contiguous() after the transpose is forgotten and the tensor's data
# pointer goes to the collective anyway (a custom or older wrapper that does
# not check strides). The collective then reduces the [b, s, h] memory as if
# it were [s, b, h]: wrong whenever b > 1 and s > 1. (With torch.distributed
# itself the call raises "Tensors must be contiguous"; drop `raw` to check
# that instead.)
pipeline slapo-6-reduce-scatter-axis1-missing-contiguous
dims b s h
input partial sum
output shard s
expect fail
transpose 0 1
reduce_scatter_tensor sum raw
transpose 0 1
contiguous
