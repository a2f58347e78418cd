# Planted: see tests/test_cli.sh (uneven placements).
dims n m
input shard n chunk
output replicate
all_gather dim=0
