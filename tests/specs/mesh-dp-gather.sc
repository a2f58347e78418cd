# 2-D redistribute [Shard(0), Shard(1)] -> [Replicate(), Shard(1)]: an
# all-gather of dim 0 over each dp group.
dims s h
mesh dp=D tp=T
input dp:shard s tp:shard h
output tp:shard h
all_gather_into_tensor group=dp
expect pass
