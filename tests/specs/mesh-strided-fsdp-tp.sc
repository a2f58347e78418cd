# FSDP2 + TP: a TP shard of rows, FSDP-sharded again (_StridedShard); the
# all-gather over dp rebuilds each rank's TP shard
dims s h
mesh dp=D tp=T
input tp,dp:shard s
output tp:shard s
all_gather_into_tensor group=dp
expect pass
