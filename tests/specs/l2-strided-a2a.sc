# Planted: a sized all_to_all_single on a strided view (narrowed along
# dim 1 of split shards): refused alike on every process.
dims s h
input shard h split
output shard h split
narrow 1 0 1
all_to_all_single splits=(size(0) if src==dst else 0)
