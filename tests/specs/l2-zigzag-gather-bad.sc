# Planted: the gathered zigzag blocks are taken back as if plainly sharded.
dims s h
input shard s zigzag
output replicate
all_gather dim=0
