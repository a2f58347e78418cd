# Planted: the chunks are cut along dim 0 where the output shards dim 1
dims s h
require h % P == 0 and s % P == 0
input replicate
output shard h
scatter dim=0 src=0
