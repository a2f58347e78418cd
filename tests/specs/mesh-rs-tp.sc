# partial over tp reduce-scattered on tp: dim 0 nested under dp's shard
dims s h
mesh dp=D tp=T
input dp:shard s tp:partial sum
output dp:shard s tp:shard s
reduce_scatter_tensor sum group=tp
expect pass
