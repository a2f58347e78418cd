# Megatron's scatter to the sequence-parallel region, inside each tp group:
# each rank keeps its tp coordinate's slice (no communication)
dims s h
mesh dp=D tp=T
input dp:shard s
output dp:shard s tp:shard s
narrow 0 tp*(size(0)//T) size(0)//T
expect pass
