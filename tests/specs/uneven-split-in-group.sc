# Planted: see tests/test_cli.sh (uneven placements).
dims n m
input shard n split as (m n)
output shard n split as (m n)
