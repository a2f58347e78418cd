# a chain's first half: [Shard(0), Shard(1)] -> [Replicate(), Shard(1)]
dims s h
mesh dp=D tp=T
input dp:shard s tp:shard h
output tp:shard h
all_gather_into_tensor group=dp
