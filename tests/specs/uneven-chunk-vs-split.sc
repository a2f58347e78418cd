# Planted: see tests/test_cli.sh (uneven placements).
dims n m
input shard n chunk
output shard n split
