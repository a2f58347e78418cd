# Planted: the ring steps forward twice (identity only on 1 or 2 ranks).
dims s h
input shard s
output shard s
shift 1
shift 1
