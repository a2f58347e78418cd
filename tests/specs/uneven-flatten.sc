# Planted: see tests/test_cli.sh (uneven placements).
dims n m
input shard n chunk
output shard n chunk as (n m)
flatten 0 1
