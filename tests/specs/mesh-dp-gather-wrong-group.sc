# planted: the same all-gather on the tp groups
dims s h
mesh dp=D tp=T
input dp:shard s tp:shard h
output tp:shard h
all_gather_into_tensor group=tp
expect fail
