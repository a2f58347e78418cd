# planted: reading a strided shard as DTensor's nested [Shard(0), Shard(0)]
dims s h
mesh dp=D tp=T
input tp,dp:shard s
output tp:shard s
all_gather_into_tensor group=tp
expect fail
